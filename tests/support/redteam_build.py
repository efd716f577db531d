"""Builders for the red team's disguised documents (benchmarks/redteam.py): HTML pages, .docx
packages, hand-written PDFs and EDGAR submissions, each made by code here from a text, so every
byte of a case is known and nothing is copied in from elsewhere.

The PDFs are drawn in Courier (every glyph 600/1000 em wide), so the position of each word is
known and a junk word can be drawn exactly between two visible ones. Zip members carry a fixed
date, so a case's bytes are the same on every run.
"""

from __future__ import annotations

import base64
import binascii
import html
import io
import re
import urllib.parse
import zipfile
import zlib
from collections.abc import Callable, Sequence
from xml.sax.saxutils import escape as xml_escape

JUNK = ("quartz", "lumen", "vortex", "saffron", "ember", "tundra", "cobalt", "zephyr",
        "garnet", "willow", "obsidian", "marmot", "juniper", "falcon", "glacier", "nutmeg")


def paragraphs(text: str) -> list[str]:
    """The text's paragraphs (blank-line separated), each on one line, words single-spaced."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def lines_of(text: str, width: int = 80) -> list[str]:
    """The text's words wrapped into lines of at most ``width`` characters, paragraphs kept apart
    by an empty line."""
    out: list[str] = []
    for para in paragraphs(text):
        line = ""
        for w in para.split(" "):
            if line and len(line) + 1 + len(w) > width:
                out.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        out.append(line)
        out.append("")
    return out[:-1]


def junk_after(words: Sequence[str], every: int = 1, upto: float = 1.0) -> list[str | None]:
    """Which junk word (or None) follows each of ``words``: one after every ``every``-th word,
    in the first ``upto`` share of the words only."""
    limit = round(len(words) * upto)
    return [JUNK[i % len(JUNK)] if (i + 1) % every == 0 and i < limit else None for i in range(len(words))]


# -- HTML ---------------------------------------------------------------------------------------

def esc(text: str) -> str:
    return html.escape(text, quote=True)


def page(body: str, head: str = "", title: str = "Exhibit 10.1", lang: str = "en") -> bytes:
    return (f"<!DOCTYPE html>\n<html lang='{lang}'><head><meta charset='utf-8'><title>{esc(title)}</title>{head}"
            f"</head>\n<body>\n{body}\n</body></html>\n").encode()


def html_paras(text: str, tag: str = "p") -> str:
    return "\n".join(f"<{tag}>{esc(p)}</{tag}>" for p in paragraphs(text))


def html_junk(text: str, hide: Callable[[str], str], every: int = 1, upto: float = 1.0) -> str:
    """The text as paragraphs with ``hide(junk)`` markup after the chosen words."""
    out = []
    words_all = [w for p in paragraphs(text) for w in p.split(" ")]
    junk = iter(junk_after(words_all, every, upto))
    for p in paragraphs(text):
        pieces = []
        for w in p.split(" "):
            pieces.append(esc(w))
            j = next(junk)
            if j is not None:
                pieces.append(hide(j))
        out.append("<p>" + " ".join(pieces) + "</p>")
    return "\n".join(out)


def data_url(mime: str, data: str | bytes, b64: bool = True) -> str:
    raw = data.encode() if isinstance(data, str) else data
    if b64:
        return f"data:{mime};base64," + base64.b64encode(raw).decode()
    return f"data:{mime}," + urllib.parse.quote(raw)


def svg_lines(text: str, width: int = 900, size: int = 14, chars: int = 100) -> tuple[str, int]:
    """An SVG document drawing the text line by line as <text> elements, and its height."""
    lines = lines_of(text, chars)
    lead = size + 6
    body = "".join(f"<text x='4' y='{(i + 1) * lead}' font-family='serif' font-size='{size}'>{esc(line)}</text>"
                   for i, line in enumerate(lines) if line)
    height = (len(lines) + 1) * lead
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}'>{body}</svg>", height)


def css_string(text: str) -> str:
    """A CSS string literal holding ``text``."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\A ") + '"'


