"""containment-auditor: which documents of a corpus are wholly contained in another, and where.

The public API is what this package exports: ten functions, one for what each main command
does (:mod:`auditor.api`), the types they take and return, and the one exception hierarchy
(:mod:`auditor.errors`). Every other module is internal.

    from auditor import Store, ingest, audit

    if __name__ == "__main__":  # ingest and large audits start worker processes (spawn)
        with Store("corpus.db") as store:
            ingest(store, ["filings/", "contracts/"], source="edgar")
            outcome = audit(store)               # controls, audit, report files
            print(outcome.directory, outcome.refused)
"""

import importlib.metadata as _metadata

try:
    __version__ = _metadata.version("containment-auditor")
except _metadata.PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

# Exported lazily (PEP 562): the sandbox's extraction child imports ``auditor.extract`` under a
# memory limit, and must not pull in numpy, the engine and the rest through this package.
_EXPORTS = {
    **dict.fromkeys(("assemble", "audit", "check", "compare", "export", "gate", "gather", "ingest", "query",
                     "verify", "Comparison"), "auditor.api"),
    "Assembled": "auditor.assembly",
    "AuditOutcome": "auditor.report.pipeline",
    "AuditorError": "auditor.errors",
    "BatchResult": "auditor.corpus.ingest",
    "CheckResult": "auditor.corpus.check",
    "ExportResult": "auditor.engine.export",
    "FileQuery": "auditor.engine.query",
    "GateResult": "auditor.gating.findings",
    "GatherQuery": "auditor.engine.gather",
    "Limits": "auditor.extract.common",
    "Policy": "auditor.assembly",
    "Store": "auditor.store.db",
    "Verification": "auditor.report.pipeline",
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
    "Assembled",
    "AuditOutcome",
    "AuditorError",
    "BatchResult",
    "CheckResult",
    "Comparison",
    "ExportResult",
    "FileQuery",
    "GateResult",
    "GatherQuery",
    "Limits",
    "Policy",
    "Store",
    "Verification",
    "assemble",
    "audit",
    "check",
    "compare",
    "export",
    "gate",
    "gather",
    "ingest",
    "query",
    "verify",
]
