"""Connected components on Spark (large-star / small-star) give scipy's components.

The families of a Spark audit come from ``spark_finish.components``; the SQLite engine's from
``auditor.text.components`` (scipy). Random graphs, chains (the longest diameter) and stars
are compared as partitions of the nodes.
"""

from __future__ import annotations

import pytest

from auditor.extras import spark_missing

_why = spark_missing()
if _why:
    pytest.skip(f"Spark engine tests skipped: {_why}", allow_module_level=True)

import numpy as np  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from auditor.engine.spark_engine import session  # noqa: E402
from auditor.engine.spark_finish import components  # noqa: E402
from auditor.text.components import components as scipy_components  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def spark():
    s = session("local[2]", config={"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "3",
                                    "spark.driver.memory": "1g"})
    yield s
    s.stop()


def _spark_partition(spark, edges: list[tuple[int, int]]) -> dict[int, int]:
    df = spark.createDataFrame(edges or [], "src long, dst long")
    return {int(r["node"]): int(r["label"]) for r in components(df).collect()}


def _scipy_partition(edges: list[tuple[int, int]]) -> dict[int, int]:
    """Each node of an edge -> the smallest node of its component, by scipy."""
    nodes = np.unique(np.array(edges, np.int64).ravel()) if edges else np.empty(0, np.int64)
    src = np.searchsorted(nodes, [a for a, _ in edges])
    dst = np.searchsorted(nodes, [b for _, b in edges])
    _, label = scipy_components(len(nodes), src, dst)
    smallest: dict[int, int] = {}
    for n, lab in zip(nodes.tolist(), label.tolist(), strict=True):
        smallest.setdefault(lab, n)
    return {n: smallest[lab] for n, lab in zip(nodes.tolist(), label.tolist(), strict=True)}


graphs = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), max_size=80)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edges=graphs)
def test_random_graphs_match_scipy(spark, edges):
    edges = [(a, b) for a, b in edges if a != b]  # a document does not contain itself
    assert _spark_partition(spark, edges) == _scipy_partition(edges)


def test_a_long_chain_and_a_star_and_ids_far_apart(spark):
    chain = [(i, i + 1) for i in range(0, 200)]  # diameter 200: min-label propagation would take 200 rounds
    star = [(10_000, 10_000 + i) for i in range(1, 50)]
    far = [(2**40, 3), (2**40, 2**41)]  # large ids are kept, never renumbered
    edges = chain + star + far
    got = _spark_partition(spark, edges)
    assert got == _scipy_partition(edges)
    assert got[200] == 0 and got[10_049] == 10_000 and got[2**41] == 0  # the far one joins the chain via 3


def test_two_components_stay_two(spark):
    got = _spark_partition(spark, [(1, 2), (3, 4)])
    assert got == {1: 1, 2: 1, 3: 3, 4: 3}
