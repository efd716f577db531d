"""The OpenDocument text reader's model (:mod:`auditor.extract.odf`, ``.odt`` and flat ``.fodt``).

Modelled: the elements the reader lays out (:data:`ELEMENTS`: paragraphs, headings, spans,
links, spaces, tabs, line breaks, lists, tables, sections, notes, bookmarks, index marks,
tracked changes, comments); fields whose shown value is what the reader reads
(:data:`COMPUTED`, :data:`CACHED`, and the fields of :func:`_field` when their text is the
value they show); pictures and frames that draw no words out of place; and the style
properties whose effect on which words are drawn, and in which order, the reader knows
(:data:`TEXT`, :data:`PARAGRAPH`; the properties of pages, tables, lists and frames lay out
boxes and draw no words, save those :func:`_layout` checks); the style, font and page elements
of :data:`STYLE_ELEMENTS`.

Outside the model (each named): an element not listed (a ``text:variable-get``, a
``text:bookmark-ref``, a ``draw:object``), a user field whose declared value is not its text,
a text frame placed by position out of its stored order or on the page, text squeezed by
``style:text-scale`` or letter spacing, rotated or vertical text, transparent text, a
font embedded in the document, text the colour of a paragraph, cell or page background (the
reader compares a run's colour with its own background only), a condition on a section, a
conditional style (``style:map``), macros a document runs when opened.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import Any

from auditor.extract.model import Outside

_NS = {
    "urn:oasis:names:tc:opendocument:xmlns:office:1.0": "office",
    "urn:oasis:names:tc:opendocument:xmlns:text:1.0": "text",
    "urn:oasis:names:tc:opendocument:xmlns:style:1.0": "style",
    "urn:oasis:names:tc:opendocument:xmlns:table:1.0": "table",
    "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0": "draw",
    "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0": "svg",
    "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0": "fo",
    "urn:oasis:names:tc:opendocument:xmlns:form:1.0": "form",
    "urn:oasis:names:tc:opendocument:xmlns:meta:1.0": "meta",
    "urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0": "number",
    "urn:oasis:names:tc:opendocument:xmlns:script:1.0": "script",
    "http://purl.org/dc/elements/1.1/": "dc",
    "http://www.w3.org/1999/xlink": "xlink",
    "http://www.w3.org/XML/1998/namespace": "xml",
    "http://openoffice.org/2009/office": "officeooo",
    "urn:org:documentfoundation:names:experimental:office:xmlns:loext:1.0": "loext",
    # the W3C namespaces of OpenOffice.org's first OpenDocument files: the same properties
    "http://www.w3.org/1999/XSL/Format": "fo",
    "http://www.w3.org/2000/svg": "svg",
}


def qname(name: str) -> str:
    """``{urn:...:text:1.0}p`` as ``text:p``; a namespace not known keeps its URI."""
    if not name.startswith("{"):
        return name
    ns, _, local = name[1:].partition("}")
    return f"{_NS.get(ns, '{' + ns + '}')}:{local}"


#: Elements of the body the reader reads, hides or never shows, as it does.
ELEMENTS = frozenset("""
office:text office:annotation office:annotation-end office:change-info office:binary-data office:forms
text:p text:h text:span text:a text:s text:tab text:line-break text:soft-page-break text:list
text:list-item text:list-header text:numbered-paragraph text:section text:note text:note-citation
text:note-body text:bookmark text:bookmark-start text:bookmark-end text:reference-mark
text:reference-mark-start text:reference-mark-end text:hidden-text text:hidden-paragraph
text:conditional-text text:tracked-changes text:changed-region text:insertion text:deletion
text:format-change text:change text:change-start text:change-end text:sequence-decls text:sequence-decl
text:variable-decls text:variable-decl text:user-field-decls text:user-field-decl
text:alphabetical-index-mark text:alphabetical-index-mark-start text:alphabetical-index-mark-end
text:toc-mark text:toc-mark-start text:toc-mark-end text:user-index-mark text:user-index-mark-start
text:user-index-mark-end text:table-of-content text:alphabetical-index text:user-index
text:illustration-index text:table-index text:object-index text:index-body text:index-title
table:table table:table-column table:table-columns table:table-column-group table:table-header-columns
table:table-row table:table-rows table:table-row-group table:table-header-rows table:table-cell
table:covered-table-cell
draw:frame draw:text-box draw:image draw:a draw:contour-polygon draw:contour-path draw:image-map
draw:area-rectangle draw:area-circle draw:area-polygon draw:enhanced-geometry draw:equation
draw:handle draw:glue-point svg:title svg:desc dc:creator dc:date
""".split())  # noqa: SIM905
#: Shapes: modelled when they hold no text (a line, a box, a logo drawn as paths).
SHAPES = frozenset("""
draw:custom-shape draw:rect draw:line draw:polyline draw:polygon draw:regular-polygon draw:path
draw:circle draw:ellipse draw:connector draw:g
""".split())  # noqa: SIM905
#: Fields that show a number or a date they compute (a page number, today's date), or the
#: text they hold (a placeholder, an input field): their text is read, and shows no other words.
COMPUTED = frozenset("""
text:page-number text:page-count text:page-continuation text:date text:time text:word-count
text:character-count text:paragraph-count text:image-count text:table-count text:object-count
text:creation-date text:creation-time text:modification-date text:modification-time text:print-date
text:print-time text:editing-cycles text:editing-duration text:sequence text:placeholder text:text-input
""".split())  # noqa: SIM905
#: Fields that show the user's own details (the sender of a letter, the author), or text the
#: document holds elsewhere (a reference to a bookmark, a note, a caption): modelled when fixed
#: (they show their text), or when their text is short (a name, a number: at most
#: :data:`FIELD_WORDS` words) and the document has few of them (:data:`FIELDS`). A reader may
#: see other words there; few short fields cannot hide a copy, nor break it word by word.
CACHED = frozenset("""
text:sender-firstname text:sender-lastname text:sender-initials text:sender-title text:sender-position
text:sender-email text:sender-phone-private text:sender-fax text:sender-company text:sender-phone-work
text:sender-street text:sender-city text:sender-postal-code text:sender-country text:sender-state-or-province
text:author-name text:author-initials text:initial-creator text:creator text:bookmark-ref
text:reference-ref text:sequence-ref text:note-ref
""".split())  # noqa: SIM905
FIELD_WORDS = 4
FIELDS = 24
#: Fields that show a property of the document (meta.xml): modelled when fixed, empty, or
#: holding the value the document's properties give.
META_FIELDS = {"text:title": "dc:title", "text:subject": "dc:subject", "text:description": "dc:description"}

#: Text properties the reader evaluates (display, colour, background, size) or that draw the
#: same words in the same order (type face, weight, underline, language, hyphenation...).
TEXT = frozenset("""
text:display fo:color fo:background-color fo:font-size style:font-size-asian style:font-size-complex
style:font-size-rel style:font-size-rel-asian style:font-size-rel-complex style:use-window-font-color
style:font-name style:font-name-asian style:font-name-complex fo:font-family style:font-family-asian
style:font-family-complex style:font-family-generic style:font-family-generic-asian
style:font-family-generic-complex style:font-style-name style:font-style-name-asian
style:font-style-name-complex style:font-pitch style:font-pitch-asian style:font-pitch-complex
style:font-charset style:font-charset-asian style:font-charset-complex fo:font-weight
style:font-weight-asian style:font-weight-complex fo:font-style style:font-style-asian
style:font-style-complex fo:font-variant fo:text-transform fo:language fo:country fo:script
style:language-asian style:country-asian style:script-asian style:language-complex style:country-complex
style:script-complex style:rfc-language-tag style:rfc-language-tag-asian style:rfc-language-tag-complex
fo:hyphenate fo:hyphenation-remain-char-count fo:hyphenation-push-char-count style:letter-kerning
style:text-underline-style style:text-underline-type style:text-underline-width style:text-underline-color
style:text-underline-mode style:text-line-through-style style:text-line-through-type
style:text-line-through-width style:text-line-through-color style:text-line-through-mode
style:text-line-through-text style:text-line-through-text-style style:text-overline-style
style:text-overline-type style:text-overline-width style:text-overline-color style:text-overline-mode
style:text-outline style:text-shadow fo:text-shadow style:font-relief style:text-emphasize
style:text-blinking style:text-combine-start-char style:text-combine-end-char style:text-position
style:text-scale style:text-rotation-angle style:text-rotation-scale style:text-combine fo:letter-spacing
loext:opacity loext:color-lum-mod loext:color-lum-off loext:theme-color loext:char-shading-value
loext:hyphenation-no-caps loext:hyphenation-no-last-word loext:hyphenation-word-char-count
loext:hyphenation-zone loext:hyphenation-keep loext:hyphenation-keep-type loext:hyphenation-compound-remain-char-count
loext:padding loext:padding-left loext:padding-right loext:padding-top loext:padding-bottom
loext:border loext:border-left loext:border-right loext:border-top loext:border-bottom
loext:shadow officeooo:rsid officeooo:paragraph-rsid style:condition fo:text-align
""".split())  # noqa: SIM905
#: Paragraph properties that place a paragraph and hide no word (margins, alignment, breaks,
#: borders, tabs, line numbering, hyphenation, the writing mode checked by :func:`_layout`).
PARAGRAPH = frozenset("""
fo:margin fo:margin-top fo:margin-bottom fo:margin-left fo:margin-right fo:text-indent fo:text-align
fo:text-align-last style:justify-single-word fo:line-height style:line-height-at-least style:line-spacing
style:font-independent-line-spacing fo:keep-with-next fo:keep-together fo:widows fo:orphans fo:break-before
fo:break-after style:page-number fo:background-color fo:border fo:border-top fo:border-bottom fo:border-left
fo:border-right style:border-line-width style:border-line-width-top style:border-line-width-bottom
style:border-line-width-left style:border-line-width-right fo:padding fo:padding-top fo:padding-bottom
fo:padding-left fo:padding-right style:shadow style:join-border style:register-true style:tab-stop-distance
style:auto-text-indent style:writing-mode style:writing-mode-automatic style:vertical-align
style:snap-to-layout-grid style:text-autospace style:punctuation-wrap style:line-break text:number-lines
text:line-number fo:hyphenation-keep fo:hyphenation-ladder-count style:contextual-spacing
loext:contextual-spacing style:background-transparency draw:fill draw:fill-color draw:opacity
draw:fill-image-name draw:fill-gradient-name draw:fill-hatch-name draw:gradient-step-count
draw:fill-image-ref-point draw:fill-image-width draw:fill-image-height draw:opacity-name
style:repeat loext:hyphenation-zone-always loext:hyphenation-zone-column loext:hyphenation-zone-page
loext:hyphenation-zone-spread loext:text-justify loext:marked-for-numbering loext:lines-in-list
""".split())  # noqa: SIM905
#: Property elements of boxes, pages, tables, lists and frames: they lay out boxes and draw no
#: words; the few attributes that can hide or turn a word are checked by :func:`_layout`.
LAYOUT = frozenset("""
style:page-layout-properties style:header-footer-properties style:table-properties
style:table-column-properties style:table-row-properties style:table-cell-properties
style:section-properties style:list-level-properties style:graphic-properties
style:drawing-page-properties style:ruby-properties style:chart-properties
""".split())  # noqa: SIM905
_MIN_SCALE = 50.0  # per cent: a narrower text scale squeezes a word into a sliver
_MIN_RELATIVE = 40.0  # per cent of the parent's size; a superscript is 58%
_MIN_POINTS = 3.0
_SAME_COLOUR = 0x10


def same_colour(a: str, b: str) -> bool:
    """Two RRGGBB colours a reader cannot tell apart (as the .docx reader judges them)."""
    return all(abs(int(a[i : i + 2], 16) - int(b[i : i + 2], 16)) < _SAME_COLOUR for i in (0, 2, 4))


def hex_colour(value: str | None) -> str | None:
    """``#rrggbb`` (``#rgb``, ``white``, ``black``) as RRGGBB, None for none or transparent."""
    v = (value or "").strip().lower()
    v = {"white": "#ffffff", "black": "#000000"}.get(v, v)
    if re.fullmatch(r"#[0-9a-f]{3}", v):
        v = "#" + "".join(c * 2 for c in v[1:])
    return v[1:].upper() if re.fullmatch(r"#[0-9a-f]{6}", v) else None


