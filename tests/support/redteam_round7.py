"""The red team's seventh round (issue #40): constructs the readers' allow-lists admit as
modelled, where a real reader draws something else. Built as the earlier rounds are
(tests/support/redteam_round6.py), each case named ``r7-<format>-<construct>``.

Principles (``Case.principle``):

* **paint-and-clip**: junk a reader does not see because of how the page is painted or clipped,
  by properties the model counted as inert: a negative ``z-index`` paints the junk beneath its
  own paragraph's background; ``contain: strict`` gives the junk's box no size and clips what
  it holds; ``line-height: 0`` with ``overflow: hidden`` gives it no height; ``font-size-adjust:
  0`` draws it at no size; a wide white text stroke is painted over the letters; a form field's box shows the start of its value and scrolls the rest
  (junk) out of view.
* **colour-resolution**: junk in a colour the reader computes otherwise than the page draws it:
  white letters with a white shadow (any shadow counted as drawing the letters); the page's
  colour scheme made dark by a ``<meta name="color-scheme">`` (the canvas is dark,
  the junk is the canvas colour), a system colour (``Canvas``), a colour in ``oklch()``; in a
  PDF, white in a CIE Lab colour space and a spot colour (``/Separation``) at tint 0, which
  puts no ink on the paper.
* **layout**: a table's caption is drawn above its rows, wherever the source puts it (an HTML
  ``<caption>`` after the rows, a CSS ``display: table-caption`` box).
* **off-page**: .docx paragraphs of junk indented far to the left of the page: a word processor
  draws them off the paper.
* **reader-dialect**: the renderer the tool imitates is not the one a reader uses: GitHub's
  Markdown escapes the raw HTML tags its tag filter names (``<noembed>``), so it shows as text
  what a plain CommonMark page hides; docutils' ``rst2html`` (the html4css1 writer) hides the
  class ``hidden`` by its style sheet, which the html5 writer does not.
* **transfer-decoding**: a quoted-printable mail body whose soft line breaks carry transport
  padding (``=`` then spaces at a line's end): RFC 2045 asks a decoder to drop the padding and
  join the lines, as Dovecot, Go's mime/quotedprintable and Perl's MIME::QuotedPrint do; a
  decoder that keeps the line break splits every word in two.

Every disguised case carries a stored contract (``payload``) that a real reader shows:
``benchmarks/redteam.py --oracle --round 7`` renders each view and checks it by OCR (Chromium,
LibreOffice, poppler; GitHub's cmark-gfm for Markdown, docutils' html4css1 writer for rST, and for
the mail body the text an RFC 2045 decoder makes of it).
"""

from __future__ import annotations

import email.policy

from tests.support import redteam_build as b
from tests.support.redteam_build import esc, page
from tests.support.redteam_cases import Case, Texts, View, _lines, decoy
from tests.support.redteam_round3 import _message

ROUND = 7


def _case(principle: str, family: str, name: str, fmt: str, key: str | None, sees: str, files: dict[str, bytes],
          views: list[View] | None = None, note: str = "") -> Case:
    return Case(family, f"r7-{name}", fmt, key, sees, files, views=views or [], note=note, round=ROUND,
                principle=principle)


def _cls(j: str) -> str:
    return f"<span class='j'>{j}</span>"


# -- HTML: paint order, clipping, colours, sizes ---------------------------------------------------------------

