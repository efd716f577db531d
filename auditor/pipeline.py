"""The audit job: index, controls, audit, report, run record. Fails closed.

Controls run first. If any fails, no finding is computed or written: the report is marked
REFUSED and holds only the control table, and the caller gets ``refused=True`` (the CLI exits 2).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor import render
from auditor.audit import run_audit
from auditor.controls import run_controls
from auditor.errors import UsageError
from auditor.index import build_index
from auditor.report import build_report, differences, digest, load, run_block, write_json
from auditor.store import Store, now

DEFAULT_REPORTS = Path("reports")


@dataclass
class Outcome:
    report: dict[str, Any]
    directory: Path
    refused: bool

    @property
    def run_id(self) -> str:
        return str(self.report["run"]["run_id"])


def compute(
    store: Store,
    threshold: float,
    *,
    seed: int = 0,
    controls_dir: Path | None = None,
    only: set[int] | None = None,
    scope: dict[str, Any] | None = None,
    run: dict[str, Any] | None = None,
    engine: str = "sqlite",
    master: str = "local[*]",
    workdir: Path | None = None,
) -> dict[str, Any]:
    """The report for the store as it is now (no files written).

    ``engine="spark"`` runs the controls and the audit on Spark (``master``); the results are
    identical by construction, and the report's manifest names the engine.
    """
    build_index(store)
    audit_fn = run_audit
    if engine == "spark":
        from auditor.spark_engine import run_audit_spark

        audit_fn = functools.partial(run_audit_spark, master=master, workdir=workdir)
    elif engine != "sqlite":
        raise UsageError(f"unknown engine {engine!r}; expected sqlite or spark")
    store.conn.execute("BEGIN")  # one read snapshot (WAL) for controls, audit and report
    try:
        controls = run_controls(store, threshold, directory=controls_dir, seed=seed, audit=audit_fn)
        audit = audit_fn(store, threshold, only=only) if controls.passed else None
        return build_report(store, threshold, controls, audit, run or {}, scope=scope, engine=engine)
    finally:
        store.conn.execute("COMMIT")


def audit_job(
    store: Store,
    threshold: float = 0.8,
    *,
    out: Path | None = None,
    seed: int = 0,
    controls_dir: Path | None = None,
    only: set[int] | None = None,
    scope: dict[str, Any] | None = None,
    kind: str = "audit",
    command: str = "",
    reports_root: Path = DEFAULT_REPORTS,
    engine: str = "sqlite",
    master: str = "local[*]",
    workdir: Path | None = None,
) -> Outcome:
    """Run the whole audit and write ``report.json``, ``report.md`` and ``report.html``."""
    started = datetime.now(UTC)
    report = compute(store, threshold, seed=seed, controls_dir=controls_dir, only=only, scope=scope,
                     engine=engine, master=master, workdir=workdir)
    run_id = base = f"{started:%Y%m%dT%H%M%SZ}-{report['digest'][:8]}"
    n = 1
    while store.scalar("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)):
        n += 1
        run_id = f"{base}-{n}"
    report["run"] = run_block(run_id, started, command)
    if controls_dir is not None:
        report["run"]["controls_dir"] = str(Path(controls_dir).resolve())
    directory = Path(out) if out else reports_root / run_id
    write(report, directory)
    _save_run(store, report, kind, directory)
    return Outcome(report, directory, report["status"] == "REFUSED")


def write(report: dict[str, Any], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    write_json(report, directory / "report.json")
    (directory / "report.md").write_text(render.markdown(report), encoding="utf-8")
    (directory / "report.html").write_text(render.html(report), encoding="utf-8")


def _save_run(store: Store, report: dict[str, Any], kind: str, directory: Path) -> None:
    run = report["run"]
    with store.write() as c:
        c.execute(
            "INSERT INTO runs (run_id, kind, status, params, started, ended, summary, report_dir, digest)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            (run["run_id"], kind, report["status"], json.dumps(report["manifest"]["params"], sort_keys=True),
             run["started"], now(), json.dumps(report.get("summary", {}), sort_keys=True),
             str(directory), report["digest"]),
        )
        c.executemany(
            "INSERT INTO findings (run_id, kind, contained_id, container_id, containment, data)"
            " VALUES (?,?,?,?,?,?)",
            [(run["run_id"], "containment", f["contained"]["doc_id"], f["container"]["doc_id"],
              f["containment"], json.dumps(f, sort_keys=True)) for f in report["findings"]],
        )


@dataclass
class Verification:
    ok: bool
    stored_digest: str
    content_digest: str
    recomputed_digest: str
    problems: list[str]


def verify(report_dir: Path, store: Store, *, controls_dir: Path | None = None) -> Verification:
    """Recompute the audit with the report's parameters and compare it with the report.

    The controls come from ``controls_dir``, else the directory the audit used (recorded in its
    run block), else the default; the manifest's fixtures digest says whether they are the same.
    """
    report = load(report_dir)
    recorded = report.get("run", {}).get("controls_dir")
    if controls_dir is None and recorded and Path(recorded).is_dir():
        controls_dir = Path(recorded)
    problems = []
    content = digest(report)
    if content != report.get("digest"):
        problems.append(f"report.json was altered: its content hashes to {content[:16]}..., "
                        f"but it records {str(report.get('digest'))[:16]}...")
    params = report["manifest"]["params"]
    stored = store.params.as_dict()
    for k, v in stored.items():
        if params.get(k) != v:
            problems.append(f"parameter {k}: report {params.get(k)!r}, store {v!r}")
    scope = report.get("scope", {"kind": "corpus"})
    only = set(scope.get("documents", [])) if scope.get("kind") == "batch" else None
    seed = report["manifest"]["controls"].get("seed") or 0
    if problems and any(p.startswith("parameter") for p in problems):
        return Verification(False, str(report.get("digest")), content, "", problems)
    again = compute(store, float(params["threshold"]), seed=seed, only=only, scope=scope,
                    engine=report["manifest"].get("engine", "sqlite"), controls_dir=controls_dir)
    if again["digest"] != report.get("digest"):
        if again["manifest"]["corpus"] != report["manifest"]["corpus"]:
            problems.append("the corpus changed: " + "; ".join(
                differences(report["manifest"]["corpus"], again["manifest"]["corpus"], "manifest/corpus")))
        core = {k: v for k, v in report.items() if k not in ("run", "digest")}
        core2 = {k: v for k, v in again.items() if k not in ("run", "digest")}
        problems += [d for d in differences(core, core2) if not d.startswith("/manifest/corpus")][:20]
        if not problems:
            problems.append("recomputed digest differs")
    return Verification(not problems, str(report.get("digest")), content, again["digest"], problems)
