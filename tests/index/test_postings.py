"""The postings keyed by hash (#37): written with every index row, read by a gate for its batch's
hashes, the same index as the pass over every index row; trusted only while the edit count says
nothing was deleted behind the store's back, and checked by `auditor check`."""

from __future__ import annotations

import numpy as np
import pytest

from auditor.corpus.check import check_store
from auditor.corpus.ingest import ingest
from auditor.index.builder import build_index
from auditor.index.sampled import SampledIndex
from auditor.store import custody
from auditor.store.db import Store
from tests.support.hostile import sql
from tests.support.textgen import prose


@pytest.fixture
def shared(tmp_path):
    """Twelve documents that share passages (each holds part of the one before), one of them
    withdrawn later by the caller; returns (db, ids by name)."""
    d = tmp_path / "in"
    d.mkdir()
    base = [prose(300 + i, 500) for i in range(6)]
    for i in range(12):
        a, b = base[i % 6], base[(i + 1) % 6]
        (d / f"doc-{i:02d}.txt").write_text(a[: len(a) // (1 + i % 3)] + "\n\n" + b[len(b) // 2 :] + prose(400 + i, 60))
    db = tmp_path / "s.db"
    with Store(db) as s:
        ingest(s, [d], workers=1)
        ids = {p.rsplit("/", 1)[-1]: int(i) for i, p in s.conn.execute("SELECT id, path FROM documents")}
    return db, ids


def _as_tuples(index: SampledIndex) -> list[tuple[int, list[int], int, int]]:
    return [(int(d), index.uniq[index.shingles_of(i)].tolist(), int(index.shingles[i]), int(index.total[i]))
            for i, d in enumerate(index.doc_ids.tolist())]


def _both(store: Store, ids: list[int], batch: set[int], monkeypatch) -> tuple:
    keyed = SampledIndex.touching(store, ids, batch)
    with monkeypatch.context() as m:
        m.setattr(custody, "unedited", lambda conn: False)  # the pass over every index row
        passed = SampledIndex.touching(store, ids, batch)
    return keyed, passed


def test_every_index_row_has_its_postings_and_a_rebuild_writes_them_again(shared):
    db, _ = shared
    with Store(db) as s:
        n = s.scalar("SELECT coalesce(sum(n_sampled), 0) FROM index_docs")
        assert n > 0 and s.scalar("SELECT count(*) FROM postings") == n
        build_index(s, rebuild=True)
        assert s.scalar("SELECT count(*) FROM postings") == n and check_store(s).ok


@pytest.mark.parametrize("batch", [["doc-00.txt"], ["doc-03.txt", "doc-07.txt", "doc-11.txt"]])
def test_the_postings_of_a_batch_read_by_key_are_the_pass_over_every_index_row(shared, batch, monkeypatch):
    db, ids = shared
    with Store(db) as s:
        every = sorted(ids.values())
        wanted = [i for i in every if i != ids["doc-05.txt"]]  # a document the audit does not cover
        chosen = {ids[b] for b in batch}
        assert custody.unedited(s.conn)
        (k_index, *k_rest), (p_index, *p_rest) = _both(s, wanted, chosen, monkeypatch)
        assert k_rest == p_rest and _as_tuples(k_index) == _as_tuples(p_index)
        assert len(k_index.doc_ids) > len(chosen)  # it found corpus documents sharing hashes
        assert ids["doc-05.txt"] not in k_index.doc_ids.tolist()


def test_a_posting_deleted_behind_the_stores_back_is_not_trusted_and_check_names_it(shared, monkeypatch):
    db, ids = shared
    with Store(db) as s:
        full = _as_tuples(SampledIndex.touching(s, sorted(ids.values()), {ids["doc-00.txt"]})[0])
        victim = next(d for d, *_ in full if d != ids["doc-00.txt"])  # a corpus document sharing its hashes
        h = s.scalar("SELECT hash FROM postings WHERE doc_id = ? LIMIT 1", (victim,))
    sql(db, ("DELETE FROM postings WHERE doc_id = ?", (victim,)))  # a container hidden from the postings
    with Store(db) as s:
        assert not custody.unedited(s.conn)  # counted: the gate reads the index rows instead
        assert _as_tuples(SampledIndex.touching(s, sorted(ids.values()), {ids["doc-00.txt"]})[0]) == full
        r = check_store(s)
    assert [(p.kind, p.doc_id) for p in r.problems] == [("index", victim)]
    assert "postings keyed by hash" in r.problems[0].detail
    other = next(i for i in ids.values() if i not in (victim, ids["doc-00.txt"]))
    sql(db, ("INSERT INTO postings (hash, doc_id) VALUES (?, ?)", (h, other)))  # one added
    with Store(db) as s:
        assert {p.doc_id for p in check_store(s).problems} == {victim, other}


def test_a_posting_added_behind_the_stores_back_adds_a_candidate_and_nothing_else(shared):
    """Inserts are not counted: a posting added only adds a candidate pair, which is verified
    exactly (the gate's verdicts are verified counts, never the postings' estimates)."""
    db, ids = shared
    with Store(db) as s:
        mine = np.frombuffer(s.scalar("SELECT sampled FROM index_docs WHERE doc_id = ?", (ids["doc-00.txt"],)),
                             dtype="<i8")
    sql(db, ("INSERT INTO postings (hash, doc_id) VALUES (?, ?)", (int(mine[0]), ids["doc-09.txt"])))
    with Store(db) as s:
        assert custody.unedited(s.conn)
        index = SampledIndex.touching(s, sorted(ids.values()), {ids["doc-00.txt"]})[0]
        assert ids["doc-09.txt"] in index.doc_ids.tolist()


def test_documents_whose_postings_are_not_written_yet_are_read_from_their_index_rows(shared, monkeypatch):
    """An ingest killed between its documents and their postings leaves a tail: the keyed read
    takes those documents' index rows instead, and the next ingest or index build posts them."""
    db, ids = shared
    with Store(db) as s:
        every = sorted(ids.values())
        full = _as_tuples(SampledIndex.touching(s, every, {ids["doc-00.txt"]})[0])
        tail = [d for d, *_ in full if d != ids["doc-00.txt"]]
        with s.write("test"):  # as the tool leaves them when killed before write_postings
            for d in tail:
                s.conn.execute("DELETE FROM postings WHERE doc_id = ?", (d,))
                s.conn.execute("DELETE FROM posted WHERE doc_id = ?", (d,))
        assert custody.unedited(s.conn)
        (k_index, *k_rest), (p_index, *p_rest) = _both(s, every, {ids["doc-00.txt"]}, monkeypatch)
        assert _as_tuples(k_index) == _as_tuples(p_index) == full and k_rest == p_rest
        assert check_store(s).ok  # a tail is not damage
        assert build_index(s).indexed == 0 and s.scalar("SELECT count(*) FROM posted") == len(every)
        assert check_store(s).ok
