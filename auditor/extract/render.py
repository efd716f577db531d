"""Rendered readings: a document as a real renderer lays it out, read back as text.

The readers of :mod:`auditor.extract` model what a renderer does. A hostile submitter looks for
what they do not model: declarative shadow DOM, table row groups drawn out of source order, CSS
transforms, fonts that draw other letters. So the gate also asks the renderer itself:

- HTML and SVG go to Chromium. It loads the bytes from a request it answers itself (every other
  request fails: no network, no local file), with scripts off and screen media emulated (a print
  style sheet cannot hide what a screen shows), and prints them to PDF.
- Formats whose reader reads an HTML page it makes of them (an email's body, Markdown,
  reStructuredText and notebooks rendered, a feed's items) go to Chromium as that page
  (:func:`html_view`): the reader's model of HTML is checked there as it is for an .html file.
  An MHTML archive (``.mht``, ``.mhtml``) is opened by Chromium itself, from a file, as a browser
  opens it: the reader's model of the archive (which part is the page, what its references
  draw) is checked too.
- An SVG file is drawn as ``image/svg+xml``, an XHTML file (``.xhtml``) as
  ``application/xhtml+xml``: a browser parses both as XML (entities, CDATA sections, style sheet
  processing instructions).
- Office documents (.docx, .doc, .odt, .rtf, flat ODF, WordML) go to LibreOffice, which converts
  them to PDF.
- A PDF is read by pdfium, another engine than the one that extracts it, from its own text layer
  (annotations and form fields flattened into the page first, as a viewer draws them).

Chromium's and LibreOffice's PDF is then read by :func:`visible_text`: pdfminer.six's layout
analysis puts the text in the order the page shows it, and a character drawn in the colour of
what lies beneath it (the page, or a filled box painted before it) is left out, as a reader does
not see it. That PDF is the renderer's, not the submitter's: its drawing is the renderer's own
simple model of the page (boxes, then glyphs), which is all this reading models. A renderer that
is not installed yields no reading, and the gate's report says which documents were not rendered.

That text is the renderer's character codes, not what it draws. Two things a reader sees are
not in it, so the renderer's PDF is also read by OCR (:func:`ocr_pages`, :func:`ocr_pictures`):
the glyphs of a font embedded in the document (they may draw other letters than its codes),
and pictures of text (an ``<img>`` of a scanned page).
"""

from __future__ import annotations

import base64
import codecs
import contextlib
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor.errors import ExtractionError, refusal
from auditor.extract.css import VIEW_H, VIEW_W

refusal("render_missing", "install the renderer named (Debian: apt install chromium libreoffice-writer-nogui; "
                          "pip install pypdfium2) and gate again")
refusal("render_timeout", "gate again on a less loaded machine; a document that never finishes drawing may be "
                          "hostile: open it with care")
refusal("render_failed", "open it in the program that made it to check it is not damaged, save a clean copy, "
                         "and gate that")

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
SOFFICE_NAMES = ("soffice", "libreoffice")
OFFICE_FORMATS = ("docx", "doc", "odt", "fodt", "rtf", "wordml", "msg")
HTML_FORMATS = ("html", "svg", "xhtml")
#: Formats a reader shows as an HTML page it makes of them: an email's body, an MHTML archive's
#: page, a Markdown, reStructuredText or notebook file rendered, a feed's items. Their readers read
#: that page as HTML, so Chromium draws the same page (:func:`html_view`) to check the reading.
HTML_VIEWS = ("email", "mhtml", "markdown", "rst", "notebook", "feed")
MAX_PDF_BYTES = 64 << 20
_MARGIN = 0.4  # inches
#: Chromium prints on a page whose printable width is the screen the HTML reader models
#: (:data:`auditor.extract.css.VIEW_W` CSS pixels, a desktop), as tall as a Letter page of that
#: width (a page no taller than the screen cut pictures of a page in two): media queries on the
#: width and ``<picture>`` sources then choose what a desktop screen shows. A Letter page (740 CSS
#: pixels wide) drew the narrow layout, and a picture a desktop shows from a
#: ``(min-width: 1000px)`` source was in no rendering.
_PAGE = {"paperWidth": VIEW_W / 96 + 2 * _MARGIN, "paperHeight": VIEW_W / 96 * 11 / 8.5 + 2 * _MARGIN,
         "marginTop": _MARGIN, "marginBottom": _MARGIN, "marginLeft": _MARGIN, "marginRight": _MARGIN}


@dataclass(frozen=True)
class Rendering:
    """What a renderer showed, as text, and which renderer and version drew it."""

    renderer: str
    version: str
    text: str
    #: the renderer's own PDF (Chromium's, LibreOffice's), for OCR of what it draws; None for pdfium
    pdf: bytes | None = field(default=None, repr=False, compare=False)


def renderer_for(fmt: str) -> str | None:
    """The renderer that draws documents of ``fmt``, whether installed or not."""
    if fmt in HTML_FORMATS or fmt in HTML_VIEWS:
        return "chromium"
    if fmt in OFFICE_FORMATS:
        return "libreoffice"
    if fmt == "pdf":
        return "pdfium"
    return None


def missing(renderer: str) -> str | None:
    """None when ``renderer`` can run here; else what to install, in words."""
    if renderer == "chromium":
        return None if _which(CHROMIUM_NAMES) else "Chromium is not installed (Debian: apt install chromium)"
    if renderer == "libreoffice":
        return None if _which(SOFFICE_NAMES) else ("LibreOffice is not installed (Debian: apt install "
                                                   "libreoffice-writer-nogui)")
    if renderer == "pdfium":
        try:
            import pypdfium2  # noqa: F401
        except ImportError:
            return "pypdfium2 is not installed (pip install pypdfium2)"
        return None
    return f"no renderer for {renderer}"


@dataclass(frozen=True)
class RenderInput:
    """One document to render: its format, bytes and file name, and the encoding the reader
    decoded it with (for a page that does not declare its own: :func:`_content_type`)."""

    format: str
    data: bytes
    name: str
    encoding: str | None = None


def html_view(fmt: str, data: bytes, name: str = "") -> bytes:
    """The HTML page a reader of ``fmt`` (one of :data:`HTML_VIEWS`) draws of ``data``, as the
    format's own reader builds it; the bytes themselves for HTML, SVG and XHTML."""
    if fmt in ("email", "mhtml"):
        from auditor.extract.mail import shown_html

        page = shown_html(data, name=name)
    elif fmt in ("markdown", "rst", "notebook"):
        from auditor.extract.rendered import shown_html as rendered_html

        page = rendered_html(fmt, data)
    elif fmt == "feed":
        from auditor.extract.xml import feed_html

        page = feed_html(data) or ""
    else:
        return data
    # preformatted lines wrap, as they do on a printed page: a reader scrolls a long line of code
    # to its end, which a page cut at its margin would not show
    wrap = "<style>pre{white-space:pre-wrap}</style>"
    return b"\xef\xbb\xbf" + (wrap + page).encode("utf-8", "surrogatepass")


