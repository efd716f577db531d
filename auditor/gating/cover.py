"""Split copies (``covered-by-batch``, CONTAIN007): a document covered at the threshold by the
union of the batch's new documents, none of which reaches the threshold alone.

A stored contract split over three new documents, each piece padded with new text so that no
pair reaches the threshold either way, passes every pairwise rule; together the pieces still
carry the contract. So for each corpus document the gate measures its cover by the new
documents (``auditor.engine.gather.greedy_cover``: the pieces that explain the most first, each above
the gather floor), and a cover at or above the threshold with no single new document reaching
it is a finding on every piece, naming all of them and their shares. A new document covered
the same way by the *other* new documents (a split within the batch) is one too.

The cost grows with the batch, not the corpus: the new documents are shingled, the corpus
documents that could be covered are those whose sampled shingles the batch's union hits at
least ``min_hits`` times (the audit's candidate rule, read from the posting lists the union
touches), and only those are shingled and measured exactly. As everywhere in the gate, a
corpus document is found through its sampled shingles: one too short to share a sampled
shingle with the batch (a notice of a few dozen words) is not searched here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.engine.audit import AuditResult
from auditor.engine.gather import Candidate, Step, floor_of, greedy_cover
from auditor.engine.universe import universe
from auditor.engine.verify import locate
from auditor.gating.batch import BatchView, corpus_provenance, sighting_provenance
from auditor.gating.classify import EXCERPT_CHARS, Locator
from auditor.gating.findings import Finding, main_span
from auditor.index.sampled import SampledIndex, ShingleCache
from auditor.store.db import Store
from auditor.text.score import min_hits
from auditor.text.shingle import distinct, sample


@dataclass
class Cover:
    """A document covered by new documents: the pieces in the order the cover took them."""

    covered: int  # the covered document (corpus or new)
    shingles: int  # its distinct shingles
    pieces: list[Step]

    @property
    def share(self) -> float:
        return sum(len(s.explained) for s in self.pieces) / self.shingles


class _Union:
    """The new documents' shingles in one sorted vocabulary, with which documents hold each."""

    def __init__(self, sets: dict[int, np.ndarray]) -> None:
        self.ids = sorted(sets)
        self.vocab = distinct(np.concatenate([sets[d] for d in self.ids])) if self.ids else np.empty(0, np.uint64)
        number = np.concatenate([np.searchsorted(self.vocab, sets[d]) for d in self.ids]) if self.ids else \
            np.empty(0, np.int64)
        owner = np.repeat(np.arange(len(self.ids)), [len(sets[d]) for d in self.ids])
        order = np.argsort(number, kind="stable")
        self.holder = owner[order]
        self.ptr = np.concatenate(([0], np.cumsum(np.bincount(number, minlength=len(self.vocab))))).astype(np.int64)
        self.sizes = {d: len(sets[d]) for d in self.ids}

    def holdings(self, every: np.ndarray, without: int | None = None) -> dict[int, np.ndarray]:
        """For a document's sorted shingles: each new document (but ``without``) -> the positions
        of those shingles it holds."""
        if not len(self.vocab) or not len(every):
            return {}
        at = np.minimum(np.searchsorted(self.vocab, every), len(self.vocab) - 1)
        inside = np.flatnonzero(self.vocab[at] == every)
        starts, lens = self.ptr[at[inside]], self.ptr[at[inside] + 1] - self.ptr[at[inside]]
        pos = np.repeat(inside, lens)
        who = self.holder[np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
                          + np.arange(int(lens.sum()))] if len(lens) else np.empty(0, np.int64)
        out: dict[int, np.ndarray] = {}
        order = np.lexsort((pos, who))
        who, pos = who[order], pos[order]
        edges = np.concatenate(([0], np.flatnonzero(np.diff(who)) + 1, [len(who)]))
        for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True):
            if b > a and self.ids[int(who[a])] != without:
                out[self.ids[int(who[a])]] = pos[a:b].astype(np.int64)
        return out


