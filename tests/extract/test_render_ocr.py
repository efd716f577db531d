"""OCR of what a renderer draws (auditor.extract.render.ocr_pages, ocr_pictures): the letters a
font embedded in a .docx draws, whatever its character codes say, and the pictures of text an
HTML page or a .docx shows. Real text: licences that installed packages ship; a real logo: the
one import-linter (the test extra) ships. Slow: LibreOffice, Chromium and Tesseract run."""

from __future__ import annotations

import base64
import importlib.metadata as md
import io
import shutil
from collections import Counter

import pytest

from auditor.errors import ExtractionError
from auditor.extract.render import RenderInput, embeds_fonts, ocr_pages, ocr_pictures, render_many
from tests.support import redteam_build as b
from tests.support import redteam_fonts as fonts
from tests.support.fixtures_build import make_docx
from tests.support.realtext import licence
from tests.support.redteam_round3 import _FONT_RPR, docx_with_font

pytestmark = pytest.mark.slow
needs_chromium = pytest.mark.skipif(not shutil.which("chromium"), reason="needs Debian's chromium")
needs_soffice = pytest.mark.skipif(not shutil.which("soffice"), reason="needs LibreOffice (libreoffice-writer-nogui)")


def shared(seen: str, text: str) -> float:
    """The share of ``text``'s words (lower case, with repeats) that ``seen`` holds."""
    a, z = Counter(seen.lower().split()), Counter(text.lower().split())
    return sum((a & z).values()) / sum(z.values())


def png(text: str) -> bytes:
    from PIL import Image

    pixels, w, h = b.page_image(text)
    out = io.BytesIO()
    Image.frombytes("L", (w, h), pixels).save(out, "PNG")
    return out.getvalue()


def logo() -> bytes:
    """import-linter's logo (100x100, RGBA): a picture of an ordinary page, written by others."""
    [f] = [f for f in md.distribution("import-linter").files or [] if str(f).endswith("static/logo.png")]
    return f.locate().read_bytes()


def img(data: bytes, style: str = "") -> str:
    return f"<img src='data:image/png;base64,{base64.b64encode(data).decode()}' style='{style}' alt=''>"


def rendered(fmt: str, data: bytes, name: str):
    [r] = render_many([RenderInput(fmt, data, name)])
    assert not isinstance(r, ExtractionError), r
    assert r.pdf is not None
    return r


@needs_chromium
def test_a_picture_of_text_in_an_html_page_is_read_and_a_logo_costs_little():
    text = licence("BSD")
    r = rendered("html", b.page(f"<p>Exhibit 10.1, attached as filed.</p>{img(png(text))}"), "exhibit.html")
    assert shared(r.text, text) < 0.05  # the renderer's own text does not hold it
    seen = ocr_pictures(r.pdf)
    assert seen.code is None and len(seen.texts) == 1 and seen.engine.startswith("tesseract")
    assert shared(seen.text, text) > 0.9
    # an ordinary page: a logo, a picture drawn 1x1 (a tracking pixel) and a thin rule: the logo
    # alone is read
    r = rendered("html", b.page(f"{img(logo(), 'width:80px')}{img(logo(), 'width:1px;height:1px')}"
                                f"{img(_rule(), 'width:600px;height:2px')}<p>{licence('BSD')[:400]}</p>"), "page.html")
    seen = ocr_pictures(r.pdf)
    assert seen.code is None and len(seen.texts) == 1
    assert len(seen.text.split()) < 5 and seen.seconds < 10


def _rule() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("L", (600, 2), 0).save(out, "PNG")
    return out.getvalue()


@needs_chromium
def test_a_page_of_many_pictures_is_read_whole_and_too_many_pictures_are_not_read_but_said(monkeypatch):
    from auditor.extract import render

    r = rendered("html", b.page("".join(img(logo(), "width:60px") for _ in range(40))), "gallery.html")
    seen = ocr_pictures(r.pdf)
    assert seen.code is None and len(seen.texts) == 1  # one page of 40 pictures: the page, read whole
    r = rendered("html", b.page("".join(img(logo(), "width:60px") for _ in range(3))), "three.html")
    monkeypatch.setattr(render, "MAX_PICTURES", 2)
    seen = ocr_pictures(r.pdf)
    assert seen.code == "ocr_bound" and "3 pictures" in str(seen.message)


def test_a_document_with_fonts_of_its_own_is_told_from_one_without():
    text = licence("BSD")[:600]
    assert embeds_fonts("docx", docx_with_font(b.docx_paras(text, rpr=_FONT_RPR), fonts.remapped({})))
    assert not embeds_fonts("docx", make_docx([text]))
    assert embeds_fonts("rtf", rb"{\rtf1{\fonttbl{\f0{\*\fontemb{\*\fontfile x.ttf}}Exhibit;}}\f0 text}")
    assert not embeds_fonts("rtf", rb"{\rtf1{\fonttbl{\f0 Times;}}\f0 text}")


@needs_soffice
def test_ocr_reads_the_letters_an_embedded_font_draws_not_its_character_codes():
    text = licence("BSD")
    hostile = docx_with_font(b.docx_paras(fonts.encode(text, fonts.rot13()), rpr=_FONT_RPR),
                             fonts.remapped(fonts.rot13()))
    ordinary = docx_with_font(b.docx_paras(licence("Apache-2.0")[:5000], rpr=_FONT_RPR), fonts.remapped({}))
    # one call, the ordinary document first: each is drawn in its own font (LibreOffice, run once
    # for both, would draw the second in the first one's "Exhibit Sans")
    got = render_many([RenderInput("docx", ordinary, "a.docx"), RenderInput("docx", hostile, "b.docx")])
    assert not any(isinstance(r, ExtractionError) for r in got)
    first, second = got
    assert first.pdf is not None and second.pdf is not None
    assert shared(second.text, text) < 0.1  # the character codes are ROT13
    seen = ocr_pages(second.pdf)
    assert seen.code is None and shared(seen.text, text) > 0.9
    seen = ocr_pages(first.pdf)
    assert seen.code is None and shared(seen.text, first.text) > 0.9 and shared(first.text, seen.text) > 0.9
    assert len(seen.texts) >= 2
    bounded = ocr_pages(first.pdf, limit=1)
    assert bounded.code == "ocr_bound" and bounded.texts == []