#: name: (principle, head, how the junk is hidden)
HTML_HIDE: dict[str, tuple[str, str, str]] = {
    "z-index-under-background": (
        "paint-and-clip", "<style>body{isolation:isolate} p{background:#fff} .j{position:relative;z-index:-1}</style>",
        "a negative z-index, which paints it beneath its own paragraph's white background (body isolated)"),
    "contain-strict": ("paint-and-clip", "<style>.j{display:inline-block;contain:strict}</style>",
                       "contain:strict on an inline block: size containment gives the box no size, paint "
                       "containment clips what it holds"),
    "line-height-zero-clip": ("paint-and-clip",
                              "<style>.j{display:inline-block;line-height:0;overflow:hidden;vertical-align:top}</style>",
                              "an inline block of line-height 0 and overflow hidden: its height is its lines', none"),
    "font-size-adjust-zero": ("paint-and-clip", "<style>.j{font-size-adjust:0}</style>",
                              "font-size-adjust:0, which sets the font's x-height, and so its size, to nothing"),
    "white-text-stroke": ("paint-and-clip", "<style>.j{-webkit-text-stroke:0.35em #fff}</style>",
                          "a white text stroke 0.35 em wide, which is painted over the black letters and covers them"),
    "white-shadow-of-white-text": ("colour-resolution", "<style>.j{color:#fff;text-shadow:0 0 0 #fff}</style>",
                                   "white letters with a white shadow"),
    "meta-color-scheme-dark": ("colour-resolution", "<meta name='color-scheme' content='dark'><style>.j{color:#121212}</style>",
                               "the canvas colour: <meta name=color-scheme content=dark> makes Chromium's page #121212 "
                               "and its default text white, and the junk is #121212"),
    "system-colour-canvas": ("colour-resolution", "<style>.j{color:Canvas}</style>",
                             "the system colour Canvas, the page's own background colour"),
    "oklch-white": ("colour-resolution", "<style>.j{color:oklch(100% 0 0)}</style>", "white written oklch(100% 0 0)"),
}


def html7(t: Texts) -> list[Case]:
    out = []
    keys = ("BSD", "lease", "Artistic", "credit", "BSD", "MPL-2.0", "BSD", "supply", "consulting")
    for (name, (principle, head, how)), key in zip(HTML_HIDE.items(), keys, strict=True):
        out.append(_case(principle, "hidden-junk", f"html-{name}", "html", key,
                         f"the {key} text; a junk word after every word is hidden by {how}",
                         {"exhibit.html": page(b.html_junk(t[key], _cls), head)}))
    out += fields7(t)
    four = _lines(t["BSD"], 4)
    pairs = [(four[i], four[i + 1] if i + 1 < len(four) else "") for i in range(0, len(four), 2)]
    body = "\n".join(f"<table><tr><td>{esc(second)}</td></tr><caption>{esc(first)}</caption></table>" for first, second in pairs)
    out.append(_case("layout", "order", "html-caption-after-rows", "html", "BSD",
                     "the BSD text four words a line; every other line is a table whose <caption> follows its row in "
                     "the source and is drawn above it", {"exhibit.html": page(body, "<style>table{border-spacing:0}"
                                                                                    "td{padding:0}</style>")}))
    body = "\n".join(f"<div class='t'><div class='r'>{esc(second)}</div><div class='c'>{esc(first)}</div></div>"
                     for first, second in pairs)
    out.append(_case("layout", "order", "html-css-table-caption", "html", "BSD",
                     "the BSD text four words a line; every other line is a CSS table whose display:table-caption box "
                     "follows its row in the source and is drawn above it",
                     {"exhibit.html": page(body, "<style>.t{display:table}.r{display:table-row}.c{display:table-caption}"
                                                 "</style>")}))
    acc = "0000950170-24-077701"
    cover = {"type": "8-K", "filename": "form8k.htm", "text": f"<html><body><p>{esc(decoy('r7-edgar-cover', 60))}</p></body></html>"}
    principle, head, how = HTML_HIDE["z-index-under-background"]
    ex10 = page(b.html_junk(t["lease"], _cls), head)
    out.append(_case(principle, "edgar-part", "edgar-html-z-index-under-background", "edgar", "lease",
                     f"exhibit EX-10.1 shows the lease: HTML, a junk word after every word hidden by {how}",
                     {f"{acc}.txt": b.submission([cover, {"type": "EX-10.1", "filename": "ex10.htm", "text": ex10.decode()}],
                                                 {"accession_number": acc})},
                     views=[View("ex10.htm", "html", ex10)]))
    return out


