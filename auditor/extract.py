"""Turn one input (the bytes of a file) into text, with the details needed to trust it later.

Formats are recognised by content (magic bytes, envelopes, markup), the file name being only
a hint. Every result records which extractor and version produced it and, for decoded text,
which encoding was used, so a stored text can be traced back to its bytes. Every text returned
can be stored in SQLite: NULs and lone surrogates become U+FFFD (counted in ``warnings``) and
line ends are ``\\n``.

Nothing here parses a PDF in-process: PDFs go to :mod:`auditor.pdfworker` children, which can
be killed. HTML and .docx are parsed by lxml with network access and entity expansion off, and
walked without recursion, so hostile nesting cannot exhaust the stack. Failures are raised as
:class:`~auditor.errors.ExtractionError` with a stable ``code``.

All functions are thread-safe; PDF extraction waits on a child process without holding the
GIL, so threads are enough to keep several cores busy with PDFs.
"""

from __future__ import annotations

import codecs
import functools
import html.parser
import io
import os
import re
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import BinaryIO

from auditor import edgar, pdfworker
from auditor.errors import ExtractionError

__all__ = [
    "Extracted",
    "Limits",
    "Part",
    "decode_text",
    "detect_format",
    "extract",
    "extract_bytes",
    "extract_pdf_pages",
]


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 100 * 2**20
    max_text_chars: int = 20_000_000
    pdf_timeout: float = 120.0
    pdf_memory: int = 2 * 2**30
    max_pdf_pages: int = 5000
    #: EDGAR documents read from one submission; the rest are recorded as one failed part.
    max_parts: int = 1000
    # Enforced by ingest, which extracts every input in an auditor.sandbox child process:
    #: seconds for one input file, all its parts and PDFs included;
    timeout: float = 300.0
    #: address-space limit of that child, in bytes;
    memory: int = 2**30
    #: seconds for a whole ingest batch (None: no limit); inputs left over are recorded for a re-run.
    budget: float | None = None


@dataclass
class Extracted:
    format: str
    text: str
    extractor: str
    extractor_version: str
    encoding: str | None = None
    page_offsets: list[int] | None = None
    meta: dict = field(default_factory=dict)
    parts: list[Part] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unreadable: str | None = None
    """Why (part of) this document's text could not be read, so it cannot be audited; the
    text that could be read is still returned and stored."""


@dataclass
class Part:
    raw: bytes
    meta: dict
    status: str
    extracted: Extracted | None
    code: str | None = None
    message: str | None = None


# -- versions ----------------------------------------------------------------------------------


@functools.cache
def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def _auditor_version() -> str:
    from auditor import __version__

    return __version__


# -- format detection --------------------------------------------------------------------------

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
_HTML_EXT = (".htm", ".html", ".xhtml", ".shtml")
_SNIFF = 4096


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


