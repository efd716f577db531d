"""The one gzip writer: the same content gives the same bytes, and anything a gzip reader would
ignore (a name, a comment, an mtime, bytes after the member, another member) is told apart."""

from __future__ import annotations

import gzip
import io
import zlib

import pytest

from auditor.store import gzfile

LINES = [f'{{"n":{i},"text":"Section {i % 97}. The Lessee shall pay."}}\n'.encode() for i in range(30_000)]
CONTENT = b"".join(LINES)


@pytest.fixture
def written(tmp_path):
    path = tmp_path / "findings.jsonl.gz"
    digest = gzfile.write_lines(path, iter(LINES), compress=True)
    return path, digest


def test_the_same_lines_give_the_same_bytes_and_the_content_digest(written, tmp_path):
    path, digest = written
    again = tmp_path / "again.jsonl.gz"
    split = gzfile.write_lines(again, [CONTENT[:10], CONTENT[10:]], compress=True)  # other pieces
    assert split == {"sha256": digest["sha256"], "lines": 2}
    assert path.read_bytes() == again.read_bytes() == gzfile.compress(CONTENT)
    assert gzip.decompress(path.read_bytes()) == CONTENT and digest["lines"] == len(LINES)
    assert path.read_bytes()[:10] == gzfile.HEADER  # no name, no mtime, XFL 0, OS unknown
    assert gzfile.byte_problem(path) is None
    assert not list(tmp_path.glob(".*.tmp"))
    plain = tmp_path / "plan.jsonl"
    assert gzfile.write_lines(plain, iter(LINES), compress=False) == digest and plain.read_bytes() == CONTENT


def test_a_failed_write_leaves_the_old_file_and_no_temporary(written):
    path, _ = written
    before = path.read_bytes()

    def broken():
        yield LINES[0]
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        gzfile.write_lines(path, broken(), compress=True)
    assert path.read_bytes() == before and not list(path.parent.glob(".*.tmp"))


def test_every_whole_file_goes_through_one_atomic_writer(tmp_path):
    """``replacing``: the file appears whole or keeps its old content; ``shared`` names the
    temporary after the process, for a cache that several runs write at once."""
    import os

    path = tmp_path / "baseline.json"
    gzfile.write_text(path, "old\n")
    with pytest.raises(RuntimeError), gzfile.replacing(path) as tmp:
        assert tmp.name == ".baseline.json.tmp"
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert path.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["baseline.json"]
    with gzfile.replacing(path, shared=True) as tmp:
        assert tmp.name == f".baseline.json.{os.getpid()}.tmp"
        tmp.write_text("new\n")
    assert path.read_text() == "new\n" and sorted(p.name for p in tmp_path.iterdir()) == ["baseline.json"]


def _header(flags: int, mtime: int = 0, xfl: int = 0, os_byte: int = 255) -> bytes:
    return bytes([0x1F, 0x8B, 8, flags]) + mtime.to_bytes(4, "little") + bytes([xfl, os_byte])


def _python_gzip(data: bytes) -> bytes:
    """What Python's gzip.GzipFile writes with no name and mtime 0: level 9, XFL 2."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as f:
        f.write(data)
    return buf.getvalue()


def test_every_rewrite_a_reader_ignores_is_named(written):
    path, _ = written
    good = path.read_bytes()
    body = good[10:]
    cases = {
        "names a file ('../../evil-name')": _header(8) + b"../../evil-name\x00" + body,
        "carries a comment ('<script>alert(1)</script>')": _header(16) + b"<script>alert(1)</script>\x00" + body,
        "extra field of 5 bytes": _header(4) + b"\x05\x00hello" + body,
        "modification time (1700000000)": _header(0, mtime=1_700_000_000) + body,
        "operating system 3": _header(0, os_byte=3) + body,
        "4096 zero bytes follow": good + bytes(4096),
        "bytes follow the gzip member": good + gzfile.compress(b'{"n":-1}\n'),
        "compressed otherwise": _header(0) + zlib.compress(CONTENT, 1)[2:-4] + good[-8:],
        "trailer": good[:-8] + b"\x00" * 8,
        "cut short": good[: len(good) // 2],
        "not a gzip file": CONTENT[:100],
    }
    for said, data in cases.items():
        path.write_bytes(data)
        why = gzfile.byte_problem(path)
        assert why is not None and said in why, (said, why)
        if said not in ("trailer", "cut short", "not a gzip file"):
            assert gzip.decompress(data).startswith(CONTENT)  # a gzip reader sees the same content
    path.write_bytes(_python_gzip(CONTENT))  # the same content compressed by another writer
    assert "XFL 2" in gzfile.byte_problem(path)
    path.write_bytes(good + bytes(10))
    assert "10 zero bytes follow" in gzfile.byte_problem(path)
