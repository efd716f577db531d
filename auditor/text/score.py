"""Containment estimates, their intervals, and the verdict rule. Pure math: no I/O.

With 1-in-m hash sampling, the sampled shingles of a document A are a uniform random subset of
its shingles (the hash decides, not the document), and a shared shingle is sampled in both
documents or in neither. So ``hits / sampled`` (sampled shingles of A also in B, over sampled
shingles of A) is an unbiased estimate of ``|S(A) & S(B)| / |S(A)|``, and ``hits`` is binomial
given the true containment. The 95% Wilson score interval says how sure the estimate is: on a
60-word document (about 3 sampled shingles) it spans most of [0, 1], which is why such
estimates are never trusted on their own and are verified exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

Z95 = 1.959963984540054


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``hits / n``."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    denom = 1 + z2 / n
    low = 0.0 if hits == 0 else max(0.0, (centre - half) / denom)
    high = 1.0 if hits == n else min(1.0, (centre + half) / denom)
    return low, high


def wilson_high(hits: np.ndarray, n: np.ndarray | int, z: float = Z95) -> np.ndarray:
    """Vectorised upper Wilson bound."""
    n_arr = np.asarray(n, dtype=np.float64)
    p = np.asarray(hits, dtype=np.float64) / n_arr
    z2 = z * z
    half = z * np.sqrt(p * (1 - p) / n_arr + z2 / (4 * n_arr * n_arr))
    return np.minimum(1.0, (p + z2 / (2 * n_arr) + half) / (1 + z2 / n_arr))


@lru_cache(maxsize=65536)
def min_hits(n: int, threshold: float, z: float = Z95) -> int:
    """Fewest hits out of ``n`` whose upper Wilson bound reaches ``threshold``.

    A document B sharing fewer sampled shingles with A cannot plausibly contain A, so it is
    not a candidate; one sharing at least this many is scored, and verified exactly when the
    interval does not rule the threshold out.
    """
    if n <= 0:
        return 0
    highs = wilson_high(np.arange(n + 1), n, z)
    return int(np.searchsorted(highs, threshold - 1e-12, side="left"))


def prefix_length(n: int, threshold: float, z: float = Z95) -> int:
    """How many of A's rarest sampled shingles a candidate must share at least one of.

    Any B with ``h >= min_hits`` shared shingles misses at most ``n - h`` of A's shingles, so it
    holds at least one of any ``n - min_hits + 1`` of them. Taking the rarest ones keeps
    boilerplate posting lists out of candidate generation without losing a true container.
    """
    return n - min_hits(n, threshold, z) + 1 if n > 0 else 0


@dataclass(frozen=True, slots=True)
class Estimate:
    sampled: int
    hits: int
    estimate: float
    low: float
    high: float

    @classmethod
    def of(cls, hits: int, sampled: int) -> Estimate:
        low, high = wilson(hits, sampled)
        return cls(sampled, hits, hits / sampled if sampled else 0.0, low, high)

    def needs_exact(self, threshold: float) -> bool:
        """Exact verification for every possible finding and every straddling interval."""
        return self.high >= threshold


def wilson_arrays(hits: np.ndarray, n: np.ndarray | int, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """``wilson`` for many pairs at once, operation for operation, so the bounds are the same floats."""
    h = np.asarray(hits, dtype=np.int64)
    nn = np.broadcast_to(np.asarray(n, dtype=np.int64), h.shape)
    nf = np.maximum(nn, 1).astype(np.float64)
    p = h / nf
    z2 = z * z
    centre = p + z2 / (2 * nf)
    half = z * np.sqrt(p * (1 - p) / nf + z2 / (4 * nf * nf))
    denom = 1 + z2 / nf
    low = np.where(h == 0, 0.0, np.maximum(0.0, (centre - half) / denom))
    high = np.where(h == nn, 1.0, np.minimum(1.0, (centre + half) / denom))
    empty = nn <= 0
    return np.where(empty, 0.0, low), np.where(empty, 1.0, high)


def needs_exact(hits: np.ndarray, sampled: np.ndarray | int, threshold: float) -> np.ndarray:
    """``Estimate.needs_exact`` for many pairs at once: the upper Wilson bound reaches the threshold."""
    return wilson_arrays(hits, sampled)[1] >= threshold


def containment(a: np.ndarray, b: np.ndarray) -> float:
    """|a & b| / |a| over sorted arrays of distinct hashes; 0.0 when ``a`` is empty (nothing of
    it can be found anywhere). The one definition: ``auditor.engine.measures`` checks its inputs and
    calls this."""
    if len(a) == 0:
        return 0.0
    return len(np.intersect1d(a, b, assume_unique=True)) / len(a)


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """|a & b| / |a | b| over sorted arrays of distinct hashes; 1.0 for two empty sets (they are
    the same set), as Broder's resemblance and ``auditor.engine.measures`` have it."""
    inter = len(np.intersect1d(a, b, assume_unique=True))
    union = len(a) + len(b) - inter
    return inter / union if union else 1.0
