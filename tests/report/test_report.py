"""Reports are canonical and reproducible, and verify catches tampering and a changed corpus."""

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.report.build import digest, pretty, run_digest
from auditor.report.pipeline import Batch, audit_job, batch_job, verify
from tests.support import synth
from tests.support.textgen import write_contract_in_filing


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
    r.pop("run_digest")
    return r


def test_report_json_is_identical_across_runs_apart_from_run(audited):
    store, tmp = audited
    a = audit_job(store, 0.8, out=tmp / "a")
    b = audit_job(store, 0.8, out=tmp / "b")
    assert a.report["digest"] == b.report["digest"] == digest(a.report)
    assert _core(tmp / "a" / "report.json") == _core(tmp / "b" / "report.json")
    run_block = re.compile(r'^  "run": \{\n.*?^  \},?\n^  "run_digest": "[0-9a-f]+",?\n', re.M | re.S)
    text_a, n_a = run_block.subn("", (tmp / "a" / "report.json").read_text())
    text_b, n_b = run_block.subn("", (tmp / "b" / "report.json").read_text())
    assert n_a == n_b == 1 and len(text_a) > 2000
    assert text_a == text_b  # byte-identical apart from the run block
    assert a.report["run"]["run_id"] != b.report["run"]["run_id"]


def test_report_contents(audited):
    store, tmp = audited
    r = audit_job(store, 0.8, out=tmp / "r").report
    m = r["manifest"]
    assert r["format"] == "containment-auditor-report/2"
    assert m["params"]["k"] == 5 and m["params"]["modulus"] == 16 and m["params"]["threshold"] == 0.8
    assert "xxh3_64" in m["params"]["hash"] and m["params"]["seed"] and m["params"]["normalization"]
    assert m["params"]["boilerplate"]["applied"] == 10 and m["params"]["best_containers"] == 3
    assert m["versions"]["pdfminer.six"] and m["versions"]["unicode"] and r["run"]["python"]
    assert not {"rich", "click", "sqlite-utils", "python"} & set(m["versions"])  # nothing cosmetic in the digest
    assert m["corpus"]["documents"] == 5 and len(m["corpus"]["digest"]) == 64
    assert all({"name", "kind", "expected", "score", "passed"} <= set(c) for c in r["controls"])
    [f] = r["findings"]  # one entry per contained document
    doc = lambda i: r["documents"][str(i)]  # noqa: E731
    assert doc(f["doc_id"])["path"].endswith("contract.txt") and f["containers"] == 1
    [best] = f["best"]
    assert doc(best["container"])["path"].endswith("filing.txt")
    assert best["containment"] == 1.0 and best["hits"] == best["sampled"] and best["spans"][0]["excerpt"]
    assert doc(f["doc_id"])["sha256"]
    [group] = r["duplicate_groups"]
    assert f["doc_id"] in group and any(doc(i)["path"].endswith("upper-case-contract.txt") for i in group)
    assert "upper-case-contract.txt" in (tmp / "r" / "report.md").read_text()
    assert "upper-case-contract.txt" in (tmp / "r" / "report.html").read_text()
    assert [doc(x["doc_id"])["path"].rsplit("/", 1)[1] for x in r["not_auditable"]] == ["tiny.txt"]
    assert r["summary"]["contained_documents"] == 1 and r["summary"]["containing_pairs"] == 1
    assert r["status"] == "OK" and r["boilerplate"] == [] and r["families"] == []
    assert set(r["run"]) >= {"run_id", "started", "ended", "host", "command"}
    assert "host" not in json.dumps({k: v for k, v in r.items() if k != "run"})
    # every containing pair and every covered document, beside the report, in its digest
    pairs = [json.loads(x) for x in gzip.decompress((tmp / "r" / "findings.jsonl.gz").read_bytes()).splitlines()]
    assert [(x["contained"], x["container"], x["containment"]) for x in pairs] == [
        (f["doc_id"], best["container"], 1.0)]
    assert {"estimate", "interval", "hits", "sampled", "shared", "shingles"} <= set(pairs[0])
    docs = [json.loads(x) for x in gzip.decompress((tmp / "r" / "documents.jsonl.gz").read_bytes()).splitlines()]
    assert len(docs) == 5 and {d["status"] for d in docs} == {"audited", "duplicate", "not-auditable"}
    assert r["files"]["findings.jsonl.gz"]["lines"] == 1 and r["files"]["documents.jsonl.gz"]["lines"] == 5
    # the store keeps every pair of the run and every covered document, for queries
    assert store.rows("SELECT contained_id, container_id, containment FROM findings") == [
        {"contained_id": f["doc_id"], "container_id": best["container"], "containment": 1.0}]
    covered = {d["doc_id"]: d["status"] for d in docs}
    assert dict(store.conn.execute("SELECT doc_id, status FROM run_documents")) == covered
    assert store.scalar("SELECT containers FROM run_documents WHERE doc_id = ?", (f["doc_id"],)) == 1


