"""HTML and plain text read as a browser or a reader reads them (#25): each disguise of a
contract is caught by the visible reading, by another reading, or fails closed with its code;
the same disguise of an unrelated agreement is not taken for the contract, and ordinary pages
are read as before. The cases are checked against headless Chromium in test_chromium_agrees."""

from __future__ import annotations

import base64
import html
import shutil
import subprocess
import urllib.parse

import pytest

from auditor.extract import extract_bytes
from auditor.text.normalize import normalize, words
from tests.support import synth

CONTRACT = ("The Lessee shall keep the Premises in good repair and shall pay the rent on the first "
            "day of each month without demand, deduction or set-off of any kind whatsoever. The "
            "Lessor may enter the Premises at reasonable times to inspect them and to make repairs.")
OTHER = ("The Borrower shall repay each advance with interest at the agreed rate on the maturity "
         "date, and the Lender may accelerate the loan upon any event of default under this "
         "agreement without further notice to any party.")
JUNK = ["quartz", "lumen", "vortex", "saffron", "ember", "tundra", "cobalt", "zephyr"]


def found(contract: str, text: str) -> bool:
    return normalize(contract) in normalize(text)


def reading(ex, name: str) -> str:
    return ex.text if name == "text" else next((r.text for r in ex.readings if r.name == name), "")


def interleave(text: str, hide) -> str:
    """Junk words hidden by ``hide`` (a format string with one slot) between all words."""
    out = []
    for i, w in enumerate(html.escape(text).split(" ")):
        out.append(w)
        out.append(hide.format(JUNK[i % len(JUNK)]))
    return " ".join(out)


def page(body: str, head: str = "") -> bytes:
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'>{head}</head><body><p>Cover page.</p>{body}</body></html>".encode()


def reversed_chars(text: str) -> str:
    return text[::-1]


def data_url(mime: str, text: str, b64: bool = False) -> str:
    if b64:
        return f"data:{mime};base64," + base64.b64encode(text.encode()).decode()
    return f"data:{mime}," + urllib.parse.quote(text)


# -- hidden junk between the words: the visible reading leaves it out ------------------------------

HIDDEN_JUNK = {
    "class display:none": ("<style>.j{display:none}</style>", "<span class='j'>{}</span>"),
    "hidden attribute": ("", "<span hidden>{}</span>"),
    "font-size:0": ("", "<span style='font-size:0'>{}</span>"),
    "font shorthand 0/0": ("<style>.j{font:0/0 a}</style>", "<span class='j'>{}</span>"),
    "tiny font 1px": ("", "<span style='font-size:1px'>{}</span>"),
    "font-size 0 by em": ("<style>.z{font-size:0.01em}</style>", "<span class=z>{}</span>"),
    "visibility:hidden": ("", "<span style='visibility:hidden'>{}</span>"),
    "visibility:collapse by class": ("<style>.j{visibility:collapse}</style>", "<span class='j'>{}</span>"),
    "off-screen absolute": ("", "<span style='position:absolute;left:-9999px'>{}</span>"),
    "off-screen by text-indent": ("", "<span style='display:inline-block;text-indent:-500px;overflow:hidden'>{}</span>"),
    "off-screen fixed below": ("", "<span style='position:fixed;top:5000px'>{}</span>"),
    "transparent colour": ("", "<span style='color:transparent'>{}</span>"),
    "rgba alpha 0": ("", "<span style='color:rgba(0,0,0,0)'>{}</span>"),
    "white on white": ("", "<span style='color:#fff'>{}</span>"),
    "colour of a coloured background": ("<style>body{background:#123456}.j{color:#123456}</style>", "<span class=j>{}</span>"),
    "font colour attribute": ("", "<font color='white'>{}</font>"),
    "text-fill transparent": ("", "<span style='-webkit-text-fill-color:transparent'>{}</span>"),
    "opacity 0": ("", "<span style='opacity:0'>{}</span>"),
    "filter opacity": ("", "<span style='filter:opacity(0)'>{}</span>"),
    "display:/**/none": ("", "<span style='display:/**/none'>{}</span>"),
    "css escape in value": ("<style>.j{display:n\\6f ne}</style>", "<span class='j'>{}</span>"),
    "css escape in class": ("<style>.\\6a{display:none}</style>", "<span class='j'>{}</span>"),
    "important beats inline": ("<style>.j{display:none !important}</style>", "<span class='j' style='display:inline'>{}</span>"),
    "custom property": ("<style>:root{--h:none}.j{display:var(--h)}</style>", "<span class='j'>{}</span>"),
    "custom property fallback": ("<style>.j{display:var(--undefined, none)}</style>", "<span class='j'>{}</span>"),
    "media screen": ("<style>@media screen and (min-width: 100px){.j{display:none}}</style>", "<span class='j'>{}</span>"),
    "cascade layer": ("<style>@layer base{.j{display:none}}</style>", "<span class='j'>{}</span>"),
    "data: stylesheet": ("<link rel=stylesheet href='data:text/css,.j%7Bdisplay:none%7D'>", "<span class='j'>{}</span>"),
    "clip rect": ("", "<span style='position:absolute;clip:rect(0 0 0 0)'>{}</span>"),
    "clip-path inset": ("", "<span style='clip-path:inset(50%)'>{}</span>"),
    "zero box": ("", "<span style='display:inline-block;width:0;height:0;overflow:hidden'>{}</span>"),
    "scale 0": ("", "<span style='display:inline-block;transform:scale(0)'>{}</span>"),
    "content-visibility": ("", "<span style='display:inline-block;content-visibility:hidden'>{}</span>"),
    "rp": ("", "<ruby><rp>{}</rp></ruby>"),
    "noembed": ("", "<noembed>{}</noembed>"),
    "noframes": ("", "<noframes>{}</noframes>"),
    "datalist": ("", "<datalist><option>{}</option></datalist>"),
    "template": ("", "<template>{}</template>"),
    "noscript": ("", "<noscript>{}</noscript>"),
    "closed details": ("", "<details><summary></summary>{}</details>"),
    "hidden:until-found": ("", "<span hidden='until-found'>{}</span>"),
    "attribute selector": ("<style>[data-x='1']{display:none}</style>", "<span data-x='1'>{}</span>"),
    "sibling selector": ("<style>b + i{display:none}</style>", "<b></b><i>{}</i>"),
    "not at rest": ("<style>.j:not(:hover){display:none}</style>", "<span class='j'>{}</span>"),
    "svg fill none": ("", "<svg width='80' height='20'><text y='15' fill='none'>{}</text></svg>"),
}


