"""Rendered readings (auditor.extract.render): what Chromium and LibreOffice show of a document,
read back in the order the page shows it, without what the page hides."""

from __future__ import annotations

import shutil

import pytest

from auditor.errors import ExtractionError
from auditor.extract.render import RenderInput, render, render_many, visible_text
from tests.support.fixtures_build import make_docx

needs_chromium = pytest.mark.skipif(not shutil.which("chromium"), reason="needs Debian's chromium")
needs_soffice = pytest.mark.skipif(not shutil.which("soffice"), reason="needs LibreOffice (libreoffice-writer-nogui)")


def words(text: str) -> list[str]:
    return text.split()


@needs_chromium
@pytest.mark.slow
def test_chromium_shows_what_a_screen_shows_in_the_order_it_draws():
    html = b"""<html><head><style>@media print {.screen{display:none}} .rev{display:flex;flex-direction:column-reverse}
    </style></head><body><p class="screen">shown on screens only</p>
    <div class="rev"><p>first in source</p><p>second in source</p></div>
    <table><tfoot><tr><td>foot row</td></tr></tfoot><tbody><tr><td>body row</td></tr></tbody>
    <thead><tr><td>head row</td></tr></thead></table>
    <div><template shadowrootmode="open"><slot name="b"></slot> <slot name="a"></slot></template>
    <span slot="a">world</span><span slot="b">hello</span><span>never slotted</span></div>
    <p>white <span style="color:#fff">hidden</span> words</p></body></html>"""
    r = render("html", html, "page.html")
    assert r.renderer == "chromium" and r.version
    got = words(r.text)
    assert got == ["shown", "on", "screens", "only", "second", "in", "source", "first", "in", "source",
                   "head", "row", "body", "row", "foot", "row", "hello", "world", "white", "words"]


@needs_chromium
@pytest.mark.slow
def test_chromium_fetches_nothing_and_runs_no_script(tmp_path):
    secret = tmp_path / "secret.html"
    secret.write_text("<p>local secret words</p>")
    html = (f'<p>the page</p><iframe src="file://{secret}"></iframe><iframe src="http://example.com/"></iframe>'
            '<script>document.write("<p>written by a script</p>")</script>').encode()
    r = render("html", html, "page.html")
    assert words(r.text) == ["the", "page"]


@needs_soffice
@pytest.mark.slow
def test_libreoffice_draws_a_docx_and_the_reading_is_its_text():
    docx = make_docx(["The lessee shall pay the rent on the first day of each month.",
                      "This paragraph is the second one of the lease."])
    [r] = render_many([RenderInput("docx", docx, "lease.docx")])
    assert not isinstance(r, ExtractionError) and r.renderer == "libreoffice"
    assert words(r.text) == words("The lessee shall pay the rent on the first day of each month. "
                                  "This paragraph is the second one of the lease.")


def test_a_format_without_a_renderer_says_so():
    [r] = render_many([RenderInput("text", b"plain words", "a.txt")])
    assert isinstance(r, ExtractionError) and r.code == "render_missing"


def _pdf(ops: str) -> bytes:
    """A one-page PDF with Helvetica and the content stream ``ops``."""
    content = ops.encode()
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >>"
            b" /Contents 4 0 R >>",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = b"%PDF-1.4\n", []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return out


def test_visible_text_leaves_out_glyphs_the_colour_of_what_lies_beneath():
    pdf = _pdf("0 0 0 rg BT /F1 12 Tf 72 700 Td (seen on white paper) Tj ET "
               "1 1 1 rg BT /F1 12 Tf 72 680 Td (white on white) Tj ET "
               "0.2 0.4 0.6 rg 60 600 300 40 re f "
               "0.2 0.4 0.6 rg BT /F1 12 Tf 72 615 Td (blue on blue) Tj ET "
               "1 1 1 rg BT /F1 12 Tf 72 605 Td (white on blue) Tj ET")
    assert words(visible_text(pdf)) == ["seen", "on", "white", "paper", "white", "on", "blue"]


