"""A full disk is named as such (DiskFull, exit 2) and the store keeps what it held before."""

from __future__ import annotations

import errno
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.errors import DiskFull, is_disk_full
from auditor.report.build import write_text_atomic
from auditor.store.db import Store
from tests.support import synth

ROOT = Path(__file__).resolve().parents[2]


def test_a_store_that_runs_out_of_pages_raises_disk_full_and_keeps_its_documents(tmp_path, db_path):
    for i in range(3):
        (tmp_path / f"c{i}.txt").write_text(synth.contract(i, 20_000))
    with Store(tmp_path / "measure.db") as store:  # the pages one more file takes
        ingest(store, [tmp_path / "c0.txt"], workers=1)
        before = store.scalar("PRAGMA page_count")
        ingest(store, [tmp_path / "c1.txt"], workers=1)
        one = store.scalar("PRAGMA page_count") - before
    with Store(db_path) as store:
        ingest(store, [tmp_path / "c0.txt"], workers=1)
        pages = store.scalar("PRAGMA page_count")
        store.conn.execute(f"PRAGMA max_page_count = {pages + one + one // 2}")  # room for one file
        with pytest.raises(DiskFull, match="no space left") as e:
            ingest(store, [tmp_path / "c1.txt", tmp_path / "c2.txt"], batch="second", workers=1)
        assert "Kept: 1 of its files and parts" in str(e.value) and "resumes" in str(e.value)
    with Store(db_path) as store:
        assert store.integrity_check() == "ok"
        assert store.scalar("SELECT count(*) FROM documents") == 2
        assert ingest(store, [tmp_path], workers=1).counts["ok"] == 1  # room again: it resumes


def test_a_report_file_that_cannot_be_written_for_lack_of_space_is_disk_full(tmp_path, monkeypatch):
    def full(self, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(DiskFull):
        write_text_atomic(tmp_path / "report.md", "x")
    assert not list(tmp_path.iterdir())  # nothing half-written left behind
    assert is_disk_full(sqlite3.OperationalError("database or disk is full"))
    assert not is_disk_full(sqlite3.OperationalError("database is locked"))


def test_the_cli_names_a_full_disk_and_exits_2(tmp_path):
    """/dev/full refuses every write with ENOSPC: a report written there fails as a full disk."""
    (tmp_path / "a.txt").write_text(synth.contract(1, 6_000))
    code = ("import sys; from auditor.cli import cli; from pathlib import Path\n"
            "import auditor.report.build as r\n"
            "real = r.write_text_atomic\n"
            "def to_full(path, text):\n"
            "    with open('/dev/full', 'w') as f: f.write(text); f.flush()\n"
            "r.write_text_atomic = to_full\n"
            "import auditor.report.pipeline as p; p.write_text_atomic = to_full\n"
            "sys.argv = ['auditor'] + sys.argv[1:]; cli()\n")
    subprocess.run([sys.executable, "-m", "auditor", "ingest", "--db", "c.db", "a.txt"], cwd=tmp_path, check=True,
                   capture_output=True)
    r = subprocess.run([sys.executable, "-c", code, "audit", "--db", "c.db", "--allow-empty", "--out", "rep"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert "no space left on the device" in r.stderr and "internal error" not in r.stderr


def test_a_gate_that_runs_out_of_space_keeps_nothing_of_its_batch(tmp_path, db_path):
    from auditor.gating import GateOptions, run_gate

    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "c0.txt").write_text(synth.contract(0, 20_000))
    (tmp_path / "batch").mkdir()
    for i in range(1, 5):
        (tmp_path / "batch" / f"c{i}.txt").write_text(synth.contract(i, 80_000))
    with Store(db_path) as store:
        ingest(store, [tmp_path / "corpus"], workers=1)
        pages = store.scalar("PRAGMA page_count")
    import auditor.store.db as db

    real = db.Store.pending

    def tight(self):  # the page limit holds for the gate's own connection
        self.conn.execute(f"PRAGMA max_page_count = {pages + 30}")
        return real(self)

    import contextlib

    with contextlib.ExitStack() as stack:
        mp = stack.enter_context(pytest.MonkeyPatch.context())
        mp.setattr(db.Store, "pending", tight)
        with pytest.raises(Exception) as e:
            run_gate(GateOptions(db=db_path, inputs=[tmp_path / "batch"], workers=1, out=tmp_path / "g"))
        assert is_disk_full(e.value) or isinstance(e.value, DiskFull)
    with Store(db_path) as store:
        assert store.integrity_check() == "ok"
        assert store.scalar("SELECT count(*) FROM documents") == 1  # nothing of the batch was kept
