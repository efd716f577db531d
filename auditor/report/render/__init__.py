"""Human-readable renderings of a report: ``report.md`` and a self-contained ``report.html``.

Both are pure functions of the report dict (no I/O, no clock), so re-rendering a stored
``report.json`` gives the same text (``auditor verify`` does). Everything that came from the
corpus or the machine (file names, paths, excerpts, EDGAR metadata, messages, host, command) is
treated as hostile: control, format and bidi characters are shown as ``⟨U+XXXX⟩``; Markdown gets
escaped text or code spans; HTML gets ``html.escape``d text nodes only. The HTML runs no script
and fetches nothing: its Content-Security-Policy admits exactly its one inline style block, by
hash. Its only links are to anchors in the page, to the texts beside the report and to the source
files, relative to the report's directory (``run.directory``) and percent-encoded, so no name can
become a scheme.

Layout, for an analyst: the verdict, an overview table (contained -> container, named by path
with their provenance, containment, where), the contained documents in detail with a
side-by-side view of each (``report.json``'s word alignment), the other lists, then summary,
parameters, controls and run. At phone width the tables become cards.

Three modules: :mod:`~auditor.report.render.model` (what both read from the report, as plain text),
:mod:`~auditor.report.render.as_markdown` and :mod:`~auditor.report.render.as_html`. A new rendering is a new
module beside them over the model.
"""

from auditor.report.render.as_html import html
from auditor.report.render.as_markdown import markdown
from auditor.report.render.model import (
    DETAIL_LIMIT,
    LIST_ROWS,
    NAMES_PER_FAMILY,
    OVERVIEW_ROWS,
    SHA_PREFIX,
)

__all__ = ["DETAIL_LIMIT", "LIST_ROWS", "NAMES_PER_FAMILY", "OVERVIEW_ROWS", "SHA_PREFIX", "html", "markdown"]
