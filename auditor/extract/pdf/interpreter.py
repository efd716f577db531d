"""pdfminer.six's interpreter, keeping what it does not track and a viewer uses to decide what it
shows: the clip path (as a box), the opacity and blending of fills, soft masks, a Form XObject's BBox,
optional content a viewer hides by default (marked content, an XObject's or an annotation's
``/OC``, a group or a membership dictionary); and annotations drawn as a viewer draws them.

Imported only in the PDF child: it loads pdfminer.six.
"""

from __future__ import annotations

from typing import Any

from pdfminer.pdfinterp import PDFPageInterpreter
from pdfminer.pdftypes import dict_value, resolve1, stream_value
from pdfminer.psparser import literal_name
from pdfminer.utils import apply_matrix_pt, apply_matrix_rect, mult_matrix

from auditor.extract.model import pdf as model_pdf
from auditor.extract.pdf import geometry as geo

HIDDEN_FLAGS = 2 | 32  # annotation flags Hidden and NoView

_Interpreter: Any = PDFPageInterpreter  # pdfminer's class, extended with attributes of our own


class Interpreter(_Interpreter):
    """pdfminer's interpreter, keeping the clip path (as a box), the opacity of fills and the
    Form XObject's BBox, which pdfminer does not track, and drawing annotations."""

    def init_state(self, ctm) -> None:  # type: ignore[no-untyped-def]
        super().init_state(ctm)
        self.saved: list[tuple] = []
        self.pending_clip = False
        self.marked: list[tuple | None] = []

    def init_resources(self, resources) -> None:  # type: ignore[no-untyped-def]
        """pdfminer's, noting tiling patterns whose cell shows text (model.pdf): it never runs them.
        Spot colours (``/Separation``, ``/DeviceN``) and CIE Lab keep what decides their colour
        (:class:`auditor.extract.pdf.colour.Space`), which pdfminer drops."""
        super().init_resources(resources)
        try:
            from auditor.extract.pdf.colour import space_of

            for csid, spec in list(dict_value((resources or {}).get("ColorSpace") or {}).items())[:200]:
                got = space_of(resolve1(spec))
                if got is not None:
                    self.csmap[csid] = got
        except Exception:
            pass
        try:
            fonts = dict_value((resources or {}).get("Font"))
            for fontid, font in self.fontmap.items():
                if type(font).__name__ == "PDFType3Font" and id(font) not in self.device.type3:
                    spec = dict_value(fonts.get(fontid))
                    procs = dict_value(spec.get("CharProcs"))
                    xobjects = dict_value(dict_value(spec.get("Resources") or {}).get("XObject") or {})

                    def xobject(name: str, xobjects: Any = xobjects) -> tuple[str, bytes] | None:
                        x = stream_value(xobjects.get(name))
                        kind = literal_name(resolve1(x.get("Subtype")))
                        return kind, (x.get_data() if kind != "Image" else b"")

                    self.device.type3[id(font)] = any(
                        model_pdf.draws_text(stream_value(p).get_data(), xobject) for p in list(procs.values())[:512])
        except Exception:
            pass
        try:
            fonts = dict_value((resources or {}).get("Font"))
            for fontid, font in self.fontmap.items():
                if type(font).__name__ == "PDFCIDFont" and id(font) not in self.device.glyph_maps:
                    self.device.glyph_maps[id(font)] = (str(getattr(font, "fontname", "") or "?"),
                                                        glyph_map(dict_value(fonts.get(fontid)), font))
        except Exception:
            pass
        try:
            patterns = dict_value((resources or {}).get("Pattern"))
            for ref in list(patterns.values())[:200]:
                pat = resolve1(ref)
                if hasattr(pat, "get_data") and resolve1(pat.get("PatternType")) == 1 and b"BT" in pat.get_data():
                    self.device.outside.setdefault(model_pdf.PATTERN_TEXT, None)
                    break
        except Exception:
            pass

    def do_BMC(self, tag) -> None:  # type: ignore[no-untyped-def]
        self.marked.append(None)
        super().do_BMC(tag)

    def do_BDC(self, tag, props) -> None:  # type: ignore[no-untyped-def]
        """Optional content a viewer hides (a layer that is off) is clipped away."""
        saved = None
        try:
            if literal_name(tag) == "OC":
                names = dict_value(self.resources.get("Properties"))
                ref = names.get(literal_name(props)) if not isinstance(props, dict) else props
                if oc_hidden(ref, self.device.hidden_layers):
                    saved = (self.device.clip,)
                    self.device.clip = geo.NOWHERE
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
        self.saved.append((d.clip, d.opaque, d.fill_alpha, d.stroke_alpha, d.soft_mask))

    def do_Q(self) -> None:
        super().do_Q()
        if self.saved:
            d = self.device
            d.clip, d.opaque, d.fill_alpha, d.stroke_alpha, d.soft_mask = self.saved.pop()

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
                self.device.clip = geo.meet(self.device.clip, (min(xs), min(ys), max(xs), max(ys)))
        self.pending_clip = False

    def do_gs(self, name) -> None:  # type: ignore[no-untyped-def]
        try:
            states = dict_value(self.resources.get("ExtGState"))
            state = dict_value(states.get(literal_name(name)))
            alpha = resolve1(state.get("ca", 1))
            stroke = resolve1(state.get("CA", 1))
            blend = resolve1(state.get("BM"))
            mask = resolve1(state.get("SMask")) if "SMask" in state else False
        except Exception:
            return
        if mask is not False:  # a soft mask (model.pdf): what it lets through is not computed
            self.device.soft_mask = not (mask is None or _is_name(mask, "None"))
        if isinstance(alpha, (int, float)):
            self.device.opaque = alpha >= 1
            self.device.fill_alpha = float(alpha)
        if isinstance(stroke, (int, float)):
            self.device.stroke_alpha = float(stroke)
        if blend is not None and literal_name(blend if not isinstance(blend, list) else blend[0]) not in ("Normal", "Compatible"):
            self.device.opaque = False

    def do_sh(self, name) -> None:  # type: ignore[no-untyped-def]
        """A shading painted over the current clip (``sh``): a shape as a filled path is."""
        try:
            shading = dict_value(dict_value(self.resources.get("Shading")).get(literal_name(name)))
        except Exception:
            shading = {}
        self.device.paint_shading(shading)

    def do_Do(self, xobjid_arg) -> None:  # type: ignore[no-untyped-def]
        clip = self.device.clip
        try:
            xobj = stream_value(self.xobjmap[literal_name(xobjid_arg)])
            if "OC" in xobj and oc_hidden(xobj.get("OC"), self.device.hidden_layers):
                self.device.clip = geo.NOWHERE  # optional content a viewer hides by default
            box = [float(v) for v in resolve1(xobj.get("BBox"))] if xobj.get("BBox") else None
            matrix = [float(v) for v in resolve1(xobj.get("Matrix", [1, 0, 0, 1, 0, 0]))]
            if box and len(box) == 4 and len(matrix) == 6:
                where: Any = (mult_matrix(tuple(matrix), self.ctm), tuple(box))  # type: ignore[arg-type]
                self.device.clip = geo.meet(clip, apply_matrix_rect(*where))
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
                shown = not (isinstance(flags, int) and flags & HIDDEN_FLAGS) and not (
                    "OC" in annot and oc_hidden(annot.get("OC"), self.device.hidden_layers))
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
        self.device.clip = geo.meet(clip, apply_matrix_rect(page_ctm, tuple(rect)))
        resources = form.get("Resources")
        try:
            self.subinterp().render_contents(dict_value(resources) if resources else {}, [form], ctm=ctm)
        finally:
            self.device.clip = clip


