"""The part of the CSS cascade that decides what a reader sees: which elements are shown, with
what generated text, in which order and direction.

Style sheets are parsed with tinycss2 (as browsers parse CSS: comments, escapes and invalid
declarations behave as there); selectors are matched by lexbor, the engine that parsed the page
(:mod:`selectolax`), their specificity taken from cssselect2's parser. The cascade is the real
one for the properties that hide, show or move text: origins (the HTML Rendering section's UA
rules, then the author's), cascade layers, ``!important``, specificity, order, the ``style``
attribute, inheritance, ``inherit``/``initial``/``unset``/``revert`` and custom properties with
``var()``. A value the reader's browser could evaluate but this code cannot (an unknown function,
a selector lexbor does not support) is recorded in :attr:`Cascade.unsure` with its reason, so the
document fails closed instead of being read wrongly.

Lengths are evaluated for a desktop viewport of 1280 x 800 CSS pixels and a 16 px root font.
"""

from __future__ import annotations

import base64
import functools
import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import tinycss2
import tinycss2.color4

from auditor.extract.model import css as model_css
from auditor.extract.model import symbol_word_font

VIEW_W = 1280.0
VIEW_H = 800.0
ROOT_FONT = 16.0
#: Text smaller than this (CSS px; 3 pt) cannot be read.
MIN_FONT = 4.0
#: Text whose contrast ratio (WCAG) with its background is below this cannot be seen.
MIN_CONTRAST = 1.2
PULL = 1.0  # em: a negative block margin beyond this pulls a box over a line (see Style.pulled)

#: SVG's paint properties (inherited): SVG text is drawn by its fill and its stroke, so text with
#: neither is not drawn (:meth:`Style.svg_unpainted`). They paint no HTML text.
SVG_PAINT = ("fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity")
ROOT_STYLE_PAINT = (True, True, False, True, True)  # SVG's initial values: black fill, no stroke
# Properties that can hide, show, move or generate text; the others are never looked at.
RELEVANT = frozenset({
    "display", "visibility", "content-visibility", "font-size", "font", "opacity", "filter",
    "color", "-webkit-text-fill-color", "-webkit-text-stroke", "-webkit-text-stroke-width", "-webkit-text-stroke-color",
    "text-shadow", "background-color", "background", "clip", "clip-path", "position", "left",
    "top", "right", "bottom", "inset", "text-indent", "margin", "margin-left", "margin-top",
    "margin-bottom", "margin-block", "margin-block-start", "margin-block-end", "margin-inline",
    "margin-inline-start",
    "transform", "translate", "scale", "width", "height", "max-width", "max-height", "overflow",
    "overflow-x", "overflow-y", "content", "order", "flex-direction", "flex-flow", "flex-wrap",
    "direction", "unicode-bidi", "float", "grid-area", "grid-row", "grid-column",
    "grid-row-start", "grid-row-end", "grid-column-start", "grid-column-end", "grid-auto-flow",
    "white-space", "zoom", "background-image", "padding", "padding-left", "gap", "column-gap",
    "quotes", "list-style", "list-style-type", "font-family", "z-index", "line-height", "padding-top", "padding-bottom", *SVG_PAINT,
})
_INHERITED = frozenset({
    "visibility", "font-size", "color", "-webkit-text-fill-color", "-webkit-text-stroke-width",
    "text-shadow", "direction", "white-space", "quotes", "list-style-type", "font-family", *SVG_PAINT,
})
_DISPLAY = frozenset({
    "none", "contents", "block", "inline", "inline-block", "flow-root", "list-item", "table",
    "inline-table", "table-row-group", "table-header-group", "table-footer-group", "table-row",
    "table-cell", "table-column-group", "table-column", "table-caption", "flex", "inline-flex",
    "grid", "inline-grid", "ruby", "ruby-base", "ruby-text", "ruby-base-container",
    "ruby-text-container", "run-in", "math", "inline-list-item", "block flow", "inline flow",
    "block flow-root", "inline flow-root", "block flex", "inline flex", "block grid",
    "inline grid", "block table", "inline table", "block list-item", "-webkit-box",
    "-webkit-inline-box", "-ms-flexbox", "-ms-inline-flexbox", "-ms-grid",
})
_KEYWORDS = frozenset({"inherit", "initial", "unset", "revert", "revert-layer"})
_ABS_UNITS = {"px": 1.0, "pt": 4 / 3, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4,
              "q": 96 / 101.6}
_FONT_KEYWORDS = {"xx-small": 9.0, "x-small": 10.0, "small": 13.0, "medium": 16.0, "large": 18.0,
                  "x-large": 24.0, "xx-large": 32.0, "xxx-large": 48.0}

# The HTML standard's Rendering section (15.3): what a browser never shows, and the direction
# and bidi rules of ``dir``, ``bdi`` and ``bdo``. Each tag's own display (block, table cell...)
# is looked up by tag in :mod:`.html`, which is cheaper than matching selectors. ``noscript`` is hidden because browsers run
# scripts by default; its text is in the all-text reading. A closed ``details`` shows only its
# summary.
UA_SHEET = """
area, base, basefont, datalist, head, link, meta, noembed, noframes, param, rp, script, style,
template, title, noscript, dialog:not([open]), input[type=hidden i] { display: none }
[hidden]:not([hidden=until-found i]) { display: none }
[hidden=until-found i] { content-visibility: hidden }
details:not([open]) > :not(summary:first-of-type) { display: none }
pre, listing, xmp, plaintext, textarea { white-space: pre }
[dir] { unicode-bidi: isolate } bdi { unicode-bidi: isolate } bdo, bdo[dir] { unicode-bidi: isolate-override }
[dir=rtl i] { direction: rtl } [dir=ltr i] { direction: ltr }
q::before { content: open-quote } q::after { content: close-quote }
"""


@dataclass(frozen=True)
class Decl:
    name: str
    value: tuple[Any, ...]  # tinycss2 component values, comments and edge whitespace dropped
    important: bool


def declarations(tokens: Iterable[Any] | str, outside: list[str] | None = None) -> list[Decl]:
    """The relevant declarations of a declaration list (a rule's block or a ``style``
    attribute), invalid ones dropped as a browser drops them. With ``outside``, the
    declarations outside the reader's model (:mod:`auditor.extract.model.css`) are named there."""
    out = []
    for d in tinycss2.parse_declaration_list(tokens, skip_comments=True, skip_whitespace=True):
        if d.type != "declaration":
            continue
        name = d.lower_name
        if outside is not None and (why := model_css.outside(name, d.value)) is not None and why not in outside:
            outside.append(why)
        if not (name in RELEVANT or name.startswith("--")):
            continue
        value = tuple(_strip(d.value)) if not name.startswith("--") else tuple(d.value)
        if name.startswith("--") or _has_var(value) or _valid(name, value):
            out.append(Decl(name, value, d.important))
    return out


def _strip(tokens: Iterable[Any]) -> list[Any]:
    out = [t for t in tokens if t.type != "comment"]
    while out and out[0].type == "whitespace":
        out.pop(0)
    while out and out[-1].type == "whitespace":
        out.pop()
    return out


def _has_var(tokens: Iterable[Any]) -> bool:
    for t in tokens:
        if t.type == "function":
            if t.lower_name == "var" or _has_var(t.arguments):
                return True
        elif t.type in ("() block", "[] block", "{} block") and _has_var(t.content):
            return True
    return False


def _words(tokens: Iterable[Any]) -> list[Any]:
    return [t for t in tokens if t.type not in ("whitespace", "comment")]


def _ident(tokens: tuple[Any, ...]) -> str | None:
    w = _words(tokens)
    return w[0].lower_value if len(w) == 1 and w[0].type == "ident" else None


