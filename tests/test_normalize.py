from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.normalize import normalize, word_offsets, words, words_bytes, words_with_offsets

_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(list("aZ09 -\n\t\f\u00ad\u2010\u2011\u201c\u201d\u2014\ufb01\u00df\u0301é")),
    ),
    max_size=80,
)


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
    assert words("pre- and post-closing") == ["pre", "and", "postclosing"]
    assert words("the end -\nnext") == ["the", "end", "next"]


def test_unicode_compatibility_forms_fold():
    assert words("\ufb01nal STRASSE stra\u00dfe \uff21\uff22\uff23") == ["final", "strasse", "strasse", "abc"]
    assert words("cafe\u0301") == words("caf\u00e9") == ["caf\u00e9"]


def test_words_bytes_are_utf8_of_words():
    t = "R\u00e9sum\u00e9 of the \u201cParties\u201d"
    assert [w.decode() for w in words_bytes(t)] == words(t) == ["r\u00e9sum\u00e9", "of", "the", "parties"]


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


@settings(max_examples=400, deadline=None)
@given(_text)
def test_piecewise_folding_equals_folding_the_whole_text(t):
    """The fast path folds only non-ASCII runs; the definition folds the whole text."""
    import re
    import unicodedata

    whole = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", t).casefold())
    for ch in "\u00ad\u2010\u2011":
        whole = whole.replace(ch, "-")
    joined = re.sub(r"(?<=[^\W_])-(?:[ \t]*[\n\r\f\v\x1c-\x1e\x85\u2028\u2029]\s*)?(?=[^\W_])", "", whole)
    assert words(t) == re.findall(r"[^\W_]+", joined)
