"""Every command keeps its documented contract: exit codes (docs/reference/exit-codes.md: 0 success, 1 findings or a
report that does not verify, 2 usage, input or store error or failed controls), JSON for
scripts, and output that fits its medium (pipes and CI logs are not cut at 80 columns)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.store.db import Store
from tests.support import synth
from tests.support.textgen import write_contract_in_filing

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("contract")
    src = d / "src"
    write_contract_in_filing(src, 91)
    db = d / "c.db"
    r = CliRunner().invoke(cli, ["ingest", "--db", str(db), "--batch", "a-batch-name-longer-than-eighty-columns-"
                                 "would-leave-room-for-in-a-table-of-ten-columns", str(src)])
    assert r.exit_code == 0, r.output
    rep = d / "report"
    r = CliRunner().invoke(cli, ["audit", "--db", str(db), "--out", str(rep)])
    assert r.exit_code == 0, r.output
    return {"db": db, "src": src, "dir": d, "report": rep}


def run(*args, env: dict | None = None):
    return CliRunner(env=env).invoke(cli, [str(a) for a in args])


def broken_controls(where: Path) -> Path:
    """The fixture controls with the embedded lease declared unrelated: a control that must fail."""
    from auditor.controls import default_controls_dir

    shutil.copytree(default_controls_dir(), where)
    manifest = json.loads((where / "manifest.json").read_text())
    manifest["controls"][0]["kind"] = "unrelated"
    (where / "manifest.json").write_text(json.dumps(manifest))
    return where


def test_ingest_exit_codes(corpus, tmp_path):
    db = tmp_path / "i.db"
    ok = run("ingest", "--db", db, corpus["src"] / "contract.txt")
    assert ok.exit_code == 0
    missing = run("ingest", "--db", db, "--json", tmp_path / "typo", corpus["src"] / "filing.txt")
    assert missing.exit_code == 2 and "no such file or directory" in missing.stderr
    out = json.loads(missing.stdout)  # the other input was ingested; the missing one is not stored
    assert out["counts"]["ok"] == 1 and out["missing"] == [str(tmp_path / "typo")] and not out["problems"]
    with Store(db) as s:
        assert s.scalar("SELECT count(*) FROM failures") == 0
    again = run("ingest", "--db", db, corpus["src"] / "filing.txt")
    assert again.exit_code == 0 and "unchanged=1" in again.stdout
    assert run("ingest", "--db", db, "--max-file-mb", "lots", corpus["src"]).exit_code == 2


def test_read_only_commands_exit_2_on_a_missing_store_or_document(corpus, tmp_path):
    for args in (("stats",), ("show", "1"), ("index",), ("controls",), ("audit",), ("withdraw", "1"),
                 ("compare", "1", "2"), ("near-dups", "--method", "exact"), ("runs",), ("findings",),
                 ("browse",)):
        r = run(args[0], "--db", tmp_path / "nope.db", *args[1:])
        assert r.exit_code == 2 and "no store" in r.stderr, (args, r.output)
    for args in (("show", "no-such-doc"), ("compare", "1", "no-such-doc"), ("withdraw", "no-such-doc")):
        r = run(args[0], "--db", corpus["db"], *args[1:])
        assert r.exit_code == 2, (args, r.output)
    assert run("stats", "--db", corpus["db"]).exit_code == 0
    assert run("show", "--db", corpus["db"], "1").exit_code == 0


def test_index_exit_codes_and_json(corpus):
    r = run("index", "--db", corpus["db"], "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["params"]["k"] == 5
    assert run("index", "--db", corpus["db"], "--k", "0").exit_code == 2


@pytest.mark.slow
def test_controls_exit_0_when_they_pass_and_2_when_one_fails(corpus, tmp_path):
    r = run("controls", "--db", corpus["db"], "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["passed"] is True
    bad = run("controls", "--db", corpus["db"], "--controls-dir", broken_controls(tmp_path / "ctl"))
    assert bad.exit_code == 2 and "controls failed" in bad.stderr
    assert run("controls", "--db", corpus["db"], "--controls-dir", tmp_path / "none").exit_code == 2


@pytest.mark.slow
def test_audit_exit_codes(corpus, tmp_path):
    bad = run("audit", "--db", corpus["db"], "--out", tmp_path / "r", "--controls-dir", broken_controls(tmp_path / "c"))
    assert bad.exit_code == 2 and json.loads((tmp_path / "r" / "report.json").read_text())["status"] == "REFUSED"
    assert run("audit", "--db", corpus["db"], "--engine", "hadoop").exit_code == 2


@pytest.mark.slow
def test_verify_exit_codes_and_json(corpus, tmp_path):
    r = run("verify", corpus["report"], "--db", corpus["db"], "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["ok"] is True
    tampered = tmp_path / "tampered"
    shutil.copytree(corpus["report"], tampered)
    report = json.loads((tampered / "report.json").read_text())
    report["findings"][0]["containment"] = 0.5
    (tampered / "report.json").write_text(json.dumps(report))
    r = run("verify", tampered, "--db", corpus["db"], "--json")
    assert r.exit_code == 1 and json.loads(r.stdout)["ok"] is False and json.loads(r.stdout)["problems"]
    assert run("verify", tampered, "--db", corpus["db"]).exit_code == 1
    assert run("verify", tmp_path / "no-report", "--db", corpus["db"]).exit_code == 2


def test_query_compare_near_dups_lsh_curve_exit_codes(corpus, tmp_path):
    assert run("query", "--db", corpus["db"], corpus["src"] / "contract.txt").exit_code == 0
    assert run("query", "--db", corpus["db"], tmp_path / "absent.txt").exit_code == 2
    assert run("compare", "--db", corpus["db"], "1", "2").exit_code == 0
    assert run("near-dups", "--db", corpus["db"], "--method", "exact", "--json").exit_code == 0
    assert run("near-dups", "--db", corpus["db"], "--method", "cosine").exit_code == 2
    assert run("lsh-curve", "--bands", "20", "--rows", "5").exit_code == 0
    assert run("lsh-curve", "--bands", "0", "--rows", "5").exit_code == 2
    assert run("no-such-command").exit_code == 2


def test_export_exit_codes(corpus, tmp_path):
    pytest.importorskip("pyarrow", reason="auditor export needs the [spark] extra (pyarrow)")
    assert run("export", "--db", corpus["db"], "--parquet", tmp_path / "x", "--json").exit_code == 0
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "keep.txt").write_text("mine")
    assert run("export", "--db", corpus["db"], "--parquet", tmp_path / "y").exit_code == 2


def test_spark_engine_without_the_extra_says_what_to_install(corpus, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark now raises ImportError
    r = run("audit", "--db", corpus["db"], "--engine", "spark")
    assert r.exit_code == 2, r.output
    assert "pip install 'containment-auditor[spark]'" in r.stderr and "internal error" not in r.stderr


def _path_without_java(tmp_path: Path) -> str:
    """PATH with every directory that holds a `java` left out (python stays reachable by its full path)."""
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and not (Path(p) / "java").exists()) or str(tmp_path)


@pytest.mark.slow
def test_spark_engine_without_java_exits_2_and_says_so(corpus, tmp_path):
    pytest.importorskip("pyspark", reason="needs the [spark] extra to get as far as looking for Java")
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "AUDITOR_DB")}
    env.update(PATH=_path_without_java(tmp_path), PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "auditor", "audit", "--db", corpus["db"], "--engine", "spark"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "no Java runtime" in r.stderr and "Java 17 or 21" in r.stderr and "internal error" not in r.stderr
    env["JAVA_HOME"] = str(tmp_path / "jdk")  # a JAVA_HOME without a java in it
    r = subprocess.run([sys.executable, "-m", "auditor", "audit", "--db", corpus["db"], "--engine", "spark"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "$JAVA_HOME" in r.stderr


@pytest.mark.slow
def test_the_spark_tests_skip_with_the_reason_when_java_is_missing(tmp_path):
    pytest.importorskip("pyspark", reason="without the [spark] extra the module skips for that reason instead")
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = _path_without_java(tmp_path)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                        str(ROOT / "tests" / "engine" / "test_spark.py")], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode in (0, 5), r.stdout + r.stderr  # 5: nothing ran, as a module-level skip reports alone
    assert "1 skipped" in r.stdout and "no Java runtime" in r.stdout and "error" not in r.stdout.lower()


def test_an_error_message_keeps_its_square_brackets(corpus):
    r = run("show", "--db", corpus["db"], "[spark]")
    assert r.exit_code == 2 and "'[spark]'" in r.stderr


def test_stats_in_a_pipe_is_not_cut_at_80_columns(corpus):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "AUDITOR_DB")}
    env["PYTHONPATH"] = str(ROOT)
    r = subprocess.run([sys.executable, "-m", "auditor", "stats", "--db", corpus["db"]], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert "a-batch-name-longer-than-eighty-columns-would-leave-room-for-in-a-table-of-ten-columns" in r.stdout
    assert "…" not in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) > 80  # one row per batch, at full width


def test_show_is_for_people_and_json_is_for_scripts(corpus):
    doc = corpus["src"] / "contract.txt"
    human = run("show", "--db", corpus["db"], doc)
    assert human.exit_code == 0
    lines = human.stdout.splitlines()
    assert lines[0].startswith("document ") and lines[0].endswith("contract.txt")
    assert "in the corpus (not withdrawn)" in human.stdout and "sightings (1):" in human.stdout
    assert "index: " in human.stdout and "sampled" in human.stdout
    assert any(line.startswith("findings in run ") for line in lines)
    assert any("contained in document" in line and "filing.txt: 1.0000" in line for line in lines)
    data = json.loads(run("show", "--db", corpus["db"], "--json", doc).stdout)
    assert data["sightings"][0]["path"] == str(doc) and data["withdrawn_at"] is None
    (f,) = data["latest_findings"]["findings"]
    assert f["contained"] == data["id"] and f["containment"] == 1.0
    text = run("show", "--db", corpus["db"], "--text", doc).stdout  # alone and exact: spans index into it
    assert text == (corpus["src"] / "contract.txt").read_text()
    other = run("show", "--db", corpus["db"], corpus["src"] / "other-1.txt")
    assert "findings: none in any stored audit run" in other.stdout  # the negative case


def test_commands_a_script_reads_have_json(corpus):
    for args in (("stats",), ("show", "1"), ("index",), ("controls",), ("query", corpus["src"] / "contract.txt"),
                 ("compare", "1", "2"), ("withdraw", "999999"), ("runs",)):
        r = run(args[0], "--db", corpus["db"], "--json", *args[1:])
        if args[0] == "withdraw":
            assert r.exit_code == 2 and json.loads(r.stdout)["unknown"]
            continue
        assert r.exit_code == 0, (args, r.output)
        json.loads(r.stdout)


def test_gate_exit_codes_for_a_missing_input(corpus, tmp_path):
    """docs/how-to/ci-gate.md: a missing path is an ingest error (exit 1) among other inputs; with no
    input found at all nothing was gated (exit 2). Neither is stored (dry run or not)."""
    from tests.support.textgen import prose

    (tmp_path / "new.txt").write_text(prose(95, 400))
    r = run("gate", "--db", corpus["db"], "--dry-run", "--out", tmp_path / "g1", "--json",
            tmp_path / "new.txt", tmp_path / "gone.txt")
    assert r.exit_code == 1, r.output
    errors = [f for f in json.loads(r.stdout)["findings"] if f["kind"] == "ingest-error"]
    assert [Path(f["new"]["path"]).name for f in errors] == ["gone.txt"]
    r = run("gate", "--db", corpus["db"], "--dry-run", "--out", tmp_path / "g2", tmp_path / "gone.txt")
    assert r.exit_code == 2 and "no input file was found" in r.output


@pytest.mark.slow
def test_out_refuses_a_directory_holding_files_the_auditor_did_not_write(corpus, tmp_path):
    """audit, gate and assemble write into a new or empty directory, or over their own earlier
    output; a stranger's file is never mixed with theirs (verify would fail on it)."""
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / "new.txt").write_text(synth.contract(93, 8_000))
    for command in (("audit",), ("gate", "--dry-run", str(batch)), ("assemble",)):
        out = tmp_path / f"{command[0]}-out"
        out.mkdir()
        (out / "notes.txt").write_text("mine")
        r = run(command[0], "--db", corpus["db"], "--out", out, *command[1:])
        assert r.exit_code == 2 and "not empty" in r.stderr and "notes.txt" in r.stderr, r.output
        assert (out / "notes.txt").read_text() == "mine"
        (out / "notes.txt").unlink()
        r = run(command[0], "--db", corpus["db"], "--out", out, *command[1:])
        assert r.exit_code in (0, 1), r.output
        first = sorted(p.name for p in out.iterdir())
        r = run(command[0], "--db", corpus["db"], "--out", out, *command[1:])  # over its own output
        assert r.exit_code in (0, 1), r.output
        assert sorted(p.name for p in out.iterdir()) == first
        if command[0] == "audit":
            assert run("verify", out, "--db", corpus["db"]).exit_code == 0
