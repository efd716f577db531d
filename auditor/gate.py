"""The CI gate: admit a new batch of documents only if none of them is contained in, contains,
or duplicates a document of the corpus (or of the batch).

``run_gate`` ingests the batch (into the store, or with ``dry_run`` into a throwaway copy made
with SQLite's backup API, so the corpus file is never touched), runs the audit job for the
batch (controls first: a gate whose controls fail never passes), classifies every finding that
involves a new document, applies the baseline, and writes the CI artefacts: a Markdown summary
(also appended to ``$GITHUB_STEP_SUMMARY``), JUnit XML, SARIF 2.1.0, ``gate.json`` beside the
audit report, and GitHub workflow annotations for the CLI to print.

*New documents* are the batch's sightings of this run's input files: a file stored now, or
sighted now at a new path (identical bytes known elsewhere), or, on a re-run of the same batch,
sighted by this batch before, plus the EDGAR parts of those files. A file already stored at the
same path by an earlier batch is part of the corpus, so re-gating a whole directory only gates
what changed.

A change also *withdraws* corpus documents: the earlier version of a file the batch revises in
place (a new document at the same path), and documents at paths the change deletes or renames
away (``deleted``). A corpus document seen only at such paths is not compared with the batch:
an edited contract is not a duplicate of the version it replaces, nor a moved file of itself.

Finding kinds (``--fail-on`` chooses which fail; the others are warnings):

==============  ==========  ===================================================================
kind            rule        meaning
==============  ==========  ===================================================================
new-in-corpus   CONTAIN001  a new document is contained (>= threshold) in a corpus document
corpus-in-new   CONTAIN002  a corpus document is contained in a new document
exact-duplicate CONTAIN003  a new document's bytes or normalised text are already in the corpus
within-batch    CONTAIN004  a new document is contained in, or identical to, another new one
ingest-error    CONTAIN005  an input (or an EDGAR part) could not be turned into text
not-auditable   CONTAIN006  a new document's text could not be audited (no shingle, unreadable
                            text such as (cid:N) glyphs or gibberish, or a skipped EDGAR part)
==============  ==========  ===================================================================

Exit codes: 0 no failing finding; 1 failing findings (or ingest errors); 2 usage, input or store
error, failed controls, or nothing could be ingested at all (no input file, or every one failed).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from auditor import __version__, edgar
from auditor.audit import AuditResult, describe, locate_pairs
from auditor.check import require_intact
from auditor.console import clean
from auditor.edgar import submission_fields
from auditor.errors import AuditorError, ControlsFailed, StoreError, UsageError
from auditor.extract import Limits
from auditor.ingest import BatchResult, ingest, sha256_file
from auditor.render.as_markdown import _cell_code, _md, _md_table
from auditor.render.model import _visible
from auditor.store import Store, connect, writable_location

# -- rules ------------------------------------------------------------------------------------

KINDS = ("new-in-corpus", "corpus-in-new", "exact-duplicate", "within-batch", "ingest-error", "not-auditable")
INPUT_KINDS = ("ingest-error", "not-auditable")  # about one input alone: no other document
RULES: dict[str, dict[str, str]] = {
    "new-in-corpus": {
        "id": "CONTAIN001", "name": "NewDocumentContainedInCorpus",
        "short": "A new document is contained in a corpus document",
        "full": "At least the threshold share of the new document's 5-word shingles occur in a "
                "document already in the corpus: the new document adds (almost) nothing.",
    },
    "corpus-in-new": {
        "id": "CONTAIN002", "name": "CorpusDocumentContainedInNew",
        "short": "A corpus document is contained in a new document",
        "full": "At least the threshold share of a corpus document's 5-word shingles occur in "
                "the new document: the new document embeds an existing one (an exhibit, a form).",
    },
    "exact-duplicate": {
        "id": "CONTAIN003", "name": "ExactDuplicateOfCorpus",
        "short": "A new document is an exact duplicate of a corpus document",
        "full": "The new document's raw bytes, or its normalised text, are already in the corpus.",
    },
    "within-batch": {
        "id": "CONTAIN004", "name": "ContainedWithinBatch",
        "short": "A new document is contained in or duplicates another new document",
        "full": "Two documents of the same new batch: one is contained in the other at the "
                "threshold, or both have the same bytes or normalised text.",
    },
    "ingest-error": {
        "id": "CONTAIN005", "name": "InputNotIngested",
        "short": "An input could not be ingested",
        "full": "The input (or a part of an EDGAR submission) could not be turned into text, so "
                "it was not gated: a corrupt, encrypted or empty file, or one over a limit.",
    },
    "not-auditable": {
        "id": "CONTAIN006", "name": "NewDocumentNotAuditable",
        "short": "A new document could not be audited",
        "full": "Text was stored but cannot be compared with the corpus: too short to have a "
                "shingle, unreadable (unmapped (cid:N) glyphs, letter-spaced fragments, gibberish "
                "after decoding, content after a DOCTYPE entity), or an EDGAR part the ingest "
                "skipped (an image, a spreadsheet). The gate fails closed: what it cannot read "
                "it cannot vouch for.",
    },
}
RULE_IDS = {k: v["id"] for k, v in RULES.items()}
KIND_OF = {v["id"]: k for k, v in RULES.items()}

EXIT_PASS, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
STEP_SUMMARY_CAP = 1024 * 1024  # GitHub's limit for one step's summary
EXCERPT_CHARS = 400
MAX_ANNOTATIONS = 10  # GitHub keeps at most 10 error and 10 warning annotations per step
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "containmentPair/v1"
GATE_FORMAT = "containment-auditor-gate/1"
BASELINE_VERSION = 1


class NothingToGate(AuditorError):
    "No input file yielded a document: nothing was gated, so the gate cannot pass"


class GateCrashed(AuditorError):
    "An unexpected internal error: exit 2, never 1, so a crash cannot pass for findings"


def parse_fail_on(text: str) -> frozenset[str]:
    """Kinds from a comma list of kind names or rule ids; ``all`` and ``none`` as words."""
    out: set[str] = set()
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        if item.lower() == "all":
            out.update(KINDS)
        elif item.lower() == "none":
            continue
        elif item.lower() in RULES:
            out.add(item.lower())
        elif item.upper() in KIND_OF:
            out.add(KIND_OF[item.upper()])
        else:
            raise UsageError(f"--fail-on: unknown kind {item!r}; expected a comma list of "
                             f"{', '.join(KINDS)} (or rule ids, 'all', 'none')")
    return frozenset(out)


# -- findings ---------------------------------------------------------------------------------

@dataclass
class Finding:
    """One gate finding. ``new`` is the batch's side and where the finding is shown."""

    kind: str
    new: dict[str, Any]  # provenance of the new document (path as sighted in this batch)
    other: dict[str, Any] | None  # the corpus (or other new) document; None for ingest errors
    new_is_contained: bool = True
    containment: float | None = None
    match: str = "containment"  # containment | identical bytes | identical normalised text | not ingested
    spans: list[dict[str, Any]] = field(default_factory=list)
    excerpt: str | None = None  # of the container, at the main span
    other_members: list[str] = field(default_factory=list)  # further counterparts, the best first
    also: int = 0  # how many further counterparts there are
    file: str = ""  # the new document's file as given (an EDGAR part: its submission)
    uri: str = ""
    region: dict[str, int] = field(default_factory=lambda: {"startLine": 1})
    level: str = "error"  # error | warning | baselined
    baseline_reason: str | None = None

    @property
    def rule(self) -> str:
        return RULE_IDS[self.kind]

    @property
    def contained(self) -> dict[str, Any]:
        return self.new if self.new_is_contained or self.other is None else self.other

    @property
    def container(self) -> dict[str, Any] | None:
        return self.other if self.new_is_contained else self.new

    @property
    def key(self) -> tuple[str, str, str]:
        """Baseline key: the rule and the content hashes of both documents, never paths."""
        c = self.container
        return self.rule, str(self.contained.get("sha256") or ""), str((c or {}).get("sha256") or "")

    @property
    def fingerprint(self) -> str:
        rule, a, b = self.key
        extra = "" if a else f"\0{self.new['path']}"  # an unreadable input has no content hash
        return hashlib.sha256(f"{rule}\0{a}\0{b}{extra}".encode()).hexdigest()

    @property
    def title(self) -> str:
        return f"{self.kind}: {self.new['path']}"

    def sentence(self, full_sha: bool = False) -> str:
        """What was found, naming both documents with their provenance."""
        new = doc_label(self.new, full_sha)
        if self.kind == "ingest-error":
            return f"{new} could not be ingested: {self.new.get('code')}: {self.new.get('message')}"
        if self.kind == "not-auditable":
            return f"{new} could not be audited: {self.new.get('code')}: {self.new.get('message')}"
        assert self.other is not None
        other = doc_label(self.other, full_sha)
        pct = f"{self.containment:.4f}" if self.containment is not None else "?"
        where = "also in this batch" if self.kind == "within-batch" else "in the corpus"
        if self.match != "containment":
            return f"{new} has the {self.match.removeprefix('identical ')} of {other}, {where}"
        more = f" and in {self.also} more document{'s' if self.also != 1 else ''}" if self.also else ""
        if self.new_is_contained:
            return f"{new} is contained ({pct}) in {other}, {where}{more}"
        more = f"; it contains {self.also} more document{'s' if self.also != 1 else ''}" if self.also else ""
        return f"{new} contains {other}, {where} ({pct} of it){more}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "rule": self.rule, "level": self.level,
            "new": self.new, "other": self.other, "new_is_contained": self.new_is_contained,
            "contained_sha256": self.key[1], "container_sha256": self.key[2] or None,
            "containment": self.containment, "match": self.match, "spans": self.spans,
            "location": {"file": self.file, "uri": self.uri, "region": self.region},
            "fingerprint": self.fingerprint, "baseline_reason": self.baseline_reason,
            "also": self.also, "also_named": self.other_members,
            "message": self.sentence(full_sha=True),
        }


