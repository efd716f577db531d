"""Writes auditor/demo/files/lease-data-room.pdf: the demo lease as a data room would hold it.

    python tools/build_demo_pdf.py

Run once when the demo lease changes; the PDF is committed so the demo needs no PDF writer.
fpdf2 comes with the test extra.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fpdf import FPDF

from auditor.demo import DEMO_PDF, lease_text, synth

lines = synth.rewrap(synth.upper_headings(lease_text()), 92).split("\n")
pdf = FPDF(format="Letter")
pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=UTC))
pdf.set_auto_page_break(auto=False)
for n, i in enumerate(range(0, len(lines), 52)):
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(0, 4.8, f"CONFIDENTIAL - DATA ROOM COPY - page {n + 1}\n\n" + "\n".join(lines[i:i + 52]))
DEMO_PDF.write_bytes(bytes(pdf.output()))
print(DEMO_PDF, DEMO_PDF.stat().st_size)
