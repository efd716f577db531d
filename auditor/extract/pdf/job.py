"""The ``pdf`` job of :mod:`auditor.sandbox.pool`, in the child: the text of each page of one PDF
as a viewer shows it (:func:`handle`). The parent's side is :mod:`auditor.extract.pdf.worker`.

pdfminer.six can loop forever, exhaust memory or recurse without bound on hostile or merely
broken PDFs, and has no timeout of its own. So the parent never parses a PDF: each one goes to
a ``python -m auditor.sandbox pdf`` child with an address-space limit, which is killed when the
wall-clock deadline passes (see :mod:`auditor.sandbox.pool`). :mod:`.fixes` holds what the child
changes in pdfminer before it parses (reference cycles, widths by encoding).

What a viewer shows is read, not every glyph (:mod:`.device`, :mod:`.interpreter`): text drawn
invisible (render mode 3 or 7) except over an image (a scan's OCR layer, the reading of that
image), white text on no darker background, text under 2 pt or squeezed under 20% of its width,
text outside the clip path or the crop box, text covered by an opaque shape drawn after it.
Those glyphs are kept in ``all_pages`` (pdfminer's reading of every glyph, as before).
Annotations' appearance streams (form fields, FreeText, stamps) are drawn on the page as a
viewer draws them, and the strings of every annotation (``/Contents``, a field's ``/V``) are
returned apart. Per page, the child also measures what the text layer cannot be trusted for
(``signals``, :mod:`.signals`): glyphs drawn out of their visual order, how much of the page
images cover and how much text lies over them, glyphs drawn as vector outlines; and it samples
the words of each font (``fonts``).

The answer for one PDF::

    {"ok": true, "pages": [str, ...], "all_pages": [str | null, ...], "annotations": [str, ...],
     "signals": [{...}, ...], "fonts": {"name": [word, ...]}, "font_maps": [[name, n, differ]],
     "version": "20260107",
     "warnings": [...], "retire": false}
    {"ok": false, "code": "pdf_encrypted", "message": "..."}
"""

from __future__ import annotations

import re

from auditor.errors import FIX_MARK
from auditor.sandbox import pool as sandbox
from auditor.sandbox.pool import Fail
from auditor.text import dates

_MAX_WARNINGS = 20


def _page_count(doc: object) -> int | None:
    from pdfminer.pdftypes import resolve1

    try:
        count = resolve1(resolve1(doc.catalog["Pages"])["Count"])  # type: ignore[attr-defined]
    except Exception:
        return None
    return count if isinstance(count, int) else None


def read_pages(data: bytes, max_pages: int, max_chars: int, max_stream_bytes: int = 64 * 2**20) -> dict:
    """Every page of one PDF as a viewer shows it, with what it hides and the measures of its layer."""
    import io

    from pdfminer.layout import LAParams
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError
    from pdfminer.pdfinterp import PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    from auditor.extract.pdf import fixes
    from auditor.extract.pdf.device import Device
    from auditor.extract.pdf.interpreter import Interpreter, hidden_layers

    fixes.guard_reference_cycles()
    fixes.widths_by_encoding()
    fixes.bound_inflation(max_stream_bytes)
    try:
        doc = PDFDocument(PDFParser(io.BytesIO(data)), password="")
    except PDFEncryptionError as e:
        raise Fail("pdf_encrypted", f"PDF is encrypted and needs a password ({type(e).__name__}: {e})") from e
    _DATES.update(dates.pdf_document(doc))
    count = _page_count(doc)
    if count is not None and count > max_pages:
        raise Fail("too_many_pages", f"PDF declares {count} pages, more than the limit of {max_pages}")
    rsrc = PDFResourceManager(caching=True)
    # boxes_flow=None skips pdfminer's quadratic text-box ordering but keeps word spacing.
    device = Device(rsrc, laparams=LAParams(boxes_flow=None))
    interp = Interpreter(rsrc, device)
    device.hidden_layers = hidden_layers(doc)
    out: dict = {"pages": [], "all_pages": [], "annotations": [], "signals": [], "fonts": {}, "row_pages": []}
    total = 0
    for page in PDFPage.create_pages(doc):
        if len(out["pages"]) >= max_pages:
            raise Fail("too_many_pages", f"PDF has more than {max_pages} pages")
        interp.process_page(page)
        text, all_text, notes, signals, _, rows = device.result
        total += len(text) + len(all_text or "") + len(notes)
        if total > max_chars:
            raise Fail("text_too_long", f"PDF text exceeds the limit of {max_chars} characters")
        out["pages"].append(text)
        out["all_pages"].append(all_text)
        out["annotations"].append(notes)
        out["signals"].append(signals)
        out["row_pages"].append(rows)
    device.close()
    out["fonts"] = getattr(device, "font_words", {})
    from auditor.extract.pdf.interpreter import shared_glyphs

    shared = []
    for key, (name, glyphs) in getattr(device, "glyph_maps", {}).items():
        if glyphs is not None and key in device.cids_drawn:
            compared, differ = shared_glyphs(glyphs[0], glyphs[1], device.cids_drawn[key])
            if compared:
                shared.append([f"{name} (one glyph read as several letters)", compared, differ])
    out["font_maps"] = sorted([[m.name, m.compared, m.differ] for m in getattr(device, "font_maps", {}).values()
                               if m.compared] + shared)
    return out


