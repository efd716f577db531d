"""The library's entry points: one typed function for what each main command does.

These ten functions and the types they take and return are the public API. The package root
exports them (``from auditor import ingest, audit``). Every other module is internal: its names
may change between releases.

Each function takes an open :class:`~auditor.store.db.Store` (a context manager), except
:func:`gate`, which opens the store itself: it works in one transaction that it commits only
when the batch passes. Ingest, large audits and gates start worker processes (``spawn``), so a
script that calls them needs the ``if __name__ == "__main__":`` guard.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.assembly import Assembled, Policy
from auditor.corpus.check import CheckResult
from auditor.corpus.ingest import BatchResult
from auditor.engine.gather import GatherQuery
from auditor.engine.query import FileQuery
from auditor.extract.common import Limits
from auditor.gating.findings import KINDS, GateResult
from auditor.report.pipeline import AuditOutcome, Verification
from auditor.store.db import Store

if TYPE_CHECKING:  # the export needs pyarrow (the spark extra): imported when it runs
    from auditor.engine.export import ExportResult

PathLike = str | os.PathLike[str]


def ingest(store: Store, inputs: Sequence[PathLike], *, batch: str | None = None, source: str | None = None,
           limits: Limits | None = None, workers: int = 0, dates: PathLike | None = None) -> BatchResult:
    """Store files and directories (recursively, in sorted order) with their provenance.

    Re-running adds nothing; an interrupted run resumes. Each input is extracted in a child
    process limited by ``limits``; an input that cannot be read is recorded with its reason and
    the others go on. ``dates``: a CSV or JSON Lines file of the dates a crawl knows.
    """
    from auditor.corpus.ingest import ingest as run

    return run(store, list(inputs), batch=batch, source=source, limits=limits, workers=workers, dates=dates)


def audit(store: Store, *, threshold: float = 0.8, out: PathLike | None = None, seed: int = 0,
          controls_dir: PathLike | None = None, allow_empty: bool = False, engine: str = "sqlite",
          reports_root: PathLike = "reports") -> AuditOutcome:
    """The audit of every stored document, controls first, with its report written.

    The report goes to ``out``, else to a new directory under ``reports_root``. When a control
    fails, the outcome is ``refused`` and the report holds only the controls. ``engine``:
    ``sqlite`` or ``spark`` (the ``spark`` extra and a Java runtime).
    """
    from auditor.report.pipeline import audit_job

    return audit_job(store, threshold, out=Path(out) if out is not None else None, seed=seed,
                     controls_dir=Path(controls_dir) if controls_dir is not None else None,
                     allow_empty=allow_empty, engine=engine, reports_root=Path(reports_root))


def verify(directory: PathLike, store: Store, *, controls_dir: PathLike | None = None) -> Verification:
    """Recompute a report (or an assembled corpus) from the store and compare every file."""
    from auditor.assembly import is_assembly
    from auditor.assembly import verify as verify_assembly
    from auditor.report.pipeline import verify as verify_report

    if is_assembly(directory):
        return verify_assembly(directory, store)
    return verify_report(Path(directory), store, controls_dir=Path(controls_dir) if controls_dir else None)


def check(store: Store, *, quick: bool = False) -> CheckResult:
    """The store's integrity: SQLite's own check, every text against its digest, the custody
    log replayed against every row it vouches for and, unless ``quick``, every index row."""
    from auditor.corpus.check import check_store

    return check_store(store, quick=quick)


def gate(db: PathLike, inputs: Sequence[PathLike], *, batch: str | None = None, source: str | None = None,
         dry_run: bool = False, threshold: float = 0.8, fail_on: Sequence[str] | None = None,
         baseline: PathLike | None = None, out: PathLike | None = None, limits: Limits | None = None,
         workers: int = 0) -> GateResult:
    """Gate a new batch against the store at ``db``: its verdict, findings and CI files.

    The batch is admitted (stored as corpus) only when the verdict is PASSED; ``dry_run``
    never admits it. ``fail_on``: the finding kinds that fail the gate (default: all of them).
    """
    from auditor.gating.admission import GateOptions, run_gate

    return run_gate(GateOptions(
        db=Path(db), inputs=[Path(i) for i in inputs], batch=batch, source=source, dry_run=dry_run,
        threshold=threshold, fail_on=frozenset(KINDS if fail_on is None else fail_on),
        baseline=Path(baseline) if baseline is not None else None, out=Path(out) if out is not None else None,
        limits=limits, workers=workers))


def assemble(store: Store, out: PathLike, *, run: str | None = None, policy: Policy | None = None,
             format: str = "jsonl", previous: PathLike | None = None,
             dates: PathLike | None = None) -> Assembled:
    """The deduplicated corpus of an audit run (the latest by default): a keep/drop plan with a
    reason for every document, the kept texts with provenance, and a manifest."""
    from auditor.assembly import assemble as run_assembly

    return run_assembly(store, out, run=run, policy=policy or Policy(), format=format, previous=previous,
                        dates=dates)


def query(store: Store, files: Sequence[PathLike], *, threshold: float = 0.8,
          limits: Limits | None = None) -> list[FileQuery]:
    """Which stored documents contain each file, and which it contains, without storing it."""
    from auditor.engine.query import query_files

    return query_files(store, files, threshold, limits)


def gather(store: Store, refs: Sequence[PathLike], *, threshold: float = 0.8,
           limits: Limits | None = None) -> list[GatherQuery]:
    """What each reference (a stored document or a file) is made of: the stored documents that
    explain its shingles, with their shares, and the novel rest."""
    from auditor.engine.gather import gather as gather_refs

    return gather_refs(store, refs, threshold=threshold, limits=limits)


@dataclass(frozen=True)
class Comparison:
    """Every measure for two stored documents: ``containment`` both ways (the engine's, with
    spans) and the classic ``measures`` (exact fingerprint, Jaccard, MinHash, LSH, simhash, S3)."""

    containment: dict[str, Any]
    measures: dict[str, Any]


def compare(store: Store, a: str | int, b: str | int) -> Comparison:
    """Every measure for two stored documents (id, sha256 prefix or path)."""
    from auditor.engine.neardup import measures_for_pair

    m = measures_for_pair(store, store.resolve(str(a)), store.resolve(str(b)))
    return Comparison(m.pop("containment"), m)


def export(store: Store, directory: PathLike, *, buckets: int | None = None, texts: bool = True,
           overwrite: bool = False) -> ExportResult:
    """The store as Parquet (documents with provenance, sampled postings, texts) for Spark."""
    from auditor.engine.export import export_parquet

    return export_parquet(store, Path(directory), buckets=buckets, texts=texts, overwrite=overwrite)


__all__ = [
    "Assembled", "AuditOutcome", "BatchResult", "CheckResult", "Comparison", "FileQuery", "GateResult",
    "GatherQuery", "Limits", "Policy", "Store", "Verification", "assemble", "audit", "check", "compare",
    "export", "gate", "gather", "ingest", "query", "verify",
]
