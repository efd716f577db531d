"""Reviewing past runs from the store: `auditor runs`, `auditor findings`, `auditor browse`."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.corpus.ingest import ingest
from auditor.errors import NoDocument, NoRun, UsageError
from auditor.gating import GateOptions, run_gate
from auditor.report.pipeline import audit_job
from auditor.report.review import datasette_metadata, findings, list_runs
from auditor.store.db import Store
from tests.support import synth
from tests.support.textgen import write_contract_in_filing

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    """A store with an audit (contract in filing, a clause in both) and two later gate runs on a
    vendor batch holding a partial copy of the contract: one fails (its batch is rolled back),
    one passes with its findings as warnings (its batch is admitted, its pairs stored)."""
    d = tmp_path_factory.mktemp("review")
    contract = write_contract_in_filing(d / "base", 31)
    (d / "base" / "clause.txt").write_text(contract[2000:3500])
    (d / "vendor").mkdir()
    (d / "vendor" / "partial-copy.txt").write_text(contract[:9000] + "\n" + synth.contract(39, 600))
    db = d / "store.db"
    with Store(db) as store:
        ingest(store, [d / "base"], batch="base", workers=1)
        audit = audit_job(store, 0.8, out=d / "audit")
    failed = run_gate(GateOptions(db=db, inputs=[d / "vendor"], batch="vendor", out=d / "failed", workers=1))
    assert failed.status == "FAILED" and not failed.admitted
    gate = run_gate(GateOptions(db=db, inputs=[d / "vendor"], batch="vendor", out=d / "gate", workers=1,
                                fail_on=frozenset()))
    assert gate.status == "PASSED" and gate.admitted and gate.findings
    return d, db, audit, gate


def test_runs_lists_audits_and_gates_newest_first(reviewed):
    d, db, audit, gate = reviewed
    with Store(db) as store:
        rows = list_runs(store)
    assert [(r["kind"], r["status"]) for r in rows] == [("gate", "PASSED"), ("gate", "FAILED"), ("audit", "OK")]
    g, f, a = rows
    assert a["run_id"] == audit.run_id and a["scope"] == "corpus" and a["batch"] is None
    s = audit.report["summary"]
    assert (a["documents"], a["contained"], a["pairs"]) == (s["documents"], s["contained_documents"],
                                                            s["containing_pairs"])
    assert Path(a["report_dir"]) == d / "audit"
    assert g["scope"] == "batch" and g["batch"] == "vendor" and g["outcome"] == "admitted"
    assert g["status"] == gate.status == "PASSED" and g["report_status"] == "OK"
    assert f["outcome"] == "rolled back" and f["status"] == "FAILED"
    with Store(db) as store, pytest.raises(NoRun, match="did not admit its batch"):  # its pairs are in its report
        list(findings(store, f["run_id"]))


def test_findings_of_a_run_are_every_containing_pair_of_its_report(reviewed):
    d, db, audit, _ = reviewed
    with Store(db) as store:
        rows = list(findings(store, audit.run_id))
        assert rows == list(findings(store, str(store.scalar("SELECT id FROM runs WHERE run_id = ?",
                                                                    (audit.run_id,)))))
    pairs = [json.loads(x) for x in gzip.decompress((d / "audit" / "findings.jsonl.gz").read_bytes()).splitlines()]
    assert len(rows) == len(pairs) >= 3
    assert sorted((r["contained_id"], r["container_id"], round(r["containment"], 6)) for r in rows) == sorted(
        (p["contained"], p["container"], p["containment"]) for p in pairs)
    scores = [r["containment"] for r in rows]
    assert scores == sorted(scores, reverse=True)
    names = {Path(r["contained"]).name for r in rows}
    assert {"contract.txt", "clause.txt"} <= names
    located = [r for r in rows if r["spans"]]
    assert located and all(s["end"] > s["start"] for r in located for s in r["spans"])


def test_findings_default_to_the_latest_run_and_filter(reviewed):
    d, db, audit, _ = reviewed
    with Store(db) as store:
        latest = list(findings(store))
        assert {r["run_id"] for r in latest} == {list_runs(store)[0]["run_id"]}  # the gate
        assert any(Path(r["contained"]).name == "partial-copy.txt" or Path(r["container"]).name == "partial-copy.txt"
                   for r in latest)
        every = list(findings(store, audit.run_id))
        high = list(findings(store, audit.run_id, min_score=0.999))
        assert high and all(r["containment"] >= 0.999 for r in high) and len(high) <= len(every)
        assert list(findings(store, audit.run_id, min_score=1.0)) == [r for r in every if r["containment"] >= 1.0]
        clause = str(d / "base" / "clause.txt")
        mine = list(findings(store, audit.run_id, document=clause))
        doc = store.resolve(clause)
        assert mine and all(doc in (r["contained_id"], r["container_id"]) for r in mine)
        other = str(d / "base" / "other-1.txt")  # in no finding
        assert list(findings(store, audit.run_id, document=other)) == []
        vendor = list(findings(store, document=str(d / "vendor" / "partial-copy.txt"), batch="vendor"))
        assert vendor and vendor == list(findings(store, batch="vendor"))
        assert list(findings(store, audit.run_id, batch="vendor")) == []  # the audit predates the batch
        assert len(list(findings(store, audit.run_id, limit=2))) == 2
        with pytest.raises(NoRun):
            list(findings(store, "20990101T000000Z-nothere"))
        with pytest.raises(UsageError):
            list(findings(store, batch="no-such-batch"))
        with pytest.raises(NoDocument):
            list(findings(store, document="no/such/file.txt"))


def test_findings_without_any_run_say_so(tmp_path):
    with Store(tmp_path / "empty.db") as store, pytest.raises(NoRun, match="auditor audit"):
        list(findings(store))


def test_cli_runs_and_findings_in_every_format(reviewed):
    _, db, audit, _ = reviewed
    runner = CliRunner()
    r = runner.invoke(cli, ["runs", "--db", str(db)])
    assert r.exit_code == 0 and audit.run_id in r.output and "batch vendor (admitted)" in r.output
    assert "batch vendor (rolled back)" in r.output
    as_json = json.loads(runner.invoke(cli, ["runs", "--db", str(db), "--json"]).output)
    assert [x["kind"] for x in as_json] == ["gate", "gate", "audit"]
    base = ["findings", "--db", str(db), "--run", audit.run_id]
    rows = json.loads(runner.invoke(cli, [*base, "--format", "json"]).output)
    with Store(db) as store:
        assert rows == list(findings(store, audit.run_id))
    table = list(csv.DictReader(io.StringIO(runner.invoke(cli, [*base, "--format", "csv"]).output)))
    assert [(int(x["contained_id"]), int(x["container_id"])) for x in table] == [
        (x["contained_id"], x["container_id"]) for x in rows]
    assert [float(x["containment"]) for x in table] == [x["containment"] for x in rows]
    spans = next(x["spans"] for x in table if x["spans"])
    assert "-" in spans and spans.split("-")[0].isdigit()
    out = runner.invoke(cli, [*base]).output
    assert "contract.txt" in out and "filing.txt" in out and f"{rows[0]['containment']:.4f}" in out
    assert runner.invoke(cli, [*base, "--min-score", "1.5"]).exit_code == 2
    for bad in (["--run", "nope"], ["--batch", "nope"], ["--document", "nope.txt"]):
        r = runner.invoke(cli, ["findings", "--db", str(db), *bad])
        assert r.exit_code == 2, (bad, r.output)


def test_datasette_metadata_describes_every_table_of_the_store(reviewed):
    _, db, _, _ = reviewed
    meta = datasette_metadata(db)
    tables = meta["databases"]["store"]["tables"]
    with Store(db) as store:
        names = {r[0] for r in store.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\'")}
        assert names <= set(tables), names - set(tables)
        for name, t in tables.items():
            if name in names:
                cols = {r[1] for r in store.conn.execute(f"PRAGMA table_info({name})")}
                assert set(t.get("columns", {})) <= cols, (name, set(t.get("columns", {})) - cols)
            assert t["description"]
        for q in meta["databases"]["store"]["queries"].values():  # every canned query runs, paged or not
            for skip in ("", "0", "1000"):
                store.conn.execute(q["sql"], {"document": "1", "skip": skip}).fetchall()
        first = store.conn.execute(meta["databases"]["store"]["queries"]["latest_findings"]["sql"],
                                   {"skip": ""}).fetchall()
        assert first and store.conn.execute(meta["databases"]["store"]["queries"]["latest_findings"]["sql"],
                                            {"skip": str(len(first))}).fetchall() == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as r:  # a local test server
        return bytes(r.read())


@pytest.mark.slow
def test_browse_serves_the_store_in_datasette_with_descriptions_and_canned_queries(reviewed, tmp_path):
    pytest.importorskip("datasette")
    _, db, _, _ = reviewed
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = tmp_path / "browse.log"
    with open(log, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "auditor", "browse", "--db", str(db), "--port", str(port)],
                                stdout=sink, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:  # poll until it answers (or the process died, or a minute passed)
            try:
                versions = json.loads(_get(f"{base}/-/versions.json"))
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "Datasette did not start within 60 s"
                time.sleep(0.2)
        assert versions["datasette"]["version"]
        meta = json.loads(_get(f"{base}/-/metadata.json"))
        assert meta["databases"]["store"]["tables"]["findings"]["columns"]["containment"].startswith("|S(A)")
        with Store(db) as store:
            latest = list(findings(store))
            doc = latest[0]["contained_id"]
            mine = list(findings(store, document=str(doc)))
        rows = json.loads(_get(f"{base}/store/latest_findings.json?_shape=array"))
        assert [(r["contained_id"], r["container_id"], r["containment"]) for r in rows] == [
            (r["contained_id"], r["container_id"], round(r["containment"], 4)) for r in latest]
        located = next(r for r in latest if r["spans"])
        shown = next(r for r in rows if (r["contained_id"], r["container_id"]) == (
            located["contained_id"], located["container_id"]))
        assert shown["spans"] == "; ".join(f"{s['start']}-{s['end']}" for s in located["spans"])
        rows = json.loads(_get(f"{base}/store/document_findings.json?_shape=array&document={doc}"))
        assert sorted((r["contained_id"], r["container_id"]) for r in rows) == sorted(
            (r["contained_id"], r["container_id"]) for r in mine)
        assert json.loads(_get(f"{base}/store/boilerplate.json?_shape=array")) == []  # too small a corpus
        failed = json.loads(_get(f"{base}/store/failed_inputs.json?_shape=array"))
        assert isinstance(failed, list)
        page = _get(f"{base}/store/findings").decode()
        assert "Every containing pair of every audit and gate run" in page
        page = _get(f"{base}/store/sightings?_labels=on").decode()
        assert "contract.txt" in page  # doc_id shown by its label column, the path
        page = _get(f"{base}/store").decode()
        assert "Findings of the latest run" in page and "Failed inputs" in page
        with Store(db) as store:
            path, stored = store.document(doc)["path"], store.text(doc)
        shown = json.loads(_get(f"{base}/store/document_text.json?_shape=array&document={doc}"))
        assert [(r["id"], r["text"]) for r in shown] == [(doc, stored)]  # the plain text, not the frame
        assert json.loads(_get(f"{base}/store/document_text.json?_shape=array&document=nothing")) == []
        assert path
        with pytest.raises(urllib.error.HTTPError):  # read-only: no SQL but SELECT
            _get(f"{base}/store.json?sql=DELETE+FROM+findings")
        proc.send_signal(signal.SIGTERM)  # to the command alone: it stops its server
        assert proc.wait(timeout=30) == 0
        deadline = time.monotonic() + 30
        while True:
            try:
                _get(f"{base}/-/versions.json")
            except (urllib.error.URLError, ConnectionError, OSError):
                break
            assert time.monotonic() < deadline, "Datasette outlived `auditor browse`"
            time.sleep(0.2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    with Store(db) as store:
        assert store.scalar("SELECT count(*) FROM findings") > 0


def test_browse_without_datasette_says_what_to_install(reviewed, monkeypatch):
    import auditor.report.review

    monkeypatch.setattr(auditor.report.review, "datasette_missing", lambda: "auditor browse needs Datasette, which "
                        "is not installed: " + auditor.report.review.BROWSE_INSTALL)
    _, db, _, _ = reviewed
    r = CliRunner().invoke(cli, ["browse", "--db", str(db)])
    assert r.exit_code == 2 and "[browse]" in r.output


def test_a_closed_pipe_ends_findings_quietly_with_the_sigpipe_code(reviewed):
    """`auditor findings | head`: no 'internal error', exit 141 (what a shell reports for a
    process a closed pipe stopped), never 0 or 1, whichever format was printing."""
    _, db, _, _ = reviewed
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for fmt in ("table", "csv", "json"):
        p = subprocess.Popen([sys.executable, "-m", "auditor", "findings", "--db", str(db), "--format", fmt],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert p.stdout is not None and p.stderr is not None
        p.stdout.close()
        err = p.stderr.read().decode()
        p.stderr.close()
        assert p.wait(timeout=60) == 141 and "internal error" not in err and "Traceback" not in err, (fmt, err)
