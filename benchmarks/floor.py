"""The floor: the least a Python pipeline must do to build the same sampled index.

    python benchmarks/floor.py --db STORE --out FLOOR.db [--workers 1]

It reads the extracted texts from the store's ``texts`` table (the same input ``auditor index
--rebuild`` reads, so extraction is excluded from both), then, per document: case-folds, splits
into words (with the same normalisation rules: NFKC + case folding for non-ASCII text, hyphens
between letters joined), hashes each distinct word once with ``xxh3_64``, combines 5 word hashes
per shingle with numpy, keeps the shingles whose hash is 0 modulo 16, sorts them distinctly, and
writes one row per document (doc_id, n_words, n_sampled, the sampled hashes as a blob) to SQLite
with the store's pragmas (WAL, synchronous=NORMAL), keyed by doc_id.

Nothing else: no distinct count of all shingles, no fingerprint of the normalised text, no
provenance, no per-document transaction. The output is checked against the real index
(``compare``) so the floor provably builds the same thing.

With ``--workers 2`` the documents are split between two forked processes (texts read by each
worker, sampled blobs sent back to the parent, which writes them), which is how the real index
build uses the machine's two cores.

    python benchmarks/floor.py --files DIR... --out FLOOR.db [--workers 2] [--check STORE]

The floor of the whole ingest: the same index built from the corpus files instead of the stored
texts. Each worker reads its share of the files (sorted, dealt in turn), extracts each with the
library's ``extract_bytes`` (what ingest's sandbox children run, here in-process, with no
sandbox), shingles the text of the file and of each EDGAR part as above, and sends back one row
per text keyed by the sha256 of its bytes (the key ingest stores documents under), which the
parent writes. No provenance, no text stored, no per-file transaction, no child processes
(except pdfminer's, for PDFs). ``--check STORE`` compares it with a store's index by sha256.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import time
import unicodedata
from collections.abc import Iterable, Iterator
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import xxhash

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from auditor.store.packing import sql_text
from auditor.text.shingle import DEFAULT_PARAMS

_TABLE = bytes(b if (b >= 0x80 or chr(b).isalnum()) else 0x20 for b in range(256))
# A hyphen between two letters/digits, directly or across a line break, is removed. Bytes >= 0x80
# left after folding belong to letters and digits (everything else became an ASCII separator).
# (The literal comes first so the regex engine skips straight to hyphens.)
_JOIN = re.compile(
    rb"-(?<=[A-Za-z0-9\x80-\xff]-)(?:[ \t]*[\n\r\f\v\x1c-\x1e][ \t\n\r\f\v\x1c-\x1f]*)?(?=[A-Za-z0-9\x80-\xff])")
_LINE_BREAKS = "\x85\u2028\u2029"
_HYPHENS = "\u00ad\u2010\u2011"
_M = np.uint64(0x9E3779B97F4A7C15)
_F1 = np.uint64(0xFF51AFD7ED558CCD)
_F2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)


class _Composes(Exception):
    """A run that NFKC composes with the ASCII character before it (a combining accent)."""


def _fold(s: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", s).casefold())


def _classify(s: str) -> bytes:
    """Folded text with each character that is not a letter or digit replaced by an ASCII byte
    of the same class for the hyphen rule: '-' for hyphens, newline for line breaks, 0x1f for
    other white space, 0x00 for anything else (all later become word separators)."""
    chars = []
    for c in s:
        if c.isascii() or c.isalnum():
            chars.append(c)
        elif c in _HYPHENS:
            chars.append("-")
        elif c in _LINE_BREAKS:
            chars.append("\n")
        elif c.isspace():
            chars.append("\x1f")
        else:
            chars.append("\x00")
    return "".join(chars).encode("utf-8", "surrogatepass")


_FOLDED: dict[bytes, bytes] = {}


def _fold_runs(b: bytes) -> bytes:
    """Replace every run of non-ASCII bytes by its folded, classified form (computed once per
    distinct run and preceding character). Runs are found with numpy: a regex scan of the whole
    text costs ten times more."""
    hi = np.flatnonzero(np.frombuffer(b, dtype=np.uint8) >= 0x80)
    if len(hi) == 0:
        return b
    brk = np.flatnonzero(np.diff(hi) > 1)
    starts = hi[np.concatenate(([0], brk + 1))].tolist()
    ends = (hi[np.concatenate((brk, [len(hi) - 1]))] + 1).tolist()
    pieces = []
    pos = 0
    for a, e in zip(starts, ends, strict=True):
        key = b[a - 1 : e] if a else b[a:e]
        out = _FOLDED.get(key)
        if out is None:
            folded = _fold(b[a:e].decode("utf-8", "surrogatepass"))
            if a and _fold(key.decode("utf-8", "surrogatepass")) != chr(b[a - 1]) + folded:
                raise _Composes
            out = _FOLDED[key] = _classify(folded)
        pieces.append(b[pos:a])
        pieces.append(out)
        pos = e
    pieces.append(b[pos:])
    return b"".join(pieces)


def words(text: str) -> list[bytes]:
    """The normalised words of ``text`` (the same as ``auditor.text.normalize.words_bytes``), in bytes
    throughout: non-ASCII runs are folded once per distinct run and substituted."""
    b = text.encode("utf-8", "surrogatepass").lower()
    if not text.isascii():
        try:
            b = _fold_runs(b)
        except _Composes:  # not in the benchmark corpus; the library's per-text Unicode path
            from auditor.text.normalize import words_bytes

            return words_bytes(text)
    if b"-" in b:
        b = _JOIN.sub(b"", b)
    return b.translate(_TABLE).split()


class _WordHashes(dict):
    """word -> xxh3_64(word, seed); a missing word is hashed on lookup, so the common case (every
    word known) is one C-level dict lookup per word, with no set of the document's words."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed

    def __missing__(self, word: bytes) -> int:
        v = self[word] = xxhash.xxh3_64_intdigest(word, self.seed)
        return v


