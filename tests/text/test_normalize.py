import json
import re
import unicodedata
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.text import normalize as norm
from auditor.text.normalize import normalize, word_offsets, words, words_bytes, words_with_offsets

# Invisible characters a submitter can put inside words: zero-width space, non-joiner, joiner,
# word joiner, BOM, combining grapheme joiner, soft hyphen, variation selectors, a tag
# character, bidi controls, a Hangul filler.
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u034f\u00ad\ufe0f\U000e0041\u202e\u2066\u3164\u180e"
# Cyrillic and Greek look-alikes of Latin letters, small and capital.
HOMOGLYPHS = {
    "a": "\u0430", "e": "\u0435", "o": "\u043e\u03bf", "p": "\u0440", "c": "\u0441",
    "x": "\u0445", "y": "\u0443", "i": "\u0456", "s": "\u0455", "j": "\u0458",
    "A": "\u0410\u0391", "E": "\u0415\u0395", "O": "\u041e\u039f", "T": "\u0422\u03a4",
    "H": "\u041d\u0397", "M": "\u041c\u039c", "K": "\u041a\u039a", "B": "\u0412\u0392",
}

_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(list("aZ09 -\n\t\f\u00ad\u2010\u2011\u201c\u201d\u2014\ufb01\u00df\u0301é"
                             + INVISIBLE + "".join(HOMOGLYPHS.values()) + "\u0451\u0439\u00d7\u2223\u0332\u0323\u20dd")),
    ),
    max_size=80,
)
_words = st.lists(st.from_regex(r"[A-Za-z]{1,12}", fullmatch=True), min_size=1, max_size=30)


def test_layout_case_quotes_and_dashes_do_not_matter():
    a = 'The "Company" shall -- within ten (10) days -- deliver the non-exclusive licence.'
    b = ("THE \u201cCOMPANY\u201d SHALL \u2014 WITHIN TEN (10)\n\n   DAYS \u2014 deliver the non-\n"
         "   exclusive li-\ncence.")
    assert words(a) == words(b)
    assert words(a) == ["the", "company", "shall", "within", "ten", "10", "days", "deliver",
                        "the", "nonexclusive", "licence"]


def test_hyphenated_line_breaks_are_rejoined_but_spaced_dashes_separate():
    assert words("agree-\n  ment") == ["agreement"]
    assert words("agree\u00ad\nment") == ["agreement"]
    assert words("agree\u00ad \n ment") == ["agreement"]
    assert words("pre- and post-closing") == ["pre", "and", "postclosing"]
    assert words("the end -\nnext") == ["the", "end", "next"]


def test_unicode_compatibility_forms_fold():
    assert words("\ufb01nal STRASSE stra\u00dfe \uff21\uff22\uff23") == ["final", "strasse", "strasse", "abc"]
    assert words("cafe\u0301") == words("caf\u00e9") == ["cafe"]


def test_words_bytes_are_utf8_of_words():
    t = "R\u00e9sum\u00e9 of the \u201cParties\u201d"
    assert [w.decode() for w in words_bytes(t)] == words(t) == ["resume", "of", "the", "parties"]


@settings(max_examples=300, deadline=None)
@given(_text)
def test_normalize_is_idempotent(t):
    assert normalize(normalize(t)) == normalize(t)


@settings(max_examples=300, deadline=None)
@given(_text)
def test_offset_path_gives_the_same_words(t):
    w, starts, ends = words_with_offsets(t)
    assert w == words(t)
    assert len(starts) == len(ends) == len(w)
    assert all(0 <= a < b <= len(t) for a, b in zip(starts, ends, strict=True))
    fast_starts, fast_ends = word_offsets(t)
    assert len(fast_starts) == len(fast_ends) == len(w)
    for word, a, b in zip(w, fast_starts, fast_ends, strict=True):
        assert word in words(t[a:b])


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_ascii_offsets_point_at_the_words(t):
    starts, ends = word_offsets(t)
    assert [words(t[a:b]) for a, b in zip(starts, ends, strict=True)] == [[w] for w in words(t)]


