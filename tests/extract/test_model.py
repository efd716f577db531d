"""The readers' models as allow-lists (issue #40): a construct outside a reader's model is named
in ``Extracted.unmodelled``; ordinary documents of each format hold none.

Positive: each construct below is outside its reader's model and named. Negative: ordinary
documents (pages written as filers and converters write them, licence texts others wrote, the
clean cases of the red team) hold no construct outside the model.
"""

from __future__ import annotations

import pytest

from auditor.extract import extract_bytes
from auditor.extract.model import Outside, reason
from tests.support import redteam_cases as rc
from tests.support import synth
from tests.support.realtext import licence

WORDS = synth.contract(4100, 400)


def html(body: str, head: str = "") -> bytes:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>t</title>{head}</head>"
            f"<body>{body}<p>The visible end of the page.</p></body></html>").encode()


def named(data: bytes, name: str = "x.html") -> list[str]:
    return extract_bytes(data, name).unmodelled


# -- the mechanism ------------------------------------------------------------------------------

def test_outside_names_each_construct_once_in_order():
    o = Outside()
    o.add("html", "element <slot>")
    o.add("css", "property zoom")
    o.add("html", "element <slot>")
    assert o.names() == ["html: element <slot>", "css: property zoom"]
    assert reason(o.names()) == "not-modelled: html: element <slot>, css: property zoom are not modelled by its reader"
    assert reason([]) is None


# -- HTML ---------------------------------------------------------------------------------------

HTML_OUTSIDE = {
    "declarative shadow root": (f"<div><template shadowrootmode='open'><slot name='a'></slot></template>"
                                f"<span slot='a'>{WORDS}</span><span>junk words</span></div>",
                                "html: attribute shadowrootmode of <template>"),
    "video fallback": (f"<video>{WORDS}</video>", "html: element <video>"),
    "canvas fallback": (f"<canvas>{WORDS}</canvas>", "html: element <canvas>"),
    "popover": (f"<p popover>{WORDS}</p>", "html: attribute popover of <p>"),
    "popover on an unknown element": (f"<x-note popover>{WORDS}</x-note>", "html: attribute popover of <x-note>"),
    "tfoot drawn last": (f"<table><tfoot><tr><td>{WORDS}</td></tr></tfoot><tbody><tr><td>b</td></tr></tbody></table>",
                         "html: <tfoot> row group before other rows (drawn last)"),
    "thead drawn first": (f"<table><tbody><tr><td>b</td></tr></tbody><thead><tr><td>{WORDS}</td></tr></thead></table>",
                          "html: <thead> row group after other rows (drawn first)"),
    "rotated": (f"<p style='transform: rotate(180deg)'>{WORDS}</p>", "css: value rotate() of transform"),
    "mirrored": (f"<p style='transform: scaleX(-1)'>{WORDS}</p>", "css: value scalex() not positive of transform"),
    "unknown property": (f"<p style='-webkit-text-security: disc'>{WORDS}</p>",
                         "css: value disc of -webkit-text-security"),
    "a property no list names": (f"<p style='text-combine-upright: all'>{WORDS}</p>",
                                 "css: property text-combine-upright"),
    "vertical writing": (f"<p style='writing-mode: vertical-rl'>{WORDS}</p>", "css: value vertical-rl of writing-mode"),
    "blur": (f"<p style='filter: blur(9px)'>{WORDS}</p>", "css: value blur(9px) of filter"),
    "background-clip text": (f"<p style='background-clip: text'>{WORDS}</p>", "css: value text of background-clip"),
    "header group display": (f"<div style='display: table'><div style='display: table-footer-group'>{WORDS}</div>"
                             "<div>b</div></div>", "css: value table-footer-group of display"),
    "custom counter style": ("<ol style='list-style-type: legal'><li>a</li></ol>" + WORDS,
                             "css: value counter style legal of list-style-type"),
    "::first-line": (f"<p>{WORDS}</p>", "css: selector ::first-line"),
    "svg coordinates": (f"<svg width='900' height='200'><text x='10' y='150'>{WORDS[:200]}</text>"
                        f"<text x='10' y='20'>{WORDS[200:400]}</text></svg>",
                        "svg: text placed out of source order by its coordinates"),
    "svg glyph positions": (f"<svg><text x='30 20 10' y='10'>abc</text></svg><p>{WORDS}</p>",
                            "svg: glyphs placed one by one (several x or y values)"),
    "svg use": (f"<svg><defs><text id='t'>{WORDS}</text></defs><use href='#t'/></svg>", "svg: element <use>"),
    "svg pattern": (f"<svg><pattern id='p'><text>{WORDS}</text></pattern><rect fill='url(#p)'/></svg>",
                    "svg: text inside <pattern>"),
    "svg rotate": (f"<svg><text x='1' y='1' transform='rotate(90)'>{WORDS}</text></svg>",
                   "svg: transform that rotates, skews or mirrors text"),
    "svg cover": (f"<svg><text x='1' y='10'>{WORDS}</text><rect width='900' height='90' fill='white'/></svg>",
                  "svg: filled <rect> drawn after text (it may cover it)"),
}


