"""Legacy word-processor formats, each read by the converter its readers use.

- Word 97-2003 ``.doc`` (an OLE2 compound file with a ``WordDocument`` stream): antiword
  (Debian's ``antiword``), as Free Law Project's doctor reads court opinions. It shows what
  Word shows in its final view: hidden text and deleted revisions are left out. With them in
  (``antiword -s -r``) is the reading ``doc:all-text`` when it differs.
- WordPerfect ``.wpd`` (``\\xffWPC``): libwpd's ``wpd2text`` (Debian's ``libwpd-tools``).
- RTF: striprtf (pure Python). Footnotes, headers, footers and text boxes, which striprtf drops
  with other destinations, are read after the body, as in a .docx; field codes are left out (a hyperlink shows its text, not
  its address). Hidden text (``\\v``) and tracked deletions
  (``\\deleted``) are not modelled: such a document fails closed (``rtf-hidden:``), as the
  gate cannot tell which words a reader sees.

Converters run under the extraction's limits (:mod:`.convert`); each result records the
converter and its version as the extractor. Other OLE2 files (an Excel workbook, a
PowerPoint deck, an Outlook .msg) are refused with what they are and what to do.
"""

from __future__ import annotations

import io
import re

from auditor.errors import ExtractionError, refusal
from auditor.extract import convert
from auditor.extract.common import Extracted, Limits, Reading, check_text, storable, version_of
from auditor.extract.model import Outside
from auditor.extract.model import rtf as model_rtf
from auditor.text import dates

# -- OLE2 -----------------------------------------------------------------------------------------

refusal("rtf_error", "open it in a word processor, save it again (as .docx or PDF), and ingest that")
refusal("rtf-hidden", "open it in a word processor, print it to PDF (what a reader sees), and ingest that")

_OLE_WHAT = {
    "xls": ("an Excel 97-2003 workbook (.xls)", "nothing to do: its cells hold figures and labels, not prose; "
                                                "if its text matters, save it as PDF and ingest that"),
    "ppt": ("a PowerPoint 97-2003 deck (.ppt)", "save it as PDF and ingest the PDF"),
    "msg": ("an Outlook message (.msg)", "save it from Outlook as .eml (or print it to PDF) and ingest that"),
    "ole": ("an OLE2 compound file that is no Word document", "convert it to PDF and ingest the PDF"),
}


def ole_kind(data: bytes) -> str:
    """What an OLE2 compound file holds, by its streams: ``doc`` (a ``WordDocument`` stream),
    ``xls``, ``ppt``, ``msg``, or ``ole`` (anything else or unreadable)."""
    import olefile

    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            names = {"/".join(e).lower() for e in ole.listdir(streams=True, storages=True)}
    except Exception:  # olefile raises many kinds on a damaged directory
        return "ole"
    if "worddocument" in names:
        return "doc"
    if "workbook" in names or "book" in names:
        return "xls"
    if "powerpoint document" in names:
        return "ppt"
    if any(n.startswith("__substg1.0_") for n in names):
        return "msg"
    return "ole"


def refuse_ole(kind: str) -> ExtractionError:
    what, fix = _OLE_WHAT.get(kind, _OLE_WHAT["ole"])
    return ExtractionError(f"binary:{kind}", f"{what}: not read here", fix=fix)


_ANTIWORD = ("antiword", "antiword", "a Word 97-2003 document (.doc)")


def antiword_version() -> str:
    return convert.tool_version("antiword", (), r"Version:\s*([\w.]+)")


def extract_doc(data: bytes, limits: Limits) -> Extracted:
    """A Word 97-2003 document as antiword reads it, from its DocBook output (``-x db``): a
    table cell by cell (its plain output wraps cells into columns, interleaving their words),
    footnotes after the body, the document properties (``bookinfo``) left out but its date."""
    tool, package, what = _ANTIWORD
    warnings: list[str] = []
    shown, found = _docbook(convert.run(tool, package, what, ["-x", "db"], data, ".doc", limits))
    text = check_text(storable(shown, warnings), "Word document", limits)
    readings = []
    everything, _ = _docbook(convert.run(tool, package, what, ["-x", "db", "-s", "-r"], data, ".doc", limits))
    if everything.split() != text.split():
        readings.append(Reading("doc:all-text", storable(everything, warnings),
                                "hidden text and deleted revisions in, as antiword -s -r shows them"))
    return Extracted("doc", text, "antiword", antiword_version(), encoding="utf-8", warnings=warnings,
                     readings=readings, meta=dates.recorded(found))


_DB_BLOCK = frozenset({"para", "title", "entry", "row", "listitem", "simpara", "member", "term"})
_DB_WS = re.compile(r"\s+")
_SEP = "\x1e"  # between blocks; antiword's own line breaks inside a block are white space


