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
    """``_fold(text)``, computed piece by piece: mostly-ASCII text (curly quotes in English
    prose) folds only its non-ASCII runs, each with the ASCII character before it (NFKC never
    composes across an ASCII character, so the result is the same)."""
    if text.isascii():
        return text.lower()
    out: list[str] = []
    pos = 0
    for m in _NON_ASCII_RUN.finditer(text):
        a, b = m.start(), m.end()
        if a > pos:
            a -= 1
            out.append(text[pos:a].lower())
        out.append(_fold(text[a:b]))
        pos = b
    out.append(text[pos:].lower())
    return "".join(out)


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


def _fold_with_origin(text: str) -> tuple[str, np.ndarray, np.ndarray]:
    """The folded, dehyphenated text and, per character, the original span it came from.

    A run of non-ASCII characters is folded together with the ASCII character before it; NFKC
    never composes across an ASCII character, so folding piece by piece equals folding the
    whole text, and every character of a folded piece maps to the whole piece.
    """
    pieces: list[str] = []
    seg_len: list[int] = []  # output length of each segment
    seg_a: list[int] = []  # original start
    seg_b: list[int] = []  # original end
    seg_ident: list[bool] = []  # one output character per input character
    pos = 0
    for m in _NON_ASCII_RUN.finditer(text):
        a, b = m.start(), m.end()
        if a > pos:
            a -= 1  # fold the run with the ASCII character before it
        if a > pos:
            pieces.append(text[pos:a].lower())
            seg_len.append(a - pos), seg_a.append(pos), seg_b.append(a), seg_ident.append(True)
        folded = _fold(text[a:b])
        pieces.append(folded)
        seg_len.append(len(folded)), seg_a.append(a), seg_b.append(b), seg_ident.append(False)
        pos = b
    if pos < len(text):
        pieces.append(text[pos:].lower())
        seg_len.append(len(text) - pos), seg_a.append(pos), seg_b.append(len(text)), seg_ident.append(True)
    s = _to_hyphen("".join(pieces))
    lens = np.array(seg_len, dtype=np.int64)
    a_arr, b_arr = np.array(seg_a, dtype=np.int64), np.array(seg_b, dtype=np.int64)
    ident = np.repeat(np.array(seg_ident, dtype=bool), lens)
    within = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    seg_start, seg_end = np.repeat(a_arr, lens), np.repeat(b_arr, lens)
    ostart = np.where(ident, seg_start + within, seg_start)
    oend = np.where(ident, seg_start + within + 1, seg_end)
    if "-" in s:
        keep = np.ones(len(s), dtype=bool)
        kept: list[str] = []
        last = 0
        for m in _JOIN.finditer(s):
            keep[m.start() : m.end()] = False
            kept.append(s[last : m.start()])
            last = m.end()
        kept.append(s[last:])
        s, ostart, oend = "".join(kept), ostart[keep], oend[keep]
    return s, ostart, oend


def _alnum_mask(s: str) -> np.ndarray:
    """1 where a character of ``s`` is a letter or digit (``str.isalnum``, the regex ``[^\\W_]``)."""
    if s.isascii():
        return _ALNUM_ASCII[np.frombuffer(s.encode("ascii"), dtype=np.uint8)]
    cps = np.frombuffer(s.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    mask = np.zeros(len(cps), dtype=np.uint8)
    low = cps < 128
    mask[low] = _ALNUM_ASCII[cps[low]]
    high = cps[~low]
    keys = np.unique(high)
    vals = np.array([1 if chr(c).isalnum() else 0 for c in keys.tolist()], dtype=np.uint8)
    mask[~low] = vals[np.searchsorted(keys, high)]
    return mask


def _bounds(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def words_with_offsets(text: str) -> tuple[list[str], list[int], list[int]]:
    """Normalised words with their ``[start, end)`` character offsets in ``text``.

    Same words as ``words_bytes``; offsets of a word touching a folded non-ASCII piece cover
    the whole piece.
    """
    s, ostart, oend = _fold_with_origin(text)
    a, b = _bounds(_alnum_mask(s))
    return ([s[x:y] for x, y in zip(a.tolist(), b.tolist(), strict=True)],
            ostart[a].tolist(), oend[b - 1].tolist())


_ALNUM_ASCII = np.frombuffer(bytes(1 if chr(b).isalnum() else 0 for b in range(128)), dtype=np.uint8)


def word_offsets(text: str) -> tuple[list[int], list[int]]:
    """``[start, end)`` character offsets of each normalised word of ``text`` (vectorised)."""
    if text.isascii():
        mask = _ALNUM_ASCII[np.frombuffer(text.encode("ascii"), dtype=np.uint8)]
        if "-" in text:
            mask = mask.copy()
            for m in _JOIN.finditer(text):
                mask[m.start() : m.end()] = 1
        a, b = _bounds(mask)
        return a.tolist(), b.tolist()
    s, ostart, oend = _fold_with_origin(text)
    a, b = _bounds(_alnum_mask(s))
    return ostart[a].tolist(), oend[b - 1].tolist()
