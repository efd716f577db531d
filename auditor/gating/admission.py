"""Admission: ingest the batch, run the audit job for it (controls first), classify, apply the
baseline, and write every artefact. See :mod:`auditor.gating` for what the gate decides.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor.corpus.check import require_intact_for_gate
from auditor.corpus.ingest import ingest
from auditor.engine.audit import AuditResult
from auditor.errors import Interrupted, UsageError
from auditor.extract.common import Limits
from auditor.gating.baseline import (
    baseline_index,
    load_baseline,
    merge_baseline,
    stale_entries,
    write_baseline,
)
from auditor.gating.batch import (
    BatchView,
    batch_view,
    corpus_provenance,
    open_gate_store,
    sighting_provenance,
    withdraw,
)
from auditor.gating.classify import (
    Locator,
    containment_findings,
    duplicate_findings,
    ingest_error_findings,
    not_auditable_findings,
    redaction_findings,
    short_documents,
)
from auditor.gating.cover import covered_by_batch_findings
from auditor.gating.findings import (
    DEFAULT_FAIL_ON,
    Finding,
    GateResult,
    apply_levels,
    artifact_uri,
    sort_findings,
)
from auditor.gating.formats.junit import junit_xml
from auditor.gating.formats.sarif import sarif
from auditor.gating.formats.summary import append_step_summary, summary_markdown
from auditor.gating.readings import reading_findings
from auditor.gating.render import render_batch
from auditor.report.outdir import claim, report_files
from auditor.report.pipeline import AuditOutcome, Batch, attach_gate, batch_job, record_run
from auditor.store import custody
from auditor.store.db import Store


def _document_rows(store: Store, view: BatchView, report: dict[str, Any] | None, audit: AuditResult | None,
                   findings: list[Finding], cwd: Path, short: dict[int, str]) -> list[dict[str, Any]]:
    """One row per new document: passed, short (passed: too short to hold a stored document),
    failed, not-auditable or not-gated."""
    not_auditable = {int(x["doc_id"]): x["reason"] for x in (audit.not_auditable if audit else [])}
    rows = []
    for s in view.sightings:
        p = sighting_provenance(store, s)
        mine = [f for f in findings if f.new["path"] == s.display and f.kind != "ingest-error"]
        reason = not_auditable.get(s.doc_id)
        if report is None or report.get("status") == "REFUSED":
            status = "not-gated"
        elif any(f.level == "error" for f in mine):
            status = "failed"
        elif s.doc_id in short:
            status, reason = "short", short[s.doc_id]
        elif s.doc_id in not_auditable:
            status = "not-auditable"
        else:
            status = "passed"
        rows.append({**p, "file": s.path, "part": s.part, "uri": artifact_uri(s.path, cwd), "status": status,
                     "reason": reason})
    return rows


def _data_rows(view: BatchView, report: dict[str, Any] | None, findings: list[Finding],
               cwd: Path) -> list[dict[str, Any]]:
    """One row per EDGAR part read as data: its code and readings, and whether a finding names it."""
    rows = []
    for e in view.data:
        shown = f"{e['path']}#{e['part']}"
        mine = [f for f in findings if f.new["path"] == shown]
        status = ("not-gated" if report is None or report.get("status") == "REFUSED"
                  else "failed" if any(f.level == "error" for f in mine) else "read-as-data")
        rows.append({"path": shown, "file": e["path"], "part": e["part"], "uri": artifact_uri(e["path"], cwd),
                     "sha256": e["sha256"], "size": e.get("size"), "code": e["code"], "message": e["message"],
                     "edgar_part": e["meta"], "readings": e["readings"], "status": status})
    return rows


# -- orchestration ----------------------------------------------------------------------------

@dataclass
class GateOptions:
    db: Path
    inputs: list[Path]
    deleted: list[str] = field(default_factory=list)  # paths the change deletes or renames away
    batch: str | None = None
    source: str | None = None
    dry_run: bool = False
    fail_on: frozenset[str] = DEFAULT_FAIL_ON
    baseline: Path | None = None
    update_baseline: bool = False
    reason: str | None = None
    threshold: float = 0.8
    control_seed: int = 0
    controls_dir: Path | None = None
    out: Path | None = None
    reports_root: Path = Path("reports")
    junit: Path | None = None
    sarif: Path | None = None
    summary: Path | None = None
    step_summary: Path | None = None  # $GITHUB_STEP_SUMMARY, appended to
    workers: int = 0
    retry_failed: bool = False  # inputs that failed before with the same bytes are tried again
    render: str = "auto"  # auto | always | never: the rendered reading of each new document (gating.render)
    limits: Limits | None = None
    command: str = ""
    cwd: Path | None = None


def run_gate(opts: GateOptions) -> GateResult:
    """Ingest, control, audit, classify, baseline, and write every artefact; see the module doc.

    The batch is admitted by its verdict alone. Everything the gate writes happens in one
    transaction (:meth:`Store.pending`), committed only when the verdict is PASSED. A gate that
    fails, is refused, is interrupted or is killed leaves nothing of its batch in the store: a
    later gate never trusts what an earlier one did not admit. A gate that did not pass records
    only its run and verdict, after the rollback.

    Raises only for usage and store errors (before anything is written); failed controls, an
    empty batch and an interrupt (SIGINT, SIGTERM) come back as a REFUSED or ERROR result, with
    the artefacts written, so CI shows why.
    """
    t0 = time.monotonic()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    cwd = opts.cwd or Path.cwd()
    if opts.reason is not None and not opts.update_baseline:
        raise UsageError("--reason only goes with --update-baseline")
    if opts.reason is not None and not opts.reason.strip():
        raise UsageError("--reason must not be empty")
    if opts.update_baseline and opts.baseline is None:
        raise UsageError("--update-baseline needs --baseline FILE")
    entries = load_baseline(opts.baseline, missing_ok=opts.update_baseline) if opts.baseline else []
    if opts.out is not None:
        claim(opts.out, report_files(opts.out))
    notes: list[str] = []
    if opts.dry_run:
        notes.append("dry run: the batch was ingested in a transaction that was rolled back; the store "
                     "is unchanged")
    d = _Decision(entries=entries)
    with open_gate_store(opts.db, opts.dry_run) as store:
        try:
            with store.pending() as txn:
                _decide(store, opts, cwd, notes, d)
                if not opts.dry_run and d.status == "PASSED":
                    _admit(store, d)
                    txn.commit()
                    d.admitted = True
        except Interrupted as e:
            d.interrupted = e.signal_name
            d.status = "ERROR"
            notes.insert(0, f"interrupted by {e.signal_name}: the gate stopped before its verdict, and its "
                            "batch was rolled back (nothing of it is in the store); run the gate again")
        if d.outcome is not None and not opts.dry_run and not d.admitted and d.interrupted is None:
            notes.append(f"the batch was not admitted ({d.status}): its documents were rolled back, so the "
                         "store holds what it held before the gate; fix the batch and run the gate again")
            record_run(store, d.outcome, kind="gate", verdict=d.status)
    view = d.view
    g = GateResult(
        status=d.status, batch=view.name if view else (opts.batch or ""), dry_run=opts.dry_run,
        threshold=opts.threshold, fail_on=opts.fail_on, documents=d.documents, data=d.data, findings=d.findings,
        skipped=view.skipped if view else [], known=view.known if view else [], withdrawn=d.withdrawn,
        controls=(d.report or {}).get("controls", []),
        refused_because=(d.report or {}).get("refused_because", []) if d.status == "REFUSED" else [],
        stale=d.stale, notes=notes, baseline=opts.baseline, baseline_added=d.added,
        baseline_written=d.written, started=started, custody=d.head, admitted=d.admitted,
        interrupted=d.interrupted, renderers=d.renderers,
    )
    if d.outcome is not None:
        report = d.outcome.report
        g.report_dir, g.run_id, g.digest = d.outcome.directory, d.outcome.run_id, str(report["digest"])
    g.seconds = round(time.monotonic() - t0, 3)
    if g.report_dir is not None and d.report is not None:
        attach_gate(g.report_dir, g.report_block())
    write_artifacts(g, opts, cwd)
    return g


@dataclass
class _Decision:
    """What a gate found, filled in as it goes (so that an interrupt keeps what was decided)."""

    entries: list[dict[str, Any]]
    status: str = "ERROR"
    view: BatchView | None = None
    outcome: AuditOutcome | None = None
    report: dict[str, Any] | None = None
    findings: list[Finding] = field(default_factory=list)
    documents: list[dict[str, Any]] = field(default_factory=list)
    withdrawn: list[dict[str, Any]] = field(default_factory=list)
    stale: list[dict[str, Any]] = field(default_factory=list)
    head: dict[str, Any] | None = None
    added: int = 0
    written: bool = False
    admitted: bool = False
    interrupted: str | None = None
    renderers: dict[str, str] = field(default_factory=dict)
    vouched: dict[int, list[str]] = field(default_factory=dict)
    data: list[dict[str, Any]] = field(default_factory=list)


def _decide(store: Store, opts: GateOptions, cwd: Path, notes: list[str], d: _Decision) -> None:
    """Ingest the batch, run the audit job for it and classify its findings, inside the gate's
    transaction."""
    # a damaged corpus cannot vouch for a batch: StoreDamaged, exit 2. The documents and index
    # rows are checked now; the store checks each text and word sequence as it is read
    verified = require_intact_for_gate(store, opts.db)
    if not store.scalar("SELECT count(*) FROM documents"):
        notes.append("the store holds no document yet: the batch is gated only against itself")
    result = ingest(store, list(opts.inputs), batch=opts.batch, source=opts.source,
                    limits=opts.limits, workers=opts.workers, command=opts.command, gating=True,
                    retry_failed=opts.retry_failed)
    view = d.view = batch_view(store, result)
    withdraw(store, view, opts.deleted)
    d.withdrawn = [corpus_provenance(store, doc) for doc in sorted(view.withdrawn)]
    loc = Locator(store, cwd)
    findings = ingest_error_findings(view, cwd)
    rendered = render_batch(store, view, opts.render, loc)  # stored as readings before the audit reads them
    notes += rendered.notes
    d.renderers = rendered.renderers
    if not view.sightings and not view.known:
        d.status = "ERROR"
        notes.insert(0, "no input file was found" if not result.outcomes
                     else "no input could be ingested, so nothing was gated")
    else:
        if not view.sightings:
            notes.append("nothing new: every input is already in the store at the same path")
        batch = Batch(view.name, tuple(sorted(view.new_ids)), verified)  # checked above; since then only the batch was written
        outcome = d.outcome = batch_job(store, opts.threshold, batch, out=opts.out, seed=opts.control_seed,
                                        controls_dir=opts.controls_dir, command=opts.command,
                                        reports_root=opts.reports_root)
        d.report = outcome.report
        if outcome.refused:
            d.status = "REFUSED"
        else:
            assert outcome.audit is not None
            findings += containment_findings(store, view, outcome.audit, loc)
            findings += covered_by_batch_findings(store, view, outcome.audit, loc)
            findings += reading_findings(store, view, opts.threshold, loc, findings)
            d.vouched = rendered.vouched
            findings += not_auditable_findings(store, view, outcome.audit, cwd, loc, rendered.vouched)
            findings += redaction_findings(store, view, loc)
            findings += duplicate_findings(store, view, loc)
            findings += rendered.findings
            d.status = "PASSED"
    findings = sort_findings(findings)
    apply_levels(findings, opts.fail_on, baseline_index(d.entries))
    if opts.update_baseline and opts.baseline is not None and d.status != "REFUSED":
        date = datetime.now(UTC).date().isoformat()
        d.entries, d.added = merge_baseline(d.entries, findings,
                                            opts.reason or f"accepted by --update-baseline on {date}")
        d.written = write_baseline(opts.baseline, d.entries)
        apply_levels(findings, opts.fail_on, baseline_index(d.entries))
    d.findings = findings
    d.stale = stale_entries(store, d.entries)
    if d.status == "PASSED" and any(f.level == "error" for f in findings):
        d.status = "FAILED"
    audit = d.outcome.audit if d.outcome else None
    short = short_documents(store, view, audit, d.vouched) if audit is not None else {}
    d.documents = _document_rows(store, view, d.report, audit, findings, cwd, short)
    d.data = _data_rows(view, d.report, findings, cwd)
    d.head = d.report.get("run", {}).get("custody") if d.report else custody.head(store.conn)


def _admit(store: Store, d: _Decision) -> None:
    """The verdict PASSED recorded, in the gate's transaction: its commit admits the batch."""
    assert d.view is not None
    with store.write("gate", {"batch": d.view.name, "status": d.status,
                              "run_id": d.outcome.run_id if d.outcome else None}):
        store.conn.execute("UPDATE batches SET status = 'gate-passed' WHERE id = ?", (d.view.batch_id,))
        if d.outcome is not None:
            store.conn.execute("UPDATE runs SET verdict = ? WHERE run_id = ?", (d.status, d.outcome.run_id))


