"""What an audit covers: the documents, their duplicate groups and representatives, the ones
the index cannot speak for, and the digest that names the set in reports and exports."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from auditor.store.db import Store
from auditor.text.entry import unauditable_reason
from auditor.text.shingle import Params


@dataclass
class Universe:
    """The documents an audit covers, and which of them takes part for each duplicate group."""

    members: list[int]  # every covered document with text, duplicates included, sorted
    representative: dict[int, int]  # member -> the member that takes part for its group
    groups: list[list[int]]  # duplicate groups of two or more covered members

    @property
    def representatives(self) -> list[int]:
        return sorted(set(self.representative.values()))


def universe(store: Store, documents: list[int] | set[int] | None = None) -> Universe:
    """Every stored document with text that is not withdrawn, or exactly ``documents``.

    Documents with the same normalised text form a duplicate group, and its first (lowest id)
    covered member stands for it: a group keeps its representative as the store grows, and an
    old report's recorded documents give the same groups and representatives again, whatever
    was withdrawn or restored since.

    One audit asks for it several times (controls, audit, report, a gate's classification): it is
    computed again only once the store changed (a write of this connection or a commit of another).
    """
    if getattr(store, "memo", None) is None:  # a source that is not a store (an export read back)
        return _universe(store, documents)
    key = (store.conn.total_changes, store.conn.execute("PRAGMA data_version").fetchone()[0],
           None if documents is None else tuple(sorted(documents)))
    memo: dict[Any, Universe] = store.memo.setdefault("universes", {})
    if key not in memo:
        if len(memo) >= 4:
            memo.clear()
        memo[key] = _universe(store, documents)
    return memo[key]


def _universe(store: Store, documents: list[int] | set[int] | None) -> Universe:
    if documents is None:
        # grouped by SQLite (a sort on disk past its cache), so only ids reach Python: the
        # normalised digests of 10 M documents would take GBs as Python rows
        rows: Iterable[tuple[int, int]] = store.conn.execute(
            "SELECT id, min(id) OVER (PARTITION BY coalesce(norm_sha256, id)) FROM documents"
            " WHERE n_words > 0 AND withdrawn_at IS NULL ORDER BY id")
    else:
        wanted = sorted(set(documents))
        if len(wanted) > 1000:  # most of the store (a batch's covered documents): one scan, filtered
            chosen = set(wanted)
            found = [r for r in store.conn.execute(
                "SELECT d.id, coalesce(d.norm_sha256, d.id) FROM documents d WHERE d.n_words > 0 ORDER BY d.id")
                if r[0] in chosen]
        else:
            found = store.select_in("SELECT d.id, coalesce(d.norm_sha256, d.id) FROM documents d"
                                    " WHERE d.n_words > 0 AND d.id IN ({})", wanted)
        first: dict[Any, int] = {}
        rows = [(int(doc_id), first.setdefault(key, int(doc_id))) for doc_id, key in found]
    rep: dict[int, int] = {}
    grouped: dict[int, list[int]] = {}
    for doc_id, root in rows:
        d = int(doc_id)
        if root == d:
            rep[d] = d  # one int object for key and value: 10 M of them are most of this memory
        else:
            rep[d] = int(root)
            grouped.setdefault(rep[d], [rep[d]]).append(d)
    return Universe(sorted(rep), rep, sorted(grouped.values()))


def any_auditable(store: Store, ids: list[int]) -> bool:
    """Whether one of ``ids`` has a shingle (through the sampled index or exhaustively); looks
    until it finds one."""
    ordered = sorted(set(ids))
    for a in range(0, len(ordered), 900):
        part = ordered[a : a + 900]
        if store.conn.execute(f"SELECT 1 FROM index_docs WHERE n_shingles > 0 AND doc_id IN ({','.join('?' * len(part))})"
                              " LIMIT 1", part).fetchone():
            return True
    return False


def duplicate_groups(store: Store, within: Universe | None = None) -> list[list[int]]:
    return (within or universe(store)).groups


def not_auditable(store: Store, params: Params, within: Universe | None = None) -> list[dict[str, Any]]:
    """Documents with text that the sampled index cannot speak for, with the reason."""
    u = within or universe(store)
    cols = {r[1] for r in store.conn.execute("PRAGMA table_info(documents)")}
    unreadable = "d.unreadable" if "unreadable" in cols else "NULL"
    rows = store.select_in(f"SELECT d.id, d.n_words, coalesce(i.n_shingles, 0), {unreadable}"
               " FROM documents d LEFT JOIN index_docs i ON i.doc_id = d.id WHERE d.id IN ({})",
        u.representatives)
    out = []
    for doc_id, n_words, n_shingles, why in rows:
        reason = unauditable_reason(why, n_words, n_shingles, params.k)
        if reason is None:
            continue  # a short one is searched exhaustively
        out.append({"doc_id": doc_id, "reason": reason, "n_words": n_words, "n_shingles": n_shingles})
    return out


def universe_digest(store: Store, ids: list[int]) -> str:
    """sha256 over ``id<TAB>sha256`` of every covered document, by id; read 10,000 at a time."""
    h = hashlib.sha256()
    ordered = sorted(set(ids))
    for a in range(0, len(ordered), 10_000):
        for doc_id, sha in store.select_in("SELECT id, sha256 FROM documents WHERE id IN ({})",
                                           ordered[a : a + 10_000]):
            h.update(f"{int(doc_id)}\t{sha}\n".encode())
    return h.hexdigest()