def fields7(t: Texts) -> list[Case]:
    """Each word of the contract in a read-only form field sized to it; the junk after it in the
    field's value, past what the field's box shows (scrolled out of view)."""
    out = []
    field = ("border:0;padding:0;margin:0 .3em 0 0;font:16px monospace;background:none;outline:none")
    for name, key, build, how in (
            ("input-value-clipped", "BSD",
             lambda w, j: f"<input readonly size='{len(w)}' value='{esc(w)}{' ' * 40}{j}'>",
             "an <input> of the word's size whose value is the word, 40 spaces and the junk word"),
            ("textarea-rows-clipped", "credit",
             lambda w, j: f"<textarea readonly rows='1' cols='{len(w)}'>{esc(w)}\n{j}</textarea>",
             "a <textarea> of one row whose second line is the junk word")):
        c = t[key]
        words = [w for p in b.paragraphs(c) for w in p.split(" ")]
        junk = iter(b.junk_after(words))
        body = "\n".join("<p>" + "".join(build(w, next(junk) or "") for w in p.split(" ")) + "</p>" for p in b.paragraphs(c))
        head = f"<style>input,textarea{{{field}}}textarea{{resize:none;overflow:hidden;vertical-align:top;height:1.2em}}</style>"
        out.append(_case("paint-and-clip", "hidden-junk", f"html-{name}", "html", key,
                         f"the {key} text, each word in {how}: the field shows the word and scrolls the junk out of view",
                         {"exhibit.html": page(body, head)}))
    return out


# -- .docx: junk off the page --------------------------------------------------------------------------------

def docx7(t: Texts) -> list[Case]:
    four = _lines(t["BSD"], 4)
    off = '<w:ind w:left="-40000" w:right="40000"/>'
    body = "".join(b.para(b.run(line)) + b.para(b.run(f"{b.JUNK[i % 16]} {b.JUNK[(i + 3) % 16]}"), off)
                   for i, line in enumerate(four))
    return [_case("off-page", "hidden-junk", "docx-negative-indent-junk", "docx", "BSD",
                  "the BSD text four words a paragraph; between them, paragraphs of two junk words indented 40,000 "
                  "twips (28 inches) to the left, which a word processor draws off the paper",
                  {"exhibit.docx": b.docx(body)})]


# -- PDF: colours the reader does not compute ----------------------------------------------------------------

PDF_COLOURS: dict[str, tuple[bytes, bytes, str, str]] = {
    # name: (operators before the junk, resources, the key, how)
    "lab-white-junk": (b"/CS0 cs 100 0 0 sc ",
                       b"/ColorSpace << /CS0 [/Lab << /WhitePoint [0.9505 1 1.089] /Range [-100 100 -100 100] >>] >>",
                       "BSD", "white in a CIE Lab colour space (L* 100, a* 0, b* 0)"),
    "separation-tint-zero-junk": (b"/CS0 cs 0 sc ",
                                  b"/ColorSpace << /CS0 [/Separation /Spot /DeviceCMYK << /FunctionType 2 /Domain [0 1] "
                                  b"/C0 [0 0 0 0] /C1 [0 0 0 1] /N 1 >>] >>",
                                  "BSD", "a spot colour (/Separation) at tint 0: no ink on the paper"),
}


def pdf7(t: Texts) -> list[Case]:
    out = []
    gap = max(len(w) for w in b.JUNK) + 1
    for name, (ops, resources, key, how) in PDF_COLOURS.items():
        pages = b.pdf_junk_ops(t[key], lambda x, y, j, ops=ops: ops + b.at(x, y, j) + b"0 g\n", gap=gap)
        out.append(_case("colour-resolution", "hidden-junk", f"pdf-{name}", "pdf", key,
                         f"the {key} text in Courier, words {gap + 1} spaces apart; a junk word drawn in each gap "
                         f"is painted in {how}", {"exhibit.pdf": b.pdf(pages, resources=resources)}))
    return out


# -- Markdown and reStructuredText as their readers draw them ------------------------------------------------

def _md_escaped(word: str) -> str:
    return "".join("\\" + c if c in "\\`*_[]<>&#|~!" else c for c in word)