@pytest.mark.parametrize("how", sorted(HIDDEN_JUNK))
def test_hidden_junk_between_the_words_is_left_out(how):
    head, hide = HIDDEN_JUNK[how]
    ex = extract_bytes(page(f"<p>{interleave(CONTRACT, hide)}</p>", head), "x.html")
    assert found(CONTRACT, ex.text), ex.text[:300]
    assert not any(j in ex.text for j in JUNK) and ex.unreadable is None
    all_text = reading(ex, "html:all-text")  # what a naive extractor reads
    assert all_text and not found(CONTRACT, all_text) and "quartz" in all_text
    other = extract_bytes(page(f"<p>{interleave(OTHER, hide)}</p>", head), "y.html")
    assert not any(found(CONTRACT, t) for t in [other.text] + [r.text for r in other.readings])


# -- what does not hide: a rule that does not apply must not hide the text -------------------------

NOT_HIDDEN = {
    "invalid display value": "<style>.j{display:nonee}</style>",
    "overridden later": "<style>.j{display:none}.j{display:inline}</style>",
    "more specific wins": "<style>p .j{display:inline}.j{display:none}</style>",
    "inline style wins": "<style>.j{display:none}</style>",  # with style='display:inline' below
    "undefined custom property": "<style>.j{display:var(--nothing)}</style>",
    "print only": "<style>@media print{.j{display:none}}</style>",
    "narrow screens only": "<style>@media (max-width: 600px){.j{display:none}}</style>",
    "hover only": "<style>.j:hover{display:none}</style>",
    "visible child of hidden parent": "<style>p{visibility:hidden}.j{visibility:visible}</style>",
    "font reset in child": "<style>p{font-size:0}.j{font-size:12px}</style>",
    "inline box has no size": "<style>.j{width:0;height:0;overflow:hidden}</style>",
    "unlayered beats layer": "<style>@layer a{.j{display:none}}.j{display:inline}</style>",
    "style type not css": "<style type='text/plain'>.j{display:none}</style>",
    "script made visible": "<style>script{display:none}</style>",
}


@pytest.mark.parametrize("how", sorted(NOT_HIDDEN))
def test_a_rule_that_does_not_apply_hides_nothing(how):
    style = " style='display:inline'" if how == "inline style wins" else ""
    body = " ".join(f"<span class='j'{style}>{html.escape(w)}</span>" for w in CONTRACT.split(" "))
    ex = extract_bytes(page(f"<p>{body}</p>", NOT_HIDDEN[how]), "x.html")
    assert found(CONTRACT, ex.text), ex.text[:200]
    assert ex.unreadable is None


# -- text a reader sees that is no text node ----------------------------------------------------------

def _lines(text: str, n: int = 8) -> list[str]:
    ws = text.split(" ")
    return [" ".join(ws[i : i + n]) for i in range(0, len(ws), n)]


def _paras(text: str, wrap) -> str:
    return "".join(wrap(s) for s in text.split(". "))


