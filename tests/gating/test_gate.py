"""`auditor gate` end to end, through real subprocesses, on small generated corpora.

One corpus (module scope): an EDGAR 10-K submission whose annual report embeds contract A and
files it again as EX-10.1, contracts B and C, and a filing F. Every gate runs with ``--dry-run``
against it (so the tests share it safely), except the ones that check the store does change.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.errors import UsageError
from auditor.gating import (
    KINDS,
    RULE_IDS,
    Finding,
    classify_pair,
    dump_baseline,
    escape_data,
    escape_property,
    fit_summary,
    load_baseline,
    merge_baseline,
    parse_fail_on,
)
from auditor.gating.formats.annotations import _capped
from auditor.store.db import Store
from tests.support import synth
from tests.support.fixtures_build import make_edgar_submission, make_pdf
from tests.support.formats import validate_junit, validate_sarif

ROOT = Path(__file__).resolve().parents[2]
ACCESSION = "0000950123-24-000001"
HEADER = {"accession_number": ACCESSION, "form_type": "10-K", "filing_date": "20240301",
          "company_name": "ACME CORP", "cik": "0000123456"}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def docs():
    a, b, c = (synth.contract(s, 12_000) for s in (11, 12, 13))
    return {"A": a, "B": b, "C": c, "D": synth.contract(14, 12_000), "E": synth.contract(15, 12_000),
            "H": synth.contract(16, 12_000)}


@pytest.fixture(scope="module")
def root(tmp_path_factory, docs):
    """The working directory of every gate run, holding corpus/ and corpus.db."""
    root = tmp_path_factory.mktemp("gate")
    corpus = root / "corpus"
    corpus.mkdir()
    ten_k, _ = synth.filing(21, 50_000, exhibits=[docs["A"]])
    (corpus / "acme-10k.txt").write_bytes(make_edgar_submission(HEADER, [
        {"type": "10-K", "filename": "acme-10k.txt", "description": "ANNUAL REPORT", "text": ten_k},
        {"type": "EX-10.1", "filename": "ex10-1.txt", "description": "SUPPLY AGREEMENT", "text": docs["A"]},
    ]))
    (corpus / "b.txt").write_text(docs["B"])
    (corpus / "c.txt").write_text(docs["C"])
    (corpus / "f.txt").write_text(synth.filing(22, 40_000)[0])
    cwd = Path.cwd()
    os.chdir(root)  # store relative paths, as a CI checkout would
    try:
        with Store(root / "corpus.db") as store:
            r = ingest(store, [Path("corpus")], batch="corpus", source="test", workers=1)
            assert r.counts["ok"] == 4 and not r.problems
    finally:
        os.chdir(cwd)
    return root


def gate(root: Path, *args: str, env: dict | None = None, db: str = "corpus.db") -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "AUDITOR_DB",
                                                              "AUDITOR_CONTROLS")}
    base.update({"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"}, **(env or {}))
    return subprocess.run([sys.executable, "-m", "auditor", "gate", "--db", db, *args], cwd=root, env=base,
                          capture_output=True, text=True, timeout=120)


def batch(root: Path, name: str, files: dict[str, str | bytes]) -> str:
    d = root / name
    d.mkdir()
    for fname, content in files.items():
        (d / fname).write_bytes(content if isinstance(content, bytes) else content.encode())
    return name


def main_store(where: Path, files: dict[str, str]) -> None:
    """``where/documents/`` with ``files``, ingested into ``where/main.db`` with relative paths."""
    (where / "documents").mkdir()
    for name, text in files.items():
        (where / "documents" / name).write_text(text)
    cwd = Path.cwd()
    os.chdir(where)
    try:
        with Store(where / "main.db") as store:
            ingest(store, [Path("documents")], batch="main", workers=1)
    finally:
        os.chdir(cwd)


def junit(path: Path) -> ET.Element:
    validate_junit(path.read_bytes())
    suites = ET.parse(path).getroot()
    assert suites.tag == "testsuites"
    (suite,) = suites.findall("testsuite")
    cases = suite.findall("testcase")
    n = {tag: sum(1 for c in cases if c.find(tag) is not None) for tag in ("failure", "error", "skipped")}
    for el in (suites, suite):
        assert int(el.get("tests")) == len(cases)
        assert int(el.get("failures")) == n["failure"]
        assert int(el.get("errors")) == n["error"]
    assert int(suite.get("skipped")) == n["skipped"]
    return suite


def check_sarif(path: Path) -> dict:
    log = json.loads(path.read_text())
    validate_sarif(log)
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "containment-auditor" and driver["version"]
    assert [r["id"] for r in driver["rules"]] == ["CONTAIN001", "CONTAIN002", "CONTAIN003", "CONTAIN004", "CONTAIN005",
                                                  "CONTAIN006", "CONTAIN007", "CONTAIN008"]
    assert all(r["shortDescription"]["text"] for r in driver["rules"])
    for res in run["results"]:
        assert res["ruleId"] in {r["id"] for r in driver["rules"]}
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
        assert res["message"]["text"]
        (loc,) = res["locations"]
        uri = loc["physicalLocation"]["artifactLocation"]["uri"]
        assert uri and not uri.startswith("/") and "\\" not in uri
        assert loc["physicalLocation"]["region"]["startLine"] >= 1
        fp = res["partialFingerprints"]["containmentPair/v1"]
        assert len(fp) == 64 and int(fp, 16) >= 0
    return run


def gate_json(out: Path) -> dict:
    return json.loads((out / "gate.json").read_text())


# -- end to end -------------------------------------------------------------------------------

def test_an_exhibit_already_in_the_corpus_fails_naming_both_documents(root, docs):
    b = batch(root, "pr-exhibit", {"supply-agreement.txt": synth.reformat(docs["A"], 3),
                                   "clean.txt": docs["D"],
                                   "new-filing.txt": synth.filing(23, 60_000, exhibits=[docs["B"]])[0]})
    r = gate(root, "--dry-run", "--out", "out-exhibit", "--junit", "out-exhibit/junit.xml",
             "--sarif", "out-exhibit/gate.sarif", "--summary", "out-exhibit/summary.md", b)
    assert r.returncode == 1, r.stderr
    new_sha = sha256(root / b / "supply-agreement.txt")
    g = gate_json(root / "out-exhibit")
    assert g["status"] == "FAILED" and g["exit_code"] == 1
    # one finding per new document and kind: the best container (the exhibit, smaller than the
    # 10-K that also holds it), and the other counted and named; the exhibit's containing the
    # copy says the same thing again (they contain each other), so it is not another finding
    kinds = {(f["kind"], f["other"]["path"]) for f in g["findings"]}
    assert kinds == {("new-in-corpus", "corpus/acme-10k.txt#2"), ("corpus-in-new", "corpus/b.txt")}
    embeds = next(f for f in g["findings"] if f["kind"] == "corpus-in-new")
    assert embeds["new"]["path"] == f"{b}/new-filing.txt" and not embeds["new_is_contained"]
    assert embeds["containment"] == 1.0 and embeds["spans"] and embeds["also"] == 0
    ex = next(f for f in g["findings"] if f["other"]["path"] == "corpus/acme-10k.txt#2" and f["kind"] == "new-in-corpus")
    assert ex["also"] == 1 and ex["also_named"] == ["corpus/acme-10k.txt#1"] and "in 1 more document" in ex["message"]
    assert ex["new"]["path"] == f"{b}/supply-agreement.txt" and ex["new"]["sha256"] == new_sha
    assert ex["other"]["edgar"]["submission"]["accession_number"] == ACCESSION
    assert ex["other"]["edgar"]["part"]["type"] == "EX-10.1"
    assert ex["containment"] >= 0.95 and ex["level"] == "error"
    # stdout names both documents: path, full sha256, EDGAR accession and part type
    corpus_sha = ex["other"]["sha256"]
    assert f"{b}/supply-agreement.txt (sha256 {new_sha})" in r.stdout
    assert f"corpus/acme-10k.txt#2 (sha256 {corpus_sha}; EDGAR {ACCESSION} (10-K, ACME CORP" in r.stdout
    assert "EX-10.1 ex10-1.txt" in r.stdout
    assert "gate FAILED" in r.stdout and "out-exhibit/report.html" in r.stderr
    # the same report as `auditor audit`, scoped to the batch
    report = json.loads((root / "out-exhibit" / "report.json").read_text())
    assert report["status"] == "OK" and report["scope"]["kind"] == "batch"
    assert report["scope"]["batch"] == g["batch"] and len(report["scope"]["documents"]) == 3
    assert (root / "out-exhibit" / "report.html").exists() and (root / "out-exhibit" / "report.md").exists()
    # JUnit: one testcase per new document, the failure names both with provenance
    suite = junit(root / "out-exhibit" / "junit.xml")
    docs_cases = {c.get("name"): c for c in suite.findall("testcase") if c.get("classname") == g["batch"]}
    assert set(docs_cases) == {f"{b}/clean.txt", f"{b}/supply-agreement.txt", f"{b}/new-filing.txt"}
    failure = docs_cases[f"{b}/supply-agreement.txt"].find("failure")
    assert failure.get("type") == "CONTAIN001 new-in-corpus"
    assert new_sha in failure.text and corpus_sha in failure.text and ACCESSION in failure.text
    assert "also contained in 1 more: corpus/acme-10k.txt#1" in failure.text
    assert docs_cases[f"{b}/new-filing.txt"].find("failure").get("type") == "CONTAIN002 corpus-in-new"
    assert docs_cases[f"{b}/clean.txt"].find("failure") is None
    assert int(suite.get("failures")) == 2 and int(suite.get("errors")) == 0
    assert sum(1 for c in suite.findall("testcase") if c.get("classname") == "controls") == len(g["controls"]) >= 5
    # SARIF: one result on each failing new file
    run = check_sarif(root / "out-exhibit" / "gate.sarif")
    assert sorted(res["ruleId"] for res in run["results"]) == ["CONTAIN001", "CONTAIN002"]
    assert {res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for res in run["results"]} == {
        f"{b}/supply-agreement.txt", f"{b}/new-filing.txt"}
    fps = [res["partialFingerprints"]["containmentPair/v1"] for res in run["results"]]
    assert len(set(fps)) == 2
    assert run["invocations"][0]["executionSuccessful"] is True
    summary = (root / "out-exhibit" / "summary.md").read_text()
    assert "Containment gate: ❌ failed" in summary and "Failing findings" in summary and ACCESSION in summary


def test_a_clean_batch_passes(root, docs):
    b = batch(root, "pr-clean", {"new-contract.txt": docs["E"]})
    r = gate(root, "--dry-run", "--out", "out-clean", "--junit", "out-clean/junit.xml", "--sarif", "out-clean/g.sarif", b)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gate PASSED" in r.stdout
    suite = junit(root / "out-clean" / "junit.xml")
    assert int(suite.get("failures")) == 0 and int(suite.get("errors")) == 0
    assert check_sarif(root / "out-clean" / "g.sarif")["results"] == []
    assert gate_json(root / "out-clean")["counts"]["new_documents"] == 1


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_a_corrupt_pdf_is_reported_and_the_rest_still_gated(root, docs):
    b = batch(root, "pr-corrupt", {"scan.pdf": b"%PDF-1.4\n1 0 obj << /Type /Catalog\ngarbage\n%%EOF\n",
                                   "copy.txt": synth.reformat(docs["A"], 4), "fine.txt": docs["H"]})
    r = gate(root, "--dry-run", "--out", "out-corrupt", "--junit", "out-corrupt/junit.xml",
             "--sarif", "out-corrupt/g.sarif", b)
    assert r.returncode == 1, r.stderr
    g = gate_json(root / "out-corrupt")
    errors = [f for f in g["findings"] if f["kind"] == "ingest-error"]
    assert [(f["new"]["path"], f["new"]["code"]) for f in errors] == [(f"{b}/scan.pdf", "pdf_error")]
    assert {f["kind"] for f in g["findings"]} == {"ingest-error", "new-in-corpus"}
    assert f"{b}/scan.pdf" in r.stdout and "pdf_error" in r.stdout
    suite = junit(root / "out-corrupt" / "junit.xml")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases[f"{b}/scan.pdf"].find("error").get("type") == "CONTAIN005 ingest-error"
    assert cases[f"{b}/copy.txt"].find("failure") is not None
    assert len(cases[f"{b}/fine.txt"]) == 0  # passed
    run = check_sarif(root / "out-corrupt" / "g.sarif")
    bad = [res for res in run["results"] if res["ruleId"] == "CONTAIN005"]
    assert bad[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == f"{b}/scan.pdf"

    # ingest errors out of --fail-on: reported as a warning, and a clean rest passes
    b2 = batch(root, "pr-corrupt2", {"scan.pdf": b"%PDF-1.4\ngarbage", "fine.txt": docs["H"]})
    r = gate(root, "--dry-run", "--out", "out-corrupt2", "--junit", "out-corrupt2/junit.xml",
             "--fail-on", "new-in-corpus,corpus-in-new,exact-duplicate,within-batch", b2)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "WARN ingest-error" in r.stdout
    suite = junit(root / "out-corrupt2" / "junit.xml")
    assert int(suite.get("errors")) == 0 and int(suite.get("skipped")) == 1


@pytest.mark.slow
def test_nothing_ingested_or_no_store_is_exit_2(root):
    b = batch(root, "pr-allbad", {"scan.pdf": b"%PDF-1.4\ngarbage"})
    r = gate(root, "--dry-run", "--out", "out-allbad", "--junit", "out-allbad/junit.xml", b)
    assert r.returncode == 2
    assert "no input could be ingested" in r.stderr
    suite = junit(root / "out-allbad" / "junit.xml")
    assert int(suite.get("errors")) == 2  # the PDF and the batch
    r = gate(root, "--dry-run", b, db="missing.db")
    assert r.returncode == 2 and "no store at" in r.stderr
    assert not (root / "missing.db").exists()
    r = gate(root, "--dry-run", "--fail-on", "everything", b)
    assert r.returncode == 2 and "unknown kind" in r.stderr


@pytest.mark.slow
def test_failed_controls_exit_2_whatever_the_findings(root, docs):
    controls = root / "broken-controls"
    shutil.copytree(ROOT / "controls", controls)
    manifest = json.loads((controls / "manifest.json").read_text())
    for c in manifest["controls"]:
        if c["name"] == "unrelated-credit":  # claim an unrelated pair is embedded: a real failure
            c["kind"], c["min"] = "embedded", 0.95
            c.pop("max", None)
    (controls / "manifest.json").write_text(json.dumps(manifest))
    b = batch(root, "pr-controls", {"supply-agreement.txt": synth.reformat(docs["A"], 5)})
    r = gate(root, "--dry-run", "--controls-dir", "broken-controls", "--out", "out-controls",
             "--junit", "out-controls/junit.xml", "--sarif", "out-controls/g.sarif", "--summary", "out-controls/s.md", b)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "controls failed" in r.stderr and "unrelated-credit" in r.stderr
    g = gate_json(root / "out-controls")
    assert g["status"] == "REFUSED" and g["findings"] == []
    assert json.loads((root / "out-controls" / "report.json").read_text())["status"] == "REFUSED"
    suite = junit(root / "out-controls" / "junit.xml")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["control unrelated-credit"].find("error") is not None
    assert cases[f"{b}/supply-agreement.txt"].find("skipped") is not None
    run = check_sarif(root / "out-controls" / "g.sarif")
    assert run["results"] == [] and run["invocations"][0]["executionSuccessful"] is False
    assert "refused" in (root / "out-controls" / "s.md").read_text()


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_baseline_accepts_known_findings_and_new_ones_still_fail(root, docs):
    copy = synth.reformat(docs["A"], 6)
    b = batch(root, "pr-base1", {"supply.txt": copy})
    bl = root / "baseline.json"
    r = gate(root, "--dry-run", "--out", "out-base1", "--baseline", "baseline.json", "--update-baseline",
             "--reason", "the supply agreement is refiled on purpose", b)
    assert r.returncode == 0, r.stdout + r.stderr
    entries = json.loads(bl.read_text())["entries"]
    assert len(entries) == 1 and {e["reason"] for e in entries} == {"the supply agreement is refiled on purpose"}
    assert {e["rule"] for e in entries} == {"CONTAIN001"}
    assert all(e["contained_path"] and e["container_path"] for e in entries)
    before = bl.read_bytes()

    # same content at another path, plus a byte copy of a corpus contract: only the copy fails
    b2 = batch(root, "pr-base2", {"renamed.txt": copy, "b-again.txt": docs["B"]})
    r = gate(root, "--dry-run", "--out", "out-base2", "--baseline", "baseline.json",
             "--junit", "out-base2/junit.xml", "--sarif", "out-base2/g.sarif", b2)
    assert r.returncode == 1, r.stdout + r.stderr
    g = gate_json(root / "out-base2")
    levels = sorted((f["kind"], f["level"]) for f in g["findings"])
    assert levels == [("exact-duplicate", "error"), ("new-in-corpus", "baselined")]
    dup = next(f for f in g["findings"] if f["kind"] == "exact-duplicate")
    assert dup["match"] == "identical bytes" and dup["other"]["path"] == "corpus/b.txt"
    assert "BASELINED new-in-corpus" in r.stdout and "FAIL exact-duplicate" in r.stdout
    suite = junit(root / "out-base2" / "junit.xml")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases[f"{b2}/renamed.txt"].find("failure") is None
    assert "baselined" in cases[f"{b2}/renamed.txt"].find("system-out").text
    assert cases[f"{b2}/b-again.txt"].find("failure").get("type") == "CONTAIN003 exact-duplicate"
    run = check_sarif(root / "out-base2" / "g.sarif")
    suppressed = [res for res in run["results"] if "suppressions" in res]
    assert len(suppressed) == 1 and all(res["level"] == "note" for res in suppressed)
    assert suppressed[0]["suppressions"][0]["justification"] == "the supply agreement is refiled on purpose"

    # updating again with nothing new leaves the file byte-identical (no churn)
    r = gate(root, "--dry-run", "--out", "out-base3", "--baseline", "baseline.json", "--update-baseline", b)
    assert r.returncode == 0 and bl.read_bytes() == before

    # a stale entry (documents no longer stored) is a warning; an entry without a reason is an error
    data = json.loads(before)
    data["entries"].append({"rule": "CONTAIN001", "contained_sha256": "ab" * 32, "container_sha256": "cd" * 32,
                            "contained_path": "gone.txt", "container_path": "old.txt", "reason": "old"})
    (root / "stale.json").write_text(json.dumps(data))
    r = gate(root, "--dry-run", "--out", "out-base4", "--baseline", "stale.json", "--summary", "out-base4/s.md", b)
    assert r.returncode == 0, r.stdout + r.stderr
    assert [e["contained_path"] for e in gate_json(root / "out-base4")["stale_baseline_entries"]] == ["gone.txt"]
    assert "Stale baseline entries" in (root / "out-base4" / "s.md").read_text()
    assert "STALE baseline entry CONTAIN001 gone.txt" in r.stdout
    data["entries"][-1]["reason"] = " "
    (root / "noreason.json").write_text(json.dumps(data))
    r = gate(root, "--dry-run", "--baseline", "noreason.json", b)
    assert r.returncode == 2 and "non-empty" in r.stderr


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_dry_run_leaves_the_store_unchanged_and_a_real_run_admits_the_batch(root, docs):
    db = root / "corpus.db"
    digest = sha256(db)
    with Store(db, create=False) as s:
        n = s.scalar("SELECT count(*) FROM documents")
    b = batch(root, "pr-admit", {"new.txt": synth.contract(31, 12_000), "copy.txt": synth.reformat(docs["C"], 2)})
    r = gate(root, "--dry-run", "--out", "out-dry", b)
    assert r.returncode == 1, r.stdout + r.stderr
    assert sha256(db) == digest
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    with Store(db, create=False) as s:
        assert s.scalar("SELECT count(*) FROM documents") == n

    real = root / "admit.db"
    src = sqlite3.connect(db)
    dst = sqlite3.connect(real)
    src.backup(dst)
    dst.close()
    src.close()
    r = gate(root, "--out", "out-real", b, db="admit.db")
    assert r.returncode == 1, r.stdout + r.stderr
    assert gate_json(root / "out-real")["admitted"] is False
    with Store(real, create=False) as s:  # a batch that fails is not admitted: only its run is recorded
        assert s.scalar("SELECT count(*) FROM documents") == n
        assert s.conn.execute("SELECT kind, verdict FROM runs ORDER BY id DESC LIMIT 1").fetchone() == ("gate", "FAILED")
        assert not s.scalar("SELECT count(*) FROM batches WHERE name = 'pr-admit'")
    # a re-run of the same batch is gated again (its documents are still new to the corpus)
    r = gate(root, "--out", "out-real2", b, db="admit.db")
    assert r.returncode == 1, r.stdout + r.stderr
    assert gate_json(root / "out-real2")["counts"]["new_documents"] == 2
    # a batch that passes is admitted: its documents are corpus for every later gate
    ok = batch(root, "pr-ok", {"fresh.txt": synth.contract(32, 12_000)})
    r = gate(root, "--out", "out-ok", ok, db="admit.db")
    assert r.returncode == 0, r.stdout + r.stderr
    assert gate_json(root / "out-ok")["admitted"] is True
    with Store(real, create=False) as s:
        assert s.scalar("SELECT count(*) FROM documents") == n + 1
        assert s.scalar("SELECT status FROM batches ORDER BY id DESC LIMIT 1") == "gate-passed"
        assert s.conn.execute("SELECT kind, verdict FROM runs ORDER BY id DESC LIMIT 1").fetchone() == ("gate", "PASSED")
    # ...but gating the corpus directory itself finds nothing new
    r = gate(root, "--dry-run", "--out", "out-known", "corpus")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing new" in r.stdout


@pytest.mark.slow
def test_github_annotations_are_escaped_and_the_step_summary_is_appended(root, docs):
    name = "copy, 50%: final.txt"
    b = batch(root, "pr-gh", {name: synth.reformat(docs["A"], 7)})
    step = root / "step-summary.md"
    step.write_text("earlier step output\n")
    r = gate(root, "--dry-run", "--out", "out-gh", b,
             env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(step)})
    assert r.returncode == 1, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("::")]
    assert len(lines) == 1 and all(ln.startswith("::error file=") for ln in lines)
    assert lines[0].startswith(f"::error file={b}/copy%2C 50%25%3A final.txt,line=1,endLine=")
    assert ",title=CONTAIN001 new-in-corpus::" in lines[0]
    message = lines[0].split("::", 2)[2]
    assert f"{b}/copy, 50%25: final.txt (sha256 " in message and ACCESSION in message
    text = step.read_text()
    assert text.startswith("earlier step output\n## Containment gate: ❌ failed")
    assert "copy, 50%: final.txt" in text


@pytest.mark.slow
def test_kinds_within_batch_exact_duplicate_corpus_in_new_and_edgar_parts(root, docs):
    h_copy = synth.reformat(docs["H"], 8)
    new_10k, _ = synth.filing(41, 40_000, exhibits=[synth.reformat(docs["B"], 9)])
    sub = make_edgar_submission({**HEADER, "accession_number": "0000950123-25-000077", "form_type": "10-Q"}, [
        {"type": "10-Q", "filename": "q.txt", "text": synth.filing(42, 40_000)[0]},
        {"type": "EX-10.2", "filename": "ex10-2.txt", "description": "SERVICES AGREEMENT",
         "text": synth.reformat(docs["C"], 10).encode()},
    ])
    lines = synth.rewrap(docs["D"], 90).split("\n")
    pdf = make_pdf(["\n".join(lines[i:i + 45]) for i in range(0, len(lines), 45)])
    b = batch(root, "pr-kinds", {"h.txt": docs["H"], "h-retyped.txt": h_copy, "annual.txt": new_10k,
                                 "c-copy.txt": docs["C"].replace("\n", "\r\n"), "q.txt": sub, "d.pdf": pdf,
                                 "d-again.pdf": pdf})
    r = gate(root, "--dry-run", "--out", "out-kinds", "--fail-on", "within-batch", "--sarif", "out-kinds/g.sarif",
             "--junit", "out-kinds/junit.xml", b)
    assert r.returncode == 1, r.stdout + r.stderr
    g = gate_json(root / "out-kinds")
    got = {(f["kind"], f["new"]["path"], f["other"]["path"], f["level"]) for f in g["findings"]}
    assert ("within-batch", f"{b}/h.txt", f"{b}/h-retyped.txt", "error") in got
    assert ("within-batch", f"{b}/d.pdf", f"{b}/d-again.pdf", "error") in got or \
           ("within-batch", f"{b}/d-again.pdf", f"{b}/d.pdf", "error") in got
    assert ("corpus-in-new", f"{b}/annual.txt", "corpus/b.txt", "warning") in got
    assert ("exact-duplicate", f"{b}/c-copy.txt", "corpus/c.txt", "warning") in got
    assert ("new-in-corpus", f"{b}/q.txt#2", "corpus/c.txt", "warning") in got
    assert ("within-batch", f"{b}/c-copy.txt", f"{b}/q.txt#2", "error") in got
    assert not [f for f in g["findings"] if f["kind"] == "exact-duplicate" and f["new"]["path"].endswith(".pdf")]
    dup = next(f for f in g["findings"] if f["kind"] == "exact-duplicate")
    assert dup["match"] == "identical normalised text"
    part = next(f for f in g["findings"] if f["new"]["path"] == f"{b}/q.txt#2" and f["kind"] == "new-in-corpus")
    assert part["new"]["edgar"]["submission"]["accession_number"] == "0000950123-25-000077"
    assert part["new"]["edgar"]["part"]["type"] == "EX-10.2"
    # the SARIF location of an EDGAR part is its submission file, at the part's <SEQUENCE> line
    assert part["location"]["uri"] == f"{b}/q.txt"
    seq_line = sub.decode("latin-1").split("\n").index("<SEQUENCE>2") + 1
    assert part["location"]["region"] == {"startLine": seq_line}
    # a corpus document embedded in a new text file: the region is the lines where it sits
    emb = next(f for f in g["findings"] if f["kind"] == "corpus-in-new" and f["new"]["path"] == f"{b}/annual.txt")
    region = emb["location"]["region"]
    text = (root / b / "annual.txt").read_text().split("\n")
    assert 1 < region["startLine"] < region["endLine"] <= len(text)
    run = check_sarif(root / "out-kinds" / "g.sarif")
    assert {res["level"] for res in run["results"]} == {"error", "warning"}
    suite = junit(root / "out-kinds" / "junit.xml")
    names = [c.get("name") for c in suite.findall("testcase") if c.get("classname") == g["batch"]]
    assert f"{b}/q.txt" in names and f"{b}/q.txt#1" in names and f"{b}/q.txt#2" in names
    # h and h-retyped (each contains the other), the second PDF, and c-copy: its text (the corpus's
    # c.txt, which the audit takes part with) is inside the new reformatted exhibit q.txt#2
    assert int(suite.get("failures")) == 4


@pytest.mark.slow
def test_a_revised_or_renamed_file_is_not_compared_with_the_version_it_replaces(tmp_path, docs):
    """A pull request edits a document in place and renames another: neither is a duplicate."""
    main_store(tmp_path, {"lease.txt": docs["D"], "credit.txt": docs["E"], "filing.txt": synth.filing(51, 40_000)[0]})
    (tmp_path / "documents" / "lease.txt").write_text(synth.reformat(docs["D"], 12))  # edited in place
    (tmp_path / "documents" / "credit.txt").rename(tmp_path / "documents" / "credit-2024.txt")
    (tmp_path / "deleted.txt").write_text("documents/credit.txt\n")
    args = ("--dry-run", "documents/lease.txt", "documents/credit-2024.txt")
    r = gate(tmp_path, "--out", "with-list", "--deleted-list", "deleted.txt", *args, db="main.db")
    assert r.returncode == 0, r.stdout + r.stderr
    g = gate_json(tmp_path / "with-list")
    assert g["findings"] == [] and g["counts"]["new_documents"] == 2
    # the earlier lease is withdrawn; the renamed credit agreement is the same document, moved
    assert [d["path"] for d in g["withdrawn"]] == ["documents/lease.txt"]
    # without the list of deleted paths, the renamed file is a byte copy of a corpus document
    r = gate(tmp_path, "--out", "without-list", *args, db="main.db")
    assert r.returncode == 1
    (f,) = gate_json(tmp_path / "without-list")["findings"]
    assert (f["kind"], f["new"]["path"], f["other"]["path"]) == (
        "exact-duplicate", "documents/credit-2024.txt", "documents/credit.txt")


def test_new_members_of_a_family_still_fail(root, docs):
    """Documents that contain one another are one family in the report, not pairs: still findings."""
    b = batch(root, "pr-cluster", {"one.txt": synth.reformat(docs["A"], 13), "two.txt": synth.reformat(docs["A"], 14)})
    r = gate(root, "--dry-run", "--out", "out-cluster", b)
    assert r.returncode == 1, r.stdout + r.stderr
    report = json.loads((root / "out-cluster" / "report.json").read_text())
    (family,) = report["families"]
    assert {report["documents"][str(m)]["path"] for m in family["members"]} == {
        f"{b}/one.txt", f"{b}/two.txt", "corpus/acme-10k.txt#2"}
    g = gate_json(root / "out-cluster")
    got = {(f["kind"], f["new"]["path"], f["other"]["path"]) for f in g["findings"]}
    for name in ("one.txt", "two.txt"):
        assert ("new-in-corpus", f"{b}/{name}", "corpus/acme-10k.txt#2") in got
    ex = [f for f in g["findings"] if f["other"]["path"] == "corpus/acme-10k.txt#2"]
    assert len(ex) == 2 and all(f["containment"] >= 0.9 and f["spans"] and f["also"] >= 1 for f in ex)
    assert all("corpus/acme-10k.txt#1" in f["also_named"] for f in ex)  # the 10-K holds it too


@pytest.mark.slow
def test_a_crash_is_exit_2_never_1(root, docs):
    b = batch(root, "pr-crash", {"x.txt": docs["E"]})
    code = ("import sys, auditor.gating.admission as g\n"
            "def boom(*a, **k): raise RuntimeError('injected')\n"
            "g.containment_findings = boom\n"
            "from auditor.cli import cli\n"
            "cli(sys.argv[1:])\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    r = subprocess.run([sys.executable, "-c", code, "gate", "--db", "corpus.db", "--dry-run", "--out", "out-crash", b],
                       cwd=root, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "internal error: RuntimeError: injected" in r.stderr


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_what_cannot_be_audited_fails_closed_and_can_be_baselined(root, docs):
    clean_html = ("<html><body><noscript>Please enable JavaScript.</noscript><template><p>row</p></template>"
                  f"<p>{docs['E'][:4000]}</p></body></html>")
    spaced = " ".join(" ".join(docs["H"].split()[:120]).replace(" ", ""))  # letter-spaced: its words not read
    b = batch(root, "pr-unauditable", {"tiny.txt": "Exhibit 4.", "spaced.txt": spaced, "page.html": clean_html})
    r = gate(root, "--dry-run", "--out", "out-unaud", "--junit", "out-unaud/junit.xml",
             "--sarif", "out-unaud/g.sarif", b)
    assert r.returncode == 1, r.stdout + r.stderr
    g = gate_json(root / "out-unaud")
    (f,) = g["findings"]  # the ordinary page with noscript and template passes
    assert (f["kind"], f["rule"], f["new"]["path"]) == ("not-auditable", "CONTAIN006", f"{b}/spaced.txt")
    assert "letter-spaced" in f["message"] and g["counts"]["not_auditable"] == 1
    # two words cannot hold a stored document: it passes, listed as short
    assert {d["path"]: d["status"] for d in g["documents"]} == {
        f"{b}/page.html": "passed", f"{b}/tiny.txt": "short", f"{b}/spaced.txt": "failed"}
    cases = {c.get("name"): c for c in junit(root / "out-unaud" / "junit.xml").findall("testcase")}
    assert cases[f"{b}/spaced.txt"].find("failure").get("type") == "CONTAIN006 not-auditable"
    assert cases[f"{b}/tiny.txt"].find("failure") is None
    assert [res["ruleId"] for res in check_sarif(root / "out-unaud" / "g.sarif")["results"]] == ["CONTAIN006"]
    # accepted with a reason, it passes; left out of --fail-on, it is a warning
    r = gate(root, "--dry-run", "--out", "out-unaud2", "--baseline", "unaud.json", "--update-baseline",
             "--reason", "an exhibit index line, reviewed", b)
    assert r.returncode == 0, r.stdout + r.stderr
    r = gate(root, "--dry-run", "--out", "out-unaud3", "--fail-on", "new-in-corpus,ingest-error", b)
    assert r.returncode == 0 and gate_json(root / "out-unaud3")["findings"][0]["level"] == "warning"


def test_inputs_that_were_not_opened_fail_closed(root, docs, tmp_path):
    """A FIFO or a link out of the batch's tree is not read, so it cannot pass the gate."""
    b = batch(root, "pr-links", {"fine.txt": docs["H"]})
    os.mkfifo(root / b / "pipe")
    secret = tmp_path / "outside.txt"
    secret.write_text(docs["A"])
    os.symlink(secret, root / b / "link.txt")
    r = gate(root, "--dry-run", "--out", "out-links", "--junit", "out-links/junit.xml", b)
    assert r.returncode == 1, r.stdout + r.stderr
    g = gate_json(root / "out-links")
    got = {(f["kind"], f["new"]["path"], f["new"]["code"]) for f in g["findings"]}
    assert got == {("not-auditable", f"{b}/pipe", "not_regular"), ("not-auditable", f"{b}/link.txt", "symlink_outside")}
    cases = {c.get("name"): c for c in junit(root / "out-links" / "junit.xml").findall("testcase")}
    assert cases[f"{b}/link.txt"].find("failure").get("type") == "CONTAIN006 not-auditable"
    assert cases[f"{b}/fine.txt"].find("failure") is None


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_every_way_of_hiding_a_stored_contract_fails_the_gate_and_unrelated_ones_pass(tmp_path):
    """Issue 12's evasions end to end: each disguised or hidden copy of a corpus contract, and a
    contract cut into clause-sized pieces, fails the gate; the same done to an unrelated contract
    passes; text that cannot be read fails closed."""
    from tests.extract.test_evasion import HIDING
    from tests.extract.test_extract import _CID_FONT, _cid_run, _font_pdf

    lease = synth.contract(4242, 6_000, kind="lease")
    other = synth.contract(4545, 6_000, kind="lease")
    main_store(tmp_path, {"lease.txt": lease})
    for name, files in (("hidden", lease), ("unrelated", other)):
        d = tmp_path / name
        d.mkdir()
        for i, how in enumerate(sorted(HIDING)):  # no telling extension: formats are told by content
            (d / f"{i:02d}.dat").write_bytes(HIDING[how](files))
        words = files.split()
        for j in range(0, 600, 30):  # clause-sized pieces, each too short for the sampled index
            (d / f"piece-{j:03d}.txt").write_text(" ".join(words[j:j + 30]))
    r = gate(tmp_path, "--dry-run", "--out", "hidden-out", "hidden", db="main.db")
    assert r.returncode == 1, r.stdout + r.stderr
    g = gate_json(tmp_path / "hidden-out")
    caught = {d["file"] for d in g["documents"] if d["status"] == "failed"}  # the file or an EDGAR part of it
    every = {d["file"] for d in g["documents"]}
    assert len(every) == len(HIDING) + 20 and caught == every, sorted(every - caught)
    # found as a copy, or failed closed where the rendered page disagrees with the reading
    assert {f["kind"] for f in g["findings"]} <= {"new-in-corpus", "within-batch", "exact-duplicate", "not-auditable"}
    assert all("render_mismatch" in f["message"] for f in g["findings"] if f["kind"] == "not-auditable")
    r = gate(tmp_path, "--dry-run", "--out", "unrelated-out", "--fail-on", "new-in-corpus,exact-duplicate,"
             "corpus-in-new,ingest-error,not-auditable", "unrelated", db="main.db")
    # Only the frame fails: Chromium prints a srcdoc frame at its size, so the page shows a part
    # of what the frame holds, and the gate fails closed rather than trust what it cannot see.
    frame = f"unrelated/{sorted(HIDING).index('iframe srcdoc'):02d}.dat"
    failing = [f for f in gate_json(tmp_path / "unrelated-out")["findings"] if f["level"] == "error"]
    assert [(f["location"]["file"], f["kind"]) for f in failing] == [(frame, "not-auditable")], r.stdout + r.stderr
    assert "render_mismatch" in failing[0]["message"] and "does not show" in failing[0]["message"]
    # unreadable text fails closed
    d = tmp_path / "unreadable"
    d.mkdir()
    (d / "cid.pdf").write_bytes(_font_pdf(b"BT /F1 11 Tf 72 740 Td " + _cid_run(lease[:200].replace("\n", " "))
                                          + b" ET", _CID_FONT))
    r = gate(tmp_path, "--dry-run", "--out", "unreadable-out", "unreadable", db="main.db")
    assert r.returncode == 1, r.stdout + r.stderr
    found = gate_json(tmp_path / "unreadable-out")["findings"]  # its reading, and its rendering disagreeing
    assert {f["kind"] for f in found} == {"not-auditable"} and any("Unicode mapping" in f["message"] for f in found)


