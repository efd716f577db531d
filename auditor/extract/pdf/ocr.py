"""The ``pdfocr`` job: one PDF page rendered (pdfium, through ``pypdfium2``, at 300 dpi in
grayscale) and recognised (:mod:`auditor.extract.ocr`), in a killable, memory-limited child of
:mod:`auditor.sandbox.pool`. Each page is its own call with its own deadline, so one page that
cannot be read fails alone (:func:`read_page` says why) and the rest of the document is read.

The answer for one page::

    {"ok": true, "text": "...", "confidence": 91.4, "words": 412, "digest": "<sha256 of the pixels>",
     "cached": false, "engine": {...}, "renderer": "pdfium 159.0.8149.0 (pypdfium2 5.15.2)", "dpi": 300}
    {"ok": false, "code": "ocr_unavailable", "message": "no OCR engine is installed: pip install ..."}
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from auditor.errors import ExtractionError, refusal
from auditor.sandbox import pool as sandbox
from auditor.sandbox.pool import Fail

DPI = 300
#: pixels of one rendering at most (a 300 dpi US letter page is 8.4 million): a page declared
#: huge is rendered at a lower resolution rather than exhaust the child's memory
_MAX_PIXELS = 40_000_000

_COPY = "ingest a sharper scan or a copy with a text layer"
refusal("ocr_error", f"ingest again; if it fails again, {_COPY}")
refusal("ocr_render", f"the PDF cannot be rendered: {_COPY}")
refusal("ocr_memory", f"raise --pdf-memory-mb, or {_COPY}")
refusal("ocr_timeout", f"ingest again on a less loaded machine, or {_COPY}")


@dataclass
class PageOcr:
    """One page's recognition, or why it could not be read (``code``, ``message``)."""

    page: int
    text: str = ""
    confidence: float = 0.0
    words: int = 0
    digest: str = ""
    cached: bool = False
    engine: dict[str, Any] = field(default_factory=dict)
    renderer: str = ""
    dpi: int = DPI
    code: str | None = None
    message: str | None = None


class _Worker(sandbox.Worker):
    job = "pdfocr"
    prefix = "ocr_"
    what = "OCR of a PDF page"
    retire_after = 500


_POOL = sandbox.register(sandbox.Pool(_Worker))


def read_page(data: bytes, page: int, *, timeout: float, memory: int) -> PageOcr:
    """Page ``page`` (0-based) of the PDF ``data`` rendered and recognised in a child; a failure is
    returned with its code (``ocr_unavailable``, ``ocr_timeout``, ``ocr_memory``, ``ocr_render``...),
    never raised, so the caller reads the other pages."""
    try:
        msg, _ = _POOL.run({"page": int(page), "dpi": DPI, "timeout": float(timeout)}, data,
                           memory=int(memory), deadline=time.monotonic() + timeout)
    except ExtractionError as e:
        return PageOcr(page, code=e.code, message=str(e))
    try:
        return PageOcr(page, str(msg["text"]), float(msg["confidence"]), int(msg["words"]), str(msg["digest"]),
                       bool(msg.get("cached")), dict(msg["engine"]), str(msg["renderer"]), int(msg["dpi"]))
    except (KeyError, TypeError, ValueError):
        return PageOcr(page, code="ocr_crash", message="the OCR worker gave a malformed result")


def shutdown() -> None:
    """Stop every idle OCR child of this process."""
    _POOL.clear()


# -- child side ------------------------------------------------------------------------------


def _renderer() -> str:
    import pypdfium2.version as v

    return f"pdfium {v.PDFIUM_INFO} (pypdfium2 {v.PYPDFIUM_INFO})"


def render(data: bytes, page: int, dpi: int = DPI) -> tuple[Any, int]:
    """Page ``page`` as a grayscale PIL image, as a viewer draws it (forms and annotations
    included), and the resolution it was drawn at."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        raise Fail("ocr_render", f"pdfium cannot open the PDF to render it ({e})") from e
    try:
        if not 0 <= page < len(doc):
            raise Fail("ocr_render", f"pdfium finds {len(doc)} pages, not page {page + 1}")
        p = doc[page]
        w, h = p.get_size()
        while dpi > 72 and (w * dpi / 72) * (h * dpi / 72) > _MAX_PIXELS:
            dpi //= 2
        image = p.render(scale=dpi / 72, grayscale=True, may_draw_forms=True).to_pil()
        return image.convert("L"), dpi
    finally:
        doc.close()


def handle(request: dict, data: bytes) -> tuple[dict, list[bytes]]:
    """The ``pdfocr`` job, in the child: one page rendered and recognised."""
    from auditor.extract import ocr

    try:
        info = ocr.engine()
    except ExtractionError as e:
        raise Fail(e.code, str(e)) from e
    image, dpi = render(data, int(request["page"]), int(request.get("dpi", DPI)))
    out = ocr.recognise(image, dpi)
    return {**out, "engine": info, "renderer": _renderer(), "dpi": dpi}, []


def classify(e: BaseException) -> tuple[str, str]:
    if isinstance(e, Fail):
        return e.code, str(e)
    if sandbox.is_memory_error(e):
        return "ocr_memory", "the OCR worker ran out of memory"
    return "ocr_error", f"{type(e).__name__}: {str(e)[:500]}"
