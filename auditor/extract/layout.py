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
  block two columns: the left column is read, then the right. The gutter is found in the text
  as an editor lays it out: tabs expanded to their tab stops, a column rule (``|``, ``│``)
  between blanks read as the blank band it draws (the rule is not a word).
- The margin numbers of pleading paper may stand at the start of the lines or at their end,
  with a period or without, after the form feed that starts a page, and may count on from
  page to page.

Whether a text is worth reading for a layout is decided on its first 50,000 characters (some
fifteen pages), so that ordinary text pays one fast scan: a layout that starts later is read
as stored. Where a layout is recognised but its order cannot be established (a margin of numbers that
does not count the lines, three or more columns, columns that cross their gutter), the text is
returned as stored with a reason code (``text-line-numbers:``, ``text-columns:``), so that a
gate does not audit a reading it cannot vouch for. Tables (figures beside labels) are no
columns of prose and are left as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from auditor.errors import refusal

refusal("text-columns", "ingest the document it was made from, or a copy set in one column")
refusal("text-line-numbers", "ingest the document it was made from, or a copy without line numbers in the margin")

# A margin number: at the start of a line (after the form feed that starts a page, as pdftotext
# writes it), or at its end (a right-hand margin); bare, or marked as listings and transcripts
# mark it: "12.", "12:", "12)", "(12)", "[12]" (grep -n, nl -s, an editor's printout).
_NUMBERED = re.compile(r"^\f?[ \t]{0,8}[\[(]?[ \t]?(\d{1,4})[\]).:]?(?:[ \t]+\|?|[ \t]*\|[ \t]?|[ \t]*$)")
_NUMBERED_RIGHT = re.compile(r"(?:^\f?[ \t]*|(?<=\S)[ \t]{2,})(\d{1,4})\.?[ \t]*$")
_NUMBERED_QUICK = re.compile(r"\n\f?[ \t]{0,8}[\[(]?[ \t]?\d{1,4}[\]).:]?(?:[ \t|]|\n)|\d[ \t]*\n")  # every line a margin takes, but the first
_MIN_RUN = 10  # consecutive numbered lines that make a margin
_HEAD = 50_000  # characters (some fifteen pages) looked at to decide whether a layout is worth reading for
_MAX_NUMBER = 9999  # a margin may number the lines on from page to page
_MARGIN_SHARE = 0.6  # of the non-blank lines, in margin runs
_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{2,}")


@dataclass
class Layout:
    text: str
    changed: str | None = None  # what was done, for a warning
    unreadable: str | None = None


def _margin_runs(lines: list[str], number: re.Pattern[str] = _NUMBERED) -> tuple[list[tuple[int, int]], int]:
    """(start, end) line-index ranges where consecutive lines carry 1, 2, 3... (each page from
    1, or on from page to page) and how many margin numbers stood alone on their line."""
    runs: list[tuple[int, int]] = []
    alone = 0
    i, n = 0, len(lines)
    while i < n:
        m = number.search(lines[i])
        first = int(m.group(1)) if m is not None else 0
        if m is None or not (first == 1 or (runs and first == _last_number(lines, runs[-1], number) + 1)):
            i += 1
            continue
        j, expect = i, first
        while j < n:
            mm = number.search(lines[j])
            if mm is None or int(mm.group(1)) != expect or expect > _MAX_NUMBER:
                break
            expect += 1
            j += 1
        if j - i >= _MIN_RUN:
            runs.append((i, j))
            alone += sum(1 for k in range(i, j) if _number_alone(lines[k], number))
            i = j
        else:
            i += 1
    return runs, alone


def _last_number(lines: list[str], run: tuple[int, int], number: re.Pattern[str]) -> int:
    m = number.search(lines[run[1] - 1])
    return int(m.group(1)) if m is not None else -1


def _number_alone(line: str, number: re.Pattern[str] = _NUMBERED) -> bool:
    m = number.search(line)
    return m is not None and not (line[m.end():] + line[:m.start()]).strip(" \t\f")


