"""Charikar's simhash and near-duplicate search by Hamming distance without all pairs.

Simhash (Charikar 2002; computed for web pages as in Manku, Jain and Das Sarma 2007, §2): each
feature, with a weight, hashes to ``f`` bits and votes ``+weight`` on every bit where its hash
has a 1 and ``-weight`` where it has a 0; bit ``i`` of the fingerprint is 1 iff total ``i`` is
positive. Documents with similar weighted features share most votes, so their fingerprints
differ in few bits (``P[bit agrees] ≈ 1 - θ/π`` for feature vectors at angle ``θ``).

The near-duplicate article's convention is the default: words as features, weighted by their
count (1 each in its sentences), hashed to the first 64 bits of their MD5 digest, bit 1 being
the most significant bit of the first byte; fingerprints are printed as 16 hex digits.

``near_duplicates`` finds every pair within Hamming distance ``k`` with the permuted-table
method of Manku, Jain and Das Sarma (2007, §3): see its docstring.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from itertools import combinations
from typing import Any

import numpy as np

from auditor.errors import UsageError

F = 64
FEATURE_HASH_NAME = "md5-first-64-bits-big-endian"


def md5_64(feature: str) -> int:
    """First 64 bits of the feature's MD5 digest (UTF-8), big-endian: the article's hash."""
    digest = hashlib.md5(feature.encode("utf-8", "surrogatepass"), usedforsecurity=False).digest()
    return int.from_bytes(digest[:8], "big")


def _weights(features: Iterable[str] | Mapping[str, float]) -> dict[str, float]:
    if isinstance(features, str):
        raise UsageError("simhash takes words (or a mapping of features to weights), not a string")
    if isinstance(features, Mapping):
        return dict(features)
    return dict(Counter(features))


def totals(
    features: Iterable[str] | Mapping[str, float],
    feature_hash: Callable[[str], int] = md5_64,
    f: int = F,
) -> np.ndarray:
    """The ``f`` running totals, bit 1 (most significant) first.

    ``features`` is either a sequence of features, each weighted by its count, or a mapping
    from feature to weight. ``feature_hash`` must return an ``f``-bit non-negative int.
    """
    if not 1 <= f <= 64:
        raise UsageError(f"fingerprint size f must be in 1..64, not {f}")
    w = _weights(features)
    if not w:
        return np.zeros(f, dtype=np.int64)
    hashes = [feature_hash(feat) for feat in w]
    if any(not 0 <= h < (1 << f) for h in hashes):
        raise UsageError(f"feature hash returned a value outside 0..2**{f}-1")
    as_bytes = np.array(hashes, dtype=np.uint64).astype(">u8").view(np.uint8).reshape(-1, 8)
    bits = np.unpackbits(as_bytes, axis=1)[:, 64 - f :]  # MSB first
    votes = bits.astype(np.int64) * 2 - 1  # +1 for a 1 bit, -1 for a 0 bit
    weight = np.array(list(w.values()))
    # Integer weights (counts) give exact integer totals; anything else is summed as floats.
    weight = weight.astype(np.int64 if weight.dtype.kind in "biu" else np.float64)
    return weight @ votes


def simhash(
    features: Iterable[str] | Mapping[str, float],
    feature_hash: Callable[[str], int] = md5_64,
    f: int = F,
) -> int:
    """The ``f``-bit simhash: bit ``i`` is 1 iff total ``i`` is positive (a zero total gives 0)."""
    fp = 0
    for t in totals(features, feature_hash, f):
        fp = (fp << 1) | int(t > 0)
    return fp


def to_hex(fp: int, f: int = F) -> str:
    """The fingerprint as ``f/4`` hex digits (16 for 64 bits), zero-padded."""
    return format(fp, f"0{(f + 3) // 4}x")


def hamming(a: int, b: int) -> int:
    """Number of bit positions where two fingerprints differ."""
    return (a ^ b).bit_count()


def _swar_popcount(x: np.ndarray) -> np.ndarray:
    """Bits set in each ``uint64``, by the SWAR method (for numpy < 2)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


