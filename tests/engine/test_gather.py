"""``auditor gather``: the greedy cover (pure, against a brute-force greedy), and the cover of
stored documents and files over a real store: filings with embedded contracts (verbatim,
reformatted, 85%), copies, withdrawn documents, short texts, licence texts written by others."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from auditor.corpus.ingest import ingest
from auditor.corpus.withdraw import withdraw
from auditor.engine.gather import (
    FLOOR,
    Candidate,
    CoverStats,
    floor_of,
    gather,
    gather_document,
    gather_text,
    greedy_cover,
)
from auditor.store.db import Store
from auditor.text.shingle import shingle_text
from tests.support import synth
from tests.support.fixtures_build import make_edgar_submission

# -- the cover, pure --------------------------------------------------------------------------

def cand(key: int, held, size: int | None = None) -> Candidate:
    held = np.array(sorted(held), np.int64)
    return Candidate(key, size if size is not None else len(held), held)


def brute_greedy(n, cands, floor, part_at=0.8):
    """Plain greedy, every gain recomputed at every step: what the lazy version must equal."""
    remaining = set(range(n))
    left = {c.key: c for c in cands}
    steps = []
    while left:
        def rank(c, remaining=remaining):
            part = len(c.held) / c.size >= part_at
            return (0 if part else 1, -len(remaining & set(c.held.tolist())), c.size, c.key)
        best = min(left.values(), key=rank)
        gain = remaining & set(best.held.tolist())
        if len(gain) < floor:
            del left[best.key]
            continue
        steps.append((best.key, sorted(gain)))
        remaining -= gain
        del left[best.key]
    return steps


def test_disjoint_components_and_novel_add_up():
    steps = greedy_cover(100, [cand(1, range(0, 30)), cand(2, range(30, 50)), cand(3, range(50, 55))], floor=10)
    assert [(s.key, len(s.explained)) for s in steps] == [(1, 30), (2, 20)]  # 3 explains 5 < floor 10
    assert 100 - sum(len(s.explained) for s in steps) == 50


def test_overlapping_components_count_each_shingle_once():
    steps = greedy_cover(10, [cand(1, range(0, 6)), cand(2, range(3, 10))], floor=1)
    assert [(s.key, s.explained.tolist()) for s in steps] == [(2, list(range(3, 10))), (1, [0, 1, 2])]
    assert steps[1].held == 6  # it holds six, three of them explained first by 2


def test_parts_of_the_query_come_before_documents_that_only_overlap_it():
    # a contract (size 20, all in the query) and a filing that holds it and 5 stray shingles more
    contract = cand(1, range(0, 20))
    filing = cand(2, list(range(0, 20)) + list(range(50, 55)), size=1000)
    steps = greedy_cover(100, [contract, filing], floor=3)
    assert [s.key for s in steps] == [1, 2] and [s.part for s in steps] == [True, False]
    assert steps[1].explained.tolist() == list(range(50, 55))
    # without the rule (every candidate a part) the filing explains more and comes first
    steps = greedy_cover(100, [cand(1, range(0, 20)), cand(2, list(range(0, 20)) + list(range(50, 55)), 1000)],
                         floor=3, part_at=0.0)
    assert [s.key for s in steps] == [2]


def test_ties_go_to_the_smaller_document_then_the_lower_id():
    assert greedy_cover(50, [cand(7, range(10), 40), cand(3, range(10), 90)], 1, part_at=0)[0].key == 7
    assert greedy_cover(50, [cand(7, range(10), 40), cand(3, range(10), 40)], 1, part_at=0)[0].key == 3
    assert [s.key for s in greedy_cover(50, [cand(9, range(10)), cand(4, range(10))], 1)] == [4]


@pytest.mark.parametrize("seed", range(40))
def test_lazy_greedy_equals_plain_greedy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    cands = []
    for key in rng.permutation(30)[: int(rng.integers(1, 30))].tolist():
        start = int(rng.integers(0, n))
        held = set(range(start, min(n, start + int(rng.integers(1, n)))))
        held |= set(rng.integers(0, n, int(rng.integers(0, 40))).tolist())
        size = len(held) + int(rng.integers(0, 3 * n)) * int(rng.random() < 0.6)
        cands.append(cand(key, held, size))
    floor = int(rng.integers(1, 20))
    lazy = [(s.key, s.explained.tolist()) for s in greedy_cover(n, cands, floor)]
    assert lazy == brute_greedy(n, cands, floor)


def test_unmeasured_candidates_are_measured_only_when_they_can_matter():
    n, sampled = 1600, np.arange(0, 1600, 16)  # every 16th shingle sampled: 100
    truth = {1: np.arange(0, 800), 2: np.arange(0, 400), 3: np.arange(1590, 1600)}
    cands = [Candidate(k, len(h), None, h[np.isin(h, sampled)], int(np.isin(h, sampled).sum()))
             for k, h in truth.items()]
    measured = []

    def measure(key):
        measured.append(key)
        return truth[key], len(truth[key])

    stats = CoverStats()
    steps = greedy_cover(n, cands, floor_of(n), n_sampled=len(sampled), measure=measure, stats=stats)
    assert [(s.key, len(s.explained)) for s in steps] == [(1, 800)]
    # 2 shares no sampled shingle left once 1 is taken, and 3 none at all: never measured
    assert measured == [1] and stats.measured == 1 and stats.candidates == 2 + 1
    with pytest.raises(ValueError, match="not measured"):
        greedy_cover(n, [Candidate(1, 800, None, truth[1][::16], 50)], 1, n_sampled=100)


def test_the_floor():
    assert FLOOR == {"share": 0.01, "shingles": 25}
    assert floor_of(60_000) == 600 and floor_of(2_000) == 25 and floor_of(30) == 15 and floor_of(1) == 1
    assert floor_of(0) == 1


# -- over a store ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Contracts stored on their own; a filing embedding three of them (verbatim, reformatted,
    85%); a filing embedding none; a copy of a contract at another path; a withdrawn one."""
    d = tmp_path_factory.mktemp("gather")
    src = d / "src"
    src.mkdir()
    c = {name: synth.contract(seed, 14_000, kind=kind) for name, seed, kind in (
        ("lease", 301, "lease"), ("supply", 302, "supply"), ("credit", 303, "credit"),
        ("consulting", 304, None), ("gone", 305, None))}
    for name, text in c.items():
        (src / f"{name}.txt").write_text(text)
    material = [c["lease"], synth.reformat(c["supply"], 7), synth.partial(c["credit"], 0.85, 3)]
    filing, spans = synth.filing(41, 120_000, exhibits=material)
    (src / "10-k.txt").write_text(filing)
    (src / "10-q.txt").write_text(synth.filing(42, 60_000)[0])
    (src / "copy").mkdir()
    (src / "copy" / "lease-copy.txt").write_text(c["lease"].replace("\n", "\r\n"))
    filing_gone, _ = synth.filing(43, 60_000, exhibits=[c["gone"]])
    (src / "8-k.txt").write_text(filing_gone)
    db = d / "g.db"
    with Store(db) as store:
        ingest(store, [src], workers=1)
        ids = {p.relative_to(src).as_posix(): store.resolve(str(p)) for p in sorted(src.rglob("*.txt"))}
        withdraw(store, [str(src / "gone.txt")], reason="test")
    return {"db": db, "src": src, "ids": ids, "texts": c, "spans": spans, "filing": filing}


def test_a_filing_names_every_embedded_contract_and_adds_up(corpus):
    ids = corpus["ids"]
    with Store(corpus["db"]) as store:
        g = gather_document(store, ids["10-k.txt"])
    named = {c.doc_id: c for c in g.components}
    lease = named.get(ids["lease.txt"]) or named.get(ids["copy/lease-copy.txt"])
    assert lease is not None and lease.part and lease.containment == 1.0
    for name in ("supply.txt", "credit.txt"):
        assert named[ids[name]].part, name
    assert named[ids["supply.txt"]].containment >= 0.8
    assert 0.8 <= named[ids["credit.txt"]].containment < 0.95  # 85% of it is embedded
    assert g.novel_shingles + sum(c.covered for c in g.components) == g.shingles
    assert math.isclose(g.novel + sum(g.covered(c) for c in g.components), 1.0, abs_tol=1e-12)
    assert 0.5 < g.novel < 0.95 and g.search == "sampled" and g.measured <= g.candidates
    # each component's spans lie where the generator put its text (reformatting moves a few words)
    for c, (a, b) in zip((lease, named[ids["supply.txt"]], named[ids["credit.txt"]]), corpus["spans"], strict=True):
        assert c.spans and a - 50 <= c.spans[0].start and c.spans[-1].end <= b + 50
    d = g.as_dict()
    assert d["novel_shingles"] + sum(x["covered_shingles"] for x in d["components"]) == d["shingles"]
    assert d["floor"] == {"share": 0.01, "shingles": 25, "applied": floor_of(g.shingles)}


def test_a_filing_with_no_stored_text_in_it_is_novel(corpus):
    ids = corpus["ids"]
    with Store(corpus["db"]) as store:
        g = gather_document(store, ids["10-q.txt"])
    # generated filings share their fixed items (cover page, certifications): overlaps, no part
    assert {c.doc_id for c in g.components} <= {ids["10-k.txt"], ids["8-k.txt"]}
    assert all(not c.part and c.containment < 0.1 for c in g.components)
    assert g.novel > 0.85


