"""``report.html``: one self-contained HTML page (no script, nothing fetched) whose
Content-Security-Policy admits exactly its one inline style block, by hash.

Text from the report goes into ``html.escape``d text nodes only; links point to anchors in the
page, the texts beside the report and the source files, relative to the report's directory and
percent-encoded, so no name can become a scheme. At phone width the tables become cards.
"""

from __future__ import annotations

import base64
import hashlib
import html as _html
import math
import re
from collections.abc import Callable, Iterable
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
    _gate_failed,
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
    _threshold,
    _threshold_value,
    _total,
    _verdict,
    _visible,
    _visible_text,
    _where,
    unread_rows,
)

_CSS = """
:root{--ink:#1d232b;--muted:#5b6470;--line:#d5dae0;--ok:#1f6f43;--bad:#a61b1b;--accent:#2f5d8a}
*{box-sizing:border-box}
body{margin:0 auto;max-width:72rem;padding:1.5rem;color:var(--ink);background:#fff;
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:1.6rem;margin:0}
h2{font-size:1.25rem;margin:2rem 0 .6rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
h3{font-size:1.05rem;margin:1.4rem 0 .4rem}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em}
code,.mono{overflow-wrap:anywhere}
.banner{padding:1rem 1.2rem;border-radius:6px;margin-bottom:1rem;color:#fff}
.banner.ok{background:var(--ok)}
.banner.refused{background:var(--bad)}
.banner p{margin:.4rem 0 0}
.banner ul{margin:.4rem 0 0;padding-left:1.3rem}
.banner strong{letter-spacing:.06em}
nav{font-size:.9rem;color:var(--muted)}
nav a{color:var(--accent);margin-right:.9rem}
.scroll{overflow-x:auto;margin:.4rem 0 1rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f5f7;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.kv th{width:12rem}
.pass{color:var(--ok);font-weight:600}
.fail{color:#fff;background:var(--bad);font-weight:700;padding:0 .3rem;border-radius:3px}
.muted{color:var(--muted)}
.controls-line{font-family:ui-monospace,Menlo,Consolas,monospace;background:#f3f5f7;padding:.4rem .6rem;border-radius:4px}
article{border:1px solid var(--line);border-radius:6px;padding:.2rem 1rem .8rem;margin:1rem 0}
blockquote{margin:.4rem 0;border-left:4px solid var(--line);padding:.1rem .8rem;background:#fafbfc}
blockquote pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.4rem 0}
ul.plain{margin:0;padding-left:1.1rem}
figure{margin:.5rem 0}
figcaption{font-size:.85rem;color:var(--muted)}
svg.hist{width:100%;max-width:44rem;height:auto;font-family:system-ui,sans-serif}
.hist .bar{fill:#8aa4c2}
.hist .bar.above{fill:var(--accent)}
.hist .axis{stroke:var(--ink);stroke-width:1}
.hist .grid{stroke:var(--line);stroke-width:1}
.hist .tick,.hist .count{font-size:11px;fill:var(--ink)}
.hist .label{font-size:12px;fill:var(--muted)}
.hist .threshold{stroke:var(--bad);stroke-width:2;stroke-dasharray:5 3}
.hist .threshold-label{font-size:12px;fill:var(--bad);font-weight:600}
.hist .mid{text-anchor:middle}
.hist .end{text-anchor:end}
a{color:var(--accent)}
.prov{display:block;font-size:.8rem;color:var(--muted)}
.links{font-size:.85rem}
table.sbs{table-layout:fixed}
table.sbs th,table.sbs td{width:50%}
table.sbs .txt{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.88rem;line-height:1.45}
.at{display:block;font-size:.75rem;color:var(--muted);margin-bottom:.15rem}
tr.skip td{color:var(--muted);text-align:center;background:#f7f8fa;font-style:italic;font-size:.85rem}
del{background:#fbe0e0;color:#7a1010;text-decoration:line-through}
ins{background:#d9f2df;color:#0f4a24;text-decoration:underline}
del.chg,ins.chg{background:#ffedb8;color:#5c3d00}
.elided{color:var(--muted);font-style:italic}
p.legend{font-size:.85rem}
@media (max-width:40rem){body{padding:.8rem;font-size:14px}th,td{padding:.25rem .35rem}
table.kv,table.kv tbody,table.kv tr,table.kv th,table.kv td{display:block;width:auto}
table.kv tr{border-bottom:1px solid var(--line)}table.kv th,table.kv td{border:none}table.kv th{background:none;padding-bottom:0}
table.stack,table.stack tbody,table.stack td{display:block;width:auto}
table.stack thead{display:none}
table.stack tr{display:flex;flex-wrap:wrap;border:1px solid var(--line);border-radius:4px;margin:0 0 .6rem}
table.stack td{flex:1 1 100%;border:none;border-bottom:1px solid #eef0f3;text-align:left;min-width:0}
table.stack td.num,table.stack td.short{flex:0 0 auto;order:-1;text-align:left;border-bottom:none}
table.stack td::before{content:attr(data-label);display:block;font-size:.72rem;font-weight:600;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
table.stack tr.skip td::before{content:none}
.scroll{overflow-x:visible}}
@media print{body{max-width:none;padding:0}.banner{print-color-adjust:exact;-webkit-print-color-adjust:exact}nav{display:none}
del,ins{print-color-adjust:exact;-webkit-print-color-adjust:exact}}
"""

