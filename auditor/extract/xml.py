"""XML documents (EDGAR ``<XML>`` parts such as ownership forms, XML files): every text node,
escaped HTML in a text node read as HTML. Never the markup itself. XML that is machine data
(XBRL schemas, linkbases, instances) is not read: :func:`read_xml` refuses it with its code.

What XML holds besides its text nodes is kept as other readings, which a gate audits too:
``xml:comments`` (the text of its comments) and ``xml:attributes`` (its attribute values).
An SVG drawing (format ``svg``) is read as a browser draws it: text hidden by ``display``,
``visibility``, ``opacity``, ``fill`` and ``stroke`` is left out, as the renderer leaves it out,
and every text node is the reading ``xml:text-nodes``. A gate renders it with Chromium, as it
renders HTML. Entities of the internal DTD subset are expanded, as a browser expands them.

Feeds (RSS 0.9x/2.0, RSS 1.0, Atom) are read as a feed reader shows them: the feed's title and
description, then each item's title and its description, summary or content (HTML read as
HTML). Each item's link and date are metadata (``meta["feed"]["items"]``), and the feed's
own date (Atom ``updated``, RSS ``lastBuildDate`` or ``pubDate``) a dated source. Flat
OpenDocument and Word 2003 XML have readers of their own (:mod:`.odf`, :mod:`.wordml`).
"""

from __future__ import annotations

import re
from typing import Any

from auditor.errors import ExtractionError, refusal
from auditor.extract import model
from auditor.extract.common import Extracted, Limits, Reading, check_text, storable, version_of
from auditor.extract.detect import ATOM_NS, not_read
from auditor.extract.html import html_to_text, read_html
from auditor.text import dates

refusal("xml_error", "repair the XML (xmllint --recover in.xml > out.xml), or ingest the document in another format")

_HTML_IN_TEXT = re.compile(r"<\s*/?\s*[a-zA-Z][\w:-]*[^<>]*>")
#: Entities an XML document declares in its internal DTD subset are expanded, as a browser's or a
#: feed reader's XML parser expands them (``<!ENTITY l0 "Redistribution and use">`` ... ``&l0;``):
#: left unexpanded, what they say is in no reading. External entities are never loaded, and
#: libxml2 bounds how far entities may amplify a document.
INTERNAL = "internal"


def xml_to_text(data: bytes, limits: Limits = Limits()) -> Extracted:
    """Every text node of an XML document (an EDGAR ``<XML>`` or ``<XBRL>`` part), one per line;
    a node holding escaped HTML (an XBRL text block) gives that HTML's visible text."""
    from lxml import etree

    warnings: list[str] = []
    parser = etree.XMLParser(resolve_entities=INTERNAL, no_network=True, huge_tree=False, load_dtd=False,
                             remove_pis=True, remove_comments=False, recover=True)
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
    comments: list[str] = []
    attributes: list[str] = []
    for node in root.iter():
        if not isinstance(node.tag, str):
            if node.tag is etree.Comment and (node.text or "").strip():
                comments.append(node.text.strip())
            if node.tail and node.tail.strip():
                out.append(node.tail.strip())
            continue
        attributes.extend(v.strip() for v in node.attrib.values() if v.strip())
        for value in (node.text, node.tail if node is not root else None):
            if value and value.strip():
                if "<" in value and _HTML_IN_TEXT.search(value):
                    try:
                        value = html_to_text(value.encode("utf-8", "surrogatepass"), limits).text
                    except ExtractionError:
                        continue
                out.append(value.strip())
    readings = []
    drawn = _drawn_svg(root, warnings)
    if drawn is not None:  # an SVG drawing: its text as a browser draws it; every text node a reading
        readings.append(Reading("xml:text-nodes", storable("\n".join(out), warnings),
                                "every text node of the drawing, drawn or not, as a generic XML reader reads it"))
        out = [drawn[0]]
        if drawn[2]:
            unreadable = "; ".join(filter(None, [unreadable, *drawn[2]]))
    text = check_text(storable("\n".join(out), warnings), "XML document", limits)
    if comments:
        readings.append(Reading("xml:comments", storable("\n".join(comments), warnings),
                                "the text of the document's comments, which a reader of the source sees"))
    if attributes:
        readings.append(Reading("xml:attributes", storable("\n".join(attributes), warnings),
                                "the values of the document's attributes, which a reader of the source sees"))
    # an SVG drawing is its own format: a browser draws it, so a gate renders it (gating/render.py)
    return Extracted("svg" if drawn is not None else "xml", text, "lxml", version_of("lxml"), encoding="utf-8",
                     warnings=warnings, unreadable=unreadable, readings=readings,
                     unmodelled=model.merged(_unmodelled(data, root), drawn[1] if drawn else []))


