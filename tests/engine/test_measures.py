"""Tests of auditor.engine.measures: the worked numbers of the near-duplicate article and CopyCat's S3.

Numbers quoted from the articles are checked exactly (or at the article's rounding).
"""

from __future__ import annotations

import hashlib
import random
import sys
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.engine.measures import (
    COPYCAT,
    LUCENE_ENGLISH_STOP_WORDS,
    MERSENNE_PRIME,
    Preprocess,
    Sketch,
    band_keys,
    candidate_pairs,
    containment,
    containment_hashes,
    estimate,
    fingerprint,
    fingerprint_hex,
    full_text,
    hamming,
    hand_table,
    jaccard,
    jaccard_hashes,
    lsh_curve,
    lsh_probability,
    lsh_threshold,
    main_text,
    md5_64,
    near_duplicates,
    porter_stem,
    s3,
    s3_hashes,
    s3_sets,
    shingles,
    simhash,
    sketch,
    standard_error,
    to_hex,
    totals,
)
from auditor.engine.measures.minhash import coefficients, mulmod
from auditor.engine.measures.simhash import _popcount, _swar_popcount, table_masks
from auditor.errors import UsageError
from auditor.text.normalize import normalize
from auditor.text.shingle import Params, shingle_hashes

D1 = "the crawler fetches each page and follows its links to new pages"
D2 = "the crawler fetches every page and follows its links to other pages"
D3 = "a rose is a rose is a rose"
D4 = "a rose is a flower which is a rose"

# The article's table: the 15 3-shingles of d1 and d2 in alphabetical order, and membership.
ARTICLE_SHINGLES = [
    ("and follows its", True, True),
    ("crawler fetches each", True, False),
    ("crawler fetches every", False, True),
    ("each page and", True, False),
    ("every page and", False, True),
    ("fetches each page", True, False),
    ("fetches every page", False, True),
    ("follows its links", True, True),
    ("its links to", True, True),
    ("links to new", True, False),
    ("links to other", False, True),
    ("page and follows", True, True),
    ("the crawler fetches", True, True),
    ("to new pages", True, False),
    ("to other pages", False, True),
]


def sh(text: str, k: int) -> set[tuple[str, ...]]:
    return shingles(text.split(), k)


def hashes(text: str, k: int) -> np.ndarray:
    return np.unique(shingle_hashes(text, Params(k=k)))


# --- exact fingerprints -----------------------------------------------------------------------


def test_fingerprint_is_sha256_of_normalised_text_and_survives_layout():
    expected = hashlib.sha256(D1.encode()).hexdigest()[:16]
    assert fingerprint_hex(D1) == expected
    assert fingerprint(D1) == int(expected, 16)
    assert fingerprint(
        "The  Crawler fetches\neach page and fol-\n lows its links to new pages"
    ) == (fingerprint(D1))
    assert normalize(D1) == D1
    # The two example sentences share ten of twelve words yet have unrelated fingerprints.
    assert fingerprint(D1) != fingerprint(D2)
    assert len(fingerprint_hex("")) == 16 and fingerprint("") < 2**64


# --- shingles and Jaccard -----------------------------------------------------------------------


def test_running_example_shingles_numbered_as_in_article():
    s1, s2 = sh(D1, 3), sh(D2, 3)
    assert len(s1) == len(s2) == 10
    union = sorted(s1 | s2)
    assert len(union) == 15 and len(s1 & s2) == 5
    assert [(" ".join(s), s in s1, s in s2) for s in union] == ARTICLE_SHINGLES
    assert Fraction(len(s1 & s2), len(s1 | s2)) == Fraction(1, 3)
    assert jaccard(s1, s2) == pytest.approx(1 / 3, abs=1e-15)


def test_rose_examples_and_choice_of_k():
    assert sh(D3, 4) == {
        ("a", "rose", "is", "a"),
        ("rose", "is", "a", "rose"),
        ("is", "a", "rose", "is"),
    }
    s3_, s4 = sh(D3, 3), sh(D4, 3)
    assert (len(s3_), len(s4), len(s3_ & s4), len(s3_ | s4)) == (3, 7, 3, 7)
    assert s3_ & s4 == {("a", "rose", "is"), ("rose", "is", "a"), ("is", "a", "rose")}
    assert jaccard(s3_, s4) == pytest.approx(3 / 7, abs=1e-15)
    assert round(jaccard(s3_, s4), 2) == 0.43
    assert jaccard(sh(D3, 2), sh(D4, 2)) == 0.5


