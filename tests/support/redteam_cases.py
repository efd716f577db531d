"""The red team's catalogue (issue #25): disguised batches, each carrying a stored contract that a
reader sees in full, and clean batches that must pass. See benchmarks/redteam.py.

Every case names its family (the issue's families and more of the same kinds), the stored
contract a reader sees (``payload``, a key of the corpus texts) and, in one sentence, what the
reader sees. ``views`` say what to render to check that with a real reader (Chromium,
LibreOffice, poppler): by default each file of the batch.

Families:

* ``hidden-junk``: junk words between the visible words, hidden from a reader; a reading that
  keeps them breaks every 5-word shingle of the contract;
* ``visible-not-read``: the page shows the contract, the text a naive extractor stores is a
  72-word decoy;
* ``order``: the text is stored in another order than it is shown;
* ``look-alike``: characters that look like the contract's but are not its letters, or letters
  spaced apart;
* ``sniffing``: a plain-text container whose content looks like markup;
* ``edgar-outside``: an EDGAR submission carrying the contract outside its documents' <TEXT>;
* ``edgar-part``: an EDGAR submission whose part carries one of the disguises above, or whose
  data part (XBRL, viewer page, JSON, script, style sheet, spreadsheet, XBRL zip, picture)
  carries the contract as its words;
* ``container``: a format the tool does not read (it must fail closed);
* ``damaged-index``: the stored contract's index altered in the store, a 98% copy gated;
* ``clean``: unrelated documents, ordinary pages and files by others, which must pass.
"""

from __future__ import annotations

import gzip
import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.support import redteam_build as b
from tests.support.redteam_build import esc, page


@dataclass(frozen=True)
class View:
    """One thing a reader looks at: ``kind`` html (Chromium), text (Chromium, as text/plain),
    docx (LibreOffice) or pdf (poppler)."""

    label: str
    kind: str
    data: bytes


@dataclass
class Case:
    family: str
    name: str
    fmt: str
    payload: str | None
    sees: str
    files: dict[str, bytes]
    views: list[View] = field(default_factory=list)
    damage: str | None = None
    note: str = ""
    #: how a person checked what the reader shows where OCR cannot read it (marks, spacing)
    by_eye: str = ""
    #: the red-team round that added the case (rounds 1 and 2 of issue #25 are one catalogue)
    round: int = 2
    #: the principle the disguise works by (issue #40's names); by default its family's
    principle: str = ""

    def __post_init__(self) -> None:
        if not self.principle:
            self.principle = PRINCIPLE_OF_FAMILY.get(self.family, self.family)

    @property
    def id(self) -> str:
        return f"{self.family}/{self.name}"

    def all_views(self) -> list[View]:
        if self.views:
            return self.views
        kinds = {"html": "html", "htm": "html", "txt": "text", "md": "text", "log": "text", "docx": "docx", "pdf": "pdf"}
        out = []
        for name, data in sorted(self.files.items()):
            ext = name.rsplit(".", 1)[-1].lower()
            if ext in kinds:
                out.append(View(name, kinds[ext], data))
        return out


Texts = dict[str, str]

#: The principle each family of the first rounds works by (issue #40's names).
PRINCIPLE_OF_FAMILY = {"hidden-junk": "junk-hidden", "visible-not-read": "shown-not-read", "order": "layout",
                       "look-alike": "look-alike", "sniffing": "sniffing", "edgar-outside": "edgar-outside",
                       "edgar-part": "edgar-part", "container": "container", "damaged-index": "damaged-index",
                       "clean": "clean"}

# Cases dropped after the readers were checked: the reader here does not show the contract as
# the case claims, so the case says nothing about what a reader sees.
DROPPED = {
    "hidden-junk/docx-theme-colour-background": "LibreOffice 7.4 ignores w:themeColor and shows the junk in the w:val "
                                                "colour (Word applies the theme's white; the extractor follows Word)",
    "visible-not-read/docx-duplicate-zip-entry-first": "LibreOffice shows the last of two entries of one name (the decoy), "
                                                       "as Python's zipfile reads it; the case with the contract last stays",
    "visible-not-read/docx-default-vanish-unhidden": "LibreOffice keeps most runs hidden when w:vanish val=0 overrides a "
                                                     "w:vanish of the document defaults (Word shows them)",
    "look-alike/txt-hangul-filler-spaces": "no font on this machine draws U+3164: Chromium shows a box, not a space",
    "look-alike/txt-cherokee-capitals": "no Cherokee font on this machine: Chromium shows boxes",
    "look-alike/html-fullwidth": "no CJK font on this machine: Chromium shows boxes for fullwidth letters",
    "look-alike/html-letter-spacing-css": "spaced letters with no wider gap between words: not readable as words",
    "hidden-junk/r3-html-details-closed": "Chromium draws a closed <details> whose summary is not displayed with a "
                                          "marker of its own: a reader sees a mark after every word (OCR 0.57)",
    "hidden-junk/r5-docx-textfill-alpha": "LibreOffice 7.4 draws a run whose w14:textFill is 100% transparent as "
                                          "ordinary black text (Word draws nothing); the .docx model still lists "
                                          "textFill as inert, a limit for Word's readers (ci-gate.md)",
    "hidden-junk/r5-docx-textfill-nofill": "LibreOffice 7.4 draws a run whose w14:textFill is w14:noFill as ordinary "
                                           "black text (Word draws nothing): as above",
    "hidden-junk/r5-pdf-cropbox-cuts-junk": "poppler's pdftoppm draws what lies outside the /CropBox too (OCR read 41 "
                                            "junk words); the reader and pdfium leave it out, as a viewer does",
    "hidden-junk/r5-pdf-blend-screen-black": "poppler and pdfium draw black text under the blend mode Screen as black "
                                             "on a page without a transparency group (OCR read 179 junk words)",
    "hidden-junk/r3-wordml-white-on-white-shading": "LibreOffice 7.4 draws the junk of a Word 2003 XML file black: it "
                                                    "applies neither the run's white colour nor its shading (Word shows "
                                                    "white on white); the reader's rule is tested in test_extract_office_xml",
}
# What a person saw where OCR misreads what the reader shows.
BY_EYE = {
    "visible-not-read/docx-white-on-dark-paragraph": "white text on dark blue, all of it legible (OCR reads light on dark poorly)",
    "look-alike/txt-underline-u0332": "every letter underlined; DejaVu Sans Mono draws the mark beside the letter, still legible",
    "look-alike/html-acute-u0301": "an accent over every letter, every word legible",
    "look-alike/docx-dot-below": "a dot under every letter, every word legible",
    "look-alike/txt-strikethrough-u0336": "letters joined by the stroke, every word legible",
    "look-alike/txt-letter-spaced": "spaced capitals and lower case, word gaps wider, legible",
    "look-alike/txt-letter-spaced-2": "spaced letters, word gaps wider, legible",
    "look-alike/html-letter-spaced-nbsp": "spaced letters, word gaps wider, legible",
    "look-alike/html-letter-spans-margin": "spaced letters, word gaps made by margins, legible",
    "look-alike/pdf-character-spacing": "spaced letters, word gaps wider, legible",
    "order/r3-docx-bidi-visual-table": "LibreOffice draws the cells first to last, every word in order (it sets the "
                                       "cells' paragraphs right to left, so a full stop stands at a cell's left end); "
                                       "Tesseract reads the table column by column",
}


def decoy(seed: int | str, words: int = 72) -> str:
    """A short cover note that is in no stored document: what a naive extractor is left with
    (each case its own, by name: two cases of one batch never share their visible text)."""
    from tests.support import synth

    n = zlib.crc32(seed.encode()) % 100_000 if isinstance(seed, str) else seed
    return " ".join(synth.contract(9000 + n, 6_000, kind="services").split()[:words])


# Stored contracts the cases carry, in turn: licence texts by others and synthetic contracts.
ROTATION = ("Artistic", "lease", "BSD", "CC0-1.0", "credit", "Apache-2.0", "supply", "Python-LICENSE",
            "consulting", "MPL-2.0")


def rotate(i: int) -> str:
    return ROTATION[i % len(ROTATION)]


# -- hidden junk: HTML --------------------------------------------------------------------------

def _span(style: str) -> Callable[[str], str]:
    return lambda j: f"<span style='{style}'>{j}</span>"


def _cls(j: str) -> str:
    return f"<span class='j'>{j}</span>"


