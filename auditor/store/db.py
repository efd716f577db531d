"""The SQLite store: documents, their provenance, the sampled shingle index, and audit runs.

One file holds everything a report needs to be defended: raw-byte hashes, where and when each
document was seen, how its text was obtained, the index parameters, and every run's findings.

Durability: WAL journal, ``synchronous=NORMAL`` (consistent after a crash; a power loss may roll
back the last commits), a busy timeout so a second process waits for the write lock instead of
failing, and one ``BEGIN IMMEDIATE`` transaction per input file, so a run killed at any point
leaves each file either fully stored or not at all. Each stored text carries the sha256 of its
UTF-8 bytes (``texts.sha256``, from migration 0006), so :mod:`auditor.corpus.check` can tell a text
altered behind the store's back.

Read-only stores: when the file or its directory is not writable, the store is opened with a
``mode=ro`` URI (nothing is migrated or written; ``Store.writable`` is False and ``write()``
refuses with a clear error). A WAL database needs its ``-shm`` file even to be read; when that
cannot be created (a read-only directory) and no ``-wal`` file holds unmerged commits, the store
is opened ``immutable=1``, which is only right while no other process writes to it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
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
from auditor.store import custody
from auditor.text.shingle import DEFAULT_PARAMS, Params

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
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
CREATE TABLE IF NOT EXISTS documents (
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
    created TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_norm ON documents(norm_sha256);
CREATE INDEX IF NOT EXISTS documents_parent ON documents(parent_id);
CREATE TABLE IF NOT EXISTS texts (
    doc_id INTEGER PRIMARY KEY REFERENCES documents(id),
    text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sightings (
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
    UNIQUE (resolved, part, doc_id)
);
CREATE INDEX IF NOT EXISTS sightings_doc ON sightings(doc_id);
CREATE TABLE IF NOT EXISTS failures (
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
-- The sampled index: per document, its sorted distinct sampled shingle hashes as little-endian
-- uint64 (8 bytes each). Postings lists are built in memory from these when needed (1.2 M
-- postings, 9 MB, for 140 MB of text). One blob per document keeps each ingest transaction
-- small, where a (hash, doc) B-tree would touch a page per posting.
CREATE TABLE IF NOT EXISTS index_docs (
    doc_id INTEGER PRIMARY KEY REFERENCES documents(id),
    n_words INTEGER NOT NULL,
    n_shingles INTEGER NOT NULL,
    n_sampled INTEGER NOT NULL,
    sampled BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    params TEXT NOT NULL,
    started TEXT NOT NULL,
    ended TEXT,
    summary TEXT NOT NULL DEFAULT '{}',
    report_dir TEXT,
    digest TEXT
);
CREATE TABLE IF NOT EXISTS findings (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    kind TEXT NOT NULL,
    contained_id INTEGER NOT NULL,
    container_id INTEGER NOT NULL,
    containment REAL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS findings_run ON findings(run_id);
"""


MIGRATION_SET = "containment-auditor"
MIGRATIONS: list[tuple[str, Callable[[Any], None]]] = []
"""Schema migrations in order, applied with sqlite-utils' ``Migrations``; add one with
``@migration("NNNN_what")``. Kept as plain functions so that opening an up-to-date store
imports nothing (sqlite-utils imports pandas when it is installed)."""


def migration(name: str) -> Callable[[Callable[[Any], None]], Callable[[Any], None]]:
    def register(fn: Callable[[Any], None]) -> Callable[[Any], None]:
        MIGRATIONS.append((name, fn))
        return fn
    return register


@migration("0001_initial")
def _initial(db: Any) -> None:
    """The first schema (stores written before migrations existed already have it)."""
    for stmt in _SCHEMA.split(";"):
        if stmt.strip():
            db.execute(stmt)
    db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('index_params', ?)",
               (json.dumps(DEFAULT_PARAMS.as_dict(), sort_keys=True),))


