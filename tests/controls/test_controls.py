"""Controls gate every result: they pass on a healthy detector and fail closed on a broken one."""

import json
import re
import shutil

import click
import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.controls import corpus_controls, default_controls_dir, run_controls
from auditor.corpus.ingest import ingest
from auditor.gating import BASELINE_VERSION
from auditor.report.pipeline import audit_job
from auditor.store.db import Store
from tests.support.textgen import write_contract_in_filing


@pytest.fixture
def corpus_dir(tmp_path):
    d = tmp_path / "corpus"
    write_contract_in_filing(d, 61, unrelated=2)
    return d


def test_fixture_and_corpus_controls_pass_on_a_healthy_detector(store, corpus_dir):
    ingest(store, [corpus_dir], workers=1)
    r = run_controls(store, 0.8)
    assert r.passed, r.summary()
    kinds = {(c.source, c.kind) for c in r.results}
    assert kinds == {(s, k) for s in ("fixture", "corpus") for k in ("embedded", "reformatted", "unrelated")}
    for c in r.results:
        if c.kind == "embedded":
            assert c.score >= 0.95 and c.found
        elif c.kind == "reformatted":
            assert c.score >= 0.8 and c.found
        else:
            assert c.score <= 0.1 and not c.found
    assert "embedded-lease 1.0000" in r.summary()


@pytest.mark.slow
def test_corpus_controls_are_deterministic_and_do_not_touch_the_corpus(store, corpus_dir):
    ingest(store, [corpus_dir], workers=1)
    before = store.scalar("SELECT count(*) FROM documents")
    a = [c.as_dict() for c in run_controls(store, 0.8, seed=3).results]
    b = [c.as_dict() for c in run_controls(store, 0.8, seed=3).results]
    assert a == b
    assert store.scalar("SELECT count(*) FROM documents") == before


def test_a_small_corpus_says_why_corpus_controls_did_not_run(store):
    r = run_controls(store, 0.8)
    assert r.passed and "need 2" in r.note
    assert {c.source for c in r.results} == {"fixture"}


def test_a_corpus_of_notices_draws_its_controls_from_them(store, tmp_path):
    """No document of 300 words: the controls come from the 40-word notices, through the
    exhaustive path that audits them."""
    from tests.support import synth

    d = tmp_path / "notices"
    d.mkdir()
    words = synth.contract(62, 30_000).split()
    for i in range(8):
        (d / f"n{i}.txt").write_text(" ".join(words[i * 300:i * 300 + 60]))
    ingest(store, [d], workers=1)
    r = run_controls(store, 0.8)
    corpus = [c for c in r.results if c.source == "corpus"]
    assert r.passed and {c.kind for c in corpus} == {"embedded", "reformatted", "unrelated"}, r.summary()
    assert all(c.score >= 0.95 for c in corpus if c.kind == "embedded")


def test_one_document_that_normalises_to_nothing_is_not_drawn_and_fails_nothing(store, tmp_path):
    """A page of rules or a base64 blob is a document's property, not the tool's: it is left out
    of the draw, and the controls pass on the others."""
    from tests.support import synth

    d = tmp_path / "mixed"
    d.mkdir()
    (d / "a.txt").write_text("x " * 10 + "—·—" * 1500, encoding="utf-8")
    for i in range(3):
        (d / f"c{i}.txt").write_text(synth.contract(70 + i, 8_000))
    ingest(store, [d], workers=1)
    r = run_controls(store, 0.8)
    a = store.scalar("SELECT id FROM documents WHERE path LIKE '%a.txt'")
    corpus = [c for c in r.results if c.source == "corpus"]
    assert r.passed and corpus, r.summary()
    assert all(f"doc {a} " not in c.note and not c.note.endswith(f"doc {a}") for c in corpus)


def test_text_that_normalises_to_nothing_in_most_documents_fails_the_corpus_controls(store, tmp_path):
    d = tmp_path / "lost"
    d.mkdir()
    (d / "a.txt").write_text("x " * 10 + "—·—" * 1500, encoding="utf-8")
    (d / "b.txt").write_text("y " * 10 + "·—·" * 1500, encoding="utf-8")
    (d / "c.txt").write_text("Section 2.")
    ingest(store, [d], workers=1)
    fixtures = default_controls_dir()
    r = run_controls(store, 0.8, directory=fixtures)
    assert not r.passed and r.note == "" and r.directory == str(fixtures)
    [failed] = r.failed
    a = store.scalar("SELECT id FROM documents WHERE path LIKE '%a.txt'")
    assert failed.as_dict() == {
        "name": "corpus-embedded", "kind": "embedded", "source": "corpus", "contained": "-", "container": "-",
        "operator": ">=", "expected": 0.95, "score": 0.0, "estimate": 0.0, "hits": 0, "sampled": 0,
        "found": False, "passed": False,
        "note": f"2 of 2 documents of 2,000+ characters normalise to almost no words (doc {a} first)"}


def _drop_every_word(monkeypatch):
    """A normaliser that drops every word, in this process: every word sequence the audit reads
    (stored ones too, which the extraction children wrote) is what it derives."""
    import auditor.index.builder
    import auditor.text.entry
    from auditor.text.shingle import read_words

    monkeypatch.setattr(auditor.index.builder, "read_words", lambda text, hasher: read_words("", hasher))
    monkeypatch.setattr(auditor.text.entry, "read_words", lambda text, hasher: read_words("", hasher))
    monkeypatch.setattr(auditor.index.builder.Sequences, "_decode", lambda self, doc_id, data, offsets: self.derive(""))


@pytest.mark.slow
def test_a_normaliser_that_drops_every_word_fails_the_controls(store, corpus_dir, monkeypatch, tmp_path):
    ingest(store, [corpus_dir], workers=1)
    _drop_every_word(monkeypatch)
    r = run_controls(store, 0.8)
    assert not r.passed
    assert {c.name for c in r.failed} >= {"embedded-lease", "reformatted-lease-text", "reformatted-lease-pdf"}
    o = audit_job(store, 0.8, out=tmp_path / "report")
    assert o.refused and o.report["status"] == "REFUSED" and o.report["findings"] == []
    assert "summary" not in o.report
    assert store.scalar("SELECT count(*) FROM findings") == 0
    assert store.scalar("SELECT status FROM runs") == "REFUSED"
    on_disk = json.loads((tmp_path / "report" / "report.json").read_text())
    assert on_disk["status"] == "REFUSED" and on_disk["findings"] == []


