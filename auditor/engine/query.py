"""Ad hoc questions against the store: does this file occur in the corpus (``query``), and how
do two stored documents relate (``compare``). Neither changes the store."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import numpy as np

from auditor.corpus.ingest import prepare_file
from auditor.engine.pairs import Span
from auditor.engine.short import SHORT_SHINGLES
from auditor.engine.verify import locate, member, one_pass
from auditor.errors import with_fix
from auditor.extract.common import Limits
from auditor.index.sampled import SampledIndex, ShingleCache
from auditor.store.db import Store
from auditor.text.score import Estimate, containment, jaccard, min_hits
from auditor.text.shingle import Params, distinct, sample, text_shingles


@dataclass
class Match:
    doc_id: int
    direction: str  # "contains-query" (the stored document contains the file) or "in-query"
    estimate: Estimate
    exact: float
    spans: list[Span] = field(default_factory=list)


@dataclass
class QueryResult:
    n_words: int
    n_shingles: int
    n_sampled: int
    matches: list[Match]
    note: str | None = None


def query_text(store: Store, text: str, threshold: float = 0.8, *, index: SampledIndex | None = None,
               exclude: frozenset[int] = frozenset(), ignore: np.ndarray | None = None) -> QueryResult:
    """Stored documents that contain ``text`` and stored documents that ``text`` contains,
    highest containment first, each with where the contained text lies in the container.

    ``index``: the sampled index of every stored document not withdrawn, loaded once for many
    questions; ``exclude``: documents not to answer with (the text's own document); ``ignore``:
    sorted distinct shingle hashes the text is not asked about (what it repeats of documents
    audited on their own: the words of its own submission), both ways.
    """
    return query_texts(store, [Question(text, exclude, ignore)], threshold, index=index)[0]


@dataclass
class Question:
    """One text to search for (:func:`query_texts`), with the documents not to answer with and
    the shingles not to ask about (see :func:`query_text`)."""

    text: str
    exclude: frozenset[int] = frozenset()
    ignore: np.ndarray | None = None


@dataclass
class _Asked:
    text: str
    exclude: frozenset[int]
    n_words: int
    seq: np.ndarray
    all_q: np.ndarray
    sampled: np.ndarray


def query_texts(store: Store, questions: Sequence[Question], threshold: float = 0.8, *,
                index: SampledIndex | None = None) -> list[QueryResult]:
    """:func:`query_text` for many texts, in order: a long text through the sampled index (loaded
    once, unless given), the short ones searched exactly in one pass over the stored texts for
    them all, not one pass each (a gate asks about dozens of short readings: an EDGAR filing's
    data parts)."""
    params = store.params
    asked = []
    for q in questions:
        n_words, seq = text_shingles(q.text, params)
        all_q = distinct(seq)
        if q.ignore is not None and len(q.ignore):
            all_q = all_q[~member(all_q, q.ignore)]
        asked.append(_Asked(q.text, q.exclude, n_words, seq, all_q, sample(all_q, params.modulus)))
    out: list[QueryResult | None] = [None] * len(asked)
    short = []
    for i, a in enumerate(asked):
        if len(a.all_q) == 0:
            out[i] = QueryResult(a.n_words, 0, 0, [], note=f"fewer than k={params.k} words: no shingle to query")
        elif len(a.all_q) <= SHORT_SHINGLES:
            short.append(i)
        else:
            if index is None:
                index = SampledIndex.load(store, representatives_only=False)
            out[i] = _query_long(store, a, threshold, index)
    for i, result in zip(short, _query_short([asked[i] for i in short], store, threshold), strict=True):
        out[i] = result
    assert all(r is not None for r in out)
    return [r for r in out if r is not None]


def _query_long(store: Store, a: _Asked, threshold: float, index: SampledIndex) -> QueryResult:
    """A text of more than ``SHORT_SHINGLES`` shingles: candidates by the sampled index, then
    exact containment both ways."""
    params = store.params
    all_q, n = a.all_q, len(a.sampled)
    counts = index.hits_of(a.sampled)
    hits = {int(index.doc_ids[i]): int(counts[i]) for i in np.flatnonzero(counts)
            if int(index.doc_ids[i]) not in a.exclude}
    sizes = {int(index.doc_ids[i]): int(index.n[i]) for i in np.flatnonzero(counts)}
    cache = ShingleCache(store, params)
    matches = []
    for doc_id in sorted(hits):
        h = hits[doc_id]
        for direction, size in (("contains-query", n), ("in-query", sizes.get(doc_id, 0))):
            if size == 0 or h < min_hits(size, threshold):
                continue
            est = Estimate.of(h, size)
            if not est.needs_exact(threshold):
                continue
            seq_d, all_d = cache.get(doc_id)
            if direction == "contains-query":
                exact = containment(all_q, all_d)
                spans = locate(seq_d, all_q, "", params.k, store.document(doc_id)["page_offsets"],
                               offsets=cache.offsets(doc_id)) if exact >= threshold else []
            else:
                exact = containment(all_d, all_q)
                spans = locate(a.seq, all_d, a.text, params.k) if exact >= threshold else []
            if exact >= threshold:
                matches.append(Match(doc_id, direction, est, exact, spans))
    matches.sort(key=lambda m: (-m.exact, m.doc_id, m.direction))
    return QueryResult(a.n_words, len(all_q), n, matches)


@dataclass
class FileQuery:
    """The answer for one file (or one EDGAR part of it, ``FILE#sequence``, named as ingest
    names it): a ``result``; or ``error`` (code, reason) when it could not be read into text;
    or ``skipped`` (the code) for a part extraction passes over, as ingest does (an image, an
    empty document)."""

    name: str
    result: QueryResult | None = None
    error: tuple[str, str] | None = None
    skipped: str | None = None
    warnings: list[str] = field(default_factory=list)


def query_files(store: Store, files: Sequence[str | os.PathLike], threshold: float = 0.8,
                limits: Limits | None = None, stdin: BinaryIO | None = None) -> list[FileQuery]:
    """``query_text`` for files from anyone: each is read as ingest reads it, in a sandbox child
    under ``limits`` (memory, time, parts), so a decompression bomb or a parser that hangs is an
    ``error`` for that file and the others are still answered. Unreadable text (a PDF without a
    text layer, glyph codes) is an error too: a query that cannot see the words must not say
    "no stored document contains it". A file named ``-`` is read from ``stdin``."""
    return [FileQuery(ft.name, query_text(store, ft.doc["text"], threshold) if ft.doc is not None else None,
                      ft.error, ft.skipped, ft.warnings)
            for ft in read_files(files, store.params, limits, stdin)]


@dataclass
class FileText:
    """One file, or one EDGAR part of it (``FILE#sequence``, named as ingest names it), read into
    text (``doc``: the prepared document, with ``text`` and ``page_offsets``); or ``error`` (code,
    reason); or ``skipped`` (the code) for a part ingest passes over."""

    name: str
    doc: dict[str, Any] | None = None
    error: tuple[str, str] | None = None
    skipped: str | None = None
    warnings: list[str] = field(default_factory=list)


STDIN = "-"


def read_files(files: Sequence[str | os.PathLike], params: Params, limits: Limits | None = None,
               stdin: BinaryIO | None = None) -> list[FileText]:
    """Files read as ingest reads them (``prepare_file``: a sandbox child under ``limits``), part
    by part for an EDGAR submission, without storing anything; what ``query`` and ``gather`` ask
    about. A text that cannot be read into words is an error, never an empty text.

    A file named ``-`` is what ``stdin`` holds (a binary stream), read up to the file size limit
    into a private temporary file, and named ``-`` in the answer."""
    out = []
    for f in files:
        if os.fspath(f) == STDIN and stdin is not None:
            out += _read_stream(stdin, params, limits or Limits())
            continue
        prepared = prepare_file(f, params, limits)
        if "error" in prepared:
            out.append(FileText(str(f), error=tuple(prepared["error"])))
            continue
        doc = prepared["doc"]
        pieces = [(str(f), doc, None)] if doc["text"] or not doc["parts"] else []
        pieces += [(f"{f}#{p['meta'].get('sequence') or i}", p["doc"], p) for i, p in enumerate(doc["parts"], 1)]
        for name, d, part in pieces:
            if part is not None and part["status"] == "skipped":
                out.append(FileText(name, skipped=part["code"] or "skipped"))
            elif part is not None and part["status"] != "ok":
                out.append(FileText(name, error=(part["code"] or part["status"], part["message"] or "")))
            elif d["unreadable"]:
                out.append(FileText(name, error=("unreadable", d["unreadable"]), warnings=d["warnings"]))
            else:
                out.append(FileText(name, d, warnings=d["warnings"]))
    return out


def _read_stream(stream: BinaryIO, params: Params, limits: Limits) -> list[FileText]:
    """``read_files`` of what a stream holds (standard input), its pieces named ``-``."""
    import tempfile

    data = stream.read(limits.max_file_bytes + 1)
    if len(data) > limits.max_file_bytes:
        return [FileText(STDIN, error=("too_large", with_fix("too_large", f"standard input holds more than the limit "
                                                                          f"of {limits.max_file_bytes} bytes")))]
    with tempfile.TemporaryDirectory(prefix="auditor-query-") as tmp:
        path = os.path.join(tmp, "stdin")
        with open(path, "wb") as f:
            f.write(data)
        found = read_files([path], params, limits)
    for ft in found:
        ft.name = STDIN + ft.name[len(path):]
    return found


def _query_short(asked: list[_Asked], store: Store, threshold: float) -> list[QueryResult]:
    """Texts of at most ``SHORT_SHINGLES`` shingles each, searched exactly in every stored text, as
    the audit searches its short documents: their two or three sampled shingles cannot speak for
    them (a clause with 85% of them kept is missed about as often as found). The cost is one
    pass over the stored texts for all of them (their shingles together, then each text's share);
    the estimates are still given, from the sampled shingles."""
    if not asked:
        return []
    params = store.params
    skip = frozenset.intersection(*(a.exclude for a in asked))
    rows = store.conn.execute(
        "SELECT i.doc_id, i.n_shingles, i.n_sampled FROM index_docs i JOIN documents d ON d.id = i.doc_id"
        " WHERE d.withdrawn_at IS NULL ORDER BY i.doc_id").fetchall()
    rows = [r for r in rows if r[0] not in skip]
    sizes = {r[0]: (r[1], r[2]) for r in rows}
    none = np.empty(0, np.int64)
    vocab = np.unique(np.concatenate([a.all_q for a in asked]))
    _, _, owner, number = one_pass(store, params, [r[0] for r in rows], vocab, none, none)
    held = vocab[number]  # each shingle of the texts a stored text holds, by owner
    cache = ShingleCache(store, params)
    out = []
    for a in asked:
        mine = member(held, a.all_q)
        if a.exclude:
            mine &= ~np.isin(owner, np.fromiter(a.exclude, np.int64, len(a.exclude)))
        own, pos = owner[mine], np.searchsorted(a.all_q, held[mine])
        is_sampled = member(a.all_q, a.sampled)
        docs, shared = np.unique(own, return_counts=True)
        hits = np.bincount(np.searchsorted(docs, own), weights=is_sampled[pos], minlength=len(docs))
        matches = []
        for doc_id, h, x in zip(docs.tolist(), hits.astype(np.int64).tolist(), shared.tolist(), strict=True):
            n_d, sampled_d = sizes[doc_id]
            for direction, exact, est in (("contains-query", x / len(a.all_q), Estimate.of(h, len(a.sampled))),
                                          ("in-query", x / n_d if n_d else 0.0, Estimate.of(h, sampled_d))):
                if exact < threshold:
                    continue
                if direction == "contains-query":
                    seq_d, _ = cache.get(doc_id)
                    spans = locate(seq_d, a.all_q, "", params.k, store.document(doc_id)["page_offsets"],
                                   offsets=cache.offsets(doc_id))
                else:
                    spans = locate(a.seq, cache.get(doc_id)[1], a.text, params.k)
                matches.append(Match(doc_id, direction, est, exact, spans))
        matches.sort(key=lambda m: (-m.exact, m.doc_id, m.direction))
        out.append(QueryResult(a.n_words, len(a.all_q), len(a.sampled), matches,
                               note=f"short text ({len(a.all_q)} shingles): searched exactly in every stored text"))
    return out


EXCERPT_HUNKS = 3  # differing regions in compare's aligned excerpt
ALIGN_MIN = 0.5  # a document less contained than this is not aligned (its excerpt would be all deletion)


def compare(store: Store, a: int, b: int) -> dict[str, Any]:
    """Containment both ways (sampled and exact), Jaccard, shared shingles, spans, and a short
    word alignment of each document with the span of the other it lies in (``alignment``:
    ``auditor.engine.align``, at most ``EXCERPT_HUNKS`` differing regions; None without spans or
    below ``ALIGN_MIN`` containment)."""
    from auditor.engine.align import align, span_ranges

    params = store.params
    cache = ShingleCache(store, params)
    seq_a, all_a = cache.get(a)
    seq_b, all_b = cache.get(b)
    sa, sb = sample(all_a, params.modulus), sample(all_b, params.modulus)
    shared_sampled = len(np.intersect1d(sa, sb, assume_unique=True))
    shared = len(np.intersect1d(all_a, all_b, assume_unique=True))
    out: dict[str, Any] = {
        "a": a, "b": b, "params": params.as_dict(),
        "shingles": {"a": len(all_a), "b": len(all_b), "shared": shared},
        "sampled": {"a": len(sa), "b": len(sb), "shared": shared_sampled},
        "jaccard": jaccard(all_a, all_b),
    }
    for name, (x_all, x_s, y_all, y_seq, y_id) in {
        "a_in_b": (all_a, sa, all_b, seq_b, b), "b_in_a": (all_b, sb, all_a, seq_a, a),
    }.items():
        est = Estimate.of(shared_sampled, len(x_s))
        out_exact = containment(x_all, y_all)
        spans = locate(y_seq, x_all, "", params.k, store.document(y_id)["page_offsets"],
                       offsets=cache.offsets(y_id))
        x_id = a if y_id == b else b
        alignment = None
        if spans and out_exact >= ALIGN_MIN:
            x_text = store.text(x_id)
            alignment = align(x_text, store.text(y_id), span_ranges(spans, len(x_text)),
                              max_hunks=EXCERPT_HUNKS, segment_words=24).as_dict()
        out[name] = {
            "exact": out_exact,
            "estimate": est.estimate, "interval": [est.low, est.high],
            "spans": [s.as_dict() for s in spans],
            "alignment": alignment,
        }
    return out
