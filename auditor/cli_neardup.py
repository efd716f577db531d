"""`auditor near-dups`: placeholder, replaced by the near-duplicate command."""

from __future__ import annotations

import click


@click.command("near-dups")
def near_dups() -> None:
    """List near-duplicate pairs or clusters (not implemented yet)."""
    raise click.ClickException("not implemented yet")
