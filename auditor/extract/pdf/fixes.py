"""Fixes to pdfminer.six, applied in the PDF child before it parses: where pdfminer loops,
or lays out glyphs where a viewer does not draw them. Each is applied once per process and
marked, so applying it again is harmless.

A reference cycle (``3 0 obj 4 0 R endobj`` and ``4 0 obj 3 0 R endobj``, a few hundred bytes)
makes pdfminer.six's ``resolve1`` spin forever, so every such PDF would cost the whole time
limit. The child follows chains of indirect references itself and fails the PDF
(``pdf_error``) as soon as a chain comes back to an object it already passed.
"""

from __future__ import annotations

from auditor.sandbox.pool import Fail

MAX_CHAIN = 10_000


def guard_reference_cycles() -> None:
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
            if x.objid in seen or len(seen) > MAX_CHAIN:
                raise Fail("pdf_error", "PDF has a cycle of indirect references (object "
                           f"{x.objid} is reached again from object {self.objid})")
            seen.add(x.objid)
            x = one_step(x, default)
        return x

    resolve._auditor_guarded = True  # type: ignore[attr-defined]
    PDFObjRef.resolve = resolve  # type: ignore[method-assign]


def widths_by_encoding() -> None:
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
