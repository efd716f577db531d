"""The red team's fourth round (issue #40): disguises by principle that passed the gate after
round 3, and clean documents of the same kinds. Built as the earlier rounds are
(tests/support/redteam_cases.py, tests/support/redteam_round3.py), each case named
``r4-<format>-<construct>``.

Principles (``Case.principle``):

* **unrendered-html**: HTML that a reader renders, reached through a format the gate reads as
  HTML but does not render: the body of an email, the root of an MHTML archive, the raw HTML of
  a Markdown file, a notebook's HTML output, an RSS item's description. The rendered check
  (gating/render.py) draws only documents whose own format is HTML, SVG or XHTML, so every
  disguise that round 3 left to that check (lines moved back by ``position:relative``, junk
  under a white box) passes inside these.
* **painted-over**: junk that the tool and the renderer's text layer both hold, covered by paint
  drawn after it: an outline drawn inwards over a word, a white line-through as thick as the
  line, a PDF shading painted over a clipped box. The HTML model lists ``outline`` and
  ``text-decoration`` as inert; the PDF reader models filled paths and images over text, not a
  shading (``sh``); and :func:`auditor.extract.render.visible_text` only looks at what is
  painted *beneath* a glyph.
* **clipped-row**: a table row of exact height clips the cell's second line: a junk line under
  every four words of the contract, in a .docx (``w:trHeight w:hRule="exact"``), an RTF table
  (``\\trrh`` negative) and a flat ODF (``style:row-height``). LibreOffice (and Word) draw only
  the first line, yet the clipped glyphs stay in the PDF's text layer.
* **layout**: layout decides reading order through constructs the models list as harmless: the
  logical property ``margin-block-start`` (``margin-top`` is computed; its flow-relative alias is
  listed as inert), and .docx paragraphs placed on the page by ``w:framePr`` (a paragraph
  property the model allows), stored shuffled.

Every disguised case carries a stored contract (``payload``) that a real reader shows:
``benchmarks/redteam.py --oracle --round 4`` renders each view and checks it by OCR.
"""

from __future__ import annotations

import json
import random

from tests.support import redteam_build as b
from tests.support.redteam_build import esc, page
from tests.support.redteam_cases import Case, Texts, View, _lines
from tests.support.redteam_round3 import _message, fodt

ROUND = 4
LINE = 24  # px


def _case(principle: str, family: str, name: str, fmt: str, key: str | None, sees: str, files: dict[str, bytes],
          views: list[View] | None = None, note: str = "") -> Case:
    return Case(family, f"r4-{name}", fmt, key, sees, files, views=views or [], note=note, round=ROUND,
                principle=principle)


# -- HTML that a reader renders, inside a format the gate does not render ---------------------------

def _relative_swap(text: str) -> tuple[str, str]:
    """(style, body): each pair of lines stored swapped, moved back by position:relative."""
    lines = _lines(text)
    swapped = [i ^ 1 if (i ^ 1) < len(lines) else i for i in range(len(lines))]
    return "", (f"<div style='line-height:{LINE}px'>" + "".join(
        f"<div style='position:relative;top:{(i - j) * LINE}px'>{esc(lines[i])}</div>" for j, i in enumerate(swapped))
        + "</div>")


def _covered_junk(text: str) -> tuple[str, str]:
    """(style, body): a junk word after every word, absolutely placed at the top left of the
    page under a white box painted over it."""
    cover = "<div style='position:absolute;left:0;top:0;width:600px;height:60px;background:#fff;z-index:9'></div>"
    return ("<style>body{padding-top:70px}</style>",
            b.html_junk(text, lambda j: f"<span style='position:absolute;left:10px;top:10px'>{j}</span>") + cover)


HTML_TRICKS = {"relative-swap": (_relative_swap, "each pair of lines stored swapped and moved back by position:relative"),
               "covered-by-box": (_covered_junk, "a junk word after every word, placed at the page's top left under a "
                                                 "white box painted over it")}


def _mhtml(html: bytes) -> bytes:
    return ("MIME-Version: 1.0\r\nSubject: Exhibit 10.1\r\nSnapshot-Content-Location: https://filings.example.com/ex10.html\r\n"
            'Content-Type: multipart/related; type="text/html"; boundary="----=_r4_boundary"\r\n\r\n'
            "------=_r4_boundary\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
            "Content-Location: https://filings.example.com/ex10.html\r\n\r\n" + html.decode()
            + "\r\n------=_r4_boundary--\r\n").encode()


