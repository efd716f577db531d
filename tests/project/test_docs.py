"""The documentation covers the command line: every command of ``auditor`` and every option
name of each is in the generated CLI reference (docs/reference/cli.md, written by cog from the
commands; ``cog --check`` in .ci/run says when it is stale)."""

from __future__ import annotations

import re
from pathlib import Path

import click

from auditor.cli import cli

ROOT = Path(__file__).resolve().parents[2]
CLI_PAGE = ROOT / "docs" / "reference" / "cli.md"


def sections(page: str) -> dict[str, str]:
    """``auditor NAME`` -> the text of its section (up to the next heading of its level)."""
    parts = re.split(r"^## (auditor(?: [\w-]+)?)\s*$", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def undocumented(group: click.Group, page: str) -> list[str]:
    """Every command of ``group`` without a section, and every option name (``--db``, ``-q``,
    ``--no-texts``...) missing from its command's section."""
    found = sections(page)
    ctx = click.Context(group, info_name="auditor")
    missing = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        text = found.get(f"auditor {name}")
        if text is None:
            missing.append(f"auditor {name}")
            continue
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in (*param.opts, *param.secondary_opts):
                    if not re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", text):
                        missing.append(f"auditor {name} {opt}")
            elif param.human_readable_name not in text:
                missing.append(f"auditor {name} {param.human_readable_name}")
    return missing


def test_every_command_and_option_is_in_the_cli_reference():
    page = CLI_PAGE.read_text(encoding="utf-8")
    assert not undocumented(cli, page), "regenerate the page: .venv/bin/cog -r docs/reference/cli.md"
    assert len(sections(page)) == len(cli.list_commands(click.Context(cli))) + 1  # and the root's


def test_an_undocumented_command_or_option_is_named():
    """The check is not vacuous: a command or an option the page lacks is reported, by name."""
    @click.group()
    def group():
        pass

    @group.command("ingest")
    @click.option("--db")
    @click.option("--sync/--no-sync")
    @click.argument("inputs", nargs=-1)
    def ingest(db, sync, inputs):
        pass

    @group.command("audit")
    def audit():
        pass

    page = "## auditor ingest\n\n```text\n  --db TEXT\n  --sync / --no-sync\n  INPUTS\n```\n"
    assert undocumented(group, page) == ["auditor audit"]
    assert undocumented(group, page.replace("--no-sync", "")) == ["auditor audit", "auditor ingest --no-sync"]
    # "--db" inside "--dbx" or "--db-path" is not "--db"
    assert "auditor ingest --db" in undocumented(group, page.replace("--db TEXT", "--db-path TEXT"))
    assert undocumented(group, page + "## auditor audit\n") == []


def test_the_readme_stays_short():
    """The README is the front page; the details live in the docs site (docs/)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines: move details into docs/"
