"""The Spark engine gives the SQLite engine's audit: same pairs, counts, estimates, exact values.

One small synthetic corpus covers every path of the audit: contracts embedded verbatim,
reformatted and in part in filings, a contract in several filings, an exact duplicate, a
cluster of near-identical certifications, a document too short to audit, an unreadable one
(which must stay on the not-auditable list through the export), and documents that contain
nothing. One SparkSession (``local[2]``) serves the module.
"""

from __future__ import annotations

import json
import random

import pytest

from auditor.extras import spark_missing

_why = spark_missing()  # no [spark] extra, or no usable Java: skip, saying which
if _why:
    pytest.skip(f"Spark engine tests skipped: {_why}", allow_module_level=True)

import pyarrow.parquet as pq  # noqa: E402

from auditor.corpus.ingest import ingest  # noqa: E402
from auditor.engine.audit import AuditResult, run_audit  # noqa: E402
from auditor.engine.export import export_parquet, read_params  # noqa: E402
from auditor.engine.spark_engine import run_audit_spark, session  # noqa: E402
from auditor.store.db import Store  # noqa: E402
from tests.support import synth  # noqa: E402
from tests.support.same_audit import assert_same  # noqa: E402

pytestmark = pytest.mark.slow  # a JVM and Python workers: about 50 s for the module


@pytest.fixture(scope="module")
def spark():
    s = session("local[2]", config={"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4",
                                    "spark.driver.memory": "1g"})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("spark-corpus")
    docs = d / "docs"
    docs.mkdir()
    contracts = [synth.contract(600 + i, 9_000) for i in range(5)]
    for i, c in enumerate(contracts):
        (docs / f"contract-{i}.txt").write_text(c)
    (docs / "contract-0-crlf.txt").write_text(contracts[0].replace("\n", "\r\n"))  # exact duplicate
    (docs / "f-verbatim.txt").write_text(synth.filing(700, 40_000, exhibits=[contracts[0]])[0])
    (docs / "f-reformatted.txt").write_text(
        synth.filing(701, 40_000, exhibits=[synth.reformat(contracts[1], 3)])[0])
    (docs / "f-partial85.txt").write_text(
        synth.filing(702, 40_000, exhibits=[synth.partial(contracts[2], 0.85, 4)])[0])
    (docs / "f-partial50.txt").write_text(
        synth.filing(703, 40_000, exhibits=[synth.partial(contracts[2], 0.5, 5)])[0])
    for i, f in enumerate((0.78, 0.74, 0.7)):  # near the threshold: verified, then below it
        (docs / f"f-partial-{f}.txt").write_text(
            synth.filing(705 + i, 30_000, exhibits=[synth.partial(contracts[4], f, 6 + i)])[0])
    for i in range(3):  # one contract in several filings
        (docs / f"f-many-{i}.txt").write_text(synth.filing(710 + i, 30_000, exhibits=[contracts[3]])[0])
    (docs / "f-plain.txt").write_text(synth.filing(720, 30_000)[0])
    for day in (1, 2, 3):  # near-identical certifications: a mutual-containment cluster
        (docs / f"cert-{day}.txt").write_text(synth.certification(730, f"March {day}, 2024"))
    (docs / "tiny.txt").write_text("Section 1. Definitions.")
    noise = random.Random(7)  # Latin-1 noise: words, but unreadable (not auditable for that reason)
    (docs / "gibberish.txt").write_bytes(bytes(noise.choice([*range(0xA0, 0x100), 0x20, 0x20]) for _ in range(4000)))
    with Store(d / "corpus.db") as s:
        ingest(s, [docs], workers=1)
        yield s


@pytest.fixture(scope="module")
def sqlite_result(store) -> AuditResult:
    return run_audit(store, 0.8)


def test_the_corpus_exercises_every_path(sqlite_result):
    r = sqlite_result
    assert len(r.containing) >= 6 and r.below and r.nearest_misses and r.families and r.not_auditable
    assert r.duplicate_groups and any(p.spans for c in r.contained for p in c.best)
    assert any(len(c.containers) > 1 for c in r.contained)
    assert any(x["reason"].startswith("text not readable") for x in r.not_auditable)  # export parity


