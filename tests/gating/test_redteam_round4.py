"""The red team's fourth round (issue #40) through the real gate, every case of
tests/support/redteam_round4.py: the disguised stored contract fails the gate (a finding naming
it, or a fail-closed code); the same disguise of an unrelated agreement passes, and so does each
clean document. The gate renders as users run it (``--render auto``: Chromium, LibreOffice,
pdfium where installed), so this file is slow.

A disguise the gate still passes is a strict xfail naming the module that owns the fix; the
mark has to go when the hole is closed. What a reader shows of each case (Chromium, LibreOffice
or poppler, read by OCR) is checked by benchmarks/redteam.py --oracle --round 4.

The disguises are gated as one batch, so a ``covered-by-batch`` finding (the batch's documents
together cover the stored contract) says nothing of one document: it is not counted here.
"""

from __future__ import annotations

import pytest

from tests.gating.test_redteam import _build, _catalogue, _caught, _gate, corpus  # noqa: F401 (a fixture)
from tests.support.redteam_round4 import BUILDERS4, email_with_attachment

pytestmark = pytest.mark.slow


POSITIVE, CLEAN = _catalogue(BUILDERS4)
# Disguises refused as not auditable whatever they carry: their negative is a clean document.
# render_mismatch (CONTAIN006): Chromium draws the page the reader read (extract/render.py
# html_view) and shows other text than the extraction holds
FAIL_CLOSED: set[str] = {
    *(f"order/r4-{f}-relative-swap" for f in ("eml", "mhtml", "md", "ipynb", "rss")),
    *(f"hidden-junk/r4-{f}-covered-by-box" for f in ("eml", "mhtml", "md", "ipynb")),
    # the rendered reading leaves out the junk line a row of exact height clips (extract/render.py _clip_box)
    *(f"hidden-junk/r4-{f}-exact-row-clip" for f in ("docx", "rtf", "fodt")),
    # the rendered reading leaves out text an opaque box painted later covers (extract/render.py _cover)
    "hidden-junk/r4-html-outline-cover", "hidden-junk/r4-html-outline-rounded-cover",
    "hidden-junk/r4-html-line-through-cover", "hidden-junk/r4-docx-shape-over-column",
    "hidden-junk/r4-docx-picture-over-column",  # an opaque picture painted later (extract/render.py _opaque_image)
    # css-order: a negative block margin of more than an em pulls a box over the text before it
    # (extract/css.py Style.pulled; margin-block-start is margin-top)
    "order/r4-html-margin-block-start",
    # outside the .docx model: more than 8 paragraphs framed and placed by position (model/docx.py)
    "order/r4-docx-framepr-shuffled",
}
# Clean documents the gate refuses, and the module that owns the fix.
FALSE_ALARMS: dict[str, str] = {}

# Holes the gate still passes, and the module that owns the fix. (The nine disguises of HTML inside
# an email body, an MHTML archive, Markdown, a notebook's output and a feed item passed until
# Chromium drew the page their readers read: extract/render.py html_view; they now fail closed
# as render_mismatch and the rendered reading finds the contract. The three table rows of exact
# height that clip a junk line passed until the rendered reading left out glyphs drawn outside
# their clip: extract/render.py _clip_box. Junk under an outline drawn inwards or a thick white
# line-through passed until it left out text covered whole by an opaque box painted after it:
# extract/render.py _cover; a white picture anchored over a table's junk column passed until
# an opaque picture painted later counted as a cover too: extract/render.py _opaque_image. A white
# shading (sh) painted over junk in a PDF passed until the PDF reader took a shading for a box painted over its clip: extract/pdf/device.py paint_shading.
# Lines stored last to first and pulled up by a negative margin-block-start passed until the HTML
# reader read the flow-relative margins as the physical ones and a pull of more than an em as
# moving the box: extract/css.py. Paragraphs placed by w:framePr passed until the .docx model
# counted them as the WordML and OpenDocument models do: extract/model/docx.py. A notebook whose
# output is a picture of the licence passed until the notebook's page drew its pictures as Jupyter
# does (not the text/plain beside them): extract/rendered.py; OCR of Chromium's pictures finds it.
# An HTML email whose body draws a scanned page by Content-ID failed closed (its picture part was
# skipped as binary), and so did every ordinary email signed with an inline logo, a false alarm:
# a picture the body draws is now the body's, drawn on the gate's page and read by OCR there
# (extract/mail.py shown_html).)
HOLES: dict[str, str] = {}
# An email's attachments are parts. The gate looked for a part's bytes in an EDGAR envelope, so
# any email with a PDF, .docx or HTML attachment stopped it (edgar_malformed, exit 2); it now
# reads the container again for them (gating/render.py _part_bytes).
ATTACHMENT_KINDS = ("pdf", "docx", "html")

