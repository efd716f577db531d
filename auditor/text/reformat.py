"""The same document as another typist would lay it out: same words, other layout.

Production code, not demo material: the corpus-drawn positive control re-lays-out a stored
document with :func:`reformat` and requires the audit to find it (``auditor.controls``); the
demo corpus, the benchmarks and the tests reformat their synthetic contracts with it too. Pure
and deterministic: the layout comes from ``seed`` (an unseeded ``random`` is never used).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from itertools import pairwise
from typing import TypeVar

T = TypeVar("T")

_WRAP_CACHE: dict[int, re.Pattern[str]] = {}
PARAGRAPH_BREAK = re.compile(r"\n(?:[ \t]*\n)+")


def pick(rng: random.Random, seq: Sequence[T]) -> T:
    return seq[int(rng.random() * len(seq))]


def wrap(par: str, width: int, indent: str = "") -> str:
    """Greedy word wrap of a one-line paragraph, as one regex pass (textwrap is 50x slower)."""
    w = max(width - len(indent), 10)
    pat = _WRAP_CACHE.get(w)
    if pat is None:
        pat = _WRAP_CACHE[w] = re.compile(rf"\S.{{0,{w - 1}}}(?=\s|$)|\S+")
    lines = pat.findall(par)
    if indent:
        return indent + ("\n" + indent).join(lines)
    return "\n".join(lines)



_OPEN_DQ = re.compile(r'(^|[\s(\[{\u2014])"', re.M)
_OPEN_SQ = re.compile(r"(^|[\s(\[{\u2014])'", re.M)
_INLINE_HEADING = re.compile(r"^(\s*\d+(?:\.\d+)+\.?\s+)([A-Z][^.\n]{0,80}?\.)(?=\s)")
_TABLE_GAP = re.compile(r"\S {2,}\S")
HYPHENATED_LINE_END = re.compile(r"(?<=[^\W_]-)[ \t]*\n[ \t]*")


def paragraphs(text: str) -> list[str]:
    return PARAGRAPH_BREAK.split(text.strip("\n"))


def is_table(par: str) -> bool:
    if "  " not in par:
        return False
    lines = par.split("\n")
    return len(lines) >= 2 and sum(1 for ln in lines if _TABLE_GAP.search(ln)) >= len(lines) // 2 + 1


def is_block(par: str) -> bool:
    """Lines that must keep their breaks: signature blocks, addresses, cover-page stacks.

    Told from wrapped prose by a line that greedy wrapping would have filled further: the
    next line's first word would still have fitted within the paragraph's longest line.
    """
    lines = par.split("\n")
    if len(lines) < 2:
        return False
    longest = max(len(ln) for ln in lines)
    for ln, nxt in pairwise(lines):
        first = nxt.split(None, 1)
        if first and len(ln.rstrip()) + 1 + len(first[0]) <= longest:
            return True
    return False


def is_heading(par: str) -> bool:
    lines = par.strip().split("\n")
    if len(lines) > 3 or not any(c.isalpha() for c in par):
        return False
    last = par.rstrip()[-1]
    return (last not in ".;:,)" and all(len(ln) <= 90 for ln in lines) and ":" not in par
            and not par.lstrip().startswith(("(", "$", "/s/", "By")) and not is_table(par))


def _unwrap(par: str) -> str:
    """A paragraph's lines as one line; a word hyphenated at a line end stays hyphenated."""
    if "-\n" in par:
        par = HYPHENATED_LINE_END.sub("", par)
    return " ".join(par.split())


def curly_quotes(text: str) -> str:
    """Typographic quotes and apostrophes, as word processors write them."""
    text = _OPEN_DQ.sub("\\1\u201c", text).replace('"', "\u201d")
    text = _OPEN_SQ.sub("\\1\u2018", text).replace("'", "\u2019")
    return text.replace(" -- ", " \u2014 ")