SHOWN = {
    "::before content": ("<style>p.g::before{content:attr(data-t)}</style>",
                         lambda c: _paras(c, lambda s: f"<p class='g' data-t='{html.escape(s)}.'></p>")),
    "::after string": ("", lambda c: f"<style>.a::after{{content:\"{c}\"}}</style><p class='a'></p>"),
    "alt of a broken image": ("", lambda c: f"<img src='missing.png' alt='{html.escape(c)}'>"),
    "input value": ("", lambda c: f"<input type='text' size='200' value='{html.escape(c)}'>"),
    "input placeholder": ("", lambda c: f"<input placeholder='{html.escape(c)}'>"),
    "textarea placeholder": ("", lambda c: f"<textarea placeholder='{html.escape(c)}'></textarea>"),
    "mathml mtext": ("", lambda c: "".join(f"<p><math><mtext>{html.escape(line)}</mtext></math></p>" for line in _lines(c))),
    "svg text": ("", lambda c: f"<svg width='900'><text y='20'>{html.escape(c)}</text></svg>"),
    "iframe data: html": ("", lambda c: f"<iframe src='{data_url('text/html', '<p>' + html.escape(c) + '</p>', True)}'></iframe>"),
    "iframe data: text": ("", lambda c: f"<iframe src='{data_url('text/plain', c)}'></iframe>"),
    "object data: html": ("", lambda c: f"<object data='{data_url('text/html', '<p>' + html.escape(c) + '</p>')}'>decoy fallback</object>"),
    "embed data: html": ("", lambda c: f"<embed src='{data_url('text/html', '<p>' + html.escape(c) + '</p>', True)}'>"),
    "svg image data:": ("", lambda c: "<svg width='900' height='40'><image width='900' height='40' href='"
                        + data_url("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg'><text y='20'>" + html.escape(c) + "</text></svg>", True) + "'/></svg>"),
    "img data: svg": ("", lambda c: "<img src='" + data_url("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg'><text y='20'>" + html.escape(c) + "</text></svg>", True) + "'>"),
    "script made block": ("<style>script.v{display:block}</style>", lambda c: f"<script class='v' type='text/plain'>{c}</script>"),
    "style made block": ("<style>style{display:block}</style>", lambda c: f"<style>{c}</style>"),
    "title made block": ("<style>head,title{display:block}</style>", lambda c: ""),
    "ix:header outside inline XBRL": ("", lambda c: f"<ix:header>{html.escape(c)}</ix:header>"),
    "xml element": ("", lambda c: f"<xml>{html.escape(c)}</xml>"),
    "stray head after deep nesting": ("", lambda c: "<div>" * 300 + f"<head><p>{html.escape(c)}</p>" + "</div>" * 300),
    "content after </html>": ("", lambda c: f"</body></html><p>{html.escape(c)}</p>"),
    "selected option": ("", lambda c: f"<select><option>Choose</option><option selected>{html.escape(c)}</option></select>"),
}


@pytest.mark.parametrize("how", sorted(SHOWN))
def test_text_a_reader_sees_that_is_no_text_node_is_read(how):
    head, make = SHOWN[how]
    head_c = head + (f"<title>{html.escape(CONTRACT)}</title>" if how == "title made block" else "")
    ex = extract_bytes(page(make(CONTRACT), head_c), "x.html")
    assert found(CONTRACT, ex.text), ex.text[:300]
    assert ex.unreadable is None
    head_o = head + (f"<title>{html.escape(OTHER)}</title>" if how == "title made block" else "")
    other = extract_bytes(page(make(OTHER), head_o), "y.html")
    assert found(OTHER, other.text) and not found(CONTRACT, other.text)


def test_decoys_that_a_browser_does_not_show_are_not_the_visible_reading():
    decoy = "Nothing to see here, a short cover note only."
    body = (f"<img src='data:image/png;base64,iVBORw0KGgo=' alt='{CONTRACT}'>"  # the image is shown
            f"<select><option>{decoy}</option><option>{CONTRACT}</option></select>"
            f"<object data='{data_url('text/html', '<p>' + decoy + '</p>')}'><p>{CONTRACT}</p></object>")
    ex = extract_bytes(page(body), "x.html")
    assert decoy in ex.text and not found(CONTRACT, ex.text)
    all_text = reading(ex, "html:all-text")
    assert CONTRACT in all_text  # a naive extractor carries the contract: the gate audits it


# -- order: bidi resolved to what the screen shows -------------------------------------------------


ORDER = {
    "bdo dir=rtl": lambda c: "".join(f"<div><bdo dir='rtl'>{html.escape(reversed_chars(line))}</bdo></div>" for line in _lines(c)),
    "U+202E override": lambda c: "".join(f"<div>\u202e{html.escape(reversed_chars(line))}\u202c</div>" for line in _lines(c)),
    "css bidi-override": lambda c: "".join(
        f"<div style='direction:rtl;unicode-bidi:bidi-override'>{html.escape(reversed_chars(line))}</div>" for line in _lines(c)),
    "RLM between words in rtl": lambda c: "".join(
        f"<p dir='rtl'>\u200f{' &#x200F;'.join(reversed(line.split(' ')))}</p>" for line in _lines(c)),
    "flex order": lambda c: "".join("<div style='display:flex'>" + "".join(
        f"<span style='order:{i}'>{html.escape(w)}&nbsp;</span>" for i, w in reversed(list(enumerate(line.split(" ")))))
        + "</div>" for line in _lines(c, 6)),
    "flex row-reverse": lambda c: "".join("<div style='display:flex;flex-direction:row-reverse;justify-content:flex-end'>"
        + "".join(f"<span>{html.escape(w)}&nbsp;</span>" for w in reversed(line.split(" "))) + "</div>" for line in _lines(c, 6)),
    "flex column-reverse": lambda c: "<div style='display:flex;flex-direction:column-reverse'>" + "".join(
        f"<div>{html.escape(line)}</div>" for line in reversed(_lines(c))) + "</div>",
}


@pytest.mark.parametrize("how", sorted(ORDER))
def test_text_shown_in_another_order_is_read_in_display_order(how):
    ex = extract_bytes(page(ORDER[how](CONTRACT)), "x.html")
    assert found(CONTRACT, ex.text), ex.text[:300]
    assert ex.unreadable is None
    if how.startswith(("bdo", "U+", "css", "RLM")):
        logical = reading(ex, "html:logical-order")
        assert logical and not found(CONTRACT, logical)
    other = extract_bytes(page(ORDER[how](OTHER)), "y.html")
    assert found(OTHER, other.text) and not found(CONTRACT, other.text)


