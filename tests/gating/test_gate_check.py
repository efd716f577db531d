"""The gate's integrity check (#26, #35): the log's row digests (``custody_rows``) kept by every
write and proved against the head's state, the document and index rows checked before the batch
is ingested, and every text and word sequence checked by the store as it is read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.corpus.check import check_store, require_intact, require_intact_for_gate
from auditor.corpus.ingest import ingest
from auditor.corpus.withdraw import withdraw
from auditor.errors import StoreDamaged
from auditor.index.builder import Sequences, build_index
from auditor.store import custody
from auditor.store.custody.log import live
from auditor.store.db import Store
from auditor.store.packing import pack_text, text_digest
from tests.support import synth
from tests.support.hostile import copy_store, sql
from tests.support.textgen import prose


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """Four contracts and a notice, one batch; the notice withdrawn."""
    d = tmp_path_factory.mktemp("gatecheck")
    room = d / "room"
    room.mkdir()
    contracts = [synth.contract(700 + i, 6_000) for i in range(4)]
    for i, c in enumerate(contracts):
        (room / f"contract-{i}.txt").write_text(c)
    (room / "notice.txt").write_text(prose(701, 300))
    db = d / "base.db"
    with Store(db) as s:
        ingest(s, [room], workers=1, source="room")
        withdraw(s, [str(room / "notice.txt")], reason="superseded")
        ids = {Path(p).name: i for i, p in s.conn.execute("SELECT id, path FROM documents")}
    return {"db": db, "ids": ids, "contracts": contracts}


@pytest.fixture
def db(base, tmp_path):
    return copy_store(base["db"], tmp_path / "store.db")


def kept(conn: sqlite3.Connection) -> dict:
    return {(t, k): d for t, k, d in conn.execute("SELECT tbl, key, digest FROM custody_rows")}


def gate(db: Path, tmp_path: Path, text: str, name: str = "n.txt"):
    new = tmp_path / "new"
    new.mkdir(exist_ok=True)
    for f in new.iterdir():
        f.unlink()
    (new / name).write_text(text)
    return CliRunner().invoke(cli, ["gate", "--db", str(db), "--dry-run", "--out", str(tmp_path / "gate"), str(new)])


def test_the_row_digests_are_kept_by_every_write_and_are_the_logs(db):
    with Store(db) as s:
        assert kept(s.conn) == live(s.conn) and check_store(s).ok
        ingest(s, [db.parent / "none"], workers=1)  # a batch that fails: failures and batch rows
        build_index(s, rebuild=True)  # every index row and sequence rewritten
        s.conn.execute("PRAGMA foreign_keys = OFF")
        with s.write("test"):
            s.conn.execute("DELETE FROM sightings WHERE id = (SELECT max(id) FROM sightings)")
        assert kept(s.conn) == live(s.conn)
        outcome = custody.check_rows(s.conn)
        assert outcome is not None and outcome.ok and outcome.head == custody.head(s.conn)
        assert check_store(s).ok


def test_an_untampered_store_passes_and_every_read_is_checked(base, db, tmp_path):
    with Store(db) as s:
        assert require_intact_for_gate(s) == custody.head(s.conn)
        i = base["ids"]["contract-1.txt"]
        assert s.text(i) == base["contracts"][1].strip() or s.text(i)
        assert [d for d, _ in Sequences(s, s.params).of([i])] == [i]
    g = gate(db, tmp_path, base["contracts"][1])
    assert g.exit_code == 1 and "gate FAILED" in g.output, g.output  # a copy: a finding, not damage


def test_a_stored_contracts_text_edited_with_its_digest_is_caught_when_the_gate_reads_it(base, db, tmp_path):
    i = base["ids"]["contract-1.txt"]
    with Store(db) as s:
        text = s.text(i).replace("Agreement", "Agreemant", 1)
    sql(db, ("UPDATE texts SET text = ?, sha256 = ? WHERE doc_id = ?", (pack_text(text), text_digest(text), i)))
    with Store(db) as s:
        require_intact_for_gate(s)  # the documents and the index rows are intact
        s.text(base["ids"]["contract-2.txt"])  # another text read: nothing to say
        with pytest.raises(StoreDamaged, match=r"contract-1\.txt.*not what the custody log recorded"):
            s.text(i)
    g = gate(db, tmp_path, base["contracts"][1])  # a copy of it: the gate reads its text
    assert g.exit_code == 2 and "damaged" in g.output and "contract-1.txt" in g.output, g.output


def unread(base: dict, db: Path, tmp_path: Path) -> None:
    """A text the gate does not read (the withdrawn notice: no audit, control or finding reads
    it) is not the gate's to check: the gate passes, while an audit (the full quick check) refuses."""
    g = gate(db, tmp_path, prose(702, 300))
    assert g.exit_code == 0, g.output
    a = CliRunner().invoke(cli, ["audit", "--db", str(db), "--out", str(tmp_path / "rep")])
    assert a.exit_code == 2 and "notice.txt" in a.output, a.output


