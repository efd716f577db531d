"""Ingest files and directories into the store, with provenance, resumably.

A batch runs in three steps:

1. **walk** the inputs in a deterministic order (each input as given; directories recursively,
   entries sorted by name) and hash every file's raw bytes;
2. **prepare** the files whose bytes are new: extract text, normalise, shingle and sample it.
   This is pure work on one file, so it runs in worker processes (both cores) and comes back in
   input order;
3. **store** each prepared file in one transaction: the document, its text, its index postings
   and the sighting row commit together or not at all.

Because a file's raw sha256 is its identity, the same bytes are never stored twice: a second
sighting (another path, another batch, the same exhibit in two EDGAR submissions) adds a
sighting row to the existing document. Re-running a batch skips every file already stored at
the same path, so a run killed at any point resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from auditor import __version__
from auditor.errors import ExtractionError
from auditor.extract import Extracted, Limits, extract_bytes
from auditor.index import prepare_text, write_index_rows
from auditor.shingle import Params, WordHasher
from auditor.store import Store, now
from auditor.withdraw import reinstate


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


@dataclass
class BatchResult:
    batch: str
    outcomes: list[FileOutcome]
    # inputs that do not exist: a mistake of this invocation, not a property of the corpus, so
    # they are returned (the CLI exits 2) and never stored as failures
    missing: list[str] = field(default_factory=list)
    restored: list[int] = field(default_factory=list)  # withdrawn documents whose files came back

    @property
    def counts(self) -> dict[str, int]:
        c = {k: 0 for k in ("ok", "duplicate", "unchanged", "failed", "skipped")}
        for o in self.outcomes:
            c[o.status] += 1
        return c

    @property
    def problems(self) -> list[tuple[str, str, str]]:
        """(path, code, message) of every failed file or failed/skipped EDGAR part."""
        out = [(o.path, o.code or "", o.message or "") for o in self.outcomes if o.status == "failed"]
        for o in self.outcomes:
            out += [(f"{o.path}#{p}", code, msg) for p, code, msg in o.part_problems]
        return out


@dataclass
class _Task:
    path: str  # as given
    resolved: str
    size: int
    mtime: str
    sha256: str


# -- walking ------------------------------------------------------------------------------

def walk(inputs: Iterable[str | os.PathLike]) -> Iterator[tuple[str, Path | None, str | None]]:
    """(path as given, path, problem) for every file under ``inputs``, in a stable order.

    Directories are walked recursively with entries sorted by name; symbolic links to
    directories are not followed (they could loop). A missing input yields a problem.
    """
    for inp in inputs:
        p = Path(inp)
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for name in sorted(files):
                    full = Path(root) / name
                    yield str(full), full, None
        elif p.exists():
            yield str(p), p, None
        else:
            yield str(p), None, "not_found"


def _iso_mtime(st: os.stat_result) -> str:
    return datetime.fromtimestamp(st.st_mtime, UTC).isoformat(timespec="seconds")


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# -- preparing (in workers) ----------------------------------------------------------------

def _prepared_doc(ex: Extracted, raw: bytes, params: Params, hasher: WordHasher) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "sha256": hashlib.sha256(raw).hexdigest(),
        "size": len(raw),
        "format": ex.format,
        "extractor": ex.extractor,
        "extractor_version": ex.extractor_version,
        "encoding": ex.encoding,
        "page_offsets": ex.page_offsets,
        "meta": ex.meta,
        "warnings": ex.warnings,
        "unreadable": ex.unreadable,
        "text": ex.text,
        "n_chars": len(ex.text),
    }
    doc.update(prepare_text(ex.text, params, hasher) if ex.text else
               {"n_words": 0, "norm_sha256": None, "n_shingles": 0, "sampled": b""})
    doc["parts"] = []
    for part in ex.parts:
        p: dict[str, Any] = {
            "sha256": hashlib.sha256(part.raw).hexdigest(),
            "size": len(part.raw),
            "meta": part.meta,
            "status": part.status,
            "code": part.code,
            "message": part.message,
            "doc": None,
        }
        if part.status == "ok" and part.extracted is not None:
            p["doc"] = _prepared_doc(part.extracted, part.raw, params, hasher)
        doc["parts"].append(p)
    return doc


_HASHER: WordHasher | None = None


def _prepare(task: _Task, limits: Limits, params: Params) -> dict[str, Any]:
    global _HASHER
    if _HASHER is None or _HASHER.seed != params.seed:
        _HASHER = WordHasher(params.seed)
    try:
        data = Path(task.resolved).read_bytes()
    except OSError as e:
        return {"error": ("unreadable", f"cannot read: {e.strerror or e}")}
    try:
        ex = extract_bytes(data, task.path, limits)
        return {"doc": _prepared_doc(ex, data, params, _HASHER)}
    except ExtractionError as e:
        return {"error": (e.code, str(e))}
    except MemoryError:
        return {"error": ("memory", "ran out of memory extracting this file")}
    except RecursionError:
        return {"error": ("recursion", "input nested too deeply to extract")}


# -- storing -------------------------------------------------------------------------------

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
            " path, batch_id, created, unreadable) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                d["sha256"], within_id, d["format"], d["extractor"], d["extractor_version"],
                d["encoding"], d["size"],
                len(d["page_offsets"]) if d["page_offsets"] is not None else None,
                json.dumps(d["page_offsets"]) if d["page_offsets"] is not None else None,
                d["n_chars"], d["n_words"], d["norm_sha256"], dup,
                json.dumps(d["meta"], sort_keys=True), json.dumps(d["warnings"]),
                f"{task.path}#{part}" if part else task.path, batch_id, now(), d.get("unreadable"),
            ),
        )
        doc_id = int(cur.lastrowid or 0)
        c.execute("INSERT INTO texts (doc_id, text) VALUES (?, ?)", (doc_id, d["text"]))
        if d["n_words"]:
            write_index_rows(store, doc_id, d)
    else:
        doc_id = int(row[0])
    c.execute(
        "INSERT OR IGNORE INTO sightings (doc_id, batch_id, path, resolved, part, within_id, size,"
        " mtime, source, meta, seen_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            doc_id, batch_id, task.path, task.resolved, part, within_id, d["size"],
            task.mtime, source, json.dumps(meta or {}, sort_keys=True), now(),
        ),
    )
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
        " code = excluded.code, message = excluded.message, seen_at = excluded.seen_at",
        (
            batch_id, status, code, message, task.path, task.resolved, part, within_id,
            sha256 if sha256 is not None else task.sha256,
            size if size is not None else task.size, task.mtime, source,
            json.dumps(meta or {}, sort_keys=True), now(),
        ),
    )


def _store_prepared(
    store: Store, task: _Task, result: dict[str, Any], batch_id: int, source: str | None, params: Params
) -> FileOutcome:
    out = FileOutcome(path=task.path, status="ok", size=task.size)
    with store.write():
        store.check_params(params, within_transaction=True)  # an index rebuild may have committed since
        if "error" in result:
            code, message = result["error"]
            _record_failure(store, batch_id=batch_id, status="failed", code=code, message=message,
                            task=task, source=source)
            out.status, out.code, out.message = "failed", code, message
            return out
        d = result["doc"]
        doc_id, created = _store_doc(store, d, batch_id=batch_id, task=task, source=source)
        out.doc_id = doc_id
        out.status = "ok" if created else "duplicate"
        for i, p in enumerate(d["parts"], 1):
            seq = str(p["meta"].get("sequence") or i)
            if p["doc"] is not None:
                _store_doc(store, p["doc"], batch_id=batch_id, task=task, part=seq,
                           within_id=doc_id, meta=p["meta"], source=source)
                out.parts += 1
            else:
                _record_failure(store, batch_id=batch_id, status=p["status"], code=p["code"] or "",
                                message=p["message"] or "", task=task, part=seq, within_id=doc_id,
                                sha256=p["sha256"], size=p["size"], meta=p["meta"], source=source)
                out.part_problems.append((seq, p["code"] or "", p["message"] or ""))
    return out


# -- the batch -----------------------------------------------------------------------------

def default_batch_name(inputs: Sequence[str | os.PathLike]) -> str:
    """Derived from the resolved inputs, so re-running the same command resumes the same batch."""
    key = "\n".join(sorted(str(Path(i).expanduser().resolve()) for i in inputs))
    return "batch-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def _open_batch(store: Store, name: str, source: str | None, command: str, status: str = "running") -> int:
    with store.write() as c:
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
    with store.write() as c:
        c.execute(
            "UPDATE batches SET status = ?, ended = ?, n_ok = n_ok + ?, n_duplicate = n_duplicate + ?,"
            " n_unchanged = ?, n_failed = (SELECT count(*) FROM failures WHERE batch_id = ? AND status = 'failed'),"
            " n_skipped = (SELECT count(*) FROM failures WHERE batch_id = ? AND status = 'skipped')"
            " WHERE id = ?",
            (status, now(), counts["ok"], counts["duplicate"], counts["unchanged"], batch_id, batch_id, batch_id),
        )


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
) -> BatchResult:
    """Ingest ``inputs`` (files and directories) as one batch; see the module docstring.

    :param workers: processes preparing files; 0 means one per core (at most 2 on small batches
        it is not worth starting them).
    :param retry_failed: prepare again files that failed before with the same bytes at the
        same path (by default they are counted as unchanged).
    """
    limits = limits or Limits()
    params = store.params
    store.check_params(params)
    name = batch or default_batch_name(inputs)
    missing = [str(i) for i in inputs if not os.path.lexists(i)]
    inputs = [i for i in inputs if os.path.lexists(i)]
    # a gate's batch stays "gating" until the gate decides: interrupted, it is gated again
    status = "gating" if gating else "running"
    batch_id = _open_batch(store, name, source, command or " ".join(sys.argv), status)
    outcomes: list[FileOutcome] = []
    todo: list[_Task] = []
    seen_here: set[tuple[str, str]] = set()
    queued: set[str] = set()

    def done(o: FileOutcome) -> None:
        outcomes.append(o)
        if on_file:
            on_file(o)

    plan: list[tuple[str, Any]] = []  # ("done", outcome) or ("todo", task), in input order
    # the store's own files are never read here: another descriptor on them would drop this
    # process's SQLite locks (POSIX locks are per process), and they are not corpus documents
    own = {str(store.path.resolve()) + suffix for suffix in ("", "-wal", "-shm", "-journal")}
    for given, path, problem in walk(inputs):
        task = _Task(given, str(Path(given).expanduser().resolve()), 0, "", "")
        if task.resolved in own:
            continue
        if problem or path is None:
            plan.append(("fail", (task, "not_found", f"no such file or directory: {given}")))
            continue
        try:
            st = path.stat()
            task.size, task.mtime = st.st_size, _iso_mtime(st)
            if st.st_size > limits.max_file_bytes:
                plan.append(("fail", (task, "too_large",
                             f"{st.st_size} bytes is over the limit of {limits.max_file_bytes}")))
                continue
            task.sha256 = _sha256_file(path)
        except OSError as e:
            plan.append(("fail", (task, "unreadable", f"cannot read: {e.strerror or e}")))
            continue
        known = store.conn.execute(
            "SELECT d.id FROM documents d JOIN sightings s ON s.doc_id = d.id"
            " WHERE d.sha256 = ? AND s.resolved = ? AND s.part = '' LIMIT 1",
            (task.sha256, task.resolved),
        ).fetchone()
        failed_before = not retry_failed and store.scalar(
            "SELECT 1 FROM failures WHERE resolved = ? AND part = '' AND sha256 = ?",
            (task.resolved, task.sha256),
        )
        if known or failed_before or (task.sha256, task.resolved) in seen_here:
            plan.append(("done", FileOutcome(given, "unchanged", task.size,
                                             doc_id=int(known[0]) if known else None)))
        elif task.sha256 in queued or store.scalar(
            "SELECT 1 FROM documents WHERE sha256 = ?", (task.sha256,)
        ):
            plan.append(("dup", task))  # same bytes seen at another path: a sighting only
        else:
            plan.append(("todo", task))
            todo.append(task)
            queued.add(task.sha256)
        seen_here.add((task.sha256, task.resolved))

    if on_start:
        on_start(len(plan), sum(t.size for t in todo))

    results = _prepare_all(todo, limits, params, workers)
    for kind, item in plan:
        if kind == "done":
            done(item)
        elif kind == "fail":
            task, code, message = item
            with store.write():
                _record_failure(store, batch_id=batch_id, status="failed", code=code,
                                message=message, task=task, source=source)
            done(FileOutcome(task.path, "failed", task.size, code=code, message=message))
        elif kind == "dup":
            task = item
            doc_id = store.scalar("SELECT id FROM documents WHERE sha256 = ?", (task.sha256,))
            if doc_id is None:  # the first copy failed to extract: so does this one
                row = store.conn.execute(
                    "SELECT code, message FROM failures WHERE sha256 = ? AND part = '' LIMIT 1",
                    (task.sha256,),
                ).fetchone() or ("failed", "an identical file failed earlier in this batch")
                with store.write():
                    _record_failure(store, batch_id=batch_id, status="failed", code=row[0],
                                    message=row[1], task=task, source=source)
                done(FileOutcome(task.path, "failed", task.size, code=row[0], message=row[1]))
                continue
            with store.write():
                _store_doc(store, {"size": task.size, "sha256": task.sha256},
                           batch_id=batch_id, task=task, source=source)
            done(FileOutcome(task.path, "duplicate", task.size, doc_id=int(doc_id)))
        else:
            done(_store_prepared(store, item, next(results), batch_id, source, params))
    restored = reinstate(  # a withdrawn file that comes back is restored
        store, [(o.doc_id, str(Path(o.path).expanduser().resolve())) for o in outcomes if o.doc_id is not None],
        command=command)
    _close_batch(store, batch_id, BatchResult(name, outcomes).counts, "gating" if gating else "complete")
    return BatchResult(name, outcomes, missing, restored)


def _prepare_all(
    todo: list[_Task], limits: Limits, params: Params, workers: int
) -> Iterator[dict[str, Any]]:
    """Prepared files in ``todo`` order; in worker processes when it pays."""
    n = workers or min(2, os.cpu_count() or 1)
    if n <= 1 or len(todo) < 4:
        for t in todo:
            yield _prepare(t, limits, params)
        return
    # spawn, not fork: the parent may hold threads (progress display) and an open SQLite handle
    with ProcessPoolExecutor(max_workers=n, mp_context=get_context("spawn")) as pool:
        yield from pool.map(_prepare, todo, [limits] * len(todo), [params] * len(todo), chunksize=1)
