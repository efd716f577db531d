"""What a document is made of: a greedy cover of its shingles by stored documents (``gather``).

Containment answers "is A inside B?"; gather answers the question the other way round: which
stored documents explain the shingles of this one, and how much of it is found nowhere else.
Like sourmash's ``gather`` for genomes it is a greedy minimum cover: repeatedly take the stored
document that explains the most shingles not yet explained, until what the best remaining one
would explain is below a floor (``FLOOR``: 1% of the query and 25 shingles). Every shingle is
counted once, by the first component that explains it, so the components' ``covered`` counts
and the ``novel`` count add up to the query's shingles exactly (fractions derive from them).

Two rules make the cover say what a reader means by "made of":

- **Parts first.** A stored document the query contains at the threshold (a contract embedded
  in a filing, an exhibit quoted whole) is a *part* of it, and parts are taken before documents
  that merely *overlap* it (another filing quoting the same contract). Without this, a filing
  that shares the contract and a few stray phrases explains a few more shingles than the
  contract and is named in its place.
- **Ties** go to the smaller document, then the lower id; documents with the same normalised
  text are one component (the first of the group, which lists the others). Withdrawn documents
  are never components, nor is the query itself; a copy of it stored elsewhere is, whole.

Candidates come from the sampled index (documents sharing sampled shingles with the query),
ranked by their estimate (the sampled shingles they share that are not yet explained); each is
measured exactly, over all its shingles, only when its estimate reaches the top, and what a
component explains is counted exactly. So the sample decides which documents are measured, as
in the audit, and recall at the margin is statistical: a component must share sampled shingles
not yet explained, and among documents sharing a few percent of boilerplate with the query the
one named may differ from what measuring every candidate would give. A query of at most
``SHORT_SHINGLES`` shingles is searched exactly in every stored text instead (its dozen sampled
shingles cannot speak for it), as ``auditor query`` does; the short queries of one call share
that pass over the texts.

:func:`greedy_cover` is the pure part (integer positions in the query's shingles, no I/O);
:func:`gather_text` and :func:`gather_document` are the store-facing part.
"""

from __future__ import annotations

import heapq
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from auditor.engine.pairs import Span
from auditor.engine.short import SHORT_SHINGLES
from auditor.engine.verify import locate, member, one_pass
from auditor.index.sampled import SampledIndex, ShingleCache
from auditor.store.db import Store
from auditor.text.normalize import word_offsets
from auditor.text.score import Z95, wilson
from auditor.text.shingle import distinct, text_shingles

FLOOR_SHARE, FLOOR_SHINGLES = 0.01, 25
FLOOR = {"share": FLOOR_SHARE, "shingles": FLOOR_SHINGLES}  # recorded with every cover


def floor_of(n: int, share: float = FLOOR_SHARE, shingles: int = FLOOR_SHINGLES) -> int:
    """Fewest shingles a component must explain: ``share`` of the query and ``shingles``; for a
    text shorter than twice ``shingles``, half of it (so a short clause still has a cover, and
    a few stray shared phrases are never one)."""
    return max(1, math.ceil(share * n), min(int(shingles), math.ceil(n / 2)))


# -- the cover, pure --------------------------------------------------------------------------

@dataclass
class Candidate:
    """A stored document that may explain some of the query's ``n`` shingles.

    ``held``: sorted positions (into the query's sorted distinct shingles) of the shingles it
    holds, when measured exactly; None until then. ``sampled_held``: positions of the query's
    *sampled* shingles it holds (from the sampled index), which bound what it can explain
    before it is measured. ``size`` and ``sampled_size``: its own shingles and sampled shingles.
    """

    key: int
    size: int
    held: np.ndarray | None = None
    sampled_held: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    sampled_size: int = 0


@dataclass
class Step:
    """One component of a cover: ``explained`` are the positions it explains first."""

    key: int
    explained: np.ndarray
    held: int  # query shingles it holds in all, explained first by it or not
    size: int
    part: bool  # the query contains it at the threshold


