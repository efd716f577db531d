"""What a batch brought: the store the gate works on (rolled back after a dry run), the new
documents, failed and skipped inputs, what was already known, and what the change withdraws.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor.corpus.ingest import BatchResult
from auditor.engine.describe import describe
from auditor.errors import StoreError, UsageError
from auditor.extract.edgar import submission_fields
from auditor.gating.findings import seq_key
from auditor.store.db import Store, connect, writable_location
from auditor.store.files import sha256_file

# -- the store copy ---------------------------------------------------------------------------

def copy_store(src: Path, dst: Path) -> None:
    """A consistent copy of a live store through SQLite's backup API (never a file copy).

    The source connection is read-write but ``query_only``: SQLite may then remove its own
    ``-wal``/``-shm`` files on close, yet nothing in the database file changes.
    """
    if not src.is_file():
        raise StoreError(f"no store at {src} (build it with `auditor ingest` first)")
    try:
        source = connect(src, readonly=not writable_location(src), timeout=30)  # a read-only store too
        try:
            source.execute("PRAGMA query_only = ON")
            target = sqlite3.connect(dst)
            try:
                source.backup(target)
            finally:
                target.close()
        finally:
            source.close()
    except sqlite3.DatabaseError as e:
        raise StoreError(f"cannot copy {src}: {e}") from e


@contextmanager
def open_gate_store(db: Path, dry_run: bool) -> Iterator[Store]:
    """The store the gate works on, in which it holds one transaction (:meth:`Store.pending`):
    the store itself, or, for a dry run of a store this process cannot write, a throwaway copy
    of it (nothing else is copied: the cost is the batch's, not the store's)."""
    if not dry_run or (Path(db).is_file() and writable_location(db)):
        with Store(db, create=False) as store:
            yield store
        return
    tmp = Path(tempfile.mkdtemp(prefix="auditor-gate-"))
    try:
        copy = tmp / "dry-run.db"
        copy_store(Path(db), copy)
        with Store(copy, create=False) as store:
            yield store
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- what the batch brought -------------------------------------------------------------------

@dataclass
class Sighting:
    doc_id: int
    path: str  # as given
    resolved: str
    part: str
    within_id: int | None
    meta: dict[str, Any]
    batch: str

    @property
    def display(self) -> str:
        return f"{self.path}#{self.part}" if self.part else self.path


@dataclass
class BatchView:
    """The new documents of this run, its failed and skipped inputs, and what was already known."""

    name: str
    batch_id: int
    sightings: list[Sighting]  # new sightings, files in input order, each followed by its parts
    errors: list[dict[str, Any]]  # failed inputs and failed EDGAR parts
    skipped: list[dict[str, Any]]  # inputs not opened (FIFOs, links out of the tree), EDGAR parts with no text
    known: list[str]  # inputs already stored at the same path by an earlier batch
    files: int  # input files walked
    withdrawn: set[int] = field(default_factory=set)  # corpus documents the change replaces or deletes
    gone: set[str] = field(default_factory=set)  # resolved paths whose earlier content is withdrawn
    #: EDGAR parts read as data (XBRL, JSON, pictures...: extract.data), not documents: each with
    #: its code, sha256, part meta and the names of its readings, which the gate audits
    data: list[dict[str, Any]] = field(default_factory=list)

    @property
    def new_ids(self) -> set[int]:
        return {s.doc_id for s in self.sightings}

    @property
    def keys(self) -> set[tuple[int, str, str]]:
        return {(s.doc_id, s.resolved, s.part) for s in self.sightings}

    def first_sighting(self, doc_id: int) -> Sighting:
        return next(s for s in self.sightings if s.doc_id == doc_id)

    def stands_for(self, store: Store) -> dict[int, list[int]]:
        """Audited document -> the new documents it stands for.

        The audit takes part with the first document of each exact-duplicate group, which may be
        a corpus document (a new copy, or a file revised only in its layout); its findings are
        the new copy's findings too.
        """
        out: dict[int, list[int]] = {}
        for doc_id in sorted(self.new_ids):
            rep = store.scalar("SELECT coalesce(duplicate_of, id) FROM documents WHERE id = ?", (doc_id,))
            out.setdefault(int(rep), []).append(doc_id)
        return out


def _resolved(path: str) -> str:
    return str(Path(path).expanduser().resolve())  # as ingest records it


def batch_view(store: Store, result: BatchResult) -> BatchView:
    """Read back from the store what this run's inputs are: new, failed, skipped or known."""
    batch_id = int(store.scalar("SELECT id FROM batches WHERE name = ?", (result.batch,)))
    names = dict(store.conn.execute("SELECT id, name FROM batches").fetchall())
    # every other batch is corpus: a gate that did not pass left nothing (its transaction rolled back)

    def sighting(row: tuple) -> Sighting:
        return Sighting(int(row[0]), row[1], row[2], row[3], row[4], json.loads(row[5] or "{}"), names.get(row[6], ""))

    cols = "doc_id, path, resolved, part, within_id, meta, batch_id"
    sightings: list[Sighting] = []
    errors: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    data: list[dict[str, Any]] = []
    known: list[str] = []
    for o in result.outcomes:
        resolved = o.resolved or _resolved(o.path)
        if o.doc_id is None:
            if o.status == "failed":
                sha = o.sha256 or sha256_file(resolved) or ""
                errors.append({"path": o.path, "part": "", "code": o.code or "failed",
                               "message": o.message or "", "sha256": sha})
            elif o.status == "skipped":  # not a regular file, a link out of the tree: not gated
                skipped.append({"path": o.path, "part": "", "code": o.code or "skipped",
                                "message": o.message or "", "sha256": o.sha256 or ""})
            elif o.status == "unchanged":  # failed before with the same bytes at this path
                sha = o.sha256 or sha256_file(resolved) or ""
                row = store.conn.execute(
                    "SELECT code, message, batch_id FROM failures WHERE resolved = ? AND part = ''"
                    " AND sha256 = ? AND status = 'failed' ORDER BY id DESC LIMIT 1", (resolved, sha),
                ).fetchone()
                if row and row[2] == batch_id:
                    errors.append({"path": o.path, "part": "", "code": row[0], "message": row[1], "sha256": sha})
                else:
                    known.append(o.path)
            continue
        row = store.conn.execute(
            f"SELECT {cols} FROM sightings WHERE doc_id = ? AND resolved = ? AND part = ''",
            (o.doc_id, resolved),
        ).fetchone()
        # a file the corpus already holds is not gated, except the parts this run read for the
        # first time (a retry of parts that failed before)
        only_this_run = row is None or row[6] != batch_id
        this_run = " AND batch_id = ?" if only_this_run else ""
        args = (resolved, o.doc_id, *((batch_id,) if only_this_run else ()))
        parts = [sighting(r) for r in store.conn.execute(
            f"SELECT {cols} FROM sightings WHERE resolved = ? AND within_id = ? AND part != ''{this_run}", args)]
        failed_parts = store.rows("SELECT path, part, status, code, message, sha256, size, meta FROM failures"
                                  f" WHERE resolved = ? AND within_id = ? AND part != ''{this_run}", args)
        if only_this_run:
            known.append(o.path)
            if not parts and not failed_parts:
                continue
        else:
            sightings.append(sighting(row))
        sightings += sorted(parts, key=lambda s: seq_key(s.part))
        for f in sorted(failed_parts, key=lambda f: seq_key(f["part"])):
            entry = {"path": o.path, "part": f["part"], "code": f["code"], "message": f["message"],
                     "sha256": f["sha256"] or ""}
            meta = json.loads(f["meta"] or "{}")
            if f["status"] == "skipped" and "read_as_data" in meta:
                data.append({**entry, "size": f["size"], "within_id": o.doc_id, "readings": meta.pop("read_as_data"),
                             "meta": {k: meta.get(k) for k in ("type", "sequence", "filename", "description")}})
                continue
            (errors if f["status"] == "failed" else skipped).append(entry)
    errors += [{"path": p, "part": "", "code": "not_found", "message": f"no such file or directory: {p}",
                "sha256": ""} for p in result.missing]  # not stored by ingest: this run's mistake
    return BatchView(result.batch, batch_id, sightings, errors, skipped, known, len(result.outcomes), data=data)


