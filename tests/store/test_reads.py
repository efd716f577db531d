"""Texts and word sequences are read only through ``Store``, which checks each one as it reads it
(#35): no module but the store's own names their tables in SQL, so no reader can skip the check."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.errors import StoreDamaged
from auditor.store import packing
from auditor.store.db import Store
from tests.support.hostile import sql
from tests.support.textgen import prose

ROOT = Path(__file__).resolve().parents[2]
OWNER = ROOT / "auditor" / "store" / "db.py"
# Datasette's canned query that shows a person a document's text (auditor_text): it computes nothing
SHOWN = {"auditor/report/review.py": ["JOIN texts"]}
# a table named where SQL reads or writes it: FROM/JOIN/INTO/UPDATE/TABLE texts (or main.texts)
_SQL = re.compile(r"\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+(main\.)?(texts|shingle_sequences)\b", re.IGNORECASE)


def naming_the_tables(source: str) -> list[str]:
    return [m.group(0) for m in _SQL.finditer(source)]


def test_the_detector_finds_a_select_and_leaves_prose_alone():
    assert naming_the_tables('conn.execute("SELECT doc_id, text FROM texts WHERE doc_id IN ({})")') == ["FROM texts"]
    assert naming_the_tables('"SELECT d.id FROM documents d JOIN main.shingle_sequences s"') == [
        "JOIN main.shingle_sequences"]
    assert naming_the_tables('"UPDATE texts SET text = ?"') == ["UPDATE texts"]
    assert naming_the_tables("# the texts from which a report is made; every text and word sequence") == []


def test_no_module_but_the_store_reads_or_writes_texts_or_word_sequences():
    found = {}
    for path in sorted((ROOT / "auditor").rglob("*.py")):
        if path == OWNER:
            continue
        hits = naming_the_tables(path.read_text(encoding="utf-8"))
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == SHOWN, "read them through Store.texts_of, Store.text and Store.sequences_of"
    assert naming_the_tables(OWNER.read_text(encoding="utf-8"))  # the store itself does


@pytest.fixture
def stored(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    for i in range(3):
        (d / f"doc-{i}.txt").write_text(prose(880 + i, 300))
    db = tmp_path / "s.db"
    with Store(db) as s:
        ingest(s, [d], workers=1)
        ids = [int(r[0]) for r in s.conn.execute("SELECT id FROM documents ORDER BY id")]
    return db, ids


def test_texts_and_sequences_are_kept_compressed_and_read_back_as_written(stored):
    db, ids = stored
    with Store(db) as s:
        for doc_id, text in s.texts_of(ids):
            frame, digest = s.conn.execute("SELECT text, sha256 FROM texts WHERE doc_id = ?", (doc_id,)).fetchone()
            assert packing.unpack_text(frame) == text and digest == packing.text_digest(text)
            assert len(frame) < len(text.encode())  # kept in fewer bytes than the text
            assert s.conn.execute("SELECT auditor_text(text) FROM texts WHERE doc_id = ?", (doc_id,)).fetchone()[0] == text
        assert [d for d, _ in s.sequences_of(ids)] == ids


def test_a_row_read_again_in_the_same_state_is_not_hashed_again_and_a_change_is_seen(stored, monkeypatch):
    db, ids = stored
    calls = []
    real = packing.digest
    monkeypatch.setattr(packing, "digest", lambda raw: calls.append(1) or real(raw))
    with Store(db) as s:
        first = dict(s.texts_of(ids))
        n = len(calls)
        assert n == len(ids) and dict(s.texts_of(ids)) == first and len(calls) == n  # no second hash
        forged = first[ids[0]] + " more"
        sql(db, ("UPDATE texts SET text = ? WHERE doc_id = ?", (packing.pack_text(forged), ids[0])))  # another client
        with pytest.raises(StoreDamaged, match="does not match its recorded sha256"):
            s.text(ids[0])


@pytest.mark.parametrize("edit", ["bytes", "bytes and digest", "another document's row"])
def test_every_read_checks_the_row_it_reads_and_only_that_row(stored, edit):
    db, ids = stored
    a, b = ids[0], ids[1]
    with Store(db) as s:
        text = s.text(a)
    forged = text.replace(" ", "  ", 1)
    if edit == "bytes":
        sql(db, ("UPDATE texts SET text = ? WHERE doc_id = ?", (packing.pack_text(forged), a)))
        why = "does not match its recorded sha256"
    elif edit == "bytes and digest":
        sql(db, ("UPDATE texts SET text = ?, sha256 = ? WHERE doc_id = ?",
                 (packing.pack_text(forged), packing.text_digest(forged), a)))
        why = "not what the custody log recorded"
    else:
        sql(db, ("UPDATE texts SET doc_id = -1 WHERE doc_id = ?", (a,)), ("UPDATE texts SET doc_id = ? WHERE doc_id = ?", (a, b)),
            ("UPDATE texts SET doc_id = ? WHERE doc_id = -1", (b,)))
        why = "not what the custody log recorded"
    with Store(db) as s:
        with pytest.raises(StoreDamaged, match=f"document {a} .*doc-0.txt.*{why}"):
            s.text(a)
        with pytest.raises(StoreDamaged, match=f"document {a} "):
            dict(s.texts_of(ids))
        if edit != "another document's row":
            assert s.text(ids[2]) and dict(s.texts_of([b, ids[2]]))  # the others read as before


def test_a_text_the_tool_writes_reads_before_its_entry_is_sealed(stored, tmp_path):
    """Inside a write, the text it stored is its own: read back before the custody entry that
    vouches for it is sealed."""
    db, _ = stored
    with Store(db) as s, s.write("test"):
        doc = s.conn.execute("SELECT * FROM documents ORDER BY id LIMIT 1").fetchone()
        s.conn.execute("INSERT INTO documents (sha256, format, extractor, extractor_version, size, n_chars, n_words,"
                       " path, batch_id, created) VALUES ('f' || ?, 'text', 'x', '1', 1, 5, 1, 'new.txt', ?, 'now')",
                       (doc[1][1:], doc[-12] if isinstance(doc[-12], int) else 1))
        new = int(s.scalar("SELECT max(id) FROM documents"))
        s.insert_text(new, "hello")
        assert s.text(new) == "hello"
    with Store(db) as s:
        assert s.text(new) == "hello"
