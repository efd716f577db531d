"""HTML: what a browser shows, and the other readings a reader or a machine could get.

Decoded as browsers decode it (BOM, a declared charset they know, else detection), parsed as
browsers parse it (WHATWG tree construction, by lexbor through :mod:`selectolax`: content after
``</html>`` goes back into the body, a stray ``<head>`` is ignored, ``<script>`` and ``<style>``
end where a browser ends them), styled by the CSS cascade that decides visibility
(:mod:`.css`), and walked without recursion.

The visible reading (``Extracted.text``) is the text a browser shows, in the order a reader reads
it: hidden elements and invisible text left out (``display:none``, ``hidden``, ``visibility``,
zero or tiny fonts, transparent or background-coloured text, off-screen, clipped or zero-size
boxes, ``noscript``, ``template``, closed ``details``, unselected options); text that is not a
text node put in (``::before``/``::after`` content, an image's ``alt`` when the image cannot be
loaded from the document itself, form values and placeholders, MathML, SVG text, frames and
objects whose document is in the page: ``srcdoc`` and ``data:`` URLs); flex ``order`` and
reversed directions applied; bidirectional text put in display order (UAX #9, python-bidi) and
read left to right, right-to-left runs in their own direction.

Other readings: ``html:all-text`` (every text node and the text of attributes, hidden or not, as a
naive extractor reads them) when the visible reading hid or added anything, and
``html:logical-order`` when bidi reordering changed the text. What cannot be read reliably fails
closed in ``Extracted.unreadable`` with a code: ``css-order:`` (layout decides the order),
``css-value:``/``css-selector:``/``css-media:`` (CSS this code cannot evaluate), ``css-font:``
(a web font may draw other letters than the text holds), ``css-external:`` (a style sheet outside
the document that could hide text interleaved with the words), ``letter-spaced:`` and
``nested-depth:``. Scripts are not run: what a script writes into the page is not read (failing
closed on every script would refuse ordinary filings: a third of the EDGAR HTML pages a public
parsing library ships as fixtures carry one, the XBRL viewer's pages, fund pages, a proxy
statement); text a script reveals by changing styles is in ``html:all-text``.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Any

from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from auditor.errors import ExtractionError, refusal
from auditor.extract import css, model
from auditor.extract.common import Extracted, Limits, Reading, check_text, storable, version_of
from auditor.extract.layout import pleading_margin, two_columns
from auditor.extract.letters import letter_spacing
from auditor.extract.model import html as model_html
from auditor.extract.model import svg as model_svg
from auditor.extract.order import BIDI_CONTROLS, display_order
from auditor.extract.scripts import script_built
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
from auditor.text import dates

_PRINTED = "open it in a browser, print it to PDF (what a reader sees), and ingest that"
for _code in ("css-selector", "css-value", "css-media", "css-font", "css-order", "css-external", "nested-depth",
              "script-built"):
    refusal(_code, _PRINTED)

_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([-\w.:]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([-\w.:]+)""", re.I)
_WS = re.compile(r"[ \t\n\r\f]+")  # ASCII whitespace collapses; a no-break space does not
_MAX_DEPTH = 4  # documents inside documents (srcdoc, data: URLs)
_MAX_MATCHES = 5_000_000  # declarations matched to elements: beyond, the CSS is not evaluated
_PARA = frozenset({
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "table", "blockquote", "pre", "hr", "ul", "ol", "dl",
    "section", "article", "header", "footer", "aside", "nav", "main", "figure", "address",
    "fieldset", "form", "details", "center", "listing", "xmp", "plaintext",
})
_BLOCK = frozenset({
    "div", "li", "tr", "dd", "dt", "caption", "figcaption", "body", "html", "summary", "legend",
    "thead", "tbody", "tfoot", "option", "menu", "dir", "frameset", "noframes", "br", "textarea",
    "select", "optgroup", "title", "head",
})
_CELL = frozenset({"td", "th"})
_REPLACED = frozenset({"br", "img", "input", "textarea", "iframe", "frame", "embed", "object", "area", "image"})
_HINTED = frozenset({"font", "body", "table", "td", "th", "tr"})
# HTML's phrasing elements: between them the all-text reading does not break the line.
_INLINE = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark",
    "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr", "big", "tt",
    "strike", "nobr", "label", "ins", "del", "ruby", "rt", "rb", "rp", "img", "input", "button",
    "select", "output", "meter", "progress", "html", "body", "ix:nonnumeric", "ix:nonfraction",
    "ix:continuation", "ix:exclude",
})
_BLOCKISH = frozenset({
    "block", "flow-root", "list-item", "table", "flex", "grid", "table-row", "table-caption",
    "table-row-group", "table-header-group", "table-footer-group", "block flow", "block flex",
    "block grid", "block table", "block flow-root", "block list-item", "-webkit-box", "-ms-flexbox",
    "-ms-grid", "run-in",
})
_FLEX = frozenset({"flex", "inline-flex", "block flex", "inline flex", "-webkit-box", "-webkit-inline-box",
                   "-ms-flexbox", "-ms-inline-flexbox"})
_GRID = frozenset({"grid", "inline-grid", "block grid", "inline grid", "-ms-grid"})
# What a browser draws of SVG and MathML: text elements, and HTML inside foreignObject.
_SVG_TEXT = frozenset({"text", "tspan", "textpath"})
_SVG_HIDDEN = frozenset({"title", "desc", "metadata", "style", "script", "defs", "symbol", "clippath",
                         "mask", "pattern", "lineargradient", "radialgradient", "filter", "marker"})
_MATH_HIDDEN = frozenset({"annotation", "annotation-xml"})
_INPUT_TEXT = frozenset({"text", "search", "email", "url", "tel", "number", "date", "month", "week",
                         "time", "datetime-local", ""})
_INPUT_BUTTON = {"submit": "Submit", "reset": "Reset", "button": ""}
_ATTR_TEXT = ("alt", "title", "value", "placeholder", "aria-label", "label")
# Pseudo-classes of interaction that match nothing on a page at rest (as a reader first sees it).
_AT_REST = re.compile(r":(?:target|target-within|focus-within|focus-visible|visited|hover|focus|active)\b(?!-)", re.I)
_ATTR_VALUE = re.compile(r"\[\s*([\w-]+)[^\]]*\]")
_COMBINATOR = re.compile(r"\s*[\s>+~]\s*")
_TAG_NAME = re.compile(r"<([a-zA-Z][\w:-]*)")
_LEADING_TAG = re.compile(r"[a-zA-Z][\w-]*")
_NAMES = re.compile(r"[.#\[]([\w-]+)")
_ATTR_SELECTOR = ", ".join(f"[{a}]" for a in _ATTR_TEXT)
_BLANK = re.compile(r"[ \t\r\f]*\n\s*")
_RLM = "\u200f"
_OPEN = {("embed", "ltr"): ("\u202a", "\u202c"), ("embed", "rtl"): ("\u202b", "\u202c"),
         ("bidi-override", "ltr"): ("\u202d", "\u202c"), ("bidi-override", "rtl"): ("\u202e", "\u202c"),
         ("isolate", "ltr"): ("\u2066", "\u2069"), ("isolate", "rtl"): ("\u2067", "\u2069"),
         ("isolate-override", "ltr"): ("\u2066\u202d", "\u202c\u2069"),
         ("isolate-override", "rtl"): ("\u2067\u202e", "\u202c\u2069"),
         ("plaintext", "ltr"): ("\u2068", "\u2069"), ("plaintext", "rtl"): ("\u2068", "\u2069")}
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




