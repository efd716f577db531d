"""Extraction of plain text, HTML, .docx and PDF: encodings, visible text, limits, failures.

PDFs are built by the tests (fpdf2 or hand-written objects) and read by the real pdfminer
child process; timeouts and memory limits are real ones, not mocks.
"""

from __future__ import annotations

import codecs
import io
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.errors import ExtractionError, fix_for
from auditor.extract import (
    Extracted,
    Limits,
    decode_text,
    detect_format,
    extract,
    extract_bytes,
    extract_pdf_pages,
)
from auditor.extract.pdf import worker as pdf_worker
from tests.support.fixtures_build import (
    make_docx,
    make_pdf,
    make_raw_pdf,
    part_relationships,
    serialize_pdf,
    text_content,
)

PROSE = "The Lessee shall pay the rent on the first day of each month without demand."


def code_of(data: bytes, name: str = "", limits: Limits | None = None) -> str:
    with pytest.raises(ExtractionError) as info:
        extract_bytes(data, name, limits or Limits())
    assert str(info.value)  # every failure says what happened in words
    return info.value.code


def assert_storable(ex: Extracted) -> None:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (x TEXT)")
    con.execute("INSERT INTO t VALUES (?)", (ex.text,))
    assert con.execute("SELECT x FROM t").fetchone()[0] == ex.text
    assert "\r" not in ex.text and "\x00" not in ex.text


# -- plain text and encodings --------------------------------------------------------------------

TEXT = "The \u201cLessee\u201d shall pay \u00a3100 \u2014 caf\u00e9 na\u00efve.\nSecond line."


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (TEXT.encode("utf-8"), "utf-8"),
        (TEXT.encode("utf-8-sig"), "utf-8-sig"),
        (TEXT.encode("utf-16"), "utf-16"),
        (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "utf-16"),
        (TEXT.encode("utf-16-le"), "utf-16-le"),
        (TEXT.encode("utf-16-be"), "utf-16-be"),
        (TEXT.encode("utf-32"), "utf-32"),
        (TEXT.encode("utf-32-le"), "utf-32-le"),
        (TEXT.encode("utf-32-be"), "utf-32-be"),
        (TEXT.encode("cp1252"), "cp1252"),
    ],
)
def test_encodings_are_detected_and_recorded(data, encoding):
    ex = extract_bytes(data, "a.txt")
    assert (ex.format, ex.extractor, ex.encoding) == ("text", "auditor.text", encoding)
    assert ex.text == TEXT and ex.extractor_version
    assert ex.warnings == []


def test_cp1252_curly_quotes_are_not_latin1_controls():
    data = b"The \x93Lessee\x94 shall pay \x96 promptly."
    assert decode_text(data) == ("The \u201cLessee\u201d shall pay \u2013 promptly.", "cp1252")


def test_latin1_is_the_last_resort():
    data = "Caf\u00e9 r\u00e9sum\u00e9 and a lot of ordinary words here".encode("latin-1") + b" \x81 end"
    text, enc = decode_text(data)
    assert enc == "latin-1" and text.startswith("Caf\u00e9 r\u00e9sum\u00e9")


def test_a_stray_bad_byte_does_not_turn_utf8_into_mojibake():
    data = "\u201cQuoted\u201d caf\u00e9 na\u00efve ".encode() + b"\xff tail"
    ex = extract_bytes(data)
    assert ex.encoding == "utf-8" and ex.text.startswith("\u201cQuoted\u201d caf\u00e9")
    assert "\ufffd" in ex.text and any("invalid UTF-8" in w for w in ex.warnings)


def test_crlf_and_cr_become_lf():
    assert extract_bytes(b"one\r\ntwo\rthree\n").text == "one\ntwo\nthree\n"


def test_nul_and_lone_surrogates_are_replaced_and_counted():
    data = ("Clause one. " * 30).encode("utf-16-le") + b"\x00\xd8" + "x\x00y".encode("utf-16-le")
    ex = extract_bytes(data)
    assert ex.encoding == "utf-16-le"
    assert ex.text.endswith("\ufffdx\ufffdy") and any("replaced 2" in w for w in ex.warnings)
    assert_storable(ex)


def test_a_few_nuls_in_long_text_are_kept_as_text():
    ex = extract_bytes(PROSE.encode() * 20 + b"\x00" + PROSE.encode())
    assert ex.text.count("\ufffd") == 1
    assert_storable(ex)


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n" + bytes(100),
        b"GIF89a" + bytes(range(200)),
        b"\xff\xd8\xff\xe0" + bytes(100),
        b"\x7fELF\x02\x01\x01" + bytes(100),
        b"\x1f\x8b\x08\x00" + os.urandom(100),
        bytes(range(256)) * 40,
        b"\x00\x01\x02\x03\x04" * 100,
    ],
)
def test_binary_junk_is_refused(data):
    # junk behind a picture's magic bytes is a picture that cannot be decoded (extract/image.py)
    picture = data[:3] in (b"\x89PN", b"GIF", b"\xff\xd8\xff")
    assert code_of(data, "x.txt") == ("image_error" if picture else "binary")


def test_a_zip_that_is_not_a_docx_is_binary():
    buf = io.BytesIO()
    import zipfile

    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("data.csv", "a,b\n")
    assert detect_format(buf.getvalue(), "x.zip") == "binary"
    assert code_of(buf.getvalue()) == "binary"


