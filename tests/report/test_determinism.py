"""The same corpus gives the same report whatever the process: the whole pipeline (ingest, index,
controls, audit, report) run in two subprocesses with different hash seeds and locales writes
the same digest and byte-identical sidecars (only the run block, which holds times and the
host, may differ)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import synth
from tests.support.fixtures_build import make_edgar_submission

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_two_processes_with_other_hash_seeds_and_locales_write_the_same_report(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    lease = synth.contract(91, 12_000)
    (corpus / "lease.txt").write_text(lease)
    (corpus / "credit.txt").write_text(synth.contract(92, 12_000))
    (corpus / "filing.htm").write_text(synth.to_html(synth.filing(93, 40_000)[0] + "\n\n" + lease, "Annual report"))
    (corpus / "notice.txt").write_text(" ".join(synth.contract(94, 2_000).split()[:60]))
    (corpus / "8k.txt").write_bytes(make_edgar_submission(
        {"accession_number": "0000950123-24-000101", "form_type": "8-K", "filing_date": "20240301",
         "company_name": "ACME CORP", "cik": "0000123456"},
        [{"type": "8-K", "filename": "8k.txt", "text": synth.contract(95, 4_000)},
         {"type": "EX-10.1", "filename": "ex10.txt", "text": synth.reformat(lease, 3).encode()}]))
    reports = []
    for i, (seed, locale) in enumerate((("0", "C"), ("4242", "C.UTF-8"))):
        work = tmp_path / f"run{i}"
        work.mkdir()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed, "LC_ALL": locale, "LANG": locale,
               "AUDITOR_NO_CACHE": "1"}
        for args in (["ingest", "--db", "c.db", "--quiet", str(corpus)], ["audit", "--db", "c.db", "--out", "report"]):
            r = subprocess.run([sys.executable, "-m", "auditor", *args], cwd=work, env=env, capture_output=True,
                               text=True, timeout=600)
            assert r.returncode == 0, (args, r.stderr[-2000:])
        reports.append(work / "report")
    a, b = (json.loads((r / "report.json").read_text()) for r in reports)
    assert a["digest"] == b["digest"] and a["summary"]["contained_documents"] >= 2
    assert {k: v for k, v in a.items() if k not in ("run", "run_digest")} == {
        k: v for k, v in b.items() if k not in ("run", "run_digest")}
    for name in a["files"]:
        assert (reports[0] / name).read_bytes() == (reports[1] / name).read_bytes(), name
