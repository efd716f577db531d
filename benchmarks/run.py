"""The benchmark: corpus, ingest, index, floor, controls, audit and report, query, peer and PDF
extraction, timed stage by stage, with the findings checked against the corpus truth.

    .venv/bin/python benchmarks/run.py            # the scaling series 17.5 ... 560 MB (~25 min)
    .venv/bin/python benchmarks/run.py --quick    # the default size (140 MB) only
    .venv/bin/python benchmarks/run.py --size-mb 0.3 --repeat 1 --work /tmp/b   # a smoke run

Each stage runs as its own process (the ``auditor`` CLI, or a small stage entry point of this
script for the audit and the in-library query) so that its wall time, CPU time (user + system of
the whole process tree, from ``wait4``) and memory are its own. Memory is reported two ways: the
largest single process (``ru_maxrss`` from ``wait4``, over the stage process and every child it
waited for) and the peak of the summed resident set of the live process tree, sampled every
50 ms from /proc (workers included; shared pages counted once per process, so it overstates).

Per size: the corpus is generated once into ``--cache`` (``corpus-<size>/``, reused when its
truth.json matches) and every timed stage is repeated ``--repeat`` times on a fresh store
(``--repeat-large`` for sizes above the default); figures are medians, and ratios are taken
within each repeat (index build and floor side by side) before the median. Results go to
``results.json``; ``RESULTS.md`` and a plot are rendered from it (``--render`` re-renders only).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

DEFAULT_SIZE = 140.0
DEFAULT_SIZES = (17.5, 35.0, 70.0, 140.0, 560.0)
PY = sys.executable
PAGE = os.sysconf("SC_PAGE_SIZE")

# Targets from the issue (140 MB corpus, 2 cores).
TARGETS = {
    "pipeline_s": 60.0, "rss_mb": 2048.0, "index_floor_ratio": 1.5, "audit_s": 15.0, "query_s": 1.0,
}
NOTES_BEGIN = "<!-- analysis: kept when RESULTS.md is re-rendered -->"
NOTES_END = "<!-- end of analysis -->"
# The boilerplate-dense corpus's section, rendered by benchmarks/boilerplate.py and kept here.
BOILERPLATE_BEGIN = "<!-- boilerplate: rendered by benchmarks/boilerplate.py -->"
BOILERPLATE_END = "<!-- end of boilerplate -->"
# The CPU-seconds comparison with the previous release, rendered by benchmarks/cpu.py and kept here.
CPU_BEGIN = "<!-- cpu: rendered by benchmarks/cpu.py -->"
CPU_END = "<!-- end of cpu -->"
SCALE_UP = 4.0  # a size this many times another measured size is checked against SCALE_UP_LIMITS
SCALE_UP_LIMITS = {"pipeline_ratio": 4.4, "audit_rss_mb": 2048.0}


# -- measuring a stage -----------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return out


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0


CLK_TCK = os.sysconf("SC_CLK_TCK")


def system_cpu() -> tuple[float, float]:
    """(busy CPU seconds of the whole machine, of which stolen by the hypervisor) since boot."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
    except OSError:
        return 0.0, 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = v
    return (user + nice + system + irq + softirq + steal) / CLK_TCK, steal / CLK_TCK


class TreeRss(threading.Thread):
    """Samples the summed RSS of a process and its descendants; keeps the peak."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak, self.procs = pid, interval, 0, 1
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            tree, todo = [], [self.pid]
            while todo:
                p = todo.pop()
                tree.append(p)
                todo += _children(p)
            total = sum(_rss(p) for p in tree)
            if total > self.peak:
                self.peak = total
            self.procs = max(self.procs, len(tree))
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join()


@dataclass
class Stage:
    name: str
    wall: float
    cpu: float
    user: float
    sys: float
    maxrss_mb: float  # largest single process of the tree (wait4 ru_maxrss)
    tree_rss_mb: float  # peak summed RSS of the live tree (sampled)
    procs: int
    rc: int
    others: float = 0.0  # cores used on average by other processes of the machine meanwhile
    steal: float = 0.0  # cores stolen by the hypervisor meanwhile
    stdout: str = ""
    data: dict = field(default_factory=dict)
    timed_out: bool = False

    def as_dict(self) -> dict:
        d = {k: v for k, v in vars(self).items() if k not in ("stdout",)}
        d["parallelism"] = round(self.cpu / self.wall, 2) if self.wall else None
        return d


def _kill_tree(pid: int, fired: threading.Event) -> None:
    """SIGKILL a stage process and every descendant (a stage past its ``timeout``)."""
    fired.set()
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo += _children(p)
    for p in tree:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)


def measure(name: str, cmd: list[str], logdir: Path, *, check: bool = True, parse_json: bool = False,
            timeout: float | None = None, root: Path = ROOT) -> Stage:
    """Run ``cmd`` as a child process; its wall, CPU and memory, and its stdout. With ``timeout``
    (seconds) the process tree is killed when it runs longer, and ``timed_out`` is set. ``root``:
    the source tree to run (its working directory and ``PYTHONPATH``; another release's)."""
    logdir.mkdir(parents=True, exist_ok=True)
    out_path, err_path = logdir / f"{name}.out", logdir / f"{name}.err"
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
    with out_path.open("wb") as out, err_path.open("wb") as err:
        busy0, steal0 = system_cpu()
        self0 = os.times()
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=root, env=env)
        mon = TreeRss(p.pid)
        mon.start()
        fired = threading.Event()
        timer = threading.Timer(timeout, _kill_tree, (p.pid, fired)) if timeout else None
        if timer:
            timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        if timer:
            timer.cancel()
        mon.stop()
        busy1, steal1 = system_cpu()
        self1 = os.times()
        p.returncode = rc = os.waitstatus_to_exitcode(status)
    mine = ru.ru_utime + ru.ru_stime + (self1.user - self0.user) + (self1.system - self0.system)
    others = max(0.0, (busy1 - busy0) - mine) / wall if wall else 0.0
    stdout = out_path.read_text(encoding="utf-8", errors="replace")
    if check and rc != 0:
        tail = err_path.read_text(encoding="utf-8", errors="replace")[-3000:]
        why = f"timed out after {timeout:g} s" if fired.is_set() else f"exit {rc}"
        raise RuntimeError(f"stage {name} failed ({why}): {' '.join(map(str, cmd))}\n{tail}")
    st = Stage(name, wall, ru.ru_utime + ru.ru_stime, ru.ru_utime, ru.ru_stime, ru.ru_maxrss / 1024,
               mon.peak / 2**20, mon.procs, rc, round(others, 2), round((steal1 - steal0) / wall, 2) if wall else 0.0,
               stdout, timed_out=fired.is_set())
    if parse_json and rc == 0:
        try:
            st.data = json.loads(stdout)
        except ValueError:
            st.data = json.loads(stdout.strip().splitlines()[-1])
    return st


