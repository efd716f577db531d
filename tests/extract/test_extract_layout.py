"""Plain text laid out for paper read in a reader's order, pages built by their scripts flagged,
and the main content of web pages recorded (issues #36, #40)."""

from __future__ import annotations

import json
import re
import textwrap
from html import escape

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.errors import ExtractionError
from auditor.extract import extract_bytes
from auditor.text.normalize import words
from auditor.text.shingle import shingle_text
from tests.support.licences import licence


def prose(i: int) -> str:
    """A licence text as running prose, without tokens too long for a column (rules, URLs)."""
    return " ".join(w for w in licence(i).split() if len(w) < 30)


def containment(a: str, b: str) -> float:
    sa, sb = shingle_text(a, keep_all=True).all, shingle_text(b, keep_all=True).all
    return float(len(np.intersect1d(sa, sb)) / len(sa))


def pleading(text: str, lines_per_page: int = 28, width: int = 62) -> str:
    """Text on pleading paper, as a word processor's text export or pdftotext -layout gives
    it: every line numbered 1-28 in the left margin, blank lines included, a footer below."""
    lines = textwrap.wrap(text, width, break_long_words=False)
    out = []
    for start in range(0, len(lines), lines_per_page - 4):
        chunk = ["", *lines[start:start + lines_per_page - 4], "", ""]
        for n in range(1, lines_per_page + 1):
            body = chunk[n - 1] if n - 1 < len(chunk) else ""
            out.append(f"{n:>2}     {body}".rstrip())
        out.append(f"            COMPLAINT - Page {start // (lines_per_page - 4) + 1}\f")
    return "\n".join(out)


def test_pleading_paper_line_numbers_are_not_read_as_words():
    text = prose(3)
    data = pleading(text).encode()
    ex = extract_bytes(data, "complaint.txt")
    body = [w for w in words(ex.text) if w not in ("complaint", "page") and not w.isdigit()]
    assert body == [w for w in words(text) if not w.isdigit()]  # every word, no margin number
    assert containment(text, ex.text) > 0.95 > 0.7 > containment(text, ex.readings[0].text)
    assert ex.readings[0].name == "text:as-stored" and ex.unreadable is None
    assert any("pleading-paper" in w for w in ex.warnings)


def _renumber(text: str, how: str) -> str:
    """A pleading() text with its margin written another way (red team round 3)."""
    out, n = [], 0
    for line in text.split("\n"):
        m = re.match(r"^( ?\d+)(?: {5}(.*))?$", line)
        if m is None:
            out.append(line)
            continue
        i, body = int(m.group(1)), m.group(2) or ""
        n += 1
        out.append({"dotted": f"{i:>2}.    {body}", "right": f"{body:<66}{i:>3}", "continuous": f"{n:>3}     {body}",
                    "form-feed": f"{i:>2}     {body}"}[how].rstrip() if how != "right" else f"{body:<66}{i:>3}")
    text = "\n".join(out)
    if how == "form-feed":  # pdftotext: the form feed starts the next page's first line
        text = text.replace("\f\n", "\n\f")
    return text


@pytest.mark.parametrize("how", ["dotted", "right", "continuous", "form-feed"])
def test_pleading_margins_of_every_form_are_not_read_as_words(how):
    text = prose(3)
    ex = extract_bytes(_renumber(pleading(text), how).encode(), "complaint.txt")
    body = [w for w in words(ex.text) if w not in ("complaint", "page") and not w.isdigit()]
    assert body == [w for w in words(text) if not w.isdigit()]
    assert ex.unreadable is None and containment(text, ex.text) > 0.95 > 0.7 > containment(text, ex.readings[0].text)
    assert ex.text.count("\f") == pleading(text).count("\f")  # the pages stay pages


