"""Inputs given as URIs, walked on the driver for the Spark ingest; their bytes are read elsewhere.

``auditor ingest --engine spark hdfs://nn/filings s3a://bucket/contracts/ --parquet DIR``. The
driver lists each URI and cuts the list into parts; the executors read the bytes through
Hadoop's file systems (``spark_ingest``). This module lists, and reads no file.

The order is the local walk's (``corpus.ingest.walk``): each input as given, then in each
directory its files sorted by name, then its subdirectories sorted by name, depth first. A file
is recorded under the URI given followed by the names below it (``hdfs://nn/filings/a/b.txt``);
the executors read Hadoop's qualified form of it (``Listed.uri``), which is recorded as the
resolved path.

- **Any Hadoop file system** (``hdfs://``, ``s3a://``, ``ftp://``...): listed through Hadoop's
  ``FileSystem`` API on the driver (``listStatus``, one call per directory). A directory that
  cannot be listed is recorded as failed (``unreadable_dir``, ``vanished``); a symbolic link is
  not followed (``not_regular``).
- **``file://``**: walked by the local walk itself, because Hadoop's local file system follows
  every link (out of the tree too), leaves dangling links and link loops out of its listings
  without a word, and lists a FIFO as a file (reading it would hang the executor). The local
  walk records each of those as it does for a local path. The executors then read the files
  through Hadoop's local file system, as for any other URI, so every executor must see the
  tree at the same path.

A URI that holds a password (``ftp://user:secret@host/``) is refused: it would be recorded in
every sighting and report. Give credentials in Hadoop's settings instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from auditor.corpus.ingest import is_uri, iso_mtime, walk
from auditor.errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass
class Listed:
    """One entry of a URI's walk, as a part's manifest holds it: a file to read, or a problem."""

    path: str  # as recorded: the URI given, then the names below it
    uri: str = ""  # what an executor reads: Hadoop's qualified path ("" for a problem)
    size: int = 0
    mtime: str = ""
    status: str | None = None  # None (a file), "failed" or "skipped"
    code: str = ""
    message: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in ("", None, 0)}


def check_uri(given: str) -> None:
    """Refuse a URI that would record a secret in every sighting."""
    if "@" in (parts := urlsplit(given)).netloc and ":" in parts.netloc.rsplit("@", 1)[0]:
        raise UsageError(f"{parts.scheme}://…@{parts.hostname}: the URI holds a password, which would be recorded "
                         "with every file read from it; give the credentials in Hadoop's settings instead "
                         "(for example spark.hadoop.fs.ftp.password.HOST, or an S3A credentials provider)")


def walk_uri(spark: SparkSession, given: str) -> list[Listed] | None:
    """Every entry under ``given`` in walk order, or None when ``given`` does not exist (like a
    missing local input: not recorded, named to the user)."""
    check_uri(given)
    shown = given.rstrip("/") if given.rstrip("/").partition("://")[2] else given
    if urlsplit(given).scheme.lower() == "file":
        return _walk_local(given, shown)
    return _walk_hadoop(spark, given, shown)


def hadoop_time(millis: int) -> str:
    """A Hadoop modification time (ms since the epoch) as ingest records a file's mtime."""
    try:
        return datetime.fromtimestamp(millis / 1000, UTC).isoformat(timespec="seconds")
    except (ValueError, OverflowError, OSError):
        return repr(millis / 1000)


def _walk_local(given: str, shown: str) -> list[Listed] | None:
    parts = urlsplit(given)
    if parts.netloc not in ("", "localhost"):
        raise UsageError(f"{given}: a file:// URI names a path on this machine (file:///path), not on {parts.netloc}")
    local = given[len(f"{parts.scheme}://{parts.netloc}"):]  # Hadoop does not unquote %XX either
    if not os.path.lexists(local):
        return None
    top = str(Path(local))  # as the walk writes the paths it yields
    out = []
    for f in walk([local]):
        path = shown + f.path[len(top):] if f.path.startswith(top) else shown
        if f.status is not None:
            out.append(Listed(path, status=f.status, code=f.code, message=f.message))
            continue
        try:
            st = os.stat(f.fs_path)
        except OSError as e:
            out.append(Listed(path, status="failed", code="unreadable", message=f"cannot read: {e.strerror or e}"))
            continue
        out.append(Listed(path, uri="file:" + os.path.realpath(f.fs_path), size=st.st_size, mtime=iso_mtime(st)))
    return out


def _java_error(e: Exception) -> tuple[str, str]:
    """(class name, message) of the Java exception behind a Py4J error."""
    j = getattr(e, "java_exception", None)
    if j is None:
        return type(e).__name__, str(e)
    return str(j.getClass().getName()), str(j.getMessage() or "")


def _walk_hadoop(spark: SparkSession, given: str, shown: str) -> list[Listed] | None:
    from py4j.protocol import Py4JJavaError

    jvm = spark.sparkContext._jvm
    assert jvm is not None
    root = jvm.org.apache.hadoop.fs.Path(given)
    try:
        fs = root.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())  # type: ignore[union-attr]
        st = fs.getFileStatus(root)
    except Py4JJavaError as e:
        name, message = _java_error(e)
        if name.endswith("FileNotFoundException"):
            return None
        return [Listed(shown, status="failed", code="unreadable", message=f"cannot read: {name}: {message}")]
    if st.isDirectory():
        return list(_walk_dir(fs, shown, root))
    return [_entry(shown, st)]


def _entry(shown: str, st: Any) -> Listed:
    if st.isSymlink():
        return Listed(shown, status="skipped", code="not_regular", message="symbolic link, not followed: not read")
    if not st.isFile():
        return Listed(shown, status="skipped", code="not_regular", message="not a regular file: not read")
    return Listed(shown, uri=str(st.getPath().toString()), size=int(st.getLen()),
                  mtime=hadoop_time(int(st.getModificationTime())))


def _walk_dir(fs: Any, shown_top: str, top: Any) -> Iterator[Listed]:
    """As ``corpus.ingest._walk_dir``: files first, then subdirectories, each sorted by name."""
    from py4j.protocol import Py4JJavaError

    stack = [(shown_top, top)]
    while stack:
        shown, path = stack.pop()
        try:
            children = sorted(((str(c.getPath().getName()), c) for c in fs.listStatus(path)), key=lambda x: x[0])
        except Py4JJavaError as e:
            name, message = _java_error(e)
            if name.endswith("FileNotFoundException"):
                yield Listed(shown, status="failed", code="vanished", message="directory vanished while it was being walked")
            else:
                yield Listed(shown, status="failed", code="unreadable_dir",
                             message=f"cannot list this directory: {name}: {message}")
            continue
        subdirs = []
        for name, c in children:
            if c.isDirectory() and not c.isSymlink():
                subdirs.append((f"{shown}/{name}", c.getPath()))
            else:
                yield _entry(f"{shown}/{name}", c)
        stack.extend(reversed(subdirs))


__all__ = ["Listed", "check_uri", "hadoop_time", "is_uri", "walk_uri"]
