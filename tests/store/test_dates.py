"""Dates of documents (auditor.text.dates, pure) and of stored documents (auditor.store.dating): parsing,
dates stated in opening lines, metadata of real PDFs, .docx and HTML, the choice by trust, and
dates supplied in a file."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.corpus.ingest import ingest
from auditor.errors import UsageError
from auditor.extract import extract_bytes
from auditor.store.dating import apply_dates, read_dates_file
from auditor.store.db import Store
from auditor.text import dates as D

# -- one value --------------------------------------------------------------------------------

@pytest.mark.parametrize("value, iso", [
    ("2023-10-01", "2023-10-01"),
    ("2023-10", "2023-10"),
    ("2023", "2023"),
    ("2023-10-01T12:00:00+02:00", "2023-10-01T10:00:00Z"),
    ("2023-10-01T10:00:00.123Z", "2023-10-01T10:00:00Z"),
    ("2023-10-01 12:00:00", "2023-10-01T12:00:00"),  # no zone: kept without one
    ("20240301", "2024-03-01"),  # EDGAR's FILED AS OF DATE
    ("D:20231001120000+02'00'", "2023-10-01T10:00:00Z"),  # PDF
    ("D:20231001120000Z", "2023-10-01T12:00:00Z"),
    ("D:202310", "2023-10"),
    ("20231001120000-05'30'", "2023-10-01T17:30:00Z"),  # PDF without its D:
    ("Sun, 01 Oct 2023 12:00:00 GMT", "2023-10-01T12:00:00Z"),  # HTTP Last-Modified
    ("2019-03-29 16:37:30 -0700", "2019-03-29T23:37:30Z"),  # git log's %ci
    ("1553902650", "2019-03-29T23:37:30Z"),  # seconds since 1970
    ("1553902650.5", "2019-03-29T23:37:30Z"),
    ("October 1, 2023", "2023-10-01"),
    ("Oct. 1st, 2023", "2023-10-01"),
    ("1 October 2023", "2023-10-01"),
    ("the 3rd day of March, 2020", "2020-03-03"),
    ("December 2025", "2025-12"),
    ("Sept 5 2020", "2020-09-05"),
    ("2023/10/01", "2023-10-01"),
    ("13/04/2023", "2023-04-13"),  # the day cannot be the month
    ("04/13/2023", "2023-04-13"),
])
def test_a_value_is_read_into_iso_8601_at_its_own_precision(value, iso):
    assert D.parse(value) == iso


@pytest.mark.parametrize("value", [
    "03/04/2023",  # March 4 or 3 April: not guessed
    "2023-02-30", "2023-13-01", "October 32, 2023", "D:20231341",
    "2023-10-01T25:00:00Z", "2023-10-01T10:00:00+25:00",
    "yesterday", "", "   ", None, "Q3 2023", "0999-01-01", "12345",
])
def test_what_is_not_a_date_or_is_ambiguous_gives_none(value):
    assert D.parse(value) is None


# -- stated in the opening lines ---------------------------------------------------------------

@pytest.mark.parametrize("text, date, found", [
    ("# Privacy Statement\n\nEffective date: February 1, 2024\n\nWelcome.", "2024-02-01",
     "Effective date: February 1, 2024"),
    ("---\ntitle: Terms\n---\n**Effective Date:** March 17, 2026\n", "2026-03-17", "Effective Date:** March 17, 2026"),
    ("> Last Updated: October 20, 2025\n", "2025-10-20", "Last Updated: October 20, 2025"),
    ("Candidate Privacy Policy\nLast Updated: December 2025\n", "2025-12", "Last Updated: December 2025"),
    ("Version Effective Date: April 1, 2025", "2025-04-01", "Version Effective Date: April 1, 2025"),
    ("LEASE AGREEMENT\nDated as of the 3rd day of March, 2020\n", "2020-03-03", "Dated as of the 3rd day of March, 2020"),
    ("Effective January 1, 2020, these terms apply.", "2020-01-01", "Effective January 1, 2020, these terms apply."),
    ("Last revised on 2023-10-01.", "2023-10-01", "Last revised on 2023-10-01."),
    ("* Published: 1 October 2023", "2023-10-01", "Published: 1 October 2023"),
])
def test_a_date_stated_at_the_start_of_an_opening_line_is_found(text, date, found):
    d = D.stated(text)
    assert d == D.Dated(date, "text", found) and d.kind == "text"


@pytest.mark.parametrize("text", [
    "This Amendment to the Credit Agreement dated as of March 1, 2019 is made...",  # another document's date
    "The terms were last updated on February 7th 2024.",  # in a sentence, not at a line's start
    "Effective date: to be announced\n",
    "Effective date: 03/04/2023\n",  # ambiguous
    "Last updated: October 2023 1\n",
    "x" * D.OPENING_CHARS + "\nEffective date: February 1, 2024\n",  # not an opening line
    "Effectively, October 1, 2023 is the day.",
])
def test_a_date_not_stated_for_the_document_is_not_taken(text):
    assert D.stated(text) is None


def test_real_licence_texts_state_no_date_of_their_own():
    # "Version 3, 29 June 2007" is the licence's version, not this copy's date; no phrase, no date
    from tests.support.realtext import SIGNATURES, licence

    texts = [licence(kind) for kind in sorted(SIGNATURES)]
    assert [D.stated(t) for t in texts] == [None] * len(texts)
    dated = "Effective date: June 29, 2007\n\n" + licence("GPL-3.0")
    assert D.stated(dated) == D.Dated("2007-06-29", "text", "Effective date: June 29, 2007")


# -- metadata ----------------------------------------------------------------------------------

def test_html_meta_dates_are_read_from_the_head_only():
    html = ('<html><head><meta charset="utf-8"><meta property="article:modified_time" content="2023-10-01T12:00:00Z">'
            '<meta name="DATE" content="2023-09-30"><meta http-equiv="Last-Modified" content="Sun, 01 Oct 2023 12:00:00 GMT">'
            '<meta name="description" content="October 5, 2023"><meta itemprop="dateModified" content="2023-10-02">'
            '</head><body><meta name="date" content="1999-01-01"><p>Terms</p></body></html>')
    assert D.html_meta(html) == {
        "html:article:modified_time": "2023-10-01T12:00:00Z", "html:date": "2023-09-30",
        "http:last-modified": "Sun, 01 Oct 2023 12:00:00 GMT", "html:last-modified": "2023-10-02"}
    assert D.html_meta("<p>no head</p>") == {}
    assert D.html_meta("<meta name='date' content='") == {}  # broken markup: nothing, no error


def test_html_extraction_records_its_meta_dates_and_ingest_chooses_them(tmp_path):
    page = (b'<html><head><title>Terms</title><meta name="dcterms.modified" content="2023-10-01"></head>'
            b'<body><p>Effective date: January 1, 2020</p><p>These terms apply.</p></body></html>')
    ex = extract_bytes(page, "terms.html")
    assert ex.meta == {"dates": {"html:dcterms.modified": "2023-10-01"}}
    assert extract_bytes(b"<html><body><p>No dates here at all.</p></body></html>", "x.html").meta == {}
    own = D.own(ex.meta["dates"], ex.text)
    assert [(d.date, d.source) for d in own] == [("2023-10-01", "html:dcterms.modified"), ("2020-01-01", "text")]


def _docx(core: bytes | None) -> bytes:
    body = (b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
            b"<w:body><w:p><w:r><w:t>Supply agreement between the parties.</w:t></w:r></w:p></w:body></w:document>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", body)
        if core is not None:
            z.writestr("docProps/core.xml", core)
    return buf.getvalue()


def test_docx_core_properties_give_modified_and_created():
    core = (b'<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/'
            b'metadata/core-properties" xmlns:dcterms="http://purl.org/dc/terms/" '
            b'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
            b'<dcterms:created xsi:type="dcterms:W3CDTF">2021-05-01T08:00:00Z</dcterms:created>'
            b'<dcterms:modified xsi:type="dcterms:W3CDTF">2023-10-01T09:30:00Z</dcterms:modified>'
            b"</cp:coreProperties>")
    ex = extract_bytes(_docx(core), "a.docx")
    assert ex.meta == {"dates": {"docx:created": "2021-05-01T08:00:00Z", "docx:modified": "2023-10-01T09:30:00Z"}}
    assert [d.source for d in D.own(ex.meta["dates"])] == ["docx:modified", "docx:created"]
    assert extract_bytes(_docx(None), "a.docx").meta == {}
    # a core.xml that is not XML (or declares an entity) gives no date and fails nothing
    bad = extract_bytes(_docx(b'<!DOCTYPE x [<!ENTITY e "2023">]><x>&e;</x>'), "a.docx")
    assert bad.meta == {} and "Supply agreement" in bad.text


def test_pdf_info_and_xmp_dates_come_through_pdfminer():
    fpdf = pytest.importorskip("fpdf")
    from datetime import UTC, datetime

    pdf = fpdf.FPDF()
    pdf.set_creation_date(datetime(2022, 3, 4, 5, 6, 7, tzinfo=UTC))
    pdf.set_xmp_metadata(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:ModifyDate="2023-10-01T12:00:00+02:00">'
        '<xmp:CreateDate>2022-03-04T05:06:07Z</xmp:CreateDate></rdf:Description></rdf:RDF></x:xmpmeta>')
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Lease agreement. The tenant shall pay the rent on the first day of each month.")
    ex = extract_bytes(bytes(pdf.output()), "lease.pdf")
    dates = ex.meta["dates"]
    assert D.parse(dates["pdf:CreationDate"]) == "2022-03-04T05:06:07Z"
    assert dates["xmp:ModifyDate"] == "2023-10-01T12:00:00+02:00" and dates["xmp:CreateDate"] == "2022-03-04T05:06:07Z"
    # modification before creation: the XMP ModifyDate is this PDF's date
    assert D.own(dates)[0] == D.Dated("2023-10-01T10:00:00Z", "xmp:ModifyDate", "2023-10-01T12:00:00+02:00")


# -- the choice --------------------------------------------------------------------------------

def _d(date, source):
    return D.Dated(date, source, date)


def test_the_most_trusted_kind_comes_first_and_the_latest_copy_counts():
    own = [_d("2021-01-01", "pdf:ModDate"), _d("2020-06-01", "text")]
    supplied = [_d("2019-01-01", "supplied:a.csv"), _d("2019-02-01", "supplied:a.csv")]
    mtimes = [_d("2018-01-01", "mtime"), _d("2018-05-01", "mtime"), _d("2024-01-01", "copied")]
    ev = D.evidence(own, supplied, mtimes, "2024-01-01T10:00:00+00:00")
    assert [(d.date, d.kind) for d in ev] == [("2019-02-01", "supplied"), ("2021-01-01", "metadata"),
                                              ("2018-05-01", "mtime"), ("2020-06-01", "text"), ("2024-01-01", "copied")]
    assert [d.kind for d in D.evidence(own, [], mtimes)] == ["metadata", "mtime", "text", "copied"]
    assert D.evidence([], [], []) == []


def test_a_modification_time_just_before_ingest_is_the_copys_not_the_documents():
    seen = "2026-12-01T03:40:46+00:00"
    assert D.mtime("2026-12-01T03:40:42+00:00", seen).kind == "copied"
    assert D.mtime("2026-11-29T03:40:42+00:00", seen).kind == "mtime"
    assert D.mtime("2019-03-29T16:37:30+00:00", seen) == D.Dated("2019-03-29T16:37:30Z", "mtime",
                                                                 "2019-03-29T16:37:30+00:00")
    assert D.mtime("1e99", seen) is None and D.mtime(None) is None
    # a stated date outranks a copy's time, not a file's real modification time
    stated = [_d("2023-10-01", "text")]
    assert D.evidence(stated, [], [D.mtime("2026-12-01T03:40:42+00:00", seen)])[0].kind == "text"
    assert D.evidence(stated, [], [D.mtime("2019-03-29T16:37:30+00:00", seen)])[0].kind == "mtime"


def test_a_date_far_after_ingest_is_not_believed_unless_supplied():
    own = [_d("2999-01-01", "pdf:ModDate"), _d("2025-06-01", "pdf:CreationDate"), _d("2025-01-15", "text")]
    ev = D.evidence(own, [], [], "2024-03-01T00:00:00+00:00")
    assert [d.source for d in ev] == ["text"]  # within a year of ingest
    assert D.evidence([], [_d("2999-01-01", "supplied:f.csv")], [], "2024-03-01T00:00:00+00:00")[0].date == "2999-01-01"


def test_newest_key_orders_by_the_best_date_then_the_next_kind():
    a = [_d("2023-10-01", "mtime"), _d("2020-01-01", "text")]
    b = [_d("2023-10-01", "mtime"), _d("2021-01-01", "text")]
    c = [_d("2023-09-30T23:59:59Z", "mtime")]
    undated: list[D.Dated] = []
    ordered = sorted([("a", a), ("b", b), ("c", c), ("none", undated)], key=lambda kv: D.newest_key(kv[1]))
    assert [k for k, _ in ordered] == ["b", "a", "c", "none"]
    # coarser dates mean their first instant: December 2025 is before December 5, 2025
    assert D.newest_key([_d("2025-12-05", "text")]) < D.newest_key([_d("2025-12", "text")])


# -- stored documents and dates files ----------------------------------------------------------

def _write(path: Path, text: str, when: str) -> Path:
    from datetime import datetime

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    t = datetime.fromisoformat(when).timestamp()
    os.utime(path, (t, t))
    return path


@pytest.fixture
def dated_store(tmp_path):
    src = tmp_path / "crawl"
    _write(src / "a.txt", "Terms of service, first version. " * 20, "2019-01-01T00:00:00+00:00")
    _write(src / "b.txt", "Effective date: March 1, 2020\n\n" + "Terms of service, second. " * 20,
           "2021-01-01T00:00:00+00:00")
    _write(src / "copy" / "a.txt", "Terms of service, first version. " * 20, "2022-06-01T00:00:00+00:00")
    db = tmp_path / "d.db"
    with Store(db) as store:
        ingest(store, [src], workers=1)
    return db, src


def test_ingest_dates_every_document_by_its_latest_copy_and_shows_it(dated_store):
    db, src = dated_store
    with Store(db) as store:
        rows = {Path(p).name: (d, s) for p, d, s in store.conn.execute("SELECT path, date, date_source FROM documents")}
        a = store.resolve(str(src / "a.txt"))
        assert store.scalar("SELECT count(*) FROM sightings WHERE doc_id = ?", (a,)) == 2
    assert rows["a.txt"] == ("2022-06-01T00:00:00Z", "mtime")  # its copy seen in 2022
    assert rows["b.txt"] == ("2021-01-01T00:00:00Z", "mtime")  # the file's time before its stated date
    r = CliRunner().invoke(cli, ["show", "--db", str(db), str(src / "b.txt")])
    assert r.exit_code == 0
    assert "date 2021-01-01T00:00:00Z (file modified)" in r.stdout
    assert "also 2020-03-01 (stated: 'Effective date: March 1, 2020')" in r.stdout
    j = json.loads(CliRunner().invoke(cli, ["show", "--db", str(db), str(src / "b.txt"), "--json"]).stdout)
    assert j["date"] == "2021-01-01T00:00:00Z" and j["dates"] == [
        {"date": "2020-03-01", "source": "text", "found": "Effective date: March 1, 2020"}]
    assert [d["source"] for d in j["date_evidence"]] == ["mtime", "text"]


def test_a_dates_file_dates_copies_by_path_or_sha256_and_reports_bad_lines(dated_store, tmp_path):
    db, src = dated_store
    with Store(db) as store:
        b_sha = store.scalar("SELECT sha256 FROM documents WHERE path LIKE '%b.txt'")
    f = tmp_path / "published.csv"
    f.write_text("path,date\n"
                 f"{src / 'a.txt'},2018-03-01\n"  # an absolute path
                 "crawl/copy/a.txt,2018-04-01T10:00:00+02:00\n"  # relative to the file's directory
                 f"{b_sha.upper()},\"October 1, 2023\"\n"
                 "crawl/nowhere.txt,2020-01-01\n"
                 "crawl/a.txt,someday\n")
    with Store(db) as store:
        applied = apply_dates(store, f)
        rows = {Path(p).name: (d, s) for p, d, s in store.conn.execute("SELECT path, date, date_source FROM documents")}
        supplied = store.conn.execute("SELECT supplied_date FROM sightings WHERE supplied_date IS NOT NULL"
                                      " ORDER BY supplied_date").fetchall()
    assert (applied.copies, applied.documents) == (3, 2)
    assert applied.unmatched == [(5, "crawl/nowhere.txt")]
    assert [(n, c) for n, c, _ in applied.problems] == [(6, "bad_date")]
    assert rows["a.txt"] == ("2018-04-01T08:00:00Z", "supplied:published.csv")  # the later of its two copies
    assert rows["b.txt"] == ("2023-10-01", "supplied:published.csv")
    assert [r[0] for r in supplied] == ["2018-03-01", "2018-04-01T08:00:00Z", "2023-10-01"]
    # the command: the same, exit 2 for the unreadable line once the others are recorded
    r = CliRunner().invoke(cli, ["dates", "--db", str(db), str(f), "--json"])
    assert r.exit_code == 2 and json.loads(r.stdout)["problems"][0]["code"] == "bad_date"


def test_json_lines_and_headerless_csv_are_read_and_a_useless_file_refused(tmp_path):
    j = tmp_path / "d.jsonl"
    j.write_text('{"path": "x/a.txt", "date": "2023-10-01"}\n{"sha256": "' + "ab" * 32 + '", "date": "2024"}\n'
                 "not json\n[1]\n{\"path\": \"y\"}\n")
    f = read_dates_file(j)
    assert [(e.key, e.date, e.by) for e in f.entries] == [("x/a.txt", "2023-10-01", "path"), ("ab" * 32, "2024", "sha256")]
    assert [(n, c) for n, c, _ in f.problems] == [(3, "bad_line"), (4, "bad_line"), (5, "bad_date")]
    c = tmp_path / "d.csv"
    c.write_text("x/a.txt,2023-10-01\nx/b.txt,2023-10-02\n")
    assert [e.date for e in read_dates_file(c).entries] == ["2023-10-01", "2023-10-02"]
    for body in ("file,when\nx,2023-01-01\n", "", "path,date\nx,never\n"):
        c.write_text(body)
        with pytest.raises(UsageError, match=r"no usable date|header"):
            read_dates_file(c)
    with pytest.raises(UsageError, match="cannot read"):
        read_dates_file(tmp_path / "missing.csv")


def test_ingest_with_dates_records_them_and_a_bad_file_stops_before_ingesting(tmp_path):
    src = tmp_path / "crawl"
    _write(src / "v1.txt", "Privacy statement, version one. " * 20, "2026-01-01T00:00:00+00:00")
    dates = tmp_path / "dates.csv"
    dates.write_text("path,date\ncrawl/v1.txt,2017-06-09T23:41:00+00:00\n")
    db = tmp_path / "d.db"
    r = CliRunner().invoke(cli, ["ingest", "--db", str(db), str(src), "--dates", str(dates), "--json", "-q"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["dates"]["copies"] == 1
    with Store(db) as store:
        assert store.conn.execute("SELECT date, date_source FROM documents").fetchone() == (
            "2017-06-09T23:41:00Z", "supplied:dates.csv")
    dates.write_text("path,date\ncrawl/v1.txt,whenever\n")
    r = CliRunner().invoke(cli, ["ingest", "--db", str(tmp_path / "e.db"), str(src), "--dates", str(dates)])
    assert r.exit_code == 2 and "no usable date" in r.stderr
    assert not (tmp_path / "e.db").exists() or Store(tmp_path / "e.db").scalar("SELECT count(*) FROM documents") == 0


def test_an_edgar_submission_dates_itself_and_its_parts_by_its_filing_date(tmp_path):
    from tests.support.assembled import submission

    src = tmp_path / "edgar"
    src.mkdir()
    raw = submission("0000123456-24-000001", [("10-K", "Annual report of the company. " * 40),
                                              ("EX-10.1", "Lease between the parties. " * 40)])
    (src / "0000123456-24-000001.txt").write_bytes(raw)
    os.utime(src / "0000123456-24-000001.txt", (1_000_000_000, 1_000_000_000))  # 2001: an old copy's time
    with Store(tmp_path / "e.db") as store:
        ingest(store, [src], workers=1)
        rows = store.conn.execute("SELECT parent_id IS NOT NULL, date, date_source FROM documents ORDER BY id").fetchall()
    assert rows == [(0, "2024-03-01", "edgar:filing_date"), (1, "2024-03-01", "edgar:filing_date"),
                    (1, "2024-03-01", "edgar:filing_date")]