def _popcount(x: np.ndarray) -> np.ndarray:
    """Bits set in each ``uint64`` (``np.bitwise_count`` needs numpy 2)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(np.int64)
    return _swar_popcount(x)


def block_masks(blocks: int, f: int = F) -> list[int]:
    """Masks of ``blocks`` contiguous bit blocks of as equal size as possible, high bits first."""
    if not 1 <= blocks <= f:
        raise UsageError(f"blocks must be in 1..{f}, not {blocks}")
    masks, hi = [], f
    for i in range(blocks):
        size = f // blocks + (1 if i < f % blocks else 0)
        masks.append(((1 << size) - 1) << (hi - size))
        hi -= size
    return masks


def table_masks(k: int, blocks: int | None = None, f: int = F) -> list[int]:
    """One key mask per table: the union of each choice of ``blocks - k`` of the blocks."""
    blocks = k + 1 if blocks is None else blocks
    if k < 0 or blocks <= k:
        raise UsageError(f"need 0 <= k < blocks, not k={k}, blocks={blocks}")
    bm = block_masks(blocks, f)
    out = []
    for chosen in combinations(bm, blocks - k):
        m = 0
        for c in chosen:
            m |= c
        out.append(m)
    return out


def near_duplicates(
    fps: Mapping[Any, int], k: int = 3, blocks: int | None = None
) -> list[tuple[Any, Any, int]]:
    """Every pair of fingerprints within Hamming distance ``k``: sorted ``(lo_id, hi_id, dist)``.

    Permuted tables (Manku, Jain and Das Sarma 2007, §3), in this variant: split the 64 bits
    into ``blocks`` blocks (default ``k + 1``). Two fingerprints that differ in at most ``k``
    bits differ in at most ``k`` blocks, so they agree exactly on at least ``blocks - k``
    blocks. One table per choice of ``blocks - k`` blocks, keyed by those bits, therefore puts
    every such pair in a common bucket; candidates are then checked by their true distance.
    The paper sorts fingerprints under bit permutations that bring the key bits to the top;
    sorting by the masked value is the same grouping. More blocks give longer keys and fewer
    false candidates at the price of more tables: for ``k = 3``, 4 blocks give 4 tables keyed
    on 16 bits, 6 blocks give 20 tables keyed on about 32 bits (suited to billions of pages).

    Ids must be mutually orderable; fingerprints are 64-bit non-negative ints.
    """
    ids = list(fps)
    n = len(ids)
    if n < 2:
        return []
    values = [fps[i] for i in ids]
    if any(not 0 <= v < (1 << F) for v in values):
        raise UsageError("fingerprints must be 64-bit non-negative integers")
    arr = np.array(values, dtype=np.uint64)
    found: list[np.ndarray] = []
    for mask in table_masks(k, blocks):
        keys = arr & np.uint64(mask)
        order = np.argsort(keys, kind="stable")
        sk = keys[order]
        # Within a run of equal keys, pair each position with every later one: offset d pairs
        # order[t] and order[t + d] while they still share the key.
        d = 1
        while d < n:
            same = np.flatnonzero(sk[:-d] == sk[d:])
            if same.size == 0:
                break
            i, j = order[same], order[same + d]
            lo, hi = np.minimum(i, j), np.maximum(i, j)
            found.append(lo.astype(np.int64) * n + hi)
            d += 1
    if not found:
        return []
    codes = np.unique(np.concatenate(found))
    lo, hi = codes // n, codes % n
    dist = _popcount(arr[lo] ^ arr[hi])
    keep = dist <= k
    out = []
    for a, b, dd in zip(lo[keep].tolist(), hi[keep].tolist(), dist[keep].tolist(), strict=True):
        x, y = ids[a], ids[b]
        out.append((x, y, dd) if x < y else (y, x, dd))
    return sorted(out)