def test_shingle_edge_cases_and_empty_conventions():
    assert shingles(["a", "b"], 3) == set()
    assert shingles(["a", "b", "c"], 3) == {("a", "b", "c")}
    with pytest.raises(UsageError):
        shingles("a string is not a word list", 3)
    with pytest.raises(ValueError):
        shingles(["a"], 0)
    assert jaccard(set(), set()) == 1.0
    assert jaccard({1}, set()) == 0.0
    assert containment(set(), {1}) == 0.0
    assert containment({1, 2}, {2, 3}) == 0.5
    empty = np.empty(0, dtype=np.uint64)
    assert jaccard_hashes(empty, empty) == 1.0
    assert containment_hashes(empty, np.array([1], dtype=np.uint64)) == 0.0


@given(
    st.sets(st.integers(0, 60), max_size=40),
    st.sets(st.integers(0, 60), max_size=40),
)
def test_hash_versions_equal_set_versions(a, b):
    ha = np.array(sorted(a), dtype=np.uint64)
    hb = np.array(sorted(b), dtype=np.uint64)
    assert jaccard_hashes(ha, hb) == jaccard(a, b)
    assert containment_hashes(ha, hb) == containment(a, b)
    assert s3_hashes(ha, hb) == s3_sets(a, b)


def test_hash_versions_reject_unsorted_or_repeated_or_wrong_dtype():
    good = np.array([1, 2], dtype=np.uint64)
    for bad in (
        np.array([2, 1], dtype=np.uint64),
        np.array([1, 1], dtype=np.uint64),
        np.array([1, 2], dtype=np.int64),
    ):
        with pytest.raises(ValueError):
            jaccard_hashes(bad, good)
        with pytest.raises(ValueError):
            containment_hashes(good, bad)


def test_containment_jaccard_s3_on_a_small_set_inside_a_large_one():
    big = set(range(60_000))
    small = set(range(10_000, 13_000))
    assert containment(small, big) == 1.0
    assert jaccard(small, big) == 0.05
    assert s3_sets(small, big) == pytest.approx(6_000 / 63_000)
    assert round(s3_sets(small, big), 3) == 0.095
    # The same over hash arrays (as auditor.text.shingle produces), with values across 64 bits.
    rng = np.random.default_rng(7)
    hb = np.unique(rng.integers(0, 2**64 - 1, size=60_000, dtype=np.uint64, endpoint=True))
    assert hb.size == 60_000
    ha = np.sort(rng.choice(hb, size=3_000, replace=False))
    assert containment_hashes(ha, hb) == 1.0
    assert containment_hashes(hb, ha) == 0.05
    assert jaccard_hashes(ha, hb) == 0.05
    assert s3_hashes(ha, hb) == pytest.approx(6_000 / 63_000)


# --- MinHash ------------------------------------------------------------------------------------


def test_minhash_by_hand_reproduces_article_table():
    number = {s: i for i, (s, _, _) in enumerate(ARTICLE_SHINGLES)}
    n1 = [number[" ".join(s)] for s in sh(D1, 3)]
    n2 = [number[" ".join(s)] for s in sh(D2, 3)]
    assert sorted(n1) == [0, 1, 3, 5, 7, 8, 9, 11, 12, 13]
    assert sorted(n2) == [0, 2, 4, 6, 7, 8, 10, 11, 12, 14]
    rows = hand_table(n1, n2)
    assert [(r.a, r.b, r.min1, r.argmin1, r.min2, r.argmin2, r.agree) for r in rows] == [
        (1, 0, 0, 0, 0, 0, True),
        (3, 5, 3, 5, 0, 4, False),
        (5, 2, 0, 3, 1, 10, False),
        (7, 11, 0, 13, 2, 6, False),
        (11, 3, 0, 9, 1, 6, False),
        (13, 8, 4, 1, 0, 2, False),
    ]
    assert [(r.min1, r.min2) for r in rows] == [(0, 0), (3, 0), (0, 1), (0, 2), (0, 1), (4, 0)]
    agreements = sum(r.agree for r in rows)
    assert agreements == 1
    assert Fraction(agreements, len(rows)) == Fraction(1, 6)
    assert round(agreements / len(rows), 2) == 0.17
    # Sketches of the by-hand minimums give the same estimate through estimate().
    assert estimate(np.array([r.min1 for r in rows]), np.array([r.min2 for r in rows])) == 1 / 6