@pytest.mark.slow
def test_a_sampling_rule_that_keeps_nothing_refuses_the_audit(db_path, corpus_dir, tmp_path):
    runner = CliRunner()
    r = runner.invoke(cli, ["ingest", "--db", str(db_path), "-q", str(corpus_dir)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["index", "--db", str(db_path), "--rebuild", "--modulus", str(2**62)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["audit", "--db", str(db_path), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 2
    assert "controls failed" in r.stderr and "embedded-lease" in r.stderr and "expected >= 0.9500" in r.stderr
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert rep["status"] == "REFUSED" and rep["findings"] == []
    assert "REFUSED" in (tmp_path / "rep" / "report.md").read_text()
    r = runner.invoke(cli, ["controls", "--db", str(db_path)])
    assert r.exit_code == 2 and "FAIL" in r.stdout
    with Store(db_path) as s:
        assert s.scalar("SELECT count(*) FROM findings") == 0


def _flags(command: click.Command) -> list[str]:
    """Every boolean option of a command (``--help`` aside), as typed on the command line."""
    return [p.opts[0] for p in command.params
            if isinstance(p, click.Option) and p.is_flag and p.name != "help"]


@pytest.fixture
def broken_controls(tmp_path):
    """The fixture controls with one real failure: an unrelated pair claimed to be embedded."""
    d = tmp_path / "broken-controls"
    shutil.copytree(default_controls_dir(), d, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    manifest = json.loads((d / "manifest.json").read_text())
    [c] = [c for c in manifest["controls"] if c["name"] == "unrelated-credit"]
    c["kind"], c["min"] = "embedded", 0.95
    c.pop("max", None)
    (d / "manifest.json").write_text(json.dumps(manifest))
    return d


@pytest.mark.slow
def test_no_flag_turns_a_refused_audit_into_a_report(db_path, corpus_dir, broken_controls, tmp_path):
    """Each boolean option of ``audit``, and all of them at once, with a failing control: exit 2,
    a REFUSED report, no finding stored, although the corpus holds a contract inside a filing."""
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", "--db", str(db_path), "-q", str(corpus_dir)]).exit_code == 0
    flags = _flags(cli.commands["audit"])
    assert {"--json", "--verbose", "--allow-empty"} <= set(flags)
    for i, chosen in enumerate([[], *([f] for f in flags), flags]):
        out = tmp_path / f"rep{i}"
        r = runner.invoke(cli, ["audit", "--db", str(db_path), "--controls-dir", str(broken_controls),
                                "--out", str(out), *chosen])
        assert r.exit_code == 2, (chosen, r.output)
        assert "unrelated-credit" in r.stderr, chosen
        rep = json.loads((out / "report.json").read_text())
        assert rep["status"] == "REFUSED" and rep["findings"] == [], chosen
    with Store(db_path) as s:
        assert s.scalar("SELECT count(*) FROM findings") == 0
        assert {r[0] for r in s.conn.execute("SELECT status FROM runs")} == {"REFUSED"}
    # the same corpus with the real controls has the finding: the refusals above were the controls'
    r = runner.invoke(cli, ["audit", "--db", str(db_path), "--out", str(tmp_path / "ok")])
    assert r.exit_code == 0 and json.loads((tmp_path / "ok" / "report.json").read_text())["findings"]


@pytest.mark.slow
def test_no_flag_or_fail_on_setting_lets_a_gate_pass_failed_controls(db_path, corpus_dir, broken_controls,
                                                                   tmp_path):
    """``gate`` likewise, also with ``--fail-on none`` (nothing else fails) and ``--update-baseline``
    (which must not accept anything from a refused run)."""
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", "--db", str(db_path), "-q", str(corpus_dir)]).exit_code == 0
    new = tmp_path / "new"
    new.mkdir()
    (new / "copy.txt").write_text((corpus_dir / "contract.txt").read_text().upper())
    flags = _flags(cli.commands["gate"])
    assert {"--dry-run", "--update-baseline", "--json"} <= set(flags)
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"version": BASELINE_VERSION, "entries": []}))
    for i, chosen in enumerate([["--fail-on", "none"], *([f] for f in flags), [*flags, "--fail-on", "none"]]):
        out = tmp_path / f"gate{i}"
        r = runner.invoke(cli, ["gate", "--db", str(db_path), "--controls-dir", str(broken_controls),
                                "--baseline", str(baseline), "--out", str(out), *chosen, str(new)])
        assert r.exit_code == 2, (chosen, r.output)
        g = json.loads((out / "gate.json").read_text())
        assert g["status"] == "REFUSED" and g["findings"] == [], chosen
        assert json.loads(baseline.read_text())["entries"] == [], chosen
    r = runner.invoke(cli, ["gate", "--db", str(db_path), "--dry-run", "--out", str(tmp_path / "ok"), str(new)])
    assert r.exit_code == 1, r.output  # with the real controls the copy fails the gate


# -- what mutation testing found: the verdict's words, the manifest's checks, the pass bounds -----

def _result(name="c", kind="embedded", score=0.5, found=False, passed=False, note="", operator=">=",
            expected=0.95):
    from auditor.controls import ControlResult

    return ControlResult(name=name, kind=kind, source="fixture", contained="a.txt", container="b.txt",
                         operator=operator, expected=expected, score=score, estimate=score, hits=1,
                         sampled=2, found=found, passed=passed, note=note)


def test_a_failed_control_says_why_in_words():
    assert _result().bound == ">= 0.9500"
    assert _result(note="seeded").failure() == "c (embedded) scored 0.5000, expected >= 0.9500 and to be found [seeded]"
    assert _result(found=True).failure() == "c (embedded) scored 0.5000, expected >= 0.9500"
    assert _result(kind="reformatted", score=0.7, expected=0.8).failure() == (
        "c (reformatted) scored 0.7000, expected >= 0.8000 and to be found")
    unrelated = _result(kind="unrelated", score=0.3, operator="<=", expected=0.1, found=True)
    assert unrelated.failure() == "c (unrelated) scored 0.3000, expected <= 0.1000 and not to be found"
    assert _result(kind="unrelated", score=0.3, operator="<=", expected=0.1).failure() == (
        "c (unrelated) scored 0.3000, expected <= 0.1000")


def test_controls_pass_only_when_some_ran_and_all_passed():
    from auditor.controls import ControlsResult
    from auditor.errors import ControlsFailed

    ok, bad = _result("ok", score=1.0, found=True, passed=True), _result("bad", note="n")
    good = ControlsResult([ok, ok], seed=0, directory=None)
    assert good.passed and good.failed == []
    good.raise_if_failed()  # nothing to say
    assert good.summary() == "ok 1.0000, ok 1.0000"
    mixed = ControlsResult([ok, bad], seed=0, directory=None)
    assert not mixed.passed and mixed.failed == [bad]
    with pytest.raises(ControlsFailed) as e:
        mixed.raise_if_failed()
    assert str(e.value) == bad.failure() and e.value.results == [ok.as_dict(), bad.as_dict()]
    two = ControlsResult([bad, _result("worse")], seed=0, directory=None)
    with pytest.raises(ControlsFailed, match=r"^bad .*; worse "):
        two.raise_if_failed()
    none = ControlsResult([], seed=0, directory=None)
    assert not none.passed  # nothing ran: nothing was shown to work
    with pytest.raises(ControlsFailed, match=r"^no control could be run; refusing to report$") as e:
        none.raise_if_failed()
    assert e.value.results == []


def test_pass_bounds_from_the_manifest_and_their_defaults():
    from auditor.controls import EMBEDDED_MIN, UNRELATED_MAX, _bound

    assert (EMBEDDED_MIN, UNRELATED_MAX) == (0.95, 0.10)
    assert _bound("embedded", 0.8, {}) == (">=", 0.95)
    assert _bound("embedded", 0.8, {"min": "0.9"}) == (">=", 0.9)
    assert _bound("embedded", 0.7, {"min": "threshold"}) == (">=", 0.7)
    assert _bound("reformatted", 0.7, {}) == (">=", 0.7)
    assert _bound("reformatted", 0.7, {"min": 0.85}) == (">=", 0.85)
    assert _bound("unrelated", 0.8, {}) == ("<=", 0.10)
    assert _bound("unrelated", 0.8, {"max": "0.2"}) == ("<=", 0.2)
    assert _bound("unrelated", 0.8, {"max": "threshold", "min": 0.5}) == ("<=", 0.8)


def _manifest(d, controls, files=("a.txt", "b.txt")):
    d.mkdir(exist_ok=True)
    for f in files:
        (d / f).write_text("The Lessee shall pay the rent.")
    (d / "manifest.json").write_text(json.dumps({"controls": controls}))
    return d


def test_a_manifest_that_cannot_be_used_is_refused_with_the_reason(tmp_path):
    from auditor.controls import load_manifest
    from auditor.errors import UsageError

    good = {"name": "x", "kind": "embedded", "contained": "a.txt", "container": "b.txt"}
    assert load_manifest(_manifest(tmp_path / "ok", [good])) == [good]
    for kind in ("reformatted", "unrelated"):
        assert load_manifest(_manifest(tmp_path / kind, [{**good, "kind": kind}]))[0]["kind"] == kind
    with pytest.raises(UsageError, match=r"cannot read the controls manifest .*missing"):
        load_manifest(tmp_path / "missing")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "manifest.json").write_text("{not json")
    with pytest.raises(UsageError, match="cannot read the controls manifest"):
        load_manifest(tmp_path / "junk")
    for bad in ([], {"x": 1}, None):
        with pytest.raises(UsageError, match="lists no controls"):
            load_manifest(_manifest(tmp_path / "empty", bad))
    for top in ("{}", "[1]", "3", "null"):  # not a JSON object: refused the same way, not a crash
        (tmp_path / "empty" / "manifest.json").write_text(top)
        with pytest.raises(UsageError, match="lists no controls"):
            load_manifest(tmp_path / "empty")
    for key in ("name", "kind", "contained", "container"):
        spec = {k: v for k, v in good.items() if k != key}
        with pytest.raises(UsageError, match="bad control"):
            load_manifest(_manifest(tmp_path / f"no-{key}", [good, spec]))
    with pytest.raises(UsageError, match="bad control"):
        load_manifest(_manifest(tmp_path / "kind", [{**good, "kind": "similar"}]))
    with pytest.raises(UsageError, match=r"control file b\.txt is missing"):
        load_manifest(_manifest(tmp_path / "lacks-container", [good], files=("a.txt",)))
    with pytest.raises(UsageError, match=r"control file a\.txt is missing"):
        load_manifest(_manifest(tmp_path / "lacks-contained", [good], files=("b.txt",)))


def test_the_corpus_embedding_cuts_at_a_paragraph_or_line_end():
    from auditor.controls import _paragraph_cut

    text = "first line\nsecond\n\nthird paragraph\nlast"
    assert _paragraph_cut(text, 0.0) == text.index("\n\n") + 2  # a paragraph end first
    assert _paragraph_cut("a\n\nb\n\nc\n\nd", 0.0) == 3  # the first one after the point
    assert text[:_paragraph_cut(text, 0.5)].endswith("third paragraph\n")  # none after: a line end
    assert _paragraph_cut(text, 0.9) == len(text)  # neither: the end
    assert _paragraph_cut("one line", 0.5) == len("one line")


def test_long_text_with_almost_no_words_fails_from_2000_characters(store, tmp_path):
    """The normaliser check counts stored characters: 2,000 of them with 10 words are lost,
    1,999 are not long enough to count. Two lost documents, half of the long ones, fail naming
    the first; one alone is left out of the draw (the corpus is then only too small)."""
    from auditor.controls import corpus_controls

    d = tmp_path / "lost"
    d.mkdir()
    (d / "a.txt").write_text("x " * 10 + "\u2014\u00b7\u2014" * 660)  # 2,000 characters, 10 words
    (d / "c.txt").write_text("z " * 10 + "\u00b7\u2014\u00b7" * 660)  # 2,000 characters, 10 words
    (d / "b.txt").write_text("y " * 10 + "\u2014\u00b7\u2014" * 659 + "\u2014\u00b7")  # 1,999
    ingest(store, [d], workers=1)
    ids = {p.rsplit("/", 1)[-1]: i for i, p in store.conn.execute("SELECT id, path FROM documents")}
    chars = dict(store.conn.execute("SELECT id, n_chars FROM documents"))
    assert (chars[ids["a.txt"]], chars[ids["c.txt"]], chars[ids["b.txt"]]) == (2000, 2000, 1999)
    drawn = corpus_controls(store, 0)
    assert (drawn.files, drawn.controls, drawn.note) == ([], [], "")
    assert drawn.failure is not None and drawn.failure.startswith("2 of 2 documents of 2,000+ characters")
    assert f"(doc {ids['a.txt']} first)" in drawn.failure
    drawn = corpus_controls(store, 0, documents=[ids["a.txt"], ids["b.txt"]])
    assert (drawn.files, drawn.controls, drawn.failure) == ([], [], None) and "need 2" in drawn.note


def test_corpus_controls_draw_only_from_the_documents_audited(store, corpus_dir):
    from auditor.controls import corpus_controls

    ingest(store, [corpus_dir], workers=1)
    every = [r[0] for r in store.conn.execute("SELECT id FROM documents ORDER BY id")]
    drawn = corpus_controls(store, 0)
    files, controls, note = drawn.files, drawn.controls, drawn.note
    assert controls and note == ""
    drawn = corpus_controls(store, 0, documents=every[:1])
    files, controls, note = drawn.files, drawn.controls, drawn.note
    assert (files, controls) == ([], []) and note.startswith("corpus has 1 document(s)")


def _ingest_sized(store, tmp_path, sizes):
    """Documents of the given word counts (unrelated prose), ingested in this order; their ids."""
    from tests.support.textgen import prose

    d = tmp_path / "sized"
    d.mkdir()
    for i, n in enumerate(sizes):
        (d / f"d{i}.txt").write_text(prose(500 + i, n))
    ingest(store, [d], workers=1)
    return [r[0] for r in store.conn.execute("SELECT id FROM documents ORDER BY path")]


def test_the_contained_control_is_drawn_from_the_smaller_half(store, tmp_path):
    """Four documents of 300+ words, the first two stored the longest: the document embedded
    elsewhere is one of the two shortest (so that it fits inside another)."""
    from auditor.controls import corpus_controls

    ids = _ingest_sized(store, tmp_path, [900, 850, 320, 330])
    drawn = set()
    for seed in range(8):
        controls = corpus_controls(store, seed).controls
        drawn.add(int(controls[0]["note"].split()[1]))
    assert drawn == set(ids[2:])  # either of the two, never a longer one


def test_two_long_documents_are_enough_to_draw_from(store, tmp_path):
    """Two documents of 300+ words: the controls come from them alone, not from the notices of
    60-80 words beside them (the shorter one inside the other, and unrelated to it)."""
    from auditor.controls import corpus_controls

    ids = _ingest_sized(store, tmp_path, [300, 300, 60, 70, 80])  # exactly 300 words count
    drawn = corpus_controls(store, 0)
    controls, note = drawn.controls, drawn.note
    assert [c["name"] for c in controls] == ["corpus-embedded", "corpus-reformatted", "corpus-unrelated"]
    assert controls[0]["note"].startswith(f"doc {ids[0]} inserted into doc {ids[1]} ")
    assert controls[2]["note"] == f"doc {ids[0]} against doc {ids[1]}" and note == ""


def test_forty_words_are_enough_when_nothing_is_longer(store, tmp_path):
    from auditor.controls import corpus_controls

    ids = _ingest_sized(store, tmp_path, [40, 40, 39])
    assert [store.scalar("SELECT n_words FROM documents WHERE id = ?", (i,)) for i in ids] == [40, 40, 39]
    controls = corpus_controls(store, 0).controls
    assert controls and controls[0]["note"].startswith(f"doc {ids[0]} inserted into doc {ids[1]} ")


def test_almost_no_words_means_more_than_60_characters_a_word(store, tmp_path):
    """40 words in 2,400 characters (60 a word) are kept; in 2,401 they are lost."""
    from auditor.controls import corpus_controls

    d = tmp_path / "ratio"
    d.mkdir()
    words = "x " * 40  # 80 characters
    (d / "a.txt").write_text(words + "\u00b7" * 2320)
    (d / "b.txt").write_text(words.replace("x", "y") + "\u00b7" * 2321)
    (d / "c.txt").write_text(words.replace("x", "z") + "\u00b7" * 2321)
    ingest(store, [d], workers=1)
    ids = {p.rsplit("/", 1)[-1]: i for i, p in store.conn.execute("SELECT id, path FROM documents")}
    assert dict(store.conn.execute("SELECT id, n_chars FROM documents")) == {
        ids["a.txt"]: 2400, ids["b.txt"]: 2401, ids["c.txt"]: 2401}
    failure = corpus_controls(store, 0).failure
    assert failure is not None and failure.startswith("2 of 3 documents") and f"(doc {ids['b.txt']} first)" in failure
    assert corpus_controls(store, 0, documents=[ids["a.txt"], ids["c.txt"]]).failure is None


def test_a_document_holding_the_drawn_one_is_neither_its_container_nor_unrelated(store, tmp_path):
    """The sampled estimates steer the draw: a document that already holds the drawn document
    would make the embedded control trivial and the unrelated one false, so it is never chosen."""
    from auditor.controls import corpus_controls
    from tests.support.textgen import prose

    d = tmp_path / "related"
    d.mkdir()
    small = prose(701, 320)
    (d / "a.txt").write_text(small)
    (d / "b.txt").write_text(prose(702, 600) + "\n\n" + small)  # holds a.txt
    (d / "c.txt").write_text(prose(703, 330))
    (d / "d.txt").write_text(prose(704, 900))
    ingest(store, [d], workers=1)
    ids = {p.rsplit("/", 1)[-1]: i for i, p in store.conn.execute("SELECT id, path FROM documents")}
    holder, seen = ids["b.txt"], 0
    for seed in range(12):
        controls = corpus_controls(store, seed).controls
        if controls[0]["note"].startswith(f"doc {ids['a.txt']} "):
            seen += 1
            assert f"into doc {holder} " not in controls[0]["note"]
            assert controls[2]["note"] != f"doc {ids['a.txt']} against doc {holder}"
    assert seen  # a.txt was drawn


# -- how corpus-drawn controls are drawn: the boundaries of the draw ---------------------------

def _sampled_windows(text):
    """The 5-word windows of ``text`` whose shingle is sampled, one per distinct sampled shingle."""
    from auditor.text.normalize import words
    from auditor.text.shingle import DEFAULT_PARAMS, shingle_hashes

    ws, seen, out = words(text), set(), []
    for i, h in enumerate(shingle_hashes(text).tolist()):
        if h % DEFAULT_PARAMS.modulus == 0 and h not in seen:
            seen.add(h)
            out.append(" ".join(ws[i : i + DEFAULT_PARAMS.k]))
    return out


def _text_with_samples(n, seed, suffix=""):
    """Prose of 300-420 words (then ``suffix``) with exactly ``n`` sampled shingles."""
    from tests.support.textgen import prose

    for s in range(seed, seed + 100):
        tokens = prose(s, 420).split()
        for m in range(300, 420):
            text = " ".join(tokens[:m]) + suffix + "\n"
            if len(_sampled_windows(text)) == n:
                return text
    raise AssertionError(f"no prose with {n} sampled shingles")


def _write_and_ingest(store, d, texts):
    d.mkdir()
    for name, text in texts.items():
        (d / name).write_text(text)
    ingest(store, [d], workers=1)
    return {p.rsplit("/", 1)[-1]: i for i, p in store.conn.execute("SELECT id, path FROM documents")}


def _shared_samples(store, a, b):
    import numpy as np

    def of(i):
        return set(np.frombuffer(store.scalar("SELECT sampled FROM index_docs WHERE doc_id = ?", (i,)),
                                 dtype=np.uint64).tolist())
    return len(of(a) & of(b)), len(of(a))


def _drawn(controls):
    """(contained, container, unrelated or None) document ids named in the controls' notes."""
    words = controls[0]["note"].split()
    unrelated = int(controls[2]["note"].split()[-1]) if len(controls) == 3 else None
    return int(words[1]), int(words[5]), unrelated


def test_unrelated_means_an_estimate_of_at_most_half_the_unrelated_bound(store, tmp_path):
    """Sharing 1 of the drawn document's 20 samples (0.05 = UNRELATED_MAX / 2) is unrelated; 2 of
    them (0.10) is not, although either may hold the embedded copy."""
    from tests.support.textgen import prose

    a = _text_with_samples(20, 900)
    win = _sampled_windows(a)
    ids = _write_and_ingest(store, tmp_path / "edge", {
        "a.txt": a,
        "b.txt": prose(811, 600) + "\n\n" + win[3] + "\n\n" + prose(812, 100),
        "c.txt": prose(813, 700) + "\n\n" + win[5] + "\n\n" + win[11] + "\n\n" + prose(814, 100),
    })
    assert _shared_samples(store, ids["a.txt"], ids["b.txt"]) == (1, 20)
    assert _shared_samples(store, ids["a.txt"], ids["c.txt"]) == (2, 20)
    containers = set()
    for seed in range(10):
        drawn = corpus_controls(store, seed)
        controls, note = drawn.controls, drawn.note
        a_id, c_id, b_id = _drawn(controls)
        assert (a_id, b_id, note) == (ids["a.txt"], ids["b.txt"], "")
        containers.add(c_id)
    assert containers == {ids["b.txt"], ids["c.txt"]}


def test_a_container_shares_less_than_half_of_the_drawn_documents_samples(store, tmp_path):
    """A document holding exactly half of the drawn one's samples already holds too much of it to
    embed it in: the embedded control goes into the other one."""
    from tests.support.textgen import prose

    a = _text_with_samples(20, 950)
    win = _sampled_windows(a)
    ids = _write_and_ingest(store, tmp_path / "half", {
        "a.txt": a,
        "half.txt": prose(821, 600) + "\n\n" + "\n\n".join(win[:10]) + "\n\n" + prose(822, 100),
        "other.txt": prose(823, 700),
    })
    assert _shared_samples(store, ids["a.txt"], ids["half.txt"]) == (10, 20)
    for seed in range(10):
        controls = corpus_controls(store, seed).controls
        assert _drawn(controls) == (ids["a.txt"], ids["other.txt"], ids["other.txt"])


def test_the_drawn_document_is_never_its_own_container(store, tmp_path):
    """Every other document holds the drawn one: one of them is the container, not the drawn
    document itself, and nothing is unrelated to it."""
    from tests.support.textgen import prose

    a = prose(831, 320)
    ids = _write_and_ingest(store, tmp_path / "held", {
        "a.txt": a, "b.txt": prose(832, 600) + "\n\n" + a, "c.txt": prose(833, 700) + "\n\n" + a})
    containers = set()
    for seed in range(12):
        drawn = corpus_controls(store, seed)
        controls, note = drawn.controls, drawn.note
        a_id, c_id, b_id = _drawn(controls)
        assert a_id == ids["a.txt"] and b_id is None and "corpus-unrelated not run" in note
        containers.add(c_id)
    assert containers == {ids["b.txt"], ids["c.txt"]}


def test_the_unrelated_document_is_not_the_container(store, tmp_path):
    ids = _ingest_sized(store, tmp_path, [320, 900, 950, 1000])
    for seed in range(8):
        controls = corpus_controls(store, seed).controls
        a_id, c_id, b_id = _drawn(controls)
        assert len({a_id, c_id, b_id}) == 3 and a_id in ids[:2]


def test_only_the_shorter_of_two_documents_is_drawn(store, tmp_path):
    ids = _ingest_sized(store, tmp_path, [400, 320])
    assert {_drawn(corpus_controls(store, seed).controls) for seed in range(8)} == {(ids[1], ids[0], ids[0])}


def test_the_draw_goes_on_past_a_document_everything_holds(store, tmp_path):
    """a1 is inside every other document, so nothing is unrelated to it; a2 (a1 and 9,000 more
    words) shares at most 5% of its samples with any other: whichever is drawn first, the
    controls come from a2, with an unrelated one."""
    from tests.support.textgen import prose

    a1 = prose(841, 300)
    ids = _write_and_ingest(store, tmp_path / "past", {
        "a1.txt": a1, "a2.txt": a1 + "\n\n" + prose(842, 9000),
        "h1.txt": prose(843, 10000) + "\n\n" + a1, "h2.txt": prose(844, 10200) + "\n\n" + a1})
    for other in ("a1.txt", "h1.txt", "h2.txt"):
        shared, n = _shared_samples(store, ids["a2.txt"], ids[other])
        assert shared <= 0.05 * n
    for seed in range(8):
        drawn = corpus_controls(store, seed)
        controls, note = drawn.controls, drawn.note
        assert note == "" and _drawn(controls)[0] == ids["a2.txt"]


def test_a_corpus_of_variants_stops_drawing_after_draws_documents(store, tmp_path, monkeypatch):
    """Every document is a variant of every other, so no draw finds an unrelated one: the draw
    stops after DRAWS documents (one estimate each) instead of trying every document."""
    from auditor import controls as controls_module
    from auditor.index.sampled import SampledIndex
    from tests.support.textgen import prose

    base = prose(851, 320)
    _write_and_ingest(store, tmp_path / "variants",
                      {f"v{i}.txt": base + prose(860 + i, 8) for i in range(6)})
    calls = []
    hits_of = SampledIndex.hits_of
    monkeypatch.setattr(SampledIndex, "hits_of", lambda self, h: calls.append(1) or hits_of(self, h))
    monkeypatch.setattr(controls_module, "DRAWS", 2)
    drawn = corpus_controls(store, 0)
    controls, note = drawn.controls, drawn.note
    assert len(calls) == 2 and len(controls) == 2
    assert note == "no corpus document is unrelated to another; corpus-unrelated not run"
    calls.clear()
    monkeypatch.setattr(controls_module, "DRAWS", 25)
    controls = corpus_controls(store, 0).controls
    assert len(calls) == 3 and len(controls) == 2  # the smaller half: all 3 tried


def test_the_embedded_control_is_the_container_with_the_drawn_document_inserted_whole(store, tmp_path):
    """The drawn text goes in verbatim (only its outer newlines trimmed) as its own paragraphs, at
    a line or paragraph end 30-70% of the way into the container; the reformatted copy is laid
    out from the seed the note names, and the same seed gives the same files."""
    from tests.support import synth
    from tests.support.textgen import prose

    ids = _write_and_ingest(store, tmp_path / "whole", {
        "a.txt": "\n\nXerxes " + prose(871, 320) + " LUX \n",
        "b.txt": prose(872, 900), "c.txt": prose(873, 1000)})
    cuts = set()
    for seed in range(8):
        drawn = corpus_controls(store, seed)
        files, controls = drawn.files, drawn.controls
        assert files == corpus_controls(store, seed).files
        f = dict(files)
        a_id, c_id, _ = _drawn(controls)
        a_text, c_text = store.text(a_id), store.text(c_id)
        assert a_id == ids["a.txt"]
        cut = int(controls[0]["note"].split()[-1])
        assert 0.3 * len(c_text) <= cut < len(c_text) and c_text[cut - 1] == "\n"
        assert f["corpus-a.txt"] == a_text
        assert f["corpus-container.txt"] == (c_text[:cut] + "\n\n" + "Xerxes " + a_text.split("Xerxes ", 1)[1]
                                             .rstrip("\n") + "\n\n" + c_text[cut:])
        assert f["corpus-a-reformatted.txt"] == synth.reformat(a_text, seed)
        assert controls[1]["note"] == f"doc {a_id} re-laid-out (seed {seed})"
        cuts.add(cut)
    assert len(cuts) > 1


# -- how a control is scored -------------------------------------------------------------------

def _scored_fixture(d):
    """A manifest directory: a 400-word text, a filing holding it, a document holding 60% of its
    words, an unrelated one and one with no word at all."""
    from tests.support.textgen import prose

    d.mkdir()
    a = prose(901, 400)
    words = a.split()
    (d / "a.txt").write_text(a)
    (d / "b.txt").write_text(prose(902, 600) + "\n\n" + a + "\n\n" + prose(903, 300))
    (d / "part.txt").write_text(" ".join(words[: len(words) * 3 // 5]) + "\n\n" + prose(904, 300))
    (d / "u.txt").write_text(prose(905, 500))
    (d / "nowords.txt").write_text("\u2014 \u00a7 \u00b6 \u2014\n", encoding="utf-8")
    return d


def _controls(d, controls):
    (d / "manifest.json").write_text(json.dumps({"controls": controls}))
    return d


def test_a_control_result_reports_the_files_and_what_was_measured(store, tmp_path):
    """Names, notes (none: ""), the exact score, the sampled estimate as hits / sampled over the
    contained file's own samples; a contained file without a word scores 0."""
    from auditor.text.shingle import shingle_text

    d = _controls(_scored_fixture(tmp_path / "fx"), [
        {"name": "emb", "kind": "embedded", "contained": "a.txt", "container": "b.txt", "note": "in the filing"},
        {"name": "far", "kind": "unrelated", "contained": "a.txt", "container": "u.txt"},
        {"name": "blank", "kind": "unrelated", "contained": "nowords.txt", "container": "u.txt"},
    ])
    r = {c.name: c for c in run_controls(store, 0.8, directory=d, corpus=False).results}
    sampled = len(shingle_text((d / "a.txt").read_text()).sampled)
    assert sampled > 10
    emb, far, blank = r["emb"], r["far"], r["blank"]
    assert (emb.contained, emb.container, emb.note, emb.score, emb.found) == ("a.txt", "b.txt", "in the filing", 1.0, True)
    assert (emb.hits, emb.sampled, emb.estimate) == (sampled, sampled, 1.0)
    assert (far.contained, far.container, far.note, far.found, far.sampled) == ("a.txt", "u.txt", "", False, sampled)
    assert far.hits == 0 and far.estimate == 0.0 and far.passed
    assert (blank.score, blank.hits, blank.sampled, blank.found, blank.passed) == (0.0, 0, 0, False, True)


def test_a_score_equal_to_its_bound_passes_and_the_audit_runs_at_the_given_threshold(store, tmp_path):
    """part.txt holds 60% of a.txt: at that very threshold the audit reports it (so it is found)
    and a reformatted control bounded by the threshold passes; so does an unrelated one whose
    score equals its max."""
    part = {"name": "part", "kind": "reformatted", "contained": "a.txt", "container": "part.txt"}
    d = _controls(_scored_fixture(tmp_path / "fx"), [part])
    [first] = run_controls(store, 0.8, directory=d, corpus=False).results
    s = first.score
    assert 0.5 < s < 0.7 and not first.found and not first.passed
    _controls(d, [part, {"name": "far", "kind": "unrelated", "contained": "a.txt", "container": "u.txt", "max": 0.0}])
    second = {c.name: c for c in run_controls(store, s, directory=d, corpus=False).results}
    assert second["part"].found and second["part"].expected == s and second["part"].passed
    assert second["far"].score == second["far"].expected == 0.0 and second["far"].passed


def test_a_control_file_that_cannot_be_ingested_is_refused(store, tmp_path):
    from auditor.errors import UsageError

    d = _manifest(tmp_path / "fx", [{"name": "e", "kind": "embedded", "contained": "a.txt", "container": "b.txt"}])
    (d / "a.txt").write_bytes(b"")
    (d / "b.txt").write_bytes(b"")
    with pytest.raises(UsageError) as e:
        run_controls(store, 0.8, directory=d, corpus=False)
    assert re.fullmatch(r"fixture control documents could not be ingested: a\.txt \(empty: [^()]+\); "
                        r"b\.txt \(empty: [^()]+\)", str(e.value)), str(e.value)


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_controls_run_under_an_ascii_locale_with_documents_that_are_not(tmp_path):
    """A CI container with LANG=C and UTF-8 mode off writes text files as ASCII by default: the
    control files (curly quotes, accents) are written as UTF-8 all the same."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tests.support.textgen import prose

    d = tmp_path / "docs"
    d.mkdir()
    for i in range(4):
        (d / f"d{i}.txt").write_text("\u201cCaf\u00e9 r\u00e9sum\u00e9\u201d " + prose(990 + i, 400 + 50 * i), encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0", "PYTHONPATH": str(root)}
    script = ("import locale, sys\n"
              "from auditor.controls import run_controls\nfrom auditor.corpus.ingest import ingest\nfrom auditor.store.db import Store\n"
              "import codecs\n"
              "if codecs.lookup(locale.getpreferredencoding(False)).name != 'ascii':\n"
              "    print('not ascii'); sys.exit(0)\n"
              f"with Store({str(tmp_path / 'c.db')!r}) as s:\n"
              f"    ingest(s, [{str(d)!r}], workers=1)\n"
              "    r = run_controls(s, 0.8)\n"
              "    print(r.passed, sorted({c.source for c in r.results}))\n")
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    if run.stdout.strip() == "not ascii":  # this C library's C locale is UTF-8 (musl)
        pytest.skip("the C locale is not ASCII here")
    assert run.stdout.split("\n")[-2] == "True ['corpus', 'fixture']"


@pytest.mark.slow
def test_run_controls_defaults_to_threshold_0_8_and_seed_0(store, corpus_dir):
    ingest(store, [corpus_dir], workers=1)
    default = run_controls(store)
    assert default.seed == 0 and default.passed
    assert [c.as_dict() for c in default.results] == [c.as_dict() for c in run_controls(store, 0.8, seed=0).results]
    assert {c.expected for c in default.results if c.kind == "reformatted" and c.source == "corpus"} == {0.8}


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_run_controls_draws_with_its_seed_from_the_documents_audited(store, corpus_dir):
    ingest(store, [corpus_dir], workers=1)
    every = [r[0] for r in store.conn.execute("SELECT id FROM documents ORDER BY id")]
    for seed in (0, 3):
        r = run_controls(store, 0.8, seed=seed)
        drawn = [c["note"] for c in corpus_controls(store, seed).controls]
        assert [c.note for c in r.results if c.source == "corpus"] == drawn and f"(seed {seed})" in drawn[1]
    one = run_controls(store, 0.8, documents=every[:1])
    assert one.note.startswith("corpus has 1 document(s)") and {c.source for c in one.results} == {"fixture"}
    assert run_controls(store, 0.8, corpus=False).note == ""


def test_no_controls_directory_is_refused_with_what_to_do(store, monkeypatch):
    from auditor import controls as controls_module
    from auditor.errors import UsageError

    monkeypatch.setattr(controls_module, "default_controls_dir", lambda: None)
    with pytest.raises(UsageError, match=r"^no controls directory: this installation carries no fixture controls "
                                         r"\(auditor/_data/controls\); set AUDITOR_CONTROLS or --controls-dir$"):
        run_controls(store, 0.8)


def test_a_sampled_hash_whose_bits_spell_nan_counts_in_the_draw(store, tmp_path):
    """The draw reads the stored 8-byte hashes as integers. Read as float64, the 1 in 2,048 whose
    bits spell NaN would match nothing: a document holding half of the drawn one's samples, this
    one among them, would look like it held less than half and could become the container."""
    import numpy as np

    from auditor.text.shingle import shingle_hashes
    from tests.support.textgen import prose

    nan_window = "zulabeci carahi bulehofo pozolufu kigiduka"
    [h] = shingle_hashes(nan_window).tolist()
    assert h % 16 == 0 and np.isnan(np.frombuffer(np.uint64(h).tobytes(), np.float64)[0])
    a = _text_with_samples(20, 980, suffix=" " + nan_window)
    win = _sampled_windows(a)
    assert nan_window in win
    half = [nan_window, *[w for w in win if w != nan_window][:9]]
    ids = _write_and_ingest(store, tmp_path / "nan", {
        "a.txt": a,
        "half.txt": prose(891, 600) + "\n\n" + "\n\n".join(half) + "\n\n" + prose(892, 100),
        "other.txt": prose(893, 700),
    })
    assert _shared_samples(store, ids["a.txt"], ids["half.txt"]) == (10, 20)
    for seed in range(10):
        controls = corpus_controls(store, seed).controls
        assert _drawn(controls) == (ids["a.txt"], ids["other.txt"], ids["other.txt"])


@pytest.mark.slow  # 5 s or more on a loaded two-core machine
def test_the_fixture_controls_are_read_from_the_cache_under_the_same_key(store, corpus_dir, tmp_path, monkeypatch):
    """A second audit reads the fixture controls' result recorded by the first (same code,
    parameters, threshold and fixtures): the same report digest, the run block says so, and
    verify (which never reads the cache) agrees. Another threshold is another key."""
    from auditor.controls import cache_dir, fixture_key
    from auditor.report.pipeline import verify

    monkeypatch.delenv("AUDITOR_NO_CACHE")
    monkeypatch.setenv("AUDITOR_CACHE", str(tmp_path / "cache"))
    ingest(store, [corpus_dir], workers=1)
    first = audit_job(store, 0.8, out=tmp_path / "r1")
    assert "controls_cache" not in first.report["run"]
    key = fixture_key(store.params, 0.8, default_controls_dir())
    assert (cache_dir() / "controls" / f"{key}.json").is_file()
    second = audit_job(store, 0.8, out=tmp_path / "r2")
    assert second.report["run"]["controls_cache"].endswith(f"(key {key[:16]})")
    assert second.report["digest"] == first.report["digest"]
    assert "fixture controls read from the cache" in (tmp_path / "r2" / "report.md").read_text()
    assert verify(tmp_path / "r2", store).ok
    third = audit_job(store, 0.85, out=tmp_path / "r3")
    assert "controls_cache" not in third.report["run"]  # another key
    (cache_dir() / "controls" / f"{key}.json").write_text("{not json")
    assert "controls_cache" not in audit_job(store, 0.8, out=tmp_path / "r4").report["run"]  # unreadable: run again


def test_a_gates_corpus_controls_are_drawn_from_its_batch(store, tmp_path):
    """draw_from (a gate's new documents): the contained document is one of them, the rest of
    the draw comes from at most GATE_EXTRA other documents, and the same call draws the same."""
    from tests.support import synth

    for i in range(12):
        (tmp_path / f"c{i:02d}.txt").write_text(synth.contract(100 + i, 6_000))
    ingest(store, [tmp_path], workers=1)
    batch = [3, 7]
    drawn = corpus_controls(store, 0, None, draw_from=batch)
    controls, note = drawn.controls, drawn.note
    assert note == "" and controls[0]["note"].split(" inserted")[0] in ("doc 3", "doc 7")
    assert corpus_controls(store, 0, None, draw_from=batch) == drawn
    whole = corpus_controls(store, 0, None)
    assert whole.controls[0]["note"].split(" inserted")[0] not in ("doc 3", "doc 7") or whole != drawn


def test_the_unrelated_control_is_checked_on_every_shingle_before_use(store, tmp_path):
    """A sampled estimate of 0 can hide a 0.15 overlap: the drawn document is replaced by one
    that is unrelated on every shingle, and none is used when none of the pool is."""
    from auditor.controls import _truly_unrelated
    from tests.support import synth

    words = synth.contract(63, 30_000).split()
    a = " ".join(words[:400])
    d = tmp_path / "docs"
    d.mkdir()
    (d / "a.txt").write_text(a)
    (d / "overlapping.txt").write_text(" ".join(words[:100] + words[2000:2600]))  # a quarter of a
    (d / "unrelated.txt").write_text(" ".join(synth.contract(64, 30_000, kind="lease").split()[:600]))
    ingest(store, [d], workers=1)
    ids = {p.rsplit("/", 1)[-1]: i for i, p in store.conn.execute("SELECT id, path FROM documents")}
    over, free = ids["overlapping.txt"], ids["unrelated.txt"]
    assert _truly_unrelated(store, a, over, sorted([over, free])) == free
    assert _truly_unrelated(store, a, free, sorted([over, free])) == free
    assert _truly_unrelated(store, a, over, [over]) is None


def test_corpus_controls_read_the_sampled_sets_of_a_seeded_subset(store, corpus_dir, monkeypatch):
    """The draw's cost must not grow with the corpus: past CORPUS_POOL documents it reads the
    sampled sets of a seeded subset of that many, the same one for the same seed."""
    import auditor.controls as controls

    ingest(store, [corpus_dir], workers=1)
    asked: list[list[int]] = []
    real = store.select_in

    def spy(sql, ids):
        ids = list(ids)
        if "i.sampled" in sql:
            asked.append(sorted(ids))
        return real(sql, ids)

    monkeypatch.setattr(store, "select_in", spy)
    corpus_controls(store, 5)
    every = asked[-1]
    assert len(every) > 3
    monkeypatch.setattr(controls, "CORPUS_POOL", 3)
    first = corpus_controls(store, 5)
    assert len(asked[-1]) == 3 and set(asked[-1]) < set(every)
    assert corpus_controls(store, 5) == first and len(set(map(tuple, asked[-2:]))) == 1