@dataclass
class CoverStats:
    candidates: int = 0
    measured: int = 0  # candidates measured exactly


def greedy_cover(
    n: int,
    candidates: Iterable[Candidate],
    floor: int,
    *,
    part_at: float = 0.8,
    n_sampled: int = 0,
    measure: Callable[[int], tuple[np.ndarray, int]] | None = None,
    z: float = Z95,
    stats: CoverStats | None = None,
) -> list[Step]:
    """The greedy cover of ``n`` query shingles (positions ``0..n-1``) by ``candidates``.

    Each step takes the candidate that is a part of the query (``held / size >= part_at``)
    before any that is not, then the one explaining the most shingles not yet explained, then
    the smallest, then the lowest key; it stops when no candidate explains ``floor`` more.

    A candidate without ``held`` is ranked by its estimate, ``n * r // n_sampled`` with ``r`` its
    sampled shingles not yet explained, and stays a candidate while that reaches the floor. It
    is measured by ``measure(key) -> (held, size)`` when it reaches the top, and a measured
    candidate is taken when its exact gain is still the best: lazy greedy, since what a
    candidate can explain only shrinks as the cover grows. So the cover measures only what the
    sample says could come next, and what it takes is counted exactly; but among documents
    sharing a few percent of the query, which one the sample puts first may differ from what
    measuring all of them would (sampling noise), and one explaining little more than the
    floor may be missed, as a sketch-based gather misses it.
    """
    stats = stats if stats is not None else CoverStats()
    remaining = np.ones(n, bool)
    by_key: dict[int, Candidate] = {}
    heap: list[tuple[int, int, int, int]] = []

    def is_part(c: Candidate) -> bool:
        if c.held is not None:
            return c.size > 0 and len(c.held) / c.size >= part_at
        if c.sampled_size <= 0:
            return True
        return wilson(min(len(c.sampled_held), c.sampled_size), c.sampled_size, z)[1] >= part_at

    def rank(c: Candidate) -> int | None:
        """The exact gain, or the estimate of an unmeasured candidate's; None below the floor."""
        if c.held is not None:
            gain = int(np.count_nonzero(remaining[c.held]))
            return gain if gain >= floor else None
        r = int(np.count_nonzero(remaining[c.sampled_held]))
        if r == 0 or n_sampled <= 0:
            return None
        estimate = n * r // n_sampled
        return estimate if estimate >= floor else None

    def push(c: Candidate, gain: int | None) -> None:
        if gain is not None:
            heapq.heappush(heap, (0 if is_part(c) else 1, -gain, c.size, c.key))

    for c in candidates:
        by_key[c.key] = c
        stats.candidates += 1
        push(c, rank(c))
    steps: list[Step] = []
    while heap:
        tier, neg, _, key = heapq.heappop(heap)
        c = by_key[key]
        gain = rank(c)
        if gain is None:
            continue  # it can no longer explain the floor
        if gain < -neg:
            push(c, gain)  # it fell since it was ranked
            continue
        if c.held is None:
            if measure is None:
                raise ValueError(f"candidate {key} is not measured and no measure was given")
            held, c.size = measure(key)
            c.held = np.asarray(held, np.int64)
            stats.measured += 1
            push(c, rank(c))
            continue
        explained = c.held[remaining[c.held]]
        remaining[explained] = False
        steps.append(Step(key, explained, len(c.held), c.size, tier == 0))
    return steps


# -- the store-facing part -------------------------------------------------------------------

@dataclass
class Component:
    doc_id: int
    covered: int  # query shingles it explains first
    shared: int  # query shingles it holds in all
    shingles: int  # its own distinct shingles
    part: bool  # the query contains it at the threshold
    spans: list[Span]  # where the shingles it explains lie in the query (character offsets)
    duplicates: list[int] = field(default_factory=list)  # same normalised text: the same component

    @property
    def containment(self) -> float:
        """Share of the component found in the query."""
        return self.shared / self.shingles if self.shingles else 0.0


