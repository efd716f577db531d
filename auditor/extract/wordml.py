"""Word 2003 XML (WordprocessingML 2003, one ``w:wordDocument`` file) as Word shows it.

Only ``w:t`` holds text; the white space between elements is layout of the XML, so runs join
as Word joins them: "SOFT</w:t></w:r><w:r><w:t>WARE" reads "SOFTWARE". Paragraphs are lines,
``w:tab`` a tab, ``w:br``/``w:cr`` a line. Not shown: hidden runs (``w:vanish``, in the run or
its character or paragraph style), deleted revisions (``w:delText``, ``aml:annotation`` of type
``Word.Deletion``), field codes (``w:instrText``, between a field's ``begin`` and
``separate``), text in the colour of its shading, highlight or the white paper and fonts under 3 pt (directly or by style),
pictures' data (``w:binData``), document properties, comments (``aml:annotation`` of type
``Word.Comment``, drawn beside the text). Footnotes and endnotes, written where they are cited,
and the headers and footers (``w:hdr``, ``w:ftr``) are read after the body. What the document
holds outside the reader's model is named (:mod:`auditor.extract.model.wordml`). Every text is in the reading
``wordml:all-text`` when it differs.
"""

from __future__ import annotations

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
from auditor.extract.model import Outside
from auditor.extract.model import wordml as model_wordml
from auditor.text import dates

refusal("wordml_error", "open it in a word processor, save it again (as .docx or PDF), and ingest that")

NS = "http://schemas.microsoft.com/office/word/2003/wordml"
_W = "{" + NS + "}"
_AML = "{http://schemas.microsoft.com/aml/2001/core}"
_O = "{urn:schemas-microsoft-com:office:office}"
_NEVER = frozenset({_W + "binData", _W + "instrText", _W + "styles", _W + "fonts", _W + "lists",
                    _W + "docPr", _W + "rPr", _W + "pPr", _W + "sectPr", _W + "tblPr", _W + "trPr",
                    _W + "tcPr", _O + "DocumentProperties", _O + "CustomDocumentProperties",
                    _AML + "annotation-props"})
_NOTES = frozenset({_W + "footnote", _W + "endnote"})
_FALSE = ("off", "false", "0")


def _on(el: Any) -> bool:
    return el is not None and (el.get(_W + "val") or "on").lower() not in _FALSE


def _hidden_styles(root: Any) -> set[str]:
    out: set[str] = set()
    styles = root.find(f"{_W}styles")
    if styles is None:
        return out
    parent: dict[str, str] = {}
    for st in styles.iter(_W + "style"):
        sid = st.get(_W + "styleId") or ""
        based = st.find(_W + "basedOn")
        parent[sid] = based.get(_W + "val") or "" if based is not None else ""
        rpr = st.find(f"{_W}rPr")
        if rpr is not None and (_on(rpr.find(_W + "vanish")) or _unseen(rpr)):
            out.add(sid)
    return inherit(out, parent)


def _run_hidden(el: Any, hidden_styles: set[str]) -> bool:
    """Whether a ``w:r`` or ``w:p`` is hidden by its own properties or its style."""
    props = el.find(_W + ("rPr" if el.tag == _W + "r" else "pPr"))
    if props is None:
        return False
    if el.tag == _W + "p":
        style = props.find(_W + "pStyle")  # a hidden paragraph mark (pPr/rPr/vanish) hides no text
        return style is not None and (style.get(_W + "val") or "") in hidden_styles
    style = props.find(_W + "rStyle")
    return _on(props.find(_W + "vanish")) or _on(props.find(_W + "specVanish")) or _unseen(props) or (
        style is not None and (style.get(_W + "val") or "") in hidden_styles)


def _unseen(rpr: Any) -> bool:
    """Text in the colour of what lies under it (its shading or highlight, else the white
    paper), or a font under 3 pt (``w:sz`` in half-points)."""
    from auditor.extract.docx import _HIGHLIGHT, _same_colour

    colour_el = rpr.find(_W + "color")
    colour = _hex((colour_el.get(_W + "val") or "") if colour_el is not None else "")
    under = "FFFFFF"
    highlight, shd = rpr.find(_W + "highlight"), rpr.find(_W + "shd")
    if shd is not None:
        pattern = (shd.get(_W + "val") or "clear").lower()
        under = (_hex(shd.get(_W + "color") or "") or "000000") if pattern == "solid" else (
            _hex(shd.get(_W + "fill") or "") or ("808080" if pattern not in ("clear", "nil") else under))
    if highlight is not None:
        under = _HIGHLIGHT.get((highlight.get(_W + "val") or "none").lower(), under)
    size = rpr.find(_W + "sz")
    try:
        tiny = size is not None and int(size.get(_W + "val") or "24") < 6
    except ValueError:
        tiny = False
    return (colour is not None and _same_colour(colour, under)) or tiny


