""".docx (OOXML) as Word shows it: the main part found through the package relationships, the
``mc:AlternateContent`` branch Word picks, tracked changes accepted, hidden runs left out; the
other ways to read it (hidden text in, changes rejected, the other branch) as readings.

What a reader sees of a run depends on its properties, resolved as Word does (document
defaults, paragraph style, character style, direct formatting; ``basedOn`` chains): a run that
is ``w:vanish``/``w:specVanish``/``w:webHidden``, coloured as what lies under it (its shading or
highlight, the paragraph's shading, the page colour, else white), under 3 pt or squeezed under
20% width is hidden; field codes (text between a field's ``begin`` and
``separate``) are not shown, the field result is; elements of an ``mc:Ignorable`` namespace Word
does not understand are skipped with their content. Every text is still in ``docx:all-text``.
Text that is no run is read where Word shows it: legacy WordArt's ``v:textpath`` string, and the
value a content control bound to a custom XML part shows (``w:dataBinding``), not its cache.

A page-sized picture beside little text (a scanned page) fails closed (``docx-image-text``):
what it shows no reading holds.

Readers differ where the package is ambiguous (two zip entries of one name, no main-part
relationship, a main part of another content type): such a document fails closed
(``Extracted.unreadable`` with a ``docx-...:`` code) and its text is still read as
``zipfile`` sees it.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
import zlib
from dataclasses import dataclass

from auditor.errors import ExtractionError, refusal
from auditor.extract import model
from auditor.extract.common import Extracted, Limits, Reading, auditor_version, check_text, storable
from auditor.extract.detect import binary_kind, detect_format
from auditor.extract.model import docx as model_docx
from auditor.extract.nested import extract_format
from auditor.extract.order import BIDI_CONTROLS, display_order
from auditor.text import dates

_RESAVE = "open it in a word processor, save it again as .docx or PDF, and ingest that"
refusal("docx_error", _RESAVE)
for _code in ("docx-duplicate-entry", "docx-main-part", "docx-content-type", "docx-entity", "docx-altchunk"):
    refusal(_code, _RESAVE)
refusal("docx-image-text", "run OCR on the pictures (print it to PDF, then ocrmypdf in.pdf out.pdf) and ingest the result")
refusal("docx-hidden", "nothing a reader sees can be audited: ingest the copy a reader reads")

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_MC = "{" + _MC_NS + "}"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_CT = "{http://schemas.openxmlformats.org/package/2006/content-types}"
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
              RuntimeError, NotImplementedError, zlib.error)

_OFFICE_DOCUMENT = ("http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument",
                    "http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument")
_MAIN_TYPES = frozenset({
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    "application/vnd.ms-word.document.macroenabled.main+xml",
    "application/vnd.ms-word.template.macroenabledtemplate.main+xml",
})
# Parts of the main part with text besides the body, by relationship type, read after it in this order.
_PART_ORDER = ("footnotes", "endnotes", "comments", "header", "footer")
_MAX_DOCX_DEPTH = 3
# Namespaces Word understands, so an mc:Choice requiring only these is the one it shows and an
# element of one of them is not skipped as ignorable.
_UNDERSTOOD = frozenset({
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "http://schemas.openxmlformats.org/officeDocument/2006/math",
    "http://schemas.openxmlformats.org/drawingml/2006/main",
    "http://schemas.openxmlformats.org/drawingml/2006/picture",
    "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing",
    "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "urn:schemas-microsoft-com:vml",
    "urn:schemas-microsoft-com:office:office",
    "urn:schemas-microsoft-com:office:word",
    "http://schemas.microsoft.com/office/word/2010/wordml",
    "http://schemas.microsoft.com/office/word/2012/wordml",
    "http://schemas.microsoft.com/office/word/2015/wordml/symex",
    "http://schemas.microsoft.com/office/word/2016/wordml/cid",
    "http://schemas.microsoft.com/office/word/2018/wordml",
    "http://schemas.microsoft.com/office/word/2018/wordml/cex",
    "http://schemas.microsoft.com/office/word/2020/wordml/sdtdatahash",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingShape",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingGroup",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingCanvas",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingInk",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingDrawing",
    "http://schemas.microsoft.com/office/drawing/2010/main",
    "http://schemas.microsoft.com/office/word/2006/wordml",
})
# Run properties that hide text, and the sizes below which a reader cannot read it.
_MIN_HALF_POINTS = 6  # w:sz is in half-points: under 3 pt
_MIN_SCALE = 20  # w:w, horizontal scale in percent
_FALSE = ("0", "false", "off")
_P, _R, _T = f"{_W}p", f"{_W}r", f"{_W}t"
_PPR, _RPR, _PSTYLE, _RSTYLE, _SHD, _VAL = (f"{_W}pPr", f"{_W}rPr", f"{_W}pStyle", f"{_W}rStyle",
                                             f"{_W}shd", f"{_W}val")
_MC_CHOICE, _MC_FALLBACK = f"{_MC}Choice", f"{_MC}Fallback"
_SKIP = frozenset({"rPr", "pPr", "sectPr", "tblPr", "trPr", "tcPr", "rPrChange", "pPrChange"})


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


# Flags of a piece of text: how a reader may or may not see it.
HIDDEN, DELETED, INSERTED = 1, 2, 4
# Which mc:AlternateContent branches a piece lies in (all enclosing ones): the branch Word picks,
# the first mc:Choice, the mc:Fallback (or Word's pick where there is none).
IN_SHOWN, IN_CHOICE, IN_FALLBACK = 8, 16, 32
_EVERYWHERE = IN_SHOWN | IN_CHOICE | IN_FALLBACK

#: reading name -> (flags a piece must have all of, flags it must have none of), and why.
READINGS: dict[str, tuple[int, int, str]] = {
    "text": (IN_SHOWN, HIDDEN | DELETED, "as Word shows it"),
    "docx:all-text": (IN_SHOWN, DELETED,
                      "hidden runs included (vanish, white, tiny, field codes, ignorable markup)"),
    "docx:changes-rejected": (IN_SHOWN, HIDDEN | INSERTED,
                              "tracked changes rejected: deletions and moves' sources kept, insertions left out"),
    "docx:choice": (IN_CHOICE, HIDDEN | DELETED, "every mc:AlternateContent read as its first mc:Choice"),
    "docx:fallback": (IN_FALLBACK, HIDDEN | DELETED, "every mc:AlternateContent read as its mc:Fallback"),
}



@dataclass
class _Props:
    """The run properties that decide whether a reader sees a run."""

    vanish: bool | None = None
    colour: str | None = None  # RRGGBB, None for auto (black or white, whichever shows)
    size: int | None = None
    scale: int | None = None
    background: str | None = None  # RRGGBB of the run's or paragraph's shading or highlight
    font: str | None = None  # w:rFonts w:ascii: the font Word draws Latin letters in

    def over(self, other: _Props) -> _Props:
        """These properties with ``other``'s set ones on top."""
        return _Props(
            self.vanish if other.vanish is None else other.vanish,
            self.colour if other.colour is None else other.colour,
            self.size if other.size is None else other.size,
            self.scale if other.scale is None else other.scale,
            self.background if other.background is None else other.background,
            self.font if other.font is None else other.font)

    def hidden(self, page_background: str | None) -> bool:
        if self.vanish:
            return True
        if self.size is not None and self.size < _MIN_HALF_POINTS:
            return True
        if self.scale is not None and self.scale < _MIN_SCALE:
            return True
        return self.colour is not None and _same_colour(self.colour, self.background or page_background or "FFFFFF")


