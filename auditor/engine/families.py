"""Families: documents that contain one another (both directions at the threshold), as the
connected components of their mutual pairs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from auditor.engine.pairs import Family, Pairs
from auditor.text.components import components


def _pair_keys(a: np.ndarray, b: np.ndarray, base: int) -> np.ndarray:
    return a.astype(np.int64) * base + b.astype(np.int64)


def mutual_mask(containing: Pairs) -> np.ndarray:
    """Pairs whose reverse is containing too."""
    if not len(containing):
        return np.zeros(0, bool)
    base = int(max(containing.contained.max(), containing.container.max())) + 1
    keys = np.sort(_pair_keys(containing.contained, containing.container, base))
    rev = _pair_keys(containing.container, containing.contained, base)
    pos = np.minimum(np.searchsorted(keys, rev), len(keys) - 1)
    return keys[pos] == rev


def families_of(containing: Pairs, mutual: np.ndarray) -> list[Family]:
    """Connected components of mutual containment, in order of their smallest member.

    Array work throughout (scipy's components, counts by family): a family of 1,866
    near-identical certifications has 3.5 M mutual pairs.
    """
    if not mutual.any():
        return []
    a, b = containing.contained[mutual], containing.container[mutual]
    nodes = np.unique(a)  # the reverse of a mutual pair is mutual too: every member is an ``a``
    ai, bi = np.searchsorted(nodes, a), np.searchsorted(nodes, b)
    k, label = components(len(nodes), ai, bi)
    first = np.full(k, len(nodes), np.int64)
    np.minimum.at(first, label, np.arange(len(nodes)))
    rank = np.empty(k, np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(k)
    fam = rank[label]
    order = np.argsort(fam, kind="stable")  # members ascending within a family (nodes are sorted)
    bounds = np.searchsorted(fam[order], np.arange(k + 1))
    of_pair = fam[ai]
    exact = containing.exact[mutual]
    pairs = np.bincount(of_pair, minlength=k)
    low, high = np.ones(k), np.zeros(k)
    np.minimum.at(low, of_pair, exact)
    np.maximum.at(high, of_pair, exact)
    members = nodes[order].tolist()
    return [Family(members[bounds[f]:bounds[f + 1]], int(pairs[f]), float(low[f]), float(high[f]))
            for f in range(k)]


def pairs_inside(containing: Pairs, families: list[Family]) -> int:
    """How many containing pairs have both documents in one family: pairs a report counts but
    does not list as findings (a family's members contain one another). The pairs are read a
    slice at a time (``Pairs.slices``): a Spark audit's are on disk, millions of them."""
    if not len(containing) or not families:
        return 0
    family = family_of(families)
    n = 0
    for part in containing.slices():
        fa, fb = family(part.contained), family(part.container)
        n += int(((fa == fb) & (fa >= 0)).sum())
    return n


def family_of(families: list[Family]) -> Callable[[np.ndarray], np.ndarray]:
    """A function from document ids to the index of their family in ``families``, -1 for a
    document in none; sized by the families' members, not by the largest document id."""
    pairs = sorted((m, i) for i, f in enumerate(families) for m in f.members)
    members = np.array([m for m, _ in pairs], np.int64)
    index = np.array([i for _, i in pairs], np.int64)

    def lookup(ids: np.ndarray) -> np.ndarray:
        if not len(members):
            return np.full(len(ids), -1, np.int64)
        at = np.minimum(np.searchsorted(members, ids), len(members) - 1)
        return np.where(members[at] == ids, index[at], -1)

    return lookup
