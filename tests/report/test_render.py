"""Renderings of hand-built reports: content, escaping of hostile names, CSP and determinism."""

from __future__ import annotations

import base64
import copy
import hashlib
import re
from typing import Any

import lxml.html
import pytest

from auditor.report import render
from auditor.report.render import as_markdown, model

HOSTILE_NAME = "/data/<script>alert(1)<.txt"
HOSTILE_EXCERPT = "WHEREAS the parties <script>alert(1)</script> agree | `code` *bold*"


def _doc(doc_id: int, path: str, fmt: str = "text", **extra: Any) -> dict[str, Any]:
    return {"doc_id": doc_id, "path": path, "sha256": f"{doc_id:02d}" * 32, "format": fmt,
            "extractor": "auditor.text 0.1.0", "encoding": "utf-8", "size": 12000,
            "n_words": 1700, "n_pages": None, "batch": "data-room", "also_seen_at": [], **extra}


def _controls() -> list[dict[str, Any]]:
    rows = [("embedded-lease", "embedded", 1.0, ">=", 0.95, True),
            ("reformatted-lease-text", "reformatted", 0.98803, ">=", 0.8, True),
            ("unrelated-credit", "unrelated", 0.010106, "<=", 0.1, False)]
    return [{"name": n, "kind": k, "source": "fixture", "contained": "lease.txt",
             "container": "annual|report.txt", "score": s, "estimate": s, "operator": op, "expected": e,
             "found": f, "hits": 10, "sampled": 10, "passed": True, "note": "a note"}
            for n, k, s, op, e, f in rows]


def _manifest() -> dict[str, Any]:
    return {
        "tool": "containment-auditor", "tool_version": "0.1.0", "engine": "sqlite",
        "params": {"k": 5, "modulus": 16, "hash": "xxh3_64(word, seed) -> murmur3-fmix64",
                   "seed": 6221258, "normalization": "nfkc-casefold-dehyphen-alnum/1",
                   "threshold": 0.8, "interval": "wilson-95"},
        "versions": {"python": "3.11.7", "lxml": "6.1.3"},
        "corpus": {"documents": 13, "digest": "c0ffee" + "0" * 58},
        "controls": {"seed": 0, "directory": "controls", "note": ""},
    }


def _run() -> dict[str, Any]:
    return {"run_id": "20260101T000000Z-deadbeef", "started": "2026-01-01T00:00:00+00:00",
            "ended": "2026-01-01T00:00:01+00:00", "seconds": 1.0, "host": "audit-<host>",
            "platform": "Linux", "command": "auditor audit --db x.db", "directory": "/reports/run-1"}


EDGAR_PART = {
    "submission": {"accession_number": "0000950170-24-000123", "form_type": "10-K",
                   "filing_date": "2024-03-01", "company_name": "ACME | <b>HOLDINGS</b>",
                   "cik": "0000547682"},
    "submission_path": "/edgar/0000950170-24-000123.txt",
    "part": {"type": "EX-10.1", "sequence": "2", "filename": "ex10-1.txt", "description": "OFFICE LEASE"}}


ALIGNMENT = {
    "contained": [0, 15200], "container": [120, 15818],
    "words": {"contained": 2300, "container": 2342, "same": 2290, "changed": 4, "deleted": 6, "inserted": 48},
    "hunks_total": 3, "skipped_after": 1200,
    "hunks": [
        {"skipped": 0, "a": [0, 90], "b": [120, 230], "pieces": [
            ["same", "The Tenant shall pay ", "The TENANT shall pay "],
            ["changed", "promptly", "immediately"],
            ["same", " the rent | `code` ", " the rent | `code` "],
            ["deleted", HOSTILE_EXCERPT, ""],
            ["same", "\n\nSection 2.", "\nSection 2."]]},
        {"skipped": 1080, "a": [9000, 9400], "b": [9100, 9700], "pieces": [
            ["same", "Page ", "Page "],
            ["inserted", "", "*new* words ~~here~~"],
            ["elided", 0, 30],
            ["inserted", "", "end of insertion"],
            ["same", " follows", " follows"]]}]}