@dataclass
class Gathered:
    """The cover of one query: its components in the order taken, and what they leave."""

    n_words: int
    shingles: int
    sampled: int
    components: list[Component]
    floor: int
    threshold: float
    search: str  # "sampled" (candidates from the index) or "exhaustive" (every stored text)
    candidates: int = 0
    measured: int = 0
    note: str | None = None

    @property
    def novel_shingles(self) -> int:
        return self.shingles - sum(c.covered for c in self.components)

    @property
    def novel(self) -> float | None:
        """Share of the query explained by no component (None for a text without a shingle)."""
        return self.novel_shingles / self.shingles if self.shingles else None

    def covered(self, c: Component) -> float:
        return c.covered / self.shingles if self.shingles else 0.0

    def as_dict(self) -> dict[str, Any]:
        """Integer counts and the fractions derived from them (``novel`` + the ``covered`` = 1)."""
        return {
            "words": self.n_words, "shingles": self.shingles, "sampled": self.sampled,
            "novel": self.novel, "novel_shingles": self.novel_shingles,
            "floor": {**FLOOR, "applied": self.floor}, "threshold": self.threshold,
            "search": self.search, "candidates": self.candidates, "measured": self.measured,
            "note": self.note,
            "components": [{
                "doc_id": c.doc_id, "covered": self.covered(c), "covered_shingles": c.covered,
                "shared": c.shared, "shingles": c.shingles, "containment": c.containment,
                "part": c.part, "duplicates": c.duplicates, "spans": [s.as_dict() for s in c.spans],
            } for c in self.components],
        }


def load_index(store: Store, within: Sequence[int] | None = None) -> SampledIndex:
    """The sampled index gather draws candidates from: the first of each duplicate group that is
    not withdrawn, of the whole store or of ``within`` (an audit's representatives)."""
    if within is None:
        return SampledIndex.load(store, representatives_only=True)
    return SampledIndex.load(store, ids=sorted(set(within)))


def same_text(store: Store, doc_id: int) -> list[int]:
    """``doc_id`` and every other document with the same normalised text, withdrawn or not."""
    row = store.conn.execute("SELECT norm_sha256 FROM documents WHERE id = ?", (doc_id,)).fetchone()
    if not row or not row[0]:
        return [doc_id]
    return sorted({doc_id} | {int(r[0]) for r in store.conn.execute(
        "SELECT id FROM documents WHERE norm_sha256 = ?", (row[0],))})


@dataclass
class Query:
    """A text to gather: its shingles (in order, and sorted distinct), and what may not or need not
    be drawn from the index: the query itself when stored (``exclude``), its stored copies
    (``twins``: the index holds the first of each duplicate group, so when that is the query the
    next copy stands in for it), and the documents that may be components (``scope``)."""

    seq: np.ndarray
    every: np.ndarray
    text: str
    n_words: int
    exclude: set[int] = field(default_factory=set)
    twins: list[int] = field(default_factory=list)
    scope: set[int] | None = None
    page_offsets: list[int] | None = None

    @property
    def short(self) -> bool:
        return 0 < len(self.every) <= SHORT_SHINGLES


def document_query(store: Store, doc_id: int, cache: ShingleCache, within: Sequence[int] | None = None) -> Query:
    seq, every = cache.get(doc_id, keep=False)
    d = store.document(doc_id)
    scope = None if within is None else set(within)
    twins = [t for t in same_text(store, doc_id) if t != doc_id and not _withdrawn(store, t)
             and (scope is None or t in scope)]
    return Query(seq, every, store.text(doc_id), int(d["n_words"] or 0), {doc_id}, twins, scope, d["page_offsets"])


def text_query(store: Store, text: str, page_offsets: list[int] | None = None) -> Query:
    params = store.params
    n_words, seq = text_shingles(text, params)
    return Query(seq, distinct(seq), text, n_words, page_offsets=page_offsets)


