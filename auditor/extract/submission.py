"""EDGAR submissions: the envelope is taken apart by :mod:`auditor.edgar`; here each document
becomes a part, extracted by what it holds (HTML, text, XML, a uuencoded PDF or archive), or
recorded as skipped or failed with the reason."""

from __future__ import annotations

import os

from auditor import edgar
from auditor.errors import ExtractionError
from auditor.extract import extract_format
from auditor.extract.archive import ARCHIVES, extract_archive
from auditor.extract.common import Extracted, Limits, Part, auditor_version
from auditor.extract.detect import binary_kind, detect_format
from auditor.extract.html import html_to_text
from auditor.extract.text import extract_text
from auditor.extract.xml import xml_to_text

_SKIP_CODES = ("empty", "binary")


def _extension(name: str) -> str | None:
    ext = os.path.splitext(name)[1].lower().lstrip(".")
    return ext if ext.isalnum() and len(ext) <= 5 else None


def _extract_part(doc: edgar.Document, limits: Limits) -> Part:
    meta = dict(doc.meta)
    try:
        content = edgar.content(doc.raw)
        if content.kind in ("xbrl", "xml"):
            ex = xml_to_text(content.payload, limits)
        elif content.kind == "html":
            ex = html_to_text(content.payload, limits)
        elif content.kind == "text":
            ex = extract_text(content.payload, limits)
        else:
            name = content.name or meta.get("filename") or ""
            fmt = detect_format(content.payload, name)
            kind = binary_kind(content.payload)
            if kind in ARCHIVES:
                ex = extract_archive(content.payload, name, limits)
            elif fmt == "binary" or fmt == "edgar":
                kind = _extension(name) or kind or "unknown"
                return Part(doc.raw, meta, "skipped", None, f"binary:{kind}",
                            f"binary document {name!r} ({len(content.payload)} bytes decoded)")
            else:
                ex = extract_format(fmt, content.payload, limits)
        ex.warnings[:0] = content.warnings
    except ExtractionError as e:
        status = "skipped" if e.code in _SKIP_CODES else "failed"
        return Part(doc.raw, meta, status, None, e.code, str(e))
    ex.meta = {**meta, **ex.meta}
    return Part(doc.raw, meta, "ok", ex)


def extract_edgar(data: bytes, limits: Limits) -> Extracted:
    sub = edgar.parse(data, max_documents=limits.max_parts)
    parts = [_extract_part(doc, limits) for doc in sub.documents]
    if sub.omitted:
        first, n = len(sub.documents) + 1, len(sub.documents) + sub.omitted
        parts.append(Part(b"", {"sequence": f"{first}-{n}"}, "failed", None, "too_many_parts",
                          f"the submission holds {n} documents, more than the limit of "
                          f"{limits.max_parts}: documents {first} to {n} were not read"))
    return Extracted("edgar", "", "auditor.edgar", auditor_version(), meta=sub.meta, parts=parts,
                     warnings=sub.warnings)
