
import numpy as np
import pytest
import xxhash
from hypothesis import example, given, settings
from hypothesis import strategies as st

from auditor.text.normalize import word_offsets, words_bytes
from auditor.text.shingle import (
    DEFAULT_PARAMS,
    HashSet,
    Params,
    Tokens,
    WordHasher,
    WordSequence,
    combine,
    read_words,
    sample,
    shingle_hashes,
    shingle_text,
    stand_in,
    tokenize,
)


def test_params_are_the_documented_defaults():
    p = DEFAULT_PARAMS.as_dict()
    assert p["k"] == 5 and p["modulus"] == 16 and "xxh3_64" in p["hash"]
    assert p["normalization"].startswith("nfkc")


def test_word_hashes_are_seeded_xxh3():
    h = WordHasher(7)([b"alpha", b"beta", b"alpha"])
    assert h.dtype == np.uint64
    assert h.tolist() == [xxhash.xxh3_64_intdigest(b"alpha", 7), xxhash.xxh3_64_intdigest(b"beta", 7),
                          xxhash.xxh3_64_intdigest(b"alpha", 7)]


def test_combine_depends_on_order_and_on_every_word():
    w = WordHasher(1)([b"a", b"b", b"c", b"d", b"e", b"f"])
    h = combine(w, 5)
    assert len(h) == 2
    rev = combine(w[::-1], 5)
    assert set(h.tolist()).isdisjoint(rev.tolist())
    assert len(combine(w[:4], 5)) == 0


def test_the_same_shingle_hashes_alike_wherever_it_occurs():
    a = shingle_hashes("one two three four five six")
    b = shingle_hashes("zero one two three four five")
    assert a[0] == b[1]


def test_sampling_keeps_one_in_modulus():
    rng = np.random.default_rng(3)
    words = " ".join(f"w{i}" for i in rng.integers(0, 50_000, 80_000))
    s = shingle_text(words, keep_all=True)
    assert set(s.sampled.tolist()) <= set(s.all.tolist())
    assert all(h % 16 == 0 for h in s.sampled.tolist())
    assert abs(len(s.sampled) / s.n_shingles - 1 / 16) < 0.004  # about 5 standard errors


def test_low_bits_are_uniform():
    rng = np.random.default_rng(11)
    h = combine(WordHasher(5)(rng.integers(0, 1000, 200_000).astype(str).astype(bytes).tolist()), 5)
    counts = np.bincount((h % np.uint64(16)).astype(np.int64), minlength=16)
    expected = len(h) / 16
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 40  # 15 degrees of freedom; p < 0.001 beyond ~37.7


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["lessor", "lessee", "shall", "pay", "rent", "the", "of"]), max_size=40))
def test_shingle_count_matches_word_count(ws):
    text = " ".join(ws)
    s = shingle_text(text, Params(k=3))
    assert s.n_words == len(ws)
    assert s.n_shingles == len({tuple(ws[i:i + 3]) for i in range(len(ws) - 2)})
    assert np.all(np.diff(s.sampled.astype(object)) > 0) if len(s.sampled) > 1 else True


def test_sample_rule():
    h = np.array([0, 1, 16, 17, 32], dtype=np.uint64)
    assert sample(h, 16).tolist() == [0, 16, 32]


def _fmix64(h: int) -> int:
    mask = (1 << 64) - 1
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & mask
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & mask
    return h ^ (h >> 33)


def test_shingle_hashes_are_the_documented_formula():
    """The hash defines what a stored index holds: ((w0*M + w1)*M + ... + w4) mod 2**64, then the
    murmur3 finaliser, over xxh3_64 word hashes (HASH_NAME). Computed here in plain integers."""
    words = [b"the", b"lessee", b"shall", b"pay", b"rent", b"monthly", b"in", b"advance"]
    seed, m, mask = DEFAULT_PARAMS.seed, 0x9E3779B97F4A7C15, (1 << 64) - 1
    w = [xxhash.xxh3_64_intdigest(x, seed) for x in words]
    want = []
    for i in range(len(w) - 4):
        h = 0
        for x in w[i:i + 5]:
            h = (h * m + x) & mask
        want.append(_fmix64(h))
    got = combine(WordHasher(seed)(words), 5)
    assert got.dtype == np.uint64 and got.tolist() == want
    assert shingle_hashes(" ".join(x.decode() for x in words)).tolist() == want
    assert "xxh3_64" in DEFAULT_PARAMS.hash and "fmix64" in DEFAULT_PARAMS.hash


