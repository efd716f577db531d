"""A gate works in the store itself, inside one transaction (``Store.pending``) that is rolled
back at the end unless committed: what it writes is seen by its own connection only, savepoints
stand for transactions, nothing stays without a commit, and work that would read the store from
other processes stays in this one."""

from __future__ import annotations

import sqlite3

import pytest

import auditor.engine.audit
from auditor.corpus.ingest import ingest
from auditor.engine.audit import run_audit
from auditor.store.db import Store
from tests.support import synth


def test_a_pending_transaction_is_seen_only_by_its_connection_and_rolled_back(tmp_path, db_path):
    (tmp_path / "a.txt").write_text(synth.contract(1, 6_000))
    (tmp_path / "b.txt").write_text(synth.contract(2, 6_000))
    with Store(db_path) as store:
        ingest(store, [tmp_path / "a.txt"], workers=1)
        with store.pending():
            assert store.private
            ingest(store, [tmp_path / "b.txt"], workers=1)
            assert store.scalar("SELECT count(*) FROM documents") == 2
            other = sqlite3.connect(db_path)
            assert other.execute("SELECT count(*) FROM documents").fetchone()[0] == 1  # not committed
            other.close()
            with pytest.raises(RuntimeError), store.write() as c:
                c.execute("UPDATE documents SET path = 'changed' WHERE id = 1")
                raise RuntimeError("a failed write is rolled back to its savepoint")
            assert store.scalar("SELECT count(*) FROM documents") == 2
            assert store.scalar("SELECT path FROM documents WHERE id = 1") != "changed"
        assert not store.private and not store.conn.in_transaction
        assert store.scalar("SELECT count(*) FROM documents") == 1


def test_an_audit_in_a_pending_transaction_stays_in_this_process(tmp_path, db_path, monkeypatch):
    for i in range(4):
        (tmp_path / f"c{i}.txt").write_text(synth.contract(i, 6_000))
    seen: list[int] = []
    real = auditor.engine.audit._pool
    monkeypatch.setattr(auditor.engine.audit, "_pool", lambda workers, pairs: seen.append(workers) or real(workers, pairs))
    monkeypatch.setattr(auditor.engine.audit, "PARALLEL_MIN_PAIRS", 0)
    with Store(db_path) as store:
        ingest(store, [tmp_path / "c0.txt", tmp_path / "c1.txt"], workers=1)
        with store.pending():
            ingest(store, [tmp_path / "c2.txt", tmp_path / "c3.txt"], workers=1)
            assert len(run_audit(store, 0.8, workers=2).universe) == 4
        assert seen == [1]


def test_a_pending_transaction_keeps_everything_once_committed(tmp_path, db_path):
    (tmp_path / "a.txt").write_text(synth.contract(1, 6_000))
    (tmp_path / "b.txt").write_text(synth.contract(2, 6_000))
    with Store(db_path) as store:
        ingest(store, [tmp_path / "a.txt"], workers=1)
        with store.pending() as txn:
            ingest(store, [tmp_path / "b.txt"], workers=1)
            txn.commit()
            other = sqlite3.connect(db_path)
            assert other.execute("SELECT count(*) FROM documents").fetchone()[0] == 1  # not yet: at the end
            other.close()
        assert not store.conn.in_transaction
    other = sqlite3.connect(db_path)
    assert other.execute("SELECT count(*) FROM documents").fetchone()[0] == 2
    other.close()
    with Store(db_path) as store:  # the custody log vouches for what the commit kept
        from auditor.corpus.check import require_intact

        require_intact(store)