def _valid(name: str, value: tuple[Any, ...]) -> bool:
    """Whether a declaration's value parses for its property (only where it matters: an
    invalid ``display`` or ``visibility`` must not hide anything)."""
    if not value:
        return False
    kw = _ident(value)
    if kw in _KEYWORDS:
        return True
    if name == "display":
        return " ".join(t.lower_value for t in _words(value) if t.type == "ident") in _DISPLAY and all(
            t.type == "ident" for t in _words(value))
    if name == "visibility":
        return kw in ("visible", "hidden", "collapse")
    if name == "content-visibility":
        return kw in ("visible", "hidden", "auto")
    if name in ("position",):
        return kw in ("static", "relative", "absolute", "fixed", "sticky")
    if name == "float":
        return kw in ("left", "right", "none", "inline-start", "inline-end")
    if name == "direction":
        return kw in ("ltr", "rtl")
    if name == "unicode-bidi":
        return kw in ("normal", "embed", "isolate", "bidi-override", "isolate-override", "plaintext")
    if name in ("overflow", "overflow-x", "overflow-y"):
        return all(t.type == "ident" for t in _words(value))
    if name in ("color", "-webkit-text-fill-color", "background-color"):
        try:
            return _color(value) is not None
        except Unsure:
            return True  # a function this code does not know: evaluated (and failing closed) later
    if name == "opacity":
        w = _words(value)
        return len(w) == 1 and w[0].type in ("number", "percentage", "function")
    return True


# -- values -----------------------------------------------------------------------------------


class Unsure(Exception):
    """A value a browser evaluates and this code cannot."""


#: The system colours (CSS Color 4, with the deprecated ones) as Chromium draws them on a page of
#: the light scheme, the one the reader models (measured with getComputedStyle, Chromium 156):
#: ``Canvas`` is the page's own white, so words in it are not seen.
SYSTEM_COLOURS: dict[str, tuple[int, int, int]] = {
    "accentcolor": (0, 117, 255), "accentcolortext": (255, 255, 255), "activetext": (255, 0, 0),
    "buttonborder": (0, 0, 0), "buttonface": (239, 239, 239), "buttontext": (0, 0, 0), "canvas": (255, 255, 255),
    "canvastext": (0, 0, 0), "field": (255, 255, 255), "fieldtext": (0, 0, 0), "graytext": (128, 128, 128),
    "highlight": (0, 65, 198), "highlighttext": (255, 255, 255), "linktext": (0, 0, 238), "mark": (255, 255, 0),
    "marktext": (0, 0, 0), "selecteditem": (25, 103, 210), "selecteditemtext": (255, 255, 255),
    "visitedtext": (85, 26, 139), "activeborder": (0, 0, 0), "activecaption": (255, 255, 255),
    "appworkspace": (255, 255, 255), "background": (255, 255, 255), "buttonhighlight": (239, 239, 239),
    "buttonshadow": (239, 239, 239), "captiontext": (0, 0, 0), "inactiveborder": (0, 0, 0),
    "inactivecaption": (255, 255, 255), "inactivecaptiontext": (128, 128, 128), "infobackground": (255, 255, 255),
    "infotext": (0, 0, 0), "menu": (255, 255, 255), "menutext": (0, 0, 0), "scrollbar": (255, 255, 255),
    "threeddarkshadow": (0, 0, 0), "threedface": (239, 239, 239), "threedhighlight": (0, 0, 0),
    "threedlightshadow": (0, 0, 0), "threedshadow": (0, 0, 0), "window": (255, 255, 255), "windowframe": (0, 0, 0),
    "windowtext": (0, 0, 0),
}


def _color(tokens: Iterable[Any]) -> tuple[float, float, float, float] | str | None:
    w = _words(tokens)
    if len(w) != 1:
        return None
    if w[0].type == "ident" and w[0].lower_value in SYSTEM_COLOURS:
        r8, g8, b8 = SYSTEM_COLOURS[w[0].lower_value]
        return (r8 / 255, g8 / 255, b8 / 255, 1.0)
    c = tinycss2.color4.parse_color(w[0])
    if c is None:
        if w[0].type == "function":
            raise Unsure(f"color {tinycss2.serialize(w)}")
        return None
    if c == "currentcolor":
        return "currentcolor"
    try:
        r, g, b, a = c.to("srgb")
    except NotImplementedError as e:  # a colour space tinycss2 parses and does not convert
        got = _to_srgb(c.space, c.coordinates)
        if got is None:
            raise Unsure(f"color {tinycss2.serialize(w)}") from e
        (r, g, b), a = got, c.alpha
    return (min(max(r, 0.0), 1.0), min(max(g, 0.0), 1.0), min(max(b, 0.0), 1.0), min(max(a, 0.0), 1.0))


def _to_srgb(space: str, xyz: tuple[float, ...]) -> tuple[float, float, float] | None:
    """A colour of CSS Color 4's Lab, LCH, OKLab, OKLCH, linear sRGB or XYZ spaces in sRGB (0 to 1,
    not clipped), by the specification's own conversions; None for another space."""
    import math

    def lin(v: float) -> float:  # linear light to sRGB's gamma
        return math.copysign(1.055 * abs(v) ** (1 / 2.4) - 0.055, v) if abs(v) > 0.0031308 else 12.92 * v

    def from_xyz65(x: float, y: float, z: float) -> tuple[float, float, float]:
        return (lin(3.2409699 * x - 1.5373832 * y - 0.4986108 * z), lin(-0.9692436 * x + 1.8759675 * y + 0.0415551 * z),
                lin(0.0556301 * x - 0.2039770 * y + 1.0569715 * z))

    def from_xyz50(x: float, y: float, z: float) -> tuple[float, float, float]:  # Bradford D50 to D65
        return from_xyz65(0.9554734 * x - 0.0230985 * y + 0.0632593 * z, -0.0283697 * x + 1.0099955 * y + 0.0210414 * z,
                          0.0123140 * x - 0.0205077 * y + 1.3303659 * z)

    vals = [0.0 if v is None or v != v else float(v) for v in xyz]  # a missing component ("none") is 0
    if space in ("lch", "oklch"):
        lum, chroma, hue = vals
        vals = [lum, chroma * math.cos(math.radians(hue)), chroma * math.sin(math.radians(hue))]
        space = space[:-3] + "lab"
    if space == "lab":
        lum, a, b = vals
        fy = (lum + 16) / 116
        fx, fz = fy + a / 500, fy - b / 200

        def f(t: float) -> float:
            return t ** 3 if t ** 3 > 216 / 24389 else (116 * t - 16) / (24389 / 27)

        return from_xyz50(0.3457 / 0.3585 * f(fx), fy ** 3 if lum > 8 else lum / (24389 / 27),
                          (1 - 0.3457 - 0.3585) / 0.3585 * f(fz))
    if space == "oklab":
        lum, a, b = vals
        l_ = (lum + 0.3963377774 * a + 0.2158037573 * b) ** 3
        m_ = (lum - 0.1055613458 * a - 0.0638541728 * b) ** 3
        s_ = (lum - 0.0894841775 * a - 1.2914855480 * b) ** 3
        return (lin(4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_),
                lin(-1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_),
                lin(-0.0041960863 * l_ - 0.7034186147 * m_ + 1.7076147010 * s_))
    if space == "srgb-linear":
        return lin(vals[0]), lin(vals[1]), lin(vals[2])
    if space in ("xyz", "xyz-d65"):
        return from_xyz65(*vals)
    if space == "xyz-d50":
        return from_xyz50(*vals)
    return None


def length(tok: Any, em: float, pct_of: float | None = None) -> float | None:
    """A length in CSS px (``em`` is the font size it is relative to), or None if ``tok`` is
    not a length; raises Unsure for a math function it cannot evaluate."""
    t = tok.type
    if t == "number":
        return float(tok.value) if tok.value == 0 else None
    if t == "percentage":
        return None if pct_of is None else pct_of * tok.value / 100
    if t == "dimension":
        u = tok.lower_unit
        if u in _ABS_UNITS:
            return tok.value * _ABS_UNITS[u]
        if u == "em":
            return tok.value * em
        if u == "rem":
            return tok.value * ROOT_FONT
        if u in ("ex", "ch"):
            return tok.value * em / 2
        if u == "vw":
            return tok.value * VIEW_W / 100
        if u == "vh":
            return tok.value * VIEW_H / 100
        if u == "vmin":
            return tok.value * min(VIEW_W, VIEW_H) / 100
        if u == "vmax":
            return tok.value * max(VIEW_W, VIEW_H) / 100
        return None
    if t == "function" and tok.lower_name in ("calc", "min", "max", "clamp"):
        return _math(tok, em, pct_of)
    if t == "function":
        raise Unsure(f"{tok.lower_name}()")
    return None


