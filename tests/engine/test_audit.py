"""The containment engine end to end: stored documents in, findings with locations out."""

from itertools import pairwise

import numpy as np
import pytest

from auditor.corpus.ingest import ingest
from auditor.engine.audit import run_audit
from auditor.engine.families import mutual_mask
from auditor.engine.pairs import Pairs
from auditor.engine.query import compare, query_text
from auditor.engine.verify import member
from auditor.errors import IndexMismatch
from auditor.index.builder import build_index
from auditor.index.sampled import SampledIndex, exact_min_hits
from auditor.text.normalize import words_bytes
from auditor.text.score import Estimate, containment, jaccard
from auditor.text.shingle import Params, WordHasher, combine
from tests.support import synth
from tests.support.fixtures_build import make_pdf


def all_shingles(text, k=5):
    return np.unique(combine(WordHasher(Params().seed)(words_bytes(text)), k))


@pytest.fixture(scope="module")
def docs():
    contract = synth.contract(101, 20_000)
    filing, spans = synth.filing(202, 400_000, exhibits=[contract])
    return {"contract": contract, "filing": filing, "span": spans[0],
            "unrelated": synth.contract(303, 20_000),
            "half": synth.filing(404, 120_000, exhibits=[synth.partial(contract, 0.5, 1)])[0]}


def test_containment_of_an_embedded_contract_is_one_and_jaccard_small(docs):
    a, b = all_shingles(docs["contract"]), all_shingles(docs["filing"])
    assert containment(a, b) == 1.0
    assert 0.03 < jaccard(a, b) < 0.08


@pytest.mark.parametrize("how", ["reformat", "html", "upper+hyphen"])
def test_reformatted_copies_score_at_least_095(docs, how):
    c = docs["contract"]
    if how == "reformat":
        r = synth.reformat(c, seed=5)
    elif how == "html":
        from auditor.extract import extract_bytes
        r = extract_bytes(synth.to_html(synth.curly_quotes(c), "Agreement").encode(), "x.html").text
    else:
        r = synth.hyphenate_line_ends(synth.upper_headings(c), 50)
    a, b = all_shingles(c), all_shingles(r)
    assert containment(a, b) >= 0.95 and containment(b, a) >= 0.95


def test_unrelated_contract_with_shared_boilerplate_scores_low(docs):
    a, b = all_shingles(docs["unrelated"]), all_shingles(docs["contract"])
    assert 0 < containment(a, b) < 0.1  # shares some boilerplate, not the contract


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, docs):
    d = tmp_path_factory.mktemp("corpus")
    (d / "contract.txt").write_text(docs["contract"])
    (d / "filing.txt").write_text(docs["filing"])
    (d / "unrelated.txt").write_text(docs["unrelated"])
    (d / "half.txt").write_text(docs["half"])
    (d / "reformatted.txt").write_text(synth.reformat(docs["contract"], seed=9))
    (d / "reformatted.htm").write_text(synth.to_html(synth.curly_quotes(docs["contract"]), "Agreement"))
    lines = synth.rewrap(docs["contract"], 90).split("\n")
    make_pdf(["\n".join(lines[i:i + 45]) for i in range(0, len(lines), 45)], d / "scanned-copy.pdf")
    small, [(a, b)] = synth.filing(505, 60_000, exhibits=[docs["contract"]], positions=[0.5])
    lines = small.split("\n")
    make_pdf(["\n".join(lines[i:i + 45]) for i in range(0, len(lines), 45)], d / "filing-scan.pdf")
    first_page = small[:a].count("\n") // 45 + 1
    last_page = small[:b].count("\n") // 45 + 1
    (d / "copy-of-filing.txt").write_text(docs["filing"].replace("\n", "\r\n"))
    from auditor.store.db import Store
    store = Store(d / "corpus.db")
    ingest(store, [d], workers=1)
    yield store, {"pdf_pages": (first_page, last_page)}
    store.close()


def _ids(store):
    """Document ids by file name, each mapped to the first document of its duplicate group."""
    return {r["path"].rsplit("/", 1)[1]: r["duplicate_of"] or r["id"]
            for r in store.rows("SELECT id, path, duplicate_of FROM documents")}


def pairs_of(r):
    """Every containing pair of an audit: (contained, container) -> exact containment."""
    c = r.containing
    return dict(zip(zip(c.contained.tolist(), c.container.tolist(), strict=True), c.exact.tolist(), strict=True))


def located(r, a, b):
    """The located best-container entry of a pair."""
    return next(p for c in r.contained if c.doc == a for p in c.best if p.container == b)


@pytest.mark.slow
def test_audit_finds_embedded_reformatted_and_pdf_copies_only(corpus, docs):
    store, _ = corpus
    ids = _ids(store)
    r = run_audit(store, 0.8)
    got = pairs_of(r)
    contract, filing = ids["contract.txt"], ids["filing.txt"]
    assert got[(contract, filing)] == 1.0
    assert located(r, contract, filing).estimate.estimate == 1.0
    assert got[(contract, ids["reformatted.txt"])] >= 0.95
    assert got[(ids["reformatted.txt"], contract)] >= 0.95
    assert got[(ids["reformatted.txt"], filing)] >= 0.95
    assert got[(contract, ids["filing-scan.pdf"])] >= 0.95
    for (a, b), x in got.items():
        assert ids["unrelated.txt"] not in (a, b)
        assert ids["half.txt"] not in (a, b)
        assert x >= 0.8
    for c in r.contained:
        for p in c.best:
            assert p.exact is not None and p.exact >= 0.8
            assert p.estimate.low <= p.estimate.estimate <= p.estimate.high
    # the contract and its retyped copy contain each other: one family, not two findings
    [family] = [f for f in r.families if contract in f.members]
    assert family.members == sorted([contract, ids["reformatted.txt"]])
    entry = next(c for c in r.contained if c.doc == contract)
    assert ids["reformatted.txt"] not in entry.containers.tolist() and entry.family is not None
    # HTML and PDF copies normalise to exactly the contract's words: one group, reported once
    by_name = {r["path"].rsplit("/", 1)[1]: r["id"] for r in store.rows("SELECT id, path FROM documents")}
    assert sorted(r.duplicate_groups) == sorted([
        [by_name["contract.txt"], by_name["reformatted.htm"], by_name["scanned-copy.pdf"]],
        [by_name["copy-of-filing.txt"], by_name["filing.txt"]],
    ])
    members = {by_name["reformatted.htm"], by_name["scanned-copy.pdf"], by_name["filing.txt"]}
    assert not [k for k in got if set(k) & members]  # only the first of each group takes part


