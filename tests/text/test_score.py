import math

import numpy as np
import pytest

from auditor.text.score import (
    Z95,
    Estimate,
    containment,
    jaccard,
    min_hits,
    needs_exact,
    prefix_length,
    wilson,
    wilson_arrays,
    wilson_high,
)


def test_wilson_matches_the_textbook_values():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(250, 250)
    assert hi == 1.0 and lo > 0.98


def test_short_documents_get_wide_intervals():
    lo, hi = wilson(3, 3)  # a 60-word document has about 3 sampled shingles
    assert lo < 0.45 and hi == 1.0


def test_a_pair_is_verified_exactly_when_its_upper_bound_reaches_the_threshold():
    # estimate 0.7 is below 0.8, but with 10 sampled shingles the interval reaches 0.8:
    # the true containment may be above the threshold, so the pair must be verified
    straddling = Estimate.of(7, 10)
    assert straddling.estimate < 0.8 <= straddling.high
    assert straddling.needs_exact(0.8)
    # a clear miss with the same estimate but 1,000 sampled shingles is not verified
    clear_miss = Estimate.of(700, 1000)
    assert clear_miss.high < 0.8 and not clear_miss.needs_exact(0.8)
    # a clear hit is verified too: the verdict always uses the exact value
    assert Estimate.of(250, 250).needs_exact(0.8)
    assert not Estimate.of(0, 3).needs_exact(0.8)


def test_vectorised_rule_and_bounds_are_the_scalar_ones_bit_for_bit():
    hits, n = zip(*[(h, m) for m in range(0, 120) for h in range(m + 1)], strict=True)
    lo, hi = wilson_arrays(np.array(hits), np.array(n))
    assert [(float(a), float(b)) for a, b in zip(lo, hi, strict=True)] == [wilson(h, m) for h, m in zip(hits, n, strict=True)]
    rule = needs_exact(np.array(hits), np.array(n), 0.8)
    assert rule.tolist() == [Estimate.of(h, m).needs_exact(0.8) for h, m in zip(hits, n, strict=True)]
    assert rule.any() and not rule.all()


def test_estimate_of_carries_the_counts_and_the_interval():
    assert Estimate.of(7, 10) == Estimate(10, 7, 0.7, *wilson(7, 10))
    assert Estimate.of(0, 0) == Estimate(0, 0, 0.0, 0.0, 1.0)  # nothing sampled: nothing known


def test_a_perfect_estimate_is_verified_even_at_threshold_one():
    # threshold 1.0 asks for complete containment: the bound 1.0 reaches it, and only the exact
    # value may decide (a sampled 5/5 says nothing about the unsampled shingles)
    assert Estimate.of(5, 5).needs_exact(1.0) and not Estimate.of(4, 5).needs_exact(1.0)
    assert needs_exact(np.array([5, 4]), 5, 1.0).tolist() == [True, False]


def test_vectorised_bound_agrees():
    for n in (1, 3, 17, 250):
        h = np.arange(n + 1)
        assert np.allclose(wilson_high(h, n), [wilson(int(x), n)[1] for x in h], atol=1e-12)
    # counts past 2**32 (n*n overflows int64): still the scalar bound
    for n in (10**10, 3 * 10**9):
        h = np.array([n - 10, n // 2], dtype=np.int64)
        assert np.allclose(wilson_high(h, n), [wilson(int(x), n)[1] for x in h], atol=1e-12, rtol=0)


def test_upper_bound_never_exceeds_one():
    # (p + z2/2n + half) / (1 + z2/n) is 1 for p = 1 in exact arithmetic, and rounds above it
    for n in range(1, 400):
        assert wilson_high(np.arange(n + 1), n).max() <= 1.0


def test_min_hits_is_the_first_count_whose_interval_reaches_the_threshold():
    for n in (1, 2, 5, 40, 300, 4000):
        for z in (Z95, 1.0):
            m = min_hits(n, 0.8, z)
            assert wilson(m, n, z)[1] >= 0.8
            if m > 0:
                assert wilson(m - 1, n, z)[1] < 0.8
    assert min_hits(0, 0.8) == 0


@pytest.mark.parametrize("z", [Z95, 1.0])
def test_prefix_principle_guarantees_a_shared_rare_shingle(z):
    """A container sharing ``min_hits`` of A's n sampled shingles, *whichever* they are, shares one
    of A's ``prefix_length`` rarest; one fewer rare shingle and the worst container is missed."""
    for n in (1, 2, 7, 40, 250, 1000):
        m, p = min_hits(n, 0.8, z), prefix_length(n, 0.8, z)
        rarest_first = list(range(n))
        worst = set(rarest_first[n - m:])  # the container holding the m commonest shingles
        assert worst & set(rarest_first[:p])
        if p > 1:
            assert not worst & set(rarest_first[: p - 1])
        assert 0 < p <= n
    assert prefix_length(0, 0.8) == 0  # no sampled shingle: no prefix to look up
    assert math.isclose(min_hits(250, 0.8) / 250, 0.75, abs_tol=0.03)


def test_set_measures():
    a = np.array([1, 2, 3, 4], dtype=np.uint64)
    b = np.array([3, 4, 5, 6, 7, 8, 9, 10], dtype=np.uint64)
    assert containment(a, b) == 0.5
    assert jaccard(a, b) == 2 / 10
    assert containment(np.empty(0, np.uint64), b) == 0.0
    assert jaccard(np.empty(0, np.uint64), np.empty(0, np.uint64)) == 1.0  # the same (empty) set, as measures has it
    assert containment(b, a) == 2 / 8 and jaccard(a, np.array([5], dtype=np.uint64)) == 0.0
