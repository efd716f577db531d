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
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

FILES_PER_PART = 64  # files per Spark task: a few MB to a few hundred of text


@dataclass
class SparkIngest:
    directory: str
    files: int
    parts: int
    parts_done_before: int
    documents: int
    failures: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _part_key(files: list[str]) -> str:
    return hashlib.sha256("\n".join(files).encode("utf-8", "surrogateescape")).hexdigest()


def _ingest_parts(request: dict[str, Any], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """One part per row: its files ingested into a scratch store and written as an export."""
    import pyarrow as pa

    from auditor.corpus.ingest import ingest
    from auditor.engine.export import export_parquet
    from auditor.extract import Limits
    from auditor.store.db import Store

    limits = Limits(**request["limits"])
    for batch in batches:
        done = []
        for n, files_json in zip(batch.column("part").to_pylist(), batch.column("files").to_pylist(), strict=True):
            files = json.loads(files_json)
            target = Path(request["out"]) / "parts" / f"{n:06d}"
            os.chdir(request["cwd"])  # paths are recorded as given, relative ones too
            with tempfile.TemporaryDirectory(prefix="auditor-spark-ingest-") as tmp, \
                    Store(Path(tmp) / "part.db") as store:
                store.set_meta("index_params", json.dumps(request["params"], sort_keys=True))
                ingest(store, files, batch=request["batch"], source=request["source"], limits=limits,
                       workers=1, command=request["command"])
                if target.exists():
                    shutil.rmtree(target)
                export_parquet(store, target)
            (target / "files.json").write_text(json.dumps(files), encoding="utf-8")
            done.append(n)
        yield pa.RecordBatch.from_pydict({"part": pa.array(done, pa.int64())})


def spark_ingest(
    spark: SparkSession, inputs: list[str | os.PathLike], directory: str | Path, *,
    batch: str | None = None, source: str | None = None, limits: Any = None, command: str = "",
    files_per_part: int = FILES_PER_PART,
) -> SparkIngest:
    """Ingest ``inputs`` on Spark into the export layout at ``directory`` (see the module docstring)."""
    from auditor.corpus.ingest import default_batch_name, walk
    from auditor.extract import Limits
    from auditor.text.shingle import Params

    out = Path(directory).resolve()
    out.mkdir(parents=True, exist_ok=True)
    found = [f.path for f in walk(inputs)]
    chunks = [found[a : a + files_per_part] for a in range(0, len(found), files_per_part)]
    todo, before = [], 0
    for n, files in enumerate(chunks):
        part = out / "parts" / f"{n:06d}"
        listed = part / "files.json"
        if (part / "params.json").is_file() and listed.is_file() and \
                _part_key(json.loads(listed.read_text(encoding="utf-8"))) == _part_key(files):
            before += 1  # written by an earlier run: resumed past
            continue
        todo.append((n, json.dumps(files)))
    for stale in sorted((out / "parts").glob("*")) if (out / "parts").is_dir() else []:
        if not stale.name.isdigit() or int(stale.name) >= len(chunks):
            shutil.rmtree(stale)  # a part of other inputs: not this corpus
    request: dict[str, Any] = {"out": str(out), "cwd": os.getcwd(), "params": Params().as_dict(),
               "batch": batch or default_batch_name(inputs), "source": source,
               "limits": asdict(limits or Limits()), "command": command}
    if todo:
        import functools

        parts = spark.createDataFrame(todo, "part long, files string").repartition(len(todo), "part")
        parts.mapInArrow(functools.partial(_ingest_parts, request), "part long").collect()
    counts = _merge(spark, out, len(chunks), request["params"])
    return SparkIngest(str(out), len(found), len(chunks), before, counts[0], counts[1])


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
    documents.coalesce(1).write.mode("overwrite").parquet(f"{out.as_uri()}/documents")

    sightings = mapped(mapped(read("sightings").withColumn("_seq", F.monotonically_increasing_id()), "doc_id"),
                       "within_id")
    sightings.orderBy("pn", "_seq").drop("pn", "_seq").coalesce(1).write.mode("overwrite") \
        .parquet(f"{out.as_uri()}/sightings")
    failures = read("failures")
    failures = failures.withColumn("id", F.row_number().over(Window.orderBy("pn", "id")).cast("long")) \
        .drop("pn").orderBy("id")
    failures.coalesce(1).write.mode("overwrite").parquet(f"{out.as_uri()}/failures")

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
    meta = {
        "format": FORMAT, "schema_version": SCHEMA_VERSION, "params": params, "with_texts": True,
        "hash_encoding": "uint64 viewed as int64 (two's complement)", "bucket": "uint64 hash % buckets",
        "corpus": {"documents": n_live, "digest": h.hexdigest()},
        "counts": {"documents": n_live, "indexed": n_indexed,
                   "postings": n_postings, "buckets": buckets, "texts": n_texts, "text_chars": None},
        "source": f"spark ingest of {n_parts} parts", "exported": now(),
    }
    (out / "params.json").write_text(json.dumps(meta, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    docs.unpersist()
    ids.unpersist()
    return n_live, n_failures


def raise_empty(out: Path) -> None:
    from auditor.errors import UsageError

    raise UsageError(f"no file to ingest into {out}: the inputs hold no file")