# Words with letters that fold (accents, ß, the fi ligature, Cyrillic and Greek look-alikes, a
# combining accent), between ASCII separators: each word's span then holds that word alone.
_FOLDING_WORD = st.lists(st.sampled_from(["a", "b", "x", "0", "\u00e9", "\u00df", "\ufb01", "\u0430", "\u043e",
                                          "\u0451", "\u03bf", "\u0410", "e\u0301", "E\u0301",
                                          "c\u0332", "t\u0323\u0301"]),
                         min_size=1, max_size=8).map("".join)
_ASCII_GAP = st.sampled_from([" ", ", ", ".\n", "  (", ") ", "\t", " - "])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_FOLDING_WORD, _ASCII_GAP), min_size=1, max_size=12), st.booleans())
def test_non_ascii_offsets_hold_exactly_their_word(pieces, hyphen):
    """Both offset paths against the plain normaliser: ``text[start:end]`` normalises to the
    word and nothing else, and the spans follow each other without overlapping."""
    t = "".join(w + gap for w, gap in pieces)
    if hyphen:  # a word broken at a line end, rejoined
        t = t.replace(" ", "-\n", 1)
    found, starts, ends = words_with_offsets(t)
    assert found == words(t)
    assert [words(t[a:b]) for a, b in zip(starts, ends, strict=True)] == [[w] for w in found]
    fast_starts, fast_ends = word_offsets(t)
    assert (fast_starts, fast_ends) == (starts, ends)
    assert all(b <= a for b, a in zip(ends, starts[1:], strict=False))


def test_offsets_of_a_mixed_text():
    t = "Le \ufb01nal \u00abcaf\u00e9\u00bb co\u00fbte 5\u20ac, na-\nive \u0441\u0430d."
    w, starts, ends = words_with_offsets(t)
    # a span takes in the whole non-ASCII run its word touches ("\u00e9\u00bb"), and the ASCII
    # character before one (the space before the ligature)
    assert w == ["le", "final", "cafe", "coute", "5", "naive", "cad"]
    assert [t[a:b] for a, b in zip(starts, ends, strict=True)] == [
        "Le", " \ufb01nal", "caf\u00e9\u00bb", "co\u00fbte", "5\u20ac", "na-\nive", " \u0441\u0430d"]
    assert word_offsets(t) == (starts, ends)


def _reference_words(t: str) -> list[str]:
    """The rules applied to the whole text at once, step by step as the docstring gives them."""
    whole = norm._clean(norm._soft_hyphens(t))
    for ch in "\u2010\u2011":
        whole = whole.replace(ch, "-")
    joined = re.sub(r"(?<=[^\W_])-(?:[ \t]*[\n\r\f\v\x1c-\x1e\x85\u2028\u2029]\s*)?(?=[^\W_])", "", whole)
    return re.findall(r"[^\W_]+", joined)


@settings(max_examples=400, deadline=None)
@given(_text)
def test_piecewise_folding_equals_folding_the_whole_text(t):
    """The fast path folds only non-ASCII runs; the definition folds the whole text."""
    assert words(t) == _reference_words(t)
    with mock.patch.object(norm, "_CACHE", {}):  # the same from a cold cache
        assert words(t) == _reference_words(t)


def test_invisible_characters_inside_words_vanish():
    plain = "The Lessee shall pay the rent on the first day of each month."
    assert words("The Le\u200bssee sh\u200call pa\u200dy the re\u2060nt o\ufeffn the fi\u034frst "
                 "d\u00aday o\ufe0ff ea\U000e0041ch mo\u3164nth.") == words(plain)
    assert words("ten&#8203;ant".replace("&#8203;", "\u200b")) == ["tenant"]
    assert words("\u200b\u200b") == []


def test_a_soft_hyphen_is_a_hyphen_only_at_a_line_break():
    assert words("con\u00adtract") == words("con\u00ad\u00adtract") == ["contract"]
    assert words("con\u00ad\ntract") == ["contract"]
    assert words("lease\u00ad and") == ["lease", "and"]


def test_homoglyphs_fold_to_latin():
    plain = "THE COMPANY shall keep the Premises in good repair at its own expense."
    disguised = ("\u0422\u041d\u0415 \u0421\u041e\u041cPANY sh\u0430ll k\u0435\u0435p th\u0435 "
                 "\u0420r\u0435mis\u0435s in g\u03bf\u03bfd r\u0435\u0440\u0430ir \u0430t "
                 "\u0456ts \u043ewn \u0435x\u0440\u0435ns\u0435.")
    assert disguised != plain
    assert words(disguised) == words(plain)
    assert words("\u0451") == words("\u00eb") == ["e"]  # decomposed first: Cyrillic yo is e with diaeresis