class _Builder:
    """Text from start/end/data events: whitespace runs collapse to one space (not in ``pre``
    text); blocks end lines, paragraph-like blocks leave a blank line, table cells are separated
    by tabs. Inline bidi contexts become Unicode controls, reopened on every line, and a line in
    a right-to-left block starts with RLM so that its base direction is known."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.newlines = 0
        self.space = False
        self.tab = False
        self.openers: list[tuple[str, str]] = []
        self.emitted = 0
        self.dirs: list[str] = ["ltr"]
        self.fresh = True

    def block(self, level: int) -> None:
        if level:
            self.newlines = max(self.newlines, level)
            self.space = self.tab = False

    def cell(self) -> None:
        self.tab = True

    def br(self) -> None:
        if self.out:
            self.newlines = min(self.newlines + 1, 2)
        self.space = self.tab = False

    def data(self, text: str, pre: bool = False) -> None:
        if not text:
            return
        if pre:
            self._flush()
            self._open()
            self.out.append(text)
            if "\n" in text:
                self.fresh = True
                self.emitted = 0
            return
        if text[0] in " \t\n\r\f":
            self.space = True
        words = _WS.sub(" ", text).strip(" ") if "\n" in text or "  " in text or "\t" in text else text.strip(" \r\f")
        if words:
            self._flush()
            self._open()
            self.out.append(words)
            self.space = text[-1] in " \t\n\r\f"

    def paragraph(self, text: str) -> None:
        """A whole document shown in place (a frame's or object's)."""
        text = text.strip("\n")
        if text:
            self.block(2)
            self._flush()
            self.out.append(text)
            self.block(2)

    def _open(self) -> None:
        if self.fresh:
            self.fresh = False
            self.emitted = 0
            if self.dirs[-1] == "rtl":
                self.out.append(_RLM)
        if self.emitted < len(self.openers):
            self.out.extend(o for o, _ in self.openers[self.emitted :])
            self.emitted = len(self.openers)

    def push_bidi(self, opener: tuple[str, str]) -> None:
        self.openers.append(opener)

    def pop_bidi(self) -> None:
        if self.emitted == len(self.openers) and not self.fresh:
            self.out.append(self.openers[-1][1])
            self.emitted -= 1
        self.openers.pop()
        self.emitted = min(self.emitted, len(self.openers))

    def _flush(self) -> None:
        if self.out:
            if self.newlines:
                self.out.append("\n" * self.newlines)
                self.fresh = True
                self.emitted = 0
            elif self.tab:
                self.out.append("\t")
            elif self.space:
                self.out.append(" ")
        self.newlines = 0
        self.space = self.tab = False

    def text(self, out: list[str] | None = None) -> str:
        joined = "".join(self.out if out is None else out)
        return "\n".join(line.rstrip(" \t") for line in joined.split("\n")).strip("\n")


@dataclass
class _Frame:
    node: Any
    tag: str
    style: css.Style
    children: list[Any] | None  # when reordered or chosen; else the walk follows ``nxt``
    ns: str  # html, svg (not drawn as text), svgtext, math
    nxt: Any = None
    level: int = 0
    cell: bool = False
    pre: bool = False
    bidi: bool = False
    rtl_block: bool = False
    after: bool = False  # an ::after applies: generated when the element ends (after its quotes)
    i: int = 0
    prestyles: dict[Any, css.Style] | None = None
    right_floats: int = 0
    late_floats: int = 0
    inline_text: bool = False
    closed: bool = False  # a closed <details>: only its summary is shown
    parted: int = 0  # flex items: 1 apart on a row (a gap between them), 2 stacked (a column)
    moved: list[tuple[float | None, float | None, int]] = field(default_factory=list)
    table: _Table | None = None  # a table (display table) begun by this element
    table_cell: _Cell | None = None  # a cell of the table being read
    pre_start: int | None = None  # a block of preformatted text: where its text begins in the builder


@dataclass
class _Cell:
    """Where a table cell's text stands in the builder's output, and the slots it spans."""

    start: int
    row: int
    colspan: int = 1
    rowspan: int = 1
    end: int = -1


@dataclass
class _Table:
    """A table as read, row by row: its range in the builder's output and its cells."""

    start: int
    rows: int = 0
    cells: list[_Cell] = field(default_factory=list)
    end: int = -1


@dataclass
class _Result:
    visible: str
    logical: str
    all_text: str
    shows_all: bool  # the visible reading hid or added text: the all-text reading differs
    unreadable: list[str]
    tree: Any = None  # the parsed page (selectolax), for checks made after reading
    script_built: str | None = None  # why the page's text is what its scripts write (.scripts)
    unmodelled: list[str] = field(default_factory=list)  # constructs outside the reader's model
    columns: str = ""  # the visible text with tables of prose columns read down each column


