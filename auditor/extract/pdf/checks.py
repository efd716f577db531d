"""When a PDF's text layer is not a reading of what its pages show: unmapped glyphs, words
shattered into letters, glyphs drawn out of order, scans and outlined text, fonts whose Unicode
map lies. Each reason carries a stable code (``pdf-cid``, ``letter-spaced``, ``pdf-order``,
``pdf-image-text``, ``pdf-font-map``) and says what a reader would see."""

from __future__ import annotations

import functools
import re

from auditor.errors import refusal
from auditor.extract.letters import join_letter_spaced as _join_letter_spaced
from auditor.extract.pdf.worker import PdfResult

_OCR = "ingest with --ocr always, so that OCR reads each page as it shows"
_SOURCE = "ingest the document it was made from, or "
refusal("pdf-cid", _SOURCE + "a PDF printed again with embedded Unicode fonts, or " + _OCR)
refusal("pdf-order", _SOURCE + _OCR)
refusal("pdf-image-text", "ingest a sharper scan or a copy with a text layer (the document it was made from)")
refusal("pdf-font-map", _SOURCE + _OCR)
refusal("pdf-hidden", "nothing a viewer shows can be audited: ingest the copy a reader reads")

_CID_RUN = re.compile(r"(?:\(cid:\d+\))+")
TOKEN = re.compile(r"[^\W_]+")
# Limits beyond which a PDF's text is not a reading of it (see text_unreadable).
_MAX_CID_SHARE = 0.01
_MAX_SINGLE_LETTERS = 0.15
_MIN_SPACED_SHARE = 0.2
_SHORT_BLOCK = 3


def _single_letters(text: str, minimum: int = 0) -> str | None:
    """Why ``text`` cannot be read as words: more than 15% of its words (and at least
    ``minimum``) are single letters, letter-spaced text that could not be rejoined."""
    tokens = TOKEN.findall(_CID_RUN.sub(" ", text))
    singles = sum(1 for t in tokens if len(t) == 1 and t.lower() not in ("a", "i") and not t.isdigit())
    if tokens and singles > _MAX_SINGLE_LETTERS * len(tokens) and singles >= minimum:
        return (f"letter-spaced: {singles} of {len(tokens)} words are single letters: letter-spaced text "
                "that cannot be rejoined")
    return None


def letter_spacing(text: str) -> tuple[str, int, str | None]:
    """Letter-spaced words rejoined, how many, and why the text fails closed if single letters
    remain (at least 10 of them): the one entry point other formats use for letter spacing."""
    joined, n = _join_letter_spaced(text)
    chunks = joined.split()
    ones = sum(map((1).__eq__, map(len, chunks)))
    spaced = sum(1 for w in chunks if len(w) == 1 and w.isalpha() and w not in "aAiI") if ones >= 10 else 0
    if spaced < 10 or spaced <= _MAX_SINGLE_LETTERS * len(chunks) / 2:
        return joined, n, None  # far from the limit: the exact count is not needed
    return joined, n, _single_letters(joined, 10)


def text_unreadable(text: str, letter_spaced: int) -> str | None:
    """Why pdfminer's text is not a reading of the PDF, or None.

    * glyphs without a Unicode mapping, ``(cid:N)``, inside or as words: more than 1% of the
      letters (a lone unmapped bullet does not count);
    * words shattered into single letters: more than 15% of the tokens (after letter-spaced
      words were rejoined), as when letter spacing is too wide for a line to hold together;
    * letter-spaced text (a fifth of the words or more) that pdfminer's layout analysis broke
      into blocks of a few words, in an order that is not the reading order.
    """
    letters = sum(1 for c in text if c.isalnum())
    in_word = 0
    for m in _CID_RUN.finditer(text):
        n = m.group().count("(cid:")
        before = text[m.start() - 1 : m.start()]
        after = text[m.end() : m.end() + 1]
        if n > 1 or before.isalnum() or after.isalnum():
            in_word += n
    if in_word > _MAX_CID_SHARE * (letters + in_word):
        return (f"pdf-cid: {in_word} glyphs without a Unicode mapping ((cid:N)) inside words: the PDF's "
                "fonts do not say which letters they draw")
    singles = _single_letters(text)
    if singles:
        return singles
    tokens = TOKEN.findall(_CID_RUN.sub(" ", text))
    if letter_spaced > _MIN_SPACED_SHARE * len(tokens):
        blocks = [len(TOKEN.findall(b)) for b in re.split(r"\n\s*\n", text)]
        blocks = [n for n in blocks if n]
        short = sum(1 for n in blocks if n <= _SHORT_BLOCK)
        if short >= 3 and short > len(blocks) / 3:
            return (f"letter-spaced: letter-spaced text broken into fragments ({short} of {len(blocks)} blocks hold "
                    f"{_SHORT_BLOCK} words or fewer): the word order cannot be trusted")
    return None


