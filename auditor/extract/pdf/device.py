"""What a viewer shows of a PDF page: the glyphs pdfminer.six lays out, less those a viewer does
not draw (see :mod:`auditor.extract.pdf.job` for the rules), and the measures of how far the text
layer reads what the page shows (:func:`auditor.extract.pdf.signals.page_signals`).

Imported only in the PDF child: it loads pdfminer.six.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pdfminer.converter import PDFLayoutAnalyzer
from pdfminer.layout import LTChar, LTContainer
from pdfminer.pdffont import PDFCIDFont, PDFTrueTypeFont, PDFType1Font, PDFType3Font
from pdfminer.utils import apply_matrix_pt, apply_matrix_rect

from auditor.extract.model import pdf as model_pdf
from auditor.extract.pdf import colour as paint
from auditor.extract.pdf import geometry as geo
from auditor.extract.pdf.layout import layout_text, rows
from auditor.extract.pdf.signals import page_signals

# What a viewer does not show (see the module docstring of auditor.extract.pdf.job).
INVISIBLE_MODES = (3, 7)
_MIN_SIZE = 2.0  # points, in device space
_MIN_WIDTH_RATIO = 0.2  # horizontal over vertical scale of a glyph
_MIN_ALPHA = 0.05  # a glyph painted with less opacity is not seen
_DARK = 1.0  # R + G + B of a box dark enough to be a redaction

_Analyzer: Any = PDFLayoutAnalyzer  # pdfminer's class, extended with attributes of our own


@dataclass
class FontMapCount:
    """How far a font's ToUnicode map agrees with the letters its encoding names (the font-map
    check, :mod:`auditor.extract.pdf.checks`)."""

    name: str
    comparable: bool  # the font's encoding names its letters, so the map can be checked
    seen: set[int] = field(default_factory=set)  # codes compared, at most 256
    compared: int = 0  # letters compared
    differ: int = 0  # of which the map says another letter


class Device(_Analyzer):
    """Collects glyphs with what decides whether a viewer shows them, and the images and
    filled shapes drawn around them; the page is laid out once the interpreter is done."""

    def begin_page(self, page, ctm) -> None:  # type: ignore[no-untyped-def]
        super().begin_page(page, ctm)
        self.page_ctm = ctm
        self.clip = apply_matrix_rect(ctm, page.cropbox) if page.cropbox else None
        self.opaque = True
        self.fill_alpha = self.stroke_alpha = 1.0
        self.soft_mask = False  # an ExtGState soft mask other than /None is in force
        self.mode = 0
        self.seq = 0
        self.shapes: list[geo.Shape] = []  # bbox, seq, dark, colour
        self.images: list[tuple[float, float, float, float]] = []
        self.image_seq: list[int] = []
        self.glyph_curves = 0
        self.extra: list[str] = []  # annotation text a viewer shows without an appearance stream
        self.outside: dict[str, None] = {}  # what the page holds outside the reader's model (model.pdf)
        self.notes: list[str] = []  # every annotation's strings
        if not hasattr(self, "hidden_layers"):
            self.hidden_layers: frozenset[int] = frozenset()
        if not hasattr(self, "font_maps"):
            self.font_maps: dict[int, FontMapCount] = {}  # by id(font): fonts live as long as the page
        if not hasattr(self, "glyph_maps"):
            # id(Type 0 font) -> (name, interpreter.glyph_map), and the CIDs drawn in it
            self.glyph_maps: dict[int, tuple[str, Any]] = {}
            self.cids_drawn: dict[int, set[int]] = {}
        if not hasattr(self, "type3"):
            self.type3: dict[int, bool] = {}  # id(Type 3 font) -> its glyph procedures show text
        if not hasattr(self, "font_words"):
            self.font_words: dict[str, list[str]] = {}  # font name -> words, for the font-map check

    def render_string(self, textstate, seq, ncs, graphicstate) -> None:  # type: ignore[no-untyped-def]
        self.mode = textstate.render
        super().render_string(textstate, seq, ncs, graphicstate)

    def render_char(self, matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate) -> float:  # type: ignore[no-untyped-def]
        adv = super().render_char(matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate)
        item = self.cur_item._objs[-1]
        stats = self.font_maps.get(id(font))
        if stats is None and not isinstance(font, (PDFType1Font, PDFTrueTypeFont, PDFCIDFont)):
            if not isinstance(font, PDFType3Font):
                self.outside.setdefault(f"font of class {type(font).__name__}", None)
            elif self.type3.get(id(font), True):  # glyphs that show text, or procedures not read
                self.outside.setdefault(model_pdf.TYPE3, None)
        if getattr(graphicstate.ncs, "name", "") == "Pattern" and self.mode not in INVISIBLE_MODES:
            self.outside.setdefault(model_pdf.PATTERN_FILL, None)
        if self.soft_mask and self.mode not in INVISIBLE_MODES:
            self.outside.setdefault(model_pdf.SOFT_MASK, None)
        if stats is None:
            stats = self.font_maps[id(font)] = FontMapCount(str(font.fontname), comparable(font))
        if self.glyph_maps.get(id(font), (None, None))[1] is not None:
            self.cids_drawn.setdefault(id(font), set()).add(cid)
        if stats.comparable and cid not in stats.seen and len(stats.seen) < 256:
            stats.seen.add(cid)
            said = font.cid2unicode.get(cid)
            if said and said.isalpha():
                stats.compared += 1
                if item.get_text() != said:
                    stats.differ += 1
        a, b, c, d = matrix[:4]
        if b == 0 and c == 0:
            squeezed = abs(a * scaling) < _MIN_WIDTH_RATIO * abs(d)
        else:
            squeezed = (a * a + b * b) ** 0.5 * abs(scaling) < _MIN_WIDTH_RATIO * (c * c + d * d) ** 0.5
        if self.mode in (1, 5):
            white = paint.is_white(graphicstate.scolor, graphicstate.scs)
            rgb, alpha = paint.rgb(graphicstate.scolor, graphicstate.scs), self.stroke_alpha
        else:
            white = paint.is_white(graphicstate.ncolor, graphicstate.ncs)
            rgb, alpha = paint.rgb(graphicstate.ncolor, graphicstate.ncs), self.fill_alpha
        mode = 3 if alpha < _MIN_ALPHA and self.mode not in INVISIBLE_MODES else self.mode  # transparent: not drawn
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
        if self.opaque and not self.soft_mask and (box[2] - box[0]) * (box[3] - box[1]) >= 4:
            self.shapes.append((*box, self.seq, int(not paint.is_white(gstate.ncolor, gstate.ncs)),
                                paint.rgb(gstate.ncolor, gstate.ncs)))
        self.seq += 1

    def paint_shading(self, shading: dict) -> None:
        """``sh``: a shading fills the current clip (PDF 32000-1, 8.7.4.2), so it covers what was
        painted there before it, as a filled box does. Its colour is its function's at the start
        and the end of an axial or radial blend, when they agree (else it is taken for a dark one)."""
        box = self.clip
        if box is None or box[2] - box[0] <= 0 or box[3] - box[1] <= 0:
            return
        rgb = paint.shading_rgb(shading)
        if self.opaque and not self.soft_mask and (box[2] - box[0]) * (box[3] - box[1]) >= 4:
            self.shapes.append((*box, self.seq, int(rgb is None or rgb != (1.0, 1.0, 1.0)), rgb))
        self.seq += 1

    def render_image(self, name, stream) -> None:  # type: ignore[no-untyped-def]
        fig = self.cur_item
        box = (fig.x0, fig.y0, fig.x1, fig.y1)
        if self.clip is not None:
            box = geo.meet(box, self.clip)  # type: ignore[assignment]
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
            all_text = layout_text(everything)
            for box in {id(b): b for _, b in chars}.values():
                box._objs = [o for o in box._objs if id(o) not in hidden]
        shown = type(ltpage)(ltpage.pageid, ltpage.bbox)
        for obj in ltpage:
            shown.add(obj)
        shown.analyze(self.laparams)
        text = layout_text(shown)
        if self.extra:
            text += "\n".join(self.extra) + "\n"
        visible = [ch for ch, _ in chars if id(ch) not in hidden]
        signals = page_signals(self, shown, visible, ltpage)
        if self.outside:
            signals["unmodelled"] = list(self.outside)
        self.result = (text, all_text, "\n".join(self.notes), signals, visible, rows(shown, text))
        self.pageno += 1

    def hidden(self, chars: list) -> list[int]:
        """Indexes of the glyphs a viewer does not show (see the module docstring). Pure
        Python: numpy's import alone would not fit the child's smallest memory limits."""
        images = self.images
        dark_under = geo.Grid([s for s in self.shapes if s[5]])
        under = geo.Grid(self.shapes)
        over = geo.Grid([s for s in self.shapes if s[3] - s[1] >= 1.5]
                     + [(*im, k, 1, None) for im, k in zip(images, self.image_seq, strict=True)])
        out = []
        plain = not dark_under.bins and not over.bins
        self.layer_chars = 0  # invisible glyphs kept over an image: a scan's OCR layer
        self.covered: dict[tuple, list] = {}  # box drawn over glyphs -> [glyphs, their text]
        for i, ch in enumerate(chars):
            mode, clip, seq, squeezed, white, rgb = ch.auditor
            cx, cy = (ch.x0 + ch.x1) / 2, (ch.y0 + ch.y1) / 2
            if (plain and not mode and not squeezed and not white and ch.size >= _MIN_SIZE
                    and (clip is None or (clip[0] <= cx <= clip[2] and clip[1] <= cy <= clip[3]))):
                continue
            on_image = bool(images) and any(geo.inside(cx, cy, im) for im in images)
            if mode in INVISIBLE_MODES:
                hide = not on_image or not geo.inside(cx, cy, clip)
                self.layer_chars += not hide
            elif (not geo.inside(cx, cy, clip) or ch.size < _MIN_SIZE or squeezed
                  or (white and not on_image and not dark_under.holds(ch, seq, before=True, centre=True))):
                hide = True
            else:
                cover = over.holds(ch, seq, before=False, centre=False)
                if cover is None and rgb is not None and under.bins:
                    ground = under.under(ch, seq)  # the glyph in the colour of what lies under it
                    if ground is not None and ground[6] is not None and paint.same_colour(rgb, ground[6]):
                        cover = ground
                hide = cover is not None
                if cover is not None and cover[5] and (cover[6] is None or sum(cover[6]) < _DARK):
                    # a dark box (or an image) over the glyph, or under it in its colour: a redaction
                    seen = self.covered.setdefault(tuple(round(v, 1) for v in cover[:4]), [0, [], None])
                    seen[0] += 1
                    if len(seen[1]) < 80:  # the words under the box, spaced where their glyphs are apart
                        gap = seen[2] is not None and abs(ch.x0 - seen[2]) > 0.25 * ch.size
                        seen[1].append((" " if gap else "") + ch.get_text())
                    seen[2] = ch.x1
            if hide:
                out.append(i)
        return out


def comparable(font) -> bool:  # type: ignore[no-untyped-def]
    """Whether a font's ToUnicode map can be checked against its encoding: a simple font with
    both, not flagged symbolic (whose codes name no letters by the standard encodings)."""
    return (getattr(font, "unicode_map", None) is not None and isinstance(getattr(font, "cid2unicode", None), dict)
            and not getattr(font, "flags", 0) & 4)