def _is_docx(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return "word/document.xml" in z.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False


def detect_format(data: bytes, name: str = "") -> str:
    """"text", "html", "pdf", "docx", "edgar" or "binary" (a known non-text format).

    Content decides: ``%PDF-`` in the first KiB, a zip holding ``word/document.xml``, an
    EDGAR envelope, HTML markup; the extension only settles weak HTML evidence.
    """
    if b"%PDF-" in data[:1024]:
        return "pdf"
    kind = binary_kind(data)
    if kind == "zip":
        return "docx" if _is_docx(data) else "binary"
    if kind is not None:
        return "binary"
    if edgar.is_submission(data):
        return "edgar"
    head = _sniff_head(data)
    if _STRONG_HTML.search(head):
        return "html"
    ext = os.path.splitext(name)[1].lower()
    if (ext in _HTML_EXT or (ext != ".txt" and head.lstrip().startswith(b"<"))) and _WEAK_HTML.search(head):
        return "html"
    return "text"


def _sniff_head(data: bytes) -> bytes:
    """The first bytes as ASCII-compatible bytes, even for UTF-16/32 input, for tag sniffing."""
    head = data[:_SNIFF]
    bom = _bom(head)
    enc = bom[0] if bom else _nul_pattern(head)
    if enc and not enc.startswith("utf-8"):
        text = head.decode(enc, "replace")
        return text.encode("ascii", "replace")
    return head


# -- decoding ----------------------------------------------------------------------------------

_BOMS = [
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
]
_UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_INVISIBLE_CONTROL = re.compile(r"[\x01-\x08\x0e-\x1f\x7f-\x9f]+")  # NUL: see _storable
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_BINARY_HEAD = 65536
_MAX_CONTROL = 0.05


def _bom(data: bytes) -> tuple[str, int] | None:
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return enc, len(bom)
    return None


def _nul_pattern(head: bytes) -> str | None:
    """UTF-16/32 without a BOM, recognised by where the NUL bytes of ASCII-range characters fall."""
    if b"\x00" not in head:
        return None
    q = len(head) // 4
    if q >= 2:
        col = [head[i : 4 * q : 4].count(0) for i in range(4)]
        if col[1] >= 0.9 * q and col[2] >= 0.9 * q and col[3] >= 0.9 * q and col[0] < 0.1 * q:
            return "utf-32-le"
        if col[0] >= 0.9 * q and col[1] >= 0.9 * q and col[2] >= 0.9 * q and col[3] < 0.1 * q:
            return "utf-32-be"
    h = len(head) // 2
    if h >= 2:
        even, odd = head[0 : 2 * h : 2].count(0), head[1 : 2 * h : 2].count(0)
        if odd >= 0.4 * h and even < 0.05 * h:
            return "utf-16-le"
        if even >= 0.4 * h and odd < 0.05 * h:
            return "utf-16-be"
    return None


def _decode_with(data: bytes, enc: str) -> str:
    try:
        return data.decode(enc, "surrogatepass" if "16" in enc or "32" in enc else "strict")
    except UnicodeDecodeError:
        return data.decode(enc, "replace")


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode bytes of unknown encoding: (text, name of the encoding used).

    Order: a BOM (utf-8-sig, utf-16, utf-32); UTF-16/32 without BOM from NUL-byte patterns;
    strict UTF-8; UTF-8 with replacement when valid multi-byte sequences outnumber invalid
    bytes two to one (a stray bad byte must not turn a UTF-8 file into cp1252 mojibake, while
    cp1252 punctuation is never valid UTF-8); strict cp1252; latin-1, which never fails.

    Files that switch encoding are decoded region by region, and the name joins the regions'
    encodings with ``+``: a UTF-16 head followed by 8-bit text (``utf-16-le+utf-8``), 8-bit text
    followed by UTF-16, UTF-8 lines among cp1252 lines (``utf-8+cp1252``, decided line by line).
    Otherwise decoding ``data`` with the returned codec (errors replaced) gives the same text,
    except that lone UTF-16/32 surrogates are kept here for the caller to count and replace.
    Never raises: binary input decodes to junk, which ``extract_bytes`` recognises.
    """
    bom = _bom(data)
    wide = bom[0] if bom else _nul_pattern(data[:_SNIFF])
    if wide and not bom and b"\x00" not in data[:_MIN_REGION]:
        wide = None  # 8-bit text first: the NUL pattern is a later region's (below)
    if wide == "utf-8-sig":
        text, enc = _decode_8bit(data[3:])
        return text, "utf-8-sig" if enc == "utf-8" else f"utf-8-sig+{enc}"
    if wide:
        cut = _end_of_wide(data, wide)
        if cut is None:
            return _decode_with(data, wide), wide
        tail, tail_enc = decode_text(data[cut:])
        return _decode_with(data[:cut], wide) + tail, f"{wide}+{tail_enc}"
    start = _start_of_wide(data)
    if start is not None:
        head, head_enc = _decode_8bit(data[:start])
        tail, tail_enc = decode_text(data[start:])
        return head + tail, f"{head_enc}+{tail_enc}"
    return _decode_8bit(data)


_WIDE_UNIT = {"utf-16": 2, "utf-16-le": 2, "utf-16-be": 2, "utf-32": 4, "utf-32-le": 4, "utf-32-be": 4}
_MIN_REGION = 256
_HIGH_BYTES = bytes(range(0x80, 0x100))


def _end_of_wide(data: bytes, wide: str) -> int | None:
    """Where UTF-16/32 text stops, when an 8-bit region follows it: after its last NUL byte,
    at least 256 bytes of ASCII-range text without a NUL (wide text that long would hold
    spaces or newlines, whose encodings contain NUL bytes)."""
    last = data.rfind(b"\x00")
    unit = _WIDE_UNIT.get(wide, 2)
    cut = -(-(last + 1) // unit) * unit
    rest = data[cut:]
    if len(rest) < _MIN_REGION or len(rest.translate(None, _HIGH_BYTES)) < 0.9 * len(rest):
        return None
    return cut


def _start_of_wide(data: bytes, probes: int = 64) -> int | None:
    """Where 8-bit text turns into UTF-16/32: a NUL byte from which at least 256 bytes show a
    wide NUL pattern (stray NULs before it are passed over, up to ``probes`` of them)."""
    pos = data.find(b"\x00")
    for _ in range(probes):
        if pos < 1 or len(data) - pos < _MIN_REGION:
            return None
        for start in (pos - 1, pos, pos - 3):  # little-endian (char, NUL) or big-endian (NUL, char)
            if start >= 1 and _nul_pattern(data[start : start + _SNIFF]):
                return start
        pos = data.find(b"\x00", pos + _SNIFF)
    return None


def _decode_8bit(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if not _UTF8_MULTIBYTE.search(data):
        return _decode_single_byte(data)
    lines = data.splitlines(keepends=True)
    out, encs = [], set()
    for line in lines:
        t, e = _decode_utf8_or_cp1252(line)
        if e == "mixed":
            t, e = _decode_single_byte(line)
        out.append(t)
        if not line.isascii():
            encs.add(e)
    if encs <= {"utf-8"}:
        return "".join(out), "utf-8"
    if "utf-8" not in encs:
        return _decode_single_byte(data)
    return "".join(out), "+".join(sorted(encs, key=lambda e: e != "utf-8"))


def _decode_utf8_or_cp1252(data: bytes) -> tuple[str, str]:
    """One line: UTF-8 (stray bad bytes replaced), or ``mixed`` when invalid bytes are too many
    for that (the line is then decoded as cp1252)."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    if len(_UTF8_MULTIBYTE.findall(data)) >= 2 * bad:
        return text, "utf-8"
    return "", "mixed"


def _decode_single_byte(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


# Above this charset-normalizer "mess ratio" (its own cut-off for a plausible decoding), text
# decoded from a guessed or declared 8-bit encoding is gibberish.
_MAX_MESS = 0.2
_MESS_CHUNK = 100_000
_GUESSED = ("cp1252", "latin-1")


def mess(text: str) -> float:
    """How much ``text`` looks like a wrong decoding (0 clean; above 0.2 gibberish): the worst
    ratio of charset-normalizer's mess detector over 100,000-character chunks."""
    from charset_normalizer.md import mess_ratio

    if text.isascii() and not _CONTROL.search(text):
        return 0.0
    return max(mess_ratio(text[i : i + _MESS_CHUNK], 1.0) for i in range(0, len(text), _MESS_CHUNK))


def _detected(data: bytes) -> tuple[str, str] | None:
    """charset-normalizer's best decoding of ``data``, if it is a clean one."""
    from charset_normalizer import from_bytes

    best = from_bytes(data[: 4 * _MESS_CHUNK]).best()
    if best is None or best.encoding in ("utf_8", "ascii"):
        return None
    try:
        text = data.decode(best.encoding)
    except (UnicodeDecodeError, LookupError):
        return None
    return (text, codecs.lookup(best.encoding).name) if mess(text) <= _MAX_MESS else None


def _storable(text: str, warnings: list[str]) -> str:
    """Normalise line ends; replace NUL and lone surrogates, which SQLite text cannot hold."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text or not text.isascii():
        text, n = _UNSTORABLE.subn("\ufffd", text)
        if n:
            warnings.append(f"replaced {n} NUL or lone surrogate characters with U+FFFD")
    return text


def _check_text(text: str, what: str, limits: Limits) -> str:
    if not text.strip():
        raise ExtractionError("empty", f"{what} has no text")
    if len(text) > limits.max_text_chars:
        raise ExtractionError(
            "text_too_long", f"{what} gives {len(text)} characters, more than the limit of {limits.max_text_chars}")
    return text


def _is_binary_text(text: str) -> bool:
    head = text[:_BINARY_HEAD]
    return len(_CONTROL.findall(head)) > _MAX_CONTROL * len(head)


def _extract_text(data: bytes, limits: Limits) -> Extracted:
    text, enc = decode_text(data)
    warnings: list[str] = []
    unreadable = None
    guessed = enc in _GUESSED or "+" in enc
    if _is_binary_text(text) or (guessed and mess(text) > _MAX_MESS):
        found = _detected(data)  # an 8-bit encoding that is neither UTF-8 nor cp1252 (EBCDIC...)
        if found:
            warnings.append(f"decoding as {enc} gave gibberish; the detected {found[1]} reads cleanly")
            text, enc = found
        elif _is_binary_text(text):
            # Text with control characters strewn through it is still text; binary data is not.
            visible = _CONTROL.sub("", text)
            if not visible.strip() or mess(visible) > _MAX_MESS:
                raise ExtractionError("binary", f"binary data: more than {_MAX_CONTROL:.0%} control characters when decoded as {enc}")
        else:
            unreadable = f"text decoded as {enc} is gibberish (mess ratio {mess(text):.2f}) and no encoding reads it cleanly"
    text, n = _INVISIBLE_CONTROL.subn("", text)
    if n:
        warnings.append(f"removed {n} control characters (invisible, they would split words)")
    if "+" in enc:
        warnings.append(f"mixed encodings: decoded region by region as {enc}")
    if enc == "utf-8" and "\ufffd" in text and data.count(b"\xef\xbf\xbd") < text.count("\ufffd"):
        warnings.append("invalid UTF-8 bytes replaced with U+FFFD")
    text = _check_text(_storable(text, warnings), "text", limits)
    return Extracted("text", text, "auditor.text", _auditor_version(), encoding=enc, warnings=warnings,
                     unreadable=unreadable)


# -- HTML --------------------------------------------------------------------------------------

_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([-\w.:]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([-\w.:]+)""", re.I)
_WS = re.compile(r"[ \t\n\r\f\v\xa0]+")
_DISPLAY_NONE = re.compile(r"display\s*:\s*none", re.I)
# Never shown and never prose. <noscript>, <template>, <object> and <iframe> fallback content
# are read: a reader sees them (scripts, plug-ins or frames off) or a machine carries them to
# one; an iframe's ``srcdoc`` document is read too (below). In <svg>, only the text elements
# are text, until an HTML element that browsers do not let stay in SVG closes it.
_SKIP = frozenset({"script", "style", "head", "title", "math", "ix:header", "xml"})
_SVG_TEXT = frozenset({"text", "foreignobject"})
_SVG_BREAKOUT = frozenset({
    "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em",
    "embed", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "li", "listing", "menu", "meta",
    "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike", "sub", "sup",
    "table", "tt", "u", "ul", "var",
})
_MAX_SRCDOC_DEPTH = 4
_PARA = frozenset({
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "table", "blockquote", "pre", "hr", "ul", "ol", "dl",
    "section", "article", "header", "footer", "aside", "nav", "main", "figure", "address",
    "fieldset", "form", "details", "center", "listing", "xmp", "plaintext",
})
_BLOCK = frozenset({
    "div", "li", "tr", "dd", "dt", "caption", "figcaption", "body", "html", "summary", "legend",
    "thead", "tbody", "tfoot", "option", "menu", "dir", "frameset", "noframes", "br",
})
_CELL = frozenset({"td", "th"})
_VOID = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen", "basefont", "frame", "isindex",
})


