"""Assemble on Spark: the plan and the corpus of an export, made on the executors.

``auditor assemble --engine spark --parquet DIR`` makes the store's plan (``plan.plan``) from a
Parquet export and the audit run recorded in it, byte for byte, without holding the pairs, the
documents or the texts on the driver. Every step calls the function the store's plan calls:

1. **Documents** (Python workers): each document of ``documents/`` with its sightings (in the
   order the export lists them), its submission's meta and its parts becomes the plan's
   ``Doc``, with its dates (``dating.dated``). ``plan.place`` puts it in its unit (its
   exact-duplicate group) with its exemption, or decides it there (not auditable).
2. **Roots**: a unit measured to be contained in nothing. ``resolve`` keeps its first member by
   rank and drops the others as its duplicates, whatever else the graph holds. Roots are
   decided in bulk, many units per call of ``plan.decide_units``.
3. **Components**: the other units, grouped by the weakly connected components of the
   containment graph among them (``spark_finish.components``). ``resolve`` decides a unit
   from its containers, decided first, so its decisions depend only on its component and on the
   kept member of each root its component points to. Each group holds its units, every pair
   they are contained in, and that kept member of each root container as a unit of one member.
   A worker resolves whole groups, many at once (a union of disjoint problems is resolved as
   each alone). ``tests/assembly/test_assemble_spark.py`` checks both claims on random graphs.
4. ``--min-novel`` (on the driver, below ``MIN_NOVEL_POSTINGS``), novelty among the kept
   documents (``gather.novelty_among``, counted from ``postings/``), and the plan lines:
   each entry joined with its documents, its finding and the reverse one, its novel share and
   the documents it stands for, written by ``plan.plan_line``.
5. **Files**: ``corpus.parquet`` is written by the executors, in id order, as a directory of
   Parquet parts. ``plan.jsonl`` is one file: one task streams the sorted plan lines into it,
   another hashes the corpus's rows in order (the manifest's digests are over the lines in
   order, so each is one pass). The driver writes ``manifest.json``.

What the driver holds: the run's row, the summary (grouped by decision, reason and source),
the counts and the manifest; up to ``spark_finish.LOCAL_EDGES`` edges when the graph is small;
with ``--min-novel``, the kept documents' sampled sets (refused above ``MIN_NOVEL_POSTINGS``);
with ``--previous``, both plans' decisions (refused above ``PREVIOUS_DOCUMENTS``).
``--out`` must be a directory that every executor sees at the same path (as
``--spark-workdir`` for the audit): the executors write the corpus there.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from auditor.errors import UsageError
from auditor.report.outdir import claim

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

from auditor.assembly.changes import read_previous
from auditor.assembly.documents import EDGAR_FIELDS, Doc, edgar_fields_of, run_row
from auditor.assembly.files import (
    CORPUS,
    MANIFEST,
    PLAN,
    ROW_GROUP_CHARS,
    lines_content,
    read_parquet_lines,
)
from auditor.assembly.output import Assembled, listed_files, seal, written
from auditor.assembly.plan import (
    FAILURE_COLUMNS,
    FINDING_COLUMNS,
    PlanEntry,
    decide_units,
    drop_covered,
    failed_entry,
    finding_of,
    manifest_core,
    place,
    plan_line,
    summary_of,
    uncovered_error,
)
from auditor.assembly.policy import REDUNDANT, Policy
from auditor.assembly.resolve import Decision

#: sampled postings of the kept documents up to which ``--min-novel`` runs on the driver (its
#: covers need the kept documents' sampled index in memory, about 45 bytes a posting: 0.9 GB)
MIN_NOVEL_POSTINGS = 20_000_000
#: documents up to which ``--min-novel`` runs on the driver (it reads each one's provenance)
MIN_NOVEL_DOCUMENTS = 1_000_000
#: documents up to which ``--previous`` runs on the driver (``changes`` holds every line of the
#: new plan and the decisions of the previous one: a few KB a document)
PREVIOUS_DOCUMENTS = 200_000
#: rows (documents and pairs) a worker resolves in one call, in whole components
GROUP_ROWS = 20_000
#: the working directory inside ``--out`` (removed at the end)
WORK = ".spark-assemble"

_ENTRY_DDL = ("doc_id long, keep boolean, reason string, target long, ma long, mb long, containers long, "
              "older long, detail string")
_EDGAR_DDL = "struct<" + ",".join([f"{EDGAR_FIELDS[0]}:bigint"] + [f"{k}:string" for k in EDGAR_FIELDS[1:]]) + ">"
_DOC_DDL = ("id long, unit long, exempt string, reason string, detail string, payload string, source string, "
            f"size long, n_chars long, sha256 string, path string, batch string, format string, n_words long, "
            f"edgar {_EDGAR_DDL}")


def assemble_on_spark(directory: str | os.PathLike, out: str | os.PathLike, *, run: str | None = None,
                      policy: Policy = Policy(), previous: str | os.PathLike | None = None,
                      master: str = "local[*]", spark: SparkSession | None = None) -> Assembled:
    """plan.jsonl, corpus.parquet (a directory of parts), changes.jsonl (with ``previous``) and
    manifest.json in ``out``, from the export at ``directory`` and its audit run ``run``
    (default: the latest). See the module docstring."""
    from auditor.assembly.files import require_parquet
    from auditor.engine.export import read_params
    from auditor.engine.export_store import recorded_runs

    require_parquet()
    source, target = Path(directory), Path(out)
    if (target / "report.json").exists():
        raise UsageError(f"{out} holds an audit report; write the assembled corpus to another directory")
    prev = read_previous(previous) if previous is not None else None
    meta = read_params(source)
    runs = recorded_runs(source)
    if not runs:
        raise UsageError(f"{directory} records no audit run (runs/ is empty): run "
                         f"`auditor audit --engine spark --parquet {directory}` first, then assemble")
    r = run_row(_Runs(source, runs), run)  # type: ignore[arg-type]
    run_dir = next(d for row, d in runs if row["run_id"] == r["run_id"])
    claim(target, written(target) | listed_files(target, {WORK}))
    if prev is not None and len(prev.lines) > PREVIOUS_DOCUMENTS:
        raise UsageError(f"--previous: the previous plan has {len(prev.lines):,} lines, more than the "
                         f"{PREVIOUS_DOCUMENTS:,} whose changes the driver compares; assemble without "
                         "--previous, and compare the two plan.jsonl files by doc_id with a join (Spark's "
                         "spark.read.json)")
    target.mkdir(parents=True, exist_ok=True)
    work = target / WORK
    if work.exists():
        shutil.rmtree(work)
    if spark is None:
        from auditor.engine.spark_engine import session

        spark = session(master)
    try:
        job = _Job(spark, source, run_dir, work, policy, float(json.loads(r["params"] or "{}").get("threshold", 0.8)))
        counts = job.run(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    files = {PLAN: counts["plan"], CORPUS["parquet"]: counts["corpus"]}
    core = manifest_core(r, policy, "parquet", counts["kept"], counts["summary"])
    if prev is not None and counts["documents"] > PREVIOUS_DOCUMENTS:
        raise UsageError(f"--previous: this plan has {counts['documents']:,} documents, more than the "
                         f"{PREVIOUS_DOCUMENTS:,} whose changes the driver compares; assemble without --previous")
    manifest = seal(target, core, files, prev, r["run_id"], policy, {"source": {
        "parquet": str(source.resolve()), "corpus": meta.get("corpus"), "engine": "spark",
        "note": "assembled on Spark from a Parquet export and the audit run recorded in it; no store, so no "
                "custody entry records it. corpus.parquet is a directory of Parquet parts in id order"}})
    return Assembled(manifest, target, [target / n for n in (*files, MANIFEST)], None)


class _Runs:
    """The runs of an export as ``run_row`` asks for them (no document, no pair)."""

    def __init__(self, path: Path, runs: list[tuple[dict[str, Any], Path]]) -> None:
        self.path = path
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, run_id TEXT, kind TEXT, status TEXT,"
                          " params TEXT, started TEXT, ended TEXT, summary TEXT, report_dir TEXT, digest TEXT,"
                          " scope TEXT, contents TEXT, verdict TEXT)")
        for i, (row, _) in enumerate(runs, start=1):
            self.conn.execute(f"INSERT INTO runs (id, {', '.join(row)}) VALUES (?, {','.join('?' * len(row))})",
                              (i, *row.values()))

    def rows(self, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, params)
        names = [c[0] for c in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


class _Job:
    """One assemble on Spark (see the module docstring); ``run`` returns the counts and digests."""

    def __init__(self, spark: SparkSession, source: Path, run_dir: Path, work: Path, policy: Policy,
                 threshold: float) -> None:
        self.spark, self.source, self.run_dir, self.work = spark, source, run_dir, work
        self.policy, self.threshold = policy, threshold
        self.src = source.resolve().as_uri()

    def read(self, name: str) -> DataFrame:
        return self.spark.read.parquet(f"{self.src}/{name}")

    def staged(self, df: DataFrame, name: str) -> DataFrame:
        """``df`` written under the working directory and read back: computed once, and later
        steps start from the files (a short lineage)."""
        url = (self.work / name).resolve().as_uri()
        df.write.mode("overwrite").parquet(url)
        return self.spark.read.parquet(url)

    def run(self, target: Path) -> dict[str, Any]:
        from pyspark.sql import functions as F

        docs = self.read("documents")
        covered = self.spark.read.parquet((self.run_dir / "run_documents.parquet").resolve().as_uri())
        findings = self.spark.read.parquet((self.run_dir / "findings.parquet").resolve().as_uri())

        uncovered = docs.where(F.col("n_words") > 0).join(
            covered.select(F.col("doc_id").alias("id")), "id", "left_anti").select("id")
        n_uncovered = uncovered.count()
        if n_uncovered:
            first = [int(x["id"]) for x in uncovered.orderBy("id").limit(10).collect()]
            raise uncovered_error(_run_id(self.run_dir), n_uncovered, first)

        # 1. every document as the plan's Doc, placed in its unit or decided
        info = self.staged(self._documents(docs, covered), "documents")
        placed = info.where(F.col("unit").isNull()).select(
            F.col("id").alias("doc_id"), F.lit(False).alias("keep"), "reason", F.lit(None).cast("long").alias("target"),
            *(F.lit(None).cast("long").alias(c) for c in ("ma", "mb")), F.lit(0).cast("long").alias("containers"),
            F.lit(None).cast("long").alias("older"), "detail")
        members = info.where(F.col("unit").isNotNull()).select("unit", F.col("id").alias("doc_id"), "exempt", "payload")

        # 2. roots: units contained in nothing, decided in bulk
        edges = findings.where(F.col("contained_id") != F.col("container_id")).select(
            F.col("contained_id").alias("a"), F.col("container_id").alias("b"), F.col("containment").alias("x"))
        units = members.select("unit").distinct()
        contained = edges.select(F.col("a").alias("unit")).distinct()
        roots = units.join(contained, "unit", "left_anti")
        inner = units.join(contained, "unit", "left_semi")
        root_rows = members.join(roots, "unit", "left_semi").select(
            F.col("unit").alias("label"), F.lit(0).alias("kind"), "unit", "doc_id", "exempt", "payload",
            *(F.lit(None).cast(t).alias(c) for c, t in (("a", "long"), ("b", "long"), ("x", "double"))))
        decided_roots = self.staged(self._resolved(root_rows), "roots")

        # 3. the other units, by component, with the kept member of each root they point to
        from auditor.engine.spark_finish import LOCAL_EDGES, components

        own = edges.join(inner.withColumnRenamed("unit", "a"), "a", "left_semi")
        among = own.join(inner.withColumnRenamed("unit", "b"), "b", "left_semi")
        labels = components(among.select(F.col("a").alias("src"), F.col("b").alias("dst")), local_up_to=LOCAL_EDGES)
        label_of = self.staged(inner.join(labels.withColumnRenamed("node", "unit"), "unit", "left")
                               .select("unit", F.coalesce("label", "unit").alias("label")), "labels")
        kept_roots = (decided_roots.where("keep").select("doc_id")
                      .join(members.select("unit", "doc_id", "payload"), "doc_id"))
        none = F.lit(None)
        group_rows = (
            members.join(label_of, "unit").select(
                "label", F.lit(0).alias("kind"), "unit", "doc_id", "exempt", "payload",
                none.cast("long").alias("a"), none.cast("long").alias("b"), none.cast("double").alias("x"))
            .unionByName(own.join(label_of.withColumnRenamed("unit", "a"), "a").select(
                "label", F.lit(1).alias("kind"), none.cast("long").alias("unit"), none.cast("long").alias("doc_id"),
                none.cast("string").alias("exempt"), none.cast("string").alias("payload"), "a", "b", "x"))
            .unionByName(own.join(label_of.withColumnRenamed("unit", "a"), "a")
                         .join(roots.withColumnRenamed("unit", "b"), "b", "left_semi")
                         .select("label", F.col("b").alias("unit")).distinct()
                         .join(kept_roots, "unit").select(
                             "label", F.lit(2).alias("kind"), "unit", "doc_id", none.cast("string").alias("exempt"),
                             "payload", none.cast("long").alias("a"), none.cast("long").alias("b"),
                             none.cast("double").alias("x"))))
        decided_inner = self._resolved(group_rows)
        entries = self.staged(placed.unionByName(decided_roots).unionByName(decided_inner), "entries")

        # 4. --min-novel (driver, bounded), novelty among the kept documents, the checks
        entries = self._min_novel(entries)
        self._check(entries)
        novelty = self._novelty(entries, docs)
        lines = self._lines(entries, info, findings, novelty)
        self.staged(lines.orderBy("doc_id"), "plan-documents")
        failed = self._failed(docs)
        self.staged(failed.orderBy("path", "part", "sha256", "id"), "plan-failed")

        # 5. the corpus, the summary, the files
        texts = self.read("texts")
        corpus = (info.join(entries.where("keep").select(F.col("doc_id").alias("id")), "id", "left_semi")
                  .join(texts.select(F.col("doc_id").alias("id"), "text"), "id", "left")
                  .select("id", "sha256", "path", "source", "batch", "format", "n_words", "edgar",
                          F.coalesce("text", F.lit("")).alias("text")).orderBy("id"))
        corpus.write.mode("overwrite").option("compression", "zstd") \
            .option("parquet.block.size", str(ROW_GROUP_CHARS)) \
            .parquet((target / CORPUS["parquet"]).resolve().as_uri())
        for f in (target / CORPUS["parquet"]).iterdir():  # Spark's marker and checksums: not the corpus
            if f.name.startswith((".", "_")):
                f.unlink()
        summary = self._summary(entries, info, failed)
        plan_url = str((target / PLAN).resolve())
        tasks = [("plan", str(self.work / "plan-documents"), str(self.work / "plan-failed"), plan_url),
                 ("corpus", str((target / CORPUS["parquet"]).resolve()), "", "")]
        digests = dict(self.spark.sparkContext.parallelize(tasks, len(tasks)).map(_sequential).collect())
        kept = entries.where("keep").count()
        if digests["corpus"]["lines"] != kept:  # a check that cannot be skipped: every kept document, once
            raise AssertionError(f"corpus.parquet holds {digests['corpus']['lines']} rows for {kept} kept documents")
        return {"plan": digests["plan"], "corpus": digests["corpus"], "kept": kept, "summary": summary,
                "documents": summary["documents"]}

    # -- the steps ---------------------------------------------------------------------------

    def _documents(self, docs: DataFrame, covered: DataFrame) -> DataFrame:
        """One row per document (``_DOC_DDL``): its payload, its unit and exemption or its entry."""
        from pyspark.sql import functions as F

        seen = self.read("sightings")
        for c in ("supplied_date", "supplied_from"):
            if c not in seen.columns:
                seen = seen.withColumn(c, F.lit(None).cast("string"))
        if "dates" not in docs.columns:
            docs = docs.withColumn("dates", F.lit(None).cast("string"))
        # sightings in the export's order (a store's ``ORDER BY doc_id, id``): files by path, rows in a file
        seen = seen.select("doc_id", F.struct(
            F.col("_metadata.file_path").alias("f"), F.col("_metadata.row_index").alias("i"), "source", "mtime",
            "seen_at", "supplied_date", "supplied_from").alias("s")) \
            .groupBy("doc_id").agg(F.sort_array(F.collect_list("s")).alias("seen"))
        parent = docs.select(F.col("id").alias("parent_id"), F.col("meta").alias("head"),
                             F.lit(True).alias("has_parent"))
        parts = docs.where(F.col("parent_id").isNotNull()).groupBy(F.col("parent_id").alias("id")) \
            .agg(F.sort_array(F.collect_list("id")).alias("parts"))
        own = covered.select(F.col("doc_id").alias("id"), "status", F.col("duplicate_of").alias("dup_of"),
                             "reason", "boilerplate")
        rep = covered.select(F.col("doc_id").alias("rep"), F.col("status").alias("rep_status"),
                             F.col("reason").alias("rep_reason"), F.col("boilerplate").alias("rep_bp"))
        frame = (docs.select("id", "sha256", "path", "format", "size", "n_chars", "n_words", "batch", "created",
                             "norm_sha256", "parent_id", "meta", "dates")
                 .join(seen.withColumnRenamed("doc_id", "id"), "id", "left")
                 .join(parent, "parent_id", "left").join(parts, "id", "left").join(own, "id", "left")
                 .withColumn("rep", F.when((F.col("status") == "duplicate") & F.col("dup_of").isNotNull(),
                                           F.col("dup_of")).otherwise(F.col("id")))
                 .join(rep, "rep", "left"))
        return frame.mapInArrow(functools.partial(_doc_rows, self.policy.as_dict()), _DOC_DDL)

    def _resolved(self, rows: DataFrame) -> DataFrame:
        """The entries of the kind-0 documents of ``rows`` (label, kind, unit, doc_id, exempt,
        payload, a, b, x), resolved a whole label (component) at a time."""
        n = int(self.spark.conf.get("spark.sql.shuffle.partitions") or 8)
        grouped = rows.repartition(n, "label").sortWithinPartitions("label", "kind")
        return grouped.mapInArrow(functools.partial(_resolve_groups, self.policy.as_dict(), GROUP_ROWS), _ENTRY_DDL)

    def _min_novel(self, entries: DataFrame) -> DataFrame:
        """``--min-novel`` on the driver, with the store's code (``plan.drop_covered``), refused
        above ``MIN_NOVEL_POSTINGS`` sampled postings of the kept documents."""
        if self.policy.min_novel is None:
            return entries
        from auditor.engine.export_store import ExportStore

        kept = entries.where("keep").select("doc_id")
        held = self.read("postings").join(kept, "doc_id", "left_semi").count()
        documents = entries.count()
        if documents > MIN_NOVEL_DOCUMENTS:
            raise UsageError(
                f"--min-novel: the plan has {documents:,} documents, more than the {MIN_NOVEL_DOCUMENTS:,} the "
                "driver reads to measure covers. Assemble without --min-novel (the plan then keeps every "
                "document the containment graph keeps, each with its novel share), or assemble a part of the "
                "corpus that fits from its store: auditor assemble --db PART.db --min-novel")
        if held > MIN_NOVEL_POSTINGS:
            raise UsageError(
                f"--min-novel: the kept documents hold {held:,} sampled shingles, more than the "
                f"{MIN_NOVEL_POSTINGS:,} whose covers the driver measures (each cover is a greedy walk over "
                "the kept documents' sampled index, held in memory). Assemble without --min-novel (the plan "
                "then keeps every document the containment graph keeps, each with its novel share), or "
                "assemble a part of the corpus that fits from its store: auditor assemble --db PART.db --min-novel")
        rows = entries.select("doc_id", "keep", "reason", "target", "containers").collect()
        lite = {int(x["doc_id"]): PlanEntry(int(x["doc_id"]), Decision(
            bool(x["keep"]), x["reason"], x["target"], None, int(x["containers"] or 0))) for x in rows}
        del rows
        store = ExportStore(self.source)
        dropped = drop_covered(store, lite, self.policy, self.threshold)  # type: ignore[arg-type]
        if not dropped:
            return entries
        over = self.spark.createDataFrame([_entry_row(lite[d]) for d in dropped], _ENTRY_DDL)
        out = entries.join(over.select("doc_id"), "doc_id", "left_anti").unionByName(over)
        return self.staged(out, "entries-covered")

    def _check(self, entries: DataFrame) -> None:
        """``resolve.check_plan`` as a join: every redundancy drop names a kept document."""
        from pyspark.sql import functions as F

        redundant = ~F.col("keep") & F.col("reason").isin(*REDUNDANT)
        t = entries.select(F.col("doc_id").alias("target"), F.col("keep").alias("t_keep"),
                           F.col("reason").alias("t_reason"))
        bad = (entries.where(redundant).join(t, "target", "left").where(F.col("t_keep").isNull() | ~F.col("t_keep"))
               .orderBy("doc_id").limit(5).collect())
        problems = [f"{x['doc_id']}: {x['reason']} {x['target']}, which is "
                    + ("not in the plan" if x["t_keep"] is None else f"dropped ({x['t_reason']})") for x in bad]
        named = entries.where(~redundant & F.col("target").isNotNull()).orderBy("doc_id").limit(5).collect()
        problems += [f"{x['doc_id']}: {'kept' if x['keep'] else x['reason']} but names {x['target']}" for x in named]
        if problems:  # a bug, never an input
            raise AssertionError("plan invariant broken: " + "; ".join(problems[:5]))

    def _novelty(self, entries: DataFrame, docs: DataFrame) -> DataFrame:
        """``gather.novelty_among`` over the kept documents, per document with a sampled set:
        (doc_id, hits: its sampled shingles no other kept document holds, sampled)."""
        from pyspark.sql import functions as F
        from pyspark.sql.window import Window

        flag = entries.select("doc_id", F.col("keep").cast("long").alias("k"))
        post = self.read("postings").select("hash", "doc_id").join(flag, "doc_id", "left").fillna(0, ["k"])
        others = F.sum("k").over(Window.partitionBy("hash")) - F.col("k")
        counted = (post.withColumn("others", others).groupBy("doc_id")
                   .agg(F.sum(F.when(F.col("others") <= 0, 1).otherwise(0)).cast("long").alias("hits"),
                        F.count(F.lit(1)).alias("sampled")))
        return (docs.where(F.col("n_sampled").isNotNull()).select(F.col("id").alias("doc_id"))
                .join(counted, "doc_id", "left").fillna(0, ["hits", "sampled"]))

    def _lines(self, entries: DataFrame, info: DataFrame, findings: DataFrame, novelty: DataFrame) -> DataFrame:
        from pyspark.sql import functions as F

        # the findings a line shows: its measured pair, and the reverse one of a near-duplicate
        # (the pairs are read once, and only these leave the scan's side of the join)
        both = F.col("reason").isin("near-duplicate-of", "superseded-by")
        measured = entries.where(F.col("ma").isNotNull())
        wanted = (measured.select(F.col("ma").alias("contained_id"), F.col("mb").alias("container_id"))
                  .unionByName(measured.where(both).select(F.col("mb").alias("contained_id"),
                                                           F.col("ma").alias("container_id"))).distinct())
        shown = self.staged(findings.join(wanted, ["contained_id", "container_id"], "left_semi")
                            .select("contained_id", "container_id", F.struct(*FINDING_COLUMNS).alias("f")), "shown")
        f = shown.select(F.col("contained_id").alias("ma"), F.col("container_id").alias("mb"),
                         F.col("f").alias("finding"))
        r = shown.select(F.col("container_id").alias("ma"), F.col("contained_id").alias("mb"),
                         F.col("f").alias("reverse"))
        stands = entries.where(F.col("target").isNotNull()).groupBy(F.col("target").alias("doc_id")) \
            .agg(F.collect_list("doc_id").alias("stands"))
        rows = (entries.withColumn("other", F.coalesce("target", "older"))
                .join(info.select(F.col("id").alias("doc_id"), "payload"), "doc_id")
                .join(info.select(F.col("id").alias("other"), F.col("payload").alias("other_payload")), "other", "left")
                .join(f, ["ma", "mb"], "left")
                .join(entries.where(both).select("doc_id", "ma", "mb").join(r, ["ma", "mb"])
                      .select("doc_id", "reverse"), "doc_id", "left")
                .join(novelty, "doc_id", "left").join(stands, "doc_id", "left"))
        return rows.mapInArrow(_plan_lines, "doc_id long, line string")

    def _failed(self, docs: DataFrame) -> DataFrame:
        """The failed and skipped inputs whose bytes were never stored, each with its plan line."""
        if not (self.source / "failures").is_dir():
            return self.spark.createDataFrame([], "id long, path string, part string, sha256 string, line string, "
                                                  "reason string, source string, size long")
        failures = self.read("failures").join(docs.select("sha256"), "sha256", "left_anti")
        return failures.select("id", "batch", *FAILURE_COLUMNS).mapInArrow(
            _failed_lines, "id long, path string, part string, sha256 string, line string, reason string, "
                           "source string, size long")

    def _summary(self, entries: DataFrame, info: DataFrame, failed: DataFrame) -> dict[str, Any]:
        from pyspark.sql import functions as F

        docs = (entries.join(info.select(F.col("id").alias("doc_id"), "source", "size", "n_chars"), "doc_id")
                .groupBy("keep", "reason", "source")
                .agg(F.count(F.lit(1)).alias("n"), F.sum("size").alias("bytes"), F.sum("n_chars").alias("chars"))
                .collect())
        inputs = failed.groupBy("reason", "source").agg(F.count(F.lit(1)).alias("n"),
                                                        F.sum("size").alias("bytes")).collect()
        return summary_of([(bool(x["keep"]), x["reason"], x["source"], True, int(x["n"]), int(x["bytes"] or 0),
                            int(x["chars"] or 0)) for x in docs]
                          + [(False, x["reason"], x["source"], False, int(x["n"]), int(x["bytes"] or 0), 0)
                             for x in inputs])


def _run_id(run_dir: Path) -> str:
    return str(json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["run_id"])


def _entry_row(e: PlanEntry) -> tuple[Any, ...]:
    d = e.decision
    ma, mb = d.measured if d.measured is not None else (None, None)
    return (e.doc_id, d.keep, d.reason, d.target, ma, mb, d.containers, d.older, json.dumps(e.detail))


def _entry_of(x: dict[str, Any]) -> PlanEntry:
    measured = (x["ma"], x["mb"]) if x["ma"] is not None else None
    return PlanEntry(x["doc_id"], Decision(x["keep"], x["reason"], x["target"], measured, x["containers"] or 0,
                                           x["older"]), json.loads(x["detail"]) if x["detail"] else {})


# -- Python workers (module level: pickled by reference, imported on the executors) -----------

def _doc_rows(policy_dict: dict[str, Any], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Documents with their sightings, submission and coverage -> ``_DOC_DDL`` rows: the
    plan's ``Doc`` (as ``documents_of`` reads it from a store) and ``plan.place``."""
    import pyarrow as pa

    from auditor.store import dating
    from auditor.text.dates import Dated

    policy = Policy.from_dict(policy_dict)
    schema = _arrow_schema(_DOC_DDL)
    for batch in batches:
        out: dict[str, list[Any]] = {f.name: [] for f in schema}
        for x in batch.to_pylist():
            d = Doc(x["id"], x["sha256"], x["path"], x["format"], x["size"], x["n_chars"], x["n_words"], x["batch"],
                    x["created"], x["norm_sha256"], x["parent_id"], json.loads(x["meta"] or "{}"), None)
            copies: tuple[list[Dated], list[Dated]] = ([], [])
            for s in x["seen"] or ():
                if not d.seen:
                    d.source = s["source"]
                d.seen += 1
                if s["source"] and s["source"] not in d.sources:
                    d.sources.append(s["source"])
                dating.copy_dates(copies, s["mtime"], s["seen_at"], s["supplied_date"], s["supplied_from"])
            d.sources.sort()
            d.parts = list(x["parts"] or ())
            if x["has_parent"]:
                d.head = json.loads(x["head"] or "{}")
            d.dated = dating.dated(x["dates"], x["created"], copies)
            covered = {}
            if x["rep_status"] is not None:
                covered[x["rep"]] = (x["rep_status"], None, x["rep_reason"], x["rep_bp"])
            if x["status"] is not None:
                covered[d.id] = (x["status"], x["dup_of"], x["reason"], x["boilerplate"])
            placed = place(d, covered, policy)
            if isinstance(placed, PlanEntry):
                unit, why, reason, detail = None, None, placed.decision.reason, json.dumps(placed.detail)
            else:
                (unit, why), reason, detail = placed, None, None
            for k, v in (("id", d.id), ("unit", unit), ("exempt", why), ("reason", reason), ("detail", detail),
                         ("payload", d.payload()), ("source", d.source), ("size", d.size), ("n_chars", d.n_chars),
                         ("sha256", d.sha256), ("path", d.path), ("batch", d.batch), ("format", d.format),
                         ("n_words", d.n_words), ("edgar", edgar_fields_of(d))):
                out[k].append(v)
        yield pa.RecordBatch.from_pydict(out, schema=schema)