def css_escaped(text: str) -> str:
    """A CSS string literal with every character written as a hexadecimal escape."""
    return '"' + "".join(f"\\{ord(c):x} " for c in text) + '"'


# -- .docx --------------------------------------------------------------------------------------

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NAMESPACES = {
    "w": W_NS,
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "wp": "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "pic": "http://schemas.openxmlformats.org/drawingml/2006/picture",
    "wps": "http://schemas.microsoft.com/office/word/2010/wordprocessingShape",
    "v": "urn:schemas-microsoft-com:vml",
    "o": "urn:schemas-microsoft-com:office:office",
    "w10": "urn:schemas-microsoft-com:office:word",
    "w14": "http://schemas.microsoft.com/office/word/2010/wordml",
    "x1": "http://example.com/redteam/unknown-extension",
}
_MAIN_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_DATE = (1980, 1, 1, 0, 0, 0)


def run(text: str, rpr: str = "") -> str:
    props = f"<w:rPr>{rpr}</w:rPr>" if rpr else ""
    return f'<w:r>{props}<w:t xml:space="preserve">{xml_escape(text)}</w:t></w:r>'


def para(runs: str, ppr: str = "") -> str:
    return f"<w:p>{f'<w:pPr>{ppr}</w:pPr>' if ppr else ''}{runs}</w:p>"


def docx_paras(text: str, rpr: str = "", ppr: str = "") -> str:
    return "".join(para(run(p, rpr), ppr) for p in paragraphs(text))


def docx_junk(text: str, hidden: Callable[[str], str], every: int = 1, ppr: str = "") -> str:
    """Paragraphs of the text, ``hidden(junk)`` (run markup) after the chosen words."""
    out = []
    words_all = [w for p in paragraphs(text) for w in p.split(" ")]
    junk = iter(junk_after(words_all, every))
    for p in paragraphs(text):
        pieces = []
        for w in p.split(" "):
            pieces.append(run(w + " "))
            j = next(junk)
            if j is not None:
                pieces.append(hidden(j + " "))
        out.append(para("".join(pieces), ppr))
    return "".join(out)


def document_xml(body: str, background: str = "") -> str:
    ns = " ".join(f'xmlns:{k}="{v}"' for k, v in NAMESPACES.items())
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {ns} mc:Ignorable="w14">'
            f"{background}<w:body>{body}<w:sectPr><w:pgSz w:w=\"12240\" w:h=\"15840\"/>"
            '<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440"/></w:sectPr></w:body></w:document>')


def styles_xml(styles: str = "", defaults: str = "") -> str:
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:styles xmlns:w="{W_NS}">'
            f"<w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val=\"22\"/>{defaults}</w:rPr></w:rPrDefault></w:docDefaults>"
            f'<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
            f"{styles}</w:styles>")


def zip_bytes(members: Sequence[tuple[str, bytes | str]]) -> bytes:
    """A zip of the members in order (names may repeat), with a fixed date: the same bytes each run."""
    import warnings

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a repeated name is the point of some cases
        for name, data in members:
            info = zipfile.ZipInfo(name, _DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return buf.getvalue()


def docx(body: str, *, styles: str | None = None, main: str = "word/document.xml", parts: dict[str, str] | None = None,
         rels: str = "", overrides: str = "", background: str = "", settings: str | None = None,
         decoy_main: str | None = None, duplicate: str | None = None, defaults: str = "") -> bytes:
    """A .docx whose main part (``main``, found through _rels/.rels) holds ``body``.

    ``parts``: more members, related from the main part by ``rels`` (Relationship elements);
    ``decoy_main``: a body stored as word/document.xml when the main part is elsewhere;
    ``duplicate``: a body stored as a second zip entry of the main part's name, after the first.
    """
    folder, _, base = main.rpartition("/")
    rel_parts = [f'<Relationship Id="rIdStyles" Type="{_REL_NS}/styles" Target="styles.xml"/>']
    if settings is not None:
        rel_parts.append(f'<Relationship Id="rIdSettings" Type="{_REL_NS}/settings" Target="settings.xml"/>')
    main_rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.'
                 'openxmlformats.org/package/2006/relationships">' + "".join(rel_parts) + rels + "</Relationships>")
    content_types = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Default Extension="png" ContentType="image/png"/>'
        f'<Override PartName="/{main}" ContentType="{_MAIN_CT}"/>'
        f'<Override PartName="/{folder}/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'wordprocessingml.styles+xml"/>'
        + (f'<Override PartName="/{folder}/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.'
           'wordprocessingml.settings+xml"/>' if settings is not None else "")
        + overrides + "</Types>")
    package_rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.'
                    f'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{_REL_NS}/officeDocument" '
                    f'Target="{main}"/></Relationships>')
    members: list[tuple[str, bytes | str]] = [("[Content_Types].xml", content_types), ("_rels/.rels", package_rels)]
    if decoy_main is not None:
        members.append(("word/document.xml", document_xml(decoy_main)))
    members.append((main, document_xml(body, background)))
    if duplicate is not None:
        members.append((main, document_xml(duplicate, background)))
    members.append((f"{folder}/_rels/{base}.rels", main_rels))
    members.append((f"{folder}/styles.xml", styles_xml(styles or "", defaults)))
    if settings is not None:
        members.append((f"{folder}/settings.xml", f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                                                  f'<w:settings xmlns:w="{W_NS}">{settings}</w:settings>'))
    for name, data in (parts or {}).items():
        members.append((name, data))
    return zip_bytes(members)


