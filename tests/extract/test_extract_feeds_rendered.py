"""Feeds read as items, other XML as its text with comments and attributes as readings, and the
formats that have a rendering of their own read as rendered (issues #36, #40)."""

from __future__ import annotations

import json
from html import escape

import pytest

from auditor.errors import ExtractionError
from auditor.extract import extract_bytes
from auditor.extract.detect import detect_format
from auditor.text.normalize import words
from tests.support.licences import licence


def paras(i: int, n: int = 4) -> list[str]:
    return [" ".join(p.split()) for p in licence(i).split("\n\n") if p.strip()][:n]


def reading(ex, name: str) -> str:
    return next(r.text for r in ex.readings if r.name == name)


def test_an_rss_feed_is_read_as_its_items_with_links_and_dates_as_metadata():
    items = paras(2, 3)
    xml = ('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>Opinions of the Court'
           "</title><link>https://court.example.gov/</link><description>New opinions.</description>"
           "<lastBuildDate>Tue, 05 Mar 2024 14:30:00 +0000</lastBuildDate>"
           + "".join(f"<item><title>Opinion {i}</title><link>https://court.example.gov/o/{i}</link>"
                     f"<description>{escape('<p>' + escape(p) + '</p>')}</description>"
                     f"<pubDate>Mon, 0{i + 1} Jan 2024 10:00:00 +0000</pubDate></item>" for i, p in enumerate(items))
           + "</channel></rss>")
    data = xml.encode()
    assert detect_format(data, "feed") == "xml"  # <title> and <link> are no HTML here
    ex = extract_bytes(data, "feed")
    assert ex.format == "feed"
    assert words(ex.text) == words("Opinions of the Court New opinions. " + " ".join(
        f"Opinion {i} {p}" for i, p in enumerate(items)))
    assert ex.meta["feed"]["items"][1] == {"title": "Opinion 1", "link": "https://court.example.gov/o/1",
                                           "date": "Mon, 02 Jan 2024 10:00:00 +0000"}
    assert ex.meta["dates"] == {"feed:lastBuildDate": "Tue, 05 Mar 2024 14:30:00 +0000"}
    assert "https" in reading(ex, "xml:text-nodes")


def test_an_atom_feed_reads_html_and_xhtml_content():
    p1, p2 = paras(3, 2)
    xml = (f'<feed xmlns="http://www.w3.org/2005/Atom"><title>Docket</title><updated>2024-03-05T14:30:00Z</updated>'
           f'<entry><title>Order</title><link href="https://court.example.gov/1"/><updated>2024-03-01T00:00:00Z</updated>'
           f'<content type="html">{escape("<b>" + escape(p1) + "</b>")}</content></entry>'
           f'<entry><title>Notice</title><summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>{escape(p2)}'
           '</p><p style="display:none">zebra quartz</p></div></summary></entry></feed>')
    ex = extract_bytes(xml.encode(), "docket.atom")
    assert ex.format == "feed" and words(ex.text) == words(f"Docket Order {p1} Notice {p2}")
    assert ex.meta["feed"]["items"][0]["link"] == "https://court.example.gov/1"
    assert ex.meta["dates"] == {"feed:updated": "2024-03-05T14:30:00Z"}


def test_other_xml_is_its_text_with_comments_and_attributes_as_readings():
    hidden = paras(4, 1)[0]
    xml = (f'<?xml version="1.0"?>\n<docket><!-- {escape(hidden)} --><entry number="1" note="{escape(hidden)}">'
           "Motion to dismiss</entry><entry number=\"2\">Order granting the motion</entry></docket>")
    ex = extract_bytes(xml.encode(), "docket.xml")
    assert ex.format == "xml" and ex.text == "Motion to dismiss\nOrder granting the motion"
    assert reading(ex, "xml:comments") == hidden
    assert hidden in reading(ex, "xml:attributes")
    plain = extract_bytes(b"<?xml version='1.0'?><docket><entry>Motion</entry></docket>", "d.xml")
    assert plain.readings == []


