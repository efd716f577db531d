"""Colours as a PDF viewer paints them: whether a fill is white, a colour as RGB, and whether
two colours look the same (a glyph in the colour of what lies under it is not seen)."""

from __future__ import annotations

WHITE = 0.95
SAME_COLOUR = 0.06  # a glyph within this of the colour under it in every channel is not seen


_CACHE: dict[tuple, bool] = {}


def is_white(color: object, space: object) -> bool:
    """Whether a fill colour is white or nearly (gray 1, RGB all 1, CMYK all 0)."""
    if color == 0:
        return False  # the initial black, by far the most common
    try:
        key = (tuple(color) if isinstance(color, list) else color, getattr(space, "ncomponents", 0))
        hit = _CACHE.get(key)
    except TypeError:
        key, hit = None, None
    if hit is None:
        hit = _white_value(color, space)
        if key is not None and len(_CACHE) < 4096:
            _CACHE[key] = hit
    return hit


def _white_value(color: object, space: object) -> bool:
    try:
        values = [float(v) for v in color] if isinstance(color, (list, tuple)) else [float(color)]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    ncomp = getattr(space, "ncomponents", len(values))
    if len(values) == 4 or ncomp == 4:
        return all(v <= 1 - WHITE for v in values)
    return bool(values) and all(v >= WHITE for v in values)


_GRAY, _RGB_SPACES = ("DeviceGray", "CalGray"), ("DeviceRGB", "CalRGB")


def rgb(color: object, space: object) -> tuple[float, float, float] | None:
    """A colour of a device, calibrated or ICC-based space as RGB; None for other spaces
    (indexed, separation, patterns), whose colours are not compared."""
    try:
        values = [float(v) for v in color] if isinstance(color, (list, tuple)) else [float(color)]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    name = getattr(space, "name", "")
    n = getattr(space, "ncomponents", 0)
    if len(values) != n or (name not in (*_GRAY, *_RGB_SPACES, "DeviceCMYK", "ICCBased")):
        return None
    if n == 1:
        return (values[0],) * 3  # type: ignore[return-value]
    if n == 3:
        return values[0], values[1], values[2]
    if n == 4:
        c, m, y, k = values
        return (1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)
    return None


def same_colour(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    return all(abs(x - y) < SAME_COLOUR for x, y in zip(a, b, strict=True))



def shading_rgb(shading: object) -> tuple[float, float, float] | None:
    """The one colour a shading paints (a Type 2 function whose C0 and C1 agree, in a device
    colour space), else None: a blend of colours, or one not computed here."""
    from pdfminer.pdftypes import resolve1
    from pdfminer.psparser import literal_name

    try:
        d = resolve1(shading) if isinstance(resolve1(shading), dict) else {}
        function = resolve1(d.get("Function"))
        space = literal_name(resolve1(d.get("ColorSpace")))
        if not isinstance(function, dict) or resolve1(function.get("FunctionType")) != 2:
            return None
        c0 = [float(v) for v in resolve1(function.get("C0", [0]))]
        c1 = [float(v) for v in resolve1(function.get("C1", [1]))]
    except Exception:
        return None
    if c0 != c1:
        return None
    n = {"DeviceGray": 1, "DeviceRGB": 3, "DeviceCMYK": 4}.get(space)
    if n is None or len(c0) != n:
        return None
    if n == 1:
        return (c0[0], c0[0], c0[0])
    if n == 3:
        return (c0[0], c0[1], c0[2])
    k = c0[3]
    return (1 - min(1.0, c0[0] + k), 1 - min(1.0, c0[1] + k), 1 - min(1.0, c0[2] + k))
