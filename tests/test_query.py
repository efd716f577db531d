"""``query_text``: a file against the store, without storing it. Short texts (a clause, a notice)
are searched exactly in every stored text, as the audit searches its short documents."""

import pytest

from auditor.audit import SHORT_SHINGLES
from auditor.demo import synth
from auditor.ingest import ingest
from auditor.normalize import words_bytes
from auditor.query import query_text
from auditor.shingle import Params, WordHasher, combine, distinct, sample
from auditor.store import Store

NOTICE = ("This notice applies to every holder of record of the Series B notes issued under the "
          "indenture dated March 3 2021 between the Issuer and the Trustee named in it.")


def _sampled(text: str) -> int:
    p = Params()
    return len(sample(distinct(combine(WordHasher(p.seed)(words_bytes(text)), p.k)), p.modulus))


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    d = tmp_path_factory.mktemp("query")
    contract = synth.contract(515, 12_000, kind="lease")
    (d / "lease.txt").write_text(contract)
    (d / "other.txt").write_text(synth.contract(616, 12_000, kind="credit"))
    (d / "notice.txt").write_text(NOTICE)
    with Store(d / "q.db") as store:
        ingest(store, sorted(d.glob("*.txt")), workers=1)
        ids = {p: store.scalar("SELECT id FROM documents WHERE path LIKE ?", (f"%{p}",))
               for p in ("lease.txt", "other.txt", "notice.txt")}
    return d / "q.db", contract, ids


def _clause_without_sample(contract: str, words: int = 40) -> str:
    """A run of ``words`` words of the contract none of whose shingles is sampled: invisible to
    the sampled index, so only an exact search can find it."""
    w = contract.split()
    for start in range(0, len(w) - words):
        clause = " ".join(w[start:start + words])
        if _sampled(clause) == 0:
            return clause
    raise AssertionError("no unsampled clause in the contract")


def test_a_clause_with_no_sampled_shingle_is_found_exactly(stored):
    db, contract, ids = stored
    clause = _clause_without_sample(contract)
    with Store(db) as store:
        q = query_text(store, clause)
    assert q.n_sampled == 0 and q.n_shingles <= SHORT_SHINGLES
    found = {m.doc_id: m for m in q.matches if m.direction == "contains-query"}
    assert set(found) == {ids["lease.txt"]}
    m = found[ids["lease.txt"]]
    assert m.exact == 1.0 and m.spans and m.estimate.sampled == 0
    assert "searched exactly" in q.note


def test_a_clause_changed_beyond_the_threshold_is_not_found(stored):
    db, contract, _ = stored
    w = _clause_without_sample(contract).split()
    changed = " ".join(x if i % 3 else f"altered{i}" for i, x in enumerate(w))  # every third word
    with Store(db) as store:
        q = query_text(store, changed)
    assert not q.matches


def test_a_stored_notice_inside_a_short_query_is_found_both_ways_apart(stored):
    db, _, ids = stored
    text = "Cover letter to the holders. " + NOTICE + " Please keep this letter with your records."
    with Store(db) as store:
        q = query_text(store, text)
        unrelated = query_text(store, "The borrower shall repay each loan on the maturity date in full "
                                      "together with interest accrued on it to that date.")
    inside = [m for m in q.matches if m.direction == "in-query"]
    assert [m.doc_id for m in inside] == [ids["notice.txt"]] and inside[0].exact == 1.0
    assert not [m for m in q.matches if m.direction == "contains-query"]  # the query is more than the notice
    assert not unrelated.matches


def test_fewer_words_than_a_shingle_say_so(stored):
    db, _, _ = stored
    with Store(db) as store:
        q = query_text(store, "three short words")
    assert not q.matches and q.n_shingles == 0 and "no shingle" in q.note
