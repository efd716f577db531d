"""Turn one input (the bytes of a file) into text, with the details needed to trust it later.

Formats are recognised by content (magic bytes, envelopes, markup), the file name being only
a hint (:mod:`.detect`). Each format has its own module: :mod:`.text` (plain text in any
encoding), :mod:`.html`, :mod:`.pdf`, :mod:`.docx`, :mod:`.odf` (OpenDocument text, flat or
zipped), :mod:`.wordml` (Word 2003 XML), :mod:`.legacy` (Word 97-2003 .doc, WordPerfect, RTF,
through :mod:`.convert` for external converters), :mod:`.mail` (email and MHTML),
:mod:`.rendered` (Markdown, reStructuredText, notebooks), :mod:`.xml` (XML, RSS and Atom
feeds), :mod:`.image` (pictures, by OCR), :mod:`.archive` and :mod:`.submission` (the parts of
an EDGAR submission; :mod:`.data` reads those that are data, for a gate);
:mod:`.common` holds what they return. :mod:`.layout` reads plain text laid out for paper
(pleading-paper margins, two columns) in a reader's order; :mod:`.scripts` tells a page built
by its scripts.

Every result records which extractor and version produced it and, for decoded text, which
encoding was used, so a stored text can be traced back to its bytes. Every text returned can
be stored in SQLite: NULs and lone surrogates become U+FFFD (counted in ``warnings``) and line
ends are ``\\n``.

Nothing here parses a PDF in-process: PDFs go to :mod:`auditor.extract.pdf.job` children, which can
be killed. HTML is parsed by lexbor (:mod:`selectolax`, as browsers parse it, no network), .docx
by lxml with network access and entity expansion off; both are walked without recursion, so
hostile nesting cannot exhaust the stack. Besides its visible text, a result can carry other
readings (``readings``) and the reason it cannot be read reliably (``unreadable``). Failures are raised as
:class:`~auditor.errors.ExtractionError` with a stable ``code``.

All functions are thread-safe; PDF extraction waits on a child process without holding the
GIL, so threads are enough to keep several cores busy with PDFs.
"""

from __future__ import annotations

import os
from typing import BinaryIO

from auditor.errors import ExtractionError
from auditor.extract import model, nested
from auditor.extract.common import Extracted, Limits, Part, Reading

_LAZY = {"decode_text": "text", "detect_format": "detect", "binary_kind": "detect", "extract_pdf_pages": "pdf"}


