"""A Parquet export read as the store a report and its controls read (``ExportStore``).

``auditor audit --engine spark --parquet DIR`` writes its report from an export (or from a
Spark ingest) alone, without the SQLite store. The report builder and the controls ask a store
a few questions: the documents' provenance, their sightings, the failed inputs, the index
counts, the sampled sets of the documents the corpus-drawn controls may draw, a text now and
then. ``ExportStore`` answers them from the export. It keeps the metadata tables in a scratch
SQLite file (``conn``), so the same queries run unchanged, and reads texts from ``texts/`` when
asked, a row group at a time.

What it holds on the driver: a page cache of a few MB, the sampled sets of the documents a query
asked for (one in 16 shingles, 8 bytes each), and one row group of ``texts/`` while it reads
texts; never a pair. The rows per document and per sighting are on disk. A Spark audit's
report asks for a bounded number of sets: the corpus-drawn controls draw from a seeded subset
of the corpus, and novelty is counted on the executors (``spark_finish.novelty_on_spark``).
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import json
import re
import sqlite3
import weakref
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
    date_source TEXT, dates TEXT, withdrawn_at TEXT, withdrawn_reason TEXT, withdrawn_by TEXT);
CREATE TABLE index_counts (doc_id INTEGER PRIMARY KEY, n_shingles INTEGER, n_sampled INTEGER);
CREATE VIEW index_docs AS SELECT doc_id, n_shingles, n_sampled, sampled_of(doc_id) AS sampled FROM index_counts;
CREATE TABLE sightings (id INTEGER PRIMARY KEY, doc_id INTEGER, batch_id INTEGER, path TEXT,
    resolved TEXT, part TEXT, within_id INTEGER, size INTEGER, mtime TEXT, source TEXT, meta TEXT,
    seen_at TEXT, supplied_date TEXT, supplied_from TEXT);
CREATE INDEX sightings_doc ON sightings(doc_id);
CREATE TABLE failures (id INTEGER PRIMARY KEY, batch_id INTEGER, status TEXT, code TEXT, message TEXT,
    path TEXT, part TEXT, sha256 TEXT, within_id INTEGER, size INTEGER, source TEXT);
CREATE TABLE runs (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
    status TEXT NOT NULL, params TEXT NOT NULL, started TEXT NOT NULL, ended TEXT, summary TEXT,
    report_dir TEXT, digest TEXT, scope TEXT, contents TEXT, verdict TEXT);
CREATE TABLE run_documents (run INTEGER NOT NULL, doc_id INTEGER NOT NULL, status TEXT NOT NULL,
    duplicate_of INTEGER, reason TEXT, family INTEGER, containers INTEGER NOT NULL DEFAULT 0,
    boilerplate INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run, doc_id)) WITHOUT ROWID;
CREATE TABLE findings (run INTEGER NOT NULL, contained_id INTEGER NOT NULL, container_id INTEGER NOT NULL,
    containment REAL NOT NULL, estimate REAL NOT NULL, low REAL NOT NULL, high REAL NOT NULL,
    hits INTEGER NOT NULL, sampled INTEGER NOT NULL, shared INTEGER NOT NULL, shingles INTEGER NOT NULL,
    family INTEGER, spans TEXT, PRIMARY KEY (run, contained_id, container_id));
"""
_SETS = re.compile(r"\bsampled\b")  # a query that reads index_docs.sampled (not n_sampled)
_DOCS = ("id", "sha256", "path", "format", "extractor", "extractor_version", "encoding", "size", "n_pages",
         "page_offsets", "n_chars", "n_words", "norm_sha256", "parent_id", "duplicate_of", "meta", "warnings",
         "batch", "created", "unreadable", "date", "date_source", "dates")
_SIGHTINGS = ("doc_id", "batch", "path", "resolved", "part", "within_id", "size", "mtime", "source", "meta",
              "seen_at", "supplied_date", "supplied_from")


