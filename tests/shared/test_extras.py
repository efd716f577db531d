"""The Spark engine's prerequisites are checked before use, and the reason is said in words."""

from __future__ import annotations

import shutil
import sys

import pytest

from auditor.errors import UsageError
from auditor.extras import java_problem, require_spark, spark_missing


def fake_java(home, version_line: str, code: int = 0):
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\nexit {code}\n")
    java.chmod(0o755)
    return home


@pytest.mark.parametrize(("line", "why"), [
    ('openjdk version "11.0.22" 2024-01-16', "is Java 11"),
    ('java version "1.8.0_401"', "is Java 8"),
])
def test_an_old_java_is_refused(tmp_path, monkeypatch, line, why):
    monkeypatch.setenv("JAVA_HOME", str(fake_java(tmp_path / "jdk", line)))
    assert why in java_problem()


def test_a_supported_java_passes(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(fake_java(tmp_path / "jdk", 'openjdk version "17.0.15" 2025-04-15')))
    assert java_problem() is None


def test_a_java_that_fails_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(fake_java(tmp_path / "jdk", "Error: broken", code=1)))
    assert "failed (exit 1)" in java_problem()


def test_no_java_on_path(tmp_path, monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert "no Java runtime on PATH" in java_problem()


def test_a_missing_module_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    why = spark_missing()
    assert "pyarrow" in why and "pip install 'containment-auditor[spark]'" in why
    with pytest.raises(UsageError, match=r"\[spark\]"):
        require_spark()


def test_nothing_is_missing_where_the_extra_and_java_are_installed():
    pytest.importorskip("pyspark")
    if not shutil.which("java"):
        pytest.skip("no java on PATH")
    assert spark_missing() is None
