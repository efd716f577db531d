"""Commands that audit and check reports: ``controls``, ``audit``, ``verify`` and ``demo``, with
the audit's summary for the terminal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from auditor.cli.common import (
    check_threshold,
    controls_table,
    db_option,
    err,
    open_store,
    out,
    with_controls_options,
)
from auditor.console import json_safe, markup
from auditor.errors import ControlsFailed, UsageError


@click.command()
@db_option
@with_controls_options
@click.option("--json", "as_json", is_flag=True)
def controls(db, threshold, control_seed, controls_dir, as_json):
    """Run the positive and negative controls alone (exit 2 if any fails)."""
    from auditor.controls import run_controls
    from auditor.index.builder import build_index

    with open_store(db) as store:
        build_index(store)
        r = run_controls(store, threshold, directory=controls_dir, seed=control_seed)
    rows = [c.as_dict() for c in r.results]
    if as_json:
        click.echo(json.dumps({"passed": r.passed, "controls": rows, "note": r.note}, indent=2, sort_keys=True))
    else:
        out.print(controls_table(rows))
        if r.note:
            out.print(f"corpus-drawn controls: {markup(r.note)}", highlight=False)
        out.print(f"controls: {markup(r.summary())}", highlight=False)
    r.raise_if_failed()


@click.command()
@click.option("--db", "db", type=click.Path(dir_okay=False, path_type=Path), envvar="AUDITOR_DB",
              help="The SQLite store (it must exist: `auditor ingest` creates it). Env: AUDITOR_DB. "
                   "Not with --parquet.")
@with_controls_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Report directory (default: reports/<run-id>/).")
@click.option("--parquet", "parquet", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Audit a Parquet export (`auditor export`) on Spark, without a store (--engine spark).")
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
def audit(db, threshold, control_seed, controls_dir, out, parquet, engine, master, spark_workdir, as_json, verbose,
          allow_empty):
    """Run the controls, then score every document against every other, and write the report.

    \b
    Exit 0 with a report; exit 2 (and a REFUSED report holding only the controls) when a
    control fails, when nothing can be audited, or when no control can be drawn from the
    corpus: no finding is ever reported by a detector that could not show it can see.
    """
    from auditor.report.pipeline import audit_job

    if engine == "spark":
        from auditor.extras import require_spark

        require_spark()
    command = " ".join(["auditor", *sys.argv[1:]])
    if parquet is not None:
        if engine != "spark" or db is not None:
            raise UsageError("--parquet audits an export on Spark: give --engine spark, and no --db")
        from auditor.report.from_parquet import parquet_job

        o = parquet_job(parquet, threshold, out=out, seed=control_seed, controls_dir=controls_dir,
                        command=command, master=master, workdir=spark_workdir, allow_empty=allow_empty)
    else:
        if db is None:
            raise UsageError("give --db (the store), or --engine spark --parquet DIR (an export)")
        with open_store(db) as store:
            o = audit_job(store, threshold, out=out, seed=control_seed, controls_dir=controls_dir,
                          command=command, engine=engine, master=master,
                          workdir=spark_workdir, allow_empty=allow_empty)
    r = o.report
    if as_json:
        click.echo(json_safe((o.directory / "report.json").read_text(encoding="utf-8")), nl=False)
    else:
        out_console_report(r, threshold, o.directory)
        if verbose:
            _every_pair(o.directory)
    err.print(f"report: {markup(o.directory / 'report.html')} (also report.md, report.json, findings.jsonl.gz, "
              "contained.jsonl.gz, documents.jsonl.gz" + (", texts/" if (o.directory / "texts").is_dir() else "") + ")",
              highlight=False)
    if o.refused:
        raise ControlsFailed("; ".join(r["refused_because"]) + f"; see {o.directory / 'report.md'}")


TOP_CONTAINED = 10
TOP_BOILERPLATE = 3


def out_console_report(r: dict, threshold: float, directory: Path) -> None:
    """The audit in a screenful: parameters, controls, counts, the top contained documents (read
    from the report's contained.jsonl.gz: report.json lists only the first of them)."""
    from auditor.report.build import most_contained_listed

    p = r["manifest"]["params"]
    out.print(f"parameters: k={p['k']}, 1 in {p['modulus']} sampled, hash {p['hash']}, seed {p['seed']}, "
              f"normalisation {p['normalization']}, threshold {p['threshold']}, interval {p['interval']}, "
              f"engine {r['manifest']['engine']}", highlight=False, soft_wrap=True)
    out.print(controls_table(r["controls"]))
    if r["status"] == "REFUSED":
        out.print("[bold red]REFUSED[/]: no finding is reported.")
        return
    s = r["summary"]
    from auditor.report.render.model import _pairs_text

    out.print(f"{_n(s['contained_documents'], 'contained document')} at >= {threshold} "
              f"({_pairs_text(s)}), "
              f"{_n(s['boilerplate_documents'], 'boilerplate document')}, {_n(s['families'], 'family')} "
              f"({_n(s['family_members'], 'member')}); {_n(s['documents'], 'document')} audited, "
              f"{s['not_auditable']} not auditable, {_n(s['duplicate_groups'], 'exact-duplicate group')}, "
              f"{_n(s['failed_inputs'], 'input')} failed to ingest", highlight=False)
    findings, boilerplate = most_contained_listed(directory, TOP_CONTAINED)
    if not findings:
        out.print(f"no document is contained in another at >= {threshold}"
                  + (f", apart from the members of {_n(s['families'], 'family')}, which contain one another"
                     if s["families"] else ""), highlight=False)
    elif s["contained_documents"] > TOP_CONTAINED:
        out.print(f"the {TOP_CONTAINED} contained documents with the most containers:", highlight=False)
    for f in findings:
        best = f["best"][0]
        out.print(f"  {_path(r, f['doc_id'])} in {_n(f['containers'], 'document')}; best "
                  f"{_path(r, best['container'])} {best['containment']:.4f} ({_where(r, best)})",
                  highlight=False, soft_wrap=True)
    if boilerplate:
        out.print(f"boilerplate: {_n(s['boilerplate_documents'], 'document')} contained in >= "
                  f"{p['boilerplate']['applied']} unrelated documents, e.g. "
                  + "; ".join(f"{_path(r, e['doc_id'])} ({e['containers']})" for e in boilerplate[:TOP_BOILERPLATE]),
                  highlight=False, soft_wrap=True)
    if s["not_auditable"]:
        out.print(f"not auditable: {_n(s['not_auditable'], 'document')} (listed with reasons in the report)",
                  highlight=False)
    if s.get("partly_read"):
        out.print(f"audited in part: {_n(s['partly_read'], 'document')} with pages that could not be read "
                  "(listed with their pages in the report)", highlight=False)


def _n(n: int, noun: str) -> str:
    from auditor.report.render.model import _n as counted

    return counted(n, noun)


def _path(r: dict, doc_id: int) -> str:
    """A document's name for a rich print: cleaned and markup-escaped."""
    from auditor.report.render.model import _name

    return markup(_name(r, doc_id))


def _where(r: dict, best: dict) -> str:
    from auditor.report.render.model import _where as where

    return markup(where(r, best))


def _every_pair(directory: Path) -> None:
    """Every containing pair of a written report, from its sidecars (``--verbose``)."""
    import gzip

    from auditor.report.build import read_documents

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


@click.command()
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

    from auditor.assembly import is_assembly
    from auditor.assembly import verify as verify_assembly
    from auditor.report.pipeline import verify as run

    assembly = is_assembly(report_dir)  # an assembled corpus (manifest.json), else a report
    with open_store(db) as store:
        v = verify_assembly(report_dir, store) if assembly else run(report_dir, store, controls_dir=controls_dir)
    if as_json:
        click.echo(json.dumps({"report": str(report_dir), **asdict(v)}, indent=2, sort_keys=True))
        sys.exit(0 if v.ok else 1)
    if v.ok:
        out.print(f"verified: {markup(report_dir)} matches a fresh {'assembly' if assembly else 'audit'} "
                  f"(digest {markup(v.stored_digest)})", highlight=False)
        for note in v.notes:
            out.print(f"note: {markup(note)}", highlight=False)
        return
    err.print(f"[bold red]NOT VERIFIED[/]: {markup(report_dir)}", highlight=False)
    for p in v.problems:
        err.print(f"  {markup(p)}", highlight=False)
    for note in v.notes:
        err.print(f"note: {markup(note)}", highlight=False)
    sys.exit(1)



@click.command()
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=Path("demo"),
              show_default=True, help="Where to write the demo corpus and its store.")
@click.option("--threshold", type=float, default=0.8, show_default=True, callback=check_threshold)
def demo(directory, threshold):
    """Build the bundled demo corpus, ingest it, run the controls and the audit, write the report."""
    from auditor.corpus.ingest import ingest as run_ingest
    from auditor.demo import write_corpus
    from auditor.report.pipeline import audit_job

    counts = write_corpus(directory / "corpus")
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
    out_console_report(o.report, threshold, o.directory)
    err.print(f"store: {markup(db)}\nreport: {markup(o.directory / 'report.html')} (also report.md, report.json)\n"
              f"re-check it: auditor verify {markup(o.directory)} --db {markup(db)}", highlight=False)
    if o.refused:
        raise ControlsFailed("; ".join(o.report["refused_because"]))

