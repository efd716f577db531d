"""The rendered-reading check of a PDF (auditor.gating.render) with pages read by OCR or not
read: pdfium's reading is a page's text layer, so only the pages whose stored text is their
layer are compared. Without this every scanned PDF failed closed as render_mismatch."""

from __future__ import annotations

from auditor.gating.render import _compared, agreement
from tests.support import synth


def _doc(pages: list[str], ocr: list[int] = (), unread: list[int] = (), fmt: str = "pdf") -> tuple[dict, str]:
    offsets, pos = [], 0
    for p in pages:
        offsets.append(pos)
        pos += len(p)
    meta = {"ocr": {"pages": [{"page": n, "used": "ocr"} for n in ocr]}} if ocr else {}
    if unread:
        meta["unread_pages"] = [{"page": n, "reason": "a map"} for n in unread]
    return {"format": fmt, "meta": meta, "page_offsets": offsets}, "".join(pages)


A, B, C = (synth.contract(7300 + i, 300, kind="lease") + "\n" for i in range(3))


def test_pages_read_by_ocr_or_unread_are_left_out_of_both_sides():
    doc, stored = _doc([A, B, C], ocr=[2])
    assert _compared(doc, f"{A}\f\f{C}", stored) == (f"{A}\f{C}", A + C)  # page 2: a scan, no layer
    doc, stored = _doc([A, "", C], unread=[2])
    assert _compared(doc, f"{A}\f\f{C}", stored) == (f"{A}\f{C}", A + C)


def test_the_other_pages_are_still_compared_and_fail_closed(store):
    """A hostile layer on a text page is caught though another page was read by OCR."""
    doc, stored = _doc([A, B, C], ocr=[2])
    decoy = synth.contract(7399, 300, kind="supply")
    assert agreement(store, *_compared(doc, f"{A}\f\f{decoy}", stored)).problem()
    assert agreement(store, *_compared(doc, f"{A}\f\f{C}", stored)).problem() is None


def test_other_documents_are_compared_whole():
    for doc, stored in (_doc([A, B, C]), _doc([A, B, C], ocr=[2], fmt="html")):
        assert _compared(doc, "rendered", stored) == ("rendered", stored)
    doc, stored = _doc([A, B, C], ocr=[2])
    assert _compared(doc, f"{A}\f{C}", stored) == (f"{A}\f{C}", stored)  # pdfium counts other pages
