"""EDGAR submissions: the envelope is taken apart by :mod:`auditor.extract.edgar`; here each document
becomes a part, read by what it is, or recorded as skipped or failed with the reason.

A part is decided in this order (the first rule that applies wins):

1. its ``<TEXT>`` is unwrapped (``<XBRL>``, ``<XML>``, ``<PDF>``, uuencoding);
2. HTML is read as HTML, inline XBRL included, unless the part is one the SEC's XBRL viewer
   made (``R1.htm`` pages: DESCRIPTION ``IDEA: XBRL DOCUMENT``): ``xbrl:viewer``;
3. content that no reader reads, by magic bytes and then content
   (:func:`~auditor.extract.detect.not_read`): images and other binaries (``binary:jpg``),
   spreadsheets (``binary:xlsx``), XBRL packages (``archive:xbrl``), XBRL schemas, linkbases and
   instances (``xbrl:schema``, ``xbrl:linkbase``, ``xbrl:instance``), the viewer's
   FilingSummary.xml (``xbrl:viewer``), JSON (``data:json``), scripts and style sheets
   (``code:js``, ``code:css``);
4. XBRL by its TYPE (``EX-101.SCH``, ``EX-101.LAB``... ``EX-101.INS``) and the viewer's other
   files by DESCRIPTION, whatever their content;
5. what is left is read by its reader: a PDF, a .docx, a zip or gzip of documents member by
   member, XML as its text nodes, text with the SGML layout tags of old filings removed.

A part skipped by rules 2 to 4 is not a document of the corpus. When a reader of data can read
it (:func:`auditor.extract.data.readable`: text-like data, a picture, a spreadsheet, a zip), the
part carries its content (``Part.data``), and a gate reads it as data
(:mod:`auditor.extract.prepare`): its readings are audited as the submission's.

Every part's ``meta`` carries its submission's header (``submission``), so each sighting of a
part says which filing it was seen in, whichever copy of the filing was read first.

Other readings (:class:`~auditor.extract.common.Reading`), which the gate audits too: the
submission's bytes outside its documents' ``<TEXT>`` (``edgar:outside-documents``: the header,
what lies between and after documents, before ``<TEXT>``, after an early ``</DOCUMENT>``), and
each HTML part as the plain text anyone reading the submission file sees
(``edgar:as-plain-text``: markup blanked, nothing hidden by a style, a title or an unclosed
comment).
"""

from __future__ import annotations

import re

from auditor.errors import ExtractionError, refusal
from auditor.extract import edgar
from auditor.extract.archive import ARCHIVES, extract_archive
from auditor.extract.common import Extracted, Limits, Part, Reading, auditor_version
from auditor.extract.data import as_plain_text, readable
from auditor.extract.detect import binary_kind, detect_format, extension, not_read
from auditor.extract.html import html_to_text
from auditor.extract.nested import extract_format
from auditor.extract.text import extract_text
from auditor.extract.xml import xml_to_text

_SKIP_CODES = ("empty", "binary")
refusal("too_many_parts", "raise --max-parts (ingest) to read every document of the submission")
_XBRL_TYPE = re.compile(r"EX-10[01]\.(SCH|CAL|DEF|LAB|PRE|REF|INS)\b", re.I)
_XBRL_TYPE_CODE = {"SCH": "xbrl:schema", "INS": "xbrl:instance"}
_VIEWER = "IDEA: XBRL DOCUMENT"
_VIEWER_WHY = "made by the SEC's XBRL viewer from the filing's own XBRL (a rendering, not a filed document)"
HEADER_FIELDS = (*edgar.SUBMISSION_FIELDS, "period", "acceptance_datetime", "ciks", "derived")


def _skipped(code: str) -> bool:
    return code in _SKIP_CODES or ":" in code