def test_markdown_is_read_rendered_and_its_hidden_parts_kept_in_the_source():
    ps = paras(5, 3)
    md = (f"# Licence\n\n{ps[0]}\n\n<!-- {ps[1]} -->\n\n* {ps[2]}\n\n"
          "| Term | Meaning |\n| --- | --- |\n| Work | the licensed work |\n")
    ex = extract_bytes(md.encode(), "LICENSE.md")
    assert ex.format == "markdown" and ex.extractor == "markdown-it-py"
    assert words(ex.text) == words(f"Licence {ps[0]} {ps[2]} Term Meaning Work the licensed work")
    assert "#" not in ex.text and "|" not in ex.text  # the markup is not words
    assert ps[1] in reading(ex, "markdown:source")


def test_restructuredtext_is_read_rendered_with_no_file_inserted(tmp_path):
    ps = paras(6, 2)
    secret = tmp_path / "secret.txt"
    secret.write_text("zebra quartz mango")
    rst = (f"Licence\n=======\n\n{ps[0]}\n\n.. a comment: {ps[1]}\n\n.. include:: {secret}\n\n"
           "* **Work** means the licensed work.\n")
    ex = extract_bytes(rst.encode(), "LICENSE.rst")
    assert ex.format == "rst" and ex.extractor == "docutils"
    assert words(ex.text) == words(f"Licence {ps[0]} Work means the licensed work.")
    assert "zebra" not in words(ex.text)  # file insertion is off
    assert ps[1] in reading(ex, "rst:source")


def test_a_notebook_is_read_as_jupyter_shows_it():
    ps = paras(7, 2)
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": [f"## Terms\n\n{ps[0]}"]},
        {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 1, "source": ["print('done')"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": [ps[1]]},
                     {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                      "data": {"text/plain": ["'x'"], "text/html": ["<b>Result</b>"]}}]}]}
    ex = extract_bytes(json.dumps(nb).encode(), "analysis.ipynb")
    assert ex.format == "notebook"
    assert words(ex.text) == words(f"Terms {ps[0]} print('done') {ps[1]} Result")
    assert '"cell_type"' in reading(ex, "notebook:source")


def test_internal_entities_are_expanded_as_a_browser_expands_them_and_external_ones_never_loaded(tmp_path):
    ps = paras(8, 2)
    secret = tmp_path / "secret.txt"
    secret.write_text("zebra quartz mango")
    xml = (f'<?xml version="1.0"?>\n<!DOCTYPE note [<!ENTITY a "{escape(ps[0])}"><!ENTITY b "{escape(ps[1])}">'
           f'<!ENTITY s SYSTEM "file://{secret}">]>\n<note><p>&a;</p><p>&b;</p><p>&s;</p></note>\n').encode()
    ex = extract_bytes(xml, "note.xml")
    assert ex.format == "xml" and words(ex.text) == words(f"{ps[0]} {ps[1]}")
    svg = (f'<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY a "{escape(ps[0][:80])}">]>\n'
           '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="60"><text x="5" y="20">&a;</text></svg>').encode()
    ex = extract_bytes(svg, "drawing.svg")
    assert ex.format == "svg" and words(ex.text) == words(ps[0][:80])  # a gate renders it (format svg)


def test_an_xhtml_file_is_parsed_as_a_browser_parses_it():
    ps = paras(9, 3)
    doc = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           '<?xml-stylesheet type="text/css" href="data:text/css,.aside%7Bdisplay:none%7D"?>\n'
           f'<!DOCTYPE html [<!ENTITY first "{escape(ps[0])}">]>\n'
           '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Licence</title></head><body>'
           f'<p>&first;</p><p><![CDATA[{ps[1]}]]></p><p class="aside">zebra quartz mango</p>'
           f'<p>{escape(ps[2])}</p></body></html>\n').encode()
    ex = extract_bytes(doc, "licence.xhtml")
    assert words(ex.text) == words(" ".join(ps))  # entities and CDATA are text; the sheet hides the aside
    as_html = extract_bytes(doc, "licence.html")  # an .html file is parsed as HTML, as a browser parses it
    assert words(ps[1])[0] not in words(as_html.text) and "zebra" in words(as_html.text)
    with pytest.raises(ExtractionError) as e:
        extract_bytes(doc.replace(b"</body>", b"<br></body>"), "broken.xhtml")
    assert e.value.code == "xhtml_error"


