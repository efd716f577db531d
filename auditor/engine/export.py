"""Export a store as Parquet, the form a Spark cluster reads (``auditor export``).

SQLite is one file on one machine; a cluster reads many files from shared storage in parallel.
The export writes, under one directory:

- ``documents/``: one row per document not withdrawn (withdrawn ones take no part in audits and
  are left out everywhere below) with its provenance (sha256, path, format,
  extractor, parent EDGAR submission, exact-duplicate link, meta), why its text cannot be
  read when it cannot (``unreadable``, which puts it on the not-auditable list) and its index
  counts (``n_shingles``, ``n_sampled``; null when the document is not indexed): every column
  of ``documents`` that either engine reads (``DOCUMENT_SCHEMA``);
- ``sightings/``: every place each document was seen;
- ``postings/bucket=B/``: the sampled index as ``(hash, doc_id)`` rows, ``hash`` being the
  uint64 shingle hash viewed as a signed int64 (Parquet and Spark have no unsigned 64-bit
  type; equality, which is all joins need, is unchanged). Rows are spread over buckets by
  ``uint64 hash % buckets``, so each posting list lies in one bucket and a cluster can read
  buckets in parallel;
- ``failures/``: every input that failed or was skipped, with its reason, as ingest recorded it;
- ``texts/``: ``(doc_id, text)``, the stored text, for exact verification on the cluster;
- ``sequences/``: ``(doc_id, n_words, sha256, data)``, each document's word sequence as the
  store keeps it (``shingle.WordSequence.encode``: the word hashes and their character offsets),
  so that verification and span location on the cluster need not tokenise the texts again;
- ``params.json``: the index parameters (k, modulus, seed, hash, normalisation), counts, and
  the corpus digest, so a reader can refuse an export built with other parameters.

Everything is streamed from SQLite with bounded memory: a corpus larger than RAM exports too.
"""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from auditor.engine.universe import universe_digest
from auditor.errors import UsageError
from auditor.store.db import SCHEMA_VERSION, Store, now

# Format 1: documents/ with ``unreadable``, ``date`` and ``date_source``, and failures/, so a
# report written from the export alone (``auditor audit --engine spark --parquet``) is the store's.
# Format 2 adds sequences/. A format 1 export is still read: its words come from its texts.
FORMAT = "containment-auditor-parquet/2"
READS = (FORMAT, "containment-auditor-parquet/1")
POSTINGS_PER_BUCKET = 4_000_000  # ~64 MB of Parquet per bucket file: a good cluster task size
MAX_BUCKETS = 1024
TEXT_FILE_CHARS = 128_000_000  # roll texts/ files at about this many characters
TEXT_ROW_GROUP_CHARS = 4_000_000  # small row groups: the driver reads one text cheaply
SEQUENCE_ROW_GROUP_BYTES = 4_000_000  # as small, for the same reason (about 1.3 M words)
# rows per row group of documents/, sightings/ and failures/: a reader decodes a row group whole,
# so the driver that opens the export (``ExportStore``) holds this many rows at a time, not the table
TABLE_ROW_GROUP_ROWS = 10_000
TABLE_ROW_GROUP_BYTES = 4_000_000  # the same bound where Spark writes them, which counts bytes
_FLUSH_POSTINGS = 1_000_000

