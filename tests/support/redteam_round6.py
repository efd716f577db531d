"""The red team's sixth round (issue #40): plain text, Markdown, reStructuredText, notebooks,
email and MHTML, archives and EDGAR text submissions. Disguises by principle that no earlier
round tried, and clean documents of the same kinds. Built as the earlier rounds are
(tests/support/redteam_round5_web.py), each case named ``r6-<format>-<construct>``.

Principles (``Case.principle``):

* **margins**: line numbers a reader skips, written as listings and transcripts write them
  (``[12]``, ``12:``), in a text file and in an EDGAR text part; and a pleading margin in a
  plain-text email body, and inside a Markdown or reST code block.
* **layout**: the order a reader sees is not the order stored: lines stored backwards after
  U+202E in a plain-text email, Markdown footnotes (GitHub draws them at the end, in the order
  they are referred to) defined shuffled.
* **junk-hidden**: junk a reader does not see, read by the tool: junk words spelled in
  variation selectors or Unicode tag characters (default-ignorable: drawn as nothing), junk
  printed in white by a 24-bit terminal colour in a notebook's output, junk overwritten by a
  carriage return that opens the next output of the same stream, junk hidden by a style sheet
  an MHTML page imports (``@import "..."``).
* **shown-not-read**: a notebook's error output, coloured by terminal escapes as IPython
  colours every traceback; a picture an MHTML page draws by an SVG ``<image href>``.
* **container**: a gzipped tar, a zip attached to an email whose page takes its style sheet from
  the next member.

Every disguised case carries a stored contract (``payload``) that a real reader shows:
``benchmarks/redteam.py --oracle --round 6`` renders each view and checks it by OCR (Chromium for
text and HTML, markdown-it with the footnote plugin for GitHub's Markdown, docutils for reST,
nbconvert for notebooks).
"""

from __future__ import annotations

import random

from tests.support import redteam_build as b
from tests.support.redteam_build import esc, page
from tests.support.redteam_cases import Case, Texts, View, _lines, decoy
from tests.support.redteam_round3 import _message, tar_bytes
from tests.support.redteam_round5_web import _BASE, _mhtml_parts, _nb, _scan

ROUND = 6


def _case(principle: str, family: str, name: str, fmt: str, key: str | None, sees: str, files: dict[str, bytes],
          views: list[View] | None = None, note: str = "") -> Case:
    return Case(family, f"r6-{name}", fmt, key, sees, files, views=views or [], note=note, round=ROUND,
                principle=principle)


def _margin(text: str, number: str, per_page: int = 28, width: int = 56) -> str:
    """The text wrapped to ``width`` characters, each line after its number in the margin
    (``number`` formats ``{n}``), counted 1 to ``per_page`` on each page, blank lines numbered too."""
    lines = b.lines_of(text, width)
    out = []
    for k in range(0, len(lines), per_page):
        chunk = lines[k : k + per_page]
        chunk += [""] * (per_page - len(chunk))
        out += [f"{number.format(n=i + 1)}  {line}".rstrip() for i, line in enumerate(chunk)]
        out.append("\f")
    return "\n".join(out).replace("\n\f\n", "\n\f") + "\n"


# -- line-number margins -------------------------------------------------------------------------------------