def test_a_tar_is_an_archive_not_text():
    """A tar's members sit between 512-byte headers of names, modes and sizes: read as text, the
    headers are words a reader never sees, and a member that is not text is garbage (red team
    round 3). It is refused as the other archives are, whatever its name says."""
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        body = b"The Lessee shall pay the rent on the first day of each month.\n" * 20
        info = tarfile.TarInfo("exhibit.txt")
        info.size = len(body)
        tf.addfile(info, io.BytesIO(body))
    for name in ("exhibits.tar", "exhibit.txt", ""):
        assert detect_format(buf.getvalue(), name) == "binary"
        assert code_of(buf.getvalue(), name) == "binary"
    assert detect_format(body + bytes(300), "notes.txt") == "text"  # a text with NULs is no tar


@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n ", " \n".encode("utf-16")])
def test_empty_input(data):
    assert code_of(data) == "empty"


def test_too_large_is_refused_before_parsing(tmp_path):
    limits = Limits(max_file_bytes=100)
    assert code_of(b"%PDF-1.4 this would hang a parser" + bytes(100), limits=limits) == "too_large"
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 101)
    with pytest.raises(ExtractionError) as info:
        extract(path, limits)
    assert info.value.code == "too_large"


def test_text_too_long():
    assert code_of(PROSE.encode(), limits=Limits(max_text_chars=10)) == "text_too_long"
    assert extract_bytes(PROSE.encode(), limits=Limits(max_text_chars=len(PROSE))).text == PROSE


def test_extract_accepts_paths_and_file_objects(tmp_path):
    path = tmp_path / "a.html"
    path.write_bytes(b"<p>Hello <b>world</b></p>")
    assert extract(path).text == "Hello world"
    assert extract(str(path)).format == "html"
    with open(path, "rb") as f:
        assert extract(f).text == "Hello world"
    assert extract(io.BytesIO(b"plain words")).text == "plain words"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=200).map(lambda s: s.encode("utf-16-le", "surrogatepass")))
@pytest.mark.slow
def test_any_bytes_give_storable_text_or_a_coded_error(data):
    try:
        ex = extract_bytes(data, "fuzz.txt")
    except ExtractionError as e:
        # bytes that open as another format (\xffWPC, {\rtf, OLE2, a TIFF's "MM\0*") fail in its
        # reader, with a code whose fix is declared
        assert fix_for(e.code) is not None, e
        return
    texts = [p.extracted.text for p in ex.parts if p.extracted] if not ex.text else [ex.text]
    for text in texts:
        assert text.strip()
        text.encode("utf-8")  # no lone surrogates
        assert "\x00" not in text and "\r" not in text


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=200))
def test_text_round_trips_through_utf8_and_utf16(text):
    for enc in ("utf-8", "utf-16", "utf-8-sig"):
        assert decode_text(text.encode(enc))[0] == text


# -- format detection ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "name", "fmt"),
    [
        (b"%PDF-1.7\n...", "x.bin", "pdf"),
        (b"junk before\n%PDF-1.4\n", "", "pdf"),
        (b"<!DOCTYPE html><p>x", "x.txt", "text"),  # the name says text; HTML is a reading
        (b"<!DOCTYPE html><p>x", "x.md", "markdown"),
        (b"<!DOCTYPE html><p>x", "x.dat", "html"),
        (b"  <HTML><BODY>x", "", "html"),
        (b"<p>Para</p>", "page.htm", "html"),
        (b"<style>" + b"p{color:red}" * 400 + b"</style><p>Para</p>", "page.html", "html"),  # the name says HTML
        (b"Plain words, no markup.", "page.htm", "html"),
        (b"<p>Para</p>", "", "html"),
        (b"Use <b>bold</b> here", "notes.txt", "text"),
        (b"<SEC-DOCUMENT>0000950170-22-000796.txt : 20220207\n", "x", "edgar"),
        (b"<SUBMISSION>\n<ACCESSION-NUMBER>1\n", "x", "edgar"),
        ("<html><body>x</body></html>".encode("utf-16"), "", "html"),
        (b"Plain words.", "x.pdf", "text"),
        (b"GIF89a....", "x.txt", "image"),  # a picture: read by OCR (extract/image.py)
        (b"\x7fELF\x02\x01", "x.txt", "binary"),
        (b"BMW annual report 2024", "x.txt", "text"),  # "BM" without a bitmap's header is text
        (b"BM" + bytes(12) + (40).to_bytes(4, "little") + bytes(40), "x.txt", "image"),
    ],
)
def test_detect_format_by_content_first(data, name, fmt):
    assert detect_format(data, name) == fmt


# -- HTML ----------------------------------------------------------------------------------------

PAGE = b"""<!DOCTYPE html>
<html><head><title>Title is not text</title><meta charset="utf-8">
<style>p { color: red }</style><script>var x = "<p>script text</p>";</script></head>
<body>
<noscript>enable js</noscript><template><p>template text</p></template>
<h1>Lease   Agreement</h1>
<p>The <b>Lessee</b> &amp; the <i>Lessor</i> agree&nbsp;that &#8220;rent&#8221; &lt;is&gt; due.<br>New line
after break.</p>
<div style="display: none"><ix:header><ix:hidden>hidden fact</ix:hidden></ix:header></div>
<table><tr><td>Rent</td><td>$100</td></tr><tr><th>Term</th><td>5 years</td></tr></table>
<ul><li>first<li>second</ul>
<pre>  keep   this
    layout</pre>
<svg><text>svg text</text></svg><!-- a comment -->
</body></html>"""


