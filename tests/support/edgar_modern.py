"""A modern EDGAR submission, built as the SEC's EDGAR system assembles an 8-K since 2019: the
primary document (inline XBRL), a GRAPHIC logo, the XBRL schema and linkbases, the viewer's
pages (``R1.htm``, ``R2.htm``), Financial_Report.xlsx, Show.js, report.css, FilingSummary.xml,
MetaLinks.json, the XBRL zip and the XBRL instance. The parts' layouts follow the real filings
of edgartools' fixtures (0001213900-25-032135, an 8-K of 2025).

``hide`` puts a text in one kind of part, where such a part holds words: a label of the label
linkbase, a text block of the instance, a viewer page, a JSON string, a script's string, a style
sheet's comment, the spreadsheet's cells, a member of the XBRL zip, a picture of a page (drawn
with Pillow at a legible size) as the GRAPHIC. The tests hide a stored contract (the part must
be found) or an unrelated agreement (the part must pass).
"""

from __future__ import annotations

import io
import json
from xml.sax.saxutils import escape

from tests.support import redteam_build as b
from tests.support import synth

#: the part kinds ``hide`` knows, and the SEQUENCE of the part that holds the text
KINDS = {"label": 5, "text-block": 14, "viewer": 7, "json": 12, "script": 10, "style": 11, "xlsx": 9, "zip": 13,
         "picture": 2}
PREFIX = "acme-20240620"


def _schema() -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" '
            'xmlns:link="http://www.xbrl.org/2003/linkbase" targetNamespace="http://acme.example/20240620">\n'
            '<xs:annotation><xs:appinfo><link:roleType roleURI="http://acme.example/role/Cover" id="Cover">'
            '<link:definition>0000001 - Document - Cover</link:definition></link:roleType></xs:appinfo>'
            '</xs:annotation>\n<xs:element name="MaterialAgreementTextBlock" id="acme_MaterialAgreementTextBlock" '
            'type="xs:string" substitutionGroup="xbrli:item" nillable="true"/>\n</xs:schema>\n')


def _labels(extra: str) -> str:
    labels = [("dei_DocumentType", "Document Type"), ("dei_EntityRegistrantName", "Entity Registrant Name"),
              ("dei_EntityCentralIndexKey", "Entity Central Index Key"),
              ("acme_MaterialAgreementTextBlock", "Material Agreement [Text Block]")]
    rows = "\n".join(f'<link:label xlink:type="resource" xlink:label="lab_{n}" xlink:role="http://www.xbrl.org/2003/'
                     f'role/label" xml:lang="en-US">{escape(t)}</link:label>' for n, t in labels)
    if extra:
        rows += ('\n<link:label xlink:type="resource" xlink:label="lab_acme_doc" xlink:role="http://www.xbrl.org/'
                 f'2003/role/documentation" xml:lang="en-US">{escape(extra)}</link:label>')
    return ('<?xml version="1.0" encoding="utf-8"?>\n<link:linkbase xmlns:link="http://www.xbrl.org/2003/linkbase" '
            'xmlns:xlink="http://www.w3.org/1999/xlink">\n<link:labelLink xlink:type="extended" '
            f'xlink:role="http://www.xbrl.org/2003/role/link">\n{rows}\n</link:labelLink>\n</link:linkbase>\n')


def _presentation() -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<link:linkbase xmlns:link="http://www.xbrl.org/2003/linkbase" '
            'xmlns:xlink="http://www.w3.org/1999/xlink">\n<link:presentationLink xlink:type="extended" '
            'xlink:role="http://acme.example/role/Cover">\n<link:loc xlink:type="locator" '
            'xlink:href="https://xbrl.sec.gov/dei/2024/dei-2024.xsd#dei_DocumentType" xlink:label="loc_1"/>\n'
            '</link:presentationLink>\n</link:linkbase>\n')