def _html_email(subject: str, html: bytes) -> bytes:
    m = _message(subject, "")
    m.clear_content()
    m.set_content(html.decode(), subtype="html")
    return m.as_bytes()


def _notebook(fragment: str) -> bytes:
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "cells": [{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "# Exhibit 10.1"},
                    {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": "show_exhibit()",
                     "outputs": [{"output_type": "display_data", "metadata": {},
                                  "data": {"text/html": fragment, "text/plain": "<IPython.core.display.HTML object>"}}]}]}
    return json.dumps(nb, indent=1).encode()


def _rss(fragment: str) -> bytes:
    return ("<?xml version='1.0' encoding='UTF-8'?>\n<rss version='2.0'><channel><title>Filings</title>"
            "<link>https://filings.example.com/</link><description>New exhibits</description><item><title>Exhibit 10.1</title>"
            f"<link>https://filings.example.com/ex10.html</link><description>{esc(fragment)}</description></item>"
            "</channel></rss>\n").encode()


def unrendered_html(t: Texts) -> list[Case]:
    out = []
    for trick, (make, how) in HTML_TRICKS.items():
        style, body = make(t["BSD"])
        full = page(body, style)
        fragment = style + body
        md = f"# Exhibit 10.1\n\n{fragment}\n"
        family = "order" if trick == "relative-swap" else "hidden-junk"

        def add(fmt: str, files: dict[str, bytes], views: list[View], where: str, trick: str = trick, how: str = how,
                family: str = family) -> None:
            out.append(_case("unrendered-html", family, f"{fmt}-{trick}", fmt, "BSD", f"the BSD licence {where}; {how}",
                             files, views=views))

        add("eml", {"exhibit.eml": _html_email("Exhibit 10.1", full)}, [View("body.html", "html", full)],
            "as the HTML body of an email (a mail reader renders it)")
        add("mhtml", {"exhibit.mhtml": _mhtml(full)}, [View("exhibit.mhtml", "html", _mhtml(full))],
            "as the root page of an MHTML archive")
        add("md", {"exhibit.md": md.encode()}, [View("exhibit.md", "markdown", md.encode())],
            "as raw HTML in a Markdown file")
        add("ipynb", {"exhibit.ipynb": _notebook(fragment)},
            [View("exhibit.ipynb", "notebook", _notebook(fragment))], "as the HTML output of a notebook's code cell")
        if trick == "relative-swap":
            add("rss", {"feed.xml": _rss(fragment)}, [View("description.html", "html", page(fragment))],
                "as the HTML description of an RSS item (a feed reader renders it)")
    return out


# -- junk painted over ---------------------------------------------------------------------------

