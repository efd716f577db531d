"""The Word 2003 XML reader's model (:mod:`auditor.extract.wordml`).

Modelled: the parts of a ``w:wordDocument`` the reader reads or that draw no text
(:data:`PARTS`); in the body, headers and footers, the elements it lays out
(:data:`ELEMENTS`: paragraphs, runs, text, tabs, breaks, tables, fields, links, notes,
revisions, bookmarks, pictures); smart tags (they wrap words and draw nothing); the run and
paragraph properties whose effect on which words are drawn it knows (:data:`RUN`,
:data:`PARAGRAPH`), in direct formatting, styles and list levels alike.

Outside (each named): an element or property not listed (``w:sym``, ``w:docOleData``, an XML
element of another schema wrapping text), an embedded font, many text boxes placed by
position, an annotation of a type not listed, text squeezed (``w:w``, ``w:spacing``, ``w:fitText``), lifted (``w:position``) or set
vertically, text the colour of a paragraph, cell or page background.
"""

from __future__ import annotations

import re
from typing import Any

from auditor.extract.model import Outside
from auditor.extract.model.docx import MAX_OUTDENT, outdent
from auditor.extract.model.odf import PLACED_FRAMES, same_colour

W = "http://schemas.microsoft.com/office/word/2003/wordml"
_NS = {W: "w", "http://schemas.microsoft.com/office/word/2003/auxHint": "wx",
       "http://schemas.microsoft.com/aml/2001/core": "aml", "urn:schemas-microsoft-com:office:office": "o",
       "urn:schemas-microsoft-com:vml": "v", "urn:schemas-microsoft-com:office:word": "w10",
       "http://schemas.microsoft.com/office/word/2003/wordml/sp2": "wsp",
       "http://schemas.microsoft.com/schemaLibrary/2003/core": "sl"}
_SMART_TAGS = "urn:schemas-microsoft-com:office:smarttags"
_W = "{" + W + "}"


def qname(name: str) -> str:
    if not name.startswith("{"):
        return name
    ns, _, local = name[1:].partition("}")
    return f"{_NS.get(ns, '{' + ns + '}')}:{local}"


#: Children of ``w:wordDocument``: read (the body), or holding no text a reader sees.
PARTS = frozenset("""
o:DocumentProperties o:CustomDocumentProperties o:SmartTagType w:ignoreSubtree w:ignoreElements w:fonts
w:lists w:styles w:docPr w:body w:bgPict w:divs w:shapeDefaults o:shapedefaults o:shapelayout
""".split())  # noqa: SIM905
#: Children of a ``w:font`` (its name and metrics; an embedded font is outside).
FONT = frozenset(["w:altName", "w:panose-1", "w:charset", "w:family", "w:pitch", "w:sig", "w:notTrueType"])
#: Elements of the body, headers and footers the reader lays out, hides or never shows as Word does.
ELEMENTS = frozenset("""
w:body wx:sect wx:sub-section wx:pBdrGroup wx:borders wx:margin-left wx:margin-right wx:shd wx:apo
wx:top wx:bottom wx:left wx:right wx:font wx:sym
w:p w:pPr w:r w:rPr w:t w:tab w:br w:cr w:softHyphen w:noBreakHyphen w:pgNum w:separator
w:continuationSeparator w:footnoteRef w:endnoteRef w:annotationRef w:footnote w:endnote w:delText
w:tbl w:tblPr w:tblGrid w:gridCol w:tr w:trPr w:tc w:tcPr w:tblPrEx w:fldSimple w:fldChar w:instrText
w:fldData w:hlink w:sectPr w:hdr w:ftr w:binData w:pict w:proofErr w:permStart w:permEnd w:bookmark
aml:annotation aml:content
v:shape v:shapetype v:imagedata v:stroke v:fill v:path v:formulas v:f v:textbox v:rect v:line
v:group v:oval v:roundrect v:shadow o:lock w10:wrap w10:anchorlock w:txbxContent
""".split())  # noqa: SIM905
#: Children of properties elements (table, row, cell, section) that lay out boxes and hide no word.
LAYOUT = frozenset("""
w:tblPr w:trPr w:tcPr w:sectPr w:tblPrEx
""".split())  # noqa: SIM905
#: Run properties (Word 2003 names) the reader evaluates (hidden, colour, size, shading,
#: highlight) or that draw the same words in the same order.
RUN = frozenset("""
rStyle rFonts b b-cs i i-cs caps smallCaps strike dstrike outline shadow emboss imprint noProof
snapToGrid vanish webHidden specVanish color spacing w kern position sz sz-cs highlight u effect bdr
shd vertAlign rtl cs em lang asianLayout fitText
""".split())  # noqa: SIM905
#: Paragraph properties (Word 2003 names) that do not hide a word or change the order of words.
PARAGRAPH = frozenset("""
pStyle keepNext keepLines pageBreakBefore framePr widowControl listPr supressLineNumbers
suppressLineNumbers pBdr shd tabs suppressAutoHyphens kinsoku wordWrap overflowPunct topLinePunct
autoSpaceDE autoSpaceDN bidi adjustRightInd snapToGrid spacing ind contextualSpacing jc textDirection
textAlignment outlineLvl rPr sectPr divId cnfStyle textboxTightWrap
""".split())  # noqa: SIM905
#: annotation types that mark a place or a revision the reader handles
ANNOTATIONS = frozenset({"Word.Bookmark.Start", "Word.Bookmark.End", "Word.Insertion", "Word.Deletion",
                         "Word.Formatting", "Word.Comment.Start", "Word.Comment.End", "Word.Comment",
                         "Word.Numbering"})
