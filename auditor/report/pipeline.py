"""The audit job: index, controls, audit, report, run record. Fails closed.

Controls run first. If any fails, no finding is computed or written: the report is marked
REFUSED and holds only the control table, and the caller gets ``refused=True`` (the CLI exits 2).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from auditor.controls import ControlsResult, run_controls
from auditor.corpus.check import require_intact
from auditor.engine.audit import AuditResult, run_audit
from auditor.engine.families import family_of
from auditor.engine.universe import Universe, any_auditable, universe
from auditor.errors import UsageError
from auditor.index.builder import build_index
from auditor.report import render
from auditor.report.build import (
    NOT_DIGESTED,
    Report,
    build_report,
    covered_ids,
    differences,
    digest,
    documents_changed,
    load,
    pretty,
    read_documents,
    read_sidecar,
    run_block,
    run_digest,
    write_text_atomic,
)
from auditor.report.outdir import GATE_JSON, REPORT_FILES, claim, report_files, unlisted
from auditor.store import custody, gzfile
from auditor.store.custody.runs import Contents
from auditor.store.db import Store, now
from auditor.text.score import wilson_arrays

DEFAULT_REPORTS = Path("reports")


@dataclass
class AuditOutcome:
    """What the audit job wrote: the report, its directory and files, and the audit behind it
    (None when the controls refused)."""

    report: dict[str, Any]
    directory: Path
    refused: bool
    audit: AuditResult | None = None
    files: list[Path] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return str(self.report["run"]["run_id"])


@dataclass
class Computed:
    """A report and the audit behind it, before anything is written; ``custody``: the head of
    the store's custody log in the snapshot the audit read (reports record it), ``verified``:
    the head the check before the audit verified with the live state."""

    report: Report
    audit: AuditResult | None
    controls_cached: str | None = None  # the fixture controls' cache key, when read from the cache
    custody: dict[str, Any] | None = None
    verified: dict[str, Any] | None = None


def _refusal(store: Store, controls: ControlsResult, covered: Universe, allow_empty: bool) -> list[str]:
    """Why an audit that ran its controls may still not report: nothing to audit, no corpus control."""
    if allow_empty:
        return []
    reasons = []
    if not any_auditable(store, covered.representatives):
        reasons.append("nothing can be audited: no covered document has a shingle (5 words) "
                       f"({len(covered.members)} documents with text); use --allow-empty to report anyway")
    elif controls.note and not any(c.source == "corpus" for c in controls.results):
        reasons.append(f"no control could be drawn from the corpus ({controls.note}); use "
                       "--allow-empty to report with the fixture controls alone")
    return reasons


def compute(
    store: Store,
    threshold: float,
    *,
    seed: int = 0,
    controls_dir: Path | None = None,
    only: set[int] | None = None,
    documents: list[int] | None = None,
    failures_through: int | None = None,
    allow_empty: bool = False,
    scope: dict[str, Any] | None = None,
    run: dict[str, Any] | None = None,
    engine: str = "sqlite",
    master: str = "local[*]",
    workdir: Path | None = None,
    cache_controls: bool = False,
    checked: bool = False,
    verified: dict[str, Any] | None = None,
) -> Computed:
    """The report for the store as it is now (no files written).

    ``documents``: audit exactly these documents (an old report's), else every stored one.
    ``engine="spark"`` runs the controls and the audit on Spark (``master``); the results are
    identical by construction, and the report's manifest names the engine.
    ``checked``: the caller ran the quick check on this store already, in this process, and wrote
    to it since only through the store (a gate, which checks before it ingests its batch);
    ``verified`` is the custody head that check returned.
    """
    if not checked:
        verified = require_intact(store)  # altered behind the store's back: StoreDamaged, before any work
    build_index(store)
    audit_fn: Any = run_audit
    if engine == "spark":
        from auditor.extras import require_spark

        require_spark()
        from auditor.engine.spark_engine import run_audit_spark

        audit_fn = functools.partial(run_audit_spark, master=master, workdir=workdir)
    elif engine != "sqlite":
        raise UsageError(f"unknown engine {engine!r}; expected sqlite or spark")
    if allow_empty:
        scope = {**(scope or {"kind": "corpus"}), "allow_empty": True}
    with store.snapshot():  # one read snapshot (WAL) for controls, audit and report
        head = custody.head(store.conn)
        covered = universe(store, documents)
        if failures_through is None:
            failures_through = int(store.scalar("SELECT coalesce(max(id), 0) FROM failures"))
        controls = run_controls(store, threshold, directory=controls_dir, seed=seed, audit=audit_fn,
                                documents=covered.members, cache=cache_controls,
                                draw_from=sorted(only) if only is not None else None)
        refusal = _refusal(store, controls, covered, allow_empty)
        audit = (audit_fn(store, threshold, only=only, documents=covered.members)
                 if controls.passed and not refusal else None)
        report = build_report(store, threshold, controls, audit, run or {}, covered=covered.members,
                              failures_through=failures_through, refusal=refusal, scope=scope,
                              engine=engine)
        return Computed(report, audit, controls.cached, head, verified)


def audit_job(
    store: Store,
    threshold: float = 0.8,
    *,
    out: Path | None = None,
    seed: int = 0,
    controls_dir: Path | None = None,
    allow_empty: bool = False,
    command: str = "",
    reports_root: Path = DEFAULT_REPORTS,
    engine: str = "sqlite",
    master: str = "local[*]",
    workdir: Path | None = None,
) -> AuditOutcome:
    """The audit of every stored document: the store checked, controls first, then the audit,
    report.json, report.md, report.html and the sidecars written to ``out`` (else a new
    directory under ``reports_root``), and the run recorded in the store."""
    return _job(store, threshold, out=out, seed=seed, controls_dir=controls_dir, allow_empty=allow_empty,
                command=command, reports_root=reports_root, engine=engine, master=master, workdir=workdir)


@dataclass(frozen=True)
class Batch:
    """What a gate audits: its batch's name and new documents, and the custody head the gate
    verified before it ingested them (the store was written since only by the gate)."""

    name: str
    documents: tuple[int, ...]
    verified: dict[str, Any] | None


def batch_job(store: Store, threshold: float, batch: Batch, *, out: Path | None = None, seed: int = 0,
              controls_dir: Path | None = None, command: str = "",
              reports_root: Path = DEFAULT_REPORTS) -> AuditOutcome:
    """The audit job of a gate: every stored document covered, the audit looking for pairs with
    a document of ``batch``, and the report describing the batch (its scope ``batch``)."""
    ids = sorted(batch.documents)
    return _job(store, threshold, out=out, seed=seed, controls_dir=controls_dir, only=set(ids),
                scope={"kind": "batch", "batch": batch.name, "documents": ids}, kind="gate", command=command,
                reports_root=reports_root, checked=True, verified=batch.verified)


def _job(
    store: Store,
    threshold: float,
    *,
    out: Path | None,
    seed: int,
    controls_dir: Path | None,
    command: str,
    reports_root: Path,
    only: set[int] | None = None,
    allow_empty: bool = False,
    scope: dict[str, Any] | None = None,
    kind: str = "audit",
    engine: str = "sqlite",
    master: str = "local[*]",
    workdir: Path | None = None,
    checked: bool = False,
    verified: dict[str, Any] | None = None,
) -> AuditOutcome:
    """Both jobs. ``checked``, ``verified``: as :func:`compute` takes them."""
    store.require_writable("an audit records its run and findings in it "
                           "(`auditor verify` and `auditor gate --dry-run` only read the store)")
    if out is not None:
        claim(Path(out), report_files(Path(out)))
    started = datetime.now(UTC)
    computed = compute(store, threshold, seed=seed, controls_dir=controls_dir, only=only,
                       allow_empty=allow_empty, scope=scope, engine=engine, master=master,
                       workdir=workdir, cache_controls=True, checked=checked, verified=verified)
    # the sidecars are written (and hashed) once, before the digest that names the run exists
    stage = Path(out) if out else reports_root / f".partial-{started:%Y%m%dT%H%M%S}-{os.getpid()}"
    stage.mkdir(parents=True, exist_ok=True)
    report = computed.report.seal({s.name: s.write(stage) for s in computed.report.sidecars})
    run_id = base = f"{started:%Y%m%dT%H%M%SZ}-{report['digest'][:8]}"
    n = 1
    while store.scalar("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)) or (
            not out and (reports_root / run_id).exists()):
        n += 1
        run_id = f"{base}-{n}"
    directory = Path(out) if out else reports_root / run_id
    report["run"] = run_block(run_id, started, command)
    report["run"]["directory"] = str(directory.resolve())  # relative links to the sources start here
    if computed.controls_cached:  # not in the digest: a fresh run gives the same results
        report["run"]["controls_cache"] = f"fixture controls read from the cache (key {computed.controls_cached[:16]})"
    if computed.custody is not None:  # the state of the store the report speaks for
        report["run"]["custody"] = computed.custody
    if controls_dir is not None:
        report["run"]["controls_dir"] = str(Path(controls_dir).resolve())
    report["run_digest"] = run_digest(report)
    if stage != directory:
        os.replace(stage, directory)
    files = write(computed.report, directory)
    _save_run(store, report, computed.audit, kind, directory, computed.verified)
    return AuditOutcome(report, directory, report["status"] == "REFUSED", computed.audit, files)


DOCUMENTS = "documents.jsonl.gz"  # the documents a report covered: what verify recomputes over


def _inside(name: str) -> bool:
    """A name from report.json's files map that stays inside the report directory."""
    return not Path(name).is_absolute() and ".." not in Path(name).parts


def _gate_files(directory: Path, report: dict[str, Any]) -> tuple[set[str], list[str]]:
    """The files the gate wrote into a report directory, as gate.json lists them (gate.json
    itself, and the JUnit, SARIF and summary files written beside it with their sha256), and
    what is wrong with them."""
    path = directory / GATE_JSON
    if not path.is_file():
        return set(), []
    try:
        g = json.loads(path.read_text(encoding="utf-8"))
        ref = g["report"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        return {GATE_JSON}, [f"{GATE_JSON} is not a gate result ({e})"]
    problems = []
    run = report.get("run", {})
    if (ref.get("run_id"), ref.get("digest")) != (run.get("run_id"), report.get("digest")):
        problems.append(f"{GATE_JSON} is the result of another run ({ref.get('run_id')}, digest "
                        f"{str(ref.get('digest'))[:16]}...), not of this report")
    if "custody" in g and g["custody"] != run.get("custody"):
        problems.append(f"{GATE_JSON} records another custody head than report.json")
    known = {GATE_JSON}
    for name, a in sorted((g.get("artefacts") or {}).items()):
        inside = a.get("in_report") if isinstance(a, dict) else None
        if not inside or not _inside(inside):
            continue
        known.add(inside)
        target = directory / inside
        if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() != a.get("sha256"):
            problems.append(f"{inside} ({name}) was altered since the gate wrote it")
    return known, problems


def write(report: Report, directory: Path) -> list[Path]:
    """report.md, report.html, then report.json (each written beside and renamed into place),
    beside its sidecars, which are already there: a report.json on disk always has them."""
    directory.mkdir(parents=True, exist_ok=True)
    text = pretty(report.data)
    written = json.loads(text)  # rendered from what report.json holds, so verify can re-render it
    write_text_atomic(directory / "report.md", render.markdown(written))
    write_text_atomic(directory / "report.html", render.html(written))
    write_text_atomic(directory / "report.json", text)
    return [directory / s.name for s in report.sidecars] + [directory / n for n in REPORT_FILES]


def attach_gate(directory: Path, block: dict[str, Any]) -> dict[str, Any]:
    """A gate's verdict joined to its report: report.json gains the ``gate`` block (outside the
    content digest, which the audit alone determines; bound to it by ``run_digest``), and
    report.md and report.html are rendered again, leading with the verdict."""
    report = load(directory)
    report["gate"] = block
    report["run_digest"] = run_digest(report)
    text = pretty(report)
    written: dict[str, Any] = json.loads(text)
    write_text_atomic(directory / "report.md", render.markdown(written))
    write_text_atomic(directory / "report.html", render.html(written))
    write_text_atomic(directory / "report.json", text)
    return written


def _save_run(store: Store, report: dict[str, Any], audit: AuditResult | None, kind: str,
              directory: Path, verified: dict[str, Any] | None = None, verdict: str | None = None) -> None:
    """The run, every document it covered (status, duplicate group, family, containers, whether
    boilerplate; for a gate's run, its batch and the documents its pairs name) and every
    containing pair (the located ones with their spans), for queries; and ``verified`` as the
    custody log's checkpoint."""
    run = report["run"]
    with store.write(kind, {"run_id": run["run_id"], "status": report["status"], "digest": report["digest"],
                            "scope": report.get("scope", {}).get("kind")}) as c:
        fields = runs_row(report, kind, directory, verdict)
        cur = c.execute(f"INSERT INTO runs ({', '.join(fields)}) VALUES ({','.join('?' * len(fields))})",
                        tuple(fields.values()))
        run_row = cur.lastrowid
        assert run_row is not None  # sqlite3 sets it after every successful INSERT
        if verified is not None:
            custody.checkpoint(c, verified)
        contents = Contents()  # what the run stores, recorded in its row (and so in the custody log)
        if audit is not None and report["status"] == "OK":
            def documents() -> Iterator[tuple[Any, ...]]:
                for row in run_documents(report, audit):
                    contents.add_document(row)
                    yield (run_row, *row)
            c.executemany(
                "INSERT INTO run_documents (run, doc_id, status, duplicate_of, reason, family, containers,"
                " boilerplate) VALUES (?,?,?,?,?,?,?,?)", documents())
            c.executemany(
                "INSERT INTO findings (run, contained_id, container_id, containment, estimate, low, high,"
                " hits, sampled, shared, shingles, family, spans) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                _finding_rows(run_row, audit, contents))
        if "contents" in {r[1] for r in c.execute("PRAGMA table_info(runs)")}:
            c.execute("UPDATE runs SET contents = ? WHERE id = ?", (contents.digest(), run_row))


def run_documents(report: dict[str, Any], audit: AuditResult) -> Iterator[tuple[Any, ...]]:
    """The run's ``run_documents`` rows without the run: (doc_id, status, duplicate_of, reason,
    family, containers, boilerplate) of every document it covered, by doc_id. A store keeps them
    with the run; an export keeps them under ``runs/`` (``export_run``). Made as they are read:
    the contained documents are met in id order, as the covered ones go by."""
    rep = {m: g[0] for g in audit.duplicate_groups for m in g}
    reasons = {x["doc_id"]: x["reason"] for x in audit.not_auditable}
    fam = {m: i for i, f in enumerate(audit.families) for m in f.members}
    covered: Iterable[int] = sorted(audit.universe)
    scope = report.get("scope") or {}
    if scope.get("kind") == "batch":  # a gate's run: its batch and what its pairs name, not the corpus
        named = set(scope.get("documents", [])) | set(audit.containing.contained.tolist()) | set(
            audit.containing.container.tolist())
        named |= {rep.get(d, d) for d in named}
        covered = [d for d in covered if d in named]
    held = iter(audit.contained)
    c = next(held, None)
    for d in covered:
        while c is not None and c.doc < d:
            c = next(held, None)
        mine = c is not None and c.doc == d
        yield (d, "duplicate" if rep.get(d, d) != d else "not-auditable" if d in reasons else "audited",
               rep[d] if rep.get(d, d) != d else None, reasons.get(d), fam.get(d),
               c.n_containers if mine and c is not None else 0, int(mine and c is not None and c.boilerplate))


def runs_row(report: dict[str, Any], kind: str, directory: Path, verdict: str | None = None) -> dict[str, Any]:
    """The ``runs`` row of a report (without its id): what a plan reads of the run."""
    run = report["run"]
    return {"run_id": run["run_id"], "kind": kind, "status": report["status"],
            "params": json.dumps(report["manifest"]["params"], sort_keys=True), "started": run["started"],
            "ended": now(), "summary": json.dumps(report.get("summary", {}), sort_keys=True),
            "report_dir": str(directory), "digest": report["digest"],
            "scope": json.dumps(report.get("scope", {}), sort_keys=True), "verdict": verdict}


def record_run(store: Store, outcome: AuditOutcome, *, kind: str, verdict: str) -> None:
    """The run and its verdict alone, for a gate whose batch was rolled back: its pairs and
    documents are in its report, not in the store, which no longer holds the batch."""
    _save_run(store, outcome.report, None, kind, outcome.directory, None, verdict=verdict)


ROWS_AT_ONCE = 50_000  # findings turned into Python rows at a time (3.5 M at once took 400 MB)


def _finding_rows(run: int, audit: AuditResult, contents: Contents | None = None) -> Iterator[tuple[Any, ...]]:
    """The store's findings rows, in key order (contained, container), a slice at a time;
    each slice added to ``contents`` as it goes."""
    spans = _Located(audit.contained)
    family_index = family_of(audit.families)
    # a slice at a time: a Spark audit's pairs are read from disk, never loaded whole
    for part in audit.containing.slices(ROWS_AT_ONCE):
        low, high = wilson_arrays(part.hits, part.sampled)
        fa, fb = family_index(part.contained), family_index(part.container)
        families = np.where(fa == fb, fa, -1)
        family = [None if f < 0 else f for f in families.tolist()]
        a_ids, b_ids = part.contained.tolist(), part.container.tolist()
        located = [spans.get(k) for k in zip(a_ids, b_ids, strict=True)]
        if contents is not None:
            contents.add_pairs(
                [part.contained, part.container, part.exact, part.estimate, low, high, part.hits, part.sampled,
                 part.shared, part.shingles, families],
                [(a, b, x) for a, b, x in zip(a_ids, b_ids, located, strict=True) if x is not None])
        yield from zip(itertools.repeat(run), a_ids, b_ids, part.exact.tolist(), part.estimate.tolist(),
                       low.tolist(), high.tolist(), part.hits.tolist(), part.sampled.tolist(),
                       part.shared.tolist(), part.shingles.tolist(), family, located)


class _Located:
    """The spans of each located pair (JSON, as stored), asked for in key order (contained,
    container): read from the contained documents as the pairs go by, so no map of every
    located pair is held."""

    def __init__(self, contained: Iterable[Any]) -> None:
        self._pairs = (((c.doc, p.container), json.dumps([s.as_dict() for s in p.spans], sort_keys=True))
                       for c in contained for p in sorted(c.best, key=lambda p: p.container))
        self._next = next(self._pairs, None)

    def get(self, key: tuple[int, int]) -> str | None:
        while self._next is not None and self._next[0] < key:
            self._next = next(self._pairs, None)
        return self._next[1] if self._next is not None and self._next[0] == key else None


def _other_versions(report: dict[str, Any], again: dict[str, Any]) -> list[str]:
    """The tool, format, renderer and package versions the report was computed with that differ
    from this installation's: a recomputation under them is another computation."""
    out = []
    for key in ("tool_version",):
        was, now_ = report["manifest"].get(key), again["manifest"].get(key)
        if was != now_:
            out.append(f"the report was computed by containment-auditor {was}; this is {now_}")
    for key in ("format", "renderer"):
        if report.get(key) != again.get(key):
            out.append(f"the report's {key} is {report.get(key)!r}; this installation writes {again.get(key)!r}")
    was_v, now_v = report["manifest"].get("versions") or {}, again["manifest"].get("versions") or {}
    for name in sorted(set(was_v) | set(now_v)):
        if was_v.get(name) != now_v.get(name):
            out.append(f"the report was computed with {name} {was_v.get(name, 'unrecorded')}; this installation "
                       f"has {now_v.get(name, 'unrecorded')}: verify it where that version is installed")
    return out


def _gate_agrees(report_dir: Path, report: dict[str, Any]) -> list[str]:
    """A gate's gate.json and its report's verdict block say the same (status and counts)."""
    path = report_dir / "gate.json"
    block = report.get("gate")
    if block is None or not path.is_file():
        return [] if block is None else ["gate.json is missing beside a gate's report"]
    try:
        g = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return [f"gate.json cannot be read: {e}"]
    return [f"gate.json says {k} {g.get(k)!r}, the report's verdict block {block.get(k)!r}"
            for k in ("status", "batch", "counts") if g.get(k) != block.get(k)]


def _unadmitted_gate(store: Store, run_id: str | None) -> tuple[str, str] | None:
    """(verdict, digest) of a gate run that did not admit its batch, as the store recorded it."""
    if not run_id:
        return None
    row = store.conn.execute("SELECT verdict, digest FROM runs WHERE run_id = ? AND kind = 'gate'",
                             (run_id,)).fetchone()
    if row is None or row[0] in (None, "PASSED"):
        return None
    return str(row[0]), str(row[1])


@dataclass
class Verification:
    ok: bool
    stored_digest: str
    content_digest: str
    recomputed_digest: str
    problems: list[str]
    notes: list[str] = field(default_factory=list)  # said, not failing: what could not be checked


def custody_problems(conn: Any, recorded_head: dict[str, Any] | None, run_id: str | None,
                     what: str) -> tuple[list[str], list[str]]:
    """(problems, notes) about the custody head a report or assembled corpus records: it must be
    an entry of the store's log. One that records none is said to predate the log, unless the
    log recorded its run (then the head was removed)."""
    if recorded_head is not None:
        why = custody.find(conn, recorded_head)
        return ([f"{what}: {why}"] if why else []), []
    seq = custody.recorded(conn, ("audit", "gate"), "run_id", run_id) if run_id else None
    if seq is not None:
        return [f"{what} records no custody head, but the store's custody log recorded its run {run_id} "
                f"(entry {seq}): the head was removed"], []
    return [], [f"{what} records no custody head (it was written before the store kept a custody log): "
                "it cannot be tied to a state of the store"]


def _core_beyond_corpus(report: dict[str, Any]) -> dict[str, Any]:
    """The digested part of a report without its corpus block (which verify reports apart)."""
    core = {k: v for k, v in report.items() if k not in NOT_DIGESTED}
    core["manifest"] = {k: v for k, v in core["manifest"].items() if k != "corpus"}
    return core


def verify(report_dir: Path, store: Store, *, controls_dir: Path | None = None) -> Verification:
    """Recompute the audit over the documents the report covered and compare every file.

    report.json's digest covers its content and the sidecars' content (each checked on disk);
    report.md and report.html are regenerated from report.json and compared byte for byte; the
    run block is bound to the digest by ``run_digest``. The controls come from ``controls_dir``,
    else the directory the audit used (recorded in its run block), else the default; the
    manifest's fixtures digest says whether they are the same.
    """
    report_dir = Path(report_dir)
    report = load(report_dir)
    recorded = report.get("run", {}).get("controls_dir")
    if controls_dir is None and recorded and Path(recorded).is_dir():
        controls_dir = Path(recorded)
    problems = []
    # a differing parameter, or a documents.jsonl.gz not as written, leaves nothing to recompute
    recomputable = True
    content = digest(report)
    if content != report.get("digest"):
        problems.append(f"report.json was altered: its content hashes to {content[:16]}..., "
                        f"but it records {str(report.get('digest'))[:16]}...")
    if run_digest(report) != report.get("run_digest"):
        problems.append("the run block of report.json was altered (run_digest does not match)")
    if (report_dir / "report.json").read_text(encoding="utf-8") != pretty(report):
        problems.append("report.json is not in its canonical form (edited by hand?)")
    for name, fn in (("report.md", render.markdown), ("report.html", render.html)):
        path = report_dir / name
        if not path.is_file():
            problems.append(f"{name} is missing")
        elif path.read_text(encoding="utf-8") != fn(report):
            from auditor.report.render.model import RENDERER

            problems.append(f"{name} differs from what report.json renders to " + (
                "(edited?)" if report.get("renderer") == RENDERER else
                f"(it records renderer {report.get('renderer')!r}; this installation renders with {RENDERER}: "
                "verify it with the version that wrote it)"))
    problems += _gate_agrees(report_dir, report)
    files = report.get("files", {})
    gate_files, gate_problems = _gate_files(report_dir, report)
    for name in unlisted(report_dir, set(files) | set(REPORT_FILES) | gate_files):
        problems.append(f"{name} is not one of the files report.json lists (added or renamed?)")
        if name == DOCUMENTS:
            recomputable = False
    problems += gate_problems
    for name, want in sorted(files.items()):
        path = report_dir / name
        problem = None
        if not _inside(name) or not path.is_file():
            problem = f"{name} is missing"
        elif (have := read_sidecar(path)) != want:
            problem = (f"{name} was altered: {have['lines']} lines hashing to {have['sha256'][:16]}..., "
                       f"report.json records {want.get('lines')} lines, {str(want.get('sha256'))[:16]}...")
        elif name.endswith(".gz") and (why := gzfile.byte_problem(path)):
            problem = f"{name} is not byte for byte the file the auditor wrote: {why}"
        if problem is not None:
            problems.append(problem)
            if name == DOCUMENTS:
                recomputable = False
    run = report.get("run") or {}
    unadmitted = _unadmitted_gate(store, run.get("run_id"))
    if unadmitted is not None:  # its batch was rolled back: nothing in the store to recompute from
        verdict, digest_recorded = unadmitted
        if digest_recorded != report.get("digest"):
            problems.append(f"the store recorded gate run {run.get('run_id')} with another digest "
                            f"({str(digest_recorded)[:16]}...) than report.json's")
        notes = [f"not recomputed: this gate did not admit its batch ({verdict}), so the store does not hold "
                 "it; the files were checked byte for byte against the digest the store recorded for the run. "
                 "Run `auditor gate --dry-run` on the same inputs to see the batch again"]
        return Verification(not problems, str(report.get("digest")), content, "", problems, notes)
    found, notes = custody_problems(store.conn, run.get("custody"), run.get("run_id"), "report.json")
    problems += found
    params = report["manifest"]["params"]
    stored = store.params.as_dict()
    for k, v in stored.items():
        if params.get(k) != v:
            problems.append(f"parameter {k}: report {params.get(k)!r}, store {v!r}")
            recomputable = False
    if not recomputable:
        return Verification(False, str(report.get("digest")), content, "", problems, notes)
    try:
        covered = covered_ids(report, int(store.scalar("SELECT coalesce(max(id), 0) FROM documents")))
    except ValueError as e:
        problems.append(str(e))
        return Verification(False, str(report.get("digest")), content, "", problems, notes)
    if covered is None:
        covered = [int(d["doc_id"]) for d in read_documents(report_dir / DOCUMENTS)]
    missing = sorted(set(covered) - {r[0] for r in store.conn.execute("SELECT id FROM documents")})
    if missing:
        problems.append(f"the store lacks {len(missing)} document(s) the report covered: ids "
                        + ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else ""))
        return Verification(False, str(report.get("digest")), content, "", problems, notes)
    scope = {k: v for k, v in report.get("scope", {"kind": "corpus"}).items() if k != "failures_through"}
    only = set(scope.get("documents", [])) if scope.get("kind") == "batch" else None
    seed = report["manifest"]["controls"].get("seed") or 0
    fresh = compute(store, float(params["threshold"]), seed=seed, only=only, scope=scope,
                    documents=covered, failures_through=int(report.get("scope", {}).get("failures_through", 0)),
                    allow_empty=bool(report.get("scope", {}).get("allow_empty")),
                    engine=report["manifest"].get("engine", "sqlite"), controls_dir=controls_dir).report
    again = fresh.seal()
    if again["files"].get(DOCUMENTS) != files.get(DOCUMENTS):
        problems += documents_changed(report_dir / DOCUMENTS, next(
            s for s in fresh.sidecars if s.name == DOCUMENTS).lines())
    if again["digest"] != report.get("digest"):
        problems += _other_versions(report, again)
        if again["manifest"]["corpus"] != report["manifest"]["corpus"]:
            problems.append("the documents the report covered changed in the store: " + "; ".join(
                differences(report["manifest"]["corpus"], again["manifest"]["corpus"], "manifest/corpus")))
        problems += differences(_core_beyond_corpus(report), _core_beyond_corpus(again))[:20]
        if not problems:
            problems.append("recomputed digest differs")
    return Verification(not problems, str(report.get("digest")), content, again["digest"], problems, notes)