def _percent(value: str | None) -> float | None:
    m = re.fullmatch(r"\s*(-?[\d.]+)\s*%\s*", value or "")
    try:
        return float(m.group(1)) if m else None
    except ValueError:
        return None


def _pct(value: str | None) -> float:
    """A percentage, 100 when it is none."""
    p = _percent(value)
    return 100.0 if p is None else p


def _points(value: str | None) -> float | None:
    m = re.fullmatch(r"\s*(-?[\d.]+)\s*(pt|px|mm|cm|in|pc)?\s*", value or "")
    if not m:
        return None
    try:
        number = float(m.group(1))
    except ValueError:
        return None
    return number * {"pt": 1, None: 1, "px": 0.75, "mm": 2.835, "cm": 28.35, "in": 72, "pc": 12}[m.group(2)]


def package(names: list[str], outside: Outside) -> None:
    """Name the macros an .odt package holds (``Basic/`` modules, ``Scripts/``): run when it is
    opened with macros allowed, they can change what a reader sees."""
    for name in sorted(names):
        if (name.startswith("Basic/") and name.endswith(".xml") and not name.endswith(("script-lc.xml", "script-lb.xml"))) \
                or (name.startswith("Scripts/") and not name.endswith("/")):
            outside.add("odt", f"macros in the document ({name})")