def test_html_visible_text_only():
    ex = extract_bytes(PAGE, "a.html")
    assert (ex.format, ex.extractor, ex.encoding) == ("html", "selectolax", "utf-8")
    assert ex.text == (
        "Lease Agreement\n\n"
        "The Lessee & the Lessor agree that \u201crent\u201d <is> due.\nNew line after break.\n\n"
        "Rent\t$100\nTerm\t5 years\n\n"
        "first\nsecond\n\n"
        "  keep   this\n    layout\n\n"
        "svg text"
    )
    assert ex.unreadable is None  # scripts are not run (see extract/html.py)
    for hidden in ("Title", "script", "hidden fact", "comment", "color", "enable js", "template text"):
        assert hidden not in ex.text
    # what a browser (scripts on) does not show is in the all-text reading, with the title
    (all_text,) = [r.text for r in ex.readings if r.name == "html:all-text"]
    for hidden in ("Title is not text", "enable js", "template text", "hidden fact"):
        assert hidden in all_text
    for never in ("script text", "color: red", "a comment"):
        assert never not in all_text


def test_html_charset_declarations():
    body = "<p>\u201cQuoted\u201d caf\u00e9</p>"
    latin = f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body>{body}</body></html>'
    ex = extract_bytes(latin.encode("cp1252"))
    assert ex.encoding == "cp1252" and ex.text == "\u201cQuoted\u201d caf\u00e9"
    ex = extract_bytes(f"<html><body>{body}</body></html>".encode("utf-16"))
    assert ex.encoding == "utf-16" and ex.text == "\u201cQuoted\u201d caf\u00e9"
    xml = f'<?xml version="1.0" encoding="windows-1252"?><html><body>{body}</body></html>'
    assert extract_bytes(xml.encode("cp1252")).text == "\u201cQuoted\u201d caf\u00e9"
    lying = f'<html><head><meta charset="utf-8"></head><body>{body}</body></html>'.encode("cp1252")
    ex = extract_bytes(lying)
    assert ex.text == "\u201cQuoted\u201d caf\u00e9" and ex.encoding == "cp1252"
    assert any("declared charset" in w for w in ex.warnings)


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_deep_nesting_and_huge_text_nodes_lose_nothing():
    depth = 100_000
    deep = b"<html><body>" + b"<div>" * depth + b"deep text" + b"</div>" * depth + b"<p>after</p></body></html>"
    ex = extract_bytes(deep)
    assert ex.text.split() == ["deep", "text", "after"] and ex.unreadable is None
    huge = b"<html><head><title>t</title></head><body><pre>" + b"word " * 2_200_000 + b"</pre><p>after</p></body></html>"
    ex = extract_bytes(huge)
    assert ex.text.startswith("word word") and ex.text.endswith("word\n\nafter")
    assert ex.text.count("word") == 2_200_000


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp", "Co", "Cn")), min_size=1), min_size=1, max_size=5))
def test_html_keeps_every_word_of_escaped_text(paragraphs):
    import html

    from auditor.extract.order import BIDI_CONTROLS

    page = "<html><body>" + "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs) + "</body></html>"
    # bidi controls (U+2066 and the like) steer the order words are shown in; no reading keeps them
    words = BIDI_CONTROLS.sub("", " ".join(paragraphs)).replace("\xa0", " ").split()
    try:
        ex = extract_bytes(page.encode("utf-8"), "x.html")
    except ExtractionError as e:
        assert e.code == "empty" and not words
        return
    # right-to-left text is shown reordered; the stored order is the logical-order reading
    logical = next((r.text for r in ex.readings if r.name == "html:logical-order"), ex.text)
    assert logical.replace("\xa0", " ").split() == words


def test_html_without_visible_text_is_empty():
    assert code_of(b"<html><head><title>x</title></head><body><script>1</script></body></html>") == "empty"


def test_html_entities_cannot_reach_the_network_or_files():
    data = b"""<!DOCTYPE html [<!ENTITY x SYSTEM "file:///etc/passwd">]><html><body><p>a &x; b</p></body></html>"""
    text = extract_bytes(data).text
    assert "root:" not in text
    # the paragraph comes through, the unknown entity as written (as a browser shows it)
    assert text.splitlines()[-1] == "a &x; b"


# -- .docx ---------------------------------------------------------------------------------------


def test_docx_paragraphs_tabs_and_breaks():
    data = make_docx(["First paragraph.", "Name:\tValue", "Line one\nLine two", "Caf\u00e9 & <co>"])
    assert detect_format(data, "x.bin") == "docx"
    ex = extract_bytes(data, "a.docx")
    assert (ex.format, ex.extractor) == ("docx", "auditor.docx")
    assert ex.text == "First paragraph.\nName:\tValue\nLine one\nLine two\nCaf\u00e9 & <co>"


