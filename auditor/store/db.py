"""The SQLite store: documents, their provenance, the sampled shingle index, and audit runs.

One file holds everything a report needs to be defended: raw-byte hashes, where and when each
document was seen, how its text was obtained, the index parameters, and every run's findings.

Durability: WAL journal, ``synchronous=NORMAL`` (consistent after a crash; a power loss may roll
back the last commits), a busy timeout so a second process waits for the write lock instead of
failing, and one ``BEGIN IMMEDIATE`` transaction per input file, so a run killed at any point
leaves each file either fully stored or not at all.

Texts and word sequences (the bulk of a store) are kept compressed (:mod:`.packing`) and are
read only through :class:`Store`: each one read is checked, as it is read, against the sha256
stored with it and that digest against the one the custody log vouches for
(``custody_rows``), so no reader can use a text or a word sequence the log does not vouch for.
docs/custody.md states what each check proves.

Read-only stores: when the file or its directory is not writable, the store is opened with a
``mode=ro`` URI (nothing is migrated or written; ``Store.writable`` is False and ``write()``
refuses with a clear error). A WAL database needs its ``-shm`` file even to be read; when that
cannot be created (a read-only directory) and no ``-wal`` file holds unmerged commits, the store
is opened ``immutable=1``, which is only right while no other process writes to it.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from auditor.errors import (
    DiskFull,
    IndexMismatch,
    NoDocument,
    StoreBusy,
    StoreDamaged,
    StoreError,
    is_disk_full,
)
from auditor.store import custody, packing
from auditor.text.shingle import DEFAULT_PARAMS, Params

_SCHEMA = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE batches (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    source TEXT,
    tool_version TEXT NOT NULL,
    command TEXT NOT NULL,
    started TEXT NOT NULL,
    ended TEXT,
    status TEXT NOT NULL,
    runs INTEGER NOT NULL DEFAULT 1,
    n_ok INTEGER NOT NULL DEFAULT 0,
    n_duplicate INTEGER NOT NULL DEFAULT 0,
    n_unchanged INTEGER NOT NULL DEFAULT 0,
    n_failed INTEGER NOT NULL DEFAULT 0,
    n_skipped INTEGER NOT NULL DEFAULT 0
);
-- withdrawn_*: when, why and by whom the document was withdrawn (NULL: in the corpus),
-- unreadable: why its text could not be (fully) read (NULL: a reading of the document),
-- dates: the dates it carries itself (JSON), date and date_source the one chosen (store.dating)
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    sha256 TEXT NOT NULL UNIQUE,
    parent_id INTEGER REFERENCES documents(id),
    format TEXT NOT NULL,
    extractor TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    encoding TEXT,
    size INTEGER NOT NULL,
    n_pages INTEGER,
    page_offsets TEXT,
    n_chars INTEGER NOT NULL,
    n_words INTEGER NOT NULL,
    norm_sha256 TEXT,
    duplicate_of INTEGER REFERENCES documents(id),
    meta TEXT NOT NULL DEFAULT '{}',
    warnings TEXT NOT NULL DEFAULT '[]',
    path TEXT NOT NULL,
    batch_id INTEGER NOT NULL REFERENCES batches(id),
    created TEXT NOT NULL,
    withdrawn_at TEXT,
    withdrawn_reason TEXT,
    withdrawn_by TEXT,
    unreadable TEXT,
    date TEXT,
    date_source TEXT,
    dates TEXT
);
CREATE INDEX documents_norm ON documents(norm_sha256);
CREATE INDEX documents_parent ON documents(parent_id);
-- text: the UTF-8 text in one Zstandard frame (store.packing), sha256: of the UTF-8 bytes. Read
-- only through Store, which checks each text it reads against its digest and that digest
-- against the custody log's. The digest comes first: it is read without the text's pages.
CREATE TABLE texts (
    doc_id INTEGER PRIMARY KEY REFERENCES documents(id),
    sha256 TEXT NOT NULL,
    text BLOB NOT NULL
);
CREATE TABLE sightings (
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    batch_id INTEGER NOT NULL REFERENCES batches(id),
    path TEXT NOT NULL,
    resolved TEXT NOT NULL,
    part TEXT NOT NULL DEFAULT '',
    within_id INTEGER REFERENCES documents(id),
    size INTEGER,
    mtime TEXT,
    source TEXT,
    meta TEXT NOT NULL DEFAULT '{}',
    seen_at TEXT NOT NULL,
    gone_at TEXT,
    supplied_date TEXT,
    supplied_from TEXT,
    UNIQUE (resolved, part, doc_id)
);
CREATE INDEX sightings_doc ON sightings(doc_id);
CREATE TABLE failures (
    id INTEGER PRIMARY KEY,
    batch_id INTEGER NOT NULL REFERENCES batches(id),
    status TEXT NOT NULL,
    code TEXT NOT NULL,
    message TEXT NOT NULL,
    path TEXT NOT NULL,
    resolved TEXT NOT NULL,
    part TEXT NOT NULL DEFAULT '',
    within_id INTEGER REFERENCES documents(id),
    sha256 TEXT,
    size INTEGER,
    mtime TEXT,
    source TEXT,
    meta TEXT NOT NULL DEFAULT '{}',
    seen_at TEXT NOT NULL,
    UNIQUE (resolved, part, sha256)
);
CREATE TABLE withdrawals (
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    action TEXT NOT NULL,
    at TEXT NOT NULL,
    reason TEXT NOT NULL,
    by TEXT NOT NULL,
    command TEXT NOT NULL
);
CREATE INDEX withdrawals_doc ON withdrawals(doc_id);
-- The sampled index: per document, its sorted distinct sampled shingle hashes as little-endian
-- uint64 (8 bytes each). Postings lists are built in memory from these when needed (1.2 M
-- postings, 9 MB, for 140 MB of text). One blob per document keeps each ingest transaction
-- small, where a (hash, doc) B-tree would touch a page per posting.
CREATE TABLE index_docs (
    doc_id INTEGER PRIMARY KEY REFERENCES documents(id),
    n_words INTEGER NOT NULL,
    n_shingles INTEGER NOT NULL,
    n_sampled INTEGER NOT NULL,
    sampled BLOB NOT NULL
);
-- The same postings keyed by hash (uint64 viewed as int64): a gate reads the postings of its
-- batch's hashes by key (index.sampled.SampledIndex.touching) instead of every index row.
-- Derived from index_docs at the end of each ingest and index build, in hash order, for the
-- documents not yet in posted (index.builder.write_postings), and checked by `auditor check`.
CREATE TABLE postings (
    hash INTEGER NOT NULL,
    doc_id INTEGER NOT NULL,
    PRIMARY KEY (hash, doc_id)
) WITHOUT ROWID;
CREATE TABLE posted (
    doc_id INTEGER PRIMARY KEY REFERENCES documents(id)
);
-- Each indexed document's words as the audit reads them (shingle.WordSequence, encoded), sha256:
-- of the encoding. Read only through Store, as texts are. Not compressed: an audit reads each
-- sequence about three times, and a Zstandard frame would cost 0.16 CPU-s a pass at 140 MB to
-- save 36 MB (benchmarks/RESULTS.md, 2026-12-02).
CREATE TABLE shingle_sequences (
    doc_id INTEGER PRIMARY KEY REFERENCES documents(id),
    n_words INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    data BLOB NOT NULL
);
-- The other readings of a gate's new documents (extract.Reading) whose normalised text differs
-- from the document's.
CREATE TABLE readings (
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    name TEXT NOT NULL,
    why TEXT NOT NULL,
    text TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    n_words INTEGER NOT NULL,
    n_shingles INTEGER NOT NULL,
    norm_sha256 TEXT,
    UNIQUE (doc_id, name)
);
-- scope: what the run covered, contents: the digest of its pairs and documents (custody.runs),
-- verdict: a gate's PASSED, FAILED or REFUSED
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    params TEXT NOT NULL,
    started TEXT NOT NULL,
    ended TEXT,
    summary TEXT NOT NULL DEFAULT '{}',
    report_dir TEXT,
    digest TEXT,
    scope TEXT,
    contents TEXT,
    verdict TEXT
);
-- Every containing pair of a run, keyed in the order the audit writes them (one B-tree append).
CREATE TABLE findings (
    run INTEGER NOT NULL REFERENCES runs(id),
    contained_id INTEGER NOT NULL,
    container_id INTEGER NOT NULL,
    containment REAL NOT NULL,
    estimate REAL NOT NULL,
    low REAL NOT NULL,
    high REAL NOT NULL,
    hits INTEGER NOT NULL,
    sampled INTEGER NOT NULL,
    shared INTEGER NOT NULL,
    shingles INTEGER NOT NULL,
    family INTEGER,
    spans TEXT,
    PRIMARY KEY (run, contained_id, container_id)
) WITHOUT ROWID;
CREATE TABLE near_duplicates (
    run INTEGER NOT NULL REFERENCES runs(id),
    a_id INTEGER NOT NULL,
    b_id INTEGER NOT NULL,
    score REAL,
    data TEXT NOT NULL,
    PRIMARY KEY (run, a_id, b_id)
) WITHOUT ROWID;
-- Every document a run covered and what the audit made of it.
CREATE TABLE run_documents (
    run INTEGER NOT NULL REFERENCES runs(id),
    doc_id INTEGER NOT NULL,
    status TEXT NOT NULL,
    duplicate_of INTEGER,
    reason TEXT,
    family INTEGER,
    containers INTEGER NOT NULL DEFAULT 0,
    boilerplate INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run, doc_id)
) WITHOUT ROWID;
-- The near-duplicate measures' cached values (engine.neardup), by document, kind and parameters.
CREATE TABLE sketches (
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    kind TEXT NOT NULL,
    params_key TEXT NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (doc_id, kind, params_key)
);
CREATE INDEX sketches_key ON sketches (kind, params_key);
"""