def __getattr__(name: str) -> object:
    """The format modules load on first use: the parent of a sandbox only needs ``Limits``."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"auditor.extract.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "Extracted",
    "Limits",
    "Part",
    "Reading",
    "decode_text",
    "detect_format",
    "extract",
    "extract_bytes",
    "extract_format",
    "extract_pdf_pages",
]


#: Formats whose readers store characters as the file holds them: their text is checked against
#: the characters the readers model (:mod:`auditor.extract.model.text`). Office and PDF readers
#: map what a font draws, so a private-use character there is the font's (a bullet).
_CHARACTERS = frozenset({"text", "html", "markdown", "rst", "notebook", "email", "mhtml", "xml", "svg", "feed"})


def extract_format(fmt: str, data: bytes, limits: Limits, name: str = "") -> Extracted:
    """The text of ``data`` read as ``fmt``, with the characters outside the model named
    (:data:`_CHARACTERS`); see :func:`_extract_format`."""
    ex = _extract_format(fmt, data, limits, name)
    if ex.format in _CHARACTERS:
        from auditor.extract.model import text as model_text

        out = model.Outside()
        out.extend(ex.unmodelled)
        boxes = model_text.check(ex.text, "text" if ex.format == "text" else ex.format, out)
        ex.unmodelled = out.names()
        if boxes:
            ex.readings.append(Reading("text:boxes-left-out", model_text.boxes_left_out(ex.text, boxes),
                                       "the text without the control characters a browser draws as boxes: "
                                       "a reader reads past a box and joins the letters on either side"))
    return ex


def _extract_format(fmt: str, data: bytes, limits: Limits, name: str = "") -> Extracted:
    """The text of ``data`` read as ``fmt`` (a :func:`detect_format` answer); ``name`` is the
    file's (an EDGAR file without header takes its accession number from it).

    When container and content disagree, both readings exist: text that looks like HTML gets
    its HTML visible reading as ``text:as-html``; HTML that only content sniffing made HTML (the
    name, if any, does not say so) gets its bytes as ``html:as-plain-text``.
    """
    if fmt == "html":
        from auditor.extract.detect import says_html
        from auditor.extract.html import html_to_text
        from auditor.extract.xml import says_xhtml, xhtml_as_html

        if says_xhtml(name):  # a browser parses it as XML: read the page that parse makes
            page, outside = xhtml_as_html(data)
            ex = html_to_text(page, limits, main_content=True)
            ex.unmodelled = model.merged(outside, ex.unmodelled)
            return ex
        ex = html_to_text(data, limits, main_content=True)
        if not says_html(name):
            from auditor.extract.text import extract_text

            plain = extract_text(data, limits)
            ex.readings.append(Reading("html:as-plain-text", plain.text,
                                       "the bytes as plain text, as a text editor or a text pipeline shows them"))
        return ex
    if fmt == "text":
        from auditor.extract.detect import looks_like_html
        from auditor.extract.text import extract_text

        ex = extract_text(data, limits)
        if looks_like_html(data):
            from auditor.extract.html import html_to_text

            try:
                shown = html_to_text(data, limits)
            except ExtractionError:
                return ex
            ex.readings.append(Reading("text:as-html", shown.text,
                                       "the bytes read as HTML, as a browser or a sniffing extractor shows them"))
            ex.readings.extend(shown.readings)
            if shown.unreadable:
                ex.unreadable = "; ".join(filter(None, [ex.unreadable, f"as HTML: {shown.unreadable}"]))
            ex.unmodelled = model.merged(ex.unmodelled, shown.unmodelled)
        return ex
    if fmt == "pdf":
        from auditor.extract.pdf import extract_pdf

        return extract_pdf(data, limits)
    if fmt == "docx":
        from auditor.extract.docx import extract_docx

        return extract_docx(data, limits)
    if fmt == "edgar":
        from auditor.extract.submission import extract_edgar

        return extract_edgar(data, limits, name)
    if fmt == "xml":
        from auditor.extract.xml import read_xml

        return read_xml(data, limits, name)
    if fmt == "odt":
        from auditor.extract.odf import extract_odt

        return extract_odt(data, limits)
    if fmt == "ole":
        from auditor.extract.legacy import extract_doc, ole_kind, refuse_ole

        kind = ole_kind(data)
        if kind != "doc":
            raise refuse_ole(kind)
        return extract_doc(data, limits)
    if fmt == "wpd":
        from auditor.extract.legacy import extract_wpd

        return extract_wpd(data, limits)
    if fmt == "rtf":
        from auditor.extract.legacy import extract_rtf

        return extract_rtf(data, limits)
    if fmt == "email":
        from auditor.extract.mail import extract_email

        return extract_email(data, limits, name)
    if fmt in ("markdown", "rst", "notebook"):
        from auditor.extract.rendered import extract_rendered

        return extract_rendered(fmt, data, limits)
    if fmt == "image":
        from auditor.extract.image import extract_image

        return extract_image(data, limits, name)
    if fmt == "binary":
        from auditor.extract.detect import binary_kind

        kind = binary_kind(data) or "zip"
        raise ExtractionError("binary", f"binary data ({kind}), not a supported document format")
    from auditor.extract.text import extract_text

    return extract_text(data, limits)


def extract_bytes(data: bytes, name: str = "", limits: Limits = Limits()) -> Extracted:
    """Extract the text of one input. Raises ExtractionError with a stable ``code``."""
    if len(data) > limits.max_file_bytes:
        raise ExtractionError("too_large", f"{len(data)} bytes, more than the limit of {limits.max_file_bytes}")
    if not data.strip():
        raise ExtractionError("empty", "empty input" if not data else "input is only whitespace")
    from auditor.extract.detect import detect_format

    return extract_format(detect_format(data, name), data, limits, name)


def extract(source: str | os.PathLike | BinaryIO, limits: Limits = Limits()) -> Extracted:
    """Extract the text of a file given by path or as a binary file object.

    Oversized inputs are refused before they are read whole.
    """
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        size = os.stat(name).st_size
        if size > limits.max_file_bytes:
            raise ExtractionError("too_large", f"{size} bytes, more than the limit of {limits.max_file_bytes}")
        with open(name, "rb") as f:
            data = f.read(limits.max_file_bytes + 1)
    else:
        name = str(getattr(source, "name", "") or "")
        data = source.read(limits.max_file_bytes + 1)
        if not isinstance(data, bytes):
            raise TypeError("extract() needs a binary file object")
    return extract_bytes(data, name, limits)


nested.register(extract_format)  # the formats that hold documents reach this dispatcher through it