def test_a_text_edited_with_its_digest_that_the_gate_does_not_read_is_left_to_audit_and_check(base, db, tmp_path):
    i = base["ids"]["notice.txt"]
    with Store(db) as s:
        text = s.text(i) + " and more"
    sql(db, ("UPDATE texts SET text = ?, sha256 = ? WHERE doc_id = ?", (pack_text(text), text_digest(text), i)))
    unread(base, db, tmp_path)


@pytest.mark.parametrize("name", ["contract-2.txt", "notice.txt"])
def test_a_text_whose_bytes_differ_from_its_digest_is_caught_when_read(base, db, tmp_path, name):
    i = base["ids"][name]
    with Store(db) as s:
        text = s.text(i) + " and more"
    sql(db, ("UPDATE texts SET text = ? WHERE doc_id = ?", (pack_text(text), i)))
    if name == "notice.txt":
        unread(base, db, tmp_path)
        return
    g = gate(db, tmp_path, base["contracts"][2])
    assert g.exit_code == 2 and "contract-2.txt" in g.output and "sha256" in g.output, g.output


def test_a_word_sequence_swapped_is_caught_when_the_gate_reads_it(base, db, tmp_path):
    a, b = base["ids"]["contract-0.txt"], base["ids"]["contract-3.txt"]
    sql(db, ("UPDATE shingle_sequences SET data = (SELECT data FROM shingle_sequences WHERE doc_id = ?),"
             " n_words = (SELECT n_words FROM shingle_sequences WHERE doc_id = ?) WHERE doc_id = ?", (b, b, a)))
    with Store(db) as s:
        require_intact_for_gate(s)
        list(Sequences(s, s.params).of([b]))
        with pytest.raises(StoreDamaged, match=r"contract-0\.txt"):
            list(Sequences(s, s.params).of([a]))
    g = gate(db, tmp_path, base["contracts"][0])
    assert g.exit_code == 2 and "contract-0.txt" in g.output, g.output


def test_a_write_over_a_row_changed_behind_the_stores_back_is_refused(base, db, tmp_path):
    """A word sequence deleted behind the store's back: the gate does not read it, but the index
    catch-up writes it again, which would record the deletion's repair as an ordinary change and
    leave nothing for any later check. The write is refused and rolled back; ordinary writes pass
    (test_the_row_digests_are_kept_by_every_write_and_are_the_logs)."""
    i = base["ids"]["contract-2.txt"]
    sql(db, ("DELETE FROM shingle_sequences WHERE doc_id = ?", (i,)))
    with Store(db) as s:
        with pytest.raises(StoreDamaged, match=f"The word sequence of document {i} is not"):
            build_index(s)
        assert s.scalar("SELECT count(*) FROM shingle_sequences WHERE doc_id = ?", (i,)) == 0
    new = tmp_path / "real"
    new.mkdir()
    (new / "n.txt").write_text(prose(703, 300))
    g = CliRunner().invoke(cli, ["gate", "--db", str(db), "--out", str(tmp_path / "g"), str(new)])
    assert g.exit_code == 2 and "behind the store's back" in g.output, g.output
    with Store(db) as s:
        assert not check_store(s).ok  # the deletion is still there to be found


def test_a_tracked_table_dropped_is_every_row_it_held_gone(db):
    with Store(db) as s:
        assert custody.differing(s.conn, {"withdrawals": None}) == []
        held = s.scalar("SELECT count(*) FROM withdrawals")
    assert held
    sql(db, ("DROP TABLE withdrawals",))
    conn = sqlite3.connect(db)
    found = custody.differing(conn, {"withdrawals": None})
    conn.close()
    assert len(found) == held and all("is gone from the store" in f.detail for f in found)


