"""CONTAIN008 ``redaction`` through the gate: text under a dark box is a warning by default,
fails with --fail-on redaction, and is written in every CI format. A PDF with such a box made
the gate crash (the finding names no other document) until the finding had its sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.gating import GateOptions, parse_fail_on, run_gate
from auditor.store.db import Store
from tests.extract.test_extract_pdf import pdf
from tests.extract.test_pdf_ocr import text_page
from tests.support import synth
from tests.support.formats import validate_sarif

WORDS = synth.contract(7501, 400, kind="supply").split()[:300]
BOX = b"0 g 48 738 200 14 re f\n"  # over the first line, drawn after it


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("redaction")
    (root / "corpus").mkdir()
    for i in range(3):
        (root / "corpus" / f"other-{i}.txt").write_text(synth.contract(7510 + i, 6_000))
    with Store(root / "c.db") as store:
        ingest(store, [root / "corpus"], workers=1)
    return root


def gate(root: Path, name: str, data: bytes, **opts):
    batch = root / name
    batch.mkdir()
    (batch / "filing.pdf").write_bytes(data)
    out = batch / "out"
    return run_gate(GateOptions(db=root / "c.db", inputs=[batch], dry_run=True, workers=1, out=out,
                                sarif=out / "g.sarif", junit=out / "g.xml", summary=out / "g.md", **opts))


def test_text_under_a_box_is_a_warning_unless_asked_to_fail(corpus):
    g = gate(corpus, "boxed", pdf(text_page(WORDS) + BOX))
    [f] = [f for f in g.findings if f.kind == "redaction"]
    assert g.status == "PASSED" and f.level == "warning" and f.rule == "CONTAIN008"
    assert "text under 1 redaction box(es) on page(s) 1" in f.new["message"] and WORDS[0] in f.new["message"]
    assert "holds text under 1 redaction box" in f.sentence()
    out = corpus / "boxed" / "out"
    sarif = json.loads((out / "g.sarif").read_text())
    validate_sarif(sarif)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["CONTAIN008"]
    assert "CONTAIN008" in (out / "g.xml").read_text() and "redaction" in (out / "g.md").read_text()
    g = gate(corpus, "boxed-fail", pdf(text_page(WORDS) + BOX), fail_on=parse_fail_on("default,redaction"))
    assert g.status == "FAILED" and [f.level for f in g.findings if f.kind == "redaction"] == ["error"]


def test_a_box_beside_the_text_is_no_finding(corpus):
    g = gate(corpus, "beside", pdf(text_page(WORDS) + b"0 g 48 20 200 14 re f\n"))
    assert g.status == "PASSED" and not [f for f in g.findings if f.kind == "redaction"]
