"""A new document too short for one shingle passes the gate, listed as short, only when its reading
is otherwise trusted (gating/classify.py ``short_documents``): text readable, every construct
modelled, no page unread. Each of those reasons still fails it closed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.gating import admission
from auditor.gating.admission import GateOptions, run_gate
from auditor.store.db import Store
from tests.support import synth

pytestmark = pytest.mark.slow


@pytest.fixture
def db(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "lease.txt").write_text(synth.contract(8002, 4_000, kind="lease"))
    (tmp_path / "corpus" / "loan.txt").write_text(synth.contract(8004, 4_000, kind="credit"))
    with Store(tmp_path / "c.db") as store:
        ingest(store, [tmp_path / "corpus"], batch="corpus", workers=1)
    return tmp_path / "c.db"


def _gate(tmp_path: Path, db: Path, files: dict[str, str], spoil: str | None = None, monkeypatch=None):
    """Gate ``files`` (a dry run, no rendering); ``spoil`` marks the short document's stored row as
    a reader would for an unreadable text, a construct outside the model or a page not read."""
    batch = tmp_path / "batch"
    batch.mkdir()
    for name, text in files.items():
        (batch / name).write_text(text)
    if spoil is not None:
        real = admission.ingest

        def ingest_then_spoil(store, *a, **k):  # type: ignore[no-untyped-def]
            result = real(store, *a, **k)
            sql = {"unreadable": "UPDATE documents SET unreadable = 'cid-glyphs: unmapped glyphs' WHERE path LIKE ?",
                   "unmodelled": "UPDATE documents SET unmodelled = '[\"html: element <slot>\"]' WHERE path LIKE ?",
                   "unread": "UPDATE documents SET meta = '" + json.dumps(
                       {"unread_pages": [{"page": 2, "reason": "page 2 is a scan, and OCR failed"}],
                        "unread_share": 0.5}) + "' WHERE path LIKE ?"}[spoil]
            with store.write():
                store.conn.execute(sql, ("%short.txt",))
            return result

        monkeypatch.setattr(admission, "ingest", ingest_then_spoil)
    return run_gate(GateOptions(db=db, inputs=[batch], batch="b", dry_run=True, out=tmp_path / "out", workers=1,
                                render="never"))


def test_a_three_word_text_passes_as_short(tmp_path, db):
    g = _gate(tmp_path, db, {"short.txt": "See you soon.", "other.txt": synth.contract(8003, 3_000, kind="supply")})
    assert g.status == "PASSED", [f.sentence() for f in g.findings]
    rows = {Path(d["path"]).name: d for d in g.documents}
    assert rows["short.txt"]["status"] == "short" and "3 words" in rows["short.txt"]["reason"]
    assert rows["other.txt"]["status"] == "passed" and g.counts["short_documents"] == 1
    assert "short.txt" in (tmp_path / "out" / "gate.json").read_text()


@pytest.mark.parametrize("spoil,said", [("unreadable", "cid-glyphs"), ("unmodelled", "not-modelled"),
                                        ("unread", "pages not read")])
def test_a_short_text_that_cannot_be_trusted_still_fails_closed(tmp_path, db, monkeypatch, spoil, said):
    g = _gate(tmp_path, db, {"short.txt": "See you soon."}, spoil, monkeypatch)
    assert g.status == "FAILED", (g.refused_because, g.notes)
    assert [f.kind for f in g.findings] == ["not-auditable"] and said in g.findings[0].sentence()
    assert [d["status"] for d in g.documents] == ["failed"]
