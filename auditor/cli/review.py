"""`auditor runs`, `auditor findings`, `auditor browse`: reviewing past runs. The logic lives
in :mod:`auditor.report.review`.
"""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import click
from rich.console import JustifyMethod
from rich.table import Table

from auditor.cli.common import db_option, err, open_store, out
from auditor.console import clean, json_safe, markup, text
from auditor.errors import UsageError


@click.command(name="runs")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Every run as JSON.")
def runs(db, as_json):
    """Audits, gates and near-duplicate runs recorded in the store, newest first: status,
    scope, counts and report directory.

    \b
    auditor runs --db corpus.db
    """
    from auditor.report.review import list_runs

    with open_store(db) as store:
        rows = list_runs(store)
    if as_json:
        click.echo(json_safe(json.dumps(rows, indent=2, sort_keys=True, ensure_ascii=False)))
        return
    if not rows:
        out.print("no run is recorded in this store (run `auditor audit`)", highlight=False)
        return
    t = Table(title=f"runs in {markup(db)}")
    for c, justify in (("id", "right"), ("run", "left"), ("kind", "left"), ("status", "left"),
                       ("started", "left"), ("scope", "left"), ("documents", "right"),
                       ("contained", "right"), ("pairs", "right"), ("boilerplate", "right"),
                       ("families", "right"), ("report", "left")):
        t.add_column(c, justify=justify, overflow="fold")
    for r in rows:
        scope = r["scope"] or ""
        if r["batch"]:
            scope = f"batch {r['batch']}" + (f" ({r['outcome']})" if r["outcome"] else "")
        t.add_row(*(text("" if v is None else v) for v in (
            r["id"], r["run_id"], r["kind"], r["status"], r["started"], scope, r["documents"], r["contained"],
            r["pairs"], r["boilerplate"], r["families"], r["report_dir"])))
    out.print(t)


@click.command(name="findings")
@db_option
@click.option("--run", "run", help="Run id or number (default: the latest audit or gate run with findings).")
@click.option("--min-score", type=click.FloatRange(0, 1), help="Only pairs with containment at least this.")
@click.option("--document", help="Only pairs with this document on either side (id, sha256 prefix, path or file name).")
@click.option("--batch", help="Only pairs with a document seen in this batch (`auditor stats` lists them).")
@click.option("--source", help="Only pairs with a document ingested with this --source label.")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table", show_default=True)
@click.option("--limit", type=click.IntRange(min=1), help="At most this many pairs.")
def findings(db, run, min_score, document, batch, source, fmt, limit):
    """A run's containing pairs, one row per pair, highest containment first, with the
    sources (`ingest --source`) each document was seen with.

    \b
    auditor findings --db corpus.db
    auditor findings --db corpus.db --source doctor-pdf
    auditor findings --db corpus.db --min-score 0.95 --batch vendor-2024 --format csv > pairs.csv
    auditor findings --db corpus.db --document filings/10-K.txt --format json

    Spans (character offsets into the container's text, `auditor show --text`) are recorded
    for each contained document's best containers. Exit 2 if the run, document, batch or
    source is unknown.
    """
    from auditor.report.review import FINDING_COLUMNS, count_findings, spans_text
    from auditor.report.review import findings as select

    with open_store(db) as store:
        rows = select(store, run, min_score=min_score, document=document, batch=batch, source=source,
                      limit=limit)
        if fmt == "json":
            click.echo("[", nl=False)
            for i, r in enumerate(rows):
                click.echo(("," if i else "") + "\n  " + json_safe(json.dumps(r, sort_keys=True, ensure_ascii=False)),
                           nl=False)
            click.echo("\n]")
        elif fmt == "csv":  # exact values for a file or a pipe; on a terminal, names made harmless
            shown = clean if sys.stdout.isatty() else str
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(FINDING_COLUMNS)
            for r in rows:
                w.writerow([spans_text(r["spans"]) if k == "spans" else
                            shown("; ".join(r[k])) if isinstance(r[k], list) else
                            shown(r[k]) if isinstance(r[k], str) else r[k] for k in FINDING_COLUMNS])
        else:
            shown = list(rows)
            total = count_findings(store, run, min_score=min_score, document=document, batch=batch,
                                   source=source) if limit is not None and len(shown) == limit else len(shown)
            _findings_table(shown, total)


def _findings_table(rows: list[dict], total: int) -> None:
    if not rows:
        out.print("no containing pair matches", highlight=False)
        return
    what = f"{total} containing pair{'s' if total != 1 else ''}"
    title = what if total == len(rows) else f"the first {len(rows)} of {what} (--limit)"
    t = Table(title=f"run {markup(rows[0]['run_id'])}: {title}")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("contained", "left"), ("container", "left"), ("containment", "right"), ("estimate [95%]", "right"),
        ("family", "right"), ("spans", "left"))
    for c, justify in columns:
        t.add_column(c, justify=justify, overflow="fold")
    from auditor.report.review import spans_text

    def sources(labels: list[str]) -> str:
        return f" [{', '.join(labels)}]" if labels else ""

    for r in rows:
        t.add_row(text(f"{r['contained_id']} {r['contained']}{sources(r['contained_sources'])}"
                       + (" (boilerplate)" if r["boilerplate"] else "")),
                  text(f"{r['container_id']} {r['container']}{sources(r['container_sources'])}"),
                  f"{r['containment']:.4f}",
                  f"{r['estimate']:.4f} [{r['low']:.3f}, {r['high']:.3f}]",
                  "" if r["family"] is None else str(r["family"]), spans_text(r["spans"]))
    out.print(t)


@click.command(name="browse")
@db_option
@click.option("--port", type=click.IntRange(1, 65535), default=8001, show_default=True)
def browse(db, port):
    """Open the store in Datasette on 127.0.0.1 (read-only), with table and column descriptions
    and canned queries: the latest run's findings, a document's findings, boilerplate, failed
    inputs, runs. Needs the [browse] extra. Stop it with Ctrl-C.

    \b
    auditor browse --db corpus.db --port 8001    # then open http://127.0.0.1:8001/
    """
    from auditor.report.review import (
        DATASETTE_PLUGIN,
        datasette_command,
        datasette_metadata,
        datasette_missing,
    )

    why = datasette_missing()
    if why:
        raise UsageError(why)
    with open_store(db):  # a clear error for a missing or unusable store, before the server starts
        pass
    with tempfile.TemporaryDirectory(prefix="auditor-browse-") as tmp:
        meta = Path(tmp) / "metadata.json"
        meta.write_text(json.dumps(datasette_metadata(db), indent=2), encoding="utf-8")
        plugins = Path(tmp) / "plugins"
        plugins.mkdir()
        (plugins / "auditor_sql.py").write_text(DATASETTE_PLUGIN, encoding="utf-8")
        err.print(f"Datasette: http://127.0.0.1:{port}/ (Ctrl-C to stop)", highlight=False, markup=False)
        server = subprocess.Popen(datasette_command(db, meta, port, plugins=plugins))
        # stopping this command stops the server: SIGTERM is passed on (Ctrl-C reaches both)
        signal.signal(signal.SIGTERM, lambda *_: server.terminate())
        try:
            code = server.wait()
        except KeyboardInterrupt:
            server.terminate()
            code = server.wait()
    sys.exit(0 if code in (0, -signal.SIGINT, -signal.SIGTERM, 130) else 2)
