"""The finish of a Spark audit on the executors: verdicts, families, grouping, spans.

``spark_engine._job`` writes every candidate pair (``pairs/``). What ``audit.finish`` does with
them on one machine is done here as joins, so the driver never holds the pairs:

1. **Short documents** (at most ``SHORT_SHINGLES`` shingles) are searched exhaustively, as
   ``short.exhaustive_pairs`` searches them: every document's holdings of their shingles (a
   join), the prefix principle on all their shingles (rarest first, by holders, then unsigned
   hash), exact counts.
2. **Verdicts** from the integer counts: ``shared / shingles`` against the threshold, the
   histogram of every candidate pair, the nearest misses.
3. **Families**: connected components of the mutual pairs, by large-star / small-star
   (:func:`components`), a Spark-native algorithm with O(log^2 n) rounds.
4. **Grouped by contained document**: containers ranked (containment, size, id), unrelated
   containers counted per document (:func:`auditor.engine.audit.container_groups`, run per
   document in the Python workers), the boilerplate flag.
5. **Spans** of each contained document's best containers, located next to the container's
   text by the library's ``locate``.

The driver collects only what the report prints: per contained document its count, its first
``BEST_CONTAINERS + OTHERS_SHOWN`` containers and its best pairs; the families; the not-auditable
list; 20 histogram bins; 100 nearest misses. The containing pairs stay in ``containing/``
(Parquet, sorted by contained and container), streamed by :class:`ParquetPairs`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from auditor.engine.audit import (
    BEST_CONTAINERS,
    HISTOGRAM_BINS,
    NEAREST_MISSES,
    AuditResult,
    boilerplate_min,
)
from auditor.engine.export_store import scratch_db
from auditor.engine.pairs import Contained, Family, Pair, Pairs, Span
from auditor.engine.short import SHORT_SHINGLES
from auditor.index.sampled import exact_min_hits
from auditor.text.components import components as local_components
from auditor.text.shingle import Params

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

#: containers kept per contained document beyond its best ones (what the report names)
OTHERS_KEPT = 10
_SIGN = -(2**63)  # XOR with this maps uint64 order onto int64 order
_MAX_ROUNDS = 64
#: mutual pairs up to which families are labelled in one scipy call on the driver (1.6 MB of
#: edges at most, whatever the number of pairs); more go through ``components`` on the cluster
LOCAL_EDGES = 100_000
#: shingles of the short documents (summed over them) up to which every worker is sent them all
#: (:class:`ShortSets`, 17 bytes each: 34 MB), to keep only its documents' holdings and to count
#: each candidate pair in place; more are joined instead
BROADCAST_SHORT = 2_000_000
#: pairs of one container handed to Python in one cogroup group (the rest in further slices):
#: a group is held whole, and a boilerplate container has thousands of candidates
VERIFY_SLICE = 64
#: wall seconds of each step of the last finish (for the benchmark's cost model)
STAGES: dict[str, float] = {}


# -- connected components, Spark-native ---------------------------------------------------------

def components(edges: DataFrame, *, checkpoint: Any = None, local_up_to: int = 0) -> DataFrame:
    """``(node, label)`` for every node of the undirected graph ``edges(src, dst)`` (long ids):
    the label is the smallest node of its component.

    Large-star / small-star (Kiveris et al., "Connected Components in MapReduce and Beyond",
    2014): edges point from a larger node to a smaller one; large-star links each node's larger
    neighbours to its smallest neighbour, small-star links a node and its smaller neighbours to
    the smallest of them. The graph stays connected as it was, and ends as stars around each
    component's smallest node. No generated ids: nodes keep their own, so adaptive execution
    cannot renumber them between rounds (the wrong-result case of GraphFrames' components).
    ``checkpoint``: called on each round's edges (to cut the lineage), default ``localCheckpoint``.
    ``local_up_to``: a graph of at most this many edges is labelled by scipy on the driver.
    """
    from pyspark.sql import functions as F

    cut = checkpoint or (lambda d: d.localCheckpoint(eager=True))
    if local_up_to:
        few = edges.limit(local_up_to + 1).collect()
        if len(few) <= local_up_to:  # a bounded handful: one scipy call beats rounds of shuffles
            return _components_here(edges.sparkSession, few)
    e = (edges.select(F.greatest("src", "dst").alias("u"), F.least("src", "dst").alias("v"))
         .where(F.col("u") != F.col("v")).distinct())
    e = cut(e)
    for _ in range(_MAX_ROUNDS):
        # large-star: every neighbour w > u of u is linked to m(u), the smallest of u and its neighbours
        both = e.select("u", "v").unionByName(e.select(F.col("v").alias("u"), F.col("u").alias("v")))
        m = both.groupBy("u").agg(F.least(F.min("v"), F.col("u")).alias("m"))
        large = (both.where(F.col("v") > F.col("u")).join(m, "u")
                 .select(F.col("v").alias("u"), F.col("m").alias("v")).distinct())
        # small-star: u and each of its smaller neighbours are linked to their smallest
        ms = large.groupBy("u").agg(F.min("v").alias("m"))
        small = (large.join(ms, "u").select(F.col("v").alias("u"), "m")
                 .unionByName(ms.select("u", "m"))
                 .where(F.col("u") != F.col("m")).select("u", F.col("m").alias("v")).distinct())
        small = cut(small)
        # done when every node points at one root, and roots point nowhere: stars
        forked = small.groupBy("u").agg(F.count(F.lit(1)).alias("n")).where("n > 1").select("u")
        deep = small.join(small.select(F.col("v").alias("u")).distinct(), "u", "left_semi").select("u")
        e = small
        if forked.unionByName(deep).limit(1).count() == 0:
            break
    else:  # pragma: no cover - O(log^2 n) rounds: 64 is far beyond any corpus
        raise RuntimeError("connected components did not converge")
    roots = e.select(F.col("v").alias("node")).distinct().withColumn("label", F.col("node"))
    return e.select(F.col("u").alias("node"), F.col("v").alias("label")).unionByName(roots)


def _components_here(spark: SparkSession, edges: list[Any]) -> DataFrame:
    src = np.array([int(r["src"]) for r in edges], np.int64)
    dst = np.array([int(r["dst"]) for r in edges], np.int64)
    nodes = np.unique(np.concatenate((src, dst)))
    _, label = local_components(len(nodes), np.searchsorted(nodes, src), np.searchsorted(nodes, dst))
    smallest = np.full(int(label.max()) + 1 if len(label) else 0, -1, np.int64)
    for n, lab in zip(nodes.tolist(), label.tolist(), strict=True):  # nodes ascending: the first is the least
        if smallest[lab] < 0:
            smallest[lab] = n
    return spark.createDataFrame([(n, int(smallest[lab])) for n, lab in zip(nodes.tolist(), label.tolist(),
                                                                            strict=True)], "node long, label long")


# -- Python workers (module level: pickled by reference, imported on the executors) -----------

WORDS_FROM = "texts"
"""Where the Spark job and the finish read each document's words: ``"texts"`` (tokenised again
from ``texts/``) or ``"sequences"`` (the export's ``sequences/``, as the store keeps them, when
the export has them). Both give the same shingles. On the 140 MB benchmark corpus the sequences
took 18% less CPU (125 against 153 CPU-s, 2 GB heap), but twice ran the 1 GB heap out in the
Spark job where the texts did not (benchmarks/RESULTS.md, 2026-12-03): texts stay the default
until that is understood."""


def words_frame(spark: SparkSession, source: str) -> DataFrame:
    """``(doc_id, data)`` from ``sequences/`` (see ``WORDS_FROM``), else ``(doc_id, text)``: what
    ``shingles_in`` reads."""
    if WORDS_FROM == "sequences":
        row = spark.read.text(f"{source}/params.json", wholetext=True).first()
        if row and json.loads(row[0]).get("with_sequences"):
            return spark.read.parquet(f"{source}/sequences").select("doc_id", "data")
    return spark.read.parquet(f"{source}/texts").select("doc_id", "text")


def shingles_in(batch: pa.RecordBatch, shape: Params, hasher: Any) -> Iterator[tuple[int, int, np.ndarray]]:
    """(doc_id, words, every shingle hash in document order) of each row of a ``words_frame``
    batch: from its stored word sequence (``data``), or from its text as ingest shingles it."""
    from auditor.text.shingle import WordSequence, text_shingles

    ids = batch.column("doc_id").to_pylist()
    if "data" in batch.schema.names:
        for doc_id, data in zip(ids, batch.column("data").to_pylist(), strict=True):
            seq = WordSequence.decode(data, offsets=False)
            yield doc_id, len(seq), seq.shingles(shape.k)
    else:
        for doc_id, text in zip(ids, batch.column("text").to_pylist(), strict=True):
            n, every = text_shingles(text, shape, hasher)
            yield doc_id, n, every


def _all_shingles(params: dict[str, int], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``words_frame`` rows -> one row per distinct shingle: ``(doc_id, hash, sampled)``."""
    import pyarrow as pa

    from auditor.text.shingle import WordHasher, distinct

    shape = Params(k=params["k"], modulus=params["modulus"], seed=params["seed"])
    hasher = WordHasher(shape.seed)
    for batch in batches:
        ids, hashes, flags = [], [], []
        for doc_id, _, every in shingles_in(batch, shape, hasher):
            unique = distinct(every)
            ids.append(np.full(len(unique), doc_id, np.int64))
            hashes.append(unique.view(np.int64))
            flags.append(unique % np.uint64(shape.modulus) == 0)
        yield pa.RecordBatch.from_pydict({
            "doc_id": pa.array(np.concatenate(ids) if ids else np.empty(0, np.int64), pa.int64()),
            "hash": pa.array(np.concatenate(hashes) if hashes else np.empty(0, np.int64), pa.int64()),
            "sampled": pa.array(np.concatenate(flags) if flags else np.empty(0, bool), pa.bool_())})


