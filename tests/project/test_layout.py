"""The package's layout: the layers of pyproject's import-linter contract (CONTRIBUTING.md "Layers")
are what the code imports. ``lint-imports`` checks the direction in CI; these tests check what it
cannot: no import cycle anywhere (function-level imports included), and a sandbox child that
loads only the layers it needs (issue 29)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from dataclasses import asdict
from pathlib import Path

import grimp
import pytest

from auditor.extract.common import Limits
from auditor.text.shingle import Params
from tests.cli.test_cli_layout import cycle

ROOT = Path(__file__).resolve().parents[2]

# What the sandbox's prepare child may import of auditor: the sandbox itself, the parsers and the
# pure layer, and the shared modules. Never the store, the corpus (ingest's batch machinery), the
# index or anything above.
CHILD_MAY_IMPORT = ("auditor.sandbox", "auditor.extract", "auditor.text")
CHILD_SHARED = {"auditor", "auditor.errors", "auditor.versions", "auditor.cache"}


def _graph() -> dict[str, set[str]]:
    g = grimp.build_graph("auditor", cache_dir=None, exclude_type_checking_imports=True)
    return {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}


def test_the_import_graph_of_auditor_has_no_cycle():
    """No cycle, function-level imports included. Nested formats (an archive, a .docx, an EDGAR
    submission hold documents of any format) reach the dispatcher through the leaf
    ``auditor.extract.nested``, which the dispatcher fills in, not by importing it."""
    graph = _graph()
    assert len(graph) > 80 and "auditor.engine.audit" in graph
    assert "auditor.extract.nested" in graph["auditor.extract.archive"]
    assert cycle(graph) is None


def test_every_package_of_auditor_is_a_layer_of_the_contract_or_shared():
    """A new folder under auditor/ has a place in the contract (or is a shared module)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = {name.strip() for entry in config["contracts"][0]["layers"] for name in entry.split("|")}
    shared = set(config["contracts"][1]["source_modules"])
    tops = {f"auditor.{p.stem if p.is_file() else p.name}" for p in (ROOT / "auditor").iterdir()
            if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.name not in ("__init__.py", "__main__.py")}
    assert tops == layers | shared, (tops - layers - shared, (layers | shared) - tops)


def _child_imports(tmp_path: Path, name: str, data: bytes) -> set[str]:
    """The auditor modules loaded in a ``prepare`` child (``python -m auditor.sandbox prepare``, run
    as the pool runs it) once it has served one file: its ``sys.modules`` when it exits."""
    request = {"name": name, "timeout": 60, "size": len(data), "limits": asdict(Limits()),
               "params": Params().as_dict(), "readings": True}
    loaded = tmp_path / "modules.txt"
    child = ("import atexit, runpy, sys\n"
             f"atexit.register(lambda: open({str(loaded)!r}, 'w').write('\\n'.join(sorted(sys.modules))))\n"
             f"sys.argv = ['auditor.sandbox', 'prepare', '--memory', '{2 * 2**30}', '--parent', '{os.getpid()}']\n"
             "runpy.run_module('auditor.sandbox', run_name='__main__', alter_sys=True)\n")
    proc = subprocess.run([sys.executable, "-s", "-c", child], input=json.dumps(request).encode() + b"\n" + data,
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    length, _, rest = proc.stdout.partition(b"\n")  # the answer: its length, the JSON, the attachments
    answer = json.loads(rest[: int(length)])
    assert answer["ok"] and answer["doc"]["n_words"] > 5, answer
    return {m for m in loaded.read_text().split("\n") if m == "auditor" or m.startswith("auditor.")}


@pytest.mark.parametrize("name,data", [
    ("notice.html", b"<html><body><p>This notice is given under the agreement between the parties "
                    b"and binds both of them until the end of the term.</p></body></html>"),
    ("notice.txt", b"This notice is given under the agreement between the parties and binds both of "
                   b"them until the end of the term.\n"),
])
def test_the_sandbox_child_imports_neither_the_store_nor_ingest(tmp_path, name, data):
    imported = _child_imports(tmp_path, name, data)
    assert "auditor.extract.prepare" in imported and "auditor.text.shingle" in imported
    outside = sorted(m for m in imported
                     if m not in CHILD_SHARED and not m.startswith(tuple(p + "." for p in CHILD_MAY_IMPORT))
                     and m not in CHILD_MAY_IMPORT)
    assert outside == [], outside


def test_the_sandbox_is_only_process_isolation():
    """Issue 35: no format's reading rules in auditor/sandbox/. Its modules import no parser and
    no format module; the jobs it serves are named in ``pool.JOBS`` and live in auditor/extract/."""
    from auditor.sandbox import pool

    g = grimp.build_graph("auditor", "pdfminer", "lxml", "selectolax", cache_dir=None,
                          exclude_type_checking_imports=True)
    sandbox = {m for m in g.modules if m == "auditor.sandbox" or m.startswith("auditor.sandbox.")}
    imported = {i for m in sandbox for i in g.find_modules_directly_imported_by(m)}
    assert sandbox >= {"auditor.sandbox.pool", "auditor.sandbox.lifetime"}
    assert not {i for i in imported if i.split(".")[0] in ("pdfminer", "lxml", "selectolax")
                or i.startswith("auditor.extract")}, imported
    assert all(module.startswith("auditor.extract.") for module in pool.JOBS.values()), pool.JOBS
