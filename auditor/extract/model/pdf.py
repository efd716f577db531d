"""The PDF reader's model (:mod:`auditor.extract.pdf`): what of a page's content it reads as a
viewer draws it. Text is modelled when it is drawn by a font whose glyphs are outlines found by
character code (Type 1, TrueType, Type 0 with CID fonts), painted with a colour (not a pattern),
in content streams and Form XObjects the interpreter runs. Outside the model:

* a Type 3 font: its glyphs are content streams of their own, which can draw other letters
  (or whole words) than its character map says;
* text painted with a pattern (its colour is a picture: it may match the background);
* a tiling pattern or a Type 3 glyph that itself shows text: the interpreter never runs it.

Pages read by OCR are read as drawn, so what they hold outside the model does not count.
"""

from __future__ import annotations

#: Font subtypes whose glyphs the text layer reads by character code.
FONTS = frozenset({"Type1", "MMType1", "TrueType", "Type0", "CIDFontType0", "CIDFontType2", "OpenType"})
TYPE3 = "font Type 3 (its glyph procedures can draw other letters than its character map says)"
PATTERN_FILL = "text painted with a pattern (its colour cannot be compared with the background)"
PATTERN_TEXT = "tiling pattern that draws text (the interpreter never runs it)"