@pytest.mark.slow
def test_half_a_contract_scores_about_half_and_is_no_finding(corpus):
    store, _ = corpus
    ids = _ids(store)
    c = compare(store, ids["contract.txt"], ids["half.txt"])
    assert 0.4 < c["a_in_b"]["exact"] < 0.6
    assert 0.35 < c["a_in_b"]["estimate"] < 0.65
    got = pairs_of(run_audit(store, 0.8))
    assert not [k for k in got if ids["half.txt"] in k]
    assert (ids["contract.txt"], ids["half.txt"]) in pairs_of(run_audit(store, 0.4))


@pytest.mark.slow
def test_spans_point_where_the_contract_was_put(corpus, docs):
    store, _ = corpus
    ids = _ids(store)
    r = run_audit(store, 0.8)
    p = located(r, ids["contract.txt"], ids["filing.txt"])
    start, end = docs["span"]
    assert len(p.spans) == 1
    s = p.spans[0]
    assert abs(s.start - start) < 5 and abs(s.end - end) < 5
    pdf = located(r, ids["contract.txt"], ids["filing-scan.pdf"])
    assert (pdf.spans[0].pages[0], pdf.spans[-1].pages[1]) == corpus[1]["pdf_pages"]
    assert corpus[1]["pdf_pages"][1] - corpus[1]["pdf_pages"][0] >= 2


@pytest.mark.slow
def test_query_and_compare_without_storing(corpus, docs, tmp_path):
    store, _ = corpus
    ids = _ids(store)
    before = store.scalar("SELECT count(*) FROM documents")
    q = query_text(store, docs["contract"])
    contains = {m.doc_id for m in q.matches if m.direction == "contains-query"}
    assert {ids["filing.txt"], ids["contract.txt"], ids["reformatted.htm"]} <= contains
    assert ids["unrelated.txt"] not in contains
    inside = {m.doc_id for m in query_text(store, docs["filing"]).matches if m.direction == "in-query"}
    assert ids["contract.txt"] in inside and ids["unrelated.txt"] not in inside
    assert store.scalar("SELECT count(*) FROM documents") == before
    c = compare(store, ids["contract.txt"], ids["filing.txt"])
    assert c["a_in_b"]["exact"] == 1.0 and c["b_in_a"]["exact"] < 0.1 and c["jaccard"] < 0.08


@pytest.mark.slow
def test_a_contract_filed_in_many_filings_is_found_in_all(tmp_path):
    from auditor.store.db import Store
    contract = synth.contract(7, 12_000)
    d = tmp_path / "c"
    d.mkdir()
    (d / "contract.txt").write_text(contract)
    n = 200
    for i in range(n):
        (d / f"f{i:03d}.txt").write_text(synth.filing(1000 + i, 20_000, exhibits=[contract])[0])
    with Store(tmp_path / "m.db") as store:
        ingest(store, [d], workers=1)
        cid = store.resolve(str(d / "contract.txt"))
        r = run_audit(store, 0.8)
        found = {b for (a, b) in pairs_of(r) if a == cid}
        assert len(found) == n
        [entry] = [c for c in r.contained if c.doc == cid]
        assert len(entry.containers) == n  # in 200 of 201 documents
        # the generated filings are mostly the contract: most of them contain one another (one
        # family, at 0.80-0.86) and the others are contained in them, so the contract's 200
        # containers are one document's copies, not 200 unrelated documents: not boilerplate
        assert len(r.families) == 1 and len(r.families[0].members) > n / 2
        assert entry.groups == 1 and not entry.boilerplate


def _window(words, size, sampled):
    """The first run of ``size`` words whose text has (or has no) sampled shingle."""
    from auditor.text.shingle import shingle_text

    for i in range(0, len(words) - size):
        text = " ".join(words[i:i + size])
        if (len(shingle_text(text).sampled) > 0) == sampled:
            return text
    raise AssertionError("no such window")


def test_short_documents_are_searched_exhaustively(store, tmp_path, docs):
    words = docs["contract"].split()
    clause = _window(words, 40, sampled=True)
    unsampled = _window(words[1500:], 12, sampled=False)  # not inside the clause
    (tmp_path / "snippet.txt").write_text(clause)
    (tmp_path / "unsampled.txt").write_text(unsampled)
    # 85% of a 40-word clause (its first 34 words and 6 of others): contained at >= 0.8
    cw = clause.split()
    (tmp_path / "most-of-it.txt").write_text(" ".join([*cw[:34], "quixotic", "zebra", "nebula", "saffron", "obelisk", "tundra"]))
    (tmp_path / "half-of-it.txt").write_text(" ".join(cw[:20] + synth.contract(77, 400).split()[:20]))
    (tmp_path / "other-words.txt").write_text(" ".join(synth.contract(78, 2_000).split()[100:140]))
    (tmp_path / "tiny.txt").write_text("Section 1.")
    (tmp_path / "filing.txt").write_text(docs["filing"])
    ingest(store, [tmp_path], workers=1)
    ids = _ids(store)
    r = run_audit(store, 0.8)
    got = pairs_of(r)
    na = {x["doc_id"]: x["reason"] for x in r.not_auditable}
    filing = ids["filing.txt"]
    # a clause with and one without a sampled shingle: both found, exactly, and located
    assert got[(ids["snippet.txt"], filing)] == 1.0 and got[(ids["unsampled.txt"], filing)] == 1.0
    assert located(r, ids["unsampled.txt"], filing).spans, "a short clause is located too"
    c = r.containing
    row = next(i for i, (a, b) in enumerate(zip(c.contained.tolist(), c.container.tolist(), strict=True))
           if (a, b) == (ids["unsampled.txt"], filing))
    assert c.sampled[row] == 0 and c.shared[row] == c.shingles[row] == 8  # 12 words, 8 shingles
    # the bulk of a clause is found at its exact value; half of one and other words are not
    most = (ids["most-of-it.txt"], filing)
    assert most in got and 0.8 <= got[most] < 1.0
    assert not [k for k in got if k[0] in (ids["half-of-it.txt"], ids["other-words.txt"])]
    assert r.candidates >= len(r.containing) + r.below  # every scored pair was a candidate
    # only a text with no shingle at all is left out, with the reason
    assert set(na) == {ids["tiny.txt"]} and "too short" in na[ids["tiny.txt"]] and "k=5" in na[ids["tiny.txt"]]


