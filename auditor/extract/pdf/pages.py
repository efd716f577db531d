"""Each page read as a reader reads it: its text layer, or OCR of its rendering where the layer
misses what the page shows; and the pages that cannot be read, refused by the page.

With ``ocr="auto"`` (the default) a page is rendered and recognised when it is a scan, when it
draws text as vector outlines, when it has no text but draws something, when images cover a
tenth of it with no text over them, or when its text is an invisible layer over an image (an
OCR layer someone else made, checked by our own). ``"always"`` recognises every page, ``"never"``
none. The recognised text replaces the page's layer when the layer holds less than 80% of the
recognised words; otherwise the layer stays (it is the better reading of the same words) and the
recognition is kept as the ``pdf:ocr`` reading.

A page that needs OCR and cannot have it (no engine, ``--ocr never``, a failure of the engine, or
a recognition whose mean confidence is under 60: a map, a photograph, an illegible scan) is
*unread*. A document is audited on the pages it can read; it is refused whole (``unreadable``)
only when more than a quarter of its pages are unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from auditor.errors import fix_for
from auditor.extract.common import Limits, storable
from auditor.extract.pdf import checks
from auditor.extract.pdf.ocr import PageOcr, read_page

MODES = ("auto", "always", "never")
#: a page is OCR'd when images cover this share of it with (almost) no text over them
_IMAGE_SHARE = 0.1
_MAX_TEXT_ON_IMAGE = 0.05
#: the layer stays when it holds this share of the recognised words
_LAYER_HOLDS = 0.8
#: a recognition of lower mean word confidence (0-100) does not read the page
MIN_CONFIDENCE = 60.0
#: a document with a larger share of unread pages is refused whole
MAX_UNREAD_SHARE = 0.25
_WORD = re.compile(r"[^\W_]{2,}")

WHY = {"scan": "a scan", "outlines": "text drawn as vector outlines", "no-text": "no text layer",
       "image": "images with no text over them", "ocr-layer": "an invisible text layer over an image",
       "always": "--ocr always"}


def wanted(signals: dict, mode: str) -> str | None:
    """Why a page is to be recognised (a key of ``WHY``), or None."""
    if mode == "never":
        return None
    if mode == "always":
        return "always"
    image_text = checks.image_text(signals)
    if image_text:
        return image_text
    share, on_image = signals.get("image_share", 0), signals.get("text_on_image", 0)
    if not signals.get("chars", 0) and (share > 0 or signals.get("glyph_curves", 0) > 0):
        return "no-text"
    if share >= _IMAGE_SHARE and on_image < _MAX_TEXT_ON_IMAGE:
        return "image"
    if signals.get("layer_chars", 0):
        return "ocr-layer"
    return None


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def layer_holds(layer: str, recognised: str) -> float:
    """The share of the recognised words that the layer holds (1.0 when OCR found none)."""
    seen = _words(recognised)
    if not seen:
        return 1.0
    have = set(_words(layer))
    return sum(1 for w in seen if w in have) / len(seen)


@dataclass
class PageReading:
    """What was decided for one page (0-based ``page``)."""

    page: int
    why: str
    used: str  # "ocr", "layer" or "unread"
    ocr: PageOcr | None = None
    reason: str | None = None  # why it is unread


@dataclass
class Pages:
    """The pages as read: their texts, the OCR reading, and what was decided for each page."""

    texts: list[str]
    ocr_texts: list[str]
    decided: list[PageReading] = field(default_factory=list)
    mode: str = "auto"

    @property
    def unread(self) -> list[PageReading]:
        return [d for d in self.decided if d.used == "unread"]

    @property
    def recognised(self) -> list[PageReading]:
        return [d for d in self.decided if d.ocr is not None and d.ocr.code is None]

    def meta(self, n_pages: int) -> dict[str, Any]:
        """What is recorded with the document: the engine and rendering, each page's decision,
        the unread pages and their share."""
        out: dict[str, Any] = {}
        done = self.recognised
        if done:
            first = done[0].ocr
            assert first is not None
            out["ocr"] = {**first.engine, "renderer": first.renderer, "dpi": first.dpi, "mode": self.mode,
                          "pages": [{"page": d.page + 1, "why": d.why, "used": d.used,
                                     "confidence": d.ocr.confidence, "words": d.ocr.words,
                                     "image_sha256": d.ocr.digest} for d in done if d.ocr is not None]}
        if self.unread:
            out["unread_pages"] = [{"page": d.page + 1, "reason": d.reason} for d in self.unread]
            out["unread_share"] = round(len(self.unread) / max(n_pages, 1), 4)
        return out


_COPY = "ingest a sharper scan or a copy with a text layer"


def _unread_reason(page: int, why: str, ocr: PageOcr | None, mode: str) -> str:
    what = checks.IMAGE_TEXT.get(why, f"has {WHY.get(why, why)}")
    if ocr is None:
        fix = "OCR is off (--ocr never): run with --ocr auto" if mode == "never" else "it needs OCR: run with --ocr auto"
    elif ocr.code == "ocr_unavailable":
        fix = f"OCR failed ({ocr.message})"
    elif ocr.code is not None:
        fix = f"OCR failed ({ocr.code}: {ocr.message}): {fix_for(ocr.code) or _COPY}"
    else:
        fix = (f"OCR's mean word confidence is {ocr.confidence:.0f}, under {MIN_CONFIDENCE:.0f} "
               f"(a map, a picture or an illegible scan): if it holds text, {_COPY}")
    return f"page {page + 1} {what}, and {fix}"


def read(data: bytes, layer: list[str], signals: list[dict], limits: Limits) -> Pages:
    """Each page's text as a reader reads it (see the module docstring); ``layer`` holds the
    visible text of each page's layer. Pages are recognised one by one, each in a child with
    its own deadline (``Limits.ocr_page_timeout``)."""
    mode = limits.ocr if limits.ocr in MODES else "auto"
    out = Pages(list(layer), list(layer), mode=mode)
    unavailable: PageOcr | None = None
    for i, s in enumerate(signals):
        why = wanted(s, mode)
        must = checks.image_text(s) is not None or (not s.get("chars", 0) and why == "no-text")
        if why is None and not (mode == "never" and checks.image_text(s)):
            continue
        if why is None:  # --ocr never, on a page that needs it
            out.decided.append(PageReading(i, checks.image_text(s) or "scan", "unread",
                                           reason=_unread_reason(i, checks.image_text(s) or "scan", None, mode)))
            continue
        ocr = unavailable or read_page(data, i, timeout=limits.ocr_page_timeout, memory=limits.pdf_memory)
        if ocr.code == "ocr_unavailable":
            unavailable = PageOcr(i, code=ocr.code, message=ocr.message)
        if ocr.code is not None or (must and ocr.words and ocr.confidence < MIN_CONFIDENCE):
            if must:
                out.decided.append(PageReading(i, why, "unread", ocr, _unread_reason(i, why, ocr, mode)))
            elif ocr.code is not None and ocr.code != "ocr_unavailable":
                out.decided.append(PageReading(i, why, "layer", ocr))
            continue
        text = storable(ocr.text, [])
        text = text if text.endswith("\n") or not text else text + "\n"
        out.ocr_texts[i] = text
        if ocr.confidence < MIN_CONFIDENCE or layer_holds(layer[i], text) >= _LAYER_HOLDS:
            out.decided.append(PageReading(i, why, "layer", ocr))
        else:
            out.texts[i] = text
            out.decided.append(PageReading(i, why, "ocr", ocr))
    return out


def refusal(pages: Pages, n_pages: int) -> str | None:
    """Why the document is refused whole for its unread pages (``pdf-image-text``), or None when
    few enough are unread; the reason names the pages and the fix."""
    unread = pages.unread
    if not unread or len(unread) <= MAX_UNREAD_SHARE * n_pages:
        return None
    numbers = checks.page_list([d.page + 1 for d in unread])
    first = unread[0].reason or ""
    return (f"pdf-image-text: {len(unread)} of {n_pages} page(s) cannot be read ({numbers}), more than "
            f"{MAX_UNREAD_SHARE:.0%}: {first}")
