"""The assemble on Spark gives the store's plan, byte for byte, and its corpus, row for row.

Two parts. First, the claims the Spark assemble rests on, on random graphs (no Spark):
``resolve`` over the whole graph equals ``resolve`` over its pieces, the weakly connected
components, and the pieces the Spark job makes (roots decided alone, each other component with
the kept member of each root it points to, several pieces resolved in one call). Second, the
job itself, in a real Spark session (``local[2]``), on the assemble tests' corpus (a family, an
exact-duplicate group, a chain of containment, a boilerplate notice in 11 filings, an EDGAR
submission with exhibits, a document too short to audit, an input that failed), under several
policies, against ``auditor assemble --db``.
"""

from __future__ import annotations

import json
import random
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.assembly.resolve import resolve
from auditor.text.components import components

# -- the claims, on random graphs ----------------------------------------------------------------


@st.composite
def graphs(draw):
    """Units of one to three documents; edges among them and to containers that are no unit
    (withdrawn), with ties in containment; ranks with ties broken by id; some exemptions."""
    n = draw(st.integers(1, 30))
    docs = list(range(1, n + 1))
    labels = draw(st.lists(st.integers(0, max(0, n - 1)), min_size=n, max_size=n))
    units: dict[int, list[int]] = {}
    for d, lab in zip(docs, labels, strict=True):
        units.setdefault(100 + lab, []).append(d)
    ids = sorted(units)
    outside = [900, 901]
    edges = draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids + outside),
                                    st.sampled_from([0.8, 0.85, 0.9, 1.0])), max_size=70, unique_by=lambda e: e[:2]))
    rank = {d: (draw(st.integers(0, 3)), d) for d in docs}
    exempt = {d: "exhibit" for d in docs if draw(st.booleans()) and draw(st.booleans())}
    newest = draw(st.booleans())
    return units, edges, rank, exempt, newest


def _run(units, edges, rank, exempt, newest):
    a, b, x = zip(*edges, strict=True) if edges else ((), (), ())

    def newer(d, k):
        return rank[d] < rank[k]

    return resolve(units, (a, b, x), rank, exempt, newer if newest else None)


def weak_components(units, edges) -> list[list[int]]:
    ids = sorted(units)
    at = {u: i for i, u in enumerate(ids)}
    inner = [(at[a], at[b]) for a, b, _ in edges if a in at and b in at]
    _, label = components(len(ids), [e[0] for e in inner], [e[1] for e in inner])
    out: dict[int, list[int]] = {}
    for u, lab in zip(ids, label.tolist(), strict=True):
        out.setdefault(lab, []).append(u)
    return list(out.values())


@settings(max_examples=400, deadline=None)
@given(graphs())
@pytest.mark.slow
def test_resolve_over_the_graph_is_the_union_of_resolve_over_its_components(g):
    units, edges, rank, exempt, newest = g
    whole = _run(units, edges, rank, exempt, newest)
    pieces: dict = {}
    for comp in weak_components(units, edges):
        part = set(comp)
        pieces |= _run({u: units[u] for u in comp}, [e for e in edges if e[0] in part], rank, exempt, newest)
    assert pieces == whole


