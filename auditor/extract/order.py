"""Text in the order a reader reads it on screen: the Unicode Bidirectional Algorithm (UAX #9,
python-bidi) puts each line in display order, and a reader reads it left to right, a run of
right-to-left words right to left (a line with more right-to-left letters from the right). A
line reversed and shown the right way round by an override (U+202E, ``<bdo dir=rtl>``, CSS
``unicode-bidi``) reads as shown; Hebrew or Arabic text reads in its stored order."""

from __future__ import annotations

import re

import regex

_LRM, _RLM = "\u200e", "\u200f"
BIDI_CONTROLS = re.compile("[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")
# The blocks of right-to-left scripts (Bidi_Class R and AL) and the bidi controls: a fast test
# with the stdlib's character classes before the exact one.
_NEEDS_BIDI = re.compile("[\u0590-\u08ff\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufdff\ufe70-\ufefe"
                         "\U00010800-\U00010fff\U0001e800-\U0001efff]")
_RTL = regex.compile(r"[\p{Bidi_Class=R}\p{Bidi_Class=AL}]")
_LTR = regex.compile(r"\p{Bidi_Class=L}")


def display_order(text: str, auto: bool = False) -> str:
    """Each line of ``text`` as a reader reads it on screen: reordered by the Unicode
    Bidirectional Algorithm (python-bidi), then read left to right, a run of right-to-left words
    in its own direction (a line with more right-to-left letters is read right to left).
    Lines without right-to-left text or bidi controls are returned as they are. A line's base
    direction is right to left when it starts with RLM (as :mod:`.html` marks them), else left to
    right, or, with ``auto``, that of its first strong letter (as text editors do)."""
    if text.isascii() or not _NEEDS_BIDI.search(text):
        return BIDI_CONTROLS.sub("", text) if _LRM in text else text
    from bidi import get_display

    out = []
    for line in text.split("\n"):
        if _NEEDS_BIDI.search(line):
            base = None if auto else "R" if line.startswith(_RLM) else "L"
            line = _reading(get_display(line, base_dir=base))
        out.append(BIDI_CONTROLS.sub("", line))
    return "\n".join(out)


def _reading(visual: str) -> str:
    """A line in display order as it is read: runs of right-to-left words right to left (a line
    with more right-to-left letters read from the right), other runs left to right."""
    visual = BIDI_CONTROLS.sub("", visual)
    rtl = len(_RTL.findall(visual)) > len(_LTR.findall(visual))
    kinds: list[bool | None] = []
    runs: list[list[str]] = []
    for w in visual.split(" "):
        kind = bool(_RTL.search(w)) if w else None
        if runs and (kind is None or kinds[-1] == kind or kinds[-1] is None):
            if kinds[-1] is None:
                kinds[-1] = kind
            runs[-1].append(w)
        else:
            kinds.append(kind)
            runs.append([w])
    pieces = [[w[::-1] for w in reversed(ws)] if kind else ws for kind, ws in zip(kinds, runs, strict=True)]
    if rtl:
        pieces.reverse()
    return " ".join(w for ws in pieces for w in ws)