@pytest.mark.parametrize("end", ["\r\n", "\r"])
def test_pleading_paper_and_columns_with_other_line_ends_are_read_as_a_viewer_shows_them(end):
    """A text viewer ends lines at CR LF (Windows) and at a lone CR (old Macintosh): the margin
    and the columns are found there too (red team round 5). The layout readers once split at
    LF only, so a filing saved on Windows kept its margin numbers among its words (0.50)."""
    text = prose(3)
    ex = extract_bytes(pleading(text).replace("\n", end).encode(), "complaint.txt")
    assert containment(text, ex.text) > 0.95 > 0.7 > containment(text, ex.readings[0].text)
    assert "\r" not in ex.text and ex.text.count("\f") == pleading(text).count("\f")
    left, right = prose(3)[:2500], prose(5)[:2500]
    ex = extract_bytes(two_columns(left, right).replace("\n", end).encode(), "order.txt")
    assert words(ex.text) == words(f"ORDER OF THE COURT {left} {right} So ordered.")


@pytest.mark.parametrize("blank", ["\u00a0", "\u2007", "\u3000"])
def test_a_margin_or_a_gutter_of_other_spaces_is_found_as_a_viewer_draws_it(blank):
    """No-break, figure and ideographic spaces are blanks on the page: a margin or a gutter made
    of them is a margin or a gutter (red team round 5)."""
    text = prose(3)
    ex = extract_bytes(pleading(text).replace("     ", blank * 5).encode(), "complaint.txt")
    assert containment(text, ex.text) > 0.95 > 0.7 > containment(text, ex.readings[0].text)
    left, right = prose(3)[:2500], prose(5)[:2500]
    ex = extract_bytes(two_columns(left, right).replace("    ", blank * 4).encode(), "order.txt")
    assert containment(left, ex.text) == 1.0 and containment(right, ex.text) == 1.0
    assert containment(left, ex.readings[0].text) < 0.5


@pytest.mark.parametrize("mark", ["[{i:>2}]", "({i})", "{i:>3}:", "{i})"])
def test_margin_numbers_marked_as_listings_mark_them_are_not_read_as_words(mark):
    """A listing or a transcript marks its line numbers: "[12]", "(12)", "12:" (grep -n), "12)".
    Read with the words, they broke every shingle of the text (red team round 6: 0.29)."""
    text = prose(3)
    marked = "\n".join(re.sub(r"^( ?\d+)(?= {5}|$)", lambda m: mark.format(i=int(m.group(1))), line)
                       for line in pleading(text).split("\n"))
    ex = extract_bytes(marked.encode(), "transcript.txt")
    assert containment(text, ex.text) > 0.95 > 0.7 > containment(text, ex.readings[0].text)
    assert ex.readings[0].name == "text:as-stored"


@pytest.mark.parametrize("mark", ["({i})", "[{i}]", "{i}:"])
def test_marked_numbers_of_a_list_are_not_a_margin(mark):
    """Items numbered "(1)", "[1]" or "1:" count on, but no number stands alone on a blank line:
    a list keeps its numbers as words."""
    items = "\n".join(f"{mark.format(i=i)} {line}" for i, line in enumerate(textwrap.wrap(prose(4), 70)[:40], 1))
    ex = extract_bytes(items.encode(), "list.txt")
    assert ex.text == items and not ex.readings


def test_numbers_at_the_end_of_lines_are_no_margin_unless_they_count_blank_lines_too():
    toc = "\n".join(f"{line:<60}  {i}" for i, line in enumerate(textwrap.wrap(prose(4), 56)[:30], 1))
    assert extract_bytes(toc.encode(), "toc.txt").text == toc


def test_a_numbered_list_is_not_a_pleading_margin():
    items = "\n".join(f"{i} {line}" for i, line in enumerate(textwrap.wrap(prose(4), 70)[:40], 1))
    ex = extract_bytes(items.encode(), "list.txt")
    assert ex.text == items  # numbers that do not count blank lines, alone, on pages: words
    numbered_paragraphs = "\n\n".join(f"{i}  {p}" for i, p in enumerate(textwrap.wrap(prose(4), 300)[:12], 1))
    assert extract_bytes(numbered_paragraphs.encode(), "x.txt").text == numbered_paragraphs


def test_a_margin_that_numbers_only_some_lines_fails_closed():
    numbered = pleading(prose(3)).split("\n")
    mixed = "\n".join(numbered[:60] + textwrap.wrap(prose(5), 62) * 2)
    ex = extract_bytes(mixed.encode(), "x.txt")
    assert (ex.unreadable or "").startswith("text-line-numbers:")


