"""Inputs that failed are tried again when asked (``--retry-failed``), and by themselves when the
tool's version or the limits changed since they failed; otherwise they stay failed, unchanged."""

from __future__ import annotations

from auditor.demo import synth
from auditor.extract import Limits
from auditor.ingest import ingest
from tests.fixtures_build import make_edgar_submission

HEADER = {"accession_number": "0000950123-24-000009", "form_type": "8-K", "filing_date": "20240301",
          "company_name": "ACME CORP", "cik": "0000123456"}


def test_a_failed_file_is_tried_again_when_the_limits_or_the_version_changed(tmp_path, store, monkeypatch):
    f = tmp_path / "lease.txt"
    f.write_text(synth.contract(1, 6_000))
    small = Limits(max_text_chars=1_000)
    assert ingest(store, [f], limits=small, workers=1).outcomes[0].code == "text_too_long"
    assert ingest(store, [f], limits=small, workers=1).outcomes[0].status == "unchanged"
    monkeypatch.setattr("auditor.ingest.__version__", "9.9.9")  # a new release may read it
    assert ingest(store, [f], limits=small, workers=1).outcomes[0].code == "text_too_long"  # tried again
    assert ingest(store, [f], limits=small, workers=1).outcomes[0].status == "unchanged"
    assert ingest(store, [f], workers=1).outcomes[0].status == "ok"  # larger limit: stored now


def test_retry_failed_tries_again_under_the_same_limits(tmp_path, store):
    f = tmp_path / "lease.txt"
    f.write_text(synth.contract(2, 6_000))
    small = Limits(max_text_chars=1_000)
    ingest(store, [f], limits=small, workers=1)
    assert ingest(store, [f], limits=small, workers=1, retry_failed=True).outcomes[0].code == "text_too_long"


def test_failed_parts_of_a_stored_submission_are_tried_again(tmp_path, store):
    big, small = synth.contract(3, 12_000), synth.contract(4, 3_000)
    sub = tmp_path / "8k.txt"
    sub.write_bytes(make_edgar_submission(HEADER, [
        {"type": "8-K", "filename": "8k.htm", "text": small},
        {"type": "EX-10.1", "filename": "ex10.txt", "text": big}]))
    tight = Limits(max_text_chars=8_000)
    first = ingest(store, [sub], limits=tight, workers=1).outcomes[0]
    assert [p[1] for p in first.part_problems] == ["text_too_long"]
    assert ingest(store, [sub], limits=tight, workers=1).outcomes[0].status == "unchanged"
    again = ingest(store, [sub], workers=1).outcomes[0]  # the limit was raised: the part is read now
    assert again.part_problems == [] and again.parts == 2
    assert store.scalar("SELECT count(*) FROM failures WHERE part != ''") == 0
    assert store.scalar("SELECT count(*) FROM documents WHERE parent_id IS NOT NULL") == 2
    assert ingest(store, [sub], workers=1).outcomes[0].status == "unchanged"
