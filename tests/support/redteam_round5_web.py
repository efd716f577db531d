"""The red team's fifth round (issue #40), web and markup formats: disguises by principle that
passed the gate after round 4, and clean documents of the same kinds. Built as the earlier
rounds are (tests/support/redteam_round4.py), each case named ``r5-<format>-<construct>``.

Principles (``Case.principle``):

* **shown-not-read**: a reader shows text that no reading holds: glyph outlines drawn as SVG
  paths (a page "converted to outlines"), a picture the page chooses for a desktop screen
  (``<picture>``, a background in a ``min-width`` media query) which a narrower page does not
  draw, a picture an MHTML archive or an email resolves by its Content-Location, or a notebook
  by its cell attachments, XML entities a browser expands (XHTML, SVG, feeds), and words a mail
  reader joins again (``format=flowed; delsp=yes``).
* **junk-hidden**: junk a reader does not see, read by the tool: a ``\\r`` that Jupyter treats as
  a carriage return, SVG conditional processing (``systemLanguage``), a nested SVG viewport of
  no size, a style sheet an XHTML page declares in a processing instruction.
* **painted-over**: junk painted over by a box that is not quite opaque, or drawn in the colour of
  a background image or gradient beneath it.
* **layout**: the order on the page is not the order in the file, by constructs the readings
  follow in file order: SVG text placed by nested viewports or along ``textPath``s, MHTML frames
  placed by the root page.

Every disguised case carries a stored contract (``payload``) that a real reader shows:
``benchmarks/redteam.py --oracle --round 5`` renders each view and checks it by OCR (Chromium
for HTML, SVG, XHTML and MHTML as files, nbconvert for notebooks, docutils for reST).
"""

from __future__ import annotations

import base64
import json
import random

from tests.support import redteam_build as b
from tests.support.redteam_build import esc, page
from tests.support.redteam_cases import Case, Texts, View, _lines, decoy
from tests.support.redteam_round3 import _message

ROUND = 5
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _case(principle: str, family: str, name: str, fmt: str, key: str | None, sees: str, files: dict[str, bytes],
          views: list[View] | None = None, note: str = "") -> Case:
    return Case(family, f"r5-{name}", fmt, key, sees, files, views=views or [], note=note, round=ROUND,
                principle=principle)


def _shuffled(n: int, seed: int) -> list[int]:
    perm = list(range(n))
    random.Random(seed).shuffle(perm)
    return perm


def _scan(text: str) -> bytes:
    """A PNG of the text set on a Letter page (a scanned page)."""
    from tests.support.redteam_cases import _png

    pixels, w, h = b.page_image(text)
    return _png(pixels, w, h)


def _blank_png() -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("L", (8, 8), 255).save(buf, "PNG")
    return buf.getvalue()


def _svg(body: str, height: int, width: int = 1000, extra: str = "", head: str = "") -> bytes:
    return (f"<?xml version='1.0' encoding='UTF-8'?>\n{head}<svg xmlns='http://www.w3.org/2000/svg' "
            f"xmlns:xlink='http://www.w3.org/1999/xlink' width='{width}' height='{height}'{extra}>"
            f"<rect width='100%' height='100%' fill='white'/>{body}</svg>\n").encode()


# -- glyph outlines -----------------------------------------------------------------------------------

def outline_paths(lines: list[str], size: float = 15.0, lead: float = 22.0, x0: float = 8.0, y0: float = 20.0) -> str:
    """SVG ``<path>`` elements drawing the lines as filled glyph outlines of DejaVu Sans (one path
    a line), as a drawing program "converts text to outlines"."""
    from fontTools.pens.svgPathPen import SVGPathPen
    from fontTools.pens.transformPen import TransformPen
    from fontTools.ttLib import TTFont

    font = TTFont(FONT)
    glyphs = font.getGlyphSet()
    cmap = font.getBestCmap()
    k = size / font["head"].unitsPerEm
    out = []
    for i, line in enumerate(lines):
        pen = SVGPathPen(glyphs, ntos=lambda v: f"{v:.1f}")
        x = x0
        y = y0 + i * lead
        for ch in line:
            name = cmap.get(ord(ch)) or cmap.get(ord("?"))
            g = glyphs[name]
            g.draw(TransformPen(pen, (k, 0, 0, -k, x, y)))
            x += g.width * k
        if pen.getCommands():
            out.append(f"<path d='{pen.getCommands()}'/>")
    return "".join(out)


