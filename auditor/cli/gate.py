"""`auditor gate`: the CI gate's options. All logic lives in :mod:`auditor.gating`."""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

import click

from auditor.cli.common import (
    err,
    memory_option,
    ocr_option,
    pdf_timeout_option,
    quiet_stdout,
    timeout_option,
    with_controls_options,
)
from auditor.console import clean, json_safe, markup
from auditor.errors import AuditorError, DiskFull, is_disk_full
from auditor.gating import (
    KINDS,
    GateCrashed,
    GateOptions,
    GateResult,
    doc_label,
    github_annotations,
    parse_fail_on,
    read_path_list,
    run_gate,
)

_file = click.Path(dir_okay=False, path_type=Path)


@click.command(name="gate")
@click.option("--db", "db", required=True, type=_file, envvar="AUDITOR_DB",
              help="The corpus store (must exist: build it with `auditor ingest`). Env: AUDITOR_DB.")
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--batch", help="Batch name (default: derived from the inputs, so a re-run is the same batch).")
@click.option("--source", help="Source label recorded with every sighting.")
@click.option("--deleted-list", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="File of paths (one per line) this change deletes or renames away: corpus documents "
                   "seen only there are not compared.")
@click.option("--dry-run", is_flag=True,
              help="Gate in a transaction that is rolled back at the end: the store is unchanged.")
@click.option("--fail-on", default="default", show_default=True, metavar="KINDS",
              help=f"Comma list of finding kinds that fail the gate ({', '.join(KINDS)}; or default: all but "
                   "redaction; all; none); the others are warnings.")
@click.option("--baseline", type=_file, help="JSON file of accepted findings (keyed by content hashes).")
@click.option("--update-baseline", is_flag=True, help="Add the current findings to --baseline (created if missing).")
@click.option("--reason", help="Reason recorded with entries added by --update-baseline.")
@click.option("--junit", type=_file, help="Write JUnit XML here.")
@click.option("--sarif", type=_file, help="Write SARIF 2.1.0 here.")
@click.option("--summary", type=_file, help="Write the Markdown summary here (also appended to $GITHUB_STEP_SUMMARY).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Report directory (default: reports/<run-id>/).")
@with_controls_options
@click.option("--workers", type=int, default=0, show_default=True, help="Ingest worker processes (0: one per core, at most 2).")
@pdf_timeout_option
@ocr_option
@timeout_option
@memory_option
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds for ingesting the whole batch: inputs not processed by then are ingest "
                   "errors, so the gate fails and its batch is rolled back.")
@click.option("--retry-failed", is_flag=True,
              help="Try again inputs that failed before with the same bytes (they are tried again anyway "
                   "when the tool version or the limits changed since).")
@click.option("--render", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Render each new document (Chromium, LibreOffice, pdfium) and check the extraction against "
                   "what the renderer shows: auto renders the formats whose renderer is installed, always fails "
                   "closed where none is.")