class _TextBuilder:
    """Visible text from a stream of start/end/data events, whatever parser produces them.

    Whitespace runs collapse to one space (except inside ``pre``); block elements end lines;
    paragraph-like blocks leave one blank line; table cells are separated by tabs.
    """

    def __init__(self, depth: int = 0, warnings: list[str] | None = None) -> None:
        self.out: list[str] = []
        self.skip: list[str] = []
        self.pre = 0
        self.newlines = 0
        self.space = False
        self.tab = False
        self.depth = depth
        self.warnings = warnings if warnings is not None else []
        self.svg = 0  # open <svg> elements
        self.svg_text = 0  # open text elements inside them
        self.unreadable: list[str] = []

    def start(self, tag: str, attrs: Callable[[str], str | None]) -> None:
        if tag == "body":
            self.skip.clear()  # a <head> the stdlib tokenizer saw opened but never closed
        if self.skip:
            if tag not in _VOID:
                self.skip.append(tag)
            return
        if tag == "iframe" and attrs("srcdoc"):
            self._srcdoc(attrs("srcdoc") or "")
        if tag in _SKIP or _DISPLAY_NONE.search(attrs("style") or ""):
            if tag not in _VOID:
                self.skip.append(tag)
            return
        if self.svg and not self.svg_text and tag in _SVG_BREAKOUT:
            self.svg = 0  # as browsers do: this element ends the SVG, its text is shown
        if tag == "svg":
            self.svg += 1
        elif self.svg and tag in _SVG_TEXT:
            self.svg_text += 1
            self._block("div")
            return
        if tag == "br":
            if self.out:
                self.newlines = min(self.newlines + 1, 2)
            self.space = self.tab = False
        elif tag in _CELL:
            self.tab = True
        else:
            self._block(tag)
        if tag == "pre":
            self.pre += 1

    def _srcdoc(self, doc: str) -> None:
        """An iframe's ``srcdoc`` is a whole HTML document shown in place: its text goes here."""
        if self.depth >= _MAX_SRCDOC_DEPTH:
            self.unreadable.append(f"iframe srcdoc nested more than {_MAX_SRCDOC_DEPTH} deep: not read")
            return
        nested = _TextBuilder(self.depth + 1, self.warnings)
        _parse_html(doc, nested, self.warnings)
        self.unreadable += nested.unreadable
        text = nested.text().strip("\n")
        if text:
            self._block("p")
            self._flush()
            self.out.append(text)
            self._block("p")

    def end(self, tag: str) -> None:
        if self.skip:
            if tag in self.skip:
                while self.skip.pop() != tag:
                    pass
            return
        if tag == "svg" and self.svg:
            self.svg -= 1
            self.svg_text = min(self.svg_text, self.svg)
        elif self.svg_text and tag in _SVG_TEXT:
            self.svg_text -= 1
            self._block("div")
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
        if tag != "br":
            self._block(tag)

    def _block(self, tag: str) -> None:
        level = 2 if tag in _PARA else 1 if tag in _BLOCK else 0
        if level:
            self.newlines = max(self.newlines, level)
            self.space = self.tab = False

    def data(self, text: str) -> None:
        if self.skip or not text or (self.svg and not self.svg_text):
            return
        if self.pre:
            self._flush()
            self.out.append(text)
            return
        if text[0] in " \t\n\r\f\v\xa0":
            self.space = True
        words = _WS.sub(" ", text).strip(" ")
        if words:
            self._flush()
            self.out.append(words)
            self.space = text[-1] in " \t\n\r\f\v\xa0"

    def _flush(self) -> None:
        if self.out:
            if self.newlines:
                self.out.append("\n" * self.newlines)
            elif self.tab:
                self.out.append("\t")
            elif self.space:
                self.out.append(" ")
        self.newlines = 0
        self.space = self.tab = False

    def text(self) -> str:
        return "".join(self.out)