def upper_headings(text: str) -> str:
    """Upper-case heading paragraphs and the run-in headings of numbered sections."""
    out = []
    for par in paragraphs(text):
        if is_heading(par):
            par = par.upper()
        else:
            par = _INLINE_HEADING.sub(lambda m: m.group(1) + m.group(2).upper(), par)
        out.append(par)
    return "\n\n".join(out) + "\n"


def rewrap(text: str, width: int, indent: int = 0) -> str:
    """Re-flow prose paragraphs to ``width`` columns, first lines indented by ``indent``.

    Tables, headings and short-line blocks (signatures, addresses) keep their line breaks.
    """
    pad = " " * indent
    out = []
    for par in paragraphs(text):
        if is_table(par) or is_block(par) or is_heading(par):
            out.append(par)
            continue
        flat = _unwrap(par)
        if indent:
            first, *rest = wrap(pad + flat, width).split("\n", 1)
            out.append(first if not rest else first + "\n" + wrap(rest[0].replace("\n", " "), width))
        else:
            out.append(wrap(flat, width))
    return "\n\n".join(out) + "\n"


_VOWELS = frozenset("aeiouyAEIOUY")


def _break_point(word: str, room: int) -> int:
    """Where to hyphenate ``word`` with at most ``room`` letters before the hyphen: before a
    consonant between vowels (``agree-ments``) or between doubled consonants (``resel-ler``);
    0 if no such point leaves three letters on each side."""
    for k in range(min(room, len(word) - 3), 2, -1):
        a, b, c = word[k - 1], word[k], word[k + 1]
        if b not in _VOWELS and ((a in _VOWELS and c in _VOWELS) or a == b):
            return k
    return 0


def hyphenate_line_ends(text: str, width: int) -> str:
    """Break long words across line ends with a hyphen, as typesetting does.

    When the next line starts with a word of 8+ letters and the current line has room for a
    syllable-like head of it (three letters or more) plus a hyphen, that head moves up.
    """
    out = []
    for par in paragraphs(text):
        if is_table(par) or is_block(par) or is_heading(par):
            out.append(par)
            continue
        lines = par.split("\n")
        for i in range(len(lines) - 1):
            nxt = lines[i + 1]
            stripped = nxt.lstrip()
            word_end = stripped.find(" ")
            word = stripped if word_end < 0 else stripped[:word_end]
            if len(word) < 8 or not word.isalpha() or word_end < 0:
                continue
            k = _break_point(word, width - len(lines[i]) - 2)
            if k:
                lines[i] += " " + word[:k] + "-"
                lines[i + 1] = nxt[: len(nxt) - len(stripped)] + stripped[k:]
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def add_page_furniture(text: str, lines_per_page: int, header: str) -> str:
    """Split into pages: a running header, the page's lines, ``Page n of N``, a form feed."""
    lines = text.rstrip("\n").split("\n")
    per = max(5, lines_per_page)
    pages = [lines[i : i + per] for i in range(0, len(lines), per)]
    total = len(pages)
    out = []
    for n, page in enumerate(pages, 1):
        out.append(f"{header}\n\n" + "\n".join(page) + f"\n\n{f'Page {n} of {total}':^60}".rstrip())
    return "\n\f\n".join(out) + "\n"


def reformat(text: str, seed: int) -> str:
    """The same document as another typist would lay it out.

    Upper-case headings, curly quotes, a new line width and indent, words hyphenated at line
    ends, and page headers, footers and form feeds; the parameters come from ``seed``.
    """
    rng = random.Random(f"reformat/{seed}")
    width = pick(rng, [58, 62, 66, 70, 84, 92])
    indent = pick(rng, [0, 0, 2, 4, 5])
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")[:50]
    header = pick(rng, [f"Exhibit 10.{int(rng.random() * 40) + 1}", first.upper(), "CONFIDENTIAL"])
    t = upper_headings(text)
    t = curly_quotes(t)
    t = rewrap(t, width, indent)
    t = hyphenate_line_ends(t, width)
    return add_page_furniture(t, int(rng.random() * 17) + 44, header)


