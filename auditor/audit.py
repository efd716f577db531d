"""The containment audit: candidates from the sampled index, exact verification, locations.

For every document A and every document B, is ``|S(A) & S(B)| / |S(A)| >= threshold``?

1. **Universe**: the documents the audit covers (every stored document with text, or exactly a
   recorded set when an old report is verified). Documents with identical normalised text form
   a duplicate group; the first of each group takes part for all of them.
2. **Load** the sampled index (one sorted array of sampled hashes per document) into memory:
   a few bytes per posting, 1-2 million postings for 140 MB of text.
3. **Candidates** for A: by the prefix principle (``score.prefix_length``) any B that could
   reach the threshold shares at least one of A's ``n - min_hits + 1`` *rarest* sampled
   shingles. Gathering only those posting lists keeps boilerplate (shingles in hundreds of
   documents) out of the join, yet a contract filed in 200 filings is still found in all 200:
   its rarest shingles are the ones in exactly those filings.
4. **Estimate** hits for each candidate with a 95% Wilson interval; every pair whose interval
   reaches the threshold is **verified exactly** over all shingles (``Estimate.needs_exact``).
   Pairs are kept as parallel integer arrays (:class:`Pairs`), never as one object per pair,
   and verified per container in one vectorised pass over its contained documents, so a
   notice inside thousands of documents costs a few array operations per container.
5. **Families**: documents that contain one another (both directions at the threshold) form a
   family, reported once with its members.
6. **Grouped by contained document**: each contained document once, with how many documents
   contain it, its best containers (highest containment, then the smallest container, then the
   lowest id) located as character spans, pages and EDGAR part; documents contained in very
   many others are *boilerplate* by measurement (:func:`boilerplate_min`).

The complete list of containing pairs stays available (``AuditResult.containing``), for the
report's ``findings.jsonl.gz`` and the store's findings table.
"""

from __future__ import annotations

import bisect
import math
import os
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import numpy as np

from auditor.components import components
from auditor.index import Sequences
from auditor.normalize import word_offsets
from auditor.score import Estimate, min_hits, needs_exact
from auditor.shingle import HashSet, Params, distinct, sample
from auditor.store import Store

SPAN_GAP_WORDS = 24  # matches closer than this merge (page furniture, a changed word)
BEST_CONTAINERS = 3  # containers located and shown per contained document (1 for boilerplate)
NEAREST_MISSES = 100  # pairs verified below the threshold that the report lists
HISTOGRAM_BINS = 20
BOILERPLATE = {"min_containers": 50, "share": 0.01, "floor": 10,
               "counts": "unrelated containers: containers outside its family, those that are one family "
                         "or contain one another (its versions, a family of variants) counted once"}


def boilerplate_min(documents: int, rule: dict[str, Any] = BOILERPLATE) -> int:
    """Unrelated containers (:func:`container_groups`) from which a contained document counts
    as boilerplate.

    Contained in ``min_containers`` documents, or in ``share`` of the audited documents when
    that is fewer, but never fewer than ``floor`` (so a small corpus has no boilerplate by
    accident): 50 for 20,000 documents, 10 for 1,000.
    """
    share = math.ceil(rule["share"] * documents)
    return int(max(rule["floor"], min(rule["min_containers"], share)))


@dataclass(slots=True)
class Span:
    start: int  # character offsets in the container's stored text
    end: int
    words: int
    shingles: int  # shingles of the contained document matched in this span
    pages: tuple[int, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"start": self.start, "end": self.end, "words": self.words,
                             "shingles": self.shingles}
        if self.pages:
            d["pages"] = list(self.pages)
        return d


@dataclass(slots=True)
class Pair:
    """One scored pair with its location: what a report shows of a best container or a miss."""

    contained: int
    container: int
    estimate: Estimate
    exact: float | None = None
    spans: list[Span] = field(default_factory=list)

    @property
    def containment(self) -> float:
        """The verdict value: exact when verified, else the estimate."""
        return self.exact if self.exact is not None else self.estimate.estimate


