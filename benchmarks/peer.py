"""The peer: datasketch's MinHash + MinHashLSHEnsemble over the same shingles, same truth.

    python benchmarks/peer.py --db STORE --truth CORPUS/truth.json --corpus CORPUS

Every stored document with text gets a MinHash (128 permutations, datasketch's default SHA-1
hash of each item, ``update_batch``) of *all* its distinct 5-word shingle hashes as computed by
``auditor.text.shingle`` (8 bytes each), and goes into one ``MinHashLSHEnsemble(threshold=0.8,
num_perm=128, num_part=16)`` with its set size. Each contract file is then queried: the ensemble
returns the documents that (it estimates) contain at least 80% of the contract's shingles. Recall
is counted on the truth's must-find placements: found when the placement's container (the EDGAR
part for submissions), or an exact duplicate of it, is among the results.

Needs the optional ``bench`` extra (``pip install -e '.[bench]'``); without datasketch it prints
``{"skipped": ...}``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from auditor.store.packing import sql_text
from auditor.text.shingle import Params, WordHasher, shingle_text

NUM_PERM = 128
NUM_PART = 16
THRESHOLD = 0.8


def doc_key(path: str, corpus: str) -> str:
    """A stored document's path relative to the corpus directory ('rel' or 'rel#SEQUENCE')."""
    prefix = corpus.rstrip("/") + "/"
    return path[len(prefix):] if path.startswith(prefix) else path


def sightings(con: sqlite3.Connection, corpus: str) -> dict[str, int]:
    """Every place a document was seen ('rel' or 'rel#SEQUENCE') -> its document id. Identical
    bytes are stored once: a second EDGAR exhibit with the same bytes is only a sighting."""
    out: dict[str, int] = {}
    for path, part, doc_id in con.execute("SELECT path, part, doc_id FROM sightings ORDER BY id"):
        out.setdefault(doc_key(path, corpus) + (f"#{part}" if part else ""), doc_id)
    return out


def run(db: str | Path, truth_path: str | Path, corpus: str, num_perm: int = NUM_PERM,
        num_part: int = NUM_PART, threshold: float = THRESHOLD) -> dict:
    try:
        from importlib.metadata import version

        from datasketch import MinHash, MinHashLSHEnsemble
    except ImportError:
        return {"skipped": "datasketch is not installed (pip install -e '.[bench]')"}
    truth = json.loads(Path(truth_path).read_text(encoding="utf-8"))
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.create_function("auditor_text", 1, sql_text, deterministic=True)  # texts are stored compressed
    params = Params(**json.loads(con.execute("SELECT value FROM meta WHERE key = 'index_params'").fetchone()[0]))
    docs = con.execute(
        "SELECT d.id, d.path, coalesce(d.duplicate_of, d.id) FROM documents d WHERE d.n_words > 0 ORDER BY d.id"
    ).fetchall()
    key_of = {i: doc_key(p, corpus) for i, p, _ in docs}
    id_of = sightings(con, corpus)
    group = {i: g for i, _, g in docs}

    t0 = time.perf_counter()
    hasher = WordHasher(params.seed)
    shingles = {}
    for doc_id, text in con.execute(
        "SELECT t.doc_id, auditor_text(t.text) FROM texts t JOIN documents d ON d.id = t.doc_id WHERE d.n_words > 0 ORDER BY t.doc_id"
    ):
        a = shingle_text(text, params, hasher, keep_all=True).all
        if a is not None and len(a):
            shingles[doc_id] = a
    con.close()
    t1 = time.perf_counter()
    sketches = {}
    for doc_id, a in shingles.items():
        m = MinHash(num_perm=num_perm)
        b = a.tobytes()
        m.update_batch([b[j : j + 8] for j in range(0, len(b), 8)])
        sketches[doc_id] = m
    t2 = time.perf_counter()
    lsh = MinHashLSHEnsemble(threshold=threshold, num_perm=num_perm, num_part=num_part)
    lsh.index([(doc_id, sketches[doc_id], len(a)) for doc_id, a in shingles.items()])
    t3 = time.perf_counter()
    contracts = [i for i, k in key_of.items() if k.startswith("contracts/") and i in shingles]
    returned = {i: set(lsh.query(sketches[i], len(shingles[i]))) - {i} for i in contracts}
    t4 = time.perf_counter()

    returned_groups = {i: {group[r] for r in rs} for i, rs in returned.items()}
    by_kind: dict[str, Counter] = {}
    related = set()
    for p in truth["placements"]:
        c = id_of.get(p["contract"])
        container = p["container"] + (f"#{p['sequence']}" if p["sequence"] is not None else "")
        f = id_of.get(container)
        counts = by_kind.setdefault(p["kind"], Counter())
        counts["placements"] += 1
        if c is None or f is None:
            counts["not_stored"] += 1
            continue
        related.add((c, group[f]))
        if group[f] in returned_groups.get(c, set()):
            counts["returned"] += 1
    pairs = sum(len(v) for v in returned.values())
    not_in_truth = sum(1 for c, gs in returned_groups.items() for g in gs
                    if (c, g) not in related and g != group[c])
    must = [p for p in truth["placements"] if p["must_find"]]
    must_found = sum(by_kind[k]["returned"] for k in {p["kind"] for p in must})
    return {
        "datasketch": version("datasketch"),
        "num_perm": num_perm, "num_part": num_part, "threshold": threshold,
        "documents": len(shingles), "shingles": int(sum(len(a) for a in shingles.values())),
        "queries": len(contracts),
        "shingle_s": t1 - t0, "sketch_s": t2 - t1, "index_s": t3 - t2, "query_s": t4 - t3,
        "index_query_s": t4 - t2, "total_s": t4 - t0,
        "must_find": len(must), "must_found": must_found,
        "recall": must_found / len(must) if must else None,
        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "returned_pairs": pairs, "returned_not_in_truth": not_in_truth,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--corpus", required=True, help="the corpus directory as given to auditor ingest")
    ap.add_argument("--num-perm", type=int, default=NUM_PERM)
    ap.add_argument("--num-part", type=int, default=NUM_PART)
    args = ap.parse_args(argv)
    print(json.dumps(run(args.db, args.truth, args.corpus, args.num_perm, args.num_part), sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