def _instance(block: str) -> str:
    html = "".join(f"<p>{escape(p)}</p>" for p in b.paragraphs(block))
    return ('<?xml version="1.0" encoding="utf-8"?>\n<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" '
            'xmlns:dei="http://xbrl.sec.gov/dei/2024" xmlns:acme="http://acme.example/20240620">\n'
            '<xbrli:context id="c-1"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000950170'
            '</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>2024-06-20</xbrli:startDate>'
            '<xbrli:endDate>2024-06-20</xbrli:endDate></xbrli:period></xbrli:context>\n'
            '<dei:DocumentType contextRef="c-1">8-K</dei:DocumentType>\n'
            '<dei:EntityRegistrantName contextRef="c-1">Acme Holdings Inc.</dei:EntityRegistrantName>\n'
            f'<acme:MaterialAgreementTextBlock contextRef="c-1">{escape(html)}</acme:MaterialAgreementTextBlock>\n'
            '</xbrli:xbrl>\n')


def _viewer(title: str, body: str) -> str:
    rows = "".join(f'<tr><td class="text">{escape(p)}<span></span></td></tr>' for p in b.paragraphs(body))
    return ('<html>\n<head>\n<title></title>\n<link rel="stylesheet" type="text/css" href="include/report.css">\n'
            '<script type="text/javascript" src="Show.js">/* Do Not Remove This Comment */</script>\n</head>\n<body>\n'
            '<span style="display: none;">v3.24.2</span><table class="report" border="0" cellspacing="2" id="id1">\n'
            f'<tr><th class="tl" colspan="1" rowspan="1"><div style="width: 200px;"><strong>{escape(title)}<br></strong>'
            f'</div></th></tr>\n{rows}\n</table>\n</body>\n</html>\n')


def _script(extra: str) -> str:
    text = ("// Edgar(tm) Renderer was created by staff of the U.S. Securities and Exchange Commission.\n"
            "var Show={};Show.LastAR=null,Show.showAR=function(a,r,w){if(Show.LastAR)Show.hideAR();"
            "var e=a;while(e&&e.nodeName!='TABLE')e=e.nextSibling;if(e)e.style.display='block';Show.LastAR=e};\n")
    if extra:
        text += "var notes=[\n" + ",\n".join(json.dumps(p) for p in b.paragraphs(extra)) + "];\n"
    return text


def _style(extra: str) -> str:
    text = ("/* Updated 2009-11-04 */\n/* v2.2.0.24 */\n\n/* DefRef Styles */\n..report table.authRefData{\n"
            "\tbackground-color: #def;\n\tborder: 2px solid #2F4497;\n\tfont-size: 1em;\n\tposition: absolute;\n}\n")
    if extra:
        text += "/*\n" + extra + "\n*/\n"
    return text


def _filing_summary() -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<FilingSummary>\n<Version>3.24.2</Version>\n'
            '<ProcessingTime />\n<ReportFormat>Html</ReportFormat>\n<ContextCount>1</ContextCount>\n<MyReports>\n'
            '<Report instance="acme_8k.htm"><IsDefault>false</IsDefault><HtmlFileName>R1.htm</HtmlFileName>'
            '<LongName>0000001 - Document - Cover</LongName><ShortName>Cover</ShortName>'
            '<MenuCategory>Cover</MenuCategory><Position>1</Position></Report>\n</MyReports>\n</FilingSummary>\n')


def _metalinks(extra: str) -> str:
    tag = {"xbrltype": "stringItemType", "nsuri": "http://acme.example/20240620", "localname": "MaterialAgreement",
           "presentation": ["http://acme.example/role/Cover"],
           "lang": {"en-us": {"role": {"label": "Material Agreement", "documentation": extra or "Material agreement."}}}}
    data = {"version": "2.2", "instance": {"acme_8k.htm": {"nsprefix": "acme", "dei": "http://xbrl.sec.gov/dei/2024",
                                                           "tag": {"acme_MaterialAgreement": tag}}}}
    return json.dumps(data, indent=1)


