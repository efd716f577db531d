"""Text normalisation that survives reformatting.

Two documents that say the same words in the same order must give the same word sequence,
whatever their layout: line width, indentation, blank lines, page breaks, case, typographic
quotes and dashes, ligatures, full-width forms, and words hyphenated across line ends.

The rules (``NORMALIZATION_VERSION`` names them; bump it when any rule changes, since the
index records it and refuses to mix versions):

1. Unicode NFKC, full case folding, NFKC again (folding can leave decomposed sequences).
2. Soft hyphens and Unicode hyphens count as ``-``. A hyphen between two letters or digits is
   removed, joining them, whether the next part follows directly (``non-exclusive``) or after a
   line break (``agree-\\n  ment``); so a word broken at a line end and the same word unbroken
   normalise alike, as do a compound written on one line and wrapped at its hyphen.
3. Words are maximal runs of letters and digits (``str.isalnum``); everything else, quotes and
   dashes included, only separates words.

``words_bytes`` is the fast path used to build the index (ASCII documents skip the Unicode
steps, which are identities on ASCII). ``words_with_offsets`` gives the same words with their
character spans in the original text, for locating matches; a property test holds the two to
the same output.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

NORMALIZATION_VERSION = "nfkc-casefold-dehyphen-alnum/1"

_HYPHEN_CHARS = "\u00ad\u2010\u2011"
# Starts with the literal so the regex engine can skip straight to hyphens.
_JOIN = re.compile(r"-(?<=[^\W_]-)(?:[ \t]*[\n\r\f\v\x1c-\x1e\x85\u2028\u2029]\s*)?(?=[^\W_])")
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_WORD = re.compile(r"[^\W_]+")
# ASCII letters and digits map to themselves, other ASCII bytes to a space; bytes >= 0x80
# (parts of UTF-8 sequences of letters) are kept.
_BYTE_TABLE = bytes(
    b if (b >= 0x80 or chr(b).isalnum()) else 0x20 for b in range(256)
)


def _fold(piece: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", piece).casefold())


def _fold_text(text: str) -> str:
    if text.isascii():
        return text.lower()
    return _fold(text)


def _to_hyphen(text: str) -> str:
    for ch in _HYPHEN_CHARS:
        if ch in text:
            text = text.replace(ch, "-")
    return text


def _dehyphen(text: str) -> str:
    if not text.isascii():
        text = _to_hyphen(text)
    if "-" not in text:
        return text
    return _JOIN.sub("", text)


def words_bytes(text: str) -> list[bytes]:
    """The normalised words of ``text`` as UTF-8 bytes (the form the index hashes)."""
    s = _dehyphen(_fold_text(text))
    if not s.isascii():
        for ch in set(_NON_ASCII.findall(s)):
            if not ch.isalnum():
                s = s.replace(ch, " ")
    return s.encode("utf-8", "surrogatepass").translate(_BYTE_TABLE).split()


def words(text: str) -> list[str]:
    """The normalised words of ``text``."""
    return [w.decode("utf-8", "surrogatepass") for w in words_bytes(text)]


def normalize(text: str) -> str:
    """Canonical normalised text: the words joined by single spaces. Idempotent."""
    return " ".join(words(text))


def words_with_offsets(text: str) -> tuple[list[str], list[int], list[int]]:
    """Normalised words with their ``[start, end)`` character offsets in ``text``.

    Slower than ``words_bytes``: it keeps, for every character of the normalised text, the
    span of original text it came from. A run of non-ASCII characters is folded together
    with the ASCII character before it; NFKC never composes across an ASCII character, so
    folding piece by piece equals folding the whole text.
    """
    out: list[str] = []
    ostart: list[int] = []
    oend: list[int] = []
    pos = 0
    for m in _NON_ASCII_RUN.finditer(text):
        a, b = m.start(), m.end()
        if a > pos:
            a -= 1  # fold the run with the ASCII character before it
        if a > pos:
            chunk = text[pos:a].lower()
            out.append(chunk)
            ostart.extend(range(pos, a))
            oend.extend(range(pos + 1, a + 1))
        folded = _fold(text[a:b])
        out.append(folded)
        ostart.extend([a] * len(folded))
        oend.extend([b] * len(folded))
        pos = b
    if pos < len(text):
        out.append(text[pos:].lower())
        ostart.extend(range(pos, len(text)))
        oend.extend(range(pos + 1, len(text) + 1))
    s = _to_hyphen("".join(out))
    if "-" in s:
        keep_s: list[str] = []
        keep_a: list[int] = []
        keep_b: list[int] = []
        last = 0
        for m in _JOIN.finditer(s):
            keep_s.append(s[last : m.start()])
            keep_a.extend(ostart[last : m.start()])
            keep_b.extend(oend[last : m.start()])
            last = m.end()
        keep_s.append(s[last:])
        keep_a.extend(ostart[last:])
        keep_b.extend(oend[last:])
        s, ostart, oend = "".join(keep_s), keep_a, keep_b
    found = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(s)]
    return (
        [w for w, _, _ in found],
        [ostart[a] for _, a, _ in found],
        [oend[b - 1] for _, _, b in found],
    )


_ALNUM_ASCII = np.frombuffer(bytes(1 if chr(b).isalnum() else 0 for b in range(128)), dtype=np.uint8)


def _simple_class(ch: str) -> int | None:
    """1 if ``ch`` folds to letters/digits only, 0 if to separators only; None if it needs the
    exact path (combining marks, hyphens that join, folds mixing letters and separators)."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Mc", "Me") or ch in _HYPHEN_CHARS:
        return None
    folded = _fold(ch)
    if folded and all(c.isalnum() for c in folded):
        return 1
    if not any(c.isalnum() for c in folded) and "-" not in folded:
        return 0
    return None


def word_offsets(text: str) -> tuple[list[int], list[int]]:
    """``[start, end)`` character offsets of each normalised word of ``text``.

    Same words as ``words_bytes``. Vectorised: a letter/digit mask over the code points, with
    joined hyphens bridged. A text holding a character whose folding changes word boundaries
    (a combining mark, a ligature of letters and punctuation) takes the exact per-character
    path of ``words_with_offsets``.
    """
    if text.isascii():
        codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        mask = _ALNUM_ASCII[codes]
    else:
        codes32 = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        mask = np.zeros(len(codes32), dtype=np.uint8)
        ascii_pos = codes32 < 128
        mask[ascii_pos] = _ALNUM_ASCII[codes32[ascii_pos]]
        high = codes32[~ascii_pos]
        table = {}
        for cp in np.unique(high).tolist():
            cls = _simple_class(chr(cp))
            if cls is None:
                _, starts, ends = words_with_offsets(text)
                return starts, ends
            table[cp] = cls
        keys = np.array(sorted(table), dtype=np.uint32)
        vals = np.array([table[k] for k in sorted(table)], dtype=np.uint8)
        mask[~ascii_pos] = vals[np.searchsorted(keys, high)]
    if "-" in text:
        mask = mask.copy()
        for m in _JOIN.finditer(text):
            mask[m.start() : m.end()] = 1
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    return np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist()
