"""The store's size and what it costs, this tree side by side with another (#35, #37), and the
results of both compared: the same corpus gives the same findings, spans, plan and digests.

    .venv/bin/python benchmarks/store.py --sizes 140 --work /tmp/bench/store
    .venv/bin/python benchmarks/store.py --demo --sizes 140,2240 --cache /tmp/bench --markdown benchmarks/RESULTS.md

For each size, the benchmark corpus (``tests/support/generate.py``, cached as ``corpus-<size>/``)
and, with ``--demo``, the bundled demo corpus, are run through both trees: *base* (``--base``,
default main, extracted with ``git archive`` into ``WORK/base-<commit>/``) and *this* tree, each
command a process of its own with this Python and its packages (``run.measure``: CPU is user +
system of the whole process tree, wall, peak memory). In each repeat the two sides run back to
back, in turn first (3 repeats up to 140 MB, ``--repeat-large`` above):

- ``auditor ingest`` of the corpus into a new store, then the store's size: the file, and each
  table's pages (SQLite's ``dbstat``), beside the corpus's text bytes (the stored texts' UTF-8);
- ``auditor audit --out`` with its defaults;
- ``auditor gate --dry-run`` of 6 new documents (``gate.batch_of``), and the same gate into an
  empty store (the gate's floor);
- ``auditor assemble`` of the audit (its plan);
- the gate's check before its batch, in one process on the store: median of 5 (``--checks``).

Then the results of the two sides are compared: the report digest, every finding with its
containment and spans (as stored in ``findings``), the plan lines (less the time each side
ingested the document), and the gate's verdict and findings. Document ids agree because both
ingest the same files in the same order.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.gate import batch_of  # noqa: E402
from benchmarks.run import PY, ensure_corpus, machine, measure, parse_sizes  # noqa: E402

BEGIN = "<!-- store size: rendered by benchmarks/store.py -->"
END = "<!-- end of store size -->"
TARGET = 1.3  # issue #37: the store at most 1.3 times the corpus's text bytes

# The gate's check before its batch, timed in one process on a store (as the side's code has it).
CHECK = r"""
import json, resource, statistics, sys, time
from auditor.store.db import Store
from auditor.store import custody
import auditor.corpus.check as check
gate_check = getattr(check, "require_intact_for_gate", None) or getattr(check, "require_intact_for_reads")

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def timed(fn, n=5):
    out = []
    for _ in range(n):
        c0 = cpu()
        fn()
        out.append(cpu() - c0)
    return statistics.median(out)

s = Store(sys.argv[1])
small = {t.table: None for t in custody.TRACKED if t.table not in ("texts", "shingle_sequences")}
res = {"gate_check": timed(lambda: gate_check(s)), "quick_check": timed(lambda: check.require_intact(s), 3),
       "without_counter": timed(lambda: (custody.check_rows(s.conn), custody.differing(s.conn, small)), 3),
       "tracked_rows": s.scalar("SELECT count(*) FROM custody_rows")}
print(json.dumps(res))
"""


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def base_tree(rev: str, work: Path) -> Path:
    """The files of ``rev`` (its package, controls and benchmarks) under ``work``, extracted once."""
    commit = git("rev-parse", rev)
    dest = work / f"base-{commit[:10]}"
    if not (dest / "auditor" / "__init__.py").exists():
        dest.mkdir(parents=True, exist_ok=True)
        data = subprocess.run(["git", "archive", commit, "auditor", "controls", "benchmarks"], cwd=ROOT,
                              capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=data, check=True)
    return dest


def cli(*args: str) -> list[str]:
    return [PY, "-m", "auditor", *args]


def sizes(db: Path) -> dict[str, Any]:
    """The file's bytes and each kind of table's (its pages, indexes included), after a checkpoint."""
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        tables = dict(c.execute("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')").fetchall())
        pages = c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    out: dict[str, int] = {}
    for name, size in pages:
        table = tables.get(name, name)
        kind = (table if table in ("texts", "shingle_sequences", "index_docs") else
                "custody" if table.startswith("custody") else "other")
        out[kind] = out.get(kind, 0) + int(size)
    return {"file": db.stat().st_size, **out}


def text_bytes(db: Path) -> int:
    """The corpus's text bytes: the UTF-8 bytes of every stored text (plain in the base's store,
    in Zstandard frames in this tree's)."""
    from auditor.store.packing import unpack

    with sqlite3.connect(db) as c:
        total = 0
        for kind, raw in c.execute("SELECT typeof(text), CAST(text AS BLOB) FROM texts"):
            total += len(raw) if kind == "text" else len(unpack(raw))
    return total