_SVG_NS = "http://www.w3.org/2000/svg"
_XHTML_NS = "http://www.w3.org/1999/xhtml"


def _unmodelled(data: bytes, root: Any) -> list[str]:
    """What an XML document holds outside the model of a reader of its text nodes: a style sheet
    a browser applies (``<?xml-stylesheet?>``: CSS or XSLT decide what it shows), an XHTML page
    (a browser styles it). An SVG drawing's constructs outside the SVG model (:mod:`.model.svg`)
    are named by the reading of its drawn text (:func:`_drawn_svg`)."""
    out = model.Outside()
    if re.search(rb"<\?xml-stylesheet\b", data[:65536]):
        out.add("xml", "processing instruction xml-stylesheet (a browser styles or transforms the document)")
    ns = root.tag[1:].partition("}")[0] if isinstance(root.tag, str) and root.tag.startswith("{") else ""
    if ns == _XHTML_NS:
        out.add("xml", "XHTML page read as text nodes (a browser styles it)")
    return out.names()


def _drawn_svg(root: Any, warnings: list[str]) -> tuple[str, list[str], list[str]] | None:
    """An SVG drawing's text as a browser draws it, or None for XML that is not SVG: read by the
    HTML reader, which models SVG as it does inline in a page (:mod:`.model.svg`): what
    ``display``, ``visibility``, ``opacity``, ``fill`` and ``stroke`` hide, and its style sheets,
    are left out, as the renderer leaves them out. (text, constructs outside the model, reasons
    it cannot be read)."""
    from lxml import etree

    ns = root.tag[1:].partition("}")[0] if isinstance(root.tag, str) and root.tag.startswith("{") else ""
    if ns != _SVG_NS:
        return None
    got = read_html(etree.tostring(root, encoding="unicode"), warnings)
    return got.visible, got.unmodelled, got.unreadable


def read_xml(data: bytes, limits: Limits = Limits(), name: str = "") -> Extracted:
    """An XML file's text nodes (:func:`xml_to_text`), unless it is machine data: then
    ExtractionError with the code :func:`~auditor.extract.detect.not_read` gives (``xbrl:schema``,
    ``xbrl:linkbase``, ``xbrl:instance``...)."""
    skip = not_read(data, name)
    if skip is not None:
        raise ExtractionError(skip[0], skip[1])
    from auditor.extract.detect import xml_root

    root = xml_root(data)
    from auditor.extract import odf, wordml

    if odf.is_flat_odf(root):
        return odf.extract_fodt(data, limits)
    if wordml.is_wordml(root):
        return wordml.extract_wordml(data, limits)
    if root is not None and (root[1] in ("rss", "RDF") or root == (ATOM_NS, "feed")):
        feed = read_feed(data, limits)
        if feed is not None:
            return feed
    return xml_to_text(data, limits)


_RSS1 = "http://purl.org/rss/1.0/"
_CONTENT = "{http://purl.org/rss/1.0/modules/content/}encoded"
_DC_DATE = "{http://purl.org/dc/elements/1.1/}date"
_MAX_ITEMS_META = 1000


def _local(tag: object) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _child(el, *names: str):  # type: ignore[no-untyped-def]
    for c in el:
        if isinstance(c.tag, str) and (c.tag in names or _local(c.tag) in names):
            return c
    return None


