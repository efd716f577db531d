"""The red team's third round (issue #40): disguises by principle, over every format the readers
read, and clean documents of those formats. Built as the first rounds are
(tests/support/redteam_cases.py), each case named ``r3-<format>-<construct>``.

Principles (``Case.principle``):

* **layout**: layout decides reading order. The source holds the contract's lines or words in
  another order; the page draws them in order (table row groups, CSS tables, transforms, grid
  areas, shadow-DOM slots, SVG coordinates, a rotated PDF page, positioned frames, columns).
* **shown-not-read**: text a reader sees that no reading holds. Glyph procedures and patterns
  that draw lines, fonts that draw other letters than their character map says, text in an
  image, in a field's declared value, in a shadow root, in a frame of the archive.
* **junk-hidden**: junk a reader does not see, between the contract's words: unslotted
  shadow-DOM content, fallback content, blank fonts, soft masks, boxes painted over it.
* **container**: the contract inside a tar, a nested archive, an attached message, an MHTML
  frame.
* **font-permutation**: a .docx whose embedded font draws each letter as another.
* **line-margin**: line numbers in a pleading paper's margin, as a reader skips them.

Every disguised case carries a stored contract (``payload``) that a real reader shows:
benchmarks/redteam.py ``--oracle`` renders each view and checks it by OCR.
"""

from __future__ import annotations

import email.policy
import io
import json
import random
import re
import tarfile
from email.message import EmailMessage

from tests.support import redteam_build as b
from tests.support import redteam_fonts as fonts
from tests.support.redteam_build import esc, page
from tests.support.redteam_cases import Case, Texts, View, _lines, decoy

ROUND = 3
LINE = 24  # px: the line height the positioned HTML cases use


def _case(principle: str, family: str, name: str, fmt: str, key: str | None, sees: str, files: dict[str, bytes],
          views: list[View] | None = None, note: str = "") -> Case:
    return Case(family, f"r3-{name}", fmt, key, sees, files, views=views or [], note=note, round=ROUND,
                principle=principle)


def _shuffled(n: int, seed: int) -> list[int]:
    perm = list(range(n))
    random.Random(seed).shuffle(perm)
    return perm


