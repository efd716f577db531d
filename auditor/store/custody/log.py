"""The custody log in the store: its tables, the rows it tracks, recording each write in the
same transaction, and checking the chain and the live state against each other.

**What is tracked** is declared once, in ``TRACKED``: a table, its key, and the columns (or SQL
expressions) whose values make up a row's digest. Everything else (reports' findings, caches)
is derived and either re-derived by ``verify`` or covered by the run it belongs to.

**Recording.** A writable store's connection carries temporary triggers on every tracked table
(``install``): each insert, update or delete notes the row's key and, before an update or a
delete, the row's digest as it was. When a ``Store.write()`` transaction is about to commit,
``seal`` digests the rows noted, appends one entry (its rows, the digest of its changes, the
new state and the link to the previous entry) and updates the running state, all in that
transaction. So nothing a writer of this tool changes can be left out, and no entry survives a
write that rolled back. The triggers are temporary (this connection only): a write made with
any other SQLite client leaves no entry, and that is what the checks find.

**Checking.** ``check_quick`` (before every audit, gate and assembly) verifies the entries after
the last checkpoint (hash, link, changes) and compares the state the head entry records with
the set hash of the live rows: O(entries since the checkpoint + the tracked rows, not the
texts' bytes). ``check_full`` (``auditor check``) replays the whole chain from its first entry
and compares, row by row, what it says with what the store holds. Either names the first bad
entry, and the rows and documents that differ.

**The rows' digests at hand.** ``custody_rows`` holds the current digest of every tracked row,
kept by every entry in its own transaction (``append``). It is not tracked itself: the quick
check proves it equals the live rows, and ``check_rows`` that the set hash of its digests is the
state the head records (64-hex strings, no blobs). Every read of a text or a word sequence is
checked against it (``Store.texts_of``), and the gate checks the other rows it reads against it
(``differing``): the gate's check grows with what the gate reads, not with the store.

**Edits counted.** ``custody_edits`` counts every change to a tracked row or to
``custody_rows`` by any SQLite client (persistent triggers in plain SQL: another client's edit
is counted, never refused). An entry records the count it leaves (``custody_head.edits``) only
when its transaction began with the store holding nothing but what the log wrote (``begin``:
the count where the last entry left it, or where a check of every row saw it), so no write
absorbs an edit. While the counts agree (``unedited``), ``custody_rows`` and the rows a gate
the gate reads whole are as the entries left them, and the gate skips proving them.
"""

from __future__ import annotations

import functools
import getpass
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from auditor.errors import StoreDamaged
from auditor.store.custody.chain import (
    GENESIS_PREV,
    Entry,
    Replay,
    State,
    entry_body,
    entry_hash,
    entry_problem,
    replay,
    row_digest,
    rows_text,
)

SCHEMA = (
    # seq: AUTOINCREMENT, so sqlite_sequence keeps the highest entry ever written (a log cut
    # after the fact shows); entry: the canonical JSON that is hashed; rows: its changes.
    "CREATE TABLE IF NOT EXISTS custody (seq INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT NOT NULL,"
    " rows TEXT NOT NULL, hash TEXT NOT NULL)",
    # the running state after entry `seq` (writers add to it), and the checkpoint: the last entry
    # a check verified together with the live state
    "CREATE TABLE IF NOT EXISTS custody_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL,"
    " lanes BLOB NOT NULL, checked_seq INTEGER, checked_hash TEXT, edits INTEGER)",
)

# The current digest of every tracked row (``key`` untyped: no affinity turns a text key into a
# number). Not tracked itself: ``check_rows`` proves it against the head's state.
ROWS_SCHEMA = ("CREATE TABLE IF NOT EXISTS custody_rows (tbl TEXT NOT NULL, key NOT NULL, digest TEXT NOT NULL,"
               " PRIMARY KEY (tbl, key)) WITHOUT ROWID")


# Every change to a tracked row or to ``custody_rows``, by any SQLite client, adds one to ``n``
# (persistent triggers, ``EDIT_TRIGGERS``); each entry records the count it leaves in
# ``custody_head.edits``. Equal counts: nothing was changed since but through this tool's writes.
EDITS_SCHEMA = "CREATE TABLE IF NOT EXISTS custody_edits (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)"


@dataclass(frozen=True)
class Tracked:
    """A table whose rows the log vouches for.

    ``columns``: names, or ``name=expression`` with ``{r}`` standing for the row (``NEW``,
    ``OLD`` or the table); columns the store does not have yet are left out, like NULLs.
    ``document``: the column holding the document a row belongs to (for messages).
    ``where``: only rows matching it are tracked.
    """

    table: str
    key: str
    columns: tuple[str, ...]
    noun: str
    document: str | None = None
    where: str | None = None

    def parsed(self) -> list[tuple[str, str]]:
        out = []
        for c in self.columns:
            name, _, expr = c.partition("=")
            out.append((name, expr or "{r}." + name))
        return out


