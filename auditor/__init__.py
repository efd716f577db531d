"""containment-auditor: which documents of a corpus are wholly contained in another, and where.

The library behind the ``auditor`` command; each name below is what one command calls.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("containment-auditor")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

from auditor.audit import AuditResult, run_audit  # noqa: E402
from auditor.controls import ControlsResult, run_controls  # noqa: E402
from auditor.errors import AuditorError  # noqa: E402
from auditor.extract import Extracted, Limits, extract, extract_bytes  # noqa: E402
from auditor.index import build_index  # noqa: E402
from auditor.ingest import BatchResult, ingest  # noqa: E402
from auditor.normalize import NORMALIZATION_VERSION, normalize, words  # noqa: E402
from auditor.pipeline import Outcome, audit_job, verify  # noqa: E402
from auditor.query import compare, query_text  # noqa: E402
from auditor.shingle import DEFAULT_PARAMS, Params  # noqa: E402
from auditor.store import Store  # noqa: E402

__all__ = [
    "AuditResult",
    "AuditorError",
    "BatchResult",
    "ControlsResult",
    "DEFAULT_PARAMS",
    "Extracted",
    "Limits",
    "NORMALIZATION_VERSION",
    "Outcome",
    "Params",
    "Store",
    "audit_job",
    "build_index",
    "compare",
    "extract",
    "extract_bytes",
    "ingest",
    "normalize",
    "query_text",
    "run_audit",
    "run_controls",
    "verify",
    "words",
]
