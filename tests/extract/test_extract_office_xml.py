"""OpenDocument text (.odt, flat .fodt) and Word 2003 XML read as a word processor shows them
(issues #36, #40): runs joined as the format joins them, hidden text, deletions and comments out
of the visible reading and in the all-text reading, notes after the body."""

from __future__ import annotations

import io
import zipfile

import pytest

from auditor.errors import ExtractionError
from auditor.extract import extract_bytes
from auditor.extract.detect import detect_format, not_read
from auditor.text.normalize import words
from tests.support.licences import licence

OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
NS = (f'xmlns:office="{OFFICE}" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
      'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"')
STYLES = ('<office:automatic-styles><style:style style:name="Hid" style:family="text">'
          '<style:text-properties text:display="none"/></style:style>'
          '<style:style style:name="Bold" style:family="text"><style:text-properties fo:font-weight="bold" '
          'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"/></style:style>'
          '</office:automatic-styles>')


def esc(t: str) -> str:
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def split_runs(paragraph: str) -> str:
    """A paragraph as word processors write one: spans cut words in two (a style change in
    the middle of a word), several spaces as ``text:s``."""
    out = []
    for w in paragraph.split():
        half = len(w) // 2
        out.append(f'{esc(w[:half])}<text:span text:style-name="Bold">{esc(w[half:])}</text:span>')
    return "<text:s/> ".join(out[:1]) + (" " + " ".join(out[1:]) if len(out) > 1 else "")


def body(paragraphs: list[str], extra: str = "") -> str:
    ps = "".join(f"<text:p>{split_runs(p)}</text:p>\n    " for p in paragraphs)
    return f"<office:body><office:text>\n    {ps}{extra}</office:text></office:body>"


def odt(content_body: str, mimetype: str = "application/vnd.oasis.opendocument.text") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/manifest.xml", '<?xml version="1.0"?><manifest:manifest xmlns:manifest='
                   '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>')
        z.writestr("content.xml", f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {NS}>'
                   f"{STYLES}{content_body}</office:document-content>")
        z.writestr("meta.xml", f'<?xml version="1.0"?><office:document-meta {NS}><office:meta>'
                   "<meta:creation-date>2019-03-01T10:00:00</meta:creation-date><dc:date>2020-01-02T03:04:05</dc:date>"
                   "</office:meta></office:document-meta>")
    return buf.getvalue()


def fodt(content_body: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document {NS} office:version="1.3" '
            f'office:mimetype="application/vnd.oasis.opendocument.text">\n <office:meta><meta:generator>'
            f"LibreOffice</meta:generator><dc:date>2020-01-02T03:04:05</dc:date></office:meta>\n {STYLES}"
            f"{content_body}</office:document>").encode()


def paragraphs(i: int, n: int = 8) -> list[str]:
    return [" ".join(p.split()) for p in licence(i).split("\n\n") if p.strip()][:n]


@pytest.mark.parametrize("build, fmt", [(odt, "odt"), (fodt, "fodt")])
def test_runs_split_inside_words_are_joined_as_a_word_processor_joins_them(build, fmt):
    ps = paragraphs(3)
    ex = extract_bytes(build(body(ps)), f"x.{fmt}")
    assert ex.format == fmt and ex.unreadable is None
    assert ex.text.split("\n") == ps  # "SOFT<span>WARE</span>" reads SOFTWARE, a paragraph a line
    assert ex.meta["dates"]["odf:modified"] == "2020-01-02T03:04:05"


@pytest.mark.parametrize("build", [odt, fodt])
def test_hidden_text_deletions_and_comments_are_left_out_and_kept_as_a_reading(build):
    ps = paragraphs(5, 3)
    extra = ('<text:p>Visible words <text:span text:style-name="Hid">zebra quartz mango</text:span>'
             "<text:hidden-text>ember tundra</text:hidden-text> stay."
             '<office:annotation><dc:creator>A</dc:creator><text:p>walnut pixel comment</text:p></office:annotation>'
             '<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation>'
             "<text:note-body><text:p>The note under the page.</text:p></text:note-body></text:note></text:p>"
             '<text:tracked-changes><text:changed-region><text:deletion><office:change-info><dc:creator>B'
             "</dc:creator></office:change-info><text:p>violet deleted words</text:p></text:deletion>"
             "</text:changed-region></text:tracked-changes>")
    ex = extract_bytes(build(body(ps, extra)), "x")
    shown = words(ex.text)
    for junk in ("zebra", "ember", "walnut", "violet"):
        assert junk not in shown
    assert ex.text.endswith("Visible words stay.\n\nThe note under the page.")  # no "stay.1", note after
    every = next(r.text for r in ex.readings if r.name == "odf:all-text")
    for junk in ("zebra", "ember", "walnut", "violet"):
        assert junk in words(every)


def test_text_shown_by_a_condition_fails_closed():
    extra = '<text:p>Shown <text:conditional-text text:condition="ooow:x" text:string-value-if-true="a" ' \
            'text:string-value-if-false="b">b</text:conditional-text></text:p>'
    ex = extract_bytes(odt(body(paragraphs(1, 2), extra)), "x.odt")
    assert (ex.unreadable or "").startswith("odf-condition:")
    assert extract_bytes(odt(body(paragraphs(1, 2))), "x.odt").unreadable is None


def test_an_opendocument_spreadsheet_is_not_read_as_text():
    data = odt("<office:body><office:spreadsheet/></office:body>", "application/vnd.oasis.opendocument.spreadsheet")
    assert detect_format(data, "x.ods") == "binary"
    assert not_read(data, "x.ods")[0] == "binary:odf"
    assert detect_format(odt(body(["Text."])), "x.zip") == "odt" and not_read(odt(body(["Text."])), "x") is None