_STYLE_HASH = "sha256-" + base64.b64encode(hashlib.sha256(_CSS.encode("utf-8")).digest()).decode("ascii")
_CSP = (f"default-src 'none'; style-src '{_STYLE_HASH}'; img-src data:; "
       "base-uri 'none'; form-action 'none'")


def _h(value: Any) -> str:
    return _html.escape(_visible(value), quote=True)


def _h_prose(value: Any) -> str:
    return _html.escape(_oneline(value), quote=True)


def _hcode(value: Any) -> str:
    return f"<code>{_h(value)}</code>"


def _table(header: list[str], rows: list[list[str]], numeric: Iterable[int] = (),
           short: Iterable[int] = ()) -> str:
    """Cells are HTML already escaped by the caller; headers are plain text. ``numeric`` columns
    align right. At phone width each row becomes a card, each cell labelled by its header: the
    numeric and ``short`` cells side by side at its top, the others below, full width."""
    num, brief = set(numeric), set(short)
    labels = [_html.escape(h, quote=True) for h in header]
    head = "".join(f"<th>{h}</th>" for h in labels)
    cls = {**{i: ' class="short"' for i in brief}, **{i: ' class="num"' for i in num}}
    body = "".join(
        "<tr>" + "".join(f'<td{cls.get(i, "")} data-label="{labels[i]}">{c}</td>'
                         for i, c in enumerate(r)) + "</tr>\n" for r in rows)
    return (f'<div class="scroll"><table class="stack">\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
            f"{body}</tbody>\n</table></div>\n")


