"""How far the rendered reading agrees with the extraction on real documents: the share of
each side's 5-word shingles the other holds, per document, and which would fail closed.

    .venv/bin/python benchmarks/render_agreement.py DIR [DIR...] [--json OUT]

Run it on real files written by others (EDGAR filings, court pages, office documents) to
calibrate ``auditor.gating.render.TOLERANCE`` and to find ordinary documents the gate would
refuse. Each file is read as ingest reads it (the sandbox) and rendered as the gate renders it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditor.engine.query import read_files  # noqa: E402
from auditor.errors import ExtractionError  # noqa: E402
from auditor.extract import detect_format  # noqa: E402
from auditor.extract.render import RenderInput, render_many, renderer_for  # noqa: E402
from auditor.gating.render import TOLERANCE, agreement  # noqa: E402
from auditor.store.db import Store  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    files = sorted(p for d in args.dirs for p in d.rglob("*") if p.is_file())
    rows = []
    with Store(Path("/tmp/render-agreement.db")) as store:
        docs, reads = [], []
        for f in files:
            data = f.read_bytes()
            fmt = detect_format(data, f.name)
            if renderer_for(fmt) is None and fmt != "xml":  # an XML file may be an SVG drawing, which renders
                continue
            read = read_files([f], store.params)[0]  # the file itself (an email's attachments follow it)
            if read.doc is None:
                rows.append({"file": str(f), "format": fmt, "error": f"not read: {read.error}"})
                continue
            fmt = read.doc.get("format") or fmt  # the format the gate renders by (an SVG file is "svg")
            if renderer_for(fmt) is None:
                continue
            docs.append(RenderInput(fmt, data, f.name, read.doc.get("encoding")))
            reads.append((f, fmt, read.doc["text"]))
        t = time.monotonic()
        rendered = render_many(docs)
        seconds = time.monotonic() - t
        for (f, fmt, text), r in zip(reads, rendered, strict=True):
            if isinstance(r, ExtractionError):
                rows.append({"file": str(f), "format": fmt, "error": f"not rendered: {r.code}: {r}"})
                continue
            a = agreement(store, r.text, text)
            rows.append({"file": str(f), "format": fmt, "renderer": r.renderer, "shown_stored": a.shown_stored,
                         "stored_shown": a.stored_shown, "shingles": a.stored, "fails": a.problem() is not None})
    ok = [r for r in rows if "error" not in r]
    print(f"{len(rows)} documents, {len(ok)} rendered in {seconds:.1f} s; tolerance {TOLERANCE:.0%}")
    for key in ("shown_stored", "stored_shown"):
        v = sorted(r[key] for r in ok)
        if v:
            print(f"  {key}: min {v[0]:.3f}, median {statistics.median(v):.3f}")
    for r in rows:
        if "error" in r or r["fails"]:
            print("  FAILS CLOSED" if "error" not in r else "  ERROR", Path(r["file"]).name,
                  r.get("error") or f"shown_stored {r['shown_stored']:.3f} stored_shown {r['stored_shown']:.3f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
