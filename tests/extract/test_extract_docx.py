""".docx read as Word shows it, and its other readings (issue #25).

Each disguise hides junk from a reader, or shows a contract that a naive reading misses; each
test checks the visible reading (``text``) or the named reading against the contract by real
shingle containment, and a negative case (what a reader does see is kept).
"""

from __future__ import annotations

import io
import shutil
import subprocess
import warnings
import zipfile

import pytest

from auditor.extract import extract_bytes
from auditor.text.shingle import shingle_text
from tests.support import synth
from tests.support.fixtures_build import part_relationships

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = (f'xmlns:w="{W}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
      'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
      'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
      'xmlns:xx="urn:example:not-understood" xmlns:v="urn:schemas-microsoft-com:vml"')
CT_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
OFFICE_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
JUNK = ["zebra", "quartz", "mango", "violet", "ember", "tundra", "pixel", "walnut"]


@pytest.fixture(scope="module")
def contract() -> str:
    return " ".join(synth.contract(4242, 6_000, kind="lease").split())


def containment(contract: str, text: str) -> float:
    a = shingle_text(contract, keep_all=True).all
    b = shingle_text(text, keep_all=True).all
    import numpy as np

    return float(len(np.intersect1d(a, b)) / len(a))


def esc(t: str) -> str:
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def run(text: str, rpr: str = "") -> str:
    return f"<w:r>{f'<w:rPr>{rpr}</w:rPr>' if rpr else ''}<w:t xml:space='preserve'>{esc(text)}</w:t></w:r>"


def interleaved(contract: str, hide: str, *, wrap=None) -> str:
    """One paragraph: every word of the contract, a junk word in a hidden run after each."""
    out = []
    for i, word in enumerate(contract.split()):
        out.append(run(word + " "))
        junk = run(JUNK[i % len(JUNK)] + " ", hide)
        out.append(wrap(junk) if wrap else junk)
    return f"<w:p>{''.join(out)}</w:p>"


def docx(body: str, *, parts: dict[str, str] | None = None, main: str = "word/document.xml",
         rels: str | None = None, content_type: str = CT_MAIN, duplicate: dict[str, bytes] | None = None,
         package_rels: bool = True, ignorable: str = "") -> bytes:
    """A .docx written by hand: ``body`` in the main part ``main``, related parts, content types."""
    attrs = f' mc:Ignorable="{ignorable}"' if ignorable else ""
    doc = f'<?xml version="1.0" encoding="UTF-8"?><w:document {NS}{attrs}><w:body>{body}</w:body></w:document>'
    files = {main: doc.encode()}
    files.update({n: x.encode() for n, x in (parts or {}).items()})
    folder, _, base = main.rpartition("/")
    files[f"{folder}/_rels/{base}.rels"] = part_relationships(list(files))
    ct = ('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
          '<Default Extension="xml" ContentType="application/xml"/>'
          f'<Override PartName="/{main}" ContentType="{content_type}"/></Types>')
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns of the duplicate names we want
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("[Content_Types].xml", ct)
            if package_rels:
                z.writestr("_rels/.rels", rels if rels is not None else (
                    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                    f'relationships"><Relationship Id="rId1" Type="{OFFICE_DOC}" Target="{main}"/></Relationships>'))
            for name, data in files.items():
                z.writestr(name, data)
            for name, data in (duplicate or {}).items():
                z.writestr(name, data)
    return buf.getvalue()


def styles(*defs: str) -> dict[str, str]:
    return {"word/styles.xml": f'<?xml version="1.0"?><w:styles xmlns:w="{W}">{"".join(defs)}</w:styles>'}


def reading(ex, name: str) -> str:
    found = {r.name: r.text for r in ex.readings}
    assert name in found, sorted(found)
    return found[name]


def para(text: str) -> str:
    return f"<w:p>{run(text)}</w:p>"


# -- hidden runs ---------------------------------------------------------------------------------

