"""Which format an input is, by its content: magic bytes, an EDGAR envelope, HTML markup, an XML
root element, the members of a zip. The file name only settles weak HTML evidence."""

from __future__ import annotations

import io
import json
import os
import re
import zipfile

from auditor.errors import refusal
from auditor.extract import edgar
from auditor.extract.text import SNIFF, detect_bom, nul_pattern

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
    (b"\xffWPC", "wpd"),
]
_BZIP2 = re.compile(rb"BZh[1-9]1AY&SY")
_BMP_HEADERS = (12, 40, 52, 56, 64, 108, 124)  # the sizes of a Windows or OS/2 bitmap's DIB header
_RIFF = re.compile(rb"RIFF....(WAVE|AVI |WEBP)", re.S)
_STRONG_HTML = re.compile(rb"<(?:!doctype\s+html|html|head|body)\b", re.I)
_WEAK_HTML = re.compile(
    rb"<(?:div|p|br|table|font|span|center|h[1-6]|ul|ol|li|title|meta|a\s+href|b|i|pre)\b[^>]*>", re.I)
HTML_EXT = (".htm", ".html", ".xhtml", ".shtml")
#: Names that say plain text: the bytes are what a reader sees, whatever markup they hold.
TEXT_EXT = (".txt", ".text", ".asc", ".log", ".csv", ".tsv")
#: Formats with a rendering of their own, by name: what a reader sees is the rendered document.
RENDERED_EXT = {".md": "markdown", ".markdown": "markdown", ".mdown": "markdown", ".rst": "rst",
                ".rest": "rst", ".ipynb": "notebook"}
#: Binary kinds a reader reads (an OLE2 file may be a Word document: the dispatcher tells); a
#: picture is read by OCR (:mod:`auditor.extract.image`).
READ_BINARY = {"ole": "ole", "wpd": "wpd", "rtf": "rtf", "png": "image", "jpg": "image", "gif": "image",
               "tiff": "image", "bmp": "image", "webp": "image"}


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
    if data.startswith(b"BM") and len(data) >= 18 and int.from_bytes(data[14:18], "little") in _BMP_HEADERS:
        return "bmp"  # "BM", then a DIB header of a known size: a text starting "BM" is not a bitmap
    if data[257:262] == b"ustar":  # a tar archive (POSIX and GNU): its headers are no text to read
        return "tar"
    return None


def is_docx(data: bytes) -> bool:
    return zip_kind(data) == "docx"


# Members that make a zip an XBRL package (the SEC's ``-xbrl.zip``): a taxonomy schema, a
# linkbase, the viewer's FilingSummary.xml.
_XBRL_MEMBER = re.compile(r"(?:^|/)(?:[^/]+\.xsd|[^/]+_(?:cal|def|lab|pre|ref)\.xml|FilingSummary\.xml)$", re.I)


