"""The SVG the HTML reader models (inline ``<svg>`` in HTML, SVG files and ``data:`` SVG images):
text elements read in source order, shapes that draw no word, and the parts a browser never draws.

Text is modelled where its order on the page is its order in the source: each text chunk (a
``<text>``, a ``<tspan>`` given its own ``x``/``y`` or moved to another line by ``dy``, or a
``<textPath>`` at the start of its path) placed at one point, after the point of the chunk before it (a line lower, or further
right on the same line), through transforms that only move and scale and nested ``<svg>``
viewports (placed by their ``x`` and ``y``, scaled by their ``viewBox``). Text a nested viewport
of no size holds, text under conditional processing (``systemLanguage``, ``requiredExtensions``,
``requiredFeatures``: drawn or not by the reader's language and browser) and a ``<textPath>``
whose path does not start with a plain move are outside the model. Per-glyph positions (several ``x`` values), rotated glyphs, transforms that
rotate, skew or mirror, text filled with a pattern or gradient, clipped, masked or filtered, and
filled shapes drawn after text (which may cover it) are outside the model, as is every element
and attribute not listed here. What hides text (``display``, ``visibility``, ``opacity``,
``fill`` and ``stroke``, a zero ``font-size``) is computed by the HTML reader's cascade, which
reads these presentation attributes as the CSS properties they are: text neither filled nor
stroked is left out as a browser leaves it out. Spacing and shifts are judged by the CSS model;
``textLength`` that squeezes glyphs past reading is outside the model.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from auditor.extract.model import Outside

#: Elements the reader models: drawn text, shapes that draw no word, containers, and the parts
#: it hides as a browser does (definitions, metadata, paint servers, filters).
ELEMENTS = frozenset("""
svg g text tspan textpath title desc metadata style script defs symbol clippath mask lineargradient
radialgradient stop filter marker path rect circle ellipse line polyline polygon image foreignobject
a view use
""".split()) | frozenset(f"fe{n}" for n in """
blend colormatrix componenttransfer composite convolvematrix diffuselighting displacementmap
distantlight dropshadow flood funca funcb funcg funcr gaussianblur image merge mergenode morphology
offset pointlight specularlighting spotlight tile turbulence
""".split())  # noqa: SIM905
#: Every element SVG 1.1 and SVG 2 define (and Chromium's). An element of another name, or of
#: another namespace (Inkscape's ``sodipodi:namedview``, Illustrator's ``sfw``, RDF in metadata),
#: is never drawn, nor anything it holds (SVG 2, "unknown elements"; checked with Chromium, inline
#: and in SVG files): the reader hides it (:data:`NEVER_DRAWN`) and the model does not look inside.
#: A prefixed name whose local part is an SVG element's stays outside: ``svg:text`` may be SVG's.
KNOWN = frozenset("""
a altglyph altglyphdef altglyphitem animate animatecolor animatemotion animatetransform circle clippath
color-profile cursor defs desc discard ellipse feblend fecolormatrix fecomponenttransfer fecomposite
feconvolvematrix fediffuselighting fedisplacementmap fedistantlight fedropshadow feflood fefunca fefuncb
fefuncg fefuncr fegaussianblur feimage femerge femergenode femorphology feoffset fepointlight
fespecularlighting fespotlight fetile feturbulence filter font font-face font-face-format font-face-name
font-face-src font-face-uri foreignobject g glyph glyphref hatch hatchpath hkern image line
lineargradient marker mask mesh meshgradient meshpatch meshrow metadata missing-glyph mpath path pattern
polygon polyline radialgradient rect script set solidcolor stop style svg switch symbol text textpath
title tref tspan unknown use view vkern
""".split())  # noqa: SIM905
#: SVG's animation elements: modelled in a drawing that draws no text (a loading spinner), where
#: nothing they move, show or hide can be a word; in a drawing with text they stay outside.
ANIMATION = frozenset({"animate", "animatetransform", "animatemotion", "set", "mpath", "animatecolor"})
#: What an animation element says (timing, values, the attribute it changes).
ANIMATION_ATTRIBUTES = frozenset("""
attributename attributetype begin end dur min max restart repeatcount repeatdur fill calcmode values
keytimes keysplines from to by additive accumulate type href path keypoints rotate origin
""".split())  # noqa: SIM905


def never_drawn(tag: str) -> bool:
    """Whether an element of this (lower-case) name, met inside a drawing, is never drawn."""
    return tag not in KNOWN and tag.rpartition(":")[2] not in KNOWN


#: Where a browser draws nothing of what the element holds unless another element refers to it.
HIDDEN = frozenset({"title", "desc", "metadata", "style", "script", "defs", "symbol", "clippath", "mask",
                    "lineargradient", "radialgradient", "filter", "marker", "pattern"})
SHAPES = frozenset({"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "image"})
#: The elements whose text SVG draws: character data anywhere else (a ``<title>``, a ``<g>``'s own
#: text) is never drawn.
DRAWS_TEXT = frozenset({"text", "tspan", "textpath", "foreignobject"})

ATTRIBUTES = frozenset("""
id class style lang tabindex role focusable xmlns version baseprofile x y dx dy width height viewbox
preserveaspectratio transform fill fill-opacity fill-rule stroke stroke-width stroke-opacity
stroke-linecap stroke-linejoin stroke-dasharray stroke-dashoffset stroke-miterlimit opacity
font-family font-size font-weight font-style font-variant font-stretch text-anchor dominant-baseline
alignment-baseline baseline-shift text-decoration letter-spacing word-spacing textlength
lengthadjust d points x1 y1 x2 y2 cx cy r rx ry fx fy fr href offset stop-color stop-opacity
gradientunits gradienttransform spreadmethod clippathunits maskunits maskcontentunits filterunits
primitiveunits display visibility overflow color shape-rendering text-rendering image-rendering
color-interpolation color-interpolation-filters vector-effect enable-background pathlength
marker-start marker-mid marker-end markerwidth markerheight markerunits refx refy orient startoffset
method spacing side path clip-rule in in2 result stddeviation values type mode operator k1 k2 k3 k4
flood-color flood-opacity lighting-color surfacescale diffuseconstant specularconstant
specularexponent kernelunitlength tablevalues slope intercept amplitude exponent basefrequency
numoctaves seed stitchtiles scale xchannelselector ychannelselector radius order kernelmatrix
divisor bias targetx targety edgemode preservealpha azimuth elevation z pointsatx pointsaty
pointsatz limitingconeangle target decoding crossorigin requiredextensions systemlanguage requiredfeatures
""".split())  # noqa: SIM905
#: Attributes modelled only with one of these values (``none``: nothing clipped, masked, filtered).
NONE_ONLY = frozenset({"clip-path", "mask", "filter"})
#: Conditional processing: an element is drawn only where these hold for the reader's language and
#: browser (``systemLanguage="x-none"`` is never drawn). Modelled on elements that hold no text.
CONDITIONS = frozenset({"systemlanguage", "requiredextensions", "requiredfeatures"})
#: Presentation attributes that are the CSS properties of the same name, whose values the CSS model
#: judges (:func:`auditor.extract.model.css.outside`): a bare number is a length in user units (px).
AS_CSS = frozenset({"letter-spacing", "word-spacing", "baseline-shift", "display"})
#: ``textLength`` narrower than this per character (user units) squeezes the glyphs past reading.
MIN_TEXT_LENGTH = 2.0
_BARE = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*$")
_TRANSFORM = re.compile(r"\s*(\w+)\s*\(([^)]*)\)")
_NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?", re.I)


def _nums(v: str | None) -> list[float]:
    return [float(x) for x in _NUM.findall(v or "")]


def _transform(v: str | None) -> tuple[float, float, float, float] | None:
    """(scale x, scale y, move x, move y) of a transform that only moves and scales; None otherwise."""
    sx = sy = 1.0
    tx = ty = 0.0
    text = (v or "").strip()
    if not text:
        return sx, sy, tx, ty
    pos = 0
    for m in _TRANSFORM.finditer(text):
        if text[pos:m.start()].strip(" ,"):
            return None
        pos = m.end()
        name, n = m.group(1).lower(), _nums(m.group(2))
        if name == "translate" and 1 <= len(n) <= 2:
            tx, ty = tx + sx * n[0], ty + sy * (n[1] if len(n) > 1 else 0.0)
        elif name == "scale" and 1 <= len(n) <= 2 and min(n) > 0:
            sx, sy = sx * n[0], sy * (n[1] if len(n) > 1 else n[0])
        elif name == "matrix" and len(n) == 6 and n[0] > 0 and n[3] > 0 and n[1] == 0 and n[2] == 0:
            tx, ty, sx, sy = tx + sx * n[4], ty + sy * n[5], sx * n[0], sy * n[3]
        elif name == "rotate" and n and n[0] % 360 == 0:
            continue
        else:
            return None
    return (sx, sy, tx, ty) if not text[pos:].strip(" ,") else None


def _as_css(name: str, value: str) -> str | None:
    """Why a presentation attribute's value is outside the CSS model, or None."""
    import tinycss2

    from auditor.extract.model import css as model_css

    bare = _BARE.match(value)
    text = f"{bare.group(1)}px" if bare and name != "display" else value
    return model_css.outside(name, tinycss2.parse_component_value_list(text))