def _plain(el) -> str:  # type: ignore[no-untyped-def]
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def _shown(el, limits: Limits, unreadable: list[str]) -> str:  # type: ignore[no-untyped-def]
    """An item's text element as a feed reader shows it: escaped HTML (RSS description, Atom
    ``type="html"``) and inline XHTML read as HTML, text as text."""
    from lxml import etree

    if el is None:
        return ""
    kind = (el.get("type") or "").lower()
    if kind in ("xhtml", "application/xhtml+xml"):
        html = "".join(etree.tostring(c, encoding="unicode") for c in el)
    else:
        html = "".join(el.itertext())
        if kind in ("text", "text/plain") or (not _HTML_IN_TEXT.search(html) and "&" not in html):
            return html.strip()
    try:
        got = html_to_text(html.encode("utf-8", "surrogatepass"), limits)
    except ExtractionError:
        return ""
    if got.unreadable:
        unreadable.append(f"feed item HTML: {got.unreadable}")
    return got.text


def _shown_html(el) -> str:  # type: ignore[no-untyped-def]
    """An item's text element as the HTML a feed reader draws (see :func:`_shown`)."""
    import html as _html

    from lxml import etree

    if el is None:
        return ""
    kind = (el.get("type") or "").lower()
    if kind in ("xhtml", "application/xhtml+xml"):
        return "".join(etree.tostring(c, encoding="unicode") for c in el)
    text = "".join(el.itertext())
    if kind in ("text", "text/plain") or (not _HTML_IN_TEXT.search(text) and "&" not in text):
        return f"<p>{_html.escape(text.strip())}</p>"
    return text


def _feed(data: bytes) -> tuple[Any, list[Any], bool] | None:
    """A feed's channel (the feed itself for Atom), its items or entries, and whether it is Atom;
    None when it is not a feed."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=INTERNAL, no_network=True, huge_tree=False, load_dtd=False,
                             remove_pis=True, remove_comments=True, recover=True)
    try:
        root = etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    if root is None:
        return None
    atom = root.tag == f"{{{ATOM_NS}}}feed"
    channel = root if atom else _child(root, "channel")
    if channel is None:
        return None
    if atom:
        items = [c for c in root if c.tag == f"{{{ATOM_NS}}}entry"]
    else:  # RSS 2.0 items are in the channel, RSS 1.0 items beside it
        items = [c for c in channel if _local(c.tag) == "item"] + [c for c in root if _local(c.tag) == "item"]
    return channel, items, atom


def feed_html(data: bytes) -> str | None:
    """A feed as the HTML page a feed reader draws: the channel's title and description, then
    each item's title and body, as :func:`read_feed` reads them; None when it is not a feed."""
    import html as _html

    got = _feed(data)
    if got is None:
        return None
    channel, items, atom = got
    out = [f"<h1>{_html.escape(_plain(_child(channel, 'title')))}</h1>",
           _shown_html(_child(channel, "subtitle", "description"))]
    for it in items:
        body_el = _child(it, _CONTENT) if _child(it, _CONTENT) is not None else \
            _child(it, "content") if atom and _child(it, "content") is not None else _child(it, "summary", "description")
        out.append(f"<article><h2>{_html.escape(_plain(_child(it, 'title')))}</h2>{_shown_html(body_el)}</article>")
    return "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>" + "\n".join(out) + "</body></html>"


def read_feed(data: bytes, limits: Limits = Limits()) -> Extracted | None:
    """An RSS or Atom feed as a feed reader shows it; None when it holds no channel or entry."""
    got = _feed(data)
    if got is None:
        return None
    channel, items, atom = got
    unreadable: list[str] = []
    blocks = [b for b in (_plain(_child(channel, "title")),
                          _shown(_child(channel, "subtitle", "description"), limits, unreadable)) if b]
    listed: list[dict[str, str]] = []
    for it in items:
        title = _plain(_child(it, "title"))
        body_el = _child(it, _CONTENT) if _child(it, _CONTENT) is not None else \
            _child(it, "content") if atom and _child(it, "content") is not None else _child(it, "summary", "description")
        body = _shown(body_el, limits, unreadable)
        blocks.append("\n".join(b for b in (title, body) if b))
        link_el = _child(it, "link")
        link = (link_el.get("href") or _plain(link_el)) if link_el is not None else ""
        date = _plain(_child(it, "updated", "published", "pubDate", _DC_DATE))
        if len(listed) < _MAX_ITEMS_META:
            listed.append({k: v for k, v in (("title", title[:300]), ("link", link[:2000]), ("date", date[:200])) if v})
    warnings: list[str] = []
    text = check_text(storable("\n\n".join(b for b in blocks if b.strip()), warnings), "feed", limits)
    found = {}
    for name in ("updated", "lastBuildDate", "pubDate", "date"):
        value = _plain(_child(channel, name, _DC_DATE))
        if value:
            found[f"feed:{name}"] = value[:200]
            break
    feed_meta: dict[str, Any] = {"kind": "atom" if atom else "rss", "title": _plain(_child(channel, "title"))[:300],
                 "items": listed}
    if len(items) > _MAX_ITEMS_META:
        feed_meta["items_not_listed"] = len(items) - _MAX_ITEMS_META
    plain = xml_to_text(data, limits)
    return Extracted("feed", text, "lxml", version_of("lxml"), encoding="utf-8", warnings=warnings,
                     unreadable="; ".join(dict.fromkeys(unreadable)) or None,
                     readings=[Reading("xml:text-nodes", plain.text, "every text node of the feed, as a generic XML reader reads it"),
                               *plain.readings],
                     meta={"feed": feed_meta, **dates.recorded(found)})


