"""One benchmark row: the SQLite audit and the Spark audit of the same store, timed and compared.

    python tests/support/generate.py --out benchmarks/corpus-140 --size-mb 140
    auditor ingest --db /tmp/b140.db benchmarks/corpus-140/contracts benchmarks/corpus-140/filings
    python benchmarks/spark_row.py --db /tmp/b140.db [--master 'local[*]'] [--repeat 2]

Prints a Markdown row (corpus size, documents, candidate pairs, findings, SQLite seconds, Spark
seconds split into session start, Parquet export, Spark job, driver-side loading) and whether
the two results are identical: the same findings with the same sampled/hits counts, estimates,
exact containment values and spans, the same verified-below pairs, clusters, not-auditable list
and duplicate groups. Exits 1 if they are not.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from auditor.engine.audit import AuditResult, run_audit
from auditor.engine.spark_engine import LAST_TIMING, run_audit_spark, session
from auditor.store.db import Store


def _key(r: AuditResult) -> dict:
    return {
        "findings": [(p.contained, p.container, p.estimate, p.exact, [s.as_dict() for s in p.spans])
                     for p in r.findings],
        "below": [(p.contained, p.container, p.estimate, p.exact) for p in r.verified_below],
        "clusters": [(c.members, c.pairs, c.low, c.high) for c in r.clusters],
        "not_auditable": r.not_auditable, "duplicate_groups": r.duplicate_groups,
        "counts": (r.documents, r.candidates), "scores": r.scores,
    }


def differences(a: AuditResult, b: AuditResult) -> list[str]:
    ka, kb = _key(a), _key(b)
    return [k for k in ka if ka[k] != kb[k]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True, type=Path, help="an ingested, indexed store")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--driver-memory", default="6g")
    ap.add_argument("--repeat", type=int, default=1, help="Spark runs in the same session (the first pays JIT warm-up)")
    ap.add_argument("--workdir", type=Path, help="keep the export and result here")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    with Store(a.db, create=False) as store:
        mb = store.scalar("SELECT coalesce(sum(size), 0) FROM documents WHERE parent_id IS NULL") / 1e6
        t = time.perf_counter()
        ref = run_audit(store, a.threshold)
        t_sqlite = time.perf_counter() - t
        t = time.perf_counter()
        spark = session(a.master, config={"spark.driver.memory": a.driver_memory})
        t_session = time.perf_counter() - t
        runs = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            got = run_audit_spark(store, a.threshold, spark=spark, workdir=a.workdir)
            runs.append({"total": time.perf_counter() - t, "export": LAST_TIMING.export,
                         "spark": LAST_TIMING.spark, "load": LAST_TIMING.load,
                         "differences": differences(ref, got)})
    row = {
        "corpus_mb": round(mb, 1), "documents": ref.documents, "candidates": ref.candidates,
        "findings": len(ref.findings), "verified_below": len(ref.verified_below),
        "clusters": len(ref.clusters), "threshold": a.threshold, "master": a.master,
        "sqlite_s": round(t_sqlite, 2), "spark_session_s": round(t_session, 2),
        "spark_runs": [{k: (round(v, 2) if isinstance(v, float) else v) for k, v in r.items()} for r in runs],
        "identical": all(not r["differences"] for r in runs),
    }
    if a.json:
        print(json.dumps(row, indent=2))
    else:
        print("| corpus | documents | candidate pairs | findings | SQLite audit | Spark audit "
              "(session + export + job + load) | identical |")
        print("|---|---|---|---|---|---|---|")
        for r in runs:
            print(f"| {row['corpus_mb']} MB | {row['documents']} | {row['candidates']} | {row['findings']} "
                  f"| {row['sqlite_s']:.1f} s | {row['spark_session_s'] + r['total']:.1f} s "
                  f"({row['spark_session_s']:.1f} + {r['export']:.1f} + {r['spark']:.1f} + {r['load']:.1f}) "
                  f"| {'yes' if not r['differences'] else 'NO: ' + ', '.join(r['differences'])} |")
    return 0 if row["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
