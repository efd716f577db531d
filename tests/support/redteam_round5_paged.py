"""The red team's fifth round (issue #40), paged, office and plain formats: disguises by principle
that passed the gate after round 4, and clean documents of the same kinds. Built as the earlier
rounds are (tests/support/redteam_round4.py), each case named ``r5-<format>-<construct>``.

Principles (``Case.principle``):

* **line-margin**, **layout**: plain text laid out for paper whose line ends are not LF: the
  pleading margin and the two columns of round 3 with Windows (CR LF) or old Macintosh (CR) line
  ends. Every text viewer breaks lines there; the layout readers split the text at LF only.
* **shown-not-read**: text a reader sees that no reading holds. A PDF font whose glyphs are the
  letters of the contract while its ToUnicode map (one character code per letter drawn) gives
  each word a decoy word of the same length; lines of the contract drawn as pictures on pages
  that are mostly text.
* **junk-hidden**: junk a reader does not see, between the contract's words: a PDF font whose
  glyphs draw nothing; junk in the colour of a picture painted beneath it (PDF, .docx, flat
  ODF); junk clipped by a clip path of several boxes; junk in optional content hidden through a
  membership dictionary (``/OCMD``) or a Form XObject's ``/OC``; RTF letters whose ANSI
  fallback (``\\uc``) is junk.
* **shown-not-read** also: an RTF file whose paragraphs are ``\\upr`` groups, the Unicode form
  (what a word processor shows) the contract, the ANSI form a decoy.
* **container**: an EDGAR part the tool skips while EDGAR's viewer shows it: a text file whose
  content is a JSON list, a text file whose TYPE is an XBRL one, an HTML file whose
  DESCRIPTION is the XBRL viewer's.

Every disguised case carries a stored contract (``payload``) that a real reader shows:
``benchmarks/redteam.py --oracle --round 5`` renders each view and checks it by OCR.
"""

from __future__ import annotations

import base64
import io
import json
import struct
import zlib

from tests.support import redteam_build as b
from tests.support import redteam_fonts as fonts
from tests.support.redteam_build import esc, page
from tests.support.redteam_cases import Case, Texts, View, decoy
from tests.support.redteam_round3 import _pleading, fodt

ROUND = 5


def _case(principle: str, family: str, name: str, fmt: str, key: str | None, sees: str, files: dict[str, bytes],
          views: list[View] | None = None, note: str = "") -> Case:
    return Case(family, f"r5-{name}", fmt, key, sees, files, views=views or [], note=note, round=ROUND,
                principle=principle)


# -- plain text whose lines end otherwise than LF ----------------------------------------------------

_ENDS = {"crlf": ("\r\n", "Windows line ends (CR LF)"), "cr": ("\r", "old Macintosh line ends (CR alone)")}


def _two_columns(text: str, gutter: str = "     ", width: int = 38) -> str:
    col = b.lines_of(text, width)
    half = (len(col) + 1) // 2
    left, right = col[:half], col[half:] + [""] * (2 * half - len(col))
    return "\n".join(f"{a.ljust(width)}{gutter}{z}".rstrip() for a, z in zip(left, right, strict=True)) + "\n"


