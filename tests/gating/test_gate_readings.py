"""The gate audits every other reading of a new document (``auditor.gating.readings``): a stored
contract found under a reading is a finding that names the reading; an unrelated reading adds
none; a reading never counts against its own document."""

from __future__ import annotations

from pathlib import Path

from auditor.corpus.ingest import ingest
from auditor.gating.batch import batch_view
from auditor.gating.classify import Locator
from auditor.gating.findings import Finding
from auditor.gating.readings import reading_findings
from auditor.store.db import Store
from auditor.text.entry import prepare_text
from auditor.text.shingle import WordHasher
from tests.support import synth


def _reading(store: Store, doc_id: int, name: str, text: str) -> None:
    p = prepare_text(text, store.params, WordHasher(store.params.seed))
    with store.write():
        store.insert_reading(doc_id, {"name": name, "why": "test", "text": text, **{
            k: p[k] for k in ("n_words", "n_shingles", "norm_sha256")}})


def _gate_view(tmp_path: Path, store: Store, files: dict[str, str]):
    batch = tmp_path / "batch"
    batch.mkdir()
    for name, text in files.items():
        (batch / name).write_text(text)
    result = ingest(store, sorted(batch.iterdir()), batch="new", gating=True, workers=1)
    return batch_view(store, result)


def test_a_contract_under_a_reading_is_a_finding_naming_the_reading(tmp_path, store):
    lease, credit = synth.contract(11, 6_000, kind="lease"), synth.contract(12, 6_000, kind="credit")
    (tmp_path / "lease.txt").write_text(lease)
    ingest(store, [tmp_path / "lease.txt"], batch="corpus", workers=1)
    view = _gate_view(tmp_path, store, {"decoy.txt": synth.contract(13, 3_000, kind="supply"),
                                        "other.txt": synth.contract(14, 3_000, kind="consulting")})
    decoy, other = (s.doc_id for s in view.sightings)
    _reading(store, decoy, "html:all-text", synth.contract(15, 4_000, kind="supply") + "\n\n" + lease)
    _reading(store, other, "html:all-text", credit)
    _reading(store, decoy, "html:logical-order", synth.contract(13, 3_000, kind="supply") + " extra words here")
    found = reading_findings(store, view, 0.8, Locator(store, tmp_path), [])
    assert [(f.kind, f.reading, f.new["doc_id"], f.other["path"]) for f in found] == [
        ("corpus-in-new", "html:all-text", decoy, str(tmp_path / "lease.txt"))]
    assert found[0].containment >= 0.99 and found[0].spans
    assert "read as html:all-text" in found[0].sentence()
    assert found[0].as_dict()["reading"] == "html:all-text"


def test_a_reading_already_covered_by_the_visible_text_adds_nothing(tmp_path, store):
    lease = synth.contract(21, 6_000, kind="lease")
    (tmp_path / "lease.txt").write_text(lease)
    ingest(store, [tmp_path / "lease.txt"], batch="corpus", workers=1)
    view = _gate_view(tmp_path, store, {"copy.txt": lease + "\n\nSigned."})
    (copy,) = (s.doc_id for s in view.sightings)
    _reading(store, copy, "html:all-text", lease + " more hidden words that change nothing")
    f = reading_findings(store, view, 0.8, Locator(store, tmp_path), [])
    assert [(x.kind, x.new_is_contained) for x in f] == [("new-in-corpus", True)]  # mutual: one finding
    visible = [Finding("new-in-corpus", {"doc_id": copy, "path": "x"}, {"path": "y"}, True, 1.0)]
    assert reading_findings(store, view, 0.8, Locator(store, tmp_path), visible) == []


def test_show_lists_the_other_readings(tmp_path, store):
    from auditor.corpus.document import document_view, lines

    (tmp_path / "a.txt").write_text(synth.contract(31, 3_000, kind="lease"))
    ingest(store, [tmp_path / "a.txt"], workers=1)
    _reading(store, 1, "docx:changes-rejected", synth.contract(32, 2_000, kind="credit"))
    shown = "\n".join(lines(document_view(store, 1)))
    assert "other reading docx:changes-rejected:" in shown and "(test)" in shown
    assert document_view(store, 1, with_text=True)["readings"][0]["text"].startswith(
        synth.contract(32, 2_000, kind="credit")[:40])