def _pdfminer_version() -> str:
    import pdfminer

    return str(pdfminer.__version__)


_WARNINGS: list[str] | None = None


def _collect_warnings() -> list[str]:
    """pdfminer's first distinct warnings, kept for the caller instead of printed."""
    global _WARNINGS
    if _WARNINGS is not None:
        return _WARNINGS
    import logging

    into: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                msg = record.getMessage()[:300]
            except Exception:
                return
            if len(into) < _MAX_WARNINGS and msg not in into:
                into.append(msg)

    log = logging.getLogger("pdfminer")
    log.addHandler(Collect(logging.WARNING))
    log.propagate = False
    _WARNINGS = into
    return into


_DATES: dict[str, str] = {}  # the dates of the PDF being extracted (its metadata), as found


def handle(request: dict, data: bytes) -> tuple[dict, list[bytes]]:
    """The ``pdf`` job, in the child: one PDF's pages. A PDF pdfminer.six cannot parse (bytes
    before ``%PDF``, a broken cross-reference table) is repaired by qpdf (pikepdf) and read
    again; failing that, pdfium reads its text (``reader`` says which, with its version). A file
    whose repair loses part of it (cut short) is refused, naming what qpdf found."""
    warnings = _collect_warnings()
    warnings.clear()
    _DATES.clear()
    limits = (int(request["max_pages"]), int(request["max_chars"]), int(request.get("max_stream_bytes", 64 * 2**20)))
    reader = f"pdfminer.six {_pdfminer_version()}"
    out: dict | None = None
    try:
        out = read_pages(data, *limits)
    except Fail:
        raise  # a refusal of its own (a bomb, a cycle, a limit): no other engine is asked
    except Exception as first:
        if sandbox.is_memory_error(first):
            raise
        failed = f"{type(first).__name__}: {str(first)[:200]}"
        repaired, lost, unrepaired = _repaired(data)
        if lost is not None:
            raise Fail("pdf_error", f"{failed}; {lost}: the file is cut short or damaged and part of the "
                       f"document is missing{FIX_MARK}ingest a complete copy") from first
        if repaired is not None:
            warnings.clear()
            _DATES.clear()
            try:
                out = read_pages(repaired, *limits)
                reader = f"pdfminer.six {_pdfminer_version()} after a repair by {_pikepdf_version()}"
            except Fail:
                raise
            except Exception:
                out = None
        if out is None:
            try:
                out = _pdfium_pages(data, limits[0])
            except Fail:
                raise
            except Exception as e:
                why = f"qpdf cannot repair it ({unrepaired})" if unrepaired else "read again after qpdf's repair, it fails"
                raise Fail("pdf_error", f"{failed}; {why}; pdfium cannot open it ({str(e)[:100]}): the file "
                           f"is damaged or cut short{FIX_MARK}ingest a complete copy") from first
            reader = f"pdfium {_pdfium_version()}"
        warnings.insert(0, f"pdf-recovered: pdfminer.six could not parse the file ({failed}); read by {reader}")
    assert out is not None
    return {**out, "version": _pdfminer_version(), "warnings": list(warnings), "dates": dict(_DATES),
            "reader": reader}, []


