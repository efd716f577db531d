"""What changed since a previous plan (``--previous``): each document whose decision changed,
with the reason in words.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.errors import UsageError

if TYPE_CHECKING:
    pass

from auditor.assembly.files import FORMAT, MANIFEST, PLAN
from auditor.assembly.policy import DECISION_TABLE


def plan_key(line: Mapping[str, Any]) -> str:
    if line.get("doc_id") is not None:
        return f"doc:{int(line['doc_id']):012d}"
    i = line.get("input") or {}
    return f"input:{i.get('path')}#{i.get('part') or ''}@{i.get('sha256')}"


@dataclass
class Previous:
    lines: dict[str, dict[str, Any]]
    info: dict[str, Any]


def read_previous(path: str | os.PathLike) -> Previous:
    """A previous plan (plan.jsonl, or the directory holding it and its manifest)."""
    p = Path(path)
    manifest = None
    if p.is_dir():
        if (p / MANIFEST).is_file():
            manifest = json.loads((p / MANIFEST).read_text(encoding="utf-8"))
        p = p / PLAN
    elif (p.parent / MANIFEST).is_file():
        try:
            manifest = json.loads((p.parent / MANIFEST).read_text(encoding="utf-8"))
        except ValueError:
            manifest = None
    if not p.is_file():
        raise UsageError(f"no previous plan at {path}")
    lines: dict[str, dict[str, Any]] = {}
    h, n = hashlib.sha256(), 0
    try:
        with open(p, "rb") as f:
            for raw in f:
                h.update(raw)
                n += 1
                line = json.loads(raw)
                lines[plan_key(line)] = {k: line.get(k) for k in ("doc_id", "decision", "reason", "kept", "input")}
    except (OSError, ValueError, TypeError) as e:
        raise UsageError(f"{p} is not a plan: {e}") from e
    info: dict[str, Any] = {"plan": {"sha256": h.hexdigest(), "lines": n}}
    if manifest and manifest.get("format") == FORMAT:
        info["digest"] = manifest.get("digest")
        info["run_id"] = (manifest.get("run") or {}).get("run_id")
        info["policy"] = manifest.get("policy")
    return Previous(lines, info)


def changes(current: Iterable[bytes], previous: Previous) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """What changed: documents newly dropped or newly kept, decided for another reason or in
    favour of another document, new since the previous plan, or gone from it; with why."""
    now: dict[str, dict[str, Any]] = {}
    for raw in current:
        line = json.loads(raw)
        now[plan_key(line)] = line
    out: list[dict[str, Any]] = []
    for key in sorted(set(now) | set(previous.lines)):
        before, after = previous.lines.get(key), now.get(key)
        b = None if before is None else {k: before[k] for k in ("decision", "reason", "kept")}
        a = None if after is None else {k: after[k] for k in ("decision", "reason", "kept")}
        if a == b:
            continue
        if b is None:
            kind = "new"
        elif a is None:
            kind = "gone"
        elif b["decision"] != a["decision"]:
            kind = "newly-kept" if a["decision"] == "keep" else "newly-dropped"
        else:
            kind = "changed"
        ref = after or before or {}
        out.append({"key": key, "doc_id": ref.get("doc_id"), "input": ref.get("input"), "change": kind,
                    "before": b, "after": a, "why": _why(kind, b, a, after, now)})
    counts: dict[str, int] = {}
    for c in out:
        counts[c["change"]] = counts.get(c["change"], 0) + 1
    return out, counts


def _said(d: Mapping[str, Any], evidence: Mapping[str, Any] | None = None) -> str:
    out = f"{'kept' if d['decision'] == 'keep' else 'dropped'} ({d['reason']}"
    if d["kept"] is not None:
        out += f" {d['kept']}"
        f = (evidence or {}).get("finding")
        if f:
            out += f", containment {f['containment']:.4f}"
    return out + ")"


def _why(kind: str, b: dict | None, a: dict | None, after: dict | None, now: dict[str, dict]) -> str:
    if kind == "gone":
        return "in the previous plan, not in this one (made from another store?)"
    assert a is not None
    said = f"{_said(a, (after or {}).get('evidence'))}: {DECISION_TABLE[a['decision']].get(a['reason'], '')}"
    if kind == "new":
        return "new since the previous plan; " + said
    assert b is not None
    said += f"; previously {_said(b)}"
    if b["kept"] is not None and b["kept"] != a["kept"]:
        t = now.get(f"doc:{int(b['kept']):012d}")
        if t is not None:
            said += f", and document {b['kept']} is now {_said(t)}"
    return said
