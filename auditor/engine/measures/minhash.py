"""MinHash sketches: estimating Jaccard resemblance from ``m`` minimum hash values.

Broder (1997): for a random hash ``h``, ``P[min h(A) = min h(B)] = J(A, B)``, because the
minimum over ``A or B`` (the union) is equally likely to be any element and the minimums agree exactly when
it lies in ``A ∩ B``. With ``m`` independent functions the fraction of agreeing positions is a
binomial proportion: unbiased, with standard error ``sqrt(J(1-J)/m)`` (the near-duplicate
article: 0.149, 0.047 and 0.033 for ``J = 1/3`` and ``m = 10, 100, 200``).

Hash family: ``h_i(x) = (a_i x + b_i) mod p`` with the Mersenne prime ``p = 2**61 - 1``, applied
to 64-bit shingle hashes reduced mod ``p``. Products of 61-bit numbers need 122 bits, so the
multiplication is split into 32-bit halves and reduced with ``2**61 ≡ 1 (mod p)``; every step
stays below ``2**63`` in ``uint64`` (nothing wraps, unlike the usual ``(a*x+b) % p`` on
``uint64`` that silently overflows).

``(a_i, b_i)`` come from the raw output of ``PCG64(seed)``: that stream is fixed by the
generator's definition, whereas ``Generator.integers`` may change between numpy versions (NEP
19), and stored sketches must be recomputable.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from auditor.errors import UsageError

MERSENNE_PRIME = (1 << 61) - 1
DEFAULT_M = 200  # Manning, Raghavan and Schütze (2008, §19.6)
DEFAULT_SEED = 0x5EED_CA
EMPTY = np.uint64(0xFFFF_FFFF_FFFF_FFFF)  # the sketch value of an empty set; no hash reaches it
HASH_FAMILY = (
    "minhash: (a*x+b) mod 2**61-1, x = hash mod 2**61-1, (a,b) from PCG64(seed).random_raw"
)

_P = np.uint64(MERSENNE_PRIME)
_M32 = np.uint64(0xFFFF_FFFF)
_M29 = np.uint64((1 << 29) - 1)
_U3, _U29, _U32, _U61 = np.uint64(3), np.uint64(29), np.uint64(32), np.uint64(61)
_CHUNK = 4096  # hashes per block: keeps the (m, chunk) temporaries at a few MB


class Sketch(np.ndarray):
    """A MinHash sketch: a 1-D ``uint64`` array that remembers the seed of its hash functions.

    Sketches are comparable only when made with the same functions; ``estimate`` checks it.
    """

    seed: int | None

    def __new__(cls, values: np.ndarray | Sequence[int], seed: int | None) -> Sketch:
        obj = np.asarray(values, dtype=np.uint64).view(cls)
        obj.seed = seed
        return obj

    def __array_finalize__(self, obj: np.ndarray | None) -> None:
        self.seed = getattr(obj, "seed", None)


def _reduce(s: np.ndarray) -> np.ndarray:
    """``s mod p`` for ``s < 2**63``: fold the bits above 61 back in (``2**61 ≡ 1``)."""
    s = (s & _P) + (s >> _U61)
    return np.where(s >= _P, s - _P, s)


def mulmod(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``(a * x) mod (2**61 - 1)`` elementwise (broadcasting) for ``uint64`` inputs below ``p``.

    With ``a = ah 2**32 + al`` and ``x = xh 2**32 + xl``:
    ``a x = ah xh 2**64 + (ah xl + al xh) 2**32 + al xl`` and ``2**64 ≡ 8``,
    ``mid 2**32 ≡ (mid >> 29) + (mid mod 2**29) 2**32``. Each term is below ``2**61`` (or tiny),
    so the sum stays below ``2**63``.
    """
    ah, al = a >> _U32, a & _M32
    xh, xl = x >> _U32, x & _M32
    mid = ah * xl + al * xh  # < 2**62
    ll = al * xl  # < 2**64
    s = ((ah * xh) << _U3) + (mid >> _U29) + ((mid & _M29) << _U32) + (ll & _P) + (ll >> _U61)
    return _reduce(s)


