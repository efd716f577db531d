"""The ``auditor`` command: each subcommand parses options, calls one library function and
formats its result. Errors become exit codes here and nowhere else:
0 success, 1 findings (gate) or a handled failure, 2 usage, input or store error, failed controls.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from auditor import __version__
from auditor.console import clean, json_safe, markup, text
from auditor.errors import AuditorError, ControlsFailed, UsageError
from auditor.store import Store

UNLIMITED = 100_000  # columns: wider than any line printed


def _console(stderr: bool = False) -> Console:
    """Rich output at the terminal's width; in a pipe or a CI log (and with no $COLUMNS), no width
    limit, so tables and paths are never cut or wrapped."""
    stream = sys.stderr if stderr else sys.stdout
    tty = stream is not None and stream.isatty()
    return Console(stderr=stderr, width=None if tty or "COLUMNS" in os.environ else UNLIMITED, emoji=False)


# Data printed through these consoles goes through auditor.console (markup(), text()): names
# and texts come from batch submitters and must neither drive the terminal nor be read as markup.
err = _console(stderr=True)
out = _console()


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so cleanups run (batch status, the gate's temporary copy)."""
    raise SystemExit(128 + signum)


class AuditorGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _terminated)
        try:
            return super().invoke(ctx)
        except ControlsFailed as e:  # messages are text, not markup: "[spark]" must survive
            err.print(f"[bold red]controls failed[/]: {markup(e, keep_newlines=True)}", highlight=False)
            sys.exit(2)
        except AuditorError as e:
            err.print(f"[bold red]error[/]: {markup(e, keep_newlines=True)}", highlight=False)
            sys.exit(2)
        except click.ClickException as e:  # its message may quote a hostile file name
            message = e.format_message
            e.format_message = lambda: clean(message(), keep_newlines=True)  # type: ignore[method-assign]
            raise
        except (click.exceptions.Exit, KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:  # a bug: exit 2, never 1 (which means "findings" to a CI gate)
            err.print_exception() if os.environ.get("AUDITOR_DEBUG") else None
            err.print(f"[bold red]internal error[/]: {markup(type(e).__name__)}: {markup(e, keep_newlines=True)} "
                      "(set AUDITOR_DEBUG=1 for the traceback)", highlight=False)
            sys.exit(2)


db_option = click.option(
    "--db", "db", required=True, type=click.Path(dir_okay=False, path_type=Path),
    envvar="AUDITOR_DB", help="SQLite store (created if missing). Env: AUDITOR_DB.",
)


def open_store(db: Path, create: bool = False) -> Store:
    return Store(db, create=create)


def _progress(quiet: bool) -> Progress:
    """Files and bytes on stderr; off with --quiet or when stderr is not a terminal (CI logs)."""
    return Progress(
        TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=err, transient=True,
        disable=quiet or not err.is_terminal,
    )


@click.group(cls=AuditorGroup)
@click.version_option(__version__, prog_name="auditor")
def cli() -> None:
    """Find documents wholly contained in other documents of a legal or regulatory corpus.

    \b
    auditor ingest --db corpus.db filings/ contracts/
    auditor audit --db corpus.db
    """


@cli.command()
@db_option
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--batch", help="Batch name (default: derived from the inputs, so a re-run resumes).")
@click.option("--source", help="Source label recorded with every sighting (e.g. 'edgar', 'data-room').")
@click.option("--workers", type=int, default=0, show_default=True, help="Worker processes (0: one per core).")
@click.option("--max-file-mb", type=float, default=100, show_default=True, help="Larger files fail as too_large.")
@click.option("--max-text-chars", type=int, default=20_000_000, show_default=True)
@click.option("--pdf-timeout", type=float, default=120, show_default=True, help="Seconds per PDF.")
@click.option("--pdf-memory-mb", type=int, default=2048, show_default=True, help="Memory limit of the PDF extractor.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=300, show_default=True,
              help="Seconds per input file, all its parts and PDFs included (the extraction is then killed).")
@click.option("--memory-mb", type=click.IntRange(min=64), default=1024, show_default=True,
              help="Memory limit of the process extracting each input.")
@click.option("--max-parts", type=click.IntRange(min=1), default=1000, show_default=True,
              help="EDGAR documents read per submission; the rest are recorded as one failed part.")
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds for the whole batch: inputs not processed by then are listed, recorded, "
                   "and resumed by a re-run (exit 1).")
