"""The red team's third round (issue #40) through the real gate, every case of
tests/support/redteam_round3.py: the disguised stored contract fails the gate (a finding naming
it, or a fail-closed code); the same disguise of an unrelated agreement passes, and so does each
clean document. The gate renders as users run it (``--render auto``: Chromium, LibreOffice,
pdfium where installed), so this file is slow.

A disguise the gate still passes is a strict xfail naming the module that owns the fix; the
mark has to go when the hole is closed. What a reader shows of each case is checked by
benchmarks/redteam.py --oracle --round 3.
"""

from __future__ import annotations

import pytest

from tests.gating.test_redteam import _build, _catalogue, _caught, _gate, corpus  # noqa: F401 (a fixture)
from tests.support.redteam_round3 import BUILDERS3

pytestmark = pytest.mark.slow


POSITIVE, CLEAN = _catalogue(BUILDERS3)
# Disguises refused as not auditable whatever they carry: their negative is a clean document.
FAIL_CLOSED = {
    "order/r3-html-grid-areas",  # css-order: grid items placed by row and column
    "order/r3-html-transform-translate",  # css-order: boxes placed by their offsets and transforms out of source order
    "visible-not-read/r3-html-webfont-rot13", "hidden-junk/r3-html-webfont-blank",  # css-font
    "hidden-junk/r3-html-color-mix-white",  # css-value: a colour the reader cannot compute
    "visible-not-read/r3-pdf-type3-line-glyphs", "edgar-part/r3-edgar-pdf-type3-line-glyphs",  # pdf-hidden
    "container/r3-tar", "container/r3-tar-gz-of-zip", "edgar-part/r3-edgar-tar",  # an archive: unpack it
    # render_mismatch (CONTAIN006): the renderer shows other text than the extraction holds, so the
    # reading cannot be vouched for, whatever the text is
    "order/r3-html-relative-swap", "order/r3-html-shadow-slots", "order/r3-html-pleading-spans",
    "order/r3-docx-bidi-visual-table", "order/r3-fodt-positioned-frames", "visible-not-read/r3-html-shadow-root-text",
    "visible-not-read/r3-html-svg-background", "visible-not-read/r3-pdf-actual-text-decoy",
    "visible-not-read/r3-fodt-user-fields", "hidden-junk/r3-html-unslotted-shadow", "hidden-junk/r3-html-video-fallback",
    "hidden-junk/r3-html-covered-by-box", "hidden-junk/r3-html-svg-zero-size", "hidden-junk/r3-docx-embedded-blank-font",
    "hidden-junk/r3-fodt-text-scale-1-percent", "edgar-part/r3-edgar-html-shadow-slots",
    # outside a reader's model (the allow-lists, CONTAIN006): row groups a style sheet declares, SVG
    # placement and images, a tiling pattern that draws text, an embedded font. (Row groups of <thead>
    # and <tfoot> out of source order are read as drawn, so their disguises are found as copies.)
    "order/r3-html-css-table-groups", "order/r3-html-inline-svg-coordinates", "order/r3-svg-coordinates",
    "order/r3-svg-transform-groups", "visible-not-read/r3-svg-text-in-image", "visible-not-read/r3-svg-use-defs",
    "visible-not-read/r3-svg-foreign-object", "visible-not-read/r3-pdf-tiling-pattern",
    # a font embedded in a .docx that draws other letters than its characters: OCR of LibreOffice's
    # pages disagrees with the text (render_mismatch) and finds the contract (ocr:libreoffice)
    "visible-not-read/r3-docx-embedded-font-rot13", "visible-not-read/r3-docx-font-permutation",
    "hidden-junk/r3-pdf-soft-mask-junk",  # text shown under an ExtGState soft mask: outside the PDF model
}
# Clean documents the gate refuses, and the module that owns the fix.
# (clean/r3-docx-embedded-font failed closed until OCR of LibreOffice's pages vouched for an
# embedded font that draws the letters of its characters: gating/render.py.)
FALSE_ALARMS: dict[str, str] = {}
# Holes the gate still passes, and the module that owns the fix. Before the allow-lists were merged,
# seven more passed: SVG placement and images (4), a tiling pattern that draws text, fonts embedded in
# a .docx that draw other letters (2); they now fail closed as outside a reader's model (FAIL_CLOSED).
# Five more passed until their constructs were modelled: lines placed by transform:translate and text under a soft
# mask now fail closed (FAIL_CLOSED); two columns set as table cells are found by the reading
# html:table-columns, and SVG text hidden by display or fill is left out of an SVG file's reading.
HOLES: dict[str, str] = {}


@pytest.fixture(scope="module")
def positives(corpus):  # noqa: F811
    d, contract = corpus
    return _gate(d, d / "c.db", "disguised3", _build(POSITIVE, contract))


@pytest.fixture(scope="module")
def negatives(corpus):  # noqa: F811
    d, contract = corpus
    cases = _build([c for c in POSITIVE if c not in FAIL_CLOSED], contract, seeds=True)
    cases.update(_build(CLEAN, contract))
    return _gate(d, d / "c.db", "unrelated3", cases)


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=HOLES[c]))
                                     if c in HOLES else c for c in POSITIVE])
def test_a_round_3_disguise_of_a_stored_contract_fails_the_gate(positives, case_id):
    assert _caught(positives[case_id]), [f.sentence() for f in positives[case_id]]


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=FALSE_ALARMS[c]))
                                     if c in FALSE_ALARMS else c for c in [c for c in POSITIVE if c not in FAIL_CLOSED] + CLEAN])
def test_the_same_round_3_disguise_of_an_unrelated_agreement_passes(negatives, case_id):
    assert negatives[case_id] == [], [f.sentence() for f in negatives[case_id]]


def test_the_catalogue_has_forty_disguises_and_five_clean_documents():
    assert len(POSITIVE) >= 40 and len(CLEAN) >= 5
    assert set(HOLES) <= set(POSITIVE) and set(POSITIVE) >= FAIL_CLOSED