def zip_kind(data: bytes) -> str | None:
    """What a zip holds, from its member names: "docx", "xlsx", "pptx", "odf" (OpenDocument),
    "xbrl" (an XBRL package), "zip" (anything else); None when it is not a readable zip."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = z.namelist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError, NotImplementedError):
        return None
    have = set(names)
    for member, kind in (("word/document.xml", "docx"), ("xl/workbook.xml", "xlsx"),
                         ("ppt/presentation.xml", "pptx")):
        if member in have:
            return kind
    if "mimetype" in have and "META-INF/manifest.xml" in have:
        return "odf"
    if any(_XBRL_MEMBER.search(n) for n in names):
        return "xbrl"
    return "zip"


_XML_ROOT = re.compile(
    rb"\A\s*(?:<\?[^>]*\?>\s*|<!--.*?-->\s*|<!DOCTYPE[^>\[]*(?:\[.*?\])?\s*>\s*)*"
    rb"<(?:([A-Za-z_][\w.-]*):)?([A-Za-z_][\w.-]*)((?:\s[^<>]*)?)/?>", re.S)
_XMLNS = re.compile(rb"""\sxmlns(?::([\w.-]+))?\s*=\s*["']([^"']*)["']""")
_XML_HEAD = 65536
ATOM_NS = "http://www.w3.org/2005/Atom"
# XML a machine reads, not a person: the skip code for each root element (namespace, name).
MACHINE_XML = {
    ("http://www.w3.org/2001/XMLSchema", "schema"): "xbrl:schema",
    ("http://www.xbrl.org/2003/linkbase", "linkbase"): "xbrl:linkbase",
    ("http://www.xbrl.org/2003/instance", "xbrl"): "xbrl:instance",
    ("", "FilingSummary"): "xbrl:viewer",
}


def xml_root(data: bytes) -> tuple[str, str] | None:
    """(namespace, local name) of the root element of XML, read from its start tag; None when
    ``data`` does not start as XML does (after a BOM, declaration, comments, a DOCTYPE)."""
    head = data[:_XML_HEAD]
    bom = detect_bom(head[:4])
    if bom and not bom[0].startswith("utf-8"):
        head = head[bom[1]:].decode(bom[0], "replace").encode("utf-8", "replace")
    m = _XML_ROOT.match(head.lstrip(b"\xef\xbb\xbf"))
    if m is None:
        return None
    prefix, name, attrs = m.group(1) or b"", m.group(2), m.group(3)
    namespaces = {(p or b""): uri for p, uri in _XMLNS.findall(b" " + attrs)}
    return namespaces.get(prefix, b"").decode("utf-8", "replace"), name.decode("utf-8", "replace")


def machine_xml(data: bytes) -> str | None:
    """The skip code of XML that is machine data by its root element (an XBRL schema, linkbase
    or instance, the XBRL viewer's FilingSummary.xml), else None."""
    root = xml_root(data)
    return MACHINE_XML.get(root) if root else None


def detect_format(data: bytes, name: str = "") -> str:
    """"text", "html", "xml", "pdf", "docx", "odt", "ole" (a Word 97-2003 .doc, or another OLE2
    file the dispatcher names), "wpd", "rtf", "email", "markdown", "rst", "notebook", "edgar",
    "image" (a picture, read by OCR) or "binary" (a known format no reader reads).

    Content decides: ``%PDF-`` in the first KiB, magic bytes (a zip holding
    ``word/document.xml`` or an OpenDocument text, OLE2, WordPerfect, RTF), an EDGAR envelope,
    an Internet message's header block (:func:`~auditor.extract.mail.looks_like_mail`: a .txt
    notice of electronic filing is a message), HTML markup, an XML declaration or a namespaced
    root element. A name then decides what content cannot: Markdown, reStructuredText and
    notebooks (``.md``, ``.rst``, ``.ipynb``) are read as they render; a name that says HTML
    (``.htm``...) or text (``.txt``...) decides between text and HTML: a browser renders an
    .htm file whatever it starts with, a text editor shows a .txt file's bytes; the other
    reading is then one of the document's readings (:func:`auditor.extract.extract_format`).
    """
    if b"%PDF-" in data[:1024]:
        return "pdf"
    kind = binary_kind(data)
    if kind == "zip":
        zkind = zip_kind(data)
        if zkind == "docx":
            return "docx"
        return "odt" if zkind == "odf" and _odf_text(data) else "binary"
    if kind is not None:
        return READ_BINARY.get(kind, "binary")
    if edgar.is_submission(data):
        return "edgar"
    if looks_like_mail(data, name):
        return "email"
    ext = os.path.splitext(name)[1].lower()
    if ext in RENDERED_EXT:
        return RENDERED_EXT[ext]
    if ext in TEXT_EXT:
        return "text"  # the container says text: a text editor shows the bytes (the HTML is a reading)
    if ext in HTML_EXT:
        return "html"  # the container says HTML: a browser renders it, whatever it starts with
    head = _sniff_head(data)
    if _xml_not_html(data, head):
        return "xml"  # <rss><channel><title>, <note><body>, <office:document><meta:generator>: not HTML tags
    if _STRONG_HTML.search(head):
        return "html"
    if head.lstrip().startswith(b"<") and _WEAK_HTML.search(head):
        return "html"
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<?xml") or (
            head.lstrip().startswith(b"<") and b"xmlns" in head and xml_root(data) is not None):
        return "xml"
    return "text"