def _digest(rows: list[Any]) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def results(db: Path, audit: Path, plan: Path, gate: Path) -> dict[str, Any]:
    """What the two sides must agree on."""
    report = json.loads((audit / "report.json").read_text())
    with sqlite3.connect(db) as c:
        run = c.execute("SELECT id FROM runs WHERE run_id = ?", (report["run"]["run_id"],)).fetchone()[0]
        found = c.execute("SELECT contained_id, container_id, containment, shared, shingles, family, spans"
                          " FROM findings WHERE run = ? ORDER BY contained_id, container_id", (run,)).fetchall()
    lines = [json.loads(x) for x in (plan / "plan.jsonl").read_text().splitlines()]
    for line in lines:  # when each side ingested it: the one field that differs by construction
        line.get("provenance", {}).pop("ingested", None)
    g = json.loads((gate / "gate.json").read_text())
    return {"report_digest": report["digest"], "findings": len(found), "findings_digest": _digest(found),
            "with_spans": sum(1 for f in found if f[-1]), "plan_lines": len(lines), "plan_digest": _digest(lines),
            "gate": g["status"], "gate_findings": _digest(sorted(
                [f["kind"], f["new"]["path"].rsplit("/", 1)[-1], f.get("corpus", {}).get("id")] for f in g["findings"]))}


def side(name: str, root: Path, corpus: Path, batch: Path, work: Path, checks: bool, lean: bool = False
         ) -> dict[str, Any]:
    """One side's run; ``lean``: ingest, size, gates and checks only (no audit, assembly or
    comparison of results)."""
    out = work / name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    logs, db = out / "logs", out / "store.db"
    run = {}
    run["ingest"] = measure(f"{name}-ingest", cli("ingest", "--db", str(db), "--quiet", str(corpus)), logs,
                            root=root).as_dict()
    run["size"] = sizes(db)
    if not lean:
        run["audit"] = measure(f"{name}-audit", cli("audit", "--db", str(db), "--out", str(out / "audit")), logs,
                               root=root).as_dict()
    run["gate"] = measure(f"{name}-gate", cli("gate", "--db", str(db), "--dry-run", "--out", str(out / "gate"),
                                              str(batch)), logs, root=root, check=False).as_dict()
    (out / "nothing").mkdir()
    measure(f"{name}-empty", cli("ingest", "--db", str(out / "empty.db"), "--quiet", str(out / "nothing")), logs,
            root=root)
    run["gate_empty"] = measure(f"{name}-gate-empty", cli("gate", "--db", str(out / "empty.db"), "--dry-run", "--out",
                                                          str(out / "gate-empty"), str(batch)), logs, root=root,
                                check=False).as_dict()
    if not lean:
        run["assemble"] = measure(f"{name}-assemble", cli("assemble", "--db", str(db), "--out", str(out / "plan")),
                                  logs, root=root, check=False).as_dict()
    if checks:
        st = measure(f"{name}-checks", [PY, "-c", CHECK, str(db)], logs, root=root)
        run["checks"] = json.loads(st.stdout.strip().splitlines()[-1])
    if not lean:
        run["results"] = results(db, out / "audit", out / "plan", out / "gate")
    run["text_bytes"] = text_bytes(db)
    return run


def bench(corpus: Path, label: str, base: Path, args: argparse.Namespace) -> dict[str, Any]:
    work = args.work / label
    batch = batch_of(Path(args.cache / "corpus-140") if label == "demo" else corpus, work)
    large = label != "demo" and float(label.split()[0]) > 140
    lean = large and args.lean_large
    sides: dict[str, list[dict[str, Any]]] = {"this": []} if lean else {"base": [], "this": []}
    repeats = args.repeat_large if large else args.repeat
    for r in range(repeats):
        order = [("base", base), ("this", ROOT)] if r % 2 == 0 else [("this", ROOT), ("base", base)]
        for name, root in order:
            if name in sides:
                sides[name].append(side(name, root, corpus, batch, work / f"r{r}", args.checks, lean))
    text = sides["this"][0]["text_bytes"]
    med = lambda name, stage, key: statistics.median(x[stage][key] for x in sides[name])  # noqa: E731
    out: dict[str, Any] = {"corpus": label, "text_mb": round(text / 1e6, 1), "repeats": repeats}
    for name in sides:
        first = sides[name][0]
        stages = [st for st in ("ingest", "audit", "gate", "gate_empty", "assemble") if st in first]
        out[name] = {
            "size": first["size"], "ratio": first["size"]["file"] / text,
            **{f"{stage}_{k}": med(name, stage, k) for stage in stages for k in ("cpu", "wall")},
            "checks": first.get("checks"), "results": first.get("results"),
        }
    if "base" in out:
        a, b = out["base"]["results"], out["this"]["results"]
        out["same"] = {k: a[k] == b[k] for k in a}
    return out