def auditor_cmd(*args: str) -> list[str]:
    return [PY, "-m", "auditor", *args]


# -- stage entry points run in their own process ---------------------------------------------

def stage_audit(db: str, out: str) -> dict:
    """``audit_job`` (what ``auditor audit`` runs) with each phase timed."""
    import resource

    import numpy as np

    from auditor.engine import audit as audit_mod
    from auditor.report import pipeline
    from auditor.store.db import Store

    phases: dict[str, float] = {}
    peak_mb: dict[str, float] = {}
    info: dict[str, Any] = {"start_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}

    active: list[str] = []

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **k: Any) -> Any:
            key = "/".join([*active[-1:], name])  # a phase called inside another: "controls/audit"
            active.append(key)
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                active.pop()
                phases[key] = phases.get(key, 0.0) + time.perf_counter() - t
                peak_mb[key] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return wrapper

    for attr, name in (("build_index", "index_catch_up"), ("run_controls", "controls"),
                       ("run_audit", "audit"), ("build_report", "report_build"), ("write", "report_write"),
                       ("_save_run", "save_run")):
        if hasattr(pipeline, attr):
            setattr(pipeline, attr, timed(name, getattr(pipeline, attr)))
    load = audit_mod.SampledIndex.load.__func__  # type: ignore[attr-defined]

    def load_and_measure(cls: type, *a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        idx = load(cls, *a, **k)
        info.setdefault("index_load_s", time.perf_counter() - t)
        info["index_nbytes"] = max(info.get("index_nbytes", 0), sum(
            v.nbytes for v in vars(idx).values() if isinstance(v, np.ndarray)))
        info["index_postings"] = max(info.get("index_postings", 0), int(idx.n.sum()))
        return idx

    audit_mod.SampledIndex.load = classmethod(load_and_measure)  # type: ignore[method-assign,assignment]
    t0 = time.perf_counter()
    with Store(Path(db)) as store:
        o = pipeline.audit_job(store, 0.8, out=Path(out), command="benchmarks/run.py audit")
    total = time.perf_counter() - t0
    return {"phases": phases, "peak_rss_after_mb": peak_mb, "total_s": total, "status": o.report["status"], **info,
            "summary": o.report.get("summary", {})}


def stage_query(db: str, file: str, n: int) -> dict:
    """In-library query time: ``query_text`` of one file's text, ``n`` times (each loads the index)."""
    from auditor.engine.query import query_text
    from auditor.extract import extract
    from auditor.store.db import Store

    with Store(Path(db), create=False) as store:
        t = time.perf_counter()
        text = extract(Path(file)).text
        extract_s = time.perf_counter() - t
        times, matches = [], 0
        for _ in range(n):
            t = time.perf_counter()
            q = query_text(store, text, 0.8)
            times.append(time.perf_counter() - t)
            matches = len(q.matches)
    return {"extract_s": extract_s, "times": times, "matches": matches, "chars": len(text)}


def stage_pdf(files: int, pages: int) -> dict:
    """pdfminer.six pages per second on generated multi-page PDFs, 1 and 2 threads (each thread's
    extraction runs in its own pdfminer child process, as in ingest)."""
    from concurrent.futures import ThreadPoolExecutor

    try:
        from fpdf import FPDF
    except ImportError:
        return {"skipped": "fpdf2 is not installed (pip install -e '.[test]')"}
    from auditor.extract import extract_bytes
    from auditor.sandbox import pdfworker
    from tests.support import synth

    t0 = time.perf_counter()
    docs = []
    for i in range(files):
        text = synth.contract(7_000 + i, 2_600 * pages)
        text = text.encode("latin-1", "replace").decode("latin-1")
        pdf = FPDF(format="A4")
        pdf.set_auto_page_break(auto=True, margin=15)
        pdf.set_compression(True)
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(0, 5, text)
        docs.append(bytes(pdf.output()))
    gen_s = time.perf_counter() - t0

    def one(data: bytes) -> int:
        ex = extract_bytes(data, "x.pdf")
        assert ex.text.strip()
        return len(ex.page_offsets or [])

    out: dict[str, Any] = {"files": files, "generate_s": gen_s,
                           "bytes": sum(map(len, docs))}
    for threads in (1, 2):
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(one, docs[:threads]))  # start the pdfminer children
            t = time.perf_counter()
            n_pages = sum(pool.map(one, docs))
            secs = time.perf_counter() - t
        out[f"threads_{threads}"] = {"pages": n_pages, "seconds": secs, "pages_per_s": n_pages / secs}
        pdfworker.shutdown()
    out["pages"] = out["threads_1"]["pages"]
    out["speedup"] = out["threads_2"]["pages_per_s"] / out["threads_1"]["pages_per_s"]
    return out


# -- the corpus --------------------------------------------------------------------------------

def size_tag(size: float) -> str:
    return f"{size:g}"


def ensure_corpus(size: float, cache: Path, logdir: Path, seed: int = 1) -> tuple[Path, dict | None]:
    """The corpus directory for ``size`` MB (generated unless a matching one is cached)."""
    d = cache / f"corpus-{size_tag(size)}"
    truth = d / "truth.json"
    if truth.exists():
        try:
            p = json.loads(truth.read_text(encoding="utf-8"))["params"]
            if float(p["size_mb"]) == float(size) and int(p["seed"]) == seed:
                return d, None
        except (ValueError, KeyError):
            pass
    if d.exists():
        shutil.rmtree(d)
    st = measure(f"generate-{size_tag(size)}", [PY, str(HERE.parent / "tests" / "support" / "generate.py"), "--out", str(d),
                                                  "--size-mb", f"{size:g}", "--seed", str(seed)], logdir)
    return d, st.as_dict()


def pick_query_file(truth: dict, corpus: Path) -> str:
    """A contract of about 20 KB that the truth places most often (the costliest to verify)."""
    placed = Counter(p["contract"] for p in truth["placements"] if p["must_find"])
    files = {f["path"]: f["bytes"] for f in truth["files"] if f["kind"] == "contract"}
    best = sorted(files, key=lambda f: (not 15_000 <= files[f] <= 25_000, -placed.get(f, 0),
                                        abs(files[f] - 20_000), f))
    return str(corpus / best[0])


# -- accuracy ------------------------------------------------------------------------------------