def spark_pieces(units, edges, rank, exempt, newest, budget, rnd):
    """The decomposition of ``assembly.spark``: roots (units with no container) alone; the other
    units by the components among them, each with its edges and the kept member of every root
    it points to (a unit of one); pieces gathered into calls of about ``budget`` units."""
    contained = {a for a, b, _ in edges if a != b}
    roots = [u for u in units if u not in contained]
    decided: dict = {}
    for u in roots:
        decided |= _run({u: units[u]}, [], rank, exempt, newest)
    kept = {u: next(d for d in units[u] if decided[d].keep) for u in roots}
    inner = {u: units[u] for u in units if u in contained}
    groups = []
    for comp in weak_components(inner, [e for e in edges if e[0] in inner and e[1] in inner]):
        part = set(comp)
        own = [e for e in edges if e[0] in part and e[0] != e[1]]
        group_units = {u: list(inner[u]) for u in comp} | {e[1]: [kept[e[1]]] for e in own if e[1] in kept}
        groups.append((comp, group_units, own))
    rnd.shuffle(groups)
    while groups:
        take, n = [], 0
        while groups and n < budget:
            comp, group_units, own = groups.pop()
            take.append((comp, group_units, own))
            n += len(group_units)
        merged_units: dict = {}
        merged_edges = []
        mine = set()
        for comp, group_units, own in take:
            merged_units |= group_units
            merged_edges += own
            mine |= {d for u in comp for d in inner[u]}
        out = _run(merged_units, merged_edges, rank, exempt, newest)
        decided |= {d: v for d, v in out.items() if d in mine}
    return decided


@settings(max_examples=400, deadline=None)
@given(graphs(), st.integers(1, 6), st.randoms(use_true_random=False))
@pytest.mark.slow
def test_resolve_over_the_graph_is_the_union_of_the_spark_jobs_pieces(g, budget, rnd):
    units, edges, rank, exempt, newest = g
    assert spark_pieces(units, edges, rank, exempt, newest, budget, rnd) == _run(units, edges, rank, exempt, newest)


def test_a_root_held_by_two_components_is_resolved_with_each():
    """A filing holding two unrelated contracts, each also held elsewhere: the filing is a root
    (contained in nothing), the two contracts are two components that share it."""
    units = {1: [1, 2], 3: [3], 4: [4], 5: [5]}  # 1: a filing and its exact copy
    edges = [(3, 1, 0.9), (4, 1, 0.95), (3, 5, 0.99)]
    rank = {d: (0, d) for d in range(1, 6)}
    whole = _run(units, edges, rank, {}, False)
    assert whole[3].target == 5 and whole[4].target == 1 and whole[2].target == 1
    for budget in (1, 10):
        assert spark_pieces(units, edges, rank, {}, False, budget, random.Random(1)) == whole
    wrong = dict(units)
    wrong[1] = [2]  # the wrong member named as the root's kept one changes the decisions
    assert _run(wrong, edges, rank, {}, False)[4].target == 2


def test_the_worker_resolves_whole_components_however_its_batches_are_cut():
    """``_resolve_groups`` gets a partition's rows sorted by label, in Arrow batches cut
    anywhere. Whatever the cuts and the budget, it gives the entries ``decide_units`` gives
    over everything: no component is split between two calls."""
    pa = pytest.importorskip("pyarrow")
    from auditor.assembly import Policy
    from auditor.assembly.documents import Doc
    from auditor.assembly.plan import decide_units
    from auditor.assembly.spark import _resolve_groups

    rnd = random.Random(5)
    rows, units, edges, docs = [], {}, [], {}
    for label in range(12):  # twelve components: a chain, a family, duplicates
        base = 100 * label
        for u in range(base, base + rnd.randint(1, 5)):
            units[u] = [u * 10 + i for i in range(rnd.randint(1, 3))]
            for d in units[u]:
                docs[d] = Doc(d, "s", f"p{d}", "txt", 10, 10, rnd.randint(5, 50), "b", "2024-01-01", "n", None, {}, None)
                rows.append((label, 0, u, d, None, docs[d].payload(), None, None, None))
        ids = [u for u in units if base <= u < base + 100]
        for a in ids:
            for b in ids:
                if a != b and rnd.random() < 0.5:
                    x = rnd.choice([0.8, 0.9, 1.0])
                    edges.append((a, b, x))
                    rows.append((label, 1, None, None, None, None, a, b, x))
    names = ("label", "kind", "unit", "doc_id", "exempt", "payload", "a", "b", "x")
    types = (pa.int64(), pa.int32(), pa.int64(), pa.int64(), pa.string(), pa.string(), pa.int64(), pa.int64(),
             pa.float64())
    a, b, x = zip(*edges, strict=True)
    want = decide_units(units, (a, b, x), docs, {}, Policy())
    for budget in (1, 7, 10_000):
        cuts = sorted(rnd.sample(range(1, len(rows)), 25))
        pieces = [rows[i:j] for i, j in zip([0, *cuts], [*cuts, len(rows)], strict=True)]
        batches = [pa.RecordBatch.from_arrays([pa.array([r[k] for r in p], t) for k, t in enumerate(types)],
                                              names=list(names)) for p in pieces]
        out = [r for batch in _resolve_groups(Policy().as_dict(), budget, iter(batches)) for r in batch.to_pylist()]
        assert sorted(r["doc_id"] for r in out) == sorted(docs)
        for r in out:
            e = want[r["doc_id"]]
            assert (r["keep"], r["reason"], r["target"]) == (e.decision.keep, e.decision.reason, e.decision.target)