def test_docx_zip_bomb_is_refused():
    big = "<w:p><w:r><w:t>" + "a" * 2_000_000 + "</w:t></w:r></w:p>"
    doc = ('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
           f"<w:body>{big}</w:body></w:document>")
    data = make_docx([], document_xml=doc)
    assert len(data) < 50_000
    assert code_of(data, limits=Limits(max_file_bytes=50_000)) == "too_large"


def test_docx_external_entities_are_not_resolved():
    doc = ('<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
           "<w:body><w:p><w:r><w:t>before &x; after</w:t></w:r></w:p></w:body></w:document>")
    ex = extract_bytes(make_docx([], document_xml=doc))
    assert "root:" not in ex.text and ex.text.split() == ["before", "after"]


def test_malformed_docx():
    assert code_of(make_docx([], document_xml="<w:document><unclosed>")) == "docx_error"


# -- declared and mixed encodings ---------------------------------------------------------------

LEASE = ("The Lessee shall keep the Premises in good repair and shall pay the rent on the first "
         "day of each month without demand, deduction or set-off of any kind whatsoever.\n")


def _has_lease(text: str) -> bool:
    from auditor.text.normalize import normalize

    return normalize(LEASE) in normalize(text)


def test_a_charset_label_browsers_do_not_know_is_ignored():
    page = f'<html><head><meta charset="cp037"></head><body><p>{LEASE}</p></body></html>'.encode()
    ex = extract_bytes(page, "x.html")
    assert _has_lease(ex.text) and ex.encoding == "utf-8"
    assert any("not an encoding browsers know" in w for w in ex.warnings)
    known = f'<html><head><meta charset="windows-1252"></head><body><p>\u201c{LEASE}\u201d</p></body></html>'
    ex = extract_bytes(known.encode("cp1252"), "y.html")
    assert ex.encoding == "cp1252" and ex.text.startswith("\u201cThe Lessee") and not ex.warnings


def test_a_declared_charset_that_makes_mojibake_of_utf8_is_not_trusted():
    page = f'<html><head><meta charset="windows-1251"></head><body><p>\u201c{LEASE}\u201d caf\u00e9</p></body></html>'
    ex = extract_bytes(page.encode("utf-8"), "x.html")
    assert ex.encoding == "utf-8" and ex.text.startswith("\u201cThe Lessee") and ex.text.endswith("caf\u00e9")
    russian = ('<html><head><meta charset="windows-1251"></head><body><p>\u0410\u0440\u0435\u043d\u0434'
               "\u0430\u0442\u043e\u0440 \u043e\u0431\u044f\u0437\u0443\u0435\u0442\u0441\u044f</p></body></html>")
    ex = extract_bytes(russian.encode("cp1251"), "y.html")
    assert ex.encoding == "cp1251" and ex.text.startswith("\u0410\u0440\u0435\u043d") and not ex.warnings


def test_utf16_head_with_a_utf8_tail_decodes_both():
    data = ("Cover \u201cpage\u201d.\n" * 30).encode("utf-16-le") + (LEASE * 3).encode("utf-8")
    ex = extract_bytes(data, "x.txt")
    assert ex.encoding == "utf-16-le+utf-8" and _has_lease(ex.text) and ex.text.startswith("Cover \u201cpage")
    assert any("mixed encodings" in w for w in ex.warnings) and ex.unreadable is None
    whole = ("Cover \u201cpage\u201d.\n" * 30 + LEASE * 3).encode("utf-16")
    ex = extract_bytes(whole, "y.txt")
    assert ex.encoding == "utf-16" and _has_lease(ex.text) and not ex.warnings


def test_utf8_head_with_a_utf16_tail_decodes_both():
    data = (LEASE * 3).encode() + ("Schedule \u201cA\u201d. " + LEASE).encode("utf-16-le")
    ex = extract_bytes(data, "x.txt")
    assert ex.encoding == "utf-8+utf-16-le" and ex.text.count("The Lessee") == 4
    late = (LEASE * 9000).encode() + b"\x00stray\n" + (LEASE * 9000).encode() + ("Schedule. " + LEASE).encode("utf-16-le")
    ex = extract_bytes(late, "y.txt")  # 1.5 MB of UTF-8, a stray NUL, then UTF-16
    assert ex.encoding == "utf-8+utf-16-le"
    assert _has_lease(ex.text[-400:])


def test_utf8_with_a_cp1252_tail_is_decoded_line_by_line():
    data = ("\u201cOpening\u201d caf\u00e9.\n" * 10).encode() + ("\u201cTail\u201d na\u00efve.\n" + LEASE).encode("cp1252")
    ex = extract_bytes(data, "x.txt")
    assert ex.encoding == "utf-8+cp1252" and "\ufffd" not in ex.text
    assert ex.text.startswith("\u201cOpening\u201d caf\u00e9.") and "\u201cTail\u201d na\u00efve." in ex.text
    assert _has_lease(ex.text)


def test_ebcdic_text_is_detected_not_refused():
    ex = extract_bytes((LEASE * 10).encode("cp037"), "x.txt")
    assert ex.encoding == "cp037" and _has_lease(ex.text) and ex.unreadable is None


