"""Feeds read as items, other XML as its text with comments and attributes as readings, and the
formats that have a rendering of their own read as rendered (issues #36, #40)."""

from __future__ import annotations

import json
from html import escape

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
