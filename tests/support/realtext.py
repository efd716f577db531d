"""Real legal text written by others, from what the project's own install brings: the licence
and notice files that installed packages ship in their distributions (the core dependencies and
the test extra). Tests read nothing of the host system, and these texts are the same on every
machine that installs the same versions.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata as md

# The opening words that tell a licence (the first 80 words of its file, case and spacing folded).
SIGNATURES = {
    "GPL-3.0": "gnu general public license version 3",
    "LGPL-3.0": "gnu lesser general public license version 3",
    "Apache-2.0": "apache license version 2.0",
    "MPL-2.0": "mozilla public license version 2.0",
    "CDDL-1.0": "common development and distribution license",
    "EPL-2.0": "eclipse public license - v 2.0",
    "CC0-1.0": "cc0 1.0 universal",
    "BSD": "redistribution and use in source and binary forms",
}
_NAMES = ("license", "licence", "copying", "notice")


@functools.cache
def licence_files(min_chars: int = 800) -> dict[str, str]:
    """``distribution/path`` -> text of every licence or notice file of at least ``min_chars``
    characters that an installed distribution ships, each text once, in sorted order."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    for dist in sorted(md.distributions(), key=lambda d: (str(d.metadata["Name"]).lower(), d.version)):
        for f in sorted(dist.files or [], key=str):
            name = f.name.lower()
            if not any(k in name for k in _NAMES) or name.endswith((".py", ".pyc", ".pyi", ".so")):
                continue
            try:
                text = f.locate().read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            digest = hashlib.sha256(text.encode()).hexdigest()
            if len(text) < min_chars or digest in seen:
                continue
            seen.add(digest)
            out[f"{dist.metadata['Name']}/{f}"] = text
    return out


def licence(kind: str) -> str:
    """The first installed text of the licence ``kind`` (a key of ``SIGNATURES``)."""
    want = SIGNATURES[kind]
    for text in licence_files().values():
        if want in " ".join(text.lower().split()[:80]):
            return text
    raise LookupError(f"no installed distribution ships the {kind} text: install the test extra "
                      "(pip install -e '.[test]')")


def paragraphs(text: str) -> list[str]:
    return [p for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]
