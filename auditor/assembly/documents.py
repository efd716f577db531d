"""The store as a plan reads it: the run, each covered document with its provenance, dates and
EDGAR fields, and the order in which a policy ranks the members of a family.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.errors import AssemblyRefused, UsageError
from auditor.store import dating
from auditor.store.db import Store
from auditor.text.dates import KINDS, Dated, newest_key

if TYPE_CHECKING:
    pass

from auditor.assembly.policy import Policy


def run_row(store: Store, run: str | None) -> dict[str, Any]:
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
    head: dict[str, Any] | None = None  # its submission's meta, when the submission is stored

    @property
    def exhibit(self) -> bool:
        return self.parent_id is not None and str(self.meta.get("type") or "").upper().startswith("EX-")

    def payload(self) -> str:
        """The document as JSON, for a Python worker of the Spark assemble (``from_payload``)."""
        fields = {k: getattr(self, k) for k in self.__dataclass_fields__}
        fields["dated"] = [x.as_dict() for x in self.dated]
        return json.dumps(fields, ensure_ascii=False)

    @classmethod
    def from_payload(cls, raw: str) -> Doc:
        fields = json.loads(raw)
        fields["dated"] = [Dated(**x) for x in fields["dated"]]
        return cls(**fields)


_SUBMISSION = ("accession_number", "form_type", "filing_date", "company_name", "cik")


_PART = ("type", "sequence", "filename", "description")


EDGAR_FIELDS = ("submission_id", *_SUBMISSION, *_PART)


def edgar_fields_of(doc: Doc) -> dict[str, Any] | None:
    """EDGAR metadata, flat: the submission's header fields and the part's, as strings."""
    if doc.parent_id is not None and doc.head is not None:
        head, part = doc.head, doc.meta
    elif doc.meta.get("accession_number"):
        head, part = doc.meta, {}
    else:
        return None

    def s(v: Any) -> str | None:
        return None if v is None else str(v)

    return {"submission_id": doc.parent_id, **{k: s(head.get(k)) for k in _SUBMISSION},
            **{k: s(part.get(k)) for k in _PART}}


def documents_of(store: Store) -> dict[int, Doc]:
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
            d.head = docs[d.parent_id].meta
    for doc_id, dated in dating.evidence(store.conn, sorted(docs)).items():
        docs[doc_id].dated = dated
    return docs


def richness(doc: Doc, dated: Sequence[Dated]) -> tuple[int, int, int, int]:
    """How much is known of where a document comes from, higher is richer: the EDGAR header
    fields it carries (accession number, form type, filing date), the trust of its best date
    (supplied 5, metadata 4, mtime 3, text 2, copied 1, none 0), its sources, its sightings."""
    e = edgar_fields_of(doc) or {}
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
        "provenance": lambda d: tuple(-x for x in richness(docs[d], dated.get(d, ()))),
        "ingest order": (lambda d: (-d,)) if policy.newest_first else (lambda d: (d,)),
    }
    names = (*policy.criteria, "provenance", "ingest order")
    return lambda d: [(n, part[n](d)) for n in names]


def rank_key(policy: Policy, docs: Mapping[int, Doc], dated: Mapping[int, Sequence[Dated]]) -> Callable[[int], tuple]:
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