def shown_outlines(t: Texts) -> list[Case]:
    """The licence drawn as glyph outlines beside a 72-word decoy: in an SVG file, inline in an
    HTML page, in a Markdown file's raw HTML and in an email's HTML body."""
    out = []
    c = t["BSD"]
    lines = b.lines_of(c, 100)
    h = (len(lines) + 2) * 22 + 40
    paths = outline_paths(lines, y0=60)
    d = decoy("r5-outlines")
    svg_file = _svg(f"<g fill='#000'>{paths}</g><text x='8' y='24' font-family='sans-serif' font-size='11'>"
                    f"{esc(d[:150])}</text>", h)
    out.append(_case("shown-not-read", "visible-not-read", "svg-outlined-text", "svg", "BSD",
                     "an SVG drawing the BSD licence as glyph outlines (one <path> a line, drawn first), below a one-line "
                     "decoy <text>",
                     {"exhibit.svg": svg_file}, views=[View("exhibit.svg", "html", svg_file)]))
    inline = (f"<p>{esc(d)}</p><svg xmlns='http://www.w3.org/2000/svg' width='1000' height='{h}'>"
              f"<g fill='#000'>{outline_paths(lines)}</g></svg>")
    out.append(_case("shown-not-read", "visible-not-read", "html-svg-outlined-text", "html", "BSD",
                     "the BSD licence drawn by an inline <svg> as glyph outlines (paths), below a 72-word decoy paragraph",
                     {"exhibit.html": page(inline)}))
    md = f"# Exhibit 10.1\n\n{d}\n\n{inline.split('</p>', 1)[1]}\n"
    out.append(_case("shown-not-read", "visible-not-read", "md-svg-outlined-text", "md", "BSD",
                     "a Markdown file whose raw HTML is an <svg> drawing the BSD licence as glyph outlines, after a 72-word note",
                     {"exhibit.md": md.encode()}, views=[View("exhibit.md", "markdown", md.encode())]))
    return out


# -- SVG: order and junk the SVG model does not place ---------------------------------------------------

def layout_svg5(t: Texts) -> list[Case]:
    out = []
    lines = _lines(t["BSD"], 6)
    perm = _shuffled(len(lines), 51)
    h = (len(lines) + 2) * 22
    # each line in a nested <svg> viewport placed by its x and y; the text's own y is the same for all
    nested = "".join(f"<svg x='8' y='{(i + 1) * 22 - 16}' width='980' height='22' overflow='visible'>"
                     f"<text y='16' font-family='serif' font-size='15'>{esc(lines[i])}</text></svg>" for i in perm)
    data = _svg(nested, h)
    out.append(_case("layout", "order", "svg-nested-viewports", "svg", "BSD",
                     "an SVG drawing the BSD licence six words a line; each line a nested <svg> viewport placed by its "
                     "x and y, the viewports stored shuffled", {"exhibit.svg": data},
                     views=[View("exhibit.svg", "html", data)]))
    out.append(_case("layout", "order", "html-svg-nested-viewports", "html", "BSD",
                     "an HTML page whose inline <svg> draws the BSD licence six words a line, each line a nested "
                     "viewport placed by its y, stored shuffled",
                     {"exhibit.html": page(f"<svg xmlns='http://www.w3.org/2000/svg' width='1000' height='{h}'>{nested}</svg>")}))
    # each line along a horizontal path of <defs>; the text elements stored shuffled
    defs = "".join(f"<path id='p{i}' d='M8 {(i + 1) * 22} H990'/>" for i in range(len(lines)))
    tp = "".join(f"<text font-family='serif' font-size='15'><textPath href='#p{i}'>{esc(lines[i])}</textPath></text>"
                 for i in perm)
    data = _svg(f"<defs>{defs}</defs>{tp}", h)
    out.append(_case("layout", "order", "svg-textpath-lines", "svg", "BSD",
                     "an SVG drawing the BSD licence six words a line, each line set along a horizontal <textPath> "
                     "whose path places it; the text elements stored shuffled", {"exhibit.svg": data},
                     views=[View("exhibit.svg", "html", data)]))
    return out


def junk_svg5(t: Texts) -> list[Case]:
    out = []
    lines = _lines(t["BSD"], 5)
    words = [w for line in lines for w in line.split(" ")]
    js = iter(b.junk_after(words))

    def text_lines(junk: str) -> str:
        return "".join(f"<text x='8' y='{(k + 1) * 22}' font-family='serif' font-size='15' xml:space='preserve'>"
                       + "".join(f"{esc(w)} " + (junk.format(j=j) if (j := next(js)) else "") for w in line.split(" "))
                       + "</text>" for k, line in enumerate(lines))

    for name, junk, how in (
            ("system-language", "<tspan systemLanguage='x-none'>{j} </tspan>",
             "a <tspan systemLanguage='x-none'> (conditional processing: a language no reader has, so it is not drawn)"),
            ("required-extensions", "<tspan requiredExtensions='urn:example:none'>{j} </tspan>",
             "a <tspan> whose requiredExtensions no browser supports (not drawn)")):
        js = iter(b.junk_after(words))
        data = _svg(text_lines(junk), (len(lines) + 2) * 22)
        out.append(_case("junk-hidden", "hidden-junk", f"svg-{name}", "svg", "BSD",
                         f"an SVG drawing the BSD licence; a junk word after every word is {how}",
                         {"exhibit.svg": data}, views=[View("exhibit.svg", "html", data)]))
    # a junk line between lines of four words, in a nested viewport of no size
    four = _lines(t["BSD"], 4)
    body = "".join(f"<text x='8' y='{(k + 1) * 22}' font-family='serif' font-size='15'>{esc(line)}</text>"
                   f"<svg x='8' y='{(k + 1) * 22}' width='0' height='0'><text y='3' font-size='15'>"
                   f"{b.JUNK[k % len(b.JUNK)]} {b.JUNK[(k + 3) % len(b.JUNK)]}</text></svg>" for k, line in enumerate(four))
    data = _svg(body, (len(four) + 2) * 22)
    out.append(_case("junk-hidden", "hidden-junk", "svg-zero-viewport-lines", "svg", "BSD",
                     "an SVG drawing the BSD licence four words a line; a junk line after each line is the text of a "
                     "nested <svg> viewport of no size (it clips all it holds)", {"exhibit.svg": data},
                     views=[View("exhibit.svg", "html", data)]))
    return out


