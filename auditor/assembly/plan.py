"""The plan: every document of a run with its decision and its reason. Nothing is written here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from auditor import __version__
from auditor.engine.describe import unread_of
from auditor.errors import UsageError
from auditor.report.build import canonical
from auditor.store.db import Store
from auditor.text.dates import KINDS, newest_key

if TYPE_CHECKING:
    pass

from auditor.assembly.documents import (
    EDGAR_FIELDS,
    Doc,
    decided_by,
    documents_of,
    edgar_fields_of,
    rank_key,
    run_row,
)
from auditor.assembly.files import CORPUS, FORMAT, record_line
from auditor.assembly.policy import DECISION_TABLE, Policy
from auditor.assembly.resolve import Decision, check_plan, resolve


@dataclass
class PlanEntry:
    """One plan line before evidence and provenance are attached."""

    doc_id: int | None
    decision: Decision
    detail: dict[str, Any] = field(default_factory=dict)  # evidence not from a finding
    failure: dict[str, Any] | None = None


@dataclass
class Assembly:
    """A computed plan: decisions for every stored document and failed input, and how to write
    the plan, the corpus and the summary from them."""

    store: Store
    run: dict[str, Any]
    policy: Policy
    format: str
    docs: dict[int, Doc]
    entries: list[PlanEntry]
    novel: dict[int, tuple[int, int]] = field(default_factory=dict)  # gather.novelty_among the kept
    _findings: dict[tuple[int, int], dict[str, Any] | None] = field(default_factory=dict)

    @property
    def decisions(self) -> dict[int, Decision]:
        return {e.doc_id: e.decision for e in self.entries if e.doc_id is not None}

    @property
    def kept(self) -> list[int]:
        return [e.doc_id for e in self.entries if e.doc_id is not None and e.decision.keep]

    def finding(self, pair: tuple[int, int]) -> dict[str, Any] | None:
        if pair not in self._findings:
            row = self.store.conn.execute(
                f"SELECT {', '.join(FINDING_COLUMNS)} FROM findings WHERE run = ? AND contained_id = ?"
                " AND container_id = ?", (self.run["id"], *pair)).fetchone()
            self._findings[pair] = None if row is None else finding_of(row)
        return self._findings[pair]

    def plan_lines(self) -> Iterator[bytes]:
        """One canonical JSON line per stored document (by id), then per failed input."""
        stands: dict[int, list[int]] = {}
        for e in self.entries:
            if e.doc_id is not None and e.decision.target is not None:
                stands.setdefault(e.decision.target, []).append(e.doc_id)
        for e in self.entries:
            dec = e.decision
            doc = other = None
            if e.doc_id is not None:
                doc = self.docs[e.doc_id]
                at = dec.target if dec.target is not None else dec.older
                other = self.docs[at] if at is not None else None
            yield plan_line(e, doc, other, self.finding, self.novel.get(e.doc_id) if e.doc_id is not None else None,
                            stands.get(e.doc_id, []) if e.doc_id is not None else [])

    def corpus_records(self) -> Iterator[dict[str, Any]]:
        """The kept documents in id order, each with its text and provenance."""
        kept = self.kept
        for a in range(0, len(kept), 200):
            chunk = kept[a : a + 200]
            texts = dict(self.store.texts_of(chunk))
            for doc_id in chunk:
                yield corpus_record(self.docs[doc_id], texts.get(doc_id, ""))

    def corpus_lines(self) -> Iterator[bytes]:
        for rec in self.corpus_records():
            yield record_line(rec)

    def summary(self) -> dict[str, Any]:
        """Counts, raw bytes and text characters, kept and dropped, by reason and by source."""
        groups: dict[tuple[bool, str, str | None, bool], list[int]] = {}
        for e in self.entries:
            if e.doc_id is not None:
                d = self.docs[e.doc_id]
                size, chars, source = d.size, d.n_chars, d.source
            else:
                assert e.failure is not None
                size, chars, source = int(e.failure.get("size") or 0), 0, e.failure.get("source")
            g = groups.setdefault((e.decision.keep, e.decision.reason, source, e.doc_id is not None), [0, 0, 0])
            g[0] += 1
            g[1] += size
            g[2] += chars
        return summary_of((k[0], k[1], k[2], k[3], v[0], v[1], v[2]) for k, v in groups.items())

    def manifest_core(self) -> dict[str, Any]:
        """Everything the manifest says apart from its files, changes and digest."""
        return manifest_core(self.run, self.policy, self.format, len(self.kept), self.summary())


# -- one plan line, one corpus record, the summary: shared with the Spark assemble ---------------

#: the columns of a finding as ``finding_of`` reads them (the store's ``findings`` table)
FINDING_COLUMNS = ("contained_id", "container_id", "containment", "estimate", "low", "high", "hits", "sampled",
                   "shared", "shingles", "family", "spans")


def finding_of(row: Sequence[Any]) -> dict[str, Any]:
    """A finding as a plan line shows it, from a row of ``FINDING_COLUMNS``."""
    return {"contained": row[0], "container": row[1], "containment": row[2], "estimate": row[3],
            "interval": [row[4], row[5]], "hits": row[6], "sampled": row[7], "shared": row[8],
            "shingles": row[9], "family": row[10], "spans": json.loads(row[11]) if row[11] else None}


def evidence(e: PlanEntry, doc: Doc | None, other: Doc | None,
             finding: Callable[[tuple[int, int]], dict[str, Any] | None]) -> dict[str, Any] | None:
    """A plan line's evidence. ``other``: the document of ``target`` (else of ``older``)."""
    dec = e.decision
    ev: dict[str, Any] = dict(e.detail)
    if dec.measured is not None:
        f = finding(dec.measured)
        ev["finding"] = f
        if dec.reason in ("near-duplicate-of", "superseded-by"):
            r = finding((dec.measured[1], dec.measured[0]))
            ev["reverse"] = None if r is None else {k: r[k] for k in (
                "containment", "estimate", "interval", "hits", "sampled", "shared", "shingles")}
        if e.doc_id != dec.measured[0] or (dec.target is not None and dec.target != dec.measured[1]):
            ev["measured_through"] = {
                "contained": dec.measured[0], "container": dec.measured[1],
                "note": "exact duplicates (identical normalised text) are measured through their "
                        "group's first document; the containment is the same for every member"}
    if dec.containers and dec.reason not in ("duplicate-of",):
        ev["containers"] = dec.containers
    if doc is not None:
        dates: dict[str, Any] = {"this": [x.as_dict() for x in doc.dated]}
        if dec.target is not None:
            assert other is not None
            dates["kept"] = [x.as_dict() for x in other.dated]
        elif dec.older is not None:
            assert other is not None
            dates["container"] = [x.as_dict() for x in other.dated]
        ev["dates"] = dates
    return ev or None


