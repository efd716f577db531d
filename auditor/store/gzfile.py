"""The one gzip writer of every compressed file the auditor writes (report sidecars, assembled
corpora), the byte-for-byte check ``verify`` runs on them, and the one atomic writer
(``replacing``) through which every file the auditor writes whole reaches its name: these
files, reports, Parquet corpora, gate baselines, the controls cache.

The same content always gives the same bytes: a fixed 10-byte header (no file name, comment,
extra field or header CRC; mtime 0; XFL 0; OS 255, "unknown"), one raw-deflate stream at
``LEVEL``, the CRC-32 and size trailer, and nothing after it. So ``verify`` can compare a file as
bytes, not as what it decompresses to: gzip readers ignore a name or a comment in the header
and skip zero padding or read further members after the first, so a header rewritten to carry
``../../evil-name`` or ``<script>``, or 4 KB appended after the member, decompress to the same
content yet are not the file the auditor wrote.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from auditor.errors import ReportError

LEVEL = 6  # zlib's default: level 9 takes twice as long for about 1% less on text
OS_UNKNOWN = 255
HEADER = b"\x1f\x8b\x08\x00" + b"\x00\x00\x00\x00" + bytes([0, OS_UNKNOWN])
WRITE_AT_ONCE = 1 << 20  # lines joined before each compress call (a call per line costs as much as the rest)
_READ = 1 << 20


class Writer:
    """A gzip stream of ``HEADER``, one deflate stream and its trailer, written to ``raw``."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw, self.crc, self.size = raw, 0, 0
        self._z = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        raw.write(HEADER)

    def write(self, data: bytes) -> None:
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        self.raw.write(self._z.compress(data))

    def close(self) -> None:
        self.raw.write(self._z.flush() + struct.pack("<II", self.crc, self.size & 0xFFFFFFFF))


def compress(data: bytes) -> bytes:
    """``data`` as ``write_lines`` writes it (for tests and small files)."""
    z = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return (HEADER + z.compress(data) + z.flush()
            + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF))


@contextmanager
def replacing(path: Path, *, shared: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` (``.name.tmp``) for the block to write; renamed onto
    ``path`` when the block ends, removed when it raises: a reader (or a full disk) never sees
    half a file. ``shared``: several processes may write ``path`` at once (a cache), so the
    temporary name carries the process id and the last rename wins."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp" if shared else f".{path.name}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str, *, shared: bool = False) -> None:
    """``text`` as UTF-8 at ``path``, whole or not at all (``replacing``)."""
    with replacing(path, shared=shared) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_lines(path: Path, lines: Iterable[bytes], *, compress: bool) -> dict[str, Any]:
    """Write ``lines`` to ``path`` (gzipped when ``compress``) beside it and rename it into place
    (``replacing``). Returns the content's sha256 and line count, which is what reports and
    manifests record."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    h, n = hashlib.sha256(), 0
    with replacing(path) as tmp, open(tmp, "wb") as raw:
        sink: Any = Writer(raw) if compress else raw
        buffered: list[bytes] = []
        held = 0
        for line in lines:
            buffered.append(line)
            held += len(line)
            h.update(line)
            n += 1
            if held >= WRITE_AT_ONCE:
                sink.write(b"".join(buffered))
                buffered, held = [], 0
        sink.write(b"".join(buffered))
        if compress:
            sink.close()
    return {"sha256": h.hexdigest(), "lines": n}


def read_lines(path: Path) -> Iterator[bytes]:
    """The lines of a file, decompressed when its name ends in ``.gz`` (as any gzip reader does:
    ``byte_problem`` says whether the file is also byte for byte what the auditor writes)."""
    try:
        with (gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")) as f:
            yield from f
    except (OSError, EOFError, zlib.error) as e:
        raise ReportError(f"cannot read {path}: {e}") from e


def _shown(raw: bytes, limit: int = 60) -> str:
    text = raw.decode("latin-1")
    return repr(text if len(text) <= limit else text[:limit] + "...")


NOT_GZIP = "it is not a gzip file"


def _parse_header(f: BinaryIO) -> tuple[bytes, list[str]] | None:
    """The header bytes as read, and what in them differs from ``HEADER`` (in words); None
    when the file does not start as a gzip file."""
    fixed = f.read(10)
    if len(fixed) < 10 or fixed[:3] != HEADER[:3]:
        return None
    said: list[str] = []
    flags = fixed[3]
    head = bytearray(fixed)
    if flags & 4:
        raw = f.read(2)
        extra = f.read(int.from_bytes(raw, "little")) if len(raw) == 2 else b""
        head += raw + extra
        said.append(f"its gzip header carries an extra field of {len(extra)} bytes")
    for bit, what in ((8, "names a file"), (16, "carries a comment")):
        if flags & bit:
            value = bytearray()
            while (c := f.read(1)) not in (b"", b"\x00"):
                value += c
            head += value + b"\x00"
            said.append(f"its gzip header {what} ({_shown(bytes(value))})")
    if flags & 2:
        head += f.read(2)
        said.append("its gzip header carries a header CRC")
    if flags & ~0x1E:
        said.append(f"its gzip header sets flag bits {flags & ~0x1E:#04x} (FTEXT or reserved)")
    mtime = int.from_bytes(fixed[4:8], "little")
    if mtime:
        said.append(f"its gzip header records a modification time ({mtime})")
    if fixed[9] != OS_UNKNOWN:
        said.append(f"its gzip header names operating system {fixed[9]} (the auditor writes {OS_UNKNOWN})")
    return bytes(head), said


def byte_problem(path: Path) -> str | None:
    """None when ``path`` is byte for byte what ``write_lines`` writes for its content; else what
    differs, in words.

    The file is streamed once: its deflate stream is decompressed and compressed again with the
    auditor's settings, and the two streams, the trailer and the end of the file are compared.
    """
    try:
        with open(path, "rb") as f:
            parsed = _parse_header(f)
            if parsed is None:
                return NOT_GZIP
            head, said = parsed
            if head[8] != 0:
                said.append(f"its gzip header sets XFL {head[8]}")
            unz = zlib.decompressobj(-zlib.MAX_WBITS)
            again = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
            have, want = hashlib.sha256(), hashlib.sha256()
            crc = size = 0
            tail = b""
            while not unz.eof:
                chunk = f.read(_READ)
                if not chunk:
                    return "its compressed data is cut short"
                data = unz.decompress(chunk)
                used = chunk[: len(chunk) - len(unz.unused_data)] if unz.eof else chunk
                have.update(used)
                crc, size = zlib.crc32(data, crc), size + len(data)
                want.update(again.compress(data))
                if unz.eof:
                    tail = unz.unused_data
            want.update(again.flush())
            tail += f.read()
    except OSError as e:
        return f"it cannot be read ({e})"
    except zlib.error as e:
        return f"its compressed data is damaged ({e})"
    if tail[:8] != struct.pack("<II", crc, size & 0xFFFFFFFF):
        said.append("its gzip trailer (CRC-32 and size) does not match its content")
    elif len(tail) > 8:
        rest = tail[8:]
        what = "zero bytes" if not rest.strip(b"\x00") else "bytes"
        said.append(f"{len(rest)} {what} follow the gzip member (a reader skips or reads them as more content)")
    if have.digest() != want.digest() and not said:
        said.append("its content is compressed otherwise than the auditor compresses it (same content, "
                    "other deflate bytes: rewritten by another program)")
    return "; ".join(said) or None
