"""The assemble job: the plan, the files it writes, and the custody entry that records what was
shipped.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.corpus.check import require_intact, require_run_intact
from auditor.errors import UsageError
from auditor.report.outdir import claim
from auditor.store import custody, dating
from auditor.store.db import Store

if TYPE_CHECKING:
    pass

from auditor.assembly.changes import read_previous
from auditor.assembly.files import (
    CORPUS,
    FORMAT,
    MANIFEST,
    PLAN,
    require_parquet,
    write_lines,
    write_parquet,
)
from auditor.assembly.output import Assembled, seal, written
from auditor.assembly.plan import plan
from auditor.assembly.policy import Policy


def assemble(store: Store, out: str | os.PathLike, *, run: str | None = None, policy: Policy = Policy(),
             format: str = "jsonl", previous: str | os.PathLike | None = None,
             dates: str | os.PathLike | None = None) -> Assembled:
    """Make the plan, write plan.jsonl, the corpus, changes.jsonl (with ``previous``) and
    manifest.json (last, with the digest over everything) into ``out``. ``dates``: a dates file
    recorded in the store first (``dating.apply_dates``), so ``verify`` finds them there."""
    if format == "parquet":
        require_parquet()
    if (Path(out) / "report.json").exists():
        raise UsageError(f"{out} holds an audit report; write the assembled corpus to another directory")
    prev = read_previous(previous) if previous is not None else None  # before out/plan.jsonl is replaced
    claim(Path(out), written(Path(out)))
    applied = dating.apply_dates(store, dates) if dates is not None else None
    verified = require_intact(store)  # a store altered behind its back would be shipped: StoreDamaged
    store.conn.execute("BEGIN")  # one read snapshot
    try:
        head = custody.head(store.conn)  # the state of the store the corpus is made from
        a = plan(store, run=run, policy=policy, format=format)
        require_run_intact(store, a.run["id"])  # the run's pairs and documents it is made from
        directory = Path(out)
        files, manifest = _write(a, directory, prev, {"custody": head} if head is not None else {})
    finally:
        store.conn.execute("COMMIT")
    if getattr(store, "custody", None) is not None:  # the log records what was shipped
        with store.write("assemble", {"run_id": a.run["run_id"], "digest": manifest["digest"],
                                      "directory": str(directory.resolve())}) as c:
            if verified is not None:
                custody.checkpoint(c, verified)
    return Assembled(manifest, directory, [directory / n for n in (*files, MANIFEST)], applied)


def _write(a: Any, directory: Path, prev: Any, extra: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """plan.jsonl, the corpus, changes.jsonl (with ``prev``) and manifest.json (last, with
    ``extra`` and the digest over everything) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {PLAN: write_lines(directory / PLAN, a.plan_lines(), compress=False)}
    corpus = CORPUS[a.format]
    if a.format == "parquet":
        files[corpus] = write_parquet(directory / corpus, a.corpus_records())
    else:
        files[corpus] = write_lines(directory / corpus, a.corpus_lines(), compress=True)
    return files, seal(directory, a.manifest_core(), files, prev, a.run["run_id"], a.policy, extra)


def assemble_parquet(directory: str | os.PathLike, out: str | os.PathLike, *, run: str | None = None,
                     policy: Policy = Policy(), previous: str | os.PathLike | None = None,
                     master: str = "local[*]", spark: Any = None) -> Assembled:
    """``assemble`` from a Parquet export (``auditor export``, or a Spark ingest) and an audit
    run recorded in it (``auditor audit --engine spark --parquet DIR`` writes ``DIR/runs/``),
    without a store, on Spark (:mod:`auditor.assembly.spark`). The plan is the store's plan,
    byte for byte; the corpus is written as Parquet by the executors. Not supported here:
    ``--dates`` (supplied dates are recorded in a store) and withdrawn documents (an export
    holds none).
    """
    from auditor.assembly.spark import assemble_on_spark

    return assemble_on_spark(directory, out, run=run, policy=policy, previous=previous, master=master,
                             spark=spark)


def is_assembly(directory: str | os.PathLike) -> bool:
    """Whether ``directory`` holds an assembled corpus (a manifest of this format), not a report."""
    path = Path(directory) / MANIFEST
    if not path.is_file() or (Path(directory) / "report.json").exists():
        return False
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False