def ok_report() -> dict[str, Any]:
    best = {"container": 8, "containment": 0.974533, "estimate": 0.972603,
            "interval": [0.931678, 0.989295], "hits": 142, "sampled": 146, "spans_total": 1,
            "spans": [{"start": 120, "end": 15818, "words": 2342, "shingles": 2314, "pages": [3, 7],
                       "excerpt": HOSTILE_EXCERPT + "\n```\nmore text"}],
            "alignment": ALIGNMENT}
    documents = {str(d["doc_id"]): {k: v for k, v in d.items() if k != "doc_id"} for d in (
        _doc(5, HOSTILE_NAME, "pdf", n_pages=7),
        _doc(8, "/edgar/0000950170-24-000123.txt#2", edgar=EDGAR_PART),
        _doc(9, "/short|note.txt"), _doc(11, "/copy\nof-lease.pdf"),
        _doc(12, "vendor/filing #2.txt", resolved="/work/vendor/filing #2.txt"),
        _doc(13, "/notices/certification.txt"), _doc(14, "/licences/mit-a.txt"),
        _doc(15, "/licences/mit-b.txt"))}
    return {
        "format": "containment-auditor-report/2", "status": "OK", "manifest": _manifest(),
        "controls": _controls(), "scope": {"kind": "corpus", "failures_through": 1},
        "documents": documents,
        "findings": [{"doc_id": 5, "containers": 2, "family": None, "best": [best], "others": [12]}],
        "boilerplate": [{"doc_id": 13, "containers": 60, "share": 0.3, "family": None,
                         "best": [{**best, "spans": [], "containment": 1.0}]}],
        "families": [{"id": 0, "members": [14, 15], "pairs": 2, "containment_range": [0.8947, 0.9086]}],
        "not_auditable": [{"doc_id": 9, "reason": "too short: 3 words, fewer than k=5", "n_words": 3,
                           "n_shingles": 0}],
        "duplicate_groups": [[5, 11]],
        "below_threshold": {"pairs": 4, "nearest": [{"contained": 12, "container": 8, "containment": 0.7712,
                                                     "estimate": 0.75, "interval": [0.6, 0.85], "hits": 30,
                                                     "sampled": 40}]},
        "failed_inputs": [{"path": "/data/corrupt.pdf", "part": "", "status": "failed",
                           "code": "pdf_error", "message": "PDFSyntaxError: No /Root object!",
                           "sha256": "ab" * 32}],
        "score_distribution": {"counts": [5000, 300, 40, 6, 2] + [0] * 12 + [1, 3, 4], "pairs": 5356},
        "summary": {"documents": 11, "covered": 13, "candidate_pairs": 5356, "containing_pairs": 66,
                    "contained_documents": 1, "boilerplate_documents": 1, "families": 1, "family_members": 2,
                    "verified_below_threshold": 4, "not_auditable": 1, "duplicate_groups": 1,
                    "failed_inputs": 1, "skipped_inputs": 0, "controls_passed": 3, "controls": 3},
        "run": _run(),
        "files": {"findings.jsonl.gz": {"sha256": "0" * 64, "lines": 66},
                  "texts/5.txt": {"sha256": "1" * 64, "lines": 300}, "texts/8.txt": {"sha256": "2" * 64, "lines": 9}},
        "digest": "59dfd390" + "1" * 56,
    }


def refused_report() -> dict[str, Any]:
    controls = _controls()
    controls[0].update(score=0.4, passed=False, found=False)
    return {
        "format": "containment-auditor-report/2", "status": "REFUSED", "manifest": _manifest(),
        "controls": controls, "scope": {"kind": "corpus"}, "findings": [],
        "refused_because": ["embedded-lease: 0.4000, expected >= 0.9500"],
        "run": _run(), "digest": "e" * 64,
    }


@pytest.fixture(scope="module")
def ok_md() -> str:
    return render.markdown(ok_report())


@pytest.fixture(scope="module")
def ok_html() -> str:
    return render.html(ok_report())


# --- Markdown -----------------------------------------------------------------------------


def test_markdown_controls_line_and_table(ok_md: str) -> None:
    assert "embedded 1.0000, reformatted 0.9880, unrelated 0.0101" in ok_md
    rows = [ln for ln in ok_md.splitlines() if ln.startswith("| embedded-lease")]
    assert len(rows) == 1
    assert "| 1.0000 |" in rows[0] and "| pass |" in rows[0]
    assert r"annual\|report.txt" in rows[0]


def test_markdown_parameters(ok_md: str) -> None:
    for text in ("| shingle length k | 5 words |", "1 in 16 shingles", "6221258",
                 "nfkc-casefold-dehyphen-alnum/1", "| threshold | 0.80 |", "wilson-95",
                 "sqlite", "containment-auditor 0.1.0", "| corpus documents | 13 |",
                 "c0ffee", "59dfd390", "`xxh3_64(word, seed) -> murmur3-fmix64`"):
        assert text in ok_md, text


def test_markdown_finding_locations_and_provenance(ok_md: str) -> None:
    assert "# Containment audit: OK" in ok_md
    assert "characters 120-15818; pages 3-7" in ok_md
    assert "EDGAR 0000950170-24-000123, EX-10.1, sequence 2" in ok_md
    assert "filed 2024-03-01" in ok_md
    assert "0.9726, 95% interval [0.9317, 0.9893], 142/146 sampled shingles hit" in ok_md
    assert "containment 0.9745: contained (≥ 0.80), exact over all shingles" in ok_md
    assert "Identical normalized text (2 documents; the first is audited)" in ok_md
    assert "`vendor/filing #2.txt`" in ok_md  # named among the further containers
    assert "too short: 3 words" in ok_md
    assert "`pdf_error`" in ok_md
    assert "20260101T000000Z-deadbeef" in ok_md and "auditor audit --db x.db" in ok_md


def test_markdown_overview_comes_first_grouped_by_contained_document(ok_md: str) -> None:
    order = [ok_md.index(h) for h in ("**Status: OK.**", "## Contained documents (1)",
                                       "## Contained documents in detail", "## Boilerplate (1)",
                                       "## Families (1)", "## Summary", "## Parameters", "## Controls", "## Run")]
    assert order == sorted(order)
    row = next(ln for ln in ok_md.splitlines() if ln.startswith("| [1](#doc-1) |"))
    assert "0.9745" in row and "EX-10.1, sequence 2" in row and row.endswith("| 2 |")
    assert "ACME \\| \\<b>HOLDINGS\\</b>, form 10-K, filed 2024-03-01" in row  # provenance
    assert '<a id="doc-1"></a>' in ok_md
    assert "/notices/certification.txt" in ok_md and "30.0%" in ok_md
    assert "0.8947 to 0.9086" in ok_md and "`/licences/mit-a.txt`, `/licences/mit-b.txt`" in ok_md
    assert "## Verified below the threshold (4 pairs)" in ok_md and "0.7712" in ok_md


def test_markdown_excerpt_is_a_fenced_quote_that_cannot_be_closed_early(ok_md: str) -> None:
    lines = [ln.removeprefix("  ") for ln in ok_md.splitlines()]
    start = next(i for i, ln in enumerate(lines) if ln.startswith("> ````"))
    assert lines[start] == "> ````text"
    assert lines[start + 1] == "> " + HOSTILE_EXCERPT
    assert lines[start + 2] == "> ```"
    assert lines[start + 4] == "> ````"


def test_markdown_hostile_names_do_not_break_tables(ok_md: str) -> None:
    tables = [b.splitlines() for b in ok_md.split("\n\n") if b.startswith("|")]
    assert len(tables) == 9
    for table in tables:
        widths = {len(re.split(r"(?<!\\)\|", ln)) for ln in table}
        assert len(widths) == 1 and all(ln.startswith("|") for ln in table), table
    assert "`/short\\|note.txt`" in ok_md
    assert "`/copy⟨U+000A⟩of-lease.pdf`" in ok_md
    assert "<script>" not in ok_md.replace("`" + HOSTILE_NAME + "`", "").replace(HOSTILE_EXCERPT, "").replace(
        "\\<script>", "")  # a name in a code span, the excerpt in a fenced block, else escaped
    assert "ACME \\| \\<b>HOLDINGS\\</b>" in ok_md


