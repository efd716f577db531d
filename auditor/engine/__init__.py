"""Layer 7, engine: what contains what.

:mod:`.audit` (candidate pairs, exact verification, short documents, families), :mod:`.describe`
(how a document is named in reports), :mod:`.gather`, :mod:`.query`, :mod:`.align`,
:mod:`.neardup` with :mod:`.measures`, and the Spark engine (:mod:`.spark_engine`, :mod:`.export`).
"""