def text_line_ends(t: Texts) -> list[Case]:
    out = []
    c = t["lease"]
    pleading = _pleading(c, lambda i, n, line: f"{i:>2}  {line}".rstrip())
    columns = _two_columns(c)
    for end, (sep, how) in _ENDS.items():
        out.append(_case("line-margin", "order", f"txt-pleading-{end}", "txt", "lease",
                         f"the lease on pleading paper, its lines numbered 1 to 28 in the left margin, with {how}; a "
                         "reader skips the margin", {"exhibit.txt": pleading.replace("\n", sep).encode()}))
        out.append(_case("layout", "order", f"txt-two-columns-{end}", "txt", "lease",
                         f"the lease set in two columns with a gutter of spaces, with {how}: a reader reads down the "
                         "left column, then the right", {"exhibit.txt": columns.replace("\n", sep).encode()}))
    nb = _pleading(c, lambda i, n, line: f"{i:>2}\u00a0\u00a0{line}".rstrip())
    out.append(_case("line-margin", "order", "txt-pleading-nbsp-gutter", "txt", "lease",
                     "the lease on pleading paper, its lines numbered 1 to 28 in the left margin, two no-break spaces "
                     "(U+00A0) between number and line; a reader skips the margin", {"exhibit.txt": nb.encode()}))
    out.append(_case("layout", "order", "txt-two-columns-nbsp-gutter", "txt", "lease",
                     "the lease set in two columns, the gutter of no-break spaces (U+00A0): a reader reads down the "
                     "left column, then the right", {"exhibit.txt": _two_columns(c, "\u00a0" * 5).encode()}))
    out.append(_case("layout", "order", "txt-two-narrow-columns", "txt", "lease",
                     "the lease set in two narrow columns (18 characters) with a gutter of six spaces: a reader reads "
                     "down the left column, then the right", {"exhibit.txt": _two_columns(c, " " * 6, 18).encode()}))
    sub = b.submission([{"type": "8-K", "filename": "form8k.txt", "text": decoy("r5-edgar-cr", 60)},
                        {"type": "EX-10.1", "filename": "ex10.txt", "text": pleading.replace("\n", "\r")}],
                       {"accession_number": "0000950170-24-055501"})
    out.append(_case("line-margin", "edgar-part", "edgar-txt-pleading-cr", "edgar", "lease",
                     "exhibit EX-10.1, a .txt part, shows the lease on pleading paper with CR line ends",
                     {"0000950170-24-055501.txt": sub},
                     views=[View("ex10.txt", "text", pleading.replace("\n", "\r").encode())]))
    return out


# -- PDF: fonts ------------------------------------------------------------------------------------

def _decoy_words(seed: str) -> dict[int, list[str]]:
    """Words of a decoy agreement by length, to stand for words of the same length."""
    from tests.support import synth

    by: dict[int, list[str]] = {}
    for w in synth.contract(9700 + len(seed), 30_000, kind="services").split():
        core = "".join(ch for ch in w if ch.isalpha()).lower()
        if core and core == w.strip(".,;:()").lower():
            by.setdefault(len(core), [])
            if core not in by[len(core)]:
                by[len(core)].append(core)
    return by


def _cid_font_pdf(text: str, say: dict[int, list[str]]) -> bytes:
    """The text in Aileron (embedded, Type 0, Identity-H), one character code per letter drawn:
    each code's glyph is the letter, and the ToUnicode map gives each word's letters those of a
    decoy word of the same length (``say``), so every text layer reads the decoy."""
    from fontTools.ttLib import TTFont

    data = fonts.aileron()
    font = TTFont(io.BytesIO(data))
    cmap = font.getBestCmap()
    order = font.getGlyphOrder()
    gid = {name: i for i, name in enumerate(order)}
    upem = font["head"].unitsPerEm
    hmtx = font["hmtx"]
    codes: list[int] = [0]  # code -> glyph id (code 0 unused)
    uni: dict[int, str] = {}
    widths: list[int] = [0]
    pages_ops: list[bytes] = []
    turn: dict[int, int] = {}
    for pg in b.pdf_layout(text):
        ops = []
        for x, y, w in pg:
            letters = [ch for ch in w if ch.isalpha()]
            pool = say.get(len(letters)) or []
            k = turn.get(len(letters), 0)
            turn[len(letters)] = k + 1
            stand = iter(pool[k % len(pool)] if pool else "".join(letters).lower())
            hexs = []
            for ch in w:
                glyph = cmap.get(ord(ch), ".notdef")
                codes.append(gid.get(glyph, 0))
                widths.append(round(hmtx[glyph][0] * 1000 / upem) if glyph in hmtx.metrics else 500)
                said = next(stand) if ch.isalpha() else ch
                uni[len(codes) - 1] = said.upper() if ch.isupper() else said
                hexs.append(b"%04X" % (len(codes) - 1))
            ops.append(b"BT /F2 10 Tf 1 0 0 1 %.2f %.2f Tm <%s> Tj ET\n" % (x, y, b"".join(hexs)))
        pages_ops.append(b"".join(ops))
    n = len(pages_ops)
    base = b.first_object(n)
    gidmap = b"".join(struct.pack(">H", g) for g in codes)
    entries = b"".join(b"<%04X> <%s>\n" % (code, "".join(f"{ord(c):04X}" for c in s).encode())
                       for code, s in sorted(uni.items()))
    chunks = [entries.splitlines(keepends=True)[i:i + 100] for i in range(0, len(uni), 100)]
    cmap_body = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def "
                 b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
                 + b"".join(b"%d beginbfchar\n%sendbfchar\n" % (len(ch), b"".join(ch)) for ch in chunks)
                 + b"endcmap CMapName currentdict /CMap defineresource pop end end")
    w_array = b"[1 [%s]]" % b" ".join(b"%d" % v for v in widths[1:])
    objects = [
        b"<< /Type /Font /Subtype /Type0 /BaseFont /AAAAAA+Aileron /Encoding /Identity-H /DescendantFonts [%d 0 R] "
        b"/ToUnicode %d 0 R >>" % (base + 1, base + 3),
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /AAAAAA+Aileron /CIDSystemInfo << /Registry (Adobe) "
        b"/Ordering (Identity) /Supplement 0 >> /FontDescriptor %d 0 R /W %s /DW 500 /CIDToGIDMap %d 0 R >>"
        % (base + 2, w_array, base + 4),
        b"<< /Type /FontDescriptor /FontName /AAAAAA+Aileron /Flags 32 /FontBBox [-200 -250 1200 950] /ItalicAngle 0 "
        b"/Ascent 950 /Descent -250 /CapHeight 700 /StemV 80 /FontFile2 %d 0 R >>" % (base + 5),
        b.stream(cmap_body),
        b.stream(gidmap),
        b.stream(data, b" /Length1 %d" % len(data)),
    ]
    return b.pdf(pages_ops, objects=objects, fonts=b"/F2 %d 0 R" % base)


