"""Near-duplicate measures over stored documents: one interface, the same texts and provenance.

The pure measures live in ``auditor.engine.measures``; this module applies them to stored documents
so that every measure sees the same words: the stored text (or, for HTML with
``Preprocess(html="main")``, the main content of the stored document's source bytes), the
project's normalisation (``auditor.text.normalize.words``), then the chosen ``Preprocess`` (the
CopyCat study's stop-word removal and Porter stemming by default). The normalisation already
case-folds, so ``lowercase=False`` is recorded but cannot bring case back.

- ``measures_for_pair``: every measure for two documents, with the engine's containment.
- ``near_duplicates``: pairs and clusters by one method, found without comparing all pairs,
  stored as a run (``runs.kind = "near-dups:<method>"``, one ``near_duplicates`` row per pair).
- ``lsh_curve``: the banding S-curve for the CLI.

Methods, how candidates are found, and why the defaults:

``exact``
    Documents grouped by the 64-bit fingerprint of their preprocessed words. No threshold.
``minhash``
    LSH banding of the stored sketches (``bands`` x ``rows``, default 20 x 10), then the
    sketch estimate ``>= threshold``. Default 0.9, the article's near-duplicate threshold: with
    20 x 10 a pair at 0.9 is a candidate with probability 0.9998, where at 0.8 it is only 0.90
    (``result.summary["candidate_probability_at_threshold"]`` says which).
``jaccard``
    Exact resemblance of ``k``-shingle sets ``>= threshold`` (default 0.9, as above). Candidates
    by prefix filtering, which misses nothing: ``J >= t`` implies ``|A ∩ B| >= t |A|``, so a pair
    shares one of the ``|A| - ceil(t |A|) + 1`` rarest shingles of each document.
``s3``
    Exact S3 over word 8-grams ``>= threshold`` (default 0.82, CopyCat's). Candidates by the
    same prefix filter: ``S3 >= t`` implies ``|A ∩ B| >= t |A| / (2 - t)``. S3 is "lossless"
    in CopyCat, so its candidates are too. Jaccard and S3 hold every document's full set of
    64-bit shingle hashes in memory (8 bytes a shingle), fine for the thousands of documents a
    near-duplicate check is for.
``simhash``
    64-bit simhash of the preprocessed words weighted by count, pairs within Hamming distance
    ``threshold`` (default 3, Manku et al.) by permuted tables (``measures.simhash``).

Clusters are connected components of the pairs (single link: two members of a cluster need not
be near-duplicates of each other). Exact groups are listed as pairs of each member with the
group's first document.

Cached values: MinHash sketches, simhash and exact fingerprints go to the ``sketches`` table,
keyed per kind by a digest of exactly the parameters that shape them (m, seed, k,
preprocessing, normalisation and hash versions, stemmer and main-content library versions), so
they are computed once, and a change of parameters computes new ones instead of mixing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from auditor.engine.describe import describe
from auditor.engine.measures import lsh
from auditor.engine.measures.fingerprint import fingerprint_hex
from auditor.engine.measures.jaccard import intersection_size
from auditor.engine.measures.minhash import (
    DEFAULT_M,
    DEFAULT_SEED,
    EMPTY,
    HASH_FAMILY,
    estimate,
    sketch,
    standard_error,
)
from auditor.engine.measures.preprocess import (
    COPYCAT,
    LUCENE_ENGLISH_STOP_WORDS,
    Preprocess,
    porter_stem,
)
from auditor.engine.measures.s3 import S3_N
from auditor.engine.measures.s3 import s3 as s3_words
from auditor.engine.measures.simhash import FEATURE_HASH_NAME, hamming, simhash, to_hex
from auditor.engine.measures.simhash import near_duplicates as simhash_pairs
from auditor.engine.query import compare
from auditor.errors import ExtractionError, UsageError
from auditor.store.db import Store, now
from auditor.text.components import components
from auditor.text.normalize import NORMALIZATION_VERSION, words
from auditor.text.shingle import (
    DEFAULT_PARAMS,
    HASH_NAME,
    WordHasher,
    distinct,
    shingle_words,
)

METHODS = ("exact", "jaccard", "minhash", "simhash", "s3")
DEFAULT_K = 5
DEFAULT_BANDS, DEFAULT_ROWS = 20, 10
DEFAULT_THRESHOLDS: dict[str, float | None] = {
    "exact": None, "jaccard": 0.9, "minhash": 0.9, "simhash": 3, "s3": 0.82,
}
SIMHASH_NEAR = 3  # Manku, Jain and Das Sarma (2007): at most 3 of 64 bits differ
VERSION = "neardup/1"  # bump when a cached value would be computed differently
SHINGLE_SEED = DEFAULT_PARAMS.seed
KINDS = ("fingerprint", "minhash", "simhash")

_FLUSH = 200  # cached values written per transaction


@dataclass(frozen=True)
class Settings:
    """Every parameter of the measures; ``as_dict`` goes into run params and cache keys."""

    k: int = DEFAULT_K
    m: int = DEFAULT_M
    seed: int = DEFAULT_SEED
    bands: int = DEFAULT_BANDS
    rows: int = DEFAULT_ROWS
    preprocess: Preprocess = COPYCAT

    def __post_init__(self) -> None:
        if self.k < 1:
            raise UsageError(f"shingle size k must be >= 1, not {self.k}")
        if self.m < 1:
            raise UsageError(f"number of MinHash values m must be >= 1, not {self.m}")
        if self.bands < 1 or self.rows < 1:
            raise UsageError(f"bands and rows must be >= 1, not {self.bands} and {self.rows}")
        if self.bands * self.rows > self.m:
            raise UsageError(f"{self.bands} bands of {self.rows} rows need {self.bands * self.rows} "
                             f"MinHash values, more than m={self.m}")
        if not 0 <= self.seed < 2**64:
            raise UsageError(f"seed must be in 0..2**64-1, not {self.seed}")

    def preprocessing(self) -> dict[str, Any]:
        """The preprocessing choice with the versions of what implements it."""
        p = self.preprocess
        out: dict[str, Any] = {**p.as_dict(), "normalization": NORMALIZATION_VERSION}
        if p.stopwords:
            out["stop_words"] = f"lucene-english ({len(LUCENE_ENGLISH_STOP_WORDS)} words)"
        if p.stem:
            out["stemmer"] = f"snowball porter {_version('snowballstemmer')}"
        if p.html == "main":
            out["main_content"] = f"justext {_version('justext')}"
        return out


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _settings(k: int, m: int, seed: int, bands: int, rows: int, preprocess: Preprocess) -> Settings:
    return Settings(k=k, m=m, seed=seed, bands=bands, rows=rows, preprocess=preprocess)


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


def cache_params(kind: str, s: Settings) -> dict[str, Any]:
    """Exactly the parameters that shape a cached value of ``kind``."""
    base: dict[str, Any] = {"kind": kind, "version": VERSION, "preprocessing": s.preprocessing()}
    if kind == "fingerprint":
        return {**base, "hash": "sha256, first 64 bits, of the preprocessed words joined by spaces"}
    if kind == "simhash":
        return {**base, "features": "preprocessed words weighted by count", "feature_hash": FEATURE_HASH_NAME, "f": 64}
    if kind == "minhash":
        return {**base, "k": s.k, "m": s.m, "seed": s.seed, "hash_family": HASH_FAMILY,
                "shingle_hash": HASH_NAME, "shingle_seed": SHINGLE_SEED}
    raise UsageError(f"no cached value of kind {kind!r}")


def cache_key(kind: str, s: Settings) -> str:
    return _digest(cache_params(kind, s))[:32]


# -- words ------------------------------------------------------------------------------------

_STEMS: dict[str, str] = {}
_HASHER = WordHasher(SHINGLE_SEED)


def preprocess_words(ws: Sequence[str], p: Preprocess) -> list[str]:
    """``p.apply(ws)``, stemming each distinct word once (kept across calls): the same words,
    7x faster on a fresh 400 KB filing and 80x once its vocabulary is known."""
    if isinstance(ws, str):
        raise UsageError("preprocess_words() takes a sequence of words, not a string")
    out = [w.lower() for w in ws] if p.lowercase else list(ws)
    if p.stopwords:
        out = [w for w in out if w not in LUCENE_ENGLISH_STOP_WORDS]
    if p.stem:
        missing = sorted(set(out).difference(_STEMS))
        if missing:
            if len(_STEMS) + len(missing) > 1_000_000:  # a pathological vocabulary; start again
                _STEMS.clear()
            _STEMS.update(zip(missing, porter_stem(missing), strict=True))
        out = [_STEMS[w] for w in out]
    return out


@dataclass
class DocWords:
    """A document's preprocessed words and where its text came from."""

    doc_id: int
    words: list[str]
    source: str  # "stored text", "main content of the HTML source", or a fallback with its reason
    cacheable: bool = True  # False for a fallback: a later run may find the source

    def shingles(self, n: int) -> np.ndarray:
        """Sorted distinct 64-bit hashes of the word ``n``-grams (``auditor.text.shingle`` hashing).
        Words, not a text: this module's own reading (``preprocess_words``: lower case, stop
        words, stems), so ``shingle_words`` rather than ``text_shingles``."""
        return distinct(shingle_words([w.encode("utf-8", "surrogatepass") for w in self.words], n, _HASHER))


