"""The parts of a submission that are data, not prose, read as a reader of EDGAR sees them.

An EDGAR filing holds, beside its documents, parts made for machines: the XBRL schema, linkbases
and instance, the SEC viewer's pages (``R1.htm``) and FilingSummary.xml, MetaLinks.json, a script
and a style sheet, Financial_Report.xlsx, the XBRL zip, and pictures (logos, signatures, charts).
They are not documents of the corpus: they are not stored or audited as documents. But a reader
sees them (a browser shows an .xml, .json, .js or .css part as text, a picture as a picture, a
spreadsheet as its cells), so a gate reads each of them and audits every reading against the
corpus (:mod:`auditor.gating.readings`): a stored contract hidden in a data part is found.

Each kind gives these readings (:class:`~auditor.extract.common.Reading`):

- text-like data (XML, JSON, a script, a style sheet, a text part an XBRL TYPE names):
  ``data:text``, the text as a text viewer shows it; for XML also ``xml:text`` (every text
  node, an XBRL text block's escaped HTML read as HTML), ``xml:comments`` and
  ``xml:attributes``; for JSON ``json:strings`` (every key and string, escapes decoded);
- a viewer page (HTML): ``html:page`` (what a browser shows), the HTML reader's other readings,
  and ``data:text`` (its markup blanked). A page with constructs outside the HTML reader's
  model cannot be read reliably (``data_unmodelled``);
- a spreadsheet (.xlsx): ``xlsx:cells`` (each sheet's cells row by row, as shown),
  ``xlsx:columns`` (column by column) and ``xlsx:all-text`` (every text of every part: comments,
  drawings, headers, hidden sheets);
- an archive (the XBRL zip): each member read as what it is (a document by its reader, data as
  above), its readings named ``member: reading``; nested archives to ``MAX_DEPTH``, all of it
  within one inflation budget (``Limits.max_file_bytes``);
- a picture: ``ocr:picture``, what OCR reads in it (:mod:`auditor.extract.image`).

A part that cannot be read at all (an unknown binary, a picture when no OCR engine is installed,
a frame OCR cannot read) raises ExtractionError with its code: it stays not auditable.
"""

from __future__ import annotations

import html
import io
import json
import re
from typing import Any

from auditor.errors import ExtractionError, refusal
from auditor.extract.common import Limits, Reading, storable
from auditor.extract.detect import (
    binary_kind,
    detect_format,
    looks_like_html,
    machine_xml,
    not_read,
    says_html,
    xml_root,
    zip_kind,
)
from auditor.extract.image import IMAGE_KINDS

#: archives inside a data part are opened this deep (the XBRL zip, a zip inside it)
MAX_DEPTH = 2

refusal("data_unmodelled", "a reader of the part sees it through constructs the auditor's reader does not model "
                           "(named above), so its reading cannot be trusted: check the part yourself, then baseline "
                           "the finding (--update-baseline --reason)")
refusal("data_unreadable", "the part's text cannot be read reliably (the reason above): check the part yourself, "
                           "then baseline the finding (--update-baseline --reason)")
refusal("data_error", "the part is damaged or nests too deeply to read: check the part yourself, then baseline the "
                      "finding (--update-baseline --reason)")


_MARKUP = re.compile(rb"<[^<>]*>")


def as_plain_text(raw: bytes) -> str:
    """Bytes as a text editor shows them, markup blanked (what lies inside ``<...>``) and character
    references decoded: every word a reader of the file sees, whatever a browser would hide."""
    from auditor.extract.text import decode_text

    text, _ = decode_text(_MARKUP.sub(b" ", raw))
    return storable(html.unescape(text), [])


def readable(payload: bytes) -> bool:
    """Whether :func:`read_data` can read a part that ingest skips as machine data or as a picture:
    text-like content, a picture, a spreadsheet or a zip; not another binary (an executable, a
    font, a Word 97-2003 spreadsheet)."""
    kind = binary_kind(payload)
    return kind is None or kind in IMAGE_KINDS or kind == "zip"


def read_data(payload: bytes, name: str, limits: Limits, *, html: bool = False, depth: int = 0,
              budget: list[int] | None = None) -> list[Reading]:
    """Every reading of a data part (see the module's docstring); ``html``: the part is HTML (a
    viewer page), whatever its name. Raises ExtractionError when it cannot be read."""
    if len(payload) > limits.max_file_bytes:
        raise ExtractionError("too_large", f"{len(payload)} bytes, more than the limit of {limits.max_file_bytes}")
    kind = binary_kind(payload)
    if kind in IMAGE_KINDS:
        from auditor.extract.image import picture_text

        return [Reading("ocr:picture", picture_text(payload, kind or "", limits),
                        "the words OCR reads in the picture, as a reader sees it")]
    if kind is not None and kind != "zip" and kind not in ("gz", "bz2", "xz"):
        raise ExtractionError(f"binary:{kind}", f"binary data ({kind}) that no reader reads")
    if kind is not None:
        if kind == "zip" and zip_kind(payload) == "xlsx":
            return _spreadsheet(payload, limits)
        return _archive(payload, name, kind, limits, depth, budget)
    if (html or says_html(name) or looks_like_html(payload)) and machine_xml(payload) is None:
        return _page(payload, limits)
    return _text_like(payload, limits)


