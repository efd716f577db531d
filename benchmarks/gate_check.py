"""What the gate's integrity check costs beside the quick check it replaced (#26), on stores of
several sizes, side by side in one process.

    .venv/bin/python benchmarks/gate_check.py STORE.db [STORE.db ...] --work /tmp/gc --repeat 3

Each store is copied into ``--work`` first (never modified in place; the copy is migrated to
the current schema when opened, which is timed once as "migrate"). Then, in each repeat:

- ``quick``: ``require_intact``, what ``audit`` runs first and the gate ran before: SQLite's
  ``quick_check``, every text against its digest, the withdrawals, the custody log's quick check
  (every tracked row digested live);
- ``gate before``: ``require_intact_for_gate``, what the gate runs before its batch: the chain
  since the checkpoint and, when the edit count is not in step, ``custody_rows`` against the
  head's state and every tracked row but the texts and word sequences against it;
- ``gate reads``: the texts and word sequences of the 20 largest indexed documents read through
  the store, which checks each (about what a gate with a few findings reads).

Process CPU (user + system) and wall, medians over the repeats. The page cache is whatever the
machine holds: run it twice and read the second for warm figures.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from auditor.corpus.check import require_intact, require_intact_for_gate  # noqa: E402
from auditor.store.db import Store  # noqa: E402


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``fn()``."""
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    fn()
    r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    return t1 - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def bench(source: Path, work: Path, repeat: int) -> dict[str, Any]:
    copy = work / f"{source.parent.name}-{source.name}"
    if not copy.exists():
        shutil.copyfile(source, copy)
    store: Store | None = None

    def open_() -> None:
        nonlocal store
        store = Store(copy)

    migrate = timed(open_)
    assert store is not None
    s = store
    ids = [int(r[0]) for r in s.conn.execute("SELECT doc_id FROM index_docs ORDER BY n_words DESC LIMIT 20")]
    runs: dict[str, list[tuple[float, float]]] = {"quick": [], "gate before": [], "gate reads": []}
    for _ in range(repeat):
        runs["quick"].append(timed(lambda: require_intact(s)))
        runs["gate before"].append(timed(lambda: require_intact_for_gate(s)))
        s.memo.clear()  # each repeat reads them afresh
        runs["gate reads"].append(timed(lambda: (dict(s.texts_of(ids)), dict(s.sequences_of(ids)))))
    out = {"store": str(source), "mb": round(copy.stat().st_size / 1e6), "documents": s.scalar("SELECT count(*) FROM documents"),
           "rows": s.scalar("SELECT count(*) FROM custody_rows"), "migrate": migrate}
    out.update({k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()})
    s.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stores", nargs="+", type=Path)
    ap.add_argument("--work", type=Path, required=True, help="where the stores are copied")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print("| store | documents | tracked rows | migrate wall / CPU s | quick check wall / CPU s | "
          "gate, before the batch | gate, 20 documents read |")
    print("|---|---|---|---|---|---|---|")
    for source in args.stores:
        r = bench(source, args.work, args.repeat)
        cells = [f"{r[k][0]:.2f} / {r[k][1]:.2f}" for k in ("migrate", "quick", "gate before", "gate reads")]
        print(f"| {r['mb']:,} MB | {r['documents']:,} | {r['rows']:,} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
