""".docx (OOXML): the text of the body, text boxes, altChunk parts, notes, comments, headers
and footers, read from the zip with one inflation budget and a non-resolving XML parser."""

from __future__ import annotations

import io
import os
import re
import zipfile
import zlib

from auditor import dates
from auditor.errors import ExtractionError
from auditor.extract import extract_format
from auditor.extract.common import Extracted, Limits, auditor_version, check_text, storable
from auditor.extract.detect import binary_kind, detect_format

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
                RuntimeError, NotImplementedError, zlib.error)


def read_member(data: bytes, member: str, limit: int) -> bytes:
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
    except ZIP_ERRORS as e:
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
        except ZIP_ERRORS as e:
            raise ExtractionError("docx_error", f"unreadable .docx: {type(e).__name__}: {e}") from e

    def member(self, name: str) -> bytes:
        out = read_member(self.data, name, self.budget)
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
            ex = extract_docx(raw, self.limits, self.depth + 1) if fmt == "docx" else extract_format(fmt, raw, self.limits)
        except ExtractionError as e:
            if e.code == "empty":
                return ""
            self.unreadable.append(f"altChunk {target}: {e}")
            return ""
        if ex.unreadable:
            self.unreadable.append(f"altChunk {target}: {ex.unreadable}")
        return ex.text


def extract_docx(data: bytes, limits: Limits, depth: int = 0) -> Extracted:
    reader = _DocxReader(data, limits, depth)
    if "word/document.xml" not in reader.names:
        raise ExtractionError("docx_error", "not a .docx: no word/document.xml")
    warnings = reader.warnings
    text = check_text(storable(reader.text(), warnings), ".docx", limits)
    return Extracted("docx", text, "auditor.docx", auditor_version(), encoding=None, warnings=warnings,
                     unreadable="; ".join(reader.unreadable) or None, meta=dates.recorded(_core_dates(reader)))


def _core_dates(reader: _DocxReader) -> dict[str, str]:
    """``dcterms:modified`` and ``created`` of ``docProps/core.xml``; metadata never fails a file."""
    try:
        return dates.docx_core(reader.member("docProps/core.xml")) if "docProps/core.xml" in reader.names else {}
    except ExtractionError:
        return {}