def _blank_courier() -> bytes:
    """A TrueType font whose glyphs draw nothing, each 600 units wide (as Courier's): text set in
    it takes its room and is nowhere on the page."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    chars = [chr(c) for c in range(33, 127)]
    names = [".notdef", "space", *(f"g{ord(c)}" for c in chars)]
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({32: "space", **{ord(c): f"g{ord(c)}" for c in chars}})
    fb.setupGlyf({n: TTGlyphPen(None).glyph() for n in names})
    fb.setupHorizontalMetrics({n: (600, 0) for n in names})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Exhibit Mono", "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200, fsType=0)
    fb.setupPost()
    buf = io.BytesIO()
    fb.font.save(buf)
    return buf.getvalue()


def pdf_fonts(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    out.append(_case("shown-not-read", "visible-not-read", "pdf-cid-word-tounicode", "pdf", "BSD",
                     "the BSD licence in an embedded font (Type 0, Identity-H) with one character code per letter "
                     "drawn; the ToUnicode map gives each word's codes the letters of a decoy word of the same length",
                     {"exhibit.pdf": _cid_font_pdf(c, _decoy_words("r5-pdf-cid"))}))
    blank = _blank_courier()
    ops = b.pdf_junk_ops(c, lambda x, y, j: b.at(x, y, j, font=b"/F2"), gap=7)
    base = b.first_object(len(ops))
    objects = [
        b"<< /Type /Font /Subtype /TrueType /BaseFont /AAAAAA+ExhibitMono /FirstChar 32 /LastChar 126 /Widths [%s] "
        b"/FontDescriptor %d 0 R /Encoding /WinAnsiEncoding >>" % (b" ".join([b"600"] * 95), base + 1),
        b"<< /Type /FontDescriptor /FontName /AAAAAA+ExhibitMono /Flags 32 /FontBBox [0 -200 600 800] /ItalicAngle 0 "
        b"/Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 %d 0 R >>" % (base + 2),
        b.stream(blank, b" /Length1 %d" % len(blank)),
    ]
    out.append(_case("junk-hidden", "hidden-junk", "pdf-embedded-blank-font", "pdf", "BSD",
                     "the BSD licence, words eight spaces apart; a junk word in each gap is set in an embedded TrueType "
                     "font whose glyphs draw nothing", {"exhibit.pdf": b.pdf(ops, objects=objects, fonts=b"/F2 %d 0 R" % base)}))
    return out


# -- PDF: what is painted beneath, clips, optional content ------------------------------------------

CREAM = (0.95, 0.92, 0.85)


def _rgb_image(rgb: tuple[float, float, float], w: int = 4, h: int = 4) -> bytes:
    pixel = bytes(round(v * 255) for v in rgb)
    return b.stream(pixel * (w * h), b" /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                                     b"/BitsPerComponent 8" % (w, h))


def pdf_beneath(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    for name, rgb, how in (("picture-background-colour", CREAM, "the cream of a picture that fills the page beneath "
                            "the text"),
                           ("white-picture-white-text", (1.0, 1.0, 1.0), "white, on a white picture that fills the "
                            "page beneath the text")):
        colour = b"%.2f %.2f %.2f rg " % rgb
        ops = b.pdf_junk_ops(c, lambda x, y, j, colour=colour: colour + b.at(x, y, j) + b"0 0 0 rg\n", gap=7)
        n = len(ops)
        ops = [b"q 612 0 0 792 0 0 cm /Im0 Do Q\n" + o for o in ops]
        base = b.first_object(n)
        out.append(_case("junk-hidden", "hidden-junk", f"pdf-{name}", "pdf", "BSD",
                         f"the BSD licence, words eight spaces apart; a junk word in each gap is drawn in {how}",
                         {"exhibit.pdf": b.pdf(ops, resources=b"/XObject << /Im0 %d 0 R >>" % base,
                                               objects=[_rgb_image(rgb)])}))
    # a clip path of one box per word of the licence: the junk in the gaps is clipped away
    layout = b.pdf_layout(c, gap=7)
    js = iter(b.junk_after([w for pg in layout for _, _, w in pg]))
    pages = []
    for pg in layout:
        boxes = b"".join(b"%.2f %.2f %.2f %.2f re " % (x - 1, y - 3, len(w) * b.ADV + 2, 12) for x, y, w in pg)
        ops = []
        for x, y, w in pg:
            ops.append(b.at(x, y, w))
            j = next(js)
            if j:
                ops.append(b.at(x + (len(w) + 1) * b.ADV, y, j[:6]))
        pages.append(b"q " + boxes + b"W n\n" + b"".join(ops) + b"Q\n")
    out.append(_case("junk-hidden", "hidden-junk", "pdf-clip-word-boxes", "pdf", "BSD",
                     "the BSD licence, words eight spaces apart; the page is clipped to a path of one box around each "
                     "word, so the junk word drawn in each gap is clipped away", {"exhibit.pdf": b.pdf(pages)}))
    # optional content a viewer hides: through a membership dictionary, and on a Form XObject
    ops = b.pdf_junk_ops(c, lambda x, y, j: b"/OC /M1 BDC " + b.at(x, y, j) + b"EMC\n")
    base = b.first_object(len(ops))
    catalog = b" /OCProperties << /OCGs [%d 0 R] /D << /OFF [%d 0 R] /Order [%d 0 R] >> >>" % (base, base, base)
    out.append(_case("junk-hidden", "hidden-junk", "pdf-ocmd-off", "pdf", "BSD",
                     "the BSD licence; a junk word after every word is optional content whose membership dictionary "
                     "(/OCMD) names a layer that is off by default",
                     {"exhibit.pdf": b.pdf(ops, resources=b"/Properties << /M1 %d 0 R >>" % (base + 1),
                                           objects=[b"<< /Type /OCG /Name (Notes) >>",
                                                    b"<< /Type /OCMD /OCGs [%d 0 R] /P /AnyOn >>" % base],
                                           catalog_extra=catalog)}))
    forms = {j: k for k, j in enumerate(b.JUNK)}
    ops = b.pdf_junk_ops(c, lambda x, y, j: b"q 1 0 0 1 %.2f %.2f cm /J%d Do Q\n" % (x, y, forms[j]))
    base = b.first_object(len(ops))
    objects = [b"<< /Type /OCG /Name (Notes) >>"] + [
        b.stream(b.at(0, 0, j), b" /Type /XObject /Subtype /Form /BBox [-2 -4 200 14] /OC %d 0 R "
                                b"/Resources << /Font << /F1 3 0 R >> >>" % base) for j in b.JUNK]
    xobjects = b"/XObject << %s >>" % b" ".join(b"/J%d %d 0 R" % (k, base + 1 + k) for k in range(len(b.JUNK)))
    out.append(_case("junk-hidden", "hidden-junk", "pdf-form-oc-off", "pdf", "BSD",
                     "the BSD licence; a junk word after every word is drawn by a Form XObject whose /OC names a layer "
                     "that is off by default", {"exhibit.pdf": b.pdf(ops, resources=xobjects, objects=objects,
                                                                      catalog_extra=catalog)}))
    return out


def _line_png(line: str, height: int = 24) -> tuple[bytes, int, int]:
    """One line of text as a grey picture (Aileron, as Pillow ships it), 2 px a point."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(io.BytesIO(fonts.aileron()), 18)
    width = max(8, int(font.getlength(line)) + 8)
    img = Image.new("L", (width, height), 255)
    ImageDraw.Draw(img).text((4, 2), line, fill=0, font=font)
    return img.tobytes(), width, height