def _resolve_groups(policy_dict: dict[str, Any], budget: int, batches: Iterator[pa.RecordBatch]
                    ) -> Iterator[pa.RecordBatch]:
    """Rows sorted by label -> the entries of their kind-0 documents. Whole labels are gathered
    until ``budget`` rows, then resolved in one call of ``plan.decide_units``: disjoint
    problems, resolved together as each alone. The rows stay Arrow batches until then (about
    60 bytes a pair, not a Python tuple's 150)."""
    policy = Policy.from_dict(policy_dict)
    pending: list[pa.RecordBatch] = []  # whole labels
    tail: list[pa.RecordBatch] = []  # the last label seen, which the next batch may continue
    tail_label = None
    for batch in batches:
        if not batch.num_rows:
            continue
        labels = batch.column("label").to_numpy()
        last = labels[-1]
        cut = int(np.searchsorted(labels, last))  # where the batch's last label starts
        if cut or tail_label != last:  # the tail's label ended before this batch's last one
            pending += [*tail, batch.slice(0, cut)]
            tail = []
        tail.append(batch.slice(cut))
        tail_label = last
        if sum(b.num_rows for b in pending) >= budget:
            yield _decided(pending, policy)
            pending = []
    pending += tail
    if any(b.num_rows for b in pending):
        yield _decided(pending, policy)


