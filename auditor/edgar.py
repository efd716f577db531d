"""EDGAR full-submission text files: header fields, documents and what each document holds.

A submission is a flat SGML-like envelope, parsed here on bytes with ``find`` and regular
expressions, as the SEC's own consumers do, since its tags are line-oriented and it is never
well-formed SGML. Three dialects are read:

* ``<SEC-DOCUMENT>`` with a ``<SEC-HEADER>`` of ``KEY:<tab>value`` lines (modern filings);
* the tagged ``<SUBMISSION>`` form (``<ACCESSION-NUMBER>``, ``<TYPE>``, ``<CIK>``...);
* 1993-2002 filings wrapped in ``-----BEGIN PRIVACY-ENHANCED MESSAGE-----``, with
  ``<IMS-DOCUMENT>``/``<IMS-HEADER>`` or ``<SEC-DOCUMENT>`` inside.

This module only takes the envelope apart; turning each document's content into text is
:mod:`auditor.extract`'s job.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass, field

from auditor.errors import ExtractionError

_STARTS = (b"<SEC-DOCUMENT>", b"<SUBMISSION>", b"<IMS-DOCUMENT>", b"-----BEGIN PRIVACY-ENHANCED MESSAGE-----")
_KEYED = re.compile(rb"^[ \t]*([A-Z][A-Z0-9 /&().,'-]*?):[ \t]*(.*?)[ \t]*\r?$", re.M)
_TAGGED = re.compile(rb"^<([A-Z][A-Z0-9-]*)>[ \t]*([^\r\n<]*?)[ \t]*\r?$", re.M)
_DOC_TAG = re.compile(rb"^<(TYPE|SEQUENCE|FILENAME|DESCRIPTION)>[ \t]*([^\r\n]*?)[ \t]*\r?$", re.M)
_BEGIN = re.compile(rb"^begin[ \t]+([0-7]{3,4})[ \t]+([^\r\n]*?)[ \t]*\r?$", re.M)
_HTML_TAG = re.compile(
    rb"<(?:!doctype\s+html|html|body|head|div|p|br|font|td|tr|th|center|span|a|b|i|u|hr|img|meta|title)\b",
    re.I,
)
# Tags of pre-HTML ASCII filings: page breaks, table markup, column and footnote markers.
_SGML_TAG = rb"</?(?:PAGE|TABLE|CAPTION|S|C|FN|F\d{1,3}|R)>"
_SGML_LINE = re.compile(rb"^[ \t]*(?:" + _SGML_TAG + rb"[ \t]*)+(?:\r?\n|\Z)", re.I | re.M)
_SGML_INLINE = re.compile(rb"[ \t]*" + _SGML_TAG + rb"[ \t]*", re.I)
_KEYED_FIELDS = {
    "ACCESSION NUMBER": "accession_number",
    "CONFORMED SUBMISSION TYPE": "form_type",
    "FILED AS OF DATE": "filing_date",
    "CONFORMED PERIOD OF REPORT": "period",
    "COMPANY CONFORMED NAME": "company_name",
    "CENTRAL INDEX KEY": "cik",
}
_TAGGED_FIELDS = {
    "ACCESSION-NUMBER": "accession_number",
    "TYPE": "form_type",
    "FILING-DATE": "filing_date",
    "PERIOD": "period",
    "CONFORMED-NAME": "company_name",
    "CIK": "cik",
}
_HEAD_SCAN = 4096
SUBMISSION_FIELDS = ("accession_number", "form_type", "filing_date", "company_name", "cik")


def iso_date(value: object) -> object:
    """EDGAR's ``YYYYMMDD`` dates as ISO 8601 (``2024-03-01``); anything else unchanged."""
    s = str(value) if value is not None else ""
    return f"{s[:4]}-{s[4:6]}-{s[6:]}" if re.fullmatch(r"\d{8}", s) else value


def submission_fields(meta: dict) -> dict:
    """The submission facts reports and gate outputs show, with the filing date in ISO form
    (the store keeps the header's own ``YYYYMMDD``)."""
    return {k: iso_date(meta.get(k)) if k == "filing_date" else meta.get(k) for k in SUBMISSION_FIELDS}


