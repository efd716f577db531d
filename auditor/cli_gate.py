"""`auditor gate`: placeholder, replaced by the gate implementation."""

from __future__ import annotations

import click


@click.command()
def gate() -> None:
    """Gate a new source batch (not implemented yet)."""
    raise click.ClickException("not implemented yet")