def _on(el) -> bool:  # type: ignore[no-untyped-def]
    return (el.get(f"{_W}val") or "true").lower() not in _FALSE


def _int(value: str | None) -> int | None:
    try:
        return int(float(value)) if value is not None else None
    except ValueError:
        return None


# Text whose colour is within this of its background's in every channel is not seen (white
# text on white, #F0F0F0 on white, black on black shading, the page colour on the page).
_SAME_COLOUR = 0x10
_THEME = {"background1": "FFFFFF", "light1": "FFFFFF", "text1": "000000", "dark1": "000000"}
_HIGHLIGHT = {"black": "000000", "blue": "0000FF", "cyan": "00FFFF", "green": "00FF00", "magenta": "FF00FF",
              "red": "FF0000", "yellow": "FFFF00", "white": "FFFFFF", "darkblue": "000080", "darkcyan": "008080",
              "darkgreen": "008000", "darkmagenta": "800080", "darkred": "800000", "darkyellow": "808000",
              "darkgray": "808080", "lightgray": "C0C0C0"}


def _colour(el, attr: str = "val") -> str | None:  # type: ignore[no-untyped-def]
    """A colour attribute as RRGGBB (a theme's background or text colour as Word's default
    theme has it), None for auto or a value that is no colour."""
    theme = (el.get(f"{_W}themeColor") or "").lower() if attr == "val" else ""
    if theme in _THEME:
        return _THEME[theme]
    val = (el.get(f"{_W}{attr}") or "auto").upper()
    return val if len(val) == 6 and all(c in "0123456789ABCDEF" for c in val) else None