def test_a_copy_is_one_component_and_the_query_never_its_own(corpus):
    ids = corpus["ids"]
    lease, copy = ids["lease.txt"], ids["copy/lease-copy.txt"]
    with Store(corpus["db"]) as store:
        g = gather_document(store, lease)
        assert store.document(copy)["duplicate_of"] == lease  # same normalised text
        h = gather_document(store, copy)
    for query, other, result in ((lease, copy, g), (copy, lease, h)):
        first = result.components[0]
        assert first.doc_id == other and first.covered == result.shingles and query not in first.duplicates
        assert all(c.doc_id != query for c in result.components)
    # the filing holding the lease: one component for both copies, naming the other
    with Store(corpus["db"]) as store:
        f = gather_document(store, ids["10-k.txt"])
    lease_comp = [c for c in f.components if c.doc_id in (lease, copy)]
    assert len(lease_comp) == 1 and set(lease_comp[0].duplicates) | {lease_comp[0].doc_id} == {lease, copy}


def test_a_withdrawn_document_is_not_a_component(corpus):
    ids = corpus["ids"]
    with Store(corpus["db"]) as store:
        g = gather_document(store, ids["8-k.txt"])
        assert all(c.doc_id != ids["gone.txt"] for c in g.components)
        assert not any(c.part for c in g.components)
        assert g.novel > 0.85  # the withdrawn contract's fifth of it is novel now
        h = gather_text(store, corpus["texts"]["supply"])
    assert [c.doc_id for c in h.components][:1] == [ids["supply.txt"]] and h.novel == 0.0


def test_a_short_text_is_searched_exactly(corpus):
    words = corpus["texts"]["consulting"].split()
    clause = " ".join(words[100:160]) + " and a closing sentence written only for this test today"
    with Store(corpus["db"]) as store:
        g = gather_text(store, clause)
        tiny = gather_text(store, "four words only here")
    assert g.search == "exhaustive" and "searched exactly" in g.note
    assert g.components[0].doc_id == corpus["ids"]["consulting.txt"] and not g.components[0].part
    mine, theirs = (shingle_text(t, keep_all=True).all for t in (clause, corpus["texts"]["consulting"]))
    shared = int(np.isin(mine, theirs).sum())  # by brute force
    assert shared > 50 and g.components[0].covered == shared and g.novel_shingles == g.shingles - shared
    assert tiny.shingles == 0 and tiny.novel is None and "no shingle" in tiny.note and not tiny.components