def glyph_map(spec: Any, font: Any) -> tuple[tuple[int, ...], dict[int, str]] | None:
    """(glyph id of each CID, ToUnicode text of each CID) of a Type 0 font with an Identity
    encoding (code = CID) and a ``/CIDToGIDMap`` stream, for :func:`shared_glyphs`; None for
    another font (with ``/Identity`` every code is a glyph of its own)."""
    import struct

    if "Identity" not in str(resolve1(spec.get("Encoding"))):
        return None
    descendant = dict_value(resolve1(spec.get("DescendantFonts"))[0])
    gidmap = resolve1(descendant.get("CIDToGIDMap"))
    uni = getattr(getattr(font, "unicode_map", None), "cid2unichr", None)
    if not hasattr(gidmap, "get_data") or not isinstance(uni, dict):
        return None
    data = gidmap.get_data()
    return struct.unpack(f">{len(data) // 2}H", data[: len(data) // 2 * 2]), uni


def shared_glyphs(gids: tuple[int, ...], uni: dict[int, str], used: set[int]) -> tuple[int, int]:
    """(letters compared, letters that differ): how far a Type 0 font's ToUnicode map gives one
    glyph several letters, over the CIDs a page drew (``used``). A glyph draws one shape, so it is
    one letter: codes that the ``/CIDToGIDMap`` sends to one glyph are read as that glyph's most
    common letter, and each code the map reads as another letter differs (a map that gives every
    occurrence of a letter its own code, and each code the letter of a decoy word, is read as the
    decoy while the page draws the letters). Glyph 0 (.notdef, where producers send the codes they
    do not use) is not compared."""
    letters: dict[int, dict[str, int]] = {}
    for cid in used:
        text = uni.get(cid)
        if 0 <= cid < len(gids) and gids[cid] and isinstance(text, str) and len(text) == 1 and text.isalpha():
            by = letters.setdefault(gids[cid], {})
            by[text.lower()] = by.get(text.lower(), 0) + 1
    shared = [by for by in letters.values() if len(by) > 1]
    compared = sum(sum(by.values()) for by in shared)
    return compared, compared - sum(max(by.values()) for by in shared)


def _is_name(value: Any, name: str) -> bool:
    try:
        return literal_name(value) == name
    except Exception:
        return False


def oc_hidden(ref: Any, hidden: frozenset[int]) -> bool:
    """Whether optional content a viewer hides by default: ``ref`` names an optional content
    group (hidden when it is in ``hidden``: :func:`hidden_layers`) or a membership dictionary
    (``/OCMD``, PDF 32000-1, 8.11.2.2): its visibility expression ``/VE``, else its policy ``/P``
    (``AnyOn`` by default, ``AllOn``, ``AnyOff``, ``AllOff``) over its groups ``/OCGs``."""

    def on(r: Any) -> bool:
        return getattr(r, "objid", None) not in hidden

    def expression(e: Any, depth: int = 0) -> bool:
        """Whether a visibility expression is true (a group: it is on)."""
        v = resolve1(e)
        if not isinstance(v, list) or not v or depth > 20:
            return on(e)
        op, args = literal_name(v[0]), [expression(a, depth + 1) for a in v[1:]]
        return all(args) if op == "And" else (not args[0] if op == "Not" and args else any(args))

    d = resolve1(ref)
    if not isinstance(d, dict) or not _is_name(d.get("Type"), "OCMD"):
        return not on(ref)
    if d.get("VE") is not None:
        return not expression(d.get("VE"))
    groups = resolve1(d.get("OCGs"))
    states = [on(g) for g in (groups if isinstance(groups, list) else [d.get("OCGs")]) if g is not None]
    if not states:
        return False
    policy = literal_name(resolve1(d.get("P"))) if d.get("P") is not None else "AnyOn"
    visible = {"AllOn": all(states), "AnyOff": not all(states), "AllOff": not any(states)}.get(policy, any(states))
    return not visible


def hidden_layers(doc) -> frozenset[int]:  # type: ignore[no-untyped-def]
    """Object numbers of the optional content groups a viewer hides by default (``/OCProperties
    /D``: the ``/OFF`` list, or all but ``/ON`` when ``/BaseState`` is ``/OFF``)."""
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
