"""Provenance as reports show it: a document's path, copies, extraction, batch, sources (the
``--source`` labels of its sightings) and EDGAR submission and part, read with a few set queries
(no text)."""

from __future__ import annotations

from typing import Any

from auditor.store.db import Store

_EDGAR_PART = ("type", "sequence", "filename", "description")


def describe_many(store: Store, ids: list[int] | set[int]) -> dict[int, dict[str, Any]]:
    """Provenance of documents as reports show it, read with a few set queries (no text)."""
    import json

    from auditor.extract.edgar import submission_fields

    ids = sorted(set(ids))
    if not ids:
        return {}
    batches = dict(store.conn.execute("SELECT id, name FROM batches").fetchall())
    docs = store.select_in("SELECT id, path, sha256, format, extractor, extractor_version, encoding,"
                              " size, n_words, n_pages, batch_id, parent_id, meta FROM documents"
                              " WHERE id IN ({})", ids)
    parents = {int(r[11]) for r in docs if r[11]}
    parent_rows = {r[0]: r for r in store.select_in("SELECT id, path, meta FROM documents WHERE id IN ({})", list(parents))} if parents else {}
    seen: dict[int, list[str]] = {}
    resolved: dict[int, str] = {}
    sources: dict[int, set[str]] = {}
    for doc_id, path, part, where, source in store.select_in(
            "SELECT doc_id, path, part, resolved, source FROM sightings WHERE doc_id IN ({}) ORDER BY doc_id, id", ids):
        seen.setdefault(int(doc_id), []).append(path + (f"#{part}" if part else ""))
        if where != path:  # the file behind a relative path: what report links point to
            resolved.setdefault(int(doc_id), where)
        if source:
            sources.setdefault(int(doc_id), set()).add(source)
    out: dict[int, dict[str, Any]] = {}
    for (doc_id, path, sha, fmt, extractor, ext_version, encoding, size, n_words, n_pages, batch_id,
         parent_id, meta) in docs:
        d: dict[str, Any] = {
            "doc_id": doc_id, "path": path, "sha256": sha, "format": fmt,
            "extractor": f"{extractor} {ext_version}", "encoding": encoding, "size": size,
            "n_words": n_words, "n_pages": n_pages, "batch": batches.get(batch_id),
            "sources": sorted(sources.get(int(doc_id), ())),
            "also_seen_at": seen.get(int(doc_id), [])[1:],
        }
        if int(doc_id) in resolved:
            d["resolved"] = resolved[int(doc_id)]
        if parent_id:
            _, ppath, pmeta = parent_rows[parent_id]
            pm, m = json.loads(pmeta), json.loads(meta)
            d["edgar"] = {"submission": submission_fields(pm),
                          "submission_path": ppath, "part": {k: m.get(k) for k in _EDGAR_PART}}
        out[int(doc_id)] = d
    return out


def describe(store: Store, doc_id: int) -> dict[str, Any]:
    """Provenance of a document as reports show it (first sighting, EDGAR submission and part)."""
    d = describe_many(store, [doc_id]).get(doc_id)
    if d is None:
        store.document(doc_id)  # raises NoDocument
    assert d is not None
    return d
