"""The gate's Markdown summary, for people: what failed, naming both documents, and where to look.

Spec: GitHub Flavored Markdown (tables, ``<br>`` inside cells) as GitHub renders a job summary
(``$GITHUB_STEP_SUMMARY``, at most 1 MiB per step: ``fit_summary`` cuts at a line boundary and
says so). Text from the batch is escaped by :mod:`auditor.report.render.as_markdown`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditor.gating.findings import INPUT_KINDS, KINDS, Finding, GateResult, main_span
from auditor.report.render.as_markdown import _cell_code, _md, _md_table

STEP_SUMMARY_CAP = 1024 * 1024  # GitHub's limit for one step's summary

_HEAD = {"PASSED": "✅ passed", "FAILED": "❌ failed", "REFUSED": "⛔ refused: controls failed",
         "ERROR": "⛔ error: nothing was gated"}


def _md_doc_cell(p: dict[str, Any] | None) -> str:
    if not p:
        return ""
    out = f"{_cell_code(p.get('path'))}<br>sha256 {_cell_code(str(p.get('sha256') or '')[:12])}"
    e = p.get("edgar")
    if e:
        sub, part = e.get("submission") or {}, e.get("part") or {}
        out += "<br>" + _md(f"EDGAR {sub.get('accession_number')} {sub.get('form_type')}, "
                            f"part {part.get('sequence')} {part.get('type')}")
    return out


def _md_where(f: Finding) -> str:
    bits = []
    if f.spans:
        sp = main_span(f.spans) or f.spans[0]
        bits.append(f"container chars {sp['start']}-{sp['end']}"
                    + (f", pages {sp['pages'][0]}-{sp['pages'][1]}" if sp.get("pages") else ""))
        if len(f.spans) > 1:
            bits.append(f"{len(f.spans)} spans")
    if "endLine" in f.region:
        bits.append(f"new file lines {f.region['startLine']}-{f.region['endLine']}")
    return _md("; ".join(bits))


def _md_findings(findings: list[Finding], reason: bool = False) -> list[str]:
    rows = []
    for f in findings:
        if f.kind in INPUT_KINDS:
            score = ""
            other = _md(f"{f.new.get('code')}: {f.new.get('message')}")
        else:
            score = f"{f.containment:.4f}" if f.match == "containment" and f.containment is not None else _md(f.match)
            other = _md_doc_cell(f.other)
        row = [_md(f"{f.kind} ({f.rule})"), _md_doc_cell(f.new) if f.kind not in INPUT_KINDS else _cell_code(f.new["path"]),
               other, score, _md_where(f)]
        if reason:
            row.append(_md(f.baseline_reason or ""))
        rows.append(row)
    header = ["kind", "new document", "other document / reason", "containment", "where"]
    return _md_table(header + (["baseline reason"] if reason else []), rows)


def summary_markdown(g: GateResult) -> str:
    """The gate's result for people: what failed, naming both documents, and where to look."""
    c = g.counts
    lines = [f"## Containment gate: {_HEAD[g.status]}", ""]
    facts = [f"batch {_cell_code(g.batch)}", f"{c['new_documents']} new documents",
             f"threshold {g.threshold}", f"fail on: {', '.join(k for k in KINDS if k in g.fail_on) or 'nothing'}"]
    if g.controls:
        passed = sum(1 for x in g.controls if x.get("passed"))
        facts.append(f"controls {passed}/{len(g.controls)} passed")
    if g.dry_run:
        facts.append("dry run")
    lines += [" · ".join(facts), ""]
    lines += _md_table(["failing", "warnings", "baselined", "ingest errors", "stale baseline entries"],
                       [[str(c["failing"]), str(c["warnings"]), str(c["baselined"]), str(c["ingest_errors"]),
                         str(c["stale_baseline_entries"])]])
    lines.append("")
    for note in g.notes:
        lines += [f"> {_md(note)}", ""]
    if g.status == "REFUSED":
        lines += ["### Failed controls", "",
                  "No finding is reported by a detector that failed its controls.", ""]
        lines += [f"- {_md(r)}" for r in g.refused_because] + [""]
    sections = [("Failing findings", g.by_level("error"), False),
                ("Warnings (kinds not in --fail-on)", g.by_level("warning"), False),
                ("Baselined (accepted)", g.by_level("baselined"), True)]
    for title, fs, reason in sections:
        if fs:
            lines += [f"### {_md(title)}", "", *_md_findings(fs, reason), ""]
    if g.stale:
        lines += ["### Stale baseline entries", "",
                  "These entries name a document the store no longer holds; remove them from the baseline.", ""]
        lines += _md_table(["rule", "contained", "container", "reason"], [
            [_md(e["rule"]), _cell_code(e.get("contained_path") or e["contained_sha256"][:12]),
             _cell_code(e.get("container_path") or (e.get("container_sha256") or "")[:12]), _md(e.get("reason", ""))]
            for e in g.stale])
        lines.append("")
    if g.withdrawn:
        lines += ["### Replaced or deleted by this change (not compared)", ""]
        lines += [f"- {_cell_code(d['path'])} (sha256 {_cell_code(str(d.get('sha256'))[:12])})" for d in g.withdrawn]
        lines.append("")
    short = [d for d in g.documents if d["status"] == "short"]
    if short:
        lines += ["### Short (passed: too short to hold a stored document)", ""]
        lines += [f"- {_cell_code(d['path'])}: {_md(d['reason'])}" for d in short]
        lines.append("")
    if g.data:
        read = [d for d in g.data if d["status"] == "read-as-data"]
        kinds = sorted({str(d["code"]) for d in read})
        if read:
            lines += [f"{len(read)} EDGAR part(s) read as data, not documents, each reading audited: "
                      + ", ".join(_cell_code(k) for k in kinds), ""]
    not_auditable = [d for d in g.documents if d["status"] == "not-auditable"]
    if not_auditable or g.skipped:
        lines += ["### Not gated", ""]
        lines += [f"- {_cell_code(d['path'])}: {_md(d['reason'])}" for d in not_auditable]
        lines += [f"- {_cell_code(s['path'] + ('#' + s['part'] if s['part'] else ''))}: skipped, {_md(s['code'])}"
                  for s in g.skipped]
        lines.append("")
    if g.report_dir:
        lines.append(f"Report: {_cell_code(str(g.report_dir / 'report.md'))} (also report.html, report.json, "
                     f"gate.json); digest {_cell_code(str(g.digest or '')[:16])}")
    if g.baseline_added:
        lines.append(f"Baseline {_cell_code(str(g.baseline))}: {g.baseline_added} entries added.")
    return "\n".join(lines).rstrip("\n") + "\n"


def fit_summary(text: str, limit: int, where: str | None = None) -> str:
    """``text`` cut at a line boundary to at most ``limit`` UTF-8 bytes, saying so."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    note = ("\n\n> Summary truncated to fit GitHub's 1 MiB step-summary limit"
            + (f"; the full summary is in {where}" if where else "; see report.md") + ".\n")
    room = max(0, limit - len(note.encode("utf-8")))
    cut = data[:room].decode("utf-8", "ignore")
    cut = cut[: cut.rfind("\n") + 1] if "\n" in cut else ""
    return cut + note if len((cut + note).encode("utf-8")) <= limit else ""


def append_step_summary(path: Path, text: str, where: str | None = None) -> None:
    """Append to ``$GITHUB_STEP_SUMMARY`` without pushing the step past GitHub's cap."""
    used = path.stat().st_size if path.exists() else 0
    fitted = fit_summary(text, STEP_SUMMARY_CAP - used - 1, where)
    if fitted:
        with path.open("a", encoding="utf-8") as f:
            f.write(fitted)