def _thirds(items: list[str]) -> tuple[list[str], list[str], list[str]]:
    k = max(1, len(items) // 3)
    return items[:k], items[k : 2 * k], items[2 * k :]


def _font_face(family: str, font: bytes) -> str:
    return (f"@font-face{{font-family:'{family}';src:url({b.data_url('font/ttf', font)}) format('truetype');"
            "font-display:block}")


# -- layout decides reading order ------------------------------------------------------------------

def _rows(lines: list[str]) -> str:
    return "".join(f"<tr><td>{esc(line)}</td></tr>" for line in lines)


def layout_html(t: Texts) -> list[Case]:
    out = []

    def add(name: str, key: str, body: str, how: str, head: str = "") -> None:
        out.append(_case("layout", "order", f"html-{name}", "html", key, f"the {key} text in reading order; {how}",
                         {"exhibit.html": page(body, head)}))

    c = t["BSD"]
    lines = _lines(c)
    first, middle, last = _thirds(lines)
    add("table-row-groups", "BSD", f"<table><tfoot>{_rows(last)}</tfoot><tbody>{_rows(middle)}</tbody>"
        f"<thead>{_rows(first)}</thead></table>",
        "the source holds its last third (tfoot), then the middle (tbody), then the first (thead); a browser draws "
        "the header group first and the footer group last")
    grp = lambda kind, ls: (f"<div style='display:table-{kind}-group'>"  # noqa: E731
                            + "".join(f"<div style='display:table-row'><div style='display:table-cell'>{esc(x)}</div></div>"
                                      for x in ls) + "</div>")
    add("css-table-groups", "BSD", "<div style='display:table'>" + grp("footer", last) + grp("row", middle)
        + grp("header", first) + "</div>", "the same thirds as CSS table-footer, row and header groups of <div>s")
    perm = _shuffled(len(lines), 31)
    add("transform-translate", "BSD", f"<div style='position:relative;height:{len(lines) * LINE}px'>" + "".join(
        f"<div style='position:absolute;top:0;left:0;line-height:{LINE}px;transform:translateY({i * LINE}px)'>"
        f"{esc(lines[i])}</div>" for i in perm) + "</div>",
        "the lines stored shuffled, each moved to its place by transform:translateY")
    areas = " ".join(f'"l{i}"' for i in range(len(lines)))
    add("grid-areas", "BSD", f"<div style='display:grid;grid-template-areas:{areas}'>" + "".join(
        f"<div style='grid-area:l{i}'>{esc(lines[i])}</div>" for i in perm) + "</div>",
        "the lines stored shuffled and placed by named grid-template-areas")
    add("grid-order", "BSD", "<div style='display:grid'>" + "".join(
        f"<div style='order:{i}'>{esc(lines[i])}</div>" for i in perm) + "</div>",
        "the lines stored shuffled, items of a grid put in order by the order property")
    swapped = [i ^ 1 if (i ^ 1) < len(lines) else i for i in range(len(lines))]
    add("relative-swap", "BSD", f"<div style='line-height:{LINE}px'>" + "".join(
        f"<div style='position:relative;top:{(i - j) * LINE}px'>{esc(lines[i])}</div>" for j, i in enumerate(swapped))
        + "</div>", "each pair of lines stored swapped and moved back by position:relative")
    short = _lines(c, 6)
    half = (len(short) + 1) // 2
    left, right = short[:half], short[half:] + [""] * (2 * half - len(short))
    add("columns-table", "BSD", "<table style='width:900px;table-layout:fixed;border-spacing:0'>" + "".join(
        f"<tr><td style='width:420px'>{esc(a)}</td><td style='width:60px'></td><td style='width:420px'>{esc(z)}</td></tr>"
        for a, z in zip(left, right, strict=True)) + "</table>",
        "set in two columns (a table's left and right cells, a wide gutter between): the source runs across the rows, "
        "a reader down the left column, then the right")
    svg = "".join(f"<text x='4' y='{(i + 1) * 22}' font-size='15' font-family='serif'>{esc(lines[i])}</text>" for i in perm)
    add("inline-svg-coordinates", "BSD", f"<svg width='1000' height='{(len(lines) + 1) * 22}'>{svg}</svg>",
        "the lines of an inline SVG stored shuffled, placed by their y coordinates")
    words = [_lines(c, 10)[k].split(" ") for k in range(len(_lines(c, 10)))]
    slotted = "".join(
        "<div><template shadowrootmode='open'>" + " ".join(f"<slot name='w{i}'></slot>" for i in range(len(ws)))
        + "</template>" + "".join(f"<span slot='w{i}'>{esc(ws[i])}</span>" for i in _shuffled(len(ws), 7 + k)) + "</div>"
        for k, ws in enumerate(words))
    out.append(_case("shown-not-read", "order", "html-shadow-slots", "html", "BSD",
                     "the BSD licence in reading order: each line's words stored shuffled in the light DOM and put in "
                     "order by the named slots of a declarative shadow root",
                     {"exhibit.html": page(slotted)}))
    num = "".join(f"<div><span style='display:inline-block;width:3em;color:#666'>{i % 28 + 1}</span>{esc(line)}</div>"
                  for i, line in enumerate(_lines(t["lease"], 9)))
    out.append(_case("line-margin", "order", "html-pleading-spans", "html", "lease",
                     "the lease on pleading paper: each line numbered 1 to 28 in a grey margin column a reader skips",
                     {"exhibit.html": page(num)}))
    return out


def _svg(body: str, height: int, extra: str = "") -> bytes:
    return (f"<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' "
            f"xmlns:xlink='http://www.w3.org/1999/xlink' width='1000' height='{height}'{extra}>"
            f"<rect width='100%' height='100%' fill='white'/>{body}</svg>\n").encode()


def layout_svg(t: Texts) -> list[Case]:
    out = []
    lines = _lines(t["BSD"])
    perm = _shuffled(len(lines), 41)
    h = (len(lines) + 2) * 22
    body = "".join(f"<text x='8' y='{(i + 1) * 22}' font-family='serif' font-size='15'>{esc(lines[i])}</text>" for i in perm)
    out.append(_case("layout", "order", "svg-coordinates", "svg", "BSD",
                     "an SVG drawing the BSD licence line by line; its <text> elements are stored shuffled and placed by y",
                     {"exhibit.svg": _svg(body, h)}, views=[View("exhibit.svg", "html", _svg(body, h))]))
    body = "".join(f"<g transform='translate(8 {(i + 1) * 22})'><text font-family='serif' font-size='15'>{esc(lines[i])}</text></g>"
                   for i in perm)
    out.append(_case("layout", "order", "svg-transform-groups", "svg", "BSD",
                     "an SVG drawing the BSD licence; each line a <g> moved to its place by a translate transform, "
                     "the groups stored shuffled", {"exhibit.svg": _svg(body, h)},
                     views=[View("exhibit.svg", "html", _svg(body, h))]))
    return out


def layout_text(t: Texts) -> list[Case]:
    out = []
    c = t["lease"]
    col = b.lines_of(c, 38)
    half = (len(col) + 1) // 2
    left, right = col[:half], col[half:] + [""] * (2 * half - len(col))
    for name, gutter, how in (("tab-gutter", "\t", "tabs"), ("bar-gutter", "  \u2502  ", "a vertical bar (U+2502)")):
        # tabs fill the left column to the tab stop at 48 (every 8 columns), as an editor aligns them
        text = "\n".join((f"{a.ljust(38)}{gutter}{z}" if gutter.strip() else f"{a}{chr(9) * (6 - len(a) // 8)}{z}").rstrip()
                         for a, z in zip(left, right, strict=True))
        out.append(_case("layout", "order", f"txt-two-columns-{name}", "txt", "lease",
                         f"the lease set in two columns, {how} between them: a reader reads down the left column, "
                         "then the right", {"exhibit.txt": (text + "\n").encode()}))
    return out


def _pleading(text: str, number: callable, per_page: int = 28, width: int = 62) -> str:  # type: ignore[valid-type]
    lines = b.lines_of(text, width)
    out, n = [], 0
    for k in range(0, len(lines), per_page):
        chunk = lines[k : k + per_page]
        chunk += [""] * (per_page - len(chunk))
        for i, line in enumerate(chunk):
            n += 1
            out.append(number(i + 1, n, line))
        out.append("\f")
    return "\n".join(out).replace("\n\f\n", "\n\f")


def line_margin_text(t: Texts) -> list[Case]:
    out = []
    c = t["lease"]
    variants = {
        "right-margin": (lambda i, n, line: f"{line.ljust(64)}{i:>3}", "its lines numbered 1 to 28 in the right margin"),
        "continuous": (lambda i, n, line: f"{n:>3}  {line}".rstrip(), "its lines numbered on from page to page (1 to 28, "
                                                                       "29 to 56...) in the left margin"),
        "dotted": (lambda i, n, line: f"{i:>2}.  {line}".rstrip(), "its lines numbered '1.' to '28.' in the left margin"),
    }
    for name, (fn, how) in variants.items():
        out.append(_case("line-margin", "order", f"txt-pleading-{name}", "txt", "lease",
                         f"the lease on pleading paper, {how}; a reader skips the margin",
                         {"exhibit.txt": _pleading(c, fn).encode()}))
    return out


def _pdf_page_ops(words: list[tuple[float, float, str]]) -> bytes:
    return b"".join(b.at(x, y, w) for x, y, w in words)


def layout_pdf(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    first = b.pdf_layout(c)[0]
    # a page turned by /Rotate 90: its text drawn turned the other way, so it shows upright
    rot = b"".join(b"BT /F1 10 Tf 0 1 -1 0 %.2f %.2f Tm (%s) Tj ET\n" % (792 - y, x, b.pdf_esc(w)) for x, y, w in first)
    data = b.pdf([rot], page_extra=b" /Rotate 90").replace(b"/MediaBox [0 0 612 792]", b"/MediaBox [0 0 792 612]")
    out.append(_case("layout", "order", "pdf-rotated-page", "pdf", "BSD",
                     "the BSD licence upright on a portrait page: the page is landscape, turned by /Rotate 90, its words "
                     "drawn turned the other way", {"exhibit.pdf": data}))
    # two columns drawn across: left line, right line, left line...
    lines = b.lines_of(c, 40)
    half = (len(lines) + 1) // 2
    ops = []
    for i in range(half):
        y = b.TOP - i * b.LEAD
        for x, line in ((b.LEFT, lines[i]), (b.LEFT + 270, lines[half + i] if half + i < len(lines) else "")):
            if line:
                ops.append(b"BT /F1 9 Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n" % (x, y, b.pdf_esc(line)))
    out.append(_case("layout", "order", "pdf-two-columns-drawn-across", "pdf", "BSD",
                     "the BSD licence in two columns; the content stream draws each left line, then the right line beside it",
                     {"exhibit.pdf": b.pdf([b"".join(ops)])}))
    # pleading paper: the margin numbers drawn with the line they stand beside
    ops = []
    rows = sorted({y for _, y, _ in first}, reverse=True)
    n_lines = int((b.TOP - b.BOTTOM) / b.LEAD) + 1
    for k in range(n_lines):
        y = b.TOP - k * b.LEAD
        ops.append(b.at(22, y, str(k + 1), size=9))
        ops.append(_pdf_page_ops([p for p in first if p[1] == y]) if y in rows else b"")
    out.append(_case("line-margin", "order", "pdf-pleading-margin", "pdf", "BSD",
                     "the BSD licence on pleading paper: every line numbered in the left margin, each number drawn just "
                     "before its line", {"exhibit.pdf": b.pdf([b"".join(ops)])}))
    return out


def layout_office(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    # a right-to-left table (w:bidiVisual): its cells drawn last to first
    rows = []
    for line in _lines(c, 9):
        ws = line.split(" ")
        cells = [" ".join(ws[k : k + 3]) for k in range(0, len(ws), 3)]
        rows.append("<w:tr>" + "".join(f"<w:tc><w:tcPr><w:tcW w:w=\"3000\" w:type=\"dxa\"/></w:tcPr>{b.para(b.run(x))}</w:tc>"
                                       for x in reversed(cells)) + "</w:tr>")
    tbl = ('<w:tbl><w:tblPr><w:bidiVisual/><w:tblW w:w="9000" w:type="dxa"/></w:tblPr><w:tblGrid>'
           + '<w:gridCol w:w="3000"/>' * 3 + "</w:tblGrid>" + "".join(rows) + "</w:tbl>")
    out.append(_case("layout", "order", "docx-bidi-visual-table", "docx", "BSD",
                     "the BSD licence in a three-column table, three words a cell; the table is right to left "
                     "(w:bidiVisual), so each row's cells, stored last to first, are drawn first to last",
                     {"exhibit.docx": b.docx(tbl + b.para(""))}))
    lines = _lines(c, 8)  # a line a frame holds without wrapping
    perm = _shuffled(len(lines), 53)
    frames = "".join(
        f'<draw:frame draw:style-name="fr1" text:anchor-type="paragraph" svg:x="0cm" svg:y="{i * 0.62:.2f}cm" '
        f'svg:width="17cm" svg:height="0.6cm" draw:z-index="{i}"><draw:text-box><text:p>{esc(lines[i])}</text:p>'
        f"</draw:text-box></draw:frame>" for i in perm)
    out.append(_case("layout", "order", "fodt-positioned-frames", "fodt", "BSD",
                     "a flat OpenDocument text showing the BSD licence line by line: each line a text frame placed by "
                     "svg:y, the frames stored shuffled",
                     {"exhibit.fodt": fodt(f"<text:p>{frames}</text:p>", styles=_FRAME_STYLE)},
                     views=[View("exhibit.fodt", "office", fodt(f"<text:p>{frames}</text:p>", styles=_FRAME_STYLE))]))
    return out


_FRAME_STYLE = ('<style:style style:name="fr1" style:family="graphic"><style:graphic-properties draw:fill="none" '
                'draw:stroke="none" fo:background-color="transparent" fo:border="none" '
                'fo:padding="0cm" style:wrap="none" style:vertical-pos="from-top" style:vertical-rel="paragraph" '
                'style:horizontal-pos="from-left" style:horizontal-rel="paragraph"/></style:style>')


def fodt(body: str, styles: str = "", decls: str = "") -> bytes:
    """A flat OpenDocument text (.fodt) whose office:text holds ``body``."""
    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
          'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
          'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"')
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document {ns} office:version="1.2" '
            f'office:mimetype="application/vnd.oasis.opendocument.text"><office:automatic-styles>{styles}'
            f"</office:automatic-styles><office:body><office:text>{decls}{body}</office:text></office:body>"
            "</office:document>\n").encode()


def layout_markup(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    first, middle, last = _thirds(_lines(c))
    md = (f"{decoy('r3-md-table')[:200]}\n\n<table>\n<tfoot>{_rows(last)}</tfoot>\n<tbody>{_rows(middle)}</tbody>\n"
          f"<thead>{_rows(first)}</thead>\n</table>\n")
    out.append(_case("layout", "order", "md-table-row-groups", "md", "BSD",
                     "a Markdown file whose HTML table shows the BSD licence: its rows stored tfoot, tbody, thead, "
                     "drawn header group first", {"exhibit.md": md.encode()},
                     views=[View("exhibit.md", "markdown", md.encode())]))
    paras = b.paragraphs(c)
    perm = _shuffled(len(paras), 61)
    lit = lambda p: re.sub(r"([\\*`|_<>\[\]])", r"\\\1", p)  # noqa: E731 (the text, not its inline markup)
    rst = ("Exhibit 10.1\n============\n\n" + "\n\n".join(f"|p{i}|" for i in range(len(paras))) + "\n\n"
           + "\n".join(f".. |p{i}| replace:: {lit(paras[i])}" for i in perm) + "\n")
    out.append(_case("layout", "order", "rst-substitutions", "rst", "BSD",
                     "a reStructuredText file showing the BSD licence's paragraphs in order, each a substitution whose "
                     "definition stands at the end, the definitions shuffled", {"exhibit.rst": rst.encode()},
                     views=[View("exhibit.rst", "rst", rst.encode())]))
    return out


# -- text a reader sees that no reading holds ------------------------------------------------------

def shown_html(t: Texts) -> list[Case]:
    out = []

    def add(name: str, key: str, body: str, how: str, head: str = "", principle: str = "shown-not-read") -> None:
        out.append(_case(principle, "visible-not-read", f"html-{name}", "html", key,
                         f"the {key} text, {how}", {"exhibit.html": page(body, head)}))

    c = t["BSD"]
    d = esc(decoy("r3-html-shadow-root"))
    add("shadow-root-text", "BSD", f"<div><template shadowrootmode='open'>{b.html_paras(c)}</template><p>{d}</p></div>",
        "in a declarative shadow root with no slot; the light DOM holds a 72-word decoy, which is not drawn")
    svg, h = b.svg_lines(c)
    add("svg-background", "BSD", f"<p>{esc(decoy('r3-html-svg-background'))}</p><div style='width:900px;height:{h}px;"
        f"background:url({b.data_url('image/svg+xml', svg)}) no-repeat'></div>",
        "drawn by an SVG background image of a <div> (CSS background-image); the page's text is a 72-word decoy")
    shows = fonts.rot13()
    add("webfont-rot13", "BSD", b.html_paras(fonts.encode(c, shows)),
        "drawn by a web font (a data: TrueType) that maps each letter to the glyph of its ROT13 letter; the text "
        "stored is the licence in ROT13", head=f"<style>{_font_face('Exhibit Sans', fonts.remapped(shows))}"
                                              "body{font-family:'Exhibit Sans'}</style>")
    return out


def shown_svg(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    d = esc(decoy("r3-svg"))
    inner, h = b.svg_lines(c)

    def add(name: str, how: str, data: bytes) -> None:
        out.append(_case("shown-not-read", "visible-not-read", f"svg-{name}", "svg", "BSD", f"an SVG showing the BSD licence {how}",
                         {"exhibit.svg": data}, views=[View("exhibit.svg", "html", data)]))

    add("text-in-image", "as an <image> (a data: SVG) below a one-line decoy <text>",
        _svg(f"<text x='8' y='20' font-size='12'>{d[:120]}</text><image x='0' y='30' width='900' height='{h}' "
             f"href='{b.data_url('image/svg+xml', inner)}'/>", h + 40))
    add("use-defs", "by <use> elements that draw lines defined in <defs>",
        _svg("<defs>" + "".join(f"<text id='l{i}' font-family='serif' font-size='15'>{esc(line)}</text>"
                                for i, line in enumerate(_lines(c))) + "</defs>"
             + "".join(f"<use href='#l{i}' x='8' y='{(i + 1) * 22}'/>" for i in range(len(_lines(c)))),
             (len(_lines(c)) + 2) * 22))
    add("foreign-object", "as XHTML in a <foreignObject>",
        _svg(f"<foreignObject x='0' y='0' width='980' height='{h}'><div xmlns='http://www.w3.org/1999/xhtml' "
             f"style='font:15px serif'>{b.html_paras(c)}</div></foreignObject>", h))
    return out


def _type3_lines(lines: list[str], decoys: list[str]) -> bytes:
    """A page drawing each line with one glyph of a Type 3 font whose glyph procedure draws the
    whole line in Courier; the font's character map names each glyph a word of the decoy."""
    n = len(lines)
    base = b.first_object(1)
    procs = [b.stream(b"0 0 d0 BT /F1 10 Tf 0 0 Td (%s) Tj ET" % b.pdf_esc(line)) for line in lines]
    codes = list(range(33, 33 + n))
    t3 = (b"<< /Type /Font /Subtype /Type3 /FontBBox [0 -3 520 10] /FontMatrix [1 0 0 1 0 0] "
          b"/CharProcs << %s >> /Encoding << /Type /Encoding /Differences [33 %s] >> /FirstChar 33 /LastChar %d "
          b"/Widths [%s] /Resources << /Font << /F1 3 0 R >> >> /ToUnicode %d 0 R >>"
          % (b" ".join(b"/L%d %d 0 R" % (i, base + i) for i in range(n)), b" ".join(b"/L%d" % i for i in range(n)),
             32 + n, b" ".join([b"0"] * n), base + n + 1))
    cmap = b.to_unicode({code: decoys[i % len(decoys)] + " " for i, code in enumerate(codes)})
    content = b"".join(b"BT /T3 1 Tf 1 0 0 1 50 %.2f Tm <%02X> Tj ET\n" % (b.TOP - i * 14, code)
                       for i, code in enumerate(codes))
    return b.pdf([content], objects=[*procs, t3, cmap], fonts=b"/T3 %d 0 R" % (base + n))


def shown_pdf(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    lines = [line for line in b.lines_of(c, 86) if line][:52]
    words = decoy("r3-pdf-type3").split()
    decoys = [" ".join(words[(i * 9) % 60 : (i * 9) % 60 + 9]) for i in range(len(lines))]
    out.append(_case("shown-not-read", "visible-not-read", "pdf-type3-line-glyphs", "pdf", "BSD",
                     "the BSD licence: each line is one glyph of a Type 3 font whose procedure draws the whole line; "
                     "the font's ToUnicode map gives each glyph nine words of a decoy",
                     {"exhibit.pdf": _type3_lines(lines, decoys)}))
    base = b.first_object(1)
    cell = b"".join(b.pdf_text_ops(c)[:1])
    pattern = b.stream(cell, b" /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 612 792] "
                              b"/XStep 612 /YStep 792 /Resources << /Font << /F1 3 0 R >> >>")
    content = (b"/Pattern cs /P1 scn 0 0 612 780 re f\n0 g " + b.at(50, 770, " ".join(decoy("r3-pdf-pattern").split()[:10])))
    out.append(_case("shown-not-read", "visible-not-read", "pdf-tiling-pattern", "pdf", "BSD",
                     "the BSD licence drawn by a tiling pattern (its cell the page) that fills the page; the text layer "
                     "is a ten-word line", {"exhibit.pdf": b.pdf([content], resources=b"/Pattern << /P1 %d 0 R >>" % base,
                                                                 objects=[pattern])}))
    from tests.support import synth

    other = " ".join(synth.contract(9501, 4_000, kind="services").split())
    ows = other.split(" ")
    ops = [b"/Span << /ActualText (%s) >> BDC " % b.pdf_esc(ows[k % len(ows)]) + b.at(x, y, w) + b"EMC\n"
           for k, (x, y, w) in enumerate(b.pdf_layout(c)[0])]
    out.append(_case("shown-not-read", "visible-not-read", "pdf-actual-text-decoy", "pdf", "BSD",
                     "the BSD licence; each word is marked content whose /ActualText (what copy and paste and "
                     "accessibility read) is a word of another agreement", {"exhibit.pdf": b.pdf([b"".join(ops)])}))
    return out


def shown_office(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    paras = b.paragraphs(c)
    decls = ("<text:user-field-decls>" + "".join(
        f'<text:user-field-decl office:value-type="string" office:string-value="{esc(p)}" text:name="p{i}"/>'
        for i, p in enumerate(paras)) + "</text:user-field-decls>")
    dw = decoy("r3-fodt-fields").split()
    body = "".join(f'<text:p><text:user-field-get text:name="p{i}">{esc(" ".join(dw[i * 6 : i * 6 + 6]) or "see")}'
                   f"</text:user-field-get></text:p>" for i in range(len(paras)))
    data = fodt(body, decls=decls)
    out.append(_case("shown-not-read", "visible-not-read", "fodt-user-fields", "fodt", "BSD",
                     "a flat OpenDocument text whose paragraphs are user fields: a word processor shows each field's "
                     "declared value (the licence's paragraphs), the XML caches six words of a decoy",
                     {"exhibit.fodt": data}, views=[View("exhibit.fodt", "office", data)]))
    shows = fonts.rot13()
    out.append(_case("shown-not-read", "visible-not-read", "docx-embedded-font-rot13", "docx", "BSD",
                     "the BSD licence drawn by a font embedded in the .docx that maps each letter to the glyph of its "
                     "ROT13 letter; the runs hold the licence in ROT13",
                     {"exhibit.docx": docx_with_font(b.docx_paras(fonts.encode(c, shows), rpr=_FONT_RPR),
                                                     fonts.remapped(shows))}))
    return out


_FONT_NAME = "Exhibit Sans"
_FONT_RPR = f'<w:rFonts w:ascii="{_FONT_NAME}" w:hAnsi="{_FONT_NAME}" w:cs="{_FONT_NAME}"/>'
_FONT_KEY = "{5A3C9E21-7B4D-4F10-9C2E-8D6B1A0F3E47}"


def docx_with_font(body: str, font: bytes, name: str = _FONT_NAME) -> bytes:
    """A .docx whose font table embeds ``font`` (obfuscated, as Word embeds fonts) as ``name``."""
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    table = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:fonts xmlns:w="{b.W_NS}" xmlns:r="{rel}">'
             f'<w:font w:name="{name}"><w:charset w:val="00"/><w:family w:val="swiss"/><w:pitch w:val="variable"/>'
             f'<w:embedRegular r:id="rIdF1" w:fontKey="{_FONT_KEY}"/></w:font></w:fonts>')
    table_rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.'
                  f'openxmlformats.org/package/2006/relationships"><Relationship Id="rIdF1" Type="{rel}/font" '
                  'Target="fonts/font1.odttf"/></Relationships>')
    return b.docx(body, settings="<w:embedTrueTypeFonts/><w:saveSubsetFonts/>",
                  parts={"word/fontTable.xml": table, "word/_rels/fontTable.xml.rels": table_rels,
                         "word/fonts/font1.odttf": fonts.obfuscate(font, _FONT_KEY)},  # type: ignore[dict-item]
                  rels=f'<Relationship Id="rIdFT" Type="{rel}/fontTable" Target="fontTable.xml"/>',
                  overrides='<Override PartName="/word/fontTable.xml" ContentType="application/vnd.openxmlformats-'
                            'officedocument.wordprocessingml.fontTable+xml"/>'
                            '<Default Extension="odttf" ContentType="application/vnd.openxmlformats-officedocument.'
                            'obfuscatedFont"/>')


def font_permutation(t: Texts) -> list[Case]:
    c = t["BSD"]
    shows = fonts.permutation(40)
    return [_case("font-permutation", "visible-not-read", "docx-font-permutation", "docx", "BSD",
                  "the BSD licence drawn by a font embedded in the .docx whose character map is a permutation of the "
                  "letters; the runs hold the licence with its letters permuted the other way",
                  {"exhibit.docx": docx_with_font(b.docx_paras(fonts.encode(c, shows), rpr=_FONT_RPR),
                                                  fonts.remapped(shows))})]


def shown_markup(t: Texts) -> list[Case]:
    c = t["BSD"]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                        "language": "python"}},
          "cells": [{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "# Exhibit 10.1"},
                    {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": "show_exhibit()",
                     "outputs": [{"output_type": "display_data", "metadata": {},
                                  "data": {"text/html": b.html_paras(c), "text/plain": decoy("r3-ipynb")}}]}]}
    data = json.dumps(nb, indent=1).encode()
    return [_case("shown-not-read", "visible-not-read", "ipynb-output-html", "ipynb", "BSD",
                  "a notebook whose code cell's output shows the BSD licence as HTML (Jupyter shows the richest "
                  "form); the output's text/plain form is a 72-word decoy", {"exhibit.ipynb": data},
                  views=[View("exhibit.ipynb", "notebook", data)])]


