"""PDF read as a viewer shows it, its other readings, and what fails closed (issue #25).

Every PDF here is written by hand (Courier, so each word's position is known) and read back by
the real pdfminer.six in its sandbox child. Each disguise hides junk words between the words of
a contract, or shows a contract the text layer does not hold; each test checks the visible
reading (``text``) or the named reading by real shingle containment, and a negative case.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import zlib

import numpy as np
import pytest

from auditor.extract import Limits, extract_bytes
from auditor.extract.pdf import worker as pdf_worker
from auditor.text.normalize import words
from auditor.text.shingle import shingle_text
from tests.support import synth
from tests.support.fixtures_build import serialize_pdf

JUNK = ["zebra", "quartz", "mango", "violet", "ember", "tundra", "pixel", "walnut"]
SIZE, ADV, LEAD = 10, 6.0, 12  # Courier: every glyph is 600/1000 em wide


@pytest.fixture(scope="module", autouse=True)
def _no_idle_pdf_children():
    """Stop this process's idle PDF children after the module: tests that kill the parent of
    every PDF child they see (tests/corpus/test_ingest.py) must not find the test runner's."""
    yield
    pdf_worker.shutdown()


@pytest.fixture(scope="module")
def contract() -> str:
    return " ".join(synth.contract(4242, 2_500, kind="lease").split())


def containment(contract: str, text: str) -> float:
    a = shingle_text(contract, keep_all=True).all
    b = shingle_text(text, keep_all=True).all
    return float(len(np.intersect1d(a, b)) / len(a))


def esc(word: str) -> bytes:
    return word.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def layout(words: list[str], gap: int = 0, top: float = 740) -> list[tuple[float, float, str]]:
    """(x, y, word) down a page, leaving ``gap`` characters after each word for a junk word."""
    out, x, y = [], 50.0, top
    for w in words:
        width = (len(w) + 1 + gap) * ADV
        if x + width > 560:
            x, y = 50.0, y - LEAD
        out.append((x, y, w))
        x += width
    return out


def at(x: float, y: float, word: str, size: float = SIZE, font: bytes = b"/F1") -> bytes:
    return b"BT %s %g Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n" % (font, size, x, y, esc(word))


def interleaved(contract: str, hide, gap: int = 0) -> bytes:
    """The contract's words in reading order, a junk word drawn by ``hide(x, y, junk)`` after
    each; with no ``gap`` the next word is drawn over it, so a reader sees no gap."""
    ops = []
    for i, (x, y, w) in enumerate(layout(contract.split(), gap=gap)):
        ops.append(at(x, y, w))
        ops.append(hide(x + (len(w) + 1) * ADV, y, JUNK[i % len(JUNK)]))
    return b"".join(ops)


def pdf(*pages: bytes, resources: bytes = b"", objects: tuple[bytes, ...] = (), annots: list[list[int]] | None = None,
        page_extra: bytes = b"", font_extra: bytes = b"") -> bytes:
    """A PDF of pages drawing the given content streams; ``objects`` are numbered from 4 +
    2 * len(pages) on, for XObjects and annotations the resources and ``annots`` name."""
    n = len(pages)
    base = 4 + 2 * n
    objs: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>",
                         b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (5 + 2 * i) for i in range(n)), n),
                         b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding %s >>" % font_extra]
    for i, content in enumerate(pages):
        data = zlib.compress(content)
        objs.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream")
        ann = b" /Annots [%s]" % b" ".join(b"%d 0 R" % (base + k) for k in annots[i]) if annots else b""
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]%s /Resources << /Font << /F1 3 0 R >> %s >> "
                    b"/Contents %d 0 R%s >>" % (page_extra, resources, 4 + 2 * i, ann))
    objs.extend(objects)
    return serialize_pdf(objs, 1)


def reading(ex, name: str) -> str:
    found = {r.name: r.text for r in ex.readings}
    assert name in found, sorted(found)
    return found[name]


def codes(ex) -> list[str]:
    return [part.split(":")[0] for part in (ex.unreadable or "").split("; ") if part]


# -- hidden glyphs -------------------------------------------------------------------------------