MIGRATION_SET = "containment-auditor"
MIGRATIONS: list[tuple[str, Callable[[Any], None]]] = []
"""Schema migrations in order, applied with sqlite-utils' ``Migrations``; add one with
``@migration("NNNN_what")``. Kept as plain functions so that opening an up-to-date store
imports nothing (sqlite-utils imports pandas when it is installed). The package has not been
released: ``0001_baseline`` is the whole schema, and every later change is a new migration."""


def migration(name: str) -> Callable[[Callable[[Any], None]], Callable[[Any], None]]:
    def register(fn: Callable[[Any], None]) -> Callable[[Any], None]:
        MIGRATIONS.append((name, fn))
        return fn
    return register


@migration("0001_baseline")
def _baseline(db: Any) -> None:
    """The schema of 0.1.0: every table, the index parameters, and the custody log
    (:mod:`auditor.store.custody`) with its first entry, its row digests and its edit counter."""
    for stmt in _SCHEMA.split(";"):
        if stmt.strip():
            db.execute(stmt)
    db.execute("INSERT INTO meta(key, value) VALUES ('index_params', ?)",
               (json.dumps(DEFAULT_PARAMS.as_dict(), sort_keys=True),))
    db.execute("INSERT INTO meta(key, value) VALUES ('storage', ?)", (STORAGE,))
    custody.create(db.conn)


