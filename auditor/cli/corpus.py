"""Commands that fill and inspect the store: ``ingest``, ``stats``, ``show``, ``withdraw``,
``index`` and ``check``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from auditor.cli.common import (
    WORKERS_HELP,
    db_option,
    err,
    exit_if_bad_dates,
    memory_option,
    ocr_option,
    open_store,
    out,
    pdf_timeout_option,
    report_dates,
    timeout_option,
)
from auditor.console import clean, markup, text
from auditor.errors import UsageError
from auditor.store.db import Store


def progress_bar(quiet: bool) -> Progress:
    """Files and bytes on stderr; off with --quiet or when stderr is not a terminal (CI logs)."""
    return Progress(
        TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=err, transient=True,
        disable=quiet or not err.is_terminal,
    )



@click.command()
@click.option("--db", "db", type=click.Path(dir_okay=False, path_type=Path), envvar="AUDITOR_DB",
              help="The SQLite store, created if missing. Env: AUDITOR_DB. Not with --engine spark.")
@click.argument("inputs", nargs=-1, required=True, type=click.Path())  # str: a URI keeps its "//"
@click.option("--batch", help="Batch name (default: derived from the inputs, so a re-run resumes).")
@click.option("--source", help="Source label recorded with every sighting (e.g. 'edgar', 'data-room').")
@click.option("--workers", type=int, default=0, show_default=True, help=WORKERS_HELP)
@click.option("--max-file-mb", type=float, default=100, show_default=True, help="Larger files fail as too_large.")
@click.option("--max-text-chars", type=int, default=20_000_000, show_default=True)
@pdf_timeout_option
@ocr_option
@click.option("--pdf-memory-mb", type=int, default=2048, show_default=True, help="Memory limit of the PDF extractor.")
@timeout_option
@memory_option
@click.option("--max-parts", type=click.IntRange(min=1), default=1000, show_default=True,
              help="EDGAR documents read per submission; the rest are recorded as one failed part.")
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds for the whole batch: inputs not processed by then are listed, recorded, "
                   "and resumed by a re-run (exit 1).")
@click.option("--retry-failed", is_flag=True, help="Try again files that failed before with the same bytes (they are tried again anyway "
                   "when the tool version or the limits changed since).")
@click.option("--sync", is_flag=True,
              help="Also withdraw the documents whose files are gone from (or replaced in) the directories given.")
@click.option("--dates", "dates_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Dates the crawl knows for its copies: CSV or JSON Lines of path (or sha256) and date, "
                   "recorded with the copies they name (see `auditor dates`).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary table.")
@click.option("--json", "as_json", is_flag=True, help="Print the batch outcome as JSON.")
@click.option("--engine", type=click.Choice(["sqlite", "spark"]), default="sqlite", show_default=True,
              help="sqlite: into the store; spark: extracted on Spark executors into --parquet, no store.")
@click.option("--parquet", "parquet", type=click.Path(file_okay=False, path_type=Path),
              help="With --engine spark: the directory to write the export layout to (a re-run resumes).")
@click.option("--master", default="local[*]", show_default=True, help="Spark master URL (--engine spark).")
def ingest(db, inputs, batch, source, workers, max_file_mb, max_text_chars, pdf_timeout, ocr,
           pdf_memory_mb, timeout, memory_mb, max_parts, budget, retry_failed, sync, dates_file, quiet, as_json,
           engine, parquet, master):
    """Store files and directories (text, HTML, PDF, EDGAR submissions, .docx) with provenance.

    \b
    auditor ingest --db corpus.db --source edgar filings/
    auditor ingest --db corpus.db --sync filings/    # and withdraw what was deleted from filings/
    auditor ingest --engine spark hdfs://nn/filings s3a://bucket/x/ --parquet DIR   # URIs: Spark only

    Every input is recorded: stored, or failed or skipped with a reason (FIFOs, devices and
    symbolic links out of the input tree are never read). Exit 2 if an input does not exist
    (the others are ingested; nothing is recorded for it), 1 if --budget ran out first (a
    re-run resumes).
    """
    from auditor.corpus.ingest import ingest as run
    from auditor.extract import Limits

    limits = Limits(max_file_bytes=int(max_file_mb * 2**20), max_text_chars=max_text_chars,
                    pdf_timeout=pdf_timeout, pdf_memory=pdf_memory_mb * 2**20, timeout=timeout,
                    memory=memory_mb * 2**20, max_parts=max_parts, budget=budget, ocr=ocr)
    if engine == "spark" or parquet is not None:
        _ingest_on_spark(db, inputs, parquet, engine, batch, source, limits, master, sync, dates_file, as_json)
        return
    from auditor.corpus.ingest import is_uri

    if uris := [i for i in inputs if is_uri(i)]:
        raise UsageError(f"{uris[0]}: a URI is read by the Spark ingest only (--engine spark --parquet DIR); "
                         "give a local path to ingest into a store")
    inputs = [Path(i) for i in inputs]
    if db is None:
        raise UsageError("give --db (the store), or --engine spark --parquet DIR")
    with open_store(db, create=True) as store, progress_bar(quiet) as bar:
        files_task = bar.add_task("files", total=None)
        bytes_task = bar.add_task("bytes to extract", total=None)

        def on_start(files: int, nbytes: int) -> None:
            bar.update(files_task, total=files)
            bar.update(bytes_task, total=nbytes)

        def on_file(o) -> None:
            bar.update(files_task, advance=1, description=f"files ({markup(o.path[-30:])})")
            if o.status in ("ok", "failed"):
                bar.update(bytes_task, advance=o.size)

        command = " ".join(["auditor", *sys.argv[1:]])
        result = run(store, list(inputs), batch=batch, source=source, limits=limits, workers=workers,
                     retry_failed=retry_failed, command=command, on_start=on_start, on_file=on_file,
                     dates=dates_file)
        synced = None
        if sync:
            from auditor.corpus.withdraw import sync as run_sync

            synced = run_sync(store, [i for i in inputs if i.is_dir()], _present(result), command=command)
    if as_json:
        click.echo(json.dumps({"batch": result.batch, "counts": result.counts, "problems": result.problems,
                               "not_auditable": result.not_auditable,
                               "unmodelled": result.unmodelled,
                               "missing": result.missing, "restored": result.restored,
                               "complete": result.complete, "not_processed": result.not_processed,
                               "sync": synced.as_dict() if synced else None,
                               "dates": result.dates.as_dict() if result.dates else None},
                              indent=2, sort_keys=True))
        _exit_if_missing(result.missing)
        _exit_if_incomplete(result, budget)
        exit_if_bad_dates(result.dates)
        return
    c = result.counts
    if not quiet:
        t = Table(title=text(f"batch {result.batch}"))
        for k in c:
            t.add_column(k, justify="right")
        t.add_row(*(str(v) for v in c.values()))
        err.print(t)
        if result.problems:
            p = Table(title="not ingested")
            p.add_column("file")
            p.add_column("reason")
            p.add_column("detail", overflow="fold")
            for path, code, msg in result.problems:
                p.add_row(text(path), text(code), text(msg))
            err.print(p)
        if result.not_auditable:
            n = Table(title="stored, but not auditable (never found contained: see `auditor show`)")
            n.add_column("file")
            n.add_column("why", overflow="fold")
            for path, why in result.not_auditable:
                n.add_row(text(path), text(why))
            err.print(n)
        if result.unmodelled:
            m = Table(title="stored, with constructs outside the reader's model (a gate refuses them: CONTAIN006)")
            m.add_column("file")
            m.add_column("not modelled", overflow="fold")
            for path, names in result.unmodelled:
                m.add_row(text(path), text(", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")))
            err.print(m)
    click.echo(" ".join(f"{k}={v}" for k, v in c.items())
               + (f" restored={len(result.restored)}" if result.restored else "")
               + (f" withdrawn={len(synced.withdrawn)}" if synced is not None else ""))
    if synced is not None and not quiet:
        for place in synced.gone:
            err.print(f"gone: {clean(place)}", markup=False, highlight=False)
    if result.dates is not None:
        report_dates(result.dates)
    _exit_if_missing(result.missing)
    _exit_if_incomplete(result, budget)
    exit_if_bad_dates(result.dates)


@click.command("dates")
@db_option
@click.argument("dates_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print what was done as JSON.")
def dates(db, dates_file, as_json):
    """Record the dates a crawl knows for its copies in a store already built, and date each
    document again.

    \b
    auditor dates --db corpus.db published.csv      # path,date (or sha256,date) per line
    auditor dates --db corpus.db published.jsonl    # {"path": ..., "date": ...} per line

    A path names the copies seen there (an EDGAR submission's parts too), a sha256 the document
    with those bytes. A date supplied is the most trusted; see `auditor show` for each document's
    dates and their sources. Exit 2 if a line cannot be read (the others are recorded).
    """
    from auditor.store.dating import apply_dates

    with open_store(db) as store:
        applied = apply_dates(store, dates_file)
    if as_json:
        click.echo(json.dumps(applied.as_dict(), indent=2, sort_keys=True))
    else:
        report_dates(applied)
        click.echo(f"copies={applied.copies} documents={applied.documents} changed={len(applied.changed)} "
                   f"unmatched={len(applied.unmatched)} errors={len(applied.problems)}")
    exit_if_bad_dates(applied)


def _present(result) -> list[tuple[int, str]]:
    return [(o.doc_id, o.resolved) for o in result.outcomes if o.doc_id is not None]


def _exit_if_incomplete(result, budget: float | None) -> None:
    """--budget ran out: what was left is recorded and listed; exit 1 so a script notices."""
    if not result.complete:
        err.print(f"the time budget of {budget:g} s ran out: {len(result.not_processed)} inputs were not "
                  "processed; run the same command again to resume them", highlight=False)
        sys.exit(1)


def _exit_if_missing(missing: list[str]) -> None:
    """Inputs that do not exist: exit 2 once the others are stored (nothing is recorded for them)."""
    for path in missing:
        err.print(f"[bold red]error[/]: no such file or directory: {markup(path)}", highlight=False)
    if missing:
        err.print(f"{len(missing)} input(s) not found; the others were ingested", highlight=False)
        sys.exit(2)


@click.command()
@db_option
@click.option("--json", "as_json", is_flag=True)
def stats(db, as_json):
    """Counts by source (`ingest --source`), batch, format and status, the documents an audit
    cannot read, and what to do about each kind of failure."""
    from auditor.corpus.stats import corpus_stats

    with open_store(db) as store:
        s = corpus_stats(store)
    if as_json:
        click.echo(json.dumps(s, indent=2, sort_keys=True))
        return
    out.print(f"{s['documents']} documents ({s['with_text']} with text, {s['indexed']} indexed, "
              f"{s['postings']} postings, {s['withdrawn']} withdrawn, {s['not_auditable']} not auditable), "
              f"{s['exact_duplicates']} exact duplicates, "
              f"{s['sightings']} sightings, {s['failures']} failed, {s['skipped']} skipped", highlight=False)
    for title, rows in (("by source", s["by_source"]), ("by format", s["by_format"]), ("by batch", s["by_batch"]),
                        ("failed or skipped", s["failures_by_code"])):
        if rows:
            t = Table(title=title)
            for k in rows[0]:
                t.add_column(k, overflow="fold")
            for r in rows:
                t.add_row(*(text("(none given)" if v is None and k == "source" else "" if v is None else v)
                            for k, v in r.items()))
            out.print(t)


@click.command()
@db_option
@click.argument("doc")
@click.option("--text", "with_text", is_flag=True,
              help="Print the extracted text alone, exactly (report spans are offsets into it); with --json, add it.")
@click.option("--json", "as_json", is_flag=True, help="Everything stored about it, as JSON.")
def show(db, doc, with_text, as_json):
    """One document: provenance, sightings, EDGAR part, index counts, withdrawn or not, and its
    findings in the latest audit run that has any.

    \b
    auditor show --db corpus.db 17                       # by id
    auditor show --db corpus.db ca1_00117684624.pdf      # by file name, or the end of its path
    auditor show --db corpus.db filings/0000950170-24-000123.txt#2    # an EDGAR part

    DOC is an id, a sha256 prefix, a path (PATH#SEQUENCE for an EDGAR part), or a file name or
    end of a path that one document was seen at (several: they are listed). For a file that was
    not stored, it says why (the failure's code, reason and fix) and exits 1; exit 2 if nothing
    matches."""
    from auditor.corpus.document import NotStored, document_view, failure_line, find_document, lines

    with open_store(db) as store:
        try:
            doc_id = find_document(store, doc)
        except NotStored as e:
            if as_json:
                click.echo(json.dumps({"ref": doc, "stored": False, "failures": e.failures}, indent=2,
                                      sort_keys=True))
            else:
                for f in e.failures:
                    click.echo(clean(failure_line(f)))
            sys.exit(1)
        p = document_view(store, doc_id, with_text=with_text)
    if as_json:
        click.echo(json.dumps(p, indent=2, sort_keys=True, default=str))
    elif with_text:
        click.echo(p["text"], nl=False)
    else:
        for line in lines(p):
            click.echo(clean(line))


@click.command()
@db_option
@click.argument("refs", nargs=-1, required=True)
@click.option("--reason", help="Why (recorded with the withdrawal).")
@click.option("--json", "as_json", is_flag=True, help="Print what was withdrawn as JSON.")
def withdraw(db, refs, reason, as_json):
    """Withdraw documents: they leave later audits and gates, and stay in the store with their
    provenance (old reports still name them).

    \b
    REFS are document ids, sha256 prefixes, paths (PATH#SEQUENCE for an EDGAR part) or directories.
    A path withdraws what was seen there: a document also seen at another path stays (give its
    id to withdraw it everywhere). An EDGAR submission takes its parts with it. Ingesting the
    same bytes again restores a document.

    Exit 2 if a reference names nothing (the others are withdrawn).
    """
    from auditor.corpus.withdraw import withdraw as run

    with open_store(db) as store:
        w = run(store, list(refs), reason=reason, command=" ".join(["auditor", *sys.argv[1:]]))
        paths = {d: store.scalar("SELECT path FROM documents WHERE id = ?", (d,))
                 for d in [*w.withdrawn, *w.already, *w.kept]}
    if as_json:
        click.echo(json.dumps({**w.as_dict(), "paths": {str(k): v for k, v in sorted(paths.items())}},
                              indent=2, sort_keys=True))
    else:
        for d in w.withdrawn:
            click.echo(clean(f"withdrawn: {d} {paths[d]}"))
        for d in w.already:
            click.echo(clean(f"already withdrawn: {d} {paths[d]}"))
        for d, places in sorted(w.kept.items()):
            click.echo(clean(f"kept: {d} {paths[d]} is still seen at {', '.join(places)}"))
        click.echo(f"{len(w.withdrawn)} withdrawn, {len(w.already)} already withdrawn, {len(w.kept)} kept")
    for ref, why in w.unknown:
        err.print(f"[bold red]error[/]: {markup(ref)}: {markup(why)}", highlight=False)
    if w.unknown:
        sys.exit(2)


@click.command()
@db_option
@click.option("--rebuild", is_flag=True, help="Drop and rebuild the whole index.")
@click.option("--k", type=int, help="Words per shingle (default: the stored value, 5).")
@click.option("--modulus", type=int, help="Keep a shingle when hash %% modulus == 0 (default 16).")
@click.option("--seed", type=int, help="Word hash seed.")
@click.option("--workers", type=int, default=0, show_default=True, help=WORKERS_HELP)
@click.option("--json", "as_json", is_flag=True)
def index(db, rebuild, k, modulus, seed, workers, as_json):
    """Bring the sampled shingle index up to date (audit and query do this themselves)."""
    from dataclasses import replace

    from auditor.index.builder import build_index

    with open_store(db) as store:
        params = store.params
        changes = {n: v for n, v in (("k", k), ("modulus", modulus), ("seed", seed)) if v is not None}
        if changes:
            params = replace(params, **changes)
        if params.k < 1 or params.modulus < 1:
            raise UsageError("k and modulus must be positive")
        r = build_index(store, params, rebuild=rebuild, workers=workers)
    if as_json:
        click.echo(json.dumps({"indexed_now": r.indexed, "documents": r.total, "postings": r.postings,
                               "params": r.params.as_dict()}, indent=2, sort_keys=True))
        return
    click.echo(f"indexed {r.indexed} documents now; {r.total} in the index, {r.postings} postings; "
               f"params {json.dumps(r.params.as_dict(), sort_keys=True)}")



@click.command()
@db_option
@click.option("--quick", is_flag=True,
              help="Only SQLite's quick_check and the text digests (what audit and gate run first).")
@click.option("--json", "as_json", is_flag=True)
def check(db, quick, as_json):
    """Verify the store: SQLite integrity, every stored text against its recorded sha256, and
    every index row against the text and the stored parameters. Exit 1 on any mismatch.
    The store is opened read-only.
    """
    from auditor.corpus.check import check_store

    with Store(db, create=False, readonly=True) as store:
        r = check_store(store, quick=quick)
    if as_json:
        click.echo(json.dumps(r.as_dict(), indent=2, sort_keys=True))
    else:
        for p in r.problems:
            out.print(f"[bold red]MISMATCH[/] {markup(p.line())}", highlight=False, soft_wrap=True)
        for note in r.notes:
            out.print(f"note: {markup(note)}", highlight=False)
        out.print(markup(r.summary()), highlight=False)
    if not r.ok:
        sys.exit(1)


def _ingest_on_spark(db, inputs, parquet, engine, batch, source, limits, master, sync, dates_file, as_json):
    """``auditor ingest --engine spark INPUT... --parquet DIR``: no store, the export layout."""
    if engine != "spark" or parquet is None or db is not None or sync or dates_file is not None:
        raise UsageError("ingest on Spark takes --engine spark and --parquet DIR, and no --db, --sync or --dates")
    from auditor.engine.spark_engine import session
    from auditor.engine.spark_ingest import spark_ingest
    from auditor.extras import require_spark

    require_spark()
    r = spark_ingest(session(master), list(inputs), parquet, batch=batch,
                     source=source, limits=limits, command=" ".join(["auditor", *sys.argv[1:]]))
    if as_json:
        click.echo(json.dumps(r.as_dict(), indent=2, sort_keys=True))
    else:
        out.print(f"ingested {r.files} files in {r.parts} parts ({r.parts_done_before} written before, resumed past) "
                  f"into {markup(r.directory)}: {r.documents} documents, {r.failures} failed or skipped inputs",
                  highlight=False)
    if r.missing:
        raise UsageError("input not found: " + ", ".join(r.missing))