def _archive(d: RenderInput) -> bool:
    """Whether Chromium opens the document itself as an MHTML archive (a ``.mht``/``.mhtml`` file):
    then it draws the archive as a browser does (its first part, what it refers to by
    Content-Location), not the page the reader made of it, so the reader's model of the archive
    is checked too."""
    from auditor.extract.mail import is_archive

    return d.format == "mhtml" and is_archive(d.name)


def embeds_fonts(fmt: str, data: bytes) -> bool:
    """Whether an office document carries fonts of its own (a .docx's ``word/fonts/``, an ODF
    ``Fonts/`` folder, an RTF ``\\fontemb``, a flat ODF's ``font-face-uri``).

    LibreOffice keeps a document's embedded fonts by family name for the rest of its run: a
    later document of the same run that names the family is drawn in the first one's font. So
    each such document is converted alone, in a LibreOffice of its own."""
    if data[:2] == b"PK":
        import io
        import zipfile

        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                names = [n.lower() for n in z.namelist()]
        except (zipfile.BadZipFile, OSError, ValueError):
            return False
        return any(n.endswith(_FONT_FILES) or "fonts/" in n for n in names)
    return any(mark in data for mark in (b"\\fontemb", b"font-face-uri", b"embedRegular", b"embeddedFont"))


_FONT_FILES = (".odttf", ".ttf", ".otf", ".ttc", ".fntdata", ".woff", ".woff2", ".eot")


def render(fmt: str, data: bytes, name: str, *, timeout: float = 60.0) -> Rendering:
    """The rendering of one document; raises ``ExtractionError`` when it cannot be had."""
    [r] = render_many([RenderInput(fmt, data, name)], timeout=timeout)
    if isinstance(r, ExtractionError):
        raise r
    return r


def render_many(docs: list[RenderInput], *, timeout: float = 60.0) -> list[Rendering | ExtractionError]:
    """The rendering of each document, or why there is none (``render_failed``,
    ``render_timeout``, ``render_missing``), in order. One browser draws every HTML document and
    one LibreOffice run every office document: starting either costs more than a page."""
    out: list[Rendering | ExtractionError | None] = [None] * len(docs)
    by: dict[str, list[int]] = {}
    for i, d in enumerate(docs):
        renderer = renderer_for(d.format)
        why = f"no renderer draws {d.format} documents" if renderer is None else missing(renderer)
        if why:
            out[i] = ExtractionError("render_missing", why)
        else:
            by.setdefault(str(renderer), []).append(i)
    for renderer, idx in sorted(by.items()):
        if renderer == "pdfium":
            for i in idx:
                try:
                    out[i] = Rendering("pdfium", _pdfium_version(), _pdfium_text(docs[i].data))
                except ExtractionError as e:
                    out[i] = e
            continue
        if renderer == "chromium":
            pages = []
            for i in idx:
                d = docs[i]
                try:
                    pages.append(RenderInput("html", html_view(d.format, d.data, d.name), d.name)
                                 if d.format in HTML_VIEWS and not _archive(d) else d)
                except ExtractionError as e:
                    out[i] = e
            idx = [i for i in idx if out[i] is None]
            pdfs, version = _chromium_pdfs(pages, timeout)
        else:  # a document with fonts of its own in a LibreOffice of its own (embeds_fonts)
            alone = [i for i in idx if embeds_fonts(docs[i].format, docs[i].data)]
            idx = [i for i in idx if i not in alone] + alone
            pdfs, version = _soffice_pdfs([docs[i] for i in idx if i not in alone], timeout) if len(alone) < len(idx) \
                else ([], "LibreOffice")
            for i in alone:
                one, version = _soffice_pdfs([docs[i]], timeout)
                pdfs += one
        for i, pdf in zip(idx, pdfs, strict=True):
            if isinstance(pdf, ExtractionError):
                out[i] = pdf
            elif len(pdf) > MAX_PDF_BYTES:
                out[i] = ExtractionError("render_failed", f"the rendering is {len(pdf)} bytes, over {MAX_PDF_BYTES}")
            else:
                try:
                    out[i] = Rendering(renderer, version, visible_text(pdf), pdf)
                except Exception as e:  # a renderer's PDF pdfminer cannot read: no reading, said so
                    out[i] = ExtractionError("render_failed", f"the {renderer} rendering cannot be read: {e}")
    assert all(r is not None for r in out)
    return [r for r in out if r is not None]


# -- the rendering's text --------------------------------------------------------------------

_WHITE = (1.0, 1.0, 1.0)
MIN_CONTRAST = 0.08  # largest RGB channel difference below which a glyph is the colour beneath it
MIN_SIZE = 1.0  # points: a glyph smaller than this is not read


def _rgb(colour: Any) -> tuple[float, float, float] | None:
    """A PDF fill colour as RGB (gray, RGB or CMYK); None for a pattern or what is not a colour."""
    if isinstance(colour, (int, float)):
        colour = (colour,)
    if not isinstance(colour, (tuple, list)) or not all(isinstance(c, (int, float)) for c in colour):
        return None
    c = [float(x) for x in colour]
    if len(c) == 1:
        return (c[0], c[0], c[0])
    if len(c) == 3:
        return (c[0], c[1], c[2])
    if len(c) == 4:
        k = c[3]
        return (1 - min(1.0, c[0] + k), 1 - min(1.0, c[1] + k), 1 - min(1.0, c[2] + k))
    return None


def _shown(glyph: tuple[float, float, float] | None, beneath: tuple[float, float, float]) -> bool:
    return glyph is None or max(abs(a - b) for a, b in zip(glyph, beneath, strict=True)) >= MIN_CONTRAST


BAND = 32.0  # points: filled shapes are found by the horizontal bands of the page they cross
COVER_SLACK = 0.5  # points a shape painted over a text object may fall short of its box and still cover it


