"""JUnit XML: one ``testsuite`` with a ``testcase`` per new document, per failed or skipped input
and per control.

Spec: the JUnit XML schema the Jenkins xUnit plugin validates reports with (``junit-10.xsd``,
Surefire/Ant style ``testsuites``/``testsuite``/``testcase``; tests/data/ holds a copy and
tests/support/formats.py validates against it), which has no ``skipped`` count on ``testsuites``. Every
text is one a strict XML 1.0 parser accepts.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from auditor.console import clean
from auditor.gating.findings import Finding, GateResult, seq_key


def _xml_text(s: Any) -> str:
    """Text a strict XML 1.0 parser accepts and a reader sees as it is: control, bidi and other
    format characters, lone surrogates and U+FFFE/U+FFFF made visible (``\\x1b``,
    ``\\u202e``); line breaks kept."""
    return clean(s, keep_newlines=True)


def _details(f: Finding) -> str:
    lines = [f.sentence(full_sha=True), f"rule: {f.rule} {f.kind}"]
    for label, p in (("new", f.new), ("other", f.other)):
        if not p:
            continue
        lines.append(f"{label}: {p.get('path')}")
        for k in ("sha256", "doc_id", "format", "batch", "code", "message"):
            if p.get(k) not in (None, ""):
                lines.append(f"  {k}: {p[k]}")
        e = p.get("edgar")
        if e:
            sub, part = e.get("submission") or {}, e.get("part") or {}
            lines.append("  EDGAR submission: " + ", ".join(f"{k} {v}" for k, v in sub.items() if v))
            lines.append("  EDGAR part: " + ", ".join(f"{k} {v}" for k, v in part.items() if v))
    if f.spans:
        lines.append("where: " + "; ".join(
            f"chars {s['start']}-{s['end']}" + (f" (pages {s['pages'][0]}-{s['pages'][1]})" if s.get("pages") else "")
            for s in f.spans[:5]))
    if f.pieces:
        lines.append("pieces: " + "; ".join(f"{x['path']} (sha256 {x['sha256']}) explains {x['covered']:.4f}"
                                            for x in f.pieces))
    elif f.also:
        verb = "also contained in" if f.new_is_contained else "also contains"
        lines.append(f"{verb} {f.also} more: " + ", ".join(f.other_members)
                     + (" ..." if f.also > len(f.other_members) else ""))
    if f.excerpt:
        lines.append("excerpt of the container: " + " ".join(f.excerpt.split())[:400])
    if f.baseline_reason:
        lines.append(f"baselined: {f.baseline_reason}")
    return "\n".join(lines)


def junit_xml(g: GateResult) -> bytes:
    """One testsuite; a testcase per new document, per EDGAR part read as data, per failed or skipped
    input, and per control."""
    suites = ET.Element("testsuites", name="containment-auditor gate")
    suite = ET.SubElement(suites, "testsuite", name=_xml_text(f"containment gate: {g.batch}"),
                          timestamp=g.started, time=f"{g.seconds:.3f}")
    props = ET.SubElement(suite, "properties")
    for k, v in (("status", g.status), ("batch", g.batch), ("threshold", str(g.threshold)),
                 ("fail_on", ",".join(sorted(g.fail_on))), ("dry_run", str(g.dry_run).lower()),
                 ("report", str(g.report_dir or "")), ("digest", g.digest or "")):
        ET.SubElement(props, "property", name=k, value=_xml_text(v))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}

    def case(name: str, classname: str) -> ET.Element:
        counts["tests"] += 1
        return ET.SubElement(suite, "testcase", classname=_xml_text(classname), name=_xml_text(name), time="0")

    def outcome(tc: ET.Element, tag: str, message: str, type_: str = "", text: str = "") -> None:
        counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[tag]] += 1
        attrib = {"message": _xml_text(message)}
        if type_:
            attrib["type"] = type_
        el = ET.SubElement(tc, tag, attrib)
        if text:
            el.text = _xml_text(text)

    by_path: dict[str, list[Finding]] = {}
    for f in g.findings:
        by_path.setdefault(f.new["path"], []).append(f)
    entries: list[tuple[str, str, str, str, Any]] = [
        (d["file"], d["part"], d["path"], "document", d) for d in [*g.documents, *g.data]]
    entries += [(f.file, str(f.new.get("part") or ""), f.new["path"], "ingest-error", f)
                for f in g.findings if f.kind == "ingest-error"]
    def shown(s: dict[str, Any]) -> str:
        return f"{s['path']}#{s['part']}" if s["part"] else s["path"]

    entries += [(s["path"], s["part"], shown(s), "skipped", s) for s in g.skipped if not by_path.get(shown(s))]
    entries += [(f.file, str(f.new.get("part") or ""), f.new["path"], "ingest-error", f)
                for f in g.findings if f.kind == "not-auditable" and f.match == "skipped"]
    entries.sort(key=lambda e: (e[0], seq_key(e[1]) if e[1] else (-1, ""), e[2]))
    for _, _, name, what, item in entries:
        tc = case(name, g.batch)
        if what == "ingest-error":
            f = item
            if f.level == "error":
                outcome(tc, "error" if f.kind == "ingest-error" else "failure",
                        f"{f.new.get('code')}: {f.new.get('message')}", f"{f.rule} {f.kind}", _details(f))
            elif f.level == "warning":
                outcome(tc, "skipped", f"not {'ingested' if f.kind == 'ingest-error' else 'auditable'} "
                                       f"({f.kind} is not in --fail-on): {f.new.get('code')}")
            else:
                ET.SubElement(tc, "system-out").text = _xml_text(_details(f))
            continue
        if what == "skipped":
            outcome(tc, "skipped", f"no text to gate: {item['code']}: {item['message']}")
            continue
        d = item
        mine = [f for f in by_path.get(name, []) if f.kind != "ingest-error"]
        failing = [f for f in mine if f.level == "error"]
        if d["status"] == "not-gated":
            outcome(tc, "skipped", "not gated: the controls failed, so no finding may be reported")
        elif failing:
            outcome(tc, "failure", failing[0].sentence() + (f" (and {len(failing) - 1} more)" if len(failing) > 1 else ""),
                    " ".join(sorted({f"{f.rule} {f.kind}" for f in failing})),
                    "\n\n".join(_details(f) for f in failing))
        elif d["status"] == "not-auditable":
            outcome(tc, "skipped", f"not auditable: {d['reason']}")
        rest = [f for f in mine if f.level != "error"]
        if rest:
            ET.SubElement(tc, "system-out").text = _xml_text("\n\n".join(f"[{f.level}] " + _details(f) for f in rest))
    for c in g.controls:
        tc = case(f"control {c['name']}", "controls")
        if not c.get("passed"):
            outcome(tc, "error", f"{c['name']} ({c['kind']}) scored {c['score']:.4f}, expected {c['operator']} {c['expected']:.4f}",
                    "ControlFailed", json.dumps(c, sort_keys=True, default=str))
    if g.status == "ERROR":
        tc = case("batch", g.batch)
        outcome(tc, "error", "; ".join(g.notes[:1]) or "nothing was gated", "NothingToGate")
    for k, n in counts.items():
        suite.set(k, str(n))
        if k != "skipped":  # the JUnit XSD (Jenkins xUnit junit-10) has no skipped on testsuites
            suites.set(k, str(n))
    suites.set("time", f"{g.seconds:.3f}")
    ET.indent(suites)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode").encode("utf-8") + b"\n"


