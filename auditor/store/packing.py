"""How texts are kept on disk: compressed with Zstandard, read back whole.

A stored text is its UTF-8 bytes in one Zstandard frame at ``LEVEL``, read by key and
decompressed whole. On the 140 MB benchmark corpus, level 3 keeps the texts in 31% of their
bytes at 0.7 CPU-s to compress and 0.2 to decompress; zlib at level 6 keeps 31% too, at 5.4 and
0.8. Word sequences are stored plain: an audit reads each about three times, and a frame would
cost a decompression per read (benchmarks/RESULTS.md, 2026-12-02).

The digest recorded with each row is the sha256 of what it holds uncompressed (the text's UTF-8
bytes, the sequence's encoding): the same content has the same digest whatever the frame.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import zstandard

LEVEL = 3
FORMAT = "zstd"  # recorded in the store's meta (``storage``) and named in messages
_local = threading.local()


def _coders() -> tuple[Any, Any]:
    """One compressor and one decompressor per thread (they are not thread-safe)."""
    c = getattr(_local, "coders", None)
    if c is None:
        c = _local.coders = (zstandard.ZstdCompressor(level=LEVEL), zstandard.ZstdDecompressor())
    return c


def pack(raw: bytes) -> bytes:
    """``raw`` in one Zstandard frame that records its size."""
    return bytes(_coders()[0].compress(raw))


def unpack(frame: bytes) -> bytes:
    """What ``pack`` was given; ValueError when ``frame`` is not one frame of this format."""
    try:
        return bytes(_coders()[1].decompress(bytes(frame)))
    except zstandard.ZstdError as e:
        raise ValueError(f"not a {FORMAT} frame ({e})") from e


def pack_text(text: str) -> bytes:
    return pack(text.encode("utf-8", "surrogatepass"))


def unpack_text(frame: bytes) -> str:
    """The text ``pack_text`` was given; ValueError when the frame or its UTF-8 is damaged."""
    raw = unpack(frame)
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 ({e.reason} at byte {e.start})") from e


def digest(raw: bytes) -> str:
    """The digest recorded with a stored row: sha256 of its uncompressed bytes."""
    return hashlib.sha256(raw).hexdigest()


def text_digest(text: str) -> str:
    """The digest recorded with a stored text: sha256 of its UTF-8 bytes."""
    return digest(text.encode("utf-8", "surrogatepass"))


def sql_text(frame: Any) -> str | None:
    """``auditor_text(texts.text)``: the plain text of a stored frame, for SQL (Datasette, the
    ``sqlite3`` shell through ``Store``); None for NULL, and for a frame that cannot be read."""
    if frame is None:
        return None
    try:
        return unpack_text(bytes(frame))
    except (ValueError, TypeError):
        return None