def _math(fn: Any, em: float, pct_of: float | None) -> float:
    """calc(), min(), max(), clamp() over lengths and numbers."""
    args = _split_commas(fn.arguments)
    if fn.lower_name == "calc":
        return _calc(args[0] if args else [], em, pct_of)
    vals = [_calc(a, em, pct_of) for a in args]
    if not vals:
        raise Unsure(f"{fn.lower_name}()")
    if fn.lower_name == "min":
        return min(vals)
    if fn.lower_name == "max":
        return max(vals)
    if len(vals) != 3:
        raise Unsure("clamp()")
    return max(vals[0], min(vals[1], vals[2]))


def _split_commas(tokens: Iterable[Any]) -> list[list[Any]]:
    out: list[list[Any]] = [[]]
    for t in tokens:
        if t.type == "literal" and t.value == ",":
            out.append([])
        elif t.type not in ("whitespace", "comment"):
            out[-1].append(t)
    return [a for a in out if a]


def _calc(tokens: list[Any], em: float, pct_of: float | None) -> float:
    """A calc() sum of products; numbers and lengths mix as browsers allow only where the
    result does not depend on types (good enough to find a zero or a far-off offset)."""
    terms: list[float] = []
    sign = 1.0
    cur: float | None = None
    op = "*"
    for t in tokens:
        if t.type == "literal" and t.value in "+-" and cur is not None:
            terms.append(sign * cur)
            sign, cur, op = (1.0 if t.value == "+" else -1.0), None, "*"
            continue
        if t.type == "literal" and t.value in "*/":
            op = t.value
            continue
        if t.type == "() block":
            v = _calc([x for x in t.content if x.type not in ("whitespace", "comment")], em, pct_of)
        elif t.type == "number":
            v = float(t.value)
        else:
            got = length(t, em, pct_of)
            if got is None:
                raise Unsure(f"calc term {tinycss2.serialize([t])}")
            v = got
        if cur is None:
            cur = v
        elif op == "*":
            cur *= v
        else:
            if v == 0:
                raise Unsure("calc division by zero")
            cur /= v
    if cur is None:
        raise Unsure("empty calc()")
    terms.append(sign * cur)
    return sum(terms)


def _number(tokens: Iterable[Any]) -> float | None:
    w = _words(tokens)
    if len(w) != 1:
        return None
    t = w[0]
    if t.type == "number":
        return float(t.value)
    if t.type == "percentage":
        return t.value / 100
    if t.type == "function" and t.lower_name in ("calc", "min", "max", "clamp"):
        return _math(t, ROOT_FONT, 1.0)
    return None


# -- the computed style -------------------------------------------------------------------------