def test_standard_errors_from_article():
    assert [round(standard_error(1 / 3, m), 3) for m in (10, 100, 200)] == [0.149, 0.047, 0.033]
    assert standard_error(0.0, 5) == standard_error(1.0, 5) == 0.0
    with pytest.raises(ValueError):
        standard_error(1.5, 10)


@given(
    st.lists(st.integers(1, MERSENNE_PRIME - 1), min_size=1, max_size=20),
    st.lists(st.integers(0, MERSENNE_PRIME - 1), min_size=1, max_size=20),
)
def test_mulmod_matches_python_integers(a, x):
    n = min(len(a), len(x))
    a, x = a[:n], x[:n]
    got = mulmod(np.array(a, dtype=np.uint64), np.array(x, dtype=np.uint64))
    assert got.tolist() == [(i * j) % MERSENNE_PRIME for i, j in zip(a, x, strict=True)]


def test_mulmod_extremes():
    p = MERSENNE_PRIME
    vals = [0, 1, 2, 2**32 - 1, 2**32, 2**60, p - 2, p - 1]
    a = np.array([v for v in vals for _ in vals], dtype=np.uint64)
    x = np.array(vals * len(vals), dtype=np.uint64)
    assert mulmod(a, x).tolist() == [(int(i) * int(j)) % p for i, j in zip(a, x, strict=True)]


def test_sketch_matches_reference_over_several_chunks():
    rng = np.random.default_rng(3)
    h = rng.integers(0, 2**64 - 1, size=9_000, dtype=np.uint64, endpoint=True)
    m, seed = 6, 11
    s = sketch(h, m, seed)
    a, b = coefficients(m, seed)
    p = MERSENNE_PRIME
    xs = [int(v) % p for v in h]
    ref = [min((int(ai) * x + int(bi)) % p for x in xs) for ai, bi in zip(a, b, strict=True)]
    assert s.tolist() == ref
    assert all(1 <= int(v) < p for v in a) and all(0 <= int(v) < p for v in b)


def test_sketch_is_deterministic_and_checks_compatibility():
    h1, h2 = hashes(D1, 3), hashes(D2, 3)
    assert h1.size == h2.size == 10
    assert jaccard_hashes(h1, h2) == pytest.approx(1 / 3)
    s1, s1b = sketch(h1, 200, 42), sketch(np.concatenate([h1, h1[::-1]]), 200, 42)
    assert isinstance(s1, Sketch) and s1.seed == 42 and s1.dtype == np.uint64 and s1.shape == (200,)
    assert np.array_equal(s1, s1b)  # order and repeats do not matter
    assert estimate(s1, s1b) == 1.0
    assert s1[:10].seed == 42
    with pytest.raises(ValueError, match="seeds"):
        estimate(s1, sketch(h2, 200, 43))
    with pytest.raises(ValueError, match="shape"):
        estimate(s1, sketch(h2, 100, 42))
    # Empty sets: equal to each other, unlike any non-empty set.
    empty = sketch(np.empty(0, dtype=np.uint64), 50, 1)
    assert estimate(empty, sketch(np.empty(0, dtype=np.uint64), 50, 1)) == 1.0
    assert estimate(empty, sketch(h1, 50, 1)) == 0.0


def test_minhash_estimate_centres_on_one_third_over_30_runs():
    h1, h2 = hashes(D1, 3), hashes(D2, 3)
    est = np.array([estimate(sketch(h1, 200, seed), sketch(h2, 200, seed)) for seed in range(30)])
    assert abs(float(np.median(est)) - 1 / 3) <= 0.02
    se = standard_error(1 / 3, 200)
    assert np.mean(np.abs(est - 1 / 3) <= 2 * se) >= 0.8
    assert 0.6 * se < float(np.std(est, ddof=1)) < 1.5 * se  # the formula is the spread over seeds


def test_minhash_estimate_tracks_jaccard_on_larger_sets():
    rng = np.random.default_rng(5)
    pool = np.unique(rng.integers(0, 2**64 - 1, size=20_000, dtype=np.uint64, endpoint=True))
    a, b = pool[:12_000], pool[6_000:18_000]  # J = 6000/18000 = 1/3
    e = estimate(sketch(a, 400, 9), sketch(b, 400, 9))
    assert abs(e - 1 / 3) < 4 * standard_error(1 / 3, 400)


# --- banding ------------------------------------------------------------------------------------


