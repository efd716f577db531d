"""Formats with a rendering of their own, read as their readers see them rendered: Markdown
(markdown-it-py, CommonMark with tables and strikethrough, and footnotes as GitHub draws them), reStructuredText (docutils) and
Jupyter notebooks (nbformat; Markdown cells rendered, code cells as their source and outputs).

The rendering is HTML, read by :mod:`auditor.extract.html` as a browser shows it: what the
source hides from a reader (an HTML comment in Markdown, a ``display:none`` block, an rST
comment) is not stored as words, and the visible reading's own other readings come along. The
source as a text editor shows it is the reading ``<format>:source``, which a gate audits too.
Where another common reader draws the file otherwise, its page is a reading too: a Markdown file
as GitHub shows it (``markdown:github``: its tag filter shows ``<noembed>``, ``<title>`` and the
like as text), a reST file as docutils' ``rst2html`` shows it (``rst:rst2html``: the html4css1
writer's style sheet hides the class ``hidden``).

docutils runs with file insertion and configuration files off, and reports no messages into the
page: the rendering depends on the source alone. Raw HTML (``.. raw:: html``) is inserted, as
docutils' defaults and Sphinx insert it. A notebook's printed output is shown as Jupyter shows
it: a stream's outputs joined, a carriage return starts the line again (:func:`terminal`), and
terminal colours are drawn as Jupyter draws them (:func:`_coloured`), so words printed white on
the white output are not read; a traceback is such terminal text too. nbconvert's HTML export,
which keeps the whole stream, is the reading ``notebook:streams``. A Markdown cell draws its
attachments (``attachment:scan.png``) as Jupyter does.
"""

from __future__ import annotations

import contextvars
import io
import json
import re
import urllib.parse
import warnings as _warnings
from typing import Any

from auditor.errors import ExtractionError, refusal
from auditor.extract import model
from auditor.extract.common import Extracted, Limits, Reading, storable, version_of
from auditor.extract.text import decode_text

#: Notebook output types the reader reads (HTML before Markdown before plain text) or that are
#: pictures (an image output is a picture, as in any page). Jupyter shows others (SVG, LaTeX,
#: widgets, JavaScript) in place of the plain text the reader would read: outside the model.
_OUTPUT_TYPES = frozenset({"text/html", "text/markdown", "text/plain"})
#: the pictures an output may be, in the order Jupyter prefers them (after HTML and Markdown, before plain text)
_PICTURES = ("image/png", "image/jpeg", "image/gif")
_OUTPUTS: contextvars.ContextVar[model.Outside] = contextvars.ContextVar("notebook_outputs")

refusal("rst_error", "correct the reStructuredText at the line docutils names, or ingest it as plain text")
refusal("notebook_error", "open it in Jupyter and save it again (or export it as HTML or PDF), and ingest that")