@dataclass
class Style:
    """The computed values that decide what of an element a reader sees."""

    display: str = "inline"
    display_set: bool = False  # set by an author rule (the tag's own layout does not apply)
    visibility: str = "visible"
    font_size: float = ROOT_FONT
    color: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)
    fill: tuple[float, float, float, float] | None = None  # -webkit-text-fill-color
    outlined: bool = False  # a text stroke or shadow draws transparent text anyway
    #: the text stroke (inherited): its width in CSS px and its colour (None: the text's colour)
    stroke: tuple[float, tuple[float, float, float, float] | None] = (0.0, None)
    #: the colours of the text's shadows (inherited; None: the text's colour, or one not computed)
    shadows: tuple[tuple[float, float, float, float] | None, ...] = ()
    background: tuple[float, float, float] | None = (1.0, 1.0, 1.0)  # None: an image, unknown
    opacity: float = 1.0  # the product over the element and its ancestors
    scale: float = 1.0
    x: float = 0.0  # how far left (negative) the element is moved, CSS px
    y: float = 0.0
    direction: str = "ltr"
    unicode_bidi: str = "normal"
    position: str = "static"
    floating: str = "none"  # the float property
    width: float | None = None  # the declared width and height, CSS px, when absolute lengths
    height: float | None = None
    order: int = 0
    flex_direction: str = "row"
    flex_wrap: str = "nowrap"
    gap: float = 0.0  # between the items of a flex row (column-gap), CSS px
    grid_placed: bool = False
    grid_flow: str = "row"
    left: float | None = None
    top: float | None = None
    white_space: str = "normal"
    custom: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    content: tuple[Any, ...] | None = None  # of a ::before, ::after or ::marker
    quotes: tuple[str, ...] | None = None  # the quotes property: (open, close)*; None for auto
    marker: str | None = None  # a list-style-type that is a string: the marker a list item shows
    symbol_font: str | None = None  # the first family of font-family, when it is a symbol font
    hidden: str | None = None  # why the element and all it holds are not shown
    #: painted in a layer beneath the page's in-flow boxes (a negative z-index, inherited by what it holds):
    #: the background of any block drawn over it hides its words, which the reader does not compute
    sunk: bool = False
    flat_lines: bool = False  # line-height (inherited) of about nothing: a box of auto height has no height
    unsure: str | None = None  # a value the reader's browser evaluates that this code cannot
    moves: bool = False  # floated, positioned or shifted: it may change the order on the page
    dx: float = 0.0  # how far it is shifted from where the flow puts it
    dy: float = 0.0
    pulled: bool = False  # a negative block margin of more than PULL em: it overlaps the box before or after it
    #: SVG text's paint (:data:`SVG_PAINT`): fill paints, fill opacity not 0, stroke paints,
    #: stroke width not 0, stroke opacity not 0
    svg_paint: tuple[bool, bool, bool, bool, bool] = (True, True, False, True, True)
    #: SVG's fill colour (inherited): a colour, "currentcolor", or None for a paint server or none
    svg_fill: tuple[float, float, float, float] | str | None = (0.0, 0.0, 0.0, 1.0)
    _seen: tuple[str | None] | None = None

    def svg_unpainted(self, backdrop: bool = True) -> str | None:
        """Why SVG text in this element is not seen by its paint, or None: neither filled nor
        stroked; or, where nothing but the page lies beneath it (``backdrop`` False: no shape or
        picture was drawn before it in the drawing), filled in the page's colour and not stroked."""
        fill, fill_seen, stroke, width, stroke_seen = self.svg_paint
        if stroke and width and stroke_seen:
            return None
        if not (fill and fill_seen):
            return "SVG text with no fill and no stroke"
        fg = self.color if self.svg_fill == "currentcolor" else self.svg_fill
        if backdrop or not isinstance(fg, tuple) or self.background is None:
            return None
        alpha = fg[3] * self.opacity
        seen = tuple(fg[i] * alpha + self.background[i] * (1 - alpha) for i in range(3))
        if contrast(seen, self.background) < MIN_CONTRAST:
            return "SVG text filled in the colour of the page beneath it"
        return None

    def text_hidden(self, chars: int) -> str | None:
        """Why a text of ``chars`` characters in this element is not seen, or None."""
        if self.x >= 0 and self.y >= 0:  # then the text's length does not matter
            got = self._seen
            if got is None:
                got = self._seen = (self._text_hidden(1),)
            return got[0]
        return self._text_hidden(chars)

    def _text_hidden(self, chars: int) -> str | None:
        if self.visibility != "visible":
            return f"visibility:{self.visibility}"
        size = self.font_size * self.scale
        if size < MIN_FONT:
            return f"font-size {size:.2g}px"
        width = 0.55 * size * max(chars, 1)
        if self.x + width <= 0 or self.y + 1.2 * size <= 0:
            return "off-screen"
        width, paint = self.stroke
        if width >= STROKE_COVERS * size and not self._seen_in(paint or self.color):
            # a stroke is painted over the letters' fill: this wide, in the page's colour, it covers them
            return "a text stroke in the colour of the background over the letters"
        if self.outlined and ((width > 0 and self._seen_in(paint or self.color))
                              or any(self._seen_in(c or self.color) for c in self.shadows)):
            return None
        fg = self.fill or self.color
        alpha = fg[3] * self.opacity
        if alpha <= 0.0:
            return "transparent text"
        if not self._seen_in(fg):
            return "text colour on a background of the same colour"
        return None

    def _seen_in(self, fg: tuple[float, float, float, float]) -> bool:
        """Whether a paint of this colour is seen on the element's background."""
        alpha = fg[3] * self.opacity
        if alpha <= 0.0:
            return False
        if self.background is None:
            return True
        seen = tuple(fg[i] * alpha + self.background[i] * (1 - alpha) for i in range(3))
        return contrast(seen, self.background) >= MIN_CONTRAST


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours."""
    def lum(c: tuple[float, ...]) -> float:
        ch = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c[:3]]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]

    la, lb = lum(a), lum(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


ROOT_STYLE = Style(display="block")
#: a text stroke this wide (of the font size) covers the letters' stems: a stroke is centred on the
#: outline and painted over the fill, and a regular face's stems are about a tenth of the size
STROKE_COVERS = 0.12


# -- style sheets and matching -----------------------------------------------------------------


@dataclass
class Rule:
    selectors: list[tuple[str, tuple[int, int, int], str | None]]  # (lexbor selector, specificity, pseudo-element)
    decls: list[Decl]
    origin: int  # 0 UA, 1 author
    layer: int  # cascade layer, unlayered author rules last
    order: int
    outside: list[str] = field(default_factory=list)  # its declarations outside the reader's model


@dataclass
class Sheets:
    rules: list[Rule] = field(default_factory=list)
    unsure: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    fonts: list[str] = field(default_factory=list)
    layers: dict[str, int] = field(default_factory=dict)
    outside: list[str] = field(default_factory=list)  # at-rules outside the reader's model


UNLAYERED = 1_000_000
_MAX_IMPORT_DEPTH = 4
_PSEUDO_ELEMENT = re.compile(r"::?(before|after|first-line|first-letter|marker|placeholder|selection|backdrop|file-selector-button|-[\w-]+)\s*$", re.I)


def add_sheet(sheets: Sheets, css: str, origin: int, order_base: int = 0, depth: int = 0,
              layer: int = UNLAYERED) -> None:
    """Parse one style sheet into ``sheets``: rules with relevant declarations, flattened
    out of the ``@media``, ``@supports`` and ``@layer`` blocks that apply on a screen."""
    _add_rules(sheets, tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True),
               origin, depth, layer)


def _add_rules(sheets: Sheets, rules: list[Any], origin: int, depth: int, layer: int) -> None:
    for rule in rules:
        if rule.type == "qualified-rule":
            outside: list[str] = []
            decls = declarations(rule.content, outside if origin else None)
            if decls or outside:
                _add_qualified(sheets, rule.prelude, decls, origin, layer, outside)
            _nested(sheets, rule, origin, depth, layer)
        elif rule.type == "at-rule":
            kw = rule.lower_at_keyword
            if kw == "media":
                applies = media_applies(rule.prelude)
                if applies is not None and rule.content and _by_density(rule.prelude) and _hides_text(rule.content):
                    applies = None  # a 2x screen (most laptops and phones) shows other text than this 1x model
                if applies is None:
                    if rule.content and _block_relevant(rule.content):
                        sheets.unsure.append(f"@media {tinycss2.serialize(rule.prelude).strip()}")
                elif applies and rule.content is not None:
                    _add_rules(sheets, _parse_block(rule.content), origin, depth, layer)
            elif kw == "supports" and rule.content is not None:
                _add_rules(sheets, _parse_block(rule.content), origin, depth, layer)
            elif kw == "layer":
                names = [t.value for t in rule.prelude if t.type == "ident"]
                ids = [sheets.layers.setdefault(n, len(sheets.layers)) for n in names] or [len(sheets.layers) + 100_000]
                if rule.content is not None:
                    _add_rules(sheets, _parse_block(rule.content), origin, depth, ids[-1])
            elif kw == "import":
                url = _url(rule.prelude)
                css = data_url_text(url) if url else None
                if css is not None and depth < _MAX_IMPORT_DEPTH:
                    add_sheet(sheets, css[1], origin, depth=depth + 1, layer=layer)
                elif url is not None:
                    sheets.external.append(url[:200])
            elif kw == "font-face" and rule.content is not None:
                src = [d for d in tinycss2.parse_declaration_list(rule.content, True, True)
                       if d.type == "declaration" and d.lower_name == "src"]
                if src and "url(" in tinycss2.serialize(src[0].value).lower():
                    sheets.fonts.append(tinycss2.serialize(src[0].value).strip()[:80])
            elif kw in ("container", "scope", "starting-style") and rule.content and _block_relevant(rule.content):
                sheets.unsure.append(f"@{kw} rules")
            elif (why := model_css.at_rule_outside(kw)) is not None and why not in sheets.outside:
                sheets.outside.append(why)


def _nested(sheets: Sheets, rule: Any, origin: int, depth: int, layer: int) -> None:
    """CSS nesting: a rule inside a rule applies; this code does not resolve ``&``."""
    for item in tinycss2.parse_blocks_contents(rule.content, skip_comments=True, skip_whitespace=True):
        if item.type in ("qualified-rule", "at-rule") and _block_relevant(item.content or []):
            sheets.unsure.append("nested CSS rules")
            return


def _parse_block(content: list[Any]) -> list[Any]:
    return [r for r in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True)
            if r.type in ("qualified-rule", "at-rule")] or tinycss2.parse_rule_list(content, True, True)


def _block_relevant(content: list[Any]) -> bool:
    text = tinycss2.serialize(content).lower()
    return any(p in text for p in ("display", "visib", "font", "opacity", "color", "clip", "position",
                                   "left", "top", "indent", "margin", "transform", "translate", "scale",
                                   "width", "height", "content", "order", "flex", "direction", "bidi",
                                   "float", "grid", "filter", "gap", "fill", "stroke", "--"))


_DENSITY = re.compile(r"resolution|device-pixel-ratio|dppx|\bdpi\b|dpcm", re.I)
_HIDES = re.compile(r"display|visib|opacity|content|font|color|clip|filter|transform|position|indent|order", re.I)


def _by_density(prelude: list[Any]) -> bool:
    """Whether a media query turns on the screen's pixel density, which differs between readers."""
    return bool(_DENSITY.search(tinycss2.serialize(prelude)))


def _hides_text(content: list[Any]) -> bool:
    """Whether a block sets a property that may hide, show, move or change words (not only sizes or
    pictures, as a block for high-density screens usually does: ``background-image: url(logo@2x.png)``)."""
    names = [d.lower_name for d in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True)
             if d.type == "declaration"]
    rules = [r for r in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True)
             if r.type == "qualified-rule"]
    for r in rules:
        names += [d.lower_name for d in tinycss2.parse_declaration_list(r.content, True, True) if d.type == "declaration"]
    return any(_HIDES.search(n) for n in names)


def _url(prelude: list[Any]) -> str | None:
    for t in prelude:
        if t.type == "url":
            return t.value
        if t.type == "string":
            return t.value
        if t.type == "function" and t.lower_name == "url":
            s = [a for a in t.arguments if a.type == "string"]
            return s[0].value if s else None
    return None


def media_applies(prelude: list[Any]) -> bool | None:
    """Whether a media query list matches a desktop screen (1280 x 800, one device pixel per CSS
    pixel, light scheme, a mouse); None when it turns on a feature this code does not know. (A
    block that turns on the pixel density and hides, shows or moves words is unsure too: readers'
    screens are 1x and 2x alike; see :func:`_add_rules`.)"""
    text = tinycss2.serialize(prelude).strip().lower()
    if not text:
        return True
    unknown = False
    for query in text.split(","):
        q = query.strip()
        neg = q.startswith("not ")
        q = re.sub(r"^(not|only)\s+", "", q)
        ok: bool | None = True
        for part in re.split(r"\s+and\s+", q):
            got = _media_part(part.strip())
            if got is False:
                ok = False
                break
            if got is None:
                ok = None
        if ok is None:
            unknown = True
        elif ok != neg:
            return True
    return None if unknown else False