def check(body: Any, roots: list[Any], meta: Any, outside: Outside, fmt: str = "odt") -> None:
    """Name what ``body`` (``office:text``), the headers and footers, and the styles of
    ``roots`` (content, styles) hold outside the model."""
    decls = {d.get(_a("text", "name")) or "": d for r in roots if r is not None
             for d in r.iter(_e("text", "user-field-decl"))}
    values = _meta_values(meta)
    values.update({f"bookmark {k}": v for k, v in _bookmarks(body).items()})
    _elements(body, decls, values, outside, fmt)
    for r in roots:
        if r is None:
            continue
        for master in r.iter(_e("style", "master-page")):
            for part in master:
                if isinstance(part.tag, str) and part.tag.startswith(_e("style", "")):
                    _elements(part, decls, values, outside, fmt, root_ok=True)
    _styles(roots, outside, fmt)


@functools.cache
def _e(prefix: str, local: str) -> str:
    ns = next(k for k, v in _NS.items() if v == prefix)
    return "{" + ns + "}" + local


_a = _e  # the same names for attributes


def _meta_values(meta: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    if meta is None:
        return out
    for el in meta.iter():
        if isinstance(el.tag, str):
            out.setdefault(qname(el.tag), " ".join((el.text or "").split()))
    return out


def _bookmarks(body: Any) -> dict[str, str]:
    """The text each bookmark range holds (``text:bookmark-start`` to ``-end``), as a
    reference to it shows it (``text:reference-format="text"``)."""
    from lxml import etree

    start, end = _e("text", "bookmark-start"), _e("text", "bookmark-end")
    open_: dict[str, list[str]] = {}
    done: dict[str, str] = {}
    for event, el in etree.iterwalk(body, events=("start", "end")):
        if not isinstance(el.tag, str):
            continue
        if event == "start":
            if el.tag == start:
                open_[el.get(_a("text", "name")) or ""] = []
            elif el.tag == end and (name := el.get(_a("text", "name")) or "") in open_:
                done[name] = " ".join("".join(open_.pop(name)).split())
            elif el.text:
                for parts in open_.values():
                    parts.append(el.text)
        elif el.tail:
            for parts in open_.values():
                parts.append(el.tail)
        if len(open_) > 64:  # ranges never closed: no more to learn
            break
    return done


def _text(el: Any) -> str:
    return " ".join("".join(el.itertext()).split())


def _never(tag: str) -> bool:
    """Elements whose whole content the reader never shows (index templates, declarations,
    forms, drawing titles): what they hold is no part of any reading."""
    return tag.endswith("-source") or tag in ("office:forms", "text:sequence-decls", "text:variable-decls",
                                              "text:user-field-decls", "office:change-info", "svg:title", "svg:desc",
                                              "office:binary-data")


def _elements(top: Any, decls: dict[str, Any], values: dict[str, str], outside: Outside, fmt: str,
              root_ok: bool = False) -> None:
    placed: set[Any] = set()
    fields: list[Any] = []
    _walk_elements(top, decls, values, outside, fmt, root_ok, placed, fields)
    if len(fields) > FIELDS:
        outside.add(fmt, f"{len(fields)} fields that are not fixed and hold text: a reader sees the values they "
                    "compute, not their text")
    if len(placed) > PLACED_FRAMES:
        outside.add(fmt, f"{len(placed)} text frames placed by position (anchored to the page, or stored out of "
                    "their order down the page): the reader cannot tell their order")


def _walk_elements(top: Any, decls: dict[str, Any], values: dict[str, str], outside: Outside, fmt: str,
                   root_ok: bool, placed: set[Any], fields: list[Any]) -> None:
    stack = [top]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):
            continue
        tag = qname(el.tag)
        if el is top and root_ok:
            pass
        elif tag in ELEMENTS or tag in COMPUTED or (tag.startswith("text:") and tag.endswith("-source")):
            if tag == "draw:frame":
                _frame(el, outside, fmt, placed)
            elif tag == "draw:image" and any(_text(c) for c in el if isinstance(c.tag, str) and not _never(qname(c.tag))):
                outside.add(fmt, "text inside a picture (draw:image): a fallback no word processor draws")
            elif tag == "text:section" and (el.get(_a("text", "display")) == "condition" or el.get(_a("text", "condition"))):
                outside.add(fmt, "section shown or hidden by a condition (text:condition)")
            if _never(tag):
                continue
        elif tag in SHAPES:
            if _text(el):
                outside.add(fmt, f"text in a drawing shape <{tag}> (placed by its geometry, not read in order)")
            continue
        elif tag == "text:bookmark-ref" and el.get(_a("text", "reference-format")) == "text" and \
                values.get(f"bookmark {el.get(_a('text', 'ref-name'))}") == _text(el):
            continue  # it shows the text of the bookmark, which is its text
        elif tag in CACHED:
            if el.get(_a("text", "fixed")) != "true" and (words := len(_text(el).split())):
                fields.append(el)
                if words > FIELD_WORDS:
                    outside.add(fmt, f"field <{tag}> of more than {FIELD_WORDS} words, not fixed: a reader sees "
                                "the value it computes, not its text")
            continue
        elif tag in META_FIELDS:
            shown = values.get(META_FIELDS[tag], "")
            if el.get(_a("text", "fixed")) != "true" and _text(el) and _text(el) != shown:
                outside.add(fmt, f"field <{tag}> whose text is not the document's {META_FIELDS[tag]}")
            continue
        elif tag == "text:user-field-get":
            decl = decls.get(el.get(_a("text", "name")) or "")
            kind = decl.get(_a("office", "value-type")) if decl is not None else None
            declared = " ".join((decl.get(_a("office", "string-value")) or "").split()) if decl is not None else None
            if decl is None or (kind in (None, "string") and declared != _text(el)) or (
                    kind not in (None, "string") and re.search(r"[^\W\d_]", _text(el))):
                outside.add(fmt, "field <text:user-field-get> whose declared value is not its text")
            continue
        else:
            outside.add(fmt, f"element <{tag}>")
            continue
        stack.extend(reversed(list(el)))


