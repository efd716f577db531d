"""Shared fixtures. Every document a test uses is generated here or by the test itself."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest

from auditor.store.db import Store


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory):
    """One cache for the session, never the user's: the fixture controls run once per key (code,
    parameters, threshold, fixtures) for the whole suite, subprocesses included, instead of once
    per audit."""
    was = os.environ.get("AUDITOR_CACHE")
    os.environ["AUDITOR_CACHE"] = str(tmp_path_factory.mktemp("auditor-cache"))
    yield
    if was is None:
        os.environ.pop("AUDITOR_CACHE", None)
    else:
        os.environ["AUDITOR_CACHE"] = was


@pytest.fixture(autouse=True)
def _no_cache_for_patched_code(request, monkeypatch):
    """A test that patches code at run time (a normaliser that drops every word...) is one the
    cache key cannot see: it runs its controls again, and reads no cached result it did not ask
    for."""
    if request.function is not None and "monkeypatch" in inspect.signature(request.function).parameters:
        monkeypatch.setenv("AUDITOR_NO_CACHE", "1")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "corpus.db"


@pytest.fixture
def store(db_path: Path):
    with Store(db_path) as s:
        yield s