@dataclass
class CorpusMap:
    """How the store's documents relate to the truth's paths."""

    id_of: dict[str, int]  # 'rel' or 'rel#SEQUENCE' (every sighting) -> document id
    group: dict[int, int]  # document id -> first document of its exact-duplicate group
    part_type: dict[int, str]  # EDGAR part document id -> its <TYPE>
    db: str | None = None  # the store, to verify unexplained pairs from the stored texts

    def containment(self, a: int, b: int, k: int = 5) -> float | None:
        """Share of ``a``'s distinct k-word shingles found in ``b``, computed independently of
        the index (Python sets of word tuples over the normalised stored texts)."""
        if self.db is None:
            return None
        import sqlite3

        from auditor.store.packing import sql_text
        from auditor.text.normalize import words

        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            con.create_function("auditor_text", 1, sql_text, deterministic=True)  # texts are stored compressed
            ta, tb = (con.execute("SELECT auditor_text(text) FROM texts WHERE doc_id = ?", (i,)).fetchone()[0]
                      for i in (a, b))
        finally:
            con.close()
        wa, wb = words(ta), words(tb)
        sa = {tuple(wa[i : i + k]) for i in range(len(wa) - k + 1)}
        sb = {tuple(wb[i : i + k]) for i in range(len(wb) - k + 1)}
        return len(sa & sb) / len(sa) if sa else 0.0

    @classmethod
    def from_store(cls, db: str | Path, corpus: str | Path) -> CorpusMap:
        import sqlite3

        from benchmarks.peer import sightings

        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            id_of = sightings(con, str(corpus))
            group = {i: g for i, g in con.execute("SELECT id, coalesce(duplicate_of, id) FROM documents")}
            part_type = {i: t or "" for i, t in con.execute(
                "SELECT id, json_extract(meta, '$.type') FROM documents WHERE parent_id IS NOT NULL")}
        finally:
            con.close()
        return cls(id_of, group, part_type, str(db))


BOILERPLATE_TYPES = ("EX-21", "EX-31", "EX-32")


def report_pairs(report_dir: Path) -> list[tuple[int, int, str]]:
    """Every containing pair of a written report (its findings.jsonl.gz): (contained, container,
    "family" for a pair inside a family of documents that contain one another, else "finding")."""
    import gzip

    with gzip.open(Path(report_dir) / "findings.jsonl.gz", "rt", encoding="utf-8") as f:
        return [(x["contained"], x["container"], "finding" if x["family"] is None else "family")
                for x in map(json.loads, f)]


def check_accuracy(pairs: list[tuple[int, int, str]], truth: dict, cmap: CorpusMap, threshold: float = 0.8) -> dict:
    """Reported pairs (``report_pairs``) against the placements of ``truth``.

    A placement is found when a reported pair (a finding, or two members of a family) has a
    contained document that *is* the contract (the contract file, an exhibit
    holding it, or an exact duplicate of either) and a container in the placement's container
    document's duplicate group; or when the contract and the container are exact duplicates.
    A reported pair is *true* when it matches a must-find placement; *false* when it matches only
    a 70% or 50% placement, or relates documents no placement relates; *other* when it is a
    containment the generator made without a placement of its own: two documents holding the
    same contract (an exhibit of it inside a filing that also holds it), or generated boilerplate
    (EX-21 subsidiary lists, EX-31 certifications) found in one another, or two documents whose
    generated text overlaps that much without any placement (short filings at tiny corpus sizes),
    when an independent computation from the stored texts confirms the containment.
    """
    g = cmap.group

    def gid(key: str) -> int | None:
        i = cmap.id_of.get(key)
        return None if i is None else g.get(i, i)

    def container_key(p: dict) -> str:
        return p["container"] + (f"#{p['sequence']}" if p["sequence"] is not None else "")

    # What each group *is* (contracts whose full text it holds) and what it *carries* (contracts
    # placed in it at >= 0.8).
    is_contract: dict[int, set[str]] = {}
    carries: dict[int, set[str]] = {}
    for f in truth["files"]:
        if f["kind"] == "contract" and (x := gid(f["path"])) is not None:
            is_contract.setdefault(x, set()).add(f["path"])
    for p in truth["placements"]:
        x = gid(container_key(p))
        if x is None:
            continue
        if p["kind"] == "exhibit":
            is_contract.setdefault(x, set()).add(p["contract"])
        if p["must_find"]:
            carries.setdefault(x, set()).add(p["contract"])

    reported = [(g.get(a, a), g.get(b, b), how) for a, b, how in pairs]  # by duplicate group

    groups_of_contract: dict[str, list[int]] = {}
    for x, cs in is_contract.items():
        for c in cs:
            groups_of_contract.setdefault(c, []).append(x)

    # Placements.
    by_kind: dict[str, Counter] = {}
    found_pairs = {(a, b) for a, b, _ in reported}
    placement_of: dict[tuple[str, int], list[dict]] = {}
    missed = []
    for p in truth["placements"]:
        k = by_kind.setdefault(p["kind"], Counter())
        k["placements"] += 1
        gc, gf = gid(p["contract"]), gid(container_key(p))
        if gc is None or gf is None:
            k["not_stored"] += 1
            if p["must_find"]:
                missed.append({**p, "why": "not stored"})
            continue
        placement_of.setdefault((p["contract"], gf), []).append(p)
        hit = gc == gf or any((a, gf) in found_pairs for a in groups_of_contract.get(p["contract"], ()))
        if hit:
            k["found"] += 1
        elif p["must_find"]:
            missed.append({k2: p[k2] for k2 in ("contract", "container", "sequence", "kind", "containment")})

    # Reported pairs.
    verdicts: Counter = Counter()
    false_list, other_list = [], []
    for a, b, how in reported:
        ps = [p for c in is_contract.get(a, ()) for p in placement_of.get((c, b), [])]
        if any(p["must_find"] for p in ps):
            verdicts[f"true ({how})"] += 1
        elif ps:
            verdicts[f"false: {ps[0]['kind']} ({how})"] += 1
            false_list.append((a, b, ps[0]["kind"]))
        elif is_contract.get(a, set()) & (is_contract.get(b, set()) | carries.get(b, set())):
            verdicts[f"other: same contract ({how})"] += 1
        elif (cmap.part_type.get(a, "").startswith(BOILERPLATE_TYPES)
              and cmap.part_type.get(b, "").startswith(BOILERPLATE_TYPES)):
            verdicts[f"other: boilerplate {cmap.part_type[a].split('.')[0]} ({how})"] += 1
        else:
            c = cmap.containment(a, b)
            if c is not None and c >= threshold:
                verdicts[f"other: shared generated text, verified ({how})"] += 1
                other_list.append((a, b, round(c, 4)))
            else:
                verdicts[f"false: unrelated ({how})"] += 1
                false_list.append((a, b, "unrelated"))

    must = [p for p in truth["placements"] if p["must_find"]]
    must_found = sum(by_kind[k]["found"] for k in {p["kind"] for p in must})
    return {
        "must_find": len(must),
        "must_found": must_found,
        "recall": must_found / len(must) if must else 1.0,
        "by_kind": {k: {"placements": v["placements"], "found": v["found"],
                        "must_find": k in {p["kind"] for p in must}} for k, v in sorted(by_kind.items())},
        "reported_pairs": len(reported),
        "findings": sum(1 for *_, how in pairs if how == "finding"),
        "family_pairs": sum(1 for *_, how in pairs if how == "family"),
        "verdicts": dict(sorted(verdicts.items())),
        "false_findings": sum(v for k, v in verdicts.items() if k.startswith("false")),
        "false_examples": [list(x) for x in false_list[:10]],
        "shared_text_examples": [list(x) for x in other_list[:10]],
        "missed": missed[:20],
        "n_missed": len(missed),
    }


