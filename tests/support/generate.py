"""Write a deterministic benchmark corpus of filings and contracts, with its ground truth.

    python tests/support/generate.py --out DIR [--size-mb 140] [--seed 1]

At the default size: ~350 annual-report filings (a third plain text, a third HTML, a third
EDGAR full-submission text files) and 1,000 contracts of 12-30 KB, each contract also written
on its own. Contracts are placed into filings verbatim, as EX-10 exhibit documents of EDGAR
submissions, reformatted (re-wrapped, curly quotes, hyphenation, page furniture, or HTML), or
in part (85%, 70%, 50% of their words); some are placed nowhere and a few in many filings.
``truth.json`` records every file and placement; the same arguments give byte-identical output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from auditor.text.shingle import shingle_text
from tests.support import synth

# Share of contracts per primary placement kind (the rest of the corpus shape is in main()).
KIND_SHARES = {
    "none": 0.34,
    "verbatim": 0.16,
    "exhibit": 0.16,
    "reformatted": 0.12,
    "partial85": 0.08,
    "partial70": 0.07,
    "partial50": 0.07,
}
PARTIAL_FRACTIONS = {"partial85": 0.85, "partial70": 0.70, "partial50": 0.50}
MUST_FIND = {"verbatim", "exhibit", "reformatted", "partial85"}
FORMATS = ("text", "html", "edgar")
T = TypeVar("T")
STATE_CODES = {"Delaware": "DE", "New York": "NY", "California": "CA", "Texas": "TX", "Illinois": "IL",
               "Massachusetts": "MA", "Nevada": "NV", "Washington": "WA", "Georgia": "GA",
               "Florida": "FL", "New Jersey": "NJ", "Pennsylvania": "PA"}


@dataclass
class Contract:
    index: int
    seed: int
    text: str
    path: str
    title: str


@dataclass
class Placement:
    contract: Contract
    kind: str
    material: str  # the text that goes into the container (before any HTML rendering)
    fraction: float
    container: int = -1
    sequence: int | None = None
    span: tuple[int, int] = (0, 0)


@dataclass
class Filing:
    index: int
    seed: int
    fmt: str
    path: str = ""
    placements: list[Placement] = field(default_factory=list)


def _largest_remainder(n: int, shares: dict[str, float], minimum: int) -> dict[str, int]:
    """Split ``n`` by ``shares``, each kind getting at least ``minimum`` when n allows."""
    counts = {k: max(minimum, int(n * s)) for k, s in shares.items()}
    order = sorted(shares, key=lambda k: (-(n * shares[k] - int(n * shares[k])), k))
    i = 0
    while sum(counts.values()) < n:
        counts[order[i % len(order)]] += 1
        i += 1
    while sum(counts.values()) > n:
        k = max(counts, key=lambda k: (counts[k], k))
        counts[k] -= 1
    return counts


def _pick(rng: random.Random, seq: list[T]) -> T:
    return seq[int(rng.random() * len(seq))]


def _title(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "Agreement").title()


def _containment(contract: str, material: str) -> float:
    a = shingle_text(contract, keep_all=True).all
    b = shingle_text(material, keep_all=True).all
    assert a is not None and b is not None
    if len(a) == 0:
        return 0.0
    import numpy as np

    return round(float(len(np.intersect1d(a, b, assume_unique=True)) / len(a)), 4)


def _edgar(filing: Filing, rng: random.Random, body: str, body_is_html: bool,
           in_body: list[Placement], body_spans: list[tuple[int, int]],
           exhibits: list[Placement]) -> str:
    """An EDGAR full-submission text file: SEC-HEADER, then the 10-K and its exhibits."""
    co = synth.filing_company(filing.seed)
    year = int(co["year"])
    filed = f"{year + 1}{int(rng.random() * 2) + 2:02d}{int(rng.random() * 28) + 1:02d}"
    accession = f"{co['cik']}-{(year + 1) % 100:02d}-{int(rng.random() * 999_999):06d}"
    conformed = "".join(c for c in co["name"].upper() if c.isalnum() or c == " ").replace("  ", " ")
    ticker = "".join(w[0] for w in co["name"].split()[:3]).lower()
    docs: list[tuple[str, str, str, str]] = []  # type, filename, description, text
    ext = "htm" if body_is_html else "txt"
    docs.append(("10-K", f"{ticker}-10k_{year}1231.{ext}", "FORM 10-K", body))
    for k, p in enumerate(exhibits, 1):
        as_html = rng.random() < 0.4
        text = synth.to_html(p.material, p.contract.title) if as_html else p.material
        docs.append((f"EX-10.{k}", f"{ticker}-ex10{k}_{year}.{'htm' if as_html else 'txt'}",
                     p.contract.title.upper()[:60], text))
    docs.append(("EX-21.1", f"{ticker}-ex211_{year}.txt", "SUBSIDIARIES OF THE REGISTRANT",
                 synth.subsidiaries(filing.seed)))
    docs.append(("EX-31.1", f"{ticker}-ex311_{year}.txt", "CERTIFICATION",
                 synth.certification(filing.seed, f"{filed[:4]}-{filed[4:6]}-{filed[6:]}") + "\n"))
    header = (
        f"<SEC-DOCUMENT>{accession}.txt : {filed}\n"
        f"<SEC-HEADER>{accession}.hdr.sgml : {filed}\n"
        f"ACCESSION NUMBER:\t\t{accession}\n"
        "CONFORMED SUBMISSION TYPE:\t10-K\n"
        f"PUBLIC DOCUMENT COUNT:\t\t{len(docs)}\n"
        f"CONFORMED PERIOD OF REPORT:\t{year}1231\n"
        f"FILED AS OF DATE:\t\t{filed}\n"
        f"DATE AS OF CHANGE:\t\t{filed}\n\n"
        "FILER:\n\n\tCOMPANY DATA:\t\n"
        f"\t\tCOMPANY CONFORMED NAME:\t\t\t{conformed}\n"
        f"\t\tCENTRAL INDEX KEY:\t\t\t{co['cik']}\n"
        f"\t\tSTATE OF INCORPORATION:\t\t\t{STATE_CODES.get(co['state'], 'DE')}\n"
        "\t\tFISCAL YEAR END:\t\t\t1231\n\n"
        "\tFILING VALUES:\n\t\tFORM TYPE:\t\t10-K\n\t\tSEC ACT:\t\t1934 Act\n"
        "</SEC-HEADER>\n"
    )
    out = [header]
    pos = len(header)
    for seq, (typ, fname, desc, text) in enumerate(docs, 1):
        head = (f"<DOCUMENT>\n<TYPE>{typ}\n<SEQUENCE>{seq}\n<FILENAME>{fname}\n"
                f"<DESCRIPTION>{desc}\n<TEXT>\n")
        start = pos + len(head)
        if seq == 1:
            for p, (a, b) in zip(in_body, body_spans, strict=True):
                p.span = (start + a, start + b)
                p.sequence = 1
        elif seq - 2 < len(exhibits):
            p = exhibits[seq - 2]
            p.sequence = seq
            p.span = (start, start + len(text))
        chunk = head + text + ("" if text.endswith("\n") else "\n") + "</TEXT>\n</DOCUMENT>\n"
        out.append(chunk)
        pos += len(chunk)
    out.append("</SEC-DOCUMENT>\n")
    filing.path = f"filings/edgar/{accession}.txt"
    return "".join(out)


def _render_filing(filing: Filing, target: int, rng: random.Random) -> str:
    """The filing's file content; sets every placement's span (characters in the file)."""
    in_body = [p for p in filing.placements if p.kind != "exhibit"]
    exhibits = [p for p in filing.placements if p.kind == "exhibit"]
    body_target = target - sum(len(p.material) for p in exhibits)
    paras, tags = synth.filing_parts(filing.seed, body_target, [p.material for p in in_body])
    as_html = filing.fmt == "html" or (filing.fmt == "edgar" and rng.random() < 0.5)
    if as_html:
        # Group runs of the filing's own paragraphs; each inserted text is its own part.
        parts: list[str] = []
        part_tags: list[int | None] = []
        run: list[str] = []
        for para, t in zip(paras, tags, strict=True):
            if t is None:
                run.append(para)
                continue
            if run:
                parts.append("\n\n".join(run))
                part_tags.append(None)
                run = []
            parts.append(para)
            part_tags.append(t)
        if run:
            parts.append("\n\n".join(run))
            part_tags.append(None)
        co = synth.filing_company(filing.seed)
        body, spans = synth.to_html_parts(parts, f"{co['name']} Form 10-K {co['year']}")
        body_spans = [(0, 0)] * len(in_body)
        for t, sp in zip(part_tags, spans, strict=True):
            if t is not None:
                body_spans[t] = sp
    else:
        body = "\n\n".join(paras) + "\n"
        body_spans = [(0, 0)] * len(in_body)
        pos = 0
        for para, t in zip(paras, tags, strict=True):
            if t is not None:
                body_spans[t] = (pos, pos + len(para))
            pos += len(para) + 2
    if filing.fmt == "edgar":
        return _edgar(filing, rng, body, as_html, in_body, body_spans, exhibits)
    for p, sp in zip(in_body, body_spans, strict=True):
        p.span = sp
    ext = "htm" if filing.fmt == "html" else "txt"
    filing.path = f"filings/{filing.fmt}/f{filing.index:04d}.{ext}"
    return body


def generate(out: Path, size_mb: float, seed: int) -> dict:
    rng = random.Random(f"benchmark/{seed}/{size_mb}")
    scale = size_mb / 140
    n_filings = max(6, round(350 * scale))
    n_contracts = max(10, round(1000 * scale))

    contracts: list[Contract] = []
    for i in range(n_contracts):
        cseed = seed * 1_000_000 + i
        text = synth.contract(cseed, 12_500 + int(rng.random() * 16_501))
        ext = "htm" if rng.random() < 0.25 else "txt"
        contracts.append(Contract(i, cseed, text, f"contracts/c{i:05d}.{ext}", _title(text)))

    fmts = [FORMATS[i % 3] for i in range(n_filings)]
    rng.shuffle(fmts)
    filings = [Filing(j, seed * 1_000_000 + j, fmts[j]) for j in range(n_filings)]
    edgar = [f for f in filings if f.fmt == "edgar"]

    order = list(range(n_contracts))
    rng.shuffle(order)
    counts = _largest_remainder(n_contracts, KIND_SHARES, 1 if n_contracts >= len(KIND_SHARES) else 0)
    primary: dict[int, str] = {}
    it = iter(order)
    for kind, n in counts.items():
        for _ in range(n):
            primary[next(it)] = kind

    def material(c: Contract, kind: str) -> tuple[str, float]:
        s = int(rng.random() * 1_000_000)
        if kind == "reformatted":
            return synth.reformat(c.text, s), 1.0
        if kind in PARTIAL_FRACTIONS:
            part = synth.partial(c.text, PARTIAL_FRACTIONS[kind], s)
            return part, round(synth.word_count(part) / synth.word_count(c.text), 4)
        return c.text, 1.0

    wanted: list[tuple[Contract, str]] = []
    for i in sorted(primary):
        if primary[i] != "none":
            wanted.append((contracts[i], primary[i]))
    placed = sorted({i for i, k in primary.items() if k != "none"})
    # Boilerplate-like repetition: one contract in many filings, two more in several.
    heavy = [i for i in placed if primary[i] in ("verbatim", "exhibit")][:3]
    for rank, i in enumerate(heavy):
        extra = max(2, round((0.07 if rank == 0 else 0.02) * n_filings))
        for _ in range(min(extra, n_filings - 1)):
            wanted.append((contracts[i], "exhibit" if rng.random() < 0.4 else "verbatim"))
    # A few more contracts appear twice.
    for i in placed:
        if i not in heavy and rng.random() < 0.08:
            wanted.append((contracts[i], _pick(rng, ["verbatim", "exhibit", "reformatted"])))

    placements: list[Placement] = []
    for c, kind in wanted:
        pool = edgar if kind == "exhibit" and edgar else filings
        if kind == "exhibit" and not edgar:
            kind = "verbatim"
        taken = {p.container for p in placements if p.contract is c}
        choices = [f for f in pool if f.index not in taken] or pool
        cand = [_pick(rng, choices) for _ in range(3)]
        f = min(cand, key=lambda f: (len(f.placements), f.index))
        text, fraction = material(c, kind)
        p = Placement(c, kind, text, fraction, f.index)
        f.placements.append(p)
        placements.append(p)

    target_total = int(size_mb * 1_000_000)
    standalone = sum(len(c.text) for c in contracts)
    inserted = sum(len(p.material) for p in placements)
    mean_body = max(8_000, (target_total - standalone - inserted) // n_filings)

    files: list[dict] = []

    def write(rel: str, text: str, fmt: str, kind: str) -> None:
        data = text.encode("utf-8")
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        files.append({"path": rel, "format": fmt, "kind": kind, "bytes": len(data),
                      "sha256": hashlib.sha256(data).hexdigest()})

    for c in contracts:
        if c.path.endswith(".htm"):
            write(c.path, synth.to_html(c.text, c.title), "html", "contract")
        else:
            write(c.path, c.text, "text", "contract")

    for f in filings:
        frng = random.Random(f"benchmark-filing/{f.seed}")
        target = int(mean_body * (0.75 + 0.5 * frng.random())) + sum(len(p.material) for p in f.placements)
        text = _render_filing(f, target, frng)
        write(f.path, text, f.fmt, "filing")

    paths = {f.index: f.path for f in filings}
    truth_placements = []
    for p in placements:
        truth_placements.append({
            "contract": p.contract.path,
            "container": paths[p.container],
            "sequence": p.sequence,
            "kind": p.kind,
            "fraction": p.fraction,
            "must_find": p.kind in MUST_FIND,
            "span": list(p.span),
            "containment": _containment(p.contract.text, p.material),
        })
    truth_placements.sort(key=lambda d: (d["contract"], d["container"], d["span"]))
    files.sort(key=lambda d: d["path"])
    unplaced = sorted(c.path for c in contracts if primary[c.index] == "none")
    total = sum(f["bytes"] for f in files)
    return {
        "generator": "tests/support/generate.py",
        "params": {"seed": seed, "size_mb": size_mb, "shingle_k": 5},
        "summary": {
            "files": len(files),
            "bytes": total,
            "filings": n_filings,
            "contracts": n_contracts,
            "placements": len(truth_placements),
            "must_find": sum(1 for p in truth_placements if p["must_find"]),
            "contracts_must_find": len({p["contract"] for p in truth_placements if p["must_find"]}),
            "unplaced": len(unplaced),
        },
        "notes": [
            "span: [start, end) in characters of the container file decoded as UTF-8; for html "
            "containers it covers the HTML rendering of the inserted text",
            "sequence: the <SEQUENCE> of the EDGAR document holding the text (1 = the 10-K body)",
            "fraction: share of the contract's words in the inserted text",
            "containment: share of the contract's distinct 5-word shingles present in the "
            "inserted text itself (a lower bound for the whole container)",
        ],
        "files": files,
        "placements": truth_placements,
        "unplaced": unplaced,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="directory to write (created if missing)")
    ap.add_argument("--size-mb", type=float, default=140.0, help="corpus size in MB (10^6 bytes)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.size_mb <= 0:
        ap.error("--size-mb must be positive")
    t0 = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    truth = generate(args.out, args.size_mb, args.seed)
    (args.out / "truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n",
                                         encoding="utf-8")
    s = truth["summary"]
    print(f"{s['files']} files ({s['filings']} filings, {s['contracts']} contracts), "
          f"{s['bytes'] / 1e6:.1f} MB, {s['placements']} placements ({s['must_find']} must find), "
          f"{time.perf_counter() - t0:.1f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
