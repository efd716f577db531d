"""The ``prepare`` job of :mod:`auditor.sandbox.pool`: one input file's bytes, extracted,
normalised, shingled and sampled, in the memory-limited child.

The child imports this module, the parsers (:mod:`auditor.extract`), the pure layer
(:mod:`auditor.text`) and the sandbox itself, nothing else: not the store, not ingest's batch
machinery (tests/project/test_layout.py checks it). The parent side (the pool, the batch, storing the
result) is :mod:`auditor.corpus.ingest`, which reads the answer with :func:`unpack`.
"""

from __future__ import annotations

import hashlib
from typing import Any

from auditor.errors import ExtractionError, refusal, with_fix, with_reason_fixes
from auditor.extract.common import Extracted, Limits, Part, Reading, storable
from auditor.sandbox import pool as sandbox
from auditor.text.entry import prepare_text
from auditor.text.shingle import Params, WordHasher, WordSequence

refusal("recursion", "it nests too deeply to read (damaged or hostile): save a clean copy from the program "
                     "that made it, and ingest that")


#: what to do about a part skipped as data (XBRL, JSON, a picture...) by an ingest that is not a gate
DATA_FIX = ("nothing to do: a submission's data part is not a document of the corpus; a gate reads it as "
            "data and audits each of its readings")


def prepared_doc(ex: Extracted, raw: bytes, params: Params, hasher: WordHasher,
                 readings: bool = False, limits: Limits | None = None) -> dict[str, Any]:
    """One extracted input, normalised, shingled and sampled; with ``readings``, its other
    readings too (a gate audits them; a plain ingest of the corpus neither needs nor keeps them),
    and the readings of each part skipped as data (:func:`data_part`)."""
    doc: dict[str, Any] = {
        "sha256": hashlib.sha256(raw).hexdigest(),
        "size": len(raw),
        "format": ex.format,
        "extractor": ex.extractor,
        "extractor_version": ex.extractor_version,
        "encoding": ex.encoding,
        "page_offsets": ex.page_offsets,
        "meta": ex.meta,
        "warnings": ex.warnings,
        "unreadable": with_reason_fixes(ex.unreadable),
        "unmodelled": list(ex.unmodelled),
        "text": ex.text,
        "n_chars": len(ex.text),
    }
    doc.update(prepare_text(ex.text, params, hasher) if ex.text else
               {"n_words": 0, "norm_sha256": None, "n_shingles": 0, "sampled": b"", "sequence": b""})
    doc["readings"] = prepared_readings(ex, doc["norm_sha256"], params, hasher) if readings else []
    doc["parts"] = []
    for part in ex.parts:
        p: dict[str, Any] = {
            "sha256": hashlib.sha256(part.raw).hexdigest(),
            "size": len(part.raw),
            "meta": part.meta,
            "status": part.status,
            "code": part.code,
            "message": (with_fix(part.code, part.message, DATA_FIX if part.data is not None else None)
                        if part.message is not None else None),
            "doc": None,
        }
        if part.status == "ok" and part.extracted is not None:
            p["doc"] = prepared_doc(part.extracted, part.raw, params, hasher, readings, limits)
        elif readings and part.data is not None:
            data_part(p, part, params, hasher, limits or Limits())
        doc["parts"].append(p)
    return doc


def data_part(p: dict[str, Any], part: Part, params: Params, hasher: WordHasher, limits: Limits) -> None:
    """A part skipped as data, read as data (:mod:`auditor.extract.data`) for a gate: ``p["data"]``
    holds its kind and readings (it stays out of the corpus as a document). A part that cannot
    be read stays skipped, with the code and fix of what stopped it."""
    from auditor.extract.data import read_data

    assert part.data is not None
    try:
        got = read_data(part.data, str(part.meta.get("filename") or ""), limits)
    except ExtractionError as e:
        p["code"] = e.code
        p["message"] = with_fix(e.code, f"{part.message} ({part.code}), which could not be read as data: {e}")
        return
    p["message"] = part.message
    p["data"] = {"kind": part.code, "readings": _prepared(got, set(), params, hasher)}


