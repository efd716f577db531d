"""How often real plain text gains the reading ``text:columns``, and what finding it costs.

    .venv/bin/python benchmarks/column_reading.py DIR [DIR...] [--limit N]

Each UTF-8 file under the directories (sorted by path, the first ``--limit``) is passed to
``auditor.extract.layout.column_reading``, which extraction calls on every plain text. Run it
on text written by others (licence texts, READMEs, EDGAR .txt filings): a file listed is one
whose gate would audit a column reading beside its rows.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditor.extract.layout import column_reading  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--limit", type=int, default=3000, help="files per directory (default 3000)")
    args = ap.parse_args(argv)
    for d in args.dirs:
        files = sorted(p for p in d.rglob("*") if p.is_file())[:args.limit]
        read = found = 0
        spent = 0.0
        names: list[str] = []
        for p in files:
            try:
                text = p.read_text("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            read += 1
            t0 = time.perf_counter()
            got = column_reading(text)
            spent += time.perf_counter() - t0
            if got is not None:
                found += 1
                names.append(str(p.relative_to(d)))
        print(f"{d}: {found} of {read} UTF-8 files gain text:columns, {spent:.2f} s in all")
        for n in names[:10]:
            print(f"  {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