def _rst_escaped(word: str) -> str:
    return "".join("\\" + c if c in "\\`*_|:" else c for c in word)


def dialects7(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    words = [w for p in b.paragraphs(c) for w in p.split(" ")]
    junk = b.junk_after(words)
    inner = " ".join(f"{_md_escaped(w)} <!-- {j} -->" if j else _md_escaped(w) for w, j in zip(words, junk, strict=True))
    md = f"# Exhibit 10.1\n\n{decoy('r7-md-gfm-tagfilter', 40)}\n\n<noembed>{inner}</noembed>\n"
    out.append(_case("reader-dialect", "visible-not-read", "md-gfm-tagfilter-noembed", "md", "BSD",
                     "a Markdown file on GitHub: a 40-word note, then the BSD licence inside <noembed>, a junk word in an "
                     "HTML comment after every word; GitHub's tag filter escapes <noembed>, so the licence shows as text "
                     "(the comments show nothing), where a CommonMark page hides the whole element",
                     {"exhibit.md": md.encode()}, views=[View("exhibit.md", "github", md.encode())]))
    c = t["lease"]
    words = [w for p in b.paragraphs(c) for w in p.split(" ")]
    it = iter(b.junk_after(words))
    paras = []
    for p in b.paragraphs(c):
        pieces = []
        for w in p.split(" "):
            j = next(it)
            pieces.append(f"{_rst_escaped(w)} :hidden:`{j}`" if j else _rst_escaped(w))
        paras.append(" ".join(pieces))
    rst = ".. role:: hidden\n\nExhibit 10.1\n============\n\n" + "\n\n".join(paras) + "\n"
    out.append(_case("reader-dialect", "hidden-junk", "rst-html4-hidden-role", "rst", "lease",
                     "a reStructuredText file shown by docutils' rst2html (the html4css1 writer): the lease, a junk word "
                     "after every word marked by a custom role 'hidden', whose class the writer's style sheet hides",
                     {"exhibit.rst": rst.encode()}, views=[View("exhibit.rst", "rst-html4", rst.encode())]))
    return out


# -- mail: quoted-printable transport padding ----------------------------------------------------------------

def _qp(text: str) -> str:
    """Quoted-printable of ``text`` (UTF-8), safe characters as they are."""
    return "".join(ch if (" " <= ch <= "~" and ch != "=") else "".join(f"={x:02X}" for x in ch.encode()) for ch in text)


def padded_body(text: str) -> str:
    """The text quoted-printable, every word cut in two by a soft line break whose ``=`` is
    followed by a space (transport padding, RFC 2045 6.7 rule 3)."""
    lines = []
    for p in b.paragraphs(text):
        cut = []
        for w in p.split(" "):
            k = max(1, len(w) // 2)
            cut.append(_qp(w[:k]) + "= \n" + _qp(w[k:]))
        lines.append(" ".join(cut))
    return "\n\n".join(lines) + "\n"


def mail7(t: Texts) -> list[Case]:
    c = t["credit"]
    raw = ("From: Counsel <counsel@example.com>\nTo: Registry <registry@example.org>\nSubject: Exhibit 10.1\n"
           "Date: Fri, 15 Mar 2024 16:05:41 +0000\nMessage-ID: <Exhibit.10.1.r7@example.com>\nMIME-Version: 1.0\n"
           "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n" + padded_body(c))
    shown = "\n\n".join(b.paragraphs(c)) + "\n"
    return [_case("transfer-decoding", "look-alike", "eml-qp-transport-padding", "eml", "credit",
                  "a plain-text email of the credit agreement, quoted-printable, every word cut by a soft line break "
                  "followed by transport padding ('= ' at the line's end); an RFC 2045 decoder drops the padding and "
                  "joins the word", {"exhibit.eml": raw.replace("\n", "\r\n").encode()},
                  views=[View("body.txt", "text", shown.encode())])]


# -- clean documents of these kinds ----------------------------------------------------------------------------

def clean7(t: Texts) -> list[Case]:
    from tests.support import synth

    out = []

    def add(name: str, fmt: str, sees: str, files: dict[str, bytes]) -> None:
        out.append(_case("clean", "clean", name, fmt, None, sees, files))

    head = ("<meta name='color-scheme' content='light dark'><style>:root{color-scheme:light dark}"
            ".bg{position:absolute;inset:0;z-index:-1;background:#f6f6f0}header{position:sticky;top:0;z-index:10;"
            "background:#fff}main{contain:layout style}.logo{line-height:0}h1{font-size-adjust:0.5}"
            "a{color:LinkText}</style>")
    body = ("<div class='bg'></div><header><span class='logo'><svg width='40' height='12'><rect width='40' height='12' "
            "fill='#335'/></svg></span> <a href='#terms'>Terms</a></header><main><h1>Agreement</h1>"
            + b.html_paras(synth.contract(8981, 4_000, kind="employment")) + "</main>")
    add("html-styled-page", "html", "an unrelated agreement on a styled page: light and dark colour schemes offered, a "
        "decoration painted beneath the page at z-index -1, a sticky header, layout containment, a logo in a box of "
        "line-height 0, font-size-adjust 0.5 on the heading, a link in the system colour LinkText",
        {"agreement.html": page(body, head)})
    rows = "".join(f"<tr><td>{i}</td><td>{esc(s[:60])}</td></tr>"
                   for i, s in enumerate(b.paragraphs(synth.contract(8982, 2_000, kind="services"))[:6], 1))
    add("html-table-caption-first", "html", "an unrelated services agreement and a schedule table whose caption "
        "comes first, as HTML writes it",
        {"schedule.html": page(b.html_paras(synth.contract(8983, 3_000, kind="services"))
                               + f"<table><caption>Schedule A</caption>{rows}</table>")})
    md = ("# Consulting agreement\n\n<details><summary>Revision history</summary>\n\nFirst draft.\n\n</details>\n\n"
          "<!-- reviewed by counsel -->\n\n" + "\n\n".join(b.paragraphs(synth.contract(8984, 3_000, kind="consulting")))
          + "\n\nPress <kbd>Ctrl</kbd>+<kbd>P</kbd> to print.<br>\n")
    add("md-readme-html", "md", "an unrelated consulting agreement in Markdown with a closed <details>, an HTML "
        "comment, <kbd> and <br>", {"agreement.md": md.encode()})
    m = _message("Notice", "x")
    m.set_content("\n\n".join(b.paragraphs(synth.contract(8985, 4_000, kind="distribution"))), cte="quoted-printable")
    add("eml-quoted-printable", "eml", "an unrelated distribution agreement in a quoted-printable mail body (soft line "
        "breaks without padding)", {"notice.eml": m.as_bytes(policy=email.policy.SMTP)})
    spot = (b"/ColorSpace << /CS0 [/Separation /PANTONE#20286#20C /DeviceCMYK << /FunctionType 2 /Domain [0 1] "
            b"/C0 [0 0 0 0] /C1 [1 0.66 0 0.02] /N 1 >>] >>")
    pages = b.pdf_text_ops(synth.contract(8986, 4_000, kind="security"))
    pages[0] = b"/CS0 cs 1 sc " + b.at(50, 760, "ACME HOLDINGS", 14) + b"0 g\n" + pages[0]
    add("pdf-spot-colour-letterhead", "pdf", "an unrelated security agreement in a PDF whose letterhead is printed in a "
        "spot colour (PANTONE 286 C at full tint)", {"security.pdf": b.pdf(pages, resources=spot)})
    body = "".join(b.para(b.run(p), '<w:ind w:left="360" w:hanging="360"/>')
                   for p in b.paragraphs(synth.contract(8987, 3_000, kind="purchase")))
    body += b.para(b.run("Signature block"), '<w:ind w:left="-360"/>')
    add("docx-hanging-indents", "docx", "an unrelated purchase agreement with hanging indents and a signature block "
        "indented a quarter inch into the margin", {"purchase.docx": b.docx(body)})
    return out


BUILDERS7 = (html7, docx7, pdf7, dialects7, mail7, clean7)