def _held_sets(params: dict[str, int], known: Any, batches: Iterator[pa.RecordBatch]
               ) -> Iterator[pa.RecordBatch]:
    """``words_frame`` rows -> ``(doc_id, held)``: the distinct shingles of the document that are
    short documents' shingles (``known``: a broadcast :class:`ShortSets`), sorted, one row per
    document holding any."""
    import pyarrow as pa

    from auditor.text.shingle import HashSet, WordHasher, distinct

    shape = Params(k=params["k"], modulus=params["modulus"], seed=params["seed"])
    hasher = WordHasher(shape.seed)
    vocab = HashSet(known.value.vocab)
    for batch in batches:
        ids, held = [], []
        for doc_id, _, every in shingles_in(batch, shape, hasher):
            unique = distinct(every)
            mine = unique[vocab.contains(unique)] if len(vocab) else unique[:0]
            if len(mine):
                ids.append(doc_id)
                held.append(mine.view(np.int64))
        yield pa.RecordBatch.from_pydict({"doc_id": pa.array(ids, pa.int64()), "held": _lists(held)})


def _lists(arrays: list[np.ndarray]) -> pa.Array:
    import pyarrow as pa

    offsets = np.concatenate(([0], np.cumsum([len(a) for a in arrays]))).astype(np.int32)
    values = np.concatenate(arrays) if arrays else np.empty(0, np.int64)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, pa.int64()))