@pytest.mark.parametrize("case", sorted(HTML_OUTSIDE))
def test_html_outside_the_model_is_named(case):
    body, construct = HTML_OUTSIDE[case]
    head = "<style>p::first-line { color: white }</style>" if case == "::first-line" else ""
    assert construct in named(html(body, head)), case


ORDINARY_HTML = [
    # as filers' converters write them: Word's HTML, inline XBRL, old presentational markup
    "<p class=MsoNormal style='margin:0in;mso-line-height-rule:exactly;font-family:\"Times New Roman\"'>"
    "<span lang=EN-US style='font-size:10.0pt'>{w}</span><o:p></o:p></p>",
    "<div style='display:none'><ix:header><ix:hidden><ix:nonNumeric name='dei:X' contextRef='c'>x</ix:nonNumeric>"
    "</ix:hidden></ix:header></div><p style='-sec-ix-hidden:h1'><ix:nonNumeric name='a' contextRef='c' "
    "escape='true'>{w}</ix:nonNumeric></p>",
    "<center><font face='Times New Roman' size=2 color='#000000'>{w}</font></center><hr noshade size=1>"
    "<table border=0 cellpadding=0 cellspacing=0 width='100%' bcllist='1'><tr valign=top><td nowrap "
    "align=right>1.</td><td width='90%'>terms</td></tr></table>",
    "<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>{w}</td></tr></tbody><tfoot><tr><td>z</td></tr>"
    "</tfoot></table>",
    "<div style='transform: translate(0, 2px) scale(1.1)'>{w}</div><p style='text-transform:uppercase;"
    "font-variant:small-caps;letter-spacing:0.5px'>terms</p><ol style='list-style-type:lower-roman'><li>a</li></ol>",
    "<svg width='400' height='100'><g transform='translate(5,5)'><rect width='10' height='10' fill='#eee'/>"
    "<text x='10' y='20'>Revenue</text><text x='10' y='40'>by segment</text></g></svg><p>{w}</p>",
]


@pytest.mark.parametrize("i", range(len(ORDINARY_HTML)))
def test_ordinary_html_stays_inside_the_model(i):
    assert named(html(ORDINARY_HTML[i].format(w=WORDS))) == []


def test_clean_red_team_pages_stay_inside_the_model():
    cases = rc.build(["clean/html-ordinary-page", "clean/edgar-unrelated"], {k: licence("BSD") for k in ("BSD",)})
    for case in cases.values():
        for name, data in case.files.items():
            ex = extract_bytes(data, name)
            assert ex.unmodelled == [], (case.id, name, ex.unmodelled)
            for p in ex.parts:
                assert p.extracted is None or p.extracted.unmodelled == [], (case.id, p.meta)


def test_a_stylesheet_rule_counts_only_where_it_matches():
    head = "<style>.player { mask-image: url(m.png) } p { color: black }</style>"
    assert named(html(f"<p>{WORDS}</p>", head)) == []
    assert named(html(f"<p class=player>{WORDS}</p>", head)) == ["css: value url(m.png) of mask-image"]


def test_text_read_as_html_carries_what_the_html_holds():
    data = f"<html><body><video>{WORDS}</video></body></html>".encode()
    assert "html: element <video>" in named(data, "notes.txt")