TRACKED: tuple[Tracked, ...] = (
    Tracked("documents", "id", (
        "sha256", "parent_id", "format", "extractor", "extractor_version", "encoding", "size", "n_pages",
        "page_offsets", "n_chars", "n_words", "norm_sha256", "duplicate_of", "meta", "warnings", "path",
        "batch_id", "created", "withdrawn_at", "withdrawn_reason", "withdrawn_by", "unreadable",
        "date", "date_source", "dates"),
        "document row", "id"),
    # a text and a word sequence by the digest of their content, which every read checks their
    # bytes against (``Store.texts_of``, ``Store.sequences_of``): a row's digest is computed
    # without reading its pages of compressed bytes
    Tracked("texts", "doc_id", ("sha256",), "text", "doc_id"),
    Tracked("index_docs", "doc_id", ("n_words", "n_shingles", "n_sampled", "sampled"), "index row", "doc_id"),
    # the words verification and location read instead of the text
    Tracked("shingle_sequences", "doc_id", ("n_words", "sha256"), "word sequence", "doc_id"),
    Tracked("sightings", "id", (
        "doc_id", "batch_id", "path", "resolved", "part", "within_id", "size", "mtime", "source", "meta",
        "seen_at", "gone_at", "supplied_date", "supplied_from"), "sighting", "doc_id"),
    Tracked("withdrawals", "id", ("doc_id", "action", "at", "reason", "by", "command"), "withdrawal record",
            "doc_id"),
    Tracked("failures", "id", (
        "batch_id", "status", "code", "message", "path", "resolved", "part", "within_id", "sha256", "size",
        "mtime", "source", "meta", "seen_at"), "failed-input record", "within_id"),
    Tracked("batches", "id", (
        "name", "source", "tool_version", "command", "started", "ended", "status", "runs", "n_ok",
        "n_duplicate", "n_unchanged", "n_failed", "n_skipped"), "batch"),
    Tracked("runs", "id", (
        "run_id", "kind", "status", "params", "started", "ended", "summary", "report_dir", "digest", "scope",
        "contents", "verdict"), "run"),
    # a gate's batch's other readings (what the gate audited besides the visible texts)
    Tracked("readings", "id", ("doc_id", "name", "why", "sha256", "n_words", "n_shingles", "norm_sha256"),
            "reading", "doc_id"),
    Tracked("meta", "key", ("value",), "setting", where="{r}.key = 'index_params'"),
)
"""Every table the log vouches for. To cover a new table or column, add it here and ship it with
the schema migration that creates it: the store's migration step then records one ``migrate``
entry for the rows whose digest changed (``adopt``)."""

_BY_TABLE = {t.table: t for t in TRACKED}


# -- SQL ----------------------------------------------------------------------------------------

def register(conn: sqlite3.Connection) -> None:
    """The SQL functions tracked expressions and triggers call."""
    conn.create_function("custody_row", -1, _sql_row, deterministic=True)


def _sql_row(table: str, key: Any, *cells: Any) -> str:
    """``custody_row(table, key, name1, typeof1, blob1, ...)``, as triggers call it."""
    return row_digest(table, key, cells[0::3], [x for i in range(0, len(cells), 3) for x in cells[i + 1 : i + 3]])


@dataclass
class _Table:
    tracked: Tracked
    names: tuple[str, ...]
    select: str  # SELECT key, typeof(c1), CAST(c1 AS BLOB), ... FROM main.table
    where: str | None


@dataclass
class Plan:
    """The tracked tables and columns this store has, and the SQL that reads their digests
    (built once per connection: a writer seals an entry per file); and the head this connection
    last wrote with its state, reused while it is still the log's head."""

    tables: dict[str, _Table]
    last: tuple[int, str, State] | None = None
    # the edit counter (``custody_edits``) at which the store was last seen to hold only what its
    # entries wrote: by a check of every tracked row (``checked_edits``), or at the start of this
    # transaction, when the counter was where the last entry left it (``in_sync``); an entry
    # records its count only then, so a write never absorbs an edit made behind its back
    checked_edits: int | None = None
    in_sync: bool = False


def plan(conn: sqlite3.Connection) -> Plan:
    tables = {}
    for t in TRACKED:
        have = {r[1] for r in conn.execute(f"PRAGMA main.table_info({t.table})")}
        if not have:
            continue
        cols = [(n, e) for n, e in t.parsed() if n in have or "(" in e]
        tables[t.table] = _Table(t, tuple(n for n, _ in cols),
                                 f"SELECT {t.key}, {_cells(cols, t.table)} FROM main.{t.table}",
                                 t.where.format(r=t.table) if t.where else None)
    return Plan(tables)


def _columns(conn: sqlite3.Connection) -> dict[str, list[tuple[str, str]]]:
    """For each tracked table the store has: (name, expression) of the tracked columns it has."""
    out = {}
    for t in TRACKED:
        have = {r[1] for r in conn.execute(f"PRAGMA main.table_info({t.table})")}
        if have:
            out[t.table] = [(n, e) for n, e in t.parsed() if n in have or "(" in e]
    return out