# -- PDF ----------------------------------------------------------------------------------------

SIZE, ADV, LEAD = 10, 6.0, 12  # Courier 10 pt: every glyph 6 pt wide
LEFT, RIGHT, TOP, BOTTOM = 50.0, 562.0, 740.0, 60.0


def pdf_esc(word: str) -> bytes:
    return word.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1", "replace")


def pdf_layout(text: str, gap: int = 0) -> list[list[tuple[float, float, str]]]:
    """(x, y, word) of each word, page by page, in reading order; ``gap`` characters left free
    after each word (for a junk word a reader must not see over the next one)."""
    pages: list[list[tuple[float, float, str]]] = [[]]
    x, y = LEFT, TOP
    for p in paragraphs(text):
        for w in p.split(" "):
            width = (len(w) + 1 + gap) * ADV
            if x + len(w) * ADV > RIGHT:
                x, y = LEFT, y - LEAD
            if y < BOTTOM:
                pages.append([])
                x, y = LEFT, TOP
            pages[-1].append((x, y, w))
            x += width
        x, y = LEFT, y - 2 * LEAD
        if y < BOTTOM:
            pages.append([])
            x, y = LEFT, TOP
    return [p for p in pages if p]


def at(x: float, y: float, word: str, size: float = SIZE, font: bytes = b"/F1") -> bytes:
    return b"BT %s %g Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n" % (font, size, x, y, pdf_esc(word))


def pdf_text_ops(text: str) -> list[bytes]:
    """One content stream per page drawing the text in Courier, in reading order."""
    return [b"".join(at(x, y, w) for x, y, w in pg) for pg in pdf_layout(text)]


def pdf_junk_ops(text: str, hide: Callable[[float, float, str], bytes], gap: int = 0,
                 every: int = 1) -> list[bytes]:
    """The text's words, ``hide(x, y, junk)`` after the chosen ones, drawn where the next word
    starts (``gap`` 0: under it) or in the gap left for it."""
    layout = pdf_layout(text, gap)
    words_all = [w for pg in layout for _, _, w in pg]
    junk = iter(junk_after(words_all, every))
    out = []
    for pg in layout:
        ops = []
        for x, y, w in pg:
            ops.append(at(x, y, w))
            j = next(junk)
            if j is not None:
                ops.append(hide(x + (len(w) + 1) * ADV, y, j))
        out.append(b"".join(ops))
    return out


def serialize_pdf(objs: Sequence[bytes], root: int = 1) -> bytes:
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, root, xref)
    return bytes(out)


def stream(data: bytes, extra: bytes = b"") -> bytes:
    packed = zlib.compress(data, 9)
    return b"<< /Length %d /Filter /FlateDecode%s >>\nstream\n" % (len(packed), extra) + packed + b"\nendstream"


