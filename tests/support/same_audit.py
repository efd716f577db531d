"""Two audits of one corpus compared field by field (the Spark engine's against the SQLite one's)."""

from __future__ import annotations

from auditor.engine.audit import BEST_CONTAINERS, AuditResult
from auditor.engine.spark_finish import OTHERS_KEPT


def _pairs(r: AuditResult) -> list[tuple]:
    c = r.containing
    return list(zip(c.contained.tolist(), c.container.tolist(), c.hits.tolist(), c.sampled.tolist(),
                    c.shared.tolist(), c.shingles.tolist(), strict=True))


def _grouped(r: AuditResult) -> list[tuple]:
    """Each contained document: how many contain it and the first containers a report names
    (a Spark finish keeps those, not every one), with values, family, flag and best spans."""
    kept = BEST_CONTAINERS + OTHERS_KEPT
    return [(c.doc, c.n_containers, c.groups, c.containers[:kept].tolist(), c.values[:kept].tolist(), c.family,
             c.boilerplate,
             [(p.container, p.estimate, p.exact, [s.as_dict() for s in p.spans]) for p in c.best])
            for c in r.contained]


def assert_same(a: AuditResult, b: AuditResult) -> None:
    assert _pairs(a) == _pairs(b)
    assert _grouped(a) == _grouped(b)
    assert a.below == b.below
    assert [(p.contained, p.container, p.estimate, p.exact) for p in a.nearest_misses] == \
        [(p.contained, p.container, p.estimate, p.exact) for p in b.nearest_misses]
    assert [(f.members, f.pairs, f.low, f.high) for f in a.families] == \
        [(f.members, f.pairs, f.low, f.high) for f in b.families]
    assert a.not_auditable == b.not_auditable
    assert a.duplicate_groups == b.duplicate_groups
    assert (a.documents, a.candidates, a.threshold, a.params) == (b.documents, b.candidates, b.threshold, b.params)
    assert a.histogram == b.histogram and a.universe == b.universe
