"""Reports are canonical and reproducible, and verify catches tampering and a changed corpus."""

import json
import re

import pytest

from auditor import synth
from auditor.ingest import ingest
from auditor.pipeline import audit_job, verify
from auditor.report import digest
from tests.textgen import write_contract_in_filing


@pytest.fixture
def audited(store, tmp_path):
    d = tmp_path / "corpus"
    contract = write_contract_in_filing(d, 71)
    (d / "tiny.txt").write_text("Section 2.")
    (d / "upper-case-contract.txt").write_text(contract.upper())
    ingest(store, [d], workers=1)
    return store, tmp_path


def _core(path):
    r = json.loads(path.read_text())
    r.pop("run")
    return r


def test_report_json_is_identical_across_runs_apart_from_run(audited):
    store, tmp = audited
    a = audit_job(store, 0.8, out=tmp / "a")
    b = audit_job(store, 0.8, out=tmp / "b")
    assert a.report["digest"] == b.report["digest"] == digest(a.report)
    assert _core(tmp / "a" / "report.json") == _core(tmp / "b" / "report.json")
    run_block = re.compile(r'^  "run": \{\n.*?^  \},?\n', re.M | re.S)
    text_a, n_a = run_block.subn("", (tmp / "a" / "report.json").read_text())
    text_b, n_b = run_block.subn("", (tmp / "b" / "report.json").read_text())
    assert n_a == n_b == 1 and len(text_a) > 2000
    assert text_a == text_b  # byte-identical apart from the run block
    assert a.report["run"]["run_id"] != b.report["run"]["run_id"]


def test_report_contents(audited):
    store, tmp = audited
    r = audit_job(store, 0.8, out=tmp / "r").report
    m = r["manifest"]
    assert m["params"]["k"] == 5 and m["params"]["modulus"] == 16 and m["params"]["threshold"] == 0.8
    assert "xxh3_64" in m["params"]["hash"] and m["params"]["seed"] and m["params"]["normalization"]
    assert m["versions"]["pdfminer.six"] and m["versions"]["python"]
    assert m["corpus"]["documents"] == 5 and len(m["corpus"]["digest"]) == 64
    assert all({"name", "kind", "expected", "score", "passed"} <= set(c) for c in r["controls"])
    [f] = r["findings"]
    assert f["contained"]["path"].endswith("contract.txt") and f["container"]["path"].endswith("filing.txt")
    assert f["containment"] == 1.0 and f["exact"] == 1.0 and f["hits"] == f["sampled"]
    assert f["contained"]["sha256"] and f["spans"][0]["excerpt"]
    [dup] = f["contained"]["duplicates"]
    assert dup["path"].endswith("upper-case-contract.txt")
    assert "upper-case-contract.txt" in (tmp / "r" / "report.md").read_text()
    assert "upper-case-contract.txt" in (tmp / "r" / "report.html").read_text()
    assert [len(g) for g in r["duplicate_groups"]] == [2]
    assert [x["path"].rsplit("/", 1)[1] for x in r["not_auditable"]] == ["tiny.txt"]
    assert r["summary"]["findings"] == 1 and r["status"] == "OK"
    assert set(r["run"]) >= {"run_id", "started", "ended", "host", "command"}
    assert "host" not in json.dumps({k: v for k, v in r.items() if k != "run"})


def test_verify_accepts_an_untouched_report(audited):
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "v")
    v = verify(tmp / "v", store)
    assert v.ok, v.problems


def test_verify_catches_a_tampered_report(audited):
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "t")
    p = tmp / "t" / "report.json"
    r = json.loads(p.read_text())
    r["findings"][0]["containment"] = 0.5
    p.write_text(json.dumps(r))
    v = verify(tmp / "t", store)
    assert not v.ok and any("altered" in x for x in v.problems)
    r["digest"] = digest(r)  # a forger who also fixes the digest is caught by the recomputation
    p.write_text(json.dumps(r))
    v = verify(tmp / "t", store)
    assert not v.ok and any("containment" in x for x in v.problems)


def test_verify_catches_a_changed_corpus(audited):
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "c")
    extra = tmp / "late.txt"
    extra.write_text(synth.contract(74, 12_000))
    ingest(store, [extra], workers=1)
    v = verify(tmp / "c", store)
    assert not v.ok and any("corpus changed" in x for x in v.problems)


def test_html_report_escapes_hostile_file_names_and_text(store, tmp_path):
    d = tmp_path / "hostile"
    d.mkdir()
    contract = synth.contract(75, 10_000) + "\n<script>alert(1)</script> shall survive termination.\n"
    (d / "<script>alert(1)<.txt").write_text(contract)
    (d / "filing.txt").write_text(synth.filing(76, 50_000, exhibits=[contract])[0])
    ingest(store, [d], workers=1)
    o = audit_job(store, 0.8, out=tmp_path / "h")
    assert o.report["findings"], "the hostile contract must be found in the filing"
    page = (tmp_path / "h" / "report.html").read_text()
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;.txt" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    md = (tmp_path / "h" / "report.md").read_text().splitlines()
    named = [line for line in md if "alert(1)<.txt" in line]
    assert named and all(re.search(r"`[^`]*<script>alert\(1\)<\.txt`", line) for line in named)
    fenced = False
    for line in md:  # the hostile text only ever appears inside a fenced block
        if line.lstrip("> ").startswith("```"):
            fenced = not fenced
        elif "<script>alert(1)</script>" in line:
            assert fenced, line


def test_verify_uses_the_controls_the_audit_used(audited, tmp_path):
    import shutil

    from auditor.controls import default_controls_dir

    store, tmp = audited
    ctl = tmp_path / "my-controls"
    shutil.copytree(default_controls_dir(), ctl)
    manifest = json.loads((ctl / "manifest.json").read_text())
    manifest["controls"] = manifest["controls"][:2]
    (ctl / "manifest.json").write_text(json.dumps(manifest))
    o = audit_job(store, 0.8, out=tmp / "ctl", controls_dir=ctl)
    assert len([c for c in o.report["controls"] if c["source"] == "fixture"]) == 2
    assert o.report["manifest"]["controls"]["fixtures_digest"]
    assert verify(tmp / "ctl", store).ok  # the directory recorded in the run block
    shutil.rmtree(ctl)
    v = verify(tmp / "ctl", store)  # gone: the default controls are not the ones reported
    assert not v.ok and any("controls" in p for p in v.problems)