def provenance(d: Doc) -> dict[str, Any]:
    p: dict[str, Any] = {
        "path": d.path, "sha256": d.sha256, "format": d.format, "size": d.size, "chars": d.n_chars,
        "words": d.n_words, "batch": d.batch, "ingested": d.created, "source": d.source,
        "sources": d.sources, "sightings": d.seen, "edgar": edgar_fields_of(d),
        "date": d.dated[0].date if d.dated else None, "date_source": d.dated[0].source if d.dated else None}
    if d.withdrawn:
        p["withdrawn"] = d.withdrawn
    return p


def plan_line(e: PlanEntry, doc: Doc | None, other: Doc | None,
              finding: Callable[[tuple[int, int]], dict[str, Any] | None],
              novel: tuple[int, int] | None, stands: Sequence[int]) -> bytes:
    """One plan line, canonical JSON with its newline. ``doc``: the entry's document (None for a
    failed input); ``other``: the document it names (``target``, else ``older``); ``stands``:
    the documents dropped in its favour."""
    dec = e.decision
    line: dict[str, Any] = {
        "doc_id": e.doc_id, "decision": "keep" if dec.keep else "drop", "reason": dec.reason,
        "kept": dec.target, "evidence": evidence(e, doc, other, finding)}
    if doc is not None:
        line["novel"] = _novel(novel)
        line["provenance"] = provenance(doc)
        unread = unread_of(doc.meta)
        if unread is not None:  # kept or dropped, it was judged on the pages that were read
            line["unread"] = unread
        if dec.keep:
            line["stands_for"] = sorted(stands)
    else:
        line["input"] = e.failure
    return (canonical(line) + "\n").encode("utf-8")


def corpus_record(d: Doc, text: str) -> dict[str, Any]:
    """A kept document as the corpus holds it."""
    return {"id": d.id, "sha256": d.sha256, "path": d.path, "source": d.source, "batch": d.batch,
            "format": d.format, "n_words": d.n_words, "edgar": edgar_fields_of(d), "text": text}


