"""The chain of custody: a hash-chained log, in the store, of every write the auditor makes.

:mod:`.chain` holds the pure part (row digests, the running set hash of the live state, entries
and their links); :mod:`.log` the store's part (the tracked tables, recording each write in its
own transaction, and the quick and full checks). See "Chain of custody" in the README for what
the log proves and what it does not.
"""

from auditor.store.custody.chain import Entry, State, replay, row_digest
from auditor.store.custody.log import (
    TRACKED,
    Breach,
    CustodyCheck,
    Plan,
    Tracked,
    adopt,
    begin,
    check_full,
    check_quick,
    check_rows,
    checkpoint,
    create,
    differing,
    edit_count,
    edit_triggers,
    find,
    has_log,
    head,
    install,
    matches,
    recorded,
    register,
    seal,
    unedited,
)

__all__ = [
    "TRACKED", "Breach", "CustodyCheck", "Entry", "Plan", "State", "Tracked", "adopt", "begin", "check_full",
    "check_quick", "check_rows", "checkpoint", "create", "differing", "edit_count", "edit_triggers", "find",
    "has_log", "head", "install", "matches", "recorded", "register", "replay",
    "row_digest", "seal", "unedited",
]