def _utf8(raw: bytes) -> bytes:
    """antiword writes a character beyond the BMP as two UTF-8-encoded surrogates (CESU-8),
    which XML parsers drop with their paragraph: joined here into the character."""
    try:
        text = raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
    if any("\ud800" <= c <= "\udfff" for c in text):
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.encode("utf-8")


def _docbook(xml: bytes) -> tuple[str, dict[str, str]]:
    """The text of antiword's DocBook output: blocks as lines, footnotes after the body; and
    its date (``doc:date``, the document's own date as Word stored it)."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, recover=True,
                             huge_tree=False)
    try:
        root = etree.fromstring(_utf8(xml), parser)
    except (etree.XMLSyntaxError, ValueError) as e:
        raise ExtractionError("convert_error", f"antiword wrote unreadable DocBook: {e}") from e
    if root is None:
        raise ExtractionError("empty", "Word document has no text")
    found: dict[str, str] = {}
    date = root.find("bookinfo/date")
    if date is not None and (date.text or "").strip():
        found["doc:date"] = (date.text or "").strip()[:dates.MAX_RAW]
    body: list[str] = []
    notes: list[list[str]] = []
    outs = [body]
    skip = 0
    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            if tag == "bookinfo" or (tag == "title" and el.getparent() is root):
                skip += 1
            elif tag == "footnote":
                notes.append([])
                outs.append(notes[-1])
            if not skip and el.text:
                outs[-1].append(el.text)
        else:
            if tag == "bookinfo" or (tag == "title" and el.getparent() is root):
                skip -= 1
            elif tag == "footnote":
                outs.pop()
            elif tag in _DB_BLOCK and not skip:
                outs[-1].append(_SEP)
            if not skip and el.tail and el is not root:
                outs[-1].append(el.tail)

    def lines(parts: list[str]) -> str:
        blocks = (_DB_WS.sub(" ", b).strip() for b in "".join(parts).split(_SEP))
        return "\n".join(b for b in blocks if b)

    more = [m for m in (lines(n) for n in notes) if m]
    return lines(body) + ("\n\n" + "\n".join(more) if more else ""), found


# -- WordPerfect ----------------------------------------------------------------------------------

def is_wordperfect(data: bytes) -> bool:
    return data.startswith(b"\xffWPC")


def extract_wpd(data: bytes, limits: Limits) -> Extracted:
    """A WordPerfect document as libwpd's wpd2text reads it."""
    out = convert.run("wpd2text", "libwpd-tools", "a WordPerfect document (.wpd)", [], data, ".wpd", limits)
    warnings: list[str] = []
    text = check_text(storable(_clean(out.decode("utf-8", "replace")), warnings), "WordPerfect document", limits)
    version = convert.tool_version("wpd2text", ("--version",), r"wpd2text\s+([\w.]+)")
    return Extracted("wpd", text, "wpd2text", version, encoding="utf-8", warnings=warnings)


_BLANKS = re.compile(r"[ \t\f\v]+\n")
_MANY_LINES = re.compile(r"\n{3,}")