def _rows(table: Any, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """``table``'s rows as dicts of ``names``; a column an older export lacks reads as None."""
    have = [n for n in names if n in table.column_names]
    rows = table.select(have).to_pylist()
    missing = [n for n in names if n not in table.column_names]
    if missing:
        for r in rows:
            r.update(dict.fromkeys(missing))
    return rows


def recorded_runs(directory: Path) -> list[tuple[dict[str, Any], Path]]:
    """The audit runs recorded under ``directory/runs/``: each ``run.json`` (the row a store keeps
    in ``runs``) with its directory, oldest first (their row ids are their places here, from 1)."""
    listed = []
    for d in sorted((directory / "runs").glob("*")) if (directory / "runs").is_dir() else []:
        if d.name.startswith(".") or not (d / "run.json").is_file():
            continue  # a run being written, or not a run
        listed.append((json.loads((d / "run.json").read_text(encoding="utf-8")), d))
    listed.sort(key=lambda x: (x[0]["started"], x[0]["run_id"]))
    return listed


_FAILURES = ("id", "batch", "status", "code", "message", "path", "part", "sha256", "within_id", "size", "source")

def _parquet(path: Path) -> Any:
    """A Parquet file opened for reading without pre-buffering (which reads a row group's
    column chunks ahead, all at once)."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(path, pre_buffer=False)


#: rows of a Parquet table turned into Python rows at a time, when an export is opened
ROWS_AT_ONCE = 10_000


def _batches(directory: Path) -> Iterator[Any]:
    """``directory``'s table (a Parquet dataset) as tables of at most ``ROWS_AT_ONCE`` rows, in
    the order ``pq.read_table`` reads it, without threads."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    for b in ds.dataset(directory, format="parquet").to_batches(batch_size=ROWS_AT_ONCE, use_threads=False,
                                                                 batch_readahead=0, fragment_readahead=0):
        yield pa.Table.from_batches([b])


def scratch_db(owner: Any, name: str = "export") -> sqlite3.Connection:
    """A SQLite database in a scratch file, removed with ``owner``: rows per document (the
    export's, a Spark finish's) sit on disk behind a page cache of a few MB, not in the driver's
    memory (an in-memory database grows with the corpus, as every Python row did)."""
    import shutil
    import tempfile

    scratch = tempfile.mkdtemp(prefix=f"auditor-{name}-")
    conn = sqlite3.connect(str(Path(scratch) / f"{name}.db"))
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    weakref.finalize(owner, _drop, conn, scratch, shutil.rmtree)
    return conn


def _drop(conn: sqlite3.Connection, scratch: str, rmtree: Any) -> None:
    conn.close()
    rmtree(scratch, ignore_errors=True)