def pdf(pages: Sequence[bytes], *, resources: bytes = b"", objects: Sequence[bytes] = (),
        annots: Sequence[Sequence[int]] | None = None, page_extra: bytes = b"", font_extra: bytes = b"",
        catalog_extra: bytes = b"", fonts: bytes = b"", basefont: bytes = b"Courier") -> bytes:
    """A PDF of pages drawing the given content streams, Courier as /F1.

    ``objects`` are numbered from ``first_object(len(pages))`` on; ``annots[i]`` lists indexes
    into ``objects`` for page i's annotations.
    """
    n = len(pages)
    base = first_object(n)
    objs: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R%s >>" % catalog_extra,
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (5 + 2 * i) for i in range(n)), n),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding%s >>" % (basefont, font_extra)]
    for i, content in enumerate(pages):
        objs.append(stream(content))
        ann = b""
        if annots and annots[i]:
            ann = b" /Annots [%s]" % b" ".join(b"%d 0 R" % (base + k) for k in annots[i])
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]%s /Resources << /Font << /F1 3 0 R %s >> %s >> "
                    b"/Contents %d 0 R%s >>" % (page_extra, fonts, resources, 4 + 2 * i, ann))
    objs.extend(objects)
    return serialize_pdf(objs, 1)


def first_object(n_pages: int) -> int:
    """The number of the first extra object of a PDF of ``n_pages`` pages (see :func:`pdf`)."""
    return 4 + 2 * n_pages


def to_unicode(mapping: dict[int, str]) -> bytes:
    entries = b"".join(b"<%02X> <%s>\n" % (code, "".join(f"{ord(c):04X}" for c in s).encode())
                       for code, s in sorted(mapping.items()))
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def "
            b"1 begincodespacerange <00> <FF> endcodespacerange\n%d beginbfchar\n%sendbfchar\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end" % (len(mapping), entries))
    return b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream"


def page_image(text: str, dpi: int = 100) -> tuple[bytes, int, int]:
    """The text set on a Letter page as a scanner would see it: 8-bit grey pixels, width, height.

    Drawn with Pillow in DejaVu Sans when the system has it (Pillow's own font otherwise), in the
    same lines the Courier pages use, so a page of the image holds what a page of text holds.
    """
    from PIL import Image, ImageDraw, ImageFont

    scale = dpi / 72
    w, h = round(612 * scale), round(792 * scale)
    img = Image.new("L", (w, h), 255)
    draw = ImageDraw.Draw(img)
    try:
        font = ImageFont.truetype("DejaVuSans.ttf", round(9 * scale))
    except OSError:
        font = ImageFont.load_default(round(9 * scale))
    for x, y, word in pdf_layout(text)[0]:
        draw.text((x * scale, (792 - y - SIZE) * scale), word, fill=0, font=font)
    return img.tobytes(), w, h


