"""containment-auditor: which documents of a corpus are wholly contained in another, and where.

The library behind the ``auditor`` command; each name below is what one command calls. Functions
named like their module (``ingest``, ``extract``, ``normalize``) are imported from the module
(``from auditor.corpus.ingest import ingest``), so that ``auditor.corpus.ingest`` stays the module.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("containment-auditor")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

# Exported lazily (PEP 562): ``import auditor.extract.pdf.job`` in the PDF child process must not pull
# in numpy and the rest, which would cost start-up time and address space under its memory limit.
_EXPORTS = {
    "AuditResult": "auditor.engine.audit",
    "AuditorError": "auditor.errors",
    "BatchResult": "auditor.corpus.ingest",
    "ControlsResult": "auditor.controls",
    "DEFAULT_PARAMS": "auditor.text.shingle",
    "Extracted": "auditor.extract",
    "Limits": "auditor.extract",
    "NORMALIZATION_VERSION": "auditor.text.normalize",
    "Outcome": "auditor.report.pipeline",
    "Params": "auditor.text.shingle",
    "Store": "auditor.store.db",
    "audit_job": "auditor.report.pipeline",
    "build_index": "auditor.index.builder",
    "compare": "auditor.engine.query",
    "extract_bytes": "auditor.extract",
    "query_files": "auditor.engine.query",
    "query_text": "auditor.engine.query",
    "run_audit": "auditor.engine.audit",
    "run_controls": "auditor.controls",
    "verify": "auditor.report.pipeline",
    "words": "auditor.text.normalize",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'auditor' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "DEFAULT_PARAMS",
    "NORMALIZATION_VERSION",
    "AuditResult",
    "AuditorError",
    "BatchResult",
    "ControlsResult",
    "Extracted",
    "Limits",
    "Outcome",
    "Params",
    "Store",
    "audit_job",
    "build_index",
    "compare",
    "extract_bytes",
    "query_files",
    "query_text",
    "run_audit",
    "run_controls",
    "verify",
    "words",
]