STORAGE = "texts in Zstandard frames, word sequences encoded, each with the sha256 of its content"
"""How this schema keeps texts and word sequences (``meta.storage``)."""

SCHEMA_VERSION = len(MIGRATIONS)


def select_in(conn: sqlite3.Connection, sql: str, ids: Iterable[int], chunk: int = 900) -> list[tuple]:
    """Rows of ``sql``, whose ``IN ({})`` takes ``ids`` (in chunks under SQLite's parameter
    limit), sorted by their first column; rows of one chunk keep the query's order."""
    out: list[tuple] = []
    ordered = sorted(set(ids))
    for a in range(0, len(ordered), chunk):
        part = ordered[a : a + chunk]
        out += conn.execute(sql.format(",".join("?" * len(part))), part).fetchall()
    return sorted(out, key=lambda r: r[0])




def writable_location(path: str | os.PathLike) -> bool:
    """Whether SQLite could write ``path`` and create its ``-wal``/``-shm`` files beside it."""
    p = os.path.abspath(os.fspath(path))
    if os.path.exists(p) and not os.access(p, os.W_OK):
        return False
    if os.access(os.path.dirname(p), os.W_OK):
        return True
    # a read-only directory: writing works only through -wal and -shm files already there
    return all(os.path.exists(p + s) and os.access(p + s, os.W_OK) for s in ("-wal", "-shm"))


def _uri(path: str | os.PathLike, **params: str) -> str:
    absolute = os.fsencode(os.path.abspath(os.fspath(path)))
    return f"file:{quote(absolute, safe='/')}?" + "&".join(f"{k}={v}" for k, v in params.items())


def connect(path: str | os.PathLike, *, readonly: bool | None = None, timeout: float = 30.0) -> sqlite3.Connection:
    """A connection to an existing or new store; read-only (``mode=ro``) when ``readonly`` or,
    with None, when the location is not writable. See the module docstring on ``immutable``."""
    if readonly is None:
        readonly = os.path.exists(path) and not writable_location(path)
    if not readonly:
        return sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    conn = sqlite3.connect(_uri(path, mode="ro"), uri=True, timeout=timeout, isolation_level=None,
                           check_same_thread=False)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as e:  # SQLITE_READONLY_DIRECTORY, or CANTOPEN on older SQLite
        conn.close()
        if "unable to open" not in str(e) and "readonly" not in str(e):
            raise
    wal = os.fspath(path) + "-wal"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        raise StoreError(
            f"{path} is read-only and its write-ahead log {wal} holds commits that were never merged "
            "into it: open it once with write access (any auditor command), or copy the three files "
            "to a writable directory")
    return sqlite3.connect(_uri(path, mode="ro", immutable="1"), uri=True, timeout=timeout,
                           isolation_level=None, check_same_thread=False)


def _sqlite_utils() -> Any:
    """sqlite-utils, imported without pandas: it imports pandas when installed only to accept
    DataFrames, which the store never passes, and that costs most of a second in every command
    that opens a new store (the controls' scratch stores, a gate's). ``None`` in ``sys.modules``
    is how Python spells "not installed"; the entry is removed again, so later imports of pandas
    (the Spark engine's) are unaffected."""
    import sys

    if "sqlite_utils" in sys.modules or "pandas" in sys.modules:
        import sqlite_utils

        return sqlite_utils
    sys.modules["pandas"] = None  # type: ignore[assignment]
    try:
        import sqlite_utils
    finally:
        del sys.modules["pandas"]
    return sqlite_utils


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_NOUN = {"texts": "text", "shingle_sequences": "word sequence"}


@dataclass(frozen=True)
class Stored:
    """One row of ``texts`` or ``shingle_sequences`` as read: its content (the text's UTF-8
    bytes, the sequence's encoding) when it is what the row's sha256 says, else ``problem``;
    ``row_digest``: the row's digest as the custody log computes it (``custody.TRACKED``)."""

    doc_id: int
    content: bytes | None
    problem: str | None
    row_digest: str | None


