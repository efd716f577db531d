"""Assembling a corpus: the pure resolution of a containment graph into keep/drop decisions, and
plans, corpora, verification and changes made from real audited stores."""

from __future__ import annotations

import gzip
import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.assembly import (
    REDUNDANT,
    Decision,
    Policy,
    assemble,
    check_plan,
    is_assembly,
    plan,
    resolve,
    verify,
)
from auditor.cli import cli
from auditor.corpus.ingest import ingest
from auditor.corpus.withdraw import withdraw
from auditor.errors import AssemblyRefused, StoreDamaged, UsageError
from auditor.report.pipeline import audit_job
from auditor.store.dating import apply_dates
from auditor.store.db import Store
from tests.cli.test_cli_contract import broken_controls
from tests.support import synth
from tests.support.assembled import build_corpus
from tests.support.hostile import copy_store
from tests.support.realtext import licence, paragraphs
from tests.support.textgen import write_contract_in_filing

ROOT = Path(__file__).resolve().parents[2]


# -- the resolution, on hand-made graphs -------------------------------------------------------

def decide(units, edges, rank=None, exempt=None):
    docs = [d for m in units.values() for d in m]
    rank = rank or {d: (d,) for d in docs}
    a, b, x = zip(*edges, strict=True) if edges else ((), (), ())
    out = resolve(units, (a, b, x), rank, exempt)
    assert not check_plan(out)
    return out


def test_a_chain_points_to_the_kept_end_only_where_that_containment_was_measured():
    units = {1: [1], 2: [2], 3: [3]}  # 1 in 2, 2 in 3
    measured = decide(units, [(1, 2, 1.0), (2, 3, 0.9), (1, 3, 0.9)])
    assert measured[3] == Decision(True, "not-contained")
    assert (measured[2].reason, measured[2].target) == ("contained-in", 3)
    assert (measured[1].reason, measured[1].target, measured[1].measured) == ("contained-in", 3, (1, 3))
    unmeasured = decide(units, [(1, 2, 1.0), (2, 3, 0.9)])  # 1 in 3 is below the threshold
    assert (unmeasured[2].reason, unmeasured[2].target) == ("contained-in", 3)
    assert unmeasured[1].keep and unmeasured[1].reason == "containers-dropped"


def test_a_family_keeps_its_survivor_by_rank_and_drops_the_rest_as_near_duplicates():
    units = {1: [1], 2: [2], 3: [3]}
    edges = [(1, 2, 0.95), (2, 1, 0.97), (2, 3, 0.9), (3, 2, 0.92), (1, 3, 0.85), (3, 1, 0.9)]
    for survivor in (1, 2, 3):
        rank = {d: (0 if d == survivor else 1, d) for d in (1, 2, 3)}
        out = decide(units, edges, rank)
        assert out[survivor].keep and out[survivor].reason == "survivor"
        for d in {1, 2, 3} - {survivor}:
            assert (out[d].reason, out[d].target) == ("near-duplicate-of", survivor)


def test_a_family_member_the_survivor_does_not_contain_is_kept():
    # 1 <-> 2 <-> 3, but 3 and 1 are not measured in each other: 3 must not point at 1
    out = decide({1: [1], 2: [2], 3: [3]}, [(1, 2, 0.9), (2, 1, 0.9), (2, 3, 0.9), (3, 2, 0.9)])
    assert out[1].keep and (out[2].reason, out[2].target) == ("near-duplicate-of", 1)
    assert out[3].keep and out[3].reason == "containers-dropped"


def test_inside_a_family_a_one_way_container_goes_before_the_policy_survivor():
    # 1 <-> 2 <-> 3 and 1 in 3 one way; the policy prefers 1, then 3, then 2. 3 holds 1, so 1
    # waits for 3, which is kept: 1 is contained in it, 2 its near-duplicate
    out = decide({1: [1], 2: [2], 3: [3]},
                 [(1, 2, 0.9), (2, 1, 0.9), (2, 3, 0.9), (3, 2, 0.9), (1, 3, 0.95)],
                 {1: (0,), 3: (1,), 2: (2,)})
    assert out[3].keep
    assert (out[1].reason, out[1].target) == ("contained-in", 3)
    assert (out[2].reason, out[2].target) == ("near-duplicate-of", 3)


def test_a_duplicate_group_keeps_one_member_by_rank_and_inherits_containment():
    out = decide({1: [1, 5, 9]}, [], {1: (2,), 5: (0,), 9: (1,)})
    assert [d for d in (1, 5, 9) if out[d].keep] == [5]
    assert all(out[d].reason == "duplicate-of" and out[d].target == 5 for d in (1, 9))
    contained = decide({1: [1, 5], 7: [7]}, [(1, 7, 1.0)])
    assert all((contained[d].reason, contained[d].target, contained[d].measured) == ("contained-in", 7, (1, 7))
               for d in (1, 5))


def test_exempt_documents_are_kept_when_contained_but_their_copies_are_dropped():
    out = decide({1: [1, 4], 2: [2], 3: [3]}, [(1, 2, 1.0), (1, 3, 1.0)],
                 exempt={1: "boilerplate", 4: "boilerplate"})
    assert out[1] == Decision(True, "boilerplate", None, (1, 2), 2)
    assert (out[4].reason, out[4].target) == ("duplicate-of", 1)
    # a family member is a copy even when exempt from containment
    fam = decide({1: [1], 2: [2]}, [(1, 2, 0.9), (2, 1, 0.9)], exempt={2: "exhibit"})
    assert fam[1].keep and (fam[2].reason, fam[2].target) == ("near-duplicate-of", 1)


def test_newest_never_drops_a_document_for_an_older_one_and_orders_a_family_by_rank_alone():
    # 1 <-> 2 <-> 3 and 3 in 1 one way; 3 is the newest, then 2, then 1. Without ``newer`` 3
    # waits for 1, which holds it, and 2 goes first: the newest is dropped for an older one.
    # With it, 3 goes first and 1, which 3 does not hold, stays
    edges = [(1, 2, 0.9), (2, 1, 0.9), (2, 3, 0.9), (3, 2, 0.9), (3, 1, 0.95)]
    rank = {3: (0,), 2: (1,), 1: (2,)}
    waits = decide({1: [1], 2: [2], 3: [3]}, edges, rank)
    assert waits[2].keep and (waits[3].reason, waits[3].target) == ("near-duplicate-of", 2)
    out = resolve({1: [1], 2: [2], 3: [3]}, tuple(zip(*edges, strict=True)), rank,
                  newer=lambda d, k: rank[d] < rank[k])
    assert not check_plan(out)
    assert out[3].keep and (out[2].reason, out[2].target) == ("near-duplicate-of", 3)
    assert out[1].keep and out[1].reason == "containers-dropped"
    # one way, across families: 5 (newer) in 4 (older) is kept, with the older container named
    one = resolve({4: [4], 5: [5]}, ((5,), (4,), (0.9,)), {5: (0,), 4: (1,)}, newer=lambda d, k: d > k)
    assert one[4].keep and one[5] == Decision(True, "newer", None, (5, 4), 1, 4)
    older = resolve({4: [4], 5: [5]}, ((4,), (5,), (0.9,)), {5: (0,), 4: (1,)}, newer=lambda d, k: d > k)
    assert (older[4].reason, older[4].target) == ("contained-in", 5)
    # exempt documents keep their reason; a duplicate group keeps its newest member
    ex = resolve({4: [4], 5: [5]}, ((5,), (4,), (0.9,)), {5: (0,), 4: (1,)}, {5: "boilerplate"},
                 newer=lambda d, k: d > k)
    assert ex[5].reason == "boilerplate"
    group = resolve({1: [1, 2, 3]}, ((), (), ()), {3: (0,), 2: (1,), 1: (2,)}, newer=lambda d, k: d > k)
    assert group[3].keep and all(group[d].target == 3 for d in (1, 2))


