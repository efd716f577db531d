import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditor.errors import StoreBusy
from auditor.extract import Limits
from auditor.ingest import ingest
from auditor.store import Store
from tests.fixtures_build import make_edgar_submission, make_pdf, make_raw_pdf
from tests.textgen import prose


def counts(store):
    return {t: store.scalar(f"SELECT count(*) FROM {t}") for t in ("documents", "sightings", "failures", "index_docs")}


@pytest.fixture
def mixed(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a_utf8.txt").write_text(prose(1, 400), encoding="utf-8")
    (d / "b_utf16.txt").write_bytes(prose(2, 300).encode("utf-16"))
    (d / "c_cp1252.txt").write_bytes(("The \u201cLessee\u201d shall pay \u2014 " + prose(3, 200)).encode("cp1252"))
    (d / "d.html").write_text(
        "<html><head><style>p{}</style><script>var x='<p>hidden</p>';</script></head><body>"
        f"<h1>Lease</h1><p>{prose(4, 200)}</p><p>A &amp; B &#8220;quoted&#8221;</p></body></html>")
    make_pdf([prose(5, 120), prose(6, 120), prose(7, 120)], d / "e.pdf")
    contract = prose(8, 600)
    sub = make_edgar_submission(
        {"accession_number": "0000950170-22-000796", "form_type": "10-K", "filing_date": "20220207",
         "company_name": "EXAMPLE HOLDINGS INC", "cik": "0001234567"},
        [{"type": "10-K", "filename": "ex-10k.htm", "description": "ANNUAL REPORT",
          "text": f"<html><body><p>{prose(9, 800)}</p></body></html>"},
         {"type": "EX-10.1", "filename": "ex10-1.txt", "description": "LEASE AGREEMENT", "text": contract},
         {"type": "EX-99.1", "filename": "ex99.pdf", "data": make_pdf([prose(10, 100), prose(11, 100)])},
         {"type": "GRAPHIC", "filename": "logo.gif", "data": b"GIF89a" + bytes(range(200))}])
    (d / "sub" ).mkdir()
    (d / "sub" / "0000950170-22-000796.txt").write_bytes(sub)
    return d


def test_every_format_is_stored_with_provenance(store, mixed):
    r = ingest(store, [mixed], batch="b1", source="test", workers=1)
    assert r.counts == {"ok": 6, "duplicate": 0, "unchanged": 0, "failed": 0, "skipped": 0}
    docs = {d["path"].split("/in/")[1]: d for d in store.rows("SELECT * FROM documents")}
    assert docs["a_utf8.txt"]["encoding"] == "utf-8"
    assert docs["b_utf16.txt"]["encoding"].startswith("utf-16")
    assert docs["c_cp1252.txt"]["encoding"] == "cp1252"
    assert "\u201cLessee\u201d" in store.text(docs["c_cp1252.txt"]["id"])
    html = store.text(docs["d.html"]["id"])
    assert "hidden" not in html and "A & B \u201cquoted\u201d" in html
    pdf = docs["e.pdf"]
    assert pdf["format"] == "pdf" and pdf["n_pages"] == 3 and pdf["extractor"] == "pdfminer.six"
    offsets = json.loads(pdf["page_offsets"])
    text = store.text(pdf["id"])
    assert offsets[0] == 0 and text[offsets[1]:].split()[0] == prose(6, 120).split()[0]
    sub = docs["sub/0000950170-22-000796.txt"]
    assert sub["format"] == "edgar"
    meta = json.loads(sub["meta"])
    assert meta["accession_number"] == "0000950170-22-000796" and meta["form_type"] == "10-K"
    assert meta["cik"] == "0001234567" and meta["company_name"] == "EXAMPLE HOLDINGS INC"
    parts = store.rows("SELECT * FROM documents WHERE parent_id = ? ORDER BY id", (sub["id"],))
    assert [json.loads(p["meta"])["type"] for p in parts] == ["10-K", "EX-10.1", "EX-99.1"]
    assert [p["format"] for p in parts] == ["html", "text", "pdf"]
    assert parts[2]["n_pages"] == 2
    skipped = store.rows("SELECT * FROM failures")
    assert [(s["status"], s["part"]) for s in skipped] == [("skipped", "4")]
    assert skipped[0]["code"].startswith("binary")
    prov = store.provenance(store.resolve(f"{mixed}/sub/0000950170-22-000796.txt#2"))
    assert prov["sightings"][0]["source"] == "test" and prov["sightings"][0]["batch"] == "b1"
    assert prov["parent"]["id"] == sub["id"] and prov["index"]["n_sampled"] > 0
    for d in docs.values():
        assert d["size"] > 0 and len(d["sha256"]) == 64 and d["extractor_version"]
    b = store.rows("SELECT * FROM batches")[0]
    assert (b["name"], b["status"], b["n_ok"], b["n_skipped"]) == ("b1", "complete", 6, 1)


def test_same_bytes_are_stored_once_and_sighted_twice(store, tmp_path):
    text = prose(20, 300)
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "one.txt").write_text(text)
    (tmp_path / "x" / "two.txt").write_text(text)
    r = ingest(store, [tmp_path / "x"], workers=1)
    assert r.counts["ok"] == 1 and r.counts["duplicate"] == 1
    assert counts(store)["documents"] == 1 and counts(store)["sightings"] == 2
    later = tmp_path / "later.txt"
    later.write_text(text)
    assert ingest(store, [later], batch="other", workers=1).counts["duplicate"] == 1
    assert [s["path"] for s in store.provenance(1)["sightings"]][-1] == str(later)


