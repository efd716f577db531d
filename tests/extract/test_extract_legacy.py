"""Legacy word-processor formats (issue #36): Word 97-2003 .doc through antiword, WordPerfect
through wpd2text, RTF through striprtf; the converters run under the extraction's limits and
fail closed, naming the package, when they are missing.

The .doc and .wpd files are built here from the published formats (tests/support/legacy_build.py)
and hold licence texts written by others; the converters are the real Debian programs that
.ci/run installs.
"""

from __future__ import annotations

import os
import shutil
import stat
import time

import pytest

from auditor.errors import ExtractionError
from auditor.extract import Limits, extract_bytes
from auditor.extract.detect import detect_format, not_read
from auditor.extract.legacy import _docbook, ole_kind
from auditor.text.normalize import words
from tests.support.hostile import wait_for
from tests.support.legacy_build import make_doc, make_ole, make_wpd
from tests.support.licences import licence

needs_antiword = pytest.mark.skipif(shutil.which("antiword") is None, reason="antiword is not installed (.ci/run installs it)")
needs_wpd2text = pytest.mark.skipif(shutil.which("wpd2text") is None,
                                    reason="wpd2text is not installed (libwpd-tools; .ci/run installs it)")


def paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


def ascii_only(ps: list[str]) -> list[str]:
    return [p.encode("ascii", "replace").decode() for p in ps]


# -- Word 97-2003 -------------------------------------------------------------------------------

@needs_antiword
def test_a_word_97_document_is_read_by_antiword_whatever_its_name():
    ps = ascii_only(paragraphs(licence(4)))
    data = make_doc(ps)
    for name in ("opinion.doc", "opinion.bin", ""):
        ex = extract_bytes(data, name)
        assert ex.format == "doc" and ex.extractor == "antiword" and ex.extractor_version[0].isdigit()
        assert words(ex.text) == words("\n".join(ps))
        assert ex.text.split("\n") == ps  # a paragraph a line
        assert ex.unreadable is None


def test_ole_files_are_told_apart_by_their_streams():
    assert ole_kind(make_ole({"WordDocument": b"x", "1Table": b"y"})) == "doc"
    assert ole_kind(make_ole({"Workbook": b"x"})) == "xls"
    assert ole_kind(make_ole({"PowerPoint Document": b"x"})) == "ppt"
    assert ole_kind(make_ole({"__substg1.0_0037001F": b"x"})) == "msg"
    assert ole_kind(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100) == "ole"  # a damaged directory


@pytest.mark.parametrize("streams, code, fix", [
    ({"Workbook": b"x"}, "binary:xls", "not prose"),
    ({"__substg1.0_0037001F": b"x"}, "binary:msg", "save it from Outlook as .eml"),
    ({"PowerPoint Document": b"x"}, "binary:ppt", "save it as PDF"),
])
def test_other_ole_files_are_refused_with_what_they_are_and_what_to_do(streams, code, fix):
    data = make_ole(streams)
    assert detect_format(data, "x.doc") == "ole"
    with pytest.raises(ExtractionError) as e:
        extract_bytes(data, "x.doc")
    assert e.value.code == code and fix in str(e.value)
    assert not_read(data, "x.xls")[0] == code  # as an EDGAR part or archive member too


def test_a_word_document_inside_a_submission_or_archive_is_read_not_skipped():
    assert not_read(make_ole({"WordDocument": b"x", "1Table": b"y"}), "exhibit.doc") is None
    assert not_read(make_wpd(["Text."]), "exhibit.wpd") is None


def test_docbook_output_is_read_cell_by_cell_with_footnotes_after_the_body():
    xml = b"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE book PUBLIC "-//OASIS//DTD DocBook XML V4.1.2//EN" "http://www.oasis-open.org/docbook/xml/4.1.2/docbookx.dtd">
<book lang='en_US'>
<title>Document title property</title>
 <bookinfo><title>Document title property</title><author><surname>Clerk</surname></author>
<date>2004-05-06</date></bookinfo>
 <chapter><title>In the Indiana Supreme Court</title>
  <para>
The court held that the statute<footnote><para>
See the statute at issue.
</para></footnote> applies to
the appellant.
  </para>
  <para><informaltable><tgroup cols='2'><tbody><row>
   <entry>