def _hex(val: str) -> str | None:
    """A colour value as RRGGBB (``white`` too), None for ``auto`` or no colour."""
    val = {"white": "FFFFFF"}.get(val.lower(), val).upper()
    return val if len(val) == 6 and all(c in "0123456789ABCDEF" for c in val) else None


def is_wordml(root_tag: tuple[str, str] | None) -> bool:
    return root_tag == (NS, "wordDocument")


def extract_wordml(data: bytes, limits: Limits) -> Extracted:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
                             remove_pis=True, remove_comments=True)
    try:
        root = etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError) as e:
        raise ExtractionError("wordml_error", f"unreadable Word 2003 XML: {e}") from e
    body = root.find(_W + "body")
    if body is None:
        raise ExtractionError("wordml_error", "a Word 2003 XML document without w:body")
    hidden_styles = _hidden_styles(root)
    shown: list[str] = []
    every: list[str] = []
    notes: list[tuple[list[str], list[str]]] = []
    outs = [(shown, every)]
    stack: list[tuple[bool, bool, bool]] = []  # (hides, never, a note)
    hidden = never = 0
    fields: list[bool] = []  # per open field: still in its code

    def put(text: str) -> None:
        if never:
            return
        s, e = outs[-1]
        if not hidden and not (fields and fields[-1]):
            s.append(text)
        e.append(text)

    def walk(top: Any) -> None:
        for event, el in etree.iterwalk(top, events=("start", "end")):
            step(event, el)

    def step(event: str, el: Any) -> None:
        nonlocal hidden, never
        tag = el.tag
        if not isinstance(tag, str):
            return
        if event == "start":
            is_never = tag in _NEVER
            hides = (tag == _W + "delText" or (tag in (_W + "r", _W + "p") and _run_hidden(el, hidden_styles))
                     or (tag == _AML + "annotation" and el.get(_W + "type") in ("Word.Deletion", "Word.Comment")))
            note = tag in _NOTES
            stack.append((hides, is_never, note))
            never += is_never
            hidden += hides
            if note:
                notes.append(([], []))
                outs.append(notes[-1])
            if tag in (_W + "t", _W + "delText") and el.text:
                put(el.text)
            elif tag == _W + "tab":
                put("\t")
            elif tag in (_W + "br", _W + "cr"):
                put("\n")
            elif tag == _W + "fldChar":
                kind = el.get(_W + "fldCharType")
                if kind == "begin":
                    fields.append(True)
                elif kind == "separate" and fields:
                    fields[-1] = False
                elif kind == "end" and fields:
                    fields.pop()
        else:
            if tag == _W + "p":
                put("\n")
            hides, is_never, note = stack.pop()
            never -= is_never
            hidden -= hides
            if note:
                outs.pop()

    walk(body)
    for part in body.iter(_W + "hdr", _W + "ftr"):  # drawn on every page: read after the body
        notes.append(([], []))
        outs.append(notes[-1])
        walk(part)
        outs.pop()

    def join(parts: list[str], extra: list[list[str]]) -> str:
        text = "\n".join(ln.strip() for ln in "".join(parts).split("\n") if ln.strip())
        more = ["\n".join(ln.strip() for ln in "".join(n).split("\n") if ln.strip()) for n in extra]
        more = [m for m in more if m]
        return text + ("\n\n" + "\n".join(more) if more else "")

    warnings: list[str] = []
    text = check_text(storable(join(shown, [n[0] for n in notes]), warnings), "Word 2003 XML document", limits)
    all_text = join(every, [n[1] for n in notes])
    readings = []
    if all_text.split() != text.split():
        readings.append(Reading("wordml:all-text", storable(all_text, warnings),
                                "every text, hidden runs and deleted revisions included"))
    found = {}
    props = root.find(_O + "DocumentProperties")
    if props is not None:
        for name, key in (("LastSaved", "wordml:modified"), ("Created", "wordml:created")):
            el = props.find(_O + name)
            if el is not None and (el.text or "").strip():
                found[key] = (el.text or "").strip()[:dates.MAX_RAW]
    outside = Outside()
    model_wordml.check(root, outside)
    return Extracted("wordml", text, "auditor.extract.wordml", auditor_version(), encoding="utf-8",
                     warnings=warnings, readings=readings, meta=dates.recorded(found), unmodelled=outside.names())
