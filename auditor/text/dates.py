"""Dates of documents, read from what the document and its copies say: pure functions, no I/O.

A version history (terms of service, a privacy statement, a contract and its amendments) is
deduplicated well only when the tool knows which copy is newest. Every document gets one date
with its source, chosen by trust:

1. ``supplied``: a date the user supplies for a copy (``--dates FILE``: a crawl that knows when
   each copy was published);
2. ``metadata``: what the file records about itself: an EDGAR submission's filing date, an
   email's Date header, a PDF's ``/ModDate`` or XMP ``ModifyDate``, a .docx ``dcterms:modified``
   (an OpenDocument ``dc:date``, a Word 2003 XML ``LastSaved``, a .doc's date), a feed's
   ``updated`` or ``lastBuildDate``, an HTML ``<meta>`` date or ``Last-Modified``; modification
   dates before creation dates;
3. ``mtime``: the file's modification time recorded at ingest, when it is not the time the file
   was copied (see 5);
4. ``text``: a date the text states at the start of one of its opening lines ("Effective date:
   October 1, 2023", "Last updated: December 2025", "Dated as of the 3rd day of March, 2020");
5. ``copied``: a modification time less than a day before ingest saw the file: a checkout, a
   copy or a download, not a publication.

Why a stated date ranks below a file's time: it says when the terms take effect, not which
version is current. In the 1,259 published versions of GitHub's site policies it stayed the
same across 307 of 391 consecutive edits, went back in 4 (a typo fixed, an effective date moved
earlier), and ranked above the commit dates it kept an older version in place of a newer one in
15 of 1,119 drops. Ranked below them, it still dates a corpus whose files were all copied at once.

Dates are ISO 8601 strings at the precision given: ``2023``, ``2023-10``, ``2023-10-01``, or a
time in UTC (``2023-10-01T12:00:00Z``; a time without a zone is kept without one). Nothing is
guessed: an ambiguous ``03/04/2023`` or an unknown format gives no date, and a date more than a
year after the document was ingested is not believed (a hostile file cannot win "newest" by
claiming the year 2999).
"""

from __future__ import annotations

import email.utils
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from html.parser import HTMLParser
from typing import Any

KINDS = ("supplied", "metadata", "mtime", "text", "copied")  # in order of trust
COPIED = timedelta(days=1)  # a modification time this close before ingest is the copy's
MIN_YEAR, MAX_YEAR = 1000, 9999
FUTURE = timedelta(days=366)  # own dates later than this after ingest are not believed
OPENING_CHARS = 8000  # the opening lines searched for a stated date
MAX_RAW = 200  # characters of a metadata value kept

# Metadata names, most trusted first: the filing date of an EDGAR submission, then dates of the
# last modification, then of creation or publication. Other names follow, by name.
METADATA_ORDER = (
    "edgar:filing_date", "email:date", "http:last-modified", "feed:updated", "feed:lastBuildDate", "feed:pubDate",
    "feed:date", "pdf:ModDate", "xmp:ModifyDate", "xmp:MetadataDate",
    "docx:modified", "odf:modified", "wordml:modified", "doc:date", "html:article:modified_time", "html:og:updated_time", "html:dcterms.modified",
    "html:dc.date.modified", "html:last-modified", "html:revised", "html:date",
    "html:dcterms.date", "html:dc.date", "html:article:published_time", "html:dcterms.issued",
    "html:dcterms.created", "html:citation_publication_date", "pdf:CreationDate", "xmp:CreateDate",
    "docx:created", "odf:created", "wordml:created", "edgar:period",
)
HTML_META = frozenset(n.split(":", 1)[1] for n in METADATA_ORDER if n.startswith("html:"))

_MONTHS = {m: i for i, ms in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
    ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
    ("october", "oct"), ("november", "nov"), ("december", "dec")), 1) for m in ms}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_WORDY = [re.compile(p, re.I) for p in (
    rf"{_MONTH}\s+{_DAY}\s*,?\s+{_YEAR}",  # October 1, 2023; Oct. 1st 2023
    rf"(?:the\s+)?{_DAY}\s+(?:day\s+of\s+)?{_MONTH}\s*,?\s+{_YEAR}",  # 1 October 2023; the 3rd day of March, 2020
    rf"{_MONTH}\s*,?\s+{_YEAR}",  # December 2025
)]
_ISO = re.compile(r"(?P<date>\d{4}(?:-\d{2}(?:-\d{2})?)?)(?:[T ](?P<time>\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)"
                  r"\s*(?P<zone>Z|[+-]\d{2}(?::?\d{2})?)?)?")
