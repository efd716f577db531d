"""The report model both renderings read: documents, provenance, spans, verdicts, parameters and
run facts taken from a ``report.json`` dict, as plain text (each renderer escapes it).

Everything that came from the corpus or the machine is hostile: control, format and bidi
characters are shown as ``⟨U+XXXX⟩`` (``_visible``). Names with a leading underscore are private
to :mod:`auditor.report.render`.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
import urllib.parse
from typing import Any

SHA_PREFIX = 12

#: The renderer's version, recorded in every report (``renderer``): ``verify`` renders a report
#: again and compares it byte for byte, so a change to what the renderer writes is a new version.
RENDERER = 1

# --------------------------------------------------------------------------------------------
# Plain-text pieces shared by both renderings (escaped afterwards by each renderer)
# --------------------------------------------------------------------------------------------

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def _mark(ch: str) -> str:
    return f"⟨U+{ord(ch):04X}⟩"


def _visible(value: Any) -> str:
    """One-line text with every invisible or reordering character made visible.

    A file name with a newline, an escape sequence or a right-to-left override must neither
    break the layout nor look like a different name.
    """
    s = str(value)
    if s.isprintable():
        return s
    return "".join(_mark(c) if unicodedata.category(c) in _HIDDEN else c for c in s)


def _visible_text(value: Any) -> str:
    """Multi-line document text: keeps newlines and tabs (and soft hyphens, joiners)."""
    s = str(value).replace("\r\n", "\n")

    def hidden(c: str) -> bool:
        cat = unicodedata.category(c)
        return c not in "\n\t" and (cat in ("Cc", "Cs", "Zl", "Zp") or c in _BIDI)

    return "".join(_mark(c) if hidden(c) else c for c in s)


def _oneline(value: Any) -> str:
    """Messages and notes: whitespace runs (including newlines) become one space."""
    return _visible(" ".join(str(value).split()))


def _f4(x: Any) -> str:
    return "n/a" if x is None else f"{float(x):.4f}"


def _threshold(x: Any) -> str:
    t = float(x)
    return f"{t:.2f}" if round(t, 2) == t else f"{t:g}"


def _n(n: Any, noun: str, plural: str | None = None) -> str:
    """``1 family``, ``2 families``."""
    many = plural or (noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else noun + "s")
    return f"{_count(n)} {noun if n == 1 else many}"


def _count(x: Any) -> str:
    return f"{int(x):,}" if isinstance(x, int | float) else str(x)


def _sha(d: dict[str, Any]) -> str:
    return str(d.get("sha256") or "")[:SHA_PREFIX]


def _date(s: Any) -> str:
    """An EDGAR header's ``YYYYMMDD`` shown as ISO; an ISO date as it is."""
    s = str(s or "")
    return f"{s[:4]}-{s[4:6]}-{s[6:]}" if re.fullmatch(r"\d{8}", s) else s


def _pages(span: dict[str, Any]) -> str:
    pages = span.get("pages")
    if not pages:
        return ""
    a, b = pages[0], pages[-1]
    return f"page {a}" if a == b else f"pages {a}-{b}"


def page_numbers(pages: list[int], limit: int = 12) -> str:
    """Page numbers with runs joined (``2-4, 9``), the first ``limit`` runs."""
    runs: list[list[int]] = []
    for p in pages:
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    out = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:limit])
    return out + (f" and {len(runs) - limit} more runs" if len(runs) > limit else "")


def unread_rows(report: dict[str, Any]) -> list[tuple[Any, Any, str, str, str]]:
    """The documents audited in part: doc, its page count, the pages not read, their share, and
    why (each reason with its pages), as plain text."""
    rows = []
    for e in report.get("partly_read") or []:
        brief = (report.get("documents") or {}).get(str(e.get("doc_id"))) or {}
        why = "; ".join(f"{'page' if len(r.get('pages') or []) == 1 else 'pages'} "
                        f"{page_numbers(r.get('pages') or [])}: {r.get('reason')}" for r in e.get("reasons") or [])
        rows.append((e.get("doc_id"), brief.get("n_pages"), page_numbers(e.get("pages") or []),
                     f"{float(e.get('share') or 0):.0%}", why))
    return rows


def _span_text(span: dict[str, Any]) -> str:
    """Where a match lies in the container, as one line."""
    parts = [f"characters {span.get('start')}-{span.get('end')}"]
    if _pages(span):
        parts.append(_pages(span))
    parts.append(f"{_n(span.get('words', 0), 'word')}, "
                 f"{_n(span.get('shingles', 0), 'shingle')} matched")
    return "; ".join(parts)