class ShortSets:
    """The short documents' distinct shingles, sent once to every worker: ``ids`` ascending,
    document ``ids[i]``'s shingles ``hashes[offsets[i]:offsets[i + 1]]`` (ascending, unsigned)
    with ``sampled`` flags, and ``vocab``, all of them distinct and sorted."""

    def __init__(self, a: np.ndarray, hashes: np.ndarray, sampled: np.ndarray) -> None:
        order = np.lexsort((hashes, a))
        a, self.hashes, self.sampled = a[order], hashes[order], sampled[order]
        self.ids, starts = np.unique(a, return_index=True)
        self.offsets = np.append(starts, len(a)).astype(np.int64)
        self.vocab = np.unique(self.hashes)

    def shared(self, docs: np.ndarray, held: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(shared, hits) of each short document of ``docs`` with a document holding ``held``
        (sorted): its shingles among them, and its sampled shingles among them."""
        at = np.searchsorted(self.ids, docs)
        starts, lengths = self.offsets[at], self.offsets[at + 1] - self.offsets[at]
        seg = np.repeat(np.arange(len(docs)), lengths)
        idx = starts[seg] + np.arange(len(seg)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        vals = self.hashes[idx]
        pos = np.minimum(np.searchsorted(held, vals), max(len(held) - 1, 0))
        found = (held[pos] == vals) if len(held) else np.zeros(len(vals), bool)
        shared = np.bincount(seg, weights=found, minlength=len(docs)).astype(np.int64)
        hits = np.bincount(seg, weights=found & self.sampled[idx], minlength=len(docs)).astype(np.int64)
        return shared, hits


def _short_counts(known: Any, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``(b, held, docs)`` -> ``(a, b, shared, hits)`` for each short document ``a`` of ``docs``
    (the candidates ``b`` may contain), counted against ``b``'s held shingles."""
    import pyarrow as pa

    sets: ShortSets = known.value
    for batch in batches:
        out_a, out_b, out_s, out_h = [], [], [], []
        for b, held, docs in zip(batch.column("b").to_pylist(), batch.column("held").to_pylist(),
                                 batch.column("docs").to_pylist(), strict=True):
            a = np.asarray(docs, np.int64)
            shared, hits = sets.shared(a, np.asarray(held, np.int64).view(np.uint64))
            out_a.append(a)
            out_b.append(np.full(len(a), b, np.int64))
            out_s.append(shared)
            out_h.append(hits)
        cat = (lambda xs: np.concatenate(xs) if xs else np.empty(0, np.int64))  # noqa: E731
        yield pa.RecordBatch.from_pydict({"a": pa.array(cat(out_a), pa.int64()), "b": pa.array(cat(out_b), pa.int64()),
                                          "shared": pa.array(cat(out_s), pa.int64()),
                                          "hits": pa.array(cat(out_h), pa.int64())})


def _groups_of(nodes: pa.Table, edges: pa.Table) -> pa.Table:
    """One contained document's unrelated containers (``audit.container_groups``): its containers
    outside its family as nodes (a family counts once), and the containing pairs among them."""
    import pyarrow as pa

    doc = nodes.column("contained").to_pylist()[:1] or edges.column("of").to_pylist()[:1]
    names = np.unique(nodes.column("node").to_numpy()) if nodes.num_rows else np.empty(0, np.int64)
    if not len(names):
        return pa.table({"contained": pa.array(doc, pa.int64()), "groups": pa.array([0] * len(doc), pa.int64())})
    src = np.searchsorted(names, edges.column("x").to_numpy()) if edges.num_rows else np.empty(0, np.int64)
    dst = np.searchsorted(names, edges.column("y").to_numpy()) if edges.num_rows else np.empty(0, np.int64)
    k = local_components(len(names), src, dst)[0]
    return pa.table({"contained": pa.array(doc, pa.int64()), "groups": pa.array([k], pa.int64())})


def _spans_of(params: dict[str, int], pairs: pa.Table, container: pa.Table) -> pa.Table:
    """Spans of each best pair of one container: ``verify.locate`` over the container's word
    sequence (its stored one, or derived from its text as ingest derives it) and the contained
    document's set."""
    import pyarrow as pa

    from auditor.engine.verify import locate
    from auditor.text.shingle import WordHasher, WordSequence, read_words

    out: dict[str, list[Any]] = {"contained": [], "container": [], "spans": []}
    if not pairs.num_rows or not container.num_rows:
        return pa.table(out, schema=_spans_schema())
    pages = container.column("page_offsets")[0].as_py()
    page_offsets = json.loads(pages) if pages else None
    if "data" in container.column_names:
        words = WordSequence.decode(container.column("data")[0].as_py(), offsets=True)
    else:
        words = read_words(container.column("text")[0].as_py(), WordHasher(params["seed"])).sequence
    seq = words.shingles(params["k"])
    assert words.starts is not None and words.ends is not None
    for a, b, s in zip(pairs.column("contained").to_pylist(), pairs.column("container").to_pylist(),
                       pairs.column("a").to_pylist(), strict=True):
        every = np.sort(np.asarray(s, np.int64).view(np.uint64))
        spans = locate(seq, every, "", params["k"], page_offsets, offsets=(words.starts, words.ends))
        out["contained"].append(a)
        out["container"].append(b)
        out["spans"].append([{"start": x.start, "end": x.end, "words": x.words, "shingles": x.shingles,
                              "p0": x.pages[0] if x.pages else None, "p1": x.pages[1] if x.pages else None}
                             for x in spans])
    return pa.table(out, schema=_spans_schema())


def _spans_schema() -> Any:
    import pyarrow as pa

    span = pa.struct([("start", pa.int64()), ("end", pa.int64()), ("words", pa.int64()),
                      ("shingles", pa.int64()), ("p0", pa.int64()), ("p1", pa.int64())])
    return pa.schema([("contained", pa.int64()), ("container", pa.int64()), ("spans", pa.list_(span))])


_SPANS_DDL = ("contained long, container long, spans array<struct<start:long,end:long,words:long,"
              "shingles:long,p0:long,p1:long>>")


# -- the containing pairs, on disk --------------------------------------------------------------

_FIELDS = ("contained", "container", "hits", "sampled", "shared", "shingles")


class ParquetPairs:
    """The containing pairs of a Spark audit, in ``containing/`` sorted by (contained, container):
    counted, streamed a row group at a time (``rows``), loaded whole only when a caller asks for
    the arrays (a store recording them, a scratch store's controls)."""

    def __init__(self, directory: str | Path, count: int) -> None:
        self.directory, self.count = Path(directory), count
        self._loaded: Pairs | None = None

    def adopt(self, scratch: str | Path) -> None:
        """Remove ``scratch`` (a temporary work directory holding ``directory``) once these pairs
        are no longer referenced, not before: a caller reads them after the audit returned."""
        import shutil
        import weakref

        weakref.finalize(self, shutil.rmtree, str(scratch), True)

    def __len__(self) -> int:
        return self.count

    def files(self) -> list[Path]:
        return sorted(self.directory.glob("part-*.parquet"))

    def rows(self, at_once: int = 50_000) -> Iterator[tuple[int, int, int, int, int, int]]:
        import pyarrow.parquet as pq

        for f in self.files():
            for batch in pq.ParquetFile(f).iter_batches(columns=list(_FIELDS), batch_size=at_once):
                yield from zip(*(batch.column(c).to_pylist() for c in _FIELDS), strict=True)

    def slices(self, at_once: int = 50_000) -> Iterator[Pairs]:
        """The pairs in order, ``at_once`` at a time, read from disk (``Pairs.slices``): what a
        caller that goes through every pair reads, without loading them all."""
        import pyarrow.parquet as pq

        for f in self.files():
            for batch in pq.ParquetFile(f).iter_batches(columns=list(_FIELDS), batch_size=at_once):
                yield Pairs(*(batch.column(c).to_numpy(zero_copy_only=False).astype(np.int64) for c in _FIELDS))

    def load(self) -> Pairs:
        if self._loaded is None:
            import pyarrow.parquet as pq

            parts = [pq.read_table(f, columns=list(_FIELDS)) for f in self.files()]
            self._loaded = Pairs.concat([Pairs(*(t.column(c).to_numpy().astype(np.int64) for c in _FIELDS))
                                         for t in parts]) if parts else Pairs.empty()
        return self._loaded

    def __getattr__(self, name: str) -> Any:  # the arrays and methods of Pairs, on demand
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.load(), name)


