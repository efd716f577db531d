"""EDGAR full-submission files: header metadata, documents as parts, and per-part content."""

from __future__ import annotations

import hashlib

import pytest

from auditor import edgar
from auditor.errors import ExtractionError
from auditor.extract import Limits, detect_format, extract_bytes
from tests.fixtures_build import make_edgar_submission, make_pdf, uuencode

HEADER = {
    "accession_number": "0000950170-22-000796",
    "form_type": "10-K",
    "filing_date": "20220207",
    "period": "20211231",
    "company_name": "EXAMPLE HOLDINGS INC",
    "cik": "0001234567",
    "filers": [("EXAMPLE OPERATING PARTNERSHIP LP", "0007654321")],
}
TEN_K = """<html><head><title>10-K</title><style>td {}</style></head><body>
<p style="text-align:center"><b>UNITED STATES<br>SECURITIES AND EXCHANGE COMMISSION</b></p>
<p>Item&#160;1. Business. The Company leases office space &amp; warehouses.</p>
<table><tr><td>Revenue</td><td>$&#160;1,000</td></tr></table>
</body></html>"""
CONTRACT = """                         LEASE AGREEMENT

     This Lease Agreement is made between Landlord and Tenant. The Tenant
shall pay rent of $1,000 on the first day of each month.
"""
EXHIBIT_PAGES = ["Exhibit 99.1 page one. Press release.", "Page two of the exhibit.", "Page three, the end."]
INLINE_XBRL = """<XBRL>
<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL">
<head><title>q</title></head><body>
<div style="display:none"><ix:header><ix:hidden><ix:nonNumeric name="dei:DocumentType">10-Q</ix:nonNumeric></ix:hidden>
<ix:resources><xbrli:context id="c1">2021-12-31</xbrli:context></ix:resources></ix:header></div>
<p>Quarterly report: net income was <ix:nonFraction name="us-gaap:NetIncome">42</ix:nonFraction> million.</p>
</body></html>
</XBRL>"""
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + bytes(range(256)) + b"\x00;"


@pytest.fixture(scope="module")
def exhibit_pdf() -> bytes:
    return make_pdf(EXHIBIT_PAGES)


@pytest.fixture(scope="module")
def submission(exhibit_pdf) -> bytes:
    return make_edgar_submission(HEADER, [
        {"type": "10-K", "filename": "ex-10k.htm", "description": "ANNUAL REPORT", "text": TEN_K},
        {"type": "EX-10.1", "filename": "ex10-1.txt", "description": "LEASE AGREEMENT", "text": CONTRACT},
        {"type": "EX-99.1", "filename": "ex99-1.pdf", "description": "PRESS RELEASE", "data": exhibit_pdf},
        {"type": "GRAPHIC", "filename": "logo.gif", "data": GIF},
        {"type": "EX-101.INS", "filename": "exm-20211231.xml", "description": "XBRL INSTANCE",
         "text": '<XBRL>\n<?xml version="1.0"?>\n<xbrli:xbrl><dei:DocumentType>10-K</dei:DocumentType></xbrli:xbrl>\n</XBRL>'},
        {"type": "10-Q", "filename": "q.htm", "text": INLINE_XBRL},
    ])


def test_submission_header_and_parts(submission, exhibit_pdf):
    assert detect_format(submission, "0000950170-22-000796.txt") == "edgar"
    ex = extract_bytes(submission, "0000950170-22-000796.txt")
    assert (ex.format, ex.text, ex.extractor) == ("edgar", "", "auditor.edgar")
    assert ex.meta == {
        "accession_number": "0000950170-22-000796", "form_type": "10-K", "filing_date": "20220207",
        "period": "20211231", "company_name": "EXAMPLE HOLDINGS INC", "cik": "0001234567",
        "ciks": ["0001234567", "0007654321"],
    }
    assert [(p.meta["type"], p.meta["sequence"], p.status, p.code) for p in ex.parts] == [
        ("10-K", "1", "ok", None),
        ("EX-10.1", "2", "ok", None),
        ("EX-99.1", "3", "ok", None),
        ("GRAPHIC", "4", "skipped", "binary:gif"),
        ("EX-101.INS", "5", "ok", None),
        ("10-Q", "6", "ok", None),
    ]
    assert ex.parts[0].meta == {"type": "10-K", "sequence": "1", "filename": "ex-10k.htm", "description": "ANNUAL REPORT"}
    for part in ex.parts:
        if part.extracted:
            assert part.extracted.meta["filename"] == part.meta["filename"]
        assert part.message or part.status == "ok"


def test_part_raw_is_the_text_element_content(submission):
    ex = extract_bytes(submission)
    contract = ex.parts[1]
    assert contract.raw == b"\n" + CONTRACT.encode()
    start = submission.index(b"<TEXT>", submission.index(b"<FILENAME>ex10-1.txt")) + len(b"<TEXT>")
    assert submission[start : start + len(contract.raw) + len(b"</TEXT>")] == contract.raw + b"</TEXT>"
    assert len({hashlib.sha256(p.raw).hexdigest() for p in ex.parts}) == len(ex.parts)


def test_html_body(submission):
    body = extract_bytes(submission).parts[0].extracted
    assert (body.format, body.extractor) == ("html", "lxml")
    assert body.text == (
        "UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\n\n"
        "Item 1. Business. The Company leases office space & warehouses.\n\n"
        "Revenue\t$ 1,000"
    )


def test_plain_text_exhibit(submission):
    contract = extract_bytes(submission).parts[1].extracted
    assert (contract.format, contract.extractor, contract.encoding) == ("text", "auditor.text", "utf-8")
    assert contract.text == CONTRACT.rstrip("\n")


def test_embedded_pdf_is_uudecoded_and_extracted_with_pages(submission):
    pdf = extract_bytes(submission).parts[2].extracted
    assert (pdf.format, pdf.extractor) == ("pdf", "pdfminer.six")
    assert len(pdf.page_offsets) == 3
    ends = [*pdf.page_offsets[1:], len(pdf.text)]
    for page, a, b in zip(EXHIBIT_PAGES, pdf.page_offsets, ends, strict=True):
        assert pdf.text[a:b].split() == page.split()


def test_inline_xbrl_is_html_without_hidden_facts(submission):
    q = extract_bytes(submission).parts[5].extracted
    assert q.format == "html"
    assert q.text == "Quarterly report: net income was 42 million."


def test_tagged_submission_variant():
    data = make_edgar_submission(HEADER, [
        {"type": "8-K", "filename": "form8k.htm", "text": "<html><body><p>Current report.</p></body></html>"},
        {"type": "EX-3.1", "filename": "ex3.txt", "description": "BYLAWS", "text": "Article I. Offices."},
    ], style="submission")
    assert data.startswith(b"<SUBMISSION>\n<ACCESSION-NUMBER>0000950170-22-000796\n")
    ex = extract_bytes(data)
    assert ex.meta["form_type"] == "10-K" and ex.meta["accession_number"] == "0000950170-22-000796"
    assert ex.meta["company_name"] == "EXAMPLE HOLDINGS INC" and ex.meta["cik"] == "0001234567"
    assert ex.meta["ciks"] == ["0001234567", "0007654321"] and ex.meta["period"] == "20211231"
    assert [p.meta["type"] for p in ex.parts] == ["8-K", "EX-3.1"]
    assert [p.extracted.text for p in ex.parts] == ["Current report.", "Article I. Offices."]


def test_privacy_enhanced_message_wrapper():
    data = make_edgar_submission(HEADER, [{"type": "10-K", "filename": "a.txt", "text": "Annual report text."}], style="pem")
    assert data.startswith(b"-----BEGIN PRIVACY-ENHANCED MESSAGE-----")
    ex = extract_bytes(data)
    assert ex.format == "edgar" and ex.meta["accession_number"] == "0000950170-22-000796"
    assert ex.meta["form_type"] == "10-K" and ex.parts[0].extracted.text == "Annual report text."


def test_accession_number_from_the_envelope_line():
    data = make_edgar_submission(HEADER, [{"type": "10-K", "filename": "a.txt", "text": "Text."}])
    data = data.replace(b"ACCESSION NUMBER:\t\t0000950170-22-000796\n", b"")
    assert b"ACCESSION NUMBER" not in data
    assert extract_bytes(data).meta["accession_number"] == "0000950170-22-000796"


def test_crlf_submission():
    data = make_edgar_submission(HEADER, [{"type": "EX-10.2", "filename": "b.txt", "text": "Line one.\nLine two."}])
    ex = extract_bytes(data.replace(b"\n", b"\r\n"))
    assert ex.meta["form_type"] == "10-K" and ex.meta["company_name"] == "EXAMPLE HOLDINGS INC"
    assert ex.parts[0].meta["filename"] == "b.txt" and ex.parts[0].extracted.text == "Line one.\nLine two."


def test_old_ascii_filing_tags_are_stripped():
    text = """<PAGE>   1
                          CONSOLIDATED BALANCE SHEET
<TABLE>
<CAPTION>
                                        1995        1994
<S>                                   <C>         <C>
Cash                                  $ 100       $ 90
</TABLE>
<FN>
(1) Restated.
</FN>
<PAGE>   2
Notes to the statements.
"""
    data = make_edgar_submission(HEADER, [{"type": "10-K405", "filename": "d.txt", "text": text}])
    out = extract_bytes(data).parts[0].extracted.text
    assert "<" not in out
    assert out.split() == ["1", "CONSOLIDATED", "BALANCE", "SHEET", "1995", "1994", "Cash", "$", "100",
                           "$", "90", "(1)", "Restated.", "2", "Notes", "to", "the", "statements."]


def test_a_corrupt_embedded_pdf_fails_only_its_part():
    data = make_edgar_submission(HEADER, [
        {"type": "10-K", "filename": "a.txt", "text": "The annual report."},
        {"type": "EX-99", "filename": "broken.pdf", "data": b"%PDF-1.4\n" + bytes(range(256)) * 4},
    ])
    ex = extract_bytes(data)
    assert [(p.status, p.code) for p in ex.parts] == [("ok", None), ("failed", "pdf_error")]
    assert ex.parts[1].extracted is None and ex.parts[1].message


def test_part_limits_apply_per_part():
    data = make_edgar_submission(HEADER, [
        {"type": "10-K", "filename": "a.txt", "text": "Short."},
        {"type": "EX-13", "filename": "b.txt", "text": "A much longer exhibit text. " * 10},
    ])
    ex = extract_bytes(data, limits=Limits(max_text_chars=100))
    assert [(p.status, p.code) for p in ex.parts] == [("ok", None), ("failed", "text_too_long")]


def test_uuencoded_text_document_is_extracted():
    data = make_edgar_submission(HEADER, [{"type": "EX-27", "filename": "ex27.txt", "data": b"FINANCIAL DATA SCHEDULE\nTOTAL-ASSETS 100\n"}])
    part = extract_bytes(data).parts[0]
    assert part.status == "ok" and part.extracted.text.split() == ["FINANCIAL", "DATA", "SCHEDULE", "TOTAL-ASSETS", "100"]


def test_empty_documents_are_skipped():
    data = make_edgar_submission(HEADER, [
        {"type": "EX-99", "filename": "blank.txt", "text": "   \n"},
        {"type": "D", "filename": "primary_doc.xml", "text": "<XML>\n<?xml version=\"1.0\"?><edgarSubmission/>\n</XML>"},
    ])
    assert [(p.status, p.code) for p in extract_bytes(data).parts] == [("skipped", "empty"), ("skipped", "empty")]


def test_unclosed_document_is_malformed():
    data = make_edgar_submission(HEADER, [
        {"type": "10-K", "filename": "a.txt", "text": "Complete."},
        {"type": "EX-1", "filename": "b.txt", "text": "Cut off in the middle", "close": False},
    ])
    with pytest.raises(ExtractionError) as info:
        extract_bytes(data[: data.index(b"</SEC-DOCUMENT>")])
    assert info.value.code == "edgar_malformed"


def test_submission_without_documents_is_empty():
    data = make_edgar_submission(HEADER, [])
    with pytest.raises(ExtractionError) as info:
        extract_bytes(data)
    assert info.value.code == "empty"


def test_uudecode_is_tolerant():
    payload = bytes(range(256)) * 3
    coded = uuencode(payload, "x.bin").split(b"\n", 1)[1]
    assert edgar.uudecode(coded) == (payload, 0)
    lines = coded.split(b"\n")
    lines[2] = lines[2] + b"!!garbage"  # trailing junk after a full line, a known encoder bug
    lines.insert(3, b"\x7f\x7f")  # unusable line
    data, bad = edgar.uudecode(b"\n".join(lines))
    assert bad == 1 and data == payload


def test_content_classification():
    assert edgar.content(b"\n<html><body>x</body></html>\n").kind == "html"
    assert edgar.content(b"\n<P>Old html paragraph\n").kind == "html"
    assert edgar.content(b"\n<PAGE>\nplain\n").kind == "text"
    assert edgar.content(b"\n<XBRL>\n<xbrl/>\n</XBRL>\n").kind == "xbrl"
    gif = edgar.content(b"\n" + uuencode(GIF, "logo.gif"))
    assert (gif.kind, gif.name, gif.payload) == ("binary", "logo.gif", GIF)
    pdf = edgar.content(b"\n<PDF>\n" + uuencode(b"%PDF-1.4 x", "a.pdf") + b"</PDF>\n")
    assert (pdf.kind, pdf.payload) == ("binary", b"%PDF-1.4 x")


# -- parts a submitter could hide a contract in -------------------------------------------------

LEASE = ("The Lessee shall keep the Premises in good repair and shall pay the rent on the first "
         "day of each month without demand, deduction or set-off of any kind whatsoever.\n")
OTHER = ("The Borrower shall repay each Loan on the Maturity Date together with accrued interest "
         "at the rate set out in the Schedule.\n")


def _part(doc: dict):
    ex = extract_bytes(make_edgar_submission(HEADER, [doc]))
    assert len(ex.parts) == 1
    return ex.parts[0]


def _has(text: str, body: str) -> bool:
    from auditor.normalize import normalize

    return normalize(body) in normalize(text)


@pytest.mark.parametrize("wrapper", ["XML", "XBRL"])
def test_xml_and_xbrl_parts_give_their_text(wrapper):
    xml = (f'<{wrapper}>\n<?xml version="1.0"?>\n<agreement xmlns="urn:x"><title>Lease</title>'
           f"<clause n='1'>{LEASE}</clause></agreement>\n</{wrapper}>")
    part = _part({"type": "EX-10.1", "filename": "lease.xml", "text": xml})
    assert part.status == "ok" and _has(part.extracted.text, LEASE)
    other = _part({"type": "EX-10.2", "filename": "loan.xml",
                   "text": f"<{wrapper}>\n<loan><c>{OTHER}</c></loan>\n</{wrapper}>"})
    assert other.status == "ok" and not _has(other.extracted.text, LEASE)


def test_xbrl_text_blocks_give_the_visible_text_of_their_html():
    block = (f"&lt;div&gt;&lt;p style='x'&gt;{LEASE}&lt;/p&gt;&lt;/div&gt;")
    xml = ('<XBRL>\n<?xml version="1.0"?>\n<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" '
           'xmlns:us-gaap="http://fasb.org/us-gaap/2023"><us-gaap:LeasesOfLesseeDisclosureTextBlock '
           f'contextRef="c1">{block}</us-gaap:LeasesOfLesseeDisclosureTextBlock></xbrli:xbrl>\n</XBRL>')
    part = _part({"type": "EX-101.INS", "filename": "x.xml", "text": xml})
    assert _has(part.extracted.text, LEASE) and "<p" not in part.extracted.text


def _gz(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, mtime=0)


