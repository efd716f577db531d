"""OpenDocument text (``.odt``, and flat ``.fodt``: the same XML in one file) as a word
processor shows it.

Runs are joined as ODF says text is laid out (ODF 1.2 part 1, §6.1.2): white space in the
XML collapses to one space, ``text:s`` is spaces, ``text:tab`` a tab, ``text:line-break`` a
line; a span boundary is no word boundary, so "SOFT<span>WARE</span>" reads "SOFTWARE".
Paragraphs and headings are lines; list items, table cells and text boxes hold paragraphs.
Notes (footnotes, endnotes) are read after the body, their citation mark left out (it would
glue a number to a word), and so are the headers and footers of the master pages in use (drawn
on every page). What the document holds outside the reader's model is named
(:mod:`auditor.extract.model.odf`). Hidden text (``text:hidden-text``, a style with
``text:display="none"``, white or background-coloured text, a font under 3 pt), tracked deletions
and comments (``office:annotation``) are not shown; every text is in the reading ``odf:all-text`` when it differs. Index templates
(``text:*-source``), sequence declarations and drawing titles are never shown.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from auditor.errors import ExtractionError, refusal
from auditor.extract.common import (
    Extracted,
    Limits,
    Reading,
    auditor_version,
    check_text,
    inherit,
    storable,
)
from auditor.extract.docx import ZIP_ERRORS, read_member
from auditor.extract.model import Outside
from auditor.extract.model import odf as model_odf
from auditor.text import dates

refusal("odf_error", "open it in a word processor, save it again (as .docx or PDF), and ingest that")
refusal("odf-condition", "open it in LibreOffice, print it to PDF (what a reader sees), and ingest that")

_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "meta": "urn:oasis:names:tc:opendocument:xmlns:meta:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
}
_T = "{" + _NS["text"] + "}"
_O = "{" + _NS["office"] + "}"
_S = "{" + _NS["style"] + "}"
_WS = re.compile(r"[ \t\r\n]+")
_SPACES = re.compile(r" {2,}")
_KEPT_SPACE = "\ue002"  # a text:s space while white space collapses
_BLOCK = frozenset({_T + "p", _T + "h"})
_NEVER = frozenset({
    _T + "sequence-decls", _T + "variable-decls", _T + "user-field-decls", _T + "dde-connection-decls",
    _T + "note-citation", _O + "change-info", "{" + _NS["svg"] + "}title", "{" + _NS["svg"] + "}desc",
    _O + "forms", _O + "annotation-end", _T + "index-title-template", "{" + _NS["dc"] + "}creator",
    "{" + _NS["dc"] + "}date",
})
_HIDDEN = frozenset({_T + "hidden-text", _T + "hidden-paragraph", _O + "annotation", _T + "tracked-changes"})


def _xml(data: bytes) -> Any:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
                             remove_pis=True, remove_comments=True)
    try:
        return etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError) as e:
        raise ExtractionError("odf_error", f"unreadable OpenDocument XML: {e}") from e


_FO = "{urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0}"
_MIN_POINTS = 3.0


def _points(size: str | None) -> float | None:
    m = re.fullmatch(r"\s*([\d.]+)\s*(pt|px|mm|cm|in)?\s*", size or "")
    if not m:
        return None
    try:
        value = float(m.group(1))
    except ValueError:
        return None
    return value * {"pt": 1, None: 1, "px": 0.75, "mm": 2.835, "cm": 28.35, "in": 72}[m.group(2)]


_FO_W3C = "{http://www.w3.org/1999/XSL/Format}"  # OpenOffice.org's first files: the same properties


def _fo(props: Any, name: str) -> str | None:
    value = props.get(_FO + name)
    return value if value is not None else props.get(_FO_W3C + name)


def _invisible(props: Any) -> bool:
    """Text properties a reader cannot see: ``text:display="none"``, white text on no
    background (or text the colour of its own background, within the .docx reader's
    tolerance), a font under 3 pt."""
    if props.get(_T + "display") == "none":
        return True
    colour = model_odf.hex_colour(_fo(props, "color"))
    background = model_odf.hex_colour(_fo(props, "background-color"))
    if colour and model_odf.same_colour(colour, background or "FFFFFF"):
        return True
    size = _points(_fo(props, "font-size"))
    return size is not None and size < _MIN_POINTS


def _hidden_styles(*roots: Any) -> set[str]:
    """Names of styles whose text a reader cannot see (:func:`_invisible`), and of the styles
    based on them. A white page background is assumed: a coloured page is not modelled."""
    parent: dict[str, str] = {}
    hidden: set[str] = set()
    for root in roots:
        if root is None:
            continue
        for st in root.iter(_S + "style"):
            name = st.get(_S + "name") or ""
            parent[name] = st.get(_S + "parent-style-name") or ""
            props = st.find(_S + "text-properties")
            if props is not None and _invisible(props):
                hidden.add(name)
    return inherit(hidden, parent)


def _walk(body: Any, hidden_styles: set[str]) -> tuple[str, str]:
    """(shown text, all text) of an ``office:text`` element, notes after the body; no recursion."""
    from lxml import etree

    shown: list[str] = []
    every: list[str] = []
    notes_shown: list[list[str]] = []
    notes_every: list[list[str]] = []
    out_shown, out_every = shown, every
    hidden_depth = never_depth = 0
    stack: list[tuple[bool, bool]] = []  # per open element: (it hides what it holds, it is never shown)
    note_stack: list[tuple[list[str], list[str]]] = []

    def put(text: str) -> None:
        if never_depth:
            return
        if not hidden_depth:
            out_shown.append(text)
        out_every.append(text)

    for event, el in etree.iterwalk(body, events=("start", "end")):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if event == "start":
            never = tag in _NEVER or (tag.startswith(_T) and tag.endswith("-source"))
            hides = (tag in _HIDDEN or (el.get(_T + "style-name") or "") in hidden_styles
                     or el.get(_T + "is-hidden") == "true" or el.get(_T + "display") == "none")
            stack.append((hides, never))
            never_depth += never
            hidden_depth += hides
            if hides and not never_depth:
                out_every.append(" ")  # hidden text is no part of the word before it
            if tag == _T + "note-body":
                notes_shown.append([])
                notes_every.append([])
                note_stack.append((out_shown, out_every))
                out_shown, out_every = notes_shown[-1], notes_every[-1]
            if el.text and tag not in _BLOCK_CONTAINERS:
                put(_WS.sub(" ", el.text))
            if tag == _T + "s":
                put(_KEPT_SPACE * max(1, _int(el.get(_T + "c"))))
            elif tag == _T + "tab":
                put("\t")
            elif tag == _T + "line-break":
                put("\n")
        else:
            if tag in _BLOCK or tag in _BLOCK_CONTAINERS:
                put("\n")
            hides, never = stack.pop()
            if hides and not never_depth:
                out_every.append(" ")
            never_depth -= never
            hidden_depth -= hides
            if tag == _T + "note-body":
                out_shown, out_every = note_stack.pop()
            if el.tail and stack:
                put(_WS.sub(" ", el.tail))

    def lines(parts: list[str]) -> str:
        """White space collapses across the elements of a paragraph; ``text:s`` spaces stay."""
        out = (_SPACES.sub(" ", ln).strip(" ").replace(_KEPT_SPACE, " ") for ln in "".join(parts).split("\n"))
        return "\n".join(ln for ln in out if ln.strip())

    def join(parts: list[str], notes: list[list[str]]) -> str:
        text = lines(parts)
        extra = [lines(n) for n in notes]
        extra = [e for e in extra if e]
        return text + ("\n\n" + "\n".join(extra) if extra else "")

    return join(shown, notes_shown), join(every, notes_every)


_CONDITIONAL = (_T + "hidden-paragraph", _T + "conditional-text")
_BLOCK_CONTAINERS = frozenset({
    "{" + _NS["table"] + "}table-cell", "{" + _NS["table"] + "}table-row", _T + "list-item",
    "{" + _NS["draw"] + "}text-box",
})


def _int(value: str | None) -> int:
    try:
        return int(value or "1")
    except ValueError:
        return 1


def _meta_dates(meta_root: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    if meta_root is None:
        return found
    for el, key in ((meta_root.find(f".//{{{_NS['dc']}}}date"), "odf:modified"),
                    (meta_root.find(f".//{{{_NS['meta']}}}creation-date"), "odf:created")):
        if el is not None and (el.text or "").strip():
            found[key] = (el.text or "").strip()[:dates.MAX_RAW]
    return found


def _read(content: Any, styles: Any, meta: Any, limits: Limits, fmt: str) -> Extracted:
    body = content.find(f"{_O}body/{_O}text")
    if body is None:
        raise ExtractionError("odf_error", "an OpenDocument file without text (no office:body/office:text): "
                              "a spreadsheet, drawing or presentation is not read; save it as PDF")
    hidden = _hidden_styles(content, styles)
    shown, every = _walk(body, hidden)
    for part in _headers_and_footers(content, styles):  # drawn on every page: read after the body
        s, e = _walk(part, hidden)
        shown, every = "\n\n".join(t for t in (shown, s) if t), "\n\n".join(t for t in (every, e) if t)
    outside = Outside()
    model_odf.check(body, [content] if styles is content else [content, styles], meta, outside, fmt)
    warnings: list[str] = []
    conditional = sorted({el.tag.rpartition("}")[2] for el in body.iter(*_CONDITIONAL)})
    unreadable = (f"odf-condition: text shown or hidden by a condition ({', '.join(conditional)}), which "
                  "this reader does not evaluate" if conditional else None)
    text = check_text(storable(shown, warnings), "OpenDocument text", limits)
    readings = []
    if every.split() != text.split():
        readings.append(Reading("odf:all-text", storable(every, warnings),
                                "every text, hidden text, tracked deletions and comments included"))
    return Extracted(fmt, text, "auditor.extract.odf", auditor_version(), encoding="utf-8", warnings=warnings,
                     unreadable=unreadable, unmodelled=outside.names(),
                     readings=readings, meta=dates.recorded(_meta_dates(meta)))


_HEADERS = frozenset(_S + n for n in ("header", "footer", "header-left", "footer-left", "header-first", "footer-first"))


def _headers_and_footers(*roots: Any) -> list[Any]:
    """The headers and footers of the master pages the document uses (the default one, and
    those its styles name), shown ones only."""
    masters: dict[str, Any] = {}
    used: set[str] = set()
    for root in dict.fromkeys(r for r in roots if r is not None):
        for m in root.iter(_S + "master-page"):
            masters.setdefault(m.get(_S + "name") or "", m)
        used.update(v for el in root.iter(_S + "style") if (v := el.get(_S + "master-page-name")))
    if masters:
        used.add("Standard" if "Standard" in masters else next(iter(masters)))
    return [part for name, m in masters.items() if name in used for part in m
            if part.tag in _HEADERS and part.get(_S + "display") != "false"]


def extract_odt(data: bytes, limits: Limits) -> Extracted:
    """An OpenDocument text package (.odt, .ott, .odm)."""
    budget = limits.max_file_bytes * 20
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = set(z.namelist())
    except ZIP_ERRORS as e:
        raise ExtractionError("odf_error", f"unreadable OpenDocument zip: {type(e).__name__}: {e}") from e
    if "content.xml" not in names:
        raise ExtractionError("odf_error", "an OpenDocument package without content.xml")
    content = _xml(read_member(data, "content.xml", budget))
    styles = _xml(read_member(data, "styles.xml", budget)) if "styles.xml" in names else None
    meta = _xml(read_member(data, "meta.xml", budget)) if "meta.xml" in names else None
    ex = _read(content, styles, meta, limits, "odt")
    outside = Outside()
    outside.extend(ex.unmodelled)
    model_odf.package(sorted(names), outside)
    ex.unmodelled = outside.names()
    return ex


def is_flat_odf(root_tag: tuple[str, str] | None) -> bool:
    return root_tag == (_NS["office"], "document")


def extract_fodt(data: bytes, limits: Limits) -> Extracted:
    """A flat OpenDocument text (.fodt): content, styles and metadata in one XML document."""
    root = _xml(data)
    return _read(root, root, root.find(f"{_O}meta"), limits, "fodt")