def _walk_lxml(root, builder: _TextBuilder) -> None:  # type: ignore[no-untyped-def]
    from lxml import etree

    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag
        if not isinstance(tag, str):  # comment, processing instruction or entity
            if event == "end":
                builder.data(el.tail or "")
            continue
        tag = tag.lower()
        if event == "start":
            builder.start(tag, el.get)
            builder.data(el.text or "")
        else:
            builder.end(tag)
            builder.data(el.tail or "")


class _StdlibWalker(html.parser.HTMLParser):
    """Fallback tokenizer for documents beyond libxml2's default limits (depth 256, 10 MB text
    nodes): it streams events without building a tree, so it has no depth or size limit."""

    def __init__(self, builder: _TextBuilder) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = builder

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.builder.start(tag, values.get)
        if tag in _VOID:
            self.builder.end(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag not in _VOID:
            self.builder.end(tag)

    def handle_data(self, data: str) -> None:
        self.builder.data(data)


def _decode_html(data: bytes, warnings: list[str]) -> tuple[str, str]:
    """BOM, then a declared charset (``<meta>`` or XML declaration), then ``decode_text``.

    A declaration is used only when it is a WHATWG Encoding label (browsers ignore any other,
    such as ``cp037``), decodes the bytes, and does not turn them into gibberish (a single-byte
    label on valid multi-byte UTF-8, a CJK label on cp1252 text); otherwise the encoding is
    detected, with a warning.
    """
    import webencodings

    if _bom(data) or _nul_pattern(data[:_SNIFF]):
        return decode_text(data)
    head = data[:_SNIFF]
    m = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    if not m:
        return decode_text(data)
    declared = m.group(1).decode("ascii", "replace")
    label = webencodings.lookup(declared)
    if label is None:
        text, used = decode_text(data)
        warnings.append(f"declared charset {declared!r} is not an encoding browsers know; ignored, used {used}")
        return text, used
    if label.name in ("utf-16le", "utf-16be", "replacement"):  # browsers do not decode with these either
        return decode_text(data)
    enc = codecs.lookup(label.codec_info.name).name
    try:
        text = data.decode(label.codec_info.name)
    except UnicodeDecodeError:
        text, used = decode_text(data)
        warnings.append(f"declared charset {declared!r} does not decode this document; used {used}")
        return text, used
    if text.isascii() or enc == "utf-8":
        return text, enc
    if _UTF8_MULTIBYTE.search(data):
        try:
            utf8 = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            warnings.append(f"declared charset {declared!r} turns valid UTF-8 into mojibake; used utf-8")
            return utf8, "utf-8"
    ratio = mess(text)
    if ratio > _MAX_MESS:
        other, used = decode_text(data)
        if mess(other) < ratio:
            warnings.append(f"declared charset {declared!r} gives gibberish (mess ratio {ratio:.2f}); used {used}")
            return other, used
    return text, enc


def _parse_html(text: str, builder: _TextBuilder, warnings: list[str]) -> None:
    from lxml import etree

    parser = etree.HTMLParser(
        encoding="utf-8", no_network=True, huge_tree=False, remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(text.encode("utf-8", "surrogatepass"), parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        root = None
    fatal = [e for e in parser.error_log if e.level == etree.ErrorLevels.FATAL]
    if fatal:
        warnings.append(f"lxml stopped early ({fatal[0].message.strip()}); used the stdlib HTML tokenizer")
        walker = _StdlibWalker(builder)
        walker.feed(text)
        walker.close()
    elif root is not None:
        _walk_lxml(root, builder)


def html_to_text(data: bytes, limits: Limits = Limits()) -> Extracted:
    """Visible text of an HTML document (also the HTML documents inside EDGAR submissions)."""
    warnings: list[str] = []
    text, enc = _decode_html(data, warnings)
    unreadable = []
    if "+" in enc:
        warnings.append(f"mixed encodings: decoded region by region as {enc}")
    if (enc in _GUESSED or "+" in enc) and mess(text) > _MAX_MESS:
        unreadable.append(f"HTML decoded as {enc} is gibberish (mess ratio {mess(text):.2f})")
    text = _storable(text, warnings)
    builder = _TextBuilder(0, warnings)
    _parse_html(text, builder, warnings)
    out = "\n".join(line.rstrip(" \t") for line in builder.text().split("\n")).strip("\n")
    out = _check_text(_storable(out, warnings), "HTML document", limits)
    return Extracted("html", out, "lxml", _version("lxml"), encoding=enc, warnings=warnings,
                     unreadable="; ".join(unreadable + builder.unreadable) or None)


# -- PDF ---------------------------------------------------------------------------------------


def _pdf(data: bytes, limits: Limits) -> tuple[list[str], pdfworker.PdfResult]:
    result = pdfworker.run(
        data, timeout=limits.pdf_timeout, memory=limits.pdf_memory,
        max_pages=limits.max_pdf_pages, max_chars=limits.max_text_chars)
    warnings = result.warnings
    pages = [_storable(p, warnings) for p in result.pages]
    return pages, result


def extract_pdf_pages(data: bytes, limits: Limits = Limits()) -> list[str]:
    """The text of each page of a PDF, extracted in a killable child process."""
    return _pdf(data, limits)[0]


# Letter-spaced text as pdfminer gives it: one space between the letters of a word, two or more
# between words ("S U P P L Y   A G R E E M E N T").
_SPACED_WORD = re.compile(r"(?<![^\s])(?:[^\s] )+[^\s](?![^\s])")
_WORD_GAP = re.compile(r"( {2,}|\t|\n)")
_CID_RUN = re.compile(r"(?:\(cid:\d+\))+")
_TOKEN = re.compile(r"[^\W_]+")
# Limits beyond which a PDF's text is not a reading of it (see _pdf_unreadable).
_MAX_CID_SHARE = 0.01
_MAX_SINGLE_LETTERS = 0.15
_MIN_SPACED_SHARE = 0.2
_SHORT_BLOCK = 3


def _join_letter_spaced(page: str) -> tuple[str, int]:
    """Rejoin letter-spaced words where word gaps are wider than letter gaps; (text, words)."""
    if "  " not in page and "\t" not in page:
        return page, 0
    joined = 0

    def segment(seg: str) -> str:
        nonlocal joined
        if _SPACED_WORD.fullmatch(seg):
            joined += 1
            return seg.replace(" ", "")
        return seg

    pieces = _WORD_GAP.split(page)
    out = [p if i % 2 else segment(p) for i, p in enumerate(pieces)]
    if not joined:
        return page, 0
    return "".join(p if not i % 2 or not p.startswith("  ") else " " for i, p in enumerate(out)), joined


def _pdf_unreadable(text: str, letter_spaced: int) -> str | None:
    """Why pdfminer's text is not a reading of the PDF, or None.

    * glyphs without a Unicode mapping, ``(cid:N)``, inside or as words: more than 1% of the
      letters (a lone unmapped bullet does not count);
    * words shattered into single letters: more than 15% of the tokens (after letter-spaced
      words were rejoined), as when letter spacing is too wide for a line to hold together;
    * letter-spaced text (a fifth of the words or more) that pdfminer's layout analysis broke
      into blocks of a few words, in an order that is not the reading order.
    """
    letters = sum(1 for c in text if c.isalnum())
    in_word = 0
    for m in _CID_RUN.finditer(text):
        n = m.group().count("(cid:")
        before = text[m.start() - 1 : m.start()]
        after = text[m.end() : m.end() + 1]
        if n > 1 or before.isalnum() or after.isalnum():
            in_word += n
    if in_word > _MAX_CID_SHARE * (letters + in_word):
        return (f"{in_word} glyphs without a Unicode mapping ((cid:N)) inside words: the PDF's "
                "fonts do not say which letters they draw")
    tokens = _TOKEN.findall(_CID_RUN.sub(" ", text))
    singles = sum(1 for t in tokens if len(t) == 1 and t.lower() not in ("a", "i") and not t.isdigit())
    if tokens and singles > _MAX_SINGLE_LETTERS * len(tokens):
        return f"{singles} of {len(tokens)} words are single letters: letter-spaced text that cannot be rejoined"
    if letter_spaced > _MIN_SPACED_SHARE * len(tokens):
        blocks = [len(_TOKEN.findall(b)) for b in re.split(r"\n\s*\n", text)]
        blocks = [n for n in blocks if n]
        short = sum(1 for n in blocks if n <= _SHORT_BLOCK)
        if short >= 3 and short > len(blocks) / 3:
            return (f"letter-spaced text broken into fragments ({short} of {len(blocks)} blocks hold "
                    f"{_SHORT_BLOCK} words or fewer): the word order cannot be trusted")
    return None


def _extract_pdf(data: bytes, limits: Limits) -> Extracted:
    pages, result = _pdf(data, limits)
    offsets: list[int] = []
    chunks: list[str] = []
    pos = 0
    letter_spaced = 0
    for page in pages:
        page, joined = _join_letter_spaced(page)
        letter_spaced += joined
        offsets.append(pos)
        if page and not page.endswith("\n"):
            page += "\n"
        chunks.append(page)
        pos += len(page)
    text = "".join(chunks)
    if not text.strip():
        raise ExtractionError(
            "no_text", f"PDF has no text layer in its {len(pages)} page(s): scanned images need OCR")
    _check_text(text, "PDF", limits)
    warnings = list(result.warnings)
    unmapped = text.count("(cid:")
    if unmapped:
        warnings.append(f"{unmapped} glyphs without a Unicode mapping appear as (cid:N)")
    if letter_spaced:
        warnings.append(f"rejoined {letter_spaced} letter-spaced words")
    return Extracted("pdf", text, "pdfminer.six", result.version or _version("pdfminer.six"),
                     page_offsets=offsets, warnings=warnings, unreadable=_pdf_unreadable(text, letter_spaced))


# -- .docx -------------------------------------------------------------------------------------

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCX_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
                RuntimeError, NotImplementedError, zlib.error)


def _read_member(data: bytes, member: str, limit: int) -> bytes:
    """One zip member, stopping as soon as it inflates past ``limit`` (declared sizes can lie)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            info = z.getinfo(member)
            if info.file_size > limit:
                raise ExtractionError("too_large", f"{member} inflates to {info.file_size} bytes, more than {limit}")
            with z.open(info) as f:
                out = f.read(limit + 1)
    except KeyError as e:
        raise ExtractionError("docx_error", f"not a .docx: no {member}") from e
    except _DOCX_ERRORS as e:
        raise ExtractionError("docx_error", f"unreadable .docx: {type(e).__name__}: {e}") from e
    if len(out) > limit:
        raise ExtractionError("too_large", f"{member} inflates to more than {limit} bytes")
    return out


_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
# Parts with text besides the body, read after it in this order (then by name).
_DOCX_PARTS = re.compile(r"word/(footnotes|endnotes|comments|header\d*|footer\d*)\.xml")
_DOCX_PART_ORDER = ("footnotes", "endnotes", "comments", "header", "footer")
_MAX_DOCX_DEPTH = 3


class _DocxReader:
    """The text of a .docx: body, text boxes, altChunk parts, notes, comments, headers, footers.

    Every member is read through one inflation budget, so many parts cannot add up to a bomb.
    Text that cannot be read (an entity reference, an altChunk in a format not read here) is
    recorded in ``unreadable`` instead of being dropped silently.
    """

    def __init__(self, data: bytes, limits: Limits, depth: int) -> None:
        self.data, self.limits, self.depth = data, limits, depth
        self.budget = limits.max_file_bytes * 20
        self.unreadable: list[str] = []
        self.warnings: list[str] = []
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                self.names = sorted(z.namelist())
        except _DOCX_ERRORS as e:
            raise ExtractionError("docx_error", f"unreadable .docx: {type(e).__name__}: {e}") from e

    def member(self, name: str) -> bytes:
        out = _read_member(self.data, name, self.budget)
        self.budget -= len(out)
        return out

    def xml(self, name: str):  # type: ignore[no-untyped-def]
        from lxml import etree

        parser = etree.XMLParser(
            resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False, remove_pis=True)
        try:
            return etree.fromstring(self.member(name), parser)
        except (etree.XMLSyntaxError, ValueError) as e:
            raise ExtractionError("docx_error", f"{name} is not well-formed: {e}") from e

    def rels(self, part: str) -> dict[str, str]:
        """Relationship id -> member name, for ``word/document.xml``'s relationships."""
        folder, _, base = part.rpartition("/")
        name = f"{folder}/_rels/{base}.rels"
        if name not in self.names:
            return {}
        out = {}
        for rel in self.xml(name).iter(_REL):
            target = rel.get("Target") or ""
            if rel.get("TargetMode") == "External":
                continue
            path = target.lstrip("/") if target.startswith("/") else os.path.normpath(f"{folder}/{target}")
            out[rel.get("Id") or ""] = path.replace(os.sep, "/")
        return out

    def text(self) -> str:
        body = self.part_text("word/document.xml", self.rels("word/document.xml"))
        extra = [n for n in self.names if _DOCX_PARTS.fullmatch(n)]
        extra.sort(key=lambda n: (_DOCX_PART_ORDER.index(_DOCX_PARTS.fullmatch(n).group(1).rstrip("0123456789")), n))  # type: ignore[union-attr]
        chunks = [body] + [self.part_text(n, {}) for n in extra]
        return "\n\n".join(c.strip("\n") for c in chunks if c.strip())

    def part_text(self, name: str, rels: dict[str, str]) -> str:
        from lxml import etree

        root = self.xml(name)
        out: list[str] = []
        entities = 0
        walk = etree.iterwalk(root, events=("start", "end"))
        for event, el in walk:
            tag = el.tag
            if event == "start":
                if tag in (f"{_W}t", f"{_W}delText"):
                    out.append(el.text or "")
                    for child in el:  # entity references (text after one is its tail)
                        entities += 1
                        out.append(child.tail or "")
                elif tag == f"{_W}tab":
                    out.append("\t")
                elif tag in (f"{_W}br", f"{_W}cr"):
                    out.append("\n")
                elif tag == f"{_W}noBreakHyphen":
                    out.append("-")
                elif tag == _MC_FALLBACK:
                    walk.skip_subtree()  # the same content as its mc:Choice (a text box twice)
                elif tag == f"{_W}altChunk":
                    out.append("\n" + self.alt_chunk(el.get(_R_ID) or "", rels) + "\n")
            elif tag == f"{_W}p":
                out.append("\n")
        if entities:
            self.unreadable.append(
                f"{name}: {entities} entity reference(s) not expanded (a DOCTYPE is not allowed in a .docx)")
        return "".join(out)

    def alt_chunk(self, rid: str, rels: dict[str, str]) -> str:
        """The text of an altChunk: an embedded HTML, text or .docx part shown in its place."""
        import email
        import email.policy

        target = rels.get(rid)
        if target is None or target not in self.names:
            self.unreadable.append(f"altChunk {rid!r} refers to no part of this .docx")
            return ""
        raw = self.member(target)
        if raw.lstrip()[:40].lower().startswith(b"mime-version:"):  # .mht: MIME-wrapped HTML
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            html_part = next((p for p in msg.walk() if p.get_content_type() == "text/html"), None)
            if html_part is None:
                self.unreadable.append(f"altChunk {target}: MIME part without HTML")
                return ""
            raw = html_part.get_payload(decode=True) or b""
        fmt = detect_format(raw, target)
        if fmt == "docx" and self.depth >= _MAX_DOCX_DEPTH:
            self.unreadable.append(f"altChunk {target}: .docx nested more than {_MAX_DOCX_DEPTH} deep")
            return ""
        if fmt not in ("html", "text", "docx"):
            self.unreadable.append(f"altChunk {target}: {binary_kind(raw) or fmt} content is not read")
            return ""
        try:
            ex = _extract_docx(raw, self.limits, self.depth + 1) if fmt == "docx" else _extract_format(fmt, raw, self.limits)
        except ExtractionError as e:
            if e.code == "empty":
                return ""
            self.unreadable.append(f"altChunk {target}: {e}")
            return ""
        if ex.unreadable:
            self.unreadable.append(f"altChunk {target}: {ex.unreadable}")
        return ex.text


def _extract_docx(data: bytes, limits: Limits, depth: int = 0) -> Extracted:
    reader = _DocxReader(data, limits, depth)
    if "word/document.xml" not in reader.names:
        raise ExtractionError("docx_error", "not a .docx: no word/document.xml")
    warnings = reader.warnings
    text = _check_text(_storable(reader.text(), warnings), ".docx", limits)
    return Extracted("docx", text, "auditor.docx", _auditor_version(), encoding=None, warnings=warnings,
                     unreadable="; ".join(reader.unreadable) or None)


# -- EDGAR -------------------------------------------------------------------------------------

_SKIP_CODES = ("empty", "binary")


def _extension(name: str) -> str | None:
    ext = os.path.splitext(name)[1].lower().lstrip(".")
    return ext if ext.isalnum() and len(ext) <= 5 else None


_ARCHIVES = ("gz", "zip", "bz2", "xz")
_MAX_ARCHIVE_DEPTH = 2
_HTML_IN_TEXT = re.compile(r"<\s*/?\s*[a-zA-Z][\w:-]*[^<>]*>")


def xml_to_text(data: bytes, limits: Limits = Limits()) -> Extracted:
    """Every text node of an XML document (an EDGAR ``<XML>`` or ``<XBRL>`` part), one per line;
    a node holding escaped HTML (an XBRL text block) gives that HTML's visible text."""
    from lxml import etree

    warnings: list[str] = []
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
                             remove_pis=True, remove_comments=True, recover=True)
    try:
        root = etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError) as e:
        raise ExtractionError("xml_error", f"unreadable XML: {e}") from e
    if root is None:
        raise ExtractionError("xml_error", "unreadable XML: no root element")
    unreadable = None
    fatal = [e for e in parser.error_log if e.level == etree.ErrorLevels.FATAL]
    if fatal:  # recovery may have dropped text after the error
        unreadable = f"XML not well-formed at line {fatal[0].line} ({fatal[0].message.strip()}): text may be missing"
    elif len(parser.error_log):
        warnings.append(f"XML read with recovery ({parser.error_log[0].message.strip()})")
    out: list[str] = []
    for node in root.iter():
        for value in (node.text, node.tail if node is not root else None):
            if value and value.strip():
                if "<" in value and _HTML_IN_TEXT.search(value):
                    try:
                        value = html_to_text(value.encode("utf-8", "surrogatepass"), limits).text
                    except ExtractionError:
                        continue
                out.append(value.strip())
    text = _check_text(_storable("\n".join(out), warnings), "XML document", limits)
    return Extracted("xml", text, "lxml", _version("lxml"), encoding="utf-8", warnings=warnings,
                     unreadable=unreadable)


