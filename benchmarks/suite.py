"""The quick suite as a new user runs it: wall time, CPU seconds and the machine's load.

    .venv/bin/python benchmarks/suite.py [--repeat 3] [--results benchmarks/results-suite.json]

It runs the README's test command (``python -m pytest``, with ``-q``) as a child process, once
per repeat, and measures it as the other benchmarks measure a stage (``run.measure``): wall
time, CPU = user + system of the whole process tree (``wait4``), and the cores that other
processes of the machine kept busy meanwhile. The load average is read before and after each
run. The README and CONTRIBUTING.md quote the line it prints.

The machine is shared: a wall time means little without the load beside it. So each run keeps
its own load, and the median of the repeats is printed with the largest load seen.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run import measure  # noqa: E402

COUNTS = re.compile(r"(\d+) (passed|failed|xfailed|xpassed|skipped|deselected|errors?)")


def run_once(logdir: Path) -> dict:
    """One run of the quick suite: its figures and its outcome counts."""
    before = os.getloadavg()
    st = measure("suite", [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], logdir, check=False)
    after = os.getloadavg()
    tail = [line for line in st.stdout.splitlines() if line.strip()][-1:] or [""]
    counts = {kind: int(n) for n, kind in COUNTS.findall(tail[0])}
    if st.rc != 0:
        raise SystemExit(f"the quick suite failed (exit {st.rc}): {tail[0]}\nlog: {logdir}")
    return {"wall_s": round(st.wall, 1), "cpu_s": round(st.cpu, 1), "user_s": round(st.user, 1),
            "system_s": round(st.sys, 1), "other_cores": st.others, "load_before": [round(x, 2) for x in before],
            "load_after": [round(x, 2) for x in after], "counts": counts}


def summary(runs: list[dict]) -> str:
    """The sentence the README quotes."""
    wall = statistics.median(r["wall_s"] for r in runs)
    cpu = statistics.median(r["cpu_s"] for r in runs)
    loads = [x for r in runs for x in (r["load_before"][0], r["load_after"][0])]
    c = runs[-1]["counts"]
    kinds = ", ".join(f"{n:,} {k}" for k, n in c.items() if k != "deselected")
    return (f"quick suite: {kinds} in {wall:.0f} s wall ({wall / 60:.1f} min), {cpu:.0f} CPU-s "
            f"(user + system of the process tree), median of {len(runs)}; load average (1 min) "
            f"{min(loads):.1f} to {max(loads):.1f}, other processes kept "
            f"{max(r['other_cores'] for r in runs):.2f} of 2 cores busy at most")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--results", type=Path, default=HERE / "results-suite.json")
    a = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.repeat):
            runs.append(run_once(Path(tmp) / f"run-{i}"))
            print(f"run {i + 1}: {runs[-1]['wall_s']} s wall, {runs[-1]['cpu_s']} CPU-s, "
                  f"load {runs[-1]['load_before'][0]} -> {runs[-1]['load_after'][0]}", flush=True)
    line = summary(runs)
    a.results.write_text(json.dumps({"when": datetime.now(UTC).isoformat(timespec="seconds"), "commit": commit,
                                     "cpus": os.cpu_count(), "runs": runs, "summary": line}, indent=2) + "\n")
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
