"""PDF: the text of each page as a viewer shows it, read by pdfminer.six in a killable child
process, with page boundaries kept, letter-spaced words rejoined, and the signs that the text
layer is not a reading of the page recorded.

One module per concern: :mod:`.worker` sends a PDF to the child (the parent's side),
:mod:`.job` serves it there; :mod:`.fixes` changes pdfminer where it loops or misplaces glyphs;
:mod:`.interpreter` and :mod:`.device` decide what a viewer shows (clip, opacity, colours,
optional content, annotations), with :mod:`.colour` and :mod:`.geometry`; :mod:`.layout` writes a
laid-out page as text; :mod:`.signals` measures what the text layer cannot be trusted for, and
:mod:`.checks` turns those measures into reasons; :mod:`.reading` puts it together in the parent
(imported on first use, so that a child does not load it).
"""

from __future__ import annotations

from typing import Any

__all__ = ["extract_pdf", "extract_pdf_pages", "letter_spacing"]


def __getattr__(name: str) -> Any:
    """The parent's readers, imported on first use: a :mod:`.job` child imports this package
    too, and must not load what only the parent needs (numpy and the text layer's checks take
    about 90 MB of address space, out of the child's memory limit)."""
    if name in __all__:
        from auditor.extract.pdf import reading

        return getattr(reading, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
