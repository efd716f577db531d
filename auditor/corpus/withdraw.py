"""Withdrawing documents from the corpus, and taking them back.

A corpus loses documents: a file is deleted, renamed away, or replaced by a new version. A
withdrawn document leaves every later audit, control and gate, but its row, text, index and
provenance stay in the store, so the reports that audited it can still be checked.

Withdrawal works on *sightings* (a document seen at a path, or as a part of an EDGAR submission
at a path). A sighting is *gone* when its file is gone or now holds other bytes; a document is
withdrawn when none of its sightings is left, so a document still present at another path (or in
another submission) stays. Withdrawing a document by id or sha256 retires all its sightings. When
a document is withdrawn, the sightings of its EDGAR parts inside it are gone too, so a
submission's parts go with it unless they are also seen elsewhere.

Exact duplicates: the first document (lowest id) of a group stands for the group in audits
(``duplicate_of`` IS NULL). The representative is the lowest id among the group's documents that
are not withdrawn: after each withdrawal or restoration the group's ``duplicate_of`` is set again
by that rule (and ingest points a new member at the lowest such id), so every query that selects
``duplicate_of IS NULL`` and ``withdrawn_at IS NULL`` sees one document per group.

A file that comes back (its bytes ingested again, at any path) restores its document
(``reinstate``, called by ingest).
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor.errors import NoDocument
from auditor.store.db import Store, now, regroup
from auditor.store.files import sha256_file


@dataclass
class Withdrawal:
    """What one call withdrew, and why other references withdrew nothing."""

    withdrawn: list[int] = field(default_factory=list)  # withdrawn now, in id order
    already: list[int] = field(default_factory=list)  # named, but withdrawn before
    kept: dict[int, list[str]] = field(default_factory=dict)  # doc -> places it is still seen
    unknown: list[tuple[str, str]] = field(default_factory=list)  # (reference, why it names nothing)
    gone: list[str] = field(default_factory=list)  # places found gone now ("path" or "path#part")

    def as_dict(self) -> dict[str, Any]:
        return {"withdrawn": self.withdrawn, "already_withdrawn": self.already,
                "kept": {str(k): v for k, v in sorted(self.kept.items())},
                "unknown": [{"reference": r, "reason": m} for r, m in self.unknown], "gone": self.gone}


def _who() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no user name (a container without /etc/passwd entry)
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"


def _resolved(path: str | os.PathLike) -> str:
    return str(Path(path).expanduser().resolve())  # as ingest records it


def _place(resolved: str, part: str) -> str:
    return f"{resolved}#{part}" if part else resolved


def _log(store: Store, doc_id: int, action: str, at: str, reason: str, command: str) -> None:
    store.conn.execute(
        "INSERT INTO withdrawals (doc_id, action, at, reason, by, command) VALUES (?,?,?,?,?,?)",
        (doc_id, action, at, reason, _who(), command))


def _retire(store: Store, sighting_ids: Iterable[int], reason: str, command: str) -> list[int]:
    """Mark sightings gone and withdraw every document left with none (inside a transaction).

    Returns the documents withdrawn now. A withdrawn submission takes the sightings of its parts
    with it, and so on down.
    """
    at = now()
    ids = sorted(set(sighting_ids))
    withdrawn: list[int] = []
    while ids:
        docs: set[int] = set()
        for sid in ids:
            row = store.conn.execute("SELECT doc_id FROM sightings WHERE id = ?", (sid,)).fetchone()
            store.conn.execute("UPDATE sightings SET gone_at = ? WHERE id = ? AND gone_at IS NULL", (at, sid))
            docs.add(int(row[0]))
        ids = []
        for doc_id in sorted(docs):
            if store.scalar("SELECT withdrawn_at FROM documents WHERE id = ?", (doc_id,)) is not None:
                continue
            if store.scalar("SELECT 1 FROM sightings WHERE doc_id = ? AND gone_at IS NULL LIMIT 1", (doc_id,)):
                continue
            store.conn.execute(
                "UPDATE documents SET withdrawn_at = ?, withdrawn_reason = ?, withdrawn_by = ? WHERE id = ?",
                (at, reason, _who(), doc_id))
            _log(store, doc_id, "withdrawn", at, reason, command)
            withdrawn.append(doc_id)
            ids += [r[0] for r in store.conn.execute(
                "SELECT id FROM sightings WHERE within_id = ? AND gone_at IS NULL ORDER BY id", (doc_id,))]
    regroup(store, withdrawn)
    return sorted(withdrawn)


def _live_places(store: Store, doc_id: int) -> list[str]:
    return [_place(r[0], r[1]) for r in store.conn.execute(
        "SELECT resolved, part FROM sightings WHERE doc_id = ? AND gone_at IS NULL ORDER BY id", (doc_id,))]


def _command() -> str:
    return " ".join(["auditor", *sys.argv[1:]]) if sys.argv else "auditor"


def _sightings_of_reference(store: Store, ref: str) -> tuple[list[int], str | None]:
    """(sighting ids, error) for an id, a sha256 prefix, a path (``PATH#SEQUENCE``) or a directory.

    An id or sha256 names a document: all its sightings. A path names a place: the sightings
    there (a submission and its parts), whatever the bytes once were; a directory, every place
    under it, so a directory that was deleted as a whole can be withdrawn.
    """
    ref = ref.strip()
    low = ref.lower()
    if (ref.isdigit() and store.scalar("SELECT 1 FROM documents WHERE id = ?", (int(ref),))) or (
            len(low) >= 6 and all(c in "0123456789abcdef" for c in low)
            and store.scalar("SELECT 1 FROM documents WHERE sha256 >= ? AND sha256 < ?", (low, low + "g"))):
        try:
            doc_id = store.resolve(ref)
        except NoDocument as e:
            return [], str(e)
        return [r[0] for r in store.conn.execute("SELECT id FROM sightings WHERE doc_id = ? ORDER BY id",
                                                 (doc_id,))], None
    if not ref:
        return [], "empty reference"
    resolved = _resolved(ref)
    rows = store.conn.execute(
        "SELECT id FROM sightings WHERE path = ? OR resolved = ? OR path || '#' || part = ?"
        " OR resolved || '#' || part = ? ORDER BY id", (ref, resolved, ref, resolved)).fetchall()
    if not rows:
        prefix = resolved.rstrip(os.sep) + os.sep
        rows = store.conn.execute(
            "SELECT id FROM sightings WHERE substr(resolved, 1, ?) = ? ORDER BY id", (len(prefix), prefix)
        ).fetchall()
    if not rows:
        return [], "no stored document matches it (id, sha256 prefix, path or directory)"
    return [r[0] for r in rows], None


def withdraw(store: Store, refs: Sequence[str], *, reason: str | None = None,
             command: str | None = None) -> Withdrawal:
    """Withdraw what ``refs`` name (see ``_sightings_of_reference``); one transaction.

    References that name nothing are returned in ``unknown``; the others are withdrawn anyway.
    """
    command = command or _command()
    out = Withdrawal()
    with store.write("withdraw", {"references": len(refs), "reason": reason, "command": command}):
        named: set[int] = set()
        retire: set[int] = set()
        for ref in refs:
            ids, error = _sightings_of_reference(store, ref)
            if error:
                out.unknown.append((ref, error))
                continue
            retire.update(ids)
            named.update(store.scalar("SELECT doc_id FROM sightings WHERE id = ?", (i,)) for i in ids)
        out.gone = _places(store, retire, only_live=True)
        out.withdrawn = _retire(store, retire, reason or "withdrawn by `auditor withdraw`", command)
        for doc_id in sorted(named - set(out.withdrawn)):
            if store.scalar("SELECT withdrawn_at FROM documents WHERE id = ?", (doc_id,)) is not None:
                out.already.append(doc_id)
            else:
                out.kept[doc_id] = _live_places(store, doc_id)
    return out


def _places(store: Store, sighting_ids: Iterable[int], only_live: bool = False) -> list[str]:
    out = []
    for sid in sorted(set(sighting_ids)):
        row = store.conn.execute("SELECT resolved, part, gone_at FROM sightings WHERE id = ?", (sid,)).fetchone()
        if not only_live or row[2] is None:
            out.append(_place(row[0], row[1]))
    return sorted(set(out))


def retire_places(store: Store, places: Iterable[str], *, keep: Collection[tuple[int, str, str]] = (),
                  reason: str, command: str | None = None) -> set[int]:
    """The files at these resolved paths are gone or replaced: retire their sightings (all
    parts) except those in ``keep`` ((doc_id, resolved, part): what is there now). Returns the
    documents seen only at such places, now withdrawn (whether now or earlier). One transaction.
    """
    paths = sorted(set(places))
    retire: list[int] = []
    docs: set[int] = set()
    for path in paths:
        for sid, doc_id, resolved, part in store.conn.execute(
                "SELECT id, doc_id, resolved, part FROM sightings WHERE resolved = ? ORDER BY id", (path,)):
            if (doc_id, resolved, part) not in keep:
                retire.append(sid)
                docs.add(doc_id)
    with store.write("withdraw", {"places": len(paths), "reason": reason, "command": command or _command()}):
        _retire(store, retire, reason, command or _command())
    new = {k[0] for k in keep}
    return {d for d in docs - new if store.scalar("SELECT withdrawn_at FROM documents WHERE id = ?", (d,))}


def sync(store: Store, directories: Sequence[str | os.PathLike], present: Iterable[tuple[int, str]],
         *, command: str | None = None) -> Withdrawal:
    """Withdraw what the files under ``directories`` no longer hold.

    :param present: (doc_id, resolved path) of every file an ingest of these directories just
        saw (``BatchResult.outcomes``); any other sighting under them whose file is missing, or
        holds other bytes, is gone. Files the walk did not report are checked on disk.
    """

    seen = {(int(d), r) for d, r in present}
    roots = [_resolved(d) for d in directories]
    live_top: dict[tuple[str, int], bool] = {}

    def top_is_live(resolved: str, doc_id: int, sha256: str) -> bool:
        key = (resolved, doc_id)
        if key not in live_top:
            ok = (doc_id, resolved) in seen
            if not ok:  # not walked (a link, say): compare the bytes, of a regular file only
                ok = sha256_file(resolved) == sha256
            live_top[key] = ok
        return live_top[key]

    retire: list[int] = []
    for root in roots:
        prefix = root.rstrip(os.sep) + os.sep
        rows = store.conn.execute(
            "SELECT s.id, s.doc_id, s.resolved, s.part, s.within_id, d.sha256, w.sha256"
            " FROM sightings s JOIN documents d ON d.id = s.doc_id LEFT JOIN documents w ON w.id = s.within_id"
            " WHERE s.gone_at IS NULL AND (s.resolved = ? OR substr(s.resolved, 1, ?) = ?) ORDER BY s.id",
            (root, len(prefix), prefix)).fetchall()
        for sid, doc_id, resolved, part, within, sha, within_sha in rows:
            if part:  # a part lives as long as its submission's file at that path
                alive = within is not None and top_is_live(resolved, within, within_sha)
            else:
                alive = top_is_live(resolved, doc_id, sha)
            if not alive:
                retire.append(sid)
    out = Withdrawal()
    with store.write("sync", {"directories": roots, "command": command or _command()}):
        out.gone = _places(store, retire)
        out.withdrawn = _retire(store, retire, "its files are gone (`auditor ingest --sync`)", command or _command())
    docs = {int(store.scalar("SELECT doc_id FROM sightings WHERE id = ?", (s,))) for s in retire}
    out.kept = {d: _live_places(store, d) for d in sorted(docs - set(out.withdrawn))
                if store.scalar("SELECT withdrawn_at FROM documents WHERE id = ?", (d,)) is None}
    return out


def reinstate(store: Store, present: Iterable[tuple[int, str]], *, command: str | None = None) -> list[int]:
    """Files just ingested (doc_id, resolved path) are back: their sightings there, and those of
    their parts, are no longer gone, and their documents are restored. Returns those restored."""
    present = sorted(set(present))
    if not present or not store.scalar(
            "SELECT 1 FROM sightings WHERE gone_at IS NOT NULL LIMIT 1"):
        return []
    at = now()
    restored: list[int] = []
    with store.write("restore", {"files": len(present), "command": command or _command()}):
        for doc_id, resolved in present:
            rows = store.conn.execute(
                "SELECT id, doc_id FROM sightings WHERE resolved = ? AND (doc_id = ? OR within_id = ?)",
                (resolved, doc_id, doc_id)).fetchall()
            for sid, d in rows:
                store.conn.execute("UPDATE sightings SET gone_at = NULL WHERE id = ?", (sid,))
                if store.scalar("SELECT withdrawn_at FROM documents WHERE id = ?", (d,)) is not None:
                    store.conn.execute("UPDATE documents SET withdrawn_at = NULL, withdrawn_reason = NULL,"
                                       " withdrawn_by = NULL WHERE id = ?", (d,))
                    _log(store, d, "restored", at, f"seen again at {resolved}", command or _command())
                    restored.append(d)
        regroup(store, restored)
    return sorted(set(restored))
