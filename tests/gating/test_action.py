"""The composite GitHub Action (action.yml) and the pre-commit hook, run as far as this machine
allows: the gate step's own bash script, with GitHub's environment files and the inputs it is
given, on a real store; the install step is the same `pip install` .ci/run checks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from auditor.corpus.ingest import ingest
from auditor.store.db import Store
from tests.support import synth

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


def _expr(value: str, inputs: dict[str, str]) -> str:
    """GitHub's ${{ inputs.x }} / ${{ github.action_path }} expressions, for this test's values."""
    return re.sub(r"\$\{\{\s*(inputs\.([\w-]+)|github\.action_path)\s*\}\}",
                  lambda m: str(ROOT) if m.group(1) == "github.action_path" else inputs[m.group(2)], value)


def _run_step(step: dict, inputs: dict[str, str], tmp: Path, env: dict[str, str]) -> tuple[int, dict[str, str]]:
    out = tmp / f"output-{step.get('id', 'x')}"
    out.write_text("")
    step_env = {**os.environ, **env, "RUNNER_TEMP": str(tmp), "GITHUB_OUTPUT": str(out),
                "GITHUB_ENV": str(tmp / "env")}
    step_env.update({k: _expr(str(v), inputs) for k, v in (step.get("env") or {}).items()})
    r = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp, env=step_env, capture_output=True, text=True)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    return r.returncode, outputs


def test_the_action_declares_what_its_steps_use():
    steps = ACTION["runs"]["steps"]
    assert ACTION["runs"]["using"] == "composite" and all(s["shell"] == "bash" for s in steps)
    used = {m for s in steps for v in (s.get("env") or {}).values() for m in re.findall(r"inputs\.([\w-]+)", str(v))}
    assert used == set(ACTION["inputs"])  # every input is used, and only declared ones
    for name, o in ACTION["outputs"].items():
        assert o["value"] == f"${{{{ steps.gate.outputs.{name} }}}}"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("action")
    lease = synth.contract(71, 12_000)
    (d / "corpus").mkdir()
    (d / "corpus" / "lease.txt").write_text(lease)
    (d / "corpus" / "credit.txt").write_text(synth.contract(72, 12_000))
    (d / "corpus" / "f.txt").write_text(synth.filing(73, 40_000)[0])
    with Store(d / "corpus.db") as store:
        ingest(store, [d / "corpus"], batch="corpus", workers=1)
    (d / "docs").mkdir()
    (d / "docs" / "copy of lease.txt").write_text(lease)
    (d / "docs" / "new.txt").write_text(synth.contract(74, 12_000))
    return d


@pytest.mark.parametrize("files, verdict, code", [(["docs/copy of lease.txt", "docs/new.txt"], "FAILED", 1),
                                                  (["docs/new.txt"], "PASSED", 0), ([], "PASSED", 0)])
@pytest.mark.slow
def test_the_gate_step_gates_the_paths_and_sets_its_outputs(corpus, tmp_path, files, verdict, code):
    (tmp_path / "added").write_bytes(b"".join(str(corpus / f).encode() + b"\0" for f in files))
    inputs = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    inputs.update(db=str(corpus / "corpus.db"), paths=str(tmp_path / "added"), out=str(tmp_path / "gate-report"))
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "gate")
    rc, outputs = _run_step(step, inputs, tmp_path, {"AUDITOR_BIN": str(Path(sys.executable).parent / "auditor")})
    assert (rc, outputs["verdict"], outputs["exit-code"]) == (code, verdict, str(code))
    if files:
        assert (tmp_path / "gate-report" / "gate.sarif").is_file() and (tmp_path / "gate-report" / "junit.xml").is_file()
        assert outputs["report"] == str(tmp_path / "gate-report")


def test_the_pre_commit_hook_is_a_dry_run_gate():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "containment-gate" and hook["language"] == "python" and hook["pass_filenames"]
    assert hook["entry"].split()[:3] == ["auditor", "gate", "--dry-run"]