def _doc_facts(d: dict[str, Any]) -> str:
    facts = [str(d.get("format") or "unknown format")]
    if d.get("n_pages"):
        facts.append(_n(d["n_pages"], "page"))
    if d.get("n_words") is not None:
        facts.append(_n(d["n_words"], "word"))
    if d.get("size") is not None:
        facts.append(_n(d["size"], "byte"))
    if d.get("batch"):
        facts.append(f"batch {d['batch']}")
    if d.get("sources"):
        facts.append(_sources_text(d))
    return ", ".join(facts)


def _sources_text(d: dict[str, Any]) -> str:
    """``source court-pdf`` or ``sources court-pdf, doctor-pdf``: the ``--source`` labels its
    copies were ingested with, the names people gave the places they came from."""
    sources = [str(x) for x in d.get("sources") or []]
    return ("source " if len(sources) == 1 else "sources ") + ", ".join(sources)


def _edgar_submission(e: dict[str, Any]) -> str:
    sub = e.get("submission") or {}
    out = f"EDGAR accession {sub.get('accession_number') or '?'}"
    if sub.get("form_type"):
        out += f", form {sub['form_type']}"
    if sub.get("filing_date"):
        out += f", filed {_date(sub['filing_date'])}"
    if sub.get("company_name"):
        out += f", {sub['company_name']}"
    if sub.get("cik"):
        out += f" (CIK {sub['cik']})"
    return out


def _edgar_part(e: dict[str, Any]) -> str:
    part = e.get("part") or {}
    out = f"document {part.get('type') or '?'}, sequence {part.get('sequence') or '?'}"
    if part.get("filename"):
        out += f", file {part['filename']}"
    if part.get("description"):
        out += f", “{part['description']}”"
    return out


def _edgar_location(e: dict[str, Any]) -> str:
    """The short form lawyers cite: accession, document type, sequence."""
    sub, part = e.get("submission") or {}, e.get("part") or {}
    return (f"EDGAR {sub.get('accession_number') or '?'}, {part.get('type') or '?'}, "
            f"sequence {part.get('sequence') or '?'}")


OVERVIEW_ROWS = 2000  # contained documents in the overview table; all are in findings.jsonl.gz
DETAIL_LIMIT = 100  # contained documents shown in detail, with locations and an excerpt
LIST_ROWS = 500  # rows of the boilerplate, families, not auditable and failed-input tables
NAMES_PER_FAMILY = 6


def _doc(report: dict[str, Any], doc_id: Any) -> dict[str, Any]:
    """A document's provenance from the report's ``documents`` map (each described once)."""
    return {"doc_id": doc_id, **((report.get("documents") or {}).get(str(doc_id)) or {})}


def _name(report: dict[str, Any], doc_id: Any) -> str:
    """A document as people name it: its path, and its EDGAR part when it is one."""
    d = _doc(report, doc_id)
    name = str(d.get("path") or f"doc {doc_id}")
    if d.get("edgar"):
        part = d["edgar"].get("part") or {}
        name += f" ({part.get('type') or '?'}, sequence {part.get('sequence') or '?'})"
    return name


def _provenance(report: dict[str, Any], doc_id: Any) -> str:
    """Where a document came from, in a few words: its filing, or its format and batch."""
    d = _doc(report, doc_id)
    e = d.get("edgar")
    if e:
        sub = e.get("submission") or {}
        bits = [str(sub.get("company_name") or "EDGAR filing")]
        if sub.get("form_type"):
            bits.append(f"form {sub['form_type']}")
        if sub.get("filing_date"):
            bits.append(f"filed {_date(sub['filing_date'])}")
        if d.get("sources"):
            bits.append(_sources_text(d))
        return ", ".join(bits)
    bits = [str(d.get("format") or "unknown format")]
    if d.get("n_pages"):
        bits.append(_n(d["n_pages"], "page"))
    if d.get("sources"):  # the label people gave; a batch's default name is a hash
        bits.append(_sources_text(d))
    elif d.get("batch"):
        bits.append(f"batch {d['batch']}")
    return ", ".join(bits)


def _source_href(report: dict[str, Any], doc_id: Any) -> str | None:
    """A link to a document's source file: relative to the report's directory when both are
    absolute paths (so a corpus moved together with its reports keeps its links), else None.

    Percent-encoded (``:``, ``#``, quotes and brackets included), so no name can become a
    scheme, a fragment or markup. An EDGAR part links to its submission file.
    """
    d = _doc(report, doc_id)
    path = d.get("resolved") or (d.get("edgar") or {}).get("submission_path") or d.get("path")
    base = (report.get("run") or {}).get("directory")
    if not path or not base or not posixpath.isabs(str(path)) or not posixpath.isabs(str(base)):
        return None
    return urllib.parse.quote(posixpath.relpath(str(path), str(base)), safe="/")