def painted_over(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    for name, style, how in (
            ("outline-cover", "outline:0.8em solid #fff;outline-offset:-0.8em",
             "a white outline drawn inwards over it (outline-offset as negative as its width)"),
            ("outline-rounded-cover", "outline:0.8em solid #fff;outline-offset:-0.8em;border-radius:3px",
             "a white outline drawn inwards over it, its corners rounded (the outline is drawn with curves)"),
            ("line-through-cover", "text-decoration:line-through #fff;text-decoration-thickness:1.4em",
             "a white line-through thicker than the line (decorations through the text are painted after it)")):
        out.append(_case("painted-over", "hidden-junk", f"html-{name}", "html", "BSD",
                         f"the BSD licence; a junk word after every word is covered by {how}",
                         {"exhibit.html": page(b.html_junk(c, lambda j, s=style: f"<span style='{s}'>{j}</span>"))}))
    # PDF: each junk word in a gap between words, a white axial shading painted over its box
    shading = (b"/Shading << /Sh0 << /ShadingType 2 /ColorSpace /DeviceGray /Coords [0 0 1 0] /Extend [true true] "
               b"/Function << /FunctionType 2 /Domain [0 1] /C0 [1] /C1 [1] /N 1 >> >> >>")
    layout = b.pdf_layout(c, gap=7)
    js = iter(b.junk_after([w for pg in layout for _, _, w in pg]))
    pages = []
    for pg in layout:
        ops = []
        for x, y, w in pg:
            ops.append(b.at(x, y, w))
            j = next(js)
            if j:
                jx, j = x + (len(w) + 1) * b.ADV, j[:6]
                ops.append(b.at(jx, y, j) + b"q %.2f %.2f %.2f %.2f re W n /Sh0 sh Q\n" % (jx - 0.5, y - 3, len(j) * b.ADV + 1, 12))
        pages.append(b"".join(ops))
    out.append(_case("painted-over", "hidden-junk", "pdf-shading-cover", "pdf", "BSD",
                     "the BSD licence, words eight spaces apart; a junk word in each gap is covered by a white shading "
                     "(sh) painted over its box", {"exhibit.pdf": b.pdf(pages, resources=shading)}))
    return out


def _png(width: int, height: int, grey: int = 255) -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes([grey]) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _anchored_cover(kind: str, x: int, cx: int, cy: int) -> str:
    """A paragraph holding a white picture (``pic``) or a white rectangle (``shape``) anchored in
    front of the text at ``x`` from the margin, ``cx`` by ``cy`` EMU."""
    if kind == "pic":
        graphic = ('<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>'
                   '<pic:nvPicPr><pic:cNvPr id="1" name="white.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill>'
                   '<a:blip r:embed="rIdImg"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm>'
                   f'<a:off x="0" y="0"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr>'
                   "</pic:pic></a:graphicData></a:graphic>")
    else:
        graphic = ('<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">'
                   f'<wps:wsp><wps:cNvSpPr/><wps:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm>'
                   '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:solidFill><a:srgbClr val="FFFFFF"/></a:solidFill>'
                   "<a:ln><a:noFill/></a:ln></wps:spPr><wps:bodyPr/></wps:wsp></a:graphicData></a:graphic>")
    return ('<w:p><w:r><w:drawing><wp:anchor distT="0" distB="0" distL="0" distR="0" simplePos="0" relativeHeight="5" '
            'behindDoc="0" locked="0" layoutInCell="1" allowOverlap="1"><wp:simplePos x="0" y="0"/>'
            f'<wp:positionH relativeFrom="margin"><wp:posOffset>{x}</wp:posOffset></wp:positionH>'
            '<wp:positionV relativeFrom="margin"><wp:posOffset>0</wp:posOffset></wp:positionV>'
            f'<wp:extent cx="{cx}" cy="{cy}"/><wp:wrapNone/><wp:docPr id="9" name="Cover"/>{graphic}</wp:anchor>'
            "</w:drawing></w:r></w:p>")


def covered_column(t: Texts) -> list[Case]:
    """A .docx table: four words of the licence a row in its left column, a junk word beside them
    in the right one, which a white picture (or shape) anchored in front of the text covers."""
    out = []
    lines = _lines(t["BSD"], 4)
    small = '<w:sz w:val="16"/>'
    rows = "".join(
        f'<w:tr><w:tc><w:tcPr><w:tcW w:w="5000" w:type="dxa"/></w:tcPr>{b.para(b.run(line, small))}</w:tc>'
        f'<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr>{b.para(b.run(b.JUNK[i % len(b.JUNK)], small))}</w:tc>'
        "</w:tr>" for i, line in enumerate(lines))
    table = ('<w:tbl><w:tblPr><w:tblW w:w="8000" w:type="dxa"/></w:tblPr><w:tblGrid><w:gridCol w:w="5000"/>'
             f'<w:gridCol w:w="3000"/></w:tblGrid>{rows}</w:tbl>')
    x, cx, cy = 5000 * 635, 3000 * 635, 9 * 914400  # EMU: the right column, nine inches down
    rels = f'<Relationship Id="rIdImg" Type="{b._REL_NS}/image" Target="media/white.png"/>'
    for kind, what in (("pic", "a white picture"), ("shape", "a white rectangle (wps:wsp)")):
        data = b.docx(_anchored_cover(kind, x, cx, cy) + table + b.para(""),
                      **({"parts": {"word/media/white.png": _png(8, 8)}, "rels": rels} if kind == "pic" else {}))
        out.append(_case("painted-over", "hidden-junk", f"docx-{'picture' if kind == 'pic' else 'shape'}-over-column",
                         "docx", "BSD", f"the BSD licence down a table's left column, four words a row; a junk word "
                         f"beside each row in the right column is covered by {what} anchored in front of the text",
                         {"exhibit.docx": data}))
    return out


# -- text a reader sees that no reading holds ----------------------------------------------------

def shown_notebook(t: Texts) -> list[Case]:
    """A notebook whose code cell's output is a PNG picture of the licence (a scanned page):
    Jupyter draws the picture; the output's text/plain form is matplotlib's placeholder."""
    import base64

    from tests.support.redteam_cases import _png as page_png
    from tests.support.redteam_cases import decoy

    pixels, w, h = b.page_image(t["BSD"])
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "cells": [{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "# Exhibit 10.1\n\n" + decoy("r4-nb-png")},
                    {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": "show_scan()",
                     "outputs": [{"output_type": "display_data", "metadata": {},
                                  "data": {"image/png": base64.b64encode(page_png(pixels, w, h)).decode(),
                                           "text/plain": "<Figure size 850x1100 with 1 Axes>"}}]}]}
    data = json.dumps(nb, indent=1).encode()
    return [_case("shown-not-read", "visible-not-read", "ipynb-output-picture", "ipynb", "BSD",
                  "a notebook whose code cell's output is a picture (image/png) of the BSD licence, which Jupyter draws; "
                  "the output's text/plain form is a figure placeholder, the Markdown cell a 72-word note",
                  {"exhibit.ipynb": data}, views=[View("exhibit.ipynb", "notebook", data)])]