def test_right_to_left_text_keeps_its_logical_order():
    hebrew = "\u05d4\u05e9\u05d5\u05db\u05e8 \u05d9\u05e9\u05dc\u05dd \u05d0\u05ea \u05d3\u05de\u05d9 \u05d4\u05e9\u05db\u05d9\u05e8\u05d5\u05ea"
    ex = extract_bytes(f"<html dir='rtl'><body><p>{hebrew}</p><p>{hebrew} 2024</p></body></html>".encode(), "x.html")
    assert ex.text.split("\n")[0] == hebrew  # a reader reads Hebrew right to left: the stored order
    assert words(ex.text) == words(f"{hebrew}\n\n{hebrew} 2024")


LAYOUT = {
    "right floats": lambda c: "<p>" + "".join(
        f"<span style='float:right'>{html.escape(line)}&nbsp;</span>" for line in _lines(c, 3)) + "</p>",
    "positioned boxes": lambda c: "<div style='position:relative'>" + "".join(
        f"<span style='position:absolute;top:{20 * (i % 5)}px;left:{300 - 60 * i}px'>{html.escape(line)}</span>"
        for i, line in enumerate(_lines(c, 4))) + "</div>",
    "grid placement": lambda c: "<div style='display:grid'>" + "".join(
        f"<span style='grid-row:{i + 1}'>{html.escape(line)}</span>" for i, line in enumerate(_lines(c, 4))) + "</div>",
    "flex wrap-reverse": lambda c: "<div style='display:flex;flex-wrap:wrap-reverse'>" + "".join(
        f"<span>{html.escape(line)}</span>" for line in _lines(c, 4)) + "</div>",
    # all at the same offsets, each moved to its line by its transform, stored last line first
    "boxes placed by transforms": lambda c: "<div style='position:relative'>" + "".join(
        f"<div style='position:absolute;top:0;left:0;transform:translateY({24 * i}px)'>{html.escape(line)}</div>"
        for i, line in reversed(list(enumerate(_lines(c, 4))))) + "</div>",
}


@pytest.mark.parametrize("how", sorted(LAYOUT))
def test_order_that_layout_decides_fails_closed(how):
    ex = extract_bytes(page(LAYOUT[how](CONTRACT)), "x.html")
    assert (ex.unreadable or "").startswith("css-order:"), ex.unreadable


def test_ordinary_layout_keeps_its_order_and_is_readable():
    body = ("<div style='display:flex'><div style='width:50%'>Left column text here.</div>"
            "<div style='width:50%'>Right column text here.</div></div>"
            "<img style='float:right' src='logo.png' alt=''><p style='position:relative;top:-2px'>"
            + html.escape(CONTRACT) + "</p><div style='float:left;width:40%'>A sidebar note.</div>")
    ex = extract_bytes(page(body), "x.html")
    assert ex.unreadable is None and found(CONTRACT, ex.text)
    assert ex.text.index("Left column") < ex.text.index("Right column")
    # hanging indents, as EDGAR filings number their clauses: nothing off-screen, nothing reordered
    clauses = "".join(f"<p style='padding-left:36pt;text-indent:-36pt'>({c})&nbsp;&nbsp;{html.escape(s)}.</p>"
                      for c, s in zip("abc", CONTRACT.split(". "), strict=False))
    ex = extract_bytes(page(clauses), "y.htm")
    assert ex.unreadable is None and ex.text.startswith("Cover page.\n\n(a) The Lessee") and "(b) The Lessor" in ex.text


def test_boxes_placed_by_transforms_in_source_order_are_readable():
    # each line at the same offsets, moved down by its transform: drawn in the order it is stored
    body = "<div style='position:relative'>" + "".join(
        f"<div style='position:absolute;top:0;left:0;transform:translate(0, {24 * i}px)'>{html.escape(line)}</div>"
        for i, line in enumerate(_lines(CONTRACT, 4))) + "</div>"
    ex = extract_bytes(page(body), "x.html")
    assert ex.unreadable is None and found(CONTRACT, ex.text)
    # centred boxes, as pages write them (top:50%, translate(-50%, -50%)): the order is the source's
    centred = "".join(f"<div style='position:absolute;top:{40 * i}px;left:50%;transform:translate(-50%, -50%)'>"
                      f"{html.escape(line)}</div>" for i, line in enumerate(_lines(CONTRACT, 4)))
    assert extract_bytes(page(centred), "y.html").unreadable is None


# -- tables set as columns: read across the rows, and down each column ------------------------------

def _columns_table(left: list[str], right: list[str]) -> bytes:
    rows = "".join(f"<tr><td>{html.escape(a)}</td><td></td><td>{html.escape(z)}</td></tr>"
                   for a, z in zip(left, right, strict=True))
    return page(f"<table style='width:900px'>{rows}</table><p>After the table.</p>")