# -- XML parsed as XML: entities, CDATA, processing instructions -------------------------------------------

def _entities(lines: list[str], seed: int, prefix: str = "l") -> tuple[str, str]:
    """(internal DTD subset declaring an entity per line, in shuffled order; the references in order)."""
    perm = _shuffled(len(lines), seed)
    subset = "".join(f'<!ENTITY {prefix}{i} "{esc(lines[i])}">\n' for i in perm)
    refs = " ".join(f"&{prefix}{i};" for i in range(len(lines)))
    return subset, refs


XHTML_NS = "http://www.w3.org/1999/xhtml"


def _xhtml(body: str, subset: str = "", pi: str = "") -> bytes:
    dt = f"<!DOCTYPE html [\n{subset}]>\n" if subset else "<!DOCTYPE html>\n"
    return (f"<?xml version='1.0' encoding='UTF-8'?>\n{pi}{dt}<html xmlns='{XHTML_NS}' lang='en'><head>"
            f"<meta charset='utf-8'/><title>Exhibit 10.1</title></head>\n<body>\n{body}\n</body></html>\n").encode()


def shown_xml(t: Texts) -> list[Case]:
    out = []
    lines = _lines(t["BSD"], 4)
    subset, refs = _entities(lines, 52)
    data = _xhtml(f"<p>{refs}</p>", subset)
    out.append(_case("shown-not-read", "visible-not-read", "xhtml-internal-entities", "xhtml", "BSD",
                     "an XHTML page (.xhtml, parsed as XML) showing the BSD licence: each four words an entity of the "
                     "internal DTD subset, declared shuffled, the body a list of references in order",
                     {"exhibit.xhtml": data}, views=[View("exhibit.xhtml", "html", data)]))
    paras = b.paragraphs(t["BSD"])
    data = _xhtml(f"<p>{esc(decoy('r5-xhtml-cdata'))}</p>" + "".join(
        f"<p><![CDATA[{p[: len(p) // 2]}]]>{esc(p[len(p) // 2:])}</p>" for p in paras))
    out.append(_case("shown-not-read", "visible-not-read", "xhtml-cdata", "xhtml", "BSD",
                     "an XHTML page (.xhtml) showing the BSD licence: the first half of each paragraph a CDATA section "
                     "(text in XML, a comment to an HTML parser), after a 72-word note", {"exhibit.xhtml": data},
                     views=[View("exhibit.xhtml", "html", data)]))
    h = (len(lines) + 2) * 22
    svg = (f"<?xml version='1.0' encoding='UTF-8'?>\n<!DOCTYPE svg [\n{subset}]>\n<svg xmlns='http://www.w3.org/2000/svg' "
           f"width='1000' height='{h}'><rect width='100%' height='100%' fill='white'/>"
           + "".join(f"<text x='8' y='{(i + 1) * 22}' font-family='serif' font-size='15'>&l{i};</text>"
                     for i in range(len(lines))) + "</svg>\n").encode()
    out.append(_case("shown-not-read", "visible-not-read", "svg-internal-entities", "svg", "BSD",
                     "an SVG drawing the BSD licence four words a line, each line an entity reference; the entities are "
                     "declared shuffled in the internal DTD subset (as Illustrator declares its own)",
                     {"exhibit.svg": svg}, views=[View("exhibit.svg", "html", svg)]))
    feed = (f"<?xml version='1.0' encoding='UTF-8'?>\n<!DOCTYPE rss [\n{subset}]>\n<rss version='2.0'><channel>"
            "<title>Filings</title><link>https://filings.example.com/</link><description>New exhibits</description>"
            f"<item><title>Exhibit 10.1</title><link>https://filings.example.com/ex10.html</link><description>{refs}"
            "</description></item></channel></rss>\n").encode()
    out.append(_case("shown-not-read", "visible-not-read", "rss-internal-entities", "rss", "BSD",
                     "an RSS item whose description is a list of entity references; the internal DTD subset declares "
                     "the entities (four words of the BSD licence each) shuffled; a feed reader's XML parser expands them",
                     {"feed.xml": feed}, views=[View("feed.xml", "feedparser", feed)]))
    four = _lines(t["BSD"], 4)
    subset, refs = _entities(four, 55, "c")
    xml = (f"<?xml version='1.0' encoding='UTF-8'?>\n<!DOCTYPE agreement [\n{subset}]>\n<agreement>"
           f"<title>Exhibit 10.1</title><note>{esc(decoy('r5-xml-entities'))}</note><body>{refs}</body></agreement>\n").encode()
    out.append(_case("shown-not-read", "visible-not-read", "xml-internal-entities", "xml", "BSD",
                     "an XML file (no style sheet) whose body is a list of entity references, each four words of the BSD "
                     "licence declared shuffled in the internal DTD subset, after a 72-word note; a browser shows the "
                     "document's tree with the entities expanded", {"exhibit.xml": xml}, views=[View("exhibit.xml", "html", xml)]))
    return out


