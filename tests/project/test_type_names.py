"""One vocabulary: each public type name of the package names one type, so a reader who meets
``Finding`` in one module knows what it is in every other."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import auditor

ROOT = Path(auditor.__file__).parent


def public_classes() -> dict[str, list[str]]:
    """Public class name -> the modules that define a class of that name at their top level."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(ROOT.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found[node.name].append(module)
    return found


def test_each_public_type_name_names_one_type():
    twice = {name: where for name, where in public_classes().items() if len(where) > 1}
    assert not twice, f"rename one of each: {twice}"


def test_the_walk_finds_the_types_it_should():
    names = public_classes()
    assert names["Store"] == ["auditor.store.db"]
    assert "AuditOutcome" in names and "Finding" in names
