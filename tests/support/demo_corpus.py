"""The generator of the bundled demo corpus (``tools/build_demo.py`` writes what it builds into
``auditor/demo/files/corpus.zip``, which ``auditor demo`` unpacks): a small corpus assembled from
overlapping sources.

The story it tells: an EDGAR 10-K submission carries a lease as exhibit EX-10.1 and a supply
agreement inside its HTML body; a data room holds the same lease as a PDF; a vendor feed holds a
consulting agreement reformatted, which a 10-Q filing also quotes in full; some contracts appear
nowhere else, one only half; one contract was saved twice; a snippet is too short to sample; one
PDF is corrupt. The audit must find exactly the containments, and say why it skipped the rest.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from tests.support import synth

LEASE_SEED = 9001


def lease_text() -> str:
    return synth.contract(LEASE_SEED, 16_000, kind="lease")


def lease_pdf() -> bytes:
    """The demo lease as a data room would hold it: a confidential-copy line on each page,
    upper-case headings, 92 columns, 52 lines a page (fpdf2, the test extra)."""
    from fpdf import FPDF

    lines = synth.rewrap(synth.upper_headings(lease_text()), 92).split("\n")
    pdf = FPDF(format="Letter")
    pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=UTC))
    pdf.set_auto_page_break(auto=False)
    for n, i in enumerate(range(0, len(lines), 52)):
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(0, 4.8, f"CONFIDENTIAL - DATA ROOM COPY - page {n + 1}\n\n" + "\n".join(lines[i:i + 52]))
    return bytes(pdf.output())


def build_corpus(root: Path) -> dict[str, int]:
    """Write the demo corpus under ``root`` (replacing it); returns file counts per source."""
    if root.exists():
        shutil.rmtree(root)
    edgar, room, vendor, files = root / "edgar", root / "data-room", root / "vendor-feed", root / "filings"
    for d in (edgar, room, vendor, files):
        d.mkdir(parents=True)
    lease = lease_text()
    supply = synth.contract(9002, 22_000, kind="supply")
    consulting = synth.contract(9003, 18_000, kind="consulting")
    others = [synth.contract(9100 + i, 12_000 + 3_000 * i) for i in range(4)]
    body, _ = synth.filing(9201, 300_000, exhibits=[supply])
    company = synth.filing_company(9201)
    html_body = synth.to_html(body, f"{company['name']} Form 10-K")
    (edgar / "0000950170-24-000123.txt").write_bytes(_submission(company, html_body, lease))
    tenq, _ = synth.filing(9202, 160_000, exhibits=[consulting])
    (files / "quarterly-report-10q.txt").write_text(tenq)
    half, _ = synth.filing(9203, 120_000, exhibits=[synth.partial(others[0], 0.5, 1)])
    (files / "current-report-8k.txt").write_text(half)
    (room / "lease-data-room.pdf").write_bytes(lease_pdf())
    (room / "corrupt-scan.pdf").write_bytes(b"%PDF-1.4\n%broken upload\n1 0 obj <<" + bytes(64))
    (vendor / "consulting-agreement.htm").write_text(synth.to_html(synth.reformat(consulting, 3), "Consulting Agreement"))
    for i, text in enumerate(others):
        (room / f"agreement-{i + 1}.txt").write_text(text)
    (room / "supply-agreement.txt").write_text(supply)
    (vendor / "agreement-1-copy.txt").write_text(others[0].replace("\n", "\r\n"))
    words = supply.split()
    (vendor / "clause-snippet.txt").write_text(" ".join(words[400:440]) + "\n")
    return {d.name: sum(1 for _ in d.iterdir()) for d in (edgar, room, vendor, files)}


def _submission(company: dict[str, str], html_body: str, lease: str) -> bytes:
    acc = "0000950170-24-000123"
    head = "\n".join([
        f"<SEC-DOCUMENT>{acc}.txt : 20240301",
        f"<SEC-HEADER>{acc}.hdr.sgml : 20240301",
        "ACCESSION NUMBER:\t\t" + acc,
        "CONFORMED SUBMISSION TYPE:\t10-K",
        "PUBLIC DOCUMENT COUNT:\t\t2",
        "CONFORMED PERIOD OF REPORT:\t20231231",
        "FILED AS OF DATE:\t\t20240301",
        "",
        "FILER:",
        "",
        "\tCOMPANY DATA:\t",
        f"\t\tCOMPANY CONFORMED NAME:\t\t\t{company['name'].upper()}",
        f"\t\tCENTRAL INDEX KEY:\t\t\t{company['cik']}",
        "</SEC-HEADER>",
    ])
    docs = [
        ("10-K", 1, "form10-k.htm", "ANNUAL REPORT", html_body),
        ("EX-10.1", 2, "ex10-1.txt", "OFFICE LEASE", lease),
    ]
    parts = [
        f"<DOCUMENT>\n<TYPE>{t}\n<SEQUENCE>{s}\n<FILENAME>{f}\n<DESCRIPTION>{d}\n<TEXT>\n{x.rstrip()}\n</TEXT>\n</DOCUMENT>"
        for t, s, f, d, x in docs
    ]
    return (head + "\n" + "\n".join(parts) + "\n</SEC-DOCUMENT>\n").encode("utf-8")