def test_licence_texts_written_by_others(tmp_path):
    """Real prose (licences that installed packages ship): a notice made of the Apache and MPL
    licences and a paragraph of its own; the next version of a licence, mostly the previous one."""
    from tests.support.realtext import licence, paragraphs

    names = ("Apache-2.0", "MPL-2.0", "GPL-3.0", "EPL-2.0", "BSD")
    for n in names:
        (tmp_path / n).write_text(licence(n))
    own = ("This bundle ships the two licences below because its vendor code came from two places "
           "with different terms, and the packagers in Leeds asked for both texts to travel together "
           "with a short note on which directory follows which of them. ") * 3
    apache, mpl = licence("Apache-2.0"), licence("MPL-2.0")
    gpl = paragraphs(licence("GPL-3.0"))
    next_version = "\n\n".join(gpl[: len(gpl) * 7 // 10] + paragraphs(licence("CDDL-1.0"))[-8:])
    with Store(tmp_path / "l.db") as store:
        ingest(store, [tmp_path / n for n in names], workers=1)
        ids = {n: store.resolve(str(tmp_path / n)) for n in names}
        g = gather_text(store, own + apache + "\n\n" + mpl)
        later = gather_text(store, next_version)
    assert [c.doc_id for c in g.components] == [ids["MPL-2.0"], ids["Apache-2.0"]]  # MPL is the longer
    assert all(c.part and c.containment == 1.0 for c in g.components)
    assert 0 < g.novel < 0.05
    assert later.components[0].doc_id == ids["GPL-3.0"] and 0.6 < later.covered(later.components[0]) < 1


# -- the command ------------------------------------------------------------------------------

def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "auditor", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_cli_stored_documents_files_and_submissions(corpus, tmp_path):
    ids, src = corpus["ids"], corpus["src"]
    texts = corpus["texts"]
    sub = tmp_path / "new-10k.txt"
    sub.write_bytes(make_edgar_submission(
        {"accession_number": "0000950123-24-000009", "form_type": "10-K", "filing_date": "20240301",
         "company_name": "NEWCO", "cik": "0000999999"},
        [{"type": "10-K", "filename": "body.txt", "description": "ANNUAL REPORT",
          "text": synth.filing(77, 40_000, exhibits=[texts["consulting"]])[0]},
         {"type": "EX-10.1", "filename": "ex.txt", "description": "SUPPLY", "text": texts["supply"]}]))
    r = run_cli("gather", "--db", str(corpus["db"]), "--json", str(ids["10-k.txt"]), str(sub),
                str(src / "lease.txt"), "no-such-thing")
    assert r.returncode == 2, r.stderr
    out = json.loads(r.stdout)
    assert [o["document"]["ref"] for o in out] == [str(ids["10-k.txt"]), f"{sub}#1", f"{sub}#2",
                                                   str(src / "lease.txt"), "no-such-thing"]
    for o in out[:4]:
        assert o["error"] is None and o["novel_shingles"] + sum(
            c["covered_shingles"] for c in o["components"]) == o["shingles"]
        assert set(o) >= {"document", "shingles", "novel", "components", "floor"}
    assert out[0]["document"]["doc_id"] == ids["10-k.txt"]
    assert out[1]["document"]["stored"] is False and out[1]["components"][0]["doc_id"] == ids["consulting.txt"]
    assert out[2]["components"][0]["doc_id"] == ids["supply.txt"] and out[2]["novel"] == 0.0
    assert out[3]["document"]["doc_id"] == ids["lease.txt"]  # a stored path is the stored document
    assert out[3]["components"][0]["doc_id"] == ids["copy/lease-copy.txt"]
    assert out[4]["error"]["code"] == "no_document"
    text = run_cli("gather", "--db", str(corpus["db"]), str(ids["10-k.txt"]))
    assert text.returncode == 0, text.stderr
    assert "% novel" in text.stdout and "part, " in text.stdout and "floor: a component explains" in text.stdout
    missing = run_cli("gather", "--db", str(tmp_path / "nope.db"), "1")
    assert missing.returncode == 2 and "no store" in missing.stderr and not (tmp_path / "nope.db").exists()


def test_short_queries_share_one_pass_over_the_texts(corpus, monkeypatch):
    import auditor.engine.gather as g

    calls = []
    real = g.one_pass
    monkeypatch.setattr(g, "one_pass", lambda *a, **k: calls.append(1) or real(*a, **k))
    words = corpus["texts"]["consulting"].split()
    with Store(corpus["db"]) as store:
        qs = [g.text_query(store, " ".join(words[a:a + 60])) for a in (100, 400)]
        qs.append(g.text_query(store, corpus["filing"]))  # a long one: from the index
        out = g.gather_many(store, qs)
    assert len(calls) == 1 and [x.search for x in out] == ["exhaustive", "exhaustive", "sampled"]
    assert all(x.components[0].doc_id == corpus["ids"]["consulting.txt"] for x in out[:2])


def test_every_filing_of_a_generated_benchmark_corpus_names_its_embedded_contracts(tmp_path):
    """tests/support/generate.py's corpus (filings in text, HTML and EDGAR submissions; contracts
    verbatim, as exhibits, reformatted, 85/70/50% partial, and nowhere): each filing's cover names
    every contract it must find, its shares add up, and no unplaced contract is a component."""
    from tests.support.generate import generate

    corpus = tmp_path / "corpus"
    truth = generate(corpus, 1.5, 7)
    with Store(tmp_path / "b.db") as store:
        ingest(store, [corpus], workers=1)
        group = {int(d): int(g) for d, g in store.conn.execute("SELECT id, coalesce(duplicate_of, id) FROM documents")}

        def ids(rel: str) -> set[int]:
            return {group[int(r[0])] for r in store.conn.execute(
                "SELECT doc_id FROM sightings WHERE resolved = ? AND part = ''", (str((corpus / rel).resolve()),))}

        unplaced = set().union(*(ids(c) for c in truth["unplaced"]))
        must = [(p, ids(p["contract"])) for p in truth["placements"] if p["must_find"]]
        filings = sorted({p["container"] for p in truth["placements"]})
        answers = gather(store, [str(corpus / f) for f in filings])
    assert not any(a.error for a in answers)
    by_filing: dict[str, set[int]] = {}
    for a in answers:
        g = a.result
        assert g is not None and g.novel_shingles + sum(c.covered for c in g.components) == g.shingles
        named = by_filing.setdefault(a.name.split("#")[0], set())
        for c in g.components:
            named |= {group[c.doc_id], *(group[d] for d in c.duplicates)}
            assert group[c.doc_id] not in unplaced
    assert len(must) >= 10 and {p["kind"] for p, _ in must} == {"verbatim", "exhibit", "reformatted", "partial85"}
    missed = [p for p, contract in must if not contract & by_filing[str(corpus / p["container"])]]
    assert missed == []