def test_spark_audit_equals_sqlite_audit(spark, store, sqlite_result, tmp_path):
    assert_same(sqlite_result, run_audit_spark(store, 0.8, spark=spark, workdir=tmp_path))
    result = tmp_path / "result"
    pairs = pq.read_table(result / "pairs").to_pylist()
    found = sorted((p["contained"], p["container"]) for p in pairs if p["verdict"] == "contained")
    c = sqlite_result.containing
    assert found == sorted(zip(c.contained.tolist(), c.container.tolist(), strict=True))  # every pair


def test_spark_settings_sets_and_restores_each_conf(spark):
    from auditor.engine.spark_engine import spark_settings

    key, unset = "spark.sql.autoBroadcastJoinThreshold", "spark.sql.execution.arrow.maxBytesPerBatch"
    spark.conf.set(key, "12345")
    spark.conf.unset(unset)
    was = spark.conf.get(unset, None)
    with pytest.raises(RuntimeError), spark_settings(spark, **{key: "-1", unset: "1024"}):
        assert spark.conf.get(key) == "-1" and spark.conf.get(unset) == "1024"
        raise RuntimeError("left by an error: restored all the same")
    assert spark.conf.get(key) == "12345"  # the caller's value, not the default
    assert spark.conf.get(unset, None) == was != "1024"  # as it was
    spark.conf.unset(key)


def test_the_audit_and_the_finish_run_without_automatic_broadcast(spark, store, tmp_path, monkeypatch):
    """A broadcast is built on the driver: Spark's own choice of one (from a size estimate that
    can be far too low) could gather postings or pairs there. Off during the audit and the
    finish; the caller's settings are back afterwards."""
    import auditor.engine.spark_engine as engine
    import auditor.engine.spark_finish as finish

    key, batch = "spark.sql.autoBroadcastJoinThreshold", "spark.sql.execution.arrow.maxRecordsPerBatch"
    seen: dict[str, tuple[str, str]] = {}

    def spy(name, f):
        def run(*a, **k):
            seen[name] = (spark.conf.get(key), spark.conf.get(batch))
            return f(*a, **k)
        return run

    monkeypatch.setattr(engine, "_job", spy("audit", engine._job))
    monkeypatch.setattr(finish, "finish_on_spark", spy("finish", finish.finish_on_spark))
    monkeypatch.setattr(finish, "novelty_on_spark", spy("novelty", finish.novelty_on_spark))
    spark.conf.set(key, str(10 * 2**20))
    spark.conf.set(batch, "1000")
    try:
        run_audit_spark(store, 0.8, spark=spark, workdir=tmp_path)
        assert seen == {s: ("-1", "256") for s in ("audit", "finish", "novelty")}
        assert (spark.conf.get(key), spark.conf.get(batch)) == (str(10 * 2**20), "1000")  # restored
    finally:
        spark.conf.unset(key)
        spark.conf.unset(batch)


def test_batch_scope_and_another_threshold(spark, store, tmp_path, monkeypatch):
    ids = [r[0] for r in store.conn.execute("SELECT id FROM documents WHERE path LIKE '%f-many-1%'"
                                             " OR path LIKE '%contract-2%' ORDER BY id")]
    only = set(ids)
    assert_same(run_audit(store, 0.8, only=only), run_audit_spark(store, 0.8, spark=spark, only=only))
    import auditor.engine.spark_finish as finish

    monkeypatch.setattr(finish, "LOCAL_EDGES", 0)  # families by large-star / small-star on the cluster
    assert_same(run_audit(store, 0.45), run_audit_spark(store, 0.45, spark=spark))


def _spy(monkeypatch, frames, name):
    """(function, source line) of every call of ``<name>`` on ``frames`` (the session's
    DataFrame class: PySpark 4's classic one overrides the base class) from auditor's code."""
    import linecache
    import sys

    calls: list[tuple[str, str]] = []
    real = getattr(frames, name)

    def spy(self, *args, **kwargs):
        f = sys._getframe(1)
        if "auditor" in f.f_code.co_filename:
            calls.append((f.f_code.co_name, linecache.getline(f.f_code.co_filename, f.f_lineno).strip()))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(frames, name, spy)
    return calls