# -- one size ----------------------------------------------------------------------------------

def median(xs: list[float]) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize(stages: list[dict]) -> dict:
    """Medians of a stage's measurements over repeats."""
    keys = ("wall", "cpu", "user", "sys", "maxrss_mb", "tree_rss_mb", "parallelism", "procs", "others", "steal")
    return {k: median([s[k] for s in stages]) for k in keys} | {"n": len(stages)}


def bench_size(size: float, args: argparse.Namespace, logroot: Path) -> dict:
    tag = size_tag(size)
    logdir = logroot / f"size-{tag}"
    corpus, generated = ensure_corpus(size, args.cache, logdir)
    truth = json.loads((corpus / "truth.json").read_text(encoding="utf-8"))
    repeat = args.repeat if size <= DEFAULT_SIZE else args.repeat_large
    work = args.work / f"size-{tag}"
    work.mkdir(parents=True, exist_ok=True)
    db, floor_db, report_dir = work / "store.db", work / "floor.db", work / "report"
    qfile = pick_query_file(truth, corpus)
    print(f"[{tag} MB] corpus {corpus} ({truth['summary']['bytes'] / 1e6:.1f} MB, "
          f"{truth['summary']['files']} files); {repeat} repeat(s)", flush=True)
    runs: list[dict[str, Any]] = []
    accuracy = None
    digests = set()
    for r in range(repeat):
        for p in (db, floor_db):
            for suffix in ("", "-wal", "-shm"):
                Path(f"{p}{suffix}").unlink(missing_ok=True)
        if report_dir.exists():
            shutil.rmtree(report_dir)
        ld = logdir / f"r{r}"
        s: dict[str, Any] = {}
        s["ingest"] = measure("ingest", auditor_cmd("ingest", "--db", str(db), "-q", "--json",
                                                    str(corpus / "contracts"), str(corpus / "filings")),
                              ld, parse_json=True)
        s["index"] = measure("index", auditor_cmd("index", "--db", str(db), "--rebuild"), ld)
        s["floor1"] = measure("floor1", [PY, str(HERE / "floor.py"), "--db", str(db), "--out", str(floor_db),
                                         "--workers", "1"], ld, parse_json=True)
        s["floor2"] = measure("floor2", [PY, str(HERE / "floor.py"), "--db", str(db), "--out", str(floor_db),
                                         "--workers", "2"], ld, parse_json=True)
        if r == 0:
            from benchmarks.floor import compare

            floor_check = compare(db, floor_db)
        s["controls"] = measure("controls", auditor_cmd("controls", "--db", str(db), "--json"), ld)
        s["audit"] = measure("audit", [PY, str(HERE / "run.py"), "_audit", "--db", str(db),
                                       "--out", str(report_dir)], ld, parse_json=True)
        s["query_cli"] = [measure(f"query-{i}", auditor_cmd("query", "--db", str(db), "--json", qfile), ld)
                          for i in range(args.queries)]
        s["query_lib"] = measure("query-lib", [PY, str(HERE / "run.py"), "_query", "--db", str(db),
                                               "--file", qfile, "--n", str(args.queries)], ld, parse_json=True)
        report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
        digests.add(report["digest"])
        if accuracy is None:
            accuracy = check_accuracy(report_pairs(report_dir), truth, CorpusMap.from_store(db, corpus))
        runs.append(s)
        a = s["audit"]
        print(f"  r{r}: ingest {s['ingest'].wall:.1f} s, index --rebuild {s['index'].wall:.1f} s, "
              f"floor {s['floor1'].wall:.1f}/{s['floor2'].wall:.1f} s (1/2 proc), "
              f"controls {s['controls'].wall:.1f} s, audit {a.wall:.1f} s "
              f"(run_audit {a.data['phases'].get('audit', 0):.1f} s), "
              f"query {median([q.wall for q in s['query_cli']]):.2f} s", flush=True)

    peer = None
    if not args.no_peer and size > args.peer_max_mb:
        peer = {"skipped": f"above --peer-max-mb {args.peer_max_mb:g}"}
    elif not args.no_peer:
        st = measure("peer", [PY, str(HERE / "peer.py"), "--db", str(db), "--truth", str(corpus / "truth.json"),
                              "--corpus", str(corpus)], logdir, parse_json=True)
        peer = {**st.data, "stage": st.as_dict()} if "skipped" not in st.data else st.data
        if "recall" in st.data:
            print(f"  peer: {st.wall:.1f} s, recall {st.data['recall']:.3f}", flush=True)

    stats = {}
    try:
        import sqlite3

        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        stats = {"documents": con.execute("SELECT count(*) FROM documents").fetchone()[0],
                 "indexed": con.execute("SELECT count(*) FROM index_docs").fetchone()[0],
                 "postings": con.execute("SELECT sum(n_sampled) FROM index_docs").fetchone()[0],
                 "words": con.execute("SELECT sum(n_words) FROM index_docs").fetchone()[0],
                 "db_bytes": db.stat().st_size}
        con.close()
    except Exception as e:
        stats = {"error": str(e)}
    if not args.keep_db:
        for p in (db, floor_db):
            for suffix in ("", "-wal", "-shm"):
                Path(f"{p}{suffix}").unlink(missing_ok=True)

    def stage(name: str) -> dict:
        return summarize([r[name].as_dict() for r in runs])

    ratios = []
    for run in runs:
        fl = min(run["floor1"].wall, run["floor2"].wall)
        ratios.append({"wall_vs_best_floor": run["index"].wall / fl,
                       "wall_vs_floor1": run["index"].wall / run["floor1"].wall,
                       "wall_vs_floor2": run["index"].wall / run["floor2"].wall,
                       "cpu_vs_floor1": run["index"].cpu / run["floor1"].cpu})
    audit_phases = {k: median([r["audit"].data["phases"].get(k) for r in runs])
                    for k in runs[0]["audit"].data["phases"]}
    qlib = [t for r in runs for t in r["query_lib"].data["times"]]
    out = {
        "size_mb": size, "corpus": str(corpus), "files": truth["summary"]["files"],
        "bytes": truth["summary"]["bytes"], "generated": generated, "repeats": repeat, "store": stats,
        "stages": {n: stage(n) for n in ("ingest", "index", "floor1", "floor2", "controls", "audit")},
        "ingest_counts": runs[-1]["ingest"].data.get("counts"),
        "floor": {"check": floor_check, "compute_s": median([r["floor1"].data["compute_s"] for r in runs]),
                  "write_s": median([r["floor1"].data["write_s"] for r in runs])},
        "index_floor": {k: median([x[k] for x in ratios]) for k in ratios[0]},
        "audit": {"phases": audit_phases,
                  "index_load_s": median([r["audit"].data.get("index_load_s") for r in runs]),
                  "index_nbytes": runs[-1]["audit"].data.get("index_nbytes"),
                  "peak_rss_after_mb": runs[-1]["audit"].data.get("peak_rss_after_mb"),
                  "start_rss_mb": runs[-1]["audit"].data.get("start_rss_mb"),
                  "summary": runs[-1]["audit"].data.get("summary"),
                  "status": runs[-1]["audit"].data.get("status")},
        "pipeline": {"wall": median([r["ingest"].wall + r["audit"].wall for r in runs]),
                     "cpu": median([r["ingest"].cpu + r["audit"].cpu for r in runs]),
                     "tree_rss_mb": median([max(r["ingest"].tree_rss_mb, r["audit"].tree_rss_mb) for r in runs])},
        "peak_tree_rss_mb": max(max(r[n].tree_rss_mb for n in ("ingest", "index", "controls", "audit"))
                                for r in runs),
        "query": {"file": qfile, "bytes": Path(qfile).stat().st_size,
                  "cli_wall": median([q.wall for r in runs for q in r["query_cli"]]),
                  "cli_maxrss_mb": median([q.maxrss_mb for r in runs for q in r["query_cli"]]),
                  "lib_first": median([r["query_lib"].data["times"][0] for r in runs]),
                  "lib_median": median(qlib), "matches": runs[-1]["query_lib"].data["matches"]},
        "accuracy": accuracy, "report_digests_identical": len(digests) == 1,
        "peer": peer,
        "runs": [{n: ([q.as_dict() for q in v] if isinstance(v, list) else v.as_dict()) for n, v in r.items()}
                 for r in runs],
    }
    return out


