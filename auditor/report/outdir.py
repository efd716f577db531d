"""Output directories. A report, a gate's files or an assembled corpus is written into a
directory that is new, empty, or holds only what the auditor wrote there before, which it then
replaces. Files of anyone else are never mixed with the tool's: ``verify`` would then fail on
the stranger, and the user would not know which files are the tool's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from auditor.errors import UsageError

REPORT_FILES = ("report.json", "report.md", "report.html")
GATE_JSON = "gate.json"


def unlisted(directory: Path, known: set[str]) -> list[str]:
    """Every file under ``directory`` that is not ``known`` (what its manifest lists), hidden
    files and links included, and every directory with no file in it."""
    found = list(directory.rglob("*"))
    names = {p.relative_to(directory).as_posix() for p in found if p.is_file() or p.is_symlink()}
    holding = {q.as_posix() for n in names for q in Path(n).parents}
    empty = {p.relative_to(directory).as_posix() for p in found if p.is_dir() and not p.is_symlink()} - holding
    empty = {d for d in empty if not any(q.as_posix() in empty for q in Path(d).parents)}  # the outermost
    return sorted(n for n in names | empty if n not in known)


def report_files(directory: Path) -> set[str]:
    """What the auditor wrote into a report directory, as report.json and gate.json list it
    (without checking it: ``verify`` does that)."""
    known: set[str] = set()
    for name, key in (("report.json", "files"), (GATE_JSON, "artefacts")):
        try:
            data = json.loads((directory / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        known.add(name)
        listed = data.get(key) if isinstance(data, dict) else None
        if key == "files" and isinstance(listed, dict):
            known |= {str(n) for n in listed} | set(REPORT_FILES)
        elif isinstance(listed, dict):
            known |= {str(a["in_report"]) for a in listed.values() if isinstance(a, dict) and a.get("in_report")}
    return known


def claim(directory: Path, written: set[str], *, option: str = "--out") -> None:
    """Make ``directory`` ready for new output: refuse it when it holds a file the auditor did
    not write (``written``: what its earlier output lists there), else remove that earlier
    output. A missing or empty directory is taken as it is."""
    directory = Path(directory)
    if not directory.exists():
        return
    if not directory.is_dir():
        raise UsageError(f"{option} {directory} is not a directory")
    if not any(directory.iterdir()):
        return
    strangers = unlisted(directory, written)
    if strangers:
        raise UsageError(f"{option} {directory} is not empty: it holds {len(strangers)} file(s) the auditor did not "
                         f"write there (the first: {strangers[0]}). Choose a new or empty directory, or remove them")
    for entry in sorted(directory.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