def test_two_columns_set_as_table_cells_are_also_read_down_each_column():
    lines = _lines(CONTRACT, 6)
    half = (len(lines) + 1) // 2
    left, right = lines[:half], lines[half:] + [""] * (2 * half - len(lines))
    ex = extract_bytes(_columns_table(left, right), "x.html")
    assert not found(CONTRACT, ex.text)  # the visible reading runs across the rows
    columns = reading(ex, "html:table-columns")
    assert found(CONTRACT, columns) and columns.startswith("Cover page.") and columns.endswith("After the table.")
    # the same disguise of another agreement: its columns read down hold it, not the contract
    other = _lines(OTHER, 6)
    ex = extract_bytes(_columns_table(other[:len(other) // 2], other[len(other) // 2:2 * (len(other) // 2)]), "y.html")
    assert not found(CONTRACT, reading(ex, "html:table-columns"))


def test_a_table_of_labels_and_numbers_is_not_read_down_its_columns():
    rows = "".join(f"<tr><td>{label}</td><td>{n:,}</td><td>{n * 2:,}</td></tr>"
                   for label, n in (("Revenue", 1200), ("Cost of sales", 800), ("Gross profit", 400),
                                    ("Operating expenses", 150), ("Net income", 250)))
    ex = extract_bytes(page(f"<table>{rows}</table><p>{html.escape(CONTRACT)}</p>"), "x.htm")
    assert "html:table-columns" not in [r.name for r in ex.readings]
    # a column of prose beside a column of labels is one column of prose: nothing to read down
    prose = "".join(f"<tr><td>{i}.</td><td>{html.escape(line)}</td></tr>" for i, line in enumerate(_lines(CONTRACT, 8)))
    ex = extract_bytes(page(f"<table>{prose}</table>"), "y.htm")
    assert "html:table-columns" not in [r.name for r in ex.readings]


def test_table_cells_spanning_rows_and_columns_are_read_in_their_column():
    w = CONTRACT.split()
    a, b, c, d = (" ".join(w[i:i + 6]) for i in range(0, 24, 6))
    body = (f"<table><tr><td rowspan='2'>{a}</td><td>{c}</td></tr><tr><td>{d}</td></tr>"
            f"<tr><td colspan='2'>{b}</td></tr></table>")
    columns = reading(extract_bytes(page(body), "x.html"), "html:table-columns")
    assert words(columns) == words(f"Cover page. {a} {b} {c} {d}")


# -- SVG paint inside a page: text with no fill and no stroke is not drawn ----------------------------

def test_inline_svg_text_without_fill_or_stroke_is_left_out():
    hidden = {"fill none": "fill='none'", "fill-opacity 0": "fill-opacity='0'", "display none": "display='none'",
              "css fill none": "style='fill:none'", "transparent": "fill='transparent'"}
    for how, attr in hidden.items():
        body = ("<svg width='900' height='60'><text x='4' y='20'>"
                + interleave(CONTRACT, f"<tspan {attr}>{{}} </tspan>") + "</text></svg>")
        ex = extract_bytes(page(body), "x.html")
        assert found(CONTRACT, ex.text) and "quartz" not in ex.text, how
        assert "quartz" in reading(ex, "html:all-text"), how


def test_inline_svg_text_drawn_by_its_stroke_or_a_child_fill_is_read():
    outlined = f"<svg width='900' height='60'><text x='4' y='20' fill='none' stroke='black'>{CONTRACT}</text></svg>"
    assert found(CONTRACT, extract_bytes(page(outlined), "x.html").text)
    refilled = (f"<svg width='900' height='60'><g fill='none'><text x='4' y='20' fill='#222'>{CONTRACT}</text></g>"
                f"<g style='fill-opacity:0'><text x='4' y='40' style='fill-opacity:1'>{OTHER}</text></g></svg>")
    text = extract_bytes(page(refilled), "y.html").text
    assert found(CONTRACT, text) and found(OTHER, text)


# -- letter-spaced text ---------------------------------------------------------------------------


def spaced(text: str, gap: str, between: str = " ") -> str:
    return gap.join(between.join(w) for w in text.split(" "))


def test_letter_spaced_html_with_wider_word_gaps_is_rejoined():
    body = "<p>" + spaced(html.escape(CONTRACT), "&nbsp;&nbsp;&nbsp;", "&nbsp;") + "</p>"
    ex = extract_bytes(page(body), "x.html")
    assert found(CONTRACT, ex.text) and ex.unreadable is None
    assert any("letter-spaced" in w for w in ex.warnings)


def test_letter_spaced_html_without_word_gaps_fails_closed():
    ex = extract_bytes(page("<p>" + spaced(html.escape(CONTRACT), " ") + "</p>"), "x.html")
    assert (ex.unreadable or "").startswith("letter-spaced:")


def test_letter_spaced_plain_text_is_rejoined_or_fails_closed():
    ex = extract_bytes(("SUPPLY AGREEMENT\n\n" + spaced(CONTRACT, "   ")).encode(), "x.txt")
    assert found(CONTRACT, ex.text) and ex.unreadable is None
    ex = extract_bytes(spaced(CONTRACT, " ").encode(), "y.txt")
    assert (ex.unreadable or "").startswith("letter-spaced:")


def test_a_letter_spaced_heading_or_an_index_is_ordinary():
    text = ("W I T N E S S E T H:\n\nA B C D E F G H I J K L M N O P Q R S T U V W X Y Z\n\n"
            "S U P P L Y   A G R E E M E N T\n\n" + CONTRACT + "\n")
    ex = extract_bytes(text.encode(), "x.txt")
    assert ex.unreadable is None and "SUPPLY AGREEMENT" in ex.text
    ex = extract_bytes(page("<p>W I T N E S S E T H</p><p>" + CONTRACT + "</p>"), "y.html")
    assert ex.unreadable is None


# -- the container says text, the content looks like HTML: both readings ------------------------------

SWALLOW = {
    "later <style>": "<style>",
    "later <title>": "<title>",
    "unclosed comment": "<!--",
    "later <script>": "<script>",
    "later <noembed>": "<noembed>",
}


@pytest.mark.parametrize("how", sorted(SWALLOW))
def test_a_text_file_that_looks_like_html_is_read_both_ways(how):
    data = f"<p>Cover note for the exhibit.</p>\n{SWALLOW[how]}\n{CONTRACT}\n".encode()
    ex = extract_bytes(data, "x.txt")
    assert ex.format == "text" and found(CONTRACT, ex.text)  # a text editor shows the bytes
    as_html = reading(ex, "text:as-html")
    assert "Cover note" in as_html and not found(CONTRACT, as_html)


@pytest.mark.parametrize("how", sorted(SWALLOW))
def test_markdown_that_swallows_its_text_in_html_keeps_it_in_the_source_reading(how):
    data = f"<p>Cover note for the exhibit.</p>\n{SWALLOW[how]}\n{CONTRACT}\n".encode()
    ex = extract_bytes(data, "x.md")
    assert ex.format == "markdown" and "Cover note" in ex.text
    assert found(CONTRACT, reading(ex, "markdown:source"))  # a gate audits the source too


def test_html_found_by_sniffing_alone_also_has_its_plain_reading():
    data = f"<p>Cover note for the exhibit.</p>\n<title>\n{CONTRACT}\n".encode()
    ex = extract_bytes(data, "exhibit")
    assert ex.format == "html" and not found(CONTRACT, ex.text)
    assert found(CONTRACT, reading(ex, "html:as-plain-text"))
    named = extract_bytes(data, "exhibit.htm")  # the name says HTML: HTML only
    assert not any(r.name == "html:as-plain-text" for r in named.readings)


def test_sec_form_after_an_empty_head_is_read_not_empty():
    """Issue #23: the whole form follows ``<head>...</head></html>`` with no ``<body>``."""
    data = (b"<html><head><title>FORM 8-K</title></head></html>\n"
            b"UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nWashington, D.C. 20549\n"
            + CONTRACT.encode() + b"\n")
    ex = extract_bytes(data, "form8k.htm")
    assert ex.text.startswith("UNITED STATES SECURITIES AND EXCHANGE COMMISSION") and found(CONTRACT, ex.text)
    assert "FORM 8-K" not in ex.text and ex.unreadable is None


# -- CSS this code cannot evaluate fails closed ----------------------------------------------------


UNEVALUATED = {
    "css-media": "<style>@media (update: fast){.j{display:none}}</style>",
    "css-selector": "<style>.j:lang(en){display:none}</style>",
    "css-value": "<style>.j{font-size:calc(1px * sign(-1))}</style>",
    "css-font": "<style>@font-face{font-family:x;src:url(data:font/woff2;base64,AAAA)}p{font-family:x}</style>",
}


@pytest.mark.parametrize("code", sorted(UNEVALUATED))
def test_css_that_cannot_be_evaluated_fails_closed(code):
    body = f"<p>{interleave(CONTRACT, '<span class=j>{}</span>')}</p>"
    ex = extract_bytes(page(body, UNEVALUATED[code]), "x.html")
    assert (ex.unreadable or "").startswith(code + ":"), ex.unreadable


def test_a_pixel_density_query_fails_closed_only_where_it_hides_words():
    """Readers' screens are 1x and 2x alike: a density query that hides words cannot be read as
    one of them; one that swaps a logo for its 2x picture hides no word."""
    body = f"<p>{interleave(CONTRACT, '<span class=j>{}</span>')}</p>"
    for query in ("(min-resolution: 2dppx)", "(-webkit-min-device-pixel-ratio: 2)", "(max-resolution: 96dpi)"):
        ex = extract_bytes(page(body, f"<style>@media {query} {{ .j {{ display: none }} }}</style>"), "x.html")
        assert (ex.unreadable or "").startswith("css-media:"), (query, ex.unreadable)
    retina = "<style>@media (min-resolution: 2dppx) { .logo { background-image: url(logo@2x.png); width: 120px } }</style>"
    assert extract_bytes(page(f"<div class='logo'></div><p>{CONTRACT}</p>", retina), "y.html").unreadable is None


def test_an_external_style_sheet_fails_closed_only_where_it_could_hide_interleaved_words():
    link = "<link rel='stylesheet' href='https://example.invalid/s.css'>"
    ex = extract_bytes(page(f"<p>{interleave(CONTRACT, '<span class=j>{}</span>')}</p>", link), "x.html")
    assert (ex.unreadable or "").startswith("css-external:")
    ordinary = page("<div class='content'><h1 class='title'>Lease</h1><p>" + CONTRACT + "</p></div>", link)
    assert extract_bytes(ordinary, "y.html").unreadable is None


# -- ordinary documents ---------------------------------------------------------------------------


def test_ordinary_styled_filing_reads_as_before():
    body = ("<div style='margin-top:6pt;text-align:justify'><span style=\"color:#000000;font-family:'Times New Roman';"
            f"font-size:10pt;font-weight:700\">ARTICLE 1</span></div><table><tr><td style='padding:2px'>"
            f"<span style='font-size:9pt'>Rent</span></td><td>$100</td></tr></table>"
            f"<p style='font-size:10pt;color:#333'>{html.escape(CONTRACT)}</p>"
            "<div style='display:none'><ix:header><ix:hidden>dei:EntityCentralIndexKey 0000000001</ix:hidden></ix:header></div>")
    ex = extract_bytes(page(body, "<style>p{margin:0} .MsoNormal{font-size:11pt}</style>"), "x.htm")
    assert ex.text == f"Cover page.\n\nARTICLE 1\n\nRent\t$100\n\n{CONTRACT}"
    assert ex.unreadable is None
    assert "0000000001" in reading(ex, "html:all-text")  # the hidden facts are a reading


def test_licence_texts_as_html_read_as_text():
    """Licences that installed packages ship (written by others), as HTML paragraphs."""
    from tests.support.realtext import SIGNATURES, licence

    for kind in sorted(SIGNATURES):
        text = licence(kind)
        body = "".join(f"<p>{html.escape(p)}</p>" for p in text.split("\n\n") if p.strip())
        ex = extract_bytes(page(body, "<style>p{margin:0 0 1em}</style>"), kind + ".html")
        assert words(ex.text) == words("Cover page. " + text), kind
        assert ex.unreadable is None and not any(r.name == "html:all-text" for r in ex.readings), kind


def test_a_found_copy_is_found_by_the_index(tmp_path):
    """One disguise per family through ingest, the sampled index and a query, as the gate does."""
    from auditor.corpus.ingest import ingest
    from auditor.engine.query import query_text
    from auditor.store.db import Store

    lease = synth.contract(4242, 4_000, kind="lease")
    (tmp_path / "lease.txt").write_text(lease)
    with Store(tmp_path / "c.db") as store:
        ingest(store, [tmp_path / "lease.txt"], workers=1)
        doc = store.scalar("SELECT id FROM documents")
        other = synth.contract(4545, 4_000, kind="lease")
        paras = lambda t: [p for p in t.split("\n") if p.strip()]  # noqa: E731
        for make, name in [
            (lambda t: page("".join(f"<p>{interleave(p, '<span class=j>{}</span>')}</p>" for p in paras(t)),
                            "<style>.j{display:none}</style>"), "a.html"),
            (lambda t: page("<div style='display:flex;flex-direction:column-reverse'>" + "".join(
                f"<div>{html.escape(p)}</div>" for p in reversed(paras(t))) + "</div>"), "b.html"),
            (lambda t: ("<p>Cover.</p><style>\n" + t).encode(), "c.txt"),
        ]:
            ex = extract_bytes(make(lease), name)
            hits = [m for m in query_text(store, ex.text, 0.8).matches if m.doc_id == doc and m.direction == "in-query"]
            assert hits, name
            ex = extract_bytes(make(other), name)
            assert not [m for m in query_text(store, ex.text, 0.8).matches if m.doc_id == doc], name


# -- the browser as oracle ------------------------------------------------------------------------


def _chromium_text(tmp_path, data: bytes) -> str:
    src = tmp_path / "page.html"
    src.write_bytes(data)
    pdf = tmp_path / "page.pdf"
    subprocess.run([shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
                    "--no-pdf-header-footer", f"--print-to-pdf={pdf}", src.as_uri()],
                   check=True, capture_output=True, timeout=120)
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True,
                          text=True, timeout=60).stdout


@pytest.mark.browser
@pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("pdftotext")), reason="needs chromium and pdftotext")
@pytest.mark.parametrize("how", ["class display:none", "font-size:0", "off-screen absolute", "display:/**/none",
                                 "custom property", "clip rect", "rp", "noscript", "zero box", "closed details"])
