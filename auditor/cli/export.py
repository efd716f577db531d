"""`auditor export`: the store as Parquet for a Spark cluster. All logic lives in
:mod:`auditor.engine.export`; the Spark audit itself is ``auditor audit --engine spark``.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from auditor.cli.common import db_option, err, open_store
from auditor.console import markup
from auditor.errors import UsageError


@click.command("export")
@db_option
@click.option("--parquet", "directory", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory to write documents/, sightings/, postings/, texts/ and params.json to.")
@click.option("--buckets", type=click.IntRange(min=1), default=None,
              help="Postings buckets (default: one per ~4 M postings).")
@click.option("--no-texts", is_flag=True, help="Leave out texts/ (the cluster then cannot verify exactly).")
@click.option("--overwrite", is_flag=True, help="Replace an existing export in DIRECTORY.")
@click.option("--json", "as_json", is_flag=True, help="Print the export counts as JSON.")
def export(db: Path, directory: Path, buckets: int | None, no_texts: bool, overwrite: bool, as_json: bool) -> None:
    """Export documents (with provenance), sampled postings and texts as Parquet.

    \b
    auditor export --db corpus.db --parquet corpus-parquet/
    spark-submit auditor/engine/spark_engine.py corpus-parquet/ result/   # see docs/how-to/spark.md
    """
    try:
        from auditor.engine.export import export_parquet
    except ImportError as e:
        from auditor.extras import SPARK_INSTALL

        raise UsageError(f"export needs pyarrow: {SPARK_INSTALL}") from e
    with open_store(db) as store:
        r = export_parquet(store, directory, buckets=buckets, texts=not no_texts, overwrite=overwrite)
    if as_json:
        click.echo(json.dumps(r.as_dict(), indent=2, sort_keys=True))
    else:
        err.print(f"exported {r.documents} documents, {r.postings} postings in {r.buckets} buckets, "
                  f"{r.texts} texts ({r.text_chars} characters) to {markup(r.directory)}", highlight=False)

