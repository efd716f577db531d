"""Colours as a PDF viewer paints them: whether a fill is white, a colour as RGB, and whether
two colours look the same (a glyph in the colour of what lies under it is not seen).

A spot colour (``/Separation``, ``/DeviceN``) is a tint of inks: tint 0 puts no ink on the paper,
so it paints white whatever its alternate space says, and the colorant ``/None`` never paints. A
tint is drawn in the alternate colour its tint transform gives, computed here for an exponential
(Type 2) function. A CIE Lab colour is white at L* 100 with no a* and b*.
"""

from __future__ import annotations

WHITE = 0.95
SAME_COLOUR = 0.06  # a glyph within this of the colour under it in every channel is not seen


_CACHE: dict[tuple, bool] = {}
_ALTERNATES = {"DeviceGray": 1, "DeviceRGB": 3, "DeviceCMYK": 4}


class Space:
    """A colour space as pdfminer keeps one (a name and a count of components), with what decides
    its colours: the colorants and the alternate space and exponential tint transform of a spot
    colour, or Lab."""

    def __init__(self, name: str, ncomponents: int, colorants: tuple[str, ...] = (),
                 alternate: str = "", c0: tuple[float, ...] = (), c1: tuple[float, ...] = (), exponent: float = 1.0):
        self.name, self.ncomponents = name, ncomponents
        self.colorants, self.alternate, self.c0, self.c1, self.exponent = colorants, alternate, c0, c1, exponent

    def alternate_colour(self, tints: list[float]) -> list[float] | None:
        """The alternate space's colour of these tints (a one-tint exponential transform), or None."""
        if len(tints) != 1 or self.alternate not in _ALTERNATES or len(self.c0) != _ALTERNATES[self.alternate] \
                or len(self.c1) != len(self.c0):
            return None
        t = min(max(tints[0], 0.0), 1.0) ** self.exponent
        return [a + t * (b - a) for a, b in zip(self.c0, self.c1, strict=True)]


def space_of(spec: object) -> Space | None:
    """A ``/Separation``, ``/DeviceN`` or ``/Lab`` colour space array as a :class:`Space`."""
    from pdfminer.pdftypes import list_value, resolve1
    from pdfminer.psparser import literal_name

    if not isinstance(spec, list) or not spec:
        return None
    kind = literal_name(resolve1(spec[0]))
    if kind == "Lab":
        return Space("Lab", 3)
    if kind not in ("Separation", "DeviceN") or len(spec) < 4:
        return None
    names = [resolve1(spec[1])] if kind == "Separation" else list_value(resolve1(spec[1]))
    colorants = tuple(literal_name(resolve1(n)) for n in names)
    alternate = resolve1(spec[2])
    alternate = literal_name(alternate) if not isinstance(alternate, list) else ""
    fn = resolve1(spec[3])
    c0: tuple[float, ...] = ()
    c1: tuple[float, ...] = ()
    exponent = 1.0
    if isinstance(fn, dict) and resolve1(fn.get("FunctionType")) == 2:
        try:
            c0 = tuple(float(v) for v in resolve1(fn.get("C0", [0.0])))
            c1 = tuple(float(v) for v in resolve1(fn.get("C1", [1.0])))
            exponent = float(resolve1(fn.get("N", 1.0)))
        except (TypeError, ValueError):
            c0, c1 = (), ()
    return Space(kind, len(colorants), colorants, str(alternate), c0, c1, exponent)


def _spot(values: list[float], space: Space) -> tuple[bool, tuple[float, float, float] | None]:
    """(white, RGB or None) of a spot colour's tints, or of a Lab colour."""
    if space.name == "Lab":
        if len(values) != 3:
            return False, None
        lum, a, b = values
        if abs(a) > 5 or abs(b) > 5:
            return False, None
        y = ((lum + 16) / 116) ** 3 if lum > 8 else lum / (24389 / 27)
        grey = 1.055 * y ** (1 / 2.4) - 0.055 if y > 0.0031308 else 12.92 * y
        return lum >= 95, (grey, grey, grey)
    if all(c == "None" for c in space.colorants) or all(v <= 1 - WHITE for v in values):
        return True, (1.0, 1.0, 1.0)  # no ink on the paper
    alt = space.alternate_colour(values)
    if alt is None:
        return False, None
    device = Space(space.alternate, len(alt))
    return _white_value(alt, device), rgb(alt, device)


def is_white(color: object, space: object) -> bool:
    """Whether a fill colour is white or nearly (gray 1, RGB all 1, CMYK all 0, a spot colour's
    tint 0, Lab L* 100)."""
    if isinstance(space, Space) and space.name in ("Separation", "DeviceN", "Lab"):
        try:
            values = [float(v) for v in color] if isinstance(color, (list, tuple)) else [float(color)]  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        return _spot(values, space)[0]
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
    """A colour of a device, calibrated or ICC-based space as RGB, and of a spot colour or Lab where
    :func:`_spot` computes it; None for other spaces (indexed, patterns), whose colours are not compared."""
    try:
        values = [float(v) for v in color] if isinstance(color, (list, tuple)) else [float(color)]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if isinstance(space, Space) and space.name in ("Separation", "DeviceN", "Lab"):
        return _spot(values, space)[1]
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
