"""OCR cost and the cost of PDF ingest, side by side (issue 36).

1. OCR throughput in pages per CPU-second: scanned pages made here (Pillow text in an fpdf2 PDF,
   skewed and noised as tests/support/fixtures_build.py makes them) read by ``extract_bytes``
   with the cache off; CPU time is this process's and its children's (the PDF and OCR children
   are shut down, so their time is counted).
2. Ingest of text-layer PDFs before and after: ``auditor ingest`` with its defaults, of the same
   generated corpus, run by this checkout and by the tree of ``--baseline`` (default: main,
   exported with ``git archive``), one after the other in each repeat, medians of wall and CPU
   seconds. The target is a ratio within 5%. The stored texts of both are compared.

    python benchmarks/ocr.py [--pages 6] [--pdfs 60] [--repeat 7] [--baseline main] [--only ingest]

Writes benchmarks/results-ocr.json and prints a Markdown table for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
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
    from auditor.extract import extract_bytes
    from auditor.extract.pdf import ocr as pdf_ocr
    from auditor.extract.pdf import worker
    from tests.support import synth
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
    """``n`` text-layer PDFs of 6 pages (fpdf2), as offices write them: headings on a shaded
    band, paragraphs, and on every other page a ruled table. The shapes matter: what the branch
    adds to a text page (the redaction bookkeeping) works on shapes drawn with glyphs."""
    from fpdf import FPDF

    from tests.support import synth

    where.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        words = synth.contract(7100 + i, 2_400, kind="lease").split()
        pdf = FPDF(format="letter")
        pdf.set_auto_page_break(auto=False)
        for p in range(6):
            chunk = words[p * 400 : (p + 1) * 400]
            pdf.add_page()
            pdf.set_font("Helvetica", "B", 12)
            pdf.set_fill_color(225, 225, 225)
            pdf.cell(0, 8, f"Section {p + 1}. " + " ".join(chunk[:6]), fill=True, new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("Helvetica", size=10)
            pdf.multi_cell(0, 5, " ".join(chunk[6:330]), new_x="LMARGIN", new_y="NEXT")
            if p % 2:
                for r in range(5):
                    for c in range(3):
                        pdf.cell(60, 6, " ".join(chunk[330 + r * 12 + c * 4 : 334 + r * 12 + c * 4]), border=1)
                    pdf.ln(6)
            else:
                pdf.multi_cell(0, 5, " ".join(chunk[330:]), new_x="LMARGIN", new_y="NEXT")
        pdf.output(str(where / f"doc{i:03}.pdf"))


def _texts_digest(db: Path) -> str:
    """sha256 over every stored text, by the file it came from: the two trees must store the same."""
    import hashlib
    import sqlite3

    h = hashlib.sha256()
    with sqlite3.connect(db) as conn:
        for sha, text in conn.execute("SELECT d.sha256, t.sha256 FROM documents d JOIN texts t ON t.doc_id = d.id"
                                      " ORDER BY d.sha256"):
            h.update(f"{sha}\t{text}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _subreaper() -> None:
    """Make this process the reaper of its orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``).

    ``auditor ingest`` kills its extraction workers at the end; their own PDF children then die
    orphaned and are reaped by init, so their CPU time is in no ``wait4`` of ours. As their
    subreaper, this process reaps them and ``RUSAGE_CHILDREN`` counts every process of the tree."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def _reap_orphans(deadline: float = 30.0) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no child left
        if pid == 0:
            time.sleep(0.05)  # an orphan still dying
    raise RuntimeError("descendants of the ingest still run after 30 s")


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def ingest_before_after(baseline: str, pdfs: int, repeat: int) -> dict:
    """``auditor ingest`` with its defaults, of one generated corpus, by the tree of ``baseline``
    (``git archive``, run with this virtual environment) and by this checkout, one after the
    other in each repeat, which goes first alternating. Wall and CPU (of every process of the
    tree, orphans included: :func:`_subreaper`) are compared by their medians; the stored texts
    must be the same."""
    from benchmarks.cpu import export
    from benchmarks.run import auditor_cmd, measure

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base, commit = export(baseline, work)
        corpus = work / "corpus"
        _corpus(corpus, pdfs)
        _subreaper()
        runs: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": [], "others": []} for k in ("baseline", "this")}
        loads = [os.getloadavg()]
        texts: dict[str, str] = {}
        for i in range(repeat):
            order = [("baseline", base), ("this", ROOT)]
            for name, root in order if i % 2 == 0 else order[::-1]:
                db = work / f"{name}.db"
                for f in work.glob(f"{name}.db*"):
                    f.unlink()
                os.environ["AUDITOR_CACHE"] = str(work / f"cache-{name}-{i}")
                cpu0 = _children_cpu()
                st = measure(f"ingest-{name}-{i}", auditor_cmd("ingest", "--db", str(db), "-q", str(corpus)),
                             work / "logs", root=root)
                _reap_orphans()
                runs[name]["wall"].append(round(st.wall, 3))
                runs[name]["cpu"].append(round(_children_cpu() - cpu0, 3))
                runs[name].setdefault("cpu_wait4", []).append(round(st.cpu, 3))
                runs[name]["others"].append(st.others)
                texts[name] = _texts_digest(db)
            loads.append(os.getloadavg())
    med = {k: {m: statistics.median(v[m]) for m in ("wall", "cpu")} for k, v in runs.items()}
    return {"baseline": f"{baseline} ({commit[:10]})", "pdfs": pdfs, "pages": 6 * pdfs, "repeat": repeat,
            "runs": runs, "median": med,
            "ratio": {m: round(med["this"][m] / med["baseline"][m], 3) for m in ("wall", "cpu")},
            "same_texts": texts["this"] == texts["baseline"], "load": [[round(x, 2) for x in la] for la in loads]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=6)
    ap.add_argument("--pdfs", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--baseline", default="main")
    ap.add_argument("--only", choices=["ocr", "ingest"], help="one of the two measures (the other is kept "
                    "from the results file)")
    args = ap.parse_args()
    path = ROOT / "benchmarks" / "results-ocr.json"
    out = json.loads(path.read_text()) if args.only and path.exists() else {}
    out["load"] = os.getloadavg()
    if args.only != "ingest":
        out["ocr"] = ocr_throughput(args.pages)
    if args.only != "ocr":
        out["ingest"] = ingest_before_after(args.baseline, args.pdfs, args.repeat)
    path.write_text(json.dumps(out, indent=1) + "\n")
    o, g = out.get("ocr"), out.get("ingest")
    if o:
        print(f"| OCR throughput | {o['pages_per_cpu_s']} pages per CPU-second ({o['cpu_s_per_page']} CPU-s a page, "
              f"{o['pages']} pages, confidence {min(o['confidence'])}-{max(o['confidence'])}) |")
    if g:
        m = g["median"]
        print(f"| ingest of {g['pdfs']} text-layer PDFs ({g['pages']} pages), medians of {g['repeat']} | "
              f"wall {m['this']['wall']:.2f} s vs {m['baseline']['wall']:.2f} s, CPU {m['this']['cpu']:.2f} s vs "
              f"{m['baseline']['cpu']:.2f} s on {g['baseline']}: ratio wall {g['ratio']['wall']}, CPU "
              f"{g['ratio']['cpu']}; same texts: {g['same_texts']}; load {g['load'][0]} to {g['load'][-1]} |")


if __name__ == "__main__":
    main()