@click.option("--retry-failed", is_flag=True, help="Try again files that failed before with the same bytes.")
@click.option("--sync", is_flag=True,
              help="Also withdraw the documents whose files are gone from (or replaced in) the directories given.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary table.")
@click.option("--json", "as_json", is_flag=True, help="Print the batch outcome as JSON.")
def ingest(db, inputs, batch, source, workers, max_file_mb, max_text_chars, pdf_timeout,
           pdf_memory_mb, timeout, memory_mb, max_parts, budget, retry_failed, sync, quiet, as_json):
    """Store files and directories (text, HTML, PDF, EDGAR submissions, .docx) with provenance.

    \b
    auditor ingest --db corpus.db --source edgar filings/
    auditor ingest --db corpus.db --sync filings/    # and withdraw what was deleted from filings/

    Every input is recorded: stored, or failed or skipped with a reason (FIFOs, devices and
    symbolic links out of the input tree are never read). Exit 2 if an input does not exist
    (the others are ingested; nothing is recorded for it), 1 if --budget ran out first (a
    re-run resumes).
    """
    from auditor.extract import Limits
    from auditor.ingest import ingest as run

    limits = Limits(max_file_bytes=int(max_file_mb * 2**20), max_text_chars=max_text_chars,
                    pdf_timeout=pdf_timeout, pdf_memory=pdf_memory_mb * 2**20, timeout=timeout,
                    memory=memory_mb * 2**20, max_parts=max_parts, budget=budget)
    with open_store(db, create=True) as store, _progress(quiet) as bar:
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
                     retry_failed=retry_failed, command=command, on_start=on_start, on_file=on_file)
        synced = None
        if sync:
            from auditor.withdraw import sync as run_sync

            synced = run_sync(store, [i for i in inputs if i.is_dir()], _present(result), command=command)
    if as_json:
        click.echo(json.dumps({"batch": result.batch, "counts": result.counts, "problems": result.problems,
                               "missing": result.missing, "restored": result.restored,
                               "complete": result.complete, "not_processed": result.not_processed,
                               "sync": synced.as_dict() if synced else None}, indent=2, sort_keys=True))
        _exit_if_missing(result.missing)
        _exit_if_incomplete(result, budget)
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
    click.echo(" ".join(f"{k}={v}" for k, v in c.items())
               + (f" restored={len(result.restored)}" if result.restored else "")
               + (f" withdrawn={len(synced.withdrawn)}" if synced is not None else ""))
    if synced is not None and not quiet:
        for place in synced.gone:
            err.print(f"gone: {clean(place)}", markup=False, highlight=False)
    _exit_if_missing(result.missing)
    _exit_if_incomplete(result, budget)


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


@cli.command()
@db_option
@click.option("--json", "as_json", is_flag=True)
def stats(db, as_json):
    """Counts by batch, format and status."""
    with open_store(db) as store:
        s = store.stats()
    if as_json:
        click.echo(json.dumps(s, indent=2, sort_keys=True))
        return
    out.print(f"{s['documents']} documents ({s['with_text']} with text, {s['indexed']} indexed, "
              f"{s['postings']} postings, {s['withdrawn']} withdrawn), {s['exact_duplicates']} exact duplicates, "
              f"{s['sightings']} sightings, {s['failures']} failed, {s['skipped']} skipped", highlight=False)
    for title, rows in (("by format", s["by_format"]), ("by batch", s["by_batch"]),
                        ("failed or skipped", s["failures_by_code"])):
        if rows:
            t = Table(title=title)
            for k in rows[0]:
                t.add_column(k)
            for r in rows:
                t.add_row(*(text("" if v is None else v) for v in r.values()))
            out.print(t)


@cli.command()
@db_option
@click.argument("doc")
@click.option("--text", "with_text", is_flag=True,
              help="Print the extracted text alone, exactly (report spans are offsets into it); with --json, add it.")
@click.option("--json", "as_json", is_flag=True, help="Everything stored about it, as JSON.")
def show(db, doc, with_text, as_json):
    """One document: provenance, sightings, EDGAR part, index counts, withdrawn or not, and its
    findings in the latest audit run that has any. By id, sha256 prefix or path (PATH#SEQUENCE
    for EDGAR parts)."""
    from auditor.document import document_view, lines

    with open_store(db) as store:
        p = document_view(store, store.resolve(doc), with_text=with_text)
    if as_json:
        click.echo(json.dumps(p, indent=2, sort_keys=True, default=str))
    elif with_text:
        click.echo(p["text"], nl=False)
    else:
        for line in lines(p):
            click.echo(clean(line))