def _media_part(part: str) -> bool | None:
    if part in ("all", "screen"):
        return True
    if part in ("print", "speech", "tv", "handheld", "projection", "braille", "embossed", "aural", "tty"):
        return False
    m = re.fullmatch(r"\(\s*(min-|max-)?(width|height|device-width|device-height)\s*:\s*([\d.]+)(px|em|rem)?\s*\)", part)
    if m:
        v = float(m.group(3)) * (ROOT_FONT if m.group(4) in ("em", "rem") else 1.0)
        have = VIEW_W if "width" in m.group(2) else VIEW_H
        return have >= v if m.group(1) == "min-" else have <= v if m.group(1) == "max-" else have == v
    m = re.fullmatch(r"\(\s*(-webkit-)?(min-|max-)?(device-pixel-ratio|resolution)\s*:\s*([\d.]+)(dppx|dpi|x)?\s*\)", part)
    if m:
        v = float(m.group(4)) / (96.0 if m.group(5) == "dpi" else 1.0)
        return v <= 1.0 if m.group(2) == "min-" else v >= 1.0 if m.group(2) == "max-" else v == 1.0
    m = re.fullmatch(r"\(\s*(prefers-color-scheme|orientation|hover|pointer|any-hover|any-pointer|"
                     r"prefers-reduced-motion|color|monochrome)\s*(?::\s*([\w-]+))?\s*\)", part)
    if m:
        return m.group(1) != "monochrome" and (m.group(2) is None or m.group(2) in (
            "light", "landscape", "hover", "fine", "no-preference"))
    return None


def data_url_text(url: str) -> tuple[str, str] | None:
    """(media type, decoded text) of a ``data:`` URL, or None for any other URL."""
    if url[:5].lower() != "data:" or "," not in url:
        return None
    meta, _, payload = url[5:].partition(",")
    parts = [p.strip().lower() for p in meta.split(";")]
    mime = parts[0] or "text/plain"
    raw = urllib.parse.unquote_to_bytes(payload)
    if "base64" in parts[1:]:
        try:
            raw = base64.b64decode(re.sub(rb"\s+", b"", raw) + b"==", validate=False)
        except ValueError:
            return None
    charset = next((p[8:] for p in parts if p.startswith("charset=")), "utf-8")
    try:
        text = raw.decode(charset, "replace")
    except LookupError:
        text = raw.decode("utf-8", "replace")
    return mime, text


def _add_qualified(sheets: Sheets, prelude: list[Any], decls: list[Decl], origin: int, layer: int,
                   outside: list[str] | None = None) -> None:
    import cssselect2.parser

    sels: list[tuple[str, tuple[int, int, int], str | None]] = []
    try:
        parsed = list(cssselect2.parser.parse(prelude))
    except cssselect2.parser.SelectorError:
        text = tinycss2.serialize(prelude).strip()
        if "|" in text and "||" not in text:  # a namespace prefix: lexbor ignores it, so must we
            sheets.unsure.append(f"selector {text[:80]}")
        return  # an invalid selector list drops the whole rule, as in a browser
    texts = _split_selector_list(prelude)
    if len(texts) != len(parsed):
        sheets.unsure.append(f"selector {tinycss2.serialize(prelude).strip()[:80]}")
        return
    for sel, text in zip(parsed, texts, strict=True):
        pseudo = sel.pseudo_element
        if pseudo:
            text = _PSEUDO_ELEMENT.sub("", text).strip() or "*"
            if pseudo not in ("before", "after", "marker"):
                if pseudo in ("first-letter", "first-line") and decls and origin:
                    why = f"selector ::{pseudo}"
                    if why not in sheets.outside:
                        sheets.outside.append(why)
                continue
        sels.append((text, sel.specificity, pseudo))
    sheets.rules.append(Rule(sels, decls, origin, layer, len(sheets.rules), outside or []))


def _split_selector_list(prelude: list[Any]) -> list[str]:
    out: list[list[Any]] = [[]]
    for t in prelude:
        if t.type == "literal" and t.value == ",":
            out.append([])
        else:
            out[-1].append(t)
    return [tinycss2.serialize(_strip_edges(p)).strip() for p in out]


def _strip_edges(tokens: list[Any]) -> list[Any]:
    return [t for t in tokens if t.type != "comment"]


_UA: Sheets | None = None


def ua_sheets() -> Sheets:
    global _UA
    if _UA is None:
        s = Sheets()
        add_sheet(s, UA_SHEET, origin=0)
        _UA = s
    return _UA


# -- the cascade ----------------------------------------------------------------------------------

#: (important, origin, layer, specificity, order): sorted ascending, the last declaration wins.
Key = tuple[int, int, int, tuple[int, int, int], int]
STYLE_ATTR_SPECIFICITY = (1 << 20, 0, 0)


def key_of(important: bool, origin: int, layer: int, spec: tuple[int, int, int], order: int) -> Key:
    if important:
        return (1, -origin, -layer, spec, order)
    return (0, origin, layer, spec, order)


_SHORTHANDS = frozenset({"font", "margin", "margin-block", "margin-inline", "padding", "inset", "flex-flow",
                         "background", "overflow",
                         "-webkit-text-stroke", "grid-area", "grid-row", "grid-column", "list-style"})


@functools.lru_cache(maxsize=1)
def _initial_list_style_type() -> Any:
    return tinycss2.parse_component_value_list("disc")[0]


def _expand(name: str, value: tuple[Any, ...]) -> list[tuple[str, tuple[Any, ...]]]:
    """Longhands of the shorthands that matter; values as tokens."""
    w = _words(value)
    if _ident(value) in _KEYWORDS:
        longs = {"font": ["font-size", "font-family"], "margin": ["margin-left", "margin-top", "margin-bottom"],
                 "margin-block": ["margin-block-start", "margin-block-end"], "margin-inline": ["margin-inline-start"],
                 "padding": ["padding-left", "padding-top", "padding-bottom"],
                 "inset": ["top", "right", "bottom", "left"], "flex-flow": ["flex-direction", "flex-wrap"],
                 "background": ["background-color"], "overflow": ["overflow-x", "overflow-y"],
                 "-webkit-text-stroke": ["-webkit-text-stroke-width", "-webkit-text-stroke-color"],
                 "list-style": ["list-style-type"]}.get(name, ["grid-placed"])
        return [(n, value) for n in longs]
    if name == "list-style":  # the type is its string, its counter style or none; an image is no word
        marker = [t for t in w if t.type == "string"] or [
            t for t in w if t.type == "ident" and t.lower_value not in ("inside", "outside")]
        # a shorthand sets every longhand: without a type it resets the type to its initial disc
        return [("list-style-type", (marker[0] if marker else _initial_list_style_type(),))]
    if name == "font":
        size = _font_size_of(w)
        if size is None:
            return []
        return [("font-size", (size,)), ("font-family", _family_after(value, size))]
    if name == "padding":
        if not w:
            return []
        return [("padding-left", (w[3] if len(w) > 3 else w[1] if len(w) > 1 else w[0],)), ("padding-top", (w[0],)),
                ("padding-bottom", (w[2] if len(w) > 2 else w[0],))]
    if name in ("margin-block", "margin-inline"):  # flow-relative: start (and end) of the block or the line
        if not w:
            return []
        if name == "margin-inline":
            return [("margin-inline-start", (w[0],))]
        return [("margin-block-start", (w[0],)), ("margin-block-end", (w[1] if len(w) > 1 else w[0],))]
    if name in ("margin", "inset"):
        if not w:
            return []
        top, right = w[0], w[1] if len(w) > 1 else w[0]
        bottom = w[2] if len(w) > 2 else top
        left = w[3] if len(w) > 3 else right
        if name == "margin":
            return [("margin-left", (left,)), ("margin-top", (top,)), ("margin-bottom", (bottom,))]
        return [("top", (top,)), ("right", (right,)), ("bottom", (bottom,)), ("left", (left,))]
    if name == "flex-flow":
        out = []
        for t in w:
            if t.type == "ident" and t.lower_value in ("row", "row-reverse", "column", "column-reverse"):
                out.append(("flex-direction", (t,)))
            elif t.type == "ident" and t.lower_value in ("wrap", "nowrap", "wrap-reverse"):
                out.append(("flex-wrap", (t,)))
        return out
    if name == "background":
        out = [("background-image", (w[0],))] if any(
            t.type in ("url",) or (t.type == "function" and "gradient" in t.lower_name) or
            (t.type == "function" and t.lower_name in ("url", "image-set", "image", "cross-fade", "element"))
            for t in w) else []
        for t in w:
            try:
                c = _color((t,))
            except Unsure:
                c = None
            if c is not None and t.type != "number":
                out.append(("background-color", (t,)))
        return out
    if name == "overflow":
        if not w:
            return []
        return [("overflow-x", (w[0],)), ("overflow-y", (w[1] if len(w) > 1 else w[0],))]
    if name == "-webkit-text-stroke":
        dims = [t for t in w if t.type in ("dimension", "number")]
        rest = [t for t in w if t.type not in ("dimension", "number")]
        return ([("-webkit-text-stroke-width", (dims[0],))] if dims else []) + (
            [("-webkit-text-stroke-color", (rest[0],))] if rest else [])
    return [("grid-placed", value)]  # grid-area, grid-row, grid-column


