"""A boilerplate-dense corpus of real licence texts and notices, its benchmark, and a check of
the audit's containing pairs against exact containment.

    .venv/bin/python benchmarks/boilerplate.py run                 # ~20,000 documents, 3 repeats
    .venv/bin/python benchmarks/boilerplate.py run --docs 2000 --repeat 1 --work /tmp/bp
    .venv/bin/python benchmarks/boilerplate.py generate --out DIR [--docs 20000] [--seed 1]
    .venv/bin/python benchmarks/boilerplate.py check --db STORE --report DIR [--sample 300]

Legal and regulatory corpora are mostly boilerplate: the same notice in thousands of documents,
a standard licence in hundreds of near-identical variants, the same certification in every
annual report. The text here is real, written by others: the licence texts and licence notices
that scancode-toolkit ships (``licensedcode/data/licenses/*.LICENSE``, ``rules/*.RULE``), read
from its wheel on PyPI (downloaded once into the cache and checked against a pinned sha256).
The generator assembles, deterministically from a seed:

* ``notices/``: short notices (20-60 words), each also placed into hundreds to thousands of
  package documents with Zipf-like popularity (a tail of rare ones, a few truncated placements
  that must *not* count as containing the notice);
* ``licences/``: full licence texts as they are;
* ``variants/<licence>/``: families of 50-300 near-identical variants of one licence (holder
  names and years filled in, a clause dropped, added or reworded, re-wrapped or HTML);
* ``packages/``: Debian ``copyright`` files, Apache-style ``NOTICE`` files and Eclipse-style
  ``about.html`` pages: unique prose and file lists around the notices, sometimes a full licence;
* ``filings/``: annual reports (plain text, HTML, EDGAR submissions) with their EX-31 and EX-32
  certifications, as in every real 10-K.

``truth.json`` records what was placed where. The accuracy check does not rely on it: it
computes, by brute force over every audited document's full shingle set (the engine's own
normalisation and hashing), the exact containment of a seeded sample of documents in every
other and of every other in them, and compares with the pairs the audit reports.
"""

from __future__ import annotations

import argparse
import bisect
import gzip
import hashlib
import json
import math
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from auditor.store.packing import sql_text  # noqa: E402
from auditor.text.normalize import words_bytes  # noqa: E402
from auditor.text.shingle import Params, WordHasher, combine, distinct  # noqa: E402
from benchmarks.run import (  # noqa: E402
    BOILERPLATE_BEGIN,
    BOILERPLATE_END,
    NOTES_BEGIN,
    PY,
    auditor_cmd,
    machine,
    measure,
    source_state,
)
from tests.support import synth  # noqa: E402

WHEEL_REQUIREMENT = "scancode-toolkit==32.5.0"
WHEEL_NAME = "scancode_toolkit-32.5.0-cp311-none-any.whl"
WHEEL_SHA256 = "327d20a0de71d49930d8a6919c2b6d54c2acf4dd0a1d48da9a71dd4ce7b97b78"  # as PyPI lists it
LICENCE_DIR = "licensedcode/data/licenses/"
RULE_DIR = "licensedcode/data/rules/"
CORPUS_VERSION = 1  # bump when the generator's output changes; cached corpora are regenerated
DEFAULT_DOCS = 20_000
CORPUS_DIRS = ("notices", "licences", "variants", "packages", "filings")
THRESHOLD = 0.8

# Well-known licences whose variants make the families, in order of preference; a source
# without them (a test fixture) falls back to its longest texts.
FAMILY_BASES = (
    "mit", "bsd-new", "apache-2.0", "bsd-simplified", "gpl-2.0", "isc", "lgpl-2.1", "mpl-2.0", "zlib",
    "epl-1.0", "x11", "boost-1.0", "ms-pl", "cddl-1.0", "artistic-2.0", "php-3.01", "openssl-ssleay",
    "ofl-1.1", "unicode-dfs-2016", "libpng", "bsd-original", "w3c", "curl", "python", "lgpl-3.0",
    "ms-rl", "afl-3.0", "epl-2.0", "cpl-1.0", "zlib-acknowledgement",
)


# -- the source texts ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Text:
    key: str  # where it comes from (a file name in the source)
    label: str  # the licence it is or names (a licence key or expression)
    text: str
    words: int


