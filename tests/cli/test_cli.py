"""The command line: thin commands over the library, exit codes, and the README's promises."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from tests.support import synth
from tests.support.textgen import write_contract_in_filing

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    src = d / "src"
    write_contract_in_filing(src, 81)
    (src / "broken.pdf").write_bytes(b"%PDF-1.7\n" + bytes(100))
    db = d / "c.db"
    r = CliRunner().invoke(cli, ["ingest", "--db", str(db), "--source", "unit", "--json", str(src)])
    assert r.exit_code == 0, r.output
    return {"db": db, "src": src, "ingest": json.loads(r.stdout), "dir": d}


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_ingest_reports_counts_and_problems(corpus):
    out = corpus["ingest"]
    assert out["counts"] == {"ok": 3, "not_auditable": 0, "duplicate": 0, "unchanged": 0, "failed": 1, "skipped": 0}
    assert [(Path(p).name, code) for p, code, _ in out["problems"]] == [("broken.pdf", "pdf_error")]
    again = run("ingest", "--db", corpus["db"], corpus["src"])
    assert again.exit_code == 0 and "unchanged=4" in again.stdout


def test_stats_and_show(corpus):
    s = json.loads(run("stats", "--db", corpus["db"], "--json").stdout)
    assert s["documents"] == 3 and s["failures"] == 1 and s["by_batch"][0]["n_ok"] == 3
    r = run("show", "--db", corpus["db"], "--json", str(corpus["src"] / "contract.txt"))
    doc = json.loads(r.stdout)
    assert doc["format"] == "text" and doc["sightings"][0]["source"] == "unit"
    assert json.loads(run("show", "--db", corpus["db"], "--json", doc["sha256"][:10]).stdout)["id"] == doc["id"]
    missing = run("show", "--db", corpus["db"], "no-such-doc")
    assert missing.exit_code == 2 and "no stored document" in missing.stderr


def test_audit_writes_a_report_and_verify_accepts_it(corpus):
    out = corpus["dir"] / "rep"
    r = run("audit", "--db", corpus["db"], "--out", out)
    assert r.exit_code == 0, r.output
    assert "1 contained document at >= 0.8" in r.stdout
    assert re.search(r"contract\.txt in 1 document; best \S*filing\.txt 1\.0000", r.stdout)
    verbose = run("audit", "--db", corpus["db"], "--out", corpus["dir"] / "rep-v", "--verbose")
    assert re.search(r"contract\.txt in \S*filing\.txt: 1\.0000", verbose.stdout)
    assert "embedded-lease" in r.stdout and (out / "report.html").exists()
    v = run("verify", out, "--db", corpus["db"])
    assert v.exit_code == 0 and "verified" in v.stdout


@pytest.mark.slow
def test_an_audit_with_nothing_to_audit_or_no_corpus_control_is_refused(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("Exhibit 4.")
    (src / "b.txt").write_text("See note 7.")
    db = tmp_path / "e.db"
    assert run("ingest", "--db", db, "-q", src).exit_code == 0
    r = run("audit", "--db", db, "--out", tmp_path / "r1")
    assert r.exit_code == 2 and "nothing can be audited" in r.stderr
    rep = json.loads((tmp_path / "r1" / "report.json").read_text())
    assert rep["status"] == "REFUSED" and "nothing can be audited" in rep["refused_because"][0]
    ok = run("audit", "--db", db, "--out", tmp_path / "r2", "--allow-empty")
    assert ok.exit_code == 0, ok.output
    assert json.loads((tmp_path / "r2" / "report.json").read_text())["status"] == "OK"
    assert run("verify", tmp_path / "r2", "--db", db).exit_code == 0
    # one real document: the fixture controls pass, but none can be drawn from the corpus
    (src / "contract.txt").write_text(synth.contract(5, 12_000))
    assert run("ingest", "--db", db, "-q", src).exit_code == 0
    r = run("audit", "--db", db, "--out", tmp_path / "r3")
    assert r.exit_code == 2 and "no control could be drawn from the corpus" in r.stderr


def test_threshold_is_validated(corpus):
    r = run("audit", "--db", corpus["db"], "--threshold", "1.5")
    assert r.exit_code == 2 and "must be in (0, 1]" in r.output


def test_query_and_compare(corpus):
    q = run("query", "--db", corpus["db"], "--json", corpus["src"] / "contract.txt")
    matches = json.loads(q.stdout)[0]["matches"]
    assert {Path(m["document"]["path"]).name for m in matches if m["direction"] == "contains-query"} >= {"filing.txt"}
    c = json.loads(run("compare", "--db", corpus["db"], "--json", corpus["src"] / "contract.txt",
                       corpus["src"] / "filing.txt").stdout)
    assert c["a_in_b"]["exact"] == 1.0 and c["jaccard"] < 0.3


def test_query_sorts_by_containment_and_says_where(corpus, tmp_path):
    contract = (corpus["src"] / "contract.txt").read_text()
    other = (corpus["src"] / "other-1.txt").read_text()
    q = tmp_path / "bundle.txt"  # holds all of other-1.txt and 85% of contract.txt
    q.write_text(other + "\n\n" + contract[: int(len(contract) * 0.85)])
    [r] = json.loads(run("query", "--db", corpus["db"], "--json", q).stdout)
    found = [(Path(m["document"]["path"]).name, m["direction"], round(m["exact"], 2)) for m in r["matches"]]
    assert [f[:2] for f in found] == [("other-1.txt", "in-query"), ("contract.txt", "in-query")]
    assert found[0][2] == 1.0 and 0.8 <= found[1][2] < 0.95
    [span] = r["matches"][1]["spans"]  # the contract's words lie in the query file after other-1.txt
    assert len(other) <= span["start"] < span["end"] <= len(q.read_text())
    text = run("query", "--db", corpus["db"], q).stdout
    lines = [ln for ln in text.splitlines() if ln.startswith("  ")]
    assert lines[0].startswith("  1.0000 contains") and "other-1.txt" in lines[0]
    assert f"in the file at characters {span['start']}-{span['end']}" in lines[1]


def test_compare_gives_offsets_and_a_short_aligned_excerpt(tmp_path):
    from tests.support import synth

    contract = synth.contract(83, 9_000)
    d = tmp_path / "docs"
    d.mkdir()
    (d / "contract.txt").write_text(contract)
    words = contract.split(" ")
    at = next(i for i in range(200, len(words)) if words[i].isalpha())
    gone, words[at] = words[at], "REPLACED"
    copy = "COVER PAGE OF THE FILING\n\n" + " ".join(words) + "\n\nSIGNATURES"
    (d / "copy.txt").write_text(copy)
    db = tmp_path / "c.db"
    assert run("ingest", "--db", db, d).exit_code == 0
    a, b = d / "contract.txt", d / "copy.txt"
    c = json.loads(run("compare", "--db", db, "--json", a, b).stdout)
    [span] = c["a_in_b"]["spans"]
    assert span["start"] == len("COVER PAGE OF THE FILING\n\n") and span["end"] <= len(copy)
    al = c["a_in_b"]["alignment"]
    assert al["words"]["changed"] == 1 and al["hunks_total"] == 1
    assert c["b_in_a"]["alignment"] is not None  # the copy is mostly the contract too
    text = run("compare", "--db", db, a, b).stdout
    assert f"A in B at characters {span['start']}-{span['end']} of B's text" in text
    diff = next(ln for ln in text.splitlines() if "{+REPLACED+}" in ln)
    assert f"[-{gone}-]{{+REPLACED+}}" in diff


def test_missing_store_is_a_clear_error(tmp_path):
    r = run("audit", "--db", tmp_path / "nope.db")
    assert r.exit_code == 2 and "no store" in r.stderr


def test_every_command_has_its_help():
    """What the CLI reference prints (tests/project/test_docs.py checks that it covers them)."""
    for name, command in cli.commands.items():
        assert command.help, name


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_python_m_auditor_and_the_demo_run_as_a_new_user_would(tmp_path):
    """The README's first command, minus the install: a real subprocess in a fresh directory."""
    env = {**os.environ, "NO_COLOR": "1"}
    v = subprocess.run([sys.executable, "-m", "auditor", "--version"], capture_output=True, text=True, env=env)
    assert v.returncode == 0 and "auditor" in v.stdout
    r = subprocess.run([sys.executable, "-m", "auditor", "demo"], cwd=tmp_path, capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    report_dir = Path(tmp_path, re.search(r"report: (\S+)/report\.html", r.stderr).group(1))
    report = json.loads((report_dir / "report.json").read_text())
    name = lambda i: Path(report["documents"][str(i)]["path"]).name  # noqa: E731
    pairs = {(name(f["doc_id"]), name(b["container"])) for f in report["findings"] for b in f["best"]}
    assert ("supply-agreement.txt", "0000950170-24-000123.txt#1") in pairs
    assert ("consulting-agreement.htm", "quarterly-report-10q.txt") in pairs
    assert not [p for p in pairs if "agreement-2.txt" in p or "current-report-8k.txt" in p]
    # the lease PDF and the filed exhibit contain each other: one family, not two findings
    assert [sorted(name(m) for m in f["members"]) for f in report["families"]] == [
        ["0000950170-24-000123.txt#2", "lease-data-room.pdf"]]
    assert report["summary"]["failed_inputs"] == 1 and report["summary"]["duplicate_groups"] == 1
    assert all(c["passed"] for c in report["controls"])
    again = subprocess.run([sys.executable, "-m", "auditor", "verify", str(report_dir), "--db", "demo/demo.db"],
                           cwd=tmp_path, capture_output=True, text=True, env=env)
    assert again.returncode == 0, again.stderr


# -- read-only stores, hostile names, budgets (issue 13) -------------------------------------------

def auditor_proc(*args, cwd=None, prefix=(), timeout=300):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([*prefix, sys.executable, "-m", "auditor", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def readonly_store(tmp_path):
    """A store with a report, in a directory nobody may write; a writable working directory."""
    from tests.support import hostile

    src = tmp_path / "src"
    write_contract_in_filing(src, 91)
    d = tmp_path / "ro"
    d.mkdir()
    db = d / "c.db"
    assert run("ingest", "--db", db, src).exit_code == 0
    assert run("audit", "--db", db, "--out", tmp_path / "rep").exit_code == 0
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()  # removed on the last close
    work = tmp_path / "work"
    work.mkdir()
    new = work / "new"
    new.mkdir()
    (new / "contract-copy.txt").write_text((src / "contract.txt").read_text())
    prefix = hostile.unprivileged()
    os.chmod(db, 0o444)
    os.chmod(d, 0o555)
    try:
        yield {"db": db, "src": src, "rep": tmp_path / "rep", "work": work, "prefix": prefix}
    finally:
        os.chmod(d, 0o755)
        os.chmod(db, 0o644)


@pytest.mark.slow
def test_a_read_only_store_in_a_read_only_directory_can_be_read_but_not_audited(readonly_store):
    ro = readonly_store
    db, prefix, work = ro["db"], ro["prefix"], ro["work"]
    before = db.read_bytes()
    stats = auditor_proc("stats", "--db", db, "--json", prefix=prefix)
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["documents"] == 3
    show = auditor_proc("show", "--db", db, "--json", ro["src"] / "contract.txt", prefix=prefix)
    assert show.returncode == 0 and json.loads(show.stdout)["format"] == "text"
    query = auditor_proc("query", "--db", db, "--json", ro["src"] / "contract.txt", prefix=prefix)
    assert query.returncode == 0, query.stderr
    check = auditor_proc("check", "--db", db, prefix=prefix)
    assert check.returncode == 0 and "store intact" in check.stdout
    verify = auditor_proc("verify", ro["rep"], "--db", db, prefix=prefix)
    assert verify.returncode == 0 and "verified" in verify.stdout, verify.stderr
    gate = auditor_proc("gate", "--db", db, "--dry-run", "--json", "new", cwd=work, prefix=prefix)
    assert gate.returncode == 1, gate.stderr  # the new copy of the contract is a finding
    assert json.loads(gate.stdout)["counts"]["failing"] >= 1
    audit = auditor_proc("audit", "--db", db, "--out", work / "rep2", prefix=prefix)
    assert audit.returncode == 2 and "read-only" in audit.stderr and not (work / "rep2").exists()
    ingest = auditor_proc("ingest", "--db", db, work / "new", prefix=prefix)
    assert ingest.returncode == 2 and "read-only" in ingest.stderr and "Traceback" not in ingest.stderr
    assert db.read_bytes() == before and sorted(p.name for p in db.parent.iterdir()) == ["c.db"]


@pytest.mark.slow
def test_hostile_file_names_never_reach_the_terminal_raw(tmp_path):
    from tests.support import hostile

    d = tmp_path / "in"
    (d / hostile.NASTY_DIR).mkdir(parents=True)
    (d / hostile.NASTY).write_text("")  # empty: it shows up in the problems table
    (d / "ok.txt").write_text("Plain words in a plain file for the store to keep. " * 20)
    db = tmp_path / "n.db"
    r = auditor_proc("ingest", "--db", db, d)
    assert r.returncode == 0, r.stderr
    for stream in (r.stdout, r.stderr):
        assert not any(c in stream for c in hostile.RAW_CONTROLS), stream
    assert "\\x1b" in r.stderr and "\\u202e" in r.stderr  # shown, escaped
    assert "[link=https:evil]x[/]" in r.stderr  # markup shown as text, not applied
    # an error message quoting a name: it once raised MarkupError inside the error handler
    bad = auditor_proc("show", "--db", db, "[/]no\x1b[31mdoc\u202e")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "[/]no\\x1b[31mdoc\\u202e" in bad.stderr and "\x1b" not in bad.stderr
    missing = auditor_proc("query", "--db", db, "[/]none\x07")
    assert missing.returncode == 2 and "\\x07" in missing.stderr and "\x07" not in missing.stderr


@pytest.mark.slow
def test_ingest_budget_exit_code_and_listing(tmp_path):
    from tests.support import hostile

    paths = hostile.good_texts(tmp_path, 3)
    db = tmp_path / "b.db"
    r = auditor_proc("ingest", "--db", db, "--json", "--budget", "0.000001", *paths)
    assert r.returncode == 1 and "run the same command again" in r.stderr
    out = json.loads(r.stdout)
    assert out["complete"] is False and out["not_processed"] == [str(p) for p in paths]
    again = auditor_proc("ingest", "--db", db, "--json", *paths)
    assert again.returncode == 0 and json.loads(again.stdout)["counts"]["ok"] == 3
