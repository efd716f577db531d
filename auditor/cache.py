"""Where the auditor keeps what it can always compute again: the fixture controls' passing
results (by tool version, parameters and controls digest) and the Unicode tables of the
normalisation (checked against their pinned digests before use). Nothing in it is trusted that is
not checked: deleting it only costs time."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir() -> Path | None:
    """``$AUDITOR_CACHE``, else ``$XDG_CACHE_HOME/containment-auditor``, else
    ``~/.cache/containment-auditor``; None with ``AUDITOR_NO_CACHE`` set."""
    if os.environ.get("AUDITOR_NO_CACHE"):
        return None
    if os.environ.get("AUDITOR_CACHE"):
        return Path(os.environ["AUDITOR_CACHE"])
    base = Path(os.environ["XDG_CACHE_HOME"]) if os.environ.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "containment-auditor"


def read_entry(*parts: str) -> bytes | None:
    """The bytes of a cache entry, None when there is none (or no cache, or it cannot be read)."""
    where = cache_dir()
    try:
        return where.joinpath(*parts).read_bytes() if where else None
    except OSError:
        return None


def write_entry(data: bytes, *parts: str) -> None:
    """Best effort, atomic (written beside and renamed: runs writing the same entry at once each
    leave a whole file); a cache that cannot be written costs the next run time, nothing else."""
    where = cache_dir()
    if where is None:
        return
    path = where.joinpath(*parts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass
