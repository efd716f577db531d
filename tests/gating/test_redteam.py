"""The red team of issue #25 in CI: a cheap case of every family of tests/support/redteam_cases.py
through the real gate (``run_gate``, a dry run).

Positive: each disguised document, carrying a stored contract, fails the gate by a finding that
names that contract (under its visible text or another reading) or by a fail-closed code.
Negative: the same disguises of unrelated agreements, and clean documents, pass. The batches
are gated at once (one batch of disguises, one of unrelated documents), each document judged
by its own findings; findings between documents of one batch do not count.

A disguise the gate still passes is marked ``xfail(strict=True)`` with the owner of the fix, so
the mark has to go when the hole is closed. The stored contract is a BSD licence that an installed
package ships (tests/support/realtext.py: written by others).
benchmarks/redteam.py runs all ~200 cases and checks them against real readers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import redteam_cases as rc
from tests.support import synth
from tests.support.realtext import licence

# One cheap case per family and kind of reading, by case id.
POSITIVE = [
    "hidden-junk/html-class-display-none", "hidden-junk/html-white-on-white", "hidden-junk/docx-vanish",
    "hidden-junk/docx-page-colour", "hidden-junk/docx-paragraph-shading-colour", "hidden-junk/docx-del-text",
    "hidden-junk/pdf-white", "hidden-junk/pdf-fill-opacity-0", "hidden-junk/pdf-background-colour",
    "hidden-junk/pdf-covered-by-annotation",
    "visible-not-read/html-alt-broken-image", "visible-not-read/docx-alternate-content-fallback",
    "visible-not-read/docx-duplicate-zip-entry", "visible-not-read/docx-vml-wordart",
    "visible-not-read/docx-data-bound-content-controls",
    "visible-not-read/pdf-freetext-appearance", "visible-not-read/pdf-scan-decoy-short",
    "visible-not-read/html-marker-content", "visible-not-read/html-list-style-string", "visible-not-read/html-quotes",
    "visible-not-read/html-script-document-write", "visible-not-read/html-image-of-text",
    "visible-not-read/docx-picture-of-text", "visible-not-read/pdf-scan-decoy-ocr-layer",
    "order/html-bdo-rtl", "order/html-flex-order", "order/html-flex-row-reverse", "order/txt-u202e", "order/docx-u202e", "order/pdf-shuffled-words",
    "order/pdf-wide-word-gaps",
    "look-alike/txt-underline-u0332", "look-alike/txt-letter-spaced", "look-alike/pdf-permuted-tounicode",
    "look-alike/pdf-cyrillic-tounicode-no-widths", "look-alike/html-small-capitals",
    "sniffing/txt-html-style", "sniffing/md-comment",
    "edgar-outside/between", "edgar-outside/header",
    "edgar-part/docx-vanish", "edgar-part/html-class-hidden-junk",
    # data parts of a modern 8-K (extract/data.py): each must be found, not only refused (FOUND)
    *(f"edgar-part/data-{k}" for k in ("label", "text-block", "viewer", "json", "script", "style", "xlsx", "zip",
                                       "picture")),
    "container/rtf",
    # round 3 (issue #40), the cheap ones: plain text laid out for paper, a tar
    "order/r3-txt-two-columns-tab-gutter", "order/r3-txt-two-columns-bar-gutter", "order/r3-txt-pleading-right-margin",
    "order/r3-txt-pleading-dotted", "order/r3-txt-pleading-continuous", "container/r3-tar",
]
# Disguises that fail closed whatever they carry: their negative is a clean document of the format.
FAIL_CLOSED = {"visible-not-read/docx-duplicate-zip-entry", "visible-not-read/pdf-scan-decoy-short",
               "visible-not-read/docx-picture-of-text", "visible-not-read/html-script-document-write",
               # LibreOffice draws WordArt as outlines: its rendering has no text to check the reading against
               "visible-not-read/docx-vml-wordart",
               "order/pdf-shuffled-words", "look-alike/pdf-permuted-tounicode", "container/r3-tar"}
CLEAN = ["clean/txt-unrelated-contract", "clean/html-ordinary-page", "clean/docx-with-changes", "clean/pdf-unrelated",
         "clean/edgar-unrelated", "clean/edgar-modern-8k", "clean/r3-txt-pleading-filing", "clean/r3-txt-two-columns"]
# Disguises the gate must find (a finding naming the stored contract and the part), not only refuse:
# what a data part holds is read (extract/data.py), so refusing it is no longer the answer.
FOUND = [c for c in POSITIVE if c.startswith("edgar-part/data-")]
# Holes the gate still passes on this branch, and who closes them.
# (html-image-of-text passed until the pictures of Chromium's rendering were read by OCR:
# gating/render.py, reading ocr:chromium-pictures.)
HOLES: dict[str, str] = {}


class _Same(dict):
    """Every stored-contract key of the catalogue gives one text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def __missing__(self, key: str) -> str:
        return self.text