HTML_HIDE: dict[str, tuple[str, Callable[[str], str], str]] = {
    # name: (head, hide, how it is hidden)
    "class-display-none": ("<style>.j{display:none}</style>", _cls, "a CSS class sets display:none"),
    "hidden-attribute": ("", lambda j: f"<span hidden>{j}</span>", "the hidden attribute"),
    "font-size-0": ("", _span("font-size:0"), "inline font-size:0"),
    "font-size-1px": ("", _span("font-size:1px"), "inline font-size:1px"),
    "font-shorthand-0": ("<style>.j{font:0/0 a}</style>", _cls, "the font shorthand 0/0 by class"),
    "visibility-hidden": ("", _span("visibility:hidden;position:absolute"), "visibility:hidden"),
    "visibility-collapse": ("<style>.j{visibility:collapse;position:absolute}</style>", _cls, "visibility:collapse by class"),
    "off-screen-left": ("", _span("position:absolute;left:-10000px"), "absolutely positioned 10,000 px left"),
    "off-screen-top": ("", _span("position:fixed;top:-5000px"), "fixed 5,000 px above the page"),
    "text-indent": ("", _span("display:inline-block;width:0;text-indent:-999px;overflow:hidden;vertical-align:top"),
                    "a zero-width box with negative text-indent"),
    "transparent": ("", _span("color:transparent;position:absolute"), "colour transparent"),
    "rgba-alpha-0": ("", _span("color:rgba(10,10,10,0);position:absolute"), "an rgba colour of alpha 0"),
    "white-on-white": ("", _span("color:#fff"), "white text on the white page"),
    "font-color-white": ("", lambda j: f"<font color='white'>{j}</font>", "<font color=white>"),
    "background-colour": ("<style>body{background:#f3ecd8}.j{color:#f3ecd8}</style>", _cls,
                          "the colour of the page's cream background"),
    "opacity-0": ("", _span("opacity:0;position:absolute"), "opacity 0"),
    "display-comment": ("", _span("display:/**/none"), "display:/**/none (a CSS comment in the value)"),
    "css-escape-value": ("<style>.j{display:\\6e one}</style>", _cls, "a CSS escape in the value (\\6e one)"),
    "css-escape-inline": ("", _span("display:\\6e one"), "a CSS escape in an inline style"),
    "css-escape-class": ("<style>.\\6a{display:none}</style>", _cls, "a CSS escape in the selector (.\\6a)"),
    "important-beats-inline": ("<style>.j{display:none!important}</style>",
                               lambda j: f"<span class='j' style='display:inline'>{j}</span>", "!important over an inline display"),
    "custom-property": ("<style>:root{--h:none}.j{display:var(--h)}</style>", _cls, "display:var(--h), --h:none"),
    "media-screen": ("<style>@media screen{.j{display:none}}</style>", _cls, "display:none inside @media screen"),
    "data-stylesheet": ("<link rel='stylesheet' href='data:text/css,.j%7Bdisplay:none%7D'>", _cls,
                        "a data: style sheet"),
    "attribute-selector": ("<style>[data-k]{display:none}</style>", lambda j: f"<span data-k>{j}</span>",
                           "an attribute selector"),
    "style-in-body": ("", lambda j: f"<span class='j'>{j}</span>", "a <style> at the end of the body"),
    "clip-rect": ("", _span("position:absolute;clip:rect(0 0 0 0)"), "clip:rect(0 0 0 0)"),
    "clip-path": ("", _span("position:absolute;clip-path:inset(50%)"), "clip-path:inset(50%)"),
    "sr-only": ("<style>.j{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0);"
                "white-space:nowrap}</style>", _cls, "the visually-hidden (sr-only) pattern"),
    "scale-0": ("", _span("position:absolute;transform:scale(0)"), "transform:scale(0)"),
    "zero-box": ("", _span("display:inline-block;width:0;height:0;overflow:hidden"), "a 0x0 box, overflow hidden"),
    "content-visibility": ("", _span("display:inline-block;content-visibility:hidden"), "content-visibility:hidden"),
    "hidden-until-found": ("", lambda j: f"<span hidden='until-found' style='display:inline-block'>{j}</span>",
                           "hidden=until-found on an inline block"),
    "dialog-closed": ("", lambda j: f"<dialog>{j}</dialog>", "a closed <dialog>"),
    "template": ("", lambda j: f"<template>{j}</template>", "<template>"),
    "rp": ("", lambda j: f"<ruby><rp>{j}</rp></ruby>", "<rp> inside <ruby>"),
    "noembed": ("", lambda j: f"<noembed>{j}</noembed>", "<noembed>"),
    "noframes": ("", lambda j: f"<noframes>{j}</noframes>", "<noframes>"),
    "datalist": ("", lambda j: f"<datalist><option>{j}</option></datalist>", "an <option> of a <datalist>"),
    "duplicate-style-attribute": ("", lambda j: f"<span style='display:none' style='display:inline'>{j}</span>",
                                  "two style attributes (browsers keep the first, display:none)"),
    "select-unselected": ("<style>select{appearance:none;border:0;width:0;padding:0}</style>",
                          lambda j: f"<select><option></option><option>{j}</option></select>",
                          "an option of a <select> that is not selected"),
}


def hidden_junk_html(t: Texts) -> list[Case]:
    out = []
    for i, (name, (head, hide, how)) in enumerate(HTML_HIDE.items()):
        key = rotate(i)
        body = b.html_junk(t[key], hide)
        if name == "style-in-body":
            body += "<style>.j{display:none}</style>"
        out.append(Case("hidden-junk", f"html-{name}", "html", key,
                        f"the {key} text; a junk word after every word is hidden by {how}",
                        {"exhibit.html": page(body, head)}))
    # partial and mixed hiding
    out.append(Case("hidden-junk", "html-every-4th-word", "html", "Apache-2.0",
                    "the Apache-2.0 text; a junk word after every 4th word, hidden by the hidden attribute",
                    {"exhibit.html": page(b.html_junk(t["Apache-2.0"], lambda j: f"<span hidden>{j}</span>", every=4))}))
    out.append(Case("hidden-junk", "html-first-60-percent", "html", "lease",
                    "the lease; hidden junk (class display:none) after every word of its first 60% only",
                    {"exhibit.html": page(b.html_junk(t["lease"], _cls, upto=0.6), "<style>.j{display:none}</style>")}))
    hides = [h for head, h, _ in HTML_HIDE.values() if not head][:8]  # inline: no style sheet needed
    mixed = b.html_junk(t["credit"], lambda j: hides[sum(map(ord, j)) % len(hides)](j))
    out.append(Case("hidden-junk", "html-mixed-techniques", "html", "credit",
                    "the credit agreement; junk after every word hidden by eight techniques in turn",
                    {"exhibit.html": page(mixed)}))
    inner = page(b.html_junk(t["Artistic"], _cls), "<style>.j{display:none}</style>").decode()
    out.append(Case("hidden-junk", "html-srcdoc-class-hidden", "html", "Artistic",
                    "an iframe (srcdoc) showing the Artistic licence, junk hidden by a CSS class inside it",
                    {"exhibit.html": page(f"<p>Exhibit below.</p><iframe style='width:100%;height:6000px;border:0' "
                                          f"srcdoc=\"{esc(inner)}\"></iframe>")}))
    inner = page(b.html_junk(t["BSD"], lambda j: f"<span hidden>{j}</span>")).decode()
    out.append(Case("hidden-junk", "html-object-data-hidden-attr", "html", "BSD",
                    "an <object> whose data: page shows the BSD licence, junk hidden by the hidden attribute",
                    {"exhibit.html": page(f"<p>{esc(decoy(12))}</p><object style='width:100%;height:1200px' "
                                          f"data='{b.data_url('text/html', inner)}'></object>")}))
    return out


# -- hidden junk: .docx -------------------------------------------------------------------------

# Word's "No Markup" view: tracked changes are not shown (their text as accepted).
NO_MARKUP = '<w:revisionView w:markup="0" w:insDel="0" w:formatting="0"/>'

DOCX_HIDE: dict[str, tuple[Callable[[str], str], str, dict]] = {
    "vanish": (lambda j: b.run(j, "<w:vanish/>"), "w:vanish runs", {}),
    "del-text": (lambda j: f'<w:del w:id="1" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r><w:delText xml:space="preserve">'
                           f"{j}</w:delText></w:r></w:del>", "tracked deletions (w:delText), markup not shown",
                 {"settings": NO_MARKUP}),
    "move-from": (lambda j: f'<w:moveFrom w:id="2" w:author="A" w:date="2024-01-01T00:00:00Z">{b.run(j)}</w:moveFrom>',
                  "the sources of tracked moves (w:moveFrom), markup not shown", {"settings": NO_MARKUP}),
    "white": (lambda j: b.run(j, '<w:color w:val="FFFFFF"/>'), "white text", {}),
    "tiny": (lambda j: b.run(j, '<w:sz w:val="2"/><w:szCs w:val="2"/>'), "1 pt text", {}),
    "char-style-vanish": (lambda j: b.run(j, '<w:rStyle w:val="Hid"/>'), "a character style with w:vanish",
                          {"styles": '<w:style w:type="character" w:styleId="Hid"><w:name w:val="Hid"/><w:rPr><w:vanish/></w:rPr></w:style>'}),
    "based-on-style-vanish": (lambda j: b.run(j, '<w:rStyle w:val="Note2"/>'), "a style based on a hidden style",
                              {"styles": '<w:style w:type="character" w:styleId="Note1"><w:name w:val="Note1"/><w:rPr><w:vanish/></w:rPr></w:style>'
                                         '<w:style w:type="character" w:styleId="Note2"><w:name w:val="Note2"/><w:basedOn w:val="Note1"/></w:style>'}),
    "web-hidden": (lambda j: b.run(j, "<w:webHidden/><w:vanish/>"), "w:vanish with w:webHidden", {}),
    "field-code": (lambda j: f'<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> {j} </w:instrText></w:r>'
                             f'<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>',
                   "field codes (instrText) with an empty result", {}),
    "squeezed": (lambda j: b.run(j, '<w:w w:val="1"/><w:sz w:val="4"/>'), "1% width, 2 pt", {}),
    "grey-on-grey-shading": (lambda j: b.run(j, '<w:color w:val="E7E6E6"/><w:shd w:val="clear" w:color="auto" w:fill="E7E6E6"/>'),
                             "light grey text on the same grey shading", {}),
    "paragraph-shading-colour": (lambda j: b.run(j, '<w:color w:val="DEEAF6"/>'), "the colour of the paragraph's blue shading",
                                 {"ppr": '<w:shd w:val="clear" w:color="auto" w:fill="DEEAF6"/>'}),
    "page-colour": (lambda j: b.run(j, '<w:color w:val="F3ECD8"/>'), "the colour of the page background (w:background)",
                    {"background": '<w:background w:color="F3ECD8"/>', "settings": "<w:displayBackgroundShape/>"}),
}


def hidden_junk_docx(t: Texts) -> list[Case]:
    out = []
    for i, (name, (hide, how, kw)) in enumerate(DOCX_HIDE.items()):
        key = rotate(i + 3)
        kw = dict(kw)
        body = b.docx_junk(t[key], hide, ppr=kw.pop("ppr", ""))
        out.append(Case("hidden-junk", f"docx-{name}", "docx", key,
                        f"the {key} text; a junk word after every word is hidden by {how}",
                        {"exhibit.docx": b.docx(body, **kw)}))
    return out


# -- hidden junk: PDF ---------------------------------------------------------------------------

