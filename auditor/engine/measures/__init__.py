"""Similarity measures for near-duplicate and containment detection: pure functions, no I/O.

- ``fingerprint``: exact 64-bit content fingerprints ("content seen?").
- ``jaccard``: word shingles, exact Jaccard resemblance and containment (sets and hash arrays).
- ``minhash``: MinHash sketches estimating resemblance, and the article's by-hand table.
- ``lsh``: banding sketches into candidate pairs (exported here with an ``lsh_`` prefix).
- ``simhash``: Charikar simhash and near-duplicate search by Hamming distance (permuted tables).
- ``s3``: Bernstein and Zobel's S3 over word 8-grams, as in CopyCat.
- ``preprocess``: the CopyCat study's preprocessing (stop words, Porter stemming, HTML text).

The functions ``fingerprint``, ``jaccard``, ``s3`` and ``simhash`` share their submodule's
name, so as attributes of this package they are the functions; import module-level names with
``from auditor.engine.measures.simhash import ...``.
"""

from auditor.engine.measures.fingerprint import fingerprint, fingerprint_hex
from auditor.engine.measures.jaccard import (
    check_hashes,
    containment,
    containment_hashes,
    intersection_size,
    jaccard,
    jaccard_hashes,
    shingles,
)
from auditor.engine.measures.lsh import band_keys, candidate_pairs
from auditor.engine.measures.lsh import curve as lsh_curve
from auditor.engine.measures.lsh import probability as lsh_probability
from auditor.engine.measures.lsh import threshold as lsh_threshold
from auditor.engine.measures.minhash import (
    ARTICLE_COEFFICIENTS,
    DEFAULT_M,
    DEFAULT_SEED,
    HASH_FAMILY,
    MERSENNE_PRIME,
    HandRow,
    Sketch,
    estimate,
    hand_table,
    sketch,
    standard_error,
)
from auditor.engine.measures.preprocess import (
    COPYCAT,
    LUCENE_ENGLISH_STOP_WORDS,
    Preprocess,
    full_text,
    main_text,
    porter_stem,
)
from auditor.engine.measures.s3 import S3_N, s3, s3_hashes, s3_sets
from auditor.engine.measures.simhash import (
    FEATURE_HASH_NAME,
    hamming,
    md5_64,
    near_duplicates,
    simhash,
    to_hex,
    totals,
)

__all__ = [
    "ARTICLE_COEFFICIENTS",
    "COPYCAT",
    "DEFAULT_M",
    "DEFAULT_SEED",
    "FEATURE_HASH_NAME",
    "HASH_FAMILY",
    "LUCENE_ENGLISH_STOP_WORDS",
    "MERSENNE_PRIME",
    "S3_N",
    "HandRow",
    "Preprocess",
    "Sketch",
    "band_keys",
    "candidate_pairs",
    "check_hashes",
    "containment",
    "containment_hashes",
    "estimate",
    "fingerprint",
    "fingerprint_hex",
    "full_text",
    "hamming",
    "hand_table",
    "intersection_size",
    "jaccard",
    "jaccard_hashes",
    "lsh_curve",
    "lsh_probability",
    "lsh_threshold",
    "main_text",
    "md5_64",
    "near_duplicates",
    "porter_stem",
    "s3",
    "s3_hashes",
    "s3_sets",
    "shingles",
    "simhash",
    "sketch",
    "standard_error",
    "to_hex",
    "totals",
]