_TEXT_BOX = _e("draw", "text-box")
#: Text frames placed by position (anchored to the page, or stored out of their order down the
#: paragraph) a document may hold: each is read as a block where it is stored, and a block out
#: of place breaks only the few shingles across its edges. Many such blocks would reorder the
#: text line by line, which the reader cannot follow.
PLACED_FRAMES = 8


def _frame(frame: Any, outside: Outside, fmt: str, placed: set[Any]) -> None:
    """A frame holding a picture draws no words; an embedded object is outside. A text frame
    drawn as a character or at one is read where it is drawn; one anchored to its paragraph is
    read there, in the order its paragraph's frames go down the page. A frame of the page's,
    or of a paragraph whose frames are stored out of that order, is *placed* (counted)."""
    kinds = {qname(c.tag) for c in frame if isinstance(c.tag, str)}
    if kinds & {"draw:object", "draw:object-ole", "draw:applet", "draw:plugin", "draw:floating-frame"}:
        outside.add(fmt, "embedded object in a frame (draw:object), drawn by another program")
    if "draw:text-box" not in kinds:
        return
    anchor = frame.get(_a("text", "anchor-type")) or "paragraph"
    if anchor == "page":
        placed.add(frame)
        return
    parent = frame.getparent()
    if anchor in ("as-char", "char") or parent is None:
        return
    frames = [f for f in parent.iter(frame.tag) if f.getparent() is parent and f.find(_TEXT_BOX) is not None
              and (f.get(_a("text", "anchor-type")) or "paragraph") == "paragraph"]
    ys = [_points(f.get(_a("svg", "y"))) or 0.0 for f in frames]
    if any(b < a for a, b in itertools.pairwise(ys)):
        placed.update(frames)