def _xml_not_html(data: bytes, head: bytes) -> bool:
    """Whether markup that holds HTML-like tags is XML of another vocabulary: a feed's root
    element (``rss``, Atom's ``feed``, RSS 1.0's ``rdf:RDF``), or an XML declaration before a
    root element that is not ``html``."""
    root = xml_root(data)
    if root is None:
        return False
    if root[1] in ("rss", "RDF") or root == (ATOM_NS, "feed"):
        return True
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<?xml") and root[1].lower() != "html"


#: The mimetypes of OpenDocument text: a document, a template, a master document.
ODF_TEXT = ("application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.text-template",
            "application/vnd.oasis.opendocument.text-master")


def odf_mimetype(data: bytes) -> str | None:
    """The ``mimetype`` member of an OpenDocument zip (its first 200 bytes), or None."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z, z.open("mimetype") as f:
            return f.read(200).decode("ascii", "replace").strip()
    except (KeyError, zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
            NotImplementedError, RuntimeError):
        return None


def _odf_text(data: bytes) -> bool:
    return odf_mimetype(data) in ODF_TEXT


# -- Internet messages ------------------------------------------------------------------------------

MAIL_EXT = (".eml", ".mht", ".mhtml", ".mime")
_HEADER_LINE = re.compile(rb"[!-9;-~]+:[^\r\n]*\r?\n|[ \t][^\r\n]*\r?\n")
_HEADER_NAME = re.compile(rb"([!-9;-~]+):")
# Headers only mail carries: a block of header lines holding one of these is a message, not a memo.
_TRANSPORT = frozenset({b"mime-version", b"content-type", b"content-transfer-encoding", b"received",
                        b"return-path", b"message-id", b"dkim-signature", b"delivered-to", b"x-mailer",
                        b"in-reply-to", b"references", b"x-originating-ip", b"authentication-results"})
_COMMON = frozenset({b"from", b"to", b"cc", b"subject", b"date", b"sender", b"reply-to"})

def looks_like_mail(data: bytes, name: str = "") -> bool:
    """Whether ``data`` is an Internet message: it opens with a block of header lines (an mbox
    ``From `` line may precede it) that ends with an empty line. Without a mail file name
    (``.eml``, ``.mht``...), the block must hold a header only mail carries (MIME-Version,
    Content-Type, Received, Message-ID...): a memo that starts "From:", "To:", "Subject:" is
    not a message."""
    head = data[:65536].lstrip(b"\xef\xbb\xbf")
    if head.startswith(b"From "):
        head = head.split(b"\n", 1)[1] if b"\n" in head else b""
    pos, names = 0, set()
    while pos < len(head):
        if head.startswith(b"\r\n", pos) or head.startswith(b"\n", pos):
            break
        m = _HEADER_LINE.match(head, pos)
        if m is None:
            return False
        n = _HEADER_NAME.match(m.group(0))
        if n:
            names.add(n.group(1).lower())
        pos = m.end()
    else:
        return False  # no empty line ends the header block in what was looked at
    if not names:
        return False
    if os.path.splitext(name)[1].lower() in MAIL_EXT:
        return bool(names & (_TRANSPORT | _COMMON))
    return len(names) >= 2 and bool(names & _TRANSPORT) and bool(names & _COMMON)




def looks_like_html(data: bytes) -> bool:
    """Whether a browser or a sniffing extractor would take ``data`` for HTML: markup near the
    start (a doctype, ``<html>``, ``<body>``, or a common tag opening the text)."""
    head = _sniff_head(data)
    return bool(_STRONG_HTML.search(head) or (head.lstrip().startswith(b"<") and _WEAK_HTML.search(head)))


def says_html(name: str) -> bool:
    """Whether a file name says HTML (``.htm``, ``.html``...)."""
    return os.path.splitext(name)[1].lower() in HTML_EXT


def _sniff_head(data: bytes) -> bytes:
    """The first bytes as ASCII-compatible bytes, even for UTF-16/32 input, for tag sniffing."""
    head = data[:SNIFF]
    bom = detect_bom(head)
    enc = bom[0] if bom else nul_pattern(head)
    if enc and not enc.startswith("utf-8"):
        text = head.decode(enc, "replace")
        return text.encode("ascii", "replace")
    return head


def extension(name: str) -> str | None:
    """A file name's extension, lower case, when it looks like one (``xlsx``, not ``com/x``)."""
    ext = os.path.splitext(name)[1].lower().lstrip(".")
    return ext if ext.isalnum() and len(ext) <= 5 else None


