"""PDF text extraction in disposable child processes (the ``pdf`` job of :mod:`auditor.sandbox.pool`).

pdfminer.six can loop forever, exhaust memory or recurse without bound on hostile or merely
broken PDFs, and has no timeout of its own. So the parent never parses a PDF: each one goes to
a ``python -m auditor.sandbox pdf`` child with an address-space limit, which is killed when the
wall-clock deadline passes (see :mod:`auditor.sandbox.pool` for the protocol, reuse of idle children
and how they die with their parent).

A reference cycle (``3 0 obj 4 0 R endobj`` and ``4 0 obj 3 0 R endobj``, a few hundred bytes)
makes pdfminer.six's ``resolve1`` spin forever, so every such PDF would cost the whole time
limit. The child follows chains of indirect references itself and fails the PDF
(``pdf_error``) as soon as a chain comes back to an object it already passed.

What a viewer shows is read, not every glyph: text drawn invisible (render mode 3 or 7) except
over an image (a scan's OCR layer, the reading of that image), white text on no darker
background, text under 2 pt or squeezed under 20% of its width, text outside the clip path or
the crop box, text covered by an opaque shape drawn after it. Those glyphs are kept in
``all_pages`` (pdfminer's reading of every glyph, as before). Annotations' appearance streams
(form fields, FreeText, stamps) are drawn on the page as a viewer draws them, and the strings of
every annotation (``/Contents``, a field's ``/V``) are returned apart. Per page, the child also
measures what the text layer cannot be trusted for (``signals``): glyphs drawn out of their
visual order, how much of the page images cover and how much text lies over them, glyphs drawn
as vector outlines; and it samples the words of each font (``fonts``).

The answer for one PDF::

    {"ok": true, "pages": [str, ...], "all_pages": [str | null, ...], "annotations": [str, ...],
     "signals": [{...}, ...], "fonts": {"name": [word, ...]}, "font_maps": [[name, n, differ]],
     "version": "20260107",
     "warnings": [...], "retire": false}
    {"ok": false, "code": "pdf_encrypted", "message": "..."}
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from typing import Any

from auditor.errors import ExtractionError, refusal
from auditor.sandbox import pool as sandbox
from auditor.sandbox.pool import MEMORY_EXIT, Fail
from auditor.text import dates

__all__ = ["MEMORY_EXIT", "PdfResult", "run", "shutdown"]

_REPAIR = ("the PDF is damaged: repair it (qpdf damaged.pdf repaired.pdf) or print it to a new PDF from a "
           "viewer, and ingest that")
refusal("pdf_error", _REPAIR)
refusal("pdf_crash", _REPAIR)
refusal("pdf_encrypted", "decrypt it with its password (qpdf --decrypt --password=... in.pdf out.pdf) and "
                         "ingest the copy")
refusal("pdf_memory", "raise --pdf-memory-mb (the memory of the PDF reader), or ingest a smaller copy")
refusal("pdf_timeout", "raise --pdf-timeout (seconds per PDF), or ingest it alone on a less loaded machine")
refusal("pdf_cancelled", "run the same command again: it resumes where it stopped")
refusal("too_many_pages", "split it (qpdf in.pdf --split-pages=1000 part.pdf) and ingest the parts")

_MAX_WARNINGS = 20
_MAX_CHAIN = 10_000


@dataclass
class PdfResult:
    pages: list[str]
    version: str
    warnings: list[str] = field(default_factory=list)
    #: per page, every glyph's text when some were hidden from a viewer (else None)
    all_pages: list[str | None] = field(default_factory=list)
    #: per page, the strings of its annotations (shown or not)
    annotations: list[str] = field(default_factory=list)
    #: per page, measures of how far the text layer reads what the page shows
    signals: list[dict] = field(default_factory=list)
    #: font name -> a sample of the words drawn in it (lower-case)
    fonts: dict[str, list[str]] = field(default_factory=dict)
    #: [font name, letters its encoding names, of which its ToUnicode map says otherwise]
    font_maps: list[list] = field(default_factory=list)
    dates: dict[str, str] = field(default_factory=dict)  # /ModDate, /CreationDate, XMP, as found
    #: per page, its visible lines read row by row, left to right, when that reads otherwise
    row_pages: list[str | None] = field(default_factory=list)


class _Worker(sandbox.Worker):
    """One PDF child."""

    job = "pdf"
    prefix = "pdf_"
    what = "PDF"
    retire_after = 200

    def extract(self, data: bytes, request: dict, deadline: float) -> PdfResult:
        msg, _ = self.call(request, data, deadline)
        try:
            return _result(msg)
        except ExtractionError:
            self.close()
            raise


def _result(msg: dict) -> PdfResult:
    """A child's answer as a ``PdfResult``; ``pdf_crash`` when it is not one."""
    pages = msg.get("pages")
    if not isinstance(pages, list) or not all(isinstance(p, str) for p in pages):
        raise ExtractionError("pdf_crash", "PDF worker gave a malformed result")
    n = len(pages)
    all_pages = msg.get("all_pages") or [None] * n
    annotations = msg.get("annotations") or [""] * n
    signals = msg.get("signals") or [{} for _ in range(n)]
    fonts = msg.get("fonts") or {}
    row_pages = msg.get("row_pages") or [None] * n
    if not (len(all_pages) == len(annotations) == len(signals) == len(row_pages) == n and isinstance(fonts, dict)
            and all(p is None or isinstance(p, str) for p in all_pages + row_pages)
            and all(isinstance(a, str) for a in annotations) and all(isinstance(x, dict) for x in signals)):
        raise ExtractionError("pdf_crash", "PDF worker gave a malformed result")
    maps = [[str(m[0]), int(m[1]), int(m[2])] for m in msg.get("font_maps") or []
            if isinstance(m, list) and len(m) == 3]
    found = msg.get("dates")
    return PdfResult(pages, str(msg.get("version", "")), [str(w) for w in msg.get("warnings", [])],
                     all_pages, annotations, signals,
                     {str(k): [str(w) for w in v] for k, v in fonts.items() if isinstance(v, list)}, maps,
                     {str(k)[:64]: str(v)[:200] for k, v in found.items()} if isinstance(found, dict) else {},
                     row_pages)