#: Elements of the styles, fonts and page layouts (outside the body): they format, and draw
#: no text of their own. A conditional style (``style:map``) is outside: the reader does not
#: evaluate its condition.
STYLE_ELEMENTS = frozenset("""
office:document office:document-content office:document-styles office:styles office:automatic-styles
office:master-styles office:font-face-decls office:scripts office:script office:binary-data style:style
style:default-style style:font-face svg:font-face-src svg:font-face-uri svg:font-face-format
svg:font-face-name style:page-layout style:header-style style:footer-style style:master-page
style:text-properties style:paragraph-properties style:section-properties style:graphic-properties
style:drawing-page-properties style:table-properties style:table-column-properties
style:table-row-properties style:table-cell-properties style:page-layout-properties
style:header-footer-properties style:list-level-properties style:list-level-label-alignment
style:ruby-properties style:chart-properties style:tab-stops style:tab-stop style:drop-cap
style:background-image style:columns style:column style:column-sep style:footnote-sep
loext:graphic-properties text:list-style text:list-level-style-bullet text:list-level-style-number
text:list-level-style-image text:outline-style text:outline-level-style text:notes-configuration
text:linenumbering-configuration text:linenumbering-separator text:bibliography-configuration
text:sort-key draw:gradient draw:hatch draw:fill-image draw:marker draw:stroke-dash draw:opacity
svg:linearGradient svg:radialGradient svg:stop
""".split())  # noqa: SIM905
_OWN = ("office:body", "office:meta", "office:settings")