def test_a_text_shorter_than_k_has_no_shingle_and_keeps_the_hash_type():
    # an empty float array would turn every array it is concatenated with into float64,
    # which cannot hold 64-bit hashes exactly
    for n in (0, 1, 4):
        h = combine(WordHasher(1)([b"w"] * n), 5)
        assert h.dtype == np.uint64 and len(h) == 0
    assert np.concatenate([combine(WordHasher(1)([b"a"]), 5), np.array([2**64 - 1], np.uint64)]).tolist() == [2**64 - 1]


def test_all_hashes_are_kept_only_when_asked():
    text = "one two three four five six seven"
    assert shingle_text(text).all is None  # the index holds only the sample
    s = shingle_text(text, keep_all=True)
    assert s.all.tolist() == sorted(set(shingle_hashes(text).tolist())) and s.n_shingles == 3


def test_the_word_cache_starts_again_past_its_size_with_the_same_hashes(monkeypatch):
    import auditor.text.shingle

    monkeypatch.setattr(auditor.text.shingle, "_MAX_CACHED_WORDS", 3)
    hasher = WordHasher(9)
    words = [f"w{i}".encode() for i in range(10)]
    got = [h for i in range(0, 10, 2) for h in hasher(words[i:i + 2]).tolist()]
    assert len(hasher._cache) <= 4  # it was emptied on the way
    assert got == [xxhash.xxh3_64_intdigest(w, 9) for w in words]


# -- tokenize: the words and offsets of normalize, in one pass ---------------------------------

# Characters that only separate words (curly quotes, dashes, spaces of every kind, line and
# paragraph separators, hyphens, symbols) and characters that do more (letters with accents, a
# ligature, Cyrillic, combining marks, invisible characters, a soft hyphen, symbols that fold to
# letters): the fast path must take the first and leave the second to normalize.
SEPARATORS = ("\u201c\u201d\u2018\u2019\u00ab\u00bb\u2014\u2013\u2026\u00a7\u00a9\u00ae\u2022\u00a0\u2003\u3000"
              "\u1680\u2028\u2029\u0085\u2010\u2011\ufe63\uff0d\u2212\u00b7\u20ac")
OTHERS = ("\u00e9\u00df\ufb01\u0430\u0435\u0301\u0308\u200b\u200d\ufeff\u00ad\u2223\u00d7\u00bd\u2460\u0451"
          "\u00b9\u0338\u2474\u3164")
_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(list("aZ09 -\n\t\r\f\x1c\x1f_.") + list(SEPARATORS)),
        st.sampled_from([*OTHERS, "\u00b4"]),
    ),
    max_size=120,
)
_mostly_separated = st.lists(st.one_of(st.from_regex(r"[A-Za-z0-9]{1,9}", fullmatch=True),
                                       st.sampled_from([*SEPARATORS, " ", "-", "-\n ", "\n", "\t", "--"])),
                             max_size=60).map("".join)


# Words, blanks, hyphens at line ends, separators with stand-ins and characters without, side by
# side: the stretches handed to normalize around the latter must cut nothing a rule reaches across.
_mixed = st.lists(st.one_of(st.from_regex(r"[A-Za-z0-9]{1,7}", fullmatch=True),
                            st.sampled_from([" ", "  ", "-", "-\n ", "- \n", "\n", "\t", "\r\n", "--", ".-"]),
                            st.sampled_from(list(SEPARATORS)), st.sampled_from(list(OTHERS))),
                  max_size=50).map("".join)


