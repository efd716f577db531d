"""The plan says which pages of a document could not be read (issue 36): kept or dropped, a
document was judged on the pages that were read."""

from __future__ import annotations

import json

from auditor.assembly import assemble, verify
from auditor.corpus.ingest import ingest
from auditor.report.pipeline import audit_job
from tests.report.test_report_unread import NEVER, _pages
from tests.support import synth
from tests.support.fixtures_build import make_pdf_with_pictures


def test_plan_lines_carry_the_unread_pages(store, tmp_path):
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "opinion.pdf").write_bytes(make_pdf_with_pictures([*_pages(91, 8), None]))  # 1 of 9 unread
    (d / "exhibit.pdf").write_bytes(make_pdf_with_pictures([_pages(92, 1)[0], None, None, None]))  # refused
    (d / "lease.txt").write_text(synth.contract(93, 600, kind="lease"))
    ingest(store, [d], workers=1, limits=NEVER)
    audit_job(store, 0.8, out=tmp_path / "r")
    assemble(store, tmp_path / "out")
    lines = {json.loads(x)["provenance"]["path"].rsplit("/", 1)[1]: json.loads(x)
             for x in (tmp_path / "out" / "plan.jsonl").read_text().splitlines()}
    opinion, exhibit, lease = lines["opinion.pdf"], lines["exhibit.pdf"], lines["lease.txt"]
    assert opinion["decision"] == "keep" and opinion["unread"]["pages"] == [9]
    assert opinion["unread"]["share"] == 0.1111 and "--ocr never" in opinion["unread"]["reasons"][0]["reason"]
    assert (exhibit["decision"], exhibit["reason"]) == ("drop", "not-auditable")
    assert exhibit["unread"]["pages"] == [2, 3, 4] and exhibit["unread"]["share"] == 0.75
    assert "unread" not in lease  # negative: a text document
    assert verify(tmp_path / "out", store).ok
