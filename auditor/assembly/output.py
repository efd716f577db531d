"""What an assemble leaves in its directory: the result, the manifest sealed over the files, and
the files an earlier assemble wrote there (which a new one may replace).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.report.build import canonical, pretty, write_text_atomic
from auditor.store import dating

if TYPE_CHECKING:
    pass

from auditor.assembly.changes import changes
from auditor.assembly.files import CHANGES, MANIFEST, PLAN, digest, read_lines, write_lines
from auditor.assembly.policy import Policy


@dataclass
class Assembled:
    manifest: dict[str, Any]
    directory: Path
    files: list[Path]
    dates: dating.Applied | None = None  # what ``dates`` did


def seal(directory: Path, manifest: dict[str, Any], files: dict[str, Any], prev: Any, run_id: str,
         policy: Policy, extra: dict[str, Any]) -> dict[str, Any]:
    """changes.jsonl (with ``prev``: what changed since the previous plan, read from the
    ``PLAN`` just written) and manifest.json: ``manifest`` (its core) with ``files``, ``extra``
    and the digest over everything. Adds changes.jsonl to ``files``."""
    if prev is not None:
        listed, counts = changes(read_lines(directory / PLAN), prev)
        files[CHANGES] = write_lines(directory / CHANGES, (canonical(c).encode() + b"\n" for c in listed),
                                     compress=False)
        manifest["changes"] = {"previous": prev.info, "counts": counts,
                               "run_changed": prev.info.get("run_id") not in (None, run_id),
                               "policy_changed": prev.info.get("policy") not in (None, policy.as_dict())}
    manifest["files"] = files
    manifest |= extra
    manifest["digest"] = digest(manifest)
    write_text_atomic(directory / MANIFEST, pretty(manifest))
    return manifest


def written(directory: Path) -> set[str]:
    """What an earlier ``assemble`` wrote into ``directory``, as its manifest lists it (and the
    files inside a listed directory: a corpus the Spark assemble wrote as Parquet parts)."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        return listed_files(directory, {MANIFEST, *(str(n) for n in manifest.get("files") or {})})
    except (OSError, ValueError, AttributeError):
        return set()


def listed_files(directory: Path, names: set[str]) -> set[str]:
    """``names`` and every file under those of them that are directories."""
    out = set(names)
    for n in names:
        if (directory / n).is_dir() and not (directory / n).is_symlink():
            out |= {p.relative_to(directory).as_posix() for p in (directory / n).rglob("*")}
    return out