def test_a_failing_gates_report_leads_with_its_verdict_and_verifies(tmp_path):
    """report.html/md/json of a gate say FAILED, with gate.json's counts, and verify against the run the
    store recorded (its batch was rolled back, so nothing is recomputed)."""
    import json

    from auditor.gating.admission import GateOptions, run_gate
    from auditor.report.pipeline import verify

    lease = synth.contract(41, 12_000)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "lease.txt").write_text(lease)
    (tmp_path / "corpus" / "credit.txt").write_text(synth.contract(42, 12_000))
    (tmp_path / "corpus" / "f.txt").write_text(synth.filing(45, 40_000)[0])
    db = tmp_path / "c.db"
    with Store(db) as store:
        ingest(store, [tmp_path / "corpus"], batch="corpus", workers=1)
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "filing.txt").write_text(synth.filing(43, 30_000)[0] + "\n\n" + lease)
    (tmp_path / "new" / "clean.txt").write_text(synth.contract(44, 12_000))
    g = run_gate(GateOptions(db=db, inputs=[tmp_path / "new"], batch="new", out=tmp_path / "gate", workers=1))
    assert g.status == "FAILED"
    report = json.loads((tmp_path / "gate" / "report.json").read_text())
    gate_json = json.loads((tmp_path / "gate" / "gate.json").read_text())
    assert report["gate"]["status"] == gate_json["status"] == "FAILED"
    assert report["gate"]["counts"] == gate_json["counts"] and gate_json["counts"]["failing"] == 1
    html = (tmp_path / "gate" / "report.html").read_text()
    assert "<title>CI gate: FAILED</title>" in html and "Containment audit: OK" not in html
    assert html.index("Gate verdict") < html.index('id="contained"')
    assert (tmp_path / "gate" / "report.md").read_text().startswith("# CI gate: **FAILED**")
    with Store(db) as store:  # its batch was rolled back: its files are checked against the run's record
        v = verify(tmp_path / "gate", store)
    assert v.ok and v.notes and "did not admit its batch (FAILED)" in v.notes[0], v
    with Store(db) as store:  # the store recorded the run: another run's report is not this one
        store.conn.execute("UPDATE runs SET digest = ? WHERE run_id = ?", ("0" * 64, g.run_id))
        v = verify(tmp_path / "gate", store)
        store.conn.execute("UPDATE runs SET digest = ? WHERE run_id = ?", (g.digest, g.run_id))
    assert not v.ok and any("another digest" in p for p in v.problems), v.problems
    gate_json["counts"]["failing"] = 0  # gate.json and the report must agree
    (tmp_path / "gate" / "gate.json").write_text(json.dumps(gate_json))
    with Store(db) as store:
        v = verify(tmp_path / "gate", store)
    assert not v.ok and any("gate.json says counts" in p for p in v.problems)


# -- EDGAR: what lies outside the documents, and HTML parts as plain text ----------------------

import pytest  # noqa: E402

from tests.support.fixtures_build import make_edgar_submission  # noqa: E402

EDGAR_HEADER = {"accession_number": "0000950123-24-000077", "form_type": "8-K", "filing_date": "20240301",
                "company_name": "ACME CORP", "cik": "0000123456"}


@pytest.fixture(scope="module")
def edgar_corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("edgar-readings")
    lease = synth.contract(51, 12_000)
    (d / "corpus").mkdir()
    (d / "corpus" / "lease.txt").write_text(lease)
    (d / "corpus" / "credit.txt").write_text(synth.contract(52, 12_000))
    (d / "corpus" / "f.txt").write_text(synth.filing(53, 40_000)[0])
    with Store(d / "c.db") as store:
        ingest(store, [d / "corpus"], batch="corpus", workers=1)
    return d, lease


def _submission(body: str, **where: str) -> bytes:
    """An 8-K whose press release is ``body``; ``where`` puts extra text in the header, between
    the documents, after the last, before <TEXT>, or after an early </DOCUMENT>."""
    data = make_edgar_submission(EDGAR_HEADER, [
        {"type": "8-K", "filename": "8k.txt", "text": synth.contract(54, 3_000)},
        {"type": "EX-99.1", "filename": "ex99.htm", "text": body}])
    if "header" in where:
        data = data.replace(b"</SEC-HEADER>", where["header"].encode() + b"\n</SEC-HEADER>")
    if "between" in where:
        data = data.replace(b"</DOCUMENT>\n<DOCUMENT>", b"</DOCUMENT>\n" + where["between"].encode() + b"\n<DOCUMENT>")
    if "after" in where:
        data = data.replace(b"</SEC-DOCUMENT>", where["after"].encode() + b"\n</SEC-DOCUMENT>")
    if "before_text" in where:
        data = data.replace(b"<TEXT>", where["before_text"].encode() + b"\n<TEXT>", 1)
    if "early_end" in where:
        data = data.replace(b"<TEXT>\n", b"<TEXT>\nA short first part.\n</DOCUMENT>\n" + where["early_end"].encode() + b"\n", 1)
    return data


