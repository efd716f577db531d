"""Builders for test inputs: PDFs, EDGAR submissions, .docx files and encoded texts.

Every fixture is made by code at test time, so the tests document exactly what each input
contains and no third-party file (with unknown licence or content) enters the repository.
"""

from __future__ import annotations

import binascii
import io
import os
import re
import zipfile
import zlib
from collections.abc import Sequence
from xml.sax.saxutils import escape

__all__ = [
    "make_docx",
    "make_edgar_submission",
    "make_pdf",
    "make_raw_pdf",
    "make_scanned_pdf",
    "serialize_pdf",
    "uuencode",
]


def make_pdf(
    pages: Sequence[str],
    path: str | os.PathLike | None = None,
    encrypt_password: str | None = None,
) -> bytes:
    """A real PDF (fpdf2, core Helvetica font) with one page per string; latin-1 text only.

    With ``encrypt_password`` the file needs that user password to open (RC4 encryption).
    """
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.set_compression(True)
    for text in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", size=11)
        if text:
            pdf.multi_cell(0, 6, text)
    if encrypt_password is not None:
        pdf.set_encryption(owner_password=encrypt_password + "-owner", user_password=encrypt_password)
    data = bytes(pdf.output())
    if path is not None:
        with open(path, "wb") as f:
            f.write(data)
    return data


def scan_images(text: str, *, seed: int = 0, dpi: int = 200, skew: float = 0.6, noise: float = 0.004,
                words_per_line: int = 11, lines_per_page: int = 38) -> list:
    """Pages of ``text`` as a scanner gives them: grayscale Pillow images of a US letter page at
    ``dpi``, the text set in Pillow's own font (it ships with Pillow), turned by ``skew`` degrees
    and sprinkled with ``noise`` (a share of the pixels, flipped dark or light). Seeded: the same
    arguments give the same pixels."""
    import random

    from PIL import Image, ImageDraw, ImageFont

    rng = random.Random(seed)
    font = ImageFont.load_default(size=round(dpi * 11 / 72))
    words = text.split()
    lines = [" ".join(words[i : i + words_per_line]) for i in range(0, len(words), words_per_line)]
    pages = []
    for start in range(0, len(lines), lines_per_page):
        img = Image.new("L", (round(8.5 * dpi), 11 * dpi), 255)
        draw = ImageDraw.Draw(img)
        y = dpi
        for line in lines[start : start + lines_per_page]:
            draw.text((dpi, y), line, fill=20, font=font)
            y += round(dpi * 16 / 72)
        img = img.rotate(skew, resample=Image.Resampling.BICUBIC, fillcolor=255)
        px = img.load()
        assert px is not None
        for _ in range(int(noise * img.width * img.height)):
            x, y = rng.randrange(img.width), rng.randrange(img.height)
            px[x, y] = 0 if rng.random() < 0.5 else 255
        pages.append(img)
    return pages


def make_scanned_pdf(text: str, **scan: object) -> bytes:
    """An image-only PDF of ``text`` (fpdf2 wraps each page image of :func:`scan_images` in a
    page of its own size): no text layer, as a scanner writes one."""
    from fpdf import FPDF

    pdf = FPDF(unit="in", format="letter")
    pdf.set_auto_page_break(auto=False)
    for img in scan_images(text, **scan):  # type: ignore[arg-type]
        pdf.add_page()
        pdf.image(img, x=0, y=0, w=8.5, h=11)
    return bytes(pdf.output())


def make_pdf_with_pictures(pages: Sequence[str | None], *, seed: int = 0) -> bytes:
    """A PDF (fpdf2) whose pages are text (a string, as :func:`make_pdf` sets it) or, for None, a
    picture over the whole page with no text layer (seeded gray noise): a page that only OCR
    could read, and that OCR reads as nothing (a map, a photograph)."""
    import random

    from fpdf import FPDF
    from PIL import Image

    rng = random.Random(seed)
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    for text in pages:
        pdf.add_page()
        if text is None:
            img = Image.frombytes("L", (120, 170), bytes(rng.randrange(256) for _ in range(120 * 170)))
            pdf.image(img, x=0, y=0, w=210, h=297)
        else:
            pdf.set_font("Helvetica", size=11)
            pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