def test_verify_accepts_an_untouched_report(audited):
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "v")
    v = verify(tmp / "v", store)
    assert v.ok, v.problems


def test_verify_recomputes_unless_a_parameter_or_the_documents_differ(audited):
    """What stops verify before it recomputes is decided where the problem is found, not read
    back from the message: a file whose name starts like a parameter problem or mentions the
    documents file is only a stray file."""
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "p")
    digest_ = json.loads((tmp / "p" / "report.json").read_text())["digest"]
    for stray in ("parameters.txt", "documents.jsonl.gz.orig"):
        (tmp / "p" / stray).write_text("planted")
        v = verify(tmp / "p", store)
        assert v.problems == [f"{stray} is not one of the files report.json lists (added or renamed?)"]
        assert v.recomputed_digest == digest_  # recomputed all the same
        (tmp / "p" / stray).unlink()
    documents = tmp / "p" / "documents.jsonl.gz"
    before = documents.read_bytes()
    documents.write_bytes(gzip.compress(gzip.decompress(before)))  # same lines, other bytes
    v = verify(tmp / "p", store)
    assert len(v.problems) == 1 and v.problems[0].startswith("documents.jsonl.gz is not byte for byte")
    assert v.recomputed_digest == ""
    documents.write_bytes(before)
    p = tmp / "p" / "report.json"
    r = json.loads(p.read_text())
    r["manifest"]["params"]["modulus"] += 1
    p.write_text(pretty(r))
    v = verify(tmp / "p", store)
    assert any(x.startswith("parameter modulus: report") for x in v.problems) and v.recomputed_digest == ""


def test_verify_catches_a_tampered_report(audited):
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "t")
    p = tmp / "t" / "report.json"
    r = json.loads(p.read_text())
    r["findings"][0]["best"][0]["containment"] = 0.5
    p.write_text(json.dumps(r))
    v = verify(tmp / "t", store)
    assert not v.ok and any("altered" in x for x in v.problems)
    r["digest"] = digest(r)  # a forger who also fixes the digest is caught by the recomputation
    p.write_text(json.dumps(r))
    v = verify(tmp / "t", store)
    assert not v.ok and any("containment" in x for x in v.problems)


@pytest.mark.slow
def test_verify_catches_an_edited_sidecar_rendering_or_run_block(audited):
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "e")
    assert verify(tmp / "e", store).ok
    for name, edit in (("report.md", lambda t: t.replace("1 contained document", "0 contained document")),
                       ("report.html", lambda t: t.replace("Containment audit", "Audit")),
                       ("report.json", lambda t: t.replace('"host": "', '"host": "x'))):
        path = tmp / "e" / name
        before = path.read_text()
        path.write_text(edit(before))
        v = verify(tmp / "e", store)
        assert not v.ok and v.problems, name
        path.write_text(before)
    path = tmp / "e" / "findings.jsonl.gz"
    before = path.read_bytes()
    with gzip.open(path, "wt") as f:
        f.write(gzip.decompress(before).decode().replace('"containment":1.0', '"containment":0.5'))
    v = verify(tmp / "e", store)
    assert not v.ok and any("findings.jsonl.gz was altered" in p for p in v.problems)
    path.write_bytes(before)
    assert verify(tmp / "e", store).ok


def evil_header(gz: bytes) -> bytes:
    """The same gzip member with FNAME and FCOMMENT set: any gzip reader sees the same content."""
    return bytes([0x1F, 0x8B, 8, 8 | 16, 0, 0, 0, 0, 0, 255]) + b"../../evil-name\x00<script>alert(1)</script>\x00" + gz[10:]


