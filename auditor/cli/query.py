"""Commands that compare without auditing the whole corpus: ``query`` (files against the store)
and ``compare`` (every measure for two stored documents).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.table import Table

from auditor.cli.common import (
    check_threshold,
    db_option,
    doc_line,
    memory_option,
    open_store,
    out,
    pdf_timeout_option,
    spans_line,
    timeout_option,
)
from auditor.console import clean, markup


@click.command()
@db_option
@click.argument("files", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path, allow_dash=True))
@click.option("--threshold", type=float, default=0.8, show_default=True, callback=check_threshold)
@pdf_timeout_option
@timeout_option
@memory_option
@click.option("--json", "as_json", is_flag=True)
def query(db, files, threshold, pdf_timeout, timeout, memory_mb, as_json):
    """Which stored documents contain FILE, and which FILE contains, without storing it:
    highest containment first, with where the contained text lies (character offsets into
    the container's text; for a stored container, `auditor show --text` prints that text).

    \b
    auditor query --db corpus.db draft.docx
    pdftotext brief.pdf - | auditor query --db corpus.db -    # FILE "-": standard input

    Each FILE is read as `ingest` reads it, in a separate process with a memory and a time
    limit. A file that cannot be read into words (a decompression bomb, a parser that hangs,
    unreadable or empty text) is reported with the reason, the other files are still answered,
    and the exit code is 2."""
    from auditor.engine.describe import describe
    from auditor.engine.query import query_files
    from auditor.extract import Limits
    from auditor.index.builder import build_index

    limits = Limits(pdf_timeout=pdf_timeout, timeout=timeout, memory=memory_mb * 2**20)
    results = []
    with open_store(db) as store:
        build_index(store)
        for fq in query_files(store, files, threshold, limits, stdin=sys.stdin.buffer):
            q = fq.result
            results.append({
                "file": fq.name, "warnings": fq.warnings, "skipped": fq.skipped,
                "error": {"code": fq.error[0], "message": fq.error[1]} if fq.error else None,
                "n_words": q.n_words if q else None, "n_shingles": q.n_shingles if q else None,
                "n_sampled": q.n_sampled if q else None,
                "note": q.note if q else None,
                "matches": [{"direction": m.direction, "document": describe(store, m.doc_id),
                             "exact": m.exact, "estimate": m.estimate.estimate,
                             "interval": [m.estimate.low, m.estimate.high],
                             "hits": m.estimate.hits, "sampled": m.estimate.sampled,
                             "spans": [s.as_dict() for s in m.spans]} for m in q.matches] if q else []})
    if as_json:
        click.echo(json.dumps(results, indent=2, sort_keys=True))
    else:
        _print_query(results)
    if any(r["error"] for r in results):
        sys.exit(2)


def _print_query(results: list[dict]) -> None:
    for r in results:
        name = f"[bold]{markup(r['file'])}[/]"
        if r["error"]:
            out.print(f"{name}: [bold red]not read[/] ({markup(r['error']['code'])}): "
                      f"{markup(r['error']['message'])}", highlight=False, soft_wrap=True)
            continue
        if r["skipped"]:
            out.print(f"{name}: skipped ({markup(r['skipped'])}), as ingest skips it", highlight=False)
            continue
        out.print(f"{name}: {r['n_words']} words, {r['n_sampled']} sampled shingles"
                  + (f" ({markup(r['note'])})" if r["note"] else ""), highlight=False)
        for w in r["warnings"]:
            out.print(f"  warning: {markup(w)}", highlight=False, soft_wrap=True)
        if not r["matches"] and r["n_shingles"]:  # no shingle: the note says there is nothing to compare
            out.print("  no stored document contains it or is contained in it", highlight=False)
        both = {m["document"]["doc_id"] for m in r["matches"] if m["direction"] == "in-query"} & {
            m["document"]["doc_id"] for m in r["matches"] if m["direction"] == "contains-query"}
        for m in r["matches"]:
            doc = m["document"]["doc_id"]
            if doc in both and m["direction"] == "in-query":
                continue  # a copy: said once, on its line below
            verb = "contained in" if m["direction"] == "contains-query" else "contains"
            where = "in it" if m["direction"] == "contains-query" else "in the file"
            back = next((x for x in r["matches"] if x["document"]["doc_id"] == doc and x["direction"] == "in-query"),
                        None) if doc in both else None
            mutual = f", and contains it ({back['exact']:.4f}): a copy" if back else ""
            out.print(f"  {m['exact']:.4f} {verb} {doc} {markup(m['document']['path'])}{mutual} "
                      f"(estimate {m['estimate']:.4f}, {m['hits']}/{m['sampled']})"
                      + (f"; {where} at {spans_line(m['spans'])}" if m["spans"] else ""),
                      highlight=False, soft_wrap=True)


@click.command()
@db_option
@click.argument("a")
@click.argument("b")
@click.option("--json", "as_json", is_flag=True,
              help="JSON: the engine's containment fields at the top level, every other measure under `measures`.")
def compare(db, a, b, as_json):
    """Every measure for two stored documents (id, sha256 prefix or path).

    \b
    Exact fingerprint, Jaccard of 5-word shingles, MinHash estimate and its standard error,
    LSH banding (20 x 10), simhash and Hamming distance, S3 over word 8-grams (all after the
    CopyCat preprocessing), and the engine's containment both ways with spans.
    """
    from auditor.engine.neardup import measures_for_pair

    with open_store(db) as store:
        m = measures_for_pair(store, store.resolve(a), store.resolve(b))
    r = m.pop("containment")
    if as_json:
        click.echo(json.dumps({**r, "measures": m}, indent=2, sort_keys=True))
        return
    docs, st = m["documents"], m["settings"]
    out.print(f"A: {doc_line(docs['a'])}", highlight=False, soft_wrap=True)
    out.print(f"B: {doc_line(docs['b'])}", highlight=False, soft_wrap=True)
    p = st["preprocessing"]
    out.print(f"words after preprocessing (lower-case {p['lowercase']}, stop words removed {p['stopwords']}, "
              f"Porter stems {p['stem']}, HTML {p['html']}): A {m['words']['a']}, B {m['words']['b']}",
              highlight=False)
    ex, j, mh, lsh, sh, s3 = (m[k] for k in ("exact", "jaccard", "minhash", "lsh", "simhash", "s3"))
    t = Table(title="measures")
    t.add_column("measure", no_wrap=True)
    t.add_column("value", justify="right", no_wrap=True)
    t.add_column("detail", overflow="fold")
    t.add_row("exact fingerprint", "equal" if ex["equal"] else "different",
              f"A {ex['a']}, B {ex['b']}" + ("; same bytes" if ex["same_bytes"] else ""))
    t.add_row(f"Jaccard, {j['k']}-shingles", f"{j['value']:.4f}",
              f"{j['shingles']['shared']} shared of {j['shingles']['a']} and {j['shingles']['b']} (exact)")
    t.add_row(f"MinHash, m={mh['m']}", f"{mh['estimate']:.4f}",
              f"standard error {mh['standard_error']:.4f} = sqrt(J(1-J)/m) at the estimate; seed {mh['seed']}")
    t.add_row(f"LSH {lsh['bands']}x{lsh['rows']}", "candidate" if lsh["candidate"] else "not a candidate",
              f"{lsh['bands_matching']} bands match; P(candidate) at this Jaccard {lsh['probability_at_jaccard']:.4f}; "
              f"threshold {lsh['threshold']:.3f}")
    t.add_row("simhash, 64 bits", f"{sh['hamming']} bits",
              f"Hamming distance; A {sh['a']}, B {sh['b']}; near-duplicate (<= 3): {'yes' if sh['near_duplicate'] else 'no'}")
    t.add_row(f"S3, word {s3['n']}-grams", f"{s3['value']:.4f}",
              f"{s3['grams']['shared']} shared of {s3['grams']['a']} and {s3['grams']['b']}")
    for name, label in (("a_in_b", "containment A in B"), ("b_in_a", "containment B in A")):
        x = r[name]
        spans = len(x["spans"])
        t.add_row(label, f"{x['exact']:.4f}",
                  f"engine, {r['params']['k']}-shingles, exact; estimate {x['estimate']:.4f} "
                  f"[{x['interval'][0]:.3f}, {x['interval'][1]:.3f}]; "
                  + (f"{spans} span{'s' if spans != 1 else ''} in {name[-1].upper()}" if spans else "no span"))
    t.add_row("Jaccard, engine", f"{r['jaccard']:.4f}", f"{r['params']['k']}-shingles without preprocessing")
    out.print(t)
    for name, (x_name, y_name) in (("a_in_b", ("A", "B")), ("b_in_a", ("B", "A"))):
        _print_alignment(r[name], x_name, y_name)
    for note in m["notes"]:
        out.print(f"note: {markup(note)}", highlight=False)


def _print_alignment(x: dict, x_name: str, y_name: str) -> None:
    """Where X lies in Y, and a short word-by-word excerpt of the differences."""
    from auditor.engine.align import word_diff
    from auditor.report.render.model import _alignment_summary

    if not x["spans"]:
        return
    out.print(f"{x_name} in {y_name} at {spans_line(x['spans'])} of {y_name}'s text", highlight=False,
              soft_wrap=True)
    al = x.get("alignment")
    if not al:
        return
    out.print(f"  aligned word by word: {_alignment_summary(al, x_name, y_name)}", highlight=False,
              soft_wrap=True)
    for h in al["hunks"]:
        out.print(f"  {x_name} {h['a'][0]}-{h['a'][1]} / {y_name} {h['b'][0]}-{h['b'][1]}: {clean(word_diff(h))}",
                  highlight=False, soft_wrap=True, markup=False)
    if al["hunks"]:
        out.print(f"  ([-words-] only in {x_name}, {{+words+}} only in {y_name})", highlight=False, markup=False)
