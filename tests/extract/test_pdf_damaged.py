"""Hostile and damaged PDFs: decompression bombs fail at once by their output size (issue 40),
and damaged files are repaired or read by a second engine before they fail (issue 36)."""

from __future__ import annotations

import time
import zlib

import pytest

from auditor.errors import ExtractionError
from auditor.extract import Limits, extract_bytes
from auditor.extract.pdf import worker as pdf_worker
from tests.support import synth
from tests.support.fixtures_build import make_raw_pdf, text_content


@pytest.fixture(scope="module", autouse=True)
def _no_idle_pdf_children():
    yield
    pdf_worker.shutdown()


def _lines(seed: int, n: int = 40) -> list[str]:
    words = synth.contract(seed, 12 * n, kind="lease").split()
    return [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)][:n]


@pytest.mark.slow
def test_a_flate_bomb_fails_by_its_output_size_not_by_the_timeout():
    """391 KB of Flate that inflates to 400 MB of drawing operators cost the whole 124 s PDF
    timeout (issue 40). Its inflation stops at the byte budget: ``pdf_bomb``, in a second."""
    bomb = make_raw_pdf([text_content(_lines(1, 3)) + b"\n" + b"0 0 m\n" * (400 * 2**20 // 6)], flate=True)
    assert len(bomb) < 1_000_000
    start = time.monotonic()
    with pytest.raises(ExtractionError) as e:
        extract_bytes(bomb, "bomb.pdf", Limits(pdf_timeout=120))
    assert e.value.code == "pdf_bomb" and "decompression bomb" in str(e.value)
    assert time.monotonic() - start < 30  # a wide margin for a loaded machine; the work is under 1 s


def test_compressed_streams_under_the_budget_read_as_before():
    """Negative: a compressed text page, and a stream that inflates 1,000 times but stays under
    the free 2 MiB (a page of spaces), read in full; a long stream of ordinary text inflates
    under 10 times and stays under any ratio limit."""
    lines = _lines(2)
    page = text_content(lines)
    padded = page + b" " * (1536 * 1024)
    assert len(zlib.compress(padded, 9)) * 100 < len(padded)
    for pdf in (make_raw_pdf([page], flate=True), make_raw_pdf([padded], flate=True)):
        text = extract_bytes(pdf, "ok.pdf").text
        assert text.split() == " ".join(lines).split()


def test_the_stream_budget_is_a_limit_of_the_request():
    """A budget under a genuine stream's size refuses it: the limit is applied, not assumed."""
    pdf = make_raw_pdf([text_content(_lines(3, 60))], flate=True)
    assert extract_bytes(pdf, "a.pdf").text.strip()
    with pytest.raises(ExtractionError) as e:
        extract_bytes(pdf, "a.pdf", Limits(pdf_max_stream_bytes=1000))
    assert e.value.code == "pdf_bomb"


def _pdf_of(lines: list[str]) -> bytes:
    return make_raw_pdf([text_content(lines)])


def test_a_pdf_with_a_broken_cross_reference_table_is_repaired_and_recorded():
    """A court opinion whose xref table is gone failed ("No /Root object") though poppler reads
    it (issue 36). qpdf (pikepdf) repairs it and pdfminer reads it again; the reader is recorded."""
    lines = _lines(4, 12)
    good = _pdf_of(lines)
    broken = good[: good.rindex(b"xref")] + b"trailer <<>>\n%%EOF\n"
    ex = extract_bytes(broken, "opinion.pdf")
    assert ex.text.split() == " ".join(lines).split() and ex.unreadable is None
    assert "repair by pikepdf" in ex.meta["pdf_reader"] and ex.extractor == "pdfminer.six"
    assert any(w.startswith("pdf-recovered: pdfminer.six could not parse the file") for w in ex.warnings)
    # negative: an intact file is read directly and says nothing of a recovery
    ok = extract_bytes(good, "opinion.pdf")
    assert "pdf_reader" not in ok.meta and not any("pdf-recovered" in w for w in ok.warnings)


def test_a_pdf_nothing_can_repair_still_fails_with_its_cause():
    good = _pdf_of(_lines(5, 5))
    with pytest.raises(ExtractionError) as e:
        extract_bytes(good.replace(b"/Root", b"/Rxxx"), "x.pdf")
    assert e.value.code == "pdf_error" and "No /Root object" in str(e.value)


def test_a_pdf_cut_short_is_refused_not_read_in_part():
    """A truncated download ends inside its objects. qpdf still makes a document of what is
    left; read, a 4-page file cut after its second page was stored as auditable with 2 pages
    and no warning. pdftotext and pdfium open no such file: it is refused, naming what qpdf
    found and the fix."""
    pages = [_lines(6 + i, 8) for i in range(4)]
    whole = make_raw_pdf([text_content(p) for p in pages])
    third = whole.index(b"%d 0 obj" % 8)  # objects 1-7: catalog, page tree, font, pages 1-2
    for cut in (third, third + 40):  # after page 2's objects; inside page 3's stream
        with pytest.raises(ExtractionError) as e:
            extract_bytes(whole[:cut], "cut.pdf")
        assert e.value.code == "pdf_error" and "qpdf's repair loses part of it" in str(e.value)
        assert str(e.value).endswith("ingest a complete copy")
    # positive: cut after its last object (no cross-reference table, no trailer: repaired) or in
    # its last lines (startxref gone: pdfminer finds the trailer), every object is whole: read
    # in full, as pdftotext reads it
    for cut, repaired in ((whole.rindex(b"xref"), True), (whole.rindex(b"startxref"), False)):
        ex = extract_bytes(whole[:cut], "cut.pdf")
        assert ex.text.split() == " ".join(" ".join(p) for p in pages).split() and ex.unreadable is None
        assert ("repair by pikepdf" in ex.meta.get("pdf_reader", "")) == repaired
