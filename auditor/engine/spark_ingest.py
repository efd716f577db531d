"""Ingest on Spark: files extracted on the executors, written as the export layout, no store.

``auditor ingest --engine spark INPUT... --parquet DIR``. The driver walks the inputs (the
walk of ``auditor ingest``: the same order, the same paths as given) and cuts the list of files
into parts of ``FILES_PER_PART``. Each part is one Spark task. The task ingests its files with
``auditor.corpus.ingest.ingest`` itself, in a private scratch store: the same sandboxed
extractors in their child processes, the same limits, the same failures with their reasons.
It then writes that store as the export layout under ``DIR/parts/N/`` (``export_parquet``).
A part is complete once its ``params.json`` is there, beside the list of its files; a re-run
of the same command skips every complete part whose files are the same.

The merge (a Spark job) makes one export of the parts, as one ingest of every file in walk
order would have made one store: a document's id is its rank among the first copies of each
content (by part, then by the part's own id, which follows the walk), copies found in later
parts become sightings of the first, exact-duplicate groups are formed over all parts, and
sightings and failures are numbered in the same order. ``DIR/`` then holds ``documents/``,
``sightings/``, ``failures/``, ``texts/``, ``postings/`` and ``params.json``, read by
``auditor audit --engine spark --parquet DIR`` as an export of a store.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from auditor.corpus.ingest import Found

FILES_PER_PART = 64  # files per Spark task: a few MB to a few hundred of text


@dataclass
class SparkIngest:
    directory: str
    files: int
    parts: int
    parts_done_before: int
    documents: int
    failures: int
    missing: list[str]  # inputs that do not exist: named to the user, not recorded (as by ingest)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _part_key(spec: list[str | dict[str, Any]]) -> str:
    """What a part is made of: its local paths, or its URIs' entries with their sizes and mtimes
    (a file changed since a part was written is read again)."""
    lines = [x if isinstance(x, str) else json.dumps(x, sort_keys=True) for x in spec]
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def _write_part(request: dict[str, Any], n: int, spec: list[Any], walked: list[Found] | None) -> None:
    """One part ingested into a scratch store and written as the export layout under
    ``parts/N/``; its ``files.json`` last, so a part killed before it is done again."""
    from auditor.corpus.ingest import ingest
    from auditor.engine.export import export_parquet
    from auditor.extract import Limits
    from auditor.store.db import Store

    target = Path(request["out"]) / "parts" / f"{n:06d}"
    if walked is None:
        os.chdir(request["cwd"])  # local paths are recorded as given, relative ones too
    with tempfile.TemporaryDirectory(prefix="auditor-spark-ingest-") as tmp, \
            Store(Path(tmp) / "part.db") as store:
        store.set_meta("index_params", json.dumps(request["params"], sort_keys=True))
        ingest(store, spec if walked is None else [], batch=request["batch"], source=request["source"],
               limits=Limits(**request["limits"]), workers=1, command=request["command"], walked=walked)
        if target.exists():
            shutil.rmtree(target)
        export_parquet(store, target)
    (target / "files.json").write_text(json.dumps(spec), encoding="utf-8")


def _ingest_parts(request: dict[str, Any], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Parts of local paths, one per row: each ingested from its paths (walked again here)."""
    import pyarrow as pa

    for batch in batches:
        done = []
        for n, files_json in zip(batch.column("part").to_pylist(), batch.column("files").to_pylist(), strict=True):
            _write_part(request, n, json.loads(files_json), None)
            done.append(n)
        yield pa.RecordBatch.from_pydict({"part": pa.array(done, pa.int64())})


UNREAD = ("cannot read: the executor could not read it through Hadoop's file system (it vanished, or "
          "reading failed: the executor's log names the error)")


def _found(entry: dict[str, Any], copy: tuple[str, bool] | None, max_bytes: int) -> Found:
    """A URI part's entry as the ingest of its copy sees it: ``copy`` is (local copy, whether
    its length is the one the executor listed), None when no bytes came."""
    from auditor.corpus.ingest import Found

    where = {"uri": entry.get("uri") or entry["path"], "mtime": entry.get("mtime", ""),
             "size": entry.get("size", 0)}
    if entry.get("status"):
        return Found(entry["path"], "", entry["status"], entry["code"], entry["message"], **where)
    if entry["size"] > max_bytes:  # as the local walk refuses it: by its size, unread
        return Found(entry["path"], "", "failed", "too_large",
                     f"{entry['size']} bytes is over the limit of {max_bytes}", **where)
    if copy is None:
        return Found(entry["path"], "", "failed", "unreadable", UNREAD, **where)
    if not copy[1]:
        return Found(entry["path"], "", "failed", "changed",
                     "the bytes read are not as long as the file: it changed while it was being read", **where)
    return Found(entry["path"], copy[0], uri=where["uri"], mtime=where["mtime"])