def test_markdown_escapes_inline_syntax() -> None:
    md = as_markdown._md
    assert md("a|b") == "a\\|b"
    assert md("*x* [y](http://e.com) <b>") == "\\*x\\* \\[y\\](http\\://e.com) \\<b>"
    assert md("# heading") == "\\# heading"
    assert md("1. item") == "1\\. item"
    assert md("snake_case_name") == "snake_case_name"
    assert md("_emph_") == "\\_emph\\_"
    assert md("line\nbreak") == "line break"
    assert as_markdown._code("a`b") == "``a`b``"
    assert as_markdown._code("`x") == "`` `x ``"
    assert as_markdown._cell_code("a\\|b") == "a\\\\\\|b"
    assert model._visible("x\u202etxt.exe") == "x⟨U+202E⟩txt.exe"


def test_markdown_refused() -> None:
    md = render.markdown(refused_report())
    assert md.startswith("# Containment audit: **REFUSED**")
    assert "> - embedded-lease: 0.4000, expected >= 0.9500" in md
    assert "**FAIL**" in md
    assert "embedded 0.4000, reformatted 0.9880, unrelated 0.0101" in md
    assert "## Contained documents" not in md and "## Not auditable" not in md


# --- HTML ---------------------------------------------------------------------------------


def _style_block(page: str) -> str:
    blocks = re.findall(r"<style>(.*?)</style>", page, flags=re.S)
    assert len(blocks) == 1
    return blocks[0]


def test_html_csp_matches_the_style_block(ok_html: str) -> None:
    digest = base64.b64encode(hashlib.sha256(_style_block(ok_html).encode()).digest()).decode()
    expected = (f"default-src 'none'; style-src 'sha256-{digest}'; img-src data:; "
                "base-uri 'none'; form-action 'none'")
    doc = lxml.html.fromstring(ok_html)
    metas = doc.xpath('//meta[@http-equiv="Content-Security-Policy"]')
    assert [m.get("content") for m in metas] == [expected]


def test_html_has_no_script_or_remote_resource(ok_html: str) -> None:
    low = ok_html.lower()
    assert "<script" not in low
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", low)
    assert "url(" not in low and "@import" not in low
    doc = lxml.html.fromstring(ok_html)
    for el in doc.iter():
        tag = el.tag if isinstance(el.tag, str) else ""
        assert tag.lower() not in ("script", "iframe", "object", "embed", "link", "frame", "base", "form")
        if tag.lower() == "img":
            assert (el.get("src") or "").startswith("data:")
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on"), name
            assert name.lower() != "style", "inline style attributes are blocked by the CSP"
            if name.lower() in ("href", "src"):  # in-page, or a relative path (percent-encoded)
                assert value.startswith(("#", "data:")) or re.fullmatch(r"[A-Za-z0-9_.~/%-]+", value), value
                assert not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", value) or value.startswith("data:"), value


def test_html_escapes_hostile_name_and_excerpt(ok_html: str) -> None:
    assert "&lt;script&gt;alert(1)&lt;.txt" in ok_html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in ok_html
    assert "ACME | &lt;b&gt;HOLDINGS&lt;/b&gt;" in ok_html
    assert "audit-&lt;host&gt;" in ok_html
    doc = lxml.html.fromstring(ok_html)
    texts = "".join(doc.itertext())
    assert HOSTILE_NAME in texts
    assert HOSTILE_EXCERPT in texts


def test_html_data_only_in_text_nodes(ok_html: str) -> None:
    doc = lxml.html.fromstring(ok_html)
    for el in doc.iter():
        for name, value in el.attrib.items():
            if name == "href":  # a link to a source file holds its path, percent-encoded
                assert not set(value) & set("<>\"' ()`"), value
                continue
            assert "alert" not in value and "HOLDINGS" not in value and "corrupt" not in value


