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