def pdf_pictures(t: Texts) -> list[Case]:
    """The licence's lines as pictures, one picture a line, on pages that are mostly text: a
    decoy paragraph and a wide margin; the pictures cover a third of each page."""
    c = t["BSD"]
    lines = [x for x in b.lines_of(c, 86) if x]
    per = 22
    dw = decoy("r5-pdf-line-pictures").split()
    pages, objects = [], []
    n_pages = (len(lines) + per - 1) // per
    base = b.first_object(n_pages)
    xobjects = []
    for p in range(n_pages):
        ops = [b.at(b.LEFT, 760, " ".join(dw[p * 12:p * 12 + 12]), size=9)]
        for k, line in enumerate(lines[p * per:(p + 1) * per]):
            pixels, w, h = _line_png(line)
            objects.append(b.image_xobject(pixels, w, h))
            name = b"/L%d" % (len(objects) - 1)
            xobjects.append(b"%s %d 0 R" % (name, base + len(objects) - 1))
            y = 720 - k * 14
            ops.append(b"q %.2f 0 0 12 %.2f %.2f cm %s Do Q\n" % (w / 2, b.LEFT, y, name))
        pages.append(b"".join(ops))
    data = b.pdf(pages, resources=b"/XObject << %s >>" % b" ".join(xobjects), objects=objects)
    return [_case("shown-not-read", "visible-not-read", "pdf-line-pictures", "pdf", "BSD",
                  "the BSD licence, each line a picture of its words (pages mostly text: a decoy line on top, the "
                  "pictures a third of the page); the text layer is the decoy", {"exhibit.pdf": data})]