@dataclass
class Pairs:
    """Scored pairs as parallel arrays: 48 bytes a pair, whatever the corpus throws at it.

    ``shared`` and ``shingles`` are the exact counts (``|S(A) & S(B)|`` and ``|S(A)|``), or -1
    for a pair that was not verified. Both engines fill them with integers, and every float is
    derived from them by the same expression, so their results are identical.
    """

    contained: np.ndarray
    container: np.ndarray
    hits: np.ndarray
    sampled: np.ndarray
    shared: np.ndarray
    shingles: np.ndarray

    @classmethod
    def empty(cls) -> Pairs:
        return cls(*(np.empty(0, np.int64) for _ in range(6)))

    @classmethod
    def concat(cls, parts: list[Pairs]) -> Pairs:
        if not parts:
            return cls.empty()
        return cls(*(np.concatenate([getattr(p, f) for p in parts]).astype(np.int64, copy=False)
                     for f in ("contained", "container", "hits", "sampled", "shared", "shingles")))

    def __len__(self) -> int:
        return len(self.contained)

    def take(self, index: np.ndarray) -> Pairs:
        return Pairs(self.contained[index], self.container[index], self.hits[index],
                     self.sampled[index], self.shared[index], self.shingles[index])

    @property
    def verified(self) -> np.ndarray:
        return self.shingles >= 0

    @property
    def exact(self) -> np.ndarray:
        """Exact containment of verified pairs (NaN for the others)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.shingles > 0, self.shared / np.maximum(self.shingles, 1),
                            np.where(self.shingles == 0, 0.0, np.nan))

    @property
    def estimate(self) -> np.ndarray:
        return self.hits / np.maximum(self.sampled, 1)

    def sort(self, *keys: str) -> Pairs:
        """Sorted by the named fields, the first the primary key."""
        return self.take(np.lexsort(tuple(getattr(self, k) for k in reversed(keys))))

    def pair(self, i: int) -> Pair:
        shingles = int(self.shingles[i])
        exact = None if shingles < 0 else (int(self.shared[i]) / shingles if shingles else 0.0)
        return Pair(int(self.contained[i]), int(self.container[i]),
                    Estimate.of(int(self.hits[i]), int(self.sampled[i])), exact)

    def rows(self, at_once: int = 50_000) -> Iterator[tuple[int, int, int, int, int, int]]:
        """(contained, container, hits, sampled, shared, shingles) per pair, as Python ints made
        a slice at a time (all 3.5 M pairs of a large family at once would take 700 MB)."""
        for s in range(0, len(self), at_once):
            e = s + at_once
            yield from zip(self.contained[s:e].tolist(), self.container[s:e].tolist(), self.hits[s:e].tolist(),
                           self.sampled[s:e].tolist(), self.shared[s:e].tolist(), self.shingles[s:e].tolist(),
                           strict=True)


@dataclass
class Family:
    """Documents that contain one another (A in B and B in A at the threshold), connected.

    Variants of one licence, a contract and its retyped copy, an exhibit filed twice: their
    pairwise findings say one thing, so they are reported once, as a family, with the range of
    the pairwise containments. Pairs with documents outside stay findings.
    """

    members: list[int]
    pairs: int = 0
    low: float = 1.0
    high: float = 0.0


@dataclass
class Contained:
    """One contained document and what contains it (outside its own family)."""

    doc: int
    containers: np.ndarray  # container ids, best first
    values: np.ndarray  # their exact containment, aligned
    best: list[Pair]  # the first few containers, scored and located
    family: int | None = None
    boilerplate: bool = False
    groups: int = 0  # unrelated containers (container_groups), counted when there are enough containers


@dataclass
class AuditResult:
    params: Params
    threshold: float
    containing: Pairs  # every pair at or above the threshold, sorted by (contained, container)
    contained: list[Contained]  # by contained document id; family-internal pairs excluded
    families: list[Family]
    below: int  # pairs verified exactly and found below the threshold
    nearest_misses: list[Pair]  # the closest of them, closest first
    histogram: list[int]  # containment of every candidate pair in HISTOGRAM_BINS bins over [0, 1]
    not_auditable: list[dict[str, Any]]
    duplicate_groups: list[list[int]]
    documents: int  # documents that took part (the first of each duplicate group)
    candidates: int
    universe: list[int]  # every document the audit covered, duplicates included
    boilerplate_min: int = 0

    @property
    def findings(self) -> list[Contained]:
        """Contained documents that are not boilerplate."""
        return [c for c in self.contained if not c.boilerplate]

    @property
    def boilerplate(self) -> list[Contained]:
        return [c for c in self.contained if c.boilerplate]

    @property
    def located(self) -> dict[tuple[int, int], list[Span]]:
        return {(p.contained, p.container): p.spans for c in self.contained for p in c.best}


# -- families ---------------------------------------------------------------------------------

def _pair_keys(a: np.ndarray, b: np.ndarray, base: int) -> np.ndarray:
    return a.astype(np.int64) * base + b.astype(np.int64)


def mutual_mask(containing: Pairs) -> np.ndarray:
    """Pairs whose reverse is containing too."""
    if not len(containing):
        return np.zeros(0, bool)
    base = int(max(containing.contained.max(), containing.container.max())) + 1
    keys = np.sort(_pair_keys(containing.contained, containing.container, base))
    rev = _pair_keys(containing.container, containing.contained, base)
    pos = np.minimum(np.searchsorted(keys, rev), len(keys) - 1)
    return keys[pos] == rev


def families_of(containing: Pairs, mutual: np.ndarray) -> list[Family]:
    """Connected components of mutual containment, in order of their smallest member.

    Array work throughout (scipy's components, counts by family): a family of 1,866
    near-identical certifications has 3.5 M mutual pairs.
    """
    if not mutual.any():
        return []
    a, b = containing.contained[mutual], containing.container[mutual]
    nodes = np.unique(a)  # the reverse of a mutual pair is mutual too: every member is an ``a``
    ai, bi = np.searchsorted(nodes, a), np.searchsorted(nodes, b)
    k, label = components(len(nodes), ai, bi)
    first = np.full(k, len(nodes), np.int64)
    np.minimum.at(first, label, np.arange(len(nodes)))
    rank = np.empty(k, np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(k)
    fam = rank[label]
    order = np.argsort(fam, kind="stable")  # members ascending within a family (nodes are sorted)
    bounds = np.searchsorted(fam[order], np.arange(k + 1))
    of_pair = fam[ai]
    exact = containing.exact[mutual]
    pairs = np.bincount(of_pair, minlength=k)
    low, high = np.ones(k), np.zeros(k)
    np.minimum.at(low, of_pair, exact)
    np.maximum.at(high, of_pair, exact)
    members = nodes[order].tolist()
    return [Family(members[bounds[f]:bounds[f + 1]], int(pairs[f]), float(low[f]), float(high[f]))
            for f in range(k)]


# -- shingles of stored documents -------------------------------------------------------------

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
        held = HashSet(distinct(np.concatenate(list(own.values()))) if own else np.empty(0, np.uint64))
        doc_ids: list[int] = []
        arrays: list[np.ndarray] = []
        kept_shingles: list[int] = []
        every: list[int] = []
        every_shingles: list[int] = []
        n_sampled: dict[int, int] = {}
        for doc_id, blob, n_shingles in store.conn.execute(
                "SELECT doc_id, sampled, n_shingles FROM index_docs ORDER BY doc_id"):
            if doc_id not in wanted:
                continue
            every.append(doc_id)
            every_shingles.append(n_shingles)
            n_sampled[doc_id] = len(blob) // 8
            if doc_id in own:
                mine = own[doc_id]
            else:
                values = np.frombuffer(blob, dtype=np.uint64)
                mine = values[held.find(values)[0]]
                if not len(mine):
                    continue
            doc_ids.append(doc_id)
            arrays.append(mine)
            kept_shingles.append(n_shingles)
        index = cls(np.array(doc_ids, dtype=np.int64), arrays, np.array(kept_shingles, dtype=np.int64))
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
            held = self.post_doc[_ranges(self.post_ptr[s], self.df[s].astype(np.int64))]
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


CANDIDATE_BLOCK = 4_000_000  # (candidate, shingle) queries searched at a time: 32 MB of keys


def exact_min_hits(n: int, threshold: float) -> int:
    """Fewest of ``n`` shingles a container must hold for ``hits / n >= threshold`` (as the verdict
    computes it, in floating point)."""
    h = max(0, math.ceil(threshold * n) - 1)
    while h / n < threshold:
        h += 1
    return h


# -- where -----------------------------------------------------------------------------------

def member(values: np.ndarray, sorted_set: np.ndarray | HashSet) -> np.ndarray:
    """``np.isin(values, sorted_set)`` for a sorted array of distinct hashes, through a bit
    filter (``HashSet``; np.isin sorts both arrays together, many times slower for a short set
    in a long text)."""
    return (sorted_set if isinstance(sorted_set, HashSet) else HashSet(sorted_set)).contains(values)


def locate(
    container_seq: np.ndarray, contained: np.ndarray, text: str, k: int,
    page_offsets: list[int] | None = None, min_share: float = 0.02,
    offsets: tuple[Sequence[int] | np.ndarray, Sequence[int] | np.ndarray] | None = None,
) -> list[Span]:
    """Where the shingles of ``contained`` occur in the container, as merged character spans."""
    pos = np.flatnonzero(member(container_seq, contained))
    if len(pos) == 0:
        return []
    breaks = np.flatnonzero(np.diff(pos) > k + SPAN_GAP_WORDS)
    firsts = np.concatenate(([0], breaks + 1))
    lasts = np.concatenate((breaks, [len(pos) - 1]))
    shortest = min(3, len(contained))  # a run of fewer is stray; a 2-shingle clause is all it has
    runs = [(int(pos[a]), int(pos[b]) + k - 1, int(b - a + 1)) for a, b in zip(firsts, lasts, strict=True)
            if b - a + 1 >= shortest]
    big = [r for r in runs if r[2] >= min_share * len(contained)]
    if sum(r[2] for r in big) >= 0.5 * sum(r[2] for r in runs):
        runs = big  # stray boilerplate matches elsewhere in the container are not locations
    if not runs:
        return []
    starts, ends = offsets or word_offsets(text)
    spans = []
    for w0, w1, n in runs:
        a, b = int(starts[w0]), int(ends[min(w1, len(ends) - 1)])
        pages = None
        if page_offsets:
            pages = (bisect.bisect_right(page_offsets, a), bisect.bisect_right(page_offsets, max(a, b - 1)))
        spans.append(Span(a, b, w1 - w0 + 1, n, pages))
    return spans


def locate_pairs(store: Store, params: Params, pairs: list[tuple[int, int]]) -> list[list[Span]]:
    """Where each contained document lies in its container (pairs sorted by container), from
    the stored word sequences: the container's shingles in order and its words' offsets."""
    cache = ShingleCache(store, params)
    container: tuple[int, np.ndarray, tuple[np.ndarray, np.ndarray], list[int] | None] | None = None
    out = []
    for a, b in pairs:
        if container is None or container[0] != b:  # pairs come sorted by container: keep one
            words = cache.words.get(b, offsets=True)
            assert words.starts is not None and words.ends is not None
            container = (b, words.shingles(params.k), (words.starts, words.ends),
                         store.document(b)["page_offsets"])
        _, all_a = cache.get(a)
        out.append(locate(container[1], all_a, "", params.k, container[3], offsets=container[2]))
    return out


# -- what the audit covers --------------------------------------------------------------------

@dataclass
class Universe:
    """The documents an audit covers, and which of them takes part for each duplicate group."""

    members: list[int]  # every covered document with text, duplicates included, sorted
    representative: dict[int, int]  # member -> the member that takes part for its group
    groups: list[list[int]]  # duplicate groups of two or more covered members

    @property
    def representatives(self) -> list[int]:
        return sorted(set(self.representative.values()))


def universe(store: Store, documents: list[int] | set[int] | None = None) -> Universe:
    """Every stored document with text that is not withdrawn, or exactly ``documents``.

    Documents with the same normalised text form a duplicate group, and its first (lowest id)
    covered member stands for it: a group keeps its representative as the store grows, and an
    old report's recorded documents give the same groups and representatives again, whatever
    was withdrawn or restored since.
    """
    if documents is None:
        rows = store.conn.execute(
            "SELECT d.id, coalesce(d.norm_sha256, d.id) FROM documents d WHERE d.n_words > 0"
            " AND d.withdrawn_at IS NULL ORDER BY d.id").fetchall()
    else:
        rows = store.select_in("SELECT d.id, coalesce(d.norm_sha256, d.id) FROM documents d"
                               " WHERE d.n_words > 0 AND d.id IN ({})", list(documents))
    by_root: dict[Any, list[int]] = {}
    for doc_id, key in rows:
        by_root.setdefault(key, []).append(int(doc_id))
    rep = {m: g[0] for g in by_root.values() for m in g}
    groups = sorted(g for g in by_root.values() if len(g) > 1)
    return Universe(sorted(rep), rep, groups)


def auditable_documents(store: Store, ids: list[int]) -> int:
    """How many of ``ids`` have a shingle (through the sampled index or exhaustively)."""
    return len(store.select_in("SELECT doc_id FROM index_docs WHERE n_shingles > 0 AND doc_id IN ({})", ids))


def duplicate_groups(store: Store, within: Universe | None = None) -> list[list[int]]:
    return (within or universe(store)).groups


def not_auditable(store: Store, params: Params, within: Universe | None = None) -> list[dict[str, Any]]:
    """Documents with text that the sampled index cannot speak for, with the reason."""
    u = within or universe(store)
    cols = {r[1] for r in store.conn.execute("PRAGMA table_info(documents)")}
    unreadable = "d.unreadable" if "unreadable" in cols else "NULL"
    rows = store.select_in(f"SELECT d.id, d.n_words, coalesce(i.n_shingles, 0), {unreadable}"
               " FROM documents d LEFT JOIN index_docs i ON i.doc_id = d.id WHERE d.id IN ({})",
        u.representatives)
    out = []
    for doc_id, n_words, n_shingles, why in rows:
        if why:
            reason = f"text not readable: {why}"
        elif n_shingles:
            continue  # a short one is searched exhaustively
        else:
            reason = f"too short: {n_words} words, fewer than k={params.k}, so no shingle"
        out.append({"doc_id": doc_id, "reason": reason, "n_words": n_words, "n_shingles": n_shingles})
    return out


# -- exact verification ----------------------------------------------------------------------

def _ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, s + n)`` for each start and length, without a loop."""
    total = int(lens.sum())
    if not total:
        return np.empty(0, np.int64)
    shift = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    return shift + np.arange(total, dtype=np.int64)


GATHER_CHUNK = 4_000_000  # shingles looked up at once (bounds the index arrays: 32 MB)
SHINGLE_BUDGET = 32_000_000  # contained documents' shingles held at once (about 400 MB with ids)


class _Block:
    """Contained documents whose distinct shingles are numbered once (a sorted vocabulary), so
    that a container, marked in a boolean array over it, counts the shingles it shares with each
    of them with one gather and a cumulative sum: no Python per pair."""

    def __init__(self, sets: dict[int, np.ndarray], contained: np.ndarray, container: np.ndarray) -> None:
        self.ids = np.array(sorted(sets), dtype=np.int64)
        arrays = [sets[a] for a in self.ids.tolist()]
        self.lens = np.fromiter(map(len, arrays), np.int64, count=len(arrays))
        self.starts = np.concatenate(([0], np.cumsum(self.lens)[:-1])).astype(np.int64)
        flat = np.concatenate(arrays) if arrays else np.empty(0, np.uint64)
        self.vocab = distinct(flat)
        self.numbers = np.searchsorted(self.vocab, flat).astype(np.int32)
        self.lookup = HashSet(self.vocab)
        self.mark = np.zeros(len(self.vocab), bool)
        self.rows = np.flatnonzero(np.isin(contained, self.ids))  # the pairs of this block
        self.pos = np.searchsorted(self.ids, contained[self.rows])
        by = container[self.rows]
        edges = np.concatenate(([0], np.flatnonzero(np.diff(by)) + 1, [len(by)]))
        self.of_container = {int(by[s]): (s, e) for s, e in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)
                             if e > s}

    def count(self, b: int, every_b: np.ndarray, shared: np.ndarray) -> None:
        """Fill ``shared`` for this block's pairs whose container is ``b``."""
        span = self.of_container.get(b)
        if span is None or not len(self.vocab):
            return
        j = int(np.searchsorted(self.ids, b))
        if j < len(self.ids) and self.ids[j] == b:
            b_ids = self.numbers[self.starts[j] : self.starts[j] + self.lens[j]]
        else:
            b_ids = self.lookup.find(every_b)[1]
        self.mark[b_ids] = True
        s, e = span
        rows, p = self.rows[s:e], self.pos[s:e]
        a = 0
        while a < len(rows):  # pieces of at most GATHER_CHUNK shingles
            z = a + max(1, int(np.searchsorted(np.cumsum(self.lens[p[a:]]), GATHER_CHUNK, side="right")))
            lens = self.lens[p[a:z]]
            hit = self.mark[self.numbers[_ranges(self.starts[p[a:z]], lens)]]
            cum = np.concatenate(([0], np.cumsum(hit)))
            ends = np.cumsum(lens)
            shared[rows[a:z]] = cum[ends] - cum[ends - lens]
            a = z
        self.mark[b_ids] = False