def summary_of(groups: Iterable[tuple[bool, str, str | None, bool, int, int, int]]) -> dict[str, Any]:
    """The manifest's summary from grouped counts: (keep, reason, source, is a document,
    entries, raw bytes, text characters)."""
    def add(bucket: dict[str, Any], n: int, size: int, chars: int) -> None:
        bucket["documents"] = bucket.get("documents", 0) + n
        bucket["bytes"] = bucket.get("bytes", 0) + size
        bucket["chars"] = bucket.get("chars", 0) + chars

    total: dict[str, Any] = {}
    by_reason: dict[str, dict[str, Any]] = {"keep": {}, "drop": {}}
    by_source: dict[str, dict[str, Any]] = {}
    documents = failed = skipped = 0
    for keep, reason, source, is_doc, n, size, chars in sorted(groups, key=lambda g: (g[0], g[1], g[2] or "", g[3])):
        decision = "keep" if keep else "drop"
        add(total.setdefault(decision, {}), n, size, chars)
        add(by_reason[decision].setdefault(reason, {}), n, size, chars)
        add(by_source.setdefault(source or "(none)", {}).setdefault(decision, {}), n, size, chars)
        documents += n if is_doc else 0
        failed += n if not is_doc and reason == "failed" else 0
        skipped += n if not is_doc and reason == "skipped" else 0
    return {"documents": documents, "failed_inputs": failed, "skipped_inputs": skipped,
            "keep": total.get("keep", {"documents": 0, "bytes": 0, "chars": 0}),
            "drop": total.get("drop", {"documents": 0, "bytes": 0, "chars": 0}),
            "by_reason": by_reason, "by_source": by_source}


def manifest_core(run: Mapping[str, Any], policy: Policy, format: str, kept: int,
                  summary: dict[str, Any]) -> dict[str, Any]:
    """Everything the manifest says apart from its files, changes and digest."""
    params = json.loads(run["params"] or "{}")
    core: dict[str, Any] = {
        "format": FORMAT,
        "tool": "containment-auditor",
        "tool_version": __version__,
        "run": {"run_id": run["run_id"], "kind": run["kind"], "status": run["status"],
                "report_digest": run["digest"], "params": params},
        "policy": policy.as_dict(),
        "decisions": DECISION_TABLE,
        "boilerplate": {
            "rule": params.get("boilerplate"),
            "note": "the audit run's flag (run_documents.boilerplate), the rule its report applied: "
                    "a document is boilerplate when contained in at least `applied` unrelated "
                    "documents (containers outside its family; containers that are one family or "
                    "contain one another count once), not when it merely has many later versions"},
        "dates": {
            "kinds": list(KINDS),
            "rule": "each document's date is the most trusted it has: supplied for a copy (--dates), "
                    "the file's metadata, the file's modification time, a date its opening lines "
                    "state, a modification time less than a day before ingest (a copy's); newest "
                    "compares the most trusted dates, then the next kind's; provenance.date is the "
                    "first, evidence.dates lists each kind's"},
        "corpus": {"format": format, "file": CORPUS[format], "documents": kept,
                   "fields": ["id", "sha256", "path", "source", "batch", "format", "n_words", "edgar",
                              "text"],
                   "edgar_fields": list(EDGAR_FIELDS)},
        "conventions": {
            "invariant": "every document dropped as contained-in, duplicate-of or near-duplicate-of "
                         "names in `kept` a document that is kept; withdrawn, failed and "
                         "not-auditable drops name none",
            "bytes": "raw input bytes as ingested (an EDGAR submission counts its parts too)",
            "chars": "characters of extracted text",
            "digests": "files are hashed over their uncompressed content (JSON Lines); a Parquet "
                       "corpus over its rows as canonical JSON Lines, the same as corpus.jsonl.gz",
        },
        "summary": summary,
    }
    if format == "parquet":
        from importlib.metadata import version

        core["corpus"]["pyarrow"] = version("pyarrow")
    return core


