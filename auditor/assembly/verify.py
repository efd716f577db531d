"""Checking an assembled corpus as ``auditor verify`` checks a report: the manifest, every file,
and a fresh plan from the store.
"""

from __future__ import annotations

import filecmp
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.corpus.check import require_intact, require_run_intact
from auditor.errors import ReportError, UsageError
from auditor.report.build import pretty
from auditor.store import gzfile
from auditor.store.db import Store

if TYPE_CHECKING:
    from auditor.report.pipeline import Verification

from auditor.assembly.changes import plan_key
from auditor.assembly.files import (
    CHANGES,
    CORPUS,
    FORMAT,
    MANIFEST,
    PLAN,
    digest,
    lines_content,
    parquet_parts,
    read_lines,
    write_parquet,
)
from auditor.assembly.plan import Assembly, plan
from auditor.assembly.policy import Policy


def verify(directory: str | os.PathLike, store: Store) -> Verification:
    """Check an assembled corpus as ``auditor verify`` checks a report: the manifest's digest and
    canonical form, every file's content against the manifest, and a fresh plan and corpus from
    the store (same run and policy) against both. ``changes.jsonl`` is checked against its digest
    only (the previous plan is not at hand)."""
    from auditor.report.outdir import unlisted
    from auditor.report.pipeline import Verification, custody_problems

    directory = Path(directory)
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReportError(f"cannot read {path}: {e}") from e
    if manifest.get("format") != FORMAT:
        raise ReportError(f"{path} is not a {FORMAT} manifest")
    problems = []
    content = digest(manifest)
    if content != manifest.get("digest"):
        problems.append(f"{MANIFEST} was altered: its content hashes to {content[:16]}..., but it records "
                        f"{str(manifest.get('digest'))[:16]}...")
    if path.read_text(encoding="utf-8") != pretty(manifest):
        problems.append(f"{MANIFEST} is not in its canonical form (edited by hand?)")
    on_disk: dict[str, dict[str, Any]] = {}
    listed = manifest.get("files") or {}
    parts = {n for n in listed if n.endswith(".parquet") and (directory / n).is_dir()}  # written by Spark
    for name in unlisted(directory, {*listed, MANIFEST, *(n for p in parquet_parts_of(directory, parts) for n in p)}):
        problems.append(f"{name} is not one of the files {MANIFEST} lists (added or renamed?)")
    for name, want in sorted(listed.items()):
        if "/" in name or name.startswith(".") or not ((directory / name).is_file() or name in parts):
            problems.append(f"{name} is missing")
            continue
        have = on_disk[name] = lines_content(read_lines(directory / name))
        if have != want:
            problems.append(f"{name} was altered: {have['lines']} lines hashing to {have['sha256'][:16]}..., "
                            f"the manifest records {want.get('lines')} lines, {str(want.get('sha256'))[:16]}...")
        elif name.endswith(".gz") and (why := gzfile.byte_problem(directory / name)):
            problems.append(f"{name} is not byte for byte the file the auditor wrote: {why}")
    try:
        policy = Policy.from_dict(manifest["policy"])
        fmt = manifest["corpus"]["format"]
        run_id = manifest["run"]["run_id"]
    except (KeyError, TypeError, UsageError) as e:
        problems.append(f"the manifest does not say how it was made: {e}")
        return Verification(False, str(manifest.get("digest")), content, "", problems)
    found, notes = custody_problems(store.conn, manifest.get("custody"), run_id, MANIFEST)
    problems += found
    require_intact(store)
    store.conn.execute("BEGIN")
    try:
        a = plan(store, run=run_id, policy=policy, format=fmt)
        require_run_intact(store, a.run["id"])
        again = a.manifest_core()
        files = {PLAN: lines_content(a.plan_lines()), CORPUS[fmt]: lines_content(a.corpus_lines())}
        if fmt == "parquet" and CORPUS[fmt] in parts:
            notes = [*notes, f"{CORPUS[fmt]} is a directory of Parquet parts (the Spark assemble's): its rows "
                             "are checked, not its bytes"]
        elif fmt == "parquet" and on_disk.get(CORPUS[fmt]) == files[CORPUS[fmt]]:
            why = _parquet_bytes_problem(directory / CORPUS[fmt], a)
            if why:
                problems.append(f"{CORPUS[fmt]} is not byte for byte the file the auditor wrote: {why}")
    finally:
        store.conn.execute("COMMIT")
    if CHANGES in (manifest.get("files") or {}):
        files[CHANGES] = manifest["files"][CHANGES]
        again["changes"] = manifest.get("changes")
    if "custody" in manifest:  # checked against the log above; the store has grown since
        again["custody"] = manifest["custody"]
    again["files"] = files
    again["digest"] = digest(again)
    if again["digest"] != manifest.get("digest"):
        from auditor.report.build import differences

        core = {k: v for k, v in manifest.items() if k != "digest"}
        core2 = {k: v for k, v in again.items() if k != "digest"}
        problems += differences(core, core2)[:20]
    if PLAN in on_disk and on_disk[PLAN] != files[PLAN]:
        problems += _plan_differences(read_lines(directory / PLAN), a.plan_lines())[:20]
    if again["digest"] != manifest.get("digest") and not problems:
        problems.append("recomputed digest differs")
    return Verification(not problems, str(manifest.get("digest")), content, again["digest"], problems, notes)