def hidden_junk_pdf(t: Texts) -> list[Case]:
    at = b.at
    H: dict[str, tuple[Callable[[float, float, str], bytes], str, dict]] = {
        "render-mode-3": (lambda x, y, j: b"3 Tr " + at(x, y, j) + b"0 Tr\n", "render mode 3 (invisible)", {}),
        "render-mode-7": (lambda x, y, j: b"q 7 Tr " + at(x, y, j) + b"Q\n", "render mode 7 (clip only, inside q/Q)", {}),
        "white": (lambda x, y, j: b"1 g " + at(x, y, j) + b"0 g\n", "white fill", {}),
        "tiny": (lambda x, y, j: at(x, y, j, size=0.8), "0.8 pt glyphs", {}),
        "clipped": (lambda x, y, j: b"q 0 0 1 1 re W n " + at(x, y, j) + b"Q\n", "a 1x1 clip", {}),
        "squeezed-tz": (lambda x, y, j: b"3 Tz " + at(x, y, j) + b"100 Tz\n", "3% horizontal scaling (Tz)", {}),
        "squeezed-matrix": (lambda x, y, j: b"BT /F1 10 Tf 0.02 0 0 1 %.2f %.2f Tm (%s) Tj ET\n" % (x, y, b.pdf_esc(j)),
                            "a text matrix 2% wide", {}),
        "near-white": (lambda x, y, j: b"0.985 g " + at(x, y, j) + b"0 g\n", "98.5% grey on white", {}),
        "fill-opacity-0": (lambda x, y, j: b"/GS0 gs " + at(x, y, j) + b"/GS1 gs\n", "fill opacity 0 (ExtGState /ca 0)",
                           {"resources": b"/ExtGState << /GS0 << /ca 0 /CA 0 >> /GS1 << /ca 1 /CA 1 >> >>"}),
        "indexed-white": (lambda x, y, j: b"/CS0 cs 1 sc " + at(x, y, j) + b"0 g\n",
                          "white through an Indexed colour space", {"resources": b"/ColorSpace << /CS0 [/Indexed /DeviceRGB 1 <000000FFFFFF>] >>"}),
        "background-colour": (lambda x, y, j: b"0.95 0.92 0.85 rg " + at(x, y, j) + b"0 0 0 rg\n",
                              "the colour of the page's cream background", {"background": b"0.95 0.92 0.85 rg 0 0 612 792 re f 0 0 0 rg\n"}),
        "type3-empty-glyphs": (lambda x, y, j: at(x, y, j, font=b"/F2"), "a Type 3 font whose glyphs draw nothing", {"type3": True}),
        "optional-content-off": (lambda x, y, j: b"/OC /L1 BDC " + at(x, y, j) + b"EMC\n", "an optional-content layer off by default",
                                 {"layer": True}),
    }
    out = []
    for i, (name, (hide, how, kw)) in enumerate(H.items()):
        key = rotate(i + 5)
        ops = b.pdf_junk_ops(t[key], hide)
        if kw.get("background"):
            ops = [kw["background"] + o for o in ops]
        extra: dict = {}
        resources = kw.get("resources", b"")
        n = len(ops)
        if kw.get("type3"):
            base = b.first_object(n)
            empty = b.stream(b"0 0 0 0 0 0 d1")
            letters = "abcdefghijklmnopqrstuvwxyz"
            diffs = b" ".join(b"/%s" % c.encode() for c in letters)
            procs = b" ".join(b"/%s %d 0 R" % (c.encode(), base) for c in letters)
            type3 = (b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 0 0] /FontMatrix [0.001 0 0 0.001 0 0] "
                     b"/CharProcs << %s >> /Encoding << /Type /Encoding /Differences [97 %s] >> /FirstChar 97 /LastChar 122 "
                     b"/Widths [%s] /Resources << >> >>" % (procs, diffs, b" ".join([b"0"] * 26)))
            extra = {"objects": [empty, type3], "fonts": b"/F2 %d 0 R" % (base + 1)}
        if kw.get("layer"):
            base = b.first_object(n)
            resources = b"/Properties << /L1 %d 0 R >>" % base
            extra = {"objects": [b"<< /Type /OCG /Name (Notes) >>"],
                     "catalog_extra": b" /OCProperties << /OCGs [%d 0 R] /D << /OFF [%d 0 R] /Order [%d 0 R] >> >>" % (base, base, base)}
        out.append(Case("hidden-junk", f"pdf-{name}", "pdf", key,
                        f"the {key} text; a junk word drawn after every word is hidden by {how}",
                        {"exhibit.pdf": b.pdf(ops, resources=resources, **extra)}))
    # junk drawn in the gaps, then covered by an annotation's opaque appearance
    key = "BSD"
    layout = b.pdf_layout(t[key], gap=2)
    junk = iter(j[0] if j else None for j in b.junk_after([w for pg in layout for _, _, w in pg]))
    pages, objects, annots = [], [], []
    base = b.first_object(len(layout))
    for pg in layout:
        ops, boxes = [], []
        for x, y, w in pg:
            ops.append(at(x, y, w))
            j = next(junk)
            if j:
                jx = x + (len(w) + 1) * b.ADV
                ops.append(at(jx, y, j))
                boxes.append(b"%.2f %.2f %.2f %.2f re f\n" % (jx - 0.5, y - 3, len(j) * b.ADV + 1, 12))
        pages.append(b"".join(ops))
        objects.append(b.stream(b"1 g\n" + b"".join(boxes), b" /Type /XObject /Subtype /Form /BBox [0 0 612 792]"))
        objects.append(b"<< /Type /Annot /Subtype /Square /Rect [0 0 612 792] /F 4 /C [1 1 1] /IC [1 1 1] "
                       b"/AP << /N %d 0 R >> >>" % (base + len(objects) - 1))
        annots.append([len(objects) - 1])
    out.append(Case("hidden-junk", "pdf-covered-by-annotation", "pdf", key,
                    "the BSD licence, words two spaces apart; a junk letter in each gap is covered by a white "
                    "Square annotation's appearance",
                    {"exhibit.pdf": b.pdf(pages, objects=objects, annots=annots)}))
    return out


# -- visible, not read: HTML --------------------------------------------------------------------

def _lines(text: str, n: int = 10) -> list[str]:
    ws = " ".join(b.paragraphs(text)).split(" ")
    return [" ".join(ws[i : i + n]) for i in range(0, len(ws), n)]