@cli.command()
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
    from auditor.withdraw import withdraw as run

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


@cli.command()
@db_option
@click.option("--rebuild", is_flag=True, help="Drop and rebuild the whole index.")
@click.option("--k", type=int, help="Words per shingle (default: the stored value, 5).")
@click.option("--modulus", type=int, help="Keep a shingle when hash %% modulus == 0 (default 16).")
@click.option("--seed", type=int, help="Word hash seed.")
@click.option("--workers", type=int, default=0)
@click.option("--json", "as_json", is_flag=True)
def index(db, rebuild, k, modulus, seed, workers, as_json):
    """Bring the sampled shingle index up to date (audit and query do this themselves)."""
    from dataclasses import replace

    from auditor.index import build_index

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


def _threshold(ctx, param, value):
    if not 0 < value <= 1:
        raise click.BadParameter("must be in (0, 1]")
    return value


def _controls_table(controls: list[dict]) -> Table:
    t = Table(title="controls (run through the same path as the corpus)")
    for c in ("control", "kind", "source", "score", "bound", "found", "result"):
        t.add_column(c)
    for c in controls:
        t.add_row(text(c["name"]), text(c["kind"]), text(c["source"]), f"{c['score']:.4f}", text(f"{c['operator']} {c['expected']:.4f}"),
                  "yes" if c["found"] else "no", "[green]pass[/]" if c["passed"] else "[bold red]FAIL[/]")
    return t


controls_options = [
    click.option("--threshold", type=float, default=0.8, show_default=True, callback=_threshold,
                 help="Containment at or above which a document is reported as contained."),
    click.option("--control-seed", type=int, default=0, show_default=True,
                 help="Seed for choosing the corpus-drawn controls."),
    click.option("--controls-dir", type=click.Path(file_okay=False, exists=True, path_type=Path),
                 help="Fixture controls (default: $AUDITOR_CONTROLS, else those installed with the package)."),
]


def with_controls_options(f):
    for opt in reversed(controls_options):
        f = opt(f)
    return f


@cli.command()
@db_option
@with_controls_options
@click.option("--json", "as_json", is_flag=True)
def controls(db, threshold, control_seed, controls_dir, as_json):
    """Run the positive and negative controls alone (exit 2 if any fails)."""
    from auditor.controls import run_controls
    from auditor.index import build_index

    with open_store(db) as store:
        build_index(store)
        r = run_controls(store, threshold, directory=controls_dir, seed=control_seed)
    rows = [c.as_dict() for c in r.results]
    if as_json:
        click.echo(json.dumps({"passed": r.passed, "controls": rows, "note": r.note}, indent=2, sort_keys=True))
    else:
        out.print(_controls_table(rows))
        if r.note:
            out.print(f"corpus-drawn controls: {markup(r.note)}", highlight=False)
        out.print(f"controls: {markup(r.summary())}", highlight=False)
    r.raise_if_failed()


@cli.command()
@db_option
@with_controls_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Report directory (default: reports/<run-id>/).")
@click.option("--engine", type=click.Choice(["sqlite", "spark"]), default="sqlite", show_default=True,
              help="Where the audit runs: in this process, or on Spark (needs the [spark] extra and Java 17 or 21).")
@click.option("--master", default="local[*]", show_default=True, help="Spark master URL (--engine spark).")
@click.option("--spark-workdir", type=click.Path(file_okay=False, path_type=Path),
              help="Directory every Spark executor can read (needed with a non-local master).")
@click.option("--json", "as_json", is_flag=True, help="Print report.json to stdout as well.")
@click.option("--verbose", "-v", is_flag=True, help="List every containing pair, not only the summary.")
@click.option("--allow-empty", is_flag=True,
              help="Report even when nothing can be audited or no control can be drawn from the corpus "
                   "(the fixture controls must still pass).")