DOCUMENT_SCHEMA = pa.schema([
    ("id", pa.int64()), ("sha256", pa.string()), ("path", pa.string()), ("format", pa.string()),
    ("extractor", pa.string()), ("extractor_version", pa.string()), ("encoding", pa.string()),
    ("size", pa.int64()), ("n_pages", pa.int64()), ("page_offsets", pa.string()),
    ("n_chars", pa.int64()), ("n_words", pa.int64()), ("norm_sha256", pa.string()),
    ("parent_id", pa.int64()), ("duplicate_of", pa.int64()), ("meta", pa.string()),
    ("warnings", pa.string()), ("batch", pa.string()), ("created", pa.string()),
    ("n_shingles", pa.int64()), ("n_sampled", pa.int64()), ("unreadable", pa.string()),
    ("date", pa.string()), ("date_source", pa.string()),
    ("dates", pa.string()),  # the dates the document's own text and metadata state (JSON)
])
FAILURE_SCHEMA = pa.schema([
    ("id", pa.int64()), ("batch", pa.string()), ("status", pa.string()), ("code", pa.string()),
    ("message", pa.string()), ("path", pa.string()), ("part", pa.string()), ("sha256", pa.string()),
    ("within_id", pa.int64()), ("size", pa.int64()), ("source", pa.string()),
])
SIGHTING_SCHEMA = pa.schema([
    ("doc_id", pa.int64()), ("path", pa.string()), ("resolved", pa.string()), ("part", pa.string()),
    ("within_id", pa.int64()), ("size", pa.int64()), ("mtime", pa.string()), ("source", pa.string()),
    ("meta", pa.string()), ("seen_at", pa.string()), ("batch", pa.string()),
    ("supplied_date", pa.string()), ("supplied_from", pa.string()),  # a dates file's, for this copy
])
POSTING_SCHEMA = pa.schema([("hash", pa.int64()), ("doc_id", pa.int64())])
TEXT_SCHEMA = pa.schema([("doc_id", pa.int64()), ("text", pa.string())])
SEQUENCE_SCHEMA = pa.schema([("doc_id", pa.int64()), ("n_words", pa.int64()), ("sha256", pa.string()),
                             ("data", pa.binary())])


@dataclass
class ExportResult:
    directory: str
    documents: int
    indexed: int
    postings: int
    buckets: int
    texts: int
    text_chars: int
    sequences: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def default_buckets(postings: int) -> int:
    """Enough buckets that each holds about ``POSTINGS_PER_BUCKET`` postings."""
    return max(1, min(MAX_BUCKETS, math.ceil(postings / POSTINGS_PER_BUCKET)))


def _write_rows(cursor: Any, schema: pa.Schema, path: Path) -> None:
    """A query's rows into one Parquet file, ``TABLE_ROW_GROUP_ROWS`` rows per row group, read
    and written a row group at a time (an empty result is a file with no row)."""
    with pq.ParquetWriter(path, schema) as w:
        while rows := cursor.fetchmany(TABLE_ROW_GROUP_ROWS):
            cols = list(zip(*rows, strict=True))
            w.write_table(pa.table([pa.array(list(c), type=f.type) for c, f in zip(cols, schema, strict=True)],
                                   schema=schema))


