"""XML documents (EDGAR ``<XML>`` parts such as ownership forms, XML files): every text node,
escaped HTML in a text node read as HTML. Never the markup itself. XML that is machine data
(XBRL schemas, linkbases, instances) is not read: :func:`read_xml` refuses it with its code."""

from __future__ import annotations

import re

from auditor.errors import ExtractionError, refusal
from auditor.extract.common import Extracted, Limits, check_text, storable, version_of
from auditor.extract.detect import not_read
from auditor.extract.html import html_to_text

refusal("xml_error", "repair the XML (xmllint --recover in.xml > out.xml), or ingest the document in another format")

_HTML_IN_TEXT = re.compile(r"<\s*/?\s*[a-zA-Z][\w:-]*[^<>]*>")


def xml_to_text(data: bytes, limits: Limits = Limits()) -> Extracted:
    """Every text node of an XML document (an EDGAR ``<XML>`` or ``<XBRL>`` part), one per line;
    a node holding escaped HTML (an XBRL text block) gives that HTML's visible text."""
    from lxml import etree

    warnings: list[str] = []
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
                             remove_pis=True, remove_comments=True, recover=True)
    try:
        root = etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError) as e:
        raise ExtractionError("xml_error", f"unreadable XML: {e}") from e
    if root is None:
        raise ExtractionError("xml_error", "unreadable XML: no root element")
    unreadable = None
    fatal = [e for e in parser.error_log if e.level == etree.ErrorLevels.FATAL]
    if fatal:  # recovery may have dropped text after the error
        unreadable = f"XML not well-formed at line {fatal[0].line} ({fatal[0].message.strip()}): text may be missing"
    elif len(parser.error_log):
        warnings.append(f"XML read with recovery ({parser.error_log[0].message.strip()})")
    out: list[str] = []
    for node in root.iter():
        for value in (node.text, node.tail if node is not root else None):
            if value and value.strip():
                if "<" in value and _HTML_IN_TEXT.search(value):
                    try:
                        value = html_to_text(value.encode("utf-8", "surrogatepass"), limits).text
                    except ExtractionError:
                        continue
                out.append(value.strip())
    text = check_text(storable("\n".join(out), warnings), "XML document", limits)
    return Extracted("xml", text, "lxml", version_of("lxml"), encoding="utf-8", warnings=warnings,
                     unreadable=unreadable)


def read_xml(data: bytes, limits: Limits = Limits(), name: str = "") -> Extracted:
    """An XML file's text nodes (:func:`xml_to_text`), unless it is machine data: then
    ExtractionError with the code :func:`~auditor.extract.detect.not_read` gives (``xbrl:schema``,
    ``xbrl:linkbase``, ``xbrl:instance``...)."""
    skip = not_read(data, name)
    if skip is not None:
        raise ExtractionError(skip[0], skip[1])
    return xml_to_text(data, limits)