def _cells(cols: list[tuple[str, str]], alias: str, named: bool = False) -> str:
    return ", ".join((f"'{n}', " if named else "") + f"typeof({e.format(r=alias)}), CAST({e.format(r=alias)} AS BLOB)"
                     for n, e in cols)


def _note(table: str, key: str, row: str, digest: str) -> str:
    """A trigger statement noting a row's key (and its digest before the change), once per
    transaction. Never a conflict: an outer INSERT OR REPLACE or upsert would impose its own
    conflict policy on an INSERT OR IGNORE here."""
    return (f"INSERT INTO custody_touched (tbl, key, old) SELECT '{table}', {row}.{key}, {digest}"
            f" WHERE NOT EXISTS (SELECT 1 FROM custody_touched WHERE tbl = '{table}' AND key = {row}.{key});")


def has_log(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'custody'").fetchone() is not None


def _keep(conn: sqlite3.Connection, rows: list[list[Any]]) -> None:
    """Each row's new digest into ``custody_rows`` (gone: deleted), inside the entry's transaction."""
    if not rows:
        return
    conn.executemany("INSERT INTO custody_rows (tbl, key, digest) VALUES (?,?,?) ON CONFLICT(tbl, key)"
                     " DO UPDATE SET digest = excluded.digest", [(t, k, new) for t, k, _, new in rows if new is not None])
    conn.executemany("DELETE FROM custody_rows WHERE tbl = ? AND key = ?", [(t, k) for t, k, _, new in rows if new is None])


def edit_triggers(conn: sqlite3.Connection) -> dict[str, str]:
    """name -> SQL of the persistent trigger counting each kind of change (insert, update, delete)
    to each tracked table the store has, to ``custody_rows`` and to ``posted``, and each update
    or deletion of the postings keyed by hash (a gate reads them while the count is in step; a
    posting added only adds a candidate, which is verified). Plain SQL, no function of this tool: any client's
    edit is counted, and none is refused."""
    have = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    out = {}
    every = (("INSERT", "NEW"), ("UPDATE", None), ("DELETE", "OLD"))
    for t, ops in [*((t, every) for t in TRACKED), (Tracked("custody_rows", "key", (), "row digest"), every),
                   (Tracked("postings", "hash", (), "posting"), every[1:]), (Tracked("posted", "doc_id", (), ""), every)]:
        if t.table not in have:
            continue
        for op, when in ops:
            cond = ""
            if t.where:
                cond = (f" WHEN ({t.where.format(r=when)})" if when else
                        f" WHEN ({t.where.format(r='OLD')}) OR ({t.where.format(r='NEW')})")
            name = f"custody_edit_{t.table}_{op[0].lower()}"
            out[name] = (f"CREATE TRIGGER {name} AFTER {op} ON {t.table}{cond} BEGIN"
                         " UPDATE custody_edits SET n = n + 1 WHERE id = 1; END")
    return out


def _rows_proven(conn: sqlite3.Connection) -> bool:
    """Whether ``custody_rows`` is what the log vouches for (its set hash is the head's state)."""
    return check_rows(conn).ok


def unedited(conn: sqlite3.Connection) -> bool:
    """Whether no tracked row and no row digest was changed since the last entry but by this
    tool's writes: the edit counter is where that entry left it, and every counting trigger is
    in place as written. (An edit made with triggers switched off on the editing connection
    (``SQLITE_DBCONFIG_ENABLE_TRIGGER``), after dropping them, or that also sets the count back, is
    not seen here; ``check_quick``, before every audit, and ``auditor check`` see it.)"""
    if not has_log(conn):
        return False
    counts = conn.execute("SELECT (SELECT n FROM custody_edits WHERE id = 1), (SELECT edits FROM custody_head"
                          " WHERE id = 1)").fetchone()
    if counts is None or counts[0] is None or counts[0] != counts[1]:
        return False
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'custody_edits'").fetchone():
        return False  # a trigger on the counter itself could hold it still
    present = {str(n): str(sql) for n, sql in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name GLOB 'custody_edit_*'")}
    return present == edit_triggers(conn)


def install(conn: sqlite3.Connection) -> Plan:
    """Temporary triggers that note every row a write touches (this connection only); returns
    the plan ``seal`` reads the rows with."""
    register(conn)
    conn.execute("PRAGMA recursive_triggers = ON")  # INSERT OR REPLACE's delete fires delete triggers
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS custody_touched (tbl TEXT NOT NULL, key ANY, old TEXT,"
                 " PRIMARY KEY (tbl, key))")
    for table, cols in _columns(conn).items():
        t = _BY_TABLE[table]
        when_new = f" WHEN {t.where.format(r='NEW')}" if t.where else ""
        when_old = f" WHEN {t.where.format(r='OLD')}" if t.where else ""
        note_old = _note(table, t.key, "OLD", f"custody_row('{table}', OLD.{t.key}, {_cells(cols, 'OLD', named=True)})")
        note_new = _note(table, t.key, "NEW", "NULL")
        for name, sql in (
                ("i", f"AFTER INSERT ON main.{table}{when_new} BEGIN {note_new} END"),
                ("u", f"BEFORE UPDATE ON main.{table}{when_old} BEGIN {note_old} END"),
                ("v", f"AFTER UPDATE ON main.{table}{when_new} BEGIN {note_new} END"),
                ("d", f"BEFORE DELETE ON main.{table}{when_old} BEGIN {note_old} END")):
            conn.execute(f"CREATE TEMP TRIGGER IF NOT EXISTS custody_{table}_{name} {sql}")
    return plan(conn)


def live(conn: sqlite3.Connection, keys: dict[str, list[Any]] | None = None,
         using: Plan | None = None) -> dict[tuple[str, Any], str]:
    """The digest of every tracked row the store holds (or of ``keys``, by table)."""
    out: dict[tuple[str, Any], str] = {}
    for table, t in (using or plan(conn)).tables.items():
        if keys is not None:
            wanted = sorted(set(keys.get(table, ())), key=lambda k: (type(k).__name__, k))
            for a in range(0, len(wanted), 500):
                part = wanted[a : a + 500]
                cond = f"{t.tracked.key} IN ({','.join('?' * len(part))})"
                sql = f"{t.select} WHERE {t.where + ' AND ' if t.where else ''}{cond}"
                for row in conn.execute(sql, part):
                    out[(table, row[0])] = row_digest(table, row[0], t.names, row[1:])
            continue
        for row in conn.execute(t.select + (f" WHERE {t.where}" if t.where else "")):
            out[(table, row[0])] = row_digest(table, row[0], t.names, row[1:])
    return out


def _order(k: tuple[str, Any]) -> tuple[int, str, Any]:
    return ([t.table for t in TRACKED].index(k[0]) if k[0] in _BY_TABLE else len(TRACKED),
            type(k[1]).__name__, k[1])


# -- entries ------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def entries(conn: sqlite3.Connection, after: int = 0) -> Iterator[Entry]:
    for seq, body, rows, h in conn.execute(
            "SELECT seq, entry, rows, hash FROM custody WHERE seq > ? ORDER BY seq", (after,)):
        yield Entry(int(seq), str(body), str(rows), str(h))


def head_entry(conn: sqlite3.Connection, rows: bool = True) -> Entry | None:
    """The last entry (without its rows unless ``rows``: the first entry's can be megabytes)."""
    row = conn.execute(f"SELECT seq, entry, {'rows' if rows else 'NULL'}, hash FROM custody ORDER BY seq DESC"
                       " LIMIT 1").fetchone()
    return Entry(int(row[0]), str(row[1]), str(row[2] or ""), str(row[3])) if row else None


def head(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """The log's head as reports record it: entry number, hash and the state it records."""
    if not has_log(conn):
        return None
    e = head_entry(conn, rows=False)
    if e is None:
        return None
    try:
        state = e.fields.get("state")
    except ValueError:
        state = None
    return {"seq": e.seq, "hash": e.hash, "state": state}


def edit_count(conn: sqlite3.Connection) -> int | None:
    """The edit counter now (None: a store without a log)."""
    if not has_log(conn):
        return None
    row = conn.execute("SELECT n FROM custody_edits WHERE id = 1").fetchone()
    return int(row[0]) if row and row[0] is not None else None


def begin(conn: sqlite3.Connection, using: Plan) -> None:
    """At the start of a write transaction: whether the store holds only what its entries wrote
    (so the entry this write appends may record the edit count it leaves)."""
    n = edit_count(conn)
    if n is None:
        using.in_sync = False
        return
    recorded = conn.execute("SELECT edits FROM custody_head WHERE id = 1").fetchone()
    using.in_sync = n == (recorded[0] if recorded else None) or n == using.checked_edits


def append(conn: sqlite3.Connection, action: str, detail: dict[str, Any], rows: list[list[Any]],
           state: State, last: Entry | None, *, in_sync: bool = True) -> Entry:
    """One entry after ``last`` (inside the caller's transaction); ``state`` is already updated.
    ``in_sync``: nothing but entries changed the store before this transaction (see ``Plan``)."""
    seq = (last.seq if last else 0) + 1
    text = rows_text(rows)
    body = entry_body(seq, last.hash if last else GENESIS_PREV, _now(), _user(), action, detail, text, len(rows),
                      state.digest())
    e = Entry(seq, body, text, entry_hash(body))
    conn.execute("INSERT INTO custody (seq, entry, rows, hash) VALUES (?,?,?,?)", (e.seq, e.body, e.rows, e.hash))
    _keep(conn, rows)
    conn.execute("INSERT INTO custody_head (id, seq, lanes) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET"
                 " seq = excluded.seq, lanes = excluded.lanes", (seq, state.to_bytes()))
    if in_sync:  # last: _keep's changes to custody_rows are counted too
        conn.execute("UPDATE custody_head SET edits = (SELECT n FROM custody_edits WHERE id = 1) WHERE id = 1")
    return e


def create(conn: sqlite3.Connection) -> Entry:
    """The log's tables, its row digests, its edit counter and its first entry, recording every
    tracked row the store holds now (the baseline schema's, in its transaction: the index
    parameters). The log vouches for the store from here on."""
    register(conn)
    for stmt in (*SCHEMA, ROWS_SCHEMA, EDITS_SCHEMA):
        conn.execute(stmt)
    conn.execute("INSERT INTO custody_edits (id, n) VALUES (1, 0)")
    for sql in edit_triggers(conn).values():
        conn.execute(sql)
    rows_now = live(conn)
    state = State()
    state.add(rows_now.values())
    rows = [[t, k, None, d] for (t, k), d in sorted(rows_now.items(), key=lambda kv: _order(kv[0]))]
    return append(conn, "genesis", {"note": "the custody log starts here: it vouches for the store's "
                                            "state from this entry on"}, rows, state, None)


def _running_state(conn: sqlite3.Connection, last: Entry | None) -> State:
    """The running state the writers keep, after checking it is the head's."""
    row = conn.execute("SELECT seq, lanes FROM custody_head WHERE id = 1").fetchone()
    if last is None and row is None:
        return State()
    try:
        state = State.from_bytes(row[1]) if row else None
        recorded = last.fields.get("state") if last else None
    except ValueError as e:
        raise StoreDamaged(f"the custody log's head cannot be read ({e})") from e
    if state is None or last is None or row[0] != last.seq or state.digest() != recorded:
        raise StoreDamaged(
            "the custody log's head does not hold together (its last entry, its running state and its "
            f"checkpoint disagree: entry {last.seq if last else None}, state after entry {row[0] if row else None}); "
            "it was edited behind the store's back")
    return state


def seal(conn: sqlite3.Connection, using: Plan, action: str | None, detail: dict[str, Any] | None
         ) -> Entry | None:
    """Append the entry for the rows this transaction touched (inside it, before it commits).

    Rows noted but unchanged are left out; with nothing changed, an entry is written only when
    the writer named an ``action`` (an assembly records that it was made).
    """
    touched = conn.execute("SELECT tbl, key, old FROM temp.custody_touched").fetchall()
    if not touched and action is None:
        return None
    by_table: dict[str, list[Any]] = {}
    for table, key, _ in touched:
        by_table.setdefault(table, []).append(key)
    now = live(conn, by_table, using)
    rows = [[t, k, old, now.get((t, k))] for t, k, old in touched if old != now.get((t, k))]
    conn.execute("DELETE FROM temp.custody_touched")
    if not rows and action is None:
        return None
    rows.sort(key=lambda r: _order((r[0], r[1])))
    _not_laundering(conn, rows)
    top = conn.execute("SELECT seq, hash FROM custody ORDER BY seq DESC LIMIT 1").fetchone()
    last: Entry | None  # None: the log has no entry yet
    if using.last is not None and top is not None and (top[0], top[1]) == using.last[:2]:
        state, last = using.last[2].copy(), Entry(top[0], "", "", top[1])  # nobody wrote since
    else:
        last = head_entry(conn, rows=False)
        state = _running_state(conn, last)
    state.apply(rows)
    e = append(conn, action or "write", detail or {}, rows, state, last, in_sync=using.in_sync)
    using.last = (e.seq, e.hash, state)
    return e


def _not_laundering(conn: sqlite3.Connection, rows: list[list[Any]]) -> None:
    """Each row a write changes was, before it, what the log vouches for (``custody_rows``): a
    row edited, deleted or added behind the store's back and then written over by this tool would
    otherwise be recorded as an ordinary change, and the edit would vanish from every check.
    Raises StoreDamaged (the transaction rolls back). O(rows written)."""
    if not rows:
        return
    for a in range(0, len(rows), 400):
        part = rows[a : a + 400]
        cond = " OR ".join(["(tbl = ? AND key = ?)"] * len(part))
        kept = {(str(t), k): str(d) for t, k, d in conn.execute(
            f"SELECT tbl, key, digest FROM custody_rows WHERE {cond}", [x for r in part for x in r[:2]])}
        for t, k, old, _ in part:
            if kept.get((t, k)) != old:
                spec = _BY_TABLE.get(t)
                name = (f"document row {k}" if t == "documents" else f"the {spec.noun} of document {k}"
                        if spec and spec.document == spec.key else _row_name(t, k))
                raise StoreDamaged(
                    f"{name[0].upper()}{name[1:]} is not what the custody log vouches for: it was "
                    f"{'added' if old is not None and (t, k) not in kept else 'changed or deleted'} behind the "
                    "store's back, and this write would have recorded over it. Run `auditor check` for the full list")


def adopt(conn: sqlite3.Connection, migrations: list[str]) -> Entry | None:
    """After schema migrations: record, as their entry, every tracked row whose digest is not
    what the log says (a migration that added a tracked column or table, or filled one).
    ``Store`` runs it only on a store whose live state matched its log before migrating."""
    expected = _expected(conn)
    now = live(conn)
    keys = sorted(set(expected) | set(now), key=_order)
    rows = [[t, k, expected.get((t, k)), now.get((t, k))] for t, k in keys
            if expected.get((t, k)) != now.get((t, k))]
    if not rows:
        return None
    proven = _rows_proven(conn)  # else the count this entry leaves would vouch for unproven digests
    last = head_entry(conn, rows=False)
    state = _running_state(conn, last)
    state.apply(rows)
    return append(conn, "migrate", {"migrations": migrations}, rows, state, last, in_sync=proven)


def _expected(conn: sqlite3.Connection) -> dict[tuple[str, Any], str]:
    r = replay(entries(conn))
    if r.problems:
        seq, why = r.problems[0]
        raise StoreDamaged(f"custody entry {seq}: {why}")
    return {(t, k): d for (t, k), d in r.rows.items()}


def matches(conn: sqlite3.Connection) -> bool:
    """Whether the live state is the state the head entry records (cheap: no replay)."""
    last = head_entry(conn, rows=False)
    if last is None:
        return False
    state = State()
    state.add(live(conn).values())
    try:
        return state.digest() == last.fields.get("state")
    except ValueError:
        return False


# -- checks -------------------------------------------------------------------------------------

@dataclass
class Breach:
    """Something wrong with the log or with a row it vouches for."""

    detail: str
    doc_id: int | None = None
    seq: int | None = None


@dataclass
class CustodyCheck:
    """What a check of the custody log found, and the head it checked against."""

    findings: list[Breach]
    head: dict[str, Any] | None
    entries: int  # entries verified now
    present: bool = True  # the store has a log

    @property
    def ok(self) -> bool:
        return not self.findings


def _tripwires(conn: sqlite3.Connection, last: Entry | None) -> list[Breach]:
    out = []
    top = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'custody'").fetchone()
    if top and last is not None and int(top[0]) > last.seq:
        out.append(Breach(f"the log ends at entry {last.seq}, but entries up to {top[0]} were written: "
                           f"entries {last.seq + 1} to {top[0]} were removed", seq=last.seq + 1))
    if last is None:
        out.append(Breach("the custody log has no entry: it was emptied", seq=1))
        return out
    row = conn.execute("SELECT seq, lanes, checked_seq, checked_hash FROM custody_head WHERE id = 1").fetchone()
    if row is None:
        out.append(Breach("the custody log's running state is missing", seq=last.seq))
        return out
    if row[2] is not None:
        at = conn.execute("SELECT hash FROM custody WHERE seq = ?", (row[2],)).fetchone()
        if at is None:
            out.append(Breach(f"entry {row[2]}, verified by an earlier check, is no longer in the log: "
                               "the log was cut", seq=int(row[2])))
        elif at[0] != row[3]:
            out.append(Breach(f"entry {row[2]} is not the entry an earlier check verified: the log was "
                               "rewritten", seq=int(row[2])))
    try:
        if row[0] != last.seq or State.from_bytes(row[1]).digest() != last.fields.get("state"):
            out.append(Breach(f"the log's running state is not the state its last entry ({last.seq}) "
                               "records: the head was edited", seq=last.seq))
    except ValueError:
        out.append(Breach("the log's running state cannot be read", seq=last.seq))
    return out


def _document(conn: sqlite3.Connection, table: str, key: Any) -> int | None:
    t = _BY_TABLE.get(table)
    if t is None or t.document is None:
        return None
    if t.document == t.key:
        return int(key) if isinstance(key, int) else None
    row = conn.execute(f"SELECT {t.document} FROM main.{table} WHERE {t.key} = ?", (key,)).fetchone()
    return int(row[0]) if row and row[0] is not None else None


def _row_name(table: str, key: Any) -> str:
    t = _BY_TABLE.get(table)
    noun = t.noun if t else f"{table} row"
    return f"its {noun}" if t and t.document == t.key else f"{noun} {key}"


def differences(conn: sqlite3.Connection, r: Replay, now: dict[tuple[str, Any], str]) -> list[Breach]:
    """Rows whose live digest is not what the replayed chain says, each with the entry that last
    recorded it."""
    out = []
    for t, k in sorted(set(r.rows) | set(now), key=_order):
        want, have = r.rows.get((t, k)), now.get((t, k))
        if want == have:
            continue
        seq = r.by.get((t, k))
        name = _row_name(t, k)
        label = r.labels.get(seq, f"entry {seq}") if seq is not None else ""
        if want is None:
            what = f"{name} is in the store but in no custody entry: it was written behind the store's back"
        elif have is None:
            what = f"{name}, recorded by {label}, is gone from the store: it was deleted behind the store's back"
        else:
            what = f"{name} is not what {label} recorded: it was altered behind the store's back"
        out.append(Breach(what, _document(conn, t, k), seq))
    return out


def _chain_findings(r: Replay) -> list[Breach]:
    return [Breach(f"custody entry {seq}: {why}", seq=seq) for seq, why in r.problems]


def check_full(conn: sqlite3.Connection) -> CustodyCheck:
    """Replay the whole chain and compare every tracked row with it (``auditor check``)."""
    if not has_log(conn):
        return CustodyCheck([], None, 0, present=False)
    register(conn)
    last = head_entry(conn, rows=False)
    r = replay(entries(conn))
    findings = _chain_findings(r)
    findings += _tripwires(conn, last)
    if r.broken:
        findings.append(Breach("the rows of the store cannot be checked against a log broken at entry "
                                f"{r.problems[-1][0]}", seq=r.problems[-1][0]))
    else:
        findings += differences(conn, r, live(conn))
        findings += _rows_kept(conn, r)
    return CustodyCheck(findings, head(conn), r.entries)


def _rows_kept(conn: sqlite3.Connection, r: Replay) -> list[Breach]:
    """``custody_rows`` against the replayed chain: edited, the gate falls back to the quick check
    (it cannot check what it reads against them), so the full check says so."""
    kept = {(str(t), k): str(d) for t, k, d in conn.execute("SELECT tbl, key, digest FROM custody_rows")}
    wrong = sorted((k for k in set(kept) | set(r.rows) if kept.get(k) != r.rows.get(k)), key=_order)
    if not wrong:
        return []
    t, k = wrong[0]
    return [Breach(f"the row digests kept with the log (custody_rows) differ from the log for {len(wrong)} "
                    f"row{'s' if len(wrong) != 1 else ''} (the first: {_row_name(t, k)}): "
                    "they were edited behind the store's back, so a gate checks the whole store as an audit does",
                    _document(conn, t, k), r.by.get((t, k)))]


def _since_checkpoint(conn: sqlite3.Connection, last: Entry | None) -> tuple[list[Breach], int]:
    """The tripwires, and every entry after the checkpoint (hash, link, changes): what is wrong,
    and how many entries were verified."""
    findings = _tripwires(conn, last)
    cp = conn.execute("SELECT checked_seq, checked_hash FROM custody_head WHERE id = 1").fetchone()
    start = int(cp[0]) if cp and cp[0] is not None and not findings else 0
    prev = str(cp[1]) if start else GENESIS_PREV
    n = 0
    expected = start + 1
    for e in entries(conn, start):
        n += 1
        if e.seq != expected:
            findings.append(Breach(f"custody entries {expected} to {e.seq - 1} are missing from the log", seq=expected))
            break
        why = entry_problem(e, prev)
        if why:
            findings.append(Breach(f"custody entry {e.seq}: {why}", seq=e.seq))
            break
        prev, expected = e.hash, expected + 1
    return findings, n


_HEX64 = re.compile(r"[0-9a-f]{64}")


def check_rows(conn: sqlite3.Connection, *, kept: bool = True) -> CustodyCheck:
    """The entries after the checkpoint, and ``custody_rows`` against the state the head records:
    the digests a reader then checks its rows against are the log's. O(entries since the
    checkpoint + tracked rows), reading 64-hex digests, never a text or a blob. ``kept=False``:
    the entries only (the caller knows ``custody_rows`` was changed only by entries:
    :func:`unedited`)."""
    if not has_log(conn):
        return CustodyCheck([], None, 0, present=False)
    register(conn)
    last = head_entry(conn, rows=False)
    findings, n = _since_checkpoint(conn, last)
    if not kept:
        return CustodyCheck(findings, head(conn), n)
    state = State()
    digests = [str(d) for d, in conn.execute("SELECT digest FROM custody_rows")]
    bad = sum(1 for d in digests if not _HEX64.fullmatch(d))
    if bad:
        findings.append(Breach(f"{bad} row digest(s) kept with the log (custody_rows) are not digests: they were "
                                "edited behind the store's back", seq=last.seq if last else None))
        return CustodyCheck(findings, head(conn), n)
    state.add(digests)
    try:
        recorded = last.fields.get("state") if last else None
    except ValueError:
        recorded = None
    if last is not None and state.digest() != recorded:
        findings.append(Breach("the row digests kept with the log (custody_rows) are not the state custody entry "
                                f"{last.seq} records: they were edited behind the store's back", seq=last.seq))
    return CustodyCheck(findings, head(conn), n)


def differing(conn: sqlite3.Connection, keys: Mapping[str, Sequence[Any] | None]) -> list[Breach]:
    """The rows among ``keys`` (by table; None: every row of that table) whose live digest is not
    the one ``custody_rows`` holds (after :func:`check_rows`: the one the log vouches for)."""
    register(conn)
    full = plan(conn)
    out = []
    for table in sorted(keys, key=lambda t: _order((t, 0))):
        wanted = keys[table]
        one = Plan({table: full.tables[table]}) if table in full.tables else None
        if wanted is None:
            now = live(conn, None, one) if one else {}  # a table dropped: every row it held is gone
            kept = {(table, k): str(d) for k, d in conn.execute(
                "SELECT key, digest FROM custody_rows WHERE tbl = ?", (table,))}
        else:
            now = live(conn, {table: list(wanted)}, one) if one else {}
            kept = {}
            ordered = sorted(set(wanted), key=lambda k: (type(k).__name__, k))
            for a in range(0, len(ordered), 500):
                part = ordered[a : a + 500]
                kept.update(((table, k), str(d)) for k, d in conn.execute(
                    f"SELECT key, digest FROM custody_rows WHERE tbl = ? AND key IN ({','.join('?' * len(part))})",
                    (table, *part)))
        for t, k in sorted(set(now) | set(kept), key=_order):
            if now.get((t, k)) != kept.get((t, k)):
                what = ("is in the store but not in the custody log" if (t, k) not in kept else
                        "is gone from the store" if (t, k) not in now else "is not what the custody log recorded")
                out.append(Breach(f"{_row_name(t, k)} {what}: it was changed behind the store's back",
                                   _document(conn, t, k) if one else None))
    return out


def check_quick(conn: sqlite3.Connection) -> CustodyCheck:
    """The entries after the checkpoint, and the live state against the head's: cheap enough to
    run before every audit. On a mismatch, the chain is replayed to name the rows."""
    if not has_log(conn):
        return CustodyCheck([], None, 0, present=False)
    register(conn)
    last = head_entry(conn, rows=False)
    findings, n = _since_checkpoint(conn, last)
    state = State()
    now = live(conn)
    state.add(now.values())
    try:
        recorded = last.fields.get("state") if last else None
    except ValueError:
        recorded = None
    if last is not None and state.digest() != recorded:
        r = replay(entries(conn))
        findings += [f for f in _chain_findings(r) if f.detail not in {x.detail for x in findings}]
        diff = [] if r.broken else differences(conn, r, now)
        findings += diff or [Breach(f"the store's live state is not the state custody entry {last.seq} "
                                     "records", seq=last.seq)]
    elif last is not None:
        findings += _kept_as_live(conn, now)
    return CustodyCheck(findings, head(conn), n)


def _kept_as_live(conn: sqlite3.Connection, now: dict[tuple[str, Any], str]) -> list[Breach]:
    """``custody_rows`` against the live rows, once those are proven the log's: the digests
    every read of a text or a word sequence is checked against (``Store.texts_of``)."""
    kept = {(str(t), k): str(d) for t, k, d in conn.execute("SELECT tbl, key, digest FROM custody_rows")}
    wrong = sorted((k for k in set(kept) | set(now) if kept.get(k) != now.get(k)), key=_order)
    if not wrong:
        return []
    t, k = wrong[0]
    return [Breach(f"the row digests kept with the log (custody_rows) differ from the store's rows for {len(wrong)} "
                    f"row{'s' if len(wrong) != 1 else ''} (the first: {_row_name(t, k)}): they were edited "
                    "behind the store's back", _document(conn, t, k))]


def checkpoint(conn: sqlite3.Connection, at: dict[str, Any]) -> None:
    """Record ``at`` (a head a check just verified with the live state) as the checkpoint
    (inside the caller's transaction)."""
    conn.execute("UPDATE custody_head SET checked_seq = ?, checked_hash = ? WHERE id = 1 AND"
                 " (checked_seq IS NULL OR checked_seq <= ?)", (at["seq"], at["hash"], at["seq"]))


def find(conn: sqlite3.Connection, at: dict[str, Any]) -> str | None:
    """None when the head ``at`` (as a report records it) is an entry of this store's log; else why not."""
    if not has_log(conn):
        return "the store keeps no custody log"
    try:
        seq = int(at["seq"])
    except (KeyError, TypeError, ValueError):
        return f"the custody head it records ({at!r}) is not an entry number and hash"
    row = conn.execute("SELECT entry, hash FROM custody WHERE seq = ?", (seq,)).fetchone()
    if row is None:
        last = head_entry(conn, rows=False)
        return (f"the custody head it records (entry {seq}) is not in the store's log, which ends at entry "
                f"{last.seq if last else 0}: the log was cut, or this is another store")
    if row[1] != at.get("hash") or entry_hash(row[0]) != row[1]:
        return (f"entry {seq} of the store's log is not the custody head it records (hash "
                f"{str(at.get('hash'))[:16]}..., the store's {str(row[1])[:16]}...): the log was rewritten "
                "since, or this is another store")
    try:
        if json.loads(row[0]).get("state") != at.get("state"):
            return f"the custody head it records (entry {seq}) names another state than the store's entry"
    except ValueError:
        return f"entry {seq} of the store's log cannot be read"
    return None


def recorded(conn: sqlite3.Connection, action: Iterable[str], key: str, value: Any) -> int | None:
    """The first entry of one of these actions whose detail has ``key`` = ``value``."""
    if not has_log(conn):
        return None
    acts = list(action)
    row = conn.execute(
        f"SELECT seq FROM custody WHERE json_extract(entry, '$.action') IN ({','.join('?' * len(acts))})"
        " AND json_extract(entry, '$.detail.' || ?) = ? ORDER BY seq LIMIT 1", (*acts, key, value)).fetchone()
    return int(row[0]) if row else None