def _unpack(data: bytes, kind: str, limit: int) -> list[tuple[str, bytes]]:
    """(name, bytes) of an archive's members, refusing to inflate past ``limit`` in total."""
    import bz2
    import gzip
    import lzma

    if kind == "zip":
        out: list[tuple[str, bytes]] = []
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for info in sorted(z.infolist(), key=lambda i: i.filename):
                    if info.is_dir():
                        continue
                    member = _read_member(data, info.filename, limit)
                    limit -= len(member)
                    out.append((info.filename, member))
        except _DOCX_ERRORS as e:
            raise ExtractionError("archive_error", f"unreadable zip: {type(e).__name__}: {e}") from e
        return out
    opener = {"gz": gzip.GzipFile, "bz2": bz2.BZ2File, "xz": lzma.LZMAFile}[kind]
    try:
        with opener(fileobj=io.BytesIO(data)) as f:  # type: ignore[operator]
            out_bytes = f.read(limit + 1)
    except (OSError, EOFError, lzma.LZMAError, ValueError, zlib.error) as e:
        raise ExtractionError("archive_error", f"unreadable {kind}: {type(e).__name__}: {e}") from e
    if len(out_bytes) > limit:
        raise ExtractionError("too_large", f"{kind} data inflates to more than {limit} bytes")
    return [("", out_bytes)]


