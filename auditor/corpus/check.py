"""Is the store still what the auditor wrote? ``auditor check``, and the part audit and gate run first.

SQLite's ``integrity_check`` proves the file's structure, not its content: a text altered by an
``UPDATE`` behind the store's back, or bytes flipped inside a record, pass it. Every write of the
tool is recorded in the custody log (:mod:`auditor.store.custody`), whose entries are chained by
their hashes, and every text and word sequence carries the sha256 of its content, which the
store checks whenever one is read (``Store.texts_of``). docs/custody.md states what each check
proves. The full check (:func:`check_store`):

* ``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check``;
* every stored text and word sequence against its digest, and every text against the
  document's character count;
* every document has a text row, and every text, index row and sighting has a document;
* every index row equals what :func:`auditor.text.entry.prepare_text` derives from the text under the
  stored parameters (word and shingle counts, the sampled hashes, the stored word sequence the
  audit reads instead of the text), and the normalised-text fingerprint matches the document's;
* every withdrawn document has the withdrawal record that says who withdrew it, when and why;
* the custody log replayed from its first entry (each entry's hash, its link to the one before,
  its changes and the state it records), and every tracked row against what the log says it
  holds: an edit behind the tool's back names the first bad entry and the rows and documents.

The quick check (:func:`require_intact`, called before every audit and assembly) is ``PRAGMA
quick_check``, the text digests, the missing-text and withdrawal tests, and the custody log's
quick check (the entries since the last checkpoint, the live state against the state the head
records, and the row digests kept with the log against the live rows); it raises
:class:`~auditor.errors.StoreDamaged` naming the entries and documents, and returns the log's
head, which reports record.

The gate's check (:func:`require_intact_for_gate`) grows with what the gate reads, not with the
store: the entries since the checkpoint; then, when the store's edit counter says that no
tracked row and no row digest was changed since the last entry but by this tool's writes
(persistent triggers count every change by any SQLite client with triggers on;
``custody.unedited``), nothing more; else the log's row digests (``custody_rows``) against the
state the head records and every tracked row but the texts and word sequences against those
digests. The texts and word sequences themselves are checked by the store as they are read, by
the gate or any other reader. Any mismatch falls back to the quick check, which names the rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor.errors import StoreDamaged
from auditor.store.db import Store

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
    texts: int = 0  # texts checked against their digest
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
        parts = [f"{self.texts} texts match their digests" if self.ok else f"{self.texts} texts checked"]
        if not self.quick:
            parts.append(f"{self.indexed} index rows derived again")
        if self.custody:
            n = f"{self.entries} entr{'y' if self.entries == 1 else 'ies'}"
            parts.append(f"custody log: {n} {'since the last checkpoint ' if self.quick else ''}verified, "
                         f"head entry {self.custody['seq']} (hash {self.custody['hash']})")
        return f"{head}: " + "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "quick": self.quick, "texts": self.texts,
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
            _postings(store, r, paths)
    except sqlite3.DatabaseError as e:
        r.problems.append(Problem("integrity", f"SQLite cannot read the store: {e}"))
    return r


def require_intact(store: Store, name: Path | None = None) -> dict[str, Any] | None:
    """The quick check; raises StoreDamaged when it finds anything. Returns the custody log's
    head it verified. ``name``: the store to name in the message (the user's, when ``store`` is
    a gate's throwaway copy of it)."""
    from auditor.store import custody

    before = custody.edit_count(store.conn)
    r = check_store(store, quick=True)
    if r.ok:
        plan = getattr(store, "custody", None)
        if (plan is not None and before is not None and not store.conn.in_transaction
                and custody.edit_count(store.conn) == before):
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
"""The tracked tables the store checks row by row as they are read (the bulk of a store: every
text and word sequence); the gate checks every other tracked row before its batch is ingested."""


def require_intact_for_gate(store: Store, name: Path | None = None) -> dict[str, Any] | None:
    """The gate's check before it writes (see the module docstring). A store whose check finds
    anything gets the quick check, whose message names the rows. Returns the custody head
    verified."""
    from auditor.store import custody

    with store.snapshot():
        # nothing changed since the last entry but through entries: custody_rows and every row the
        # gate reads are as the log left them; else each is checked
        unedited = custody.unedited(store.conn)
        outcome = custody.check_rows(store.conn, kept=not unedited)
        r = CheckResult(quick=True)
        _withdrawals(store, r, _paths(store))
        whole = {} if unedited else {t.table: None for t in custody.TRACKED if t.table not in READ_BY_KEY}
        if outcome.present and outcome.ok and r.ok and not custody.differing(store.conn, whole):
            return outcome.head
    return require_intact(store, name)


def _integrity(store: Store, r: CheckResult, quick: bool) -> None:
    pragma = "quick_check" if quick else "integrity_check"
    rows = [str(x[0]) for x in store.conn.execute(f"PRAGMA {pragma}")]
    if rows != ["ok"]:
        r.problems += [Problem("integrity", f"{pragma}: {row}") for row in rows]


def _references(store: Store, r: CheckResult) -> None:
    for table, rowid, parent, _ in store.conn.execute("PRAGMA foreign_key_check"):
        r.problems.append(Problem("reference", f"{table} row {rowid} refers to a missing {parent} row"))
    documents = {int(i) for i, in store.conn.execute("SELECT id FROM documents")}
    for doc_id in store.with_text():
        if doc_id not in documents:
            r.problems.append(Problem("orphan", "a stored text without its document", doc_id))
    for doc_id, in store.conn.execute(
            "SELECT doc_id FROM index_docs WHERE doc_id NOT IN (SELECT id FROM documents) ORDER BY doc_id"):
        r.problems.append(Problem("orphan", "an index row without its document", doc_id))


def _paths(store: Store) -> dict[int, str]:
    return {int(i): str(p) for i, p in store.conn.execute("SELECT id, path FROM documents")}


def _texts(store: Store, r: CheckResult, paths: dict[int, str]) -> None:
    have = set(store.with_text())
    for doc_id, in store.conn.execute("SELECT id FROM documents ORDER BY id"):
        if doc_id not in have:
            r.problems.append(Problem("missing_text", "the document has no stored text", doc_id, paths.get(doc_id)))
    n_chars = dict(store.conn.execute("SELECT id, n_chars FROM documents").fetchall())
    for row in store.inspect("texts"):
        path = paths.get(row.doc_id)
        if row.content is None:
            kind = "text_encoding" if "stored as" in str(row.problem) else "text_digest"
            r.problems.append(Problem(kind, str(row.problem), row.doc_id, path))
            continue
        r.texts += 1
        n = len(row.content.decode("utf-8", "surrogatepass"))
        if row.doc_id in n_chars and n != n_chars[row.doc_id]:
            r.problems.append(Problem("text_length", f"the stored text has {n} characters; the document "
                                      f"records {n_chars[row.doc_id]}", row.doc_id, path))


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

    for run, in store.conn.execute("SELECT id FROM runs ORDER BY id"):
        if why := problem(store.conn, int(run)):
            r.problems.append(Problem("custody", why))


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
        r.problems.append(Problem("custody", "the store keeps no custody log: its tables were dropped"))
        return
    r.custody, r.entries = outcome.head, outcome.entries
    for f in outcome.findings:
        r.problems.append(Problem("custody", f.detail, f.doc_id, paths.get(f.doc_id) if f.doc_id is not None else None))


def _index(store: Store, r: CheckResult, paths: dict[int, str]) -> None:
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
    rows = store.conn.execute(
        "SELECT d.id, d.n_words, d.norm_sha256, i.n_words, i.n_shingles, i.n_sampled, i.sampled FROM documents d"
        " LEFT JOIN index_docs i ON i.doc_id = d.id ORDER BY d.id").fetchall()
    for a in range(0, len(rows), 200):
        part = rows[a : a + 200]
        ids = [row[0] for row in part]
        texts = {t.doc_id: t for t in store.inspect("texts", ids)}
        sequences = {q.doc_id: q for q in store.inspect("shingle_sequences", ids)}
        for doc_id, n_words, norm, i_words, i_shingles, i_sampled, sampled in part:
            stored = texts.get(doc_id)
            if doc_id in damaged or stored is None or stored.content is None:
                continue  # its text is reported already; deriving from it proves nothing
            _index_row(r, paths.get(doc_id), doc_id, stored.content.decode("utf-8", "surrogatepass"), params,
                       hasher, (n_words, norm, i_words, i_shingles, i_sampled, sampled), sequences.get(doc_id))


def _index_row(r: CheckResult, path: str | None, doc_id: int, text: str, params: Any, hasher: Any,
               row: tuple, sequence: Any) -> None:
    from auditor.text.entry import prepare_text

    n_words, norm, i_words, i_shingles, i_sampled, sampled = row
    derived = prepare_text(text, params, hasher, fingerprint=True)
    if derived["n_words"] != n_words:
        r.problems.append(Problem("index", f"the text has {derived['n_words']} words; the document records "
                                  f"{n_words}", doc_id, path))
    if (norm or None) != derived["norm_sha256"]:
        r.problems.append(Problem("index", "the normalised text's fingerprint differs from the document's "
                                  "norm_sha256", doc_id, path))
    if i_words is None:
        return  # not indexed yet: `auditor index` adds it; nothing wrong
    r.indexed += 1
    if (i_words, i_shingles) != (derived["n_words"], derived["n_shingles"]):
        r.problems.append(Problem("index", f"index row counts ({i_words} words, {i_shingles} shingles) differ "
                                  f"from the text's ({derived['n_words']}, {derived['n_shingles']})", doc_id, path))
    elif bytes(sampled) != derived["sampled"] or i_sampled * 8 != len(bytes(sampled)):
        r.problems.append(Problem("index", "the sampled shingle hashes differ from those derived from "
                                  "the text under the stored parameters", doc_id, path))
    if sequence is not None and sequence.content is None:
        r.problems.append(Problem("index", str(sequence.problem), doc_id, path))
    elif sequence is not None and sequence.content != derived["sequence"]:
        r.problems.append(Problem("index", "the stored word sequence differs from the one derived from the "
                                  "text under the stored parameters", doc_id, path))


def _postings(store: Store, r: CheckResult, paths: dict[int, str]) -> None:
    """The postings keyed by hash against the index rows they are derived from: each posted
    document's sampled hashes, no more and no fewer, and none of a document not posted yet."""
    import numpy as np

    docs, hashes = [], []
    for doc_id, blob in store.conn.execute(
            "SELECT doc_id, sampled FROM index_docs WHERE doc_id IN (SELECT doc_id FROM posted)"):
        h = np.frombuffer(bytes(blob), dtype="<i8")
        hashes.append(h)
        docs.append(np.full(len(h), int(doc_id), np.int64))
    want_d = np.concatenate(docs) if docs else np.empty(0, np.int64)
    want_h = np.concatenate(hashes) if hashes else np.empty(0, np.int64)
    rows = store.conn.execute("SELECT doc_id, hash FROM postings").fetchall()
    have_d = np.array([d for d, _ in rows], dtype=np.int64)
    have_h = np.array([h for _, h in rows], dtype=np.int64)
    del rows
    a, b = np.lexsort((want_h, want_d)), np.lexsort((have_h, have_d))
    want_d, want_h, have_d, have_h = want_d[a], want_h[a], have_d[b], have_h[b]
    if len(want_d) == len(have_d) and np.array_equal(want_d, have_d) and np.array_equal(want_h, have_h):
        return
    top = int(max(want_d.max(initial=0), have_d.max(initial=0))) + 1
    bad = set(np.flatnonzero(np.bincount(want_d, minlength=top) != np.bincount(have_d, minlength=top)).tolist())
    if len(want_d) == len(have_d):
        bad |= set(want_d[(want_d != have_d) | (want_h != have_h)].tolist())
    for doc_id in sorted(bad):
        r.problems.append(Problem("index", "the postings keyed by hash are not the document's sampled hashes (its "
                                  "index row): a gate reads them", doc_id, paths.get(doc_id)))