def pleading_margin(text: str) -> Layout | None:
    """The text without its pleading-paper line numbers, or None when it has no such margin."""
    if len(_NUMBERED_QUICK.findall(text, 0, _HEAD)) < _MIN_RUN - 1:
        return None  # the common case: no margin (a pattern that starts with a literal: fast)
    lines = text.split("\n")
    runs, alone = _margin_runs(lines)
    number, right = _NUMBERED, False
    if not runs or alone < 2:
        runs_r, alone_r = _margin_runs(lines, _NUMBERED_RIGHT)
        if sum(e - s for s, e in runs_r) > sum(e - s for s, e in runs):
            runs, alone, number, right = runs_r, alone_r, _NUMBERED_RIGHT, True
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
    feeds = set()
    for s, e in runs:
        for k in range(s, e):
            m = number.search(out[k])
            assert m is not None
            if out[k].startswith("\f"):
                feeds.add(k)
            out[k] = out[k][:m.start()].rstrip() if right else out[k][m.end():]
    if not right:  # the text column's own indentation is what is left of the margin: remove the common part
        body = [out[k] for s, e in runs for k in range(s, e) if out[k].strip()]
        indent = min((len(ln) - len(ln.lstrip(" ")) for ln in body), default=0)
        for s, e in runs:
            for k in range(s, e):
                out[k] = out[k][indent:] if out[k][:indent].strip() == "" else out[k].lstrip()
    for k in feeds:
        out[k] = "\f" + out[k].lstrip("\f")  # the page break stays where it was
    side = "right-hand " if right else ""
    return Layout("\n".join(out), changed=f"removed {side}pleading-paper line numbers from {in_runs} lines "
                                          f"({len(runs)} page(s))")


_GAP = re.compile(r"\S( {3,})\S")
_MIN_COLUMN_LINES = 8
_MIN_SIDE = 20  # characters of prose a column needs


_DIGIT = re.compile(r"\d")
_SAMPLE = 40  # lines of a block looked at before it is taken for a table


def _prose(s: str) -> bool:
    return len(_WORD.findall(s)) >= 3 and len(_DIGIT.findall(s)) * 4 < len(s.strip())


def _mostly_prose(lines: list[str], g: int) -> bool:
    """Whether the first lines with text on both sides of the gutter are prose on both sides
    (a table of figures is not): a sample, so that a filing's tables cost little."""
    seen = prose = 0
    for ln in lines:
        sides = _split(ln, g)
        if sides is None or not sides[0].strip() or not sides[1]:
            continue
        seen += 1
        prose += _prose(sides[0]) and _prose(sides[1])
        if seen >= _SAMPLE:
            break
    return seen >= _MIN_COLUMN_LINES and prose >= 0.6 * seen


# A gutter before prose: three spaces or more (possessive: no backtracking), then a letter or an
# opening quote. The gaps of a table of figures (digits after them) are not counted. The pattern
# starts with a literal, so the engine scans for it fast.
_PROSE_GAP = re.compile(r"   ++(?=[^\W\d_(\"'\[])")
_BEFORE_GAP = re.compile(r"[^\W\d_,.;:)\]\"'!?]")


def _gutter(page: str, min_side: int = _MIN_SIDE) -> int | None:
    """The column where most lines of a page are split by a gutter between prose (the position
    inside the most gaps, found by a sweep over the gaps' ends), or None when fewer than
    :data:`_MIN_COLUMN_LINES` lines share one. One regular-expression pass over the page."""
    events: list[tuple[int, int]] = []
    for m in _PROSE_GAP.finditer(page):
        start, end = m.span()
        line_start = page.rfind("\n", 0, start) + 1
        a, b = start - line_start, end - line_start  # the gap's columns: [a, b)
        if a >= min_side and _BEFORE_GAP.match(page, start - 1):
            events.append((a + 1, 1))
            events.append((b - 1, -1))
    if len(events) < 2 * _MIN_COLUMN_LINES:
        return None
    events.sort()
    best, at, depth = 0, None, 0
    for pos, step in events:  # at a position, gaps that end are counted out before new ones in
        depth += step
        if depth > best:
            best, at = depth, pos
    return at if best >= _MIN_COLUMN_LINES else None