def test_verify_compares_the_gzip_sidecars_byte_for_byte(audited):
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "g")
    for name, edit, said in (
            ("findings.jsonl.gz", evil_header, "names a file ('../../evil-name')"),
            ("findings.jsonl.gz", evil_header, "carries a comment ('<script>alert(1)</script>')"),
            ("documents.jsonl.gz", lambda b: b + bytes(4096), "4096 zero bytes follow the gzip member"),
            ("documents.jsonl.gz", lambda b: gzip.compress(gzip.decompress(b), mtime=0), "operating system")):
        path = tmp / "g" / name
        before = path.read_bytes()
        path.write_bytes(edit(before))
        assert gzip.decompress(path.read_bytes()) == gzip.decompress(before)  # the same content
        v = verify(tmp / "g", store)
        assert not v.ok and len(v.problems) == 1, v.problems
        assert v.problems[0].startswith(f"{name} is not byte for byte the file the auditor wrote") and said in v.problems[0]
        path.write_bytes(before)
    assert verify(tmp / "g", store).ok


@pytest.mark.slow
def test_full_texts_beside_the_report_are_in_its_digest_and_verified(audited):
    store, tmp = audited
    r = audit_job(store, 0.8, out=tmp / "x").report
    [f] = r["findings"]
    best = f["best"][0]
    names = sorted(n for n in r["files"] if n.startswith("texts/"))
    assert names == sorted(f"texts/{i}.txt" for i in (f["doc_id"], best["container"]))
    for i in (f["doc_id"], best["container"]):  # the stored text, byte for byte: spans index into it
        assert (tmp / "x" / f"texts/{i}.txt").read_text(encoding="utf-8") == store.text(i)
    al = best["alignment"]  # the contract lies verbatim in the filing
    assert al["hunks"] == [] and al["words"]["same"] == al["words"]["contained"] > 1000
    assert al["container"] == [best["spans"][0]["start"], best["spans"][-1]["end"]]
    assert best["spans"][0]["excerpt"]  # no difference to show: the excerpt stays
    assert verify(tmp / "x", store).ok
    text = tmp / "x" / names[0]
    before = text.read_bytes()
    text.write_bytes(before.replace(b"e", b"E", 1))
    v = verify(tmp / "x", store)
    assert not v.ok and any(f"{names[0]} was altered" in p for p in v.problems)
    text.unlink()
    v = verify(tmp / "x", store)
    assert not v.ok and any(f"{names[0]} is missing" in p for p in v.problems)
    text.write_bytes(before)
    (tmp / "x" / "texts" / "999.txt").write_text("planted")
    v = verify(tmp / "x", store)
    assert not v.ok and v.problems == ["texts/999.txt is not one of the files report.json lists (added or renamed?)"]
    (tmp / "x" / "texts" / "999.txt").unlink()
    (tmp / "x" / "report.pdf").write_text("planted")
    assert verify(tmp / "x", store).problems == ["report.pdf is not one of the files report.json lists (added or renamed?)"]
    (tmp / "x" / "report.pdf").unlink()
    for beside in (".report.json.tmp", "notes/readme.txt", "junit.xml"):  # any file, not only report-like ones
        (tmp / "x" / beside).parent.mkdir(exist_ok=True)
        (tmp / "x" / beside).write_text("{}")
        assert verify(tmp / "x", store).problems == [f"{beside} is not one of the files report.json lists (added or renamed?)"]
        (tmp / "x" / beside).unlink()
        if "/" in beside:
            (tmp / "x" / beside).parent.rmdir()
    (tmp / "x" / "empty" / "dir").mkdir(parents=True)
    assert verify(tmp / "x", store).problems == ["empty is not one of the files report.json lists (added or renamed?)"]
    (tmp / "x" / "empty" / "dir").rmdir()
    (tmp / "x" / "empty").rmdir()
    (tmp / "x" / "gate.json").write_text("{}")  # the gate's own files are known only through a real gate.json
    assert verify(tmp / "x", store).problems == ["gate.json is not a gate result ('report')"]
    (tmp / "x" / "gate.json").unlink()
    assert verify(tmp / "x", store).ok