def junk_xhtml(t: Texts) -> list[Case]:
    css = "data:text/css,.j%7Bdisplay:none%7D"
    body = b.html_junk(t["BSD"], lambda j: f"<span class='j'>{j}</span>")
    data = _xhtml(body, pi=f"<?xml-stylesheet type='text/css' href='{css}'?>\n")
    return [_case("junk-hidden", "hidden-junk", "xhtml-stylesheet-pi", "xhtml", "BSD",
                  "an XHTML page (.xhtml) showing the BSD licence; a junk word after every word is hidden by the style "
                  "sheet of an <?xml-stylesheet?> processing instruction (a data: URL), which an HTML parser ignores",
                  {"exhibit.xhtml": data}, views=[View("exhibit.xhtml", "html", data)])]


# -- painted over, drawn on backgrounds the renderer's reading does not see -------------------------------

def painted5(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    for name, style, how in (
            ("outline-translucent-cover", "outline:0.8em solid rgba(255,255,255,0.97);outline-offset:-0.8em",
             "a white outline drawn inwards over it at 97% opacity (not quite opaque)"),
            ("line-through-translucent-cover",
             "text-decoration:line-through rgba(255,255,255,0.97);text-decoration-thickness:1.4em",
             "a white line-through thicker than the line, at 97% opacity")):
        out.append(_case("painted-over", "hidden-junk", f"html-{name}", "html", "BSD",
                         f"the BSD licence; a junk word after every word is covered by {how}",
                         {"exhibit.html": page(b.html_junk(c, lambda j, s=style: f"<span style='{s}'>{j}</span>"))}))
    grey = "#dfe6ee"
    for name, bg, how in (
            ("gradient-background-junk", f"linear-gradient({grey},{grey})", "a linear-gradient() of one colour"),
            ("image-background-junk", f"url({b.data_url('image/png', _colour_png((0xDF, 0xE6, 0xEE)))})",
             "a picture of one colour (a data: PNG)")):
        body = b.html_junk(c, lambda j: f"<span style='color:{grey}'>{j}</span>")
        out.append(_case("painted-over", "hidden-junk", f"html-{name}", "html", "BSD",
                         f"the BSD licence on a page whose background is {how}; a junk word after every word is drawn "
                         "in that background's colour", {"exhibit.html": page(body, f"<style>html{{background:{bg}}}</style>")}))
    return out


def _colour_png(rgb: tuple[int, int, int]) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (16, 16), rgb).save(buf, "PNG")
    return buf.getvalue()


# -- pictures a desktop screen draws and a narrower page does not --------------------------------------------

def wide_pictures(t: Texts) -> list[Case]:
    out = []
    scan = b.data_url("image/png", _scan(t["BSD"]))
    blank = b.data_url("image/png", _blank_png())
    d = esc(decoy("r5-picture"))
    out.append(_case("shown-not-read", "visible-not-read", "html-picture-source-wide", "html", "BSD",
                     "a page whose <picture> shows a scanned page of the BSD licence from a <source> for screens at "
                     "least 1000 px wide (a desktop), an 8-pixel blank <img> otherwise; the page's text is a 72-word note",
                     {"exhibit.html": page(f"<p>{d}</p><picture><source media='(min-width: 1000px)' srcset='{scan}'>"
                                           f"<img src='{blank}' alt='' width='850'></picture>")}))
    out.append(_case("shown-not-read", "visible-not-read", "html-media-background-wide", "html", "BSD",
                     "a page whose box draws a scanned page of the BSD licence as its background in a (min-width: "
                     "1000px) media query; the page's text is a 72-word note",
                     {"exhibit.html": page(f"<p>{d}</p><div class='scan'></div>",
                                           f"<style>.scan{{width:850px;height:1100px}} @media (min-width: 1000px) "
                                           f"{{ .scan {{ background:url({scan}) no-repeat }} }}</style>")}))
    return out


# -- notebooks as Jupyter shows them ----------------------------------------------------------------

def _nb(cells: list[dict]) -> bytes:
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "cells": cells}
    return json.dumps(nb, indent=1).encode()


