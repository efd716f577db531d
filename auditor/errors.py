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

A refusal (an input not stored, a document not auditable) names its reason by a short code and
says what to do about it. :func:`refusal` declares a code's fix, once, in the module that raises
the code; :class:`ExtractionError` and every failure ingest records then end their message with
it (``...; fix: ...``), so the store, ``show``, ``stats`` and the reports all say it.
"""

from __future__ import annotations

import re

FIX_MARK = "; fix: "
"""What separates a refusal's reason from its fix in a recorded message."""

FIXES: dict[str, str] = {}
"""Refusal code -> what to do about it, as :func:`refusal` declared it."""


def refusal(code: str, fix: str) -> str:
    """Declare what to do about ``code`` (an input that failed or was skipped, or a reason a
    document is not auditable), beside the code that raises it, and return the code.

    ``family:kind`` codes (``binary:xls``) fall back on their family's fix (``binary``)."""
    if FIXES.setdefault(code, fix) != fix:
        raise ValueError(f"refusal code {code!r} is declared twice, with two fixes")
    return code


def fix_for(code: str | None) -> str | None:
    """The declared fix of ``code`` (or of its family), or None."""
    if not code:
        return None
    return FIXES.get(code) or FIXES.get(code.split(":", 1)[0])


def with_fix(code: str | None, message: str, fix: str | None = None) -> str:
    """``message`` ending with ``fix``, by default the fix of ``code`` (unless it has one)."""
    fix = fix or fix_for(code)
    return message if not fix or fix in message or FIX_MARK in message else f"{message}{FIX_MARK}{fix}"


def split_fix(message: str) -> tuple[str, str | None]:
    """(reason, fix) of a message :func:`with_fix` wrote; (message, None) without a fix."""
    reason, mark, fix = message.rpartition(FIX_MARK)
    return (reason, fix) if mark else (message, None)


# A reason's code opens it, or follows what it was found in ("as HTML: ", "HTML body: ").
_REASON = re.compile(r"(?:^|(?<=; )|(?<=: ))([a-z]+(?:-[a-z]+)+): ")


def with_reason_fixes(unreadable: str | None) -> str | None:
    """Why a text cannot be audited (reasons joined by ``; ``, each ``code: what``), each reason
    whose code has a declared fix followed by it."""
    if not unreadable or FIX_MARK in unreadable:
        return unreadable
    starts = [m for m in _REASON.finditer(unreadable) if m.group(1) in FIXES]
    if not starts:
        return unreadable
    out = [unreadable[: starts[0].start()]]
    for m, nxt in zip(starts, [*(x.start() for x in starts[1:]), None], strict=True):
        end = len(unreadable) if nxt is None else unreadable.rfind("; ", m.start(), nxt)  # before the next's "; "
        if nxt is not None and end < 0:  # the next code is inside this reason: one reason, fixed once
            out.append(unreadable[m.start():nxt])
            continue
        out.append(with_fix(m.group(1), unreadable[m.start():end]) + unreadable[end:nxt])
    return "".join(out)


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
    store; the message says what happened in words, and ends with the code's fix
    (:func:`refusal`).
    """

    def __init__(self, code: str, message: str, fix: str | None = None) -> None:
        """``fix``: what to do in this case, when the code's declared fix says less (the package
        to install for this input)."""
        super().__init__(with_fix(code, message, fix))
        self.code = code

    @property
    def fix(self) -> str | None:
        return split_fix(str(self))[1]


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