def test_the_gates_files_in_a_report_directory_are_known_through_gate_json(audited):
    """CI writes the gate's JUnit, SARIF and summary beside the report (docs/how-to/ci-gate.md): gate.json
    lists them with their sha256, so verify accepts exactly those, unaltered."""
    from auditor.gating import GateOptions, run_gate

    store, tmp = audited
    new = tmp / "batch"
    new.mkdir()
    (new / "clause.txt").write_text(synth.contract(72, 6_000))
    out = tmp / "gate-report"
    g = run_gate(GateOptions(db=store.path, inputs=[new], out=out, junit=out / "junit.xml",
                             sarif=out / "gate.sarif", summary=out / "summary.md", workers=1))
    assert g.status == "PASSED" and g.report_dir == out
    written = json.loads((out / "gate.json").read_text())
    assert {k: v["in_report"] for k, v in written["artefacts"].items()} == {
        "junit": "junit.xml", "sarif": "gate.sarif", "summary": "summary.md"}
    assert verify(out, store).ok, verify(out, store).problems
    junit = (out / "junit.xml").read_bytes()
    (out / "junit.xml").write_bytes(junit.replace(b"failures=", b"failures =", 1))
    assert verify(out, store).problems == ["junit.xml (junit) was altered since the gate wrote it"]
    (out / "junit.xml").write_bytes(junit)
    (out / "junit-2.xml").write_bytes(junit)
    assert verify(out, store).problems == ["junit-2.xml is not one of the files report.json lists (added or renamed?)"]
    (out / "junit-2.xml").unlink()
    other = json.loads((out / "gate.json").read_text())
    other["report"]["run_id"] = "20250101T000000Z-00000000"
    (out / "gate.json").write_text(json.dumps(other))
    assert any("gate.json is the result of another run" in p for p in verify(out, store).problems)


def test_a_detailed_finding_with_differences_is_aligned_instead_of_excerpted(store, tmp_path):
    d = tmp_path / "corpus"
    d.mkdir()
    contract = synth.contract(72, 12_000)
    edited = contract.replace("shall", "must", 3)
    (d / "contract.txt").write_text(contract)
    (d / "filing.txt").write_text(synth.filing(73, 60_000, exhibits=[edited])[0])
    ingest(store, [d], workers=1)
    r = audit_job(store, 0.8, out=tmp_path / "r").report
    [f] = r["findings"]
    best = f["best"][0]
    assert 0.8 <= best["containment"] < 1.0
    al = best["alignment"]
    changed = [(p[1], p[2]) for h in al["hunks"] for p in h["pieces"] if p[0] == "changed"]
    assert changed == [("shall", "must")] * 3 and al["words"]["changed"] == 3
    assert not any("excerpt" in sp for sp in best["spans"])
    html = (tmp_path / "r" / "report.html").read_text()
    assert html.count('<del class="chg">shall</del>') == 3 and html.count('<ins class="chg">must</ins>') == 3
    md = (tmp_path / "r" / "report.md").read_text()
    assert md.count("*shall*") == 3 and md.count("*must*") == 3


def test_an_old_report_verifies_after_the_store_grew_but_not_after_a_document_changed(audited):
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "c")
    extra = tmp / "late.txt"
    extra.write_text(synth.contract(74, 12_000))
    ingest(store, [extra], workers=1)
    later = tmp / "later.txt"  # would be a new finding, but the old report did not cover it
    later.write_text((tmp / "corpus" / "contract.txt").read_text()[:3000])
    ingest(store, [later], workers=1)
    v = verify(tmp / "c", store)
    assert v.ok, v.problems
    with store.write():
        store.conn.execute("UPDATE documents SET sha256 = 'f' || substr(sha256, 2) WHERE id = 1")
    v = verify(tmp / "c", store)
    assert not v.ok and any("covered changed" in x for x in v.problems)


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


def test_edgar_filing_dates_are_iso_in_reports_and_stored_as_filed(store, tmp_path):
    from auditor.engine.describe import describe
    from auditor.extract.edgar import iso_date
    from tests.support.fixtures_build import make_edgar_submission

    assert iso_date("20240301") == "2024-03-01"
    assert iso_date("2024-03-01") == "2024-03-01" and iso_date(None) is None and iso_date("2024") == "2024"
    d = tmp_path / "edgar"
    d.mkdir()
    contract = synth.contract(77, 12_000)
    (d / "0000950123-24-000009.txt").write_bytes(make_edgar_submission(
        {"accession_number": "0000950123-24-000009", "form_type": "10-K", "filing_date": "20240301",
         "company_name": "ACME CORP", "cik": "0000123456"},
        [{"type": "10-K", "filename": "form10k.txt", "text": synth.filing(78, 40_000, exhibits=[contract])[0]},
         {"type": "EX-10.1", "filename": "ex10.txt", "text": contract}]))
    ingest(store, [d], workers=1)
    part = store.resolve(str(d / "0000950123-24-000009.txt#2"))
    parent = store.document(part)["parent_id"]
    assert store.document(parent)["meta"]["filing_date"] == "20240301"  # the header as filed
    assert describe(store, part)["edgar"]["submission"]["filing_date"] == "2024-03-01"
    r = audit_job(store, 0.8, out=tmp_path / "r").report
    dates = {e["edgar"]["submission"]["filing_date"] for e in r["documents"].values() if "edgar" in e}
    assert dates == {"2024-03-01"}
    docs = [json.loads(x) for x in gzip.decompress((tmp_path / "r" / "documents.jsonl.gz").read_bytes()).splitlines()]
    assert {x["edgar"]["submission"]["filing_date"] for x in docs if "edgar" in x} == {"2024-03-01"}
    assert "filed 2024-03-01" in (tmp_path / "r" / "report.md").read_text()