def test_chromium_agrees_hidden_junk(tmp_path, how):
    head, hide = HIDDEN_JUNK[how]
    data = page(f"<p>{interleave(CONTRACT, hide)}</p>", head)
    shown = _chromium_text(tmp_path, data)
    assert found(CONTRACT, " ".join(shown.split())) and not any(j in shown for j in JUNK)
    assert found(CONTRACT, extract_bytes(data, "x.html").text)


@pytest.mark.browser
@pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("pdftotext")), reason="needs chromium and pdftotext")
@pytest.mark.parametrize("how", ["::before content", "alt of a broken image", "mathml mtext", "iframe data: html",
                                 "ix:header outside inline XBRL", "stray head after deep nesting", "content after </html>"])
def test_chromium_agrees_shown(tmp_path, how):
    head, make = SHOWN[how]
    data = page(make(CONTRACT), head)
    shown = " ".join(_chromium_text(tmp_path, data).split())
    assert found(CONTRACT.split(". ")[0], shown)
    assert found(CONTRACT, extract_bytes(data, "x.html").text)


@pytest.mark.browser
@pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("pdftotext")), reason="needs chromium and pdftotext")
@pytest.mark.parametrize("how", ["bdo dir=rtl", "U+202E override", "flex order", "flex row-reverse"])
def test_chromium_agrees_order(tmp_path, how):
    data = page(ORDER[how](CONTRACT))
    shown = " ".join(_chromium_text(tmp_path, data).replace("\u00a0", " ").split())
    assert found(" ".join(CONTRACT.split(" ")[:8]), shown), shown[:300]