def test_gibberish_after_decoding_is_recorded_unreadable():
    import random

    r = random.Random(1)
    junk = bytes(r.choice([*range(0xA0, 0x100), 0x20, 0x20, 0x20]) for _ in range(3000))
    ex = extract_bytes(junk, "x.txt")
    assert "gibberish" in (ex.unreadable or "")
    for clean in (LEASE.encode("cp1252"), ("\u201cLease\u201d " + LEASE).encode("cp1252"),
                  "\u0410\u0440\u0435\u043d\u0434\u0430\u0442\u043e\u0440 \u043e\u0431\u044f\u0437\u0443\u0435\u0442\u0441\u044f.".encode()):
        assert extract_bytes(clean, "y.txt").unreadable is None


# -- what a reader could see or a machine could carry ---------------------------------------------

CONTRACT = ("The Lessee shall keep the Premises in good repair and shall pay the rent on the first "
            "day of each month without demand, deduction or set-off of any kind whatsoever.")


def _found(contract: str, text: str) -> bool:
    from auditor.text.normalize import normalize

    return normalize(contract) in normalize(text)


def _reading(ex: Extracted, name: str) -> str:
    return ex.text if name == "text" else next((r.text for r in ex.readings if r.name == name), "")


@pytest.mark.parametrize(("wrap", "reading"), [
    ("<svg width='400'><text x='0' y='15'>{}</text></svg>", "text"),
    ("<svg><text><tspan>{}</tspan></text></svg>", "text"),
    ("<iframe srcdoc='<p>{}</p>'>fallback</iframe>", "text"),
    # a browser never shows an iframe's content (raw text); a machine may carry it
    ("<iframe src='about:blank'><p>{}</p></iframe>", "html:all-text"),
    ("<svg><rect/><p>{}</p></svg>", "text"),
    ("<div><svg><rect/><text>x</text>" + "<div>" * 300 + "{}" + "</div>" * 300, "text"),
    ("<iframe srcdoc=\"<iframe srcdoc='&lt;p&gt;{}&lt;/p&gt;'></iframe>\"></iframe>", "text"),
    ("<object data='lease.swf' type='application/x-shockwave-flash'><p>{}</p></object>", "text"),
    # browsers run scripts by default, so they hide <noscript>; nobody sees a <template>
    ("<noscript><div>{}</div></noscript>", "html:all-text"),
    ("<template><section><p>{}</p></section></template>", "html:all-text"),
])
def test_html_text_in_every_container_a_reader_or_machine_sees(wrap, reading):
    page = f"<html><body><p>Cover page.</p>{wrap.format(CONTRACT)}<p>Signatures.</p></body></html>"
    ex = extract_bytes(page.encode(), "x.html")
    assert _found(CONTRACT, _reading(ex, reading)) and ex.unreadable is None
    if reading != "text":
        assert not _found(CONTRACT, ex.text)
    other = f"<html><body><p>Cover page.</p>{wrap.format(PROSE)}</body></html>"
    ex = extract_bytes(other.encode(), "y.html")
    assert not any(_found(CONTRACT, t) for t in [ex.text] + [r.text for r in ex.readings])


def test_html_character_references_to_invisible_characters_vanish_in_normalisation():
    from auditor.text.normalize import words

    disguised = CONTRACT.replace("e", "e&#8203;").replace("a", "&#x200D;a").replace("o", "o&#xFEFF;")
    ex = extract_bytes(f"<html><body><p>{disguised}</p></body></html>".encode(), "x.html")
    assert "\u200b" in ex.text and words(ex.text) == words(CONTRACT)


def test_a_clean_page_with_ordinary_noscript_and_template_extracts_normally():
    page = (b"<html><head><noscript><link rel='stylesheet' href='x.css'></noscript></head><body>"
            b"<noscript>Please enable JavaScript to view the menu.</noscript>"
            b"<template id='row'><tr><td></td></tr></template>"
            b"<svg viewBox='0 0 10 10'><path d='M0 0L10 10'/><desc>logo</desc></svg>"
            b"<p>" + PROSE.encode() + b"</p></body></html>")
    ex = extract_bytes(page, "x.html")
    assert ex.text == PROSE
    assert ex.unreadable is None and not ex.warnings
    assert _reading(ex, "html:all-text").split("\n") == ["Please enable JavaScript to view the menu.", "logo", PROSE]


def test_iframe_srcdoc_nested_too_deep_is_recorded_unreadable():
    import html

    inner = f"<p>{CONTRACT}</p>"
    for _ in range(6):
        inner = f"<iframe srcdoc=\"{html.escape(inner)}\"></iframe>"
    ex = extract_bytes(f"<html><body><p>Cover.</p>{inner}</body></html>".encode(), "x.html")
    assert (ex.unreadable or "").startswith("nested-depth: iframe srcdoc nested more than")
    assert "Cover." in ex.text


_WNS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_DOC_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _para(text: str) -> str:
    return f"<w:p><w:r><w:t xml:space='preserve'>{text}</w:t></w:r></w:p>"