def test_html_content(ok_html: str) -> None:
    doc = lxml.html.fromstring(ok_html)
    text = " ".join(doc.itertext())
    for s in ("Containment audit: OK", "embedded 1.0000, reformatted 0.9880, unrelated 0.0101",
              "characters 120-15818; pages 3-7", "EDGAR 0000950170-24-000123, EX-10.1, sequence 2",
              "too short: 3 words", "pdf_error", "nfkc-casefold-dehyphen-alnum/1", "wilson-95",
              "20260101T000000Z-deadbeef", "copy⟨U+000A⟩of-lease.pdf"):
        assert s in text, s
    assert doc.xpath('//header[contains(@class, "banner ok")]')
    assert doc.xpath("//blockquote/pre")


def test_html_histogram_with_threshold(ok_html: str) -> None:
    doc = lxml.html.fromstring(ok_html)
    svgs = doc.xpath('//svg[@class="hist"]')
    assert len(svgs) == 1 and len(doc.xpath("//svg")) == 1
    svg = svgs[0]
    lines = svg.xpath('.//line[@class="threshold"]')
    assert len(lines) == 1
    assert lines[0].get("x1") == lines[0].get("x2") == f"{64 + 556 * 0.8:.1f}"
    assert "threshold 0.80" in " ".join(svg.itertext())
    assert len(svg.xpath(".//rect")) == 8
    heights = {float(r.get("height")) for r in svg.xpath(".//rect")}
    assert min(heights) > 0.05 * max(heights), "log scale keeps small bins visible"
    assert "containment score" in " ".join(svg.itertext())


def test_html_refused_shows_banner_reasons_and_controls_only() -> None:
    page = render.html(refused_report())
    doc = lxml.html.fromstring(page)
    banner = doc.xpath('//header[contains(@class, "refused")]')
    assert banner and "REFUSED" in banner[0].text_content()
    assert "embedded-lease: 0.4000, expected &gt;= 0.9500" in page
    assert not doc.xpath('//section[@id="contained"]') and not doc.xpath("//svg")
    assert doc.xpath('//section[@id="controls"]//span[@class="fail"]')
    assert [s.get("id") for s in doc.xpath("//section")] == ["controls", "parameters", "run"]


def test_rendering_is_deterministic_and_pure() -> None:
    report = ok_report()
    before = copy.deepcopy(report)
    assert render.markdown(report) == render.markdown(ok_report())
    assert render.html(report) == render.html(ok_report())
    assert report == before


def test_minimal_report_renders() -> None:
    bare = {"status": "OK", "manifest": {"params": {}}, "controls": [], "findings": [], "documents": {}}
    assert "No control could be run." in render.markdown(bare)
    assert "no candidate pairs" in render.html(bare)


# --- side by side, links, phone width -------------------------------------------------------


def test_html_side_by_side_marks_each_kind_of_difference(ok_html: str) -> None:
    doc = lxml.html.fromstring(ok_html)
    [table] = doc.xpath('//article[@id="doc-1"]//table[contains(@class, "sbs")]')
    rows = table.xpath("./tbody/tr")
    assert [r.get("class") for r in rows] == [None, "skip", None, "skip", "skip"]
    first = rows[0].xpath("./td")
    assert [td.get("data-label") for td in first] == ["contained document", "container"]
    left, right = (" ".join(td.itertext()) for td in first)
    assert "characters 0-90" in left and "characters 120-230" in right
    assert [x.text for x in first[0].xpath(".//del[@class='chg']")] == ["promptly"]
    assert [x.text for x in first[1].xpath(".//ins[@class='chg']")] == ["immediately"]
    assert [x.text for x in first[0].xpath(".//del[not(@class)]")] == [HOSTILE_EXCERPT]  # escaped text
    assert not first[1].xpath(".//del") and not first[0].xpath(".//ins")
    assert "The TENANT shall pay" in right and "\nSection 2." in right  # each side's own text
    second = rows[2].xpath("./td")
    assert [x.text for x in second[1].xpath(".//ins")] == ["*new* words ~~here~~", "end of insertion"]
    assert "[… 30 words …]" in " ".join(second[1].itertext())
    skips = [" ".join(r.itertext()) for r in rows if r.get("class") == "skip"]
    assert skips == ["… 1,080 equal words …", "… 1,200 equal words …", "1 more differing region: see the full texts"]
    text = " ".join(doc.xpath('//article[@id="doc-1"]')[0].itertext())
    assert "2,290 equal, 4 changed, 6 only in the contained document, 48 only in the container" in text
    assert "3 differing regions, the first 2 shown" in text