def one_pass(store: Any, params: Params, docs: list[int], vocab: np.ndarray, contained: np.ndarray,
             container: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Shingle each document once, for two things at a time: which of ``vocab`` (the shingles of
    the short documents) it holds, for the exhaustive search; and, when it is the container of
    pairs (sorted by container), the exact counts of those pairs.

    Returns ``(shared, shingles)`` aligned with the pairs, and ``(owner, number)``: each held
    shingle of ``vocab`` by document id and vocabulary number. ``docs`` are walked when ``vocab``
    is not empty; otherwise only the containers. Contained documents beyond ``SHINGLE_BUDGET``
    shingles are counted in further passes over the containers.
    """
    words = Sequences(store, params)

    def shingled(ids: list[int]) -> Iterator[tuple[int, np.ndarray]]:
        for doc_id, w in words.of(ids):
            yield doc_id, distinct(w.shingles(params.k))

    shared = np.zeros(len(contained), np.int64)
    shingles = np.zeros(len(contained), np.int64)
    needed = np.unique(contained).tolist()
    sizes = dict(store.select_in("SELECT doc_id, n_shingles FROM index_docs WHERE doc_id IN ({})", needed))
    blocks: list[list[int]] = [[]]
    held = 0
    for a in needed:
        if blocks[-1] and held + sizes.get(a, 0) > SHINGLE_BUDGET:
            blocks.append([])
            held = 0
        blocks[-1].append(a)
        held += sizes.get(a, 0)
    containers = set(np.unique(container).tolist())
    owners: list[np.ndarray] = []
    numbers: list[np.ndarray] = []
    short, none = HashSet(vocab), HashSet(vocab[:0])
    for k, block in enumerate(blocks):
        sets = dict(shingled(block))
        counter = _Block(sets, contained, container)
        shingles[counter.rows] = counter.lens[counter.pos]
        walk = sorted(set(docs) | containers) if k == 0 and len(vocab) else sorted(containers)
        for doc_id in [d for d in walk if d in sets]:  # already shingled: no second time
            _holdings(doc_id, sets[doc_id], short if k == 0 else none, owners, numbers)
            counter.count(doc_id, sets[doc_id], shared)
        for doc_id, every in shingled([d for d in walk if d not in sets]):
            _holdings(doc_id, every, short if k == 0 else none, owners, numbers)
            counter.count(doc_id, every, shared)
    owner = np.concatenate(owners) if owners else np.empty(0, np.int64)
    number = np.concatenate(numbers) if numbers else np.empty(0, np.int64)
    return shared, shingles, owner, number


def _holdings(doc_id: int, every: np.ndarray, vocab: HashSet, owners: list[np.ndarray],
              numbers: list[np.ndarray]) -> None:
    if not len(vocab):
        return
    at = vocab.find(every)[1]
    if len(at):
        numbers.append(at.astype(np.int64))
        owners.append(np.full(len(at), doc_id, np.int64))


def _pass_chunk(args: tuple[str, Params, list[int], np.ndarray, np.ndarray, np.ndarray],
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    db, params, docs, vocab, a, b = args
    with Store(db, create=False) as store:
        return one_pass(store, params, docs, vocab, a, b)


def _locate_chunk(args: tuple[str, Params, list[tuple[int, int]]]) -> list[list[Span]]:
    db, params, pairs = args
    with Store(db, create=False) as store:
        return locate_pairs(store, params, pairs)


PARALLEL_MIN_PAIRS = 2_000  # below this, starting worker processes costs more than it saves
#: pairs to locate below which the pool is not used: locating a pair takes milliseconds, starting
#: a spawned worker about a second (2.0 s of a 20-document audit's 2.04 s went to that)
PARALLEL_MIN_LOCATE = 256
#: shingles to read in a pass (verification), or of the containers to locate in, before worker
#: processes pay: a stored shingle costs about 40 ns to read and count, starting two spawned
#: workers about 1 CPU-s (0.6 s of wall time). The 140 MB benchmark reads 19 M and locates in
#: 15 M, so it stays in one process; 560 MB and up use both cores.
PARALLEL_MIN_SHINGLES = 40_000_000


def _container_chunks(container: np.ndarray, n: int) -> list[np.ndarray]:
    """Positions of pairs (sorted by container) in ``n`` chunks of whole containers."""
    edges = np.concatenate(([0], np.flatnonzero(np.diff(container)) + 1, [len(container)]))
    chunks: list[list[np.ndarray]] = [[] for _ in range(n)]
    for g, (s, e) in enumerate(zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)):
        chunks[g % n].append(np.arange(s, e))
    return [np.concatenate(c) for c in chunks if c]


def verify_and_scan(store: Store, params: Params, pairs: Pairs, docs: list[int], sizes: dict[int, int],
                    vocab: np.ndarray, pool: ProcessPoolExecutor | None, workers: int = 2,
                    walk: list[int] | None = None) -> tuple[Pairs, np.ndarray, np.ndarray]:
    """``one_pass`` over the documents, split between the processes of ``pool`` by size: the
    pairs (sorted by container) with their exact counts, and the short documents' holdings.
    ``walk``: the documents to read (by default every one when there is a short document to
    search for, else the pairs' containers)."""
    pairs = pairs.sort("container", "contained")
    if walk is None:
        walk = docs if len(vocab) else np.unique(pairs.container).tolist()
    if pool is None or sum(sizes.get(d, 0) for d in walk) < PARALLEL_MIN_SHINGLES:
        pairs.shared, pairs.shingles, owner, number = one_pass(store, params, walk, vocab, pairs.contained,
                                                               pairs.container)
        return pairs, owner, number
    load = [0] * workers
    part_of: dict[int, int] = {}
    for d in sorted(walk, key=lambda d: (-sizes.get(d, 0), d)):
        g = load.index(min(load))
        part_of[d] = g
        load[g] += sizes.get(d, 0) + 1
    where = np.array([part_of.get(b, 0) for b in pairs.container.tolist()], dtype=np.int64)
    chunks = [np.flatnonzero(where == g) for g in range(workers)]
    results = pool.map(_pass_chunk, [(str(store.path), params, sorted(d for d in walk if part_of[d] == g), vocab,
                                      pairs.contained[c], pairs.container[c]) for g, c in enumerate(chunks)])
    owners, numbers = [], []
    for c, (sh, n, o, num) in zip(chunks, results, strict=True):
        pairs.shared[c], pairs.shingles[c] = sh, n
        owners.append(o)
        numbers.append(num)
    return pairs, np.concatenate(owners), np.concatenate(numbers)


def _locate(store: Store, params: Params, pairs: list[tuple[int, int]],
            pool: ProcessPoolExecutor | None, size: np.ndarray) -> list[list[Span]]:
    """``locate_pairs``, split between the processes of ``pool`` by container when there is
    enough to do (``size``: shingles of each container by id)."""
    order = sorted(range(len(pairs)), key=lambda i: (pairs[i][1], pairs[i][0]))
    ordered = [pairs[i] for i in order]
    work = int(size[sorted({b for _, b in pairs})].sum()) if pairs else 0
    if pool is None or len(ordered) < PARALLEL_MIN_LOCATE or work < PARALLEL_MIN_SHINGLES:
        found = locate_pairs(store, params, ordered)
    else:
        container = np.array([b for _, b in ordered], dtype=np.int64)
        chunks = _container_chunks(container, 8)
        found = [[] for _ in ordered]
        for c, r in zip(chunks, pool.map(_locate_chunk, [
                (str(store.path), params, [ordered[i] for i in c.tolist()]) for c in chunks]), strict=True):
            for i, sp in zip(c.tolist(), r, strict=True):
                found[i] = sp
    out: list[list[Span]] = [[] for _ in pairs]
    for i, sp in zip(order, found, strict=True):
        out[i] = sp
    return out


# -- short documents: searched exhaustively ---------------------------------------------------

SHORT_SHINGLES = 256  # at most this many shingles (about 16 sampled): searched exhaustively


@dataclass
class Short:
    """The short documents of an audit and their shingles, numbered in one vocabulary."""

    ids: list[int]
    sets: dict[int, np.ndarray]
    vocab: np.ndarray


def short_documents(store: Any, params: Params, docs: list[int], shingles: list[int]) -> Short:
    """``docs`` (with ``shingles`` distinct shingles each) of at most ``SHORT_SHINGLES``."""
    ids = [d for d, n in zip(docs, shingles, strict=True) if 0 < n <= SHORT_SHINGLES]
    sets = {d: distinct(w.shingles(params.k)) for d, w in Sequences(store, params).of(ids)}
    vocab = distinct(np.concatenate([sets[d] for d in ids])) if ids else np.empty(0, np.uint64)
    return Short(ids, sets, vocab)


def exhaustive_pairs(short: Short, docs: list[int], owner: np.ndarray, number: np.ndarray, params: Params,
                     threshold: float, only: set[int] | None) -> tuple[Pairs, int]:
    """Every pair whose contained document is short, exactly and completely: (pairs, candidates).

    A sample of a short document is too small to speak for it: a 40-word notice has two or
    three sampled shingles, none at all one time in ten, and a copy of 85% of it is missed as
    often as not. So the shingles of the short documents are all numbered (``short.vocab``),
    every document's holdings of them are recorded in the same pass over the documents that
    verifies the sampled pairs (``owner``, ``number``: see ``one_pass``), and the containers of
    each short document come from that full index by the prefix principle on all its shingles,
    with exact counts: every document holding one of its ``n - m + 1`` rarest shingles (``m``:
    ``exact_min_hits``) is scored, however few it shares, and none is estimated.
    ``hits``/``sampled`` still give the sampled view of each pair (what the index alone would
    have estimated).
    """
    if not short.ids:
        return Pairs.empty(), 0
    order = np.lexsort((number, owner))
    owner, number = owner[order], number[order]
    edges = np.concatenate(([0], np.flatnonzero(np.diff(owner)) + 1, [len(owner)]))
    held = {int(owner[a]): number[a:b] for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)
            if b > a}
    doc_ids = np.array(docs, dtype=np.int64)
    full = SampledIndex(doc_ids, [held.get(d, np.empty(0, np.int64)).astype(np.uint64) for d in docs])
    position = {d: i for i, d in enumerate(docs)}
    only_pos = np.flatnonzero(np.isin(doc_ids, sorted(only or ())))  # read only when ``only`` is given
    out: list[Pairs] = []
    candidates = 0
    for a in short.ids:
        cands, hits = full.candidates(position[a], threshold, exact=True)
        if only is not None and a not in only:
            keep = np.isin(cands, only_pos)
            cands, hits = cands[keep], hits[keep]
        if not len(cands):
            continue
        candidates += len(cands)
        sampled = np.searchsorted(short.vocab, sample(short.sets[a], params.modulus)).astype(np.uint64)
        m = len(cands)
        out.append(Pairs(np.full(m, a), doc_ids[cands], full.holds(cands, sampled), np.full(m, len(sampled)),
                         hits, np.full(m, len(short.sets[a]))))
    return Pairs.concat(out), candidates


# -- the audit -------------------------------------------------------------------------------

def candidate_pairs(index: SampledIndex, threshold: float, only: set[int] | None = None,
                    ) -> tuple[Pairs, np.ndarray, int]:
    """(pairs needing exact verification, histogram of the estimates of the others, candidates),
    for contained documents longer than ``SHORT_SHINGLES`` (shorter ones: ``exhaustive_pairs``).

    ``only``: keep pairs whose contained or container document is in this set.
    """
    only_pos = None if only is None else np.flatnonzero(np.isin(index.doc_ids, sorted(only)))
    parts: list[Pairs] = []
    unverified = np.zeros(HISTOGRAM_BINS, np.int64)
    n_candidates = 0
    for i in range(len(index.doc_ids)):
        if index.shingles[i] <= SHORT_SHINGLES:
            continue
        cands, hits = index.candidates(i, threshold)
        if only is not None and only_pos is not None and int(index.doc_ids[i]) not in only:
            keep = np.isin(cands, only_pos)
            cands, hits = cands[keep], hits[keep]
        if not len(cands):
            continue
        n = int(index.n[i])
        n_candidates += len(cands)
        need = needs_exact(hits, n, threshold)
        if not need.all():
            unverified += histogram(hits[~need] / n)
        cands, hits = cands[need], hits[need]
        m = len(cands)
        parts.append(Pairs(np.full(m, index.doc_ids[i]), index.doc_ids[cands], hits,
                           np.full(m, n), np.full(m, -1), np.full(m, -1)))
    return Pairs.concat(parts), unverified, n_candidates


def batch_candidate_pairs(index: SampledIndex, threshold: float, only: set[int], n_sampled: dict[int, int],
                          ) -> tuple[Pairs, np.ndarray, int]:
    """``candidate_pairs(full_index, threshold, only)`` from a batch's index
    (:meth:`SampledIndex.touching`), at the cost of the batch: the same pairs, hits, histogram
    and count. A batch document's containers come from its own rarest shingles, as always; the
    corpus documents a batch document may contain come from the posting lists of its sampled
    hashes (every document holding ``min_hits`` of them: by the prefix principle, exactly the
    ones the corpus document's own rarest shingles would lead to)."""
    position = {int(d): i for i, d in enumerate(index.doc_ids)}
    batch = sorted(position[d] for d in only if d in position)
    least: dict[int, int] = {}
    found: dict[tuple[int, int], int] = {}  # (contained position, container position) -> hits
    for i in batch:
        if index.shingles[i] > SHORT_SHINGLES:
            cands, hits = index.candidates(i, threshold)
            found.update(zip(zip([i] * len(cands), cands.tolist(), strict=True), hits.tolist(), strict=True))
        counts = index.hits_of(index.uniq[index.shingles_of(i)])
        for d in np.flatnonzero(counts).tolist():
            doc = int(index.doc_ids[d])
            if d == i or doc in only or index.shingles[d] <= SHORT_SHINGLES:
                continue
            n = n_sampled[doc]
            if n not in least:
                least[n] = min_hits(n, threshold)
            if counts[d] >= least[n]:
                found[(d, i)] = int(counts[d])
    parts: list[Pairs] = []
    unverified = np.zeros(HISTOGRAM_BINS, np.int64)
    by_contained: dict[int, list[tuple[int, int]]] = {}
    for (a, b), h in found.items():
        by_contained.setdefault(int(index.doc_ids[a]), []).append((int(index.doc_ids[b]), h))
    for a_id in sorted(by_contained):
        held_by = sorted(by_contained[a_id])
        containers = np.array([c for c, _ in held_by], dtype=np.int64)
        hits = np.array([h for _, h in held_by], dtype=np.int64)
        n = n_sampled[a_id]
        need = needs_exact(hits, n, threshold)
        if not need.all():
            unverified += histogram(hits[~need] / n)
        m = int(need.sum())
        parts.append(Pairs(np.full(m, a_id), containers[need], hits[need], np.full(m, n), np.full(m, -1),
                           np.full(m, -1)))
    return Pairs.concat(parts), unverified, len(found)


def histogram(values: np.ndarray, bins: int = HISTOGRAM_BINS) -> np.ndarray:
    """Counts of scores in ``bins`` equal bins over [0, 1] (1.0 in the last)."""
    return np.bincount(np.minimum((np.asarray(values, np.float64) * bins).astype(np.int64), bins - 1),
                       minlength=bins)


def _rank(containing: Pairs, size: np.ndarray) -> Pairs:
    """Sorted by contained document, then best container first: containment, size, id."""
    order = np.lexsort((containing.container, size[containing.container], -containing.exact,
                        containing.contained))
    return containing.take(order)


def container_groups(doc: int, containers: np.ndarray, outside: Pairs, family: np.ndarray) -> int:
    """How many unrelated documents contain ``doc``: its ``containers`` outside its own family,
    where containers of one family (variants, versions) count once, and so do containers that
    contain one another, connected. ``outside``: the one-way containing pairs, sorted by
    contained document; ``family``: each document id's family (-1: none), over every id in
    ``outside``. A notice in a thousand filings has a thousand; the first version of a policy,
    contained in each of its later versions, has one."""
    cs = np.unique(np.asarray(containers, np.int64))
    own = int(family[doc]) if doc < len(family) else -1
    fam = family[cs]
    if own >= 0:
        cs, fam = cs[fam != own], fam[fam != own]
    if not len(cs):
        return 0
    node = np.where(fam >= 0, fam, len(family) + cs)  # a family, or the document alone
    lo = np.searchsorted(outside.contained, cs, "left")
    hi = np.searchsorted(outside.contained, cs, "right")
    lengths = hi - lo
    if not lengths.any():
        return len(np.unique(node))
    starts = np.cumsum(lengths) - lengths
    rows = np.arange(int(lengths.sum())) - np.repeat(starts, lengths) + np.repeat(lo, lengths)
    src = np.searchsorted(cs, outside.contained[rows])
    dst_ids = outside.container[rows]
    at = np.minimum(np.searchsorted(cs, dst_ids), len(cs) - 1)
    keep = cs[at] == dst_ids  # both ends contain ``doc``
    names, label = np.unique(node, return_inverse=True)
    return components(len(names), label[src[keep]], label[at[keep]])[0]


def group_by_contained(containing: Pairs, families: list[Family], mutual: np.ndarray,
                       size: np.ndarray, documents: int, best: int = BEST_CONTAINERS,
                       rule: dict[str, Any] = BOILERPLATE) -> tuple[list[Contained], int]:
    """Each contained document once, with its containers outside its family, best first;
    boilerplate when contained in at least ``boilerplate_min`` unrelated documents
    (:func:`container_groups`), not merely in many versions of itself."""
    fam_of = {m: i for i, f in enumerate(families) for m in f.members}
    outside = containing.take(np.flatnonzero(~mutual))  # a mutual pair lies inside one family
    ranked = _rank(outside, size)
    exact = ranked.exact
    cutoff = boilerplate_min(documents, rule)
    top = int(max(containing.contained.max(), containing.container.max())) + 1 if len(containing) else 0
    family = np.full(top, -1, np.int64)
    for m, i in fam_of.items():
        family[m] = i
    out = []
    edges = np.concatenate(([0], np.flatnonzero(np.diff(ranked.contained)) + 1, [len(ranked)]))
    for s, e in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True):
        if s == e:
            continue
        a = int(ranked.contained[s])
        n = e - s
        groups = container_groups(a, ranked.container[s:e], outside, family) if n >= cutoff else 0
        is_bp = groups >= cutoff
        out.append(Contained(a, ranked.container[s:e], exact[s:e],
                             [ranked.pair(i) for i in range(s, min(e, s + (1 if is_bp else best)))],
                             fam_of.get(a), is_bp, groups))
    return out, cutoff