def _own(found: dict[str, list]) -> dict[str, list]:
    return {k: [f for f in v if f.kind != "covered-by-batch"] for k, v in found.items()}


@pytest.fixture(scope="module")
def positives(corpus):  # noqa: F811
    d, contract = corpus
    return _own(_gate(d, d / "c.db", "disguised4", _build(POSITIVE, contract)))


@pytest.fixture(scope="module")
def negatives(corpus):  # noqa: F811
    d, contract = corpus
    cases = _build([c for c in POSITIVE if c not in FAIL_CLOSED], contract, seeds=True)
    cases.update(_build(CLEAN, contract))
    return _own(_gate(d, d / "c.db", "unrelated4", cases))


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=HOLES[c]))
                                     if c in HOLES else c for c in POSITIVE])
def test_a_round_4_disguise_of_a_stored_contract_fails_the_gate(positives, case_id):
    assert _caught(positives[case_id]), [f.sentence() for f in positives[case_id]]


@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=FALSE_ALARMS[c]))
                                     if c in FALSE_ALARMS else c for c in [c for c in POSITIVE if c not in FAIL_CLOSED] + CLEAN])
def test_the_same_round_4_disguise_of_an_unrelated_agreement_passes(negatives, case_id):
    assert negatives[case_id] == [], [f.sentence() for f in negatives[case_id]]


def _gate_one(corpus, tmp_path, name: str, data: bytes):  # noqa: F811
    from auditor.gating.admission import GateOptions, run_gate

    d, _ = corpus
    (tmp_path / "new").mkdir(parents=True)
    (tmp_path / "new" / name).write_bytes(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AUDITOR_NO_CACHE", "1")
        return run_gate(GateOptions(db=d / "c.db", inputs=[tmp_path / "new"], batch=f"mail-{tmp_path.name}",
                                    dry_run=True, out=tmp_path / "out", workers=1))


@pytest.mark.parametrize("kind", ATTACHMENT_KINDS)
def test_an_ordinary_email_with_an_attached_agreement_passes_the_gate(corpus, tmp_path, kind):  # noqa: F811
    from tests.support import synth

    g = _gate_one(corpus, tmp_path, "message.eml", email_with_attachment(synth.contract(8905, 4_000, kind="lease"), kind))
    assert g.status == "PASSED", [f.sentence() for f in g.findings]


@pytest.mark.parametrize("kind", ATTACHMENT_KINDS)
def test_an_email_with_the_stored_contract_attached_does_not_pass(corpus, tmp_path, kind):  # noqa: F811
    _, contract = corpus
    g = _gate_one(corpus, tmp_path, "message.eml", email_with_attachment(contract, kind))
    assert g.status == "FAILED" and any(_caught([f]) for f in g.findings), [f.sentence() for f in g.findings]


def test_the_catalogue_has_twenty_disguises_and_seven_clean_documents():
    assert len(POSITIVE) >= 20 and len(CLEAN) >= 7
    assert set(HOLES) <= set(POSITIVE) and set(POSITIVE) >= FAIL_CLOSED