# -- junk hidden from the reader, read by the tool -------------------------------------------------

def junk_html(t: Texts) -> list[Case]:
    out = []
    svg1 = b.data_url("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/>")
    cover = ("<div style='position:absolute;left:0;top:0;width:600px;height:60px;background:#fff;z-index:9'></div>")
    hides: dict[str, tuple[str, object, str, str]] = {
        "unslotted-shadow": ("", lambda j: f"<span slot='aside'>{j}</span>",
                             "light-DOM content assigned to a slot the shadow root does not have", "shadow"),
        "video-fallback": ("", lambda j: f"<video style='width:0;height:0'>{j}</video>",
                           "the fallback content of <video> (never drawn by a browser that plays video)", ""),
        "object-fallback": ("", lambda j: f"<object type='image/svg+xml' data='{svg1}' width='1' height='1'>{j}</object>",
                            "the fallback content of an <object> whose data (a 1x1 SVG) loads", ""),
        "webfont-blank": (f"<style>{_font_face('Exhibit Blank', fonts.blank())}.j{{font-family:'Exhibit Blank'}}</style>",
                          lambda j: f"<span class='j'>{j}</span>", "a web font whose glyphs draw nothing and take no room", ""),
        "text-fill-transparent": ("", lambda j: f"<span style='position:absolute;-webkit-text-fill-color:transparent'>{j}</span>",
                                  "-webkit-text-fill-color:transparent", ""),
        "color-mix-white": ("", lambda j: f"<span style='color:color-mix(in srgb, white 100%, black)'>{j}</span>",
                            "a color-mix() that is white", ""),
        "covered-by-box": ("<style>body{padding-top:70px}</style>",
                           lambda j: f"<span style='position:absolute;left:10px;top:10px'>{j}</span>",
                           "absolute positions at the page's top left, under a white box painted over them", "cover"),
        "filter-opacity": ("", lambda j: f"<span style='position:absolute;filter:opacity(0)'>{j}</span>", "filter:opacity(0)", ""),
        "svg-zero-size": ("", lambda j: f"<svg width='0' height='0' style='position:absolute'><text y='10'>{j}</text></svg>",
                          "the <text> of a zero-size inline SVG", ""),
    }
    for i, (name, (head, hide, how, kind)) in enumerate(hides.items()):
        key = ("BSD", "lease", "credit", "supply", "consulting")[i % 5]
        body = b.html_junk(t[key], hide)  # type: ignore[arg-type]
        if kind == "shadow":
            body = body.replace("<p>", "<p><template shadowrootmode='open'><slot></slot></template>")
        if kind == "cover":
            body += cover
        out.append(_case("junk-hidden", "hidden-junk", f"html-{name}", "html", key,
                         f"the {key} text; a junk word after every word is hidden by {how}",
                         {"exhibit.html": page(body, head)}))
    return out


