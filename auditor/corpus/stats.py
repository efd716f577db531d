"""What ``auditor stats`` says of a store: the store's counts, and what a user asks next. Which
sources (the ``--source`` labels given at ingest) the documents came from, how many documents
cannot be audited, and what to do about each kind of failure."""

from __future__ import annotations

from typing import Any

from auditor.errors import split_fix
from auditor.store.db import Store


def corpus_stats(store: Store) -> dict[str, Any]:
    """``Store.stats`` plus:

    * ``not_auditable``: documents in the corpus whose text an audit cannot read (unreadable, or
      words too few for a shingle);
    * ``by_source``: per ``--source`` label (None: none given), the documents seen with it, their
      sightings, the not auditable ones, and the inputs that failed or were skipped;
    * ``source`` in each ``by_batch`` row, and ``fix`` in each ``failures_by_code`` row (what to
      do, as the latest failure of that code recorded it).
    """
    s = store.stats()
    has_unreadable = "unreadable" in {r[1] for r in store.conn.execute("PRAGMA table_info(documents)")}
    unauditable = ("(d.withdrawn_at IS NULL AND d.n_words > 0 AND ("
                   + ("d.unreadable IS NOT NULL OR " if has_unreadable else "")
                   + "coalesce(i.n_shingles, 0) = 0))")
    s["not_auditable"] = store.scalar(
        f"SELECT count(*) FROM documents d LEFT JOIN index_docs i ON i.doc_id = d.id WHERE {unauditable}")
    sources = dict(store.conn.execute("SELECT name, source FROM batches").fetchall())
    s["by_batch"] = [{"name": r["name"], "source": sources.get(r["name"]),
                      **{k: v for k, v in r.items() if k != "name"}} for r in s["by_batch"]]
    by_source: dict[Any, dict[str, Any]] = {}

    def row(source: Any) -> dict[str, Any]:
        return by_source.setdefault(source, {"source": source, "documents": 0, "sightings": 0,
                                             "not_auditable": 0, "failed": 0, "skipped": 0})

    for source, documents, sightings, bad in store.conn.execute(
            "SELECT s.source, count(DISTINCT s.doc_id), count(*),"
            f" count(DISTINCT CASE WHEN {unauditable} THEN d.id END)"
            " FROM sightings s JOIN documents d ON d.id = s.doc_id LEFT JOIN index_docs i ON i.doc_id = d.id"
            " GROUP BY s.source"):
        row(source).update(documents=documents, sightings=sightings, not_auditable=bad)
    for source, status, n in store.conn.execute("SELECT source, status, count(*) FROM failures GROUP BY source, status"):
        row(source)[status] = n
    s["by_source"] = sorted(by_source.values(), key=lambda r: (r["source"] is None, r["source"] or ""))
    latest = {(st, code): message for st, code, message in store.conn.execute(
        "SELECT status, code, message FROM failures WHERE id IN (SELECT max(id) FROM failures GROUP BY status, code)")}
    s["failures_by_code"] = [{**r, "fix": split_fix(latest.get((r["status"], r["code"]), ""))[1]}
                             for r in s["failures_by_code"]]
    return s
