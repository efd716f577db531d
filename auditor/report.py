"""Reproducible audit reports: the canonical ``report.json`` and its digest.

Everything that follows from the inputs and parameters (manifest, controls, findings, not
auditable documents, duplicate groups, summary) is the report's *core*; its sha256 over
canonical JSON (sorted keys, no whitespace, floats rounded to 6 places) is the ``digest``. What
differs between two runs of the same audit (run id, timestamps, host, command line, durations)
lives in the ``run`` block, which the digest excludes. So the same store, parameters and tool
give a byte-identical ``report.json`` apart from ``run``, and ``verify`` can prove it.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from auditor import __version__
from auditor.audit import AuditResult, describe
from auditor.controls import ControlsResult
from auditor.errors import ReportError
from auditor.store import Store

FORMAT = "containment-auditor-report/1"
INTERVAL = "wilson-95"
KEY_PACKAGES = ("sqlite-utils", "xxhash", "pdfminer.six", "numpy", "lxml", "click", "rich")
EXCERPT_CHARS = 400


def _round(x: Any) -> Any:
    if isinstance(x, float):
        return round(x, 6)
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_round(v) for v in x]
    return x


def canonical(obj: Any) -> str:
    return json.dumps(_round(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(report: dict[str, Any]) -> str:
    core = {k: v for k, v in report.items() if k not in ("run", "digest")}
    return hashlib.sha256(canonical(core).encode("utf-8")).hexdigest()


def corpus_digest(store: Store) -> tuple[int, str]:
    """sha256 over the sorted (sha256, path) of every stored document."""
    rows = sorted(store.conn.execute("SELECT sha256, path FROM documents").fetchall())
    h = hashlib.sha256()
    for sha, path in rows:
        h.update(f"{sha}\t{path}\n".encode())
    return len(rows), h.hexdigest()


def _fixtures_digest(directory: Path) -> str | None:
    """sha256 over the control manifest and every file it names, so a report says which controls."""
    manifest = directory / "manifest.json"
    if not manifest.is_file():
        return None
    names = sorted({n for c in json.loads(manifest.read_text())["controls"]
                    for n in (c["contained"], c["container"])})
    h = hashlib.sha256(manifest.read_bytes())
    for n in names:
        h.update(f"\n{n}\t".encode() + hashlib.sha256((directory / n).read_bytes()).hexdigest().encode())
    return h.hexdigest()


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for p in KEY_PACKAGES:
        try:
            out[p] = version(p)
        except PackageNotFoundError:
            out[p] = "not installed"
    return out


def manifest(store: Store, threshold: float, controls: ControlsResult | None, engine: str = "sqlite") -> dict[str, Any]:
    n, cdig = corpus_digest(store)
    return {
        "tool": "containment-auditor",
        "tool_version": __version__,
        "engine": engine,
        "params": {**store.params.as_dict(), "threshold": threshold, "interval": INTERVAL},
        "conventions": {
            "containment": "|S(A) & S(B)| / |S(A)| over all distinct k-word shingles (exact); the "
                           "estimate uses only sampled shingles",
            "spans": "character offsets [start, end) into the container's extracted text "
                     "(`auditor show --text`); pages for PDFs",
            "score_distribution": "containment of every candidate pair (pairs sharing enough "
                                  "sampled shingles to pass the prefix filter)",
        },
        "versions": _versions(),
        "corpus": {"documents": n, "digest": cdig},
        "controls": {"seed": controls.seed if controls else None,
                     "directory": Path(controls.directory).name if controls and controls.directory else None,
                     "fixtures_digest": _fixtures_digest(Path(controls.directory))
                     if controls and controls.directory else None,
                     "note": controls.note if controls else ""},
    }


def _excerpt(text: str, start: int, end: int) -> str:
    s = text[start:end]
    if len(s) <= EXCERPT_CHARS:
        return s
    half = EXCERPT_CHARS // 2
    return s[:half].rstrip() + " [...] " + s[-half:].lstrip()


def _brief(store: Store, doc_id: int) -> dict[str, Any]:
    return {"doc_id": doc_id, "path": store.document(doc_id)["path"]}


def finding_dict(store: Store, p: Any, groups: dict[int, list[int]]) -> dict[str, Any]:
    text = store.text(p.container)
    spans = []
    for s in p.spans:
        d = s.as_dict()
        d["excerpt"] = _excerpt(text, s.start, s.end)
        spans.append(d)
    contained, container = describe(store, p.contained), describe(store, p.container)
    contained["duplicates"] = [_brief(store, i) for i in groups.get(p.contained, []) if i != p.contained]
    container["duplicates"] = [_brief(store, i) for i in groups.get(p.container, []) if i != p.container]
    return {
        "verdict": "contained",
        "contained": contained,
        "container": container,
        "containment": p.containment,
        "estimate": p.estimate.estimate,
        "interval": [p.estimate.low, p.estimate.high],
        "sampled": p.estimate.sampled,
        "hits": p.estimate.hits,
        "exact": p.exact,
        "spans": spans,
    }


def build_report(
    store: Store,
    threshold: float,
    controls: ControlsResult,
    audit: AuditResult | None,
    run: dict[str, Any],
    *,
    engine: str = "sqlite",
    scope: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The report dictionary; ``audit`` is None when the controls failed (a REFUSED report)."""
    refused = audit is None or not controls.passed
    report: dict[str, Any] = {
        "format": FORMAT,
        "status": "REFUSED" if refused else "OK",
        "manifest": manifest(store, threshold, controls, engine),
        "controls": [c.as_dict() for c in controls.results],
        "scope": scope or {"kind": "corpus"},
    }
    if refused:
        report["refused_because"] = [c.failure() for c in controls.failed] or ["no control could be run"]
        report["findings"] = []
    else:
        assert audit is not None
        groups = {m: g for g in audit.duplicate_groups for m in g}
        report["findings"] = [finding_dict(store, p, groups) for p in audit.findings]
        report["not_auditable"] = [
            {**describe(store, x["doc_id"]), "reason": x["reason"]} for x in audit.not_auditable
        ]
        report["duplicate_groups"] = [
            [describe(store, i) for i in g] for g in audit.duplicate_groups
        ]
        report["near_duplicate_clusters"] = [
            {"members": [describe(store, i) for i in c.members], "pairs": c.pairs,
             "containment_range": [c.low, c.high]}
            for c in audit.clusters
        ]
        report["verified_below_threshold"] = [
            {"contained": _brief(store, p.contained), "container": _brief(store, p.container),
             "exact": p.exact, "estimate": p.estimate.estimate,
             "interval": [p.estimate.low, p.estimate.high], "hits": p.estimate.hits,
             "sampled": p.estimate.sampled}
            for p in audit.verified_below
        ]
        report["failed_inputs"] = [
            {**r, "part": r["part"] or None} for r in store.rows(
                "SELECT path, part, status, code, message, sha256 FROM failures ORDER BY path, part, sha256, id")
        ]
        report["score_distribution"] = _histogram(audit.scores)
        report["summary"] = {
            "documents": audit.documents,
            "findings": len(audit.findings),
            "verified_below_threshold": len(audit.verified_below),
            "candidate_pairs": audit.candidates,
            "not_auditable": len(audit.not_auditable),
            "duplicate_groups": len(audit.duplicate_groups),
            "near_duplicate_clusters": len(audit.clusters),
            "failed_inputs": sum(1 for f in report["failed_inputs"] if f["status"] == "failed"),
            "skipped_inputs": sum(1 for f in report["failed_inputs"] if f["status"] == "skipped"),
            "controls_passed": sum(c.passed for c in controls.results),
            "controls": len(controls.results),
        }
    report["run"] = run
    report["digest"] = digest(report)
    return report


