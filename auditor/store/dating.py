"""Dates of stored documents: chosen from what the store holds, stored with their source, and
supplied by the user for the copies a crawl saw (``--dates FILE``).

Each document keeps ``documents.dates`` (JSON: the dates it carries itself, its metadata and the
date its opening lines state, found once at ingest) and ``documents.date``/``date_source``: the
most trusted of those, of the dates supplied for its copies (``sightings.supplied_date``) and of
its copies' modification times (``sightings.mtime``, a copy's time when less than a day before
``sightings.seen_at``); see :mod:`auditor.text.dates` for the order.
The choice is made again whenever a copy is seen or a date is supplied, so it always follows from
the rows beside it.

A dates file is CSV (a header naming a ``path`` or ``sha256`` column and a ``date`` column, or
rows of two fields: the path or sha256, then the date) or JSON Lines (``{"path": ..., "date":
...}`` or ``{"sha256": ..., "date": ...}``). A path matches the copies seen at that path (as
ingested, or resolved from the file's directory or the working directory, so an EDGAR
submission's date reaches its parts); a sha256 matches the document with those raw bytes and
the parts of a submission. A line that cannot be read is reported with its number and reason
and the others are applied; a key that matches no stored copy is listed.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.errors import UsageError
from auditor.text import dates as D

if TYPE_CHECKING:  # named in annotations only
    from auditor.store.db import Store

MAX_FILE = 256 * 2**20
_SHA = re.compile(r"[0-9a-fA-F]{64}")
KEYS = ("path", "sha256")


# -- one document --------------------------------------------------------------------------------

def own_dates(conn: Any, doc_id: int, text: str) -> list[D.Dated]:
    """The dates a stored document carries itself: its metadata (its own ``meta["dates"]``, and
    the EDGAR header of its submission or of itself) and the date its opening lines (of
    ``text``, its text) state."""
    row = conn.execute("SELECT meta, parent_id FROM documents WHERE id = ?", (doc_id,)).fetchone()
    if row is None:
        return []
    meta = _json(row[0])
    found = {str(k): v for k, v in (meta.get("dates") or {}).items()} if isinstance(meta.get("dates"), dict) else {}
    head = meta
    if row[1] is not None:
        parent = conn.execute("SELECT meta FROM documents WHERE id = ?", (row[1],)).fetchone()
        head = _json(parent[0]) if parent else {}
    for name in ("filing_date", "period"):
        if head.get("accession_number") and head.get(name):
            found[f"edgar:{name}"] = head[name]
    return D.own(found, text)


def _json(raw: str | None) -> dict[str, Any]:
    try:
        v = json.loads(raw or "{}")
    except ValueError:
        return {}
    return v if isinstance(v, dict) else {}


def copies(conn: Any, doc_ids: Sequence[int]) -> dict[int, tuple[list[D.Dated], list[D.Dated]]]:
    """(supplied dates, modification times) of each document's copies (its sightings)."""
    out: dict[int, tuple[list[D.Dated], list[D.Dated]]] = {d: ([], []) for d in doc_ids}
    for a in range(0, len(doc_ids), 900):
        part = list(doc_ids[a : a + 900])
        for doc_id, mtime, seen, supplied, origin in conn.execute(
                "SELECT doc_id, mtime, seen_at, supplied_date, supplied_from FROM sightings WHERE doc_id IN"
                f" ({','.join('?' * len(part))}) ORDER BY doc_id, id", part):
            copy_dates(out[doc_id], mtime, seen, supplied, origin)
    return out


def copy_dates(into: tuple[list[D.Dated], list[D.Dated]], mtime: str | None, seen: str | None,
               supplied: str | None, origin: str | None) -> None:
    """Add one sighting's dates to (supplied dates, modification times)."""
    sup, mt = into
    if supplied:
        sup.append(D.Dated(supplied, f"supplied:{origin or 'dates file'}", supplied))
    m = D.mtime(mtime, seen)
    if m is not None:
        mt.append(m)


def dated(own: str | None, created: str | None, seen: tuple[list[D.Dated], list[D.Dated]]) -> list[D.Dated]:
    """One document's best date of each kind, most trusted first, from its own dates (the
    ``documents.dates`` JSON), its ingest time and its copies' dates (``copy_dates``)."""
    return D.evidence([D.Dated(**x) for x in json.loads(own or "[]")], *seen, ingested=created)