_POOL = sandbox.register(sandbox.Pool(_Worker))


def run(data: bytes, *, timeout: float, memory: int, max_pages: int, max_chars: int) -> PdfResult:
    """Extract the text of each page of ``data`` in a child process. Thread-safe.

    Raises ExtractionError with code ``pdf_timeout``, ``pdf_memory``, ``pdf_encrypted``,
    ``pdf_error``, ``pdf_crash``, ``too_many_pages`` or ``text_too_long``.
    """
    request = {"max_pages": int(max_pages), "max_chars": int(max_chars), "timeout": float(timeout)}
    # the pool retries a reused child that ran out of memory in a fresh one, within this deadline
    msg, _ = _POOL.run(request, data, memory=int(memory), deadline=time.monotonic() + timeout)
    return _result(msg)


def shutdown() -> None:
    """Stop every idle PDF child of this process (they also exit when the parent does)."""
    _POOL.clear()


# -- child side ------------------------------------------------------------------------------


def _page_count(doc: object) -> int | None:
    from pdfminer.pdftypes import resolve1

    try:
        count = resolve1(resolve1(doc.catalog["Pages"])["Count"])  # type: ignore[attr-defined]
    except Exception:
        return None
    return count if isinstance(count, int) else None


def _guard_reference_cycles() -> None:
    """Make ``PDFObjRef.resolve`` follow a whole chain of references, failing on a cycle.

    pdfminer.six resolves with ``while isinstance(x, PDFObjRef): x = x.resolve()``, which never
    ends when the chain loops. Returning the end of the chain keeps that loop's result and ends
    it after one step; a chain that revisits an object raises instead.
    """
    from pdfminer.pdftypes import PDFObjRef

    if getattr(PDFObjRef.resolve, "_auditor_guarded", False):
        return
    one_step = PDFObjRef.resolve

    def resolve(self: PDFObjRef, default: object = None) -> object:
        seen = {self.objid}
        x = one_step(self, default)
        while isinstance(x, PDFObjRef):
            if x.objid in seen or len(seen) > _MAX_CHAIN:
                raise Fail("pdf_error", "PDF has a cycle of indirect references (object "
                           f"{x.objid} is reached again from object {self.objid})")
            seen.add(x.objid)
            x = one_step(x, default)
        return x

    resolve._auditor_guarded = True  # type: ignore[attr-defined]
    PDFObjRef.resolve = resolve  # type: ignore[method-assign]


def _widths_by_encoding() -> None:
    """Make a glyph of a standard font as wide as the font draws it, whatever its ToUnicode map says.

    pdfminer.six keys the widths of the 14 standard fonts by character and finds a glyph's
    character through the ToUnicode map first: a map that names other characters (Cyrillic
    look-alikes for Latin letters) leaves those glyphs without a width, so every glyph after
    one is laid out where a viewer does not draw it and lines fall apart into fragments. The
    width is the glyph's, so it is also looked up by the character the font's own encoding names.
    """
    from pdfminer.pdffont import PDFSimpleFont

    if getattr(PDFSimpleFont.char_width, "_auditor_guarded", False):
        return
    by_unicode_map = PDFSimpleFont.char_width

    def char_width(self: PDFSimpleFont, cid: int) -> float:
        width = by_unicode_map(self, cid)
        if width == self.default_width * self.hscale and self.unicode_map is not None:
            own = self.widths.get(self.cid2unicode.get(cid, ""))
            if isinstance(own, (int, float)) and own > 0:
                return float(own) * self.hscale
        return width

    char_width._auditor_guarded = True  # type: ignore[attr-defined]
    PDFSimpleFont.char_width = char_width  # type: ignore[method-assign,assignment]