def two_columns(left: str, right: str, width: int = 38, gap: int = 4) -> str:
    a = textwrap.wrap(left, width, break_long_words=False)
    b = textwrap.wrap(right, width, break_long_words=False)
    n = max(len(a), len(b))
    rows = [f"{x:<{width}}{' ' * gap}{y}".rstrip() for x, y in zip(a + [""] * (n - len(a)), b + [""] * (n - len(b)), strict=True)]
    return "\n".join(["ORDER OF THE COURT", "", *rows, "", "So ordered."])


def test_two_columns_of_prose_are_read_column_by_column():
    left, right = prose(3)[:2500], prose(5)[:2500]
    ex = extract_bytes(two_columns(left, right).encode(), "order.txt")
    assert words(ex.text) == words(f"ORDER OF THE COURT {left} {right} So ordered.")
    assert ex.readings[0].name == "text:as-stored" and ex.unreadable is None
    assert containment(left, ex.text) == 1.0 and containment(left, ex.readings[0].text) < 0.5


@pytest.mark.parametrize("gutter", ["tabs", "rule", "ascii-rule"])
def test_two_columns_split_by_tabs_or_a_rule_are_read_column_by_column(gutter):
    """A text editor lays out tabs at their stops and draws a rule as a band: the gutter is
    where the reader sees it (red team round 3)."""
    left, right = prose(3)[:2500], prose(5)[:2500]
    a = textwrap.wrap(left, 38, break_long_words=False)
    b = textwrap.wrap(right, 38, break_long_words=False)
    n = max(len(a), len(b))
    a, b = a + [""] * (n - len(a)), b + [""] * (n - len(b))
    sep = {"tabs": None, "rule": "  \u2502  ", "ascii-rule": "  |  "}[gutter]
    rows = [(x + "\t" * (6 - len(x) // 8) + y) if sep is None else f"{x:<38}{sep}{y}".rstrip() for x, y in zip(a, b, strict=True)]
    ex = extract_bytes("\n".join(rows).encode(), "order.txt")
    assert words(ex.text) == words(f"{left} {right}") and ex.unreadable is None
    assert containment(left, ex.readings[0].text) < 0.5


def test_a_table_with_rules_between_figures_is_not_two_columns():
    rows = [f"| Segment {i:<30} | {1000 * i:>12,} | {2000 * i:>12,} |" for i in range(1, 30)]
    table = "\n".join(rows)
    assert extract_bytes(table.encode(), "t.txt").text == table


def test_a_line_across_both_columns_keeps_its_words():
    left, right = prose(3)[:2500], prose(5)[:2500]
    lines = two_columns(left, right).split("\n")
    lines.insert(12, "A HEADING SET ACROSS BOTH COLUMNS OF THE PAGE, WIDER THAN EITHER OF THEM")
    ex = extract_bytes("\n".join(lines).encode(), "order.txt")
    assert sorted(words(ex.text)) == sorted(words("\n".join(lines)))  # no word dropped
    assert containment(left, ex.text) > 0.9


def test_a_table_of_figures_is_not_two_columns():
    rows = [f"{'Revenue from the operations of segment ' + str(i):<46}{1000 * i:>12,}   {2000 * i:>12,}"
            for i in range(1, 30)]
    table = "\n".join(["STATEMENT OF OPERATIONS", "", *rows])
    ex = extract_bytes(table.encode(), "t.txt")
    assert ex.text == table and ex.readings == [] and ex.unreadable is None


def narrow_columns(text: str, width: int = 18, gap: int = 6) -> str:
    """Text wrapped to ``width`` characters and set in two columns: two or three words a line."""
    col = textwrap.wrap(text, width, break_long_words=False)
    half = (len(col) + 1) // 2
    left, right = col[:half], col[half:] + [""] * (2 * half - len(col))
    return "\n".join(f"{a:<{width}}{' ' * gap}{b}".rstrip() for a, b in zip(left, right, strict=True))


def reading(ex, name: str) -> str | None:
    return next((r.text for r in ex.readings if r.name == name), None)


def test_narrow_columns_are_read_column_by_column_as_another_reading():
    """Two or three words a line cannot be told from a table of labels and values: the rows
    stay the text, and the columns are a reading a gate audits too (red team round 5)."""
    text = " ".join(w for w in prose(3).split() if len(w) < 16)[:4000]
    ex = extract_bytes(narrow_columns(text).encode(), "exhibit.txt")
    columns = reading(ex, "text:columns")
    assert columns is not None and ex.unreadable is None
    assert words(columns) == words(text)  # down the left column, then the right
    assert containment(text, columns) == 1.0 and containment(text, ex.text) < 0.1


def test_a_table_of_labels_keeps_its_rows_and_gains_a_column_reading():
    labels = ["Name of registrant", "State of incorporation", "Principal office", "Telephone number",
              "Fiscal year end", "Transfer agent", "Exchange listed", "Auditor of record", "Legal counsel"]
    values = ["Acme Holdings Corp", "Delaware", "One Main Street", "see the cover page", "December",
              "Computershare Trust", "New York Stock Exchange", "Ernst and Young", "Wachtell Lipton"]
    table = "\n".join(f"{a:<28}{b}" for a, b in zip(labels, values, strict=True))
    ex = extract_bytes(table.encode(), "cover.txt")
    assert ex.text == table and ex.unreadable is None  # the rows are what is stored and indexed
    assert words(reading(ex, "text:columns") or "") == words(" ".join(labels + values))


@pytest.mark.parametrize("text", [
    pytest.param(lambda: prose(3), id="running prose"),
    pytest.param(lambda: "\n".join(f"{'Revenue of segment ' + str(i):<30}{1000 * i:>12,}   {2000 * i:>12,}"
                                   for i in range(1, 30)), id="a table of figures"),
    pytest.param(lambda: two_columns(prose(3)[:2500], prose(5)[:2500]), id="wide columns, read as columns"),
])
def test_no_column_reading_where_there_are_no_columns_of_words_left(text):
    ex = extract_bytes(text().encode(), "x.txt")
    assert reading(ex, "text:columns") is None


def test_three_columns_fail_closed():
    a, b, c = (textwrap.wrap(prose(i)[:1500], 24, break_long_words=False) for i in (3, 5, 7))
    n = min(len(a), len(b), len(c))
    rows = [f"{a[k]:<24}    {b[k]:<24}    {c[k]}" for k in range(n)]
    ex = extract_bytes("\n".join(rows).encode(), "x.txt")
    assert (ex.unreadable or "").startswith("text-columns:")


# -- pages built by their scripts ----------------------------------------------------------------

def opinions_page(script: str, static: str = "<h1>Opinions</h1><div id='list'></div>") -> bytes:
    return f"<!doctype html><html><head><title>Court</title></head><body>{static}<script>{script}</script></body></html>".encode()


def test_a_page_whose_script_writes_its_text_is_flagged():
    ops = json.dumps([{"title": f"Opinion {i}", "text": prose(i)} for i in range(3)])
    page = opinions_page(f"var ops = {ops}; for (const o of ops) {{ var d = document.createElement('div');"
                         " d.innerHTML = '<h2>' + o.title + '</h2><p>' + o.text + '</p>';"
                         " document.getElementById('list').appendChild(d); }")
    ex = extract_bytes(page, "opinions.html")
    assert (ex.unreadable or "").startswith("script-built:")
    assert "innerhtml" in ex.unreadable and "strings hold" in ex.unreadable


def test_an_empty_mount_point_for_a_framework_is_flagged():
    shell = b"<!doctype html><html><head><script src='/static/main.js'></script></head><body><h1>Opinions</h1>" \
            b"<noscript>You need to enable JavaScript to run this app.</noscript><div id='root'></div></body></html>"
    assert (extract_bytes(shell, "x.html").unreadable or "").startswith("script-built:")
    with pytest.raises(ExtractionError) as e:  # no static text at all: refused, with the reason and the fix
        extract_bytes(shell.replace(b"<h1>Opinions</h1>", b""), "x.html")
    assert e.value.code == "script-built" and "print it to PDF" in str(e.value)


@pytest.mark.parametrize("script", [
    "function toggle(id){var e=document.getElementById(id);e.style.display=e.style.display=='none'?'':'none';}",
    "document.getElementById('list').innerHTML = '<p>Updated daily.</p>';",  # a few words, on a long page
])
def test_a_page_with_its_text_and_a_script_stays_readable(script):
    static = "".join(f"<p>{escape(p)}</p>" for p in licence(3).split("\n\n") if p.strip())
    ex = extract_bytes(opinions_page(script, static + "<div id='list'></div>"), "page.html")
    assert ex.unreadable is None and containment(prose(3), ex.text) > 0.95
    short = extract_bytes(opinions_page(script.replace("innerHTML", "title"), "<p>Short page.</p>"), "p.html")
    assert short.unreadable is None or "innerhtml" not in short.unreadable


# -- main content of web pages -------------------------------------------------------------------

def site_page(body: str) -> bytes:
    nav = "".join(f"<a href='/{w}'>{w.title()}</a> " for w in ("home", "opinions", "dockets", "rules", "about"))
    return (f"<!doctype html><html><body><header><nav>{nav}</nav></header><main>{body}</main>"
            "<footer>Copyright 2024. Privacy policy. Terms of use. Accessibility. Contact the clerk.</footer>"
            "</body></html>").encode()


def test_a_web_page_with_site_chrome_has_its_main_content_as_a_reading():
    body = "".join(f"<p>{escape(p)}</p>" for p in licence(3).split("\n\n") if len(p.split()) > 20)
    ex = extract_bytes(site_page(body), "opinion.html")
    main = next(r.text for r in ex.readings if r.name == "html:main-content")
    assert "Privacy policy" in ex.text and "Privacy policy" not in main and "Dockets" not in main
    assert containment(main, ex.text) > 0.95 and len(main.split()) > 0.6 * len(ex.text.split())


def test_a_filing_without_site_chrome_is_not_read_twice():
    body = "".join(f"<p>{escape(p)}</p>" for p in licence(3).split("\n\n"))
    ex = extract_bytes(f"<html><body>{body}</body></html>".encode(), "10-k.htm")
    assert not any(r.name == "html:main-content" for r in ex.readings)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["1", " 2 ", "3  text of", "    ", "word word word    other words here",
                                 "1     The court held", "\f", "x" * 50 + "    " + "y" * 30, "12", " 9 |"]), max_size=80))
