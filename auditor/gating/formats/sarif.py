"""SARIF 2.1.0: one run, rules CONTAIN001 to CONTAIN008 with stable ids, one result per finding.

Spec: OASIS Static Analysis Results Interchange Format 2.1.0, errata 01 (``SARIF_SCHEMA``;
tests/data/ holds the JSON schema and tests/support/formats.py validates against it). Results carry
``partialFingerprints`` over the documents' content hashes (``FINGERPRINT_KEY``), so a finding is
the same finding across runs and renames; a baselined finding is a suppression of kind
``external``. The log holds no timestamp: the same inputs give the same SARIF.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditor import __version__
from auditor.console import clean
from auditor.gating.findings import (
    INPUT_KINDS,
    KINDS,
    RULES,
    GateResult,
    artifact_uri,
    doc_label,
    main_span,
)

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "containmentPair/v1"


def sarif(g: GateResult, cwd: Path) -> dict[str, Any]:
    """A SARIF 2.1.0 log: stable rule ids, one result per finding, fingerprints on content."""
    rules = [{
        "id": RULES[k]["id"], "name": RULES[k]["name"],
        "shortDescription": {"text": RULES[k]["short"]},
        "fullDescription": {"text": RULES[k]["full"]},
        "defaultConfiguration": {"level": "error"},
        "help": {"text": RULES[k]["full"] + " Accept a known finding with --baseline FILE --update-baseline."},
        "properties": {"kind": k},
    } for k in KINDS]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for f in g.findings:
        msg = f.sentence(full_sha=True)
        if f.kind not in INPUT_KINDS and f.spans:
            sp = main_span(f.spans) or f.spans[0]
            msg += f"; in the container at chars {sp['start']}-{sp['end']}" + (
                f", pages {sp['pages'][0]}-{sp['pages'][1]}" if sp.get("pages") else "")
        r: dict[str, Any] = {
            "ruleId": f.rule, "ruleIndex": index[f.rule],
            "level": {"error": "error", "warning": "warning", "baselined": "note"}[f.level],
            "message": {"text": clean(msg, keep_newlines=True)},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": f.uri}, "region": dict(f.region)}}],
            "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
            "properties": {k: v for k, v in (
                ("kind", f.kind), ("match", f.match), ("containment", f.containment),
                ("contained_sha256", f.key[1] or None), ("container_sha256", f.key[2] or None),
                ("new", f.new), ("other", f.other), ("pieces", f.pieces or None)) if v is not None},
        }
        if f.other and f.other.get("path"):
            other_path = str(f.other["path"]).split("#", 1)[0] if f.other.get("edgar") else str(f.other["path"])
            r["relatedLocations"] = [{"id": 1, "physicalLocation": {
                "artifactLocation": {"uri": artifact_uri(other_path, cwd)}},
                "message": {"text": clean(doc_label(f.other, True))}}]
        if f.level == "baselined":
            r["suppressions"] = [{"kind": "external", "status": "accepted",
                                  "justification": f.baseline_reason or ""}]
        results.append(r)
    notifications = [{"level": "error", "message": {"text": clean(f"control failed: {x}")},
                      "descriptor": {"id": "controls"}} for x in g.refused_because]
    notifications += [{"level": "warning", "message": {"text": clean(f"stale baseline entry {e['rule']} "
                                                                    f"{e.get('contained_path') or e['contained_sha256']}")},
                       "descriptor": {"id": "baseline"}} for e in g.stale]
    if g.status == "ERROR":
        notifications.append({"level": "error", "message": {"text": clean("; ".join(g.notes[:1]))},
                              "descriptor": {"id": "inputs"}})
    invocation: dict[str, Any] = {"executionSuccessful": g.status in ("PASSED", "FAILED"),
                                  "exitCode": g.exit_code}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "version": "2.1.0",
        "$schema": SARIF_SCHEMA,
        "runs": [{
            "tool": {"driver": {"name": "containment-auditor", "version": __version__,
                                "semanticVersion": __version__.split("+", 1)[0], "rules": rules}},
            "automationDetails": {"id": "containment-gate/"},
            "invocations": [invocation],
            "results": results,
            "properties": {"status": g.status, "batch": g.batch, "threshold": g.threshold,
                           "report_digest": g.digest, "dry_run": g.dry_run},
        }],
    }
