"""What the chain of custody costs: ingest with and without the log, and the check audits run
first against the audit job, side by side in one run.

    .venv/bin/python benchmarks/custody.py                       # 140 MB corpus, 3 repeats
    .venv/bin/python benchmarks/custody.py --size-mb 35 --repeat 1 --work /tmp/c

Three sides: *with* is this tree; *without* is this tree with the log's recording switched off
(this script's ``_nolog`` runner replaces ``custody.install`` before running the command, so the
stores have no trigger and no entry but the first: the same code, minus writing the log); and
*before* is the code before the log, ``--base`` (default: the merge-base of HEAD and main),
extracted with ``git archive`` into ``WORK/base-<commit>/``, all with this Python and its
packages. Every timed command is its own process; CPU is user + system of its whole process
tree (``wait4``), so the extraction workers count. The machine is shared and noisy: each repeat
runs the sides back to back (rotating which goes first), shares are taken within a repeat, and
figures are medians.

* **Ingest**: ``auditor ingest`` of the corpus into a fresh store. The log's share of ingest is
  (with - without) / with.
* **Check before an audit**: in one process on the store just ingested, ``require_intact`` (what
  ``audit``, ``gate``, ``assemble`` and ``verify`` run first: ``quick_check``, the text digests,
  withdrawals and the custody log's quick check) and its custody part alone, each timed 5 times
  (median of process CPU); then the audit job (``auditor audit --out``) in its own process. The
  share is the check's CPU over the audit job's (which includes it). The check before the log
  (the *before* tree's, on its own store) is shown beside it, and the full ``auditor check``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = sys.executable


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def base_tree(rev: str, work: Path) -> tuple[Path, str]:
    """The source of ``rev`` (its ``auditor`` package) under ``work``, extracted once."""
    commit = git("rev-parse", rev)
    dest = work / f"base-{commit[:10]}"
    if not (dest / "auditor" / "__init__.py").exists():
        dest.mkdir(parents=True, exist_ok=True)
        data = subprocess.run(["git", "archive", commit, "auditor", "controls"], cwd=ROOT, capture_output=True,
                              check=True).stdout
        tar = dest / "src.tar"
        tar.write_bytes(data)
        with tarfile.open(tar) as t:
            t.extractall(dest, filter="data")
        tar.unlink()
    return dest, commit


def timed(cmd: list[str], tree: Path, log: Path) -> dict[str, float]:
    """Wall and CPU (user + system of the process tree) of ``cmd`` run with ``tree`` on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    with log.open("wb") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=tree, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {rc}: {log.read_text(errors='replace')[-2000:]}")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime}


