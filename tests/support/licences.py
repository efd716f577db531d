"""Licence texts written by others, as the project's own pip install brings them: the licence
files in the dist-info folders of installed packages (no file of the host system is read)."""

from __future__ import annotations

import functools
import importlib.metadata
import re

_NAME = re.compile(r"(?:^|/)(?:LICEN[CS]E|COPYING)[^/]*$", re.I)


@functools.cache
def licence_texts(min_words: int = 300) -> tuple[tuple[str, str], ...]:
    """(package, text) of every installed package's licence file with ``min_words`` words or
    more, one per distinct text, sorted by package name."""
    found: dict[str, tuple[str, str]] = {}
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
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
