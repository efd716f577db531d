"""Baselines: findings reviewed and accepted, keyed by rule and the content hashes of both
documents (never paths), so an entry survives renames; docs/how-to/ci-gate.md describes the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from auditor.errors import UsageError
from auditor.gating.findings import INPUT_KINDS, KIND_OF, RULE_IDS, Finding
from auditor.store import gzfile
from auditor.store.db import Store

BASELINE_VERSION = 1


def load_baseline(path: Path, *, missing_ok: bool = False) -> list[dict[str, Any]]:
    """Entries of a baseline file, validated: every entry needs a rule, both hashes and a reason."""
    if not path.exists():
        if missing_ok:
            return []
        raise UsageError(f"baseline {path} does not exist (create it with --update-baseline)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read baseline {path}: {e}") from e
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION:
        raise UsageError(f"baseline {path}: expected a JSON object with \"version\": {BASELINE_VERSION}")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise UsageError(f"baseline {path}: \"entries\" must be a list")
    out = []
    for i, entry in enumerate(entries):
        where = f"baseline {path}, entry {i}"
        if not isinstance(entry, dict):
            raise UsageError(f"{where}: not an object")
        rule = str(entry.get("rule") or "")
        rule = RULE_IDS.get(rule.lower(), rule.upper())
        if rule not in KIND_OF:
            raise UsageError(f"{where}: unknown rule {entry.get('rule')!r}; expected one of {', '.join(KIND_OF)}")
        a, b = entry.get("contained_sha256"), entry.get("container_sha256")
        if not _is_sha(a) or not (_is_sha(b) or (KIND_OF[rule] in INPUT_KINDS and not b)):
            raise UsageError(f"{where}: contained_sha256 and container_sha256 must be sha256 hex digests")
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise UsageError(f"{where}: every entry needs a non-empty \"reason\" (why the finding is accepted)")
        out.append({**entry, "rule": rule, "contained_sha256": str(a).lower(),
                    "container_sha256": str(b or "").lower()})
    return out


def _is_sha(x: Any) -> bool:
    return isinstance(x, str) and re.fullmatch(r"[0-9a-fA-F]{64}", x) is not None


def baseline_key(e: dict[str, Any]) -> tuple[str, str, str]:
    return str(e["rule"]), str(e["contained_sha256"]), str(e.get("container_sha256") or "")


def baseline_index(entries: Iterable[dict[str, Any]]) -> dict[tuple[str, str, str], str]:
    out: dict[tuple[str, str, str], str] = {}
    for e in entries:
        out.setdefault(baseline_key(e), str(e["reason"]))
    return out


def merge_baseline(entries: list[dict[str, Any]], findings: Iterable[Finding],
                   reason: str) -> tuple[list[dict[str, Any]], int]:
    """Existing entries (untouched) plus one for each finding not yet in them, sorted.

    Sorting by key and never rewriting an existing entry keeps the file byte-identical when
    nothing new was accepted, so committing it causes no churn.
    """
    have = {baseline_key(e) for e in entries}
    merged = list(entries)
    added = 0
    for f in findings:
        if not f.key[1] or f.key in have:
            continue  # an input that could not even be read has no content to key on
        have.add(f.key)
        c = f.container
        merged.append({
            "rule": f.rule, "kind": f.kind,
            "contained_sha256": f.key[1], "container_sha256": f.key[2],
            "contained_path": str(f.contained.get("path") or ""),
            "container_path": str((c or {}).get("path") or ""),
            "reason": reason,
        })
        added += 1
    merged.sort(key=lambda e: (*baseline_key(e), str(e.get("contained_path", "")), str(e.get("container_path", ""))))
    return merged, added


def dump_baseline(entries: list[dict[str, Any]]) -> str:
    return json.dumps({"version": BASELINE_VERSION, "entries": entries}, indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"


def write_baseline(path: Path, entries: list[dict[str, Any]]) -> bool:
    """Write the baseline if its text changed; True when it did."""
    text = dump_baseline(entries)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    gzfile.write_text(path, text)
    return True


def stale_entries(store: Store, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries naming a document (or failed input) that the store no longer holds."""
    def known(sha: str, failures: bool) -> bool:
        if store.scalar("SELECT 1 FROM documents WHERE sha256 = ?", (sha,)):
            return True
        return bool(failures and store.scalar("SELECT 1 FROM failures WHERE sha256 = ?", (sha,)))

    out = []
    for e in entries:
        rule, a, b = baseline_key(e)
        if not known(a, KIND_OF[rule] in INPUT_KINDS) or (b and not known(b, False)):
            out.append(e)
    return out