_COMPACT = re.compile(r"(?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})(?:(?P<H>\d{2})(?P<M>\d{2})(?P<S>\d{2})?)?")
_PDF = re.compile(r"(?:D:)?(?P<y>\d{4})(?P<m>\d{2})?(?P<d>\d{2})?(?P<H>\d{2})?(?P<M>\d{2})?(?P<S>\d{2})?"
                  r"(?P<zone>[Zz]|[+-]\d{2}'?(?:\d{2}'?)?)?")
_NUMERIC = re.compile(r"(?P<a>\d{1,4})[/.](?P<b>\d{1,2})[/.](?P<c>\d{1,4})")

# A date stated at the start of a line: "Effective date: ...", "Last updated ...", "Dated as of ...".
_PHRASE = (r"(?:version\s+)?effective(?:\s+date)?(?:\s+(?:as\s+of|on|from))?"
           r"|last\s+(?:updated|revised|modified|amended|changed|reviewed)(?:\s+(?:on|as\s+of))?"
           r"|(?:updated|revised|amended)(?:\s+(?:on|as\s+of))?"
           r"|dated(?:\s+as\s+of)?"
           r"|(?:publication|release|revision|issue)\s+date|published(?:\s+on)?")
_STATED = re.compile("^[\\s>#*_|\\-+\u2022\u00b7]*(?P<phrase>" + _PHRASE + r")\b[\s*_]*[:\-\u2013\u2014]?[\s*_]*(?P<rest>.{4,60})",
                     re.I | re.M)


@dataclass(frozen=True)
class Dated:
    """One date of a document: ``date`` (ISO 8601), ``source`` (``supplied:FILE``,
    ``pdf:ModDate``, ``text``, ``mtime``...) and ``found``, the value as it was found."""

    date: str
    source: str
    found: str = ""

    @property
    def kind(self) -> str:
        return kind_of(self.source)

    def as_dict(self) -> dict[str, str]:
        return {"date": self.date, "source": self.source, "found": self.found}


def kind_of(source: str) -> str:
    """``supplied``, ``metadata``, ``mtime``, ``text`` or ``copied``: the trust of a date from
    ``source``."""
    head = source.split(":", 1)[0]
    return head if head in ("supplied", "text", "mtime", "copied") else "metadata"


# -- parsing one value ------------------------------------------------------------------------

def _ymd(y: int, m: int | None = None, d: int | None = None) -> str | None:
    if not MIN_YEAR <= y <= MAX_YEAR:
        return None
    if m is None:
        return f"{y:04d}"
    if not 1 <= m <= 12:
        return None
    if d is None:
        return f"{y:04d}-{m:02d}"
    try:
        datetime(y, m, d)
    except ValueError:
        return None
    return f"{y:04d}-{m:02d}-{d:02d}"


def _at(dt: datetime) -> str | None:
    if not MIN_YEAR <= dt.year <= MAX_YEAR:
        return None
    if dt.tzinfo is None:
        return dt.replace(microsecond=0).isoformat()
    try:
        return dt.astimezone(UTC).replace(microsecond=0, tzinfo=None).isoformat() + "Z"
    except (OverflowError, ValueError):
        return None


def _zone(z: str | None) -> timezone | None:
    if not z:
        return None
    if z in ("Z", "z"):
        return UTC
    digits = re.sub(r"\D", "", z)
    if len(digits) not in (2, 4):
        return None
    minutes = int(digits[:2]) * 60 + int(digits[2:] or 0)
    if minutes >= 24 * 60:
        return None
    return timezone(timedelta(minutes=-minutes if z[0] == "-" else minutes))


def _clock(y: str, m: str | None, d: str | None, hh: str | None, mm: str | None, ss: str | None,
           zone: str | None) -> str | None:
    day = _ymd(int(y), int(m) if m else None, int(d) if d else None)
    if day is None or not (m and d and hh and mm):
        return day
    try:
        dt = datetime(int(y), int(m), int(d), int(hh), int(mm), int(ss or 0))
    except ValueError:
        return day
    tz = _zone(zone)
    return _at(dt.replace(tzinfo=tz) if tz else dt)


