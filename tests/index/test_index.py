"""The sampled index: one document's entry, and bringing the index of a store up to date."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from auditor.corpus.ingest import ingest
from auditor.errors import IndexMismatch
from auditor.index.builder import build_index
from auditor.text.entry import prepare_text
from auditor.text.normalize import words_bytes
from auditor.text.shingle import DEFAULT_PARAMS, Params, WordHasher, shingle_text
from tests.support.textgen import prose


def test_prepare_text_is_the_shingling_of_the_text():
    text = "The Lessee \u201cshall\u201d pay-\nment RENT. " + prose(1, 400)
    d = prepare_text(text, DEFAULT_PARAMS, WordHasher(DEFAULT_PARAMS.seed))
    s = shingle_text(text, keep_all=True)  # the same numbers, computed by shingle.py
    wb = words_bytes(text)
    assert d["n_words"] == s.n_words == len(wb) == 405
    assert d["n_shingles"] == s.n_shingles and s.n_shingles > 350
    assert d["sampled"] == s.sampled.tobytes() and len(s.sampled) > 5
    assert d["norm_sha256"] == hashlib.sha256(b" ".join(wb)).hexdigest()
    assert wb[:6] == [b"the", b"lessee", b"shall", b"payment", b"rent", wb[5]]
    other = prepare_text(text, Params(k=3, modulus=4), WordHasher(7))
    assert other["n_shingles"] != d["n_shingles"] or other["sampled"] != d["sampled"]
    assert len(other["sampled"]) > len(d["sampled"])  # 1 in 4 sampled, not 1 in 16
    assert prepare_text(text, DEFAULT_PARAMS, WordHasher(DEFAULT_PARAMS.seed), fingerprint=False)["norm_sha256"] is None
    empty = prepare_text("-- . --", DEFAULT_PARAMS, WordHasher(DEFAULT_PARAMS.seed))
    assert empty == {"n_words": 0, "norm_sha256": None, "n_shingles": 0, "sampled": b"", "sequence": b""}


def _rows(store):
    return store.conn.execute(
        "SELECT doc_id, n_words, n_shingles, n_sampled, sampled FROM index_docs ORDER BY doc_id").fetchall()


@pytest.fixture
def stored(store, tmp_path):
    """Ten documents ingested (and so indexed), one of them with no words."""
    for i in range(9):
        (tmp_path / f"d{i}.txt").write_text(prose(100 + i, 300 + 40 * i))
    (tmp_path / "blank.txt").write_text("-- . --\n")
    ingest(store, [tmp_path], workers=1)
    return store


def test_documents_without_an_entry_are_indexed_as_ingest_indexed_them(stored):
    store = stored
    before = _rows(store)
    assert len(before) == 9  # the document without words has no entry
    ids = [r[0] for r in before]
    with store.write():
        store.conn.execute("DELETE FROM index_docs WHERE doc_id IN (?, ?, ?)", (ids[1], ids[4], ids[8]))
    seen = []
    r = build_index(store, on_progress=lambda done, total: seen.append((done, total)))
    assert (r.indexed, r.total, r.rebuilt, r.params) == (3, 9, False, DEFAULT_PARAMS)
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert _rows(store) == before
    assert r.postings == sum(row[3] for row in before) == sum(len(row[4]) // 8 for row in before)
    again = build_index(store)
    assert (again.indexed, again.total, again.postings) == (0, 9, r.postings)


def test_two_workers_build_the_same_index_as_one(stored):
    store = stored
    before = _rows(store)
    with store.write():
        store.conn.execute("DELETE FROM index_docs")
    r = build_index(store, workers=2)
    assert (r.indexed, r.total) == (9, 9)
    assert _rows(store) == before


@pytest.mark.parametrize("workers", [1, 2])
def test_other_parameters_need_a_rebuild_which_reindexes_and_refingerprints(stored, workers):
    store = stored
    before = _rows(store)
    fingerprints = store.conn.execute("SELECT id, n_words, norm_sha256 FROM documents ORDER BY id").fetchall()
    other = Params(k=4, modulus=8)
    with pytest.raises(IndexMismatch, match="k=5"):
        build_index(store, other)
    assert _rows(store) == before and store.params == DEFAULT_PARAMS
    with store.write():  # as if an older normalisation had counted and fingerprinted differently
        store.conn.execute("UPDATE documents SET n_words = n_words + 1, norm_sha256 = 'old' WHERE n_words > 0")
    r = build_index(store, other, rebuild=True, workers=workers)
    assert (r.indexed, r.total, r.rebuilt) == (9, 9, True)
    assert store.params == other == r.params
    rows = _rows(store)
    assert [x[0] for x in rows] == [x[0] for x in before]
    assert all(new[2] == old[2] + 1 for new, old in zip(rows, before, strict=True))  # k=4: one more each
    assert sum(x[3] for x in rows) > 1.5 * sum(x[3] for x in before)  # 1 in 8 sampled
    assert store.conn.execute("SELECT id, n_words, norm_sha256 FROM documents ORDER BY id").fetchall() == fingerprints
    back = build_index(store, DEFAULT_PARAMS, rebuild=True)
    assert back.rebuilt and _rows(store) == before


def test_a_rebuild_takes_this_auditors_normalisation_and_hash(stored):
    store = stored
    old = replace(DEFAULT_PARAMS, normalization="nfkc-casefold-dehyphen-alnum/1", hash="an older hash")
    with pytest.raises(IndexMismatch, match="normalization"):
        build_index(store, old)
    r = build_index(store, old, rebuild=True)
    assert r.params == DEFAULT_PARAMS == store.params


def test_an_empty_index_takes_new_parameters_without_a_rebuild(store):
    r = build_index(store, Params(k=3))
    assert (r.indexed, r.total, r.postings, r.rebuilt) == (0, 0, 0, True)
    assert store.params == Params(k=3)


def test_many_documents_in_chunks_of_two_workers_each_indexed_once(store, tmp_path):
    for i in range(37):  # more than two chunks of 16
        (tmp_path / f"d{i:02d}.txt").write_text(prose(300 + i, 60))
    ingest(store, [tmp_path], workers=1)
    before = _rows(store)
    with store.write():
        store.conn.execute("DELETE FROM index_docs")
    seen = []
    r = build_index(store, workers=2, on_progress=lambda done, total: seen.append(done))
    assert (r.indexed, r.total) == (37, 37) and seen == list(range(1, 38))
    assert _rows(store) == before


def test_an_index_rebuilt_by_another_process_meanwhile_is_not_mixed_into(stored, tmp_path):
    """The parameters are checked again in the transaction that writes the rows: another process
    may have rebuilt the index with other parameters (and not yet indexed anything) since."""
    import json
    import sqlite3

    store = stored
    with store.write():
        store.conn.execute("DELETE FROM index_docs")

    def rebuilt_elsewhere(done, total):
        if done == total:
            other = sqlite3.connect(store.path, isolation_level=None)
            other.execute("UPDATE meta SET value = ? WHERE key = 'index_params'",
                          (json.dumps(Params(k=4).as_dict(), sort_keys=True),))
            other.close()

    with pytest.raises(IndexMismatch, match="k=4"):
        build_index(store, DEFAULT_PARAMS, workers=1, on_progress=rebuilt_elsewhere)
    assert _rows(store) == []


def test_a_worker_chunk_is_prepared_as_in_process(stored, tmp_path):
    """What one worker of a parallel build returns, called here, where mutation testing sees it:
    the rows of the same texts prepared in this process, with the given parameters and
    fingerprinting; a store that is not there is an error, not a new empty store."""
    from auditor.errors import StoreError
    from auditor.index.builder import _work

    ids = [r[0] for r in _rows(stored)][:4]
    params = Params(k=4, modulus=8)
    got = _work((str(stored.path), ids, params, True))
    hasher = WordHasher(params.seed)
    assert got == [(i, prepare_text(stored.text(i), params, hasher, fingerprint=True)) for i in ids]
    assert all(d["norm_sha256"] and d["sampled"] for _, d in got)
    assert got != _work((str(stored.path), ids, DEFAULT_PARAMS, True))
    assert [d["norm_sha256"] for _, d in _work((str(stored.path), ids, params, False))] == [None] * 4
    missing = tmp_path / "gone.db"
    with pytest.raises(StoreError, match="no store"):
        _work((str(missing), ids, params, True))
    assert not missing.exists()


# -- stored word sequences ------------------------------------------------------------------------

def _sequences(store):
    return store.conn.execute("SELECT doc_id, n_words, data FROM shingle_sequences ORDER BY doc_id").fetchall()


def test_ingest_stores_each_indexed_documents_word_sequence_as_prepare_text_makes_it(stored):
    from auditor.text.shingle import WordSequence

    store = stored
    seqs = _sequences(store)
    assert [s[0] for s in seqs] == [r[0] for r in _rows(store)]  # the document without words has none
    hasher = WordHasher(DEFAULT_PARAMS.seed)
    for doc_id, n_words, data in seqs:
        text = store.text(doc_id)
        assert bytes(data) == prepare_text(text, DEFAULT_PARAMS, hasher)["sequence"]
        words = WordSequence.decode(bytes(data))
        assert len(words) == n_words == len(words_bytes(text))
        assert sorted(set(words.shingles(5).tolist())) == shingle_text(text, keep_all=True).all.tolist()


def test_documents_stored_without_a_word_sequence_get_one_from_the_index_catch_up(stored):
    """A store from before migration 0011 has index rows and no sequences: ``auditor index``
    (which every audit runs first) adds them and leaves the index rows as they were."""
    store = stored
    before, seqs = _rows(store), _sequences(store)
    with store.write():
        store.conn.execute("DELETE FROM shingle_sequences WHERE doc_id IN (?, ?)", (seqs[2][0], seqs[5][0]))
    r = build_index(store)
    assert (r.indexed, r.total, r.rebuilt) == (2, 9, False)
    assert _rows(store) == before and _sequences(store) == seqs
    assert build_index(store).indexed == 0


def test_a_rebuild_writes_the_word_sequences_again(stored):
    store = stored
    seqs = _sequences(store)
    with store.write():
        store.conn.execute("UPDATE shingle_sequences SET data = x'00'")
    build_index(store, Params(k=3), rebuild=True)
    assert _sequences(store) == seqs  # words, not shingles: k does not change them
    build_index(store, Params(seed=7), rebuild=True)
    other = _sequences(store)
    assert [s[:2] for s in other] == [s[:2] for s in seqs] and all(a[2] != b[2] for a, b in zip(other, seqs, strict=True))


def test_sequences_are_read_by_key_or_derived_from_the_text_alike(stored):
    from auditor.index.builder import Sequences

    store = stored
    ids = [r[0] for r in _rows(store)]
    read = dict(Sequences(store, DEFAULT_PARAMS).of(ids, offsets=True))
    with store.write():
        store.conn.execute("DELETE FROM shingle_sequences WHERE doc_id = ?", (ids[3],))
    mixed = dict(Sequences(store, DEFAULT_PARAMS).of([*ids, 10_000], offsets=True))  # one derived, one unknown
    assert sorted(mixed) == sorted(read) == ids
    for i in ids:
        assert mixed[i].encode() == read[i].encode()
    assert Sequences(store, DEFAULT_PARAMS).get(ids[0], offsets=False).starts is None


def test_a_source_without_stored_sequences_derives_them_in_one_pass_over_its_texts(stored):
    from auditor.index.builder import Sequences

    class Texts:  # what the Spark engine's Parquet export offers: texts, no store
        def __init__(self):
            self.passes = 0

        def texts_of(self, ids):
            self.passes += 1
            yield from stored.texts_of(ids)

    src = Texts()
    ids = [r[0] for r in _rows(stored)]
    got = dict(Sequences(src, DEFAULT_PARAMS).of(ids, chunk=2))
    assert src.passes == 1 and sorted(got) == ids
    assert got[ids[0]].encode() == Sequences(stored, DEFAULT_PARAMS).get(ids[0]).encode()


def test_a_damaged_stored_sequence_is_a_damaged_store_naming_the_document(stored):
    from auditor.errors import StoreDamaged
    from auditor.index.builder import Sequences

    store = stored
    doc_id = _rows(store)[4][0]
    with store.write():
        store.conn.execute("UPDATE shingle_sequences SET data = substr(data, 1, 20) WHERE doc_id = ?", (doc_id,))
    with pytest.raises(StoreDamaged, match=f"document {doc_id} .*its word sequence does not match its recorded sha256.*index --rebuild"):
        list(Sequences(store, DEFAULT_PARAMS).of([doc_id]))
