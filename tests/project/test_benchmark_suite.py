"""benchmarks/suite.py: the sentence the README quotes is made from what pytest printed."""

from __future__ import annotations

from benchmarks.suite import COUNTS, summary


def _run(wall: float, cpu: float, load: float, line: str) -> dict:
    return {"wall_s": wall, "cpu_s": cpu, "other_cores": 0.4, "load_before": [load, 0, 0],
            "load_after": [load + 0.5, 0, 0], "counts": {k: int(n) for n, k in COUNTS.findall(line)}}


def test_the_summary_gives_the_medians_the_counts_and_the_load():
    line = "1280 passed, 360 deselected, 3 xfailed in 151.20s (0:02:31)"
    s = summary([_run(150.0, 120.0, 1.0, line), _run(170.0, 130.0, 1.5, line), _run(160.0, 125.0, 1.2, line)])
    assert s.startswith("quick suite: 1,280 passed, 3 xfailed in 160 s wall (2.7 min), 125 CPU-s")
    assert "median of 3" in s and "load average (1 min) 1.0 to 2.0" in s and "deselected" not in s


def test_a_failure_is_counted_not_hidden():
    counts = dict((k, int(n)) for n, k in COUNTS.findall("2 failed, 1278 passed, 1 error in 99.0s"))
    assert counts == {"failed": 2, "passed": 1278, "error": 1}