_BINARY_WHY = {
    "xlsx": "a spreadsheet: cells of figures and labels, not prose",
    "pptx": "a slide deck (PowerPoint), not read",
    "odf": "an OpenDocument spreadsheet, drawing or presentation, not read",
}
_CODE_EXT = {"js": "code:js", "css": "code:css"}
_MACHINE = ("nothing to do: a submission's data part is not a document of the corpus; a gate reads it as data "
            "and audits each of its readings")
refusal("xbrl", "an XBRL file is a filing's machine data, not a document: in a submission a gate reads it as data; "
                "a lone XBRL file is not read: gate the submission that holds it, or leave the file out")
refusal("data", _MACHINE)
refusal("code", _MACHINE)
refusal("archive", "unpack it, and ingest the documents it holds that the auditor reads")


def not_read(data: bytes, name: str = "") -> tuple[str, str] | None:
    """Why content that is a document's (an EDGAR part's, an archive member's) is not read as
    text: ``(code, reason)``, or None when a reader reads it.

    In this order: binary content by its magic bytes (a zip by its members: a .docx is read, a
    spreadsheet, a slide deck or an XBRL package is not; PDF and compressed data are read;
    images and every other binary are not); then machine data by content: XBRL schemas,
    linkbases and instances and the XBRL viewer's FilingSummary.xml (by root element), JSON;
    then by the name's extension: ``.xsd`` schemas, ``.json``, scripts and style sheets.
    """
    ext = extension(name)
    kind = binary_kind(data)
    if kind == "zip":
        zkind = zip_kind(data)
        if zkind == "xbrl":
            return "archive:xbrl", ("an XBRL package: the filing's XBRL (taxonomy schema, linkbases, "
                                    "instance and its inline documents again), machine data")
        if zkind == "odf" and _odf_text(data):
            return None
        if zkind in _BINARY_WHY:
            code = ext if zkind != "odf" and ext in ("xlsx", "xlsm", "pptx") else zkind
            return f"binary:{code}", _BINARY_WHY[zkind]
        return None
    if kind in ("gz", "bz2", "xz", "wpd", "rtf"):
        return None
    if kind == "ole":
        from auditor.extract.legacy import ole_kind

        ole = ole_kind(data)
        return None if ole == "doc" else (f"binary:{ole}", f"binary data ({ole}), not text")
    if kind is not None:
        return f"binary:{ext or kind}", f"binary data ({kind}), not text"
    if b"%PDF-" in data[:1024]:
        return None
    machine = machine_xml(data)
    if machine is not None:
        return machine, {"xbrl:schema": "an XBRL taxonomy schema: element definitions, machine data",
                      "xbrl:linkbase": "an XBRL linkbase: labels and relations of XBRL elements, machine data",
                      "xbrl:instance": "an XBRL instance: the filing's tagged facts, machine data",
                      "xbrl:viewer": "made by the SEC's XBRL viewer from the filing's own XBRL"}[machine]
    if ext == "xsd":
        return "xbrl:schema", "an XML schema (.xsd), machine data"
    if ext == "json" or _is_json(data):
        return "data:json", "JSON data, not prose"
    if ext in _CODE_EXT:
        return _CODE_EXT[ext], f"a {'script' if ext == 'js' else 'style sheet'}, not prose"
    return None


_MAX_JSON_CHECK = 8 * 2**20  # parsing more to find out costs more memory than reading it as text


def _is_json(data: bytes) -> bool:
    if len(data) > _MAX_JSON_CHECK or not re.match(rb"\s*[\[{]", data):
        return False
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return False
    return True