def test_sampled_estimate_is_unbiased_against_the_exact_value():
    """Over many random pairs the mean of (estimate - exact) is zero within its standard error.

    The sampled sets come from the index's own shingling and sampling, the estimate from
    ``Estimate.of``, the exact value from all shingles.
    """
    from auditor.text.shingle import shingle_text

    rng = np.random.default_rng(2024)
    diffs = []
    vocab = [f"w{i}" for i in range(20_000)]
    for _ in range(300):
        n = int(rng.integers(300, 3000))
        a = [vocab[i] for i in rng.integers(0, len(vocab), n)]
        keep = rng.random()
        b = a[: int(n * keep)] + [vocab[i] for i in rng.integers(0, len(vocab), n)]
        sa, sb = shingle_text(" ".join(a), keep_all=True), shingle_text(" ".join(b), keep_all=True)
        if len(sa.sampled) == 0:
            continue
        est = Estimate.of(len(np.intersect1d(sa.sampled, sb.sampled)), len(sa.sampled))
        diffs.append(est.estimate - containment(sa.all, sb.all))
    diffs = np.array(diffs)
    se = diffs.std(ddof=1) / np.sqrt(len(diffs))
    assert abs(diffs.mean()) < 3 * se
    assert se < 0.01


@pytest.mark.slow
def test_index_refuses_other_parameters_until_rebuilt(corpus):
    store, _ = corpus
    other = Params(k=4)
    with pytest.raises(IndexMismatch, match="k=5"):
        build_index(store, other)
    with pytest.raises(IndexMismatch):
        store.check_params(other)
    before = store.scalar("SELECT count(*) FROM index_docs")
    r = build_index(store, other, rebuild=True)
    assert r.rebuilt and r.total == before and store.params.k == 4
    build_index(store, Params(), rebuild=True)
    assert store.params == Params()


@pytest.mark.slow
def _key(r):
    """What an audit decided: its pairs with their exact counts, their spans, misses, histogram."""
    c = r.containing
    return ([c.contained.tolist(), c.container.tolist(), c.shared.tolist(), c.shingles.tolist()],
            {k: [s.as_dict() for s in v] for k, v in r.located.items()}, r.below, r.histogram,
            [(p.contained, p.container, p.exact) for p in r.nearest_misses])


def test_parallel_exact_verification_gives_the_same_audit(corpus, monkeypatch):
    import auditor.engine.audit
    import auditor.engine.verify

    store, _ = corpus
    one = run_audit(store, 0.8, workers=1)
    monkeypatch.setattr(auditor.engine.audit, "PARALLEL_MIN_PAIRS", 1)
    monkeypatch.setattr(auditor.engine.verify, "PARALLEL_MIN_SHINGLES", 1)
    monkeypatch.setattr(auditor.engine.verify, "PARALLEL_MIN_LOCATE", 2)
    two = run_audit(store, 0.8, workers=2)
    assert _key(one) == _key(two) and len(one.containing) >= 3
    assert sum(len(v) for v in one.located.values()) >= 3


def test_the_audit_reads_stored_word_sequences_and_normalises_no_text(corpus, monkeypatch):
    """Verification, the exhaustive search and location read each document's stored words:
    with every way of normalising a text made to fail, the audit is the same."""
    import auditor.engine.verify
    import auditor.index.builder
    import auditor.text.entry

    store, _ = corpus
    r = run_audit(store, 0.8, workers=1)
    want = _key(r)

    def refuse(*args, **kwargs):
        raise AssertionError("the audit normalised a stored text again")

    monkeypatch.setattr(auditor.index.builder, "read_words", refuse)
    monkeypatch.setattr(auditor.text.entry, "read_words", refuse)
    monkeypatch.setattr(auditor.engine.verify, "word_offsets", refuse)
    assert _key(run_audit(store, 0.8, workers=1)) == want
    with store.write():  # without its sequence, a document is normalised again (and would fail here)
        store.conn.execute("DELETE FROM shingle_sequences WHERE doc_id = ?", (int(r.containing.contained[0]),))
    try:
        with pytest.raises(AssertionError, match="normalised a stored text"):
            run_audit(store, 0.8, workers=1)
    finally:
        monkeypatch.undo()
        build_index(store)  # the catch-up stores it again, for the other tests of the module


def test_an_audit_from_the_texts_is_the_audit_from_the_stored_sequences(corpus, tmp_path):
    """A store whose word sequences are gone (opened read-only, so never caught up) is audited
    from its texts, with the same pairs, counts and spans, curly quotes, HTML and
    PDF texts included."""
    import sqlite3

    from auditor.store.db import Store

    store, _ = corpus
    want = _key(run_audit(store, 0.8, workers=1))
    copy = tmp_path / "old.db"
    with sqlite3.connect(copy) as dst:
        store.conn.backup(dst)
        dst.execute("DELETE FROM shingle_sequences")
    with Store(copy, readonly=True) as old:
        assert old.scalar("SELECT count(*) FROM shingle_sequences") == 0
        assert _key(run_audit(old, 0.8, workers=1)) == want


def test_a_document_quoted_in_pieces_is_still_located(docs):
    from auditor.engine.verify import locate

    words = docs["contract"].split()
    filler = synth.contract(999, 20_000).split()
    pieces, f = [], 0
    for i in range(0, len(words), 150):
        pieces += words[i:i + 150] + filler[f:f + 40]
        f += 40
    container = " ".join(pieces)
    hasher = WordHasher(Params().seed)
    seq = combine(hasher(words_bytes(container)), 5)
    spans = locate(seq, all_shingles(docs["contract"]), container, 5)
    assert len(spans) >= 10  # one per quoted piece, give or take merged neighbours
    assert sum(s.shingles for s in spans) > 0.8 * len(all_shingles(docs["contract"]))


def test_a_rebuild_refingerprints_and_regroups_exact_duplicates(store, tmp_path, docs):
    """A new normalisation can make two texts identical: the rebuild finds the group."""
    (tmp_path / "a.txt").write_text(docs["contract"])
    (tmp_path / "b.txt").write_text(docs["contract"].replace("Lease", "Le\u200base"))
    ingest(store, [tmp_path], workers=1)
    ids = sorted(r[0] for r in store.conn.execute("SELECT id FROM documents"))
    assert store.scalar("SELECT duplicate_of FROM documents WHERE id = ?", (ids[1],)) == ids[0]
    with store.write():  # as a store written before the zero-width space was normalised away
        store.conn.execute("UPDATE documents SET norm_sha256 = 'old-' || id, duplicate_of = NULL")
    assert run_audit(store, 0.8).duplicate_groups == []
    build_index(store, rebuild=True)
    assert store.scalar("SELECT duplicate_of FROM documents WHERE id = ?", (ids[1],)) == ids[0]
    assert run_audit(store, 0.8).duplicate_groups == [ids]


