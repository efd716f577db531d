"""One benchmark row: the SQLite audit and the Spark audit of the same corpus, timed and compared.

    python benchmarks/spark_row.py sqlite --db corpus.db --key /tmp/sqlite.json
    auditor export --db corpus.db --parquet /tmp/corpus-parquet
    python benchmarks/spark_row.py spark --parquet /tmp/corpus-parquet --key /tmp/spark.json \\
        [--master 'local[2]'] [--driver-memory 1g]
    python benchmarks/spark_row.py compare /tmp/sqlite.json /tmp/spark.json

``--finish-only`` (with ``--workdir`` of an earlier ``spark`` run) runs the finish alone on the
candidate pairs that run wrote (``WORKDIR/result/pairs``): to try a change to the finish on a
large corpus without repeating the Spark job.

``--repeat N`` runs the audit N times in the process and prints the median (and every run).
Each engine runs in a process of its own, so the peak resident memory of the process
(``ru_maxrss``) is that engine's: for Spark it is the driver's Python process alone (the JVM
and the Python workers are other processes). The key holds sha256 digests of what the report
prints, computed the same way for both: every containing pair as ``findings.jsonl.gz`` writes
it, every contained document with its count, first containers, best pairs and spans, the
families, the verified-below count and nearest misses, the histogram, the not-auditable list
and the duplicate groups. ``compare`` exits 1 when they differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from auditor.engine.audit import BEST_CONTAINERS, AuditResult


def _digest(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def key(r: AuditResult) -> dict:
    """Digests of everything the report prints, by part."""
    from auditor.engine.spark_finish import OTHERS_KEPT
    from auditor.report.build import findings_lines

    h = hashlib.sha256()
    for line in findings_lines(r):
        h.update(line)
    kept = BEST_CONTAINERS + OTHERS_KEPT
    grouped = [(c.doc, c.n_containers, c.groups, c.containers[:kept].tolist(), c.values[:kept].tolist(), c.family,
                c.boilerplate, [(p.container, p.estimate.hits, p.estimate.sampled, p.exact,
                                 [s.as_dict() for s in p.spans]) for p in c.best]) for c in r.contained]
    return {
        "containing_pairs": len(r.containing), "containing": h.hexdigest(),
        "contained_documents": len(r.contained), "contained": _digest(grouped),
        "families": _digest([(f.members, f.pairs, f.low, f.high) for f in r.families]),
        "below": r.below, "nearest": _digest([(p.contained, p.container, p.exact) for p in r.nearest_misses]),
        "histogram": r.histogram, "not_auditable": _digest(r.not_auditable),
        "duplicate_groups": _digest(r.duplicate_groups), "counts": [r.documents, r.candidates],
    }


def _finish_only(spark, parquet: Path, workdir: Path | None, threshold: float) -> AuditResult:
    """The finish of an earlier run's pairs (``workdir/result``), timed as ``run_audit_spark``
    times its finish."""
    from auditor.engine.export_store import ExportStore
    from auditor.engine.spark_engine import LAST_STAGES, LAST_TIMING, finish_result
    from auditor.engine.universe import universe

    if workdir is None or not (workdir / "result" / "pairs").is_dir():
        raise SystemExit("--finish-only needs --workdir of an earlier spark run (WORKDIR/result/pairs)")
    src = ExportStore(parquet)
    t = time.perf_counter()
    r = finish_result(spark, parquet.resolve().as_uri(), (workdir / "result").resolve().as_uri(), src.params,
                      threshold, scope=universe(src, None), only=None)
    LAST_TIMING.session = LAST_TIMING.export = LAST_TIMING.spark = 0.0
    LAST_TIMING.load = time.perf_counter() - t
    LAST_STAGES.clear()
    return r


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sqlite")
    s.add_argument("--db", required=True, type=Path)
    s.add_argument("--key", required=True, type=Path)
    s.add_argument("--threshold", type=float, default=0.8)
    s.add_argument("--repeat", type=int, default=1, help="runs in this process; the median is printed")
    p = sub.add_parser("spark")
    p.add_argument("--parquet", required=True, type=Path, help="an export (auditor export) or a Spark ingest")
    p.add_argument("--key", required=True, type=Path)
    p.add_argument("--threshold", type=float, default=0.8)
    p.add_argument("--master", default="local[2]")
    p.add_argument("--driver-memory", default="1g")
    p.add_argument("--workdir", type=Path, help="keep the result here")
    p.add_argument("--finish-only", action="store_true", help="only the finish, on WORKDIR/result/pairs")
    p.add_argument("--repeat", type=int, default=1, help="runs in this process (one session); the median is printed")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    a = ap.parse_args()

    if a.cmd == "compare":
        ka, kb = json.loads(a.a.read_text()), json.loads(a.b.read_text())
        diff = [k for k in ka["key"] if ka["key"][k] != kb["key"].get(k)]
        print(json.dumps({"identical": not diff, "differ": diff,
                          a.a.stem: {k: v for k, v in ka.items() if k != "key"},
                          a.b.stem: {k: v for k, v in kb.items() if k != "key"}}, indent=2))
        return 1 if diff else 0
    runs: list[float] = []
    timing: dict = {}
    spark = None
    for _ in range(max(1, a.repeat)):
        t = time.perf_counter()
        if a.cmd == "sqlite":
            from auditor.engine.audit import run_audit
            from auditor.store.db import Store

            with Store(a.db, create=False) as store:
                r = run_audit(store, a.threshold)
                runs.append(time.perf_counter() - t)
                k = key(r)
        else:
            from auditor.engine.spark_engine import LAST_TIMING, run_audit_spark, session

            if spark is None:
                spark = session(a.master, config={"spark.driver.memory": a.driver_memory, "spark.ui.enabled": "false"})
            if a.finish_only:
                r = _finish_only(spark, a.parquet, a.workdir, a.threshold)
            else:
                r = run_audit_spark(a.parquet, a.threshold, spark=spark, master=a.master, workdir=a.workdir)
            runs.append(time.perf_counter() - t)
            from auditor.engine.spark_engine import LAST_STAGES
            from auditor.engine.spark_finish import STAGES

            timing = {"session": LAST_TIMING.session, "spark_job": LAST_TIMING.spark,
                      "finish_on_executors": LAST_TIMING.load, **LAST_STAGES, **STAGES}
            k = key(r)
        del r
    seconds = statistics.median(runs)
    out = {"engine": a.cmd, "seconds": round(seconds, 1), "runs": [round(x, 1) for x in runs], "peak_mb": round(_peak_mb(), 1),
           "timing": {n: round(v, 1) for n, v in timing.items()}, "key": k}
    a.key.write_text(json.dumps(out, indent=2))
    print(json.dumps({n: v for n, v in out.items() if n != "key"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
