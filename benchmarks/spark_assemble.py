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
import os
import resource
import threading
import time
from pathlib import Path

# Not spark_row's probe: importing spark_row puts this checkout's auditor first on sys.path,
# and "before" figures come from another checkout's, put first on PYTHONPATH.
_TICK = os.sysconf("SC_CLK_TCK")


def _tree() -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                kids.setdefault(int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1]), []).append(int(d))
            except (OSError, IndexError, ValueError):
                continue
    out, todo = [], [os.getpid()]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def tree_cpu() -> float:
    """CPU seconds of this process and its live descendants (with the children they reaped)."""
    total = 0
    for p in _tree():
        try:
            total += sum(int(x) for x in Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[11:15])
        except OSError:
            continue
    return total / _TICK


class Probe(threading.Thread):
    """The JVM's peak resident memory (``VmHWM``), and the tree's CPU, every 0.5 s."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.jvm_peak, self.cpu = 0, 0.0
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            self.cpu = max(self.cpu, tree_cpu())
            for p in _tree():
                try:
                    if Path(f"/proc/{p}/comm").read_text().strip() == "java":
                        status = Path(f"/proc/{p}/status").read_text()
                        hwm = next(ln for ln in status.splitlines() if ln.startswith("VmHWM"))
                        self.jvm_peak = max(self.jvm_peak, int(hwm.split()[1]) * 1024)
                except (OSError, StopIteration):
                    continue
            self._halt.wait(0.5)

    def stop(self) -> None:
        self._halt.set()
        self.join()


def _adopt_orphans() -> None:
    """Stay the parent of Spark's Python workers when their daemon ends (their CPU stays here)."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)


def measure(args: list[str]) -> dict:
    from auditor.cli import cli

    _adopt_orphans()
    probe = Probe()
    t0, c0 = time.perf_counter(), tree_cpu()
    probe.start()
    try:
        cli.main(["assemble", *args], standalone_mode=False)
    finally:
        seconds = time.perf_counter() - t0
        probe.stop()
        cpu = max(probe.cpu, tree_cpu()) - c0
    import auditor

    return {"args": args, "auditor": str(Path(auditor.__file__).parent), "seconds": round(seconds, 1),
            "cpu_seconds": round(cpu, 1),
            "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
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
