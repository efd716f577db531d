"""Issue 36, done when: a scanned copy of a stored contract (an image-only PDF, slight skew and
noise, made here by rendering the text with Pillow and wrapping it in a PDF with fpdf2) is found
by `auditor gate` as contained (CONTAIN001, at least 0.8) and by `auditor query`; an unrelated
scanned document passes. Real subprocesses, as a user runs them; OCR by the real Tesseract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import synth
from tests.support.fixtures_build import make_scanned_pdf

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # OCR of a few pages, three commands


def auditor(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "AUDITOR_DB")}
    env.update({"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200", "AUDITOR_CACHE": str(root / "cache")})
    return subprocess.run([sys.executable, "-m", "auditor", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("ocr-gate")
    (root / "corpus").mkdir()
    (root / "corpus" / "supply.txt").write_text(synth.contract(3101, 900, kind="supply"))
    (root / "corpus" / "lease.txt").write_text(synth.contract(3102, 1_500, kind="lease"))
    r = auditor(root, "ingest", "--db", "corpus.db", "-q", "corpus")
    assert r.returncode == 0, r.stderr
    for name, seed, text in (("copy", 1, synth.contract(3101, 900, kind="supply")),
                             ("other", 2, synth.contract(3199, 900, kind="supply"))):
        (root / name).mkdir()
        (root / name / "scan.pdf").write_bytes(make_scanned_pdf(text, seed=seed, skew=0.7))
    return root


def test_a_scanned_copy_of_a_stored_contract_fails_the_gate(root):
    r = auditor(root, "gate", "--db", "corpus.db", "--dry-run", "--json", "--out", "out-copy", "copy")
    assert r.returncode == 1, r.stdout[-2000:] + r.stderr[-2000:]
    g = json.loads(r.stdout)
    hits = [f for f in g["findings"] if f["rule"] == "CONTAIN001"]
    assert hits and hits[0]["other"]["path"].endswith("supply.txt") and hits[0]["containment"] >= 0.8, g["findings"]


def test_an_unrelated_scanned_document_passes_the_gate(root):
    r = auditor(root, "gate", "--db", "corpus.db", "--dry-run", "--json", "--out", "out-other", "other")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert json.loads(r.stdout)["findings"] == []


def test_query_finds_the_stored_contract_in_the_scan_and_not_in_the_other(root):
    r = auditor(root, "query", "--db", "corpus.db", "--json", "copy/scan.pdf", "other/scan.pdf")
    assert r.returncode == 0, r.stderr
    by_file = {Path(x["file"]).parent.name: x for x in json.loads(r.stdout)}
    found = [m for m in json.dumps(by_file["copy"]).split('"path": ')[1:] if "supply.txt" in m[:80]]
    assert found, by_file["copy"]
    assert "supply.txt" not in json.dumps(by_file["other"]) and "lease.txt" not in json.dumps(by_file["other"])


def test_without_ocr_the_scan_fails_closed_naming_the_fix(root):
    r = auditor(root, "gate", "--db", "corpus.db", "--dry-run", "--json", "--ocr", "never", "--out", "out-never", "copy")
    assert r.returncode == 2 and "nothing was gated" in r.stderr  # as before OCR: the gate cannot pass
    (f,) = json.loads(r.stdout)["findings"]
    assert f["rule"] == "CONTAIN005" and "--ocr auto" in f["new"]["message"], f


def test_show_records_the_ocr_engine_and_confidence(root):
    r = auditor(root, "ingest", "--db", "scans.db", "-q", "copy")
    assert r.returncode == 0, r.stderr
    r = auditor(root, "show", "--db", "scans.db", "1")
    assert r.returncode == 0, r.stderr
    assert "OCR: tesseract 5." in r.stdout and "language eng" in r.stdout and "300 dpi" in r.stdout
    assert "text from OCR" in r.stdout and "confidence" in r.stdout