# -- text-like data --------------------------------------------------------------------------------

def _text_like(payload: bytes, limits: Limits) -> list[Reading]:
    from auditor.extract.text import decode_text

    text, _ = decode_text(payload)
    out = [Reading("data:text", storable(text, []), "the part as a text viewer shows it (a browser shows such a part "
                                                    "as text)")]
    if xml_root(payload) is not None:
        from auditor.extract.xml import xml_to_text

        try:
            ex = xml_to_text(payload, limits)
        except ExtractionError as e:
            if e.code != "empty":
                raise
        else:
            if ex.unreadable:
                raise ExtractionError("data_unreadable", f"XML: {ex.unreadable}")
            out.append(Reading("xml:text", ex.text, "every text node of the XML, an XBRL text block's HTML read as HTML"))
            out += ex.readings
    if re.match(rb"\s*[\[{]", payload):
        try:
            value = json.loads(text)
        except RecursionError as e:
            raise ExtractionError("data_error", "JSON nested too deeply to read") from e
        except ValueError:
            value = None
        if value is not None:
            out.append(Reading("json:strings", storable("\n".join(_strings(value)), []),
                               "every key and string of the JSON, escapes decoded, in the file's order"))
    return out


def _strings(value: Any) -> list[str]:
    """Every key and string of a parsed JSON value, in document order, without recursion."""
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for k, x in reversed(list(v.items())):
                stack.append(x)
                stack.append(k)
        elif isinstance(v, list):
            stack.extend(reversed(v))
    return out


# -- a viewer page ----------------------------------------------------------------------------------

def _page(payload: bytes, limits: Limits) -> list[Reading]:
    from auditor.extract import model
    from auditor.extract.html import html_to_text
    ex = html_to_text(payload, limits)
    if ex.unmodelled:
        raise ExtractionError("data_unmodelled", f"HTML page: {model.reason(ex.unmodelled)}")
    if ex.unreadable:
        raise ExtractionError("data_unreadable", f"HTML page: {ex.unreadable}")
    return [Reading("html:page", ex.text, "the page as a browser shows it"), *ex.readings,
            Reading("data:text", as_plain_text(payload), "the page as a text viewer shows it, its markup blanked")]


# -- a spreadsheet -----------------------------------------------------------------------------------

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_CELL_REF = re.compile(r"([A-Z]+)(\d+)")


def _parse(raw: bytes) -> Any:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
                             remove_pis=True, recover=False)
    try:
        return etree.fromstring(raw, parser)
    except (etree.XMLSyntaxError, ValueError) as e:
        raise ExtractionError("data_error", f"unreadable XML in the spreadsheet: {e}") from e


def _texts(el: Any) -> str:
    return "".join(t for t in el.itertext())


def _column(letters: str) -> int:
    n = 0
    for c in letters:
        n = n * 26 + ord(c) - 64
    return n


