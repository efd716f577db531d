"""Reproducible audit reports: the canonical ``report.json`` and its digest.

Everything that follows from the inputs and parameters (manifest, controls, findings, not
auditable documents, duplicate groups, summary) is the report's *core*; its sha256 over
canonical JSON (sorted keys, no whitespace, floats rounded to 6 places) is the ``digest``. What
differs between two runs of the same audit (run id, timestamps, host, command line, durations)
lives in the ``run`` block, which the digest excludes. So the same store, parameters and tool
give a byte-identical ``report.json`` apart from ``run``, and ``verify`` can prove it.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import json
import platform
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor import __version__
from auditor.controls import ControlsResult, fixtures_digest
from auditor.engine.audit import AuditResult
from auditor.engine.universe import universe_digest
from auditor.errors import DiskFull, NoDocument, ReportError, is_disk_full
from auditor.report.render.model import DETAIL_LIMIT, LIST_ROWS, OVERVIEW_ROWS
from auditor.store import gzfile
from auditor.store.db import Store
from auditor.versions import shaping_versions

FORMAT = "containment-auditor-report/2"
INTERVAL = "wilson-95"
EXCERPT_CHARS = 400


def _round(x: Any) -> Any:
    if isinstance(x, float):
        return round(x, 6)
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_round(v) for v in x]
    return x


def canonical(obj: Any) -> str:
    return json.dumps(_round(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


NOT_DIGESTED = ("run", "gate", "digest", "run_digest")


def digest(report: dict[str, Any]) -> str:
    """sha256 of everything that follows from the inputs and parameters (not the run block)."""
    core = {k: v for k, v in report.items() if k not in NOT_DIGESTED}
    return hashlib.sha256(canonical(core).encode("utf-8")).hexdigest()


def run_digest(report: dict[str, Any]) -> str:
    """sha256 of the run block (and a gate's verdict block, which follows from the audit, the
    baseline and --fail-on) together with the core digest, so none is edited alone."""
    bound = {"digest": report.get("digest"), "run": report.get("run")}
    if "gate" in report:
        bound["gate"] = report["gate"]
    return hashlib.sha256(canonical(bound).encode("utf-8")).hexdigest()


def id_ranges(ids: list[int]) -> list[list[int]]:
    """Sorted ids as [first, last] runs: a corpus of consecutive ids is one pair."""
    out: list[list[int]] = []
    for i in ids:
        if out and out[-1][1] + 1 == i:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def covered_ids(report: dict[str, Any], largest: int) -> list[int] | None:
    """The documents a report covered, as its manifest lists them (a batch's report, /4), else None
    (documents.jsonl.gz lists them). Raises ValueError, saying why, for ranges that are not
    ascending, disjoint pairs of ids up to ``largest`` (the store's highest) adding up to the
    manifest's count: a report is read before it is trusted."""
    corpus = report.get("manifest", {}).get("corpus", {})
    runs = corpus.get("ids")
    if runs is None:
        return None
    if not isinstance(runs, list):
        raise ValueError("manifest.corpus.ids is not a list of id ranges")
    total, last = 0, 0
    for r in runs:
        if (not isinstance(r, list) or len(r) != 2 or not all(type(x) is int for x in r)
                or not last < r[0] <= r[1]):
            raise ValueError(f"manifest.corpus.ids holds {str(r)[:40]!r}, not an ascending range of document "
                             f"ids after {last}")
        if r[1] > largest:
            raise ValueError(f"the store lacks documents the report covered (ids up to {r[1]}; the store's end at "
                             f"{largest}): a dry run's batch, rolled back, or another store")
        total += r[1] - r[0] + 1
        last = r[1]
    if total != corpus.get("documents"):
        raise ValueError(f"manifest.corpus.ids names {total} documents, manifest.corpus.documents {corpus.get('documents')!r}")
    return [i for a, b in runs for i in range(a, b + 1)]


def manifest(store: Store, threshold: float, controls: ControlsResult | None, engine: str = "sqlite",
             covered: list[int] | None = None, listed: bool = False) -> dict[str, Any]:
    """``listed``: the covered documents are named here by id ranges (a batch's report, whose
    documents.jsonl.gz describes only the batch and the documents its findings name)."""
    covered = covered if covered is not None else [r[0] for r in store.conn.execute("SELECT id FROM documents")]
    n, cdig = len(covered), universe_digest(store, covered)
    corpus: dict[str, Any] = {"documents": n, "digest": cdig}
    if listed:
        corpus["ids"] = id_ranges(sorted(covered))
    return {
        "tool": "containment-auditor",
        "tool_version": __version__,
        "engine": engine,
        "params": {**store.params.as_dict(), "threshold": threshold, "interval": INTERVAL},
        "conventions": {
            "containment": "|S(A) & S(B)| / |S(A)| over all distinct k-word shingles (exact); the "
                           "estimate uses only sampled shingles",
            "spans": "character offsets [start, end) into the container's extracted text "
                     "(`auditor show --text`); pages for PDFs",
            "score_distribution": "containment of every candidate pair (pairs sharing enough "
                                  "sampled shingles to pass the prefix filter)",
            "findings": "one entry per contained document, with its best containers (highest "
                        "containment, then smallest, then lowest id); report.json lists the first "
                        "params.listed.findings by id, contained.jsonl.gz every one (without "
                        "excerpts), and findings.jsonl.gz every containing pair; summary counts all",
            "boilerplate": "a document contained in at least params.boilerplate.applied unrelated "
                           "documents (report.json lists the first params.listed.boilerplate by id, "
                           "contained.jsonl.gz every one) "
                           "is listed under boilerplate: containers outside its family, "
                           "where containers of one family or containing one another (versions, "
                           "variants) count once (container_groups); the plan of `auditor assemble` "
                           "uses the same flag",
            "families": "documents that contain one another at the threshold, connected; pairs "
                        "inside a family are not findings",
            "corpus": "the documents the audit covered (documents.jsonl.gz; for a batch, by id ranges "
                      "in manifest.corpus.ids, and documents.jsonl.gz describes the batch and the documents "
                      "the report names); the digest is over their ids and sha256",
            "alignment": "for the first params.details contained documents: their normalised words "
                         "aligned with those of the best container in every span, in the container's "
                         "order (spans up to max(2000, a quarter of its length) characters apart read "
                         "as one with the text between them; between spans farther apart, the "
                         "container's words are left out: ranges, outside, and a between piece; a span "
                         "that only repeats text the others hold is left out, counted in repeats; "
                         "Levenshtein, RapidFuzz); words counts that alignment, hunks show the "
                         "differences with context in each side's own text, [kind, contained, "
                         "container] pieces, offsets as spans; the full texts are in texts/<doc_id>.txt",
            "novel": "documents.jsonl.gz: the share of a document's sampled shingles found in no other "
                     "covered document (an exact-duplicate group counts once), with its Wilson interval "
                     "(for a batch: of its documents)",
            "files": "sha256 and line count of the content of every file beside report.json (of "
                     "the uncompressed content for .gz files); report.md and report.html are "
                     "rendered from report.json",
        },
        "versions": shaping_versions(),
        "corpus": corpus,
        "controls": {"seed": controls.seed if controls else None,
                     "directory": Path(controls.directory).name if controls and controls.directory else None,
                     "fixtures_digest": fixtures_digest(Path(controls.directory))
                     if controls and controls.directory else None,
                     "note": controls.note if controls else ""},
    }


def _excerpt(text: str, start: int, end: int) -> str:
    s = text[start:end]
    if len(s) <= EXCERPT_CHARS:
        return s
    half = EXCERPT_CHARS // 2
    return s[:half].rstrip() + " [...] " + s[-half:].lstrip()


def _main_span(spans: list[Any]) -> Any:
    return max(spans, key=lambda s: (s.shingles, -s.start)) if spans else None


def _scored(p: Any) -> dict[str, Any]:
    """The numbers of one pair, as every part of the report gives them."""
    return {"containment": p.containment, "estimate": p.estimate.estimate,
            "interval": [p.estimate.low, p.estimate.high], "hits": p.estimate.hits,
            "sampled": p.estimate.sampled}


def _brief(d: dict[str, Any]) -> dict[str, Any]:
    """What report.json says of a document; documents.jsonl.gz has the whole provenance."""
    keep = ("path", "resolved", "sha256", "format", "n_words", "n_pages", "batch", "sources", "edgar",
            "unread")
    return {k: d[k] for k in keep if d.get(k) not in (None, [])}


class _Texts:
    """Container texts for excerpts and alignments.

    Excerpts are asked for first and filled in at the end, in one pass over the texts in id
    order (``fill``). A store that reads texts in bulk (a Parquet export, a compressed store)
    then reads each text once, not once per finding: thousands of findings at scale."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._wanted: dict[int, list[tuple[dict[str, Any], int, int]]] = {}

    def excerpt(self, span: dict[str, Any], doc_id: int, start: int, end: int) -> None:
        """Ask for ``span["excerpt"]``: its key is set now, so the report's key order does not
        depend on when the text is read."""
        span["excerpt"] = ""
        self._wanted.setdefault(doc_id, []).append((span, start, end))

    def fill(self) -> None:
        for doc_id, text in self.store.texts_of(sorted(self._wanted)):
            for span, start, end in self._wanted.pop(doc_id, []):
                span["excerpt"] = _excerpt(text, start, end)
        if self._wanted:
            raise NoDocument(f"document {min(self._wanted)} has no stored text for its excerpt")

    def alignment(self, contained: int, container: int, spans: list[Any]) -> dict[str, Any]:
        """The contained document aligned with every span of the container it lies in (spans far
        apart without the pages between them: ``align.span_ranges``)."""
        from auditor.engine.align import align, span_ranges

        text = self.store.text(contained)
        return align(text, self.store.text(container), span_ranges(spans, len(text))).as_dict()


SPANS_SHOWN = 5  # spans per container in report.json; the store's findings table has them all
OTHERS_SHOWN = 10  # further containers named per contained document; findings.jsonl.gz has all


def _best(p: Any, texts: _Texts | None, aligned: bool = False) -> dict[str, Any]:
    """A located container; the main span (most shingles) leads, with an excerpt. For a finding
    shown in detail, the alignment of the whole contained document with the span takes the
    excerpt's place when it shows differences."""
    order = sorted(p.spans, key=lambda s: (-s.shingles, s.start))[:SPANS_SHOWN]
    spans = [s.as_dict() for s in sorted(order, key=lambda s: s.start)]
    main = _main_span(p.spans)
    out = {"container": p.container, **_scored(p), "spans": spans, "spans_total": len(p.spans)}
    if texts is None or main is None:
        return out
    if aligned:
        out["alignment"] = texts.alignment(p.contained, p.container, p.spans)
    if not aligned or not out["alignment"]["hunks"]:  # text to look at when no difference shows it
        texts.excerpt(spans[sorted(order, key=lambda s: s.start).index(main)], p.container, main.start,
                      main.end)
    return out


def _contained_entry(c: Any, texts: _Texts | None, others: bool, detail: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "doc_id": c.doc, "containers": c.n_containers, "family": c.family,
        "best": [_best(p, texts if i == 0 else None, detail) for i, p in enumerate(c.best)],
    }
    if others:
        entry["others"] = c.containers[len(c.best):len(c.best) + OTHERS_SHOWN].tolist()
    return entry


def _boilerplate_entry(c: Any, texts: _Texts | None, documents: int) -> dict[str, Any]:
    e = _contained_entry(c, texts, False)
    return {**e, "share": e["containers"] / max(1, documents), "container_groups": c.groups}


#: entries report.json lists of each kind; contained.jsonl.gz has every one. They are what the
#: renderings show (the overview table, the boilerplate table), so report.json, and the memory
#: that builds it, stays bounded whatever the number of contained documents.
LISTED = {"findings": OVERVIEW_ROWS, "boilerplate": LIST_ROWS}
MOST_CONTAINED = 10  # of each kind, with the most containers: named in report.json for `auditor audit` to print


# -- sidecar files ---------------------------------------------------------------------------

def contained_lines(audit: AuditResult) -> Iterator[bytes]:
    """Every contained document once, by id, as report.json lists the first of them (findings
    and boilerplate, told apart by ``boilerplate``), without excerpts or alignments: those need
    the texts, and report.json has them for the documents its renderings show."""
    for c in audit.contained:
        e = (_boilerplate_entry(c, None, audit.documents) if c.boilerplate
             else _contained_entry(c, None, True))
        e["boilerplate"] = bool(c.boilerplate)
        yield (canonical(e) + "\n").encode("utf-8")


class _Most:
    """The ``n`` items with the most containers (ties: the lowest id), kept as they go by."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._heap: list[tuple[int, int, Any]] = []  # its first is the one to drop

    def offer(self, containers: int, doc_id: int, item: Any) -> None:
        import heapq

        entry = (containers, -doc_id, item)
        if len(self._heap) < self.n:
            heapq.heappush(self._heap, entry)
        elif entry[:2] > self._heap[0][:2]:
            heapq.heapreplace(self._heap, entry)

    def items(self) -> list[Any]:
        return [x[2] for x in sorted(self._heap, key=lambda x: (-x[0], -x[1]))]


def most_contained_listed(report_dir: Path, n: int = MOST_CONTAINED) -> tuple[list[dict[str, Any]],
                                                                             list[dict[str, Any]]]:
    """The ``n`` findings and the ``n`` boilerplate documents of a written report with the most
    containers (ties by id), read from its contained.jsonl.gz a line at a time: what `auditor
    audit` prints. report.json's documents name them."""
    kept = {False: _Most(n), True: _Most(n)}
    for e in read_contained(report_dir):
        kept[bool(e["boilerplate"])].offer(e["containers"], e["doc_id"], e)
    return kept[False].items(), kept[True].items()


def read_contained(report_dir: Path) -> Iterator[dict[str, Any]]:
    """contained.jsonl.gz of a written report, a line at a time."""
    path = Path(report_dir) / "contained.jsonl.gz"
    try:
        for line in gzfile.read_lines(path):
            yield json.loads(line)
    except (OSError, EOFError, ValueError) as e:
        raise ReportError(f"cannot read {path}: {e}") from e


def _num(x: float) -> str:
    return json.dumps(round(x, 6))


def findings_lines(audit: AuditResult) -> Iterator[bytes]:
    """Every containing pair, one canonical JSON object per line, by (contained, container).

    The numbers follow from a few integer pairs that repeat across a boilerplate corpus, so
    each distinct one is formatted once.
    """
    from auditor.engine.short import SHORT_SHINGLES
    from auditor.text.score import wilson

    c = audit.containing
    fam_of = {m: i for i, f in enumerate(audit.families) for m in f.members}
    ratio: dict[tuple[int, int], str] = {}
    scored: dict[tuple[int, int], str] = {}
    for a, b, hits, n, shared, shingles in c.rows():
        x = ratio.get((shared, shingles))
        if x is None:
            x = ratio[(shared, shingles)] = _num(shared / shingles)
        est = scored.get((hits, n))
        if est is None:
            lo, hi = wilson(hits, n)
            est = scored[(hits, n)] = (f'"estimate":{_num(hits / n if n else 0.0)},"FAMILY","hits":{hits},'
                                       f'"interval":[{_num(lo)},{_num(hi)}],"sampled":{n}')
        fa = fam_of.get(a)
        family = "null" if fa is None or fa != fam_of.get(b) else str(fa)
        search = "exhaustive" if shingles <= SHORT_SHINGLES else "sampled"
        yield (f'{{"contained":{a},"container":{b},"containment":{x},'
               + est.replace('"FAMILY"', f'"family":{family}', 1)
               + f',"search":"{search}","shared":{shared},"shingles":{shingles}}}\n').encode()


def documents_lines(store: Store, audit: AuditResult | None, ids: list[int],
                    novelty: Mapping[int, tuple[int, int]] | None = None) -> Iterator[bytes]:
    """Every document the audit covered, with its provenance (its date and the date's source
    included, :mod:`auditor.store.dating`), its part in the audit and, from ``novelty``
    (``gather.sampled_novelty``, by group representative), its novel share."""
    from auditor.engine.describe import describe_many
    from auditor.text.score import Estimate

    dated = "date" in {r[1] for r in store.conn.execute("PRAGMA table_info(documents)")}
    rep: dict[int, int] = {}
    for g in audit.duplicate_groups if audit else []:
        rep.update({m: g[0] for m in g})
    unauditable = {x["doc_id"] for x in audit.not_auditable} if audit else set()
    for a in range(0, len(ids), 2000):
        described = describe_many(store, ids[a : a + 2000])
        dates = {r[0]: r[1:] for r in store.select_in(
            "SELECT id, date, date_source FROM documents WHERE id IN ({})", ids[a : a + 2000])} if dated else {}
        for doc_id in ids[a : a + 2000]:
            d = dict(described[doc_id])
            if dated:
                d["date"], d["date_source"] = dates.get(doc_id, (None, None))
            if audit is None:
                d["status"] = "covered"
            elif rep.get(doc_id, doc_id) != doc_id:
                d["status"], d["duplicate_of"] = "duplicate", rep[doc_id]
            else:
                d["status"] = "not-auditable" if doc_id in unauditable else "audited"
            held = (novelty or {}).get(rep.get(doc_id, doc_id))
            if held is not None and d["status"] != "not-auditable":
                e = Estimate.of(*held)
                d["novel"] = {"estimate": e.estimate, "interval": [e.low, e.high], "hits": e.hits,
                              "sampled": e.sampled}
            yield (canonical(d) + "\n").encode("utf-8")


@dataclass
class Sidecar:
    """A file beside report.json, produced on demand and covered by the digest: JSON Lines
    gzipped (a name ending in .gz), or a plain text file (``texts/<doc_id>.txt``)."""

    name: str
    lines: Callable[[], Iterable[bytes]]

    @property
    def compressed(self) -> bool:
        return self.name.endswith(".gz")

    def digest(self) -> dict[str, Any]:
        h, n = hashlib.sha256(), 0
        for line in self.lines():
            h.update(line)
            n += 1
        return {"sha256": h.hexdigest(), "lines": n}

    def write(self, directory: Path) -> dict[str, Any]:
        """Written by the auditor's one deterministic gzip writer (``auditor.store.gzfile``), so the
        same content gives the same bytes; returns the content's digest, as ``digest`` does."""
        return gzfile.write_lines(directory / self.name, self.lines(), compress=self.compressed)


def text_lines(store: Store, doc_id: int) -> Iterator[bytes]:
    """A document's stored text as UTF-8 lines: the file report spans and alignments index into
    (by character), as ``auditor show --text`` prints it."""
    yield from io.BytesIO(store.text(doc_id).encode("utf-8", "surrogatepass"))


def read_sidecar(path: Path) -> dict[str, Any]:
    """{"sha256", "lines"} of a sidecar file's content as it is on disk (decompressed)."""
    h, n = hashlib.sha256(), 0
    for line in gzfile.read_lines(path):
        h.update(line)
        n += 1
    return {"sha256": h.hexdigest(), "lines": n}


def read_documents(path: Path) -> list[dict[str, Any]]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return [json.loads(line) for line in f]
    except (OSError, EOFError, ValueError) as e:
        raise ReportError(f"cannot read {path}: {e}") from e


def documents_changed(path: Path, fresh: Iterable[bytes], limit: int = 10) -> list[str]:
    """What changed in the covered documents' provenance since the report was written (dates
    supplied, copies seen since): one sentence per document, up to ``limit``, from its
    ``documents.jsonl.gz`` and the lines recomputed now."""
    before = {d["doc_id"]: d for d in read_documents(path)}
    out: list[str] = []
    changed = 0
    for line in fresh:
        now = json.loads(line)
        was = before.get(now["doc_id"])
        if was is None or was == now:
            continue
        changed += 1
        if len(out) < limit:
            fields = sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))
            out.append(f"document {now['doc_id']}: " + "; ".join(
                f"{k} {was.get(k)!r} in the report, {now.get(k)!r} now" for k in fields))
    if changed:
        out.insert(0, f"the provenance of {changed} covered document(s) changed in the store since the report "
                      "was written (dates supplied, copies seen since): audit again for a report of it")
    return out