def two_columns(text: str) -> Layout | None:
    """The text read column by column where it is set in two columns of prose; None when it
    is not."""
    if "\t" in text[:_HEAD] or _RULE.search(text, 0, _HEAD):
        text = _as_shown(text)
    if text.count("   ", 0, _HEAD) < _MIN_COLUMN_LINES or len(_PROSE_GAP.findall(text, 0, _HEAD)) < _MIN_COLUMN_LINES:
        return None  # the common case; only the head is looked at, as for a pleading margin
    out: list[str] = []
    changed = 0
    unreadable = None
    for page in text.split("\f"):
        g = _gutter(page)
        lines = page.split("\n")
        if g is None or not _mostly_prose(lines, g):
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


_MIN_NARROW = 8  # characters a narrow column needs: two short words


def column_reading(text: str) -> str | None:
    """The text read column by column wherever a gutter splits words on both sides, though the
    sides are too narrow or too short to be told from a table of labels and values; None when no
    page has such a gutter.

    :func:`two_columns` reads a page in columns only when both sides are prose. Narrow columns
    (two or three words a line) look like a table, and a table read down its columns would
    scramble its rows. Whether the rows or the columns are the order cannot be established from
    the characters, so the rows stay the text and the columns become another reading: a gate
    audits both (:mod:`auditor.gating.readings`)."""
    if "\t" in text[:_HEAD] or _RULE.search(text, 0, _HEAD):
        text = _as_shown(text)
    if text.count("   ", 0, _HEAD) < _MIN_COLUMN_LINES or len(_PROSE_GAP.findall(text, 0, _HEAD)) < _MIN_COLUMN_LINES:
        return None  # the common case: no gutter in the head (a count of a literal first: fast)
    out: list[str] = []
    changed = False
    for page in text.split("\f"):
        g = _gutter(page, _MIN_NARROW)
        lines = page.split("\n")
        split = [_split(ln, g) for ln in lines] if g is not None else []
        worded = [i for i, s in enumerate(split) if s is not None and _WORD.search(s[0]) and _WORD.search(s[1])]
        if g is None or len(worded) < _MIN_COLUMN_LINES:
            out.append(page)
            continue
        first, last = worded[0], worded[-1]
        left = [split[i][0] if split[i] is not None else lines[i] for i in range(first, last + 1)]  # type: ignore[index]
        right = [s[1] for s in split[first:last + 1] if s is not None and s[1]]
        out.append("\n".join(lines[:first] + left + [""] + right + lines[last + 1:]))
        changed = True
    return "\f".join(out) if changed else None


# A column rule: a vertical bar or box-drawing line with blanks on both sides. A gutter is the
# blank band between columns, drawn or not.
_RULE = re.compile(r"(?<=[ \t])[|\u2502\u2503\u2551\u00a6\u2506\u250a](?=[ \t]|$)")


def _as_shown(text: str) -> str:
    """The text as a text editor lays it out, for finding its columns: tabs expanded to the
    next tab stop (every 8 columns), column rules read as the blank band they draw."""
    return "\n".join(_RULE.sub(" ", line.expandtabs(8)) if ("\t" in line or _RULE.search(line)) else line
                     for line in text.split("\n"))


def _split(line: str, g: int) -> tuple[str, str] | None:
    """(left, right) of a line at the gutter column ``g``; None when text crosses it."""
    if len(line) <= g:
        return line.rstrip(), ""
    if line[g - 1:g + 2].strip():
        return None
    return line[:g].rstrip(), line[g:].strip()


def _has_gutter(side: list[str]) -> bool:
    """Whether one column has a gutter of its own: three columns or more."""
    return _gutter("\n".join(" " * _MIN_SIDE + s.strip() for s in side if s.strip())) is not None