def test_banding_probabilities_and_thresholds_from_article():
    assert round(lsh_probability(0.9, 20, 10), 4) == 0.9998
    assert round(lsh_probability(0.5, 20, 10), 3) == 0.019
    assert round(lsh_probability(1 / 3, 20, 10), 4) == 0.0003
    assert [round(lsh_threshold(b, r), 2) for b, r in ((40, 5), (20, 10), (10, 20))] == [
        0.48,
        0.74,
        0.89,
    ]
    c = lsh_curve(20, 10, 11)
    assert c[0] == (0.0, 0.0) and c[-1] == (1.0, 1.0) and len(c) == 11
    assert all(p1 <= p2 for (_, p1), (_, p2) in pairwise(c))
    with pytest.raises(ValueError):
        lsh_curve(20, 10, 1)


def test_band_keys_are_stable_bytes():
    s = np.arange(6, dtype=np.uint64)
    keys = band_keys(s, 3, 2)
    assert keys[1] == (1).to_bytes(4, "little") + (2).to_bytes(8, "little") + (3).to_bytes(
        8, "little"
    )
    assert band_keys(s, 2, 2) == band_keys(s, 3, 2)[:2]  # the first b*r positions
    with pytest.raises(ValueError):
        band_keys(s, 4, 2)


def test_candidate_pairs_find_high_resemblance_and_skip_low():
    rng = np.random.default_rng(11)
    pool = np.unique(rng.integers(0, 2**64 - 1, size=12_000, dtype=np.uint64, endpoint=True))
    base = pool[:2_000]
    near = np.concatenate([base[:1_900], pool[2_000:2_100]])  # J = 1900/2100 ≈ 0.905
    far = np.concatenate([base[:600], pool[3_000:4_400]])  # J with base = 600/3400 ≈ 0.18
    other = pool[5_000:7_000]  # disjoint from everything
    sk = {
        name: sketch(h, 200, 1)
        for name, h in {"base": base, "near": near, "far": far, "other": other}.items()
    }
    pairs = candidate_pairs(sk, 20, 10)
    assert ("base", "near") in pairs
    assert ("base", "far") not in pairs and ("far", "near") not in pairs
    assert all(x < y for x, y in pairs) and pairs == sorted(pairs)
    assert not any("other" in p for p in pairs)
    # An identical copy always collides, in every band.
    assert candidate_pairs({1: sk["base"], 2: sketch(base, 200, 1)}, 20, 10) == [(1, 2)]


# --- simhash ------------------------------------------------------------------------------------

ARTICLE_FIRST_BYTES = {
    "and": "10111110",
    "crawler": "11001101",
    "each": "10010011",
    "fetches": "11111110",
    "follows": "11010011",
    "its": "01011000",
    "links": "10000000",
    "new": "00100010",
    "page": "01110001",
    "pages": "10110011",
    "the": "10001111",
    "to": "00000001",
}


def test_simhash_by_hand_first_eight_bits():
    words = D1.split()
    assert sorted(words) == sorted(ARTICLE_FIRST_BYTES)
    for w, bits in ARTICLE_FIRST_BYTES.items():
        assert format(md5_64(w) >> 56, "08b") == bits
    t = totals(words)
    assert t[:8].tolist() == [4, -2, -2, 2, -2, -4, 2, 2]
    assert t.dtype == np.int64 and len(t) == 64
    assert format(simhash(words) >> 56, "08b") == "10010011"


def test_simhash_fingerprints_and_distances_from_article():
    f1, f2, f3 = simhash(D1.split()), simhash(D2.split()), simhash(D3.split())
    assert to_hex(f1) == "93264c674404019d"
    assert to_hex(f2) == "91060e274484039d"
    assert hamming(f1, f2) == 7 and 64 - hamming(f1, f2) == 57
    assert hamming(f1, f3) == 37
    assert hamming(f1, simhash(sorted(set(D3.split())))) == 37  # d3 with each word once
    # Counts as weights equal an explicit mapping; order is ignored.
    assert simhash(D3.split()) == simhash({"a": 4, "rose": 3, "is": 2})
    assert simhash(D1.split()[::-1]) == f1


