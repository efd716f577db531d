"""Data parts read as a reader of EDGAR sees them (auditor.extract.data) and pictures read by OCR
(auditor.extract.image): each kind's readings hold what a reader sees, escapes and tables
resolved; what cannot be read raises with its code; bombs stay bounded."""

from __future__ import annotations

import io
import json
import struct
import zlib

import pytest

from auditor.errors import ExtractionError
from auditor.extract import extract_bytes
from auditor.extract.common import Limits
from auditor.extract.data import read_data, readable
from auditor.extract.prepare import prepared_doc
from auditor.text.shingle import Params, WordHasher
from tests.support import edgar_modern as em
from tests.support import redteam_build as b

WORDS = "the licensee shall keep every copy of the software in a safe place at all times"


def _names(readings) -> dict[str, str]:
    return {r.name: r.text for r in readings}


def test_an_xbrl_linkbase_is_read_as_its_text_nodes_attributes_and_raw_text():
    got = _names(read_data(em._labels(WORDS).encode(), "x_lab.xml", Limits()))
    assert WORDS in got["xml:text"] and "Entity Registrant Name" in got["xml:text"]
    assert "<link:label" in got["data:text"] and "<" not in got["xml:text"]
    assert "http://www.xbrl.org/2003/role/label" in got["xml:attributes"]


def test_an_instance_text_block_is_read_as_html():
    got = _names(read_data(em._instance(WORDS).encode(), "x.xml", Limits()))
    assert WORDS in got["xml:text"] and "&lt;p&gt;" in got["data:text"]


def test_json_strings_are_decoded_and_a_script_or_style_sheet_is_its_text():
    escaped = json.dumps({"doc": {"documentation": WORDS}}, ensure_ascii=True).replace("licensee", "lic\\u0065nsee")
    got = _names(read_data(escaped.encode(), "MetaLinks.json", Limits()))
    assert WORDS in got["json:strings"] and WORDS not in got["data:text"]
    assert "documentation" in got["json:strings"]
    assert _names(read_data(em._style(WORDS).encode(), "report.css", Limits())) == {"data:text": em._style(WORDS)}


def test_json_nested_beyond_the_parser_is_refused():
    with pytest.raises(ExtractionError) as e:
        read_data(b"[" * 100_000 + b"]" * 100_000, "x.json", Limits())
    assert e.value.code == "data_error"


def test_a_spreadsheet_is_read_as_its_cells_whatever_the_order_of_its_string_table():
    rows = [["Alpha one", "Bravo two"], ["Charlie three", "Delta four"]]
    got = _names(read_data(em.xlsx(rows), "Financial_Report.xlsx", Limits()))
    assert got["xlsx:cells"].split("\n") == ["Alpha one", "Bravo two", "Charlie three", "Delta four"]
    assert got["xlsx:columns"].split("\n") == ["Alpha one", "Charlie three", "Bravo two", "Delta four"]
    assert "Delta four" in got["xlsx:all-text"]


def test_the_xbrl_zip_is_read_member_by_member_within_limits():
    inner = b.zip_bytes([("notes_lab.xml", em._labels(WORDS))])
    z = b.zip_bytes([("a.xsd", em._schema()), ("filing.htm", f"<html><body><p>{WORDS}</p></body></html>"),
                     ("more.zip", inner)])
    got = _names(read_data(z, "x-xbrl.zip", Limits()))
    assert got["filing.htm: html"] == WORDS
    assert WORDS in got["more.zip/notes_lab.xml: xml:text"]
    nested = b"x" * 10
    for depth in range(5):
        nested = b.zip_bytes([(f"level{depth}.zip" if depth else "x.xsd", nested if depth else em._schema())])
    with pytest.raises(ExtractionError) as e:
        read_data(nested, "deep.zip", Limits())
    assert e.value.code == "too_large"
    bomb = b.zip_bytes([("big.xml", "<a>" + "x" * 3_000_000 + "</a>")])
    with pytest.raises(ExtractionError) as e:
        read_data(bomb, "bomb.zip", Limits(max_file_bytes=1_000_000))
    assert e.value.code == "too_large"