def _pikepdf_version() -> str:
    import pikepdf

    return f"pikepdf {pikepdf.__version__} (qpdf {pikepdf.__libqpdf_version__})"


def _pdfium_version() -> str:
    import pypdfium2.version as v

    return f"{v.PDFIUM_INFO} (pypdfium2 {v.PYPDFIUM_INFO})"


#: What qpdf says while it only finds the objects again (the cross-reference table rebuilt,
#: a stream's length measured again): the objects are all there, whole. Anything else it says
#: while repairing (an object or a stream cut off, no trailer, a page tree naming objects that
#: are not in the file) means part of the document is gone.
_REPAIR_ONLY = re.compile(
    r"(file is damaged|can't find startxref|xref not found|Attempting to reconstruct cross-reference table"
    r"|expected endstream|attempting to recover stream length|recovered stream length: \d+"
    r"|a common error handled correctly by qpdf.*)$")
_WHERE = re.compile(r"^stream <[^>]*>")


def _repaired(data: bytes) -> tuple[bytes | None, str | None, str | None]:
    """The file as qpdf rewrites it (objects found again by scanning, offsets recomputed), what
    its repair loses when it loses something (then no file), and why qpdf cannot open it.

    A repair is used only when qpdf lost nothing. A file cut short (a truncated download) has no
    trailer and ends inside an object; qpdf still makes a document of what is left, with the
    pages, fonts and streams beyond the cut missing or empty. That is not what a reader reads:
    poppler (pdftotext) and pdfium open no such file. Read, it would be stored with pages
    silently missing."""
    import io

    try:
        import pikepdf

        with pikepdf.open(io.BytesIO(data)) as doc:
            said = [_WHERE.sub("", str(w)).strip() for w in doc.get_warnings()]
            lost = [w for w in said if not _REPAIR_ONLY.search(w)]
            if lost:
                return None, f"qpdf's repair loses part of it ({lost[0][:150]})", None
            out = io.BytesIO()
            doc.save(out)
            return out.getvalue(), None, None
    except Exception as e:
        return None, None, _WHERE.sub("", str(e)).strip(": ")[:150]


def _pdfium_pages(data: bytes, max_pages: int) -> dict:
    """Each page's text as pdfium reads it: a second engine, without the visibility rules of
    this module (so every drawn glyph, as pdftotext gives it)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data)
    try:
        if len(doc) > max_pages:
            raise Fail("too_many_pages", f"PDF has {len(doc)} pages, more than the limit of {max_pages}")
        pages = []
        for i in range(len(doc)):
            page = doc[i]
            pages.append(page.get_textpage().get_text_bounded() + "\n")
    finally:
        doc.close()
    n = len(pages)
    return {"pages": pages, "all_pages": [None] * n, "annotations": [""] * n, "signals": [{} for _ in range(n)],
            "fonts": {}, "row_pages": [None] * n, "font_maps": []}


def classify(e: BaseException) -> tuple[str, str]:
    """Error code and message for an exception raised while extracting one PDF.

    pdfminer.six raises all kinds of exceptions on malformed PDFs (its maintainers expect it),
    so anything else is ``pdf_error`` with the exception named.
    """
    if isinstance(e, Fail):
        return e.code, str(e)
    if sandbox.is_memory_error(e):
        return "pdf_memory", "PDF worker ran out of memory"
    if isinstance(e, RecursionError):
        return "pdf_error", "RecursionError: PDF objects nested or referenced too deeply"
    return "pdf_error", f"{type(e).__name__}: {str(e)[:500]}"
