"""The red team's fifth round (issue #40) for paged, office and plain formats through the real
gate, every case of tests/support/redteam_round5_paged.py: the disguised stored contract fails
the gate (a finding naming it, or a fail-closed code); the same disguise of an unrelated
agreement passes, and so does each clean document. The gate renders as users run it
(``--render auto``: LibreOffice, pdfium where installed), so this file is slow.

A disguise the gate still passes is a strict xfail naming the module that owns the fix; the
mark has to go when the hole is closed. What a reader shows of each case (LibreOffice, poppler
or Chromium, read by OCR) is checked by benchmarks/redteam.py --oracle --round 5.

The disguises are gated as one batch, so a ``covered-by-batch`` finding (the batch's documents
together cover the stored contract) says nothing of one document: it is not counted here.
"""

from __future__ import annotations

import pytest

from tests.gating.test_redteam import _build, _catalogue, _caught, _gate, corpus  # noqa: F401 (a fixture)
from tests.support.redteam_round5_paged import BUILDERS5

pytestmark = pytest.mark.slow


POSITIVE, CLEAN = _catalogue(BUILDERS5)
# Disguises refused as not auditable whatever they carry: their negative is a clean document.
FAIL_CLOSED: set[str] = {
    # every text of an RTF file whose paragraphs are \upr groups is in \ud destinations, which the
    # reader skips: it has no text, an ingest error (extract/legacy.py)
    "visible-not-read/r5-rtf-upr-ud",
    # render_mismatch (CONTAIN006): the reader keeps words whose glyphs do not change the page
    # pdfium draws (extract/render.py unseen_chars: the colour of a picture beneath, a font that
    # draws nothing, a clip of many boxes); the rendered reading finds the contract too
    *(f"hidden-junk/r5-pdf-{n}" for n in ("embedded-blank-font", "picture-background-colour",
                                           "white-picture-white-text", "clip-word-boxes")),
    # the same in LibreOffice's rendering (extract/render.py visible_text): junk in the cream of a
    # picture behind the text
    "hidden-junk/r5-docx-picture-behind-text", "hidden-junk/r5-fodt-page-background-picture",
    "hidden-junk/r5-fodt-picture-behind-text",
    # pdfium's text page keeps optional content that is off, the reader does not: render_mismatch
    "hidden-junk/r5-pdf-form-oc-off",
    # pdf-font-map: the ToUnicode map reads one glyph as several letters (extract/pdf/interpreter.py
    # shared_glyphs)
    "visible-not-read/r5-pdf-cid-word-tounicode", "edgar-part/r5-edgar-pdf-cid-word-tounicode",
    # render_archive: an archive holds a PDF, which the gate does not render inside it
    # (gating/render.py _archive)
    "edgar-part/r5-edgar-zip-of-pdf-blank-font",
}
# An EDGAR part the ingest skips as data (JSON, XBRL by its TYPE, the XBRL viewer's pages) is read
# as data by the gate (extract/data.py): the contract is found, naming the part; not only refused.
FOUND = ["edgar-part/r5-edgar-json-text-part", "edgar-part/r5-edgar-xbrl-type-text-part",
         "edgar-part/r5-edgar-viewer-description-html"]
# Clean documents the gate refuses, and the module that owns the fix.
FALSE_ALARMS: dict[str, str] = {}

# Holes the gate still passes, and the module that owns the fix.
HOLES: dict[str, str] = {}


def _own(found: dict[str, list]) -> dict[str, list]:
    return {k: [f for f in v if f.kind != "covered-by-batch"] for k, v in found.items()}


@pytest.fixture(scope="module")
def positives(corpus):  # noqa: F811
    d, contract = corpus
    return _own(_gate(d, d / "c.db", "disguised5p", _build(POSITIVE, contract)))


@pytest.fixture(scope="module")
def negatives(corpus):  # noqa: F811
    d, contract = corpus
    cases = _build([c for c in POSITIVE if c not in FAIL_CLOSED], contract, seeds=True)
    cases.update(_build(CLEAN, contract))
    return _own(_gate(d, d / "c.db", "unrelated5p", cases))


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=HOLES[c]))
                                     if c in HOLES else c for c in POSITIVE])
def test_a_round_5_disguise_of_a_stored_contract_fails_the_gate(positives, case_id):
    assert _caught(positives[case_id]), [f.sentence() for f in positives[case_id]]


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=FALSE_ALARMS[c]))
                                     if c in FALSE_ALARMS else c for c in [c for c in POSITIVE if c not in FAIL_CLOSED] + CLEAN])
def test_the_same_round_5_disguise_of_an_unrelated_agreement_passes(negatives, case_id):
    assert negatives[case_id] == [], [f.sentence() for f in negatives[case_id]]


@pytest.mark.parametrize("case_id", FOUND)
def test_a_round_5_contract_in_a_data_part_is_found_naming_the_part(positives, case_id):
    found = [f for f in positives[case_id] if str((f.other or {}).get("path", "")).endswith("stored-contract.txt")]
    assert found and all(f.new["format"] == "data" and f.reading.startswith("part ") for f in found), \
        [f.sentence() for f in positives[case_id]]


def test_the_catalogue_has_twenty_disguises_and_seven_clean_documents():
    assert len(POSITIVE) >= 20 and len(CLEAN) >= 7
    assert set(HOLES) <= set(POSITIVE) and set(POSITIVE) >= FAIL_CLOSED