def export_parquet(
    store: Store,
    directory: str | Path,
    *,
    buckets: int | None = None,
    texts: bool = True,
    overwrite: bool = False,
) -> ExportResult:
    """Write the store's documents, sampled postings and texts as Parquet under ``directory``.

    :param buckets: postings buckets (default: one per ~4 M postings).
    :param texts: also write ``texts/`` (needed for exact verification on the cluster).
    :param overwrite: replace an existing export; otherwise a non-empty directory is an error.
    """
    out = Path(directory)
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise UsageError(f"{out} is not empty; pass overwrite=True (--overwrite) to replace it")
        if not (out / "params.json").exists():
            raise UsageError(f"{out} is not empty and holds no export; refusing to delete it")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    conn = store.conn

    (out / "documents").mkdir()
    _write_rows(conn.execute(
        "SELECT d.id, d.sha256, d.path, d.format, d.extractor, d.extractor_version, d.encoding,"
        " d.size, d.n_pages, d.page_offsets, d.n_chars, d.n_words, d.norm_sha256, d.parent_id,"
        " d.duplicate_of, d.meta, d.warnings, b.name, d.created, i.n_shingles, i.n_sampled, d.unreadable,"
        " d.date, d.date_source, d.dates"
        " FROM documents d JOIN batches b ON b.id = d.batch_id"
        " LEFT JOIN index_docs i ON i.doc_id = d.id WHERE d.withdrawn_at IS NULL ORDER BY d.id"
    ), DOCUMENT_SCHEMA, out / "documents" / "part-00000.parquet")
    (out / "sightings").mkdir()
    _write_rows(conn.execute(
        "SELECT s.doc_id, s.path, s.resolved, s.part, s.within_id, s.size, s.mtime, s.source,"
        " s.meta, s.seen_at, b.name, s.supplied_date, s.supplied_from"
        " FROM sightings s JOIN batches b ON b.id = s.batch_id"
        " WHERE s.doc_id IN (SELECT id FROM documents WHERE withdrawn_at IS NULL) ORDER BY s.id"
    ), SIGHTING_SCHEMA, out / "sightings" / "part-00000.parquet")
    (out / "failures").mkdir()
    _write_rows(conn.execute(
        "SELECT f.id, b.name, f.status, f.code, f.message, f.path, f.part, f.sha256, f.within_id, f.size,"
        " f.source FROM failures f"
        " JOIN batches b ON b.id = f.batch_id ORDER BY f.id"), FAILURE_SCHEMA, out / "failures" / "part-00000.parquet")

    n_postings = int(store.scalar(f"SELECT coalesce(sum(n_sampled), 0) FROM index_docs WHERE {_LIVE}"))
    n_buckets = buckets or default_buckets(n_postings)
    if n_buckets < 1:
        raise UsageError("buckets must be at least 1")
    written = _export_postings(store, out / "postings", n_buckets)
    n_texts, n_chars = _export_texts(store, out / "texts") if texts else (0, 0)
    n_sequences = _export_sequences(store, out / "sequences")

    live = [r[0] for r in store.conn.execute("SELECT id FROM documents WHERE withdrawn_at IS NULL ORDER BY id")]
    n_docs, cdig = len(live), universe_digest(store, live)
    result = ExportResult(str(out), n_docs, int(store.scalar(f"SELECT count(*) FROM index_docs WHERE {_LIVE}")),
                          written, n_buckets, n_texts, n_chars, n_sequences)
    meta = {
        "format": FORMAT, "schema_version": SCHEMA_VERSION, "params": store.params.as_dict(),
        "with_texts": texts, "with_sequences": True, "hash_encoding": "uint64 viewed as int64 (two's complement)",
        "bucket": "uint64 hash % buckets", "corpus": {"documents": n_docs, "digest": cdig},
        "counts": {k: v for k, v in result.as_dict().items() if k != "directory"},
        "source": str(store.path),
        "exported": now(),
    }
    (out / "params.json").write_text(json.dumps(meta, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    return result


_LIVE = "doc_id IN (SELECT id FROM documents WHERE withdrawn_at IS NULL)"


def _export_postings(store: Store, where: Path, n_buckets: int) -> int:
    """Stream index_docs into one Parquet file per bucket, flushing every ~1 M postings."""
    writers: dict[int, pq.ParquetWriter] = {}
    pending_h: list[np.ndarray] = []
    pending_d: list[np.ndarray] = []
    held = written = 0

    def flush() -> None:
        nonlocal held, written
        if not held:
            return
        h = np.concatenate(pending_h)
        d = np.concatenate(pending_d)
        bucket = h % np.uint64(n_buckets)
        order = np.argsort(bucket, kind="stable")  # keeps document order within a bucket
        h, d, bucket = h[order], d[order], bucket[order]
        cuts = np.flatnonzero(np.diff(bucket)) + 1
        for a, b in zip(np.concatenate(([0], cuts)), np.concatenate((cuts, [len(h)])), strict=True):
            k = int(bucket[a])
            if k not in writers:
                (where / f"bucket={k}").mkdir(parents=True)
                writers[k] = pq.ParquetWriter(where / f"bucket={k}" / "part-00000.parquet", POSTING_SCHEMA)
            writers[k].write_table(pa.table(
                {"hash": h[a:b].view(np.int64), "doc_id": d[a:b]}, schema=POSTING_SCHEMA))
        written += len(h)
        pending_h.clear()
        pending_d.clear()
        held = 0

    where.mkdir()
    for doc_id, blob in store.conn.execute(f"SELECT doc_id, sampled FROM index_docs WHERE {_LIVE} ORDER BY doc_id"):
        s = np.frombuffer(blob, dtype=np.uint64)
        if len(s):
            pending_h.append(s)
            pending_d.append(np.full(len(s), doc_id, dtype=np.int64))
            held += len(s)
            if held >= _FLUSH_POSTINGS:
                flush()
    flush()
    for w in writers.values():
        w.close()
    if not writers:  # an empty index is still a readable dataset
        (where / "bucket=0").mkdir()
        pq.write_table(POSTING_SCHEMA.empty_table(), where / "bucket=0" / "part-00000.parquet")
    return written


def _export_texts(store: Store, where: Path) -> tuple[int, int]:
    """Stream texts in document order into files of about ``TEXT_FILE_CHARS`` characters."""
    where.mkdir()
    n = chars = 0
    file_no = file_chars = 0
    writer: pq.ParquetWriter | None = None
    ids: list[int] = []
    texts: list[str] = []
    group_chars = 0

    def write_group() -> None:
        nonlocal group_chars
        if ids and writer is not None:
            writer.write_table(pa.table({"doc_id": ids, "text": texts}, schema=TEXT_SCHEMA))
        ids.clear()
        texts.clear()
        group_chars = 0

    live = [int(i) for i, in store.conn.execute("SELECT id FROM documents WHERE withdrawn_at IS NULL ORDER BY id")]
    for doc_id, text in store.texts_of(live):
        if writer is None:
            writer = pq.ParquetWriter(where / f"part-{file_no:05d}.parquet", TEXT_SCHEMA)
        ids.append(doc_id)
        texts.append(text)
        n += 1
        chars += len(text)
        group_chars += len(text)
        file_chars += len(text)
        if group_chars >= TEXT_ROW_GROUP_CHARS:
            write_group()
        if file_chars >= TEXT_FILE_CHARS:
            write_group()
            writer.close()
            writer, file_no, file_chars = None, file_no + 1, 0
    if writer is None:
        writer = pq.ParquetWriter(where / f"part-{file_no:05d}.parquet", TEXT_SCHEMA)
    write_group()
    writer.close()
    return n, chars


def _export_sequences(store: Store, where: Path) -> int:
    """Every live document's word sequence, in id order, as the store keeps it (checked as it is
    read); one the store lacks (a document indexed before sequences were stored) is derived from
    its text as ingest derives it. Row groups of about ``SEQUENCE_ROW_GROUP_BYTES``."""
    from auditor.store.packing import digest
    from auditor.text.shingle import WordHasher, WordSequence, read_words

    where.mkdir()
    writer = pq.ParquetWriter(where / "part-00000.parquet", SEQUENCE_SCHEMA)
    rows: list[tuple[int, int, str, bytes]] = []
    held = n = 0
    hasher: WordHasher | None = None

    def flush() -> None:
        nonlocal held
        if rows:
            writer.write_table(pa.table([pa.array(c, type=f.type) for c, f in zip(zip(*rows, strict=True),
                                                                                   SEQUENCE_SCHEMA, strict=True)],
                                        schema=SEQUENCE_SCHEMA))
        rows.clear()
        held = 0

    live = [int(i) for i, in store.conn.execute(
        "SELECT id FROM documents WHERE withdrawn_at IS NULL AND n_words > 0 ORDER BY id")]
    for a in range(0, len(live), 1000):
        ids = live[a : a + 1000]
        found = dict(store.sequences_of(ids))
        missing = [i for i in ids if i not in found]
        if missing:
            hasher = hasher or WordHasher(store.params.seed)
            found |= {i: read_words(t, hasher).sequence.encode() for i, t in store.texts_of(missing)}
        for doc_id in ids:
            if doc_id in found:
                data = found[doc_id]
                rows.append((doc_id, WordSequence.header(data)[0], digest(data), data))
                held += len(data)
                n += 1
                if held >= SEQUENCE_ROW_GROUP_BYTES:
                    flush()
    flush()
    writer.close()
    return n


def read_params(directory: str | Path) -> dict[str, Any]:
    """The export's ``params.json``; refuses a directory that is not an export of a format this
    auditor reads."""
    path = Path(directory) / "params.json"
    try:
        meta: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"{directory} is not a Parquet export (cannot read {path}: {e})") from e
    check_format(meta, str(path))
    return meta


def check_format(meta: dict[str, Any], where: str) -> None:
    """Refuse an export of a format this auditor does not read, saying what to do."""
    if meta.get("format") not in READS:
        raise UsageError(f"{where}: format {meta.get('format')!r}; this auditor reads {' and '.join(READS)}: "
                         "export the store again with this auditor (auditor export --overwrite)")
