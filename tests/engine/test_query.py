"""``query_text``: a file against the store, without storing it. Short texts (a clause, a notice)
are searched exactly in every stored text, as the audit searches its short documents."""

import pytest

from auditor.corpus.ingest import ingest
from auditor.engine.query import query_text
from auditor.engine.short import SHORT_SHINGLES
from auditor.store.db import Store
from auditor.text.normalize import words_bytes
from auditor.text.shingle import Params, WordHasher, combine, distinct, sample
from tests.support import synth

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


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory, stored):
    """A good file, a .docx that inflates to 600 MB, an empty file, a PDF whose letters are spaced
    too far apart to read as words, four words, and an unrelated contract."""
    from fpdf import FPDF

    from tests.support import hostile

    _, contract, _ = stored
    d = tmp_path_factory.mktemp("hostile-query")
    (d / "good.txt").write_text(contract)
    hostile.docx_bomb(d / "bomb.docx", 600 * 2**20)
    (d / "empty.txt").write_bytes(b"")
    (d / "short.txt").write_text("Four words, no shingle.")
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.set_char_spacing(6)
    pdf.multi_cell(0, 5, contract[:3000])
    (d / "spaced.pdf").write_bytes(bytes(pdf.output()))
    (d / "unrelated.txt").write_text(synth.contract(717, 12_000, kind="lease"))
    return [d / n for n in ("good.txt", "bomb.docx", "empty.txt", "spaced.pdf", "short.txt", "unrelated.txt")]


