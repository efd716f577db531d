"""PDF through pdfminer.six in a killable child process (:mod:`auditor.pdfworker`), with page
boundaries kept, letter-spaced words rejoined, and the signs that the text layer is not a
reading of the page (unmapped glyphs, shattered or fragmented letter-spaced text) recorded."""

from __future__ import annotations

import re

from auditor import dates, pdfworker
from auditor.errors import ExtractionError
from auditor.extract.common import Extracted, Limits, check_text, storable, version_of


def _pdf(data: bytes, limits: Limits) -> tuple[list[str], pdfworker.PdfResult]:
    result = pdfworker.run(
        data, timeout=limits.pdf_timeout, memory=limits.pdf_memory,
        max_pages=limits.max_pdf_pages, max_chars=limits.max_text_chars)
    warnings = result.warnings
    pages = [storable(p, warnings) for p in result.pages]
    return pages, result


def extract_pdf_pages(data: bytes, limits: Limits = Limits()) -> list[str]:
    """The text of each page of a PDF, extracted in a killable child process."""
    return _pdf(data, limits)[0]


# Letter-spaced text as pdfminer gives it: one space between the letters of a word, two or more
# between words ("S U P P L Y   A G R E E M E N T").
_SPACED_WORD = re.compile(r"(?<![^\s])(?:[^\s] )+[^\s](?![^\s])")
_WORD_GAP = re.compile(r"( {2,}|\t|\n)")
_CID_RUN = re.compile(r"(?:\(cid:\d+\))+")
_TOKEN = re.compile(r"[^\W_]+")
# Limits beyond which a PDF's text is not a reading of it (see _pdf_unreadable).
_MAX_CID_SHARE = 0.01
_MAX_SINGLE_LETTERS = 0.15
_MIN_SPACED_SHARE = 0.2
_SHORT_BLOCK = 3


def _join_letter_spaced(page: str) -> tuple[str, int]:
    """Rejoin letter-spaced words where word gaps are wider than letter gaps; (text, words)."""
    if "  " not in page and "\t" not in page:
        return page, 0
    joined = 0

    def segment(seg: str) -> str:
        nonlocal joined
        if _SPACED_WORD.fullmatch(seg):
            joined += 1
            return seg.replace(" ", "")
        return seg

    pieces = _WORD_GAP.split(page)
    out = [p if i % 2 else segment(p) for i, p in enumerate(pieces)]
    if not joined:
        return page, 0
    return "".join(p if not i % 2 or not p.startswith("  ") else " " for i, p in enumerate(out)), joined


def _pdf_unreadable(text: str, letter_spaced: int) -> str | None:
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
        return (f"{in_word} glyphs without a Unicode mapping ((cid:N)) inside words: the PDF's "
                "fonts do not say which letters they draw")
    tokens = _TOKEN.findall(_CID_RUN.sub(" ", text))
    singles = sum(1 for t in tokens if len(t) == 1 and t.lower() not in ("a", "i") and not t.isdigit())
    if tokens and singles > _MAX_SINGLE_LETTERS * len(tokens):
        return f"{singles} of {len(tokens)} words are single letters: letter-spaced text that cannot be rejoined"
    if letter_spaced > _MIN_SPACED_SHARE * len(tokens):
        blocks = [len(_TOKEN.findall(b)) for b in re.split(r"\n\s*\n", text)]
        blocks = [n for n in blocks if n]
        short = sum(1 for n in blocks if n <= _SHORT_BLOCK)
        if short >= 3 and short > len(blocks) / 3:
            return (f"letter-spaced text broken into fragments ({short} of {len(blocks)} blocks hold "
                    f"{_SHORT_BLOCK} words or fewer): the word order cannot be trusted")
    return None


def extract_pdf(data: bytes, limits: Limits) -> Extracted:
    pages, result = _pdf(data, limits)
    offsets: list[int] = []
    chunks: list[str] = []
    pos = 0
    letter_spaced = 0
    for page in pages:
        page, joined = _join_letter_spaced(page)
        letter_spaced += joined
        offsets.append(pos)
        if page and not page.endswith("\n"):
            page += "\n"
        chunks.append(page)
        pos += len(page)
    text = "".join(chunks)
    if not text.strip():
        raise ExtractionError(
            "no_text", f"PDF has no text layer in its {len(pages)} page(s): scanned images need OCR")
    check_text(text, "PDF", limits)
    warnings = list(result.warnings)
    unmapped = text.count("(cid:")
    if unmapped:
        warnings.append(f"{unmapped} glyphs without a Unicode mapping appear as (cid:N)")
    if letter_spaced:
        warnings.append(f"rejoined {letter_spaced} letter-spaced words")
    return Extracted("pdf", text, "pdfminer.six", result.version or version_of("pdfminer.six"),
                     page_offsets=offsets, warnings=warnings, unreadable=_pdf_unreadable(text, letter_spaced),
                     meta=dates.recorded(result.dates))
