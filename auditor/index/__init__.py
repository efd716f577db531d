"""Layer 5, index: the sampled shingle index, on disk and in memory.

:mod:`.builder` builds and refreshes the store's index rows; :mod:`.sampled` holds the index in
memory (:class:`~auditor.index.sampled.SampledIndex`) and the shingle cache the engine reads.
"""