def doc_label(p: dict[str, Any], full_sha: bool = False) -> str:
    """``path (sha256 ..., EDGAR accession form, part sequence type filename)``."""
    sha = str(p.get("sha256") or "")
    bits = [f"sha256 {sha if full_sha else sha[:12]}" if sha else "no content hash"]
    e = p.get("edgar")
    if e:
        sub, part = e.get("submission") or {}, e.get("part") or {}
        about = ", ".join(str(x) for x in (sub.get("form_type"), sub.get("company_name"),
                                            f"filed {sub.get('filing_date')}" if sub.get("filing_date") else None) if x)
        bits.append(f"EDGAR {sub.get('accession_number')}" + (f" ({about})" if about else "") + " part "
                    + " ".join(str(x) for x in (part.get("sequence"), part.get("type"), part.get("filename")) if x))
    return f"{_visible(p.get('path'))} ({'; '.join(bits)})"


def classify_pair(contained_new: bool, container_new: bool) -> str | None:
    """The kind of a containment finding from which side is new (None: corpus-only pair)."""
    if contained_new and container_new:
        return "within-batch"
    if contained_new:
        return "new-in-corpus"
    if container_new:
        return "corpus-in-new"
    return None


def apply_levels(findings: list[Finding], fail_on: frozenset[str],
                 baseline: dict[tuple[str, str, str], str]) -> None:
    """error (fails the gate), warning (kind not in --fail-on) or baselined (accepted)."""
    for f in findings:
        reason = baseline.get(f.key) if f.key[1] else None
        if reason is not None:
            f.level, f.baseline_reason = "baselined", reason
        else:
            f.level, f.baseline_reason = ("error" if f.kind in fail_on else "warning"), None


def exit_code(status: str) -> int:
    return {"PASSED": EXIT_PASS, "FAILED": EXIT_FINDINGS}.get(status, EXIT_ERROR)


# -- escaping ---------------------------------------------------------------------------------

def escape_data(s: str) -> str:
    """Workflow-command message text: ``%``, CR and LF are percent-encoded, and every other
    control or bidi character made visible (a log viewer would act on ESC, BEL or U+202E)."""
    return clean(s, keep="\r\n").replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    """Workflow-command property values: as data, plus ``:`` and ``,``."""
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _xml_text(s: Any) -> str:
    """Text a strict XML 1.0 parser accepts and a reader sees as it is: control, bidi and other
    format characters, lone surrogates and U+FFFE/U+FFFF made visible (``\\x1b``,
    ``\\u202e``); line breaks kept."""
    return clean(s, keep_newlines=True)


