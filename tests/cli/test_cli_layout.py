"""The CLI package's layout: one module per command group over ``auditor.cli.common``, which
imports none of them, and no import circle between the modules (issue 16)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "auditor" / "cli"
MODULES = sorted(f"auditor.cli.{p.stem}" for p in CLI.glob("*.py") if p.stem != "__init__")


def cli_imports(path: Path) -> set[str]:
    """The ``auditor.cli`` modules a file imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "auditor.cli":  # from auditor.cli import gate: a submodule, or a name of the package
                found.update(f"auditor.cli.{a.name}" if (CLI / f"{a.name}.py").exists() else "auditor.cli"
                             for a in node.names)
            elif node.module.startswith("auditor.cli."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name == "auditor.cli" or a.name.startswith("auditor.cli."))
    return found


def import_graph() -> dict[str, set[str]]:
    graph = {m: cli_imports(CLI / f"{m.rsplit('.', 1)[1]}.py") for m in MODULES}
    graph["auditor.cli"] = cli_imports(CLI / "__init__.py")
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (a path that ends where it starts), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt, [*path, nxt])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [start])):
            return found
    return None


def test_cycle_finds_a_circle_and_only_a_circle():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_cli_modules_import_no_circle():
    graph = import_graph()
    assert "auditor.cli.common" in graph and len(MODULES) >= 8
    assert cycle(graph) is None, graph


def test_common_imports_no_command_module():
    assert cli_imports(CLI / "common.py") == set()


def test_command_modules_import_only_common():
    for m in MODULES:
        assert cli_imports(CLI / f"{m.rsplit('.', 1)[1]}.py") <= {"auditor.cli.common"}, m


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.slow
def test_each_cli_module_imports_first_in_a_fresh_interpreter(module):
    r = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr

