"""EDGAR full-submission files: header metadata, documents as parts, and per-part content."""

from __future__ import annotations

import hashlib
import json
import re
from xml.sax.saxutils import escape

import pytest

from auditor.errors import ExtractionError
from auditor.extract import Limits, detect_format, edgar, extract_bytes
from tests.support.fixtures_build import make_docx, make_edgar_submission, make_pdf, uuencode
from tests.support.textgen import prose

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
    assert (ex.format, ex.text, ex.extractor) == ("edgar", "", "auditor.extract.edgar")
    assert ex.meta == {
        "accession_number": "0000950170-22-000796", "form_type": "10-K", "filing_date": "20220207",
        "period": "20211231", "company_name": "EXAMPLE HOLDINGS INC", "cik": "0001234567",
        "ciks": ["0001234567", "0007654321"], "acceptance_datetime": "20220207160541",
        "entities": [{"role": "filer", "name": "EXAMPLE HOLDINGS INC", "cik": "0001234567"},
                     {"role": "filer", "name": "EXAMPLE OPERATING PARTNERSHIP LP", "cik": "0007654321"}],
    }
    assert [(p.meta["type"], p.meta["sequence"], p.status, p.code) for p in ex.parts] == [
        ("10-K", "1", "ok", None),
        ("EX-10.1", "2", "ok", None),
        ("EX-99.1", "3", "ok", None),
        ("GRAPHIC", "4", "skipped", "binary:gif"),
        ("EX-101.INS", "5", "skipped", "xbrl:instance"),
        ("10-Q", "6", "ok", None),
    ]
    header = {k: v for k, v in ex.meta.items() if k != "entities"}
    assert ex.parts[0].meta == {"type": "10-K", "sequence": "1", "filename": "ex-10k.htm",
                                "description": "ANNUAL REPORT", "submission": header}
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
    assert (body.format, body.extractor) == ("html", "selectolax")
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
    from auditor.text.normalize import normalize

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


def test_escaped_html_in_an_xml_part_gives_its_visible_text_and_an_xbrl_instance_is_skipped():
    """Escaped HTML in a text node is read as HTML. An XBRL instance holding the same text
    block is machine data (its text blocks repeat the filing's own notes): skipped with its
    reason, by its root element whatever its TYPE, so the gate fails closed on it."""
    block = (f"&lt;div&gt;&lt;p style='x'&gt;{LEASE}&lt;/p&gt;&lt;/div&gt;")
    form = f'<XML>\n<?xml version="1.0"?>\n<disclosure><note>{block}</note></disclosure>\n</XML>'
    part = _part({"type": "EX-99.1", "filename": "note.xml", "text": form})
    assert _has(part.extracted.text, LEASE) and "<p" not in part.extracted.text
    xml = ('<XBRL>\n<?xml version="1.0"?>\n<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" '
           'xmlns:us-gaap="http://fasb.org/us-gaap/2023"><us-gaap:LeasesOfLesseeDisclosureTextBlock '
           f'contextRef="c1">{block}</us-gaap:LeasesOfLesseeDisclosureTextBlock></xbrli:xbrl>\n</XBRL>')
    for type_ in ("EX-101.INS", "EX-99.1"):
        part = _part({"type": type_, "filename": "x.xml", "text": xml})
        assert (part.status, part.code, part.extracted) == ("skipped", "xbrl:instance", None)


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
    assert "logo.gif: binary data (gif), not text (binary:gif), not read" in part.extracted.unreadable


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
    assert "ingest a copy that holds it" in part.message  # the fix, beside the reason


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


# -- every layout of the SEC's archives ---------------------------------------------------------

ROLES = {**HEADER, "filers": [("TARGET CORP", "0000011111", "SUBJECT COMPANY"),
                              ("ACTIVIST FUND LP", "0000022222", "FILED BY"),
                              ("JANE Q. INSIDER", "0000033333", "REPORTING-OWNER")]}
ROLE_ENTITIES = [
    {"role": "filer", "name": "EXAMPLE HOLDINGS INC", "cik": "0001234567"},
    {"role": "subject-company", "name": "TARGET CORP", "cik": "0000011111"},
    {"role": "filed-by", "name": "ACTIVIST FUND LP", "cik": "0000022222"},
    {"role": "reporting-owner", "name": "JANE Q. INSIDER", "cik": "0000033333"},
]
TWO_PARTS = [
    {"type": "SC 13D", "filename": "sc13d.htm", "description": "SCHEDULE 13D",
     "text": "<html>\n<body>\n<p>Schedule 13D.</p>\n<p>Item 1. Security and Issuer.</p>\n</body>\n</html>"},
    {"type": "EX-99.1", "sequence": "7", "filename": "ex99.txt", "text": "Joint filing agreement.\nSigned."},
]


@pytest.mark.parametrize("style", ["sec-document", "submission", "nc", "condensed", "pem"])
def test_every_header_layout_gives_the_same_filing(style):
    """Keyed SEC-HEADER lines, tagged <SUBMISSION> one tag a line, the feed's .nc with lone CR
    line ends, tags run together on one line, the 1990s wrapper: the same header, entities and
    parts, and the same bytes for each part."""
    data = make_edgar_submission(ROLES, TWO_PARTS, style=style)
    assert (b"\n" not in data) == (style == "nc")
    ex = extract_bytes(data, "x.nc")
    m = ex.meta
    assert (m["accession_number"], m["form_type"], m["filing_date"], m["company_name"], m["cik"]) == (
        "0000950170-22-000796", "10-K", "20220207", "EXAMPLE HOLDINGS INC", "0001234567")
    assert m["entities"] == ROLE_ENTITIES and m["ciks"] == [e["cik"] for e in ROLE_ENTITIES]
    assert "derived" not in m and not ex.warnings
    assert [(p.meta["type"], p.meta["sequence"], p.meta["filename"]) for p in ex.parts] == [
        ("SC 13D", "1", "sc13d.htm"), ("EX-99.1", "7", "ex99.txt")]
    assert [p.extracted.text for p in ex.parts] == ["Schedule 13D.\n\nItem 1. Security and Issuer.",
                                                    "Joint filing agreement.\nSigned."]
    reference = extract_bytes(make_edgar_submission(ROLES, TWO_PARTS))
    assert [p.raw for p in ex.parts] == [p.raw for p in reference.parts]
    for p in ex.parts:
        assert p.meta["submission"]["accession_number"] == "0000950170-22-000796"
        assert p.meta["submission"]["filing_date"] == "20220207"


def test_lone_cr_line_ends_keep_uuencoded_parts_and_sequence_lines():
    data = make_edgar_submission(HEADER, [
        {"type": "10-K", "filename": "a.txt", "text": "Annual report."},
        {"type": "GRAPHIC", "sequence": "5", "filename": "logo.gif", "data": GIF},
    ], style="nc")
    ex = extract_bytes(data)
    assert [(p.status, p.code) for p in ex.parts] == [("ok", None), ("skipped", "binary:gif")]
    lines = data.split(b"\r")
    assert edgar.part_lines(data) == {"1": lines.index(b"<SEQUENCE>1") + 1, "5": lines.index(b"<SEQUENCE>5") + 1}


def test_a_header_without_a_field_does_not_borrow_it_from_an_entity():
    """FORM-TYPE inside FILING-VALUES and a CONFORMED-NAME are an entity's, not the filing's."""
    data = make_edgar_submission(ROLES, TWO_PARTS, style="condensed").replace(b"<TYPE>10-K<PUBLIC", b"<PUBLIC")
    m = extract_bytes(data).meta
    assert m["form_type"] == "SC 13D" and m["derived"] == {"form_type": "first document's TYPE"}
    assert m["company_name"] == "EXAMPLE HOLDINGS INC" and len(m["entities"]) == 4


def test_a_bare_document_file_is_a_submission_with_its_parts():
    """Documents without an envelope (an old filing saved without its header): each is a part,
    no tag in its text; the accession number comes from the file name as the SEC names its
    files, and the form type from the main document, both said. A lone document cut out of a
    submission (with or without its <DOCUMENT> tag) is that document, its tags in its meta."""
    data = make_edgar_submission(HEADER, TWO_PARTS, style="bare")
    assert data.startswith(b"<DOCUMENT>\n<TYPE>SC 13D") and detect_format(data, "a.txt") == "edgar"
    ex = extract_bytes(data, "filings/0000950170-22-000796.txt")
    assert ex.meta["accession_number"] == "0000950170-22-000796" and ex.meta["form_type"] == "SC 13D"
    assert ex.meta["derived"] == {"accession_number": "file name", "form_type": "first document's TYPE"}
    assert ex.warnings and "no EDGAR header" in ex.warnings[0]
    assert "filing_date" not in ex.meta and edgar.header_richness(ex.meta) == (0, 2, 0)
    assert [p.extracted.text for p in ex.parts] == ["Schedule 13D.\n\nItem 1. Security and Issuer.",
                                                    "Joint filing agreement.\nSigned."]
    # an exhibit alone: the document itself, which says nothing of its filing's form type
    ex = extract_bytes(make_edgar_submission(HEADER, TWO_PARTS[1:], style="bare"), "ex99.txt")
    assert (ex.format, ex.text, ex.parts) == ("text", "Joint filing agreement.\nSigned.", [])
    assert (ex.meta["type"], ex.meta["sequence"], ex.meta["filename"]) == ("EX-99.1", "7", "ex99.txt")
    assert "submission" not in ex.meta and ex.meta["envelope"].startswith("none")
    # a document cut out with its tags but without <DOCUMENT>
    cut = data[len(b"<DOCUMENT>\n"): data.index(b"</DOCUMENT>")]
    assert cut.startswith(b"<TYPE>SC 13D\n")
    ex = extract_bytes(cut, "sc13d.htm")
    assert (ex.format, ex.text) == ("html", "Schedule 13D.\n\nItem 1. Security and Issuer.")
    assert ex.meta["submission"] == {"form_type": "SC 13D", "derived": {"form_type": "first document's TYPE"}}
    # what the lone document cannot be read as is the file's reason
    with pytest.raises(ExtractionError) as info:
        extract_bytes(make_edgar_submission(HEADER, [{"type": "GRAPHIC", "filename": "a.gif", "data": GIF}], style="bare"))
    assert info.value.code == "binary:gif"
    # prose that merely mentions a tag is not EDGAR
    assert detect_format(b"The <TYPE> tag names a document's type.\n", "notes.txt") == "text"


def test_a_header_alone_is_not_a_document():
    head = make_edgar_submission(HEADER, [])
    head = head[head.index(b"<SEC-HEADER>"): head.index(b"</SEC-DOCUMENT>")]
    for data in (head, head[head.index(b"<ACCEPTANCE-DATETIME>"):]):
        assert detect_format(data, "x.hdr.sgml") == "edgar"
        with pytest.raises(ExtractionError) as info:
            extract_bytes(data)
        assert info.value.code == "empty" and "header alone, of 0000950170-22-000796" in str(info.value)


def test_header_richness_ranks_copies_of_a_filing():
    full = extract_bytes(make_edgar_submission(ROLES, TWO_PARTS, style="nc")).meta
    bare = extract_bytes(make_edgar_submission(ROLES, TWO_PARTS, style="bare"), "0000950170-22-000796.txt").meta
    assert edgar.header_richness(full) == (5, 5, 4)
    assert edgar.header_richness(full) > edgar.header_richness(bare) > edgar.header_richness({})


OLD_FILING = """<PAGE>   1
                          CONSOLIDATED BALANCE SHEET
<table width="100%">
<Caption>
                                        1995        1994
<s>                                   <C>         <c align=right>
Cash                                  $ 100       $ 90<F1>
</Table>
<FN>
<F1> Restated.
</FN>
  Receivables are shown net.<R>   <PAGE>   2
"""


def test_sgml_table_tags_become_layout_in_any_case_with_attributes():
    text = _part({"type": "10-K405", "filename": "d.txt", "text": OLD_FILING}).extracted.text
    assert not re.search(r"<[^>]*>", text)
    lines = text.split("\n")
    header = next(x for x in lines if "1995" in x)
    cash = next(x for x in lines if x.startswith("Cash"))
    assert cash.index("$ 100") == OLD_FILING.split("\n")[6].index("$ 100")  # columns stay put
    assert header.index("1995") == OLD_FILING.split("\n")[4].index("1995")
    assert "Receivables are shown net." in text and "Restated." in text
    # prose in angle brackets that is not SGML layout stays
    kept = _part({"type": "EX-99", "filename": "e.txt", "text": "See <Schedule A> and <SUBSIDIARIES>.\n"})
    assert kept.extracted.text == "See <Schedule A> and <SUBSIDIARIES>."


def test_a_bare_old_filing_keeps_no_tags():
    data = make_edgar_submission(HEADER, [{"type": "10-K", "text": OLD_FILING, "filename": ""}], style="bare")
    data = data.replace(b"<FILENAME>\n", b"")
    ex = extract_bytes(data, "0000950170-95-000001.txt")
    assert ex.meta["submission"]["accession_number"] == "0000950170-95-000001" and ex.meta["filename"] is None
    assert ex.format == "text" and not re.search(r"<[^>]*>", ex.text) and "CONSOLIDATED BALANCE SHEET" in ex.text


# -- a modern filing with its XBRL: what a reader reads, and nothing else -------------------------

_XS = "http://www.w3.org/2001/XMLSchema"
_LINK = "http://www.xbrl.org/2003/linkbase"
_OOXML_THEME = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<a:theme xmlns:a="http://schemas.'
                'openxmlformats.org/drawingml/2006/main" name="Office Theme"><a:themeElements>'
                '<a:clrScheme name="Office">' + "".join(
                    f'<a:accent{i}><a:srgbClr val="{c}"/></a:accent{i}>'
                    for i, c in enumerate(["4472C4", "ED7D31", "A5A5A5", "FFC000", "5B9BD5", "70AD47"], 1))
                + '</a:clrScheme><a:fontScheme name="Office"><a:majorFont><a:latin typeface="Calibri Light"/>'
                '</a:majorFont></a:fontScheme></a:themeElements></a:theme>')


def _licence(name: str) -> str:
    from tests.support.realtext import licence

    return licence(name)


def _html(body: str) -> str:
    paras = "".join(f"<p>{escape(p)}</p>\n" for p in body.split("\n\n") if p.strip())
    return f"<html>\n<head><title>x</title></head>\n<body>\n{paras}</body>\n</html>"


def _xlsx(company: str, figures: dict[str, int]) -> bytes:
    """A spreadsheet as Excel writes it: content types, workbook, styles, a theme (shared by
    every Office file), a sheet with shared strings."""
    strings = [company, *figures]
    cells = "".join(f'<row r="{i}"><c r="A{i}" t="s"><v>{i}</v></c><c r="B{i}"><v>{v}</v></c></row>'
                    for i, v in enumerate(figures.values(), 1))
    return _zip({
        "[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                               b'content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
        "_rels/.rels": b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                       b'relationships"/>',
        "xl/workbook.xml": b'<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
                           b'2006/main"><sheets><sheet name="Cover" sheetId="1"/></sheets></workbook>',
        "xl/theme/theme1.xml": _OOXML_THEME.encode(),
        "xl/sharedStrings.xml": ('<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
                                 '2006/main">' + "".join(f"<si><t>{escape(s)}</t></si>" for s in strings)
                                 + "</sst>").encode(),
        "xl/worksheets/sheet1.xml": ('<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/'
                                     f'spreadsheetml/2006/main"><sheetData>{cells}</sheetData></worksheet>').encode(),
    })


def _schema(prefix: str) -> str:
    return (f'<?xml version="1.0" encoding="US-ASCII"?>\n<!-- Generated by a filing agent -->\n'
            f'<xs:schema xmlns:xs="{_XS}" xmlns:link="{_LINK}" targetNamespace="http://{prefix}.example/2025">'
            '<xs:annotation><xs:appinfo><link:roleType roleURI="http://x/role/Cover" id="Cover">'
            "<link:definition>00000001 - Document - Cover</link:definition></link:roleType>"
            "</xs:appinfo></xs:annotation></xs:schema>")


def _linkbase(kind: str) -> str:
    labels = "".join(f'<link:label xlink:label="l{i}" xml:lang="en-US">{w}</link:label>'
                     for i, w in enumerate(["Document Type", "Entity Registrant Name", "Amendment Flag",
                                            "Entity Central Index Key", "Document Period End Date"]))
    return (f'<?xml version="1.0" encoding="US-ASCII"?>\n<link:linkbase xmlns:link="{_LINK}" '
            f'xmlns:xlink="http://www.w3.org/1999/xlink"><link:{kind}Link>{labels}</link:{kind}Link></link:linkbase>')


def _instance(company: str, cik: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<xbrl xmlns="http://www.xbrl.org/2003/instance" '
            'xmlns:dei="http://xbrl.sec.gov/dei/2024"><context id="c1"><entity><identifier '
            f'scheme="http://www.sec.gov/CIK">{cik}</identifier></entity></context>'
            f'<dei:DocumentType contextRef="c1">8-K</dei:DocumentType><dei:EntityRegistrantName contextRef="c1">'
            f"{escape(company)}</dei:EntityRegistrantName></xbrl>")


def xbrl_8k(company: str, cik: str, accession: str, body: str, exhibit: str, prefix: str,
            figures: dict[str, int]) -> bytes:
    """An 8-K as EDGAR disseminates it today: an inline-XBRL body, a press release, the
    XBRL exhibits, and everything the SEC's viewer adds (R pages, Financial_Report.xlsx,
    Show.js, report.css, FilingSummary.xml, MetaLinks.json, the -xbrl.zip, the instance)."""
    inline = ('<XBRL>\n<?xml version="1.0" encoding="ASCII"?>\n<html xmlns="http://www.w3.org/1999/xhtml" '
              'xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"><head><title>8-K</title></head><body>'
              '<div style="display:none"><ix:header><ix:hidden><ix:nonNumeric name="dei:DocumentType">8-K'
              "</ix:nonNumeric></ix:hidden></ix:header></div>"
              + _html(body).split("<body>", 1)[1].rsplit("</body>", 1)[0] + "</body></html>\n</XBRL>")
    report = ('<html>\n<head>\n<title></title>\n<link rel="stylesheet" type="text/css" href="report.css">\n'
              '<script type="text/javascript" src="Show.js"></script>\n</head>\n<body><table class="report">'
              f"<tr><th>Cover</th><th>Jan. 06, 2025</th></tr><tr><td>Document Type</td><td>8-K</td></tr>"
              f"<tr><td>Entity Registrant Name</td><td>{escape(company)}</td></tr></table></body>\n</html>")
    summary = ("<?xml version='1.0' encoding='utf-8'?>\n<FilingSummary><Version>3.24.4</Version><ReportType>"
               "Sec</ReportType><MyReports><Report instance=\"x.htm\"><HtmlFileName>R1.htm</HtmlFileName>"
               "<LongName>00000001 - Document - Cover</LongName></Report></MyReports></FilingSummary>")
    metalinks = json.dumps({"version": "2.2", "instance": {f"{prefix}-8k.htm": {"nsprefix": prefix.upper(),
                            "dei": {"DocumentType": "8-K"}}}}, indent=1)
    package = _zip({f"{prefix}-20250106.xsd": _schema(prefix).encode(),
                    f"{prefix}-20250106_lab.xml": _linkbase("label").encode(),
                    f"{prefix}-20250106_pre.xml": _linkbase("presentation").encode(),
                    f"{prefix}-8k.htm": inline.split("\n", 1)[1].rsplit("\n", 1)[0].encode()})
    head = {"accession_number": accession, "form_type": "8-K", "filing_date": "20250108",
            "company_name": company, "cik": cik}
    idea = "IDEA: XBRL DOCUMENT"
    return make_edgar_submission(head, [
        {"type": "8-K", "filename": f"{prefix}-8k.htm", "description": "CURRENT REPORT", "text": inline},
        {"type": "EX-99.1", "filename": f"{prefix}-ex99.htm", "description": "PRESS RELEASE", "text": _html(exhibit)},
        {"type": "EX-101.SCH", "filename": f"{prefix}-20250106.xsd", "description": "XBRL SCHEMA FILE",
         "text": f"<XBRL>\n{_schema(prefix)}\n</XBRL>"},
        {"type": "EX-101.LAB", "filename": f"{prefix}-20250106_lab.xml", "description": "XBRL LABEL FILE",
         "text": f"<XBRL>\n{_linkbase('label')}\n</XBRL>"},
        {"type": "EX-101.PRE", "filename": f"{prefix}-20250106_pre.xml", "description": "XBRL PRESENTATION FILE",
         "text": f"<XBRL>\n{_linkbase('presentation')}\n</XBRL>"},
        {"type": "XML", "filename": "R1.htm", "description": idea, "text": report},
        {"type": "EXCEL", "filename": "Financial_Report.xlsx", "description": idea, "data": _xlsx(company, figures)},
        {"type": "XML", "filename": "Show.js", "description": idea,
         "text": "// Edgar(tm) Renderer was created by staff of the U.S. Securities and Exchange Commission.\n"
                 "var Show = { toggleNext: function (link) { return false; } };"},
        {"type": "XML", "filename": "report.css", "description": idea,
         "text": "/* v2.2.0.24 */\n.report table.authRefData { background-color: #def; border: 2px solid #2f4497; }"},
        {"type": "XML", "filename": "FilingSummary.xml", "description": idea, "text": f"<XML>\n{summary}\n</XML>"},
        {"type": "JSON", "filename": "MetaLinks.json", "description": idea, "text": metalinks},
        {"type": "ZIP", "filename": f"{accession}-xbrl.zip", "description": idea, "data": package},
        {"type": "XML", "filename": f"{prefix}-8k_htm.xml", "description": idea,
         "text": f"<XML>\n{_instance(company, cik)}\n</XML>"},
    ])


SKIPPED_8K = ["xbrl:schema", "xbrl:linkbase", "xbrl:linkbase", "xbrl:viewer", "binary:xlsx", "code:js",
              "code:css", "xbrl:viewer", "data:json", "archive:xbrl", "xbrl:instance"]


@pytest.fixture(scope="module")
def filings():
    a = xbrl_8k("ACORN WIDGETS, INC.", "0000880984", "0001493152-25-001317", prose(31, 600),
                _licence("Apache-2.0"), "acfn", {"Revenue": 1200, "NetIncome": 80})
    b = xbrl_8k("BIRCH BANCORP", "0001847360", "0000943374-24-000509", prose(32, 600),
                _licence("MPL-2.0"), "bcow", {"Deposits": 99000, "Loans": 71000})
    return a, b


def test_a_filing_with_its_xbrl_stores_what_a_reader_reads(filings):
    ex = extract_bytes(filings[0], "0001493152-25-001317.txt")
    assert [p.code for p in ex.parts if p.status != "ok"] == SKIPPED_8K
    assert all(p.status == "skipped" and p.message for p in ex.parts[2:])
    body, exhibit = (p.extracted for p in ex.parts[:2])
    assert (body.format, exhibit.format) == ("html", "html")
    assert "8-K" not in body.text.split("\n")[0]  # hidden inline-XBRL facts are not shown
    apache = _licence("Apache-2.0")
    assert _has(exhibit.text, apache) and not re.search(r"<[a-z/!?][^>]*>", exhibit.text)
    for part in ex.parts[2:]:  # the same content under an ordinary TYPE, without the viewer's DESCRIPTION
        same = _part({**part.meta, "type": "EX-99.9", "description": "", "text": part.raw.decode("latin-1")})
        if part.meta["filename"] == "R1.htm":  # only the viewer's label made it the viewer's
            assert same.status == "ok" and "Entity Registrant Name" in same.extracted.text
        else:
            assert (same.status, same.code) == ("skipped", part.code)


def test_skipped_parts_are_machine_data_by_content_not_only_by_label():
    """A part is judged by what it holds: an R page without the viewer's DESCRIPTION is an HTML
    document like any other, and a press release filed under TYPE XML is read."""
    page = _part({"type": "EX-99.2", "filename": "R1.htm", "text": _html("Cover page of the report.")})
    assert page.status == "ok" and page.extracted.text == "Cover page of the report."
    release = _part({"type": "XML", "filename": "pr.htm", "text": _html(LEASE)})
    assert release.status == "ok" and _has(release.extracted.text, LEASE)
    linkbase = _part({"type": "EX-10.1", "filename": "lease.xml", "text": f"<XML>\n{_linkbase('label')}\n</XML>"})
    assert linkbase.code == "xbrl:linkbase"
    named = _part({"type": "EX-101.LAB", "filename": "x_lab.xml", "text": "<XBRL>\n<labels><l>Revenue</l></labels>\n</XBRL>"})
    assert named.code == "xbrl:linkbase"  # XBRL by its TYPE whatever its root
    inline = _part({"type": "EX-101.INS", "filename": "x.htm", "text": _html(LEASE)})
    assert inline.status == "ok" and _has(inline.extracted.text, LEASE)  # inline XBRL is a document


def test_a_uuencoded_docx_part_is_read_as_the_docx_it_is():
    paragraphs = [p for p in _licence("BSD").split("\n\n") if p.strip()]
    docx = make_docx(paragraphs)
    part = _part({"type": "EX-10.1", "filename": "agreement.docx", "data": docx})
    assert (part.status, part.extracted.format) == ("ok", "docx")
    assert part.extracted.text == extract_bytes(docx, "agreement.docx").text
    assert "<" not in part.extracted.text and "word/document.xml" not in part.extracted.text


def test_a_zip_of_documents_is_read_member_by_member_and_never_as_markup():
    paragraphs = [p for p in _licence("BSD").split("\n\n") if p.strip()]
    docx = make_docx(paragraphs)
    data = _zip({"exhibits/agreement.docx": docx, "exhibits/notice.xml":
                 f'<?xml version="1.0"?><notice xmlns="urn:x"><p>{escape(OTHER)}</p></notice>'.encode()})
    part = _part({"type": "EX-10.1", "filename": "exhibits.zip", "data": data})
    assert part.status == "ok" and part.extracted.unreadable is None
    text = part.extracted.text
    assert _has(text, paragraphs[0]) and _has(text, OTHER)
    assert "<" not in text and "Content_Types" not in text and "urn:x" not in text
    # a spreadsheet or an XBRL instance inside an archive of documents is named, never stored
    # as its XML; the archive fails closed (its unreadable members are listed)
    members = {"notice.txt": OTHER.encode(), "book.xlsx": _xlsx("X", {"A": 1}), "facts.xml": _instance("X", "1").encode()}
    part = _part({"type": "EX-99", "filename": "more.zip", "data": _zip(members)})
    assert part.status == "ok" and part.extracted.text == OTHER.strip()
    assert "book.xlsx: " in part.extracted.unreadable and "(binary:xlsx)" in part.extracted.unreadable
    assert "facts.xml: " in part.extracted.unreadable and "(xbrl:instance)" in part.extracted.unreadable
    # with a taxonomy schema it is an XBRL package (the SEC's -xbrl.zip holds the filing's own
    # inline documents again): skipped whole
    part = _part({"type": "EX-99", "filename": "more.zip", "data": _zip({**members, "x.xsd": _schema("x").encode()})})
    assert (part.status, part.code) == ("skipped", "archive:xbrl")
    # an archive none of whose members is read is skipped, with every member named
    part = _part({"type": "EX-99", "filename": "images.zip", "data": _zip({"a.gif": GIF, "b.gif": GIF[:-1]})})
    assert (part.status, part.code) == ("skipped", "archive:unread") and "a.gif" in part.message


@pytest.mark.parametrize(("data", "code"), [
    (_schema("x").encode(), "xbrl:schema"),
    (_linkbase("calculation").encode(), "xbrl:linkbase"),
    (_instance("X", "1").encode(), "xbrl:instance"),
    (b"<?xml version='1.0'?>\n<FilingSummary><Version>3</Version></FilingSummary>", "xbrl:viewer"),
    (_instance("X", "1").encode("utf-16"), "xbrl:instance"),
])
def test_xbrl_files_are_refused_with_their_reason_and_other_xml_gives_its_text(data, code):
    assert detect_format(data, "x.xml") == "xml"
    with pytest.raises(ExtractionError) as info:
        extract_bytes(data, "x.xml")
    assert info.value.code == code
    form = b'<?xml version="1.0"?>\n<ownershipDocument><issuer><issuerName>ACME &amp; CO</issuerName></issuer>' \
           b"<remarks>Signed by attorney-in-fact.</remarks></ownershipDocument>"
    ex = extract_bytes(form, "form4.xml")
    assert (ex.format, ex.text) == ("xml", "ACME & CO\nSigned by attorney-in-fact.")


@pytest.mark.slow
def test_two_filings_xbrl_makes_no_finding_and_their_documents_stay(tmp_path, filings):
    """The issue's corpus: two companies' 8-Ks with their spreadsheets and XBRL packages. Only
    the documents a reader reads are stored; the audit (controls first) finds no body contained
    in its own filing's XBRL and no family of spreadsheets, yet still finds a real copy; the
    assembled corpus keeps both bodies."""
    from auditor.assembly import plan
    from auditor.corpus.ingest import ingest
    from auditor.report.pipeline import audit_job
    from auditor.store.db import Store

    (tmp_path / "0001493152-25-001317.txt").write_bytes(filings[0])
    (tmp_path / "0000943374-24-000509.txt").write_bytes(filings[1])
    quoting = "Exhibit 10.1\n\nLICENSE TERMS ADOPTED BY THE PARTIES\n\n" + _licence("Apache-2.0")
    (tmp_path / "agreement.htm").write_text(_html(quoting))
    with Store(tmp_path / "c.db") as store:
        result = ingest(store, [tmp_path], workers=1)
        skipped = store.rows("SELECT part, code FROM failures WHERE status = 'skipped' ORDER BY path, id")
        assert sorted(r["code"] for r in skipped) == sorted(SKIPPED_8K * 2)
        assert not store.rows("SELECT * FROM failures WHERE status = 'failed'")
        rows = [{**r, "text": store.text(r["id"])} for r in store.rows(
            "SELECT d.id, d.path, d.format FROM documents d JOIN texts t ON t.doc_id = d.id"
            " WHERE d.format != 'edgar' ORDER BY d.id")]
        assert [r["format"] for r in rows] == ["html"] * 5  # two bodies, two press releases, the agreement
        for r in rows:
            assert not re.search(r"<[a-zA-Z/!?][^>]*>", r["text"]), r["path"]
        outcome = audit_job(store, 0.8, out=tmp_path / "report", command="test")
        r = outcome.audit
        got = {(a, b) for a, b in zip(r.containing.contained.tolist(), r.containing.container.tolist(), strict=True)}
        ids = {row["path"].rsplit("/", 1)[1]: row["id"] for row in rows}
        release, agreement = ids["0001493152-25-001317.txt#2"], ids["agreement.htm"]
        assert got == {(release, agreement), (agreement, release)}  # the licence and its adoption
        assert [f.members for f in r.families] == [[release, agreement]] and result.counts["ok"] == 3
        # the assembled corpus keeps both 8-K bodies and ships no XML
        kept = plan(store).kept
        assert {ids["0001493152-25-001317.txt#1"], ids["0000943374-24-000509.txt#1"]} <= set(kept)
        assert {d for d in kept if store.document(d)["format"] not in ("html", "edgar")} == set()


NO_BODY_FORM = (
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
    '<html xmlns:ta1="http://www.sec.gov/edgar/ta/taonefiler"><head><meta http-equiv="Content-Type" '
    'content="text/html; charset=UTF-8"><style type="text/css">\n.fakeBox { border: 1px solid; }\n'
    '</style></head></html><div id="info"><table role="presentation"><tr><td class="title">'
    "Form TA-1 Filer Information</td></tr><tr><td class=\"label\"><b>7(a). </b>Name</td>"
    '<td><div class="fakeBox">Deutsche Transfer Company</div></td></tr></table>'
    f"<p>{LEASE}</p></div>\n")