def relative_path(path: str, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when it lies under it, with forward slashes."""
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.resolve().relative_to(cwd.resolve())
        except ValueError:
            return p.as_posix()
    return p.as_posix().removeprefix("./")


def artifact_uri(path: str, cwd: Path) -> str:
    """A SARIF artifact URI: relative to the working directory when possible, percent-encoded."""
    rel = relative_path(path, cwd)
    if Path(rel).is_absolute():
        return Path(rel).as_uri()
    return quote(rel, safe="/")


# -- baseline ---------------------------------------------------------------------------------

def load_baseline(path: Path, *, missing_ok: bool = False) -> list[dict[str, Any]]:
    """Entries of a baseline file, validated: every entry needs a rule, both hashes and a reason."""
    if not path.exists():
        if missing_ok:
            return []
        raise UsageError(f"baseline {path} does not exist (create it with --update-baseline)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read baseline {path}: {e}") from e
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION:
        raise UsageError(f"baseline {path}: expected a JSON object with \"version\": {BASELINE_VERSION}")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise UsageError(f"baseline {path}: \"entries\" must be a list")
    out = []
    for i, entry in enumerate(entries):
        where = f"baseline {path}, entry {i}"
        if not isinstance(entry, dict):
            raise UsageError(f"{where}: not an object")
        rule = str(entry.get("rule") or "")
        rule = RULE_IDS.get(rule.lower(), rule.upper())
        if rule not in KIND_OF:
            raise UsageError(f"{where}: unknown rule {entry.get('rule')!r}; expected one of {', '.join(KIND_OF)}")
        a, b = entry.get("contained_sha256"), entry.get("container_sha256")
        if not _is_sha(a) or not (_is_sha(b) or (KIND_OF[rule] in INPUT_KINDS and not b)):
            raise UsageError(f"{where}: contained_sha256 and container_sha256 must be sha256 hex digests")
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise UsageError(f"{where}: every entry needs a non-empty \"reason\" (why the finding is accepted)")
        out.append({**entry, "rule": rule, "contained_sha256": str(a).lower(),
                    "container_sha256": str(b or "").lower()})
    return out


def _is_sha(x: Any) -> bool:
    return isinstance(x, str) and re.fullmatch(r"[0-9a-fA-F]{64}", x) is not None


def baseline_key(e: dict[str, Any]) -> tuple[str, str, str]:
    return str(e["rule"]), str(e["contained_sha256"]), str(e.get("container_sha256") or "")


def baseline_index(entries: Iterable[dict[str, Any]]) -> dict[tuple[str, str, str], str]:
    out: dict[tuple[str, str, str], str] = {}
    for e in entries:
        out.setdefault(baseline_key(e), str(e["reason"]))
    return out


def merge_baseline(entries: list[dict[str, Any]], findings: Iterable[Finding],
                   reason: str) -> tuple[list[dict[str, Any]], int]:
    """Existing entries (untouched) plus one for each finding not yet in them, sorted.

    Sorting by key and never rewriting an existing entry keeps the file byte-identical when
    nothing new was accepted, so committing it causes no churn.
    """
    have = {baseline_key(e) for e in entries}
    merged = list(entries)
    added = 0
    for f in findings:
        if not f.key[1] or f.key in have:
            continue  # an input that could not even be read has no content to key on
        have.add(f.key)
        c = f.container
        merged.append({
            "rule": f.rule, "kind": f.kind,
            "contained_sha256": f.key[1], "container_sha256": f.key[2],
            "contained_path": str(f.contained.get("path") or ""),
            "container_path": str((c or {}).get("path") or ""),
            "reason": reason,
        })
        added += 1
    merged.sort(key=lambda e: (*baseline_key(e), str(e.get("contained_path", "")), str(e.get("container_path", ""))))
    return merged, added


def dump_baseline(entries: list[dict[str, Any]]) -> str:
    return json.dumps({"version": BASELINE_VERSION, "entries": entries}, indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"


def write_baseline(path: Path, entries: list[dict[str, Any]]) -> bool:
    """Write the baseline if its text changed; True when it did."""
    text = dump_baseline(entries)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return True


def stale_entries(store: Store, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries naming a document (or failed input) that the store no longer holds."""
    def known(sha: str, failures: bool) -> bool:
        if store.scalar("SELECT 1 FROM documents WHERE sha256 = ?", (sha,)):
            return True
        return bool(failures and store.scalar("SELECT 1 FROM failures WHERE sha256 = ?", (sha,)))

    out = []
    for e in entries:
        rule, a, b = baseline_key(e)
        if not known(a, KIND_OF[rule] in INPUT_KINDS) or (b and not known(b, False)):
            out.append(e)
    return out


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
    """The store itself, or with ``dry_run`` a throwaway copy of it."""
    if not dry_run:
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


def _seq_key(part: str) -> tuple[int, str]:
    return (int(part), "") if part.isdigit() else (1 << 30, part)


def batch_view(store: Store, result: BatchResult) -> BatchView:
    """Read back from the store what this run's inputs are: new, failed, skipped or known."""
    batch_id = int(store.scalar("SELECT id FROM batches WHERE name = ?", (result.batch,)))
    names = dict(store.conn.execute("SELECT id, name FROM batches").fetchall())
    # what a gate that did not pass stored is not corpus: it is gated again, whatever the batch
    ungated = {batch_id} | {r[0] for r in store.conn.execute(
        "SELECT id FROM batches WHERE status IN ('gate-failed', 'gating')")}

    def sighting(row: tuple) -> Sighting:
        return Sighting(int(row[0]), row[1], row[2], row[3], row[4], json.loads(row[5] or "{}"), names.get(row[6], ""))

    cols = "doc_id, path, resolved, part, within_id, meta, batch_id"
    sightings: list[Sighting] = []
    errors: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
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
                if row and row[2] in ungated:
                    errors.append({"path": o.path, "part": "", "code": row[0], "message": row[1], "sha256": sha})
                else:
                    known.append(o.path)
            continue
        row = store.conn.execute(
            f"SELECT {cols} FROM sightings WHERE doc_id = ? AND resolved = ? AND part = ''",
            (o.doc_id, resolved),
        ).fetchone()
        if row is None or row[6] not in ungated:
            known.append(o.path)
            continue
        sightings.append(sighting(row))
        parts = [sighting(r) for r in store.conn.execute(
            f"SELECT {cols} FROM sightings WHERE resolved = ? AND within_id = ? AND part != ''",
            (resolved, o.doc_id))]
        sightings += sorted(parts, key=lambda s: _seq_key(s.part))
        for f in sorted(store.rows(
            "SELECT path, part, status, code, message, sha256 FROM failures"
            " WHERE resolved = ? AND within_id = ? AND part != ''", (resolved, o.doc_id),
        ), key=lambda f: _seq_key(f["part"])):
            entry = {"path": o.path, "part": f["part"], "code": f["code"], "message": f["message"],
                     "sha256": f["sha256"] or ""}
            (errors if f["status"] == "failed" else skipped).append(entry)
    errors += [{"path": p, "part": "", "code": "not_found", "message": f"no such file or directory: {p}",
                "sha256": ""} for p in result.missing]  # not stored by ingest: this run's mistake
    return BatchView(result.batch, batch_id, sightings, errors, skipped, known, len(result.outcomes))


def withdraw(store: Store, view: BatchView, deleted: Iterable[str]) -> None:
    """Withdraw (``auditor.withdraw``) corpus documents seen only at paths this change revises or
    deletes; in the store the gate works on (a throwaway copy for a dry run)."""
    from auditor.withdraw import retire_places

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


# -- classification ---------------------------------------------------------------------------

class _Locator:
    """Where a finding is shown: the new document's file, and lines when they are known.

    Lines are given for plain-text files (their stored text keeps the file's lines) and, for
    an EDGAR part, the ``<SEQUENCE>`` line of its submission; otherwise the region is line 1.
    """

    def __init__(self, store: Store, cwd: Path) -> None:
        self.store, self.cwd = store, cwd
        self._seq_lines: dict[str, dict[str, int]] = {}

    def _sequence_line(self, resolved: str, part: str) -> int:
        if resolved not in self._seq_lines:
            try:
                self._seq_lines[resolved] = edgar.part_lines(Path(resolved).read_bytes())
            except OSError:
                self._seq_lines[resolved] = {}
        return self._seq_lines[resolved].get(part, 1)

    def locate(self, f: Finding, s: Sighting, span: dict[str, Any] | None = None) -> None:
        f.file, f.uri = s.path, artifact_uri(s.path, self.cwd)
        if s.part:
            f.region = {"startLine": self._sequence_line(s.resolved, s.part)}
            return
        if f.new.get("format") != "text":
            f.region = {"startLine": 1}
            return
        text = self.store.text(s.doc_id)
        if span is None:
            f.region = {"startLine": 1, "endLine": max(1, text.count("\n", 0, len(text.rstrip("\n"))) + 1)}
        else:
            a = text.count("\n", 0, span["start"]) + 1
            f.region = {"startLine": a, "endLine": max(a, text.count("\n", 0, max(span["start"], span["end"] - 1)) + 1)}


def _main_span(spans: list[dict[str, Any]]) -> dict[str, Any] | None:
    return max(spans, key=lambda s: (s.get("shingles", 0), -s["start"])) if spans else None


OTHERS_NAMED = 10  # further counterparts a gate finding names; the report's findings.jsonl.gz has all


def containment_findings(store: Store, view: BatchView, audit: AuditResult, loc: _Locator) -> list[Finding]:
    """One finding per new document, kind and direction: its best counterpart, and how many more.

    A new notice inside thousands of corpus documents is one finding that names the best of them
    (highest containment, then the smallest document, then the lowest id) and counts the rest, so
    the gate's outputs grow with the new documents, not with the pairs. When a new document and
    a counterpart contain each other, only the new document's containment is given.
    """
    new = view.new_ids
    stands = view.stands_for(store)
    pairs = audit.containing
    a_ids, b_ids = pairs.contained.tolist(), pairs.container.tolist()
    keys = set(zip(a_ids, b_ids, strict=True))
    size = dict(store.select_in("SELECT doc_id, n_shingles FROM index_docs WHERE doc_id IN ({})",
                                set(a_ids) | set(b_ids)))
    groups: dict[tuple[int, str, bool], list[tuple[float, int, int]]] = {}
    for a, b, x in zip(a_ids, b_ids, pairs.exact.tolist(), strict=True):
        cases = [(n, b, True) for n in stands.get(a, [])]
        if (b, a) not in keys:  # mutual: the finding of the other direction says it
            cases += [(a, n, False) for n in stands.get(b, [])]
        for ca, cb, new_is_contained in cases:
            kind = classify_pair(ca in new, cb in new)
            me, other = (ca, cb) if new_is_contained else (cb, ca)
            if kind is None or other in view.withdrawn:
                continue  # the version this change replaces, or a deleted document
            groups.setdefault((me, kind, new_is_contained), []).append((-x, size.get(other, 0), other))
    out = []
    for (me, kind, new_is_contained), ranked in sorted(groups.items()):
        ranked.sort()
        value, other = -ranked[0][0], ranked[0][2]
        contained, container = (me, other) if new_is_contained else (other, me)
        spans = [sp.as_dict() for sp in locate_pairs(store, store.params, [(contained, container)])[0]]
        main = _main_span(spans)
        excerpt = store.text(container)[main["start"]:main["end"]][:EXCERPT_CHARS] if main else None
        s = view.first_sighting(me)

        def described(d: int) -> dict[str, Any]:
            return sighting_provenance(store, view.first_sighting(d)) if d in new else corpus_provenance(store, d)

        f = Finding(kind, sighting_provenance(store, s), described(other), new_is_contained, value,
                    "containment", spans, excerpt=excerpt)
        f.also = len(ranked) - 1
        f.other_members = [str(described(o).get("path")) for _, _, o in ranked[1:1 + OTHERS_NAMED]]
        loc.locate(f, s, None if new_is_contained else main)
        out.append(f)
    return out


def duplicate_findings(store: Store, view: BatchView, loc: _Locator) -> list[Finding]:
    """New documents whose bytes or normalised text are already stored (corpus or batch)."""
    new, keys = view.new_ids, view.keys
    names = dict(store.conn.execute("SELECT id, name FROM batches").fetchall())
    out: list[Finding] = []
    first_of_group: dict[str, Sighting] = {}
    for s in view.sightings:
        d = store.document(s.doc_id)
        if not d["n_words"]:
            continue  # an EDGAR envelope or an empty part: nothing to duplicate
        elsewhere = [r for r in store.conn.execute(
            "SELECT doc_id, path, resolved, part, within_id, meta, batch_id FROM sightings"
            " WHERE doc_id = ? AND gone_at IS NULL ORDER BY id", (s.doc_id,))
            if (r[0], r[2], r[3]) not in keys and r[2] not in view.gone]
        f: Finding | None = None
        if elsewhere:
            r = elsewhere[0]
            other = sighting_provenance(store, Sighting(r[0], r[1], r[2], r[3], r[4], json.loads(r[5] or "{}"),
                                                        names.get(r[6], "")))
            f = Finding("exact-duplicate", sighting_provenance(store, s), other, True, 1.0, "identical bytes")
        elif d["norm_sha256"]:
            group = [int(r[0]) for r in store.conn.execute(
                "SELECT id FROM documents WHERE norm_sha256 = ? AND n_words > 0 AND withdrawn_at IS NULL ORDER BY id",
                (d["norm_sha256"],))]
            in_corpus = [g for g in group if g != s.doc_id and g not in new and g not in view.withdrawn]
            if in_corpus:
                f = Finding("exact-duplicate", sighting_provenance(store, s), corpus_provenance(store, in_corpus[0]),
                            True, 1.0, "identical normalised text")
        group_key = d["norm_sha256"] or d["sha256"]
        if f is None and group_key in first_of_group:
            first = first_of_group[group_key]
            how = "identical bytes" if first.doc_id == s.doc_id else "identical normalised text"
            f = Finding("within-batch", sighting_provenance(store, s), sighting_provenance(store, first),
                        True, 1.0, how)
        first_of_group.setdefault(group_key, s)
        if f is not None:
            loc.locate(f, s)
            out.append(f)
    return out


def ingest_error_findings(view: BatchView, cwd: Path) -> list[Finding]:
    out = []
    for e in view.errors:
        display = f"{e['path']}#{e['part']}" if e["part"] else e["path"]
        f = Finding("ingest-error", {"path": display, "part": e["part"], "sha256": e["sha256"],
                                     "code": e["code"], "message": e["message"]}, None, True, None, "not ingested")
        f.file, f.uri = e["path"], artifact_uri(e["path"], cwd)
        out.append(f)
    return out


def not_auditable_findings(store: Store, view: BatchView, audit: AuditResult, cwd: Path,
                           loc: _Locator) -> list[Finding]:
    """New documents the audit could not speak for, and EDGAR parts the ingest skipped: they fail
    closed (``not-auditable``), unless the kind is left out of --fail-on or the input baselined."""
    reason = {int(x["doc_id"]): x["reason"] for x in audit.not_auditable}
    stands = view.stands_for(store)
    out = []
    for rep, news in sorted(stands.items()):
        if rep not in reason:
            continue
        for doc_id in news:
            s = view.first_sighting(doc_id)
            new = {**sighting_provenance(store, s), "code": "not_auditable", "message": reason[rep]}
            f = Finding("not-auditable", new, None, True, None, "not auditable")
            loc.locate(f, s)
            out.append(f)
    for e in view.skipped:
        display = f"{e['path']}#{e['part']}" if e["part"] else e["path"]
        f = Finding("not-auditable", {"path": display, "part": e["part"], "sha256": e["sha256"],
                                      "code": e["code"], "message": e["message"]}, None, True, None, "skipped")
        f.file, f.uri = e["path"], artifact_uri(e["path"], cwd)
        out.append(f)
    return out


def sort_findings(findings: list[Finding]) -> list[Finding]:
    order = {k: i for i, k in enumerate(KINDS)}
    return sorted(findings, key=lambda f: (order[f.kind], f.new["path"], (f.other or {}).get("path") or "",
                                           f.fingerprint))


# -- the result -------------------------------------------------------------------------------

@dataclass
class GateResult:
    status: str  # PASSED | FAILED | REFUSED | ERROR
    batch: str
    dry_run: bool
    threshold: float
    fail_on: frozenset[str]
    documents: list[dict[str, Any]]  # one per new document (sighting), in input order
    findings: list[Finding]
    skipped: list[dict[str, Any]]
    known: list[str]
    withdrawn: list[dict[str, Any]]  # corpus documents this change replaces or deletes (not compared)
    controls: list[dict[str, Any]]
    refused_because: list[str]
    stale: list[dict[str, Any]]
    notes: list[str]
    report_dir: Path | None = None
    run_id: str | None = None
    digest: str | None = None
    baseline: Path | None = None
    baseline_added: int = 0
    baseline_written: bool = False
    seconds: float = 0.0
    started: str = ""
    files: dict[str, str] = field(default_factory=dict)  # artefact name -> path written

    @property
    def exit_code(self) -> int:
        return exit_code(self.status)

    def by_level(self, level: str) -> list[Finding]:
        return [f for f in self.findings if f.level == level]

    @property
    def counts(self) -> dict[str, int]:
        return {
            "new_documents": len(self.documents),
            "failing": len(self.by_level("error")),
            "warnings": len(self.by_level("warning")),
            "baselined": len(self.by_level("baselined")),
            "ingest_errors": sum(1 for f in self.findings if f.kind == "ingest-error"),
            "not_auditable": sum(1 for f in self.findings if f.kind == "not-auditable"),
            "skipped_parts": len(self.skipped),
            "already_known": len(self.known),
            "withdrawn": len(self.withdrawn),
            "stale_baseline_entries": len(self.stale),
        }

    def error(self) -> AuditorError | None:
        """The error the CLI raises for exit 2 (after every artefact was written)."""
        if self.status == "REFUSED":
            return ControlsFailed("; ".join(self.refused_because) or "the controls failed")
        if self.status == "ERROR":
            return NothingToGate("; ".join(self.notes[:1]) or "nothing was gated")
        return None

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": GATE_FORMAT, "tool_version": __version__, "status": self.status,
            "exit_code": self.exit_code, "batch": self.batch, "dry_run": self.dry_run,
            "threshold": self.threshold, "fail_on": sorted(self.fail_on),
            "counts": self.counts, "documents": self.documents,
            "findings": [f.as_dict() for f in self.findings],
            "skipped_parts": self.skipped, "already_known": self.known, "withdrawn": self.withdrawn,
            "controls": self.controls, "refused_because": self.refused_because,
            "stale_baseline_entries": self.stale, "notes": self.notes,
            "report": {"directory": str(self.report_dir) if self.report_dir else None,
                       "run_id": self.run_id, "digest": self.digest},
            "baseline": {"path": str(self.baseline) if self.baseline else None,
                         "added": self.baseline_added, "written": self.baseline_written},
        }