def test_an_opendocument_without_text_says_so():
    with pytest.raises(ExtractionError) as e:
        extract_bytes(odt(body([], '<text:p><text:span text:style-name="Hid">all hidden</text:span></text:p>')), "x.odt")
    assert e.value.code == "empty"


# -- Word 2003 XML -------------------------------------------------------------------------------

WML = "http://schemas.microsoft.com/office/word/2003/wordml"


def wordml(paragraphs_xml: str, styles: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<?mso-application progid="Word.Document"?>\n'
            f'<w:wordDocument xmlns:w="{WML}" xmlns:wx="http://schemas.microsoft.com/office/word/2003/auxHint" '
            'xmlns:aml="http://schemas.microsoft.com/aml/2001/core" xmlns:o="urn:schemas-microsoft-com:office:office">'
            "<o:DocumentProperties><o:Title>Title property</o:Title><o:LastSaved>2005-06-07T08:09:00Z</o:LastSaved>"
            f"</o:DocumentProperties><w:styles>{styles}</w:styles>"
            f"<w:body><wx:sect>{paragraphs_xml}</wx:sect></w:body></w:wordDocument>").encode()


def wrun(text: str, rpr: str = "") -> str:
    return f"<w:r>{f'<w:rPr>{rpr}</w:rPr>' if rpr else ''}<w:t>{esc(text)}</w:t></w:r>"


def wpara(p: str) -> str:
    out = []
    for i, w in enumerate(p.split()):
        half = len(w) // 2
        out.append(wrun(w[:half], "<w:b/>") + wrun(w[half:] + ("" if i == len(p.split()) - 1 else " ")))
    return "<w:p>" + "\n  ".join(out) + "</w:p>\n"


def test_word_2003_xml_runs_are_joined_as_word_joins_them():
    ps = paragraphs(7)
    data = wordml("".join(wpara(p) for p in ps))
    assert detect_format(data, "x.xml") == "xml"
    ex = extract_bytes(data, "x.xml")
    assert ex.format == "wordml" and ex.text.split("\n") == ps and ex.unreadable is None
    assert ex.meta["dates"] == {"wordml:modified": "2005-06-07T08:09:00Z"}
    assert "Title property" not in ex.text


def test_word_2003_xml_hides_what_word_hides():
    styles = '<w:style w:type="character" w:styleId="Secret"><w:rPr><w:vanish/></w:rPr></w:style>'
    p = ("<w:p>" + wrun("The lease ") + wrun("zebra ", "<w:vanish/>") + wrun("quartz ", '<w:rStyle w:val="Secret"/>')
         + '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE mango </w:instrText></w:r>'
         + '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' + wrun("of ") + '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
         + '<aml:annotation w:type="Word.Deletion"><aml:content><w:r><w:delText>ember </w:delText></w:r></aml:content>'
         + "</aml:annotation>" + wrun("the premises") + "<w:r><w:footnote><w:p>" + wrun("A note below.")
         + "</w:p></w:footnote></w:r>" + wrun(".") + "</w:p>")
    ex = extract_bytes(wordml(p, styles), "x.xml")
    assert ex.text == "The lease of the premises.\n\nA note below."
    every = next(r.text for r in ex.readings if r.name == "wordml:all-text")
    assert {"zebra", "quartz", "ember"} <= set(words(every)) and "mango" not in words(every)
    ex = extract_bytes(wordml("<w:p>" + wrun("The lease of the premises.") + "</w:p>"), "x.xml")
    assert ex.readings == []  # nothing hidden: no other reading


def test_other_xml_with_html_like_element_names_is_xml_not_html():
    note = b'<?xml version="1.0"?>\n<note><to>Tove</to><heading>Reminder</heading><body>Call me.</body></note>'
    assert detect_format(note, "note.xml") == "xml"
    xhtml = b'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><p>x</p></body></html>'
    assert detect_format(xhtml, "page") == "html"


@pytest.mark.parametrize("props, hidden", [
    ('fo:color="#ffffff"', True), ('fo:color="#000000"', False), ('fo:font-size="1pt"', True),
    ('fo:font-size="12pt"', False), ('fo:color="#336699" fo:background-color="#336699"', True),
])
def test_odf_text_a_reader_cannot_see_is_left_out(props, hidden):
    style = (f'<office:automatic-styles><style:style style:name="X" style:family="text"><style:text-properties '
             f'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" {props}/></style:style>'
             "</office:automatic-styles>")
    content = (f'<?xml version="1.0"?>\n<office:document {NS}>{style}<office:body><office:text><text:p>The lease '
               '<text:span text:style-name="X">zebra</text:span> of the premises.</text:p></office:text></office:body>'
               "</office:document>").encode()
    ex = extract_bytes(content, "x.fodt")
    assert ("zebra" not in ex.text) is hidden


@pytest.mark.parametrize("rpr, hidden", [
    ('<w:color w:val="FFFFFF"/>', True), ('<w:color w:val="FFFFFF"/><w:highlight w:val="black"/>', False),
    ('<w:sz w:val="2"/>', True), ('<w:sz w:val="24"/>', False),
])
def test_word_2003_xml_white_or_tiny_runs_are_left_out(rpr, hidden):
    ex = extract_bytes(wordml("<w:p>" + wrun("The lease ") + wrun("zebra ", rpr) + wrun("of the premises.") + "</w:p>"), "x.xml")
    assert ("zebra" not in ex.text) is hidden