Can you release
commercial works?
   </entry><entry>Yes</entry></row></tbody></tgroup></informaltable></para>
 </chapter></book>"""
    text, found = _docbook(xml)
    assert text == ("In the Indiana Supreme Court\nThe court held that the statute applies to the appellant.\n"
                    "Can you release commercial works?\nYes\n\nSee the statute at issue.")
    assert found == {"doc:date": "2004-05-06"}


def test_antiword_writes_characters_beyond_the_bmp_as_surrogates_and_they_are_kept():
    cesu = "\U0001f600".encode("utf-16-le").decode("utf-16-le", "surrogatepass")
    xml = ("<book><chapter><para>Unicode characters in to see " + "".join(
        c.encode("utf-8", "surrogatepass").decode("latin-1") for c in "\ud83d\ude00") + " here</para></chapter></book>")
    text, _ = _docbook(xml.encode("latin-1"))
    assert text == f"Unicode characters in to see {cesu} here"


# -- converters: missing, hanging, limited --------------------------------------------------------

def test_a_missing_converter_fails_closed_naming_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    for data, tool, package in ((make_doc(["Some text of the lease."] * 3), "antiword", "antiword"),
                                (make_wpd(["Some text of the lease."]), "wpd2text", "libwpd-tools")):
        with pytest.raises(ExtractionError) as e:
            extract_bytes(data, "x")
        assert e.value.code == "converter_missing"
        assert f"apt-get install {package}" in str(e.value) and tool in str(e.value)


def _fake_tool(tmp_path, name: str, script: str) -> None:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_a_hanging_converter_is_killed_at_the_limit_with_what_it_started(monkeypatch, tmp_path):
    _fake_tool(tmp_path, "wpd2text", f"sleep 60 & echo $! > {tmp_path}/child\nsleep 60\n")
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    start = time.monotonic()
    with pytest.raises(ExtractionError) as e:
        extract_bytes(make_wpd(["Text."]), "x.wpd", Limits(timeout=1))
    assert e.value.code == "convert_timeout" and "--timeout" in str(e.value)
    assert time.monotonic() - start < 10
    child = int((tmp_path / "child").read_text())
    assert wait_for(lambda: _gone(child), 5), "the converter's own child outlived it"


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] == "Z"  # killed, waiting to be reaped
    except FileNotFoundError:
        return True


def test_a_converter_that_writes_without_end_is_stopped_at_the_text_limit(monkeypatch, tmp_path):
    _fake_tool(tmp_path, "wpd2text", "yes 'the lease is long'\n")
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    with pytest.raises(ExtractionError) as e:
        extract_bytes(make_wpd(["Text."]), "x.wpd", Limits(max_text_chars=10_000))
    assert e.value.code == "text_too_long"


def test_a_converter_that_fails_says_what_it_said_and_what_to_do(monkeypatch, tmp_path):
    _fake_tool(tmp_path, "wpd2text", "echo 'ERROR: Unsupported file format!' >&2\nexit 1\n")
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    with pytest.raises(ExtractionError) as e:
        extract_bytes(make_wpd(["Text."]), "x.wpd")
    assert e.value.code == "convert_error"
    assert "Unsupported file format" in str(e.value) and "save it" in str(e.value)


# -- WordPerfect ---------------------------------------------------------------------------------

@needs_wpd2text
def test_a_wordperfect_document_is_read_by_wpd2text():
    ps = ascii_only(paragraphs(licence(9)))
    ex = extract_bytes(make_wpd(ps), "opinion.wpd")
    assert ex.format == "wpd" and ex.extractor == "wpd2text" and ex.extractor_version[0].isdigit()
    assert words(ex.text) == words("\n".join(ps)) and ex.unreadable is None


def test_wordperfect_is_known_by_its_magic_bytes_not_its_name():
    assert detect_format(make_wpd(["Text."]), "notes.txt") == "wpd"
    assert detect_format(b"WPC is not a magic number here", "x.wpd") == "text"


# -- RTF -----------------------------------------------------------------------------------------

def _rtf(body: str) -> bytes:
    return ("{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0 Times New Roman;}}\n" + body + "}").encode("ascii")


def test_rtf_is_read_as_its_text_with_footnotes_after_the_body():
    ps = ascii_only(paragraphs(licence(2)))[:6]
    body = "\\par\n".join(p.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}") for p in ps)
    note = "{\\footnote \\pard\\plain {\\up6\\chftn} See the licence at issue.}"
    ex = extract_bytes(_rtf(body.replace(" ", note + " ", 1) + "\\par"), "x.rtf")
    assert ex.format == "rtf" and ex.extractor == "striprtf"
    assert words(ex.text) == words("\n".join(ps) + "\nSee the licence at issue.")
    assert ex.text.endswith("\n\nSee the licence at issue.") and ex.unreadable is None


def test_rtf_escapes_are_decoded():
    ex = extract_bytes(_rtf("Caf\\'e9 \\u8220?quoted\\u8221? text of the lease\\par"), "x.rtf")
    assert ex.text == "Caf\u00e9 \u201cquoted\u201d text of the lease"


@pytest.mark.parametrize("hide", ["{\\v hidden junk words}", "{\\deleted removed junk words}"])
def test_rtf_with_hidden_text_fails_closed(hide):
    ex = extract_bytes(_rtf(f"The lease {hide} of the premises.\\par"), "x.rtf")
    assert (ex.unreadable or "").startswith("rtf-hidden:")
    plain = extract_bytes(_rtf("The lease {\\b of} the premises.\\v0\\par"), "x.rtf")  # \v0 turns it off
    assert plain.unreadable is None


def test_rtf_fields_show_their_result_not_their_code():
    field = '{\\field{\\*\\fldinst{HYPERLINK "https://court.example.gov/lease"}}{\\fldrslt{the court site}}}'
    ex = extract_bytes(_rtf(f"The lease is at {field} today.\\par"), "x.rtf")
    assert ex.text == "The lease is at the court site today."


@pytest.mark.parametrize("body, hidden", [
    ("{\\colortbl;\\red0\\green0\\blue0;\\red255\\green255\\blue255;}The lease {\\cf2 junk} of the premises.\\par", True),
    ("{\\colortbl;\\red0\\green0\\blue0;\\red255\\green255\\blue255;}The lease {\\cf1 of} the premises.\\par", False),
    ("The lease {\\fs2 junk} of the premises.\\par", True),
    ("The lease {\\fs24 of} the premises.\\par", False),
    ("The lease of the premises.{\\fs2\\par}", False),  # a 2 pt empty spacer paragraph hides no word
])
def test_rtf_with_white_or_tiny_text_fails_closed(body, hidden):
    """White text is refused as rtf-hidden; words set under 3 pt are outside the model
    (model/rtf.py): both fail closed in a gate (CONTAIN006)."""
    ex = extract_bytes(_rtf(body), "x.rtf")
    refused = (ex.unreadable or "").startswith("rtf-hidden:") or "rtf: text set under 3 pt (\\fs2)" in ex.unmodelled
    assert refused is hidden