def junk_svg(t: Texts) -> list[Case]:
    out = []
    for name, attr, how in (("display-none", "display='none'", "display='none'"), ("fill-none", "fill='none'", "fill='none'")):
        lines = _lines(t["BSD"], 10 if name == "display-none" else 5)  # undrawn junk still takes its room
        js = iter(b.junk_after([w for line in lines for w in line.split(" ")]))
        body = "".join(f"<text x='8' y='{(k + 1) * 22}' font-family='serif' font-size='15' xml:space='preserve'>"
                       + "".join(f"{esc(w)} " + (f"<tspan {attr}>{j} </tspan>" if (j := next(js)) else "")
                                 for w in line.split(" ")) + "</text>" for k, line in enumerate(lines))
        data = _svg(body, (len(lines) + 2) * 22)
        out.append(_case("junk-hidden", "hidden-junk", f"svg-junk-{name}", "svg", "BSD",
                         f"an SVG drawing the BSD licence; a junk word after every word is a <tspan {how}>",
                         {"exhibit.svg": data}, views=[View("exhibit.svg", "html", data)]))
    return out


def junk_pdf(t: Texts) -> list[Case]:
    out = []
    key = "BSD"
    layout = b.pdf_layout(t[key], gap=2)
    js = iter(b.junk_after([w for pg in layout for _, _, w in pg]))
    pages = []
    for pg in layout:
        ops, boxes = [], []
        for x, y, w in pg:
            ops.append(b.at(x, y, w))
            j = next(js)
            if j:
                jx = x + (len(w) + 1) * b.ADV
                ops.append(b.at(jx, y, j[:1]))
                boxes.append(b"%.2f %.2f %.2f %.2f re f\n" % (jx - 0.5, y - 3, b.ADV + 1, 12))
        pages.append(b"".join(ops) + b"1 g\n" + b"".join(boxes) + b"0 g\n")
    out.append(_case("junk-hidden", "hidden-junk", "pdf-covered-by-later-fill", "pdf", key,
                     "the BSD licence, words three spaces apart; a junk letter in each gap is painted over by a white "
                     "rectangle later in the same content stream", {"exhibit.pdf": b.pdf(pages)}))
    base = b.first_object(len(b.pdf_junk_ops(t[key], lambda x, y, j: b"")))
    mask = b.stream(b"0 g 0 0 612 792 re f", b" /Type /XObject /Subtype /Form /BBox [0 0 612 792] "
                                            b"/Group << /S /Transparency /CS /DeviceGray >>")
    ops = b.pdf_junk_ops(t[key], lambda x, y, j: b"/GS0 gs " + b.at(x, y, j) + b"/GS1 gs\n")
    res = (b"/ExtGState << /GS0 << /SMask << /Type /Mask /S /Luminosity /G %d 0 R >> >> /GS1 << /SMask /None >> >>"
           % base)
    out.append(_case("junk-hidden", "hidden-junk", "pdf-soft-mask-junk", "pdf", key,
                     "the BSD licence; a junk word drawn after every word under a luminosity soft mask that is black "
                     "(every point transparent)", {"exhibit.pdf": b.pdf(ops, resources=res, objects=[mask])}))
    return out


