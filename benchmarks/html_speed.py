"""HTML and plain-text extraction, this checkout against an earlier commit, side by side.

    python benchmarks/html_speed.py [--against 2d04324] [--size-mb 10] [--repeat 5] [--corpus DIR]

The earlier extractor (``auditor/extract/html.py`` and ``text.py`` of ``--against``, read with
``git show``) and this one run alternately on the same inputs in one process, so that a shared,
noisy machine slows both alike: medians and their ratio are printed. The inputs are the HTML and
plain-text files of a benchmark corpus (``tests/support/generate.py --size-mb``, written to a
temporary directory unless ``--corpus`` names one) and an 8 MB 10-K written like the inline-styled
filings of EDGAR (a span with a style attribute every few words, hidden inline XBRL facts).
Each input's words are compared too: on ordinary documents the visible reading is what was read.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditor.extract import html as new_html  # noqa: E402
from auditor.extract import text as new_text  # noqa: E402
from auditor.extract.common import Limits  # noqa: E402
from tests.support import synth  # noqa: E402


def _old(rev: str, module: str):  # type: ignore[no-untyped-def]
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:auditor/extract/{module}.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / f"old_{module}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"old_{module}", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def styled_10k(size: int, seed: int = 1) -> bytes:
    """An inline-styled 10-K of about ``size`` bytes: every few words a span with a style."""
    rng = random.Random(seed)
    words = "\n\n".join(synth.contract(s, 20_000, kind="lease") for s in range(40)).split()
    styles = ["color:#000000;font-family:'Times New Roman',sans-serif;font-size:10pt;font-weight:400;line-height:120%",
              "color:#000000;font-family:'Times New Roman',sans-serif;font-size:10pt;font-weight:700;line-height:120%",
              "color:#000000;font-family:'Times New Roman',sans-serif;font-size:9pt;font-style:italic;line-height:120%"]
    out = ['<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>10-K</title>'
           '</head><body><div style="display:none"><ix:header><ix:hidden><ix:nonNumeric name="dei:x">hidden'
           '</ix:nonNumeric></ix:hidden></ix:header></div>']
    total, i = len(out[0]), 0
    while total < size:
        n = rng.randint(20, 120)
        para = [words[(i + k) % len(words)] for k in range(n)]
        i += n
        if rng.random() < 0.15:
            cells = "".join(f'<td style="padding:2px 1pt;text-align:right"><span style="{styles[0]}">{w}</span></td>'
                            for w in para[:8])
            chunk = f'<div style="margin-top:6pt"><table style="border-collapse:collapse;width:100%"><tr>{cells}</tr></table></div>'
        else:
            spans, j = [], 0
            while j < len(para):
                k = rng.randint(3, 30)
                spans.append(f'<span style="{rng.choice(styles)}">{" ".join(para[j:j + k])} </span>')
                j += k
            chunk = f'<div style="margin-top:6pt;text-align:justify">{"".join(spans)}</div>'
        out.append(chunk)
        total += len(chunk)
    out.append("</body></html>")
    return "".join(out).encode()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", default="2d04324", help="the commit whose extractor is compared")
    ap.add_argument("--size-mb", type=float, default=10.0, help="size of the generated benchmark corpus")
    ap.add_argument("--corpus", type=Path, help="an existing benchmark corpus directory")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    old_html, old_text = _old(args.against, "html"), _old(args.against, "text")
    corpus = args.corpus
    if corpus is None:
        corpus = Path(tempfile.mkdtemp()) / "corpus"
        subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "generate.py"), "--out", str(corpus),
                        "--size-mb", str(args.size_mb)], check=True, capture_output=True)
    groups: dict[str, list[bytes]] = {
        "benchmark HTML": [p.read_bytes() for p in sorted(corpus.rglob("*.htm"))],
        "benchmark text": [p.read_bytes() for p in sorted(corpus.rglob("*.txt"))
                           if not p.read_bytes().startswith(b"<SEC-DOCUMENT>")],
        "styled 10-K, 8 MB": [styled_10k(8_000_000)],
    }
    limits = Limits()
    print(f"against {args.against}; medians of {args.repeat} alternating runs (old, new)")
    for name, files in groups.items():
        is_html = "text" not in name
        old_f = old_html.html_to_text if is_html else (lambda d, lim: old_text.extract_text(d, lim))
        new_f = new_html.html_to_text if is_html else (lambda d, lim: new_text.extract_text(d, lim))
        t_old, t_new, same = [], [], 0
        for r in range(args.repeat):
            a = b = 0.0
            for data in files:
                s = time.perf_counter()
                x = old_f(data, limits)
                a += time.perf_counter() - s
                s = time.perf_counter()
                y = new_f(data, limits)
                b += time.perf_counter() - s
                if r == 0:
                    same += x.text.split() == y.text.split()
            t_old.append(a)
            t_new.append(b)
        mo, mn = statistics.median(t_old), statistics.median(t_new)
        mb = sum(map(len, files)) / 1e6
        print(f"{name:18s} {len(files):4d} files {mb:7.1f} MB  old {mo:7.3f} s  new {mn:7.3f} s  "
              f"ratio {mn / mo:4.2f}  same words {same}/{len(files)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
