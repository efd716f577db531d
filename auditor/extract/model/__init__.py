"""What each reader models completely, as allow-lists, and what a document holds outside them.

A reader stores the text a reader of the document sees. It can only vouch for that text as far
as it models how the document is drawn. "What it cannot read fails closed" used to be a
deny-list: the readers named the constructs they knew they could not evaluate and trusted the
rest. Here the model is written the other way round (issue #40). Each format's module
(:mod:`.html`, :mod:`.css`, :mod:`.svg`, ...) lists, as sets, the elements, properties,
operators and parts its reader models. Anything else is *outside the model*.

A reader records each construct outside its model in ``Extracted.unmodelled`` as one short
name, ``"<format>: <kind> <name>"`` (``"html: element <slot>"``). The store keeps that list
with the document (``documents.unmodelled``). A gate turns it into a ``not-auditable`` finding
(CONTAIN006): a document with a construct outside the model is never passed as read. A
plain ingest, ``show`` and ``stats`` show the list; a plain audit still compares the text (it
is the reader's best reading, and a corpus builder's own files are not hostile), see
docs/how-to/ci-gate.md.

Unknown means outside: a new element, a new CSS property, a new PDF operator is not modelled
until someone adds it to an allow-list, with a test and a measurement on real documents
(benchmarks/allowlist.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from auditor.errors import refusal

CODE = refusal(
    "not-modelled",
    "the document uses a construct its reader does not model, so the stored text may not be what a "
    "reader sees: render it with the reader's own program (print it to PDF from a browser or a word "
    "processor) and gate that; if the construct is ordinary in real documents, widen the model "
    "(auditor/extract/model) with a test; to admit this document as it is, add its finding to the "
    "gate's baseline")

#: Fonts whose glyphs are pictures or another alphabet, drawn for the letters of the text
#: (Wingdings draws a hand for "A", Symbol a Greek alpha for "a"). A reader who has the font
#: sees no word where the text holds one. Word and Windows ship them, so a reader of a filing
#: on Windows sees them.
SYMBOL_FONTS = frozenset({
    "wingdings", "wingdings 2", "wingdings 3", "webdings", "symbol", "zapf dingbats", "zapfdingbats",
    "itc zapf dingbats", "dingbats", "marlett", "mt extra", "bookshelf symbol 7", "ms reference specialty",
    "monotype sorts", "ms outlook", "segoe mdl2 assets", "segoe fluent icons",
})


_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters or more: a bullet or a check mark is one character


def spells_a_word(text: str) -> bool:
    """Whether ``text`` holds a word that a symbol font would turn into pictures."""
    return _WORD.search(text) is not None


def symbol_word_font(name: str) -> bool:
    """Whether a font of this name (any case and spacing) is one of :data:`SYMBOL_FONTS`. Words
    set in one are outside every reader's model: the reader stores letters, a reader sees none."""
    return " ".join(name.split()).lower() in SYMBOL_FONTS


#: constructs named in one message; the store keeps them all
NAMED = 12
#: constructs kept per document (a hostile page could use thousands)
KEPT = 200


class Outside:
    """The constructs of one document outside its reader's model, in the order first met."""

    def __init__(self) -> None:
        self._seen: dict[str, None] = {}

    def add(self, fmt: str, what: str) -> None:
        if len(self._seen) < KEPT:
            self._seen.setdefault(f"{fmt}: {what}", None)

    def extend(self, names: Iterable[str], within: str = "") -> None:
        for n in names:
            if len(self._seen) < KEPT:
                self._seen.setdefault(f"{within}{n}", None)

    def __bool__(self) -> bool:
        return bool(self._seen)

    def __contains__(self, name: str) -> bool:
        return name in self._seen

    def names(self) -> list[str]:
        return list(self._seen)


def merged(*lists: Iterable[str], within: str = "") -> list[str]:
    """Constructs of several readings of one document, each once, in order; ``within`` says
    where the later lists were found (``"altChunk word/x.htm: "``)."""
    out = Outside()
    for i, names in enumerate(lists):
        out.extend(names, within if i else "")
    return out.names()


def reason(unmodelled: Iterable[str]) -> str | None:
    """Why a gate cannot vouch for a document whose reader met ``unmodelled``, or None:
    ``not-modelled: html: element <slot>, ... are not modelled by its reader``."""
    names = list(unmodelled)
    if not names:
        return None
    shown = ", ".join(names[:NAMED]) + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")
    verb = "is" if len(names) == 1 else "are"
    return f"{CODE}: {shown} {verb} not modelled by its reader"