def test_a_row_digest_that_is_not_a_digest_is_named_by_the_quick_check(base, db, tmp_path):
    sql(db, ("UPDATE custody_rows SET digest = 'zz' WHERE tbl = 'documents' AND key = 1",))
    with Store(db) as s:
        outcome = custody.check_rows(s.conn)
        assert not outcome.ok and "are not digests" in outcome.findings[0].detail
    g = gate(db, tmp_path, prose(704, 300))  # the digests every read is checked against: damage
    assert g.exit_code == 2 and "custody_rows" in g.output and "internal error" not in g.output, g.output


def test_a_text_frame_turned_into_text_of_the_same_bytes_is_damage(base, db, tmp_path):
    """The same bytes as TEXT keep the digest but are no longer what the store wrote."""
    i = base["ids"]["contract-1.txt"]
    with Store(db) as s:
        assert check_store(s, quick=True).ok
    sql(db, ("UPDATE texts SET text = CAST(text AS TEXT) WHERE doc_id = ?", (i,)))
    with Store(db) as s:
        assert [p.kind for p in check_store(s, quick=True).problems] == ["text_encoding"]
        require_intact_for_gate(s)
        with pytest.raises(StoreDamaged, match=r"contract-1\.txt.*stored as text"):
            s.text(i)


@pytest.mark.parametrize("edit", ["index", "document", "sighting"])
def test_an_index_row_a_document_row_or_a_sighting_is_caught_before_the_batch(base, db, tmp_path, edit):
    i = base["ids"]["contract-3.txt"]
    if edit == "index":
        sql(db, ("UPDATE index_docs SET sampled = substr(sampled, 9), n_sampled = n_sampled - 1 WHERE doc_id = ?", (i,)))
    elif edit == "document":
        sql(db, ("UPDATE documents SET date = '1999-01-01' WHERE id = ?", (i,)))
    else:
        sql(db, ("UPDATE sightings SET source = 'elsewhere' WHERE doc_id = ?", (i,)))
    with Store(db) as s, pytest.raises(StoreDamaged, match=r"contract-3\.txt"):
        require_intact_for_gate(s)
    g = gate(db, tmp_path, prose(703, 300))  # whatever the batch: the gate reads every such row
    assert g.exit_code == 2 and "contract-3.txt" in g.output, g.output


def forge_text_and_its_digest(db: Path, i: int) -> None:
    """A stored text edited behind the store's back, with its sha256 and its row digest
    (``custody_rows``) made to match."""
    with Store(db) as s:
        text = s.text(i).replace("Agreement", "Agreemant", 1)
    sql(db, ("UPDATE texts SET text = ?, sha256 = ? WHERE doc_id = ?", (pack_text(text), text_digest(text), i)))
    with Store(db) as s:
        forged = live(s.conn, {"texts": [i]})[("texts", i)]
    sql(db, ("UPDATE custody_rows SET digest = ? WHERE tbl = 'texts' AND key = ?", (forged, i)))


def test_a_row_digest_edited_to_match_a_tampered_row_is_caught(base, db, tmp_path):
    forge_text_and_its_digest(db, base["ids"]["contract-1.txt"])
    with Store(db, readonly=True) as s:
        outcome = custody.check_rows(s.conn)
        assert "custody_rows" in outcome.findings[0].detail
        with pytest.raises(StoreDamaged, match=r"contract-1\.txt"):  # the quick check names the row
            require_intact_for_gate(s)
    g = gate(db, tmp_path, prose(704, 300))
    assert g.exit_code == 2 and "contract-1.txt" in g.output, g.output


def test_row_digests_edited_alone_are_damage_named_by_every_check(base, db, tmp_path):
    """``custody_rows`` is what each read is checked against: a digest edited alone refuses the
    reads of its row and fails the quick and the full check, naming it; other rows read as before."""
    sql(db, ("UPDATE custody_rows SET digest = ? WHERE tbl = 'texts' AND key = ?", ("0" * 64, base["ids"]["contract-0.txt"])))
    with Store(db) as s:
        assert not custody.check_rows(s.conn).ok
        with pytest.raises(StoreDamaged, match=r"custody_rows\) differ from the store's rows for 1 row"):
            require_intact_for_gate(s)
        with pytest.raises(StoreDamaged, match=r"contract-0\.txt"):
            s.text(base["ids"]["contract-0.txt"])
        assert s.text(base["ids"]["contract-1.txt"])
    g = gate(db, tmp_path, base["contracts"][0])
    assert g.exit_code == 2 and "custody_rows" in g.output, g.output
    c = CliRunner().invoke(cli, ["check", "--db", str(db)])  # the full check says so
    assert c.exit_code == 1 and "custody_rows) differ from the log for 1 row (the first: its text)" in c.output, c.output