def finish(
    store: Store, params: Params, threshold: float, verified: Pairs, *, unverified: np.ndarray,
    candidates: int, scope: Universe, only: set[int] | None, documents: int,
    pool: ProcessPoolExecutor | None = None,
) -> AuditResult:
    """Verdicts, families, grouping, locations: the same for every engine."""
    exact = verified.exact
    hist = unverified + histogram(exact)
    is_in = exact >= threshold
    containing = verified.take(np.flatnonzero(is_in)).sort("contained", "container")
    below = verified.take(np.flatnonzero(~is_in))
    near = np.lexsort((below.container, below.contained, -below.exact))[:NEAREST_MISSES]
    misses = [below.pair(i) for i in near.tolist()]
    mutual = mutual_mask(containing)
    families = families_of(containing, mutual)
    size = np.zeros(int(containing.container.max()) + 1 if len(containing) else 0, np.int64)
    if len(containing):
        for doc_id, n in store.select_in("SELECT doc_id, n_shingles FROM index_docs WHERE doc_id IN ({})",
                                     np.unique(containing.container).tolist()):
            size[doc_id] = n
    contained, cutoff = group_by_contained(containing, families, mutual, size, documents)
    best = [p for c in contained for p in c.best]
    for p, spans in zip(best, _locate(store, params, [(p.contained, p.container) for p in best], pool, size),
                        strict=True):
        p.spans = spans
    na = not_auditable(store, params, scope)
    if only is not None:
        na = [x for x in na if x["doc_id"] in only]
    return AuditResult(
        params=params, threshold=threshold, containing=containing, contained=contained,
        families=families, below=len(below), nearest_misses=misses, histogram=hist.tolist(),
        not_auditable=na, duplicate_groups=scope.groups, documents=documents,
        candidates=candidates, universe=scope.members, boilerplate_min=cutoff,
    )