@migration("0002_withdrawn_documents")
def _withdrawn_documents(db: Any) -> None:
    """Withdrawal (``auditor.corpus.withdraw``): a document leaves audits and gates but keeps its row and
    provenance. ``sightings.gone_at``: when the file at that place was found gone (or replaced);
    ``documents.withdrawn_*``: when, why and by whom the document was withdrawn (NULL: in the
    corpus); ``withdrawals``: every withdrawal and restoration, in order."""
    for stmt in (
        "ALTER TABLE documents ADD COLUMN withdrawn_at TEXT",
        "ALTER TABLE documents ADD COLUMN withdrawn_reason TEXT",
        "ALTER TABLE documents ADD COLUMN withdrawn_by TEXT",
        "ALTER TABLE sightings ADD COLUMN gone_at TEXT",
        "CREATE TABLE withdrawals (id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL REFERENCES documents(id),"
        " action TEXT NOT NULL, at TEXT NOT NULL, reason TEXT NOT NULL, by TEXT NOT NULL, command TEXT NOT NULL)",
        "CREATE INDEX withdrawals_doc ON withdrawals(doc_id)",
    ):
        db.execute(stmt)


@migration("0003_findings_by_run")
def _findings_by_run(db: Any) -> None:
    """Every containing pair of a run (report format 2), keyed by run and pair.

    WITHOUT ROWID and keyed in the order the audit writes the pairs, so a run of a million
    pairs is appended to one B-tree. The pairs of ``near-dups`` runs have their own table. Runs
    of report format 1 keep their rows in findings_v1.
    """
    db.execute("ALTER TABLE findings RENAME TO findings_v1")
    db.execute("DROP INDEX IF EXISTS findings_run")
    db.execute("CREATE INDEX IF NOT EXISTS findings_v1_run ON findings_v1(run_id)")
    db.execute("""
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
        ) WITHOUT ROWID""")
    db.execute("""
        CREATE TABLE near_duplicates (
            run INTEGER NOT NULL REFERENCES runs(id),
            a_id INTEGER NOT NULL,
            b_id INTEGER NOT NULL,
            score REAL,
            data TEXT NOT NULL,
            PRIMARY KEY (run, a_id, b_id)
        ) WITHOUT ROWID""")


@migration("0004_run_documents")
def _run_documents(db: Any) -> None:
    """Every document an audit run covered and what the audit made of it, so that the run can be
    queried, reviewed and assembled from the store alone (report format 2)."""
    db.execute("""
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
        ) WITHOUT ROWID""")


@migration("0005_documents_unreadable")
def _documents_unreadable(db: Any) -> None:
    """Why a document's text could not be (fully) read, so that it cannot be audited: (cid:N)
    glyphs, letter-spaced fragments, gibberish after decoding, parts of a .docx or HTML page
    not read. NULL when the text is a reading of the document."""
    db.execute("ALTER TABLE documents ADD COLUMN unreadable TEXT")


@migration("0006_text_digests")
def _text_digests(db: Any) -> None:
    """sha256 of each stored text's UTF-8 bytes. Texts stored before this migration keep NULL:
    computing it now would certify whatever they hold today ("no digest recorded")."""
    if "sha256" not in {r[1] for r in db.execute("PRAGMA table_info(texts)").fetchall()}:
        db.execute("ALTER TABLE texts ADD COLUMN sha256 TEXT")


@migration("0007_run_scope")
def _run_scope(db: Any) -> None:
    """What a run covered (the report's ``scope``: the corpus, or a gate's batch and its new
    documents), so runs can be listed and reviewed from the store alone (``auditor runs``)."""
    db.execute("ALTER TABLE runs ADD COLUMN scope TEXT")


