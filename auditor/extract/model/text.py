"""The characters every text reader models: those a reader sees as letters, digits, marks,
punctuation, symbols and spaces, the line and page breaks, and the format characters whose
effect is known (bidirectional controls, put in display order by :mod:`auditor.extract.order`;
joiners and soft hyphens, which draw nothing or a hyphen at a line end). A private-use
character (a font decides what it draws), an unassigned one, a control character or a format
character not listed (tag characters, which draw nothing and can carry a hidden copy) is
outside the model.

A control character in a page a browser draws (:data:`DRAWN_AS_A_BOX`) is inside it: a browser
draws it as a visible box, as CSS Text 3 asks ("rendered as a visible glyph", measured with
Chromium), so a reader sees a mark between the letters, where the stored text has a character
that only separates words. Court pages carry a few (``&#03`` after a party's name, U+0092 for an
apostrophe in a Windows-1252 page saved as UTF-8). NUL is not: the HTML parser drops it.
"""

from __future__ import annotations

import unicodedata

from auditor.extract.model import Outside

#: Format characters (Unicode category Cf) whose effect the readers know.
FORMAT = frozenset(
    "\u00ad\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064"
    "\u2066\u2067\u2068\u2069\ufeff\u180e\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u08e2")
CONTROLS = frozenset("\t\n\r\f\v")
#: Formats a browser draws, where a control character is a visible box (not NUL).
DRAWN_AS_A_BOX = frozenset({"html", "mhtml", "svg"})
_OUT = frozenset({"Co", "Cn", "Cc", "Cf", "Cs"})
_NAMES = {"Co": "private-use", "Cn": "unassigned", "Cc": "control", "Cf": "format", "Cs": "surrogate"}


def check(text: str, fmt: str, outside: Outside) -> set[str]:
    """Name the kinds of character of ``text`` outside the model, with the first of each; return
    the control characters admitted because a browser draws them as boxes (:data:`DRAWN_AS_A_BOX`).

    The stored text keeps each box as what separates words. A reader may read past a box inside
    a word ("con[box]tract") and join the letters, so the caller adds that reading too
    (:func:`boxes_left_out`): a box put into every word then hides no copy."""
    if text.isascii():
        bad = {c for c in set(text) if c < " " and c not in CONTROLS} | ({"\x7f"} if "\x7f" in text else set())
    else:
        bad = {c for c in set(text) if unicodedata.category(c) in _OUT and c not in FORMAT and c not in CONTROLS}
    boxes: set[str] = set()
    if fmt in DRAWN_AS_A_BOX:
        boxes = {c for c in bad if c != "\x00" and unicodedata.category(c) == "Cc"}
        bad -= boxes
    if not bad:
        return boxes
    by_kind: dict[str, list[str]] = {}
    for c in sorted(bad):
        by_kind.setdefault(_NAMES[unicodedata.category(c)], []).append(f"U+{ord(c):04X}")
    for kind, points in sorted(by_kind.items()):
        more = f" and {len(points) - 3} more" if len(points) > 3 else ""
        outside.add(fmt, f"{kind} character{'s' if len(points) > 1 else ''} {', '.join(points[:3])}{more}")
    return boxes


def boxes_left_out(text: str, boxes: set[str]) -> str:
    """The text without the control characters ``check`` admitted as boxes."""
    return text.translate({ord(c): None for c in boxes})
