"""The CSS the HTML reader models (:mod:`auditor.extract.css`): properties whose effect on which
words are drawn, and in which order, it computes (:data:`COMPUTED`), properties that draw no
word, hide none and move none (:data:`INERT`), and for some of them the values it models
(:func:`outside`). A property or value not listed is outside the model.

Word's HTML (``mso-*`` properties), Aspose's (``-aw-*``), Inkscape's (``-inkscape-*``) and the
SEC's inline XBRL (``-sec-ix-hidden``, ``-sec-extract``) are read by no browser, so those are
inert too, as are Internet Explorer's ``-ms-filter`` and ``progid:`` filters and Apple Mail's
``-webkit-nbsp-mode``, as is ``align`` (a presentational attribute that HTML converters write as a property).
SVG's paint properties (``fill``, ``stroke`` and their opacities and width) are computed: SVG text
with neither a fill nor a stroke is not drawn. SVG's other paint details (joins, markers, stop
colours, ``text-anchor``) hide and move no word; ``baseline-shift`` is modelled up to a line's
height (sub- and superscripts).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import tinycss2

#: Properties that can hide, move or change the words drawn: modelled for the values :func:`_value`
#: allows. :mod:`auditor.extract.css` computes most (its ``RELEVANT``); the others are modelled
#: only in values that change no word (``text-transform: uppercase``: audits ignore case).
COMPUTED = frozenset("""
display visibility content-visibility font-size font opacity filter color -webkit-text-fill-color
-webkit-text-stroke -webkit-text-stroke-width text-shadow background-color background clip clip-path
position left top right bottom inset text-indent margin margin-left margin-top transform translate
scale width height max-width max-height overflow overflow-x overflow-y content order flex-direction
flex-flow flex-wrap direction unicode-bidi float grid-area grid-row grid-column grid-row-start
grid-row-end grid-column-start grid-column-end grid-auto-flow white-space zoom background-image
padding padding-left gap column-gap quotes list-style list-style-type text-transform font-variant
font-variant-caps letter-spacing word-spacing writing-mode caption-side background-clip margin-bottom margin-block
margin-block-start margin-block-end margin-inline margin-inline-start
-webkit-background-clip mix-blend-mode mask mask-image -webkit-mask -webkit-mask-image text-overflow
-webkit-line-clamp backdrop-filter -webkit-text-security all fill fill-opacity stroke stroke-width
stroke-opacity baseline-shift contain font-size-adjust color-scheme z-index line-height
""".split())  # noqa: SIM905

#: Properties that neither draw, hide nor move a word: type, boxes and borders, alignment, breaks.
INERT = frozenset("""
font-family font-weight font-style font-stretch font-kerning font-synthesis font-optical-sizing
font-variant-ligatures font-variant-numeric font-variant-east-asian font-variant-position
font-variant-alternates font-feature-settings font-variation-settings  font-smooth
-webkit-font-smoothing -moz-osx-font-smoothing text-rendering  text-align text-align-last
text-justify vertical-align text-decoration text-decoration-line text-decoration-color
text-decoration-style text-decoration-thickness text-decoration-skip text-decoration-skip-ink
text-underline-offset text-underline-position text-emphasis text-emphasis-style text-emphasis-color
text-emphasis-position text-wrap text-wrap-mode text-wrap-style text-size-adjust
-webkit-text-size-adjust -ms-text-size-adjust -moz-text-size-adjust hyphens -webkit-hyphens
-ms-hyphens word-break word-wrap overflow-wrap line-break hanging-punctuation tab-size -moz-tab-size
margin-right margin-inline-end padding-right padding-top padding-bottom padding-block
padding-block-start padding-block-end padding-inline padding-inline-start padding-inline-end border
border-top border-right border-bottom border-left border-width border-style border-color
border-top-width border-right-width border-bottom-width border-left-width border-top-style
border-right-style border-bottom-style border-left-style border-top-color border-right-color
border-bottom-color border-left-color border-radius border-top-left-radius border-top-right-radius
border-bottom-left-radius border-bottom-right-radius border-collapse border-spacing border-image
border-block border-inline border-block-start border-block-end border-inline-start border-inline-end
outline outline-width outline-style outline-color outline-offset box-shadow box-sizing
-webkit-box-sizing -moz-box-sizing min-width min-height inline-size block-size min-inline-size
min-block-size max-inline-size max-block-size aspect-ratio background-position background-position-x
background-position-y background-repeat background-size background-attachment background-origin
list-style-position list-style-image table-layout empty-cells clear counter-reset counter-increment
counter-set page-break-before page-break-after page-break-inside break-before break-after
break-inside orphans widows page size marks bleed columns column-count column-width column-rule
column-rule-width column-rule-style column-rule-color column-span column-fill row-gap grid-gap
grid-row-gap grid-column-gap grid-template grid-template-columns grid-template-rows
grid-template-areas grid-auto-rows grid-auto-columns flex flex-grow flex-shrink flex-basis
justify-content justify-items justify-self align-content align-items align-self place-content
place-items place-self -webkit-box-align -webkit-box-pack -webkit-box-flex -ms-flex -ms-flex-align
-ms-flex-pack -webkit-flex -webkit-align-items -webkit-justify-content -webkit-flex-grow
-webkit-flex-shrink -webkit-flex-basis  cursor pointer-events user-select -webkit-user-select
-moz-user-select -ms-user-select touch-action resize appearance -webkit-appearance -moz-appearance
accent-color caret-color  forced-color-adjust print-color-adjust
-webkit-print-color-adjust color-adjust object-fit object-position image-rendering isolation
will-change  transition transition-property transition-duration transition-timing-function
transition-delay -webkit-transition -moz-transition -o-transition transform-origin
-webkit-transform-origin transform-style perspective perspective-origin backface-visibility
-webkit-backface-visibility scroll-behavior scroll-margin scroll-margin-top scroll-padding
scroll-padding-top scroll-snap-type scroll-snap-align overscroll-behavior scrollbar-width
scrollbar-color scrollbar-gutter -webkit-overflow-scrolling -webkit-tap-highlight-color
-webkit-touch-callout speak ruby-position ruby-align unicode-range src font-display ascent-override
descent-override line-gap-override layout-grid layout-grid-mode layout-grid-line layout-grid-char
layout-flow text-autospace text-kashida-space text-underline tab-stops punctuation-wrap
word-spacing-adjust -webkit-margin-before -webkit-margin-after -webkit-margin-start
-webkit-margin-end -webkit-padding-start -webkit-box-shadow -moz-box-shadow -webkit-border-radius
-moz-border-radius behavior align stroke-linecap stroke-linejoin stroke-dasharray stroke-dashoffset
stroke-miterlimit fill-rule clip-rule paint-order text-anchor dominant-baseline alignment-baseline
shape-rendering color-rendering color-interpolation color-interpolation-filters
vector-effect stop-color stop-opacity flood-color flood-opacity lighting-color marker marker-start
marker-mid marker-end -ms-filter -webkit-nbsp-mode background-blend-mode enable-background
-webkit-background-size -moz-background-size -o-background-size
""".split())  # noqa: SIM905

#: Counter styles a browser predefines (CSS Counter Styles 3, Ready-made Counter Styles): a
#: marker of one of them is a number, a letter or a bullet, never a word.
COUNTER_STYLES = frozenset("""
none disc circle square disclosure-open disclosure-closed decimal decimal-leading-zero arabic-indic
armenian upper-armenian lower-armenian bengali cambodian khmer cjk-decimal devanagari georgian
gujarati gurmukhi hebrew kannada lao malayalam mongolian myanmar oriya persian lower-roman
upper-roman tamil telugu thai tibetan lower-alpha lower-latin upper-alpha upper-latin lower-greek
hiragana hiragana-iroha katakana katakana-iroha cjk-earthly-branch cjk-heavenly-stem
japanese-informal japanese-formal korean-hangul-formal korean-hanja-informal korean-hanja-formal
simp-chinese-informal simp-chinese-formal trad-chinese-informal trad-chinese-formal cjk-ideographic
ethiopic-numeric inside outside inherit initial unset revert revert-layer
""".split())  # noqa: SIM905

_DISPLAY_OUT = frozenset({"table-header-group", "table-footer-group", "table-column", "table-column-group",
                          "run-in", "math"})
#: Containment a browser draws as the model does: ``layout`` and ``style`` change no word drawn;
#: ``paint`` clips what the box holds to it and ``size`` gives a box of auto size none, which the
#: reader does not compute (``content`` and ``strict`` include paint).
_CONTAIN_IN = frozenset({"none", "layout", "style", "inline-size"})
_FONT_METRICS = frozenset({"ex-height", "cap-height", "ch-width", "ic-width", "ic-height", "from-font", "none"})
_MIN_ASPECT = 0.2  # font-size-adjust: a smaller aspect draws the font at a fraction of its size
_TRANSFORMS = frozenset({"translate", "translatex", "translatey", "translatez", "translate3d", "scale",
                         "scalex", "scaley", "scalez", "scale3d", "matrix", "none"})
_FILTERS = frozenset({"opacity", "drop-shadow", "grayscale", "sepia", "saturate", "hue-rotate"})
_CONTENT_FUNCTIONS = frozenset({"attr", "counter", "counters", "url", "image-set", "linear-gradient",
                                "radial-gradient", "repeating-linear-gradient", "repeating-radial-gradient"})
_CONTENT_WORDS = frozenset({"none", "normal", "open-quote", "close-quote", "no-open-quote", "no-close-quote"})
_KEYWORDS = frozenset({"inherit", "initial", "unset", "revert", "revert-layer"})
_MAX_SPACING = {"px": 3.0, "pt": 2.25, "em": 0.2, "rem": 0.2, "ex": 0.4, "ch": 0.4}
_MAX_SHIFT = {"px": 12.0, "pt": 9.0, "em": 1.0, "rem": 1.0, "ex": 2.0, "ch": 2.0}


def _words(tokens: Iterable[Any]) -> list[Any]:
    return [t for t in tokens if t.type not in ("whitespace", "comment")]


def _idents(w: list[Any]) -> set[str]:
    return {t.lower_value for t in w if t.type == "ident"}


def outside(name: str, value: Iterable[Any]) -> str | None:
    """Why the declaration ``name: value`` is outside the model (``property zoom`` style), or
    None when the reader models it. ``value`` is tinycss2 component values; a value holding
    ``var()`` is judged by its property alone (its value is known only when it is computed)."""
    if name.startswith(("--", "mso-", "-sec-", "-aw-", "-inkscape-")):
        return None
    if name not in COMPUTED and name not in INERT:
        return f"property {name}"
    w = _words(value)
    if not w or any(t.type == "function" and t.lower_name == "var" for t in w):
        return None
    kw = w[0].lower_value if len(w) == 1 and w[0].type == "ident" else None
    if kw in _KEYWORDS:
        return None
    got = _value(name, w, kw)
    return f"value {got} of {name}" if got else None


def _value(name: str, w: list[Any], kw: str | None) -> str | None:
    """The part of a value outside the model, or None."""
    if name == "display":
        bad = _idents(w) & _DISPLAY_OUT
        return next(iter(sorted(bad)), None)
    if name in ("transform", "-webkit-transform"):
        for t in w:
            if t.type != "function" and not (t.type == "ident" and t.lower_value == "none"):
                return tinycss2.serialize([t])[:40]
            if t.type == "function":
                if t.lower_name not in _TRANSFORMS:
                    return f"{t.lower_name}()"
                nums = [a.value for a in _words(t.arguments) if a.type == "number"]
                if t.lower_name.startswith("scale") and any(n <= 0 for n in nums):
                    return f"{t.lower_name}() not positive"
                if t.lower_name == "matrix" and (len(nums) != 6 or nums[0] <= 0 or nums[3] <= 0 or nums[1] or nums[2]):
                    return "matrix() that rotates, skews or mirrors"
        return None
    if name == "scale":
        return "a scale not positive" if any(t.type in ("number", "percentage") and t.value <= 0 for t in w) else None
    if name in ("filter", "backdrop-filter"):
        if w and w[0].type == "ident" and w[0].lower_value == "progid" \
                and not any(t.type == "function" and t.lower_name in _FILTERS for t in w):
            return None  # Internet Explorer's filter: invalid to a browser, so the declaration is dropped
        for t in w:
            if t.type == "ident" and t.lower_value == "none":
                continue
            if t.type != "function" or t.lower_name not in _FILTERS:
                return tinycss2.serialize([t])[:40]
        return None
    if name == "clip-path":
        if kw == "none":
            return None
        for t in w:
            if t.type == "function" and t.lower_name == "inset":
                vals = [a for a in _words(t.arguments) if a.type in ("percentage", "number", "dimension")]
                if all(a.value == 0 for a in vals) or any(a.type == "percentage" and a.value >= 50 for a in vals):
                    continue  # nothing clipped, or everything (the reader hides it)
            if t.type == "function" and t.lower_name in ("circle", "ellipse"):
                args = _words(t.arguments)
                if args and args[0].type in ("number", "dimension", "percentage") and args[0].value == 0:
                    continue
            return tinycss2.serialize([t])[:40]
        return None
    if name == "content":
        for t in w:
            if t.type in ("string",) or (t.type == "literal" and t.value == "/"):
                continue
            if t.type == "ident" and t.lower_value in _CONTENT_WORDS:
                continue
            if t.type == "url" or (t.type == "function" and t.lower_name in _CONTENT_FUNCTIONS):
                continue
            return tinycss2.serialize([t])[:40]
        return None
    if name in ("list-style-type", "list-style"):
        for t in w:
            if t.type == "ident" and t.lower_value not in COUNTER_STYLES:
                return f"counter style {t.lower_value}"
        return None
    if name in ("letter-spacing", "word-spacing"):
        if kw == "normal":
            return None
        for t in w:
            if t.type == "number" and t.value == 0:
                continue
            if t.type == "dimension" and t.lower_unit in _MAX_SPACING and t.value >= -_MAX_SPACING[t.lower_unit]:
                continue
            if t.type == "percentage" and t.value >= -20:
                continue
            return tinycss2.serialize([t])[:40]
        return None
    if name == "baseline-shift":  # sub- and superscripts; a shift past a line moves words out of their line
        for t in w:
            if t.type == "ident" and t.lower_value in ("baseline", "sub", "super", "top", "center", "bottom"):
                continue
            if t.type == "number" and abs(t.value) <= 12:  # SVG: a number is in user units (px)
                continue
            if t.type == "dimension" and t.lower_unit in _MAX_SHIFT and abs(t.value) <= _MAX_SHIFT[t.lower_unit]:
                continue
            if t.type == "percentage" and abs(t.value) <= 100:
                continue
            return tinycss2.serialize([t])[:40]
        return None
    if name == "writing-mode":
        return None if kw in ("horizontal-tb", "lr-tb", "lr") else tinycss2.serialize(w)[:40]
    if name == "caption-side":
        return None if kw == "top" else tinycss2.serialize(w)[:40]
    if name in ("background-clip", "-webkit-background-clip"):
        return "text" if "text" in _idents(w) else None
    if name == "mix-blend-mode":
        return None if kw == "normal" else tinycss2.serialize(w)[:40]
    if name in ("mask", "mask-image", "-webkit-mask", "-webkit-mask-image", "-webkit-line-clamp",
                "-webkit-text-security"):
        return None if kw == "none" else tinycss2.serialize(w)[:40]
    if name == "text-overflow":
        return None if _idents(w) <= {"clip"} else tinycss2.serialize(w)[:40]
    if name == "all":
        return tinycss2.serialize(w)[:40]
    if name == "contain":
        return None if _idents(w) <= _CONTAIN_IN and all(t.type == "ident" for t in w) else tinycss2.serialize(w)[:40]
    if name == "font-size-adjust":
        for t in w:
            if (t.type == "ident" and t.lower_value in _FONT_METRICS) or (t.type == "number" and t.value >= _MIN_ASPECT):
                continue
            return tinycss2.serialize([t])[:40]
        return None
    if name == "color-scheme":  # without light, the page is drawn dark: its canvas and default colours
        got = _idents(w)
        return None if got & {"normal", "light"} else " ".join(t.lower_value for t in w if t.type == "ident")[:40]
    if name == "text-transform":
        return None if _idents(w) <= {"none", "uppercase", "lowercase", "capitalize", "full-width",
                                      "full-size-kana", "math-auto"} else tinycss2.serialize(w)[:40]
    return None


_AT_RULES = frozenset({"media", "supports", "layer", "import", "font-face", "page", "charset", "namespace",
                       "keyframes", "-webkit-keyframes", "-moz-keyframes", "property", "font-feature-values",
                       "container", "scope", "starting-style", "-ms-viewport", "viewport"})


def at_rule_outside(keyword: str) -> str | None:
    """An at-rule outside the model (``@counter-style``), or None. ``@media`` and the rest of
    :data:`_AT_RULES` are evaluated by :mod:`auditor.extract.css` or draw nothing by themselves."""
    return None if keyword in _AT_RULES else f"at-rule @{keyword}"