HIDING = {
    "render mode 3 (invisible)": lambda x, y, j: b"3 Tr " + at(x, y, j) + b"0 Tr\n",
    "render mode 7 (clip only)": lambda x, y, j: b"7 Tr " + at(x, y, j) + b"0 Tr\n",
    "white fill": lambda x, y, j: b"1 g " + at(x, y, j) + b"0 g\n",
    "white RGB": lambda x, y, j: b"1 1 1 rg " + at(x, y, j) + b"0 0 0 rg\n",
    "white CMYK": lambda x, y, j: b"0 0 0 0 k " + at(x, y, j) + b"0 0 0 1 k\n",
    "1 pt text": lambda x, y, j: at(x, y, j, size=1),
    "squeezed to 5% width": lambda x, y, j: b"5 Tz " + at(x, y, j) + b"100 Tz\n",
    "clipped away": lambda x, y, j: b"q 0 0 1 1 re W n " + at(x, y, j) + b"Q\n",
    "covered by a white box": lambda x, y, j: at(x, y, j) + b"1 g %.2f %.2f %.2f 14 re f 0 g\n" % (x - 1, y - 4, len(j) * ADV + 2),
}


@pytest.mark.parametrize("how", sorted(HIDING))
def test_hidden_glyphs_are_left_out_of_the_visible_reading(contract, how):
    ex = extract_bytes(pdf(interleaved(contract, HIDING[how])), "x.pdf")
    assert containment(contract, ex.text) == 1.0, (how, ex.text[:300])
    assert not any(j in ex.text for j in JUNK)
    every = reading(ex, "pdf:all-text")
    assert "zebra" in every and containment(contract, every) < 0.05
    assert ex.unreadable is None, ex.unreadable


SHOWN = {
    "black text": lambda x, y, j: at(x, y, j),
    "stroked text (mode 1)": lambda x, y, j: b"1 Tr " + at(x, y, j) + b"0 Tr\n",
    "grey text": lambda x, y, j: b"0.5 g " + at(x, y, j) + b"0 g\n",
    "white on a dark box": lambda x, y, j: b"0 g %.2f %.2f %.2f 14 re f 1 g " % (x - 1, y - 4, len(j) * ADV + 2) + at(x, y, j) + b"0 g\n",
    "6 pt text": lambda x, y, j: at(x, y, j, size=6),
    "inside a clip": lambda x, y, j: b"q 0 0 612 792 re W n " + at(x, y, j) + b"Q\n",
    "under a strike-through": lambda x, y, j: at(x, y, j) + b"%.2f %.2f %.2f 0.6 re f\n" % (x, y + 3, len(j) * ADV),
    "under a transparent box": lambda x, y, j: at(x, y, j) + b"q /GS1 gs 1 1 0 rg %.2f %.2f %.2f 14 re f Q\n" % (x - 1, y - 4, len(j) * ADV + 2),
}


@pytest.mark.parametrize("how", sorted(SHOWN))
def test_glyphs_a_viewer_shows_stay_in_the_visible_reading(contract, how):
    gs = b"/ExtGState << /GS1 << /Type /ExtGState /ca 0.3 /BM /Multiply >> >>"
    ex = extract_bytes(pdf(interleaved(contract, SHOWN[how], gap=7), resources=gs), "x.pdf")
    assert "zebra" in ex.text and containment(contract, ex.text) < 0.05, how
    assert "pdf:all-text" not in {r.name for r in ex.readings}


def test_a_layer_that_is_off_is_not_shown(contract):
    """Optional content (a PDF layer) that the document's default configuration turns off: a
    viewer hides it; a layer that is on is shown."""
    def doc(state: bytes) -> bytes:
        body = interleaved(contract, lambda x, y, j: b"/OC /L1 BDC " + at(x, y, j) + b"EMC\n")
        out = pdf(body, resources=b"/Properties << /L1 6 0 R >>", objects=(b"<< /Type /OCG /Name (Junk) >>",))
        return out.replace(b"<< /Type /Catalog /Pages 2 0 R >>",
                           b"<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [6 0 R] /D << %s >> >> >>" % state)
    ex = extract_bytes(doc(b"/OFF [6 0 R]"), "x.pdf")
    assert containment(contract, ex.text) == 1.0 and "zebra" not in ex.text
    assert "zebra" in reading(ex, "pdf:all-text")
    base = extract_bytes(doc(b"/BaseState /OFF"), "y.pdf")
    assert "zebra" not in base.text
    on = extract_bytes(doc(b"/ON [6 0 R]"), "z.pdf")
    assert "zebra" in on.text