def _histogram(scores: list[float], bins: int = 20) -> dict[str, Any]:
    """Counts of candidate-pair containment scores in ``bins`` equal bins over [0, 1]."""
    counts = [0] * bins
    for s in scores:
        counts[min(bins - 1, int(s * bins))] += 1
    return {"counts": counts, "pairs": len(scores)}


def run_block(run_id: str, started: datetime, command: str) -> dict[str, Any]:
    ended = datetime.now(UTC)
    return {
        "run_id": run_id,
        "started": started.isoformat(timespec="seconds"),
        "ended": ended.isoformat(timespec="seconds"),
        "seconds": round((ended - started).total_seconds(), 3),
        "host": platform.node(),
        "platform": platform.platform(),
        "command": command,
        "argv0": sys.argv[0],
    }


def write_json(report: dict[str, Any], path: Path) -> None:
    """Pretty but canonical: sorted keys, rounded floats, one trailing newline."""
    path.write_text(json.dumps(_round(report), sort_keys=True, indent=2, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def load(report_dir: Path) -> dict[str, Any]:
    path = Path(report_dir) / "report.json"
    try:
        report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReportError(f"cannot read {path}: {e}") from e
    if report.get("format") != FORMAT:
        raise ReportError(f"{path} is not a {FORMAT} report")
    return report


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Paths at which two report cores differ (for verify's message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in {'recomputed' if k in b else 'report'}")
            else:
                out += differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} entries in the report, {len(b)} recomputed"]
        return [d for x, y, i in zip(a, b, range(len(a)), strict=True) for d in differences(x, y, f"{path}[{i}]")]
    return [] if _round(a) == _round(b) else [f"{path}: report {a!r}, recomputed {b!r}"]