def test_plain_text_is_read_in_display_order_too():
    lines = "\n".join("\u202e" + reversed_chars(line) + "\u202c" for line in _lines(CONTRACT))
    ex = extract_bytes(("Cover note.\n" + lines + "\n").encode(), "x.txt")
    assert found(CONTRACT, ex.text) and ex.unreadable is None
    assert not found(CONTRACT, reading(ex, "text:logical-order"))
    hebrew = "\u05d4\u05e9\u05d5\u05db\u05e8 \u05d9\u05e9\u05dc\u05dd \u05d0\u05ea \u05d3\u05de\u05d9 \u05d4\u05e9\u05db\u05d9\u05e8\u05d5\u05ea"
    ex = extract_bytes(f"{hebrew}\n{hebrew} 2024\n{CONTRACT}\n".encode(), "y.txt")
    assert ex.text == f"{hebrew}\n{hebrew} 2024\n{CONTRACT}\n" and not ex.readings


def test_one_letter_per_element_is_read_as_the_reader_sees_it():
    def letters(text: str, sep: str) -> str:
        return "&nbsp;&nbsp;".join(sep.join(f"<span>{html.escape(c)}</span>" for c in w) for w in text.split(" "))

    ex = extract_bytes(page("<p>" + letters(CONTRACT, "") + "</p>"), "x.html")  # spans side by side: words
    assert found(CONTRACT, ex.text) and ex.unreadable is None
    ex = extract_bytes(page("<p style='letter-spacing:-0.3em'>" + letters(CONTRACT, " ") + "</p>"), "y.html")
    assert found(CONTRACT, ex.text) and ex.unreadable is None  # wider gaps between words: rejoined
    squeezed = " ".join(" ".join(f"<span>{c}</span>" for c in w) for w in CONTRACT.split(" "))
    ex = extract_bytes(page(f"<p style='word-spacing:-0.25em'>{squeezed}</p>"), "z.html")
    assert (ex.unreadable or "").startswith("letter-spaced:")


