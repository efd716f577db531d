"""The pure layer: text to words, words to shingles, shingles to numbers.

No I/O, no store, no process: normalisation (:mod:`.normalize`), word hashes, shingles and the
stored word sequence (:mod:`.shingle`), containment, Jaccard and Wilson intervals
(:mod:`.score`), connected components (:mod:`.components`), dates read from metadata and
opening lines (:mod:`.dates`), and the re-layout the positive controls use (:mod:`.reformat`).
Every layer above may import it; it imports only :mod:`auditor.errors`.
"""