def test_ascii_is_never_changed_and_dashes_still_separate():
    assert words("rn m 0 O 1 l I |") == ["rn", "m", "0", "o", "1", "l", "i"]
    assert words("days\u2014deliver 10\u201312") == ["days", "deliver", "10", "12"]
    assert words("\u20ac100 2\u00d74") == ["100", "2x4"]


def test_unrelated_text_does_not_normalise_alike():
    a = "The Lessee shall pay the rent on the first day of each month."
    b = "The Borrower shall repay the loan on the last day of each quarter."
    assert words(a) != words(b)
    assert words("p\u0430y") != words("pey")  # a homoglyph folds to its own letter only


@settings(max_examples=200, deadline=None)
@given(_words, st.data())
@pytest.mark.slow
def test_disguised_copies_normalise_to_the_same_words(ws, data):
    plain = " ".join(ws)
    out = []
    for ch in plain:
        if ch in HOMOGLYPHS and data.draw(st.booleans()):
            ch = data.draw(st.sampled_from(HOMOGLYPHS[ch]))
        out.append(ch)
        if ch != " " and data.draw(st.integers(0, 3)) == 0:
            out.append(data.draw(st.sampled_from(INVISIBLE)))
    disguised = "".join(out)
    assert words(disguised) == words(plain)
    assert normalize(disguised) == normalize(plain)
    w, _, _ = words_with_offsets(disguised)
    assert w == words(plain)


@settings(max_examples=100, deadline=None)
@given(_words, _words)
def test_different_words_stay_different(a, b):
    if [w.lower() for w in a] != [w.lower() for w in b]:
        assert words(" ".join(a)) != words(" ".join(b))


def test_skeleton_table_is_the_one_the_version_names():
    """A confusables update changes the normalisation: it needs a new NORMALIZATION_VERSION and
    a new SKELETON_TABLE_SHA256 (old stores then refuse until rebuilt), never a silent change."""
    assert norm.skeleton_table_digest() == norm.SKELETON_TABLE_SHA256  # derived again, not cached
    assert norm._digest(norm._derive_small_capitals()) == norm.SMALL_CAPITALS_SHA256
    assert "skeleton" in norm.NORMALIZATION_VERSION


def test_the_cached_unicode_tables_are_used_only_when_they_are_the_pinned_ones(tmp_path, monkeypatch):
    """The tables are derived once and kept in the cache; an entry that is not exactly the pinned
    tables (edited, truncated) is derived again and replaced, so a cache never changes a word."""
    monkeypatch.delenv("AUDITOR_NO_CACHE", raising=False)
    monkeypatch.setenv("AUDITOR_CACHE", str(tmp_path))
    norm._tables.cache_clear()
    try:
        skeleton, small = norm._tables()
        [entry] = (tmp_path / "unicode").iterdir()
        data = json.loads(entry.read_text())
        assert dict((int(k), v) for k, v in data["skeleton"]) == skeleton and len(small) == len(data["small"])
        cyrillic_a = next(k for k, v in data["skeleton"] if v == "a")
        data["skeleton"] = [[k, "z" if k == cyrillic_a else v] for k, v in data["skeleton"]]  # a poisoned entry
        entry.write_text(json.dumps(data))
        norm._tables.cache_clear()
        with mock.patch.object(norm, "_derive_skeleton", wraps=norm._derive_skeleton) as derive:
            assert norm._tables()[0][cyrillic_a] == "a" and derive.call_count == 1
        assert json.loads(entry.read_text()) != data  # replaced by the pinned tables
        norm._tables.cache_clear()
        with mock.patch.object(norm, "_derive_skeleton", wraps=norm._derive_skeleton) as derive:
            assert norm._tables() == (skeleton, small) and derive.call_count == 0  # read, not derived
        entry.write_text("{not json")
        norm._tables.cache_clear()
        assert norm._tables() == (skeleton, small)
    finally:
        norm._tables.cache_clear()


def test_skeleton_values_are_fixpoints():
    """Each value is what the whole fold gives, once its small capitals read as their letters
    (TR39 maps U+0276 to o and a small capital E)."""
    table, small = norm._skeleton_table(), norm._small_capitals()
    for c, v in table.items():
        assert norm._clean(v) == v.translate(small), (hex(c), v)
        assert not chr(c).isascii()
    assert unicodedata.category("\u2014") == "Pd" and 0x2014 not in table