def junk_office(t: Texts) -> list[Case]:
    out = []
    key = "BSD"
    blank_rpr = '<w:rFonts w:ascii="Exhibit Blank" w:hAnsi="Exhibit Blank" w:cs="Exhibit Blank"/>'
    body = b.docx_junk(t[key], lambda j: b.run(j, blank_rpr))
    out.append(_case("junk-hidden", "hidden-junk", "docx-embedded-blank-font", "docx", key,
                     "the BSD licence; a junk word after every word is set in a font embedded in the .docx whose glyphs "
                     "draw nothing and take no room", {"exhibit.docx": docx_with_font(body, fonts.blank(), "Exhibit Blank")}))
    words = " ".join(b.paragraphs(t[key])).split(" ")
    js = iter(b.junk_after(words))
    spans = " ".join(esc(w) + (f' <text:span text:style-name="J">{j}</text:span>' if (j := next(js)) else "") for w in words)
    style = ('<style:style style:name="J" style:family="text"><style:text-properties fo:font-size="4pt" '
             'style:text-scale="1%"/></style:style>')
    data = fodt(f"<text:p>{spans}</text:p>", styles=style)
    out.append(_case("junk-hidden", "hidden-junk", "fodt-text-scale-1-percent", "fodt", key,
                     "a flat OpenDocument text showing the BSD licence; a junk word after every word is 4 pt text "
                     "scaled to 1% of its width", {"exhibit.fodt": data}, views=[View("exhibit.fodt", "office", data)]))
    return out