def _same_colour(a: str, b: str) -> bool:
    return all(abs(int(a[i : i + 2], 16) - int(b[i : i + 2], 16)) < _SAME_COLOUR for i in (0, 2, 4))


def _props(rpr) -> _Props:  # type: ignore[no-untyped-def]
    p = _Props()
    if rpr is None:
        return p
    for child in rpr:
        tag = child.tag
        if tag in (f"{_W}vanish", f"{_W}specVanish", f"{_W}webHidden"):
            p.vanish = _on(child) or bool(p.vanish)
        elif tag == f"{_W}color":
            p.colour = _colour(child)
        elif tag == f"{_W}sz":
            p.size = _int(child.get(f"{_W}val"))
        elif tag == f"{_W}w":
            p.scale = _int(child.get(f"{_W}val"))
        elif tag == f"{_W}highlight":
            p.background = _HIGHLIGHT.get((child.get(f"{_W}val") or "none").lower(), p.background)
        elif tag == f"{_W}shd":
            p.background = _shading(child) or p.background
        elif tag == f"{_W}rFonts":
            p.font = child.get(f"{_W}ascii") or p.font
    return p


def _shading(shd) -> str | None:  # type: ignore[no-untyped-def]
    """The colour a shading shows: its pattern colour when solid, else its fill; a pattern over
    an automatic fill as mid grey; None for none."""
    pattern = (shd.get(f"{_W}val") or "clear").lower()
    if pattern == "solid":
        return _colour(shd, "color") or "000000"
    fill = _colour(shd, "fill")
    if fill is None and pattern not in ("clear", "nil"):
        return "808080"
    return fill


class _Styles:
    """Run properties of paragraph and character styles, resolved through ``basedOn``."""

    def __init__(self, root) -> None:  # type: ignore[no-untyped-def]
        self.rpr: dict[tuple[str, str], object] = {}
        self.based: dict[tuple[str, str], str] = {}
        self.default_para: str | None = None
        self.defaults = _Props()
        self.cache: dict[tuple[str, str], _Props] = {}
        if root is None:
            return
        d = root.find(f"{_W}docDefaults/{_W}rPrDefault/{_W}rPr")
        self.defaults = _props(d)
        for style in root.iter(f"{_W}style"):
            kind, sid = style.get(f"{_W}type") or "paragraph", style.get(f"{_W}styleId") or ""
            self.rpr[(kind, sid)] = style.find(f"{_W}rPr")
            based = style.find(f"{_W}basedOn")
            if based is not None:
                self.based[(kind, sid)] = based.get(f"{_W}val") or ""
            if kind == "paragraph" and _on_attr(style.get(f"{_W}default")) and self.default_para is None:
                self.default_para = sid

    def style(self, kind: str, sid: str | None) -> _Props:
        if not sid:
            return _Props()
        key = (kind, sid)
        if key in self.cache:
            return self.cache[key]
        chain: list[tuple[str, str]] = []
        while key in self.rpr and key not in chain and len(chain) < 64:
            chain.append(key)
            key = (kind, self.based.get(key, ""))
        out = _Props()
        for k in reversed(chain):
            out = out.over(_props(self.rpr[k]))
        self.cache[(kind, sid)] = out
        return out


def _on_attr(value: str | None) -> bool:
    return value is not None and value.lower() not in _FALSE


