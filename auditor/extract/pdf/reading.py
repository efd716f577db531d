"""A PDF read as a viewer shows it, page by page, in the parent: the text layer a
:mod:`.job` child gives, OCR where a page needs it (:mod:`.pages`), and the reasons a reader
would not read it so."""

from __future__ import annotations

from auditor.errors import ExtractionError, refusal
from auditor.extract.common import Extracted, Limits, Reading, check_text, storable, version_of
from auditor.extract.letters import join_letter_spaced as _join_letter_spaced
from auditor.extract.pdf import pages as pages_mod
from auditor.extract.pdf import worker
from auditor.extract.pdf.checks import (
    TOKEN,
    layer_unreadable,
    letter_spacing,
    page_list,
    text_unreadable,
)
from auditor.text import dates

__all__ = ["extract_pdf", "extract_pdf_pages", "letter_spacing"]

_COPY = "ingest a copy with a text layer (the document it was made from) or a sharper scan"
refusal("no_text", _COPY)
refusal("pdf-unread-pages", _COPY)
refusal("pdf-redaction", "the text under the boxes is still in the file: redact it with a tool that removes "
                         "the text (not a box drawn over it), then ingest the new copy")
refusal("pdf-recovered", "nothing, if the reading is complete; to be sure, print the PDF again from a viewer "
                         "and ingest that copy")


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
    layer, result = _pdf(data, limits)
    read = pages_mod.read(data, layer, result.signals, limits)
    text, offsets, letter_spaced = _page_texts(read.texts)
    every = None
    if any(p is not None for p in result.all_pages):
        every = _page_texts([storable(a if a is not None else p, [])
                             for a, p in zip(result.all_pages, layer, strict=True)])[0]
    n = len(layer)
    if not text.strip():
        if every and every.strip():
            text = every
            hidden_only = True
        else:
            raise ExtractionError("no_text", *_no_text(read, n))
    else:
        hidden_only = False
    check_text(text, "PDF", limits)
    warnings = list(result.warnings)
    unmapped = text.count("(cid:")
    if unmapped:
        warnings.append(f"{unmapped} glyphs without a Unicode mapping appear as (cid:N)")
    if letter_spaced:
        warnings.append(f"rejoined {letter_spaced} letter-spaced words")
    by_ocr = {d.page for d in read.decided if d.used == "ocr"}
    layer_text, _, layer_spaced = _page_texts([p for i, p in enumerate(read.texts) if i not in by_ocr])
    reasons = [r for r in [text_unreadable(layer_text, layer_spaced)] if r]
    if hidden_only:
        reasons.append("pdf-hidden: every glyph of the PDF is hidden from a viewer (invisible, white, "
                       "tiny, clipped or covered)")
    reasons += layer_unreadable(result, len(TOKEN.findall(text)))
    refused = pages_mod.refusal(read, n)
    if refused:
        reasons.append(refused)
    warnings += _page_warnings(read, n)
    redactions = _redactions(result.signals)
    warnings += [f"pdf-redaction: page {r['page']}: {r['glyphs']} glyph(s) under an opaque box at "
                 f"{r['box']}: {r['text'][:60]!r}" for r in redactions[:10]]
    readings = []
    if every is not None and every != text:
        readings.append(Reading("pdf:all-text", every, "every glyph, those a viewer does not show included"))
    if any(r is not None for r in result.row_pages):
        rows = _page_texts([storable(r if r is not None else p, []) for r, p in zip(result.row_pages, read.texts, strict=True)])[0]
        readings.append(Reading("pdf:rows", rows, "the visible lines row by row, left to right, as a reader reads a page"))
    if read.recognised:
        readings.append(Reading("pdf:ocr", _page_texts([storable(p, []) for p in read.ocr_texts])[0],
                                "the recognised text (OCR of a 300 dpi rendering) of the pages that were recognised"))
    if by_ocr and any(layer[i].strip() for i in by_ocr):
        readings.append(Reading("pdf:text-layer", _page_texts(layer)[0],
                                "the text layer of every page, where OCR replaced it on pages whose layer misses what they show"))
    notes = "\n".join(storable(n, []) for n in result.annotations if n.strip())
    if notes.strip():
        readings.append(Reading("pdf:annotations", notes,
                                "the strings of every annotation: notes, form field values, FreeText"))
    meta = {**dates.recorded(result.dates), **read.meta(n)}
    if (result.reader and not result.reader.startswith("pdfminer.six ")) or "repair" in result.reader:
        meta["pdf_reader"] = result.reader
    if redactions:
        meta["redactions"] = redactions
    extractor = "pdfium" if result.reader.startswith("pdfium") else "pdfminer.six"
    version = result.reader.split()[1] if extractor == "pdfium" else result.version or version_of("pdfminer.six")
    return Extracted("pdf", text, extractor, version,
                     page_offsets=offsets, warnings=warnings, unreadable="; ".join(reasons) or None,
                     readings=readings, meta=meta)


def _no_text(read: pages_mod.Pages, n: int) -> tuple[str, str | None]:
    """Why a PDF with no text at all is refused, and what to do about it (None: the code's fix)."""
    what = f"PDF has no text layer in its {n} page(s)"
    if read.unread:
        return f"{what} and OCR read none: {read.unread[0].reason}", None
    if read.recognised:
        return (f"{what}, and OCR of their rendering finds no words (blank pages or pictures)",
                "if a reader sees text on them, ingest a sharper scan or a copy with its text")
    return (f"{what} and draws nothing on them (blank pages): there is nothing to read",
            "if the document should hold text, ingest a copy that holds it")


def _page_warnings(read: pages_mod.Pages, n: int) -> list[str]:
    out = []
    used = [d for d in read.decided if d.used == "ocr"]
    if used:
        first = used[0].ocr
        assert first is not None
        mean = sum(d.ocr.confidence for d in used if d.ocr) / len(used)
        out.append(f"OCR read page(s) {page_list([d.page + 1 for d in used])} ({first.engine.get('engine')} "
                   f"{first.engine.get('version')}, {first.engine.get('language')}, {first.dpi} dpi, mean "
                   f"confidence {mean:.0f})")
    if read.unread:
        out.append(f"pdf-unread-pages: {len(read.unread)} of {n} page(s) ({len(read.unread) / max(n, 1):.0%}) "
                   f"are not read: " + " / ".join(d.reason or "" for d in read.unread[:5]))
    return out


def _redactions(signals: list[dict]) -> list[dict]:
    """Text a viewer does not show because an opaque box or image is drawn over it (a redaction
    that left the text under it), page by page."""
    out = []
    for i, s in enumerate(signals):
        for x0, y0, x1, y1, glyphs, text in s.get("covered") or []:
            if sum(c.isalnum() for c in str(text)) < 2:
                continue  # rules, underscores, a stray letter: not text someone meant to hide
            out.append({"page": i + 1, "box": [round(float(v)) for v in (x0, y0, x1, y1)],
                        "glyphs": int(glyphs), "text": " ".join(str(text).split())})
    return out