def _straddling(low: float, high: float, threshold: float = 0.8):
    """(A, B, exact, estimate): the first ``cut`` words of a 330-word A inside a filler B, found by
    trying seeds and cuts, such that ``low <= exact < high`` while the sampled estimate is below
    ``threshold`` and its upper Wilson bound reaches it (the index alone cannot decide the pair)."""
    from auditor.text.shingle import shingle_text
    from tests.support.textgen import prose

    for seed in range(1, 200):
        a_words = prose(seed, 330).split()
        a = " ".join(a_words)
        sa = shingle_text(a, keep_all=True)
        before, after = prose(seed + 5000, 300), prose(seed + 9000, 300)
        for cut in range(int(low * sa.n_shingles), int(high * sa.n_shingles) + 5):
            b = before + " ".join(a_words[:cut]) + "\n" + after
            sb = shingle_text(b, keep_all=True)
            exact = containment(sa.all, sb.all)
            est = Estimate.of(len(np.intersect1d(sa.sampled, sb.sampled)), len(sa.sampled))
            if low <= exact < high and est.estimate < threshold <= est.high:
                return a, b, exact, est
    raise AssertionError("no such pair")


def _straddling_audit(store, tmp_path, low, high):
    from auditor.engine.short import SHORT_SHINGLES

    a, b, exact, est = _straddling(low, high)
    (tmp_path / "a.txt").write_text(a)
    (tmp_path / "b.txt").write_text(b)
    ingest(store, [tmp_path / "a.txt", tmp_path / "b.txt"], workers=1)
    ids = _ids(store)
    # longer than the exhaustively searched documents: only the sampled index speaks for A
    assert store.scalar("SELECT n_shingles FROM index_docs WHERE doc_id = ?", (ids["a.txt"],)) > SHORT_SHINGLES
    return run_audit(store, 0.8), (ids["a.txt"], ids["b.txt"]), exact, est


def test_a_pair_estimated_below_the_threshold_but_contained_is_found_by_exact_verification(store, tmp_path):
    r, pair, exact, est = _straddling_audit(store, tmp_path, 0.8, 0.86)
    assert est.estimate < 0.8 <= est.high and exact >= 0.8
    got = pairs_of(r)
    assert got[pair] == exact
    c = r.containing
    [row] = [i for i, k in enumerate(zip(c.contained.tolist(), c.container.tolist(), strict=True)) if k == pair]
    assert (c.hits[row], c.sampled[row]) == (est.hits, est.sampled)  # the estimate the index gave
    assert located(r, *pair).estimate.estimate == est.estimate < 0.8


def test_a_straddling_pair_whose_exact_value_is_below_the_threshold_is_verified_and_not_found(store, tmp_path):
    r, pair, exact, est = _straddling_audit(store, tmp_path, 0.72, 0.8)
    assert est.estimate < 0.8 <= est.high and exact < 0.8
    assert pair not in pairs_of(r)
    # it was verified exactly (a nearest miss at its exact value), not dropped on its estimate
    [miss] = [p for p in r.nearest_misses if (p.contained, p.container) == pair]
    assert miss.exact == exact and r.below >= 1


# -- a small corpus, every result checked against brute force ----------------------------------

def _small_corpus(d):
    """Texts by name: a contract C inside two filings (all of it, and 85% of it), a retyped copy R
    (a few words changed: C and R contain each other), an exact duplicate D of C in other layout,
    a 40-word notice N in ten letters, a near miss A2 in B2, unrelated text U, and a text too short
    for a shingle."""
    import textwrap

    from tests.support.textgen import prose

    c = prose(1, 600)
    cw = c.split()
    r_words = list(cw)
    for i in (100, 300, 500):
        r_words[i] = "quux"
    a2, b2, _, _ = _straddling(0.72, 0.8)
    n = " ".join(prose(9, 40).split())
    texts = {
        "c.txt": c,
        "f1.txt": prose(2, 1500) + "\n" + c + "\n" + prose(3, 1500),
        "f2.txt": prose(4, 500) + "\n" + " ".join(cw[: int(len(cw) * 0.85)]) + "\n" + prose(5, 500),
        "r.txt": " ".join(r_words),
        "d.txt": "\n".join(textwrap.wrap(c.upper(), 50)),
        "a2.txt": a2,
        "b2.txt": b2,
        "u.txt": prose(40, 500),
        "tiny.txt": "Section 1.",
        **{f"h{i}.txt": prose(20 + i, 200) + "\n" + n + "\n" + prose(60 + i, 100) for i in range(10)},
        "n.txt": n,
    }
    for name, text in texts.items():
        (d / name).write_text(text)
    return texts


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    from auditor.store.db import Store
    from auditor.text.shingle import shingle_text

    d = tmp_path_factory.mktemp("small")
    texts = _small_corpus(d)
    store = Store(d / "small.db")
    ingest(store, [d / n for n in sorted(texts)], workers=1)
    ids = {r["path"].rsplit("/", 1)[1]: r["id"] for r in store.rows("SELECT id, path FROM documents")}
    sets = {ids[n]: shingle_text(t, keep_all=True).all for n, t in texts.items()}
    yield store, ids, texts, sets
    store.close()


def _brute_force(sets, members, threshold=0.8):
    """Every (contained, container) pair among ``members`` at or above the threshold."""
    return {(a, b): containment(sets[a], sets[b]) for a in members for b in members
            if a != b and len(sets[a]) and containment(sets[a], sets[b]) >= threshold}


def test_the_audit_of_a_small_corpus_is_the_brute_force_answer(small):
    store, ids, _, sets = small
    r = run_audit(store, 0.8)
    reps = sorted(set(ids.values()) - {ids["d.txt"], ids["tiny.txt"]})  # D duplicates C
    expected = _brute_force(sets, reps)
    assert pairs_of(r) == expected
    assert (ids["c.txt"], ids["f2.txt"]) in expected and expected[(ids["c.txt"], ids["f2.txt"])] < 0.9
    assert r.duplicate_groups == [sorted([ids["c.txt"], ids["d.txt"]])]
    assert r.universe == sorted(ids.values())  # every document with words, duplicates included
    assert r.documents == len(reps) + 1  # one per duplicate group; the tiny text too, with no shingle
    assert [(x["doc_id"], x["n_shingles"]) for x in r.not_auditable] == [(ids["tiny.txt"], 0)]
    # every candidate is counted once in the histogram, by its exact value or else its estimate
    assert sum(r.histogram) == r.candidates >= len(expected)
    # C and R contain each other: one family with the range of their two containments
    c, rr = ids["c.txt"], ids["r.txt"]
    [fam] = r.families
    assert fam.members == sorted([c, rr]) and fam.pairs == 2
    assert (fam.low, fam.high) == (min(expected[(c, rr)], expected[(rr, c)]), max(expected[(c, rr)], expected[(rr, c)]))
    # each contained document once, containers outside its family best first: containment, then
    # the smaller container, then the lower id
    size = {i: len(s) for i, s in sets.items()}
    by_doc = {x.doc: x for x in r.contained}
    assert sorted(by_doc) == sorted({a for a, b in expected if (b, a) not in expected or a == b})
    for a, entry in by_doc.items():
        outside = [(b, v) for (x, b), v in expected.items() if x == a and (b, a) not in expected]
        want = sorted(outside, key=lambda bv: (-bv[1], size[bv[0]], bv[0]))
        assert entry.containers.tolist() == [b for b, _ in want]
        assert entry.values.tolist() == [v for _, v in want]
        assert entry.family == (0 if a in fam.members else None)
    assert [p.container for p in by_doc[c].best] == [ids["f1.txt"], ids["f2.txt"]]
    # the notice is in ten letters: boilerplate by measurement, shown with its best container only
    notice = by_doc[ids["n.txt"]]
    assert r.boilerplate_min == 10 and notice.boilerplate and len(notice.containers) == 10 and len(notice.best) == 1
    assert [x.doc for x in r.findings] == sorted(set(by_doc) - {ids["n.txt"]})
    assert [x.doc for x in r.boilerplate] == [ids["n.txt"]]


