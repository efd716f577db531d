"""Licence texts written by others, as the project's own pip install brings them: the licence
files in the dist-info folders of installed packages (no file of the host system is read)."""

from __future__ import annotations

import functools
import importlib.metadata
import re

_NAME = re.compile(r"(?:^|/)(?:LICEN[CS]E|COPYING)[^/]*$", re.I)


PROJECT = "containment-auditor"


@functools.cache
def brought_by_the_test_install() -> frozenset[str]:
    """The distributions ``pip install -e '.[test]'`` brings (canonical names): the closure of
    the project's requirements with the test extra. The project itself is not among them: its
    licence is not a text written by others.

    Tests index these texts (``licence(3)``), so the set must not grow when a developer also
    installs another extra (docs, bench) into the same environment."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: set[tuple[str, str]] = set()
    todo = [(PROJECT, "test")]
    names: set[str] = set()
    while todo:
        name, extra = todo.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        names.add(canonicalize_name(name))
        for line in dist.requires or ():
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": extra}):
                dep = canonicalize_name(req.name)
                todo += [(dep, "")] + [(dep, canonicalize_name(e)) for e in sorted(req.extras)]
    return frozenset(names - {canonicalize_name(PROJECT)})


@functools.cache
def licence_texts(min_words: int = 300) -> tuple[tuple[str, str], ...]:
    """(package, text) of the licence file of every package the test install brings, with
    ``min_words`` words or more, one per distinct text, sorted by package name."""
    from packaging.utils import canonicalize_name

    brought = brought_by_the_test_install()
    found: dict[str, tuple[str, str]] = {}
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if canonicalize_name(name) not in brought:
            continue
        for f in dist.files or ():
            if ".dist-info/" in str(f) and _NAME.search(str(f)):
                try:
                    text = f.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                if len(text.split()) >= min_words:
                    key = " ".join(text.split())
                    found.setdefault(key, (name, text))
    return tuple(sorted(found.values()))


def licence(i: int = 0) -> str:
    """One licence text (the ``i``-th, in a stable order)."""
    texts = licence_texts()
    return texts[i % len(texts)][1]
