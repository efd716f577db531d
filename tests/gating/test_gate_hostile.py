"""The gate against hostile names and special files: its CI outputs stay inert and parseable."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from auditor.gating import escape_data, escape_property
from auditor.gating.formats.junit import _xml_text
from tests.support import hostile
from tests.support.formats import validate_junit, validate_sarif
from tests.support.textgen import write_contract_in_filing

ROOT = Path(__file__).resolve().parents[2]


def test_annotation_and_xml_escaping_leave_no_control_character():
    name = "dir/" + hostile.NASTY_FILE + "\r\u2028end"
    prop, data = escape_property(name), escape_data(name + "\nsecond line")
    for s in (prop, data):
        assert not any(c in s for c in (*hostile.RAW_CONTROLS, "\r", "\n", "\u2028"))
    assert "\\x1b]8;;https%3Aevil\\x07" in prop and "%0D" in prop and "%0A" in data
    xml = f"<a b='{_xml_text(name)}'>{_xml_text(name + chr(0) + chr(0xFFFE))}</a>".encode()
    root = etree.fromstring(xml, etree.XMLParser(recover=False))  # strict XML 1.0
    assert "\\x1b" in root.text and "\\x00" in root.text and "\\ufffe" in root.text
    assert escape_data("50% plain, text: fine") == "50%25 plain, text: fine"  # nothing else changes


@pytest.mark.slow
def test_a_gate_on_hostile_names_writes_inert_annotations_junit_and_sarif(tmp_path):
    src = tmp_path / "corpus"
    contract = write_contract_in_filing(src, 61)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "GITHUB_ACTIONS": "true"}
    env.pop("GITHUB_STEP_SUMMARY", None)

    def auditor(*args, timeout=300):
        return subprocess.run([sys.executable, "-m", "auditor", *map(str, args)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=timeout)

    assert auditor("ingest", "--db", "corpus.db", "corpus").returncode == 0
    new = tmp_path / "new"
    (new / hostile.NASTY_DIR).mkdir(parents=True)
    (new / hostile.NASTY).write_text(contract)  # a copy of a corpus contract: a finding
    hostile.special_files(new)  # a FIFO would hang a gate that opens it to hash it
    g = auditor("gate", "--db", "corpus.db", "--dry-run", "--junit", "gate.xml", "--sarif", "gate.sarif", "new",
                timeout=300)
    assert g.returncode == 1, g.stderr
    outside_file = re.sub(r"(?m)^(::\w+ )file=[^,:]*", r"\1", g.stdout)  # the file property keeps U+202E
    for stream in (outside_file, g.stderr):
        assert not any(c in stream for c in hostile.RAW_CONTROLS), stream
    annotations = [line for line in g.stdout.splitlines() if line.startswith("::")]
    assert any(line.startswith("::error file=new/[link=https%3Aevil]x[/]\\x1b]8;;https%3Aevil\\x07")
               for line in annotations), annotations
    files = [re.match(r"::\w+ file=([^,:]*)", line) for line in annotations]
    assert not any(c in m.group(1) for m in files if m for c in ("\x1b", "\x07", "\x9b"))
    junit = (tmp_path / "gate.xml").read_bytes()
    root = validate_junit(junit)  # a strict XML 1.0 parser, then the JUnit XSD
    assert not any(c in junit.decode() for c in hostile.RAW_CONTROLS)
    assert any("\\u202etxt.exe" in (tc.get("name") or "") for tc in root.iter("testcase"))
    sarif = json.loads((tmp_path / "gate.sarif").read_text())
    validate_sarif(sarif)
    texts = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    assert texts and not any(c in t for t in texts for c in hostile.RAW_CONTROLS)


def test_an_annotation_attaches_to_a_file_whose_name_holds_a_bidi_override():
    from auditor.gating.formats.annotations import escape_file

    assert escape_file("new/\u202etxt.exe,a:b%.txt") == "new/\u202etxt.exe%2Ca%3Ab%25.txt"
    assert escape_file("new/a\u200bb.txt") == "new/a\u200bb.txt"  # as the repository spells it
    assert escape_file("new/\x1b[2Jx.txt") == "new/\\x1b[2Jx.txt"  # a terminal control never goes out raw


def test_one_unreadable_document_in_a_batch_never_refuses_the_gate(tmp_path):
    """A blob that normalises to almost no words (base64 pasted in a text file) is a document's
    property: the gate still runs its controls, audits the rest and passes or fails on findings."""
    import random

    from auditor.corpus.ingest import ingest
    from auditor.gating import GateOptions, run_gate
    from auditor.store.db import Store
    from tests.support import synth

    (tmp_path / "corpus").mkdir()
    for i in range(3):
        (tmp_path / "corpus" / f"c{i}.txt").write_text(synth.contract(60 + i, 8_000))
    with Store(tmp_path / "c.db") as store:
        ingest(store, [tmp_path / "corpus"], workers=1)
    (tmp_path / "batch").mkdir()
    r = random.Random(1)
    alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    blob = "\n".join("".join(r.choice(alnum) for _ in range(76)) for _ in range(200))  # 200 words, 15 KB
    (tmp_path / "batch" / "notice.txt").write_text("Content-Transfer-Encoding: base64\n\n" + blob)
    (tmp_path / "batch" / "fresh.txt").write_text(synth.contract(66, 8_000))
    g = run_gate(GateOptions(db=tmp_path / "c.db", inputs=[tmp_path / "batch"], workers=1, dry_run=True,
                             out=tmp_path / "g"))
    assert g.status in ("PASSED", "FAILED") and not g.refused_because, (g.status, g.refused_because, g.notes)
    assert all(c["passed"] for c in g.controls)
