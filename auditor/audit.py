"""The containment audit: candidates from the sampled index, exact verification, locations.

For every document A and every document B, is ``|S(A) & S(B)| / |S(A)| >= threshold``?

1. **Load** the sampled index (one sorted array of sampled hashes per document) into memory:
   a few bytes per posting, 1-2 million postings for 140 MB of text.
2. **Candidates** for A: by the prefix principle (``score.prefix_length``) any B that could
   reach the threshold shares at least one of A's ``n - min_hits + 1`` *rarest* sampled
   shingles. Gathering only those posting lists keeps boilerplate (shingles in hundreds of
   documents) out of the join, yet a contract filed in 200 filings is still found in all 200:
   its rarest shingles are the ones in exactly those filings.
3. **Estimate** hits for each candidate, with a 95% Wilson interval.
4. **Verify exactly** (all shingles, from the stored text) every pair whose interval reaches the
   threshold; the verdict uses the exact value.
5. **Locate** each finding in the container: character spans, pages, EDGAR part.

Documents with identical normalised text form a duplicate group; only the first of each group
takes part, and the group is reported once.
"""

from __future__ import annotations

import bisect
import os
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import numpy as np

from auditor.normalize import word_offsets, words_bytes
from auditor.score import Estimate, min_hits, prefix_length
from auditor.shingle import Params, WordHasher, combine, distinct
from auditor.store import Store

SPAN_GAP_WORDS = 24  # matches closer than this merge (page furniture, a changed word)


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
class AuditResult:
    params: Params
    threshold: float
    findings: list[Pair]
    verified_below: list[Pair]  # verified exactly and below the threshold
    not_auditable: list[dict[str, Any]]
    duplicate_groups: list[list[int]]
    documents: int
    candidates: int
    scores: list[float]  # containment of every candidate pair (for the distribution plot)
    clusters: list[Cluster] = field(default_factory=list)


@dataclass
class Cluster:
    """Three or more documents that contain one another (boilerplate forms such as certifications).

    Their N*(N-1) pairwise findings say one thing, so they are reported once, as a group, with
    the range of the pairwise containments; pairs with documents outside stay findings.
    """

    members: list[int]
    pairs: int = 0
    low: float = 1.0
    high: float = 0.0

    def add(self, p: Pair) -> None:
        self.pairs += 1
        self.low = min(self.low, p.containment)
        self.high = max(self.high, p.containment)


def fold_clusters(verified: list[Pair]) -> tuple[list[Cluster], list[Pair]]:
    """(clusters, the findings left): a pair is folded into its cluster only when both of its
    directions were verified; a one-way containment between members stays a finding."""
    clusters = mutual_clusters(verified)
    in_cluster = {m: i for i, c in enumerate(clusters) for m in c.members}
    have = {(p.contained, p.container) for p in verified}
    findings = []
    for p in verified:
        c = in_cluster.get(p.contained)
        if c is not None and c == in_cluster.get(p.container) and (p.container, p.contained) in have:
            clusters[c].add(p)
        else:
            findings.append(p)
    return clusters, findings


def mutual_clusters(verified: list[Pair], min_size: int = 3) -> list[Cluster]:
    """Connected components of mutual containment (A in B and B in A) with ``min_size`` members."""
    have = {(p.contained, p.container) for p in verified}
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in sorted(have):
        if a < b and (b, a) in have:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for x in sorted(parent):
        groups.setdefault(find(x), []).append(x)
    return [Cluster(sorted(g)) for _, g in sorted(groups.items()) if len(g) >= min_size]