def make_raw_pdf(contents: Sequence[bytes], *, repeat: int = 1, flate: bool = False) -> bytes:
    """A minimal hand-written PDF whose pages draw the given raw content streams.

    For inputs fpdf2 will not make: pathological content (tens of thousands of glyphs), stream
    bombs (``flate=True`` compresses each stream, so a huge stream stays a small file), and
    ``repeat`` pages sharing one content stream (a long document in a few kilobytes).
    """
    objs: list[bytes] = []

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    catalog = add(b"")  # filled in once the page tree exists
    pages_id = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids: list[int] = []
    for content in contents:
        stream = zlib.compress(content, 9) if flate else content
        filt = b" /Filter /FlateDecode" if flate else b""
        cid = add(b"<< /Length %d%s >>\nstream\n" % (len(stream), filt) + stream + b"\nendstream")
        for _ in range(repeat):
            kids.append(add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (pages_id, font, cid)
            ))
    objs[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
    objs[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    return serialize_pdf(objs, catalog, header=b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")


def serialize_pdf(objs: Sequence[bytes], root: int = 1, *, header: bytes = b"%PDF-1.4\n") -> bytes:
    """A PDF file of the objects ``objs`` (numbered from 1), with its xref table and trailer."""
    out = bytearray(header)
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, root, xref)
    return bytes(out)


def text_content(lines: Sequence[str], size: int = 11) -> bytes:
    """A content stream showing ``lines`` of ASCII text down a page."""
    ops = [b"BT /F1 %d Tf 72 720 Td %d TL" % (size, size + 3)]
    for line in lines:
        esc = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(b"(%s) Tj T*" % esc.encode("latin-1"))
    ops.append(b"ET")
    return b"\n".join(ops)


def uuencode(data: bytes, name: str, mode: str = "644") -> bytes:
    """``begin``/``end`` uuencoding in 45-byte lines, as EDGAR embeds binary documents."""
    lines = [b"begin %s %s\n" % (mode.encode(), name.encode())]
    lines += [binascii.b2a_uu(data[i : i + 45]) for i in range(0, len(data), 45)]
    lines.append(b"`\nend\n")
    return b"".join(lines)


_EDGAR_KEYS = {
    "accession_number": "ACCESSION NUMBER",
    "form_type": "CONFORMED SUBMISSION TYPE",
    "period": "CONFORMED PERIOD OF REPORT",
    "filing_date": "FILED AS OF DATE",
}


def make_edgar_submission(header: dict, documents: Sequence[dict], *, style: str = "sec-document") -> bytes:
    """An EDGAR full-submission text file.

    ``header``: accession_number, form_type, filing_date, optional period, company_name, cik and
    optional ``filers`` (a list of (name, cik) for further entities). ``documents``: dicts with
    type, sequence (default: position), filename, optional description, and either ``text``
    (str, placed verbatim inside ``<TEXT>``) or ``data`` (bytes, uuencoded; PDFs also wrapped
    in ``<PDF>`` as EDGAR does). ``close=False`` on a document leaves it unclosed.
    ``filers`` entries may carry a role as a third item ("SUBJECT COMPANY", "FILED BY",
    "REPORTING-OWNER", "ISSUER"...; default FILER).
    ``style``: "sec-document" (modern keyed header), "submission" (tagged ``<SUBMISSION>``
    form), "nc" (the tagged form with lone CR line ends, as the SEC's daily feed writes it),
    "condensed" (the tagged form with no line break between tags, header and document tags
    alike), "bare" (the documents alone, no envelope) or "pem" (1990s ``<IMS-DOCUMENT>``
    inside a privacy-enhanced-message wrapper).
    """
    acc = header["accession_number"]
    date = header["filing_date"]
    filers = [(header["company_name"], header["cik"], "FILER"),
              *((*f[:2], f[2] if len(f) > 2 else "FILER") for f in header.get("filers", []))]
    body = bytearray()
    for i, doc in enumerate(documents, 1):
        body += b"<DOCUMENT>\n<TYPE>%s\n<SEQUENCE>%s\n<FILENAME>%s\n" % (
            doc["type"].encode(), str(doc.get("sequence", i)).encode(), doc["filename"].encode())
        if doc.get("description"):
            body += b"<DESCRIPTION>%s\n" % doc["description"].encode()
        body += b"<TEXT>\n"
        if "data" in doc:
            coded = uuencode(doc["data"], doc["filename"])
            if doc["filename"].lower().endswith(".pdf"):
                coded = b"<PDF>\n" + coded + b"</PDF>\n"
            body += coded
        else:
            text = doc["text"]
            body += text.encode("latin-1") if isinstance(text, str) else text
            if not body.endswith(b"\n"):
                body += b"\n"
        if doc.get("close", True):
            body += b"</TEXT>\n</DOCUMENT>\n"
    n = len(documents)
    if style == "bare":
        return bytes(body)
    if style in ("submission", "nc", "condensed"):
        head = [
            "<SUBMISSION>",
            f"<ACCESSION-NUMBER>{acc}",
            f"<TYPE>{header['form_type']}",
            f"<PUBLIC-DOCUMENT-COUNT>{n}",
            *([f"<PERIOD>{header['period']}"] if header.get("period") else []),
            f"<FILING-DATE>{date}",
            f"<DATE-OF-FILING-DATE-CHANGE>{date}",
        ]
        for name, cik, role in filers:
            tag = role.replace(" ", "-")
            data = "OWNER-DATA" if tag == "REPORTING-OWNER" else "COMPANY-DATA"
            head += [f"<{tag}>", f"<{data}>", f"<CONFORMED-NAME>{name}", f"<CIK>{cik}",
                     "<ASSIGNED-SIC>6798", "<FISCAL-YEAR-END>1231", f"</{data}>", "<FILING-VALUES>",
                     f"<FORM-TYPE>{header['form_type']}", "<ACT>34", "</FILING-VALUES>", f"</{tag}>"]
        out = ("\n".join(head) + "\n").encode("latin-1") + bytes(body) + b"</SUBMISSION>\n"
        if style == "nc":
            return out.replace(b"\n", b"\r")
        if style == "condensed":  # no line break between tags outside the documents' <TEXT>
            pieces = re.split(rb"(<TEXT>.*?</TEXT>)", out, flags=re.S)
            return b"".join(p if p.startswith(b"<TEXT>") else re.sub(rb"\n(?=<|\Z)", b"", p) for p in pieces)
        return out
    envelope = "IMS" if style == "pem" else "SEC"
    head = [f"<{envelope}-DOCUMENT>{acc}.txt : {date}", f"<{envelope}-HEADER>{acc}.hdr.sgml : {date}"]
    if envelope == "SEC":
        head.append(f"<ACCEPTANCE-DATETIME>{date}160541")
    values = {**header, "public_document_count": str(n)}
    for key, label in [*_EDGAR_KEYS.items(), ("public_document_count", "PUBLIC DOCUMENT COUNT")]:
        if values.get(key):
            head.append(f"{label}:\t\t{values[key]}")
    head.append(f"DATE AS OF CHANGE:\t\t{date}")
    for name, cik, role in filers:
        data = "OWNER DATA" if role == "REPORTING-OWNER" else "COMPANY DATA"
        head += ["", f"{role}:", "", f"\t{data}:\t", f"\t\tCOMPANY CONFORMED NAME:\t\t\t{name}",
                 f"\t\tCENTRAL INDEX KEY:\t\t\t{cik}", "\t\tSTANDARD INDUSTRIAL CLASSIFICATION:\tREAL ESTATE INVESTMENT TRUSTS [6798]",
                 "", "\tBUSINESS ADDRESS:\t", "\t\tSTREET 1:\t\t100 MAIN STREET", "\t\tCITY:\t\t\tSPRINGFIELD"]
    head.append(f"</{envelope}-HEADER>")
    out = ("\n".join(head) + "\n").encode("latin-1") + bytes(body) + f"</{envelope}-DOCUMENT>\n".encode()
    if style == "pem":
        out = (b"-----BEGIN PRIVACY-ENHANCED MESSAGE-----\nProc-Type: 2001,MIC-CLEAR\n"
               b"Originator-Name: webmaster@www.sec.gov\nOriginator-Key-Asymmetric:\n"
               b" MFgwCgYEVQgBAQICAf8DSgAwRwJAW2sNKK9AVtBzYZmr6aGjlWyK3XmZv3dTINen\n"
               b"MIC-Info: RSA-MD5,RSA,\n AYIo6CHhmXU1lhOUjBg7p1G0PsEcBpRJAEYLAwvQ==\n\n"
               + out + b"-----END PRIVACY-ENHANCED MESSAGE-----\n")
    return out


_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    "</Types>"
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
    "</Relationships>"
)
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _run_xml(text: str) -> str:
    """Runs for one paragraph: tabs become <w:tab/>, newlines <w:br/>, as Word writes them."""
    out = []
    for i, line in enumerate(text.split("\n")):
        if i:
            out.append("<w:r><w:br/></w:r>")
        for j, piece in enumerate(line.split("\t")):
            if j:
                out.append("<w:r><w:tab/></w:r>")
            if piece:
                out.append(f'<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">{escape(piece)}</w:t></w:r>')
    return "".join(out)


_PART_TYPES = {"footnotes": "footnotes", "endnotes": "endnotes", "comments": "comments",
               "header": "header", "footer": "footer", "styles": "styles"}


def part_relationships(names: Sequence[str], more: str = "") -> bytes:
    """word/_rels/document.xml.rels relating the notes, comments, headers, footers and styles
    among ``names`` to the main part (Word shows only parts it is related to), plus ``more``."""
    rels = []
    for i, name in enumerate(sorted(names)):
        folder, _, base = name.rpartition("/")
        kind = base.split(".")[0].rstrip("0123456789")
        if folder == "word" and base.endswith(".xml") and kind in _PART_TYPES:
            rels.append(f'<Relationship Id="rIdPart{i}" Type="http://schemas.openxmlformats.org/'
                        f'officeDocument/2006/relationships/{_PART_TYPES[kind]}" Target="{base}"/>')
    return ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            'relationships">' + "".join(rels) + more + "</Relationships>").encode()


def make_docx(paragraphs: Sequence[str], *, document_xml: str | None = None,
              extra_files: dict[str, bytes] | None = None) -> bytes:
    """A minimal valid .docx (zipfile) with one ``w:p`` per paragraph.

    ``document_xml`` replaces the generated word/document.xml (for hostile XML);
    ``extra_files`` adds zip members (for zip bombs); notes, comments, headers, footers and
    styles among them are related to the main part unless ``extra_files`` has its own
    word/_rels/document.xml.rels.
    """
    if document_xml is None:
        body = "".join(f"<w:p>{_run_xml(p)}</w:p>" for p in paragraphs)
        document_xml = (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<w:document xmlns:w="{_W}"><w:body>{body}<w:sectPr/></w:body></w:document>'
        )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("word/document.xml", document_xml)
        extra = dict(extra_files or {})
        if extra and "word/_rels/document.xml.rels" not in extra:
            extra["word/_rels/document.xml.rels"] = part_relationships(list(extra))
        for name, data in extra.items():
            z.writestr(name, data)
    return buf.getvalue()
