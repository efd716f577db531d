"""A Parquet export read as the store a report and its controls read (``ExportStore``).

``auditor audit --engine spark --parquet DIR`` writes its report from an export (or from a
Spark ingest) alone, without the SQLite store. The report builder and the controls ask a store
a few questions: the documents' provenance, their sightings, the failed inputs, the index
counts, the sampled sets of the documents the corpus-drawn controls may draw, a text now and
then. ``ExportStore`` answers them from the export. It keeps the metadata tables in an
in-memory SQLite database (``conn``), so the same queries run unchanged, and reads texts from
``texts/`` when asked, one at a time.

What it holds on the driver: one row per document and per sighting, and the sampled sets
(one in 16 shingles, 8 bytes each), never a text beyond the few asked for, never a pair.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from auditor.engine.export import read_params
from auditor.errors import NoDocument, UsageError
from auditor.store.db import select_in
from auditor.text.shingle import Params

_SCHEMA = """
CREATE TABLE batches (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE documents (id INTEGER PRIMARY KEY, sha256 TEXT, path TEXT, format TEXT, extractor TEXT,
    extractor_version TEXT, encoding TEXT, size INTEGER, n_pages INTEGER, page_offsets TEXT,
    n_chars INTEGER, n_words INTEGER, norm_sha256 TEXT, parent_id INTEGER, duplicate_of INTEGER,
    meta TEXT, warnings TEXT, batch_id INTEGER, created TEXT, unreadable TEXT, date TEXT,
    date_source TEXT, withdrawn_at TEXT);
CREATE TABLE index_docs (doc_id INTEGER PRIMARY KEY, n_shingles INTEGER, n_sampled INTEGER, sampled BLOB);
CREATE TABLE sightings (id INTEGER PRIMARY KEY, doc_id INTEGER, batch_id INTEGER, path TEXT,
    resolved TEXT, part TEXT, within_id INTEGER, size INTEGER, mtime TEXT, source TEXT, meta TEXT,
    seen_at TEXT);
CREATE INDEX sightings_doc ON sightings(doc_id);
CREATE TABLE failures (id INTEGER PRIMARY KEY, batch_id INTEGER, status TEXT, code TEXT, message TEXT,
    path TEXT, part TEXT, sha256 TEXT);
"""
_DOCS = ("id", "sha256", "path", "format", "extractor", "extractor_version", "encoding", "size", "n_pages",
         "page_offsets", "n_chars", "n_words", "norm_sha256", "parent_id", "duplicate_of", "meta", "warnings",
         "batch", "created", "unreadable", "date", "date_source")
_SIGHTINGS = ("doc_id", "batch", "path", "resolved", "part", "within_id", "size", "mtime", "source", "meta",
              "seen_at")


class ExportStore:
    """The read side of a Store, served from a Parquet export (see the module docstring)."""

    private = False
    reads = None
    memo = None

    def __init__(self, directory: str | Path) -> None:
        import pyarrow.parquet as pq

        self.directory = self.path = Path(directory)
        self.meta = read_params(self.directory)
        self.params = Params(**self.meta["params"])
        self.conn = sqlite3.connect(":memory:")
        self.conn.executescript(_SCHEMA)
        batch_ids: dict[str, int] = {}

        def batch(name: Any) -> int:
            return batch_ids.setdefault(str(name), len(batch_ids) + 1)

        docs = pq.read_table(self.directory / "documents")
        rows = docs.select(list(_DOCS)).to_pylist()
        self.conn.executemany(
            f"INSERT INTO documents ({', '.join(c if c != 'batch' else 'batch_id' for c in _DOCS)})"
            f" VALUES ({','.join('?' * len(_DOCS))})",
            [tuple(batch(r[c]) if c == "batch" else r[c] for c in _DOCS) for r in rows])
        counts = docs.select(["id", "n_shingles", "n_sampled"]).to_pylist()
        sampled = self._sampled()
        empty = np.empty(0, np.uint64).tobytes()
        self.conn.executemany("INSERT INTO index_docs VALUES (?,?,?,?)", [
            (r["id"], r["n_shingles"], r["n_sampled"], sampled.get(r["id"], empty))
            for r in counts if r["n_sampled"] is not None])
        del rows, counts, sampled
        seen = pq.read_table(self.directory / "sightings").select(list(_SIGHTINGS)).to_pylist()
        self.conn.executemany(
            f"INSERT INTO sightings ({', '.join(c if c != 'batch' else 'batch_id' for c in _SIGHTINGS)})"
            f" VALUES ({','.join('?' * len(_SIGHTINGS))})",
            [tuple(batch(r[c]) if c == "batch" else r[c] for c in _SIGHTINGS) for r in seen])
        if (self.directory / "failures").is_dir():
            failed = pq.read_table(self.directory / "failures").to_pylist()
            self.conn.executemany("INSERT INTO failures VALUES (?,?,?,?,?,?,?,?)", [
                (r["id"], batch(r["batch"]), r["status"], r["code"], r["message"], r["path"], r["part"],
                 r["sha256"]) for r in failed])
        self.conn.executemany("INSERT INTO batches VALUES (?, ?)", [(i, n) for n, i in batch_ids.items()])

    def _sampled(self) -> dict[int, bytes]:
        """Each document's sampled set as the store keeps it: sorted uint64, as bytes."""
        import pyarrow.parquet as pq

        t = pq.read_table(self.directory / "postings", columns=["doc_id", "hash"])
        if not t.num_rows:
            return {}
        d = t.column("doc_id").to_numpy()
        h = t.column("hash").to_numpy().view(np.uint64)
        order = np.lexsort((h, d))
        d, h = d[order], h[order]
        edges = np.concatenate(([0], np.flatnonzero(np.diff(d)) + 1, [len(d)]))
        return {int(d[a]): h[a:b].tobytes() for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)}

    # -- what callers of a Store use -----------------------------------------------------------

    def select_in(self, sql: str, ids: Iterable[int]) -> list[tuple]:
        return select_in(self.conn, sql, ids)

    def scalar(self, sql: str, params: tuple = ()) -> Any:
        row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else None

    def rows(self, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, params)
        names = [c[0] for c in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    def noted(self, table: str, ids: Iterable[int]) -> None:
        """A store recording its reads notes them; an export records none."""

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        yield  # an export does not change under a reader

    def texts_of(self, ids: Iterable[int]) -> Iterator[tuple[int, str]]:
        """(id, text) of each of ``ids``, in one pass over ``texts/`` (written in id order)."""
        import pyarrow.parquet as pq

        wanted = set(ids)
        for part in sorted((self.directory / "texts").glob("*.parquet")):
            for batch in pq.ParquetFile(part).iter_batches(columns=["doc_id", "text"], batch_size=256):
                for doc_id, text in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True):
                    if doc_id in wanted:
                        yield int(doc_id), str(text)

    @functools.lru_cache(maxsize=64)  # noqa: B019 - one export per audit; entries come by container
    def text(self, doc_id: int) -> str:
        import pyarrow.parquet as pq

        t = pq.read_table(self.directory / "texts", filters=[("doc_id", "=", doc_id)])
        if t.num_rows == 0:
            raise NoDocument(f"document {doc_id} has no text in {self.directory}")
        return str(t.column("text")[0].as_py())

    def document(self, doc_id: int) -> dict[str, Any]:
        cur = self.conn.execute("SELECT * FROM documents WHERE id = ?", (doc_id,))
        row = cur.fetchone()
        if row is None:
            raise NoDocument(f"no document {doc_id} in {self.directory}")
        d = dict(zip([c[0] for c in cur.description], row, strict=True))
        d["page_offsets"] = json.loads(d["page_offsets"]) if d["page_offsets"] else None
        return d

    def require_writable(self, why: str) -> None:
        raise UsageError(f"a Parquet export is read, never written: {why}")
