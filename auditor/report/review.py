"""Reviewing past runs from the store alone: which runs there were, what each found, and the
whole store in Datasette.

Every audit and gate run is recorded in ``runs`` (with its scope and summary), every
containing pair in ``findings`` and every covered document in ``run_documents``; these
functions read them back. ``auditor runs``, ``auditor findings`` and ``auditor browse`` are
their command-line faces.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from auditor.errors import NoRun, UsageError
from auditor.store.db import Store

AUDIT_KINDS = ("audit", "gate")

BROWSE_INSTALL = ("pip install 'containment-auditor[browse]' (from a clone of the repository: "
                  "pip install -e '.[browse]')")


def _json(value: Any, default: Any) -> Any:
    try:
        return json.loads(value) if value else default
    except ValueError:
        return default


def list_runs(store: Store) -> list[dict[str, Any]]:
    """Every recorded run, newest first: audits, gates and near-duplicate runs, with their
    status, scope, headline counts and report directory.

    A gate's ``status`` is its verdict (PASSED, FAILED, REFUSED; ``report_status`` keeps its
    report's OK or REFUSED), and its ``outcome`` what became of its batch: ``admitted`` (PASSED:
    the batch is corpus) or ``rolled back`` (the store does not hold it).
    """
    out = []
    for r in store.rows("SELECT * FROM runs ORDER BY id DESC"):
        summary = _json(r.get("summary"), {})
        scope = _json(r.get("scope"), {})
        verdict = r.get("verdict") if r["kind"] == "gate" else None
        row = {
            "id": r["id"], "run_id": r["run_id"], "kind": r["kind"], "status": verdict or r["status"],
            "report_status": r["status"],
            "started": r["started"], "ended": r["ended"],
            "scope": scope.get("kind") or ("corpus" if r["kind"] == "audit" else None),
            "batch": scope.get("batch"),
            "documents": summary.get("documents"),
            "contained": summary.get("contained_documents"),
            "pairs": summary.get("containing_pairs", summary.get("pairs")),
            "boilerplate": summary.get("boilerplate_documents"),
            "families": summary.get("families", summary.get("clusters")),
            "outcome": (None if r["kind"] != "gate" else "admitted" if verdict == "PASSED" else "rolled back"),
            "report_dir": r["report_dir"], "digest": r["digest"],
        }
        out.append(row)
    return out


def resolve_run(store: Store, run: str | int | None = None) -> dict[str, Any]:
    """A run by id (``runs.id``) or run id; None: the latest audit or admitted gate run that
    reported findings (status OK). A gate that did not admit its batch stored no pairs."""
    if run is None:
        rows = store.rows(
            f"SELECT id, run_id, kind, status FROM runs WHERE kind IN ({','.join('?' * len(AUDIT_KINDS))})"
            " AND status = 'OK' AND (kind != 'gate' OR verdict = 'PASSED') ORDER BY id DESC LIMIT 1", AUDIT_KINDS)
        if not rows:
            raise NoRun("no audit or gate run with findings is recorded in this store (run `auditor audit`)")
        return rows[0]
    ref = str(run).strip()
    cols = "id, run_id, kind, status, verdict, report_dir"
    rows = store.rows(f"SELECT {cols} FROM runs WHERE run_id = ?", (ref,))
    if not rows and ref.isdigit():
        rows = store.rows(f"SELECT {cols} FROM runs WHERE id = ?", (int(ref),))
    if not rows:
        raise NoRun(f"no run {ref!r} in this store (`auditor runs` lists them)")
    r = rows[0]
    if r["kind"] not in AUDIT_KINDS:
        raise UsageError(f"run {ref} is a {r['kind']} run; its pairs are in the near_duplicates table")
    if r["kind"] == "gate" and r["verdict"] not in (None, "PASSED"):
        raise NoRun(f"gate run {r['run_id']} did not admit its batch ({r['verdict']}): the store does not hold "
                    f"its batch or its pairs; they are in its report ({r['report_dir']}: gate.json, report.json)")
    return {k: r[k] for k in ("id", "run_id", "kind", "status")}


FINDING_COLUMNS = ("run_id", "contained_id", "contained", "contained_sources", "container_id", "container",
                   "container_sources", "containment", "estimate", "low", "high", "hits", "sampled", "family",
                   "boilerplate", "spans")


def _sources_of(alias: str) -> str:
    """The distinct ``--source`` labels of a document's sightings, as SQL (a JSON array, sorted)."""
    return ("(SELECT json_group_array(source) FROM (SELECT DISTINCT s.source FROM sightings s"
            f" WHERE s.doc_id = {alias}.id AND s.source IS NOT NULL ORDER BY s.source))")


