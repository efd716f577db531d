"""Plain text laid out for paper, read in the order a reader reads it (issue #40).

- **Pleading paper**: the left margin of a US court filing numbers its lines 1 to 28 (or 25,
  26, 32...) on every page, blank lines included. A reader skips the margin; read with the
  words, the numbers break every shingle of the filing (0.56 containment where a reader gets
  0.98). The margin is recognised by what makes it a margin, not a numbered list: runs of at
  least ten consecutive physical lines numbered consecutively from 1, the numbers alone on the
  blank lines, covering most of the text's lines.
- **Two columns**: text set in two columns side by side (a newsletter, a two-column order)
  is read across the rows by a text editor and down each column by a reader. A gutter (the
  same run of three or more spaces in every line of a block, prose on both sides) makes the
  block two columns: the left column is read, then the right.

Where a layout is recognised but its order cannot be established (a margin of numbers that
does not count the lines, three or more columns, columns that cross their gutter), the text is
returned as stored with a reason code (``text-line-numbers:``, ``text-columns:``), so that a
gate does not audit a reading it cannot vouch for. Tables (figures beside labels) are no
columns of prose and are left as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBERED = re.compile(r"^[ \t]{0,8}(\d{1,2})(?:[ \t]+\|?|[ \t]*\|[ \t]?|[ \t]*$)", re.M)
_MIN_RUN = 10  # consecutive numbered lines that make a margin
_MAX_NUMBER = 40
_MARGIN_SHARE = 0.6  # of the non-blank lines, in margin runs
_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{2,}")


@dataclass
class Layout:
    text: str
    changed: str | None = None  # what was done, for a warning
    unreadable: str | None = None


def _margin_runs(lines: list[str]) -> tuple[list[tuple[int, int]], int]:
    """(start, end) line-index ranges where consecutive lines carry 1, 2, 3... and how many
    margin numbers stood alone on their line."""
    runs: list[tuple[int, int]] = []
    alone = 0
    i, n = 0, len(lines)
    while i < n:
        m = _NUMBERED.match(lines[i])
        if m is None or m.group(1) != "1":
            i += 1
            continue
        j, expect = i, 1
        while j < n:
            mm = _NUMBERED.match(lines[j])
            if mm is None or int(mm.group(1)) != expect or expect > _MAX_NUMBER:
                break
            expect += 1
            j += 1
        if j - i >= _MIN_RUN:
            runs.append((i, j))
            alone += sum(1 for k in range(i, j) if _number_alone(lines[k]))
            i = j
        else:
            i += 1
    return runs, alone


def _number_alone(line: str) -> bool:
    m = _NUMBERED.match(line)
    return m is not None and not line[m.end():].strip()


def pleading_margin(text: str) -> Layout | None:
    """The text without its pleading-paper line numbers, or None when it has no such margin."""
    if len(_NUMBERED.findall(text[:200_000])) < _MIN_RUN:
        return None  # the common case: no margin, one regex pass
    lines = text.split("\n")
    runs, alone = _margin_runs(lines)
    if not runs:
        return None
    in_runs = sum(e - s for s, e in runs)
    nonblank = sum(1 for ln in lines if ln.strip())
    if in_runs < _MARGIN_SHARE * nonblank or alone < 2:
        if in_runs >= 2 * _MIN_RUN and alone >= 2:
            return Layout(text, unreadable=(
                f"text-line-numbers: {in_runs} of {nonblank} lines carry pleading-paper line numbers and the "
                "rest do not; which numbers are margin and which are words cannot be told"))
        return None
    out = list(lines)
    for s, e in runs:
        for k in range(s, e):
            m = _NUMBERED.match(out[k])
            assert m is not None
            out[k] = out[k][m.end():]
    # the text column's own indentation is what is left of the margin: remove the common part
    body = [out[k] for s, e in runs for k in range(s, e) if out[k].strip()]
    indent = min((len(ln) - len(ln.lstrip(" ")) for ln in body), default=0)
    for s, e in runs:
        for k in range(s, e):
            out[k] = out[k][indent:] if out[k][:indent].strip() == "" else out[k].lstrip()
    return Layout("\n".join(out), changed=f"removed pleading-paper line numbers from {in_runs} lines "
                                          f"({len(runs)} page(s))")


_GAP = re.compile(r"\S( {3,})\S")
_MIN_COLUMN_LINES = 8
_MIN_SIDE = 20  # characters of prose a column needs


def _prose(s: str) -> bool:
    return len(_WORD.findall(s)) >= 3 and sum(c.isdigit() for c in s) * 4 < len(s.strip())


def _gutter(lines: list[str]) -> int | None:
    """The column where a block's lines are split by a gutter of spaces, or None."""
    votes: dict[int, int] = {}
    for ln in lines:
        for m in _GAP.finditer(ln):
            a, b = m.span(1)
            if a >= _MIN_SIDE:
                for g in range(a + 1, b - 1):
                    votes[g] = votes.get(g, 0) + 1
    if not votes:
        return None
    g, n = max(sorted(votes.items()), key=lambda kv: kv[1])
    return g if n >= _MIN_COLUMN_LINES else None


def two_columns(text: str) -> Layout | None:
    """The text read column by column where it is set in two columns of prose; None when it
    is not."""
    if len(_GAP.findall(text[:200_000])) < _MIN_COLUMN_LINES:
        return None
    out: list[str] = []
    changed = 0
    unreadable = None
    for page in text.split("\f"):
        lines = page.split("\n")
        g = _gutter(lines)
        if g is None:
            out.append(page)
            continue
        split = [_split(ln, g) for ln in lines]
        both = [i for i, s in enumerate(split) if s is not None and s[0].strip() and s[1]]
        prose = [i for i in both if _prose(split[i][0]) and _prose(split[i][1])]  # type: ignore[index]
        if len(prose) < _MIN_COLUMN_LINES or len(prose) < 0.6 * len(both):
            out.append(page)  # a table, or a few wide gaps: not two columns of prose
            continue
        first, last = both[0], both[-1]
        crossing = [i for i in range(first, last + 1) if split[i] is None]
        block = [s for s in split[first:last + 1] if s is not None]
        if len(crossing) > 0.1 * (last - first + 1) or _has_gutter([a for a, _ in block]) or \
                _has_gutter([b for _, b in block]):
            unreadable = unreadable or (f"text-columns: lines {first + 1}-{last + 1} are set in columns whose order "
                                        "cannot be established (text crosses the gutter, or more than two columns)")
            out.append(page)
            continue
        # a line that crosses the gutter (a rule, a heading over both columns) stays whole, in
        # the left column's place: no word is dropped
        left = [split[i][0] if split[i] is not None else lines[i] for i in range(first, last + 1)]  # type: ignore[index]
        right = [b for _, b in block if b]
        out.append("\n".join(lines[:first] + left + [""] + right + lines[last + 1:]))
        changed += last - first + 1
    if not changed and not unreadable:
        return None
    return Layout("\f".join(out), changed=f"read {changed} lines set in two columns column by column" if changed else None,
                  unreadable=unreadable)


def _split(line: str, g: int) -> tuple[str, str] | None:
    """(left, right) of a line at the gutter column ``g``; None when text crosses it."""
    if len(line) <= g:
        return line.rstrip(), ""
    if line[g - 1:g + 2].strip():
        return None
    return line[:g].rstrip(), line[g:].strip()


def _has_gutter(side: list[str]) -> bool:
    """Whether one column has a gutter of its own: three columns or more."""
    return _gutter([" " * _MIN_SIDE + s.strip() for s in side if s.strip()]) is not None