@migration("0008_document_dates")
def _document_dates(db: Any) -> None:
    """A date for every document, with its source (:mod:`auditor.store.dating`): ``documents.dates``
    (the dates it carries itself, as JSON), ``documents.date`` and ``date_source`` (the one
    chosen); ``sightings.supplied_date`` and ``supplied_from``: a date the user supplied for
    that copy (``--dates FILE``). Documents already stored are dated from what the store holds."""
    for stmt in (
        "ALTER TABLE documents ADD COLUMN date TEXT",
        "ALTER TABLE documents ADD COLUMN date_source TEXT",
        "ALTER TABLE documents ADD COLUMN dates TEXT",
        "ALTER TABLE sightings ADD COLUMN supplied_date TEXT",
        "ALTER TABLE sightings ADD COLUMN supplied_from TEXT",
    ):
        db.execute(stmt)
    from auditor.store.dating import backfill

    backfill(db.conn)


@migration("0009_custody_log")
def _custody_log(db: Any) -> None:
    """The chain of custody (:mod:`auditor.store.custody`): a hash-chained log of every write, whose
    first entry records every tracked row as the store holds it now; and ``runs.contents``, the
    digest of what each run stores (runs from before it have none)."""
    from auditor.store import custody

    if "contents" not in {r[1] for r in db.execute("PRAGMA table_info(runs)").fetchall()}:
        db.execute("ALTER TABLE runs ADD COLUMN contents TEXT")  # a run's pairs and documents (custody.runs)
    custody.create(db.conn)


@migration("0010_readings")
def _readings(db: Any) -> None:
    """The other readings of a document (``auditor.extract.Reading``): what a reader could see
    besides its stored text (every text node, the other side of an alternative, the bytes as
    plain text...). Only readings whose normalised text differs from the document's are kept.
    The gate audits each reading of a new document against the corpus."""
    db.execute("""
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
        )""")


@migration("0011_shingle_sequences")
def _shingle_sequences(db: Any) -> None:
    """Each indexed document's words as the audit reads them (``shingle.WordSequence``: word
    hashes and character offsets, about 4 bytes a word), written by ingest in the transaction
    that stores the text, so that verification, location, controls, gate and query read a
    document's shingles by key instead of normalising and hashing its text again. Documents
    stored before have none until ``auditor index`` (which every audit runs first) adds them."""
    db.execute("""
        CREATE TABLE shingle_sequences (
            doc_id INTEGER PRIMARY KEY REFERENCES documents(id),
            n_words INTEGER NOT NULL,
            data BLOB NOT NULL
        )""")


@migration("0012_gate_verdicts")
def _gate_verdicts(db: Any) -> None:
    """A gate run's verdict (PASSED, FAILED, REFUSED), which its report status (OK or REFUSED:
    did the audit report findings) does not say."""
    db.execute("ALTER TABLE runs ADD COLUMN verdict TEXT")


@migration("0013_near_duplicate_sketches")
def _near_duplicate_sketches(db: Any) -> None:
    """The near-duplicate measures' cached values (MinHash sketches, simhashes, exact
    fingerprints), by document, kind and parameters (:mod:`auditor.engine.neardup`). Stores that made
    it before it was a migration already have it."""
    db.execute("CREATE TABLE IF NOT EXISTS sketches (doc_id INTEGER NOT NULL REFERENCES documents(id),"
               " kind TEXT NOT NULL, params_key TEXT NOT NULL, value BLOB NOT NULL,"
               " PRIMARY KEY (doc_id, kind, params_key))")
    db.execute("CREATE INDEX IF NOT EXISTS sketches_key ON sketches (kind, params_key)")


@migration("0014_custody_rows")
def _custody_rows(db: Any) -> None:
    """The current digest of every row the custody log tracks (``custody_rows``), kept by every
    entry in its transaction, so that a reader checks the rows it reads against the log without
    digesting the whole store (the gate: :func:`auditor.corpus.check.require_intact_for_reads`).
    Filled from the rows as they are: the store matched its log before it was migrated."""
    from auditor.store import custody

    custody.create_rows(db.conn)


@migration("0015_custody_edits")
def _custody_edits(db: Any) -> None:
    """A count of every change to a tracked row or to ``custody_rows`` (persistent triggers, so
    any SQLite client's edit counts), and the count each entry leaves: while they agree, nothing
    was edited behind the store's back, and a gate checks only the rows it reads
    (:func:`auditor.corpus.check.require_intact_for_reads`)."""
    from auditor.store import custody

    custody.install_edits(db.conn)


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