def parquet_parts_of(directory: Path, names: Iterable[str]) -> list[list[str]]:
    """The part files of each Parquet directory of ``names``, relative to ``directory``."""
    return [[p.relative_to(directory).as_posix() for p in parquet_parts(directory / n)] for n in sorted(names)]


def _parquet_bytes_problem(path: Path, a: Assembly) -> str | None:
    """Whether a Parquet corpus whose rows are right is also the file the auditor writes (no
    other key-value metadata, row groups or trailing bytes): written again and compared."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="auditor-verify-") as tmp:
        again = Path(tmp) / path.name
        write_parquet(again, a.corpus_records())
        if filecmp.cmp(again, path, shallow=False):
            return None
        return (f"{path.stat().st_size} bytes, {again.stat().st_size} written again from the same rows "
                "(other metadata or layout)")


def _plan_differences(stored: Iterable[bytes], fresh: Iterable[bytes]) -> list[str]:
    def short(raw: bytes) -> tuple[str, str]:
        line = json.loads(raw)
        return plan_key(line), f"{line.get('decision')} {line.get('reason')} {line.get('kept')}"

    try:
        a = dict(short(r) for r in stored)
    except ValueError:
        return ["plan.jsonl is not JSON Lines"]
    b = dict(short(r) for r in fresh)
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            out.append(f"plan {k}: the plan says {a.get(k) or 'nothing'}, recomputed {b.get(k) or 'nothing'}")
    return out or ["plan.jsonl differs from the recomputed plan in its evidence or provenance"]


def summary_lines(manifest: Mapping[str, Any]) -> list[str]:
    """The summary for a terminal: counts and characters kept and dropped, by reason."""
    s = manifest["summary"]
    out = [f"{s['documents']} documents, {s['failed_inputs']} failed and {s.get('skipped_inputs', 0)} skipped "
           f"inputs from run {manifest['run']['run_id']}: {s['keep']['documents']} kept "
           f"({s['keep']['chars']:,} characters), "
           f"{s['drop']['documents']} dropped ({s['drop']['chars']:,} characters)"]
    for decision in ("keep", "drop"):
        for reason, v in sorted(s["by_reason"][decision].items()):
            out.append(f"  {decision:4} {reason:18} {v['documents']:>8} documents {v['chars']:>14,} characters")
    ch = manifest.get("changes")
    if ch:
        out.append("changes since the previous plan: " + (", ".join(
            f"{k} {v}" for k, v in sorted(ch["counts"].items())) or "none")
            + (" (another audit run)" if ch.get("run_changed") else "")
            + (" (another policy)" if ch.get("policy_changed") else ""))
    return out