def _text_href(report: dict[str, Any], doc_id: Any) -> str | None:
    """The document's full extracted text beside the report (written for detailed findings)."""
    name = f"texts/{doc_id}.txt"
    return name if name in (report.get("files") or {}) else None


def _between_text(n: Any) -> str:
    return f"{_count(n)} words of the container between two spans, not aligned"


def _alignment_summary(al: dict[str, Any], contained: str = "the contained document",
                       container: str = "the container") -> str:
    """What the word alignment found, in one sentence."""
    w = al.get("words") or {}
    a, b = al.get("contained") or [0, 0], al.get("container") or [0, 0]
    ranges = al.get("ranges") or []
    where = (f"in {len(ranges)} spans at characters " + ", ".join(f"{r[0]}-{r[1]}" for r in ranges)
             + f" (the {_count(al.get('outside', 0))} words between them left out)"
             if len(ranges) > 1 else f"at characters {b[0]}-{b[1]}")
    if al.get("repeats"):
        where += (f" ({_n(al['repeats'], 'other span')} that only {'repeats' if al['repeats'] == 1 else 'repeat'} "
                  "this text left out)")
    head = (f"{contained}'s {_count(w.get('contained', 0))} words (characters {a[0]}-{a[1]}) "
            f"against {container}'s {_count(w.get('container', 0))} words {where}")
    if not al.get("hunks_total"):
        return f"{head}: every word equal, in the same order"
    parts = [f"{_count(w.get('same', 0))} equal"]
    for key, what in (("changed", "changed"), ("deleted", f"only in {contained}"),
                      ("inserted", f"only in {container}")):
        if w.get(key):
            parts.append(f"{_count(w[key])} {what}")
    shown = len(al.get("hunks") or [])
    regions = f"{_count(al['hunks_total'])} differing regions" + (
        f", the first {shown} shown" if shown < al["hunks_total"] else "")
    return f"{head}: {', '.join(parts)}; {regions}"


def _skip_text(n: int) -> str:
    return f"… {_count(n)} equal word{'s' if n != 1 else ''} …"


def _more_regions(al: dict[str, Any]) -> str:
    n = int(al.get("hunks_total", 0)) - len(al.get("hunks") or [])
    return f"{_count(n)} more differing region{'s' if n != 1 else ''}: see the full texts"


def _verdict(value: Any, threshold: Any) -> str:
    """The report holds only findings at or above the threshold; say how far above."""
    if value is None:
        return "undetermined"
    if float(value) >= 1.0:
        return "wholly contained"
    try:
        below = float(value) < float(threshold)
    except (TypeError, ValueError):
        return "contained"
    return (f"below the threshold {_threshold(threshold)}" if below
            else f"contained (≥ {_threshold(threshold)})")


def _estimate_text(f: dict[str, Any]) -> str:
    if not f.get("sampled"):
        return "none: no sampled shingle speaks for it (a short document, searched exhaustively: the value is exact)"
    lo, hi = [*(f.get("interval") or []), None, None][:2]
    return (f"{_f4(f.get('estimate'))}, 95% interval [{_f4(lo)}, {_f4(hi)}], "
            f"{_count(f.get('hits', 0))}/{_n(f.get('sampled', 0), 'sampled shingle')} hit")


def _where(report: dict[str, Any], best: dict[str, Any]) -> str:
    """Where the contained text lies in the container, in one short phrase."""
    spans = best.get("spans") or []
    b = _doc(report, best.get("container"))
    bits = []
    if b.get("edgar"):
        bits.append(_edgar_location(b["edgar"]))
    if spans:
        first, last = spans[0], spans[-1]
        pages = sorted({p for sp in spans for p in (sp.get("pages") or [])})
        if pages:
            bits.append(f"page {pages[0]}" if pages[0] == pages[-1] else f"pages {pages[0]}-{pages[-1]}")
        bits.append(f"characters {first.get('start')}-{last.get('end')}"
                    + (f" ({len(spans)} spans)" if len(spans) > 1 else ""))
    return "; ".join(bits) or "location not resolved"


def _bound(control: dict[str, Any]) -> str:
    """A control's pass bound as people read it: ``≥ 0.9500``."""
    value = control.get("expected")
    if not isinstance(value, int | float):
        return str(value or "")
    op = {">=": "≥", "<=": "≤"}.get(str(control.get("operator")), str(control.get("operator") or ""))
    return f"{op} {_f4(value)}".strip()