def _read_verified(path: str, sha256: str, size: int) -> bytes | None:
    try:
        if os.stat(path).st_size != size:
            return None
        data = Path(path).read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == sha256 else None


def html_source(store: Store, doc_id: int) -> bytes | None:
    """The HTML bytes an HTML document was extracted from, re-read and checked by sha256.

    The store keeps extracted text only. A file is read from any of its sightings; an HTML part
    of an EDGAR submission from the submission's file. None when no copy with the stored sha256
    is readable (the corpus moved or changed).
    """
    from auditor.extract import edgar

    doc = store.document(doc_id)
    if doc["parent_id"] is None:
        for (resolved,) in store.conn.execute(
            "SELECT resolved FROM sightings WHERE doc_id = ? AND part = '' ORDER BY id", (doc_id,)
        ):
            data = _read_verified(resolved, doc["sha256"], doc["size"])
            if data is not None:
                return data
        return None
    parent = store.document(doc["parent_id"])
    for (resolved,) in store.conn.execute(
        "SELECT resolved FROM sightings WHERE doc_id = ? AND part = '' ORDER BY id", (parent["id"],)
    ):
        data = _read_verified(resolved, parent["sha256"], parent["size"])
        if data is None:
            continue
        try:
            sub = edgar.parse(data)
        except ExtractionError:
            continue
        for d in sub.documents:
            if hashlib.sha256(d.raw).hexdigest() == doc["sha256"]:
                content = edgar.content(d.raw)
                return content.payload if content.kind == "html" else None
    return None