# -- XHTML: parsed as a browser parses it --------------------------------------------------------

XHTML_EXT = (".xhtml", ".xht")
_PI_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
refusal("xhtml_error", "open the file in a browser: it shows an XML error where the file is not well-formed; repair "
                       "the XML (xmllint --recover), or save the page as HTML, and ingest that")


def says_xhtml(name: str) -> bool:
    """Whether a file name says XHTML (``.xhtml``, ``.xht``): a browser parses such a file as XML."""
    return name.lower().endswith(XHTML_EXT)


def xhtml_as_html(data: bytes) -> tuple[bytes, list[str]]:
    """An XHTML file as the HTML page a browser draws of it, for the HTML reader; and the constructs
    outside the model.

    A browser parses an ``.xhtml`` file as XML, not as HTML: the entities of its internal DTD
    subset are expanded, a CDATA section is text (an HTML parser takes it for a comment), and a
    ``<?xml-stylesheet?>`` processing instruction applies a style sheet (an HTML parser ignores
    it). So the file is parsed as XML here (entities expanded, CDATA as text), written out again
    as HTML, and its CSS processing instructions become ``<link rel="stylesheet">`` elements that
    the HTML reader applies (a ``data:`` sheet) or names as external. An XSLT style sheet
    (it transforms the page) is outside the model. A file that is not well-formed is refused: a
    browser shows an XML error there, and what precedes it."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=INTERNAL, no_network=True, huge_tree=False, load_dtd=False,
                             remove_comments=True, recover=False)
    try:
        root = etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError) as e:
        raise ExtractionError("xhtml_error", f"not well-formed XML, which a browser shows as an error: {e}") from e
    outside = model.Outside()
    links: list[str] = []
    node = root.getprevious()
    pis = []
    while node is not None:
        if isinstance(node, etree._ProcessingInstruction):
            pis.append(node)
        node = node.getprevious()
    for pi in reversed(pis):
        if pi.target != "xml-stylesheet":
            continue
        attrs = {m.group(1).lower(): m.group(2) if m.group(2) is not None else m.group(3)
                 for m in _PI_ATTR.finditer(pi.text or "")}
        kind = (attrs.get("type") or "text/css").strip().lower()
        if kind != "text/css":
            outside.add("xhtml", f"processing instruction xml-stylesheet of type {kind} (it transforms the page)")
            continue
        if attrs.get("alternate", "no").strip().lower() == "yes":
            continue
        import html as _html

        media = f" media='{_html.escape(attrs['media'])}'" if attrs.get("media") else ""
        links.append(f"<link rel='stylesheet' href='{_html.escape(attrs.get('href') or '')}'{media}>")
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag.startswith(f"{{{_XHTML_NS}}}"):
            el.tag = el.tag[len(_XHTML_NS) + 2:]
    etree.cleanup_namespaces(root)
    page = etree.tostring(root, method="html", encoding="unicode")
    if links:
        head = re.search(r"<head\b[^>]*>", page, re.I)
        at = head.end() if head else 0
        page = page[:at] + "".join(links) + page[at:]
    return b"\xef\xbb\xbf<!DOCTYPE html>" + page.encode("utf-8", "surrogatepass"), outside.names()
