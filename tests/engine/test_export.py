"""``auditor export`` carries what either engine reads: the not-auditable list and the duplicate
groups read back from an export (as the Spark engine's driver reads them, no Java needed) are
the SQLite engine's, an unreadable document included. tests/engine/test_spark.py runs the whole audit
on the export when Java is there."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("pyarrow", reason="auditor export needs the [spark] extra (pyarrow)")

import pyarrow.parquet as pq

from auditor.corpus.ingest import ingest
from auditor.engine.export import DOCUMENT_SCHEMA, export_parquet, read_params
from auditor.engine.export_store import ExportStore
from auditor.engine.universe import duplicate_groups, not_auditable, universe
from auditor.errors import UsageError
from auditor.store.db import Store
from tests.support import synth


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    d = tmp_path_factory.mktemp("export")
    docs = d / "docs"
    docs.mkdir()
    contract = synth.contract(611, 3_000)
    (docs / "contract.txt").write_text(contract)
    (docs / "contract-crlf.txt").write_text(contract.replace("\n", "\r\n"))  # an exact duplicate
    (docs / "filing.txt").write_text(synth.filing(612, 8_000, exhibits=[contract])[0])
    (docs / "tiny.txt").write_text("Section 1. Definitions.")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 4)  # fails to extract, is recorded
    r = random.Random(7)  # Latin-1 noise: words, but not readable text
    (docs / "gibberish.txt").write_bytes(bytes(r.choice([*range(0xA0, 0x100), 0x20, 0x20]) for _ in range(4000)))
    with Store(d / "corpus.db") as store:
        ingest(store, [docs], workers=1)
        export_parquet(store, d / "parquet", buckets=2)
        yield store, d / "parquet"


SHARED = ("id", "sha256", "path", "n_words", "duplicate_of", "norm_sha256", "unreadable", "date", "date_source",
          "n_chars", "meta", "page_offsets")


def test_the_export_carries_every_documents_column_the_engines_read(exported):
    store, out = exported
    assert set(SHARED) <= set(DOCUMENT_SCHEMA.names)
    cols = ", ".join(SHARED)
    want = store.rows(f"SELECT {cols} FROM documents ORDER BY id")
    assert ExportStore(out).rows(f"SELECT {cols} FROM documents ORDER BY id") == want  # read back as a store
    got = {d["id"]: d for d in pq.read_table(out / "documents").to_pylist()}
    assert [{c: got[r["id"]][c] for c in SHARED} for r in want] == want


def test_failed_inputs_travel_with_the_export(exported):
    store, out = exported
    sql = "SELECT path, part, status, code, message, sha256 FROM failures ORDER BY id"
    want = store.rows(sql)
    assert want and any(r["path"].endswith("broken.pdf") for r in want)  # the fixture's one failure
    assert ExportStore(out).rows(sql) == want


def test_an_unreadable_document_stays_not_auditable_through_the_export(exported):
    store, out = exported
    unreadable = store.scalar("SELECT id FROM documents WHERE unreadable IS NOT NULL")
    assert unreadable is not None and store.scalar("SELECT n_words FROM documents WHERE id = ?", (unreadable,)) > 0
    src = ExportStore(out)
    want = not_auditable(store, store.params)
    assert unreadable in {x["doc_id"] for x in want}
    assert any(x["reason"].startswith("text not readable") for x in want)
    assert any(x["reason"].startswith("too short") for x in want)
    assert not_auditable(src, src.params) == want
    assert duplicate_groups(src) == duplicate_groups(store) != []
    assert universe(src).representative == universe(store).representative


def test_an_export_of_another_format_is_refused(exported, tmp_path):
    _, out = exported
    meta = read_params(out)
    (tmp_path / "params.json").write_text(json.dumps({**meta, "format": "containment-auditor-parquet/0"}))
    with pytest.raises(UsageError, match=r"parquet/0.*export the store again"):
        read_params(tmp_path)
    # format 1, before sequences/: still read (its words come from texts/)
    (tmp_path / "params.json").write_text(json.dumps({**meta, "format": "containment-auditor-parquet/1"}))
    assert read_params(tmp_path)["format"] == "containment-auditor-parquet/1"


def test_word_sequences_travel_with_the_export(exported, tmp_path):
    """sequences/ holds the store's word sequences, byte for byte, with their word counts and
    digests: one row per document with words. A document the store holds
    no sequence for (indexed before sequences were stored) gets the one ingest would derive."""
    from auditor.text.shingle import WordSequence

    store, out = exported
    want = [(int(d), int(n), h, bytes(data)) for d, n, h, data in store.conn.execute(
        "SELECT doc_id, n_words, sha256, data FROM shingle_sequences ORDER BY doc_id")]
    got = [(r["doc_id"], r["n_words"], r["sha256"], r["data"]) for r in pq.read_table(out / "sequences").to_pylist()]
    assert got == want and len(got) == store.scalar("SELECT count(*) FROM documents WHERE n_words > 0")
    assert read_params(out)["with_sequences"] and read_params(out)["counts"]["sequences"] == len(want)
    first = want[0]
    assert len(WordSequence.decode(first[3])) == first[1]
    import sqlite3

    with sqlite3.connect(tmp_path / "older.db") as copy:
        store.conn.backup(copy)
    with Store(tmp_path / "older.db") as older:
        with older.write("test", {"drop": "one sequence"}):
            older.conn.execute("DELETE FROM shingle_sequences WHERE doc_id = ?", (first[0],))
        export_parquet(older, tmp_path / "parquet")
    again = [(r["doc_id"], r["n_words"], r["sha256"], r["data"]) for r in
             pq.read_table(tmp_path / "parquet" / "sequences").to_pylist()]
    assert again == want


def test_sampled_sets_are_read_when_asked_and_only_those(exported):
    """The export's sampled sets are the store's, read by id: opening an export reads none, a
    query for two documents reads theirs, a query over every row reads them all."""
    store, out = exported
    want = dict(store.conn.execute("SELECT doc_id, sampled FROM index_docs ORDER BY doc_id"))
    ids = sorted(d for d, blob in want.items() if blob)[:2]
    assert len(ids) == 2
    src = ExportStore(out)
    assert src._sets == {}
    got = dict(src.select_in("SELECT doc_id, sampled FROM index_docs WHERE doc_id IN ({})", ids))
    assert got == {d: want[d] for d in ids}
    assert sorted(src._sets) == ids and not src._all_sets  # the others were not read
    assert src.select_in("SELECT doc_id, n_sampled FROM index_docs WHERE doc_id IN ({})", sorted(want))
    assert sorted(src._sets) == ids  # counts need no set
    assert dict(src.conn.execute("SELECT doc_id, sampled FROM index_docs ORDER BY doc_id")) == want


def test_row_tables_are_written_in_bounded_row_groups_and_read_back_whole(exported, tmp_path, monkeypatch):
    """A reader decodes a Parquet row group whole: documents/ and sightings/ in one row group
    would put the whole table in the memory of the driver that opens the export."""
    from auditor.engine import export

    store, _ = exported
    monkeypatch.setattr(export, "TABLE_ROW_GROUP_ROWS", 2)
    export_parquet(store, tmp_path / "small-groups", buckets=1)
    for table, rows in (("documents", store.scalar("SELECT count(*) FROM documents")),
                        ("sightings", store.scalar("SELECT count(*) FROM sightings"))):
        meta = pq.ParquetFile(next((tmp_path / "small-groups" / table).glob("*.parquet"))).metadata
        assert rows > 2 and meta.num_rows == rows
        assert meta.num_row_groups == -(-rows // 2)  # of at most 2 rows each
    cols = ", ".join(SHARED)
    assert ExportStore(tmp_path / "small-groups").rows(f"SELECT {cols} FROM documents ORDER BY id") == \
        store.rows(f"SELECT {cols} FROM documents ORDER BY id")