def _cid_email(subject: str, html: str, picture: bytes, cid: str) -> bytes:
    m = _message(subject, "")
    m.clear_content()
    m.set_content(html, subtype="html")
    m.add_related(picture, maintype="image", subtype="png", cid=f"<{cid}>")
    return m.as_bytes()


def shown_mail(t: Texts) -> list[Case]:
    """An HTML email whose body draws a scanned page of the licence, a picture of the message
    referred to by its Content-ID (``<img src="cid:...">``); the body's text is a 72-word note."""
    from tests.support.redteam_cases import _png as page_png
    from tests.support.redteam_cases import decoy

    pixels, w, h = b.page_image(t["BSD"])
    html = f"<html><body><p>{esc(decoy('r4-eml-cid'))}</p><p><img src='cid:scan@example.com' width='850'></p></body></html>"
    data = _cid_email("Exhibit 10.1", html, page_png(pixels, w, h), "scan@example.com")
    view = html.replace("cid:scan@example.com", b.data_url("image/png", page_png(pixels, w, h)))
    return [_case("shown-not-read", "visible-not-read", "eml-cid-picture", "eml", "BSD",
                  "an HTML email whose body draws a scanned page of the BSD licence (an image part the body refers to "
                  "by Content-ID); the body's text is a 72-word note", {"exhibit.eml": data},
                  views=[View("body.html", "html", view.encode())])]


# -- table rows of exact height clip a junk line ---------------------------------------------------

def _junk_line(i: int) -> str:
    return f"{b.JUNK[i % len(b.JUNK)]} {b.JUNK[(i + 5) % len(b.JUNK)]}"


def _rtf_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")


def clipped_rows(t: Texts) -> list[Case]:
    out = []
    lines = _lines(t["BSD"], 4)
    how = "one row a line of four words, the row's exact height clips the junk line under it"
    rows = "".join(
        '<w:tr><w:trPr><w:trHeight w:val="300" w:hRule="exact"/></w:trPr><w:tc><w:tcPr><w:tcW w:w="9000" w:type="dxa"/>'
        f"</w:tcPr>{b.para(b.run(line))}{b.para(b.run(_junk_line(i)))}</w:tc></w:tr>" for i, line in enumerate(lines))
    docx = b.docx('<w:tbl><w:tblPr><w:tblW w:w="9000" w:type="dxa"/></w:tblPr><w:tblGrid><w:gridCol w:w="9000"/>'
                  f"</w:tblGrid>{rows}</w:tbl>" + b.para(""))
    out.append(_case("clipped-row", "hidden-junk", "docx-exact-row-clip", "docx", "BSD",
                     f"the BSD licence in a table (w:trHeight hRule=exact): {how}", {"exhibit.docx": docx}))
    rtf = ("{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}\\f0\\fs22\n" + "".join(
        f"\\trowd\\trrh-300\\cellx9000 \\pard\\intbl {_rtf_escape(line)}\\par {_junk_line(i)}\\cell\\row\n"
        for i, line in enumerate(lines)) + "\\pard\\par}").encode()
    out.append(_case("clipped-row", "hidden-junk", "rtf-exact-row-clip", "rtf", "BSD",
                     f"the BSD licence in an RTF table (\\trrh negative: exact): {how}", {"exhibit.rtf": rtf},
                     views=[View("exhibit.rtf", "office", rtf)]))
    style = ('<style:style style:name="R" style:family="table-row"><style:table-row-properties style:row-height="0.53cm"/>'
             '</style:style><style:style style:name="T" style:family="table"><style:table-properties style:width="16cm"/>'
             "</style:style>")
    cells = "".join(f'<table:table-row table:style-name="R"><table:table-cell office:value-type="string"><text:p>{esc(line)}'
                    f"</text:p><text:p>{_junk_line(i)}</text:p></table:table-cell></table:table-row>"
                    for i, line in enumerate(lines))
    data = fodt(f'<table:table table:name="t" table:style-name="T"><table:table-column/>{cells}</table:table>', styles=style)
    data = data.replace(b"xmlns:svg=", b'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:svg=')
    out.append(_case("clipped-row", "hidden-junk", "fodt-exact-row-clip", "fodt", "BSD",
                     f"the BSD licence in a flat OpenDocument table (style:row-height, exact): {how}", {"exhibit.fodt": data},
                     views=[View("exhibit.fodt", "office", data)]))
    return out