# -- office: transparent text, text in the colour of a picture beneath -------------------------------

def _png_rgb(rgb: tuple[int, int, int], w: int = 8, h: int = 8) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


CREAM_HEX = "F2EBD9"
_CREAM_RGB = (0xF2, 0xEB, 0xD9)


def office_fill(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    # a cream picture behind the text that fills the page; junk in cream
    cx, cy = 7772400, 10058400  # 8.5 by 11 inches, in EMU
    picture = ('<w:p><w:r><w:drawing><wp:anchor distT="0" distB="0" distL="0" distR="0" simplePos="0" relativeHeight="1" '
               'behindDoc="1" locked="0" layoutInCell="1" allowOverlap="1"><wp:simplePos x="0" y="0"/>'
               '<wp:positionH relativeFrom="page"><wp:posOffset>0</wp:posOffset></wp:positionH>'
               '<wp:positionV relativeFrom="page"><wp:posOffset>0</wp:posOffset></wp:positionV>'
               f'<wp:extent cx="{cx}" cy="{cy}"/><wp:wrapNone/><wp:docPr id="9" name="Paper"/>'
               '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>'
               '<pic:nvPicPr><pic:cNvPr id="1" name="paper.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill>'
               '<a:blip r:embed="rIdImg"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm>'
               f'<a:off x="0" y="0"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr>'
               "</pic:pic></a:graphicData></a:graphic></wp:anchor></w:drawing></w:r></w:p>")
    body = picture + b.docx_junk(c, lambda j: b.run(j, f'<w:color w:val="{CREAM_HEX}"/>'))
    rels = f'<Relationship Id="rIdImg" Type="{b._REL_NS}/image" Target="media/paper.png"/>'
    out.append(_case("junk-hidden", "hidden-junk", "docx-picture-behind-text", "docx", "BSD",
                     "the BSD licence on a cream picture placed behind the text over the whole page; a junk word after "
                     "every word is in the picture's cream",
                     {"exhibit.docx": b.docx(body, parts={"word/media/paper.png": _png_rgb(_CREAM_RGB)}, rels=rels)}))
    png = base64.b64encode(_png_rgb(_CREAM_RGB)).decode()
    words = " ".join(b.paragraphs(c)).split(" ")
    js = iter(b.junk_after(words))
    spans = " ".join(esc(w) + (f' <text:span text:style-name="J">{j}</text:span>' if (j := next(js)) else "")
                     for w in words)
    style = (f'<style:style style:name="J" style:family="text"><style:text-properties fo:color="#{CREAM_HEX.lower()}"/>'
             '</style:style><style:style style:name="P" style:family="graphic"><style:graphic-properties '
             'style:run-through="background" style:wrap="run-through" style:vertical-pos="from-top" '
             'style:vertical-rel="page" style:horizontal-pos="from-left" style:horizontal-rel="page" fo:border="none" '
             'draw:fill="none" draw:stroke="none"/></style:style>')
    frame = ('<draw:frame draw:style-name="P" text:anchor-type="page" text:anchor-page-number="1" svg:x="0cm" svg:y="0cm" '
             'svg:width="21.59cm" svg:height="27.94cm" draw:z-index="0"><draw:image><office:binary-data>'
             f"{png}</office:binary-data></draw:image></draw:frame>")
    data = fodt(f"{frame}<text:p>{spans}</text:p>", styles=style)
    page_style = ('<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21.59cm" '
                  'fo:page-height="27.94cm" fo:margin="2cm"><style:background-image xlink:type="simple" '
                  f'style:repeat="stretch"><office:binary-data>{png}</office:binary-data></style:background-image>'
                  '</style:page-layout-properties></style:page-layout>')
    bg = fodt(f'<text:p text:style-name="P1">{spans}</text:p>', styles=style + '<style:style style:name="P1" '
              'style:family="paragraph" style:master-page-name="Standard"/>' + page_style)
    bg = bg.replace(b"</office:automatic-styles>", b'</office:automatic-styles><office:master-styles><style:master-page '
                    b'style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>')
    bg = bg.replace(b"xmlns:svg=", b'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:svg=')
    out.append(_case("junk-hidden", "hidden-junk", "fodt-page-background-picture", "fodt", "BSD",
                     "a flat OpenDocument text showing the BSD licence on a page whose background is a cream picture "
                     "(style:background-image); a junk word after every word is in the picture's cream",
                     {"exhibit.fodt": bg}, views=[View("exhibit.fodt", "office", bg)]))
    out.append(_case("junk-hidden", "hidden-junk", "fodt-picture-behind-text", "fodt", "BSD",
                     "a flat OpenDocument text showing the BSD licence on a cream picture that fills the page behind "
                     "the text; a junk word after every word is in the picture's cream", {"exhibit.fodt": data},
                     views=[View("exhibit.fodt", "office", data)]))
    return out


# -- RTF: the Unicode and ANSI forms of one text -----------------------------------------------------

def _rtf_u(text: str) -> str:
    return "".join(f"\\u{ord(ch) if ord(ch) < 32768 else ord(ch) - 65536}?" if ch not in " " else " " for ch in text)


def rtf_unicode(t: Texts) -> list[Case]:
    c = t["BSD"]
    dw = decoy("r5-rtf-upr").split()
    paras = b.paragraphs(c)
    body = "".join(f"{{\\upr{{{' '.join(dw[(i * 7) % 60:(i * 7) % 60 + 7])}}}{{\\*\\ud{{{_rtf_u(p)}}}}}}}\\par\n"
                   for i, p in enumerate(paras))
    data = ("{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}\\f0\\fs22\n" + body + "}").encode()
    out = [_case("shown-not-read", "visible-not-read", "rtf-upr-ud", "rtf", "BSD",
                 "an RTF file whose paragraphs are \\upr groups: a word processor shows the Unicode form (\\ud: the "
                 "BSD licence), the ANSI form holds seven words of a decoy", {"exhibit.rtf": data},
                 views=[View("exhibit.rtf", "office", data)])]
    junk = iter(b.JUNK * 400)
    body = "".join("{\\uc6 " + "".join(f"\\u{ord(ch)}{next(junk)[:6].ljust(6, 'x')}" if ch.isalpha() else ch for ch in p)
                   + "}\\par\n" for p in paras)
    data = ("{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}\\f0\\fs22\n" + body + "}").encode()
    out.append(_case("junk-hidden", "hidden-junk", "rtf-uc-fallback-junk", "rtf", "BSD",
                     "an RTF file showing the BSD licence, every letter a \\u character whose six-character ANSI "
                     "fallback (\\uc6) is junk a word processor skips", {"exhibit.rtf": data},
                     views=[View("exhibit.rtf", "office", data)]))
    return out


# -- EDGAR parts the tool skips and EDGAR shows --------------------------------------------------------

def edgar_skipped(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    cover = {"type": "8-K", "filename": "form8k.htm", "text": f"<html><body><p>{esc(decoy(78, 60))}</p></body></html>"}

    def add(name: str, doc: dict, how: str, view: View) -> None:
        acc = f"0000950170-24-0{55510 + len(out)}"
        out.append(_case("container", "edgar-part", f"edgar-{name}", "edgar", "BSD",
                         f"a part EDGAR's viewer shows holds the BSD licence: {how}",
                         {f"{acc}.txt": b.submission([cover, doc], {"accession_number": acc})}, views=[view]))

    cid = _cid_font_pdf(c, _decoy_words("r5-edgar-cid"))
    add("pdf-cid-word-tounicode", {"type": "EX-10.1", "filename": "ex10.pdf", "data": cid},
        "a PDF part whose font's ToUnicode map gives each word a decoy word of its length",
        View("ex10.pdf", "pdf", cid))
    blank = next(x for x in pdf_fonts(t) if x.name == "r5-pdf-embedded-blank-font").files["exhibit.pdf"]
    z = b.zip_bytes([("ex10.pdf", blank)])
    add("zip-of-pdf-blank-font", {"type": "EX-10.1", "filename": "ex10.zip", "data": z},
        "a uuencoded zip holding a PDF whose junk words are set in an embedded font that draws nothing",
        View("ex10.pdf", "pdf", blank))
    j = json.dumps(b.paragraphs(c), indent=1)
    add("json-text-part", {"type": "EX-10.1", "filename": "ex10.txt", "text": j},
        "a .txt part whose text is a JSON list of the licence's paragraphs, each in quotes",
        View("ex10.txt", "text", j.encode()))
    add("xbrl-type-text-part", {"type": "EX-101.LAB", "filename": "ex10.txt", "text": c},
        "a .txt part, the licence as plain text, whose TYPE is an XBRL linkbase's (EX-101.LAB)",
        View("ex10.txt", "text", c.encode()))
    h = page(b.html_paras(c)).decode()
    add("viewer-description-html", {"type": "XML", "filename": "R9.htm", "description": "IDEA: XBRL DOCUMENT", "text": h},
        "an HTML part whose DESCRIPTION is the one the SEC's XBRL viewer gives its pages",
        View("R9.htm", "html", h.encode()))
    return out


# -- clean documents of these kinds ------------------------------------------------------------------

def clean5(t: Texts) -> list[Case]:
    from tests.support import synth

    out = []

    def add(name: str, fmt: str, sees: str, files: dict[str, bytes]) -> None:
        out.append(_case("clean", "clean", name, fmt, None, sees, files))

    filing = ("UNITED STATES DISTRICT COURT\n\nSOUTHERN DISTRICT OF NEW YORK\n\nMEMORANDUM OF LAW\n\n"
              + synth.contract(8911, 6_000, kind="settlement"))
    add("txt-pleading-crlf", "txt", "an unrelated court filing on pleading paper, numbered 1 to 28, with Windows line ends",
        {"memorandum.txt": _pleading(filing, lambda i, n, line: f"{i:>2}  {line}".rstrip()).replace("\n", "\r\n").encode()})
    add("txt-two-columns-crlf", "txt", "an unrelated agreement in two columns, with Windows line ends",
        {"columns.txt": _two_columns(synth.contract(8912, 5_000, kind="employment")).replace("\n", "\r\n").encode()})
    brief = synth.contract(8913, 6_000, kind="purchase")
    lines = b.lines_of(brief, 40)
    per = 2 * 56
    pages = []
    for p in range(0, len(lines), per):
        ops = []
        for k, line in enumerate(lines[p:p + per]):
            col, row = divmod(k, 56)
            if line:
                ops.append(b"BT /F1 9 Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n" % (50 + col * 270, 740 - row * 12, b.pdf_esc(line)))
        pages.append(b"".join(ops))
    add("pdf-two-column-brief", "pdf", "an unrelated brief set in two columns, each column drawn top to bottom",
        {"brief.pdf": b.pdf(pages)})
    scan_text = synth.contract(8914, 2_500, kind="lease")
    pixels, w, h = b.page_image(scan_text)
    layer = b"".join(b"3 Tr " + b.at(x, y, word) + b"0 Tr\n" for x, y, word in b.pdf_layout(scan_text)[0])
    base = b.first_object(1)
    add("pdf-scanned-page", "pdf", "an unrelated lease as a scanned page with an invisible OCR text layer over it",
        {"scan.pdf": b.pdf([b"q 612 0 0 792 0 0 cm /Im0 Do Q\n" + layer], resources=b"/XObject << /Im0 %d 0 R >>" % base,
                           objects=[b.image_xobject(pixels, w, h)])})
    logo = b"/OC /L1 BDC q 0.12 0.22 0.39 rg 50 750 40 30 re f Q " + b.at(100, 760, "Northwind Holdings") + b"EMC\n"
    ops = b.pdf_text_ops(synth.contract(8915, 4_000, kind="services"))
    ops[0] = logo + b"q 1 0 0 1 0 -40 cm\n" + ops[0] + b"Q\n"
    base = b.first_object(len(ops))
    add("pdf-letterhead-layer-on", "pdf", "an unrelated agreement under a letterhead drawn in an optional-content layer "
        "that is on", {"letter.pdf": b.pdf(ops, resources=b"/Properties << /L1 %d 0 R >>" % base,
                                           objects=[b"<< /Type /OCG /Name (Letterhead) >>"],
                                           catalog_extra=b" /OCProperties << /OCGs [%d 0 R] /D << /ON [%d 0 R] >> >>"
                                           % (base, base))})
    other = synth.contract(8916, 4_000, kind="distribution")
    paras = b.paragraphs(other)
    note = ('<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/><w:vertAlign w:val="superscript"/></w:rPr>'
            '<w:footnoteReference w:id="1"/></w:r>')
    box = ('<w:r><w:drawing><wp:anchor distT="0" distB="0" distL="114300" distR="114300" simplePos="0" relativeHeight="3" '
           'behindDoc="0" locked="0" layoutInCell="1" allowOverlap="1"><wp:simplePos x="0" y="0"/>'
           '<wp:positionH relativeFrom="margin"><wp:align>right</wp:align></wp:positionH>'
           '<wp:positionV relativeFrom="paragraph"><wp:posOffset>0</wp:posOffset></wp:positionV>'
           '<wp:extent cx="1828800" cy="640080"/><wp:wrapSquare wrapText="bothSides"/><wp:docPr id="5" name="Box"/>'
           '<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:wsp>'
           '<wps:cNvSpPr txBox="1"/><wps:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="1828800" cy="640080"/></a:xfrm>'
           '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:ln w="6350"><a:solidFill><a:srgbClr val="000000"/>'
           "</a:solidFill></a:ln></wps:spPr><wps:txbx><w:txbxContent>"
           + b.para(b.run("Key dates: the term starts on signing."))
           + "</w:txbxContent></wps:txbx><wps:bodyPr/></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></w:r>")
    body = b.para(box + b.run(paras[0]) + note) + "".join(b.para(b.run(p)) for p in paras[1:])
    footnotes = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:footnotes xmlns:w="{b.W_NS}">'
                 '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
                 '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p>'
                 '</w:footnote><w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> '
                 "As amended by the parties in writing.</w:t></w:r></w:p></w:footnote></w:footnotes>")
    rels = f'<Relationship Id="rIdFn" Type="{b._REL_NS}/footnotes" Target="footnotes.xml"/>'
    over = ('<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-officedocument.'
            'wordprocessingml.footnotes+xml"/>')
    add("docx-footnote-text-box", "docx", "an unrelated agreement with a footnote and a text box beside its first paragraph",
        {"agreement.docx": b.docx(body, parts={"word/footnotes.xml": footnotes}, rels=rels, overrides=over)})
    order = _pleading("STIPULATED ORDER\n\n" + synth.contract(8917, 4_000, kind="settlement"),
                      lambda i, n, line: f"{i:>2}  {line}".rstrip()).replace("\n", "\r\n")
    sub = b.submission([
        {"type": "8-K", "filename": "form8k.htm", "text": f"<html><body><p>{esc(decoy(79, 60))}</p></body></html>"},
        {"type": "EX-99.1", "filename": "ex99.txt", "text": order}], {"accession_number": "0000950170-24-055599"})
    add("edgar-pleading-exhibit-crlf", "edgar", "an unrelated 8-K whose exhibit is a court order on pleading paper, a "
        ".txt part with Windows line ends", {"0000950170-24-055599.txt": sub})
    return out


BUILDERS5 = (text_line_ends, pdf_fonts, pdf_beneath, pdf_pictures, office_fill, rtf_unicode, edgar_skipped, clean5)