def _docx(body: str, parts: dict[str, str] | None = None, rels: dict[str, str] | None = None,
          extra: dict[str, bytes] | None = None) -> bytes:
    doc = (f'<?xml version="1.0" encoding="UTF-8"?><w:document {_WNS} xmlns:r="{_DOC_RELS}" '
           'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
           'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
           f'xmlns:v="urn:schemas-microsoft-com:vml"><w:body>{body}</w:body></w:document>')
    files = {name: xml.encode() for name, xml in (parts or {}).items()}
    files.update(extra or {})
    files["word/_rels/document.xml.rels"] = part_relationships(
        list(files), "".join(f'<Relationship Id="{i}" Type="{_DOC_RELS}/aFChunk" Target="{t}"/>'
                             for i, t in (rels or {}).items()))
    return make_docx([], document_xml=doc, extra_files=files)


@pytest.mark.parametrize(("part", "root", "item"), [
    ("word/footnotes.xml", "footnotes", "footnote"),
    ("word/endnotes.xml", "endnotes", "endnote"),
    ("word/comments.xml", "comments", "comment"),
    ("word/header1.xml", "hdr", None),
    ("word/footer2.xml", "ftr", None),
])
def test_docx_notes_comments_headers_and_footers_are_read(part, root, item):
    inner = _para(CONTRACT)
    if item:
        inner = f'<w:{item} w:id="1">{inner}</w:{item}>'
    data = _docx(_para("Body text."), {part: f'<?xml version="1.0"?><w:{root} {_WNS}>{inner}</w:{root}>'})
    ex = extract_bytes(data, "x.docx")
    assert ex.text.startswith("Body text.") and _found(CONTRACT, ex.text) and ex.unreadable is None
    plain = extract_bytes(_docx(_para("Body text.") + _para(PROSE)), "y.docx")
    assert not _found(CONTRACT, plain.text) and plain.unreadable is None


def test_docx_text_box_is_read_once():
    box = f"<w:txbxContent>{_para(CONTRACT)}</w:txbxContent>"
    body = ("<w:p><w:r><mc:AlternateContent><mc:Choice Requires='wps'><w:drawing><wps:txbx>"
            f"{box}</wps:txbx></w:drawing></mc:Choice><mc:Fallback><w:pict><v:textbox>{box}"
            "</v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>" + _para("After."))
    ex = extract_bytes(_docx(body), "x.docx")
    assert _found(CONTRACT, ex.text) and ex.text.count("Lessee") == 1
    assert ex.text.endswith("After.")


def _mht(html_text: str) -> bytes:
    return ("MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"b\"\r\n\r\n--b\r\n"
            "Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
            + html_text.replace("=", "=3D") + "\r\n--b--\r\n").encode()


@pytest.mark.parametrize(("target", "content"), [
    ("afchunk.htm", f"<html><body><p>{CONTRACT}</p></body></html>".encode()),
    ("afchunk.txt", CONTRACT.encode("utf-16")),
    ("afchunk.mht", _mht(f"<html><body><p class=\"x\">{CONTRACT}</p></body></html>")),
    ("chunk.docx", _docx(_para(CONTRACT))),
])
def test_docx_alt_chunk_parts_are_read_in_place(target, content):
    body = _para("Before.") + '<w:altChunk r:id="rIdChunk"/>' + _para("After.")
    ex = extract_bytes(_docx(body, rels={"rIdChunk": target}, extra={f"word/{target}": content}), "x.docx")
    assert _found(CONTRACT, ex.text) and ex.unreadable is None
    assert ex.text.index("Before.") < ex.text.index("Lessee") < ex.text.index("After.")


def test_docx_alt_chunk_that_cannot_be_read_is_recorded():
    body = _para("Before.") + '<w:altChunk r:id="rId1"/><w:altChunk r:id="rId2"/>'
    data = _docx(body, rels={"rId1": "chunk.rtf"}, extra={"word/chunk.rtf": b"{\\rtf1 " + CONTRACT.encode() + b"}"})
    ex = extract_bytes(data, "x.docx")
    assert "chunk.rtf: rtf content is not read" in ex.unreadable
    assert "'rId2' refers to no part" in ex.unreadable


def test_docx_doctype_entity_loses_no_text_and_is_recorded():
    doc = ('<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY x "hidden words">]>'
           f'<w:document {_WNS}><w:body><w:p><w:r><w:t>The Lessee &x; shall keep the Premises in good '
           "repair and shall pay the rent on the first day of each month without demand, deduction "
           "or set-off of any kind whatsoever.</w:t></w:r></w:p></w:body></w:document>")
    ex = extract_bytes(make_docx([], document_xml=doc), "x.docx")
    assert "shall keep the Premises" in ex.text and "whatsoever." in ex.text
    assert "entity reference" in (ex.unreadable or "")
    assert extract_bytes(make_docx([CONTRACT]), "y.docx").unreadable is None


# -- PDF -----------------------------------------------------------------------------------------

PAGES = [
    "Page one. The Lessee shall pay rent.",
    "Page two. The Lessor shall repair the roof.",
    "",
    "Page four. Either party may terminate on notice.",
]


def test_pdf_pages_and_offsets():
    ex = extract_bytes(make_pdf(PAGES), "lease.pdf")
    assert (ex.format, ex.extractor, ex.encoding) == ("pdf", "pdfminer.six", None)
    assert ex.extractor_version.startswith("20")
    assert len(ex.page_offsets) == len(PAGES) and ex.page_offsets[0] == 0
    ends = [*ex.page_offsets[1:], len(ex.text)]
    for page, a, b in zip(PAGES, ex.page_offsets, ends, strict=True):
        assert ex.text[a:b].split() == page.split()
    assert extract_pdf_pages(make_pdf(PAGES))[1].split() == PAGES[1].split()


