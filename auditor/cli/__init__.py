"""The ``auditor`` command: each subcommand parses options, calls one library function and
formats its result.

One module per command group; :mod:`auditor.cli.common` holds what they share (consoles, the
``--db`` and controls options, and the root group that turns errors into exit codes) and imports
none of them. This module builds the root group and registers every command.
"""

from __future__ import annotations

import click

from auditor import __version__
from auditor.cli import assemble, audit, corpus, export, gate, gather, neardup, query, review
from auditor.cli.common import AuditorGroup


@click.group(cls=AuditorGroup)
@click.version_option(__version__, prog_name="auditor")
def cli() -> None:
    """Find documents wholly contained in other documents of a legal or regulatory corpus.

    \b
    auditor ingest --db corpus.db filings/ contracts/
    auditor audit --db corpus.db
    """


for _command in (
    corpus.ingest, corpus.stats, corpus.show, corpus.withdraw, corpus.index, corpus.check,
    audit.controls, audit.audit, audit.verify, audit.demo,
    query.query, query.compare, gather.gather,
    gate.gate,
    neardup.near_dups, neardup.lsh_curve,
    export.export,
    review.runs, review.findings, review.browse,
    assemble.assemble,
):
    cli.add_command(_command)

__all__ = ["cli"]
