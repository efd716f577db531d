"""Hostile inputs and process helpers for the tests of ingest, the sandbox and the CLI.

Every input is made here by code: special files, symbolic links, names no terminal should see
raw, PDFs whose references loop, EDGAR submissions with too many documents, .docx bombs.
"""

from __future__ import annotations

import os
import shutil
import socket
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from tests.support.fixtures_build import serialize_pdf
from tests.support.textgen import prose

#: A file name that would drive a terminal (OSC 8 hyperlink, BEL, clear screen, right-to-left
#: override) and rich markup ([link=...], and [/] across the directory separator).
NASTY_DIR = "[link=https:evil]x["
NASTY_FILE = "]\x1b]8;;https:evil\x07click\x1b]8;;\x07 \u202etxt.exe\x1b[2J\x07.txt"
NASTY = f"{NASTY_DIR}/{NASTY_FILE}"
RAW_CONTROLS = ("\x1b", "\x07", "\u202e", "\x9b")


def cycle_pdf(kind: str = "contents") -> bytes:
    """A few hundred bytes whose indirect references loop (4 0 R -> 5 0 R -> 4 0 R): pdfminer.six
    alone resolves them forever."""
    objs = {
        "contents": [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                     b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
                     b"5 0 R", b"4 0 R"],
        "pages": [b"<< /Type /Catalog /Pages 2 0 R >>", b"3 0 R", b"2 0 R"],
    }[kind]
    return serialize_pdf(objs)


def docx_bomb(path: Path, inflated: int) -> None:
    """A .docx whose word/document.xml inflates to ``inflated`` bytes (of one long paragraph)."""
    head = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://'
            b'schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>')
    tail = b"</w:t></w:r></w:p></w:body></w:document>"
    chunk = b"lease " * (1 << 16)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/'
                   'package/2006/content-types"/>')
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            f.write(head)
            left = inflated - len(head) - len(tail)
            while left > 0:
                f.write(chunk[:left])
                left -= len(chunk)
            f.write(tail)


def special_files(d: Path) -> None:
    """A FIFO and a listening Unix socket (its listener is closed; the file stays)."""
    os.mkfifo(d / "pipe.txt")
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(d / "socket.txt"))
    finally:
        s.close()


def unprivileged() -> list[str]:
    """A command prefix that makes permission bits apply: as root, drop every capability."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        import pytest

        pytest.skip("running as root without setpriv: permission bits cannot be tested")
    return [setpriv, "--bounding-set=-all", "--inh-caps=-all", "--"]


# -- processes -----------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a process, from /proc."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rindex(b")") + 2:].split()
    return int(fields[1]), fields[0].decode(), int(fields[19])


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def descendants(pid: int) -> dict[int, int]:
    """Every living descendant of ``pid``: pid -> start time (to tell a reused pid)."""
    children: dict[int, list[int]] = {}
    info: dict[int, tuple[int, str, int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None:
                info[int(entry)] = st
                children.setdefault(st[0], []).append(int(entry))
    out: dict[int, int] = {}
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop()
        if info[p][1] != "Z":
            out[p] = info[p][2]
        todo += children.get(p, [])
    return out


def alive(pid: int, start: int) -> bool:
    st = _stat(pid)
    return st is not None and st[2] == start and st[1] != "Z"


def wait_for(condition: Callable[[], object], timeout: float, every: float = 0.05) -> object:
    """Poll until ``condition()`` is truthy (returned) or ``timeout`` seconds pass (None)."""
    end = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > end:
            return value
        time.sleep(every)


def good_texts(d: Path, n: int, seed: int = 500) -> list[Path]:
    paths = []
    for i in range(n):
        p = d / f"good{i:03d}.txt"
        p.write_text(prose(seed + i, 300))
        paths.append(p)
    return paths


def slow_pdf() -> bytes:
    """400 pages of 3,000 scattered words (82 KB): minutes of real pdfminer layout work."""
    from tests.support.fixtures_build import make_raw_pdf

    ops = b" ".join(b"BT /F1 3 Tf %d %d Td (w%d) Tj ET" % (20 + i * 37 % 560, 20 + i * 53 % 750, i)
                    for i in range(3000))
    return make_raw_pdf([ops], repeat=400, flate=True)


# -- stores tampered with behind the tool's back ---------------------------------------------


def copy_store(src: Path, dst: Path) -> Path:
    """A consistent copy of a store (SQLite's backup), for one test to tamper with."""
    import sqlite3

    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return dst


def sql(db: Path, *statements: tuple) -> None:
    """Writes behind the store's back, as any SQLite client could make them."""
    import sqlite3

    c = sqlite3.connect(db, isolation_level=None)
    for stmt in statements:
        c.execute(*stmt)
    c.close()
