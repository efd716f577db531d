"""Word shingles and exact set measures: Jaccard resemblance and containment.

Broder (1997) compares documents by their sets of ``k``-shingles (``k`` consecutive words).
*Resemblance* ``J(A, B) = |A ∩ B| / |A or B|`` says whether two texts are near-duplicates;
*containment* ``|A ∩ B| / |A|`` says whether ``A`` lies inside ``B`` whatever ``B``'s length,
which is the question this auditor asks (a 3,000-shingle rule inside a 60,000-shingle code has
containment 1 but resemblance 0.05).

The set versions are exact and meant for tests and small inputs; the ``*_hashes`` versions take
the sorted distinct ``uint64`` shingle hashes of ``auditor.text.shingle`` and cost one
``np.intersect1d``.

Empty sets: two empty sets are equal, so their resemblance is 1.0 (as their MinHash sketches
agree everywhere). Containment of an empty set is 0.0: a text with no shingles is no evidence
of copying, and callers should drop texts shorter than ``k`` words before asking.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from auditor.errors import UsageError
from auditor.text import score


def shingles(words: Sequence[str], k: int) -> set[tuple[str, ...]]:
    """The distinct ``k``-shingles of ``words``; empty when there are fewer than ``k`` words."""
    if isinstance(words, str):
        raise UsageError("shingles() takes a sequence of words, not a string")
    if k < 1:
        raise UsageError(f"shingle size k must be >= 1, not {k}")
    w = list(words)
    return {tuple(w[i : i + k]) for i in range(len(w) - k + 1)}


def jaccard(a: set, b: set) -> float:
    """Exact resemblance ``|a ∩ b| / |a or b|``; 1.0 for two empty sets."""
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def containment(a: set, b: set) -> float:
    """Exact containment of ``a`` in ``b``, ``|a ∩ b| / |a|``; 0.0 when ``a`` is empty."""
    if not a:
        return 0.0
    return len(a & b) / len(a)


def check_hashes(h: np.ndarray, name: str = "hashes") -> np.ndarray:
    """``h`` as a 1-D ``uint64`` array, which must be sorted and distinct (as ``np.unique`` gives).

    ``np.intersect1d(assume_unique=True)`` silently miscounts repeated values, so we check:
    the check is linear, the intersection is not.
    """
    h = np.asarray(h)
    if h.ndim != 1 or h.dtype != np.uint64:
        raise UsageError(f"{name} must be a 1-D uint64 array, not {h.ndim}-D {h.dtype}")
    if h.size > 1 and not bool(np.all(h[1:] > h[:-1])):
        raise UsageError(f"{name} must be sorted and distinct (use np.unique)")
    return h


def intersection_size(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int]:
    """``(|a|, |b|, |a ∩ b|)`` for sorted distinct ``uint64`` hash arrays."""
    a = check_hashes(a, "a")
    b = check_hashes(b, "b")
    return a.size, b.size, int(np.intersect1d(a, b, assume_unique=True).size)


def jaccard_hashes(a: np.ndarray, b: np.ndarray) -> float:
    """``jaccard`` over sorted distinct ``uint64`` shingle hashes (checked): the engine's
    :func:`auditor.text.score.jaccard`, 1.0 for two empty sets."""
    return score.jaccard(check_hashes(a, "a"), check_hashes(b, "b"))


def containment_hashes(a: np.ndarray, b: np.ndarray) -> float:
    """``containment`` of ``a`` in ``b`` over sorted distinct ``uint64`` shingle hashes
    (checked): the engine's :func:`auditor.text.score.containment`."""
    return score.containment(check_hashes(a, "a"), check_hashes(b, "b"))