def visible_text(pdf: bytes) -> str:
    """The text a reader sees on the pages of a renderer's PDF, in the order they show it.

    pdfium reads the pages (in C: a 10-K printed by Chromium is read in seconds). Its text page
    orders the glyphs as they are placed on the page. A text object is left out when it is under
    ``MIN_SIZE``, drawn in the colour of the last filled shape painted beneath it (found by the
    page's horizontal bands) or of the white page, covered whole by an opaque box painted after it
    (:func:`_cover`: a fill, or a stroke as wide as what it encloses), or drawn outside its clip.
    A word is left out when its glyphs leave no ink on the page pdfium draws
    (:func:`unseen_chars`).
    """
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    try:
        doc = pdfium.PdfDocument(pdf)
    except pdfium.PdfiumError as e:
        raise ExtractionError("render_failed", f"pdfium cannot open the rendering: {e}") from e
    c_r, c_g, c_b, c_a = (ctypes.c_uint() for _ in range(4))
    fl, fb, fr, ft = (ctypes.c_float() for _ in range(4))
    boxes = (ctypes.byref(fl), ctypes.byref(fb), ctypes.byref(fr), ctypes.byref(ft))
    pages = []
    opaque: dict[int, bool] = {}  # pictures drawn by pdfium: whether each is opaque
    try:
        for index in range(len(doc)):
            page = doc[index]
            order: dict[int, int] = {}
            texts: dict[int, Any] = {}
            bands: dict[int, list[tuple[int, tuple[float, float, float, float], tuple[float, float, float]]]] = {}
            over: dict[int, list[tuple[int, tuple[float, float, float, float], Any]]] = {}  # shapes, pictures that cover
            for n in range(raw.FPDFPage_CountObjects(page.raw)):
                obj = raw.FPDFPage_GetObject(page.raw, n)
                key = ctypes.cast(obj, ctypes.c_void_p).value or 0
                order[key] = n
                kind = raw.FPDFPageObj_GetType(obj)
                if kind == raw.FPDF_PAGEOBJ_TEXT:
                    texts[key] = obj
                if kind == raw.FPDF_PAGEOBJ_IMAGE and raw.FPDFPageObj_GetBounds(obj, *boxes):
                    picture = (fl.value, fb.value, fr.value, ft.value)
                    for band in range(int(picture[1] // BAND), int(picture[3] // BAND) + 1):
                        over.setdefault(band, []).append((n, picture, obj))  # a cover if opaque (_opaque_image)
                if kind != raw.FPDF_PAGEOBJ_PATH:
                    continue
                mode, stroke = ctypes.c_int(), ctypes.c_int()
                if not raw.FPDFPath_GetDrawMode(obj, ctypes.byref(mode), ctypes.byref(stroke)):
                    continue
                cover = _cover(raw, obj, bool(mode.value), bool(stroke.value))
                if cover is not None:
                    for band in range(int(cover[1] // BAND), int(cover[3] // BAND) + 1):
                        over.setdefault(band, []).append((n, cover[:4], cover[4]))
                if not mode.value:
                    continue  # not filled
                if not raw.FPDFPageObj_GetFillColor(obj, *(ctypes.byref(x) for x in (c_r, c_g, c_b, c_a))):
                    continue
                if c_a.value < 250 or not raw.FPDFPageObj_GetBounds(obj, *boxes):
                    continue  # a translucent shape does not hide what is under it
                if fr.value - fl.value < 2 or ft.value - fb.value < 2:
                    continue
                colour = (c_r.value / 255, c_g.value / 255, c_b.value / 255)
                box = (fl.value, fb.value, fr.value, ft.value)
                for band in range(int(fb.value // BAND), int(ft.value // BAND) + 1):
                    bands.setdefault(band, []).append((n, box, colour))
            for fills in bands.values():
                fills.sort(key=lambda f: -f[0])  # the last painted first
            # what is painted over a glyph, its size, alpha and clip decide here; whether its colour
            # stands out from what lies beneath it, the drawn page decides (unseen_chars): a fill whose
            # colour pdfium reports is not what a gradient or a picture beneath the glyph draws
            hidden = {key for key, n in order.items() if key in texts
                      and not _object_shown(raw, texts[key], n, bands, boxes, over,
                                            lambda o, page=page: _opaque_image(raw, doc, page, o, opaque), colour=False)}
            textpage = page.get_textpage()
            tp = textpage.raw
            unseen = unseen_chars(page, textpage) if texts else set()
            if not hidden and not unseen:  # the usual page: every glyph is seen, read in one call
                out = [textpage.get_text_bounded()]
            else:
                dropped = {i for i in range(raw.FPDFText_CountChars(tp))
                           if (ctypes.cast(raw.FPDFText_GetTextObject(tp, i), ctypes.c_void_p).value or 0) in hidden}
                out = [seen_text(textpage, unseen, dropped)]
            textpage.close()
            page.close()
            pages.append("".join(out))
    finally:
        doc.close()
    # pdfium gives U+0002 for a hyphen it takes for a break of a word at a line's end
    return "\f".join(pages).replace("\x02", "-")


#: dots per inch at which a page is drawn to see which glyphs change it (:func:`unseen_chars`)
SEEN_DPI = 100
#: largest difference of any colour channel (0-255) within a glyph's box that counts as one colour
SEEN_CONTRAST = 24
#: pixels added above and below a glyph's box, so that a glyph whose ink fills its box (a period,
#: an l) shows what lies around it too; not beside it, where the next glyph may stand close
SEEN_PAD = 1
#: share of a glyph's box width left out on each side: where the strokes of a glyph drawn close
#: beside it may reach
SEEN_TRIM = 0.15


def unseen_chars(page: Any, textpage: Any, dpi: int = SEEN_DPI) -> set[int]:
    """The characters of a page's text layer (pdfium's indexes) whose glyph does not change the
    page as pdfium draws it: the glyph's box (the bounds of its outline, ``SEEN_PAD`` pixels
    above and below it, ``SEEN_TRIM`` of its width less on each side) is one colour in the
    drawing, or the glyph has no outline at all.

    A glyph a reader sees draws strokes unlike what lies around them, so its box is not one
    colour. A glyph drawn in the colour of what lies beneath it (a picture, a gradient, the page),
    in a font whose glyphs draw nothing, clipped away by a clip of any shape, in optional content
    that is off, or covered by what is painted later, leaves its box as the drawing beneath it
    is. This is what the drawing decides, whatever construct decided it. A glyph over a busy
    picture (a photograph, a scan) or touching the strokes of another glyph is counted as seen:
    a miss, never a false alarm. Spaces, characters pdfium generates and text drawn invisible by
    its render mode (a scan's text layer, over the picture that shows it) are not judged.
    """
    import ctypes

    import numpy as np
    import pypdfium2.raw as raw

    scale = dpi / 72
    bitmap = page.render(scale=scale, may_draw_forms=True)
    try:
        pixels = np.asarray(bitmap.to_numpy())
    finally:
        bitmap.close()
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    height, width = pixels.shape[:2]
    pixels = pixels.astype(np.int16)
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    dx, dy = ctypes.c_int(), ctypes.c_int()
    tp = textpage.raw
    out: set[int] = set()

    def device(x: float, y: float) -> tuple[int, int]:
        raw.FPDF_PageToDevice(page.raw, 0, 0, width, height, 0, x, y, ctypes.byref(dx), ctypes.byref(dy))
        return dx.value, dy.value

    for i in range(raw.FPDFText_CountChars(tp)):
        code = raw.FPDFText_GetUnicode(tp, i)
        if code in (0, 0xFFFE, 0xFFFF) or chr(code).isspace() or raw.FPDFText_IsGenerated(tp, i) == 1:
            continue
        obj = raw.FPDFText_GetTextObject(tp, i)
        if obj and raw.FPDFTextObj_GetTextRenderMode(obj) == raw.FPDF_TEXTRENDERMODE_INVISIBLE:
            continue  # invisible by its mode: the reader's model judges it (over a scan, its text layer)
        if not raw.FPDFText_GetCharBox(tp, i, *(ctypes.byref(v) for v in (left, right, bottom, top))):
            continue
        if right.value - left.value <= 0 and top.value - bottom.value <= 0:
            out.add(i)  # a glyph without an outline: it draws nothing
            continue
        x0, y0 = device(left.value, top.value)
        x1, y1 = device(right.value, bottom.value)
        x0, x1 = sorted((x0, x1))
        y0, y1 = sorted((y0, y1))
        trim = int((x1 - x0) * SEEN_TRIM)
        x0, x1 = max(0, x0 + trim), min(width, x1 + 1 - trim)
        y0, y1 = max(0, y0 - SEEN_PAD), min(height, y1 + SEEN_PAD + 1)
        if x1 - x0 < 1 or y1 - y0 < 1:
            continue  # off the page: pdfium's bounded text leaves it out
        area = pixels[y0:y1, x0:x1]
        if int((area.max(axis=(0, 1)) - area.min(axis=(0, 1))).max()) < SEEN_CONTRAST:
            out.add(i)
    return out


def seen_text(textpage: Any, unseen: set[int], dropped: set[int] = frozenset()) -> str:  # type: ignore[assignment]
    """A page's text less what the drawing does not show: a word (the characters of one text
    object between two blanks) goes when most of its characters are ``unseen``
    (:func:`unseen_chars`: a glyph beside another can look seen where the other's strokes reach
    into its box, and a thin glyph alone can look unseen), and each character of ``dropped``
    goes (its object is hidden)."""
    import ctypes

    import pypdfium2.raw as raw

    tp = textpage.raw
    out: list[str] = []
    word: list[tuple[int, str]] = []
    owner = None

    def flush() -> None:
        if 2 * sum(1 for i, _ in word if i in unseen) <= len(word):
            out.extend(ch for i, ch in word if i not in dropped)
        word.clear()

    for i in range(raw.FPDFText_CountChars(tp)):
        ch = chr(raw.FPDFText_GetUnicode(tp, i))
        if ch.isspace() or raw.FPDFText_IsGenerated(tp, i) == 1:
            flush()
            out.append(ch)
            continue
        obj = ctypes.cast(raw.FPDFText_GetTextObject(tp, i), ctypes.c_void_p).value
        if obj != owner:
            flush()
            owner = obj
        word.append((i, ch))
    flush()
    return "".join(out)


def _object_shown(raw: Any, obj: Any, at: int, bands: dict[int, list[Any]], boxes: tuple[Any, ...],
                  over: dict[int, list[Any]] | None = None, opaque: Any = None, colour: bool = True) -> bool:
    """Whether the glyphs of one text object are seen: large enough, not fully transparent, and
    (``colour``) not the colour of the last filled shape painted beneath its centre (else of the
    page)."""
    import ctypes

    size = ctypes.c_float()
    if raw.FPDFTextObj_GetFontSize(obj, ctypes.byref(size)) and size.value < MIN_SIZE:
        return False
    if not raw.FPDFPageObj_GetBounds(obj, *boxes):
        return True
    x0, y0, x1, y1 = (b._obj.value for b in boxes)
    if x1 - x0 <= 0 or y1 - y0 <= 0:
        return False
    r, g, b, a = (ctypes.c_uint() for _ in range(4))
    glyph = None
    if raw.FPDFPageObj_GetFillColor(obj, ctypes.byref(r), ctypes.byref(g), ctypes.byref(b), ctypes.byref(a)):
        if a.value == 0:
            return False
        glyph = (r.value / 255, g.value / 255, b.value / 255)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    left = 1.0  # how much of the glyphs' contrast the paint over them leaves
    for n, (fx0, fy0, fx1, fy1), picture in (over or {}).get(int(cy // BAND), ()):
        if n > at and fx0 <= x0 + COVER_SLACK and fy0 <= y0 + COVER_SLACK and fx1 >= x1 - COVER_SLACK \
                and fy1 >= y1 - COVER_SLACK:
            if isinstance(picture, float):  # a shape painted over all of it later (an outline drawn inwards)
                left *= 1.0 - picture
            elif opaque is not None and opaque(picture):
                return False  # an opaque picture painted over all of it later
            if left < MIN_CONTRAST:
                return False  # what shows through is fainter than a glyph a reader sees
    clip = _clip_box(raw, obj)
    if clip is not None and not (clip[0] <= cx <= clip[2] and clip[1] <= cy <= clip[3]):
        return False  # drawn outside its clip: a table row of exact height cuts off what its cell holds beyond it
    if not colour:
        return True
    beneath = next((fill for n, (fx0, fy0, fx1, fy1), fill in bands.get(int(cy // BAND), ())
                    if n < at and fx0 <= cx <= fx1 and fy0 <= cy <= fy1), _WHITE)
    return _shown(glyph, beneath)


def _opaque_image(raw: Any, doc: Any, page: Any, obj: Any, seen: dict[int, bool]) -> bool:
    """Whether a picture on the page is opaque everywhere (its mask, if any, applied): what it is
    painted over is then hidden. Drawn by pdfium once per picture (``seen``), and only for a
    picture painted over text."""
    import ctypes

    key = ctypes.cast(obj, ctypes.c_void_p).value or 0
    if key not in seen:
        bitmap = raw.FPDFImageObj_GetRenderedBitmap(doc.raw, page.raw, obj)
        if not bitmap:
            seen[key] = False
        else:
            try:
                fmt, height = raw.FPDFBitmap_GetFormat(bitmap), raw.FPDFBitmap_GetHeight(bitmap)
                buf = ctypes.string_at(raw.FPDFBitmap_GetBuffer(bitmap), raw.FPDFBitmap_GetStride(bitmap) * height)
                seen[key] = fmt != raw.FPDFBitmap_BGRA or min(buf[3::4], default=255) >= 250
            finally:
                raw.FPDFBitmap_Destroy(bitmap)
    return seen[key]


def _cover(raw: Any, obj: Any, filled: bool, stroked: bool) -> tuple[float, float, float, float, float] | None:
    """The box a path covers whole (page space) and its opacity (0 to 1), or None: a filled path of straight
    lines along the axes, its corners rounded or not (a box), or a stroke of such a path as wide
    as what it encloses (an outline drawn inwards over its box, a thick rule): what is painted
    before it there is hidden."""
    import ctypes
    import itertools
    import math

    x, y = ctypes.c_float(), ctypes.c_float()
    m = raw.FS_MATRIX()
    if not raw.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)) or m.b or m.c:
        return None  # turned or skewed: not a box
    pts, kinds = [], []
    for k in range(raw.FPDFPath_CountSegments(obj)):
        seg = raw.FPDFPath_GetPathSegment(obj, k)
        if not seg or not raw.FPDFPathSegment_GetPoint(seg, ctypes.byref(x), ctypes.byref(y)):
            return None
        pts.append((m.a * x.value + m.e, m.d * y.value + m.f))
        kinds.append(raw.FPDFPathSegment_GetType(seg))
    # straight lines along the axes; curves (a box's rounded corners) lie within their control points
    if len(pts) < 2 or any(kind == raw.FPDF_SEGMENT_LINETO and a[0] != b[0] and a[1] != b[1]
                           for (a, b), kind in zip(itertools.pairwise(pts), kinds[1:], strict=True)):
        return None
    r, g, b_, a = (ctypes.c_uint() for _ in range(4))
    colour = raw.FPDFPageObj_GetFillColor if filled else raw.FPDFPageObj_GetStrokeColor
    if not (filled or stroked) or not colour(obj, *(ctypes.byref(v) for v in (r, g, b_, a))) \
            or a.value < (1 - MIN_CONTRAST) * 255:
        return None  # what it covers shows through it
    alpha = a.value / 255
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    if filled:
        return (x0, y0, x1, y1, alpha) if x1 - x0 >= 2 and y1 - y0 >= 2 else None
    width = ctypes.c_float()
    if not raw.FPDFPageObj_GetStrokeWidth(obj, ctypes.byref(width)):
        return None
    half = width.value * math.sqrt(abs(m.a * m.d)) / 2
    if min(x1 - x0, y1 - y0) > 2 * (half + COVER_SLACK):
        return None  # a frame: what it encloses is seen
    return (x0 - half, y0 - half, x1 + half, y1 + half, alpha)


def _clip_box(raw: Any, obj: Any) -> tuple[float, float, float, float] | None:
    """The box a page object's clip path leaves it (the meet of its paths' bounding boxes, in page
    space), or None when it has none. A renderer's PDF draws text a box cuts off (an overflowing
    table cell, a frame) and clips it: the glyphs stay in the text layer, a reader sees nothing."""
    import ctypes

    path = raw.FPDFPageObj_GetClipPath(obj)
    if not path:
        return None
    box = None
    x, y = ctypes.c_float(), ctypes.c_float()
    for p in range(raw.FPDFClipPath_CountPaths(path)):
        xs, ys = [], []
        for k in range(raw.FPDFClipPath_CountPathSegments(path, p)):
            seg = raw.FPDFClipPath_GetPathSegment(path, p, k)
            if seg and raw.FPDFPathSegment_GetPoint(seg, ctypes.byref(x), ctypes.byref(y)):
                xs.append(x.value)
                ys.append(y.value)
        if not xs:
            continue
        b = (min(xs), min(ys), max(xs), max(ys))
        box = b if box is None else (max(box[0], b[0]), max(box[1], b[1]), min(box[2], b[2]), min(box[3], b[3]))
    return box


# -- what the renderer draws, read by OCR ------------------------------------------------------

#: pages of one rendering read by OCR to vouch for the fonts a document embeds, at most
MAX_OCR_PAGES = 25
#: dots per inch of a rendered page read by OCR: a renderer's glyphs are sharp, unlike a scan's
OCR_DPI = 300
#: pictures of one rendering read by OCR, at most, and their pixels in all
MAX_PICTURES = 64
MAX_PICTURE_PIXELS = 120_000_000
#: pictures on one page beyond which the page is read whole
PAGE_PICTURES = 8
refusal("ocr_bound", "the gate reads only so many pages and pictures of a document by OCR: split the document and "
                     "gate its parts, or review it by hand and add its finding to the gate's baseline")


@dataclass
class Seen:
    """What OCR read of a rendering (``what``: its pages or its pictures): the text of each page
    or picture, in order, how many it read, which engine, in how long; or why it could not
    (``code``, ``message``: ``ocr_bound``, ``ocr_unavailable``, ``ocr_timeout``...)."""

    what: str
    texts: list[str] = field(default_factory=list)
    engine: str = ""
    seconds: float = 0.0
    cached: int = 0
    code: str | None = None
    message: str | None = None

    @property
    def text(self) -> str:
        return ("\f" if self.what == "pages" else "\n\n").join(self.texts)


def _engine(info: dict[str, Any]) -> str:
    return f"{info.get('engine', 'tesseract')} {info.get('version', '')}, {info.get('data', '')}, psm {info.get('psm', '')}"


def ocr_pages(pdf: bytes, *, limit: int = MAX_OCR_PAGES, timeout: float = 60.0, memory: int = 2 << 30,
              dpi: int = OCR_DPI) -> Seen:
    """Every page of a renderer's PDF drawn (pdfium, 300 dpi) and read by OCR: the letters its
    fonts draw, whatever their character codes say. More than ``limit`` pages is ``ocr_bound``."""
    import pypdfium2 as pdfium

    from auditor.extract.pdf.ocr import read_page

    start = time.monotonic()
    doc = pdfium.PdfDocument(pdf)
    try:
        n = len(doc)
    finally:
        doc.close()
    if n > limit:
        return Seen("pages", code="ocr_bound", message=f"the rendering has {n} pages: OCR reads {limit} at most")
    out = Seen("pages")
    for i in range(n):
        page = read_page(pdf, i, timeout=timeout, memory=memory, dpi=dpi)
        if page.code:
            return Seen("pages", code=page.code, message=f"page {i + 1}: {page.message}")
        out.texts.append(page.text)
        out.engine, out.cached = _engine(page.engine), out.cached + page.cached
    out.seconds = round(time.monotonic() - start, 2)
    return out


def ocr_pictures(pdf: bytes, *, timeout: float = 60.0, memory: int = 2 << 30) -> Seen:
    """The pictures a renderer's PDF draws, each large enough to hold a line of words
    (:func:`auditor.extract.pdf.ocr.legible`), read by OCR in page order; and the pages that draw
    words as vector outlines (:func:`outlined`), read whole.

    A page that draws more than ``PAGE_PICTURES`` of them is read whole instead (Chromium
    rasterises what a CSS filter touches, one picture per word): one page costs what a few
    pictures do. More than ``MAX_PICTURES`` pictures read one by one, ``MAX_PICTURE_PIXELS`` in
    all, or ``MAX_OCR_PAGES`` pages read whole, is ``ocr_bound``."""
    import pypdfium2 as pdfium

    from auditor.extract.pdf.ocr import legible, page_pictures, read_page, read_pictures

    start = time.monotonic()
    wanted: list[tuple[int, list[int]]] = []
    count = pixels = whole = 0
    doc = pdfium.PdfDocument(pdf)
    try:
        for i in range(len(doc)):
            page = doc[i]
            here, size = [], 0
            for n, obj in page_pictures(page):
                px = legible(obj)
                if px:
                    here.append(n)
                    size += px[0] * px[1]
            drawn = outlined(page)
            page.close()
            if len(here) > PAGE_PICTURES or drawn:
                whole += 1
                wanted.append((i, []))
            elif here:
                count, pixels = count + len(here), pixels + size
                wanted.append((i, here))
    finally:
        doc.close()
    if count > MAX_PICTURES or pixels > MAX_PICTURE_PIXELS or whole > MAX_OCR_PAGES:
        return Seen("pictures", code="ocr_bound", message=f"the rendering draws {count} pictures of {pixels} pixels "
                    f"and {whole} pages of more than {PAGE_PICTURES} pictures: OCR reads {MAX_PICTURES} pictures of "
                    f"{MAX_PICTURE_PIXELS} pixels and {MAX_OCR_PAGES} such pages at most")
    out = Seen("pictures")
    for i, numbers in wanted:
        got = read_pictures(pdf, i, numbers, timeout=timeout, memory=memory) if numbers else \
            [read_page(pdf, i, timeout=timeout, memory=memory)]
        for one in got:
            if one.code:
                return Seen("pictures", code=one.code, message=f"page {i + 1}: {one.message}")
            out.texts.append(one.text)
            out.engine, out.cached = _engine(one.engine), out.cached + one.cached
    out.seconds = round(time.monotonic() - start, 2)
    return out


#: a page whose glyph-sized outlines have at least this many segments, and more segments than the
#: page has characters of text, draws words as shapes (the PDF reader's rule, pdf/checks.py)
MIN_OUTLINE_SEGMENTS = 200
#: points: an outline no larger than this either way is glyph-sized (a letter of 60 pt is)
GLYPH_SIZE = 72.0


def outlined(page: Any) -> bool:
    """Whether a page of a renderer's PDF draws words as vector outlines: an SVG of a page whose
    text was "converted to outlines", an icon font drawn as paths. Such words are no text the
    renderer's reading holds, nor a picture; OCR reads them. Counted: the segments of each
    glyph-sized subpath of the page's paths (in forms too), against the page's characters."""
    import ctypes

    import pypdfium2.raw as raw

    x, y = ctypes.c_float(), ctypes.c_float()
    m = raw.FS_MATRIX()
    segments = 0

    def path(obj: Any) -> int:
        if not raw.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)):
            return 0
        sx, sy = max(abs(m.a), abs(m.b)), max(abs(m.c), abs(m.d))
        got, n, box = 0, 0, None
        for k in range(raw.FPDFPath_CountSegments(obj)):
            seg = raw.FPDFPath_GetPathSegment(obj, k)
            if not seg or not raw.FPDFPathSegment_GetPoint(seg, ctypes.byref(x), ctypes.byref(y)):
                continue
            if raw.FPDFPathSegment_GetType(seg) == raw.FPDF_SEGMENT_MOVETO:
                if box is not None and (box[2] - box[0]) * sx <= GLYPH_SIZE and (box[3] - box[1]) * sy <= GLYPH_SIZE:
                    got += n
                n, box = 0, [x.value, y.value, x.value, y.value]
                continue
            n += 1
            if box is None:
                box = [x.value, y.value, x.value, y.value]
            box = [min(box[0], x.value), min(box[1], y.value), max(box[2], x.value), max(box[3], y.value)]
        if box is not None and (box[2] - box[0]) * sx <= GLYPH_SIZE and (box[3] - box[1]) * sy <= GLYPH_SIZE:
            got += n
        return got

    def walk(parent: Any, form: bool, level: int) -> None:
        nonlocal segments
        count, get = (raw.FPDFFormObj_CountObjects, raw.FPDFFormObj_GetObject) if form else \
            (raw.FPDFPage_CountObjects, raw.FPDFPage_GetObject)
        for i in range(max(0, count(parent))):
            obj = get(parent, i)
            kind = raw.FPDFPageObj_GetType(obj) if obj else None
            if kind == raw.FPDF_PAGEOBJ_PATH:
                segments += path(obj)
            elif kind == raw.FPDF_PAGEOBJ_FORM and level < 14:
                walk(obj, True, level + 1)

    walk(page.raw, False, 0)
    if segments < MIN_OUTLINE_SEGMENTS:
        return False
    textpage = page.get_textpage()
    try:
        chars = raw.FPDFText_CountChars(textpage.raw)
    finally:
        textpage.close()
    return segments > chars


def _which(names: tuple[str, ...]) -> str | None:
    return next((p for p in (shutil.which(n) for n in names) if p), None)


# -- Chromium, over its DevTools pipe ---------------------------------------------------------

_CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-extensions", "--disable-default-apps", "--no-first-run", "--mute-audio",
    "--disable-features=Translate,MediaRouter", "--host-resolver-rules=MAP * ~NOTFOUND", "--remote-debugging-pipe",
)
DOCUMENT_URL = "https://render.invalid/document"


class _Pipe:
    """Chromium's ``--remote-debugging-pipe``: JSON messages, each ended by a NUL byte, written to
    its fd 3 and read from its fd 4."""

    def __init__(self, proc: subprocess.Popen[bytes], to_browser: int, from_browser: int, deadline: float) -> None:
        self.proc, self.out, self.inp, self.deadline = proc, to_browser, from_browser, deadline
        self.buf, self.next_id, self.events = b"", 0, []  # type: ignore[var-annotated]

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> int:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.out, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read(self) -> dict[str, Any]:
        while b"\0" not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise ExtractionError("render_timeout", "the renderer did not finish in time")
            ready, _, _ = select.select([self.inp], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(self.inp, 1 << 20)
            if not chunk:
                raise ExtractionError("render_failed", "the renderer stopped")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return dict(json.loads(raw))

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             on_event: Any = None) -> dict[str, Any]:
        wanted = self.send(method, params, session)
        while True:
            msg = self.read()
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise ExtractionError("render_failed", f"{method}: {msg['error'].get('message')}")
                return dict(msg.get("result") or {})
            if on_event is not None and "method" in msg:
                on_event(msg)
            elif "method" in msg:
                self.events.append(msg)

    def wait(self, event: str, on_event: Any) -> None:
        pending, self.events = self.events, []
        for msg in pending:
            if msg.get("method") == event:
                return
            on_event(msg)
        while True:
            msg = self.read()
            if msg.get("method") == event:
                return
            on_event(msg)


def _chromium_pdfs(docs: list[RenderInput], timeout: float) -> tuple[list[bytes | ExtractionError], str]:
    """Each document printed to PDF by one Chromium, ``timeout`` seconds each."""
    exe = _which(CHROMIUM_NAMES)
    assert exe is not None
    out: list[bytes | ExtractionError] = []
    version = "Chromium"
    with tempfile.TemporaryDirectory(prefix="auditor-render-") as profile, \
            tempfile.TemporaryDirectory(prefix="auditor-render-files-") as files:
        a_read, a_write = os.pipe()  # to the browser
        b_read, b_write = os.pipe()  # from the browser

        def fds() -> None:
            """In the child: the pipes at fds 3 and 4 (moved above 10 first: one may be 3 or 4)."""
            import fcntl

            r, w = fcntl.fcntl(a_read, fcntl.F_DUPFD, 10), fcntl.fcntl(b_write, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        proc = subprocess.Popen([exe, *_CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=fds, close_fds=False, start_new_session=True)
        os.close(a_read)
        os.close(b_write)
        pipe = _Pipe(proc, a_write, b_read, time.monotonic() + timeout)
        try:
            version = str(pipe.call("Browser.getVersion").get("product", "Chromium"))
            for d in docs:
                if out and isinstance(out[-1], ExtractionError) and out[-1].code == "render_timeout":
                    out.append(ExtractionError("render_failed", "not rendered: the renderer stopped on an earlier document"))
                    continue
                pipe.deadline = time.monotonic() + timeout
                try:
                    if _archive(d):  # Chromium opens an archive only from a file
                        path = Path(files) / f"archive-{len(out):04d}.mhtml"
                        path.write_bytes(d.data)
                        out.append(_print(pipe, d.data, "multipart/related", path))
                        path.unlink()
                    else:
                        out.append(_print(pipe, d.data, _content_type(d)))
                except ExtractionError as e:
                    out.append(e)
            with contextlib.suppress(ExtractionError, OSError):
                pipe.send("Browser.close")
        except ExtractionError as e:  # the browser itself failed: every document left says so
            out += [e] * (len(docs) - len(out))
        finally:
            for fd in (a_write, b_read):
                with contextlib.suppress(OSError):
                    os.close(fd)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, 9)
            proc.wait()
            _remove_singleton(Path(profile))
    return out, version


def _remove_singleton(profile: Path) -> None:
    """Remove the folder Chromium makes in the temporary folder for its singleton socket (the
    profile's ``SingletonSocket`` links to it). A gate renders on every run: one folder left
    per run would fill a CI runner's /tmp. The socket is not made in the profile itself: its path
    may be longer than a socket's path can be."""
    with contextlib.suppress(OSError):
        target = Path(os.readlink(profile / "SingletonSocket")).parent
        if target.name.startswith("org.chromium.Chromium."):
            shutil.rmtree(target, ignore_errors=True)


_DECLARED = re.compile(rb"charset|\A(?:\xef\xbb\xbf|\xff\xfe|\xfe\xff)", re.I)


def _content_type(d: RenderInput) -> str:
    """The Content-Type the page is served with. A page that declares no encoding of its own (no
    byte-order mark, no ``charset`` in the first 1,024 bytes a browser looks at) is decoded by
    whatever its server said, which a file does not keep: the renderer is told the encoding the
    reader chose, so that both sides read the same characters. A page that declares one is
    served without it, so a reader that decodes it otherwise than a browser is caught."""
    if d.format == "svg":
        return "image/svg+xml"
    if d.format == "html" and d.name.lower().endswith((".xhtml", ".xht")):
        return "application/xhtml+xml"  # a browser parses it as XML (extract/xml.py xhtml_as_html)
    if d.encoding and not _DECLARED.search(d.data[:1024]):
        try:
            label = codecs.lookup(d.encoding).name.replace("_", "-")
        except LookupError:
            return "text/html"
        return f"text/html; charset={label}"
    return "text/html"


def _print(pipe: _Pipe, data: bytes, mime: str, path: Path | None = None) -> bytes:
    """One document in a new tab: served from memory (or opened from ``path``, an MHTML archive),
    scripts off, screen media, printed."""
    target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    url = path.as_uri() if path is not None else DOCUMENT_URL

    def answer(msg: dict[str, Any]) -> None:
        """Serve the document; fail every other request (no network, no local file)."""
        if msg.get("method") != "Fetch.requestPaused" or msg.get("sessionId") != session:
            return
        p = msg["params"]
        if path is not None and p["request"]["url"] == url:
            pipe.send("Fetch.continueRequest", {"requestId": p["requestId"]}, session)
        elif path is None and p["request"]["url"] == DOCUMENT_URL:
            pipe.send("Fetch.fulfillRequest", {
                "requestId": p["requestId"], "responseCode": 200,
                "responseHeaders": [{"name": "Content-Type", "value": mime},
                                    {"name": "Content-Security-Policy", "value": "script-src 'none'"}],
                "body": base64.b64encode(data).decode()}, session)
        else:
            pipe.send("Fetch.failRequest", {"requestId": p["requestId"], "errorReason": "BlockedByClient"}, session)

    try:
        pipe.call("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}, session)
        pipe.call("Page.enable", {}, session)
        pipe.call("Emulation.setScriptExecutionDisabled", {"value": True}, session)
        pipe.call("Emulation.setEmulatedMedia", {"media": "screen"}, session)
        # the window the page loads in is the desktop screen the HTML reader models: a <picture>
        # chooses its source, and srcset its candidate, as the page loads, not as it prints
        pipe.call("Emulation.setDeviceMetricsOverride", {"width": int(VIEW_W), "height": int(VIEW_H),
                                                          "deviceScaleFactor": 1, "mobile": False}, session)
        pipe.call("Page.navigate", {"url": url}, session, on_event=answer)
        pipe.wait("Page.loadEventFired", answer)
        _hide_noscript(pipe, session, answer)
        _clip_alts(pipe, session, answer)
        pdf = pipe.call("Page.printToPDF", {**_PAGE, "printBackground": True, "displayHeaderFooter": False},
                        session, on_event=answer)["data"]
        return base64.b64decode(pdf)
    finally:
        with contextlib.suppress(ExtractionError, OSError):
            pipe.call("Target.closeTarget", {"targetId": target}, on_event=answer)


MAX_ALTS = 2_000  # sized images whose alt is checked, per page


def _clip_alts(pipe: _Pipe, session: str, answer: Any) -> None:
    """Blank the alt of each broken image whose box cannot show it (``css.alt_fits``): Chromium
    draws a letter or two of it, which the reader leaves out. The HTML reader decides the same
    from the size it computes; where the two sizes differ, the readings disagree and the page
    fails closed. Only images drawn in the box their width and height attributes give are looked
    at: in a page with a doctype, Chromium draws an image's alt as text, in a box of its own size."""
    from auditor.extract.css import alt_fits

    root = pipe.call("DOM.getDocument", {"depth": 0}, session, on_event=answer)["root"]["nodeId"]
    ids = pipe.call("DOM.querySelectorAll", {"nodeId": root, "selector": "img[alt][width][height]"}, session,
                    on_event=answer)["nodeIds"]
    for n in ids[:MAX_ALTS]:
        flat = pipe.call("DOM.getAttributes", {"nodeId": n}, session, on_event=answer)["attributes"]
        attrs = {k.lower(): v for k, v in zip(flat[::2], flat[1::2], strict=True)}
        alt, src = attrs.get("alt", "").strip(), attrs.get("src", "").strip()
        if not alt or src[:5].lower() == "data:":
            continue
        try:
            width, height = float(attrs["width"].removesuffix("px")), float(attrs["height"].removesuffix("px"))
            model = pipe.call("DOM.getBoxModel", {"nodeId": n}, session, on_event=answer)["model"]
        except (ValueError, ExtractionError):
            continue  # a size that is not in pixels, or not drawn
        quad = model["content"]
        if abs(quad[2] - quad[0] - width) > 1 or abs(quad[5] - quad[3] - height) > 1:
            continue  # not drawn in the box its attributes give: its alt is drawn as text
        style = pipe.call("CSS.getComputedStyleForNode", {"nodeId": n}, session, on_event=answer)["computedStyle"]
        size = next((p["value"] for p in style if p["name"] == "font-size"), "16px")
        try:
            font = float(size.removesuffix("px"))
        except ValueError:
            font = 16.0
        if not alt_fits(alt, width, height, font):
            pipe.call("DOM.setAttributeValue", {"nodeId": n, "name": "alt", "value": ""}, session, on_event=answer)


def _hide_noscript(pipe: _Pipe, session: str, answer: Any) -> None:
    """Hide ``noscript`` as a browser that runs scripts does. Scripts are off here so that no
    script draws the page; with them off, Chromium shows ``noscript`` content, which a reader's
    browser (scripts on) does not, and the HTML reader does not read as shown."""
    frame = pipe.call("Page.getFrameTree", {}, session, on_event=answer)["frameTree"]["frame"]["id"]
    pipe.call("DOM.enable", {}, session, on_event=answer)
    pipe.call("CSS.enable", {}, session, on_event=answer)
    try:
        sheet = pipe.call("CSS.createStyleSheet", {"frameId": frame}, session, on_event=answer)["styleSheetId"]
    except ExtractionError:
        return  # a page parsed as XML (XHTML) takes no sheet here; there noscript is an ordinary element
    pipe.call("CSS.setStyleSheetText", {"styleSheetId": sheet, "text": "noscript { display: none !important }"},
              session, on_event=answer)


# -- LibreOffice ------------------------------------------------------------------------------

def _soffice_pdfs(docs: list[RenderInput], timeout: float) -> tuple[list[bytes | ExtractionError], str]:
    """Each document converted to PDF by one LibreOffice run (``timeout`` seconds each)."""
    exe = _which(SOFFICE_NAMES)
    assert exe is not None
    with tempfile.TemporaryDirectory(prefix="auditor-render-") as tmp:
        srcs = []
        for i, d in enumerate(docs):
            src = Path(tmp) / "in" / f"document-{i:04d}{Path(d.name).suffix.lower() or '.docx'}"
            src.parent.mkdir(exist_ok=True)
            src.write_bytes(d.data)
            srcs.append(src)
        cmd = [exe, "--headless", "--norestore", "--nolockcheck", f"-env:UserInstallation=file://{tmp}/profile",
               "--convert-to", "pdf", "--outdir", str(Path(tmp) / "out"), *map(str, srcs)]
        stderr = ""
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=timeout * len(docs), start_new_session=True)
            stderr = proc.stderr.decode("utf-8", "replace")[-300:].strip()
        except subprocess.TimeoutExpired:
            stderr = f"LibreOffice did not convert them in {timeout * len(docs):g} s"
        out: list[bytes | ExtractionError] = []
        for src in srcs:
            pdf = Path(tmp) / "out" / (src.stem + ".pdf")
            out.append(pdf.read_bytes() if pdf.is_file() else
                       ExtractionError("render_failed", f"LibreOffice could not convert it{': ' + stderr if stderr else ''}"))
        try:
            version = subprocess.run([exe, "--version"], capture_output=True, timeout=30).stdout.decode().strip()
        except subprocess.TimeoutExpired:
            version = ""
        return out, version or "LibreOffice"


# -- pdfium ------------------------------------------------------------------------------------

def _pdfium_text(data: bytes) -> str:
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        raise ExtractionError("render_failed", f"pdfium cannot open it: {e}") from e
    import pypdfium2.raw as pdfium_c

    pages = []
    try:
        for i in range(len(doc)):
            # annotations flattened into the page, as a viewer draws them: a FreeText note's
            # text is then on the page, not only in an annotation (the raw call: pypdfium2's
            # own wants a form environment, which a PDF without forms does not get)
            page = doc[i]
            flat = pdfium_c.FPDFPage_Flatten(page.raw, pdfium_c.FLAT_NORMALDISPLAY)
            if flat == pdfium_c.FLATTEN_SUCCESS:
                page.close()  # flattening invalidates the page's handles: load it again
                page = doc[i]
            text = page.get_textpage()
            unseen = unseen_chars(page, text)
            if not unseen:
                pages.append(text.get_text_bounded())
            else:  # what the page shows: the words whose glyphs change the drawing
                pages.append(seen_text(text, unseen).replace("\x02", "-"))
            text.close()
            page.close()
    finally:
        doc.close()
    return "\f".join(pages)


def _pdfium_version() -> str:
    import pypdfium2

    return f"pdfium {getattr(pypdfium2, 'PDFIUM_INFO', getattr(pypdfium2, 'V_PDFIUM', ''))}".strip()