class _Reader:
    """One HTML document (or a document inside it) read as a browser shows it."""

    def __init__(self, text: str, depth: int, warnings: list[str]) -> None:
        self.tree = LexborHTMLParser(text)
        self.source = text
        self.lowered = text.lower()
        self.tags: set[str] | None = None
        self.seen: dict[str, bool] = {}
        self.depth = depth
        self.warnings = warnings
        self.unreadable: list[str] = []
        self.hidden_text = False
        self.generated = False
        self.memo: dict[tuple[Any, ...], css.Style] = {}
        self.fast: dict[tuple[Any, ...], css.Style] = {}
        self.attr_decls: dict[str, list[css.Decl]] = {}
        self.matched: dict[Any, list[tuple[css.Key, int, css.Decl]]] = {}
        self.before: dict[Any, list[tuple[css.Key, int, css.Decl]]] = {}
        self.after: dict[Any, list[tuple[css.Key, int, css.Decl]]] = {}
        self.marker: dict[Any, list[tuple[css.Key, int, css.Decl]]] = {}
        self.quote_depth = 0  # open-quote and close-quote nest (CSS Generated Content, quotes)
        self.in_pre = False  # inside a block of preformatted text, whose layout is read when it ends
        self.styled: dict[Any, str] = {}
        self.nested_all: list[str] = []
        self.outside = model.Outside()
        self.tables: list[_Table] = []  # tables being read, the innermost last
        self.row_ordered: set[Any] = set()  # tables whose row groups the walk put in drawing order
        self.clipped_fields = 0  # text fields whose value holds words past the field's box
        #: a page without a doctype is drawn in quirks mode, where a broken image keeps the box of
        #: its width and height and clips its alt to it (with one, the alt is drawn as text)
        self.quirks = _DOCTYPE.match(text[:4096]) is None
        self.read_tables: list[_Table] = []  # tables read, outside any other table
        self.columns = ""  # the visible text with ambiguous tables read down their columns
        self.svg_backdrop = False  # the drawing being read has drawn a shape or picture (text may lie on it)

    # -- style -------------------------------------------------------------------------------

    def _sheets(self) -> None:
        sheets = css.Sheets()
        for node in self.tree.css("style, link"):
            if _inside(node, ("noscript", "template")):
                continue
            attrs = node.attributes
            media = attrs.get("media")
            if media and css.media_applies(list(_tokens(media))) is False:
                continue
            if node.tag == "style":
                if (attrs.get("type") or "text/css").strip().lower() in ("text/css", ""):
                    css.add_sheet(sheets, node.text(deep=True), origin=1)
            elif "stylesheet" in (attrs.get("rel") or "").lower().split():
                href = (attrs.get("href") or "").strip()
                got = css.data_url_text(href)
                if got is not None:
                    css.add_sheet(sheets, got[1], origin=1)
                elif href:
                    sheets.external.append(href[:200])
        self.sheets = sheets
        cache: dict[str, list[Any]] = {}
        budget = _MAX_MATCHES
        for rule in css.ua_sheets().rules + sheets.rules:
            for sel, spec, pseudo in rule.selectors:
                if sel not in cache and not self._may_match(sel):
                    cache[sel] = []
                if sel not in cache:
                    try:
                        cache[sel] = self.tree.css(_AT_REST.sub(":not(*)", sel))
                    except SelectolaxError:
                        cache[sel] = []
                        if rule.origin:
                            self.unreadable.append(f"css-selector: the selector {sel[:80]!r} cannot be evaluated here")
                nodes = cache[sel]
                if not nodes:
                    continue
                if rule.outside:
                    self.outside.extend(rule.outside, "css: ")
                budget -= len(nodes) * len(rule.decls)
                if budget < 0:
                    self.unreadable.append(f"css-value: style sheets match more than {_MAX_MATCHES:,} "
                                           "declarations to elements: not evaluated further")
                    return self._attributes(sheets)
                entries = [(css.key_of(d.important, rule.origin, rule.layer, spec, rule.order), rule.origin, d)
                           for d in rule.decls]
                target = {None: self.matched, "before": self.before, "after": self.after}.get(pseudo, self.marker)
                for n in nodes:
                    target.setdefault(n, []).extend(entries)
        self._attributes(sheets)

    def _attributes(self, sheets: css.Sheets) -> None:
        """``style`` attributes, and what the style sheets could not say."""
        if "style" in self.lowered:
            for n in self.tree.css("[style]"):
                self.styled[n] = n.attrs["style"] or ""
        for what in sheets.unsure:
            self.unreadable.append(f"css-media: {what} cannot be evaluated here" if what.startswith("@media")
                                   else f"css-selector: {what} cannot be evaluated here")
        self.outside.extend(sheets.outside, "css: ")
        if sheets.fonts:
            self.unreadable.append(f"css-font: a web font ({sheets.fonts[0]}) may draw other letters than "
                                   "the text holds")

    def _may_match(self, sel: str) -> bool:
        """False when the selector's last compound names a tag, class, id or attribute that the
        document's source does not contain (a full scan of the tree saved)."""
        if "(" in sel or "\\" in sel:
            return True
        last = _COMBINATOR.split(_ATTR_VALUE.sub(r"[\1]", sel.strip()))[-1]
        if self.tags is None:
            self.tags = {t.lower() for t in _TAG_NAME.findall(self.source)}
        m = _LEADING_TAG.match(last)
        if m and m.group(0).lower() not in self.tags:
            return False
        return all(self._in_source(t) for t in _NAMES.findall(last))

    def _in_source(self, token: str) -> bool:
        got = self.seen.get(token)
        if got is None:
            got = self.seen[token] = token.lower() in self.lowered
        return got

    def _style(self, node: Any, tag: str, parent: css.Style, ns: str) -> css.Style:
        matched = self.matched.get(node)
        attr = self.styled.get(node)
        if matched is None and ns == "html" and tag not in _HINTED:
            key = (id(parent), attr, tag)
            got = self.fast.get(key)
            if got is None:
                got = self.fast[key] = self._cascade(node, tag, parent, ns, (), attr)
            return got
        return self._cascade(node, tag, parent, ns, matched or (), attr)

    def _cascade(self, node: Any, tag: str, parent: css.Style, ns: str, matched: Any, attr: str | None) -> css.Style:
        entries = list(matched)
        if attr:
            decls = self.attr_decls.get(attr)
            if decls is None:
                outside: list[str] = []
                decls = self.attr_decls[attr] = css.declarations(attr, outside)
                self.outside.extend(outside, "css: ")
            entries.extend((css.key_of(d.important, 1, css.UNLAYERED, css.STYLE_ATTR_SPECIFICITY, 0), 1, d)
                           for d in decls)
        hints = _hints(node, tag, ns)
        if hints:
            entries.extend(hints)
        ua = _ua_display(tag)
        if ua is not None:
            entries.append(ua)
        sig = (id(parent), *((k, id(d)) for k, _, d in entries))
        got = self.memo.get(sig)
        if got is None:
            got = self.memo[sig] = css.compute(parent, entries)
        return got

    def _pseudo(self, node: Any, style: css.Style, which: dict[Any, Any]) -> tuple[str, css.Style] | None:
        entries = which.get(node)
        if not entries:
            return None
        s = css.compute(style, list(entries), pseudo=True)
        content = s.content
        if s.hidden or not content:
            return None
        text = self._content_text(content, node, s)
        return (text, s) if text.strip() else None

    def _marker(self, node: Any, style: css.Style) -> tuple[str, css.Style] | None:
        """What a list item's marker shows in words: its ``::marker`` content, else a
        ``list-style-type`` string (counters and bullets give no word, as ``content`` counters do not)."""
        s = css.compute(style, list(self.marker.get(node, ())), pseudo=True)
        if s.hidden:
            return None
        kw = css._ident(s.content) if s.content else None
        if s.content and kw not in ("normal",):
            text = "" if kw == "none" else self._content_text(s.content, node, s)
        else:
            text = style.marker or ""
        return (text, s) if text.strip() else None

    def _content_text(self, content: tuple[Any, ...], node: Any, s: css.Style) -> str:
        """The text of a ``content`` value: strings, ``attr()``, quotes (the ``quotes`` property's
        pair at their depth); counters and images give none."""
        out = []
        for t in content:
            if t.type == "string":
                out.append(t.value)
            elif t.type == "function" and t.lower_name == "attr":
                name = next((a.value for a in t.arguments if a.type == "ident"), None)
                out.append((node.attributes.get(name) or "") if name else "")
            elif t.type == "ident" and t.lower_value in ("open-quote", "close-quote", "no-open-quote", "no-close-quote"):
                opening = t.lower_value in ("open-quote", "no-open-quote")
                if not opening:
                    self.quote_depth = max(0, self.quote_depth - 1)
                depth = self.quote_depth
                if opening:
                    self.quote_depth += 1
                if t.lower_value.startswith("no-"):
                    continue
                pairs = s.quotes if s.quotes is not None else ("\u201c", "\u201d", "\u2018", "\u2019")
                if len(pairs) >= 2:
                    at = 2 * min(depth, len(pairs) // 2 - 1) + (0 if opening else 1)
                    out.append(pairs[at])
            elif t.type == "literal" and t.value == "/":
                break  # alternative text of the content follows: not shown
        return "".join(out)

    # -- the walk --------------------------------------------------------------------------------

    def visible(self) -> tuple[str, str]:
        """(visible text in display order, the same before bidi reordering)."""
        self._sheets()
        b = _Builder()
        root = self.tree.root
        if root is None:
            return "", ""
        rs = self._style(root, "html", css.ROOT_STYLE, "html")
        frames = [self._frame(root, "html", rs, "html", b)]
        while frames:
            f = frames[-1]
            if f.children is None:
                child = f.nxt
                if child is None:
                    self._end(f, b)
                    frames.pop()
                    continue
                f.nxt = child.next
            else:
                if f.i >= len(f.children):
                    self._end(f, b)
                    frames.pop()
                    continue
                child = f.children[f.i]
                f.i += 1
                if f.parted and f.i > 1:
                    b.block(1) if f.parted == 2 else b.cell()
            tag = child.tag or ""
            if tag == "-text":
                self._text(child, f, b)
                continue
            if tag[:1] == "-":  # a comment or other node that is not an element
                continue
            if f.ns != "html":  # lexbor gives HTML names in lower case, SVG's in camel case
                tag = tag.lower()
            ns = _child_ns(f.ns, tag) if f.ns != "html" or tag in ("svg", "math") else "html"
            if ns == "hidden" or (tag in ("audio", "video") and ns == "html"):  # a player draws none of its content
                self._hidden(child)
                continue
            style = (f.prestyles.get(child) if f.prestyles else None) or self._style(child, tag, f.style, ns)
            if style.hidden:
                self._hidden(child)
                continue
            self._check_layout(f, child, style)
            if ns == "svg":
                self._svg_drawn(child, tag, f, style)
            if tag in _REPLACED and self._replaced(child, tag, style, f, b, ns):
                continue
            frames.append(self._frame(child, tag, style, ns, b))
        self._finish_layout_checks()
        self.columns = self._columns_reading(b)
        logical = b.text()
        if logical.isascii():
            return logical, logical
        return display_order(logical), BIDI_CONTROLS.sub("", logical)

    def _frame(self, node: Any, tag: str, style: css.Style, ns: str, b: _Builder) -> _Frame:
        f = _Frame(node, tag, style, None, ns, nxt=node.first_child)
        if tag == "details" and "open" not in node.attributes:
            f.closed = True
        if tag == "select" and not ("multiple" in node.attributes or _int(node.attributes.get("size")) > 1):
            options = [c for c in node.css("option")]
            chosen = next((o for o in options if "selected" in o.attributes), options[0] if options else None)
            hidden = [o for o in options if o is not chosen and (o.text() or "").strip()]
            if hidden:
                self.hidden_text = True
            f.children = [chosen] if chosen is not None else []
        display = style.display
        if style.display_set:
            f.level = 0 if display.startswith("inline") or display in ("contents", "ruby", "ruby-text") else (
                2 if tag in _PARA else 1) if display in _BLOCKISH else 0
            f.cell = display == "table-cell"
        else:
            f.level = 2 if tag in _PARA else 1 if tag in _BLOCK else 0
            f.cell = tag in _CELL
        if ns == "svgtext" and tag == "text":
            f.level = 1
        f.pre = style.white_space in ("pre", "pre-wrap", "break-spaces")
        if f.pre and f.level and not self.in_pre:
            f.pre_start = len(b.out)
            self.in_pre = True
        if f.cell:
            b.cell()
        else:
            b.block(f.level)
        self._table_part(f, node, tag, display, ns, b)
        if f.level and style.direction != b.dirs[-1]:
            f.rtl_block = True
            b.dirs.append(style.direction)
        if style.unicode_bidi != "normal":
            opener = _OPEN.get((style.unicode_bidi, style.direction))
            if opener and not f.level:
                f.bidi = True
                b.push_bidi(opener)
            elif opener and style.unicode_bidi in ("bidi-override", "isolate-override"):
                f.bidi = True
                b.push_bidi(_OPEN[("bidi-override", style.direction)])
        if display in _FLEX or display in _GRID or (display == "table-row" and style.direction == "rtl"):
            self._reorder(f)
        elif display in ("table", "inline-table"):
            self._row_groups(f)
        if display.endswith("list-item") and (style.marker or node in self.marker):
            marker = self._marker(node, style)
            if marker:
                self._generated(marker, b, f)
        if self.before:
            before = self._pseudo(node, style, self.before)
            if before:
                self._generated(before, b, f)
        f.after = node in self.after
        return f

    def _end(self, f: _Frame, b: _Builder) -> None:
        if f.table_cell is not None:
            f.table_cell.end = len(b.out)
        if f.table is not None:
            f.table.end = len(b.out)
            self.tables.pop()
            if not self.tables:
                self.read_tables.append(f.table)
        if f.after and (after := self._pseudo(f.node, f.style, self.after)):
            self._generated(after, b, f)
        if f.bidi:
            b.pop_bidi()
        if f.rtl_block:
            b.dirs.pop()
        if f.pre_start is not None:
            self.in_pre = False
            self._pre_layout(f.pre_start, b)
        if f.level:
            b.block(f.level)
        if len(f.moved) >= 2:
            self._moved(f)

    def _pre_layout(self, start: int, b: _Builder) -> None:
        """A block of preformatted text read as a text viewer's page is: a pleading-paper margin
        left out, two columns of prose read down each column (:mod:`auditor.extract.layout`).
        A browser draws such a block line for line, as a text editor does, and a reader skips
        the margin and reads down the columns as on paper (a Markdown code block, a reST literal
        block, a ``<pre>``)."""
        text = "".join(b.out[start:])
        if "\n" not in text:
            return
        changed = False
        for read_in_order in (pleading_margin, two_columns):
            got = read_in_order(text)
            if got is None:
                continue
            if got.unreadable:
                self.unreadable.append(f"preformatted block: {got.unreadable}")
            if got.changed:
                text, changed = got.text, True
        if changed:
            b.out[start:] = [text]

    def _generated(self, got: tuple[str, css.Style], b: _Builder, f: _Frame) -> None:
        text, s = got
        if s.text_hidden(len(text)):
            return
        self.generated = True
        level = 1 if s.display in _BLOCKISH else 0
        b.block(level)
        b.data(text, pre=True) if "\n" in text and f.pre else b.data(text)
        b.block(level)

    def _text(self, node: Any, f: _Frame, b: _Builder) -> None:
        text = node.text_content or ""
        if f.ns != "html" and (f.ns == "svg" or (f.ns == "math" and f.tag in _MATH_HIDDEN)):
            return
        words = text.strip()
        if words:
            if f.closed:
                self.hidden_text = True
                return
            style = f.style
            if style.unsure:
                self.unreadable.append(f"css-value: {style.unsure}: cannot be evaluated here")
                style.unsure = None
            if style.text_hidden(len(words)) or (f.ns == "svgtext" and style.svg_unpainted(self.svg_backdrop)):
                self.hidden_text = True
                return
            if style.sunk:  # beneath the page's in-flow boxes: a block's background drawn over it hides it
                self.outside.add("css", "words painted beneath the page's boxes (a negative z-index)")
            if style.symbol_font is not None and model.spells_a_word(words):
                # its glyphs are pictures or Greek letters: a reader sees no word where the text holds one
                self.outside.add("css", f"words set in the symbol font {style.symbol_font}")
            f.inline_text = True
        b.data(text, f.pre)

    def _hidden(self, node: Any) -> None:
        """Note hidden body text (the head's title, scripts and styles do not count)."""
        if self.hidden_text or node.tag in ("head", "script", "style", "link", "meta"):
            return
        if (node.text(deep=True) or "").strip() or node.tag == "template":
            self.hidden_text = True

    def _replaced(self, node: Any, tag: str, style: css.Style, f: _Frame, b: _Builder, ns: str) -> bool:
        """Elements whose content is not their text nodes: images, form fields, frames, objects.
        True when the element was read here (its children are not walked)."""
        if tag == "br":
            b.br()
            return True
        if ns != "html":
            if tag == "image":  # an SVG image: an SVG document in a data: URL shows its text
                attrs = node.attributes
                got = css.data_url_text((attrs.get("href") or attrs.get("xlink:href") or "").strip())
                if got and got[0] == "image/svg+xml":
                    self._nested(got[0], got[1], b, "SVG image data: URL")
                return True
            return False
        attrs = None
        if tag in ("img", "input", "iframe", "frame", "embed", "object", "textarea", "area"):
            attrs = node.attributes
        if tag == "img" or (tag == "input" and (attrs.get("type") or "").lower() == "image"):
            alt = (attrs.get("alt") or "").strip()
            src = (attrs.get("src") or "").strip()
            if src[:5].lower() == "data:":
                got = css.data_url_text(src)  # the image is in the page: it is shown, not its alt
                if got and got[0] == "image/svg+xml":
                    self._nested(got[0], got[1], b, "image data: URL")
            elif alt and self.quirks and "width" in attrs and "height" in attrs and style.width is not None \
                    and style.height is not None and not css.alt_fits(alt, style.width, style.height, style.font_size):
                self.hidden_text = True  # its box shows a letter or two of the alt (an icon)
            elif alt:
                self._attr_text(alt, style, b)  # an image the page cannot load shows its alt
            return True
        if tag == "input":
            kind = (attrs.get("type") or "").strip().lower()
            value = attrs.get("value")
            if kind in _INPUT_BUTTON:
                value = value if value is not None else _INPUT_BUTTON[kind]
            elif kind in _INPUT_TEXT:
                value = value or attrs.get("placeholder")
            else:
                value = None
            if value and value.strip():
                if kind in _INPUT_TEXT and _clipped_field(value, attrs, style, 1):
                    self._clipped("<input>")
                self._attr_text(value, style, b)
            return True
        if tag == "textarea":
            if not (node.text(deep=True) or "").strip() and (attrs.get("placeholder") or "").strip():
                self._attr_text(attrs.get("placeholder") or "", style, b)
                return True
            if _clipped_field(node.text(deep=True) or "", attrs, style, 2):
                self._clipped("<textarea>")
            return False
        if tag in ("iframe", "frame"):
            doc = attrs.get("srcdoc") if tag == "iframe" else None
            if doc is not None:
                self._nested("text/html", doc, b, "iframe srcdoc")
            else:
                got = css.data_url_text((attrs.get("src") or "").strip())
                if got:
                    self._nested(got[0], got[1], b, f"{tag} data: URL")
            if (node.text(deep=True) or "").strip():
                self.hidden_text = True  # iframe content is raw text a browser never shows
            return True
        if tag in ("embed", "object"):
            got = css.data_url_text((attrs.get("src" if tag == "embed" else "data") or "").strip())
            if got and _readable_mime(got[0]):
                self._nested(got[0], got[1], b, f"{tag} data: URL")
                if tag == "object" and (node.text(deep=True) or "").strip():
                    self.hidden_text = True  # the fallback content is not shown
                return True
            return tag == "embed"
        return False

    def _attr_text(self, text: str, style: css.Style, b: _Builder) -> None:
        if style.text_hidden(len(text)) is None and style.visibility == "visible":
            self.generated = True
            b.data(" " + text + " ")

    def _nested(self, mime: str, text: str, b: _Builder, what: str) -> None:
        if not _readable_mime(mime):
            return
        self.generated = True
        if self.depth + 1 >= _MAX_DEPTH:
            self.unreadable.append(f"nested-depth: {what} nested more than {_MAX_DEPTH - 1} deep: not read")
            return
        if mime == "text/plain":
            b.paragraph(text)
            self.nested_all.append(text)
            return
        inner = _Reader(text, self.depth + 1, self.warnings).read()
        self.unreadable += inner.unreadable
        self.outside.extend(inner.unmodelled)
        b.paragraph(inner.visible)
        self.nested_all.append(inner.all_text)

    # -- order -----------------------------------------------------------------------------------

    def _reorder(self, f: _Frame) -> None:
        """Flex and grid items in their order-modified document order (reversed for
        ``*-reverse`` and right-to-left rows); where layout decides the order, fail closed."""
        s = f.style
        pre: dict[Any, css.Style] = {}
        items: list[tuple[int, int, Any]] = []
        texty = 0
        f.children = [c for c in f.node.iter(include_text=True) if c.is_element_node or c.is_text_node]
        for i, c in enumerate(f.children):
            if c.is_element_node:
                tag = (c.tag or "").lower()
                cs = self._style(c, tag, s, _child_ns(f.ns, tag))
                pre[c] = cs
                items.append((cs.order, i, c))
                if not cs.hidden and (c.text(deep=True) or "").strip():
                    texty += 1
            else:
                items.append((0, i, c))
                if (c.text_content or "").strip():
                    texty += 1
        f.prestyles = pre
        if s.display in _GRID:
            placed = any(cs.grid_placed for cs in pre.values() if not cs.hidden)
            if texty > 1 and (placed or "column" in s.grid_flow or "dense" in s.grid_flow):
                self.unreadable.append("css-order: grid items placed by row and column: the order on the "
                                       "page depends on the layout")
                return
        items.sort(key=lambda t: (t[0], t[1]))
        reverse = False
        if s.display in _FLEX:
            reverse = s.flex_direction.endswith("-reverse")
            if s.flex_direction.startswith("row") and s.direction == "rtl":
                reverse = not reverse
            if texty > 1 and (s.flex_wrap == "wrap-reverse" or (reverse and s.flex_wrap == "wrap"
                                                                  and s.flex_direction.startswith("row"))):
                self.unreadable.append(f"css-order: flex items wrapped ({s.flex_wrap}, {s.flex_direction}): "
                                       "the order on the page depends on the line width")
        elif s.display == "table-row":
            reverse = True
        order = [c for _, _, c in items]
        if reverse:
            order.reverse()
        f.children = order
        if s.display in _FLEX:  # items are boxes of their own: a gap parts a row's, a column stacks them
            f.parted = 2 if s.flex_direction.startswith("column") else 1 if s.gap > 0 else 0

    def _clipped(self, tag: str) -> None:
        """Count a text field whose value holds words past its box. A search form's placeholder cut
        short is ordinary (court pages have a few); many such fields can each hide a junk word
        between the words of a text: past :data:`_CLIPPED_FIELDS`, they are outside the model."""
        self.clipped_fields += 1
        if self.clipped_fields > _CLIPPED_FIELDS:
            self.outside.add("html", f"{_CLIPPED_FIELDS + 1} or more form fields whose value is longer than their box "
                                     f"shows (last {tag})")

    def _row_groups(self, f: _Frame) -> None:
        """A table's captions are drawn above it (``caption-side: top``; another side is outside
        the CSS model), its first header group above its other rows and its first footer group
        below them, wherever the source has them (CSS 2.2, 17.2 and 17.4). HTML 4 put ``<tfoot>``
        before ``<tbody>``, old court and agency pages still do, and old EDGAR filings put a
        ``<caption>`` after the rows: the walk reads them as drawn."""
        self.row_ordered.add(f.node)
        kids = [c for c in f.node.iter(include_text=True) if c.is_element_node or c.is_text_node]
        pre: dict[Any, css.Style] = {}
        rows: list[int] = []
        head = foot = None
        captions: set[int] = set()
        for i, c in enumerate(kids):
            if not c.is_element_node:
                continue
            tag = (c.tag or "").lower()
            cs = pre[c] = self._style(c, tag, f.style, _child_ns(f.ns, tag))
            display = cs.display if cs.display_set else _ROW_TAGS.get(tag, "table-caption" if tag == "caption"
                                                                      else cs.display)
            if cs.hidden or (display not in _ROW_LEVEL and display != "table-caption"):
                continue
            rows.append(i)
            if display == "table-caption":
                captions.add(i)
            elif display == "table-header-group" and head is None:
                head = i
            elif display == "table-footer-group" and foot is None:
                foot = i
        first = sorted(captions) + ([head] if head is not None else [])
        if not rows or (rows[:len(first)] == first and (foot is None or foot == rows[-1])):
            return
        ranked = sorted(rows, key=lambda i: (0 if i in captions else 1 if i == head else 3 if i == foot else 2, i))
        order = list(kids)
        for slot, i in zip(rows, ranked, strict=True):
            order[slot] = kids[i]
        f.children, f.prestyles = order, pre

    def _svg_drawn(self, node: Any, tag: str, f: _Frame, style: css.Style) -> None:
        """Note, for the SVG text after it, whether the drawing has drawn something beneath: a
        shape filled in another colour than the page's, or a picture. Until it has, the page
        lies beneath the text (:meth:`css.Style.svg_unpainted`)."""
        if tag == "svg" and f.ns == "html":
            self.svg_backdrop = False  # a drawing of its own
        elif tag == "image" or tag == "foreignobject":
            self.svg_backdrop = True
        elif tag in model_svg.SHAPES and style.svg_paint[0] and style.svg_paint[1]:
            fg = style.color if style.svg_fill == "currentcolor" else style.svg_fill
            if not isinstance(fg, tuple) or style.background is None or (
                    fg[3] > 0 and css.contrast(fg[:3], style.background) >= css.MIN_CONTRAST):
                self.svg_backdrop = True

    # -- tables ----------------------------------------------------------------------------------

    def _table_part(self, f: _Frame, node: Any, tag: str, display: str, ns: str, b: _Builder) -> None:
        """Note where a table, its rows and its cells stand in the output (see :meth:`_columns_reading`)."""
        if ns != "html":
            return
        if display in ("table", "inline-table", "block table", "inline table"):
            f.table = _Table(len(b.out))
            self.tables.append(f.table)
        elif not self.tables:
            return
        elif display == "table-row":
            self.tables[-1].rows += 1
        elif f.cell:
            t = self.tables[-1]
            attrs = node.attributes if tag in _CELL else {}
            f.table_cell = _Cell(len(b.out), max(t.rows - 1, 0), max(1, min(_int(attrs.get("colspan")) or 1, 1000)),
                                 max(1, min(_int(attrs.get("rowspan")) or 1, 65534)))
            t.cells.append(f.table_cell)

    def _columns_reading(self, b: _Builder) -> str:
        """The visible text with each table whose order is ambiguous read down its columns, one
        column after the other; "" when no table is. A table is ambiguous when two or more of its
        columns hold prose (:func:`_prose_columns`): a reader may read its rows across, as the
        visible reading does, or each column down, as a page set in columns is read."""
        done = [(t, grid) for t in self.read_tables if t.end >= 0 and t.rows >= 2
                and len(_prose_columns(b.out, t, grid := _grid(t))) >= 2]
        if not done:
            return ""
        out: list[str] = []
        at = 0
        for t, grid in done:
            out.extend(b.out[at:t.start])
            by_column = sorted(((grid[id(c)][1], grid[id(c)][0], i) for i, c in enumerate(t.cells)))
            out.append("\n\n")
            for _, _, i in by_column:
                words = _cell_text(b.out, t.cells[i])
                if words:
                    out.append(words + "\n")
            out.append("\n")
            at = t.end
        out.extend(b.out[at:])
        text = b.text(out)
        return text if text.isascii() else display_order(text)

    def _check_layout(self, f: _Frame, child: Any, s: css.Style) -> None:
        """Floats, positioned and transformed boxes that can put text in another order than the
        source's. A box's place is its offsets plus its transform's translation."""
        if not s.moves:
            if s.display.startswith("inline") or s.display in ("contents", "ruby"):
                f.inline_text = True
            return
        floated = s.floating in ("right", "inline-end", "left", "inline-start")
        moved = s.position in ("absolute", "fixed") and (s.left is not None or s.top is not None)
        shifted = abs(s.dx) > 20 or abs(s.dy) > 40 or s.pulled
        if not (floated or moved or shifted):
            if s.display.startswith("inline") or s.display in ("contents", "ruby"):
                f.inline_text = True
            return
        text = (child.text(deep=True) or "").strip()
        if not text or s.text_hidden(len(text)):
            return
        if s.floating in ("right", "inline-end"):
            f.right_floats += 1
        elif floated and f.inline_text:
            f.late_floats += 1
        if moved or shifted:  # where it is drawn: its offsets and its transform's translation (s.dx, s.dy)
            f.moved.append((s.dy if moved and s.top is not None else None,
                            s.dx if moved and s.left is not None else None, len(f.moved)))
        if f.right_floats >= 2 or f.late_floats >= 2:
            self._order_unreadable("floats put text in another order on the page than in the source")

    def _moved(self, f: _Frame) -> None:
        if all(t is not None and x is not None for t, x, _ in f.moved):
            ranked = sorted(f.moved, key=lambda m: (m[0], m[1]))
            if [m[2] for m in ranked] == list(range(len(ranked))):
                return
        self._order_unreadable("positioned or shifted boxes put text in another order on the page than in the source")

    def _order_unreadable(self, why: str) -> None:
        msg = f"css-order: {why}"
        if msg not in self.unreadable:
            self.unreadable.append(msg)

    def _finish_layout_checks(self) -> None:
        pass

    # -- every text node -------------------------------------------------------------------------

    def all_text(self) -> str:
        """Every text node and attribute text in source order, hidden or not (script and style
        source excepted), with template, noscript and iframe content read as HTML: each text
        node on a line of its own, as lexbor's text extraction gives it. Changes the tree, so
        it runs after the visible reading."""
        tree = self.tree
        if tree.root is None:
            return ""
        tree.strip_tags(["script", "style"])
        for node in tree.css("template, iframe, noscript, noembed, noframes, xmp"):
            tag = node.tag
            inner = (node.html or "") if tag == "template" else (node.text(deep=True) or "")
            if tag == "template":
                inner = re.sub(r"^<template[^>]*>|</template>$", "", inner)
            if "<" in inner and self.depth + 1 < _MAX_DEPTH:
                inner = _Reader(inner, self.depth + 1, self.warnings).all_text()
            if tag == "template" or "<" in inner:
                node.insert_after(f"\n{inner}\n")
                node.decompose()
        for node in tree.css(_ATTR_SELECTOR):
            attrs = node.attributes
            texts = [v for name in _ATTR_TEXT if (v := attrs.get(name)) and v.strip()
                     and not (name == "value" and (attrs.get("type") or "").lower() == "hidden")]
            if texts:
                node.insert_before("\n" + "\n".join(texts) + "\n")
        text = tree.root.text(deep=True, separator="\n")
        text = "\n".join([text, *self.nested_all])
        return _BLANK.sub("\n", text).strip()

    def read(self) -> _Result:
        visible, logical = self.visible()
        if self.sheets.external and _fragmented(self.tree):
            self.unreadable.append(
                f"css-external: a style sheet outside the document ({self.sheets.external[0]}) could hide "
                "the many small classed elements its text is split into")
        shows_all = self.hidden_text or self.generated
        built = None  # before all_text, which strips the scripts from the tree
        if self.depth == 0 and self.tree.css_first("script") is not None:
            built = script_built(self.tree, len(visible.split()))
        self._check_model()
        return _Result(visible, logical, self.all_text() if shows_all else "", shows_all, self.unreadable, self.tree,
                       built, self.outside.names(), self.columns)

    # -- the model -------------------------------------------------------------------------------

    def _check_model(self) -> None:
        """Name every element and attribute of the page outside the reader's model
        (:mod:`auditor.extract.model.html`, :mod:`.svg`), and row groups a browser draws in
        another order than the source's. Runs over the whole tree, hidden parts too: a hidden
        element can still change what is drawn (a declarative shadow root's template)."""
        root = self.tree.root
        if root is None:
            return
        scripted = self.tree.css_first("script") is not None
        foreign = set(self.tree.css("svg *, math *"))
        ids: dict[str, Any] = {}
        for svg in self.tree.css("svg"):
            if svg not in foreign:
                model_svg.check(svg, self.outside, ids)
        for node in root.traverse(include_text=False):
            if node in foreign:
                continue
            tag = (node.tag or "").lower()
            if not tag or tag[0] == "-":
                continue
            if not model_html.element_modelled(tag, scripted):
                self.outside.add("html", f"element <{tag}>")
            if tag in ("svg", "math"):
                continue  # a drawing: its attributes are the SVG model's (MathML draws its text in order)
            for name in node.attributes:
                low = name.lower()
                if not model_html.attribute_modelled(tag, low):
                    self.outside.add("html", f"attribute {low} of <{tag}>")
            if tag in ("thead", "tfoot"):
                self._row_group(node, tag)
            elif tag == "meta" and (node.attributes.get("name") or "").strip().lower() == "color-scheme":
                schemes = set((node.attributes.get("content") or "").lower().split())
                if not schemes & {"normal", "light"}:
                    # Chromium draws the page dark: its canvas and default colours are the dark scheme's
                    self.outside.add("html", f"a dark colour scheme (<meta name=color-scheme content="
                                             f"{' '.join(sorted(schemes)) or 'none'}>)")

    def _row_group(self, node: Any, tag: str) -> None:
        """A table's first ``thead`` is drawn first and its first ``tfoot`` last, wherever they
        stand: modelled only where the source has them there."""
        parent = node.parent
        if parent is None:
            return
        if parent in self.row_ordered:
            return  # read in drawing order (_row_groups)
        groups = [c for c in parent.iter() if (c.tag or "").lower() in ("thead", "tbody", "tfoot", "tr")]
        first = next(c for c in groups if (c.tag or "").lower() == tag)
        if first != node:
            return
        if (tag == "thead" and groups[0] != node) or (tag == "tfoot" and groups[-1] != node):
            self.outside.add("html", f"<{tag}> row group {'after' if tag == 'thead' else 'before'} other rows "
                                     f"(drawn {'first' if tag == 'thead' else 'last'})")




#: text fields whose value may run past their box before the page is outside the model
_CLIPPED_FIELDS = 8


def _clipped_field(value: str, attrs: Any, style: css.Style, default_rows: int) -> bool:
    """Whether a text field's value holds words beyond what its box shows: a field draws its value
    in a box of its own size (``size``, ``cols`` and ``rows``, or a CSS width and height) and
    scrolls the rest out of view, which the reader does not lay out."""
    def number(name: str, default: int) -> int:
        try:
            return max(1, int((attrs.get(name) or "").strip()))
        except ValueError:
            return default

    em = max(style.font_size, 1.0)
    cols = number("size" if default_rows == 1 else "cols", 20)
    if style.width is not None:
        cols = max(1, int(style.width / (0.45 * em)))
    rows = 1 if default_rows == 1 else number("rows", default_rows)
    if default_rows > 1 and style.height is not None:
        rows = max(1, int(style.height / (1.1 * em)))
    lines = value.replace("\r\n", "\n").split("\n") if default_rows > 1 else [value.replace("\n", " ")]
    shown, used = [], 0
    for line in lines:
        while used < rows:
            shown.append(line[:cols])
            line = line[cols:]
            used += 1
            if not line.strip():
                break
        if used >= rows:
            break
    return len(re.findall(r"\w+", " ".join(shown))) < len(re.findall(r"\w+", value))


_DOCTYPE = re.compile(r"\ufeff?\s*(?:<!--.*?-->\s*|<\?.*?\?>\s*)*<!doctype\s", re.I | re.S)

#: The displays of a table's rows and row groups, which :meth:`_Reader._row_groups` orders.
_ROW_LEVEL = frozenset({"table-row-group", "table-header-group", "table-footer-group", "table-row"})
#: Their displays in a browser's own style sheet (the walk draws these tags as blocks).
_ROW_TAGS = {"thead": "table-header-group", "tbody": "table-row-group", "tfoot": "table-footer-group",
             "tr": "table-row"}

#: A table column holds prose when its cells hold this many words in all, and on average this many.
_PROSE_WORDS = 12
_PROSE_PER_CELL = 3.0
_MAX_SLOTS = 100_000  # table slots the spans of one table may take


def _cell_text(out: list[str], cell: _Cell) -> str:
    return " ".join("".join(out[cell.start:cell.end]).split()) if cell.end >= 0 else ""


def _grid(t: _Table) -> dict[int, tuple[int, int]]:
    """Each cell's (row, column), by ``id``: the first slot it takes, as HTML's table model
    places cells, skipping slots that row and column spans above and to the left take."""
    taken: set[tuple[int, int]] = set()
    out: dict[int, tuple[int, int]] = {}
    row, col = -1, 0
    budget = _MAX_SLOTS  # spans beyond it are not laid out: a cell then takes its place in its row
    for cell in t.cells:
        if cell.row != row:
            row, col = cell.row, 0
        while (row, col) in taken:
            col += 1
        out[id(cell)] = (row, col)
        rows, cols = min(cell.rowspan, max(t.rows - row, 1)), cell.colspan
        budget -= rows * cols
        if budget >= 0 and rows * cols > 1:
            taken.update((row + dr, col + dc) for dr in range(rows) for dc in range(cols))
        col += cols
    return out


def _prose_columns(out: list[str], t: _Table, grid: dict[int, tuple[int, int]]) -> list[int]:
    """The columns of a table (laid out by :func:`_grid`) that hold prose, in two or more rows
    each (numbers and labels of a financial table do not)."""
    if t.rows < 2 or len(t.cells) < 4:
        return []
    words: dict[int, list[int]] = {}
    for cell in t.cells:
        n = len(_cell_text(out, cell).split())
        if n:
            words.setdefault(grid[id(cell)][1], []).append(n)
    return [c for c, ns in sorted(words.items())
            if len(ns) >= 2 and sum(ns) >= _PROSE_WORDS and sum(ns) / len(ns) >= _PROSE_PER_CELL]


def _tokens(text: str) -> list[Any]:
    import tinycss2

    return tinycss2.parse_component_value_list(text)


def _inside(node: Any, tags: tuple[str, ...], depth: int = 1000) -> bool:
    """Whether an ancestor (up to ``depth`` levels up) is one of ``tags``."""
    p = node.parent
    while p is not None and depth:
        if (p.tag or "").lower() in tags:
            return True
        p = p.parent
        depth -= 1
    return False


def _int(value: str | None) -> int:
    try:
        return int((value or "").strip())
    except ValueError:
        return 0


def _readable_mime(mime: str) -> bool:
    return mime in ("text/html", "application/xhtml+xml", "image/svg+xml", "text/plain", "text/xml",
                    "application/xml")


def _child_ns(ns: str, tag: str) -> str:
    """The drawing context of an element: html, svg (drawn, not as text), svgtext, math; or
    hidden for SVG and MathML parts that are never drawn."""
    if ns == "html":
        return "svg" if tag == "svg" else "math" if tag == "math" else "html"
    if ns in ("svg", "svgtext"):
        if tag == "foreignobject":
            return "html"
        if tag in _SVG_HIDDEN or model_svg.never_drawn(tag):
            return "hidden"
        return "svgtext" if tag in _SVG_TEXT or ns == "svgtext" else "svg"
    if ns == "math":
        return "hidden" if tag in _MATH_HIDDEN else "math"
    return ns


_UA_DISPLAY_DECLS: dict[str, tuple[css.Key, int, css.Decl] | None] = {}


def _ua_display(tag: str) -> tuple[css.Key, int, css.Decl] | None:
    """The UA style sheet's display of a tag, as a cascade entry (cheaper than a selector)."""
    got = _UA_DISPLAY_DECLS.get(tag, False)
    if got is False:
        display = ("table-cell" if tag in _CELL else "table-row" if tag == "tr" else "table" if tag == "table"
                   else "list-item" if tag == "li" else "block" if tag in _PARA or tag in _BLOCK else None)
        got = None
        if display and tag not in ("br", "head", "title", "noframes"):
            d = css.declarations(f"display:{display}")[0]
            got = (css.key_of(False, 0, css.UNLAYERED, (0, 0, 0), -1), 0, d)
        _UA_DISPLAY_DECLS[tag] = got
    return got  # type: ignore[return-value]


_HINT_CACHE: dict[str, list[css.Decl]] = {}
_HINT_KEY = css.key_of(False, 1, -1, (0, 0, 0), -1)



def _hints(node: Any, tag: str, ns: str) -> list[tuple[css.Key, int, css.Decl]] | None:
    """Presentational hints: ``<font color size>``, ``bgcolor``, and SVG presentation attributes."""
    if ns == "html" and tag not in ("font", "body", "table", "td", "th", "tr", "img"):
        return None
    if ns == "math":
        return None
    attrs = node.attributes
    parts = []
    if ns == "html":
        if tag == "font" and attrs.get("color"):
            parts.append(f"color:{attrs['color']}")
        if tag == "font" and attrs.get("face"):
            parts.append(f"font-family:{attrs['face']}")
        if tag == "font" and attrs.get("size"):
            size = _int(attrs.get("size", "").lstrip("+"))
            size = min(max(size + 3 if (attrs.get("size") or "").strip()[:1] in "+-" else size, 1), 7)
            parts.append(f"font-size:{['x-small', 'small', 'medium', 'large', 'x-large', 'xx-large', 'xxx-large'][size - 1]}")
        if attrs.get("bgcolor"):
            parts.append(f"background-color:{attrs['bgcolor']}")
        if tag == "body" and attrs.get("text"):
            parts.append(f"color:{attrs['text']}")
        if attrs.get("background"):
            parts.append("background-image:url(x)")
        if tag == "img":  # the size of the box that shows a broken image's alt
            for name in ("width", "height"):
                value = (attrs.get(name) or "").strip().lower().removesuffix("px")
                if value.isdigit():
                    parts.append(f"{name}:{value}px")
    else:
        for name in ("display", "visibility", "opacity", "font-size", "transform", *css.SVG_PAINT):
            if attrs.get(name):
                parts.append(f"{name}:{attrs[name]}")
    if not parts:
        return None
    text = ";".join(parts)
    decls = _HINT_CACHE.get(text)
    if decls is None:
        decls = _HINT_CACHE[text] = css.declarations(text)
    return [(_HINT_KEY, 1, d) for d in decls]


def _fragmented(tree: Any) -> bool:
    """Whether the body's words are interleaved with many small elements carrying a class or
    id (text on both sides, outside code), as a style sheet would need them to hide words
    between the visible ones: a quarter of the words or more."""
    small = 0
    for n in tree.css("body [class], body [id]"):
        words = len((n.text(deep=True) or "").split())
        if not 0 < words <= 3 or _inside(n, ("pre", "code")):
            continue
        prev, nxt = n.prev, n.next
        if (prev is not None and prev.is_text_node and (prev.text_content or "").strip()
                and nxt is not None and nxt.is_text_node and (nxt.text_content or "").strip()):
            small += words
    if small < 20:
        return False
    body = tree.body
    total = len((body.text(deep=True) if body is not None else "").split())
    return small >= 0.25 * total


def read_html(text: str, warnings: list[str] | None = None) -> _Result:
    """Read a decoded HTML document: visible text, its logical order, all text, why unreadable."""
    return _Reader(text, 0, warnings if warnings is not None else []).read()


def html_to_text(data: bytes, limits: Limits = Limits(), main_content: bool = False) -> Extracted:
    """Visible text of an HTML document (also the HTML documents inside EDGAR submissions), with
    its other readings and the reasons it cannot be read reliably.

    With ``main_content``, a web page with site chrome (``nav``, ``header``, ``footer``,
    ``aside``, ``main`` or their ARIA roles) also gets the reading ``html:main-content``: the
    paragraphs jusText does not take for boilerplate, so that decisions between pages of one
    site can set the chrome aside. Filings carry no such elements and are not read twice
    (jusText costs as much as this reading)."""
    warnings: list[str] = []
    text, enc = _decode_html(data, warnings)
    unreadable = []
    if "+" in enc:
        warnings.append(f"mixed encodings: decoded region by region as {enc}")
    if (enc in GUESSED or "+" in enc) and mess(text) > MAX_MESS:
        unreadable.append(f"HTML decoded as {enc} is gibberish (mess ratio {mess(text):.2f})")
    text = storable(text, warnings)
    got = read_html(text, warnings)
    visible, joined, spaced = letter_spacing(got.visible)
    visible = _no_nbsp(visible)
    if joined:
        warnings.append(f"rejoined {joined} letter-spaced words")
    if not visible.strip() and got.script_built:
        raise ExtractionError("script-built", got.script_built)
    out = check_text(storable(visible, warnings), "HTML document", limits)
    readings = []
    if got.logical != got.visible:
        readings.append(Reading("html:logical-order", storable(got.logical, warnings),
                                "the text in the order it is stored, before bidirectional reordering"))
    if got.columns.strip():
        readings.append(Reading("html:table-columns", storable(got.columns, warnings),
                                "the text with each table of prose columns read down one column, then the next"))
    if got.shows_all and got.all_text.strip():
        readings.append(Reading("html:all-text", storable(got.all_text, warnings),
                                "every text node and attribute text, hidden or not, in source order"))
    reasons = unreadable + got.unreadable + ([spaced] if spaced else [])
    if got.script_built:
        reasons.append(got.script_built)
    if main_content and got.tree is not None and len(text) <= _MAX_MAIN_CONTENT and got.tree.css_first(_CHROME):
        main = _main_content(text)
        if main.strip():
            readings.append(Reading("html:main-content", storable(main, warnings),
                                    "the page's main content without its site chrome, as jusText finds it"))
    return Extracted("html", out, "selectolax", version_of("selectolax"), encoding=enc, warnings=warnings,
                     unreadable="; ".join(dict.fromkeys(reasons)) or None, readings=readings,
                     meta=dates.recorded(dates.html_meta(text)), unmodelled=got.unmodelled)




_CHROME = "nav, header, footer, aside, main, [role=navigation], [role=banner], [role=contentinfo], [role=main]"
_MAX_MAIN_CONTENT = 5_000_000  # characters: a longer page is a filing, not a site's page


def _main_content(html: str) -> str:
    """The paragraphs of a page that jusText (Pomikalek 2011) does not classify as boilerplate."""
    import justext

    paragraphs = justext.justext(html, justext.get_stoplist("English"))
    return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)


def main_content_version() -> str:
    return f"justext {version_of('justext')}"


def _no_nbsp(text: str) -> str:
    """No-break spaces as spaces, a run of spaces around them as one (as the text was stored
    before they were kept to find letter-spaced words)."""
    if "\xa0" not in text:
        return text
    pieces = text.split("\xa0")
    out = [pieces[0].rstrip(" ")]
    for p in pieces[1:]:
        if out[-1] and not out[-1].endswith(" "):
            out.append(" ")
        out.append(p.strip(" ") if p.strip(" ") else "")
    return "".join(out)