def margins6(t: Texts) -> list[Case]:
    out = []
    c = t["lease"]
    for name, number, how in (("bracketed", "[{n:>2}]", "'[ 1]' to '[28]'"),
                              ("colon", "{n:>4}:", "'1:' to '28:' (as grep -n and editors' listings print them)")):
        data = _margin(c, number)
        out.append(_case("margins", "order", f"txt-margin-{name}", "txt", "lease",
                         f"the lease on numbered paper, its lines numbered {how} in the left margin on every page; "
                         "a reader skips the margin", {"exhibit.txt": data.encode()}))
    acc = "0000950170-24-066601"
    cover = {"type": "8-K", "filename": "form8k.htm", "text": f"<html><body><p>{esc(decoy('r6-edgar-cover', 60))}</p></body></html>"}
    data = _margin(c, "{n:>4}:")
    out.append(_case("margins", "edgar-part", "edgar-txt-margin-colon", "edgar", "lease",
                     "exhibit EX-10.1, a .txt part, shows the lease with its lines numbered '1:' to '28:' in the left "
                     "margin (EDGAR shows the submission file as text)",
                     {f"{acc}.txt": b.submission([cover, {"type": "EX-10.1", "filename": "ex10.txt", "text": data}],
                                                 {"accession_number": acc})},
                     views=[View("ex10.txt", "text", data.encode())]))
    pleading = _margin(c, "{n:>2}").replace("\f", "")
    m = _message("Exhibit 10.1", pleading)
    out.append(_case("margins", "order", "eml-plain-pleading", "eml", "lease",
                     "a plain-text email whose body is the lease on pleading paper (lines numbered 1 to 28 in the left "
                     "margin); a mail reader shows the body as it is", {"exhibit.eml": m.as_bytes()},
                     views=[View("body.txt", "text", pleading.encode())]))
    md = f"# Exhibit 10.1\n\n```\n{pleading}```\n"
    out.append(_case("margins", "order", "md-fenced-pleading", "md", "lease",
                     "a Markdown file whose fenced code block is the lease on pleading paper (lines numbered 1 to 28)",
                     {"exhibit.md": md.encode()}, views=[View("exhibit.md", "markdown", md.encode())]))
    rst = "Exhibit 10.1\n============\n\n::\n\n" + "".join(f"   {line}\n" if line else "\n" for line in pleading.split("\n"))
    out.append(_case("margins", "order", "rst-literal-pleading", "rst", "lease",
                     "a reStructuredText file whose literal block (::) is the lease on pleading paper (lines numbered "
                     "1 to 28)", {"exhibit.rst": rst.encode()}, views=[View("exhibit.rst", "rst-docutils", rst.encode())]))
    return out


# -- order ----------------------------------------------------------------------------------------------------