def _decided(batches: list[pa.RecordBatch], policy: Policy) -> pa.RecordBatch:
    import pyarrow as pa
    import pyarrow.compute as pc

    t = pa.Table.from_batches([b for b in batches if b.num_rows])
    pairs = pc.equal(t.column("kind"), 1)
    edges = t.filter(pairs)
    a, b, x = (edges.column(c).to_numpy() for c in ("a", "b", "x"))
    del edges
    units: dict[int, list[int]] = {}
    docs: dict[int, Doc] = {}
    exempt: dict[int, str] = {}
    mine: list[int] = []
    members = t.filter(pc.invert(pairs)).select(["kind", "unit", "doc_id", "exempt", "payload"])
    del t
    for kind, unit, doc_id, why, payload in zip(*(c.to_pylist() for c in members.columns), strict=True):
        if doc_id not in docs:  # a root's kept member may come with several components
            docs[doc_id] = Doc.from_payload(payload)
            units.setdefault(unit, []).append(doc_id)
        if kind == 0:
            mine.append(doc_id)
            if why is not None:
                exempt[doc_id] = why
    entries = decide_units(units, (a, b, x), docs, exempt, policy)
    out = [_entry_row(entries[d]) for d in mine]
    schema = _arrow_schema(_ENTRY_DDL)
    return pa.RecordBatch.from_arrays([pa.array([r[i] for r in out], f.type) for i, f in enumerate(schema)],
                                      schema=schema)


