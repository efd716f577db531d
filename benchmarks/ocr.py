"""OCR cost and the cost of PDF ingest, side by side (issue 36).

1. OCR throughput in pages per CPU-second: scanned pages made here (Pillow text in an fpdf2 PDF,
   skewed and noised as tests/support/fixtures_build.py makes them) read by ``extract_bytes``
   with the cache off; CPU time is this process's and its children's (the PDF and OCR children
   are shut down, so their time is counted).
2. Ingest of text-layer PDFs before and after: ``auditor ingest`` of the same generated corpus,
   run by this checkout and by a worktree of ``--baseline`` (default: main), interleaved, medians.
   The target is a ratio within 5%.

    python benchmarks/ocr.py [--pages 6] [--pdfs 40] [--repeat 3] [--baseline main]

Writes benchmarks/results-ocr.json and prints a Markdown table for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def ocr_throughput(pages: int) -> dict:
    from auditor.demo import synth
    from auditor.extract import extract_bytes
    from auditor.extract.pdf import ocr as pdf_ocr
    from auditor.extract.pdf import worker
    from tests.support.fixtures_build import make_scanned_pdf

    os.environ["AUDITOR_NO_CACHE"] = "1"
    text = synth.contract(7001, 2_800 * pages, kind="supply")
    data = make_scanned_pdf(text, seed=7)
    worker.shutdown()
    pdf_ocr.shutdown()
    cpu, wall = _cpu(), time.monotonic()
    ex = extract_bytes(data, "scan.pdf")
    worker.shutdown()
    pdf_ocr.shutdown()
    cpu, wall = _cpu() - cpu, time.monotonic() - wall
    n = len(ex.meta["ocr"]["pages"])
    return {"pages": n, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "pages_per_cpu_s": round(n / cpu, 3),
            "cpu_s_per_page": round(cpu / n, 2), "confidence": [p["confidence"] for p in ex.meta["ocr"]["pages"]],
            "engine": {k: v for k, v in ex.meta["ocr"].items() if k != "pages"}}


def _corpus(where: Path, n: int) -> None:
    from auditor.demo import synth
    from tests.support.fixtures_build import make_pdf

    where.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        words = synth.contract(7100 + i, 2_400, kind="lease").split()
        pages = [" ".join(words[j : j + 400]) for j in range(0, len(words), 400)]
        make_pdf(pages, where / f"doc{i:03}.pdf")


def _ingest(checkout: Path, corpus: Path, db: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(checkout), "AUDITOR_NO_CACHE": "1"}
    env.pop("AUDITOR_DB", None)
    db.unlink(missing_ok=True)
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "auditor", "ingest", "--db", str(db), "-q", "--workers", "2", str(corpus)],
                   check=True, env=env, capture_output=True, cwd=checkout)
    return time.monotonic() - start


def ingest_before_after(baseline: str, pdfs: int, repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), baseline], check=True,
                       capture_output=True)
        try:
            corpus = Path(tmp) / "corpus"
            _corpus(corpus, pdfs)
            runs: dict[str, list[float]] = {"baseline": [], "this": []}
            for _ in range(repeat):  # interleaved, so a change of the machine's load hits both
                runs["baseline"].append(_ingest(base, corpus, Path(tmp) / "b.db"))
                runs["this"].append(_ingest(ROOT, corpus, Path(tmp) / "t.db"))
            rev = subprocess.run(["git", "-C", str(base), "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip()
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], capture_output=True)
    b, t = statistics.median(runs["baseline"]), statistics.median(runs["this"])
    return {"baseline": f"{baseline} ({rev})", "pdfs": pdfs, "runs": runs, "median_baseline_s": round(b, 2),
            "median_this_s": round(t, 2), "ratio": round(t / b, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=6)
    ap.add_argument("--pdfs", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", default="main")
    args = ap.parse_args()
    out = {"load": os.getloadavg(), "ocr": ocr_throughput(args.pages),
           "ingest": ingest_before_after(args.baseline, args.pdfs, args.repeat)}
    (ROOT / "benchmarks" / "results-ocr.json").write_text(json.dumps(out, indent=1) + "\n")
    o, g = out["ocr"], out["ingest"]
    print(f"| OCR throughput | {o['pages_per_cpu_s']} pages per CPU-second ({o['cpu_s_per_page']} CPU-s a page, "
          f"{o['pages']} pages, confidence {min(o['confidence'])}-{max(o['confidence'])}) |")
    print(f"| ingest of {g['pdfs']} text-layer PDFs | {g['median_this_s']} s vs {g['median_baseline_s']} s on "
          f"{g['baseline']}: ratio {g['ratio']} |")


if __name__ == "__main__":
    main()