def write_artifacts(g: GateResult, opts: GateOptions, cwd: Path) -> None:
    """The files the options ask for, then gate.json beside the report, listing them with their
    sha256 so that ``auditor verify`` knows the gate's files in a report directory from files
    added to it."""
    gate_json = (g.report_dir / "gate.json") if g.report_dir else ((opts.out / "gate.json") if opts.out else None)
    summary = summary_markdown(g)
    targets: list[tuple[str, Path | None, str | bytes]] = [
        ("junit", opts.junit, junit_xml(g)),
        ("sarif", opts.sarif, json.dumps(sarif(g, cwd), indent=2, ensure_ascii=False) + "\n"),
        ("summary", opts.summary, summary),
    ]
    for name, path, content in targets:
        if path is None:
            continue
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        g.files[name] = str(path)
        g.artefacts[name] = {"path": str(path), "sha256": hashlib.sha256(data).hexdigest(),
                             "in_report": _inside(path, gate_json.parent) if gate_json else None}
    if gate_json is not None:
        gate_json.parent.mkdir(parents=True, exist_ok=True)
        gate_json.write_text(json.dumps(g.as_dict(), indent=2, sort_keys=True, ensure_ascii=False, default=str)
                             + "\n", encoding="utf-8")
        g.files["gate.json"] = str(gate_json)
    if opts.step_summary is not None:
        append_step_summary(opts.step_summary, summary, g.files.get("summary"))
        g.files["step_summary"] = str(opts.step_summary)


def _inside(path: Path, directory: Path) -> str | None:
    """``path`` relative to ``directory`` when it lies inside it."""
    try:
        return path.resolve().relative_to(directory.resolve()).as_posix()
    except ValueError:
        return None
