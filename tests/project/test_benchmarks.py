"""The benchmark script, run at a tiny size as a smoke test (never timed here), and its accuracy
check against the corpus truth."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import run as run_mod
from benchmarks.run import CorpusMap, check_accuracy, report_pairs

ROOT = Path(__file__).resolve().parents[2]


def _truth() -> dict:
    return {
        "files": [{"path": "contracts/c1.txt", "kind": "contract"}, {"path": "contracts/c2.txt", "kind": "contract"},
                  {"path": "contracts/c3.txt", "kind": "contract"}, {"path": "filings/f1.txt", "kind": "filing"},
                  {"path": "filings/e1.txt", "kind": "filing"}],
        "placements": [
            {"contract": "contracts/c1.txt", "container": "filings/f1.txt", "sequence": None,
             "kind": "verbatim", "must_find": True, "containment": 1.0},
            {"contract": "contracts/c2.txt", "container": "filings/f1.txt", "sequence": None,
             "kind": "partial70", "must_find": False, "containment": 0.7},
            {"contract": "contracts/c3.txt", "container": "filings/e1.txt", "sequence": 2,
             "kind": "exhibit", "must_find": True, "containment": 1.0},
        ],
    }


def _map() -> CorpusMap:
    # c3 and the EDGAR exhibit e1.txt#2 are exact duplicates (group 3); e1.txt#3 and #4 are
    # certifications of two submissions.
    id_of = {"contracts/c1.txt": 1, "contracts/c2.txt": 2, "contracts/c3.txt": 3, "filings/f1.txt": 4,
             "filings/e1.txt#2": 5, "filings/e1.txt#3": 6, "filings/e2.txt#3": 7}
    return CorpusMap(id_of, {1: 1, 2: 2, 3: 3, 4: 4, 5: 3, 6: 6, 7: 7}, {5: "EX-10.1", 6: "EX-31.1", 7: "EX-31.1"})


def _key(p: dict) -> str:
    return p["container"] + (f"#{p['sequence']}" if p["sequence"] is not None else "")


def _finding(a: int, b: int, how: str = "finding") -> tuple[int, int, str]:
    return (a, b, how)


def test_accuracy_counts_found_missed_and_false() -> None:
    truth, cmap = _truth(), _map()
    ok = check_accuracy([_finding(1, 4)], truth, cmap)
    assert (ok["must_found"], ok["must_find"], ok["false_findings"]) == (2, 2, 0)  # c3 = its exhibit: a duplicate
    assert ok["by_kind"]["partial70"] == {"placements": 1, "found": 0, "must_find": False}

    missed = check_accuracy([], truth, cmap)
    assert missed["must_found"] == 1 and missed["n_missed"] == 1
    assert missed["missed"][0]["contract"] == "contracts/c1.txt"

    partial = check_accuracy([_finding(1, 4), _finding(2, 4)], truth, cmap)
    assert partial["false_findings"] == 1
    assert partial["verdicts"]["false: partial70 (finding)"] == 1
    assert partial["by_kind"]["partial70"]["found"] == 1

    unrelated = check_accuracy([_finding(1, 4), _finding(2, 1)], truth, cmap)
    assert unrelated["verdicts"]["false: unrelated (finding)"] == 1

    # The exhibit holding c3 found in f1 is not a placement; nor is it an error unless f1 holds c3.
    boiler = check_accuracy([_finding(1, 4), _finding(6, 7, "family"), _finding(7, 6, "family")], truth, cmap)
    assert boiler["false_findings"] == 0
    assert boiler["verdicts"]["other: boilerplate EX-31 (family)"] == 2


@pytest.mark.slow
def test_benchmark_script_smoke(tmp_path: Path) -> None:
    # The datasketch peer is the [bench] extra's, run by hand (benchmarks/RESULTS.md); fpdf2 is a
    # test dependency, so the PDF stage always runs.
    cmd = [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--size-mb", "0.3", "--repeat", "1",
           "--queries", "1", "--work", str(tmp_path / "work"), "--cache", str(tmp_path / "cache"),
           "--markdown", str(tmp_path / "RESULTS.md"), "--keep-db", "--pdf-files", "1", "--pdf-pages", "2", "--no-peer"]
    kept = f"{run_mod.BOILERPLATE_BEGIN}\n## Boilerplate-dense corpus\n{run_mod.BOILERPLATE_END}"
    (tmp_path / "RESULTS.md").write_text(f"# old\n\n{kept}\n")
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    res = json.loads((tmp_path / "work" / "results.json").read_text())
    (size,) = res["sizes"]
    for stage in ("ingest", "index", "floor1", "floor2", "controls", "audit"):
        assert size["stages"][stage]["wall"] > 0 and size["stages"][stage]["tree_rss_mb"] > 0
    assert size["floor"]["check"]["same"], "the floor must build exactly the store's index"
    assert size["audit"]["status"] == "OK"
    acc = size["accuracy"]
    assert acc["must_find"] > 0 and acc["recall"] == 1.0, acc["missed"]
    assert acc["false_findings"] == 0, acc["false_examples"]
    assert size["report_digests_identical"]
    assert size["peer"] is None
    assert res["pdf"]["threads_1"]["pages"] >= 1
    md = (tmp_path / "RESULTS.md").read_text()
    assert "## Targets" in md and "every required finding found" in md
    assert kept in md  # the boilerplate benchmark's section survives a re-render

    # The accuracy check on the real report notices a lost finding and a false one.
    corpus = Path(size["corpus"])
    truth = json.loads((corpus / "truth.json").read_text())
    pairs = report_pairs(tmp_path / "work" / "size-0.3" / "report")
    cmap = CorpusMap.from_store(tmp_path / "work" / "size-0.3" / "store.db", corpus)
    assert check_accuracy(pairs, truth, cmap)["must_found"] == acc["must_found"]
    verbatim = next(p for p in truth["placements"] if p["kind"] == "verbatim")
    c, f = cmap.group[cmap.id_of[verbatim["contract"]]], cmap.group[cmap.id_of[_key(verbatim)]]
    fewer = [x for x in pairs if (cmap.group[x[0]], cmap.group[x[1]]) != (c, f)]
    assert len(fewer) < len(pairs)
    assert check_accuracy(fewer, truth, cmap)["must_found"] < acc["must_found"]
    p70 = next(p for p in truth["placements"] if p["kind"] in ("partial70", "partial50"))
    more = [*copy.deepcopy(pairs), _finding(cmap.id_of[p70["contract"]], cmap.id_of[_key(p70)])]
    assert check_accuracy(more, truth, cmap)["false_findings"] == 1


# -- the boilerplate-dense corpus and its check against exact containment ------------------------

def _licence_source():
    """Licence-like texts written here: paragraphs of made-up words, a few with placeholders."""
    from benchmarks import boilerplate as bp
    from tests.support.textgen import prose

    licences = []
    for i in range(8):
        paras = [prose(1_000 + 10 * i + k, 30 + 12 * k) for k in range(4 + i % 3)]
        if i % 2:
            paras.insert(0, "Copyright (c) <year> <copyright holders>")
        text = "\n\n".join(p.strip() for p in paras)
        licences.append(bp.Text(f"lic-{i}", f"lic-{i}", text, bp.word_count(text)))
    notices = []
    for i in range(40):
        text = prose(5_000 + i, 20 + (i * 7) % 40).strip()
        notices.append(bp.Text(f"notice-{i}", f"lic-{i % 8}", text, bp.word_count(text)))
    return bp.Source("test fixture", licences, notices)


def _tree(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_boilerplate_generator_is_deterministic(tmp_path: Path) -> None:
    from benchmarks import boilerplate as bp

    src = _licence_source()
    a = bp.generate(tmp_path / "a", src, docs=200, seed=3)
    b = bp.generate(tmp_path / "b", src, docs=200, seed=3)
    c = bp.generate(tmp_path / "c", src, docs=200, seed=4)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b") and a == b
    assert _tree(tmp_path / "a") != _tree(tmp_path / "c") and c != a
    s = a["summary"]
    assert s["files"] == len(_tree(tmp_path / "a"))
    assert set(s["by_kind"]) == {"notice", "licence", "variant", "package", "filing"}
    assert s["placements"] > 0 and s["partial_placements"] > 0 and min(s["family_sizes"]) >= 3
    assert s["certifications"] == 2 * s["filings"]


def test_boilerplate_from_a_directory_of_licences(tmp_path: Path) -> None:
    from benchmarks import boilerplate as bp
    from tests.support.realtext import licence_files

    (tmp_path / "licences").mkdir()
    for i, text in enumerate(licence_files().values()):
        (tmp_path / "licences" / f"{i:03d}.txt").write_text(text)
    (tmp_path / "licences" / "copy.txt").write_text(next(iter(licence_files().values())))
    src = bp.directory_source(tmp_path / "licences")
    assert src.licences and src.notices
    assert "copy.txt" not in {t.key for t in src.licences}  # the same bytes are read once
    t = bp.generate(tmp_path / "c", src, docs=150, seed=1)
    assert t["summary"]["notices"] > 0 and t["families"]


def _all_pairs(db: Path, threshold: float = 0.8) -> dict[tuple[int, int], float]:
    """Exact containment of every audited pair, computed pair by pair with the library's
    ``shingle_text`` (independently of the checker's inverted index)."""
    from auditor.store.db import Store
    from auditor.text.shingle import Params, shingle_text

    with Store(db, create=False, readonly=True) as store:
        params = Params(**json.loads(store.scalar("SELECT value FROM meta WHERE key = 'index_params'")))
        ids = [int(r[0]) for r in store.conn.execute(
            "SELECT id FROM documents WHERE duplicate_of IS NULL AND n_words > 0")]
        sets = {i: set(shingle_text(t, params, keep_all=True).all.tolist()) for i, t in store.texts_of(ids)}
    out = {}
    for a, sa in sets.items():
        for b, sb in sets.items():
            if a != b and sa:
                out[(a, b)] = len(sa & sb) / len(sa)
    return out


def _write_pairs(d: Path, pairs: dict[tuple[int, int], float]) -> None:
    import gzip

    d.mkdir(parents=True, exist_ok=True)
    with gzip.open(d / "findings.jsonl.gz", "wt", encoding="utf-8") as f:
        for (a, b), c in sorted(pairs.items()):
            f.write(json.dumps({"contained": a, "container": b, "containment": c, "estimate": c,
                                "interval": [c, c], "hits": 1, "sampled": 1}) + "\n")


@pytest.mark.slow
def test_boilerplate_accuracy_check_end_to_end(tmp_path: Path) -> None:
    from benchmarks import boilerplate as bp

    # The benchmark's run: generate, ingest and audit job as timed processes, accuracy, RESULTS.md section.
    work = tmp_path / "work"
    args = bp.parser().parse_args(["run", "--docs", "300", "--seed", "2", "--repeat", "1", "--keep-db",
                                   "--work", str(work), "--cache", str(tmp_path / "cache")])
    res = bp.bench(args, source=_licence_source())
    corpus, db, report = Path(res["corpus"]["path"]), work / "store.db", work / "report"
    truth = json.loads((corpus / "truth.json").read_text())
    assert res["stages"]["ingest"]["wall"] > 0 and res["stages"]["audit"]["tree_rss_mb"] > 0
    assert not res["audit_timed_out"] and {"report.json", "report.md", "report.html"} <= set(res["report_files"])
    assert res["store"]["audited"] == res["accuracy"]["audited_documents"] > 250
    assert res["store"]["full_postings_per_shingle"]["max"] >= max(truth["summary"]["family_sizes"])
    md = tmp_path / "RESULTS.md"
    md.write_text(f"# Benchmark results\n\n{run_mod.NOTES_BEGIN}\nkept\n{run_mod.NOTES_END}\n")
    bp.write_section(md, res)
    bp.write_section(md, res)  # replaced, not added twice
    text = md.read_text()
    assert text.count("## Boilerplate-dense corpus") == 1 and text.index(run_mod.BOILERPLATE_END) < text.index("kept")
    assert f"recall {res['accuracy']['recall']:.4f}" in text

    # The generator's placements, seen in the stored texts: whole ones contain the notice, truncated ones do not.
    exact = _all_pairs(db)
    idx = bp.ExactIndex.build(db)
    id_of = {p.split(str(corpus) + "/", 1)[-1]: int(i) for p, i in zip(idx.paths, idx.ids.tolist(), strict=True)}
    whole = partial = 0
    for c in truth["containers"]:
        for n in c["notices"]:
            assert exact[(id_of[f"notices/n{n:05d}.txt"], id_of[c["path"]])] == 1.0
            whole += 1
        for n, _ in c["partial"]:
            assert exact[(id_of[f"notices/n{n:05d}.txt"], id_of[c["path"]])] < 0.8
            partial += 1
    assert whole and partial

    # The real report: every pair it names is verified, its values are exact.
    real = bp.check_accuracy(db, report, sample=300, seed=1, index=idx)
    assert real["audited_documents"] == len({a for a, _ in exact}) and real["sample"] == real["audited_documents"]
    assert real["reported_pairs_in_sample"] > 0 and real["value_mismatches"] == 0
    assert real["false_by_source"].get("finding", 0) == 0 and real["false_by_source"].get("pair", 0) == 0

    # A known answer: every true pair, as a report-2 findings.jsonl.gz -> perfect recall, nothing false.
    true = {p: c for p, c in exact.items() if c >= 0.8}
    known = tmp_path / "known"
    _write_pairs(known, true)
    ok = bp.check_accuracy(db, known, sample=300, index=idx)
    assert ok["format"] == "findings.jsonl.gz"
    assert (ok["true_pairs"], ok["found"], ok["recall"], ok["false_findings"]) == (len(true), len(true), 1.0, 0)
    assert ok["value_mismatches"] == 0 and ok["contained_in_sample"]["recall"] == 1.0

    # One true pair lost, one pair below the threshold planted, one value misreported.
    lost = min(true)
    wrong = min(p for p, c in exact.items() if 0 < c < 0.8)
    bad = sorted(true)[len(true) // 2]
    planted = {p: c for p, c in true.items() if p != lost} | {wrong: exact[wrong], bad: 0.5}
    _write_pairs(tmp_path / "planted", planted)
    res = bp.check_accuracy(db, tmp_path / "planted", sample=300, index=idx)
    assert res["missed"] == 1 and res["found"] == len(true) - 1 and res["recall"] < 1.0
    assert (res["missed_examples"][0]["contained"], res["missed_examples"][0]["container"]) == lost
    assert res["false_findings"] == 1
    assert (res["false_examples"][0]["contained"], res["false_examples"][0]["container"]) == wrong
    assert res["value_mismatches"] == 1

    # The report-1 fallback: findings, near-duplicate clusters and duplicate groups as pairs.
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    a, b = lost
    x = next(d for d in id_of.values() if d not in (a, b) and exact[(a, d)] < 0.8)
    (legacy / "report.json").write_text(json.dumps({
        "format": "containment-auditor-report/1",
        "findings": [{"contained": {"doc_id": p[0]}, "container": {"doc_id": p[1]}, "containment": c}
                     for p, c in true.items() if lost[0] not in p],
        "near_duplicate_clusters": [{"members": [{"doc_id": a}, {"doc_id": b}, {"doc_id": x}]}],
        "duplicate_groups": []}))
    old = bp.check_accuracy(db, legacy, sample=300, index=idx)
    assert old["format"].startswith("report.json")
    assert old["found"] == sum(1 for p in true if lost[0] not in p or set(p) <= {a, b, x})
    assert old["false_by_source"].get("cluster", 0) >= 1 and old["false_by_source"].get("finding", 0) == 0


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_measure_timeout_kills_the_process_tree(tmp_path: Path) -> None:
    import os
    import time

    pidfile = tmp_path / "grandchild"
    code = ("import subprocess, sys, time\n"
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
            f"open({str(pidfile)!r}, 'w').write(str(c.pid))\n"
            "time.sleep(300)\n")
    st = run_mod.measure("sleeper", [sys.executable, "-c", code], tmp_path / "logs", check=False, timeout=5)
    assert st.timed_out and st.rc != 0 and st.as_dict()["timed_out"]
    pid = int(pidfile.read_text())

    def alive() -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    for _ in range(100):
        if not alive():
            break
        time.sleep(0.1)
    assert not alive(), "the stage's child process outlived the timeout"
    with pytest.raises(RuntimeError, match="timed out"):
        run_mod.measure("sleeper2", [sys.executable, "-c", "import time; time.sleep(300)"], tmp_path / "logs", timeout=1)
    quick = run_mod.measure("quick", [sys.executable, "-c", "print(1)"], tmp_path / "logs", timeout=300)
    assert not quick.timed_out and quick.rc == 0 and quick.stdout.strip() == "1"
    assert os.path.exists(tmp_path / "logs" / "quick.out")


def test_every_benchmark_script_imports():
    """A benchmark is run by hand, rarely: a rename in the package must not leave one broken
    on import until the day someone needs its figure."""
    scripts = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem != "__init__")
    code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module('benchmarks.' + m)\n"
    r = subprocess.run([sys.executable, "-c", code, *scripts], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "render_agreement" in scripts and len(scripts) > 20