@needs_chromium
@pytest.mark.slow
def test_a_rendering_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    """A gate renders on every run: one folder left per run fills a CI runner's /tmp."""
    import tempfile

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert words(render("html", b"<p>left nothing behind</p>", "p.html").text) == ["left", "nothing", "behind"]
    assert list(tmp_path.iterdir()) == []


@needs_chromium
@pytest.mark.slow
def test_a_page_that_declares_no_encoding_is_rendered_in_the_readers_encoding():
    """A saved page keeps no HTTP header: its encoding is the reader's choice, and the renderer is
    told it. A page that declares its own is rendered as it declares, so a misreading shows."""
    body = "<p>The Lessee\u2019s rent \u2014 due monthly</p>".encode()
    got = render_many([RenderInput("html", b"<html><body>" + body, "p.html", "utf-8"),
                       RenderInput("html", b"<html><head><meta charset='windows-1252'></head><body>" + body,
                                   "q.html", "utf-8")])
    assert words(got[0].text) == ["The", "Lessee\u2019s", "rent", "\u2014", "due", "monthly"]
    assert "Lessee\u2019s" not in got[1].text  # the page's own declaration wins, as in a browser


@needs_chromium
@pytest.mark.slow
@pytest.mark.parametrize("doctype", ["", "<!DOCTYPE html>"])
def test_chromium_and_the_reader_agree_on_the_alt_of_a_broken_icon(doctype):
    """An icon 14 pixels square: in quirks mode Chromium clips its alt to two letters, which the
    renderer blanks as the reader leaves it out; with a doctype both read the whole alt."""
    from auditor.extract import extract_bytes

    page = (f"{doctype}<html><body><table><tr><td>Filed and entered <img src='/g/ball.gif' width=14 height=14 "
            "alt='Docket Text'> Complaint for damages</td></tr></table></body></html>").encode()
    assert words(render("html", page, "p.html").text) == words(extract_bytes(page, "p.html").text)


def _pdfs(text: str) -> dict[str, bytes]:
    """Round 5's PDF disguises (tests/support/redteam_round5_paged.py) carrying ``text``."""
    from tests.support import redteam_round5_paged as r5

    texts = {"BSD": text}
    return {c.name: c.files["exhibit.pdf"] for build in (r5.pdf_fonts, r5.pdf_beneath) for c in build(texts)}


@pytest.mark.parametrize("name", ["r5-pdf-embedded-blank-font", "r5-pdf-picture-background-colour",
                                  "r5-pdf-white-picture-white-text", "r5-pdf-clip-word-boxes"])
def test_pdfium_reads_only_the_words_whose_glyphs_change_the_page(name):
    """A word is seen when its glyphs change the page pdfium draws, whatever hides it: a font
    that draws nothing, the colour of a picture beneath, a clip of many boxes (red team round 5).
    Every word drawn in black stays, junk word or not."""
    from auditor.extract.render import _pdfium_text
    from tests.support import redteam_build as b
    from tests.support import synth

    text = synth.contract(8120, 2_500, kind="lease")
    seen = words(_pdfium_text(_pdfs(text)[name]).lower())
    assert not set(seen) & set(b.JUNK)
    assert [w for w in seen if w.isalpha()] == [w.lower() for w in text.split() if w.isalpha()][:len(
        [w for w in seen if w.isalpha()])] and len(seen) > 0.9 * len(text.split())
    drawn = b.pdf(b.pdf_junk_ops(text, lambda x, y, j: b.at(x, y, j), gap=7))
    assert set(words(_pdfium_text(drawn).lower())) >= set(b.JUNK[:4])