def _document_rows(store: Store, view: BatchView, report: dict[str, Any] | None, audit: AuditResult | None,
                   findings: list[Finding], cwd: Path) -> list[dict[str, Any]]:
    not_auditable = {int(x["doc_id"]): x["reason"] for x in (audit.not_auditable if audit else [])}
    rows = []
    for s in view.sightings:
        p = sighting_provenance(store, s)
        mine = [f for f in findings if f.new["path"] == s.display and f.kind != "ingest-error"]
        if report is None or report.get("status") == "REFUSED":
            status = "not-gated"
        elif any(f.level == "error" for f in mine):
            status = "failed"
        elif s.doc_id in not_auditable:
            status = "not-auditable"
        else:
            status = "passed"
        rows.append({**p, "file": s.path, "part": s.part, "uri": artifact_uri(s.path, cwd), "status": status,
                     "reason": not_auditable.get(s.doc_id)})
    return rows


# -- orchestration ----------------------------------------------------------------------------

@dataclass
class GateOptions:
    db: Path
    inputs: list[Path]
    deleted: list[str] = field(default_factory=list)  # paths the change deletes or renames away
    batch: str | None = None
    source: str | None = None
    dry_run: bool = False
    fail_on: frozenset[str] = frozenset(KINDS)
    baseline: Path | None = None
    update_baseline: bool = False
    reason: str | None = None
    threshold: float = 0.8
    control_seed: int = 0
    controls_dir: Path | None = None
    out: Path | None = None
    reports_root: Path = Path("reports")
    junit: Path | None = None
    sarif: Path | None = None
    summary: Path | None = None
    step_summary: Path | None = None  # $GITHUB_STEP_SUMMARY, appended to
    workers: int = 0
    limits: Limits | None = None
    command: str = ""
    cwd: Path | None = None


