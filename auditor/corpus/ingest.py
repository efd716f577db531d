"""Ingest files and directories into the store, with provenance, resumably.

A batch runs in three steps:

1. **walk** the inputs in a deterministic order (each input as given; directories recursively,
   entries sorted by name) and hash every regular file's raw bytes;
2. **prepare** the files whose bytes are new: extract text, normalise, shingle and sample it.
   This runs in :mod:`auditor.sandbox.pool` child processes (one per core), each with an
   address-space limit and a wall-clock limit per file, because parsers of hostile input can
   loop, exhaust memory or crash; results come back in input order;
3. **store** each prepared file in one transaction: the document, its text (with its sha256),
   its index postings and the sighting row commit together or not at all.

Because a file's raw sha256 is its identity, the same bytes are never stored twice: a second
sighting (another path, another batch, the same exhibit in two EDGAR submissions) adds a
sighting row to the existing document. Re-running a batch skips every file already stored at
the same path, so a run killed at any point resumes where it stopped.

Every input ends with a recorded outcome and the batch goes on, whatever happens to one input:

* only regular files are opened (``O_NONBLOCK | O_NOFOLLOW``, then checked with ``fstat``):
  FIFOs, sockets and devices are recorded as skipped (``not_regular``), so none can hang ingest;
* a symbolic link is followed only when its target lies inside its input tree (the directory
  being walked; for a link given as an input, the directory holding it) and is a file; a link
  out of the tree (``symlink_outside``) or to a directory (``symlink_dir``) is recorded as
  skipped, a link loop (``symlink_loop``) or a dangling link (``unreadable``) as failed;
* a directory that cannot be listed (``unreadable_dir``) or vanishes while it is walked
  (``vanished``) is a failed input, never silently missing files;
* a file name that is not valid UTF-8 is stored with its undecodable bytes escaped
  (``\\xff``), and its exact bytes in the sighting's ``meta.path_bytes`` (hex);
* an extraction that runs out of memory, is killed, overruns its time or raises anything
  unexpected (``memory``, ``crash``, ``timeout``, ``internal_error``) fails that file only;
* with ``Limits.budget``, inputs not processed when the batch's time runs out are recorded as
  failed with code ``budget`` and the batch as ``incomplete``; a re-run resumes them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import sqlite3
import stat
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from auditor import __version__
from auditor.corpus.withdraw import reinstate
from auditor.errors import DiskFull, ExtractionError, StoreError, is_disk_full, refusal, with_fix
from auditor.extract.common import Limits
from auditor.extract.prepare import unpack
from auditor.index.builder import write_index_rows, write_postings
from auditor.sandbox import pool as sandbox
from auditor.store.dating import Applied, apply_dates, read_dates_file
from auditor.store.dating import refresh as refresh_dates
from auditor.store.db import Store, now
from auditor.store.files import Unreadable, hash_fd, kind_of, open_regular, os_message, read_fd
from auditor.text.entry import unauditable_reason
from auditor.text.shingle import Params

BUDGET = refusal("budget", "run the same ingest again to resume")
refusal("not_found", "check the path, and give it again")
refusal("symlink_outside", "give the target itself as an input to ingest it")
refusal("symlink_dir", "give the directory itself as an input to ingest it")
refusal("unreadable_dir", "give the user running auditor read and execute access to the directory, then "
                          "ingest again")
refusal("changed", "ingest again once the file no longer changes")


@dataclass
class FileOutcome:
    path: str
    status: str  # ok | duplicate | unchanged | failed | skipped
    size: int = 0
    doc_id: int | None = None
    code: str | None = None
    message: str | None = None
    parts: int = 0
    part_problems: list[tuple[str, str, str]] = field(default_factory=list)  # (part, code, message)
    resolved: str = ""  # as recorded in the store (sightings.resolved, failures.resolved)
    sha256: str = ""  # of the raw bytes, when they were read
    # (part or "", why) of what was stored but cannot be audited: the file's document ("") or parts
    not_auditable: list[tuple[str, str]] = field(default_factory=list)
    # (part or "", constructs) of what was stored with constructs outside its reader's model: a
    # gate refuses such a document (extract.model); an audit still compares its text
    unmodelled: list[tuple[str, list[str]]] = field(default_factory=list)


@dataclass
class BatchResult:
    batch: str
    outcomes: list[FileOutcome]
    # inputs that do not exist: a mistake of this invocation, not a property of the corpus, so
    # they are returned (the CLI exits 2) and never stored as failures
    missing: list[str] = field(default_factory=list)
    restored: list[int] = field(default_factory=list)  # withdrawn documents whose files came back
    complete: bool = True  # False when the time budget ran out before every input was processed
    dates: Applied | None = None  # what the dates file given to ``ingest`` did

    @property
    def counts(self) -> dict[str, int]:
        """Inputs by outcome; ``ok`` counts the stored files an audit can read, ``not_auditable``
        the stored files it cannot (unreadable text, or too few words for a shingle)."""
        c = {k: 0 for k in ("ok", "not_auditable", "duplicate", "unchanged", "failed", "skipped")}
        for o in self.outcomes:
            c["not_auditable" if o.status == "ok" and o.not_auditable[:1] and not o.not_auditable[0][0]
              else o.status] += 1
        return c

    @property
    def not_auditable(self) -> list[tuple[str, str]]:
        """(path, or path#part for an EDGAR part, why) of every document stored now that an
        audit cannot read: it is listed under "not auditable" in reports, never found contained."""
        return [(f"{o.path}#{part}" if part else o.path, why) for o in self.outcomes for part, why in o.not_auditable]

    @property
    def unmodelled(self) -> list[tuple[str, list[str]]]:
        """(path or path#part, constructs) of every document stored now that holds constructs
        outside its reader's model: a gate would refuse it (CONTAIN006)."""
        return [(f"{o.path}#{part}" if part else o.path, names) for o in self.outcomes for part, names in o.unmodelled]

    @property
    def problems(self) -> list[tuple[str, str, str]]:
        """(path, code, message) of every failed or skipped input and failed/skipped EDGAR part."""
        out = [(o.path, o.code or "", o.message or "") for o in self.outcomes
               if o.status in ("failed", "skipped")]
        for o in self.outcomes:
            out += [(f"{o.path}#{p}", code, msg) for p, code, msg in o.part_problems]
        return out

    @property
    def not_processed(self) -> list[str]:
        """Inputs left for a re-run because the batch's time budget ran out."""
        return [o.path for o in self.outcomes if o.code == BUDGET]


@dataclass
class _Task:
    path: str  # as given or walked, storable
    resolved: str  # storable
    fs_path: str = ""  # what to open
    size: int = 0
    mtime: str = ""
    sha256: str = ""
    meta: dict = field(default_factory=dict)
    attempt: dict = field(default_factory=dict)  # what a failure recorded now was tried with
    retry: bool = False  # a stored file read again for the parts that failed
    readings: bool = False  # prepare its other readings too (a gate's batch)


class _Step(Enum):
    """What a batch does with one input, decided while it plans (before any extraction)."""

    UNCHANGED = "unchanged"  # stored already: its outcome is all there is to say
    REFUSED = "refused"  # not extracted (skipped, too large, out of time): stored as a failure
    SIGHTING = "sighting"  # the same bytes are stored from another path: a sighting only
    EXTRACT = "extract"  # extracted by the preparer, then stored


@dataclass
class _Planned:
    """One input's place in a batch's plan, in input order."""

    step: _Step
    task: _Task
    doc_id: int | None = None  # UNCHANGED: the stored document
    status: str = ""  # REFUSED: the failure to store
    code: str = ""
    message: str = ""


# -- names ---------------------------------------------------------------------------------------


def db_text(s: str) -> str:
    """``s`` as SQLite can store it: lone surrogates (undecodable bytes of a file name, kept by
    Python as surrogate escapes) become ``\\xNN`` / ``\\udcNN`` text."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return os.fsencode(s).decode("utf-8", "backslashreplace") if _fs_roundtrips(s) else \
            s.encode("utf-8", "backslashreplace").decode("utf-8")


def _fs_roundtrips(s: str) -> bool:
    try:
        os.fsencode(s)
        return True
    except UnicodeError:
        return False


def _name_meta(path: str) -> dict:
    """The exact bytes of a name that had to be escaped to be stored."""
    if db_text(path) == path or not _fs_roundtrips(path):
        return {}
    return {"path_bytes": os.fsencode(path).hex()}


# -- walking ------------------------------------------------------------------------------------


@dataclass
class Found:
    """One thing the walk met: a regular file to ingest (``status`` None) or a recorded problem."""

    path: str  # as given or walked
    fs_path: str  # what to open (a followed link's target)
    status: str | None = None  # None, "failed" or "skipped"
    code: str = ""
    message: str = ""
    # A file walked elsewhere and read into a local copy (``fs_path``), as the Spark ingest of
    # URIs does: the URI it was read from is recorded as resolved, with the source's mtime and
    # (for an input refused unread) its size.
    uri: str = ""
    mtime: str = ""
    size: int = 0

    @property
    def resolved(self) -> str:
        if self.uri:
            return self.uri
        return os.path.realpath(self.fs_path) if self.status is None else os.path.abspath(self.fs_path)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def walk(inputs: Iterable[str | os.PathLike]) -> Iterator[Found]:
    """Everything under ``inputs``, in a stable order: files first, then subdirectories, each
    sorted by name (as ``os.walk`` top-down). Never raises for what it finds; see the module
    docstring for how links, special files and unreadable directories are reported."""
    for inp in inputs:
        given = str(Path(os.fsdecode(os.fspath(inp))))
        yield from _walk_input(given)


def _walk_input(given: str) -> Iterator[Found]:
    fs = os.path.expanduser(given)
    try:
        st = os.lstat(fs)
    except FileNotFoundError:
        yield Found(given, fs, "failed", "not_found", f"no such file or directory: {given}")
        return
    except OSError as e:
        yield Found(given, fs, "failed", "unreadable", f"cannot read: {os_message(e)}")
        return
    if stat.S_ISLNK(st.st_mode):
        root = os.path.realpath(os.path.dirname(os.path.abspath(fs)))
        target, found = _follow(given, fs, root)
        if found is not None:
            yield found
        elif os.path.isdir(target):
            yield from _walk_dir(given, target, target)
        else:
            yield from _file_or_special(given, target)
    elif stat.S_ISDIR(st.st_mode):
        yield from _walk_dir(given, fs, os.path.realpath(fs))
    else:
        yield from _file_or_special(given, fs)


def _follow(shown: str, link: str, root: str) -> tuple[str, Found | None]:
    """A link's target when it may be followed, else the problem to record."""
    try:
        target = os.path.realpath(link, strict=True)
    except OSError as e:
        if e.errno == getattr(os, "ELOOP", 40) or "loop" in str(e).lower():
            return "", Found(shown, link, "failed", "symlink_loop", "symbolic link loop: it never reaches a file")
        try:
            to = os.readlink(link)
        except OSError:
            to = "?"
        return "", Found(shown, link, "failed", "unreadable", f"cannot read: dangling symbolic link to {to!r} "
                         f"({os_message(e)})")
    if not _inside(target, root):
        return "", Found(shown, link, "skipped", "symlink_outside",
                         f"symbolic link to {target!r}, outside the input tree {root!r}: not followed")
    return target, None


def _file_or_special(shown: str, fs: str) -> Iterator[Found]:
    try:
        st = os.stat(fs)
    except OSError as e:
        yield Found(shown, fs, "failed", "unreadable", f"cannot read: {os_message(e)}")
        return
    if stat.S_ISREG(st.st_mode):
        yield Found(shown, fs)
    else:
        yield Found(shown, fs, "skipped", "not_regular", f"{kind_of(st.st_mode)}, not a regular file: not read")


def _walk_dir(shown_top: str, fs_top: str, root: str) -> Iterator[Found]:
    stack = [(shown_top, fs_top)]
    while stack:
        shown, fs = stack.pop()
        try:
            with os.scandir(fs) as it:
                entries = sorted(it, key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            yield Found(shown, fs, "failed", "vanished", "directory vanished while it was being walked")
            continue
        except OSError as e:
            yield Found(shown, fs, "failed", "unreadable_dir", f"cannot list this directory: {os_message(e)}")
            continue
        subdirs = []
        for entry in entries:
            shown_e, fs_e = str(Path(shown) / entry.name), os.path.join(fs, entry.name)
            try:
                if entry.is_symlink():
                    target, problem = _follow(shown_e, fs_e, root)
                    if problem is not None:
                        yield problem
                    elif os.path.isdir(target):
                        yield Found(shown_e, fs_e, "skipped", "symlink_dir",
                                    f"symbolic link to the directory {target!r}: not followed "
                                    "(links to directories could loop or repeat the tree)")
                    else:
                        yield from _file_or_special(shown_e, target)
                elif entry.is_dir(follow_symlinks=False):
                    subdirs.append((shown_e, fs_e))
                elif entry.is_file(follow_symlinks=False):
                    yield Found(shown_e, fs_e)
                else:
                    mode = entry.stat(follow_symlinks=False).st_mode
                    yield Found(shown_e, fs_e, "skipped", "not_regular",
                                f"{kind_of(mode)}, not a regular file: not read")
            except FileNotFoundError:
                yield Found(shown_e, fs_e, "failed", "vanished", "vanished while the directory was being walked")
            except OSError as err:
                yield Found(shown_e, fs_e, "failed", "unreadable", f"cannot read: {os_message(err)}")
        stack.extend(reversed(subdirs))


def iso_mtime(st: os.stat_result) -> str:
    try:
        return datetime.fromtimestamp(st.st_mtime, UTC).isoformat(timespec="seconds")
    except (ValueError, OverflowError, OSError):  # beyond the years datetime can hold
        return repr(st.st_mtime)


# -- preparing (in sandbox children: auditor.extract.prepare) ----------------------------------


class _PrepareWorker(sandbox.Worker):
    job = "prepare"
    prefix = ""
    what = "extraction"
    retire_after = 20_000


_POOL = sandbox.register(sandbox.Pool(_PrepareWorker))


def shutdown() -> None:
    """Stop the idle extraction children of this process (they also exit with it)."""
    _POOL.clear()


def _budget_error(limits: Limits) -> dict[str, Any]:
    return {"error": (BUDGET, f"not processed: the batch's time budget of {limits.budget:g} s ran out")}


def _prepare_one(task: _Task, limits: Limits, params: Params, deadline: float | None,
                 cancel: threading.Event) -> dict[str, Any]:
    if cancel.is_set() or (deadline is not None and time.monotonic() >= deadline):
        return _budget_error(limits)
    try:
        with open_regular(task.fs_path) as (fd, _):
            h = hashlib.sha256()
            data = read_fd(fd, limits.max_file_bytes, h)
    except Unreadable as e:
        return {"error": (e.code, str(e))}
    if len(data) > limits.max_file_bytes:
        return {"error": ("too_large", f"grew past the limit of {limits.max_file_bytes} bytes while being read")}
    if h.hexdigest() != task.sha256:
        return {"error": ("changed", "the file changed between hashing and extraction")}
    file_deadline = time.monotonic() + limits.timeout
    until = min(file_deadline, deadline if deadline is not None else math.inf)
    request = {"name": task.path, "timeout": max(0.0, until - time.monotonic()),
               "limits": asdict(limits), "params": params.as_dict(), "readings": task.readings}
    try:
        msg, blobs = _POOL.run(request, data, memory=limits.memory, deadline=until, cancel=cancel)
    except ExtractionError as e:
        if e.code == "timeout":
            if deadline is not None and until < file_deadline:
                return _budget_error(limits)
            return {"error": ("timeout", f"extraction took longer than the limit of {limits.timeout:g} s "
                                         "per file; the worker was killed")}
        if e.code == "cancelled":
            return _budget_error(limits)
        return {"error": (e.code, str(e))}
    try:
        return {"doc": unpack(msg["doc"], blobs)}
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        return {"error": ("crash", f"extraction worker gave a malformed result ({type(e).__name__}: {e})")}


def prepare_file(path: str | os.PathLike, params: Params, limits: Limits | None = None) -> dict[str, Any]:
    """One file prepared as ingest prepares it (extracted, normalised and sampled in a sandbox
    child, under ``limits``' memory and time), without storing anything: ``{"doc": ...}`` with
    its text and parts, or ``{"error": (code, message)}``. For ``query``, which reads files
    from anyone as ingest does."""
    name, limits = os.fspath(path), limits or Limits()
    real = os.path.realpath(name)  # a link given by name is followed, as ingest follows it
    try:
        with open_regular(real) as (fd, st):
            if st.st_size > limits.max_file_bytes:
                return {"error": ("too_large", f"{st.st_size} bytes is over the limit of {limits.max_file_bytes}")}
            digest = hash_fd(fd)
    except Unreadable as e:
        return {"error": (e.code, str(e))}
    task = _Task(path=name, resolved=real, fs_path=real, sha256=digest)
    return _prepare_one(task, limits, params, None, threading.Event())


ONE_CHILD_BYTES = 2 * 2**20
"""Below this many bytes in all (and no PDF, which may take its whole time limit), one child
prepares every input: starting a second Python with the parsers (0.2 CPU-s) costs more than it
saves on a gate's few files."""


class _Preparer:
    """Prepares ``todo`` in sandbox children, ``n`` at a time, handing results back in order.

    At most ``2 n`` files are read ahead. Leaving early (an exception in the caller) cancels
    what is in flight: the children are killed at once instead of finishing their files.
    """

    def __init__(self, todo: list[_Task], limits: Limits, params: Params, workers: int,
                 deadline: float | None) -> None:
        self.todo, self.limits, self.params, self.deadline = todo, limits, params, deadline
        small = sum(t.size for t in todo) < ONE_CHILD_BYTES and not any(
            (t.fs_path or t.path).lower().endswith(".pdf") for t in todo)  # a PDF may take its whole time limit
        auto = 1 if small else min(2, os.cpu_count() or 1)
        self.n = max(1, min(workers or auto, len(todo)))
        self.cancel = threading.Event()
        self.pending: deque[Future] = deque()
        self.next_index = 0
        self.pool: ThreadPoolExecutor | None = None

    def __enter__(self) -> _Preparer:
        if self.todo:
            self.pool = ThreadPoolExecutor(self.n, thread_name_prefix="auditor-prepare")
            for _ in range(2 * self.n):
                self._submit()
        return self

    def _submit(self) -> None:
        if self.pool is not None and self.next_index < len(self.todo):
            t = self.todo[self.next_index]
            self.next_index += 1
            self.pending.append(self.pool.submit(
                _prepare_one, t, self.limits, self.params, self.deadline, self.cancel))

    def next(self) -> dict[str, Any]:
        fut = self.pending.popleft()
        try:
            result = fut.result()
        except Exception as e:  # a bug on the parent's side of one file; the batch goes on
            result = {"error": ("internal_error", f"unexpected {type(e).__name__} preparing this file: {e}")}
        self._submit()
        return result

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            if exc[0] is not None:
                self.cancel.set()
            self.pool.shutdown(wait=True, cancel_futures=True)


# -- storing ------------------------------------------------------------------------------------


def _store_doc(
    store: Store, d: dict[str, Any], *, batch_id: int, task: _Task, part: str = "",
    within_id: int | None = None, meta: dict | None = None, source: str | None,
) -> tuple[int, bool]:
    """Insert one prepared document (or only its sighting when its bytes are known)."""
    c = store.conn
    row = c.execute("SELECT id FROM documents WHERE sha256 = ?", (d["sha256"],)).fetchone()
    created = row is None
    if created:
        dup = None
        if d["norm_sha256"]:
            dup = store.scalar(  # the group's representative: its first document not withdrawn
                "SELECT min(id) FROM documents WHERE norm_sha256 = ? AND withdrawn_at IS NULL",
                (d["norm_sha256"],),
            )
        cur = c.execute(
            "INSERT INTO documents (sha256, parent_id, format, extractor, extractor_version, encoding,"
            " size, n_pages, page_offsets, n_chars, n_words, norm_sha256, duplicate_of, meta, warnings,"
            " path, batch_id, created, unreadable, unmodelled) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                d["sha256"], within_id, d["format"], d["extractor"], d["extractor_version"],
                d["encoding"], d["size"],
                len(d["page_offsets"]) if d["page_offsets"] is not None else None,
                json.dumps(d["page_offsets"]) if d["page_offsets"] is not None else None,
                d["n_chars"], d["n_words"], d["norm_sha256"], dup,
                json.dumps(d["meta"], sort_keys=True), json.dumps(d["warnings"]),
                f"{task.path}#{part}" if part else task.path, batch_id, now(), d.get("unreadable"),
                json.dumps(d["unmodelled"]) if d.get("unmodelled") else None,
            ),
        )
        doc_id = int(cur.lastrowid or 0)
        store.insert_text(doc_id, d["text"])
        if d["n_words"]:
            write_index_rows(store, doc_id, d)
        for r in d.get("readings", []):
            store.insert_reading(doc_id, r)
    else:
        doc_id = int(row[0])
    c.execute(
        "INSERT OR IGNORE INTO sightings (doc_id, batch_id, path, resolved, part, within_id, size,"
        " mtime, source, meta, seen_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            doc_id, batch_id, task.path, task.resolved, part, within_id, d["size"],
            task.mtime, source, json.dumps({**(meta or {}), **task.meta}, sort_keys=True), now(),
        ),
    )
    refresh_dates(c, [doc_id], text=d["text"] if created else None)
    return doc_id, created


def _record_failure(
    store: Store, *, batch_id: int, status: str, code: str, message: str, task: _Task,
    part: str = "", within_id: int | None = None, sha256: str | None = None,
    size: int | None = None, meta: dict | None = None, source: str | None,
) -> None:
    store.conn.execute(
        "INSERT INTO failures (batch_id, status, code, message, path, resolved, part, within_id,"
        " sha256, size, mtime, source, meta, seen_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT (resolved, part, sha256) DO UPDATE SET batch_id = excluded.batch_id,"
        " status = excluded.status, code = excluded.code, message = excluded.message,"
        " meta = excluded.meta, seen_at = excluded.seen_at",
        (
            batch_id, status, code, db_text(with_fix(code, message)), task.path, task.resolved, db_text(part), within_id,
            sha256 if sha256 is not None else task.sha256,
            size if size is not None else task.size, task.mtime, source,
            json.dumps({**(meta or {}), **task.meta, **({"attempt": task.attempt} if task.attempt else {})},
                       sort_keys=True), now(),
        ),
    )


def _forget_deferral(store: Store, task: _Task) -> None:
    """A file the budget left over last time is being dealt with now (inside a transaction)."""
    store.conn.execute("DELETE FROM failures WHERE resolved = ? AND part = '' AND code = ?",
                       (task.resolved, BUDGET))


def _store_prepared(
    store: Store, task: _Task, result: dict[str, Any], batch_id: int, source: str | None, params: Params
) -> FileOutcome:
    out = FileOutcome(path=task.path, status="ok", size=task.size, resolved=task.resolved, sha256=task.sha256)
    detail: dict[str, Any] = {"batch_id": batch_id, "path": task.path, "sha256": task.sha256}
    with store.write("ingest", detail):
        store.check_params(params, within_transaction=True)  # an index rebuild may have committed since
        _forget_deferral(store, task)
        if "error" in result:
            code, message = result["error"]
            _record_failure(store, batch_id=batch_id, status="failed", code=code, message=message,
                            task=task, source=source)
            out.status, out.code, out.message = "failed", code, with_fix(code, message)
            detail.update(outcome="failed", code=code)
            return out
        d = result["doc"]
        doc_id, created = _store_doc(store, d, batch_id=batch_id, task=task, source=source)
        out.doc_id = doc_id
        out.status = "ok" if created or task.retry else "duplicate"
        if created and (why := unauditable_reason(d.get("unreadable"), d["n_words"], d["n_shingles"], params.k)):
            out.not_auditable.append(("", why))
        if created and d.get("unmodelled"):
            out.unmodelled.append(("", d["unmodelled"]))
        if task.retry:  # its parts' failures are recorded again below, from this attempt
            store.conn.execute("DELETE FROM failures WHERE resolved = ? AND within_id = ? AND part != ''",
                               (task.resolved, doc_id))
        seen = {r["norm_sha256"] for r in d.get("readings", [])}  # a reading is audited once per submission
        for i, p in enumerate(d["parts"], 1):
            seq = db_text(str(p["meta"].get("sequence") or i))
            if p["doc"] is not None:
                _, part_created = _store_doc(store, p["doc"], batch_id=batch_id, task=task, part=seq,
                                             within_id=doc_id, meta=p["meta"], source=source)
                out.parts += 1
                if part_created and (why := unauditable_reason(p["doc"].get("unreadable"), p["doc"]["n_words"],
                                                                p["doc"]["n_shingles"], params.k)):
                    out.not_auditable.append((seq, why))
                if part_created and p["doc"].get("unmodelled"):
                    out.unmodelled.append((seq, p["doc"]["unmodelled"]))
            else:
                meta = p["meta"]
                if p.get("data") is not None:  # read as data by a gate: its readings are the submission's
                    meta = {**meta, "read_as_data": _store_data_readings(store, doc_id, seq, p["data"], seen)
                            if created else []}
                _record_failure(store, batch_id=batch_id, status=p["status"], code=p["code"] or "",
                                message=p["message"] or "", task=task, part=seq, within_id=doc_id,
                                sha256=p["sha256"], size=p["size"], meta=meta, source=source)
                if p.get("data") is None:
                    out.part_problems.append((seq, p["code"] or "", with_fix(p["code"], p["message"] or "")))
        detail.update(outcome=out.status, doc_id=doc_id)
    return out


def data_reading_name(part: str, name: str) -> str:
    """The name under which a submission keeps a reading of its data part ``part``."""
    return f"part {part}: {name}"


def _store_data_readings(store: Store, doc_id: int, part: str, data: dict[str, Any], seen: set[str]) -> list[str]:
    """The readings of a part read as data (``extract.data``), kept as readings of its submission
    (``doc_id``), each named after the part; a text another part gave already is audited once.
    The names of those kept, for the part's record."""
    kept = []
    for r in data["readings"]:
        if r["norm_sha256"] in seen:
            continue
        seen.add(r["norm_sha256"])
        name = data_reading_name(part, r["name"])
        store.insert_reading(doc_id, {**r, "name": name})
        kept.append(name)
    return kept


def _store_failure(store: Store, task: _Task, status: str, code: str, message: str, batch_id: int,
                   source: str | None) -> FileOutcome:
    with store.write("ingest", {"batch_id": batch_id, "path": task.path, "sha256": task.sha256,
                                "outcome": status, "code": code}):
        _forget_deferral(store, task)
        _record_failure(store, batch_id=batch_id, status=status, code=code, message=message,
                        task=task, source=source)
    return FileOutcome(task.path, status, task.size, code=code, message=db_text(with_fix(code, message)),
                       resolved=task.resolved, sha256=task.sha256)


def _store_sighting(store: Store, task: _Task, batch_id: int, source: str | None) -> FileOutcome:
    """Same bytes as a document already stored (or failed) under another path."""
    doc_id = store.scalar("SELECT id FROM documents WHERE sha256 = ?", (task.sha256,))
    if doc_id is None:  # the first copy failed to extract: so does this one
        row = store.conn.execute(
            "SELECT code, message FROM failures WHERE sha256 = ? AND part = '' AND code != ? LIMIT 1",
            (task.sha256, BUDGET),
        ).fetchone() or ("failed", "an identical file failed earlier in this batch")
        return _store_failure(store, task, "failed", row[0], row[1], batch_id, source)
    with store.write("ingest", {"batch_id": batch_id, "path": task.path, "sha256": task.sha256,
                                "outcome": "duplicate", "doc_id": int(doc_id)}):
        _forget_deferral(store, task)
        _store_doc(store, {"size": task.size, "sha256": task.sha256}, batch_id=batch_id, task=task,
                   source=source)
    return FileOutcome(task.path, "duplicate", task.size, doc_id=int(doc_id), resolved=task.resolved,
                       sha256=task.sha256)


# -- the batch ----------------------------------------------------------------------------------


URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
"""An input that starts with a scheme and ``//`` (``hdfs://``, ``s3a://``, ``file:///``) is a URI,
read through Hadoop's file systems by the Spark ingest; anything else is a local path."""


def is_uri(given: str | os.PathLike) -> bool:
    return isinstance(given, str) and URI.match(given) is not None


def default_batch_name(inputs: Sequence[str | os.PathLike]) -> str:
    """Derived from the resolved inputs (a URI as given), so re-running the same command resumes
    the same batch."""
    key = b"\n".join(sorted(os.fsencode(i if is_uri(i) else Path(os.fsdecode(os.fspath(i))).expanduser().resolve())
                            for i in inputs))
    return "batch-" + hashlib.sha256(key).hexdigest()[:12]


def _open_batch(store: Store, name: str, source: str | None, command: str, status: str = "running") -> int:
    with store.write("batch", {"batch": name, "status": status, "command": command}) as c:
        row = c.execute("SELECT id FROM batches WHERE name = ?", (name,)).fetchone()
        if row:
            c.execute(
                "UPDATE batches SET runs = runs + 1, status = ?, ended = NULL, command = ?"
                " WHERE id = ?", (status, command, row[0]),
            )
            return int(row[0])
        cur = c.execute(
            "INSERT INTO batches (name, source, tool_version, command, started, status)"
            " VALUES (?,?,?,?,?,?)",
            (name, source, __version__, command, now(), status),
        )
        return int(cur.lastrowid or 0)


def _close_batch(store: Store, batch_id: int, counts: dict[str, int], status: str = "complete") -> None:
    with store.write("batch", {"batch_id": batch_id, "status": status}) as c:
        c.execute(
            "UPDATE batches SET status = ?, ended = ?, n_ok = n_ok + ?, n_duplicate = n_duplicate + ?,"
            " n_unchanged = ?, n_failed = (SELECT count(*) FROM failures WHERE batch_id = ? AND status = 'failed'),"
            " n_skipped = (SELECT count(*) FROM failures WHERE batch_id = ? AND status = 'skipped')"
            " WHERE id = ?",
            (status, now(), counts["ok"] + counts["not_auditable"], counts["duplicate"], counts["unchanged"],
             batch_id, batch_id, batch_id),
        )


def _abandon_batch(store: Store, batch_id: int) -> None:
    """Best effort, as the batch fails: never leave it ``running`` when we are still alive."""
    with contextlib.suppress(Exception), store.write("batch", {"batch_id": batch_id, "status": "interrupted"}) as c:
        c.execute("UPDATE batches SET status = 'interrupted', ended = ? WHERE id = ? AND status = 'running'",
                  (now(), batch_id))


def _is_store_problem(e: BaseException) -> bool:
    """Errors of the store itself (locked, full, read-only, corrupt) stop the batch; anything
    else raised while storing one file fails that file only."""
    return isinstance(e, (StoreError, sqlite3.OperationalError, sqlite3.DatabaseError)) and not isinstance(
        e, (sqlite3.IntegrityError, sqlite3.InterfaceError, sqlite3.DataError, sqlite3.ProgrammingError))


def ingest(
    store: Store,
    inputs: Sequence[str | os.PathLike],
    *,
    batch: str | None = None,
    source: str | None = None,
    limits: Limits | None = None,
    workers: int = 0,
    retry_failed: bool = False,
    command: str | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_file: Callable[[FileOutcome], None] | None = None,
    gating: bool = False,
    dates: str | os.PathLike | None = None,
    walked: Sequence[Found] | None = None,
) -> BatchResult:
    """Ingest ``inputs`` (files and directories) as one batch; see the module docstring.

    :param workers: extraction child processes; 0 means one per core (at most 2).
    :param retry_failed: prepare again files that failed before with the same bytes at the
        same path (by default they are counted as unchanged).
    :param dates: a dates file (:mod:`auditor.store.dating`), read before anything is ingested and
        recorded on the copies it names once the batch is stored.
    :param walked: the inputs as walked elsewhere, in order, in place of walking ``inputs`` (the
        Spark ingest of URIs: each file is a local copy of what an executor read).
    """
    supplied = read_dates_file(dates) if dates is not None else None
    limits = limits or Limits()
    deadline = time.monotonic() + limits.budget if limits.budget is not None else None
    params = store.params
    store.check_params(params)
    store.require_writable("ingest stores documents in it")
    name = db_text(batch or default_batch_name(inputs))
    source = db_text(source) if source is not None else None
    missing = [os.fsdecode(os.fspath(i)) for i in inputs if not os.path.lexists(i)]
    inputs = [i for i in inputs if os.path.lexists(i)]
    # a gate's batch is "gating" inside the gate's transaction, which commits it only as "gate-passed"
    batch_id = _open_batch(store, name, source, db_text(command or " ".join(sys.argv)),
                           "gating" if gating else "running")
    try:
        outcomes = _run(store, walk(inputs) if walked is None else walked, batch_id, source, limits, params,
                        workers, retry_failed, gating, deadline, on_start, on_file)
        restored = reinstate(  # a withdrawn file that comes back is restored
            store, [(o.doc_id, o.resolved) for o in outcomes if o.doc_id is not None], command=command)
    except BaseException as e:
        _abandon_batch(store, batch_id)
        if (isinstance(e, DiskFull) or is_disk_full(e)) and not store.private:  # a gate's transaction rolls back whole: nothing kept
            kept = store.scalar("SELECT count(*) FROM sightings WHERE batch_id = ?", (batch_id,))
            raise DiskFull(f"{store.path}: no space left on its device while ingesting batch {name}. Kept: "
                           f"{kept} of its files and parts, stored before. Rolled back: the file in progress. "
                           "Free some space and run the same command again: it resumes where it stopped") from e
        raise
    result = BatchResult(name, outcomes, missing, restored,
                         complete=not any(o.code == BUDGET for o in outcomes))
    write_postings(store)  # the batch's postings keyed by hash, in one transaction
    _close_batch(store, batch_id, result.counts,
                 "gating" if gating else "complete" if result.complete else "incomplete")
    if supplied is not None:
        result.dates = apply_dates(store, supplied.path, supplied)
    return result


def _task_for(found: Found) -> _Task:
    return _Task(db_text(found.path), db_text(found.resolved), found.fs_path, size=found.size, mtime=found.mtime,
                 meta=_name_meta(found.path))


def attempt_of(limits: Limits) -> dict[str, Any]:
    """What decides whether an input that failed could fare otherwise now: the tool's version
    and the limits it ran under (not the batch's time budget)."""
    return {"tool_version": __version__,
            "limits": {k: v for k, v in sorted(asdict(limits).items()) if k != "budget"}}


def _tried_alike(store: Store, attempt: dict[str, Any], where: str, args: tuple[Any, ...]) -> bool:
    """Whether every failure matching ``where`` was recorded under ``attempt`` (failures recorded
    before attempts were kept count as tried alike: the user can still ask for a retry)."""
    for (meta,) in store.conn.execute(f"SELECT meta FROM failures WHERE {where}", args):
        then = json.loads(meta or "{}").get("attempt")
        if then is not None and then != attempt:
            return False
    return True


def _run(store: Store, found_inputs: Iterable[Found], batch_id: int, source: str | None,
         limits: Limits, params: Params, workers: int, retry_failed: bool, readings: bool,
         deadline: float | None,
         on_start: Callable[[int, int], None] | None,
         on_file: Callable[[FileOutcome], None] | None) -> list[FileOutcome]:
    outcomes: list[FileOutcome] = []
    todo: list[_Task] = []
    seen_here: set[tuple[str, str]] = set()
    queued: set[str] = set()

    def done(o: FileOutcome) -> None:
        outcomes.append(o)
        if on_file:
            on_file(o)

    attempt = attempt_of(limits)
    plan: list[_Planned] = []
    # the store's own files are never read here: another descriptor on them would drop this
    # process's SQLite locks (POSIX locks are per process), and they are not corpus documents
    own = {os.path.realpath(store.path) + suffix for suffix in ("", "-wal", "-shm", "-journal")}
    for found in found_inputs:
        if found.status is None and found.resolved in own:
            continue
        task = _task_for(found)
        task.attempt, task.readings = attempt, readings
        if found.status is not None:
            plan.append(_Planned(_Step.REFUSED, task, status=found.status, code=found.code, message=found.message))
            continue
        if deadline is not None and time.monotonic() >= deadline:
            code, message = _budget_error(limits)["error"]
            plan.append(_Planned(_Step.REFUSED, task, status="failed", code=code, message=message))
            continue
        try:
            with open_regular(found.fs_path) as (fd, st):
                task.size, task.mtime = st.st_size, found.mtime or iso_mtime(st)
                if st.st_size > limits.max_file_bytes:
                    plan.append(_Planned(_Step.REFUSED, task, status="failed", code="too_large", message=(
                        f"{st.st_size} bytes is over the limit of {limits.max_file_bytes}")))
                    continue
                task.sha256 = hash_fd(fd)
        except Unreadable as e:
            status = "skipped" if e.code == "not_regular" else "failed"
            plan.append(_Planned(_Step.REFUSED, task, status=status, code=e.code, message=str(e)))
            continue
        known = store.conn.execute(
            "SELECT d.id FROM documents d JOIN sightings s ON s.doc_id = d.id"
            " WHERE d.sha256 = ? AND s.resolved = ? AND s.part = '' LIMIT 1",
            (task.sha256, task.resolved),
        ).fetchone()
        where = "resolved = ? AND part = '' AND sha256 = ? AND code != ?"
        failed_before = not retry_failed and store.scalar(f"SELECT 1 FROM failures WHERE {where}",
                                                          (task.resolved, task.sha256, BUDGET)) \
            and _tried_alike(store, attempt, where, (task.resolved, task.sha256, BUDGET))
        if known and (task.sha256, task.resolved) not in seen_here:
            parts = "resolved = ? AND within_id = ? AND part != '' AND status = 'failed'"
            if store.scalar(f"SELECT 1 FROM failures WHERE {parts}", (task.resolved, known[0])) and (
                    retry_failed or not _tried_alike(store, attempt, parts, (task.resolved, known[0]))):
                task.retry = True  # parts that failed are tried again
                plan.append(_Planned(_Step.EXTRACT, task))
                todo.append(task)
                seen_here.add((task.sha256, task.resolved))
                continue
        if known or failed_before or (task.sha256, task.resolved) in seen_here:
            plan.append(_Planned(_Step.UNCHANGED, task, doc_id=int(known[0]) if known else None))
        elif task.sha256 in queued or store.scalar(
            "SELECT 1 FROM documents WHERE sha256 = ?", (task.sha256,)
        ):
            plan.append(_Planned(_Step.SIGHTING, task))
        else:
            plan.append(_Planned(_Step.EXTRACT, task))
            todo.append(task)
            queued.add(task.sha256)
        seen_here.add((task.sha256, task.resolved))

    if on_start:
        on_start(len(plan), sum(t.size for t in todo))

    with _Preparer(todo, limits, params, workers, deadline) as prepared:
        for p in plan:
            task = p.task
            if p.step is _Step.UNCHANGED:
                done(FileOutcome(task.path, "unchanged", task.size, doc_id=p.doc_id, resolved=task.resolved,
                                 sha256=task.sha256))
                continue
            result = prepared.next() if p.step is _Step.EXTRACT else None
            try:
                if p.step is _Step.REFUSED:
                    o = _store_failure(store, task, p.status, p.code, p.message, batch_id, source)
                elif p.step is _Step.SIGHTING:
                    o = _store_sighting(store, task, batch_id, source)
                else:
                    assert result is not None
                    o = _store_prepared(store, task, result, batch_id, source, params)
            except Exception as e:
                if _is_store_problem(e):
                    raise
                o = _store_failure(store, task, "failed", "internal_error",
                                   f"unexpected {type(e).__name__} storing this file: {e}", batch_id, source)
            done(o)
    return outcomes