class _DocxReader:
    """The text of a .docx, piece by piece with how a reader sees each piece: body, text boxes,
    altChunk parts, notes, comments, headers, footers.

    Every member is read through one inflation budget, so many parts cannot add up to a bomb.
    Text that cannot be read (an entity reference, an altChunk in a format not read here, an
    ambiguous package) is recorded in ``unreadable`` instead of being dropped silently.
    """

    def __init__(self, data: bytes, limits: Limits, depth: int) -> None:
        self.data, self.limits, self.depth = data, limits, depth
        self.budget = limits.max_file_bytes * 20
        self.unreadable: list[str] = []
        self.unmodelled: list[str] = []  # of the documents it holds (altChunks)
        self.warnings: list[str] = []
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                listed = z.namelist()
        except ZIP_ERRORS as e:
            raise ExtractionError("docx_error", f"unreadable .docx: {type(e).__name__}: {e}") from e
        self.names = sorted(set(listed))
        folded: dict[str, int] = {}
        for n in listed:
            folded[n.lower()] = folded.get(n.lower(), 0) + 1
        twice = sorted(n for n, c in folded.items() if c > 1)
        if twice:
            self.unreadable.append(
                f"docx-duplicate-entry: {len(twice)} part name(s) stored twice in the zip ({', '.join(twice[:3])}); "
                "readers differ on which copy they show")
        self.styles = _Styles(None)
        self.page_background: str | None = None
        self.custom_xml: dict[str, str] | None = None
        self.main = ""
        self.big_pictures = 0
        self.page_area = 12240 * 15840 * _EMU_PER_TWIP**2  # US Letter, until the section says otherwise

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

    def rels(self, part: str) -> list[tuple[str, str, str]]:
        """(id, type, member name) of each internal relationship of ``part`` ("" for the package)."""
        folder, _, base = part.rpartition("/")
        name = f"{folder}/_rels/{base}.rels" if folder else f"_rels/{base}.rels"
        if name not in self.names:
            return []
        out = []
        for rel in self.xml(name).iter(_REL):
            target = rel.get("Target") or ""
            if rel.get("TargetMode") == "External":
                continue
            if target.startswith("/"):
                path = target.lstrip("/")
            else:
                path = os.path.normpath(f"{folder}/{target}" if folder else target).replace(os.sep, "/")
            out.append((rel.get("Id") or "", rel.get("Type") or "", path))
        return out

    def main_part(self) -> str:
        """The main document part, as Word finds it: through ``_rels/.rels``."""
        targets = [t for _, typ, t in self.rels("") if typ in _OFFICE_DOCUMENT]
        target = next((t for t in targets if t in self.names), None)
        if target is None:
            if "word/document.xml" not in self.names:
                raise ExtractionError("docx_error", "not a .docx: no main document part (_rels/.rels names none)")
            self.unreadable.append(
                "docx-main-part: the package names no main document part that exists (_rels/.rels); "
                "word/document.xml is read, which a reader may not show")
            return "word/document.xml"
        kind = self.content_type(target)
        if kind not in _MAIN_TYPES:
            self.unreadable.append(
                f"docx-content-type: the main part {target} has content type {kind or 'none'!r}, "
                "which Word does not open as a document")
        return target

    def content_type(self, part: str) -> str | None:
        if "[Content_Types].xml" not in self.names:
            return None
        root = self.xml("[Content_Types].xml")
        for o in root.iter(f"{_CT}Override"):
            if (o.get("PartName") or "").lstrip("/").lower() == part.lower():
                return (o.get("ContentType") or "").lower()
        ext = part.rpartition(".")[2].lower()
        for d in root.iter(f"{_CT}Default"):
            if (d.get("Extension") or "").lower() == ext:
                return (d.get("ContentType") or "").lower()
        return None

    def parts(self) -> list[list[tuple[str, int]]]:
        main = self.main_part()
        rels = self.rels(main)
        by_id = {i: t for i, _, t in rels}
        styles = next((t for _, typ, t in rels if typ.endswith("/styles") and t in self.names), None)
        if styles is not None:
            self.styles = _Styles(self.xml(styles))
        self.main = main
        out = [self.part_pieces(main, by_id)]
        extra = []
        for _, typ, target in rels:
            kind = typ.rpartition("/")[2]
            if kind in _PART_ORDER and target in self.names:
                extra.append((_PART_ORDER.index(kind), target))
        for _, target in sorted(set(extra)):
            out.append(self.part_pieces(target, {i: t for i, _, t in self.rels(target)}))
        return out

    def part_pieces(self, name: str, rels: dict[str, str]) -> list[tuple[str, int]]:
        """Pieces of text of one part with their flags, in document order, walked without recursion."""
        from lxml import etree

        root = self.xml(name)
        if name == self.main:
            size = root.find(f"{_W}body/{_W}sectPr/{_W}pgSz")
            w, h = (_int(size.get(f"{_W}w")), _int(size.get(f"{_W}h"))) if size is not None else (None, None)
            if w and h and w > 0 and h > 0:
                self.page_area = w * h * _EMU_PER_TWIP**2
        if root.find(f"{_W}background") is not None:
            self.page_background = _colour(root.find(f"{_W}background"), "color")
        out: list[tuple[str, int]] = []
        entities = 0
        # Per open element that changes what follows: (element, flags, branch mask), both
        # accumulated over the elements below it on the stack.
        stack: list[tuple[object, int, int]] = [(None, 0, _EVERYWHERE)]
        flags, branches = 0, _EVERYWHERE
        para_props = [self.styles.defaults.over(self.styles.style("paragraph", self.styles.default_para))]
        paragraph_base: dict[tuple[str | None, str | None], _Props] = {}
        fields: list[bool] = []  # per open field: still in its code (before "separate")
        ignorable = _ignorable(root)
        walk = etree.iterwalk(root, events=("start", "end"))
        background = self.page_background
        symbol: str | None = None  # the symbol font of the run being read
        for event, el in walk:
            tag = el.tag
            if event == "end":
                if tag == _R:
                    symbol = None
                if stack[-1][0] is el:
                    stack.pop()
                    _, flags, branches = stack[-1]
                if tag == _P:
                    para_props.pop()
                    out.append(("\n", branches | flags))
                continue
            if tag == _T:
                text = el.text or ""
                if len(el):  # entity references (text after one is its tail)
                    for child in el:
                        entities += 1
                        text += child.tail or ""
                out.append((text, branches | flags | (HIDDEN if fields and any(fields) else 0)))
                if symbol is not None and not flags & HIDDEN and model.spells_a_word(text):
                    # its glyphs are pictures or Greek letters: a reader sees no word where the text holds one
                    name = f"docx: words set in the symbol font {symbol}"
                    if name not in self.unmodelled:
                        self.unmodelled.append(name)
            elif tag == _R:
                rpr = el.find(_RPR)
                if rpr is None:
                    props = para_props[-1]
                else:
                    rstyle = rpr.find(_RSTYLE)
                    props = para_props[-1].over(self.styles.style(
                        "character", rstyle.get(_VAL) if rstyle is not None else None)).over(_props(rpr))
                hide = props.hidden(background)
                symbol = props.font if props.font and model.symbol_word_font(props.font) else None
                if hide and not flags & HIDDEN:
                    flags |= HIDDEN
                    stack.append((el, flags, branches))
            elif tag == _P:
                ppr = el.find(_PPR)
                if ppr is None:
                    key: tuple[str | None, str | None] = (self.styles.default_para, None)
                else:
                    pstyle = ppr.find(_PSTYLE)
                    shd = ppr.find(_SHD)
                    key = (pstyle.get(_VAL) if pstyle is not None else self.styles.default_para,
                           _shading(shd) if shd is not None else None)
                base = paragraph_base.get(key)
                if base is None:
                    base = self.styles.defaults.over(self.styles.style("paragraph", key[0]))
                    if key[1]:
                        base = base.over(_Props(background=key[1]))
                    paragraph_base[key] = base
                para_props.append(base)
            elif not isinstance(tag, str):
                continue
            elif not tag.startswith(_W):
                ns = tag[1 : tag.index("}")] if tag.startswith("{") else ""
                if tag == _V_TEXTPATH and el.get("string"):  # WordArt: its text is an attribute
                    out.append(("\n" + el.get("string") + "\n", branches | flags))
                elif tag == f"{_WP}extent" and not flags & HIDDEN and branches & IN_SHOWN and name == self.main:
                    self.picture(el)
                if tag in (_MC_CHOICE, _MC_FALLBACK):
                    branches &= _branch_mask(el)
                    stack.append((el, flags, branches))
                elif (ns in ignorable and ns not in _UNDERSTOOD) or _hidden_drawing(el, ns):
                    flags |= HIDDEN
                    stack.append((el, flags, branches))
            else:
                local = tag[len(_W):]
                if local in _SKIP:
                    walk.skip_subtree()  # properties, and the formatting before a tracked change
                elif local in ("del", "moveFrom"):
                    flags |= DELETED
                    stack.append((el, flags, branches))
                elif local in ("ins", "moveTo"):
                    flags |= INSERTED
                    stack.append((el, flags, branches))
                elif local == "fldChar":
                    kind = el.get(f"{_W}fldCharType")
                    if kind == "begin":
                        fields.append(True)
                    elif kind == "separate" and fields:
                        fields[-1] = False
                    elif kind == "end" and fields:
                        fields.pop()
                elif local == "delText":
                    text = el.text or ""
                    for child in el:
                        entities += 1
                        text += child.tail or ""
                    out.append((text, branches | flags | (HIDDEN if any(fields) else 0)))
                elif local == "tab":
                    out.append(("\t", branches | flags))
                elif local in ("br", "cr"):
                    out.append(("\n", branches | flags))
                elif local == "noBreakHyphen":
                    out.append(("-", branches | flags))
                elif local == "altChunk":
                    out.append(("\n" + self.alt_chunk(el.get(_R_ID) or "", rels) + "\n", branches | flags))
                elif local == "sdt":
                    bound = self.bound_value(el)
                    if bound is not None:  # Word shows the bound value, not the text cached in sdtContent
                        block = el.find(f"{_W}sdtContent/{_P}") is not None
                        out.append((bound + ("\n" if block else ""), branches | flags))
                        walk.skip_subtree()
        if entities:
            self.unreadable.append(
                f"docx-entity: {name}: {entities} entity reference(s) not expanded (a DOCTYPE is not allowed in a .docx)")
        return out

    def picture(self, extent) -> None:  # type: ignore[no-untyped-def]
        """Count a drawing of at least 40% of the page's area (not one behind the text, as a
        watermark is): a scanned page is text a reader sees that no reading holds."""
        frame = extent.getparent()
        if frame is None or (frame.get("behindDoc") or "").lower() in ("1", "true"):
            return
        cx, cy = _int(extent.get("cx")), _int(extent.get("cy"))
        if cx and cy and cx * cy >= _PAGE_SHARE * self.page_area:
            self.big_pictures += 1

    def bound_value(self, sdt) -> str | None:  # type: ignore[no-untyped-def]
        """The value a content control bound to a custom XML part shows (``w:dataBinding``):
        Word fills the control from the part when it opens the document, so the text cached in
        the control is not what a reader sees. None when the control is not bound, or its part
        or node is not found (then the cached text is what Word keeps)."""
        from lxml import etree

        binding = sdt.find(f"{_W}sdtPr/{_W}dataBinding")
        if binding is None:
            return None
        if self.custom_xml is None:
            self.custom_xml = self._custom_xml_parts()
        part = self.custom_xml.get((binding.get(f"{_W}storeItemID") or "").strip("{}").upper())
        xpath = binding.get(f"{_W}xpath") or ""
        if part is None or not xpath or len(xpath) > 2000:
            return None
        prefixes = dict(re.findall(r"""xmlns:([\w.-]+)\s*=\s*['"]([^'"]*)['"]""", binding.get(f"{_W}prefixMappings") or ""))
        try:
            found = self.xml(part).xpath(xpath, namespaces=prefixes)
        except (etree.XPathError, ExtractionError, TypeError, ValueError):
            return None
        if isinstance(found, list):
            if not found:
                return None
            found = found[0]
        return "".join(found.itertext()) if isinstance(found, etree._Element) else str(found)

    def _custom_xml_parts(self) -> dict[str, str]:
        """Custom XML parts by the store item id their properties part gives them."""
        out: dict[str, str] = {}
        for name in self.names:
            m = re.fullmatch(r"(.*)/_rels/([^/]+)\.rels", name)
            if not m or not m.group(1).lower().endswith("customxml"):
                continue
            item = f"{m.group(1)}/{m.group(2)}"
            for _, typ, target in self.rels(item):
                if typ.endswith("/customXmlProps") and target in self.names:
                    ident = self.xml(target).get("{http://schemas.openxmlformats.org/officeDocument/2006/customXml}itemID")
                    if ident and item in self.names:
                        out.setdefault(ident.strip("{}").upper(), item)
        return out

    def alt_chunk(self, rid: str, rels: dict[str, str]) -> str:
        """The text of an altChunk: an embedded HTML, text or .docx part shown in its place."""
        import email
        import email.policy

        target = rels.get(rid)
        if target is None or target not in self.names:
            self.unreadable.append(f"docx-altchunk: altChunk {rid!r} refers to no part of this .docx")
            return ""
        raw = self.member(target)
        if raw.lstrip()[:40].lower().startswith(b"mime-version:"):  # .mht: MIME-wrapped HTML
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            html_part = next((p for p in msg.walk() if p.get_content_type() == "text/html"), None)
            if html_part is None:
                self.unreadable.append(f"docx-altchunk: altChunk {target}: MIME part without HTML")
                return ""
            payload = html_part.get_payload(decode=True)  # bytes: a text/html part is not multipart
            raw = payload if isinstance(payload, bytes) else b""
        fmt = detect_format(raw, target)
        if fmt == "docx" and self.depth >= _MAX_DOCX_DEPTH:
            self.unreadable.append(f"docx-altchunk: altChunk {target}: .docx nested more than {_MAX_DOCX_DEPTH} deep")
            return ""
        if fmt not in ("html", "text", "docx"):
            self.unreadable.append(f"docx-altchunk: altChunk {target}: {binary_kind(raw) or fmt} content is not read")
            return ""
        try:
            ex = extract_docx(raw, self.limits, self.depth + 1) if fmt == "docx" else extract_format(fmt, raw, self.limits)
        except ExtractionError as e:
            if e.code == "empty":
                return ""
            self.unreadable.append(f"docx-altchunk: altChunk {target}: {e}")
            return ""
        if ex.unreadable:
            self.unreadable.append(f"altChunk {target}: {ex.unreadable}")
        self.unmodelled.extend(f"altChunk {target}: {n}" for n in ex.unmodelled)
        return ex.text


