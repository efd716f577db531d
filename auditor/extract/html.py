"""HTML: the text a browser shows. Decoded as browsers decode it (BOM, a declared charset
they know, else detection), parsed with lxml (no network, no entity expansion) or, beyond its
limits, streamed through the stdlib tokenizer, and walked without recursion."""

from __future__ import annotations

import codecs
import html.parser
import re
from collections.abc import Callable

from auditor import dates
from auditor.extract.common import Extracted, Limits, check_text, storable, version_of
from auditor.extract.text import (
    GUESSED,
    MAX_MESS,
    SNIFF,
    UTF8_MULTIBYTE,
    decode_text,
    detect_bom,
    mess,
    nul_pattern,
)

_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([-\w.:]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([-\w.:]+)""", re.I)
_WS = re.compile(r"[ \t\n\r\f\v\xa0]+")
_DISPLAY_NONE = re.compile(r"display\s*:\s*none", re.I)
# Never shown and never prose. <noscript>, <template>, <object> and <iframe> fallback content
# are read: a reader sees them (scripts, plug-ins or frames off) or a machine carries them to
# one; an iframe's ``srcdoc`` document is read too (below). In <svg>, only the text elements
# are text, until an HTML element that browsers do not let stay in SVG closes it.
_SKIP = frozenset({"script", "style", "head", "title", "math", "ix:header", "xml"})
_SVG_TEXT = frozenset({"text", "foreignobject"})
_SVG_BREAKOUT = frozenset({
    "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em",
    "embed", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "li", "listing", "menu", "meta",
    "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike", "sub", "sup",
    "table", "tt", "u", "ul", "var",
})
_MAX_SRCDOC_DEPTH = 4
_PARA = frozenset({
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "table", "blockquote", "pre", "hr", "ul", "ol", "dl",
    "section", "article", "header", "footer", "aside", "nav", "main", "figure", "address",
    "fieldset", "form", "details", "center", "listing", "xmp", "plaintext",
})
_BLOCK = frozenset({
    "div", "li", "tr", "dd", "dt", "caption", "figcaption", "body", "html", "summary", "legend",
    "thead", "tbody", "tfoot", "option", "menu", "dir", "frameset", "noframes", "br",
})
_CELL = frozenset({"td", "th"})
_VOID = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen", "basefont", "frame", "isindex",
})


class _TextBuilder:
    """Visible text from a stream of start/end/data events, whatever parser produces them.

    Whitespace runs collapse to one space (except inside ``pre``); block elements end lines;
    paragraph-like blocks leave one blank line; table cells are separated by tabs.
    """

    def __init__(self, depth: int = 0, warnings: list[str] | None = None) -> None:
        self.out: list[str] = []
        self.skip: list[str] = []
        self.pre = 0
        self.newlines = 0
        self.space = False
        self.tab = False
        self.depth = depth
        self.warnings = warnings if warnings is not None else []
        self.svg = 0  # open <svg> elements
        self.svg_text = 0  # open text elements inside them
        self.unreadable: list[str] = []

    def start(self, tag: str, attrs: Callable[[str], str | None]) -> None:
        if tag == "body":
            self.skip.clear()  # a <head> the stdlib tokenizer saw opened but never closed
        if self.skip:
            if tag not in _VOID:
                self.skip.append(tag)
            return
        if tag == "iframe" and attrs("srcdoc"):
            self._srcdoc(attrs("srcdoc") or "")
        if tag in _SKIP or _DISPLAY_NONE.search(attrs("style") or ""):
            if tag not in _VOID:
                self.skip.append(tag)
            return
        if self.svg and not self.svg_text and tag in _SVG_BREAKOUT:
            self.svg = 0  # as browsers do: this element ends the SVG, its text is shown
        if tag == "svg":
            self.svg += 1
        elif self.svg and tag in _SVG_TEXT:
            self.svg_text += 1
            self._block("div")
            return
        if tag == "br":
            if self.out:
                self.newlines = min(self.newlines + 1, 2)
            self.space = self.tab = False
        elif tag in _CELL:
            self.tab = True
        else:
            self._block(tag)
        if tag == "pre":
            self.pre += 1

    def _srcdoc(self, doc: str) -> None:
        """An iframe's ``srcdoc`` is a whole HTML document shown in place: its text goes here."""
        if self.depth >= _MAX_SRCDOC_DEPTH:
            self.unreadable.append(f"iframe srcdoc nested more than {_MAX_SRCDOC_DEPTH} deep: not read")
            return
        nested = _TextBuilder(self.depth + 1, self.warnings)
        _parse_html(doc, nested, self.warnings)
        self.unreadable += nested.unreadable
        text = nested.text().strip("\n")
        if text:
            self._block("p")
            self._flush()
            self.out.append(text)
            self._block("p")

    def end(self, tag: str) -> None:
        if self.skip:
            if tag in self.skip:
                while self.skip.pop() != tag:
                    pass
            return
        if tag == "svg" and self.svg:
            self.svg -= 1
            self.svg_text = min(self.svg_text, self.svg)
        elif self.svg_text and tag in _SVG_TEXT:
            self.svg_text -= 1
            self._block("div")
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
        if tag != "br":
            self._block(tag)

    def _block(self, tag: str) -> None:
        level = 2 if tag in _PARA else 1 if tag in _BLOCK else 0
        if level:
            self.newlines = max(self.newlines, level)
            self.space = self.tab = False

    def data(self, text: str) -> None:
        if self.skip or not text or (self.svg and not self.svg_text):
            return
        if self.pre:
            self._flush()
            self.out.append(text)
            return
        if text[0] in " \t\n\r\f\v\xa0":
            self.space = True
        words = _WS.sub(" ", text).strip(" ")
        if words:
            self._flush()
            self.out.append(words)
            self.space = text[-1] in " \t\n\r\f\v\xa0"

    def _flush(self) -> None:
        if self.out:
            if self.newlines:
                self.out.append("\n" * self.newlines)
            elif self.tab:
                self.out.append("\t")
            elif self.space:
                self.out.append(" ")
        self.newlines = 0
        self.space = self.tab = False

    def text(self) -> str:
        return "".join(self.out)


def _walk_lxml(root, builder: _TextBuilder) -> None:  # type: ignore[no-untyped-def]
    from lxml import etree

    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag
        if not isinstance(tag, str):  # comment, processing instruction or entity
            if event == "end":
                builder.data(el.tail or "")
            continue
        tag = tag.lower()
        if event == "start":
            builder.start(tag, el.get)
            builder.data(el.text or "")
        else:
            builder.end(tag)
            builder.data(el.tail or "")


class _StdlibWalker(html.parser.HTMLParser):
    """Fallback tokenizer for documents beyond libxml2's default limits (depth 256, 10 MB text
    nodes): it streams events without building a tree, so it has no depth or size limit."""

    def __init__(self, builder: _TextBuilder) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = builder

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.builder.start(tag, values.get)
        if tag in _VOID:
            self.builder.end(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag not in _VOID:
            self.builder.end(tag)

    def handle_data(self, data: str) -> None:
        self.builder.data(data)


def _decode_html(data: bytes, warnings: list[str]) -> tuple[str, str]:
    """BOM, then a declared charset (``<meta>`` or XML declaration), then ``decode_text``.

    A declaration is used only when it is a WHATWG Encoding label (browsers ignore any other,
    such as ``cp037``), decodes the bytes, and does not turn them into gibberish (a single-byte
    label on valid multi-byte UTF-8, a CJK label on cp1252 text); otherwise the encoding is
    detected, with a warning.
    """
    import webencodings

    if detect_bom(data) or nul_pattern(data[:SNIFF]):
        return decode_text(data)
    head = data[:SNIFF]
    m = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    if not m:
        return decode_text(data)
    declared = m.group(1).decode("ascii", "replace")
    label = webencodings.lookup(declared)
    if label is None:
        text, used = decode_text(data)
        warnings.append(f"declared charset {declared!r} is not an encoding browsers know; ignored, used {used}")
        return text, used
    if label.name in ("utf-16le", "utf-16be", "replacement"):  # browsers do not decode with these either
        return decode_text(data)
    enc = codecs.lookup(label.codec_info.name).name
    try:
        text = data.decode(label.codec_info.name)
    except UnicodeDecodeError:
        text, used = decode_text(data)
        warnings.append(f"declared charset {declared!r} does not decode this document; used {used}")
        return text, used
    if text.isascii() or enc == "utf-8":
        return text, enc
    if UTF8_MULTIBYTE.search(data):
        try:
            utf8 = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            warnings.append(f"declared charset {declared!r} turns valid UTF-8 into mojibake; used utf-8")
            return utf8, "utf-8"
    ratio = mess(text)
    if ratio > MAX_MESS:
        other, used = decode_text(data)
        if mess(other) < ratio:
            warnings.append(f"declared charset {declared!r} gives gibberish (mess ratio {ratio:.2f}); used {used}")
            return other, used
    return text, enc


def _parse_html(text: str, builder: _TextBuilder, warnings: list[str]) -> None:
    from lxml import etree

    parser = etree.HTMLParser(
        encoding="utf-8", no_network=True, huge_tree=False, remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(text.encode("utf-8", "surrogatepass"), parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        root = None
    fatal = [e for e in parser.error_log if e.level == etree.ErrorLevels.FATAL]
    if fatal:
        warnings.append(f"lxml stopped early ({fatal[0].message.strip()}); used the stdlib HTML tokenizer")
        walker = _StdlibWalker(builder)
        walker.feed(text)
        walker.close()
    elif root is not None:
        _walk_lxml(root, builder)


def html_to_text(data: bytes, limits: Limits = Limits()) -> Extracted:
    """Visible text of an HTML document (also the HTML documents inside EDGAR submissions)."""
    warnings: list[str] = []
    text, enc = _decode_html(data, warnings)
    unreadable = []
    if "+" in enc:
        warnings.append(f"mixed encodings: decoded region by region as {enc}")
    if (enc in GUESSED or "+" in enc) and mess(text) > MAX_MESS:
        unreadable.append(f"HTML decoded as {enc} is gibberish (mess ratio {mess(text):.2f})")
    text = storable(text, warnings)
    builder = _TextBuilder(0, warnings)
    _parse_html(text, builder, warnings)
    out = "\n".join(line.rstrip(" \t") for line in builder.text().split("\n")).strip("\n")
    out = check_text(storable(out, warnings), "HTML document", limits)
    return Extracted("html", out, "lxml", version_of("lxml"), encoding=enc, warnings=warnings,
                     unreadable="; ".join(unreadable + builder.unreadable) or None,
                     meta=dates.recorded(dates.html_meta(text)))
