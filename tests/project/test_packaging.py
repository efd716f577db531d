"""The package as users install it: a wheel that carries its controls and runs outside a checkout."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from auditor import controls

ROOT = Path(__file__).resolve().parents[2]


def test_auditor_controls_overrides_every_other_location(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDITOR_CONTROLS", str(tmp_path))
    assert controls.default_controls_dir() == tmp_path


def test_installed_controls_come_before_a_checkout(tmp_path, monkeypatch):
    monkeypatch.delenv("AUDITOR_CONTROLS", raising=False)
    assert controls.default_controls_dir() == ROOT / "controls"  # editable install: the checkout's
    installed = tmp_path / "auditor"
    (installed / "_data" / "controls").mkdir(parents=True)
    monkeypatch.setattr(controls.importlib.resources, "files", lambda pkg: installed)
    assert controls.default_controls_dir() == ROOT / "controls"  # no manifest: not a controls directory
    (installed / "_data" / "controls" / "manifest.json").write_text("{}")
    assert controls.default_controls_dir() == installed / "_data" / "controls"


def _source_copy(dest: Path) -> Path:
    """What a build needs, copied, so that no stale build/ directory of the checkout leaks in."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, dest / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("auditor", "controls"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    return dest


@pytest.mark.slow
def test_a_wheel_installed_outside_the_checkout_runs_the_demo_and_verifies_it(tmp_path):
    """Build the wheel, install it in a fresh virtual environment, run demo and verify elsewhere.

    The environment reuses this one's dependencies through a .pth file (installing numpy, lxml and
    the rest again would dominate the suite's time); only the auditor comes from the wheel.
    """
    src = _source_copy(tmp_path / "src")
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, src],
                   check=True, capture_output=True, text=True)
    (wheel,) = dist.glob("containment_auditor-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "auditor").rglob("*.py")
               if "__pycache__" not in p.parts}
    assert modules <= names, f"modules missing from the wheel: {sorted(modules - names)}"
    fixtures = {"auditor/_data/" + p.relative_to(ROOT).as_posix() for p in (ROOT / "controls").rglob("*")
                if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}
    assert fixtures <= names, f"controls missing from the wheel: {sorted(fixtures - names)}"
    assert "auditor/demo/files/corpus.zip" in names
    licence = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))  # PEP 639 license-files
    assert zipfile.ZipFile(wheel).read(licence) == (ROOT / "LICENSE").read_bytes()
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in metadata and "License-File: LICENSE" in metadata
    assert not any(n.endswith("synth.py") for n in names)  # the corpus is data: no text generator in the wheel

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    py = venv / "bin" / "python"
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(purelib) / "auditor-test-deps.pth").write_text("\n".join(deps) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps", "--no-index",
                    wheel], check=True, capture_output=True, text=True)

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("AUDITOR_CONTROLS", "PYTHONPATH", "AUDITOR_DB")}
    where = subprocess.run([py, "-c", "import auditor.controls as c; print(c.__file__); print(c.default_controls_dir())"],
                           cwd=work, env=env, check=True, capture_output=True, text=True).stdout.split()
    assert where[0].startswith(purelib) and where[1] == str(Path(purelib) / "auditor" / "_data" / "controls")

    auditor = venv / "bin" / "auditor"
    demo = subprocess.run([auditor, "demo", "--dir", work / "demo"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    (report_dir,) = (work / "demo" / "reports").iterdir()
    report = json.loads((report_dir / "report.json").read_text())
    assert report["status"] != "REFUSED" and report["findings"]
    assert {c["source"] for c in report["controls"]} == {"fixture", "corpus"}
    assert all(c["passed"] for c in report["controls"])
    verify = subprocess.run([auditor, "verify", report_dir, "--db", work / "demo" / "demo.db"],
                            cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert verify.returncode == 0 and "verified" in verify.stdout, verify.stdout + verify.stderr