def findings(store: Store, run: str | int | None = None, *, min_score: float | None = None,
             document: str | None = None, batch: str | None = None, source: str | None = None,
             limit: int | None = None) -> Iterator[dict[str, Any]]:
    """The containing pairs of a run (the latest by default), one dict per pair, highest
    containment first, from the store's findings table.

    :param min_score: keep pairs whose exact containment is at least this.
    :param document: keep pairs this document (id, sha256 prefix, path, or a file name one document
        was seen at) is part of, either way.
    :param batch: keep pairs with a document seen in this batch (either side).
    :param source: keep pairs with a document seen with this ``--source`` label (either side).
    :param limit: at most this many pairs.

    ``contained_sources`` and ``container_sources`` are the labels each document was seen with.
    ``spans`` (character offsets in the container, pages for PDFs) are recorded for each
    contained document's best containers, ``None`` for the others.
    """
    where, params, r = _matching(store, run, min_score, document, batch, source)
    sql = (
        "SELECT :run_id AS run_id, f.contained_id, c.path AS contained,"
        f" {_sources_of('c')} AS contained_sources, f.container_id, b.path AS container,"
        f" {_sources_of('b')} AS container_sources,"
        " f.containment, f.estimate, f.low, f.high, f.hits, f.sampled, f.family,"
        " coalesce(rd.boilerplate, 0) AS boilerplate, f.spans"
        " FROM findings f JOIN documents c ON c.id = f.contained_id JOIN documents b ON b.id = f.container_id"
        " LEFT JOIN run_documents rd ON rd.run = f.run AND rd.doc_id = f.contained_id"
        f" WHERE {where} ORDER BY f.containment DESC, f.contained_id, f.container_id"
        + (" LIMIT :limit" if limit is not None else ""))
    params["run_id"] = r["run_id"]
    if limit is not None:
        params["limit"] = int(limit)
    for row in store.db.query(sql, params):
        row["boilerplate"] = bool(row["boilerplate"])
        row["spans"] = _json(row["spans"], None)
        for side in ("contained_sources", "container_sources"):
            row[side] = _json(row[side], [])
        yield row


def count_findings(store: Store, run: str | int | None = None, *, min_score: float | None = None,
                   document: str | None = None, batch: str | None = None, source: str | None = None) -> int:
    """How many pairs :func:`findings` gives with these filters and no limit."""
    where, params, _ = _matching(store, run, min_score, document, batch, source)
    return int(store.scalar(f"SELECT count(*) FROM findings f WHERE {where}", params))