def sampled_rows(rows: Iterable[tuple[int, str]], seed: int, k: int, modulus: int) -> list[tuple[int, int, int, bytes]]:
    """(doc_id, n_words, n_sampled, blob) for each (doc_id, text)."""
    get = _WordHashes(seed).__getitem__
    mod = np.uint64(modulus)
    out = []
    for doc_id, text in rows:
        ws = words(text)
        n = len(ws)
        wh = np.fromiter(map(get, ws), dtype=np.uint64, count=n)
        m = n - k + 1
        if m <= 0:
            out.append((doc_id, n, 0, b""))
            continue
        x = wh[:m].copy()
        for i in range(1, k):
            x *= _M
            x += wh[i : i + m]
        x ^= x >> _S33
        x *= _F1
        x ^= x >> _S33
        x *= _F2
        x ^= x >> _S33
        s = np.unique(x[x % mod == 0])
        out.append((doc_id, n, len(s), s.tobytes()))
    return out


def _texts(db: str, part: int = 0, parts: int = 1) -> Iterator[tuple[int, str]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.create_function("auditor_text", 1, sql_text, deterministic=True)  # texts are stored compressed
    try:
        yield from con.execute(
            "SELECT t.doc_id, auditor_text(t.text) FROM texts t JOIN documents d ON d.id = t.doc_id"
            " WHERE d.n_words > 0 AND t.doc_id % ? = ? ORDER BY t.doc_id", (parts, part))
    finally:
        con.close()


def _worker(args: tuple[str, int, int, int, int, int]) -> list[tuple[int, int, int, bytes]]:
    db, part, parts, seed, k, modulus = args
    return sampled_rows(_texts(db, part, parts), seed, k, modulus)


def build(db: str | Path, out: str | Path, workers: int = 1, seed: int = DEFAULT_PARAMS.seed,
          k: int = DEFAULT_PARAMS.k, modulus: int = DEFAULT_PARAMS.modulus) -> dict:
    """Build the floor index of ``db`` into ``out``; returns timings (seconds) and counts."""
    t0 = time.perf_counter()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{out}{suffix}").unlink(missing_ok=True)
    if workers <= 1:
        rows = sampled_rows(_texts(str(db)), seed, k, modulus)
    else:
        with get_context("fork").Pool(workers) as pool:
            parts = pool.map(_worker, [(str(db), i, workers, seed, k, modulus) for i in range(workers)])
        rows = [r for p in parts for r in p]
    t1 = time.perf_counter()
    con = sqlite3.connect(out)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE idx (doc_id INTEGER PRIMARY KEY, n_words INTEGER NOT NULL,"
                " n_sampled INTEGER NOT NULL, sampled BLOB NOT NULL)")
    with con:
        con.executemany("INSERT INTO idx VALUES (?,?,?,?)", rows)
    con.close()
    t2 = time.perf_counter()
    return {"workers": workers, "documents": len(rows), "postings": sum(r[2] for r in rows),
            "words": sum(r[1] for r in rows), "compute_s": t1 - t0, "write_s": t2 - t1,
            "total_s": t2 - t0}


def _file_rows(args: tuple[list[str], int, int, int]) -> list[tuple[str, int, int, bytes]]:
    """(sha256 of the bytes, n_words, n_sampled, blob) for each file and each EDGAR part of it."""
    import hashlib

    from auditor.errors import ExtractionError
    from auditor.extract import extract_bytes

    paths, seed, k, modulus = args
    texts = []
    for path in paths:
        data = Path(path).read_bytes()
        try:
            ex = extract_bytes(data, path)
        except ExtractionError:
            continue
        texts.append((hashlib.sha256(data).hexdigest(), ex.text))
        texts += [(hashlib.sha256(p.raw).hexdigest(), p.extracted.text) for p in ex.parts
                  if p.status == "ok" and p.extracted is not None]
    keys = [t[0] for t in texts]
    rows = sampled_rows(((i, t) for i, (_, t) in enumerate(texts)), seed, k, modulus)
    return [(keys[i], n, m, blob) for i, n, m, blob in rows]


def corpus_files(inputs: Iterable[str | Path]) -> list[str]:
    """The regular files under ``inputs``, sorted (ingest walks directories in sorted order)."""
    out: list[str] = []
    for x in inputs:
        p = Path(x)
        out += [str(f) for f in sorted(p.rglob("*")) if f.is_file()] if p.is_dir() else [str(p)]
    return out


def build_from_files(inputs: Iterable[str | Path], out: str | Path, workers: int = 2,
                     seed: int = DEFAULT_PARAMS.seed, k: int = DEFAULT_PARAMS.k,
                     modulus: int = DEFAULT_PARAMS.modulus) -> dict:
    """Build the floor index straight from the files under ``inputs``; returns timings and counts."""
    t0 = time.perf_counter()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{out}{suffix}").unlink(missing_ok=True)
    files = corpus_files(inputs)
    shares = [(files[i::max(1, workers)], seed, k, modulus) for i in range(max(1, workers))]
    if workers <= 1:
        rows = _file_rows(shares[0])
    else:
        with get_context("fork").Pool(workers) as pool:
            rows = [r for part in pool.map(_file_rows, shares) for r in part]
    t1 = time.perf_counter()
    con = sqlite3.connect(out)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE idx (sha256 TEXT PRIMARY KEY, n_words INTEGER NOT NULL,"
                " n_sampled INTEGER NOT NULL, sampled BLOB NOT NULL)")
    with con:
        con.executemany("INSERT OR IGNORE INTO idx VALUES (?,?,?,?)", rows)
    con.close()
    t2 = time.perf_counter()
    return {"workers": workers, "files": len(files), "texts": len(rows), "postings": sum(r[2] for r in rows),
            "words": sum(r[1] for r in rows), "compute_s": t1 - t0, "write_s": t2 - t1, "total_s": t2 - t0}


def compare_files(store_db: str | Path, floor_db: str | Path) -> dict:
    """Does the from-files floor hold exactly the store's index (by the sha256 of each document's
    bytes: the same texts, the same sampled blobs)?"""
    a = sqlite3.connect(f"file:{store_db}?mode=ro", uri=True)
    b = sqlite3.connect(f"file:{floor_db}?mode=ro", uri=True)
    try:
        idx = {r[0]: (r[1], r[2]) for r in a.execute(
            "SELECT d.sha256, i.n_words, i.sampled FROM index_docs i JOIN documents d ON d.id = i.doc_id")}
        flo = {r[0]: (r[1], r[2]) for r in b.execute("SELECT sha256, n_words, sampled FROM idx WHERE n_words > 0")}
    finally:
        a.close()
        b.close()
    differ = sorted(d for d in idx.keys() | flo.keys() if idx.get(d) != flo.get(d))
    return {"same": not differ, "documents": len(idx), "differ": differ[:20], "n_differ": len(differ)}


def compare(store_db: str | Path, floor_db: str | Path) -> dict:
    """Does the floor hold exactly the store's index (same documents, same sampled blobs)?"""
    a = sqlite3.connect(f"file:{store_db}?mode=ro", uri=True)
    b = sqlite3.connect(f"file:{floor_db}?mode=ro", uri=True)
    try:
        idx = {r[0]: (r[1], r[2]) for r in a.execute("SELECT doc_id, n_words, sampled FROM index_docs")}
        flo = {r[0]: (r[1], r[2]) for r in b.execute("SELECT doc_id, n_words, sampled FROM idx WHERE n_sampled > 0 OR n_words > 0")}
    finally:
        a.close()
        b.close()
    differ = sorted(d for d in idx.keys() | flo.keys() if idx.get(d) != flo.get(d))
    return {"same": not differ, "documents": len(idx), "differ": differ[:20], "n_differ": len(differ)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", help="auditor store to read texts from")
    ap.add_argument("--files", nargs="+", help="build from these files and directories instead (extraction included)")
    ap.add_argument("--out", required=True, help="SQLite file to write (replaced)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--check", nargs="?", const=True, default=None,
                    help="compare the result with the store's index (with --files: give the store)")
    args = ap.parse_args(argv)
    if bool(args.db) == bool(args.files):
        ap.error("give either --db or --files")
    if args.files:
        r = build_from_files(args.files, args.out, workers=args.workers)
        if args.check:
            r["check"] = compare_files(args.check, args.out)
    else:
        r = build(args.db, args.out, workers=args.workers)
        if args.check:
            r["check"] = compare(args.db, args.out)
    r["pid"] = os.getpid()
    print(json.dumps(r, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