def test_small_capitals_read_as_their_letters_and_other_letters_do_not():
    assert norm.normalize("\u1d00\u0262\u0280\u1d07\u1d07\u1d0d\u1d07\u0274\u1d1b \ua731\ua7af") == "agreement sq"
    assert norm.normalize("\u0281 \u1d0e \u00e6") != norm.normalize("r n ae")  # inverted, reversed: other letters
    assert norm.normalize("\u1d26\u1d28") == norm.normalize("\u03b3\u03c0")  # Greek small capitals too


def test_an_index_built_with_the_old_normalisation_refuses_until_rebuilt(tmp_path):
    """The normalisation is stored with the index: a store indexed by an older version refuses
    ingest, index and audit until `auditor index --rebuild`, which re-indexes with this one."""
    import json

    import pytest
    from click.testing import CliRunner

    from auditor.cli import cli
    from auditor.corpus.ingest import ingest
    from auditor.errors import IndexMismatch
    from auditor.index.builder import build_index
    from auditor.store.db import Store
    from tests.support.textgen import write_contract_in_filing

    corpus = tmp_path / "corpus"
    write_contract_in_filing(corpus, 7, unrelated=1)
    db = tmp_path / "old.db"
    with Store(db) as store:
        ingest(store, [corpus], workers=1)
        old = {**store.params.as_dict(), "normalization": "nfkc-casefold-dehyphen-alnum/1"}
        with store.write():
            store.set_meta("index_params", json.dumps(old, sort_keys=True))
        with pytest.raises(IndexMismatch, match="index --rebuild"):
            build_index(store)
        with pytest.raises(IndexMismatch, match="alnum/1"):
            ingest(store, [tmp_path / "nothing-new"], workers=1)
    runner = CliRunner()
    r = runner.invoke(cli, ["index", "--db", str(db)])
    assert r.exit_code == 2 and "index --rebuild" in r.output
    r = runner.invoke(cli, ["index", "--db", str(db), "--rebuild"])
    assert r.exit_code == 0, r.output
    with Store(db) as store:
        assert store.params.normalization == norm.NORMALIZATION_VERSION
        assert build_index(store).indexed == 0  # up to date, no refusal


def test_the_direction_marks_around_confusables_entries_are_not_data():
    """confusables_homoglyphs wraps right-to-left entries in U+200E marks (a U+200F would be one
    too): both go, the characters between them stay."""
    assert norm._unmark("\u200e\ufc5e\u200e") == "\ufc5e"
    assert norm._unmark("\u200f\u05d0\u200f\u05d1") == "\u05d0\u05d1"
    assert norm._unmark("\u05d0 a") == "\u05d0 a"


def test_a_lone_surrogate_separates_words_in_every_path():
    """Stored texts hold none (extraction replaces them), but a library caller's string may: it
    separates words, as any other non-letter does, in the offset paths too (no UnicodeEncodeError)."""
    t = "caf\u00e9\ud800na\u00efve \ud83d rent"
    assert words(t) == ["cafe", "naive", "rent"]
    w, starts, ends = words_with_offsets(t)
    assert w == words(t)
    assert [t[a:b] for a, b in zip(starts, ends, strict=True)] == ["caf\u00e9\ud800", "na\u00efve", "rent"]
    assert word_offsets(t) == (starts, ends)
    assert words("rent\ud800") == ["rent"]


def test_unicode_hyphens_join_like_the_ascii_one():
    """U+2010 HYPHEN and U+2011 NON-BREAKING HYPHEN count as ``-`` (rule 4): between letters they
    join, at a line end too; spaced, they separate like any dash."""
    for h in ("\u2010", "\u2011"):
        t = f"the non{h}exclusive agree{h}\n  ment, pre {h} and post"
        assert words(t) == words(t.replace(h, "-")) == ["the", "nonexclusive", "agreement", "pre", "and", "post"]
        w, starts, ends = words_with_offsets(t)
        assert w == words(t)
        assert [t[a:b] for a, b in zip(starts, ends, strict=True)] == [
            "the", f"non{h}exclusive", f"agree{h}\n  ment", "pre", "and", "post"]
        assert word_offsets(t) == (starts, ends)
    assert words("caf\u00e9\u2010bar") == ["cafebar"]  # in a text the fast path folds


