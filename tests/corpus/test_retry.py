"""Inputs that failed are tried again when asked (``--retry-failed``), and by themselves when the
tool's version or the limits changed since they failed; otherwise they stay failed, unchanged."""

from __future__ import annotations

from auditor.corpus.ingest import ingest
from auditor.extract import Limits
from tests.support import synth
from tests.support.fixtures_build import make_edgar_submission

HEADER = {"accession_number": "0000950123-24-000009", "form_type": "8-K", "filing_date": "20240301",
          "company_name": "ACME CORP", "cik": "0000123456"}


def test_a_failed_file_is_tried_again_when_the_limits_or_the_version_changed(tmp_path, store, monkeypatch):
    f = tmp_path / "lease.txt"
    f.write_text(synth.contract(1, 6_000))
    small = Limits(max_text_chars=1_000)
    assert ingest(store, [f], limits=small, workers=1).outcomes[0].code == "text_too_long"
    assert ingest(store, [f], limits=small, workers=1).outcomes[0].status == "unchanged"
    monkeypatch.setattr("auditor.corpus.ingest.__version__", "9.9.9")  # a new release may read it
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


def test_a_gate_reads_and_gates_the_parts_a_stored_submission_failed_before(tmp_path, store):
    """The corpus holds a submission whose exhibit was over a limit; a gate with a larger limit
    reads the exhibit now and gates it (it is a copy of a stored contract: a finding)."""
    from auditor.gating.admission import GateOptions, run_gate

    lease = synth.contract(5, 12_000)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "lease.txt").write_text(lease)
    (tmp_path / "corpus" / "credit.txt").write_text(synth.contract(6, 12_000))
    (tmp_path / "corpus" / "f.txt").write_text(synth.filing(7, 40_000)[0])
    sub = tmp_path / "corpus" / "8k.txt"
    sub.write_bytes(make_edgar_submission(HEADER, [
        {"type": "8-K", "filename": "8k.htm", "text": synth.contract(8, 3_000)},
        {"type": "EX-10.1", "filename": "ex10.txt", "text": synth.contract(9, 8_000) + "\n\n" + lease}]))
    r = ingest(store, [tmp_path / "corpus"], batch="corpus", limits=Limits(max_text_chars=16_000), workers=1)
    assert [p[1] for o in r.outcomes for p in o.part_problems] == ["text_too_long"]
    g = run_gate(GateOptions(db=store.path, inputs=[sub], batch="again", dry_run=True, out=tmp_path / "gate",
                             workers=1))
    assert g.status == "FAILED"
    assert [(f.kind, f.new["path"].rsplit("#", 1)[1]) for f in g.findings if f.level == "error"] == [
        ("corpus-in-new", "2")]
    assert g.known == [str(sub)]