# -- the report ------------------------------------------------------------------------------

@dataclass
class Report:
    """report.json's content and its sidecar files."""

    data: dict[str, Any]
    sidecars: list[Sidecar] = field(default_factory=list)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def seal(self, files: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        """Record the sidecars' digests (hashing them here unless given) and the report digest."""
        self.data["files"] = files if files is not None else {s.name: s.digest() for s in self.sidecars}
        self.data["digest"] = digest(self.data)
        return self.data


def build_report(
    store: Store,
    threshold: float,
    controls: ControlsResult,
    audit: AuditResult | None,
    run: dict[str, Any],
    *,
    covered: list[int],
    failures_through: int,
    refusal: list[str] | None = None,
    engine: str = "sqlite",
    scope: dict[str, Any] | None = None,
) -> Report:
    """The report, not yet sealed (``Report.seal`` adds the sidecar and report digests); REFUSED
    (controls and reasons only) when ``refusal`` says why, or when ``audit`` is None or a
    control failed.

    ``covered``: every document the audit covered; ``failures_through``: the last failed input
    the report lists (so the report can be verified after more inputs failed).
    """
    from auditor.engine.audit import BEST_CONTAINERS, BOILERPLATE, NEAREST_MISSES
    from auditor.engine.describe import describe_many
    from auditor.engine.families import pairs_inside
    from auditor.report.render.model import RENDERER

    reasons = list(refusal or []) + [c.failure() for c in controls.failed]
    if not controls.results:
        reasons.append("no control could be run")
    refused = audit is None or bool(reasons)
    # a batch's report (a gate's) costs what its batch costs: the covered documents are named by
    # id ranges, and documents.jsonl.gz, and novelty describe the batch (and the
    # documents the report names), not every covered document
    batch = (sorted(int(d) for d in scope.get("documents", [])) if scope and scope.get("kind") == "batch"
             else None)
    report: dict[str, Any] = {
        "format": FORMAT,
        "renderer": RENDERER,
        "status": "REFUSED" if refused else "OK",
        "manifest": manifest(store, threshold, controls, engine, covered, listed=batch is not None),
        "controls": [c.as_dict() for c in controls.results],
        "scope": {**(scope or {"kind": "corpus"}), "failures_through": failures_through},
    }
    # set below for an audit that reports; kept as the engine gave it (a Spark audit's is on
    # disk, one row per document), not copied into a dict
    novelty: list[Mapping[int, tuple[int, int]]] = [{}]
    named: set[int] = set()
    sidecars = [Sidecar("documents.jsonl.gz", lambda: documents_lines(
        store, audit, covered if batch is None else sorted((set(batch) | named) & set(covered)), novelty[0]))]
    if refused:
        report["refused_because"] = reasons or ["the audit was not run"]
        report["findings"] = []
    else:
        assert audit is not None
        report["manifest"]["params"].update({
            "boilerplate": {**BOILERPLATE, "applied": audit.boilerplate_min},
            "best_containers": BEST_CONTAINERS, "nearest_misses": NEAREST_MISSES,
            "details": DETAIL_LIMIT, "listed": LISTED,
        })
        # the first entries of each kind, by id; contained.jsonl.gz has them all
        texts = _Texts(store)
        detailed: list[Any] = []
        findings: list[dict[str, Any]] = []
        boilerplate: list[dict[str, Any]] = []
        counts = {"findings": 0, "boilerplate": 0}
        most = {False: _Most(MOST_CONTAINED), True: _Most(MOST_CONTAINED)}
        for c in audit.contained:  # one pass: a Spark audit reads them from disk
            most[bool(c.boilerplate)].offer(c.n_containers, c.doc, (c.doc, [p.container for p in c.best]))
            if c.boilerplate:
                counts["boilerplate"] += 1
                if len(boilerplate) < LISTED["boilerplate"]:
                    boilerplate.append(_boilerplate_entry(c, texts, audit.documents))
            else:
                counts["findings"] += 1
                if len(findings) < LISTED["findings"]:
                    findings.append(_contained_entry(c, texts, True, len(detailed) < DETAIL_LIMIT))
                    if len(detailed) < DETAIL_LIMIT:
                        detailed.append(c)
        texts.fill()
        report["findings"], report["boilerplate"] = findings, boilerplate
        report["families"] = [
            {"id": i, "members": f.members, "pairs": f.pairs, "containment_range": [f.low, f.high]}
            for i, f in enumerate(audit.families)]
        in_scope = set(covered) if batch is None else set(batch) & set(covered)
        unread = _unread(store, sorted(in_scope | {x["doc_id"] for x in audit.not_auditable}))
        report["not_auditable"] = [{**x, "unread": unread[x["doc_id"]]} if x["doc_id"] in unread else x
                                   for x in audit.not_auditable]
        refused_whole = {x["doc_id"] for x in audit.not_auditable}
        dup_of = {m: g[0] for g in audit.duplicate_groups for m in g}
        partly = [{"doc_id": d, **unread[d]} for d in sorted(unread)
                  if d in in_scope and d not in refused_whole and dup_of.get(d, d) not in refused_whole]
        if partly:  # documents audited on the pages that could be read
            report["partly_read"] = partly
        groups = audit.duplicate_groups
        if batch is not None:  # the batch's: its copies of stored documents, and of each other
            groups = [g for g in groups if not set(g).isdisjoint(batch)]
        report["duplicate_groups"] = groups
        report["below_threshold"] = {
            "pairs": audit.below,
            "nearest": [{"contained": p.contained, "container": p.container, **_scored(p)}
                        for p in audit.nearest_misses]}
        report["failed_inputs"] = [
            {**r, "part": r["part"] or None} for r in store.rows(
                "SELECT path, part, status, code, message, sha256 FROM failures WHERE id <= ?"
                " ORDER BY path, part, sha256, id", (failures_through,))
        ]
        report["score_distribution"] = {"counts": audit.histogram, "pairs": audit.candidates}
        novelty[0] = novel_shares(store, audit, covered, batch)
        for e in report["findings"] + report["boilerplate"]:
            named.add(e["doc_id"])
            named.update(b["container"] for b in e["best"])
        for doc, containers in most[False].items() + most[True].items():
            named.add(doc)
            named.update(containers)
        for f in audit.families:
            named.update(f.members)
        for g in groups:
            named.update(g)
        named.update(x["doc_id"] for x in audit.not_auditable)
        named.update(x["doc_id"] for x in partly)
        named.update(x for p in audit.nearest_misses for x in (p.contained, p.container))
        report["summary"] = {
            "documents": audit.documents,
            "containing_pairs": len(audit.containing),
            "family_pairs": pairs_inside(audit.containing, audit.families),
            "contained_documents": counts["findings"],
            "boilerplate_documents": counts["boilerplate"],
            "families": len(audit.families),
            "family_members": sum(len(f.members) for f in audit.families),
            "verified_below_threshold": audit.below,
            "candidate_pairs": audit.candidates,
            "not_auditable": len(audit.not_auditable),
            **({"partly_read": len(partly)} if partly else {}),
            "duplicate_groups": len(groups),
            "failed_inputs": sum(1 for f in report["failed_inputs"] if f["status"] == "failed"),
            "skipped_inputs": sum(1 for f in report["failed_inputs"] if f["status"] == "skipped"),
            "controls_passed": sum(c.passed for c in controls.results),
            "controls": len(controls.results),
        }
        sidecars[:0] = [Sidecar("findings.jsonl.gz", lambda: findings_lines(audit)),
                        Sidecar("contained.jsonl.gz", lambda: contained_lines(audit))]
        full_texts = sorted({x for c in detailed for x in (c.doc, *(p.container for p in c.best[:1]))})
        sidecars += [Sidecar(f"texts/{x}.txt", functools.partial(text_lines, store, x)) for x in full_texts]
    report["documents"] = {str(k): _brief(v) for k, v in describe_many(store, named).items()}
    report["run"] = run
    return Report(report, sidecars)


def _unread(store: Store, ids: list[int]) -> dict[int, dict[str, Any]]:
    """The unread pages of each of ``ids`` that has some (``describe.unread_of``)."""
    from auditor.engine.describe import unread_of

    out = {}
    for doc_id, meta in store.select_in("SELECT id, meta FROM documents WHERE instr(meta, '\"unread_pages\"') > 0"
                                        " AND id IN ({})", ids):
        found = unread_of(meta)
        if found is not None:
            out[int(doc_id)] = found
    return out


def novel_shares(store: Store, audit: AuditResult, covered: list[int],
                 batch: list[int] | None = None) -> Mapping[int, tuple[int, int]]:
    """(novel sampled shingles, sampled shingles) of each covered document, by group representative:
    the share of its sample found in no other covered document. A batch's (a gate's) from the index
    as the batch sees it (every posting of the hashes its documents hold: the same numbers as a
    corpus audit's). What each document is made of is ``auditor gather``'s: a cover per document
    costs more than the audit it would describe (issue #37)."""
    from auditor.engine.gather import load_index, sampled_novelty
    from auditor.engine.universe import universe
    from auditor.index.sampled import SampledIndex

    if batch is None and audit.novelty is not None:
        return audit.novelty
    scope = universe(store, covered)
    if batch is None:
        return sampled_novelty(load_index(store, scope.representatives))
    reps = {scope.representative[d] for d in batch if d in scope.representative}
    # an engine that does not keep the batch's index: read it again
    index = audit.batch_index or SampledIndex.touching(store, scope.representatives, reps)[0]
    return {d: v for d, v in sampled_novelty(index).items() if d in reps}


def run_block(run_id: str, started: datetime, command: str) -> dict[str, Any]:
    ended = datetime.now(UTC)
    return {
        "run_id": run_id,
        "started": started.isoformat(timespec="seconds"),
        "ended": ended.isoformat(timespec="seconds"),
        "seconds": round((ended - started).total_seconds(), 3),
        "host": platform.node(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "command": command,
        "argv0": sys.argv[0],
    }


def pretty(report: dict[str, Any]) -> str:
    """report.json as written: sorted keys, rounded floats, two-space indent, a trailing newline."""
    return json.dumps(_round(report), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def write_text_atomic(path: Path, text: str) -> None:
    """Written beside, then renamed (``gzfile.write_text``): a reader (or a full disk) never
    sees half a file; a full disk is ``DiskFull``."""
    try:
        gzfile.write_text(path, text)
    except BaseException as e:
        if is_disk_full(e):
            raise DiskFull(f"no space left to write {path} ({e}); free some space and run the "
                           "command again") from e
        raise


def write_json(report: dict[str, Any], path: Path) -> None:
    write_text_atomic(path, pretty(report))


def load(report_dir: Path) -> dict[str, Any]:
    path = Path(report_dir) / "report.json"
    try:
        report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReportError(f"cannot read {path}: {e}") from e
    if report.get("format") != FORMAT:
        raise ReportError(f"{path} is not a {FORMAT} report"
                          + (f" (it is {report.get('format')}: re-run the audit with this version)"
                             if str(report.get("format", "")).startswith("containment-auditor-report/") else ""))
    return report


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Paths at which two report cores differ (for verify's message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in {'recomputed' if k in b else 'report'}")
            else:
                out += differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} entries in the report, {len(b)} recomputed"]
        return [d for x, y, i in zip(a, b, range(len(a)), strict=True) for d in differences(x, y, f"{path}[{i}]")]
    return [] if _round(a) == _round(b) else [f"{path}: report {a!r}, recomputed {b!r}"]