@dataclass
class Source:
    """Licence texts and short notices to build a corpus from."""

    name: str
    licences: list[Text]
    notices: list[Text]

    def digest(self) -> str:
        h = hashlib.sha256(self.name.encode())
        for t in [*self.licences, *self.notices]:
            h.update(b"\0" + t.key.encode() + b"\0" + t.text.encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    def describe(self) -> dict:
        return {"name": self.name, "licences": len(self.licences), "notices": len(self.notices),
                "digest": self.digest()}


def word_count(text: str) -> int:
    return len(words_bytes(text))


def _front_matter(raw: bytes) -> tuple[str, str]:
    """(YAML front matter, body) of a scancode .LICENSE/.RULE file."""
    t = raw.decode("utf-8", "replace").replace("\r\n", "\n")
    if t.startswith("---\n"):
        end = t.find("\n---", 3)
        if end >= 0:
            nl = t.find("\n", end + 4)
            return t[4:end], (t[nl + 1:] if nl >= 0 else "")
    return "", t


def _flag(fm: str, name: str) -> bool:
    return re.search(rf"^{name}:\s*(yes|true)\s*$", fm, re.M) is not None


def _field(fm: str, name: str) -> str:
    m = re.search(rf"^{name}:\s*(.+?)\s*$", fm, re.M)
    return m.group(1).strip("'\"") if m else ""


def _clean(body: str) -> str:
    """Rule markup out ({{required phrases}}), outer blank lines off, trailing spaces off."""
    body = body.replace("{{", "").replace("}}", "")
    return "\n".join(line.rstrip() for line in body.strip("\n").split("\n"))


def scancode_source(wheel: Path, *, notice_words: tuple[int, int] = (20, 60),
                    licence_bytes: int = 40_000) -> Source:
    """Licence texts and notices from a scancode-toolkit wheel (read in place with zipfile).

    Notices: rules flagged ``is_license_notice`` or ``is_license_text`` with ``notice_words``
    words, not false positives, one per distinct normalised text. Licences: texts of at least
    40 words and at most ``licence_bytes`` bytes, not the unknown or generic placeholders.
    """
    licences, notices = [], []
    seen: set[bytes] = set()
    with zipfile.ZipFile(wheel) as z:
        names = sorted(z.namelist())
        for n in names:
            if n.startswith(LICENCE_DIR) and n.endswith(".LICENSE"):
                info = z.getinfo(n)
                if info.file_size > licence_bytes + 4_000:
                    continue
                fm, body = _front_matter(z.read(n))
                if _flag(fm, "is_unknown") or _flag(fm, "is_generic"):
                    continue
                text = _clean(body)
                w = word_count(text)
                if w >= 40 and len(text.encode()) <= licence_bytes:
                    key = n[len(LICENCE_DIR):-len(".LICENSE")]
                    licences.append(Text(key, key, text, w))
            elif n.startswith(RULE_DIR) and n.endswith(".RULE"):
                if z.getinfo(n).file_size > 2_500:
                    continue
                fm, body = _front_matter(z.read(n))
                if not (_flag(fm, "is_license_notice") or _flag(fm, "is_license_text")) or _flag(fm, "is_false_positive"):
                    continue
                text = _clean(body)
                wb = words_bytes(text)
                if not notice_words[0] <= len(wb) <= notice_words[1]:
                    continue
                norm = b" ".join(wb)
                if norm in seen:
                    continue
                seen.add(norm)
                notices.append(Text(n[len(RULE_DIR):-len(".RULE")], _field(fm, "license_expression"), text, len(wb)))
    return Source(f"{WHEEL_REQUIREMENT} ({WHEEL_NAME})", licences, notices)


def directory_source(directory: Path, *, notice_words: tuple[int, int] = (20, 60)) -> Source:
    """Licence texts from the files of a directory (such as ``/usr/share/common-licenses``);
    the notices are their paragraphs of ``notice_words`` words (as a licence's "how to apply"
    notice is quoted in the files that use it)."""
    licences, notices = [], []
    seen_files: set[str] = set()
    seen: set[bytes] = set()
    for p in sorted(Path(directory).iterdir()):
        if not p.is_file():
            continue
        raw = p.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        if digest in seen_files:  # GPL -> GPL-3 and the like
            continue
        seen_files.add(digest)
        text = _clean(raw.decode("utf-8", "replace").replace("\r\n", "\n"))
        w = word_count(text)
        if w < 40:
            continue
        licences.append(Text(p.name, p.name, text, w))
        for k, para in enumerate(_paragraphs(text)):
            wb = words_bytes(para)
            norm = b" ".join(wb)
            if notice_words[0] <= len(wb) <= notice_words[1] and norm not in seen:
                seen.add(norm)
                notices.append(Text(f"{p.name}#{k}", p.name, para.strip("\n"), len(wb)))
    return Source(f"directory {directory}", licences, notices)


def _sha256_file(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def fetch_wheel(cache: Path) -> Path:
    """The scancode-toolkit wheel in ``cache``, downloaded with pip when missing, sha256 checked."""
    path = cache / WHEEL_NAME
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        print(f"downloading {WHEEL_REQUIREMENT} ({WHEEL_NAME}, 126 MB) into {cache}", flush=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--python-version", "3.11", "--implementation", "cp", "--dest", str(cache), WHEEL_REQUIREMENT]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0 or not path.exists():
            raise RuntimeError(f"could not download {WHEEL_REQUIREMENT}: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    got = _sha256_file(path)
    if got != WHEEL_SHA256:
        raise RuntimeError(f"{path}: sha256 {got}, expected {WHEEL_SHA256}; delete it to download again")
    return path


def load_source(args: argparse.Namespace) -> Source:
    if args.source_dir:
        return directory_source(args.source_dir)
    return scancode_source(args.wheel or fetch_wheel(args.cache / "corpus-sources"))


def source_name(args: argparse.Namespace) -> str:
    return f"directory {args.source_dir}" if args.source_dir else f"{WHEEL_REQUIREMENT} ({WHEEL_NAME})"


# -- the plan --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    """How many documents of each kind, for a corpus of about ``docs`` stored documents."""

    docs: int
    notices: int
    licences: int
    family_sizes: tuple[int, ...]
    filings: int
    packages: int
    notice_floor: int  # containers of each popular notice at least
    notice_head: float  # Zipf head: the most popular notice is in about this share of packages
    rare_share: float = 0.1  # share of notices in only a few packages
    partial_share: float = 0.04  # placements truncated to 45-75% of the notice's words
    appended_licence: float = 0.06  # packages that also carry a full licence text

    def as_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(self).items()}


EDGAR_PARTS = 3  # the 10-K, EX-31.1 and EX-32.1; the submission itself is a stored document too


def make_plan(docs: int, source: Source) -> Plan:
    s = docs / DEFAULT_DOCS
    notices = min(len(source.notices), max(8, round(2_000 * s)))
    licences = min(len(source.licences), max(3, round(800 * s)))
    n_fam = min(max(1, round(30 * s)), max(1, len([t for t in source.licences if t.words >= 100])))
    f = min(1.0, 4 * s)
    sizes = tuple(max(3, round(f * max(50.0, 300 / (r + 1) ** 0.5))) for r in range(n_fam))
    filings = max(3, round(800 * s))
    edgar = filings // 3
    packages = max(3, docs - notices - licences - sum(sizes) - filings - edgar * EDGAR_PARTS)
    return Plan(docs, notices, licences, sizes, filings, packages,
                notice_floor=max(2, round(0.0082 * packages)), notice_head=0.35)


# -- text helpers ----------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"<[^<>\n]{2,40}>|\[[^\[\]\n]{2,40}\]")
_YEARISH = re.compile(r"year|yyyy|date", re.I)
_HOLDERISH = re.compile(r"name|owner|holder|copyright|author|organi[sz]ation|company|licensor|fullname", re.I)


def _pick(rng: random.Random, seq: Sequence[Any]) -> Any:
    return seq[int(rng.random() * len(seq))]


def _years(rng: random.Random) -> str:
    y = 1995 + int(rng.random() * 29)
    return str(y) if rng.random() < 0.5 else f"{y}-{y + 1 + int(rng.random() * 8)}"


def _paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n[ \t]*\n", text) if p.strip()]


def _indent_debian(text: str) -> str:
    """A text as a Debian copyright-format field body: one leading space, blank lines as ' .'."""
    return "\n".join(f" {line}" if line.strip() else " ." for line in text.strip("\n").split("\n"))


def _truncate(text: str, fraction: float) -> str:
    """The first ``fraction`` of the words of ``text``, cut at a whitespace boundary."""
    toks = list(re.finditer(r"\S+", text))
    keep = max(1, int(len(toks) * fraction))
    return text[: toks[keep - 1].end()] if toks else text


class Names:
    """Pools of holder names, people and coined words, drawn once from the synthetic generator."""

    def __init__(self, seed: int, n: int) -> None:
        self.companies, self.people = [], []
        for i in range(n):
            co = synth.filing_company(seed * 7_919 + i)
            self.companies.append(co["name"])
            self.people.append(co["officer"])
        self.words = sorted({w.lower() for c in self.companies for w in re.findall(r"[A-Za-z]{4,}", c)})

    def holder(self, rng: random.Random) -> str:
        return _pick(rng, self.companies) if rng.random() < 0.6 else _pick(rng, self.people)

    def package(self, rng: random.Random, j: int) -> str:
        return f"{_pick(rng, self.words)}{_pick(rng, ('', 'lib', 'kit', 'd', 'js', '-utils', '-core'))}-{j}"


class Prose:
    """Unique prose, paragraph by paragraph: the body paragraphs (no headings, no opening) of
    long synthetic contracts, one after another."""

    def __init__(self, seed: int) -> None:
        self.seed, self.n = seed, 0
        self.paras: Iterator[str] = iter(())

    def _next(self) -> str:
        for p in self.paras:
            if not p.startswith("ARTICLE") and len(p) >= 60:
                return p
        paras = synth.contract(self.seed * 100_003 + self.n, 60_000).split("\n\n")
        self.n += 1
        start = next((k for k, p in enumerate(paras) if p.startswith("NOW, THEREFORE")), 0) + 1
        self.paras = iter(paras[start:])
        return self._next()

    def take(self, target: int) -> str:
        out, total = [], 0
        while total < target:
            p = self._next()
            out.append(p)
            total += len(p)
        return "\n\n".join(out)


# -- variants ----------------------------------------------------------------------------------------

def vary(base: str, rng: random.Random, names: Names, donors: Sequence[str]) -> tuple[str, dict]:
    """A near-identical variant of a licence text, and what was changed."""
    edits: dict[str, Any] = {}
    holder, years = names.holder(rng), _years(rng)
    n_ph = 0

    def fill(m: re.Match[str]) -> str:
        nonlocal n_ph
        tok = m.group(0)
        if _YEARISH.search(tok):
            n_ph += 1
            return years
        if _HOLDERISH.search(tok):
            n_ph += 1
            return holder
        return tok

    text = _PLACEHOLDER.sub(fill, base)
    edits["placeholders"] = n_ph
    if rng.random() < 0.7:
        extra = f", {names.holder(rng)}" if rng.random() < 0.2 else ""
        text = f"Copyright (c) {years} {holder}{extra}\nAll rights reserved.\n\n" + text
        edits["holder"] = holder
    paras = _paragraphs(text)
    r = rng.random()
    total = sum(word_count(p) for p in paras)
    if r < 0.3 or len(paras) < 3:
        edits["clause"] = None
    elif r < 0.55:
        small = [i for i in range(1, len(paras)) if word_count(paras[i]) <= 0.25 * total]
        if small:
            i = _pick(rng, small)
            edits["clause"] = {"dropped": i, "words": word_count(paras[i])}
            del paras[i]
        else:
            edits["clause"] = None
    elif r < 0.75 and donors:
        d = _pick(rng, donors)
        i = 1 + int(rng.random() * (len(paras) - 1))
        paras.insert(i, d)
        edits["clause"] = {"inserted": i, "words": word_count(d)}
    else:
        i = int(rng.random() * len(paras))
        toks = paras[i].split(" ")
        changed = 0
        for _ in range(1 + int(rng.random() * 3)):
            k = int(rng.random() * len(toks))
            if toks[k].isalpha():
                toks[k] = _pick(rng, names.words)
                changed += 1
        paras[i] = " ".join(toks)
        edits["clause"] = {"reworded": i, "words": changed}
    text = "\n\n".join(paras) + "\n"
    r = rng.random()
    if r < 0.15:
        text = synth.rewrap(text, 60 + int(rng.random() * 30))
        edits["layout"] = "rewrap"
    elif r < 0.25:
        edits["layout"] = "html"
    else:
        edits["layout"] = "text"
    return text, edits


# -- filings -----------------------------------------------------------------------------------------

_EX32 = """CERTIFICATION PURSUANT TO 18 U.S.C. SECTION 1350,
AS ADOPTED PURSUANT TO SECTION 906 OF THE SARBANES-OXLEY ACT OF 2002

In connection with the Annual Report of {CO} (the "Company") on Form 10-K for the fiscal year ended December 31, {YEAR}, as filed with the Securities and Exchange Commission on the date hereof (the "Report"), I, {PERSON}, {TITLE} of the Company, certify, pursuant to 18 U.S.C. Section 1350, as adopted pursuant to Section 906 of the Sarbanes-Oxley Act of 2002, that, to my knowledge:

(1) The Report fully complies with the requirements of Section 13(a) or 15(d) of the Securities Exchange Act of 1934; and

(2) The information contained in the Report fairly presents, in all material respects, the financial condition and results of operations of the Company.

Date: {DATE}

/s/ {PERSON}
{PERSON}
{TITLE}
"""

STATE_CODES = {"Delaware": "DE", "New York": "NY", "California": "CA", "Texas": "TX", "Nevada": "NV"}


def _edgar(co: dict, accession: str, filed: str, docs: list[tuple[str, str, str, str]]) -> str:
    """An EDGAR full-submission text file holding ``docs`` (type, file name, description, text)."""
    conformed = " ".join("".join(c for c in co["name"].upper() if c.isalnum() or c == " ").split())
    out = [f"<SEC-DOCUMENT>{accession}.txt : {filed}\n<SEC-HEADER>{accession}.hdr.sgml : {filed}\n"
           f"ACCESSION NUMBER:\t\t{accession}\nCONFORMED SUBMISSION TYPE:\t10-K\n"
           f"PUBLIC DOCUMENT COUNT:\t\t{len(docs)}\nCONFORMED PERIOD OF REPORT:\t{co['year']}1231\n"
           f"FILED AS OF DATE:\t\t{filed}\n\nFILER:\n\n\tCOMPANY DATA:\t\n"
           f"\t\tCOMPANY CONFORMED NAME:\t\t\t{conformed}\n\t\tCENTRAL INDEX KEY:\t\t\t{co['cik']}\n"
           f"\t\tSTATE OF INCORPORATION:\t\t\t{STATE_CODES.get(co['state'], 'DE')}\n"
           "\t\tFISCAL YEAR END:\t\t\t1231\n</SEC-HEADER>\n"]
    for seq, (typ, fname, desc, text) in enumerate(docs, 1):
        out.append(f"<DOCUMENT>\n<TYPE>{typ}\n<SEQUENCE>{seq}\n<FILENAME>{fname}\n<DESCRIPTION>{desc}\n<TEXT>\n"
                   f"{text}{'' if text.endswith(chr(10)) else chr(10)}</TEXT>\n</DOCUMENT>\n")
    out.append("</SEC-DOCUMENT>\n")
    return "".join(out)


# -- the generator -----------------------------------------------------------------------------------

@dataclass
class _Package:
    index: int
    weight: float
    notices: list[int] = field(default_factory=list)
    partial: dict[int, float] = field(default_factory=dict)


def _notice_counts(plan: Plan, rng: random.Random) -> list[int]:
    """Containers per notice, by popularity rank: a floor plus a Zipf head; a tail of rare ones."""
    n, p = plan.notices, plan.packages
    cap = max(1, int(0.6 * p))
    rare_from = n - int(n * plan.rare_share)
    counts = []
    for r in range(n):
        if r >= rare_from:
            counts.append(min(cap, 1 + int(rng.random() * 10)))
        else:
            counts.append(min(cap, plan.notice_floor + round(plan.notice_head * p / (r + 1))))
    return counts


def _assign(plan: Plan, rng: random.Random) -> tuple[list[int], list[_Package]]:
    """Notice ranks (popularity order of the notice pool) and each package's notices."""
    packages = [_Package(j, math.exp(0.9 * (rng.random() + rng.random() + rng.random() - 1.5)))
                for j in range(plan.packages)]
    cum, total = [], 0.0
    for pk in packages:
        total += pk.weight
        cum.append(total)
    ranks = list(range(plan.notices))
    rng.shuffle(ranks)  # ranks[r] = the notice with popularity rank r
    for r, c in enumerate(_notice_counts(plan, rng)):
        i = ranks[r]
        chosen: set[int] = set()
        while len(chosen) < c:
            chosen.add(min(len(packages) - 1, bisect.bisect_left(cum, rng.random() * total)))
        for j in sorted(chosen):
            packages[j].notices.append(i)
            if rng.random() < plan.partial_share:
                packages[j].partial[i] = round(0.45 + 0.3 * rng.random(), 3)
    for pk in packages:
        rng.shuffle(pk.notices)
    return ranks, packages


def _package_text(pk: _Package, kind: str, rng: random.Random, names: Names, notices: list[Text],
                  licence: Text | None, prose: str) -> tuple[str, str]:
    """(file name, content) of one package document."""
    name = names.package(rng, pk.index)
    holder, years = names.holder(rng), _years(rng)

    def body(i: int) -> str:
        t = notices[i].text
        return _truncate(t, pk.partial[i]) if i in pk.partial else t

    if kind == "debian":
        out = ["Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
               f"Upstream-Name: {name}", f"Upstream-Contact: {names.holder(rng)}",
               f"Source: https://example.org/{name}", "Comment:", _indent_debian(prose), "",
               f"Files: *\nCopyright: {years} {holder}\nLicense: {licence.label if licence else 'other'}", ""]
        for i in pk.notices:
            d = _pick(rng, names.words)
            out += [f"Files: {d}/*\nCopyright: {_years(rng)} {names.holder(rng)}\nLicense: {notices[i].label or 'other'}",
                    _indent_debian(body(i)), ""]
        if licence:
            out += [f"License: {licence.label}", _indent_debian(licence.text), ""]
        return "copyright", "\n".join(out)
    rule = "-" * 72
    out = [name.upper(), f"Copyright {years} {holder}", "", prose, "",
           "This product includes the following third-party components:", "",
           *[f"  * {_pick(rng, names.words)} ({notices[i].label or 'other'})" for i in pk.notices], ""]
    for i in pk.notices:
        out += [rule, f"{_pick(rng, names.words)}\nCopyright (c) {_years(rng)} {names.holder(rng)}", "", body(i), ""]
    if licence:
        out += [rule, f"Full text of the {licence.label} licence:", "", licence.text, ""]
    text = "\n".join(out)
    if kind == "html":
        return "about.html", synth.to_html(text, f"About {name}")
    return "NOTICE", text


def generate(out: Path, source: Source, docs: int = DEFAULT_DOCS, seed: int = 1) -> dict:
    """Write the corpus under ``out``; return its truth (what was placed where)."""
    plan = make_plan(docs, source)
    rng = random.Random(f"boilerplate/{seed}/{docs}")
    names = Names(seed, min(3_000, max(100, docs // 6)))
    files: list[dict] = []

    def write(rel: str, text: str, fmt: str, kind: str, **extra: Any) -> None:
        data = text.encode("utf-8")
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        files.append({"path": rel, "format": fmt, "kind": kind, "bytes": len(data),
                      "sha256": hashlib.sha256(data).hexdigest(), **extra})

    # Families: well-known licences first, then the longest texts.
    by_key = {t.key: t for t in source.licences}
    bases = [by_key[k] for k in FAMILY_BASES if k in by_key and by_key[k].words >= 100]
    rest = sorted((t for t in source.licences if t.words >= 100 and t.key not in FAMILY_BASES),
                  key=lambda t: (-t.words, t.key))
    bases = (bases + rest)[: len(plan.family_sizes)]
    base_keys = {t.key for t in bases}
    others = [t for t in source.licences if t.key not in base_keys]
    donors = [p for t in others[:400] for p in _paragraphs(t.text) if 15 <= word_count(p) <= 80][:2_000]

    # Notices, licences.
    pool = list(source.notices)
    rng.shuffle(pool)
    notices = sorted(pool[: plan.notices], key=lambda t: t.key)
    for i, t in enumerate(notices):
        write(f"notices/n{i:05d}.txt", t.text + "\n", "text", "notice", source_key=t.key, words=t.words)
    lic_pool = list(source.licences)
    rng.shuffle(lic_pool)
    standalone = [t for t in lic_pool if t.key in base_keys] + [t for t in lic_pool if t.key not in base_keys]
    standalone = sorted(standalone[: plan.licences], key=lambda t: t.key)
    for t in standalone:
        write(f"licences/{t.key}.txt", t.text + "\n", "text", "licence", source_key=t.key, words=t.words)

    # Variant families: the shortest texts have the most variants (as MIT and BSD do).
    families = []
    for size, base in zip(plan.family_sizes, sorted(bases, key=lambda t: (t.words, t.key)), strict=True):
        members = []
        for j in range(size):
            vr = random.Random(f"boilerplate/{seed}/variant/{base.key}/{j}")
            text, edits = vary(base.text, vr, names, donors)
            if edits["layout"] == "html":
                rel = f"variants/{base.key}/v{j:03d}.html"
                write(rel, synth.to_html(text, base.key), "html", "variant", family=base.key)
            else:
                rel = f"variants/{base.key}/v{j:03d}.txt"
                write(rel, text, "text", "variant", family=base.key)
            members.append({"path": rel, "edits": edits})
        families.append({"base": base.key, "words": base.words, "size": size, "members": members})

    # Packages: notices by popularity, unique prose, sometimes a full licence.
    ranks, packages = _assign(plan, rng)
    prose_stream = Prose(seed)
    appendable = sorted((t for t in others if len(t.text) <= 15_000), key=lambda t: t.key)
    rng.shuffle(appendable)
    harmonic = [1 / (r + 1) for r in range(len(appendable))]
    cum_h = np.cumsum(harmonic).tolist() if appendable else []
    containers = []
    for pk in packages:
        pr = random.Random(f"boilerplate/{seed}/package/{pk.index}")
        r = pr.random()
        kind = "debian" if r < 0.55 else "notice" if r < 0.85 else "html"
        licence = None
        if appendable and pr.random() < plan.appended_licence:
            licence = appendable[min(len(appendable) - 1, bisect.bisect_left(cum_h, pr.random() * cum_h[-1]))]
        prose = prose_stream.take(200 + int(pr.random() * 600))
        fname, text = _package_text(pk, kind, pr, names, notices, licence, prose)
        rel = f"packages/p{pk.index:05d}/{fname}"
        write(rel, text, "html" if kind == "html" else "text", "package", style=kind)
        containers.append({"path": rel, "notices": [i for i in pk.notices if i not in pk.partial],
                           "partial": [[i, pk.partial[i]] for i in pk.notices if i in pk.partial],
                           "licence": licence.key if licence else None})

    # Filings, each with its certifications.
    fmts = [("text", "html", "edgar")[j % 3] for j in range(plan.filings)]
    rng.shuffle(fmts)
    filings = []
    for j, fmt in enumerate(fmts):
        fseed = seed * 1_000_000 + 500_000 + j
        fr = random.Random(f"boilerplate/{seed}/filing/{j}")
        co = synth.filing_company(fseed)
        year = int(co["year"])
        filed = f"{year + 1}{2 + int(fr.random() * 2):02d}{1 + int(fr.random() * 28):02d}"
        date = f"{filed[:4]}-{filed[4:6]}-{filed[6:]}"
        body, _ = synth.filing(fseed, 4_000 + int(fr.random() * 6_000))
        ex31 = synth.certification(fseed, date) + "\n"
        ex32 = _EX32.format(CO=co["name"], YEAR=year, PERSON=co["officer"], TITLE=co["officer_title"], DATE=date)
        if fmt == "edgar":
            accession = f"{co['cik']}-{(year + 1) % 100:02d}-{j:06d}"
            tick = "".join(w[0] for w in co["name"].split()[:3]).lower()
            as_html = fr.random() < 0.5
            text = _edgar(co, accession, filed, [
                ("10-K", f"{tick}-10k_{year}.{'htm' if as_html else 'txt'}", "FORM 10-K",
                 synth.to_html(body, f"{co['name']} Form 10-K {year}") if as_html else body),
                ("EX-31.1", f"{tick}-ex311_{year}.txt", "CERTIFICATION", ex31),
                ("EX-32.1", f"{tick}-ex321_{year}.txt", "CERTIFICATION", ex32)])
            rel = f"filings/edgar/{accession}.txt"
        else:
            text = (f"{body}\n\nEXHIBIT 31.1\n\n{ex31}\n\nEXHIBIT 32.1\n\n{ex32}")
            if fmt == "html":
                text, rel = synth.to_html(text, f"{co['name']} Form 10-K {year}"), f"filings/html/f{j:04d}.htm"
            else:
                rel = f"filings/text/f{j:04d}.txt"
        write(rel, text, fmt, "filing")
        filings.append({"path": rel, "format": fmt, "company": co["name"],
                        "certifications": ["EX-31.1", "EX-32.1"]})

    files.sort(key=lambda f: f["path"])
    truth = {
        "generator": "benchmarks/boilerplate.py",
        "version": CORPUS_VERSION,
        "params": {"docs": docs, "seed": seed, "shingle_k": 5, "plan": plan.as_dict(), "source": source.describe()},
        "notices": [{"id": i, "path": f"notices/n{i:05d}.txt", "source_key": t.key, "label": t.label,
                     "words": t.words} for i, t in enumerate(notices)],
        "notice_ranks": ranks,
        "licences": [t.key for t in standalone],
        "families": families,
        "containers": containers,
        "filings": filings,
        "files": files,
        "notes": [
            "containers[].notices: notices placed whole (verbatim, Debian-indented, or in HTML); "
            "containers[].partial: [notice, fraction of its words] placed truncated (must not count as "
            "containing the notice, unless other text supplies the rest)",
            "families[].members[].edits: holder line, placeholders filled, clause dropped/inserted/reworded, layout",
            "filings: every filing carries an EX-31.1 and an EX-32.1 certification; EDGAR submissions as "
            "separate documents, plain-text and HTML filings inline",
            "the accuracy check uses exact containment computed from the store, not this file",
        ],
    }
    truth["summary"] = summarize_truth(truth)
    return truth


def _quantiles(xs: Sequence[float]) -> dict:
    if not xs:
        return {"n": 0}
    s = sorted(xs)

    def q(p: float) -> float:
        return s[min(len(s) - 1, int(p * len(s)))]

    return {"n": len(s), "min": s[0], "p10": q(0.1), "median": statistics.median(s), "p90": q(0.9),
            "p99": q(0.99), "max": s[-1], "mean": round(sum(s) / len(s), 2)}


def summarize_truth(truth: dict) -> dict:
    files = truth["files"]
    per_notice = Counter(i for c in truth["containers"] for i in c["notices"])
    kinds = Counter(f["kind"] for f in files)
    return {
        "files": len(files),
        "bytes": sum(f["bytes"] for f in files),
        "by_kind": {k: {"files": kinds[k], "bytes": sum(f["bytes"] for f in files if f["kind"] == k)}
                    for k in sorted(kinds)},
        "by_format": dict(sorted(Counter(f["format"] for f in files).items())),
        "notices": len(truth["notices"]),
        "placements": sum(per_notice.values()),
        "partial_placements": sum(len(c["partial"]) for c in truth["containers"]),
        "containers_per_notice": _quantiles([per_notice.get(n["id"], 0) for n in truth["notices"]]),
        "notices_in_100_or_more": sum(1 for n in truth["notices"] if per_notice.get(n["id"], 0) >= 100),
        "notices_in_1000_or_more": sum(1 for n in truth["notices"] if per_notice.get(n["id"], 0) >= 1000),
        "notices_per_package": _quantiles([len(c["notices"]) + len(c["partial"]) for c in truth["containers"]]),
        "packages_with_licence": sum(1 for c in truth["containers"] if c["licence"]),
        "family_sizes": [f["size"] for f in truth["families"]],
        "family_bases": [f["base"] for f in truth["families"]],
        "filings": len(truth["filings"]),
        "certifications": sum(len(f["certifications"]) for f in truth["filings"]),
    }


def ensure_corpus(docs: int, seed: int, cache: Path, source_fn: Callable[[], Source], source_name: str,
                  log: Callable[[str], None] = print) -> tuple[Path, dict | None]:
    """The corpus directory (``cache/corpus-boilerplate-<docs>``), generated unless a corpus of
    the same version, size, seed and source is cached there. Returns (directory, generation
    figures or None when reused)."""
    d = cache / f"corpus-boilerplate-{docs}"
    truth = d / "truth.json"
    if truth.exists():
        try:
            t = json.loads(truth.read_text(encoding="utf-8"))
            p = t["params"]
            if (t.get("version"), p["docs"], p["seed"], p["source"]["name"]) == (CORPUS_VERSION, docs, seed, source_name):
                return d, None
        except (ValueError, KeyError):
            pass
    if d.exists():
        shutil.rmtree(d)
    t0 = time.perf_counter()
    source = source_fn()
    t1 = time.perf_counter()
    tr = generate(d, source, docs, seed)
    truth.write_text(json.dumps(tr, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    gen = {"read_source_s": t1 - t0, "generate_s": time.perf_counter() - t1}
    log(f"generated {d}: {tr['summary']['files']} files, {tr['summary']['bytes'] / 1e6:.1f} MB "
        f"in {gen['generate_s']:.1f} s (source read in {gen['read_source_s']:.1f} s)")
    return d, gen


# -- exact containment, by brute force -----------------------------------------------------------------

def audited_where(con: sqlite3.Connection) -> str:
    """SQL condition on ``documents d``: documents the audit speaks for."""
    cols = {r[1] for r in con.execute("PRAGMA table_info(documents)")}
    cond = "d.duplicate_of IS NULL AND d.n_words > 0"
    if "withdrawn" in cols:
        cond += " AND coalesce(d.withdrawn, 0) = 0"
    return cond


@dataclass
class ExactIndex:
    """Every audited document's distinct full shingles, and the inverted index over them."""

    ids: np.ndarray  # audited document ids, ascending
    n: np.ndarray  # distinct shingles per document
    ptr: np.ndarray  # document i's hashes are hashes[ptr[i]:ptr[i+1]]
    hashes: np.ndarray  # document-major, sorted within each document
    post_hash: np.ndarray  # every (hash, document position), sorted by hash
    post_doc: np.ndarray
    n_sampled: np.ndarray  # sampled shingles per document in the store's index (0: not in it)
    paths: list[str]
    params: Params

    @classmethod
    def build(cls, db: Path) -> ExactIndex:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        con.create_function("auditor_text", 1, sql_text, deterministic=True)  # texts are stored compressed
        try:
            meta = con.execute("SELECT value FROM meta WHERE key = 'index_params'").fetchone()
            params = Params(**json.loads(meta[0])) if meta else Params()
            hasher = WordHasher(params.seed)
            ids, lens, parts, paths, sampled = [], [], [], [], []
            for doc_id, text, path, ns in con.execute(
                "SELECT d.id, auditor_text(t.text), d.path, coalesce(i.n_sampled, 0) FROM documents d"
                " JOIN texts t ON t.doc_id = d.id LEFT JOIN index_docs i ON i.doc_id = d.id"
                f" WHERE {audited_where(con)} ORDER BY d.id"
            ):
                h = distinct(combine(hasher(words_bytes(text)), params.k))
                ids.append(doc_id)
                lens.append(len(h))
                parts.append(h)
                paths.append(path)
                sampled.append(ns)
        finally:
            con.close()
        n = np.array(lens, dtype=np.int64)
        hashes = np.concatenate(parts) if parts else np.empty(0, np.uint64)
        del parts
        owner = np.repeat(np.arange(len(ids), dtype=np.int32), n)
        order = np.argsort(hashes, kind="stable")
        return cls(np.array(ids, dtype=np.int64), n, np.concatenate(([0], np.cumsum(n))), hashes,
                   hashes[order], owner[order], np.array(sampled, dtype=np.int64), paths, params)

    def shared(self, i: int) -> np.ndarray:
        """|S(i) & S(j)| for every document position j (j = i included)."""
        s = self.hashes[self.ptr[i]: self.ptr[i + 1]]
        lo = np.searchsorted(self.post_hash, s, "left")
        hi = np.searchsorted(self.post_hash, s, "right")
        lens = hi - lo
        offs = np.repeat(lo - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
        docs = self.post_doc[offs + np.arange(int(lens.sum()))]
        return np.bincount(docs, minlength=len(self.ids))

    def postings_per_shingle(self) -> np.ndarray:
        """Documents per distinct shingle (the full shingles' document frequencies)."""
        if len(self.post_hash) == 0:
            return np.empty(0, np.int64)
        edges = np.flatnonzero(np.concatenate(([True], self.post_hash[1:] != self.post_hash[:-1], [True])))
        return np.diff(edges)


def _doc_id(x: Any) -> int:
    return int(x["doc_id"]) if isinstance(x, dict) else int(x)


def reported_pairs(report_dir: Path) -> tuple[str, Iterator[tuple[int, int, float | None, str]]]:
    """(the format read, an iterator of (contained, container, containment or None, how)).

    ``findings.jsonl.gz`` (every containing pair, report format 2) when present; otherwise the
    ``report.json`` findings, every ordered pair of each near-duplicate cluster and of each
    exact-duplicate group (format 1).
    """
    jl = report_dir / "findings.jsonl.gz"
    if jl.exists():
        def lines() -> Iterator[tuple[int, int, float | None, str]]:
            with gzip.open(jl, "rt", encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        o = json.loads(line)
                        c = o.get("containment")
                        yield _doc_id(o["contained"]), _doc_id(o["container"]), (None if c is None else float(c)), "pair"
        return "findings.jsonl.gz", lines()
    report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))

    def legacy() -> Iterator[tuple[int, int, float | None, str]]:
        for f in report.get("findings") or []:
            yield _doc_id(f["contained"]), _doc_id(f["container"]), f.get("containment"), "finding"
        for c in report.get("near_duplicate_clusters") or []:
            ms = [_doc_id(m) for m in c["members"]]
            yield from ((a, b, None, "cluster") for a in ms for b in ms if a != b)
        for g in report.get("duplicate_groups") or []:
            ms = [_doc_id(m) for m in (g["members"] if isinstance(g, dict) else g)]
            yield from ((a, b, None, "duplicate group") for a in ms for b in ms if a != b)
    return f"report.json ({report.get('format', '?')})", legacy()


def _kind_of(path: str) -> str:
    parts = Path(path.split("#", 1)[0]).parts
    return next((p for p in parts if p in CORPUS_DIRS), "other")


def check_accuracy(db: Path, report_dir: Path, *, sample: int = 300, seed: int = 1,
                   threshold: float = THRESHOLD, index: ExactIndex | None = None,
                   examples: int = 10) -> dict:
    """Containing pairs of the audit against exact containment, for a seeded sample of documents.

    For each sampled document X, every audited document D is checked both ways: X in D
    (|S(X) & S(D)| / |S(X)|) and D in X. A true pair has exact containment >= threshold.
    *recall* = true pairs reported / true pairs; a *false finding* is a reported pair whose exact
    value is below the threshold. Reported documents are mapped to the first of their
    exact-duplicate group; pairs naming documents outside the audited set are counted apart.
    """
    t0 = time.perf_counter()
    idx = index or ExactIndex.build(db)
    build_s = time.perf_counter() - t0
    N = len(idx.ids)
    pos_of = {int(d): i for i, d in enumerate(idx.ids.tolist())}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rep_of = {int(a): int(b) for a, b in con.execute("SELECT id, duplicate_of FROM documents WHERE duplicate_of IS NOT NULL")}
    con.close()
    picks = sorted(random.Random(f"accuracy/{seed}").sample(range(N), min(sample, N)))
    in_sample = set(picks)

    fmt, pairs = reported_pairs(report_dir)
    reported: dict[tuple[int, int], tuple[float | None, str]] = {}
    outside: Counter[str] = Counter()
    self_pairs = n_read = 0
    for a, b, c, how in pairs:
        n_read += 1
        a, b = rep_of.get(a, a), rep_of.get(b, b)
        pa, pb = pos_of.get(a), pos_of.get(b)
        if pa is None or pb is None:
            outside[how] += 1
            continue
        if pa == pb:
            self_pairs += 1
            continue
        if pa in in_sample or pb in in_sample:
            reported.setdefault((pa, pb), (c, how))

    t1 = time.perf_counter()
    involving: dict[int, list[tuple[int, int]]] = {}  # sampled document -> reported pairs naming it
    for pair in reported:
        for x in {pair[0], pair[1]} & in_sample:
            involving.setdefault(x, []).append(pair)
    true_pairs: dict[tuple[int, int], float] = {}
    value: dict[tuple[int, int], float] = {}  # exact containment of every reported pair in the sample
    near = 0
    for x in picks:
        inter = idx.shared(x)
        inter[x] = 0
        nz = np.flatnonzero(inter)
        cin = inter[nz] / idx.n[x] if idx.n[x] else np.zeros(len(nz))  # x in d
        cby = inter[nz] / idx.n[nz]  # d in x
        for d, c in zip(nz[cin >= threshold].tolist(), cin[cin >= threshold].tolist(), strict=True):
            true_pairs[(x, d)] = c
        for d, c in zip(nz[cby >= threshold].tolist(), cby[cby >= threshold].tolist(), strict=True):
            true_pairs[(d, x)] = c
        near += int(((cin >= threshold - 0.1) & (cin < threshold)).sum() + ((cby >= threshold - 0.1) & (cby < threshold)).sum())
        for a, b in involving.get(x, ()):
            if a == x:
                value[(a, b)] = float(inter[b] / idx.n[x]) if idx.n[x] else 0.0
            else:
                value[(a, b)] = float(inter[a] / idx.n[a]) if idx.n[a] else 0.0
    exact_s = time.perf_counter() - t1

    def exact(p: tuple[int, int]) -> float:
        return true_pairs.get(p, value.get(p, 0.0))

    def describe(p: tuple[int, int], value: float, **more: Any) -> dict:
        a, b = p
        return {"contained": int(idx.ids[a]), "contained_path": idx.paths[a], "contained_sampled": int(idx.n_sampled[a]),
                "container": int(idx.ids[b]), "container_path": idx.paths[b], "exact": round(value, 6), **more}

    found = [p for p in true_pairs if p in reported]
    missed = sorted(p for p in true_pairs if p not in reported)
    false = sorted(p for p in reported if p not in true_pairs)
    mismatch = sorted(p for p, (c, _) in reported.items() if c is not None and p in true_pairs
                      and abs(c - true_pairs[p]) > 1e-6)

    def direction(sel: Callable[[tuple[int, int]], bool]) -> dict:
        t = [p for p in true_pairs if sel(p)]
        f = sum(1 for p in t if p in reported)
        return {"true_pairs": len(t), "found": f, "recall": f / len(t) if t else 1.0,
                "false_findings": sum(1 for p in false if sel(p))}

    by_kind: dict[str, Counter] = {}
    for p in true_pairs:
        k = by_kind.setdefault(_kind_of(idx.paths[p[0]]), Counter())
        k["true_pairs"] += 1
        k["found"] += p in reported
    missed_unsampled = sum(1 for p in missed if idx.n_sampled[p[0]] == 0)
    return {
        "format": fmt,
        "threshold": threshold,
        "audited_documents": N,
        "sample": len(picks),
        "sample_by_kind": dict(sorted(Counter(_kind_of(idx.paths[x]) for x in picks).items())),
        "reported_pairs_read": n_read,
        "reported_pairs_in_sample": len(reported),
        "reported_outside_audited": dict(outside),
        "reported_self_pairs": self_pairs,
        "true_pairs": len(true_pairs),
        "found": len(found),
        "recall": len(found) / len(true_pairs) if true_pairs else 1.0,
        "false_findings": len(false),
        "false_by_source": dict(sorted(Counter(reported[p][1] for p in false).items())),
        "value_mismatches": len(mismatch),
        "contained_in_sample": direction(lambda p: p[0] in in_sample),
        "container_in_sample": direction(lambda p: p[1] in in_sample),
        "true_pairs_by_contained_kind": {k: {**v, "recall": v["found"] / v["true_pairs"]} for k, v in sorted(by_kind.items())},
        "missed": len(missed),
        "missed_not_in_sampled_index": missed_unsampled,
        "missed_examples": [describe(p, exact(p)) for p in missed[:examples]],
        "false_examples": [describe(p, exact(p), reported=reported[p][0], source=reported[p][1]) for p in false[:examples]],
        "mismatch_examples": [describe(p, exact(p), reported=reported[p][0]) for p in mismatch[:examples]],
        "near_threshold": near,
        "seconds": {"exact_index": round(build_s, 2), "exact_sample": round(exact_s, 2)},
    }


# -- corpus statistics from the store ---------------------------------------------------------------

def store_stats(db: Path, idx: ExactIndex | None = None) -> dict:
    """Documents, postings per sampled shingle (and per full shingle when ``idx`` is given)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        out: dict[str, Any] = {
            "documents": con.execute("SELECT count(*) FROM documents").fetchone()[0],
            "with_text": con.execute("SELECT count(*) FROM documents WHERE n_words > 0").fetchone()[0],
            "duplicates": con.execute("SELECT count(*) FROM documents WHERE duplicate_of IS NOT NULL").fetchone()[0],
            "audited": con.execute(f"SELECT count(*) FROM documents d WHERE {audited_where(con)}").fetchone()[0],
            "not_in_sampled_index": con.execute(
                f"SELECT count(*) FROM documents d LEFT JOIN index_docs i ON i.doc_id = d.id WHERE {audited_where(con)}"
                " AND coalesce(i.n_sampled, 0) = 0").fetchone()[0],
            "words": con.execute("SELECT sum(n_words) FROM documents WHERE duplicate_of IS NULL").fetchone()[0],
            "failures": con.execute("SELECT count(*) FROM failures").fetchone()[0],
            "db_bytes": db.stat().st_size,
        }
        blobs = [np.frombuffer(b, dtype=np.uint64) for (b,) in con.execute(
            f"SELECT i.sampled FROM index_docs i JOIN documents d ON d.id = i.doc_id WHERE {audited_where(con)}")]
    finally:
        con.close()
    allh = np.sort(np.concatenate(blobs)) if blobs else np.empty(0, np.uint64)
    out["postings"] = len(allh)
    if len(allh):
        edges = np.flatnonzero(np.concatenate(([True], allh[1:] != allh[:-1], [True])))
        out["sampled_postings_per_shingle"] = df_summary(np.diff(edges))
    if idx is not None:
        out["full_postings_per_shingle"] = df_summary(idx.postings_per_shingle())
        out["distinct_shingles_per_document"] = _quantiles(idx.n.tolist())
    return out


def df_summary(df: np.ndarray) -> dict:
    """Distribution of documents per shingle: quantiles over shingles, and where the postings are."""
    df = np.sort(df)
    total = int(df.sum())
    q = {k: int(df[min(len(df) - 1, int(p * len(df)))]) for k, p in
         (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999))} if len(df) else {}
    buckets = {}
    for lo, hi in ((1, 1), (2, 9), (10, 99), (100, 999), (1000, 10**12)):
        m = (df >= lo) & (df <= hi)
        label = f"{lo}" if lo == hi else (f"{lo}+" if hi >= 10**12 else f"{lo}-{hi}")
        buckets[label] = {"shingles": int(m.sum()), "postings_share": round(int(df[m].sum()) / total, 4) if total else 0}
    return {"shingles": len(df), "postings": total, **q, "max": int(df[-1]) if len(df) else 0,
            "mean": round(total / len(df), 2) if len(df) else 0, "buckets": buckets}


# -- the benchmark -------------------------------------------------------------------------------------

def _median(xs: Sequence[float | None]) -> float | None:
    ys = [x for x in xs if x is not None]
    return statistics.median(ys) if ys else None


def report_files(d: Path) -> dict[str, int]:
    return {str(p.relative_to(d)): p.stat().st_size for p in sorted(d.rglob("*")) if p.is_file()}


def bench(args: argparse.Namespace, source: Source | None = None) -> dict:
    """The ``run`` command: corpus (from ``source`` if given), then per repeat a fresh store,
    ``auditor ingest`` and ``auditor audit --out`` timed as processes, report file sizes; corpus
    statistics and the accuracy check once."""
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    logdir = work / "logs"

    corpus, generated = ensure_corpus(args.docs, args.seed, args.cache,
                                      (lambda: source) if source else (lambda: load_source(args)),
                                      source.name if source else source_name(args))
    truth = json.loads((corpus / "truth.json").read_text(encoding="utf-8"))
    db, report_dir = work / "store.db", work / "report"
    runs: list[dict[str, Any]] = []
    accuracy: dict | None = None
    stats: dict | None = None
    for r in range(args.repeat):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        if report_dir.exists():
            shutil.rmtree(report_dir)
        ld = logdir / f"r{r}"
        ingest = measure("ingest", auditor_cmd("ingest", "--db", str(db), "-q", "--json",
                                                *[str(corpus / d) for d in CORPUS_DIRS if (corpus / d).exists()]),
                         ld, parse_json=True)
        audit = measure("audit", auditor_cmd("audit", "--db", str(db), "--out", str(report_dir),
                                             "--threshold", str(args.threshold)),
                        ld, check=False, timeout=args.audit_timeout)
        run: dict[str, Any] = {"ingest": ingest.as_dict(), "audit": audit.as_dict(), "audit_rc": audit.rc,
               "timed_out": audit.timed_out}
        if audit.rc not in (0, 1) and not run["timed_out"]:
            tail = (ld / "audit.err").read_text(encoding="utf-8", errors="replace")[-3000:]
            raise RuntimeError(f"auditor audit failed (exit {audit.rc}):\n{tail}")
        if report_dir.exists():
            run["report_files"] = report_files(report_dir)
        print(f"  r{r}: ingest {ingest.wall:.1f} s ({ingest.tree_rss_mb:.0f} MB), audit job "
              + ("timed out" if run["timed_out"] else f"{audit.wall:.1f} s, {audit.tree_rss_mb:.0f} MB tree RSS")
              + (f"; report.json {run['report_files'].get('report.json', 0) / 1e6:.1f} MB" if run.get("report_files") else ""),
              flush=True)
        has_report = (report_dir / "report.json").exists() and not run["timed_out"]
        want_accuracy = accuracy is None and has_report and args.sample > 0
        if stats is None or want_accuracy:  # built from this repeat's store, then dropped
            t = time.perf_counter()
            idx = ExactIndex.build(db)
            if stats is None:  # the corpus as stored, with the full shingles' document frequencies
                stats = store_stats(db, idx)
                stats["exact_index_s"] = round(time.perf_counter() - t, 1)
            if want_accuracy:
                accuracy = check_accuracy(db, report_dir, sample=args.sample, seed=args.seed,
                                          threshold=args.threshold, index=idx)
                print(f"  accuracy on {accuracy['sample']} sampled documents ({accuracy['format']}): "
                      f"recall {accuracy['recall']:.4f} ({accuracy['found']}/{accuracy['true_pairs']}), "
                      f"{accuracy['false_findings']} false", flush=True)
            del idx
        runs.append(run)
    if not args.keep_db:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)

    def stage(name: str) -> dict:
        keys = ("wall", "cpu", "tree_rss_mb", "maxrss_mb", "parallelism", "others")
        return {k: _median([r[name].get(k) for r in runs]) for k in keys} | {"n": len(runs)}

    ok = [r for r in runs if not r["timed_out"] and r["audit_rc"] in (0, 1)]
    sizes = {k: _median([r["report_files"].get(k) for r in ok if k in r.get("report_files", {})])
             for k in sorted({k for r in ok for k in r.get("report_files", {})})}
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join(["python", "benchmarks/boilerplate.py", *getattr(args, "argv", ["run"])]),
        "machine": machine(), "source": source_state(), "python": PY,
        "corpus": {"path": str(corpus), "generated": generated, "params": truth["params"], "summary": truth["summary"]},
        "store": stats,
        "stages": {"ingest": stage("ingest"), "audit": stage("audit")},
        "audit_timed_out": len(ok) < len(runs),
        "report_files": sizes,
        "accuracy": accuracy,
        "repeats": len(runs),
        "runs": runs,
    }


# -- rendering -------------------------------------------------------------------------------------------

TARGETS = {"audit_s": 120.0, "rss_mb": 2048.0, "report_json_mb": 20.0, "report_html_mb": 10.0,
           "report_md_mb": 5.0, "recall": 0.98}


def _f(x: float | None, nd: int = 2) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


def _mb(x: float | None) -> str:
    return "-" if x is None else f"{x / 1e6:.1f}"


def render_section(res: dict) -> str:
    c = res["corpus"]["summary"]
    st = res.get("store") or {}
    a = res.get("accuracy")
    au, ing = res["stages"]["audit"], res["stages"]["ingest"]
    files = res.get("report_files") or {}
    L = [BOILERPLATE_BEGIN, "## Boilerplate-dense corpus", "",
         f"Run {res['date']} with `{res['command']}` on commit {res['source'].get('commit', '?')[:10]}"
         + (f" (uncommitted changes to {', '.join(res['source']['modified'])})" if res["source"].get("modified") else "")
         + f"; {res['repeats']} repeat{'s' if res['repeats'] != 1 else ''}, medians.", "",
         f"Real licence texts and notices from `{c and res['corpus']['params']['source']['name']}` "
         "(`benchmarks/boilerplate.py`): short notices each placed in hundreds to thousands of package "
         "documents (Debian `copyright`, `NOTICE`, `about.html`), families of near-identical licence "
         "variants, full licence texts, and annual-report filings each with its EX-31 and EX-32 "
         "certifications.", "",
         "| corpus | |", "|---|---|",
         f"| files | {c['files']:,} ({c['bytes'] / 1e6:.1f} MB): "
         + ", ".join(f"{k} {v['files']:,} ({v['bytes'] / 1e6:.1f} MB)" for k, v in c["by_kind"].items()) + " |",
         f"| stored documents | {st.get('documents', '?'):,} ({st.get('audited', '?'):,} audited: with text, not exact "
         f"duplicates; {st.get('duplicates', '?'):,} exact duplicates; {st.get('not_in_sampled_index', '?'):,} audited "
         "documents without a sampled shingle) |" if st else "| stored documents | - |",
         f"| notices | {c['notices']:,}; {c['placements']:,} placements (+{c['partial_placements']:,} truncated); "
         f"containers per notice: median {c['containers_per_notice']['median']:g}, p90 {c['containers_per_notice']['p90']:g}, "
         f"max {c['containers_per_notice']['max']:g}; {c['notices_in_100_or_more']:,} notices in 100+ documents, "
         f"{c['notices_in_1000_or_more']:,} in 1,000+ |",
         f"| notices per package document | median {c['notices_per_package']['median']:g}, mean "
         f"{c['notices_per_package']['mean']:g}, p90 {c['notices_per_package']['p90']:g}, max {c['notices_per_package']['max']:g} |",
         f"| variant families | {len(c['family_sizes'])} families, sizes {min(c['family_sizes'])}-{max(c['family_sizes'])} "
         f"({sum(c['family_sizes']):,} documents): " + ", ".join(f"{b} {s}" for b, s in zip(c["family_bases"], c["family_sizes"], strict=True)) + " |",
         f"| filings | {c['filings']:,}, {c['certifications']:,} certifications |"]
    for key, label in (("sampled_postings_per_shingle", "postings per sampled shingle"),
                       ("full_postings_per_shingle", "documents per shingle (all shingles)")):
        d = st.get(key)
        if d:
            L.append(f"| {label} | {d['shingles']:,} shingles, {d['postings']:,} postings; median {d['p50']}, p90 {d['p90']}, "
                     f"p99 {d['p99']}, p99.9 {d['p999']}, max {d['max']:,}; share of postings in shingles of "
                     + ", ".join(f"{k} docs {v['postings_share']:.0%}" for k, v in d["buckets"].items()) + " |")
    L += ["", "| measure | value | target |", "|---|---|---|",
          f"| ingest (wall, tree RSS) | {ing['wall']:.1f} s, {ing['tree_rss_mb']:.0f} MB (other load "
          f"{_f(ing.get('others'))} cores) | |"]
    if res.get("audit_timed_out"):
        L.append(f"| audit job (`auditor audit --out DIR`: controls, audit, every report file) | timed out "
                 f"after {au['wall']:.0f} s | <= {TARGETS['audit_s']:.0f} s |")
    else:
        L.append(f"| audit job (`auditor audit --out DIR`: controls, audit, every report file) | {au['wall']:.1f} s "
                 f"(CPU {au['cpu']:.1f} s, {au['parallelism']:.2f} cores; other load {_f(au.get('others'))} cores) "
                 f"| <= {TARGETS['audit_s']:.0f} s |")
    L.append(f"| its peak memory, summed over the process tree | {au['tree_rss_mb']:.0f} MB (largest process "
             f"{au['maxrss_mb']:.0f} MB{'; until stopped' if res.get('audit_timed_out') else ''}) "
             f"| <= {TARGETS['rss_mb']:.0f} MB |")
    L.append(f"| report.json / report.html / report.md | {_mb(files.get('report.json'))} / {_mb(files.get('report.html'))} / "
             f"{_mb(files.get('report.md'))} MB | <= 20 / 10 / 5 MB |")
    side = {k: v for k, v in files.items() if k not in ("report.json", "report.html", "report.md")}
    if side:
        L.append("| other report files | " + ", ".join(f"{k} {_mb(v)} MB" for k, v in side.items()) + " | |")
    if a:
        L.append(f"| containing pairs against exact containment ({a['sample']} sampled documents, both directions; "
                 f"read from {a['format']}) | recall {a['recall']:.4f} ({a['found']:,}/{a['true_pairs']:,}), "
                 f"{a['false_findings']} false | recall >= 0.98, 0 false |")
        L += ["", f"Accuracy detail: sample by kind {a['sample_by_kind']}; true pairs with the sampled document "
              f"contained {a['contained_in_sample']['true_pairs']:,} (recall {a['contained_in_sample']['recall']:.4f}), "
              f"as container {a['container_in_sample']['true_pairs']:,} (recall {a['container_in_sample']['recall']:.4f}); "
              "recall by the contained document's kind: "
              + ", ".join(f"{k} {v['found']:,}/{v['true_pairs']:,}" for k, v in a["true_pairs_by_contained_kind"].items())
              + f"; {a['missed']:,} missed, of which {a['missed_not_in_sampled_index']:,} have no sampled shingle; "
              f"false findings by source {a['false_by_source'] or '{}'}; reported values differing from the exact "
              f"value: {a['value_mismatches']}; {a['near_threshold']:,} pairs within 0.1 below the threshold."]
    elif res.get("audit_timed_out"):
        L += ["", "Accuracy: not measured: the audit job was stopped at `--audit-timeout`, so there is no report."]
    else:
        L += ["", "Accuracy: not measured."]
    L += ["", BOILERPLATE_END]
    return "\n".join(L)


def write_section(markdown: Path, res: dict) -> None:
    """Put the section into RESULTS.md (replacing its previous rendering, before the analysis)."""
    section = render_section(res)
    old = markdown.read_text(encoding="utf-8") if markdown.exists() else ""
    if BOILERPLATE_BEGIN in old and BOILERPLATE_END in old:
        new = old[: old.index(BOILERPLATE_BEGIN)] + section + old[old.index(BOILERPLATE_END) + len(BOILERPLATE_END):]
    elif NOTES_BEGIN in old:
        i = old.index(NOTES_BEGIN)
        new = old[:i] + section + "\n\n" + old[i:]
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + section + "\n"
    markdown.write_text(new, encoding="utf-8")


# -- command line ----------------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="write the corpus and its truth.json")
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--docs", type=int, default=DEFAULT_DOCS)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--wheel", type=Path, help="the scancode-toolkit wheel (default: downloaded into --cache)")
    g.add_argument("--source-dir", type=Path, help="build from the licence files of this directory instead "
                   "(e.g. /usr/share/common-licenses)")
    g.add_argument("--cache", type=Path, default=HERE, help="corpus-sources/ (the downloaded wheel) is kept here")
    c = sub.add_parser("check", help="an audit's containing pairs against exact containment")
    c.add_argument("--db", type=Path, required=True)
    c.add_argument("--report", type=Path, required=True, help="the report directory")
    c.add_argument("--sample", type=int, default=300)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--threshold", type=float, default=THRESHOLD)
    c.add_argument("--min-recall", type=float, default=TARGETS["recall"], help="exit 1 below this recall "
                   "or on any false finding (default %(default)g, issue 11's target)")
    r = sub.add_parser("run", help="generate (cached), ingest, audit job, sizes, accuracy; RESULTS.md section")
    r.add_argument("--docs", type=int, default=DEFAULT_DOCS)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--repeat", type=int, default=3)
    r.add_argument("--sample", type=int, default=300, help="documents in the accuracy sample (0: skip)")
    r.add_argument("--threshold", type=float, default=THRESHOLD)
    r.add_argument("--audit-timeout", type=float, help="stop the audit job after this many seconds")
    r.add_argument("--wheel", type=Path, help="the scancode-toolkit wheel (default: downloaded into the cache)")
    r.add_argument("--source-dir", type=Path, help="build from the licence files of this directory instead")
    r.add_argument("--cache", type=Path, default=HERE, help="where corpus-boilerplate-<docs>/ and corpus-sources/ are kept")
    r.add_argument("--work", type=Path, default=HERE / "out" / "boilerplate", help="store, report and logs")
    r.add_argument("--results", type=Path, help="results JSON (default: benchmarks/results-boilerplate.json, "
                   "or WORK/results-boilerplate.json with --work)")
    r.add_argument("--markdown", type=Path, help="RESULTS.md to update (default: benchmarks/RESULTS.md, "
                   "unless --work is given)")
    r.add_argument("--keep-db", action="store_true")
    r.add_argument("--render", action="store_true", help="only re-render the RESULTS.md section from --results")
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    args.argv = argv

    if args.cmd == "generate":
        t0 = time.perf_counter()
        source = load_source(args)
        t1 = time.perf_counter()
        args.out.mkdir(parents=True, exist_ok=True)
        truth = generate(args.out, source, args.docs, args.seed)
        (args.out / "truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        s = truth["summary"]
        kinds = ", ".join(f"{k} {v['files']}" for k, v in s["by_kind"].items())
        print(f"{s['files']} files, {s['bytes'] / 1e6:.1f} MB ({kinds}); "
              f"{s['placements']} notice placements; source read in {t1 - t0:.1f} s, generated in "
              f"{time.perf_counter() - t1:.1f} s -> {args.out}")
        return 0
    if args.cmd == "check":
        res = check_accuracy(args.db, args.report, sample=args.sample, seed=args.seed, threshold=args.threshold)
        print(json.dumps(res, indent=1, sort_keys=True))
        return 0 if res["recall"] >= args.min_recall and res["false_findings"] == 0 else 1

    custom_work = args.work != HERE / "out" / "boilerplate"
    args.results = args.results or (args.work / "results-boilerplate.json" if custom_work else HERE / "results-boilerplate.json")
    if args.markdown is None and not custom_work:
        args.markdown = HERE / "RESULTS.md"
    if args.render:
        res = json.loads(args.results.read_text(encoding="utf-8"))
    else:
        res = bench(args)
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(res, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    if args.markdown:
        write_section(args.markdown, res)
    a, au = res.get("accuracy") or {}, res["stages"]["audit"]
    files = res.get("report_files") or {}
    rows = [("audit job <= 120 s", f"{au['wall']:.1f} s", not res["audit_timed_out"] and au["wall"] <= TARGETS["audit_s"]),
            ("its peak memory <= 2 GB", f"{au['tree_rss_mb']:.0f} MB", au["tree_rss_mb"] <= TARGETS["rss_mb"]),
            ("report.json <= 20 MB", f"{_mb(files.get('report.json'))} MB", (files.get("report.json") or 1e18) <= 20e6),
            ("report.html <= 10 MB", f"{_mb(files.get('report.html'))} MB", (files.get("report.html") or 1e18) <= 10e6),
            ("report.md <= 5 MB", f"{_mb(files.get('report.md'))} MB", (files.get("report.md") or 1e18) <= 5e6)]
    if a:
        rows += [("recall >= 0.98", f"{a['recall']:.4f}", a["recall"] >= TARGETS["recall"]),
                 ("0 false findings", str(a["false_findings"]), a["false_findings"] == 0)]
    for target, value, met in rows:
        print(f"{'met' if met else 'MISSED':7s} {target}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
