"""Withdrawn documents leave audits, controls, exports and gates, and keep their provenance."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.controls import corpus_controls
from auditor.corpus.ingest import ingest
from auditor.corpus.withdraw import sync, withdraw
from auditor.engine.audit import run_audit
from auditor.engine.universe import duplicate_groups, not_auditable
from auditor.index.sampled import SampledIndex
from auditor.store.db import Store
from tests.support import synth
from tests.support.fixtures_build import make_edgar_submission

ROOT = Path(__file__).resolve().parents[2]


def pairs(store: Store) -> set[tuple[int, int]]:
    c = run_audit(store, 0.8, workers=1).containing
    return set(zip(c.contained.tolist(), c.container.tolist(), strict=True))


def doc_id(store: Store, path: Path) -> int:
    return store.resolve(str(path))


@pytest.fixture
def corpus(tmp_path):
    """c.txt inside f.txt; d.txt inside g.txt, with dup-crlf.txt the same text (an exact duplicate)."""
    d = tmp_path / "corpus"
    d.mkdir()
    c, dd = synth.contract(301, 12_000), synth.contract(302, 12_000)
    (d / "c.txt").write_text(c)
    (d / "d.txt").write_text(dd)
    (d / "dup-crlf.txt").write_bytes(dd.replace("\n", "\r\n").encode())
    (d / "f.txt").write_text(synth.filing(303, 40_000, exhibits=[c])[0])
    (d / "g.txt").write_text(synth.filing(304, 40_000, exhibits=[dd])[0])
    (d / "tiny.txt").write_text("Section 1. Definitions.")
    return d


@pytest.fixture
def filled(store, corpus):
    r = ingest(store, [corpus], workers=1)
    assert r.counts["ok"] == 5 and r.counts["not_auditable"] == 1 and not r.problems  # tiny.txt: 3 words
    return store


def test_a_withdrawn_document_leaves_the_audit_and_keeps_its_provenance(filled, corpus):
    store = filled
    c, f = doc_id(store, corpus / "c.txt"), doc_id(store, corpus / "f.txt")
    assert (c, f) in pairs(store)
    w = withdraw(store, [str(corpus / "f.txt")], reason="superseded filing", command="test")
    assert w.withdrawn == [f] and not w.unknown and not w.kept
    assert (c, f) not in pairs(store) and all(f not in p for p in pairs(store))
    assert f not in SampledIndex.load(store).doc_ids.tolist()
    assert c in SampledIndex.load(store).doc_ids.tolist()
    p = store.provenance(f)  # the row, its text and where it was seen are all still there
    assert p["withdrawn_at"] and p["withdrawn_reason"] == "superseded filing" and p["withdrawn_by"]
    assert p["sightings"][0]["gone_at"] and store.text(f)
    assert [(x["action"], x["command"]) for x in p["withdrawals"]] == [("withdrawn", "test")]
    assert store.provenance(c)["withdrawn_at"] is None


def test_a_withdrawn_short_document_is_not_listed_as_not_auditable(filled, corpus):
    store = filled
    tiny = doc_id(store, corpus / "tiny.txt")
    assert tiny in [x["doc_id"] for x in not_auditable(store, store.params)]
    withdraw(store, [str(tiny)])
    assert tiny not in [x["doc_id"] for x in not_auditable(store, store.params)]


def test_the_next_member_stands_for_a_group_whose_first_is_withdrawn(filled, corpus):
    store = filled
    d, copy, g = (doc_id(store, corpus / n) for n in ("d.txt", "dup-crlf.txt", "g.txt"))
    assert d < copy and (d, g) in pairs(store) and [d, copy] in duplicate_groups(store)
    assert withdraw(store, [str(d)]).withdrawn == [d]
    assert (copy, g) in pairs(store) and (d, g) not in pairs(store)
    assert store.document(copy)["duplicate_of"] is None and store.document(d)["duplicate_of"] == copy
    assert not any(d in grp for grp in duplicate_groups(store))
    # the file comes back (re-ingested as it is): the first document stands for the group again
    r = ingest(store, [corpus / "d.txt"], workers=1)
    assert r.restored == [d] and r.counts["unchanged"] == 1
    assert store.document(copy)["duplicate_of"] == d and store.document(d)["duplicate_of"] is None
    assert (d, g) in pairs(store) and [d, copy] in duplicate_groups(store)
    assert [x["action"] for x in store.provenance(d)["withdrawals"]] == ["withdrawn", "restored"]


def test_a_new_copy_of_a_withdrawn_text_joins_the_live_representative(filled, corpus, tmp_path):
    store = filled
    d, copy = doc_id(store, corpus / "d.txt"), doc_id(store, corpus / "dup-crlf.txt")
    withdraw(store, [str(d)])
    (tmp_path / "d-cr.txt").write_bytes((corpus / "d.txt").read_bytes().replace(b"\n", b"\r"))
    ingest(store, [tmp_path / "d-cr.txt"], workers=1)
    assert store.document(doc_id(store, tmp_path / "d-cr.txt"))["duplicate_of"] == copy


def test_corpus_controls_never_draw_a_withdrawn_document(filled, corpus):
    store = filled
    f = doc_id(store, corpus / "f.txt")

    def drawn() -> set[str]:
        notes = " ".join(c["note"] for s in range(12) for c in corpus_controls(store, s).controls)
        return {w for w in notes.replace(",", " ").split() if w.isdigit()}

    assert str(f) in drawn()  # the check below can fail
    withdraw(store, [str(f)])
    assert str(f) not in drawn()


def test_an_edgar_submission_takes_its_parts_unless_another_submission_has_them(store, tmp_path):
    exhibit = synth.contract(311, 12_000)
    d = tmp_path / "edgar"
    d.mkdir()
    for n in (1, 2):
        header = {"accession_number": f"0000950123-24-00000{n}", "form_type": "10-K",
                  "filing_date": "20240301", "company_name": "ACME CORP", "cik": "0000123456"}
        (d / f"s{n}.txt").write_bytes(make_edgar_submission(header, [
            {"type": "10-K", "filename": "10k.txt", "text": synth.filing(311 + n, 30_000)[0]},
            {"type": "EX-10.1", "filename": "ex.txt", "text": exhibit},
        ]))
    ingest(store, [d], workers=1)
    s1, s2 = doc_id(store, d / "s1.txt"), doc_id(store, d / "s2.txt")
    body1, ex = doc_id(store, Path(f"{d / 's1.txt'}#1")), doc_id(store, Path(f"{d / 's1.txt'}#2"))
    assert doc_id(store, Path(f"{d / 's2.txt'}#2")) == ex  # one exhibit, in both submissions
    w = withdraw(store, [str(d / "s1.txt")])
    assert w.withdrawn == sorted([s1, body1]) and ex not in w.withdrawn
    assert store.document(ex)["withdrawn_at"] is None
    assert withdraw(store, [str(s2)]).withdrawn == sorted([s2, ex, doc_id(store, Path(f"{d / 's2.txt'}#1"))])


def test_a_path_withdraws_a_place_and_keeps_a_document_seen_elsewhere(filled, corpus, tmp_path):
    store = filled
    (tmp_path / "again").mkdir()
    shutil.copy(corpus / "c.txt", tmp_path / "again" / "c.txt")
    ingest(store, [tmp_path / "again"], workers=1)
    c = doc_id(store, corpus / "c.txt")
    w = withdraw(store, [str(corpus / "c.txt")])
    assert not w.withdrawn and w.kept == {c: [str((tmp_path / "again" / "c.txt").resolve())]}
    w = withdraw(store, [str(c)])  # by id: everywhere
    assert w.withdrawn == [c]
    assert withdraw(store, [str(c)]).already == [c]
    assert withdraw(store, [store.document(c)["sha256"][:10]]).already == [c]


def test_a_deleted_directory_is_withdrawn_by_its_path(filled, corpus):
    store = filled
    shutil.rmtree(corpus)
    w = withdraw(store, [str(corpus)])
    assert len(w.withdrawn) == 6 and not SampledIndex.load(store).doc_ids.tolist()


def test_unknown_references_are_returned_and_the_others_withdrawn(filled, corpus):
    w = withdraw(filled, ["no/such/file.txt", "999", str(corpus / "c.txt")])
    assert [r for r, _ in w.unknown] == ["no/such/file.txt", "999"] and len(w.withdrawn) == 1


def test_sync_withdraws_deleted_and_replaced_files_and_keeps_moved_ones(filled, corpus):
    store = filled
    c, f, g = (doc_id(store, corpus / n) for n in ("c.txt", "f.txt", "g.txt"))
    (corpus / "f.txt").unlink()  # deleted
    (corpus / "g.txt").write_text(synth.filing(399, 30_000)[0])  # replaced by another version
    (corpus / "sub").mkdir()
    (corpus / "c.txt").rename(corpus / "sub" / "c.txt")  # moved
    r = ingest(store, [corpus], workers=1)
    w = sync(store, [corpus], [(o.doc_id, str(Path(o.path).resolve())) for o in r.outcomes if o.doc_id])
    assert w.withdrawn == sorted([f, g])
    assert str((corpus / "f.txt").resolve()) in w.gone and str((corpus / "c.txt").resolve()) in w.gone
    assert store.document(c)["withdrawn_at"] is None and c in w.kept
    assert doc_id(store, corpus / "sub" / "c.txt") == c
    again = ingest(store, [corpus], workers=1)
    assert not sync(store, [corpus], [(o.doc_id, str(Path(o.path).resolve())) for o in again.outcomes
                                     if o.doc_id]).withdrawn  # nothing more is gone


def test_the_parquet_export_leaves_withdrawn_documents_out(filled, corpus, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="the export needs the [spark] extra (pyarrow)")
    from auditor.engine.export import export_parquet

    f = doc_id(filled, corpus / "f.txt")
    withdraw(filled, [str(f)])
    export_parquet(filled, tmp_path / "export")
    ids = pq.read_table(tmp_path / "export" / "documents").column("id").to_pylist()
    assert f not in ids and len(ids) == 5
    assert f not in pq.read_table(tmp_path / "export" / "texts").column("doc_id").to_pylist()
    assert f not in set(pq.read_table(tmp_path / "export" / "postings").column("doc_id").to_pylist())


def test_withdraw_command(filled, corpus, db_path):
    r = CliRunner().invoke(cli, ["withdraw", "--db", str(db_path), "--reason", "gone", str(corpus / "f.txt"),
                                 "nothing-here", "--json"])
    assert r.exit_code == 2 and "nothing-here" in r.stderr
    out = json.loads(r.stdout)
    assert len(out["withdrawn"]) == 1 and out["unknown"][0]["reference"] == "nothing-here"
    r = CliRunner().invoke(cli, ["withdraw", "--db", str(db_path), str(corpus / "f.txt")])
    assert r.exit_code == 0 and "already withdrawn" in r.stdout
    shown = CliRunner().invoke(cli, ["show", "--db", str(db_path), str(corpus / "f.txt")])
    assert shown.exit_code == 0 and "WITHDRAWN" in shown.stdout and ": gone" in shown.stdout


def test_ingest_sync_command(filled, corpus, db_path):
    (corpus / "f.txt").unlink()
    r = CliRunner().invoke(cli, ["ingest", "--db", str(db_path), "--sync", "--json", str(corpus)])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert len(out["sync"]["withdrawn"]) == 1 and out["sync"]["gone"] == [str((corpus / "f.txt").resolve())]
    r = CliRunner().invoke(cli, ["ingest", "--db", str(db_path), "--sync", str(corpus)])
    assert r.exit_code == 0 and "withdrawn=0" in r.stdout


@pytest.mark.slow
def test_a_file_deleted_on_main_no_longer_fails_a_pull_request(tmp_path):
    """The issue's case: main deletes a lease and syncs; a pull request quoting it then passes."""
    lease = synth.contract(321, 12_000, kind="lease")
    docs = tmp_path / "documents"
    docs.mkdir()
    (docs / "lease.txt").write_text(lease)
    (docs / "credit.txt").write_text(synth.contract(322, 14_000))
    (docs / "supply.txt").write_text(synth.contract(323, 13_000))
    env = {k: v for k, v in os.environ.items() if k not in ("AUDITOR_DB", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY")}
    env["PYTHONPATH"] = str(ROOT)

    def auditor(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "auditor", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    assert auditor("ingest", "--db", "main.db", "-q", "documents").returncode == 0
    (tmp_path / "pr").mkdir()
    (tmp_path / "pr" / "filing.txt").write_text(synth.filing(324, 40_000, exhibits=[lease])[0])
    before = auditor("gate", "--db", "main.db", "--dry-run", "--out", "g1", "pr")
    assert before.returncode == 1, before.stdout + before.stderr  # the lease is in the corpus
    (docs / "lease.txt").unlink()
    assert auditor("ingest", "--db", "main.db", "-q", "--sync", "documents").returncode == 0
    after = auditor("gate", "--db", "main.db", "--dry-run", "--out", "g2", "pr")
    assert after.returncode == 0, after.stdout + after.stderr
