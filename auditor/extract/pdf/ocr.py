"""The ``pdfocr`` job: one PDF page rendered (pdfium, through ``pypdfium2``, at 300 dpi in
grayscale) and recognised (:mod:`auditor.extract.ocr`), in a killable, memory-limited child of
:mod:`auditor.sandbox.pool`. Each page is its own call with its own deadline, so one page that
cannot be read fails alone (:func:`read_page` says why) and the rest of the document is read.

The answer for one page::

    {"ok": true, "text": "...", "confidence": 91.4, "words": 412, "digest": "<sha256 of the pixels>",
     "cached": false, "engine": {...}, "renderer": "pdfium 159.0.8149.0 (pypdfium2 5.15.2)", "dpi": 300}
    {"ok": false, "code": "ocr_unavailable", "message": "no OCR engine is installed: pip install ..."}

The same job reads the pictures a page draws (``"pictures": [n, ...]``, the ordinals of
:func:`page_pictures`): a renderer's PDF of an HTML page or a .docx holds each picture the
reader sees as an image object, and a picture of text is text no extraction reads. Each is
drawn with its mask at its own resolution, on white, and recognised alone; the answer is
``{"ok": true, "pictures": [{"text", "confidence", "words", "digest", "cached", "dpi"}, ...], ...}``.
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


def read_page(data: bytes, page: int, *, timeout: float, memory: int, dpi: int = DPI) -> PageOcr:
    """Page ``page`` (0-based) of the PDF ``data`` rendered and recognised in a child; a failure is
    returned with its code (``ocr_unavailable``, ``ocr_timeout``, ``ocr_memory``, ``ocr_render``...),
    never raised, so the caller reads the other pages."""
    try:
        msg, _ = _POOL.run({"page": int(page), "dpi": int(dpi), "timeout": float(timeout)}, data,
                           memory=int(memory), deadline=time.monotonic() + timeout)
    except ExtractionError as e:
        return PageOcr(page, code=e.code, message=str(e))
    try:
        return PageOcr(page, str(msg["text"]), float(msg["confidence"]), int(msg["words"]), str(msg["digest"]),
                       bool(msg.get("cached")), dict(msg["engine"]), str(msg["renderer"]), int(msg["dpi"]))
    except (KeyError, TypeError, ValueError):
        return PageOcr(page, code="ocr_crash", message="the OCR worker gave a malformed result")


def read_pictures(data: bytes, page: int, pictures: list[int], *, timeout: float, memory: int) -> list[PageOcr]:
    """The pictures ``pictures`` (ordinals of :func:`page_pictures`) of page ``page`` of the PDF
    ``data``, each recognised, in one child call; a failure is the code of every one, as for
    :func:`read_page`."""
    try:
        msg, _ = _POOL.run({"page": int(page), "pictures": [int(n) for n in pictures], "timeout": float(timeout)},
                           data, memory=int(memory), deadline=time.monotonic() + timeout)
    except ExtractionError as e:
        return [PageOcr(page, code=e.code, message=str(e)) for _ in pictures]
    try:
        return [PageOcr(page, str(m["text"]), float(m["confidence"]), int(m["words"]), str(m["digest"]),
                        bool(m.get("cached")), dict(msg["engine"]), str(msg["renderer"]), int(m["dpi"]))
                for m in msg["pictures"]]
    except (KeyError, TypeError, ValueError):
        return [PageOcr(page, code="ocr_crash", message="the OCR worker gave a malformed result") for _ in pictures]


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


#: a picture smaller than this (pixels) holds no line of legible words: a rule, a bullet, a spacer
MIN_PICTURE = (32, 8)
#: points: a picture drawn smaller than this on the page is not legible text either
MIN_DRAWN = (18.0, 5.0)


def page_pictures(page: Any) -> list[tuple[int, Any]]:
    """The image objects a pdfium page draws (inside forms too, 15 deep), as (ordinal, object),
    in the page's order, the ordinal counting every image object: the child finds the same ones.
    Walked with pdfium's own calls, wrapping only the pictures: a page Chromium prints holds
    thousands of text objects, and a Python object for each costs seconds on a long filing."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    out: list[tuple[int, Any]] = []

    def walk(form: Any, level: int) -> None:
        count, get, parent = ((raw.FPDFFormObj_CountObjects, raw.FPDFFormObj_GetObject, form.raw) if form is not None
                              else (raw.FPDFPage_CountObjects, raw.FPDFPage_GetObject, page.raw))
        for i in range(max(0, count(parent))):
            obj = get(parent, i)
            if not obj:
                continue
            kind = raw.FPDFPageObj_GetType(obj)
            if kind == raw.FPDF_PAGEOBJ_IMAGE:
                out.append((len(out), pdfium.PdfObject(obj, page=page, pdf=page.pdf, container=form, level=level)))
            elif kind == raw.FPDF_PAGEOBJ_FORM and level < 14:
                walk(pdfium.PdfObject(obj, page=page, pdf=page.pdf, container=form, level=level), level + 1)

    walk(None, 0)
    return out