def _release() -> None:
    """Give Arrow's freed memory back to the system: its allocator keeps it otherwise, and the
    driver's resident size would keep the largest batch ever read."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


class ExportStore:
    """The read side of a Store, served from a Parquet export (see the module docstring)."""

    private = False
    reads = None
    memo = None

    def __init__(self, directory: str | Path) -> None:
        self.directory = self.path = Path(directory)
        self.meta = read_params(self.directory)
        self.params = Params(**self.meta["params"])
        self.conn = scratch_db(self)
        self._sets: dict[int, bytes] = {}
        self._all_sets = False
        self._groups: list[tuple[Path, int, int, int]] | None = None
        # through a weak reference: the scratch file's finalizer holds the connection, which
        # must not hold the store, or neither would ever be freed
        method = weakref.WeakMethod(self._sampled_of)
        self.conn.create_function("sampled_of", 1, lambda doc_id: method()(doc_id),  # type: ignore[misc]
                                  deterministic=True)
        self.conn.executescript(_SCHEMA)
        batch_ids: dict[str, int] = {}

        def batch(name: Any) -> int:
            return batch_ids.setdefault(str(name), len(batch_ids) + 1)

        def copy(table: str, names: tuple[str, ...], part: Any) -> None:
            """One slice of an exported table into the scratch database, batch names as ids."""
            columns = ", ".join("batch_id" if c == "batch" else c for c in names)
            self.conn.executemany(
                f"INSERT INTO {table} ({columns}) VALUES ({','.join('?' * len(names))})",
                [tuple(batch(r[c]) if c == "batch" else r[c] for c in names) for r in _rows(part, names)])

        for part in _batches(self.directory / "documents"):
            copy("documents", _DOCS, part)
            counts = part.select(["id", "n_shingles", "n_sampled"]).to_pylist()
            self.conn.executemany("INSERT INTO index_counts VALUES (?,?,?)", [
                (r["id"], r["n_shingles"], r["n_sampled"]) for r in counts if r["n_sampled"] is not None])
            del counts
        for part in _batches(self.directory / "sightings"):
            copy("sightings", _SIGHTINGS, part)
        if (self.directory / "failures").is_dir():
            for part in _batches(self.directory / "failures"):
                copy("failures", _FAILURES, part)
        self.conn.executemany("INSERT INTO batches VALUES (?, ?)", [(i, n) for n, i in batch_ids.items()])
        self.conn.commit()
        _release()

    def _sampled_of(self, doc_id: int) -> bytes:
        """``index_docs.sampled`` of one document. Sampled sets are read from ``postings/`` when
        asked for, not when the export is opened: all of them are 8 bytes per posting, the one
        part of the driver's memory that grows with the text (66 GB at 1 TB). ``select_in``
        reads the sets of its ids in one pass; a query over every row reads them all."""
        if doc_id not in self._sets and not self._all_sets:
            self._sets.update(self._read_sets(None))
            self._all_sets = True
        return self._sets.get(doc_id, b"")

    def _read_sets(self, ids: list[int] | None) -> dict[int, bytes]:
        """Each document's sampled set as the store keeps it: sorted uint64, as bytes (of
        ``ids``, else of every document), from one filtered read of ``postings/``."""
        import pyarrow.parquet as pq

        t = pq.read_table(self.directory / "postings", columns=["doc_id", "hash"],
                          filters=None if ids is None else [("doc_id", "in", ids)])
        if not t.num_rows:
            return {}
        d = t.column("doc_id").to_numpy()
        h = t.column("hash").to_numpy().view(np.uint64)
        order = np.lexsort((h, d))
        d, h = d[order], h[order]
        edges = np.concatenate(([0], np.flatnonzero(np.diff(d)) + 1, [len(d)]))
        return {int(d[a]): h[a:b].tobytes() for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)}

    def load_runs(self) -> int:
        """The audit runs recorded under ``runs/`` (``report.from_parquet.export_run``) into
        ``runs``, ``run_documents`` and ``findings``, as a store holds them, oldest first.
        Returns how many. Their pairs are read here: 24 bytes and more per pair on the driver."""
        import pyarrow.parquet as pq

        listed = recorded_runs(self.directory)
        for i, (row, d) in enumerate(listed, start=1):
            self.conn.execute(f"INSERT INTO runs (id, {', '.join(row)}) VALUES (?, {','.join('?' * len(row))})",
                              (i, *row.values()))
            docs = pq.read_table(d / "run_documents.parquet")
            self.conn.executemany(
                f"INSERT INTO run_documents (run, {', '.join(docs.column_names)}) VALUES"
                f" (?, {','.join('?' * docs.num_columns)})",
                ((i, *r.values()) for r in docs.to_pylist()))
            pairs = pq.ParquetFile(d / "findings.parquet")
            for batch in pairs.iter_batches(batch_size=50_000):
                self.conn.executemany(
                    f"INSERT INTO findings (run, {', '.join(batch.schema.names)}) VALUES"
                    f" (?, {','.join('?' * batch.num_columns)})",
                    ((i, *r) for r in zip(*(c.to_pylist() for c in batch.columns), strict=True)))
        return len(listed)

    # -- what callers of a Store use -----------------------------------------------------------

    def select_in(self, sql: str, ids: Iterable[int]) -> list[tuple]:
        ids = list(ids)
        if _SETS.search(sql):  # the sampled sets of these documents, in one read of postings/
            missing = sorted({int(i) for i in ids} - self._sets.keys())
            if missing and not self._all_sets:
                self._sets.update(dict.fromkeys(missing, b""))
                self._sets.update(self._read_sets(missing))
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
        """(id, text) of each of ``ids``, in id order (``texts/`` is written in id order).

        One row group at a time, in file order, without threads: a row group whose id range
        holds none of ``ids`` is not read. A dataset scan read ahead and held most of
        ``texts/`` at once (175 MB of Arrow memory for the 46 MB licence export), so the
        driver grew with the corpus; a row group is about ``export.TEXT_ROW_GROUP_CHARS``."""
        wanted = sorted({int(i) for i in ids})
        if not wanted:
            return
        for path, group, lo, hi in self._text_groups():
            at = bisect.bisect_left(wanted, lo)
            if at == len(wanted) or wanted[at] > hi:
                continue
            t = _parquet(path).read_row_group(group, columns=["doc_id", "text"], use_threads=False)
            ids_here = t.column(0).to_pylist()
            texts = t.column(1)
            del t
            for i, doc_id in enumerate(ids_here):
                j = bisect.bisect_left(wanted, doc_id)
                if j < len(wanted) and wanted[j] == doc_id:
                    yield int(doc_id), str(texts[i].as_py())
            del texts
            _release()

    def _text_groups(self) -> list[tuple[Path, int, int, int]]:
        """(file, row group, first id, last id) of every row group of ``texts/``, by the
        row groups' statistics (read once: a few numbers per 4 MB of text)."""
        if self._groups is None:
            groups = []
            for path in sorted((self.directory / "texts").glob("*.parquet")):
                meta = _parquet(path).metadata
                col = meta.schema.names.index("doc_id")
                for g in range(meta.num_row_groups):
                    st = meta.row_group(g).column(col).statistics
                    if meta.row_group(g).num_rows == 0:
                        continue
                    lo, hi = (int(st.min), int(st.max)) if st is not None and st.has_min_max else (-2**63, 2**63 - 1)
                    groups.append((path, g, lo, hi))
            self._groups = groups
        return self._groups

    @functools.lru_cache(maxsize=64)  # noqa: B019 - one export per audit; entries come by container
    def text(self, doc_id: int) -> str:
        for _, text in self.texts_of([doc_id]):
            return text
        raise NoDocument(f"document {doc_id} has no text in {self.directory}")

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