# The same, far apart: stretches for normalize then stand apart, with long ASCII between them.
_sparse = st.lists(st.tuples(st.integers(0, 700), _mixed), min_size=1, max_size=6).map(
    lambda parts: "".join(" lessee-\nment" * (n // 3) + " rent" * (n - n // 3) + m for n, m in parts))


def _reference(text):
    starts, ends = word_offsets(text)
    return words_bytes(text), starts, ends


def _same(text):
    t = tokenize(text)
    assert isinstance(t, Tokens)
    assert (t.words, t.starts.tolist(), t.ends.tolist()) == _reference(text)
    assert t.starts.dtype == t.ends.dtype == np.int64


@settings(max_examples=600, deadline=None)
@given(_text)
def test_tokenize_gives_the_words_and_offsets_of_normalize_on_any_text(text):
    _same(text)


@settings(max_examples=400, deadline=None)
@given(_mostly_separated)
def test_tokenize_gives_the_words_and_offsets_of_normalize_where_it_reads_as_ascii(text):
    _same(text)
    _same(text.upper())


@settings(max_examples=800, deadline=None)
@given(_mixed)
@example("\u00b9\u2010\r0")  # a superscript one and a hyphen: "1-" joined across the line break
@pytest.mark.slow
def test_tokenize_gives_the_words_and_offsets_of_normalize_around_what_it_leaves_to_normalize(text):
    _same(text)


@settings(max_examples=150, deadline=None)
@given(_sparse)
def test_tokenize_gives_the_words_and_offsets_of_normalize_around_stretches_far_apart(text):
    _same(text)
    words = read_words(text, WordHasher(DEFAULT_PARAMS.seed))
    assert (words.sequence.encode(), words.normalized) == _read_reference(text)


def test_stretches_for_normalize_are_cut_only_where_no_rule_reaches_across():
    from auditor.text.shingle import _plain, _stretches

    text = "A non-\n  exclusive caf\u00e9 \u201cright\u201d, and na\u00efve-\nly so. End"
    plain, runs = _plain(text)
    assert plain[text.index("\u201c")] == "\0"  # the quotes, alone in their runs, have stand-ins
    assert [text[a:b] for a, b in runs] == ["\u00e9", "\u00ef"]
    assert [(text[a:b], slow) for a, b, slow in _stretches(plain, runs)] == [
        ("A non-\n  exclusive", False), (" caf\u00e9 \u201cright\u201d, and na\u00efve-\nly", True),
        (" so. End", False)]  # stretches this close are one (normalize costs a fixed time a call)
    _same(text)
    far = text.replace(", and", ", and" + " word" * 500)  # 2,500 characters apart: two stretches
    plain, runs = _plain(far)
    assert [(far[a:b], slow) for a, b, slow in _stretches(plain, runs)][1:] == [
        (" caf\u00e9 \u201cright\u201d,", True),  # not cut after a letter left to normalize
        (" and" + " word" * 500, False), (" na\u00efve-\nly", True), (" so. End", False)]
    _same(far)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_tokenize_of_ascii_text_is_normalize(text):
    _same(text)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_text, _mostly_separated))
def test_words_with_offsets_is_normalizes(text):
    from auditor.text import normalize, shingle

    assert shingle.words_with_offsets(text) == normalize.words_with_offsets(text)


def test_separating_characters_have_a_stand_in_and_the_others_none():
    assert {stand_in(c) for c in "\u201c\u201d\u2019\u2014\u2026\u00a7\u00ae\u2022"} == {"\x00"}
    assert stand_in("\u00a0") == stand_in("\u3000") == " "  # NFKC makes them spaces
    assert stand_in("\u2028") == stand_in("\x85") == "\n"  # line breaks: a hyphen before one joins
    assert stand_in("\u1680") == "\x1f"  # white space that is neither
    assert stand_in("\u2010") == stand_in("\u2011") == stand_in("\uff0d") == "-"
    assert stand_in("\u00b4") == " "  # NFKC: a space and a mark, which normalisation /3 drops
    for c in OTHERS:  # letters, marks, invisible characters, symbols that fold to letters
        assert stand_in(c) is None, repr(c)
    assert stand_in("a") is None  # ASCII needs none


def test_a_word_before_a_run_of_separators_ends_after_it_as_in_normalize():
    text = "the \u201cLessee\u201d\u2019s non\u2010exclusive right\u2014and"
    t = tokenize(text)
    assert [text[a:b] for a, b in zip(t.starts.tolist(), t.ends.tolist(), strict=True)] == [
        "the", "Lessee\u201d\u2019", "s", "non\u2010exclusive", "right\u2014", "and"]
    assert t.words == [b"the", b"lessee", b"s", b"nonexclusive", b"right", b"and"]
    _same(text)


def _shipped_texts():
    """Licence texts of the installed Python packages (written by others: curly quotes,
    copyright signs, accented names, Cyrillic)."""
    from tests.support.realtext import licence_files

    yield from sorted(licence_files(min_chars=1).items())


def test_tokenize_is_normalize_on_licence_texts_written_by_others():
    checked = non_ascii = 0
    hasher = WordHasher(DEFAULT_PARAMS.seed)
    for _, text in _shipped_texts():
        _same(text)
        words = read_words(text, hasher)
        assert (words.sequence.encode(), words.normalized) == _read_reference(text)
        checked += 1
        non_ascii += not text.isascii()
    assert checked >= 10 and non_ascii >= 1


# -- the stored word sequence ---------------------------------------------------------------

def _sequence(text, seed=DEFAULT_PARAMS.seed):
    t = tokenize(text)
    return WordSequence.of(WordHasher(seed)(t.words), t.starts, t.ends), t


def test_a_word_sequence_gives_back_the_shingles_and_offsets_of_its_text():
    text = "The Lessee \u201cshall\u201d pay-\n   ment the RENT, the rent " * 40
    seq, t = _sequence(text)
    assert len(seq.vocab) == 5 and len(seq) == len(t.words) == 320  # 8 words, 5 distinct, 40 times
    back = WordSequence.decode(seq.encode())
    assert back.shingles(5).tolist() == shingle_hashes(text).tolist()
    assert back.word_hashes().tolist() == WordHasher(DEFAULT_PARAMS.seed)(t.words).tolist()
    assert (back.starts.tolist(), back.ends.tolist()) == tuple(word_offsets(text))
    assert np.all(np.diff(back.vocab.astype(object)) > 0)  # sorted, distinct
    hashes_only = WordSequence.decode(seq.encode(), offsets=False)
    assert hashes_only.starts is None and hashes_only.shingles(3).tolist() == back.shingles(3).tolist()
    assert seq.encode() == _sequence(text)[0].encode()  # the same text, the same bytes


def test_long_words_wide_gaps_and_overlapping_offsets_are_kept_apart():
    text = "a" * 300 + " " * 1000 + "b c" + "\n" * 70_000 + "d"
    seq, _ = _sequence(text)
    back = WordSequence.decode(seq.encode())
    assert (back.starts.tolist(), back.ends.tolist()) == tuple(word_offsets(text))
    # normalize gives a word touching a folded piece the whole piece: spans may overlap
    odd = WordSequence.of(np.array([5, 7, 5], np.uint64), np.array([0, 0, 4]), np.array([3, 3, 9]))
    back = WordSequence.decode(odd.encode())
    assert back.starts.tolist() == [0, 0, 4] and back.ends.tolist() == [3, 3, 9]
    assert back.word_hashes().tolist() == [5, 7, 5] and back.vocab.tolist() == [5, 7]


def test_more_than_65536_distinct_words_take_four_bytes_a_place():
    hashes = np.arange(70_000, dtype=np.uint64)[::-1] * np.uint64(0x9E3779B97F4A7C15)
    pos = np.arange(70_000, dtype=np.int64) * 2
    seq = WordSequence.of(hashes, pos, pos + 1)
    assert seq.ids.dtype == np.uint32
    data = seq.encode()
    assert WordSequence.header(data) == (70_000, 70_000, 0)
    back = WordSequence.decode(data)
    assert back.word_hashes().tolist() == hashes.tolist() and back.ends.tolist() == (pos + 1).tolist()
    small = WordSequence.of(hashes[:65_536], pos[:65_536], pos[:65_536] + 1)
    assert small.ids.dtype == np.uint16 and WordSequence.decode(small.encode()).word_hashes().tolist() == hashes[:65_536].tolist()


def test_an_empty_text_has_an_empty_sequence():
    seq, _ = _sequence("-- . --")
    back = WordSequence.decode(seq.encode())
    assert len(back) == 0 and back.shingles(5).tolist() == [] and back.shingles(5).dtype == np.uint64


def test_a_damaged_sequence_is_refused_not_misread():
    data = _sequence("one two three four five six seven " * 20)[0].encode()
    for bad in (data[:10], data[:-1], data + b"\0", b"XXXX" + data[4:]):
        with pytest.raises(ValueError):
            WordSequence.decode(bad)
    v = WordSequence.header(data)[1]
    pointing_past = bytearray(data)
    pointing_past[20 + 8 * v : 20 + 8 * v + 2] = (v + 3).to_bytes(2, "little")  # a place past the vocabulary
    with pytest.raises(ValueError, match="past its vocabulary"):
        WordSequence.decode(bytes(pointing_past))
    n = WordSequence.header(data)[0]
    frame = bytearray(data)
    frame[20 + 8 * v + 2 * n + 4] ^= 0xFF  # inside the offsets' frame, past its magic number
    with pytest.raises(ValueError, match="offsets"):
        WordSequence.decode(bytes(frame))
    assert WordSequence.decode(bytes(frame), offsets=False).word_hashes().tolist() == (
        WordSequence.decode(data).word_hashes().tolist())  # the shingles never read the offsets


def test_the_offsets_are_a_small_part_of_a_stored_sequence():
    """What the frame around the offsets saves: on real prose, under a byte a word of the two
    (before: two bytes a word, a gap and a length)."""
    from tests.support.realtext import licence_files

    for name, text in sorted(licence_files().items()):
        seq = _sequence(text)[0]
        n, v, _ = WordSequence.header(data := seq.encode())
        width = 2 if v <= 1 << 16 else 4
        assert len(data) - (20 + 8 * v + width * n) < n, name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=300), st.lists(st.integers(0, 2**64 - 1), max_size=300),
       st.integers(0, 40))
