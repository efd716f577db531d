"""The red team's seventh round (issue #40): constructs the readers' allow-lists admitted as
modelled where a real reader draws something else (paint order, clipping, colour schemes and
colour spaces, captions, off-page paragraphs, GitHub's and rst2html's dialects, quoted-printable
transport padding), through the real gate: every case of tests/support/redteam_round7.py. The
disguised stored contract fails the gate (a finding naming it, or a fail-closed code); the same
disguise of an unrelated agreement passes, and so does each clean document. The gate renders as
users run it (``--render auto``), so this file is slow.

A disguise the gate still passes is a strict xfail naming the module that owns the fix; the
mark has to go when the hole is closed. What a reader shows of each case (Chromium,
LibreOffice, poppler, GitHub's cmark-gfm, docutils' rst2html, read by OCR) is checked by
benchmarks/redteam.py --oracle --round 7.

The disguises are gated as one batch, so a ``covered-by-batch`` finding says nothing of one
document: it is not counted here.
"""

from __future__ import annotations

import pytest

from tests.gating.test_redteam import _build, _caught, _gate, corpus  # noqa: F401 (a fixture)
from tests.gating.test_redteam import _catalogue as _ids
from tests.support.redteam_round7 import BUILDERS7

pytestmark = pytest.mark.slow


POSITIVE, CLEAN = _ids(list(BUILDERS7))
# Disguises refused as not auditable whatever they carry: their negative is a clean document.
FAIL_CLOSED: set[str] = {
    # outside the CSS model (model/css.py): contain strict, font-size-adjust 0
    "hidden-junk/r7-html-contain-strict",
    "hidden-junk/r7-html-font-size-adjust-zero",
    # outside the HTML model (extract/html.py): words beneath the page's boxes (a negative z-index), a dark
    # colour scheme
    "hidden-junk/r7-html-z-index-under-background",
    "edgar-part/r7-edgar-html-z-index-under-background",
    "hidden-junk/r7-html-meta-color-scheme-dark",
    # the rendered reading keeps the letters a wide white stroke covers (gating/render.py: render-mismatch)
    "hidden-junk/r7-html-white-text-stroke",
    # a form field's value longer than its box shows (extract/html.py)
    "hidden-junk/r7-html-input-value-clipped",
    "hidden-junk/r7-html-textarea-rows-clipped",
    # outside the .docx model (model/docx.py): a paragraph indented past the paper's edge
    "hidden-junk/r7-docx-negative-indent-junk",
}
# Clean documents the gate refuses, and the module that owns the fix.
FALSE_ALARMS: dict[str, str] = {}
# Holes the gate still passes, and the module that owns the fix. Before this round's fixes 3 of
# these disguises passed as users run the gate (a Markdown file as GitHub shows it, reST as
# rst2html shows it, quoted-printable transport padding in a mail: each rendered from the tool's
# own page) and 15 of 16 with --render never (benchmarks/redteam.py --round 7 --render never).
HOLES: dict[str, str] = {}


@pytest.fixture(scope="module")
def positives(corpus):  # noqa: F811
    d, contract = corpus
    return {k: [f for f in v if f.kind != "covered-by-batch"]
            for k, v in _gate(d, d / "c.db", "disguised7", _build(POSITIVE, contract)).items()}


@pytest.fixture(scope="module")
def negatives(corpus):  # noqa: F811
    d, contract = corpus
    cases = _build([c for c in POSITIVE if c not in FAIL_CLOSED], contract, seeds=True)
    cases.update(_build(CLEAN, contract))
    return {k: [f for f in v if f.kind != "covered-by-batch"]
            for k, v in _gate(d, d / "c.db", "unrelated7", cases).items()}


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=HOLES[c]))
                                     if c in HOLES else c for c in POSITIVE])
def test_a_round_7_disguise_of_a_stored_contract_fails_the_gate(positives, case_id):
    assert _caught(positives[case_id]), [f.sentence() for f in positives[case_id]]


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=FALSE_ALARMS[c]))
                                     if c in FALSE_ALARMS else c for c in [c for c in POSITIVE if c not in FAIL_CLOSED] + CLEAN])
def test_the_same_round_7_disguise_of_an_unrelated_agreement_passes(negatives, case_id):
    assert negatives[case_id] == [], [f.sentence() for f in negatives[case_id]]


def test_the_catalogue_has_fifteen_disguises_and_six_clean_documents():
    assert len(POSITIVE) >= 15 and len(CLEAN) >= 6
    assert set(HOLES) <= set(POSITIVE) and set(POSITIVE) >= FAIL_CLOSED
    assert all("/r7-" in c for c in POSITIVE + CLEAN)
