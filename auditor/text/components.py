"""Connected components of a graph given as arrays of edges: the one place the auditor groups
documents that are linked (families of mutual containment, containers that contain one another,
duplicate groups in a plan). scipy's sparse-graph algorithms do it in C; a union-find in Python
took seconds per million edges. scipy is imported on first use (0.2-0.3 CPU-s that many commands
skip); a graph of a few edges (a gate's, its controls') is labelled without it, the same way.
"""

from __future__ import annotations

import numpy as np


def components(n: int, src: np.ndarray, dst: np.ndarray, *, strong: bool = False) -> tuple[int, np.ndarray]:
    """(number of components, component label of each of the ``n`` nodes) of the graph with an
    edge ``src[i] -> dst[i]`` for each ``i``: weakly connected (direction ignored), or strongly
    connected with ``strong``. Labels are numbered as scipy numbers them (by lowest node)."""
    src = np.asarray(src, np.int64)
    dst = np.asarray(dst, np.int64)
    if not strong and len(src) <= SMALL and n <= 50 * SMALL:
        return _small(n, src.tolist(), dst.tolist())
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    graph = coo_array((np.ones(len(src), np.int8), (src, dst)), shape=(n, n))
    k, label = connected_components(graph, directed=True, connection="strong" if strong else "weak")
    return int(k), label


SMALL = 2_000  # edges labelled in Python: about a millisecond, against importing scipy


def _small(n: int, src: list[int], dst: list[int]) -> tuple[int, np.ndarray]:
    """Weak components of a small graph, labelled as scipy labels them (in order of each
    component's lowest node)."""
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(src, dst, strict=True):
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    label = np.empty(n, np.int32)
    names: dict[int, int] = {}
    for x in range(n):
        label[x] = names.setdefault(root(x), len(names))
    return len(names), label