def test_the_small_corpus_locations_and_nearest_misses(small):
    store, ids, texts, sets = small
    r = run_audit(store, 0.8)
    c, f1 = ids["c.txt"], ids["f1.txt"]
    start = texts["f1.txt"].index(texts["c.txt"])
    end = start + len(texts["c.txt"].rstrip().rstrip("."))
    [span] = located(r, c, f1).spans
    assert (span.start, span.end, span.words) == (start, end, 600)
    assert span.shingles == len(sets[c])
    assert r.located[(c, f1)] == [span]
    # the near miss was verified, and the misses come closest first
    misses = [(p.contained, p.container, p.exact) for p in r.nearest_misses]
    assert (ids["a2.txt"], ids["b2.txt"], containment(sets[ids["a2.txt"]], sets[ids["b2.txt"]])) in misses
    assert all(x < 0.8 for _, _, x in misses) and r.below == len(misses)
    assert [x for a, b, x in misses] == [containment(sets[a], sets[b]) for a, b, _ in misses]  # exact, all
    assert [x for _, _, x in misses] == sorted((x for _, _, x in misses), reverse=True)


def test_only_and_documents_restrict_the_small_corpus_audit(small):
    store, ids, _, _ = small
    full = pairs_of(run_audit(store, 0.8))
    h0 = ids["h0.txt"]
    assert pairs_of(run_audit(store, 0.8, only={h0})) == {k: v for k, v in full.items() if h0 in k}
    # a duplicate in ``only`` stands for its group's first member
    d_only = pairs_of(run_audit(store, 0.8, only={ids["d.txt"]}))
    assert d_only == {k: v for k, v in full.items() if ids["c.txt"] in k}
    without_f1 = sorted(set(ids.values()) - {ids["f1.txt"]})
    part = run_audit(store, 0.8, documents=without_f1)
    assert pairs_of(part) == {k: v for k, v in full.items() if ids["f1.txt"] not in k}
    assert part.universe == without_f1
    higher = pairs_of(run_audit(store, 0.9))
    assert higher == {k: v for k, v in full.items() if v >= 0.9}


def test_the_sampled_index_counts_what_an_outside_text_shares_with_each_document():
    """``hits_of`` (what corpus-drawn controls estimate with): per indexed document, by position,
    how many of a text's sampled hashes it holds; a hash no document holds counts for none."""
    rng = np.random.default_rng(7)
    held = [np.unique(rng.integers(0, 400, n)).astype(np.uint64) * np.uint64(16) for n in (50, 0, 120, 80, 200)]
    queries = [held[2], held[1], np.array([16 * 1000], np.uint64),
               np.unique(rng.integers(0, 600, 90)).astype(np.uint64) * np.uint64(16)]
    sizes = np.array([len(h) for h in held])
    for index in (SampledIndex(np.array([11, 3, 42, 7, 5]), held),
                  SampledIndex(np.array([11, 3, 42, 7, 5]), np.concatenate(held), n=sizes)):
        for q in queries:
            assert index.hits_of(q).tolist() == [len(np.intersect1d(h, q)) for h in held]
    assert sum(len(np.intersect1d(h, queries[3])) > 1 for h in held) == 4  # posting lists of many lengths


@pytest.mark.parametrize("threshold", [0.8, 0.5, 0.85, 0.9, 0.95, 1.0, 1 / 3, 0.56, 0.01])
def test_exact_min_hits_is_the_fewest_shared_shingles_the_verdict_accepts(threshold):
    """The exhaustive search of short documents keeps a candidate only with this many shared
    shingles: one fewer must fail ``hits / n >= threshold`` as the verdict computes it, this many
    pass (0.56 * 25 is 14.000000000000002 in floating point, yet 14 of 25 is 0.56: ceil() alone
    would ask for 15)."""
    for n in range(1, 400):
        least = exact_min_hits(n, threshold)
        assert least / n >= threshold and (least - 1) / n < threshold, (n, least)
    assert exact_min_hits(10, 0.8) == 8 and exact_min_hits(25, 0.56) == 14 and exact_min_hits(5, 1.0) == 5


def test_member_finds_every_value_of_a_sorted_set_and_nothing_else():
    s = np.array([16, 32, 160, 2**63 + 16], dtype=np.uint64)
    values = np.array([2**63 + 16, 0, 16, 17, 160, 2**64 - 16, 32, 48], dtype=np.uint64)
    got = member(values, s)
    assert got.dtype == bool and got.tolist() == [True, False, True, False, True, False, True, False]
    empty = member(values, np.empty(0, np.uint64))
    assert empty.dtype == bool and empty.tolist() == [False] * len(values)
    assert values[member(values, np.empty(0, np.uint64))].tolist() == []


def _prefix_candidates(held, i, threshold, exact):
    """What ``SampledIndex.candidates`` promises, by brute force: the documents holding one of the
    ``n - least + 1`` rarest shingles of ``i`` (fewest holders first, ties in hash order), with
    how many of its shingles each holds, kept from ``least`` of them (``exact``: from one)."""
    from auditor.text.score import min_hits

    s = held[i]
    n = len(s)
    if n == 0:
        return {}
    least = exact_min_hits(n, threshold) if exact else min_hits(n, threshold)
    df = {h: sum(h in set(x.tolist()) for x in held) for h in s.tolist()}
    rare = set(sorted(s.tolist(), key=lambda h: (df[h], h))[: n - least + 1])
    out = {}
    for j, x in enumerate(held):
        shared = len(np.intersect1d(s, x))
        if j != i and rare & set(x.tolist()) and shared >= (1 if exact else least):
            out[j] = shared
    return out


