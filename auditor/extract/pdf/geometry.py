"""Boxes on a page in device space (x0, y0, x1, y1): where a glyph lies, the clip path kept as a
box, and the filled shapes drawn under or over a glyph."""

from __future__ import annotations

NOWHERE = (float("inf"), float("inf"), float("-inf"), float("-inf"))


def inside(x: float, y: float, box: tuple[float, float, float, float] | None) -> bool:
    return box is None or (box[0] <= x <= box[2] and box[1] <= y <= box[3])


def meet(a: tuple | None, b: tuple | None) -> tuple | None:
    if a is None:
        return b
    if b is None:
        return a
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


Shape = tuple[float, float, float, float, int, int, "tuple[float, float, float] | None"]


class Grid:
    """Filled shapes (x0, y0, x1, y1, seq, dark, rgb) bucketed by height on the page, to find
    those drawn under or over a glyph without comparing every glyph with every shape."""

    STEP = 24.0

    def __init__(self, shapes: list[Shape]) -> None:
        self.bins: dict[int, list[Shape]] = {}
        for s in shapes:
            lo, hi = int(s[1] // self.STEP), int(s[3] // self.STEP)
            for k in range(lo, min(hi, lo + 400) + 1):
                self.bins.setdefault(k, []).append(s)

    def holds(self, ch, seq: int, *, before: bool, centre: bool) -> Shape | None:  # type: ignore[no-untyped-def]
        """A shape drawn before (or after) the glyph that holds its centre (or covers it: its
        width and the middle of its height, so a strike-through line does not), or None."""
        if not self.bins:
            return None
        cx, cy = (ch.x0 + ch.x1) / 2, (ch.y0 + ch.y1) / 2
        band = 0.3 * (ch.y1 - ch.y0)
        for shape in self.bins.get(int(cy // self.STEP), ()):
            x0, y0, x1, y1, s = shape[:5]
            if (s < seq) if before else (s > seq):
                if centre:
                    if x0 <= cx <= x1 and y0 <= cy <= y1:
                        return shape
                elif x0 <= ch.x0 + 0.5 and ch.x1 - 0.5 <= x1 and y0 <= cy - band and cy + band <= y1:
                    return shape
        return None

    def under(self, ch, seq: int) -> Shape | None:  # type: ignore[no-untyped-def]
        """The last shape drawn before the glyph under its centre (its colour is None when it is
        not compared), or None."""
        cx, cy = (ch.x0 + ch.x1) / 2, (ch.y0 + ch.y1) / 2
        best, found = -1, None
        for shape in self.bins.get(int(cy // self.STEP), ()):
            x0, y0, x1, y1, s = shape[:5]
            if best < s < seq and x0 <= cx <= x1 and y0 <= cy <= y1:
                best, found = s, shape
        return found