def _skip(meta: dict, content: edgar.Content) -> tuple[str, str] | None:
    """Why a part is not read (rules 2 to 4 above), or None."""
    type_ = (meta.get("type") or "").strip().upper()
    viewer = (meta.get("description") or "").strip().upper() == _VIEWER
    name = content.name or meta.get("filename") or ""
    if content.kind == "html":
        return ("xbrl:viewer", _VIEWER_WHY) if viewer else None
    skip = not_read(content.payload, name)
    if skip is not None:
        return skip
    m = _XBRL_TYPE.match(type_)
    if m:
        code = _XBRL_TYPE_CODE.get(m.group(1).upper(), "xbrl:linkbase")
        return code, f"XBRL ({type_}): machine data, not prose"
    if viewer:
        return "xbrl:viewer", _VIEWER_WHY
    return None


def _extract_part(doc: edgar.Document, limits: Limits, header: dict) -> Part:
    meta = dict(doc.meta)
    meta["submission"] = header
    try:
        content = edgar.content(doc.raw)
        skip = _skip(meta, content)
        if skip is not None:
            return Part(doc.raw, meta, "skipped", None, skip[0], skip[1],
                        data=content.payload if readable(content.payload) else None)
        name = content.name or meta.get("filename") or ""
        if content.kind in ("xbrl", "xml"):
            ex = xml_to_text(content.payload, limits)
        elif content.kind == "html":
            ex = html_to_text(content.payload, limits)
            ex.readings.append(Reading("edgar:as-plain-text", as_plain_text(content.payload),
                                       "the part as the submission file shows it: its HTML's markup blanked"))
        elif content.kind == "text":
            ex = extract_text(content.payload, limits)
        else:
            fmt = detect_format(content.payload, name)
            kind = binary_kind(content.payload)
            if fmt == "binary" and kind in ARCHIVES:
                ex = extract_archive(content.payload, name, limits)
            elif fmt == "binary" or fmt == "edgar":
                kind = extension(name) or kind or "unknown"
                return Part(doc.raw, meta, "skipped", None, f"binary:{kind}",
                            f"binary document {name!r} ({len(content.payload)} bytes decoded)")
            else:
                ex = extract_format(fmt, content.payload, limits, name)
        ex.warnings[:0] = content.warnings
    except ExtractionError as e:
        status = "skipped" if _skipped(e.code) else "failed"
        return Part(doc.raw, meta, status, None, e.code, str(e))
    ex.meta = {**meta, **ex.meta}
    return Part(doc.raw, meta, "ok", ex)


def extract_edgar(data: bytes, limits: Limits, name: str = "") -> Extracted:
    """A submission and its parts; a lone document without envelope is that document itself."""
    sub = edgar.parse(data, max_documents=limits.max_parts, name=name)
    header = {k: sub.meta[k] for k in HEADER_FIELDS if sub.meta.get(k)}
    if len(sub.documents) == 1 and not sub.omitted and edgar.header_richness(sub.meta)[0] == 0:
        return _lone_document(sub, limits, header)
    parts = [_extract_part(doc, limits, header) for doc in sub.documents]
    if sub.omitted:
        first, n = len(sub.documents) + 1, len(sub.documents) + sub.omitted
        parts.append(Part(b"", {"sequence": f"{first}-{n}", "submission": header}, "failed", None, "too_many_parts",
                          f"the submission holds {n} documents, more than the limit of "
                          f"{limits.max_parts}: documents {first} to {n} were not read"))
    outside = Reading("edgar:outside-documents", as_plain_text(edgar.outside_documents(data, sub.documents)),
                      "the submission's bytes outside its documents' <TEXT>: header, between and after documents")
    return Extracted("edgar", "", "auditor.extract.edgar", auditor_version(), meta=sub.meta, parts=parts,
                     warnings=sub.warnings, readings=[outside])


def _lone_document(sub: edgar.Submission, limits: Limits, header: dict) -> Extracted:
    """One ``<DOCUMENT>`` saved without its submission's envelope (a document cut out of a
    filing): no filing to link it to, so it is stored as the document it is, its tags in
    ``meta`` and not in its text; what it cannot be read as is the file's error."""
    part = _extract_part(sub.documents[0], limits, header)
    if part.extracted is None:
        raise ExtractionError(part.code or part.status, part.message or "")
    ex = part.extracted
    ex.meta = {k: v for k, v in ex.meta.items() if k != "submission" or v}
    ex.meta["envelope"] = "none: a <DOCUMENT> without its submission"
    ex.warnings[:0] = sub.warnings
    return ex
