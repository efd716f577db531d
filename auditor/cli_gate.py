"""`auditor gate`: the CI gate's options. All logic lives in :mod:`auditor.gate`.

Import :mod:`auditor.cli` (which registers this command), not this module first: it takes the
shared ``--db`` and controls options from there.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from auditor.cli import db_option, err, with_controls_options
from auditor.gate import KINDS, GateOptions, annotations, doc_label, parse_fail_on, run_gate

_file = click.Path(dir_okay=False, path_type=Path)


@click.command()
@db_option
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--batch", help="Batch name (default: derived from the inputs, so a re-run is the same batch).")
@click.option("--source", help="Source label recorded with every sighting.")
@click.option("--dry-run", is_flag=True,
              help="Ingest into a throwaway copy of the store (SQLite backup API): the store is unchanged.")
@click.option("--fail-on", default="all", show_default=True, metavar="KINDS",
              help=f"Comma list of finding kinds that fail the gate ({', '.join(KINDS)}; or all, none); "
                   "the others are warnings.")
@click.option("--baseline", type=_file, help="JSON file of accepted findings (keyed by content hashes).")
@click.option("--update-baseline", is_flag=True, help="Add the current findings to --baseline (created if missing).")
@click.option("--reason", help="Reason recorded with entries added by --update-baseline.")
@click.option("--junit", type=_file, help="Write JUnit XML here.")
@click.option("--sarif", type=_file, help="Write SARIF 2.1.0 here.")
@click.option("--summary", type=_file, help="Write the Markdown summary here (also appended to $GITHUB_STEP_SUMMARY).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Report directory (default: reports/<run-id>/).")
@with_controls_options
@click.option("--workers", type=int, default=0, show_default=True, help="Ingest worker processes (0: one per core).")
@click.option("--pdf-timeout", type=float, default=120, show_default=True, help="Seconds per PDF.")
@click.option("--json", "as_json", is_flag=True, help="Print gate.json to stdout (and no annotations).")
def gate(db, inputs, batch, source, dry_run, fail_on, baseline, update_baseline, reason, junit, sarif,
         summary, out, threshold, control_seed, controls_dir, workers, pdf_timeout, as_json):
    """Gate a new batch: exit 1 if a new document is contained in, contains or duplicates a
    corpus document (or another new one), 2 on error or failed controls, else 0.

    \b
    auditor gate --db corpus.db --dry-run --sarif gate.sarif --junit gate.xml new-filings/
    """
    from auditor.extract import Limits

    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    opts = GateOptions(
        db=db, inputs=list(inputs), batch=batch, source=source, dry_run=dry_run,
        fail_on=parse_fail_on(fail_on), baseline=baseline, update_baseline=update_baseline, reason=reason,
        threshold=threshold, control_seed=control_seed, controls_dir=controls_dir, out=out,
        junit=junit, sarif=sarif, summary=summary, step_summary=Path(step_summary) if step_summary else None,
        workers=workers, limits=Limits(pdf_timeout=pdf_timeout), command=" ".join(["auditor", *sys.argv[1:]]),
    )
    g = run_gate(opts)
    if as_json:
        click.echo(json.dumps(g.as_dict(), indent=2, sort_keys=True, ensure_ascii=False, default=str))
    else:
        if os.environ.get("GITHUB_ACTIONS") == "true":
            for line in annotations(g, Path.cwd()):
                click.echo(line)
        _print(g)
    if g.report_dir:
        err.print(f"report: {g.report_dir / 'report.html'} (also report.md, report.json, gate.json)", highlight=False)
    for name, path in sorted(g.files.items()):
        if name != "gate.json":
            err.print(f"{name}: {path}", highlight=False)
    error = g.error()
    if error is not None:
        raise error
    sys.exit(g.exit_code)


def _print(g) -> None:
    for f in g.findings:
        tag = {"error": "FAIL", "warning": "WARN", "baselined": "BASELINED"}[f.level]
        click.echo(f"{tag} {f.kind} ({f.rule}): {f.sentence()}")
        click.echo(f"  new:   {doc_label(f.new, full_sha=True)}")
        if f.other:
            click.echo(f"  other: {doc_label(f.other, full_sha=True)}")
        if f.spans:
            sp = f.spans[0]
            click.echo(f"  where: chars {sp['start']}-{sp['end']} of the container"
                       + (f", pages {sp['pages'][0]}-{sp['pages'][1]}" if sp.get("pages") else "")
                       + (f" (and {len(f.spans) - 1} more spans)" if len(f.spans) > 1 else ""))
        if f.baseline_reason:
            click.echo(f"  baselined: {f.baseline_reason}")
    for e in g.stale:
        click.echo(f"STALE baseline entry {e['rule']} {e.get('contained_path') or e['contained_sha256']}: "
                   "the store no longer holds this document")
    for note in g.notes:
        click.echo(f"note: {note}")
    if g.refused_because:
        click.echo("controls failed: " + "; ".join(g.refused_because))
    c = g.counts
    click.echo(f"gate {g.status}: batch {g.batch}, {c['new_documents']} new documents, {c['failing']} failing, "
               f"{c['warnings']} warnings, {c['baselined']} baselined, {c['ingest_errors']} ingest errors, "
               f"{c['stale_baseline_entries']} stale baseline entries")