def _gate_file(d: Path, name: str, data: bytes):
    from auditor.gating.admission import GateOptions, run_gate

    (d / "new").mkdir(exist_ok=True)
    f = d / "new" / name
    f.write_bytes(data)
    return run_gate(GateOptions(db=d / "c.db", inputs=[f], batch=name, dry_run=True, out=d / f"out-{name}",
                                workers=1))


@pytest.mark.parametrize("where", ["header", "between", "after", "before_text", "early_end"])
@pytest.mark.slow
def test_a_contract_outside_the_documents_of_a_submission_fails_the_gate(edgar_corpus, where):
    d, lease = edgar_corpus
    g = _gate_file(d, f"{where}.txt", _submission("<p>A short press release.</p>", **{where: lease}))
    assert g.status == "FAILED"
    failing = [f for f in g.findings if f.level == "error" and f.kind != "not-auditable"]
    assert failing and all(f.other and f.other["path"].endswith("lease.txt") for f in failing), g.findings
    assert any(f.reading == "edgar:outside-documents" for f in failing) or where == "early_end"


@pytest.mark.slow
def test_a_contract_an_html_part_hides_from_a_browser_is_read_as_plain_text(edgar_corpus):
    d, lease = edgar_corpus
    release = synth.contract(56, 5_000)
    hidden = f"<html><body><p>{release}</p><!-- " + lease.replace("-->", "") + "</body></html>"
    g = _gate_file(d, "comment.txt", _submission(hidden))
    failing = [f for f in g.findings if f.level == "error"]
    assert g.status == "FAILED" and [(f.kind, f.reading) for f in failing] == [("corpus-in-new", "edgar:as-plain-text")]


@pytest.mark.slow
def test_a_clean_submission_passes_with_its_readings(edgar_corpus):
    d, _ = edgar_corpus
    g = _gate_file(d, "clean.txt", _submission("<p>" + synth.contract(55, 4_000) + "</p>"))
    assert g.status == "PASSED", [f.sentence() for f in g.findings]


@pytest.mark.slow
def test_a_document_is_not_auditable_for_its_own_fault_not_for_another_copys(tmp_path):
    """Two new documents with the same normalised text: the one whose file cannot be read as a
    reader reads it (a .docx with two entries of one part) fails closed; the clean one does not
    inherit its fault."""
    import warnings
    import zipfile

    from auditor.gating.admission import GateOptions, run_gate
    from tests.support.fixtures_build import make_docx

    (tmp_path / "corpus").mkdir()
    for i, seed in enumerate((61, 62)):
        (tmp_path / "corpus" / f"c{i}.txt").write_text(synth.contract(seed, 12_000))
    (tmp_path / "corpus" / "f.txt").write_text(synth.filing(63, 40_000)[0])
    db = tmp_path / "c.db"
    with Store(db) as store:
        ingest(store, [tmp_path / "corpus"], batch="corpus", workers=1)
    text = synth.contract(64, 6_000)
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "a-faulty.docx").write_bytes(make_docx(text.split("\n\n")))
    with zipfile.ZipFile(tmp_path / "new" / "a-faulty.docx", "a") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name: that is the point
        z.writestr("word/document.xml", z.read("word/document.xml"))  # a second entry of the main part
    (tmp_path / "new" / "b-clean.txt").write_text(text)
    g = run_gate(GateOptions(db=db, inputs=[tmp_path / "new"], batch="new", dry_run=True, out=tmp_path / "g",
                             workers=1))
    unreadable = [f.new["path"] for f in g.findings if f.kind == "not-auditable"]
    assert [p.rsplit("/", 1)[1] for p in unreadable] == ["a-faulty.docx"], [f.sentence() for f in g.findings]