def _style_elements(root: Any, outside: Outside, fmt: str) -> None:
    """The elements outside the body: formatting (listed), macros (outside but for a template's
    ``office:new`` handler, which runs only when a new document is made from it)."""
    stack = [c for c in root if isinstance(c.tag, str) and qname(c.tag) not in _OWN]
    if qname(root.tag) not in STYLE_ELEMENTS:
        outside.add(fmt, f"element <{qname(root.tag)}>")
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):
            continue
        tag = qname(el.tag)
        if tag == "style:master-page":
            continue  # its headers and footers are read, and checked, as the body is
        if tag.startswith("number:") or tag == "office:event-listeners":
            for listener in el.iter(_e("script", "event-listener")) if tag == "office:event-listeners" else ():
                runs = listener.get(_a("script", "macro-name")) or listener.get(_a("xlink", "href"))
                if runs and listener.get(_a("script", "event-name")) != "office:new":
                    outside.add(fmt, f"macro run on {listener.get(_a('script', 'event-name'))} (script:event-listener)")
            continue  # data styles format a field's number or date
        if tag == "office:script":
            if any(isinstance(c.tag, str) and c.tag.rpartition("}")[2] in ("module", "source-code") for c in el.iter()):
                outside.add(fmt, "macros in the document (office:script)")
            continue
        if tag not in STYLE_ELEMENTS:
            outside.add(fmt, "conditional style (style:map): the reader does not evaluate its condition"
                        if tag == "style:map" else f"style element <{tag}>")
            continue
        stack.extend(el)