# -- layout by constructs the models call harmless --------------------------------------------------

def layout4(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    lines = list(reversed(_lines(c)))
    n = len(lines)
    body = "<div style='display:flow-root;line-height:24px'>" + "".join(
        f"<div style='height:24px;margin-block-start:{(n - 1) * LINE if k == 0 else -2 * LINE}px'>{esc(line)}</div>"
        for k, line in enumerate(lines)) + "</div>"
    out.append(_case("layout", "order", "html-margin-block-start", "html", "BSD",
                     "the BSD licence in reading order: its lines stored last to first, each moved up into place by a "
                     "negative margin-block-start (the flow-relative name of margin-top)", {"exhibit.html": page(body)}))
    ls = _lines(c, 9)
    perm = list(range(len(ls)))
    random.Random(7).shuffle(perm)
    frames = "".join(b.para(b.run(ls[i]), '<w:framePr w:w="9000" w:h="280" w:hRule="exact" w:hSpace="0" w:wrap="around" '
                                           f'w:vAnchor="page" w:hAnchor="page" w:x="1440" w:y="{1440 + i * 300}"/>')
                     for i in perm)
    out.append(_case("layout", "order", "docx-framepr-shuffled", "docx", "BSD",
                     "the BSD licence line by line: each line a paragraph placed on the page by w:framePr (x, y), the "
                     "paragraphs stored shuffled", {"exhibit.docx": b.docx(frames + b.para(""))}))
    return out


# -- clean documents of these kinds ---------------------------------------------------------------

def clean4(t: Texts) -> list[Case]:
    from tests.support import synth

    out = []

    def add(name: str, fmt: str, sees: str, files: dict[str, bytes]) -> None:
        out.append(_case("clean", "clean", name, fmt, None, sees, files))

    o = synth.contract(8950, 5_000, kind="services")
    add("html-focus-outlines", "html", "an unrelated agreement on a page whose links have focus outlines",
        {"services.html": page(b.html_paras(o) + "<p><a href='#top' style='outline:1px dotted #999'>Back to top</a></p>",
                               "<style>a:focus{outline:2px solid #36c;outline-offset:2px}"
                               "del{text-decoration:line-through}</style>")})
    add("html-logical-margins", "html", "an unrelated agreement styled with flow-relative margins and padding",
        {"logical.html": page(b.html_paras(synth.contract(8951, 5_000, kind="employment")),
                              "<style>p{margin-block:0 1em;margin-inline-start:2em;padding-inline:1em}</style>")})
    news = page("<table style='width:600px;margin:auto'><tr><td style='background:#1f3864;color:#fff;padding:12px'>"
                "<h1>Northwind Holdings</h1></td></tr><tr><td>" + b.html_paras(synth.contract(8952, 3_000, kind="lease"))
                + "</td></tr></table>")
    add("eml-html-newsletter", "eml", "an ordinary HTML email: a coloured banner and an unrelated lease",
        {"newsletter.eml": _html_email("Lease renewal", news)})
    import io

    from PIL import Image

    logo = io.BytesIO()
    Image.new("RGB", (120, 40), (31, 56, 100)).save(logo, "PNG")
    add("eml-inline-logo", "eml", "an ordinary HTML email signed with an inline logo (a picture part the body draws "
        "by Content-ID), an unrelated lease in its body",
        {"signed.eml": _cid_email("Lease renewal", "<html><body>" + b.html_paras(synth.contract(8990, 2_000, kind="lease"))
                                  + "<p><img src='cid:logo@example.com' alt='Northwind'></p></body></html>",
                                  logo.getvalue(), "logo@example.com")})
    add("md-details-table", "md", "a Markdown file with an HTML <details> block and a table, an unrelated agreement",
        {"README.md": ("# Distribution agreement\n\n" + synth.contract(8953, 3_000, kind="distribution")
                       + "\n\n<details><summary>Schedule</summary>\n\n| Item | Price |\n|---|---|\n| A | 10 |\n\n</details>\n"
                       ).encode()})
    rows = "".join('<w:tr><w:trPr><w:trHeight w:val="400" w:hRule="exact"/></w:trPr><w:tc><w:tcPr><w:tcW w:w="9000" '
                   f'w:type="dxa"/></w:tcPr>{b.para(b.run(f"Field {i}: value {i}"))}</w:tc></w:tr>' for i in range(10))
    add("docx-form-rows", "docx", "an unrelated agreement and a form table whose rows have exact heights that fit them",
        {"form.docx": b.docx(b.docx_paras(synth.contract(8960, 3_000, kind="purchase")) + '<w:tbl><w:tblPr><w:tblW w:w='
                             '"9000" w:type="dxa"/></w:tblPr><w:tblGrid><w:gridCol w:w="9000"/></w:tblGrid>' + rows
                             + "</w:tbl>" + b.para(""))})
    add("ipynb-plot-output", "ipynb", "a notebook with an unrelated agreement in Markdown and a bar chart (a PNG "
        "without words) as a code cell's output", {"analysis.ipynb": _plot_notebook(synth.contract(8954, 2_000, kind="lease"))})
    ops = b.pdf_text_ops(synth.contract(8970, 5_000, kind="security"))
    ops[0] = b"q 0 700 612 92 re W n /Sh0 sh Q\n" + ops[0]
    band = (b"/Shading << /Sh0 << /ShadingType 2 /ColorSpace /DeviceRGB /Coords [0 0 612 0] /Function << /FunctionType 2 "
            b"/Domain [0 1] /C0 [0.85 0.9 1] /C1 [1 1 1] /N 1 >> >> >>")
    add("pdf-gradient-band", "pdf", "an unrelated agreement in a PDF with a gradient band painted behind its heading",
        {"security.pdf": b.pdf(ops, resources=band)})
    return out


def _plot_notebook(text: str) -> bytes:
    import base64
    import io

    from PIL import Image, ImageDraw

    img = Image.new("RGB", (640, 480), "white")
    draw = ImageDraw.Draw(img)
    draw.line([(60, 420), (600, 420)], fill="black", width=2)
    draw.line([(60, 40), (60, 420)], fill="black", width=2)
    for i, v in enumerate((120, 260, 180, 330, 90, 240)):
        draw.rectangle([90 + i * 85, 420 - v, 140 + i * 85, 420], fill=(31, 119, 180))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "cells": [{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": text},
                    {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1,
                     "source": "plt.bar(range(6), rent)", "outputs": [{"output_type": "display_data", "metadata": {},
                                                                        "data": {"image/png": base64.b64encode(buf.getvalue()).decode(),
                                                                                 "text/plain": "<Figure size 640x480 with 1 Axes>"}}]}]}
    return json.dumps(nb, indent=1).encode()


BUILDERS4 = (unrendered_html, painted_over, covered_column, shown_notebook, shown_mail, clipped_rows, layout4,
             clean4)


def email_with_attachment(text: str, kind: str) -> bytes:
    """An ordinary email with ``text`` attached as a PDF, a .docx or an HTML page."""
    data, (main, sub) = {
        "pdf": (b.pdf(b.pdf_text_ops(text)), ("application", "pdf")),
        "docx": (b.docx(b.docx_paras(text)), ("application", "vnd.openxmlformats-officedocument.wordprocessingml.document")),
        "html": (page(b.html_paras(text)), ("text", "html")),
    }[kind]
    m = _message(f"Executed agreement ({kind})", "Dear registry,\n\nPlease find the executed agreement attached.\n\n"
                                                 "Kind regards,\nCounsel\n")
    m.add_attachment(data, maintype=main, subtype=sub, filename=f"agreement.{kind}")
    return m.as_bytes()

