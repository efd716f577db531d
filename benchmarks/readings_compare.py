"""Extraction and normalisation before and after the readings of issue #25, side by side.

    .venv/bin/python benchmarks/readings_compare.py --old /path/to/old/checkout [--rounds 5]

Both trees run the same inputs in alternating child processes (old, new, old, new...), so the
shared machine's noise falls on both; the medians and their ratio are printed, with whether the
visible text of each input is the same under both (ordinary documents must read as before, but
for normalisation v3's folding of marks, which changes words, not texts). Inputs: multi-page
PDFs as benchmarks/run.py generates them (fpdf2, Helvetica), the fixture controls' PDF, .docx
files of synthetic contracts, and for normalisation synthetic contracts plus the licence texts
of /usr/share/common-licenses and a French and a Russian sample.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from auditor.extract import extract_bytes
from auditor.text.normalize import words_bytes
from auditor.extract.pdf import worker as pdf_worker
inputs = sorted(Path(sys.argv[2]).glob("in/*"))
texts = [p.read_text("utf-8") for p in sorted(Path(sys.argv[2]).glob("norm/*"))]
out = {"digests": {}, "times": {}}
for kind in ("pdf", "docx"):
    files = [p for p in inputs if p.suffix == "." + kind]
    extract_bytes(files[0].read_bytes(), files[0].name)  # start the PDF child, import what is needed
    t = time.perf_counter()
    for p in files:
        ex = extract_bytes(p.read_bytes(), p.name)
        out["digests"][p.name] = [hashlib.sha256(ex.text.encode()).hexdigest(), ex.unreadable]
    out["times"][kind] = time.perf_counter() - t
words_bytes("\u00e9 \u0430")  # build the skeleton table before timing
best = []
for _ in range(3):
    t = time.perf_counter()
    n = 0
    for s in texts:
        n += len(words_bytes(s))
    best.append(time.perf_counter() - t)
out["times"]["normalise"] = min(best)
out["words"] = n
pdf_worker.shutdown()
print(json.dumps(out))
"""


def make_inputs(work: Path) -> None:
    from fpdf import FPDF

    from tests.support import synth

    (work / "in").mkdir(parents=True)
    (work / "norm").mkdir()
    for i in range(12):  # as benchmarks/run.py stage_pdf
        text = synth.contract(9000 + i, 30_000)
        pdf = FPDF(format="A4")
        pdf.set_auto_page_break(auto=True, margin=15)
        pdf.set_compression(True)
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(0, 5, text.encode("latin-1", "replace").decode("latin-1"))
        (work / "in" / f"gen{i:02d}.pdf").write_bytes(bytes(pdf.output()))
    (work / "in" / "lease-scan.pdf").write_bytes((ROOT / "controls" / "lease-scan.pdf").read_bytes())
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    for i in range(12):
        paras = synth.contract(9100 + i, 30_000).split("\n\n")
        body = "".join(f"<w:p><w:r><w:t xml:space='preserve'>{p.replace('&', '&amp;').replace('<', '&lt;')}</w:t></w:r></w:p>"
                       for p in paras)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
            z.writestr("_rels/.rels", '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>')
            z.writestr("word/document.xml", f'<?xml version="1.0"?><w:document xmlns:w="{w}"><w:body>{body}</w:body></w:document>')
        (work / "in" / f"gen{i:02d}.docx").write_bytes(buf.getvalue())
    for i in range(40):
        (work / "norm" / f"c{i:02d}.txt").write_text(synth.contract(9200 + i, 20_000), "utf-8")
    for p in sorted(Path("/usr/share/common-licenses").glob("*")):
        if p.is_file():
            (work / "norm" / f"lic-{p.name}.txt").write_text(p.read_text("utf-8", "replace"), "utf-8")
    fr = ("Le pr\u00eateur accorde au b\u00e9n\u00e9ficiaire un cr\u00e9dit renouvelable dont les "
          "modalit\u00e9s sont d\u00e9crites ci-apr\u00e8s, \u00e0 d\u00e9faut de quoi. ")
    ru = "\u0410\u0440\u0435\u043d\u0434\u0430\u0442\u043e\u0440 \u043e\u0431\u044f\u0437\u0443\u0435\u0442\u0441\u044f \u0432\u043d\u043e\u0441\u0438\u0442\u044c \u043f\u043b\u0430\u0442\u0443. "
    (work / "norm" / "fr.txt").write_text(fr * 2000, "utf-8")
    (work / "norm" / "ru.txt").write_text(ru * 2000, "utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="a checkout of the code before (its root directory)")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        make_inputs(work)
        runs: dict[str, list[dict]] = {"old": [], "new": []}
        for _ in range(a.rounds):
            for side, tree in (("old", a.old), ("new", str(ROOT))):
                r = subprocess.run([sys.executable, "-c", CHILD, tree, str(work)], capture_output=True,
                                   text=True, check=True, cwd=tree)
                runs[side].append(json.loads(r.stdout.strip().splitlines()[-1]))
    print(f"{'stage':<12}{'old (s)':>10}{'new (s)':>10}{'new/old':>10}   medians of {a.rounds}, alternating")
    for stage in ("pdf", "docx", "normalise"):
        old = statistics.median(r["times"][stage] for r in runs["old"])
        new = statistics.median(r["times"][stage] for r in runs["new"])
        print(f"{stage:<12}{old:>10.3f}{new:>10.3f}{new / old:>10.2f}")
    od, nd = runs["old"][0]["digests"], runs["new"][0]["digests"]
    same = sorted(k for k in od if od[k][0] == nd[k][0])
    differ = sorted(k for k in od if od[k][0] != nd[k][0])
    print(f"visible text identical for {len(same)} of {len(od)} inputs; differing: {differ or 'none'}")
    print(f"unreadable (new): {sorted((k, v[1]) for k, v in nd.items() if v[1]) or 'none'}")
    print(f"normalised words: old {runs['old'][0]['words']}, new {runs['new'][0]['words']}")


if __name__ == "__main__":
    main()
