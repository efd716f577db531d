"""The gate's rules, its findings and its result: what admission produces and every output
format reads.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from auditor import __version__
from auditor.errors import (
    AuditorError,
    ControlsFailed,
    GateInterrupted,
    NothingToGate,
    UsageError,
)
from auditor.report.render.model import _visible

# -- rules ------------------------------------------------------------------------------------

KINDS = ("new-in-corpus", "corpus-in-new", "exact-duplicate", "within-batch", "ingest-error", "not-auditable",
         "covered-by-batch", "redaction")
INPUT_KINDS = ("ingest-error", "not-auditable", "redaction")  # about one input alone: no other document
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
                "after decoding, content after a DOCTYPE entity), an EDGAR part the ingest "
                "skipped (an image, a spreadsheet), or a construct outside its reader's model "
                "(not-modelled: an element, property or font the reader does not model). The "
                "gate fails closed: what it cannot read it cannot vouch for.",
    },
    "covered-by-batch": {
        "id": "CONTAIN007", "name": "DocumentSplitOverBatch",
        "short": "A document is covered by several new documents together",
        "full": "At least the threshold share of a document's 5-word shingles occur in the new "
                "documents of the batch taken together, though no one of them reaches the "
                "threshold: a corpus document (or a new one) split into pieces, each padded so "
                "that no pair is contained. Every piece is named with the share it explains.",
    },
    "redaction": {
        "id": "CONTAIN008", "name": "TextUnderRedaction",
        "short": "A new document has text under a redaction box",
        "full": "A PDF draws a dark opaque box or an image over text that is still in the file (or "
                "text on a box of its own colour): a viewer shows the box, but the text under it "
                "can be copied out. The finding names the pages and the boxes. A warning unless "
                "--fail-on names it: it is about what the document leaks, not about containment.",
    },
}
RULE_IDS = {k: v["id"] for k, v in RULES.items()}
#: what fails the gate unless --fail-on says otherwise: every kind but the redaction warning
DEFAULT_FAIL_ON = frozenset(KINDS) - {"redaction"}
KIND_OF = {v["id"]: k for k, v in RULES.items()}

EXIT_PASS, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
GATE_FORMAT = "containment-auditor-gate/1"


def parse_fail_on(text: str) -> frozenset[str]:
    """Kinds from a comma list of kind names or rule ids; ``all`` and ``none`` as words."""
    out: set[str] = set()
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        if item.lower() == "all":
            out.update(KINDS)
        elif item.lower() == "default":
            out.update(DEFAULT_FAIL_ON)
        elif item.lower() == "none":
            continue
        elif item.lower() in RULES:
            out.add(item.lower())
        elif item.upper() in KIND_OF:
            out.add(KIND_OF[item.upper()])
        else:
            raise UsageError(f"--fail-on: unknown kind {item!r}; expected a comma list of "
                             f"{', '.join(KINDS)} (or rule ids, 'default', 'all', 'none')")
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
    reading: str | None = None  # the other reading of the new document it was found under (spans are offsets into it)
    pieces: list[dict[str, Any]] = field(default_factory=list)  # covered-by-batch: each piece, its share
    covered_is_new: bool = False  # covered-by-batch: the covered document is in the batch too

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
        if self.reading:
            extra += f"\0reading:{self.reading}"
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
        if self.kind == "redaction":
            return f"{new} holds {self.new.get('message')}"
        assert self.other is not None
        other = doc_label(self.other, full_sha)
        pct = f"{self.containment:.4f}" if self.containment is not None else "?"
        if self.kind == "covered-by-batch":
            shares = ", ".join(f"{_visible(p['path'])} {p['covered']:.4f}" for p in self.pieces)
            return (f"{new} is one of {len(self.pieces)} new documents that together cover {other}, "
                    f"{'also in this batch' if self.covered_is_new else 'in the corpus'} ({pct} of it, "
                    f"none of them alone at the threshold); the pieces and their shares: {shares}")
        where = "also in this batch" if self.kind == "within-batch" else "in the corpus"
        if self.reading:
            where += f", read as {self.reading}"
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
            "also": self.also, "also_named": self.other_members, "reading": self.reading,
            "message": self.sentence(full_sha=True),
            **({"pieces": self.pieces, "covered_is_new": self.covered_is_new} if self.pieces else {}),
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


# -- where a finding is shown, and in which order ---------------------------------------------

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


def seq_key(part: str) -> tuple[int, str]:
    """EDGAR parts in sequence order: numbered ones first, by number."""
    return (int(part), "") if part.isdigit() else (1 << 30, part)


def main_span(spans: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The span holding the most shingles (the first of equals): where a finding points."""
    return max(spans, key=lambda s: (s.get("shingles", 0), -s["start"])) if spans else None


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
    data: list[dict[str, Any]]  # one per EDGAR part read as data (XBRL, JSON, pictures...), not a document
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
    artefacts: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> path, sha256, place in the report
    custody: dict[str, Any] | None = None  # the store's custody head the gate was computed from
    admitted: bool = False  # the batch is now part of the corpus (committed with the verdict PASSED)
    interrupted: str | None = None  # the signal that stopped the gate (SIGINT, SIGTERM)
    renderers: dict[str, str] = field(default_factory=dict)  # the renderers that drew new documents, by version

    @property
    def exit_code(self) -> int:
        return exit_code(self.status)

    def by_level(self, level: str) -> list[Finding]:
        return [f for f in self.findings if f.level == level]

    @property
    def counts(self) -> dict[str, int]:
        return {
            "new_documents": len(self.documents),
            "short_documents": sum(1 for d in self.documents if d.get("status") == "short"),
            "data_parts": len(self.data),
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
        if self.status == "ERROR" and self.interrupted:
            return GateInterrupted(self.notes[0] if self.notes else f"interrupted by {self.interrupted}")
        if self.status == "ERROR":
            return NothingToGate("; ".join(self.notes[:1]) or "nothing was gated")
        return None

    def report_block(self) -> dict[str, Any]:
        """What the gate's report leads with (``report.json`` ``gate``): the verdict, its batch,
        counts equal to gate.json's, findings by kind and level, and each finding in a line."""
        by_kind = {k: {lv: sum(1 for f in self.findings if f.kind == k and f.level == lv)
                       for lv in ("error", "warning", "baselined")} for k in KINDS}
        return {
            "status": self.status, "batch": self.batch, "dry_run": self.dry_run, "admitted": self.admitted,
            "threshold": self.threshold, "fail_on": sorted(self.fail_on), "counts": self.counts,
            "by_kind": {k: v for k, v in by_kind.items() if any(v.values())},
            "findings": [{"kind": f.kind, "rule": f.rule, "level": f.level, "new": f.new.get("path"),
                          "other": (f.other or {}).get("path"), "containment": f.containment,
                          "reading": f.reading, "message": f.sentence()} for f in self.findings],
            "documents": [{"path": d.get("path"), "status": d.get("status"), "reason": d.get("reason")}
                          for d in self.documents],
            "data_parts": [{"path": d.get("path"), "code": d.get("code"), "status": d.get("status")}
                           for d in self.data],
            "refused_because": self.refused_because, "notes": self.notes,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": GATE_FORMAT, "tool_version": __version__, "status": self.status,
            "exit_code": self.exit_code, "batch": self.batch, "dry_run": self.dry_run,
            "admitted": self.admitted, "interrupted": self.interrupted, "renderers": self.renderers,
            "threshold": self.threshold, "fail_on": sorted(self.fail_on),
            "counts": self.counts, "documents": self.documents, "data_parts": self.data,
            "findings": [f.as_dict() for f in self.findings],
            "skipped_parts": self.skipped, "already_known": self.known, "withdrawn": self.withdrawn,
            "controls": self.controls, "refused_because": self.refused_because,
            "stale_baseline_entries": self.stale, "notes": self.notes,
            "report": {"directory": str(self.report_dir) if self.report_dir else None,
                       "run_id": self.run_id, "digest": self.digest},
            "baseline": {"path": str(self.baseline) if self.baseline else None,
                         "added": self.baseline_added, "written": self.baseline_written},
            "artefacts": self.artefacts, "custody": self.custody,
        }