def _inspected(table: str, doc_id: int, digest_type: str, digest: Any, kind: str, frame: Any,
               n_type: str | None, n_words: Any, *, known: dict[tuple[str, int], str] | None = None) -> Stored:
    """``known``: row digests whose content was checked already in the store's present state
    (``Store._checked``): a row that still has that digest is not hashed again."""
    noun = _NOUN[table]
    cells: list[Any] = []
    if table == "shingle_sequences":
        if n_type != "integer":
            return Stored(doc_id, None, f"its {noun}'s word count is stored as {n_type}, not as an integer", None)
        cells += ["integer", str(n_words).encode()]
    if digest_type != "text":
        return Stored(doc_id, None, f"its {noun}'s digest is stored as {digest_type}, not as text", None)
    raw_digest = bytes(digest)
    cells += ["text", raw_digest]
    names = ("n_words", "sha256") if table == "shingle_sequences" else ("sha256",)
    row = custody.row_digest(table, doc_id, names, cells)
    if kind != "blob":
        return Stored(doc_id, None, f"its {noun} is stored as {kind}, not as a blob: it was altered after it "
                                    "was stored", row)
    if table == "texts":
        try:
            raw = packing.unpack(frame)
        except ValueError as e:
            return Stored(doc_id, None, f"its {noun} cannot be read: {e}", row)
    else:
        raw = bytes(frame)
    if known is not None and known.get((table, doc_id)) == row:
        return Stored(doc_id, raw, None, row)
    if packing.digest(raw).encode() != raw_digest:
        return Stored(doc_id, None, f"its {noun} does not match its recorded sha256 "
                                    f"{raw_digest[:16].decode('ascii', 'replace')}...: it was altered after it was stored",
                      row)
    return Stored(doc_id, raw, None, row)


@dataclass
class Pending:
    """The transaction :meth:`Store.pending` holds: rolled back unless committed."""

    committed: bool = False

    def commit(self) -> None:
        """Keep what the transaction wrote (committed when it ends)."""
        self.committed = True