def _controls_line(report: dict[str, Any]) -> str:
    """``embedded 1.0000, reformatted 0.9880, unrelated 0.0101``: one entry per control."""
    return ", ".join(f"{_visible(c.get('kind'))} {_f4(c.get('score'))}"
                     for c in report.get("controls") or [])


def _params_rows(report: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(label, value, value is an identifier best shown in monospace)."""
    m = report.get("manifest") or {}
    p = m.get("params") or {}
    corpus = m.get("corpus") or {}
    ctl = m.get("controls") or {}
    rows = [
        ("shingle length k", f"{p.get('k')} words", False),
        ("sampling modulus", f"1 in {p.get('modulus')} shingles", False),
        ("hash", str(p.get("hash")), True),
        ("seed", str(p.get("seed")), True),
        ("normalization", str(p.get("normalization")), True),
        ("threshold", _threshold(p["threshold"]) if "threshold" in p else "?", False),
        ("interval method", str(p.get("interval")), False),
        ("engine", str(m.get("engine")), False),
        ("tool", f"{m.get('tool', 'containment-auditor')} {m.get('tool_version')}", False),
        ("corpus documents", _count(corpus.get("documents")), False),
        ("corpus digest", str(corpus.get("digest")), True),
        ("report digest", str(report.get("digest")), True),
        ("scope", _scope_text(report.get("scope") or {}), False),
    ]
    if ctl:
        text = f"seed {ctl.get('seed')}"
        if ctl.get("directory"):
            text += f", directory {ctl['directory']}"
        if ctl.get("note"):
            text += f"; {ctl['note']}"
        rows.append(("controls", text, False))
    versions = m.get("versions") or {}
    if versions:
        rows.append(("versions", ", ".join(f"{k} {v}" for k, v in versions.items()), False))
    rows.append(("report format", str(report.get("format")), True))
    return rows


def _scope_text(scope: dict[str, Any]) -> str:
    out = str(scope.get("kind") or "corpus")
    extra = [f"{len(v)} {k}" if isinstance(v, list | tuple) else f"{k} {v}"
             for k, v in sorted(scope.items()) if k != "kind"]
    return out + (f" ({', '.join(extra)})" if extra else "")


def _summary_items(report: dict[str, Any]) -> list[tuple[str, Any]]:
    s = report.get("summary") or {}
    covered = ((report.get("manifest") or {}).get("corpus") or {}).get("documents")
    labels = (("documents", "documents audited"), ("candidate_pairs", "candidate pairs"), ("containing_pairs", "containing pairs"),
              ("family_pairs", "containing pairs inside families (not findings)"),
              ("contained_documents", "contained documents"),
              ("boilerplate_documents", "boilerplate documents"), ("families", "families"),
              ("family_members", "family members"), ("verified_below_threshold", "verified below threshold"),
              ("not_auditable", "not auditable"), ("partly_read", "audited in part (pages not read)"),
              ("duplicate_groups", "exact-duplicate groups"),
              ("failed_inputs", "failed inputs"), ("skipped_inputs", "skipped inputs"))
    items = [(label, s[k]) for k, label in labels if k in s]
    if covered is not None and s:
        items.insert(1, ("documents covered (duplicates included)", covered))
    if "controls" in s:
        items.append(("controls passed", f"{s.get('controls_passed')}/{s['controls']}"))
    return items


def _run_rows(run: dict[str, Any]) -> list[tuple[str, str]]:
    keys = (("run id", "run_id"), ("started", "started"), ("ended", "ended"),
            ("seconds", "seconds"), ("host", "host"), ("platform", "platform"), ("python", "python"),
            ("command", "command"), ("controls", "controls_cache"))
    rows = [(label, str(run[k])) for label, k in keys if run.get(k) not in (None, "")]
    head = run.get("custody")
    if isinstance(head, dict):  # the state of the store the report speaks for (reports since the log)
        rows.append(("custody head", f"entry {head.get('seq')}, sha256 {head.get('hash')}"))
    return rows


def _refused(report: dict[str, Any]) -> bool:
    return report.get("status") != "OK"


GATE_STATUS = {"PASSED": "the batch may join the corpus",
               "FAILED": "the batch may not join the corpus as it is",
               "REFUSED": "the controls failed, so nothing was gated",
               "ERROR": "nothing could be gated"}


def _gate(report: dict[str, Any]) -> dict[str, Any] | None:
    """The verdict block of a gate's report (None for an audit)."""
    g = report.get("gate")
    return g if isinstance(g, dict) else None


def _gate_failed(g: dict[str, Any]) -> bool:
    return g.get("status") != "PASSED"


def _gate_headline(g: dict[str, Any]) -> str:
    c = g.get("counts") or {}
    kinds = ", ".join(f"{_count(v.get('error', 0))} {k}" for k, v in sorted((g.get("by_kind") or {}).items())
                      if v.get("error"))
    failing = _n(c.get("failing", 0), "failing finding") + (f" ({kinds})" if kinds else "")
    return (f"{GATE_STATUS.get(str(g.get('status')), 'unknown verdict')}: {failing}, "
            f"{_n(c.get('warnings', 0), 'warning')} and {_count(c.get('baselined', 0))} baselined, "
            f"among {_n(c.get('new_documents', 0), 'new document')}"
            + (f" ({_count(c['short_documents'])} of them short)" if c.get("short_documents") else "")
            + (f" and {_n(c['data_parts'], 'part')} read as data" if c.get("data_parts") else "")
            + f" of batch {_oneline(g.get('batch'))}" + (" (dry run)" if g.get("dry_run") else ""))


def _gate_rows(g: dict[str, Any]) -> list[tuple[str, str, str, str, str, str]]:
    """(level, kind, new document, other document, containment, reading) per finding."""
    return [(str(f.get("level")), f"{f.get('kind')} ({f.get('rule')})", _visible(f.get("new")),
             _visible(f.get("other") or ""), _f4(f["containment"]) if f.get("containment") is not None else "",
             _visible(f.get("reading") or "")) for f in g.get("findings") or []]


def _pairs_text(s: dict[str, Any]) -> str:
    """``2 containing pairs, both inside 1 family: ...``: the pairs that contain one another, said
    so that a family's pairs do not read as findings the report then fails to list."""
    pairs, inside = int(s.get("containing_pairs") or 0), int(s.get("family_pairs") or 0)
    text = _n(pairs, "containing pair")
    if not inside:
        return text
    where = (("inside" if pairs == 1 else "both inside" if pairs == 2 else f"all {_count(pairs)} inside")
             if inside == pairs else f"{_count(inside)} of them inside")
    return (f"{text}, {where} {_n(s.get('families') or 0, 'family')}: documents of a family contain one "
            "another, so they are listed as a family, not as findings")


def _headline(report: dict[str, Any]) -> str:
    if _refused(report):
        return "This audit reports no findings"
    s = report.get("summary") or {}
    p = (report.get("manifest") or {}).get("params") or {}
    thr = f" at containment ≥ {_threshold(p['threshold'])}" if "threshold" in p else ""
    return (f"{_n(s.get('contained_documents', 0), 'contained document')}{thr} "
            f"({_pairs_text(s)}), "
            f"{_n(s.get('boilerplate_documents', 0), 'boilerplate document')} and "
            f"{_n(s.get('families', 0), 'family')} among {_n(s.get('documents', '?'), 'audited document')}; "
            f"{s.get('controls_passed', '?')} of {_n(s.get('controls', '?'), 'control')} passed")


def _more(shown: int, total: int, what: str, where: str = "findings.jsonl.gz and documents.jsonl.gz") -> str:
    return f"{_count(total - shown)} more {what} are in {where}" if total > shown else ""


_TOTALS = {"findings": "contained_documents", "boilerplate": "boilerplate_documents"}
CONTAINED_FILE = "contained.jsonl.gz"


def _total(report: dict[str, Any], key: str) -> int:
    """How many entries ``report[key]`` stands for: report.json lists the first findings and
    boilerplate documents only, and its summary counts them all."""
    listed = len(report.get(key) or [])
    return int((report.get("summary") or {}).get(_TOTALS[key], listed))


def _bins(report: dict[str, Any]) -> list[tuple[float, float, int]]:
    counts = [max(0, int(c)) for c in (report.get("score_distribution") or {}).get("counts") or []]
    n = len(counts)
    return [(i / n, (i + 1) / n, c) for i, c in enumerate(counts)]


def _threshold_value(report: dict[str, Any]) -> float | None:
    try:
        t = float(((report.get("manifest") or {}).get("params") or {})["threshold"])
    except (KeyError, TypeError, ValueError):
        return None
    return t if 0.0 <= t <= 1.0 else None


# --------------------------------------------------------------------------------------------
# Compositions: what the documents containing the most others are made of
# --------------------------------------------------------------------------------------------

def _pct(x: Any) -> str:
    return "n/a" if x is None else f"{100 * float(x):.2f}%"
