"""Connected components of a graph given as arrays of edges: the one place the auditor groups
documents that are linked (families of mutual containment, containers that contain one another,
duplicate groups in a plan). scipy's sparse-graph algorithms do it in C; a union-find in Python
took seconds per million edges. scipy is imported on first use (0.2 s that many commands skip).
"""

from __future__ import annotations

import numpy as np


def components(n: int, src: np.ndarray, dst: np.ndarray, *, strong: bool = False) -> tuple[int, np.ndarray]:
    """(number of components, component label of each of the ``n`` nodes) of the graph with an
    edge ``src[i] -> dst[i]`` for each ``i``: weakly connected (direction ignored), or strongly
    connected with ``strong``. Labels are numbered as scipy numbers them (by lowest node)."""
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    src = np.asarray(src, np.int64)
    dst = np.asarray(dst, np.int64)
    graph = coo_array((np.ones(len(src), np.int8), (src, dst)), shape=(n, n))
    k, label = connected_components(graph, directed=True, connection="strong" if strong else "weak")
    return int(k), label