def _family_after(value: tuple[Any, ...], size: Any) -> tuple[Any, ...]:
    """The family list of a ``font`` shorthand: what follows its size and line height."""
    rest = list(value)
    at = next((i for i, t in enumerate(rest) if t is size), None)
    if at is None:
        return ()
    rest = rest[at + 1:]
    solid = [i for i, t in enumerate(rest) if t.type not in ("whitespace", "comment")]
    if solid and rest[solid[0]].type == "literal" and rest[solid[0]].value == "/":
        rest = rest[solid[1] + 1:] if len(solid) > 1 else []
    return tuple(rest)


def symbol_font(value: tuple[Any, ...]) -> str | None:
    """The first family of a font-family value when it is a symbol font (:mod:`auditor.extract.model`), else None.
    A browser draws with the first family the reader's machine has; a symbol font is the first
    one that matters, since the machines that have it are the ones it was written for."""
    name: list[str] = []
    for t in value:
        if t.type == "literal" and t.value == ",":
            break
        if t.type == "string":
            name = [t.value]
            break
        if t.type in ("ident", "number"):
            name.append(str(t.value) if t.type == "ident" else t.representation)
    first = " ".join(" ".join(name).split()).lower()
    return first if symbol_word_font(first) else None


def _font_size_of(w: list[Any]) -> Any:
    for i, t in enumerate(w):
        if t.type == "literal" and t.value == "/" and i:
            return w[i - 1]
    for t in w:
        if t.type in ("dimension", "percentage") or (t.type == "number" and t.value == 0):
            return t
        if t.type == "ident" and (t.lower_value in _FONT_KEYWORDS or t.lower_value in ("smaller", "larger")):
            return t
        if t.type == "function" and t.lower_name in ("calc", "min", "max", "clamp"):
            return t
    return None


def _subst(tokens: tuple[Any, ...], custom: dict[str, tuple[Any, ...]], depth: int = 0) -> tuple[Any, ...] | None:
    """``tokens`` with every var() replaced; None when a var() has no value and no fallback
    (the declaration is then invalid at computed-value time)."""
    if depth > 16:
        raise Unsure("var() nested or cyclic")
    out: list[Any] = []
    for t in tokens:
        if t.type == "function" and t.lower_name == "var":
            args = list(t.arguments)
            name = next((a.value for a in args if a.type == "ident"), None)
            comma = next((i for i, a in enumerate(args) if a.type == "literal" and a.value == ","), None)
            value = custom.get(name) if name else None
            if value is None and comma is not None:
                value = tuple(args[comma + 1 :])
            if value is None:
                return None
            got = _subst(tuple(value), custom, depth + 1)
            if got is None:
                return None
            out.extend(got)
        elif t.type == "function" and _has_var(t.arguments):
            inner = _subst(tuple(t.arguments), custom, depth + 1)
            if inner is None:
                return None
            out.append(tinycss2.ast.FunctionBlock(t.source_line, t.source_column, t.name, list(inner)))
        else:
            out.append(t)
    return tuple(_strip(out))


def compute(parent: Style, entries: list[tuple[Key, int, Decl]], *, pseudo: bool = False) -> Style:
    """The computed style of an element (or a ``::before``/``::after``) from its parent's and the
    declarations that apply to it, each as (cascade key, origin, declaration)."""
    spec: dict[str, tuple[int, tuple[Any, ...]]] = {}
    custom = parent.custom
    unsure: list[str] = []
    ua: dict[str, tuple[Any, ...]] = {}
    for _key, origin, d in sorted(entries, key=lambda e: e[0]):
        if d.name.startswith("--"):
            if custom is parent.custom:
                custom = dict(parent.custom)
            try:
                value = _subst(d.value, custom) if _has_var(d.value) else d.value
            except Unsure as e:
                unsure.append(str(e))
                value = None
            if value is None:
                custom.pop(d.name, None)
            else:
                custom[d.name] = value
            continue
        value = d.value
        if _has_var(value):
            try:
                got = _subst(value, custom)
            except Unsure as e:
                unsure.append(str(e))
                continue
            value = got if got is not None else (tinycss2.ast.IdentToken(0, 0, "unset"),)
            if d.name not in _SHORTHANDS and _ident(value) not in _KEYWORDS and not _valid(d.name, value):
                value = (tinycss2.ast.IdentToken(0, 0, "unset"),)
        pairs = _expand(d.name, value) if d.name in _SHORTHANDS else [(d.name, value)]
        for name, v in pairs:
            if origin == 0:
                ua[name] = v
            spec[name] = (origin, v)
    s = Style(custom=custom)
    p = parent

    def get(name: str) -> tuple[Any, ...] | None:
        """The specified value, None for the property's default (inherit or initial)."""
        got = spec.get(name)
        if got is None:
            return None
        kw = _ident(got[1])
        if kw in ("revert", "revert-layer"):
            if got[0] == 0 or name not in ua:
                return None if name in _INHERITED else (tinycss2.ast.IdentToken(0, 0, "initial"),)
            return ua[name]
        if kw == "unset" or (kw == "inherit" and name in _INHERITED):
            return None
        return got[1]

    def initial(v: tuple[Any, ...] | None) -> bool:
        return v is not None and _ident(v) in ("initial", "inherit")

    try:
        _compute_into(s, p, get, initial, spec, pseudo)
    except Unsure as e:
        unsure.append(str(e))
    s.unsure = "; ".join(unsure) or parent.unsure
    return s


