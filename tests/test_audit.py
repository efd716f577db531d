"""The containment engine end to end: stored documents in, findings with locations out."""

import numpy as np
import pytest

from auditor import synth
from auditor.audit import run_audit
from auditor.errors import IndexMismatch
from auditor.index import build_index
from auditor.ingest import ingest
from auditor.normalize import words_bytes
from auditor.query import compare, query_text
from auditor.score import containment, jaccard
from auditor.shingle import Params, WordHasher, combine, sample
from tests.fixtures_build import make_pdf


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
    from auditor.store import Store
    store = Store(d / "corpus.db")
    ingest(store, [d], workers=1)
    yield store, {"pdf_pages": (first_page, last_page)}
    store.close()


def _ids(store):
    """Document ids by file name, each mapped to the first document of its duplicate group."""
    return {r["path"].rsplit("/", 1)[1]: r["duplicate_of"] or r["id"]
            for r in store.rows("SELECT id, path, duplicate_of FROM documents")}


def test_audit_finds_embedded_reformatted_and_pdf_copies_only(corpus, docs):
    store, _ = corpus
    ids = _ids(store)
    r = run_audit(store, 0.8)
    got = {(p.contained, p.container): p for p in r.findings}
    contract, filing = ids["contract.txt"], ids["filing.txt"]
    assert got[(contract, filing)].containment == 1.0
    assert got[(contract, filing)].estimate.estimate == 1.0
    assert got[(contract, ids["reformatted.txt"])].containment >= 0.95
    assert got[(ids["reformatted.txt"], contract)].containment >= 0.95
    assert got[(ids["reformatted.txt"], filing)].containment >= 0.95
    assert got[(contract, ids["filing-scan.pdf"])].containment >= 0.95
    for p in r.findings:
        assert ids["unrelated.txt"] not in (p.contained, p.container)
        assert ids["half.txt"] not in (p.contained, p.container)
        assert p.exact is not None and p.exact >= 0.8
        assert p.estimate.low <= p.estimate.estimate <= p.estimate.high
    # HTML and PDF copies normalise to exactly the contract's words: one group, reported once
    by_name = {r["path"].rsplit("/", 1)[1]: r["id"] for r in store.rows("SELECT id, path FROM documents")}
    assert sorted(r.duplicate_groups) == sorted([
        [by_name["contract.txt"], by_name["reformatted.htm"], by_name["scanned-copy.pdf"]],
        [by_name["copy-of-filing.txt"], by_name["filing.txt"]],
    ])
    members = {by_name["reformatted.htm"], by_name["scanned-copy.pdf"], by_name["filing.txt"]}
    assert not [p for p in r.findings if {p.contained, p.container} & members]


def test_half_a_contract_scores_about_half_and_is_no_finding(corpus):
    store, _ = corpus
    ids = _ids(store)
    c = compare(store, ids["contract.txt"], ids["half.txt"])
    assert 0.4 < c["a_in_b"]["exact"] < 0.6
    assert 0.35 < c["a_in_b"]["estimate"] < 0.65
    findings = run_audit(store, 0.8).findings
    assert not [p for p in findings if ids["half.txt"] in (p.contained, p.container)]
    assert [p for p in run_audit(store, 0.4).findings if (p.contained, p.container) == (ids["contract.txt"], ids["half.txt"])]


def test_spans_point_where_the_contract_was_put(corpus, docs):
    store, _ = corpus
    ids = _ids(store)
    p = next(p for p in run_audit(store, 0.8).findings
             if (p.contained, p.container) == (ids["contract.txt"], ids["filing.txt"]))
    start, end = docs["span"]
    assert len(p.spans) == 1
    s = p.spans[0]
    assert abs(s.start - start) < 5 and abs(s.end - end) < 5
    pdf = next(p for p in run_audit(store, 0.8).findings
               if (p.contained, p.container) == (ids["contract.txt"], ids["filing-scan.pdf"]))
    assert (pdf.spans[0].pages[0], pdf.spans[-1].pages[1]) == corpus[1]["pdf_pages"]
    assert corpus[1]["pdf_pages"][1] - corpus[1]["pdf_pages"][0] >= 2


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