def test_novelty_is_in_the_report_and_verified(audited):
    """documents.jsonl.gz gives each document's novel share: its sampled shingles found in no other
    covered document (compositions are `auditor gather`'s, not the report's)."""
    store, tmp = audited
    r = audit_job(store, 0.8, out=tmp / "comp").report
    assert r["format"] == "containment-auditor-report/2"
    assert "compositions" not in r and "composition" not in r["manifest"]["params"]
    docs = {d["path"].rsplit("/", 1)[1]: d for d in (
        json.loads(x) for x in gzip.decompress((tmp / "comp" / "documents.jsonl.gz").read_bytes()).splitlines())}
    assert docs["contract.txt"]["novel"]["estimate"] == 0.0 == docs["upper-case-contract.txt"]["novel"]["estimate"]
    assert 0.3 < docs["filing.txt"]["novel"]["estimate"] < 1.0
    assert docs["filing.txt"]["novel"]["sampled"] > 100 and "novel" not in docs["tiny.txt"]
    assert docs["other-1.txt"]["novel"]["estimate"] > 0.7  # an unrelated contract (some shared boilerplate)
    assert verify(tmp / "comp", store).ok


def test_a_batch_report_describes_its_batch_with_the_same_numbers_and_still_verifies(store, tmp_path):
    """A gate's report costs what its batch costs: documents.jsonl.gz lists the batch and the
    documents the report names (not every covered one: the manifest names those by id ranges),
    and its novel shares are the ones a corpus audit gives for the same documents."""

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    lease, credit = synth.contract(81, 8_000, kind="lease"), synth.contract(82, 8_000, kind="credit")
    (corpus / "lease.txt").write_text(lease)
    (corpus / "credit.txt").write_text(credit)
    for i in range(5):
        (corpus / f"other-{i}.txt").write_text(synth.contract(90 + i, 6_000))
    ingest(store, [corpus], batch="corpus", workers=1)
    new = tmp_path / "new"
    new.mkdir()
    (new / "filing.txt").write_text(synth.filing(83, 30_000)[0] + "\n\n" + lease + "\n\n" + credit)
    (new / "clean.txt").write_text(synth.contract(84, 8_000, kind="supply"))
    ingest(store, [new], batch="new", workers=1)
    ids = {r["path"].rsplit("/", 1)[1]: r["id"] for r in store.rows("SELECT id, path FROM documents")}
    batch = sorted(ids[n] for n in ("filing.txt", "clean.txt"))
    g = batch_job(store, 0.8, Batch("new", tuple(batch), None), out=tmp_path / "gate").report
    whole = audit_job(store, 0.8, out=tmp_path / "whole").report
    assert g["manifest"]["corpus"]["ids"] == [[1, 9]] and g["manifest"]["corpus"]["documents"] == 9
    assert "ids" not in whole["manifest"]["corpus"]
    assert g["manifest"]["corpus"]["digest"] == whole["manifest"]["corpus"]["digest"]

    def listed(name):
        lines = gzip.decompress((tmp_path / name / "documents.jsonl.gz").read_bytes()).splitlines()
        return {d["doc_id"]: d for d in map(json.loads, lines)}

    mine, every = listed("gate"), listed("whole")
    assert sorted(mine) == sorted([*batch, ids["lease.txt"], ids["credit.txt"]])  # the batch, and what it names
    assert len(every) == 9
    for d in batch:  # the same novel share as the corpus audit's
        assert mine[d]["novel"] == every[d]["novel"]
    assert "novel" not in mine[ids["lease.txt"]]
    assert 0.3 < mine[ids["filing.txt"]]["novel"]["estimate"] < 1 and mine[ids["clean.txt"]]["novel"]["estimate"] > 0.7
    assert verify(tmp_path / "gate", store).ok
    # the covered documents are in the digest: dropping one from the ranges is caught
    data = json.loads((tmp_path / "gate" / "report.json").read_text())
    data["manifest"]["corpus"]["ids"] = [[1, 8]]
    (tmp_path / "gate" / "report.json").write_text(pretty(data))
    v = verify(tmp_path / "gate", store)
    assert not v.ok and any("names 8 documents" in p for p in v.problems), v.problems
    # ranges that are not ranges of the store's ids are named, never expanded
    for bad, said in (([[1, 10**10]], "the store lacks documents"), ([[5, 9], [1, 4]], "not an ascending range"),
                      ([["1", 9]], "not an ascending range"), ("1-9", "not a list")):
        data["manifest"]["corpus"]["ids"] = bad
        (tmp_path / "gate" / "report.json").write_text(pretty(data))
        v = verify(tmp_path / "gate", store)
        assert not v.ok and any(said in p for p in v.problems), (bad, v.problems)