def test_markdown_side_by_side_is_a_two_column_table_with_marks(ok_md: str) -> None:
    lines = [ln.strip() for ln in ok_md.splitlines()]
    start = lines.index("| contained document | container |")
    table = lines[start : lines.index("", start)]
    assert table[2] == ("| characters 0-90: The Tenant shall pay *promptly* the rent \\| \\`code\\` "
                        "~~WHEREAS the parties \\<script>alert(1)\\</script> agree \\| \\`code\\` \\*bold\\*~~ "
                        "Section 2. | characters 120-230: The TENANT shall pay *immediately* the rent \\| "
                        "\\`code\\` Section 2. |")
    assert table[4].endswith("| characters 9100-9700: Page **\\*new\\* words \\~\\~here\\~\\~** "
                             "\\[… 30 words …\\] **end of insertion** follows |")
    assert table[4].startswith("| characters 9000-9400: Page follows |")
    assert "~~Struck~~: only in the contained document; **bold**: only in the container" in ok_md
    for row in table:
        assert len(re.split(r"(?<!\\)\|", row)) == 4, row


def test_links_to_source_files_are_relative_to_the_report_and_texts_beside_it(ok_html: str, ok_md: str) -> None:
    doc = lxml.html.fromstring(ok_html)
    hrefs = {a.get("href") for a in doc.xpath("//a")}
    assert "../../data/%3Cscript%3Ealert%281%29%3C.txt" in hrefs  # relative to /reports/run-1
    assert "../../edgar/0000950170-24-000123.txt" in hrefs  # an EDGAR part: its submission file
    assert "texts/5.txt" in hrefs and "texts/8.txt" in hrefs  # the full texts of a detailed finding
    assert "#doc-1" in hrefs
    assert "(../../data/%3Cscript%3Ealert%281%29%3C.txt)" in ok_md and "(texts/8.txt)" in ok_md
    bare = ok_report()
    del bare["run"]["directory"]  # where the report lies is unknown: no link to guess at
    hrefs = {a.get("href") for a in lxml.html.fromstring(render.html(bare)).xpath("//a")}
    assert not any(h.startswith("..") for h in hrefs) and "texts/5.txt" in hrefs


def test_relative_ingest_paths_link_through_their_resolved_file() -> None:
    report = ok_report()
    report["findings"][0]["others"] = []
    report["findings"][0]["doc_id"] = 12
    page = render.html(report)
    assert 'href="../../work/vendor/filing%20%232.txt"' in page  # '#' is part of the name


def test_control_bounds_are_numbers_shown_with_their_operator(ok_md: str, ok_html: str) -> None:
    assert "| ≥ 0.9500 |" in ok_md and "| ≤ 0.1000 |" in ok_md
    assert "≥ 0.9500" in ok_html


def test_html_tables_become_cards_at_phone_width(ok_html: str) -> None:
    doc = lxml.html.fromstring(ok_html)
    for table in doc.xpath("//table[not(contains(@class, 'kv'))]"):
        assert "stack" in table.get("class").split()
        heads = [th.text_content() for th in table.xpath("./thead/tr/th")]
        for row in table.xpath("./tbody/tr[not(@class='skip')]"):
            assert [td.get("data-label") for td in row.xpath("./td")] == heads
    css = _style_block(ok_html)
    assert "@media (max-width:40rem)" in css and "content:attr(data-label)" in css


def test_a_report_has_no_composition_section() -> None:
    """What a document is made of is `auditor gather`'s: a cover per document cost more than the
    audit it described (issue #37)."""
    r = ok_report()
    for text in (render.html(r), render.markdown(r)):
        assert "Composition" not in text and "composition" not in text