# -- units ------------------------------------------------------------------------------------

def test_escaping_for_workflow_commands_and_the_annotation_cap():
    assert escape_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert escape_property("dir/a,b:c%.txt\n") == "dir/a%2Cb%3Ac%25.txt%0A"
    assert escape_property("%3A") == "%253A"  # already-escaped text is escaped again, not passed through
    cmds = [f"::error::finding {i}" for i in range(12)]
    capped = _capped(cmds, "error", "failing findings")
    assert len(capped) == 10 and capped[:9] == cmds[:9]
    assert capped[9] == "::error title=3 more failing findings::3 more failing findings: see the step summary and the report"
    assert _capped(cmds[:10], "error", "x") == cmds[:10]


def _finding(kind: str, a: str, b: str, path: str = "new.txt") -> Finding:
    return Finding(kind, {"path": path, "sha256": a}, {"path": "old.txt", "sha256": b})


def test_baseline_merge_is_sorted_keeps_reasons_and_does_not_churn(tmp_path):
    a, b, c = "a" * 64, "b" * 64, "c" * 64
    existing = [{"rule": "CONTAIN003", "contained_sha256": c, "container_sha256": a, "reason": "kept",
                 "contained_path": "x", "container_path": "y"}]
    findings = [_finding("new-in-corpus", b, a), _finding("exact-duplicate", c, a), _finding("new-in-corpus", a, b)]
    merged, added = merge_baseline(existing, findings, "accepted")
    assert added == 2
    assert [(e["rule"], e["contained_sha256"]) for e in merged] == [("CONTAIN001", a), ("CONTAIN001", b), ("CONTAIN003", c)]
    assert merged[2]["reason"] == "kept" and merged[0]["reason"] == "accepted"
    again, added = merge_baseline(merged, findings, "other reason")
    assert added == 0 and dump_baseline(again) == dump_baseline(merged)
    # corpus-in-new keys on (contained = the corpus doc, container = the new one)
    f = Finding("corpus-in-new", {"path": "n", "sha256": a}, {"path": "o", "sha256": b}, new_is_contained=False)
    assert f.key == ("CONTAIN002", b, a)
    # round trip through the file, and validation
    p = tmp_path / "bl.json"
    p.write_text(dump_baseline(merged))
    assert load_baseline(p) == merged
    bad = json.loads(p.read_text())
    bad["entries"][0]["reason"] = ""
    p.write_text(json.dumps(bad))
    with pytest.raises(UsageError, match="non-empty"):
        load_baseline(p)
    with pytest.raises(UsageError, match="does not exist"):
        load_baseline(tmp_path / "missing.json")
    assert load_baseline(tmp_path / "missing.json", missing_ok=True) == []