def visible_html(t: Texts) -> list[Case]:
    D = decoy("html-object-fallback")
    cases: list[tuple[str, str, str, str, str]] = []  # name, payload, head, body, how

    def add(name: str, key: str, head: str, body: str, how: str) -> None:
        cases.append((name, key, head, body, how))

    c = t["BSD"]
    add("before-attr", "BSD", "<style>p.g::before{content:attr(data-t)}</style>",
        "".join(f"<p class='g' data-t='{esc(s)}'></p>" for s in b.paragraphs(c)), "::before content:attr()")
    add("after-string", "Artistic", "<style>" + "".join(f".a{i}::after{{content:{b.css_string(p)}}}"
                                                         for i, p in enumerate(b.paragraphs(t['Artistic']))) + "</style>",
        "".join(f"<p class='a{i}'></p>" for i in range(len(b.paragraphs(t["Artistic"])))), "::after string content")
    add("content-escapes", "BSD", "<style>" + "".join(f".e{i}::before{{content:{b.css_escaped(p)}}}"
                                                       for i, p in enumerate(b.paragraphs(c))) + "</style>",
        "".join(f"<p class='e{i}'></p>" for i in range(len(b.paragraphs(c)))), "::before content written as CSS escapes")
    add("marker-content", "BSD", "<style>" + "".join(f"li.m{i}::marker{{content:{b.css_string(p)}}}"
                                                      for i, p in enumerate(b.paragraphs(c))) + "</style>",
        "<ul style='list-style-position:inside'>" + "".join(f"<li class='m{i}'></li>" for i in range(len(b.paragraphs(c)))) + "</ul>",
        "::marker content")
    add("list-style-string", "BSD", "",
        "<ul style='list-style-position:inside;padding:0'>" + "".join(
            f"<li style='list-style-type:{esc(b.css_string(p))}'></li>" for p in b.paragraphs(c)) + "</ul>",
        "list-style-type strings")
    add("quotes", "BSD", "<style>" + "".join(f"q.q{i}{{quotes:{b.css_string(p)} ''}}" for i, p in enumerate(b.paragraphs(c)))
        + "</style>", "".join(f"<p><q class='q{i}'></q></p>" for i in range(len(b.paragraphs(c)))), "the quotes property of empty <q>")
    add("alt-broken-image", "lease", "", "".join(f"<p><img src='missing-{i}.png' alt='{esc(p)}'></p>"
                                                 for i, p in enumerate(b.paragraphs(t["lease"]))), "alt text of broken images")
    add("input-value", "BSD", "", "".join(f"<p><input type='text' style='width:100%;border:0' value='{esc(line)}'></p>"
                                          for line in _lines(c)), "<input value>")
    add("input-placeholder", "BSD", "", "".join(f"<p><input style='width:100%;border:0' placeholder='{esc(line)}'></p>"
                                                for line in _lines(c)), "<input placeholder>")
    add("mathml-mtext", "BSD", "", "".join(f"<p><math><mtext>{esc(line)}</mtext></math></p>" for line in _lines(c)),
        "MathML <mtext>")
    add("iframe-data-html", "Artistic", "", f"<iframe style='width:100%;height:5000px;border:0' "
        f"src='{b.data_url('text/html', page(b.html_paras(t['Artistic'])))}'></iframe>", "an iframe with a data: HTML page")
    add("iframe-data-text", "BSD", "", f"<iframe style='width:100%;height:1500px;border:0' "
        f"src='{b.data_url('text/plain', chr(10).join(b.lines_of(c)), b64=False)}'></iframe>", "an iframe with data: plain text")
    add("object-data-html", "credit", "", f"<object style='width:100%;height:9000px' "
        f"data='{b.data_url('text/html', page(b.html_paras(t['credit'])))}'><p>{esc(D)}</p></object>",
        "an <object> with a data: HTML page (the decoy is its fallback)")
    add("embed-data-html", "BSD", "", f"<embed style='width:100%;height:1500px' type='text/html' "
        f"src='{b.data_url('text/html', page(b.html_paras(c)))}'>", "an <embed> of a data: HTML page")
    svg, h = b.svg_lines(c)
    add("svg-image-data", "BSD", "", f"<svg width='900' height='{h}'><image width='900' height='{h}' "
        f"href='{b.data_url('image/svg+xml', svg)}'/></svg>", "an SVG <image> of a data: SVG")
    add("img-data-svg", "BSD", "", f"<img width='900' height='{h}' src='{b.data_url('image/svg+xml', svg)}' alt=''>",
        "an <img> of a data: SVG drawing the text")
    add("script-display-block", "BSD", "<style>script.v{display:block;white-space:pre-wrap}</style>",
        f"<script class='v' type='text/plain'>{esc(c)}</script>", "a text/plain <script> made display:block")
    add("style-display-block", "BSD", "<style>style.v{display:block;white-space:pre-wrap}</style>",
        f"<style class='v'>{esc(c)}</style>", "a <style> made display:block")
    add("title-display-block", "BSD", "<style>head,title{display:block}</style>", "", "the <title> made display:block")
    add("ix-header-outside-ixbrl", "lease", "", f"<ix:header>{b.html_paras(t['lease'])}</ix:header>",
        "<ix:header> in a page that is not inline XBRL")
    add("xml-element", "BSD", "", f"<xml>{b.html_paras(c)}</xml>", "an <xml> element")
    add("display-none-overridden", "Artistic", "<style>.c{display:none}.c{display:block}</style>",
        f"<div class='c'>{b.html_paras(t['Artistic'])}</div>", "display:none overridden by a later rule")
    add("display-none-invalid", "BSD", "", f"<div style='display:nonee'>{b.html_paras(c)}</div>",
        "an invalid inline display value (nonee)")
    add("display-none-custom-property", "BSD", "", f"<div style='--display:none'>{b.html_paras(c)}</div>",
        "a custom property named --display")
    add("display-none-in-comment", "BSD", "", f"<div style='/* display:none */ color:#111'>{b.html_paras(c)}</div>",
        "display:none inside a CSS comment")
    add("display-none-print-only", "lease", "<style media='print'>.c{display:none}</style>",
        f"<div class='c'>{b.html_paras(t['lease'])}</div>", "display:none in a print-only style sheet")
    add("hidden-overridden", "BSD", "<style>[hidden]{display:block !important}</style>",
        f"<div hidden>{b.html_paras(c)}</div>", "the hidden attribute overridden by a rule")
    add("stray-head-deep-nesting", "BSD", "", "<div>" * 300 + f"<head><p>{esc(c)}</p>" + "</div>" * 300,
        "a stray <head> after 300 nested <div>")
    add("after-html-end", "BSD", "", f"</body></html><p>{esc(c)}</p>", "text after </html>")
    add("select-selected", "BSD", "<style>select{appearance:none;border:0;font:inherit;width:100%}</style>",
        "".join(f"<p><select><option>{esc(decoy('select')[:40])}</option><option selected>{esc(line)}</option></select></p>"
                for line in _lines(c)), "the selected <option> of each <select>")
    nested = page(f"<iframe style='width:100%;height:1500px;border:0' srcdoc=\"{esc(page(b.html_paras(c)).decode())}\"></iframe>")
    add("nested-data-srcdoc", "BSD", "", f"<iframe style='width:100%;height:1600px;border:0' src='{b.data_url('text/html', nested)}'>"
        "</iframe>", "a data: iframe holding a srcdoc iframe")
    add("frameset-data", "BSD", "", "", "a <frameset> whose frame is a data: page")
    add("script-document-write", "BSD", "", f"<script>document.write(atob('{b.data_url('x', page(b.html_paras(c))).split(',')[1]}'))"
        "</script>", "text written by a script (document.write of base64)")
    out = []
    for name, key, head, body, how in cases:
        D = decoy(f"html-{name}")
        if name == "title-display-block":
            data = page(f"<p>{esc(D)}</p>", head, title=" ".join(b.paragraphs(t[key])))
        elif name == "frameset-data":
            data = (f"<!DOCTYPE html><html><head><title>Exhibit</title></head><frameset rows='100%'>"
                    f"<frame src='{b.data_url('text/html', page(b.html_paras(t[key])))}'><noframes>{esc(D)}</noframes>"
                    "</frameset></html>").encode()
        else:
            data = page(f"<p>{esc(D)}</p>\n{body}", head)
        out.append(Case("visible-not-read", f"html-{name}", "html", key,
                        f"the {key} text, shown through {how}; the page's only text node is a 72-word cover note",
                        {"exhibit.html": data}))
    # the contract as a picture of text (a scanned exhibit in a page)
    pixels, w, h = b.page_image(t["BSD"])
    png = _png(pixels, w, h)
    out.append(Case("visible-not-read", "html-image-of-text", "html", "BSD",
                    "a scanned page of the BSD licence as an <img> (PNG); the text is a 72-word cover note",
                    {"exhibit.html": page(f"<p>{esc(decoy('html-image-of-text'))}</p><img src='data:image/png;base64,"
                                          f"{__import__('base64').b64encode(png).decode()}' alt='Exhibit'>")}))
    return out


def _png(pixels: bytes, w: int, h: int) -> bytes:
    from PIL import Image

    buf = __import__("io").BytesIO()
    Image.frombytes("L", (w, h), pixels).save(buf, "PNG", optimize=False)
    return buf.getvalue()


# -- visible, not read: .docx -------------------------------------------------------------------