def _catalogue(builders: list) -> tuple[list[str], list[str]]:
    """The ids of a round's disguises and of its clean documents (``clean/...``), in order."""
    ids = [c.id for build in builders for c in build(_Same("The Lessee shall pay the rent. " * 40))]
    return [i for i in ids if not i.startswith("clean/")], [i for i in ids if i.startswith("clean/")]


def _build(ids: list[str], text: str, seeds: bool = False) -> dict[str, rc.Case]:
    """The cases ``ids`` built to carry ``text``, or (``seeds``) each its own unrelated agreement."""
    if not seeds:
        return rc.build(ids, _Same(text))
    kinds = synth.CONTRACT_KINDS
    return {i: rc.build([i], _Same(synth.contract(8100 + n, 3_000, kind=kinds[n % len(kinds)])))[i]
            for n, i in enumerate(ids)}


def _gate(tmp: Path, db: Path, batch: str, cases: dict[str, rc.Case]) -> dict[str, list]:
    """Gate the cases as one batch; each case's failing findings against the corpus (or failing
    closed), by case id."""
    from auditor.gating.admission import GateOptions, run_gate

    folder = tmp / batch
    where: dict[str, str] = {}
    for case_id, case in cases.items():
        sub = folder / case_id.replace("/", "--")
        sub.mkdir(parents=True)
        for name, data in case.files.items():
            (sub / name).write_bytes(data)
            where[str(sub / name)] = case_id
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AUDITOR_NO_CACHE", "1")
        g = run_gate(GateOptions(db=db, inputs=[folder], batch=batch, dry_run=True, out=tmp / f"out-{batch}",
                                 workers=1))
    assert g.status in ("PASSED", "FAILED"), (g.status, g.refused_because, g.notes)
    found: dict[str, list] = {c: [] for c in cases}
    for f in g.findings:
        if f.level == "error" and f.kind != "within-batch":
            found[where[f.file]].append(f)
    return found


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from auditor.corpus.ingest import ingest
    from auditor.store.db import Store

    d = tmp_path_factory.mktemp("redteam")
    contract = licence("BSD")
    (d / "corpus").mkdir()
    (d / "corpus" / "stored-contract.txt").write_text(contract)
    (d / "corpus" / "lease.txt").write_text(synth.contract(8002, 5_000, kind="lease"))
    (d / "corpus" / "filing.txt").write_text(synth.filing(8003, 30_000)[0])
    with Store(d / "c.db") as store:
        ingest(store, [d / "corpus"], batch="corpus", workers=1)
    return d, contract


@pytest.fixture(scope="module")
def positives(corpus):
    d, contract = corpus
    return _gate(d, d / "c.db", "disguised", _build(POSITIVE, contract))


@pytest.fixture(scope="module")
def negatives(corpus):
    d, contract = corpus
    cases = _build([c for c in POSITIVE if c not in FAIL_CLOSED], contract, seeds=True)
    cases.update(_build(CLEAN, contract))
    return _gate(d, d / "c.db", "unrelated", cases)


def _caught(findings: list) -> bool:
    """A finding against the stored contract, or the document failing closed."""
    return any(f.kind in ("not-auditable", "ingest-error")
               or Path(str((f.other or {}).get("path", ""))).name == "stored-contract.txt" for f in findings)


# Both batches are rendered by Chromium and LibreOffice (the gate's rendered reading), so they run
# with the browser tests, not in the quick suite.
@pytest.mark.browser
@pytest.mark.parametrize("case_id", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=HOLES[c]))
                                     if c in HOLES else c for c in POSITIVE])
def test_a_disguised_stored_contract_fails_the_gate(positives, case_id):
    assert _caught(positives[case_id]), [f.sentence() for f in positives[case_id]]


@pytest.mark.browser
@pytest.mark.parametrize("case_id", [c for c in POSITIVE if c not in FAIL_CLOSED] + CLEAN)
def test_the_same_disguise_of_an_unrelated_agreement_passes(negatives, case_id):
    assert negatives[case_id] == [], [f.sentence() for f in negatives[case_id]]


@pytest.mark.browser
@pytest.mark.parametrize("case_id", FOUND)
def test_a_contract_in_a_data_part_is_found_naming_the_part(positives, case_id):
    found = [f for f in positives[case_id]
             if Path(str((f.other or {}).get("path", ""))).name == "stored-contract.txt"]
    assert found, [f.sentence() for f in positives[case_id]]
    assert all(f.new["format"] == "data" and "#" in f.new["path"] and f.reading.startswith("part ") for f in found)
    assert not [f for f in positives[case_id] if f.kind in ("not-auditable", "ingest-error")]