HIDDEN_RUNS = {
    "vanish": ("<w:vanish/>", {}),
    "specVanish": ("<w:specVanish/>", {}),
    "webHidden": ("<w:webHidden/>", {}),
    "white text": ('<w:color w:val="FFFFFF"/>', {}),
    "near-white text": ('<w:color w:val="FEFDFF"/>', {}),
    "theme background colour": ('<w:color w:val="000000" w:themeColor="background1"/>', {}),
    "1 pt text": ('<w:sz w:val="2"/>', {}),
    "1% width": ('<w:w w:val="1"/>', {}),
    "character style": ('<w:rStyle w:val="Ghost"/>', styles(
        '<w:style w:type="character" w:styleId="Ghost"><w:rPr><w:vanish/></w:rPr></w:style>')),
    "character style based on a hidden one": ('<w:rStyle w:val="Child"/>', styles(
        '<w:style w:type="character" w:styleId="Base"><w:rPr><w:sz w:val="1"/></w:rPr></w:style>',
        '<w:style w:type="character" w:styleId="Child"><w:basedOn w:val="Base"/><w:rPr><w:i/></w:rPr></w:style>')),
}


@pytest.mark.parametrize("how", sorted(HIDDEN_RUNS))
def test_hidden_runs_are_left_out_of_the_visible_reading(contract, how):
    rpr, parts = HIDDEN_RUNS[how]
    ex = extract_bytes(docx(interleaved(contract, rpr), parts=parts), "x.docx")
    assert containment(contract, ex.text) == 1.0, how
    assert not any(j in ex.text for j in JUNK)
    every = reading(ex, "docx:all-text")
    assert containment(contract, every) < 0.05 and "zebra" in every
    assert ex.unreadable is None


VISIBLE_RUNS = {
    "vanish off": "<w:vanish w:val='0'/>",
    "black text": '<w:color w:val="000000"/>',
    "auto colour": '<w:color w:val="auto"/>',
    "white on a highlight": '<w:color w:val="FFFFFF"/><w:highlight w:val="black"/>',
    "white on shading": '<w:color w:val="FFFFFF"/><w:shd w:val="clear" w:fill="1F3864"/>',
    "8 pt text": '<w:sz w:val="16"/>',
    "condensed 80%": '<w:w w:val="80"/>',
    "letter spacing": '<w:spacing w:val="40"/>',
}


@pytest.mark.parametrize("how", sorted(VISIBLE_RUNS))
def test_runs_a_reader_sees_stay_in_the_visible_reading(contract, how):
    ex = extract_bytes(docx(interleaved(contract, VISIBLE_RUNS[how])), "x.docx")
    assert "zebra" in ex.text and containment(contract, ex.text) < 0.05, how
    assert "docx:all-text" not in {r.name for r in ex.readings}


def test_a_paragraph_style_hides_its_runs_and_direct_formatting_shows_them_again(contract):
    parts = styles('<w:style w:type="paragraph" w:styleId="Note"><w:rPr><w:vanish/></w:rPr></w:style>')
    body = (f"<w:p><w:pPr><w:pStyle w:val='Note'/></w:pPr>{run('zebra quartz mango violet ember tundra')}</w:p>"
            + para(contract)
            + "<w:p><w:pPr><w:pStyle w:val='Note'/></w:pPr>" + run("Shown again.", "<w:vanish w:val='false'/>") + "</w:p>")
    ex = extract_bytes(docx(body, parts=parts), "x.docx")
    assert containment(contract, ex.text) == 1.0 and "zebra" not in ex.text
    assert ex.text.endswith("Shown again.")
    assert "zebra" in reading(ex, "docx:all-text")