def visible_docx(t: Texts) -> list[Case]:
    out = []

    def add(name: str, key: str, data: bytes, how: str, note: str = "") -> None:
        out.append(Case("visible-not-read", f"docx-{name}", "docx", key,
                        f"the {key} text, shown through {how}", {"exhibit.docx": data}, note=note))

    c = t["Artistic"]
    alt = (f'<mc:AlternateContent><mc:Choice Requires="x1">{b.para(b.run(decoy("docx-alt")))}</mc:Choice>'
           f"<mc:Fallback>{b.docx_paras(c)}</mc:Fallback></mc:AlternateContent>")
    add("alternate-content-fallback", "Artistic", b.docx(alt),
        "the mc:Fallback Word shows (the mc:Choice, requiring an unknown namespace, holds the 72-word decoy)")
    add("decoy-document-part", "BSD", b.docx(b.docx_paras(t["BSD"]), main="word/main.xml", decoy_main=b.para(b.run(decoy("docx-decoy-part")))),
        "word/main.xml, the part _rels/.rels names (word/document.xml holds the decoy)")
    add("duplicate-zip-entry", "lease", b.docx(b.para(b.run(decoy("docx-dup"))), duplicate=b.docx_paras(t["lease"])),
        "the second of two zip entries named word/document.xml (the first holds the decoy)")
    shapetype = ('<v:shapetype id="_x0000_t136" coordsize="21600,21600" o:spt="136" adj="10800" path="m@7,l@8,m@5,21600l@6,21600e">'
                 '<v:path textpathok="t" o:connecttype="custom"/><v:textpath on="t" fitshape="t"/></v:shapetype>')
    vml = "".join(
        f'<w:p><w:r><w:pict>{shapetype if i == 0 else ""}<v:shape id="wa{i}" type="#_x0000_t136" '
        f'style="width:468pt;height:14pt" fillcolor="black" stroked="f">'
        f'<v:textpath style="font-family:&quot;Times New Roman&quot;;font-size:11pt;v-text-align:left" string="{esc(line)}"/>'
        f"</v:shape></w:pict></w:r></w:p>" for i, line in enumerate(_lines(t["BSD"], 12)))
    add("vml-wordart", "BSD", b.docx(b.para(b.run(decoy("docx-vml"))) + vml), "legacy WordArt (v:textpath string attributes)")
    add("paragraph-mark-vanish", "credit", b.docx(b.docx_paras(t["credit"], ppr="<w:rPr><w:vanish/></w:rPr>")),
        "paragraphs whose paragraph mark alone is hidden (pPr/rPr/w:vanish)")
    add("vanish-in-rpr-change", "consulting", b.docx(b.docx_paras(
        t["consulting"], rpr='<w:rPrChange w:id="9" w:author="A" w:date="2024-01-01T00:00:00Z"><w:rPr><w:vanish/></w:rPr></w:rPrChange>')),
        "runs whose former formatting (w:rPrChange) was hidden")
    add("white-on-dark-paragraph", "BSD", b.docx(b.docx_paras(t["BSD"], rpr='<w:color w:val="FFFFFF"/>',
                                                              ppr='<w:shd w:val="clear" w:color="auto" w:fill="1F3864"/>')),
        "white text on a dark blue paragraph shading")
    cust = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<root xmlns="urn:redteam:exhibit">'
            + "".join(f"<p{i}>{esc(p)}</p{i}>" for i, p in enumerate(b.paragraphs(t["BSD"]))) + "</root>")
    sdts = "".join(
        f'<w:sdt><w:sdtPr><w:dataBinding w:prefixMappings="xmlns:ns0=\'urn:redteam:exhibit\'" w:xpath="/ns0:root[1]/ns0:p{i}[1]" '
        f'w:storeItemID="{{6E1B2C3D-0000-4000-8000-000000000001}}"/><w:text/></w:sdtPr><w:sdtContent>{b.para(b.run(w))}</w:sdtContent></w:sdt>'
        for i, w in enumerate([decoy("docx-data-bound")] + [""] * (len(b.paragraphs(t["BSD"])) - 1)))
    props = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<ds:datastoreItem ds:itemID="{6E1B2C3D-0000-4000-8000-000000000001}" '
             'xmlns:ds="http://schemas.openxmlformats.org/officeDocument/2006/customXml"><ds:schemaRefs/></ds:datastoreItem>')
    add("data-bound-content-controls", "BSD", b.docx(
        sdts, parts={"customXml/item1.xml": cust, "customXml/itemProps1.xml": props,
                     "customXml/_rels/item1.xml.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                     f'<Relationship Id="rId1" Type="{b._REL_NS}/customXmlProps" Target="itemProps1.xml"/></Relationships>'},
        rels=f'<Relationship Id="rIdCx" Type="{b._REL_NS}/customXml" Target="../customXml/item1.xml"/>',
        overrides='<Override PartName="/customXml/itemProps1.xml" ContentType="application/vnd.openxmlformats-officedocument.customXmlProperties+xml"/>'),
        "content controls bound to a custom XML part (Word fills them from it; document.xml caches the decoy)",
        note="Word refreshes data-bound controls from the custom XML part; LibreOffice shows the cached text")
    pixels, w, h = b.page_image(t["BSD"])
    png = _png(pixels, w, h)
    drawing = ('<w:p><w:r><w:drawing><wp:inline><wp:extent cx="5943600" cy="7690000"/><wp:docPr id="1" name="Scan"/>'
               '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>'
               '<pic:nvPicPr><pic:cNvPr id="1" name="scan.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdImg"/>'
               '<a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="5943600" cy="7690000"/>'
               '</a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>')
    add("picture-of-text", "BSD", b.docx(b.para(b.run(decoy("docx-picture"))) + drawing, parts={"word/media/scan.png": png},
                                         rels=f'<Relationship Id="rIdImg" Type="{b._REL_NS}/image" Target="media/scan.png"/>'),
        "a scanned page of it as a picture (the text is a 72-word cover note)")
    return out


# -- visible, not read: PDF ---------------------------------------------------------------------

def _appearance(text: str) -> bytes:
    ops = b"".join(b.pdf_text_ops(text)[:1])
    return b.stream(ops, b" /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>")


def visible_pdf(t: Texts) -> list[Case]:
    D = decoy("pdf-layer")
    out = []
    cover = b.at(50, 770, " ".join(decoy("pdf-cover").split()[:8]))
    base = b.first_object(1)

    def add(name: str, key: str, data: bytes, how: str) -> None:
        out.append(Case("visible-not-read", f"pdf-{name}", "pdf", key, f"the {key} text, {how}", {"exhibit.pdf": data}))

    for sub, extra, how in [("FreeText", b"/DA (/F1 10 Tf 0 g)", "drawn by a FreeText annotation's appearance"),
                            ("Stamp", b"", "drawn by a Stamp annotation's appearance"),
                            ("Widget", b"/FT /Tx /T (exhibit) /V (see page)", "drawn by a form field's appearance stream"),
                            ("Square", b"", "drawn by a Square annotation's appearance")]:
        annot = b"<< /Type /Annot /Subtype /%s /Rect [0 0 612 792] /F 4 /AP << /N %d 0 R >> %s >>" % (sub.encode(), base, extra)
        add(f"{sub.lower()}-appearance", "BSD", b.pdf([cover], objects=[_appearance(t["BSD"]), annot], annots=[[1]]), how)
    field = b"<< /Type /Annot /Subtype /Widget /FT /Tx /Ff 4096 /T (exhibit) /Rect [40 60 572 740] /F 4 /DA (/F1 9 Tf 0 g) /V (%s) >>" % b.pdf_esc(
        "\n".join(b.lines_of(t["BSD"], 90)))
    add("field-value-no-appearance", "BSD", b.pdf([cover], objects=[field], annots=[[0]],
                                                  catalog_extra=b" /AcroForm << /Fields [%d 0 R] /NeedAppearances true /DA (/F1 9 Tf 0 g) "
                                                                b"/DR << /Font << /F1 3 0 R >> >> >>" % base),
        "the value of a multi-line text field without an appearance stream")
    pixels, w, h = b.page_image(t["BSD"])
    img = b.image_xobject(pixels, w, h)
    res = b"/XObject << /Im1 %d 0 R >>" % base
    short = b"q 612 0 0 792 0 0 cm /Im1 Do Q\n3 Tr " + b.at(50, 770, "Exhibit 10.1") + b"0 Tr\n"
    add("scan-decoy-short", "BSD", b.pdf([short], resources=res, objects=[img]),
        "on a scanned page (an image) whose invisible text layer says only 'Exhibit 10.1'")
    layer = b"3 Tr " + b"".join(b.pdf_text_ops(D * 7)[:1]) + b"0 Tr\n"
    add("scan-decoy-ocr-layer", "BSD", b.pdf([b"q 612 0 0 792 0 0 cm /Im1 Do Q\n" + layer], resources=res, objects=[img]),
        "on a scanned page whose invisible OCR layer covers the page with other text")
    try:
        outlines = b.outlined_ops(t["BSD"])
    except (OSError, ImportError):
        outlines = None
    if outlines is not None:
        add("outlines-decoy", "BSD", b.pdf([outlines + cover]), "drawn as vector glyph outlines under a one-line text layer")
        filler = b"3 Tr " + b"".join(b.pdf_text_ops(D * 6)[:1]) + b"0 Tr\n"
        add("outlines-decoy-filler", "BSD", b.pdf([outlines + cover + filler]),
            "drawn as vector glyph outlines; the text layer is a visible line plus a page of invisible decoy text")
    return out


# -- order --------------------------------------------------------------------------------------

def order_cases(t: Texts) -> list[Case]:
    out = []
    rev = lambda s: s[::-1]  # noqa: E731

    def h(name: str, key: str, body: str, how: str, head: str = "") -> None:
        out.append(Case("order", f"html-{name}", "html", key, f"the {key} text in reading order, {how}",
                        {"exhibit.html": page(body, head)}))

    c = t["BSD"]
    h("bdo-rtl", "BSD", "".join(f"<div><bdo dir='rtl'>{esc(rev(line))}</bdo></div>" for line in _lines(c)),
      "each line stored backwards and shown right to left by <bdo dir=rtl>")
    h("u202e", "Artistic", "".join(f"<div>\u202e{esc(rev(line))}\u202c</div>" for line in _lines(t["Artistic"])),
      "each line stored backwards after U+202E (right-to-left override)")
    h("css-bidi-override", "BSD", "".join(f"<div style='direction:rtl;unicode-bidi:bidi-override;text-align:left'>{esc(rev(line))}</div>"
                                          for line in _lines(c)), "each line stored backwards, CSS unicode-bidi:bidi-override")
    h("flex-order", "BSD", "".join("<div style='display:flex;gap:0.3em'>" + "".join(
        f"<span style='order:{i}'>{esc(w)}</span>" for i, w in reversed(list(enumerate(line.split(" "))))) + "</div>"
        for line in _lines(c, 8)), "each line's words stored last to first and put in order by CSS flex order")
    h("flex-row-reverse", "BSD", "".join("<div style='display:flex;flex-direction:row-reverse;justify-content:flex-end;gap:0.3em'>"
        + "".join(f"<span>{esc(w)}</span>" for w in reversed(line.split(" "))) + "</div>" for line in _lines(c, 8)),
      "each line's words stored last to first, flex-direction:row-reverse")
    h("column-reverse", "Artistic", "<div style='display:flex;flex-direction:column-reverse'>" + "".join(
        f"<div>{esc(line)}</div>" for line in reversed(_lines(t["Artistic"]))) + "</div>",
      "the lines stored last to first, flex-direction:column-reverse")
    lines = _lines(c)
    perm = list(range(len(lines)))
    random.Random(25).shuffle(perm)
    h("grid-rows", "BSD", "<div style='display:grid'>" + "".join(
        f"<div style='grid-row:{i + 1}'>{esc(lines[i])}</div>" for i in perm) + "</div>",
      "the lines stored shuffled and placed by grid-row")
    h("absolute-lines", "BSD", "<div style='position:relative;height:1200px'>" + "".join(
        f"<div style='position:absolute;top:{i * 22}px;left:0'>{esc(lines[i])}</div>" for i in perm) + "</div>",
      "the lines stored shuffled and positioned absolutely")
    h("float-right", "BSD", "".join("<div style='overflow:hidden;width:max-content'>" + "".join(
        f"<span style='float:right;margin-left:0.3em'>{esc(w)}</span>" for w in reversed(line.split(" "))) + "</div>"
        for line in _lines(c, 8)), "each line's words stored last to first and floated right")
    h("table-rtl", "BSD", "".join("<table style='direction:rtl;border-spacing:0.3em 0'><tr>" + "".join(
        f"<td style='direction:ltr;padding:0'>{esc(w)}</td>" for w in reversed(line.split(" "))) + "</tr></table>"
        for line in _lines(c, 8)), "each line's words stored last to first in the cells of a right-to-left table")
    txt = "\n".join("\u202e" + rev(line) for line in _lines(t["lease"], 10)).encode()
    out.append(Case("order", "txt-u202e", "txt", "lease", "the lease in reading order: each line stored backwards after U+202E",
                    {"exhibit.txt": txt}))
    body = "".join(b.para(b.run("\u202e" + rev(line))) for line in _lines(t["BSD"], 10))
    out.append(Case("order", "docx-u202e", "docx", "BSD", "the BSD licence in reading order: each paragraph stored backwards after U+202E",
                    {"exhibit.docx": b.docx(body)}))
    # PDF: drawing order
    placed = b.pdf_layout(t["Artistic"])
    shuffled = [list(pg) for pg in placed]
    for pg in shuffled:
        random.Random(5).shuffle(pg)
    out.append(Case("order", "pdf-shuffled-words", "pdf", "Artistic", "the Artistic licence; its words drawn in shuffled order",
                    {"exhibit.pdf": b.pdf([b"".join(b.at(*p) for p in pg) for pg in shuffled])}))
    placed = b.pdf_layout(t["BSD"])[0]
    back = [b.at(x + k * b.ADV, y, w[k]) for x, y, w in placed for k in reversed(range(len(w)))]
    out.append(Case("order", "pdf-backwards-letters", "pdf", "BSD", "the BSD licence; each word's letters drawn last to first",
                    {"exhibit.pdf": b.pdf([b"".join(back)])}))
    rows: dict[float, list] = {}
    for p in placed:
        rows.setdefault(p[1], []).append(p)
    rtl = b"".join(b.at(*p) for y in sorted(rows, reverse=True) for p in reversed(rows[y]))
    out.append(Case("order", "pdf-words-right-to-left", "pdf", "BSD", "the BSD licence; each line's words drawn right to left",
                    {"exhibit.pdf": b.pdf([rtl])}))
    ys = sorted(rows, reverse=True)
    random.Random(9).shuffle(ys)
    lines_shuffled = b"".join(b.at(*p) for y in ys for p in rows[y])
    out.append(Case("order", "pdf-lines-shuffled", "pdf", "BSD", "the BSD licence; its lines drawn in shuffled order",
                    {"exhibit.pdf": b.pdf([lines_shuffled])}))
    # each word drawn as its own text object at a position, letters of words kept, words of a line interleaved by halves
    inter = b"".join(b.at(*p) for y in sorted(rows, reverse=True) for p in rows[y][::2] + rows[y][1::2])
    gaps = b"".join(b.at(x, y, w) for pg in b.pdf_layout(t["BSD"], gap=8) for x, y, w in pg)
    out.append(Case("order", "pdf-wide-word-gaps", "pdf", "BSD",
                    "the BSD licence drawn in order, its words nine spaces apart", {"exhibit.pdf": b.pdf([gaps])}))
    out.append(Case("order", "pdf-alternate-words", "pdf", "BSD",
                    "the BSD licence; on each line the odd-numbered words are drawn first, then the even ones",
                    {"exhibit.pdf": b.pdf([inter])}))
    return out


# -- look-alike ---------------------------------------------------------------------------------

def _marks(text: str, mark: str) -> str:
    return "".join(ch + mark if ch.isalpha() else ch for ch in text)


def _letter_spaced(text: str, between: str = " ", gap: str = "   ") -> str:
    return "\n\n".join(gap.join(between.join(w) for w in p.split(" ")) for p in b.paragraphs(text))


SMALL_CAPS = dict(zip("abcdefghijklmnopqrstuvwxyz",
                      "\u1d00\u0299\u1d04\u1d05\u1d07\ua730\u0262\u029c\u026a\u1d0a\u1d0b\u029f\u1d0d\u0274\u1d0f\u1d18"
                      "\ua7af\u0280\ua731\u1d1b\u1d1c\u1d20\u1d21x\u028f\u1d22", strict=True))
GREEK = str.maketrans({"A": "\u0391", "B": "\u0392", "E": "\u0395", "H": "\u0397", "I": "\u0399", "K": "\u039a", "M": "\u039c",
                       "N": "\u039d", "O": "\u039f", "P": "\u03a1", "T": "\u03a4", "X": "\u03a7", "Y": "\u03a5", "Z": "\u0396",
                       "o": "\u03bf", "v": "\u03bd", "i": "\u03b9"})

def look_alike(t: Texts) -> list[Case]:
    out = []

    def add(name: str, key: str, fmt: str, data: bytes, how: str) -> None:
        out.append(Case("look-alike", f"{fmt}-{name}", fmt, key, f"the {key} text, {how}", {f"exhibit.{fmt}": data}))

    add("underline-u0332", "lease", "txt", _marks(t["lease"], "\u0332").encode(), "every letter underlined by U+0332")
    add("acute-u0301", "BSD", "html", page(b.html_paras(_marks(t["BSD"], "\u0301"))), "an acute accent on every letter")
    add("dot-below", "Artistic", "docx", b.docx(b.docx_paras(_marks(t["Artistic"], "\u0323"))), "a dot below every letter")
    add("strikethrough-u0336", "BSD", "txt", _marks(t["BSD"], "\u0336").encode(), "every letter struck through by U+0336")
    add("letter-spaced", "lease", "txt", _letter_spaced(t["lease"]).encode(), "letter-spaced (one space between letters, three between words)")
    add("letter-spaced-2", "BSD", "txt", _letter_spaced(t["BSD"], " ", "  ").encode(), "letter-spaced (one space between letters, two between words)")
    add("letter-spaced-nbsp", "BSD", "html", page("".join(
        f"<p>{'&nbsp;&nbsp;&nbsp;'.join(' '.join(esc(ch) for ch in w) for w in p.split(' '))}</p>" for p in b.paragraphs(t["BSD"]))),
        "letter-spaced: spaces between letters, three no-break spaces between words")
    add("letter-spans-margin", "Artistic", "html", page("".join(
        "<p>" + "".join("<span style='margin-right:0.9em'>" + " ".join(esc(ch) for ch in w) + "</span>" for w in p.split(" ")) + "</p>"
        for p in b.paragraphs(t["Artistic"]))),
        "letter-spaced: one space between letters, word gaps made by CSS margins")
    add("letter-cells", "BSD", "html", page("".join(
        "<table style='border-collapse:collapse'><tr>" + "".join(
            f"<td style='padding:0'>{esc(ch) if ch != ' ' else '&nbsp;&nbsp;'}</td>" for ch in line) + "</tr></table>"
        for line in _lines(t["BSD"], 9))), "one letter per table cell")
    add("small-capitals", "BSD", "html", page(b.html_paras("".join(SMALL_CAPS.get(ch, ch) for ch in t["BSD"]))),
        "in small capital letters (U+1D00 block) instead of lower case")
    add("greek-look-alikes", "CC0-1.0", "txt", t["CC0-1.0"].translate(GREEK).encode(), "Greek letters for their Latin look-alikes")
    add("math-bold", "BSD", "txt", "".join(chr(0x1D400 + ord(c) - 65) if "A" <= c <= "Z" else chr(0x1D41A + ord(c) - 97)
                                         if "a" <= c <= "z" else c for c in t["BSD"]).encode(), "in mathematical bold letters")
    add("braille-blank-spaces", "BSD", "html", page(b.html_paras(t["BSD"]).replace(" ", "\u2800")),
        "its spaces replaced by U+2800 BRAILLE PATTERN BLANK")
    add("soft-hyphens", "Artistic", "html", page(b.html_paras("".join(c + "&shy;" if c.isalpha() else c for c in t["Artistic"])).replace("&amp;shy;", "&shy;")),
        "a soft hyphen after every letter")
    add("tag-characters", "BSD", "txt", "".join(c + ("\U000e0041" if c.isalpha() else "") for c in t["BSD"]).encode(),
        "an invisible tag character after every letter")
    add("variation-selectors", "BSD", "docx", b.docx(b.docx_paras("".join(c + ("\ufe0f" if c.isalpha() else "") for c in t["BSD"]))),
        "a variation selector after every letter")
    letters = "abcdefghijklmnopqrstuvwxyz"
    shuffled = list(letters)
    random.Random(3).shuffle(shuffled)
    perm = {ord(a): s for a, s in zip(letters, shuffled, strict=True)} | {ord(a.upper()): s.upper() for a, s in zip(letters, shuffled, strict=True)}
    base = b.first_object(len(b.pdf_text_ops(t["Artistic"])))
    out.append(Case("look-alike", "pdf-permuted-tounicode", "pdf", "Artistic",
                    "the Artistic licence in Courier; the font's ToUnicode map is a permutation of the letters",
                    {"exhibit.pdf": b.pdf(b.pdf_text_ops(t["Artistic"]), font_extra=b" /ToUnicode %d 0 R" % base,
                                          objects=[b.to_unicode(perm)])}))
    cyr = {ord("a"): "\u0430", ord("e"): "\u0435", ord("o"): "\u043e", ord("p"): "\u0440", ord("c"): "\u0441", ord("x"): "\u0445"}
    base = b.first_object(len(b.pdf_text_ops(t["BSD"])))
    widths = b" /FirstChar 32 /LastChar 255 /Widths [%s]" % b" ".join([b"600"] * 224)
    out.append(Case("look-alike", "pdf-cyrillic-tounicode", "pdf", "BSD",
                    "the BSD licence in a monospaced font (widths given); its ToUnicode maps a, e, o, p, c, x to their Cyrillic look-alikes",
                    {"exhibit.pdf": b.pdf(b.pdf_text_ops(t["BSD"]), font_extra=widths + b" /ToUnicode %d 0 R" % base,
                                          objects=[b.to_unicode(cyr)], basefont=b"LetterGothicMono")}))
    out.append(Case("look-alike", "pdf-cyrillic-tounicode-no-widths", "pdf", "BSD",
                    "the BSD licence in standard Courier (no /Widths); the font's ToUnicode maps a, e, o, p, c, x to Cyrillic look-alikes",
                    {"exhibit.pdf": b.pdf(b.pdf_text_ops(t["BSD"]), font_extra=b" /ToUnicode %d 0 R" % base, objects=[b.to_unicode(cyr)])},
                    note="pdfminer gives the remapped glyphs zero width, so its layout falls apart; a viewer draws them 600 units wide"))
    spaced, x, y = [], b.LEFT, b.TOP
    for w in " ".join(b.paragraphs(t["BSD"])).split(" "):
        width = len(w) * (b.ADV + 3) + 3 * b.ADV
        if x + width > b.RIGHT + 40:
            x, y = b.LEFT, y - b.LEAD
        if y < b.BOTTOM:
            break
        spaced.append(b"BT /F1 10 Tf 3 Tc 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n" % (x, y, b.pdf_esc(w)))
        x += width
    out.append(Case("look-alike", "pdf-character-spacing", "pdf", "BSD",
                    "the BSD licence drawn letter-spaced (3 pt character spacing, words three spaces apart)",
                    {"exhibit.pdf": b.pdf([b"".join(spaced)])}))
    return out


# -- content sniffing ---------------------------------------------------------------------------

def sniffing(t: Texts) -> list[Case]:
    out = []

    def add(name: str, key: str, fname: str, data: bytes, how: str) -> None:
        out.append(Case("sniffing", name, fname.rsplit(".", 1)[1], key,
                        f"a text file {fname} showing {how}", {fname: data}))

    c = t["lease"]
    add("txt-html-style", "lease", "exhibit.txt", f"<html>\n<p>{decoy('txt-html-style')}</p>\n<style>\n{c}".encode(),
        "the lease after an <html> line, a note and an unclosed <style> line")
    add("md-comment", "BSD", "exhibit.md", f"<p>{decoy('md-comment')}</p>\n\n<!--\n{t['BSD']}".encode(),
        "the BSD licence after a <p> note and an unclosed <!-- line")
    add("txt-title", "Artistic", "exhibit.txt", f"<p>{decoy('txt-title')}</p>\n<title>\n{t['Artistic']}".encode(),
        "the Artistic licence after a <p> note and an unclosed <title> line")
    add("txt-script", "credit", "exhibit.txt", f"<html><body>\n<p>{decoy('txt-script')}</p>\n<script>\n{t['credit']}".encode(),
        "the credit agreement after an <html><body> line and an unclosed <script> line")
    add("txt-head", "BSD", "exhibit.txt", f"<head>\n{t['BSD']}\n</head>\n<body><p>{decoy('txt-head')}</p></body>".encode(),
        "the BSD licence between <head> and </head> lines")
    add("txt-doctype-comment", "BSD", "exhibit.txt", f"<!DOCTYPE html>\n<p>{decoy('txt-doctype-comment')}</p>\n<!-- {t['BSD']} -->".encode(),
        "the BSD licence inside <!-- --> after a DOCTYPE line")
    add("log-style", "BSD", "exhibit.log", f"<div>{decoy('log-style')}</div>\n<style>\n{t['BSD']}\n</style>".encode(),
        "the BSD licence between <style> lines")
    add("txt-utf16-html", "BSD", "exhibit.txt", f"<html>\n<p>{decoy('txt-utf16-html')}</p>\n<style>\n{t['BSD']}".encode("utf-16"),
        "(UTF-16 with a BOM) the BSD licence after an unclosed <style> line")
    return out


# -- EDGAR: outside the documents, and parts carrying disguises ------------------------------------

def _cover(seed: int) -> str:
    return f"<html><body><p>{esc(decoy(seed, 60))}</p></body></html>"


def edgar_outside(t: Texts) -> list[Case]:
    out = []
    press = [{"type": "8-K", "filename": "form8k.htm", "text": _cover(5)},
             {"type": "EX-99.1", "filename": "ex99.htm", "text": _cover(6)}]
    base = b.submission(press)
    c = {"header": "BSD", "between": "Artistic", "after-last": "lease", "before-text": "BSD", "early-end": "credit",
         "after-text-before-document-end": "BSD", "description": "BSD", "after-envelope": "Artistic", "header-value": "BSD",
         "pem-preamble": "BSD", "tagged-header": "BSD", "nc-line-ends": "BSD", "split-header-between": "lease"}

    def make(where: str, text: str) -> bytes:
        data = base
        if where == "header":
            return data.replace(b"</SEC-HEADER>", text.encode() + b"\n</SEC-HEADER>")
        if where == "between":
            return data.replace(b"</DOCUMENT>\n<DOCUMENT>", b"</DOCUMENT>\n" + text.encode() + b"\n<DOCUMENT>")
        if where == "after-last":
            return data.replace(b"</SEC-DOCUMENT>", text.encode() + b"\n</SEC-DOCUMENT>")
        if where == "before-text":
            return data.replace(b"<TEXT>", text.encode() + b"\n<TEXT>", 1)
        if where == "early-end":
            return data.replace(b"<TEXT>\n", b"<TEXT>\n<p>Short.</p>\n</DOCUMENT>\n" + text.encode() + b"\n", 1)
        if where == "after-text-before-document-end":
            return data.replace(b"</TEXT>\n</DOCUMENT>", b"</TEXT>\n" + text.encode() + b"\n</DOCUMENT>", 1)
        if where == "description":
            return data.replace(b"<FILENAME>ex99.htm\n", b"<FILENAME>ex99.htm\n<DESCRIPTION>" + " ".join(text.split()).encode() + b"\n")
        if where == "after-envelope":
            return data + text.encode() + b"\n"
        if where == "header-value":
            return data.replace(b"FILER:\n", b"FORMER NAME:\t\t" + " ".join(text.split()).encode() + b"\nFILER:\n")
        if where == "pem-preamble":
            return (b"-----BEGIN PRIVACY-ENHANCED MESSAGE-----\nProc-Type: 2001,MIC-CLEAR\n" + text.encode()
                    + b"\n\n" + data + b"-----END PRIVACY-ENHANCED MESSAGE-----\n")
        if where == "tagged-header":
            sub = b.submission(press, style="submission")
            return sub.replace(b"</FILER>\n", b"</FILER>\n" + text.encode() + b"\n")
        if where == "nc-line-ends":
            return data.replace(b"</DOCUMENT>\n<DOCUMENT>", b"</DOCUMENT>\n" + text.encode() + b"\n<DOCUMENT>").replace(b"\n", b"\r")
        if where == "split-header-between":
            paras = b.paragraphs(text)
            half = len(paras) // 2
            first, second = "\n\n".join(paras[:half]), "\n\n".join(paras[half:])
            return (data.replace(b"</SEC-HEADER>", first.encode() + b"\n</SEC-HEADER>")
                    .replace(b"</DOCUMENT>\n<DOCUMENT>", b"</DOCUMENT>\n" + second.encode() + b"\n<DOCUMENT>"))
        raise ValueError(where)

    for where, key in c.items():
        out.append(Case("edgar-outside", where, "edgar", key,
                        f"the submission file (as text) holds the {key} text {where.replace('-', ' ')}; its documents are short press releases",
                        {"0000950170-24-012345.txt": make(where, t[key])}))
    return out


def edgar_parts(t: Texts) -> list[Case]:
    out = []
    cover = {"type": "8-K", "filename": "form8k.htm", "text": _cover(7)}

    def add(name: str, key: str, doc: dict, how: str, view: View) -> None:
        out.append(Case("edgar-part", name, "edgar", key, f"exhibit EX-10.1 shows the {key} text: {how}",
                        {"0000950170-24-054321.txt": b.submission([cover, {"type": "EX-10.1", **doc}],
                                                                 {"accession_number": "0000950170-24-054321"})}, views=[view]))

    h = page(b.html_junk(t["Artistic"], _cls), "<style>.j{display:none}</style>")
    add("html-class-hidden-junk", "Artistic", {"filename": "ex10.htm", "text": h}, "HTML, junk hidden by a CSS class",
        View("ex10.htm", "html", h))
    h = page(f"<p>{esc(decoy(8))}</p>" + "".join(f"<p><img src='x{i}.gif' alt='{esc(p)}'></p>" for i, p in enumerate(b.paragraphs(t["BSD"]))))
    add("html-alt-text", "BSD", {"filename": "ex10.htm", "text": h}, "HTML, the text in alt of broken images", View("ex10.htm", "html", h))
    h = page(b.html_junk(t["BSD"], lambda j: f"<font style='font-size:0'>{j}</font>"))
    add("html-font-size-0", "BSD", {"filename": "ex10.htm", "text": h}, "HTML, junk in font-size:0", View("ex10.htm", "html", h))
    d = b.docx(b.docx_junk(t["lease"], lambda j: b.run(j, "<w:vanish/>")))
    add("docx-vanish", "lease", {"filename": "ex10.docx", "data": d}, "a uuencoded .docx, junk in w:vanish runs",
        View("ex10.docx", "docx", d))
    d = b.docx(b.docx_paras(t["BSD"]), main="word/main.xml", decoy_main=b.para(b.run(decoy(9))))
    add("docx-decoy-part", "BSD", {"filename": "ex10.docx", "data": d}, "a uuencoded .docx whose main part is not word/document.xml",
        View("ex10.docx", "docx", d))
    p = b.pdf(b.pdf_junk_ops(t["BSD"], lambda x, y, j: b"1 g " + b.at(x, y, j) + b"0 g\n"))
    add("pdf-white-junk", "BSD", {"filename": "ex10.pdf", "data": p}, "a PDF, junk in white", View("ex10.pdf", "pdf", p))
    base = b.first_object(1)
    p = b.pdf([b.at(50, 770, "Exhibit 10.1")], objects=[_appearance(t["BSD"]), b"<< /Type /Annot /Subtype /FreeText /Rect [0 0 612 792] "
              b"/F 4 /AP << /N %d 0 R >> >>" % base], annots=[[1]])
    add("pdf-freetext", "BSD", {"filename": "ex10.pdf", "data": p}, "a PDF, the text in a FreeText annotation", View("ex10.pdf", "pdf", p))
    inner = page(b.html_junk(t["BSD"], lambda j: f"<span hidden>{j}</span>"))
    z = b.zip_bytes([("ex10.htm", inner)])
    add("zip-of-html-hidden-junk", "BSD", {"filename": "ex10.zip", "data": z}, "a uuencoded zip of an HTML page, junk hidden by the hidden attribute",
        View("ex10.htm", "html", inner))
    txt = f"<html>\n<p>{decoy(10)}</p>\n<style>\n{t['BSD']}"
    add("text-part-sniffed", "BSD", {"filename": "ex10.txt", "text": txt}, "a .txt part (served as text/plain) whose unclosed <style> line holds it",
        View("ex10.txt", "text", txt.encode()))
    g = gzip.compress(page(b.html_junk(t["BSD"], lambda j: f"<span style='display:none'>{j}</span>")), mtime=0)
    add("gz-of-html", "BSD", {"filename": "ex10.htm.gz", "data": g}, "a uuencoded gzip of an HTML page, junk in inline display:none",
        View("ex10.htm", "html", gzip.decompress(g)))
    return out


# -- EDGAR parts that are data, not prose ----------------------------------------------------------

def edgar_data_parts(t: Texts) -> list[Case]:
    """A modern 8-K (tests/support/edgar_modern.py) whose data part holds the stored contract where
    such a part holds words: a gate reads the part as data (extract/data.py) and must find it."""
    import base64

    from tests.support import edgar_modern as em

    out = []
    how = {"label": "a documentation label of the XBRL label linkbase (EX-101.LAB)",
           "text-block": "a text block of the XBRL instance, as escaped HTML",
           "viewer": "a page of the SEC's XBRL viewer (R2.htm)", "json": "a string of MetaLinks.json",
           "script": "string literals of the viewer's Show.js", "style": "a comment of the viewer's report.css",
           "xlsx": "the cells of Financial_Report.xlsx, a paragraph a row",
           "zip": "a label linkbase inside the XBRL zip", "picture": "a GRAPHIC: a picture of the contract's page"}
    for i, (kind, seq) in enumerate(em.KINDS.items()):
        acc = f"0000950170-24-0{57100 + i}"
        sub = em.submission(40 + i, {kind: t["BSD"]}, accession=acc)
        name, payload = em.part(sub, seq)
        if kind == "picture":
            view = View(name + ".html", "html", b"<html><body><img src='data:image/jpeg;base64,"
                        + base64.b64encode(payload) + b"'></body></html>")
        elif kind == "viewer":
            view = View(name, "html", payload)
        elif kind == "xlsx":
            view = View(name, "office", payload)
        elif kind == "zip":
            view = View("acme-notes_lab.xml", "text", em._labels(t["BSD"]).encode())
        else:
            view = View(name, "text", payload)
        out.append(Case("edgar-part", f"data-{kind}", "edgar", "BSD",
                        f"a data part EDGAR shows holds the BSD licence: {how[kind]}", {f"{acc}.txt": sub},
                        views=[view]))
    return out


# -- containers the tool does not read -------------------------------------------------------------

def containers(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    rtf = ("{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}\\f0\\fs22 "
           + "\\par\\par ".join(p.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}") for p in b.paragraphs(c)) + "}")
    out.append(Case("container", "rtf", "rtf", "BSD", "the BSD licence in an RTF file (Word and LibreOffice open it)",
                    {"exhibit.rtf": rtf.encode()}))
    out.append(Case("container", "zip", "zip", "BSD", "a zip holding the BSD licence as exhibit.txt",
                    {"exhibit.zip": b.zip_bytes([("exhibit.txt", c)])}))
    content = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text>'
               + "".join(f"<text:p>{esc(p)}</text:p>" for p in b.paragraphs(c)) + "</office:text></office:body></office:document-content>")
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
                'manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>')
    odt = b.zip_bytes([("mimetype", "application/vnd.oasis.opendocument.text"), ("content.xml", content), ("META-INF/manifest.xml", manifest)])
    out.append(Case("container", "odt", "odt", "BSD", "the BSD licence in an OpenDocument text (.odt)", {"exhibit.odt": odt},
                    views=[View("exhibit.odt", "docx", odt)]))
    gz = gzip.compress(c.encode(), mtime=0)
    out.append(Case("container", "gzip", "gz", "BSD", "a gzip of the BSD licence as text", {"exhibit.txt.gz": gz}))
    return out


