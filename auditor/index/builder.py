"""The sampled shingle index: what one document contributes, and building it for stored ones.

Ingest already indexes each new document in the same transaction that stores it; this module
brings the index up to date otherwise: documents stored without an entry, or a rebuild under
new parameters. Parameters are stored with the index, and an index is never mixed: either all
entries were made with the stored parameters, or the index is rebuilt from scratch.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing import get_context
from typing import Any

import numpy as np

from auditor.errors import NoDocument, StoreDamaged
from auditor.sandbox.lifetime import die_with_parent
from auditor.store.db import Store, regroup
from auditor.text.entry import prepare_text
from auditor.text.shingle import (
    DEFAULT_PARAMS,
    Params,
    WordHasher,
    WordSequence,
    read_words,
)


@dataclass
class IndexResult:
    params: Params
    indexed: int  # documents (re)indexed now
    total: int  # documents in the index
    postings: int
    rebuilt: bool


def write_index_rows(store: Store, doc_id: int, d: dict[str, Any]) -> None:
    """The document's index entry and its word sequence (inside the caller's transaction); its
    postings follow with :func:`write_postings`."""
    store.conn.execute(
        "INSERT OR REPLACE INTO index_docs (doc_id, n_words, n_shingles, n_sampled, sampled)"
        " VALUES (?,?,?,?,?)",
        (doc_id, d["n_words"], d["n_shingles"], len(d["sampled"]) // 8, d["sampled"]),
    )
    store.insert_sequence(doc_id, d["n_words"], d["sequence"])


POSTINGS_AT_ONCE = 1_000_000  # postings read, sorted and written at a time


def write_postings(store: Store) -> int:
    """The postings keyed by hash of every indexed document not in ``posted`` yet, in one
    transaction, in hash order: a B-tree page is written once per batch of postings, where one
    transaction per document would write a page per posting (a 400 KB filing has 4,000 of
    them). The documents left (an ingest killed before it) are the tail ``SampledIndex.touching``
    reads from their index rows. Returns the postings written."""
    pending = ("SELECT doc_id FROM index_docs WHERE doc_id NOT IN (SELECT doc_id FROM posted) ORDER BY doc_id")
    if not store.writable or not store.conn.execute(pending + " LIMIT 1").fetchone():
        return 0  # nothing to write: no transaction, no entry
    done = 0
    with store.write("postings") as c:
        ids = [int(i) for i, in c.execute(pending)]
        docs: list[np.ndarray] = []
        keys: list[np.ndarray] = []
        held = 0
        for a in range(0, len(ids), 500):
            for doc_id, blob in store.select_in("SELECT doc_id, sampled FROM index_docs WHERE doc_id IN ({})",
                                                ids[a : a + 500]):
                k = np.frombuffer(bytes(blob), dtype="<i8")
                keys.append(k)
                docs.append(np.full(len(k), int(doc_id), np.int64))
                held += len(k)
            if held >= POSTINGS_AT_ONCE or a + 500 >= len(ids):
                done += _insert_postings(c, np.concatenate(keys) if keys else np.empty(0, np.int64),
                                         np.concatenate(docs) if docs else np.empty(0, np.int64))
                docs, keys, held = [], [], 0
        c.executemany("INSERT INTO posted (doc_id) VALUES (?)", ((i,) for i in ids))
    return done


def _insert_postings(c: Any, keys: np.ndarray, docs: np.ndarray) -> int:
    order = np.lexsort((docs, keys))
    c.executemany("INSERT OR IGNORE INTO postings (hash, doc_id) VALUES (?, ?)",
                  zip(keys[order].tolist(), docs[order].tolist(), strict=True))
    return len(keys)


def _work(args: tuple[str, list[int], Params, bool]) -> list[tuple[int, dict]]:
    db, ids, params, fingerprint = args
    store = Store(db, create=False)
    hasher = WordHasher(params.seed)
    try:
        return [(i, prepare_text(store.text(i), params, hasher, fingerprint=fingerprint)) for i in ids]
    finally:
        store.close()


def _prepared(store: Store, ids: list[int], params: Params, workers: int, fingerprint: bool = False,
              ) -> Iterator[tuple[int, dict]]:
    chunks = [ids[a : a + 16] for a in range(0, len(ids), 16)]
    n = 1 if store.private else workers or min(2, os.cpu_count() or 1)
    if n <= 1 or len(ids) < 8:
        hasher = WordHasher(params.seed)
        for i in ids:
            yield i, prepare_text(store.text(i), params, hasher, fingerprint=fingerprint)
        return
    with ProcessPoolExecutor(max_workers=n, mp_context=get_context("spawn"),
                             initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        for batch in pool.map(_work, [(str(store.path), c, params, fingerprint) for c in chunks]):
            yield from batch


def build_index(
    store: Store,
    params: Params | None = None,
    *,
    rebuild: bool = False,
    workers: int = 0,
    on_progress: Callable[[int, int], None] | None = None,
) -> IndexResult:
    """Index every stored document that has text and no index entry (or no stored word
    sequence) yet.

    :param params: parameters to index with; different from the stored ones, they need
        ``rebuild=True`` (the whole index is dropped and rebuilt), otherwise IndexMismatch.
    """
    params = params or store.params
    if rebuild:  # a rebuild indexes with this auditor's normalisation and hash
        params = replace(params, normalization=DEFAULT_PARAMS.normalization, hash=DEFAULT_PARAMS.hash)
    if not rebuild:
        store.check_params(params)  # an empty index may take new parameters without a rebuild
    if rebuild or params != store.params:
        with store.write("index", {"rebuild": True, "params": params.as_dict()}):
            store.conn.execute("DELETE FROM index_docs")
            store.conn.execute("DELETE FROM postings")
            store.conn.execute("DELETE FROM posted")
            store.delete_sequences()
            store.set_meta("index_params", json.dumps(params.as_dict(), sort_keys=True))
        rebuild = True
    with_text, with_sequence = set(store.with_text()), set(store.with_sequence())
    indexed = {int(i) for i, in store.conn.execute("SELECT doc_id FROM index_docs")}
    ids = [int(i) for i, in store.conn.execute("SELECT id FROM documents WHERE n_words > 0 ORDER BY id")
           if i in with_text and not (i in indexed and i in with_sequence)]  # no entry, or no word sequence
    done = 0
    if ids:
        rows: list[tuple[int, dict]] = []
        for item in _prepared(store, ids, params, workers, fingerprint=rebuild):
            rows.append(item)
            done += 1
            if on_progress:
                on_progress(done, len(ids))
        _write(store, rows, params, refingerprint=rebuild)
    write_postings(store)
    return IndexResult(
        params=params, indexed=done,
        total=store.scalar("SELECT count(*) FROM index_docs"),
        postings=store.scalar("SELECT coalesce(sum(n_sampled), 0) FROM index_docs"),
        rebuilt=rebuild,
    )


def _write(store: Store, rows: list[tuple[int, dict]], params: Params, *, refingerprint: bool = False) -> None:
    """Index rows; on a rebuild also the word counts and normalised-text fingerprints, which a new
    normalisation may change, and the exact-duplicate groups they define."""
    with store.write("index", {"documents": len(rows), "params": params.as_dict()}):
        store.check_params(params, within_transaction=True)
        for doc_id, d in rows:
            write_index_rows(store, doc_id, d)
            if refingerprint:
                store.conn.execute("UPDATE documents SET n_words = ?, norm_sha256 = ? WHERE id = ?",
                                   (d["n_words"], d["norm_sha256"], doc_id))
        if refingerprint:
            regroup(store, [doc_id for doc_id, _ in rows])


class Sequences:
    """Documents' word sequences (``shingle.WordSequence``) read by key.

    From a store, a sequence is read as ingest wrote it (``Store.sequences_of``, which checks
    it as it reads it); a document without one (indexed by nothing yet) has it derived from its
    text, as ingest derives it, so results do not depend on which it was. From another source
    (the Parquet export the Spark engine reads) every sequence is derived from the texts.
    """

    def __init__(self, source: Any, params: Params) -> None:
        self.source, self.params = source, params
        self.stored = isinstance(source, Store)
        self._hasher: WordHasher | None = None

    def derive(self, text: str) -> WordSequence:
        if self._hasher is None:
            self._hasher = WordHasher(self.params.seed)
        return read_words(text, self._hasher).sequence

    def _decode(self, doc_id: int, data: bytes, offsets: bool) -> WordSequence:
        try:
            return WordSequence.decode(data, offsets=offsets)
        except ValueError as e:
            raise StoreDamaged(
                f"{getattr(self.source, 'path', 'the store')}: the stored word sequence of document {doc_id} "
                f"is damaged ({e}); run `auditor index --rebuild` to derive every sequence again") from e

    def of(self, ids: Iterable[int], *, offsets: bool = False, chunk: int = 200,
           ) -> Iterator[tuple[int, WordSequence]]:
        """(id, sequence) of each of ``ids`` that has text, by id. ``offsets=False``: the word
        hashes alone (what verification needs)."""
        ordered = sorted(set(ids))
        if not self.stored:  # one pass over the texts (an export is read as a stream)
            for doc_id, text in self.source.texts_of(ordered):
                yield doc_id, self.derive(text)
            return
        for a in range(0, len(ordered), chunk):
            part = ordered[a : a + chunk]
            rows = dict(self.source.sequences_of(part, chunk))
            missing = [d for d in part if d not in rows]
            derived = {d: self.derive(t) for d, t in self.source.texts_of(missing)} if missing else {}
            for d in part:
                if d in rows:
                    yield d, self._decode(d, rows[d], offsets)
                elif d in derived:
                    yield d, derived[d]

    def get(self, doc_id: int, *, offsets: bool = True) -> WordSequence:
        for _, s in self.of([doc_id], offsets=offsets):
            return s
        raise NoDocument(f"document {doc_id} has no stored text")
