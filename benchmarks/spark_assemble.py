"""`auditor assemble` measured in a process of its own: wall time, the tree's CPU, the driver's
Python peak resident memory, the JVM's peak; and two assembled corpora compared.

    .venv/bin/python benchmarks/spark_assemble.py measure -- --db corpus.db --format parquet --out A
    .venv/bin/python benchmarks/spark_assemble.py measure -- --engine spark --parquet EXPORT --out B
    .venv/bin/python benchmarks/spark_assemble.py compare A B

``measure`` runs the command line's ``assemble`` in this process (with its arguments after
``--``) and prints one JSON line. ``peak_mb`` is this process's peak resident memory
(``ru_maxrss``): with ``--engine spark``, the driver's Python process alone, since the JVM and
the Python workers are processes of their own (``jvm_peak_mb``; in local mode the JVM is also
the executor). The code measured is the ``auditor`` this interpreter imports: put another
checkout first on ``PYTHONPATH`` to measure it (the figures "before" a change).

``compare`` says whether plan.jsonl is the same bytes in both, and whether the manifests record
the same files (the corpus's rows hash the same) and the same summary.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from spark_row import Probe, _peak_mb, adopt_orphans, tree_cpu


def measure(args: list[str]) -> dict:
    from auditor.cli import cli

    adopt_orphans()
    probe = Probe()
    probe.start()
    t0, c0 = time.perf_counter(), tree_cpu()
    try:
        cli.main(["assemble", *args], standalone_mode=False)
    finally:
        seconds, cpu = time.perf_counter() - t0, tree_cpu() - c0
        probe.stop()
    import auditor

    return {"args": args, "auditor": str(Path(auditor.__file__).parent), "seconds": round(seconds, 1),
            "cpu_seconds": round(cpu, 1), "peak_mb": round(_peak_mb(), 1),
            "jvm_peak_mb": round(probe.jvm_peak / 2**20, 1)}


def compare(a: Path, b: Path) -> dict:
    ma, mb = (json.loads((d / "manifest.json").read_text()) for d in (a, b))
    return {"plan_identical": (a / "plan.jsonl").read_bytes() == (b / "plan.jsonl").read_bytes(),
            "plan_lines": ma["files"]["plan.jsonl"]["lines"], "files_identical": ma["files"] == mb["files"],
            "summary_identical": ma["summary"] == mb["summary"], "kept": ma["corpus"]["documents"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("rest", nargs=argparse.REMAINDER)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    a = ap.parse_args()
    if a.cmd == "measure":
        rest = a.rest[1:] if a.rest[:1] == ["--"] else a.rest
        print(json.dumps(measure(rest)))
    else:
        print(json.dumps(compare(a.a, a.b)))


if __name__ == "__main__":
    main()