def audit(db, threshold, control_seed, controls_dir, out, engine, master, spark_workdir, as_json, verbose,
          allow_empty):
    """Run the controls, then score every document against every other, and write the report.

    \b
    Exit 0 with a report; exit 2 (and a REFUSED report holding only the controls) when a
    control fails, when nothing can be audited, or when no control can be drawn from the
    corpus: no finding is ever reported by a detector that could not show it can see.
    """
    from auditor.pipeline import audit_job

    if engine == "spark":
        from auditor.extras import require_spark

        require_spark()
    with open_store(db) as store:
        o = audit_job(store, threshold, out=out, seed=control_seed, controls_dir=controls_dir,
                      command=" ".join(["auditor", *sys.argv[1:]]), engine=engine, master=master,
                      workdir=spark_workdir, allow_empty=allow_empty)
    r = o.report
    if as_json:
        click.echo(json_safe((o.directory / "report.json").read_text(encoding="utf-8")), nl=False)
    else:
        out_console_report(r, threshold)
        if verbose:
            _every_pair(o.directory)
    err.print(f"report: {markup(o.directory / 'report.html')} (also report.md, report.json, findings.jsonl.gz, "
              "documents.jsonl.gz" + (", texts/" if (o.directory / "texts").is_dir() else "") + ")",
              highlight=False)
    if o.refused:
        raise ControlsFailed("; ".join(r["refused_because"]) + f"; see {o.directory / 'report.md'}")


TOP_CONTAINED = 10


def out_console_report(r: dict, threshold: float) -> None:
    """The audit in a screenful: parameters, controls, counts, the top contained documents."""
    p = r["manifest"]["params"]
    out.print(f"parameters: k={p['k']}, 1 in {p['modulus']} sampled, hash {p['hash']}, seed {p['seed']}, "
              f"normalisation {p['normalization']}, threshold {p['threshold']}, interval {p['interval']}, "
              f"engine {r['manifest']['engine']}", highlight=False, soft_wrap=True)
    out.print(_controls_table(r["controls"]))
    if r["status"] == "REFUSED":
        out.print("[bold red]REFUSED[/]: no finding is reported.")
        return
    s = r["summary"]
    out.print(f"{s['contained_documents']} contained documents at >= {threshold} ({s['containing_pairs']} "
              f"containing pairs), {s['boilerplate_documents']} boilerplate documents, {s['families']} "
              f"families ({s['family_members']} members); {s['documents']} documents audited, "
              f"{s['not_auditable']} not auditable, {s['duplicate_groups']} exact-duplicate groups, "
              f"{s['failed_inputs']} inputs failed to ingest", highlight=False)
    findings = sorted(r["findings"], key=lambda f: (-f["containers"], f["doc_id"]))
    if not findings:
        out.print(f"no document is contained in another at >= {threshold}", highlight=False)
    elif len(findings) > TOP_CONTAINED:
        out.print(f"the {TOP_CONTAINED} contained documents with the most containers:", highlight=False)
    for f in findings[:TOP_CONTAINED]:
        best = f["best"][0]
        out.print(f"  {_path(r, f['doc_id'])} in {f['containers']} document(s); best "
                  f"{_path(r, best['container'])} {best['containment']:.4f} ({_where(r, best)})",
                  highlight=False, soft_wrap=True)
    if r["boilerplate"]:
        top = sorted(r["boilerplate"], key=lambda e: (-e["containers"], e["doc_id"]))[:3]
        out.print(f"boilerplate: {len(r['boilerplate'])} documents contained in >= "
                  f"{p['boilerplate']['applied']} others, e.g. "
                  + "; ".join(f"{_path(r, e['doc_id'])} ({e['containers']})" for e in top),
                  highlight=False, soft_wrap=True)
    if s["not_auditable"]:
        out.print(f"not auditable: {s['not_auditable']} documents (listed with reasons in the report)",
                  highlight=False)


def _path(r: dict, doc_id: int) -> str:
    """A document's name for a rich print: cleaned and markup-escaped."""
    from auditor.render import _name

    return markup(_name(r, doc_id))


def _where(r: dict, best: dict) -> str:
    from auditor.render import _where as where

    return markup(where(r, best))


def _every_pair(directory: Path) -> None:
    """Every containing pair of a written report, from its sidecars (``--verbose``)."""
    import gzip

    from auditor.report import read_documents

    paths = {d["doc_id"]: d["path"] for d in read_documents(directory / "documents.jsonl.gz")}
    path = directory / "findings.jsonl.gz"
    if not path.is_file():
        return
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            x = json.loads(line)
            out.print(f"  {markup(paths.get(x['contained']))} in {markup(paths.get(x['container']))}: "
                      f"{x['containment']:.4f} "
                      f"(estimate {x['estimate']:.4f}, {x['hits']}/{x['sampled']} sampled)"
                      + (f", family {x['family']}" if x["family"] is not None else ""),
                      highlight=False, soft_wrap=True)


