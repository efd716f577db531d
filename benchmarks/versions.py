"""A real version history through ingest, audit and ``assemble --survivor newest``, checked.

    git clone https://github.com/github/site-policy /tmp/site-policy
    .venv/bin/python benchmarks/versions.py --repo /tmp/site-policy --under Policies/ --work /tmp/versions

Every version of every file under ``--under`` (each commit that added or changed it, identical
bytes of one path once) is written to ``WORK/history/<file name>/<commit time>-<commit>.<ext>``
with the commit's time as the file's modification time, and ``WORK/published.csv`` lists each
version's path and commit time. Then, as a user would, with the ``auditor`` command:

1. ``mtime``: ingest the history, audit, ``assemble --survivor newest``;
2. ``dates``: the same files copied (modification times of now), ingested with ``--dates
   published.csv``, audited and assembled the same way.

It checks each plan against the commit times: no drop keeps an older version in place of a newer
one, every drop shows the dates of both documents; and that the two plans decide the same. It
prints the counts by reason and writes ``WORK/versions.json``. Nothing of the repository is kept
in this one: the history is read from the clone given.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

AUDITOR = [sys.executable, "-m", "auditor"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def write_history(repo: Path, under: str, out: Path) -> list[tuple[str, str]]:
    """(path relative to ``out``'s parent, ISO commit time) of every version written."""
    log = git(repo, "log", "--full-history", "--format=C %H %ct", "--name-status", "--no-renames",
              "--diff-filter=AM", "--", under)
    versions = []
    commit = stamp = ""
    for line in log.splitlines():
        if line.startswith("C "):
            _, commit, stamp = line.split()
        elif line[:1] in ("A", "M") and "\t" in line:
            versions.append((int(stamp), commit, line.split("\t", 1)[1]))
    versions.sort()
    seen: set[tuple[str, str]] = set()
    written = []
    for t, commit, path in versions:
        blob = git(repo, "rev-parse", f"{commit}:{path}").strip()
        if (path, blob) in seen:
            continue
        seen.add((path, blob))
        name, ext = os.path.splitext(os.path.basename(path))
        when = datetime.fromtimestamp(t, UTC)
        target = out / name / f"{when.strftime('%Y-%m-%dT%H%M%S')}-{commit[:7]}{ext}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(subprocess.run(["git", "-C", str(repo), "cat-file", "blob", blob], check=True,
                                          capture_output=True).stdout)
        os.utime(target, (t, t))
        written.append((str(target.relative_to(out.parent)), when.isoformat()))
    return written


def run(*args: str) -> float:
    t = time.perf_counter()
    r = subprocess.run([*AUDITOR, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"auditor {' '.join(args)} exited {r.returncode}:\n{r.stderr[-2000:]}")
    return time.perf_counter() - t


def check(plan_dir: Path, db: Path, truth: dict[str, str]) -> dict:
    """The plan against the commit times (a document's: the latest of its copies')."""
    import sqlite3

    lines = [json.loads(x) for x in (plan_dir / "plan.jsonl").read_text().splitlines()]
    with sqlite3.connect(db) as c:
        copies = collections.defaultdict(list)
        for doc, path in c.execute("SELECT doc_id, path FROM sightings"):
            copies[doc].append(truth[path])
    when = {d: max(ts) for d, ts in copies.items()}
    older_kept, undated = [], 0
    for x in lines:
        if x["decision"] == "drop" and x["kept"] is not None:
            if when[x["kept"]] < when[x["doc_id"]]:
                older_kept.append((x["doc_id"], x["reason"], x["kept"]))
            ev = (x["evidence"] or {}).get("dates") or {}
            undated += not (ev.get("this") and ev.get("kept"))
    reasons = collections.Counter(f"{x['decision']} {x['reason']}" for x in lines)
    dropped = sum(x["decision"] == "drop" for x in lines)
    return {"lines": len(lines), "dropped": dropped, "dropped_share": round(dropped / max(1, len(lines)), 4),
            "older_kept": older_kept, "drops_without_dates": undated, "by_reason": dict(sorted(reasons.items())),
            "decisions": {x["doc_id"]: [x["decision"], x["reason"], x["kept"]] for x in lines}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--repo", type=Path, required=True, help="a git clone holding the history")
    ap.add_argument("--under", default="", help="the files whose versions to take (a path in the repository)")
    ap.add_argument("--work", type=Path, required=True, help="scratch directory (emptied)")
    args = ap.parse_args()
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    written = write_history(args.repo, args.under, work / "history")
    with open(work / "published.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["path", "date"])
        w.writerows((p.replace("history/", "copy/", 1), d) for p, d in written)
    shutil.copytree(work / "history", work / "copy")  # modification times of now
    results: dict = {"versions": len(written), "runs": {}}
    for how, src in (("mtime", "history"), ("dates", "copy")):
        db = work / f"{how}.db"
        os.chdir(work)
        times = {"ingest": run("ingest", "--db", str(db), "-q", src,
                               *(["--dates", "published.csv"] if how == "dates" else [])),
                 "audit": run("audit", "--db", str(db), "--out", f"report-{how}"),
                 "assemble": run("assemble", "--db", str(db), "--out", f"plan-{how}", "--survivor", "newest")}
        truth = {p.replace("history/", f"{src}/", 1): d for p, d in written}
        results["runs"][how] = {"seconds": {k: round(v, 1) for k, v in times.items()},
                                **check(work / f"plan-{how}", db, truth)}
    a, b = (results["runs"][h].pop("decisions") for h in ("mtime", "dates"))
    results["same_plan"] = a == b
    results["differences"] = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))[:20]
    (work / "versions.json").write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    for how, r in results["runs"].items():
        print(f"{how}: {r['lines']} documents, {r['dropped']} dropped ({r['dropped_share']:.1%}), "
              f"{len(r['older_kept'])} drops keeping an older version, {r['drops_without_dates']} without dates; "
              f"{r['seconds']}")
        for reason, n in r["by_reason"].items():
            print(f"  {reason:28} {n:6}")
    print(f"{results['versions']} versions; the same plan from file times and from --dates: {results['same_plan']}")
    if not results["same_plan"] or any(r["older_kept"] for r in results["runs"].values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
