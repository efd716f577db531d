"""What a CI gate costs against the size of the store it gates into (issue #26).

    .venv/bin/python benchmarks/gate.py --sizes 140 --repeat 3
    .venv/bin/python benchmarks/gate.py --sizes 140,560,2240 --repeat-large 1 --real 20000 --markdown benchmarks/RESULTS.md

For each size the benchmark corpus (``tests/support/generate.py``, cached as ``corpus-<size>/``), and
with ``--real`` the real-text corpus of ``benchmarks/boilerplate.py`` (licence texts and notices
written by others; its batches: the largest documents of another seed's corpus and corpus
licences renamed), is ingested into a store once; then, in each repeat, side by side in one script so that the
machine's load falls on all of them:

- the full audit job (``auditor audit --out DIR``: index catch-up, controls, audit, report);
- ``auditor gate --dry-run`` of a batch of 6 new documents (2 new contracts, 1 new filing, and 3
  of the corpus's contracts under new names, so that it has findings to classify);
- ``auditor gate --dry-run`` of a batch four times as large (24 documents);
- ``auditor gate`` of the 6 documents, admitted into a copy of the store (the copy is not timed);
- the 6 documents gated into an empty store: the gate's floor.

CPU = user + system of the whole process tree (``run.measure``), wall, peak memory; medians over
the repeats; the gate's share of the audit job is taken within each repeat. The fixture
controls' cache (``AUDITOR_CACHE``) is kept between the runs, as a CI cache would keep it: its
first gate and audit compute them, the later ones read them (each report says which).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run import PY, ensure_corpus, machine, measure, parse_sizes, size_tag  # noqa: E402

BEGIN = "<!-- gate cost: rendered by benchmarks/gate.py -->"
END = "<!-- end of gate cost -->"
TARGET = 0.10  # issue #26: a 6-document gate at most 10% of a full audit of the same store
BIG = 4  # a second batch, of 24 documents: the gate's cost grows with it


def batch_of(corpus: Path, work: Path, scale: int = 1) -> Path:
    """``6 * scale`` new documents: per 6, two contracts and a filing of another seed, three corpus
    contracts renamed."""
    name = "batch" if scale == 1 else f"batch-x{scale}"
    batch, done = work / name, work / f"{name}.done"  # the marker outside: the gate reads every file in batch/
    if done.exists():
        return batch
    if batch.exists():
        shutil.rmtree(batch)
    batch.mkdir(parents=True)
    from tests.support import synth

    contracts = sorted((corpus / "contracts").iterdir())
    copies = contracts[:: max(1, len(contracts) // (3 * scale))][: 3 * scale]
    for s in range(scale):
        for i in range(2):
            (batch / f"new-contract-{s}-{i}.txt").write_text(synth.contract(9001 + 10 * s + i, 20_000), encoding="utf-8")
        (batch / f"new-filing-{s}.txt").write_text(synth.filing(9003 + 10 * s, 300_000)[0], encoding="utf-8")
    for i, src in enumerate(copies):
        (batch / f"copy-{i}{src.suffix}").write_bytes(src.read_bytes())
    done.write_text("")
    return batch


def cli(*args: str) -> list[str]:
    return [PY, "-m", "auditor", *args]


def real_batches(corpus: Path, work: Path, args: argparse.Namespace) -> tuple[Path, Path]:
    """The real-text batches: documents of another seed's corpus (the largest licences and package
    files, none short) and corpus licences under new names, 6 and ``6 * BIG`` of them."""
    import benchmarks.boilerplate as bp

    other, _ = bp.ensure_corpus(300, 7, args.cache / "other", lambda: bp.scancode_source(
        bp.fetch_wheel(args.cache / "corpus-sources")), f"{bp.WHEEL_REQUIREMENT} ({bp.WHEEL_NAME})")
    out = []
    for scale in (1, BIG):
        name = "batch" if scale == 1 else f"batch-x{scale}"
        batch, done = work / name, work / f"{name}.done"
        if not done.exists():
            if batch.exists():
                shutil.rmtree(batch)
            batch.mkdir(parents=True)
            new = sorted((p for p in other.rglob("*") if p.is_file() and p.name != "truth.json"
                          and "filings" not in p.parts), key=lambda p: (-p.stat().st_size, str(p)))[: 4 * scale]
            for i, src in enumerate(new):
                (batch / f"new-{i}-{src.name}").write_bytes(src.read_bytes())
            licences = sorted(p for p in (corpus / "licences").iterdir() if p.stat().st_size >= 8000)
            for i, src in enumerate(licences[:: max(1, len(licences) // (2 * scale))][: 2 * scale]):
                (batch / f"copy-{i}-{src.name}").write_bytes(src.read_bytes())
            done.write_text("")
        out.append(batch)
    return out[0], out[1]


def bench(size: float | str, args: argparse.Namespace) -> dict:
    real = size == "real"
    tag = f"real-{args.real}" if real else size_tag(float(size))
    work = args.work / f"gate-{tag}"
    logs = work / "logs"
    if real:
        import benchmarks.boilerplate as bp

        corpus, _ = bp.ensure_corpus(args.real, 1, args.cache, lambda: bp.scancode_source(
            bp.fetch_wheel(args.cache / "corpus-sources")), f"{bp.WHEEL_REQUIREMENT} ({bp.WHEEL_NAME})")
    else:
        corpus, _ = ensure_corpus(float(size), args.cache, logs)
    db = work / "store.db"
    if not (work / "ingested").exists():
        for p in work.glob("store.db*"):
            p.unlink()
        measure("ingest", cli("ingest", "--db", str(db), "--quiet", str(corpus)), logs)
        (work / "ingested").write_text("")
    if real:
        batch, big = real_batches(corpus, work, args)
    else:
        batch, big = batch_of(corpus, work), batch_of(corpus, work, BIG)
    repeats = args.repeat if real or float(size) <= 140 else args.repeat_large
    rows = []
    for r in range(repeats):
        out = work / f"r{r}"
        if out.exists():
            shutil.rmtree(out)
        out.mkdir()
        audit = measure(f"audit-{r}", cli("audit", "--db", str(db), "--out", str(out / "audit")), logs)
        dry = measure(f"gate-dry-{r}", cli("gate", "--db", str(db), "--dry-run", "--out", str(out / "dry"),
                                           str(batch)), logs, check=False)
        dry_big = measure(f"gate-dry-x{BIG}-{r}", cli("gate", "--db", str(db), "--dry-run", "--out",
                                                      str(out / "dry-big"), str(big)), logs, check=False)
        copy = out / "admit.db"
        shutil.copyfile(db, copy)
        real = measure(f"gate-{r}", cli("gate", "--db", str(copy), "--out", str(out / "real"), str(batch)),
                       logs, check=False)
        copy.unlink()
        nothing = out / "nothing"
        nothing.mkdir()
        measure(f"empty-store-{r}", cli("ingest", "--db", str(out / "empty.db"), "--quiet", str(nothing)), logs)
        empty = measure(f"gate-empty-{r}", cli("gate", "--db", str(out / "empty.db"), "--dry-run", "--out",
                                               str(out / "empty"), str(batch)), logs, check=False)
        verdict = json.loads((out / "dry" / "gate.json").read_text())
        rows.append({"audit": audit.as_dict(), "dry": dry.as_dict(), "real": real.as_dict(),
                     "empty": empty.as_dict(), "big": dry_big.as_dict(),
                     "status": verdict["status"], "new_documents": verdict["counts"]["new_documents"],
                     "failing": verdict["counts"]["failing"]})
    med = lambda key, stage: statistics.median(x[stage][key] for x in rows)  # noqa: E731
    share = lambda stage, key: statistics.median(x[stage][key] / x["audit"][key] for x in rows)  # noqa: E731
    return {
        "size_mb": size, "corpus_mb": round(sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file()) / 1e6, 1),
        "store_mb": round(db.stat().st_size / 1e6, 1), "repeats": repeats,
        "documents": _count(db), "new_documents": rows[0]["new_documents"], "status": rows[0]["status"],
        "failing": rows[0]["failing"],
        **{f"{s}_{k}": med(k, s) for s in ("audit", "dry", "real", "empty", "big")
           for k in ("wall", "cpu", "tree_rss_mb")},
        **{f"{s}_share_{k}": share(s, k) for s in ("dry", "real") for k in ("wall", "cpu")},
    }


def _count(db: Path) -> int:
    import sqlite3

    with sqlite3.connect(db) as c:
        return int(c.execute("SELECT count(*) FROM documents").fetchone()[0])


def render(results: list[dict], when: str) -> str:
    lines = [BEGIN, f"## {when}: what a CI gate costs against the size of its store (#26)", "",
             "`benchmarks/gate.py`: the full audit job, then `auditor gate --dry-run` and `auditor gate` "
             "(admitted into a copy) of the same 6 new documents, side by side in each repeat; medians; "
             "CPU = user + system of the process tree; the share is the gate's over the audit job's, taken "
             f"within each repeat. Target: at most {TARGET:.0%} of the audit at 140 MB, and a cost that grows "
             "with the batch, not the store. The last columns: the gate's floor (the same batch gated, dry "
             f"run, into an empty store: imports, ingest, controls and report alone), and a batch {BIG} times "
             "as large (dry run).", "",
             "| store | documents | audit job wall / CPU s | gate --dry-run wall / CPU s | share wall / CPU | "
             "gate wall / CPU s | share wall / CPU | same gate, empty store: CPU s | "
             f"{6 * BIG} new documents: CPU s | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        what = (f"real text, {r['corpus_mb']:g} MB ({r['store_mb']:g} MB store)" if r["size_mb"] == "real"
                else f"{r['size_mb']:g} MB ({r['store_mb']:g} MB store)")
        lines.append(
            f"| {what} | {r['documents']:,} | "
            f"{r['audit_wall']:.1f} / {r['audit_cpu']:.1f} | {r['dry_wall']:.2f} / {r['dry_cpu']:.2f} | "
            f"{r['dry_share_wall']:.1%} / {r['dry_share_cpu']:.1%} | {r['real_wall']:.2f} / {r['real_cpu']:.2f} | "
            f"{r['real_share_wall']:.1%} / {r['real_share_cpu']:.1%} | {r.get('empty_cpu', float('nan')):.2f} | "
            f"{r.get('big_cpu', float('nan')):.2f} | "
            f"{r['status']} "
            f"({r['failing']} failing findings, {r['new_documents']} new documents) |")
    lines += ["", END]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=parse_sizes, default=[140.0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--repeat-large", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=HERE, help="where corpus-<size>/ directories are kept")
    ap.add_argument("--work", type=Path, default=HERE / "out")
    ap.add_argument("--results", type=Path, default=HERE / "results-gate.json")
    ap.add_argument("--markdown", type=Path, help="RESULTS.md to put the table in (between its markers)")
    ap.add_argument("--real", type=int, default=0, metavar="DOCS",
                    help="also a store of real text: boilerplate.py's corpus of DOCS licences, notices, package "
                         "files and filings (20000: 113 MB), gated with documents of another seed")
    args = ap.parse_args()
    results = [bench(s, args) for s in [*args.sizes, *(["real"] if args.real else [])]]
    when = datetime.now(UTC).date().isoformat()
    args.results.write_text(json.dumps({"when": when, "machine": machine(), "sizes": results}, indent=2) + "\n")
    table = render(results, when)
    print(table)
    if args.markdown:
        text = args.markdown.read_text() if args.markdown.exists() else ""
        if BEGIN in text and END in text:
            text = text[: text.index(BEGIN)] + table + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n" + table + "\n"
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
