"""The CI gate: admit a new batch of documents only if none of them is contained in, contains,
or duplicates a document of the corpus (or of the batch).

``run_gate`` ingests the batch (into the store, or with ``dry_run`` inside a transaction that
is rolled back at the end, so the corpus file is never changed), runs the audit job for the
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
covered-by-     CONTAIN007  a document is covered (>= threshold) by several new documents
batch                       together, none of them reaching the threshold alone (a split copy)
redaction       CONTAIN008  a new PDF holds text under a redaction box (a warning by default)
==============  ==========  ===================================================================

Exit codes: 0 no failing finding; 1 failing findings (or ingest errors); 2 usage, input or store
error, failed controls, or nothing could be ingested at all (no input file, or every one failed).

Layout: :mod:`~auditor.gating.admission` runs the gate over :mod:`~auditor.gating.batch` (what the
batch brought), :mod:`~auditor.gating.classify` (its findings) and :mod:`~auditor.gating.baseline`;
:mod:`~auditor.gating.findings` holds the rules, findings and result every output reads; each CI
format is a small module of :mod:`auditor.gating.formats`. The names below are re-exported here.
"""

from auditor.errors import GateCrashed, NothingToGate
from auditor.gating.admission import GateOptions, run_gate, write_artifacts
from auditor.gating.baseline import (
    BASELINE_VERSION,
    baseline_index,
    baseline_key,
    dump_baseline,
    load_baseline,
    merge_baseline,
    stale_entries,
    write_baseline,
)
from auditor.gating.batch import (
    BatchView,
    Sighting,
    batch_view,
    copy_store,
    corpus_provenance,
    open_gate_store,
    read_path_list,
    sighting_provenance,
    withdraw,
)
from auditor.gating.classify import (
    EXCERPT_CHARS,
    OTHERS_NAMED,
    containment_findings,
    duplicate_findings,
    ingest_error_findings,
    not_auditable_findings,
)
from auditor.gating.findings import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_PASS,
    GATE_FORMAT,
    INPUT_KINDS,
    KIND_OF,
    KINDS,
    RULE_IDS,
    RULES,
    Finding,
    GateResult,
    apply_levels,
    artifact_uri,
    classify_pair,
    doc_label,
    exit_code,
    parse_fail_on,
    relative_path,
    sort_findings,
)
from auditor.gating.formats.annotations import (
    MAX_ANNOTATIONS,
    escape_data,
    escape_property,
    github_annotations,
)
from auditor.gating.formats.junit import junit_xml
from auditor.gating.formats.sarif import FINGERPRINT_KEY, SARIF_SCHEMA, sarif
from auditor.gating.formats.summary import (
    STEP_SUMMARY_CAP,
    append_step_summary,
    fit_summary,
    summary_markdown,
)

__all__ = ["BASELINE_VERSION", "EXCERPT_CHARS", "EXIT_ERROR", "EXIT_FINDINGS", "EXIT_PASS", "FINGERPRINT_KEY", "GATE_FORMAT", "INPUT_KINDS", "KINDS", "KIND_OF", "MAX_ANNOTATIONS", "OTHERS_NAMED", "RULES", "RULE_IDS", "SARIF_SCHEMA", "STEP_SUMMARY_CAP", "BatchView", "Finding", "GateCrashed", "GateOptions", "GateResult", "NothingToGate", "Sighting", "append_step_summary", "apply_levels", "artifact_uri", "baseline_index", "baseline_key", "batch_view", "classify_pair", "containment_findings", "copy_store", "corpus_provenance", "doc_label", "dump_baseline", "duplicate_findings", "escape_data", "escape_property", "exit_code", "fit_summary", "github_annotations", "ingest_error_findings", "junit_xml", "load_baseline", "merge_baseline", "not_auditable_findings", "open_gate_store", "parse_fail_on", "read_path_list", "relative_path", "run_gate", "sarif", "sighting_provenance", "sort_findings", "stale_entries", "summary_markdown", "withdraw", "write_artifacts", "write_baseline"]
