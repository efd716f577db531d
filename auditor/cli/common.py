"""What every ``auditor`` command shares: the consoles, the root group's error handling (errors
become exit codes here and nowhere else), the ``--db`` and controls options, and output helpers.

Exit codes: 0 success, 1 findings (gate) or a handled failure, 2 usage, input or store error,
failed controls. This module imports no command module, so any command module can import it.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from auditor.console import clean, markup, text
from auditor.errors import AuditorError, ControlsFailed, Interrupted, is_disk_full
from auditor.store.db import Store

UNLIMITED = 100_000  # columns: wider than any line printed


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """A closed pipe (``| head``) ends the command the same way whatever printed into it
        (rich's own handling exits 1, which means findings to a gate's caller)."""
        self.quiet = True
        raise BrokenPipeError


def _console(stderr: bool = False) -> Console:
    """Rich output at the terminal's width; in a pipe or a CI log (and with no $COLUMNS), no width
    limit, so tables and paths are never cut or wrapped."""
    stream = sys.stderr if stderr else sys.stdout
    tty = stream is not None and stream.isatty()
    return _Console(stderr=stderr, width=None if tty or "COLUMNS" in os.environ else UNLIMITED, emoji=False)


# Data printed through these consoles goes through auditor.console (markup(), text()): names
# and texts come from batch submitters and must neither drive the terminal nor be read as markup.
err = _console(stderr=True)
out = _console()


def _interrupted(signum: int, frame: object) -> None:
    """SIGINT and SIGTERM unwind as :class:`Interrupted`, so that open transactions roll back and
    cleanups run (batch status, the gate's artefacts), and the command exits 2, never 1."""
    raise Interrupted(signal.Signals(signum).name)


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's flush at exit does not raise again
    on the closed pipe (the Python documentation's advice for SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class AuditorGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _interrupted)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _interrupted)
        try:
            return super().invoke(ctx)
        except ControlsFailed as e:  # messages are text, not markup: "[spark]" must survive
            err.print(f"[bold red]controls failed[/]: {markup(e, keep_newlines=True)}", highlight=False)
            sys.exit(2)
        except AuditorError as e:
            err.print(f"[bold red]error[/]: {markup(e, keep_newlines=True)}", highlight=False)
            sys.exit(2)
        except click.ClickException as e:  # its message may quote a hostile file name
            message = e.format_message
            e.format_message = lambda: clean(message(), keep_newlines=True)  # type: ignore[method-assign]
            raise
        except BrokenPipeError:  # `auditor findings ... | head`: the reader has what it wanted
            quiet_stdout()
            sys.exit(128 + signal.SIGPIPE)  # as a shell reports a process a closed pipe stopped; never 0
        except KeyboardInterrupt as e:  # Interrupted, or Ctrl-C before the handler was set
            name = getattr(e, "signal_name", "SIGINT")
            err.print(f"[bold red]interrupted[/] by {name}: what was committed before is kept, the write in "
                      "progress was rolled back; run the command again (ingest resumes where it stopped)",
                      highlight=False)
            sys.exit(2)
        except (click.exceptions.Exit, SystemExit):
            raise
        except Exception as e:  # a bug: exit 2, never 1 (which means "findings" to a CI gate)
            if is_disk_full(e):
                err.print(f"[bold red]error[/]: no space left on the device: {markup(e)}; what was stored "
                          "before is intact (every write is one transaction): free some space and run "
                          "the command again", highlight=False)
                sys.exit(2)
            err.print_exception() if os.environ.get("AUDITOR_DEBUG") else None
            err.print(f"[bold red]internal error[/]: {markup(type(e).__name__)}: {markup(e, keep_newlines=True)} "
                      "(set AUDITOR_DEBUG=1 for the traceback)", highlight=False)
            sys.exit(2)


db_option = click.option(
    "--db", "db", required=True, type=click.Path(dir_okay=False, path_type=Path),
    envvar="AUDITOR_DB", help="The SQLite store (it must exist: `auditor ingest` creates it). Env: AUDITOR_DB.",
)
new_db_option = click.option(
    "--db", "db", required=True, type=click.Path(dir_okay=False, path_type=Path),
    envvar="AUDITOR_DB", help="The SQLite store, created if missing. Env: AUDITOR_DB.",
)
WORKERS_HELP = "Worker processes (0: one per core, at most 2)."


# The extraction limits `ingest` and `gate` both take (fields of auditor.extract.Limits).
pdf_timeout_option = click.option("--pdf-timeout", type=float, default=120, show_default=True,
                                  help="Seconds per PDF.")
timeout_option = click.option(
    "--timeout", type=click.FloatRange(min=0, min_open=True), default=300, show_default=True,
    help="Seconds per input file, all its parts and PDFs included (the extraction is then killed).")
ocr_option = click.option(
    "--ocr", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
    help="OCR of PDF pages (Tesseract over a 300 dpi rendering): auto reads the pages whose text layer "
         "misses what they show (scans, text drawn as outlines or pictures); always every page; never none "
         "(such pages are then recorded as not read).")
memory_option = click.option("--memory-mb", type=click.IntRange(min=64), default=1024, show_default=True,
                             help="Memory limit of the process extracting each input.")

def open_store(db: Path, create: bool = False) -> Store:
    return Store(db, create=create)


def check_threshold(ctx, param, value):
    if not 0 < value <= 1:
        raise click.BadParameter("must be in (0, 1]")
    return value


def controls_table(controls: list[dict]) -> Table:
    t = Table(title="controls (run through the same path as the corpus)")
    for column in ("control", "kind", "source", "score", "bound", "found", "result"):
        t.add_column(column)
    for c in controls:
        t.add_row(text(c["name"]), text(c["kind"]), text(c["source"]), f"{c['score']:.4f}", text(f"{c['operator']} {c['expected']:.4f}"),
                  "yes" if c["found"] else "no", "[green]pass[/]" if c["passed"] else "[bold red]FAIL[/]")
    return t


controls_options = [
    click.option("--threshold", type=float, default=0.8, show_default=True, callback=check_threshold,
                 help="Containment at or above which a document is reported as contained."),
    click.option("--control-seed", type=int, default=0, show_default=True,
                 help="Seed for choosing the corpus-drawn controls."),
    click.option("--controls-dir", type=click.Path(file_okay=False, exists=True, path_type=Path),
                 help="Fixture controls (default: $AUDITOR_CONTROLS, else those installed with the package)."),
]


def with_controls_options(f):
    for opt in reversed(controls_options):
        f = opt(f)
    return f


def doc_line(d: dict) -> str:
    """One document for a rich print: its data cleaned and markup-escaped."""
    s = f"{d['doc_id']} {d['path']} (sha256 {d['sha256'][:12]}, {d['format']})"
    if "edgar" in d:
        e = d["edgar"]
        s += (f" EDGAR {e['submission']['accession_number']} {e['submission']['form_type']}"
              f" part {e['part']['sequence']} {e['part']['type']}")
    return markup(s)


def spans_line(spans: list[dict]) -> str:
    """``characters 120-15818 (pages 3-7), 16000-16400``: where a contained text lies."""
    from auditor.report.review import spans_text

    return "characters " + spans_text(spans).replace("; ", ", ")


def report_dates(applied: Any) -> None:
    """What a dates file did, on stderr: copies dated, keys that matched nothing, bad lines."""
    err.print(f"dates from {markup(applied.file)}: {applied.copies} copies of {applied.documents} documents "
              f"dated ({len(applied.changed)} documents' dates changed)", highlight=False)
    for line, key in applied.unmatched[:20]:
        err.print(f"  line {line}: {markup(key)} matches no stored copy", highlight=False)
    if len(applied.unmatched) > 20:
        err.print(f"  ... {len(applied.unmatched) - 20} more lines match no stored copy", highlight=False)
    for line, code, message in applied.problems:
        err.print(f"  [bold red]error[/]: line {line}: {code}: {markup(message)}", highlight=False)


def exit_if_bad_dates(applied: Any) -> None:
    """Lines of a dates file that could not be read: exit 2 once the others are recorded."""
    if applied is not None and applied.problems:
        err.print(f"{len(applied.problems)} line(s) of {markup(applied.file)} could not be read; the "
                  "others were recorded", highlight=False)
        sys.exit(2)