def withdraw(store: Store, view: BatchView, deleted: Iterable[str]) -> None:
    """Withdraw (``auditor.corpus.withdraw``) corpus documents seen only at paths this change revises or
    deletes; in the store the gate works on (rolled back after a dry run)."""
    from auditor.corpus.withdraw import retire_places

    view.gone = {s.resolved for s in view.sightings if not s.part} | {_resolved(p) for p in deleted}
    view.withdrawn = retire_places(store, view.gone, keep=view.keys,
                                   reason="replaced or deleted by the change `auditor gate` checked")


def read_path_list(path: Path) -> list[str]:
    """Paths one per line (``git diff --name-only`` output); blank lines ignored."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read the path list {path}: {e}") from e
    return [line.rstrip("\r") for line in text.split("\n") if line.strip()]


def sighting_provenance(store: Store, s: Sighting) -> dict[str, Any]:
    """A document as this sighting saw it: the path in this batch, its EDGAR submission."""
    d = store.document(s.doc_id)
    out: dict[str, Any] = {
        "doc_id": s.doc_id, "path": s.display, "sha256": d["sha256"], "format": d["format"],
        "size": d["size"], "n_words": d["n_words"], "batch": s.batch,
    }
    if s.within_id:
        parent = store.document(s.within_id)
        out["edgar"] = {
            "submission": submission_fields(parent["meta"]),
            "submission_path": s.path,
            "part": {k: s.meta.get(k) for k in ("type", "sequence", "filename", "description")},
        }
    return out


def corpus_provenance(store: Store, doc_id: int) -> dict[str, Any]:
    """A corpus document as reports describe it (first path, EDGAR submission and part)."""
    d = describe(store, doc_id)
    keep = ("doc_id", "path", "sha256", "format", "size", "n_words", "batch", "edgar")
    return {k: d[k] for k in keep if k in d}




def data_provenance(store: Store, s: Sighting, entry: dict[str, Any]) -> dict[str, Any]:
    """A part read as data (``BatchView.data``) as a finding names it: the part's path, content
    hash and code, within the submission (or message) ``s`` sighted."""
    parent = store.document(s.doc_id)
    out: dict[str, Any] = {
        "doc_id": None, "path": f"{s.path}#{entry['part']}", "part": entry["part"], "sha256": entry["sha256"],
        "format": "data", "code": entry["code"], "size": entry.get("size"), "batch": s.batch,
    }
    if parent["format"] == "edgar":
        out["edgar"] = {"submission": submission_fields(parent["meta"]), "submission_path": s.path,
                        "part": {k: entry["meta"].get(k) for k in ("type", "sequence", "filename", "description")}}
    return out
