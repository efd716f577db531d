"""The .docx reader's model (:mod:`auditor.extract.docx`): the package parts it reads or that
draw no text, and the run and paragraph properties whose effect on which words a reader sees it
knows (:data:`RUN`, :data:`PARAGRAPH`). Anything else is outside the model: an embedded font
(it can draw other letters than the text holds: ROT13 text drawn as plain words), a part of a
content type not listed, a run property not listed, text squeezed, lifted or set vertically.

An embedded font is the one construct a gate can vouch for afterwards: it reads LibreOffice's
rendering by OCR (:func:`auditor.extract.render.ocr_pages`), and when the letters drawn agree
with the characters, the font draws what the text holds (:func:`embedded_fonts` names them).
"""

from __future__ import annotations

from typing import Any

from auditor.extract.model import Outside
from auditor.extract.model.odf import PLACED_FRAMES

_OFFICE = "application/vnd.openxmlformats-officedocument."
#: Content types of the parts the reader reads, or that hold no text a reader sees.
CONTENT_TYPES = frozenset({
    f"{_OFFICE}wordprocessingml.document.main+xml", "application/vnd.ms-word.document.macroenabled.main+xml",
    f"{_OFFICE}wordprocessingml.template.main+xml", "application/vnd.ms-word.template.macroenabledtemplate.main+xml",
    f"{_OFFICE}wordprocessingml.styles+xml", f"{_OFFICE}wordprocessingml.styleswitheffects+xml",
    f"{_OFFICE}wordprocessingml.settings+xml", f"{_OFFICE}wordprocessingml.websettings+xml",
    f"{_OFFICE}wordprocessingml.fonttable+xml", f"{_OFFICE}wordprocessingml.numbering+xml",
    f"{_OFFICE}wordprocessingml.footnotes+xml", f"{_OFFICE}wordprocessingml.endnotes+xml",
    f"{_OFFICE}wordprocessingml.header+xml", f"{_OFFICE}wordprocessingml.footer+xml",
    f"{_OFFICE}wordprocessingml.comments+xml", "application/vnd.ms-word.commentsextended+xml",
    "application/vnd.ms-word.commentsids+xml", "application/vnd.ms-word.commentsextensible+xml",
    "application/vnd.ms-word.people+xml", f"{_OFFICE}wordprocessingml.people+xml",
    f"{_OFFICE}wordprocessingml.document.glossary+xml", f"{_OFFICE}theme+xml", f"{_OFFICE}themeoverride+xml",
    f"{_OFFICE}custom-properties+xml", f"{_OFFICE}extended-properties+xml",
    "application/vnd.openxmlformats-package.core-properties+xml",
    "application/vnd.openxmlformats-package.relationships+xml", f"{_OFFICE}customxmlproperties+xml",
    "application/xml", "text/xml", "application/vnd.ms-office.stylesWithEffects+xml".lower(),
    f"{_OFFICE}drawingml.chart+xml", f"{_OFFICE}drawingml.chartshapes+xml", "application/vnd.ms-office.chartstyle+xml",
    "application/vnd.ms-office.chartcolorstyle+xml", f"{_OFFICE}drawingml.diagramdata+xml",
    f"{_OFFICE}drawingml.diagramlayout+xml", f"{_OFFICE}drawingml.diagramstyle+xml",
    f"{_OFFICE}drawingml.diagramcolors+xml", "application/vnd.ms-office.drawingml.diagramdrawing+xml",
    "application/vnd.openxmlformats-package.digital-signature-origin",
    "application/vnd.openxmlformats-package.digital-signature-xmlsignature+xml",
    "application/vnd.ms-office.vbaproject", "application/vnd.ms-word.vbadata+xml",
    "application/vnd.ms-office.webextension+xml", "application/vnd.ms-office.webextensiontaskpanes+xml",
    "application/vnd.ms-word.keymapcustomizations+xml", "application/vnd.ms-word.attachedtoolbars",
    "application/vnd.ms-office.activex+xml", "application/vnd.ms-office.intellitag+xml",
    f"{_OFFICE}wordprocessingml.printersettings", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.ms-excel", f"{_OFFICE}oleobject", "application/vnd.openxmlformats-officedocument.vmldrawing",
    "application/vnd.ms-office.classificationlabels+xml", "application/vnd.ms-office.documenttasks+xml",
    "application/vnd.ms-word.intelligence+xml", "application/vnd.ms-word.intelligence2+xml",
})
CONTENT_TYPES = frozenset(k.lower() for k in CONTENT_TYPES) | frozenset(f"{_OFFICE}wordprocessingml.{n}+xml" for n in (
    "commentsextended", "commentsids", "commentsextensible", "people", "stylesWithEffects".lower(), "footer",
    "header")) | frozenset({"application/vnd.ms-word.styleswitheffects+xml"})