def _ingest_uri_parts(request: dict[str, Any], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Parts of URIs: a manifest row per part (``idx`` -1) and a row per file read, with its
    bytes. Each file is copied to local disk as it comes; once the task's rows are read, each
    part is ingested from its copies."""
    import pyarrow as pa

    max_bytes = int(request["limits"]["max_file_bytes"])
    with tempfile.TemporaryDirectory(prefix="auditor-spark-read-") as tmp:
        specs: dict[int, list[dict[str, Any]]] = {}
        copies: dict[tuple[int, int], tuple[str, bool]] = {}
        for batch in batches:
            part, idx = batch.column("part").to_pylist(), batch.column("idx").to_pylist()
            manifest, content, length = batch.column("manifest"), batch.column("content"), batch.column("length")
            for i, (n, j) in enumerate(zip(part, idx, strict=True)):
                if j < 0:
                    specs[n] = json.loads(manifest[i].as_py())
                elif (n, j) not in copies:
                    data = content[i].as_py()
                    copy = Path(tmp) / f"{n}-{j}"
                    copy.write_bytes(data)
                    copies[n, j] = (str(copy), len(data) == length[i].as_py())
        done = []
        for n in sorted(specs):
            walked = [_found(e, copies.get((n, j)), max_bytes) for j, e in enumerate(specs[n])]
            _write_part(request, n, specs[n], walked)
            for j in range(len(specs[n])):
                if (n, j) in copies:
                    os.unlink(copies[n, j][0])
            done.append(n)
        yield pa.RecordBatch.from_pydict({"part": pa.array(done, pa.int64())})


PARTS_PER_JOB = 512
"""URI parts read and ingested by one Spark job: their files' list is broadcast to the read (about
5 MB for 512 parts of 64 files)."""


def _glob_escaped(uri: str) -> str:
    """``uri`` as Spark's reader takes it: a path with ``*?[]{}\\`` is a glob pattern there."""
    return re.sub(r"([\\{}\[\]*?])", r"\\\1", uri)


def _slot_keys(spark: SparkSession, n: int) -> list[int]:
    """``n`` keys that ``repartition(n, key)`` sends to ``n`` different partitions: one part a
    task. Hash partitioning by the part number itself leaves about a third of the tasks empty
    and gives others two parts or more."""
    from pyspark.sql import functions as F

    slots: dict[int, int] = dict(spark.range(0, 64 * n + 64).select("id", F.expr(f"pmod(hash(id), {n})").alias("slot"))
                 .groupBy("slot").agg(F.min("id").alias("id")).collect())
    return [int(slots.get(i, i)) for i in range(n)]


def _read_uri_parts(spark: SparkSession, todo: list[tuple[int, list[Any]]], request: dict[str, Any]) -> None:
    """The URI parts in ``todo`` read on the executors and ingested there, ``PARTS_PER_JOB`` a job.

    Spark's ``binaryFile`` source reads the bytes (on the executors, through Hadoop's file
    systems), with hidden-file filtering off (names starting with ``.`` or ``_`` are files like
    any other here). A file it cannot read is left out (``ignoreCorruptFiles``,
    ``ignoreMissingFiles``) rather than failing the job; the part's manifest then records it as
    unreadable. The rows are joined to their part and sent, one part a task, to the ingest."""
    import functools

    from pyspark.sql import functions as F

    from auditor.engine.spark_engine import NO_AUTO_BROADCAST, spark_settings

    max_bytes = int(request["limits"]["max_file_bytes"])
    # no automatic broadcast: the files' bytes must never be gathered on the driver
    conf = {**NO_AUTO_BROADCAST, "spark.sql.execution.arrow.maxRecordsPerBatch": "16",
            "spark.sql.execution.arrow.maxBytesPerBatch": str(64 * 2**20)}
    with spark_settings(spark, **conf):
        for a in range(0, len(todo), PARTS_PER_JOB):
            wave = todo[a : a + PARTS_PER_JOB]
            keys = _slot_keys(spark, len(wave))
            rows = spark.createDataFrame(
                [(keys[w], n, -1, json.dumps(spec), None, None) for w, (n, spec) in enumerate(wave)],
                "key long, part long, idx long, manifest string, content binary, length long")
            wanted = [(keys[w], n, j, e["uri"]) for w, (n, spec) in enumerate(wave) for j, e in enumerate(spec)
                      if e.get("uri") and not e.get("status") and e["size"] <= max_bytes]
            content = _bytes_of(spark, sorted({w[3] for w in wanted}))
            if content is not None:
                listing = spark.createDataFrame(wanted, "key long, part long, idx long, path string")
                rows = rows.unionByName(content.join(F.broadcast(listing), "path").select(
                    "key", "part", "idx", F.lit(None).cast("string").alias("manifest"), "content", "length"))
            (rows.repartition(len(wave), "key")
             .mapInArrow(functools.partial(_ingest_uri_parts, request), "part long").collect())