def test_visible_text_leaves_out_glyphs_under_paint_that_leaves_them_no_contrast():
    """Paint over a glyph that is not quite opaque leaves (1 - alpha) of its contrast: a white box
    at 97% hides it, one at 50% does not. Told by the page pdfium draws, so a background that is a
    gradient (a shading, whose colour pdfium does not report as a fill) counts as well."""
    pdf = _pdf("0 0 0 rg BT /F1 12 Tf 72 700 Td (seen) Tj ET "
               "0 0 0 rg BT /F1 12 Tf 72 680 Td (veiled) Tj ET "
               "/G1 gs 1 1 1 rg 70 676 80 18 re f "
               "0 0 0 rg BT /F1 12 Tf 72 650 Td (dimmed) Tj ET "
               "/G2 gs 1 1 1 rg 70 646 80 18 re f")
    pdf = pdf.replace(b"/Font << /F1 5 0 R >>", b"/Font << /F1 5 0 R >> /ExtGState << /G1 << /ca 0.97 >> "
                                                b"/G2 << /ca 0.5 >> >>")
    pdf = _fix_xref(pdf)
    assert words(visible_text(pdf)) == ["seen", "dimmed"]


def _fix_xref(pdf: bytes) -> bytes:
    """The PDF written again with its cross-reference table recomputed (after an edit)."""
    import re

    body = pdf[: pdf.index(b"xref\n")]
    offsets = [m.start() for m in re.finditer(rb"(?m)^\d+ 0 obj\n", body)]
    out = body + b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, len(body))


@needs_chromium
@pytest.mark.slow
def test_chromium_shows_what_a_desktop_shows_and_what_leaves_no_ink_is_left_out():
    """The page is laid out at the 1280 CSS pixels the HTML reader models (a (min-width: 1000px)
    rule applies, as on a desktop); words in the colour of a gradient background leave no ink."""
    html = b"""<!DOCTYPE html><html><head><style>@media (min-width: 1000px) { .narrow { display: none } }
    body { background: linear-gradient(#dfe6ee, #dfe6ee) } .bg { color: #dfe6ee }</style></head><body>
    <p>shown on a desktop <span class="narrow">only on phones</span> and <span class="bg">unseen</span> here</p>
    <h1 style="background:linear-gradient(90deg,#1f3864,#2e75b6);color:#fff">white on a banner</h1></body></html>"""
    r = render("html", html, "page.html")
    assert words(r.text) == ["shown", "on", "a", "desktop", "and", "here", "white", "on", "a", "banner"]


@needs_chromium
@pytest.mark.slow
def test_words_drawn_as_outlines_are_read_by_ocr_and_a_logo_is_not_a_page_of_them():
    import pypdfium2 as pdfium

    from auditor.extract.render import ocr_pictures, outlined
    from tests.support import synth
    from tests.support.redteam_round5_web import outline_paths

    lines = [" ".join(synth.contract(8301, 2_000, kind="lease").split()[i: i + 12]) for i in range(0, 240, 12)]
    shapes = f"<svg xmlns='http://www.w3.org/2000/svg' width='1000' height='500'>{outline_paths(lines)}</svg>"
    logo = f"<svg xmlns='http://www.w3.org/2000/svg' width='300' height='40'>{outline_paths(['NORTHWIND'], 22)}</svg>"
    text = "<p>" + " ".join(synth.contract(8302, 3_000, kind="lease").split()[:300]) + "</p>"
    drawn = render("html", f"<!DOCTYPE html><p>Exhibit 10.1</p>{shapes}".encode(), "a.html")
    plain = render("html", f"<!DOCTYPE html>{logo}{text}".encode(), "b.html")
    assert [outlined(p) for p in pdfium.PdfDocument(drawn.pdf)] == [True]
    assert [outlined(p) for p in pdfium.PdfDocument(plain.pdf)] == [False]
    seen = ocr_pictures(drawn.pdf)
    assert seen.code is None and len(set(words(seen.text.lower())) & set(words(" ".join(lines).lower()))) > 100