# -- damaged index --------------------------------------------------------------------------------

def damaged(t: Texts) -> list[Case]:
    from tests.support import synth

    copy = synth.partial(t["Apache-2.0"], 0.98, 1)
    out = []
    for damage, how in [("zero-sampled", "the stored Apache-2.0 licence's sampled hashes zeroed in the store file (sqlite3)"),
                        ("empty-sampled", "the stored Apache-2.0 licence's sampled hashes deleted (n_sampled 0, sqlite3)"),
                        ("other-sampled", "the stored Apache-2.0 licence's sampled hashes replaced by another document's (sqlite3)"),
                        ("zero-sampled-via-store", "the stored Apache-2.0 licence's sampled hashes zeroed through the "
                                                   "store's own API (logged by custody as a write)")]:
        out.append(Case("damaged-index", damage, "txt", "Apache-2.0", f"a 98% copy of the Apache-2.0 licence; {how}",
                        {"apache-copy.txt": copy.encode()}, damage=damage))
    return out


# -- clean batches --------------------------------------------------------------------------------

def clean(t: Texts) -> list[Case]:
    from tests.support import synth

    out = []
    other = synth.contract(8801, 7_000, kind="distribution")
    out.append(Case("clean", "txt-unrelated-contract", "txt", None, "an unrelated distribution agreement",
                    {"distribution.txt": other.encode()}))
    nav = "<nav class='menu' hidden><a href='#a'>Home</a> <a href='#b'>Filings</a></nav>"
    out.append(Case("clean", "html-ordinary-page", "html", None,
                    "an unrelated agreement on a styled page with a hidden menu, a right-to-left Hebrew line and a letter-spaced heading",
                    {"agreement.html": page(nav + "<h1 style='letter-spacing:0.3em'>A G R E E M E N T</h1>"
                                            + b.html_paras(synth.contract(8802, 6_000, kind="employment"))
                                            + "<p dir='rtl'>\u05d4\u05e1\u05db\u05dd \u05d6\u05d4 \u05e0\u05d7\u05ea\u05dd</p>",
                                            "<style>.menu{display:none} h1{font-size:18pt}</style>")}))
    body = (b.docx_paras(synth.contract(8803, 5_000, kind="purchase"))
            + b.para('<w:del w:id="1" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r><w:delText xml:space="preserve">an old clause '
                     'that was struck</w:delText></w:r></w:del>' + b.run("A new clause.", "") + b.run("draft note", "<w:vanish/>")))
    out.append(Case("clean", "docx-with-changes", "docx", None, "an unrelated purchase agreement with a tracked deletion and a hidden note",
                    {"purchase.docx": b.docx(body)}))
    out.append(Case("clean", "pdf-unrelated", "pdf", None, "an unrelated security agreement in a plain PDF",
                    {"security.pdf": b.pdf(b.pdf_text_ops(synth.contract(8804, 6_000, kind="security")))}))
    sub = b.submission([{"type": "8-K", "filename": "form8k.htm", "text": _cover(11)},
                        {"type": "EX-10.1", "filename": "ex10.htm", "text": page(b.html_paras(synth.contract(8805, 6_000, kind="settlement"))).decode()}],
                       {"accession_number": "0000950170-24-099999"})
    out.append(Case("clean", "edgar-unrelated", "edgar", None, "an unrelated 8-K with a settlement agreement as EX-10.1",
                    {"0000950170-24-099999.txt": sub}))
    from tests.support import edgar_modern

    out.append(Case("clean", "edgar-modern-8k", "edgar", None,
                    "an unrelated modern 8-K: inline XBRL, a logo, XBRL linkbases and instance, viewer pages, "
                    "MetaLinks.json, Show.js, report.css, Financial_Report.xlsx, the XBRL zip",
                    {"0000950170-24-099998.txt": edgar_modern.submission(8806, accession="0000950170-24-099998")}))
    for key in ("MPL-1.1", "GPL-2"):
        if key in t:
            out.append(Case("clean", f"others-{key}", "html", None,
                            f"the {key} licence (written by others, not in the corpus) as an HTML page",
                            {f"{key}.html": page(b.html_paras(t[key]))}))
    return out


