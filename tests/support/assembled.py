"""The assemble tests' corpus: generated, ingested and audited (``build_corpus``)."""

from __future__ import annotations

import os
from pathlib import Path

from auditor.corpus.ingest import ingest
from auditor.report.pipeline import audit_job
from auditor.store.db import Store
from tests.support import synth


def submission(acc: str, parts: list[tuple[str, str]]) -> bytes:
    """An EDGAR full-submission text file with the given (TYPE, text) documents."""
    head = [f"<SEC-DOCUMENT>{acc}.txt : 20240301", f"<SEC-HEADER>{acc}.hdr.sgml : 20240301",
            f"ACCESSION NUMBER:\t\t{acc}", "CONFORMED SUBMISSION TYPE:\t10-K", "FILED AS OF DATE:\t\t20240301",
            "\tCOMPANY DATA:\t", "\t\tCOMPANY CONFORMED NAME:\t\t\tEXAMPLE HOLDINGS INC",
            "\t\tCENTRAL INDEX KEY:\t\t\t0000123456", "</SEC-HEADER>"]
    docs = [f"<DOCUMENT>\n<TYPE>{t}\n<SEQUENCE>{i}\n<FILENAME>d{i}.txt\n<TEXT>\n{x.rstrip()}\n</TEXT>\n</DOCUMENT>"
            for i, (t, x) in enumerate(parts, 1)]
    return ("\n".join(head) + "\n" + "\n".join(docs) + "\n</SEC-DOCUMENT>\n").encode()


def build_corpus(d: Path) -> dict:
    """The assemble tests' corpus under ``d``, ingested into ``d/corpus.db`` from four sources in
    this order (data-room, edgar, vendor, filings), then audited (report in ``d/report``).

    It holds a contract verbatim, reformatted and in part in filings, an exact-duplicate group, a
    family (a retyped copy), a chain of containment (a contract in a filing in a larger filing),
    a notice in 11 filings (boilerplate by measurement), an EDGAR submission with two exhibits,
    a document too short to audit and an input that fails."""
    room, edgar, vendor, files = (d / "src" / n for n in ("data-room", "edgar", "vendor", "filings"))
    for p in (room, edgar, vendor, files):
        p.mkdir(parents=True)
    c = {k: synth.contract(seed, 9_000 + 500 * i) for i, (k, seed) in enumerate([
        ("verbatim", 501), ("reformatted", 502), ("partial", 503), ("unrelated1", 504), ("unrelated2", 505),
        ("group", 506), ("family", 507), ("exhibit", 508), ("quoted", 509), ("chain", 510)])}
    notice = synth.contract(511, 2_500)
    (room / "verbatim.txt").write_text(c["verbatim"])
    (room / "reformatted.txt").write_text(c["reformatted"])
    (room / "partial.txt").write_text(c["partial"])
    (room / "unrelated-1.txt").write_text(c["unrelated1"])
    (room / "unrelated-2.txt").write_text(c["unrelated2"])
    (room / "group.txt").write_text(c["group"])
    (room / "family.txt").write_text(c["family"])
    (room / "exhibit.txt").write_text(c["exhibit"])
    (room / "chain-a.txt").write_text(c["chain"])
    (room / "notice.txt").write_text(notice)
    (room / "snippet.txt").write_text("Governing law applies.\n")
    (room / "corrupt.pdf").write_bytes(b"%PDF-1.4\n%broken\n1 0 obj <<" + bytes(64))
    body, _ = synth.filing(601, 40_000, exhibits=[c["quoted"]])
    (edgar / "0000123456-24-000001.txt").write_bytes(submission(
        "0000123456-24-000001", [("10-K", body), ("EX-10.1", c["quoted"]), ("EX-10.2", c["exhibit"])]))
    (vendor / "group-copy.txt").write_text(c["group"].replace("\n", "\r\n"))
    (vendor / "family-retyped.txt").write_text(synth.reformat(c["family"], 7))
    (vendor / "notice-copy.txt").write_text(notice.replace("\n", "\r\n"))
    (files / "f-verbatim.txt").write_text(synth.filing(602, 40_000, exhibits=[c["verbatim"]])[0])
    (files / "f-reformatted.txt").write_text(
        synth.filing(603, 40_000, exhibits=[synth.reformat(c["reformatted"], 3)])[0])
    (files / "f-partial.txt").write_text(synth.filing(604, 40_000, exhibits=[synth.partial(c["partial"], 0.5, 1)])[0])
    chain_b = synth.filing(605, 30_000, exhibits=[c["chain"]])[0]
    (files / "chain-b.txt").write_text(chain_b)
    (files / "chain-c.txt").write_text(synth.filing(606, 60_000, exhibits=[chain_b])[0])
    for i in range(11):  # the notice in 11 documents: boilerplate by measurement (floor 10)
        (files / f"with-notice-{i:02d}.txt").write_text(synth.filing(700 + i, 12_000, exhibits=[notice])[0])
    for f in (d / "src").rglob("*"):  # one date for every file: no plan depends on when the test ran
        os.utime(f, (1_709_251_200, 1_709_251_200))  # 2024-03-01
    db = d / "corpus.db"
    with Store(db) as store:
        for src in (room, edgar, vendor, files):
            ingest(store, [src], source=src.name, workers=1)
        o = audit_job(store, 0.8, out=d / "report", command="test")
        assert not o.refused, o.report.get("refused_because")
        ids = {Path(r["path"]).name: r["id"] for r in store.rows("SELECT id, path FROM documents")}
    return {"db": db, "dir": d, "ids": ids, "src": d / "src"}