def _clean(text: str) -> str:
    """Trailing blanks of lines and runs of empty lines removed: layout, not words."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")
    return _MANY_LINES.sub("\n\n", _BLANKS.sub("\n", text)).strip()


# -- RTF ------------------------------------------------------------------------------------------

_NOTE_OPEN, _NOTE_CLOSE = "\ue000", "\ue001"
_FOOTNOTE = re.compile(r"\{\s*(?:\\\*\s*)?\\(?:footnote|header[lrf]?|footer[lrf]?|shptxt)(?![a-z])", re.I)
_SHAPE = re.compile(r"\{\s*\\shp(?![a-z])", re.I)
_PAGE_STYLES = re.compile(r"\{\s*\\\*\s*\\pgdsctbl(?![a-z])", re.I)
_HIDDEN = re.compile(r"\\(v|deleted|webhidden)(?![a-z])(?!0)")
_NOTES = re.compile(f"{_NOTE_OPEN}(.*?){_NOTE_CLOSE}", re.S)


_COLORTBL = re.compile(r"\{\\colortbl\s*;?([^{}]*)\}", re.I)


def _unseen(rtf: str) -> list[str]:
    """Text coloured white by the colour table (``\\cfN``): a construct that hides words from a
    reader. (Text set under 3 pt is named by the model, :mod:`auditor.extract.model.rtf`, where
    words are set so: a 2 pt empty spacer paragraph hides nothing.)"""
    found = []
    m = _COLORTBL.search(rtf)
    if m:
        entries = m.group(1).split(";")
        white = [i + 1 for i, e in enumerate(entries)
                 if re.search(r"\\red255", e) and re.search(r"\\green255", e) and re.search(r"\\blue255", e)]
        found += [f"\\cf{i} (white)" for i in white if re.search(rf"\\cf{i}(?![0-9])", rtf)]
    return found  # text under 3 pt: the model finds the words set so (model/rtf.py), not every size


def _group_end(rtf: str, start: int) -> int:
    """The index just after the ``}`` closing the group that opens at ``rtf[start]``."""
    depth, i, n = 0, start, len(rtf)
    while i < n:
        c = rtf[i]
        if c == "\\":
            m = re.match(r"\\bin(\d{1,9})\s?", rtf[i:i + 16])
            i += m.end() + int(m.group(1)) if m else 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _text_boxes(rtf: str) -> str:
    """Each shape (``{\\shp ...}``) that holds a text box: its ``\\shptxt`` group in its place,
    the rest (properties, the old readers' ``\\shprslt``) left out. LibreOffice's own page
    styles (``\\*\\pgdsctbl``, which repeat the headers) are left out too."""
    out, pos = [], 0
    for m in _PAGE_STYLES.finditer(rtf):
        if m.start() >= pos:
            out.append(rtf[pos:m.start()])
            pos = _group_end(rtf, m.start())
    rtf, out, pos = "".join(out) + rtf[pos:], [], 0
    for m in _SHAPE.finditer(rtf):
        if m.start() < pos:
            continue
        end = _group_end(rtf, m.start())
        box = re.search(r"\{\s*\\shptxt(?![a-z])", rtf[m.start():end], re.I)
        out.append(rtf[pos:m.start()])
        if box:
            b = m.start() + box.start()
            out.append(rtf[b:_group_end(rtf, b)])
        pos = end
    out.append(rtf[pos:])
    return "".join(out)


def _mark_footnotes(rtf: str) -> str:
    """Each footnote, header, footer and text box group turned into plain text between two
    private-use marks (written as RTF ``\\u`` escapes), so the converter keeps its words and
    they can be moved after the body."""
    out, pos = [], 0
    for m in _FOOTNOTE.finditer(rtf):
        if m.start() < pos:
            continue  # a footnote inside a footnote: already inside the marks
        end = _group_end(rtf, m.start())
        out.append(rtf[pos:m.start()])
        out.append("{\\u57344?" + rtf[m.end():end - 1] + "\\u57345?}")
        pos = end
    out.append(rtf[pos:])
    return "".join(out)


_FIELD_CODE = re.compile(r"\{\s*\\\*\s*\\fldinst(?![a-z])", re.I)


def _drop_field_codes(rtf: str) -> str:
    """Field codes (``{\\*\\fldinst ...}``) left out, as Word shows a field's result only:
    striprtf would otherwise write a hyperlink's address after its text."""
    out, pos = [], 0
    for m in _FIELD_CODE.finditer(rtf):
        if m.start() < pos:
            continue
        out.append(rtf[pos:m.start()])
        pos = _group_end(rtf, m.start())
    out.append(rtf[pos:])
    return "".join(out)


def extract_rtf(data: bytes, limits: Limits) -> Extracted:
    """An RTF document's text as striprtf reads it, footnotes after the body."""
    from striprtf.striprtf import rtf_to_text

    rtf = data.decode("latin-1")  # RTF is 7-bit; 8-bit bytes keep their value, \'xx escapes decode
    warnings: list[str] = []
    unreadable = None
    hidden = [f"\\{h}" for h in sorted({m.group(1) for m in _HIDDEN.finditer(rtf)})] + _unseen(rtf)
    if hidden:
        unreadable = ("rtf-hidden: the document uses " + ", ".join(hidden)
                      + " (hidden or white text, or tracked deletions), which this reader does not model: "
                      "it cannot tell which words a reader sees")
    try:
        raw = rtf_to_text(_mark_footnotes(_text_boxes(_drop_field_codes(rtf))), errors="replace")
    except (ValueError, LookupError, IndexError) as e:
        raise ExtractionError("rtf_error", f"unreadable RTF: {type(e).__name__}: {e}") from e
    notes = [n.strip() for n in _NOTES.findall(raw) if n.strip()]
    body = _NOTES.sub("", raw).replace(_NOTE_OPEN, "").replace(_NOTE_CLOSE, "")
    text = _clean(body) + ("\n\n" + "\n".join(notes) if notes else "")
    text = check_text(storable(text, warnings), "RTF document", limits)
    outside = Outside()
    model_rtf.check(rtf, outside)
    return Extracted("rtf", text, "striprtf", version_of("striprtf"), encoding="latin-1", warnings=warnings,
                     unreadable=unreadable, unmodelled=outside.names())
