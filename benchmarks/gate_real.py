"""What the gate refuses of ordinary documents written by others: each file of the directories
gated alone (a dry run, ``--render auto``) against a small store, and the ``not-auditable`` and
``ingest-error`` findings counted by code and reason. Run it before and after a change to the
gate's rendered reading or a reader's model, on real PDFs and office documents (fixtures of
public projects), to see the false alarms the change adds or removes.

    .venv/bin/python benchmarks/gate_real.py DIR [DIR...] [--json OUT]

The store holds one synthetic contract, so a finding of a copy is not expected: every failure
of a real document here is a refusal.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    from auditor.corpus.ingest import ingest
    from auditor.extract.pdf import worker as pdf_worker
    from auditor.gating.admission import GateOptions, run_gate
    from auditor.store.db import Store
    from tests.support import synth

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    os.environ.setdefault("AUDITOR_NO_CACHE", "1")
    files = sorted(p for d in args.dirs for p in d.rglob("*") if p.is_file())
    print(f"# gate of real documents, {time.strftime('%Y-%m-%d')}, load {os.getloadavg()[0]:.2f}, {len(files)} files")
    rows = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        (t / "corpus").mkdir()
        (t / "corpus" / "lease.txt").write_text(synth.contract(8002, 5_000, kind="lease"))
        (t / "corpus" / "filing.txt").write_text(synth.filing(8003, 30_000)[0])
        with Store(t / "c.db") as store:
            ingest(store, [t / "corpus"], batch="corpus", workers=1)
        try:
            for i, f in enumerate(files):
                folder = t / f"in{i}"
                folder.mkdir()
                (folder / f.name).write_bytes(f.read_bytes())
                g = run_gate(GateOptions(db=t / "c.db", inputs=[folder], batch=f"real-{i}", dry_run=True,
                                         out=t / f"out{i}", workers=1))
                why = sorted({_code(x) for x in g.findings if x.level == "error"})
                rows.append({"file": f.name, "status": g.status, "why": why})
                print(f"[{i + 1}/{len(files)}] {f.name}: {g.status} {'; '.join(why)}", flush=True)
        finally:
            pdf_worker.shutdown()
    by = collections.Counter(w for r in rows for w in r["why"])
    print(f"\n{sum(r['status'] != 'PASSED' for r in rows)} of {len(rows)} refused, in {time.monotonic() - t0:.0f} s")
    for w, n in by.most_common():
        print(f"  {n:4}  {w}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    return 0


def _code(f: object) -> str:
    new = getattr(f, "new", {}) or {}
    msg = str(new.get("message") or "")
    code = str(new.get("code") or getattr(f, "kind", ""))
    m = re.match(r"([a-z][a-z0-9_-]*(?::[a-z0-9_-]+)?)[: ]", msg)
    head = m.group(1) if m else ""
    return f"{getattr(f, 'kind', '')}: {code}" + (f" ({head})" if head and head != code else "")


if __name__ == "__main__":
    raise SystemExit(main())