# What a viewer does not show, and the measures of a page (see the module docstring).
_INVISIBLE_MODES = (3, 7)
_MIN_SIZE = 2.0  # points, in device space
_MIN_WIDTH_RATIO = 0.2  # horizontal over vertical scale of a glyph
_WHITE = 0.95
_SAME_COLOUR = 0.06  # a glyph within this of the colour under it in every channel is not seen
_MIN_ALPHA = 0.05  # a glyph painted with less opacity is not seen
_MAX_FONT_WORDS = 400
_HIDDEN_FLAGS = 2 | 32  # annotation flags Hidden and NoView
_RTL = ("R", "AL")
_WORDS = re.compile(r"[^\W\d_]{2,}")


_WHITE_CACHE: dict[tuple, bool] = {}


def _is_white(color: object, space: object) -> bool:
    """Whether a fill colour is white or nearly (gray 1, RGB all 1, CMYK all 0)."""
    if color == 0:
        return False  # the initial black, by far the most common
    try:
        key = (tuple(color) if isinstance(color, list) else color, getattr(space, "ncomponents", 0))
        hit = _WHITE_CACHE.get(key)
    except TypeError:
        key, hit = None, None
    if hit is None:
        hit = _white_value(color, space)
        if key is not None and len(_WHITE_CACHE) < 4096:
            _WHITE_CACHE[key] = hit
    return hit


def _white_value(color: object, space: object) -> bool:
    try:
        values = [float(v) for v in color] if isinstance(color, (list, tuple)) else [float(color)]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    ncomp = getattr(space, "ncomponents", len(values))
    if len(values) == 4 or ncomp == 4:
        return all(v <= 1 - _WHITE for v in values)
    return bool(values) and all(v >= _WHITE for v in values)


_GRAY, _RGB = ("DeviceGray", "CalGray"), ("DeviceRGB", "CalRGB")


def _rgb(color: object, space: object) -> tuple[float, float, float] | None:
    """A colour of a device, calibrated or ICC-based space as RGB; None for other spaces
    (indexed, separation, patterns), whose colours are not compared."""
    try:
        values = [float(v) for v in color] if isinstance(color, (list, tuple)) else [float(color)]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    name = getattr(space, "name", "")
    n = getattr(space, "ncomponents", 0)
    if len(values) != n or (name not in (*_GRAY, *_RGB, "DeviceCMYK", "ICCBased")):
        return None
    if n == 1:
        return (values[0],) * 3  # type: ignore[return-value]
    if n == 3:
        return values[0], values[1], values[2]
    if n == 4:
        c, m, y, k = values
        return (1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)
    return None