def test_fail_on_classification_and_summary_cap():
    assert parse_fail_on("all") == frozenset(KINDS)
    assert parse_fail_on("none") == frozenset()
    assert parse_fail_on("within-batch, CONTAIN003") == {"within-batch", "exact-duplicate"}
    with pytest.raises(UsageError):
        parse_fail_on("new-in-corpus,bogus")
    assert classify_pair(True, False) == "new-in-corpus"
    assert classify_pair(False, True) == "corpus-in-new"
    assert classify_pair(True, True) == "within-batch"
    assert classify_pair(False, False) is None
    assert RULE_IDS["ingest-error"] == "CONTAIN005"
    text = "".join(f"| row {i} é |\n" for i in range(10_000))
    cut = fit_summary(text, 5_000, "summary.md")
    assert len(cut.encode()) <= 5_000 and cut.endswith("the full summary is in summary.md.\n")
    assert fit_summary("short\n", 5_000) == "short\n"


@pytest.mark.slow
def test_a_layout_only_copy_keeps_the_containments_of_its_duplicate(tmp_path, docs):
    """A new copy whose normalised text equals a corpus document's is audited through that
    document (the first of the group): its containment in a corpus filing is still a finding,
    also when the copy is the corpus file itself re-saved in place."""
    main_store(tmp_path, {"a.txt": docs["A"], "filing.txt": synth.filing(61, 40_000, exhibits=[docs["A"]])[0]})
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "b.txt").write_text(docs["A"].replace("\n", "\r\n"))
    r = gate(tmp_path, "--dry-run", "--out", "copy", "--fail-on", "new-in-corpus", "new/b.txt", db="main.db")
    assert r.returncode == 1, r.stdout + r.stderr
    got = {(f["kind"], f["new"]["path"], f["other"]["path"]) for f in gate_json(tmp_path / "copy")["findings"]}
    assert ("new-in-corpus", "new/b.txt", "documents/filing.txt") in got
    (tmp_path / "documents" / "a.txt").write_text(docs["A"].replace("\n", "\r\n"))  # re-saved in place
    r = gate(tmp_path, "--dry-run", "--out", "resaved", "documents/a.txt", db="main.db")
    assert r.returncode == 1, r.stdout + r.stderr
    got = {(f["kind"], f["new"]["path"], f["other"]["path"]) for f in gate_json(tmp_path / "resaved")["findings"]}
    assert ("new-in-corpus", "documents/a.txt", "documents/filing.txt") in got