_WP = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}"
_EMU_PER_TWIP = 635
_PAGE_SHARE = 0.4  # a drawing this share of a page's area or more is a page-sized picture
_WORDS_PER_PICTURE = 150  # fewer words of text than this per page-sized picture: the text is in the pictures
_VML = "urn:schemas-microsoft-com:vml"
_V_TEXTPATH = "{" + _VML + "}textpath"
_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:visibility\s*:\s*hidden|display\s*:\s*none)\s*(?:;|$)", re.I)


def _hidden_drawing(el, ns: str) -> bool:  # type: ignore[no-untyped-def]
    """A drawing Word does not show: ``wp:docPr hidden="1"`` on an inline or anchored drawing,
    or a VML shape styled ``visibility:hidden`` or ``display:none`` (its text box with it)."""
    if el.tag in (f"{_WP}inline", f"{_WP}anchor"):
        pr = el.find(f"{_WP}docPr")
        return pr is not None and (pr.get("hidden") or "").lower() in ("1", "true")
    return ns == _VML and bool(_HIDDEN_STYLE.search(el.get("style") or ""))


def _ignorable(root) -> frozenset[str]:  # type: ignore[no-untyped-def]
    """Namespaces the part's ``mc:Ignorable`` lists (by prefix, resolved on the root)."""
    prefixes = (root.get(f"{_MC}Ignorable") or "").split()
    return frozenset(root.nsmap[p] for p in prefixes if p in root.nsmap)