def _plan_lines(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Entries joined with their documents, findings, novelty and stands -> ``plan.plan_line``."""
    import pyarrow as pa

    for batch in batches:
        ids, lines = [], []
        for x in batch.to_pylist():
            e = _entry_of(x)
            doc = Doc.from_payload(x["payload"])
            other = Doc.from_payload(x["other_payload"]) if x["other_payload"] is not None else None
            found = {}
            if x["finding"] is not None:
                found[(x["ma"], x["mb"])] = finding_of([x["finding"][c] for c in FINDING_COLUMNS])
            if x["reverse"] is not None:
                found[(x["mb"], x["ma"])] = finding_of([x["reverse"][c] for c in FINDING_COLUMNS])
            novel = (x["hits"], x["sampled"]) if x["hits"] is not None else None
            ids.append(e.doc_id)
            lines.append(plan_line(e, doc, other, found.get, novel, x["stands"] or [])[:-1].decode("utf-8"))
        yield pa.RecordBatch.from_pydict({"doc_id": pa.array(ids, pa.int64()), "line": pa.array(lines, pa.string())})


def _failed_lines(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    import pyarrow as pa

    for batch in batches:
        out: dict[str, list[Any]] = {k: [] for k in ("id", "path", "part", "sha256", "line", "reason", "source",
                                                     "size")}
        for x in batch.to_pylist():
            e = failed_entry([x[c] for c in FAILURE_COLUMNS], x["batch"])
            for k, v in (("id", x["id"]), ("path", x["path"]), ("part", x["part"]), ("sha256", x["sha256"]),
                         ("line", plan_line(e, None, None, lambda _: None, None, [])[:-1].decode("utf-8")),
                         ("reason", e.decision.reason), ("source", x["source"]), ("size", int(x["size"] or 0))):
                out[k].append(v)
        yield pa.RecordBatch.from_pydict(out, schema=pa.schema([
            ("id", pa.int64()), ("path", pa.string()), ("part", pa.string()), ("sha256", pa.string()),
            ("line", pa.string()), ("reason", pa.string()), ("source", pa.string()), ("size", pa.int64())]))


def _sequential(task: tuple[str, str, str, str]) -> tuple[str, dict[str, Any]]:
    """One task's pass over files in order: ``plan`` streams the staged plan lines (documents by
    id, then failed inputs in the store's order) into plan.jsonl, checking the order as it
    goes; ``corpus`` hashes the corpus's rows in id order, checking it. Returns the content
    digest (sha256 over the lines, and their number)."""
    kind, a, b, dest = task
    if kind == "corpus":
        last = [-1]

        def rows() -> Iterator[bytes]:
            for line in read_parquet_lines(Path(a)):
                doc_id = json.loads(line)["id"]
                if doc_id <= last[0]:
                    raise AssertionError(f"corpus.parquet: id {doc_id} after {last[0]}: not in id order")
                last[0] = doc_id
                yield line
        return kind, lines_content(rows())
    from auditor.assembly.files import write_lines

    return kind, write_lines(Path(dest), _staged_lines(Path(a), Path(b)), compress=False)


def _staged_lines(documents: Path, failed: Path) -> Iterator[bytes]:
    import pyarrow.parquet as pq

    from auditor.assembly.files import parquet_parts

    last: Any = None
    for f in parquet_parts(documents):
        for batch in pq.ParquetFile(f).iter_batches(batch_size=2048, columns=["doc_id", "line"]):
            for doc_id, line in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True):
                if last is not None and doc_id <= last:
                    raise AssertionError(f"plan: document {doc_id} after {last}: not in id order")
                last = doc_id
                yield line.encode("utf-8") + b"\n"
    last = None
    for f in parquet_parts(failed):
        for batch in pq.ParquetFile(f).iter_batches(batch_size=2048, columns=["path", "part", "sha256", "id", "line"]):
            for *key, line in zip(*(batch.column(i).to_pylist() for i in range(5)), strict=True):
                k = tuple((v is not None, v) for v in key)  # SQL's order: NULL first
                if last is not None and k <= last:
                    raise AssertionError(f"plan: failed input {key} out of order")
                last = k
                yield line.encode("utf-8") + b"\n"


def _arrow_schema(ddl: str) -> pa.Schema:
    import pyarrow as pa

    types = {"long": pa.int64(), "boolean": pa.bool_(), "string": pa.string(), "double": pa.float64()}
    fields = []
    for part in _split_ddl(ddl):
        name, kind = part.strip().split(" ", 1)
        if kind.startswith("struct<"):
            inner = kind[len("struct<"):-1].split(",")
            fields.append(pa.field(name, pa.struct([(n, pa.int64() if t == "bigint" else pa.string())
                                                   for n, t in (f.split(":") for f in inner)])))
        else:
            fields.append(pa.field(name, types[kind]))
    return pa.schema(fields)


def _split_ddl(ddl: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in ddl:
        depth += (ch == "<") - (ch == ">")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]