def _damaged_gate(corpus, tmp_path, how: str | None):
    """Gate a 98% copy of the stored lease (more than 256 shingles, so the sampled index is what
    finds it) against a copy of the store whose index row for the lease is zeroed in the file
    (``how="file"``, with sqlite3) or through the store (``"store"``, its postings deleted too;
    ``"store-row"``, the row alone), or left alone (None)."""
    import shutil
    import sqlite3

    from auditor.gating.admission import GateOptions, run_gate
    from auditor.store.db import Store

    d, _ = corpus
    lease = (d / "corpus" / "lease.txt").read_text()
    tmp_path.mkdir(parents=True, exist_ok=True)
    db = tmp_path / "damaged.db"
    with Store(d / "c.db") as src:
        src.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(d / "c.db", db)
    zero = ("UPDATE index_docs SET sampled = zeroblob(length(sampled)) WHERE doc_id = "
            "(SELECT id FROM documents WHERE path LIKE '%lease.txt')")
    if how in ("store", "store-row"):
        with Store(db) as store, store.write():
            store.conn.execute(zero)
            if how == "store":  # and the postings a gate reads by key
                store.conn.execute("DELETE FROM postings WHERE doc_id = (SELECT id FROM documents WHERE path LIKE"
                                   " '%lease.txt')")
    elif how == "file":
        conn = sqlite3.connect(db)
        with conn:
            conn.execute(zero)
        conn.close()
    (tmp_path / "new").mkdir(parents=True)
    (tmp_path / "new" / "copy.txt").write_text(synth.partial(lease, 0.98, 1))
    return run_gate(GateOptions(db=db, inputs=[tmp_path / "new"], batch="copy", dry_run=True, out=tmp_path / "out", workers=1))


def test_an_index_altered_behind_the_stores_back_is_refused(corpus, tmp_path):
    from auditor.errors import StoreDamaged

    with pytest.raises(StoreDamaged, match="custody"):
        _damaged_gate(corpus, tmp_path / "file", "file")
    assert _damaged_gate(corpus, tmp_path / "intact", None).status == "FAILED"


@pytest.mark.xfail(strict=True, reason="gate (custody #30): the index rows and postings a gate relies on are not "
                                       "derived again from the texts (auditor check does), so rows written through the "
                                       "store pass")
def test_an_index_row_written_through_the_store_does_not_pass_a_copy(corpus, tmp_path):
    assert _damaged_gate(corpus, tmp_path, "store").status != "PASSED"


def test_a_gate_finds_a_copy_through_the_postings_of_its_hashes_whatever_the_index_row_says(corpus, tmp_path):
    """The gate reads the postings of its batch's hashes by key: an index row zeroed alone does not
    hide the lease (the postings written with it still hold its hashes)."""
    assert _damaged_gate(corpus, tmp_path, "store-row").status == "FAILED"


def test_a_page_sized_picture_fails_closed_only_beside_little_text():
    """docx-image-text: a scanned page in a .docx is text no reading holds; a logo, a picture
    behind the text (a watermark) or a picture beside pages of text is an ordinary document."""
    from auditor.extract import extract_bytes

    scan = rc.build(["visible-not-read/docx-picture-of-text"], _Same("The Lessee shall pay the rent."))
    data = scan["visible-not-read/docx-picture-of-text"].files["exhibit.docx"]
    assert (extract_bytes(data, "x.docx").unreadable or "").startswith("docx-image-text:")
    import re
    import zipfile
    from io import BytesIO

    def variant(body_extra: str = "", extent: str | None = None, behind: bool = False) -> bytes:
        out = BytesIO()
        with zipfile.ZipFile(BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
            for item in src.infolist():
                raw = src.read(item)
                if item.filename == "word/document.xml":
                    xml = raw.decode()
                    if extent:
                        xml = re.sub(r'<wp:extent cx="\d+" cy="\d+"/>', extent, xml)
                    if behind:
                        xml = xml.replace("<wp:inline>", '<wp:inline behindDoc="1">')
                    raw = xml.replace("<w:sectPr>", body_extra + "<w:sectPr>").encode()
                dst.writestr(item, raw)
        return out.getvalue()

    prose = "".join(f"<w:p><w:r><w:t>{synth.contract(8200, 3_000, kind='lease')}</w:t></w:r></w:p>" for _ in range(1))
    for ok in (variant(prose), variant(extent='<wp:extent cx="1500000" cy="600000"/>'), variant(behind=True)):
        assert extract_bytes(ok, "y.docx").unreadable is None
