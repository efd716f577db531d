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
