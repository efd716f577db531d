"""Which format an input is, by its content: magic bytes, an EDGAR envelope, HTML markup. The
file name only settles weak HTML evidence."""

from __future__ import annotations

import io
import os
import re
import zipfile

from auditor import edgar
from auditor.extract.text import SNIFF, detect_bom, nul_pattern

_MAGIC: list[tuple[bytes, str]] = [
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"\xff\xd8\xff", "jpg"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
    (b"\x7fELF", "elf"),
    (b"\x1f\x8b", "gz"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"\x28\xb5\x2f\xfd", "zst"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
    (b"SQLite format 3\x00", "sqlite"),
    (b"\x00asm", "wasm"),
    (b"\xca\xfe\xba\xbe", "class"),
    (b"OggS", "ogg"),
    (b"fLaC", "flac"),
    (b"wOFF", "woff"),
    (b"wOF2", "woff2"),
    (b"%!PS", "ps"),
    (b"{\\rtf", "rtf"),
]
_BZIP2 = re.compile(rb"BZh[1-9]1AY&SY")
_RIFF = re.compile(rb"RIFF....(WAVE|AVI |WEBP)", re.S)
_STRONG_HTML = re.compile(rb"<(?:!doctype\s+html|html|head|body)\b", re.I)
_WEAK_HTML = re.compile(
    rb"<(?:div|p|br|table|font|span|center|h[1-6]|ul|ol|li|title|meta|a\s+href|b|i|pre)\b[^>]*>", re.I)
HTML_EXT = (".htm", ".html", ".xhtml", ".shtml")
#: Names that say plain text: the bytes are what a reader sees, whatever markup they hold.
TEXT_EXT = (".txt", ".text", ".md", ".markdown", ".rst", ".asc", ".log", ".csv", ".tsv")


def binary_kind(data: bytes) -> str | None:
    """The kind of a known binary format (``png``, ``gif``, ``zip``...) from its magic bytes."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if _BZIP2.match(data):
        return "bz2"
    m = _RIFF.match(data)
    if m:
        return m.group(1).decode().strip().lower()
    if data.startswith(b"MZ") and b"\x00" in data[:64]:
        return "exe"
    return None


def is_docx(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return "word/document.xml" in z.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False


def detect_format(data: bytes, name: str = "") -> str:
    """"text", "html", "pdf", "docx", "edgar" or "binary" (a known non-text format).

    Content decides: ``%PDF-`` in the first KiB, a zip holding ``word/document.xml``, an
    EDGAR envelope, HTML markup. A name that says HTML (``.htm``...) or text (``.txt``,
    ``.md``...) decides between those two: a browser renders an .htm file whatever it starts
    with, a text editor shows a .txt file's bytes; the other reading is then one of the
    document's readings (:func:`auditor.extract.extract_format`).
    """
    if b"%PDF-" in data[:1024]:
        return "pdf"
    kind = binary_kind(data)
    if kind == "zip":
        return "docx" if is_docx(data) else "binary"
    if kind is not None:
        return "binary"
    if edgar.is_submission(data):
        return "edgar"
    ext = os.path.splitext(name)[1].lower()
    if ext in TEXT_EXT:
        return "text"  # the container says text: a text editor shows the bytes (the HTML is a reading)
    if ext in HTML_EXT:
        return "html"  # the container says HTML: a browser renders it, whatever it starts with
    head = _sniff_head(data)
    if _STRONG_HTML.search(head):
        return "html"
    if head.lstrip().startswith(b"<") and _WEAK_HTML.search(head):
        return "html"
    return "text"


def looks_like_html(data: bytes) -> bool:
    """Whether a browser or a sniffing extractor would take ``data`` for HTML: markup near the
    start (a doctype, ``<html>``, ``<body>``, or a common tag opening the text)."""
    head = _sniff_head(data)
    return bool(_STRONG_HTML.search(head) or (head.lstrip().startswith(b"<") and _WEAK_HTML.search(head)))


def says_html(name: str) -> bool:
    """Whether a file name says HTML (``.htm``, ``.html``...)."""
    return os.path.splitext(name)[1].lower() in HTML_EXT


def _sniff_head(data: bytes) -> bytes:
    """The first bytes as ASCII-compatible bytes, even for UTF-16/32 input, for tag sniffing."""
    head = data[:SNIFF]
    bom = detect_bom(head)
    enc = bom[0] if bom else nul_pattern(head)
    if enc and not enc.startswith("utf-8"):
        text = head.decode(enc, "replace")
        return text.encode("ascii", "replace")
    return head
