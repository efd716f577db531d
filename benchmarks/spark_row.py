"""One benchmark row: the SQLite audit and the Spark audit of the same corpus, timed and compared.

    python benchmarks/spark_row.py sqlite --db corpus.db --key /tmp/sqlite.json
    auditor export --db corpus.db --parquet /tmp/corpus-parquet
    python benchmarks/spark_row.py spark --parquet /tmp/corpus-parquet --key /tmp/spark.json \\
        [--master 'local[2]'] [--driver-memory 1g]
    python benchmarks/spark_row.py compare /tmp/sqlite.json /tmp/spark.json

From the files, without a store (``auditor ingest --engine spark``), each stage timed:

    python benchmarks/spark_row.py ingest FILES... --parquet /tmp/ingested --key /tmp/ingest.json
    python benchmarks/spark_row.py spark --parquet /tmp/ingested --key /tmp/spark.json --report /tmp/report

``ingest`` times the extraction (one Spark task per part of 64 files) and the merge of the
parts apart. ``--report DIR`` runs the whole job of ``auditor audit --engine spark --parquet``
(controls on Spark, the audit, the report files) in place of the audit alone. Each stage has
its wall time and its CPU time: user + system of this process and all its descendants (the
JVM, the Python workers, the extractors' children), read from ``/proc`` at the stage's ends;
the finish's steps, which only log their wall time, get the CPU of their interval from a
sampler (every 0.5 s). ``jvm_peak_mb`` is the JVM's peak resident memory (``VmHWM``): in local
mode the driver's JVM is also the only executor.

``--finish-only`` (with ``--workdir`` of an earlier ``spark`` run) runs the finish alone on the
candidate pairs that run wrote (``WORKDIR/result/pairs``): to try a change to the finish on a
large corpus without repeating the Spark job.

``--words-from sequences`` has the job and the finish read the stored word sequences of
``sequences/`` where they need each document's words (exact verification, short documents,
spans), instead of tokenising ``texts/`` again (the default); the findings are the same.

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
import bisect
import functools
import hashlib
import json
import os
import resource
import statistics
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from auditor.engine.audit import BEST_CONTAINERS, AuditResult


def _digest(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def _digest_items(items: Iterable[object]) -> str:
    """``_digest(list(items))``, hashed as the items come: the key must not add a list per
    document to the peak it reports."""
    h = hashlib.sha256(b"[")
    for i, x in enumerate(items):
        h.update((", " if i else "").encode() + json.dumps(x, sort_keys=True, default=str).encode())
    h.update(b"]")
    return h.hexdigest()


def key(r: AuditResult) -> dict:
    """Digests of everything the report prints, by part."""
    from auditor.engine.spark_finish import OTHERS_KEPT
    from auditor.report.build import findings_lines

    h = hashlib.sha256()
    for line in findings_lines(r):
        h.update(line)
    kept = BEST_CONTAINERS + OTHERS_KEPT
    grouped = ((c.doc, c.n_containers, c.groups, c.containers[:kept].tolist(), c.values[:kept].tolist(), c.family,
                c.boilerplate, [(p.container, p.estimate.hits, p.estimate.sampled, p.exact,
                                 [s.as_dict() for s in p.spans]) for p in c.best]) for c in r.contained)
    return {
        "containing_pairs": len(r.containing), "containing": h.hexdigest(),
        "contained_documents": len(r.contained), "contained": _digest_items(grouped),
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


_TICK = os.sysconf("SC_CLK_TCK")


def _tree() -> list[int]:
    """This process and its descendants (live ones)."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [os.getpid()]
    while todo:  # children of this process include adopted orphans (adopt_orphans)
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def tree_cpu() -> float:
    """CPU seconds (user + system) of the tree so far: each live process's own and its reaped
    children's, so a process that ended counts once, in its parent."""
    total = 0
    for p in _tree():
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in f[11:15])
    return total / _TICK