def _index_of(held):
    return SampledIndex(np.arange(100, 100 + len(held)), [np.asarray(h, np.uint64) for h in held])


@pytest.mark.parametrize("exact", [False, True])
def test_candidates_are_the_prefix_principle_by_brute_force(exact):
    """Random documents over a small vocabulary (many shared shingles, many ties in how many
    documents hold one): for every document and three thresholds, the candidates and their hits
    are exactly the brute-force answer, with integer hits."""
    rng = np.random.default_rng(11)
    held = [np.unique(rng.integers(0, 60, rng.integers(0, 40))) for _ in range(40)]
    held[7] = np.array([], np.int64)
    index = _index_of(held)
    for threshold in (0.5, 0.8, 0.95):
        for i in range(len(held)):
            cands, hits = index.candidates(i, threshold, exact=exact)
            assert cands.dtype == np.int64 and hits.dtype == np.int64 and cands.shape == hits.shape == (len(cands),)
            assert dict(zip(cands.tolist(), hits.tolist(), strict=True)) == _prefix_candidates(held, i, threshold, exact)


@pytest.mark.parametrize("exact", [False, True])
def test_candidates_among_a_batch_are_the_candidates_kept_to_it(exact):
    """A corpus document's containers in a batch (a gate's short documents): the candidates the
    prefix principle gives, kept to the batch, whichever the batch and the document."""
    rng = np.random.default_rng(12)
    held = [np.unique(rng.integers(0, 60, rng.integers(0, 40))) for _ in range(40)]
    held[7] = np.array([], np.int64)
    index = _index_of(held)
    for threshold in (0.5, 0.8, 0.95):
        for among in (np.array([3, 7, 12, 30], np.int64), np.arange(0, 40, 3), np.array([], np.int64)):
            for i in range(len(held)):
                cands, hits = index.candidates(i, threshold, exact=exact)
                keep = np.isin(cands, among)
                got = index.candidates_among(i, threshold, among, exact=exact)
                assert got[0].tolist() == cands[keep].tolist() and got[1].tolist() == hits[keep].tolist()
                assert got[1].dtype == np.int64
    assert sum(len(index.candidates_among(i, 0.5, np.arange(0, 40, 3), exact=exact)[0]) for i in range(40)) > 20


def test_candidates_count_hits_both_ways_and_in_blocks(monkeypatch):
    """Two ways of counting a candidate's hits, chosen by cost: from the posting lists of all the
    document's shingles (a family of variants), or by a binary search per (candidate, shingle)
    in blocks of ``CANDIDATE_BLOCK`` queries (a document whose rare shingles few others hold,
    beside common ones that many hold). Both give the brute-force counts."""
    import auditor.index.sampled

    rare, common = np.arange(0, 9), np.arange(1000, 1011)
    held = [np.concatenate((rare, common))] + [np.concatenate((common, [5000 + k])) for k in range(300)]
    held += [np.concatenate((rare, common[:k])) for k in (2, 5, 8)]  # last: the keys' end is searched past
    variants = [np.arange(0, 30)] + [np.concatenate((np.arange(0, 30), [100 + k])) for k in range(10)]
    calls = []
    ranges = auditor.index.sampled.ranges
    monkeypatch.setattr(auditor.index.sampled, "ranges", lambda *a: calls.append(1) or ranges(*a))
    monkeypatch.setattr(auditor.index.sampled, "CANDIDATE_BLOCK", 20)  # one candidate a block for 20 shingles
    ways = set()
    for h in (held, variants):
        index = _index_of(h)
        for i, threshold, exact in ((0, 0.6, True), (0, 0.6, False), (0, 0.9, True), (2, 0.5, True), (4, 0.8, False),
                                    (len(h) - 2, 0.5, True)):
            calls.clear()
            cands, hits = index.candidates(i, threshold, exact=exact)
            assert hits.dtype == np.int64
            assert dict(zip(cands.tolist(), hits.tolist(), strict=True)) == _prefix_candidates(h, i, threshold, exact)
            ways.add(("postings" if calls else "search", len(cands) > 1))
    assert ways >= {("postings", True), ("search", True)}


def test_a_one_shingle_document_has_its_containers_and_an_empty_one_none():
    """Five words make one shingle: exactly, every document holding it contains it. A document
    with no shingle has no candidate (two empty integer arrays)."""
    index = _index_of([np.array([42]), np.array([1, 42, 77]), np.array([5, 6]), np.array([], np.int64)])
    cands, hits = index.candidates(0, 0.8, exact=True)
    assert (cands.tolist(), hits.tolist()) == ([1], [1])
    for exact in (False, True):
        cands, hits = index.candidates(3, 0.8, exact=exact)
        assert cands.shape == hits.shape == (0,) and cands.dtype == hits.dtype == np.int64


def test_mutual_mask_marks_pairs_whose_reverse_also_contains():
    def pairs(ab):
        a, b = (np.array(x, np.int64) for x in zip(*ab, strict=True))
        z = np.zeros(len(a), np.int64)
        return Pairs(a, b, z, z, z, z)

    assert mutual_mask(pairs([(1, 2), (2, 1)])).tolist() == [True, True]  # the reverse is the largest key
    assert mutual_mask(pairs([(3, 1), (1, 2), (2, 1), (5, 4)])).tolist() == [False, True, True, False]
    assert mutual_mask(pairs([(9, 8)])).tolist() == [False]
    assert mutual_mask(Pairs.empty()).tolist() == []