# -- machine -----------------------------------------------------------------------------------

def source_state() -> dict:
    """The commit benchmarked, and the files that differed from it."""
    def git(*a: str) -> str:
        try:
            # Only the line ends: a porcelain status line starts with a meaningful space.
            return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, timeout=20).stdout.rstrip()
        except (OSError, subprocess.SubprocessError):
            return ""

    return {"commit": git("rev-parse", "HEAD"),
            "modified": [ln[3:] for ln in git("status", "--porcelain", "--untracked-files=no").splitlines()]}


def machine() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) * 1024
    except OSError:
        pass
    pk: dict[str, str | None] = {}
    for p in ("containment-auditor", "numpy", "xxhash", "pdfminer.six", "lxml", "datasketch", "matplotlib", "fpdf2"):
        try:
            pk[p] = version(p)
        except PackageNotFoundError:
            pk[p] = None
    import sqlite3

    return {"nproc": os.cpu_count(), "cpu": cpu, "memory_gb": round(mem / 2**30, 1),
            "python": platform.python_version(), "platform": platform.platform(),
            "sqlite": sqlite3.sqlite_version, "packages": pk, "loadavg_at_start": list(os.getloadavg())}


# -- rendering -----------------------------------------------------------------------------------

def _f(x: Any, nd: int = 1) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{nd}f}"
    return str(x)


def headline(res: dict) -> list[dict]:
    """Targets at the default size (or the largest measured size up to it), with verdicts."""
    sizes = res["sizes"]
    base = next((s for s in sizes if s["size_mb"] == DEFAULT_SIZE), None) or max(
        sizes, key=lambda s: (s["size_mb"] <= DEFAULT_SIZE, s["size_mb"]))
    rows = []

    def add(target: str, value: str, ok: bool | None, note: str = "") -> None:
        rows.append({"target": target, "measured": value, "met": ok, "note": note})

    p = base["pipeline"]
    add("whole pipeline, ingest to report < 60 s", f"{p['wall']:.1f} s (ingest {base['stages']['ingest']['wall']:.1f} + "
        f"audit job {base['stages']['audit']['wall']:.1f})", p["wall"] < TARGETS["pipeline_s"])
    add("peak RSS < 2 GB", f"{base['peak_tree_rss_mb']:.0f} MB (summed over the process tree)",
        base["peak_tree_rss_mb"] < TARGETS["rss_mb"])
    par = {n: base["stages"][n]["parallelism"] for n in ("ingest", "index", "audit")}
    add("both cores used where the work is parallel",
        ", ".join(f"{n} {v:.2f}" for n, v in par.items()) + " cores busy on average",
        all(v >= 1.6 for v in par.values()),
        "CPU time / wall time of the stage's process tree; the audit's per-document candidate search "
        "and exact verification are independent, hence parallel work" if par["audit"] < 1.6 else
        "CPU time / wall time of the stage's process tree")
    r = base["index_floor"]
    add("index build within 1.5x of the floor", f"{r['wall_vs_best_floor']:.2f}x "
        f"({base['stages']['index']['wall']:.1f} s vs {min(base['stages']['floor1']['wall'], base['stages']['floor2']['wall']):.1f} s); "
        f"CPU {r['cpu_vs_floor1']:.2f}x", r["wall_vs_best_floor"] <= TARGETS["index_floor_ratio"])
    a = base["stages"]["audit"]["wall"]
    add("audit of the whole corpus < 15 s", f"{a:.1f} s audit job (run_audit alone "
        f"{base['audit']['phases'].get('audit', 0):.1f} s)", a < TARGETS["audit_s"])
    q = base["query"]
    add("`auditor query` of one 20 KB contract < 1 s", f"{q['cli_wall']:.2f} s CLI ({q['lib_median']:.2f} s in-library)",
        q["cli_wall"] < TARGETS["query_s"])
    acc = base["accuracy"]
    add("every required finding found", f"{acc['must_found']}/{acc['must_find']}", acc["must_found"] == acc["must_find"])
    add("no 70%/50% placement, no unrelated pair reported", f"{acc['false_findings']} false",
        acc["false_findings"] == 0)
    big = [s for s in sizes if s["size_mb"] > DEFAULT_SIZE]
    if big:
        b = max(big, key=lambda s: s["size_mb"])
        grow = memory_growth(base, b)
        add(f"{b['size_mb']:g} MB completes; memory grows no more than the index",
            f"audit job peak {b['stages']['audit']['tree_rss_mb']:.0f} MB vs {base['stages']['audit']['tree_rss_mb']:.0f} MB "
            f"at {base['size_mb']:g} MB, index {b['audit']['index_nbytes'] / 2**20:.0f} vs "
            f"{base['audit']['index_nbytes'] / 2**20:.0f} MB: {grow['excess']:.0f} MB more growth than the index's; "
            f"ingest {b['stages']['ingest']['tree_rss_mb']:.0f} vs {base['stages']['ingest']['tree_rss_mb']:.0f} MB",
            grow["ok"])
    by_size = {s["size_mb"]: s for s in sizes}
    for s in sorted(sizes, key=lambda s: s["size_mb"]):
        small = by_size.get(s["size_mb"] / SCALE_UP)
        if s["size_mb"] > DEFAULT_SIZE and small:
            ratio = s["pipeline"]["wall"] / small["pipeline"]["wall"]
            rss = s["stages"]["audit"]["tree_rss_mb"]
            add(f"{s['size_mb']:g} MB: pipeline <= {SCALE_UP_LIMITS['pipeline_ratio']:g}x the {small['size_mb']:g} MB "
                f"time; audit job peak <= {SCALE_UP_LIMITS['audit_rss_mb'] / 1024:g} GB",
                f"{s['pipeline']['wall']:.1f} s = {ratio:.2f}x {small['pipeline']['wall']:.1f} s; audit job peak {rss:.0f} MB",
                ratio <= SCALE_UP_LIMITS["pipeline_ratio"] and rss <= SCALE_UP_LIMITS["audit_rss_mb"])
    pdf = res.get("pdf") or {}
    if "threads_2" in pdf:
        add("PDF pages per second (pdfminer.six, both cores)",
            f"{pdf['threads_2']['pages_per_s']:.1f} pages/s (1 core {pdf['threads_1']['pages_per_s']:.1f})", None,
            "reported, no target")
    return rows