def test_a_cycle_of_one_way_containment_still_keeps_the_invariant():
    out = decide({1: [1], 2: [2], 3: [3]}, [(1, 2, 0.85), (2, 3, 0.85), (3, 1, 0.85)])
    kept = [d for d in out if out[d].keep]
    assert kept and all(out[d].keep or out[out[d].target].keep for d in out)


# -- the resolution, on random graphs ----------------------------------------------------------

@st.composite
def graphs(draw):
    n = draw(st.integers(1, 24))
    docs = list(range(1, n + 1))
    labels = draw(st.lists(st.integers(0, max(0, n - 1)), min_size=n, max_size=n))
    units: dict[int, list[int]] = {}
    for d, lab in zip(docs, labels, strict=True):
        units.setdefault(100 + lab, []).append(d)
    ids = sorted(units)
    edges = draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids),
                                    st.floats(0.8, 1.0, allow_nan=False)), max_size=60))
    rank = {d: (draw(st.integers(0, 3)), d) for d in docs}
    exempt = {d: "exhibit" for d in docs if draw(st.booleans()) and draw(st.booleans())}
    return units, edges, rank, exempt


def reach(edges, start):
    seen, todo = {start}, [start]
    while todo:
        u = todo.pop()
        for a, b, _ in edges:
            if a == u and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


@settings(max_examples=300, deadline=None)
@given(graphs(), st.randoms(use_true_random=False))
@pytest.mark.slow
def test_newest_never_points_a_drop_at_an_older_document(g, rnd):
    units, edges, rank, exempt = g
    a, b, x = zip(*edges, strict=True) if edges else ((), (), ())

    def newer(d, k):
        return rank[d] < rank[k]

    out = resolve(units, (a, b, x), rank, exempt, newer)
    assert sorted(out) == sorted(d for m in units.values() for d in m) and check_plan(out) == []
    for d, dec in out.items():
        if not dec.keep and dec.reason != "duplicate-of":
            assert not newer(d, dec.target), (d, dec)
        if dec.reason == "newer":
            assert dec.older is not None and out[dec.older].keep and newer(d, dec.older)
    order = list(units)
    rnd.shuffle(order)
    assert resolve({u: units[u] for u in order}, (a, b, x), rank, exempt, newer) == out


@settings(max_examples=300, deadline=None)
@given(graphs(), st.randoms(use_true_random=False))
@pytest.mark.slow
def test_every_drop_points_to_a_kept_document_that_was_measured_to_hold_it(g, rnd):
    units, edges, rank, exempt = g
    a, b, x = zip(*edges, strict=True) if edges else ((), (), ())
    out = resolve(units, (a, b, x), rank, exempt)
    assert sorted(out) == sorted(d for m in units.values() for d in m)
    assert check_plan(out) == []
    unit_of = {d: u for u, m in units.items() for d in m}
    pairs = {(p, q) for p, q, _ in edges if p != q}
    for d, dec in out.items():
        u = unit_of[d]
        if dec.keep:
            assert dec.target is None
            continue
        assert dec.reason in REDUNDANT and out[dec.target].keep  # no chain, so no cycle
        t = unit_of[dec.target]
        if dec.reason == "duplicate-of":
            assert t == u
        elif dec.reason == "near-duplicate-of":
            assert (u, t) in pairs and (t, u) in pairs and dec.measured == (u, t)
        else:
            assert (u, t) in pairs and dec.measured == (u, t) and d not in exempt
    kept_in = {u: [d for d in m if out[d].keep] for u, m in units.items()}
    assert all(len(k) <= 1 for k in kept_in.values())
    for p, q in pairs:  # nothing redundant is kept where the order allowed a drop
        if not (kept_in[p] and kept_in[q]):
            continue
        if (q, p) in pairs:
            pytest.fail(f"units {p} and {q} contain each other and both keep a document")
        same_block = p in reach(edges, q)
        if not same_block:
            assert all(d in exempt for d in kept_in[p]), (p, q)
    # the same input in any order gives the same decisions
    shuffled = list(edges)
    rnd.shuffle(shuffled)
    order = list(units)
    rnd.shuffle(order)
    a2, b2, x2 = zip(*shuffled, strict=True) if shuffled else ((), (), ())
    assert resolve({u: list(reversed(units[u])) for u in order}, (a2, b2, x2), rank, exempt) == out


# -- a generated corpus, audited ---------------------------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Sources ingested in this order: data-room, edgar, vendor, filings; then audited."""
    return build_corpus(tmp_path_factory.mktemp("assemble"))


def read_plan(directory: Path) -> dict:
    lines = [json.loads(x) for x in (directory / "plan.jsonl").read_text().splitlines()]
    return {(x["doc_id"] if x["doc_id"] is not None else "input:" + x["input"]["path"].rsplit("/", 1)[1]): x
            for x in lines}


def assert_invariant(lines: dict) -> None:
    """Every redundancy drop names a kept document; no other line names one."""
    by_id = {k: v for k, v in lines.items() if isinstance(k, int)}
    for line in lines.values():
        if line["decision"] == "drop" and line["reason"] in REDUNDANT:
            assert by_id[line["kept"]]["decision"] == "keep", line
        else:
            assert line["kept"] is None, line


def made(built, tmp_path, name="out", **kw):
    with Store(built["db"]) as store:
        a = assemble(store, tmp_path / name, **kw)
    lines = read_plan(a.directory)
    assert_invariant(lines)
    return a, lines