def prepared_readings(ex: Extracted, norm_sha256: str | None, params: Params,
                      hasher: WordHasher) -> list[dict[str, Any]]:
    """The document's other readings that a reader could tell from its text: at least one
    shingle, and normalised words other than the document's (the first of a name wins)."""
    return _prepared(ex.readings, {norm_sha256}, params, hasher)


def _prepared(readings: list[Reading], seen: set[str | None], params: Params,
              hasher: WordHasher) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in readings:
        text = storable(r.text, [])
        p = prepare_text(text, params, hasher)
        if not p["n_shingles"] or p["norm_sha256"] in seen or any(x["name"] == r.name for x in out):
            continue
        seen.add(p["norm_sha256"])
        out.append({"name": r.name, "why": r.why, "text": text, "n_words": p["n_words"],
                    "n_shingles": p["n_shingles"], "norm_sha256": p["norm_sha256"]})
    return out


def pack(doc: dict[str, Any], blobs: list[bytes]) -> dict[str, Any]:
    """The prepared document as JSON, its text and sampled hashes moved to binary attachments."""
    out = dict(doc)
    blobs.append(doc["text"].encode("utf-8", "surrogatepass"))
    out["text"] = len(blobs) - 1
    for key in ("sampled", "sequence"):
        blobs.append(doc[key])
        out[key] = len(blobs) - 1
    out["readings"] = []
    for r in doc.get("readings", []):
        blobs.append(r["text"].encode("utf-8", "surrogatepass"))
        out["readings"].append({**r, "text": len(blobs) - 1})
    out["parts"] = [{**p, "doc": pack(p["doc"], blobs) if p["doc"] is not None else None}
                    for p in doc["parts"]]
    for p in out["parts"]:
        if p.get("data"):
            p["data"] = {**p["data"], "readings": [{**r, "text": _blob(r["text"], blobs)}
                                                   for r in p["data"]["readings"]]}
    return out


def _blob(text: str, blobs: list[bytes]) -> int:
    blobs.append(text.encode("utf-8", "surrogatepass"))
    return len(blobs) - 1


def unpack(doc: dict[str, Any], blobs: list[bytes]) -> dict[str, Any]:
    doc["text"] = blobs[doc["text"]].decode("utf-8", "surrogatepass")
    doc["sampled"] = blobs[doc["sampled"]]
    doc["sequence"] = blobs[doc["sequence"]]
    if doc["sequence"] and WordSequence.header(doc["sequence"])[0] != doc["n_words"]:
        raise ValueError("the word sequence does not hold the document's words")
    if len(doc["sampled"]) % 8:
        raise ValueError("sampled hashes are not whole 8-byte words")
    for r in doc.get("readings", []):
        r["text"] = blobs[r["text"]].decode("utf-8", "surrogatepass")
    for p in doc["parts"]:
        if p["doc"] is not None:
            unpack(p["doc"], blobs)
        for r in (p.get("data") or {}).get("readings", []):
            r["text"] = blobs[r["text"]].decode("utf-8", "surrogatepass")
    return doc


_HASHER: WordHasher | None = None


def handle(request: dict, data: bytes) -> tuple[dict, list[bytes]]:
    """The ``prepare`` job of :mod:`auditor.sandbox.pool`, in the child: one file, extracted,
    normalised, shingled and sampled."""
    global _HASHER
    limits = Limits(**request["limits"])
    params = Params(**request["params"])
    if _HASHER is None or _HASHER.seed != params.seed:
        _HASHER = WordHasher(params.seed)
    from auditor.extract import extract_bytes  # the parsers: only in the sandbox child

    ex = extract_bytes(data, request["name"], limits)
    blobs: list[bytes] = []
    return {"doc": pack(prepared_doc(ex, data, params, _HASHER, bool(request.get("readings")), limits), blobs)}, blobs


def classify(e: BaseException) -> tuple[str, str]:
    """The code recorded for an exception raised while preparing one file (in the child)."""
    if isinstance(e, ExtractionError):
        return e.code, str(e)
    if sandbox.is_memory_error(e):
        return "memory", "ran out of memory extracting this file (see --memory-mb)"
    if isinstance(e, RecursionError):
        return "recursion", "input nested too deeply to extract"
    return "internal_error", f"unexpected {type(e).__name__} extracting this file: {str(e)[:500]}"
