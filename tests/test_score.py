import math

import numpy as np
import pytest

from auditor.score import (
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


def test_vectorised_bound_agrees():
    for n in (1, 3, 17, 250):
        h = np.arange(n + 1)
        assert np.allclose(wilson_high(h, n), [wilson(int(x), n)[1] for x in h], atol=1e-12)


def test_min_hits_is_the_first_count_whose_interval_reaches_the_threshold():
    for n in (1, 2, 5, 40, 300, 4000):
        m = min_hits(n, 0.8)
        assert wilson(m, n)[1] >= 0.8
        if m > 0:
            assert wilson(m - 1, n)[1] < 0.8
        assert prefix_length(n, 0.8) == n - m + 1


def test_prefix_principle_guarantees_a_shared_rare_shingle():
    n = 250
    m = min_hits(n, 0.8)
    p = prefix_length(n, 0.8)
    assert m + p > n  # any m shingles of n meet any p of them
    assert math.isclose(m / n, 0.75, abs_tol=0.03)


def test_set_measures():
    a = np.array([1, 2, 3, 4], dtype=np.uint64)
    b = np.array([3, 4, 5, 6, 7, 8, 9, 10], dtype=np.uint64)
    assert containment(a, b) == 0.5
    assert jaccard(a, b) == 2 / 10
    assert containment(np.empty(0, np.uint64), b) == 0.0
