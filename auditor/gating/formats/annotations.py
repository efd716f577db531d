"""GitHub Actions annotations: the workflow commands (``::error file=...,line=...,title=...::message``)
the gate prints on stdout when ``GITHUB_ACTIONS=true``.

Spec: GitHub's "Workflow commands for GitHub Actions" (setting an error or a warning message),
escaped as the Actions toolkit (``@actions/core``) escapes them: in the message ``%``, CR and LF
are percent-encoded; in property values also ``:`` and ``,``. Messages and titles have every
control and format character made visible; the ``file`` property keeps format characters
(``escape_file``), or the annotation would not attach to its file. GitHub shows at most 10 annotations
of each level per step, so past that the tenth says how many more there are.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from auditor.console import clean
from auditor.gating.findings import GateResult, relative_path

MAX_ANNOTATIONS = 10  # GitHub keeps at most 10 error and 10 warning annotations per step


def escape_data(s: str) -> str:
    """Workflow-command message text: ``%``, CR and LF are percent-encoded, and every other
    control or bidi character made visible (a log viewer would act on ESC, BEL or U+202E)."""
    return clean(s, keep="\r\n").replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    """Workflow-command property values: as data, plus ``:`` and ``,``."""
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def escape_file(path: str) -> str:
    """The ``file`` property: the path as the repository names it, since GitHub attaches an
    annotation only to a path it matches, so format characters (U+202E, zero-width ones) stay
    as they are; controls a log viewer would act on (ESC, BEL, CSI) are still made visible, so
    a name holding one is named in the message but its annotation does not attach."""
    keep = "".join(sorted({c for c in path if unicodedata.category(c) == "Cf"}))
    return clean(path, keep=keep + "\r\n").replace("%", "%25").replace("\r", "%0D").replace(
        "\n", "%0A").replace(":", "%3A").replace(",", "%2C")


def github_annotations(g: GateResult, cwd: Path) -> list[str]:
    """Workflow commands: one per failing finding, then warnings, at most 10 of each."""
    errors: list[str] = []
    warnings: list[str] = []
    for f in g.findings:
        if f.level == "baselined":
            continue
        props = {"file": relative_path(f.file, cwd), "line": str(f.region.get("startLine", 1))}
        if "endLine" in f.region:
            props["endLine"] = str(f.region["endLine"])
        props["title"] = f"{f.rule} {f.kind}"
        cmd = _command("error" if f.level == "error" else "warning", props, f.sentence(full_sha=True))
        (errors if f.level == "error" else warnings).append(cmd)
    for e in g.stale:
        warnings.append(_command("warning", {"title": "stale baseline entry"},
                                 f"{e['rule']} {e.get('contained_path') or e['contained_sha256']}: "
                                 "the store no longer holds this document; remove the entry"))
    if g.status == "REFUSED":
        errors.insert(0, _command("error", {"title": "controls failed"},
                                  "no finding is reported by a detector that failed its controls: "
                                  + "; ".join(g.refused_because)))
    if g.status == "ERROR":
        errors.insert(0, _command("error", {"title": "nothing gated"}, "; ".join(g.notes[:1])))
    return _capped(errors, "error", "failing findings") + _capped(warnings, "warning", "warnings")


def _command(level: str, props: dict[str, str], message: str) -> str:
    p = ",".join(f"{k}={escape_file(v) if k == 'file' else escape_property(v)}" for k, v in props.items())
    return f"::{level} {p}::{escape_data(message)}" if p else f"::{level}::{escape_data(message)}"


def _capped(cmds: list[str], level: str, what: str) -> list[str]:
    if len(cmds) <= MAX_ANNOTATIONS:
        return cmds
    rest = len(cmds) - (MAX_ANNOTATIONS - 1)
    more = _command(level, {"title": f"{rest} more {what}"}, f"{rest} more {what}: see the step summary and the report")
    return [*cmds[: MAX_ANNOTATIONS - 1], more]