@dataclass
class Document:
    """One ``<DOCUMENT>``: its metadata and the exact bytes between ``<TEXT>`` and ``</TEXT>``."""

    meta: dict
    raw: bytes
    offset: int = 0  # of its ``<DOCUMENT>`` tag in the submission
    sequence_at: int = -1  # of its ``<SEQUENCE>`` tag, if it has one


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
    "xbrl"/"xml" (payload: the XML inside the wrapper, whose text a machine carries too).
    """

    kind: str
    payload: bytes
    name: str = ""
    warnings: list[str] = field(default_factory=list)


def is_submission(data: bytes) -> bool:
    """Whether ``data`` starts like an EDGAR submission (after whitespace and a UTF-8 BOM)."""
    head = data[:_HEAD_SCAN].lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith(_STARTS[-1]):
        return b"<SEC-DOCUMENT>" in head or b"<IMS-DOCUMENT>" in head
    return head.startswith(_STARTS[:-1])


def parse(data: bytes, max_documents: int | None = None) -> Submission:
    """Split a submission into header metadata and documents.

    Past ``max_documents`` documents, the rest are only counted (``omitted``): a million empty
    ``<DOCUMENT>``s must not cost a million parts.

    Raises ExtractionError("edgar_malformed") for an envelope that is not a submission or a
    ``<DOCUMENT>`` without its ``</DOCUMENT>`` (a truncated download must not pass as a
    shorter filing), and ExtractionError("empty") for a submission without documents.
    """
    if not is_submission(data):
        raise ExtractionError("edgar_malformed", "not an EDGAR submission: no <SEC-DOCUMENT>, <SUBMISSION> or <IMS-DOCUMENT> envelope")
    first = data.find(b"<DOCUMENT>")
    sub = Submission(_header(data[: first if first >= 0 else len(data)]))
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
        if doc.sequence_at >= 0:
            doc.sequence_at += pos + len(b"<DOCUMENT>")
        sub.documents.append(doc)
        pos = data.find(b"<DOCUMENT>", end)
    if not sub.documents:
        raise ExtractionError("empty", "EDGAR submission contains no <DOCUMENT>")
    return sub


def _text(value: bytes) -> str:
    return value.decode("utf-8", "replace") if not value.isascii() else value.decode("ascii")


def _header(head: bytes) -> dict:
    meta: dict = {}
    ciks: list[str] = []
    tagged = head.lstrip(b"\xef\xbb\xbf").lstrip().startswith(b"<SUBMISSION>")
    if tagged:
        pattern, fields, cik_key = _TAGGED, _TAGGED_FIELDS, b"CIK"
    else:
        start = max(head.find(b"<SEC-HEADER>"), head.find(b"<IMS-HEADER>"))
        stop = max(head.find(b"</SEC-HEADER>"), head.find(b"</IMS-HEADER>"))
        region = head[max(start, 0) : stop if stop > start else len(head)]
        pattern, fields, cik_key = _KEYED, _KEYED_FIELDS, b"CENTRAL INDEX KEY"
    for m in pattern.finditer(head if tagged else region):
        key, value = m.group(1), m.group(2)
        if not value:
            continue
        if key == cik_key and _text(value) not in ciks:
            ciks.append(_text(value))
        name = fields.get(_text(key))
        if name and name not in meta:
            meta[name] = _text(value)
    if "accession_number" not in meta:
        found = re.search(rb"<(?:SEC|IMS)-DOCUMENT>[ \t]*([0-9]{10}-[0-9]{2}-[0-9]{6})", head)
        if found:
            meta["accession_number"] = found.group(1).decode()
    meta["ciks"] = ciks
    return meta


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
            meta[key] = _text(m.group(2))
            if key == "sequence":
                sequence_at = m.start()
    return Document(meta, raw, sequence_at=sequence_at)


def part_lines(data: bytes) -> dict[str, int]:
    """The line (1-based) where each document of a submission starts, by the name ingest gives
    its part (its ``<SEQUENCE>``, else its position): the line of its ``<SEQUENCE>`` tag, else of
    its ``<DOCUMENT>`` tag. Empty for what is not a well-formed submission."""
    try:
        documents = parse(data).documents
    except ExtractionError:
        return {}
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
            if re.search(rb"<html\b", inner[:_HEAD_SCAN * 4], re.I):
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
    """Remove the layout tags of pre-HTML filings (``<PAGE>``, ``<TABLE>``, ``<S>``, ``<C>``...)."""
    return _SGML_INLINE.sub(b" ", _SGML_LINE.sub(b"", text))


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
