"""Text normalisation that survives reformatting and disguise.

Two documents that say the same words in the same order must give the same word sequence,
whatever their layout: line width, indentation, blank lines, page breaks, case, typographic
quotes and dashes, ligatures, full-width forms, words hyphenated across line ends; and whatever
a submitter did to make a copy look different to a machine but not to a reader: invisible
characters inside words, or letters of another script that look like Latin ones.

The rules (``NORMALIZATION_VERSION`` names them; bump it when any rule changes, since the
index records it and refuses to mix versions):

1. Unicode NFKC, full case folding, NFKC again (folding can leave decomposed sequences).
   Combining marks (categories Mn and Me) are removed after canonical decomposition, so a
   letter reads as its base letter: ``é``, ``e\u0301`` and ``e`` match, and a mark a submitter
   put on every letter (U+0332 underline, U+0323 dot below) does not split words. Stored texts
   keep their marks; only matching folds them. Scripts that write vowels as marks (Hebrew and
   Arabic points, Devanagari viramas) match with and without them.
2. Invisible characters go: Unicode category Cf and the Default_Ignorable_Code_Point set
   (zero-width spaces and joiners, U+2060, U+FEFF, U+034F, bidi controls, variation
   selectors, tag characters, Hangul fillers...). A soft hyphen counts as a hyphen before a
   line break, where a reader sees it, and goes like the others anywhere else.
3. Confusable letters fold to one representative, the skeleton of Unicode TR39 (section 4),
   with the table of confusables.txt as shipped by ``confusable_homoglyphs``: Cyrillic U+0430
   and Greek U+03BF become ``a`` and ``o``, and Cyrillic U+0451 (decomposed first) ``e``. ASCII characters
   are never changed: the look-alikes TR39 lists among them (``0``/``O``, ``1``/``l``,
   ``rn``/``m``) are edits a reader can see, and keeping ASCII words as they are keeps the
   English stemming and stop words of the near-duplicate measures working. Punctuation whose
   look-alike is punctuation too is left alone (it only separates words either way).
   A small capital is its small letter (``ᴀ`` is ``a``, ``ʀ`` is ``r``): TR39 lists only some
   of them (U+1D0F and U+1D04, small capitals O and C), while a reader reads all of them as the
   letters; which characters are small capitals, and of what, is read from their Unicode names
   (``_small_capitals``).
4. Unicode hyphens count as ``-``. A hyphen between two letters or digits is removed,
   joining them, whether the next part follows directly (``non-exclusive``) or after a line
   break (``agree-\\n  ment``); so a word broken at a line end and the same word unbroken
   normalise alike, as do a compound written on one line and wrapped at its hyphen.
5. Words are maximal runs of letters and digits (``str.isalnum``); everything else, quotes and
   dashes included, only separates words.

``words_bytes`` is the fast path used to build the index: ASCII documents skip the Unicode
steps, which are identities on ASCII (ASCII holds no format or default-ignorable character,
and rule 3 keeps ASCII as it is); mostly-ASCII documents fold only their non-ASCII runs.
``words_with_offsets`` gives the same words with their character spans in the original text,
for locating matches; a property test holds the two to the same output.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import unicodedata
from importlib.resources import files

import numpy as np
import regex

#: The rules, then the Unicode version of this Python's ``unicodedata`` (NFKC, case folding and
#: the categories change between Unicode versions): an index built under another Python whose
#: Unicode differs refuses until rebuilt, as for a change of the rules.
NORMALIZATION_RULES = "nfkc-casefold-unmark-dehyphen-alnum-skeleton-smallcaps/3"
NORMALIZATION_VERSION = f"{NORMALIZATION_RULES} unicode/{unicodedata.unidata_version}"

_HYPHEN_CHARS = "\u2010\u2011"
_LINE_BREAK = "\\n\\r\\f\\v\\x1c-\\x1e\\x85\\u2028\\u2029"
# Starts with the literal so the regex engine can skip straight to hyphens.
_JOIN = re.compile(r"-(?<=[^\W_]-)(?:[ \t]*[" + _LINE_BREAK + r"]\s*)?(?=[^\W_])")
# A soft hyphen is shown, as a hyphen, only where the line breaks after it.
_SOFT_HYPHEN_AT_BREAK = re.compile(r"\u00ad+(?=[ \t]*[" + _LINE_BREAK + r"])")
_IGNORABLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cf}]+")
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_WORD = re.compile(r"[^\W_]+")
# ASCII letters and digits map to themselves, other ASCII bytes to a space; bytes >= 0x80
# (parts of UTF-8 sequences of letters) are kept.
_BYTE_TABLE = bytes(
    b if (b >= 0x80 or chr(b).isalnum()) else 0x20 for b in range(256)
)

# The skeleton table below is derived from confusable_homoglyphs' data; this digest names the
# table the version above was built with, so a dependency upgrade that changes it is caught
# (``skeleton_table_digest``) instead of silently mixing two normalisations in one index.
SKELETON_TABLE_SHA256 = "d4f105e89ffe0cbe94a53dff2b71f0267b852f4744a1cac77e556307ab6213f2"


def _unmark(s: str) -> str:
    """confusable_homoglyphs wraps right-to-left characters in U+200E marks; they are not data."""
    return s.replace("\u200e", "").replace("\u200f", "")


def _fold(piece: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", piece).casefold())


def _strip_marks(decomposed: str) -> str:
    """Combining marks removed from an NFD string (rule 1), by this Python's ``unicodedata``,
    whose Unicode version the normalisation version names."""
    if decomposed.isascii():
        return decomposed
    category = unicodedata.category
    return "".join(c for c in decomposed if c.isascii() or category(c) not in ("Mn", "Me"))


def _representative(members: list[str], graph: dict[str, set[str]]) -> str:
    """The skeleton of one class of confusables.

    confusables.txt maps each source character to a prototype, so a class is a star around its
    prototype (the member with the most neighbours; of a pair, the multi-character one, or the
    ASCII one, else the lower code point: any fixed choice gives the same classes). A class
    holding an ASCII character is represented by one, since ASCII text is never changed.
    """
    centre = max(members, key=lambda m: (len(graph[m]), len(m) > 1, m.isascii(), [-ord(c) for c in m]))
    if len(centre) == 1 and centre.isascii():
        return centre
    ascii_chars = sorted(m for m in members if len(m) == 1 and m.isascii())
    return ascii_chars[0] if ascii_chars else centre


def _maps(source: str, rep: str) -> bool:
    """Whether the skeleton replaces ``source`` (a non-ASCII character) by ``rep``.

    Letters and digits always. A symbol or punctuation mark only when it stands in for one
    ASCII letter or digit (U+2223 DIVIDES for ``l``, U+00D7 for ``x``): mapping punctuation to
    punctuation would change nothing but dashes (TR39 maps the em dash to a Katakana letter),
    and currency signs keep their meaning (the euro sign is not a letter).
    """
    if source.isalnum():
        return True
    cat = unicodedata.category(source)
    return cat in ("Sm", "So", "Po") and len(rep) == 1 and rep.isascii() and rep.isalnum()


SMALL_CAPITALS_SHA256 = "c5c57908321a3cf31e4e5dde5887413e9d319b96d6df1850d0f937a96046978b"


def _digest(table: dict[int, str]) -> str:
    return hashlib.sha256(json.dumps(sorted(table.items()), ensure_ascii=True).encode()).hexdigest()


@functools.cache
def _tables() -> tuple[dict[int, str], dict[int, str]]:
    """(skeleton table, small capitals): derived once per process (0.1 CPU-s, in every process
    that folds a non-ASCII text: each extraction child, the report's alignments), or read from
    the cache, and then used only when both digests are the pinned ones, so a cache entry can
    save time but never change a result."""
    from auditor.cache import read_entry, write_entry

    name = hashlib.sha256(f"{NORMALIZATION_VERSION} {SKELETON_TABLE_SHA256} {SMALL_CAPITALS_SHA256}".encode()
                          ).hexdigest()[:32] + ".json"
    raw = read_entry("unicode", name)
    if raw is not None:
        try:
            data = json.loads(raw)
            skeleton = {int(k): str(v) for k, v in data["skeleton"]}
            small = {int(k): str(v) for k, v in data["small"]}
            if _digest(skeleton) == SKELETON_TABLE_SHA256 and _digest(small) == SMALL_CAPITALS_SHA256:
                return skeleton, small
        except (ValueError, TypeError, KeyError):
            pass  # derived again below, and the entry replaced
    skeleton, small = _derive_skeleton(), _derive_small_capitals()
    if _digest(skeleton) == SKELETON_TABLE_SHA256 and _digest(small) == SMALL_CAPITALS_SHA256:
        write_entry(json.dumps({"skeleton": sorted(skeleton.items()), "small": sorted(small.items())}).encode(),
                    "unicode", name)
    return skeleton, small


def _skeleton_table() -> dict[int, str]:
    return _tables()[0]


def _small_capitals() -> dict[int, str]:
    return _tables()[1]


def _derive_skeleton() -> dict[int, str]:
    """``ord(c)`` -> skeleton of ``c``, for each non-ASCII character TR39 maps elsewhere.

    Values are closed under the whole fold (NFKC, case folding, the table itself), so one
    pass over a decomposed text gives its skeleton.
    """
    data = json.loads((files("confusable_homoglyphs") / "confusables.json").read_text("utf-8"))
    graph: dict[str, set[str]] = {}
    for key, entries in data.items():
        a = _unmark(key)
        for entry in entries:
            b = _unmark(entry["c"])
            if a and b and a != b:
                graph.setdefault(a, set()).add(b)
                graph.setdefault(b, set()).add(a)
    table: dict[int, str] = {}
    seen: set[str] = set()
    for start in sorted(graph):
        if start in seen:
            continue
        members, stack = [], [start]
        seen.add(start)
        while stack:
            node = stack.pop()
            members.append(node)
            for other in sorted(graph[node] - seen):
                seen.add(other)
                stack.append(other)
        rep = _representative(members, graph)
        for m in members:
            if len(m) == 1 and not m.isascii() and m != rep and _maps(m, rep):
                table[ord(m)] = rep
    for _ in range(8):  # close the values under the fold; a few rounds reach the fixpoint
        changed = False
        for c, v in table.items():
            w = _fold(_strip_marks(unicodedata.normalize("NFD", unicodedata.normalize("NFD", _fold(v)).translate(table))))
            if w != v:
                table[c], changed = w, True
        if not changed:
            break
    else:
        raise RuntimeError("confusables table does not close under folding")
    return table


def _derive_small_capitals() -> dict[int, str]:
    """``ord(c)`` -> the small letter, for each character named ``<SCRIPT> LETTER SMALL CAPITAL
    <X>`` (or ``<SCRIPT> SMALL CAPITAL LETTER <X>``) whose small letter ``<SCRIPT> SMALL LETTER
    <X>`` exists, by this Python's Unicode names (whose version the normalisation version names)."""
    out: dict[int, str] = {}
    for cp in range(0x80, 0x30000):
        name = unicodedata.name(chr(cp), "")
        m = _SMALL_CAPITAL_NAME.fullmatch(name)
        if m:
            try:
                out[cp] = unicodedata.lookup(f"{m['script']} SMALL LETTER {m['letter']}")
            except KeyError:
                continue
    return out


_SMALL_CAPITAL_NAME = re.compile(r"(?P<script>LATIN|GREEK|CYRILLIC) (?:LETTER SMALL CAPITAL|SMALL CAPITAL LETTER) "
                                 r"(?P<letter>.+)")


def skeleton_table_digest() -> str:
    """sha256 of the skeleton table derived now, to compare with ``SKELETON_TABLE_SHA256``."""
    return _digest(_derive_skeleton())


def _clean(piece: str) -> str:
    """One piece of text folded: NFKC, skeleton, case folding, combining marks and invisible
    characters removed.

    The skeleton comes before case folding too, since TR39 maps capitals to capitals: Cyrillic
    U+0422 is a look-alike of ``T``, while its small letter U+0442 looks like a small capital.
    Repeated until nothing changes (once or twice), so the result is a fixpoint.
    """
    s = unicodedata.normalize("NFKC", piece)
    table = _skeleton_table()
    small = _small_capitals()
    for _ in range(6):
        d = unicodedata.normalize("NFD", s).translate(small).translate(table)
        t = _fold(_strip_marks(unicodedata.normalize("NFD", d)))
        if _IGNORABLE.search(t):
            t = _fold(_IGNORABLE.sub("", t))
        if t == s:
            return s
        s = t
    raise AssertionError(f"normalisation does not converge on {piece!r}")


_CACHE: dict[str, str] = {}
_CACHE_MAX_ENTRIES = 1 << 16
_CACHE_MAX_PIECE = 64


def _clean_piece(piece: str) -> str:
    """``_clean`` with a cache: pieces repeat (curly quotes, the words of a Cyrillic text)."""
    out = _CACHE.get(piece)
    if out is None:
        out = _clean(piece)
        if len(piece) <= _CACHE_MAX_PIECE:
            if len(_CACHE) >= _CACHE_MAX_ENTRIES:
                _CACHE.clear()
            _CACHE[piece] = out
    return out


def _soft_hyphens(text: str) -> str:
    """A soft hyphen before a line break becomes ``-``; the others are removed with the ignorables."""
    return _SOFT_HYPHEN_AT_BREAK.sub(lambda m: "-" * len(m.group()), text) if "\u00ad" in text else text


def _fold_text(text: str) -> str:
    """``_clean(text)``, computed piece by piece: only the non-ASCII runs are cleaned, each with
    the ASCII character before it (NFKC never composes across an ASCII character, so the
    result is the same), and repeated pieces come from a cache. Even a Cyrillic text is faster
    so, one word at a time, than folded whole."""
    if text.isascii():
        return text.lower()
    text = _soft_hyphens(text)
    out: list[str] = []
    pos = 0
    for m in _NON_ASCII_RUN.finditer(text):
        a, b = m.start(), m.end()
        if a > pos:
            a -= 1
            out.append(text[pos:a].lower())
        out.append(_clean_piece(text[a:b]))
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

    def segment(length: int, start: int, end: int, ident: bool) -> None:
        seg_len.append(length)
        seg_a.append(start)
        seg_b.append(end)
        seg_ident.append(ident)

    text = _soft_hyphens(text)  # same length: offsets stay valid
    pos = 0
    for m in _NON_ASCII_RUN.finditer(text):
        a, b = m.start(), m.end()
        if a > pos:
            a -= 1  # fold the run with the ASCII character before it
        if a > pos:
            pieces.append(text[pos:a].lower())
            segment(a - pos, pos, a, True)
        folded = _clean_piece(text[a:b])
        pieces.append(folded)
        segment(len(folded), a, b, False)
        pos = b
    if pos < len(text):
        pieces.append(text[pos:].lower())
        segment(len(text) - pos, pos, len(text), True)
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