def notebooks5(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    four = _lines(c, 4)
    stream = "".join(f"{b.JUNK[i % len(b.JUNK)]} {b.JUNK[(i + 7) % len(b.JUNK)]}\r{line}\n" for i, line in enumerate(four))
    data = _nb([{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "# Exhibit 10.1"},
                {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": "print_exhibit()",
                 "outputs": [{"output_type": "stream", "name": "stdout", "text": stream}]}])
    out.append(_case("junk-hidden", "hidden-junk", "ipynb-stream-carriage-return", "ipynb", "BSD",
                     "a notebook whose code cell prints the BSD licence four words a line; each line starts with two "
                     "junk words and a carriage return (\\r), which Jupyter overwrites as a terminal does",
                     {"exhibit.ipynb": data}, views=[View("exhibit.ipynb", "jupyter-streams", data)],
                     note="JupyterLab, the classic Notebook, VS Code and nbconvert's coalesce_streams overwrite the line "
                          "at a carriage return; nbconvert's HTML export with its default settings keeps both"))
    png = base64.b64encode(_scan(c)).decode()
    data = _nb([{"cell_type": "markdown", "id": "m1", "metadata": {},
                 "source": f"# Exhibit 10.1\n\n{decoy('r5-ipynb-attachment')}\n\n![scan](attachment:scan.png)",
                 "attachments": {"scan.png": {"image/png": png}}}])
    out.append(_case("shown-not-read", "visible-not-read", "ipynb-markdown-attachment", "ipynb", "BSD",
                     "a notebook whose Markdown cell draws a scanned page of the BSD licence, a picture the cell holds "
                     "as an attachment (attachment:scan.png); the cell's text is a 72-word note",
                     {"exhibit.ipynb": data}, views=[View("exhibit.ipynb", "nbconvert", data)]))
    ent = "".join(f"&#{ord(ch)};" for ch in " ".join(b.paragraphs(c)))
    data = _nb([{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "# Exhibit 10.1"},
                {"cell_type": "raw", "id": "r1", "metadata": {"raw_mimetype": "text/html"}, "source": f"<p>{ent}</p>"}])
    out.append(_case("shown-not-read", "visible-not-read", "ipynb-raw-html-cell", "ipynb", "BSD",
                     "a notebook whose raw cell (raw_mimetype text/html) is the BSD licence written as HTML character "
                     "references, which nbconvert's HTML (nbviewer, GitHub) inserts as HTML",
                     {"exhibit.ipynb": data}, views=[View("exhibit.ipynb", "nbconvert", data)]))
    return out


def rst5(t: Texts) -> list[Case]:
    ent = "\n   ".join("".join(f"&#{ord(ch)};" for ch in word) for word in " ".join(b.paragraphs(t["BSD"])).split(" "))
    src = f"Exhibit 10.1\n============\n\n{decoy('r5-rst-raw')}\n\n.. raw:: html\n\n   <p>{ent}</p>\n"  # a word a line
    return [_case("shown-not-read", "visible-not-read", "rst-raw-html", "rst", "BSD",
                  "a reStructuredText file whose raw directive (.. raw:: html) is the BSD licence as HTML character "
                  "references, which docutils and Sphinx insert as HTML; the text is a 72-word note",
                  {"exhibit.rst": src.encode()}, views=[View("exhibit.rst", "rst-docutils", src.encode())])]


# -- MHTML and email resolve what the page refers to ---------------------------------------------------

_BASE = "https://filings.example.com/"


def _mhtml_parts(parts: list[tuple[str, str, bytes, str]], subject: str = "Exhibit 10.1") -> bytes:
    """An MHTML archive as Chromium saves one: each part (location, type, bytes, transfer encoding)."""
    out = [f"From: <Saved by Blink>\r\nSnapshot-Content-Location: {parts[0][0]}\r\nSubject: {subject}\r\n"
           "Date: Fri, 15 Mar 2024 16:05:41 -0000\r\nMIME-Version: 1.0\r\n"
           'Content-Type: multipart/related;\r\n\ttype="text/html";\r\n\tboundary="----MultipartBoundary--r5"\r\n\r\n']
    for loc, ctype, data, cte in parts:
        body = base64.encodebytes(data).decode().replace("\n", "\r\n") if cte == "base64" else data.decode()
        out.append(f"------MultipartBoundary--r5\r\nContent-Type: {ctype}\r\nContent-Transfer-Encoding: {cte}\r\n"
                   f"Content-Location: {loc}\r\n\r\n{body}\r\n\r\n")
    out.append("------MultipartBoundary--r5--\r\n")
    return "".join(out).encode()


def mhtml5(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    d = esc(decoy("r5-mhtml-location"))
    root = page(f"<p>{d}</p><p><img src='{_BASE}scan.png' width='850' alt=''></p>")
    data = _mhtml_parts([(f"{_BASE}ex10.html", "text/html", root, "8bit"),
                         (f"{_BASE}scan.png", "image/png", _scan(c), "base64")])
    out.append(_case("shown-not-read", "visible-not-read", "mhtml-location-picture", "mhtml", "BSD",
                     "an MHTML archive (as a browser saves one) whose page draws a scanned page of the BSD licence, a "
                     "picture part named by its Content-Location; the page's text is a 72-word note",
                     {"exhibit.mhtml": data}, views=[View("exhibit.mhtml", "html", data)]))
    five = _lines(c, 5)
    perm = _shuffled(len(five), 53)
    frames = "".join(f"<iframe src='{_BASE}f{i}.html' style='display:block;border:0;width:900px;height:26px' "
                     "scrolling='no'></iframe>" for i in range(len(five)))
    root = page(frames, "<style>body{margin:8px}</style>")
    parts = [(f"{_BASE}ex10.html", "text/html", root, "8bit")] + [
        (f"{_BASE}f{i}.html", "text/html", page(esc(five[i]), "<style>body{margin:0;font:16px serif}</style>"), "8bit")
        for i in perm]
    data = _mhtml_parts(parts)
    out.append(_case("layout", "order", "mhtml-frames-shuffled", "mhtml", "BSD",
                     "an MHTML archive whose page shows the BSD licence five words a frame: <iframe>s in order, their "
                     "pages stored as parts in shuffled order and found by Content-Location",
                     {"exhibit.mhtml": data}, views=[View("exhibit.mhtml", "html", data)]))
    return out


def _related_email(subject: str, html: str, picture: bytes, location: str) -> bytes:
    """An HTML email whose picture part is named by Content-Location (RFC 2557), not Content-ID."""
    m = _message(subject, "")
    m.clear_content()
    m.set_content(html, subtype="html")
    m.add_related(picture, maintype="image", subtype="png")
    for part in m.iter_parts():
        if part.get_content_type() == "image/png":
            del part["Content-ID"]
            part["Content-Location"] = location
    return m.as_bytes()


def flowed_delsp(text: str, width: int = 5) -> str:
    """The text as ``format=flowed; delsp=yes`` lines (RFC 3676 section 4.2): each word cut into
    pieces of ``width`` letters at most, one piece a line. A line that a reader joins to the next
    ends in a space, which delsp=yes deletes; so a piece that ends a word ends in two spaces (one
    kept between the words). A paragraph's last line ends without a space."""
    out = []
    for para in b.paragraphs(text):
        words = para.split(" ")
        lines = []
        for n, w in enumerate(words):
            cuts = [w[i : i + width] for i in range(0, len(w), width)] or [w]
            for k, piece in enumerate(cuts):
                last_of_word = k == len(cuts) - 1
                last = last_of_word and n == len(words) - 1
                lines.append(piece if last else piece + ("  " if last_of_word else " "))
        out.append("\r\n".join(lines))
    return "\r\n\r\n".join(out) + "\r\n"


def unflow(text: str, delsp: bool = True) -> str:
    """A format=flowed body as a mail reader shows it (RFC 3676): a line ending in a space is
    joined to the next, that space deleted when delsp=yes."""
    out, cur = [], ""
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.endswith(" ") and line != "-- ":
            cur += line[:-1] if delsp else line
        else:
            out.append(cur + line)
            cur = ""
    if cur:
        out.append(cur)
    return "\n".join(out)


def mail5(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    d = esc(decoy("r5-eml-location"))
    html = f"<html><body><p>{d}</p><p><img src='{_BASE}scan.png' width='850'></p></body></html>"
    data = _related_email("Exhibit 10.1", html, _scan(c), f"{_BASE}scan.png")
    view = html.replace(f"{_BASE}scan.png", b.data_url("image/png", _scan(c)))
    out.append(_case("shown-not-read", "visible-not-read", "eml-location-picture", "eml", "BSD",
                     "an HTML email whose body draws a scanned page of the BSD licence, a picture part of the "
                     "multipart/related named by its Content-Location (RFC 2557); the body's text is a 72-word note",
                     {"exhibit.eml": data}, views=[View("body.html", "html", view.encode())]))
    body = flowed_delsp(c)
    raw = ("From: Counsel <counsel@example.com>\r\nTo: Registry <registry@example.org>\r\nSubject: Exhibit 10.1\r\n"
           "Date: Fri, 15 Mar 2024 16:05:41 +0000\r\nMessage-ID: <flowed.r5@example.com>\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
           + body).encode()
    shown = unflow(body)
    out.append(_case("shown-not-read", "visible-not-read", "eml-format-flowed-delsp", "eml", "BSD",
                     "a plain-text email (format=flowed; delsp=yes, RFC 3676) whose every word is cut into lines of five "
                     "letters at most; a mail reader joins the lines and deletes the breaking space, showing the BSD "
                     "licence", {"exhibit.eml": raw}, views=[View("body.txt", "text", shown.encode())],
                     note="the view is the body as RFC 3676 says a reader shows it (Thunderbird, Apple Mail and mutt "
                          "reflow flowed text); no mail reader runs here"))
    return out


# -- the HTML-level disguises inside formats whose reader draws an HTML page -----------------------------

def in_containers(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    grey = "#dfe6ee"
    body = b.html_junk(c, lambda j: f"<span style='color:{grey}'>{j}</span>")
    html = page(body, f"<style>body{{background:linear-gradient({grey},{grey})}}</style>")
    m = _message("Exhibit 10.1", "")
    m.clear_content()
    m.set_content(html.decode(), subtype="html")
    out.append(_case("painted-over", "hidden-junk", "eml-gradient-background-junk", "eml", "BSD",
                     "an HTML email showing the BSD licence on a gradient background; a junk word after every word is "
                     "drawn in the background's colour", {"exhibit.eml": m.as_bytes()}, views=[View("body.html", "html", html)]))
    style = "outline:0.8em solid rgba(255,255,255,0.97);outline-offset:-0.8em"
    md = "# Exhibit 10.1\n\n" + b.html_junk(c, lambda j: f"<span style='{style}'>{j}</span>") + "\n"
    out.append(_case("painted-over", "hidden-junk", "md-outline-translucent-cover", "md", "BSD",
                     "a Markdown file whose raw HTML shows the BSD licence; a junk word after every word is covered by a "
                     "white outline drawn inwards at 97% opacity", {"exhibit.md": md.encode()},
                     views=[View("exhibit.md", "markdown", md.encode())]))
    scan = b.data_url("image/png", _scan(c))
    frag = (f"<p>{esc(decoy('r5-ipynb-picture'))}</p><picture><source media='(min-width: 1000px)' srcset='{scan}'>"
            f"<img src='{b.data_url('image/png', _blank_png())}' alt='' width='850'></picture>")
    data = _nb([{"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": "show()",
                 "outputs": [{"output_type": "display_data", "metadata": {},
                              "data": {"text/html": frag, "text/plain": "<IPython.core.display.HTML object>"}}]}])
    out.append(_case("shown-not-read", "visible-not-read", "ipynb-picture-source-wide", "ipynb", "BSD",
                     "a notebook whose HTML output draws a scanned page of the BSD licence from a <picture> <source> for "
                     "screens at least 1000 px wide; the output's text is a 72-word note", {"exhibit.ipynb": data},
                     views=[View("exhibit.ipynb", "nbconvert", data)]))
    return out


# -- what a reader's screen decides, and visual order the renderer's reading must follow -------------------

def device5(t: Texts) -> list[Case]:
    """Pages that show another text or picture by the reader's screen: its pixel density."""
    out = []
    c = t["BSD"]
    body = b.html_junk(c, lambda j: f"<span class='j'>{j}</span>")
    data = page(body, "<style>@media (min-resolution: 2dppx) { .j { display: none } }</style>")
    out.append(_case("junk-hidden", "hidden-junk", "html-density-media-junk", "html", "BSD",
                     "the BSD licence on a screen of two device pixels per CSS pixel (most laptops and phones); a junk "
                     "word after every word is hidden by a (min-resolution: 2dppx) media query",
                     {"exhibit.html": data}, views=[View("exhibit.html", "html-2x", data)]))
    scan = b.data_url("image/png", _scan(c))
    blank = b.data_url("image/png", _blank_png())
    out.append(_case("shown-not-read", "visible-not-read", "html-srcset-density", "html", "BSD",
                     "a page whose <img srcset> draws a scanned page of the BSD licence for screens of two device pixels "
                     "per CSS pixel (and when printed), a blank picture at one; the page's text is a 72-word note",
                     {"exhibit.html": page(f"<p>{esc(decoy('r5-srcset'))}</p><img srcset='{blank} 1x, {scan} 2x' "
                                           f"src='{blank}' width='850' alt=''>")},
                     views=[View("exhibit.html", "html-2x", page(f"<p>{esc(decoy('r5-srcset'))}</p><img srcset='{blank} "
                                                                f"1x, {scan} 2x' src='{blank}' width='850' alt=''>"))]))
    return out


def visual_order5(t: Texts) -> list[Case]:
    """Order a browser draws other than the source's, where paint order is source order."""
    out = []
    lines = _lines(t["BSD"], 6)
    body = "".join("<div dir='rtl' style='text-align:left'>" + " ".join(
        f"<span style='display:inline-block'>{esc(w)}</span>" for w in reversed(line.split(" "))) + "</div>" for line in lines)
    out.append(_case("layout", "order", "html-rtl-inline-blocks", "html", "BSD",
                     "the BSD licence six words a line; each word an inline-block in a right-to-left line, stored last "
                     "to first (the bidi algorithm places atomic inlines right to left)", {"exhibit.html": page(body)}))
    body = "".join(f"<fieldset style='border:0;margin:0;padding:0'><p style='margin:0'>{esc(' '.join(line.split(' ')[3:]))}"
                   f"</p><legend style='padding:0'>{esc(' '.join(line.split(' ')[:3]))}</legend></fieldset>" for line in lines)
    out.append(_case("layout", "order", "html-fieldset-late-legend", "html", "BSD",
                     "the BSD licence three words a line; each pair of lines a <fieldset> whose <legend> (drawn first, "
                     "whatever its place) is stored after its paragraph", {"exhibit.html": page(body)}))
    order: list[int] = []
    for i in range(0, len(lines), 2):
        order += [i + 1, i] if i + 1 < len(lines) else [i]
    y, spans = 10, []
    for i in order:
        spans.append(f"<tspan x='4' dy='{10 + i * 10 - y}'>{esc(lines[i])}</tspan>")
        y = 10 + i * 10
    h = (len(lines) + 2) * 22
    data = _svg(f"<text x='4' y='10' font-family='serif' font-size='7'>{''.join(spans)}</text>", h,
                extra=f" viewBox='0 0 {1000 / 2.2:.1f} {h / 2.2:.1f}'")
    out.append(_case("layout", "order", "svg-tspan-dy-swaps", "svg", "BSD",
                     "an SVG drawing the BSD licence six words a line, each line a <tspan> moved by dy from the one "
                     "before; each pair of lines stored swapped, the drawing scaled up by its viewBox",
                     {"exhibit.svg": data}, views=[View("exhibit.svg", "html", data)]))
    return out


# -- clean documents of these kinds --------------------------------------------------------------------

def clean5(t: Texts) -> list[Case]:
    from tests.support import synth

    out = []

    def add(name: str, fmt: str, sees: str, files: dict[str, bytes]) -> None:
        out.append(_case("clean", "clean", name, fmt, None, sees, files))

    # an SVG chart: title and labels as text, the company's name as outlines (a logo)
    logo = outline_paths(["NORTHWIND"], size=22, y0=30)
    bars = "".join(f"<rect x='{80 + i * 90}' y='{300 - v}' width='50' height='{v}' fill='#1f77b4'/>"
                   for i, v in enumerate((120, 180, 90, 210)))
    labels = "".join(f"<text x='{85 + i * 90}' y='320' font-size='12'>Q{i + 1}</text>" for i in range(4))
    add("svg-chart-outlined-logo", "svg", "an SVG bar chart (shapes first, then its labels, as matplotlib writes one) "
        "with a logo drawn as outlines", {"chart.svg": _svg(f"<g fill='#1f3864'>{logo}</g>{bars}<text x='80' y='60' "
                                                            f"font-size='16'>Quarterly freight volume</text>{labels}",
                                                            340, 500)})
    add("xhtml-page", "xhtml", "an unrelated agreement as an ordinary XHTML page (.xhtml) with the usual entities",
        {"agreement.xhtml": _xhtml("<h1>Services agreement &#8212; &amp; schedules</h1>"
                                   + b.html_paras(synth.contract(8961, 4_000, kind="services")))})
    tqdm = "".join(f"\r{p:3d}%|{'#' * (p // 10):<10}| {p}/100" for p in range(0, 101, 10)) + "\n"
    add("ipynb-progress-bar", "ipynb", "a notebook with an unrelated agreement in Markdown and a code cell whose output "
        "is a progress bar redrawn with carriage returns",
        {"analysis.ipynb": _nb([{"cell_type": "markdown", "id": "m1", "metadata": {},
                                 "source": synth.contract(8962, 3_000, kind="lease")},
                                {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1,
                                 "source": "for i in tqdm(range(100)): work(i)",
                                 "outputs": [{"output_type": "stream", "name": "stderr", "text": tqdm}]}])})
    photo = _colour_png((120, 140, 160))
    root = page(b.html_paras(synth.contract(8963, 4_000, kind="distribution"))
                + f"<p><img src='{_BASE}photo.png' width='200' height='120' alt='Warehouse'></p>")
    add("mhtml-saved-page", "mhtml", "an unrelated agreement saved by a browser as MHTML, with a photo part",
        {"saved.mhtml": _mhtml_parts([(f"{_BASE}page.html", "text/html", root, "8bit"),
                                      (f"{_BASE}photo.png", "image/png", photo, "base64")], "Distribution agreement")})
    text = synth.contract(8964, 3_000, kind="employment")
    flowed = "\r\n".join(" \r\n".join(b.lines_of(p, 60)) for p in b.paragraphs(text)) + "\r\n"
    add("eml-format-flowed", "eml", "an ordinary plain-text email sent as format=flowed (as Thunderbird sends)",
        {"flowed.eml": ("From: A <a@example.com>\r\nTo: B <b@example.com>\r\nSubject: Offer\r\nDate: Fri, 15 Mar 2024 "
                        "16:05:41 +0000\r\nMessage-ID: <offer@example.com>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; "
                        "charset=utf-8; format=flowed\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + flowed).encode()})
    add("html-gradient-banner", "html", "an unrelated agreement under a gradient banner with white heading text, on a "
        "page with a translucent sticky header", {"banner.html": page(
            "<header style='position:sticky;top:0;background:rgba(255,255,255,.9)'>Northwind</header>"
            "<div style='background:linear-gradient(90deg,#1f3864,#2e75b6);color:#fff;padding:20px'><h1>Supply agreement"
            "</h1></div>" + b.html_paras(synth.contract(8965, 4_000, kind="supply")))})
    add("html-responsive-picture", "html", "an unrelated agreement with a responsive <picture> of a photo",
        {"photo.html": page(b.html_paras(synth.contract(8966, 4_000, kind="purchase"))
                            + f"<picture><source media='(min-width: 1000px)' srcset='{b.data_url('image/png', photo)}'>"
                            f"<img src='{b.data_url('image/png', _blank_png())}' alt='' width='200'></picture>")})
    add("rst-raw-html", "rst", "an unrelated agreement in reStructuredText with a raw HTML line break",
        {"agreement.rst": (synth.contract(8967, 3_000, kind="consulting") + "\n\n.. raw:: html\n\n   <br/>\n").encode()})
    return out


BUILDERS5_WEB = (shown_outlines, layout_svg5, junk_svg5, shown_xml, junk_xhtml, painted5, wide_pictures, notebooks5,
                 rst5, mhtml5, mail5, in_containers, device5, visual_order5, clean5)