def test_identical_normalised_text_is_an_exact_duplicate(store, tmp_path):
    body = prose(21, 300)
    (tmp_path / "a.txt").write_text(body)
    (tmp_path / "b.txt").write_text(body.upper().replace("\n", "\r\n    "))
    (tmp_path / "c.txt").write_text(prose(22, 300))
    ingest(store, [tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"], workers=1)
    rows = store.rows("SELECT id, duplicate_of FROM documents ORDER BY id")
    assert rows == [{"id": 1, "duplicate_of": None}, {"id": 2, "duplicate_of": 1}, {"id": 3, "duplicate_of": None}]


def test_reingest_adds_nothing(store, mixed):
    ingest(store, [mixed], workers=1)
    before = counts(store)
    r = ingest(store, [mixed], workers=1)
    assert r.counts["unchanged"] == 6 and r.counts["ok"] == 0
    assert counts(store) == before
    assert store.scalar("SELECT runs FROM batches") == 2


def test_bad_inputs_are_recorded_and_the_batch_goes_on(store, tmp_path):
    d = tmp_path / "bad"
    d.mkdir()
    (d / "empty.txt").write_bytes(b"")
    (d / "junk.bin").write_bytes(bytes(range(256)) * 40)
    (d / "corrupt.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage" + bytes(500))
    make_pdf([prose(30, 50)], d / "locked.pdf", encrypt_password="secret")
    (d / "huge.txt").write_text(prose(31, 3000))
    (d / "dangling.txt").symlink_to(d / "nowhere.txt")
    (d / "good.txt").write_text(prose(32, 200))
    limits = Limits(max_file_bytes=15_000)
    r = ingest(store, [d, tmp_path / "missing.txt"], limits=limits, workers=1)
    codes = {Path(p).name: code for p, code, _ in r.problems}
    assert codes == {"empty.txt": "empty", "junk.bin": "binary", "corrupt.pdf": "pdf_error",
                     "locked.pdf": "pdf_encrypted", "huge.txt": "too_large", "dangling.txt": "unreadable"}
    assert r.missing == [str(tmp_path / "missing.txt")]  # this run's mistake: returned, not stored
    assert r.counts["ok"] == 1 and r.counts["failed"] == 6
    assert store.scalar("SELECT count(*) FROM failures WHERE status = 'failed'") == 6
    assert all(m for _, _, m in r.problems)
    again = ingest(store, [d, tmp_path / "missing.txt"], limits=limits, workers=1)
    assert store.scalar("SELECT count(*) FROM failures") == 6
    assert again.counts["ok"] == 0 and again.missing == r.missing


def test_pdf_time_limit_is_enforced_and_recorded(store, tmp_path):
    ops = b" ".join(b"BT /F1 3 Tf %d %d Td (w%d) Tj ET" % (20 + i * 37 % 560, 20 + i * 53 % 750, i) for i in range(3000))
    (tmp_path / "slow.pdf").write_bytes(make_raw_pdf([ops], repeat=400, flate=True))  # minutes of layout work
    (tmp_path / "fine.txt").write_text(prose(41, 100))
    t0 = time.monotonic()
    r = ingest(store, [tmp_path / "slow.pdf", tmp_path / "fine.txt"], limits=Limits(pdf_timeout=1.0), workers=1)
    assert time.monotonic() - t0 < 10
    assert [(Path(p).name, c) for p, c, _ in r.problems] == [("slow.pdf", "pdf_timeout")]
    assert r.counts["ok"] == 1


def test_a_second_writer_gets_a_clear_busy_error(db_path, tmp_path):
    (tmp_path / "a.txt").write_text(prose(50, 100))
    Store(db_path).close()
    blocker = sqlite3.connect(db_path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with Store(db_path, busy_timeout=0.2) as s, pytest.raises(StoreBusy, match="locked"):
            ingest(s, [tmp_path / "a.txt"], workers=1)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    with Store(db_path) as s:
        assert ingest(s, [tmp_path / "a.txt"], workers=1).counts["ok"] == 1


@pytest.mark.slow
def test_kill_9_then_resume_stores_every_file_exactly_once(tmp_path):
    src = tmp_path / "many"
    src.mkdir()
    n = 400
    for i in range(n):
        (src / f"doc{i:04d}.txt").write_text(prose(1000 + i, 2500))
    db = tmp_path / "k.db"
    cmd = [sys.executable, "-m", "auditor", "ingest", "--db", str(db), "--quiet", "--batch", "big", str(src)]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        try:
            c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
            stored = c.execute("SELECT count(*) FROM documents").fetchone()[0]
            c.close()
        except sqlite3.Error:
            continue
        if stored >= 40:
            break
    assert proc.poll() is None, "ingest finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 0 < stored < n
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with Store(db) as s:
        assert s.integrity_check() == "ok"
        assert s.scalar("SELECT count(*) FROM documents") == n
        assert s.scalar("SELECT count(*) FROM sightings") == n
        assert s.scalar("SELECT count(DISTINCT resolved) FROM sightings") == n
        assert s.scalar("SELECT count(*) FROM index_docs") == n
        assert s.scalar("SELECT count(*) FROM texts") == n
        assert s.scalar("SELECT sum(n_sampled) * 8 FROM index_docs") == s.scalar("SELECT sum(length(sampled)) FROM index_docs")
        assert s.scalar("SELECT runs FROM batches WHERE name = 'big'") == 2


def test_an_index_rebuilt_meanwhile_with_other_parameters_is_never_mixed(db_path, tmp_path):
    from dataclasses import replace

    from auditor.errors import IndexMismatch
    from auditor.shingle import Params

    (tmp_path / "a.txt").write_text(prose(60, 200))
    with Store(db_path) as s:
        def rebuilt_elsewhere(files, nbytes):  # another process commits k=7 mid-run
            other = sqlite3.connect(db_path, isolation_level=None)
            other.execute("UPDATE meta SET value = ? WHERE key = 'index_params'",
                          (json.dumps(replace(Params(), k=7).as_dict(), sort_keys=True),))
            other.close()

        with pytest.raises(IndexMismatch):
            ingest(s, [tmp_path / "a.txt"], workers=1, on_start=rebuilt_elsewhere)
        assert s.scalar("SELECT count(*) FROM index_docs") == 0
        assert s.scalar("SELECT count(*) FROM documents") == 0
