"""One stored document as ``auditor show`` presents it: provenance, withdrawal, and its findings;
or, for a file that was not stored, why (its failure, with the fix)."""

from __future__ import annotations

import json
from typing import Any

from auditor.errors import NoDocument, split_fix
from auditor.extract.edgar import iso_date
from auditor.store.db import Store
from auditor.text.entry import unauditable_reason

CANDIDATES_SHOWN = 10


def _by_suffix(store: Store, table: str, column: str, ref: str) -> list[tuple[Any, str, str]]:
    """(``column``, path, part) of the rows of ``table`` (sightings, failures) seen at a path that
    is ``ref`` or ends with ``/ref`` (``NAME#SEQUENCE`` for an EDGAR part), given or resolved."""
    tries = [(ref, "")] + ([tuple(ref.rsplit("#", 1))] if "#" in ref else [])
    found: list[tuple[Any, str, str]] = []
    for base, part in tries:
        found += store.conn.execute(
            f"SELECT DISTINCT {column}, path, part FROM {table} WHERE part = ? AND (path = ? OR resolved = ?"
            " OR substr(path, -?) = ? OR substr(resolved, -?) = ?) ORDER BY 1, path",
            (part, base, base, len(base) + 1, "/" + base, len(base) + 1, "/" + base)).fetchall()
    return sorted(set(found))


def find_document(store: Store, ref: str) -> int:
    """A document id from an id, a sha256 prefix or a path (``Store.resolve``), or else from a
    unique file name or end of a path (``ca1_00117684624.pdf``, ``2024/ca1_00117684624.pdf``).

    Raises NoDocument: for a name that several documents were seen at, listing them; for one
    no document was seen at, :class:`NotStored` when inputs there failed or were skipped.
    """
    try:
        return store.resolve(ref)
    except NoDocument as e:
        exact = e
    name = ref.strip()
    found = _by_suffix(store, "sightings", "doc_id", name) if name and "/" not in name[-1:] else []
    ids = sorted({int(d) for d, _, _ in found})
    if len(ids) == 1:
        return ids[0]
    if ids:
        shown = "; ".join(f"document {d} {path}" + (f"#{part}" if part else "")
                          for d, path, part in found[:CANDIDATES_SHOWN])
        more = f" and {len(found) - CANDIDATES_SHOWN} more" if len(found) > CANDIDATES_SHOWN else ""
        raise NoDocument(f"{ref!r} names {len(ids)} stored documents: {shown}{more}; give an id or a longer path")
    failed = failures_at(store, name) if name else []
    if failed:
        raise NotStored(ref, failed)
    raise exact


class NotStored(NoDocument):
    """A file that was not stored: every input seen at that place failed or was skipped."""

    def __init__(self, ref: str, failures: list[dict[str, Any]]) -> None:
        self.ref, self.failures = ref, failures
        super().__init__("; ".join(failure_line(f) for f in failures))


def failures_at(store: Store, ref: str) -> list[dict[str, Any]]:
    """What the store recorded of every input at ``ref`` (a path, a file name or the end of a
    path) that failed or was skipped: path, part, status, code, the reason, its fix, batch, source."""
    ids = sorted({int(i) for i, _, _ in _by_suffix(store, "failures", "id", ref)})
    if not ids:
        return []
    out = []
    for r in store.rows(
            "SELECT f.path, f.part, f.status, f.code, f.message, f.sha256, f.size, f.source, f.seen_at,"
            f" b.name AS batch FROM failures f JOIN batches b ON b.id = f.batch_id WHERE f.id IN ({','.join('?' * len(ids))})"
            " ORDER BY f.path, f.part, f.id", tuple(ids)):
        r["reason"], r["fix"] = split_fix(r.pop("message") or "")
        out.append(r)
    return out


def failure_line(f: dict[str, Any]) -> str:
    """One failed input in a sentence: where, what happened (its code), and what to do."""
    where = f["path"] + (f"#{f['part']}" if f["part"] else "")
    what = "was skipped" if f["status"] == "skipped" else "failed to ingest"
    return (f"{where} {what} ({f['code']}): {f['reason']}" + (f"; fix: {f['fix']}" if f["fix"] else "")
            + f" (batch {f['batch']}" + (f", source {f['source']}" if f["source"] else "") + f", {f['seen_at']})")


