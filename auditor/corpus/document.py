"""One stored document as ``auditor show`` presents it: provenance, withdrawal, and its findings."""

from __future__ import annotations

import json
from typing import Any

from auditor.extract.edgar import iso_date
from auditor.store.db import Store


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


def _page_lines(meta: dict[str, Any]) -> list[str]:
    """OCR, unread pages and redactions of a PDF, as recorded with its text."""
    out = []
    ocr = meta.get("ocr")
    if isinstance(ocr, dict):
        pages = ocr.get("pages") or []
        used = [x["page"] for x in pages if x.get("used") == "ocr"]
        out.append(f"  OCR: {ocr.get('engine')} {ocr.get('version')} ({ocr.get('binding')}), language "
                   f"{ocr.get('language')}, data {ocr.get('data')}, rendered by {ocr.get('renderer')} at "
                   f"{ocr.get('dpi')} dpi, --ocr {ocr.get('mode')}")
        for x in pages:
            out.append(f"    page {x['page']}: {x.get('why')}, confidence {x.get('confidence')}, {x.get('words')} "
                       f"words, {'text from OCR' if x.get('used') == 'ocr' else 'text layer kept' if x.get('used') == 'layer' else 'not read'}")
        if not used:
            out.append("    (no page's text comes from OCR)")
    unread = meta.get("unread_pages")
    if unread:
        out.append(f"  PAGES NOT READ: {len(unread)} ({float(meta.get('unread_share', 0)):.0%} of the pages), "
                   "not audited:")
        out += [f"    {x.get('reason')}" for x in unread]
    for r in meta.get("redactions") or []:
        out.append(f"  REDACTION: page {r['page']}, box {r['box']}: {r['glyphs']} glyph(s) under it: {r['text'][:80]!r}")
    return out


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
    if parent:
        m, pm = p["meta"], parent["meta"]
        out.append(f"  EDGAR part {m.get('sequence')} {m.get('type')} {m.get('filename') or ''}"
                   f"{' (' + m['description'] + ')' if m.get('description') else ''}".rstrip())
        out.append(f"    of submission {parent['id']} {parent['path']}: {pm.get('accession_number')} "
                   f"{pm.get('form_type')} filed {iso_date(pm.get('filing_date'))} by {pm.get('company_name')} "
                   f"(CIK {pm.get('cik')})")
    elif p["meta"].get("accession_number"):
        m = p["meta"]
        out.append(f"  EDGAR submission {m.get('accession_number')} {m.get('form_type')} filed "
                   f"{iso_date(m.get('filing_date'))} by {m.get('company_name')} (CIK {m.get('cik')})")
    if p.get("unreadable"):
        out.append(f"  NOT AUDITABLE: {p['unreadable']}")
    out += _page_lines(p["meta"])
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