def test_an_sec_form_whose_content_follows_the_closing_html_tag_is_read():
    """The SEC's rendered forms put their whole content after ``<head>...</head></html>``, with
    no ``<body>``: a browser shows all of it, so it is what gets stored."""
    part = _part({"type": "TA-1", "filename": "primary_doc.html", "text": NO_BODY_FORM})
    assert part.status == "ok", (part.code, part.message)
    assert _has(part.extracted.text, LEASE) and "Form TA-1 Filer Information" in part.extracted.text
    assert "fakeBox" not in part.extracted.text  # the style sheet is not text


@pytest.mark.slow
def test_the_gate_reads_every_skipped_part_as_data(tmp_path, filings):
    """Each part skipped as a document (a spreadsheet, XBRL, viewer files) is read as data by the
    gate and listed with its reason code; unrelated to the corpus, the filing passes.
    tests/gating/test_gate_data.py has the positive case: a stored contract in such a part."""
    from auditor.corpus.ingest import ingest
    from auditor.gating import GateOptions, run_gate
    from auditor.store.db import Store

    corpus, new = tmp_path / "corpus", tmp_path / "new"
    corpus.mkdir()
    new.mkdir()
    (corpus / "0000943374-24-000509.txt").write_bytes(filings[1])
    for name in ("GPL-3.0", "LGPL-3.0", "CDDL-1.0"):
        (corpus / f"{name}.txt").write_text(_licence(name))
    (new / "0001493152-25-001317.txt").write_bytes(filings[0])
    with Store(tmp_path / "c.db") as store:
        ingest(store, [corpus], batch="corpus", workers=1)
    g = run_gate(GateOptions(db=tmp_path / "c.db", inputs=[new], batch="pr", dry_run=True, workers=1,
                             out=tmp_path / "out", reports_root=tmp_path / "reports", cwd=tmp_path))
    assert (g.status, g.findings) == ("PASSED", [])
    assert [d["code"] for d in g.data] == SKIPPED_8K
    assert {d["status"] for d in g.data} == {"read-as-data"}
    assert {d["status"] for d in g.documents if d["path"].endswith(("#1", "#2"))} == {"passed"}


def test_a_part_seen_in_several_copies_of_its_filing_is_one_document_shown_with_the_richest_header(tmp_path):
    """The feed's .nc copy (lone CR line ends), the archive's .txt copy and a copy without its
    header hold the same parts: one document each, one sighting per copy, each sighting with its
    copy's header, and ``show`` names the filing from the copy whose header says most."""
    from auditor.corpus.document import document_view, lines
    from auditor.corpus.ingest import ingest
    from auditor.store.db import Store

    (tmp_path / "a-bare.txt").write_bytes(make_edgar_submission(ROLES, TWO_PARTS, style="bare"))
    (tmp_path / "b-feed.nc").write_bytes(make_edgar_submission(ROLES, TWO_PARTS, style="nc"))
    (tmp_path / "c-archive.txt").write_bytes(make_edgar_submission(ROLES, TWO_PARTS))
    with Store(tmp_path / "c.db") as store:
        ingest(store, [tmp_path], workers=1)
        parts = store.rows("SELECT id, parent_id FROM documents WHERE format != 'edgar' ORDER BY id")
        assert len(parts) == 2
        bare = store.scalar("SELECT id FROM documents WHERE path LIKE '%a-bare.txt'")
        archive = store.scalar("SELECT id FROM documents WHERE path LIKE '%c-archive.txt'")
        for part in parts:
            assert part["parent_id"] == bare  # stored from the first copy read
            sightings = store.rows("SELECT path, meta FROM sightings WHERE doc_id = ? ORDER BY path", (part["id"],))
            assert [s["path"].rsplit("/", 1)[1].split("#")[0] for s in sightings] == ["a-bare.txt", "b-feed.nc", "c-archive.txt"]
            heads = [json.loads(s["meta"])["submission"] for s in sightings]
            assert "filing_date" not in heads[0] and heads[0]["derived"] == {"form_type": "first document's TYPE"}
            for head in heads[1:]:
                assert (head["accession_number"], head["form_type"], head["filing_date"], head["cik"]) == (
                    "0000950170-22-000796", "10-K", "20220207", "0001234567")
            view = document_view(store, part["id"])
            assert view["parent"]["id"] != bare and edgar.header_richness(view["parent"]["meta"])[0] == 5
            shown = "\n".join(lines(view))
            assert "0000950170-22-000796 10-K filed 2022-02-07 by EXAMPLE HOLDINGS INC" in shown
            assert "None" not in shown.split("sightings")[0]
        # a document seen in one copy only is shown with that copy, rich or not
        assert document_view(store, archive)["parent"] is None


@pytest.mark.parametrize("style", ["submission", "sec-document"])
def test_a_header_naming_twenty_thousand_entities_is_bounded(style):
    """A hostile header cannot make the store hold an entity list the size of the file."""
    head = {**HEADER, "filers": [(f"SHELL {i} LLC", f"{i:010d}") for i in range(20_000)]}
    ex = extract_bytes(make_edgar_submission(head, [{"type": "10-K", "filename": "a.txt", "text": "Text."}], style=style))
    assert len(ex.meta["entities"]) == 500 and len(ex.meta["ciks"]) == 500
    assert ex.meta["entities"][1] == {"role": "filer", "name": "SHELL 0 LLC", "cik": "0000000000"}
    assert ex.parts[0].extracted.text == "Text."


HYBRID_1998 = """<SEC-DOCUMENT>0001012325-98-000004.txt : 19981123
<SEC-HEADER>0001012325-98-000004.hdr.sgml : 19981123
ACCESSION NUMBER:\t\t0001012325-98-000004
CONFORMED SUBMISSION TYPE:\t4
PUBLIC DOCUMENT COUNT:\t\t1
FILED AS OF DATE:\t\t19981120

SUBJECT COMPANY:

\tCOMPANY DATA:
\t\tCOMPANY CONFORMED NAME:\t\t\tWIDGET INTERNATIONAL INC /IN/
\t\tCENTRAL INDEX KEY:\t\t\t0001035972

\tFORMER COMPANY:
\t\tFORMER CONFORMED NAME:\tNEW WIDGET INTERNATIONAL INC
<REPORTING-OWNER>

COMPANY DATA:
\tCOMPANY CONFORMED NAME:\t\t\tDOE JOHN R
\tCENTRAL INDEX KEY:\t\t\t0001012325
<RELATIONSHIP>DIRECTOR

FILING VALUES:
\tFORM TYPE:\t\t4
</SEC-HEADER>
"""
FLAT_1994 = """-----BEGIN PRIVACY-ENHANCED MESSAGE-----
Proc-Type: 2001,MIC-CLEAR

<IMS-DOCUMENT>0000049071-94-000003.txt : 19940301
<IMS-HEADER>0000049071-94-000003.hdr.sgml : 19940301
ACCESSION NUMBER:  0000049071-94-000003
CONFORMED SUBMISSION TYPE:  10-K
FILED AS OF DATE:  19940228
FILER:
COMPANY DATA:
COMPANY CONFORMED NAME:  HOSPITALS OF AMERICA INC
CENTRAL INDEX KEY:       0000049071
STATE OF INCORPORATION:  DE
FORMER COMPANY:  FORMER CONFORMED NAME: EXTENDED CARE INC          DATE OF NAME CHANGE: 19740404
BUSINESS ADDRESS:
STREET 1:  500 MAIN ST
</IMS-HEADER>
"""


@pytest.mark.parametrize(("head", "entities"), [
    (HYBRID_1998, [{"role": "subject-company", "name": "WIDGET INTERNATIONAL INC /IN/", "cik": "0001035972"},
                   {"role": "reporting-owner", "name": "DOE JOHN R", "cik": "0001012325"}]),
    (FLAT_1994, [{"role": "filer", "name": "HOSPITALS OF AMERICA INC", "cik": "0000049071"}]),
])
def test_1990s_headers_a_tag_opening_a_block_and_no_indentation(head, entities):
    """A 1998 header whose reporting owner's block is opened by a tag and not indented, and a
    1994 one with no indentation at all: every entity with its role, no former name taken."""
    close = "</SEC-DOCUMENT>\n" if "<SEC-" in head else "</IMS-DOCUMENT>\n-----END PRIVACY-ENHANCED MESSAGE-----\n"
    data = (head + "<DOCUMENT>\n<TYPE>4\n<SEQUENCE>1\n<TEXT>\nStatement of changes.\n</TEXT>\n</DOCUMENT>\n" + close).encode()
    m = extract_bytes(data).meta
    assert m["entities"] == entities
    assert (m["company_name"], m["cik"]) == (entities[0]["name"], entities[0]["cik"])
    assert m["accession_number"] in head and m["form_type"] in ("4", "10-K") and len(m["filing_date"]) == 8


@pytest.mark.parametrize(("type_", "filename", "text", "code"), [
    ("EX-101.SCH", "x.xsd", _schema("x"), "xbrl:schema"),
    ("EX-101.CAL", "x_cal.xml", _linkbase("calculation"), "xbrl:linkbase"),
    ("EX-101.INS", "x.xml", _instance("X CORP", "0000000001"), "xbrl:instance"),
    ("EX-100.SCH", "x.xsd", "<schema>element definitions</schema>", "xbrl:schema"),
])
def test_xbrl_given_as_a_plain_text_part_is_skipped(type_, filename, text, code):
    """Older filings give XBRL exhibits as plain text parts, without the <XBRL> wrapper."""
    part = _part({"type": type_, "filename": filename, "text": text})
    assert (part.status, part.code) == ("skipped", code)
    plain = _part({"type": "EX-99", "filename": "notes.txt", "text": "Labels and schemas are described here."})
    assert plain.status == "ok"


def test_an_xbrl_instance_with_html_in_a_cdata_block_is_not_taken_for_inline_xbrl():
    xml = ('<XBRL>\n<?xml version="1.0"?>\n<!-- generated -->\n<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance">'
           f"<us-gaap:LeaseTextBlock><![CDATA[<html><body><p>{LEASE}</p></body></html>]]></us-gaap:LeaseTextBlock>"
           "</xbrli:xbrl>\n</XBRL>")
    assert edgar.content(xml.encode()).kind == "xbrl"
    assert _part({"type": "EX-99.1", "filename": "x.xml", "text": xml}).code == "xbrl:instance"
    inline = ('<XBRL>\n<?xml version="1.0"?>\n<!-- Workiva -->\n<html xmlns="http://www.w3.org/1999/xhtml">'
              f"<body><p>{LEASE}</p></body></html>\n</XBRL>")
    assert edgar.content(inline.encode()).kind == "html"
