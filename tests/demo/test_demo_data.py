"""The demo corpus ships as data (auditor/demo/files/corpus.zip, written by tools/build_demo.py):
it holds exactly what the generator under tests/support builds, and unpacks safely."""

from __future__ import annotations

import zipfile

from pdfminer.high_level import extract_text

from auditor.demo.corpus import CORPUS_ZIP, write_corpus
from tests.support import synth
from tests.support.demo_corpus import build_corpus, lease_text


def test_the_shipped_corpus_is_what_the_generator_builds(tmp_path):
    built = tmp_path / "built"
    counts = build_corpus(built)
    assert write_corpus(tmp_path / "shipped") == counts
    made = sorted(p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(tmp_path / "shipped").as_posix() for p in (tmp_path / "shipped").rglob("*")
                     if p.is_file())
    assert made == shipped
    for name in made:
        if name.endswith("lease-data-room.pdf"):  # fpdf2's bytes vary by release: compare what it shows
            words = extract_text(str(tmp_path / "shipped" / name)).split()
            assert words[words.index("LEASE"):][:50] == synth.upper_headings(lease_text()).split()[:50]
            continue
        assert (tmp_path / "shipped" / name).read_bytes() == (built / name).read_bytes(), name


def test_unpacking_never_writes_outside_its_directory(tmp_path, monkeypatch):
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("../outside.txt", "x")
        z.writestr("/etc/absolute.txt", "x")
        z.writestr("filings/inside.txt", "ok")
    monkeypatch.setattr("auditor.demo.corpus.CORPUS_ZIP", evil)
    counts = write_corpus(tmp_path / "root")
    assert counts["filings"] == 1 and (tmp_path / "root" / "filings" / "inside.txt").read_text() == "ok"
    assert not (tmp_path / "outside.txt").exists()
    assert CORPUS_ZIP.name == "corpus.zip"
