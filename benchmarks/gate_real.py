"""What the gate refuses of ordinary documents written by others: each file of the directories
gated alone (a dry run, ``--render auto``) against a small store, and the ``not-auditable`` and
``ingest-error`` findings counted by code and reason. Run it before and after a change to the
gate's rendered reading or a reader's model, on real PDFs and office documents (fixtures of
public projects), to see the false alarms the change adds or removes.

    .venv/bin/python benchmarks/gate_real.py DIR [DIR...] [--json OUT]
    .venv/bin/python benchmarks/gate_real.py --git /work/.mirror/dgunning+edgartools/repo:data/sgml

``--git GITDIR:PATH`` reads the files under PATH at the HEAD of a bare git mirror (``git show``),
so that a measurement of a public project's fixtures (edgartools' EDGAR submissions) needs no
checkout; a file the mirror does not hold (a large file left out) is skipped. Each row gives the
EDGAR parts read as data and the documents passed as short.

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
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--git", action="append", default=[], metavar="GITDIR:PATH",
                    help="the files under PATH at HEAD of a bare git mirror")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    os.environ.setdefault("AUDITOR_NO_CACHE", "1")
    files = sorted(p for d in args.dirs for p in d.rglob("*") if p.is_file())
    mirror = tempfile.TemporaryDirectory()
    for spec in args.git:
        files += _from_git(spec, Path(mirror.name))
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
                c = g.counts
                data, short = c.get("data_parts", 0), c.get("short_documents", 0)  # 0 before 2026-12-03
                rows.append({"file": f.name, "status": g.status, "why": why, "data_parts": data, "short": short,
                             "documents": c["new_documents"], "seconds": g.seconds})
                print(f"[{i + 1}/{len(files)}] {f.name}: {g.status} ({c['new_documents']} documents, "
                      f"{data} parts read as data, {short} short, {g.seconds:.1f} s) {'; '.join(why)}", flush=True)
        finally:
            pdf_worker.shutdown()
    by = collections.Counter(w for r in rows for w in r["why"])
    print(f"\n{sum(r['status'] != 'PASSED' for r in rows)} of {len(rows)} refused, in {time.monotonic() - t0:.0f} s")
    for w, n in by.most_common():
        print(f"  {n:4}  {w}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    return 0


def _from_git(spec: str, into: Path) -> list[Path]:
    """The files under PATH at HEAD of the bare mirror GITDIR (``GITDIR:PATH``), written into ``into``."""
    import subprocess

    gitdir, _, under = spec.rpartition(":")
    names = subprocess.run(["git", f"--git-dir={gitdir}", "ls-tree", "-r", "--name-only", "HEAD", "--", under],
                           capture_output=True, text=True, check=True).stdout.split("\n")
    out = []
    for name in sorted(n for n in names if n):
        got = subprocess.run(["git", f"--git-dir={gitdir}", "show", f"HEAD:{name}"], capture_output=True)
        if got.returncode or not got.stdout:
            print(f"skipped {name}: not in the mirror", flush=True)
            continue
        path = into / Path(gitdir).parent.name / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(got.stdout)
        out.append(path)
    return out


def _code(f: object) -> str:
    new = getattr(f, "new", {}) or {}
    msg = str(new.get("message") or "")
    code = str(new.get("code") or getattr(f, "kind", ""))
    m = re.match(r"([a-z][a-z0-9_-]*(?::[a-z0-9_-]+)?)[: ]", msg)
    head = m.group(1) if m else ""
    return f"{getattr(f, 'kind', '')}: {code}" + (f" ({head})" if head and head != code else "")


if __name__ == "__main__":
    raise SystemExit(main())
