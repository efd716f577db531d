"""Every error the auditor raises on purpose.

    AuditorError
    ├── UsageError (ValueError)         bad arguments or options
    ├── StoreError                      the SQLite store cannot be used
    │   ├── StoreBusy                   another process holds the write lock too long
    │   ├── StoreDamaged                stored texts or pages fail their integrity checks
    │   ├── DiskFull                    no space left for the store or a report
    │   └── IndexMismatch (ValueError)  index built with other parameters
    ├── NoDocument (LookupError)        no stored document matches a reference
    ├── NoRun (LookupError)             no recorded run matches a reference
    ├── ExtractionError                 one input could not be turned into text
    ├── ControlsFailed                  a positive or negative control did not pass
    ├── ReportError                     a report is missing, malformed or tampered with
    ├── AssemblyRefused                 the audit behind a corpus plan was refused
    ├── NothingToGate                   no input of a gate yielded a document
    ├── GateInterrupted                 a signal stopped a gate before its verdict
    └── GateCrashed                     an unexpected error inside a gate
    Interrupted (KeyboardInterrupt)     SIGINT or SIGTERM asked the command to stop

Only ``auditor.cli`` turns these into exit codes.
"""

from __future__ import annotations


class AuditorError(Exception):
    "Base class for errors raised by the auditor"


class UsageError(AuditorError, ValueError):
    "Invalid argument or option"


class StoreError(AuditorError):
    "The SQLite store cannot be used"


class StoreBusy(StoreError):
    "Another process held the store's write lock longer than the busy timeout"


class DiskFull(StoreError):
    """No space left on the device holding the store (or a report being written): the write in
    progress was rolled back or not renamed into place, so what was stored before is intact"""


def is_disk_full(e: BaseException) -> bool:
    """SQLite's SQLITE_FULL or the operating system's ENOSPC/EDQUOT."""
    import errno
    import sqlite3

    if isinstance(e, sqlite3.OperationalError):
        return "disk is full" in str(e) or getattr(e, "sqlite_errorcode", None) == 13  # SQLITE_FULL
    return isinstance(e, OSError) and e.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))


class StoreDamaged(StoreError):
    """The store fails SQLite's integrity check or a stored text no longer matches its digest
    (``auditor check --db DB`` names the documents)"""


class IndexMismatch(StoreError, ValueError):
    "The stored index was built with other parameters"


class NoDocument(AuditorError, LookupError):
    "No stored document matches the reference"


class NoRun(AuditorError, LookupError):
    "No recorded run matches the reference"


class ExtractionError(AuditorError):
    """An input could not be turned into text.

    ``code`` is a short stable reason (``empty``, ``binary``, ``too_large``, ``pdf_timeout``,
    ``pdf_memory``, ``pdf_encrypted``, ``pdf_error``, ``text_too_long``, ...) recorded in the
    store; the message says what happened in words.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ControlsFailed(AuditorError):
    "A positive or negative control did not pass, so no findings may be reported"

    def __init__(self, message: str, results: list | None = None) -> None:
        super().__init__(message)
        self.results = results or []


class ReportError(AuditorError):
    "A report is missing, malformed or does not match its recomputation"


class AssemblyRefused(AuditorError):
    "The audit run a corpus plan would be made from was REFUSED (failed controls, nothing to audit)"


class NothingToGate(AuditorError):
    "No input file yielded a document: nothing was gated, so the gate cannot pass"


class GateInterrupted(AuditorError):
    "SIGINT or SIGTERM stopped a gate before its verdict: its batch was rolled back"


class GateCrashed(AuditorError):
    "An unexpected internal error: exit 2, never 1, so a crash cannot pass for findings"


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM asked the command to stop. A ``KeyboardInterrupt``, so that no
    ``except Exception`` swallows it and every transaction open rolls back."""

    def __init__(self, signal_name: str = "SIGINT") -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name