# -- the edit counter: the gate's check without digesting the store -----------

def _full_check_calls(monkeypatch) -> list:
    """Records each whole-table digest the gate's check makes (``custody_rows`` proved against the
    state, or every row of a table compared with it)."""
    calls: list = []
    check_rows, differing = custody.check_rows, custody.differing

    def spy_rows(conn, *, kept=True):
        calls.append(("custody_rows", kept))
        return check_rows(conn, kept=kept)

    def spy_differing(conn, keys):
        calls.extend((t, None) for t, k in keys.items() if k is None)
        return differing(conn, keys)

    monkeypatch.setattr(custody, "check_rows", spy_rows)
    monkeypatch.setattr(custody, "differing", spy_differing)
    return calls


def test_an_unedited_store_is_checked_by_what_the_gate_reads_and_an_edit_by_any_client_is_counted(
        base, db, tmp_path, monkeypatch):
    calls = _full_check_calls(monkeypatch)
    with Store(db) as s:
        assert custody.unedited(s.conn)
        assert require_intact_for_gate(s) == custody.head(s.conn)
    assert calls == [("custody_rows", False)]  # no whole-table digest: the entries since the checkpoint only
    i = base["ids"]["contract-3.txt"]
    sql(db, ("UPDATE documents SET n_words = n_words + 1 WHERE id = ?", (i,)))
    calls.clear()
    with Store(db) as s:
        assert not custody.unedited(s.conn)
        with pytest.raises(StoreDamaged, match=r"contract-3\.txt"):
            require_intact_for_gate(s)
    assert ("custody_rows", True) in calls and ("documents", None) in calls
    g = gate(db, tmp_path, base["contracts"][3])
    assert g.exit_code == 2 and "contract-3.txt" in g.output, g.output


def test_a_later_write_does_not_absorb_an_edit_and_a_full_check_puts_the_count_back(base, db, tmp_path):
    """The tool's next write leaves the count where it was (the edit stays for every gate to
    see); once every row was checked and matches (the edit undone), the next write records it."""
    i = base["ids"]["contract-2.txt"]
    with Store(db) as s:
        before = s.conn.execute("SELECT date FROM documents WHERE id = ?", (i,)).fetchone()[0]
    sql(db, ("UPDATE documents SET date = '1999-01-01' WHERE id = ?", (i,)))
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "x.txt").write_text(prose(705, 300))
    with Store(db) as s:
        ingest(s, [tmp_path / "more"], workers=1)  # a write of the tool, after the edit
        assert not custody.unedited(s.conn)
        with pytest.raises(StoreDamaged, match=r"contract-2\.txt"):
            require_intact_for_gate(s)
    sql(db, ("UPDATE documents SET date = ? WHERE id = ?", (before, i)))  # undone: the rows are the log's again
    with Store(db) as s:
        assert not custody.unedited(s.conn)  # counted all the same
        require_intact_for_gate(s)  # the slow way: everything matches
        assert not custody.unedited(s.conn)  # that check read only what a gate reads: no new count
    with Store(db) as s:
        require_intact(s)  # every tracked row checked
        withdraw(s, [str(tmp_path / "more" / "x.txt")], reason="test")
        assert custody.unedited(s.conn)


@pytest.mark.parametrize("how", ["dropped", "replaced"])
def test_a_counting_trigger_dropped_or_replaced_is_not_trusted(base, db, tmp_path, how):
    if how == "dropped":
        sql(db, ("DROP TRIGGER custody_edit_texts_u",))
    else:
        sql(db, ("DROP TRIGGER custody_edit_texts_u",),
            ("CREATE TRIGGER custody_edit_texts_u AFTER UPDATE ON texts BEGIN SELECT 1; END",))
    with Store(db) as s:
        assert not custody.unedited(s.conn)
    forge_text_and_its_digest(db, base["ids"]["contract-1.txt"])
    g = gate(db, tmp_path, base["contracts"][1])  # the row digest forged too: the slow way sees it
    assert g.exit_code == 2 and "contract-1.txt" in g.output, g.output