def test_query_files_reads_each_file_in_a_sandbox_and_goes_on_past_a_bad_one(stored, hostile_files):
    """The bomb fails on the child's memory limit (code "memory": only the sandbox says that), the
    empty and the unreadable file say why, and the files around them are still answered."""
    from auditor.engine.query import query_files
    from auditor.extract import Limits

    db, _, ids = stored
    with Store(db) as store:
        got = query_files(store, hostile_files, limits=Limits(memory=384 * 2**20))
    assert [g.name for g in got] == [str(f) for f in hostile_files]
    good, bomb, empty, spaced, short, unrelated = got
    assert good.error is None and (ids["lease.txt"], "contains-query") in {
        (m.doc_id, m.direction) for m in good.result.matches if m.exact == 1.0}
    assert bomb.result is None and bomb.error[0] == "memory"
    assert empty.result is None and empty.error[0] == "empty"
    assert spaced.result is None and spaced.error[0] == "unreadable" and "letter" in spaced.error[1]
    assert short.error is None and (short.result.n_words, short.result.n_shingles) == (4, 0) and not short.result.matches
    assert short.result.note == "fewer than k=5 words: no shingle to query"
    assert unrelated.error is None and not unrelated.result.matches


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_the_query_command_answers_the_other_files_and_exits_2_for_unreadable_ones(stored, hostile_files):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    db, _, ids = stored
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "NO_COLOR": "1"}
    run = subprocess.run([sys.executable, "-m", "auditor", "query", "--db", str(db), "--json", "--memory-mb", "384",
                          *map(str, hostile_files)], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, run.stderr
    out = {Path(r["file"]).name: r for r in json.loads(run.stdout)}
    keys = {"file", "error", "skipped", "warnings", "n_words", "n_shingles", "n_sampled", "note", "matches"}
    assert all(set(r) == keys for r in out.values())  # one shape for every file, read or not
    bomb = out["bomb.docx"]
    assert bomb["error"]["code"] == "memory" and bomb["matches"] == [] and bomb["n_words"] is None
    assert ids["lease.txt"] in {m["document"]["doc_id"] for m in out["good.txt"]["matches"]}
    assert out["good.txt"]["error"] is None and out["unrelated.txt"]["error"] is None
    assert out["unrelated.txt"]["matches"] == []
    good = subprocess.run([sys.executable, "-m", "auditor", "query", "--db", str(db), str(hostile_files[0])],
                          env=env, capture_output=True, text=True, timeout=300)
    assert good.returncode == 0 and "1.0000 contained in" in good.stdout


def test_a_submission_is_queried_part_by_part_and_its_image_is_skipped_as_ingest_skips_it(stored, tmp_path):
    """Parts are named as ingest names them (FILE#sequence, else FILE#position); a GRAPHIC part is
    skipped, not an error (exit 0); a link to a file is followed, as ingest follows it."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tests.support.fixtures_build import make_edgar_submission

    db, contract, ids = stored
    sub = tmp_path / "0000950170-22-000796.txt"
    sub.write_bytes(make_edgar_submission(
        {"accession_number": "0000950170-22-000796", "form_type": "8-K", "filing_date": "20220207",
         "company_name": "EXAMPLE HOLDINGS INC", "cik": "0001234567"},
        [{"type": "8-K", "filename": "a.txt", "text": synth.contract(818, 6_000, kind="credit")},
         {"type": "EX-10.1", "filename": "lease.txt", "text": contract},
         {"type": "GRAPHIC", "filename": "logo.gif", "data": b"GIF89a" + bytes(range(200))}]))
    link = tmp_path / "link.txt"
    link.symlink_to(sub)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "NO_COLOR": "1"}
    run = subprocess.run([sys.executable, "-m", "auditor", "query", "--db", str(db), "--json", str(sub), str(link)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert [Path(r["file"]).name for r in out] == [f"{n}#{i}" for n in (sub.name, link.name) for i in (1, 2, 3)]
    part1, part2, image = out[:3]
    assert part1["error"] is None and not any(m["document"]["doc_id"] == ids["lease.txt"] for m in part1["matches"])
    assert {(m["document"]["doc_id"], m["exact"]) for m in part2["matches"]} >= {(ids["lease.txt"], 1.0)}
    assert image["skipped"] == "binary:gif" and image["error"] is None and image["matches"] == []
    assert [r["matches"] for r in out[3:]] == [r["matches"] for r in out[:3]]


def test_the_cli_names_a_stored_copy_once(tmp_path):
    """A file whose stored copy contains it and is contained in it is one line, 'a copy'."""
    from click.testing import CliRunner

    from auditor.cli import cli
    from auditor.corpus.ingest import ingest
    from auditor.store.db import Store
    from tests.support import synth

    text = synth.contract(81, 6_000)
    (tmp_path / "stored.txt").write_text(text)
    (tmp_path / "q.txt").write_text(text + "\n\nSigned.\n")
    with Store(tmp_path / "c.db") as store:
        ingest(store, [tmp_path / "stored.txt"], workers=1)
    r = CliRunner().invoke(cli, ["query", "--db", str(tmp_path / "c.db"), str(tmp_path / "q.txt")])
    assert r.exit_code == 0, r.output
    lines = [x for x in r.output.splitlines() if "stored.txt" in x]
    assert len(lines) == 1 and "contained in 1" in lines[0] and "a copy" in lines[0], r.output


def test_many_texts_at_once_answer_as_each_alone_in_one_pass(stored, monkeypatch):
    """``query_texts`` asks short texts in one pass over the stored texts, and answers each as
    ``query_text`` would, its own documents excluded and its ignored shingles not asked."""
    from auditor.engine import query as q_mod
    from auditor.engine.query import Question, query_texts

    db, contract, ids = stored
    clause = _clause_without_sample(contract)
    with Store(db) as store:
        lease_shingles = distinct(combine(WordHasher(store.params.seed)(words_bytes(contract)), store.params.k))
        questions = [Question(clause), Question(NOTICE), Question(clause, frozenset({ids["lease.txt"]})),
                     Question(contract[:6000]), Question("three words only"),
                     Question(clause + " " + NOTICE, ignore=lease_shingles)]
        alone = [query_text(store, q.text, exclude=q.exclude, ignore=q.ignore) for q in questions]
        passes = []
        real = q_mod.one_pass
        monkeypatch.setattr(q_mod, "one_pass", lambda *a, **k: passes.append(1) or real(*a, **k))
        together = query_texts(store, questions)
    assert len(passes) == 1  # four short texts, one pass
    key = [[(m.doc_id, m.direction, round(m.exact, 6)) for m in r.matches] for r in alone]
    assert [[(m.doc_id, m.direction, round(m.exact, 6)) for m in r.matches] for r in together] == key
    assert {m.doc_id for m in together[0].matches} == {ids["lease.txt"]} and together[2].matches == []
    assert {m.doc_id for m in together[5].matches} == {ids["notice.txt"]}  # the lease's words not asked