def _matching(store: Store, run: str | int | None, min_score: float | None, document: str | None,
              batch: str | None, source: str | None = None) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The WHERE clause over ``findings f`` and its parameters for a run and filters, and the run."""
    r = resolve_run(store, run)
    where = ["f.run = :run"]
    params: dict[str, Any] = {"run": r["id"]}
    if min_score is not None:
        where.append("f.containment >= :min_score")
        params["min_score"] = float(min_score)
    if document is not None:
        where.append("(f.contained_id = :doc OR f.container_id = :doc)")
        from auditor.corpus.document import find_document

        params["doc"] = find_document(store, document)
    if batch is not None:
        if not store.scalar("SELECT 1 FROM batches WHERE name = ?", (batch,)):
            hint = (f": {batch!r} is a source label, filter on it with --source {batch}"
                    if store.scalar("SELECT 1 FROM sightings WHERE source = ? LIMIT 1", (batch,)) else "")
            raise UsageError(f"no batch {batch!r} in this store (`auditor stats` lists batches and sources){hint}")
        seen = ("(SELECT s.doc_id FROM sightings s JOIN batches b ON b.id = s.batch_id WHERE b.name = :batch)")
        where.append(f"(f.contained_id IN {seen} OR f.container_id IN {seen})")
        params["batch"] = batch
    if source is not None:
        if not store.scalar("SELECT 1 FROM sightings WHERE source = ? LIMIT 1", (source,)):
            known = [x for (x,) in store.conn.execute(
                "SELECT DISTINCT source FROM sightings WHERE source IS NOT NULL ORDER BY source LIMIT 20")]
            raise UsageError(f"no document was ingested with --source {source!r}: "
                             + (f"the sources are {', '.join(map(repr, known))}" if known else
                                "no source label is recorded in this store (`auditor ingest --source LABEL`)"))
        seen = "(SELECT s.doc_id FROM sightings s WHERE s.source = :source)"
        where.append(f"(f.contained_id IN {seen} OR f.container_id IN {seen})")
        params["source"] = source
    return " AND ".join(where), params, r


def spans_text(spans: list[dict[str, Any]] | None) -> str:
    """``178360-200165 (pages 3-7); 200400-200900`` for tables and CSV."""
    if not spans:
        return ""
    out = []
    for s in spans:
        pages = s.get("pages")
        out.append(f"{s['start']}-{s['end']}" + (
            f" (page {pages[0]})" if pages and pages[0] == pages[-1] else
            f" (pages {pages[0]}-{pages[-1]})" if pages else ""))
    return "; ".join(out)


# -- Datasette ------------------------------------------------------------------------------

_LATEST = ("(SELECT max(id) FROM runs WHERE kind IN ('audit', 'gate') AND status = 'OK')")

_TABLES: dict[str, dict[str, Any]] = {
    "documents": {
        "description": "Every stored document: one row per distinct content (sha256 of the raw bytes), "
                       "with how its text was obtained. Sightings say where it was seen.",
        "label_column": "path",
        "columns": {
            "sha256": "sha256 of the raw bytes", "parent_id": "the EDGAR submission this part belongs to",
            "format": "detected format", "extractor": "what turned the bytes into text",
            "n_pages": "pages (PDF)", "page_offsets": "character offset of each page's start",
            "n_words": "normalised words", "norm_sha256": "sha256 of the normalised text",
            "duplicate_of": "the first document with the same normalised text",
            "meta": "format metadata (EDGAR header and part fields)", "path": "path of the first sighting",
            "batch_id": "the batch that first stored it", "withdrawn_at": "when it left the corpus (NULL: in it)",
            "unreadable": "why its text could not be (fully) read, so it is not audited (NULL: read)",
            "date": "its date (ISO 8601), the most trusted of those it has (see README, Dates)",
            "date_source": "where its date comes from: supplied:FILE, a metadata name, mtime, text or copied",
            "dates": "the dates it carries itself: metadata and a date its opening lines state (JSON)",
        },
    },
    "sightings": {
        "description": "Every place a document was seen: path as given and resolved, batch, source, mtime.",
        "columns": {"path": "as given to ingest", "resolved": "absolute path", "part": "EDGAR sequence",
                    "within_id": "the submission it was found in", "gone_at": "when the file was found gone",
                    "supplied_date": "a date supplied for this copy (--dates FILE)",
                    "supplied_from": "the dates file it came from"},
    },
    "batches": {"description": "Ingest batches (one per `auditor ingest` or gate run).", "label_column": "name"},
    "failures": {
        "description": "Inputs that could not be stored, with a reason code (status failed) or that were "
                       "skipped on purpose (status skipped).",
        "columns": {"code": "short stable reason", "message": "what happened, in words"},
    },
    "runs": {
        "description": "Every audit, gate and near-duplicate run: status, parameters, summary, scope, report.",
        "label_column": "run_id",
        "columns": {"kind": "audit, gate or near-dups:<method>",
                    "status": "OK or REFUSED (failed controls: no findings)",
                    "verdict": "a gate's verdict: PASSED, FAILED or REFUSED",
                    "params": "index and audit parameters (JSON)", "summary": "the report's summary (JSON)",
                    "report_dir": "where report.json, report.md and report.html were written",
                    "digest": "report.json's digest (auditor verify checks it)",
                    "scope": "the corpus, or a gate's batch and its new documents (JSON)"},
    },
    "findings": {
        "description": "Every containing pair of every audit and gate run: the contained document's "
                       "shingles found in the container, exact and estimated.",
        "sort_desc": "containment",
        "columns": {
            "run": "runs.id", "contained_id": "documents.id of the contained document",
            "container_id": "documents.id of the container",
            "containment": "|S(A) & S(B)| / |S(A)| over all 5-word shingles (exact)",
            "estimate": "the same over the 1-in-16 sampled shingles", "low": "Wilson 95% interval, low",
            "high": "Wilson 95% interval, high", "hits": "sampled shingles of A found in B",
            "sampled": "sampled shingles of A", "shared": "shingles of A found in B",
            "shingles": "shingles of A", "family": "family id when both documents contain one another",
            "spans": "where A lies in B: character offsets into B's text, pages (best containers only)",
        },
    },
    "run_documents": {
        "description": "Every document a run covered and what the audit made of it (a gate's run: its "
                       "batch and the documents its pairs name).",
        "columns": {"status": "audited, duplicate or not-auditable",
                    "duplicate_of": "the document that stood for it (same normalised text)",
                    "reason": "why it could not be audited", "family": "its family id, if any",
                    "containers": "documents that contain it (outside its family)",
                    "boilerplate": "1 if contained in so many unrelated documents it counts as boilerplate"},
    },
    "withdrawals": {"description": "Every withdrawal and restoration of a document, with who, when and why."},
    "near_duplicates": {"description": "Pairs found by `auditor near-dups` runs."},
    "texts": {"description": "Extracted text of each document (report spans index into it), in a Zstandard frame: "
                             "the query document_text shows it as text (auditor_text(text) in SQL).",
              "columns": {"sha256": "of the text's UTF-8 bytes", "text": "the text's UTF-8 bytes, compressed"},
              "hidden": True},
    "index_docs": {"description": "The sampled shingle index (binary).", "hidden": True},
    "postings": {"description": "The same sampled index keyed by hash (the 64-bit hash as a signed integer, and a "
                                "document holding it): a gate reads the postings of its batch's hashes.",
                 "hidden": True},
    "posted": {"description": "The documents whose postings are written (the others are read from index_docs).",
               "hidden": True},
    "sketches": {"description": "Cached values of the near-duplicate measures (MinHash sketches, simhashes, "
                               "fingerprints), by document, kind and parameters (binary).", "hidden": True},
    "readings": {
        "description": "Other readings of a gate's new documents (every text node, the other side of an "
                       "alternative, the bytes as plain text...), each audited against the corpus.",
        "columns": {"name": "which reading (html:all-text, docx:changes-rejected, edgar:outside-documents...)",
                    "why": "what the reading is", "text": "the reading's text",
                    "sha256": "of the text's UTF-8 bytes", "norm_sha256": "of its normalised words"},
    },
    "shingle_sequences": {"description": "Each indexed document's words as the audit reads them: word hashes "
                                         "and character offsets (binary, in a Zstandard frame).", "hidden": True},
    "meta": {"description": "Store settings: index parameters, schema version."},
    "_sqlite_migrations": {"description": "Schema migrations applied to the store.", "hidden": True},
    "custody": {"description": "The chain of custody: one entry per write, each holding the digest of what it "
                               "changed and the hash of the entry before it (`auditor check` verifies it).",
                "columns": {"entry": "canonical JSON: seq, prev, at, by, action, detail, changes, rows, state",
                            "rows": "[table, key, digest before, digest after] of every row the write changed",
                            "hash": "sha256 of entry"}},
    "custody_head": {"description": "The custody log's running state and the last entry a check verified.",
                     "hidden": True},
    "custody_rows": {"description": "The current digest of every row the custody log vouches for, kept by each "
                                    "entry (every text and word sequence read is checked against it).",
                     "hidden": True},
    "custody_edits": {"description": "A count of every change to a row the custody log vouches for, by any "
                                     "SQLite client (triggers); each entry records the count it leaves in "
                                     "custody_head, so a gate knows nothing was edited since.",
                      "hidden": True},
}

_SPANS = ("(SELECT group_concat(json_extract(s.value, '$.start') || '-' || json_extract(s.value, '$.end'), '; ')"
          " FROM json_each(f.spans) s) AS spans")
_SCORES = ("round(f.containment, 4) AS containment, round(f.estimate, 4) AS estimate,"
           " round(f.low, 4) AS low, round(f.high, 4) AS high")

PAGE_ROWS = 1000  # Datasette returns at most this many rows (its max_returned_rows): the rest by pages
_PAGE = (f" LIMIT {PAGE_ROWS} OFFSET coalesce(cast(nullif(:skip, '') AS integer), 0)")
_PAGED = f" {PAGE_ROWS:,} rows a page: set skip to {PAGE_ROWS}, {2 * PAGE_ROWS}... for the next pages."

_QUERIES: dict[str, dict[str, Any]] = {
    "latest_findings": {
        "title": "Findings of the latest run",
        "description": "Every containing pair of the latest audit or gate run, highest containment first "
                       "(the findings table has the unrounded values; spans are character offsets into "
                       "the container's text)." + _PAGED,
        "sql": ("SELECT f.contained_id, c.path AS contained, f.container_id, b.path AS container, " + _SCORES
                + ", f.family, rd.boilerplate, " + _SPANS + " FROM findings f"
                " JOIN documents c ON c.id = f.contained_id JOIN documents b ON b.id = f.container_id"
                " LEFT JOIN run_documents rd ON rd.run = f.run AND rd.doc_id = f.contained_id"
                f" WHERE f.run = {_LATEST} ORDER BY f.containment DESC, f.contained_id, f.container_id" + _PAGE),
    },
    "document_findings": {
        "title": "A document's findings",
        "description": "What contains a document and what it contains, in the latest run: give its id or path." + _PAGED,
        "sql": ("SELECT CASE WHEN f.contained_id = d.id THEN 'contained in' ELSE 'contains' END AS relation,"
                " f.contained_id, c.path AS contained, f.container_id, b.path AS container, " + _SCORES
                + ", f.family, " + _SPANS + " FROM documents d"
                " JOIN findings f ON f.run = " + _LATEST + " AND (f.contained_id = d.id OR f.container_id = d.id)"
                " JOIN documents c ON c.id = f.contained_id JOIN documents b ON b.id = f.container_id"
                " WHERE d.id = :document OR d.path = :document ORDER BY f.containment DESC" + _PAGE),
    },
    "boilerplate": {
        "title": "Boilerplate",
        "description": "Documents of the latest run contained in so many others that they count as boilerplate." + _PAGED,
        "sql": ("SELECT rd.doc_id, d.path, rd.containers, d.n_words FROM run_documents rd"
                " JOIN documents d ON d.id = rd.doc_id"
                f" WHERE rd.run = {_LATEST} AND rd.boilerplate = 1 ORDER BY rd.containers DESC, rd.doc_id" + _PAGE),
    },
    "failed_inputs": {
        "title": "Failed inputs",
        "description": "Inputs that could not be stored, and those skipped, with the reason and the batch." + _PAGED,
        "sql": ("SELECT f.status, f.code, f.message, f.path, f.part, b.name AS batch, f.seen_at FROM failures f"
                " JOIN batches b ON b.id = f.batch_id ORDER BY f.status, f.code, f.path, f.part" + _PAGE),
    },
    "document_text": {
        "title": "A document's text",
        "description": "The stored text of a document, as audits read it and spans index into it: give its id or path.",
        "sql": ("SELECT d.id, d.path, d.n_chars, t.sha256, auditor_text(t.text) AS text FROM documents d"
                " JOIN texts t ON t.doc_id = d.id WHERE d.id = :document OR d.path = :document"),
    },
    "runs": {
        "title": "Runs",
        "description": "Audits, gates and near-duplicate runs, newest first.",
        "sql": ("SELECT id, run_id, kind, coalesce(verdict, status) AS status, started,"
                " json_extract(scope, '$.batch') AS batch,"
                " json_extract(summary, '$.contained_documents') AS contained,"
                " json_extract(summary, '$.containing_pairs') AS pairs, report_dir FROM runs ORDER BY id DESC"),
    },
}


def datasette_metadata(db: Path) -> dict[str, Any]:
    """Datasette metadata for a store: table and column descriptions, label columns (documents
    by path, batches by name, runs by run id) and canned queries."""
    return {
        "title": f"containment-auditor store {Path(db).name}",
        "description": "Documents, provenance, runs and findings of a containment-auditor store (read-only).",
        "databases": {Path(db).stem: {"tables": _TABLES, "queries": _QUERIES}},
    }


def datasette_missing() -> str | None:
    try:
        import datasette  # noqa: F401
    except ImportError:
        return f"auditor browse needs Datasette, which is not installed: {BROWSE_INSTALL}"
    return None


DATASETTE_PLUGIN = '''"""containment-auditor's SQL functions on Datasette's connections (written by `auditor browse`)."""
from datasette import hookimpl

from auditor.store.packing import sql_text


@hookimpl
def prepare_connection(conn):
    conn.create_function("auditor_text", 1, sql_text, deterministic=True)
'''
"""The Datasette plugin ``auditor browse`` serves with: ``auditor_text(texts.text)``, the plain
text of a stored frame, as ``Store`` registers it on its own connections."""


def datasette_command(db: Path, metadata: Path, port: int = 8001, host: str = "127.0.0.1",
                      plugins: Path | None = None) -> list[str]:
    """The Datasette command line that serves ``db`` read-only with ``metadata`` (and the plugins
    in the directory ``plugins``: one file holding ``DATASETTE_PLUGIN``)."""
    return [sys.executable, "-m", "datasette", "serve", str(db), "--host", host, "--port", str(port),
            *(["--plugins-dir", str(plugins)] if plugins is not None else []),
            "--metadata", str(metadata), "--setting", "sql_time_limit_ms", "10000",
            "--setting", "default_page_size", "100"]
