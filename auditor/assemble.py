"""Assemble a corpus from an audit run: a keep/drop plan with a reason for every document, and
the kept documents' texts with their provenance.

The plan is made from the store alone: the run's covered documents (``run_documents``), its
containing pairs (``findings``), withdrawals, failed inputs and provenance. Nothing is measured
again and no containment is assumed that the run did not measure.

**The invariant.** A document dropped as a redundant copy (``contained-in``, ``duplicate-of``,
``near-duplicate-of``) names the document kept in its place, and that document is kept: no
chain ends in a dropped document and there is no cycle. Documents dropped for other reasons
(``withdrawn``, ``failed``, ``not-auditable``) are not copies of anything and name no document.

**Resolution** (:func:`resolve`, pure, no I/O). Exact duplicates (identical normalised text)
form a *unit*, measured through its representative. Units that contain one another (both ways at
the threshold) are connected into *families*; families are ordered so that a family comes after
every family holding one of its members (containers first; the rare cycles of one-way
containment are taken together, in policy order). Documents are then decided one at a time in
that order, so when a document is dropped, the document it points to was already kept:

1. a unit that already has a kept member: the next member is a ``duplicate-of`` it;
2. a unit containing and contained in a unit with a kept member: ``near-duplicate-of`` it;
3. a unit contained in a unit with a kept member: ``contained-in`` it, unless the policy keeps it
   (boilerplate kept once, EDGAR exhibits kept as separate documents, contained documents kept,
   a newer version under ``newest``);
4. otherwise the document is kept.

Within a family the members come in policy order (earliest ingested, newest, preferred source,
or largest), so the policy's choice is the survivor, except where a member is contained one way
in another (the container comes first: the survivor should hold the others). A member that the
survivor does not contain (a family is connected, not complete) is kept, not pointed at a
document that was never measured to contain it.

**Versions.** Under the survivor policy ``newest`` (first), a family's members are decided
strictly newest first, and no document is dropped in favour of an older one: one contained only
in older kept documents is kept (``newer``: a later version that cut text). A near-duplicate
older than the document kept in its place is ``superseded-by`` it, whatever the policy. Dates
come from :mod:`auditor.store.dating`; every plan line shows them.
"""

from __future__ import annotations

import filecmp
import graphlib
import hashlib
import heapq
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from auditor import __version__
from auditor.corpus.check import require_intact, require_run_intact
from auditor.errors import AssemblyRefused, ReportError, UsageError
from auditor.report.build import canonical, pretty, write_text_atomic
from auditor.report.outdir import claim
from auditor.store import custody, dating, gzfile
from auditor.store.db import Store
from auditor.text.components import components
from auditor.text.dates import KINDS, Dated, newest_key
from auditor.text.shingle import distinct

if TYPE_CHECKING:
    from auditor.report.pipeline import Verification

# 2: dates in every plan line, superseded-by, newer and skipped, the boilerplate rule of report
# format 2 with unrelated containers. A plan of format 1 cannot be recomputed the same.
# 3: every plan line's novel share, and covered-by (policy min_novel).
FORMAT = "containment-auditor-assembly/3"
EARLIER = ("containment-auditor-assembly/1", "containment-auditor-assembly/2")
MANIFEST = "manifest.json"
PLAN = "plan.jsonl"
CHANGES = "changes.jsonl"
CORPUS = {"jsonl": "corpus.jsonl.gz", "parquet": "corpus.parquet"}
PARQUET_INSTALL = ("pip install 'containment-auditor[assemble-parquet]' (or the [spark] extra; from a "
                   "clone of the repository: pip install -e '.[assemble-parquet]')")

REDUNDANT = ("contained-in", "duplicate-of", "near-duplicate-of", "superseded-by", "covered-by")
OTHER_DROPS = ("withdrawn", "failed", "skipped", "not-auditable")
KEEPS = ("not-contained", "survivor", "containers-dropped", "boilerplate", "exhibit", "contained-kept", "newer")
SURVIVORS = ("earliest", "newest", "source", "largest")
DECISION_TABLE = {
    "keep": {
        "not-contained": "the run measured no document containing it",
        "survivor": "the documents measured to contain it are its copies (a family: they also "
                    "contain it), dropped in its favour by the survivor policy",
        "containers-dropped": "every document measured to contain it is dropped or withdrawn, and "
                              "none of the documents kept in their place was measured to contain it",
        "boilerplate": "boilerplate by measurement (contained in many documents), kept once as "
                       "the canonical copy (policy boilerplate=keep-once)",
        "exhibit": "an EDGAR exhibit contained in a kept document, kept as a separate document "
                   "(policy exhibits=separate)",
        "contained-kept": "contained in a kept document; the policy keeps contained documents "
                          "(policy contained=keep)",
        "newer": "contained only in kept documents that are older; the survivor policy newest "
                 "never drops a version in favour of an older one (an older version that holds text "
                 "this one cut, or an older copy kept for another reason)",
    },
    "drop": {
        "duplicate-of": "identical normalised text to the kept document (an exact duplicate)",
        "near-duplicate-of": "it contains the kept document and is contained in it, both at the "
                             "threshold (a family: a retyped, reformatted or lightly edited copy)",
        "superseded-by": "an older version of the kept document: they contain each other at the "
                         "threshold and the kept document's date is later",
        "contained-in": "contained in the kept document at the threshold (one way)",
        "covered-by": "its novel share (shingles found in no other kept document) is below the "
                      "policy's min_novel: the kept documents of its cover hold the rest; `kept` "
                      "names the one explaining the most (policy min_novel)",
        "withdrawn": "withdrawn from the corpus (its files are gone or it was withdrawn by hand)",
        "failed": "an input that could not be turned into text (failed at ingest)",
        "skipped": "an input ingest does not turn into text by design (an image, a spreadsheet, "
                   "pure XBRL, a special file), skipped at ingest",
        "not-auditable": "stored, but the audit cannot speak for it (too short to sample, no "
                         "text of its own such as an EDGAR submission envelope, or unreadable)",
    },
}


