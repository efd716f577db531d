"""The containment audit on Apache Spark: the same findings as ``run_audit``, beyond one machine.

The steps are those of :mod:`auditor.engine.audit`, written as joins over the Parquet export
(:mod:`auditor.engine.export`) so that no step needs a whole corpus in one process:

1. **Postings** ``(hash, doc_id)`` of the first document of each exact-duplicate group, read
   from the export, or computed from ``texts/`` inside Spark by the library's own
   ``words_bytes`` and ``combine`` (so the sampled sets are the index's, bit for bit).
2. **Prefix filter**: document frequency per hash; each document keeps its
   ``prefix_length(n, threshold)`` rarest sampled shingles (by df, then unsigned hash: the order
   of ``SampledIndex.candidates``). Joining only those to the postings keeps boilerplate
   posting lists out of the join, so its size grows with the corpus, not with its square.
3. **Hits** per candidate pair ``(A, B)``: A's whole sampled set semi-joined to B's; pairs
   below ``min_hits(n)`` are dropped, exactly as the library drops them.
4. **Estimate** and Wilson interval by ``Estimate.of`` (the library's function, in the Python
   workers), and whether the pair needs exact verification.
5. **Exact containment** of those pairs: both texts shingled in Spark (all shingles), shared
   distinct hashes counted by a join; ``shared / shingles(A)``.
6. Every candidate pair is written as Parquet (``pairs/``) with a ``summary/``; the driver
   loads them (``load_result``) into an :class:`auditor.engine.audit.AuditResult`: the verdict,
   mutual-containment clusters and character spans of findings are computed there with the
   library's own functions, as ``run_audit`` computes them. The report writer takes it as is.

Integers (sampled, hits, shared, shingles) cross the Spark boundary; every float is computed
from them by the same Python expression as the SQLite path, so the results are identical, not
merely close.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from auditor.engine.audit import AuditResult, finish, histogram
from auditor.engine.export_store import ExportStore
from auditor.engine.pairs import Pairs
from auditor.engine.short import SHORT_SHINGLES, exhaustive_pairs, short_documents
from auditor.engine.universe import Universe, universe
from auditor.engine.verify import one_pass
from auditor.errors import UsageError
from auditor.store.db import Store
from auditor.text.score import Estimate, min_hits, needs_exact, prefix_length
from auditor.text.shingle import Params, WordHasher, distinct, sample

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

ENGINE = "spark"
RESULT_FORMAT = "containment-auditor-spark-result/1"
_SIGN = -(2**63)  # XOR with this maps uint64 order onto int64 order


# -- the session ------------------------------------------------------------------------------

def session(master: str | None = "local[*]", *, config: dict[str, str] | None = None) -> SparkSession:
    """A SparkSession for the audit (the running one if there is one).

    ``master=None`` leaves the master to ``spark-submit``. In local mode the Python workers are
    this interpreter (so they import this very ``auditor``), shuffles use a few partitions
    rather than 200, and the driver, which is also the only executor, gets 4 GB.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise UsageError("the Spark engine needs PySpark: pip install 'containment-auditor[spark]'") from e
    local = bool(master) and str(master).startswith("local")
    python = (config or {}).get("spark.pyspark.python")
    if python:  # PySpark takes the workers' Python from the environment; the setting, asked for, wins
        os.environ["PYSPARK_PYTHON"] = python
    conf = {"spark.ui.showConsoleProgress": "false", "spark.sql.session.timeZone": "UTC",
            "spark.app.name": "containment-auditor"}
    if local:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        conf |= {"spark.driver.memory": "4g",
                 "spark.sql.shuffle.partitions": str(max(2, 2 * (os.cpu_count() or 1)))}
    conf |= config or {}
    builder = SparkSession.builder
    if master:
        builder = builder.master(master)
    for k, v in conf.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


