"""`auditor check`: a store altered behind its back is found, named, and refused by audit and gate."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.corpus.check import check_store, require_intact
from auditor.corpus.ingest import ingest
from auditor.errors import StoreDamaged
from auditor.report.pipeline import compute
from auditor.store import packing
from auditor.store.db import Store
from auditor.store.packing import pack_text, text_digest
from tests.support.textgen import prose

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def filled(tmp_path):
    """A store of three documents; returns (db path, {name: doc id})."""
    d = tmp_path / "in"
    d.mkdir()
    for i, name in enumerate(("alpha", "beta", "gamma")):
        (d / f"{name}.txt").write_text(prose(700 + i, 400))
    db = tmp_path / "c.db"
    with Store(db) as s:
        ingest(s, [d], workers=1)
        ids = {Path(r["path"]).stem: r["id"] for r in s.rows("SELECT id, path FROM documents")}
    return db, ids


def tamper(db: Path, sql: str, params: tuple = ()) -> None:
    """A write behind the store's back, as any SQLite client could make."""
    c = sqlite3.connect(db, isolation_level=None)
    c.execute(sql, params)
    c.close()


def one_word_changed(text: str) -> str:
    words = text.split(" ")
    i = len(words) // 2
    words[i] = "x" + words[i][1:] if words[i][:1] != "x" else "y" + words[i][1:]  # same length
    return " ".join(words)


def check(db: Path, *args: str):
    return CliRunner().invoke(cli, ["check", "--db", str(db), *args])


def test_an_intact_store_passes_every_check(filled):
    db, _ = filled
    with Store(db) as s:
        full, quick = check_store(s), check_store(s, quick=True)
        require_intact(s)
    assert full.ok and quick.ok and full.texts == 3 and full.indexed == 3
    r = check(db)
    assert r.exit_code == 0 and "store intact" in r.stdout


@pytest.mark.parametrize("quick", [False, True])
def test_a_one_word_change_behind_the_stores_back_is_found_and_named(filled, quick):
    db, ids = filled
    with Store(db) as s:
        text = s.text(ids["beta"])
    tamper(db, "UPDATE texts SET text = ? WHERE doc_id = ?", (pack_text(one_word_changed(text)), ids["beta"]))
    with Store(db) as s:
        r = check_store(s, quick=quick)
    assert not r.ok and r.documents == [ids["beta"]]
    assert [p.kind for p in r.problems] == ["text_digest"] and r.problems[0].path.endswith("beta.txt")
    out = check(db, *(["--quick"] if quick else []))
    assert out.exit_code == 1 and "beta.txt" in out.stdout and "text_digest" in out.stdout
    assert json.loads(check(db, "--json").stdout)["documents"] == [ids["beta"]]


def test_flipped_bytes_in_the_file_are_found(filled):
    db, ids = filled
    with Store(db) as s:
        frame = bytes(s.scalar("SELECT text FROM texts WHERE doc_id = ?", (ids["gamma"],)))
    piece = frame[len(frame) // 2:][:40]
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    raw = bytearray(db.read_bytes())
    at = raw.find(piece)
    assert at > 0 and raw.find(piece, at + 1) < 0
    raw[at + 20] ^= 0x20  # one bit inside the compressed text: the page is still well-formed SQLite
    db.write_bytes(bytes(raw))
    out = check(db)
    assert out.exit_code == 1 and "gamma.txt" in out.stdout
    with Store(db) as s, pytest.raises(StoreDamaged, match=f"document {ids['gamma']} .*gamma.txt.*: its text"):
        s.text(ids["gamma"])  # and any reader of it is refused


@pytest.mark.slow
def test_audit_verify_and_gate_refuse_a_damaged_store(filled, tmp_path):
    db, ids = filled
    with Store(db) as s:
        text = s.text(ids["alpha"])
    tamper(db, "UPDATE texts SET text = ? WHERE doc_id = ?", (pack_text(one_word_changed(text)), ids["alpha"]))
    with Store(db) as s, pytest.raises(StoreDamaged, match=r"alpha\.txt"):
        compute(s, 0.8)
    r = CliRunner().invoke(cli, ["audit", "--db", str(db), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 2 and "damaged" in r.output and not (tmp_path / "rep").exists()
    new = tmp_path / "new"
    new.mkdir()
    (new / "n.txt").write_text(text)  # a copy of it: the gate reads the altered text, and checks it
    g = subprocess.run([sys.executable, "-m", "auditor", "gate", "--db", str(db), "--dry-run", str(new)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"})
    assert g.returncode == 2 and "damaged" in g.stderr and "alpha.txt" in g.stderr


def test_index_rows_and_missing_texts(filled):
    db, ids = filled
    with Store(db) as s:
        sampled = bytes(s.scalar("SELECT sampled FROM index_docs WHERE doc_id = ?", (ids["alpha"],)))
    forged = sampled[8:] + sampled[:8]  # the same hashes in another order
    tamper(db, "UPDATE index_docs SET sampled = ? WHERE doc_id = ?", (forged, ids["alpha"]))
    tamper(db, "DELETE FROM texts WHERE doc_id = ?", (ids["gamma"],))
    with Store(db) as s:
        r = check_store(s)
    assert {(p.kind, p.doc_id) for p in r.problems} == {("index", ids["alpha"]), ("missing_text", ids["gamma"]),
                                                        ("custody", ids["alpha"]), ("custody", ids["gamma"])}


def test_check_never_writes_to_the_store(filled):
    db, ids = filled
    tamper(db, "UPDATE texts SET text = 'changed' WHERE doc_id = ?", (ids["alpha"],))
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    before = db.read_bytes()
    assert check(db).exit_code == 1
    assert db.read_bytes() == before


def test_new_texts_carry_their_digest(filled):
    db, ids = filled
    with Store(db) as s:
        for doc_id in ids.values():
            assert s.scalar("SELECT sha256 FROM texts WHERE doc_id = ?", (doc_id,)) == text_digest(s.text(doc_id))


@pytest.mark.parametrize("with_digest", [False, True])
def test_a_stored_word_sequence_that_differs_from_its_text_is_found(filled, with_digest):
    """The audit reads shingles from the stored word sequences, not the texts: the full check
    derives each again and names the document whose sequence was altered. Altered alone, its
    bytes no longer match its digest; altered with its digest, the custody log does not vouch
    for that digest."""
    db, ids = filled
    with Store(db) as s:
        data = dict(s.sequences_of([ids["beta"]]))[ids["beta"]]
    altered = data[:16] + data[24:32] + data[16:24] + data[32:]  # two word hashes swapped
    tamper(db, "UPDATE shingle_sequences SET data = ?" + (", sha256 = ?" if with_digest else "") + " WHERE doc_id = ?",
           (altered, *([packing.digest(altered)] if with_digest else []), ids["beta"]))
    with Store(db) as s:
        r = check_store(s)
        with pytest.raises(StoreDamaged, match=f"document {ids['beta']} .*beta.txt.*: its word sequence"):
            list(s.sequences_of(ids.values()))
        assert [d for d, _ in s.sequences_of([ids["alpha"], ids["gamma"]])] == [ids["alpha"], ids["gamma"]]
    assert sorted((p.kind, p.doc_id) for p in r.problems) == (
        [("custody", ids["beta"]), ("index", ids["beta"])] if with_digest else [("index", ids["beta"])])
