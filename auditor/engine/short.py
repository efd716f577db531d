"""Short documents (at most ``SHORT_SHINGLES`` shingles, about 16 sampled) are searched
exhaustively: every document is checked for all of their shingles, during the verification
pass, so sampling never decides whether a short notice is found."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.engine.pairs import Pairs
from auditor.index.builder import Sequences
from auditor.index.sampled import SampledIndex
from auditor.text.shingle import Params, distinct, sample

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
        if only is not None and a not in only:  # a corpus document: only the batch may contain it
            cands, hits = full.candidates_among(position[a], threshold, only_pos, exact=True)
        else:
            cands, hits = full.candidates(position[a], threshold, exact=True)
        if not len(cands):
            continue
        candidates += len(cands)
        sampled = np.searchsorted(short.vocab, sample(short.sets[a], params.modulus)).astype(np.uint64)
        m = len(cands)
        out.append(Pairs(np.full(m, a), doc_ids[cands], full.holds(cands, sampled), np.full(m, len(sampled)),
                         hits, np.full(m, len(short.sets[a]))))
    return Pairs.concat(out), candidates