def missed_by_the_gates_check_seen_by_audit_and_check(db: Path, tmp_path: Path, name: str) -> None:
    """An edit the edit count does not see: the gate's check before its batch passes, while
    `auditor check` and the audit's quick check name the document."""
    with Store(db) as s:
        assert custody.unedited(s.conn)
        require_intact_for_gate(s)
    c = CliRunner().invoke(cli, ["check", "--db", str(db)])
    assert c.exit_code == 1 and name in c.output, c.output
    a = CliRunner().invoke(cli, ["audit", "--db", str(db), "--out", str(tmp_path / "rep")])
    assert a.exit_code == 2 and name in a.output, a.output


def test_an_edit_that_also_sets_the_count_back_is_left_to_audit_and_check(base, db, tmp_path):
    """The limit, as documented: a client that edits rows and the counter together passes the
    gate's check of an unread row; the audit's quick check and `auditor check` see the edit."""
    i = base["ids"]["notice.txt"]
    sql(db, ("UPDATE documents SET date = '1999-01-01' WHERE id = ?", (i,)),
        ("UPDATE custody_edits SET n = n - 1",))
    missed_by_the_gates_check_seen_by_audit_and_check(db, tmp_path, "notice.txt")


def test_the_index_parameters_count_and_other_settings_do_not(db):
    sql(db, ("UPDATE meta SET value = value WHERE key = 'schema_version'",))
    with Store(db) as s:
        assert custody.unedited(s.conn)
    sql(db, ("UPDATE meta SET value = value WHERE key = 'index_params'",))
    with Store(db) as s:
        assert not custody.unedited(s.conn)


def test_row_digests_edited_alone_are_not_absorbed_by_a_check_and_a_write(base, db):
    """The quick check fails on them, so it vouches for no count, and the next write leaves the
    count where it was."""
    sql(db, ("UPDATE custody_rows SET digest = ? WHERE tbl = 'texts' AND key = ?", ("0" * 64, base["ids"]["contract-1.txt"])))
    with Store(db) as s:
        with pytest.raises(StoreDamaged, match="custody_rows"):
            require_intact(s)
        withdraw(s, [str(base["db"].parent / "room" / "contract-0.txt")], reason="test")
        assert not custody.unedited(s.conn)


def test_a_check_inside_a_rolled_back_dry_run_vouches_for_nothing_after_it(base, db):
    """What a check saw inside a private transaction (its own uncommitted writes counted) is
    forgotten with the rollback, so another client's edits that bring the count to the same
    number are not absorbed by the next write."""
    room = base["db"].parent / "room"
    i = base["ids"]["contract-2.txt"]
    with Store(db) as s:
        c0 = custody.edit_count(s.conn)
        with s.pending():
            withdraw(s, [str(room / "contract-0.txt")], reason="dry")
            require_intact(s)
            k = custody.edit_count(s.conn) - c0
        assert custody.edit_count(s.conn) == c0 and custody.unedited(s.conn) and k > 0
        for _ in range(k):
            sql(db, ("UPDATE documents SET date = '1999-01-01' WHERE id = ?", (i,)))
        withdraw(s, [str(room / "contract-1.txt")], reason="later")
        assert not custody.unedited(s.conn)
    with Store(db) as s, pytest.raises(StoreDamaged, match=r"contract-2\.txt"):
        require_intact_for_gate(s)


def test_a_trigger_on_the_counter_itself_is_not_trusted(db):
    sql(db, ("CREATE TRIGGER hold AFTER UPDATE ON custody_edits BEGIN SELECT 1; END",))
    with Store(db) as s:
        assert not custody.unedited(s.conn)


@pytest.mark.skipif(not __import__("shutil").which("sqlite3"), reason="needs the sqlite3 command-line client")
def test_triggers_switched_off_on_the_editing_connection_are_left_to_audit_and_check(base, db, tmp_path):
    """The documented limit: a client that switches triggers off for its own connection
    (SQLITE_DBCONFIG_ENABLE_TRIGGER) is not counted, so the gate's check of the rows it does not
    read by key misses its edit; the audit's check and `auditor check` see it."""
    import subprocess

    i = base["ids"]["contract-3.txt"]
    subprocess.run(["sqlite3", str(db), ".dbconfig enable_trigger off",
                    f"UPDATE documents SET date = '1999-01-01' WHERE id = {i}"], check=True, capture_output=True)
    missed_by_the_gates_check_seen_by_audit_and_check(db, tmp_path, "contract-3.txt")
