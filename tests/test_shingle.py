import numpy as np
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.shingle import (
    DEFAULT_PARAMS,
    Params,
    WordHasher,
    combine,
    sample,
    shingle_hashes,
    shingle_text,
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
    import auditor.shingle

    monkeypatch.setattr(auditor.shingle, "_MAX_CACHED_WORDS", 3)
    hasher = WordHasher(9)
    words = [f"w{i}".encode() for i in range(10)]
    got = [h for i in range(0, 10, 2) for h in hasher(words[i:i + 2]).tolist()]
    assert len(hasher._cache) <= 4  # it was emptied on the way
    assert got == [xxhash.xxh3_64_intdigest(w, 9) for w in words]