def run_gate(opts: GateOptions) -> GateResult:
    """Ingest, control, audit, classify, baseline, and write every artefact; see the module doc.

    Raises only for usage and store errors (before anything is written); failed controls and
    an empty batch come back as a REFUSED or ERROR result, with the artefacts written, so CI
    shows why.
    """
    from auditor.pipeline import audit_job

    t0 = time.monotonic()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    cwd = opts.cwd or Path.cwd()
    if opts.reason is not None and not opts.update_baseline:
        raise UsageError("--reason only goes with --update-baseline")
    if opts.reason is not None and not opts.reason.strip():
        raise UsageError("--reason must not be empty")
    if opts.update_baseline and opts.baseline is None:
        raise UsageError("--update-baseline needs --baseline FILE")
    entries = load_baseline(opts.baseline, missing_ok=opts.update_baseline) if opts.baseline else []
    notes: list[str] = []
    if opts.dry_run:
        notes.append("dry run: the batch was ingested into a throwaway copy; the store is unchanged")

    with open_gate_store(opts.db, opts.dry_run) as store:
        require_intact(store)  # a damaged corpus cannot vouch for a batch: StoreDamaged, exit 2
        if not store.scalar("SELECT count(*) FROM documents"):
            notes.append("the store holds no document yet: the batch is gated only against itself")
        result = ingest(store, list(opts.inputs), batch=opts.batch, source=opts.source,
                        limits=opts.limits, workers=opts.workers, command=opts.command, gating=True)
        view = batch_view(store, result)
        withdraw(store, view, opts.deleted)
        withdrawn = [corpus_provenance(store, d) for d in sorted(view.withdrawn)]
        loc = _Locator(store, cwd)
        report: dict[str, Any] | None = None
        outcome = None
        findings = ingest_error_findings(view, cwd)
        if not view.sightings and not view.known:
            status = "ERROR"
            notes.insert(0, "no input file was found" if not result.outcomes
                         else "no input could be ingested, so nothing was gated")
        else:
            if not view.sightings:
                notes.append("nothing new: every input is already in the store at the same path")
            ids = sorted(view.new_ids)
            outcome = audit_job(
                store, opts.threshold, out=opts.out, seed=opts.control_seed, controls_dir=opts.controls_dir,
                only=set(ids), scope={"kind": "batch", "batch": view.name, "documents": ids},
                kind="gate", command=opts.command, reports_root=opts.reports_root,
            )
            report = outcome.report
            if outcome.refused:
                status = "REFUSED"
            else:
                assert outcome.audit is not None
                findings += containment_findings(store, view, outcome.audit, loc)
                findings += not_auditable_findings(store, view, outcome.audit, cwd, loc)
                findings += duplicate_findings(store, view, loc)
                status = "PASSED"
        findings = sort_findings(findings)
        apply_levels(findings, opts.fail_on, baseline_index(entries))
        added, written = 0, False
        if opts.update_baseline and opts.baseline is not None and status not in ("REFUSED",):
            date = datetime.now(UTC).date().isoformat()
            entries, added = merge_baseline(entries, findings, opts.reason or f"accepted by --update-baseline on {date}")
            written = write_baseline(opts.baseline, entries)
            apply_levels(findings, opts.fail_on, baseline_index(entries))
        stale = stale_entries(store, entries)
        if status == "PASSED" and any(f.level == "error" for f in findings):
            status = "FAILED"
        documents = _document_rows(store, view, report, outcome.audit if outcome else None, findings, cwd)
        if not opts.dry_run:  # a batch that did not pass stays "new" for every later gate run
            with store.write():
                store.conn.execute("UPDATE batches SET status = ? WHERE id = ?",
                                   ("gate-passed" if status == "PASSED" else "gate-failed", view.batch_id))

    g = GateResult(
        status=status, batch=view.name, dry_run=opts.dry_run, threshold=opts.threshold,
        fail_on=opts.fail_on, documents=documents, findings=findings, skipped=view.skipped,
        known=view.known, withdrawn=withdrawn, controls=(report or {}).get("controls", []),
        refused_because=(report or {}).get("refused_because", []) if status == "REFUSED" else [],
        stale=stale, notes=notes, baseline=opts.baseline, baseline_added=added, baseline_written=written,
        started=started,
    )
    if outcome is not None:
        g.report_dir, g.run_id, g.digest = outcome.directory, outcome.run_id, str(report["digest"]) if report else None
    g.seconds = round(time.monotonic() - t0, 3)
    write_artifacts(g, opts, cwd)
    return g