def plan(store: Store, *, run: str | None = None, policy: Policy = Policy(),
         format: str = "jsonl") -> Assembly:
    """Decide every stored document and failed input from an audit run (no file written).

    Raises ``AssemblyRefused`` when the run was REFUSED, ``UsageError`` when it is not an audit
    run, or when the store holds documents the run did not cover (audit again first).
    """
    if format not in CORPUS:
        raise UsageError(f"unknown corpus format {format!r}; expected jsonl or parquet")
    r = run_row(store, run)
    docs = documents_of(store)
    covered = {row[0]: row[1:] for row in store.conn.execute(
        "SELECT doc_id, status, duplicate_of, reason, boilerplate FROM run_documents WHERE run = ?"
        " ORDER BY doc_id", (r["id"],))}
    uncovered = [d.id for d in docs.values() if d.withdrawn is None and d.n_words > 0 and d.id not in covered]
    if uncovered:
        raise uncovered_error(r["run_id"], len(uncovered), uncovered[:10])
    entries: dict[int, PlanEntry] = {}
    units: dict[int, list[int]] = {}
    exempt: dict[int, str] = {}
    for d in docs.values():
        placed = place(d, covered, policy)
        if isinstance(placed, PlanEntry):
            entries[d.id] = placed
            continue
        rep, why = placed
        units.setdefault(rep, []).append(d.id)
        if why is not None:
            exempt[d.id] = why
    entries |= decide_units(units, _edges(store, r["id"]), docs, exempt, policy)
    threshold = float(json.loads(r["params"] or "{}").get("threshold", 0.8))
    drop_covered(store, entries, policy, threshold)
    novel = novelty_among(store, sorted(d for d, e in entries.items() if e.decision.keep), entries)
    ordered = [entries[d] for d in sorted(entries)]
    ordered += _failed_inputs(store, {d.sha256 for d in docs.values()})
    out = Assembly(store, r, policy, format, docs, ordered, novel)
    problems = check_plan(out.decisions)
    if problems:  # a bug, never an input: fail loudly rather than write a plan that breaks it
        raise AssertionError("plan invariant broken: " + "; ".join(problems[:5]))
    return out


def uncovered_error(run_id: str, n: int, first: Sequence[int]) -> UsageError:
    return UsageError(
        f"run {run_id} did not cover {n} stored document(s) (ids "
        + ", ".join(map(str, first[:10])) + (" ..." if n > 10 else "")
        + "): they were ingested or restored after it; run `auditor audit` again and assemble from that run")


def place(d: Doc, covered: Mapping[int, tuple[Any, ...]], policy: Policy) -> PlanEntry | tuple[int, str | None]:
    """A document's entry when it is decided without the containment graph (withdrawn, not
    auditable), else ``(its unit, its exemption)``: the unit is its exact-duplicate group's
    representative, the exemption the keep reason that spares it from ``contained-in``.
    ``covered``: the run's ``run_documents`` rows (status, duplicate_of, reason, boilerplate)
    by document, at least of ``d`` and of its representative."""
    row = covered.get(d.id)
    if d.withdrawn is not None:
        return PlanEntry(d.id, Decision(False, "withdrawn"), {"withdrawn": d.withdrawn})
    if d.n_words == 0 or row is None:
        why = ("an EDGAR submission: no text of its own; its documents are its parts"
               if d.parts or d.format == "edgar" else "no words in its extracted text")
        detail: dict[str, Any] = {"why": why}
        if d.parts:
            detail["parts"] = sorted(d.parts)
        return PlanEntry(d.id, Decision(False, "not-auditable"), detail)
    status, dup_of, _, _ = row
    rep = dup_of if status == "duplicate" and dup_of is not None else d.id
    rep_row = covered.get(rep)
    if rep_row is not None and rep_row[0] == "not-auditable":
        detail = {"why": rep_row[2]}
        if rep != d.id:
            detail["duplicate_of"] = rep
        return PlanEntry(d.id, Decision(False, "not-auditable"), detail)
    bp = (rep_row or row)[3]
    if policy.boilerplate == "keep-once" and bp:
        return rep, "boilerplate"
    if policy.exhibits == "separate" and d.exhibit:
        return rep, "exhibit"
    if policy.contained == "keep":
        return rep, "contained-kept"
    return rep, None


def decide_units(units: Mapping[int, Sequence[int]], edges: Any, docs: Mapping[int, Doc],
                 exempt: Mapping[int, str], policy: Policy) -> dict[int, PlanEntry]:
    """The entries of the members of ``units`` (``resolve`` over ``edges``: contained unit,
    container unit, containment), with the evidence that is not a finding. ``docs`` holds
    every member. The Spark assemble calls it per component of the containment graph."""
    dated = {d: docs[d].dated for u in units.values() for d in u}
    rank = rank_key(policy, docs, dated)
    ranks = {d: rank(d) for d in dated}
    newer = None
    if policy.newest_first:
        keys = {d: newest_key(dated[d]) for d in ranks}

        def newer(d: int, k: int) -> bool:
            return keys[d] < keys[k]

    decided = resolve(units, edges, ranks, exempt, newer)
    entries: dict[int, PlanEntry] = {}
    for members in units.values():
        for m in members:
            dec = decided[m]
            detail: dict[str, Any] = {}
            if dec.reason == "duplicate-of":
                detail = {"norm_sha256": docs[m].norm_sha256, "group": sorted(members),
                          "note": "identical normalised text"}
            if dec.reason == "near-duplicate-of" and dec.target is not None and \
                    newest_key(dated[dec.target]) < newest_key(dated[m]):
                dec = Decision(False, "superseded-by", dec.target, dec.measured, dec.containers)
            if dec.reason == "newer" and dec.older is not None:
                detail["container"] = dec.older
            if dec.reason in ("duplicate-of", "near-duplicate-of", "superseded-by") and dec.target is not None:
                detail["survivor"] = {"policy": policy.survivor,
                                      "decided_by": decided_by(policy, docs, dated, m, dec.target)}
            entries[m] = PlanEntry(m, dec, detail)
    return entries