def evidence(conn: Any, doc_ids: Sequence[int]) -> dict[int, list[D.Dated]]:
    """The best date of each kind for each document, most trusted first (``dates.evidence``)."""
    ids = sorted(set(doc_ids))
    rows: dict[int, tuple[str | None, str | None]] = {}
    for a in range(0, len(ids), 900):
        part = ids[a : a + 900]
        for doc_id, own, created in conn.execute(
                f"SELECT id, dates, created FROM documents WHERE id IN ({','.join('?' * len(part))})", part):
            rows[doc_id] = (own, created)
    seen = copies(conn, ids)
    return {d: dated(*rows.get(d, (None, None)), seen[d]) for d in ids}


def refresh(conn: Any, doc_ids: Iterable[int], *, text: str | None = None) -> None:
    """Choose again, and store, the date of each document (inside the caller's transaction).
    With ``text`` (the text of the one document just stored), its own dates are found first."""
    ids = sorted(set(doc_ids))
    for d in ids:
        if text is not None and conn.execute("SELECT 1 FROM documents WHERE id = ?", (d,)).fetchone():
            found = own_dates(conn, d, text)
            conn.execute("UPDATE documents SET dates = ? WHERE id = ?",
                         (json.dumps([x.as_dict() for x in found], sort_keys=True), d))
    for d, ev in evidence(conn, ids).items():
        best = ev[0] if ev else None
        conn.execute("UPDATE documents SET date = ?, date_source = ? WHERE id = ?",
                     (best.date if best else None, best.source if best else None, d))


# -- dates supplied in a file --------------------------------------------------------------------

@dataclass(frozen=True)
class Supplied:
    """One line of a dates file: a ``path`` or ``sha256`` key, and the date as ISO 8601."""

    line: int
    key: str
    value: str
    date: str

    @property
    def by(self) -> str:
        return "sha256" if _SHA.fullmatch(self.key) else "path"


@dataclass
class DatesFile:
    path: str
    entries: list[Supplied]
    problems: list[tuple[int, str, str]]  # (line, code, message)