def test_what_no_reader_reads_is_refused_with_its_code():
    elf = b"\x7fELF\x02\x01\x01" + bytes(100)
    assert not readable(elf) and readable(b"{}") and readable(em.picture("x", width=40, size=10))
    with pytest.raises(ExtractionError) as e:
        read_data(b.zip_bytes([("tool.bin", elf)]), "x.zip", Limits())
    assert e.value.code.startswith("binary")


def test_a_viewer_page_outside_the_html_model_is_not_read():
    good = read_data(em._viewer("Cover", WORDS).encode(), "R2.htm", Limits())
    assert WORDS in _names(good)["html:page"] and "data:text" in _names(good)
    bad = f'<html><body><p style="transform: rotate(180deg)">{WORDS}</p></body></html>'
    with pytest.raises(ExtractionError) as e:
        read_data(bad.encode(), "R3.htm", Limits())
    assert e.value.code == "data_unmodelled" and "rotate" in str(e.value)


@pytest.mark.slow
def test_a_submission_hands_its_data_parts_to_a_gate_and_not_to_a_plain_ingest():
    sub = em.submission(3, {"json": WORDS})
    ex = extract_bytes(sub, "x.txt")
    data = {p.meta["sequence"]: p for p in ex.parts if p.data is not None}
    assert sorted(int(s) for s in data) == list(range(2, 15))
    assert all(p.status == "skipped" for p in data.values())  # not documents of the corpus
    params = Params()
    hasher = WordHasher(params.seed)
    plain = prepared_doc(ex, sub, params, hasher)
    assert not any(p.get("data") for p in plain["parts"])
    gated = prepared_doc(ex, sub, params, hasher, readings=True, limits=Limits())
    json_part = next(p for p in gated["parts"] if p["meta"]["sequence"] == "12")
    assert json_part["data"]["kind"] == "data:json"
    assert any(WORDS in r["text"] for r in json_part["data"]["readings"])


# -- pictures ------------------------------------------------------------------------------------

def _png(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width`` x ``height`` and whose data is one empty row."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 2)) + chunk(b"IEND", b""))


def test_a_picture_of_words_is_read_by_ocr_and_a_logo_reads_as_few_words():
    got = _names(read_data(em.picture(WORDS, width=700, size=22, fmt="PNG"), "page.png", Limits()))
    assert WORDS.split()[:6] == got["ocr:picture"].lower().split()[:6]
    logo = _names(read_data(em.picture("ACME", width=200, size=36), "logo.jpg", Limits()))["ocr:picture"]
    assert len(logo.split()) <= 2


def test_a_pixel_bomb_and_a_damaged_picture_are_refused_without_decoding():
    with pytest.raises(ExtractionError) as e:
        read_data(_png(100_000, 100_000), "bomb.png", Limits())
    assert e.value.code == "image_too_large"
    with pytest.raises(ExtractionError) as e:
        read_data(b"\x89PNG\r\n\x1a\n" + bytes(64), "broken.png", Limits())
    assert e.value.code == "image_error"
    with pytest.raises(ExtractionError) as e:
        read_data(em.picture("x", width=40, size=10), "x.jpg", Limits(ocr="never"))
    assert e.value.code == "image_unread"


@pytest.mark.slow
def test_a_tiff_scan_is_a_document_of_its_pages():
    from PIL import Image

    pages = [Image.open(io.BytesIO(em.picture(t, width=700, size=22, fmt="PNG"))) for t in (WORDS, "second page here")]
    out = io.BytesIO()
    pages[0].save(out, "TIFF", save_all=True, append_images=pages[1:])
    ex = extract_bytes(out.getvalue(), "scan.tif")
    assert ex.format == "image" and ex.page_offsets is not None and len(ex.page_offsets) == 2
    assert "licensee" in ex.text[: ex.page_offsets[1]].lower() and "second page" in ex.text[ex.page_offsets[1]:].lower()
    assert [f["page"] for f in ex.meta["ocr"]["frames"]] == [1, 2] and ex.unreadable is None
    blank = io.BytesIO()
    Image.new("L", (300, 200), 255).save(blank, "PNG")
    assert extract_bytes(blank.getvalue(), "blank.png").text == ""  # read: no word to hold a document
