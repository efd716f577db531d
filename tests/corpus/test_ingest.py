import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.errors import StoreBusy
from auditor.extract import Limits
from auditor.store.db import Store
from tests.support import hostile
from tests.support.fixtures_build import make_edgar_submission, make_pdf, make_raw_pdf
from tests.support.textgen import prose


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
    # the PDFs' made-up words are no language's words: stored, but counted apart as not auditable
    assert r.counts == {"ok": 5, "not_auditable": 1, "duplicate": 0, "unchanged": 0, "failed": 0, "skipped": 0}
    assert [(Path(p).name, why.split(":")[1].strip()) for p, why in r.not_auditable] == [
        ("e.pdf", "pdf-font-map"), ("0000950170-22-000796.txt#3", "pdf-font-map")]
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_pdf_time_limit_is_enforced_and_recorded(store, tmp_path):
    ops = b" ".join(b"BT /F1 3 Tf %d %d Td (w%d) Tj ET" % (20 + i * 37 % 560, 20 + i * 53 % 750, i) for i in range(3000))
    (tmp_path / "slow.pdf").write_bytes(make_raw_pdf([ops], repeat=400, flate=True))  # minutes of layout work
    (tmp_path / "fine.txt").write_text(prose(41, 100))
    r = ingest(store, [tmp_path / "slow.pdf", tmp_path / "fine.txt"], limits=Limits(pdf_timeout=1.0), workers=1)
    assert [(Path(p).name, c) for p, c, _ in r.problems] == [("slow.pdf", "pdf_timeout")]
    assert r.counts["ok"] == 1
    assert store.scalar("SELECT code FROM failures WHERE path LIKE '%slow.pdf'") == "pdf_timeout"


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
    lock = None
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            try:
                c = sqlite3.connect(db, timeout=30, isolation_level=None)
                stored = c.execute("SELECT count(*) FROM documents").fetchone()[0]
                if stored >= 40:
                    # hold the write lock: ingest stores one document per transaction, so it now
                    # waits (its busy timeout is 30 s) and cannot finish before it is killed
                    c.execute("BEGIN IMMEDIATE")
                    stored = c.execute("SELECT count(*) FROM documents").fetchone()[0]
                    lock = c
                    break
                c.close()
            except sqlite3.Error:
                continue
        assert lock is not None and proc.poll() is None, "ingest ended before 40 documents were stored"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if lock is not None:
            lock.execute("ROLLBACK")
            lock.close()
    assert 40 <= stored < n
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
    from auditor.text.shingle import Params

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


# -- hostile inputs (issue 13; the input-walking items of issue 12) --------------------------------

def ingest_cli(*args, timeout=180, env=None):
    """``python -m auditor ingest`` as a real process, bounded, so a hang fails instead of blocking CI."""
    return subprocess.run([sys.executable, "-m", "auditor", "ingest", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "NO_COLOR": "1", **(env or {})})


@pytest.fixture
def hostile_batch(tmp_path):
    """Every hostile input of issue 13 beside good files, and a secret outside the tree."""
    d = tmp_path / "in"
    (d / "sub").mkdir(parents=True)
    (d / "inner").mkdir()
    (d / hostile.NASTY_DIR).mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET " + prose(90, 200))
    (d / "a_good.txt").write_text(prose(91, 300))
    (d / "sub" / "b_good.txt").write_text(prose(92, 300))
    (d / "inner" / "c_target.txt").write_text(prose(93, 300))
    (d / hostile.NASTY).write_text(prose(94, 300))
    Path(os.fsdecode(os.fsencode(d) + b"/caf\xe9-latin1-name.txt")).write_text(prose(95, 300))
    for i, codec in enumerate(("rot13", "base64", "hex", "zlib", "punycode")):
        (d / f"charset-{codec}.html").write_text(
            f'<html><head><meta charset="{codec}"></head><body><p>{prose(100 + i, 200)}</p></body></html>')
    (d / "cycle.pdf").write_bytes(hostile.cycle_pdf())
    many = [{"type": "EX-99", "filename": f"e{i}.txt", "text": prose(200 + i, 60)} for i in range(12)]
    (d / "many-parts.txt").write_bytes(make_edgar_submission(
        {"accession_number": "0000950170-22-000001", "form_type": "8-K", "filing_date": "20220101",
         "company_name": "MANY PARTS INC", "cik": "0000000001"}, many))
    hostile.special_files(d)
    (d / "link-out.txt").symlink_to(secret)
    (d / "environ").symlink_to("/proc/self/environ")
    (d / "link-in.txt").symlink_to(d / "inner" / "c_target.txt")
    (d / "link-dir").symlink_to(d / "inner")
    (d / "loop-a").symlink_to(d / "loop-b")
    (d / "loop-b").symlink_to(d / "loop-a")
    return d