def _same_colour(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    return all(abs(x - y) < _SAME_COLOUR for x, y in zip(a, b, strict=True))


_NOWHERE = (float("inf"), float("inf"), float("-inf"), float("-inf"))


def _inside(x: float, y: float, box: tuple[float, float, float, float] | None) -> bool:
    return box is None or (box[0] <= x <= box[2] and box[1] <= y <= box[3])


def _meet(a: tuple | None, b: tuple | None) -> tuple | None:
    if a is None:
        return b
    if b is None:
        return a
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


_Shape = tuple[float, float, float, float, int, int, "tuple[float, float, float] | None"]


class _Grid:
    """Filled shapes (x0, y0, x1, y1, seq, dark, rgb) bucketed by height on the page, to find
    those drawn under or over a glyph without comparing every glyph with every shape."""

    STEP = 24.0

    def __init__(self, shapes: list[_Shape]) -> None:
        self.bins: dict[int, list[_Shape]] = {}
        for s in shapes:
            lo, hi = int(s[1] // self.STEP), int(s[3] // self.STEP)
            for k in range(lo, min(hi, lo + 400) + 1):
                self.bins.setdefault(k, []).append(s)

    def holds(self, ch, seq: int, *, before: bool, centre: bool) -> bool:  # type: ignore[no-untyped-def]
        """Whether a shape drawn before (or after) the glyph holds its centre (or covers it:
        its width and the middle of its height, so a strike-through line does not)."""
        if not self.bins:
            return False
        cx, cy = (ch.x0 + ch.x1) / 2, (ch.y0 + ch.y1) / 2
        band = 0.3 * (ch.y1 - ch.y0)
        for x0, y0, x1, y1, s, _, _ in self.bins.get(int(cy // self.STEP), ()):
            if (s < seq) if before else (s > seq):
                if centre:
                    if x0 <= cx <= x1 and y0 <= cy <= y1:
                        return True
                elif x0 <= ch.x0 + 0.5 and ch.x1 - 0.5 <= x1 and y0 <= cy - band and cy + band <= y1:
                    return True
        return False

    def under(self, ch, seq: int) -> tuple[float, float, float] | None:  # type: ignore[no-untyped-def]
        """The colour of the last shape drawn before the glyph under its centre (None: none, or
        a colour that is not compared)."""
        cx, cy = (ch.x0 + ch.x1) / 2, (ch.y0 + ch.y1) / 2
        best, rgb = -1, None
        for x0, y0, x1, y1, s, _, colour in self.bins.get(int(cy // self.STEP), ()):
            if best < s < seq and x0 <= cx <= x1 and y0 <= cy <= y1:
                best, rgb = s, colour
        return rgb


def _classes() -> tuple[Any, Any]:
    """The device and interpreter, built on pdfminer's classes (imported only in the child)."""
    from pdfminer.converter import PDFLayoutAnalyzer
    from pdfminer.layout import LTChar, LTContainer
    from pdfminer.pdfinterp import PDFPageInterpreter
    from pdfminer.pdftypes import dict_value, resolve1, stream_value
    from pdfminer.psparser import literal_name
    from pdfminer.utils import apply_matrix_pt, apply_matrix_rect, mult_matrix

    analyzer: Any = PDFLayoutAnalyzer  # pdfminer's classes, extended with attributes of our own
    interpreter: Any = PDFPageInterpreter

    class Device(analyzer):
        """Collects glyphs with what decides whether a viewer shows them, and the images and
        filled shapes drawn around them; the page is laid out once the interpreter is done."""

        def begin_page(self, page, ctm) -> None:  # type: ignore[no-untyped-def]
            super().begin_page(page, ctm)
            self.page_ctm = ctm
            self.clip = apply_matrix_rect(ctm, page.cropbox) if page.cropbox else None
            self.opaque = True
            self.fill_alpha = self.stroke_alpha = 1.0
            self.mode = 0
            self.seq = 0
            self.shapes: list[_Shape] = []  # bbox, seq, dark, colour
            self.images: list[tuple[float, float, float, float]] = []
            self.image_seq: list[int] = []
            self.glyph_curves = 0
            self.extra: list[str] = []  # annotation text a viewer shows without an appearance stream
            self.notes: list[str] = []  # every annotation's strings
            if not hasattr(self, "hidden_layers"):
                self.hidden_layers: frozenset[int] = frozenset()
            if not hasattr(self, "font_maps"):
                # id(font) -> [name, comparable, codes seen, letters compared, letters that differ]
                self.font_maps: dict[int, list] = {}
            if not hasattr(self, "font_words"):
                self.font_words: dict[str, list[str]] = {}  # font name -> words, for the font-map check

        def render_string(self, textstate, seq, ncs, graphicstate) -> None:  # type: ignore[no-untyped-def]
            self.mode = textstate.render
            super().render_string(textstate, seq, ncs, graphicstate)

        def render_char(self, matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate) -> float:  # type: ignore[no-untyped-def]
            adv = super().render_char(matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate)
            item = self.cur_item._objs[-1]
            stats = self.font_maps.get(id(font))
            if stats is None:
                stats = self.font_maps[id(font)] = [str(font.fontname), _comparable(font), set(), 0, 0]
            if stats[1] and cid not in stats[2] and len(stats[2]) < 256:
                stats[2].add(cid)
                said = font.cid2unicode.get(cid)
                if said and said.isalpha():
                    stats[3] += 1
                    if item.get_text() != said:
                        stats[4] += 1
            a, b, c, d = matrix[:4]
            if b == 0 and c == 0:
                squeezed = abs(a * scaling) < _MIN_WIDTH_RATIO * abs(d)
            else:
                squeezed = (a * a + b * b) ** 0.5 * abs(scaling) < _MIN_WIDTH_RATIO * (c * c + d * d) ** 0.5
            if self.mode in (1, 5):
                white = _is_white(graphicstate.scolor, graphicstate.scs)
                rgb, alpha = _rgb(graphicstate.scolor, graphicstate.scs), self.stroke_alpha
            else:
                white = _is_white(graphicstate.ncolor, graphicstate.ncs)
                rgb, alpha = _rgb(graphicstate.ncolor, graphicstate.ncs), self.fill_alpha
            mode = 3 if alpha < _MIN_ALPHA and self.mode not in _INVISIBLE_MODES else self.mode  # transparent: not drawn
            item.auditor = (mode, self.clip, self.seq, squeezed, white, rgb)
            self.seq += 1
            return adv

        def paint_path(self, gstate, stroke, fill, evenodd, path) -> None:  # type: ignore[no-untyped-def]
            if not fill or not path:
                return
            pts = [apply_matrix_pt(self.ctm, (float(p[-2]), float(p[-1]))) for p in path
                   if len(p) >= 3 and all(isinstance(v, (int, float)) for v in p[-2:])]
            if not pts:
                return
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            box = (min(xs), min(ys), max(xs), max(ys))
            if any(str(p[0]) in "cvy" for p in path) and box[2] - box[0] < 60 and box[3] - box[1] < 60:
                self.glyph_curves += 1
            if self.opaque and (box[2] - box[0]) * (box[3] - box[1]) >= 4:
                self.shapes.append((*box, self.seq, int(not _is_white(gstate.ncolor, gstate.ncs)),
                                    _rgb(gstate.ncolor, gstate.ncs)))
            self.seq += 1

        def render_image(self, name, stream) -> None:  # type: ignore[no-untyped-def]
            fig = self.cur_item
            box = (fig.x0, fig.y0, fig.x1, fig.y1)
            if self.clip is not None:
                box = _meet(box, self.clip)  # type: ignore[assignment]
            if box[2] > box[0] and box[3] > box[1]:
                self.images.append(box)
                self.image_seq.append(self.seq)
            self.seq += 1

        def end_page(self, page) -> None:  # type: ignore[no-untyped-def]
            ltpage = self.cur_item
            chars: list[tuple[Any, Any]] = []  # (char, its container)
            stack = [ltpage]
            while stack:
                box = stack.pop()
                for obj in box:
                    if isinstance(obj, LTChar):
                        chars.append((obj, box))
                    elif isinstance(obj, LTContainer):
                        stack.append(obj)
            hidden = {id(chars[i][0]) for i in self.hidden([ch for ch, _ in chars])}
            all_text = None
            if hidden:
                everything = type(ltpage)(ltpage.pageid, ltpage.bbox)
                for obj in ltpage:
                    everything.add(obj)
                everything.analyze(self.laparams)
                all_text = _render(everything)
                for box in {id(b): b for _, b in chars}.values():
                    box._objs = [o for o in box._objs if id(o) not in hidden]
            shown = type(ltpage)(ltpage.pageid, ltpage.bbox)
            for obj in ltpage:
                shown.add(obj)
            shown.analyze(self.laparams)
            text = _render(shown)
            if self.extra:
                text += "\n".join(self.extra) + "\n"
            visible = [ch for ch, _ in chars if id(ch) not in hidden]
            self.result = (text, all_text, "\n".join(self.notes), self.signals(shown, visible, ltpage), visible,
                           _rows(shown, text))
            self.pageno += 1

        def hidden(self, chars: list) -> list[int]:
            """Indexes of the glyphs a viewer does not show (see the module docstring). Pure
            Python: numpy's import alone would not fit the child's smallest memory limits."""
            images = self.images
            dark_under = _Grid([s for s in self.shapes if s[5]])
            under = _Grid(self.shapes)
            over = _Grid([s for s in self.shapes if s[3] - s[1] >= 1.5]
                         + [(*im, k, 1, None) for im, k in zip(images, self.image_seq, strict=True)])
            out = []
            plain = not dark_under.bins and not over.bins
            for i, ch in enumerate(chars):
                mode, clip, seq, squeezed, white, rgb = ch.auditor
                cx, cy = (ch.x0 + ch.x1) / 2, (ch.y0 + ch.y1) / 2
                if (plain and not mode and not squeezed and not white and ch.size >= _MIN_SIZE
                        and (clip is None or (clip[0] <= cx <= clip[2] and clip[1] <= cy <= clip[3]))):
                    continue
                on_image = bool(images) and any(_inside(cx, cy, im) for im in images)
                if mode in _INVISIBLE_MODES:
                    hide = not on_image or not _inside(cx, cy, clip)
                elif (not _inside(cx, cy, clip) or ch.size < _MIN_SIZE or squeezed
                      or (white and not on_image and not dark_under.holds(ch, seq, before=True, centre=True))):
                    hide = True
                else:
                    hide = over.holds(ch, seq, before=False, centre=False)
                    if not hide and rgb is not None and under.bins:
                        ground = under.under(ch, seq)  # the glyph in the colour of what lies under it
                        hide = ground is not None and _same_colour(rgb, ground)
                if hide:
                    out.append(i)
            return out

        def signals(self, shown, visible, ltpage) -> dict:  # type: ignore[no-untyped-def]
            from pdfminer.layout import LTTextBox, LTTextLineHorizontal

            backward = misplaced = lines = 0
            fonts = self.font_words
            prev_line = None
            rows: dict[int, list[tuple[float, float, float]]] = {}
            for box in shown:
                if not isinstance(box, LTTextBox):
                    continue
                for line in box:
                    if not isinstance(line, LTTextLineHorizontal):
                        continue
                    glyphs = [o for o in line if isinstance(o, LTChar) and o.get_text().strip()]
                    if not glyphs:
                        continue
                    lines += 1
                    rows.setdefault(round((line.y0 + line.y1) / 2), []).append((line.x0, line.x1, line.height))
                    bucket = fonts.setdefault(str(glyphs[0].fontname), [])
                    if len(bucket) < _MAX_FONT_WORDS:
                        bucket.extend(_WORDS.findall(line.get_text().lower()))
                    for a, b in itertools.pairwise(glyphs):
                        if ((b.x0 + b.x1) / 2 < (a.x0 + a.x1) / 2 - 0.25 * a.size
                                and not _rtl(a) and not _rtl(b)):
                            backward += 1
                    # The line read after another on the same row must lie to its right.
                    if (prev_line is not None and line.x0 < prev_line.x0 - 1
                            and min(line.y1, prev_line.y1) - max(line.y0, prev_line.y0)
                            > 0.5 * min(line.height, prev_line.height) and not _rtl(glyphs[0])):
                        misplaced += 1
                    prev_line = line
            # Lines of one row less than an em apart were drawn apart: pdfminer joins
            # the glyphs of a row into one line when they are drawn one after the other.
            split = 0
            for row in rows.values():
                row.sort()
                for (_, a1, h), (b0, _, _) in itertools.pairwise(row):
                    if -0.1 * h < b0 - a1 < h:
                        split += 1
            area = max(ltpage.width * ltpage.height, 1.0)
            clipped = [_meet(im, (ltpage.x0, ltpage.y0, ltpage.x1, ltpage.y1)) for im in self.images]
            image_area = sum(max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1]) for b in clipped if b)
            on_image = sum(ch.width * ch.height for ch in visible
                           if any(_inside((ch.x0 + ch.x1) / 2, (ch.y0 + ch.y1) / 2, im) for im in clipped)) if clipped else 0.0
            return {"backward": backward, "misplaced": misplaced + split, "lines": lines, "chars": len(visible),
                    "image_share": min(1.0, image_area / area),
                    "text_on_image": on_image / image_area if image_area else 0.0,
                    "glyph_curves": self.glyph_curves}

    def _rtl(ch) -> bool:  # type: ignore[no-untyped-def]
        import unicodedata

        t = ch.get_text()
        return bool(t) and unicodedata.bidirectional(t[0]) in _RTL

    class Interpreter(interpreter):
        """pdfminer's interpreter, keeping the clip path (as a box), the opacity of fills and the
        Form XObject's BBox, which pdfminer does not track, and drawing annotations."""

        def init_state(self, ctm) -> None:  # type: ignore[no-untyped-def]
            super().init_state(ctm)
            self.saved: list[tuple] = []
            self.pending_clip = False
            self.marked: list[tuple | None] = []

        def do_BMC(self, tag) -> None:  # type: ignore[no-untyped-def]
            self.marked.append(None)
            super().do_BMC(tag)

        def do_BDC(self, tag, props) -> None:  # type: ignore[no-untyped-def]
            """Optional content a viewer hides (a layer that is off) is clipped away."""
            saved = None
            try:
                if literal_name(tag) == "OC" and self.device.hidden_layers:
                    names = dict_value(self.resources.get("Properties"))
                    ref = names.get(literal_name(props)) if not isinstance(props, dict) else None
                    if getattr(ref, "objid", None) in self.device.hidden_layers:
                        saved = (self.device.clip,)
                        self.device.clip = _NOWHERE
            except Exception:
                saved = None
            self.marked.append(saved)
            super().do_BDC(tag, props)

        def do_EMC(self) -> None:
            if self.marked:
                saved = self.marked.pop()
                if saved is not None:
                    self.device.clip = saved[0]
            super().do_EMC()

        def do_q(self) -> None:
            super().do_q()
            d = self.device
            self.saved.append((d.clip, d.opaque, d.fill_alpha, d.stroke_alpha))

        def do_Q(self) -> None:
            super().do_Q()
            if self.saved:
                d = self.device
                d.clip, d.opaque, d.fill_alpha, d.stroke_alpha = self.saved.pop()

        def do_W(self) -> None:
            self.pending_clip = True

        do_W_a = do_W

        def do_n(self) -> None:
            self.apply_clip()
            super().do_n()

        def apply_clip(self) -> None:
            if self.pending_clip and self.curpath:
                pts = [apply_matrix_pt(self.ctm, (float(p[-2]), float(p[-1]))) for p in self.curpath
                       if len(p) >= 3 and all(isinstance(v, (int, float)) for v in p[-2:])]
                if pts:
                    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                    self.device.clip = _meet(self.device.clip, (min(xs), min(ys), max(xs), max(ys)))
            self.pending_clip = False

        def do_gs(self, name) -> None:  # type: ignore[no-untyped-def]
            try:
                states = dict_value(self.resources.get("ExtGState"))
                state = dict_value(states.get(literal_name(name)))
                alpha = resolve1(state.get("ca", 1))
                stroke = resolve1(state.get("CA", 1))
                blend = resolve1(state.get("BM"))
            except Exception:
                return
            if isinstance(alpha, (int, float)):
                self.device.opaque = alpha >= 1
                self.device.fill_alpha = float(alpha)
            if isinstance(stroke, (int, float)):
                self.device.stroke_alpha = float(stroke)
            if blend is not None and literal_name(blend if not isinstance(blend, list) else blend[0]) not in ("Normal", "Compatible"):
                self.device.opaque = False

        def do_Do(self, xobjid_arg) -> None:  # type: ignore[no-untyped-def]
            clip = self.device.clip
            try:
                xobj = stream_value(self.xobjmap[literal_name(xobjid_arg)])
                box = [float(v) for v in resolve1(xobj.get("BBox"))] if xobj.get("BBox") else None
                matrix = [float(v) for v in resolve1(xobj.get("Matrix", [1, 0, 0, 1, 0, 0]))]
                if box and len(box) == 4 and len(matrix) == 6:
                    where: Any = (mult_matrix(tuple(matrix), self.ctm), tuple(box))  # type: ignore[arg-type]
                    self.device.clip = _meet(clip, apply_matrix_rect(*where))
            except Exception:
                pass
            try:
                super().do_Do(xobjid_arg)
            finally:
                self.device.clip = clip

        def process_page(self, page) -> None:  # type: ignore[no-untyped-def]
            (x0, y0, x1, y1) = page.mediabox
            ctm = {90: (0, -1, 1, 0, -y0, x1), 180: (-1, 0, 0, -1, x1, y1),
                   270: (0, 1, -1, 0, y1, -x0)}.get(page.rotate, (1, 0, 0, 1, -x0, -y0))
            self.device.begin_page(page, ctm)
            self.render_contents(page.resources, page.contents, ctm=ctm)
            self.annotations(page, ctm)
            self.device.end_page(page)

        def annotations(self, page, ctm) -> None:  # type: ignore[no-untyped-def]
            """Draw each annotation's appearance as a viewer does; keep every annotation's strings."""
            from pdfminer.utils import decode_text

            annots = resolve1(page.annots)
            if not isinstance(annots, list):
                return
            for ref in annots[:1000]:
                try:
                    annot = dict_value(ref)
                    flags = resolve1(annot.get("F", 0))
                    shown = not (isinstance(flags, int) and flags & _HIDDEN_FLAGS)
                    strings = []
                    for key in ("Contents", "V"):
                        v = resolve1(annot.get(key))
                        if isinstance(v, bytes) and v.strip():
                            strings.append(decode_text(v))
                    self.device.notes.extend(strings)
                    rect = [float(v) for v in resolve1(annot.get("Rect"))]
                    appearance = resolve1(resolve1(annot.get("AP") or {}).get("N")) if annot.get("AP") else None
                    if isinstance(appearance, dict) and not hasattr(appearance, "get_data"):
                        state = annot.get("AS")
                        appearance = resolve1(appearance.get(literal_name(state))) if state is not None else None
                    if not shown:
                        continue
                    if appearance is None or not hasattr(appearance, "get_data"):
                        if literal_name(resolve1(annot.get("Subtype"))) in ("FreeText", "Widget"):
                            self.device.extra.extend(strings)
                        continue
                    self.draw(appearance, rect, ctm)
                except Exception:
                    continue

        def draw(self, form, rect, page_ctm) -> None:  # type: ignore[no-untyped-def]
            """An appearance stream drawn in its annotation's rectangle (PDF 32000-1, 12.5.5)."""
            box: Any = tuple(float(v) for v in resolve1(form.get("BBox", [0, 0, 1, 1])))
            matrix: Any = tuple(float(v) for v in resolve1(form.get("Matrix", [1, 0, 0, 1, 0, 0])))
            bx0, by0, bx1, by1 = apply_matrix_rect(matrix, box)
            if bx1 - bx0 <= 0 or by1 - by0 <= 0:
                return
            fit = ((rect[2] - rect[0]) / (bx1 - bx0), 0, 0, (rect[3] - rect[1]) / (by1 - by0),
                   rect[0] - bx0 * (rect[2] - rect[0]) / (bx1 - bx0), rect[1] - by0 * (rect[3] - rect[1]) / (by1 - by0))
            ctm = mult_matrix(mult_matrix(matrix, fit), page_ctm)
            clip = self.device.clip
            self.device.clip = _meet(clip, apply_matrix_rect(page_ctm, tuple(rect)))
            resources = form.get("Resources")
            try:
                self.subinterp().render_contents(dict_value(resources) if resources else {}, [form], ctm=ctm)
            finally:
                self.device.clip = clip

    return Device, Interpreter


def _comparable(font) -> bool:  # type: ignore[no-untyped-def]
    """Whether a font's ToUnicode map can be checked against its encoding: a simple font with
    both, not flagged symbolic (whose codes name no letters by the standard encodings)."""
    return (getattr(font, "unicode_map", None) is not None and isinstance(getattr(font, "cid2unicode", None), dict)
            and not getattr(font, "flags", 0) & 4)


def _hidden_layers(doc) -> frozenset[int]:  # type: ignore[no-untyped-def]
    """Object numbers of the optional content groups a viewer hides by default (``/OCProperties
    /D``: the ``/OFF`` list, or all but ``/ON`` when ``/BaseState`` is ``/OFF``)."""
    from pdfminer.pdftypes import resolve1
    from pdfminer.psparser import literal_name

    try:
        props = resolve1(doc.catalog.get("OCProperties"))
        if not isinstance(props, dict):
            return frozenset()
        default = resolve1(props.get("D")) or {}
        def ids(refs: Any) -> set[int]:
            return {r.objid for r in resolve1(refs) or [] if isinstance(getattr(r, "objid", None), int)}

        if literal_name(resolve1(default.get("BaseState")) or "ON") == "OFF":
            return frozenset(ids(props.get("OCGs")) - ids(default.get("ON")))
        return frozenset(ids(default.get("OFF")))
    except Exception:
        return frozenset()


def _rows(page, text: str) -> str | None:  # type: ignore[no-untyped-def]
    """The page's text lines row by row, top to bottom, each row left to right: the order a
    reader reads a page in, which pdfminer's text boxes do not keep when the words of a row lie
    far apart (wide gaps, or the places of glyphs left out as hidden) and it stacks words of
    many rows into one box. None when that gives the words of ``text`` in the same order."""
    from pdfminer.layout import LTTextBox, LTTextLineHorizontal

    lines = [line for box in page if isinstance(box, LTTextBox)
             for line in box if isinstance(line, LTTextLineHorizontal) and line.get_text().strip()]
    if len(lines) < 2:
        return None
    lines.sort(key=lambda ln: (-(ln.y0 + ln.y1) / 2, ln.x0))
    rows: list[list[Any]] = []
    for line in lines:
        top = rows[-1][0] if rows else None
        if top is not None and min(top.y1, line.y1) - max(top.y0, line.y0) > 0.5 * min(top.height, line.height):
            rows[-1].append(line)
        else:
            rows.append([line])
    out = "\n".join(" ".join(ln.get_text().strip() for ln in sorted(row, key=lambda ln: ln.x0)) for row in rows) + "\n"
    return None if out.split() == text.split() else out


def _render(page) -> str:  # type: ignore[no-untyped-def]
    """The page's text as pdfminer's TextConverter writes it."""
    from pdfminer.layout import LTContainer, LTText, LTTextBox

    out: list[str] = []

    def render(item) -> None:  # type: ignore[no-untyped-def]
        if isinstance(item, LTContainer):
            for child in item:
                render(child)
        elif isinstance(item, LTText):
            out.append(item.get_text())
        if isinstance(item, LTTextBox):
            out.append("\n")

    render(page)
    return "".join(out)


def _extract(data: bytes, max_pages: int, max_chars: int) -> dict:
    import io

    from pdfminer.layout import LAParams
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError
    from pdfminer.pdfinterp import PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    _guard_reference_cycles()
    _widths_by_encoding()
    try:
        doc = PDFDocument(PDFParser(io.BytesIO(data)), password="")
    except PDFEncryptionError as e:
        raise Fail("pdf_encrypted", f"PDF is encrypted and needs a password ({type(e).__name__}: {e})") from e
    _DATES.update(dates.pdf_document(doc))
    count = _page_count(doc)
    if count is not None and count > max_pages:
        raise Fail("too_many_pages", f"PDF declares {count} pages, more than the limit of {max_pages}")
    device_class, interpreter_class = _classes()
    rsrc = PDFResourceManager(caching=True)
    # boxes_flow=None skips pdfminer's quadratic text-box ordering but keeps word spacing.
    device = device_class(rsrc, laparams=LAParams(boxes_flow=None))
    interp = interpreter_class(rsrc, device)
    device.hidden_layers = _hidden_layers(doc)
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
    out["font_maps"] = sorted([name, compared, differ] for name, _, _, compared, differ
                              in getattr(device, "font_maps", {}).values() if compared)
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
    """The ``pdf`` job, in the child: one PDF's pages."""
    warnings = _collect_warnings()
    warnings.clear()
    _DATES.clear()
    out = _extract(data, int(request["max_pages"]), int(request["max_chars"]))
    return {**out, "version": _pdfminer_version(), "warnings": list(warnings), "dates": dict(_DATES)}, []


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