def test_a_report_says_one_document_and_an_exhaustive_search_in_words(audited):
    """'1 contained document', and a pair no sampled shingle speaks for says it was searched
    exhaustively (its value is exact), not 'estimate 0.0000'."""
    from auditor.report import render
    from auditor.report.render.model import RENDERER, _estimate_text

    store, tmp = audited
    r = audit_job(store, 0.8, out=tmp / "plural").report
    assert r["renderer"] == RENDERER == 1
    md = render.markdown(r)
    assert "1 contained document at" in md and "1 contained documents" not in md
    exhaustive = {"estimate": 0.0, "interval": [0.0, 1.0], "hits": 0, "sampled": 0}
    assert _estimate_text(exhaustive).startswith("none: no sampled shingle")
    sampled = {"estimate": 0.5, "interval": [0.25, 0.75], "hits": 2, "sampled": 4}
    assert _estimate_text(sampled) == "0.5000, 95% interval [0.2500, 0.7500], 2/4 sampled shingles hit"


def test_verify_names_the_package_version_a_report_was_computed_with(audited):
    """A report recorded under another version of a package that shapes results: verify says
    which, instead of only that the digest differs."""
    store, tmp = audited
    audit_job(store, 0.8, out=tmp / "ver")
    p = tmp / "ver" / "report.json"
    r = json.loads(p.read_text())
    r["manifest"]["versions"]["lxml"] = "0.0.1"
    r["digest"] = digest(r)
    r["run_digest"] = run_digest(r)
    p.write_text(pretty(r))
    v = verify(tmp / "ver", store)
    assert not v.ok and any("computed with lxml 0.0.1" in x for x in v.problems), v.problems


def test_excerpts_come_from_one_pass_over_the_texts(audited, monkeypatch):
    """A report asks every excerpt first and reads each text once, in one pass. Read one
    finding at a time, a Parquet export scanned texts/ per finding: 40 to 170 ms each at
    2.2 GB, most of a 20-minute report."""
    from auditor.errors import NoDocument
    from auditor.report.build import _excerpt, _Texts

    store, _ = audited
    a, b = (r["id"] for r in store.rows("SELECT id FROM documents ORDER BY id LIMIT 2"))
    expected = [_excerpt(store.text(a), 0, 40), _excerpt(store.text(b), 5, 900), _excerpt(store.text(a), 3, 9)]
    scans = []
    texts_of = type(store).texts_of
    monkeypatch.setattr(type(store), "text", lambda self, i: pytest.fail(f"text({i}) read alone"))
    monkeypatch.setattr(type(store), "texts_of", lambda self, ids, **kw: scans.append(list(ids))
                        or texts_of(self, ids, **kw))
    texts = _Texts(store)
    spans = [{"start": 0}, {"start": 5}, {"start": 3}]
    for span, (doc, start, end) in zip(spans, [(a, 0, 40), (b, 5, 900), (a, 3, 9)], strict=True):
        texts.excerpt(span, doc, start, end)
    assert [s["excerpt"] for s in spans] == ["", "", ""] and list(spans[0]) == ["start", "excerpt"]
    texts.fill()
    assert [s["excerpt"] for s in spans] == expected and expected[1] != expected[0]
    assert scans == [sorted({a, b})]  # one pass, each text once

    missing = _Texts(store)
    missing.excerpt({}, 10**9, 0, 5)
    with pytest.raises(NoDocument, match="no stored text"):
        missing.fill()