def parse(value: Any) -> str | None:
    """An ISO 8601 date from one metadata or user value: ISO 8601 (``2023-10-01``,
    ``2023-10-01T12:00:00+02:00``), compact ``20231001`` (EDGAR), PDF ``D:20231001120000+02'00'``,
    RFC 2822 / HTTP (``Sun, 01 Oct 2023 12:00:00 GMT``), seconds since 1970 (9 or 10 digits), or
    a date in words (``October 1, 2023``, ``1st October 2023``, ``December 2025``). None for
    anything else or ambiguous."""
    if value is None:
        return None
    s = str(value).strip()[:MAX_RAW]
    if not s:
        return None
    if m := _ISO.fullmatch(s):
        parts = [int(p) for p in m["date"].split("-")]
        if not m["time"]:
            return _ymd(*parts)
        if len(parts) < 3:
            return None
        try:
            dt = datetime.fromisoformat(f"{m['date']}T{m['time'].replace(',', '.')}")
        except ValueError:
            return None
        tz = _zone(m["zone"])
        if m["zone"] and tz is None:
            return None
        return _at(dt.replace(tzinfo=tz) if tz else dt)
    if re.fullmatch(r"\d{9,10}(?:\.\d+)?", s):  # seconds since 1970 (2001-09-09 to 2286)
        return _at(datetime.fromtimestamp(float(s), UTC))
    if m := _COMPACT.fullmatch(s):
        return _clock(m["y"], m["m"], m["d"], m["H"], m["M"], m["S"], None)
    if m := _PDF.fullmatch(s):
        return _clock(m["y"], m["m"], m["d"], m["H"], m["M"], m["S"], m["zone"])
    if re.match(r"[A-Za-z]{3},?\s+\d", s) or re.fullmatch(r"\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d.*", s):
        try:
            return _at(email.utils.parsedate_to_datetime(s))
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
    return words(s, whole=True) or _numeric(s)


def words(s: str, *, whole: bool = False) -> str | None:
    """A date in words at the start of ``s`` (the whole of it with ``whole``)."""
    for rx in _WORDY:
        m = rx.fullmatch(s) if whole else rx.match(s)
        if m is None:
            continue
        month = _MONTHS[m["month"].lower()]
        day = m.groupdict().get("day")
        if not whole and rx is _WORDY[2] and re.match(r"\s*\d", s[m.end():]):
            return None  # "October 2023 1": not a month alone
        if not whole and s[m.end():m.end() + 1].isdigit():
            return None  # the year runs on: not a year
        return _ymd(int(m["year"]), month, int(day) if day else None)
    return None


def _numeric(s: str) -> str | None:
    """``2023/10/01``; ``10/13/2023`` or ``13/10/2023`` only where the day cannot be the month."""
    m = _NUMERIC.fullmatch(s)
    if m is None:
        return None
    a, b, c = m["a"], m["b"], m["c"]
    if len(a) == 4 and len(c) <= 2:
        return _ymd(int(a), int(b), int(c))
    if len(c) != 4 or len(a) > 2:
        return None
    x, y = int(a), int(b)
    if x == y or (x > 12) != (y > 12):
        month, day = (y, x) if x > 12 else (x, y)
        return _ymd(int(c), month, day)
    return None  # 03/04/2023: March 4 or 3 April


# -- dates a document states about itself ---------------------------------------------------------

def stated(text: str) -> Dated | None:
    """The first date stated at the start of one of the opening lines of ``text``: "Effective
    date: October 1, 2023", "**Last Updated:** December 2025", "Dated as of March 3, 2020".
    Only at the start of a line: "the Credit Agreement dated as of ..." in a sentence names
    another document's date."""
    head = text[:OPENING_CHARS]
    for m in _STATED.finditer(head):
        rest = m["rest"].strip()
        date = words(rest) or _leading_other(rest)
        if date:
            line = head[m.start("phrase"):].split("\n", 1)[0].strip()
            return Dated(date, "text", line[:MAX_RAW])
    return None


def _leading_other(rest: str) -> str | None:
    m = re.match(r"[\d/.:TZ+-]+", rest)
    return parse(m.group(0).rstrip(".")) if m else None