def gather_document(store: Store, doc_id: int, *, threshold: float = 0.8, index: SampledIndex | None = None,
                    cache: ShingleCache | None = None, within: Sequence[int] | None = None) -> Gathered:
    """The cover of a stored document. It is never its own component; a copy of it (the same
    normalised text, stored elsewhere) is, whole, and says so by its ``covered`` of 1.

    ``within``: the documents that may be components (an audit's universe), else every stored
    one; ``index`` must then be ``load_index(store, <their representatives>)``.
    """
    cache = cache or ShingleCache(store, store.params)
    return gather_many(store, [document_query(store, doc_id, cache, within)], threshold=threshold, index=index,
                       cache=cache)[0]


def gather_text(store: Store, text: str, *, threshold: float = 0.8, index: SampledIndex | None = None,
                cache: ShingleCache | None = None, page_offsets: list[int] | None = None) -> Gathered:
    """The cover of a text that is not stored (a file read as ``query`` reads it)."""
    return gather_many(store, [text_query(store, text, page_offsets)], threshold=threshold, index=index,
                       cache=cache)[0]


def gather_many(store: Store, queries: Sequence[Query], *, threshold: float = 0.8,
                index: SampledIndex | None = None, cache: ShingleCache | None = None) -> list[Gathered]:
    """The cover of each query. The short ones are searched exactly in one pass over the stored
    texts together (a filing's certifications cost one pass, not one each)."""
    index = index if index is not None else load_index(store)
    cache = cache or ShingleCache(store, store.params)
    held = _exhaustive(store, index, [q for q in queries if needs_exhaustive(store, q)])
    return [_gather(store, q, threshold=threshold, index=index, cache=cache, held=held.get(id(q))) for q in queries]


def needs_exhaustive(store: Store, q: Query) -> bool:
    """A query the sampled index cannot search (short, or with no sampled shingle): it is searched
    exactly in every stored text."""
    return q.short or bool(len(q.every) and not _sampled_of(store, q).size)


def _sampled_of(store: Store, q: Query) -> np.ndarray:
    return np.flatnonzero(q.every % np.uint64(store.params.modulus) == 0)


def _gather(store: Store, q: Query, *, threshold: float, index: SampledIndex, cache: ShingleCache,
            held: dict[int, np.ndarray] | None) -> Gathered:
    """``held``: for a query searched exhaustively, each document -> positions of the query's
    shingles it holds; else candidates come from ``index``."""
    params = store.params
    every = q.every
    n = len(every)
    sampled_pos = _sampled_of(store, q)
    floor = floor_of(n)
    if n == 0:
        return Gathered(q.n_words, 0, 0, [], floor, threshold, "exhaustive",
                        note=f"fewer than k={params.k} words: no shingle, nothing to gather")
    keep = ~np.isin(index.doc_ids, sorted(q.exclude)) if q.exclude else np.ones(len(index.doc_ids), bool)
    stand_in = []
    if q.twins and not np.isin(index.doc_ids[keep], q.twins).any():
        stand_in = [Candidate(q.twins[0], n, np.arange(n, dtype=np.int64))]
    stats = CoverStats()
    note = None
    if held is not None:
        search = "exhaustive"
        allowed = set(index.doc_ids[keep].tolist())
        size = dict(zip(index.doc_ids.tolist(), index.shingles.tolist(), strict=True))
        candidates = [Candidate(d, int(size[d]), h) for d, h in sorted(held.items()) if d in allowed] + stand_in
        note = f"short text ({n} shingles): searched exactly in every stored text"
        steps = greedy_cover(n, candidates, floor, part_at=threshold, stats=stats)
    else:
        search = "sampled"
        candidates = _sampled(index, keep, every, sampled_pos) + stand_in

        def measure(doc_id: int) -> tuple[np.ndarray, int]:
            _, theirs = cache.get(doc_id, keep=False)
            return np.flatnonzero(member(every, theirs)), len(theirs)

        steps = greedy_cover(n, candidates, floor, part_at=threshold, n_sampled=len(sampled_pos),
                             measure=measure, stats=stats)
    components = []
    offsets = word_offsets(q.text) if steps else None  # once for every component's spans
    for s in steps:
        spans = locate(q.seq, every[s.explained], q.text, params.k, q.page_offsets, offsets=offsets)
        dups = [d for d in same_text(store, s.key) if d != s.key and d not in q.exclude
                and (q.scope is None or d in q.scope) and not _withdrawn(store, d)]
        components.append(Component(s.key, len(s.explained), s.held, s.size, s.part, spans, dups))
    return Gathered(q.n_words, n, len(sampled_pos), components, floor, threshold, search,
                    stats.candidates, stats.measured, note)