def _bytes_of(spark: SparkSession, uris: list[str]) -> Any:
    """``(path, content, length)`` of each of ``uris`` that can be read, read on the executors
    (None when none is left). The reader checks on the driver that each path exists as it is
    set up: a file removed since the walk is dropped here, and recorded as unreadable."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import AnalysisException

    def load(these: list[str]) -> Any:
        return (spark.read.format("binaryFile").option("ignoredPathSegmentRegex", "")
                .option("ignoreMissingFiles", "true").option("ignoreCorruptFiles", "true")
                .load([_glob_escaped(u) for u in these]).select("path", "content", "length"))

    if not uris:
        return None
    try:
        return load(uris)
    except AnalysisException as e:
        if "PATH_NOT_FOUND" not in str(e):
            raise
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()  # type: ignore[union-attr]
    left = []
    for u in uris:
        path = jvm.org.apache.hadoop.fs.Path(u)  # type: ignore[union-attr]
        try:
            if path.getFileSystem(conf).exists(path):
                left.append(u)
        except Py4JJavaError:
            pass  # cannot be asked: left out, recorded as unreadable
    return load(left) if left else None


def _complete(part: Path) -> bool:
    """Whether ``part`` was written whole, in the export format of this auditor (a part of an
    earlier format lacks tables the merge reads, such as ``sequences/``)."""
    from auditor.engine.export import FORMAT

    try:
        return bool(json.loads((part / "params.json").read_text(encoding="utf-8")).get("format") == FORMAT)
    except (OSError, ValueError):
        return False


def _cut(entries: list[tuple[str, Any]], files_per_part: int) -> list[list[Any]]:
    """Parts of at most ``files_per_part`` entries in walk order, each of one kind (local paths
    or URIs)."""
    chunks: list[list[Any]] = []
    kind = None
    for k, spec in entries:
        if not chunks or k != kind or len(chunks[-1]) >= files_per_part:
            chunks.append([])
            kind = k
        chunks[-1].append(spec)
    return chunks


def spark_ingest(
    spark: SparkSession, inputs: list[str | os.PathLike], directory: str | Path, *,
    batch: str | None = None, source: str | None = None, limits: Any = None, command: str = "",
    files_per_part: int = FILES_PER_PART,
) -> SparkIngest:
    """Ingest ``inputs`` (local paths and URIs) on Spark into the export layout at ``directory``
    (see the module docstring). An input that does not exist is named in ``missing``, not recorded."""
    from auditor.corpus.ingest import default_batch_name, is_uri, walk
    from auditor.engine.spark_walk import walk_uri
    from auditor.extract import Limits
    from auditor.text.shingle import Params

    out = Path(directory).resolve()
    out.mkdir(parents=True, exist_ok=True)
    entries: list[tuple[str, Any]] = []
    missing: list[str] = []
    for given in (os.fsdecode(os.fspath(i)) for i in inputs):
        if is_uri(given):
            listed = walk_uri(spark, given)
            if listed is None:
                missing.append(given)
            else:
                entries += [("uri", e.as_dict()) for e in listed]
        elif os.path.lexists(given):
            entries += [("path", f.path) for f in walk([given])]
        else:
            missing.append(given)
    chunks = _cut(entries, files_per_part)
    local_todo, uri_todo, before = [], [], 0
    for n, spec in enumerate(chunks):
        part = out / "parts" / f"{n:06d}"
        listed_file = part / "files.json"
        if _complete(part) and listed_file.is_file() and \
                _part_key(json.loads(listed_file.read_text(encoding="utf-8"))) == _part_key(spec):
            before += 1  # written by an earlier run: resumed past
        elif isinstance(spec[0], str):
            local_todo.append((n, json.dumps(spec)))
        else:
            uri_todo.append((n, spec))
    for stale in sorted((out / "parts").glob("*")) if (out / "parts").is_dir() else []:
        if not stale.name.isdigit() or int(stale.name) >= len(chunks):
            shutil.rmtree(stale)  # a part of other inputs: not this corpus
    present = [i for i in inputs if os.fsdecode(os.fspath(i)) not in missing]
    request: dict[str, Any] = {"out": str(out), "cwd": os.getcwd(), "params": Params().as_dict(),
               "batch": batch or default_batch_name(present), "source": source,
               "limits": asdict(limits or Limits()), "command": command}
    if local_todo:
        import functools

        keys = _slot_keys(spark, len(local_todo))
        parts = spark.createDataFrame([(keys[w], n, files) for w, (n, files) in enumerate(local_todo)],
                                      "key long, part long, files string")
        parts.repartition(len(local_todo), "key").mapInArrow(
            functools.partial(_ingest_parts, request), "part long").collect()
    if uri_todo:
        _read_uri_parts(spark, uri_todo, request)
    from auditor.engine.spark_engine import NO_AUTO_BROADCAST, spark_settings

    with spark_settings(spark, **NO_AUTO_BROADCAST):  # its joins are of whole corpus tables
        counts = _merge(spark, out, len(chunks), request["params"])
    return SparkIngest(str(out), sum(len(c) for c in chunks), len(chunks), before, counts[0], counts[1], missing)


def _merge(spark: SparkSession, out: Path, n_parts: int, params: dict[str, Any]) -> tuple[int, int]:
    """One export from the parts: global ids, first copies, duplicate groups, one numbering."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    from auditor.engine import export
    from auditor.engine.export import DOCUMENT_SCHEMA, FORMAT, default_buckets
    from auditor.store.db import SCHEMA_VERSION, now

    if n_parts == 0:
        raise_empty(out)
    base = f"{out.as_uri()}/parts"

    def read(name: str) -> Any:
        return (spark.read.parquet(*[f"{base}/{n:06d}/{name}" for n in range(n_parts)])
                .withColumn("pn", F.regexp_extract(F.input_file_name(), r"/parts/(\d+)/", 1).cast("long")))

    docs = read("documents").persist()
    everywhere = Window.orderBy("pn", "id")
    first = Window.partitionBy("sha256").orderBy("pn", "id")
    ranked = docs.withColumn("first_part", F.first("pn").over(first)) \
        .withColumn("first_id", F.first("id").over(first))
    kept = ranked.where((F.col("pn") == F.col("first_part")) & (F.col("id") == F.col("first_id"))) \
        .withColumn("gid", F.row_number().over(everywhere).cast("long"))
    ids = ranked.join(kept.select("sha256", "gid"), "sha256").select("pn", "id", "gid").persist()

    def mapped(df: Any, col: str) -> Any:
        m = ids.select("pn", F.col("id").alias(col), F.col("gid").alias(f"_{col}"))
        return df.join(m, ["pn", col], "left").drop(col).withColumnRenamed(f"_{col}", col)

    group = Window.partitionBy("norm_sha256")
    documents = mapped(kept.drop("gid", "first_part", "first_id", "duplicate_of"), "parent_id")
    documents = documents.join(ids, ["pn", "id"]).drop("id").withColumnRenamed("gid", "id")
    documents = documents.withColumn("_g", F.when(F.col("norm_sha256").isNotNull(),
                                                  F.min("id").over(group))) \
        .withColumn("duplicate_of", F.when(F.col("_g") != F.col("id"), F.col("_g")).cast("long"))
    documents = documents.select(*DOCUMENT_SCHEMA.names).orderBy("id")
    # row groups of a few MB: the driver opening the export reads them one at a time
    documents.coalesce(1).write.mode("overwrite") \
        .option("parquet.block.size", str(export.TABLE_ROW_GROUP_BYTES)).parquet(f"{out.as_uri()}/documents")

    sightings = mapped(mapped(read("sightings").withColumn("_seq", F.monotonically_increasing_id()), "doc_id"),
                       "within_id")
    sightings.orderBy("pn", "_seq").drop("pn", "_seq").coalesce(1).write.mode("overwrite") \
        .option("parquet.block.size", str(export.TABLE_ROW_GROUP_BYTES)).parquet(f"{out.as_uri()}/sightings")
    failures = read("failures")
    failures = failures.withColumn("id", F.row_number().over(Window.orderBy("pn", "id")).cast("long")) \
        .drop("pn").orderBy("id")
    failures.coalesce(1).write.mode("overwrite") \
        .option("parquet.block.size", str(export.TABLE_ROW_GROUP_BYTES)).parquet(f"{out.as_uri()}/failures")

    firsts = kept.select("pn", "id", "gid")
    texts = read("texts").join(firsts.withColumnRenamed("id", "doc_id"), ["pn", "doc_id"]) \
        .select(F.col("gid").alias("doc_id"), "text")
    # row groups of about TEXT_ROW_GROUP_CHARS, as the export writes them (the size is checked at
    # least every 8 texts). Spark's default, 128 MB, put a whole file in one row group, and the
    # job's reader decoded up to 4,096 texts of it at once: past a 1 GB heap at 140 MB of text
    texts.orderBy("doc_id").write.mode("overwrite") \
        .option("parquet.block.size", str(export.TEXT_ROW_GROUP_CHARS)) \
        .option("parquet.page.size.row.check.min", "1").option("parquet.page.size.row.check.max", "8") \
        .parquet(f"{out.as_uri()}/texts")
    # word sequences, as texts: the first copies' own, renumbered
    sequences = read("sequences").join(firsts.withColumnRenamed("id", "doc_id"), ["pn", "doc_id"]) \
        .select(F.col("gid").alias("doc_id"), "n_words", "sha256", "data")
    sequences.orderBy("doc_id").write.mode("overwrite") \
        .option("parquet.block.size", str(export.SEQUENCE_ROW_GROUP_BYTES)) \
        .option("parquet.page.size.row.check.min", "1").option("parquet.page.size.row.check.max", "8") \
        .parquet(f"{out.as_uri()}/sequences")
    postings = (read("postings/bucket=*/*.parquet")  # the files: their buckets are redone below
                .join(firsts.withColumnRenamed("id", "doc_id"), ["pn", "doc_id"])
                .select("hash", F.col("gid").alias("doc_id"))).persist()
    n_postings = postings.count()
    buckets = default_buckets(n_postings)
    unsigned = F.when(F.col("hash") >= 0, F.col("hash").cast("decimal(20,0)")).otherwise(
        F.col("hash").cast("decimal(20,0)") + F.lit(str(2**64)).cast("decimal(20,0)"))
    postings.withColumn("bucket", (unsigned % F.lit(buckets)).cast("int")).repartition("bucket") \
        .sortWithinPartitions("doc_id").write.mode("overwrite").partitionBy("bucket") \
        .parquet(f"{out.as_uri()}/postings")
    postings.unpersist()

    # the corpus digest, streamed in id order: a partition at a time on the driver, not the corpus
    h = hashlib.sha256()
    n_live = n_indexed = 0
    for r in spark.read.parquet(f"{out.as_uri()}/documents").select("id", "sha256", "n_sampled") \
            .orderBy("id").toLocalIterator():
        h.update(f"{r['id']}\t{r['sha256']}\n".encode())
        n_live += 1
        n_indexed += r["n_sampled"] is not None
    n_failures = spark.read.parquet(f"{out.as_uri()}/failures").count()
    n_texts = spark.read.parquet(f"{out.as_uri()}/texts").count()
    n_sequences = spark.read.parquet(f"{out.as_uri()}/sequences").count()
    meta = {
        "format": FORMAT, "schema_version": SCHEMA_VERSION, "params": params, "with_texts": True,
        "with_sequences": True,
        "hash_encoding": "uint64 viewed as int64 (two's complement)", "bucket": "uint64 hash % buckets",
        "corpus": {"documents": n_live, "digest": h.hexdigest()},
        "counts": {"documents": n_live, "indexed": n_indexed,
                   "postings": n_postings, "buckets": buckets, "texts": n_texts, "text_chars": None,
                   "sequences": n_sequences},
        "source": f"spark ingest of {n_parts} parts", "exported": now(),
    }
    (out / "params.json").write_text(json.dumps(meta, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    docs.unpersist()
    ids.unpersist()
    return n_live, n_failures


def raise_empty(out: Path) -> None:
    from auditor.errors import UsageError

    raise UsageError(f"no file to ingest into {out}: the inputs hold no file")