def _kv(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>\n" for k, v in rows)
    return f'<div class="scroll"><table class="kv">\n<tbody>\n{body}</tbody>\n</table></div>\n'


def _section(ident: str, title: str, body: str) -> str:
    return f'<section id="{ident}">\n<h2>{title}</h2>\n{body}</section>\n'


def _banner(report: dict[str, Any]) -> str:
    g = _gate(report)
    if g is not None:
        cls = "refused" if _gate_failed(g) else "ok"
        return (f'<header class="banner {cls}"><h1>CI gate: <strong>{_h(g.get("status"))}</strong></h1>'
                f"<p>{_h_prose(_gate_headline(g))}.</p></header>\n")
    if not _refused(report):
        return (f'<header class="banner ok"><h1>Containment audit: OK</h1>'
                f"<p>{_h_prose(_headline(report))}.</p></header>\n")
    reasons = "".join(f"<li>{_h_prose(r)}</li>"
                      for r in report.get("refused_because") or ["no reason given"])
    return ('<header class="banner refused"><h1>Containment audit: '
            f"<strong>{_h(report.get('status') or 'REFUSED')}</strong></h1>"
            f"<p>{_h_prose(_headline(report))}:</p><ul>{reasons}</ul></header>\n")


def _html_gate(report: dict[str, Any]) -> str:
    g = _gate(report)
    if g is None:
        return ""
    kinds = [[_h(k), _h(v.get("error", 0)), _h(v.get("warning", 0)), _h(v.get("baselined", 0))]
             for k, v in sorted((g.get("by_kind") or {}).items())]
    body = _table(["kind", "failing", "warnings", "baselined"], kinds, numeric=(1, 2, 3)) if kinds else \
        "<p>No finding.</p>\n"
    rows = [[_h(a), _h(b), _hcode(c), _hcode(d) if d else "", _h(e), _hcode(f) if f else ""]
            for a, b, c, d, e, f in _gate_rows(g)]
    if rows:
        body += "<h3>Findings</h3>\n" + _table(["level", "kind", "new document", "other document",
                                                 "containment", "reading"], rows, numeric=(4,))
    docs = [[_hcode(d.get("path")), _h(d.get("status")), _h_prose(d.get("reason") or "")]
            for d in g.get("documents") or []]
    if docs:
        body += "<h3>New documents</h3>\n" + _table(["document", "status", "reason"], docs)
    for r in g.get("refused_because") or []:
        body += f"<p>Refused: {_h_prose(r)}</p>\n"
    body += ("<p>The audit below covers the pairs that involve a new document; the gate's findings "
             "above are what it decided from them (one per new document, kind and direction), with "
             "--fail-on and the baseline applied.</p>\n")
    return _section("gate", "Gate verdict", body)


def _nav(report: dict[str, Any]) -> str:
    links = [("gate", "Gate verdict")] if _gate(report) is not None else []
    if not _refused(report):
        links += [("contained", f"Contained ({_count(_total(report, 'findings'))})"),
                  ("details", "Details"),
                  ("boilerplate", f"Boilerplate ({_count(_total(report, 'boilerplate'))})"),
                  ("families", f"Families ({_count(len(report.get('families') or []))})"),
                  ("not-auditable", "Not auditable"),
                  *([("partly-read", "Audited in part")] if report.get("partly_read") else []),
                  ("duplicates", "Duplicates"),
                  ("borderline", "Below threshold"), ("failed", "Failed inputs"),
                  ("distribution", "Score distribution"), ("summary", "Summary")]
    links += [("parameters", "Parameters"), ("controls", "Controls")] if not _refused(report) else [
        ("controls", "Controls"), ("parameters", "Parameters")]
    links.append(("run", "Run"))
    return "<nav>" + "".join(f'<a href="#{i}">{t}</a>' for i, t in links) + "</nav>\n"


def _html_params(report: dict[str, Any]) -> str:
    rows = [(_html.escape(label), _hcode(v) if mono else _h(v))
            for label, v, mono in _params_rows(report)]
    return _section("parameters", "Parameters", _kv(rows))


def _html_controls(report: dict[str, Any]) -> str:
    controls = report.get("controls") or []
    if not controls:
        return _section("controls", "Controls", "<p>No control could be run.</p>\n")
    rows = [[_h(c.get("name")), _h(c.get("kind")), _h(c.get("source")),
             f"{_hcode(c.get('contained'))} → {_hcode(c.get('container'))}",
             _f4(c.get("score")), _h(_bound(c)), "yes" if c.get("found") else "no",
             '<span class="pass">pass</span>' if c.get("passed") else '<span class="fail">FAIL</span>',
             _h_prose(c.get("note") or "")] for c in controls]
    table = _table(["control", "kind", "source", "contained → container", "score", "expected",
                    "found", "result", "note"], rows, numeric=(4,), short=(0, 1, 2, 5, 6, 7))
    line = f'<p class="controls-line">{_h(_controls_line(report))}</p>\n'
    return _section("controls", "Controls", line + table)


def _html_link(inner: str, href: str | None) -> str:
    """``inner`` (HTML) linked to ``href`` (percent-encoded by ``_source_href``), if any."""
    return f'<a href="{_html.escape(href, quote=True)}">{inner}</a>' if href else inner


def _html_named(report: dict[str, Any], doc_id: Any) -> str:
    """A document in a table cell: its name linked to its source file, its provenance below."""
    return (_html_link(_hcode(_name(report, doc_id)), _source_href(report, doc_id))
            + f'<span class="prov">{_h(_provenance(report, doc_id))}</span>')


def _html_doc(report: dict[str, Any], doc_id: Any) -> str:
    d = _doc(report, doc_id)
    links = [_html_link("extracted text", _text_href(report, doc_id))] if _text_href(report, doc_id) else []
    lines = [f"{_html_link(_hcode(d.get('path')), _source_href(report, doc_id))} "
             f'<span class="muted">doc {_h(d.get("doc_id"))}</span>'
             + (f' <span class="links">({", ".join(links)})</span>' if links else ""),
             f'<span class="muted">sha256 <span class="mono">{_h(_sha(d))}</span>, '
             f"{_h(_doc_facts(d))}</span>"]
    if d.get("edgar"):
        e = d["edgar"]
        lines.append(f"{_h(_edgar_submission(e))}; {_h(_edgar_part(e))}")
        if e.get("submission_path"):
            lines.append(f"submission file {_hcode(e['submission_path'])}")
    if d.get("also_seen_at"):
        seen = d["also_seen_at"]
        lines.append("also seen at: " + ", ".join(_hcode(x) for x in seen[:10])
                     + (f" and {len(seen) - 10} more" if len(seen) > 10 else ""))
    return "<br>\n".join(lines)


def _more_html(shown: int, total: int, what: str, *where: str) -> str:
    text = _more(shown, total, what, *where)
    return f'<p class="muted">{_h(text)}.</p>\n' if text else ""


def _html_overview(report: dict[str, Any]) -> str:
    findings = report.get("findings") or []
    if not _total(report, "findings"):
        return _section("contained", "Contained documents (0)",
                        "<p>No document is contained in another (outside families and boilerplate).</p>\n")
    rows = []
    for i, f in enumerate(findings[:OVERVIEW_ROWS], 1):
        best = (f.get("best") or [{}])[0]
        link = f'<a href="#doc-{i}">{i}</a>' if i <= DETAIL_LIMIT else str(i)
        rows.append([link, _html_named(report, f.get("doc_id")), _html_named(report, best.get("container")),
                     _f4(best.get("containment")), _h(_where(report, best)), _count(f.get("containers"))])
    body = ("<p>Each contained document once, with its best container; every containing pair is in "
            "<code>findings.jsonl.gz</code>.</p>\n"
            + _table(["#", "contained document", "best container", "containment", "where", "containers"],
                     rows, numeric=(0, 3, 5))
            + _more_html(min(len(findings), OVERVIEW_ROWS), _total(report, "findings"), "contained documents",
                         CONTAINED_FILE))
    return _section("contained", f"Contained documents ({_count(_total(report, 'findings'))})", body)


def _html_boilerplate(report: dict[str, Any]) -> str:
    bp = report.get("boilerplate") or []
    rule = ((report.get("manifest") or {}).get("params") or {}).get("boilerplate") or {}
    if not _total(report, "boilerplate"):
        return _section("boilerplate", "Boilerplate (0)", "<p>None.</p>\n")
    rows = [[_html_named(report, e.get("doc_id")), _count(e.get("containers")),
             f"{100 * float(e.get('share') or 0):.1f}%",
             _html_named(report, (e.get("best") or [{}])[0].get("container")),
             _f4((e.get("best") or [{}])[0].get("containment"))] for e in bp[:LIST_ROWS]]
    body = (f"<p>Documents contained in at least {_h(_count(rule.get('applied', '?')))} unrelated documents (notices, "
            "certifications, standard terms; containers that are versions or variants of one another count "
            "once), each listed once with one container.</p>\n"
            + _table(["document", "containers", "of audited", "best container", "containment"], rows,
                     numeric=(1, 2, 4))
            + _more_html(min(len(bp), LIST_ROWS), _total(report, "boilerplate"), "boilerplate documents",
                         CONTAINED_FILE))
    return _section("boilerplate", f"Boilerplate ({_count(_total(report, 'boilerplate'))})", body)


def _html_families(report: dict[str, Any]) -> str:
    fams = report.get("families") or []
    if not fams:
        return _section("families", "Families (0)", "<p>None.</p>\n")
    rows = []
    for f in fams[:LIST_ROWS]:
        members = f.get("members") or []
        low, high = (f.get("containment_range") or [None, None])[:2]
        names = ", ".join(_hcode(_name(report, m)) for m in members[:NAMES_PER_FAMILY])
        if len(members) > NAMES_PER_FAMILY:
            names += f" and {len(members) - NAMES_PER_FAMILY} more"
        rows.append([_h(f.get("id")), _count(len(members)), f"{_f4(low)} to {_f4(high)}", names])
    body = ("<p>Documents that contain one another (both ways at the threshold), reported once.</p>\n"
            + _table(["family", "members", "containment", "documents"], rows, numeric=(1,), short=(0, 2))
            + _more_html(min(len(fams), LIST_ROWS), len(fams), "families"))
    return _section("families", f"Families ({_count(len(fams))})", body)


_HTML_MARK = {"deleted": ("<del>", "</del>"), "inserted": ("<ins>", "</ins>"),
              "changed": ('<del class="chg">', "</del>")}
_HTML_MARK_RIGHT = {**_HTML_MARK, "changed": ('<ins class="chg">', "</ins>")}


def _html_side(pieces: list[list[Any]], side: int) -> str:
    """One side of a hunk, verbatim (line breaks kept), with its differences marked."""
    marks = _HTML_MARK if side == 1 else _HTML_MARK_RIGHT
    out = []
    for piece in pieces:
        kind, text = piece[0], piece[side]
        if kind == "elided":
            out.append(f' <span class="elided">[… {_count(text)} words …]</span> ' if text else "")
        elif kind == "between":
            out.append(f' <span class="elided">[… {_between_text(text)} …]</span> ' if side == 2 else "")
        elif kind in marks and text:  # marked line by line: indentation and line breaks stay plain
            for part in _LINE_BREAKS.split(_visible_text(text)):
                body = _html.escape(part, quote=True)
                out.append(body if not part or _LINE_BREAKS.fullmatch(part) else marks[kind][0] + body + marks[kind][1])
        elif text:
            out.append(_html.escape(_visible_text(text), quote=True))
    return "".join(out)


_LINE_BREAKS = re.compile(r"([ \t]*\n\s*)")


def _html_alignment(report: dict[str, Any], f: dict[str, Any], best: dict[str, Any]) -> str:
    """The contained document beside the matching span of its best container, word by word."""
    al = best.get("alignment")
    if not al:
        return ""
    texts = [_html_link(what, _text_href(report, doc)) for what, doc in
             (("contained document", f.get("doc_id")), ("container", best.get("container")))
             if _text_href(report, doc)]
    out = (f'<h4>Side by side with container 1</h4>\n<p class="muted">Aligned {_h(_alignment_summary(al))}.'
           + (f" Full texts: {', '.join(texts)} (offsets are characters into them)." if texts else "")
           + "</p>\n")
    hunks = al.get("hunks") or []
    if not hunks:
        return out
    out += ('<p class="legend"><del>struck</del>: only in the contained document; <ins>underlined</ins>: only '
            'in the container; <del class="chg">changed</del> → <ins class="chg">changed</ins>: the contained '
            "document's words replaced by the container's.</p>\n")
    rows = []

    def skip(n: int) -> None:
        rows.append(f'<tr class="skip"><td colspan="2">{_h(_skip_text(n))}</td></tr>\n')

    for h in hunks:
        if h.get("skipped"):
            skip(h["skipped"])
        a, b = h.get("a") or [0, 0], h.get("b") or [0, 0]
        pieces = h.get("pieces") or []
        rows.append(
            f'<tr><td data-label="contained document"><span class="at">characters {a[0]}-{a[1]}</span>'
            f'<div class="txt">{_html_side(pieces, 1)}</div></td>'
            f'<td data-label="container"><span class="at">characters {b[0]}-{b[1]}</span>'
            f'<div class="txt">{_html_side(pieces, 2)}</div></td></tr>\n')
    if al.get("skipped_after"):
        skip(al["skipped_after"])
    if al.get("hunks_total", 0) > len(hunks):
        rows.append(f'<tr class="skip"><td colspan="2">{_h(_more_regions(al))}</td></tr>\n')
    return (out + '<div class="scroll"><table class="sbs stack">\n<thead><tr><th>contained document</th>'
            "<th>container</th></tr></thead>\n<tbody>\n" + "".join(rows) + "</tbody>\n</table></div>\n")


def _html_detail(report: dict[str, Any], i: int, f: dict[str, Any], threshold: Any) -> str:
    rows = [("Contained", _html_doc(report, f.get("doc_id")))]
    if f.get("family") is not None:
        rows.append(("Family", f"{_h(f['family'])} (documents that contain one another)"))
    rows.append(("Contained in", _h(_n(f.get("containers"), "document"))))
    extra = ""
    for n, best in enumerate(f.get("best") or [], 1):
        spans = best.get("spans") or []
        locs = ("<ol>" + "".join(f"<li>{_h(_span_text(sp))}</li>" for sp in spans) + "</ol>"
                if spans else "none recorded")
        rows.append((f"Container {n}", _html_doc(report, best.get("container"))
                     + f"<br>\n<strong>{_f4(best.get('containment'))}</strong>, "
                       f"{_h(_verdict(best.get('containment'), threshold))}, exact over all shingles; "
                       f"sampled estimate {_h(_estimate_text(best))}<br>\nlocations: {locs}"))
        extra += "".join(
            f'<p class="muted">Excerpt of container {n} at its main location:</p>\n'
            f"<blockquote><pre>{_html.escape(_visible_text(sp['excerpt']), quote=True)}</pre></blockquote>\n"
            for sp in spans if sp.get("excerpt"))
        extra += _html_alignment(report, f, best)
    others = f.get("others") or []
    if others:
        rows.append(("Also contained in", ", ".join(
            _hcode(_name(report, o)) if str(o) in (report.get("documents") or {}) else f"doc {_h(o)}"
            for o in others[:20]) + (f" and {len(others) - 20} more" if len(others) > 20 else "")))
    title = f"{i}. {_h(_name(report, f.get('doc_id')))}"
    return f'<article id="doc-{i}">\n<h3>{title}</h3>\n{_kv(rows)}{extra}</article>\n'


def _html_details(report: dict[str, Any]) -> str:
    findings = report.get("findings") or []
    threshold = ((report.get("manifest") or {}).get("params") or {}).get("threshold")
    shown = findings[:DETAIL_LIMIT]
    body = "".join(_html_detail(report, i, f, threshold) for i, f in enumerate(shown, 1))
    return _section("details", f"Contained documents in detail ({_count(len(shown))} of "
                               f"{_count(_total(report, 'findings'))})", body or "<p>None.</p>\n")


def _html_rest(report: dict[str, Any]) -> str:
    """Everything after the details, each as its own section."""
    na = report.get("not_auditable") or []
    na_html = (_table(["doc", "path", "words", "reason"],
                      [[_h(d.get("doc_id")), _hcode(_name(report, d.get("doc_id"))), _count(d.get("n_words", "")),
                        _h_prose(d.get("reason"))] for d in na[:LIST_ROWS]], numeric=(2,), short=(0,))
               + _more_html(min(len(na), LIST_ROWS), len(na), "documents not auditable")) if na else "<p>None.</p>\n"
    partly = unread_rows(report)
    partly_html = _section("partly-read", f"Audited in part ({_count(len(partly))})", (
        "<p>These documents were audited on the pages that could be read; the pages below were not, "
        "so nothing is said of what they hold.</p>\n"
        + _table(["doc", "path", "pages", "pages not read", "share", "why"],
                 [[_h(d), _hcode(_name(report, d)), _count(n if n is not None else ""), _h(pages), _h(share),
                   _h_prose(why)] for d, n, pages, share, why in partly[:LIST_ROWS]], numeric=(2, 4), short=(0,))
        + _more_html(min(len(partly), LIST_ROWS), len(partly), "documents audited in part"))) if partly else ""
    groups = report.get("duplicate_groups") or []
    dup_html = "".join(
        f"<p>Group {n}: identical normalized text ({len(g)} documents; the first is audited): "
        + ", ".join(_hcode(_name(report, m)) for m in g[:NAMES_PER_FAMILY])
        + (f" and {len(g) - NAMES_PER_FAMILY} more" if len(g) > NAMES_PER_FAMILY else "") + "</p>\n"
        for n, g in enumerate(groups[:LIST_ROWS], 1)) or "<p>None.</p>\n"
    below = report.get("below_threshold") or {}
    nearest = below.get("nearest") or []
    below_html = (f"<p>{_h(_n(below.get('pairs', 0), 'pair'))} were verified exactly and found below the "
                  f"threshold; the {len(nearest)} nearest misses, closest first:</p>\n"
                  + _table(["contained", "container", "exact", "estimate [95% interval]"],
                           [[_hcode(_name(report, b["contained"])), _hcode(_name(report, b["container"])),
                             _h(_f4(b.get("containment"))),
                             _h(f"{_f4(b.get('estimate'))} [{_f4(b['interval'][0])}, {_f4(b['interval'][1])}]")]
                            for b in nearest], numeric=(2,), short=(3,))) if nearest else "<p>None.</p>\n"
    failed = report.get("failed_inputs") or []
    failed_html = _table(["path", "part", "status", "code", "message"],
                         [[_hcode(x.get("path")), _h(x.get("part") or ""), _h(x.get("status")),
                           _hcode(x.get("code")), _h_prose(x.get("message") or "")] for x in failed[:LIST_ROWS]],
                         short=(1, 2, 3)) if failed else "<p>None.</p>\n"
    return (_section("not-auditable", f"Not auditable ({_count(len(na))})", na_html) + partly_html
            + _section("duplicates", "Exact-duplicate groups", dup_html)
            + _section("borderline", "Verified below the threshold", below_html)
            + _section("failed", "Failed and skipped inputs", failed_html)
            + _section("distribution", "Score distribution", _html_distribution(report)))


def _html_summary(report: dict[str, Any]) -> str:
    rows = [(_html.escape(label), _h(_count(v))) for label, v in _summary_items(report)]
    return _section("summary", "Summary", _kv(rows) if rows else "<p>No summary.</p>\n")


def _html_distribution(report: dict[str, Any]) -> str:
    dist = report.get("score_distribution") or {}
    pairs = dist.get("pairs", sum(c for *_, c in _bins(report)))
    caption = (f"<figcaption>Containment of the {_h(_count(pairs))} candidate pairs, "
               f"{len(_bins(report))} bins over [0, 1]; the vertical axis is logarithmic "
               "(log(1 + pairs)), and each non-empty bar is labelled with its count.</figcaption>")
    return f"<figure>\n{_svg_histogram(report)}{caption}\n</figure>\n"


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def _svg_histogram(report: dict[str, Any]) -> str:
    """Inline SVG of ``score_distribution`` with the threshold marked; no script, no links.

    The scale is log(1 + count) so one huge bin near 0 does not flatten the bins that matter.
    """
    width, height, left, right, top, bottom = 640, 290, 64, 20, 40, 52
    pw, ph = width - left - right, height - top - bottom
    bins = _bins(report)
    peak = max((c for *_, c in bins), default=0)

    def y(count: float) -> float:
        return top + ph - (ph * math.log1p(count) / math.log1p(peak) if peak else 0.0)

    def x(score: float) -> float:
        return left + pw * score

    t = _threshold_value(report)
    parts = [f'<svg class="hist" viewBox="0 0 {width} {height}" role="img" '
             f'aria-labelledby="hist-title">',
             f'<title id="hist-title">Histogram of containment scores of candidate pairs'
             f"{'' if t is None else f', threshold {_threshold(t)}'}</title>"]
    for v in _y_ticks(peak):
        parts.append(f'<line class="grid" x1="{_fmt(left)}" x2="{_fmt(left + pw)}" '
                     f'y1="{_fmt(y(v))}" y2="{_fmt(y(v))}"/>')
        parts.append(f'<text class="tick end" x="{_fmt(left - 6)}" y="{_fmt(y(v) + 4)}">{v:,}</text>')
    for a, b, c in bins:
        if not c:
            continue
        cls = "bar above" if t is not None and a >= t else "bar"
        parts.append(f'<rect class="{cls}" x="{_fmt(x(a) + 1)}" y="{_fmt(y(c))}" '
                     f'width="{_fmt(max(1.0, x(b) - x(a) - 2))}" height="{_fmt(top + ph - y(c))}"/>')
        parts.append(f'<text class="count mid" x="{_fmt((x(a) + x(b)) / 2)}" '
                     f'y="{_fmt(y(c) - 4)}">{c:,}</text>')
    for i in range(11):
        s = i / 10
        parts.append(f'<line class="axis" x1="{_fmt(x(s))}" x2="{_fmt(x(s))}" '
                     f'y1="{_fmt(top + ph)}" y2="{_fmt(top + ph + 5)}"/>')
        parts.append(f'<text class="tick mid" x="{_fmt(x(s))}" y="{_fmt(top + ph + 18)}">{s:.1f}</text>')
    parts += [
        f'<line class="axis" x1="{_fmt(left)}" x2="{_fmt(left + pw)}" y1="{_fmt(top + ph)}" y2="{_fmt(top + ph)}"/>',
        f'<line class="axis" x1="{_fmt(left)}" x2="{_fmt(left)}" y1="{_fmt(top)}" y2="{_fmt(top + ph)}"/>',
        f'<text class="label mid" x="{_fmt(left + pw / 2)}" y="{_fmt(height - 10)}">'
        "containment score (share of a document's shingles found in the other)</text>",
        f'<text class="label mid" transform="rotate(-90)" x="{_fmt(-(top + ph / 2))}" y="16">'
        "candidate pairs (log scale)</text>",
    ]
    if not peak:
        parts.append(f'<text class="label mid" x="{_fmt(left + pw / 2)}" y="{_fmt(top + ph / 2)}">'
                     "no candidate pairs</text>")
    if t is not None:
        cls, dx = ("threshold-label end", -6) if t > 0.8 else ("threshold-label", 6)
        parts += [
            f'<line class="threshold" x1="{_fmt(x(t))}" x2="{_fmt(x(t))}" '
            f'y1="{_fmt(top - 24)}" y2="{_fmt(top + ph)}"/>',
            f'<text class="{cls}" x="{_fmt(x(t) + dx)}" y="{_fmt(top - 14)}">'
            f"threshold {_threshold(t)}</text>",
        ]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _y_ticks(peak: int) -> list[int]:
    """0 and the powers of ten up to the peak, plus the peak when it is far enough from them."""
    if peak <= 0:
        return [0]
    ticks = [0] + [10**i for i in range(int(math.log10(peak)) + 1)]
    last = ticks[-1]
    if peak != last and math.log1p(peak) - math.log1p(last) > 0.12 * math.log1p(peak):
        ticks.append(peak)
    return ticks


def _html_run(report: dict[str, Any]) -> str:
    rows = [(_html.escape(label), _hcode(v)) for label, v in _run_rows(report.get("run") or {})]
    return _section("run", "Run", _kv(rows) if rows else "<p>No run information.</p>\n")


def html(report: dict[str, Any]) -> str:
    """``report.html``: one self-contained page, no script, nothing fetched, CSP by style hash."""
    refused = _refused(report)
    status = _h(report.get("status") or "REFUSED")
    g = _gate(report)
    title = f"CI gate: {_h(g.get('status'))}" if g is not None else f"Containment audit: {status}"
    sections: list[Callable[[dict[str, Any]], str]] = []
    if not refused:
        sections += [_html_overview, _html_details, _html_boilerplate, _html_families, _html_rest,
                     _html_summary, _html_params, _html_controls]
    else:  # the controls are why: they come first
        sections += [_html_controls, _html_params]
    sections.append(_html_run)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n"
        + _banner(report) + _nav(report) + _html_gate(report)
        + "".join(section(report) for section in sections)
        + "</body>\n</html>\n"
    )
