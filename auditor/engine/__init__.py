"""Layer 7, engine: what contains what.

:mod:`.audit` (candidates, grouped verdicts, ``run_audit``) over :mod:`.universe`, :mod:`.verify`
(exact verification and location), :mod:`.short` (the exhaustive search of short documents),
:mod:`.families` and :mod:`.pairs`; :mod:`.describe` (how reports name a document); :mod:`.gather`,
:mod:`.query`, :mod:`.align`; :mod:`.neardup` with :mod:`.measures`; the Spark engine
(:mod:`.spark_engine`, over the Parquet :mod:`.export`).
"""