def _draws_text(node: Any) -> bool:
    """Whether the element holds text SVG draws (in a text element), not only titles and such."""
    return any((d.tag or "").lower() in DRAWS_TEXT and (d.text(deep=True) or "").strip()
               for d in node.traverse(include_text=False))


def _ids(svg: Any) -> dict[str, Any]:
    """The document's elements by id (a ``<use>`` may point into another ``<svg>`` of the page)."""
    top = svg
    while top.parent is not None:
        top = top.parent
    out: dict[str, Any] = {}
    for n in top.traverse(include_text=False):
        i = (n.attributes or {}).get("id") if n.tag and n.tag[0] != "-" else None
        if i and i not in out:
            out[i] = n
    return out


_MOVE = re.compile(r"^\s*[Mm]\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)[\s,]*([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)", re.I)


def _path_start(node: Any, ids: dict[str, Any]) -> tuple[float, float] | None:
    """Where a ``<textPath>``'s path starts (its first move), in the path's user units; None when
    the path is not found or does not start with a plain move."""
    ref = next((v for k, v in node.attributes.items() if k.lower() in ("href", "xlink:href")), None) or ""
    if not ids:
        ids.update(_ids(node) or {"": None})
    target = ids.get(ref[1:]) if ref.startswith("#") else None
    d = (target.attributes.get("d") if target is not None and (target.tag or "").lower() == "path" else None) \
        or node.attributes.get("path")
    m = _MOVE.match(d or "")
    if m is None or (target is not None and (target.attributes.get("transform") or "").strip()):
        return None
    return float(m.group(1)), float(m.group(2))


