from auditor.cli import cli

cli()