# -- policy ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Policy:
    """How the plan chooses; written into the manifest.

    ``survivor``: which copy of a duplicate group or family is kept: ``earliest`` ingested
    (lowest id), ``newest`` (latest date, see :func:`survivor_key`), ``source``
    (``prefer_source`` order) or ``largest`` (most words); or several, comma-separated
    (``newest,source``), applied in order. Ties go to the richer provenance, then to the
    earliest ingested (the latest under ``newest``). With ``newest`` first, no document is
    dropped in favour of an older one. ``contained``: ``drop`` a document contained in a kept
    one, or ``keep`` it.
    ``boilerplate``: ``keep-once`` (a boilerplate document is not dropped for being contained;
    its copies are) or ``drop`` (like any contained document). ``exhibits``: ``dedupe`` (EDGAR
    exhibits like any document) or ``separate`` (never dropped for being contained in a kept
    document; their copies are still dropped).
    """

    survivor: str = "earliest"
    prefer_source: tuple[str, ...] = ()
    contained: str = "drop"
    boilerplate: str = "keep-once"
    exhibits: str = "dedupe"
    min_novel: float | None = None  # drop a kept document whose novel share is below this (gather's cover)

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"contained": ("drop", "keep"),
               "boilerplate": ("keep-once", "drop"), "exhibits": ("dedupe", "separate")}

    def __post_init__(self) -> None:
        for name, allowed in self.CHOICES.items():
            if getattr(self, name) not in allowed:
                raise UsageError(f"policy {name}={getattr(self, name)!r}; expected one of {', '.join(allowed)}")
        criteria = self.survivor.split(",")
        bad = [c for c in criteria if c not in SURVIVORS]
        if bad or len(set(criteria)) != len(criteria):
            raise UsageError(f"policy survivor={self.survivor!r}; expected one of {', '.join(SURVIVORS)}, or "
                             "several of them comma-separated, each once (newest,source)")
        if "source" in criteria and not self.prefer_source:
            raise UsageError("survivor=source needs a preferred source order (--prefer-source edgar,data-room)")
        if self.min_novel is not None and not 0 < self.min_novel <= 1:
            raise UsageError(f"min_novel={self.min_novel}; expected a share in (0, 1]")

    @property
    def criteria(self) -> tuple[str, ...]:
        return tuple(self.survivor.split(","))

    @property
    def newest_first(self) -> bool:
        return self.criteria[0] == "newest"

    def as_dict(self) -> dict[str, Any]:
        return {"survivor": self.survivor, "prefer_source": list(self.prefer_source),
                "contained": self.contained, "boilerplate": self.boilerplate, "exhibits": self.exhibits,
                "min_novel": self.min_novel}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Policy:
        return cls(survivor=d["survivor"], prefer_source=tuple(d.get("prefer_source") or ()),
                   contained=d["contained"], boilerplate=d["boilerplate"], exhibits=d["exhibits"],
                   min_novel=d.get("min_novel"))


# -- resolution (pure) -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Decision:
    """One document's decision. ``target``: the kept document in its place (redundancy drops);
    ``measured``: the (contained unit, container unit) finding behind the decision, if any;
    ``containers``: how many units the run measured to contain its unit; ``older``: for a
    ``newer`` keep, the kept (older) document that contains it."""

    keep: bool
    reason: str
    target: int | None = None
    measured: tuple[int, int] | None = None
    containers: int = 0
    older: int | None = None