def test_field_codes_are_not_text_but_field_results_are(contract):
    """Word shows a field's result (between ``separate`` and ``end``), never its code: neither
    w:instrText nor a w:t placed in the code part."""
    words = contract.split()
    out = []
    for i, word in enumerate(words):
        out.append("<w:r><w:fldChar w:fldCharType='begin'/></w:r>"
                   f"<w:r><w:instrText> QUOTE {JUNK[i % 8]} </w:instrText></w:r>{run(JUNK[(i + 1) % 8] + ' ')}"
                   "<w:r><w:fldChar w:fldCharType='separate'/></w:r>" + run(word + " ")
                   + "<w:r><w:fldChar w:fldCharType='end'/></w:r>")
    ex = extract_bytes(docx(f"<w:p>{''.join(out)}</w:p>"), "x.docx")
    assert containment(contract, ex.text) == 1.0 and not any(j in ex.text for j in JUNK)
    assert "QUOTE" not in reading(ex, "docx:all-text")  # instrText is code in every reading


def test_elements_of_an_ignorable_namespace_word_does_not_know_are_skipped(contract):
    ex = extract_bytes(docx(interleaved(contract, "", wrap=lambda r: f"<xx:ghost>{r}</xx:ghost>"),
                            ignorable="xx"), "x.docx")
    assert containment(contract, ex.text) == 1.0 and "zebra" not in ex.text
    assert "zebra" in reading(ex, "docx:all-text")


@pytest.mark.parametrize("hidden", [True, False])
def test_a_drawing_word_does_not_show_hides_its_text_box(contract, hidden):
    decoy = synth.contract(777, 600, kind="credit")
    box = (f"<w:p><w:r><w:drawing><wp:anchor><wp:docPr id='1' name='Box' hidden='{int(hidden)}'/>"
           f"<wps:txbx><w:txbxContent>{para(decoy)}</w:txbxContent></wps:txbx></wp:anchor></w:drawing></w:r></w:p>")
    vml = ("<w:p><w:r><w:pict><v:shape style='position:absolute;" + ("visibility:hidden" if hidden else "width:10pt")
           + f"'><v:textbox><w:txbxContent>{para(decoy)}</w:txbxContent></v:textbox></v:shape></w:pict></w:r></w:p>")
    for shape in (box, vml):
        body = shape + para(contract)
        ex = extract_bytes(docx(body.replace("<wp:anchor>", "<wp:anchor xmlns:wp='http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing'>")), "x.docx")
        assert containment(contract, ex.text) == 1.0
        assert containment(decoy, ex.text) < 0.2 if hidden else containment(decoy, ex.text) == 1.0


def test_a_document_that_hides_every_word_fails_closed(contract):
    ex = extract_bytes(docx(para(contract).replace("<w:r>", "<w:r><w:rPr><w:vanish/></w:rPr>")), "x.docx")
    assert ex.unreadable.startswith("docx-hidden:")
    assert containment(contract, ex.text) == 1.0  # the text stored is what the reader could not see
    deleted = extract_bytes(docx(f"<w:p>{_deleted(contract)}</w:p>"), "y.docx")
    assert deleted.unreadable.startswith("docx-hidden:") and containment(contract, deleted.text) == 1.0


# -- tracked changes -----------------------------------------------------------------------------


def _deleted(text: str) -> str:
    return f"<w:del w:id='1' w:author='x'><w:r><w:delText xml:space='preserve'>{esc(text)}</w:delText></w:r></w:del>"


def _inserted(text: str) -> str:
    return f"<w:ins w:id='2' w:author='x'>{run(text)}</w:ins>"


def test_tracked_deletions_are_gone_from_the_visible_reading(contract):
    body = "<w:p>" + "".join(run(w + " ") + _deleted(JUNK[i % 8] + " ") for i, w in enumerate(contract.split())) + "</w:p>"
    ex = extract_bytes(docx(body), "x.docx")
    assert containment(contract, ex.text) == 1.0 and "zebra" not in ex.text
    rejected = reading(ex, "docx:changes-rejected")
    assert "zebra" in rejected and containment(contract, rejected) < 0.05


def test_a_contract_in_tracked_deletions_is_the_changes_rejected_reading(contract):
    body = "<w:p>" + "".join(_deleted(w + " ") + _inserted(JUNK[i % 8] + " ") for i, w in enumerate(contract.split())) + "</w:p>"
    ex = extract_bytes(docx(body), "x.docx")
    assert containment(contract, ex.text) < 0.05
    assert containment(contract, reading(ex, "docx:changes-rejected")) == 1.0