def _compute_into(s: Style, p: Style, get: Any, initial: Any, spec: dict[str, Any], pseudo: bool) -> None:
    if pseudo:
        s.content = get("content")
    # inherited
    v = get("quotes")
    s.quotes = p.quotes if v is None else None if initial(v) or _ident(v) == "auto" else tuple(
        t.value for t in _words(v) if t.type == "string")
    v = get("list-style-type")
    s.marker = p.marker if v is None else next((t.value for t in _words(v) if t.type == "string"), None)
    v = get("visibility")
    s.visibility = p.visibility if v is None else ("visible" if initial(v) else _ident(v) or "visible")
    v = get("font-family")
    s.symbol_font = p.symbol_font if v is None else None if initial(v) else symbol_font(v)
    v = get("line-height")
    s.flat_lines = p.flat_lines if v is None else (not initial(v) and _flat(v, p.font_size))
    v = get("direction")
    s.direction = p.direction if v is None else ("ltr" if initial(v) else _ident(v) or "ltr")
    v = get("white-space")
    s.white_space = p.white_space if v is None else (_ident(v) or " ".join(
        t.lower_value for t in _words(v) if t.type == "ident") or "normal")
    s.font_size = p.font_size if (v := get("font-size")) is None else _font_size(v, p.font_size)
    v = get("color")
    if v is None:
        s.color = p.color
    else:
        c = (0.0, 0.0, 0.0, 1.0) if initial(v) else _color(v)
        s.color = p.color if c is None or c == "currentcolor" else c  # type: ignore[assignment]
    v = get("-webkit-text-fill-color")
    if v is None:
        s.fill = p.fill
    else:
        c = None if initial(v) else _color(v)
        s.fill = None if c is None or c == "currentcolor" else c  # type: ignore[assignment]
    stroke = get("-webkit-text-stroke-width")
    stroke_colour = get("-webkit-text-stroke-color")
    shadow = get("text-shadow")
    s.outlined, s.stroke, s.shadows = p.outlined, p.stroke, p.shadows
    if stroke is not None:
        w = _words(stroke)
        s.stroke = ((length(w[0], s.font_size) or 0.0) if w and not initial(stroke) else 0.0, s.stroke[1])
    if stroke_colour is not None:
        c = None if initial(stroke_colour) else _color(stroke_colour)
        s.stroke = (s.stroke[0], c if isinstance(c, tuple) else None)
    if shadow is not None:
        s.shadows = () if _ident(shadow) in ("none", "initial") else _shadow_colours(shadow)
    s.outlined = s.stroke[0] > 0 or bool(s.shadows)
    s.svg_paint = _svg_paint(p, get)
    s.svg_fill = _svg_fill(p, get("fill"))
    # not inherited
    v = get("display")
    if v is not None and not initial(v):
        s.display = " ".join(t.lower_value for t in _words(v) if t.type == "ident") or "inline"
        s.display_set = spec["display"][0] == 1
    v = get("position")
    s.position = _ident(v) or "static" if v is not None else "static"
    v = get("float")
    s.floating = (_ident(v) or "none") if v is not None else "none"
    if s.position in ("absolute", "fixed"):
        s.floating = "none"
    v = get("z-index")
    z = _words(v) if v is not None else []
    s.sunk = p.sunk or bool(len(z) == 1 and z[0].type == "number" and z[0].value < 0 and (
        s.position != "static" or p.display.split(" ")[-1] in ("flex", "grid", "inline-flex", "inline-grid")))
    v = get("unicode-bidi")
    s.unicode_bidi = (_ident(v) or "normal") if v is not None else "normal"
    v = get("order")
    w = _words(v) if v is not None else []
    s.order = int(w[0].value) if len(w) == 1 and w[0].type == "number" and w[0].is_integer else 0
    v = get("flex-direction")
    s.flex_direction = (_ident(v) or "row") if v is not None else "row"
    v = get("flex-wrap")
    s.flex_wrap = (_ident(v) or "nowrap") if v is not None else "nowrap"
    v = get("column-gap") or get("gap")  # gap: row-gap column-gap, or one value for both
    w = _words(v) if v is not None else []
    if w:
        try:
            s.gap = max(0.0, length(w[-1] if get("column-gap") is None and len(w) > 1 else w[0], s.font_size) or 0.0)
        except Unsure:
            s.gap = 1.0  # a gap we cannot measure still parts the items

    v = get("grid-auto-flow")
    s.grid_flow = " ".join(t.lower_value for t in _words(v) if t.type == "ident") if v is not None else "row"
    s.grid_placed = any(get(n) is not None and _ident(get(n)) not in ("auto", "initial") for n in (
        "grid-placed", "grid-row-start", "grid-row-end", "grid-column-start", "grid-column-end"))
    # what hides the element and all it holds
    em = s.font_size
    opacity = 1.0
    v = get("opacity")
    if v is not None and not initial(v):
        n = _number(v)
        opacity = 1.0 if n is None else min(max(n, 0.0), 1.0)
    v = get("filter")
    if v is not None:
        for t in _words(v):
            if t.type == "function" and t.lower_name == "opacity":
                n = _number(t.arguments)
                opacity *= 1.0 if n is None else min(max(n, 0.0), 1.0)
    s.opacity = p.opacity * opacity
    bg = get("background-color")
    image = get("background-image")
    s.background = p.background
    if image is not None and not initial(image):
        s.background = None
    elif bg is not None and not initial(bg):
        c = _color(bg)
        if isinstance(c, tuple) and c[3] > 0 and p.background is not None:
            a = c[3]
            s.background = tuple(c[i] * a + p.background[i] * (1 - a) for i in range(3))  # type: ignore[assignment]
        elif isinstance(c, tuple) and c[3] > 0:
            s.background = c[:3] if c[3] >= 1 else None
    s.scale = p.scale
    v = get("zoom")
    if v is not None:
        n = _number(v)
        if n is not None and n > 0:
            s.scale *= n
    sx, tx, ty = _transform(get("transform"), em), 0.0, 0.0
    scale, tx, ty = sx
    v = get("scale")
    if v is not None:
        nums = [t for t in _words(v) if t.type in ("number", "percentage")]
        if nums:
            scale *= min(abs(t.value / (100 if t.type == "percentage" else 1)) for t in nums)
    v = get("translate")
    if v is not None:
        w = _words(v)
        if w:
            tx += length(w[0], em, 100.0) or 0.0
        if len(w) > 1:
            ty += length(w[1], em, 100.0) or 0.0
    s.scale *= scale
    s.x, s.y = p.x + tx, p.y + ty
    s.dx, s.dy = tx, ty  # moved off its place in the flow: by transforms and offsets (below)
    indent = 0.0  # padding and margins that indent in the flow: they move nothing out of order
    # the flow-relative margins are the physical ones of horizontal text (other writing modes are outside the model)
    for name, axis in (("margin-left", "x"), ("margin-inline-start", "x"), ("margin-top", "y"),
                       ("margin-block-start", "y"), ("text-indent", "x"), ("padding-left", "x")):
        v = get(name)
        if v is not None and _words(v):
            d = length(_words(v)[0], em, VIEW_W)
            if d is None:
                continue
            if d < 0 and name != "padding-left":
                setattr(s, axis, getattr(s, axis) + d)
            elif axis == "x":
                indent += d
    # a block margin more negative than a line pulls the box (or the one after it) up over the text before it:
    # blocks stored in one order are drawn in another, which the flow's order does not say
    for name in ("margin-top", "margin-block-start", "margin-bottom", "margin-block-end"):
        v = get(name)
        d = length(_words(v)[0], em, VIEW_W) if v is not None and _words(v) else None
        if d is not None and d < -PULL * em:
            s.pulled = True
    if s.position != "static":
        lengths = {n: (length(_words(get(n))[0], em, VIEW_W if n in ("left", "right") else VIEW_H)
                       if get(n) is not None and _words(get(n)) and _ident(get(n)) != "auto" else None)
                   for n in ("left", "top", "right", "bottom")}
        s.left, s.top = lengths["left"], lengths["top"]
        if lengths["left"] is not None:
            s.x += lengths["left"]
            s.dx += lengths["left"]
        elif lengths["right"] is not None and s.position in ("absolute", "fixed") and lengths["right"] >= VIEW_W:
            s.hidden = "off-screen (right)"
        if lengths["top"] is not None:
            s.y += lengths["top"]
            s.dy += lengths["top"]
        elif lengths["bottom"] is not None and s.position in ("absolute", "fixed") and lengths["bottom"] >= VIEW_H:
            s.hidden = "off-screen (bottom)"
        if s.position == "fixed" and (s.x >= VIEW_W or s.y >= VIEW_H):
            s.hidden = "off-screen (fixed)"
    s.moves = s.floating != "none" or s.position != "static" or s.dx != 0 or s.dy != 0 or s.pulled
    s.width, s.height = _declared(get("width"), em), _declared(get("height"), em)
    s.x += indent
    if s.display == "none":
        s.hidden = "display:none"
    elif _ident(get("content-visibility") or ()) == "hidden":
        s.hidden = "content-visibility:hidden"
    elif s.opacity <= 0.0:
        s.hidden = "opacity:0"
    elif s.scale <= 0.0:
        s.hidden = "scaled to nothing"
    elif s.position in ("absolute", "fixed") and _clip_empty(get("clip"), em):
        s.hidden = "clip to nothing"
    elif _clip_path_empty(get("clip-path"), em):
        s.hidden = "clip-path to nothing"
    elif not pseudo and _zero_box(s, get, em):
        s.hidden = "zero size with overflow hidden"