class ShingleCache:
    """All-shingle hashes of stored documents, recomputed from text, kept for recent ones.

    The budget counts hashes (16 bytes each with the distinct copy): the default, 4 M, holds
    about 60 filings of 400 KB or thousands of short exhibits in 64 MB.
    """

    def __init__(self, store: Store, params: Params, budget: int = 4_000_000) -> None:
        self.store, self.params, self.budget = store, params, budget
        self.hasher = WordHasher(params.seed)
        self._lru: OrderedDict[int, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._held = 0

    def get(self, doc_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(hash of each shingle in document order, sorted distinct hashes)."""
        if doc_id in self._lru:
            self._lru.move_to_end(doc_id)
            return self._lru[doc_id]
        seq = combine(self.hasher(words_bytes(self.store.text(doc_id))), self.params.k)
        entry = (seq, distinct(seq))
        self._lru[doc_id] = entry
        self._held += len(seq)
        while self._held > self.budget and len(self._lru) > 1:
            _, (old, _) = self._lru.popitem(last=False)
            self._held -= len(old)
        return entry


class SampledIndex:
    """The sampled index in memory, arranged for candidate generation."""

    def __init__(self, doc_ids: np.ndarray, sampled: list[np.ndarray]) -> None:
        self.doc_ids = doc_ids
        self.n = np.array([len(s) for s in sampled], dtype=np.int64)
        self.ptr = np.concatenate(([0], np.cumsum(self.n)))
        allh = np.concatenate(sampled) if sampled else np.empty(0, np.uint64)
        self.uniq, sid = np.unique(allh, return_inverse=True)
        self.sid = sid.astype(np.int64)  # doc-major, sorted within each document
        self.U = max(1, len(self.uniq))
        self.df = np.bincount(self.sid, minlength=self.U)
        owner = np.repeat(np.arange(len(doc_ids), dtype=np.int64), self.n)
        self.keys = owner * self.U + self.sid  # sorted: documents ascending, shingles ascending
        order = np.argsort(self.sid, kind="stable")
        self.post_doc = owner[order]  # posting lists, shingle-major
        self.post_ptr = np.concatenate(([0], np.cumsum(self.df)))

    @classmethod
    def load(cls, store: Store, *, representatives_only: bool = True) -> SampledIndex:
        """The index of every document, or of the first of each exact-duplicate group."""
        rows = store.conn.execute(
            "SELECT i.doc_id, i.sampled FROM index_docs i JOIN documents d ON d.id = i.doc_id"
            " WHERE d.withdrawn_at IS NULL"
            + (" AND d.duplicate_of IS NULL" if representatives_only else "") + " ORDER BY i.doc_id"
        ).fetchall()
        return cls(
            np.array([r[0] for r in rows], dtype=np.int64),
            [np.frombuffer(r[1], dtype=np.uint64) for r in rows],
        )

    def hits_of(self, hashes: np.ndarray) -> np.ndarray:
        """For sorted distinct sampled ``hashes`` of an outside text: shared count per document."""
        known = np.isin(hashes, self.uniq, assume_unique=True)
        sids = np.searchsorted(self.uniq, hashes[known])
        starts, lens = self.post_ptr[sids], self.df[sids]
        offs = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
        docs = self.post_doc[offs + np.arange(int(lens.sum()))]
        return np.bincount(docs, minlength=len(self.doc_ids))

    def shingles(self, i: int) -> np.ndarray:
        return self.sid[self.ptr[i] : self.ptr[i + 1]]

    def candidates(self, i: int, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        """(document positions, hits) of every document that may contain document ``i``."""
        s = self.shingles(i)
        n = len(s)
        if n == 0:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        rare = s[np.argsort(self.df[s], kind="stable")[: prefix_length(n, threshold)]]
        starts, lens = self.post_ptr[rare], self.df[rare]
        total = int(lens.sum())
        offs = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
        cands = np.unique(self.post_doc[offs + np.arange(total)])
        cands = cands[cands != i]
        if len(cands) == 0:
            return cands, cands
        hits = np.zeros(len(cands), dtype=np.int64)
        step = max(1, 4_000_000 // n)
        for a in range(0, len(cands), step):
            c = cands[a : a + step]
            q = (c[:, None] * self.U + s[None, :]).ravel()
            pos = np.minimum(np.searchsorted(self.keys, q), len(self.keys) - 1)
            hits[a : a + step] = (self.keys[pos] == q).reshape(len(c), n).sum(axis=1)
        keep = hits >= min_hits(n, threshold)
        return cands[keep], hits[keep]


def locate(
    container_seq: np.ndarray, contained: np.ndarray, text: str, k: int,
    page_offsets: list[int] | None = None, min_share: float = 0.02,
    offsets: tuple[list[int], list[int]] | None = None,
) -> list[Span]:
    """Where the shingles of ``contained`` occur in the container, as merged character spans."""
    pos = np.flatnonzero(np.isin(container_seq, contained, assume_unique=False))
    if len(pos) == 0:
        return []
    breaks = np.flatnonzero(np.diff(pos) > k + SPAN_GAP_WORDS)
    firsts = np.concatenate(([0], breaks + 1))
    lasts = np.concatenate((breaks, [len(pos) - 1]))
    runs = [(int(pos[a]), int(pos[b]) + k - 1, int(b - a + 1)) for a, b in zip(firsts, lasts, strict=True)
            if b - a + 1 >= 3]
    big = [r for r in runs if r[2] >= min_share * len(contained)]
    if sum(r[2] for r in big) >= 0.5 * sum(r[2] for r in runs):
        runs = big  # stray boilerplate matches elsewhere in the container are not locations
    if not runs:
        return []
    starts, ends = offsets or word_offsets(text)
    spans = []
    for w0, w1, n in runs:
        a, b = starts[w0], ends[min(w1, len(ends) - 1)]
        pages = None
        if page_offsets:
            pages = (bisect.bisect_right(page_offsets, a), bisect.bisect_right(page_offsets, max(a, b - 1)))
        spans.append(Span(a, b, w1 - w0 + 1, n, pages))
    return spans


def duplicate_groups(store: Store) -> list[list[int]]:
    rows = store.conn.execute(
        "SELECT coalesce(duplicate_of, id) AS g, id FROM documents WHERE n_words > 0 AND withdrawn_at IS NULL"
        " AND (duplicate_of IS NOT NULL OR id IN (SELECT duplicate_of FROM documents"
        " WHERE duplicate_of IS NOT NULL AND withdrawn_at IS NULL)) ORDER BY g, id"
    ).fetchall()
    groups: dict[int, list[int]] = {}
    for g, i in rows:
        groups.setdefault(g, []).append(i)
    return [v for _, v in sorted(groups.items())]


def not_auditable(store: Store, params: Params) -> list[dict[str, Any]]:
    """Documents with text that the sampled index cannot speak for, with the reason."""
    out = []
    for doc_id, n_words, n_shingles in store.conn.execute(
        "SELECT d.id, d.n_words, coalesce(i.n_shingles, 0)"
        " FROM documents d LEFT JOIN index_docs i ON i.doc_id = d.id"
        " WHERE d.n_words > 0 AND d.duplicate_of IS NULL AND d.withdrawn_at IS NULL"
        " AND coalesce(i.n_sampled, 0) = 0 ORDER BY d.id"
    ):
        if n_words < params.k:
            reason = f"too short: {n_words} words, fewer than k={params.k}, so no shingle"
        else:
            reason = (f"too short for 1-in-{params.modulus} sampling: none of its {n_shingles} "
                      f"shingles is sampled ({n_words} words)")
        out.append({"doc_id": doc_id, "reason": reason, "n_words": n_words, "n_shingles": n_shingles})
    return out


def _exact_of(store: Store, params: Params, pairs: list[tuple[int, int]]) -> list[float]:
    """Exact containment of each (contained, container) pair over all shingles."""
    cache = ShingleCache(store, params)
    out = []
    for a, b in pairs:
        _, all_b = cache.get(b)
        _, all_a = cache.get(a)
        out.append(len(np.intersect1d(all_a, all_b, assume_unique=True)) / len(all_a) if len(all_a) else 0.0)
    return out


def locate_pairs(store: Store, params: Params, pairs: list[tuple[int, int]]) -> list[list[Span]]:
    """Where each contained document lies in its container."""
    cache = ShingleCache(store, params)
    offsets: dict[int, tuple[list[int], list[int]]] = {}
    out = []
    for a, b in pairs:
        seq_b, _ = cache.get(b)
        _, all_a = cache.get(a)
        text = store.text(b)
        if b not in offsets:
            offsets.clear()  # pairs come sorted by container: keep one
            offsets[b] = word_offsets(text)
        out.append(locate(seq_b, all_a, text, params.k, store.document(b)["page_offsets"],
                          offsets=offsets[b]))
    return out


_WORK: dict[str, Callable[[Store, Params, list[tuple[int, int]]], list[Any]]] = {
    "exact": _exact_of, "spans": locate_pairs,
}


def _worker(args: tuple[str, Params, str, list[tuple[int, int]]]) -> list[Any]:
    db, params, kind, pairs = args
    with Store(db, create=False) as store:
        return _WORK[kind](store, params, pairs)


PARALLEL_MIN_PAIRS = 2_000  # below this, starting worker processes costs more than it saves


def _per_container(
    store: Store, params: Params, kind: str, pairs: list[tuple[int, int]], pool: ProcessPoolExecutor | None,
) -> list[Any]:
    """``_WORK[kind]`` over (contained, container) pairs sorted by container, in pair order.

    Re-shingling the documents of candidate pairs is an index build's worth of work on a corpus
    of filings; with a pool, each process takes whole containers, so each is shingled once.
    """
    if pool is None or len(pairs) < 2:
        return _WORK[kind](store, params, pairs)
    groups: list[list[int]] = []  # positions in ``pairs``, one list per container
    for i, pair in enumerate(pairs):
        if groups and pairs[groups[-1][-1]][1] == pair[1]:
            groups[-1].append(i)
        else:
            groups.append([i])
    chunks: list[list[int]] = [[] for _ in range(min(len(groups), 8))]
    for n, g in enumerate(groups):
        chunks[n % len(chunks)].extend(g)
    out: list[Any] = [None] * len(pairs)
    results = pool.map(_worker, [(str(store.path), params, kind, [pairs[i] for i in c]) for c in chunks])
    for c, r in zip(chunks, results, strict=True):
        for i, x in zip(c, r, strict=True):
            out[i] = x
    return out


def run_audit(
    store: Store,
    threshold: float = 0.8,
    *,
    only: set[int] | None = None,
    workers: int = 0,
) -> AuditResult:
    """Score every document against every other; see the module docstring.

    :param only: keep only pairs where the contained or the container document is in this set
        (a new batch against the corpus and itself); a document in it that duplicates another
        is represented by the first of its group, as everywhere in the audit.
    :param workers: processes for exact verification of large audits (0: one per core).
    """
    params = store.params
    if only is not None:  # a duplicate takes part through the first document of its group
        only = set(only) | {r[0] for r in store.conn.execute(
            "SELECT DISTINCT duplicate_of FROM documents WHERE duplicate_of IS NOT NULL AND id IN"
            f" ({','.join('?' * len(only))})", sorted(only))} if only else set()
    index = SampledIndex.load(store)
    pos_of = {int(d): i for i, d in enumerate(index.doc_ids)}
    only_pos = None if only is None else np.array(sorted(pos_of[d] for d in only if d in pos_of), dtype=np.int64)
    pairs: list[Pair] = []
    scores: list[float] = []
    n_candidates = 0
    for i in range(len(index.doc_ids)):
        cands, hits = index.candidates(i, threshold)
        if only_pos is not None and int(index.doc_ids[i]) not in only:
            keep = np.isin(cands, only_pos)
            cands, hits = cands[keep], hits[keep]
        n = int(index.n[i])
        n_candidates += len(cands)
        for c, h in zip(cands.tolist(), hits.tolist(), strict=True):
            est = Estimate.of(h, n)
            if est.needs_exact(threshold):
                pairs.append(Pair(int(index.doc_ids[i]), int(index.doc_ids[c]), est))
            else:
                scores.append(est.estimate)

    pairs.sort(key=lambda p: (p.container, p.contained))
    n_workers = workers or min(2, os.cpu_count() or 1)
    parallel = n_workers > 1 and len(pairs) >= PARALLEL_MIN_PAIRS
    with (ProcessPoolExecutor(max_workers=n_workers, mp_context=get_context("spawn")) if parallel
          else nullcontext()) as pool:
        exact = _per_container(store, params, "exact", [(p.contained, p.container) for p in pairs], pool)
        verified, below = [], []
        for p, x in zip(pairs, exact, strict=True):
            p.exact = x
            scores.append(x)
            (verified if x >= threshold else below).append(p)
        clusters, findings = fold_clusters(verified)
        spans = _per_container(store, params, "spans", [(p.contained, p.container) for p in findings], pool)
        for p, sp in zip(findings, spans, strict=True):
            p.spans = sp
    findings.sort(key=lambda p: (p.contained, p.container))
    below.sort(key=lambda p: (p.contained, p.container))
    na = not_auditable(store, params)
    if only is not None:
        na = [x for x in na if x["doc_id"] in only]
    return AuditResult(
        params=params, threshold=threshold, findings=findings, verified_below=below,
        not_auditable=na, duplicate_groups=duplicate_groups(store), clusters=clusters,
        documents=len(index.doc_ids), candidates=n_candidates, scores=sorted(scores),
    )


def describe(store: Store, doc_id: int) -> dict[str, Any]:
    """Provenance of a document as reports show it (first sighting, EDGAR submission and part)."""
    d = store.document(doc_id)
    out: dict[str, Any] = {
        "doc_id": doc_id, "path": d["path"], "sha256": d["sha256"], "format": d["format"],
        "extractor": f"{d['extractor']} {d['extractor_version']}", "encoding": d["encoding"],
        "size": d["size"], "n_words": d["n_words"], "n_pages": d["n_pages"],
        "batch": store.scalar("SELECT name FROM batches WHERE id = ?", (d["batch_id"],)),
        "also_seen_at": [r[0] + (f"#{r[1]}" if r[1] else "") for r in store.conn.execute(
            "SELECT path, part FROM sightings WHERE doc_id = ? ORDER BY id LIMIT -1 OFFSET 1", (doc_id,))],
    }
    if d["parent_id"]:
        parent = store.document(d["parent_id"])
        out["edgar"] = {
            "submission": {k: parent["meta"].get(k) for k in
                           ("accession_number", "form_type", "filing_date", "company_name", "cik")},
            "submission_path": parent["path"],
            "part": {k: d["meta"].get(k) for k in ("type", "sequence", "filename", "description")},
        }
    return out