# -- the finish ---------------------------------------------------------------------------------

def finish_on_spark(
    spark: SparkSession, source: str, out: str, params: Params, threshold: float, *,
    representatives: DataFrame, only: set[int] | None, groups: list[list[int]], universe: list[int],
) -> AuditResult:
    """The ``AuditResult`` of the pairs in ``out/pairs``, finished on the executors.

    ``representatives``: the ids (column ``id``) that take part; ``groups`` and ``universe``:
    the duplicate groups and the covered documents, as the driver knows them.
    """
    import time

    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    shape = {"k": params.k, "modulus": params.modulus, "seed": params.seed}
    STAGES.clear()
    clock = [time.perf_counter()]

    def lap(name: str) -> None:
        now = time.perf_counter()
        STAGES[name] = round(now - clock[0], 2)
        clock[0] = now

    docs = spark.read.parquet(f"{source}/documents")
    texts = words_frame(spark, source)
    reps = representatives.select("id").join(docs, "id")
    indexed = reps.where(F.col("n_sampled").isNotNull()).select(
        F.col("id").alias("doc_id"), "n_shingles").persist()
    documents = indexed.count()
    pairs = spark.read.parquet(f"{out}/pairs")
    pairs = pairs.withColumn("verify", F.col("shingles").isNotNull())  # verified exactly: needed it
    long = pairs.join(indexed.where(F.col("n_shingles") > SHORT_SHINGLES)
                      .select(F.col("doc_id").alias("contained")), "contained", "left_semi")
    n_long = long.count()
    lap("read pairs")

    # 1. short documents, exhaustively
    short_ids = indexed.where((F.col("n_shingles") > 0) & (F.col("n_shingles") <= SHORT_SHINGLES))
    n_short_docs = short_ids.count()
    known = None  # the broadcast of the short documents' shingles, released at the end
    cached: list[DataFrame] = []  # the short documents' frames, released at the end
    if n_short_docs:
        every = texts.join(indexed.select("doc_id"), "doc_id", "left_semi")
        short_sets = (texts.join(short_ids.select("doc_id"), "doc_id", "left_semi")
                      .mapInArrow(functools.partial(_all_shingles, shape), "doc_id long, hash long, sampled boolean")
                      .withColumnRenamed("doc_id", "a").persist())
        cached.append(short_sets)
        n_placed = short_sets.count()
        sized = short_sets.join(short_ids.select(F.col("doc_id").alias("a"), F.col("n_shingles").alias("n")), "a")
        if n_placed <= BROADCAST_SHORT:  # each worker keeps only what it holds of them, one row per document
            t = short_sets.toArrow()
            known = spark.sparkContext.broadcast(ShortSets(
                t.column("a").to_numpy(), t.column("hash").to_numpy().view(np.uint64),
                t.column("sampled").to_numpy(zero_copy_only=False)))
            del t
            held_sets = (every.mapInArrow(functools.partial(_held_sets, shape, known), "doc_id long, held array<long>")
                         .withColumnRenamed("doc_id", "b").persist())
            holdings = held_sets.select(F.col("b").alias("doc_id"), F.explode("held").alias("hash"))
            cached.append(held_sets)
        else:  # too many to send to every worker: a join
            vocab = short_sets.select("hash").distinct()
            holdings = (every.mapInArrow(functools.partial(_all_shingles, shape),
                                         "doc_id long, hash long, sampled boolean")
                        .select("doc_id", "hash").join(vocab, "hash", "left_semi").persist())
            cached.append(holdings)
        # candidates: every holder of one of a's n - m + 1 rarest shingles (the prefix principle).
        # Joined on the rare shingles only: a shingle of the boilerplate, held by thousands of
        # documents and in hundreds of short ones, never meets its holders here (their product
        # is what a join of every shingle to its holders would sort).
        df = holdings.groupBy("hash").agg(F.count(F.lit(1)).alias("df"))
        least = spark.createDataFrame([(n, n - exact_min_hits(n, threshold) + 1) for n in range(1, SHORT_SHINGLES + 1)],
                                      "n long, prefix long")
        rank = Window.partitionBy("a").orderBy("df", F.col("hash").bitwiseXOR(F.lit(_SIGN)))
        rare = (sized.join(df, "hash").withColumn("rank", F.row_number().over(rank))
                .join(F.broadcast(least), "n").where(F.col("rank") <= F.col("prefix")).select("a", "hash"))
        cands = (rare.join(holdings.withColumnRenamed("doc_id", "b"), "hash")
                 .where(F.col("a") != F.col("b")).select("a", "b").distinct())
        if only is not None:
            keep = spark.createDataFrame([(int(i),) for i in sorted(only)], "id long")
            cands = (cands.join(F.broadcast(keep.withColumnRenamed("id", "a")), "a", "left_semi")
                     .unionByName(cands.join(F.broadcast(keep.withColumnRenamed("id", "b")), "b", "left_semi"))
                     .distinct())
        per_a = sized.groupBy("a", "n").agg(F.sum(F.col("sampled").cast("long")).alias("n_sampled"))
        # exact counts of each candidate pair, from the candidate's side: one row per container
        # (its held shingles, the short documents it may contain) counted in the Python workers,
        # or, without the broadcast, each candidate's (at most SHORT_SHINGLES) shingles looked up
        # in the container's holdings. Either way the work is the candidates', not the holders'.
        if known is not None:
            counted = (cands.groupBy("b").agg(F.collect_list("a").alias("docs")).join(held_sets, "b")
                       .mapInArrow(functools.partial(_short_counts, known),
                                   "a long, b long, shared long, hits long"))
        else:
            counted = (cands.join(short_sets, "a")
                       .join(holdings.withColumnRenamed("doc_id", "b"), ["b", "hash"], "left_semi")
                       .groupBy("a", "b").agg(F.count(F.lit(1)).alias("shared"),
                                              F.sum(F.col("sampled").cast("long")).alias("hits")))
        exhaustive = (counted.join(per_a, "a").select(
            F.col("a").alias("contained"), F.col("b").alias("container"), "hits",
            F.col("n_sampled").alias("sampled"), "shared", F.col("n").alias("shingles")))
    else:
        exhaustive = spark.createDataFrame([], "contained long, container long, hits long, sampled long, "
                                               "shared long, shingles long")
    exhaustive = exhaustive.persist()
    n_short = exhaustive.count()
    lap("short documents, exhaustively")

    # 2. verdicts from the integer counts
    verified = (long.where("verify").select(*_FIELDS).unionByName(exhaustive.select(*_FIELDS))
                .withColumn("exact", F.when(F.col("shingles") > 0, F.col("shared") / F.col("shingles"))
                            .otherwise(F.lit(0.0))).persist())
    bins = HISTOGRAM_BINS

    def binned(col: Any) -> Any:
        return F.least((col * F.lit(float(bins))).cast("long"), F.lit(bins - 1))

    counts = (verified.select(binned(F.col("exact")).alias("bin"))
              .unionByName(long.where(~F.col("verify")).select(
                  binned(F.col("hits") / F.greatest(F.col("sampled"), F.lit(1))).alias("bin")))
              .groupBy("bin").count().collect())
    histogram = [0] * bins
    for r in counts:
        histogram[int(r["bin"])] = int(r["count"])
    below_df = verified.where(F.col("exact") < threshold)
    below = below_df.count()
    nearest = below_df.orderBy(F.desc("exact"), "contained", "container").limit(NEAREST_MISSES).collect()
    misses = [_pair(r) for r in nearest]
    containing = verified.where(F.col("exact") >= threshold)
    rev = containing.select(F.col("container").alias("contained"), F.col("contained").alias("container"))
    containing = containing.join(rev.withColumn("mutual", F.lit(True)), ["contained", "container"], "left") \
        .withColumn("mutual", F.coalesce("mutual", F.lit(False)))
    containing.orderBy("contained", "container").select(*_FIELDS, "mutual").write.mode("overwrite") \
        .parquet(f"{out}/containing")
    containing = spark.read.parquet(f"{out}/containing").persist()
    n_containing = containing.count()
    lap("verdicts, histogram, misses, containing/ written")

    # 3. families: connected components of the mutual pairs
    mutual = containing.where("mutual")
    labels = components(mutual.select(F.col("contained").alias("src"), F.col("container").alias("dst")),
                        local_up_to=LOCAL_EDGES)
    fam_rows = (mutual.join(labels.withColumnRenamed("node", "contained"), "contained")
                .groupBy("label").agg(F.count(F.lit(1)).alias("pairs"),
                                      F.min(F.col("shared") / F.col("shingles")).alias("low"),
                                      F.max(F.col("shared") / F.col("shingles")).alias("high"))
                .join(labels.groupBy("label").agg(F.array_sort(F.collect_list("node")).alias("members")), "label")
                .orderBy("label").collect())
    families = [Family([int(m) for m in r["members"]], int(r["pairs"]), float(r["low"]), float(r["high"]))
                for r in fam_rows]
    fam_index = spark.createDataFrame([(int(r["label"]), i) for i, r in enumerate(fam_rows)],
                                      "label long, family int")
    lap("families (connected components)")
    fam_of = labels.join(F.broadcast(fam_index), "label").select(F.col("node").alias("doc"), "family",
                                                                 F.col("label").alias("fam_min")).persist()

    # 4. grouped by contained document: containers outside the family, best first
    cutoff = boilerplate_min(documents)
    size = indexed.select(F.col("doc_id").alias("container"), F.col("n_shingles").alias("size"))
    outside = containing.where(~F.col("mutual")).join(size, "container", "left").fillna(0, ["size"]) \
        .withColumn("exact", F.col("shared") / F.col("shingles")).persist()
    per = outside.groupBy("contained").agg(F.count(F.lit(1)).alias("n"))
    need_groups = per.where(F.col("n") >= cutoff).select("contained")
    own = fam_of.select(F.col("doc").alias("contained"), F.col("fam_min").alias("own"))
    theirs = fam_of.select(F.col("doc").alias("container"), F.col("fam_min").alias("theirs"))
    held_by = (outside.join(need_groups, "contained", "left_semi").select("contained", "container")
               .join(own, "contained", "left").join(theirs, "container", "left")
               .where(F.col("own").isNull() | F.col("theirs").isNull() | (F.col("own") != F.col("theirs")))
               .withColumn("node", F.when(F.col("theirs").isNotNull(), -F.col("theirs") - 1)
                           .otherwise(F.col("container")))
               .select("contained", "container", "node").persist())
    among = (held_by.select("contained", F.col("container").alias("x"))
             .join(outside.select(F.col("contained").alias("x"), F.col("container").alias("y")), "x")
             .join(held_by.select("contained", F.col("container").alias("y")), ["contained", "y"], "left_semi")
             .select("contained", "x", "y"))
    name = held_by.select("contained", F.col("container").alias("c"), "node")
    edges = (among.join(name.withColumnRenamed("c", "x"), ["contained", "x"])
             .select("contained", F.col("node").alias("x"), "y")
             .join(name.withColumnRenamed("c", "y"), ["contained", "y"])
             .select("contained", "x", F.col("node").alias("y")))
    counted = (held_by.select("contained", "node").groupBy("contained")
               .cogroup(edges.select(F.col("contained").alias("of"), "x", "y").groupBy("of"))
               .applyInArrow(_groups_of, "contained long, groups long"))
    rank = Window.partitionBy("contained").orderBy(F.desc("exact"), "size", "container")
    top = (outside.withColumn("rank", F.row_number().over(rank))
           .where(F.col("rank") <= BEST_CONTAINERS + OTHERS_KEPT)
           .groupBy("contained").agg(F.array_sort(F.collect_list(F.struct(
               "rank", "contained", "container", "hits", "sampled", "shared", "shingles"))).alias("top")))
    # streamed in order, a partition at a time, into a scratch file: the driver holds one
    # Contained at a time (a row with its 13 containers is several times larger than its id)
    grouped = top.join(per, "contained").join(counted, "contained", "left").persist()
    fam_members = {m: i for i, f in enumerate(families) for m in f.members}

    def made(r: Any) -> Contained:
        groups_n = int(r["groups"] or 0)
        is_bp = groups_n >= cutoff
        rows = r["top"]
        cs = np.array([x["container"] for x in rows], np.int64)
        vals = np.array([x["shared"] / x["shingles"] for x in rows], np.float64)
        best = [_pair(x) for x in rows[: 1 if is_bp else BEST_CONTAINERS]]
        return Contained(int(r["contained"]), cs, vals, best, fam_members.get(int(r["contained"])),
                         is_bp, groups_n if int(r["n"]) >= cutoff else 0, count=int(r["n"]))

    contained = ContainedOnDisk(made(r) for r in grouped.orderBy("contained").toLocalIterator())
    lap("grouped by contained document, unrelated containers")

    # 5. spans of the best pairs, where the container's text is; the pairs chosen on the
    # executors as ``made`` chooses them, so no list of them is sent from the driver
    if len(contained):
        best = (grouped.select("contained", F.explode("top").alias("t"),
                               (F.coalesce(F.col("groups"), F.lit(0)) >= cutoff).alias("bp"))
                .where(F.col("t.rank") <= F.when(F.col("bp"), F.lit(1)).otherwise(F.lit(BEST_CONTAINERS)))
                .select("contained", F.col("t.container").alias("container")))
        contained.add_spans(_locate(spark, texts, docs, shape, best))
    grouped.unpersist()
    lap("spans of the best containers")
    result = AuditResult(
        params=params, threshold=threshold, containing=ParquetPairs(_local(out) / "containing", n_containing),  # type: ignore[arg-type]
        contained=contained, families=families, below=below, nearest_misses=misses, histogram=histogram,
        not_auditable=[], duplicate_groups=groups, documents=documents, candidates=n_long + n_short,
        universe=universe, boilerplate_min=cutoff)
    for d in (indexed, exhaustive, verified, containing, fam_of, outside, held_by, *cached):
        d.unpersist()
    if known is not None:
        known.unpersist()
    return result