def memory_growth(base: dict, big: dict) -> dict:
    """How much more the audit job's peak RSS grows from ``base`` to ``big`` than the in-memory
    index does. Met when the excess is within 10% of the base peak (noise, allocator)."""
    def peak(s: dict) -> float:
        return s["stages"]["audit"]["tree_rss_mb"]

    def index(s: dict) -> float:
        return (s["audit"]["index_nbytes"] or 0) / 2**20

    excess = (peak(big) - peak(base)) - (index(big) - index(base))
    return {"beyond_base": peak(base) - index(base), "beyond_big": peak(big) - index(big),
            "excess": excess, "ok": excess <= 0.10 * peak(base)}


def render_markdown(res: dict, old: str | None = None) -> str:
    m = res["machine"]
    L = [
        "# Benchmark results",
        "",
        f"Run {res['date']} with `{res['command']}` ({res['elapsed_s'] / 60:.1f} min in all), "
        f"on commit {res.get('source', {}).get('commit', '?')[:10]}"
        + (f" with uncommitted changes to {', '.join(res['source']['modified'])}" if res.get("source", {}).get("modified") else "")
        + (" (**the source changed during the run**: "
           f"{res['source_end']['commit'][:10]} {', '.join(res['source_end']['modified'])})"
           if res.get("source_end") and res["source_end"] != res.get("source") else "")
        + ".",
        "",
        f"Machine: {m['nproc']} cores ({m['cpu']}), {m['memory_gb']} GB RAM, {m['platform']}; Python {m['python']}, "
        f"SQLite {m['sqlite']}; " + ", ".join(f"{k} {v}" for k, v in m["packages"].items() if v)
        + f". Load average at start {', '.join(f'{x:.2f}' for x in m['loadavg_at_start'])} (a shared machine: "
        "figures are medians of repeats, ratios are taken within each repeat).",
        "",
        "## Targets",
        "",
        "| target | measured | met |",
        "|---|---|---|",
    ]
    for r in headline(res):
        met = {True: "yes", False: "**no**", None: "-"}[r["met"]]
        L.append(f"| {r['target']} | {r['measured']}{' (' + r['note'] + ')' if r['note'] else ''} | {met} |")
    L += ["", "## Stages", "",
          "Medians over the repeats. Wall and CPU in seconds (CPU = user + system of the stage's whole "
          "process tree); *cores* = CPU / wall; *tree RSS* = peak of the summed resident memory of the "
          "live process tree; *max RSS* = the largest single process; *other load* = cores busy with "
          "other processes of the machine during the stage (from /proc/stat; of 2).", ""]
    for s in res["sizes"]:
        L += [f"### {s['size_mb']:g} MB ({s['bytes'] / 1e6:.1f} MB in {s['files']} files; "
              f"{s['store'].get('documents', '?')} documents, {s['store'].get('postings', '?')} postings; "
              f"{s['repeats']} repeat{'s' if s['repeats'] > 1 else ''})", "",
              "| stage | wall s | CPU s | cores | tree RSS MB | max RSS MB | other load |", "|---|---|---|---|---|---|---|"]
        names = {"ingest": "ingest (extract, normalise, shingle, store; 2 workers)",
                 "index": "`index --rebuild` (re-shingle all stored texts)",
                 "floor1": "floor, 1 process", "floor2": "floor, 2 processes",
                 "controls": "`controls`",
                 "audit": "audit job (index catch-up, controls, audit, report.json/md/html)"}
        for n, label in names.items():
            x = s["stages"][n]
            L.append(f"| {label} | {_f(x['wall'], 2)} | {_f(x['cpu'], 2)} | {_f(x['parallelism'], 2)} | "
                     f"{_f(x['tree_rss_mb'], 0)} | {_f(x['maxrss_mb'], 0)} | {_f(x.get('others'), 2)} |")
        ph = s["audit"]["phases"]
        pk = s["audit"].get("peak_rss_after_mb") or {}
        L += ["", "Audit job phases (s): " + ", ".join(f"{k} {v:.2f}" for k, v in ph.items())
              + ("; peak RSS after each phase (MB): " + ", ".join(f"{k} {v:.0f}" for k, v in pk.items()) if pk else "")
              + f"; the in-memory sampled index: {(s['audit']['index_nbytes'] or 0) / 2**20:.0f} MB, "
              f"loaded in {_f(s['audit']['index_load_s'], 2)} s.",
              f"Index build / floor: {s['index_floor']['wall_vs_best_floor']:.2f}x the faster floor's wall time "
              f"({s['index_floor']['wall_vs_floor1']:.2f}x the 1-process floor, "
              f"{s['index_floor']['wall_vs_floor2']:.2f}x the 2-process floor; CPU {s['index_floor']['cpu_vs_floor1']:.2f}x). "
              f"Floor output identical to the index: {s['floor']['check']['same']}.",
              f"Query ({Path(s['query']['file']).name}, {s['query']['bytes'] / 1000:.1f} KB, "
              f"{s['query']['matches']} matches): CLI {s['query']['cli_wall']:.2f} s, in-library "
              f"{s['query']['lib_median']:.2f} s (first call {s['query']['lib_first']:.2f} s).", ""]
    L += ["## Accuracy", "",
          "Found / placements per kind (70% and 50% placements must *not* be found). Auditor: pairs in "
          "report.json (findings, near-duplicate clusters, exact-duplicate groups). Peer: datasketch "
          "MinHashLSHEnsemble (threshold 0.8, 128 permutations, 16 partitions) queried with each contract.", ""]
    kinds = sorted({k for s in res["sizes"] for k in s["accuracy"]["by_kind"]},
                   key=lambda k: ["verbatim", "exhibit", "reformatted", "partial85", "partial70", "partial50"].index(k)
                   if k in ("verbatim", "exhibit", "reformatted", "partial85", "partial70", "partial50") else 9)
    L += ["| size MB | " + " | ".join(kinds) + " | recall (must find) | false | other findings | clusters (members) | peer recall |",
          "|---" * (len(kinds) + 6) + "|"]
    for s in res["sizes"]:
        a = s["accuracy"]
        cells = []
        for k in kinds:
            x = a["by_kind"].get(k)
            if not x:
                cells.append("-")
                continue
            peer_k = ((s.get("peer") or {}).get("by_kind") or {}).get(k, {})
            peer_txt = f" (peer {peer_k.get('returned', 0)})" if s.get("peer") and "by_kind" in s["peer"] else ""
            cells.append(f"{x['found']}/{x['placements']}{peer_txt}")
        other = sum(v for k, v in a["verdicts"].items() if k.startswith("other") and k.endswith("(finding)"))
        clusters = ", ".join(str(n) for n in a.get("cluster_sizes", [])) or "none"
        pr = (s.get("peer") or {}).get("recall")
        L.append(f"| {s['size_mb']:g} | " + " | ".join(cells)
                 + f" | {a['must_found']}/{a['must_find']} ({a['recall']:.3f}) | {a['false_findings']} | {other} | {clusters} | "
                 + (f"{pr:.3f}" if pr is not None else "-") + " |")
    base = next((s for s in res["sizes"] if s["size_mb"] == DEFAULT_SIZE), res["sizes"][-1])
    L += ["", f"Reported pairs at {base['size_mb']:g} MB by verdict (a cluster of n members counts n(n-1) pairs): "
          + ", ".join(f"{k}: {v}" for k, v in base["accuracy"]["verdicts"].items()) + ".",
          "*Other* pairs are real containments that the generator creates without a placement of their "
          "own: an EDGAR exhibit holding a contract inside a filing that also holds the contract, and "
          "the generated boilerplate exhibits (EX-21 subsidiary lists, EX-31 certifications, which share "
          "most of their text across filings) found in one another, reported once as a near-duplicate "
          "cluster.", ""]
    if base["accuracy"]["n_missed"]:
        L += [f"Missed at {base['size_mb']:g} MB: " + "; ".join(
            f"{x['contract']} in {x['container']} ({x['kind']})" for x in base["accuracy"]["missed"][:5]), ""]
    L += ["## Peer", "", "| size MB | shingle s | sketch s | index + query s | total s | peak RSS MB | recall | returned pairs |",
          "|---|---|---|---|---|---|---|---|"]
    for s in res["sizes"]:
        p = s.get("peer") or {}
        if "recall" not in p:
            L.append(f"| {s['size_mb']:g} | {p.get('skipped', 'not run')} ||||||| ")
            continue
        L.append(f"| {s['size_mb']:g} | {p['shingle_s']:.1f} | {p['sketch_s']:.1f} | {p['index_query_s']:.1f} | "
                 f"{p['stage']['wall']:.1f} | {p['stage']['tree_rss_mb']:.0f} | {p['recall']:.3f} "
                 f"({p['must_found']}/{p['must_find']}) | {p['returned_pairs']} |")
    pdf = res.get("pdf")
    L += ["", "## PDF extraction", ""]
    if pdf and "threads_1" in pdf:
        L += [f"{pdf['files']} generated PDFs (fpdf2, Helvetica, {pdf['pages']} pages in all, "
              f"{pdf['bytes'] / 1e6:.1f} MB) through `auditor.extract.extract_bytes` (pdfminer.six in a "
              "child process per thread): "
              f"{pdf['threads_1']['pages_per_s']:.1f} pages/s with 1 thread, "
              f"{pdf['threads_2']['pages_per_s']:.1f} pages/s with 2 ({pdf['speedup']:.2f}x).", ""]
    else:
        L += [f"Not measured: {(pdf or {}).get('skipped', 'skipped (--no-pdf)')}.", ""]
    L += ["## Scaling", "",
          "| size MB | ingest s | index s | floor s (1 / 2 proc) | audit job s | pipeline s | ingest RSS MB | audit RSS MB | index in memory MB | query s | peer s |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in res["sizes"]:
        st = s["stages"]
        p = s.get("peer") or {}
        L.append(f"| {s['size_mb']:g} | {st['ingest']['wall']:.1f} | {st['index']['wall']:.1f} | "
                 f"{st['floor1']['wall']:.1f} / {st['floor2']['wall']:.1f} | {st['audit']['wall']:.1f} | "
                 f"{s['pipeline']['wall']:.1f} | {st['ingest']['tree_rss_mb']:.0f} | {st['audit']['tree_rss_mb']:.0f} | "
                 f"{(s['audit']['index_nbytes'] or 0) / 2**20:.0f} | {s['query']['cli_wall']:.2f} | "
                 + (f"{p['stage']['wall']:.1f}" if "stage" in p else "-") + " |")
    if res.get("plot"):
        L += ["", f"![time and memory against corpus size]({Path(res['plot']).name})"]
    L += [""]
    for begin, end in ((CPU_BEGIN, CPU_END), (BOILERPLATE_BEGIN, BOILERPLATE_END)):
        if old and begin in old and end in old:
            L += [old[old.index(begin): old.index(end) + len(end)], ""]
    notes = None
    if old and NOTES_BEGIN in old and NOTES_END in old:
        notes = old[old.index(NOTES_BEGIN): old.index(NOTES_END) + len(NOTES_END)]
    L += [notes or f"{NOTES_BEGIN}\n{NOTES_END}", ""]
    return "\n".join(L)


def render_plot(res: dict, path: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    sizes = sorted(res["sizes"], key=lambda s: s["size_mb"])
    if len(sizes) < 2:
        return None
    x = [s["bytes"] / 1e6 for s in sizes]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    series = [("ingest", lambda s: s["stages"]["ingest"]["wall"]),
              ("index --rebuild", lambda s: s["stages"]["index"]["wall"]),
              ("floor (2 proc)", lambda s: s["stages"]["floor2"]["wall"]),
              ("audit job", lambda s: s["stages"]["audit"]["wall"]),
              ("pipeline", lambda s: s["pipeline"]["wall"]),
              ("peer (datasketch)", lambda s: (s.get("peer") or {}).get("stage", {}).get("wall"))]
    for label, fn in series:
        pts = [(xi, y) for xi, y in zip(x, map(fn, sizes), strict=True) if y is not None]
        if pts:
            ax1.plot(*zip(*pts, strict=True), marker="o", label=label)
    from matplotlib.ticker import FixedLocator, NullLocator

    def ticks(ax: Any) -> None:  # one labelled tick per measured size
        ax.xaxis.set_major_locator(FixedLocator(x))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([f"{v:.0f}" for v in x])

    ax1.set(xscale="log", yscale="log", xlabel="corpus MB", ylabel="wall s", title="time (medians)")
    ticks(ax1)
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=8)
    for label, fn in [("ingest (tree)", lambda s: s["stages"]["ingest"]["tree_rss_mb"]),
                      ("audit job", lambda s: s["stages"]["audit"]["tree_rss_mb"]),
                      ("index in memory", lambda s: (s["audit"]["index_nbytes"] or 0) / 2**20),
                      ("peer", lambda s: (s.get("peer") or {}).get("stage", {}).get("tree_rss_mb"))]:
        pts = [(xi, y) for xi, y in zip(x, map(fn, sizes), strict=True) if y is not None]
        if pts:
            ax2.plot(*zip(*pts, strict=True), marker="o", label=label)
    ax2.set(xscale="log", xlabel="corpus MB", ylabel="peak RSS MB (process tree)", title="memory")
    ticks(ax2)
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


# -- main ----------------------------------------------------------------------------------------

def parse_sizes(s: str) -> list[float]:
    return [float(x) for x in s.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].startswith("_"):  # a stage entry point, in its own process
        sp = argparse.ArgumentParser()
        sp.add_argument("stage")
        sp.add_argument("--db")
        sp.add_argument("--out")
        sp.add_argument("--file")
        sp.add_argument("--n", type=int, default=5)
        sp.add_argument("--files", type=int, default=16)
        sp.add_argument("--pages", type=int, default=8)
        a = sp.parse_args(argv)
        fn = {"_audit": lambda: stage_audit(a.db, a.out), "_query": lambda: stage_query(a.db, a.file, a.n),
              "_pdf": lambda: stage_pdf(a.files, a.pages)}[a.stage]
        print(json.dumps(fn(), sort_keys=True, default=str))
        return 0

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=parse_sizes, default=list(DEFAULT_SIZES),
                    help="corpus sizes in MB, comma-separated (default: 17.5,35,70,140,560)")
    ap.add_argument("--size-mb", type=float, help="one size only")
    ap.add_argument("--quick", action="store_true", help=f"the default size only ({DEFAULT_SIZE:g} MB)")
    ap.add_argument("--repeat", type=int, default=3, help=f"repeats of the timed stages up to {DEFAULT_SIZE:g} MB")
    ap.add_argument("--repeat-large", type=int, default=1, help=f"repeats above {DEFAULT_SIZE:g} MB")
    ap.add_argument("--queries", type=int, default=5, help="query runs per repeat")
    ap.add_argument("--cache", type=Path, default=HERE, help="where corpus-<size>/ directories are kept")
    ap.add_argument("--work", type=Path, default=HERE / "out", help="stores, reports and stage logs")
    ap.add_argument("--results", type=Path, help="results JSON (default: benchmarks/results.json, or WORK/results.json with --work)")
    ap.add_argument("--markdown", type=Path, help="RESULTS.md to write (default: benchmarks/RESULTS.md for the default series)")
    ap.add_argument("--plot", type=Path, help="plot PNG (default: next to the markdown, scaling.png)")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--no-peer", action="store_true", help="skip the datasketch peer")
    ap.add_argument("--peer-max-mb", type=float, default=max(DEFAULT_SIZES),
                    help="skip the peer above this size (its memory grows with the corpus; default %(default)g)")
    ap.add_argument("--no-pdf", action="store_true", help="skip PDF extraction speed")
    ap.add_argument("--pdf-files", type=int, default=24)
    ap.add_argument("--pdf-pages", type=int, default=8, help="approximate pages per PDF")
    ap.add_argument("--keep-db", action="store_true", help="keep each size's last store")
    ap.add_argument("--render", action="store_true", help="only re-render the markdown and plot from --results")
    args = ap.parse_args(argv)
    custom_work = args.work != HERE / "out"
    args.results = args.results or (args.work / "results.json" if custom_work else HERE / "results.json")
    if args.markdown is None and not custom_work:
        args.markdown = HERE / "RESULTS.md"
    if args.plot is None and args.markdown is not None:
        args.plot = args.markdown.parent / "scaling.png"

    if args.render:
        res = json.loads(args.results.read_text(encoding="utf-8"))
    else:
        sizes = [args.size_mb] if args.size_mb else [DEFAULT_SIZE] if args.quick else args.sizes
        t0 = time.perf_counter()
        args.work.mkdir(parents=True, exist_ok=True)
        args.cache.mkdir(parents=True, exist_ok=True)
        logroot = args.work / "logs"
        res = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
               "command": " ".join(["python", "benchmarks/run.py", *argv]), "machine": machine(),
               "source": source_state(),
               "targets": TARGETS, "sizes": []}
        if not args.no_pdf:
            st = measure("pdf", [PY, str(HERE / "run.py"), "_pdf", "--files", str(args.pdf_files),
                                 "--pages", str(args.pdf_pages)], logroot, parse_json=True)
            res["pdf"] = st.data
            if "speedup" in st.data:
                print(f"[pdf] {st.data['threads_1']['pages_per_s']:.1f} pages/s on 1 thread, "
                      f"{st.data['threads_2']['pages_per_s']:.1f} on 2", flush=True)
        for size in sorted(sizes):
            res["sizes"].append(bench_size(size, args, logroot))
            res["elapsed_s"] = time.perf_counter() - t0
            args.results.parent.mkdir(parents=True, exist_ok=True)
            args.results.write_text(json.dumps(res, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
        res["source_end"] = source_state()
    if args.plot and not args.no_plot:
        res["plot"] = render_plot(res, args.plot)
    if args.markdown:
        old = args.markdown.read_text(encoding="utf-8") if args.markdown.exists() else None
        args.markdown.write_text(render_markdown(res, old), encoding="utf-8")
    args.results.write_text(json.dumps(res, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    for r in headline(res):
        met = {True: "met", False: "MISSED", None: "-"}[r["met"]]
        print(f"{met:7s} {r['target']}: {r['measured']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