def latest_findings(store: Store, doc_id: int) -> dict[str, Any] | None:
    """The findings involving ``doc_id`` in the latest audit or gate run that has any.

    ``{"run_id", "kind", "started", "findings": [{"contained", "container", "containment"}]}``,
    or None when no stored run reported this document.
    """
    row = store.conn.execute(
        "SELECT r.id, r.run_id, r.kind, r.started FROM runs r WHERE EXISTS (SELECT 1 FROM findings f"
        " WHERE f.run = r.id AND (f.contained_id = ? OR f.container_id = ?)) ORDER BY r.id DESC LIMIT 1",
        (doc_id, doc_id)).fetchone()
    if row is None:
        return None
    findings = [{"contained": a, "container": b, "containment": c} for a, b, c in store.conn.execute(
        "SELECT contained_id, container_id, containment FROM findings WHERE run = ?"
        " AND (contained_id = ? OR container_id = ?) ORDER BY contained_id, container_id",
        (row[0], doc_id, doc_id))]
    return {"run_id": row[1], "kind": row[2], "started": row[3], "findings": findings}


def document_view(store: Store, doc_id: int, *, with_text: bool = False) -> dict[str, Any]:
    """``Store.provenance`` plus the latest findings and the paths of the documents they name."""
    p = store.provenance(doc_id)
    latest = latest_findings(store, doc_id)
    if latest is not None:
        for f in latest["findings"]:
            other = f["container"] if f["contained"] == doc_id else f["contained"]
            f["other_path"] = store.scalar("SELECT path FROM documents WHERE id = ?", (other,))
    p["latest_findings"] = latest
    idx = p["index"]
    p["not_auditable"] = unauditable_reason(p.get("unreadable"), p["n_words"],
                                            idx["n_shingles"] if idx else 1, store.params.k)
    p["readings"] = store.readings(doc_id, with_text=with_text)
    if "dates" in p:  # a store that keeps dates (migration 0008)
        from auditor.store import dating

        p["dates"] = json.loads(p["dates"] or "[]")
        p["date_evidence"] = [d.as_dict() for d in dating.evidence(store.conn, [doc_id])[doc_id]]
        supplied = dict(store.conn.execute(
            "SELECT id, supplied_date || ' (' || coalesce(supplied_from, '') || ')' FROM sightings"
            " WHERE doc_id = ? AND supplied_date IS NOT NULL", (doc_id,)).fetchall())
        ids = [r[0] for r in store.conn.execute("SELECT id FROM sightings WHERE doc_id = ? ORDER BY id", (doc_id,))]
        for s, sid in zip(p["sightings"], ids, strict=True):
            s["supplied_date"] = supplied.get(sid)
    p["duplicates"] = [r[0] for r in store.conn.execute(
        "SELECT id FROM documents WHERE norm_sha256 = ? AND id != ? ORDER BY id", (p["norm_sha256"], doc_id)
    )] if p["norm_sha256"] else []
    if with_text:
        p["text"] = store.text(doc_id)
    return p


def _said(d: dict[str, str]) -> str:
    """Where a date comes from, for people."""
    kind, _, name = d["source"].partition(":")
    if kind == "supplied":
        return f"supplied in {name}"
    if kind == "text":
        return f"stated: {d['found']!r}"
    if kind == "mtime":
        return "file modified"
    if kind == "copied":
        return "file modified, less than a day before it was ingested: when it was copied"
    return f"{d['source']} {d['found']!r}"