@pytest.mark.slow
def test_a_batch_of_every_hostile_input_finishes_and_records_each_one(tmp_path, hostile_batch):
    d = hostile_batch
    db = tmp_path / "h.db"
    r = ingest_cli("--db", db, "--json", "--max-parts", "5", "--pdf-timeout", "60", d)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["complete"] and out["not_processed"] == []
    codes = {p.removeprefix(str(d) + "/"): code for p, code, _ in out["problems"]}
    assert codes == {
        "cycle.pdf": "pdf_error",  # at once, not after its 60 s time limit
        "pipe.txt": "not_regular", "socket.txt": "not_regular",
        "link-out.txt": "symlink_outside", "environ": "symlink_outside", "link-dir": "symlink_dir",
        "loop-a": "symlink_loop", "loop-b": "symlink_loop",
        "many-parts.txt#6-12": "too_many_parts",
    }
    assert "reference" in dict((p, m) for p, _, m in out["problems"])[str(d / "cycle.pdf")]
    with Store(db) as s:
        stored = {row[0].removeprefix(str(d) + "/") for row in s.conn.execute(
            "SELECT path FROM sightings WHERE part = ''")}
        # link-in.txt is met first (files before subdirectories); inner/c_target.txt is then the
        # same file at the same resolved path, so it adds no sighting
        assert stored == {"a_good.txt", "sub/b_good.txt", "link-in.txt",
                          hostile.NASTY, "caf\\xe9-latin1-name.txt", "many-parts.txt",
                          *(f"charset-{c}.html" for c in ("rot13", "base64", "hex", "zlib", "punycode"))}
        texts = "\n".join(r[0] for r in s.conn.execute("SELECT auditor_text(text) FROM texts"))
        assert "TOPSECRET" not in texts and "PATH=" not in texts
        assert prose(101, 200).split()[:5] == s.text(s.resolve(str(d / "charset-base64.html"))).split()[:5]
        assert s.scalar("SELECT count(*) FROM documents WHERE parent_id IS NOT NULL") == 5
        assert s.rows("SELECT status FROM batches") == [{"status": "complete"}]
        before = counts(s)
    again = ingest_cli("--db", db, "--json", "--max-parts", "5", "--pdf-timeout", "60", d)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["counts"]["ok"] == 0
    with Store(db) as s:
        assert counts(s) == before and s.rows("SELECT status, runs FROM batches") == [{"status": "complete", "runs": 2}]


def test_symlinks_are_followed_only_to_files_inside_the_tree(store, tmp_path):
    d = tmp_path / "in"
    (d / "docs").mkdir(parents=True)
    (d / "docs" / "real.txt").write_text(prose(300, 200))
    outside = tmp_path / "outside.txt"
    outside.write_text(prose(301, 200))
    (d / "inside-link.txt").symlink_to(d / "docs" / "real.txt")
    (d / "outside-link.txt").symlink_to(outside)
    (d / "relative-escape.txt").symlink_to("../outside.txt")
    r = ingest(store, [d], workers=1)
    status = {Path(o.path).name: (o.status, o.code) for o in r.outcomes}
    assert status["inside-link.txt"] == ("ok", None) or status["real.txt"] == ("ok", None)
    assert status["outside-link.txt"] == ("skipped", "symlink_outside")
    assert status["relative-escape.txt"] == ("skipped", "symlink_outside")
    assert store.scalar("SELECT count(*) FROM documents") == 1
    # given as inputs themselves: the tree is the directory holding the link
    r = ingest(store, [d / "inside-link.txt", d / "outside-link.txt", outside], batch="explicit", workers=1)
    assert [(o.status, o.code) for o in r.outcomes] == [
        ("unchanged", None), ("skipped", "symlink_outside"), ("ok", None)]


