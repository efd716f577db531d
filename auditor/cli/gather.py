"""``auditor gather``: what a document is made of, as a cover by stored documents."""

from __future__ import annotations

import json
import sys

import click

from auditor.cli.common import (
    check_threshold,
    db_option,
    memory_option,
    open_store,
    out,
    pdf_timeout_option,
    spans_line,
    timeout_option,
)
from auditor.console import markup


@click.command()
@db_option
@click.argument("refs", nargs=-1, required=True)
@click.option("--threshold", type=float, default=0.8, show_default=True, callback=check_threshold,
              help="Containment in the query from which a component counts as a part of it (parts are taken first).")
@pdf_timeout_option
@timeout_option
@memory_option
@click.option("--json", "as_json", is_flag=True,
              help="A list with one object per query: document, shingles, novel, components, and the counts behind them.")
def gather(db, refs, threshold, pdf_timeout, timeout, memory_mb, as_json):
    """What each REF is made of: the stored documents that explain its 5-word shingles, the most
    first, and the share found in no stored document (novel). The shares add up to 1.

    \b
    REF is a stored document (id, sha256 prefix, path or PATH#SEQUENCE; a stored EDGAR
    submission is answered part by part), or a file, read as `query` reads it (in a separate
    process with a memory and a time limit) and not stored. Components are taken greedily:
    documents the query contains at --threshold (an embedded contract) before those that only
    overlap it, then the one explaining the most shingles not yet explained, until none
    explains the floor (1% of the query and 25 shingles). A REF that names nothing, or a file
    that cannot be read into words, is reported with the reason and the exit code is 2."""
    from auditor.engine.describe import describe_many
    from auditor.engine.gather import gather as gather_refs
    from auditor.extract import Limits
    from auditor.index.builder import build_index

    limits = Limits(pdf_timeout=pdf_timeout, timeout=timeout, memory=memory_mb * 2**20)
    results = []
    with open_store(db) as store:
        build_index(store)
        answers = gather_refs(store, refs, threshold=threshold, limits=limits)
        named = {q.doc_id for q in answers if q.doc_id is not None}
        named |= {c.doc_id for q in answers if q.result for c in q.result.components}
        described = describe_many(store, named)
        for q in answers:
            document = dict(described[q.doc_id]) if q.doc_id is not None else {"path": q.name, "stored": False}
            document["ref"] = q.name
            entry = {"document": document, "error": {"code": q.error[0], "message": q.error[1]} if q.error else None,
                     "skipped": q.skipped, "warnings": q.warnings}
            if q.result is None:
                entry.update({"shingles": None, "novel": None, "components": []})
            else:
                entry.update(q.result.as_dict())
                for c in entry["components"]:
                    c["document"] = described[c["doc_id"]]
            results.append(entry)
    if as_json:
        click.echo(json.dumps(results, indent=2, sort_keys=True))
    else:
        _print(results)
    if any(r["error"] for r in results):
        sys.exit(2)


SPANS_PRINTED = 3  # a component scattered over the query (shared phrases) has hundreds; --json has all


def _where(spans: list[dict]) -> str:
    if not spans:
        return ""
    more = len(spans) - SPANS_PRINTED
    return f"; at {spans_line(spans[:SPANS_PRINTED])}" + (f" and {more} more spans" if more > 0 else "")


def _print(results: list[dict]) -> None:
    for r in results:
        doc = r["document"]
        what = f"doc {doc['doc_id']}" if "doc_id" in doc else "not stored"
        name = f"[bold]{markup(doc['ref'])}[/] ({what})"
        if r["error"]:
            out.print(f"{name}: [bold red]not read[/] ({markup(r['error']['code'])}): "
                      f"{markup(r['error']['message'])}", highlight=False, soft_wrap=True)
            continue
        if r["skipped"]:
            out.print(f"{name}: skipped ({markup(r['skipped'])}), as ingest skips it", highlight=False)
            continue
        for w in r["warnings"]:
            out.print(f"  warning: {markup(w)}", highlight=False, soft_wrap=True)
        if not r["shingles"]:
            out.print(f"{name}: {markup(r['note'])}", highlight=False, soft_wrap=True)
            continue
        out.print(f"{name}: {r['shingles']:,} shingles, {r['novel']:.2%} novel ({r['novel_shingles']:,} found in "
                  f"no component)" + (f"; {markup(r['note'])}" if r["note"] else ""), highlight=False, soft_wrap=True)
        for c in r["components"]:
            d = c["document"]
            part = (d.get("edgar") or {}).get("part") or {}
            kind = " ".join(str(x) for x in (part.get("type"), part.get("sequence")) if x)
            dups = f"; also stored as {', '.join(map(str, c['duplicates']))}" if c["duplicates"] else ""
            out.print(f"  {c['covered']:7.2%} {c['covered_shingles']:>8,}  doc {c['doc_id']} {markup(d['path'])}"
                      + (f" ({markup(kind)})" if kind else "")
                      + f"; {'part' if c['part'] else 'overlap'}, {c['containment']:.4f} of it in the query{dups}"
                      + _where(c["spans"]), highlight=False, soft_wrap=True)
        f = r["floor"]
        out.print(f"  floor: a component explains at least {f['applied']:,} shingles ({f['share']:.0%} of the "
                  f"query and {f['shingles']}, at most half of a short one); {r['candidates']} candidates, "
                  f"{r['measured']} measured exactly ({r['search']} search)", highlight=False, soft_wrap=True)