def test_pdf_written_to_a_path(tmp_path):
    path = tmp_path / "doc.pdf"
    make_pdf(["Only page."], path=path)
    assert extract(path).text.split() == ["Only", "page."]


def test_encrypted_pdf():
    assert code_of(make_pdf(["Secret terms."], encrypt_password="pw")) == "pdf_encrypted"
    # Encrypted with an empty user password (owner restrictions only): readable, so extracted.
    assert extract_bytes(make_pdf(["Open terms."], encrypt_password="")).text.split() == ["Open", "terms."]


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage" + bytes(500),
        make_pdf(PAGES)[:700],
        b"%PDF-1.7\n" + bytes(range(256)) * 8,
    ],
    ids=["garbage", "truncated", "noise"],
)
def test_corrupt_pdf(data):
    with pytest.raises(ExtractionError) as info:
        extract_bytes(data)
    assert info.value.code == "pdf_error"
    assert ":" in str(info.value)  # names pdfminer's exception type


def test_pdf_without_text_layer_is_unreadable():
    """Blank pages: nothing for OCR to read either. The refusal names its reason and its fix."""
    with pytest.raises(ExtractionError, match="no text layer") as info:
        extract_bytes(make_pdf(["", ""]))
    assert info.value.code == "no_text"
    assert "draws nothing on them (blank pages)" in str(info.value) and "ingest a copy that holds it" in str(info.value)