def _pool(workers: int, pairs: int) -> Any:
    if workers > 1 and pairs >= PARALLEL_MIN_PAIRS:
        from auditor.sandbox import die_with_parent

        return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                                   initializer=die_with_parent, initargs=(os.getpid(),))
    return nullcontext()


def run_audit(
    store: Store,
    threshold: float = 0.8,
    *,
    only: set[int] | None = None,
    documents: list[int] | set[int] | None = None,
    workers: int = 0,
) -> AuditResult:
    """Score every document against every other; see the module docstring.

    :param only: keep only pairs where the contained or the container document is in this set
        (a new batch against the corpus and itself); a document in it that duplicates another
        is represented by the first of its group, as everywhere in the audit.
    :param documents: audit exactly these documents (an old report's), else every stored one.
    :param workers: processes for exact verification of large audits (0: one per core, at most 2).
    """
    params = store.params
    scope = universe(store, documents)
    if only is not None:
        only = {scope.representative[d] for d in only if d in scope.representative}
    reps = scope.representatives
    if only is None:
        index = SampledIndex.load(store, ids=reps)
        pairs, unverified, n_candidates = candidate_pairs(index, threshold, only)
        docs, shingles = index.doc_ids.tolist(), index.shingles.tolist()
    else:  # a batch against the corpus: what the batch touches, not the corpus's whole index
        index, docs, shingles, n_sampled = SampledIndex.touching(store, reps, only)
        pairs, unverified, n_candidates = batch_candidate_pairs(index, threshold, only, n_sampled)
    del index  # the largest structure of the audit; verification reads texts, not samples
    sizes = dict(zip(docs, shingles, strict=True))
    short = short_documents(store, params, docs, shingles)
    walk = None
    if only is not None and not any(d in only for d in short.ids):
        # no short batch document to search for everywhere: the short corpus documents can only
        # be contained in a batch document, so only the batch, the pairs' containers and the short
        # documents themselves (whose holdings the exhaustive search starts from) are read
        walk = sorted(set(only) | set(pairs.container.tolist()) | set(short.ids))
    # a private transaction's writes (a dry-run gate's batch) are invisible to other processes
    n_workers = 1 if store.private else workers or min(2, os.cpu_count() or 1)
    with _pool(n_workers, PARALLEL_MIN_PAIRS if len(short.vocab) else len(pairs)) as pool:
        verified, owner, number = verify_and_scan(store, params, pairs, docs, sizes, short.vocab, pool, n_workers,
                                                  walk=walk)
        found, n_short = exhaustive_pairs(short, docs, owner, number, params, threshold, only)
        return finish(store, params, threshold, Pairs.concat([verified, found]), unverified=unverified,
                      candidates=n_candidates + n_short, scope=scope, only=only,
                      documents=len(docs), pool=pool)