def drop_covered(store: Store, entries: dict[int, PlanEntry], policy: Policy, threshold: float) -> list[int]:
    """``policy.min_novel``: drop the kept documents (kept for nothing the policy names: not
    boilerplate, exhibits or contained documents it keeps) whose novel share among the other kept
    documents is below it, as ``covered-by`` the document of their cover explaining the most,
    with the cover as evidence (``gather.drop_low_novelty``). Changes ``entries`` in place and
    returns the documents dropped."""
    if policy.min_novel is None:
        return []
    from auditor.engine.gather import drop_low_novelty

    kept = sorted(d for d, e in entries.items() if e.decision.keep)
    # a document another drop points to holds that document's text: dropping it too would
    # lose the text and leave the drop pointing at nothing kept
    held = {e.decision.target for e in entries.values() if not e.decision.keep}
    eligible = [d for d in kept if d not in held
                and entries[d].decision.reason in ("not-contained", "survivor", "containers-dropped")]
    dropped = []
    for d, g in drop_low_novelty(store, kept, eligible, policy.min_novel, threshold=threshold):
        cover = g.as_dict()
        for c in cover["components"]:
            c.pop("spans")
        entries[d] = PlanEntry(d, Decision(False, "covered-by", g.components[0].doc_id, None,
                                           entries[d].decision.containers),
                               {"min_novel": policy.min_novel, "cover": cover})
        dropped.append(d)
    return dropped


def novelty_among(store: Store, kept: Sequence[int], of: Iterable[int]) -> dict[int, tuple[int, int]]:
    """Every document's novel share among the documents kept in the end (``gather.novelty_among``)."""
    from auditor.engine.gather import novelty_among as among

    return among(store, kept, of)


def _novel(held: tuple[int, int] | None) -> dict[str, Any] | None:
    if held is None:
        return None
    from auditor.text.score import Estimate

    e = Estimate.of(*held)
    return {"estimate": e.estimate, "interval": [e.low, e.high], "hits": e.hits, "sampled": e.sampled}


def _edges(store: Store, run_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(contained, container, containment) of every containing pair of the run, as arrays."""
    n = int(store.scalar("SELECT count(*) FROM findings WHERE run = ?", (run_id,)))
    rows = np.fromiter(store.conn.execute(
        "SELECT contained_id, container_id, containment FROM findings WHERE run = ?", (run_id,)),
        dtype=[("a", np.int64), ("b", np.int64), ("x", np.float64)], count=n)
    return rows["a"].copy(), rows["b"].copy(), rows["x"].copy()


def _failed_inputs(store: Store, stored: set[str]) -> list[PlanEntry]:
    """Inputs that failed or were skipped and whose bytes were never stored since."""
    batches = {int(k): v for k, v in store.conn.execute("SELECT id, name FROM batches")}
    out = []
    for (batch_id, *row) in store.conn.execute(
            f"SELECT batch_id, {', '.join(FAILURE_COLUMNS)} FROM failures ORDER BY path, part, sha256, id"):
        if row[6] and row[6] in stored:
            continue
        out.append(failed_entry(row, batches.get(batch_id)))
    return out


#: a failed input's columns as ``failed_entry`` reads them (the store's ``failures`` table)
FAILURE_COLUMNS = ("status", "code", "message", "path", "part", "within_id", "sha256", "size", "source")


def failed_entry(row: Sequence[Any], batch: str | None) -> PlanEntry:
    """The entry of an input that failed or was skipped, from a row of ``FAILURE_COLUMNS``."""
    status, code, message, path, part, within, sha, size, source = row
    failure = {"path": path, "part": part or None, "within": within, "sha256": sha, "size": size,
               "source": source, "batch": batch, "status": status, "code": code}
    return PlanEntry(None, Decision(False, "skipped" if status == "skipped" else "failed"),
                     {"status": status, "code": code, "message": message}, failure)
