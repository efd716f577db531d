"""The files of an assembled corpus: plan.jsonl, the corpus (JSON Lines or Parquet), their
content digests and the manifest's digest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.errors import ReportError, UsageError
from auditor.report.build import canonical
from auditor.store import gzfile

if TYPE_CHECKING:
    pass

from auditor.assembly.documents import EDGAR_FIELDS

FORMAT = "containment-auditor-assembly/1"


MANIFEST = "manifest.json"


PLAN = "plan.jsonl"


CHANGES = "changes.jsonl"


CORPUS = {"jsonl": "corpus.jsonl.gz", "parquet": "corpus.parquet"}


PARQUET_INSTALL = ("pip install 'containment-auditor[assemble-parquet]' (or the [spark] extra; from a "
                   "clone of the repository: pip install -e '.[assemble-parquet]')")


def record_line(rec: Mapping[str, Any]) -> bytes:
    """A corpus record as ``canonical`` writes it (it holds no float to round), faster."""
    return (json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def lines_content(lines: Iterable[bytes]) -> dict[str, Any]:
    h, n = hashlib.sha256(), 0
    for line in lines:
        h.update(line)
        n += 1
    return {"sha256": h.hexdigest(), "lines": n}


def write_lines(path: Path, lines: Iterable[bytes], *, compress: bool) -> dict[str, Any]:
    """Written beside and renamed, by the auditor's one deterministic gzip writer when
    ``compress``, so the same lines give the same bytes. Returns the content digest."""
    return gzfile.write_lines(path, lines, compress=compress)


def require_parquet() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as e:
        raise UsageError(f"--format parquet needs pyarrow, which is not installed: {PARQUET_INSTALL}") from e
    return pyarrow


def _parquet_schema(pa: Any) -> Any:
    edgar = pa.struct([("submission_id", pa.int64())] + [(k, pa.string()) for k in EDGAR_FIELDS[1:]])
    return pa.schema([("id", pa.int64()), ("sha256", pa.string()), ("path", pa.string()),
                      ("source", pa.string()), ("batch", pa.string()), ("format", pa.string()),
                      ("n_words", pa.int64()), ("edgar", edgar), ("text", pa.large_string())])


ROW_GROUP_CHARS = 64_000_000


def write_parquet(path: Path, records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    pa = require_parquet()
    import pyarrow.parquet as pq

    schema = _parquet_schema(pa)
    h, n = hashlib.sha256(), 0
    with gzfile.replacing(path) as tmp, pq.ParquetWriter(tmp, schema, compression="zstd") as w:
        batch: list[dict[str, Any]] = []
        held = 0
        for rec in records:
            batch.append(rec)
            h.update(record_line(rec))
            n += 1
            held += len(rec["text"])
            if held >= ROW_GROUP_CHARS:
                w.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch, held = [], 0
        if batch or not n:
            w.write_table(pa.Table.from_pylist(batch, schema=schema))
    return {"sha256": h.hexdigest(), "lines": n}


def parquet_parts(path: Path) -> list[Path]:
    """The files of a Parquet corpus in their order: the file itself, or the parts of a
    directory (as the Spark assemble writes it) by name, without Spark's marker and checksum
    files."""
    if not path.is_dir():
        return [path]
    return sorted(p for p in path.iterdir() if p.is_file() and p.name.endswith(".parquet")
                  and not p.name.startswith((".", "_")))


def read_parquet_lines(path: Path) -> Iterator[bytes]:
    """A Parquet corpus's rows as the canonical JSON lines they were hashed as, a row group at
    a time."""
    require_parquet()
    import pyarrow.parquet as pq

    try:
        for part in parquet_parts(path):
            f = pq.ParquetFile(part)
            for i in range(f.num_row_groups):
                for rec in f.read_row_group(i).to_pylist():
                    yield record_line(rec)
    except (OSError, ValueError) as e:  # pyarrow's errors derive from these
        raise ReportError(f"cannot read {path}: {e}") from e


def read_lines(path: Path) -> Iterator[bytes]:
    if path.name.endswith(".parquet"):
        yield from read_parquet_lines(path)
    else:
        yield from gzfile.read_lines(path)


def digest(manifest: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical({k: v for k, v in manifest.items() if k != "digest"})
                          .encode("utf-8")).hexdigest()