_FIT_TEXT_MIN = 200
_MIN_SCALE = 50


def _val(el: Any, name: str = "val") -> int:
    try:
        return int(float(el.get(_W + name) or "0"))
    except ValueError:
        return 0


def check(root: Any, outside: Outside) -> None:
    """Name what a ``w:wordDocument`` holds outside the reader's model."""
    for part in root:
        if not isinstance(part.tag, str):
            continue
        name = qname(part.tag)
        if name not in PARTS:
            outside.add("wordml", f"part <{name}>")
        elif name == "w:fonts":
            for font in part.iter(_W + "font"):
                for c in font:
                    if isinstance(c.tag, str) and qname(c.tag) not in FONT:
                        outside.add("wordml", f"embedded font ({qname(c.tag)}): it may draw other letters than the "
                                    "text holds")
    body = root.find(_W + "body")
    placed = 0
    colours: set[str] = set()
    backgrounds: set[str] = set()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = qname(el.tag)
        if tag == "w:rPr":
            _run(el, outside, colours)
        elif tag == "w:pPr":
            for c in el:
                local = qname(c.tag) if isinstance(c.tag, str) else ""
                if local.startswith("w:") and local[2:] not in PARAGRAPH:
                    outside.add("wordml", f"paragraph property {local}")
                elif local == "w:textDirection" and (c.get(_W + "val") or "lr-tb") not in ("lr-tb", "tb"):
                    outside.add("wordml", f"text set vertically (w:textDirection {c.get(_W + 'val')})")
                elif local == "w:framePr" and (c.get(_W + "x") or c.get(_W + "y") or c.get(_W + "y-align")):
                    placed += 1
                elif local == "w:ind" and outdent(c) > MAX_OUTDENT:
                    outside.add("wordml", "paragraph indented past the paper's edge (w:ind)")
        elif tag in ("w:textFlow", "w:textDirection") and el.getparent() is not None and \
                qname(el.getparent().tag) == "w:tcPr" and (el.get(_W + "val") or "lr-tb") not in ("lr-tb", "tb"):
            outside.add("wordml", f"text set vertically in a table cell ({tag} {el.get(_W + 'val')})")
        elif tag == "w:shd" and (f := _hex(el.get(_W + "fill"))):
            backgrounds.add(f)
        elif tag == "w:background" and (b := _hex((el.get(_W + "bgcolor") or "").lstrip("#"))):
            backgrounds.add(b)
    if body is not None:
        placed += _body(body, outside)
    if placed > PLACED_FRAMES:
        outside.add("wordml", f"{placed} text boxes or frames placed by position: the reader cannot tell their order")
    for c in sorted(colours):
        for b in sorted(backgrounds):
            if same_colour(c, b) and not (c == "FFFFFF" and b == "FFFFFF"):
                outside.add("wordml", f"text coloured #{c} where a paragraph, cell or page background is #{b}: the "
                            "reader compares a run's colour with its own shading only")


def _body(body: Any, outside: Outside) -> int:
    placed = 0
    stack = [body]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):
            continue
        tag = qname(el.tag)
        if tag in ("w:rPr", "w:pPr", "o:lock"):
            continue  # properties are checked on their own
        if el.tag.startswith("{" + _SMART_TAGS + "}"):
            pass  # a smart tag wraps words and draws nothing
        elif tag in LAYOUT:
            continue  # boxes, borders and widths: what a section's headers hold is walked below
        elif tag not in ELEMENTS:
            outside.add("wordml", f"element <{tag}>")
            continue
        elif tag == "aml:annotation" and (kind := el.get(_W + "type") or "") not in ANNOTATIONS:
            outside.add("wordml", f"annotation of type {kind or 'none'} (a comment is drawn beside the text)")
            continue
        elif tag == "v:shape" and el.find(f".//{_W}txbxContent") is not None and \
                "position:absolute" in re.sub(r"\s", "", (el.get("style") or "").lower()):
            placed += 1
        stack.extend(reversed(list(el)))
    for sect in body.iter(_W + "sectPr"):
        for part in sect:
            if isinstance(part.tag, str) and qname(part.tag) in ("w:hdr", "w:ftr"):
                placed += _body(part, outside)
    return placed


def _run(rpr: Any, outside: Outside, colours: set[str]) -> None:
    for c in rpr:
        local = qname(c.tag) if isinstance(c.tag, str) else ""
        if local in ("wx:font", "wx:sym"):
            continue
        if not local.startswith("w:") or local[2:] not in RUN:
            outside.add("wordml", f"run property {local}")
        elif local == "w:position" and abs(_val(c)) > 24:
            outside.add("wordml", "run lifted or lowered by more than 12 points (w:position)")
        elif local == "w:spacing" and _val(c) < -40:
            outside.add("wordml", "run with letters squeezed together (w:spacing)")
        elif local == "w:w" and 0 < _val(c) < _MIN_SCALE:
            outside.add("wordml", f"run squeezed to {_val(c)}% of its width (w:w)")
        elif local == "w:fitText" and 0 < _val(c) < _FIT_TEXT_MIN:
            outside.add("wordml", "run squeezed into a sliver (w:fitText)")
        elif local == "w:asianLayout" and (c.get(_W + "vert") or c.get(_W + "combine")):
            outside.add("wordml", "text combined or set vertically (w:asianLayout)")
        elif local == "w:color" and (h := _hex(c.get(_W + "val"))):
            colours.add(h)


def _hex(val: str | None) -> str | None:
    v = {"white": "FFFFFF", "black": "000000"}.get((val or "").lower(), (val or "").upper())
    return v if len(v) == 6 and all(ch in "0123456789ABCDEF" for ch in v) else None