def order6(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    lines = b.lines_of(c, 64)
    body = "\n".join("\u202e" + line[::-1] if line else "" for line in lines) + "\n"
    m = _message("Exhibit 10.1", body)
    out.append(_case("layout", "order", "eml-plain-rlo-lines", "eml", "BSD",
                     "a plain-text email showing the BSD licence: each line stored backwards after U+202E (right-to-left "
                     "override), which a mail reader applies", {"exhibit.eml": m.as_bytes()},
                     views=[View("body.txt", "text", body.encode())]))
    chunks = _lines(c, 4)
    perm = list(range(len(chunks)))
    random.Random(61).shuffle(perm)
    md = ("# Exhibit 10.1\n\n" + " ".join(f"[^{i + 1}]" for i in range(len(chunks))) + "\n\n"
          + "".join(f"[^{i + 1}]: {chunks[i]}\n" for i in perm))
    out.append(_case("layout", "order", "md-footnotes-shuffled", "md", "BSD",
                     "a Markdown file whose body is a row of footnote references; each footnote is four words of the BSD "
                     "licence, defined in shuffled order (GitHub draws the footnotes at the end, in the order they are "
                     "referred to)", {"exhibit.md": md.encode()}, views=[View("exhibit.md", "gfm", md.encode())]))
    return out


# -- junk a reader does not see -------------------------------------------------------------------------------

def _invisible(word: str, base: int) -> str:
    """``word`` spelled in default-ignorable characters: tag letters (U+E0061...) or variation
    selectors (U+E0100...), one a letter."""
    return "".join(chr(base + (ord(ch) - 97 if base == 0xE0100 else ord(ch))) for ch in word)


def junk6(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    words = [w for p in b.paragraphs(c) for w in p.split(" ")]
    junk = b.junk_after(words)
    for name, base, how in (("variation-selector", 0xE0100, "variation selectors (U+E0100 to U+E0119, one a letter)"),
                            ("tag-characters", 0xE0000, "Unicode tag characters (U+E0061 to U+E007A)")):
        text = " ".join(f"{w} {_invisible(j, base)}" if j else w for w, j in zip(words, junk, strict=True)) + "\n"
        out.append(_case("junk-hidden", "hidden-junk", f"txt-{name}-junk", "txt", "BSD",
                         f"the BSD licence; a junk word after every word is spelled in {how}, which draw nothing",
                         {"exhibit.txt": text.encode()}))
    four = _lines(c, 4)
    js = iter(junk)
    white = "".join(" ".join(f"{w} \x1b[38;2;255;255;255m{j}\x1b[0m" if (j := next(js)) else w
                             for w in line.split(" ")) + "\n" for line in _lines(c, 8))
    data = _nb([{"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": "print_exhibit()",
                 "outputs": [{"output_type": "stream", "name": "stdout", "text": white}]}])
    out.append(_case("junk-hidden", "hidden-junk", "ipynb-ansi-white-junk", "ipynb", "BSD",
                     "a notebook whose code cell prints the BSD licence; a junk word after every word is printed in white "
                     "by a 24-bit terminal colour (ESC[38;2;255;255;255m), on Jupyter's white page",
                     {"exhibit.ipynb": data}, views=[View("exhibit.ipynb", "nbconvert", data)]))
    outputs = []
    for i, line in enumerate(four):
        outputs.append({"output_type": "stream", "name": "stdout", "text": f"{b.JUNK[i % 16]} {b.JUNK[(i + 5) % 16]} "})
        outputs.append({"output_type": "stream", "name": "stdout", "text": f"\r{line}\n"})
    data = _nb([{"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": "print_exhibit()",
                 "outputs": outputs}])
    out.append(_case("junk-hidden", "hidden-junk", "ipynb-split-stream-carriage-return", "ipynb", "BSD",
                     "a notebook whose code cell prints the BSD licence four words a line; before each line an output "
                     "of its own prints two junk words, which the carriage return opening the next output overwrites "
                     "(Jupyter joins a stream's outputs first)", {"exhibit.ipynb": data},
                     views=[View("exhibit.ipynb", "jupyter-streams", data)]))
    body = b.html_junk(c, lambda j: f"<span class='j'>{j}</span>")
    root = page(body, f"<style>@import \"{_BASE}print.css\";</style>")
    data = _mhtml_parts([(f"{_BASE}ex10.html", "text/html", root, "8bit"),
                         (f"{_BASE}print.css", "text/css", b".j { display: none }\n", "8bit")])
    out.append(_case("junk-hidden", "hidden-junk", "mhtml-import-string", "mhtml", "BSD",
                     "an MHTML archive whose page shows the BSD licence; a junk word after every word is hidden by a style "
                     "sheet the page imports by a string (@import \"...\"), a part of the archive",
                     {"exhibit.mhtml": data}, views=[View("exhibit.mhtml", "html", data)]))
    return out


# -- text a reader sees that no reading holds -------------------------------------------------------------------

def shown6(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    tb = [" ".join(f"\x1b[0;3{k % 6 + 1}m{w}\x1b[0m" for k, w in enumerate(line.split(" "))) for line in _lines(c, 8)]
    data = _nb([{"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": "load_exhibit()",
                 "outputs": [{"output_type": "error", "ename": "ExhibitError", "evalue": "see below", "traceback": tb}]}])
    out.append(_case("shown-not-read", "visible-not-read", "ipynb-error-ansi-traceback", "ipynb", "BSD",
                     "a notebook whose code cell's error output (a traceback) shows the BSD licence, every word coloured "
                     "by a terminal escape as IPython colours tracebacks", {"exhibit.ipynb": data},
                     views=[View("exhibit.ipynb", "nbconvert", data)]))
    note = esc(decoy("r6-mhtml-svg-image"))
    root = page(f"<p>{note}</p><svg width='850' height='1100'><image href='{_BASE}scan.png' width='850' "
                "height='1100'/></svg>")
    data = _mhtml_parts([(f"{_BASE}ex10.html", "text/html", root, "8bit"),
                         (f"{_BASE}scan.png", "image/png", _scan(c), "base64")])
    out.append(_case("shown-not-read", "visible-not-read", "mhtml-svg-image-href", "mhtml", "BSD",
                     "an MHTML archive whose page draws a scanned page of the BSD licence by an inline SVG <image href>, "
                     "a picture part named by its Content-Location; the page's text is a 72-word note",
                     {"exhibit.mhtml": data}, views=[View("exhibit.mhtml", "html", data)]))
    return out


# -- containers -------------------------------------------------------------------------------------------------

def containers6(t: Texts) -> list[Case]:
    out = []
    c = t["BSD"]
    md = b"# Exhibit 10.1\n\n" + c.encode()
    out.append(_case("container", "container", "tar-gz-markdown", "tar", "BSD",
                     "a gzipped tar holding the BSD licence as exhibit.md", {"exhibits.tar.gz": tar_bytes([("exhibit.md", md)], gz=True)},
                     views=[View("exhibit.md", "markdown", md)]))
    body = b.html_junk(c, lambda j: f"<span class='j'>{j}</span>")
    html = page(body, "<link rel='stylesheet' href='style.css'>")
    z = b.zip_bytes([("exhibit/index.html", html), ("exhibit/style.css", b".j { display: none }\n")])
    m = _message("Exhibit 10.1", "The exhibit is attached.")
    m.add_attachment(z, maintype="application", subtype="zip", filename="exhibit.zip")
    out.append(_case("container", "container", "eml-zip-html-linked-css", "eml", "BSD",
                     "an email with a zip attached: an HTML page showing the BSD licence, a junk word after every word "
                     "hidden by the style sheet beside it in the zip (a reader unpacks both and opens the page)",
                     {"exhibit.eml": m.as_bytes()},
                     views=[View("index.html", "html", page(body, "<style>.j { display: none }</style>"))]))
    return out


# -- clean documents of these kinds -----------------------------------------------------------------------------

def clean6(t: Texts) -> list[Case]:
    from tests.support import synth

    out = []

    def add(name: str, fmt: str, sees: str, files: dict[str, bytes]) -> None:
        out.append(_case("clean", "clean", name, fmt, None, sees, files))

    sections = "\n".join(f"({i}) {s}" for i, s in enumerate(b.paragraphs(synth.contract(8971, 3_000, kind="lease")), 1))
    add("txt-numbered-subsections", "txt", "an unrelated lease whose paragraphs are numbered (1), (2)...", {"lease.txt": sections.encode()})
    listing = "\n".join(f"{i}:{line}" for i, line in enumerate(b.lines_of(synth.contract(8972, 2_000, kind="services"), 70), 1))
    add("txt-grep-listing", "txt", "grep -n output of an unrelated services agreement (every line '12:' and its text)",
        {"grep.txt": listing.encode()})
    text = synth.contract(8973, 3_000, kind="employment")
    md = f"# Offer\n\n{b.paragraphs(text)[0]}[^1]\n\n" + "\n\n".join(b.paragraphs(text)[1:]) + "\n\n[^1]: Subject to board approval.\n"
    add("md-footnote", "md", "an unrelated offer letter in Markdown with a footnote", {"offer.md": md.encode()})
    tb = ["\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
          "\x1b[0;31mZeroDivisionError\x1b[0m                         Traceback (most recent call last)",
          "Cell \x1b[0;32mIn[3], line 1\x1b[0m\n\x1b[0;32m----> 1\x1b[0m \x1b[38;5;241m1\x1b[39m\x1b[38;5;241m/\x1b[39m\x1b[38;5;241m0\x1b[39m",
          "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"]
    add("ipynb-coloured-traceback", "ipynb", "a notebook with an unrelated agreement in Markdown and a code cell whose "
        "output is an IPython traceback coloured by terminal escapes",
        {"work.ipynb": _nb([{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": synth.contract(8974, 3_000, kind="supply")},
                            {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 3, "source": "1/0",
                             "outputs": [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
                                          "traceback": tb}]}])})
    m = _message("Notice", "\n".join(f"{i:>2}. {p}" for i, p in enumerate(b.paragraphs(synth.contract(8975, 3_000, kind="consulting")), 1)))
    add("eml-plain-numbered", "eml", "a plain-text email of an unrelated consulting agreement, its paragraphs numbered",
        {"notice.eml": m.as_bytes()})
    root = page(b.html_paras(synth.contract(8976, 4_000, kind="distribution")) + "<nav class='menu'>Home Filings</nav>",
                f"<style>@import \"{_BASE}site.css\";</style>")
    add("mhtml-imported-style", "mhtml", "an unrelated agreement saved as MHTML, its site style sheet imported and a menu "
        "it hides", {"saved.mhtml": _mhtml_parts([(f"{_BASE}page.html", "text/html", root, "8bit"),
                                                   (f"{_BASE}site.css", "text/css", b".menu { display: none } p { margin: 1em }\n", "8bit")],
                                                  "Distribution agreement")})
    return out


BUILDERS6 = (margins6, order6, junk6, shown6, containers6, clean6)