NO_AUTO_BROADCAST = {"spark.sql.autoBroadcastJoinThreshold": "-1"}
"""Spark broadcasts any join side its statistics call small, and builds the broadcast on the
driver. Its estimate of a filtered or joined frame can be far too low, so a table that grows with
the corpus (postings, pairs, one row per document) could be collected into the driver. The audit
and the finish turn it off; they hint a broadcast only where the side is small and bounded."""

AUDIT_CONF = {**NO_AUTO_BROADCAST, "spark.sql.execution.arrow.maxRecordsPerBatch": "256"}
"""The confs of ``spark_audit`` and the finish: no automatic broadcast; Arrow batches to the
Python workers carry whole texts, so a few hundred rows each."""


@contextlib.contextmanager
def spark_settings(spark: SparkSession, **conf: str) -> Iterator[None]:
    """Set Spark SQL confs for the block, then restore each to what it was (unset if it was unset).

    A session is shared (``getOrCreate``): a setting left behind would change the caller's later
    jobs. Keys have dots, so pass them unpacked: ``spark_settings(spark, **{"spark.sql.x": "1"})``.
    """
    before: dict[str, str | None] = {k: spark.conf.get(k, None) for k in conf}
    try:
        for k, v in conf.items():
            spark.conf.set(k, v)
        yield
    finally:
        for k, was in before.items():
            if was is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, was)


# -- Python workers (module level: pickled by reference, imported on the executors) -----------

_HASHERS: dict[int, WordHasher] = {}


def _shingle_batches(params: dict[str, int], keep_all: bool, batches: Iterator[pa.RecordBatch]
                     ) -> Iterator[pa.RecordBatch]:
    """``words_frame`` rows -> counts, sampled distinct hashes and, with ``keep_all``, all of them.

    The SQLite engine's shingling (``shingle.text_shingles``: ``words_bytes``, xxh3 per word
    with the index seed, ``combine``, or the stored word sequence's ``shingles``), its sorted
    distinct set and 1-in-modulus sampling.
    """
    import pyarrow as pa

    from auditor.engine.spark_finish import shingles_in

    shape = Params(k=params["k"], modulus=params["modulus"], seed=params["seed"])
    hasher = _HASHERS.setdefault(shape.seed, WordHasher(shape.seed))
    for batch in batches:
        ids, n_words, n_shingles, sampled, every = [], [], [], [], []
        for doc_id, words, seq in shingles_in(batch, shape, hasher):
            unique = distinct(seq)
            ids.append(doc_id)
            n_words.append(words)
            n_shingles.append(len(unique))
            sampled.append(sample(unique, shape.modulus).view(np.int64))
            if keep_all:
                every.append(unique.view(np.int64))
        cols = {"doc_id": pa.array(ids, pa.int64()), "n_words": pa.array(n_words, pa.int64()),
                "n_shingles": pa.array(n_shingles, pa.int64()), "sampled": _lists(sampled)}
        if keep_all:
            cols["shingles"] = _lists(every)
        yield pa.RecordBatch.from_pydict(cols)


def _lists(arrays: list[np.ndarray]) -> pa.Array:
    import pyarrow as pa

    offsets = np.concatenate(([0], np.cumsum([len(a) for a in arrays]))).astype(np.int32)
    values = np.concatenate(arrays) if arrays else np.empty(0, np.int64)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, pa.int64()))


