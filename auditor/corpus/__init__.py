"""Layer 6, corpus: documents in and out of the store.

:mod:`.ingest` (walking inputs, the sandboxed extraction of each file, the batch), :mod:`.withdraw`,
:mod:`.check` (is the store intact) and :mod:`.document` (one document as ``auditor show`` shows it).
"""