def _branch_mask(branch) -> int:  # type: ignore[no-untyped-def]
    """Which readings take this branch of its mc:AlternateContent."""
    alternate = branch.getparent()
    pick = _pick(alternate)
    mask = IN_SHOWN if branch is pick else 0
    if branch.tag == f"{_MC}Fallback":
        return mask | IN_FALLBACK
    first = next((b for b in alternate if b.tag == f"{_MC}Choice"), None)
    if branch is first:
        mask |= IN_CHOICE
    if branch is pick and alternate.find(f"{_MC}Fallback") is None:
        mask |= IN_FALLBACK  # no Fallback to read: the fallback reading takes Word's pick
    return mask


def _pick(alternate) -> object | None:  # type: ignore[no-untyped-def]
    """The branch of an mc:AlternateContent Word shows: the first mc:Choice whose ``Requires``
    namespaces it all understands, else the mc:Fallback (ECMA-376 part 3, 10.2)."""
    for branch in alternate:
        if branch.tag == f"{_MC}Choice":
            prefixes = (branch.get("Requires") or "").split()
            if prefixes and all(branch.nsmap.get(p) in _UNDERSTOOD for p in prefixes):
                return branch
        elif branch.tag == f"{_MC}Fallback":
            return branch
    return None


def _reading(parts: list[list[tuple[str, int]]], need: int, avoid: int) -> str:
    texts = ("".join(t for t, f in pieces if f & need and not f & avoid) for pieces in parts)
    return "\n\n".join(t.strip("\n") for t in texts if t.strip())