def _extract_archive(data: bytes, name: str, limits: Limits, depth: int = 0) -> Extracted:
    """The text of every member of a compressed part (a uuencoded .gz or .zip exhibit), in name
    order; members that cannot be read are named in ``unreadable``."""
    kind = binary_kind(data) or ""
    members = _unpack(data, kind, limits.max_file_bytes)
    texts: list[str] = []
    unreadable: list[str] = []
    warnings = [f"decompressed {kind} {name!r}: {len(members)} member(s)"]
    for member, raw in members:
        label = member or (name[:-3] if name.lower().endswith(".gz") else name)
        fmt = detect_format(raw, label)
        inner = binary_kind(raw)
        try:
            if inner in _ARCHIVES and depth < _MAX_ARCHIVE_DEPTH:
                ex = _extract_archive(raw, label, limits, depth + 1)
            elif fmt in ("binary", "edgar"):
                unreadable.append(f"{label}: {inner or fmt} content is not read")
                continue
            else:
                ex = _extract_format(fmt, raw, limits)
        except ExtractionError as e:
            if e.code != "empty":
                unreadable.append(f"{label}: {e}")
            continue
        if ex.unreadable:
            unreadable.append(f"{label}: {ex.unreadable}")
        texts.append(ex.text)
        warnings += ex.warnings
    text = _check_text("\n\n".join(t.strip("\n") for t in texts), f"{kind} archive", limits)
    return Extracted(f"{kind}-archive", text, "auditor.archive", _auditor_version(), warnings=warnings,
                     unreadable="; ".join(unreadable) or None)


