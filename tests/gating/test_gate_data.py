"""A gate reads a submission's data parts as data (:mod:`auditor.extract.data`) and passes a text
too short to hold a stored document, through real ``auditor gate`` subprocesses.

One modern 8-K (tests/support/edgar_modern.py: primary HTML, a GRAPHIC logo, the XBRL schema,
linkbases and instance, viewer pages, FilingSummary.xml, MetaLinks.json, Show.js, report.css,
Financial_Report.xlsx, the XBRL zip) is gated against a store that holds a stored contract (a
BSD licence an installed package ships) and unrelated texts:

- carrying an unrelated agreement in every kind of part, it passes, each part listed as read
  as data;
- carrying the stored contract in one kind of part, it fails by a finding that names the
  contract, the part and its reading: a label, a text block, a viewer page, a JSON string, a
  script, a style sheet, the spreadsheet's cells, a member of the XBRL zip, a picture of the
  contract's page read by OCR.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.store.db import Store
from tests.support import edgar_modern as em
from tests.support import synth
from tests.support.fixtures_build import make_scanned_pdf
from tests.support.realtext import licence

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("gate-data")
    (root / "corpus").mkdir()
    (root / "corpus" / "stored-contract.txt").write_text(licence("BSD"))
    (root / "corpus" / "lease.txt").write_text(synth.contract(8002, 5_000, kind="lease"))
    with Store(root / "corpus.db") as store:
        ingest(store, [root / "corpus"], batch="corpus", workers=1)
    return root


def gate(root: Path, folder: str, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "AUDITOR_DB")}
    env.update({"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"})
    out = root / f"out-{folder}"
    r = subprocess.run([sys.executable, "-m", "auditor", "gate", "--db", "corpus.db", "--dry-run", "--out", str(out),
                        *args, folder], cwd=root, env=env, capture_output=True, text=True, timeout=900)
    return r, json.loads((out / "gate.json").read_text())


def _write(root: Path, folder: str, files: dict[str, bytes]) -> str:
    (root / folder).mkdir()
    for name, data in files.items():
        (root / folder / name).write_bytes(data)
    return folder


def _unrelated(n: int) -> str:
    return synth.contract(8200 + n, 1_400, kind=synth.CONTRACT_KINDS[n % len(synth.CONTRACT_KINDS)])


@pytest.fixture(scope="module")
def gated(root):
    """One gate of the clean submission and of one submission per kind of part hiding the stored
    contract, each with its own primary document."""
    contract = licence("BSD")
    files = {"clean.txt": em.submission(1, {k: _unrelated(i) for i, k in enumerate(em.KINDS)},
                                        accession="0000950170-24-070100")}
    for i, kind in enumerate(em.KINDS, 2):
        files[f"hides-{kind}.txt"] = em.submission(i, {kind: contract}, accession=f"0000950170-24-0701{i:02d}")
    return gate(root, _write(root, "modern", files))


@pytest.mark.slow
def test_a_modern_8k_carrying_unrelated_text_in_every_part_passes(gated):
    _, g = gated
    mine = [f for f in g["findings"] if f["location"]["file"].endswith("clean.txt")]
    assert mine == []
    rows = [d for d in g["data_parts"] if d["file"].endswith("clean.txt")]
    assert sorted(int(d["part"]) for d in rows) == list(range(2, 15))  # every part but the primary document
    assert {d["status"] for d in rows} == {"read-as-data"}
    assert {d["code"] for d in rows} >= {"binary:jpg", "xbrl:schema", "xbrl:linkbase", "xbrl:viewer", "binary:xlsx",
                                         "code:js", "code:css", "data:json", "archive:xbrl", "xbrl:instance"}
    assert not [s for s in g["skipped_parts"] if s["path"].endswith("clean.txt")]


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(em.KINDS))
def test_a_stored_contract_hidden_in_a_data_part_is_found_naming_the_part(gated, kind):
    r, g = gated
    assert r.returncode == 1, r.stderr[-2000:]
    seq = str(em.KINDS[kind])
    mine = [f for f in g["findings"] if f["location"]["file"].endswith(f"hides-{kind}.txt") and f["level"] == "error"]
    found = [f for f in mine if Path(str((f["other"] or {}).get("path"))).name == "stored-contract.txt"]
    assert found, [f["message"] for f in mine]
    f = found[0]
    assert f["kind"] in ("new-in-corpus", "corpus-in-new")
    assert f["new"]["path"].endswith(f"#{seq}") and f["new"]["format"] == "data"
    assert f["reading"].startswith(f"part {seq}: ") and f["containment"] >= 0.8
    assert f["new"]["edgar"]["part"]["sequence"] == seq
    assert [x for x in mine if x not in found] == []  # nothing else of the submission fails
    row = next(d for d in g["data_parts"] if d["path"] == f["new"]["path"])
    assert row["status"] == "failed"


@pytest.mark.slow
def test_a_three_word_email_passes_as_short_and_a_scan_does_not_pass_silently(root):
    """A message whose body is three words cannot hold a stored document: it passes, listed as
    short. A PDF whose pages show the stored contract with no text layer is read by OCR (a finding),
    and with OCR off it is not auditable: never a silent pass."""
    mail = (b"From: a@example.com\r\nTo: b@example.com\r\nSubject: Hi\r\nMessage-ID: <1@example.com>\r\n"
            b"MIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nSee you soon.\r\n")
    r, g = gate(root, _write(root, "short", {"note.eml": mail}))
    assert r.returncode == 0, r.stdout + r.stderr
    assert [d["status"] for d in g["documents"]] == ["short"] and g["counts"]["short_documents"] == 1
    assert "short:" in g["documents"][0]["reason"]


@pytest.mark.slow
def test_a_scan_of_a_stored_contract_never_passes_silently(root):
    scan = make_scanned_pdf(licence("BSD"), dpi=150, skew=0.0, noise=0.0)
    folder = _write(root, "scan", {"scan.pdf": scan})
    r, g = gate(root, folder)
    assert r.returncode == 1
    assert any(Path(str((f["other"] or {}).get("path"))).name == "stored-contract.txt" for f in g["findings"])
    r, g = gate(root, folder, "--ocr", "never", "--render", "never")  # unread, so nothing was gated
    assert r.returncode == 2 and "no input could be ingested" in r.stderr
    assert [(f["kind"], f["rule"]) for f in g["findings"]] == [("ingest-error", "CONTAIN005")]
    assert "OCR is off (--ocr never): run with --ocr auto" in g["findings"][0]["message"]


def _mail_with_picture(body: str, picture: bytes) -> bytes:
    from email.mime.image import MIMEImage
    from email.mime.multipart import MIMEMultipart
    from email.mime.text import MIMEText

    m = MIMEMultipart()
    m["From"], m["To"], m["Subject"], m["Message-ID"] = "a@example.com", "b@example.com", "Signed copy", "<2@example.com>"
    m.attach(MIMEText(body))
    image = MIMEImage(picture, "png")
    image.add_header("Content-Disposition", "attachment", filename="scan.png")
    m.attach(image)
    return m.as_bytes()


@pytest.mark.slow
def test_an_email_attachment_that_is_a_picture_is_read_as_data(root):
    """A picture attached to a message is read by OCR as the message's data part: a page of the
    stored contract is found, naming the attachment; a logo passes."""
    body = synth.contract(8301, 1_500, kind="employment")
    page = em.picture(licence("BSD"), width=1300, size=22, fmt="PNG")
    logo = em.picture("ACME", width=200, size=36, fmt="PNG")
    r, g = gate(root, _write(root, "mail", {"page.eml": _mail_with_picture(body, page),
                                            "logo.eml": _mail_with_picture(synth.contract(8302, 1_500), logo)}))
    assert r.returncode == 1, r.stdout + r.stderr
    failing = [f for f in g["findings"] if f["level"] == "error"]
    assert [f["location"]["file"].rsplit("/", 1)[-1] for f in failing] == ["page.eml"]
    f = failing[0]
    assert Path(f["other"]["path"]).name == "stored-contract.txt" and f["new"]["path"].endswith("page.eml#1")
    assert f["reading"] == "part 1: ocr:picture" and "edgar" not in f["new"]
    assert {d["path"].rsplit("/", 1)[-1]: d["status"] for d in g["data_parts"]} == {
        "page.eml#1": "failed", "logo.eml#1": "read-as-data"}
