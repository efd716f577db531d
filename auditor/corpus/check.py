"""Is the store still what the auditor wrote? ``auditor check``, and the part audit and gate run first.

SQLite's ``integrity_check`` proves the file's structure, not its content: a text altered by an
``UPDATE`` behind the store's back, or bytes flipped inside a record, pass it. So each text
stored since migration 0006 carries the sha256 of its UTF-8 bytes, the index rows can be
derived again from the texts, and since migration 0009 every write is recorded in the custody
log (:mod:`auditor.store.custody`), whose entries are chained by their hashes. The full check
(:func:`check_store`):

* ``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check``;
* every stored text against its digest (texts stored before the migration have none: they are
  counted as "no digest recorded", never certified after the fact), and against the document's
  character count;
* every document has a text row, and every text, index row and sighting has a document;
* every index row equals what :func:`auditor.text.entry.prepare_text` derives from the text under the
  stored parameters (word and shingle counts, the sampled hashes, the stored word sequence the
  audit reads instead of the text), and the normalised-text fingerprint matches the document's;
* every withdrawn document has the withdrawal record that says who withdrew it, when and why;
* the custody log replayed from its first entry (each entry's hash, its link to the one before,
  its changes and the state it records), and every tracked row against what the log says it
  holds: an edit behind the tool's back names the first bad entry and the rows and documents.

The quick check (:func:`require_intact`, called before every audit, gate and assembly) is
``PRAGMA quick_check``, the text digests, the missing-text and withdrawal tests, and the custody
log's quick check (the entries since the last checkpoint, and the live state against the state
the head records); it raises :class:`~auditor.errors.StoreDamaged` naming the entries and
documents, and returns the log's head, which reports record.

The gate's check grows with what the gate reads, not with the store
(:func:`require_intact_for_reads`, then :func:`require_reads_intact`): the entries since the
checkpoint; then, when the store's edit counter says that no tracked row and no row digest was
changed since the last entry but by this tool's writes (migration 0015: persistent triggers
count every change, by any SQLite client; ``custody.unedited``), nothing more before the batch
is ingested; else the log's row digests (``custody_rows``) against the state the head records
and every tracked row but the texts and word sequences (documents, index rows, sightings,
withdrawals, batches, runs, the index parameters: small rows, most of which the gate reads
whole) against those digests. In both cases the texts and word sequences the gate read are
checked against the row digests, and the texts' bytes against their sha256, once the report is
computed and again before the verdict is recorded (bytes damaged on disk show there). ``PRAGMA
quick_check`` is left to ``audit`` and ``auditor check``: SQLite raises on a damaged page it
reads. Any mismatch falls back to the quick check, which names the rows.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor.errors import StoreDamaged
from auditor.store.db import Reads, Store

_SHOWN = 10
_TEXT_KINDS = ("text_digest", "text_encoding", "text_length", "missing_text")


@dataclass
class Problem:
    kind: str  # integrity | reference | text_digest | text_length | text_encoding | missing_text | orphan | index
    #            | withdrawal | custody
    detail: str
    doc_id: int | None = None
    path: str | None = None

    def line(self) -> str:
        who = f"document {self.doc_id} ({self.path})" if self.doc_id is not None else "store"
        return f"{self.kind}: {who}: {self.detail}"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "doc_id": self.doc_id, "path": self.path, "detail": self.detail}


@dataclass
class CheckResult:
    quick: bool
    problems: list[Problem] = field(default_factory=list)
    texts: int = 0  # texts checked against a digest
    no_digest: int = 0  # texts stored before digests were recorded
    indexed: int = 0  # index rows derived again (full check only)
    notes: list[str] = field(default_factory=list)
    custody: dict[str, Any] | None = None  # the custody log's head (entry, hash, state)
    entries: int = 0  # custody entries verified now

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def documents(self) -> list[int]:
        return sorted({p.doc_id for p in self.problems if p.doc_id is not None})

    def summary(self) -> str:
        head = "store intact" if self.ok else f"{len(self.problems)} problems in {len(self.documents)} documents"
        parts = [f"{self.texts} texts match their digests" if self.ok else f"{self.texts} texts with a digest checked"]
        if self.no_digest:
            parts.append(f"{self.no_digest} texts have no digest recorded (stored before digests existed)")
        if not self.quick:
            parts.append(f"{self.indexed} index rows derived again")
        if self.custody:
            n = f"{self.entries} entr{'y' if self.entries == 1 else 'ies'}"
            parts.append(f"custody log: {n} {'since the last checkpoint ' if self.quick else ''}verified, "
                         f"head entry {self.custody['seq']} (hash {self.custody['hash']})")
        return f"{head}: " + "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "quick": self.quick, "texts": self.texts, "no_digest": self.no_digest,
                "indexed": self.indexed, "documents": self.documents, "notes": self.notes,
                "custody": self.custody, "custody_entries": self.entries,
                "problems": [p.as_dict() for p in self.problems]}


def check_store(store: Store, *, quick: bool = False,
                on_progress: Callable[[str], None] | None = None) -> CheckResult:
    """Check the store; see the module docstring. Never raises for damage it finds: a page
    SQLite cannot read is itself reported as an ``integrity`` problem."""
    r = CheckResult(quick=quick)
    say = on_progress or (lambda _: None)
    try:
        say("integrity")
        _integrity(store, r, quick)
        if not quick:
            _references(store, r)
        say("texts")
        paths = _paths(store)
        _texts(store, r, paths)
        _withdrawals(store, r, paths)
        say("custody")
        _custody(store, r, paths, quick)
        if not quick:
            say("runs")
            _runs(store, r)
            say("index")
            _index(store, r, paths)
    except sqlite3.DatabaseError as e:
        r.problems.append(Problem("integrity", f"SQLite cannot read the store: {e}"))
    return r


def require_intact(store: Store, name: Path | None = None) -> dict[str, Any] | None:
    """The quick check; raises StoreDamaged when it finds anything. Returns the custody log's
    head it verified (None for a store without a log). ``name``: the store to name in the
    message (the user's, when ``store`` is a gate's throwaway copy of it)."""
    from auditor.store import custody

    before = custody.edit_count(store.conn)
    r = check_store(store, quick=True)
    if r.ok:
        plan = getattr(store, "custody", None)
        if (plan is not None and before is not None and not store.conn.in_transaction
                and not custody.unedited(store.conn)  # (in step already: the next entry records the count)
                and custody.edit_count(store.conn) == before and (rows := custody.check_rows(store.conn)) is not None
                and rows.ok and custody.edit_count(store.conn) == before):
            # every tracked row and row digest checked, nothing uncommitted: the next entry may record the count
            plan.checked_edits = before
        return r.custody
    path = name or store.path
    shown = "; ".join(p.line() for p in r.problems[:_SHOWN])
    more = f" (and {len(r.problems) - _SHOWN} more)" if len(r.problems) > _SHOWN else ""
    raise StoreDamaged(f"{path} is damaged, so nothing computed from it could be defended: "
                       f"{shown}{more}. Run `auditor check --db {path}` for the full list; "
                       "restore the store from a backup or re-ingest the documents named")


READ_BY_KEY = ("texts", "shingle_sequences")
"""The tracked tables the gate checks row by row as it reads them (the bulk of a store: every
text and word sequence); every other tracked row is checked before the batch is ingested."""


def require_intact_for_reads(store: Store, name: Path | None = None) -> dict[str, Any] | None:
    """The gate's check before it writes (see the module docstring); from here on the store
    records the texts and word sequences read, which :func:`require_reads_intact` verifies.
    A store without ``custody_rows`` (read-only, from before migration 0014) gets the quick check,
    as does one whose check finds anything (its message names the rows). Returns the custody
    head verified."""
    from auditor.store import custody

    with store.snapshot():
        # nothing changed since the last entry but through entries: custody_rows and every row the
        # gate reads without recording it are as the log left them; else each is checked
        unedited = custody.unedited(store.conn)
        outcome = custody.check_rows(store.conn, kept=not unedited)
        if outcome is None:
            return require_intact(store, name)
        r = CheckResult(quick=True)
        _withdrawals(store, r, _paths(store))
        whole = {} if unedited else {t.table: None for t in custody.TRACKED if t.table not in READ_BY_KEY}
        if outcome.ok and r.ok and not custody.differing(store.conn, whole):
            store.reads = Reads(name or store.path)
            return outcome.head
    # name the rows as the quick check does; should it pass (only the row digests kept with the log
    # were edited), the store was checked as before, and its reads are not recorded
    return require_intact(store, name)


def require_reads_intact(store: Store) -> None:
    """The texts and word sequences read since :func:`require_intact_for_reads` (or the last call)
    against the digests the log vouches for, and each text's bytes against its sha256; raises
    StoreDamaged naming them (through the quick check). Nothing for a store not recording."""
    from auditor.store import custody

    if store.reads is None:
        return
    pending = store.reads.pending()
    if not pending:
        return
    found = [f.detail for f in custody.differing(store.conn, pending)]
    texts = pending.get("texts", [])
    for a in range(0, len(texts), 200):
        for doc_id, raw, digest, kind in store.select_in(
                "SELECT doc_id, CAST(text AS BLOB), sha256, typeof(text) FROM texts WHERE doc_id IN ({})"
                if store.text_digests else "SELECT doc_id, NULL, NULL, typeof(text) FROM texts WHERE doc_id IN ({})",
                texts[a : a + 200]):
            if kind != "text":
                found.append(f"document {doc_id}: the stored text is stored as {kind}, not as text")
            elif digest is not None and hashlib.sha256(bytes(raw or b"")).hexdigest() != digest:
                found.append(f"document {doc_id}: the stored text does not match its recorded sha256")
    if not found:
        return
    name = store.reads.name
    store.reads = None
    require_intact(store, name)  # names the rows and documents
    raise StoreDamaged(f"{name} is damaged, so nothing computed from it could be defended: "
                       f"{'; '.join(found[:_SHOWN])}. Run `auditor check --db {name}` for the full list")


def _integrity(store: Store, r: CheckResult, quick: bool) -> None:
    pragma = "quick_check" if quick else "integrity_check"
    rows = [str(x[0]) for x in store.conn.execute(f"PRAGMA {pragma}")]
    if rows != ["ok"]:
        r.problems += [Problem("integrity", f"{pragma}: {row}") for row in rows]


def _references(store: Store, r: CheckResult) -> None:
    for table, rowid, parent, _ in store.conn.execute("PRAGMA foreign_key_check"):
        r.problems.append(Problem("reference", f"{table} row {rowid} refers to a missing {parent} row"))
    for doc_id, in store.conn.execute(
            "SELECT doc_id FROM texts WHERE doc_id NOT IN (SELECT id FROM documents) ORDER BY doc_id"):
        r.problems.append(Problem("orphan", "a stored text without its document", doc_id))
    for doc_id, in store.conn.execute(
            "SELECT doc_id FROM index_docs WHERE doc_id NOT IN (SELECT id FROM documents) ORDER BY doc_id"):
        r.problems.append(Problem("orphan", "an index row without its document", doc_id))


def _paths(store: Store) -> dict[int, str]:
    return {int(i): str(p) for i, p in store.conn.execute("SELECT id, path FROM documents")}


def _texts(store: Store, r: CheckResult, paths: dict[int, str]) -> None:
    has_digest = store.text_digests
    for doc_id, in store.conn.execute(
            "SELECT id FROM documents WHERE id NOT IN (SELECT doc_id FROM texts) ORDER BY id"):
        r.problems.append(Problem("missing_text", "the document has no stored text", doc_id, paths.get(doc_id)))
    digest_col = "t.sha256" if has_digest else "NULL"
    for doc_id, raw, digest, n_chars, kind in store.conn.execute(
            f"SELECT t.doc_id, CAST(t.text AS BLOB), {digest_col}, d.n_chars, typeof(t.text) FROM texts t"
            " JOIN documents d ON d.id = t.doc_id ORDER BY t.doc_id"):
        raw = bytes(raw or b"")
        path = paths.get(doc_id)
        if kind != "text":  # the same bytes as a BLOB read back as another text (Python's repr of bytes)
            r.problems.append(Problem("text_encoding", f"the stored text is stored as {kind}, not as text: it was "
                                      "altered after it was stored", doc_id, path))
            continue
        if digest is None:
            r.no_digest += 1
        else:
            r.texts += 1
            if hashlib.sha256(raw).hexdigest() != digest:
                r.problems.append(Problem("text_digest", "the stored text does not match its recorded sha256 "
                                          f"{str(digest)[:16]}...: it was altered after it was stored",
                                          doc_id, path))
                continue
        try:
            n = len(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            r.problems.append(Problem("text_encoding", f"the stored text is not valid UTF-8 ({e.reason} at byte {e.start})",
                                      doc_id, path))
            continue
        if n != n_chars:
            r.problems.append(Problem("text_length", f"the stored text has {n} characters; the document "
                                      f"records {n_chars}", doc_id, path))


def require_run_intact(store: Store, run: int) -> None:
    """Raise StoreDamaged when the pairs and documents stored for run ``run`` (``runs.id``) are not
    those it recorded (what an assembly reads from it)."""
    from auditor.store.custody.runs import problem

    why = problem(store.conn, run)
    if why:
        raise StoreDamaged(f"{store.path} is damaged, so nothing made from this run could be defended: {why}. "
                           f"Run `auditor check --db {store.path}`, and audit again")


def _runs(store: Store, r: CheckResult) -> None:
    from auditor.store.custody.runs import problem

    if "contents" not in {c[1] for c in store.conn.execute("PRAGMA table_info(runs)")}:
        return
    unrecorded = 0
    for run, contents in store.conn.execute("SELECT id, contents FROM runs ORDER BY id"):
        if contents is None:
            unrecorded += 1
        elif why := problem(store.conn, int(run)):
            r.problems.append(Problem("custody", why))
    if unrecorded:
        r.notes.append(f"{unrecorded} runs from before the custody log record no digest of their pairs: "
                       "they are not checked")


def _withdrawals(store: Store, r: CheckResult, paths: dict[int, str]) -> None:
    """A document is withdrawn exactly when its last withdrawal record withdraws it, with the same
    time and reason: ``withdrawn_at`` set (or cleared) by hand would take a document out of (or
    back into) every audit and gate with nobody named."""
    for doc_id, at, reason, action, w_at, w_reason in store.conn.execute(
            "SELECT d.id, d.withdrawn_at, d.withdrawn_reason, w.action, w.at, w.reason FROM documents d"
            " LEFT JOIN withdrawals w ON w.id = (SELECT max(id) FROM withdrawals WHERE doc_id = d.id)"
            " WHERE d.withdrawn_at IS NOT NULL OR w.action = 'withdrawn' ORDER BY d.id"):
        if at is not None and action != "withdrawn":
            what = ("the document is withdrawn, but no withdrawal record says who withdrew it, when or why"
                    if action is None else "the document is withdrawn, but its last withdrawal record restored it")
        elif at is None:
            what = "its last withdrawal record withdrew it, but the document is in the corpus: restored by hand"
        elif (at, reason) != (w_at, w_reason):
            what = (f"the document's withdrawal ({at}, {reason!r}) is not what its withdrawal record says "
                    f"({w_at}, {w_reason!r})")
        else:
            continue
        r.problems.append(Problem("withdrawal", what, int(doc_id), paths.get(int(doc_id))))


def _custody(store: Store, r: CheckResult, paths: dict[int, str], quick: bool) -> None:
    from auditor.store import custody

    outcome = custody.check_quick(store.conn) if quick else custody.check_full(store.conn)
    if not outcome.present:
        r.notes.append("this store keeps no custody log yet (it is opened read-only with a schema older than "
                       "migration 0009: open it once with write access)")
        return
    r.custody, r.entries = outcome.head, outcome.entries
    for f in outcome.findings:
        r.problems.append(Problem("custody", f.detail, f.doc_id, paths.get(f.doc_id) if f.doc_id is not None else None))


def _index(store: Store, r: CheckResult, paths: dict[int, str]) -> None:
    from auditor.text.entry import prepare_text
    from auditor.text.shingle import HASH_NAME, Params, WordHasher

    params = store.params
    code = Params(k=params.k, modulus=params.modulus, seed=params.seed)
    if (params.hash, params.normalization) != (code.hash, code.normalization):
        r.problems.append(Problem(
            "index", f"the index was built with hash {params.hash} and normalisation {params.normalization}; "
            f"this auditor has {HASH_NAME} and {code.normalization}, so its rows cannot be derived again: "
            "run `auditor index --rebuild`"))
        return
    damaged = {p.doc_id for p in r.problems if p.kind in _TEXT_KINDS}
    hasher = WordHasher(params.seed)
    sequences = bool(store.scalar("SELECT 1 FROM sqlite_master WHERE name = 'shingle_sequences'"))
    rows = store.conn.execute(
        "SELECT d.id, d.n_words, d.norm_sha256, i.n_words, i.n_shingles, i.n_sampled, i.sampled,"
        " CAST(t.text AS BLOB), " + ("s.data" if sequences else "NULL") + " FROM documents d"
        " JOIN texts t ON t.doc_id = d.id LEFT JOIN index_docs i ON i.doc_id = d.id"
        + (" LEFT JOIN shingle_sequences s ON s.doc_id = d.id" if sequences else "") + " ORDER BY d.id")
    for doc_id, n_words, norm, i_words, i_shingles, i_sampled, sampled, raw, sequence in rows:
        if doc_id in damaged:  # its text is already reported; deriving from it proves nothing
            continue
        path = paths.get(doc_id)
        text = bytes(raw or b"").decode("utf-8")
        derived = prepare_text(text, params, hasher, fingerprint=True)
        if derived["n_words"] != n_words:
            r.problems.append(Problem("index", f"the text has {derived['n_words']} words; the document records "
                                      f"{n_words}", doc_id, path))
        if (norm or None) != derived["norm_sha256"]:
            r.problems.append(Problem("index", "the normalised text's fingerprint differs from the document's "
                                      "norm_sha256", doc_id, path))
        if i_words is None:
            continue  # not indexed yet: `auditor index` adds it; nothing wrong
        r.indexed += 1
        if (i_words, i_shingles) != (derived["n_words"], derived["n_shingles"]):
            r.problems.append(Problem("index", f"index row counts ({i_words} words, {i_shingles} shingles) differ "
                                      f"from the text's ({derived['n_words']}, {derived['n_shingles']})", doc_id, path))
        elif bytes(sampled) != derived["sampled"] or i_sampled * 8 != len(bytes(sampled)):
            r.problems.append(Problem("index", "the sampled shingle hashes differ from those derived from "
                                      "the text under the stored parameters", doc_id, path))
        if sequence is not None and bytes(sequence) != derived["sequence"]:
            r.problems.append(Problem("index", "the stored word sequence differs from the one derived from the "
                                      "text under the stored parameters", doc_id, path))