def junk_markup(t: Texts) -> list[Case]:
    key = "BSD"
    chunks = _lines(t[key], 4)
    md = "".join(f"{line}\n\n[{b.JUNK[i % len(b.JUNK)]}]: <>\n\n" for i, line in enumerate(chunks))
    rst = "".join(f"{line}\n\n.. {b.JUNK[i % len(b.JUNK)]}\n\n" for i, line in enumerate(chunks))
    return [
        _case("junk-hidden", "hidden-junk", "md-link-reference-junk", "md", key,
              "a Markdown file showing the BSD licence four words a paragraph; a junk word between them is the label "
              "of a link reference definition, which Markdown does not show", {"exhibit.md": md.encode()},
              views=[View("exhibit.md", "markdown", md.encode())]),
        _case("junk-hidden", "hidden-junk", "rst-comment-junk", "rst", key,
              "a reStructuredText file showing the BSD licence four words a paragraph; a junk word between them is a "
              "comment", {"exhibit.rst": rst.encode()}, views=[View("exhibit.rst", "rst", rst.encode())]),
    ]


# -- containers ------------------------------------------------------------------------------------

def tar_bytes(members: list[tuple[str, bytes]], gz: bool = False) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tf.addfile(info, io.BytesIO(data))
    raw = buf.getvalue()
    return __import__("gzip").compress(raw, mtime=0) if gz else raw