def test_the_driver_streams_its_rows_per_document(spark, store, sqlite_result, monkeypatch):
    """Issue #38: what comes back to the driver per document (each contained document's
    containers and best pairs, their spans, the not-auditable list, novelty) is streamed a
    partition at a time (``toLocalIterator``), never collected whole; novelty goes to a file."""
    from auditor.engine.gather import load_index, sampled_novelty
    from auditor.engine.spark_finish import RowsOnDisk
    from auditor.engine.universe import universe

    frames = type(spark.range(1))
    collected, streamed = _spy(monkeypatch, frames, "collect"), _spy(monkeypatch, frames, "toLocalIterator")
    got = run_audit_spark(store, 0.8, spark=spark)
    assert_same(sqlite_result, got)
    per_document = {"_locate", "novelty_on_spark", "not_auditable_on_spark"}
    assert per_document <= {fn for fn, _ in streamed}
    assert any("orderBy(\"contained\")" in line for fn, line in streamed if fn == "finish_on_spark")
    assert not [c for c in collected if c[0] in per_document or "orderBy(\"contained\")" in c[1]]
    assert collected, "the spy sees the bounded collects (histogram, nearest misses, families)"
    assert isinstance(got.novelty, RowsOnDisk) and not isinstance(got.novelty, dict)
    want = sampled_novelty(load_index(store, universe(store).representatives))
    assert dict(got.novelty.items()) == want and len(want) > 10


