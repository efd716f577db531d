"""The Spark ingest of inputs given as URIs: listed on the driver, read on the executors through
Hadoop's file systems, extracted there as any input is. The result is the store's, id for id.

``file://`` runs the whole path in CI: the driver's listing (the local walk, whose rules for
links and special files Hadoop's local file system lacks), Spark's ``binaryFile`` reader on the
executors, the copy each task ingests. A real FTP server (pyftpdlib) serves the same tree to
Hadoop's ``FTPFileSystem``, a file system that is not this machine's: its listing goes through
Hadoop's ``FileSystem`` API, as HDFS's and S3's do.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.extras import spark_missing
from tests.support import realtext, synth

_why = spark_missing()
needs_spark = pytest.mark.skipif(bool(_why), reason=f"Spark engine tests skipped: {_why}")


def _tree(root: Path, links: bool = True) -> Path:
    """Documents written by others (licences), contracts in filings, an exact copy under a hidden
    name and one under an underscore name (names a Spark reader hides by default), a name with
    glob characters, a subdirectory, a corrupt PDF, a link out of the tree, a dangling link."""
    docs = root / "docs"
    (docs / "sub" / "deeper").mkdir(parents=True)
    contract = synth.contract(901, 3_000)
    (docs / "a-contract.txt").write_text(contract)
    (docs / "Apache-2.0.txt").write_text(realtext.licence("Apache-2.0"))
    (docs / ".hidden-copy.txt").write_text(contract)
    (docs / "_under-copy.txt").write_text(contract)
    (docs / "f [1] *draft?.txt").write_text(synth.filing(902, 6_000, exhibits=[contract])[0])
    (docs / "sub" / "f-2.txt").write_text(synth.filing(903, 6_000, exhibits=[realtext.licence("Apache-2.0")])[0])
    (docs / "sub" / "deeper" / "MPL-2.0.txt").write_text(realtext.licence("MPL-2.0"))
    (docs / "sub" / "z-last.txt").write_text(synth.filing(904, 5_000)[0])
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\n" + bytes(random.Random(3).randrange(256) for _ in range(2_000)))
    (root / "outside.txt").write_text(synth.contract(905, 2_000))
    if links:
        (docs / "link-out.txt").symlink_to(root / "outside.txt")
        (docs / "sub" / "dangling.txt").symlink_to(root / "nowhere.txt")
    return docs


def _uri(path: str) -> str:
    return "file://" + path


# -- no Spark needed ------------------------------------------------------------------------


def test_a_uri_with_a_password_is_refused():
    from auditor.engine.spark_walk import check_uri
    from auditor.errors import UsageError

    with pytest.raises(UsageError, match="password") as e:
        check_uri("ftp://alice:s3cret@files.example/filings")
    assert "s3cret" not in str(e.value)
    check_uri("ftp://alice@files.example/filings")  # a user name alone is no secret
    check_uri("hdfs://namenode:8020/filings")


def test_the_store_ingest_refuses_a_uri_and_says_where_it_goes(tmp_path):
    r = subprocess.run([sys.executable, "-m", "auditor", "ingest", "--db", str(tmp_path / "c.db"),
                        "hdfs://namenode/filings"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--engine spark" in " ".join(r.stderr.split()), r.stderr
    assert not (tmp_path / "c.db").exists()


# -- on Spark -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spark():
    if _why:
        pytest.skip(f"Spark engine tests skipped: {_why}")
    from auditor.engine.spark_engine import session

    s = session("local[2]", config={"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4",
                                    "spark.driver.memory": "1g"})
    yield s
    s.stop()


_DOCS = ("SELECT id, sha256, path, format, extractor, n_words, n_chars, duplicate_of, norm_sha256, unreadable,"
         " parent_id, meta, warnings, page_offsets FROM documents ORDER BY id")
_SIGHTINGS = "SELECT doc_id, path, resolved, part, within_id, size, mtime, meta FROM sightings ORDER BY id"


def _same_as_store(store, export: Path, to_uri) -> None:
    """The export holds the store's documents, sightings, failures, sampled sets and texts, with
    each local path as ``to_uri`` writes it."""
    import numpy as np
    import pyarrow.parquet as pq

    from auditor.engine.export_store import ExportStore

    src = ExportStore(export)
    want = store.rows(_DOCS)
    for d in want:
        d["path"] = to_uri(d["path"])
    assert src.rows(_DOCS) == want
    want = store.rows(_SIGHTINGS)
    for s in want:
        s["path"], s["resolved"] = to_uri(s["path"]), to_uri(s["resolved"], resolved=True)
    assert src.rows(_SIGHTINGS) == want
    failed = pq.read_table(export / "failures").to_pylist()
    assert [(to_uri(path), status, code, message, size) for path, status, code, message, size in store.conn.execute(
        "SELECT path, status, code, message, size FROM failures ORDER BY id")] == \
        [(f["path"], f["status"], f["code"], f["message"], f["size"]) for f in failed]
    post = pq.read_table(export / "postings").to_pydict()
    got: dict[int, list[int]] = {}
    for h, d in zip(post["hash"], post["doc_id"], strict=True):
        got.setdefault(d, []).append(h)
    assert {d: sorted(h) for d, h in got.items()} == {
        d: sorted(np.frombuffer(b, np.uint64).view(np.int64).tolist())
        for d, b in store.conn.execute("SELECT doc_id, sampled FROM index_docs WHERE n_sampled > 0")}
    assert dict(src.texts_of(range(1, 100))) == dict(store.conn.execute("SELECT doc_id, auditor_text(text) FROM texts"))
    assert [(r["doc_id"], r["n_words"], r["sha256"], r["data"]) for r in pq.read_table(export / "sequences").to_pylist()] \
        == [(d, n, h, bytes(b)) for d, n, h, b in store.conn.execute(
            "SELECT doc_id, n_words, sha256, data FROM shingle_sequences ORDER BY doc_id")]  # the word sequences


def _file_uri(path: str, resolved: bool = False) -> str:
    return ("file:" if resolved and os.path.isabs(path) else "file://") + path


@needs_spark
@pytest.mark.slow
def test_file_uris_give_the_store_of_the_local_walk(spark, tmp_path):
    """A tree given as a ``file://`` URI, in parts of 3, gives the store that ``auditor ingest``
    of the same tree gives: the same ids in walk order, the same first copies and sightings,
    the same failures with their reasons (a corrupt PDF, a file over the size limit, a link out
    of the tree, a dangling link), the same sampled sets, texts and word sequences."""
    from auditor.corpus.ingest import ingest
    from auditor.engine.spark_ingest import spark_ingest
    from auditor.extract import Limits
    from auditor.store.db import Store

    docs = _tree(tmp_path)
    (docs / "sub" / "too-large.txt").write_text(synth.filing(906, 80_000)[0])
    limits = Limits(max_file_bytes=40_000)
    with Store(tmp_path / "c.db") as store:
        ingest(store, [docs], limits=limits, workers=1)
        codes = [c for c, in store.conn.execute("SELECT code FROM failures ORDER BY id")]
        assert sorted(codes) == sorted(["symlink_outside", "unreadable", "too_large", codes[0]]) and len(codes) == 4
        assert store.scalar("SELECT count(*) FROM sightings") > store.scalar("SELECT count(*) FROM documents")
        r = spark_ingest(spark, [_uri(str(docs))], tmp_path / "uri", files_per_part=3, limits=limits)
        assert (r.files, r.parts, r.parts_done_before, r.missing) == (12, 4, 0, [])
        _same_as_store(store, tmp_path / "uri", _file_uri)


@needs_spark
@pytest.mark.slow
def test_a_uri_ingest_resumes_and_reads_a_changed_file_again(spark, tmp_path, monkeypatch):
    """A part whose task died before it finished (no ``params.json``) is done again, the others
    are skipped; a file whose size or mtime changed since has its part read again. A file that
    is gone by the time the executors read it is recorded as unreadable, and the rest goes on."""
    import pyarrow.parquet as pq

    import auditor.engine.spark_walk as spark_walk
    from auditor.engine.spark_ingest import UNREAD, spark_ingest

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(5):
        (docs / f"f-{i}.txt").write_text(synth.filing(910 + i, 3_000)[0])
    out = tmp_path / "out"
    first = spark_ingest(spark, [_uri(str(docs))], out, files_per_part=2)
    assert (first.parts, first.parts_done_before, first.documents, first.failures) == (3, 0, 5, 0)
    written = {p.parent.name: p.stat().st_mtime_ns for p in (out / "parts").glob("*/params.json")}
    docs_before = pq.read_table(out / "documents").to_pylist()
    (out / "parts" / "000001" / "params.json").unlink()  # as a task killed before its last write leaves it
    again = spark_ingest(spark, [_uri(str(docs))], out, files_per_part=2)
    assert (again.parts_done_before, again.documents) == (2, 5)
    assert [(p.parent.name, p.stat().st_mtime_ns) for p in sorted((out / "parts").glob("*/params.json"))
            if p.parent.name != "000001"] == [(n, written[n]) for n in ("000000", "000002")]
    same = pq.read_table(out / "documents").to_pylist()
    assert [(d["id"], d["sha256"], d["path"]) for d in same] == [(d["id"], d["sha256"], d["path"]) for d in docs_before]

    (docs / "f-4.txt").write_text(synth.filing(999, 3_500)[0])  # another size: its part is read again
    changed = spark_ingest(spark, [_uri(str(docs))], out, files_per_part=2)
    assert changed.parts_done_before == 2
    assert pq.read_table(out / "documents").to_pylist()[-1]["sha256"] != docs_before[-1]["sha256"]

    listed = spark_walk.walk_uri

    def walk_then_remove(spark, given):  # the file goes between the driver's walk and the executors' read
        entries = listed(spark, given)
        (docs / "f-1.txt").unlink()
        return entries

    monkeypatch.setattr(spark_walk, "walk_uri", walk_then_remove)
    gone = spark_ingest(spark, [_uri(str(docs))], tmp_path / "gone", files_per_part=2)
    assert (gone.documents, gone.failures) == (4, 1)
    failed = pq.read_table(tmp_path / "gone" / "failures").to_pylist()
    assert [(f["path"], f["code"]) for f in failed] == [(_uri(str(docs / "f-1.txt")), "unreadable")]
    assert failed[0]["message"].startswith(UNREAD)


@needs_spark
@pytest.mark.slow  # the JVM
def test_the_hadoop_listing_walks_in_the_order_of_the_local_walk(spark, tmp_path):
    """Listed through Hadoop's ``FileSystem`` API (as HDFS and S3 are), a tree comes in the local
    walk's order: in each directory its files by name, then its subdirectories by name, depth
    first; names a Spark reader would hide are listed."""
    from auditor.corpus.ingest import walk
    from auditor.engine.spark_walk import _walk_hadoop

    root = tmp_path / "t"
    for name in ("b/z.txt", "b/A.txt", "a.txt", "B.txt", "_x.txt", ".h.txt", "a/b/c.txt", "a/a.txt", "a-b.txt",
                 "a/b.txt", "10.txt", "9.txt"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    listed = _walk_hadoop(spark, _uri(str(root)), "S")
    assert listed is not None
    assert [x.path for x in listed] == ["S" + f.path[len(str(root)):] for f in walk([root])]
    assert all(x.uri == "file:" + str(root) + x.path[1:] and x.size == len(x.path) - 2 for x in listed)
    assert _walk_hadoop(spark, _uri(str(root / "nothing")), "S") is None


@pytest.fixture
def ftp(tmp_path):
    """A real FTP server (pyftpdlib) on 127.0.0.1 serving ``tmp_path/root``, read only; yields
    (root, port). Its credentials go to Hadoop's settings, never into a URI."""
    import logging
    import threading
    import warnings

    with warnings.catch_warnings():  # on Python 3.11 pyftpdlib imports the standard asyncore, deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        from pyftpdlib.authorizers import DummyAuthorizer
        from pyftpdlib.handlers import FTPHandler
        from pyftpdlib.servers import FTPServer

    logging.getLogger("pyftpdlib").setLevel(logging.WARNING)
    root = tmp_path / "root"
    root.mkdir()
    users = DummyAuthorizer()
    users.add_user("auditor", "not-a-secret", str(root), perm="elr")
    handler = type("Handler", (FTPHandler,), {"authorizer": users})
    server = FTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"timeout": 0.2}, daemon=True)
    thread.start()
    yield root, server.socket.getsockname()[1]
    server.close_all()
    thread.join(10)