def fresh(db: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return db


def stage_check(db: str, times: int = 5) -> dict[str, Any]:
    """In this process (with whichever tree PYTHONPATH names): the pre-audit check, and its
    custody part when the tree has one, each ``times`` times after a warm-up."""
    import auditor
    from auditor.corpus.check import require_intact
    from auditor.store.db import Store

    out: dict[str, Any] = {"auditor": auditor.__file__}
    with Store(db, create=False) as s:
        require_intact(s)
        runs = []
        for _ in range(times):
            t = time.process_time()
            require_intact(s)
            runs.append(time.process_time() - t)
        out["check_cpu"] = runs
        if not s.scalar("SELECT 1 FROM sqlite_master WHERE name = 'custody'"):
            return out
        from auditor.store import custody

        runs = []
        for _ in range(times):
            t = time.process_time()
            o = custody.check_quick(s.conn)
            runs.append(time.process_time() - t)
        assert o.ok, o.findings
        out["custody_cpu"] = runs
        out["entries"] = s.scalar("SELECT count(*) FROM custody")
        out["log_bytes"] = s.scalar("SELECT sum(length(entry) + length(rows) + length(hash)) FROM custody")
        out["rows"] = s.scalar("SELECT sum(json_extract(entry, '$.rows')) FROM custody")
        out["tracked_rows"] = len(custody.log.live(s.conn))
    return out


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=float, default=140.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--base", default=None, help="the commit without the log (default: merge-base of HEAD and main)")
    ap.add_argument("--cache", type=Path, default=HERE, help="where corpus-<size>/ is kept")
    ap.add_argument("--work", type=Path, default=HERE / "out" / "custody")
    ap.add_argument("--results", type=Path, default=None, help="JSON results (default: WORK/results.json)")
    args = ap.parse_args(argv)

    sys.path.insert(0, str(HERE))
    from run import ensure_corpus, machine, size_tag, source_state

    args.work.mkdir(parents=True, exist_ok=True)
    corpus, _ = ensure_corpus(args.size_mb, args.cache, args.work / "logs")
    base, commit = base_tree(args.base or git("merge-base", "HEAD", "main"), args.work)
    trees = {"before": base, "without": ROOT, "with": ROOT}
    logs = args.work / "logs"
    logs.mkdir(exist_ok=True)
    res: dict[str, Any] = {"size_mb": args.size_mb, "corpus": str(corpus), "base": commit,
                           "source": source_state(), "machine": machine(), "repeats": []}
    sides = ["before", "without", "with"]
    for i in range(args.repeat):
        rep: dict[str, Any] = {}
        order = sides[i % 3:] + sides[: i % 3]
        for side in order:
            db = fresh(args.work / f"{side}.db")
            run = [PY, str(Path(__file__).resolve()), "_nolog"] if side == "without" else [PY, "-m", "auditor"]
            rep[f"ingest_{side}"] = timed([*run, "ingest", "--db", str(db), "--quiet", str(corpus)],
                                          trees[side], logs / f"ingest-{side}-{i}.log")
        for side in ("before", "with"):
            db = args.work / f"{side}.db"
            st = timed([PY, str(Path(__file__).resolve()), "_check", str(db)], trees[side], logs / f"check-{side}-{i}.log")
            rep[f"check_{side}"] = json.loads((logs / f"check-{side}-{i}.log").read_text().strip().splitlines()[-1])
            rep[f"check_{side}"]["process"] = st
        out = args.work / "report"
        shutil.rmtree(out, ignore_errors=True)
        rep["audit_job"] = timed([PY, "-m", "auditor", "audit", "--db", str(args.work / "with.db"), "--out", str(out)],
                                 ROOT, logs / f"audit-{i}.log")
        rep["full_check"] = timed([PY, "-m", "auditor", "check", "--db", str(args.work / "with.db")], ROOT,
                                  logs / f"full-check-{i}.log")
        res["repeats"].append(rep)
        print(f"repeat {i + 1}: ingest {rep['ingest_before']['cpu']:.1f} / {rep['ingest_without']['cpu']:.1f} -> "
              f"{rep['ingest_with']['cpu']:.1f} CPU-s; "
              f"check {med(rep['check_with']['check_cpu']):.3f} CPU-s (custody {med(rep['check_with']['custody_cpu']):.3f}),"
              f" audit job {rep['audit_job']['cpu']:.1f} CPU-s", file=sys.stderr)
    summary = summarize(res)
    res["summary"] = summary
    path = args.results or args.work / "results.json"
    path.write_text(json.dumps(res, indent=2, sort_keys=True) + "\n")
    print(render(res, size_tag(args.size_mb)))
    return 0


def summarize(res: dict[str, Any]) -> dict[str, Any]:
    reps = res["repeats"]
    share = [(r["ingest_with"]["cpu"] - r["ingest_without"]["cpu"]) / r["ingest_with"]["cpu"] for r in reps]
    share_wall = [(r["ingest_with"]["wall"] - r["ingest_without"]["wall"]) / r["ingest_with"]["wall"] for r in reps]
    check = [med(r["check_with"]["check_cpu"]) for r in reps]
    cust = [med(r["check_with"]["custody_cpu"]) for r in reps]
    old = [med(r["check_before"]["check_cpu"]) for r in reps]
    audit = [r["audit_job"]["cpu"] for r in reps]
    return {
        "ingest_cpu_before": med([r["ingest_before"]["cpu"] for r in reps]),
        "ingest_wall_before": med([r["ingest_before"]["wall"] for r in reps]),
        "share_vs_before": med([(r["ingest_with"]["cpu"] - r["ingest_before"]["cpu"]) / r["ingest_with"]["cpu"]
                                for r in reps]),
        "ingest_cpu_without": med([r["ingest_without"]["cpu"] for r in reps]),
        "ingest_cpu_with": med([r["ingest_with"]["cpu"] for r in reps]),
        "ingest_wall_without": med([r["ingest_without"]["wall"] for r in reps]),
        "ingest_wall_with": med([r["ingest_with"]["wall"] for r in reps]),
        "log_share_of_ingest_cpu": med(share), "log_share_of_ingest_wall": med(share_wall),
        "check_cpu": med(check), "custody_check_cpu": med(cust), "check_cpu_before": med(old),
        "audit_job_cpu": med(audit), "audit_job_wall": med([r["audit_job"]["wall"] for r in reps]),
        "check_share_of_audit": med([c / a for c, a in zip(check, audit, strict=True)]),
        "custody_share_of_audit": med([c / a for c, a in zip(cust, audit, strict=True)]),
        "full_check_cpu": med([r["full_check"]["cpu"] for r in reps]),
        "entries": reps[-1]["check_with"]["entries"], "log_bytes": reps[-1]["check_with"]["log_bytes"],
        "rows": reps[-1]["check_with"]["rows"], "tracked_rows": reps[-1]["check_with"]["tracked_rows"],
    }


def render(res: dict[str, Any], tag: str) -> str:
    s = res["summary"]
    m = res["machine"]
    lines = [
        f"**Chain of custody, {tag} MB** (`benchmarks/custody.py`, {len(res['repeats'])} repeats, medians; "
        f"without the log = {res['base'][:10]}; load average at start {', '.join(f'{x:.2f}' for x in m['loadavg_at_start'])}):",
        "",
        "| | before the log | log switched off | with the log | the log's share | target |",
        "|---|---|---|---|---|---|",
        f"| ingest, CPU s (process tree) | {s['ingest_cpu_before']:.1f} | {s['ingest_cpu_without']:.1f} | "
        f"{s['ingest_cpu_with']:.1f} | {100 * s['log_share_of_ingest_cpu']:.1f}% ({100 * s['share_vs_before']:.1f}% "
        "against the code before it) | < 5% |",
        f"| ingest, wall s | {s['ingest_wall_before']:.1f} | {s['ingest_wall_without']:.1f} | {s['ingest_wall_with']:.1f} | "
        f"{100 * s['log_share_of_ingest_wall']:.1f}% | |",
        f"| check before an audit, CPU s | {s['check_cpu_before']:.3f} | | {s['check_cpu']:.3f} (the log's part "
        f"{s['custody_check_cpu']:.3f}) | {100 * s['check_share_of_audit']:.1f}% of the audit job (the log's part "
        f"{100 * s['custody_share_of_audit']:.2f}%) | < 5% |",
        f"| audit job, CPU s | | | {s['audit_job_cpu']:.1f} (wall {s['audit_job_wall']:.1f}) | | |",
        f"| full `auditor check`, CPU s | | | {s['full_check_cpu']:.1f} | | |",
        "",
        f"The log: {s['entries']:,} entries, {s['rows']:,} row changes, {s['log_bytes'] / 1e6:.1f} MB; "
        f"{s['tracked_rows']:,} tracked rows.",
    ]
    return "\n".join(lines)


def nolog(args: list[str]) -> int:
    """``auditor ARGS`` with the log's recording switched off (no trigger, so no entry is written)."""
    from auditor.cli import cli
    from auditor.store import custody

    custody.install = lambda conn: None  # Store keeps no plan: Store.write seals nothing
    return int(cli.main(args, prog_name="auditor", standalone_mode=False) or 0)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_check":
        print(json.dumps(stage_check(sys.argv[2])))
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "_nolog":
        sys.exit(nolog(sys.argv[2:]))
    sys.exit(main())
