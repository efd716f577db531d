"""The index entry of one text: word count, fingerprint, sampled shingles, word sequence.

Pure: what ingest stores for a new document, what the index builder recomputes on a rebuild and
what ``auditor check`` compares the stored rows with, in one function.
"""

from __future__ import annotations

import hashlib
from typing import Any

from auditor.text.shingle import Params, WordHasher, distinct, read_words, sample


def prepare_text(
    text: str, params: Params, hasher: WordHasher, *, fingerprint: bool = True
) -> dict[str, Any]:
    """Word count, normalised-text fingerprint, sampled shingles and the encoded word sequence
    (``shingle.WordSequence``) of one text.

    Read with ``shingle.read_words`` rather than ``shingle.text_shingles``: the same words and
    hashes in one pass that also gives each word's offsets and the normalised text, which the
    index stores; the shingles then come from the sequence (``combine``), as everywhere."""
    words = read_words(text, hasher)
    every = distinct(words.sequence.shingles(params.k))
    return {
        "n_words": len(words),
        "norm_sha256": hashlib.sha256(words.normalized).hexdigest() if len(words) and fingerprint else None,
        "n_shingles": len(every),
        "sampled": sample(every, params.modulus).tobytes(),
        "sequence": words.sequence.encode() if len(words) else b"",
    }


def unauditable_reason(unreadable: str | None, n_words: int, n_shingles: int, k: int) -> str | None:
    """Why a stored text is not auditable, as reports, ``ingest`` and ``show`` say it, or None:
    its text could not be read (``unreadable``), or it has words but too few for one shingle. A
    text without words (an EDGAR envelope around its parts) is not audited at all."""
    if unreadable:
        return f"text not readable: {unreadable}"
    if n_words and not n_shingles:
        return f"too short: {n_words} words, fewer than k={k}, so no shingle"
    return None