BUILDERS: dict[str, tuple[Callable[[Texts], list[Case]], ...]] = {
    "hidden-junk": (hidden_junk_html, hidden_junk_docx, hidden_junk_pdf),
    "visible-not-read": (visible_html, visible_docx, visible_pdf),
    "order": (order_cases,),
    "look-alike": (look_alike,),
    "sniffing": (sniffing,),
    "edgar-outside": (edgar_outside,),
    "edgar-part": (edgar_parts, edgar_data_parts),
    "container": (containers,),
    "damaged-index": (damaged,),
    "clean": (clean,),
}


#: The catalogue modules of the later rounds: the mark their case names carry, the module, and the
#: name of its tuple of builders. One round may have several modules (round 5: web formats, paged).
ROUND_MODULES: tuple[tuple[str, str, str], ...] = (
    ("/r3-", "tests.support.redteam_round3", "BUILDERS3"),
    ("/r4-", "tests.support.redteam_round4", "BUILDERS4"),
    ("/r5-", "tests.support.redteam_round5_web", "BUILDERS5_WEB"),
    ("/r5-", "tests.support.redteam_round5_paged", "BUILDERS5"),
    ("/r6-", "tests.support.redteam_round6", "BUILDERS6"),
    ("/r7-", "tests.support.redteam_round7", "BUILDERS7"),
)