# -- the job, in a real Spark session ------------------------------------------------------------

from auditor.extras import spark_missing  # noqa: E402

_why = spark_missing()
spark_only = pytest.mark.skipif(bool(_why), reason=f"Spark assemble tests skipped: {_why}")

from tests.support.assembled import build_corpus  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The assemble tests' corpus, ingested and audited in a store."""
    if _why:
        pytest.skip(_why)
    return build_corpus(tmp_path_factory.mktemp("assemble"))


@pytest.fixture(scope="module")
def spark():
    if _why:
        pytest.skip(_why)
    from auditor.engine.spark_engine import session

    s = session("local[2]", config={"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "3",
                                    "spark.driver.memory": "1g"})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def exported(built, tmp_path_factory):
    """The corpus's store exported, with the store's audit run recorded in the export as the
    Spark audit records its own (``export_run``): both assembles start from one run."""
    pytest.importorskip("pyarrow")
    from auditor.engine.audit import run_audit
    from auditor.engine.export import export_parquet
    from auditor.report.from_parquet import export_run
    from auditor.store.db import Store

    d = tmp_path_factory.mktemp("assemble-spark")
    with Store(built["db"]) as store:
        export_parquet(store, d / "export", buckets=2)
        row = store.rows("SELECT * FROM runs WHERE kind = 'audit' ORDER BY id DESC LIMIT 1")[0]
        report = json.loads((built["dir"] / "report" / "report.json").read_text())
        audit = run_audit(store, 0.8)
    assert report["run"]["run_id"] == row["run_id"]
    export_run(d / "export", report, audit, built["dir"] / "report")
    return d / "export"


def _both(built, exported, spark, tmp_path, name, policy):
    import pyarrow.parquet as pq

    from auditor.assembly import assemble, assemble_parquet
    from auditor.store.db import Store

    with Store(built["db"]) as store:
        a = assemble(store, tmp_path / f"{name}-db", policy=policy, format="parquet")
    b = assemble_parquet(exported, tmp_path / f"{name}-spark", policy=policy, spark=spark)
    plan_a = (a.directory / "plan.jsonl").read_bytes()
    plan_b = (b.directory / "plan.jsonl").read_bytes()
    assert plan_b == plan_a
    rows_a = pq.read_table(a.directory / "corpus.parquet").to_pylist()
    rows_b = pq.read_table(b.directory / "corpus.parquet").to_pylist()
    assert rows_b == rows_a and rows_a
    for key in ("files", "summary", "policy", "run", "corpus", "decisions", "boilerplate", "dates", "conventions"):
        assert b.manifest[key] == a.manifest[key], key
    return a, [json.loads(x) for x in plan_a.splitlines()]