def image_xobject(pixels: bytes, width: int, height: int) -> bytes:
    return stream(pixels, b" /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                          b"/BitsPerComponent 8" % (width, height))


def outlined_ops(text: str, font_path: str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf") -> bytes:
    """The first page of the text drawn as filled glyph outlines (no text object), as a program
    that "converts text to outlines" draws it; needs the DejaVu Sans font file."""
    from fontTools.pens.basePen import BasePen
    from fontTools.ttLib import TTFont

    font = TTFont(font_path)
    glyphs = font.getGlyphSet()
    cmap = font.getBestCmap()
    units = font["head"].unitsPerEm
    out: list[bytes] = []

    class Pen(BasePen):
        def __init__(self, ox: float, oy: float, k: float) -> None:
            super().__init__(glyphs)
            self.ox, self.oy, self.k = ox, oy, k

        def pt(self, p: tuple[float, float]) -> bytes:
            return b"%.2f %.2f" % (self.ox + p[0] * self.k, self.oy + p[1] * self.k)

        def _moveTo(self, p):  # type: ignore[no-untyped-def]
            out.append(self.pt(p) + b" m\n")

        def _lineTo(self, p):  # type: ignore[no-untyped-def]
            out.append(self.pt(p) + b" l\n")

        def _curveToOne(self, p1, p2, p3):  # type: ignore[no-untyped-def]
            out.append(self.pt(p1) + b" " + self.pt(p2) + b" " + self.pt(p3) + b" c\n")

        def _closePath(self):  # type: ignore[no-untyped-def]
            out.append(b"h\n")

    k = 9 / units
    for x, y, word in pdf_layout(text)[0]:
        pos = x
        for ch in word:
            name = cmap.get(ord(ch))
            if name is None:
                pos += ADV
                continue
            glyph = glyphs[name]
            glyph.draw(Pen(pos, y, k))
            out.append(b"f\n")
            pos += glyph.width * k
    return b"".join(out)


# -- EDGAR --------------------------------------------------------------------------------------

EDGAR_HEADER = {"accession_number": "0000950170-24-012345", "form_type": "8-K", "filing_date": "20240315",
                "company_name": "NORTHWIND HOLDINGS INC", "cik": "0001234567"}


def uuencode(data: bytes, name: str) -> bytes:
    lines = [b"begin 644 %s\n" % name.encode()]
    lines += [binascii.b2a_uu(data[i : i + 45]) for i in range(0, len(data), 45)]
    lines.append(b"`\nend\n")
    return b"".join(lines)


def submission(documents: Sequence[dict], header: dict | None = None, style: str = "sec-document") -> bytes:
    """An EDGAR full submission (modern keyed header, or the tagged ``<SUBMISSION>`` form): each
    document a dict of type, filename, optional description, and ``text`` (bytes placed in its
    <TEXT>) or ``data`` (uuencoded; a PDF wrapped in <PDF>)."""
    h = {**EDGAR_HEADER, **(header or {})}
    body = bytearray()
    for i, doc in enumerate(documents, 1):
        body += b"<DOCUMENT>\n<TYPE>%s\n<SEQUENCE>%d\n<FILENAME>%s\n" % (doc["type"].encode(), i, doc["filename"].encode())
        if doc.get("description"):
            body += b"<DESCRIPTION>%s\n" % doc["description"].encode()
        body += b"<TEXT>\n"
        if "data" in doc:
            coded = uuencode(doc["data"], doc["filename"])
            body += b"<PDF>\n" + coded + b"</PDF>\n" if doc["filename"].lower().endswith(".pdf") else coded
        else:
            text = doc["text"]
            body += text if isinstance(text, bytes) else text.encode()
            if not body.endswith(b"\n"):
                body += b"\n"
        body += b"</TEXT>\n</DOCUMENT>\n"
    if style == "submission":
        head = (f"<SUBMISSION>\n<ACCESSION-NUMBER>{h['accession_number']}\n<TYPE>{h['form_type']}\n"
                f"<PUBLIC-DOCUMENT-COUNT>{len(documents)}\n<FILING-DATE>{h['filing_date']}\n<FILER>\n<COMPANY-DATA>\n"
                f"<CONFORMED-NAME>{h['company_name']}\n<CIK>{h['cik']}\n</COMPANY-DATA>\n</FILER>\n")
        return head.encode() + bytes(body) + b"</SUBMISSION>\n"
    acc, date = h["accession_number"], h["filing_date"]
    head = (f"<SEC-DOCUMENT>{acc}.txt : {date}\n<SEC-HEADER>{acc}.hdr.sgml : {date}\n"
            f"<ACCEPTANCE-DATETIME>{date}160541\nACCESSION NUMBER:\t\t{acc}\n"
            f"CONFORMED SUBMISSION TYPE:\t{h['form_type']}\nPUBLIC DOCUMENT COUNT:\t\t{len(documents)}\n"
            f"FILED AS OF DATE:\t\t{date}\nDATE AS OF CHANGE:\t\t{date}\n\nFILER:\n\n\tCOMPANY DATA:\t\n"
            f"\t\tCOMPANY CONFORMED NAME:\t\t\t{h['company_name']}\n\t\tCENTRAL INDEX KEY:\t\t\t{h['cik']}\n"
            f"</SEC-HEADER>\n")
    return head.encode() + bytes(body) + b"</SEC-DOCUMENT>\n"