def test_simhash_pluggable_hash_and_ties():
    assert simhash([]) == 0 and to_hex(0) == "0" * 16
    # Bit i is 1 only for a positive total: two opposite votes tie at 0.
    assert simhash(["x", "y"], feature_hash={"x": 0b10, "y": 0b01}.__getitem__, f=2) == 0
    assert (
        simhash({"x": 2.5, "y": 1.0}, feature_hash={"x": 0b10, "y": 0b01}.__getitem__, f=2) == 0b10
    )
    with pytest.raises(ValueError):
        simhash(["x"], feature_hash=lambda _: 1 << 64)
    with pytest.raises(UsageError):
        simhash("a string")


def _bits(x: np.ndarray) -> np.ndarray:
    """Popcount of each uint64 by unpacking its bytes: independent of the code under test."""
    return np.unpackbits(x.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)


def _brute_force(fps: dict[int, int], k: int) -> list[tuple[int, int, int]]:
    ids = sorted(fps)
    arr = np.array([fps[i] for i in ids], dtype=np.uint64)
    out = []
    for n, i in enumerate(ids[:-1]):
        d = _bits(arr[n + 1 :] ^ arr[n])
        for off in np.flatnonzero(d <= k).tolist():
            out.append((i, ids[n + 1 + off], int(d[off])))
    return sorted(out)


def _flip(x: int, d: int, rnd: random.Random) -> int:
    for bit in rnd.sample(range(64), d):
        x ^= 1 << bit
    return x


def test_permuted_tables_equal_brute_force():
    rng = np.random.default_rng(2007)
    rnd = random.Random(2007)
    base = rng.integers(0, 2**64 - 1, size=3_000, dtype=np.uint64, endpoint=True).tolist()
    fps = dict(enumerate(base))
    planted_near, planted_far = [], []
    nid = len(fps)
    for i in range(0, 400, 2):
        d = i // 2 % 6  # distances 0..5
        fps[nid] = _flip(fps[i], d, rnd)
        (planted_near if d <= 3 else planted_far).append((i, nid, d))
        nid += 1
    # A cluster: several variants of one fingerprint within 3 bits of it.
    for d in (1, 2, 3, 3):
        fps[nid] = _flip(fps[1], d, rnd)
        nid += 1
    # Bits confined to one block, and spread across all four 16-bit blocks.
    fps[nid] = fps[3] ^ 0b111  # 3 bits in the lowest block
    fps[nid + 1] = fps[5] ^ ((1 << 63) | (1 << 40) | (1 << 20))
    fps[nid + 2] = fps[7] ^ ((1 << 63) | (1 << 47) | (1 << 31) | (1 << 15))  # 4 bits, 4 blocks
    expected = _brute_force(fps, 3)
    assert near_duplicates(fps, 3) == expected
    assert near_duplicates(fps, 3, blocks=6) == expected
    found = {(a, b): d for a, b, d in expected}
    assert all(found.get((a, b)) == d for a, b, d in planted_near)
    assert not any((a, b) in found for a, b, _ in planted_far)
    assert (3, nid, 3) in expected and (5, nid + 1, 3) in expected
    assert (7, nid + 2) not in found
    # Other distances use the same scheme.
    assert near_duplicates(fps, 1) == _brute_force(fps, 1)
    assert near_duplicates(fps, 5, blocks=8) == _brute_force(fps, 5)


def test_popcounts_agree():
    rng = np.random.default_rng(1)
    x = np.concatenate(
        [
            np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64),
            rng.integers(0, 2**64 - 1, size=1_000, dtype=np.uint64, endpoint=True),
        ]
    )
    expected = _bits(x).tolist()
    assert _swar_popcount(x).tolist() == expected
    assert _popcount(x).tolist() == expected
    assert expected[:4] == [0, 1, 1, 64]


def test_near_duplicates_small_cases_and_table_masks():
    assert near_duplicates({}) == [] and near_duplicates({"a": 1}) == []
    assert near_duplicates({"b": 0, "a": 0}) == [("a", "b", 0)]
    assert len(table_masks(3)) == 4 and len(table_masks(3, blocks=6)) == 20
    for masks in (table_masks(3), table_masks(3, blocks=6)):
        assert all(m.bit_count() >= 16 for m in masks)
    with pytest.raises(ValueError):
        near_duplicates({"a": 1, "b": 2}, k=3, blocks=3)
    with pytest.raises(ValueError):
        near_duplicates({"a": -1, "b": 2})


# --- S3 -----------------------------------------------------------------------------------------