def test_glyphs_under_an_image_drawn_over_them_are_not_shown(contract):
    res, _ = _scan(1)
    body = interleaved(contract, lambda x, y, j: at(x, y, j) + b"q %.2f 0 0 10 %.2f %.2f cm /Im1 Do Q\n" % (len(j) * ADV, x, y - 2))
    ex = extract_bytes(pdf(body, resources=res, objects=(IMAGE,)), "x.pdf")
    assert containment(contract, ex.text) == 1.0 and "zebra" not in ex.text
    under = interleaved(contract, lambda x, y, j: b"q %.2f 0 0 10 %.2f %.2f cm /Im1 Do Q\n" % (len(j) * ADV, x, y - 2) + at(x, y, j))
    assert "zebra" in extract_bytes(pdf(under, resources=res, objects=(IMAGE,)), "y.pdf").text  # text on an image


def test_text_outside_the_crop_box_is_not_shown(contract):
    body = b"".join(at(x, y, w) for x, y, w in layout(contract.split()))
    junk = b"".join(at(50 + 40 * (i % 12), 20 + 10 * (i // 12), j) for i, j in enumerate(JUNK * 6))
    ex = extract_bytes(pdf(body + junk, page_extra=b" /CropBox [0 100 612 792]"), "x.pdf")
    assert containment(contract, ex.text) == 1.0 and "zebra" not in ex.text
    assert "zebra" in reading(ex, "pdf:all-text")


def test_a_pdf_whose_every_glyph_is_hidden_fails_closed(contract):
    body = b"3 Tr " + b"".join(at(x, y, w) for x, y, w in layout(contract.split()))
    ex = extract_bytes(pdf(body), "x.pdf")
    assert codes(ex) == ["pdf-hidden"]
    assert containment(contract, ex.text) == 1.0


# -- scans and their OCR layer -------------------------------------------------------------------

IMAGE = b"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 4 >>\nstream\n\x80\xff\xff\x80\nendstream"


def _scan(n_pages: int) -> tuple[bytes, int]:
    """Resources naming the image object that follows ``n_pages`` pages, and its number."""
    number = 4 + 2 * n_pages
    return b"/XObject << /Im1 %d 0 R >>" % number, number


def test_an_ocr_layer_over_a_scan_is_its_reading(contract):
    res, _ = _scan(1)
    body = b"q 612 0 0 792 0 0 cm /Im1 Do Q\n3 Tr " + b"".join(at(x, y, w) for x, y, w in layout(contract.split()))
    ex = extract_bytes(pdf(body, resources=res, objects=(IMAGE,)), "x.pdf")
    assert containment(contract, ex.text) == 1.0 and ex.unreadable is None


def test_a_scan_with_a_decoy_text_layer_is_read_by_ocr_or_fails_closed(contract):
    """A page mostly image, with a line of text: OCR reads it (here a blank picture: nothing more
    to read). Without OCR the page is not read, and half the document unread refuses it whole."""
    res, _ = _scan(2)
    scan = b"q 612 0 0 792 0 0 cm /Im1 Do Q\n" + at(50, 740, "Exhibit 10.1") + at(50, 720, "Page 2 of 9")
    text = b"".join(at(x, y, w) for x, y, w in layout(contract.split()[:120]))
    data = pdf(text, scan, resources=res, objects=(IMAGE,))
    ex = extract_bytes(data, "x.pdf", Limits(ocr="never"))
    assert codes(ex) == ["pdf-image-text"] and "(2)" in ex.unreadable and "--ocr auto" in ex.unreadable
    assert ex.meta["unread_pages"][0]["page"] == 2 and ex.meta["unread_share"] == 0.5
    ex = extract_bytes(data, "x.pdf")
    assert ex.unreadable is None and [p["page"] for p in ex.meta["ocr"]["pages"]] == [2]
    logo = b"q 120 0 0 60 50 700 cm /Im1 Do Q\n" + text  # a logo above the text: an ordinary page
    assert extract_bytes(pdf(logo, text, resources=res, objects=(IMAGE,)), "y.pdf").unreadable is None


@pytest.mark.slow
def test_text_drawn_as_vector_outlines_fails_closed(contract):
    glyphs = b"".join(b"%d %d m %d %d %d %d %d %d c h f\n" % (x, y, x + 3, y + 8, x + 6, y + 8, x + 6, y)
                      for y in range(700, 400, -12) for x in range(50, 530, 7))
    decoy = b"".join(at(x, y, w) for x, y, w in layout(["Exhibit", "10.1"] * 10, top=760))
    ex = extract_bytes(pdf(glyphs + decoy), "x.pdf", Limits(ocr="never"))
    assert codes(ex) == ["pdf-image-text"] and "vector" in ex.unreadable
    assert extract_bytes(pdf(glyphs + decoy), "x.pdf").meta["ocr"]["pages"][0]["why"] == "outlines"
    chart = b"".join(b"%d %d m %d %d %d %d %d %d c h f\n" % (x, 300, x + 3, 308, x + 6, 308, x + 6, 300) for x in range(50, 530, 10))
    body = b"".join(at(x, y, w) for x, y, w in layout(contract.split()))
    assert extract_bytes(pdf(body + chart), "y.pdf").unreadable is None


# -- drawing order -------------------------------------------------------------------------------


def test_words_drawn_in_shuffled_order_fail_closed(contract):
    placed = layout(contract.split())
    shuffled = placed[:]
    random.Random(5).shuffle(shuffled)
    ex = extract_bytes(pdf(b"".join(at(x, y, w) for x, y, w in shuffled)), "x.pdf")
    assert "pdf-order" in codes(ex)
    plain = extract_bytes(pdf(b"".join(at(x, y, w) for x, y, w in placed)), "y.pdf")
    assert plain.unreadable is None and containment(contract, plain.text) == 1.0


@pytest.mark.slow
def test_words_drawn_backwards_fail_closed(contract):
    ops = []
    for x, y, w in layout(contract.split()):
        for k in reversed(range(len(w))):  # each word's letters drawn from its last to its first
            ops.append(at(x + k * ADV, y, w[k]))
    ex = extract_bytes(pdf(b"".join(ops)), "x.pdf")
    assert "pdf-order" in codes(ex)


def test_lines_drawn_bottom_up_and_two_columns_are_read_in_order(contract):
    """Orders a viewer does not show differently: pdfminer lays lines out by position."""
    placed = layout(contract.split())
    lines: dict[float, list] = {}
    for x, y, w in placed:
        lines.setdefault(y, []).append((x, y, w))
    bottom_up = b"".join(at(*p) for y in sorted(lines) for p in lines[y])
    ex = extract_bytes(pdf(bottom_up), "x.pdf")
    assert ex.unreadable is None and containment(contract, ex.text) == 1.0
    words = contract.split()
    half = len(words) // 2
    left = [(x * 0.45 + 20, y, w) for x, y, w in layout(words[:half])]
    right = [(x * 0.45 + 320, y, w) for x, y, w in layout(words[half:])]
    two = extract_bytes(pdf(b"".join(at(*p, size=4.5) for p in left + right)), "y.pdf")
    assert two.unreadable is None


# -- fonts whose Unicode map lies ----------------------------------------------------------------


def _to_unicode(mapping: dict[str, str]) -> bytes:
    entries = b"".join(b"<%02X> <%04X>\n" % (ord(a), ord(b)) for a, b in sorted(mapping.items()))
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def "
            b"1 begincodespacerange <00> <FF> endcodespacerange\n%d beginbfchar\n%sendbfchar\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end" % (len(mapping), entries))
    return b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream"


def test_a_font_whose_unicode_map_is_permuted_fails_closed(contract):
    letters = "abcdefghijklmnopqrstuvwxyz"
    shuffled = list(letters)
    random.Random(3).shuffle(shuffled)
    perm = dict(zip(letters, shuffled, strict=True)) | dict(zip(letters.upper(), "".join(shuffled).upper(), strict=True))
    body = b"".join(at(x, y, w) for x, y, w in layout(contract.split()))
    ex = extract_bytes(pdf(body, font_extra=b"/ToUnicode 6 0 R", objects=(_to_unicode(perm),)), "x.pdf")
    assert codes(ex) == ["pdf-font-map"], ex.unreadable
    assert containment(contract, ex.text) < 0.05  # gibberish: the reason it fails closed
    same = extract_bytes(pdf(body, font_extra=b"/ToUnicode 6 0 R",
                             objects=(_to_unicode({c: c for c in letters + letters.upper()}),)), "y.pdf")
    assert same.unreadable is None and containment(contract, same.text) == 1.0


def test_a_font_whose_unicode_map_leads_out_of_the_latin_script_fails_closed(contract):
    """The words check judges Latin and Cyrillic words only; a ToUnicode map sending the letters
    to CJK ideographs is caught by its disagreement with the font's own encoding."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    cjk = {c: chr(0x4E00 + i) for i, c in enumerate(letters + letters.upper())}
    body = b"".join(at(x, y, w) for x, y, w in layout(contract.split()))
    ex = extract_bytes(pdf(body, font_extra=b"/ToUnicode 6 0 R", objects=(_to_unicode(cjk),)), "x.pdf")
    assert "pdf-font-map" in codes(ex), ex.unreadable
    from auditor.extract.pdf.checks import _gibberish_fonts

    assert _gibberish_fonts({"F": ["\u5951\u7d04\u66f8\u306e\u6761\u9805"] * 60}) == []  # not judged


def test_text_in_other_languages_is_not_taken_for_a_permuted_font():
    french = ("Le preneur s'engage a payer le loyer convenu le premier jour de chaque mois, sans "
              "qu'il soit besoin d'une demande prealable, et a entretenir les locaux en bon etat "
              "de reparations locatives pendant toute la duree du present bail. ") * 4
    german = ("Der Mieter verpflichtet sich, die vereinbarte Miete jeweils am ersten Tag eines jeden "
              "Monats ohne vorherige Aufforderung zu zahlen und die Mietsache in einem guten Zustand "
              "zu erhalten, solange dieser Vertrag besteht und nicht gekuendigt wurde. ") * 4
    for text in (french, german):
        ex = extract_bytes(pdf(b"".join(at(x, y, w) for x, y, w in layout(text.split()))), "x.pdf")
        assert ex.unreadable is None, ex.unreadable


# -- annotations ---------------------------------------------------------------------------------


def _appearance(words: list[str], width: float = 512, height: float = 700) -> bytes:
    ops = b"".join(at(x - 50, y - 60, w) for x, y, w in layout(words, top=height + 40))
    return (b"<< /Type /XObject /Subtype /Form /BBox [0 0 %g %g] /Resources << /Font << /F1 3 0 R >> >> /Length %d >>\nstream\n"
            % (width, height, len(ops)) + ops + b"\nendstream")


def _annot(subtype: bytes, ap: int | None, contents: str = "", flags: int = 4, extra: bytes = b"") -> bytes:
    ap_ref = b" /AP << /N %d 0 R >>" % ap if ap else b""
    return (b"<< /Type /Annot /Subtype /%s /Rect [50 50 562 750] /F %d /Contents (%s)%s%s >>"
            % (subtype, flags, esc(contents), ap_ref, extra))


def test_an_annotation_appearance_is_drawn_as_a_viewer_draws_it(contract):
    # page 1's objects: 4 content, 5 page; 6 the appearance, 7 the annotation
    ex = extract_bytes(pdf(at(50, 760, "Cover page."), objects=(_appearance(contract.split()), _annot(b"FreeText", 6)),
                           annots=[[1]]), "x.pdf")
    assert containment(contract, ex.text) == 1.0 and ex.text.startswith("Cover page.")
    hidden = extract_bytes(pdf(at(50, 760, "Cover page."), objects=(_appearance(contract.split()), _annot(b"FreeText", 6, flags=2)),
                               annots=[[1]]), "y.pdf")
    assert containment(contract, hidden.text) < 0.05  # a hidden annotation is not drawn


def test_form_field_values_and_notes_are_readings(contract):
    field = _annot(b"Widget", None, extra=b" /FT /Tx /V (%s)" % esc(contract))
    note = _annot(b"Text", None, contents=contract)
    ex = extract_bytes(pdf(at(50, 760, "Cover page."), objects=(field,), annots=[[0]]), "x.pdf")
    assert containment(contract, ex.text) == 1.0  # a field without an appearance: the viewer shows its value
    popup = extract_bytes(pdf(at(50, 760, "Cover page."), objects=(note,), annots=[[0]]), "y.pdf")
    assert containment(contract, popup.text) < 0.05
    assert containment(contract, reading(popup, "pdf:annotations")) == 1.0


# -- poppler as the oracle -----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs poppler-utils (pdftoppm)")
def test_poppler_draws_nothing_where_the_visible_reading_has_no_glyph(tmp_path):
    """A hidden word leaves its place on the rendered page white, a shown word does not."""
    for how, hide in {**HIDING, "black text": SHOWN["black text"]}.items():
        path = tmp_path / "x.pdf"
        path.write_bytes(pdf(at(50, 740, "Shown") + hide(150, 740, "zebra")))
        subprocess.run(["pdftoppm", "-r", "72", "-gray", "-x", "140", "-y", "40", "-W", "60", "-H", "20",
                        str(path), str(tmp_path / "crop")], check=True, capture_output=True)
        png = next(tmp_path.glob("crop*.pgm"))
        pixels = png.read_bytes().split(b"\n", 3)[3]
        inked = sum(1 for b in pixels if b < 128)
        png.unlink()
        ex = extract_bytes(path.read_bytes(), "x.pdf")
        assert (inked == 0) == ("zebra" not in ex.text), (how, inked)


def test_a_font_whose_unicode_map_reads_one_glyph_as_several_letters_fails_closed(contract):
    """Each letter drawn has a code of its own, sent to the letter's glyph by the CIDToGIDMap;
    the ToUnicode map reads each word's codes as a decoy word of its length, so every text layer
    reads the decoy while the page draws the contract (red team round 5). A glyph is one shape:
    the map gives it several letters, and the font fails closed. The same font with a true map
    is read."""
    from tests.support.redteam_round5_paged import _cid_font_pdf, _decoy_words

    ex = extract_bytes(_cid_font_pdf(contract, _decoy_words("test")), "x.pdf")
    assert codes(ex) == ["pdf-font-map"] and "one glyph read as several letters" in ex.unreadable
    true = extract_bytes(_cid_font_pdf(contract, {}), "y.pdf")  # words placed in Courier's cells: read as words
    from collections import Counter

    read, wanted = Counter(words(true.text)), Counter(words(contract))
    assert true.unreadable is None and sum((read & wanted).values()) > 0.95 * sum(wanted.values())


@pytest.mark.parametrize(("policy", "hidden"), [("/AnyOn", True), ("/AllOff", False)])
def test_optional_content_through_a_membership_dictionary_is_read_as_a_viewer_shows_it(contract, policy, hidden):
    """A membership dictionary (/OCMD) of a group that is off by default: AnyOn hides its
    content, AllOff shows it (PDF 32000-1, 8.11.2.2)."""
    from tests.support import redteam_build as b

    ops = b.pdf_junk_ops(contract, lambda x, y, j: b"/OC /M1 BDC " + b.at(x, y, j) + b"EMC\n")
    base = b.first_object(len(ops))
    data = b.pdf(ops, resources=b"/Properties << /M1 %d 0 R >>" % (base + 1),
                 objects=[b"<< /Type /OCG /Name (Notes) >>", b"<< /Type /OCMD /OCGs [%d 0 R] /P %s >>" % (base, policy.encode())],
                 catalog_extra=b" /OCProperties << /OCGs [%d 0 R] /D << /OFF [%d 0 R] >> >>" % (base, base))
    ex = extract_bytes(data, "x.pdf")
    assert (containment(contract, ex.text) > 0.95) is hidden
    assert ("quartz" in ex.text) is not hidden
