"""CPU seconds of the pipeline, this tree side by side with a previous release, in one script.

    .venv/bin/python benchmarks/cpu.py --previous main --sizes 140 --repeat 3
    .venv/bin/python benchmarks/cpu.py --previous main --sizes 140,560,2240 --repeat-large 1 \\
        --markdown benchmarks/RESULTS.md

The machine is shared, so nothing is compared across runs: for each size and repeat this script
measures, one after the other, the floor (``benchmarks/floor.py --files``: the same sampled index
built straight from the corpus files on two processes, extraction included), then, for the
previous release and for this tree (which goes first alternates between repeats, so that a
change in the machine's load falls on both):

- ``auditor ingest`` of the corpus into a fresh store;
- the audit job, ``auditor audit --out DIR`` (index catch-up, controls, audit, every report file);
- ``auditor gate --dry-run`` of a small batch (new filings and contracts, and three of the
  corpus's contracts under new names, so that it has findings);
- ``auditor query`` of one contract (median of ``--queries`` runs).

Each is its own process tree (``run.measure``: CPU = user + system from ``wait4``, wall, peak of
the summed resident memory). Figures are medians over the repeats, ratios are taken within each
repeat. The previous release is exported with ``git archive`` and run from its own directory with
this virtual environment. Both reports of each repeat are compared: the same digest, and
report.json equal but for its run block. The required findings of the corpus's truth are
checked in this tree's report (``run.check_accuracy``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run import (  # noqa: E402
    CPU_BEGIN,
    CPU_END,
    NOTES_BEGIN,
    PY,
    CorpusMap,
    check_accuracy,
    ensure_corpus,
    machine,
    measure,
    median,
    parse_sizes,
    pick_query_file,
    report_pairs,
    size_tag,
    source_state,
)

STAGES = ("ingest", "audit", "gate", "query")
#: issue #28: on the 140 MB corpus, audit CPU <= 0.6 x ingest CPU and ingest + audit <= 2.0 x floor
TARGETS = {"audit_vs_ingest": 0.6, "pipeline_vs_floor": 2.0}


def export(rev: str, work: Path) -> tuple[Path, str]:
    """The tree of ``rev`` (``git archive``) in ``work/previous-<commit>/``."""
    commit = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    dest = work / f"previous-{commit[:10]}"
    if not (dest / "auditor" / "__init__.py").exists():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest, commit


def gate_batch(corpus: Path, cache: Path, logdir: Path) -> Path:
    """New documents for the gate: a 1.4 MB corpus of another seed, and three contracts of
    ``corpus`` under new names (so the gate has findings to classify)."""
    batch = cache / f"{corpus.name}-gate-batch"  # beside the corpus (and ignored by git with it)
    if (batch / "done").exists():
        return batch
    if batch.exists():
        shutil.rmtree(batch)
    measure("generate-gate-batch", [PY, str(HERE.parent / "tests" / "support" / "generate.py"), "--out", str(batch / "new"),
                                    "--size-mb", "1.4", "--seed", "2"], logdir)
    (batch / "new" / "truth.json").unlink()
    contracts = sorted((corpus / "contracts").iterdir())
    for i, src in enumerate(contracts[:: max(1, len(contracts) // 3)][:3]):
        (batch / f"copy-{i}{src.suffix}").write_bytes(src.read_bytes())
    (batch / "done").write_text("")
    return batch


def _report_body(report_dir: Path) -> dict:
    r = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    r.pop("run", None)
    r.pop("run_digest", None)
    return r


def _clean(*paths: Path) -> None:
    for p in paths:
        if p.is_dir():
            shutil.rmtree(p)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{p}{suffix}").unlink(missing_ok=True)


def one_version(name: str, root: Path, corpus: Path, batch: Path, qfile: str, work: Path, logdir: Path,
                queries: int) -> dict[str, Any]:
    db, report, gate_out = work / f"{name}.db", work / f"{name}-report", work / f"{name}-gate"
    _clean(db, report, gate_out)
    cli = [PY, "-m", "auditor"]
    s: dict[str, Any] = {}
    s["ingest"] = measure(f"{name}-ingest", [*cli, "ingest", "--db", str(db), "-q", str(corpus / "contracts"),
                                             str(corpus / "filings")], logdir, root=root)
    s["audit"] = measure(f"{name}-audit", [*cli, "audit", "--db", str(db), "--out", str(report)], logdir, root=root)
    s["gate"] = measure(f"{name}-gate", [*cli, "gate", "--db", str(db), "--dry-run", "--json", "--out", str(gate_out),
                                         str(batch)], logdir, root=root, check=False)
    if s["gate"].rc not in (0, 1):
        raise RuntimeError(f"{name} gate failed (exit {s['gate'].rc}): see {logdir}")
    qs = [measure(f"{name}-query-{i}", [*cli, "query", "--db", str(db), "--json", qfile], logdir, root=root)
          for i in range(queries)]
    s["query"] = sorted(qs, key=lambda q: q.cpu)[len(qs) // 2]
    return {"stages": s, "db": db, "report": report, "db_bytes": db.stat().st_size}


def bench(size: float, args: argparse.Namespace, previous: Path, logroot: Path) -> dict[str, Any]:
    tag = size_tag(size)
    logdir = logroot / f"size-{tag}"
    corpus, _ = ensure_corpus(size, args.cache, logdir)
    truth = json.loads((corpus / "truth.json").read_text(encoding="utf-8"))
    batch = gate_batch(corpus, args.cache, logdir)
    qfile = pick_query_file(truth, corpus)
    work = args.work / f"size-{tag}"
    work.mkdir(parents=True, exist_ok=True)
    repeat = args.repeat if size <= 140 else args.repeat_large
    roots = {"previous": previous, "current": ROOT}
    runs = []
    for r in range(repeat):
        ld = logdir / f"r{r}"
        floor_db = work / "floor.db"
        _clean(floor_db)
        run: dict[str, Any] = {"floor": measure("floor", [PY, str(HERE / "floor.py"), "--files", str(corpus / "contracts"),
                                                          str(corpus / "filings"), "--out", str(floor_db),
                                                          "--workers", "2"], ld, parse_json=True)}
        order = ["previous", "current"] if r % 2 == 0 else ["current", "previous"]
        out = {v: one_version(v, roots[v], corpus, batch, qfile, work, ld, args.queries) for v in order}
        from benchmarks.floor import compare_files

        run["floor_same"] = compare_files(out["current"]["db"], floor_db)["same"]
        bodies = {v: _report_body(out[v]["report"]) for v in out}
        run["identical"] = bodies["previous"] == bodies["current"]
        run["digests"] = {v: bodies[v]["digest"] for v in out}
        if r == 0:
            run["accuracy"] = check_accuracy(report_pairs(out["current"]["report"]), truth,
                                             CorpusMap.from_store(out["current"]["db"], corpus))
        run["versions"] = {v: {"stages": {k: st.as_dict() for k, st in out[v]["stages"].items()},
                               "db_bytes": out[v]["db_bytes"]} for v in out}
        runs.append(run)
        fl = run["floor"].cpu
        print(f"[{tag} MB r{r}] floor {fl:.1f} CPU-s; " + "; ".join(
            f"{v}: " + ", ".join(f"{k} {out[v]['stages'][k].cpu:.1f}" for k in STAGES) for v in ("previous", "current"))
            + f"; reports identical: {run['identical']}", flush=True)
        run["floor"] = run["floor"].as_dict()
        if not args.keep_db:
            for v in out:
                _clean(out[v]["db"], work / f"{v}-gate")
    return summarize(size, corpus, truth, runs)


def summarize(size: float, corpus: Path, truth: dict, runs: list[dict]) -> dict[str, Any]:
    def med(v: str, stage: str, key: str = "cpu") -> float | None:
        return median([r["versions"][v]["stages"][stage][key] for r in runs])

    versions: dict[str, Any] = {}
    for v in ("previous", "current"):
        ratios = [{"audit_vs_ingest": r["versions"][v]["stages"]["audit"]["cpu"] / r["versions"][v]["stages"]["ingest"]["cpu"],
                   "pipeline_vs_floor": (r["versions"][v]["stages"]["ingest"]["cpu"]
                                         + r["versions"][v]["stages"]["audit"]["cpu"]) / r["floor"]["cpu"]}
                  for r in runs]
        versions[v] = {
            "cpu": {k: med(v, k) for k in STAGES},
            "wall": {k: med(v, k, "wall") for k in STAGES},
            "tree_rss_mb": {k: med(v, k, "tree_rss_mb") for k in STAGES},
            "ratios": {k: median([x[k] for x in ratios]) for k in ratios[0]},
            "db_mb": median([r["versions"][v]["db_bytes"] / 1e6 for r in runs]),
        }
    return {
        "size_mb": size, "corpus": str(corpus), "files": truth["summary"]["files"], "bytes": truth["summary"]["bytes"],
        "repeats": len(runs), "floor_cpu": median([r["floor"]["cpu"] for r in runs]),
        "floor_same_index": all(r["floor_same"] for r in runs),
        "reports_identical": all(r["identical"] for r in runs),
        "digests": sorted({d for r in runs for d in r["digests"].values()}),
        "accuracy": runs[0].get("accuracy"), "versions": versions,
        "others": median([r["versions"][v]["stages"][k]["others"] for r in runs for v in r["versions"] for k in STAGES]),
        "runs": runs,
    }


def render(res: dict) -> str:
    prev, cur = res["previous"], res["source"]
    L = [CPU_BEGIN, "## CPU seconds, side by side with the previous release", "",
         f"Run {res['date']} with `{res['command']}` ({res['elapsed_s'] / 60:.1f} min); previous release "
         f"{prev['commit'][:10]} ({prev['rev']}), this tree {cur.get('commit', '?')[:10]}"
         + (f" with uncommitted changes to {', '.join(cur['modified'])}" if cur.get("modified") else "")
         + f". Load average at start {', '.join(f'{x:.2f}' for x in res['machine']['loadavg_at_start'])}.", "",
         "CPU seconds (user + system of the whole process tree), medians of the repeats; in each repeat the "
         "floor, then both versions one after the other (`benchmarks/cpu.py`). *floor*: the same sampled "
         "index built straight from the files on two processes, extraction included (`benchmarks/floor.py "
         "--files`); *audit*: the audit job (`auditor audit --out DIR`: index catch-up, controls, audit, "
         "every report file); *gate*: `auditor gate --dry-run` of a batch of new files (a 1.4 MB corpus of another seed and three corpus contracts under new names); *query*: `auditor query` "
         "of one contract. Ratios are taken within each repeat.", "",
         "| size | version | floor | ingest | audit | gate | query | (ingest + audit) / floor | audit / ingest "
         "| audit wall s | audit peak MB | store MB |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in res["sizes"]:
        for v in ("previous", "current"):
            x = s["versions"][v]
            c, ra = x["cpu"], x["ratios"]
            L.append(f"| {s['size_mb']:g} MB | {v} | {s['floor_cpu']:.1f} | {c['ingest']:.1f} | {c['audit']:.1f} | "
                     f"{c['gate']:.1f} | {c['query']:.2f} | {ra['pipeline_vs_floor']:.2f}x | {ra['audit_vs_ingest']:.2f}x | "
                     f"{x['wall']['audit']:.1f} | {x['tree_rss_mb']['audit']:.0f} | {x['db_mb']:.0f} |")
    L += [""]
    for s in res["sizes"]:
        acc = s.get("accuracy") or {}
        cur_r = s["versions"]["current"]["ratios"]
        met = (cur_r["audit_vs_ingest"] <= TARGETS["audit_vs_ingest"]
               and cur_r["pipeline_vs_floor"] <= TARGETS["pipeline_vs_floor"])
        L.append(f"- {s['size_mb']:g} MB ({s['repeats']} repeat{'s' if s['repeats'] > 1 else ''}, other load "
                 f"{s['others']:.2f} cores): reports of both versions identical (report.json but its run block): "
                 f"{'yes' if s['reports_identical'] else '**no**'} (digest {', '.join(d[:12] for d in s['digests'])}); "
                 f"floor index identical to the store's: {'yes' if s['floor_same_index'] else '**no**'}; required "
                 f"findings {acc.get('must_found', '?')}/{acc.get('must_find', '?')}, false {acc.get('false_findings', '?')}; "
                 f"targets (audit <= {TARGETS['audit_vs_ingest']}x ingest, ingest + audit <= "
                 f"{TARGETS['pipeline_vs_floor']}x floor) {'met' if met else '**not met**'}.")
    L.append(CPU_END)
    return "\n".join(L)


def write_markdown(path: Path, section: str) -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if CPU_BEGIN in old and CPU_END in old:
        new = old[: old.index(CPU_BEGIN)] + section + old[old.index(CPU_END) + len(CPU_END):]
    elif NOTES_BEGIN in old:
        i = old.index(NOTES_BEGIN)
        new = old[:i] + section + "\n\n" + old[i:]
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + section + "\n"
    path.write_text(new, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--previous", default="main", help="git revision of the previous release (default: main)")
    ap.add_argument("--sizes", type=parse_sizes, default=[140.0], help="corpus sizes in MB (default 140)")
    ap.add_argument("--repeat", type=int, default=3, help="repeats up to 140 MB")
    ap.add_argument("--repeat-large", type=int, default=1, help="repeats above 140 MB")
    ap.add_argument("--queries", type=int, default=3)
    ap.add_argument("--cache", type=Path, default=HERE, help="where corpus-<size>/ directories are kept")
    ap.add_argument("--work", type=Path, default=HERE / "out" / "cpu")
    ap.add_argument("--results", type=Path, help="results JSON (default WORK/results-cpu.json)")
    ap.add_argument("--markdown", type=Path, help="RESULTS.md to put the table in")
    ap.add_argument("--keep-db", action="store_true")
    ap.add_argument("--render", action="store_true", help="only render --results into --markdown")
    args = ap.parse_args(argv)
    args.cache, args.work = args.cache.resolve(), args.work.resolve()  # the previous release runs elsewhere
    args.results = args.results or args.work / "results-cpu.json"
    if args.render:
        res = json.loads(args.results.read_text(encoding="utf-8"))
    else:
        t0 = time.perf_counter()
        args.work.mkdir(parents=True, exist_ok=True)
        previous, commit = export(args.previous, args.work)
        res = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
               "command": " ".join(["python", "benchmarks/cpu.py", *(argv if argv is not None else sys.argv[1:])]),
               "machine": machine(), "source": source_state(),
               "previous": {"rev": args.previous, "commit": commit}, "sizes": []}
        for size in sorted(args.sizes):
            res["sizes"].append(bench(size, args, previous, args.work / "logs"))
            res["elapsed_s"] = time.perf_counter() - t0
            args.results.parent.mkdir(parents=True, exist_ok=True)
            args.results.write_text(json.dumps(res, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    section = render(res)
    print(section)
    if args.markdown:
        write_markdown(args.markdown, section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