def html_meta(html: str) -> dict[str, str]:
    """Dates in an HTML page's ``<meta>`` elements (``name``, ``property``, ``itemprop`` or
    ``http-equiv`` among :data:`METADATA_ORDER`'s HTML names), as found. Only the part before
    ``<body`` is read (at most 256 KB)."""
    head = html[:262_144]
    end = re.search(r"<body\b", head, re.I)
    if end:
        head = head[:end.start()]
    found: dict[str, str] = {}

    class Meta(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag != "meta":
                return
            a = {k.lower(): (v or "") for k, v in attrs}
            content = a.get("content", "").strip()
            if not content:
                return
            if a.get("http-equiv", "").lower() == "last-modified":
                found.setdefault("http:last-modified", content[:MAX_RAW])
                return
            for key in ("name", "property", "itemprop"):
                name = a.get(key, "").strip().lower()
                if name in HTML_META:
                    found.setdefault(f"html:{name}", content[:MAX_RAW])
                    return
                if key == "itemprop" and name in ("datemodified", "datepublished"):
                    found.setdefault("html:" + ("last-modified" if name == "datemodified" else "date"),
                                     content[:MAX_RAW])

    parser = Meta(convert_charrefs=True)
    try:
        parser.feed(head)
        parser.close()
    except (AssertionError, ValueError):  # html.parser on broken markup
        pass
    return found


_XMP = {"ModifyDate": "xmp:ModifyDate", "MetadataDate": "xmp:MetadataDate", "CreateDate": "xmp:CreateDate"}
_XMP_NS = "http://ns.adobe.com/xap/1.0/"
_CORE = {"{http://purl.org/dc/terms/}modified": "docx:modified", "{http://purl.org/dc/terms/}created": "docx:created"}


def _xml(data: bytes) -> Any:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)
    try:
        return etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError):
        return None


def xmp(data: bytes) -> dict[str, str]:
    """``xmp:ModifyDate``, ``xmp:MetadataDate`` and ``xmp:CreateDate`` of an XMP packet, as
    elements or as attributes of an ``rdf:Description``."""
    root = _xml(data[:1_048_576])
    found: dict[str, str] = {}
    if root is None:
        return found
    for el in root.iter():
        for name, key in _XMP.items():
            value = el.get(f"{{{_XMP_NS}}}{name}")
            if value:
                found.setdefault(key, value.strip()[:MAX_RAW])
            if el.tag == f"{{{_XMP_NS}}}{name}" and (el.text or "").strip():
                found.setdefault(key, (el.text or "").strip()[:MAX_RAW])
    return found


def docx_core(data: bytes) -> dict[str, str]:
    """``dcterms:modified`` and ``dcterms:created`` of a .docx's ``docProps/core.xml``."""
    root = _xml(data[:1_048_576])
    found: dict[str, str] = {}
    if root is None:
        return found
    for el in root:
        key = _CORE.get(el.tag) if isinstance(el.tag, str) else None
        if key and (el.text or "").strip():
            found.setdefault(key, (el.text or "").strip()[:MAX_RAW])
    return found


def pdf_info(info: Iterable[Mapping[Any, Any]]) -> dict[str, str]:
    """``/ModDate`` and ``/CreationDate`` of a PDF's document information dictionaries (pdfminer's
    ``PDFDocument.info``), as text."""
    found: dict[str, str] = {}
    for d in info:
        for name in ("ModDate", "CreationDate"):
            v = d.get(name)
            if isinstance(v, bytes):
                v = v.decode("latin-1")
            if isinstance(v, str) and v.strip():
                found.setdefault(f"pdf:{name}", v.strip()[:MAX_RAW])
    return found


def recorded(found: Mapping[str, str]) -> dict[str, Any]:
    """What an extractor adds to ``Extracted.meta``: ``{"dates": {name: value as found}}``, or
    nothing when it found none."""
    return {"dates": dict(sorted(found.items()))} if found else {}


def pdf_document(doc: Any) -> dict[str, str]:
    """The dates of a pdfminer ``PDFDocument``: its information dictionaries and its XMP
    metadata stream. Unreadable metadata gives no date; it never fails the extraction."""
    from pdfminer.pdftypes import resolve1, stream_value
    from pdfminer.utils import decode_text

    found: dict[str, str] = {}
    try:
        infos = []
        for info in doc.info:
            d = {}
            for name in ("ModDate", "CreationDate"):
                v = resolve1(info.get(name))
                if isinstance(v, bytes):
                    d[name] = decode_text(v)
            infos.append(d)
        found.update(pdf_info(infos))
    except Exception:  # pdfminer raises anything on malformed objects
        pass
    try:
        ref = doc.catalog.get("Metadata")
        if ref is not None:
            for k, v in xmp(stream_value(resolve1(ref)).get_data()[:1_048_576]).items():
                found.setdefault(k, v)
    except Exception:
        pass
    return found