def test_a_directory_that_vanishes_mid_walk_is_an_ingest_error(tmp_path):
    from auditor.corpus.ingest import walk

    d = tmp_path / "in"
    (d / "later").mkdir(parents=True)
    (d / "first.txt").write_text("x")
    (d / "later" / "inside.txt").write_text("y")
    seen = []
    for found in walk([d]):
        seen.append((Path(found.path).name, found.status, found.code))
        if found.path.endswith("first.txt"):
            (d / "later" / "inside.txt").unlink()
            (d / "later").rmdir()
    assert seen == [("first.txt", None, ""), ("later", "failed", "vanished")]
    # the same tree, intact, is walked in os.walk's order
    (d / "later").mkdir()
    (d / "later" / "inside.txt").write_text("y")
    (d / "zz.txt").write_text("z")
    expected = [str(Path(root) / f) for root, dirs, files in os.walk(d) if not dirs.sort()
                for f in sorted(files)]
    assert [f.path for f in walk([d])] == expected


@pytest.mark.slow
def test_an_unreadable_directory_is_an_ingest_error_not_missing_files(tmp_path):
    d = tmp_path / "in"
    (d / "locked").mkdir(parents=True)
    (d / "open").mkdir()
    (d / "locked" / "hidden.txt").write_text(prose(310, 200))
    (d / "open" / "seen.txt").write_text(prose(311, 200))
    db = tmp_path / "u.db"
    os.chmod(d / "locked", 0)
    try:
        r = subprocess.run([*hostile.unprivileged(), sys.executable, "-m", "auditor", "ingest", "--db", str(db),
                            "--json", str(d)], capture_output=True, text=True, timeout=120)
    finally:
        os.chmod(d / "locked", 0o755)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["counts"]["ok"] == 1 and out["counts"]["failed"] == 1
    [(path, code, message)] = out["problems"]
    assert (Path(path).name, code) == ("locked", "unreadable_dir") and "denied" in message
    # readable again: the files come in, and only they
    assert json.loads(ingest_cli("--db", db, "--json", d).stdout)["counts"]["ok"] == 1