def extract_docx(data: bytes, limits: Limits, depth: int = 0) -> Extracted:
    from auditor.extract.pdf import letter_spacing

    reader = _DocxReader(data, limits, depth)
    parts = reader.parts()
    warnings = reader.warnings
    seen = 0
    for pieces in parts:
        for _, f in pieces:
            seen |= f ^ _EVERYWHERE
    if seen:
        texts = {name: _reading(parts, need, avoid) for name, (need, avoid, _) in READINGS.items()}
    else:  # nothing hidden, changed or alternative: every reading is the visible one
        texts = dict.fromkeys(READINGS, _reading(parts, IN_SHOWN, 0))
    logical = None
    if not texts["text"].isascii():  # Word lays out bidi text (overrides, right-to-left runs) for display
        stored = texts["text"]
        shown = {t: display_order(t) for t in set(texts.values())}
        texts = {name: shown[t] for name, t in texts.items()}
        if texts["text"] != stored:
            logical = BIDI_CONTROLS.sub("", stored)
    visible, joined, spaced = letter_spacing(texts["text"])
    if joined:
        warnings.append(f"rejoined {joined} letter-spaced words")
    if spaced:
        reader.unreadable.append(spaced)
    if reader.big_pictures and len(visible.split()) < _WORDS_PER_PICTURE * reader.big_pictures:
        reader.unreadable.append(
            f"docx-image-text: {reader.big_pictures} page-sized picture(s) beside {len(visible.split())} words of "
            "text: text shown as a picture (a scanned page) needs OCR")
    if not visible.strip():
        # Nothing shown (all hidden, deleted or in the branch Word does not pick): the first
        # other reading with words is stored, and the document fails closed.
        other = next((t for t in texts.values() if t.strip()), "")
        if other:
            reader.unreadable.append("docx-hidden: every word of the document is hidden from a reader")
            visible = other
    text = check_text(storable(visible, warnings), ".docx", limits)
    readings = [Reading(name, storable(t, []), why) for name, (_, _, why) in READINGS.items()
                if name != "text" and (t := texts[name]).strip() and t != texts["text"]]
    if logical is not None:
        readings.append(Reading("docx:logical-order", storable(logical, []),
                                "the visible text in the order it is stored, before bidirectional reordering"))
    return Extracted("docx", text, "auditor.docx", auditor_version(), encoding=None, warnings=warnings,
                     unreadable="; ".join(reader.unreadable) or None, readings=readings,
                     meta=dates.recorded(_core_dates(reader)), unmodelled=_unmodelled(reader))