def test_contracts_placed_in_kept_filings_are_dropped_and_the_rest_kept(built, tmp_path):
    i = built["ids"]
    _, p = made(built, tmp_path, policy=Policy(prefer_source=("edgar",), survivor="source"))

    def says(name):
        x = p[i[name]]
        return x["decision"], x["reason"], x["kept"]

    assert says("verbatim.txt") == ("drop", "contained-in", i["f-verbatim.txt"])
    assert p[i["verbatim.txt"]]["evidence"]["finding"]["containment"] == 1.0
    assert p[i["verbatim.txt"]]["evidence"]["finding"]["spans"]  # located in the filing
    assert says("reformatted.txt") == ("drop", "contained-in", i["f-reformatted.txt"])
    assert 0.9 <= p[i["reformatted.txt"]]["evidence"]["finding"]["containment"] < 1.0
    # the contract filed as EX-10.2 and saved in the data room: the EDGAR copy is preferred
    assert says("exhibit.txt") == ("drop", "duplicate-of", i["0000123456-24-000001.txt#3"])
    assert p[i["0000123456-24-000001.txt#3"]]["decision"] == "keep"
    # EX-10.1 is quoted in full in the 10-K body of the same submission
    assert says("0000123456-24-000001.txt#2") == ("drop", "contained-in", i["0000123456-24-000001.txt#1"])
    for name in ("unrelated-1.txt", "unrelated-2.txt", "partial.txt", "f-verbatim.txt", "f-reformatted.txt",
                 "f-partial.txt", "chain-c.txt", "0000123456-24-000001.txt#1"):
        assert p[i[name]]["decision"] == "keep", name
        assert p[i[name]]["reason"] == "not-contained", name
    # a chain: A in B in C, all verbatim; A is measured in C, so both point at C
    assert says("chain-b.txt") == ("drop", "contained-in", i["chain-c.txt"])
    assert says("chain-a.txt") == ("drop", "contained-in", i["chain-c.txt"])
    # boilerplate is kept once; its exact copy points at it
    assert says("notice.txt") == ("keep", "boilerplate", None)
    assert p[i["notice.txt"]]["evidence"]["containers"] >= 10
    assert says("notice-copy.txt") == ("drop", "duplicate-of", i["notice.txt"])
    assert says("snippet.txt")[:2] == ("drop", "not-auditable")
    assert says("0000123456-24-000001.txt")[:2] == ("drop", "not-auditable")  # the envelope
    assert p["input:corrupt.pdf"]["reason"] == "failed" and p["input:corrupt.pdf"]["kept"] is None
    prov = p[i["0000123456-24-000001.txt#3"]]["provenance"]
    assert prov["edgar"]["accession_number"] == "0000123456-24-000001" and prov["edgar"]["type"] == "EX-10.2"
    assert prov["source"] == "edgar" and prov["batch"]


@pytest.mark.parametrize("policy, group, family", [
    (Policy(), "group.txt", "family.txt"),
    (Policy(survivor="source", prefer_source=("vendor", "data-room")), "group-copy.txt", "family-retyped.txt"),
    (Policy(survivor="source", prefer_source=("data-room",)), "group.txt", "family.txt"),
    (Policy(survivor="largest"), "group.txt", "family-retyped.txt"),  # the retyped copy has page headers
])
def test_a_duplicate_group_and_a_family_keep_exactly_one_copy_by_policy(built, tmp_path, policy, group, family):
    i = built["ids"]
    _, p = made(built, tmp_path, policy=policy)
    for members, survivor, reason in ((("group.txt", "group-copy.txt"), group, "duplicate-of"),
                                      (("family.txt", "family-retyped.txt"), family, "near-duplicate-of")):
        kept = [m for m in members if p[i[m]]["decision"] == "keep"]
        assert kept == [survivor]
        for m in members:
            if m != survivor:
                assert (p[i[m]]["reason"], p[i[m]]["kept"]) == (reason, i[survivor])
    fam = next(p[i[m]] for m in ("family.txt", "family-retyped.txt") if m != family)
    assert fam["evidence"]["finding"]["containment"] >= 0.8 and fam["evidence"]["reverse"]["containment"] >= 0.8


def test_policies_for_contained_documents_boilerplate_and_exhibits(built, tmp_path):
    i = built["ids"]
    ex = "0000123456-24-000001.txt#2"
    _, keep = made(built, tmp_path, "keep", policy=Policy(contained="keep"))
    assert (keep[i["verbatim.txt"]]["decision"], keep[i["verbatim.txt"]]["reason"]) == ("keep", "contained-kept")
    assert keep[i["family-retyped.txt"]]["decision"] == "drop"  # copies are still dropped
    _, bp = made(built, tmp_path, "bp", policy=Policy(boilerplate="drop"))
    assert bp[i["notice.txt"]]["reason"] == "contained-in"
    assert bp[i["notice-copy.txt"]]["reason"] == "contained-in"  # its group is contained, not kept
    _, sep = made(built, tmp_path, "sep", policy=Policy(exhibits="separate"))
    assert (sep[i[ex]]["decision"], sep[i[ex]]["reason"]) == ("keep", "exhibit")
    assert sep[i["verbatim.txt"]]["reason"] == "contained-in"  # not an exhibit


def test_the_manifest_records_the_policy_and_the_summary_adds_up(built, tmp_path):
    a, p = made(built, tmp_path, policy=Policy(survivor="largest"))
    m = a.manifest
    assert m["policy"] == {"survivor": "largest", "prefer_source": [], "contained": "drop",
                           "boilerplate": "keep-once", "exhibits": "dedupe", "min_novel": None}
    s = m["summary"]
    docs = [x for x in p.values() if x["doc_id"] is not None]
    assert s["documents"] == len(docs) and s["failed_inputs"] == len(p) - len(docs)
    assert s["keep"]["documents"] == sum(x["decision"] == "keep" for x in docs)
    assert s["keep"]["chars"] == sum(x["provenance"]["chars"] for x in docs if x["decision"] == "keep")
    for decision in ("keep", "drop"):
        assert sum(v["documents"] for v in s["by_reason"][decision].values()) == s[decision]["documents"]
        assert sum(v.get(decision, {}).get("documents", 0) for v in s["by_source"].values()) == s[decision]["documents"]
    assert set(s["by_source"]) == {"data-room", "edgar", "vendor", "filings"}
    with gzip.open(a.directory / "corpus.jsonl.gz", "rt") as f:
        corpus = [json.loads(x) for x in f]
    assert [r["id"] for r in corpus] == sorted(x["doc_id"] for x in docs if x["decision"] == "keep")
    with Store(built["db"]) as store:
        for r in corpus:
            assert r["text"] == store.text(r["id"]) and r["sha256"] == p[r["id"]]["provenance"]["sha256"]
    assert {"id", "sha256", "path", "source", "batch", "edgar", "text"} <= set(corpus[0])