def adopt_orphans() -> None:
    """Make this process the subreaper of its descendants (``PR_SET_CHILD_SUBREAPER``). When
    Spark stops its Python daemon, the daemon's workers are orphaned: reparented to init, they
    and the CPU they and their extractor children used would leave the tree. Reparented here,
    they stay in it: nothing here waits for them, so once ended they stay zombies, whose
    ``/proc`` entry keeps the CPU they used until this process exits."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)


class Probe(threading.Thread):
    """The tree's CPU every 0.5 s, and the JVM's peak resident memory."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[tuple[float, float]] = []
        self.jvm_peak = 0
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            self.samples.append((time.perf_counter(), tree_cpu()))
            for p in _tree():
                try:
                    status = Path(f"/proc/{p}/status").read_text()
                    if Path(f"/proc/{p}/comm").read_text().strip() == "java":
                        hwm = next(ln for ln in status.splitlines() if ln.startswith("VmHWM"))
                        self.jvm_peak = max(self.jvm_peak, int(hwm.split()[1]) * 1024)
                except (OSError, StopIteration):
                    continue
            self._halt.wait(0.5)

    def cpu_at(self, t: float) -> float:
        s = self.samples
        if not s:
            return 0.0
        i = bisect.bisect_left(s, (t, -1.0))
        if i == 0:
            return s[0][1]
        if i >= len(s):
            return s[-1][1]
        (t0, c0), (t1, c1) = s[i - 1], s[i]
        return c0 + (c1 - c0) * (t - t0) / (t1 - t0) if t1 > t0 else c1

    def stop(self) -> None:
        self._halt.set()
        self.join()


STAGE_LOG: list[dict] = []


def staged(name: str, fn):
    """``fn`` with its wall and tree CPU logged in ``STAGE_LOG`` at each call, and the driver's
    peak resident memory so far (``peak_mb``): the stage that raised it is the driver's holder."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        t0, c0 = time.perf_counter(), tree_cpu()
        try:
            return fn(*args, **kwargs)
        finally:
            STAGE_LOG.append({"stage": name, "start": t0, "wall": round(time.perf_counter() - t0, 2),
                              "cpu": round(tree_cpu() - c0, 2), "peak_mb": round(_peak_mb(), 1)})
    return run


def _stage_rows(probe: Probe, t_start: float) -> list[dict]:
    """``STAGE_LOG`` relative to ``t_start``; the finish's steps (``spark_finish.STAGES``, wall
    only, in order) after the last finish, their CPU from the probe's samples."""
    from auditor.engine.spark_finish import STAGES

    rows = [{**r, "start": round(r["start"] - t_start, 1)} for r in STAGE_LOG]
    finishes = [r for r in STAGE_LOG if r["stage"] == "finish"]
    if finishes and STAGES:
        t = finishes[-1]["start"]
        for name, wall in STAGES.items():
            rows.append({"stage": f"finish: {name}", "start": round(t - t_start, 1), "wall": wall,
                         "cpu": round(probe.cpu_at(t + wall) - probe.cpu_at(t), 2)})
            t += wall
    return rows