def _unmodelled(reader: _DocxReader) -> list[str]:
    """The package's parts, fonts and properties outside the reader's model (:mod:`.model.docx`),
    and what the documents it holds (altChunks) have outside theirs."""
    types: dict[str, str | None] = {}
    if "[Content_Types].xml" in reader.names:
        root = reader.xml("[Content_Types].xml")
        over = {(o.get("PartName") or "").lstrip("/").lower(): o.get("ContentType") for o in root.iter(f"{_CT}Override")}
        ext = {(d.get("Extension") or "").lower(): d.get("ContentType") for d in root.iter(f"{_CT}Default")}
        types = {n: over.get(n.lower()) or ext.get(n.rpartition(".")[2].lower()) for n in reader.names}
    members = {n: reader.xml(n) for n, k in types.items() if k and "wordprocessingml" in k.lower() and k.endswith("+xml")}
    out = model.Outside()
    model_docx.check(members, types, out)
    out.extend(reader.unmodelled)
    return out.names()


def _core_dates(reader: _DocxReader) -> dict[str, str]:
    """``dcterms:modified`` and ``created`` of ``docProps/core.xml``; metadata never fails a file."""
    try:
        return dates.docx_core(reader.member("docProps/core.xml")) if "docProps/core.xml" in reader.names else {}
    except ExtractionError:
        return {}