def write_artifacts(g: GateResult, opts: GateOptions, cwd: Path) -> None:
    """gate.json beside the report, then the files the options ask for."""
    summary = summary_markdown(g)
    targets: list[tuple[str, Path | None, str | bytes]] = [
        ("gate.json", (g.report_dir / "gate.json") if g.report_dir else
         ((opts.out / "gate.json") if opts.out else None),
         json.dumps(g.as_dict(), indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n"),
        ("junit", opts.junit, junit_xml(g)),
        ("sarif", opts.sarif, json.dumps(sarif(g, cwd), indent=2, ensure_ascii=False) + "\n"),
        ("summary", opts.summary, summary),
    ]
    for name, path, content in targets:
        if path is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        g.files[name] = str(path)
    if opts.step_summary is not None:
        append_step_summary(opts.step_summary, summary, g.files.get("summary"))
        g.files["step_summary"] = str(opts.step_summary)


# -- Markdown summary -------------------------------------------------------------------------

_HEAD = {"PASSED": "✅ passed", "FAILED": "❌ failed", "REFUSED": "⛔ refused: controls failed",
         "ERROR": "⛔ error: nothing was gated"}


def _md_doc_cell(p: dict[str, Any] | None) -> str:
    if not p:
        return ""
    out = f"{_cell_code(p.get('path'))}<br>sha256 {_cell_code(str(p.get('sha256') or '')[:12])}"
    e = p.get("edgar")
    if e:
        sub, part = e.get("submission") or {}, e.get("part") or {}
        out += "<br>" + _md(f"EDGAR {sub.get('accession_number')} {sub.get('form_type')}, "
                            f"part {part.get('sequence')} {part.get('type')}")
    return out


def _md_where(f: Finding) -> str:
    bits = []
    if f.spans:
        sp = _main_span(f.spans) or f.spans[0]
        bits.append(f"container chars {sp['start']}-{sp['end']}"
                    + (f", pages {sp['pages'][0]}-{sp['pages'][1]}" if sp.get("pages") else ""))
        if len(f.spans) > 1:
            bits.append(f"{len(f.spans)} spans")
    if "endLine" in f.region:
        bits.append(f"new file lines {f.region['startLine']}-{f.region['endLine']}")
    return _md("; ".join(bits))


def _md_findings(findings: list[Finding], reason: bool = False) -> list[str]:
    rows = []
    for f in findings:
        if f.kind in INPUT_KINDS:
            score = ""
            other = _md(f"{f.new.get('code')}: {f.new.get('message')}")
        else:
            score = f"{f.containment:.4f}" if f.match == "containment" and f.containment is not None else _md(f.match)
            other = _md_doc_cell(f.other)
        row = [_md(f"{f.kind} ({f.rule})"), _md_doc_cell(f.new) if f.kind not in INPUT_KINDS else _cell_code(f.new["path"]),
               other, score, _md_where(f)]
        if reason:
            row.append(_md(f.baseline_reason or ""))
        rows.append(row)
    header = ["kind", "new document", "other document / reason", "containment", "where"]
    return _md_table(header + (["baseline reason"] if reason else []), rows)


def summary_markdown(g: GateResult) -> str:
    """The gate's result for people: what failed, naming both documents, and where to look."""
    c = g.counts
    lines = [f"## Containment gate: {_HEAD[g.status]}", ""]
    facts = [f"batch {_cell_code(g.batch)}", f"{c['new_documents']} new documents",
             f"threshold {g.threshold}", f"fail on: {', '.join(k for k in KINDS if k in g.fail_on) or 'nothing'}"]
    if g.controls:
        passed = sum(1 for x in g.controls if x.get("passed"))
        facts.append(f"controls {passed}/{len(g.controls)} passed")
    if g.dry_run:
        facts.append("dry run")
    lines += [" · ".join(facts), ""]
    lines += _md_table(["failing", "warnings", "baselined", "ingest errors", "stale baseline entries"],
                       [[str(c["failing"]), str(c["warnings"]), str(c["baselined"]), str(c["ingest_errors"]),
                         str(c["stale_baseline_entries"])]])
    lines.append("")
    for note in g.notes:
        lines += [f"> {_md(note)}", ""]
    if g.status == "REFUSED":
        lines += ["### Failed controls", "",
                  "No finding is reported by a detector that failed its controls.", ""]
        lines += [f"- {_md(r)}" for r in g.refused_because] + [""]
    sections = [("Failing findings", g.by_level("error"), False),
                ("Warnings (kinds not in --fail-on)", g.by_level("warning"), False),
                ("Baselined (accepted)", g.by_level("baselined"), True)]
    for title, fs, reason in sections:
        if fs:
            lines += [f"### {_md(title)}", "", *_md_findings(fs, reason), ""]
    if g.stale:
        lines += ["### Stale baseline entries", "",
                  "These entries name a document the store no longer holds; remove them from the baseline.", ""]
        lines += _md_table(["rule", "contained", "container", "reason"], [
            [_md(e["rule"]), _cell_code(e.get("contained_path") or e["contained_sha256"][:12]),
             _cell_code(e.get("container_path") or (e.get("container_sha256") or "")[:12]), _md(e.get("reason", ""))]
            for e in g.stale])
        lines.append("")
    if g.withdrawn:
        lines += ["### Replaced or deleted by this change (not compared)", ""]
        lines += [f"- {_cell_code(d['path'])} (sha256 {_cell_code(str(d.get('sha256'))[:12])})" for d in g.withdrawn]
        lines.append("")
    not_auditable = [d for d in g.documents if d["status"] == "not-auditable"]
    if not_auditable or g.skipped:
        lines += ["### Not gated", ""]
        lines += [f"- {_cell_code(d['path'])}: {_md(d['reason'])}" for d in not_auditable]
        lines += [f"- {_cell_code(s['path'] + ('#' + s['part'] if s['part'] else ''))}: skipped, {_md(s['code'])}"
                  for s in g.skipped]
        lines.append("")
    if g.report_dir:
        lines.append(f"Report: {_cell_code(str(g.report_dir / 'report.md'))} (also report.html, report.json, "
                     f"gate.json); digest {_cell_code(str(g.digest or '')[:16])}")
    if g.baseline_added:
        lines.append(f"Baseline {_cell_code(str(g.baseline))}: {g.baseline_added} entries added.")
    return "\n".join(lines).rstrip("\n") + "\n"


def fit_summary(text: str, limit: int, where: str | None = None) -> str:
    """``text`` cut at a line boundary to at most ``limit`` UTF-8 bytes, saying so."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    note = ("\n\n> Summary truncated to fit GitHub's 1 MiB step-summary limit"
            + (f"; the full summary is in {where}" if where else "; see report.md") + ".\n")
    room = max(0, limit - len(note.encode("utf-8")))
    cut = data[:room].decode("utf-8", "ignore")
    cut = cut[: cut.rfind("\n") + 1] if "\n" in cut else ""
    return cut + note if len((cut + note).encode("utf-8")) <= limit else ""


def append_step_summary(path: Path, text: str, where: str | None = None) -> None:
    """Append to ``$GITHUB_STEP_SUMMARY`` without pushing the step past GitHub's cap."""
    used = path.stat().st_size if path.exists() else 0
    fitted = fit_summary(text, STEP_SUMMARY_CAP - used - 1, where)
    if fitted:
        with path.open("a", encoding="utf-8") as f:
            f.write(fitted)


# -- GitHub annotations -----------------------------------------------------------------------

def github_annotations(g: GateResult, cwd: Path) -> list[str]:
    """Workflow commands: one per failing finding, then warnings, at most 10 of each."""
    errors: list[str] = []
    warnings: list[str] = []
    for f in g.findings:
        if f.level == "baselined":
            continue
        props = {"file": relative_path(f.file, cwd), "line": str(f.region.get("startLine", 1))}
        if "endLine" in f.region:
            props["endLine"] = str(f.region["endLine"])
        props["title"] = f"{f.rule} {f.kind}"
        cmd = _command("error" if f.level == "error" else "warning", props, f.sentence(full_sha=True))
        (errors if f.level == "error" else warnings).append(cmd)
    for e in g.stale:
        warnings.append(_command("warning", {"title": "stale baseline entry"},
                                 f"{e['rule']} {e.get('contained_path') or e['contained_sha256']}: "
                                 "the store no longer holds this document; remove the entry"))
    if g.status == "REFUSED":
        errors.insert(0, _command("error", {"title": "controls failed"},
                                  "no finding is reported by a detector that failed its controls: "
                                  + "; ".join(g.refused_because)))
    if g.status == "ERROR":
        errors.insert(0, _command("error", {"title": "nothing gated"}, "; ".join(g.notes[:1])))
    return _capped(errors, "error", "failing findings") + _capped(warnings, "warning", "warnings")


def _command(level: str, props: dict[str, str], message: str) -> str:
    p = ",".join(f"{k}={escape_property(v)}" for k, v in props.items())
    return f"::{level} {p}::{escape_data(message)}" if p else f"::{level}::{escape_data(message)}"


def _capped(cmds: list[str], level: str, what: str) -> list[str]:
    if len(cmds) <= MAX_ANNOTATIONS:
        return cmds
    rest = len(cmds) - (MAX_ANNOTATIONS - 1)
    more = _command(level, {"title": f"{rest} more {what}"}, f"{rest} more {what}: see the step summary and the report")
    return [*cmds[: MAX_ANNOTATIONS - 1], more]


# -- JUnit XML --------------------------------------------------------------------------------

def _details(f: Finding) -> str:
    lines = [f.sentence(full_sha=True), f"rule: {f.rule} {f.kind}"]
    for label, p in (("new", f.new), ("other", f.other)):
        if not p:
            continue
        lines.append(f"{label}: {p.get('path')}")
        for k in ("sha256", "doc_id", "format", "batch", "code", "message"):
            if p.get(k) not in (None, ""):
                lines.append(f"  {k}: {p[k]}")
        e = p.get("edgar")
        if e:
            sub, part = e.get("submission") or {}, e.get("part") or {}
            lines.append("  EDGAR submission: " + ", ".join(f"{k} {v}" for k, v in sub.items() if v))
            lines.append("  EDGAR part: " + ", ".join(f"{k} {v}" for k, v in part.items() if v))
    if f.spans:
        lines.append("where: " + "; ".join(
            f"chars {s['start']}-{s['end']}" + (f" (pages {s['pages'][0]}-{s['pages'][1]})" if s.get("pages") else "")
            for s in f.spans[:5]))
    if f.also:
        verb = "also contained in" if f.new_is_contained else "also contains"
        lines.append(f"{verb} {f.also} more: " + ", ".join(f.other_members)
                     + (" ..." if f.also > len(f.other_members) else ""))
    if f.excerpt:
        lines.append("excerpt of the container: " + " ".join(f.excerpt.split())[:400])
    if f.baseline_reason:
        lines.append(f"baselined: {f.baseline_reason}")
    return "\n".join(lines)


def junit_xml(g: GateResult) -> bytes:
    """One testsuite; a testcase per new document, per failed or skipped input, and per control."""
    suites = ET.Element("testsuites", name="containment-auditor gate")
    suite = ET.SubElement(suites, "testsuite", name=_xml_text(f"containment gate: {g.batch}"),
                          timestamp=g.started, time=f"{g.seconds:.3f}")
    props = ET.SubElement(suite, "properties")
    for k, v in (("status", g.status), ("batch", g.batch), ("threshold", str(g.threshold)),
                 ("fail_on", ",".join(sorted(g.fail_on))), ("dry_run", str(g.dry_run).lower()),
                 ("report", str(g.report_dir or "")), ("digest", g.digest or "")):
        ET.SubElement(props, "property", name=k, value=_xml_text(v))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}

    def case(name: str, classname: str) -> ET.Element:
        counts["tests"] += 1
        return ET.SubElement(suite, "testcase", classname=_xml_text(classname), name=_xml_text(name), time="0")

    def outcome(tc: ET.Element, tag: str, message: str, type_: str = "", text: str = "") -> None:
        counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[tag]] += 1
        attrib = {"message": _xml_text(message)}
        if type_:
            attrib["type"] = type_
        el = ET.SubElement(tc, tag, attrib)
        if text:
            el.text = _xml_text(text)

    by_path: dict[str, list[Finding]] = {}
    for f in g.findings:
        by_path.setdefault(f.new["path"], []).append(f)
    entries: list[tuple[str, str, str, str, Any]] = [
        (d["file"], d["part"], d["path"], "document", d) for d in g.documents]
    entries += [(f.file, str(f.new.get("part") or ""), f.new["path"], "ingest-error", f)
                for f in g.findings if f.kind == "ingest-error"]
    def shown(s: dict[str, Any]) -> str:
        return f"{s['path']}#{s['part']}" if s["part"] else s["path"]

    entries += [(s["path"], s["part"], shown(s), "skipped", s) for s in g.skipped if not by_path.get(shown(s))]
    entries += [(f.file, str(f.new.get("part") or ""), f.new["path"], "ingest-error", f)
                for f in g.findings if f.kind == "not-auditable" and f.match == "skipped"]
    entries.sort(key=lambda e: (e[0], _seq_key(e[1]) if e[1] else (-1, ""), e[2]))
    for _, _, name, what, item in entries:
        tc = case(name, g.batch)
        if what == "ingest-error":
            f = item
            if f.level == "error":
                outcome(tc, "error" if f.kind == "ingest-error" else "failure",
                        f"{f.new.get('code')}: {f.new.get('message')}", f"{f.rule} {f.kind}", _details(f))
            elif f.level == "warning":
                outcome(tc, "skipped", f"not {'ingested' if f.kind == 'ingest-error' else 'auditable'} "
                                       f"({f.kind} is not in --fail-on): {f.new.get('code')}")
            else:
                ET.SubElement(tc, "system-out").text = _xml_text(_details(f))
            continue
        if what == "skipped":
            outcome(tc, "skipped", f"no text to gate: {item['code']}: {item['message']}")
            continue
        d = item
        mine = [f for f in by_path.get(name, []) if f.kind != "ingest-error"]
        failing = [f for f in mine if f.level == "error"]
        if d["status"] == "not-gated":
            outcome(tc, "skipped", "not gated: the controls failed, so no finding may be reported")
        elif failing:
            outcome(tc, "failure", failing[0].sentence() + (f" (and {len(failing) - 1} more)" if len(failing) > 1 else ""),
                    " ".join(sorted({f"{f.rule} {f.kind}" for f in failing})),
                    "\n\n".join(_details(f) for f in failing))
        elif d["status"] == "not-auditable":
            outcome(tc, "skipped", f"not auditable: {d['reason']}")
        rest = [f for f in mine if f.level != "error"]
        if rest:
            ET.SubElement(tc, "system-out").text = _xml_text("\n\n".join(f"[{f.level}] " + _details(f) for f in rest))
    for c in g.controls:
        tc = case(f"control {c['name']}", "controls")
        if not c.get("passed"):
            outcome(tc, "error", f"{c['name']} ({c['kind']}) scored {c['score']:.4f}, expected {c['operator']} {c['expected']:.4f}",
                    "ControlFailed", json.dumps(c, sort_keys=True, default=str))
    if g.status == "ERROR":
        tc = case("batch", g.batch)
        outcome(tc, "error", "; ".join(g.notes[:1]) or "nothing was gated", "NothingToGate")
    for k, n in counts.items():
        suite.set(k, str(n))
        if k != "skipped":  # the JUnit XSD (Jenkins xUnit junit-10) has no skipped on testsuites
            suites.set(k, str(n))
    suites.set("time", f"{g.seconds:.3f}")
    ET.indent(suites)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode").encode("utf-8") + b"\n"