class Store:
    """A containment-auditor SQLite file. Use as a context manager or call ``close()``."""

    def __init__(self, path: str | Path, *, create: bool = True, busy_timeout: float = 30.0,
                 readonly: bool | None = None) -> None:
        """``readonly``: open with a ``mode=ro`` URI; None (the default) does so when the file
        or its directory is not writable. A read-only store is never migrated: readers of a
        store with pending migrations see its older schema."""
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StoreError(f"no store at {self.path} (run `auditor ingest` first)")
        if readonly is None:
            readonly = self.path.exists() and not writable_location(self.path)
        elif readonly and not self.path.exists():
            raise StoreError(f"no store at {self.path}")
        self.writable = not readonly
        self.private = False  # inside pending(): other processes cannot see its writes
        self.memo: dict[str, Any] = {}  # values derived from the store, each keyed by the state it read
        try:
            self.conn = connect(self.path, readonly=readonly, timeout=busy_timeout)
            self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            if self.writable:
                mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if mode.lower() != "wal":
                    raise StoreError(f"{self.path}: could not enable WAL (journal_mode={mode})")
                self.conn.execute("PRAGMA synchronous = NORMAL")
            else:
                self.conn.execute("PRAGMA query_only = ON")
            self.conn.execute("PRAGMA foreign_keys = ON")
            # the plain text of a stored frame, for SQL: SELECT auditor_text(text) FROM texts
            self.conn.create_function("auditor_text", 1, packing.sql_text, deterministic=True)
            if self._pending_migrations() and self.writable:
                self._migrate()
            # every write of this connection is recorded in the custody log (see Store.write)
            self.custody = custody.install(self.conn) if self.writable and custody.has_log(self.conn) else None
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: {e}") from e

    @functools.cached_property
    def db(self) -> Any:
        """The same connection as a ``sqlite_utils.Database``, for ad hoc queries and exports.

        Imported on first use: sqlite-utils pulls in optional heavy modules (pandas, when
        installed), which the command line does not need to start.
        """
        return _sqlite_utils().Database(self.conn)

    def _applied_migrations(self) -> list[str]:
        """Names of the applied schema migrations, read without importing sqlite-utils."""
        if not self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlite_migrations'"
        ).fetchone():
            return []
        return [r[0] for r in self.conn.execute(
            "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid",
            (MIGRATION_SET,))]

    def _pending_migrations(self) -> list[str]:
        """Readers of an up-to-date store never take the write lock or import sqlite-utils."""
        applied = self._applied_migrations()
        known = [name for name, _ in MIGRATIONS]
        unknown = [n for n in applied if n not in known]
        if applied and known[0] not in applied:
            raise StoreError(
                f"{self.path} was written by a development version of containment-auditor from before "
                f"0.1.0 (schema migrations {', '.join(applied[:2])}...), whose format this version does not "
                "read: ingest the documents again into a new store")
        if unknown:
            raise StoreError(f"{self.path} was written by a newer auditor (schema migrations "
                             f"{', '.join(unknown)}); upgrade containment-auditor")
        return [n for n in known if n not in applied]

    def _migrate(self) -> None:
        """Apply pending migrations. A store with a custody log must match it first; what the
        migrations then change in tracked rows is recorded as their entry (``custody.adopt``)."""
        with self.write():
            pending = self._pending_migrations()  # another process may have migrated meanwhile
            if pending:
                logged = custody.has_log(self.conn)
                if logged:
                    custody.register(self.conn)
                    if not custody.matches(self.conn):
                        raise StoreDamaged(
                            f"{self.path} does not match its custody log, so its schema is not migrated (the "
                            "migration would record the difference as its own): run `auditor check --db "
                            f"{self.path}` with the auditor that wrote it")
                steps = _sqlite_utils().Migrations(MIGRATION_SET)
                for name, fn in MIGRATIONS:
                    steps(name=name)(fn)
                steps.apply(self.db)
                self.set_meta("schema_version", str(SCHEMA_VERSION))
                if custody.has_log(self.conn):
                    custody.register(self.conn)
                    custody.adopt(self.conn, pending)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    def require_writable(self, why: str) -> None:
        """Refuse, before any work, what would have to write to a read-only store."""
        if not self.writable:
            raise StoreError(f"{self.path} is read-only (the file or its directory is not writable), "
                             f"but {why}")

    @contextmanager
    def pending(self) -> Iterator[Pending]:
        """One ``BEGIN IMMEDIATE`` transaction, held for the duration (other writers wait), in
        which every :meth:`write` is a savepoint. It is rolled back at the end unless the caller
        calls ``commit()`` on what it yields: a gate admits its batch only by its verdict, and a
        dry run never does. A process killed inside leaves nothing, since SQLite discards an
        uncommitted transaction. Only this connection sees the changes until then, so work that
        would open the store from other processes runs in this one (``private`` is True)."""
        self.require_writable("a gate works in one transaction, committed only when it passes")
        self._begin("BEGIN IMMEDIATE")
        self.private = True
        handle = Pending()
        try:
            yield handle
        finally:
            self.private = False
            try:
                if self.conn.in_transaction:
                    self.conn.execute("COMMIT" if handle.committed else "ROLLBACK")
            except sqlite3.Error as e:
                handle.committed = False
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                if is_disk_full(e):
                    raise DiskFull(f"{self.path}: no space left on its device ({e}); the transaction was "
                                   "rolled back, so the store holds what it held before: free some space "
                                   "and run the command again") from e
                raise
            finally:
                if not handle.committed:
                    self._forget_edits()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read snapshot (WAL) for what reads the store several times; inside a transaction
        already open, that transaction is the snapshot."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    def _begin(self, statement: str) -> None:
        try:
            self.conn.execute(statement)
        except sqlite3.OperationalError as e:
            if "locked" in str(e) or "busy" in str(e):
                raise StoreBusy(f"{self.path} is locked by another process: {e}") from e
            raise StoreError(f"{self.path}: {e}") from e

    @contextmanager
    def write(self, action: str | None = None, detail: dict[str, Any] | None = None
              ) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: all of it is committed, or none (a savepoint
        inside a private transaction, rolled back with it).

        Before it commits, the custody log records the tracked rows it changed in one entry
        (``action`` and ``detail`` say what the write was; ``detail`` is read then, so a writer
        may fill it in as it goes), in the same transaction.
        """
        self.require_writable("this needs to write to it")
        if self.private:
            self.conn.execute("SAVEPOINT write")
            try:
                self._begun()
                yield self.conn
                self._seal(action, detail)
            except BaseException as e:
                if self.conn.in_transaction:  # SQLite may have rolled back the whole of it (disk full)
                    self.conn.execute("ROLLBACK TO write")
                    self.conn.execute("RELEASE write")
                self._forget_edits()
                if is_disk_full(e) and not isinstance(e, DiskFull):
                    raise DiskFull(f"{self.path}: no space left on its device ({e}); the transaction was "
                                   "rolled back, so the store holds what it held before: free some space "
                                   "and run the command again") from e
                raise
            self.conn.execute("RELEASE write")
            return
        self._begin("BEGIN IMMEDIATE")
        try:
            self._begun()
            yield self.conn
            self._seal(action, detail)
            self.conn.execute("COMMIT")
        except BaseException as e:
            if self.conn.in_transaction:  # SQLite may already have rolled back (disk full)
                self.conn.execute("ROLLBACK")
            self._forget_edits()
            if is_disk_full(e):
                raise DiskFull(f"{self.path}: no space left on its device ({e}); the transaction was "
                               "rolled back, so the store holds what it held before: free some space "
                               "and run the command again") from e
            raise

    def _forget_edits(self) -> None:
        """After a rollback the edit count is back where it was: what a check saw inside, or what
        this connection's entries were in step with, no longer says anything."""
        plan = getattr(self, "custody", None)
        if plan is not None:
            plan.checked_edits, plan.in_sync = None, False

    def _begun(self) -> None:
        plan = getattr(self, "custody", None)
        if plan is not None:
            custody.begin(self.conn, plan)

    def _seal(self, action: str | None, detail: dict[str, Any] | None) -> None:
        plan = getattr(self, "custody", None)
        if plan is not None:
            custody.seal(self.conn, plan, action, detail)

    # -- small helpers -------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def rows(self, sql: str, params: tuple | dict = ()) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, params)
        cols = [c[0] for c in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def select_in(self, sql: str, ids: Iterable[int]) -> list[tuple]:
        return select_in(self.conn, sql, ids)

    def scalar(self, sql: str, params: tuple | dict = ()) -> Any:
        row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else None

    # -- index parameters ----------------------------------------------------------------
    @property
    def params(self) -> Params:
        return Params(**json.loads(self.meta("index_params") or "{}"))

    def check_params(self, wanted: Params, *, within_transaction: bool = False) -> None:
        """Refuse to mix an index built with other parameters.

        ``within_transaction``: the caller is about to write index rows in its open transaction;
        the stored parameters must be exactly those (another process may have rebuilt the index
        with others since the caller read them), even when the index is empty.
        """
        for key in ("normalization", "hash"):  # implemented by this code, not chosen per index
            if getattr(wanted, key) != getattr(DEFAULT_PARAMS, key):
                raise IndexMismatch(
                    f"the index in {self.path} was built with {key} {getattr(wanted, key)!r}, but this "
                    f"auditor computes {getattr(DEFAULT_PARAMS, key)!r}; run `auditor index --rebuild` "
                    "to rebuild it")
        have = self.params
        if have != wanted and (within_transaction or self.scalar("SELECT count(*) FROM index_docs")):
            diff = {
                k: (v, wanted.as_dict()[k])
                for k, v in have.as_dict().items()
                if v != wanted.as_dict()[k]
            }
            raise IndexMismatch(
                f"the index in {self.path} was built with other parameters "
                + ", ".join(f"{k}={a!r} (wanted {b!r})" for k, (a, b) in sorted(diff.items()))
                + "; run `auditor index --rebuild` to rebuild it"
            )

    # -- documents -----------------------------------------------------------------------
    def resolve(self, ref: str) -> int:
        """A document id from an id, a sha256 prefix (6+ hex digits) or a path."""
        ref = ref.strip()
        if ref.isdigit() and self.scalar("SELECT 1 FROM documents WHERE id = ?", (int(ref),)):
            return int(ref)
        low = ref.lower()
        if len(low) >= 6 and all(c in "0123456789abcdef" for c in low):
            ids = [r[0] for r in self.conn.execute(
                "SELECT id FROM documents WHERE sha256 >= ? AND sha256 < ? ORDER BY id LIMIT 2",
                (low, low + "g"),
            )]
            if len(ids) == 1:
                return ids[0]
            if len(ids) > 1:
                raise NoDocument(f"sha256 prefix {ref!r} is ambiguous; give more digits")
        resolved = str(Path(ref).expanduser().resolve()) if ref else ref
        ids = [r[0] for r in self.conn.execute(
            "SELECT DISTINCT doc_id FROM sightings WHERE ((path = ? OR resolved = ?) AND part = '') "
            "OR path || '#' || part = ? OR resolved || '#' || part = ? ORDER BY doc_id",
            (ref, resolved, ref, resolved),
        )]
        if len(ids) == 1:
            return ids[0]
        if len(ids) > 1:
            raise NoDocument(
                f"{ref!r} names several documents ({', '.join(map(str, ids))}: an EDGAR "
                "submission and its parts, or a file whose content changed); use an id or PATH#SEQUENCE"
            )
        raise NoDocument(f"no stored document matches {ref!r} (id, sha256 prefix or path)")

    def document(self, doc_id: int) -> dict[str, Any]:
        rows = self.rows("SELECT * FROM documents WHERE id = ?", (doc_id,))
        if not rows:
            raise NoDocument(f"no document with id {doc_id}")
        doc = rows[0]
        for key in ("meta", "warnings"):
            doc[key] = json.loads(doc[key])
        doc["page_offsets"] = json.loads(doc["page_offsets"]) if doc["page_offsets"] else None
        return doc

    def provenance(self, doc_id: int) -> dict[str, Any]:
        """A document with every sighting, its parent (of the EDGAR submissions it was seen in,
        the one with the richest header) and index counts."""
        doc = self.document(doc_id)
        doc["sightings"] = self.rows(
            "SELECT s.path, s.resolved, s.part, s.within_id, s.size, s.mtime, s.source, s.meta, "
            "s.seen_at, s.gone_at, b.name AS batch FROM sightings s JOIN batches b ON b.id = s.batch_id "
            "WHERE s.doc_id = ? ORDER BY s.id",
            (doc_id,),
        )
        for s in doc["sightings"]:
            s["meta"] = json.loads(s["meta"])
        doc["parent"] = self._richest_submission(doc)
        index = self.rows("SELECT n_words, n_shingles, n_sampled FROM index_docs WHERE doc_id = ?", (doc_id,))
        doc["index"] = index[0] if index else None
        doc["withdrawals"] = self.rows(
            "SELECT action, at, reason, by, command FROM withdrawals WHERE doc_id = ? ORDER BY id", (doc_id,))
        return doc

    def _richest_submission(self, doc: dict[str, Any]) -> dict[str, Any] | None:
        """Of the EDGAR submissions a part was seen in, the one whose header says most (a feed
        copy and an archive copy of one filing, a bare document and its full submission), then
        the first stored."""
        from auditor.extract.edgar import header_richness

        ids = {s["within_id"] for s in doc["sightings"] if s["within_id"]}
        ids |= {doc["parent_id"]} if doc["parent_id"] else set()
        found = [self.document(i) for i in sorted(ids)]
        return max(found, key=lambda d: (header_richness(d["meta"]), -d["id"])) if found else None

    def insert_reading(self, doc_id: int, r: dict[str, Any]) -> None:
        """Store one other reading of a document (inside the caller's transaction)."""
        self.conn.execute(
            "INSERT OR REPLACE INTO readings (doc_id, name, why, text, sha256, n_words, n_shingles, norm_sha256)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (doc_id, r["name"], r["why"], r["text"], packing.text_digest(r["text"]), r["n_words"], r["n_shingles"],
             r["norm_sha256"]))

    def readings(self, doc_id: int, *, with_text: bool = True) -> list[dict[str, Any]]:
        """The other readings of a document, by name."""
        cols = "name, why, sha256, n_words, n_shingles, norm_sha256" + (", text" if with_text else "")
        return self.rows(f"SELECT {cols} FROM readings WHERE doc_id = ? ORDER BY name", (doc_id,))

    # -- texts and word sequences ----------------------------------------------------------
    # The only code that reads or writes the tables ``texts`` and ``shingle_sequences``
    # (tests/store/test_reads.py holds every other module to it).

    def insert_text(self, doc_id: int, text: str) -> None:
        """Store a document's text with its digest (inside the caller's transaction)."""
        self.conn.execute("INSERT INTO texts (doc_id, sha256, text) VALUES (?, ?, ?)",
                          (doc_id, packing.text_digest(text), packing.pack_text(text)))

    def insert_sequence(self, doc_id: int, n_words: int, encoded: bytes) -> None:
        """Store (or replace) a document's encoded word sequence with its digest (inside the
        caller's transaction)."""
        self.conn.execute("INSERT OR REPLACE INTO shingle_sequences (doc_id, n_words, sha256, data) VALUES (?,?,?,?)",
                          (doc_id, n_words, packing.digest(encoded), encoded))

    def delete_sequences(self) -> None:
        """Every stored word sequence (an index rebuild writes them again)."""
        self.conn.execute("DELETE FROM shingle_sequences")

    def text(self, doc_id: int) -> str:
        """A document's text, checked (see :meth:`texts_of`)."""
        for _, t in self.texts_of([doc_id]):
            return t
        raise NoDocument(f"document {doc_id} has no stored text")

    def texts_of(self, ids: Iterable[int], chunk: int = 200) -> Iterator[tuple[int, str]]:
        """(id, text) of each of ``ids`` that has text, by id, a few hundred at a time. Each text
        is checked as it is read: its bytes against the sha256 stored with it, and that digest
        against the one the custody log vouches for; StoreDamaged names the documents that fail."""
        for doc_id, raw in self._read("texts", ids, chunk):
            yield doc_id, raw.decode("utf-8", "surrogatepass")

    def sequences_of(self, ids: Iterable[int], chunk: int = 200) -> Iterator[tuple[int, bytes]]:
        """(id, encoded word sequence) of each of ``ids`` that has one, by id, checked as
        :meth:`texts_of` checks texts."""
        yield from self._read("shingle_sequences", ids, chunk)

    def with_text(self) -> list[int]:
        """Every document id that has a stored text, ascending."""
        return [int(r[0]) for r in self.conn.execute("SELECT doc_id FROM texts ORDER BY doc_id")]

    def with_sequence(self) -> list[int]:
        """Every document id that has a stored word sequence, ascending."""
        return [int(r[0]) for r in self.conn.execute("SELECT doc_id FROM shingle_sequences ORDER BY doc_id")]

    def _read(self, table: str, ids: Iterable[int], chunk: int) -> Iterator[tuple[int, bytes]]:
        ordered = sorted({int(i) for i in ids})
        for a in range(0, len(ordered), chunk):
            checked = self._checked()
            rows = self.inspect(table, ordered[a : a + chunk], known=checked)
            bad = [r for r in rows if r.problem is not None]
            if not bad:
                bad = self._unvouched(table, [r for r in rows if checked.get((table, r.doc_id)) != r.row_digest])
            if bad:
                paths = dict(self.select_in("SELECT id, path FROM documents WHERE id IN ({})", [r.doc_id for r in bad]))
                shown = "; ".join(f"document {r.doc_id} ({paths.get(r.doc_id, 'no document row')}): {r.problem}"
                                  for r in bad[:10])
                more = f" (and {len(bad) - 10} more)" if len(bad) > 10 else ""
                fix = ("`auditor index --rebuild` derives every word sequence again from the texts" if table != "texts"
                       else "restore the store from a backup or re-ingest the documents named")
                raise StoreDamaged(
                    f"{self.path} is damaged, so nothing computed from it could be defended: {shown}{more}. "
                    f"Run `auditor check --db {self.path}` for the full list; {fix}")
            for r in rows:
                assert r.content is not None and r.row_digest is not None
                checked[(table, r.doc_id)] = r.row_digest
                yield r.doc_id, r.content

    def _checked(self) -> dict[tuple[str, int], str]:
        """The rows read and found intact in the store's present state, by (table, id): their row
        digests. Forgotten once the store changes (a write of this connection, or another's
        commit), so a row read again in the same state is not hashed and looked up again."""
        state = (self.conn.total_changes, self.conn.execute("PRAGMA data_version").fetchone()[0])
        memo = self.memo.get("checked")
        if memo is None or memo[0] != state:
            memo = self.memo["checked"] = (state, {})
        return memo[1]

    def inspect(self, table: str, ids: Iterable[int] | None = None, *,
                known: dict[tuple[str, int], str] | None = None) -> list[Stored]:
        """The rows of ``texts`` or ``shingle_sequences`` (of ``ids``, else all of them, by id)
        with their content when it is what the row's digest says, else what is wrong with it:
        never raises for damage (``auditor check`` reports it). Nothing here asks the log."""
        cols = {"texts": "doc_id, typeof(sha256), CAST(sha256 AS BLOB), typeof(text), CAST(text AS BLOB), NULL, NULL",
                "shingle_sequences": "doc_id, typeof(sha256), CAST(sha256 AS BLOB), typeof(data), CAST(data AS BLOB),"
                                     " typeof(n_words), n_words"}[table]
        sql = f"SELECT {cols} FROM {table}"
        rows = (self.conn.execute(sql + " ORDER BY doc_id").fetchall() if ids is None
                else self.select_in(sql + " WHERE doc_id IN ({})", ids))
        return [_inspected(table, *r, known=known) for r in rows]

    def _unvouched(self, table: str, rows: list[Stored]) -> list[Stored]:
        """The rows whose digest is not the one the custody log vouches for (``custody_rows``),
        each with what is wrong; rows this transaction wrote and has not sealed yet are its own."""
        if not rows:
            return []
        keys = [r.doc_id for r in rows]
        kept = dict(self.select_in("SELECT key, digest FROM custody_rows WHERE tbl = '" + table + "' AND key IN ({})",
                                   keys))
        if self.conn.in_transaction and getattr(self, "custody", None) is not None:
            mine = {int(k) for k, in self.select_in(
                "SELECT key FROM temp.custody_touched WHERE tbl = '" + table + "' AND key IN ({})", keys)}
        else:
            mine = set()
        out = []
        for r in rows:
            if r.doc_id in mine:
                continue
            want = kept.get(r.doc_id)
            if want is None:
                out.append(replace(r, problem=f"its {_NOUN[table]} is in the store but not in the custody log: "
                                              "it was written behind the store's back"))
            elif want != r.row_digest:
                out.append(replace(r, problem=f"its {_NOUN[table]} is not what the custody log recorded: it was "
                                              "changed behind the store's back"))
        return out

    def stats(self) -> dict[str, Any]:
        return {
            "documents": self.scalar("SELECT count(*) FROM documents"),
            "with_text": self.scalar("SELECT count(*) FROM texts"),
            "indexed": self.scalar("SELECT count(*) FROM index_docs"),
            "postings": self.scalar("SELECT coalesce(sum(n_sampled), 0) FROM index_docs"),
            "exact_duplicates": self.scalar("SELECT count(*) FROM documents WHERE duplicate_of IS NOT NULL"
                                            " AND withdrawn_at IS NULL"),
            "withdrawn": self.scalar("SELECT count(*) FROM documents WHERE withdrawn_at IS NOT NULL"),
            "sightings": self.scalar("SELECT count(*) FROM sightings"),
            "failures": self.scalar("SELECT count(*) FROM failures WHERE status = 'failed'"),
            "skipped": self.scalar("SELECT count(*) FROM failures WHERE status = 'skipped'"),
            "by_format": self.rows(
                "SELECT format, count(*) AS documents, sum(size) AS bytes FROM documents GROUP BY format ORDER BY format"
            ),
            "by_batch": self.rows(
                "SELECT name, status, started, ended, runs, n_ok, n_duplicate, n_unchanged, n_failed, n_skipped "
                "FROM batches ORDER BY id"
            ),
            "failures_by_code": self.rows(
                "SELECT status, code, count(*) AS n FROM failures GROUP BY status, code ORDER BY status, code"
            ),
        }

    def integrity_check(self) -> str:
        return str(self.scalar("PRAGMA integrity_check"))


def regroup(store: Store, doc_ids: Iterable[int]) -> None:
    """Point each exact-duplicate group touched at its lowest-id document not withdrawn."""
    norms = sorted({r[0] for d in sorted(set(doc_ids)) for r in store.conn.execute(
        "SELECT norm_sha256 FROM documents WHERE id = ? AND norm_sha256 IS NOT NULL", (d,))})
    for norm in norms:
        members = store.conn.execute(
            "SELECT id, withdrawn_at, duplicate_of FROM documents WHERE norm_sha256 = ? ORDER BY id", (norm,)
        ).fetchall()
        live = [m[0] for m in members if m[1] is None]
        rep = live[0] if live else members[0][0]
        for doc_id, _, dup in members:
            want = None if doc_id == rep else rep
            if dup != want:
                store.conn.execute("UPDATE documents SET duplicate_of = ? WHERE id = ?", (want, doc_id))