@dataclass
class Applied:
    """What a dates file did: copies dated, documents whose date changed, lines that matched
    nothing stored, and lines that could not be read (line, code, message)."""

    file: str
    lines: int
    copies: int = 0
    documents: int = 0
    changed: list[int] = field(default_factory=list)
    unmatched: list[tuple[int, str]] = field(default_factory=list)
    problems: list[tuple[int, str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "lines": self.lines, "copies": self.copies, "documents": self.documents,
                "changed": self.changed, "unmatched": [{"line": n, "key": k} for n, k in self.unmatched],
                "problems": [{"line": n, "code": c, "message": m} for n, c, m in self.problems]}


def read_dates_file(path: str | os.PathLike) -> DatesFile:
    """Read a dates file (see the module docstring). ``UsageError`` when the file cannot be read
    at all or holds no line that could be used; bad lines are listed in ``problems``."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE:
            raise UsageError(f"{path}: a dates file of more than {MAX_FILE // 2**20} MB")
        raw = p.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read the dates file {path}: {e.strerror or e}") from e
    try:
        body = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path} is not UTF-8 text ({e})") from e
    first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
    rows = _jsonl(body) if first.startswith("{") else _csv(body)
    entries: list[Supplied] = []
    problems: list[tuple[int, str, str]] = []
    for n, key, value, problem in rows:
        if problem:
            problems.append((n, problem[0], problem[1]))
            continue
        key = key.strip()
        if not key:
            problems.append((n, "no_key", "no path or sha256"))
            continue
        date = D.parse(value)
        if date is None:
            problems.append((n, "bad_date", f"{value!r} is not a date this tool reads (ISO 8601 such as "
                             "2023-10-01 or 2023-10-01T12:00:00Z, RFC 2822, seconds since 1970, or October 1, 2023)"))
            continue
        entries.append(Supplied(n, key.lower() if _SHA.fullmatch(key) else key, value, date))
    if not entries:
        why = "; ".join(f"line {n}: {m}" for n, _, m in problems[:3])
        raise UsageError(f"{path} holds no usable date (a CSV of path or sha256 and date, or JSON Lines "
                         "{\"path\": ..., \"date\": ...})" + (f": {why}" if why else ""))
    return DatesFile(str(path), entries, problems)


Row = tuple[int, str, str, tuple[str, str] | None]


def _csv(body: str) -> list[Row]:
    reader = csv.reader(io.StringIO(body, newline=""))
    out: list[Row] = []
    header: dict[str, int] | None = None
    for fields in reader:
        n = reader.line_num
        if not any(f.strip() for f in fields):
            continue
        if header is None and not out and D.parse(fields[-1]) is None:
            names = [f.strip().lower() for f in fields]
            key = next((k for k in ("path", "sha256", "file", "key") if k in names), None)
            if key is None or "date" not in names:
                return [(n, "", "", ("bad_header", "a header names a path (or sha256) column and a date "
                                     f"column; found {', '.join(names)}"))]
            header = {"key": names.index(key), "date": names.index("date")}
            continue
        ki, di = (header["key"], header["date"]) if header else (0, 1)
        if len(fields) <= max(ki, di):
            out.append((n, "", "", ("bad_line", f"{len(fields)} field(s); expected a key and a date")))
            continue
        out.append((n, fields[ki], fields[di].strip(), None))
    return out


def _jsonl(body: str) -> list[Row]:
    out: list[Row] = []
    for n, line in enumerate(body.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            out.append((n, "", "", ("bad_line", f"not JSON: {e}")))
            continue
        if not isinstance(obj, dict):
            out.append((n, "", "", ("bad_line", "not a JSON object")))
            continue
        key = next((obj[k] for k in ("path", "sha256") if isinstance(obj.get(k), str)), "")
        value = obj.get("date")
        if not isinstance(value, str):
            out.append((n, "", "", ("bad_date", "no \"date\" string")))
            continue
        out.append((n, key, value, None))
    return out


def apply_dates(store: Store, path: str | os.PathLike, read: DatesFile | None = None) -> Applied:
    """Record a dates file's dates on the copies they name and choose each document's date
    again, in one transaction. A copy named twice takes the later line."""
    f = read or read_dates_file(path)
    origin = Path(f.path).name
    base = Path(f.path).resolve().parent
    out = Applied(f.path, len(f.entries) + len(f.problems), problems=list(f.problems))
    touched: set[int] = set()
    dated: set[int] = set()
    with store.write():
        before = dict(store.conn.execute("SELECT id, date FROM documents").fetchall())
        for e in f.entries:
            rows = _sightings_of(store, e, base)
            if not rows:
                out.unmatched.append((e.line, e.key))
                continue
            for sid, doc_id in rows:
                store.conn.execute("UPDATE sightings SET supplied_date = ?, supplied_from = ? WHERE id = ?",
                                   (e.date, origin, sid))
                dated.add(sid)
                touched.add(doc_id)
        refresh(store.conn, touched)
        after = dict(store.conn.execute("SELECT id, date FROM documents").fetchall())
    out.copies, out.documents = len(dated), len(touched)
    out.changed = sorted(d for d in touched if before.get(d) != after.get(d))
    return out


def _sightings_of(store: Store, e: Supplied, base: Path) -> list[tuple[int, int]]:
    if e.by == "sha256":
        doc = store.scalar("SELECT id FROM documents WHERE sha256 = ?", (e.key,))
        if doc is None:
            return []
        return [(r[0], r[1]) for r in store.conn.execute(
            "SELECT id, doc_id FROM sightings WHERE doc_id = ? OR within_id = ? ORDER BY id", (doc, doc))]
    for where, value in (("path", e.key), ("resolved", os.path.realpath(base / e.key)),
                         ("resolved", os.path.realpath(e.key))):
        rows = store.conn.execute(f"SELECT id, doc_id FROM sightings WHERE {where} = ? ORDER BY id",
                                  (value,)).fetchall()
        if rows:
            return [(r[0], r[1]) for r in rows]
    return []


__all__ = ["Applied", "DatesFile", "Supplied", "apply_dates", "copies", "evidence",
           "own_dates", "read_dates_file", "refresh"]
