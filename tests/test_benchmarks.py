"""The benchmark script, run at a tiny size as a smoke test (never timed here), and its accuracy
check against the corpus truth."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.run import CorpusMap, check_accuracy, report_pairs

ROOT = Path(__file__).resolve().parent.parent


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
    has_fpdf = importlib.util.find_spec("fpdf") is not None
    has_datasketch = importlib.util.find_spec("datasketch") is not None
    cmd = [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--size-mb", "0.3", "--repeat", "1",
           "--queries", "1", "--work", str(tmp_path / "work"), "--cache", str(tmp_path / "cache"),
           "--markdown", str(tmp_path / "RESULTS.md"), "--keep-db", "--pdf-files", "1", "--pdf-pages", "2"]
    if not has_fpdf:
        cmd.append("--no-pdf")
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
    if has_datasketch:
        assert 0 <= size["peer"]["recall"] <= 1 and size["peer"]["must_find"] == acc["must_find"]
    else:
        assert "skipped" in size["peer"]
    if has_fpdf:
        assert res["pdf"]["threads_1"]["pages"] >= 1
    md = (tmp_path / "RESULTS.md").read_text()
    assert "## Targets" in md and "every required finding found" in md

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