def _components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected component (its smallest position) of each of ``n`` positions, edges a-b."""
    k, label = components(n, a, b)
    smallest = np.full(k, n, np.int64)
    np.minimum.at(smallest, label, np.arange(n, dtype=np.int64))
    return smallest[label]


def _sccs(nodes: Sequence[int], succ: Mapping[int, Sequence[int]]) -> list[list[int]]:
    """Strongly connected components (scipy's, ``auditor.text.components``), each sorted and listed
    after every component it reaches (``graphlib`` orders the components): with edges from
    contained to container, containers come first. Among components that do not reach one
    another the order is graphlib's; ``resolve`` decides each from what it reaches, so any
    such order gives the same decisions."""
    nodes = sorted(nodes)
    at = {v: i for i, v in enumerate(nodes)}
    edges = [(at[v], at[w]) for v in nodes for w in succ.get(v, ())]
    src = np.array([e[0] for e in edges], np.int64)
    dst = np.array([e[1] for e in edges], np.int64)
    k, label = components(len(nodes), src, dst, strong=True)
    members: list[list[int]] = [[] for _ in range(k)]
    for v, c in zip(nodes, label.tolist(), strict=True):
        members[c].append(v)
    reaches: dict[int, set[int]] = {c: set() for c in range(k)}
    for c, d in zip(label[src].tolist(), label[dst].tolist(), strict=True):
        if c != d:
            reaches[c].add(d)
    return [members[c] for c in graphlib.TopologicalSorter(reaches).static_order()]


def resolve(
    units: Mapping[int, Sequence[int]],
    edges: tuple[Sequence[int] | np.ndarray, Sequence[int] | np.ndarray, Sequence[float] | np.ndarray],
    rank: Mapping[int, Any],
    exempt: Mapping[int, str] | None = None,
    newer: Callable[[int, int], bool] | None = None,
) -> dict[int, Decision]:
    """Keep or drop every member of ``units`` (see the module docstring); pure and deterministic.

    :param units: unit id -> its member documents (exact duplicates of one another); every
        document in exactly one unit.
    :param edges: (contained unit, container unit, containment): the measured containing pairs,
        over unit ids. A pair naming a unit and itself is ignored; a container not in ``units``
        (withdrawn) is counted in ``Decision.containers`` and is never a target.
    :param rank: document -> sort key of the survivor policy (lower is preferred).
    :param exempt: document -> the keep reason for which it is not dropped as ``contained-in``
        (boilerplate, exhibit, contained-kept); it may still be a duplicate or near-duplicate.
    :param newer: ``newer(d, k)``: whether document ``d`` is strictly newer than ``k`` (the
        survivor policy ``newest``). Then no document is dropped in favour of an older one (one
        held only by older kept documents is kept, ``newer``), and the members of a family are
        decided strictly in ``rank`` order, the newest first, even where an older member
        contains a newer one.
    """
    exempt = exempt or {}
    ids = sorted(u for u, m in units.items() if m)
    members = {u: sorted(units[u], key=lambda d: (rank[d], d)) for u in ids}
    urank = {u: (rank[members[u][0]], members[u][0]) for u in ids}

    a = np.asarray(edges[0], dtype=np.int64)
    b = np.asarray(edges[1], dtype=np.int64)
    x = np.asarray(edges[2], dtype=np.float64)
    known = np.array(ids, dtype=np.int64)
    n_containers: dict[int, int] = {}  # containers per unit, counting those not in ``units`` (withdrawn)
    from_known = np.isin(a, known) & (a != b)
    if from_known.any():
        ua, ub = a[from_known], b[from_known]
        base = int(max(ua.max(), ub.max())) + 1
        keys = distinct(ua * base + ub)  # (contained, container) pairs, sorted by contained
        owner = keys // base
        edges_at = np.concatenate(([0], np.flatnonzero(owner[1:] != owner[:-1]) + 1, [len(owner)]))
        n_containers = dict(zip(owner[edges_at[:-1]].tolist(), np.diff(edges_at).tolist(), strict=True))
    ok = from_known & np.isin(b, known)
    a, b, x = a[ok], b[ok], x[ok]
    pa = np.searchsorted(known, a)
    pb = np.searchsorted(known, b)
    n = len(ids)
    key = pa * max(n, 1) + pb
    order = np.lexsort((-x, key))  # one edge per pair: the highest containment
    key, pa, pb, x = key[order], pa[order], pb[order], x[order]
    first = np.concatenate(([True], key[1:] != key[:-1])) if len(key) else np.zeros(0, bool)
    key, pa, pb, x = key[first], pa[first], pb[first], x[first]
    rev = pb * max(n, 1) + pa
    at = np.minimum(np.searchsorted(key, rev), max(len(key) - 1, 0))
    mutual = (key[at] == rev) if len(key) else np.zeros(0, bool)

    fam = _components(n, pa[mutual], pb[mutual])  # families: connected by mutual containment
    one_way = ~mutual
    fa, fb = fam[pa[one_way]], fam[pb[one_way]]
    cross = fa != fb
    fam_succ: dict[int, list[int]] = {}
    if cross.any():
        pairs = distinct(fa[cross] * max(n, 1) + fb[cross])
        for f, g in zip((pairs // max(n, 1)).tolist(), (pairs % max(n, 1)).tolist(), strict=True):
            fam_succ.setdefault(f, []).append(g)
    fam_members: dict[int, list[int]] = {}
    for p, f in enumerate(fam.tolist()):
        fam_members.setdefault(f, []).append(p)
    blocks = _sccs(sorted(fam_members), fam_succ)

    # containers of each unit (positions), and one-way containment inside blocks for ordering
    out_ptr = np.searchsorted(pa, np.arange(n + 1))  # edges are sorted by contained position
    out_b, out_x, out_m = pb.tolist(), x.tolist(), mutual.tolist()
    ptr = out_ptr.tolist()

    kept_doc: list[int | None] = [None] * n
    result: dict[int, Decision] = {}

    def decide(p: int) -> None:
        u = ids[p]
        both: list[tuple[float, int, int]] = []  # (-containment, kept doc, container position)
        held: list[tuple[float, int, int]] = []  # one way
        for i in range(ptr[p], ptr[p + 1]):
            q = out_b[i]
            k = kept_doc[q]
            if k is not None:
                (both if out_m[i] else held).append((-out_x[i], k, q))
        containers = n_containers.get(u, 0)
        for d in members[u]:
            if newer is None:
                best_m, best_c = min(both, default=None), min(held, default=None)
            else:  # never in favour of an older document
                best_m = min((c for c in both if not newer(d, c[1])), default=None)
                best_c = min((c for c in held if not newer(d, c[1])), default=None)
            if kept_doc[p] is not None:
                result[d] = Decision(False, "duplicate-of", kept_doc[p], None, containers)
            elif best_m is not None:
                result[d] = Decision(False, "near-duplicate-of", best_m[1], (u, ids[best_m[2]]), containers)
            elif best_c is not None and d not in exempt:
                result[d] = Decision(False, "contained-in", best_c[1], (u, ids[best_c[2]]), containers)
            else:
                older = None
                if held and d in exempt:
                    why, measured = exempt[d], (u, ids[min(held)[2]])
                elif held or both:  # held only by older kept documents
                    c = min(held or both)
                    why, measured, older = "newer", (u, ids[c[2]]), c[1]
                elif containers:
                    why, measured = "containers-dropped", None
                else:
                    why, measured = "not-contained", None
                result[d] = Decision(True, why, None, measured, containers, older)
                kept_doc[p] = d

    for block in blocks:
        nodes = sorted(p for f in block for p in fam_members[f])
        if len(nodes) == 1:
            decide(nodes[0])
            continue
        inside = set(nodes)
        waiting: dict[int, int] = {}
        contains: dict[int, list[int]] = {}
        for p in nodes:
            cs = {out_b[i] for i in range(ptr[p], ptr[p + 1])
                  if not out_m[i] and out_b[i] in inside} if newer is None else set()
            waiting[p] = len(cs)
            for q in cs:
                contains.setdefault(q, []).append(p)
        ready = [(urank[ids[p]], p) for p in nodes if not waiting[p]]
        heapq.heapify(ready)
        left = set(nodes)
        while left:
            if ready:
                _, p = heapq.heappop(ready)
                if p not in left:
                    continue
            else:  # a cycle of one-way containment: the preferred member goes first
                p = min(left, key=lambda q: urank[ids[q]])
            left.discard(p)
            decide(p)
            for w in contains.get(p, ()):
                waiting[w] -= 1
                if waiting[w] == 0 and w in left:
                    heapq.heappush(ready, (urank[ids[w]], w))
    for p, k in enumerate(kept_doc):  # kept before its copies were decided: name that
        if k is not None and result[k].reason == "containers-dropped" and result[k].containers == (
                ptr[p + 1] - ptr[p]) and all(result[d].target == k for i in range(ptr[p], ptr[p + 1])
                                            for d in members[ids[out_b[i]]]):
            result[k] = Decision(True, "survivor", None, None, result[k].containers)
    return result


def check_plan(decisions: Mapping[int, Decision]) -> list[str]:
    """Violations of the invariant: a redundancy drop that names no document, or a dropped or
    unknown one; any other drop that names a document."""
    problems = []
    for d, dec in sorted(decisions.items()):
        if not dec.keep and dec.reason in REDUNDANT:
            t = decisions.get(dec.target) if dec.target is not None else None
            if t is None or not t.keep:
                problems.append(f"{d}: {dec.reason} {dec.target}, which is "
                                + ("not in the plan" if t is None else f"dropped ({t.reason})"))
        elif dec.target is not None:
            problems.append(f"{d}: {'kept' if dec.keep else dec.reason} but names {dec.target}")
    return problems


# -- reading the store -----------------------------------------------------------------------

def _run_row(store: Store, run: str | None) -> dict[str, Any]:
    if run is None:
        rows = store.rows("SELECT * FROM runs WHERE kind = 'audit' ORDER BY id DESC LIMIT 1")
        if not rows:
            raise UsageError(f"{store.path} has no audit run: run `auditor audit` first")
    else:
        rows = store.rows("SELECT * FROM runs WHERE run_id = ?", (run,))
        if not rows and run.isdigit():
            rows = store.rows("SELECT * FROM runs WHERE id = ?", (int(run),))
        if not rows:
            raise UsageError(f"no run {run!r} in {store.path} (see `auditor runs` or the reports' run ids)")
    r = rows[0]
    if r["kind"] != "audit":
        raise UsageError(f"run {r['run_id']} is a {r['kind']} run; a plan needs an audit of the whole "
                         "corpus (`auditor audit`)")
    if r["status"] != "OK":
        why = _refused_because(r.get("report_dir"))
        raise AssemblyRefused(f"run {r['run_id']} was {r['status']}" + (f" ({why})" if why else "")
                              + ": no plan is made from a refused audit; fix the cause and audit again")
    return r


def _refused_because(report_dir: str | None) -> str:
    try:
        report = json.loads((Path(report_dir or "") / "report.json").read_text(encoding="utf-8"))
        return "; ".join(report.get("refused_because") or [])
    except (OSError, ValueError):
        return ""


@dataclass
class Doc:
    id: int
    sha256: str
    path: str
    format: str
    size: int
    n_chars: int
    n_words: int
    batch: str | None
    created: str
    norm_sha256: str | None
    parent_id: int | None
    meta: dict[str, Any]
    withdrawn: dict[str, Any] | None
    source: str | None = None  # of its first sighting
    sources: list[str] = field(default_factory=list)
    seen: int = 0  # sightings
    parts: list[int] = field(default_factory=list)  # an EDGAR submission's documents
    dated: list[Dated] = field(default_factory=list)  # its best date of each kind, most trusted first

    @property
    def exhibit(self) -> bool:
        return self.parent_id is not None and str(self.meta.get("type") or "").upper().startswith("EX-")


_SUBMISSION = ("accession_number", "form_type", "filing_date", "company_name", "cik")
_PART = ("type", "sequence", "filename", "description")
EDGAR_FIELDS = ("submission_id", *_SUBMISSION, *_PART)


def _edgar(doc: Doc, docs: Mapping[int, Doc]) -> dict[str, Any] | None:
    """EDGAR metadata, flat: the submission's header fields and the part's, as strings."""
    if doc.parent_id is not None and doc.parent_id in docs:
        head, part = docs[doc.parent_id].meta, doc.meta
    elif doc.meta.get("accession_number"):
        head, part = doc.meta, {}
    else:
        return None

    def s(v: Any) -> str | None:
        return None if v is None else str(v)

    return {"submission_id": doc.parent_id, **{k: s(head.get(k)) for k in _SUBMISSION},
            **{k: s(part.get(k)) for k in _PART}}


def _documents(store: Store) -> dict[int, Doc]:
    batches = {int(k): v for k, v in store.conn.execute("SELECT id, name FROM batches")}
    docs: dict[int, Doc] = {}
    for r in store.conn.execute(
            "SELECT id, sha256, path, format, size, n_chars, n_words, batch_id, created, norm_sha256,"
            " parent_id, meta, withdrawn_at, withdrawn_reason, withdrawn_by FROM documents ORDER BY id"):
        docs[r[0]] = Doc(r[0], r[1], r[2], r[3], r[4], r[5], r[6], batches.get(r[7]), r[8], r[9], r[10],
                         json.loads(r[11] or "{}"),
                         {"at": r[12], "reason": r[13], "by": r[14]} if r[12] else None)
    for doc_id, source in store.conn.execute("SELECT doc_id, source FROM sightings ORDER BY doc_id, id"):
        d = docs.get(doc_id)
        if d is None:
            continue
        if not d.seen:
            d.source = source
        d.seen += 1
        if source and source not in d.sources:
            d.sources.append(source)
    for d in docs.values():
        d.sources.sort()
        if d.parent_id is not None and d.parent_id in docs:
            docs[d.parent_id].parts.append(d.id)
    if has_dates(store.conn):
        for doc_id, dated in dating.evidence(store.conn, sorted(docs)).items():
            docs[doc_id].dated = dated
    return docs


def has_dates(conn: Any) -> bool:
    """Whether the store keeps dates (migration 0008; a read-only store may predate it)."""
    return "date" in {r[1] for r in conn.execute("PRAGMA table_info(documents)")}


def richness(doc: Doc, docs: Mapping[int, Doc], dated: Sequence[Dated]) -> tuple[int, int, int, int]:
    """How much is known of where a document comes from, higher is richer: the EDGAR header
    fields it carries (accession number, form type, filing date), the trust of its best date
    (supplied 5, metadata 4, mtime 3, text 2, copied 1, none 0), its sources, its sightings."""
    e = _edgar(doc, docs) or {}
    edgar = sum(1 for k in ("accession_number", "form_type", "filing_date") if e.get(k))
    trust = len(KINDS) - KINDS.index(dated[0].kind) if dated else 0
    return edgar, trust, len(doc.sources), doc.seen


def survivor_key(policy: Policy, docs: Mapping[int, Doc], dated: Mapping[int, Sequence[Dated]],
                 ) -> Callable[[int], list[tuple[str, tuple]]]:
    """The survivor policy as a sort key, lower preferred, in named parts: each criterion in
    order (``earliest``: lowest id; ``newest``: the latest date, then the next kind's date, see
    ``dates.newest_key``; ``source``: the first preferred source of any sighting; ``largest``:
    most words), then ``provenance`` (richer first, :func:`richness`), then ``ingest order``
    (the earliest ingested; under ``newest`` first, the latest)."""
    order = {s: i for i, s in enumerate(policy.prefer_source)}
    worst = len(order)
    part: dict[str, Callable[[int], tuple]] = {
        "earliest": lambda d: (d,),
        "newest": lambda d: newest_key(dated.get(d, ())),
        "source": lambda d: (min((order.get(s, worst) for s in docs[d].sources), default=worst),),
        "largest": lambda d: (-docs[d].n_words,),
        "provenance": lambda d: tuple(-x for x in richness(docs[d], docs, dated.get(d, ()))),
        "ingest order": (lambda d: (-d,)) if policy.newest_first else (lambda d: (d,)),
    }
    names = (*policy.criteria, "provenance", "ingest order")
    return lambda d: [(n, part[n](d)) for n in names]


def _rank(policy: Policy, docs: Mapping[int, Doc], dated: Mapping[int, Sequence[Dated]]) -> Callable[[int], tuple]:
    parts = survivor_key(policy, docs, dated)
    return lambda d: tuple(x for _, key in parts(d) for x in key)


def decided_by(policy: Policy, docs: Mapping[int, Doc], dated: Mapping[int, Sequence[Dated]],
               dropped: int, kept: int) -> str:
    """The first part of the survivor key that puts ``kept`` before ``dropped``; ``containment``
    when the key prefers the dropped one (a family member contained one way in another waits
    for it: the survivor should hold the others)."""
    key = survivor_key(policy, docs, dated)
    for (name, a), (_, b) in zip(key(kept), key(dropped), strict=True):
        if a != b:
            return name if a < b else "containment"
    return "ingest order"


# -- the plan --------------------------------------------------------------------------------

@dataclass
class Entry:
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
    entries: list[Entry]
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
                "SELECT contained_id, container_id, containment, estimate, low, high, hits, sampled,"
                " shared, shingles, family, spans FROM findings WHERE run = ? AND contained_id = ?"
                " AND container_id = ?", (self.run["id"], *pair)).fetchone()
            self._findings[pair] = None if row is None else {
                "contained": row[0], "container": row[1], "containment": row[2], "estimate": row[3],
                "interval": [row[4], row[5]], "hits": row[6], "sampled": row[7], "shared": row[8],
                "shingles": row[9], "family": row[10], "spans": json.loads(row[11]) if row[11] else None}
        return self._findings[pair]

    def evidence(self, e: Entry) -> dict[str, Any] | None:
        dec = e.decision
        ev: dict[str, Any] = dict(e.detail)
        if dec.measured is not None:
            f = self.finding(dec.measured)
            ev["finding"] = f
            if dec.reason in ("near-duplicate-of", "superseded-by"):
                r = self.finding((dec.measured[1], dec.measured[0]))
                ev["reverse"] = None if r is None else {k: r[k] for k in (
                    "containment", "estimate", "interval", "hits", "sampled", "shared", "shingles")}
            if e.doc_id != dec.measured[0] or (dec.target is not None and dec.target != dec.measured[1]):
                ev["measured_through"] = {
                    "contained": dec.measured[0], "container": dec.measured[1],
                    "note": "exact duplicates (identical normalised text) are measured through their "
                            "group's first document; the containment is the same for every member"}
        if dec.containers and dec.reason not in ("duplicate-of",):
            ev["containers"] = dec.containers
        if e.doc_id is not None:
            dates: dict[str, Any] = {"this": [x.as_dict() for x in self.docs[e.doc_id].dated]}
            if dec.target is not None:
                dates["kept"] = [x.as_dict() for x in self.docs[dec.target].dated]
            elif dec.older is not None:
                dates["container"] = [x.as_dict() for x in self.docs[dec.older].dated]
            ev["dates"] = dates
        return ev or None

    def provenance(self, d: Doc) -> dict[str, Any]:
        p: dict[str, Any] = {
            "path": d.path, "sha256": d.sha256, "format": d.format, "size": d.size, "chars": d.n_chars,
            "words": d.n_words, "batch": d.batch, "ingested": d.created, "source": d.source,
            "sources": d.sources, "sightings": d.seen, "edgar": _edgar(d, self.docs),
            "date": d.dated[0].date if d.dated else None, "date_source": d.dated[0].source if d.dated else None}
        if d.withdrawn:
            p["withdrawn"] = d.withdrawn
        return p

    def plan_lines(self) -> Iterator[bytes]:
        """One canonical JSON line per stored document (by id), then per failed input."""
        stands: dict[int, list[int]] = {}
        for e in self.entries:
            if e.doc_id is not None and e.decision.target is not None:
                stands.setdefault(e.decision.target, []).append(e.doc_id)
        for e in self.entries:
            dec = e.decision
            line: dict[str, Any] = {
                "doc_id": e.doc_id, "decision": "keep" if dec.keep else "drop", "reason": dec.reason,
                "kept": dec.target, "evidence": self.evidence(e)}
            if e.doc_id is not None:
                line["novel"] = _novel(self.novel.get(e.doc_id))
                line["provenance"] = self.provenance(self.docs[e.doc_id])
                if dec.keep:
                    line["stands_for"] = sorted(stands.get(e.doc_id, []))
            else:
                line["input"] = e.failure
            yield (canonical(line) + "\n").encode("utf-8")

    def corpus_records(self) -> Iterator[dict[str, Any]]:
        """The kept documents in id order, each with its text and provenance."""
        kept = self.kept
        for a in range(0, len(kept), 200):
            chunk = kept[a : a + 200]
            texts = dict(self.store.select_in("SELECT doc_id, text FROM texts WHERE doc_id IN ({})", chunk))
            for doc_id in chunk:
                d = self.docs[doc_id]
                yield {"id": d.id, "sha256": d.sha256, "path": d.path, "source": d.source,
                       "batch": d.batch, "format": d.format, "n_words": d.n_words,
                       "edgar": _edgar(d, self.docs), "text": texts.get(doc_id, "")}

    def corpus_lines(self) -> Iterator[bytes]:
        for rec in self.corpus_records():
            yield _record_line(rec)

    def summary(self) -> dict[str, Any]:
        """Counts, raw bytes and text characters, kept and dropped, by reason and by source."""
        def add(bucket: dict[str, Any], size: int, chars: int) -> None:
            bucket["documents"] = bucket.get("documents", 0) + 1
            bucket["bytes"] = bucket.get("bytes", 0) + size
            bucket["chars"] = bucket.get("chars", 0) + chars

        total: dict[str, Any] = {}
        by_reason: dict[str, dict[str, Any]] = {"keep": {}, "drop": {}}
        by_source: dict[str, dict[str, Any]] = {}
        for e in self.entries:
            decision = "keep" if e.decision.keep else "drop"
            if e.doc_id is not None:
                d = self.docs[e.doc_id]
                size, chars, source = d.size, d.n_chars, d.source
            else:
                assert e.failure is not None
                size, chars, source = int(e.failure.get("size") or 0), 0, e.failure.get("source")
            add(total.setdefault(decision, {}), size, chars)
            add(by_reason[decision].setdefault(e.decision.reason, {}), size, chars)
            add(by_source.setdefault(source or "(none)", {}).setdefault(decision, {}), size, chars)
        return {"documents": sum(1 for e in self.entries if e.doc_id is not None),
                "failed_inputs": sum(1 for e in self.entries if e.doc_id is None and e.decision.reason == "failed"),
                "skipped_inputs": sum(1 for e in self.entries if e.doc_id is None and e.decision.reason == "skipped"),
                "keep": total.get("keep", {"documents": 0, "bytes": 0, "chars": 0}),
                "drop": total.get("drop", {"documents": 0, "bytes": 0, "chars": 0}),
                "by_reason": by_reason, "by_source": by_source}

    def manifest_core(self) -> dict[str, Any]:
        """Everything the manifest says apart from its files, changes and digest."""
        params = json.loads(self.run["params"] or "{}")
        core: dict[str, Any] = {
            "format": FORMAT,
            "tool": "containment-auditor",
            "tool_version": __version__,
            "run": {"run_id": self.run["run_id"], "kind": self.run["kind"], "status": self.run["status"],
                    "report_digest": self.run["digest"], "params": params},
            "policy": self.policy.as_dict(),
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
            "corpus": {"format": self.format, "file": CORPUS[self.format], "documents": len(self.kept),
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
            "summary": self.summary(),
        }
        if self.format == "parquet":
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
    r = _run_row(store, run)
    docs = _documents(store)
    covered = {row[0]: row[1:] for row in store.conn.execute(
        "SELECT doc_id, status, duplicate_of, reason, boilerplate FROM run_documents WHERE run = ?"
        " ORDER BY doc_id", (r["id"],))}
    uncovered = [d.id for d in docs.values() if d.withdrawn is None and d.n_words > 0 and d.id not in covered]
    if uncovered:
        raise UsageError(
            f"run {r['run_id']} did not cover {len(uncovered)} stored document(s) (ids "
            + ", ".join(map(str, uncovered[:10])) + (" ..." if len(uncovered) > 10 else "")
            + "): they were ingested or restored after it" + ("" if covered else
            " (or the run predates report format 2, which records its documents)")
            + "; run `auditor audit` again and assemble from that run")
    dated = {d.id: d.dated for d in docs.values()}
    rank = _rank(policy, docs, dated)
    entries: dict[int, Entry] = {}
    units: dict[int, list[int]] = {}
    exempt: dict[int, str] = {}
    not_auditable = {d: reason for d, (status, _, reason, _) in covered.items() if status == "not-auditable"}
    for d in docs.values():
        row = covered.get(d.id)
        if d.withdrawn is not None:
            entries[d.id] = Entry(d.id, Decision(False, "withdrawn"), {"withdrawn": d.withdrawn})
        elif d.n_words == 0 or row is None:
            why = ("an EDGAR submission: no text of its own; its documents are its parts"
                   if d.parts or d.format == "edgar" else "no words in its extracted text")
            detail: dict[str, Any] = {"why": why}
            if d.parts:
                detail["parts"] = sorted(d.parts)
            entries[d.id] = Entry(d.id, Decision(False, "not-auditable"), detail)
        else:
            status, dup_of, _, _ = row
            rep = dup_of if status == "duplicate" and dup_of is not None else d.id
            if rep in not_auditable:
                detail = {"why": not_auditable[rep]}
                if rep != d.id:
                    detail["duplicate_of"] = rep
                entries[d.id] = Entry(d.id, Decision(False, "not-auditable"), detail)
                continue
            units.setdefault(rep, []).append(d.id)
            bp = covered.get(rep, row)[3]
            if policy.boilerplate == "keep-once" and bp:
                exempt[d.id] = "boilerplate"
            elif policy.exhibits == "separate" and d.exhibit:
                exempt[d.id] = "exhibit"
            elif policy.contained == "keep":
                exempt[d.id] = "contained-kept"
    a, b, x = _edges(store, r["id"])
    ranks = {d: rank(d) for u in units.values() for d in u}
    newer = None
    if policy.newest_first:
        keys = {d: newest_key(dated[d]) for d in ranks}

        def newer(d: int, k: int) -> bool:
            return keys[d] < keys[k]

    decided = resolve(units, (a, b, x), ranks, exempt, newer)
    for members in units.values():
        for m in members:
            dec = decided[m]
            detail = {}
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
            entries[m] = Entry(m, dec, detail)
    novel = _novelty(store, entries, policy, float(json.loads(r["params"] or "{}").get("threshold", 0.8)))
    ordered = [entries[d] for d in sorted(entries)]
    ordered += _failed_inputs(store, {d.sha256 for d in docs.values()})
    out = Assembly(store, r, policy, format, docs, ordered, novel)
    problems = check_plan(out.decisions)
    if problems:  # a bug, never an input: fail loudly rather than write a plan that breaks it
        raise AssertionError("plan invariant broken: " + "; ".join(problems[:5]))
    return out


def _novelty(store: Store, entries: dict[int, Entry], policy: Policy, threshold: float) -> dict[int, tuple[int, int]]:
    """``policy.min_novel``: drop the kept documents (kept for nothing the policy names: not
    boilerplate, exhibits or contained documents it keeps) whose novel share among the other kept
    documents is below it, as ``covered-by`` the document of their cover explaining the most,
    with the cover as evidence (``gather.drop_low_novelty``). Returns every document's novel
    share among the documents kept in the end (``gather.novelty_among``), for the plan."""
    from auditor.engine.gather import drop_low_novelty, novelty_among

    kept = sorted(d for d, e in entries.items() if e.decision.keep)
    if policy.min_novel is not None:
        eligible = [d for d in kept if entries[d].decision.reason in ("not-contained", "survivor", "containers-dropped")]
        for d, g in drop_low_novelty(store, kept, eligible, policy.min_novel, threshold=threshold):
            cover = g.as_dict()
            for c in cover["components"]:
                c.pop("spans")
            entries[d] = Entry(d, Decision(False, "covered-by", g.components[0].doc_id, None,
                                           entries[d].decision.containers),
                               {"min_novel": policy.min_novel, "cover": cover})
        kept = sorted(d for d, e in entries.items() if e.decision.keep)
    return novelty_among(store, kept, entries)


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


def _failed_inputs(store: Store, stored: set[str]) -> list[Entry]:
    """Inputs that failed or were skipped and whose bytes were never stored since."""
    batches = {int(k): v for k, v in store.conn.execute("SELECT id, name FROM batches")}
    out = []
    for (batch_id, status, code, message, path, part, within, sha, size, source) in store.conn.execute(
            "SELECT batch_id, status, code, message, path, part, within_id, sha256, size, source"
            " FROM failures ORDER BY path, part, sha256, id"):
        if sha and sha in stored:
            continue
        failure = {"path": path, "part": part or None, "within": within, "sha256": sha, "size": size,
                   "source": source, "batch": batches.get(batch_id), "status": status, "code": code}
        out.append(Entry(None, Decision(False, "skipped" if status == "skipped" else "failed"),
                         {"status": status, "code": code, "message": message}, failure))
    return out


# -- writing ---------------------------------------------------------------------------------

def _record_line(rec: Mapping[str, Any]) -> bytes:
    """A corpus record as ``canonical`` writes it (it holds no float to round), faster."""
    return (json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def _content(lines: Iterable[bytes]) -> dict[str, Any]:
    h, n = hashlib.sha256(), 0
    for line in lines:
        h.update(line)
        n += 1
    return {"sha256": h.hexdigest(), "lines": n}


def _write_lines(path: Path, lines: Iterable[bytes], *, compress: bool) -> dict[str, Any]:
    """Written beside and renamed, by the auditor's one deterministic gzip writer when
    ``compress``, so the same lines give the same bytes. Returns the content digest."""
    return gzfile.write_lines(path, lines, compress=compress)


def require_parquet() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as e:
        raise UsageError(f"--format parquet needs pyarrow, which is not installed: {PARQUET_INSTALL}") from e
    return pyarrow


def _parquet_schema(pa: Any) -> Any:
    edgar = pa.struct([("submission_id", pa.int64())] + [(k, pa.string()) for k in EDGAR_FIELDS[1:]])
    return pa.schema([("id", pa.int64()), ("sha256", pa.string()), ("path", pa.string()),
                      ("source", pa.string()), ("batch", pa.string()), ("format", pa.string()),
                      ("n_words", pa.int64()), ("edgar", edgar), ("text", pa.large_string())])


ROW_GROUP_CHARS = 64_000_000


def _write_parquet(path: Path, records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    pa = require_parquet()
    import pyarrow.parquet as pq

    schema = _parquet_schema(pa)
    h, n = hashlib.sha256(), 0
    with gzfile.replacing(path) as tmp, pq.ParquetWriter(tmp, schema, compression="zstd") as w:
        batch: list[dict[str, Any]] = []
        held = 0
        for rec in records:
            batch.append(rec)
            h.update(_record_line(rec))
            n += 1
            held += len(rec["text"])
            if held >= ROW_GROUP_CHARS:
                w.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch, held = [], 0
        if batch or not n:
            w.write_table(pa.Table.from_pylist(batch, schema=schema))
    return {"sha256": h.hexdigest(), "lines": n}


def read_parquet_lines(path: Path) -> Iterator[bytes]:
    """A Parquet corpus's rows as the canonical JSON lines they were hashed as."""
    require_parquet()
    import pyarrow.parquet as pq

    try:
        f = pq.ParquetFile(path)
        for i in range(f.num_row_groups):
            for rec in f.read_row_group(i).to_pylist():
                yield _record_line(rec)
    except (OSError, ValueError) as e:  # pyarrow's errors derive from these
        raise ReportError(f"cannot read {path}: {e}") from e


def _read_lines(path: Path) -> Iterator[bytes]:
    if path.name.endswith(".parquet"):
        yield from read_parquet_lines(path)
    else:
        yield from gzfile.read_lines(path)


def digest(manifest: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical({k: v for k, v in manifest.items() if k != "digest"})
                          .encode("utf-8")).hexdigest()


# -- changes since a previous plan -----------------------------------------------------------

def _key(line: Mapping[str, Any]) -> str:
    if line.get("doc_id") is not None:
        return f"doc:{int(line['doc_id']):012d}"
    i = line.get("input") or {}
    return f"input:{i.get('path')}#{i.get('part') or ''}@{i.get('sha256')}"


@dataclass
class Previous:
    lines: dict[str, dict[str, Any]]
    info: dict[str, Any]


def read_previous(path: str | os.PathLike) -> Previous:
    """A previous plan (plan.jsonl, or the directory holding it and its manifest)."""
    p = Path(path)
    manifest = None
    if p.is_dir():
        if (p / MANIFEST).is_file():
            manifest = json.loads((p / MANIFEST).read_text(encoding="utf-8"))
        p = p / PLAN
    elif (p.parent / MANIFEST).is_file():
        try:
            manifest = json.loads((p.parent / MANIFEST).read_text(encoding="utf-8"))
        except ValueError:
            manifest = None
    if not p.is_file():
        raise UsageError(f"no previous plan at {path}")
    lines: dict[str, dict[str, Any]] = {}
    h, n = hashlib.sha256(), 0
    try:
        with open(p, "rb") as f:
            for raw in f:
                h.update(raw)
                n += 1
                line = json.loads(raw)
                lines[_key(line)] = {k: line.get(k) for k in ("doc_id", "decision", "reason", "kept", "input")}
    except (OSError, ValueError, TypeError) as e:
        raise UsageError(f"{p} is not a plan: {e}") from e
    info: dict[str, Any] = {"plan": {"sha256": h.hexdigest(), "lines": n}}
    if manifest and manifest.get("format") in (FORMAT, *EARLIER):
        info["digest"] = manifest.get("digest")
        info["run_id"] = (manifest.get("run") or {}).get("run_id")
        info["policy"] = manifest.get("policy")
    return Previous(lines, info)


def changes(current: Iterable[bytes], previous: Previous) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """What changed: documents newly dropped or newly kept, decided for another reason or in
    favour of another document, new since the previous plan, or gone from it; with why."""
    now: dict[str, dict[str, Any]] = {}
    for raw in current:
        line = json.loads(raw)
        now[_key(line)] = line
    out: list[dict[str, Any]] = []
    for key in sorted(set(now) | set(previous.lines)):
        before, after = previous.lines.get(key), now.get(key)
        b = None if before is None else {k: before[k] for k in ("decision", "reason", "kept")}
        a = None if after is None else {k: after[k] for k in ("decision", "reason", "kept")}
        if a == b:
            continue
        if b is None:
            kind = "new"
        elif a is None:
            kind = "gone"
        elif b["decision"] != a["decision"]:
            kind = "newly-kept" if a["decision"] == "keep" else "newly-dropped"
        else:
            kind = "changed"
        ref = after or before or {}
        out.append({"key": key, "doc_id": ref.get("doc_id"), "input": ref.get("input"), "change": kind,
                    "before": b, "after": a, "why": _why(kind, b, a, after, now)})
    counts: dict[str, int] = {}
    for c in out:
        counts[c["change"]] = counts.get(c["change"], 0) + 1
    return out, counts


def _said(d: Mapping[str, Any], evidence: Mapping[str, Any] | None = None) -> str:
    out = f"{'kept' if d['decision'] == 'keep' else 'dropped'} ({d['reason']}"
    if d["kept"] is not None:
        out += f" {d['kept']}"
        f = (evidence or {}).get("finding")
        if f:
            out += f", containment {f['containment']:.4f}"
    return out + ")"


def _why(kind: str, b: dict | None, a: dict | None, after: dict | None, now: dict[str, dict]) -> str:
    if kind == "gone":
        return "in the previous plan, not in this one (made from another store?)"
    assert a is not None
    said = f"{_said(a, (after or {}).get('evidence'))}: {DECISION_TABLE[a['decision']].get(a['reason'], '')}"
    if kind == "new":
        return "new since the previous plan; " + said
    assert b is not None
    said += f"; previously {_said(b)}"
    if b["kept"] is not None and b["kept"] != a["kept"]:
        t = now.get(f"doc:{int(b['kept']):012d}")
        if t is not None:
            said += f", and document {b['kept']} is now {_said(t)}"
    return said


# -- the job ---------------------------------------------------------------------------------

@dataclass
class Assembled:
    manifest: dict[str, Any]
    directory: Path
    files: list[Path]
    dates: dating.Applied | None = None  # what ``dates`` did


def assemble(store: Store, out: str | os.PathLike, *, run: str | None = None, policy: Policy = Policy(),
             format: str = "jsonl", previous: str | os.PathLike | None = None,
             dates: str | os.PathLike | None = None) -> Assembled:
    """Make the plan, write plan.jsonl, the corpus, changes.jsonl (with ``previous``) and
    manifest.json (last, with the digest over everything) into ``out``. ``dates``: a dates file
    recorded in the store first (``dating.apply_dates``), so ``verify`` finds them there."""
    if format == "parquet":
        require_parquet()
    if (Path(out) / "report.json").exists():
        raise UsageError(f"{out} holds an audit report; write the assembled corpus to another directory")
    prev = read_previous(previous) if previous is not None else None  # before out/plan.jsonl is replaced
    claim(Path(out), _written(Path(out)))
    applied = dating.apply_dates(store, dates) if dates is not None else None
    verified = require_intact(store)  # a store altered behind its back would be shipped: StoreDamaged
    store.conn.execute("BEGIN")  # one read snapshot
    try:
        head = custody.head(store.conn)  # the state of the store the corpus is made from
        a = plan(store, run=run, policy=policy, format=format)
        require_run_intact(store, a.run["id"])  # the run's pairs and documents it is made from
        directory = Path(out)
        directory.mkdir(parents=True, exist_ok=True)
        files = {PLAN: _write_lines(directory / PLAN, a.plan_lines(), compress=False)}
        corpus = CORPUS[format]
        if format == "parquet":
            files[corpus] = _write_parquet(directory / corpus, a.corpus_records())
        else:
            files[corpus] = _write_lines(directory / corpus, a.corpus_lines(), compress=True)
        manifest = a.manifest_core()
        if prev is not None:
            listed, counts = changes(_read_lines(directory / PLAN), prev)
            files[CHANGES] = _write_lines(directory / CHANGES, (canonical(c).encode() + b"\n" for c in listed),
                                          compress=False)
            manifest["changes"] = {"previous": prev.info, "counts": counts,
                                   "run_changed": prev.info.get("run_id") not in (None, a.run["run_id"]),
                                   "policy_changed": prev.info.get("policy") not in (None, a.policy.as_dict())}
        manifest["files"] = files
        if head is not None:
            manifest["custody"] = head
        manifest["digest"] = digest(manifest)
        write_text_atomic(directory / MANIFEST, pretty(manifest))
    finally:
        store.conn.execute("COMMIT")
    if getattr(store, "custody", None) is not None:  # the log records what was shipped
        with store.write("assemble", {"run_id": a.run["run_id"], "digest": manifest["digest"],
                                      "directory": str(directory.resolve())}) as c:
            if verified is not None:
                custody.checkpoint(c, verified)
    return Assembled(manifest, directory, [directory / n for n in (*files, MANIFEST)], applied)


def _written(directory: Path) -> set[str]:
    """What an earlier ``assemble`` wrote into ``directory``, as its manifest lists it."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        return {MANIFEST, *(str(n) for n in manifest.get("files") or {})}
    except (OSError, ValueError, AttributeError):
        return set()


def is_assembly(directory: str | os.PathLike) -> bool:
    """Whether ``directory`` holds an assembled corpus (a manifest of this format), not a report."""
    path = Path(directory) / MANIFEST
    if not path.is_file() or (Path(directory) / "report.json").exists():
        return False
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("format") in (FORMAT, *EARLIER)
    except (OSError, ValueError, AttributeError):
        return False


def verify(directory: str | os.PathLike, store: Store) -> Verification:
    """Check an assembled corpus as ``auditor verify`` checks a report: the manifest's digest and
    canonical form, every file's content against the manifest, and a fresh plan and corpus from
    the store (same run and policy) against both. ``changes.jsonl`` is checked against its digest
    only (the previous plan is not at hand)."""
    from auditor.report.outdir import unlisted
    from auditor.report.pipeline import Verification, custody_problems

    directory = Path(directory)
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReportError(f"cannot read {path}: {e}") from e
    if manifest.get("format") in EARLIER:
        return Verification(False, str(manifest.get("digest")), digest(manifest), "", [
            f"{directory} was assembled by an earlier containment-auditor ({manifest['format']}); this one "
            f"writes {FORMAT} (dates and novel shares in every plan line, new reasons), so it cannot recompute that plan: "
            "assemble again"])
    if manifest.get("format") != FORMAT:
        raise ReportError(f"{path} is not a {FORMAT} manifest")
    problems = []
    content = digest(manifest)
    if content != manifest.get("digest"):
        problems.append(f"{MANIFEST} was altered: its content hashes to {content[:16]}..., but it records "
                        f"{str(manifest.get('digest'))[:16]}...")
    if path.read_text(encoding="utf-8") != pretty(manifest):
        problems.append(f"{MANIFEST} is not in its canonical form (edited by hand?)")
    on_disk: dict[str, dict[str, Any]] = {}
    listed = manifest.get("files") or {}
    for name in unlisted(directory, {*listed, MANIFEST}):
        problems.append(f"{name} is not one of the files {MANIFEST} lists (added or renamed?)")
    for name, want in sorted(listed.items()):
        if "/" in name or name.startswith(".") or not (directory / name).is_file():
            problems.append(f"{name} is missing")
            continue
        have = on_disk[name] = _content(_read_lines(directory / name))
        if have != want:
            problems.append(f"{name} was altered: {have['lines']} lines hashing to {have['sha256'][:16]}..., "
                            f"the manifest records {want.get('lines')} lines, {str(want.get('sha256'))[:16]}...")
        elif name.endswith(".gz") and (why := gzfile.byte_problem(directory / name)):
            problems.append(f"{name} is not byte for byte the file the auditor wrote: {why}")
    try:
        policy = Policy.from_dict(manifest["policy"])
        fmt = manifest["corpus"]["format"]
        run_id = manifest["run"]["run_id"]
    except (KeyError, TypeError, UsageError) as e:
        problems.append(f"the manifest does not say how it was made: {e}")
        return Verification(False, str(manifest.get("digest")), content, "", problems)
    found, notes = custody_problems(store.conn, manifest.get("custody"), run_id, MANIFEST)
    problems += found
    require_intact(store)
    store.conn.execute("BEGIN")
    try:
        a = plan(store, run=run_id, policy=policy, format=fmt)
        require_run_intact(store, a.run["id"])
        again = a.manifest_core()
        files = {PLAN: _content(a.plan_lines()), CORPUS[fmt]: _content(a.corpus_lines())}
        if fmt == "parquet" and on_disk.get(CORPUS[fmt]) == files[CORPUS[fmt]]:
            why = _parquet_bytes_problem(directory / CORPUS[fmt], a)
            if why:
                problems.append(f"{CORPUS[fmt]} is not byte for byte the file the auditor wrote: {why}")
    finally:
        store.conn.execute("COMMIT")
    if CHANGES in (manifest.get("files") or {}):
        files[CHANGES] = manifest["files"][CHANGES]
        again["changes"] = manifest.get("changes")
    if "custody" in manifest:  # checked against the log above; the store has grown since
        again["custody"] = manifest["custody"]
    again["files"] = files
    again["digest"] = digest(again)
    if again["digest"] != manifest.get("digest"):
        from auditor.report.build import differences

        core = {k: v for k, v in manifest.items() if k != "digest"}
        core2 = {k: v for k, v in again.items() if k != "digest"}
        problems += differences(core, core2)[:20]
    if PLAN in on_disk and on_disk[PLAN] != files[PLAN]:
        problems += _plan_differences(_read_lines(directory / PLAN), a.plan_lines())[:20]
    if again["digest"] != manifest.get("digest") and not problems:
        problems.append("recomputed digest differs")
    return Verification(not problems, str(manifest.get("digest")), content, again["digest"], problems, notes)


def _parquet_bytes_problem(path: Path, a: Assembly) -> str | None:
    """Whether a Parquet corpus whose rows are right is also the file the auditor writes (no
    other key-value metadata, row groups or trailing bytes): written again and compared."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="auditor-verify-") as tmp:
        again = Path(tmp) / path.name
        _write_parquet(again, a.corpus_records())
        if filecmp.cmp(again, path, shallow=False):
            return None
        return (f"{path.stat().st_size} bytes, {again.stat().st_size} written again from the same rows "
                "(other metadata or layout)")


def _plan_differences(stored: Iterable[bytes], fresh: Iterable[bytes]) -> list[str]:
    def short(raw: bytes) -> tuple[str, str]:
        line = json.loads(raw)
        return _key(line), f"{line.get('decision')} {line.get('reason')} {line.get('kept')}"

    try:
        a = dict(short(r) for r in stored)
    except ValueError:
        return ["plan.jsonl is not JSON Lines"]
    b = dict(short(r) for r in fresh)
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            out.append(f"plan {k}: the plan says {a.get(k) or 'nothing'}, recomputed {b.get(k) or 'nothing'}")
    return out or ["plan.jsonl differs from the recomputed plan in its evidence or provenance"]


def summary_lines(manifest: Mapping[str, Any]) -> list[str]:
    """The summary for a terminal: counts and characters kept and dropped, by reason."""
    s = manifest["summary"]
    out = [f"{s['documents']} documents, {s['failed_inputs']} failed and {s.get('skipped_inputs', 0)} skipped "
           f"inputs from run {manifest['run']['run_id']}: {s['keep']['documents']} kept "
           f"({s['keep']['chars']:,} characters), "
           f"{s['drop']['documents']} dropped ({s['drop']['chars']:,} characters)"]
    for decision in ("keep", "drop"):
        for reason, v in sorted(s["by_reason"][decision].items()):
            out.append(f"  {decision:4} {reason:18} {v['documents']:>8} documents {v['chars']:>14,} characters")
    ch = manifest.get("changes")
    if ch:
        out.append("changes since the previous plan: " + (", ".join(
            f"{k} {v}" for k, v in sorted(ch["counts"].items())) or "none")
            + (" (another audit run)" if ch.get("run_changed") else "")
            + (" (another policy)" if ch.get("policy_changed") else ""))
    return out


__all__ = [
    "CORPUS", "DECISION_TABLE", "FORMAT", "Assembled", "Assembly", "Decision", "Policy", "assemble",
    "changes", "check_plan", "is_assembly", "plan", "read_previous", "resolve", "summary_lines", "verify",
]