def lines(p: dict[str, Any]) -> list[str]:
    """A human layout of ``document_view``: plain lines, one fact each."""
    out = [f"document {p['id']}: {p['path']}"]
    if p["withdrawn_at"]:
        out.append(f"  WITHDRAWN {p['withdrawn_at']} by {p['withdrawn_by']}: {p['withdrawn_reason']}")
    else:
        out.append("  in the corpus (not withdrawn)")
    out.append(f"  sha256 {p['sha256']}, {p['size']} bytes")
    extracted = f"  format {p['format']}, extractor {p['extractor']} {p['extractor_version']}"
    if p["encoding"]:
        extracted += f", encoding {p['encoding']}"
    if p["n_pages"]:
        extracted += f", {p['n_pages']} pages"
    out.append(extracted + f"; {p['n_chars']} characters, {p['n_words']} words")
    idx = p["index"]
    out.append(f"  index: {idx['n_shingles']} shingles, {idx['n_sampled']} sampled" if idx
               else "  index: not indexed (no words)" if not p["n_words"] else "  index: not indexed yet")
    if p["duplicate_of"]:
        out.append(f"  exact duplicate of document {p['duplicate_of']} (same normalised text), which stands for it")
    elif p["duplicates"]:
        out.append(f"  same normalised text as documents {', '.join(map(str, p['duplicates']))}")
    parent = p.get("parent")
    if parent and (parent["meta"].get("email") is not None or p["meta"].get("message") is not None):
        m, e = p["meta"], parent["meta"].get("email") or {}
        out.append(f"  attachment {m.get('sequence')} {m.get('filename') or ''} ({m.get('type')})".replace("  (", " ("))
        out.append(f"    of message {parent['id']} {parent['path']}: {e.get('subject')!r} from {e.get('from')}, "
                   f"sent {e.get('date')}")
    elif parent:
        m, pm = p["meta"], parent["meta"]
        out.append(f"  EDGAR part {m.get('sequence')} {m.get('type')} {m.get('filename') or ''}"
                   f"{' (' + m['description'] + ')' if m.get('description') else ''}".rstrip())
        out.append(f"    of submission {parent['id']} {parent['path']}: {pm.get('accession_number')} "
                   f"{pm.get('form_type')} filed {iso_date(pm.get('filing_date'))} by {pm.get('company_name')} "
                   f"(CIK {pm.get('cik')})")
    elif p["meta"].get("email"):
        e = p["meta"]["email"]
        out.append(f"  email from {e.get('from')} to {e.get('to')}, subject {e.get('subject')!r}, sent {e.get('date')}")
    elif p["meta"].get("accession_number"):
        m = p["meta"]
        out.append(f"  EDGAR submission {m.get('accession_number')} {m.get('form_type')} filed "
                   f"{iso_date(m.get('filing_date'))} by {m.get('company_name')} (CIK {m.get('cik')})")
    if p.get("not_auditable"):
        out.append(f"  NOT AUDITABLE: {p['not_auditable']}")
    if p.get("date_evidence") is not None:
        ev = p["date_evidence"]
        out.append(f"  date {ev[0]['date']} ({_said(ev[0])})" if ev else "  date: none known")
        for d in ev[1:]:
            out.append(f"    also {d['date']} ({_said(d)})")
    for w in p["warnings"]:
        out.append(f"  warning: {w}")
    for r in p["readings"]:
        out.append(f"  other reading {r['name']}: {r['n_words']} words, {r['n_shingles']} shingles ({r['why']})")
    out.append(f"sightings ({len(p['sightings'])}):")
    for s in p["sightings"]:
        where = s["path"] + (f"#{s['part']}" if s["part"] else "")
        line = f"  {where}: batch {s['batch']}"
        if s["source"]:
            line += f", source {s['source']}"
        line += f", seen {s['seen_at']}"
        if s["mtime"]:
            line += f", modified {s['mtime']}"
        filing = (s["meta"] or {}).get("submission")
        if filing:
            line += (f", in {filing.get('accession_number')} {filing.get('form_type')} filed "
                     f"{iso_date(filing.get('filing_date'))}")
        if s.get("supplied_date"):
            line += f", dated {s['supplied_date']}"
        if s.get("gone_at"):
            line += f"; GONE since {s['gone_at']}"
        out.append(line)
    latest = p["latest_findings"]
    if latest is None:
        out.append("findings: none in any stored audit run")
    else:
        out.append(f"findings in run {latest['run_id']} ({latest['kind']}, {latest['started']}):")
        for f in latest["findings"]:
            c = f"{f['containment']:.4f}" if f["containment"] is not None else "?"
            if f["contained"] == p["id"]:
                out.append(f"  contained in document {f['container']} {f['other_path']}: {c}")
            else:
                out.append(f"  contains document {f['contained']} {f['other_path']}: {c}")
    for w in p["withdrawals"]:
        out.append(f"history: {w['action']} {w['at']} by {w['by']} ({w['command']}): {w['reason']}")
    return out