def test_moves_count_as_deletion_and_insertion(contract):
    words = contract.split()
    half = len(words) // 2
    moved_from = f"<w:moveFrom w:id='3' w:author='x'>{run(' '.join(words[half:]) + ' ')}</w:moveFrom>"
    moved_to = f"<w:moveTo w:id='4' w:author='x'>{run(' '.join(words[half:]) + ' ')}</w:moveTo>"
    # the second half moved before the first: accepted, the order is moved; rejected, the original
    body = f"<w:p>{moved_to}{run(' '.join(words[:half]) + ' ')}{moved_from}</w:p>"
    ex = extract_bytes(docx(body), "x.docx")
    assert ex.text.split()[0] == words[half] and ex.text.count(words[-1]) == 1
    assert containment(contract, reading(ex, "docx:changes-rejected")) == 1.0


# -- alternate content ---------------------------------------------------------------------------


def _alternate(choice: str, fallback: str, requires: str) -> str:
    return (f"<w:p><w:r><mc:AlternateContent><mc:Choice Requires='{requires}'><w:drawing><wps:txbx><w:txbxContent>"
            f"{choice}</w:txbxContent></wps:txbx></w:drawing></mc:Choice><mc:Fallback><w:pict><v:textbox>"
            f"<w:txbxContent>{fallback}</w:txbxContent></v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>")


def test_word_shows_the_fallback_when_it_does_not_understand_the_choice(contract):
    decoy = synth.contract(777, 600, kind="credit")
    ex = extract_bytes(docx(_alternate(para(decoy), para(contract), "xx")), "x.docx")
    assert containment(contract, ex.text) == 1.0
    assert containment(contract, reading(ex, "docx:choice")) < 0.05


def test_word_shows_a_choice_it_understands_and_the_fallback_is_a_reading(contract):
    decoy = synth.contract(777, 600, kind="credit")
    ex = extract_bytes(docx(_alternate(para(decoy), para(contract), "wps")), "x.docx")
    assert containment(contract, ex.text) < 0.05
    assert containment(contract, reading(ex, "docx:fallback")) == 1.0
    same = extract_bytes(docx(_alternate(para(contract), para(contract), "wps")), "y.docx")
    assert containment(contract, same.text) == 1.0 and same.text.count(contract.split()[5]) == contract.count(contract.split()[5])
    assert not same.readings  # both sides read the same: no other reading


# -- the package ---------------------------------------------------------------------------------


def test_the_main_part_is_the_one_the_package_relationships_name(contract):
    decoy = synth.contract(777, 600, kind="credit")
    decoy_doc = f'<?xml version="1.0"?><w:document {NS}><w:body>{para(decoy)}</w:body></w:document>'
    ex = extract_bytes(docx(para(contract), main="word/main.xml",
                            parts={"word/document.xml": decoy_doc}), "x.docx")
    assert containment(contract, ex.text) == 1.0 and ex.unreadable is None
    assert all(containment(decoy, r.text) < 0.05 for r in ex.readings)
    hidden = extract_bytes(docx(para(decoy), main="word/main.xml",
                                parts={"word/document.xml": decoy_doc.replace(esc(decoy), esc(contract))}), "y.docx")
    assert containment(contract, hidden.text) < 0.05  # an unrelated part is not shown by Word


def test_a_package_without_a_main_part_relationship_fails_closed(contract):
    ex = extract_bytes(docx(para(contract), rels='<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>'), "x.docx")
    assert ex.unreadable.startswith("docx-main-part:")
    assert containment(contract, ex.text) == 1.0


def test_a_main_part_of_another_content_type_fails_closed(contract):
    ex = extract_bytes(docx(para(contract), content_type="application/xml"), "x.docx")
    assert ex.unreadable.startswith("docx-content-type:")
    assert extract_bytes(docx(para(contract)), "y.docx").unreadable is None