def doc_words(store: Store, doc_id: int, preprocess: Preprocess = COPYCAT) -> DocWords:
    """The words every measure sees for a stored document.

    With ``html="main"`` an HTML document is re-read from its source and reduced to its main
    content; if the source is gone the stored (full) text is used, said in ``source``, and
    nothing derived from it is cached.
    """
    source, cacheable = "stored text", True
    text: str | None = None
    if preprocess.html == "main" and store.document(doc_id)["format"] == "html":
        raw = html_source(store, doc_id)
        if raw is None:
            source, cacheable = "stored text (main content wanted, HTML source not found)", False
        else:
            text = preprocess.text(raw)
            source = "main content of the HTML source"
    if text is None:
        text = store.text(doc_id)
    return DocWords(doc_id, preprocess_words(words(text), preprocess), source, cacheable)


# -- cached values ----------------------------------------------------------------------------

def _cached_here(store: Store) -> bool:
    """Whether values can be read from and kept in the store's ``sketches`` table (migration
    0013): a read-only store from before it computes them without keeping them."""
    return bool(store.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sketches'"))


def compute_value(kind: str, dw: DocWords, s: Settings) -> bytes:
    """One cached value; ``b""`` when the document has nothing to measure (no words/shingles)."""
    if kind == "fingerprint":
        return bytes.fromhex(fingerprint_hex(" ".join(dw.words))) if dw.words else b""
    if kind == "simhash":
        return simhash(dw.words).to_bytes(8, "big") if dw.words else b""
    if kind == "minhash":
        sh = dw.shingles(s.k)
        return np.asarray(sketch(sh, s.m, s.seed)).astype("<u8").tobytes() if sh.size else b""
    raise UsageError(f"no cached value of kind {kind!r}")


@dataclass
class Values:
    """Cached values by kind and document, and how many this call had to compute."""

    by_kind: dict[str, dict[int, bytes]]
    computed: dict[str, int]
    keys: dict[str, str]
    notes: dict[int, str] = field(default_factory=dict)


def values(
    store: Store, doc_ids: Iterable[int], kinds: Sequence[str], s: Settings,
    known: dict[int, DocWords] | None = None,
) -> Values:
    """The ``kinds`` of cached value for ``doc_ids``: read from ``sketches``, computed if missing."""
    cached = _cached_here(store)
    ids = sorted(set(doc_ids))
    keys = {kind: cache_key(kind, s) for kind in kinds}
    by_kind: dict[str, dict[int, bytes]] = {kind: {} for kind in kinds}
    for kind in kinds if cached else ():
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            for d, v in store.conn.execute(
                "SELECT doc_id, value FROM sketches WHERE kind = ? AND params_key = ? AND doc_id IN "
                f"({','.join('?' * len(chunk))})", (kind, keys[kind], *chunk),
            ):
                by_kind[kind][d] = bytes(v)
    out = Values(by_kind, {kind: 0 for kind in kinds}, keys)
    pending: list[tuple[int, str, str, bytes]] = []
    for d in ids:
        need = [kind for kind in kinds if d not in by_kind[kind]]
        if not need:
            continue
        dw = (known or {}).get(d) or doc_words(store, d, s.preprocess)
        if not dw.cacheable:
            out.notes[d] = dw.source
        for kind in need:
            v = compute_value(kind, dw, s)
            by_kind[kind][d] = v
            out.computed[kind] += 1
            if dw.cacheable and cached and store.writable:
                pending.append((d, kind, keys[kind], v))
        if len(pending) >= _FLUSH:
            _write_values(store, pending)
            pending = []
    _write_values(store, pending)
    return out


def _write_values(store: Store, rows: list[tuple[int, str, str, bytes]]) -> None:
    if rows:
        with store.write() as c:
            c.executemany(
                "INSERT OR IGNORE INTO sketches (doc_id, kind, params_key, value) VALUES (?,?,?,?)", rows)


def _sketch_array(v: bytes, m: int) -> np.ndarray:
    """A stored sketch as ``uint64``; the empty set's sketch (``EMPTY`` everywhere) for ``b""``."""
    return np.frombuffer(v, dtype="<u8").astype(np.uint64) if v else np.full(m, EMPTY, dtype=np.uint64)


# -- one pair -----------------------------------------------------------------------------------

def _s3_of(a: DocWords, b: DocWords, ga: np.ndarray, gb: np.ndarray) -> float:
    if ga.size == 0 and gb.size == 0:
        return s3_words(a.words, b.words)  # short texts: 1.0 if the words are equal, else 0.0
    na, nb, inter = intersection_size(ga, gb)
    return 2 * inter / (na + nb)


def measures_for_pair(
    store: Store, a: int, b: int, *,
    k: int = DEFAULT_K, m: int = DEFAULT_M, seed: int = DEFAULT_SEED,
    bands: int = DEFAULT_BANDS, rows: int = DEFAULT_ROWS, preprocess: Preprocess = COPYCAT,
) -> dict[str, Any]:
    """Every measure for documents ``a`` and ``b``, on the same words, with their provenance.

    Keys: ``documents`` (``describe`` of each), ``settings``, ``words`` (counts after
    preprocessing, and where each text came from), ``exact``, ``jaccard``, ``minhash``, ``lsh``,
    ``simhash``, ``s3`` and ``containment`` (``auditor.engine.query.compare``: the engine's own
    shingles, without the preprocessing, both ways with spans). Sketches come from the cache.
    """
    s = _settings(k, m, seed, bands, rows, preprocess)
    wa, wb = doc_words(store, a, preprocess), doc_words(store, b, preprocess)
    cached = values(store, (a, b), KINDS, s, known={a: wa, b: wb})
    ka, kb = wa.shingles(k), wb.shingles(k)
    na, nb, inter = intersection_size(ka, kb)
    j = 1.0 if na + nb == 0 else inter / (na + nb - inter)
    sa = _sketch_array(cached.by_kind["minhash"][a], m)
    sb = _sketch_array(cached.by_kind["minhash"][b], m)
    est = estimate(sa, sb)
    keys_a, keys_b = lsh.band_keys(sa, bands, rows), lsh.band_keys(sb, bands, rows)
    matching = sum(x == y for x, y in zip(keys_a, keys_b, strict=True))
    fa, fb = cached.by_kind["fingerprint"][a], cached.by_kind["fingerprint"][b]
    ha = int.from_bytes(cached.by_kind["simhash"][a] or bytes(8), "big")
    hb = int.from_bytes(cached.by_kind["simhash"][b] or bytes(8), "big")
    ga, gb = wa.shingles(S3_N), wb.shingles(S3_N)
    dist = hamming(ha, hb)
    da, db = describe(store, a), describe(store, b)
    notes = [f"document {d.doc_id} has {len(d.words)} words after preprocessing: no {n}-word shingles"
             for d in (wa, wb) for n in sorted({k, S3_N}) if len(d.words) < n]
    return {
        "documents": {"a": da, "b": db},
        "settings": {"k": k, "m": m, "seed": seed, "bands": bands, "rows": rows,
                     "preprocessing": s.preprocessing()},
        "words": {"a": len(wa.words), "b": len(wb.words), "source_a": wa.source, "source_b": wb.source},
        "exact": {"a": fa.hex() or None, "b": fb.hex() or None, "equal": bool(fa) and fa == fb,
                  "same_bytes": da["sha256"] == db["sha256"]},
        "jaccard": {"k": k, "value": j, "shingles": {"a": na, "b": nb, "shared": inter}},
        "minhash": {"m": m, "seed": seed, "estimate": est, "standard_error": standard_error(est, m),
                    "standard_error_at_jaccard": standard_error(j, m), "error": est - j},
        "lsh": {"bands": bands, "rows": rows, "candidate": matching > 0, "bands_matching": matching,
                "probability_at_jaccard": lsh.probability(j, bands, rows),
                "threshold": lsh.threshold(bands, rows)},
        "simhash": {"a": to_hex(ha), "b": to_hex(hb), "hamming": dist, "near_duplicate": dist <= SIMHASH_NEAR,
                    "bits_agreeing": 64 - dist},
        "s3": {"n": S3_N, "value": _s3_of(wa, wb, ga, gb),
               "grams": {"a": int(ga.size), "b": int(gb.size),
                         "shared": int(np.intersect1d(ga, gb, assume_unique=True).size)}},
        "containment": compare(store, a, b),
        "notes": notes + [f"document {d}: {why}" for d, why in sorted(cached.notes.items())],
    }


# -- near-duplicates of a corpus ----------------------------------------------------------------

@dataclass
class NearDupResult:
    """Pairs and clusters found by one method, as stored in ``runs`` and ``near_duplicates``."""

    run_id: str | None
    method: str
    threshold: float | None
    params: dict[str, Any]
    pairs: list[dict[str, Any]]  # {"a", "b", "score", method-specific measures}, sorted by (a, b)
    clusters: list[list[int]]  # sorted members, clusters sorted by first member
    documents: dict[int, dict[str, Any]]  # describe() of every document in a pair
    summary: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "method": self.method, "threshold": self.threshold,
                "params": self.params, "pairs": self.pairs, "clusters": self.clusters,
                "documents": {str(k): v for k, v in sorted(self.documents.items())},
                "summary": self.summary}