def test_a_contract_filed_in_many_filings_is_found_in_all(tmp_path):
    from auditor.store import Store
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
        found = {p.container for p in run_audit(store, 0.8).findings if p.contained == cid}
        assert len(found) == n


def test_short_documents_are_verified_or_listed_as_not_auditable(store, tmp_path, docs):
    words = docs["contract"].split()
    (tmp_path / "snippet.txt").write_text(" ".join(words[200:260]))  # 60 words, ~3 sampled shingles
    (tmp_path / "tiny.txt").write_text("Section 1.")
    (tmp_path / "filing.txt").write_text(docs["filing"])
    ingest(store, [tmp_path], workers=1)
    ids = _ids(store)
    r = run_audit(store, 0.8)
    snip = [p for p in r.findings if p.contained == ids["snippet.txt"]]
    na = {x["doc_id"]: x["reason"] for x in r.not_auditable}
    if snip:
        assert snip[0].exact == 1.0 and snip[0].container == ids["filing.txt"]
    else:
        assert "sampl" in na[ids["snippet.txt"]]
    assert "too short" in na[ids["tiny.txt"]]
    audited = {ids["filing.txt"], ids["snippet.txt"]}
    assert set(ids.values()) - audited - set(na) == set()


def test_sampled_estimate_is_unbiased_against_the_exact_value():
    """Over many random pairs the mean of (estimate - exact) is zero within its standard error."""
    rng = np.random.default_rng(2024)
    diffs = []
    hasher = WordHasher(Params().seed)
    vocab = [f"w{i}".encode() for i in range(20_000)]
    for _ in range(300):
        n = int(rng.integers(300, 3000))
        a = [vocab[i] for i in rng.integers(0, len(vocab), n)]
        keep = rng.random()
        b = [w for w in a[: int(n * keep)]] + [vocab[i] for i in rng.integers(0, len(vocab), n)]
        sa, sb = np.unique(combine(hasher(a), 5)), np.unique(combine(hasher(b), 5))
        pa, pb = sample(sa, 16), sample(sb, 16)
        if len(pa) == 0:
            continue
        exact = containment(sa, sb)
        est = len(np.intersect1d(pa, pb)) / len(pa)
        diffs.append(est - exact)
    diffs = np.array(diffs)
    se = diffs.std(ddof=1) / np.sqrt(len(diffs))
    assert abs(diffs.mean()) < 3 * se
    assert se < 0.01


def test_index_refuses_other_parameters_until_rebuilt(corpus):
    store, _ = corpus
    other = Params(k=4)
    with pytest.raises(IndexMismatch, match="k=5"):
        build_index(store, other)
    with pytest.raises(IndexMismatch):
        ingest(store, [], workers=1) if False else store.check_params(other)
    before = store.scalar("SELECT count(*) FROM index_docs")
    r = build_index(store, other, rebuild=True)
    assert r.rebuilt and r.total == before and store.params.k == 4
    build_index(store, Params(), rebuild=True)
    assert store.params == Params()


def test_parallel_exact_verification_gives_the_same_audit(corpus, monkeypatch):
    import auditor.audit

    store, _ = corpus
    one = run_audit(store, 0.8, workers=1)
    monkeypatch.setattr(auditor.audit, "PARALLEL_MIN_PAIRS", 1)
    two = run_audit(store, 0.8, workers=2)
    key = lambda r: [(p.contained, p.container, p.exact, p.estimate, [s.as_dict() for s in p.spans])  # noqa: E731
                     for p in r.findings + r.verified_below]
    assert key(one) == key(two) and len(one.findings) >= 3


def test_a_document_quoted_in_pieces_is_still_located(docs):
    from auditor.audit import locate

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