def coefficients(m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``(a, b)`` of ``m`` hash functions: ``1 <= a < p`` and ``0 <= b < p``, from ``seed``."""
    if m < 1:
        raise UsageError(f"number of hash functions m must be >= 1, not {m}")
    raw = np.random.PCG64(seed).random_raw(2 * m) >> _U3  # 61-bit values, at most p
    a = raw[:m] % (_P - np.uint64(1)) + np.uint64(1)
    b = raw[m:] % _P
    return a, b


def sketch(hashes: np.ndarray, m: int = DEFAULT_M, seed: int = DEFAULT_SEED) -> Sketch:
    """The MinHash sketch of a set of 64-bit shingle hashes (repeats are harmless).

    Position ``i`` is ``min over x of (a_i (x mod p) + b_i) mod p``; an empty set gives ``EMPTY``
    everywhere, so two empty sets estimate 1.0 and an empty and a non-empty one 0.0.
    """
    a, b = coefficients(m, seed)
    h = np.asarray(hashes)
    if h.ndim != 1:
        raise UsageError(f"hashes must be 1-D, not {h.ndim}-D")
    h = h.astype(np.uint64, copy=False) % _P
    out = np.full(m, EMPTY, dtype=np.uint64)
    a_col, b_col = a[:, None], b[:, None]
    for start in range(0, h.size, _CHUNK):
        x = h[None, start : start + _CHUNK]
        v = _reduce(mulmod(a_col, x) + b_col)  # < 2**62 before reduction
        np.minimum(out, v.min(axis=1), out=out)
    return Sketch(out, seed)


def estimate(s1: np.ndarray, s2: np.ndarray) -> float:
    """Estimated resemblance: the fraction of positions where the two sketches agree.

    Raises ``ValueError`` (``UsageError``) when the sketches differ in length, or both carry a
    seed and the seeds differ: their positions then come from different hash functions.
    """
    seed1, seed2 = getattr(s1, "seed", None), getattr(s2, "seed", None)
    if seed1 is not None and seed2 is not None and seed1 != seed2:
        raise UsageError(f"sketches made with different seeds ({seed1} and {seed2})")
    a, b = np.asarray(s1), np.asarray(s2)
    if a.shape != b.shape or a.ndim != 1:
        raise UsageError(f"sketches differ in shape ({a.shape} and {b.shape})")
    if a.size == 0:
        raise UsageError("empty sketches")
    return int(np.count_nonzero(a == b)) / a.size


def standard_error(j: float, m: int) -> float:
    """Standard error ``sqrt(J(1-J)/m)`` of the estimate: agreements are Binomial(m, J)."""
    if not 0.0 <= j <= 1.0:
        raise UsageError(f"resemblance must lie in [0, 1], not {j}")
    if m < 1:
        raise UsageError(f"m must be >= 1, not {m}")
    return math.sqrt(j * (1.0 - j) / m)


# --- The article's hand-worked example ------------------------------------------------------

ARTICLE_COEFFICIENTS: tuple[tuple[int, int], ...] = (
    (1, 0),
    (3, 5),
    (5, 2),
    (7, 11),
    (11, 3),
    (13, 8),
)
ARTICLE_PRIME = 17


@dataclass(frozen=True)
class HandRow:
    """One row of the by-hand table: a hash function and each document's minimum under it."""

    a: int
    b: int
    min1: int
    argmin1: int  # the shingle number giving min1
    min2: int
    argmin2: int

    @property
    def agree(self) -> bool:
        return self.min1 == self.min2


def hand_table(
    s1: Iterable[int],
    s2: Iterable[int],
    coeffs: Sequence[tuple[int, int]] = ARTICLE_COEFFICIENTS,
    prime: int = ARTICLE_PRIME,
) -> list[HandRow]:
    """MinHash by hand on numbered shingles with ``h(x) = (a x + b) mod prime``.

    With ``prime`` above every shingle number and ``a`` not a multiple of it, each function
    reorders the shingles (no ties), as in the article's table.
    """
    n1, n2 = sorted(set(s1)), sorted(set(s2))
    if not n1 or not n2:
        raise UsageError("both documents need at least one shingle")
    rows = []
    for a, b in coeffs:
        m1, x1 = min(((a * x + b) % prime, x) for x in n1)
        m2, x2 = min(((a * x + b) % prime, x) for x in n2)
        rows.append(HandRow(a, b, m1, x1, m2, x2))
    return rows