@click.option("--json", "as_json", is_flag=True, help="Print gate.json to stdout (and no annotations).")
def gate(db: Path, inputs: tuple[Path, ...], deleted_list: Path | None, batch: str | None, source: str | None, dry_run: bool, fail_on: str,
         baseline: Path | None, update_baseline: bool, reason: str | None, junit: Path | None, sarif: Path | None,
         summary: Path | None, out: Path | None, threshold: float, control_seed: int, controls_dir: Path | None,
         workers: int, pdf_timeout: float, ocr: str, timeout: float, memory_mb: int, budget: float | None,
         retry_failed: bool, render: str, as_json: bool) -> None:
    """Gate a new batch: exit 1 if a new document is contained in, contains or duplicates a
    corpus document (or another new one), 2 on error or failed controls, else 0.

    \b
    auditor gate --db corpus.db --dry-run --sarif gate.sarif --junit gate.xml new-filings/
    """
    from auditor.extract import Limits

    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    opts = GateOptions(
        db=db, inputs=list(inputs), deleted=read_path_list(deleted_list) if deleted_list else [], batch=batch, source=source, dry_run=dry_run,
        fail_on=parse_fail_on(fail_on), baseline=baseline, update_baseline=update_baseline, reason=reason,
        threshold=threshold, control_seed=control_seed, controls_dir=controls_dir, out=out,
        junit=junit, sarif=sarif, summary=summary, step_summary=Path(step_summary) if step_summary else None,
        workers=workers, retry_failed=retry_failed, render=render, command=" ".join(["auditor", *sys.argv[1:]]),
        limits=Limits(pdf_timeout=pdf_timeout, timeout=timeout, memory=memory_mb * 2**20, budget=budget, ocr=ocr),
    )
    try:
        g = run_gate(opts)
    except AuditorError:
        raise
    except Exception as e:  # a crash must exit 2, not 1 ("findings"), so CI never misreads it
        if is_disk_full(e):
            raise DiskFull(f"no space left on the device: {e}; the store is intact: free some space "
                           "and run the gate again") from e
        traceback.print_exc()
        raise GateCrashed(f"internal error: {type(e).__name__}: {e}") from e
    try:
        if as_json:
            click.echo(json_safe(json.dumps(g.as_dict(), indent=2, sort_keys=True, ensure_ascii=False, default=str)))
        else:
            if os.environ.get("GITHUB_ACTIONS") == "true":
                for line in github_annotations(g, Path.cwd()):
                    click.echo(line)
            _print(g)
    except BrokenPipeError:  # `auditor gate ... | head`: the verdict's exit code still holds
        quiet_stdout()
    if g.report_dir:
        err.print(f"report: {markup(g.report_dir / 'report.html')} (also report.md, report.json, gate.json)",
                  highlight=False)
    for name, path in sorted(g.files.items()):
        if name != "gate.json":
            err.print(f"{markup(name)}: {markup(path)}", highlight=False)
    error = g.error()
    if error is not None:
        raise error
    sys.exit(g.exit_code)



def _print(g: GateResult) -> None:
    """The result for a CI log; every line cleaned (names come from the batch submitter)."""

    def echo(line: str) -> None:
        click.echo(clean(line))

    for f in g.findings:
        tag = {"error": "FAIL", "warning": "WARN", "baselined": "BASELINED"}[f.level]
        echo(f"{tag} {f.kind} ({f.rule}): {f.sentence()}")
        echo(f"  new:   {doc_label(f.new, full_sha=True)}")
        if f.other:
            echo(f"  other: {doc_label(f.other, full_sha=True)}")
        if f.spans:
            sp = f.spans[0]
            echo(f"  where: chars {sp['start']}-{sp['end']} of the container"
                 + (f", pages {sp['pages'][0]}-{sp['pages'][1]}" if sp.get("pages") else "")
                 + (f" (and {len(f.spans) - 1} more spans)" if len(f.spans) > 1 else ""))
        if f.baseline_reason:
            echo(f"  baselined: {f.baseline_reason}")
    for e in g.stale:
        echo(f"STALE baseline entry {e['rule']} {e.get('contained_path') or e['contained_sha256']}: "
             "the store no longer holds this document")
    for d in g.withdrawn:
        echo(f"replaced or deleted by this change, not compared: {doc_label(d)}")
    for note in g.notes:
        echo(f"note: {note}")
    if g.refused_because:
        echo("controls failed: " + "; ".join(g.refused_because))
    c = g.counts
    echo(f"gate {g.status}: batch {g.batch}, new documents {c['new_documents']}, failing {c['failing']}, "
         f"warnings {c['warnings']}, baselined {c['baselined']}, ingest errors {c['ingest_errors']}, "
         f"stale baseline entries {c['stale_baseline_entries']}, short {c['short_documents']}, "
         f"parts read as data {c['data_parts']}")