def test_candidate_pairs_verify_what_may_reach_the_threshold_and_bin_the_rest():
    """Long documents only (a short one, at most SHORT_SHINGLES shingles, is searched
    exhaustively elsewhere): a candidate whose upper Wilson bound reaches the threshold is kept
    for exact verification, with its hits; every other candidate's estimate is counted in the
    histogram of unverified pairs (20 bins over [0, 1]), which the report shows."""
    from auditor.engine.audit import candidate_pairs
    from auditor.engine.short import SHORT_SHINGLES
    from auditor.text.score import Estimate

    rng = np.random.default_rng(5)
    held = [np.unique(rng.integers(0, 70, rng.integers(15, 50))) for _ in range(30)]
    held[3], held[4] = held[5][: len(held[5]) * 3 // 4], held[6][1:]  # each inside another
    shingles = np.full(len(held), 16 * 50)
    shingles[3], shingles[4] = SHORT_SHINGLES, SHORT_SHINGLES + 1
    ids = np.arange(100, 100 + len(held))
    index = SampledIndex(ids, [h.astype(np.uint64) for h in held], shingles=shingles)
    pairs, unverified, n_candidates = candidate_pairs(index, 0.8)
    expected, bins, count = set(), np.zeros(20, np.int64), 0
    for i, h in enumerate(held):
        if shingles[i] <= SHORT_SHINGLES:
            continue
        for j, hits in _prefix_candidates(held, i, 0.8, False).items():
            count += 1
            if Estimate.of(hits, len(h)).needs_exact(0.8):
                expected.add((int(ids[i]), int(ids[j]), hits, len(h)))
            else:
                bins[min(int(hits / len(h) * 20), 19)] += 1
    got = set(zip(pairs.contained.tolist(), pairs.container.tolist(), pairs.hits.tolist(), pairs.sampled.tolist(),
                  strict=True))
    assert got == expected and len(expected) >= 5 and int(ids[3]) not in pairs.contained.tolist()
    assert int(ids[4]) in pairs.contained.tolist()  # one shingle more than short: sampled
    assert unverified.dtype == np.int64 and unverified.tolist() == bins.tolist() and n_candidates == count


def test_a_candidate_whose_upper_bound_falls_short_is_binned_not_verified():
    """A candidate has at least min_hits hits, whose upper bound reaches the threshold less
    1e-12; one whose bound falls in that last 1e-12 is counted in the unverified histogram by
    its estimate (the only candidates that are not verified), one hit more is verified."""
    from auditor.engine.audit import candidate_pairs
    from auditor.text.score import wilson

    n, h = 40, 26
    threshold = wilson(h, n)[1] + 5e-13
    a = np.arange(n)
    held = [a, np.concatenate((a[:h], np.arange(100, 160))), np.concatenate((a[: h + 1], np.arange(200, 260))),
            np.concatenate((a[:h], np.arange(300, 400))), a]  # the last: a second copy of the first
    index = SampledIndex(np.arange(1, 6), [x.astype(np.uint64) for x in held], shingles=np.full(5, 2000))
    pairs, unverified, _ = candidate_pairs(index, threshold)
    verified = set(zip(pairs.contained.tolist(), pairs.container.tolist(), pairs.hits.tolist(), strict=True))
    assert {(1, 3, h + 1), (5, 3, h + 1), (1, 5, n)} <= verified
    assert not {(1, 2), (1, 4), (5, 2), (5, 4)} & {v[:2] for v in verified}
    expected = np.zeros(20, np.int64)
    expected[int(h / n * 20)] = 4  # 26 of 40 = 0.65, twice for each copy: the bin [0.65, 0.70)
    assert unverified.tolist() == expected.tolist() and unverified.dtype == np.int64


def test_holds_counts_the_given_values_each_indexed_document_holds():
    """The sampled view of a short document's pairs: for each document position, how many of the
    sorted values it holds (values no document holds, below or above every indexed one, count
    for none); an empty index or no document gives zeros."""
    rng = np.random.default_rng(3)
    held = [np.unique(rng.integers(1, 300, rng.integers(0, 60))) for _ in range(12)]
    index = _index_of(held)
    for values in (np.unique(rng.integers(0, 320, 80)), np.array([held[2].max()]), np.array([0, 400]),
                   np.unique(np.concatenate(held))):
        for pos in (np.arange(12), np.array([5, 0, 11]), np.array([], np.int64)):
            got = index.holds(pos, values.astype(np.uint64))
            assert got.dtype == np.int64 and got.tolist() == [len(np.intersect1d(held[p], values)) for p in pos]
    empty = _index_of([np.array([], np.int64), np.array([], np.int64)])
    got = empty.holds(np.array([0, 1]), np.array([16, 32], np.uint64))
    assert got.dtype == np.int64 and got.tolist() == [0, 0]


def test_families_are_the_components_of_mutual_containment_in_order_of_their_smallest_member():
    """Three families with interleaved ids (members ascending, families by their smallest
    member), each with its number of mutual pairs and the range of their values; pairs that are
    not mutual join nothing."""
    from auditor.engine.families import families_of

    big = list(range(3, 120, 3))  # 39 documents, each contained in the next and the next in it
    small = [2, 50, 101]
    pair = [1, 200]
    edges = [(x, y) for f in (big, small, pair) for x, y in pairwise(f)]
    mutual = [(a, b) for x, y in edges for a, b in ((x, y), (y, x))]
    one_way = [(1, 2), (4, 2), (300, 3)]
    ab = mutual + one_way
    a, b = (np.array(x, np.int64) for x in zip(*ab, strict=True))
    shingles = np.full(len(ab), 100, np.int64)
    shared = np.array([81 + (x * 7 + y) % 19 for x, y in ab], np.int64)
    p = Pairs(a, b, np.zeros(len(ab), np.int64), np.zeros(len(ab), np.int64), shared, shingles)
    fams = families_of(p, mutual_mask(p))
    assert [f.members for f in fams] == [pair, small, big]
    by_family = [[s / 100 for (x, y), s in zip(ab, shared.tolist(), strict=True) if (x, y) in mutual and x in f]
                 for f in (pair, small, big)]
    assert [(f.pairs, f.low, f.high) for f in fams] == [(len(v), min(v), max(v)) for v in by_family]


def _shingles(store, doc_id):
    return all_shingles(store.text(doc_id))


def test_a_short_document_is_scored_against_every_holder_of_its_rarest_shingles(store, tmp_path, docs):
    """The exhaustive search takes, as candidates, every document holding one of the n - m + 1
    rarest shingles of a short document (m: the fewest shared shingles that reach the threshold
    exactly) and scores each exactly, however few it shares: 20 words of the contract beside a
    20-word notice five other documents carry share 16 of 36 shingles with the filing, a near
    miss at 0.44. (Sampled rules would want 25 shared shingles before scoring it.)"""
    from tests.support.textgen import prose

    notice = ("This notice is given under section twelve of the indenture and binds every holder of "
              "the notes issued under it.")
    for i in range(5):
        (tmp_path / f"boiler{i}.txt").write_text(prose(620 + i, 200) + "\n\n" + notice)
    (tmp_path / "mixed.txt").write_text(" ".join(docs["contract"].split()[1000:1020]) + " " + notice)
    (tmp_path / "filing.txt").write_text(docs["filing"])
    ingest(store, [tmp_path], workers=1)
    ids = _ids(store)
    mixed, filing = _shingles(store, ids["mixed.txt"]), _shingles(store, ids["filing.txt"])
    assert (len(mixed), len(np.intersect1d(mixed, filing))) == (36, 16)
    r = run_audit(store, 0.8)
    misses = {(p.contained, p.container): p.exact for p in r.nearest_misses}
    assert misses[(ids["mixed.txt"], ids["filing.txt"])] == 16 / 36
    assert not [k for k in misses if k[0] == ids["mixed.txt"] and k[1] != ids["filing.txt"]]


def test_without_short_documents_the_candidates_are_the_sampled_search_s(store, tmp_path, docs):
    from auditor.engine.audit import candidate_pairs

    for name in ("contract", "filing", "unrelated", "half"):
        (tmp_path / f"{name}.txt").write_text(docs[name])
    ingest(store, [tmp_path], workers=1)
    r = run_audit(store, 0.8)
    assert r.candidates == candidate_pairs(SampledIndex.load(store), 0.8)[2] >= 1


def test_histogram_bins_scores_in_twentieths_with_one_in_the_last():
    from auditor.engine.audit import histogram

    got = histogram(np.array([0.0, 0.049, 0.05, 0.5, 0.949, 0.95, 0.97, 1.0]))
    expected = [0] * 20
    for b, k in ((0, 2), (1, 1), (10, 1), (18, 1), (19, 3)):
        expected[b] = k
    assert got.tolist() == expected and got.dtype == np.int64
    assert histogram(np.array([], np.float64)).tolist() == [0] * 20


def test_ranges_concatenates_aranges_as_integers():
    from auditor.index.sampled import ranges

    got = ranges(np.array([5, 0, 9, 2]), np.array([2, 0, 3, 1]))
    assert got.dtype == np.int64 and got.tolist() == [5, 6, 9, 10, 11, 2]
    for starts, lens in ((np.array([3]), np.array([0])), (np.empty(0, np.int64), np.empty(0, np.int64))):
        empty = ranges(starts, lens)
        assert empty.dtype == np.int64 and empty.shape == (0,)


# -- boilerplate: contained in many unrelated documents, not in many versions of itself ---------

def _outside(pairs):
    a, b = (np.array(x, np.int64) for x in zip(*sorted(pairs), strict=True)) if pairs else (np.zeros(0, np.int64),) * 2
    n = len(a)
    return Pairs(a, b, np.ones(n, np.int64), np.ones(n, np.int64), np.ones(n, np.int64), np.ones(n, np.int64))


def test_container_groups_count_unrelated_containers_once_per_family_or_chain():
    from auditor.engine.audit import container_groups

    family = np.full(40, -1, np.int64)
    family[[20, 21, 22]] = 0  # 20, 21, 22 contain one another
    family[[1, 30]] = 1  # the contained document's own family
    # 2..11 unrelated; 12 in 13 in 14 (a chain of versions, one way); 20-22 one family; 30 its own
    containers = np.array([*range(2, 12), 12, 13, 14, 20, 21, 22, 30])
    outside = _outside([(1, c) for c in containers.tolist()] + [(12, 13), (13, 14), (12, 14)])
    assert container_groups(1, containers, outside, family) == 10 + 1 + 1
    assert container_groups(1, np.array([30]), outside, family) == 0  # only its own family
    assert container_groups(5, np.array([2, 3, 4]), _outside([(5, 2), (5, 3), (5, 4)]), np.full(6, -1)) == 3
    # the first version of a policy in each of its eleven later versions, each holding the one before
    chain = [(v, w) for v in range(1, 13) for w in range(v + 1, 13)]
    assert container_groups(1, np.arange(2, 13), _outside(chain), np.full(13, -1)) == 1


def test_a_notice_in_unrelated_documents_is_boilerplate_the_first_of_many_versions_is_not(tmp_path):
    from auditor.store.db import Store
    from tests.support.realtext import licence
    from tests.support.realtext import paragraphs as split

    paragraphs = split(licence("GPL-3.0"))
    d = tmp_path / "c"
    d.mkdir()
    # twelve versions of one text, each adding a quarter more of the licence: the first is
    # contained in all eleven later ones, and each in the next
    for v in range(12):
        (d / f"policy-v{v:02d}.txt").write_text("\n\n".join(paragraphs[: 20 + 4 * v]))
    notice = "\n\n".join(paragraphs[-6:-2])  # "How to Apply These Terms" in part: written by others
    for i in range(11):
        (d / f"filing-{i:02d}.txt").write_text(synth.filing(900 + i, 15_000, exhibits=[notice])[0])
    (d / "notice.txt").write_text(notice)
    with Store(tmp_path / "b.db") as store:
        ingest(store, [d], workers=1)
        ids = {p.rsplit("/", 1)[1]: i for i, p in store.conn.execute("SELECT id, path FROM documents")}
        r = run_audit(store, 0.8)
    by_doc = {c.doc: c for c in r.contained}
    first = by_doc[ids["policy-v00.txt"]]
    assert len(first.containers) >= r.boilerplate_min == 10  # many containers: the old rule said boilerplate
    assert first.groups == 1 and not first.boilerplate
    n = by_doc[ids["notice.txt"]]
    assert n.groups == 11 and n.boilerplate
    assert [c.doc for c in r.boilerplate] == [ids["notice.txt"]]


@pytest.mark.parametrize("names", [("h0.txt",), ("c.txt", "f2.txt"), ("n.txt",), ("f1.txt", "b2.txt", "u.txt"),
                                   ("a2.txt", "r.txt", "h3.txt", "n.txt")])
def test_a_batch_audit_reads_what_the_batch_touches_and_finds_what_the_full_index_finds(small, names):
    """The gate's path (``SampledIndex.touching`` and ``batch_candidate_pairs``) gives exactly the
    full index's candidate pairs, hits, histogram and count for a batch, and the same audit."""
    from auditor.engine.audit import batch_candidate_pairs, candidate_pairs
    from auditor.engine.universe import universe
    from auditor.index.sampled import SampledIndex

    store, ids, _, _ = small
    only = {ids[n] for n in names}
    reps = universe(store).representatives
    full = candidate_pairs(SampledIndex.load(store, ids=reps), 0.8, only)
    index, docs, shingles, n_sampled = SampledIndex.touching(store, reps, only)
    assert len(shingles) == len(docs)
    batch = batch_candidate_pairs(index, 0.8, only, n_sampled)
    for f in ("contained", "container", "hits", "sampled"):
        assert getattr(batch[0], f).tolist() == getattr(full[0], f).tolist(), f
    assert batch[1].tolist() == full[1].tolist() and batch[2] == full[2]
    assert docs == sorted(reps) or set(docs) <= set(reps)
    assert len(index.doc_ids) <= len(docs)  # what the batch touches, not every document
    whole = pairs_of(run_audit(store, 0.8))
    assert pairs_of(run_audit(store, 0.8, only=only)) == {k: v for k, v in whole.items() if set(k) & only}
