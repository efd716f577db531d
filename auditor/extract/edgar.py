"""EDGAR full-submission text files: header fields, documents and what each document holds.

A submission is a flat SGML-like envelope, parsed here on bytes with ``find`` and regular
expressions, as the SEC's own consumers do, since it is never well-formed SGML. Line ends are
read as the SEC writes them in its archives and feeds: LF, CRLF or a lone CR (the daily feed's
``.nc`` files), so they are made LF first, and a part seen in two copies of a filing is the
same bytes. Every layout of the SEC's archives is read:

* ``<SEC-DOCUMENT>`` with a ``<SEC-HEADER>`` of ``KEY:<tab>value`` lines (modern filings), one
  block per entity (``FILER:``, ``SUBJECT COMPANY:``, ``FILED BY:``, ``REPORTING-OWNER:``...);
* the tagged ``<SUBMISSION>`` form (``<ACCESSION-NUMBER>``, ``<TYPE>``, ``<FILER>``...), one
  tag per line or several on one line;
* 1993-2002 filings wrapped in ``-----BEGIN PRIVACY-ENHANCED MESSAGE-----``, with
  ``<IMS-DOCUMENT>``/``<IMS-HEADER>`` or ``<SEC-DOCUMENT>`` inside;
* bare ``<DOCUMENT>`` files (documents without an envelope), whose form type is taken from the
  first document's ``<TYPE>`` and accession number from the file name, both said in ``derived``.

This module only takes the envelope apart; turning each document's content into text is
:mod:`auditor.extract`'s job.
"""

from __future__ import annotations

import binascii
import os
import re
from dataclasses import dataclass, field

from auditor.errors import ExtractionError, refusal

refusal("edgar_malformed", "ingest the submission as EDGAR serves it (the complete .txt file), or its documents "
                           "one by one")

_PEM = b"-----BEGIN PRIVACY-ENHANCED MESSAGE-----"
_STARTS = (b"<SEC-DOCUMENT>", b"<SUBMISSION>", b"<IMS-DOCUMENT>")
# A header alone (``.hdr.sgml``) or a document without envelope: EDGAR, though not a submission.
_BARE = re.compile(rb"<DOCUMENT>\s*<(?:TYPE|SEQUENCE|FILENAME)>")
# A document's tags without even <DOCUMENT> (a document cut out of a submission).
_TAGS_ONLY = re.compile(rb"<TYPE>[^<\n]*\n(?:<(?:SEQUENCE|FILENAME|DESCRIPTION)>[^<\n]*\n)*<TEXT>")
_HEADER_ONLY = re.compile(rb"<(?:SEC-HEADER|IMS-HEADER|ACCEPTANCE-DATETIME)>(?:[^\n]*\n){1,8}?[ \t]*ACCESSION NUMBER:")
# A header line: ``KEY:<tab>value`` (indented or not), or a tag alone (``<REPORTING-OWNER>``,
# which opens an entity's block in some 1990s headers).
_KEYED = re.compile(rb"^(?:<([A-Z][A-Z0-9_-]*)>[ \t]*|([ \t]*)([A-Z][A-Z0-9 /&().,'-]*?):[ \t]*(.*?)[ \t]*)$", re.M)
# <TAG>value up to the next tag or the line end: one tag a line, or several on one line.
_TAGGED = re.compile(rb"<(/?)([A-Z][A-Z0-9_-]*)>[ \t]*([^<\n]*?)[ \t]*(?=<|\n|$)")
_DOC_TAG = re.compile(rb"<(TYPE|SEQUENCE|FILENAME|DESCRIPTION)>[ \t]*([^<\n]*?)[ \t]*(?=<|\n|$)")
_BEGIN = re.compile(rb"^begin[ \t]+([0-7]{3,4})[ \t]+([^\r\n]*?)[ \t]*\r?$", re.M)
# XML whose root element is html (inline XBRL), after its declaration, comments and DOCTYPE;
# HTML in a CDATA text block of an XBRL instance does not make the instance HTML.
_HTML_ROOT = re.compile(rb"\A\s*(?:<\?.*?\?>\s*|<!--.*?-->\s*|<!DOCTYPE[^>]*>\s*)*<(?:[\w.-]+:)?html\b", re.S | re.I)
_HTML_TAG = re.compile(
    rb"<(?:!doctype\s+html|html|body|head|div|p|br|font|td|tr|th|center|span|a|b|i|u|hr|img|meta|title)\b",
    re.I,
)
# Tags of pre-HTML ASCII filings: page breaks, table markup, column and footnote markers, in
# any case and with attributes.
_SGML_TAG = rb"</?(?:PAGE|TABLE|CAPTION|S|C|FN|F\d{1,3}|R)(?:[ \t][^<>\n]*)?>"
_SGML_LINE = re.compile(rb"^[ \t]*(?:" + _SGML_TAG + rb"[ \t]*)+(?:\n|\Z)", re.I | re.M)
_SGML_INLINE = re.compile(_SGML_TAG, re.I)
_ACCESSION = re.compile(r"(\d{10}-\d{2}-\d{6})")
_KEYED_FIELDS = {
    "ACCESSION NUMBER": "accession_number",
    "CONFORMED SUBMISSION TYPE": "form_type",
    "FILED AS OF DATE": "filing_date",
    "CONFORMED PERIOD OF REPORT": "period",
}
_TAGGED_FIELDS = {
    "ACCESSION-NUMBER": "accession_number",
    "TYPE": "form_type",
    "FILING-DATE": "filing_date",
    "PERIOD": "period",
    "ACCEPTANCE-DATETIME": "acceptance_datetime",
}
_NAME_KEYS = {b"COMPANY CONFORMED NAME", b"CONFORMED-NAME"}
_CIK_KEYS = {b"CENTRAL INDEX KEY", b"CIK"}
_ENTITY_DATA = {b"COMPANY DATA", b"OWNER DATA", b"COMPANY-DATA", b"OWNER-DATA"}
_ENTITY_BLOCKS = {b"FILING VALUES", b"BUSINESS ADDRESS", b"MAIL ADDRESS", b"FORMER COMPANY", b"FORMER NAME"}
_HEAD_SCAN = 4096
# Bounds for what a header may make us hold: real headers are kilobytes (a fund family's with
# every series and class, a few hundred), and name a handful of entities.
_MAX_HEADER = 16 * 2**20
_MAX_ENTITIES = 500
SUBMISSION_FIELDS = ("accession_number", "form_type", "filing_date", "company_name", "cik")