@pytest.fixture(scope="module")
def boilerplate_store(tmp_path_factory):
    """Short documents held by many: four certifications (near-identical boilerplate, each of
    their shingles in every filing that carries one), each in several filings, one filing with a
    truncated copy (a candidate that is not contained), and filings with none."""
    d = tmp_path_factory.mktemp("spark-boilerplate")
    docs = d / "docs"
    docs.mkdir()
    certs = [synth.certification(740 + i, f"April {i + 1}, 2024") for i in range(4)]
    for i, c in enumerate(certs):
        (docs / f"cert-{i}.txt").write_text(c)
    for j in range(10):
        held = [certs[j % 4], certs[(j + 1) % 4]] if j < 8 else []
        (docs / f"f-{j}.txt").write_text(synth.filing(750 + j, 12_000, exhibits=held)[0])
    (docs / "f-truncated.txt").write_text(synth.filing(760, 12_000, exhibits=[certs[0][: len(certs[0]) * 2 // 3]])[0])
    with Store(d / "corpus.db") as s:
        ingest(s, [docs], workers=1)
        yield s


def test_short_documents_held_by_many_by_broadcast_and_by_join(spark, boilerplate_store, monkeypatch):
    """The exhaustive search of short documents gives run_audit's pairs and counts whether the
    short documents' shingles are sent to every worker (``ShortSets``) or joined."""
    import auditor.engine.spark_finish as finish

    want = run_audit(boilerplate_store, 0.8)
    short = {c.doc for c in want.contained if c.n_containers >= 4}
    assert len(short) == 4, "every certification is contained by the filings carrying it"
    assert any(p.exact < 0.8 for p in want.nearest_misses), "the truncated copy is a candidate below"
    assert_same(want, run_audit_spark(boilerplate_store, 0.8, spark=spark))
    monkeypatch.setattr(finish, "BROADCAST_SHORT", 0)
    assert_same(want, run_audit_spark(boilerplate_store, 0.8, spark=spark))


def test_export_round_trip_and_sampling_inside_spark(spark, store, sqlite_result, tmp_path):
    out = tmp_path / "export"
    r = export_parquet(store, out, buckets=3)
    assert r.buckets == 3 and r.postings == store.scalar("SELECT sum(n_sampled) FROM index_docs")
    meta = read_params(out)
    assert meta["params"] == store.params.as_dict()
    docs = pq.read_table(out / "documents").to_pylist()
    assert [d["id"] for d in docs] == [x[0] for x in store.conn.execute("SELECT id FROM documents ORDER BY id")]
    assert all(json.loads(d["meta"]) is not None for d in docs)
    # postings: every stored sampled set, as signed int64, in the bucket of its uint64 hash
    import numpy as np
    post = pq.read_table(out / "postings").to_pydict()
    got: dict[int, list[int]] = {}
    for h, d, b in zip(post["hash"], post["doc_id"], post["bucket"], strict=True):
        assert int(np.int64(h).view(np.uint64)) % 3 == int(b)
        got.setdefault(d, []).append(h)
    for doc_id, blob in store.conn.execute("SELECT doc_id, sampled FROM index_docs WHERE n_sampled > 0"):
        assert sorted(got[doc_id]) == sorted(np.frombuffer(blob, np.uint64).view(np.int64).tolist())
    texts = pq.read_table(out / "texts").to_pydict()
    assert dict(zip(texts["doc_id"], texts["text"], strict=True)) == dict(
        store.conn.execute("SELECT doc_id, auditor_text(text) FROM texts"))
    # the audit of the export alone (no store) and with the sampled sets computed in Spark
    assert_same(sqlite_result, run_audit_spark(out, 0.8, spark=spark))
    assert_same(sqlite_result, run_audit_spark(out, 0.8, spark=spark, sampled_from="text"))
    with pytest.raises(Exception, match="not empty"):
        export_parquet(store, out)


def test_words_from_texts_and_an_export_without_sequences(spark, store, sqlite_result, tmp_path, monkeypatch):
    """The job and the finish tokenise texts/ again by default; read from sequences/ the words
    are the same, and so is the audit. An export of format 1 (before sequences/) is audited from
    its texts, even when sequences are asked for."""
    import shutil

    import auditor.engine.spark_finish as finish

    out = tmp_path / "export"
    export_parquet(store, out)
    got = run_audit_spark(out, 0.45, spark=spark)
    want = run_audit(store, 0.45)
    assert_same(want, got)
    assert any(p.spans for c in want.contained for p in c.best)
    monkeypatch.setattr(finish, "WORDS_FROM", "sequences")
    assert_same(want, run_audit_spark(out, 0.45, spark=spark))
    shutil.rmtree(out / "sequences")  # as an export of format 1 is
    meta = json.loads((out / "params.json").read_text())
    meta.pop("with_sequences")
    (out / "params.json").write_text(json.dumps({**meta, "format": "containment-auditor-parquet/1"}))
    assert_same(want, run_audit_spark(out, 0.45, spark=spark))


def test_export_cli(store, tmp_path):
    from click.testing import CliRunner

    from auditor.cli import cli
    res = CliRunner().invoke(cli, ["export", "--db", str(store.path), "--parquet", str(tmp_path / "p"),
                                   "--buckets", "2", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["buckets"] == 2 and out["postings"] == store.scalar("SELECT sum(n_sampled) FROM index_docs")
    assert read_params(tmp_path / "p")["params"] == store.params.as_dict()
    docs = pq.read_table(tmp_path / "p" / "documents").to_pylist()
    assert [(d["id"], d["sha256"]) for d in docs] == [tuple(r) for r in store.conn.execute(
        "SELECT id, sha256 FROM documents ORDER BY id")]
    again = CliRunner().invoke(cli, ["export", "--db", str(store.path), "--parquet", str(tmp_path / "p")])
    assert again.exit_code == 2 and "not empty" in again.output


def _core(directory) -> dict:
    """report.json without what differs between two runs or two engines."""
    r = json.loads((directory / "report.json").read_text())
    for k in ("run", "digest", "run_digest"):
        r.pop(k, None)
    r["manifest"].pop("engine")
    return r


@pytest.fixture(scope="module")
def both_audits(store, tmp_path_factory):
    """The store audited by `auditor audit --db` and its export by `auditor audit --engine spark
    --parquet`, as a user runs them (real subprocesses): (directory, export)."""
    import subprocess
    import sys

    from auditor.engine.export import export_parquet

    tmp_path = tmp_path_factory.mktemp("both-audits")
    export = tmp_path / "export"
    export_parquet(store, export)
    run = [sys.executable, "-m", "auditor"]
    a = subprocess.run([*run, "audit", "--db", str(store.path), "--out", str(tmp_path / "sqlite")],
                       capture_output=True, text=True, timeout=600)
    assert a.returncode == 0, a.stderr
    store.conn.execute("SELECT 1")  # the fixture's connection still reads: nothing was locked away
    b = subprocess.run([*run, "audit", "--engine", "spark", "--master", "local[2]", "--parquet", str(export),
                        "--out", str(tmp_path / "spark")], capture_output=True, text=True, timeout=900)
    assert b.returncode == 0, b.stderr
    return tmp_path, export


def test_report_from_parquet_alone_equals_the_store_report(both_audits):
    """`auditor audit --engine spark --parquet DIR`, as a user runs it, writes the report that
    `auditor audit --db` writes: the same core (apart from the engine's name), the same
    sidecars (every containing pair, every document with its novelty), with no store at all."""
    tmp_path, _ = both_audits
    sq, sp = _core(tmp_path / "sqlite"), _core(tmp_path / "spark")
    assert sq["summary"]["containing_pairs"] >= 6 and sq["families"] and sq["not_auditable"]
    assert sp == sq
    for name in ("findings.jsonl.gz", "documents.jsonl.gz"):
        assert (tmp_path / "spark" / name).read_bytes() == (tmp_path / "sqlite" / name).read_bytes()
    manifest = json.loads((tmp_path / "spark" / "report.json").read_text())["manifest"]
    assert manifest["engine"] == "spark"
    for name in ("report.md", "report.html"):
        assert (tmp_path / "spark" / name).is_file()


def test_assemble_from_the_export_gives_the_store_plan(store, both_audits):
    """`auditor assemble --engine spark --parquet DIR` after the Parquet audit, as a user runs
    it: the plan the store's assemble writes, byte for byte, every decision and its evidence,
    and the same kept texts in corpus.parquet. A policy that changes decisions changes both alike.
    Not --min-novel: on this corpus the store's own assemble breaks a plan invariant with it
    (--min-novel 0.9: "contained-in 20, which is dropped (covered-by)"), a fault of the plan,
    not of the export."""
    import subprocess
    import sys

    tmp_path, export = both_audits
    assert len(list((export / "runs").glob("*/run.json"))) == 1  # the Parquet audit recorded its run
    run = [sys.executable, "-m", "auditor", "assemble"]
    for name, policy in (("default", []), ("newest", ["--survivor", "newest", "--contained", "keep"])):
        a = subprocess.run([*run, "--db", str(store.path), "--format", "parquet",
                            "--out", str(tmp_path / f"asm-sqlite-{name}"), *policy],
                           capture_output=True, text=True, timeout=600)
        assert a.returncode == 0, a.stderr
        b = subprocess.run([*run, "--engine", "spark", "--parquet", str(export),
                            "--out", str(tmp_path / f"asm-spark-{name}"), *policy],
                           capture_output=True, text=True, timeout=600)
        assert b.returncode == 0, b.stderr
        plan_sq = (tmp_path / f"asm-sqlite-{name}" / "plan.jsonl").read_bytes()
        plan_sp = (tmp_path / f"asm-spark-{name}" / "plan.jsonl").read_bytes()
        assert plan_sp == plan_sq
        lines = [json.loads(x) for x in plan_sq.splitlines()]
        reasons = {x["reason"] for x in lines}
        assert len(lines) >= 20 and "not-auditable" in reasons
        if name == "default":
            assert {"contained-in", "near-duplicate-of", "survivor"} <= reasons
        assert all(x["provenance"]["date"] for x in lines if x["doc_id"] is not None)
        corpus_sq = pq.read_table(tmp_path / f"asm-sqlite-{name}" / "corpus.parquet").to_pylist()
        corpus_sp = pq.read_table(tmp_path / f"asm-spark-{name}" / "corpus.parquet").to_pylist()
        assert corpus_sp == corpus_sq and corpus_sq
        m_sq = json.loads((tmp_path / f"asm-sqlite-{name}" / "manifest.json").read_text())
        m_sp = json.loads((tmp_path / f"asm-spark-{name}" / "manifest.json").read_text())
        assert m_sp["files"] == m_sq["files"] and m_sp["summary"] == m_sq["summary"]
        assert m_sp["source"]["parquet"] == str(export.resolve()) and "custody" not in m_sp
    default = [json.loads(x) for x in (tmp_path / "asm-sqlite-default" / "plan.jsonl").read_bytes().splitlines()]
    newest = [json.loads(x) for x in (tmp_path / "asm-sqlite-newest" / "plan.jsonl").read_bytes().splitlines()]
    assert [x["decision"] for x in default] != [x["decision"] for x in newest]  # the policy reached both


def test_assemble_from_an_export_needs_a_recorded_run(store, tmp_path):
    import subprocess
    import sys

    from auditor.engine.export import export_parquet

    export_parquet(store, tmp_path / "export")
    r = subprocess.run([sys.executable, "-m", "auditor", "assemble", "--engine", "spark", "--parquet",
                        str(tmp_path / "export"), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "records no audit run" in r.stderr and "audit --engine spark" in r.stderr
    r = subprocess.run([sys.executable, "-m", "auditor", "assemble", "--parquet", str(tmp_path / "export"),
                        "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--engine spark" in r.stderr


def test_parquet_needs_the_spark_engine_and_no_store(store, tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "auditor", "audit", "--parquet", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--engine spark" in r.stderr


_TABLES = (
    "SELECT id, sha256, path, format, extractor, n_words, n_chars, duplicate_of, norm_sha256, unreadable, parent_id,"
    " meta, warnings, page_offsets, date, date_source FROM documents ORDER BY id",
    "SELECT doc_id, path, resolved, part, within_id, size, mtime, source, meta FROM sightings ORDER BY id",
    "SELECT path, part, status, code, message, sha256 FROM failures ORDER BY id",
    "SELECT doc_id, n_shingles, n_sampled, sampled FROM index_docs ORDER BY doc_id",
)


def test_ingest_on_spark_gives_the_store_and_its_audit(spark, store, sqlite_result, tmp_path):
    """Files extracted on the executors, a part per task, merged: the store's documents, ids,
    sightings, duplicate groups, sampled sets and texts, and so the store's audit."""
    from auditor.engine.export_store import ExportStore
    from auditor.engine.spark_ingest import spark_ingest

    docs = store.path.parent / "docs"
    r = spark_ingest(spark, [docs], tmp_path / "ingested", files_per_part=6)  # 22 files: 4 parts
    assert (r.files, r.parts, r.parts_done_before) == (22, 4, 0)
    src = ExportStore(tmp_path / "ingested")
    for sql in _TABLES:
        assert src.rows(sql) == store.rows(sql), sql
    assert [src.text(i) for i in (1, 7, 20)] == [store.text(i) for i in (1, 7, 20)]
    assert [(r["doc_id"], r["n_words"], r["sha256"], r["data"]) for r in
            pq.read_table(tmp_path / "ingested" / "sequences").to_pylist()] == [
        (d, n, h, bytes(b)) for d, n, h, b in store.conn.execute(
            "SELECT doc_id, n_words, sha256, data FROM shingle_sequences ORDER BY doc_id")]
    assert_same(sqlite_result, run_audit_spark(src, 0.8, spark=spark))


def test_ingest_on_spark_records_failures_and_resumes(tmp_path):
    """As a user runs it: a file that cannot be read is recorded with its reason, and a re-run
    of the same command skips the parts already written."""
    import subprocess
    import sys

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(synth.contract(801, 2_000))
    (docs / "b.txt").write_text(synth.filing(802, 4_000)[0])
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 4)
    cmd = [sys.executable, "-m", "auditor", "ingest", "--engine", "spark", "--master", "local[2]", str(docs),
           "--parquet", str(tmp_path / "out"), "--json"]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) | {"directory": None} == {
        "directory": None, "files": 3, "parts": 1, "parts_done_before": 0, "documents": 2, "failures": 1,
        "missing": []}
    failed = pq.read_table(tmp_path / "out" / "failures").to_pylist()
    assert [(f["path"].endswith("broken.pdf"), f["status"]) for f in failed] == [(True, "failed")]
    assert failed[0]["code"] and failed[0]["message"]
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["parts_done_before"] == 1
    assert pq.read_table(tmp_path / "out" / "failures").to_pylist() == failed


def test_ingest_on_spark_writes_texts_in_small_row_groups(spark, store, tmp_path, monkeypatch):
    """The merge writes texts/ in row groups of about ``TEXT_ROW_GROUP_CHARS``, as the export
    does. Spark's default row group (128 MB) made the job read hundreds of MB of text into one
    task's column vectors: the 140 MB benchmark corpus, ingested on Spark, ran the audit out of
    a 1 GB heap. With a bound below one text, each row group holds a few texts (the writer
    checks its size at least every 8 rows)."""
    from auditor.engine import export
    from auditor.engine.export_store import ExportStore
    from auditor.engine.spark_ingest import spark_ingest

    monkeypatch.setattr(export, "TEXT_ROW_GROUP_CHARS", 1)
    spark_ingest(spark, [store.path.parent / "docs"], tmp_path / "ingested", files_per_part=6)
    files = sorted((tmp_path / "ingested" / "texts").glob("*.parquet"))
    groups = [m.row_group(i).num_rows for m in (pq.ParquetFile(f).metadata for f in files)
              for i in range(m.num_row_groups)]
    assert sum(groups) == store.scalar("SELECT count(*) FROM documents") and max(groups) <= 8, groups
    src = ExportStore(tmp_path / "ingested")
    assert [src.text(i) for i in (1, 7, 20)] == [store.text(i) for i in (1, 7, 20)]
