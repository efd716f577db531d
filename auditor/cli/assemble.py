"""`auditor assemble`: a keep/drop plan and the deduplicated corpus from an audit run. All logic
lives in :mod:`auditor.assembly`; ``auditor verify DIR`` checks the result.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from auditor.cli.common import err, exit_if_bad_dates, open_store, report_dates
from auditor.console import clean, json_safe, markup
from auditor.errors import UsageError


def _sources(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...]:
    return tuple(s.strip() for s in value.split(",") if s.strip()) if value else ()


@click.command("assemble")
@click.option("--db", "db", type=click.Path(dir_okay=False, path_type=Path), envvar="AUDITOR_DB",
              help="The SQLite store. Env: AUDITOR_DB. Not with --parquet.")
@click.option("--parquet", "parquet", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Assemble from a Parquet export and the audit run recorded in it (`auditor audit "
                   "--engine spark --parquet DIR`), without a store (--engine spark). The corpus is Parquet.")
@click.option("--engine", type=click.Choice(["sqlite", "spark"]), default="sqlite", show_default=True,
              help="spark: with --parquet, from an export, on Spark (the plan and the corpus are made on the "
                   "executors).")
@click.option("--master", default="local[*]", show_default=True,
              help="Spark master URL, with --engine spark (local[*]: every core here). --out must then be a "
                   "directory every executor sees at the same path: they write the corpus there.")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory for plan.jsonl, the corpus, changes.jsonl and manifest.json.")
@click.option("--run", "run_id", help="Audit run id (default: the latest audit run).")
@click.option("--survivor", metavar="POLICY[,POLICY...]",
              help="Copy kept of a duplicate group or family: earliest ingested (default), newest (latest "
                   "date: supplied, metadata, stated in the text, file time), source (with --prefer-source) "
                   "or largest (most words); several, comma-separated, apply in order (newest,source). Ties "
                   "go to richer provenance, then ingest order.")
@click.option("--prefer-source", callback=_sources, help="Source order for --survivor source, e.g. edgar,data-room "
              "(implies --survivor source).")
@click.option("--contained", type=click.Choice(["drop", "keep"]), default="drop", show_default=True,
              help="Drop a document contained in a kept one, or keep it.")
@click.option("--boilerplate", type=click.Choice(["keep-once", "drop"]), default="keep-once", show_default=True,
              help="Boilerplate documents (contained in many unrelated documents): keep one canonical copy, "
                   "or drop like any contained document.")
@click.option("--exhibits", type=click.Choice(["dedupe", "separate"]), default="dedupe", show_default=True,
              help="EDGAR exhibits: like any document, or kept as separate documents even when contained "
                   "in a kept one (their copies are still dropped).")
@click.option("--min-novel", type=click.FloatRange(0, 1, min_open=True),
              help="Also drop a kept document whose novel share (shingles found in no other kept document) "
                   "is below this, as covered-by the kept documents of its cover (auditor gather's).")
@click.option("--dates", "dates_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Dates supplied for the copies first (CSV or JSON Lines of path or sha256 and date; "
                   "recorded in the store as `auditor dates` does).")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "parquet"]), default="jsonl", show_default=True,
              help="corpus.jsonl.gz, or corpus.parquet (needs pyarrow: the [assemble-parquet] extra).")
@click.option("--previous", type=click.Path(exists=True, path_type=Path),
              help="A previous plan (plan.jsonl or its directory): write what changed to changes.jsonl.")
@click.option("--json", "as_json", is_flag=True, help="Print manifest.json.")
def assemble(db: Path | None, parquet: Path | None, engine: str, master: str, out: Path, run_id: str | None, survivor: str | None, prefer_source: tuple[str, ...],
             contained: str, boilerplate: str, exhibits: str, min_novel: float | None, dates_file: Path | None,
             fmt: str,
             previous: Path | None, as_json: bool) -> None:
    """Keep or drop every stored document, with a reason, and write the kept documents' texts.

    \b
    auditor assemble --db corpus.db --out corpus/ --prefer-source edgar,data-room
    auditor assemble --db corpus.db --out corpus/ --survivor newest
    auditor verify corpus/ --db corpus.db
    auditor assemble --engine spark --parquet export/ --out corpus/

    Every document dropped as contained-in, duplicate-of, near-duplicate-of or superseded-by (an
    older version) names the document kept in its place, and every plan line shows the dates
    behind it. Exit 2 when the audit run was REFUSED, is not an audit run, or did not cover
    every stored document (audit again), or when a line of --dates FILE cannot be read (after
    writing).
    """
    from auditor.assembly import Policy, summary_lines
    from auditor.assembly import assemble as run

    policy = Policy(survivor=(survivor or "").replace(" ", "") or ("source" if prefer_source else "earliest"),
                    prefer_source=prefer_source, contained=contained, boilerplate=boilerplate,
                    exhibits=exhibits, min_novel=min_novel)
    if parquet is not None or engine == "spark":
        if parquet is None or engine != "spark" or db is not None:
            raise UsageError("--parquet assembles from an export: give --engine spark --parquet DIR, and no --db")
        if dates_file is not None:
            raise UsageError("--dates records dates in a store; an export is read only: give the dates to "
                             "the store, export it again, then assemble")
        from auditor.assembly import assemble_parquet

        a = assemble_parquet(parquet, out, run=run_id, policy=policy, previous=previous, master=master)
    elif db is None:
        raise UsageError("give --db (the store), or --engine spark --parquet DIR (an export)")
    else:
        with open_store(db) as store:
            a = run(store, out, run=run_id, policy=policy, format=fmt, previous=previous, dates=dates_file)
    if a.dates is not None:
        report_dates(a.dates)
    if as_json:
        click.echo(json_safe((a.directory / "manifest.json").read_text()), nl=False)
    else:
        for line in summary_lines(a.manifest):
            click.echo(clean(line))
    err.print(f"plan: {markup(a.directory / 'plan.jsonl')}; corpus: "
              f"{markup(a.directory / a.manifest['corpus']['file'])}; digest {a.manifest['digest']}\n"
              + (f"re-check it: auditor verify {markup(a.directory)} --db {markup(db)}" if db else
                 "from an export: no store to verify it against"), highlight=False)
    sys.stdout.flush()
    exit_if_bad_dates(a.dates)