def test_s3_simple_examples():
    ten = [f"w{i}" for i in range(10)]  # three 8-grams
    assert s3(ten, ten) == 1.0
    assert s3(ten, [f"v{i}" for i in range(10)]) == 0.0
    assert s3(ten, [*ten[:9], "changed"]) == pytest.approx(2 / 3)  # 2 of 3 shared each
    assert s3(ten, ten[:8]) == pytest.approx(2 * 1 / (3 + 1))  # |A∩B| / mean(3, 1)
    # Too short for an 8-gram: equality decides.
    assert s3(["a", "b"], ["a", "b"]) == 1.0
    assert s3(["a", "b"], ["a", "c"]) == 0.0
    assert s3([], []) == 1.0
    assert s3(ten, ["a"]) == 0.0
    assert s3(D1.split(), D2.split(), n=3) == 0.5  # 5 shared of 10 and 10
    assert s3_sets({1, 2}, {2, 3, 4, 5}) == pytest.approx(1 / 3)


# --- CopyCat preprocessing ----------------------------------------------------------------------


def test_lucene_stop_words_are_the_classic_33():
    assert sorted(LUCENE_ENGLISH_STOP_WORDS) == sorted(
        [
            "a",
            "an",
            "and",
            "are",
            "as",
            "at",
            "be",
            "but",
            "by",
            "for",
            "if",
            "in",
            "into",
            "is",
            "it",
            "no",
            "not",
            "of",
            "on",
            "or",
            "such",
            "that",
            "the",
            "their",
            "then",
            "there",
            "these",
            "they",
            "this",
            "to",
            "was",
            "will",
            "with",
        ]
    )
    assert len(LUCENE_ENGLISH_STOP_WORDS) == 33


def test_porter_stemmer_is_classic_porter():
    words = ["caresses", "ponies", "relational", "conditional", "hopeful", "running", "pages"]
    assert porter_stem(words) == ["caress", "poni", "relat", "condit", "hope", "run", "page"]


def test_preprocess_defaults_order_and_record():
    assert Preprocess() == COPYCAT
    assert COPYCAT.as_dict() == {"lowercase": True, "stopwords": True, "stem": True, "html": "full"}
    words = [
        "The",
        "Crawler",
        "fetches",
        "each",
        "page",
        "and",
        "follows",
        "its",
        "links",
        "to",
        "new",
        "pages",
    ]
    assert COPYCAT.apply(words) == [
        "crawler",
        "fetch",
        "each",
        "page",
        "follow",
        "it",
        "link",
        "new",
        "page",
    ]
    # Stop words match exactly, as Lucene's StopFilter: without lower-casing "The" stays.
    assert Preprocess(lowercase=False, stem=False).apply(["The", "the", "Law"]) == ["The", "Law"]
    assert Preprocess(stopwords=False, stem=False).apply(["The", "Law"]) == ["the", "law"]
    assert Preprocess(False, False, False).apply(words) == words
    with pytest.raises(ValueError):
        Preprocess(html="boilerpipe")  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        COPYCAT.apply("a string")
    with pytest.raises(AttributeError):
        COPYCAT.stem = False  # type: ignore[misc]


PAGE = (
    "<html><head><title>Rules</title><style>p{color:red}</style></head><body>"
    "<div id=nav><a href=/>Home</a> | <a href=/about>About</a></div>"
    "<p>" + "The regulation requires that every operator shall keep records of all transactions "
    "for a period of not less than five years from the date of the transaction. "
    * 3
    + "</p><script>var x = 1;</script><footer>Copyright 2024</footer></body></html>"
)


def test_full_text_keeps_everything_but_code_and_separates_blocks():
    t = full_text(PAGE)
    assert t.startswith("Rules Home | About The regulation")
    assert t.endswith("the transaction. Copyright 2024")
    assert "color" not in t and "var x" not in t
    assert full_text("<div>Hel<b>lo</b></div><p>a<br>b</p><!-- c -->tail") == "Hello a b tail"
    assert full_text("") == full_text("<!-- only a comment -->") == ""
    assert full_text("caf\u00e9".encode()) == "caf\u00e9"
    assert full_text(b"<meta charset=latin-1><p>caf\xe9</p>") == "caf\u00e9"
    assert COPYCAT.text(PAGE) == t


def test_main_text_uses_justext():
    t = Preprocess(html="main").text(PAGE)
    assert t.startswith("The regulation requires")
    assert "Home" not in t and "Copyright" not in t
    assert main_text("") == ""


def test_main_text_without_justext_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "justext", None)
    with pytest.raises(UsageError, match="pip install justext"):
        main_text(PAGE)