def render(results: list[dict[str, Any]], when: str, base: str) -> str:
    mb = lambda n: f"{n / 1e6:,.0f}"  # noqa: E731
    lines = [BEGIN, f"## {when}: a compact store, texts and sequences checked on read (#35, #37)", "",
             f"`benchmarks/store.py`: `{base}` (*base*) and this tree (*this*) side by side in each repeat, "
             "each command a process of its own with its defaults; medians; CPU = user + system of the process "
             "tree. Store sizes in MB (SQLite pages by table, indexes included); the ratio is the store file over "
             f"the corpus's text bytes (target: at most {TARGET}).", "",
             "| corpus | side | store MB | ratio | texts | sequences | index | custody | other | ingest CPU s | "
             "audit CPU s | gate CPU s | gate, empty store | assemble CPU s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        for name in [n for n in ("base", "this") if n in r]:
            x = r[name]
            s = x["size"]
            cell = lambda k, f, x=x: format(x[k], f) if k in x else "-"  # noqa: E731
            lines.append(f"| {r['corpus']} ({r['text_mb']:g} MB of text) | {name} | {mb(s['file'])} | {x['ratio']:.2f} | "
                         f"{mb(s.get('texts', 0))} | {mb(s.get('shingle_sequences', 0))} | {mb(s.get('index_docs', 0))} | "
                         f"{mb(s.get('custody', 0))} | {mb(s.get('other', 0))} | {x['ingest_cpu']:.1f} | {cell('audit_cpu', '.1f')} | "
                         f"{x['gate_cpu']:.2f} | {x['gate_empty_cpu']:.2f} | {cell('assemble_cpu', '.1f')} |")
    lines += ["", "The gate's check before its batch (one process on the store, CPU s, median of 5; *without "
              "counter*: what it would cost if the edit counter were removed, `custody_rows` proved against the "
              "head's state and every small table compared with it):", "",
              "| corpus | side | tracked rows | gate's check | without counter | audit's quick check |", "|---|---|---|---|---|---|"]
    for r in results:
        for name in [n for n in ("base", "this") if n in r]:
            c = r[name]["checks"]
            if c:
                lines.append(f"| {r['corpus']} | {name} | {c['tracked_rows']:,} | {c['gate_check']:.4f} | "
                             f"{c['without_counter']:.2f} | {c['quick_check']:.2f} |")
    lines += ["", "Results, base against this (the same corpus ingested by each):", "",
              "| corpus | findings | with spans | plan lines | gate | findings, spans | plan | gate findings | report digest |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in [r for r in results if "same" in r]:
        x = r["this"]["results"]
        said = ["same" if r["same"][k] else "**differs**" for k in ("findings_digest", "plan_digest", "gate_findings",
                                                                     "report_digest")]
        lines.append(f"| {r['corpus']} | {x['findings']:,} | {x['with_spans']:,} | {x['plan_lines']:,} | {x['gate']} | "
                     + " | ".join(said) + " |")
    lines += ["", END]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=parse_sizes, default=[140.0])
    ap.add_argument("--demo", action="store_true", help="also the bundled demo corpus")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--repeat-large", type=int, default=1, help="repeats above 140 MB")
    ap.add_argument("--base", default="main")
    ap.add_argument("--checks", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--lean-large", action="store_true",
                    help="above 140 MB, this tree alone: ingest, size, the gates and the checks")
    ap.add_argument("--cache", type=Path, default=HERE, help="where corpus-<size>/ directories are kept")
    ap.add_argument("--work", type=Path, default=HERE / "out" / "store")
    ap.add_argument("--results", type=Path, default=HERE / "results-store.json")
    ap.add_argument("--markdown", type=Path, help="RESULTS.md to put the tables in (between its markers)")
    args = ap.parse_args()
    base = base_tree(args.base, args.work)
    corpora: list[tuple[Path, str]] = []
    if args.demo:
        demo = args.work / "demo-corpus"
        if not demo.exists():
            from auditor.demo import write_corpus

            write_corpus(demo)
        corpora.append((demo, "demo"))
    for size in args.sizes:
        corpus, _ = ensure_corpus(size, args.cache, args.work / "logs")
        corpora.append((corpus, f"{size:g} MB"))
    when = datetime.now(UTC).date().isoformat()
    out: list[dict[str, Any]] = []
    for c, label in corpora:  # written as each corpus is done
        out.append(bench(c, label, base, args))
        args.results.write_text(json.dumps({"when": when, "machine": machine(), "base": git("rev-parse", args.base),
                                            "corpora": out}, indent=2) + "\n")
    table = render(out, when, args.base)
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