def text_digest(text: str) -> str:
    """The digest recorded with a stored text: sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


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


@dataclass
class Reads:
    """The rows of texts and word sequences read from a store while it records them (a gate,
    whose check verifies what it read: :func:`auditor.corpus.check.require_reads_intact`), by
    table and document; ``name``: the store to name in a message."""

    name: Path
    read: dict[str, set[int]] = field(default_factory=dict)
    checked: dict[str, set[int]] = field(default_factory=dict)

    def note(self, table: str, ids: Iterable[int]) -> None:
        self.read.setdefault(table, set()).update(int(i) for i in ids)

    def pending(self) -> dict[str, list[int]]:
        """The rows read and not yet verified (now counted as verified), by table."""
        out = {}
        for table, ids in sorted(self.read.items()):
            done = self.checked.setdefault(table, set())
            new = sorted(ids - done)
            if new:
                out[table] = new
                done.update(new)
        return out


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
        self.reads: Reads | None = None  # recording the texts and word sequences read (see Reads)
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
            except BaseException:
                self.conn.execute("ROLLBACK TO write")
                self.conn.execute("RELEASE write")
                self._forget_edits()
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

    def noted(self, table: str, ids: Iterable[int]) -> None:
        """Note rows of ``table`` read by key, while the store records its reads (``Reads``)."""
        if self.reads is not None:
            self.reads.note(table, ids)

    def texts_of(self, ids: Iterable[int], chunk: int = 200) -> Iterator[tuple[int, str]]:
        """(id, text) of each of ``ids`` that has text, by id, a few hundred at a time."""
        ordered = sorted(set(ids))
        self.noted("texts", ordered)
        for a in range(0, len(ordered), chunk):
            yield from ((int(i), str(t)) for i, t in self.select_in(
                "SELECT doc_id, text FROM texts WHERE doc_id IN ({})", ordered[a : a + chunk]))

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

    @functools.cached_property
    def text_digests(self) -> bool:
        """Whether this store records a digest with each new text (migration 0006 applied)."""
        return "sha256" in {r[1] for r in self.conn.execute("PRAGMA table_info(texts)")}

    def insert_text(self, doc_id: int, text: str) -> None:
        """Store a document's text with its digest (inside the caller's transaction)."""
        if self.text_digests:
            self.conn.execute("INSERT INTO texts (doc_id, text, sha256) VALUES (?, ?, ?)",
                              (doc_id, text, text_digest(text)))
        else:
            self.conn.execute("INSERT INTO texts (doc_id, text) VALUES (?, ?)", (doc_id, text))

    @functools.cached_property
    def has_readings(self) -> bool:
        """Whether this store keeps the other readings of its documents (migration 0010)."""
        return bool(self.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'readings'"))

    def insert_reading(self, doc_id: int, r: dict[str, Any]) -> None:
        """Store one other reading of a document (inside the caller's transaction)."""
        self.conn.execute(
            "INSERT OR REPLACE INTO readings (doc_id, name, why, text, sha256, n_words, n_shingles, norm_sha256)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (doc_id, r["name"], r["why"], r["text"], text_digest(r["text"]), r["n_words"], r["n_shingles"],
             r["norm_sha256"]))

    def readings(self, doc_id: int, *, with_text: bool = True) -> list[dict[str, Any]]:
        """The other readings of a document, by name (none in a store without the table)."""
        if not self.has_readings:
            return []
        cols = "name, why, sha256, n_words, n_shingles, norm_sha256" + (", text" if with_text else "")
        return self.rows(f"SELECT {cols} FROM readings WHERE doc_id = ? ORDER BY name", (doc_id,))

    def text(self, doc_id: int) -> str:
        self.noted("texts", (doc_id,))
        t = self.scalar("SELECT text FROM texts WHERE doc_id = ?", (doc_id,))
        if t is None:
            raise NoDocument(f"document {doc_id} has no stored text")
        return str(t)

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
