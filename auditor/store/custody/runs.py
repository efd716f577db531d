"""The contents digest of an audit run: every containing pair it stored (``findings``) and every
document it covered (``run_documents``), which ``assemble`` and the review commands read.

A run can hold millions of pairs, so they are not rows of the log: the run's row records one
digest of them (``runs.contents``, tracked like any column), made as they are written and made
again from the tables by ``auditor check`` and before an assembly. Pairs are hashed column by
column as little-endian arrays in key order (contained, container), so the writer hashes the
arrays it already has and a reader the rows it reads, a slice at a time, to the same digest.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from auditor.store.custody.chain import canonical

FINDING_COLUMNS = (("contained_id", "<i8"), ("container_id", "<i8"), ("containment", "<f8"), ("estimate", "<f8"),
                   ("low", "<f8"), ("high", "<f8"), ("hits", "<i8"), ("sampled", "<i8"), ("shared", "<i8"),
                   ("shingles", "<i8"), ("family", "<i8"))  # family: -1 for none
DOCUMENT_COLUMNS = ("doc_id", "status", "duplicate_of", "reason", "family", "containers", "boilerplate")
SLICE = 50_000


class Contents:
    """The running digest of a run's pairs and covered documents."""

    def __init__(self) -> None:
        self._columns = [hashlib.sha256() for _ in FINDING_COLUMNS]
        self._spans = hashlib.sha256()
        self._documents = hashlib.sha256()
        self.pairs = 0
        self.documents = 0

    def add_pairs(self, arrays: Sequence[np.ndarray], spans: Iterable[tuple[int, int, str]]) -> None:
        """One slice of pairs in key order: an array per ``FINDING_COLUMNS``, and the spans (JSON
        text as stored) of the pairs that have them."""
        for h, a, (_, dtype) in zip(self._columns, arrays, FINDING_COLUMNS, strict=True):
            h.update(np.ascontiguousarray(a, dtype=dtype).tobytes())
        self.pairs += len(arrays[0])
        for contained, container, text in spans:
            raw = text.encode("utf-8")
            self._spans.update(f"{contained}\t{container}\t{len(raw)}\t".encode() + raw)

    def add_document(self, row: Sequence[Any]) -> None:
        """One ``run_documents`` row (``DOCUMENT_COLUMNS``), in doc_id order."""
        self._documents.update((canonical(list(row)) + "\n").encode("utf-8"))
        self.documents += 1

    def digest(self) -> str:
        return hashlib.sha256(canonical({
            "pairs": self.pairs, "documents": self.documents, "spans": self._spans.hexdigest(),
            "columns": [h.hexdigest() for h in self._columns], "run_documents": self._documents.hexdigest(),
        }).encode("utf-8")).hexdigest()


def stored(conn: sqlite3.Connection, run: int) -> str:
    """The contents digest of run ``run`` (``runs.id``) as the store holds it now."""
    c = Contents()
    names = ", ".join(n if n != "family" else "coalesce(family, -1)" for n, _ in FINDING_COLUMNS)
    cur = conn.execute(f"SELECT {names}, spans FROM findings WHERE run = ? ORDER BY contained_id, container_id",
                       (run,))
    while rows := cur.fetchmany(SLICE):
        cols = list(zip(*rows, strict=True))
        arrays = [np.asarray(cols[i], dtype=dtype) for i, (_, dtype) in enumerate(FINDING_COLUMNS)]
        c.add_pairs(arrays, ((a, b, s) for a, b, s in zip(cols[0], cols[1], cols[-1], strict=True) if s is not None))
    for row in conn.execute(f"SELECT {', '.join(DOCUMENT_COLUMNS)} FROM run_documents WHERE run = ? ORDER BY doc_id",
                            (run,)):
        c.add_document(row)
    return c.digest()


def problem(conn: sqlite3.Connection, run: int) -> str | None:
    """None when run ``run``'s pairs and covered documents are what its row records; else why not
    (a run from before the custody log records nothing and is not checked)."""
    row = conn.execute("SELECT run_id, contents FROM runs WHERE id = ?", (run,)).fetchone()
    if row is None or row[1] is None:
        return None
    try:
        have = stored(conn, run)
    except (TypeError, ValueError, OverflowError) as e:
        return f"the pairs or documents stored for run {row[0]} cannot be read as the run wrote them ({e})"
    if have != row[1]:
        return (f"the pairs or covered documents stored for run {row[0]} are not those the run recorded: "
                "they were altered behind the store's back")
    return None
