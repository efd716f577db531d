"""The ``auditor`` command: each subcommand parses options, calls one library function and
formats its result.

One module per command group; :mod:`auditor.cli.common` holds what they share (consoles, the
``--db`` and controls options, and the root group that turns errors into exit codes) and imports
none of them. This module builds the root group and names every command's module: a command's
module (and the library behind it) is imported only when that command runs, so `auditor gate`
does not pay for the near-duplicate measures or Spark, and `auditor --help` lists them all.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from auditor import __version__
from auditor.cli.common import AuditorGroup

COMMANDS = {
    "ingest": "corpus.ingest", "dates": "corpus.dates", "stats": "corpus.stats", "show": "corpus.show", "withdraw": "corpus.withdraw",
    "index": "corpus.index", "check": "corpus.check",
    "controls": "audit.controls", "audit": "audit.audit", "verify": "audit.verify", "demo": "audit.demo",
    "query": "query.query", "compare": "query.compare", "gather": "gather.gather",
    "gate": "gate.gate",
    "near-dups": "neardup.near_dups", "lsh-curve": "neardup.lsh_curve",
    "export": "export.export",
    "runs": "review.runs", "findings": "review.findings", "browse": "review.browse",
    "assemble": "assemble.assemble",
}
"""Command name -> ``module.attribute`` under :mod:`auditor.cli`."""


class LazyGroup(AuditorGroup):
    """Loads a command's module when the command is asked for (click's documented lazy group).
    ``commands`` (what introspection reads) loads them all; running one loads only its own."""

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        for name in COMMANDS:
            self._load(name)
        return self._loaded

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._loaded = value

    def _load(self, name: str) -> None:
        if name in COMMANDS and name not in self._loaded:
            module, attr = COMMANDS[name].rsplit(".", 1)
            self._loaded[name] = getattr(importlib.import_module(f"auditor.cli.{module}"), attr)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self._loaded, *COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> Any:
        self._load(name)
        return self._loaded.get(name)


@click.group(cls=LazyGroup)
@click.version_option(__version__, prog_name="auditor")
def cli() -> None:
    """Find documents wholly contained in other documents of a legal or regulatory corpus.

    \b
    auditor ingest --db corpus.db filings/ contracts/
    auditor audit --db corpus.db
    """


__all__ = ["cli"]