def test_a_notebook_stream_is_read_as_jupyter_shows_it_and_as_nbconvert_shows_it():
    ps = paras(10, 2)
    bar = "".join(f"\r{p:3d}%|{'#' * (p // 10):<10}|" for p in range(0, 101, 20))
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 1, "source": ["run()"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": f"zebra quartz\r{ps[0]}\n{bar}\n\x1b[1m{ps[1]}\x1b[0m\n"}]}]}
    ex = extract_bytes(json.dumps(nb).encode(), "run.ipynb")
    assert words(ex.text) == words(f"run() {ps[0]} 100%|##########| {ps[1]}")
    assert "zebra" in words(reading(ex, "notebook:streams"))


def _cell(outputs: list[dict]) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "c", "metadata": {}, "execution_count": 1, "source": ["run()"],
         "outputs": outputs}]}).encode()


def test_terminal_colours_are_drawn_so_white_on_white_is_not_read():
    """Jupyter draws a stream's colour sequences (nbconvert's ANSI reading): junk printed in
    white (24-bit or 256-colour) on the white output is not seen, so it is not read; a reader
    sees coloured words, so they are read (red team round 6: the escapes were dropped, the junk
    kept)."""
    ps = paras(10, 1)[0].split(" ")
    white = " ".join(f"{w} \x1b[38;2;255;255;255mzebra\x1b[0m \x1b[38;5;231mquartz\x1b[39m" for w in ps)
    ex = extract_bytes(_cell([{"output_type": "stream", "name": "stdout", "text": white + "\n"}]), "run.ipynb")
    assert words(ex.text) == words("run() " + " ".join(ps))
    coloured = " ".join(f"\x1b[1;3{k % 7}m{w}\x1b[0m \x1b[7m{w}\x1b[27m" for k, w in enumerate(ps))
    ex = extract_bytes(_cell([{"output_type": "stream", "name": "stdout", "text": coloured + "\n"}]), "run.ipynb")
    assert words(ex.text) == words("run() " + " ".join(f"{w} {w}" for w in ps))


def test_a_traceback_is_read_as_coloured_terminal_text():
    """IPython colours every traceback with terminal escapes: the words are read without them
    (they once came through as "[0;31m" glued to words, and the notebook was refused for the
    escape character)."""
    ps = paras(10, 1)[0].split(" ")
    tb = [" ".join(f"\x1b[0;3{k % 6 + 1}m{w}\x1b[0m" for k, w in enumerate(ps)), "\x1b[0;31mValueError\x1b[0m: bad"]
    ex = extract_bytes(_cell([{"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": tb}]), "e.ipynb")
    assert words(ex.text) == words("run() " + " ".join(ps) + " ValueError: bad") and not ex.unmodelled


def test_a_carriage_return_overwrites_what_the_output_before_it_printed():
    """Jupyter joins a stream's outputs before it draws them, so a carriage return that opens
    an output overwrites the line the one before printed; outputs of other streams stay apart."""
    ps = paras(10, 2)
    ex = extract_bytes(_cell([{"output_type": "stream", "name": "stdout", "text": "zebra quartz "},
                              {"output_type": "stream", "name": "stdout", "text": f"\r{ps[0]}\n"},
                              {"output_type": "stream", "name": "stderr", "text": "mango "},
                              {"output_type": "stream", "name": "stdout", "text": f"\r{ps[1]}\n"}]), "run.ipynb")
    assert words(ex.text) == words(f"run() {ps[0]} mango {ps[1]}")


def test_markdown_footnotes_are_read_at_the_end_in_the_order_they_are_referred_to():
    """GitHub draws a Markdown file's footnotes at its end, in the order the text first refers to
    them, whatever order the source defines them in (red team round 6: notes defined shuffled
    were read in the source's order, 0.00). A definition no reference uses is not drawn."""
    ps = paras(10, 3)
    md = f"# Notes\n\nSee [^b] and [^a], then [^c].\n\n[^a]: {ps[1]}\n[^c]: {ps[2]}\n[^b]: {ps[0]}\n"
    ex = extract_bytes(md.encode(), "notes.md")
    assert words(ex.text) == words(f"Notes See [1] and [2], then [3]. {ps[0]} {ps[1]} {ps[2]}")


def test_a_notebook_cell_draws_no_footnotes():
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "m", "metadata": {}, "source": "Text [^1].\n\n[^1]: The note."}]}
    assert words(extract_bytes(json.dumps(nb).encode(), "n.ipynb").text) == words("Text [^1]. [^1]: The note.")


def test_a_markdown_cell_draws_its_attachments_and_a_raw_html_cell_is_html():
    from auditor.extract.rendered import shown_html

    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg=="
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "Scan:\n\n![page](attachment:page.png)",
         "attachments": {"page.png": {"image/png": png}}},
        {"cell_type": "raw", "id": "r", "metadata": {"raw_mimetype": "text/html"}, "source": "<p>&#72;&#105; there</p>"}]}
    data = json.dumps(nb).encode()
    page = shown_html("notebook", data)
    assert f"data:image/png;base64,{png}" in page and "attachment:" not in page
    assert words(extract_bytes(data, "scan.ipynb").text) == words("Scan: Hi there")


def test_restructuredtext_raw_html_is_inserted_as_docutils_inserts_it(tmp_path):
    ps = paras(11, 2)
    secret = tmp_path / "secret.html"
    secret.write_text("<p>zebra quartz mango</p>")
    rst = (f"Licence\n=======\n\n{ps[0]}\n\n.. raw:: html\n\n   <p>{escape(ps[1])}</p>\n\n"
           f".. raw:: html\n   :file: {secret}\n")
    ex = extract_bytes(rst.encode(), "LICENSE.rst")
    assert words(ex.text) == words(f"Licence {ps[0]} {ps[1]}")  # file insertion stays off


def test_markdown_is_also_read_as_github_shows_the_tags_its_filter_escapes():
    """GitHub escapes the raw HTML tags its tag filter names (``<noembed>``, ``<title>``...), so it
    shows what they hold as text, where a CommonMark page hides it (red team round 7: a licence
    inside ``<noembed>`` passed the gate). That page is the reading ``markdown:github``; a file
    without such tags has none."""
    ps = paras(6, 2)
    ex = extract_bytes(f"# Exhibit\n\n{ps[0]}\n\n<noembed>{ps[1]}</noembed>\n".encode(), "x.md")
    assert words(ps[1])[0] not in words(ex.text)
    assert words(ps[1]) == words(reading(ex, "markdown:github"))[-len(words(ps[1])):]
    ex = extract_bytes(f"# Exhibit\n\n{ps[0]}\n\n<details><summary>More</summary>\n\n{ps[1]}\n\n</details>\n".encode(),
                       "y.md")
    assert "markdown:github" not in {r.name for r in ex.readings}


def test_restructuredtext_is_also_read_as_rst2html_shows_it():
    """docutils' rst2html (the html4css1 writer) hides the class ``hidden`` by its own style
    sheet, the html5 writer does not (red team round 7: junk marked by a role ``hidden`` after
    every word hid a stored lease). Its page is the reading ``rst:rst2html`` where it differs."""
    ps = paras(7, 1)[0].split(" ")
    src = ".. role:: hidden\n\nTitle\n=====\n\n" + " ".join(f"{w} :hidden:`zebra`" for w in ps) + "\n"
    ex = extract_bytes(src.encode(), "x.rst")
    assert "zebra" in words(ex.text)
    assert words(reading(ex, "rst:rst2html")) == words("Title " + " ".join(ps))
    ex = extract_bytes(("Title\n=====\n\n" + " ".join(ps) + "\n").encode(), "y.rst")
    assert "rst:rst2html" not in {r.name for r in ex.readings}
