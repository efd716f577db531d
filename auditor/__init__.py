"""containment-auditor: which documents of a corpus are wholly contained in another, and where.

The library behind the ``auditor`` command; each name below is what one command calls. Functions
named like their module (``ingest``, ``extract``, ``normalize``) are imported from the module
(``from auditor.ingest import ingest``), so that ``auditor.ingest`` stays the module.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("containment-auditor")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

from auditor.audit import AuditResult, run_audit
from auditor.controls import ControlsResult, run_controls
from auditor.errors import AuditorError
from auditor.extract import Extracted, Limits, extract_bytes
from auditor.index import build_index
from auditor.ingest import BatchResult
from auditor.normalize import NORMALIZATION_VERSION, words
from auditor.pipeline import Outcome, audit_job, verify
from auditor.query import compare, query_text
from auditor.shingle import DEFAULT_PARAMS, Params
from auditor.store import Store

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
    "query_text",
    "run_audit",
    "run_controls",
    "verify",
    "words",
]