def _spreadsheet(payload: bytes, limits: Limits) -> list[Reading]:
    """An .xlsx workbook's cells as a spreadsheet program shows them, sheet by sheet in the
    workbook's order; and every text of every XML part."""
    import posixpath
    import zipfile

    from auditor.extract.docx import ZIP_ERRORS, read_member

    budget = limits.max_file_bytes
    try:
        with zipfile.ZipFile(io.BytesIO(payload)) as z:
            names = sorted(i.filename for i in z.infolist() if not i.is_dir())
    except ZIP_ERRORS as e:
        raise ExtractionError("data_error", f"unreadable spreadsheet: {type(e).__name__}: {e}") from e
    parts: dict[str, Any] = {}
    for n in names:
        if n.lower().endswith((".xml", ".rels", ".vml")):
            raw = read_member(payload, n, budget)
            budget -= len(raw)
            parts[n] = _parse(raw)
    shared: list[str] = []
    if "xl/sharedStrings.xml" in parts:
        shared = [_texts(si) for si in parts["xl/sharedStrings.xml"].iter(f"{_MAIN}si")]
    sheets: list[str] = []
    book, rels = parts.get("xl/workbook.xml"), parts.get("xl/_rels/workbook.xml.rels")
    if book is not None and rels is not None:
        target = {r.get("Id"): r.get("Target") or "" for r in rels}
        for s in book.iter(f"{_MAIN}sheet"):
            t = target.get(s.get(_REL), "")
            path = t.lstrip("/") if t.startswith("/") else posixpath.normpath(posixpath.join("xl", t))
            if path in parts and path not in sheets:
                sheets.append(path)
    sheets += [n for n in names if n.startswith("xl/worksheets/") and n.endswith(".xml") and n not in sheets]
    rows_text: list[str] = []
    cols_text: list[str] = []
    for path in sheets:
        cells: list[tuple[int, int, str]] = []
        for r_i, row in enumerate(parts[path].iter(f"{_MAIN}row")):
            for c_i, c in enumerate(row.iter(f"{_MAIN}c")):
                value = _cell(c, shared)
                if not value.strip():
                    continue
                m = _CELL_REF.fullmatch(c.get("r") or "")
                r, col = (int(m.group(2)), _column(m.group(1))) if m else (r_i + 1, c_i + 1)
                cells.append((r, col, value))
        rows_text += [v for _, _, v in sorted(cells)]
        cols_text += [v for _, _, v in sorted(cells, key=lambda x: (x[1], x[0]))]
    every = [_texts(root) for _, root in sorted(parts.items())]
    return [Reading("xlsx:cells", storable("\n".join(rows_text), []), "each sheet's cells row by row, as shown"),
            Reading("xlsx:columns", storable("\n".join(cols_text), []), "each sheet's cells column by column"),
            Reading("xlsx:all-text", storable("\n".join(t for t in every if t.strip()), []),
                    "every text of every part of the workbook: cells, comments, drawings, headers, hidden sheets")]


def _cell(c: Any, shared: list[str]) -> str:
    t = c.get("t") or "n"
    if t == "inlineStr":
        return "".join(_texts(x) for x in c.iter(f"{_MAIN}is"))
    v = c.find(f"{_MAIN}v")
    value = v.text if v is not None and v.text else ""
    if t == "s":
        try:
            return shared[int(value)]
        except (ValueError, IndexError):
            return ""
    return value


# -- an archive --------------------------------------------------------------------------------------

def _archive(payload: bytes, name: str, kind: str, limits: Limits, depth: int,
             budget: list[int] | None) -> list[Reading]:
    """Each member of an archive part read as what it is, within one inflation budget."""
    from auditor.extract.archive import _unpack

    if depth > MAX_DEPTH:
        raise ExtractionError("too_large", f"archives nested more than {MAX_DEPTH + 1} deep")
    budget = [limits.max_file_bytes] if budget is None else budget
    members = _unpack(payload, kind, budget[0], limits.max_file_bytes)
    budget[0] -= sum(len(raw) for _, raw in members)
    out: list[Reading] = []
    for member, raw in members:
        label = member or (name[:-3] if name.lower().endswith(".gz") else name)
        try:
            got = _member(raw, label, limits, depth, budget)
        except ExtractionError as e:
            if e.code == "empty":
                continue
            if e.code == "too_large":
                raise
            raise ExtractionError(e.code, f"{label}: {e}") from e
        joint = "/" if _is_archive(raw) else ": "  # a nested archive's members are named outer/inner
        out += [Reading(f"{label}{joint}{r.name}", r.text, r.why) for r in got]
    return out


def _is_archive(raw: bytes) -> bool:
    from auditor.extract.archive import ARCHIVES

    kind = binary_kind(raw)
    return kind in ARCHIVES and (kind != "zip" or zip_kind(raw) not in ("xlsx", "docx", "odf", "pptx"))


def _member(raw: bytes, label: str, limits: Limits, depth: int, budget: list[int]) -> list[Reading]:
    """One member of an archive part: data read as data, a document by its format's reader, whose
    reading must be one the gate trusts (every construct modelled, its text readable)."""
    from auditor.extract import model
    from auditor.extract.archive import ARCHIVES
    from auditor.extract.nested import extract_format

    if not raw.strip():
        return []
    skip = not_read(raw, label)
    if skip is not None:
        if not readable(raw):
            raise ExtractionError(skip[0], skip[1])
        return read_data(raw, label, limits, depth=depth + 1, budget=budget)
    fmt = detect_format(raw, label)
    if fmt == "binary" and binary_kind(raw) in ARCHIVES:
        return read_data(raw, label, limits, depth=depth + 1, budget=budget)
    if fmt in ("binary", "edgar"):
        raise ExtractionError("binary", f"{binary_kind(raw) or fmt} content that no reader reads")
    ex = extract_format(fmt, raw, limits, label)
    if ex.unmodelled:
        raise ExtractionError("data_unmodelled", model.reason(ex.unmodelled) or "not modelled")
    if ex.unreadable:
        raise ExtractionError("data_unreadable", ex.unreadable)
    return [Reading(ex.format, ex.text, f"the member read as {ex.format}"), *ex.readings]
