"""``report.md``: the audit as Markdown (CommonMark, with GitHub-flavoured tables and
strikethrough), readable raw or rendered.

Text from the report goes out as escaped text or code spans, so no file name or excerpt can
become a link, a heading, HTML or a table cell boundary.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from auditor.report.render.model import (
    CONTAINED_FILE,
    DETAIL_LIMIT,
    LIST_ROWS,
    NAMES_PER_FAMILY,
    OVERVIEW_ROWS,
    _alignment_summary,
    _between_text,
    _bins,
    _bound,
    _controls_line,
    _count,
    _doc,
    _doc_facts,
    _edgar_part,
    _edgar_submission,
    _estimate_text,
    _f4,
    _gate,
    _gate_headline,
    _gate_rows,
    _headline,
    _more,
    _more_regions,
    _n,
    _name,
    _oneline,
    _params_rows,
    _provenance,
    _refused,
    _run_rows,
    _sha,
    _skip_text,
    _source_href,
    _span_text,
    _summary_items,
    _text_href,
    _threshold_value,
    _total,
    _verdict,
    _visible,
    _visible_text,
    _where,
    unread_rows,
)

_MD_INLINE = re.compile(r"[\\`*\[\]<|~@]|&(?=#?\w+;)|(?<![^\W_])_|_(?![^\W_])")
_MD_AUTOLINK = re.compile(r"(?i)\b(https?|ftp)(:)(?=//)|\b(www)(\.)")
_MD_BLOCK_START = re.compile(r"^(\s*)([#>+\-=])")
_MD_ORDERED = re.compile(r"^(\s*\d{1,9})([.)])(?=\s|$)")


def _md(value: Any, prose: bool = True) -> str:
    """Text safe inline, at the start of a line and in table cells.

    No emphasis, links, autolinks, raw HTML, headings or list markers can come out of it, and
    a pipe cannot end a table cell. ``prose`` folds whitespace (messages); names keep theirs.
    """
    s = _oneline(value) if prose else _visible(value)
    s = _MD_INLINE.sub(lambda m: "\\" + m.group(0), s)
    s = _MD_AUTOLINK.sub(lambda m: (m.group(1) or m.group(3)) + "\\" + (m.group(2) or m.group(4)), s)
    s = _MD_BLOCK_START.sub(r"\1\\\2", s, count=1)
    return _MD_ORDERED.sub(r"\1\\\2", s, count=1)


def _code(value: Any) -> str:
    """A code span for identifiers and paths (any backticks inside are out-fenced)."""
    s = _visible(value)
    if not s:
        return "(empty)"
    fence = "`" * (max((len(r) for r in re.findall("`+", s)), default=0) + 1)
    pad = " " if s[0] in "` " or s[-1] in "` " else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _cell_code(value: Any) -> str:
    """A code span that is safe in a GFM table cell, else escaped text.

    Inside a table a pipe in a code span must be written ``\\|``; a literal backslash before a
    pipe cannot be expressed there, so such a name falls back to escaped text.
    """
    s = _visible(value)
    return _md(s, prose=False) if "\\|" in s else _code(s).replace("|", "\\|")


def _md_table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    """Cells must already be escaped, with ``_md`` or ``_cell_code``."""
    header = list(header)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _md_fenced_quote(text: Any) -> list[str]:
    """A document excerpt verbatim: a fenced block (longer than any backtick run) in a quote."""
    body = _visible_text(text)
    fence = "`" * max(3, max((len(r) for r in re.findall("`+", body)), default=0) + 1)
    lines = [fence + "text", *body.split("\n"), fence]
    return [("> " + ln).rstrip() for ln in lines]


def _md_link(label: str, href: str | None) -> str:
    """``label`` (already Markdown) linked to ``href`` (already percent-encoded), if any."""
    return f"[{label}]({href})" if href else label


def _md_doc(report: dict[str, Any], label: str, doc_id: Any) -> list[str]:
    d = _doc(report, doc_id)
    links = [f"[extracted text]({_text_href(report, doc_id)})"] if _text_href(report, doc_id) else []
    out = [f"- **{label}:** {_md_link(_code(d.get('path')), _source_href(report, doc_id))} "
           f"(doc {_md(d.get('doc_id'))}, sha256 `{_md(_sha(d))}`, {_md(_doc_facts(d))})"
           + (f" {', '.join(links)}" if links else "")]
    if d.get("edgar"):
        e = d["edgar"]
        out.append(f"  - {_md(_edgar_submission(e))}; {_md(_edgar_part(e))}")
        if e.get("submission_path"):
            out.append(f"  - submission file {_code(e['submission_path'])}")
    if d.get("also_seen_at"):
        seen = d["also_seen_at"]
        out.append("  - also seen at: " + ", ".join(_code(x) for x in seen[:10])
                   + (f" and {len(seen) - 10} more" if len(seen) > 10 else ""))
    return out


def _md_named(report: dict[str, Any], doc_id: Any) -> str:
    """A document in a table cell: its name linked to its source file, and its provenance."""
    return (_md_link(_cell_code(_name(report, doc_id)), _source_href(report, doc_id))
            + f" ({_md(_provenance(report, doc_id))})")


def _md_overview(report: dict[str, Any]) -> list[str]:
    findings = report.get("findings") or []
    out = [f"## Contained documents ({_count(_total(report, 'findings'))})", ""]
    if not _total(report, "findings"):
        return [*out, "No document is contained in another (outside families and boilerplate).", ""]
    out += ["Each contained document once, with its best container; the full list of containers "
            "is in `findings.jsonl.gz`.", ""]
    rows = []
    for i, f in enumerate(findings[:OVERVIEW_ROWS], 1):
        best = (f.get("best") or [{}])[0]
        rows.append([f"[{i}](#doc-{i})" if i <= DETAIL_LIMIT else str(i),
                     _md_named(report, f.get("doc_id")), _md_named(report, best.get("container")),
                     _f4(best.get("containment")), _md(_where(report, best)), _count(f.get("containers"))])
    out += _md_table(["#", "contained document", "best container", "containment", "where",
                      "containers"], rows)
    more = _more(min(len(findings), OVERVIEW_ROWS), _total(report, "findings"), "contained documents",
                 CONTAINED_FILE)
    return [*out, *(["", more] if more else []), ""]


_MD_MARK = {"deleted": "~~", "inserted": "**", "changed": "*"}


def _md_side(pieces: list[list[Any]], side: int) -> str:
    """One side of a hunk on one line: deleted ~~struck~~, inserted **bold**, changed *italic*."""
    out = []
    for piece in pieces:
        kind, text = piece[0], piece[side]
        if kind == "elided":
            out.append(rf" \[… {_count(text)} words …\] " if text else "")
        elif kind == "between":
            out.append(rf" \[… {_md(_between_text(text))} …\] " if side == 2 else "")
        elif kind in _MD_MARK and text:
            out.append(_MD_MARK[kind] + _md(text) + _MD_MARK[kind])
        elif text:  # equal text and separators: whitespace folds to one space, kept at the ends
            core = _md(text) if str(text).strip() else ""
            out.append((" " if text[:1].isspace() else "") + core
                       + (" " if text[-1:].isspace() and core else ""))
    return " ".join("".join(out).split()) or "—"


def _md_alignment(report: dict[str, Any], f: dict[str, Any], best: dict[str, Any]) -> list[str]:
    al = best.get("alignment")
    if not al:
        return []
    out = ["", f"  Side by side with container 1: {_md(_alignment_summary(al))}.", ""]
    hunks = al.get("hunks") or []
    if not hunks:
        return out
    out += ["  ~~Struck~~: only in the contained document; **bold**: only in the container; "
            "*italic*: changed (the contained document's words on the left, the container's on the right).", ""]
    rows = []
    for h in hunks:
        if h.get("skipped"):
            rows.append([_skip_text(h["skipped"])] * 2)
        a, b = h.get("a") or [0, 0], h.get("b") or [0, 0]
        rows.append([f"characters {a[0]}-{a[1]}: {_md_side(h.get('pieces') or [], 1)}",
                     f"characters {b[0]}-{b[1]}: {_md_side(h.get('pieces') or [], 2)}"])
    if al.get("skipped_after"):
        rows.append([_skip_text(al["skipped_after"])] * 2)
    if al.get("hunks_total", 0) > len(hunks):
        rows.append([_more_regions(al)] * 2)
    out += ["  " + line for line in _md_table(["contained document", "container"], rows)]
    return out


def _md_detail(report: dict[str, Any], i: int, f: dict[str, Any], threshold: Any) -> list[str]:
    out = [f'<a id="doc-{i}"></a>', "", f"### {i}. {_code(_name(report, f.get('doc_id')))}", ""]
    out += _md_doc(report, "Contained", f.get("doc_id"))
    if f.get("family") is not None:
        out.append(f"- **Family:** {_md(f['family'])} (documents that contain one another)")
    out.append(f"- **Contained in:** {_n(f.get('containers'), 'document')}")
    for n, best in enumerate(f.get("best") or [], 1):
        out += _md_doc(report, f"Container {n}", best.get("container"))
        out.append(f"  - containment {_f4(best.get('containment'))}: "
                   f"{_md(_verdict(best.get('containment'), threshold))}, exact over all shingles; "
                   f"sampled estimate {_estimate_text(best)}")
        spans = best.get("spans") or []
        out.append("  - locations: " + ("; ".join(_md(_span_text(sp)) for sp in spans) or "none recorded"))
        for sp in spans:
            if sp.get("excerpt"):
                out += ["", "  Excerpt of the container at its main location:", ""]
                out += ["  " + line for line in _md_fenced_quote(sp["excerpt"])]
                out.append("")
        out += _md_alignment(report, f, best)
    others = f.get("others") or []
    if others:
        out.append("")
        out.append("- **Also contained in:** " + ", ".join(
            _code(_name(report, o)) if str(o) in (report.get("documents") or {}) else f"doc {_md(o)}"
            for o in others[:20]) + (f" and {len(others) - 20} more" if len(others) > 20 else ""))
    out.append("")
    return out


_BAR_MARKS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _md_boilerplate(report: dict[str, Any]) -> list[str]:
    bp = report.get("boilerplate") or []
    rule = ((report.get("manifest") or {}).get("params") or {}).get("boilerplate") or {}
    out = [f"## Boilerplate ({_count(_total(report, 'boilerplate'))})", ""]
    if not _total(report, "boilerplate"):
        return [*out, "None.", ""]
    out += [f"Documents contained in at least {_count(rule.get('applied', '?'))} unrelated documents (notices, "
            "certifications, standard terms; containers that are versions or variants of one another count "
            "once), each listed once with one container.", ""]
    rows = [[_cell_code(_name(report, e.get("doc_id"))), _count(e.get("containers")),
             f"{100 * float(e.get('share') or 0):.1f}%",
             _cell_code(_name(report, (e.get("best") or [{}])[0].get("container"))),
             _f4((e.get("best") or [{}])[0].get("containment"))] for e in bp[:LIST_ROWS]]
    out += _md_table(["document", "containers", "of audited", "best container", "containment"], rows)
    more = _more(min(len(bp), LIST_ROWS), _total(report, "boilerplate"), "boilerplate documents", CONTAINED_FILE)
    return [*out, *(["", more] if more else []), ""]


def _md_families(report: dict[str, Any]) -> list[str]:
    fams = report.get("families") or []
    out = [f"## Families ({_count(len(fams))})", ""]
    if not fams:
        return [*out, "None.", ""]
    out += ["Documents that contain one another (both ways at the threshold), reported once.", ""]
    rows = []
    for f in fams[:LIST_ROWS]:
        members = f.get("members") or []
        low, high = (f.get("containment_range") or [None, None])[:2]
        names = ", ".join(_cell_code(_name(report, m)) for m in members[:NAMES_PER_FAMILY])
        if len(members) > NAMES_PER_FAMILY:
            names += f" and {len(members) - NAMES_PER_FAMILY} more"
        rows.append([_md(f.get("id")), _count(len(members)), f"{_f4(low)} to {_f4(high)}", names])
    out += _md_table(["family", "members", "containment", "documents"], rows)
    more = _more(min(len(fams), LIST_ROWS), len(fams), "families")
    return [*out, *(["", more] if more else []), ""]


def _md_distribution(report: dict[str, Any]) -> list[str]:
    bins = _bins(report)
    dist = report.get("score_distribution") or {}
    out = ["## Score distribution", ""]
    nonzero = [(a, b, c) for a, b, c in bins if c]
    if not nonzero:
        return [*out, "No candidate pairs.", ""]
    t = _threshold_value(report)
    peak = max(c for _, _, c in nonzero)
    out += [f"Containment of the {_count(dist.get('pairs', sum(c for *_, c in bins)))} candidate "
            f"pairs in {len(bins)} bins (bar length on a log scale; empty bins omitted).", ""]
    rows = []
    for a, b, c in nonzero:
        bar = "█" * max(1, round(20 * math.log1p(c) / math.log1p(peak)))
        side = "" if t is None else ("above threshold" if a >= t else "below threshold" if b <= t
                                     else "spans threshold")
        rows.append([f"{a:.2f}-{b:.2f}", _count(c), bar, side])
    return [*out, *_md_table(["score", "pairs", "", "vs threshold"], rows), ""]


def _md_controls(report: dict[str, Any]) -> list[str]:
    controls = report.get("controls") or []
    out = ["## Controls", ""]
    if not controls:
        return [*out, "No control could be run.", ""]
    out += [f"Controls: {_md(_controls_line(report))}", ""]
    rows = [[_md(c.get("name")), _md(c.get("kind")), _md(c.get("source")),
             f"{_cell_code(c.get('contained'))} → {_cell_code(c.get('container'))}", _f4(c.get("score")),
             _md(_bound(c)), "yes" if c.get("found") else "no",
             "pass" if c.get("passed") else "**FAIL**", _md(c.get("note") or "")]
            for c in controls]
    out += _md_table(["control", "kind", "source", "contained → container", "score",
                      "expected", "found", "result", "note"], rows)
    return [*out, ""]


def _md_params(report: dict[str, Any]) -> list[str]:
    rows = [[label, _cell_code(v) if mono else _md(v)] for label, v, mono in _params_rows(report)]
    return ["## Parameters", "", *_md_table(["parameter", "value"], rows), ""]


def _md_rest(report: dict[str, Any]) -> list[str]:
    """The sections only an OK report has, after parameters and controls."""
    out = [f"## Not auditable ({_count(len(report.get('not_auditable') or []))})", ""]
    na = report.get("not_auditable") or []
    out += _md_table(["doc", "path", "words", "reason"],
                     [[_md(d.get("doc_id")), _cell_code(_name(report, d.get("doc_id"))),
                       _count(d.get("n_words", "")), _md(d.get("reason"))] for d in na[:LIST_ROWS]]
                     ) if na else ["None."]
    if len(na) > LIST_ROWS:
        out += ["", _more(LIST_ROWS, len(na), "documents not auditable")]
    partly = unread_rows(report)
    if partly:  # only a report that has some: the reports of text corpora are as before
        out += ["", f"## Audited in part ({_count(len(partly))})", "",
                "These documents were audited on the pages that could be read; the pages below were not, "
                "so nothing is said of what they hold.", ""]
        out += _md_table(["doc", "path", "pages", "pages not read", "share", "why"],
                         [[_md(d), _cell_code(_name(report, d)), _count(n if n is not None else ""), _md(pages),
                           _md(share), _md(why)] for d, n, pages, share, why in partly[:LIST_ROWS]])
        if len(partly) > LIST_ROWS:
            out += ["", _more(LIST_ROWS, len(partly), "documents audited in part")]
    out += ["", "## Exact-duplicate groups", ""]
    groups = report.get("duplicate_groups") or []
    if not groups:
        out.append("None.")
    for n, group in enumerate(groups[:LIST_ROWS], 1):
        out.append(f"{n}. Identical normalized text ({len(group)} documents; the first is audited): "
                   + ", ".join(_code(_name(report, m)) for m in group[:NAMES_PER_FAMILY])
                   + (f" and {len(group) - NAMES_PER_FAMILY} more" if len(group) > NAMES_PER_FAMILY else ""))
    below = report.get("below_threshold") or {}
    nearest = below.get("nearest") or []
    out += ["", f"## Verified below the threshold ({_n(below.get('pairs', 0), 'pair')})", ""]
    if nearest:
        out += [f"The {len(nearest)} nearest misses, closest first:", ""]
    out += _md_table(["contained", "container", "exact", "estimate [95% interval]"],
                     [[_cell_code(_name(report, b["contained"])), _cell_code(_name(report, b["container"])),
                       _f4(b.get("containment")),
                       f"{_f4(b.get('estimate'))} [{_f4(b['interval'][0])}, {_f4(b['interval'][1])}]"]
                      for b in nearest]) if nearest else ["None."]
    out += ["", "## Failed and skipped inputs", ""]
    failed = report.get("failed_inputs") or []
    out += _md_table(["path", "part", "status", "code", "message"],
                     [[_cell_code(x.get("path")), _md(x.get("part") or "", prose=False),
                       _md(x.get("status")), _cell_code(x.get("code")), _md(x.get("message") or "")]
                      for x in failed[:LIST_ROWS]]) if failed else ["None."]
    if len(failed) > LIST_ROWS:
        out += ["", f"{_count(len(failed) - LIST_ROWS)} more in report.json."]
    return [*out, "", *_md_distribution(report)]


def _md_gate(g: dict[str, Any]) -> list[str]:
    out = [f"# CI gate: **{_md(g.get('status'))}**", "", f"{_md(_gate_headline(g))}.", "", "## Gate verdict", ""]
    kinds = sorted((g.get("by_kind") or {}).items())
    if kinds:
        out += _md_table(["kind", "failing", "warnings", "baselined"],
                         [[_md(k), str(v.get("error", 0)), str(v.get("warning", 0)), str(v.get("baselined", 0))]
                          for k, v in kinds])
        out.append("")
    else:
        out += ["No finding.", ""]
    rows = _gate_rows(g)
    if rows:
        out += ["### Findings", ""]
        out += _md_table(["level", "kind", "new document", "other document", "containment", "reading"],
                         [[_md(a), _md(b), _cell_code(c), _cell_code(d) if d else "", _md(e),
                           _cell_code(f) if f else ""] for a, b, c, d, e, f in rows])
        out.append("")
    out += [f"- refused: {_md(r)}" for r in g.get("refused_because") or []] + [""]
    out += ["The audit below covers the pairs that involve a new document; the gate's findings above "
            "are what it decided from them (one per new document, kind and direction), with --fail-on "
            "and the baseline applied.", "", "# The audit behind the gate", ""]
    return out


def markdown(report: dict[str, Any]) -> str:
    """``report.md``: the audit for people, readable raw or rendered. Verdict and overview first."""
    refused = _refused(report)
    status = f"**{_md(report.get('status') or 'REFUSED')}**" if refused else "OK"
    g = _gate(report)
    out = [f"# Containment audit: {status}", ""] if g is None else _md_gate(g)
    if refused:
        out += ["> **REFUSED:** this audit reports no findings, because:", ">"]
        out += [f"> - {_md(r)}" for r in report.get("refused_because") or ["no reason given"]]
        out.append("")
    else:
        out += [f"**Status: OK.** {_md(_headline(report))}.", ""]
    out += [f"Report digest {_cell_code(report.get('digest'))}", ""]
    if not refused:
        threshold = ((report.get("manifest") or {}).get("params") or {}).get("threshold")
        out += _md_overview(report)
        findings = report.get("findings") or []
        shown = findings[:DETAIL_LIMIT]
        out += [f"## Contained documents in detail ({_count(len(shown))} of {_count(_total(report, 'findings'))})", ""]
        if not findings:
            out += ["None.", ""]
        for i, f in enumerate(shown, 1):
            out += _md_detail(report, i, f, threshold)
        out += _md_boilerplate(report)
        out += _md_families(report)
        out += _md_rest(report)
        out += ["## Summary", "", *[f"- {label}: {_md(_count(v))}" for label, v in _summary_items(report)], ""]
        out += _md_params(report)
        out += _md_controls(report)
    else:  # the controls are why: they come first
        out += _md_controls(report)
        out += _md_params(report)
    run = report.get("run") or {}
    out += ["## Run", ""]
    out += [f"- {label}: {_code(v)}" for label, v in _run_rows(run)] or ["No run information."]
    return "\n".join(out).rstrip("\n") + "\n"
