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

The steps have modules of their own: the universe (:mod:`.universe`), the index in memory
(:mod:`auditor.index.sampled`), exact verification and location (:mod:`.verify`), the exhaustive
search of short documents (:mod:`.short`), families (:mod:`.families`) and the values they pass
on (:mod:`.pairs`). This module generates the candidates, groups the verdicts and runs the whole
(:func:`run_audit`; :func:`finish` is shared with the Spark engine). Reports name documents with
:mod:`.describe`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

import numpy as np

from auditor.engine.families import families_of, mutual_mask
from auditor.engine.pairs import Contained, Family, Pair, Pairs, Span
from auditor.engine.short import SHORT_SHINGLES, exhaustive_pairs, short_documents
from auditor.engine.universe import Universe, not_auditable, universe
from auditor.engine.verify import PARALLEL_MIN_PAIRS, locate_best, verify_and_scan
from auditor.index.sampled import SampledIndex
from auditor.store.db import Store
from auditor.text.components import components
from auditor.text.score import min_hits, needs_exact
from auditor.text.shingle import Params

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


@dataclass
class AuditResult:
    params: Params
    threshold: float
    containing: Pairs  # every pair at or above the threshold, sorted by (contained, container)
    # by contained document id; family-internal pairs excluded (a sequence: Spark's is on disk,
    # ``spark_finish.ContainedOnDisk``, read in order)
    contained: Sequence[Contained]
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
    # a batch audit: every posting of the hashes its documents hold (``SampledIndex.touching``),
    # which is all a gate's report needs of the index (novelty and compositions of the batch)
    batch_index: SampledIndex | None = None
    # a corpus audit whose engine counted novelty itself (Spark, on the executors):
    # ``gather.sampled_novelty`` of the representatives, so the report need not load the index
    # (a mapping: Spark's is on disk, ``spark_finish.RowsOnDisk``)
    novelty: Mapping[int, tuple[int, int]] | None = None

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
    for p, spans in zip(best, locate_best(store, params, [(p.contained, p.container) for p in best], pool, size),
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
        from auditor.sandbox.lifetime import die_with_parent

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
    touched = index if only is not None else None  # small: the postings of the batch's hashes
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
                                                  walk=walk, known=short.sets)
        found, n_short = exhaustive_pairs(short, docs, owner, number, params, threshold, only)
        result = finish(store, params, threshold, Pairs.concat([verified, found]), unverified=unverified,
                        candidates=n_candidates + n_short, scope=scope, only=only,
                        documents=len(docs), pool=pool)
    result.batch_index = touched
    return result
