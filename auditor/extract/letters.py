"""Letter-spaced text ("S U P P L Y   A G R E E M E N T"), which every format can carry: a
reader sees words, an extractor single letters. Where word gaps are wider than letter gaps the
words are rejoined; where they are not, the text cannot be read as words and fails closed."""

from __future__ import annotations

import re

from auditor.errors import refusal
from auditor.text.normalize import words_bytes

refusal("letter-spaced", "ingest the document it was made from, or a copy without letter spacing (a PDF "
                         "printed again, or OCR of it: ocrmypdf --force-ocr in.pdf out.pdf)")

# One space (or no-break space) between the letters of a word, two or more between words.
_SPACED_WORD = re.compile(r"(?<![^\s])(?:[^\s][ \xa0])+[^\s](?![^\s])")
_WORD_GAP = re.compile(r"([ \xa0]{2,}|\t|\n)")
#: A run of this many single-letter words in a row is letter-spaced text, not initials or a list.
MIN_RUN = 8
#: A run this long is a letter-spaced sentence, not a word ("W I T N E S S E T H" has 10).
MAX_RUN = 40
#: Letters in runs beyond this share of all letters make a document unreadable as words.
MAX_SHARE = 0.02
# MIN_RUN single letters one (or two) spaces apart, on folded bytes
_RUN = re.compile(rb" a a a a a a a a(?: a)*(?= )")
_RUN2 = re.compile(rb"  a  a  a  a  a  a  a  a(?:  a)*(?= )")
_NEEDLE, _NEEDLE2 = b" a a a ", b"  a  a  a  "


def join_letter_spaced(text: str) -> tuple[str, int]:
    """Rejoin letter-spaced words where word gaps are wider than letter gaps; (text, words).

    Only a piece whose words rejoining changes is rejoined and counted: the ellipsis ". . .",
    "* * *" or "§ 2" between the wide gaps of a justified line reads as the same words either
    way, so it is stored as it stands and no notice is given."""
    if "  " not in text and "\t" not in text and "\xa0" not in text:
        return text, 0
    joined = 0

    def segment(seg: str) -> str:
        nonlocal joined
        if _SPACED_WORD.fullmatch(seg):
            together = seg.replace(" ", "").replace("\xa0", "")
            if words_bytes(together) == words_bytes(seg):
                return seg
            joined += 1
            return together
        return seg

    pieces = _WORD_GAP.split(text)
    out = [p if i % 2 else segment(p) for i, p in enumerate(pieces)]
    if not joined:
        return text, 0
    return "".join(p if not i % 2 or p[:1] not in (" ", "\xa0") else " " for i, p in enumerate(out)), joined


def letter_spaced_runs(text: str) -> list[int]:
    """Lengths of the runs of at least ``MIN_RUN`` single-letter words in a row on a line, one or
    two spaces apart (ASCII letters, found on bytes for speed; digits, punctuation and line ends
    end a run)."""
    return _runs(_folded(text))


def _runs(folded: bytes) -> list[int]:
    return [len(m.group()) // 2 for m in _RUN.finditer(folded)] + [
        len(m.group()) // 3 for m in _RUN2.finditer(folded)]


def letter_spacing(text: str, min_joined: int = 2) -> tuple[str, int, str | None]:
    """(text with letter-spaced words rejoined, how many, why what is left cannot be read as
    words): :func:`join_spaced_lines`, then :func:`letter_spaced_reason`, folding the text once
    when there is nothing to rejoin (as in most documents)."""
    folded = _folded(text)
    joined, n = join_spaced_lines(text, min_joined, folded)
    return joined, n, letter_spaced_reason(joined, None if n else folded)


def letter_spaced_reason(text: str, folded: bytes | None = None) -> str | None:
    """``letter-spaced: ...`` when ``text`` (already rejoined where it could be) still holds
    letter-spaced words a reader sees as words, or None. A word such as "W I T N E S S E T H" or
    an alphabet of links is not enough: a run of ``MAX_RUN`` letters is, or as many letters in
    shorter runs when they are more than ``MAX_SHARE`` of the text's letters."""
    if folded is None:
        folded = _folded(text)
    if _NEEDLE not in folded and _NEEDLE2 not in folded:  # no three single letters in a row
        return None
    runs = _runs(folded)
    if not runs:
        return None
    letters = sum(runs)
    if max(runs) >= MAX_RUN or (letters >= MAX_RUN and letters > MAX_SHARE * folded.count(b"a")):
        return (f"letter-spaced: {letters} letters stand alone in runs of {MIN_RUN} or more single-letter "
                f"words (the longest {max(runs)}), with no wider gaps to tell the words apart")
    return None


def join_spaced_lines(text: str, min_joined: int = 3, folded: bytes | None = None) -> tuple[str, int]:
    """:func:`join_letter_spaced` on the lines that hold three single letters in a row (found on
    bytes), when at least ``min_joined`` words are rejoined: a stray spaced pair is left alone."""
    if folded is None:
        folded = _folded(text)
    pos = folded.find(_NEEDLE)
    if pos < 0:
        return text, 0
    hits = []
    line = last = 0
    while pos >= 0:
        line += folded.count(b"\n", last, pos)
        hits.append(line)
        end = folded.find(b"\n", pos)
        if end < 0:
            break
        line += 1
        last = end + 1
        pos = folded.find(_NEEDLE, end)
    lines = text.split("\n")
    total = 0
    for i in hits:
        lines[i], n = join_letter_spaced(lines[i])
        total += n
    return ("\n".join(lines), total) if total >= min_joined else (text, 0)


def _folded(text: str) -> bytes:
    """Every ASCII letter as ``a``, whitespace (no-break spaces too) as a space, line ends kept,
    anything else as ``x``, between two spaces: runs of single letters are then found by byte
    search (a line's number is its count of line ends before it)."""
    if "\xa0" in text:
        text = text.replace("\xa0", " ")
    return b" " + text.encode("utf-8", "replace").translate(_FOLD) + b" "


def _fold_table() -> bytes:
    table = bytearray(b"x" * 256)
    for c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz":
        table[c] = ord("a")
    for c in b" \t\r\f\v":
        table[c] = ord(" ")
    table[ord("\n")] = ord("\n")
    return bytes(table)


_FOLD = _fold_table()