@cli.command()
@click.argument("report_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@db_option
@click.option("--controls-dir", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Fixture controls the audit used (default: the directory its run block records).")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON (exit codes unchanged).")
def verify(report_dir, db, controls_dir, as_json):
    """Recompute an audit and check that the report matches it byte for byte (apart from `run`);
    or, for a directory written by `auditor assemble`, recompute the plan and the corpus.

    Exit 0 if it does, 1 if it does not, 2 if it cannot be checked (no report, no store).
    """
    from dataclasses import asdict

    from auditor.assemble import is_assembly
    from auditor.assemble import verify as verify_assembly
    from auditor.pipeline import verify as run

    assembly = is_assembly(report_dir)  # an assembled corpus (manifest.json), else a report
    with open_store(db) as store:
        v = verify_assembly(report_dir, store) if assembly else run(report_dir, store, controls_dir=controls_dir)
    if as_json:
        click.echo(json.dumps({"report": str(report_dir), **asdict(v)}, indent=2, sort_keys=True))
        sys.exit(0 if v.ok else 1)
    if v.ok:
        out.print(f"verified: {markup(report_dir)} matches a fresh {'assembly' if assembly else 'audit'} "
                  f"(digest {markup(v.stored_digest)})", highlight=False)
        return
    err.print(f"[bold red]NOT VERIFIED[/]: {markup(report_dir)}", highlight=False)
    for p in v.problems:
        err.print(f"  {markup(p)}", highlight=False)
    sys.exit(1)


@cli.command()
@db_option
@click.option("--quick", is_flag=True,
              help="Only SQLite's quick_check and the text digests (what audit and gate run first).")
@click.option("--json", "as_json", is_flag=True)
def check(db, quick, as_json):
    """Verify the store: SQLite integrity, every stored text against its recorded sha256, and
    every index row against the text and the stored parameters. Exit 1 on any mismatch.

    \b
    Texts stored before digests were recorded (stores written by auditor 0.1.0) are counted as
    "no digest recorded": their index rows are still derived again. The store is opened read-only.
    """
    from auditor.check import check_store

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


@cli.command()
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=Path("demo"),
              show_default=True, help="Where to write the demo corpus and its store.")
@click.option("--threshold", type=float, default=0.8, show_default=True, callback=_threshold)
def demo(directory, threshold):
    """Build the bundled demo corpus, ingest it, run the controls and the audit, write the report."""
    from auditor.demo import build_corpus
    from auditor.ingest import ingest as run_ingest
    from auditor.pipeline import audit_job

    counts = build_corpus(directory / "corpus")
    db = directory / "demo.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    err.print(f"demo corpus: {markup(directory / 'corpus')} ({', '.join(f'{v} in {k}' for k, v in counts.items())})",
              highlight=False)
    with open_store(db, create=True) as store:
        for source in sorted(counts):
            b = run_ingest(store, [directory / "corpus" / source], batch=f"demo-{source}", source=source,
                           command="auditor demo")
            err.print(f"ingested {source}: " + " ".join(f"{k}={v}" for k, v in b.counts.items())
                      + "".join(f"\n  {markup(p)}: {markup(c)} ({markup(m)})" for p, c, m in b.problems),
                      highlight=False)
        o = audit_job(store, threshold, reports_root=directory / "reports", command="auditor demo")
    out_console_report(o.report, threshold)
    err.print(f"store: {markup(db)}\nreport: {markup(o.directory / 'report.html')} (also report.md, report.json)\n"
              f"re-check it: auditor verify {markup(o.directory)} --db {markup(db)}", highlight=False)
    if o.refused:
        raise ControlsFailed("; ".join(o.report["refused_because"]))


def _doc_line(d: dict) -> str:
    """One document for a rich print: its data cleaned and markup-escaped."""
    s = f"{d['doc_id']} {d['path']} (sha256 {d['sha256'][:12]}, {d['format']})"
    if "edgar" in d:
        e = d["edgar"]
        s += (f" EDGAR {e['submission']['accession_number']} {e['submission']['form_type']}"
              f" part {e['part']['sequence']} {e['part']['type']}")
    return markup(s)