def _estimate_batches(threshold: float, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``Estimate.of(hits, sampled)`` per pair, and whether it must be verified exactly."""
    import pyarrow as pa

    for batch in batches:
        hits = batch.column("hits").to_pylist()
        n = batch.column("sampled").to_pylist()
        ests = [Estimate.of(h, s) for h, s in zip(hits, n, strict=True)]
        yield pa.RecordBatch.from_pydict({
            "contained": batch.column("contained"), "container": batch.column("container"),
            "sampled": batch.column("sampled"), "hits": batch.column("hits"),
            "estimate": pa.array([e.estimate for e in ests], pa.float64()),
            "low": pa.array([e.low for e in ests], pa.float64()),
            "high": pa.array([e.high for e in ests], pa.float64()),
            "verify": pa.array([e.needs_exact(threshold) for e in ests], pa.bool_()),
        })


def _shared_groups(left: pa.Table, right: pa.Table) -> pa.Table:
    """One container's distinct shingles against those of a slice of the documents it may contain."""
    import pyarrow as pa

    b = right.column("b").combine_chunks()
    b_all = b.flatten().to_numpy() if len(b) else np.empty(0, np.int64)
    a = left.column("a").combine_chunks()
    offs, vals = a.offsets.to_numpy(), a.values.to_numpy()
    shared = [len(np.intersect1d(vals[offs[i]:offs[i + 1]], b_all, assume_unique=True))
              for i in range(len(left))]
    return pa.table({"contained": left.column("contained"), "container": left.column("container"),
                     "shingles": left.column("shingles"), "shared": pa.array(shared, pa.int64())})


#: bytes of a row group of the written shingle sets (Spark's default, 128 MB, is held per task)
SETS_ROW_GROUP_BYTES = 16 << 20
_SHINGLED = "doc_id long, n_words long, n_shingles long, sampled array<long>"
_ESTIMATED = ("contained long, container long, sampled long, hits long, estimate double, "
              "low double, high double, verify boolean")


# -- the Spark job ----------------------------------------------------------------------------

def _read_params(spark: SparkSession, source: str) -> dict[str, Any]:
    """params.json through Spark, so ``source`` may be any URL the cluster reads (hdfs://, s3a://)."""
    from auditor.engine.export import check_format

    row = spark.read.text(f"{source}/params.json", wholetext=True).first()
    meta: dict[str, Any] = json.loads(row[0]) if row else {}
    check_format(meta, f"{source}/params.json")
    return meta


def spark_audit(
    spark: SparkSession,
    source: str,
    out: str,
    threshold: float = 0.8,
    *,
    only: set[int] | None = None,
    sampled_from: str = "postings",
    representatives: set[int] | None = None,
    covered: list[int] | None = None,
) -> dict[str, Any]:
    """Run the audit over the export at ``source`` and write ``pairs/`` and ``summary/`` to ``out``.

    :param representatives: the documents that take part (the first covered member of each
        duplicate group, as ``audit.universe`` says); default: every document that is not an
        exact duplicate.

    :param sampled_from: ``"postings"`` reads the exported sampled index; ``"text"`` shingles
        and samples ``texts/`` inside Spark (for text on shared storage without an index).
    :returns: the summary (documents, candidate pairs, pairs verified, params).
    """
    if sampled_from not in ("postings", "text"):
        raise UsageError(f"sampled_from must be 'postings' or 'text', not {sampled_from!r}")
    meta = _read_params(spark, source)
    if not meta.get("with_texts"):
        raise UsageError(f"{source} was exported without texts/; exact verification needs them "
                         "(auditor export without --no-texts)")
    # Arrow batches to the Python workers carry whole texts: keep them to a few hundred rows.
    cached: list[DataFrame] = []
    try:
        with spark_settings(spark, **AUDIT_CONF):
            return _job(spark, meta, source, out, threshold, only, sampled_from, cached, representatives,
                        covered)
    finally:
        for d in cached:
            d.unpersist()


def _job(spark: SparkSession, meta: dict[str, Any], source: str, out: str, threshold: float,
         only: set[int] | None, sampled_from: str, cached: list[DataFrame],
         representatives: set[int] | None = None, covered: list[int] | None = None) -> dict[str, Any]:
    """The steps of ``spark_audit``; what it persists goes to ``cached``."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    from auditor.engine.spark_finish import VERIFY_SLICE, words_frame

    def persist(d: DataFrame) -> DataFrame:
        cached.append(d.persist())
        return d

    params = meta["params"]
    docs = spark.read.parquet(f"{source}/documents")
    if representatives is None:
        firsts = docs.where(F.col("duplicate_of").isNull())
    else:
        chosen = spark.createDataFrame([(int(i),) for i in sorted(representatives)], "id long")
        firsts = docs.join(chosen, "id", "left_semi")  # one row per document: never broadcast
    texts = spark.read.parquet(f"{source}/texts")
    shingle_all = functools.partial(_shingle_batches, {k: params[k] for k in ("k", "modulus", "seed")})

    # 1. postings of the first document of each duplicate group
    if sampled_from == "postings":
        reps = firsts.where(F.col("n_sampled").isNotNull()).select(
            F.col("id").alias("doc_id"), F.col("n_sampled").alias("n"))
        postings = spark.read.parquet(f"{source}/postings").select("hash", "doc_id").join(
            reps.select("doc_id"), "doc_id", "left_semi")
    else:
        shingled = persist(texts.join(
            firsts.where(F.col("n_words") > 0).select(F.col("id").alias("doc_id")), "doc_id", "left_semi"
        ).mapInArrow(functools.partial(shingle_all, False), _SHINGLED))
        reps = shingled.select("doc_id", F.size("sampled").cast("long").alias("n"))
        postings = shingled.select("doc_id", F.explode("sampled").alias("hash"))
    postings = persist(postings)
    reps = persist(reps)
    n_documents = reps.count()
    t_postings = time.perf_counter()

    # 2. prefix filter: each document's prefix_length(n) rarest sampled shingles
    ns = sorted(r[0] for r in reps.where(F.col("n") > 0).select("n").distinct().collect())
    limits = spark.createDataFrame(
        [(n, min_hits(n, threshold), prefix_length(n, threshold)) for n in ns],
        "n long, min_hits long, prefix long")
    reps_l = reps.join(F.broadcast(limits), "n")
    df = postings.groupBy("hash").agg(F.count(F.lit(1)).alias("df"))
    rank = Window.partitionBy("doc_id").orderBy("df", F.col("hash").bitwiseXOR(F.lit(_SIGN)))
    prefix = (postings.join(df, "hash").withColumn("rank", F.row_number().over(rank))
              .join(reps_l.select("doc_id", "prefix"), "doc_id")
              .where(F.col("rank") <= F.col("prefix"))
              .select(F.col("doc_id").alias("contained"), "hash"))
    cands = (prefix.join(postings.withColumnRenamed("doc_id", "container"), "hash")
             .where(F.col("contained") != F.col("container"))
             .select("contained", "container").distinct())
    if only is not None:
        keep = spark.createDataFrame([(int(i),) for i in sorted(only)], "id long")
        cands = cands.join(F.broadcast(keep.withColumnRenamed("id", "contained")), "contained", "left_semi") \
            .unionByName(cands.join(F.broadcast(keep.withColumnRenamed("id", "container")), "container",
                                    "left_semi")).distinct()

    # 3. hits: A's whole sampled set against B's
    hits = (cands.join(postings.withColumnRenamed("doc_id", "contained"), "contained")
            .join(postings.withColumnRenamed("doc_id", "container"), ["container", "hash"], "left_semi")
            .groupBy("contained", "container").agg(F.count(F.lit(1)).alias("hits"))
            .join(reps_l.select(F.col("doc_id").alias("contained"), F.col("n").alias("sampled"),
                                "min_hits"), "contained")
            .where(F.col("hits") >= F.col("min_hits"))
            .select("contained", "container", "sampled", "hits"))

    # 4. estimates, by the library's Estimate.of
    est = persist(hits.mapInArrow(functools.partial(_estimate_batches, threshold), _ESTIMATED))

    # 5. exact containment of every pair whose interval reaches the threshold: all shingles of
    #    the documents involved, then per container its set against each contained document's
    check = est.where("verify").select("contained", "container")
    involved = check.select(F.col("contained").alias("doc_id")).unionByName(
        check.select(F.col("container").alias("doc_id"))).distinct()
    #    The shingle sets are written to Parquet, not cached: Spark's in-memory cache builds
    #    batches of 10,000 rows, 10,000 whole sets at once, which ran a 1 GB heap out at 2.2 GB.
    #    ``involved`` grows with the pairs to verify: joined, never broadcast.
    (words_frame(spark, source).join(involved, "doc_id", "left_semi")
     .mapInArrow(functools.partial(shingle_all, True), _SHINGLED + ", shingles array<long>")
     .select("doc_id", "n_shingles", "shingles")
     .write.mode("overwrite").option("parquet.block.size", str(SETS_ROW_GROUP_BYTES))
     .option("parquet.page.size.row.check.min", "1").option("parquet.page.size.row.check.max", "8")
     .parquet(f"{out}/shingles"))
    full = spark.read.parquet(f"{out}/shingles")
    # a cogroup hands one group to Python whole: a container's candidates go in slices of at
    # most VERIFY_SLICE sets, each beside its own copy of the container's set

    slice_of = Window.partitionBy("container").orderBy("contained")
    check = check.withColumn("slice", ((F.row_number().over(slice_of) - 1) / VERIFY_SLICE).cast("long"))
    left = check.join(full.select(F.col("doc_id").alias("contained"), F.col("n_shingles").alias("shingles"),
                                  F.col("shingles").alias("a")), "contained")
    right = (check.select(F.col("container").alias("doc_id"), F.col("slice").alias("part")).distinct()
             .join(full.select("doc_id", F.col("shingles").alias("b")), "doc_id")
             .select(F.col("doc_id").alias("container"), F.col("part").alias("slice"), "b"))
    exact = left.groupBy("container", "slice").cogroup(right.groupBy("container", "slice")).applyInArrow(
        _shared_groups, "contained long, container long, shingles long, shared long")

    # 6. every candidate pair, with its verdict
    pairs = (est.join(exact, ["contained", "container"], "left")
             .withColumn("exact", F.when(F.col("shingles") > 0, F.col("shared") / F.col("shingles"))
                         .when(F.col("shingles").isNotNull(), F.lit(0.0)))
             .withColumn("verdict", F.when(F.col("exact") >= threshold, "contained")
                         .when(F.col("exact").isNotNull(), "below").otherwise("estimate"))
             .select("contained", "container", "sampled", "hits", "estimate", "low", "high",
                     "shingles", "shared", "exact", "verdict"))
    pairs.write.mode("overwrite").parquet(f"{out}/pairs")
    LAST_STAGES["postings, prefix filter, hits, estimates, exact verification, pairs/ written"] = round(
        time.perf_counter() - t_postings, 2)
    written = spark.read.parquet(f"{out}/pairs")
    unverified = written.where(F.col("exact").isNull() & (F.col("high") >= threshold)).count()
    if unverified:  # their texts are missing: never let an estimate stand in for the exact value
        raise UsageError(f"{unverified} candidate pairs could not be verified exactly: "
                         f"documents without text in {source}/texts")
    summary = {
        "format": RESULT_FORMAT, "engine": ENGINE, "threshold": threshold, "params": params,
        "corpus": meta.get("corpus"), "sampled_from": sampled_from,
        "only": sorted(int(i) for i in only) if only is not None else None,
        "covered": sorted(int(i) for i in covered) if covered is not None else None,
        "documents": n_documents, "candidates": written.count(),
        "verified": written.where(F.col("exact").isNotNull()).count(),
        "contained_pairs": written.where(F.col("verdict") == "contained").count(),
    }
    spark.createDataFrame([(json.dumps(summary, sort_keys=True),)], "summary string") \
        .coalesce(1).write.mode("overwrite").parquet(f"{out}/summary")
    return summary


# -- back on the driver -----------------------------------------------------------------------

def load_result(result: str | Path, source: Store | str | Path) -> AuditResult:
    """The ``AuditResult`` of a Spark run, finished on the driver as ``run_audit`` finishes it.

    :param result: the ``out`` directory of ``spark_audit`` (copied back from the cluster).
    :param source: the store, or the Parquet export, the run was made from (texts for spans,
        documents for the not-auditable list and duplicate groups).
    """
    import pyarrow.parquet as pq

    result = Path(result)
    rows = pq.read_table(result / "summary").column("summary").to_pylist()
    summary = json.loads(rows[0])
    if summary.get("format") != RESULT_FORMAT:
        raise UsageError(f"{result} is not a Spark audit result ({RESULT_FORMAT})")
    src: Any = source if isinstance(source, Store) else ExportStore(source)
    params: Params = src.params
    if params.as_dict() != summary["params"]:
        raise UsageError(f"{result} was computed with other index parameters than {source}")
    threshold = float(summary["threshold"])
    only = set(summary["only"]) if summary["only"] is not None else None

    table = pq.read_table(result / "pairs", columns=["contained", "container", "hits", "sampled", "shared",
                                                      "shingles"])
    cols = {c: table.column(c).to_numpy(zero_copy_only=False) for c in table.column_names}
    for c in ("shared", "shingles"):  # a pair that was not verified: -1, as in run_audit
        cols[c] = np.nan_to_num(np.asarray(cols[c], dtype=np.float64), nan=-1).astype(np.int64)
    pairs = Pairs(*(np.asarray(cols[c], dtype=np.int64) for c in
                    ("contained", "container", "hits", "sampled", "shared", "shingles")))
    scope = universe(cast(Store, src), summary.get("covered"))
    reps = scope.representatives
    sizes = dict(src.select_in("SELECT doc_id, n_shingles FROM index_docs WHERE doc_id IN ({})", reps))
    docs = [d for d in reps if d in sizes]
    long_ids = np.array(sorted(d for d in docs if sizes[d] > SHORT_SHINGLES), dtype=np.int64)
    pairs = pairs.take(np.flatnonzero(np.isin(pairs.contained, long_ids)))  # short ones: exhaustively
    need = needs_exact(pairs.hits, pairs.sampled, threshold)
    if bool((need & ~pairs.verified).any()):
        raise UsageError(f"{result} holds pairs that needed exact verification and have none")
    unverified = histogram(pairs.estimate[~need]) if (~need).any() else np.zeros(20, np.int64)
    short = short_documents(src, params, docs, [sizes[d] for d in docs])
    empty = np.empty(0, np.int64)
    _, _, owner, number = one_pass(src, params, docs, short.vocab, empty, empty)
    found, n_short = exhaustive_pairs(short, docs, owner, number, params, threshold, only)
    return finish(cast(Store, src), params, threshold, Pairs.concat([pairs.take(np.flatnonzero(need)), found]),
                  unverified=unverified, candidates=len(pairs) + n_short, scope=scope, only=only,
                  documents=int(summary["documents"]))


def finish_result(spark: SparkSession, source: str, out: str, params: Params, threshold: float, *,
                  scope: Universe, only: set[int] | None) -> AuditResult:
    """The ``AuditResult`` of ``spark_audit``'s pairs, finished on the executors
    (:mod:`auditor.engine.spark_finish`); the driver gets what the report prints."""
    from auditor.engine.spark_finish import (
        finish_on_spark,
        not_auditable_on_spark,
        novelty_on_spark,
    )

    with spark_settings(spark, **AUDIT_CONF):
        reps = spark.createDataFrame([(int(i),) for i in scope.representatives], "id long")
        result = finish_on_spark(spark, source, out, params, threshold, representatives=reps, only=only,
                                 groups=scope.groups, universe=scope.members)
        result.not_auditable = not_auditable_on_spark(spark, source, params, reps, only)
        if only is None:  # a corpus audit's report shows every document's novel share
            result.novelty = novelty_on_spark(spark, source, reps)
    return result


@dataclass
class Timing:
    """Seconds spent in each phase of the last ``run_audit_spark`` (for benchmarks)."""

    session: float = 0.0
    export: float = 0.0
    spark: float = 0.0
    load: float = 0.0


LAST_TIMING = Timing()
LAST_STAGES: dict[str, float] = {}  # wall seconds of the Spark job's steps (the finish's: spark_finish.STAGES)


def run_audit_spark(
    store_or_parquet_dir: Store | ExportStore | str | Path,
    threshold: float = 0.8,
    *,
    master: str = "local[*]",
    only: set[int] | None = None,
    documents: list[int] | set[int] | None = None,
    workdir: str | Path | None = None,
    spark: SparkSession | None = None,
    sampled_from: str = "postings",
) -> AuditResult:
    """``run_audit`` on Spark: the same ``AuditResult``, findings and values.

    ``documents``: audit exactly these (an old report's), as ``run_audit`` does; ``only``: a
    batch's documents, as there.

    A store is first exported (``auditor.engine.export``) under ``workdir``; a Parquet export is read
    in place. ``workdir`` (default: a temporary directory, removed afterwards) holds the export
    and the result; on a cluster it must be storage every executor can read (NFS, a mounted
    bucket).
    """
    from auditor.engine.export import export_parquet

    local = master.startswith("local")
    if workdir is None and not local and spark is None:
        raise UsageError("a Spark cluster needs --workdir on storage every executor can read")
    t0 = time.perf_counter()
    spark = spark or session(master)
    t1 = time.perf_counter()
    tmp = None if workdir is not None else tempfile.mkdtemp(prefix="auditor-spark-")
    work = Path(workdir if workdir is not None else cast(str, tmp))
    try:
        if isinstance(store_or_parquet_dir, Store):
            export_parquet(store_or_parquet_dir, work / "export", overwrite=True)
            source: Store | ExportStore | Path = store_or_parquet_dir
            parquet = work / "export"
        elif isinstance(store_or_parquet_dir, ExportStore):  # an export already read
            source, parquet = store_or_parquet_dir, store_or_parquet_dir.directory
        else:
            source = parquet = Path(store_or_parquet_dir)
        src: Any = source if isinstance(source, (Store, ExportStore)) else ExportStore(source)
        scope = universe(src, documents)
        if only is not None:
            only = {scope.representative[d] for d in only if d in scope.representative}
        t2 = time.perf_counter()
        # file:// URLs: on a cluster a bare path would name the cluster's default file system
        src_url, out_url = parquet.resolve().as_uri(), (work / "result").resolve().as_uri()
        spark_audit(spark, src_url, out_url, threshold,
                    only=only, sampled_from=sampled_from, representatives=set(scope.representatives),
                    covered=scope.members)
        t3 = time.perf_counter()
        result = finish_result(spark, src_url, out_url, src.params, threshold, scope=scope, only=only)
        t4 = time.perf_counter()
        if tmp is not None:  # the containing pairs are read from it later: removed with them
            shutil.rmtree(work / "export", ignore_errors=True)
            cast(Any, result.containing).adopt(tmp)
            tmp = None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    LAST_TIMING.session, LAST_TIMING.export, LAST_TIMING.spark, LAST_TIMING.load = (
        t1 - t0, t2 - t1, t3 - t2, t4 - t3)
    return result


def main(argv: list[str] | None = None) -> int:
    """``spark-submit auditor/engine/spark_engine.py EXPORT OUT``: the cluster half of an audit."""
    ap = argparse.ArgumentParser(prog="spark_engine", description=main.__doc__)
    ap.add_argument("export", help="Parquet export (auditor export), any URL Spark reads")
    ap.add_argument("out", help="where to write pairs/ and summary/, any URL Spark writes")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--only", default="", help="comma-separated document ids (a batch audit)")
    ap.add_argument("--sampled-from", choices=("postings", "text"), default="postings")
    ap.add_argument("--master", default=None, help="default: as spark-submit says")
    a = ap.parse_args(argv)
    only = {int(x) for x in a.only.split(",") if x.strip()} if a.only else None
    summary = spark_audit(session(a.master), a.export, a.out, a.threshold, only=only,
                          sampled_from=a.sampled_from)
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