def _zip(members: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize(("filename", "data"), [
    ("lease.txt.gz", _gz(LEASE.encode())),
    ("lease.htm.gz", _gz(f"<html><body><p>{LEASE}</p></body></html>".encode())),
    ("exhibits.zip", _zip({"a/cover.txt": b"Cover page.", "b/lease.htm": f"<html><body>{LEASE}</body></html>".encode()})),
    ("nested.zip", _zip({"inner.gz": _gz(LEASE.encode("utf-16"))})),
])
def test_uuencoded_compressed_parts_are_unpacked(filename, data):
    part = _part({"type": "EX-10.1", "filename": filename, "data": data})
    assert part.status == "ok" and _has(part.extracted.text, LEASE) and part.extracted.unreadable is None
    other = _part({"type": "EX-10.2", "filename": filename, "data": _gz(OTHER.encode())})
    assert other.status == "ok" and not _has(other.extracted.text, LEASE)


def test_compressed_parts_are_bounded_and_unread_members_are_named():
    bomb = _gz(b"a " * 3_000_000)
    part = extract_bytes(make_edgar_submission(HEADER, [{"type": "EX-1", "filename": "a.gz", "data": bomb}]),
                         limits=Limits(max_file_bytes=1_000_000)).parts[0]
    assert (part.status, part.code) == ("failed", "too_large")
    gif = b"GIF89a" + bytes(range(200))
    part = _part({"type": "EX-10.1", "filename": "x.zip", "data": _zip({"lease.txt": LEASE.encode(), "logo.gif": gif})})
    assert part.status == "ok" and _has(part.extracted.text, LEASE)
    assert "logo.gif: gif content is not read" in part.extracted.unreadable


def test_nested_archive_bombs_are_too_large_at_any_depth():
    """The inflation limit holds for the archive as a whole: a .gz.gz bomb is ``too_large``, never
    "empty", and so is nesting past the depth limit; a small nested archive is still read."""
    limits = Limits(max_file_bytes=1_000_000)
    cases = {
        "gz.gz": _gz(_gz(b"a " * 3_000_000)),  # inner 3 MB, outer only its compressed size
        "zip-of-gz": _zip({"x.gz": _gz(b"a " * 3_000_000)}),
        "two-members": _zip({"a.gz": _gz(b"b " * 300_000), "b.gz": _gz(b"c " * 300_000)}),  # 1.2 MB together
        "deep": _gz(_gz(_gz(_gz(LEASE.encode())))),
    }
    for name, data in cases.items():
        part = extract_bytes(make_edgar_submission(HEADER, [{"type": "EX-1", "filename": "a.gz", "data": data}]),
                             limits=limits).parts[0]
        assert (part.status, part.code) == ("failed", "too_large"), (name, part.code, part.message)
    small = _gz(_gz(LEASE.encode()))
    part = extract_bytes(make_edgar_submission(HEADER, [{"type": "EX-1", "filename": "a.gz", "data": small}]),
                         limits=limits).parts[0]
    assert part.status == "ok" and _has(part.extracted.text, LEASE)


def test_text_with_control_characters_keeps_its_text():
    import random

    r = random.Random(3)
    noisy = "".join(c + (chr(r.choice([1, 2, 3, 0x10, 0x1b, 0x7f])) if r.random() < 0.3 else "") for c in LEASE)
    part = _part({"type": "EX-10.1", "filename": "lease.txt", "text": noisy})
    assert part.status == "ok" and _has(part.extracted.text, LEASE)
    assert any("control characters" in w for w in part.extracted.warnings)
    assert extract_bytes(LEASE.encode() + b"\x01", "x.txt").text.strip() == LEASE.strip()
    r = random.Random(4)
    junk = bytes(r.randrange(256) for _ in range(5000))
    part = _part({"type": "EX-99", "filename": "junk.txt", "text": junk.replace(b"<", b"")})
    assert (part.status, part.code) == ("skipped", "binary")
    part = _part({"type": "EX-99", "filename": "junk.htm", "text": b"<p>" + junk})  # read as HTML
    assert part.status != "ok" or "gibberish" in (part.extracted.unreadable or "")


def test_image_only_pdf_part_is_failed_with_the_reason():
    part = _part({"type": "EX-99.1", "filename": "scan.pdf", "data": make_pdf(["", ""])})
    assert (part.status, part.code) == ("failed", "no_text") and "no text layer" in part.message


def test_xml_part_cut_off_mid_element_is_recorded_unreadable():
    part = _part({"type": "EX-10.1", "filename": "x.xml", "text": f"<XML>\n<a><b>{LEASE}</b><c>more"})
    assert part.status == "ok" and _has(part.extracted.text, LEASE)
    assert "not well-formed" in part.extracted.unreadable
    ok = _part({"type": "EX-10.1", "filename": "y.xml", "text": f"<XML>\n<a><b>{LEASE}</b></a>\n</XML>"})
    assert ok.extracted.unreadable is None


def test_part_lines_point_at_each_documents_sequence_tag():
    data = make_edgar_submission(HEADER, [
        {"type": "10-K", "filename": "a.txt", "text": "Annual report.\nSecond line.\n"},
        {"type": "EX-10.1", "filename": "b.txt", "sequence": "7", "text": "Exhibit.\n"},
    ])
    lines = data.split(b"\n")
    assert edgar.part_lines(data) == {"1": lines.index(b"<SEQUENCE>1") + 1, "7": lines.index(b"<SEQUENCE>7") + 1}
    # a document without <SEQUENCE> is the part named by its position: the line of its <DOCUMENT>
    unnamed = data.replace(b"<SEQUENCE>7\n", b"")
    at = unnamed.split(b"\n").index(b"<DOCUMENT>", lines.index(b"<SEQUENCE>1") + 1) + 1
    assert edgar.part_lines(unnamed) == {"1": lines.index(b"<SEQUENCE>1") + 1, "2": at}
    # what is not a submission (or is cut short) has no parts to point at
    assert edgar.part_lines(b"<SEQUENCE>1\nplain text\n") == {}
    assert edgar.part_lines(data[: data.rfind(b"</DOCUMENT>")]) == {}
