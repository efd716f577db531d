"""What the gate makes of the formats the readers read (issues #36, #40), through the real CLI:
an email's body and attachments are audited decoded, one base64 email never fails a batch's
controls, and what a reader cannot read in order is not auditable."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.store.db import Store
from tests.support.licences import licence_texts

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def texts() -> list[str]:
    """Long licence texts written by others that share little with each other (a package may
    bundle another's licence): each a document of its own."""
    from auditor.text.shingle import shingle_set

    picked: list[tuple[str, set]] = []
    for _, t in licence_texts():
        s = set(shingle_set(t).tolist())
        if len(t.split()) >= 800 and all(len(s & o) < 0.1 * min(len(s), len(o)) for _, o in picked):
            picked.append((t, s))
    assert len(picked) >= 5
    return [t for t, _ in picked[:5]]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("gate-formats")
    (root / "corpus").mkdir()
    for i, t in enumerate(texts()[:3]):
        (root / "corpus" / f"licence{i}.txt").write_text(t)
    cwd = Path.cwd()
    os.chdir(root)
    try:
        with Store(root / "corpus.db") as store:
            assert ingest(store, [Path("corpus")], batch="corpus", workers=1).counts["ok"] == 3
    finally:
        os.chdir(cwd)
    return root


def gate(root: Path, out: str, batch: str) -> tuple[subprocess.CompletedProcess, dict]:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "AUDITOR_DB",
                                                             "AUDITOR_CONTROLS")}
    env.update({"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"})
    r = subprocess.run([sys.executable, "-m", "auditor", "gate", "--db", "corpus.db", "--dry-run", "--out", out, batch],
                       cwd=root, env=env, capture_output=True, text=True, timeout=300)
    return r, json.loads((root / out / "gate.json").read_text())


def notice(body: str, attachment: str | None = None) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "ecf@court.example.gov", "counsel@firm.example", "Notice of Electronic Filing"
    m["Date"] = "Tue, 05 Mar 2024 14:30:00 +0000"
    m.set_content(body, cte="base64")
    if attachment is not None:
        m.add_attachment(attachment.encode(), maintype="text", subtype="plain", filename="order.txt", cte="base64")
    return m.as_bytes()


def test_a_base64_email_in_a_batch_passes_the_controls_and_is_audited_decoded(root):
    (root / "clean").mkdir()
    (root / "clean" / "notice.eml").write_bytes(notice(texts()[3]))
    (root / "clean" / "other.txt").write_text(texts()[4])
    r, g = gate(root, "out-clean", "clean")
    assert r.returncode == 0, r.stdout + r.stderr
    assert g["status"] == "PASSED" and all(c["passed"] for c in g["controls"])
    assert g["counts"]["new_documents"] == 2


def test_a_stored_licence_attached_base64_to_an_email_is_found(root):
    (root / "copy").mkdir()
    (root / "copy" / "notice.eml").write_bytes(notice("Please find the order attached.", texts()[1]))
    r, g = gate(root, "out-copy", "copy")
    assert r.returncode == 1, r.stdout + r.stderr
    found = {(f["kind"], f["new"]["path"], f["other"]["path"]) for f in g["findings"] if f["kind"] != "not-auditable"}
    assert ("exact-duplicate", "copy/notice.eml#1", "corpus/licence1.txt") in found  # the attachment, decoded


@pytest.mark.slow
def test_a_stored_licence_on_pleading_paper_is_found_and_a_script_built_page_is_not_auditable(root):
    from tests.extract.test_extract_layout import opinions_page, pleading

    (root / "filing").mkdir()
    (root / "filing" / "complaint.txt").write_text(pleading(" ".join(texts()[2].split())))
    ops = json.dumps([{"text": t} for t in texts()[3:5]])
    (root / "filing" / "opinions.html").write_bytes(opinions_page(
        f"for (const o of {ops}) {{ document.getElementById('list').innerHTML += '<p>' + o.text + '</p>'; }}"))
    r, g = gate(root, "out-filing", "filing")
    assert r.returncode == 1, r.stdout + r.stderr
    by_path = {f["new"]["path"]: f for f in g["findings"]}
    copy = by_path["filing/complaint.txt"]
    assert copy["kind"] == "new-in-corpus" and copy["other"]["path"] == "corpus/licence2.txt"
    assert copy["containment"] >= 0.95  # the margin numbers are not read into the words
    page = by_path["filing/opinions.html"]
    assert page["kind"] == "not-auditable" and page["rule"] == "CONTAIN006"
    assert "script-built" in page["message"]


@pytest.mark.slow
def test_a_notice_saved_as_txt_is_stored_decoded_dated_and_found_by_query(tmp_path):
    """As a user: `auditor ingest` a quoted-printable notice saved as .txt, then `show` and `query`."""
    from email.message import EmailMessage as Message

    body = " ".join(texts()[0].split())
    m = Message()
    m["From"], m["To"], m["Subject"] = "ecf@court.example.gov", "counsel@firm.example", "Notice of Electronic Filing"
    m["Date"], m["MIME-Version"] = "Tue, 05 Mar 2024 14:30:00 +0000", "1.0"
    m.set_content(body, cte="quoted-printable")
    m.add_attachment(texts()[1].encode(), maintype="text", subtype="plain", filename="order.txt", cte="base64")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "nef.txt").write_bytes(m.as_bytes())
    sentence = " ".join(body.split()[40:80])
    (tmp_path / "q.txt").write_text(sentence)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"}

    def cli(*args: str) -> str:
        r = subprocess.run([sys.executable, "-m", "auditor", *args], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout

    cli("ingest", "--db", "c.db", "in")
    shown = cli("show", "--db", "c.db", "in/nef.txt")
    assert "format email" in shown and "2024-03-05T14:30:00Z (email:date" in shown
    assert "email from ecf@court.example.gov to counsel@firm.example" in shown
    assert " ".join(cli("show", "--db", "c.db", "in/nef.txt", "--text").split()) == body
    part = cli("show", "--db", "c.db", "in/nef.txt#1")
    assert "attachment 1 order.txt (text/plain)" in part and "of message 1 in/nef.txt" in part
    assert "EDGAR" not in part
    assert "1.0000 contained in 1 in/nef.txt" in cli("query", "--db", "c.db", "q.txt")