@pytest.mark.parametrize("name", ["word/document.xml", "WORD/Document.xml"])
def test_two_zip_entries_of_one_part_name_fail_closed(contract, name):
    decoy = synth.contract(777, 600, kind="credit")
    other = f'<?xml version="1.0"?><w:document {NS}><w:body>{para(decoy)}</w:body></w:document>'.encode()
    ex = extract_bytes(docx(para(contract), duplicate={name: other}), "x.docx")
    assert ex.unreadable.startswith("docx-duplicate-entry:")


def test_headers_and_footnotes_are_read_only_when_related(contract):
    note = (f'<?xml version="1.0"?><w:footnotes xmlns:w="{W}"><w:footnote w:id="1">{para(contract)}'
            "</w:footnote></w:footnotes>")
    ex = extract_bytes(docx(para("Body text."), parts={"word/footnotes.xml": note}), "x.docx")
    assert containment(contract, ex.text) == 1.0


# -- letter spacing ------------------------------------------------------------------------------


def test_letter_spaced_words_typed_with_spaces_are_rejoined(contract):
    spaced = "   ".join(" ".join(w) for w in contract.split())
    ex = extract_bytes(docx(para(spaced)), "x.docx")
    assert containment(contract, ex.text) == 1.0 and ex.unreadable is None
    assert any("letter-spaced" in w for w in ex.warnings)


def test_letter_spaced_text_that_cannot_be_rejoined_fails_closed(contract):
    spaced = " ".join(" ".join(w) for w in contract.split())  # word gaps as narrow as letter gaps
    ex = extract_bytes(docx(para(spaced)), "x.docx")
    assert ex.unreadable.startswith("letter-spaced:")
    assert extract_bytes(docx(para(contract)), "y.docx").unreadable is None


# -- LibreOffice as the oracle -------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(not (shutil.which("soffice") and shutil.which("pdftotext")),
                    reason="needs LibreOffice and pdftotext (Debian's libreoffice-writer-nogui, poppler-utils)")
def test_libreoffice_shows_the_visible_reading(tmp_path, contract):
    """LibreOffice's rendering (its PDF export, read back by poppler's pdftotext) of each
    disguise holds what the visible reading holds. Its text export is no oracle: it includes
    hidden runs. Tracked deletions are left out here: LibreOffice shows them struck through, as
    Word's "All Markup" view does, so a reader sees both; the visible reading is the document
    with changes accepted and ``docx:changes-rejected`` the original."""
    short = " ".join(contract.split()[:60])
    cases = {
        "vanish": docx(interleaved(short, "<w:vanish/>")),
        "fallback": docx(_alternate(para("zebra quartz mango violet"), para(short), "xx")),
        "field": docx("<w:p><w:r><w:fldChar w:fldCharType='begin'/></w:r><w:r><w:instrText> QUOTE x </w:instrText></w:r>"
                      + run("zebra ") + "<w:r><w:fldChar w:fldCharType='separate'/></w:r>" + run(short)
                      + "<w:r><w:fldChar w:fldCharType='end'/></w:r></w:p>"),
        "mainpart": docx(para(short), main="word/main.xml", parts={
            "word/document.xml": f'<?xml version="1.0"?><w:document {NS}><w:body>{para("zebra quartz")}</w:body></w:document>'}),
    }
    for name, data in cases.items():
        (tmp_path / f"{name}.docx").write_bytes(data)
    subprocess.run(["soffice", "--headless", f"-env:UserInstallation=file://{tmp_path}/profile",
                    "--convert-to", "pdf", "--outdir", str(tmp_path),
                    *sorted(str(tmp_path / f"{n}.docx") for n in cases)],
                   check=True, capture_output=True, timeout=300)
    for name, data in cases.items():
        shown = subprocess.run(["pdftotext", str(tmp_path / f"{name}.pdf"), "-"], check=True,
                               capture_output=True, text=True).stdout
        ours = extract_bytes(data, f"{name}.docx").text
        assert containment(short, shown) == 1.0 and "zebra" not in shown, (name, shown[:200])
        assert containment(short, ours) == 1.0 and "zebra" not in ours, name
