"""Plain text in any encoding: byte-order marks, UTF-16/32 without one, UTF-8, a detector for
the other 8-bit encodings, then cp1252 and latin-1; files that switch encoding are decoded
region by region. Gibberish and binary data are told apart from text. Text laid out for paper
(pleading-paper line numbers, two columns) is read in a reader's order (:mod:`.layout`), the
lines as stored kept as the reading ``text:as-stored``. Lines end at LF, CR LF or a lone CR, as a
text viewer ends them."""

from __future__ import annotations

import codecs
import re

from auditor.errors import ExtractionError
from auditor.extract.common import Extracted, Limits, Reading, auditor_version, check_text, storable
from auditor.extract.layout import column_reading, pleading_margin, two_columns
from auditor.extract.letters import letter_spacing
from auditor.extract.order import BIDI_CONTROLS, display_order

#: How much of the head of a file format sniffing and NUL-pattern detection look at.
SNIFF = 4096

_BOMS = [
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
]
UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_INVISIBLE_CONTROL = re.compile(r"[\x01-\x08\x0e-\x1f\x7f-\x9f]+")  # NUL: see storable
_BINARY_HEAD = 65536
#: Spaces other than U+0020 (no-break, figure, thin, ideographic...) as the blanks a text viewer
#: draws for them, for finding a page's layout: a gutter or a margin of no-break spaces is one
#: a reader sees (the ideographic space is two columns wide in a monospaced font)
_BLANKS = {c: " " for c in (0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F)} | {0x3000: "  "}
_MAX_CONTROL = 0.05


def detect_bom(data: bytes) -> tuple[str, int] | None:
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return enc, len(bom)
    return None


def nul_pattern(head: bytes) -> str | None:
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
    bom = detect_bom(data)
    wide = bom[0] if bom else nul_pattern(data[:SNIFF])
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
            if start >= 1 and nul_pattern(data[start : start + SNIFF]):
                return start
        pos = data.find(b"\x00", pos + SNIFF)
    return None


def _decode_8bit(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if not UTF8_MULTIBYTE.search(data):
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
    if len(UTF8_MULTIBYTE.findall(data)) >= 2 * bad:
        return text, "utf-8"
    return "", "mixed"


def _decode_single_byte(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


# Above this charset-normalizer "mess ratio" (its own cut-off for a plausible decoding), text
# decoded from a guessed or declared 8-bit encoding is gibberish.
MAX_MESS = 0.2
_MESS_CHUNK = 100_000
GUESSED = ("cp1252", "latin-1")


def mess(text: str) -> float:
    """How much ``text`` looks like a wrong decoding (0 clean; above 0.2 gibberish): the worst
    ratio of charset-normalizer's mess detector over 100,000-character chunks."""
    from charset_normalizer.md import mess_ratio

    if text.isascii() and not CONTROL.search(text):
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
    return (text, codecs.lookup(best.encoding).name) if mess(text) <= MAX_MESS else None


def _is_binary_text(text: str) -> bool:
    head = text[:_BINARY_HEAD]
    return len(CONTROL.findall(head)) > _MAX_CONTROL * len(head)


def extract_text(data: bytes, limits: Limits) -> Extracted:
    text, enc = decode_text(data)
    warnings: list[str] = []
    unreadable = None
    guessed = enc in GUESSED or "+" in enc
    if _is_binary_text(text) or (guessed and mess(text) > MAX_MESS):
        found = _detected(data)  # an 8-bit encoding that is neither UTF-8 nor cp1252 (EBCDIC...)
        if found:
            warnings.append(f"decoding as {enc} gave gibberish; the detected {found[1]} reads cleanly")
            text, enc = found
        elif _is_binary_text(text):
            # Text with control characters strewn through it is still text; binary data is not.
            visible = CONTROL.sub("", text)
            if not visible.strip() or mess(visible) > MAX_MESS:
                raise ExtractionError("binary", f"binary data: more than {_MAX_CONTROL:.0%} control characters when decoded as {enc}")
        else:
            unreadable = f"text decoded as {enc} is gibberish (mess ratio {mess(text):.2f}) and no encoding reads it cleanly"
    if enc == "utf-8" and "\ufffd" in text and data.count(b"\xef\xbf\xbd") < text.count("\ufffd"):
        warnings.append("invalid UTF-8 bytes replaced with U+FFFD")
    return _read(text, enc, limits, warnings, unreadable)


def read_plain(text: str, limits: Limits) -> Extracted:
    """Text already decoded (a mail body, a part of a container), read as a text viewer shows a
    text file: control characters removed, a line-number margin and columns read in a reader's
    order, letter spacing joined, bidirectional text reordered; as :func:`extract_text` reads the
    text it decodes. Text with no words left is returned empty, not refused: the container says
    whether it is empty."""
    try:
        return _read(text, "utf-8", limits, [], None)
    except ExtractionError as e:
        if e.code != "empty":
            raise
        return Extracted("text", "", "auditor.text", auditor_version(), encoding="utf-8")


def _read(text: str, enc: str, limits: Limits, warnings: list[str], unreadable: str | None) -> Extracted:
    text, n = _INVISIBLE_CONTROL.subn("", text)
    if n:
        warnings.append(f"removed {n} control characters (invisible, they would split words)")
    if "+" in enc:
        warnings.append(f"mixed encodings: decoded region by region as {enc}")
    readings = []
    # lines end where a text viewer ends them: CR LF (Windows) and a lone CR (old Macintosh) are
    # line ends too, so the layout readers below see the lines a reader sees
    text = storable(text, warnings)
    stored = text
    for read_in_order in (pleading_margin, two_columns):
        got = read_in_order(text if text.isascii() else text.translate(_BLANKS))
        if got is not None:
            text = got.text
            if got.changed:
                warnings.append(got.changed)
            if got.unreadable:
                unreadable = "; ".join(filter(None, [unreadable, got.unreadable]))
    if text is not stored:
        readings.append(Reading("text:as-stored", storable(stored, []),
                                "the lines as stored, read across: margin numbers and columns as a text editor shows them"))
    columns = column_reading(text if text.isascii() else text.translate(_BLANKS))
    if columns is not None:
        readings.append(Reading("text:columns", storable(columns, []),
                                "the lines read column by column where a gutter splits them into sides too narrow "
                                "to be told from a table"))
    text, joined, spaced = letter_spacing(text)
    if joined:
        warnings.append(f"rejoined {joined} letter-spaced words")
    if spaced:
        unreadable = "; ".join(filter(None, [unreadable, spaced]))
    text = check_text(storable(text, warnings), "text", limits)
    if not text.isascii():
        shown = display_order(text, auto=True)  # a text editor shows bidi text reordered too
        if shown != text:
            readings.append(Reading("text:logical-order", BIDI_CONTROLS.sub("", text),
                                    "the text in the order it is stored, before bidirectional reordering"))
            text = shown
    return Extracted("text", text, "auditor.text", auditor_version(), encoding=enc, warnings=warnings,
                     unreadable=unreadable, readings=readings)