# -- SARIF 2.1.0 ------------------------------------------------------------------------------

def sarif(g: GateResult, cwd: Path) -> dict[str, Any]:
    """A SARIF 2.1.0 log: stable rule ids, one result per finding, fingerprints on content."""
    rules = [{
        "id": RULES[k]["id"], "name": RULES[k]["name"],
        "shortDescription": {"text": RULES[k]["short"]},
        "fullDescription": {"text": RULES[k]["full"]},
        "defaultConfiguration": {"level": "error"},
        "help": {"text": RULES[k]["full"] + " Accept a known finding with --baseline FILE --update-baseline."},
        "properties": {"kind": k},
    } for k in KINDS]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for f in g.findings:
        msg = f.sentence(full_sha=True)
        if f.kind not in INPUT_KINDS and f.spans:
            sp = _main_span(f.spans) or f.spans[0]
            msg += f"; in the container at chars {sp['start']}-{sp['end']}" + (
                f", pages {sp['pages'][0]}-{sp['pages'][1]}" if sp.get("pages") else "")
        r: dict[str, Any] = {
            "ruleId": f.rule, "ruleIndex": index[f.rule],
            "level": {"error": "error", "warning": "warning", "baselined": "note"}[f.level],
            "message": {"text": clean(msg, keep_newlines=True)},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": f.uri}, "region": dict(f.region)}}],
            "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
            "properties": {k: v for k, v in (
                ("kind", f.kind), ("match", f.match), ("containment", f.containment),
                ("contained_sha256", f.key[1] or None), ("container_sha256", f.key[2] or None),
                ("new", f.new), ("other", f.other)) if v is not None},
        }
        if f.other and f.other.get("path"):
            other_path = str(f.other["path"]).split("#", 1)[0] if f.other.get("edgar") else str(f.other["path"])
            r["relatedLocations"] = [{"id": 1, "physicalLocation": {
                "artifactLocation": {"uri": artifact_uri(other_path, cwd)}},
                "message": {"text": clean(doc_label(f.other, True))}}]
        if f.level == "baselined":
            r["suppressions"] = [{"kind": "external", "status": "accepted",
                                  "justification": f.baseline_reason or ""}]
        results.append(r)
    notifications = [{"level": "error", "message": {"text": clean(f"control failed: {x}")},
                      "descriptor": {"id": "controls"}} for x in g.refused_because]
    notifications += [{"level": "warning", "message": {"text": clean(f"stale baseline entry {e['rule']} "
                                                                    f"{e.get('contained_path') or e['contained_sha256']}")},
                       "descriptor": {"id": "baseline"}} for e in g.stale]
    if g.status == "ERROR":
        notifications.append({"level": "error", "message": {"text": clean("; ".join(g.notes[:1]))},
                              "descriptor": {"id": "inputs"}})
    invocation: dict[str, Any] = {"executionSuccessful": g.status in ("PASSED", "FAILED"),
                                  "exitCode": g.exit_code}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "version": "2.1.0",
        "$schema": SARIF_SCHEMA,
        "runs": [{
            "tool": {"driver": {"name": "containment-auditor", "version": __version__,
                                "semanticVersion": __version__.split("+", 1)[0], "rules": rules}},
            "automationDetails": {"id": "containment-gate/"},
            "invocations": [invocation],
            "results": results,
            "properties": {"status": g.status, "batch": g.batch, "threshold": g.threshold,
                           "report_digest": g.digest, "dry_run": g.dry_run},
        }],
    }