#: Content types of embedded fonts (Word's obfuscated fonts, and fonts as such).
FONT_TYPES = frozenset({f"{_OFFICE}obfuscatedfont", "application/vnd.ms-opentype", "application/vnd.ms-fontobject"})
_PREFIXES = ("image/", "video/", "audio/")
#: Run properties (``w:rPr``) the reader evaluates (hidden, colour, size, scale, shading) or that
#: do not change which words are drawn, nor their order.
RUN = frozenset("""
rStyle rFonts b bCs i iCs caps smallCaps strike dstrike outline shadow emboss imprint noProof
snapToGrid vanish webHidden specVanish color spacing w kern position sz szCs highlight u effect bdr
shd vertAlign rtl cs em lang oMath ins del moveFrom moveTo rPrChange ligatures numForm numSpacing
stylisticSets cntxtAlts textOutline textFill glow reflection props3d scene3d
""".split())  # noqa: SIM905
#: Paragraph properties (``w:pPr``) that do not hide a word or change the order of words.
PARAGRAPH = frozenset("""
pStyle keepNext keepLines pageBreakBefore framePr widowControl numPr suppressLineNumbers pBdr shd
tabs suppressAutoHyphens kinsoku wordWrap overflowPunct topLinePunct autoSpaceDE autoSpaceDN bidi
adjustRightInd snapToGrid spacing ind contextualSpacing mirrorIndents suppressOverlap jc
textDirection textAlignment textboxTightWrap outlineLvl divId cnfStyle rPr sectPr pPrChange
collapsed
""".split())  # noqa: SIM905
_FIT_TEXT_MIN = 200  # twips (10 pt): a narrower fitText squeezes a run into a sliver
#: twips (an inch, a page's usual margin): a paragraph indented further into the margin than this is
#: drawn past the paper's edge, where a word processor does not draw it
MAX_OUTDENT = 1440
#: attributes of w:framePr that place a frame on the page (a drop cap's frame has none of them)
_PLACED = frozenset({"x", "y", "xAlign", "yAlign"})


_FONT_KIND = "embedded font"
FONT = f"docx: {_FONT_KIND}"


def embedded_fonts(unmodelled: list[str]) -> list[str]:
    """The entries of a document's ``unmodelled`` list that are fonts it embeds (of the document
    itself: one found inside an ``altChunk`` or an EDGAR part is another reading's)."""
    return [n for n in unmodelled if n.startswith(FONT)]