# Marks a submitter can put on every letter: combining low line, acute, dot below, an enclosing
# circle (Me), a stack of several on one letter.
MARKS = ["\u0332", "\u0301", "\u0323", "\u20dd", "\u0301\u0323\u0332"]


@pytest.mark.parametrize("mark", MARKS)
def test_combining_marks_on_every_letter_fold_away(mark):
    """Normalisation v3: a copy with a mark on every letter reads as the copy (a reader sees
    the same words, underlined or accented); before v3 every mark split its word in two."""
    plain = "The Lessee shall pay the rent on the first day of each month, without demand."
    marked = "".join(c + mark if c.isalpha() else c for c in plain)
    assert words(marked) == words(plain)
    w, starts, ends = words_with_offsets(marked)
    assert w == words(plain)
    assert [words(marked[a:b]) for a, b in zip(starts, ends, strict=True)] == [[x] for x in w]
    assert word_offsets(marked) == (starts, ends)
    other = "The Borrower shall repay the loan on the last day of each quarter."
    assert words("".join(c + mark if c.isalpha() else c for c in other)) != words(plain)


def test_a_letter_matches_its_base_letter_and_marks_alone_only_separate():
    """Folding marks means an accented letter matches its base letter, composed or not (so
    ``resume`` and ``r\u00e9sum\u00e9`` are one word); a mark with no letter before it is dropped
    and leaves the words around it as they were."""
    assert words("r\u00e9sum\u00e9 re\u0301sume\u0301 RESUME") == ["resume"] * 3
    assert words("\u00c5ngstr\u00f6m \u212bngstr\u00f6m") == ["angstrom", "angstrom"]
    assert words("pay \u0301 rent") == ["pay", "rent"]
    assert words("\u0301\u0332") == []
    assert words("stra\u00dfe na\u00efve") == ["strasse", "naive"]
    # Marks do not join what a separator splits, nor split what letters join.
    assert words("a\u0301-b\u0301 c\u0332,d") == ["ab", "c", "d"]


def test_stored_text_keeps_its_marks(tmp_path):
    """Only matching folds marks: ingest stores the text as extracted."""
    from auditor.corpus.ingest import ingest
    from auditor.store.db import Store

    text = ("Le pr\u00eateur accorde au b\u00e9n\u00e9ficiaire un cr\u00e9dit renouvelable "
            "dont les modalit\u00e9s sont d\u00e9crites ci-apr\u00e8s. ") * 12
    (tmp_path / "fr.txt").write_text(text, encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        ingest(store, [tmp_path / "fr.txt"], workers=1)
        stored = store.scalar("SELECT auditor_text(text) FROM texts")
    assert stored == text and "\u00e9" in stored


def test_the_normalisation_version_names_the_unicode_version():
    """An index built under a Python with another Unicode version refuses (issue #29): NFKC,
    case folding and the mark categories change between versions."""
    assert norm.NORMALIZATION_VERSION.endswith(f"unicode/{unicodedata.unidata_version}")
    assert norm.NORMALIZATION_VERSION.startswith(norm.NORMALIZATION_RULES)
    assert "/3" in norm.NORMALIZATION_RULES and "unmark" in norm.NORMALIZATION_RULES
    from auditor.text.shingle import DEFAULT_PARAMS

    assert DEFAULT_PARAMS.normalization == norm.NORMALIZATION_VERSION


def test_an_index_built_with_v2_refuses(tmp_path):
    from auditor.errors import IndexMismatch
    from auditor.index.builder import build_index
    from auditor.store.db import Store

    with Store(tmp_path / "v2.db") as store:
        from dataclasses import replace

        v2 = replace(store.params, normalization="nfkc-casefold-dehyphen-alnum-skeleton/2")
        with pytest.raises(IndexMismatch, match="index --rebuild"):
            store.check_params(v2)
        other_unicode = replace(store.params, normalization=norm.NORMALIZATION_RULES + " unicode/15.0.0")
        if unicodedata.unidata_version != "15.0.0":
            with pytest.raises(IndexMismatch, match=r"unicode/15\.0\.0"):
                store.check_params(other_unicode)
        assert build_index(store).indexed == 0
