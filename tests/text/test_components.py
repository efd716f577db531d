"""Connected components: the small graphs labelled without scipy get scipy's answer, labels included."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.text import components as comp


def _scipy(n, src, dst):
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    graph = coo_array((np.ones(len(src), np.int8), (np.asarray(src, np.int64), np.asarray(dst, np.int64))),
                      shape=(n, n))
    k, label = connected_components(graph, directed=True, connection="weak")
    return int(k), label


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 40))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60))
    return n, [a for a, _ in edges], [b for _, b in edges]


@settings(max_examples=200, deadline=None)
@given(graphs())
def test_small_graphs_are_labelled_as_scipy_labels_them(g):
    n, src, dst = g
    k, label = comp.components(n, np.array(src, np.int64), np.array(dst, np.int64))
    k_ref, label_ref = _scipy(n, src, dst)
    assert k == k_ref and label.tolist() == label_ref.tolist()


def test_a_large_graph_goes_to_scipy_and_a_chain_is_one_component():
    n = comp.SMALL + 10
    src = np.arange(n - 1, dtype=np.int64)
    k, label = comp.components(n, src, src + 1)
    assert k == 1 and set(label.tolist()) == {0}
    k, label = comp.components(n, src[:5], src[:5] + 1)  # few edges: six nodes joined, the rest alone
    assert k == n - 5 and label[:6].tolist() == [0] * 6 and label[6:].tolist() == list(range(1, n - 5))
