"""The text preprocessing of the CopyCat study, recorded so every score says how it was made.

Fröbe et al. (the CopyCat study of main content extraction for near-duplicate detection)
extract text from HTML, remove stop words with Lucene's default English list, apply the Porter
stemmer and lower-case the words. We apply these in Lucene's ``EnglishAnalyzer`` order
(lower-case, then stop words, then stemming): the stop list is lower-case and matched exactly,
as Lucene's ``StopFilter`` does, and the Porter stemmer expects lower-case input.

For the text of HTML the study found full content (all of the page's text) the most reliable:
main content extractors (Boilerpipe, Trafilatura) often picked different "main" parts of
near-identical pages, while jusText agreed closely with full content. So ``html="full"`` is the
default, and ``html="main"`` uses jusText, an optional dependency.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Literal

from auditor.errors import UsageError

# Lucene's default English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET / StopAnalyzer).
# fmt: off
LUCENE_ENGLISH_STOP_WORDS: frozenset[str] = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
    "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
    "these", "they", "this", "to", "was", "will", "with",
})
# fmt: on

# Elements whose text is not page content, and elements that do not break words (everything
# else, such as p, div, li, td, br, starts a new word as a browser's layout would).
_SKIP_TAGS = frozenset({"script", "style", "noscript", "template"})
# fmt: off
_INLINE_TAGS = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i",
    "ins", "kbd", "mark", "q", "rp", "rt", "ruby", "s", "samp", "small", "span", "strong",
    "sub", "sup", "time", "tt", "u", "var", "wbr",
})
# fmt: on


@lru_cache(maxsize=1)
def _porter() -> Any:
    try:
        import snowballstemmer
    except ImportError as e:  # a declared dependency; only a broken install lacks it
        raise UsageError("stemming needs the snowballstemmer package") from e
    return snowballstemmer.stemmer("porter")  # Porter's original algorithm, as Lucene's


def porter_stem(words: Sequence[str]) -> list[str]:
    """Porter stems (the classic 1980 algorithm, Snowball's ``porter``) of lower-case words."""
    return list(_porter().stemWords(list(words)))


def full_text(html: str | bytes) -> str:
    """All text of an HTML page (like JSoup's ``text()``), block elements separated by spaces.

    Bytes are read as UTF-8 when they decode as such, else by the page's declared charset.
    """
    import lxml.etree
    import lxml.html

    encoding: str | None = "utf-8"
    if isinstance(html, str):
        data = html.encode("utf-8", "replace")  # lone surrogates become "?"
    else:
        data = html
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            encoding = None  # libxml2 reads the declared charset, else Latin-1
    if not data.strip():
        return ""
    parser = lxml.html.HTMLParser(
        encoding=encoding, remove_comments=True, remove_pis=True, no_network=True
    )
    try:
        root = lxml.html.document_fromstring(data, parser=parser)
    except lxml.etree.ParserError:  # nothing but whitespace or comments
        return ""
    parts: list[str] = []
    walker = lxml.etree.iterwalk(root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag if isinstance(el.tag, str) else ""
        block = tag not in _INLINE_TAGS
        if event == "start":
            if tag in _SKIP_TAGS:
                walker.skip_subtree()  # its "end" still comes, and brings its tail
                continue
            if block:
                parts.append(" ")
            if el.text:
                parts.append(el.text)
        else:
            if block:
                parts.append(" ")
            if el.tail:
                parts.append(el.tail)
    return " ".join("".join(parts).split())


def main_text(html: str | bytes, language: str = "English") -> str:
    """The main content of an HTML page by jusText (Pomikálek 2011): non-boilerplate paragraphs."""
    try:
        import justext
    except ImportError as e:
        raise UsageError(
            "html='main' needs the optional packages justext and lxml_html_clean "
            "(pip install justext lxml_html_clean); html='full' needs neither"
        ) from e
    if not html.strip():
        return ""
    paragraphs = justext.justext(html, justext.get_stoplist(language))
    return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)


@dataclass(frozen=True)
class Preprocess:
    """Preprocessing choices; the defaults are the CopyCat study's (full content)."""

    lowercase: bool = True
    stopwords: bool = True
    stem: bool = True
    html: Literal["full", "main"] = "full"

    def __post_init__(self) -> None:
        if self.html not in ("full", "main"):
            raise UsageError(f"html must be 'full' or 'main', not {self.html!r}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def text(self, html: str | bytes) -> str:
        """The text of an HTML page: all of it (``full``) or its main content (``main``)."""
        return full_text(html) if self.html == "full" else main_text(html)

    def apply(self, words: Sequence[str]) -> list[str]:
        """Lower-case, drop Lucene's English stop words, then Porter-stem, as chosen."""
        if isinstance(words, str):
            raise UsageError("apply() takes a sequence of words, not a string")
        out = list(words)
        if self.lowercase:
            out = [w.lower() for w in out]
        if self.stopwords:
            out = [w for w in out if w not in LUCENE_ENGLISH_STOP_WORDS]
        if self.stem:
            out = porter_stem(out)
        return out


COPYCAT = Preprocess()