def test_layout_reading_never_loses_or_invents_a_word_it_keeps(lines):
    from auditor.extract.layout import column_reading, pleading_margin, two_columns

    text = "\n".join(lines)
    columns = column_reading(text)
    if columns is not None:  # another reading: every word, in another order (a rule is no word)
        assert sorted(columns.split()) == sorted(w for w in text.split() if w != "|")
    for read in (pleading_margin, two_columns):
        got = read(text)
        if got is not None and got.changed and read is two_columns:
            assert sorted(got.text.split()) == sorted(text.split())  # columns reorder, never drop
        if got is not None and got.changed and read is pleading_margin:
            kept = [w for w in got.text.split()]
            assert set(kept) <= set(text.split())


# -- preformatted blocks in web pages and rendered markup ------------------------------------------

def test_a_pleading_margin_in_a_preformatted_block_is_not_read_as_words():
    """A browser draws a <pre> block line for line, as a text editor does: its margin is left out
    and its columns read down, as in a text file (a Markdown code block, a reST literal block)."""
    text = prose(3)
    page = f"<html><body><h1>Exhibit A</h1><pre>{escape(pleading(text))}</pre><p>Signed.</p></body></html>"
    ex = extract_bytes(page.encode(), "exhibit.html")
    assert containment(text, ex.text) > 0.95 and ex.unreadable is None
    assert words(ex.text)[:2] == ["exhibit", "a"] and words(ex.text)[-1] == "signed"
    columns = f"<pre>{escape(two_columns(prose(3)[:2500], prose(5)[:2500]))}</pre>"
    assert containment(prose(3)[:2500], extract_bytes(columns.encode(), "order.html").text) == 1.0
    md = extract_bytes(("# Exhibit\n\n```\n" + pleading(text) + "\n```\n").encode(), "exhibit.md")
    assert containment(text, md.text) > 0.95


def test_a_numbered_code_listing_in_a_preformatted_block_keeps_its_numbers():
    code = "\n".join(f"{i:>3}  total = add(total, {i})" for i in range(1, 40))
    ex = extract_bytes(f"<html><body><pre>{code}</pre></body></html>".encode(), "listing.html")
    assert ex.text == code