def xlsx(rows: list[list[str]]) -> bytes:
    """A minimal Office Open XML workbook of one sheet, its strings in the shared-string table,
    which lists them in reverse order (a reader sees the cells, not the table)."""
    strings = sorted({v for row in rows for v in row if v}, reverse=True)
    index = {s: i for i, s in enumerate(strings)}
    cols = "ABCDEFGHIJ"
    cells = "".join(f'<row r="{r}">' + "".join(f'<c r="{cols[c]}{r}" t="s"><v>{index[v]}</v></c>'
                                               for c, v in enumerate(row) if v) + "</row>"
                    for r, row in enumerate(rows, 1))
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    members = [
        ("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                                'content-types"><Default Extension="xml" ContentType="application/xml"/></Types>'),
        ("_rels/.rels", '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                        f'relationships"><Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/>'
                        '</Relationships>'),
        ("xl/workbook.xml", f'<?xml version="1.0"?><workbook xmlns="{main}" xmlns:r="{rel}"><sheets>'
                            '<sheet name="Cover" sheetId="1" r:id="rId1"/></sheets></workbook>'),
        ("xl/_rels/workbook.xml.rels", '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
                                       f'package/2006/relationships"><Relationship Id="rId1" Type="{rel}/worksheet" '
                                       'Target="worksheets/sheet1.xml"/></Relationships>'),
        ("xl/worksheets/sheet1.xml", f'<?xml version="1.0"?><worksheet xmlns="{main}"><sheetData>{cells}</sheetData>'
                                     '</worksheet>'),
        ("xl/sharedStrings.xml", f'<?xml version="1.0"?><sst xmlns="{main}" count="{len(strings)}">'
                                 + "".join(f"<si><t>{escape(s)}</t></si>" for s in strings) + "</sst>"),
    ]
    return b.zip_bytes(members)


def picture(text: str, *, width: int = 1100, size: int = 20, fmt: str = "JPEG") -> bytes:
    """The text drawn black on white at a legible size (``size`` pixels), wrapped to the width:
    a page of a contract, a logo."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=size)
    per_line = max(10, int(width / (size * 0.52)))
    lines = [line for p in b.paragraphs(text) for line in [*b.lines_of(p, per_line), ""]] or [""]
    height = 2 * size + int(len(lines) * size * 1.4)
    image = Image.new("L", (width + 2 * size, height), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((size, size + int(i * size * 1.4)), line, fill=0, font=font)
    out = io.BytesIO()
    image.save(out, fmt, **({"quality": 92} if fmt == "JPEG" else {}))
    return out.getvalue()


def submission(seed: int, hide: dict[str, str] | None = None, accession: str = "0000950170-24-070001") -> bytes:
    """A modern 8-K (see the module's docstring) whose own words come from ``seed``; ``hide``
    maps a part kind (a key of ``KINDS``) to the text it holds besides its usual content."""
    hide = dict(hide or {})
    unknown = set(hide) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown part kinds {sorted(unknown)}")
    company = synth.filing_company(seed)
    cover = (f"UNITED STATES SECURITIES AND EXCHANGE COMMISSION\n\nFORM 8-K\n\nCURRENT REPORT\n\n"
             f"{company['name']}\n\nItem 1.01 Entry into a Material Definitive Agreement.\n\n"
             + synth.contract(seed, 2_500, kind=synth.CONTRACT_KINDS[seed % len(synth.CONTRACT_KINDS)]))
    primary = ('<html><head><title>8-K</title></head><body>' + b.html_paras(cover)
               + '<p><img src="acme_logo.jpg" alt="Acme logo"></p></body></html>')
    block = "The Company entered into an agreement on June 20, 2024."
    instance = _instance(block + " " + hide.get("text-block", ""))
    labels = _labels(hide.get("label", ""))
    logo = picture(hide["picture"], size=22) if "picture" in hide else picture("ACME HOLDINGS", width=360, size=36)
    zip_extra = [("acme-notes_lab.xml", _labels(hide["zip"]))] if "zip" in hide else []
    # the zip holds the filing's XBRL again (the tests hide a text in one part at a time: not here)
    xbrl_zip = b.zip_bytes([(f"{PREFIX}.xsd", _schema()), (f"{PREFIX}_lab.xml", _labels("")),
                            (f"{PREFIX}_pre.xml", _presentation()), ("acme_8k_htm.xml", _instance(block)),
                            ("acme_8k.htm", primary), *zip_extra])
    rows = [["Cover", "Jun. 20, 2024"], ["Document Type", "8-K"], ["Entity Registrant Name", company["name"]]]
    rows += [[p, ""] for p in b.paragraphs(hide.get("xlsx", ""))]

    def xbrl(text: str) -> str:
        return f"<XBRL>\n{text}</XBRL>\n"

    docs = [
        {"type": "8-K", "filename": "acme_8k.htm", "description": "CURRENT REPORT", "text": primary},
        {"type": "GRAPHIC", "filename": "acme_logo.jpg", "description": "GRAPHIC", "data": logo},
        {"type": "EX-101.SCH", "filename": f"{PREFIX}.xsd", "description": "XBRL SCHEMA FILE", "text": xbrl(_schema())},
        {"type": "EX-101.PRE", "filename": f"{PREFIX}_pre.xml", "description": "XBRL PRESENTATION FILE",
         "text": xbrl(_presentation())},
        {"type": "EX-101.LAB", "filename": f"{PREFIX}_lab.xml", "description": "XBRL LABEL FILE", "text": xbrl(labels)},
        {"type": "XML", "filename": "R1.htm", "description": "IDEA: XBRL DOCUMENT",
         "text": _viewer("Cover", f"Document Type 8-K. Entity Registrant Name {company['name']}.")},
        {"type": "XML", "filename": "R2.htm", "description": "IDEA: XBRL DOCUMENT",
         "text": _viewer("Material Agreement", block + "\n\n" + hide.get("viewer", ""))},
        {"type": "XML", "filename": "FilingSummary.xml", "description": "IDEA: XBRL DOCUMENT",
         "text": xbrl(_filing_summary())},
        {"type": "EXCEL", "filename": "Financial_Report.xlsx", "description": "IDEA: XBRL DOCUMENT", "data": xlsx(rows)},
        {"type": "XML", "filename": "Show.js", "description": "IDEA: XBRL DOCUMENT", "text": _script(hide.get("script", ""))},
        {"type": "XML", "filename": "report.css", "description": "IDEA: XBRL DOCUMENT", "text": _style(hide.get("style", ""))},
        {"type": "JSON", "filename": "MetaLinks.json", "description": "IDEA: XBRL DOCUMENT",
         "text": _metalinks(hide.get("json", ""))},
        {"type": "ZIP", "filename": f"{accession}-xbrl.zip", "description": "IDEA: XBRL DOCUMENT", "data": xbrl_zip},
        {"type": "XML", "filename": "acme_8k_htm.xml", "description": "IDEA: XBRL DOCUMENT", "text": xbrl(instance)},
    ]
    assert [docs[n - 1]["filename"] for n in (KINDS["viewer"], KINDS["zip"], KINDS["text-block"])] == [
        "R2.htm", f"{accession}-xbrl.zip", "acme_8k_htm.xml"]
    return b.submission(docs, {"accession_number": accession, "form_type": "8-K", "company_name": company["name"],
                               "cik": company["cik"]})



def part(submission_bytes: bytes, sequence: int) -> tuple[str, bytes]:
    """The file name and content of part ``sequence`` of a submission (its <TEXT> unwrapped)."""
    from auditor.extract import edgar

    doc = edgar.parse(submission_bytes).documents[sequence - 1]
    content = edgar.content(doc.raw)
    return str(doc.meta.get("filename") or ""), content.payload
