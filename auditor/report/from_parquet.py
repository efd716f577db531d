"""The audit job over a Parquet export, on Spark, without a SQLite store.

``auditor audit --engine spark --parquet DIR``: the controls, the audit and the report, as
``pipeline.audit_job`` runs them on a store, but every question a store would answer is
answered by the export (:class:`auditor.engine.export_store.ExportStore`), and the audit is
finished on the executors (:mod:`auditor.engine.spark_finish`). The report files are the
store's: the same core, apart from ``manifest.engine``, so one verifies against the other.

What stays with a store: the custody log and its check before the audit (an export is a copy
made at one moment, with its own digest in ``params.json``). The record of the run (the rows a
store keeps in runs, run_documents and findings) is written beside the export's tables, under
``runs/<run_id>/`` (``export_run``): ``auditor assemble --engine spark`` makes its plan from it.
Nothing else is written into the export.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from auditor.controls import run_controls
from auditor.engine.export_store import ExportStore
from auditor.engine.universe import universe
from auditor.report.build import build_report, run_block, run_digest
from auditor.report.outdir import claim, report_files
from auditor.report.pipeline import (
    DEFAULT_REPORTS,
    ROWS_AT_ONCE,
    AuditOutcome,
    _finding_rows,
    _refusal,
    run_documents,
    runs_row,
    write,
)
from auditor.store.db import Store


def parquet_job(
    directory: Path,
    threshold: float = 0.8,
    *,
    out: Path | None = None,
    seed: int = 0,
    controls_dir: Path | None = None,
    allow_empty: bool = False,
    command: str = "",
    reports_root: Path = DEFAULT_REPORTS,
    master: str = "local[*]",
    workdir: Path | None = None,
    spark: Any = None,
) -> AuditOutcome:
    """Controls first, then the audit of every document of the export at ``directory``, and the
    report written to ``out`` (else a new directory under ``reports_root``)."""
    import functools

    from auditor.engine.spark_engine import run_audit_spark, session

    if out is not None:
        claim(Path(out), report_files(Path(out)))
    started = datetime.now(UTC)
    source = ExportStore(directory)
    store = cast(Store, source)  # the read side of a store, answered by the export
    spark = spark or session(master)
    controls_fn = functools.partial(run_audit_spark, spark=spark, workdir=None)
    covered = universe(store)
    failures_through = int(source.scalar("SELECT coalesce(max(id), 0) FROM failures"))
    controls = run_controls(store, threshold, directory=controls_dir, seed=seed, audit=controls_fn,
                            documents=covered.members, cache=True)
    refusal = _refusal(store, controls, covered, allow_empty)
    audit = (run_audit_spark(source, threshold, spark=spark, documents=covered.members,
                             workdir=workdir, master=master)
             if controls.passed and not refusal else None)
    scope = {"kind": "corpus", "allow_empty": True} if allow_empty else None
    built = build_report(store, threshold, controls, audit, {}, covered=covered.members,
                         failures_through=failures_through, refusal=refusal, scope=scope, engine="spark")
    stage = Path(out) if out else reports_root / f".partial-{started:%Y%m%dT%H%M%S}-{os.getpid()}"
    stage.mkdir(parents=True, exist_ok=True)
    report = built.seal({s.name: s.write(stage) for s in built.sidecars})
    run_id = base = f"{started:%Y%m%dT%H%M%SZ}-{report['digest'][:8]}"
    n = 1
    while not out and (reports_root / run_id).exists():
        n += 1
        run_id = f"{base}-{n}"
    target = Path(out) if out else reports_root / run_id
    report["run"] = run_block(run_id, started, command)
    report["run"]["directory"] = str(target.resolve())
    report["run"]["source"] = {"parquet": str(Path(directory).resolve()), "corpus": source.meta.get("corpus")}
    if controls.cached:
        report["run"]["controls_cache"] = f"fixture controls read from the cache (key {controls.cached[:16]})"
    if controls_dir is not None:
        report["run"]["controls_dir"] = str(Path(controls_dir).resolve())
    report["run_digest"] = run_digest(report)
    if stage != target:
        os.replace(stage, target)
    files = write(built, target)
    if audit is not None and report["status"] == "OK":
        export_run(Path(directory), report, audit, target)
    return AuditOutcome(report, target, report["status"] == "REFUSED", audit, files)


#: the columns of ``runs/<run_id>/findings.parquet``: the store's findings table without ``run``
FINDINGS = ("contained_id", "container_id", "containment", "estimate", "low", "high", "hits", "sampled",
            "shared", "shingles", "family", "spans")
RUN_DOCUMENTS = ("doc_id", "status", "duplicate_of", "reason", "family", "containers", "boilerplate")


def export_run(directory: Path, report: dict[str, Any], audit: Any, report_dir: Path) -> Path:
    """The run's record under ``directory/runs/<run_id>/``: ``run.json`` (the runs row),
    ``run_documents.parquet`` and ``findings.parquet``, the rows ``pipeline._save_run`` stores,
    made by the same functions. The pairs are written a slice at a time, as they are stored."""
    import pyarrow as pa

    from auditor.report.build import pretty, write_text_atomic

    target = directory / "runs" / report["run"]["run_id"]
    stage = target.with_name(f".partial-{target.name}")
    stage.mkdir(parents=True, exist_ok=True)
    doc_types = [pa.int64(), pa.string(), pa.int64(), pa.string(), pa.int64(), pa.int64(), pa.int64()]
    _write_rows(stage / "run_documents.parquet", pa.schema(list(zip(RUN_DOCUMENTS, doc_types, strict=True))),
                run_documents(report, audit))
    types = [pa.int64(), pa.int64()] + [pa.float64()] * 4 + [pa.int64()] * 5 + [pa.string()]
    _write_rows(stage / "findings.parquet", pa.schema(list(zip(FINDINGS, types, strict=True))),
                (row[1:] for row in _finding_rows(0, audit)))
    write_text_atomic(stage / "run.json", pretty(runs_row(report, "audit", report_dir)))
    if target.exists():
        import shutil

        shutil.rmtree(target)
    os.replace(stage, target)
    return target


def _write_rows(path: Path, schema: Any, rows: Iterable[tuple[Any, ...]]) -> None:
    """Rows into one Parquet file, ``ROWS_AT_ONCE`` at a time."""
    import itertools

    import pyarrow.parquet as pq

    it = iter(rows)
    with pq.ParquetWriter(path, schema) as w:
        while True:
            chunk = list(itertools.islice(it, ROWS_AT_ONCE))
            w.write_table(_columns(chunk, schema))
            if len(chunk) < ROWS_AT_ONCE:
                break


def _columns(rows: list[tuple[Any, ...]], schema: Any) -> Any:
    import pyarrow as pa

    return pa.table({f.name: pa.array([r[i] for r in rows], f.type) for i, f in enumerate(schema)}, schema=schema)
