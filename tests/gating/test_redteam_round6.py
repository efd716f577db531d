"""The red team's sixth round (issue #40): plain text, Markdown, reST, notebooks, email and
MHTML, archives and EDGAR text submissions, through the real gate: every case of
tests/support/redteam_round6.py. The disguised stored contract fails the gate (a finding naming
it, or a fail-closed code); the same disguise of an unrelated agreement passes, and so does each
clean document. The gate renders as users run it (``--render auto``), so this file is slow.

A disguise the gate still passes is a strict xfail naming the module that owns the fix; the
mark has to go when the hole is closed. What a reader shows of each case (Chromium, markdown-it
with footnotes, docutils, nbconvert, read by OCR) is checked by
benchmarks/redteam.py --oracle --round 6.

The disguises are gated as one batch, so a ``covered-by-batch`` finding says nothing of one
document: it is not counted here.
"""

from __future__ import annotations

import pytest

from tests.gating.test_redteam import _build, _caught, _gate, corpus  # noqa: F401 (a fixture)
from tests.gating.test_redteam import _catalogue as _ids
from tests.support.redteam_round6 import BUILDERS6

pytestmark = pytest.mark.slow


POSITIVE, CLEAN = _ids(list(BUILDERS6))
# Disguises refused as not auditable whatever they carry: their negative is a clean document.
FAIL_CLOSED: set[str] = {
    # characters outside the text model (model/text.py): tag characters draw nothing
    "hidden-junk/r6-txt-tag-characters-junk",
    # a tar is not read (archive.py): the archive fails closed
    "container/r6-tar-gz-markdown",
    # css-external: a page in a zip whose style sheet is another member (archive.py does not link them)
    "container/r6-eml-zip-html-linked-css",
}
# Clean documents the gate refuses, and the module that owns the fix.
FALSE_ALARMS: dict[str, str] = {}
# Holes the gate still passes, and the module that owns the fix. Before this round's fixes 8 of
# these disguises passed (benchmarks/RESULTS.md, round 6): margin numbers marked [12] or 12: in
# a text file and an EDGAR text part, a pleading margin in a plain mail body, Markdown footnotes
# defined shuffled, junk printed white by a terminal colour in a notebook, and a pleading margin
# in a Markdown code block or a reST literal block (a <pre> block, now read by the plain-text
# layout readers: extract/html.py).
HOLES: dict[str, str] = {}


@pytest.fixture(scope="module")
def positives(corpus):  # noqa: F811
    d, contract = corpus
    return {k: [f for f in v if f.kind != "covered-by-batch"]
            for k, v in _gate(d, d / "c.db", "disguised6", _build(POSITIVE, contract)).items()}


@pytest.fixture(scope="module")
def negatives(corpus):  # noqa: F811
    d, contract = corpus
    cases = _build([c for c in POSITIVE if c not in FAIL_CLOSED], contract, seeds=True)
    cases.update(_build(CLEAN, contract))
    return {k: [f for f in v if f.kind != "covered-by-batch"]
            for k, v in _gate(d, d / "c.db", "unrelated6", cases).items()}


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=HOLES[c]))
                                     if c in HOLES else c for c in POSITIVE])
def test_a_round_6_disguise_of_a_stored_contract_fails_the_gate(positives, case_id):
    assert _caught(positives[case_id]), [f.sentence() for f in positives[case_id]]


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=FALSE_ALARMS[c]))
                                     if c in FALSE_ALARMS else c for c in [c for c in POSITIVE if c not in FAIL_CLOSED] + CLEAN])
def test_the_same_round_6_disguise_of_an_unrelated_agreement_passes(negatives, case_id):
    assert negatives[case_id] == [], [f.sentence() for f in negatives[case_id]]


def test_the_catalogue_has_fifteen_disguises_and_six_clean_documents():
    assert len(POSITIVE) >= 15 and len(CLEAN) >= 6
    assert set(HOLES) <= set(POSITIVE) and set(POSITIVE) >= FAIL_CLOSED
    assert all("/r6-" in c for c in POSITIVE + CLEAN)