def _spans_line(spans: list[dict]) -> str:
    """``characters 120-15818 (pages 3-7), 16000-16400``: where a contained text lies."""
    from auditor.review import spans_text

    return "characters " + spans_text(spans).replace("; ", ", ")


@cli.command()
@db_option
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--threshold", type=float, default=0.8, show_default=True, callback=_threshold)
@click.option("--json", "as_json", is_flag=True)
def query(db, files, threshold, as_json):
    """Which stored documents contain FILE, and which FILE contains, without storing it:
    highest containment first, with where the contained text lies (character offsets into
    the container's text; for a stored container, `auditor show --text` prints that text)."""
    from auditor.audit import describe
    from auditor.extract import extract
    from auditor.index import build_index
    from auditor.query import query_text

    results = []
    with open_store(db) as store:
        build_index(store)
        for f in files:
            if not stat.S_ISREG(os.stat(f).st_mode):  # a FIFO would block the read forever
                raise UsageError(f"{f} is not a regular file")
            ex = extract(f)
            texts = [(str(f), ex.text)] if ex.text else []
            texts += [(f"{f}#{p.meta.get('sequence')}", p.extracted.text) for p in ex.parts
                      if p.extracted is not None and p.extracted.text]
            for name, text in texts:
                q = query_text(store, text, threshold)
                results.append({"file": name, "n_words": q.n_words, "n_sampled": q.n_sampled, "note": q.note,
                                "matches": [{"direction": m.direction, "document": describe(store, m.doc_id),
                                             "exact": m.exact, "estimate": m.estimate.estimate,
                                             "interval": [m.estimate.low, m.estimate.high],
                                             "hits": m.estimate.hits, "sampled": m.estimate.sampled,
                                             "spans": [s.as_dict() for s in m.spans]} for m in q.matches]})
    if as_json:
        click.echo(json.dumps(results, indent=2, sort_keys=True))
        return
    for r in results:
        out.print(f"[bold]{markup(r['file'])}[/]: {r['n_words']} words, {r['n_sampled']} sampled shingles"
                  + (f" ({markup(r['note'])})" if r["note"] else ""), highlight=False)
        if not r["matches"]:
            out.print("  no stored document contains it or is contained in it", highlight=False)
        for m in r["matches"]:
            verb = "contained in" if m["direction"] == "contains-query" else "contains"
            where = "in it" if m["direction"] == "contains-query" else "in the file"
            out.print(f"  {m['exact']:.4f} {verb} {m['document']['doc_id']} {markup(m['document']['path'])} "
                      f"(estimate {m['estimate']:.4f}, {m['hits']}/{m['sampled']})"
                      + (f"; {where} at {_spans_line(m['spans'])}" if m["spans"] else ""),
                      highlight=False, soft_wrap=True)


@cli.command()
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
    from auditor.neardup import measures_for_pair

    with open_store(db) as store:
        m = measures_for_pair(store, store.resolve(a), store.resolve(b))
    r = m.pop("containment")
    if as_json:
        click.echo(json.dumps({**r, "measures": m}, indent=2, sort_keys=True))
        return
    docs, st = m["documents"], m["settings"]
    out.print(f"A: {_doc_line(docs['a'])}", highlight=False, soft_wrap=True)
    out.print(f"B: {_doc_line(docs['b'])}", highlight=False, soft_wrap=True)
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
    from auditor.align import word_diff
    from auditor.render import _alignment_summary

    if not x["spans"]:
        return
    out.print(f"{x_name} in {y_name} at {_spans_line(x['spans'])} of {y_name}'s text", highlight=False,
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


from auditor.cli_gate import gate  # noqa: E402  (the gate's options live in their own module)

cli.add_command(gate)

from auditor.cli_neardup import near_dups  # noqa: E402

cli.add_command(near_dups)

from auditor.cli_neardup import lsh_curve  # noqa: E402

cli.add_command(lsh_curve)

from auditor.cli_spark import export  # noqa: E402

cli.add_command(export)

from auditor.cli_review import browse, findings, runs  # noqa: E402

for _command in (runs, findings, browse):
    cli.add_command(_command)

from auditor.cli_assemble import assemble  # noqa: E402

cli.add_command(assemble)