def check(members: dict[str, Any], content_types: dict[str, str | None], outside: Outside) -> None:
    """Name the parts, fonts and properties of a package outside the model. ``members`` maps the
    XML parts that hold text (parsed, lxml) to their names; ``content_types`` every member to its
    content type."""
    for name, kind in sorted(content_types.items()):
        if name.endswith("/") or name == "[Content_Types].xml":
            continue
        k = (kind or "").lower()
        if k in FONT_TYPES or k.startswith(("font/", "application/x-font")) or \
                name.lower().endswith((".odttf", ".ttf", ".otf", ".fntdata")):
            outside.add("docx", f"{_FONT_KIND} {name} (it may draw other letters than the text holds)")
        elif k not in CONTENT_TYPES and not k.startswith(_PREFIXES):
            outside.add("docx", f"part {name} of content type {kind or 'none'}")
    placed = 0  # paragraphs framed and placed on the page by position (w:framePr x, y, xAlign, yAlign)
    for name, root in members.items():
        for el in root.iter():
            tag = el.tag if isinstance(el.tag, str) else ""
            if (tag.startswith("{") and tag.endswith("}embedRegular")) or tag.endswith(("}embedBold", "}embedItalic",
                                                                                        "}embedBoldItalic")):
                outside.add("docx", f"{_FONT_KIND} ({tag.rpartition('}')[2]}) in {name}")
            elif tag.endswith("}rPr") and tag.startswith("{http://schemas.openxmlformats.org/wordprocessingml"):
                for local, c in _run_properties(el):
                    if local and local not in RUN:
                        outside.add("docx", f"run property w:{local}")
                    elif local == "position" and abs(_val(c)) > 24:
                        outside.add("docx", "run lifted or lowered by more than 12 points (w:position)")
                    elif local == "spacing" and _val(c) < -40:
                        outside.add("docx", "run with letters squeezed together (w:spacing)")
            elif tag.endswith("}pPr") and tag.startswith("{http://schemas.openxmlformats.org/wordprocessingml"):
                for c in el:
                    local = c.tag.rpartition("}")[2] if isinstance(c.tag, str) else ""
                    if local and local not in PARAGRAPH:
                        outside.add("docx", f"paragraph property w:{local}")
                    elif local == "framePr" and any(k.rpartition("}")[2] in _PLACED for k in c.attrib):
                        placed += 1
                    elif local == "ind" and outdent(c) > MAX_OUTDENT:
                        outside.add("docx", "paragraph indented past the paper's edge (w:ind)")
            elif tag.endswith("}fitText") and 0 < _val(c := el) < _FIT_TEXT_MIN:
                outside.add("docx", "run squeezed into a sliver (w:fitText)")
            elif tag.endswith("}textDirection") and (el.get(f"{tag[:tag.index('}') + 1]}val") or "lrTb") not in (
                    "lrTb", "lr", "tb"):
                outside.add("docx", f"text set vertically (w:textDirection {el.get(tag[:tag.index('}') + 1] + 'val')})")
            elif tag.endswith("}eastAsianLayout") and any(k.endswith(("}vert", "}combine")) for k in el.attrib):
                outside.add("docx", "text combined or set vertically (w:eastAsianLayout)")
    if placed > PLACED_FRAMES:  # as the WordML and OpenDocument models count them
        outside.add("docx", f"{placed} paragraphs framed and placed by position (w:framePr): the reader cannot "
                    "tell their order")
    return None


#: The run properties the reader evaluates (hidden, colour, size, scale, shading, offsets): it reads
#: them in ``w:rPr`` alone, so inside ``mc:AlternateContent`` they are outside the model, and
#: only the others (fonts, effects that hide and move no word) are modelled there.
EVALUATED = frozenset({"vanish", "specVanish", "webHidden", "color", "sz", "szCs", "w", "highlight", "shd",
                       "position", "spacing", "fitText"})
_EFFECTS = RUN - EVALUATED


def _run_properties(rpr: Any) -> list[tuple[str, Any]]:
    """(local name, element) of the children of a ``w:rPr``, with the properties of each
    ``mc:AlternateContent`` branch in place of it: a branch's effects are modelled, any other
    property there is not (the reader does not evaluate it, and Word may show the branch)."""
    out = []
    for c in rpr:
        local = c.tag.rpartition("}")[2] if isinstance(c.tag, str) else ""
        if local == "AlternateContent":
            for branch in c:
                for p in branch:
                    name = p.tag.rpartition("}")[2] if isinstance(p.tag, str) else ""
                    if name and name not in _EFFECTS:
                        out.append((f"{name} inside mc:AlternateContent", p))
            continue
        out.append((local, c))
    return out


def outdent(ind: Any) -> int:
    """How far (twips) a ``w:ind`` puts a paragraph's text left of its left margin or right of its
    right one (a first line's hanging indent included)."""
    got = {k.rpartition("}")[2]: v for k, v in ind.attrib.items()}

    def num(*names: str) -> int:
        for n in names:
            try:
                return int(float(got[n]))
            except (KeyError, ValueError):
                continue
        return 0

    left, right = num("left", "start"), num("right", "end")
    return max(0, -(left - num("hanging")), -left, -right)


def _val(el: Any) -> int:
    for k, v in el.attrib.items():
        if k.endswith("}val") or k.endswith("}w"):
            try:
                return int(float(v))
            except ValueError:
                return 0
    return 0