@pytest.mark.slow
def test_what_a_failing_gate_stored_is_gated_again_under_another_batch_name(tmp_path, docs):
    main_store(tmp_path, {"filing.txt": synth.filing(71, 40_000, exhibits=[docs["B"]])[0]})
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "b.txt").write_text(docs["B"])
    (tmp_path / "new" / "y.txt").write_text(docs["E"])
    first = gate(tmp_path, "--out", "first", "new/b.txt", db="main.db")  # not a dry run: stored
    assert first.returncode == 1, first.stdout + first.stderr
    again = gate(tmp_path, "--out", "again", "new/b.txt", "new/y.txt", db="main.db")  # another batch name
    assert again.returncode == 1, again.stdout + again.stderr
    got = {(f["kind"], f["new"]["path"]) for f in gate_json(tmp_path / "again")["findings"]}
    assert ("new-in-corpus", "new/b.txt") in got


def test_the_bundled_schemas_reject_what_a_ci_system_would():
    """The validators have teeth: a SARIF result without a message, a JUnit testcase without a
    name, and a raw control character each fail."""
    good = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"ruleId": "CONTAIN001", "message": {"text": "m"}}]}]}
    validate_sarif(good)
    bad = json.loads(json.dumps(good))
    del bad["runs"][0]["results"][0]["message"]
    with pytest.raises(AssertionError, match="message"):
        validate_sarif(bad)
    ok = b'<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t"/></testsuite></testsuites>'
    validate_junit(ok)
    with pytest.raises(AssertionError, match="name"):
        validate_junit(ok.replace(b' name="t"', b""))
    from lxml import etree
    with pytest.raises(etree.XMLSyntaxError):
        validate_junit(ok.replace(b'name="t"', b'name="t\x01"'))