def _shadow_colours(v: tuple[Any, ...]) -> tuple[tuple[float, float, float, float] | None, ...]:
    """The colour of each shadow of a text-shadow list (None: the text's own colour)."""
    out: list[tuple[float, float, float, float] | None] = []
    for part in _split_commas(v):
        colour = None
        for t in _words(part):
            if t.type in ("dimension", "number"):
                continue
            try:
                c = _color((t,))
            except Unsure:
                c = None
            if isinstance(c, tuple):
                colour = c
        if _words(part):
            out.append(colour)
    return tuple(out)


def _paints(v: tuple[Any, ...] | None) -> bool | None:
    """Whether an SVG paint value paints (a colour, ``currentcolor`` or a paint server), None for
    the parent's. A colour with zero alpha paints nothing."""
    if v is None:
        return None
    kw = _ident(v)
    if kw in ("none", "transparent"):
        return False
    if kw in ("initial", "inherit"):
        return None
    try:
        c = _color(v)
    except Unsure:
        return True
    return not (isinstance(c, tuple) and c[3] <= 0)


def _svg_fill(p: Style, v: tuple[Any, ...] | None) -> tuple[float, float, float, float] | str | None:
    """The fill colour of SVG text (see :attr:`Style.svg_fill`)."""
    if v is None:
        return p.svg_fill
    kw = _ident(v)
    if kw == "initial":
        return (0.0, 0.0, 0.0, 1.0)
    if kw == "inherit":
        return p.svg_fill
    try:
        c = _color(v)
    except Unsure:
        return None
    return c if isinstance(c, tuple) or c == "currentcolor" else None


def _svg_paint(p: Style, get: Any) -> tuple[bool, bool, bool, bool, bool]:
    """SVG's paint of text, each part inherited on its own: (the fill paints, its opacity is not
    0, the stroke paints, its width is not 0, its opacity is not 0)."""
    out = list(p.svg_paint)
    for i, name in enumerate(SVG_PAINT):
        v = get(name)
        if v is None:
            continue
        if name in ("fill", "stroke"):
            got = _paints(v)
        elif _ident(v) in ("initial", "inherit"):
            got = None
        else:
            n = _number(v)
            if n is None:
                w = _words(v)
                n = w[0].value if len(w) == 1 and w[0].type in ("dimension", "percentage") else None
            got = None if n is None else n > 0
        out[i] = ROOT_STYLE_PAINT[i] if got is None and _ident(v) == "initial" else (out[i] if got is None else got)
    return out[0], out[1], out[2], out[3], out[4]


def _font_size(v: tuple[Any, ...], parent: float) -> float:
    w = _words(v)
    if not w:
        return parent
    t = w[0]
    if t.type == "ident":
        if t.lower_value in _FONT_KEYWORDS:
            return _FONT_KEYWORDS[t.lower_value]
        if t.lower_value == "smaller":
            return parent / 1.2
        if t.lower_value == "larger":
            return parent * 1.2
        if t.lower_value == "initial":
            return ROOT_FONT
        return parent
    got = length(t, parent, parent)
    return parent if got is None else max(got, 0.0)


def _transform(v: tuple[Any, ...] | None, em: float) -> tuple[float, float, float]:
    """(scale, translate x, translate y) of a transform list; rotations and skews ignored."""
    scale, tx, ty = 1.0, 0.0, 0.0
    if v is None:
        return scale, tx, ty
    for t in _words(v):
        if t.type != "function":
            continue
        args = [a[0] for a in _split_commas(t.arguments) if a]
        if len(args) == 1 and len(_words(t.arguments)) > 1 and "," not in tinycss2.serialize(t.arguments):
            args = _words(t.arguments)
        name = t.lower_name
        nums = [a.value / (100 if a.type == "percentage" else 1) for a in args if a.type in ("number", "percentage")]
        if name in ("translate", "translate3d", "translatex"):
            if args:
                tx += length(args[0], em, 100.0) or 0.0
            if name != "translatex" and len(args) > 1:
                ty += length(args[1], em, 100.0) or 0.0
        elif name == "translatey" and args:
            ty += length(args[0], em, 100.0) or 0.0
        elif name in ("scale", "scale3d", "scalex", "scaley") and nums:
            scale *= min(abs(n) for n in nums[:2])
        elif name == "matrix" and len(nums) == 6:
            scale *= min(abs(nums[0]) + abs(nums[1]), abs(nums[2]) + abs(nums[3]))
            tx += nums[4]
            ty += nums[5]
    return scale, tx, ty


def _clip_empty(v: tuple[Any, ...] | None, em: float) -> bool:
    if v is None:
        return False
    w = _words(v)
    if len(w) != 1 or w[0].type != "function" or w[0].lower_name != "rect":
        return False
    vals = [a for a in _words(w[0].arguments) if not (a.type == "literal" and a.value == ",")]
    if len(vals) != 4 or any(a.type == "ident" for a in vals):
        return False
    top, right, bottom, left = (length(a, em) or 0.0 for a in vals)
    return bottom - top <= 1 or right - left <= 1


def _clip_path_empty(v: tuple[Any, ...] | None, em: float) -> bool:
    if v is None:
        return False
    for t in _words(v):
        if t.type != "function":
            continue
        args = [a for a in _words(t.arguments) if not (a.type == "literal" and a.value == ",")]
        if t.lower_name == "inset" and args:
            vals = [a.value if a.type == "percentage" else None for a in args[:4]]
            if all(x is not None for x in vals):
                top, right = vals[0], vals[1] if len(vals) > 1 else vals[0]
                bottom = vals[2] if len(vals) > 2 else top
                left = vals[3] if len(vals) > 3 else right
                return top + bottom >= 100 or left + right >= 100  # type: ignore[operator]
        if t.lower_name in ("circle", "ellipse") and args and args[0].type in ("number", "dimension", "percentage"):
            return (length(args[0], em, 100.0) or 0.0) <= 0
        if t.lower_name == "polygon":
            pts = tinycss2.serialize(t.arguments).split(",")
            return len({p.strip() for p in pts}) <= 2
    return False


def _declared(v: tuple[Any, ...] | None, em: float) -> float | None:
    if v is None or not _words(v):
        return None
    try:
        return length(_words(v)[0], em, None)
    except Unsure:
        return None


def alt_fits(alt: str, width: float, height: float, font_size: float) -> bool:
    """Whether a broken image's box of this size can show its alt text: a browser draws the alt
    inside the box, clipped to it. The reader and the rendered reading use this one estimate,
    so that both leave out the alt of an icon whose box shows a letter or two of it."""
    lines = int(height // (1.2 * font_size))
    return lines >= 1 and 0.55 * font_size * len(alt) <= width * lines


def _zero_box(s: Style, get: Any, em: float) -> bool:
    """A box of (nearly) no width or height whose overflow is hidden: inline boxes have no size."""
    boxed = s.display not in ("inline", "contents") or s.position in ("absolute", "fixed") or s.floating != "none"
    if not boxed:
        return False
    hidden = ("hidden", "clip")
    ox, oy = _ident(get("overflow-x") or ()), _ident(get("overflow-y") or ())
    if ox not in hidden and oy not in hidden:
        return False

    def small(name: str) -> bool:
        v = get(name)
        if v is None or not _words(v):
            return False
        got = length(_words(v)[0], em, None)
        return got is not None and got <= 1.0

    # a box of auto height is as tall as its lines: of line-height about 0, none (its padding aside)
    flat = s.flat_lines and get("height") is None and get("min-height") is None and not any(
        (length(_words(get(n))[0], em, None) or 0.0) > 1.0 for n in ("padding-top", "padding-bottom")
        if get(n) is not None and _words(get(n)))
    return (oy in hidden and (small("height") or small("max-height") or flat)) or (
        ox in hidden and (small("width") or small("max-width")))


def _flat(v: tuple[Any, ...], em: float) -> bool:
    """Whether a line-height is about nothing (at most 1 px, or 5% of the font)."""
    w = _words(v)
    if len(w) != 1:
        return False
    t = w[0]
    if t.type == "number":
        return float(t.value) <= 0.05
    if t.type == "percentage":
        return float(t.value) <= 5
    try:
        got = length(t, em, None)
    except Unsure:
        return False
    return got is not None and got <= 1.0