def iso_date(value: object) -> object:
    """EDGAR's ``YYYYMMDD`` dates as ISO 8601 (``2024-03-01``); anything else unchanged."""
    s = str(value) if value is not None else ""
    return f"{s[:4]}-{s[4:6]}-{s[6:]}" if re.fullmatch(r"\d{8}", s) else value


def submission_fields(meta: dict) -> dict:
    """The submission facts reports and gate outputs show, with the filing date in ISO form
    (the store keeps the header's own ``YYYYMMDD``)."""
    return {k: iso_date(meta.get(k)) if k == "filing_date" else meta.get(k) for k in SUBMISSION_FIELDS}


def header_richness(meta: dict | None) -> tuple[int, int, int]:
    """How much a submission's header tells, to prefer the richest of several copies of a
    filing: (submission fields its header gives, submission fields known, including those
    derived from the file name or first document, entities named)."""
    meta = meta or {}
    known = [k for k in SUBMISSION_FIELDS if meta.get(k)]
    derived = meta.get("derived") or {}
    return sum(1 for k in known if k not in derived), len(known), len(meta.get("entities") or ())


def lf(data: bytes) -> bytes:
    """CRLF and lone CR line ends as LF."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data


@dataclass
class Document:
    """One ``<DOCUMENT>``: its metadata and the bytes between ``<TEXT>`` and ``</TEXT>`` (line
    ends as LF)."""

    meta: dict
    raw: bytes
    offset: int = 0  # of its ``<DOCUMENT>`` tag in the submission (line ends as LF)
    sequence_at: int = -1  # of its ``<SEQUENCE>`` tag, if it has one
    text_at: int = -1  # where ``raw`` starts in the submission (-1: no ``<TEXT>``)


@dataclass
class Submission:
    meta: dict
    documents: list[Document] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    omitted: int = 0  # documents past ``max_documents``, not read


@dataclass
class Content:
    """What a document's ``<TEXT>`` holds, unwrapped.

    ``kind`` is "html" (payload: the HTML), "text" (payload: the text with old SGML layout
    tags removed), "binary" (payload: uudecoded bytes, ``name`` from the ``begin`` line) or
    "xbrl"/"xml" (payload: the XML inside the wrapper).
    """

    kind: str
    payload: bytes
    name: str = ""
    warnings: list[str] = field(default_factory=list)


def _head(data: bytes) -> bytes:
    return data[:_HEAD_SCAN].lstrip(b"\xef\xbb\xbf").lstrip()


def is_submission(data: bytes) -> bool:
    """Whether ``data`` is EDGAR's: a submission, a bare ``<DOCUMENT>`` or a header alone (after
    whitespace and a UTF-8 BOM)."""
    head = _head(data)
    if head.startswith(_PEM):
        return b"<SEC-DOCUMENT>" in head or b"<IMS-DOCUMENT>" in head
    if head.startswith(_STARTS) or _BARE.match(head) or _TAGS_ONLY.match(lf(head)):
        return True
    return bool(_HEADER_ONLY.match(lf(head)))


def parse(data: bytes, max_documents: int | None = None, name: str = "") -> Submission:
    """Split a submission into header metadata and documents.

    Past ``max_documents`` documents, the rest are only counted (``omitted``): a million empty
    ``<DOCUMENT>``s must not cost a million parts. ``name`` (the file's) gives the accession
    number of a file without header, as the SEC names its files.

    Raises ExtractionError("edgar_malformed") for an envelope that is not a submission or a
    ``<DOCUMENT>`` without its ``</DOCUMENT>`` (a truncated download must not pass as a
    shorter filing), and ExtractionError("empty") for a submission without documents.
    """
    if not is_submission(data):
        raise ExtractionError("edgar_malformed", "not an EDGAR submission: no <SEC-DOCUMENT>, <SUBMISSION>, <IMS-DOCUMENT> or <DOCUMENT> envelope")
    data = lf(data)
    if _TAGS_ONLY.match(_head(data)):  # one document, cut out of its submission without its tags
        start = data.find(b"<TYPE>")
        end = data.find(b"</DOCUMENT>", start)
        doc = _document(data[start : end if end >= 0 else len(data)], 1, [])
        doc.offset = start
        for attr in ("sequence_at", "text_at"):
            if getattr(doc, attr) >= 0:
                setattr(doc, attr, getattr(doc, attr) + start)
        sub = Submission({"ciks": []}, [doc])
        _derive(sub, name)
        return sub
    first = data.find(b"<DOCUMENT>")
    sub = Submission(_header(data[: min(first if first >= 0 else _HEAD_SCAN * 16, _MAX_HEADER)]))
    pos = first
    while pos >= 0:
        if max_documents is not None and len(sub.documents) >= max_documents:
            sub.omitted = data.count(b"<DOCUMENT>", pos)
            break
        end = data.find(b"</DOCUMENT>", pos)
        if end < 0:
            raise ExtractionError(
                "edgar_malformed", f"<DOCUMENT> at byte {pos} has no </DOCUMENT> (truncated submission?)")
        doc = _document(data[pos + len(b"<DOCUMENT>") : end], len(sub.documents) + 1, sub.warnings)
        doc.offset = pos
        for attr in ("sequence_at", "text_at"):
            if getattr(doc, attr) >= 0:
                setattr(doc, attr, getattr(doc, attr) + pos + len(b"<DOCUMENT>"))
        sub.documents.append(doc)
        pos = data.find(b"<DOCUMENT>", end)
    if not sub.documents:
        acc = sub.meta.get("accession_number")
        raise ExtractionError("empty", "EDGAR submission contains no <DOCUMENT>"
                              + (f" (a header alone, of {acc}: nothing a reader reads)" if acc else ""))
    _derive(sub, name)
    return sub


def _derive(sub: Submission, name: str) -> None:
    """Fill what a header-less file does not say from what it does: the accession number from
    the file name (as the SEC names its files), the form type from its first document when that
    is the filing's main document (sequence 1)."""
    meta, derived = sub.meta, {}
    bare = not any(meta.get(k) for k in SUBMISSION_FIELDS)
    if not meta.get("accession_number"):
        m = _ACCESSION.match(os.path.basename(name))
        if m:
            meta["accession_number"], derived["accession_number"] = m.group(1), "file name"
    first = sub.documents[0].meta
    if not meta.get("form_type") and first.get("type") and first.get("sequence") in (None, "1"):
        meta["form_type"], derived["form_type"] = first["type"], "first document's TYPE"
    if derived:
        meta["derived"] = derived
    if bare or derived:
        sub.warnings.append("no EDGAR header" + (": " if derived else "") + ", ".join(
            f"{k} from the {v}" for k, v in sorted(derived.items())))


def _text(value: bytes) -> str:
    return value.decode("utf-8", "replace") if not value.isascii() else value.decode("ascii")


def _role(key: bytes) -> str:
    return _text(key).strip().lower().replace(" ", "-").replace("_", "-")


def _header(head: bytes) -> dict:
    """Header fields, every CIK, and the entities (role, name, CIK) of a submission's header in
    either layout (keyed ``KEY: value`` lines or ``<TAG>value`` tags)."""
    meta: dict = {}
    entities: list[dict] = []
    body = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if body.startswith(b"<SUBMISSION>"):
        _tagged(body, meta, entities)
    else:
        start = max(head.find(b"<SEC-HEADER>"), head.find(b"<IMS-HEADER>"))
        stop = max(head.find(b"</SEC-HEADER>"), head.find(b"</IMS-HEADER>"))
        _keyed(head[max(start, 0) : stop if stop > start else len(head)], meta, entities)
        found = re.search(rb"<ACCEPTANCE-DATETIME>[ \t]*(\d{8,14})", head)
        if found:
            meta["acceptance_datetime"] = found.group(1).decode()
    if "accession_number" not in meta:
        found = re.search(rb"<(?:SEC|IMS)-DOCUMENT>[ \t]*([0-9]{10}-[0-9]{2}-[0-9]{6})", head)
        if found:
            meta["accession_number"] = found.group(1).decode()
    entities = [dict(t) for t in dict.fromkeys(tuple(e.items()) for e in entities if len(e) > 1)]
    if entities:
        meta.setdefault("company_name", next((e["name"] for e in entities if e.get("name")), None))
        meta.setdefault("cik", next((e["cik"] for e in entities if e.get("cik")), None))
        for k in ("company_name", "cik"):
            if meta[k] is None:
                del meta[k]
    meta["ciks"] = list(dict.fromkeys(e["cik"] for e in entities if e.get("cik")))
    if entities:
        meta["entities"] = entities
    return meta


def _entity(entities: list[dict], role: str) -> dict:
    e: dict = {"role": role}
    entities.append(e)
    return e


def _keyed(region: bytes, meta: dict, entities: list[dict]) -> None:
    """Keyed header lines, indented (modern) or flat (early 1990s): a block line without value
    (``FILER:``, ``SUBJECT COMPANY:``, a ``<REPORTING-OWNER>`` tag) names the role of the
    entities whose ``COMPANY DATA:``/``OWNER DATA:`` follow; their first name and CIK are kept."""
    role: str | None = None
    current: dict | None = None
    for m in _KEYED.finditer(region):
        if m.group(1):
            role, current = _role(m.group(1)), None
            continue
        indent, key, value = m.group(2), m.group(3), m.group(4)
        if not value:
            if key in _ENTITY_DATA:
                current = _entity(entities, role or "filer") if len(entities) < _MAX_ENTITIES else None
            elif key not in _ENTITY_BLOCKS and not indent:
                role, current = _role(key), None
            continue
        name = _KEYED_FIELDS.get(_text(key))
        if name:
            meta.setdefault(name, _text(value))
            continue
        field_name = "name" if key in _NAME_KEYS else "cik" if key in _CIK_KEYS else None
        if field_name is None:
            continue
        if current is None and role is not None and len(entities) < _MAX_ENTITIES:
            current = _entity(entities, role)  # a block whose fields come without COMPANY DATA:
        if current is not None:
            current.setdefault(field_name, _text(value))


def _tagged(head: bytes, meta: dict, entities: list[dict]) -> None:
    open_roles: list[tuple[bytes, dict]] = []
    empty: bytes | None = None  # the last tag without a value: a role if <COMPANY-DATA> follows
    for m in _TAGGED.finditer(head):
        closing, tag, value = m.group(1) == b"/", m.group(2), m.group(3)
        before, empty = empty, None
        if closing:
            if open_roles and open_roles[-1][0] == tag:
                open_roles.pop()
            continue
        if tag in _ENTITY_DATA and before is not None and len(entities) < _MAX_ENTITIES:
            open_roles.append((before, _entity(entities, _role(before))))
            continue
        if not value:
            empty = tag
            continue
        if open_roles:
            current = open_roles[-1][1]
            field_name = "name" if tag in _NAME_KEYS else "cik" if tag in _CIK_KEYS else None
            if field_name and value and field_name not in current:
                current[field_name] = _text(value)
            continue
        name = _TAGGED_FIELDS.get(_text(tag))
        if name and value and name not in meta:
            meta[name] = _text(value)


def _document(body: bytes, position: int, warnings: list[str]) -> Document:
    start = body.find(b"<TEXT>")
    if start < 0:
        warnings.append(f"document {position} has no <TEXT>")
        top, raw = body, b""
    else:
        top = body[:start]
        stop = body.rfind(b"</TEXT>")
        raw = body[start + len(b"<TEXT>") : stop if stop > start else len(body)]
    meta: dict[str, str | None] = {"type": None, "sequence": None, "filename": None, "description": None}
    sequence_at = -1
    for m in _DOC_TAG.finditer(top):
        key = m.group(1).decode().lower()
        if meta[key] is None:
            meta[key] = _text(m.group(2)) or None
            if key == "sequence":
                sequence_at = m.start()
    return Document(meta, raw, sequence_at=sequence_at, text_at=start + len(b"<TEXT>") if start >= 0 else -1)


def outside_documents(data: bytes, documents: list[Document]) -> bytes:
    """Every byte of a submission (line ends as LF, as ``parse`` reads it) that is not the content
    of one of its documents' ``<TEXT>``: the header, what lies between and after documents, before
    ``<TEXT>`` and after an early ``</DOCUMENT>``. EDGAR shows none of it as a document, but a
    submitter controls all of it, and anyone reading the file sees it."""
    data = lf(data)
    out, pos = [], 0
    for doc in sorted((d for d in documents if d.text_at >= 0), key=lambda d: d.text_at):
        out.append(data[pos : doc.text_at])
        pos = max(pos, doc.text_at + len(doc.raw))
    out.append(data[pos:])
    return b"\n".join(out)


def part_lines(data: bytes) -> dict[str, int]:
    """The line (1-based) where each document of a submission starts, by the name ingest gives
    its part (its ``<SEQUENCE>``, else its position): the line of its ``<SEQUENCE>`` tag, else of
    its ``<DOCUMENT>`` tag. Empty for what is not a well-formed submission."""
    try:
        documents = parse(data).documents
    except ExtractionError:
        return {}
    data = lf(data)  # as parse reads it: a lone CR ends a line too
    out: dict[str, int] = {}
    line, counted = 1, 0
    for i, doc in enumerate(documents, 1):
        at = doc.sequence_at if doc.sequence_at >= 0 else doc.offset
        line += data.count(b"\n", counted, at)
        counted = at
        out.setdefault(doc.meta["sequence"] or str(i), line)
    return out


def content(raw: bytes) -> Content:
    """Classify and unwrap a document's ``<TEXT>`` content."""
    body = raw.lstrip()
    upper = body[:16].upper()
    for wrapper, kind in ((b"<XBRL>", "xbrl"), (b"<XML>", "xml")):
        if upper.startswith(wrapper):
            inner = _unwrap(body, wrapper)
            if _HTML_ROOT.match(inner[:_HEAD_SCAN * 16]):
                return Content("html", inner)  # inline XBRL: an HTML document with tagged facts
            return Content(kind, inner.strip())
    if upper.startswith(b"<PDF>"):
        body = _unwrap(body, b"<PDF>").lstrip()
    m = _BEGIN.search(body[:1024])
    if m and not body[: m.start()].strip():
        name = m.group(2).decode("utf-8", "replace")
        decoded, bad = uudecode(body[m.end() :])
        warnings = [f"{bad} malformed uuencoded lines skipped"] if bad else []
        return Content("binary", decoded, name, warnings)
    if _HTML_TAG.search(body[:_HEAD_SCAN]):
        return Content("html", body)
    return Content("text", strip_sgml(raw).strip(b"\r\n"))


def _unwrap(body: bytes, tag: bytes) -> bytes:
    close = b"</" + tag[1:]
    end = body.upper().rfind(close)
    return body[len(tag) : end if end >= 0 else len(body)]


def strip_sgml(text: bytes) -> bytes:
    """The layout tags of pre-HTML filings (``<PAGE>``, ``<TABLE>``, ``<CAPTION>``, ``<S>``,
    ``<C>``, ``<FN>``...) taken out: a line of tags alone goes, a tag within a line becomes as
    many spaces, so the columns of a table stay where the filer aligned them."""
    return _SGML_INLINE.sub(lambda m: b" " * len(m.group()), _SGML_LINE.sub(b"", text))


def uudecode(body: bytes) -> tuple[bytes, int]:
    """Decode uuencoded lines up to ``end``; returns (data, number of lines that were unusable).

    Tolerant like the removed stdlib ``uu`` module: a line with trailing garbage (a common
    encoder bug) is decoded from its declared length.
    """
    out: list[bytes] = []
    bad = 0
    for line in body.splitlines():
        line = line.rstrip(b"\r")
        if line.rstrip() == b"end":
            break
        if not line.strip():
            continue
        try:
            out.append(binascii.a2b_uu(line))
        except binascii.Error:
            nbytes = (((line[0] - 32) & 63) * 4 + 5) // 3
            try:
                out.append(binascii.a2b_uu(line[:nbytes]))
            except binascii.Error:
                bad += 1
    return b"".join(out), bad
