"""What OCR of a rendering costs and how far it agrees with the extraction, on real files.

    .venv/bin/python benchmarks/render_ocr.py FILE_OR_DIR [...] [--inline] [--json OUT]

Each file is read as ingest reads it and rendered as the gate renders it
(:func:`auditor.extract.render.render_many`). A .docx whose only constructs outside the model
are fonts it embeds has its pages read by OCR (``ocr_pages``) and the words compared with the
stored text (``auditor.gating.render.OCR_TOLERANCE``); any other HTML or office document has
its pictures read (``ocr_pictures``). ``--inline`` first puts each local picture an HTML page
names (``<img src="pic.png">`` next to it) into the page as a ``data:`` URL, as the reader who
opens the page beside its pictures sees them: the gate's renderer fetches nothing. Run with
``AUDITOR_NO_CACHE=1`` for the cost of a first reading.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditor.errors import ExtractionError  # noqa: E402
from auditor.extract import detect_format, extract_bytes  # noqa: E402
from auditor.extract.model.docx import embedded_fonts  # noqa: E402
from auditor.extract.render import RenderInput, ocr_pages, ocr_pictures, render_many, renderer_for  # noqa: E402
from auditor.gating.render import OCR_SLACK, OCR_TOLERANCE, ocr_agreement  # noqa: E402

_IMG = re.compile(rb"""(<img\b[^>]*?\bsrc\s*=\s*)(["'])([^"'>]+)\2""", re.I)
_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif"}


def inline(page: Path, data: bytes) -> bytes:
    def put(m: re.Match[bytes]) -> bytes:
        src = m.group(3).decode("utf-8", "replace")
        pic = (page.parent / src).resolve()
        kind = _TYPES.get(pic.suffix.lower())
        if "://" in src or src.startswith("data:") or kind is None or not pic.is_file():
            return m.group(0)
        return m.group(1) + m.group(2) + f"data:{kind};base64,{base64.b64encode(pic.read_bytes()).decode()}".encode() + m.group(2)

    return _IMG.sub(put, data)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--inline", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    files = sorted(f for p in args.paths for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file())
    todo, rows = [], []
    for f in files:
        data = f.read_bytes()
        fmt = detect_format(data, f.name)
        if renderer_for(fmt) not in ("chromium", "libreoffice"):
            continue
        if args.inline and fmt == "html":
            data = inline(f, data)
        try:
            ex = extract_bytes(data, f.name)
        except ExtractionError as e:
            rows.append({"file": str(f), "format": fmt, "error": f"not read: {e.code}"})
            continue
        todo.append((f, fmt, data, ex))
    t = time.monotonic()
    rendered = render_many([RenderInput(fmt, data, f.name) for f, fmt, data, _ in todo])
    render_seconds = time.monotonic() - t
    for (f, fmt, _, ex), r in zip(todo, rendered, strict=True):
        row: dict = {"file": str(f), "format": fmt, "unmodelled": len(ex.unmodelled)}
        if isinstance(r, ExtractionError) or r.pdf is None:
            rows.append({**row, "error": f"not rendered: {r}"})
            continue
        fonts = embedded_fonts(ex.unmodelled) if fmt == "docx" else []
        if fonts and len(fonts) < len(ex.unmodelled):
            rows.append({**row, "ocr": "none: other constructs are outside the model",
                         "others": [n for n in ex.unmodelled if n not in fonts][:3]})
            continue
        seen = ocr_pages(r.pdf) if fonts else ocr_pictures(r.pdf)
        row.update({"ocr": seen.what, "read": len(seen.texts), "seconds": seen.seconds, "code": seen.code})
        if fonts and not seen.code:
            a = ocr_agreement(seen.text, ex.text)
            row.update({"ocr_stored": round(a.shown_stored, 3), "stored_ocr": round(a.stored_shown, 3),
                        "fails": a.problem(OCR_TOLERANCE, OCR_SLACK) is not None})
        elif not fonts:
            row["words"] = len(seen.text.split())
        rows.append(row)
        print(json.dumps(row), flush=True)
    pages = [r for r in rows if r.get("ocr") == "pages" and not r.get("code")]
    pics = [r for r in rows if r.get("ocr") == "pictures" and not r.get("code")]
    summary = {
        "files": len(rows), "render_seconds": round(render_seconds, 1),
        "font_documents": len(pages), "font_pages": sum(r["read"] for r in pages),
        "seconds_per_page": round(sum(r["seconds"] for r in pages) / max(1, sum(r["read"] for r in pages)), 2),
        "fail_closed": sum(1 for r in pages if r["fails"]),
        "agreement_min": min((min(r["ocr_stored"], r["stored_ocr"]) for r in pages), default=None),
        "agreement_median": statistics.median([min(r["ocr_stored"], r["stored_ocr"]) for r in pages]) if pages else None,
        "picture_documents": len(pics), "pictures": sum(r["read"] for r in pics),
        "picture_seconds_per_document": round(statistics.mean([r["seconds"] for r in pics]), 2) if pics else None,
        "picture_seconds_max": max((r["seconds"] for r in pics), default=None),
        "seconds_per_picture": round(sum(r["seconds"] for r in pics) / max(1, sum(r["read"] for r in pics)), 2),
        "bounded": sum(1 for r in rows if r.get("code") == "ocr_bound"),
    }
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