def legible(obj: Any) -> tuple[int, int] | None:
    """The pixel size of an image object large enough to hold a line of words, else None."""
    try:
        w, h = obj.get_px_size()
    except Exception:  # an image pdfium cannot size is not drawn either
        return None
    if min(w, h) < MIN_PICTURE[1] or max(w, h) < MIN_PICTURE[0]:
        return None
    if obj.level == 0:  # drawn on the page itself: its bounds are the page's
        x0, y0, x1, y1 = obj.get_bounds()
        if min(x1 - x0, y1 - y0) < MIN_DRAWN[1] or max(x1 - x0, y1 - y0) < MIN_DRAWN[0]:
            return None
    return int(w), int(h)


def _picture(obj: Any) -> tuple[Any, int]:
    """One image object as the reader sees it (its mask applied, on white), grayscale, at its own
    resolution; and that resolution in dots per inch of the page (150 inside a form)."""
    from PIL import Image

    w, h = obj.get_px_size()
    if w * h > _MAX_PIXELS:
        raise Fail("ocr_render", f"a picture of {w}x{h} pixels is over {_MAX_PIXELS} pixels")
    image = obj.get_bitmap(render=True, scale_to_original=True).to_pil()
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        image = Image.alpha_composite(Image.new("RGBA", image.size, (255, 255, 255, 255)), image.convert("RGBA"))
    dpi = 150
    if obj.level == 0:
        x0, _, x1, _ = obj.get_bounds()
        if x1 - x0 > 0:
            dpi = max(50, min(1200, round(w / ((x1 - x0) / 72))))
    return image.convert("L"), dpi


def _pictures(data: bytes, page: int, wanted: list[int]) -> dict:
    import pypdfium2 as pdfium

    from auditor.extract import ocr

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        raise Fail("ocr_render", f"pdfium cannot open the PDF to render it ({e})") from e
    try:
        if not 0 <= page < len(doc):
            raise Fail("ocr_render", f"pdfium finds {len(doc)} pages, not page {page + 1}")
        objects = dict(page_pictures(doc[page]))
        out = []
        for n in wanted:
            if n not in objects:
                raise Fail("ocr_render", f"page {page + 1} has no picture {n}")
            image, dpi = _picture(objects[n])
            low, high = image.getextrema()
            if high - low < 32:  # one shade (a transparent picture on white, a flat box): no letter to read
                out.append({"text": "", "confidence": 0.0, "words": 0, "digest": "", "cached": False, "dpi": dpi})
                continue
            out.append({**ocr.recognise(image, dpi), "dpi": dpi})
        return {"pictures": out}
    finally:
        doc.close()


def handle(request: dict, data: bytes) -> tuple[dict, list[bytes]]:
    """The ``pdfocr`` job, in the child: one page rendered and recognised, or the pictures it
    draws (``"pictures"``)."""
    from auditor.extract import ocr

    try:
        info = ocr.engine()
    except ExtractionError as e:
        raise Fail(e.code, str(e)) from e
    if "pictures" in request:
        return {**_pictures(data, int(request["page"]), [int(n) for n in request["pictures"]]),
                "engine": info, "renderer": _renderer()}, []
    image, dpi = render(data, int(request["page"]), int(request.get("dpi", DPI)))
    out = ocr.recognise(image, dpi)
    return {**out, "engine": info, "renderer": _renderer(), "dpi": dpi}, []


def classify(e: BaseException) -> tuple[str, str]:
    if isinstance(e, Fail):
        return e.code, str(e)
    if sandbox.is_memory_error(e):
        return "ocr_memory", "the OCR worker ran out of memory"
    return "ocr_error", f"{type(e).__name__}: {str(e)[:500]}"