def _withdrawn(store: Store, doc_id: int) -> bool:
    return bool(store.scalar("SELECT withdrawn_at IS NOT NULL FROM documents WHERE id = ?", (doc_id,)))


def _sampled(index: SampledIndex, keep: np.ndarray, every: np.ndarray, sampled_pos: np.ndarray) -> list[Candidate]:
    """Every indexed document sharing a sampled shingle with the query, with the positions of
    the query's sampled shingles it holds (read from the posting lists they touch)."""
    if not len(index.uniq):
        return []
    hashes = every[sampled_pos]
    at = np.minimum(np.searchsorted(index.uniq, hashes), len(index.uniq) - 1)
    known = index.uniq[at] == hashes
    sids, qpos = at[known], sampled_pos[known]
    lens = index.df[sids].astype(np.int64)
    starts = index.post_ptr[sids]
    total = int(lens.sum())
    offs = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens) + np.arange(total)
    doc_pos = index.post_doc[offs].astype(np.int64)
    q = np.repeat(qpos, lens)
    mask = keep[doc_pos]
    doc_pos, q = doc_pos[mask], q[mask]
    order = np.lexsort((q, doc_pos))
    doc_pos, q = doc_pos[order], q[order]
    edges = np.concatenate(([0], np.flatnonzero(np.diff(doc_pos)) + 1, [len(doc_pos)]))
    out = []
    for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True):
        if b > a:
            i = int(doc_pos[a])
            out.append(Candidate(int(index.doc_ids[i]), int(index.shingles[i]), None, q[a:b],
                                 int(index.total[i])))
    return out


def _exhaustive(store: Store, index: SampledIndex, queries: Sequence[Query]) -> dict[int, dict[int, np.ndarray]]:
    """For each query (by ``id``): every indexed document -> the positions of the query's shingles
    it holds, exactly, from one pass over the stored texts (the audit's pass for its short
    documents) for all the queries at once."""
    if not queries:
        return {}
    vocab = distinct(np.concatenate([q.every for q in queries]))
    none = np.empty(0, np.int64)
    _, _, owner, number = one_pass(store, store.params, index.doc_ids.tolist(), vocab, none, none)
    order = np.lexsort((number, owner))
    owner, number = owner[order], number[order]
    edges = np.concatenate(([0], np.flatnonzero(np.diff(owner)) + 1, [len(owner)]))
    out: dict[int, dict[int, np.ndarray]] = {id(q): {} for q in queries}
    for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True):
        if b == a:
            continue
        hashes = vocab[number[a:b]]
        for q in queries:
            at = np.minimum(np.searchsorted(q.every, hashes), len(q.every) - 1)
            pos = at[q.every[at] == hashes]
            if len(pos):
                out[id(q)][int(owner[a])] = pos.astype(np.int64)
    return out


# -- for reports: novelty, and which documents get a composition ----------------------------

COMPOSITIONS = 20  # containers a report shows the composition of (a cover each)


