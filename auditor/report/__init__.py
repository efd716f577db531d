"""Layer 9, report: the audit as a reproducible report, and its review.

:mod:`.build` (the canonical report), :mod:`.render` (Markdown and HTML), :mod:`.pipeline` (the audit
job and ``verify``), :mod:`.review` (runs and findings read back from the store).
"""