# -- choosing ---------------------------------------------------------------------------------

def own(meta_dates: Mapping[str, Any], text: str | None = None) -> list[Dated]:
    """The dates a document carries itself, most trusted first: its metadata (``meta_dates``:
    name -> value as found, names as in :data:`METADATA_ORDER`) that parse, then the date its
    opening lines state."""
    order = {n: i for i, n in enumerate(METADATA_ORDER)}
    out = []
    for name in sorted(meta_dates, key=lambda n: (order.get(n, len(order)), n)):
        raw = str(meta_dates[name])[:MAX_RAW]
        date = parse(raw)
        if date:
            out.append(Dated(date, name, raw))
    said = stated(text) if text else None
    if said:
        out.append(said)
    return out


def _instant(date: str) -> datetime:
    """The first instant a date can mean, in UTC (a time without a zone is taken as UTC)."""
    core = date.rstrip("Z")
    if "T" in core:
        return datetime.fromisoformat(core).replace(tzinfo=UTC)
    parts = [int(p) for p in core.split("-")] + [1, 1]
    return datetime(parts[0], parts[1], parts[2], tzinfo=UTC)


def believable(d: Dated, ingested: str | None) -> bool:
    """A date the document or its file gives about itself, no later than a year after ingest."""
    if d.kind == "supplied" or not ingested:
        return True
    try:
        at = datetime.fromisoformat(ingested.replace("Z", "+00:00"))
    except ValueError:
        return True
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return _instant(d.date) <= at + FUTURE


def evidence(own_dates: Sequence[Dated], supplied: Sequence[Dated], mtimes: Sequence[Dated],
             ingested: str | None = None) -> list[Dated]:
    """The best date of each kind, most trusted kind first (:data:`KINDS`): the latest date
    supplied for any copy, the first metadata date, the latest modification time of any copy
    (not a copy's time), the stated date, the latest copy time. A document still published at
    its latest copy's date is that new."""
    def latest(ds: Iterable[Dated]) -> Dated | None:
        return max(ds, key=lambda d: (_instant(d.date), d.date, d.source), default=None)

    mine = [d for d in own_dates if believable(d, ingested)]
    times = [d for d in mtimes if believable(d, ingested)]
    best = {"supplied": latest(supplied),
            "metadata": next((d for d in mine if d.kind == "metadata"), None),
            "mtime": latest(d for d in times if d.kind == "mtime"),
            "text": next((d for d in mine if d.kind == "text"), None),
            "copied": latest(d for d in times if d.kind == "copied")}
    return [d for k in KINDS if (d := best[k]) is not None]


def newest_key(dates: Sequence[Dated]) -> tuple[float, ...]:
    """Sort key, newest first: the most trusted date, then the next kind's as a tie-breaker
    (a place per kind; a missing date sorts last)."""
    stamps = [-_instant(d.date).timestamp() for d in dates[:len(KINDS)]]
    return tuple(stamps + [float("inf")] * (len(KINDS) - len(stamps)))


def mtime(value: str | None, seen: str | None = None) -> Dated | None:
    """The modification time a sighting recorded (``2023-10-01T12:00:00+00:00``) as a date:
    ``mtime``, or ``copied`` when it is less than :data:`COPIED` before the sighting (``seen``)."""
    date = parse(value) if value else None
    if not date:
        return None
    kind = "mtime"
    if seen:
        try:
            at = datetime.fromisoformat(seen.replace("Z", "+00:00"))
            at = at if at.tzinfo else at.replace(tzinfo=UTC)
            if at - _instant(date) < COPIED:
                kind = "copied"
        except ValueError:
            pass
    return Dated(date, kind, str(value))


__all__ = [
    "KINDS", "METADATA_ORDER", "Dated", "believable", "docx_core", "evidence", "html_meta", "kind_of",
    "mtime", "newest_key", "own", "parse", "pdf_document", "pdf_info", "recorded", "stated", "words", "xmp",
]
