"""Admission: ingest the batch, run the audit job for it (controls first), classify, apply the
baseline, and write every artefact. See :mod:`auditor.gate` for what the gate decides.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor.corpus.check import require_intact_for_reads, require_reads_intact
from auditor.corpus.ingest import ingest
from auditor.engine.audit import AuditResult
from auditor.errors import UsageError
from auditor.extract.common import Limits
from auditor.gate.baseline import (
    baseline_index,
    load_baseline,
    merge_baseline,
    stale_entries,
    write_baseline,
)
from auditor.gate.batch import (
    BatchView,
    batch_view,
    corpus_provenance,
    open_gate_store,
    sighting_provenance,
    withdraw,
)
from auditor.gate.classify import (
    Locator,
    containment_findings,
    duplicate_findings,
    ingest_error_findings,
    not_auditable_findings,
    redaction_findings,
)
from auditor.gate.cover import covered_by_batch_findings
from auditor.gate.findings import (
    DEFAULT_FAIL_ON,
    Finding,
    GateResult,
    apply_levels,
    artifact_uri,
    sort_findings,
)
from auditor.gate.formats.junit import junit_xml
from auditor.gate.formats.sarif import sarif
from auditor.gate.formats.summary import append_step_summary, summary_markdown
from auditor.gate.readings import reading_findings
from auditor.store import custody
from auditor.store.db import Store


def _document_rows(store: Store, view: BatchView, report: dict[str, Any] | None, audit: AuditResult | None,
                   findings: list[Finding], cwd: Path) -> list[dict[str, Any]]:
    not_auditable = {int(x["doc_id"]): x["reason"] for x in (audit.not_auditable if audit else [])}
    rows = []
    for s in view.sightings:
        p = sighting_provenance(store, s)
        mine = [f for f in findings if f.new["path"] == s.display and f.kind != "ingest-error"]
        if report is None or report.get("status") == "REFUSED":
            status = "not-gated"
        elif any(f.level == "error" for f in mine):
            status = "failed"
        elif s.doc_id in not_auditable:
            status = "not-auditable"
        else:
            status = "passed"
        rows.append({**p, "file": s.path, "part": s.part, "uri": artifact_uri(s.path, cwd), "status": status,
                     "reason": not_auditable.get(s.doc_id)})
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
    limits: Limits | None = None
    command: str = ""
    cwd: Path | None = None


def run_gate(opts: GateOptions) -> GateResult:
    """Ingest, control, audit, classify, baseline, and write every artefact; see the module doc.

    Raises only for usage and store errors (before anything is written); failed controls and
    an empty batch come back as a REFUSED or ERROR result, with the artefacts written, so CI
    shows why.
    """
    from auditor.report.pipeline import attach_gate, audit_job

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
    notes: list[str] = []
    if opts.dry_run:
        notes.append("dry run: the batch was ingested in a transaction that was rolled back; the store "
                     "is unchanged")

    with open_gate_store(opts.db, opts.dry_run) as store:
        # a damaged corpus cannot vouch for a batch: StoreDamaged, exit 2. What the gate reads is
        # checked as it goes: the documents and index rows now, the texts and word sequences it
        # read once the report is computed and before the verdict is recorded
        verified = require_intact_for_reads(store, opts.db)
        if not store.scalar("SELECT count(*) FROM documents"):
            notes.append("the store holds no document yet: the batch is gated only against itself")
        result = ingest(store, list(opts.inputs), batch=opts.batch, source=opts.source,
                        limits=opts.limits, workers=opts.workers, command=opts.command, gating=True,
                        retry_failed=opts.retry_failed)
        view = batch_view(store, result)
        withdraw(store, view, opts.deleted)
        withdrawn = [corpus_provenance(store, d) for d in sorted(view.withdrawn)]
        loc = Locator(store, cwd)
        report: dict[str, Any] | None = None
        outcome = None
        findings = ingest_error_findings(view, cwd)
        if not view.sightings and not view.known:
            status = "ERROR"
            notes.insert(0, "no input file was found" if not result.outcomes
                         else "no input could be ingested, so nothing was gated")
        else:
            if not view.sightings:
                notes.append("nothing new: every input is already in the store at the same path")
            ids = sorted(view.new_ids)
            outcome = audit_job(
                store, opts.threshold, out=opts.out, seed=opts.control_seed, controls_dir=opts.controls_dir,
                only=set(ids), scope={"kind": "batch", "batch": view.name, "documents": ids},
                kind="gate", command=opts.command, reports_root=opts.reports_root,
                checked=True, verified=verified,  # checked above; since then only the batch was written
            )
            report = outcome.report
            if outcome.refused:
                status = "REFUSED"
            else:
                assert outcome.audit is not None
                findings += containment_findings(store, view, outcome.audit, loc)
                findings += covered_by_batch_findings(store, view, outcome.audit, loc)
                findings += reading_findings(store, view, opts.threshold, loc, findings)
                findings += not_auditable_findings(store, view, outcome.audit, cwd, loc)
                findings += redaction_findings(store, view, loc)
                findings += duplicate_findings(store, view, loc)
                status = "PASSED"
        findings = sort_findings(findings)
        apply_levels(findings, opts.fail_on, baseline_index(entries))
        added, written = 0, False
        if opts.update_baseline and opts.baseline is not None and status not in ("REFUSED",):
            date = datetime.now(UTC).date().isoformat()
            entries, added = merge_baseline(entries, findings, opts.reason or f"accepted by --update-baseline on {date}")
            written = write_baseline(opts.baseline, entries)
            apply_levels(findings, opts.fail_on, baseline_index(entries))
        stale = stale_entries(store, entries)
        if status == "PASSED" and any(f.level == "error" for f in findings):
            status = "FAILED"
        documents = _document_rows(store, view, report, outcome.audit if outcome else None, findings, cwd)
        require_reads_intact(store)  # what the classification read since the report
        head = (report or {}).get("run", {}).get("custody") if report else custody.head(store.conn)
        if not opts.dry_run:  # a batch that did not pass stays "new" for every later gate run
            with store.write("gate", {"batch": view.name, "status": status,
                                      "run_id": outcome.run_id if outcome else None}):
                store.conn.execute("UPDATE batches SET status = ? WHERE id = ?",
                                   ("gate-passed" if status == "PASSED" else "gate-failed", view.batch_id))
                if outcome is not None:
                    store.conn.execute("UPDATE runs SET verdict = ? WHERE run_id = ?",
                                       (status, outcome.report["run"]["run_id"]))

    g = GateResult(
        status=status, batch=view.name, dry_run=opts.dry_run, threshold=opts.threshold,
        fail_on=opts.fail_on, documents=documents, findings=findings, skipped=view.skipped,
        known=view.known, withdrawn=withdrawn, controls=(report or {}).get("controls", []),
        refused_because=(report or {}).get("refused_because", []) if status == "REFUSED" else [],
        stale=stale, notes=notes, baseline=opts.baseline, baseline_added=added, baseline_written=written,
        started=started, custody=head,
    )
    if outcome is not None:
        g.report_dir, g.run_id, g.digest = outcome.directory, outcome.run_id, str(report["digest"]) if report else None
    g.seconds = round(time.monotonic() - t0, 3)
    if g.report_dir is not None and report is not None:
        attach_gate(g.report_dir, g.report_block())
    write_artifacts(g, opts, cwd)
    return g


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
