"""Resolution of a containment graph into keep and drop decisions. Pure: no I/O, so it is
tested on graphs alone. The package docstring says the order in which documents are decided.
"""

from __future__ import annotations

import graphlib
import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from auditor.text.components import components
from auditor.text.shingle import distinct

if TYPE_CHECKING:
    pass

from auditor.assembly.policy import REDUNDANT


@dataclass(frozen=True, slots=True)
class Decision:
    """One document's decision. ``target``: the kept document in its place (redundancy drops);
    ``measured``: the (contained unit, container unit) finding behind the decision, if any;
    ``containers``: how many units the run measured to contain its unit; ``older``: for a
    ``newer`` keep, the kept (older) document that contains it."""

    keep: bool
    reason: str
    target: int | None = None
    measured: tuple[int, int] | None = None
    containers: int = 0
    older: int | None = None


def _components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected component (its smallest position) of each of ``n`` positions, edges a-b."""
    k, label = components(n, a, b)
    smallest = np.full(k, n, np.int64)
    np.minimum.at(smallest, label, np.arange(n, dtype=np.int64))
    return smallest[label]


def _sccs(nodes: Sequence[int], succ: Mapping[int, Sequence[int]]) -> list[list[int]]:
    """Strongly connected components (scipy's, ``auditor.text.components``), each sorted and listed
    after every component it reaches (``graphlib`` orders the components): with edges from
    contained to container, containers come first. Among components that do not reach one
    another the order is graphlib's; ``resolve`` decides each from what it reaches, so any
    such order gives the same decisions."""
    nodes = sorted(nodes)
    at = {v: i for i, v in enumerate(nodes)}
    edges = [(at[v], at[w]) for v in nodes for w in succ.get(v, ())]
    src = np.array([e[0] for e in edges], np.int64)
    dst = np.array([e[1] for e in edges], np.int64)
    k, label = components(len(nodes), src, dst, strong=True)
    members: list[list[int]] = [[] for _ in range(k)]
    for v, c in zip(nodes, label.tolist(), strict=True):
        members[c].append(v)
    reaches: dict[int, set[int]] = {c: set() for c in range(k)}
    for c, d in zip(label[src].tolist(), label[dst].tolist(), strict=True):
        if c != d:
            reaches[c].add(d)
    return [members[c] for c in graphlib.TopologicalSorter(reaches).static_order()]


def resolve(
    units: Mapping[int, Sequence[int]],
    edges: tuple[Sequence[int] | np.ndarray, Sequence[int] | np.ndarray, Sequence[float] | np.ndarray],
    rank: Mapping[int, Any],
    exempt: Mapping[int, str] | None = None,
    newer: Callable[[int, int], bool] | None = None,
) -> dict[int, Decision]:
    """Keep or drop every member of ``units`` (see the module docstring); pure and deterministic.

    :param units: unit id -> its member documents (exact duplicates of one another); every
        document in exactly one unit.
    :param edges: (contained unit, container unit, containment): the measured containing pairs,
        over unit ids. A pair naming a unit and itself is ignored; a container not in ``units``
        (withdrawn) is counted in ``Decision.containers`` and is never a target.
    :param rank: document -> sort key of the survivor policy (lower is preferred).
    :param exempt: document -> the keep reason for which it is not dropped as ``contained-in``
        (boilerplate, exhibit, contained-kept); it may still be a duplicate or near-duplicate.
    :param newer: ``newer(d, k)``: whether document ``d`` is strictly newer than ``k`` (the
        survivor policy ``newest``). Then no document is dropped in favour of an older one (one
        held only by older kept documents is kept, ``newer``), and the members of a family are
        decided strictly in ``rank`` order, the newest first, even where an older member
        contains a newer one.
    """
    exempt = exempt or {}
    ids = sorted(u for u, m in units.items() if m)
    members = {u: sorted(units[u], key=lambda d: (rank[d], d)) for u in ids}
    urank = {u: (rank[members[u][0]], members[u][0]) for u in ids}

    a = np.asarray(edges[0], dtype=np.int64)
    b = np.asarray(edges[1], dtype=np.int64)
    x = np.asarray(edges[2], dtype=np.float64)
    known = np.array(ids, dtype=np.int64)
    n_containers: dict[int, int] = {}  # containers per unit, counting those not in ``units`` (withdrawn)
    from_known = np.isin(a, known) & (a != b)
    if from_known.any():
        ua, ub = a[from_known], b[from_known]
        base = int(max(ua.max(), ub.max())) + 1
        keys = distinct(ua * base + ub)  # (contained, container) pairs, sorted by contained
        owner = keys // base
        edges_at = np.concatenate(([0], np.flatnonzero(owner[1:] != owner[:-1]) + 1, [len(owner)]))
        n_containers = dict(zip(owner[edges_at[:-1]].tolist(), np.diff(edges_at).tolist(), strict=True))
    ok = from_known & np.isin(b, known)
    a, b, x = a[ok], b[ok], x[ok]
    pa = np.searchsorted(known, a)
    pb = np.searchsorted(known, b)
    n = len(ids)
    key = pa * max(n, 1) + pb
    order = np.lexsort((-x, key))  # one edge per pair: the highest containment
    key, pa, pb, x = key[order], pa[order], pb[order], x[order]
    first = np.concatenate(([True], key[1:] != key[:-1])) if len(key) else np.zeros(0, bool)
    key, pa, pb, x = key[first], pa[first], pb[first], x[first]
    rev = pb * max(n, 1) + pa
    at = np.minimum(np.searchsorted(key, rev), max(len(key) - 1, 0))
    mutual = (key[at] == rev) if len(key) else np.zeros(0, bool)

    fam = _components(n, pa[mutual], pb[mutual])  # families: connected by mutual containment
    one_way = ~mutual
    fa, fb = fam[pa[one_way]], fam[pb[one_way]]
    cross = fa != fb
    fam_succ: dict[int, list[int]] = {}
    if cross.any():
        pairs = distinct(fa[cross] * max(n, 1) + fb[cross])
        for f, g in zip((pairs // max(n, 1)).tolist(), (pairs % max(n, 1)).tolist(), strict=True):
            fam_succ.setdefault(f, []).append(g)
    fam_members: dict[int, list[int]] = {}
    for p, f in enumerate(fam.tolist()):
        fam_members.setdefault(f, []).append(p)
    blocks = _sccs(sorted(fam_members), fam_succ)

    # containers of each unit (positions), and one-way containment inside blocks for ordering
    out_ptr = np.searchsorted(pa, np.arange(n + 1))  # edges are sorted by contained position
    out_b, out_x, out_m = pb.tolist(), x.tolist(), mutual.tolist()
    ptr = out_ptr.tolist()

    kept_doc: list[int | None] = [None] * n
    result: dict[int, Decision] = {}

    def decide(p: int) -> None:
        u = ids[p]
        both: list[tuple[float, int, int]] = []  # (-containment, kept doc, container position)
        held: list[tuple[float, int, int]] = []  # one way
        for i in range(ptr[p], ptr[p + 1]):
            q = out_b[i]
            k = kept_doc[q]
            if k is not None:
                (both if out_m[i] else held).append((-out_x[i], k, q))
        containers = n_containers.get(u, 0)
        for d in members[u]:
            if newer is None:
                best_m, best_c = min(both, default=None), min(held, default=None)
            else:  # never in favour of an older document
                best_m = min((c for c in both if not newer(d, c[1])), default=None)
                best_c = min((c for c in held if not newer(d, c[1])), default=None)
            if kept_doc[p] is not None:
                result[d] = Decision(False, "duplicate-of", kept_doc[p], None, containers)
            elif best_m is not None:
                result[d] = Decision(False, "near-duplicate-of", best_m[1], (u, ids[best_m[2]]), containers)
            elif best_c is not None and d not in exempt:
                result[d] = Decision(False, "contained-in", best_c[1], (u, ids[best_c[2]]), containers)
            else:
                older = None
                if held and d in exempt:
                    why, measured = exempt[d], (u, ids[min(held)[2]])
                elif held or both:  # held only by older kept documents
                    c = min(held or both)
                    why, measured, older = "newer", (u, ids[c[2]]), c[1]
                elif containers:
                    why, measured = "containers-dropped", None
                else:
                    why, measured = "not-contained", None
                result[d] = Decision(True, why, None, measured, containers, older)
                kept_doc[p] = d

    for block in blocks:
        nodes = sorted(p for f in block for p in fam_members[f])
        if len(nodes) == 1:
            decide(nodes[0])
            continue
        inside = set(nodes)
        waiting: dict[int, int] = {}
        contains: dict[int, list[int]] = {}
        for p in nodes:
            cs = {out_b[i] for i in range(ptr[p], ptr[p + 1])
                  if not out_m[i] and out_b[i] in inside} if newer is None else set()
            waiting[p] = len(cs)
            for q in cs:
                contains.setdefault(q, []).append(p)
        ready = [(urank[ids[p]], p) for p in nodes if not waiting[p]]
        heapq.heapify(ready)
        left = set(nodes)
        while left:
            if ready:
                _, p = heapq.heappop(ready)
                if p not in left:
                    continue
            else:  # a cycle of one-way containment: the preferred member goes first
                p = min(left, key=lambda q: urank[ids[q]])
            left.discard(p)
            decide(p)
            for w in contains.get(p, ()):
                waiting[w] -= 1
                if waiting[w] == 0 and w in left:
                    heapq.heappush(ready, (urank[ids[w]], w))
    for p, k in enumerate(kept_doc):  # kept before its copies were decided: name that
        if k is not None and result[k].reason == "containers-dropped" and result[k].containers == (
                ptr[p + 1] - ptr[p]) and all(result[d].target == k for i in range(ptr[p], ptr[p + 1])
                                            for d in members[ids[out_b[i]]]):
            result[k] = Decision(True, "survivor", None, None, result[k].containers)
    return result


def check_plan(decisions: Mapping[int, Decision]) -> list[str]:
    """Violations of the invariant: a redundancy drop that names no document, or a dropped or
    unknown one; any other drop that names a document."""
    problems = []
    for d, dec in sorted(decisions.items()):
        if not dec.keep and dec.reason in REDUNDANT:
            t = decisions.get(dec.target) if dec.target is not None else None
            if t is None or not t.keep:
                problems.append(f"{d}: {dec.reason} {dec.target}, which is "
                                + ("not in the plan" if t is None else f"dropped ({t.reason})"))
        elif dec.target is not None:
            problems.append(f"{d}: {'kept' if dec.keep else dec.reason} but names {dec.target}")
    return problems