def _local(url: str) -> Path:
    return Path(url[len("file://"):]) if url.startswith("file://") else Path(url)


def _pair(r: Any) -> Pair:
    return Pairs(*(np.array([r[c]], np.int64) for c in _FIELDS)).pair(0)


def _locate(spark: SparkSession, texts: DataFrame, docs: DataFrame, shape: dict[str, int],
            best: DataFrame) -> Iterator[tuple[int, int, list[Span]]]:
    """Spans of the best pairs (``best``: contained, container): grouped by container, next to
    its words (``words_frame``); streamed a partition at a time."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    # a cogroup hands one group to Python whole: a container's pairs go in slices
    slice_of = Window.partitionBy("container").orderBy("contained")
    wanted = best.withColumn("slice", ((F.row_number().over(slice_of) - 1) / VERIFY_SLICE).cast("long"))
    a_ids = wanted.select(F.col("contained").alias("doc_id")).distinct()
    sets = (texts.join(a_ids, "doc_id", "left_semi")
            .mapInArrow(functools.partial(_all_shingles, shape), "doc_id long, hash long, sampled boolean")
            .groupBy("doc_id").agg(F.collect_list("hash").alias("a")))
    left = wanted.join(sets.withColumnRenamed("doc_id", "contained"), "contained")
    right = (texts.join(wanted.select(F.col("container").alias("doc_id")).distinct(), "doc_id", "left_semi")
             .join(docs.select(F.col("id").alias("doc_id"), "page_offsets"), "doc_id", "left")
             .withColumnRenamed("doc_id", "container")
             .join(wanted.select(F.col("container").alias("c"), F.col("slice").alias("part")).distinct(),
                   F.col("container") == F.col("c"))
             .drop("c").withColumnRenamed("part", "slice"))
    rows = (left.groupBy("container", "slice").cogroup(right.groupBy("container", "slice"))
            .applyInArrow(functools.partial(_spans_of, shape), _SPANS_DDL).toLocalIterator())
    for r in rows:
        yield int(r["contained"]), int(r["container"]), [
            Span(int(s["start"]), int(s["end"]), int(s["words"]), int(s["shingles"]),
                 (int(s["p0"]), int(s["p1"])) if s["p0"] is not None else None) for s in r["spans"]]


def novelty_on_spark(spark: SparkSession, source: str, representatives: DataFrame) -> RowsOnDisk:
    """``gather.sampled_novelty`` of the indexed representatives, counted on the executors: per
    document, its sampled shingles held by no other representative, and its sampled shingles.
    The driver streams one row per document into a scratch file (``RowsOnDisk``), never a
    posting, and holds none of them."""
    from pyspark.sql import functions as F

    docs = (spark.read.parquet(f"{source}/documents").join(representatives.select("id"), "id", "left_semi")
            .where(F.col("n_sampled").isNotNull()).select(F.col("id").alias("doc_id"), "n_sampled"))
    postings = spark.read.parquet(f"{source}/postings").select("hash", "doc_id") \
        .join(docs.select("doc_id"), "doc_id", "left_semi")
    alone = postings.groupBy("hash").agg(F.count(F.lit(1)).alias("df"), F.min("doc_id").alias("doc_id")) \
        .where(F.col("df") == 1).groupBy("doc_id").agg(F.count(F.lit(1)).alias("novel"))
    rows = docs.join(alone, "doc_id", "left").fillna(0, ["novel"]).orderBy("doc_id").toLocalIterator()
    return RowsOnDisk((int(r["doc_id"]), int(r["novel"]), int(r["n_sampled"])) for r in rows)


class ContainedOnDisk(Sequence[Contained]):
    """The contained documents of a Spark audit, by id, in a scratch SQLite file with the spans
    of their best containers: read back one at a time, in order, as the report, its sidecars
    and the run's record read them. So the driver's memory does not grow with the number of
    contained documents. The file is removed with the sequence."""

    def __init__(self, contained: Iterable[Contained], at_once: int = 2_000) -> None:
        import itertools
        import pickle

        self._conn = scratch_db(self, "contained")
        self._conn.execute("CREATE TABLE c (i INTEGER PRIMARY KEY, doc INTEGER NOT NULL, blob BLOB NOT NULL)")
        self._conn.execute("CREATE TABLE s (contained INTEGER NOT NULL, container INTEGER NOT NULL,"
                           " blob BLOB NOT NULL, PRIMARY KEY (contained, container)) WITHOUT ROWID")
        rows = ((i, c.doc, pickle.dumps(c, pickle.HIGHEST_PROTOCOL)) for i, c in enumerate(contained))
        while chunk := list(itertools.islice(rows, at_once)):
            self._conn.executemany("INSERT INTO c VALUES (?, ?, ?)", chunk)
        self._conn.commit()
        self._n = int(self._conn.execute("SELECT count(*) FROM c").fetchone()[0])

    def add_spans(self, located: Iterable[tuple[int, int, list[Span]]], at_once: int = 10_000) -> None:
        """The spans of best pairs, (contained, container, spans); a pair without them has none."""
        import itertools
        import pickle

        rows = ((a, b, pickle.dumps(spans, pickle.HIGHEST_PROTOCOL)) for a, b, spans in located)
        while chunk := list(itertools.islice(rows, at_once)):
            self._conn.executemany("INSERT INTO s VALUES (?, ?, ?)", chunk)
        self._conn.commit()

    def _load(self, doc: int, blob: bytes) -> Contained:
        import pickle

        c: Contained = pickle.loads(blob)
        spans = {int(b): x for b, x in self._conn.execute("SELECT container, blob FROM s WHERE contained = ?",
                                                            (doc,))}
        for p in c.best:
            p.spans = pickle.loads(spans[p.container]) if p.container in spans else []
        return c

    def __iter__(self) -> Iterator[Contained]:
        cursor = self._conn.execute("SELECT doc, blob FROM c ORDER BY i")
        while rows := cursor.fetchmany(500):
            for doc, blob in rows:
                yield self._load(int(doc), blob)

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> Contained: ...

    @overload
    def __getitem__(self, index: slice) -> list[Contained]: ...

    def __getitem__(self, index: int | slice) -> Contained | list[Contained]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._n))]
        i = index + self._n if index < 0 else index
        row = self._conn.execute("SELECT doc, blob FROM c WHERE i = ?", (i,)).fetchone()
        if row is None:
            raise IndexError(index)
        return self._load(int(row[0]), row[1])


class RowsOnDisk(Mapping[int, tuple[int, int]]):
    """``{doc_id: (a, b)}`` kept in a scratch SQLite file, not in the driver's memory: one row
    per document (novelty), which a report reads a few thousand ids at a time. The file is
    removed with the mapping."""

    def __init__(self, rows: Iterable[tuple[int, int, int]], at_once: int = 10_000) -> None:
        import itertools

        self._conn = scratch_db(self, "rows")
        self._conn.execute("CREATE TABLE r (k INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL)")
        it = iter(rows)
        while chunk := list(itertools.islice(it, at_once)):
            self._conn.executemany("INSERT INTO r VALUES (?, ?, ?)", chunk)
        self._conn.commit()
        self._n = int(self._conn.execute("SELECT count(*) FROM r").fetchone()[0])

    def __getitem__(self, key: int) -> tuple[int, int]:
        row = self._conn.execute("SELECT a, b FROM r WHERE k = ?", (int(key),)).fetchone()
        if row is None:
            raise KeyError(key)
        return int(row[0]), int(row[1])

    def __iter__(self) -> Iterator[int]:
        for (k,) in self._conn.execute("SELECT k FROM r ORDER BY k"):
            yield int(k)

    def __len__(self) -> int:
        return self._n


def not_auditable_on_spark(spark: SparkSession, source: str, params: Params, representatives: DataFrame,
                           only: set[int] | None) -> list[dict[str, Any]]:
    """``universe.not_auditable`` over the export: representatives without a shingle, or unreadable."""
    from pyspark.sql import functions as F

    docs = spark.read.parquet(f"{source}/documents")
    ids = representatives.select("id")
    if only is not None:  # a batch's: filtered on the executors, not after a collect
        ids = ids.join(F.broadcast(spark.createDataFrame([(int(i),) for i in sorted(only)], "id long")), "id",
                       "left_semi")
    rows = (ids.join(docs, "id")
            .where(F.col("unreadable").isNotNull() | (F.coalesce(F.col("n_shingles"), F.lit(0)) == 0))
            .select("id", "n_words", F.coalesce(F.col("n_shingles"), F.lit(0)).alias("n_shingles"), "unreadable")
            .orderBy("id").toLocalIterator())
    out = []
    for r in rows:
        why = r["unreadable"]
        reason = (f"text not readable: {why}" if why else
                  f"too short: {r['n_words']} words, fewer than k={params.k}, so no shingle")
        out.append({"doc_id": int(r["id"]), "reason": reason, "n_words": r["n_words"],
                    "n_shingles": int(r["n_shingles"])})
    return out