@pytest.mark.parametrize("css", [
    "p{color:color-mix(in srgb, red, blue)}", "p{color:matrix(0,0,0,0,0,0)}", "p{font-size:clamp(1px, 2px)}",
    "p{display:var(}", "p{clip:rect(auto)}", "p{transform:matrix(1)}", "p{--x:var(--x)}p{display:var(--x)}",
    "@media print{p", "@layer{", "p::marker{content:'x'}", "p:is({display:none}",
])
def test_hostile_css_is_an_answer_not_a_crash(css):
    ex = extract_bytes(page(f"<p class=j>{CONTRACT}</p>", f"<style>{css}</style>"), "x.html")
    assert found(CONTRACT, ex.text) or (ex.unreadable or "").startswith("css-")


def test_flex_items_are_parted_as_a_reader_sees_them():
    """A gap between the items of a flex row parts their words; with no gap they touch (a word
    split over two items is one word to a reader); a column stacks them."""
    from auditor.extract import extract_bytes

    def read(style: str, items: list[str]) -> str:
        html = f"<html><body><div style='display:flex;{style}'>" + "".join(f"<span>{i}</span>" for i in items)
        return extract_bytes((html + "</div><p>End of the page here.</p></body></html>").encode(), "x.html").text

    assert read("gap:0.3em", ["first", "second", "third"]).startswith("first\tsecond\tthird")
    assert read("column-gap:4px", ["first", "second"]).startswith("first\tsecond")
    assert read("", ["Lic", "ense", "granted"]).startswith("Licensegranted")
    assert read("flex-direction:column", ["first", "second"]).startswith("first\nsecond")


@pytest.mark.parametrize("page, shown", [
    # a marker that is a string, or ::marker content, is what a reader sees before the item
    ("<style>ul{list-style-type:'KEEP '}</style><ul><li>real text one</li></ul>", "KEEP real text one"),
    ("<style>li::marker{content:'SEE '}</style><ul><li>real text one</li></ul>", "SEE real text one"),
    ("<style>li{list-style:'ALSO ' inside}</style><ul><li>real text one</li></ul>", "ALSO real text one"),
    # the shorthand without a type resets it: the inherited string is gone (a browser shows a disc)
    ("<style>ul{list-style-type:'JUNK '} li{list-style:inside}</style><ul><li>real text one</li></ul>", "real text one"),
    ("<style>ul{list-style-type:'JUNK '} li{list-style:url(x.png)}</style><ul><li>real text one</li></ul>",
     "real text one"),
    ("<ol><li>real text one</li></ol>", "real text one"),  # counters are numbering, not text
    # quotation marks of <q>, nested, and as the quotes property sets them
    ("<p>said <q>stop <q>now</q> please</q>.</p>", "said \u201cstop \u2018now\u2019 please\u201d."),
    ("<style>q{quotes:'<<' '>>'}</style><p><q>x</q></p>", "<<x>>"),
])
def test_generated_markers_and_quotes_are_read_as_shown(page, shown):
    assert extract_bytes(page.encode(), "a.html").text == shown
