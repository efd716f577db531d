"""The PDF reader's model (:mod:`auditor.extract.pdf`): what of a page's content it reads as a
viewer draws it. Text is modelled when it is drawn by a font whose glyphs are outlines found by
character code (Type 1, TrueType, Type 0 with CID fonts), painted with a colour (not a pattern),
in content streams and Form XObjects the interpreter runs. Outside the model:

* a Type 3 font whose glyph procedures show text, or paint a form that does: a glyph that is a
  content stream of its own can show a whole word, which the text layer never reads. A Type 3
  font whose glyphs are shapes and pictures (Google Docs paints image XObjects, matplotlib
  outlines, LaTeX bitmap fonts inline images) is
  modelled as an outline font is: whether a glyph's shape is the letter its code says is the
  font-map check's question (``pdf-font-map``) and the rendering's, for every font alike;
* text painted with a pattern (its colour is a picture: it may match the background);
* a tiling pattern or a Type 3 glyph that itself shows text: the interpreter never runs it;
* text shown under a soft mask (an ExtGState ``/SMask`` other than ``/None``): the mask is a
  drawing of its own whose luminosity or alpha decides, point by point, how much of the glyph is
  seen, from fully (a white mask) to not at all (a black one). The reader does not draw it.

Pages read by OCR are read as drawn, so what they hold outside the model does not count.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: Font subtypes whose glyphs the text layer reads by character code.
FONTS = frozenset({"Type1", "MMType1", "TrueType", "Type0", "CIDFontType0", "CIDFontType2", "OpenType"})
TYPE3 = "font Type 3 whose glyph procedures show text (the text layer never reads it)"
PATTERN_FILL = "text painted with a pattern (its colour cannot be compared with the background)"
PATTERN_TEXT = "tiling pattern that draws text (the interpreter never runs it)"
SOFT_MASK = "text shown under a soft mask (ExtGState /SMask: how much of it is seen is not computed)"


_INLINE_IMAGE = re.compile(rb"\bID\s.*?\sEI\b", re.S)
_SHOWS = re.compile(rb"(?<![\w/])(?:BT|Tj|TJ|')(?![\w])")
_PAINTS = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s+Do\b")


def draws_text(glyph: bytes, xobject: Callable[[str], tuple[str, bytes] | None] = lambda name: None) -> bool:
    """Whether a Type 3 glyph procedure shows text (inline image data aside), or paints an
    XObject that is not a picture: ``xobject`` gives a name's (subtype, content) from the
    font's resources; a form's content must show no text and paint nothing in turn."""
    body = _INLINE_IMAGE.sub(b" ", glyph)
    if _SHOWS.search(body):
        return True
    for name in _PAINTS.findall(body):
        got = xobject(name.decode("latin-1"))
        if got is None or (got[0] != "Image" and (_SHOWS.search(got[1]) or _PAINTS.search(got[1]))):
            return True
    return False
