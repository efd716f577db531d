"""PDF: the text of each page as a viewer shows it, read by pdfminer.six in a killable child
process, with page boundaries kept, letter-spaced words rejoined, and the signs that the text
layer is not a reading of the page recorded.

One module per concern: :mod:`.worker` sends a PDF to the child (the parent's side),
:mod:`.job` serves it there; :mod:`.fixes` changes pdfminer where it loops or misplaces glyphs;
:mod:`.interpreter` and :mod:`.device` decide what a viewer shows (clip, opacity, colours,
optional content, annotations), with :mod:`.colour` and :mod:`.geometry`; :mod:`.layout` writes a
laid-out page as text; :mod:`.signals` measures what the text layer cannot be trusted for, and
:mod:`.checks` turns those measures into reasons.
"""

from __future__ import annotations

from auditor.errors import ExtractionError
from auditor.extract.common import Extracted, Limits, Reading, check_text, storable, version_of
from auditor.extract.letters import join_letter_spaced as _join_letter_spaced
from auditor.extract.pdf import worker
from auditor.extract.pdf.checks import TOKEN, layer_unreadable, letter_spacing, text_unreadable
from auditor.text import dates

__all__ = ["extract_pdf", "extract_pdf_pages", "letter_spacing"]


def _pdf(data: bytes, limits: Limits) -> tuple[list[str], worker.PdfResult]:
    result = worker.run(
        data, timeout=limits.pdf_timeout, memory=limits.pdf_memory,
        max_pages=limits.max_pdf_pages, max_chars=limits.max_text_chars,
        max_stream_bytes=limits.pdf_max_stream_bytes)
    warnings = result.warnings
    pages = [storable(p, warnings) for p in result.pages]
    return pages, result


def extract_pdf_pages(data: bytes, limits: Limits = Limits()) -> list[str]:
    """The text of each page of a PDF, extracted in a killable child process."""
    return _pdf(data, limits)[0]


def _page_texts(pages: list[str]) -> tuple[str, list[int], int]:
    """The pages joined (letter-spaced words rejoined), their offsets, and how many were rejoined."""
    offsets: list[int] = []
    chunks: list[str] = []
    pos = 0
    letter_spaced = 0
    for page in pages:
        page, joined = _join_letter_spaced(page)
        letter_spaced += joined
        offsets.append(pos)
        if page and not page.endswith("\n"):
            page += "\n"
        chunks.append(page)
        pos += len(page)
    return "".join(chunks), offsets, letter_spaced


def extract_pdf(data: bytes, limits: Limits) -> Extracted:
    pages, result = _pdf(data, limits)
    text, offsets, letter_spaced = _page_texts(pages)
    every = None
    if any(p is not None for p in result.all_pages):
        every = _page_texts([storable(a if a is not None else p, [])
                             for a, p in zip(result.all_pages, pages, strict=True)])[0]
    if not text.strip():
        if every and every.strip():
            text = every
            hidden_only = True
        else:
            raise ExtractionError(
                "no_text", f"PDF has no text layer in its {len(pages)} page(s): scanned images need OCR")
    else:
        hidden_only = False
    check_text(text, "PDF", limits)
    warnings = list(result.warnings)
    unmapped = text.count("(cid:")
    if unmapped:
        warnings.append(f"{unmapped} glyphs without a Unicode mapping appear as (cid:N)")
    if letter_spaced:
        warnings.append(f"rejoined {letter_spaced} letter-spaced words")
    reasons = [r for r in [text_unreadable(text, letter_spaced)] if r]
    if hidden_only:
        reasons.append("pdf-hidden: every glyph of the PDF is hidden from a viewer (invisible, white, "
                       "tiny, clipped or covered)")
    reasons += layer_unreadable(result, len(TOKEN.findall(text)))
    readings = []
    if every is not None and every != text:
        readings.append(Reading("pdf:all-text", every, "every glyph, those a viewer does not show included"))
    if any(r is not None for r in result.row_pages):
        rows = _page_texts([storable(r if r is not None else p, []) for r, p in zip(result.row_pages, pages, strict=True)])[0]
        readings.append(Reading("pdf:rows", rows, "the visible lines row by row, left to right, as a reader reads a page"))
    notes = "\n".join(storable(n, []) for n in result.annotations if n.strip())
    if notes.strip():
        readings.append(Reading("pdf:annotations", notes,
                                "the strings of every annotation: notes, form field values, FreeText"))
    return Extracted("pdf", text, "pdfminer.six", result.version or version_of("pdfminer.six"),
                     page_offsets=offsets, warnings=warnings, unreadable="; ".join(reasons) or None,
                     readings=readings, meta=dates.recorded(result.dates))
