"""The dispatcher as the formats that hold documents see it.

An archive, a .docx (an embedded or alternative part) and an EDGAR submission hold documents of
any format, so their readers call the dispatcher that calls them. They reach it through this
module, which :mod:`auditor.extract` fills in when it is imported (always before any of its
modules: Python imports a package before its modules), so the import graph keeps one direction:
the dispatcher imports the formats, the formats import this leaf.
"""

from __future__ import annotations

from collections.abc import Callable

from auditor.extract.common import Extracted, Limits

_dispatch: Callable[[str, bytes, Limits, str], Extracted] | None = None


def register(dispatch: Callable[[str, bytes, Limits, str], Extracted]) -> None:
    global _dispatch
    _dispatch = dispatch


def extract_format(fmt: str, data: bytes, limits: Limits, name: str = "") -> Extracted:
    """The text of a document held inside another, read as ``fmt`` (see
    :func:`auditor.extract.extract_format`)."""
    assert _dispatch is not None, "auditor.extract registers its dispatcher when it is imported"
    return _dispatch(fmt, data, limits, name)