def _font_pdf(content: bytes, font: bytes) -> bytes:
    """A one-page PDF whose content uses font /F1 (given) and Helvetica as /F2."""
    objs: list[bytes] = []

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    catalog, pages, f1 = add(b""), add(b""), add(font)
    stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    page = add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R "
               b"/F2 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents %d 0 R >>"
               % (pages, f1, stream))
    objs[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages
    objs[pages - 1] = b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % page
    return serialize_pdf(objs, catalog)


# A CID font without a ToUnicode map: pdfminer can only say which glyph ids are drawn.
_CID_FONT = (b"<< /Type /Font /Subtype /Type0 /BaseFont /Hidden /Encoding /Identity-H /DescendantFonts "
             b"[<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Hidden /CIDSystemInfo << /Registry (Adobe) "
             b"/Ordering (Identity) /Supplement 0 >> /DW 500 >>] >>")


def _cid_run(text: str) -> bytes:
    return b"<" + "".join("%04X" % (ord(c) - 29) for c in text).encode() + b"> Tj"


def test_pdf_text_in_unmapped_glyphs_is_unreadable():
    content = (b"BT /F2 11 Tf 72 760 Td (Exhibit 10.3, lease.) Tj ET BT /F1 11 Tf 72 740 Td "
               + _cid_run(CONTRACT[:90]) + b" ET")
    ex = extract_bytes(_font_pdf(content, _CID_FONT), "x.pdf")
    assert "(cid:" in ex.text and "glyphs without a Unicode mapping" in ex.unreadable
    # A lone unmapped bullet in readable text is not a reason.
    content = (b"BT /F1 11 Tf 72 760 Td <0003> Tj ET BT /F2 11 Tf 90 760 Td ("
               + CONTRACT[:90].encode() + b") Tj ET")
    ex = extract_bytes(_font_pdf(content, _CID_FONT), "y.pdf")
    assert "(cid:" in ex.text and ex.unreadable is None


def _spaced_pdf(text: str, spacing: float) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.set_char_spacing(spacing)
    pdf.multi_cell(0, 5, text)
    return bytes(pdf.output())


def test_letter_spaced_pdf_text_is_rejoined():
    text = "SUPPLY AGREEMENT. " + CONTRACT * 2
    ex = extract_bytes(_spaced_pdf(text, 2), "x.pdf")
    assert _found(CONTRACT, ex.text) and ex.text.startswith("SUPPLY AGREEMENT.")
    assert ex.unreadable is None and any("letter-spaced" in w for w in ex.warnings)
    plain = extract_bytes(_spaced_pdf(text, 0), "y.pdf")
    assert _found(CONTRACT, plain.text) and plain.unreadable is None and not plain.warnings


def test_letter_spaced_pdf_text_that_falls_apart_is_unreadable():
    ex = extract_bytes(_spaced_pdf(CONTRACT * 3, 6), "x.pdf")
    assert not _found(CONTRACT, ex.text)
    assert "letter-spaced" in (ex.unreadable or "") or "single letters" in (ex.unreadable or "")


def test_pdf_page_and_text_limits():
    assert code_of(make_pdf(["a", "b", "c"]), limits=Limits(max_pdf_pages=2)) == "too_many_pages"
    assert code_of(make_pdf([PROSE] * 3), limits=Limits(max_text_chars=100)) == "text_too_long"


def slow_pdf() -> bytes:
    """400 pages of 3,000 scattered words (82 KB): minutes of real pdfminer layout work."""
    ops = b" ".join(b"BT /F1 3 Tf %d %d Td (w%d) Tj ET" % (20 + i * 37 % 560, 20 + i * 53 % 750, i) for i in range(3000))
    return make_raw_pdf([ops], repeat=400, flate=True)


def test_pdf_timeout_kills_the_child():
    worker = pdf_worker._Worker(2**30)
    try:
        with pytest.raises(ExtractionError) as info:
            worker.extract(slow_pdf(), {"max_pages": 5000, "max_chars": 10**9, "timeout": 0.5},
                           time.monotonic() + 0.5)
        assert info.value.code == "pdf_timeout"
        assert worker.proc.returncode is not None  # the child is gone, not left parsing
    finally:
        worker.close()
    assert code_of(slow_pdf(), limits=Limits(pdf_timeout=0.5)) == "pdf_timeout"
    assert extract_bytes(make_pdf(["Still works."])).text.split() == ["Still", "works."]


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_pdf_memory_limit():
    """A stream that inflates 1,000 times is a bomb, refused by its size before memory runs out;
    a 96 MiB stream that inflates 37 times, under a stream limit that lets it through, exhausts
    the child's memory instead."""
    import random

    bomb = make_raw_pdf([b" " * (256 * 2**20)], flate=True)  # a 256 MiB content stream in 260 KB
    limits = Limits(pdf_memory=128 * 2**20)
    assert len(bomb) < 1_000_000
    assert code_of(bomb, limits=limits) == "pdf_bomb"
    rng = random.Random(9)
    block = bytearray(b"0 0 m\n" * (2**20 // 6))
    for i in range(0, len(block), 40):
        block[i] = 0x30 + rng.randrange(10)  # a digit every 40 bytes: deflate gains 37 times, not 1,000
    big = make_raw_pdf([bytes(block) * 96], flate=True)
    assert 20 < 96 * 2**20 / len(big) < 100  # a compression ratio under the bomb bound
    assert code_of(big, limits=Limits(pdf_memory=128 * 2**20, pdf_max_stream_bytes=256 * 2**20)) == "pdf_memory"
    assert extract_bytes(make_pdf(PAGES), limits=limits).text.split()[:2] == ["Page", "one."]
    assert code_of(make_pdf(PAGES), limits=Limits(pdf_memory=8 * 2**20)) == "pdf_memory"


def test_hand_written_pdf_text():
    data = make_raw_pdf([text_content(["Alpha beta gamma", "delta epsilon"]), text_content(["zeta"])])
    ex = extract_bytes(data)
    assert ex.text.split() == ["Alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    assert ex.text[ex.page_offsets[1]:].split() == ["zeta"]


@pytest.mark.slow
def test_parallel_pdf_extractions_in_threads():
    docs = [make_pdf([f"Document {i} page {p} words." for p in range(3)]) for i in range(6)]
    results: dict[int, str] = {}

    def work(i: int) -> None:
        results[i] = extract_bytes(docs[i]).text

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(docs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(len(docs)):
        assert results[i].split()[:2] == ["Document", str(i)]


def test_worker_that_dies_by_a_signal():
    worker = pdf_worker._Worker(2**30)
    timer = threading.Timer(0.3, os.kill, (worker.proc.pid, signal.SIGSEGV))
    timer.start()
    try:
        with pytest.raises(ExtractionError) as info:
            worker.extract(slow_pdf(), {"max_pages": 5000, "max_chars": 10**9, "timeout": 30},
                           time.monotonic() + 30)
    finally:
        timer.cancel()
        worker.close()
    assert info.value.code == "pdf_crash" and "SIGSEGV" in str(info.value)


@pytest.mark.parametrize(
    ("script", "code"),
    [
        ("import sys; sys.stdout.write('garbage\\n')", "pdf_crash"),
        ("import sys; sys.stdout.write('5\\n{}')", "pdf_crash"),
        ("import sys; sys.exit(7)", "pdf_crash"),
        ("import sys; sys.stderr.write('MemoryError'); sys.exit(1)", "pdf_memory"),
        ("import os; os.kill(os.getpid(), 9)", "pdf_memory"),
        ("import sys; m = '{\"ok\": false, \"code\": \"pdf_encrypted\"}'; sys.stdout.write(f'{len(m)}\\n{m}')",
         "pdf_encrypted"),
    ],
)
def test_protocol_violations_give_clear_codes(script, code):
    """The parent's reading side, against real children that break the protocol."""
    worker = object.__new__(pdf_worker._Worker)
    worker.memory, worker.served, worker.retire, worker.owner, worker.stderr = 2**30, 0, False, os.getpid(), b""
    worker.proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with pytest.raises(ExtractionError) as info:
            worker.extract(b"%PDF-", {"max_pages": 1, "max_chars": 1, "timeout": 10}, time.monotonic() + 10)
    finally:
        worker.close()
    assert info.value.code == code


def test_idle_worker_is_reused_and_retired_after_failure():
    pdf_worker.shutdown()
    extract_bytes(make_pdf(["One."]))
    [worker] = pdf_worker._POOL.idle
    extract_bytes(make_pdf(["Two."]))
    assert pdf_worker._POOL.idle == [worker] and worker.served == 2
    code_of(b"%PDF-1.4\n" + bytes(range(256)) * 4)
    assert pdf_worker._POOL.idle == [] and worker.proc.returncode is not None
    pdf_worker.shutdown()