def _host(node: Any) -> int:
    """The ``<text>`` a ``<tspan>`` is part of (its node's id), or the tspan's own if none."""
    n = node
    while n is not None and (n.tag or "").lower() != "text":
        n = n.parent
    return int((n if n is not None else node).mem_id)


_EM = 16.0  # user units per em, for dy given in em (lines are compared with lines set alike)


def _lengths(v: str | None) -> list[float]:
    """Lengths of an SVG attribute, in user units (``em`` and ``ex`` at a 16-unit font)."""
    out = []
    for m in re.finditer(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*(em|ex|px)?", v or "", re.I):
        k = {"em": _EM, "ex": _EM / 2}.get((m.group(2) or "").lower(), 1.0)
        out.append(float(m.group(1)) * k)
    return out


def _own_text(node: Any) -> str:
    """The text of a ``<text>`` outside its ``<textPath>`` children (those are chunks of their own)."""
    out: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        for c in reversed(list(n.iter(include_text=True))):
            tag = (c.tag or "").lower()
            if tag == "-text":
                out.append(c.text(deep=False) or "")
            elif tag != "textpath" and tag[:1] != "-":
                stack.append(c)
    return "".join(out).strip()


def _viewport(attrs: Any) -> tuple[tuple[float, float, float, float], bool] | None:
    """A nested ``<svg>``'s placement as (scale x, scale y, move x, move y), and whether it has no
    size (it draws nothing of what it holds); None when its ``viewBox`` cannot be read."""
    def num(name: str) -> float | None:
        got = _nums(attrs.get(name))
        return got[0] if got else None

    x, y, w, h = num("x") or 0.0, num("y") or 0.0, num("width"), num("height")
    empty = (w is not None and w <= 0) or (h is not None and h <= 0)
    box = _nums(next((v for k, v in attrs.items() if k.lower() == "viewbox"), None))
    if not box:
        return (1.0, 1.0, x, y), empty
    if len(box) != 4 or box[2] <= 0 or box[3] <= 0:
        return None
    sx = (w / box[2]) if w else 1.0
    sy = (h / box[3]) if h else sx
    k = min(sx, sy)  # preserveAspectRatio's default: meet
    return (k, k, x - box[0] * k, y - box[1] * k), empty


def _use(node: Any, ids: dict[str, Any], outside: Outside) -> None:
    """A ``<use>`` draws a copy of what it points to, where the reader reads nothing: modelled when
    that is an element of the same document that draws no text (an icon of a sprite sheet).
    ``ids`` is filled with the document's ids at the first ``<use>`` of the page."""
    attrs = node.attributes
    ref = next((v for k, v in attrs.items() if k.lower() in ("href", "xlink:href")), None) or ""
    if not ids:
        ids.update(_ids(node) or {"": None})
    target = ids.get(ref[1:]) if ref.startswith("#") else None
    if target is None:
        outside.add("svg", "<use> of something outside the document" if ref and not ref.startswith("#")
                    else "<use> of no element")
    elif _draws_text(target) or (target.tag or "").lower() in DRAWS_TEXT:
        outside.add("svg", "<use> of an element that draws text")


def check(svg: Any, outside: Outside, ids: dict[str, Any] | None = None) -> None:
    """Name what an ``<svg>`` element (a selectolax node) holds outside the model. ``ids``: one
    dictionary for every drawing of a page, so that its ids are gathered once."""
    chunks: list[tuple[float, float]] = []
    lines: dict[int, float] = {}  # a <text>'s current y (user units), by its node
    text_seen = False
    animated_text: bool | None = None  # whether the drawing draws text, known at its first animation
    if ids is None:
        ids = {}
    # (node, transform of its parent) in document order, without recursion
    stack: list[tuple[Any, tuple[float, float, float, float], bool]] = [(svg, (1.0, 1.0, 0.0, 0.0), False)]
    while stack:
        node, (sx, sy, tx, ty), hidden = stack.pop()
        tag = (node.tag or "").lower()
        if not tag or tag[0] == "-":
            continue
        if tag == "svg" and node is not svg:  # a nested viewport: it places, scales and clips what it holds
            port = _viewport(node.attributes)
            if port is None:
                if _draws_text(node):
                    outside.add("svg", "text in a nested <svg> whose viewBox cannot be read")
                port = ((1.0, 1.0, 0.0, 0.0), False)
            (vx, vy, mx, my), empty = port
            if empty and _draws_text(node):
                outside.add("svg", "text in a nested <svg> of no size (it draws nothing it holds)")
            tx, ty, sx, sy = tx + sx * mx, ty + sy * my, sx * vx, sy * vy
        if node is not svg and (never_drawn(tag) or tag == "metadata"):
            continue  # never drawn, nor what it holds; a <use> of what it holds is judged by _use
        if tag in ANIMATION:
            if animated_text is None:
                animated_text = _draws_text(svg)
            if animated_text:
                outside.add("svg", f"<{tag}> in a drawing with text")
            for name in node.attributes:
                low = name.lower()
                if low not in ANIMATION_ATTRIBUTES and ":" not in low and low not in ("id", "class"):
                    outside.add("svg", f"attribute {low} of <{tag}>")
                elif low in ("attributename",) and (node.attributes[name] or "").lower() in ("href", "xlink:href"):
                    outside.add("svg", f"<{tag}> of a link")
                elif low.rpartition(":")[2] == "href":  # it animates another element, maybe another drawing's text
                    outside.add("svg", f"<{tag}> of another element")
            continue
        if tag not in ELEMENTS and tag != "pattern":
            outside.add("svg", f"element <{tag}>")
        if tag == "text":
            has_text = bool((node.text(deep=True) or "").strip())
            lines[int(node.mem_id)] = 0.0
        else:
            has_text = tag in HIDDEN | {"g", "a", "svg"} and _draws_text(node)
        if tag == "use":
            _use(node, ids, outside)
        if tag == "pattern" or (tag in ("clippath", "mask", "marker", "symbol") and has_text):
            if has_text:
                outside.add("svg", f"text inside <{tag}>")
            elif tag == "pattern":
                outside.add("svg", "element <pattern>")
        attrs = node.attributes
        for name, value in attrs.items():
            low = name.lower()
            if ":" in low or low.startswith(("data-", "aria-", "on")):
                continue
            if low in CONDITIONS and (has_text or tag in DRAWS_TEXT):
                outside.add("svg", f"conditional processing ({name}) on text")
                continue
            if low in NONE_ONLY:
                if (value or "").strip().lower() not in ("", "none") and (has_text or tag in ("text", "tspan")):
                    outside.add("svg", f"attribute {low} on text")
                continue
            if low not in ATTRIBUTES:
                outside.add("svg", f"attribute {low} of <{tag}>")
            elif low in AS_CSS:
                why = _as_css(low, value or "")
                if why:
                    outside.add("svg", f"attribute {low}: {why}")
        fill = (attrs.get("fill") or "").strip().lower()
        if fill.startswith("url(") and tag in ("text", "tspan", "textpath", "g", "svg") and (has_text or tag != "g"):
            outside.add("svg", "text filled with a paint server (pattern or gradient)")
        t = _transform(attrs.get("transform"))
        if t is None:
            if has_text or tag in ("text", "tspan"):
                outside.add("svg", "transform that rotates, skews or mirrors text")
            t = (1.0, 1.0, 0.0, 0.0)
        ax, ay = sx * t[0], sy * t[1]
        bx, by = tx + sx * t[2], ty + sy * t[3]
        hidden = hidden or tag in HIDDEN
        if not hidden and tag in ("text", "tspan"):
            xs, ys = _nums(attrs.get("x")), _nums(attrs.get("y"))
            if len(xs) > 1 or len(ys) > 1:
                outside.add("svg", "glyphs placed one by one (several x or y values)")
            if [r for r in _nums(attrs.get("rotate")) if r % 360]:
                outside.add("svg", "rotated glyphs (rotate)")
            if any(abs(d) > 40 for d in _nums(attrs.get("dx"))):
                outside.add("svg", "text moved far by dx")
            # the line a chunk stands on: its own y, else the text's current y moved by dy (the
            # usual way to set lines: <tspan x="10" dy="1.2em">)
            host = node if tag == "text" else _host(node)
            at = ys[0] if ys else lines.get(host, 0.0)
            dys = _lengths(attrs.get("dy"))
            if len(dys) > 1:
                outside.add("svg", "glyphs placed one by one (several dy values)")
            at += dys[0] if dys else 0.0
            lines[host] = at
            length = _nums(next((v for k, v in attrs.items() if k.lower() == "textlength"), None))
            chars = len((node.text(deep=True) or "").strip())
            if length and chars and length[0] < MIN_TEXT_LENGTH * chars:
                outside.add("svg", "text squeezed by textLength")
            own = (node.text(deep=False) or "").strip() if tag == "tspan" else _own_text(node)
            if (xs or ys or dys or tag == "text") and own:
                chunks.append((by + ay * at, bx + ax * (xs[0] if xs else 0.0)))
            text_seen = text_seen or bool(own) or bool((node.text(deep=True) or "").strip())
        elif not hidden and tag == "textpath" and (node.text(deep=True) or "").strip():
            start = _path_start(node, ids)
            if start is None:
                outside.add("svg", "text along a path whose start is not a plain move")
            else:
                chunks.append((by + ay * start[1], bx + ax * start[0]))
        elif not hidden and tag in SHAPES and text_seen and fill not in ("none", "transparent"):
            outside.add("svg", f"filled <{tag}> drawn after text (it may cover it)")
        kids = [c for c in node.iter() if c.tag and c.tag[0] != "-"]
        stack.extend((c, (ax, ay, bx, by), hidden) for c in reversed(kids))
    for (y0, x0), (y1, x1) in itertools.pairwise(chunks):
        if y1 < y0 - 1 or (abs(y1 - y0) <= 1 and x1 < x0):
            outside.add("svg", "text placed out of source order by its coordinates")
            break