def test_a_non_utf8_file_name_is_stored_with_its_exact_bytes(store, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    raw = os.fsencode(d) + b"/contrat-\xe9t\xe9-\xff.txt"
    Path(os.fsdecode(raw)).write_text(prose(320, 200))
    (d / "plain.txt").write_text(prose(321, 200))
    r = ingest(store, [d], workers=1)
    assert r.counts["ok"] == 2
    row = store.rows("SELECT path, resolved, meta FROM sightings WHERE path LIKE '%contrat%'")[0]
    assert row["path"].endswith("contrat-\\xe9t\\xe9-\\xff.txt")
    assert bytes.fromhex(json.loads(row["meta"])["path_bytes"]) == raw
    assert ingest(store, [d], workers=1).counts["unchanged"] == 2


def test_a_killed_extraction_process_fails_only_its_file(store, tmp_path):
    """What the OOM killer does: SIGKILL to the child extracting one file (and again to the fresh
    child that retries it, as a file that really needs too much memory would). Its PDF child
    dies with it; the batch goes on."""
    import threading

    (tmp_path / "a.txt").write_text(prose(330, 200))
    (tmp_path / "b.pdf").write_bytes(hostile.slow_pdf())
    (tmp_path / "c.txt").write_text(prose(331, 200))
    me, finished, killed, pdf_children = os.getpid(), threading.Event(), [], {}
    # Idle children earlier tests left for reuse would make "the child extracting b.pdf"
    # ambiguous (an idle prepare child keeps an idle PDF child of its own): stop them first.
    import auditor.corpus.ingest as ingest_module
    import auditor.extract.pdf.worker as pdf_worker

    ingest_module._POOL.clear()
    pdf_worker._POOL.clear()
    assert hostile.wait_for(lambda: not any("auditor.sandbox" in hostile.cmdline(p)
                                            for p in hostile.descendants(me)), 10)

    def oom_killer():
        while not finished.is_set():
            kids = hostile.descendants(me)
            for pid, start in kids.items():
                line = hostile.cmdline(pid)
                if "auditor.sandbox pdf" in line:
                    pdf_children[pid] = start
                    parent = int(line.split("--parent ")[1].split()[0])  # the child extracting b.pdf
                    # two kills, as the docstring says: a PDF child started later (an idle child
                    # kept for reuse after the batch, under load) is not the file's
                    if parent != me and parent not in killed and len(killed) < 2:
                        killed.append(parent)
                        os.kill(parent, signal.SIGKILL)
            finished.wait(0.05)

    t = threading.Thread(target=oom_killer)
    t.start()
    try:
        r = ingest(store, [tmp_path / "a.txt", tmp_path / "b.pdf", tmp_path / "c.txt"], workers=1,
                   limits=Limits(pdf_timeout=120, timeout=120))
    finally:
        finished.set()
        t.join()
    assert len(killed) == 2  # the child that had the file, and the fresh one that retried it
    assert [(Path(o.path).name, o.status, o.code) for o in r.outcomes] == [
        ("a.txt", "ok", None), ("b.pdf", "failed", "memory"), ("c.txt", "ok", None)]
    assert "killed (SIGKILL)" in r.outcomes[1].message
    assert hostile.wait_for(lambda: not any(hostile.alive(p, s) for p, s in pdf_children.items()), 10), \
        "a PDF child outlived its parent"
    assert store.rows("SELECT status FROM batches") == [{"status": "complete"}]


def test_an_unexpected_error_storing_one_file_fails_that_file_only(store, tmp_path, monkeypatch):
    import auditor.corpus.ingest as ingest_module

    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.txt").write_text(prose(340 + ord(name), 200))
    real = ingest_module._store_doc

    def flaky(store, d, **kw):
        if kw["task"].path.endswith("b.txt"):
            raise ValueError("something nobody expected")
        return real(store, d, **kw)

    monkeypatch.setattr(ingest_module, "_store_doc", flaky)
    r = ingest(store, [tmp_path / n for n in ("a.txt", "b.txt", "c.txt")], workers=1)
    assert [(Path(o.path).name, o.status, o.code) for o in r.outcomes] == [
        ("a.txt", "ok", None), ("b.txt", "failed", "internal_error"), ("c.txt", "ok", None)]
    assert r.outcomes[1].message.startswith("unexpected ValueError storing this file: something nobody expected; "
                                            "fix: a bug in the auditor")
    assert store.scalar("SELECT count(*) FROM documents") == 2  # b's transaction was rolled back whole


def test_a_batch_that_stops_on_an_exception_is_not_left_running(store, tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.txt").write_text(prose(350 + ord(name), 200))

    def interrupt(o):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest(store, [tmp_path / "a.txt", tmp_path / "b.txt"], workers=1, on_file=interrupt)
    assert store.rows("SELECT status FROM batches") == [{"status": "interrupted"}]
    r = ingest(store, [tmp_path / "a.txt", tmp_path / "b.txt"], workers=1)
    assert r.counts == {"ok": 1, "not_auditable": 0, "duplicate": 0, "unchanged": 1, "failed": 0, "skipped": 0}
    assert store.rows("SELECT status FROM batches") == [{"status": "complete"}]


def test_a_budget_defers_what_it_cannot_reach_and_a_rerun_resumes(store, tmp_path):
    paths = hostile.good_texts(tmp_path, 5)
    r = ingest(store, paths, workers=1, limits=Limits(budget=1e-9))
    assert not r.complete and r.not_processed == [str(p) for p in paths]
    assert {(o.status, o.code) for o in r.outcomes} == {("failed", "budget")}
    assert "run the same ingest again" in r.outcomes[0].message
    assert store.rows("SELECT status FROM batches") == [{"status": "incomplete"}]
    assert store.scalar("SELECT count(*) FROM failures WHERE code = 'budget'") == 5
    again = ingest(store, paths, workers=1)
    assert again.complete and again.counts["ok"] == 5
    assert store.scalar("SELECT count(*) FROM failures") == 0
    assert store.rows("SELECT status FROM batches") == [{"status": "complete"}]


@pytest.mark.slow
def test_the_budget_cuts_short_an_extraction_in_flight(store, tmp_path):
    (tmp_path / "a.txt").write_text(prose(360, 200))
    (tmp_path / "b.pdf").write_bytes(hostile.slow_pdf())  # minutes of work
    (tmp_path / "c.txt").write_text(prose(361, 200))
    r = ingest(store, [tmp_path / "a.txt", tmp_path / "b.pdf", tmp_path / "c.txt"], workers=1,
               limits=Limits(budget=3, pdf_timeout=300, timeout=300))
    by_name = {Path(o.path).name: (o.status, o.code) for o in r.outcomes}
    assert by_name["a.txt"] == ("ok", None) and by_name["b.pdf"] == ("failed", "budget")
    assert by_name["c.txt"] in (("ok", None), ("failed", "budget"))
    assert not r.complete


def test_edgar_documents_past_the_limit_are_one_failed_part(store, tmp_path):
    docs = [{"type": "EX-99", "filename": f"e{i}.txt", "text": prose(400 + i, 50)} for i in range(7)]
    (tmp_path / "sub.txt").write_bytes(make_edgar_submission(
        {"accession_number": "0000950170-22-000002", "form_type": "8-K", "filing_date": "20220101",
         "company_name": "X", "cik": "1"}, docs))
    r = ingest(store, [tmp_path / "sub.txt"], workers=1, limits=Limits(max_parts=3))
    [o] = r.outcomes
    assert o.status == "ok" and o.parts == 3
    assert o.part_problems == [("4-7", "too_many_parts", o.part_problems[0][2])]
    assert "7 documents" in o.part_problems[0][2]
    assert ingest(store, [tmp_path / "sub.txt"], batch="same", workers=1,
                  limits=Limits(max_parts=3)).outcomes[0].status == "unchanged"  # same bytes, path and limits
    again = ingest(store, [tmp_path / "sub.txt"], batch="all", workers=1, limits=Limits(max_parts=10)).outcomes[0]
    assert (again.status, again.parts, again.part_problems) == ("ok", 7, [])  # a larger limit reads the rest
    assert store.scalar("SELECT count(*) FROM failures") == 0
    assert store.scalar("SELECT count(*) FROM documents WHERE parent_id IS NOT NULL") == 7


@pytest.mark.slow
def test_kill_9_of_ingest_leaves_no_process_behind(tmp_path):
    src = tmp_path / "many"
    src.mkdir()
    for i in range(4):
        (src / f"slow{i}.pdf").write_bytes(hostile.slow_pdf() + b"%" + bytes([i]))
    hostile.good_texts(src, 30)
    proc = subprocess.Popen([sys.executable, "-m", "auditor", "ingest", "--db", str(tmp_path / "k.db"), "--quiet",
                             str(src)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids = None
    try:
        def pdf_children_running():
            kids = hostile.descendants(proc.pid)
            return kids if any("auditor.sandbox pdf" in hostile.cmdline(p) for p in kids) else None
        kids = hostile.wait_for(pdf_children_running, 120)
        assert kids, "no PDF child ever started"
        assert any("auditor.sandbox prepare" in hostile.cmdline(p) for p in kids)
        os.kill(proc.pid, signal.SIGKILL)  # the parent only, as the OOM killer would
        proc.wait()
        left = hostile.wait_for(lambda: not any(hostile.alive(p, s) for p, s in kids.items()), 15)
        survivors = [(p, hostile.cmdline(p)) for p, s in kids.items() if hostile.alive(p, s)]
        assert left and not survivors, survivors
    finally:
        if proc.poll() is None:
            proc.kill()
        for p, s in (kids or {}).items():  # survivors of a failed test, reparented by now
            if hostile.alive(p, s):
                os.kill(p, signal.SIGKILL)


@pytest.mark.slow
def test_one_or_two_extraction_children_store_the_same(tmp_path, mixed):
    """The number of sandbox children changes only speed: the same documents, ids, texts and
    samples, in the same order."""
    from auditor.store.db import Store

    def stored(workers):
        with Store(tmp_path / f"w{workers}.db") as s:
            ingest(s, [mixed], batch="b", source="s", workers=workers)
            return (s.conn.execute("SELECT id, path, sha256, format, n_words, duplicate_of FROM documents"
                                   " ORDER BY id").fetchall(),
                    s.conn.execute("SELECT doc_id, auditor_text(text) FROM texts ORDER BY doc_id").fetchall(),
                    s.conn.execute("SELECT doc_id, sampled FROM index_docs ORDER BY doc_id").fetchall())

    one, two = stored(1), stored(2)
    assert len(one[0]) >= 9 and one == two