def test_report_json_lists_the_first_entries_and_contained_jsonl_every_one(store, tmp_path, monkeypatch):
    """report.json lists the first findings and boilerplate documents only (what the renderings
    show), so it and the memory that builds it stay bounded; contained.jsonl.gz has every one,
    the summary counts them all, and `auditor audit` prints the most contained from the file."""
    from auditor.report import build
    from auditor.report.build import most_contained_listed, read_contained
    from tests.support.textgen import prose

    d = tmp_path / "corpus"
    d.mkdir()
    notice = prose(900, 60)
    for i in range(5):  # five contracts, each in a filing; contract i also in i more filings
        c = prose(100 + i, 400)
        for j in range(i + 1):
            (d / f"filing-{i}-{j}.txt").write_text(prose(200 + 10 * i + j, 300) + "\n\n" + c + "\n\n"
                                                   + prose(500 + 10 * i + j, 200) + "\n\n" + notice)
        (d / f"contract-{i}.txt").write_text(c)
    for j in range(12):  # the notice in 12 more unrelated documents: boilerplate
        (d / f"other-{j}.txt").write_text(prose(700 + j, 300) + "\n\n" + notice)
    (d / "notice.txt").write_text(notice)
    ingest(store, [d], workers=1)

    full = audit_job(store, 0.8, out=tmp_path / "full").report
    assert full["summary"]["contained_documents"] == len(full["findings"]) == 5
    assert full["summary"]["boilerplate_documents"] == len(full["boilerplate"]) == 1

    monkeypatch.setattr(build, "LISTED", {"findings": 2, "boilerplate": 0})
    cut = audit_job(store, 0.8, out=tmp_path / "cut")
    r = cut.report
    assert r["manifest"]["params"]["listed"] == {"findings": 2, "boilerplate": 0}
    assert r["findings"] == full["findings"][:2] and r["boilerplate"] == []
    assert r["summary"]["contained_documents"] == 5 and r["summary"]["boilerplate_documents"] == 1
    lines = list(read_contained(cut.directory))
    assert [e["doc_id"] for e in lines] == sorted(e["doc_id"] for e in full["findings"] + full["boilerplate"])
    by_id = {e["doc_id"]: e for e in lines}
    for e in full["findings"]:  # the same entry, without the excerpt (texts are read for report.json only)
        listed = by_id[e["doc_id"]]
        assert listed["boilerplate"] is False and listed["containers"] == e["containers"]
        assert [b["container"] for b in listed["best"]] == [b["container"] for b in e["best"]]
        assert all("excerpt" not in s for b in listed["best"] for s in b["spans"])
    assert by_id[full["boilerplate"][0]["doc_id"]]["boilerplate"] is True
    md = (cut.directory / "report.md").read_text()
    assert "## Contained documents (5)" in md and "3 more contained documents are in contained.jsonl.gz" in md
    assert "## Boilerplate (1)" in md and "1 more boilerplate documents are in contained.jsonl.gz" in md
    html = (cut.directory / "report.html").read_text()
    assert "Boilerplate (1)" in html and "3 more contained documents are in contained.jsonl.gz" in html
    assert verify(cut.directory, store).ok

    findings, boilerplate = most_contained_listed(cut.directory, 3)
    assert [f["containers"] for f in findings] == sorted((f["containers"] for f in full["findings"]),
                                                          reverse=True)[:3]
    assert [b["doc_id"] for b in boilerplate] == [full["boilerplate"][0]["doc_id"]]
    assert all(str(f["doc_id"]) in r["documents"] for f in findings)  # named, so printed by path
    printed = subprocess.run([sys.executable, "-m", "auditor", "audit", "--db", str(store.path), "--out",
                              str(tmp_path / "cli")], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"},
                             timeout=300)
    top = max(full["findings"], key=lambda f: (f["containers"], -f["doc_id"]))
    assert printed.returncode == 0, printed.stderr
    assert f"{Path(r['documents'][str(top['doc_id'])]['path']).name} in 5 documents" in printed.stdout