@needs_spark
@pytest.mark.slow
def test_an_ftp_server_read_through_hadoop_gives_the_store(spark, ftp):
    """A tree served by FTP is listed through Hadoop's ``FileSystem`` API on the driver and read
    by Hadoop's ``FTPFileSystem`` on the executors, as HDFS and S3 would be: the store of the
    same tree, id for id. A link the server will not follow (out of its root) is listed as a
    file and cannot be read: it is recorded as unreadable, and the rest goes on."""
    import pyarrow.parquet as pq

    from auditor.corpus.ingest import ingest
    from auditor.engine.export_store import ExportStore
    from auditor.engine.spark_ingest import UNREAD, spark_ingest
    from auditor.store.db import Store

    root, port = ftp
    docs = _tree(root, links=False)
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    for k, v in (("fs.ftp.user.127.0.0.1", "auditor"), ("fs.ftp.password.127.0.0.1", "not-a-secret"),
                 ("fs.ftp.data.connection.mode", "PASSIVE_LOCAL_DATA_CONNECTION_MODE")):
        conf.set(k, v)
    base = f"ftp://127.0.0.1:{port}"
    with Store(root.parent / "c.db") as store:
        ingest(store, [docs], workers=1)
        (docs / "sub" / "escape.txt").symlink_to(root.parent / "outside.txt")  # out of the server's root
        r = spark_ingest(spark, [f"{base}/docs/"], root.parent / "ftp", files_per_part=4)
        assert (r.files, r.documents, r.failures, r.missing) == (10, store.scalar("SELECT count(*) FROM documents"),
                                                                 2, [])

        def to_uri(path: str, resolved: bool = False) -> str:
            return base + path[len(str(root)):]

        failed = pq.read_table(root.parent / "ftp" / "failures").to_pylist()
        escape = [f for f in failed if f["path"].endswith("/escape.txt")]
        assert [(f["path"], f["code"]) for f in escape] == [(f"{base}/docs/sub/escape.txt", "unreadable")]
        assert escape[0]["message"].startswith(UNREAD)
        src = ExportStore(root.parent / "ftp")
        want = store.rows(_DOCS)
        for d in want:
            d["path"] = to_uri(d["path"])
        assert src.rows(_DOCS) == want
        cols = "SELECT doc_id, path, resolved, part, within_id, size FROM sightings ORDER BY id"
        want = store.rows(cols)
        for x in want:
            x["path"], x["resolved"] = to_uri(x["path"]), to_uri(x["resolved"])
        assert src.rows(cols) == want
        assert [(f["path"], f["code"], f["message"]) for f in failed if f not in escape] == [
            (to_uri(p), c, m) for p, c, m in store.conn.execute("SELECT path, code, message FROM failures ORDER BY id")]
        assert dict(src.texts_of(range(1, 100))) == dict(
            store.conn.execute("SELECT doc_id, auditor_text(text) FROM texts"))
    with pytest.raises(Exception, match="password"):
        spark_ingest(spark, [f"ftp://auditor:not-a-secret@127.0.0.1:{port}/docs"], root.parent / "never")
