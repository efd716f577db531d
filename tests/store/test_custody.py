"""The chain of custody: every write is an entry of a hash-chained log in the store, and a store
changed behind the tool's back is refused by the commands a user runs anyway (audit, gate and
assemble exit 2, check exits 1), naming the entry or the document; reports, gate results and
assembled corpora record the head they were computed from, and verify checks it."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.assembly import assemble
from auditor.assembly import verify as verify_assembly
from auditor.cli import cli
from auditor.corpus.check import check_store, require_intact
from auditor.corpus.ingest import ingest
from auditor.corpus.withdraw import withdraw
from auditor.errors import StoreDamaged, StoreError
from auditor.report.pipeline import audit_job, verify
from auditor.store import custody
from auditor.store.custody.chain import GENESIS_PREV, State, entry_hash, row_digest
from auditor.store.db import MIGRATIONS, Store
from auditor.store.packing import pack_text, text_digest
from tests.support import synth
from tests.support.hostile import copy_store, sql
from tests.support.textgen import prose

# -- the pure part ------------------------------------------------------------------------------


def test_a_row_digest_covers_every_value_and_its_type_and_skips_nulls():
    base = row_digest("documents", 1, ("a", "b"), ["text", b"x", "integer", b"5"])
    assert base == row_digest("documents", 1, ("a", "b", "c"), ["text", b"x", "integer", b"5", "null", None])
    for other in (row_digest("documents", 2, ("a", "b"), ["text", b"x", "integer", b"5"]),
                  row_digest("texts", 1, ("a", "b"), ["text", b"x", "integer", b"5"]),
                  row_digest("documents", 1, ("a", "b"), ["text", b"x", "text", b"5"]),
                  row_digest("documents", 1, ("a", "b"), ["text", b"x5", "null", None]),
                  row_digest("documents", "1", ("a", "b"), ["text", b"x", "integer", b"5"])):
        assert other != base


def test_the_state_is_a_set_hash_updated_row_by_row():
    digests = [row_digest("t", i, ("v",), ["integer", str(i).encode()]) for i in range(50)]
    a, b = State(), State()
    a.add(digests)
    b.add(reversed(digests))
    assert a.digest() == b.digest() != State().digest()  # no order
    c = a.copy()
    c.remove(digests[:10])
    d = State()
    d.add(digests[10:])
    assert c.digest() == d.digest()
    c.apply([["t", 3, digests[3], digests[0]]])  # a changed row: one removed, one added
    assert c.digest() != d.digest()
    assert State.from_bytes(a.to_bytes()).digest() == a.digest()


# -- a store ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """Contracts and a filing quoting one, in two batches, one document withdrawn, audited."""
    d = tmp_path_factory.mktemp("custody")
    room, filings = d / "room", d / "filings"
    room.mkdir()
    filings.mkdir()
    contracts = [synth.contract(900 + i, 9_000) for i in range(4)]
    for i, c in enumerate(contracts):
        (room / f"contract-{i}.txt").write_text(c)
    (filings / "filing.txt").write_text(synth.filing(950, 30_000, exhibits=[contracts[0]])[0])
    (filings / "notice.txt").write_text(prose(951, 300))
    (filings / "amended.txt").write_text(contracts[1] + "\n" + prose(952, 120))  # a family with contract-1
    (filings / "copy.txt").write_text(contracts[3].upper())  # an exact duplicate of contract-3
    db = d / "base.db"
    with Store(db) as s:
        ingest(s, [room], workers=1, source="room")
        ingest(s, [filings], workers=1, source="filings")
        withdraw(s, [str(filings / "notice.txt")], reason="superseded")
        ids = {Path(p).name: i for i, p in s.conn.execute("SELECT id, path FROM documents")}
        audit_job(s, 0.8, out=d / "report")
    return {"db": db, "dir": d, "ids": ids, "contracts": contracts}


@pytest.fixture
def db(base, tmp_path):
    """A copy of the base store for one test to tamper with."""
    return copy_store(base["db"], tmp_path / "store.db")


def actions(db: Path) -> list[str]:
    with sqlite3.connect(db) as c:
        return [r[0] for r in c.execute("SELECT json_extract(entry, '$.action') FROM custody ORDER BY seq")]


def run(*args: str):
    return CliRunner().invoke(cli, [*args])


def test_every_write_is_an_entry_and_an_untouched_store_checks(base, db):
    assert actions(db)[:2] == ["genesis", "batch"]
    assert {"ingest", "batch", "withdraw", "audit"} <= set(actions(db))
    with Store(db) as s:
        full, quick = check_store(s), check_store(s, quick=True)
        assert full.ok and quick.ok, full.problems + quick.problems
        assert full.entries == len(actions(db)) and full.custody == custody.head(s.conn)
        entries = list(custody.log.entries(s.conn))
    prev = GENESIS_PREV
    for e in entries:  # a chain: each entry names the one before, and its hash is its content's
        assert e.fields["prev"] == prev and entry_hash(e.body) == e.hash and e.fields["by"]
        prev = e.hash
    ingest_entry = next(e.fields for e in entries if e.fields["action"] == "ingest")
    assert {"path", "sha256", "outcome", "doc_id"} <= set(ingest_entry["detail"])
    r = run("check", "--db", str(db))
    assert r.exit_code == 0 and f"head entry {entries[-1].seq} (hash {entries[-1].hash})" in r.stdout


def test_nothing_written_outside_the_tool_is_in_the_log(db):
    """A rolled-back write leaves no entry; a write through another client leaves no entry."""
    n = len(actions(db))
    with Store(db) as s, pytest.raises(RuntimeError), s.write("test"):
        s.conn.execute("UPDATE documents SET withdrawn_reason = 'x' WHERE id = 1")
        raise RuntimeError
    assert len(actions(db)) == n
    with Store(db) as s:
        assert check_store(s, quick=True).ok


# -- the tamperings ----------------------------------------------------------------------------

def refused(db: Path, tmp_path: Path, name: str, batch: str | None = None) -> None:
    """audit, assemble and a gate refuse (exit 2) naming ``name``; check exits 1 naming it.
    ``batch``: the gate's new document (else new prose): the gate checks the texts and word
    sequences it reads, so a text or sequence tampered with is refused by a gate that reads it."""
    a = run("audit", "--db", str(db), "--out", str(tmp_path / "rep"))
    assert a.exit_code == 2 and "damaged" in a.output and name in a.output, a.output
    assert not (tmp_path / "rep").exists()
    m = run("assemble", "--db", str(db), "--out", str(tmp_path / "corpus"))
    assert m.exit_code == 2 and name in m.output, m.output
    new = tmp_path / "new"
    new.mkdir(exist_ok=True)
    (new / "n.txt").write_text(batch if batch is not None else prose(960, 300))
    g = run("gate", "--db", str(db), "--dry-run", "--out", str(tmp_path / "gate"), str(new))
    assert g.exit_code == 2 and name in g.output, g.output
    c = run("check", "--db", str(db))
    assert c.exit_code == 1 and name in c.output, c.output


def test_a_text_edited_with_its_recorded_digest_is_refused(base, db, tmp_path):
    i = base["ids"]["contract-1.txt"]
    with Store(db) as s:
        text = s.text(i).replace("Agreement", "Agreemant", 1)
    sql(db, ("UPDATE texts SET text = ?, sha256 = ? WHERE doc_id = ?", (pack_text(text), text_digest(text), i)))
    refused(db, tmp_path, "contract-1.txt", batch=base["contracts"][1])  # a gate that reads it
    with Store(db) as s:
        r = check_store(s)
    [p] = [p for p in r.problems if p.kind == "custody"]
    assert p.doc_id == i and "its text is not what custody entry" in p.detail and "(ingest, " in p.detail


def test_two_texts_swapped_with_their_digests_are_refused(base, db, tmp_path):
    a, b = base["ids"]["contract-2.txt"], base["ids"]["contract-3.txt"]
    sql(db, ("UPDATE texts SET doc_id = -1 WHERE doc_id = ?", (a,)), ("UPDATE texts SET doc_id = ? WHERE doc_id = ?", (a, b)),
        ("UPDATE texts SET doc_id = ? WHERE doc_id = -1", (b,)))
    refused(db, tmp_path, "contract-2.txt", batch=base["contracts"][2])
    with Store(db) as s:
        assert {p.doc_id for p in check_store(s, quick=True).problems} == {a, b}


def test_withdrawn_at_set_by_hand_is_refused_and_a_copy_of_the_document_does_not_pass(base, db, tmp_path):
    i = base["ids"]["contract-2.txt"]
    sql(db, ("UPDATE documents SET withdrawn_at = '2026-01-01T00:00:00+00:00', withdrawn_reason = 'x' WHERE id = ?", (i,)))
    with Store(db) as s:
        r = check_store(s)
    assert {(p.kind, p.doc_id) for p in r.problems} == {("withdrawal", i), ("custody", i)}
    assert "no withdrawal record says who withdrew it" in next(p.detail for p in r.problems if p.kind == "withdrawal")
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "same.txt").write_text(base["contracts"][2])
    g = run("gate", "--db", str(db), "--dry-run", "--out", str(tmp_path / "g"), str(copy))
    assert g.exit_code == 2 and "contract-2.txt" in g.output
    refused(db, tmp_path, "contract-2.txt")


def test_a_withdrawal_undone_or_its_record_deleted_by_hand_is_refused(base, db, tmp_path):
    i = base["ids"]["notice.txt"]
    sql(db, ("UPDATE documents SET withdrawn_at = NULL, withdrawn_reason = NULL, withdrawn_by = NULL WHERE id = ?", (i,)))
    with Store(db) as s:
        r = check_store(s, quick=True)
    assert {(p.kind, p.doc_id) for p in r.problems} == {("withdrawal", i), ("custody", i)}
    refused(db, tmp_path, "notice.txt")


def test_an_index_row_edited_is_refused(base, db, tmp_path):
    i = base["ids"]["contract-0.txt"]
    with Store(db) as s:
        sampled = bytes(s.scalar("SELECT sampled FROM index_docs WHERE doc_id = ?", (i,)))
    sql(db, ("UPDATE index_docs SET sampled = ?, n_sampled = n_sampled - 1 WHERE doc_id = ?", (sampled[8:], i)))
    refused(db, tmp_path, "contract-0.txt")
    with Store(db) as s:
        assert "its index row is not what custody entry" in check_store(s, quick=True).problems[0].detail


def test_rows_added_or_deleted_behind_the_stores_back_are_named(base, db):
    i = base["ids"]["contract-3.txt"]
    sql(db, ("DELETE FROM sightings WHERE doc_id = ?", (i,)),
        ("INSERT INTO failures (batch_id, status, code, message, path, resolved, seen_at)"
         " VALUES (1, 'failed', 'x', 'planted', '/p', '/p', '2026')",))
    with Store(db) as s:
        r = check_store(s)
    said = [p.detail for p in r.problems]
    assert any(d.startswith("sighting ") and "is gone from the store: it was deleted behind the store's back" in d
               for d in said)
    assert any(d.startswith("failed-input record ") and "in no custody entry" in d for d in said)
    assert len(said) == 2


def test_the_last_entries_deleted_are_named(base, db, tmp_path):
    """Cutting the log's tail leaves rows no entry vouches for, and the log's sequence shows it;
    a report computed from the cut entries no longer verifies."""
    n = len(actions(db))
    sql(db, ("DELETE FROM custody WHERE seq > ?", (n - 2,)))
    with Store(db) as s:
        r = check_store(s)
    assert any(f"entries {n - 1} to {n} were removed" in p.detail for p in r.problems)
    refused(db, tmp_path, f"entries {n - 1} to {n} were removed")
    with Store(db) as s, pytest.raises(StoreDamaged):
        verify(base["dir"] / "report", s)


def test_a_rolled_back_store_fails_the_reports_made_after_it(base, db):
    """An owner who undoes the last withdrawal consistently (its rows, its entries and those after
    it, the running state, the log's sequence) has a store that checks; but the report computed
    from it does not verify, because its custody head is no longer in the chain."""
    notice = base["ids"]["notice.txt"]
    with Store(db) as s:
        seq = s.scalar("SELECT seq FROM custody WHERE json_extract(entry, '$.action') = 'withdraw'")
        report_head = json.loads((base["dir"] / "report" / "report.json").read_text())["run"]["custody"]
        assert report_head["seq"] == seq  # the audit read the store just after the withdrawal
        r = verify(base["dir"] / "report", s)
        assert r.ok and not r.notes, r.problems
    sql(db, ("DELETE FROM custody WHERE seq >= ?", (seq,)),
        ("DELETE FROM findings",), ("DELETE FROM run_documents",), ("DELETE FROM runs",),
        ("DELETE FROM withdrawals WHERE doc_id = ?", (notice,)),
        ("UPDATE sightings SET gone_at = NULL WHERE doc_id = ?", (notice,)),
        ("UPDATE documents SET withdrawn_at = NULL, withdrawn_reason = NULL, withdrawn_by = NULL WHERE id = ?", (notice,)),
        ("UPDATE sqlite_sequence SET seq = ? WHERE name = 'custody'", (seq - 1,)))
    with Store(db) as s:
        now = custody.log.live(s.conn)
        state = State()
        state.add(now.values())
        last = custody.log.head_entry(s.conn)
    sql(db, ("UPDATE custody_head SET seq = ?, lanes = ?, checked_seq = NULL, checked_hash = NULL",
             (last.seq, state.to_bytes())), ("DELETE FROM custody_rows",),
        *[("INSERT INTO custody_rows VALUES (?,?,?)", (t, k, d)) for (t, k), d in now.items()])
    with Store(db) as s:
        assert check_store(s).ok  # a consistent older store: only a published head shows otherwise
        v = verify(base["dir"] / "report", s)
    assert v.problems == [f"report.json: the custody head it records (entry {seq}) is not in the store's log, "
                          f"which ends at entry {seq - 1}: the log was cut, or this is another store"]


def test_an_edited_entry_is_named_by_check_and_by_the_quick_check_after_the_checkpoint(base, db, tmp_path):
    with Store(db) as s:
        assert s.scalar("SELECT checked_seq FROM custody_head") is not None  # the audit's check
        seq = s.scalar("SELECT seq FROM custody WHERE json_extract(entry, '$.action') = 'withdraw'")
    sql(db, ("UPDATE custody SET entry = replace(entry, 'superseded', 'by mistake') WHERE seq = ?", (seq,)))
    with Store(db) as s:
        full = check_store(s)
        assert any(f"custody entry {seq}: its content does not hash to the hash stored with it" in p.detail
                   for p in full.problems)
        assert check_store(s, quick=True).ok  # before the checkpoint: the live state still matches
    sql(db, ("UPDATE custody SET entry = replace(entry, 'by mistake', 'superseded') WHERE seq = ?", (seq,)))
    n = len(actions(db))  # an entry after the checkpoint, rewritten with its hash: its successor breaks
    with Store(db) as s:
        withdraw(s, [str(base["ids"]["contract-3.txt"])], reason="test")
        ingest(s, [base["dir"] / "room"], workers=1, batch="again")
    with sqlite3.connect(db) as c:
        body = c.execute("SELECT entry FROM custody WHERE seq = ?", (n + 1,)).fetchone()[0].replace('"test"', '"forged"')
        c.execute("UPDATE custody SET entry = ?, hash = ? WHERE seq = ?", (body, entry_hash(body), n + 1))
    refused(db, tmp_path, f"custody entry {n + 2}: it does not link to the entry before it")


def test_a_write_by_the_tool_over_a_tampered_row_does_not_launder_it(base, db, tmp_path):
    """A write that would change a row edited behind the store's back is refused and rolled back
    (the row's old digest is not the one the log vouches for), so the edit stays for every check
    to find; before, the write went through and its entry said it changed a row from a state the
    log never recorded."""
    i = base["ids"]["contract-2.txt"]
    sql(db, ("UPDATE documents SET duplicate_of = ? WHERE id = ?", (base["ids"]["contract-3.txt"], i)))
    with Store(db) as s:
        seq = custody.head(s.conn)["seq"]
        with pytest.raises(StoreDamaged, match=f"Document row {i} is not what the custody log vouches for"):
            withdraw(s, [str(i)], reason="superseded")
        assert custody.head(s.conn)["seq"] == seq
        assert s.scalar("SELECT withdrawn_at FROM documents WHERE id = ?", (i,)) is None
        full = check_store(s)
    assert any(f"document {i}" in p.line() for p in full.problems), [p.line() for p in full.problems]
    refused(db, tmp_path, f"document {i}")


def test_a_forged_running_state_is_named(db, tmp_path):
    sql(db, ("UPDATE custody_head SET lanes = zeroblob(2048)",))
    refused(db, tmp_path, "the log's running state is not the state its last entry")


def test_a_writer_refuses_to_extend_a_log_whose_head_does_not_hold_together(base, db):
    sql(db, ("UPDATE custody_head SET lanes = zeroblob(2048)",))
    with Store(db) as s, pytest.raises(StoreDamaged, match="does not hold together"):
        withdraw(s, [str(base["ids"]["contract-3.txt"])])
    with Store(db) as s:
        assert s.scalar("SELECT withdrawn_at FROM documents WHERE id = ?", (base["ids"]["contract-3.txt"],)) is None


# -- a run's pairs and documents --------------------------------------------------------------------

def test_a_run_records_the_digest_of_its_pairs_and_documents(base, db):
    from auditor.store.custody.runs import problem, stored

    with Store(db) as s:
        run, contents = s.conn.execute("SELECT id, contents FROM runs WHERE kind = 'audit'").fetchone()
        assert contents == stored(s.conn, run) and problem(s.conn, run) is None
        kinds = s.conn.execute("SELECT count(*), count(family), count(spans) FROM findings WHERE run = ?", (run,)).fetchone()
        assert kinds[0] >= 3 and kinds[1] >= 2 and kinds[2] >= 1  # pairs in a family, pairs located
        assert {r[0] for r in s.conn.execute("SELECT status FROM run_documents")} == {"audited", "duplicate"}


@pytest.mark.parametrize("edit", [
    "UPDATE findings SET containment = 0.5 WHERE contained_id = (SELECT min(contained_id) FROM findings)",
    "UPDATE findings SET family = NULL WHERE family IS NOT NULL",
    "DELETE FROM findings WHERE spans IS NOT NULL",
    "UPDATE run_documents SET status = 'audited' WHERE status = 'duplicate'",
])
def test_an_assembly_refuses_a_run_whose_pairs_or_documents_were_altered(db, tmp_path, edit):
    sql(db, (edit,))
    m = run("assemble", "--db", str(db), "--out", str(tmp_path / "corpus"))
    assert m.exit_code == 2 and "are not those the run recorded" in m.output and not (tmp_path / "corpus").exists()
    c = run("check", "--db", str(db))
    assert c.exit_code == 1 and "are not those the run recorded" in c.output


# -- heads in reports, gate results and corpora ---------------------------------------------------

@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_reports_gate_results_and_corpora_record_the_head_and_verify_checks_it(base, db, tmp_path):
    with Store(db) as s:
        before = custody.head(s.conn)
        o = audit_job(s, 0.8, out=tmp_path / "rep")
        assert o.report["run"]["custody"] == before  # what the audit read
        assert custody.head(s.conn)["seq"] == before["seq"] + 1  # then the run was recorded
        a = assemble(s, tmp_path / "corpus")
        assert a.manifest["custody"]["seq"] == before["seq"] + 1  # the audit's entry, then its own
        assert actions(db)[-1] == "assemble"
        assert verify(tmp_path / "rep", s).ok and verify_assembly(tmp_path / "corpus", s).ok
        ingest(s, [base["dir"] / "room"], workers=1, batch="later")  # the store grows: both still verify
        assert verify(tmp_path / "rep", s).ok and verify_assembly(tmp_path / "corpus", s).ok
    new = tmp_path / "new"
    new.mkdir()
    (new / "clause.txt").write_text(synth.contract(970, 5_000))
    g = run("gate", "--db", str(db), "--out", str(tmp_path / "gate"), str(new))
    assert g.exit_code == 0, g.output
    gate = json.loads((tmp_path / "gate" / "gate.json").read_text())
    report = json.loads((tmp_path / "gate" / "report.json").read_text())
    assert gate["custody"] == report["run"]["custody"] and gate["custody"]["seq"] > before["seq"]
    with Store(db) as s:
        assert verify(tmp_path / "gate", s).ok
        assert custody.recorded(s.conn, ("gate",), "run_id", report["run"]["run_id"])


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_verify_names_a_head_that_is_not_in_the_chain_or_was_removed(base, db, tmp_path):
    from auditor.report.build import pretty, run_digest

    with Store(db) as s:
        audit_job(s, 0.8, out=tmp_path / "rep")
        path = tmp_path / "rep" / "report.json"
        r = json.loads(path.read_text())
        for forged in ({**r["run"]["custody"], "hash": "0" * 64}, {**r["run"]["custody"], "seq": 10_000}):
            x = json.loads(json.dumps(r))
            x["run"]["custody"] = forged
            x["run_digest"] = run_digest(x)
            path.write_text(pretty(x))
            v = verify(tmp_path / "rep", s)
            assert not v.ok and any(p.startswith("report.json: ") and "custody head" in p for p in v.problems)
        del r["run"]["custody"]  # a report of a run the log recorded must carry its head
        r["run_digest"] = run_digest(r)
        path.write_text(pretty(r))
        v = verify(tmp_path / "rep", s)
        assert not v.ok and any("the head was removed" in p for p in v.problems)


def test_a_store_changed_behind_its_back_is_not_migrated(db, monkeypatch):
    """A pending migration would record the difference as its own: it is refused instead; on an
    intact store, what a migration changes in tracked rows is recorded as its entry."""
    def fill(database):
        database.execute("UPDATE documents SET unreadable = 'migrated' WHERE id = 1")

    monkeypatch.setattr("auditor.store.db.MIGRATIONS", [*MIGRATIONS, ("0099_test_fill", fill)])
    sql(db, ("UPDATE documents SET size = size + 1 WHERE id = 2",))
    with pytest.raises(StoreDamaged, match="does not match its custody log"):
        Store(db)
    sql(db, ("UPDATE documents SET size = size - 1 WHERE id = 2",))
    with Store(db) as s:
        last = custody.log.head_entry(s.conn).fields
        assert last["action"] == "migrate" and last["detail"] == {"migrations": ["0099_test_fill"]}
        assert last["rows"] == 1 and check_store(s).ok


def test_a_store_of_a_development_version_before_the_baseline_is_refused_with_its_fix(db, tmp_path):
    """0.1.0 starts from one baseline schema: a store written before it (migrations 0001_initial
    to 0015) is not read, and the message says to ingest again; a store of this schema opens."""
    old = tmp_path / "old.db"
    shutil.copyfile(db, old)
    sql(old, ("UPDATE _sqlite_migrations SET name = '0001_initial' WHERE name = '0001_baseline'",),
        ("INSERT INTO _sqlite_migrations (migration_set, name) VALUES ('containment-auditor', '0015_custody_edits')",))
    with pytest.raises(StoreError, match=r"development version of containment-auditor from before 0\.1\.0.*ingest the "
                                         "documents again"):
        Store(old)
    with Store(db) as s:
        assert [r[0] for r in s.conn.execute("SELECT name FROM _sqlite_migrations")] == ["0001_baseline"]


def test_require_intact_returns_the_head_it_verified(db):
    with Store(db) as s:
        assert require_intact(s) == custody.head(s.conn)
