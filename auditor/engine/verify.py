"""Exact verification and location: every candidate pair's shared shingles counted over all
shingles (one pass over the stored word sequences, split between processes by size), and
where each contained document lies in its container, as character spans and pages."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from auditor.engine.pairs import Pairs, Span
from auditor.index.builder import Sequences
from auditor.index.sampled import ShingleCache, ranges
from auditor.store.db import Store
from auditor.text.normalize import word_offsets
from auditor.text.shingle import HashSet, Params, distinct

SPAN_GAP_WORDS = 24  # matches closer than this merge (page furniture, a changed word)


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
            hit = self.mark[self.numbers[ranges(self.starts[p[a:z]], lens)]]
            cum = np.concatenate(([0], np.cumsum(hit)))
            ends = np.cumsum(lens)
            shared[rows[a:z]] = cum[ends] - cum[ends - lens]
            a = z
        self.mark[b_ids] = False


def one_pass(store: Any, params: Params, docs: list[int], vocab: np.ndarray, contained: np.ndarray,
             container: np.ndarray, known: dict[int, np.ndarray] | None = None,
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Shingle each document once, for two things at a time: which of ``vocab`` (the shingles of
    the short documents) it holds, for the exhaustive search; and, when it is the container of
    pairs (sorted by container), the exact counts of those pairs.

    Returns ``(shared, shingles)`` aligned with the pairs, and ``(owner, number)``: each held
    shingle of ``vocab`` by document id and vocabulary number. ``docs`` are walked when ``vocab``
    is not empty; otherwise only the containers. Contained documents beyond ``SHINGLE_BUDGET``
    shingles are counted in further passes over the containers. ``known``: shingle sets already
    read (the short documents'), not read again.
    """
    words = Sequences(store, params)
    known = known or {}

    def shingled(ids: list[int]) -> Iterator[tuple[int, np.ndarray]]:
        yield from ((doc_id, known[doc_id]) for doc_id in ids if doc_id in known)
        for doc_id, w in words.of([d for d in ids if d not in known]):
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
        rest = [d for d in walk if d not in sets]
        if k == 0:  # known sets of documents holding no pair: their holdings in one membership test
            plain = [d for d in rest if d in known and d not in containers]
            _holdings_many(plain, known, short, owners, numbers)
            rest = [d for d in rest if not (d in known and d not in containers)]
        for doc_id, every in shingled(rest):
            _holdings(doc_id, every, short if k == 0 else none, owners, numbers)
            counter.count(doc_id, every, shared)
    owner = np.concatenate(owners) if owners else np.empty(0, np.int64)
    number = np.concatenate(numbers) if numbers else np.empty(0, np.int64)
    return shared, shingles, owner, number


def _holdings_many(ids: list[int], sets: dict[int, np.ndarray], vocab: HashSet, owners: list[np.ndarray],
                   numbers: list[np.ndarray]) -> None:
    """``_holdings`` of each of ``ids`` at once (their shingle sets concatenated)."""
    if not ids or not len(vocab):
        return
    lens = np.fromiter((len(sets[d]) for d in ids), np.int64, count=len(ids))
    where, at = vocab.find(np.concatenate([sets[d] for d in ids]))
    if len(at):
        numbers.append(at.astype(np.int64))
        owners.append(np.repeat(np.array(ids, np.int64), lens)[where])


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
                    walk: list[int] | None = None, known: dict[int, np.ndarray] | None = None,
                    ) -> tuple[Pairs, np.ndarray, np.ndarray]:
    """``one_pass`` over the documents, split between the processes of ``pool`` by size: the
    pairs (sorted by container) with their exact counts, and the short documents' holdings.
    ``walk``: the documents to read (by default every one when there is a short document to
    search for, else the pairs' containers). ``known``: shingle sets already read (in this process).
    """
    pairs = pairs.sort("container", "contained")
    if walk is None:
        walk = docs if len(vocab) else np.unique(pairs.container).tolist()
    if pool is None or sum(sizes.get(d, 0) for d in walk) < PARALLEL_MIN_SHINGLES:
        pairs.shared, pairs.shingles, owner, number = one_pass(store, params, walk, vocab, pairs.contained,
                                                               pairs.container, known)
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


def locate_best(store: Store, params: Params, pairs: list[tuple[int, int]],
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
