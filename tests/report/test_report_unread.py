"""The pages of a document that could not be read are in the audit report (issue 36): in its
documents and not-auditable entries, in an "Audited in part" section of report.md and
report.html, and under verify like every other number."""

from __future__ import annotations

import gzip
import json

import pytest

from auditor.corpus.ingest import ingest
from auditor.extract import Limits
from auditor.report.build import digest, pretty
from auditor.report.pipeline import audit_job, verify
from tests.support import synth
from tests.support.fixtures_build import make_pdf_with_pictures

NEVER = Limits(ocr="never")  # a picture page is then unread, and no OCR runs in these tests


def _pages(seed: int, n: int) -> list[str]:
    words = synth.contract(seed, n * 80, kind="lease").split()
    return [" ".join(words[i * 80 : (i + 1) * 80]) for i in range(n)]


@pytest.fixture
def audited(store, tmp_path):
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "opinion.pdf").write_bytes(make_pdf_with_pictures([*_pages(81, 8), None]))  # 1 of 9 unread
    (d / "exhibit.pdf").write_bytes(make_pdf_with_pictures([_pages(82, 1)[0], None, None, None]))  # refused
    (d / "lease.txt").write_text(synth.contract(83, 600, kind="lease"))
    ingest(store, [d], workers=1, limits=NEVER)
    return store, tmp_path, audit_job(store, 0.8, out=tmp_path / "r").report


def _id(r, name):
    return next(int(k) for k, v in r["documents"].items() if v["path"].endswith(name))


def test_unread_pages_are_in_the_reports_entries_and_renderings(audited):
    store, tmp, r = audited
    opinion, exhibit = _id(r, "opinion.pdf"), _id(r, "exhibit.pdf")
    why = "is mostly images with little or no text layer over them (scanned text), and OCR is off (--ocr never): run with --ocr auto"
    [partly] = r["partly_read"]
    assert partly == {"doc_id": opinion, "pages": [9], "share": 0.1111, "reasons": [{"pages": [9], "reason": why}]}
    assert r["summary"]["partly_read"] == 1 and r["documents"][str(opinion)]["unread"]["pages"] == [9]
    [na] = r["not_auditable"]  # refused whole: its entry names the pages too
    assert na["doc_id"] == exhibit and na["reason"].startswith("text not readable: pdf-image-text: 3 of 4")
    assert na["unread"]["pages"] == [2, 3, 4] and na["unread"]["share"] == 0.75
    assert r["documents"][str(exhibit)]["unread"] == na["unread"]
    # negative: a text document carries no unread entry
    lease = store.scalar("SELECT id FROM documents WHERE path LIKE '%lease.txt'")
    docs = [json.loads(x) for x in gzip.decompress((tmp / "r" / "documents.jsonl.gz").read_bytes()).splitlines()]
    assert {d["doc_id"]: "unread" in d for d in docs} == {opinion: True, exhibit: True, lease: False}
    md, html = (tmp / "r" / "report.md").read_text(), (tmp / "r" / "report.html").read_text()
    assert "## Audited in part (1)" in md and f"| {opinion} | `" in md and "| 9 | 9 | 11% | page 9: is mostly images" in md
    assert 'id="partly-read"' in html and 'href="#partly-read"' in html and "11%" in html
    assert "- audited in part (pages not read): 1" in md


def test_verify_holds_the_unread_pages_to_the_store(audited):
    store, tmp, _ = audited
    assert verify(tmp / "r", store).ok
    p = tmp / "r" / "report.json"
    forged = json.loads(p.read_text())
    forged["partly_read"][0]["pages"] = []
    forged["digest"] = digest(forged)
    p.write_text(pretty(forged))
    v = verify(tmp / "r", store)
    assert not v.ok and any("partly_read" in x for x in v.problems), v.problems


def test_a_report_without_unread_pages_says_nothing_of_them(store, tmp_path):
    """Negative: the reports of corpora read in full are as before: no key, no section."""
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "a.pdf").write_bytes(make_pdf_with_pictures(_pages(84, 3)))
    (d / "b.txt").write_text(synth.contract(85, 600, kind="supply"))
    ingest(store, [d], workers=1, limits=NEVER)
    r = audit_job(store, 0.8, out=tmp_path / "r").report
    assert "partly_read" not in r and "partly_read" not in r["summary"]
    assert all("unread" not in v for v in r["documents"].values())
    assert "Audited in part" not in (tmp_path / "r" / "report.md").read_text()
    assert "partly-read" not in (tmp_path / "r" / "report.html").read_text()


def test_page_numbers_join_runs():
    from auditor.report.render.model import page_numbers

    assert page_numbers([1, 2, 3, 5, 7, 8]) == "1-3, 5, 7-8" and page_numbers([4]) == "4"
    assert page_numbers(list(range(1, 40, 2)), limit=3) == "1, 3, 5 and 17 more runs"