def _extract_part(doc: edgar.Document, limits: Limits) -> Part:
    meta = dict(doc.meta)
    try:
        content = edgar.content(doc.raw)
        if content.kind in ("xbrl", "xml"):
            ex = xml_to_text(content.payload, limits)
        elif content.kind == "html":
            ex = html_to_text(content.payload, limits)
        elif content.kind == "text":
            ex = _extract_text(content.payload, limits)
        else:
            name = content.name or meta.get("filename") or ""
            fmt = detect_format(content.payload, name)
            kind = binary_kind(content.payload)
            if kind in _ARCHIVES:
                ex = _extract_archive(content.payload, name, limits)
            elif fmt == "binary" or fmt == "edgar":
                kind = _extension(name) or kind or "unknown"
                return Part(doc.raw, meta, "skipped", None, f"binary:{kind}",
                            f"binary document {name!r} ({len(content.payload)} bytes decoded)")
            else:
                ex = _extract_format(fmt, content.payload, limits)
        ex.warnings[:0] = content.warnings
    except ExtractionError as e:
        status = "skipped" if e.code in _SKIP_CODES else "failed"
        return Part(doc.raw, meta, status, None, e.code, str(e))
    ex.meta = {**meta, **ex.meta}
    return Part(doc.raw, meta, "ok", ex)


