"""The rendered-reading check of a PDF (auditor.gating.render). pdfium's reading is a page's
text layer, in its own order: only the pages whose stored text is their layer are compared
(without this every scanned PDF failed closed as render_mismatch), and by their words in any
order (without this 4 of 23 real court PDFs did, for their line numbers and running heads)."""

from __future__ import annotations

from auditor.gating.render import _compared, word_agreement
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


def test_the_other_pages_are_still_compared_and_fail_closed():
    """A hostile layer on a text page is caught though another page was read by OCR."""
    doc, stored = _doc([A, B, C], ocr=[2])
    decoy = synth.contract(7399, 300, kind="supply")
    assert word_agreement(*_compared(doc, f"{A}\f\f{decoy}", stored)).problem()
    assert word_agreement(*_compared(doc, f"{A}\f\f{C}", stored)).problem() is None


def test_words_in_another_order_agree_and_other_words_do_not():
    """pdfium puts line numbers and running heads where its text page has them: the same words
    in another order are the same reading; another text of the same length is not."""
    lines = A.split(". ")
    shuffled = ". ".join(lines[1::2] + lines[0::2])
    assert word_agreement(shuffled, A).problem() is None
    problem = word_agreement(synth.contract(7398, 300, kind="lease"), A).problem()
    assert problem and "words are stored" in problem


def test_other_documents_are_compared_whole():
    for doc, stored in (_doc([A, B, C]), _doc([A, B, C], ocr=[2], fmt="html")):
        assert _compared(doc, "rendered", stored) == ("rendered", stored)
    doc, stored = _doc([A, B, C], ocr=[2])
    assert _compared(doc, f"{A}\f{C}", stored) == (f"{A}\f{C}", stored)  # pdfium counts other pages


def test_a_line_number_margin_drawn_on_the_page_is_no_text_the_reading_lacks():
    """A mail reader draws a plain-text body's pleading margin; the reading skips it (red team
    round 6: an ordinary mail body on pleading paper failed closed, 45% agreement). The page is
    read by the plain-text reader's margin rule. Words the reading holds and the page does not
    still count, and so do numbers that are no margin."""
    from types import SimpleNamespace

    from auditor.gating.render import agreement
    from auditor.text.shingle import DEFAULT_PARAMS

    store = SimpleNamespace(params=DEFAULT_PARAMS)
    lines = [" ".join(A.split()[i : i + 9]) for i in range(0, len(A.split()), 9)] + [""] * 6
    stored = "\n".join(lines)
    for mark in ("{n}", "[{n}]", "{n}:"):  # as pdfium reads Chromium's page: one space, CR LF
        page = "\r\n".join((mark.format(n=k % 28 + 1) + " " + line).rstrip() for k, line in enumerate(lines))
        assert agreement(store, page, stored).problem() is None
    junk = "\n".join(f"{line} zebra quartz" for line in lines)
    assert agreement(store, stored, junk).problem()
    listed = "\n".join(f"{k * 7} {line}" for k, line in enumerate(lines))  # numbers that count nothing
    assert agreement(store, listed, stored).problem()