def sampled_novelty(index: SampledIndex) -> dict[int, tuple[int, int]]:
    """Each indexed document -> (its sampled shingles held by no other indexed document, its
    sampled shingles): the novel share's estimate, ``novel / sampled``, unbiased as every sampled
    estimate here is. Exact duplicates count once when the index holds one of each group."""
    if not len(index.doc_ids):
        return {}
    owner = np.repeat(np.arange(len(index.doc_ids), dtype=np.int64), index.n)
    alone = index.df[index.keys - owner * index.U] == 1
    novel = np.bincount(owner[alone], minlength=len(index.doc_ids))
    return {int(d): (int(k), int(n)) for d, k, n in zip(index.doc_ids.tolist(), novel.tolist(), index.n.tolist(),
                                                         strict=True)}


def composition_targets(contained: Iterable[Any], limit: int = COMPOSITIONS) -> list[int]:
    """The documents whose composition a report shows: those containing the most documents
    (``AuditResult.contained``: outside their families, boilerplate not counted, which would make
    every filing a target), then the lowest id."""
    counts: dict[int, int] = {}
    for c in contained:
        if not c.boilerplate:
            for b in c.containers.tolist():
                counts[int(b)] = counts.get(int(b), 0) + 1
    return [d for d, _ in sorted(counts.items(), key=lambda x: (-x[1], x[0]))[:limit]]


# -- for assembled corpora: novelty among the kept documents, and dropping what has too little --

def novelty_among(store: Store, kept: Iterable[int], of: Iterable[int]) -> dict[int, tuple[int, int]]:
    """Each document of ``of`` -> (its sampled shingles held by no document of ``kept`` other than
    itself, its sampled shingles): its novel share among the kept documents, estimated from the
    sampled index (documents without an index entry are left out)."""
    kept, of = sorted(set(kept)), sorted(set(of))
    blobs = dict(store.select_in("SELECT doc_id, sampled FROM index_docs WHERE doc_id IN ({})", sorted(set(kept) | set(of))))
    held = [np.frombuffer(blobs[d], np.uint64) for d in kept if d in blobs]
    flat = np.sort(np.concatenate(held)) if held else np.empty(0, np.uint64)
    first = np.concatenate(([True], flat[1:] != flat[:-1])) if len(flat) else np.zeros(0, bool)
    uniq = flat[first]
    counts = np.diff(np.concatenate((np.flatnonzero(first), [len(flat)])))
    is_kept = set(kept)
    out = {}
    for d in of:
        if d not in blobs:
            continue
        mine = np.frombuffer(blobs[d], np.uint64)
        if len(uniq):
            at = np.minimum(np.searchsorted(uniq, mine), len(uniq) - 1)
            others = np.where(uniq[at] == mine, counts[at], 0) - (1 if d in is_kept else 0)
        else:
            others = np.zeros(len(mine), np.int64)
        out[d] = (int(np.count_nonzero(others <= 0)), len(mine))
    return out


def drop_low_novelty(store: Store, kept: Sequence[int], eligible: Sequence[int], min_novel: float, *,
                     threshold: float = 0.8) -> list[tuple[int, Gathered]]:
    """The ``eligible`` kept documents whose novel share among the other kept documents is below
    ``min_novel``, with the cover that shows it, in the order they are dropped.

    Each is measured exactly (``gather``, its cover by the kept documents) only when its sampled
    estimate's interval reaches below ``min_novel``. They are taken lowest estimate first (then
    the highest id, the latest ingested); a document dropped is no component of a later cover,
    and a document that is a component of an earlier one is not dropped, so every cover names
    only documents that stay kept, and two documents holding the same text are never both
    dropped for it.
    """
    from auditor.text.score import Estimate

    estimates = novelty_among(store, kept, eligible)
    order = [(Estimate.of(*estimates[d]), d) for d in eligible if d in estimates]
    todo = [d for e, d in sorted(order, key=lambda x: (x[0].estimate, -x[1])) if e.low < min_novel]
    if not todo:
        return []
    index = load_index(store, kept)
    cache = ShingleCache(store, store.params)
    covers = dict(zip(todo, gather_many(store, [document_query(store, d, cache, kept) for d in todo],
                                        threshold=threshold, index=index, cache=cache), strict=True))
    dropped: list[tuple[int, Gathered]] = []
    gone: set[int] = set()
    protected: set[int] = set()
    for d in todo:
        if d in protected:
            continue
        g = covers[d]
        if any(c.doc_id in gone for c in g.components):  # measured with a document dropped since
            q = document_query(store, d, cache, [k for k in kept if k not in gone])
            q.exclude |= gone
            g = gather_many(store, [q], threshold=threshold, index=index, cache=cache)[0]
        if g.novel is None or g.novel >= min_novel or not g.components:
            continue
        dropped.append((d, g))
        gone.add(d)
        protected.update(c.doc_id for c in g.components)
    return dropped