def split_cover(n: int, held: dict[int, np.ndarray], sizes: dict[int, int], threshold: float) -> list[Step] | None:
    """The cover of a document of ``n`` shingles by new documents holding ``held`` of them, when it
    reaches ``threshold`` and no one of them does alone (else None)."""
    if not n or not held or any(len(h) / n >= threshold for h in held.values()):
        return None
    if len(np.unique(np.concatenate(list(held.values())))) / n < threshold:
        return None
    steps = greedy_cover(n, [Candidate(d, sizes[d], h) for d, h in sorted(held.items())], floor_of(n),
                         part_at=threshold)
    return steps if sum(len(s.explained) for s in steps) / n >= threshold else None


def batch_covers(store: Store, view: BatchView, audit: AuditResult) -> tuple[list[Cover], ShingleCache]:
    """Corpus documents, and new documents, covered by (other) new documents as ``split_cover`` says."""
    threshold = audit.threshold
    scope = universe(store, audit.universe)
    reps = scope.representatives
    new = sorted({d for d in reps if d in view.new_ids})
    cache = ShingleCache(store, store.params)
    sets = {d: cache.get(d, keep=False)[1] for d in new}
    sets = {d: s for d, s in sets.items() if len(s)}
    union = _Union(sets)
    covers: list[Cover] = []
    corpus = [d for d in reps if d not in view.new_ids]
    if sets and corpus:
        # the postings of the batch's hashes are all a hit count needs: no sort of the corpus's
        # (the audit's, when it kept them: it read them for the same documents and more)
        if audit.batch_index is not None:
            index = audit.batch_index
            n_sampled = dict(zip(index.doc_ids.tolist(), index.total.tolist(), strict=True))
        else:
            index, _, _, n_sampled = SampledIndex.touching(store, reps, set(new))
        hits = index.hits_of(sample(union.vocab, store.params.modulus))
        for i in np.flatnonzero(hits).tolist():
            doc = int(index.doc_ids[i])
            if doc in view.new_ids or hits[i] < max(1, min_hits(n_sampled[doc], threshold)):
                continue
            every = cache.get(doc, keep=False)[1]
            steps = split_cover(len(every), union.holdings(every), union.sizes, threshold)
            if steps:
                covers.append(Cover(doc, len(every), steps))
    for doc in union.ids:  # a new document split within the batch
        steps = split_cover(union.sizes[doc], union.holdings(sets[doc], without=doc), union.sizes, threshold)
        if steps:
            covers.append(Cover(doc, union.sizes[doc], steps))
    return covers, cache


def covered_by_batch_findings(store: Store, view: BatchView, audit: AuditResult, loc: Locator) -> list[Finding]:
    """A ``covered-by-batch`` finding on every piece of every split copy, naming all the pieces
    and the share of the covered document each explains (``pieces``), shown at the lines of the
    piece that hold the covered text."""
    covers, cache = batch_covers(store, view, audit)
    stands = view.stands_for(store)
    k = store.params.k
    out: list[Finding] = []
    for cover in sorted(covers, key=lambda c: c.covered):
        covered_is_new = cover.covered in view.new_ids
        other = (sighting_provenance(store, view.first_sighting(cover.covered)) if covered_is_new
                 else corpus_provenance(store, cover.covered))
        every = cache.get(cover.covered, keep=False)[1]
        pieces: list[dict[str, Any]] = []
        for step in cover.pieces:
            for d in stands.get(step.key, [step.key]):
                p = sighting_provenance(store, view.first_sighting(d))
                pieces.append({"doc_id": d, "path": p["path"], "sha256": p["sha256"],
                               "covered": len(step.explained) / cover.shingles,
                               "covered_shingles": len(step.explained), "holds": step.held})
        for step in cover.pieces:
            seq, _ = cache.get(step.key, keep=False)
            text = store.text(step.key)
            spans = [s.as_dict() for s in locate(seq, every[step.explained], text, k,
                                                 store.document(step.key)["page_offsets"])]
            main = main_span(spans)
            for d in stands.get(step.key, [step.key]):
                s = view.first_sighting(d)
                f = Finding("covered-by-batch", sighting_provenance(store, s), other, False, cover.share,
                            "containment", spans, excerpt=text[main["start"]:main["end"]][:EXCERPT_CHARS] if main else None)
                f.pieces, f.covered_is_new = pieces, covered_is_new
                f.also = len(pieces) - 1
                f.other_members = [p["path"] for p in pieces if p["doc_id"] != d]
                loc.locate(f, s, main)
                out.append(f)
    return out