def _extract_edgar(data: bytes, limits: Limits) -> Extracted:
    sub = edgar.parse(data, max_documents=limits.max_parts)
    parts = [_extract_part(doc, limits) for doc in sub.documents]
    if sub.omitted:
        first, n = len(sub.documents) + 1, len(sub.documents) + sub.omitted
        parts.append(Part(b"", {"sequence": f"{first}-{n}"}, "failed", None, "too_many_parts",
                          f"the submission holds {n} documents, more than the limit of "
                          f"{limits.max_parts}: documents {first} to {n} were not read"))
    return Extracted("edgar", "", "auditor.edgar", _auditor_version(), meta=sub.meta, parts=parts,
                     warnings=sub.warnings)


# -- entry points ------------------------------------------------------------------------------


def _extract_format(fmt: str, data: bytes, limits: Limits) -> Extracted:
    if fmt == "pdf":
        return _extract_pdf(data, limits)
    if fmt == "docx":
        return _extract_docx(data, limits)
    if fmt == "html":
        return html_to_text(data, limits)
    if fmt == "edgar":
        return _extract_edgar(data, limits)
    if fmt == "binary":
        kind = binary_kind(data) or "zip"
        raise ExtractionError("binary", f"binary data ({kind}), not a supported document format")
    return _extract_text(data, limits)


def extract_bytes(data: bytes, name: str = "", limits: Limits = Limits()) -> Extracted:
    """Extract the text of one input. Raises ExtractionError with a stable ``code``."""
    if len(data) > limits.max_file_bytes:
        raise ExtractionError("too_large", f"{len(data)} bytes, more than the limit of {limits.max_file_bytes}")
    if not data.strip():
        raise ExtractionError("empty", "empty input" if not data else "input is only whitespace")
    return _extract_format(detect_format(data, name), data, limits)


def extract(source: str | os.PathLike | BinaryIO, limits: Limits = Limits()) -> Extracted:
    """Extract the text of a file given by path or as a binary file object.

    Oversized inputs are refused before they are read whole.
    """
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        size = os.stat(name).st_size
        if size > limits.max_file_bytes:
            raise ExtractionError("too_large", f"{size} bytes, more than the limit of {limits.max_file_bytes}")
        with open(name, "rb") as f:
            data = f.read(limits.max_file_bytes + 1)
    else:
        name = str(getattr(source, "name", "") or "")
        data = source.read(limits.max_file_bytes + 1)
        if not isinstance(data, bytes):
            raise TypeError("extract() needs a binary file object")
    return extract_bytes(data, name, limits)
