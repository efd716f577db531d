"""The allow-lists of the flat ODF / .odt, Word 2003 XML and RTF readers (issue #40).

Positive: a construct outside a reader's model is named in ``Extracted.unmodelled``, and a
gate fails the document closed (CONTAIN006, the construct in the finding). Negative: ordinary
documents hold none: hand-written minimal files as LibreOffice and Word write them (quick), and
licence texts others wrote converted by LibreOffice (slow).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from auditor.extract import extract_bytes
from tests.support import redteam_round3 as r3
from tests.support.realtext import licence

WORDS = " ".join(licence("BSD").split())


def esc(t: str) -> str:
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# -- flat ODF --------------------------------------------------------------------------------------

def fodt(body: str, styles: str = "", decls: str = "") -> bytes:
    return r3.fodt(f"<text:p>{esc(WORDS[:400])}</text:p>{body}<text:p>{esc(WORDS[400:])}</text:p>", styles, decls)


FRAMES = "".join(
    f'<draw:frame text:anchor-type="paragraph" svg:y="{(i * 7 % 12) * 0.6:.1f}cm" svg:width="17cm" svg:height="0.6cm">'
    f"<draw:text-box><text:p>line {i}</text:p></draw:text-box></draw:frame>" for i in range(12))
ODF_OUTSIDE = {
    "text scale": ('<text:p>a <text:span text:style-name="J">junk</text:span> b</text:p>',
                   '<style:style style:name="J" style:family="text"><style:text-properties style:text-scale="1%"/>'
                   "</style:style>", "", "fodt: text squeezed to 1% of its width (style:text-scale)"),
    "user field": ('<text:p><text:user-field-get text:name="p0">decoy words</text:user-field-get></text:p>', "",
                   '<text:user-field-decls><text:user-field-decl office:value-type="string" office:string-value="the '
                   'licence" text:name="p0"/></text:user-field-decls>',
                   "fodt: field <text:user-field-get> whose declared value is not its text"),
    "shuffled frames": (f"<text:p>{FRAMES}</text:p>", r3._FRAME_STYLE, "",
                        "fodt: 12 text frames placed by position (anchored to the page, or stored out of their order "
                        "down the page): the reader cannot tell their order"),
    "variable": ('<text:p><text:variable-get text:name="v">x</text:variable-get></text:p>', "", "",
                 "fodt: element <text:variable-get>"),
    "rotated": ('<text:p text:style-name="R">a</text:p>', '<style:style style:name="R" style:family="paragraph">'
                '<style:text-properties style:text-rotation-angle="180"/></style:style>', "",
                "fodt: text rotated (style:text-rotation-angle 180)"),
    "transparent": ('<text:p text:style-name="T">a</text:p>', '<style:style style:name="T" style:family="paragraph">'
                    '<style:text-properties fo:color="#000000" loext:opacity="0%" xmlns:loext="urn:org:documentfoundation'
                    ':names:experimental:office:xmlns:loext:1.0"/></style:style>', "",
                    "fodt: transparent text (loext:opacity 0%)"),
    "unknown property": ('<text:p text:style-name="U">a</text:p>', '<style:style style:name="U" style:family="paragraph">'
                         '<style:text-properties style:new-thing="1"/></style:style>', "",
                         "fodt: text property style:new-thing"),
    "text in a picture": ('<text:p><draw:frame text:anchor-type="as-char"><draw:image><text:p>junk</text:p></draw:image>'
                          "</draw:frame></text:p>", "", "",
                          "fodt: text inside a picture (draw:image): a fallback no word processor draws"),
    "conditional style": ('<text:p text:style-name="M">a</text:p>', '<style:style style:name="M" style:family="paragraph">'
                          '<style:map style:condition="outline-level()=1" style:apply-style-name="Hidden"/></style:style>',
                          "", "fodt: conditional style (style:map): the reader does not evaluate its condition"),
    "colour of a cell": ('<text:p text:style-name="C">a</text:p>', '<style:style style:name="C" style:family="paragraph">'
                         '<style:paragraph-properties fo:background-color="#336699"/><style:text-properties '
                         'fo:color="#336699"/></style:style>', "",
                         "fodt: text coloured #336699 where a paragraph, cell or page background is #336699: the reader "
                         "compares a run's colour with its own background only"),
}


@pytest.mark.parametrize("case", sorted(ODF_OUTSIDE))
def test_odf_outside_the_model_is_named(case):
    body, styles, decls, construct = ODF_OUTSIDE[case]
    assert construct in extract_bytes(fodt(body, styles, decls), "x.fodt").unmodelled


def test_odf_macros_run_on_opening_are_outside_the_model():
    script = ('<office:scripts><office:event-listeners><script:event-listener xmlns:script="urn:oasis:names:tc:'
              'opendocument:xmlns:script:1.0" script:language="ooo:script" script:event-name="office:load-finished" '
              'script:macro-name="vnd.sun.star.script:Standard.Module1.Rewrite?language=Basic&amp;location=document"/>'
              "</office:event-listeners></office:scripts>")
    data = fodt("").replace(b"<office:automatic-styles>", script.encode() + b"<office:automatic-styles>")
    assert "fodt: macro run on office:load-finished (script:event-listener)" in extract_bytes(data, "x.fodt").unmodelled
    # LibreOffice's templates name listeners that run nothing, and a handler for new documents
    quiet = script.replace(' script:macro-name="vnd.sun.star.script:Standard.Module1.Rewrite?language=Basic&amp;'
                           'location=document"', "")
    data = fodt("").replace(b"<office:automatic-styles>", quiet.encode() + b"<office:automatic-styles>")
    assert extract_bytes(data, "x.fodt").unmodelled == []


def test_odf_as_a_word_processor_writes_it_stays_inside_the_model():
    # fields as LibreOffice's templates hold them: a user field with its declared value, a sender
    # field with a name cached, a fixed date, a page number, a title that is the document's
    decls = ('<text:user-field-decls><text:user-field-decl office:value-type="string" office:string-value="Acme" '
             'text:name="Company"/></text:user-field-decls>')
    body = ('<text:p><text:user-field-get text:name="Company">Acme</text:user-field-get> <text:sender-firstname>'
            'pista</text:sender-firstname> <text:date text:fixed="true">December 2, 2026</text:date> '
            "<text:page-number>1</text:page-number> <text:span>SOFT</text:span>WARE<text:s/>"
            '<text:bookmark-start text:name="b"/>Terms<text:bookmark-end text:name="b"/> '
            '<text:bookmark-ref text:reference-format="text" text:ref-name="b">Terms</text:bookmark-ref></text:p>'
            '<text:p><draw:frame text:anchor-type="as-char"><draw:image/></draw:frame></text:p>'
            '<table:table xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><table:table-column/>'
            "<table:table-row><table:table-cell><text:p>cell</text:p></table:table-cell></table:table-row></table:table>"
            "<text:list><text:list-item><text:p>item</text:p></text:list-item></text:list>")
    styles = ('<style:style style:name="P" style:family="paragraph"><style:paragraph-properties fo:margin-top="0in" '
              'fo:text-align="center" style:writing-mode="lr-tb"/><style:text-properties fo:font-size="12pt" '
              'fo:font-weight="bold" style:font-name="Liberation Serif" style:text-position="super 58%" '
              'style:use-window-font-color="true" loext:opacity="0%" xmlns:loext="urn:org:documentfoundation:names:'
              'experimental:office:xmlns:loext:1.0"/></style:style>')
    assert extract_bytes(fodt(body, styles, decls), "x.fodt").unmodelled == []


def test_odf_headers_and_footers_are_read():
    styles = '<style:style style:name="P" style:family="paragraph"/>'
    data = r3.fodt(f"<text:p>{esc(WORDS)}</text:p>", styles).replace(
        b"</office:automatic-styles>", b'</office:automatic-styles><office:master-styles><style:master-page '
        b'style:name="Standard"><style:header><text:p>The header line</text:p></style:header></style:master-page>'
        b"</office:master-styles>")
    ex = extract_bytes(data, "x.fodt")
    assert ex.text.endswith("The header line") and ex.unmodelled == []


# -- Word 2003 XML -------------------------------------------------------------------------------

WML = "http://schemas.microsoft.com/office/word/2003/wordml"


def wordml(paragraphs: str, fonts: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<?mso-application progid="Word.Document"?>\n'
            f'<w:wordDocument xmlns:w="{WML}" xmlns:wx="http://schemas.microsoft.com/office/word/2003/auxHint" '
            'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:aml="http://schemas.microsoft.com/aml/2001/core" '
            'xmlns:o="urn:schemas-microsoft-com:office:office" w:macrosPresent="no" xml:space="preserve">'
            f"<o:DocumentProperties><o:Title>t</o:Title></o:DocumentProperties><w:fonts>{fonts}</w:fonts>"
            f"<w:styles/><w:body><wx:sect><w:p><w:r><w:t>{esc(WORDS)}</w:t></w:r></w:p>{paragraphs}"
            "<w:sectPr><w:hdr w:type=\"odd\"><w:p><w:r><w:t>Header words</w:t></w:r></w:p></w:hdr></w:sectPr>"
            "</wx:sect></w:body></w:wordDocument>").encode()


def wrun(text: str, rpr: str = "") -> str:
    return f"<w:p><w:r><w:rPr>{rpr}</w:rPr><w:t>{esc(text)}</w:t></w:r></w:p>"


BOX = ('<w:p><w:r><w:pict><v:shape style="position:absolute;margin-top:{y}pt;width:400pt;height:12pt">'
       "<v:textbox><w:txbxContent><w:p><w:r><w:t>line {i}</w:t></w:r></w:p></w:txbxContent></v:textbox>"
       "</v:shape></w:pict></w:r></w:p>")


@pytest.mark.parametrize(("paragraphs", "fonts", "construct"), [
    (wrun("junk", '<w:w w:val="1"/>'), "", "wordml: run squeezed to 1% of its width (w:w)"),
    (wrun("junk", "<w:newThing/>"), "", "wordml: run property w:newThing"),
    ('<w:p><w:r><w:sym w:font="Wingdings" w:char="F04A"/></w:r></w:p>', "", "wordml: element <w:sym>"),
    (wrun("up", '<w:position w:val="-200"/>'), "", "wordml: run lifted or lowered by more than 12 points (w:position)"),
    ("", '<w:font w:name="X"><w:embedRegular>AAAA</w:embedRegular></w:font>',
     "wordml: embedded font (w:embedRegular): it may draw other letters than the text holds"),
    ("".join(BOX.format(y=(i * 7 % 12) * 14, i=i) for i in range(12)), "",
     "wordml: 12 text boxes or frames placed by position: the reader cannot tell their order"),
])
def test_wordml_outside_the_model_is_named(paragraphs, fonts, construct):
    assert construct in extract_bytes(wordml(paragraphs, fonts), "x.xml").unmodelled


def test_wordml_as_word_writes_it_stays_inside_the_model():
    paragraphs = (wrun("bold", "<w:b/><w:b-cs/><w:sz w:val=\"24\"/><w:sz-cs w:val=\"24\"/><wx:font wx:val=\"Arial\"/>"
                       "<w:lang w:val=\"EN-US\"/>")
                  + '<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:listPr><w:ilvl w:val="0"/></w:listPr></w:pPr>'
                  '<w:hlink w:dest="https://example.org"><w:r><w:t>a link</w:t></w:r></w:hlink>'
                  '<aml:annotation w:type="Word.Bookmark.Start" aml:id="0" w:name="b"/><w:r><w:t>text</w:t></w:r>'
                  '<w:fldSimple w:instr=" PAGE "><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p>'
                  '<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="100"/></w:tblGrid>'
                  '<w:tr><w:tc><w:tcPr><w:tcW w:w="100" w:type="dxa"/></w:tcPr><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc>'
                  "</w:tr></w:tbl>")
    fonts = '<w:font w:name="Arial"><w:panose-1 w:val="020B0604020202020204"/><w:charset w:val="00"/></w:font>'
    ex = extract_bytes(wordml(paragraphs, fonts), "x.xml")
    assert ex.unmodelled == [] and ex.text.endswith("Header words")


def test_wordml_comments_are_not_shown():
    p = ('<w:p><w:r><w:t>The lease </w:t></w:r><aml:annotation w:type="Word.Comment" aml:id="1"><aml:content>'
         "<w:p><w:r><w:t>walnut comment</w:t></w:r></w:p></aml:content></aml:annotation><w:r><w:t>stays.</w:t></w:r></w:p>")
    ex = extract_bytes(wordml(p), "x.xml")
    assert "walnut" not in ex.text and any("walnut" in r.text for r in ex.readings)


# -- RTF -----------------------------------------------------------------------------------------

def rtf(body: str, head: str = "") -> bytes:
    return ("{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0\\froman Times New Roman;}}{\\colortbl;\\red0\\green0\\blue0;"
            "\\red51\\green102\\blue153;}" + head + "\\pard\\plain\\f0\\fs24 " + WORDS + "\\par " + body + "}").encode()


@pytest.mark.parametrize(("body", "construct"), [
    ("{\\charscalex1 junk}\\par", "rtf: text squeezed to 1% of its width (\\charscalex)"),
    ("{\\v junk}\\par", "rtf: hidden text or a deletion (\\v)"),
    ("{\\newword junk}\\par", "rtf: control word \\newword"),
    ("{\\*\\newdest junk}\\par", "rtf: destination \\*\\newdest (the reader skips it; a reader may see it)"),
    ("{\\object\\objemb{\\*\\objdata 0102}{\\result junk}}\\par",
     "rtf: destination \\object (the reader skips it; a reader may see it)"),
    ("{\\fs2 junk}\\par", "rtf: text set under 3 pt (\\fs2)"),
    ("{\\up60 junk}\\par", "rtf: text lifted or lowered by more than 12 points (\\up)"),
    ("\\pard\\cbpat2{\\cf2 junk}\\par", "rtf: text coloured \\cf2 (#336699) on a paragraph, cell or page background "
                                       "of that colour: the reader does not place text on its background"),
])
def test_rtf_outside_the_model_is_named(body, construct):
    assert construct in extract_bytes(rtf(body), "x.rtf").unmodelled


def test_rtf_as_word_processors_write_it_stays_inside_the_model():
    head = ("{\\stylesheet{\\s0\\snext0\\f0\\fs24 Normal;}{\\*\\cs10 Default Paragraph Font;}{\\s1\\fs2 Spacer;}}"
            "{\\info{\\title The title}{\\author A}{\\creatim\\yr2020\\mo1\\dy2}}{\\*\\generator LibreOffice}")
    body = ("{\\b bold} {\\i italic} {\\ul under}\\tab tab\\line line\\par"
            "\\trowd\\cellx2000\\intbl cell\\cell\\row\\pard"
            "{\\field{\\*\\fldinst{HYPERLINK \"https://example.org\"}}{\\fldrslt{a link}}}"
            "{\\footnote\\pard\\plain The note.}{\\header\\pard\\plain The header.\\par}"
            "{\\pict\\pngblip\\picw10\\pich10 89504e47}\\fs2\\par")
    ex = extract_bytes(rtf(body, head), "x.rtf")
    assert ex.unmodelled == [] and ex.unreadable is None
    assert ex.text.rstrip().endswith(("The header.", "The note."))


# -- in a gate: not auditable, the construct named --------------------------------------------

def test_a_gate_fails_office_documents_outside_the_model_closed(tmp_path):
    """A real ``auditor gate`` (rendering off: the model alone) fails each format's document
    outside the model as not auditable (CONTAIN006), the construct named."""
    import json

    from tests.gating.test_gate_model import run
    from tests.support import synth

    unrelated = " ".join(synth.contract(9002, 1_500).split())
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "bsd.txt").write_text(licence("BSD"))
    r = run(tmp_path, "ingest", "--db", "c.db", "corpus")
    assert r.returncode == 0, r.stderr
    (tmp_path / "new").mkdir()
    style = '<style:style style:name="J" style:family="text"><style:text-properties style:text-scale="1%"/></style:style>'
    (tmp_path / "new" / "a.fodt").write_bytes(r3.fodt(f'<text:p>{esc(unrelated)} <text:span text:style-name="J">x'
                                                      "</text:span></text:p>", style))
    (tmp_path / "new" / "b.xml").write_bytes(wordml(wrun(unrelated, '<w:w w:val="1"/>')))
    (tmp_path / "new" / "c.rtf").write_bytes(rtf("{\\charscalex1 " + unrelated + "}\\par"))
    r = run(tmp_path, "gate", "--db", "c.db", "--dry-run", "--render", "never", "--out", "out", "new")
    assert r.returncode == 1, r.stdout + r.stderr
    found = [f for f in json.loads((tmp_path / "out" / "gate.json").read_text())["findings"]
             if f["level"] == "error" and "not-modelled" in f["message"]]
    assert {f["rule"] for f in found} == {"CONTAIN006"} and len(found) == 3
    messages = " ".join(f["message"] for f in found)
    for construct in ("fodt: text squeezed to 1% of its width (style:text-scale)",
                      "wordml: run squeezed to 1% of its width (w:w)",
                      "rtf: text squeezed to 1% of its width (\\charscalex)"):
        assert construct in messages


# -- real files: licence texts converted by LibreOffice ----------------------------------------

FILTERS = {"fodt": "fodt", "odt": "odt", "rtf": "rtf", "xml": 'xml:"MS Word 2003 XML"'}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
@pytest.mark.parametrize("ext", sorted(FILTERS))
def test_licences_converted_by_libreoffice_stay_inside_the_model(tmp_path, ext):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("GPL-3.0", "Apache-2.0", "BSD"):
        (src / f"{name}.txt").write_text(licence(name), encoding="utf-8")
    out = tmp_path / "out"
    subprocess.run(["soffice", f"-env:UserInstallation=file://{tmp_path}/profile", "--headless", "--convert-to",
                    FILTERS[ext].replace('"', ""), "--outdir", str(out), *map(str, sorted(src.iterdir()))],
                   check=True, capture_output=True, timeout=600)
    files = sorted(Path(out).iterdir())
    assert len(files) == 3
    for f in files:
        ex = extract_bytes(f.read_bytes(), f.name)
        assert ex.unmodelled == [] and ex.unreadable is None, (f.name, ex.unmodelled)


def test_rtf_text_boxes_are_read_and_few_stay_inside_the_model():
    box = "{\\shp{\\*\\shpinst\\shpleft0\\shptop0{\\sp{\\sn shapeType}{\\sv 202}}{\\shptxt \\pard Box words\\par}}" \
          "{\\shprslt{\\*\\do\\dobxcolumn{\\dptxbx{\\pard old words\\par}}}}}"
    ex = extract_bytes(rtf(box + "\\par"), "x.rtf")
    assert "Box words" in ex.text and "old words" not in ex.text and ex.unmodelled == []
    many = "".join(box.replace("\\shptop0", f"\\shptop{(i * 7 % 12) * 300}") for i in range(12))
    assert "rtf: 12 text boxes or frames placed by position: the reader cannot tell their order" in \
        extract_bytes(rtf(many + "\\par"), "x.rtf").unmodelled