def _message(subject: str, body: str) -> EmailMessage:
    m = EmailMessage(policy=email.policy.SMTP)
    m["From"] = "Counsel <counsel@example.com>"
    m["To"] = "Registry <registry@example.org>"
    m["Subject"] = subject
    m["Date"] = "Fri, 15 Mar 2024 16:05:41 +0000"
    m["Message-ID"] = f"<{subject.replace(' ', '.')}@example.com>"
    m.set_content(body)
    return m


def containers3(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    out.append(_case("container", "container", "tar", "tar", "BSD", "a tar archive holding the BSD licence as exhibit.txt",
                     {"exhibits.tar": tar_bytes([("exhibit.txt", c.encode())])},
                     views=[View("exhibit.txt", "text", c.encode())]))
    inner = page(b.html_paras(c))
    z = b.zip_bytes([("exhibit.html", inner)])
    out.append(_case("container", "container", "tar-gz-of-zip", "tar", "BSD",
                     "a gzipped tar holding a zip that holds the BSD licence as an HTML page",
                     {"exhibits.tar.gz": tar_bytes([("bundle/exhibits.zip", z)], gz=True)},
                     views=[View("exhibit.html", "html", inner)]))
    outer = _message("Exhibit 10.1", decoy("r3-eml-attached")[:300])
    att = _message("Exhibit 10.1 (forwarded)", c)
    outer.add_attachment(att, disposition="inline")
    data = outer.as_bytes()
    out.append(_case("container", "container", "eml-attached-message", "eml", "BSD",
                     "an email whose attached message (message/rfc822, shown inline by a mail reader) is the BSD licence",
                     {"exhibit.eml": data}, views=[View("attached.txt", "text", c.encode())]))
    frame = page(b.html_paras(c))
    mht = ("MIME-Version: 1.0\r\nSubject: Exhibit 10.1\r\nSnapshot-Content-Location: https://filings.example.com/ex10.html\r\n"
           'Content-Type: multipart/related; type="text/html"; boundary="----=_frame_boundary"\r\n\r\n'
           "------=_frame_boundary\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
           "Content-Location: https://filings.example.com/ex10.html\r\n\r\n"
           + page(f"<p>{esc(decoy('r3-mhtml')[:200])}</p><iframe src='https://filings.example.com/frame.html' "
                  "style='width:100%;height:1800px;border:0'></iframe>").decode()
           + "\r\n------=_frame_boundary\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
           "Content-Location: https://filings.example.com/frame.html\r\n\r\n" + frame.decode()
           + "\r\n------=_frame_boundary--\r\n").encode()
    out.append(_case("container", "container", "mhtml-subframe", "mhtml", "BSD",
                     "an MHTML archive whose page shows, in an iframe, another HTML part of the archive: the BSD licence",
                     {"exhibit.mhtml": mht}, views=[View("exhibit.mhtml", "html", mht)]))
    return out


# -- EDGAR parts carrying round-3 disguises --------------------------------------------------------

def edgar3(t: Texts) -> list[Case]:
    out = []
    cover = {"type": "8-K", "filename": "form8k.htm", "text": f"<html><body><p>{esc(decoy(77, 60))}</p></body></html>"}

    def add(name: str, principle: str, key: str, doc: dict, how: str, view: View) -> None:
        out.append(_case(principle, "edgar-part", f"edgar-{name}", "edgar", key, f"exhibit EX-10.1 shows the {key} text: {how}",
                         {"0000950170-24-077777.txt": b.submission([cover, {"type": "EX-10.1", **doc}],
                                                                  {"accession_number": "0000950170-24-077777"})},
                         views=[view]))

    c = t["BSD"]
    first, middle, last = _thirds(_lines(c))
    h = page(f"<table><tfoot>{_rows(last)}</tfoot><tbody>{_rows(middle)}</tbody><thead>{_rows(first)}</thead></table>")
    add("html-table-row-groups", "layout", "BSD", {"filename": "ex10.htm", "text": h},
        "HTML whose table rows are stored tfoot, tbody, thead", View("ex10.htm", "html", h))
    sl = next(case for case in layout_html(t) if case.name == "r3-html-shadow-slots").files["exhibit.html"]
    add("html-shadow-slots", "shown-not-read", "BSD", {"filename": "ex10.htm", "text": sl},
        "HTML whose words are put in order by declarative shadow-DOM slots", View("ex10.htm", "html", sl))
    txt = _pleading(t["lease"], lambda i, n, line: f"{n:>3}  {line}".rstrip())
    add("txt-pleading-continuous", "line-margin", "lease", {"filename": "ex10.txt", "text": txt},
        "a .txt part on pleading paper, its lines numbered on from page to page", View("ex10.txt", "text", txt.encode()))
    lines = [line for line in b.lines_of(c, 86) if line][:52]
    ws = decoy("r3-edgar-type3").split()
    p = _type3_lines(lines, [" ".join(ws[(i * 9) % 60 : (i * 9) % 60 + 9]) for i in range(len(lines))])
    add("pdf-type3-line-glyphs", "shown-not-read", "BSD", {"filename": "ex10.pdf", "data": p},
        "a PDF whose Type 3 glyphs each draw a line, their character map a decoy", View("ex10.pdf", "pdf", p))
    tar = tar_bytes([("ex10.txt", c.encode())])
    add("tar", "container", "BSD", {"filename": "ex10.tar", "data": tar}, "a uuencoded tar holding the licence as text",
        View("ex10.txt", "text", c.encode()))
    return out


# -- clean documents of these formats ---------------------------------------------------------------

def clean3(t: Texts) -> list[Case]:
    from tests.support import synth

    out = []

    def add(name: str, fmt: str, sees: str, files: dict[str, bytes]) -> None:
        out.append(_case("clean", "clean", name, fmt, None, sees, files))

    filing = synth.contract(8901, 6_000, kind="settlement")
    add("txt-pleading-filing", "txt", "an unrelated court filing on pleading paper, its lines numbered 1 to 28 on every page",
        {"stipulation.txt": _pleading("UNITED STATES DISTRICT COURT\n\nNORTHERN DISTRICT OF CALIFORNIA\n\n"
                                      "STIPULATION AND PROPOSED ORDER\n\n" + filing,
                                      lambda i, n, line: f"{i:>2}  {line}".rstrip()).encode()})
    col = b.lines_of(synth.contract(8902, 5_000, kind="employment"), 38)
    half = (len(col) + 1) // 2
    left, right = col[:half], col[half:] + [""] * (2 * half - len(col))
    add("txt-two-columns", "txt", "an unrelated agreement set in two columns with a gutter of spaces",
        {"two-columns.txt": ("\n".join(f"{a.ljust(38)}     {z}".rstrip() for a, z in zip(left, right, strict=True)) + "\n").encode()})
    add("docx-embedded-font", "docx", "an unrelated agreement in a font embedded in the .docx that maps every letter to itself",
        {"agreement.docx": docx_with_font(b.docx_paras(synth.contract(8903, 4_000, kind="purchase"), rpr=_FONT_RPR),
                                          fonts.remapped({}))})
    lines = _lines(synth.contract(8904, 4_000, kind="distribution"))
    first, middle, last = _thirds(lines)
    add("html-tfoot-usual-order", "html", "an unrelated agreement in a table written thead, tbody, tfoot, as usual",
        {"agreement.html": page(f"<table><thead>{_rows(first)}</thead><tbody>{_rows(middle)}</tbody>"
                                f"<tfoot>{_rows(last)}</tfoot></table>")})
    logo = _svg("<circle cx='40' cy='40' r='30' fill='#1f3864'/><text x='90' y='50' font-family='sans-serif' font-size='28' "
                "fill='#1f3864'>Northwind Holdings</text><text x='90' y='74' font-size='13' fill='#555'>Freight, storage "
                "and logistics since 1921</text>", 90)
    add("svg-logo", "svg", "a company's SVG logo: its name and a tagline", {"logo.svg": logo})
    m = _message("Executed agreement", "Dear registry,\n\nPlease find the executed agreement attached.\n\nKind regards,\nCounsel\n")
    m.add_attachment(synth.contract(8905, 4_000, kind="lease").encode(), maintype="text", subtype="plain",
                     filename="agreement.txt")
    add("eml-with-attachment", "eml", "an ordinary email with an unrelated lease attached as a text file",
        {"message.eml": m.as_bytes()})
    return out


BUILDERS3 = (layout_html, layout_svg, layout_text, line_margin_text, layout_pdf, layout_office, layout_markup,
             shown_html, shown_svg, shown_pdf, shown_office, font_permutation, shown_markup,
             junk_html, junk_svg, junk_pdf, junk_office, junk_markup, containers3, edgar3, clean3)