@spark_only
@pytest.mark.slow
@pytest.mark.parametrize("name, policy", [
    ("default", {}),
    ("newest", {"survivor": "newest"}),
    ("source", {"survivor": "source", "prefer_source": ("vendor", "edgar"), "exhibits": "separate"}),
    ("drop-all", {"boilerplate": "drop", "contained": "keep"}),
])
def test_the_spark_plan_is_the_store_plan_byte_for_byte(built, exported, spark, tmp_path, name, policy):
    from auditor.assembly import Policy

    _, lines = _both(built, exported, spark, tmp_path, name, Policy(**policy))
    reasons = {x["reason"] for x in lines}
    assert {"not-auditable", "failed"} <= reasons
    if name == "default":
        assert {"contained-in", "near-duplicate-of", "duplicate-of", "boilerplate", "survivor"} <= reasons
        assert any(x["evidence"] and x["evidence"].get("reverse") for x in lines)  # a family's reverse finding
        assert any(x["novel"] for x in lines) and any(x.get("stands_for") for x in lines)
    if name == "source":
        assert "exhibit" in reasons


@spark_only
@pytest.mark.slow
def test_the_spark_plan_with_min_novel_is_the_store_plan(built, exported, spark, tmp_path, monkeypatch):
    from auditor.assembly import Policy

    _, lines = _both(built, exported, spark, tmp_path, "novel", Policy(min_novel=0.5))
    assert "covered-by" in {x["reason"] for x in lines}
    import auditor.assembly.spark as job

    monkeypatch.setattr(job, "MIN_NOVEL_POSTINGS", 10)
    from auditor.assembly import assemble_parquet
    from auditor.errors import UsageError

    with pytest.raises(UsageError, match=r"--min-novel: the kept documents hold .*Assemble without --min-novel"):
        assemble_parquet(exported, tmp_path / "refused", policy=Policy(min_novel=0.5), spark=spark)


@spark_only
@pytest.mark.slow
def test_pieces_resolved_one_at_a_time_and_components_on_the_cluster(built, exported, spark, tmp_path,
                                                                      monkeypatch):
    """One component per call of the resolve, and the components by large-star / small-star
    rather than scipy on the driver: the same plan."""
    import auditor.assembly.spark as job
    import auditor.engine.spark_finish as finish
    from auditor.assembly import Policy

    monkeypatch.setattr(job, "GROUP_ROWS", 1)
    monkeypatch.setattr(finish, "LOCAL_EDGES", 0)
    _both(built, exported, spark, tmp_path, "pieces", Policy())


@spark_only
@pytest.mark.slow
def test_the_corpus_is_a_directory_of_parts_that_verify_reads_and_a_rerun_replaces(built, exported, spark,
                                                                                   tmp_path):
    from auditor.assembly import Policy, assemble_parquet, verify
    from auditor.assembly.files import lines_content, read_lines
    from auditor.store.db import Store

    out = tmp_path / "again"
    first = assemble_parquet(exported, out, policy=Policy(), spark=spark)
    parts = sorted(p.name for p in (out / "corpus.parquet").iterdir())
    assert parts and all(p.startswith("part-") and p.endswith(".parquet") for p in parts)
    assert sorted(p.name for p in out.iterdir()) == ["corpus.parquet", "manifest.json", "plan.jsonl"]
    for name in ("plan.jsonl", "corpus.parquet"):  # what a reader without the store checks
        assert lines_content(read_lines(out / name)) == first.manifest["files"][name]
    with Store(built["db"]) as store:  # the store the export was made from: the same plan and rows; its
        v = verify(out, store)         # custody log and the manifest's source differ, as they should
    assert not [p for p in v.problems if "corpus.parquet" in p or "plan" in p], v.problems
    assert any("directory of Parquet parts" in n for n in v.notes)
    second = assemble_parquet(exported, out, policy=Policy(), spark=spark)  # its own output: replaced
    assert second.manifest["digest"] == first.manifest["digest"]
    (out / "corpus.parquet" / "stray.txt").write_bytes(b"x")
    with Store(built["db"]) as store:
        assert "corpus.parquet/stray.txt is not one of the files" in " ".join(verify(out, store).problems)
    shutil.rmtree(out)
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    from auditor.errors import UsageError

    with pytest.raises(UsageError, match="not empty"):
        assemble_parquet(exported, out, policy=Policy(), spark=spark)