def _ingest(a: argparse.Namespace) -> int:
    """``auditor ingest --engine spark FILES --parquet DIR``, its extraction and merge timed apart."""
    import auditor.engine.spark_ingest as si
    from auditor.corpus.ingest import walk
    from auditor.engine.spark_engine import session

    probe = Probe()
    probe.start()
    t0, c0 = time.perf_counter(), tree_cpu()
    spark = session(a.master, config={"spark.driver.memory": a.driver_memory, "spark.ui.enabled": "false"})
    STAGE_LOG.append({"stage": "session", "start": t0, "wall": round(time.perf_counter() - t0, 2),
                      "cpu": round(tree_cpu() - c0, 2)})
    si._merge = staged("merge of the parts", si._merge)
    run = staged("ingest: walk, extraction, parts written, merge", si.spark_ingest)
    r = run(spark, a.inputs, a.parquet, command="auditor ingest --engine spark (benchmarks/spark_row.py)")
    probe.stop()
    rows = _stage_rows(probe, t0)
    print(json.dumps(rows), flush=True)
    total = next(x for x in rows if x["stage"].startswith("ingest:"))
    merge = next(x for x in rows if x["stage"] == "merge of the parts")
    rows.append({"stage": "extraction (walk, parts written)", "start": total["start"],
                 "wall": round(total["wall"] - merge["wall"], 2), "cpu": round(total["cpu"] - merge["cpu"], 2)})
    meta = json.loads((Path(a.parquet) / "params.json").read_text())
    nbytes = sum(os.path.getsize(f.path) for f in walk(a.inputs))
    out = {"engine": "spark ingest", "seconds": round(time.perf_counter() - t0, 1), "cpu": round(tree_cpu(), 1),
           "peak_mb": round(_peak_mb(), 1), "jvm_peak_mb": round(probe.jvm_peak / 2**20, 1),
           "input_bytes": nbytes, "result": r.as_dict(), "counts": meta["counts"], "stages": rows}
    a.key.write_text(json.dumps(out, indent=2))
    print(json.dumps(out))
    return 0


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
    p.add_argument("--report", type=Path, help="run the whole job (controls, audit, report files) into this directory")
    p.add_argument("--words-from", choices=("sequences", "texts"), default="texts",
                   help="where verification and spans read each document's words (spark_finish.WORDS_FROM)")
    g = sub.add_parser("ingest")
    g.add_argument("inputs", nargs="+")
    g.add_argument("--parquet", required=True, type=Path, help="the directory to write (auditor ingest --engine spark)")
    g.add_argument("--key", required=True, type=Path, help="where to write the timings (JSON)")
    g.add_argument("--master", default="local[2]")
    g.add_argument("--driver-memory", default="1g")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    a = ap.parse_args()
    adopt_orphans()

    if a.cmd == "compare":
        ka, kb = json.loads(a.a.read_text()), json.loads(a.b.read_text())
        diff = [k for k in ka["key"] if ka["key"][k] != kb["key"].get(k)]
        print(json.dumps({"identical": not diff, "differ": diff,
                          a.a.stem: {k: v for k, v in ka.items() if k != "key"},
                          a.b.stem: {k: v for k, v in kb.items() if k != "key"}}, indent=2))
        return 1 if diff else 0
    if a.cmd == "ingest":
        return _ingest(a)
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
            import auditor.engine.spark_engine as se
            import auditor.engine.spark_finish as sf
            import auditor.report.from_parquet as fp
            from auditor.engine.spark_engine import LAST_TIMING, run_audit_spark, session

            sf.WORDS_FROM = a.words_from

            probe = Probe()
            probe.start()
            STAGE_LOG.clear()
            c0 = tree_cpu()
            if spark is None:
                spark = session(a.master, config={"spark.driver.memory": a.driver_memory, "spark.ui.enabled": "false"})
                STAGE_LOG.append({"stage": "session", "start": t, "wall": round(time.perf_counter() - t, 2),
                                  "cpu": round(tree_cpu() - c0, 2)})
            if not hasattr(se.spark_audit, "__wrapped__"):
                se.spark_audit = staged("Spark job", se.spark_audit)
                se.finish_result = staged("finish", se.finish_result)
                fp.run_controls = staged("controls (on Spark)", fp.run_controls)
                fp.build_report = staged("report built", fp.build_report)
                fp.write = staged("report files written", fp.write)
                fp.export_run = staged("run recorded in the export", fp.export_run)
            if a.finish_only:
                r = _finish_only(spark, a.parquet, a.workdir, a.threshold)
            elif a.report:
                r = fp.parquet_job(a.parquet, a.threshold, out=a.report, master=a.master, workdir=a.workdir,
                                   spark=spark, command="auditor audit --engine spark (benchmarks/spark_row.py)").audit
            else:
                r = run_audit_spark(a.parquet, a.threshold, spark=spark, master=a.master, workdir=a.workdir)
            runs.append(time.perf_counter() - t)
            probe.stop()
            stage_rows = _stage_rows(probe, t)
            cpu = round(tree_cpu() - c0, 1)
            jvm = round(probe.jvm_peak / 2**20, 1)
            from auditor.engine.spark_engine import LAST_STAGES
            from auditor.engine.spark_finish import STAGES

            timing = {"session": LAST_TIMING.session, "spark_job": LAST_TIMING.spark,
                      "finish_on_executors": LAST_TIMING.load, **LAST_STAGES, **STAGES}
            k = key(r)
        del r
    seconds = statistics.median(runs)
    out = {"engine": a.cmd, "seconds": round(seconds, 1), "runs": [round(x, 1) for x in runs], "peak_mb": round(_peak_mb(), 1),
           "timing": {n: round(v, 1) for n, v in timing.items()}, "key": k}
    if a.cmd == "sqlite":
        out["cpu"] = round(tree_cpu(), 1)
    else:
        out |= {"cpu": cpu, "jvm_peak_mb": jvm, "words_from": a.words_from, "stages": stage_rows}
    a.key.write_text(json.dumps(out, indent=2))
    print(json.dumps({n: v for n, v in out.items() if n != "key"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
