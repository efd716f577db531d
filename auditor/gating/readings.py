"""The other readings of the batch's new documents (``auditor.extract.Reading``: every text node,
the other side of an alternative, the bytes as plain text...), each audited against the corpus.

A hostile submitter can hide a copy from one reading of a document (the visible text the store
keeps), not from every reading a reader could get. So a containment under any reading is a
finding, of the same kinds as the visible reading's, naming the reading. A reading adds a
finding only where the visible text gave none of that kind and direction for the document:
the gate already fails there, and one finding per document, kind and direction is the rule.

An EDGAR submission's readings include those of its parts read as data (``part 7: xml:text``:
XBRL, JSON, pictures..., :mod:`auditor.extract.data`). A finding under one of them is that
part's (its path, content hash and ``<SEQUENCE>`` line), one per part, kind and direction. A
submission's readings are read for what they add to its own documents, which are audited
on their own: its documents are not their counterparts, and the shingles they hold are not
counted (an XBRL text block, a viewer page of a note, the XBRL zip's copy of the filing repeat
them; a note that last year's filing also holds is last year's, not the data part's).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from auditor.engine.query import Question, query_texts
from auditor.engine.short import SHORT_SHINGLES
from auditor.gating.batch import (
    BatchView,
    Sighting,
    corpus_provenance,
    data_provenance,
    sighting_provenance,
)
from auditor.gating.classify import OTHERS_NAMED, Locator
from auditor.gating.findings import Finding, classify_pair
from auditor.index.sampled import SampledIndex, ShingleCache
from auditor.store.db import Store


def reading_findings(store: Store, view: BatchView, threshold: float, loc: Locator,
                     have: list[Finding]) -> list[Finding]:
    """Findings under the other readings of each new document, where the visible one has none;
    and under the readings of each part read as data, found as that part's own. Every reading
    of the batch is asked at once (:func:`auditor.engine.query.query_texts`: one pass over the
    stored texts for the short ones)."""
    new = view.new_ids
    done = {(int(f.new.get("doc_id") or -1), f.kind, f.new_is_contained) for f in have}
    data = {(int(e["within_id"]), str(e["part"])): e for e in view.data}
    asked: list[tuple[Sighting, dict[str, Any], str]] = []
    questions: list[Question] = []
    seen: set[int] = set()
    for s in view.sightings:
        if s.doc_id in seen:
            continue
        seen.add(s.doc_id)
        readings = store.readings(s.doc_id)
        if not readings:
            continue
        parts = sorted({x.doc_id for x in view.sightings if x.within_id == s.doc_id} - {s.doc_id})
        exclude = frozenset(_own_group(store, s.doc_id)) | frozenset(view.withdrawn) | frozenset(parts)
        ignore = _shingles_of(store, parts) if parts else None
        for r in readings:
            asked.append((s, r, _data_part(r["name"], s.doc_id, data)))
            questions.append(Question(r["text"], exclude, ignore))
    index = (SampledIndex.load(store, representatives_only=False)
             if any(r["n_shingles"] > SHORT_SHINGLES for _, r, _ in asked) else None)
    results = query_texts(store, questions, threshold, index=index)
    by_doc: dict[int, dict[tuple[str, str, bool], list[tuple[float, int, int, dict[str, Any], str]]]] = {}
    for (s, r, subject), result in zip(asked, results, strict=True):
        groups = by_doc.setdefault(s.doc_id, {})
        holders = {m.doc_id for m in result.matches if m.direction == "contains-query"}
        for m in result.matches:
            new_is_contained = m.direction == "contains-query"
            if not new_is_contained and m.doc_id in holders:
                continue  # mutual: the reading's own containment says it
            other_new = m.doc_id in new
            kind = (classify_pair(True, other_new) if new_is_contained else classify_pair(other_new, True))
            if kind is None or (not subject and (s.doc_id, kind, new_is_contained) in done):
                continue
            size = int(store.scalar("SELECT n_shingles FROM index_docs WHERE doc_id = ?", (m.doc_id,)) or 0)
            spans = [sp.as_dict() for sp in m.spans]
            groups.setdefault((subject, kind, new_is_contained), []).append(
                (-m.exact, size, m.doc_id, {"spans": spans}, r["name"]))

    def described(d: int) -> dict[str, Any]:
        return sighting_provenance(store, view.first_sighting(d)) if d in new else corpus_provenance(store, d)

    out: list[Finding] = []
    for doc_id, groups in by_doc.items():
        s = view.first_sighting(doc_id)
        for (subject, kind, new_is_contained), ranked in sorted(groups.items()):
            ranked.sort(key=lambda x: (x[0], x[1], x[2], x[4]))
            value, _, other, extra, name = ranked[0]
            others = sorted({o for _, _, o, _, _ in ranked[1:]} - {other})
            where = s
            mine = sighting_provenance(store, s)
            if subject:  # a part read as data: the finding is the part's, shown at its <SEQUENCE>
                entry = data[(s.doc_id, subject)]
                where = replace(s, part=subject, meta={**s.meta, **entry["meta"]})
                mine = data_provenance(store, s, entry)
            f = Finding(kind, mine, described(other), new_is_contained, -value,
                        "containment", extra["spans"], reading=name)
            f.also = len(others)
            f.other_members = [str(described(o).get("path")) for o in others[:OTHERS_NAMED]]
            loc.locate(f, where)
            out.append(f)
    return out


def _data_part(name: str, doc_id: int, data: dict[tuple[int, str], dict[str, Any]]) -> str:
    """The part a reading of submission ``doc_id`` reads (``part 7: xml:text``) when that part was
    read as data in this batch, else ``""``."""
    head, sep, _ = name.partition(": ")
    if sep and head.startswith("part "):
        part = head[len("part "):]
        if (doc_id, part) in data:
            return part
    return ""


def _shingles_of(store: Store, ids: list[int]) -> np.ndarray:
    """The distinct shingle hashes of stored documents ``ids`` (those with a shingle), sorted."""
    cache = ShingleCache(store, store.params, sequences=False)
    have = [int(r[0]) for r in store.select_in("SELECT doc_id FROM index_docs WHERE n_shingles > 0 AND doc_id IN ({})",
                                               set(ids))]
    arrays = [cache.get(d, keep=False)[1] for d in sorted(have)]
    return np.unique(np.concatenate(arrays)) if arrays else np.empty(0, np.uint64)


def _own_group(store: Store, doc_id: int) -> list[int]:
    """The document and its exact duplicates (same normalised text): not counterparts of its readings."""
    norm = store.scalar("SELECT norm_sha256 FROM documents WHERE id = ?", (doc_id,))
    if not norm:
        return [doc_id]
    return [int(r[0]) for r in store.conn.execute("SELECT id FROM documents WHERE norm_sha256 = ?", (norm,))]