# -- files and references --------------------------------------------------------------------

@dataclass
class GatherQuery:
    """One query of ``auditor gather``: a stored document (``doc_id``) or a file or EDGAR part
    read without storing it (``name``), its cover, or why there is none."""

    name: str
    doc_id: int | None = None
    result: Gathered | None = None
    error: tuple[str, str] | None = None
    skipped: str | None = None
    warnings: list[str] = field(default_factory=list)


def stored_parts(store: Store, doc_id: int) -> list[tuple[str, int]]:
    """``(PATH#SEQUENCE, id)`` of the parts of an EDGAR submission, in sequence order."""
    rows = store.conn.execute(
        "SELECT s.path, s.part, s.doc_id FROM sightings s JOIN documents d ON d.id = s.doc_id"
        " WHERE s.within_id = ? AND s.part != '' GROUP BY s.doc_id, s.part ORDER BY min(s.id)", (doc_id,)).fetchall()
    seen: dict[int, str] = {}
    for path, part, d in rows:
        seen.setdefault(int(d), f"{path}#{part}")
    return sorted(((name, d) for d, name in seen.items()), key=lambda x: _sequence(x[0]))


def _sequence(name: str) -> tuple[int, str]:
    part = name.rsplit("#", 1)[-1]
    return (int(part), "") if part.isdigit() else (1 << 30, part)


def gather(store: Store, refs: Sequence[str | os.PathLike], *, threshold: float = 0.8,
           limits: Any = None) -> list[GatherQuery]:
    """The cover of each reference: a stored document (id, sha256 prefix, path or
    ``PATH#SEQUENCE``; a stored EDGAR submission is answered part by part), else a file, read
    as ``query`` reads it (in a sandbox child, an EDGAR submission part by part) and not
    stored. A reference that is neither is an error for it alone; the others are answered."""
    from auditor.engine.query import read_files
    from auditor.errors import NoDocument

    index = load_index(store)
    cache = ShingleCache(store, store.params)
    out: list[GatherQuery] = []
    queries: list[tuple[GatherQuery, Query]] = []
    for ref in refs:
        name = os.fspath(ref)
        try:
            doc_id = store.resolve(name)
        except NoDocument as e:
            if not os.path.isfile(name):
                out.append(GatherQuery(name, error=("no_document", f"{e}, and no such file")))
                continue
            for ft in read_files([name], store.params, limits):
                out.append(GatherQuery(ft.name, error=ft.error, skipped=ft.skipped, warnings=ft.warnings))
                if ft.doc is not None:
                    queries.append((out[-1], text_query(store, ft.doc["text"], ft.doc.get("page_offsets"))))
            continue
        parts = stored_parts(store, doc_id)
        has_text = bool(store.scalar("SELECT n_words FROM documents WHERE id = ?", (doc_id,)))
        for shown, d in ([(name, doc_id)] if has_text or not parts else parts):
            out.append(GatherQuery(shown, d))
            queries.append((out[-1], document_query(store, d, cache)))
    for (gq, _), result in zip(queries, gather_many(store, [q for _, q in queries], threshold=threshold,
                                                    index=index, cache=cache), strict=True):
        gq.result = result
    return out
