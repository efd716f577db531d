"""Word shingles, their 64-bit hashes, and 1-in-m hash sampling.

A shingle is ``k`` consecutive normalised words. Its hash is computed in two steps so that a
whole document is hashed with a handful of numpy operations instead of one Python call per
shingle (about 1 microsecond each, 24 s for a 140 MB corpus):

1. every distinct word is hashed once with ``xxh3_64(word_utf8, seed)``;
2. the ``k`` word hashes ``w0..w(k-1)`` of a shingle are combined as the polynomial
   ``((w0*M + w1)*M + ...)*M + w(k-1)`` modulo 2**64 (M odd, so order matters), then passed
   through the murmur3 64-bit finaliser so every output bit depends on every input bit.

A shingle is *sampled* when ``hash % modulus == 0``. The rule depends only on the shingle, so
a shingle shared by two documents is sampled in both or in neither; over a random hash the
kept fraction is uniform, which makes the sampled containment an unbiased estimate.
"""

from __future__ import annotations

import functools
import re
import struct
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import xxhash
import zstandard

from auditor.text import normalize
from auditor.text.normalize import NORMALIZATION_VERSION, words_bytes

HASH_NAME = "xxh3_64(word, seed) -> poly(M=0x9E3779B97F4A7C15) -> murmur3-fmix64"

_M = np.uint64(0x9E3779B97F4A7C15)
_F1 = np.uint64(0xFF51AFD7ED558CCD)
_F2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)


@dataclass(frozen=True)
class Params:
    """Everything that shapes the index; stored with it and printed in every report."""

    k: int = 5
    modulus: int = 16
    seed: int = 0x5EED_CA
    hash: str = HASH_NAME
    normalization: str = NORMALIZATION_VERSION

    def as_dict(self) -> dict:
        return asdict(self)


DEFAULT_PARAMS = Params()


_MAX_CACHED_WORDS = 2_000_000  # past this, a pathological vocabulary: the cache starts again