# -- describing documents ---------------------------------------------------------------------

_EDGAR_PART = ("type", "sequence", "filename", "description")


def describe_many(store: Store, ids: list[int] | set[int]) -> dict[int, dict[str, Any]]:
    """Provenance of documents as reports show it, read with a few set queries (no text)."""
    import json

    from auditor.edgar import submission_fields

    ids = sorted(set(ids))
    if not ids:
        return {}
    batches = dict(store.conn.execute("SELECT id, name FROM batches").fetchall())
    docs = store.select_in("SELECT id, path, sha256, format, extractor, extractor_version, encoding,"
                              " size, n_words, n_pages, batch_id, parent_id, meta FROM documents"
                              " WHERE id IN ({})", ids)
    parents = {int(r[11]) for r in docs if r[11]}
    parent_rows = {r[0]: r for r in store.select_in("SELECT id, path, meta FROM documents WHERE id IN ({})", list(parents))} if parents else {}
    seen: dict[int, list[str]] = {}
    resolved: dict[int, str] = {}
    for doc_id, path, part, where in store.select_in(
            "SELECT doc_id, path, part, resolved FROM sightings WHERE doc_id IN ({}) ORDER BY doc_id, id", ids):
        seen.setdefault(int(doc_id), []).append(path + (f"#{part}" if part else ""))
        if where != path:  # the file behind a relative path: what report links point to
            resolved.setdefault(int(doc_id), where)
    out: dict[int, dict[str, Any]] = {}
    for (doc_id, path, sha, fmt, extractor, ext_version, encoding, size, n_words, n_pages, batch_id,
         parent_id, meta) in docs:
        d: dict[str, Any] = {
            "doc_id": doc_id, "path": path, "sha256": sha, "format": fmt,
            "extractor": f"{extractor} {ext_version}", "encoding": encoding, "size": size,
            "n_words": n_words, "n_pages": n_pages, "batch": batches.get(batch_id),
            "also_seen_at": seen.get(int(doc_id), [])[1:],
        }
        if int(doc_id) in resolved:
            d["resolved"] = resolved[int(doc_id)]
        if parent_id:
            _, ppath, pmeta = parent_rows[parent_id]
            pm, m = json.loads(pmeta), json.loads(meta)
            d["edgar"] = {"submission": submission_fields(pm),
                          "submission_path": ppath, "part": {k: m.get(k) for k in _EDGAR_PART}}
        out[int(doc_id)] = d
    return out


def describe(store: Store, doc_id: int) -> dict[str, Any]:
    """Provenance of a document as reports show it (first sighting, EDGAR submission and part)."""
    d = describe_many(store, [doc_id]).get(doc_id)
    if d is None:
        store.document(doc_id)  # raises NoDocument
    assert d is not None
    return d
