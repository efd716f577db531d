"""Shared fixtures. Every document a test uses is generated here or by the test itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.store.db import Store


@pytest.fixture(autouse=True)
def _no_controls_cache(monkeypatch):
    """Tests patch the code at run time (a normaliser that drops every word...), which the
    fixture controls' cache key cannot see: no test reads a cached result unless it asks."""
    monkeypatch.setenv("AUDITOR_NO_CACHE", "1")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "corpus.db"


@pytest.fixture
def store(db_path: Path):
    with Store(db_path) as s:
        yield s
