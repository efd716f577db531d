"""Classification: every finding that involves a new document, of each kind, with where it is
shown (the new document's file and lines).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from auditor.engine.audit import AuditResult
from auditor.engine.verify import locate_pairs
from auditor.errors import with_fix
from auditor.extract import edgar, model
from auditor.gating.batch import BatchView, Sighting, corpus_provenance, sighting_provenance
from auditor.gating.findings import Finding, artifact_uri, classify_pair, main_span
from auditor.store.db import Store

# -- classification ---------------------------------------------------------------------------

class Locator:
    """Where a finding is shown: the new document's file, and lines when they are known.

    Lines are given for plain-text files (their stored text keeps the file's lines) and, for
    an EDGAR part, the ``<SEQUENCE>`` line of its submission; otherwise the region is line 1.
    """

    def __init__(self, store: Store, cwd: Path) -> None:
        self.store, self.cwd = store, cwd
        self._seq_lines: dict[str, dict[str, int]] = {}

    def _sequence_line(self, resolved: str, part: str) -> int:
        if resolved not in self._seq_lines:
            try:
                self._seq_lines[resolved] = edgar.part_lines(Path(resolved).read_bytes())
            except OSError:
                self._seq_lines[resolved] = {}
        return self._seq_lines[resolved].get(part, 1)

    def locate(self, f: Finding, s: Sighting, span: dict[str, Any] | None = None) -> None:
        f.file, f.uri = s.path, artifact_uri(s.path, self.cwd)
        if s.part:
            f.region = {"startLine": self._sequence_line(s.resolved, s.part)}
            return
        if f.new.get("format") != "text":
            f.region = {"startLine": 1}
            return
        text = self.store.text(s.doc_id)
        if span is None:
            f.region = {"startLine": 1, "endLine": max(1, text.count("\n", 0, len(text.rstrip("\n"))) + 1)}
        else:
            a = text.count("\n", 0, span["start"]) + 1
            f.region = {"startLine": a, "endLine": max(a, text.count("\n", 0, max(span["start"], span["end"] - 1)) + 1)}


OTHERS_NAMED = 10  # further counterparts a gate finding names; the report's findings.jsonl.gz has all
EXCERPT_CHARS = 400


def containment_findings(store: Store, view: BatchView, audit: AuditResult, loc: Locator) -> list[Finding]:
    """One finding per new document, kind and direction: its best counterpart, and how many more.

    A new notice inside thousands of corpus documents is one finding that names the best of them
    (highest containment, then the smallest document, then the lowest id) and counts the rest, so
    the gate's outputs grow with the new documents, not with the pairs. When a new document and
    a counterpart contain each other, only the new document's containment is given.
    """
    new = view.new_ids
    stands = view.stands_for(store)
    pairs = audit.containing
    a_ids, b_ids = pairs.contained.tolist(), pairs.container.tolist()
    keys = set(zip(a_ids, b_ids, strict=True))
    size = dict(store.select_in("SELECT doc_id, n_shingles FROM index_docs WHERE doc_id IN ({})",
                                set(a_ids) | set(b_ids)))
    groups: dict[tuple[int, str, bool], list[tuple[float, int, int]]] = {}
    for a, b, x in zip(a_ids, b_ids, pairs.exact.tolist(), strict=True):
        cases = [(n, b, True) for n in stands.get(a, [])]
        if (b, a) not in keys:  # mutual: the finding of the other direction says it
            cases += [(a, n, False) for n in stands.get(b, [])]
        for ca, cb, new_is_contained in cases:
            kind = classify_pair(ca in new, cb in new)
            me, other = (ca, cb) if new_is_contained else (cb, ca)
            if kind is None or other in view.withdrawn:
                continue  # the version this change replaces, or a deleted document
            groups.setdefault((me, kind, new_is_contained), []).append((-x, size.get(other, 0), other))
    out = []
    for (me, kind, new_is_contained), ranked in sorted(groups.items()):
        ranked.sort()
        value, other = -ranked[0][0], ranked[0][2]
        contained, container = (me, other) if new_is_contained else (other, me)
        spans = [sp.as_dict() for sp in locate_pairs(store, store.params, [(contained, container)])[0]]
        main = main_span(spans)
        excerpt = store.text(container)[main["start"]:main["end"]][:EXCERPT_CHARS] if main else None
        s = view.first_sighting(me)

        def described(d: int) -> dict[str, Any]:
            return sighting_provenance(store, view.first_sighting(d)) if d in new else corpus_provenance(store, d)

        f = Finding(kind, sighting_provenance(store, s), described(other), new_is_contained, value,
                    "containment", spans, excerpt=excerpt)
        f.also = len(ranked) - 1
        f.other_members = [str(described(o).get("path")) for _, _, o in ranked[1:1 + OTHERS_NAMED]]
        loc.locate(f, s, None if new_is_contained else main)
        out.append(f)
    return out


def duplicate_findings(store: Store, view: BatchView, loc: Locator) -> list[Finding]:
    """New documents whose bytes or normalised text are already stored (corpus or batch)."""
    new, keys = view.new_ids, view.keys
    names = dict(store.conn.execute("SELECT id, name FROM batches").fetchall())
    out: list[Finding] = []
    first_of_group: dict[str, Sighting] = {}
    for s in view.sightings:
        d = store.document(s.doc_id)
        if not d["n_words"]:
            continue  # an EDGAR envelope or an empty part: nothing to duplicate
        elsewhere = [r for r in store.conn.execute(
            "SELECT doc_id, path, resolved, part, within_id, meta, batch_id FROM sightings"
            " WHERE doc_id = ? AND gone_at IS NULL ORDER BY id", (s.doc_id,))
            if (r[0], r[2], r[3]) not in keys and r[2] not in view.gone]
        f: Finding | None = None
        if elsewhere:
            r = elsewhere[0]
            other = sighting_provenance(store, Sighting(r[0], r[1], r[2], r[3], r[4], json.loads(r[5] or "{}"),
                                                        names.get(r[6], "")))
            f = Finding("exact-duplicate", sighting_provenance(store, s), other, True, 1.0, "identical bytes")
        elif d["norm_sha256"]:
            group = [int(r[0]) for r in store.conn.execute(
                "SELECT id FROM documents WHERE norm_sha256 = ? AND n_words > 0 AND withdrawn_at IS NULL ORDER BY id",
                (d["norm_sha256"],))]
            in_corpus = [g for g in group if g != s.doc_id and g not in new and g not in view.withdrawn]
            if in_corpus:
                f = Finding("exact-duplicate", sighting_provenance(store, s), corpus_provenance(store, in_corpus[0]),
                            True, 1.0, "identical normalised text")
        group_key = d["norm_sha256"] or d["sha256"]
        if f is None and group_key in first_of_group:
            first = first_of_group[group_key]
            how = "identical bytes" if first.doc_id == s.doc_id else "identical normalised text"
            f = Finding("within-batch", sighting_provenance(store, s), sighting_provenance(store, first),
                        True, 1.0, how)
        first_of_group.setdefault(group_key, s)
        if f is not None:
            loc.locate(f, s)
            out.append(f)
    return out


def _input_finding(kind: str, e: dict[str, Any], match: str, cwd: Path) -> Finding:
    """A finding about one input (or EDGAR part) alone, shown at its file: no text to place it in."""
    display = f"{e['path']}#{e['part']}" if e["part"] else e["path"]
    f = Finding(kind, {"path": display, "part": e["part"], "sha256": e["sha256"],
                       "code": e["code"], "message": e["message"]}, None, True, None, match)
    f.file, f.uri = e["path"], artifact_uri(e["path"], cwd)
    return f


def ingest_error_findings(view: BatchView, cwd: Path) -> list[Finding]:
    return [_input_finding("ingest-error", e, "not ingested", cwd) for e in view.errors]


def not_auditable_findings(store: Store, view: BatchView, audit: AuditResult, cwd: Path,
                           loc: Locator, vouched: dict[int, list[str]] | None = None) -> list[Finding]:
    """New documents the audit could not speak for, and EDGAR parts the ingest skipped that could not
    be read even as data (``view.skipped``; a part read as data is in ``view.data``): they fail
    closed (``not-auditable``), unless the kind is left out of --fail-on or the input baselined.
    ``vouched`` names, by document, constructs outside the model that a check of the rendering
    vouched for (an embedded font whose letters OCR read as its text: gating.render).

    A document too short for one shingle whose reading is otherwise trusted (:func:`short_documents`)
    is not among them: it cannot hold a stored document."""
    out = []
    for doc_id, why in sorted(_not_auditable(store, view, audit, vouched or {}).items()):
        if why is None:
            continue
        s = view.first_sighting(doc_id)
        new = {**sighting_provenance(store, s), "code": "not_auditable", "message": why}
        f = Finding("not-auditable", new, None, True, None, "not auditable")
        loc.locate(f, s)
        out.append(f)
    out += [_input_finding("not-auditable", e, "skipped", cwd) for e in view.skipped]
    return out


SHORT = "short: {n} words, fewer than k={k}, so no shingle: it cannot hold a stored document"


def short_documents(store: Store, view: BatchView, audit: AuditResult,
                    vouched: dict[int, list[str]] | None = None) -> dict[int, str]:
    """New documents with words but fewer than one shingle's worth, whose reading is trusted: its
    text readable, every construct modelled (or vouched for), no page left unread. A stored
    document has at least one shingle, so such a text cannot hold one: the gate passes it and
    lists it as short. (Its other readings are audited all the same, and a rendering that
    disagrees with it is a finding of its own: gating.render.)"""
    out = {}
    k = store.params.k
    for doc_id, why in _not_auditable(store, view, audit, vouched or {}).items():
        if why is None:
            n = int(store.scalar("SELECT n_words FROM documents WHERE id = ?", (doc_id,)) or 0)
            if n:
                out[doc_id] = SHORT.format(n=n, k=k)
    return out


def _not_auditable(store: Store, view: BatchView, audit: AuditResult,
                   vouched: dict[int, list[str]]) -> dict[int, str | None]:
    """Why each new document the gate cannot vouch for is not auditable; None for one whose only
    fault is being too short for a shingle (:func:`short_documents`)."""
    reason = {int(x["doc_id"]): x["reason"] for x in audit.not_auditable}
    too_short = {int(x["doc_id"]) for x in audit.not_auditable if x.get("n_words") and not x.get("n_shingles")}
    stands = view.stands_for(store)
    own = dict(store.select_in("SELECT id, unreadable FROM documents WHERE unreadable IS NOT NULL AND id IN ({})",
                               view.new_ids | set(stands)))
    unread = {doc_id: _unread_pages(meta) for doc_id, meta in _metas(store, view.new_ids).items()
              if meta.get("unread_pages")}
    outside = _unmodelled(store, view.new_ids | set(stands), vouched)
    out: dict[int, str | None] = {}
    for rep, news in sorted(stands.items()):
        for doc_id in news:
            # what the file could not be read as is its own; a group shares only having no shingle
            # (the same normalised words), not the fault of another copy's bytes
            why = f"text not readable: {own[doc_id]}" if doc_id in own else \
                reason[rep] if rep in reason and rep not in own else unread.get(doc_id)
            if why and doc_id in unread and unread[doc_id] not in why:  # too short, and pages not read
                why = f"{why}; {unread[doc_id]}"
            # constructs outside the reader's model: the one place they become CONTAIN006
            if doc_id in outside:
                why = "; ".join(filter(None, [why, with_fix(model.CODE, outside[doc_id])]))
            if why is None:
                continue
            short = rep in too_short and doc_id not in own and rep not in own and doc_id not in unread \
                and doc_id not in outside
            out[doc_id] = None if short else why
    return out


def _unmodelled(store: Store, ids: set[int], vouched: dict[int, list[str]]) -> dict[int, str]:
    """Why each document of ``ids`` that holds constructs outside its reader's model is not
    vouched for (:func:`auditor.extract.model.reason`), less those ``vouched`` names."""
    out = {}
    for doc_id, names in store.select_in("SELECT id, unmodelled FROM documents WHERE unmodelled IS NOT NULL"
                                         " AND id IN ({})", ids):
        lifted = set(vouched.get(int(doc_id), ()))
        got = model.reason([n for n in json.loads(names) if n not in lifted])
        if got:
            out[int(doc_id)] = got
    return out


def _metas(store: Store, ids: set[int]) -> dict[int, dict[str, Any]]:
    out = {}
    for doc_id, meta in store.select_in("SELECT id, meta FROM documents WHERE (meta LIKE '%\"unread_pages\"%'"
                                        " OR meta LIKE '%\"redactions\"%') AND id IN ({})", ids):
        if doc_id not in ids:
            continue
        try:
            out[int(doc_id)] = json.loads(meta) if meta else {}
        except ValueError:
            continue
    return out


def _unread_pages(meta: dict[str, Any]) -> str:
    """Pages of a new document that could not be read: the rest was audited, these were not, so
    the gate cannot vouch for them (a copy could hide there)."""
    pages = meta["unread_pages"]
    share = float(meta.get("unread_share", 0))
    return (f"pages not read: {len(pages)} ({share:.0%}) of its pages could not be read, so they were not "
            f"audited: " + "; ".join(str(p.get("reason")) for p in pages[:3]))


def redaction_findings(store: Store, view: BatchView, loc: Locator) -> list[Finding]:
    """New PDFs with text under a redaction box (``redaction``, a warning by default): the pages,
    the boxes and the start of the text that a viewer does not show but the file still holds."""
    out = []
    for doc_id, meta in sorted(_metas(store, view.new_ids).items()):
        boxes = meta.get("redactions") or []
        if not boxes:
            continue
        pages = sorted({int(b["page"]) for b in boxes})
        said = "; ".join(f"page {b['page']} box {b['box']}: {b['text'][:40]!r}" for b in boxes[:5])
        s = view.first_sighting(doc_id)
        new = {**sighting_provenance(store, s), "code": "pdf-redaction",
               "message": f"text under {len(boxes)} redaction box(es) on page(s) {', '.join(map(str, pages))}: {said}"}
        f = Finding("redaction", new, None, True, None, "text under a box")
        loc.locate(f, s)
        out.append(f)
    return out
