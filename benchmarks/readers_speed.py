"""Extraction of the ordinary formats (text, HTML, .docx, EDGAR) by the dispatcher, this checkout
against an earlier commit, side by side.

    python benchmarks/readers_speed.py [--against main] [--size-mb 10] [--repeat 5]

The new readers (email, legacy office formats, feeds, rendered formats) add checks to format
detection that every input passes through; this measures what they cost the formats a corpus
is mostly made of. The earlier commit's ``auditor/`` is exported with ``git archive`` and
both trees run in child processes, in alternating rounds, on the same inputs (a benchmark
corpus of ``tests/support/generate.py`` and .docx files made from its contracts), so a shared
machine slows both alike; each side's CPU time is measured (not the wall clock, which a busy
machine stretches by what else runs). Medians per format and their ratio are printed, and the ratio of the
fastest rounds (on a shared machine the least disturbed one says most about the code); each
input's words are compared too (the readers must not change what ordinary files read as).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import hashlib, json, sys, time
from pathlib import Path
from auditor.extract import extract_bytes
from auditor.text.normalize import words
files = json.loads(sys.argv[1])
out = {}
for fmt, paths in files.items():
    datas = [(p, Path(p).read_bytes()) for p in paths]
    start = time.process_time()
    digests = []
    for p, d in datas:
        try:
            ex = extract_bytes(d, p)
        except Exception as e:
            digests.append(getattr(e, "code", type(e).__name__))
            continue
        texts = [ex.text] + [q.extracted.text for q in ex.parts if q.extracted is not None]
        digests.append(hashlib.sha256(" ".join(" ".join(words(t)) for t in texts).encode()).hexdigest())
    out[fmt] = [time.process_time() - start, digests]
print(json.dumps(out))
"""


def _export(rev: str, where: Path) -> Path:
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "auditor"], check=True, capture_output=True).stdout
    tmp = where / "old.tar"
    tmp.write_bytes(tar)
    with tarfile.open(tmp) as t:
        t.extractall(where / "old", filter="data")
    return where / "old"


def _corpus(where: Path, size_mb: float) -> dict[str, list[str]]:
    subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "generate.py"), "--out", str(where / "corpus"),
                    "--size-mb", str(size_mb)], check=True, capture_output=True)
    files: dict[str, list[str]] = {"text": [], "html": [], "edgar": [], "docx": []}
    for p in sorted((where / "corpus").rglob("*")):
        if not p.is_file() or p.name == "truth.json":
            continue
        head = p.read_bytes()[:2048]
        kind = ("edgar" if b"<SEC-DOCUMENT>" in head or b"<SUBMISSION>" in head or b"<DOCUMENT>" in head
                else "html" if p.suffix in (".htm", ".html") else "text")
        files[kind].append(str(p))
    sys.path.insert(0, str(ROOT))
    from tests.support.fixtures_build import make_docx

    (where / "docx").mkdir()
    for i, p in enumerate(files["text"][:60]):
        d = where / "docx" / f"{i}.docx"
        text = "".join(c for c in Path(p).read_text(errors="replace") if c >= " " or c == "\n")
        d.write_bytes(make_docx(text.split("\n\n")))
        files["docx"].append(str(d))
    return files


def _run(tree: Path, files: dict[str, list[str]]) -> dict:
    got = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(files)], check=False, capture_output=True,
                         text=True, cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
    if got.returncode:
        raise SystemExit(f"extraction failed in {tree}: {got.stderr[-2000:]}")
    return json.loads(got.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", default="main")
    ap.add_argument("--size-mb", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        old = _export(args.against, where)
        files = _corpus(where, args.size_mb)
        times: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
        same: dict[str, bool] = {}
        for _ in range(args.repeat):
            for side, tree in (("old", old), ("new", ROOT)):
                for fmt, (seconds, digests) in _run(tree, files).items():
                    times[side].setdefault(fmt, []).append(seconds)
                    same.setdefault(f"{side}:{fmt}", digests)  # type: ignore[arg-type]
        print(f"{'format':8} {'files':>5} {args.against + ' s':>10} {'this s':>10} {'ratio':>7} "
              f"{'min ratio':>9}  same words")
        for fmt, paths in files.items():
            a, b = statistics.median(times["old"][fmt]), statistics.median(times["new"][fmt])
            low = min(times["new"][fmt]) / min(times["old"][fmt])  # the least disturbed round of each
            print(f"{fmt:8} {len(paths):5} {a:10.3f} {b:10.3f} {b / a:7.3f} {low:9.3f}  "
                  f"{same[f'old:{fmt}'] == same[f'new:{fmt}']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
