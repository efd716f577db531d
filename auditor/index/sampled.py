"""The sampled index in memory, and the shingles of stored documents.

:class:`SampledIndex` arranges the store's sampled postings for candidate generation (posting
lists by shingle, hit counts by document); :class:`ShingleCache` holds the all-shingle hashes of
recently read documents, from their stored word sequences. The engine (:mod:`auditor.engine`),
the gate and the controls read the index through them; :mod:`.builder` writes it.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict

import numpy as np

from auditor.index.builder import Sequences
from auditor.store import custody
from auditor.store.db import Store
from auditor.text.score import min_hits
from auditor.text.shingle import HashSet, Params, distinct


class ShingleCache:
    """All-shingle hashes of stored documents, from their stored word sequences, kept for
    recent ones.

    The budget counts hashes (8 bytes each, 16 with the in-order sequence): the default, 4 M,
    holds about 60 filings of 400 KB or tens of thousands of short notices.
    """

    def __init__(self, store: Store, params: Params, budget: int = 4_000_000,
                 *, sequences: bool = True) -> None:
        self.store, self.params, self.budget = store, params, budget
        self.sequences = sequences
        self.words = Sequences(store, params)
        self._lru: OrderedDict[int, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._held = 0

    def compute(self, doc_id: int) -> tuple[np.ndarray, np.ndarray]:
        seq = self.words.get(doc_id, offsets=False).shingles(self.params.k)
        return seq, distinct(seq)

    def offsets(self, doc_id: int) -> tuple[np.ndarray, np.ndarray]:
        """Character offsets of the document's words (for ``locate``), from its stored sequence."""
        words = self.words.get(doc_id, offsets=True)
        assert words.starts is not None and words.ends is not None
        return words.starts, words.ends

    def get(self, doc_id: int, *, keep: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(hash of each shingle in document order, sorted distinct hashes).

        ``keep=False``: not remembered unless it already is (a container read once, which
        should not push out the many short documents looked up in it).
        """
        if doc_id in self._lru:
            self._lru.move_to_end(doc_id)
            return self._lru[doc_id]
        seq, every = self.compute(doc_id)
        if not keep:
            return seq, every
        entry = (seq if self.sequences else seq[:0], every)
        self._lru[doc_id] = entry
        self._held += len(entry[0]) + len(every)
        while self._held > self.budget and len(self._lru) > 1:
            _, (old, old_every) = self._lru.popitem(last=False)
            self._held -= len(old) + len(old_every)
        return entry


class SampledIndex:
    """The sampled index in memory, arranged for candidate generation.

    About 16 bytes per posting and 16 per distinct sampled shingle (2.2 GB of text: 18 M
    postings, 450 MB): ``keys`` (document-major, for counting a candidate's hits), ``post_doc``
    (shingle-major posting lists), ``uniq``/``df``/``post_ptr`` per distinct shingle.
    """

    def __init__(self, doc_ids: np.ndarray, sampled: list[np.ndarray] | np.ndarray,
                 shingles: np.ndarray | None = None, n: np.ndarray | None = None) -> None:
        """``sampled``: one sorted array of distinct hashes per document, or all of them in one
        array (then ``n`` gives each document's count)."""
        self.doc_ids = doc_ids
        if n is None:
            self.n = np.fromiter(map(len, sampled), np.int64, count=len(sampled))
            flat = np.concatenate(sampled) if len(sampled) else np.empty(0, np.uint64)
        else:
            self.n, flat = np.asarray(n, np.int64), np.asarray(sampled, np.uint64)
        self.shingles = shingles if shingles is not None else np.zeros(len(doc_ids), np.int64)
        self.total = self.n  # each document's sampled hashes in the store (``touching``: more than ``n``)
        self.ptr = np.concatenate(([0], np.cumsum(self.n))).astype(np.int64)
        order = np.argsort(flat, kind="stable")  # shingle-major; documents ascending within one
        ordered = flat[order]
        del flat
        first = np.ones(len(ordered), bool)
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
        self.uniq = ordered[first]
        del ordered
        self.U = max(1, len(self.uniq))
        rank = np.cumsum(first, dtype=np.int64)
        rank -= 1
        del first
        sid = np.empty(len(order), np.int64)
        sid[order] = rank
        del rank
        self.df = np.bincount(sid, minlength=len(self.uniq)).astype(np.int32)
        self.post_ptr = np.concatenate(([0], np.cumsum(self.df, dtype=np.int64)))
        owner = np.repeat(np.arange(len(doc_ids), dtype=np.int32), self.n)
        self.post_doc = owner[order]  # posting lists, shingle-major
        del order
        sid += owner.astype(np.int64) * self.U  # (document, shingle) keys, sorted
        self.keys = sid

    @classmethod
    def load(cls, store: Store, *, representatives_only: bool = True,
             ids: list[int] | None = None) -> SampledIndex:
        """The index of ``ids``, else of every document or of the first of each duplicate group."""
        if ids is not None:
            rows = store.select_in("SELECT i.doc_id, i.sampled, i.n_shingles FROM index_docs i"
                                      " WHERE i.doc_id IN ({})", ids)
        else:
            rows = store.conn.execute(
                "SELECT i.doc_id, i.sampled, i.n_shingles FROM index_docs i JOIN documents d ON d.id = i.doc_id"
                " WHERE d.withdrawn_at IS NULL" + (" AND d.duplicate_of IS NULL" if representatives_only else "")
                + " ORDER BY i.doc_id").fetchall()
        doc_ids = np.array([r[0] for r in rows], dtype=np.int64)
        n = np.array([len(r[1]) // 8 for r in rows], dtype=np.int64)
        shingles = np.array([r[2] for r in rows], dtype=np.int64)
        flat = np.frombuffer(b"".join([r[1] for r in rows]), dtype=np.uint64)
        del rows
        return cls(doc_ids, flat, shingles, n)

    @classmethod
    def touching(cls, store: Store, ids: list[int], batch: set[int]
                 ) -> tuple[SampledIndex, list[int], list[int], dict[int, int]]:
        """The index of ``ids`` as far as the ``batch`` documents can see it: every posting of the
        hashes they hold (their own rows whole), so a batch document's candidates and hits are
        exactly the full index's; read in one pass over the rows, without sorting the corpus's
        postings. Also (every id with an index row, its shingle count, and its number of
        sampled hashes), which the partial index does not hold for the others."""
        wanted = set(ids)
        rows = store.select_in("SELECT doc_id, sampled FROM index_docs WHERE doc_id IN ({})", sorted(batch & wanted))
        own = {int(d): np.frombuffer(b, dtype=np.uint64) for d, b in rows}
        if custody.unedited(store.conn):
            return cls._by_key(store, wanted, own)
        held = HashSet(distinct(np.concatenate(list(own.values()))) if own else np.empty(0, np.uint64))
        doc_ids: list[int] = []
        arrays: list[np.ndarray] = []
        kept_shingles: list[int] = []
        every: list[int] = []
        every_shingles: list[int] = []
        n_sampled: dict[int, int] = {}
        cur = store.conn.execute("SELECT doc_id, sampled, n_shingles FROM index_docs ORDER BY doc_id")
        while rows := cur.fetchmany(TOUCHING_CHUNK):  # one membership test per chunk of rows, not per row
            rows = [r for r in rows if r[0] in wanted]
            lens = np.fromiter((len(r[1]) // 8 for r in rows), np.int64, count=len(rows))
            flat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.uint64)
            hit = np.zeros(len(flat), np.bool_)
            hit[held.find(flat)[0]] = True
            ends = np.cumsum(lens)
            running = np.concatenate(([0], np.cumsum(hit, dtype=np.int64)))
            counts = running[ends] - running[ends - lens]
            for (doc_id, _, n_shingles), n, end, c in zip(rows, lens.tolist(), ends.tolist(),
                                                          counts.tolist(), strict=True):
                every.append(doc_id)
                every_shingles.append(n_shingles)
                n_sampled[doc_id] = n
                if doc_id in own:
                    mine = own[doc_id]
                elif n and c:
                    part = flat[end - n : end]
                    mine = part[hit[end - n : end]]
                else:
                    continue
                doc_ids.append(doc_id)
                arrays.append(mine)
                kept_shingles.append(n_shingles)
        index = cls(np.array(doc_ids, dtype=np.int64), arrays, np.array(kept_shingles, dtype=np.int64))
        index.total = np.array([n_sampled[d] for d in doc_ids], dtype=np.int64)
        return index, every, every_shingles, n_sampled

    @classmethod
    def _by_key(cls, store: Store, wanted: set[int], own: dict[int, np.ndarray]
                ) -> tuple[SampledIndex, list[int], list[int], dict[int, int]]:
        """``touching`` from the postings keyed by hash: what the pass over the index rows finds,
        at the cost of the batch's hashes and their posting lists. Trusted while the edit count is
        in step (``custody.unedited``: no posting deleted or changed but by the tool's writes)."""
        every, every_shingles, n_sampled = [], [], {}
        for doc_id, n_shingles, n in store.conn.execute(
                "SELECT doc_id, n_shingles, n_sampled FROM index_docs ORDER BY doc_id"):
            if doc_id in wanted:
                every.append(doc_id)
                every_shingles.append(n_shingles)
                n_sampled[doc_id] = n
        held = distinct(np.concatenate(list(own.values()))) if own else np.empty(0, np.uint64)
        docs, hashes = postings_of(store, held)
        posted = {int(d) for d, in store.conn.execute("SELECT doc_id FROM posted")}
        tail = sorted(d for d in every if d not in posted and d not in own)  # postings not written yet
        if tail:
            batch_hashes = HashSet(held)
            for doc_id, blob in store.select_in("SELECT doc_id, sampled FROM index_docs WHERE doc_id IN ({})", tail):
                mine = np.frombuffer(bytes(blob), dtype=np.uint64)
                mine = mine[batch_hashes.find(mine)[0]]
                docs = np.concatenate((docs, np.full(len(mine), int(doc_id), np.int64)))
                hashes = np.concatenate((hashes, mine))
        keep = np.isin(docs, np.fromiter(wanted - set(own), np.int64))
        docs, hashes = docs[keep], hashes[keep]
        order = np.lexsort((hashes, docs))
        docs, hashes = docs[order], hashes[order]
        edges = np.concatenate(([0], np.flatnonzero(np.diff(docs)) + 1, [len(docs)])) if len(docs) else np.zeros(1, np.int64)
        found = {int(docs[a]): hashes[a:b] for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)}
        doc_ids = [d for d in every if d in own or d in found]
        arrays = [own[d] if d in own else found[d] for d in doc_ids]
        index = cls(np.array(doc_ids, dtype=np.int64), arrays,
                    np.array([every_shingles[i] for i, d in enumerate(every) if d in own or d in found], dtype=np.int64))
        index.total = np.array([n_sampled[d] for d in doc_ids], dtype=np.int64)
        return index, every, every_shingles, n_sampled

    def hits_of(self, hashes: np.ndarray) -> np.ndarray:
        """For sorted distinct sampled ``hashes`` of an outside text: shared count per document."""
        known = np.isin(hashes, self.uniq, assume_unique=True)
        sids = np.searchsorted(self.uniq, hashes[known])
        starts, lens = self.post_ptr[sids], self.df[sids]
        offs = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
        docs = self.post_doc[offs + np.arange(int(lens.sum()))]
        return np.bincount(docs, minlength=len(self.doc_ids))

    def shingles_of(self, i: int) -> np.ndarray:
        """Shingle numbers (positions in ``uniq``) of document position ``i``, ascending."""
        return self.keys[self.ptr[i] : self.ptr[i + 1]] - i * self.U

    def candidates(self, i: int, threshold: float, *, exact: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(document positions, hits) of every document that may contain document ``i``.

        ``exact``: the index holds all of ``i``'s shingles (not a sample), so a container needs
        ``exact_min_hits`` of them, and shares one of the ``n - exact_min_hits + 1`` rarest.
        """
        s = self.shingles_of(i)
        n = len(s)
        if n == 0:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        least = exact_min_hits(n, threshold) if exact else min_hits(n, threshold)
        rare = s[np.argsort(self.df[s], kind="stable")[: n - least + 1]]
        starts, lens = self.post_ptr[rare], self.df[rare]
        total = int(lens.sum())
        offs = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
        cands = distinct(self.post_doc[offs + np.arange(total)]).astype(np.int64)
        cands = cands[cands != i]
        if len(cands) == 0:
            return cands, cands
        postings = int(self.df[s].sum())
        if postings + len(self.doc_ids) // 16 <= 2 * len(cands) * n:
            # Many candidates share most shingles (a family of variants): counting every posting
            # list of ``i`` is cheaper than a binary search per (candidate, shingle).
            held = self.post_doc[ranges(self.post_ptr[s], self.df[s].astype(np.int64))]
            hits = np.bincount(held, minlength=len(self.doc_ids))[cands]
        else:
            hits = np.zeros(len(cands), dtype=np.int64)
            step = max(1, CANDIDATE_BLOCK // n)
            for a in range(0, len(cands), step):
                c = cands[a : a + step]
                q = (c[:, None] * self.U + s[None, :]).ravel()
                pos = np.minimum(np.searchsorted(self.keys, q), len(self.keys) - 1)
                hits[a : a + step] = (self.keys[pos] == q).reshape(len(c), n).sum(axis=1)
        keep = hits >= (1 if exact else least)  # exact: every holder of a rare shingle is scored
        return cands[keep], hits[keep]

    def candidates_among(self, i: int, threshold: float, among: np.ndarray, *, exact: bool = False
                         ) -> tuple[np.ndarray, np.ndarray]:
        """``candidates(i, threshold, exact=exact)`` kept to the sorted document positions
        ``among`` (a batch's), at their cost rather than that of the posting lists of ``i``'s
        rarest shingles: the same positions and hits."""
        s = self.shingles_of(i)
        n = len(s)
        among = np.asarray(among, np.int64)
        among = among[among != i]
        if n == 0 or not len(among):
            return np.empty(0, np.int64), np.empty(0, np.int64)
        least = exact_min_hits(n, threshold) if exact else min_hits(n, threshold)
        rare = s[np.argsort(self.df[s], kind="stable")[: n - least + 1]]
        cands = among[self.holds(among, self.uniq[rare]) > 0]
        hits = self.holds(cands, self.uniq[s]).astype(np.int64)
        keep = hits >= (1 if exact else least)
        return cands[keep], hits[keep]

    def holds(self, doc_pos: np.ndarray, values: np.ndarray) -> np.ndarray:
        """For each document position, how many of the sorted distinct ``values`` it holds."""
        if not len(self.uniq) or not len(doc_pos):
            return np.zeros(len(doc_pos), np.int64)
        known = np.searchsorted(self.uniq, values)
        sid = known[self.uniq[np.minimum(known, len(self.uniq) - 1)] == values]
        if not len(sid) or not len(doc_pos):
            return np.zeros(len(doc_pos), np.int64)
        q = (doc_pos[:, None] * self.U + sid[None, :]).ravel()
        pos = np.minimum(np.searchsorted(self.keys, q), len(self.keys) - 1)
        return (self.keys[pos] == q).reshape(len(doc_pos), len(sid)).sum(axis=1)


def postings_of(store: Store, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(document ids, hashes) of every posting of ``hashes`` (uint64), read by key."""
    keys = np.asarray(hashes, np.uint64).view(np.int64).tolist()
    docs: list[int] = []
    found: list[int] = []
    for a in range(0, len(keys), 20_000):
        for h, d in store.conn.execute("SELECT p.hash, p.doc_id FROM json_each(?) q JOIN postings p ON p.hash = q.value",
                                       (json.dumps(keys[a : a + 20_000]),)):
            found.append(h)
            docs.append(d)
    return np.array(docs, dtype=np.int64), np.array(found, dtype=np.int64).view(np.uint64)


TOUCHING_CHUNK = 2_000  # index rows tested at once for the batch's hashes (about 1.5 MB of hashes)
CANDIDATE_BLOCK = 4_000_000  # (candidate, shingle) queries searched at a time: 32 MB of keys


def exact_min_hits(n: int, threshold: float) -> int:
    """Fewest of ``n`` shingles a container must hold for ``hits / n >= threshold`` (as the verdict
    computes it, in floating point)."""
    h = max(0, math.ceil(threshold * n) - 1)
    while h / n < threshold:
        h += 1
    return h


def ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, s + n)`` for each start and length, without a loop."""
    total = int(lens.sum())
    if not total:
        return np.empty(0, np.int64)
    shift = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    return shift + np.arange(total, dtype=np.int64)
