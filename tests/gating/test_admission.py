"""A batch is admitted only by its verdict: the gate works in one transaction, committed only
when it passes. A gate that fails, is interrupted or is killed with ``kill -9`` at any point
leaves nothing of its batch in the store, so no later gate trusts it as corpus."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.store.db import Store
from tests.support import synth
from tests.support.fixtures_build import make_pdf

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "AUDITOR_DB")}
    env.update({"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"})
    return env


def _start(root: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "auditor", "gate", "--db", "main.db", *args], cwd=root,
                            env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _gate(root: Path, *args: str) -> tuple[int, str]:
    p = _start(root, *args)
    out, errs = p.communicate(timeout=300)
    return p.returncode, out + errs


@pytest.fixture
def root(tmp_path: Path) -> dict:
    """main.db holding a lease; pr/ holding a reformatted copy of it (the gate must fail it),
    a PDF and a few unrelated contracts, so that the gate has work at every stage."""
    lease = synth.contract(71, 12_000, kind="lease")
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "lease.txt").write_text(lease)
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        with Store(tmp_path / "main.db") as store:
            ingest(store, [Path("documents")], batch="main", workers=1)
    finally:
        os.chdir(cwd)
    pr = tmp_path / "pr"
    pr.mkdir()
    (pr / "copy.txt").write_text(synth.reformat(lease, 3))
    for i in range(4):
        (pr / f"other-{i}.txt").write_text(synth.contract(80 + i, 12_000))
    lines = synth.contract(90, 8_000).split("\n")
    (pr / "scan.pdf").write_bytes(make_pdf(["\n".join(lines[i:i + 40]) for i in range(0, len(lines), 40)]))
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "fresh.txt").write_text(synth.contract(95, 12_000))
    shas = {hashlib.sha256(f.read_bytes()).hexdigest() for f in pr.iterdir()}
    return {"dir": tmp_path, "shas": shas}


def _batch_in_store(root: dict) -> list[str]:
    with Store(root["dir"] / "main.db", create=False) as s:
        stored = {r[0] for r in s.conn.execute("SELECT sha256 FROM documents")}
        failed = {r[0] for r in s.conn.execute("SELECT sha256 FROM failures")}
    return sorted((stored | failed) & root["shas"])


def _check(root: dict) -> None:
    r = subprocess.run([sys.executable, "-m", "auditor", "check", "--db", "main.db"], cwd=root["dir"], env=_env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow
def test_a_failing_gate_leaves_nothing_of_its_batch_and_a_passing_one_is_admitted(root):
    code, out = _gate(root["dir"], "--batch", "pr", "--out", "failed", "pr")
    assert code == 1, out
    g = json.loads((root["dir"] / "failed" / "gate.json").read_text())
    assert g["status"] == "FAILED" and g["admitted"] is False
    assert any(f["kind"] == "new-in-corpus" and f["new"]["path"] == "pr/copy.txt" for f in g["findings"])
    assert any("was not admitted" in n for n in g["notes"])
    assert _batch_in_store(root) == []
    code, out = _gate(root["dir"], "--batch", "clean", "--out", "clean-out", "clean")
    assert code == 0, out
    assert json.loads((root["dir"] / "clean-out" / "gate.json").read_text())["admitted"] is True
    with Store(root["dir"] / "main.db", create=False) as s:
        assert s.scalar("SELECT count(*) FROM documents") == 2
        verdicts = [r[0] for r in s.conn.execute("SELECT verdict FROM runs WHERE kind = 'gate' ORDER BY id")]
    assert verdicts == ["FAILED", "PASSED"]
    _check(root)


@pytest.mark.slow  # a dozen real gates, each killed or interrupted part-way
def test_a_gate_killed_at_any_point_leaves_nothing_that_a_later_gate_trusts(root):
    started = time.monotonic()
    code, out = _gate(root["dir"], "--dry-run", "--out", "timing", "pr")
    assert code == 1, out
    whole = time.monotonic() - started
    for i, share in enumerate((0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.97)):
        p = _start(root["dir"], "--batch", f"killed-{i}", "--out", f"killed-{i}", "pr")
        time.sleep(whole * share)
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate(timeout=60)
        assert _batch_in_store(root) == [], f"killed at {share:.0%} of the gate"
        # the next gate, of another batch, gates only its own documents and passes
        code, out = _gate(root["dir"], "--dry-run", "--batch", f"next-{i}", "--out", f"next-{i}", "clean")
        assert code == 0, out
        g = json.loads((root["dir"] / f"next-{i}" / "gate.json").read_text())
        assert [d["path"] for d in g["documents"]] == ["clean/fresh.txt"]
    _check(root)
    # and the killed batch, gated again under any name, still fails
    code, out = _gate(root["dir"], "--batch", "retry", "--out", "retry", "pr")
    assert code == 1, out
    assert _batch_in_store(root) == []


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_gate_exits_2_with_a_gate_json_that_says_so(root, sig):
    started = time.monotonic()
    code, out = _gate(root["dir"], "--dry-run", "--out", "timing", "pr")
    assert code == 1, out
    whole = time.monotonic() - started
    p = _start(root["dir"], "--batch", "pr", "--out", "stopped", "pr")
    time.sleep(whole * 0.6)
    os.kill(p.pid, sig)
    out, errs = p.communicate(timeout=120)
    assert p.returncode == 2, out + errs
    g = json.loads((root["dir"] / "stopped" / "gate.json").read_text())
    assert g["status"] == "ERROR" and g["interrupted"] == sig.name and g["admitted"] is False
    assert g["notes"][0].startswith(f"interrupted by {sig.name}")
    assert "Aborted!" not in errs and "Traceback" not in errs
    assert _batch_in_store(root) == []
    _check(root)