def test_hashset_finds_exactly_the_members(members, others, repeats):
    values = np.unique(np.array(members, dtype=np.uint64))
    query = np.array(others + members[:repeats] + members[:repeats], dtype=np.uint64)
    hs = HashSet(values)
    at_query, at_set = hs.find(query)
    want = [i for i, x in enumerate(query.tolist()) if x in set(values.tolist())]
    assert at_query.tolist() == want
    assert values[at_set].tolist() == query[at_query].tolist()
    assert hs.contains(query).tolist() == [x in set(values.tolist()) for x in query.tolist()]


def test_hashset_filters_most_non_members_before_searching():
    rng = np.random.default_rng(4)
    hs = HashSet(np.unique(rng.integers(0, 2**64, 50_000, dtype=np.uint64)))
    top = (rng.integers(0, 2**64, 200_000, dtype=np.uint64) >> np.uint64(64 - hs.bits)).astype(np.int64)
    passed = ((hs.table[top >> 3] >> (top & 7).astype(np.uint8)) & 1).mean()
    assert passed < 0.1  # about 1 in 16 of the non-members reach the binary search


# -- read_words: tokenize and hash in one, without a Python object per word ---------------------

def _read_reference(text, seed=DEFAULT_PARAMS.seed):
    t = tokenize(text)
    return WordSequence.of(WordHasher(seed)(t.words), t.starts, t.ends).encode(), b" ".join(t.words)


