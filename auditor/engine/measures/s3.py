"""S3, the lossless fingerprint similarity of Bernstein and Zobel (2004), as used by CopyCat.

``S3(A, B) = |A ∩ B| / mean(|A|, |B|) = 2 |A ∩ B| / (|A| + |B|)`` over the sets of word
8-grams of the two documents: 0 for no overlap, 1 for equal sets. The CopyCat study (Fröbe et
al., on main content extraction and near-duplicates) scores document pairs with it at
thresholds 1 and 0.9. Unlike containment it is symmetric and penalises a length mismatch: a
3,000-gram text inside a 60,000-gram one scores about 0.095.

Texts too short to have an 8-gram have no fingerprints; we then score 1.0 when their words are
equal and 0.0 otherwise, rather than 0/0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from auditor.engine.measures.jaccard import intersection_size, shingles

S3_N = 8  # word 8-grams, as in the CopyCat study


def s3_sets(a: set, b: set) -> float:
    """``2 |a ∩ b| / (|a| + |b|)``; 1.0 for two empty sets (they are equal)."""
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def s3_hashes(a: np.ndarray, b: np.ndarray) -> float:
    """``s3_sets`` over sorted distinct ``uint64`` n-gram hashes."""
    na, nb, inter = intersection_size(a, b)
    if na == 0 and nb == 0:
        return 1.0
    return 2 * inter / (na + nb)


def s3(words_a: Sequence[str], words_b: Sequence[str], n: int = S3_N) -> float:
    """S3 of two word sequences over their word ``n``-grams (preprocess the words first)."""
    a, b = shingles(words_a, n), shingles(words_b, n)
    if not a and not b:
        return 1.0 if list(words_a) == list(words_b) else 0.0
    return s3_sets(a, b)