def later_builders(mark: str | None = None) -> list[Callable[[Texts], list[Case]]]:
    """The builders of the later rounds' modules (those whose case names carry ``mark``, or all)."""
    import importlib

    return [build for m, module, name in ROUND_MODULES if mark is None or m == mark
            for build in getattr(importlib.import_module(module), name)]


def all_cases(texts: Texts) -> list[Case]:
    out = [c for builders in BUILDERS.values() for build in builders for c in build(texts)]
    out += [c for build in later_builders() for c in build(texts)]
    ids = [c.id for c in out]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    assert not set(ids) & set(DROPPED), "a dropped case is built"
    for c in out:
        c.by_eye = BY_EYE.get(c.id, "")
    return out


def build(case_ids: list[str], texts: Texts) -> dict[str, Case]:
    """The named cases only (each builder of their families runs once)."""
    out: dict[str, Case] = {}
    marks = sorted({m for m, _, _ in ROUND_MODULES})
    for family in sorted({i.split("/")[0] for i in case_ids if not any(r in i for r in marks)}):
        for builder in BUILDERS[family]:
            out.update((c.id, c) for c in builder(texts) if c.id in case_ids)
    for mark in marks:
        if any(mark in i for i in case_ids):
            for builder in later_builders(mark):
                out.update((c.id, c) for c in builder(texts) if c.id in case_ids)
    missing = sorted(set(case_ids) - set(out))
    if missing:
        raise KeyError(f"no such cases: {missing}")
    return {i: out[i] for i in case_ids}
