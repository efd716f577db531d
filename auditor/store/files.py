"""File-system helpers: a regular file opened without blocking or following a link, read
within a limit, hashed.

Ingest opens every input through :func:`open_regular` (a FIFO, socket or device swapped in for a
file never hangs it); withdrawal and the gate hash files with :func:`sha256_file`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator
from typing import Any

from auditor.errors import refusal

refusal("vanished", "it was moved or deleted while it was read: ingest again once the files stay put")
refusal("symlink_loop", "replace the link by the file it should name, or leave it out")
refusal("unreadable", "give the user running auditor read access to it (or restore it), then ingest again")
refusal("not_regular", "nothing to do: only regular files are read (a FIFO, socket or device could block "
                       "ingest); to ingest what it holds, copy it to a file")

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"))


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def os_message(e: OSError) -> str:
    return e.strerror or str(e)


class Unreadable(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))


@contextlib.contextmanager
def open_regular(path: str) -> Iterator[tuple[int, os.stat_result]]:
    """An fd on ``path`` if it is a regular file. ``O_NONBLOCK`` keeps a FIFO swapped in since
    the walk from blocking the open; ``O_NOFOLLOW`` refuses a link swapped in. Raises
    Unreadable with a code."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError as e:
        raise Unreadable("vanished", f"vanished before it could be read ({os_message(e)})") from e
    except OSError as e:
        if e.errno == getattr(os, "ELOOP", 40):
            raise Unreadable("symlink_loop", "replaced by a symbolic link while it was being read") from e
        raise Unreadable("unreadable", f"cannot read: {os_message(e)}") from e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable("not_regular", f"{kind_of(st.st_mode)}, not a regular file: not read")
        yield fd, st
    finally:
        os.close(fd)


def read_fd(fd: int, limit: int, h: Any = None) -> bytes:
    """Up to ``limit + 1`` bytes (the caller tells an over-long file by the extra byte)."""
    chunks, n = [], 0
    while n <= limit:
        try:
            block = os.read(fd, min(1 << 20, limit + 1 - n))
        except OSError as e:
            raise Unreadable("unreadable", f"cannot read: {os_message(e)}") from e
        if not block:
            break
        if h is not None:
            h.update(block)
        chunks.append(block)
        n += len(block)
    return b"".join(chunks)


def hash_fd(fd: int) -> str:
    """sha256 of the rest of an fd from ``open_regular`` (which keeps it open)."""
    try:
        with os.fdopen(fd, "rb", buffering=0, closefd=False) as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as e:
        raise Unreadable("unreadable", f"cannot read: {os_message(e)}") from e


def sha256_file(path: str | os.PathLike) -> str | None:
    """sha256 of a regular file's bytes; None for anything else (never blocks on a FIFO)."""
    try:
        with open_regular(os.fspath(path)) as (fd, _):
            return hash_fd(fd)
    except Unreadable:
        return None