def _markdown_html(source: str, footnotes: bool = False) -> str:
    """A Markdown source as HTML: CommonMark with tables and strikethrough, and (``footnotes``,
    for a Markdown file) footnotes as GitHub draws them: a numbered reference where the text
    refers to one, the notes at the end in the order they are first referred to, whatever
    order the source defines them in. Jupyter's Markdown cells draw no footnotes."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    if footnotes:
        from mdit_py_plugins.footnote import footnote_plugin

        md = md.use(footnote_plugin)
    return md.render(source)


def _markdown_file_html(source: str) -> str:
    return _markdown_html(source, footnotes=True)


#: The raw HTML tags GitHub's Markdown (cmark-gfm's tag filter, GFM spec 6.11) escapes: GitHub shows
#: them, and what they hold, as text, where a CommonMark page hides what they hold (a ``<noembed>``,
#: a ``<title>``) or treats it as code or style.
_GFM_FILTERED = re.compile(r"<(?=(?:title|textarea|style|xmp|iframe|noembed|noframes|script|plaintext)[\s/>])", re.I)


def github_html(page: str) -> str | None:
    """A Markdown file's page as GitHub draws it, when that differs from the CommonMark page: the
    raw HTML tags GitHub's tag filter names escaped (in markdown-it's page, a ``<`` of code or
    text is already ``&lt;``, so what matches is raw HTML). None when the page has none."""
    return _GFM_FILTERED.sub("&lt;", page) if _GFM_FILTERED.search(page) else None


def _rst_html4(source: str) -> str:
    """reStructuredText as docutils' ``rst2html`` shows it: the html4css1 writer with its own
    style sheet embedded, which hides the class ``hidden`` (the html5 writer's does not)."""
    from docutils.core import publish_parts
    from docutils.writers.html4css1 import Writer

    overrides = {"file_insertion_enabled": False, "raw_enabled": True, "_disable_config": True, "report_level": 5,
                 "halt_level": 5, "warning_stream": io.StringIO(), "input_encoding": "unicode", "traceback": True}
    try:
        return str(publish_parts(source=source, writer=Writer(), settings_overrides=overrides)["whole"])
    except Exception as e:  # docutils raises its own kinds on a source it cannot parse
        raise ExtractionError("rst_error", f"docutils cannot render this reStructuredText: "
                              f"{type(e).__name__}: {str(e)[:200]}") from e


def _rst_html(source: str) -> str:
    from docutils.core import publish_parts
    from docutils.writers.html5_polyglot import Writer

    overrides = {
        # raw HTML is inserted, as docutils' own defaults and Sphinx insert it (a site that leaves it
        # out shows less); file insertion stays off (raw's :file: and :url: options with it)
        "file_insertion_enabled": False, "raw_enabled": True, "_disable_config": True,
        "report_level": 5, "halt_level": 5, "warning_stream": io.StringIO(), "embed_stylesheet": False,
        "stylesheet_path": "", "input_encoding": "unicode", "traceback": True,
    }
    try:
        parts = publish_parts(source=source, writer=Writer(), settings_overrides=overrides)
    except Exception as e:  # docutils raises its own kinds on a source it cannot parse
        raise ExtractionError("rst_error", f"docutils cannot render this reStructuredText: "
                              f"{type(e).__name__}: {str(e)[:200]}") from e
    return f"<html><head>{parts.get('head', '')}</head><body>{parts['html_body']}</body></html>"


def _text_of(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _notebook_html(source: str) -> str:
    import html

    import nbformat

    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")  # a notebook without cell ids is still read as Jupyter reads it
            nb = nbformat.reads(source, as_version=4)
    except (ValueError, KeyError, TypeError, AttributeError, json.JSONDecodeError) as e:
        raise ExtractionError("notebook_error", f"not a Jupyter notebook nbformat can read: "
                              f"{type(e).__name__}: {str(e)[:200]}") from e
    out: list[str] = []
    for cell in nb.get("cells", []):
        kind = cell.get("cell_type")
        text = _text_of(cell.get("source"))
        if kind == "markdown":
            out.append(_attached(_markdown_html(text), cell.get("attachments")))
        elif kind == "raw":
            meta = cell.get("metadata") or {}
            if str(meta.get("raw_mimetype") or meta.get("format") or "").lower() in ("text/html", "html"):
                out.append(f"<div>{text}</div>")  # nbconvert's HTML export inserts it as HTML (the source holds it as text)
            else:
                out.append(f"<pre>{html.escape(text)}</pre>")
        elif kind == "code":
            out.append(f"<pre>{html.escape(text)}</pre>")
            for o in _coalesced(cell.get("outputs") or []):
                data = o.get("data") or {}
                for mime in sorted(data):
                    if mime not in _OUTPUT_TYPES and not mime.startswith(("image/png", "image/jpeg", "image/gif")):
                        _OUTPUTS.get().add("notebook", f"output of type {mime}")
                if o.get("output_type") == "stream":
                    raw = _text_of(o.get("text"))
                    shown = _terminal(raw)
                    if _SGR.sub("", shown) != raw:  # nbconvert's HTML with its defaults shows the stream as it is
                        _STREAMS.get().append(_ESCAPE.sub("", raw))
                    out.append(f"<pre>{_coloured(shown)}</pre>")
                elif o.get("output_type") == "error":  # a traceback: terminal text, coloured by IPython
                    out.append(f"<pre>{_coloured(_terminal(chr(10).join(map(str, o.get('traceback') or []))))}</pre>")
                elif "text/html" in data:
                    out.append(f"<div>{_text_of(data['text/html'])}</div>")
                elif "text/markdown" in data:
                    out.append(_markdown_html(_text_of(data["text/markdown"])))
                elif picture := next((m for m in _PICTURES if m in data), None):
                    # Jupyter draws the picture, not the plain text beside it ("<Figure size ...>")
                    b64 = re.sub(r"[^A-Za-z0-9+/=]", "", _text_of(data[picture]))
                    out.append(f"<div><img alt='' src='data:{picture};base64,{b64}'></div>")
                elif "text/plain" in data:
                    out.append(f"<pre>{html.escape(_text_of(data['text/plain']))}</pre>")
    return "<html><body>" + "\n".join(out) + "</body></html>"


def _coalesced(outputs: list[Any]) -> list[Any]:
    """A cell's outputs with each run of stream outputs of one stream (stdout, stderr) joined
    into one, as Jupyter shows them (JupyterLab's output area, nbconvert's
    ``coalesce_streams``): a carriage return that opens an output overwrites the line the output
    before it printed."""
    out: list[Any] = []
    for o in outputs:
        if (o.get("output_type") == "stream" and out and out[-1].get("output_type") == "stream"
                and out[-1].get("name") == o.get("name")):
            out[-1] = {**out[-1], "text": _text_of(out[-1].get("text")) + _text_of(o.get("text"))}
        else:
            out.append(o)
    return out


#: streams as nbconvert's HTML export shows them (carriage returns and escapes kept), when a
#: terminal shows them otherwise (:func:`terminal`)
_STREAMS: contextvars.ContextVar[list[str]] = contextvars.ContextVar("notebook_streams")
_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_OVERWRITTEN = re.compile(r"[^\n]*\r(?=[^\n])")


_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_PIECE = re.compile(r"\x1b\[[0-9;]*m|.", re.S)


def terminal(text: str) -> str:
    """A notebook stream as Jupyter shows it (JupyterLab, the Notebook, VS Code; nbconvert's
    ``coalesce_streams``): a carriage return starts its line again, so what came before it on
    the line is not shown (a progress bar redraws itself so); a backspace takes back the
    character before it; terminal escape sequences (colours) draw no character."""
    return _SGR.sub("", _terminal(text))


def _terminal(text: str) -> str:
    """:func:`terminal` with its colour sequences (SGR, ``ESC[...m``) kept, for :func:`_coloured`."""
    text = _ESCAPE.sub(lambda m: m.group(0) if _SGR.fullmatch(m.group(0)) else "", text.replace("\r\n", "\n"))
    text = _OVERWRITTEN.sub("", text)
    if "\b" in text:
        out: list[str] = []
        for piece in _PIECE.findall(text):
            if piece == "\b":
                k = len(out) - 1
                while k >= 0 and out[k].startswith("\x1b"):
                    k -= 1  # a colour draws no character: the one before it is taken back
                if k >= 0 and out[k] != "\n":
                    del out[k]
            else:
                out.append(piece)
        text = "".join(out)
    return text.replace("\r", "")


#: The 16 terminal colours as JupyterLab's light theme (and nbconvert's lab template) draws them.
_PALETTE = ("#3e424d", "#e75c58", "#00a250", "#ddb62b", "#208ffb", "#d160c4", "#60c6c8", "#c5c1b4",
            "#282c36", "#b22b31", "#007427", "#b27d12", "#0065ca", "#a03196", "#258f8f", "#a1a6b2")


def _extended(codes: list[int]) -> str | None:
    """The colour of ``38;5;N`` or ``38;2;R;G;B`` (``codes`` after the 38 or 48, consumed), as
    nbconvert reads it; None for a malformed one."""
    if len(codes) >= 4 and codes[0] == 2:
        rgb = codes[1:4]
        del codes[:4]
        return f"rgb({rgb[0]},{rgb[1]},{rgb[2]})" if all(0 <= c <= 255 for c in rgb) else None
    if len(codes) >= 2 and codes[0] == 5:
        n = codes[1]
        del codes[:2]
        if n < 16:
            return _PALETTE[n]
        if n < 232:
            r, g, b = ((n - 16) // 36, (n - 16) % 36 // 6, (n - 16) % 6)
            r, g, b = (55 + v * 40 if v else 0 for v in (r, g, b))
            return f"rgb({r},{g},{b})"
        if n < 256:
            v = (n - 232) * 10 + 8
            return f"rgb({v},{v},{v})"
        return None
    codes.clear()
    return None


def _coloured(text: str) -> str:
    """Terminal text (colour sequences in it) as the HTML Jupyter draws for it: each run in its
    foreground and background colour, so that the HTML reader tells text drawn in the page's
    colour (white on Jupyter's white output) from text a reader sees. The codes are read as
    nbconvert reads them (``nbconvert.filters.ansi``): bold brightens the first 8 colours, 7
    swaps the colours, other codes (concealed, 8, among them) change nothing drawn."""
    import html

    out: list[str] = []
    fg: int | str | None = None
    bg: int | str | None = None
    bold = inverse = False
    pos = 0
    for m in [*_SGR.finditer(text), None]:
        chunk = text[pos:m.start() if m else len(text)]
        if chunk:
            f = fg + 8 if bold and isinstance(fg, int) and fg < 8 else fg
            b = bg
            if inverse:
                f, b = (b if b is not None else "#ffffff"), (f if f is not None else "#000000")
            style = ";".join(f"{k}:{_PALETTE[v] if isinstance(v, int) else v}" for k, v in (("color", f), ("background-color", b))
                             if v is not None)
            out.append(f"<span style='{style}'>{html.escape(chunk)}</span>" if style else html.escape(chunk))
        if m is None:
            break
        pos = m.end()
        codes = [int(c) if c else 0 for c in m.group(1).split(";")]
        while codes:
            n = codes.pop(0)
            if n == 0:
                fg = bg = None
                bold = inverse = False
            elif n in (1, 5):
                bold = True
            elif n in (21, 22):
                bold = False
            elif n == 7:
                inverse = True
            elif n == 27:
                inverse = False
            elif 30 <= n <= 37:
                fg = n - 30
            elif 90 <= n <= 97:
                fg = n - 90 + 8
            elif n == 39:
                fg = None
            elif 40 <= n <= 47:
                bg = n - 40
            elif 100 <= n <= 107:
                bg = n - 100 + 8
            elif n == 49:
                bg = None
            elif n in (38, 48):
                got = _extended(codes)
                if got is not None and n == 38:
                    fg = got
                elif got is not None:
                    bg = got
    return "".join(out)


def _attached(page: str, attachments: Any) -> str:
    """A Markdown cell's page with its attachments in place: Jupyter draws ``attachment:NAME``
    from the cell's own ``attachments``; a picture becomes a ``data:`` URL, which the gate's
    rendering draws (and OCR reads), as Jupyter draws it."""
    if not isinstance(attachments, dict) or "attachment:" not in page:
        return page

    def url(m: re.Match[str]) -> str:
        bundle = attachments.get(urllib.parse.unquote(m.group(2)))
        if not isinstance(bundle, dict):
            return m.group(0)
        mime = next((k for k in (*_PICTURES, "image/svg+xml") if k in bundle), None)
        if mime is None:
            return m.group(0)
        if mime == "image/svg+xml":
            _OUTPUTS.get().add("notebook", "attachment of type image/svg+xml")
            return m.group(0)
        b64 = re.sub(r"[^A-Za-z0-9+/=]", "", _text_of(bundle[mime]))
        return f"{m.group(1)}data:{mime};base64,{b64}"

    return re.sub(r"""((?:src|href)=["'])attachment:([^"'\s]+)""", url, page)


_RENDER = {"markdown": (_markdown_file_html, "markdown-it-py"), "rst": (_rst_html, "docutils"),
           "notebook": (_notebook_html, "nbformat")}


def shown_html(fmt: str, data: bytes) -> str:
    """The HTML page a Markdown, reStructuredText or notebook file renders to: the page
    :func:`extract_rendered` reads, for a browser to draw (:mod:`auditor.gating.render`)."""
    source, _ = decode_text(data)
    _OUTPUTS.set(model.Outside())
    _STREAMS.set([])
    return _RENDER[fmt][0](source.lstrip("\ufeff"))


def extract_rendered(fmt: str, data: bytes, limits: Limits = Limits()) -> Extracted:
    """A Markdown, reStructuredText or notebook file, as its renderer shows it."""
    from auditor.extract.html import html_to_text

    source, enc = decode_text(data)
    _OUTPUTS.set(model.Outside())
    _STREAMS.set([])
    render, dist = _RENDER[fmt]
    page = render(source.lstrip("\ufeff"))
    try:
        ex = html_to_text(b"\xef\xbb\xbf" + page.encode("utf-8", "surrogatepass"), limits)
    except ExtractionError as e:
        if e.code == "empty":
            raise ExtractionError("empty", f"the {fmt} file renders to no text") from e
        raise
    ex.readings.append(Reading(f"{fmt}:source", storable(source, []),
                               "the source as a text editor shows it, markup and hidden parts included"))
    other = (("markdown:github", github_html(page), "the page as GitHub shows it: the raw HTML tags its tag filter "
              "names are shown as text, with what they hold") if fmt == "markdown" else
             ("rst:rst2html", _rst_html4(source.lstrip("\ufeff")), "the page as docutils' rst2html shows it (the "
              "html4css1 writer and its style sheet)") if fmt == "rst" else None)
    if other is not None and other[1] is not None:
        seen = html_to_text(b"\xef\xbb\xbf" + other[1].encode("utf-8", "surrogatepass"), limits)
        if seen.text != ex.text:
            ex.readings.append(Reading(other[0], seen.text, other[2]))
    streams = _STREAMS.get()
    if streams:
        ex.readings.append(Reading("notebook:streams", storable("\n".join(streams), []),
                                   "the printed output as nbconvert's HTML export shows it, carriage returns kept as "
                                   "line breaks (Jupyter's own views overwrite the line at each)"))
    version = (f"{version_of('nbformat')}+markdown-it-py {version_of('markdown-it-py')}" if fmt == "notebook" else
               f"{version_of(dist)}+mdit-py-plugins {version_of('mdit-py-plugins')}" if fmt == "markdown" else version_of(dist))
    outside = model.merged(ex.unmodelled, _OUTPUTS.get().names() if fmt == "notebook" else [])
    return Extracted(fmt, ex.text, dist, version, encoding=enc, warnings=ex.warnings, unreadable=ex.unreadable,
                     readings=ex.readings, meta=ex.meta, unmodelled=outside)