def _check_threshold(method: str, threshold: float | None) -> float | None:
    if method not in METHODS:
        raise UsageError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if method == "exact":
        if threshold is not None:
            raise UsageError("method exact takes no threshold: fingerprints are equal or not")
        return None
    t = DEFAULT_THRESHOLDS[method] if threshold is None else threshold
    assert t is not None
    if method == "simhash":
        if t != int(t) or not 0 <= t < 64:
            raise UsageError(f"the simhash threshold is a Hamming distance in 0..63, not {t}")
        return int(t)
    if not 0 < t <= 1:
        raise UsageError(f"the {method} threshold must be in (0, 1], not {t}")
    return float(t)


def measurable_documents(store: Store) -> list[int]:
    """Documents not withdrawn with stored text of at least one word (EDGAR envelopes and empty parts have none)."""
    with_text = set(store.with_text())
    return [r[0] for r in store.conn.execute(
        "SELECT id FROM documents WHERE n_words > 0 AND withdrawn_at IS NULL ORDER BY id") if r[0] in with_text]


def prefix_candidates(sets: Sequence[np.ndarray], alpha: float) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of positions whose sets may share ``>= alpha |A|`` members.

    Prefix filtering (Chaudhuri et al. 2006; Bayardo et al. 2007): order all members rarest
    first (ties by value) and keep of each set ``A`` its first ``|A| - ceil(alpha |A|) + 1``.
    Two sets sharing at least ``alpha`` of each share a member of those prefixes, so pairs of
    sets with a common prefix member are all the candidates; nothing else can qualify.
    """
    n = len(sets)
    if n < 2:
        return []
    sizes = np.array([len(x) for x in sets], dtype=np.int64)
    flat = np.concatenate(sets)
    uniq, inv, df = np.unique(flat, return_inverse=True, return_counts=True)
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[np.lexsort((np.arange(len(uniq)), df))] = np.arange(len(uniq))
    owner = np.repeat(np.arange(n, dtype=np.int64), sizes)
    r = rank[inv.ravel()]
    order = np.lexsort((r, owner))
    ptr = np.concatenate(([0], np.cumsum(sizes)))
    within = np.arange(len(flat)) - ptr[owner[order]]
    overlap = np.maximum(1, np.ceil(alpha * sizes - 1e-9).astype(np.int64))
    keep = within < (sizes - overlap + 1)[owner[order]]
    tok, doc = r[order][keep], owner[order][keep]
    post = np.lexsort((doc, tok))
    tok, doc = tok[post], doc[post]
    found: list[np.ndarray] = []
    d = 1
    while d < len(tok):  # within a run of one member, pair each document with every later one
        same = np.flatnonzero(tok[:-d] == tok[d:])
        if same.size == 0:
            break
        found.append(doc[same] * n + doc[same + d])
        d += 1
    if not found:
        return []
    codes = np.unique(np.concatenate(found))
    return list(zip((codes // n).tolist(), (codes % n).tolist(), strict=True))


def _clusters(pairs: Iterable[tuple[int, int]]) -> list[list[int]]:
    """The documents named by ``pairs``, grouped by connected component (``auditor.text.components``),
    each group sorted, the groups in order."""
    found = list(pairs)
    ids = sorted({d for p in found for d in p})
    at = {d: i for i, d in enumerate(ids)}
    _, label = components(len(ids), np.array([at[a] for a, _ in found], np.int64),
                          np.array([at[b] for _, b in found], np.int64))
    groups: dict[int, list[int]] = {}
    for d, c in zip(ids, label.tolist(), strict=True):
        groups.setdefault(c, []).append(d)
    return sorted(groups.values())


def _exact(ids: list[int], s: Settings, store: Store) -> tuple[list[dict], dict[str, Any], Values]:
    v = values(store, ids, ("fingerprint",), s)
    groups: dict[bytes, list[int]] = {}
    for d in ids:
        fp = v.by_kind["fingerprint"][d]
        if fp:
            groups.setdefault(fp, []).append(d)
    pairs = [{"a": g[0], "b": x, "score": 1.0, "fingerprint": fp.hex()}
             for fp, g in groups.items() for x in g[1:]]
    measured = sum(1 for d in ids if v.by_kind["fingerprint"][d])
    return pairs, {"measured": measured, "candidates": len(pairs),
                   "candidates_by": "documents grouped by fingerprint"}, v


def _minhash(ids: list[int], s: Settings, t: float, store: Store) -> tuple[list[dict], dict[str, Any], Values]:
    v = values(store, ids, ("minhash",), s)
    sk = {d: _sketch_array(x, s.m) for d, x in v.by_kind["minhash"].items() if x}
    cands = lsh.candidate_pairs(sk, s.bands, s.rows)
    pairs = []
    for a, b in cands:
        e = estimate(sk[a], sk[b])
        if e >= t:
            pairs.append({"a": a, "b": b, "score": e, "estimate": e, "standard_error": standard_error(e, s.m)})
    return pairs, {
        "measured": len(sk), "candidates": len(cands),
        "candidates_by": f"LSH banding, {s.bands} bands of {s.rows} rows",
        "candidate_probability_at_threshold": lsh.probability(t, s.bands, s.rows),
        "lsh_threshold": lsh.threshold(s.bands, s.rows),
    }, v


def _simhash(ids: list[int], s: Settings, t: int, store: Store) -> tuple[list[dict], dict[str, Any], Values]:
    v = values(store, ids, ("simhash",), s)
    fps = {d: int.from_bytes(x, "big") for d, x in v.by_kind["simhash"].items() if x}
    found = simhash_pairs(fps, k=t)
    pairs = [{"a": a, "b": b, "score": dist, "hamming": dist,
              "simhash": {"a": to_hex(fps[a]), "b": to_hex(fps[b])}} for a, b, dist in found]
    return pairs, {"measured": len(fps), "candidates_by": f"permuted tables, {t + 1} blocks",
                   "candidates": len(found)}, v


def _exact_sets(
    ids: list[int], s: Settings, t: float, store: Store, method: str,
) -> tuple[list[dict], dict[str, Any], Values]:
    n = s.k if method == "jaccard" else S3_N
    alpha = t if method == "jaccard" else t / (2 - t)
    sets: list[np.ndarray] = []
    kept: list[int] = []
    notes: dict[int, str] = {}
    for d in ids:
        dw = doc_words(store, d, s.preprocess)
        if not dw.cacheable:
            notes[d] = dw.source
        g = dw.shingles(n)
        if g.size:
            sets.append(g)
            kept.append(d)
    cands = prefix_candidates(sets, alpha)
    pairs = []
    for i, j in cands:
        na, nb = len(sets[i]), len(sets[j])
        if min(na, nb) < alpha * max(na, nb) - 1e-9:  # sizes alone rule it out
            continue
        inter = int(np.intersect1d(sets[i], sets[j], assume_unique=True).size)
        score = inter / (na + nb - inter) if method == "jaccard" else 2 * inter / (na + nb)
        if score >= t:
            pairs.append({"a": kept[i], "b": kept[j], "score": score, method: score,
                          "shingles": {"a": na, "b": nb, "shared": inter}})
    return pairs, {"measured": len(kept), "candidates": len(cands),
                   "candidates_by": f"prefix filter on {n}-word shingles (misses no pair)"}, \
        Values({}, {}, {}, notes)


def near_duplicates(
    store: Store, method: str, threshold: float | None = None, *,
    k: int = DEFAULT_K, m: int = DEFAULT_M, seed: int = DEFAULT_SEED,
    bands: int = DEFAULT_BANDS, rows: int = DEFAULT_ROWS, preprocess: Preprocess = COPYCAT,
    save: bool = True, command: str = "",
) -> NearDupResult:
    """Near-duplicate pairs and clusters of all stored documents by ``method``; see the module.

    ``threshold`` defaults to ``DEFAULT_THRESHOLDS[method]``: a similarity in (0, 1] for jaccard,
    minhash and s3 (pairs at or above it), a Hamming distance for simhash (at or below it),
    none for exact. With ``save`` the run is stored; ``result.run_id`` names it.
    """
    t = _check_threshold(method, threshold)
    s = _settings(k, m, seed, bands, rows, preprocess)
    started = datetime.now(UTC)
    ids = measurable_documents(store)
    if method == "exact":
        pairs, info, v = _exact(ids, s, store)
    elif method == "minhash":
        assert t is not None
        pairs, info, v = _minhash(ids, s, t, store)
    elif method == "simhash":
        pairs, info, v = _simhash(ids, s, int(t or 0), store)
    else:
        assert t is not None
        pairs, info, v = _exact_sets(ids, s, t, store, method)
    pairs.sort(key=lambda p: (p["a"], p["b"]))
    clusters = _clusters((p["a"], p["b"]) for p in pairs)
    where = {d: i for i, c in enumerate(clusters) for d in c}
    for p in pairs:
        p["cluster"] = where[p["a"]]
    docs = {d: describe(store, d) for c in clusters for d in c}
    params = _run_params(method, t, s, v.keys)
    summary: dict[str, Any] = {
        "documents": len(ids), "not_measurable": len(ids) - info.pop("measured"),
        "pairs": len(pairs), "clusters": len(clusters), "in_clusters": len(docs),
        "computed": v.computed, **info,
        "text_notes": [{"doc_id": d, "note": why} for d, why in sorted(v.notes.items())],
    }
    digest = _digest({"params": params, "clusters": clusters, "pairs": pairs})
    summary["digest"] = digest
    result = NearDupResult(None, method, t, params, pairs, clusters, docs, summary)
    if save:
        result.run_id = _save_run(store, result, started, command)
    return result


def _run_params(method: str, t: float | None, s: Settings, keys: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"method": method, "threshold": t, "preprocessing": s.preprocessing(),
                           "version": VERSION}
    if method in ("jaccard", "minhash"):
        out["k"] = s.k
        out["shingle_hash"] = HASH_NAME
    if method == "minhash":
        out.update(m=s.m, seed=s.seed, bands=s.bands, rows=s.rows, hash_family=HASH_FAMILY)
    if method == "s3":
        out["n"] = S3_N
    if method == "simhash":
        out.update(f=64, feature_hash=FEATURE_HASH_NAME, features="preprocessed words weighted by count")
    if keys:
        out["cache_keys"] = dict(sorted(keys.items()))
    return out


def _save_run(store: Store, r: NearDupResult, started: datetime, command: str) -> str:
    base = run_id = f"{started:%Y%m%dT%H%M%SZ}-{r.method}-{r.summary['digest'][:8]}"
    n = 1
    while store.scalar("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)):
        n += 1
        run_id = f"{base}-{n}"
    summary = {**r.summary, "command": command}
    with store.write("near-dups", {"run_id": run_id, "digest": r.summary["digest"]}) as c:
        cur = c.execute(
            "INSERT INTO runs (run_id, kind, status, params, started, ended, summary, report_dir, digest)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            (run_id, f"near-dups:{r.method}", "ok", json.dumps(r.params, sort_keys=True),
             started.isoformat(timespec="seconds"), now(), json.dumps(summary, sort_keys=True), None,
             r.summary["digest"]),
        )
        c.executemany(
            "INSERT INTO near_duplicates (run, a_id, b_id, score, data) VALUES (?,?,?,?,?)",
            [(cur.lastrowid, p["a"], p["b"], p.get("score"),
              json.dumps({**p, "a_doc": r.documents[p["a"]], "b_doc": r.documents[p["b"]]}, sort_keys=True))
             for p in r.pairs],
        )
    return run_id


def lsh_curve(b: int, r: int, points: int = 11, at: Iterable[float] = ()) -> dict[str, Any]:
    """The banding S-curve for ``b`` bands of ``r`` rows: threshold and ``(J, probability)`` rows.

    ``points`` evenly spaced values of J from 0 to 1, plus the values ``at`` (such as the
    article's 1/3, 0.5 and 0.9), sorted.
    """
    js = {round(j, 12) for j, _ in lsh.curve(b, r, points)}
    for j in at:
        if not 0 <= j <= 1:
            raise UsageError(f"resemblance must lie in [0, 1], not {j}")
        js.add(round(j, 12))
    return {"bands": b, "rows": r, "m": b * r, "threshold": lsh.threshold(b, r),
            "curve": [{"j": j, "probability": lsh.probability(j, b, r)} for j in sorted(js)]}