def _styles(roots: list[Any], outside: Outside, fmt: str) -> None:
    colours: set[str] = set()
    backgrounds: set[str] = set()
    for root in roots:
        if root is None:
            continue
        _style_elements(root, outside, fmt)
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            tag = qname(el.tag)
            if tag == "style:text-properties":
                _text_properties(el, outside, fmt, colours)
            elif tag == "style:paragraph-properties":
                for k, v in el.attrib.items():
                    name = qname(k)
                    if name not in PARAGRAPH:
                        outside.add(fmt, f"paragraph property {name}")
                    elif name == "style:writing-mode" and v.startswith("tb"):
                        outside.add(fmt, f"text set vertically (style:writing-mode {v})")
                    elif name in ("fo:margin-left", "fo:margin-right", "fo:text-indent") and (
                            (_points(v) or 0) < -10 * 28.35):
                        outside.add(fmt, f"paragraph moved off the page ({name} {v})")
                _backgrounds(el, backgrounds)
            elif tag in LAYOUT:
                _layout(el, tag, outside, fmt)
                _backgrounds(el, backgrounds)
            elif tag == "svg:font-face-uri" or tag == "svg:font-face-src":
                outside.add(fmt, "embedded font (svg:font-face-src): it may draw other letters than the text holds")
    for c in sorted(colours):
        for b in sorted(backgrounds):
            if same_colour(c, b) and not (c == "FFFFFF" and b == "FFFFFF"):
                outside.add(fmt, f"text coloured #{c.lower()} where a paragraph, cell or page background is "
                            f"#{b.lower()}: the reader compares a run's colour with its own background only")


def _text_properties(el: Any, outside: Outside, fmt: str, colours: set[str]) -> None:
    for k, v in el.attrib.items():
        name = qname(k)
        if name not in TEXT:
            outside.add(fmt, f"text property {name}")
        elif name == "style:text-scale" and _pct(v) < _MIN_SCALE:
            outside.add(fmt, f"text squeezed to {v} of its width (style:text-scale)")
        elif name in ("fo:font-size", "style:font-size-asian", "style:font-size-complex"):
            pct, pts = _percent(v), _points(v)
            if pct is not None and pct < _MIN_RELATIVE:
                outside.add(fmt, f"text set at {v} of its parent's size ({name})")
            elif name != "fo:font-size" and pts is not None and pts < _MIN_POINTS and not (
                    (_points(el.get(_a("fo", "font-size"))) or _MIN_POINTS) < _MIN_POINTS):  # hidden by the reader
                outside.add(fmt, f"text set under 3 pt ({name} {v})")
        elif name == "fo:letter-spacing" and (_points(v) or 0) < -2:
            outside.add(fmt, f"letters squeezed together (fo:letter-spacing {v})")
        elif name == "style:text-position":
            parts = v.split()
            shift = {"super": 33.0, "sub": -33.0}.get(parts[0] if parts else "", _percent(parts[0]) if parts else 0)
            size = _percent(parts[1]) if len(parts) > 1 else 100.0
            if abs(shift or 0) > 100 or (size is not None and size < _MIN_RELATIVE):
                outside.add(fmt, f"text lifted, lowered or shrunk (style:text-position {v})")
        elif name == "style:text-rotation-angle" and v.strip() not in ("0", "0deg", "360"):
            outside.add(fmt, f"text rotated (style:text-rotation-angle {v})")
        elif name == "style:text-combine" and v != "none":
            outside.add(fmt, f"text combined into one character cell (style:text-combine {v})")
        elif name == "loext:opacity" and _pct(v) < 100 and not (
                el.get(_a("style", "use-window-font-color")) == "true" and el.get(_a("fo", "color")) is None):
            outside.add(fmt, f"transparent text (loext:opacity {v})")
        elif name == "fo:color" and (c := hex_colour(v)):
            colours.add(c)
        elif name == "style:condition":
            outside.add(fmt, "text property style:condition")


def _layout(el: Any, tag: str, outside: Outside, fmt: str) -> None:
    for k, v in el.attrib.items():
        name = qname(k)
        if name == "style:writing-mode" and v.startswith("tb"):
            outside.add(fmt, f"text set vertically (style:writing-mode {v} in {tag})")
        elif name == "style:rotation-angle" and v.strip() not in ("0", "0deg", "360"):
            outside.add(fmt, f"text rotated in a table cell (style:rotation-angle {v})")
        elif name == "style:direction" and v == "ttb":
            outside.add(fmt, "letters stacked top to bottom (style:direction ttb)")
        elif name in ("text:display", "style:display") and v == "false":
            outside.add(fmt, f"content hidden by {name} in {tag}")


def _backgrounds(el: Any, out: set[str]) -> None:
    c = hex_colour(el.get(_a("fo", "background-color")) or el.get("{http://www.w3.org/1999/XSL/Format}background-color"))
    if c:
        out.add(c)
    if el.get(_a("draw", "fill")) == "solid" and (f := hex_colour(el.get(_a("draw", "fill-color")))):
        out.add(f)