# Limits beyond which a page's text layer is not what the page shows (see layer_unreadable).
_MIN_BACKWARD = 10
_MAX_BACKWARD_SHARE = 0.02
_MAX_MISPLACED_SHARE = 0.2
_IMAGE_PAGE = 0.5
_MIN_TEXT_ON_IMAGE = 0.05
_MIN_GLYPH_CURVES = 200
_MIN_FONT_WORDS = 40
_MIN_KNOWN_SHARE = 0.25
_MIN_MAPPED_LETTERS = 20
# Words the word lists can judge: Latin or Cyrillic letters only (other scripts are not checked).
_CHECKABLE = re.compile(r"[a-z\u00df-\u024f]+|[\u0430-\u045f]+")
# pyspellchecker's word lists of languages written in Latin or Cyrillic letters; English first.
_LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "nl", "ru", "lv", "eu")


def layer_unreadable(result: PdfResult, words: int) -> list[str]:
    """Why the text layer cannot be trusted to read as the pages show, with a code each:

    * ``pdf-order``: glyphs laid out on a line in an order that disagrees with their position
      (a word drawn backwards), at least 10 times and 2% of the words; or lines read before a
      line to their left on the same row (words drawn shuffled, which pdfminer lays out as
      lines of a word each), at least 10 times and a fifth of the lines;
    * ``pdf-font-map``: a font whose words are not words (a ToUnicode map that is permuted):
      of 40 or more words of four Latin or Cyrillic letters or more, fewer than a quarter are
      in the word list of any language pyspellchecker knows; or a font whose ToUnicode map
      gives other letters than its own encoding names for most of 20 letters or more; or a
      Type 0 font whose map reads most of 20 or more codes of shared glyphs as another letter
      than their glyph's (:func:`auditor.extract.pdf.interpreter.shared_glyphs`).
    """
    out = []
    backward = sum(int(s.get("backward", 0)) for s in result.signals)
    misplaced = sum(int(s.get("misplaced", 0)) for s in result.signals)
    lines = sum(int(s.get("lines", 0)) for s in result.signals)
    if backward >= _MIN_BACKWARD and backward > _MAX_BACKWARD_SHARE * max(words, 1):
        out.append(f"pdf-order: {backward} glyphs drawn out of their visual order on a line "
                   f"({words} words): the text cannot be read in the order a viewer shows it")
    elif misplaced >= _MIN_BACKWARD and misplaced > _MAX_MISPLACED_SHARE * max(lines, 1):
        out.append(f"pdf-order: {misplaced} of {lines} lines are read before a line to their left on "
                   "the same row: the text cannot be read in the order a viewer shows it")
    gibberish = _gibberish_fonts(result.fonts)
    lying = sorted({name for name, compared, differ in result.font_maps
                    if compared >= _MIN_MAPPED_LETTERS and differ > compared / 2} - set(gibberish))
    if gibberish:
        out.append(f"pdf-font-map: the words of font(s) {', '.join(gibberish[:3])} are not words of any known "
                   "language: their Unicode map does not say which letters they draw")
    if lying:
        out.append(f"pdf-font-map: the Unicode map of font(s) {', '.join(lying[:3])} gives most letters another "
                   "letter than the font's encoding or its glyphs do: it does not say which letters they draw")
    return out


def image_text(signals: dict) -> str | None:
    """Why one page's text layer misses what the page shows (``pdf-image-text``), or None: a page
    mostly covered by images (a scan) whose text layer covers under 5% of them, or a page drawn
    with more small filled outlines than glyphs (text converted to vector shapes). Such a page
    is read by OCR (:mod:`auditor.extract.pdf.pages`), or left unread."""
    if signals.get("image_share", 0) >= _IMAGE_PAGE and signals.get("text_on_image", 0) < _MIN_TEXT_ON_IMAGE:
        return "scan"
    curves = signals.get("glyph_curves", 0)
    if curves >= _MIN_GLYPH_CURVES and curves > signals.get("chars", 0):
        return "outlines"
    return None


IMAGE_TEXT = {"scan": "is mostly images with little or no text layer over them (scanned text)",
              "outlines": "draws more glyph-sized outlines than text (text converted to vector shapes)"}


def page_list(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers[:10])) + (f" and {len(numbers) - 10} more" if len(numbers) > 10 else "")


def _gibberish_fonts(fonts: dict[str, list[str]]) -> list[str]:
    bad = []
    for name in sorted(fonts):
        sample = [w for w in fonts[name] if len(w) >= 4 and _CHECKABLE.fullmatch(w)]
        if len(sample) < _MIN_FONT_WORDS:
            continue
        if not any(_known_share(sample, lang) >= _MIN_KNOWN_SHARE for lang in _LANGUAGES):
            bad.append(name)
    return bad


def _known_share(words: list[str], lang: str) -> float:
    known = _word_list(lang)
    return sum(1 for w in words if w in known) / len(words)


@functools.cache
def _word_list(lang: str) -> frozenset[str]:
    from spellchecker import SpellChecker

    return frozenset(SpellChecker(language=lang, distance=1).word_frequency.dictionary)