class _Hashes(dict):
    """word -> xxh3_64(word, seed); a missing word is hashed once, on first lookup."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed

    def __missing__(self, word: bytes) -> int:
        h = self[word] = xxhash.xxh3_64_intdigest(word, self.seed)
        return h


_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)


class WordHasher:
    """Hashes words with xxh3_64, remembering each distinct word (corpora reuse few words).

    Called with a list of words, one dictionary look-up each. ``packed`` takes words of at most
    16 bytes as two little-endian integers each instead, and finds a document's distinct words
    with array operations, so that only those are looked up: a sorted table of the words met
    so far (their two integers and hash), new words hashed in Python and merged in batches.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._cache = _Hashes(seed)
        self._table = [np.empty(0, np.uint64) for _ in range(4)]  # key, low, high, hash; sorted by key
        self._pending: list[tuple[int, int, int, int]] = []

    def __call__(self, words: Sequence[bytes]) -> np.ndarray:
        if len(self._cache) > _MAX_CACHED_WORDS:
            self._cache = _Hashes(self.seed)
        return np.fromiter(map(self._cache.__getitem__, words), dtype=np.uint64, count=len(words))

    def packed(self, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(hash of each distinct word, each word's index among them) for words given as the
        little-endian integers of their first and next 8 bytes, zero-padded (words hold no zero
        byte, so the pair is the word). None if two different words met the same sort key."""
        key: np.ndarray = low * _K1 + high * _K2
        key ^= key >> np.uint64(31)
        order = np.argsort(key)
        ranked = key[order]
        head = np.empty(len(key), np.bool_)
        head[:1] = True
        np.not_equal(ranked[1:], ranked[:-1], out=head[1:])
        run = np.cumsum(head) - 1
        first = order[head]
        if not (np.array_equal(low[order], low[first][run]) and np.array_equal(high[order], high[first][run])):
            return None
        inverse = np.empty(len(key), np.int64)
        inverse[order] = run
        return self._lookup(ranked[head], low[first], high[first]), inverse

    def _lookup(self, key: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        t_key, t_low, t_high, t_hash = self._table
        out = np.empty(len(key), np.uint64)
        found = np.zeros(len(key), np.bool_)
        if len(t_key):
            at = np.minimum(np.searchsorted(t_key, key), len(t_key) - 1)
            found = (t_key[at] == key) & (t_low[at] == low) & (t_high[at] == high)
            out[found] = t_hash[at[found]]
        miss = np.flatnonzero(~found)
        if len(miss):
            if len(self._cache) > _MAX_CACHED_WORDS:
                self._cache = _Hashes(self.seed)
            get = self._cache.__getitem__
            for i, k, a, b in zip(miss.tolist(), key[miss].tolist(), low[miss].tolist(), high[miss].tolist(),
                                  strict=True):
                h = get((a.to_bytes(8, "little") + b.to_bytes(8, "little")).rstrip(b"\0"))
                out[i] = h
                self._pending.append((k, a, b, h))
            if len(self._pending) >= max(4096, len(t_key) // 4):
                self._merge()
        return out

    def _merge(self) -> None:
        """Fold the words hashed since into the sorted table (a pathological vocabulary starts
        it again, as the dictionary does)."""
        new = np.array(self._pending, dtype=np.uint64).reshape(-1, 4).T
        self._pending = []
        if len(self._table[0]) + new.shape[1] > _MAX_CACHED_WORDS:
            self._table = [np.empty(0, np.uint64) for _ in range(4)]
        cols = [np.concatenate((t, n)) for t, n in zip(self._table, new, strict=True)]
        order = np.lexsort((cols[2], cols[1], cols[0]))
        cols = [c[order] for c in cols]
        keep = np.ones(len(order), np.bool_)  # a word hashed twice before a merge is kept once
        keep[1:] = (cols[0][1:] != cols[0][:-1]) | (cols[1][1:] != cols[1][:-1]) | (cols[2][1:] != cols[2][:-1])
        self._table = [c[keep] for c in cols]


def combine(word_hashes: np.ndarray, k: int) -> np.ndarray:
    """Hashes of every run of ``k`` consecutive word hashes, in document order."""
    n = len(word_hashes) - k + 1
    if n <= 0:
        return np.empty(0, dtype=np.uint64)
    h = word_hashes[:n].copy()
    for i in range(1, k):
        h *= _M
        h += word_hashes[i : i + n]
    h ^= h >> _S33
    h *= _F1
    h ^= h >> _S33
    h *= _F2
    h ^= h >> _S33
    return h


@dataclass
class Shingled:
    """One text, shingled: counts plus the distinct sampled and (optionally) all hashes."""

    n_words: int
    n_shingles: int  # distinct shingles
    sampled: np.ndarray  # sorted distinct sampled hashes (uint64)
    all: np.ndarray | None = None  # sorted distinct hashes of all shingles


def distinct(hashes: np.ndarray) -> np.ndarray:
    """Sorted distinct values: a sort and a neighbour comparison, many times faster than
    ``np.unique`` on uint64 arrays of this size (which takes a hash-table path in numpy 2)."""
    if len(hashes) < 2:
        return np.sort(hashes)
    s = np.sort(hashes)
    return s[np.concatenate(([True], s[1:] != s[:-1]))]


class HashSet:
    """Sorted distinct hashes with a bit filter in front (about 16 bits per hash, built from
    their top bits): looking up many values costs a few array operations per value and a
    binary search only for the few that pass (the members, and about 1 in 16 of the others).
    ``np.searchsorted`` of every value into a large set costs ten times more."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.bits = max(6, len(values).bit_length() + 4)
        self._shift = np.uint64(64 - self.bits)
        top = (values >> self._shift).astype(np.int64)
        byte = top >> 3
        starts = np.flatnonzero(np.diff(byte, prepend=-1)) if len(byte) else np.empty(0, np.int64)
        self.table = np.zeros(1 << (self.bits - 3), np.uint8)
        if len(starts):
            self.table[byte[starts]] = np.bitwise_or.reduceat(np.left_shift(1, top & 7).astype(np.uint8), starts)

    def __len__(self) -> int:
        return len(self.values)

    def find(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions in ``values``, positions in the set) of the values that are members."""
        if not len(self.values) or not len(values):
            return np.empty(0, np.int64), np.empty(0, np.int64)
        top = (values >> self._shift).astype(np.int64)
        maybe = np.flatnonzero((self.table[top >> 3] >> (top & 7).astype(np.uint8)) & 1)
        sub = values[maybe]
        at = np.minimum(np.searchsorted(self.values, sub), len(self.values) - 1)
        hit = self.values[at] == sub
        return maybe[hit], at[hit]

    def contains(self, values: np.ndarray) -> np.ndarray:
        out = np.zeros(len(values), np.bool_)
        out[self.find(values)[0]] = True
        return out


def sample(hashes: np.ndarray, modulus: int) -> np.ndarray:
    return hashes[hashes % np.uint64(modulus) == 0]


# -- text to shingles: the one way, which every caller shares -------------------------------
#
# Words become shingle hashes only in ``shingle_words``, and a text becomes words only in
# ``text_shingles`` (``normalize.words_bytes``); everything below and every module that shingles
# a text calls these. Two readings differ for a reason and say so where they are:
# ``read_words`` (the index builder's one-pass reading, which also gives each word's offsets
# and the normalised text the index stores; the same words and hashes, tested against
# ``words_bytes``) and ``WordSequence.shingles`` (a stored document's words, read without its
# text); both end in ``combine``. ``measures.jaccard.shingles`` builds shingles as tuples of
# words, the exact reference definition the hashed measures are checked against.

def shingle_words(words: Sequence[bytes], k: int, hasher: WordHasher) -> np.ndarray:
    """Hashes of every ``k``-shingle of ``words`` (UTF-8 bytes), in order, with repeats."""
    return combine(hasher(words), k)


def text_shingles(text: str, params: Params = DEFAULT_PARAMS, hasher: WordHasher | None = None
                  ) -> tuple[int, np.ndarray]:
    """(number of normalised words, hashes of every shingle in document order) of ``text``."""
    words = words_bytes(text)
    return len(words), shingle_words(words, params.k, hasher or WordHasher(params.seed))


def shingle_hashes(text: str, params: Params = DEFAULT_PARAMS, hasher: WordHasher | None = None) -> np.ndarray:
    """Hashes of every shingle of ``text`` in document order (with repeats)."""
    return text_shingles(text, params, hasher)[1]


def shingle_set(text: str, params: Params = DEFAULT_PARAMS, hasher: WordHasher | None = None) -> np.ndarray:
    """The sorted distinct hashes of the shingles of ``text``: its set S(text)."""
    return distinct(shingle_hashes(text, params, hasher))


def shingle_text(
    text: str,
    params: Params = DEFAULT_PARAMS,
    hasher: WordHasher | None = None,
    keep_all: bool = False,
) -> Shingled:
    n_words, seq = text_shingles(text, params, hasher)
    every = distinct(seq)
    return Shingled(
        n_words=n_words,
        n_shingles=len(every),
        sampled=sample(every, params.modulus),
        all=every if keep_all else None,
    )


# -- words with their offsets, in one pass where the text allows -----------------------------------

_BREAK, _BLANK, _SPACE, _OTHER = "\n", " ", "\x1f", "\x00"
_ALNUM = np.frombuffer(bytes(1 if chr(b).isalnum() else 0 for b in range(128)) + bytes(128), dtype=np.bool_)


def _role(ch: str) -> str | None:
    """The ASCII character that plays the part of ``ch`` (one character of folded text) in the
    rules of :mod:`auditor.text.normalize`: a line break, a blank (``[ \\t]``), other white space, a
    hyphen, or anything else that only separates words; None for a letter or digit. The join
    rule itself is asked, so the parts follow it."""
    if ch.isalnum():
        return None
    if ch == "-":
        return "-"
    join = normalize._JOIN.search
    if join(f"a-{ch}a"):
        return _BREAK
    if join(f"a-{ch}\na"):
        return _BLANK
    if join(f"a-\n{ch}a"):
        return _SPACE
    return _OTHER


@functools.lru_cache(maxsize=8192)
def stand_in(ch: str) -> str | None:
    """An ASCII character that gives the same words and the same word offsets as the non-ASCII
    ``ch`` wherever it stands, or None if there is none.

    There is one when ``ch`` only separates words: it folds (``normalize``'s own folding) to
    characters that are not letters or digits and that all play one part (curly quotes, dashes,
    no-break spaces, section signs). Letters, combining marks (which compose with the character
    before them), characters that vanish (which join the words around them), surrogates and
    anything that folds to a letter have none: their texts take the reference path.
    """
    if ch.isascii() or unicodedata.category(ch)[0] == "M" or unicodedata.category(ch) == "Cs":
        return None
    folded = normalize._to_hyphen(normalize._fold_text(ch))
    roles = {_role(c) for c in folded}
    if len(roles) != 1 or None in roles:
        return None
    role = roles.pop()
    if role == "-" and len(folded) != 1:
        return None  # "--" joins nothing where "-" would
    return role


@dataclass
class Tokens:
    """The normalised words of a text (as ``normalize.words_bytes`` gives them) and each word's
    ``[start, end)`` character offsets in the text (as ``normalize.word_offsets`` gives them)."""

    words: list[bytes]
    starts: np.ndarray  # int64
    ends: np.ndarray


def _through_runs(text: str, ends: np.ndarray) -> np.ndarray:
    """A word followed at once by non-ASCII characters ends after them: ``normalize`` folds each
    run of them with the character before it, and that character's offsets cover the run."""
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    high = np.append(cps >= 128, False)
    touched = high[ends]
    if not touched.any():
        return ends
    run_ends = np.flatnonzero(high[:-1] & ~high[1:]) + 1
    ends = ends.copy()
    ends[touched] = run_ends[np.searchsorted(run_ends, ends[touched], side="right")]
    return ends


def tokenize(text: str) -> Tokens:
    """Words and offsets of ``text``, exactly those of ``normalize.words_bytes`` and
    ``normalize.word_offsets``.

    ``normalize`` folds each run of non-ASCII characters with the ASCII character before it,
    and walks the runs in Python (4 s for the 558 texts with curly quotes of the 140 MB
    benchmark). Here a run of characters that only separate words (``stand_in``) is replaced
    by their ASCII stand-ins, which the rules treat alike, and ASCII is read with a few array
    operations. Other runs (a letter with an accent, Cyrillic, an invisible character) go to
    ``normalize`` as they are, each in the stretch of text around it between two blanks that
    no rule reaches across, so whatever ``normalize`` does with them holds here too (``_folded``).
    """
    f = _folded(text)
    return Tokens(f.bytes.split(), f.starts, f.ends)


def words_with_offsets(text: str) -> tuple[list[str], list[int], list[int]]:
    """``normalize.words_with_offsets`` through ``tokenize``: the same words and offsets, without
    walking every curly quote of a text in Python (for the reports' word alignment)."""
    t = tokenize(text)
    return [w.decode("utf-8", "surrogatepass") for w in t.words], t.starts.tolist(), t.ends.tolist()


def _plain(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with every run of non-ASCII characters that all have a stand-in replaced by
    them (the same length), and the ``[start, end)`` of the runs left.

    A run is replaced whole or not at all: ``normalize`` folds a run with the character before
    it, so a run mixing a quote and an accented letter keeps its quote for ``normalize``. A
    soft hyphen leaves the whole text to ``normalize``: its rule reads the raw text around it,
    where a stand-in would not be what it replaced.
    """
    if text.isascii():
        return text, []
    found = set(normalize._NON_ASCII.findall(text))
    swaps = {ch: stand_in(ch) for ch in found}
    if all(x is not None for x in swaps.values()):
        plain = text
        for ch, x in swaps.items():
            plain = plain.replace(ch, x)  # type: ignore[arg-type]
        return plain, []
    if "\u00ad" in found:
        return text, [(0, len(text))]
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).copy()
    at = np.flatnonzero(cps >= 128)
    keys = np.array(sorted(map(ord, found)), dtype=np.uint32)
    none = np.uint32(0xFFFF_FFFF)  # no stand-in ("\0" is one)
    values = np.array([ord(x) if (x := swaps[chr(k)]) is not None else none for k in keys.tolist()], np.uint32)
    sub = values[np.searchsorted(keys, cps[at])]
    brk = np.flatnonzero(np.diff(at) > 1)
    run = np.concatenate(([0], np.cumsum(np.diff(at) > 1)))
    first, last = at[np.concatenate(([0], brk + 1))], at[np.concatenate((brk, [len(at) - 1]))] + 1
    mixed = np.zeros(len(first), np.bool_)
    mixed[run[sub == none]] = True
    keep = ~mixed[run]
    cps[at[keep]] = sub[keep]
    plain = cps.tobytes().decode("utf-32-le", "surrogatepass")
    return plain, list(zip(first[mixed].tolist(), last[mixed].tolist(), strict=True))


_BLANKS = " \t\n\r\f\v"


_MERGE = 2048  # characters between two stretches for normalize below which they are one
_BLANK_CODES = np.zeros(128, np.bool_)
_BLANK_CODES[[ord(c) for c in _BLANKS]] = True
#: ASCII a hyphen join reaches across: white space as ``\\s`` reads it (``\\x1c``-``\\x1f`` too) and ``-``
_JOINABLE_CODES = np.array([chr(b).isspace() or chr(b) == "-" for b in range(128)], np.bool_)


def _stretches(plain: str, runs: list[tuple[int, int]]) -> list[tuple[int, int, bool]]:
    """``plain`` cut into ``(start, end, for normalize)`` stretches: around each run left, from a
    blank before its preceding character to a blank after it. A cut falls on a blank that
    follows an ASCII character other than white space or a hyphen (a character left to
    normalize may fold to a hyphen; the join rule's ``\\s*`` after a line break reaches across
    ``\\x1f``), so no hyphen join, no fold (a run folds with the one character before it) and no
    word reaches across it."""
    n = len(plain)
    cps = np.frombuffer(plain.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    ascii_ = cps < 128
    blank = np.zeros(n, np.bool_)
    blank[ascii_] = _BLANK_CODES[cps[ascii_]]
    joinable = np.zeros(n, np.bool_)
    joinable[ascii_] = _JOINABLE_CODES[cps[ascii_]]
    cuts = np.concatenate(([0], np.flatnonzero(blank[1:] & ascii_[:-1] & ~joinable[:-1]) + 1,
                           [n]))  # the text's ends too
    a = np.array([r[0] for r in runs], np.int64)
    b = np.array([r[1] for r in runs], np.int64)
    lo = cuts[np.maximum(np.searchsorted(cuts, a - 1, side="right") - 1, 0)]
    hi = cuts[np.searchsorted(cuts, b)]
    reach = np.maximum.accumulate(hi)
    # a stretch that overlaps none before, nor comes within _MERGE of it: normalize costs about
    # 0.3 ms a call however short the text, so a text with a run in every line is one stretch
    new = np.concatenate(([True], lo[1:] > reach[:-1] + _MERGE))
    first = np.flatnonzero(new)
    windows = zip(lo[first].tolist(), np.maximum.reduceat(hi, first).tolist(), strict=True)
    out: list[tuple[int, int, bool]] = []
    pos = 0
    for w_lo, w_hi in windows:
        if w_lo > pos:
            out.append((pos, w_lo, False))
        out.append((w_lo, w_hi, True))
        pos = w_hi
    if pos < n or not out:
        out.append((pos, n, False))
    return out


@dataclass
class _Folded:
    """A text's words as bytes, one blank between stretches: word ``i`` is
    ``bytes[byte_starts[i]:byte_ends[i]]`` and lies at ``[starts[i], ends[i])`` in the text."""

    bytes: bytes
    byte_starts: np.ndarray
    byte_ends: np.ndarray
    starts: np.ndarray
    ends: np.ndarray


def _ascii_stretch(part: str) -> tuple[bytes, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An ASCII stretch read with array operations: lower case, the joined hyphens cut out
    (``normalize``'s own rule, split with the match captured), every byte that is not a letter
    or digit a blank, words the runs between blanks; offsets shifted back over the cuts."""
    pieces = _CUT.split(part) if "-" in part else [part]
    folded = "".join(pieces[0::2]).lower().encode("ascii").translate(normalize._BYTE_TABLE)
    letter = np.frombuffer(folded, np.uint8) != 0x20
    edges = np.flatnonzero(np.diff(letter, prepend=False, append=False))
    bs, be = edges[0::2], edges[1::2]
    starts, ends = bs, be
    if len(pieces) > 1:
        sizes = np.fromiter(map(len, pieces), np.int64, count=len(pieces))
        where = np.cumsum(sizes[0:-1:2])  # where each cut was, in the folded bytes (never at a word's edge)
        starts, ends = _shifted(bs, where, sizes[1::2]), _shifted(be, where, sizes[1::2])
    return folded, bs, be, starts, ends


def _normalize_stretch(part: str) -> tuple[bytes, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A stretch read by ``normalize`` itself (``words_bytes`` and ``word_offsets``)."""
    words = words_bytes(part)
    starts, ends = normalize.word_offsets(part)
    lens = np.fromiter(map(len, words), np.int64, count=len(words))
    be = np.cumsum(lens + 1) - 1
    return b" ".join(words), be - lens, be, np.asarray(starts, np.int64), np.asarray(ends, np.int64)


def _folded(text: str) -> _Folded:
    plain, runs = _plain(text)
    parts = [(a, (_normalize_stretch if slow else _ascii_stretch)(plain[a:b]))
             for a, b, slow in (_stretches(plain, runs) if runs else [(0, len(plain), False)])]
    if len(parts) == 1:
        folded, bs, be, starts, ends = parts[0][1]
    else:
        base = np.cumsum([0] + [len(p[0]) + 1 for _, p in parts[:-1]])
        folded = b" ".join(p[0] for _, p in parts)
        bs, be, starts, ends = (np.concatenate([np.asarray(p[i]) + (base[k] if i < 3 else a)
                                                for k, (a, p) in enumerate(parts)]) for i in (1, 2, 3, 4))
    if plain is not text:
        ends = _through_runs(text, ends)
    return _Folded(folded, bs.astype(np.int64), be.astype(np.int64), starts.astype(np.int64), ends.astype(np.int64))


_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
#: ``normalize``'s join rule with its match captured, so ``split`` gives the cut pieces too
_CUT = re.compile(f"({normalize._JOIN.pattern})", normalize._JOIN.flags)


def _low_bytes(n: np.ndarray) -> np.ndarray:
    """Masks keeping the low ``n`` bytes (0 to 8) of a uint64."""
    return _LOW_BYTES[np.clip(n, 0, 8)]


@dataclass
class Words:
    """A text's words as the index stores them: the word sequence (hashes and offsets) and the
    normalised text (the words joined by single spaces, what ``norm_sha256`` digests)."""

    sequence: WordSequence
    normalized: bytes

    def __len__(self) -> int:
        return len(self.sequence)


def read_words(text: str, hasher: WordHasher) -> Words:
    """``tokenize`` and ``hasher`` in one: the same word hashes, offsets and normalised text.

    The words are never split into a Python object each: they are runs of the folded bytes
    (``_folded``). Each word of up to 16 bytes is two integers, so the distinct words of the
    text are found by sorting those, and only they are hashed (``WordHasher.packed``); longer
    words, and texts where that fails, go through the dictionary.
    """
    f = _folded(text)
    if len(f.byte_starts):
        a, b = int(f.byte_starts[0]), int(f.byte_ends[-1])
        letter = np.frombuffer(f.bytes, np.uint8)[a:b] != 0x20
        normalized = np.frombuffer(f.bytes, np.uint8)[a:b][letter | np.concatenate(([False], letter[:-1]))].tobytes()
    else:
        normalized = b""
    sequence = _sequence_of(f.bytes, f.byte_starts, f.byte_ends, hasher)
    sequence.starts, sequence.ends = f.starts, f.ends
    return Words(sequence, normalized)


def _shifted(offsets: np.ndarray, where: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Each of the sorted ``offsets`` plus the ``sizes`` of the cuts at ``where`` before it."""
    step = np.zeros(len(offsets) + 1, np.int64)
    np.add.at(step, np.searchsorted(offsets, where), sizes)
    return offsets + np.cumsum(step[:-1])


def _sequence_of(folded: bytes, starts: np.ndarray, ends: np.ndarray, hasher: WordHasher) -> WordSequence:
    """The vocabulary and places of the words ``folded[starts[i]:ends[i]]`` (offsets unset)."""
    if not len(starts):
        return WordSequence.of(np.empty(0, np.uint64), starts, ends)
    lens = ends - starts
    short = np.flatnonzero(lens <= 16)
    s, n = starts[short], lens[short]
    window = np.ndarray((len(folded),), dtype="<u8", buffer=folded + bytes(16), strides=(1,))
    low = window[s] & _low_bytes(n)
    high = np.where(n > 8, window[np.minimum(s + 8, len(folded) - 1)] & _low_bytes(n - 8), np.uint64(0))
    found = hasher.packed(low.astype(np.uint64), high.astype(np.uint64))
    if found is None:  # two words met one sort key: the dictionary, word by word
        return WordSequence.of(hasher(folded.split()), starts, ends)
    hashes, inverse = found
    long = np.flatnonzero(lens > 16)  # through the dictionary, one by one (a few a text)
    other = hasher([folded[a:b] for a, b in zip(starts[long].tolist(), ends[long].tolist(), strict=True)])
    vocab = distinct(np.concatenate((hashes, other)))  # two words of one hash are one word to the index
    ids = np.empty(len(starts), np.int64)
    ids[short] = np.searchsorted(vocab, hashes)[inverse]
    ids[long] = np.searchsorted(vocab, other)
    return WordSequence(vocab, ids.astype(np.uint16 if len(vocab) <= 1 << 16 else np.uint32), starts, ends)


# -- a document's words without its text: the stored sequence ---------------------------------

_MAGIC = b"CAW1"
_HEADER = struct.Struct("<4sIIII")  # magic, words, distinct word hashes, offset exceptions, offsets' frame
_SMALL = 255  # gaps and lengths below this take one byte; the others are listed as exceptions
_coders = threading.local()


def _zstd() -> tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor]:
    """One compressor and one decompressor per thread (they are not thread-safe). Level 3 and
    no dictionary: the same words give the same bytes, so the same digest."""
    c = getattr(_coders, "pair", None)
    if c is None:
        c = _coders.pair = (zstandard.ZstdCompressor(level=3, write_content_size=True), zstandard.ZstdDecompressor())
    return c


@dataclass
class WordSequence:
    """A document's words as the audit reads them: each word's hash, as a sorted vocabulary of
    the document's distinct word hashes and each word's place in it, and each word's character
    offsets in the stored text. Its shingles in document order are ``shingles(k)``; nothing
    needs the text again.

    Stored encoded (``encode``), about 3 bytes a word: the vocabulary (8 bytes a distinct
    word), the places (2 bytes each below 65,536 distinct words, else 4), and the offsets as a
    gap and a length of one byte each (rare larger values listed apart), in one Zstandard frame
    (about 0.7 bytes a word). Only locating a span needs the offsets, a few documents in an
    audit, so only they pay for the decompression; the shingles are read as they are stored.
    """

    vocab: np.ndarray  # uint64, sorted, distinct
    ids: np.ndarray  # per word: its hash's index in vocab
    starts: np.ndarray | None = None  # int64 character offsets (None: not decoded)
    ends: np.ndarray | None = None

    @classmethod
    def of(cls, word_hashes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> WordSequence:
        n = len(word_hashes)
        if n == 0:
            return cls(np.empty(0, np.uint64), np.empty(0, np.uint16), np.asarray(starts, np.int64),
                       np.asarray(ends, np.int64))
        order = np.argsort(word_hashes)
        ranked = word_hashes[order]
        first = np.empty(n, np.bool_)
        first[0] = True
        np.not_equal(ranked[1:], ranked[:-1], out=first[1:])
        ids = np.empty(n, np.uint32)
        ids[order] = np.cumsum(first, dtype=np.uint32) - 1
        vocab = ranked[first]
        return cls(vocab, ids.astype(np.uint16) if len(vocab) <= 1 << 16 else ids,
                   np.asarray(starts, np.int64), np.asarray(ends, np.int64))

    def __len__(self) -> int:
        return len(self.ids)

    def word_hashes(self) -> np.ndarray:
        return self.vocab[self.ids]

    def shingles(self, k: int) -> np.ndarray:
        """Hashes of every shingle in document order (``combine`` of the word hashes)."""
        return combine(self.word_hashes(), k)

    def encode(self) -> bytes:
        assert self.starts is not None and self.ends is not None
        n, v = len(self.ids), len(self.vocab)
        if n >= 1 << 32:
            raise ValueError(f"{n} words is more than a stored sequence holds")
        lens = self.ends - self.starts
        gaps = self.starts - np.concatenate(([0], self.ends[:-1])).astype(np.int64)
        small = (gaps >= 0) & (gaps < _SMALL) & (lens >= 0) & (lens < _SMALL)
        odd = np.flatnonzero(~small)
        exceptions = np.stack([odd, gaps[odd], lens[odd]], axis=1).astype("<i8")
        offsets = _zstd()[0].compress(b"".join((
            np.where(small, gaps, _SMALL).astype(np.uint8).tobytes(),
            np.where(small, lens, _SMALL).astype(np.uint8).tobytes(),
            exceptions.tobytes(),
        )))
        return b"".join((
            _HEADER.pack(_MAGIC, n, v, len(odd), len(offsets)),
            self.vocab.astype("<u8", copy=False).tobytes(),
            self.ids.astype("<u2" if v <= 1 << 16 else "<u4", copy=False).tobytes(),
            offsets,
        ))

    @staticmethod
    def header(data: bytes) -> tuple[int, int, int]:
        """(words, distinct word hashes, offset exceptions) of an encoded sequence whose length
        agrees with them; ValueError for anything else."""
        if len(data) < _HEADER.size:
            raise ValueError("a stored word sequence shorter than its header")
        magic, n, v, e, frame = _HEADER.unpack_from(data)
        width = 2 if v <= 1 << 16 else 4
        if magic != _MAGIC or len(data) != _HEADER.size + 8 * v + width * n + frame:
            raise ValueError("not a stored word sequence of this format, or cut short")
        return n, v, e

    @classmethod
    def decode(cls, data: bytes, *, offsets: bool = True) -> WordSequence:
        """The sequence ``encode`` wrote; ValueError if ``data`` is not one. ``offsets=False``
        leaves the offsets out (verification needs only the hashes)."""
        n, v, e = cls.header(data)
        width = 2 if v <= 1 << 16 else 4
        at = _HEADER.size
        vocab = np.frombuffer(data, "<u8", v, at).astype(np.uint64, copy=False)
        at += 8 * v
        ids = np.frombuffer(data, "<u2" if width == 2 else "<u4", n, at)
        if n and int(ids.max()) >= v:
            raise ValueError("a stored word sequence points past its vocabulary")
        if not offsets:
            return cls(vocab, ids)
        at += width * n
        try:
            block = _zstd()[1].decompress(data[at:], max_output_size=2 * n + 24 * e)
        except zstandard.ZstdError as error:
            raise ValueError(f"a stored word sequence's offsets cannot be read ({error})") from error
        if len(block) != 2 * n + 24 * e:
            raise ValueError("a stored word sequence's offsets are not as many as its words")
        gaps = np.frombuffer(block, np.uint8, n, 0).astype(np.int64)
        lens = np.frombuffer(block, np.uint8, n, n).astype(np.int64)
        if e:
            odd = np.frombuffer(block, "<i8", 3 * e, 2 * n).reshape(e, 3)
            if int(odd[:, 0].min()) < 0 or int(odd[:, 0].max()) >= n:
                raise ValueError("a stored word sequence has offsets for words it does not hold")
            gaps[odd[:, 0]], lens[odd[:, 0]] = odd[:, 1], odd[:, 2]
        ends = np.cumsum(gaps + lens)
        return cls(vocab, ids, ends - lens, ends)