def test_the_same_store_run_and_policy_give_byte_identical_output(built, tmp_path):
    a, _ = made(built, tmp_path, "one")
    b, _ = made(built, tmp_path, "two")
    names = sorted(f.name for f in a.directory.iterdir())
    assert names == ["corpus.jsonl.gz", "manifest.json", "plan.jsonl"]
    for n in names[:1] + names[2:]:
        assert (a.directory / n).read_bytes() == (b.directory / n).read_bytes(), n
    # the manifests differ only in the custody head: the first assembly is an entry of the log
    ma, mb = (json.loads((x.directory / "manifest.json").read_text()) for x in (a, b))
    assert mb["custody"]["seq"] == ma["custody"]["seq"] + 1
    assert {k: v for k, v in ma.items() if k not in ("custody", "digest")} == {
        k: v for k, v in mb.items() if k not in ("custody", "digest")}
    c, _ = made(built, tmp_path, "three", policy=Policy(survivor="largest"))
    assert c.manifest["digest"] != a.manifest["digest"]


def test_parquet_corpus_has_the_same_rows_and_is_reproducible(built, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    j, _ = made(built, tmp_path, "jsonl")
    a, _ = made(built, tmp_path, "pq1", format="parquet")
    b, _ = made(built, tmp_path, "pq2", format="parquet")
    assert (a.directory / "corpus.parquet").read_bytes() == (b.directory / "corpus.parquet").read_bytes()
    assert a.manifest["files"]["corpus.parquet"] == j.manifest["files"]["corpus.jsonl.gz"]
    rows = pq.read_table(a.directory / "corpus.parquet").to_pylist()
    with gzip.open(j.directory / "corpus.jsonl.gz", "rt") as f:
        assert rows == [json.loads(x) for x in f]
    with Store(built["db"]) as store:
        assert verify(a.directory, store).ok


def test_verify_passes_and_catches_a_tampered_plan_corpus_or_manifest(built, tmp_path):
    a, _ = made(built, tmp_path)
    d = a.directory
    assert is_assembly(d) and not is_assembly(built["dir"] / "report")
    with Store(built["db"]) as store:
        assert verify(d, store).ok
        plan_text = (d / "plan.jsonl").read_text()
        line = next(x for x in plan_text.splitlines() if '"reason":"contained-in"' in x)
        (d / "plan.jsonl").write_text(plan_text.replace(
            line, line.replace('"decision":"drop"', '"decision":"keep"')))
        v = verify(d, store)
        assert not v.ok and any("plan.jsonl was altered" in p for p in v.problems)
        assert any("the plan says keep" in p for p in v.problems)
        (d / "plan.jsonl").write_text(plan_text)
        assert verify(d, store).ok
        raw = (d / "corpus.jsonl.gz").read_bytes()
        with gzip.open(d / "corpus.jsonl.gz", "rt") as f:
            rows = f.read()
        with gzip.open(d / "corpus.jsonl.gz", "wt") as f:
            f.write(rows.replace("Agreement", "Agreemant", 1))
        v = verify(d, store)
        assert not v.ok and any("corpus.jsonl.gz was altered" in p for p in v.problems)
        (d / "corpus.jsonl.gz").write_bytes(raw)
        m = json.loads((d / "manifest.json").read_text())
        m["policy"]["contained"] = "keep"
        (d / "manifest.json").write_text(json.dumps(m, indent=2, sort_keys=True) + "\n")
        assert not verify(d, store).ok


def test_verify_compares_the_corpus_byte_for_byte_and_names_files_it_does_not_list(built, tmp_path):
    from tests.report.test_report import evil_header

    a, _ = made(built, tmp_path)
    d = a.directory
    corpus = d / "corpus.jsonl.gz"
    good = corpus.read_bytes()
    with Store(built["db"]) as store:
        for edit, said in ((evil_header, "its gzip header names a file ('../../evil-name')"),
                           (lambda b: b + bytes(4096), "4096 zero bytes follow the gzip member")):
            corpus.write_bytes(edit(good))
            assert gzip.decompress(corpus.read_bytes()) == gzip.decompress(good)
            v = verify(d, store)
            assert not v.ok and len(v.problems) == 1 and said in v.problems[0], v.problems
            assert v.problems[0].startswith("corpus.jsonl.gz is not byte for byte the file the auditor wrote")
        corpus.write_bytes(good)
        (d / "<script>").mkdir()
        assert verify(d, store).problems == ["<script> is not one of the files manifest.json lists (added or renamed?)"]
        (d / "<script>").rmdir()
        for planted in ("corpus.parquet", "changes.jsonl", "extra.jsonl", "sub/plan.jsonl", ".manifest.json.tmp"):
            (d / planted).parent.mkdir(exist_ok=True)
            (d / planted).write_text('{"doc_id":1,"decision":"keep"}\n')
            v = verify(d, store)
            assert v.problems == [f"{planted} is not one of the files manifest.json lists (added or renamed?)"]
            (d / planted).unlink()
            if "/" in planted:
                (d / planted).parent.rmdir()
        assert verify(d, store).ok


def test_a_parquet_corpus_rewritten_with_the_same_rows_is_not_the_file_the_auditor_wrote(built, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    a, _ = made(built, tmp_path, "pq", format="parquet")
    path = a.directory / "corpus.parquet"
    table = pq.read_table(path)
    pq.write_table(table.replace_schema_metadata({"note": "<script>alert(1)</script>"}), path, compression="zstd")
    assert pq.read_table(path).to_pylist() == table.to_pylist()
    with Store(built["db"]) as store:
        v = verify(a.directory, store)
    assert not v.ok and v.problems[0].startswith("corpus.parquet is not byte for byte the file the auditor wrote")


def test_verify_sees_a_store_that_changed_since(built, tmp_path):
    db = copy_store(built["db"], tmp_path / "copy.db")
    with Store(db) as store:
        a = assemble(store, tmp_path / "out")
        withdraw(store, [str(built["ids"]["unrelated-1.txt"])], reason="test")
        v = verify(a.directory, store)
    assert not v.ok and any("withdrawn" in p for p in v.problems)


def test_withdrawals_are_drops_that_point_nowhere_and_changes_say_why(built, tmp_path):
    i = built["ids"]
    db = copy_store(built["db"], tmp_path / "copy.db")
    with Store(db) as store:
        first = assemble(store, tmp_path / "first")
        withdraw(store, [str(i["f-verbatim.txt"])], reason="superseded")
        second = assemble(store, tmp_path / "second", previous=tmp_path / "first")
        assert verify(second.directory, store).ok
    p = read_plan(second.directory)
    assert_invariant(p)
    w = p[i["f-verbatim.txt"]]
    assert (w["decision"], w["reason"], w["kept"]) == ("drop", "withdrawn", None)
    assert w["evidence"]["withdrawn"]["reason"] == "superseded"
    # the contract it held has no kept container left: kept, not pointed at a withdrawn document
    assert (p[i["verbatim.txt"]]["decision"], p[i["verbatim.txt"]]["reason"]) == ("keep", "containers-dropped")
    changes = {c["doc_id"]: c for c in map(json.loads, (second.directory / "changes.jsonl").read_text().splitlines())}
    assert set(changes) == {i["f-verbatim.txt"], i["verbatim.txt"]}
    assert changes[i["f-verbatim.txt"]]["change"] == "newly-dropped"
    assert "withdrawn" in changes[i["f-verbatim.txt"]]["why"]
    assert changes[i["verbatim.txt"]]["change"] == "newly-kept"
    assert f"document {i['f-verbatim.txt']} is now dropped (withdrawn)" in changes[i["verbatim.txt"]]["why"]
    assert second.manifest["changes"]["counts"] == {"newly-dropped": 1, "newly-kept": 1}
    assert second.manifest["changes"]["previous"]["digest"] == first.manifest["digest"]


def test_documents_the_run_did_not_cover_refuse_the_plan(built, tmp_path):
    db = copy_store(built["db"], tmp_path / "copy.db")
    late = tmp_path / "late"
    late.mkdir()
    (late / "new.txt").write_text(synth.contract(999, 9_000))
    with Store(db) as store:
        ingest(store, [late], workers=1)
        with pytest.raises(UsageError, match="did not cover 1 stored document"):
            plan(store)


def test_a_store_whose_texts_were_altered_ships_nothing(built, tmp_path):
    db = copy_store(built["db"], tmp_path / "copy.db")
    with sqlite3.connect(db) as c:
        c.execute("UPDATE texts SET text = text || ' appended' WHERE doc_id = ?", (built["ids"]["unrelated-2.txt"],))
    with Store(db) as store, pytest.raises(StoreDamaged):
        assemble(store, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_refused_audit_refuses_the_plan(tmp_path):
    src = tmp_path / "src"
    write_contract_in_filing(src, 41)
    db = tmp_path / "c.db"
    with Store(db) as store:
        ingest(store, [src], workers=1)
        ok = audit_job(store, out=tmp_path / "ok")
        refused = audit_job(store, out=tmp_path / "refused", controls_dir=broken_controls(tmp_path / "controls"))
        assert refused.refused and not ok.refused
        with pytest.raises(AssemblyRefused, match="REFUSED"):
            plan(store)  # the latest audit run
        with pytest.raises(AssemblyRefused, match="embedded-lease"):
            plan(store, run=refused.run_id)
        assert plan(store, run=ok.run_id).kept  # an older run that passed can still be named
        with pytest.raises(UsageError, match="no run"):
            plan(store, run="no-such-run")
    r = CliRunner().invoke(cli, ["assemble", "--db", str(db), "--out", str(tmp_path / "plan")])
    assert r.exit_code == 2 and "REFUSED" in r.stderr
    assert not (tmp_path / "plan" / "plan.jsonl").exists()


def test_parquet_without_pyarrow_says_what_to_install(built, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    r = CliRunner().invoke(cli, ["assemble", "--db", str(built["db"]), "--out", str(tmp_path / "p"),
                                 "--format", "parquet"])
    assert r.exit_code == 2 and "assemble-parquet" in r.stderr
    assert not (tmp_path / "p").exists()


def test_a_report_directory_is_not_overwritten(built):
    with Store(built["db"]) as store, pytest.raises(UsageError, match="holds an audit report"):
        assemble(store, built["dir"] / "report")


def test_policy_options_are_checked():
    with pytest.raises(UsageError, match="prefer"):
        Policy(survivor="source")
    with pytest.raises(UsageError, match="contained"):
        Policy(contained="sometimes")


@pytest.mark.slow
def test_the_command_line_assembles_and_verify_checks_it(built, tmp_path):
    out = tmp_path / "cli"
    r = CliRunner().invoke(cli, ["assemble", "--db", str(built["db"]), "--out", str(out),
                                 "--prefer-source", "edgar,data-room", "--json"])
    assert r.exit_code == 0, r.output
    m = json.loads(r.stdout)
    assert m["policy"]["survivor"] == "source" and m["policy"]["prefer_source"] == ["edgar", "data-room"]
    v = CliRunner().invoke(cli, ["verify", str(out), "--db", str(built["db"])])
    assert v.exit_code == 0 and "matches a fresh assembly" in v.stdout
    (out / "plan.jsonl").write_text((out / "plan.jsonl").read_text().replace('"keep"', '"drop"', 1))
    v = CliRunner().invoke(cli, ["verify", str(out), "--db", str(built["db"]), "--json"])
    assert v.exit_code == 1 and not json.loads(v.stdout)["ok"]
    report = CliRunner().invoke(cli, ["verify", str(built["dir"] / "report"), "--db", str(built["db"])])
    assert report.exit_code == 0 and "matches a fresh audit" in report.stdout


@pytest.mark.slow
def test_assemble_in_a_real_process(built, tmp_path):
    r = subprocess.run([sys.executable, "-m", "auditor", "assemble", "--db", str(built["db"]), "--out",
                        str(tmp_path / "p"), "--survivor", "largest"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "kept" in r.stdout and "contained-in" in r.stdout
    v = subprocess.run([sys.executable, "-m", "auditor", "verify", str(tmp_path / "p"), "--db", str(built["db"])],
                       capture_output=True, text=True, timeout=300)
    assert v.returncode == 0, v.stderr


def test_random_policies_on_the_generated_corpus_keep_the_invariant(built, tmp_path):
    rnd = random.Random(5)
    with Store(built["db"]) as store:
        for k in range(6):
            pol = Policy(survivor=rnd.choice(["earliest", "largest", "source"]),
                         prefer_source=tuple(rnd.sample(["edgar", "data-room", "vendor", "filings"], 2)),
                         contained=rnd.choice(["drop", "keep"]), boilerplate=rnd.choice(["keep-once", "drop"]),
                         exhibits=rnd.choice(["dedupe", "separate"]))
            a = plan(store, policy=pol)
            assert check_plan(a.decisions) == []
            lines = [json.loads(x) for x in a.plan_lines()]
            assert_invariant({x["doc_id"] if x["doc_id"] is not None else f"f{k}{n}": x for n, x in enumerate(lines)})


# -- versions: the newest survives, supersession, boilerplate, dates supplied --------------------

def _paragraphs(kind: str) -> list[str]:
    return paragraphs(licence(kind))


def _edit(paragraphs: list[str], at: int, word: str) -> list[str]:
    out = list(paragraphs)
    out[at] = f"{out[at]} {word}"
    return out


def history() -> dict[str, tuple[str, str]]:
    """Versions of three policies made of licence texts written by others, by file name:
    (text, publication date). ``a``: GPL-3 edited, extended, copied with other line ends, then
    cut; ``b``: Apache-2.0 edited, then reverted to its first bytes; ``c``: MPL-2.0 published in
    twelve versions, each adding text (the first is in all eleven later ones)."""
    a, b, c = _paragraphs("GPL-3.0"), _paragraphs("Apache-2.0"), _paragraphs("MPL-2.0")
    j = "\n\n".join
    v: dict[str, tuple[str, str]] = {
        "a/2019-01-01.txt": (j(a[:40]), "2019-01-01T00:00:00+00:00"),
        "a/2019-06-01.txt": (j(_edit(a[:40], 5, "said")), "2019-06-01T00:00:00+00:00"),
        "a/2020-01-01.txt": (j(_edit(a[:60], 5, "said")), "2020-01-01T00:00:00+00:00"),
        "a/2020-06-01.txt": (j(_edit(_edit(a[:60], 5, "said"), 50, "same")), "2020-06-01T00:00:00+00:00"),
        "a/2021-01-01.txt": (j(_edit(_edit(a[:60], 5, "said"), 50, "same")).replace("\n", "\r\n"),
                             "2021-01-01T00:00:00+00:00"),
        "a/2021-06-01.txt": (j(a[:10] + a[30:60]), "2021-06-01T00:00:00+00:00"),
        "b/2018-01-01.txt": (j(b[:30]), "2018-01-01T00:00:00+00:00"),
        "b/2019-01-01.txt": (j(_edit(b[:30], 8, "such")), "2019-01-01T00:00:00+00:00"),
        "b/2022-01-01.txt": (j(b[:30]), "2022-01-01T00:00:00+00:00"),  # the first bytes again
    }
    for k in range(12):
        v[f"c/{2010 + k}-01-01.txt"] = (j(c[:12 + 4 * k]), f"{2010 + k}-01-01T00:00:00+00:00")
    for name in ("LGPL-3.0", "CDDL-1.0", "EPL-2.0", "CC0-1.0"):
        v[f"other/{name}.txt"] = (licence(name), "2015-01-01T00:00:00+00:00")
    return v


def write_history(root: Path, mtimes: bool) -> Path:
    from datetime import datetime

    for name, (text, date) in history().items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode())
        if mtimes:
            t = datetime.fromisoformat(date).timestamp()
            os.utime(p, (t, t))
    (root.parent / "outside.txt").write_text("not a policy")
    (root / "other" / "outside.txt").symlink_to(root.parent / "outside.txt")  # skipped at ingest: out of the tree
    return root


@pytest.fixture(scope="module")
def versions(tmp_path_factory):
    """The history ingested twice: with its dates as the files' modification times, and copied
    (modification times of now) with a dates file instead; both audited."""
    d = tmp_path_factory.mktemp("versions")
    out = {}
    for how in ("mtime", "dates"):
        src = write_history(d / how / "policies", mtimes=how == "mtime")
        db = d / how / "store.db"
        dates = None
        if how == "dates":
            dates = d / how / "published.csv"
            dates.write_text("path,date\n" + "".join(f"policies/{n},{t}\n" for n, (_, t) in history().items()))
        with Store(db) as store:
            r = ingest(store, [src], workers=1, dates=dates)
            assert r.counts["skipped"] == 1 and (dates is None or r.dates.copies == len(history()))
            o = audit_job(store, 0.8, out=d / how / "report", command="test")
            assert not o.refused, o.report.get("refused_because")
            ids = {r["path"].split("policies/", 1)[1]: r["doc_id"] for r in store.rows(
                "SELECT doc_id, path FROM sightings")}
        out[how] = {"db": db, "ids": ids, "dir": d / how, "report": o.report}
    return out


def _says(p, i, name):
    x = p[i[name]]
    return x["decision"], x["reason"], x["kept"]


def test_newest_keeps_the_newest_version_everywhere_and_says_which_dates_decided(versions, tmp_path):
    v = versions["mtime"]
    i, report = v["ids"], v["report"]
    with Store(v["db"]) as store:
        a = assemble(store, tmp_path / "newest", policy=Policy(survivor="newest"))
        assert verify(a.directory, store).ok
    p = read_plan(a.directory)
    assert_invariant(p)
    date = {k: x["provenance"]["date"] for k, x in p.items() if isinstance(k, int)}
    # no version survives in place of a newer one, and every drop shows the dates of both
    for x in p.values():
        if x["decision"] == "drop" and x["kept"] is not None:
            assert date[x["kept"]] >= date[x["doc_id"]], x
            ev = x["evidence"]["dates"]
            assert ev["this"][0]["date"] == date[x["doc_id"]] and ev["kept"][0]["date"] == date[x["kept"]]
            assert ev["this"][0]["source"] == "mtime"
    # in every duplicate group and family the newest copy is kept, or dropped for a newer one
    for members in [g for g in report["duplicate_groups"]] + [f["members"] for f in report["families"]]:
        newest = max(members, key=lambda m: (date[m], m))
        assert p[newest]["decision"] == "keep" or date[p[newest]["kept"]] > date[newest], (members, newest)
    versions_only = [k for k in p if isinstance(k, int) and not p[k]["provenance"]["path"].startswith("other")
                     and "policies/" in p[k]["provenance"]["path"]]
    assert sum(p[k]["decision"] == "drop" for k in versions_only) > len(versions_only) / 2
    # policy a: the copy with other line ends is the newest of its duplicate group; the version
    # before it is superseded (they contain each other), the shorter one contained in it; the
    # newest version cuts a section, so it is kept although an older one contains it
    assert _says(p, i, "a/2020-06-01.txt") == ("drop", "duplicate-of", i["a/2021-01-01.txt"])
    assert _says(p, i, "a/2020-01-01.txt") == ("drop", "superseded-by", i["a/2021-01-01.txt"])
    assert p[i["a/2020-01-01.txt"]]["evidence"]["reverse"]["containment"] >= 0.8
    assert _says(p, i, "a/2019-06-01.txt") == ("drop", "contained-in", i["a/2021-01-01.txt"])
    assert _says(p, i, "a/2021-06-01.txt") == ("keep", "newer", None)
    newer = p[i["a/2021-06-01.txt"]]["evidence"]
    assert newer["container"] == i["a/2021-01-01.txt"] and newer["dates"]["container"][0]["date"] < date[i["a/2021-06-01.txt"]]
    # policy b: its first bytes came back in 2022, so that document is the newest
    assert i["b/2022-01-01.txt"] == i["b/2018-01-01.txt"] and date[i["b/2018-01-01.txt"]].startswith("2022")
    assert _says(p, i, "b/2019-01-01.txt") == ("drop", "superseded-by", i["b/2018-01-01.txt"])
    # policy c: its first version, in all eleven later ones, is not boilerplate
    first = p[i["c/2010-01-01.txt"]]
    assert first["decision"] == "drop" and first["evidence"]["containers"] >= 10
    assert not [x for x in p.values() if x["reason"] == "boilerplate"]
    assert _says(p, i, "c/2021-01-01.txt") == ("keep", "survivor", None)
    assert p[i["c/2020-01-01.txt"]]["evidence"]["survivor"] == {"policy": "newest", "decided_by": "newest"}
    # the link out of the tree: skipped, not failed
    skipped = [x for x in p.values() if x["doc_id"] is None]
    assert [(x["reason"], x["input"]["code"]) for x in skipped] == [("skipped", "symlink_outside")]
    assert a.manifest["summary"]["skipped_inputs"] == 1 and a.manifest["summary"]["failed_inputs"] == 0
    assert a.manifest["boilerplate"]["rule"]["applied"] == 10 and "unrelated" in a.manifest["boilerplate"]["rule"]["counts"]


def test_the_earliest_survivor_keeps_old_versions_as_near_duplicates_not_superseded(versions, tmp_path):
    v = versions["mtime"]
    i = v["ids"]
    with Store(v["db"]) as store:
        a = assemble(store, tmp_path / "earliest")
    p = read_plan(a.directory)
    assert _says(p, i, "a/2020-01-01.txt")[0] == "keep"
    assert _says(p, i, "a/2020-06-01.txt") == ("drop", "near-duplicate-of", i["a/2020-01-01.txt"])  # newer dropped
    assert p[i["a/2020-06-01.txt"]]["evidence"]["survivor"]["decided_by"] == "earliest"
    assert not [x for x in p.values() if x["reason"] == "newer"]
    date = {k: x["provenance"]["date"] for k, x in p.items() if isinstance(k, int)}
    for x in p.values():  # superseded only where the kept one happens to be newer
        if x["reason"] == "superseded-by":
            assert date[x["kept"]] > date[x["doc_id"]]
        if x["reason"] == "near-duplicate-of":
            assert date[x["kept"]] <= date[x["doc_id"]]
    # under earliest the newest version, contained in an older one, is dropped as contained
    assert _says(p, i, "a/2021-06-01.txt")[:2] == ("drop", "contained-in")


def test_dates_supplied_instead_of_modification_times_give_the_same_plan(versions, tmp_path):
    plans = {}
    for how in ("mtime", "dates"):
        v = versions[how]
        with Store(v["db"]) as store:
            a = assemble(store, tmp_path / how, policy=Policy(survivor="newest"))
        plans[how] = {v["ids"][n]: (x["decision"], x["reason"], x["kept"]) for n in v["ids"]
                      for x in [read_plan(a.directory)[v["ids"][n]]]}
        if how == "dates":
            x = read_plan(a.directory)[v["ids"]["a/2019-01-01.txt"]]
            assert (x["provenance"]["date"], x["provenance"]["date_source"]) == ("2019-01-01T00:00:00Z",
                                                                              "supplied:published.csv")
    assert versions["mtime"]["ids"] == versions["dates"]["ids"]
    assert plans["dates"] == plans["mtime"]


def test_survivor_lists_apply_in_order_and_are_checked(versions, tmp_path):
    v = versions["mtime"]
    with Store(v["db"]) as store:
        both = plan(store, policy=Policy(survivor="newest,largest"))
        newest = plan(store, policy=Policy(survivor="newest"))
        largest_first = plan(store, policy=Policy(survivor="largest,newest"))
    assert both.decisions == newest.decisions  # every date differs: largest never decides
    assert largest_first.decisions != newest.decisions
    for bad in ("newest,newest", "oldest", "newest,"):
        with pytest.raises(UsageError, match="survivor"):
            Policy(survivor=bad)
    with pytest.raises(UsageError, match="prefer"):
        Policy(survivor="newest,source")
    r = CliRunner().invoke(cli, ["assemble", "--db", str(v["db"]), "--out", str(tmp_path / "cli"),
                                 "--survivor", "newest, source", "--prefer-source", "x"])
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "cli" / "manifest.json").read_text())["policy"]["survivor"] == "newest,source"
    r = CliRunner().invoke(cli, ["assemble", "--db", str(v["db"]), "--out", str(tmp_path / "bad"), "--survivor", "oldest"])
    assert r.exit_code == 2 and "survivor" in r.stderr


def test_newest_breaks_ties_by_richer_provenance_then_by_the_latest_ingested(built, tmp_path):
    # every file of the built corpus has the same time: the EDGAR copy of the exhibit carries its
    # filing date as well, so it is preferred; two identical files of one date and provenance go
    # to the later ingested (vendor after data-room)
    i = built["ids"]
    _, p = made(built, tmp_path, policy=Policy(survivor="newest"))
    assert _says(p, i, "exhibit.txt") == ("drop", "duplicate-of", i["0000123456-24-000001.txt#3"])
    assert p[i["0000123456-24-000001.txt#3"]]["provenance"]["date_source"] == "edgar:filing_date"
    assert _says(p, i, "group.txt") == ("drop", "duplicate-of", i["group-copy.txt"])
    assert p[i["group.txt"]]["evidence"]["survivor"] == {"policy": "newest", "decided_by": "ingest order"}
    _, q = made(built, tmp_path, "largest", policy=Policy(survivor="largest"))
    assert _says(q, i, "group-copy.txt") == ("drop", "duplicate-of", i["group.txt"])
    assert q[i["group-copy.txt"]]["evidence"]["survivor"]["decided_by"] == "ingest order"
    # the same words: the EDGAR part's accession number, form type and filing date outrank a
    # data-room file ingested before it
    assert _says(q, i, "exhibit.txt") == ("drop", "duplicate-of", i["0000123456-24-000001.txt#3"])
    assert q[i["exhibit.txt"]]["evidence"]["survivor"]["decided_by"] == "provenance"


@pytest.mark.slow
def test_a_report_names_the_documents_whose_dates_changed_since_and_a_new_one_verifies(versions, tmp_path):
    from auditor.report.pipeline import verify as verify_report

    v = versions["mtime"]
    db = copy_store(v["db"], tmp_path / "copy.db")
    dates = tmp_path / "later.csv"
    dates.write_text(f"sha256,date\n{'0' * 64},2020-01-01\n")  # matches nothing: no change
    with Store(db) as store:
        sha = store.scalar("SELECT sha256 FROM documents WHERE id = ?", (v["ids"]["a/2019-01-01.txt"],))
        apply_dates(store, dates)
        assert verify_report(v["dir"] / "report", store).ok
        dates.write_text(f"sha256,date\n{sha},2018-12-24\n")
        apply_dates(store, dates)
        r = verify_report(v["dir"] / "report", store)
        assert not r.ok and "provenance of 1 covered document(s) changed" in r.problems[0]
        assert f"document {v['ids']['a/2019-01-01.txt']}: date '2019-01-01T00:00:00Z' in the report, " \
               "'2018-12-24' now" in r.problems[1]
        o = audit_job(store, 0.8, out=tmp_path / "again", command="test")
        assert verify_report(o.directory, store).ok


# -- novelty and --min-novel ---------------------------------------------------------------

@pytest.fixture(scope="module")
def stitched(tmp_path_factory):
    """A and B stored; X made of half of A and half of C, Y of the same half of C and half of B (C
    itself is not stored), Z unrelated: no document contains X or Y at the threshold."""
    d = tmp_path_factory.mktemp("novel")
    a, b, c, z = (synth.contract(seed, 14_000) for seed in (801, 802, 803, 804))

    def half(t, first=True):
        paras = t.split("\n\n")
        return "\n\n".join(paras[: len(paras) // 2] if first else paras[len(paras) // 2:])

    texts = {"a.txt": a, "b.txt": b, "x.txt": half(a) + "\n\n" + half(c), "y.txt": half(c) + "\n\n" + half(b, False),
             "z.txt": z}
    for name, t in texts.items():
        (d / name).write_text(t)
    db = d / "n.db"
    with Store(db) as store:
        ingest(store, [d / n for n in texts], workers=1)
        ids = {n: store.resolve(str(d / n)) for n in texts}
        assert not audit_job(store, out=d / "report").refused
    return db, ids


def test_plan_lines_carry_each_documents_novel_share(stitched, tmp_path):
    db, ids = stitched
    with Store(db) as store:
        a = assemble(store, tmp_path / "plain")
    p = read_plan(a.directory)
    assert all(p[i]["decision"] == "keep" for i in ids.values())  # nothing is contained in anything
    novel = {n: p[i]["novel"] for n, i in ids.items()}
    assert novel["z.txt"]["estimate"] > 0.9 and novel["x.txt"]["estimate"] < 0.1 and novel["y.txt"]["estimate"] < 0.1
    assert 0.3 < novel["a.txt"]["estimate"] < 0.7  # half of A is in X
    assert all(set(v) == {"estimate", "interval", "hits", "sampled"} for v in novel.values())
    with Store(db) as store:
        assert verify(tmp_path / "plain", store).ok


def test_min_novel_drops_one_of_two_documents_that_hold_each_others_text(stitched, tmp_path):
    """X and Y share C's half: the first dropped is covered by A and the other, which is then kept
    (it is in the cover) and would otherwise have been covered by the dropped one."""
    db, ids = stitched
    with Store(db) as store:
        a = assemble(store, tmp_path / "min", policy=Policy(min_novel=0.2))
    p = read_plan(a.directory)
    assert_invariant(p)
    dropped = [n for n, i in ids.items() if p[i]["decision"] == "drop"]
    assert dropped == ["y.txt"]  # the lower estimate, then the later id, goes first
    y = p[ids["y.txt"]]
    assert y["reason"] == "covered-by" and y["kept"] in (ids["b.txt"], ids["x.txt"])
    cover = y["evidence"]["cover"]
    assert {c["doc_id"] for c in cover["components"]} == {ids["b.txt"], ids["x.txt"]}
    assert cover["novel"] < 0.2 and y["evidence"]["min_novel"] == 0.2
    assert cover["novel_shingles"] + sum(c["covered_shingles"] for c in cover["components"]) == cover["shingles"]
    assert p[ids["x.txt"]]["decision"] == "keep" and p[ids["x.txt"]]["novel"]["estimate"] > 0.3  # C's half is its own now
    assert a.manifest["policy"]["min_novel"] == 0.2
    with Store(db) as store:
        assert verify(tmp_path / "min", store).ok
    with pytest.raises(UsageError, match="min_novel"):
        Policy(min_novel=1.5)


def test_min_novel_never_drops_the_kept_container_of_a_dropped_document(tmp_path):
    """K is contained in B, so K is dropped as contained-in B. B's other part is in D, and K's text
    is in no other kept document, so B's novel share among the kept documents is K's part, about
    0.27, the lowest. Dropping B as covered by D would lose K's text and point K's drop at a
    dropped document: B stays kept. D, which nothing points to, is then dropped as covered by B
    (half of it is B's)."""
    k, y, w = synth.contract(811, 3_000), synth.contract(812, 8_000), synth.contract(813, 8_000)
    texts = {"k.txt": k, "b.txt": k + "\n\n" + y, "d.txt": y + "\n\n" + w}
    for name, t in texts.items():
        (tmp_path / name).write_text(t)
    with Store(tmp_path / "n.db") as store:
        ingest(store, [tmp_path / n for n in texts], workers=1)
        ids = {n: store.resolve(str(tmp_path / n)) for n in texts}
        assert not audit_job(store, out=tmp_path / "report").refused
        a = assemble(store, tmp_path / "min", policy=Policy(min_novel=0.9))
    p = read_plan(a.directory)
    assert_invariant(p)
    assert (p[ids["k.txt"]]["decision"], p[ids["k.txt"]]["reason"], p[ids["k.txt"]]["kept"]) == \
        ("drop", "contained-in", ids["b.txt"])
    assert p[ids["b.txt"]]["decision"] == "keep"
    assert (p[ids["d.txt"]]["decision"], p[ids["d.txt"]]["reason"], p[ids["d.txt"]]["kept"]) == \
        ("drop", "covered-by", ids["b.txt"])
    with Store(tmp_path / "n.db") as store:
        assert verify(tmp_path / "min", store).ok


def test_families_and_their_order_are_the_graphs_components_by_brute_force():
    """``_components`` and ``_sccs`` (scipy through auditor.text.components) against reachability
    computed by hand: the same groups, and each strong component after every one it reaches."""
    import numpy as np

    from auditor.assembly.resolve import _components, _sccs

    r = random.Random(29)
    for _ in range(300):
        n = r.randint(0, 12)
        edges = [(r.randrange(n), r.randrange(n)) for _ in range(r.randint(0, 2 * n))] if n else []
        reach = [{v} for v in range(n)]
        for _ in range(n):  # transitive closure, directed
            for a, b in edges:
                reach[a] |= reach[b]
        undirected = [{v} for v in range(n)]
        for _ in range(n):
            for a, b in edges:
                undirected[a] |= undirected[b]
                undirected[b] |= undirected[a]
        a = np.array([e[0] for e in edges], np.int64)
        b = np.array([e[1] for e in edges], np.int64)
        assert _components(n, a, b).tolist() == [min(undirected[v]) for v in range(n)]
        succ: dict[int, list[int]] = {}
        for x, y in edges:
            succ.setdefault(x, []).append(y)
        blocks = _sccs(range(n), succ)
        mutual = {tuple(sorted(w for w in reach[v] if v in reach[w])) for v in range(n)}
        assert sorted(map(tuple, blocks)) == sorted(mutual)
        at = {v: i for i, block in enumerate(blocks) for v in block}
        assert all(at[y] <= at[x] for x, y in edges)