_long_words = st.lists(st.one_of(st.from_regex(r"[A-Za-z0-9]{1,40}", fullmatch=True),
                                 st.sampled_from([" ", "-", "-\n  ", "\n", "--", ", ", "\u201c", "\u2019", "(a)"])),
                       max_size=80).map("".join)


@settings(max_examples=600, deadline=None)
@given(st.one_of(_text, _mostly_separated, _long_words, _mixed))
@pytest.mark.slow
def test_read_words_is_tokenize_then_hash(text):
    words = read_words(text, WordHasher(DEFAULT_PARAMS.seed))
    assert (words.sequence.encode(), words.normalized) == _read_reference(text)


def test_read_words_over_many_texts_with_one_hasher_and_its_table_merges(monkeypatch):
    """One hasher over many texts (as in an ingest child): words met before come from its
    table, new ones are merged in batches; a word met twice before a merge is kept once."""
    from tests.support.textgen import prose

    hasher = WordHasher(DEFAULT_PARAMS.seed)
    texts = [prose(900 + i, 300) + " supercalifragilisticexpialidocious-\n  ly" for i in range(30)]
    for text in texts + texts:
        words = read_words(text, hasher)
        assert (words.sequence.encode(), words.normalized) == _read_reference(text)
    key = hasher._table[0]
    assert len(key) > 100 and np.all(key[1:] >= key[:-1])
    rows = list(zip(*(c.tolist() for c in hasher._table[:3]), strict=True))
    assert len(rows) == len(set(rows))


def test_read_words_falls_back_to_the_dictionary_when_two_words_share_a_sort_key(monkeypatch):
    text = "the lessee shall pay the rent of the premises to the lessor " * 5
    monkeypatch.setattr(WordHasher, "packed", lambda self, low, high: None)
    words = read_words(text, WordHasher(DEFAULT_PARAMS.seed))
    assert (words.sequence.encode(), words.normalized) == _read_reference(text)


def test_read_words_of_a_text_without_words():
    for text in ("", "-- . --", "\u201c\u201d"):
        words = read_words(text, WordHasher(1))
        assert len(words) == 0 and words.normalized == b"" and words.sequence.starts.tolist() == []
