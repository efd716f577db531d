"""Measures of how far a page's text layer reads what the page shows, for the checks of
:mod:`auditor.extract.pdf.checks`: glyphs drawn out of their visual order on a line, lines read
before a line to their left, how much of the page images cover and how much text lies over them,
glyphs drawn as vector outlines; and a sample of the words of each font (the font-map check)."""

from __future__ import annotations

import itertools
import re
import unicodedata

from auditor.extract.pdf import geometry as geo

MAX_FONT_WORDS = 400
WORDS = re.compile(r"[^\W\d_]{2,}")
_RTL = ("R", "AL")


def page_signals(device, shown, visible, ltpage) -> dict:  # type: ignore[no-untyped-def]
    """The measures of one page (see the module docstring), from its laid-out visible text
    (``shown``), its visible glyphs and what ``device`` collected while the page was drawn."""
    from pdfminer.layout import LTChar, LTTextBox, LTTextLineHorizontal

    backward = misplaced = lines = 0
    fonts = device.font_words
    prev_line = None
    rows: dict[int, list[tuple[float, float, float]]] = {}
    for box in shown:
        if not isinstance(box, LTTextBox):
            continue
        for line in box:
            if not isinstance(line, LTTextLineHorizontal):
                continue
            glyphs = [o for o in line if isinstance(o, LTChar) and o.get_text().strip()]
            if not glyphs:
                continue
            lines += 1
            rows.setdefault(round((line.y0 + line.y1) / 2), []).append((line.x0, line.x1, line.height))
            bucket = fonts.setdefault(str(glyphs[0].fontname), [])
            if len(bucket) < MAX_FONT_WORDS:
                bucket.extend(WORDS.findall(line.get_text().lower()))
            for a, b in itertools.pairwise(glyphs):
                if ((b.x0 + b.x1) / 2 < (a.x0 + a.x1) / 2 - 0.25 * a.size
                        and not is_rtl(a) and not is_rtl(b)):
                    backward += 1
            # The line read after another on the same row must lie to its right.
            if (prev_line is not None and line.x0 < prev_line.x0 - 1
                    and min(line.y1, prev_line.y1) - max(line.y0, prev_line.y0)
                    > 0.5 * min(line.height, prev_line.height) and not is_rtl(glyphs[0])):
                misplaced += 1
            prev_line = line
    # Lines of one row less than an em apart were drawn apart: pdfminer joins
    # the glyphs of a row into one line when they are drawn one after the other.
    split = 0
    for row in rows.values():
        row.sort()
        for (_, a1, h), (b0, _, _) in itertools.pairwise(row):
            if -0.1 * h < b0 - a1 < h:
                split += 1
    area = max(ltpage.width * ltpage.height, 1.0)
    clipped = [geo.meet(im, (ltpage.x0, ltpage.y0, ltpage.x1, ltpage.y1)) for im in device.images]
    image_area = sum(max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1]) for b in clipped if b)
    on_image = sum(ch.width * ch.height for ch in visible
                   if any(geo.inside((ch.x0 + ch.x1) / 2, (ch.y0 + ch.y1) / 2, im) for im in clipped)) if clipped else 0.0
    return {"backward": backward, "misplaced": misplaced + split, "lines": lines, "chars": len(visible),
            "image_share": min(1.0, image_area / area),
            "text_on_image": on_image / image_area if image_area else 0.0,
            "glyph_curves": device.glyph_curves, "layer_chars": getattr(device, "layer_chars", 0),
            "covered": [[*box, n, "".join(text)] for box, (n, text, _) in sorted(getattr(device, "covered", {}).items())
                        if n and "".join(text).strip()][:20]}


def is_rtl(ch) -> bool:  # type: ignore[no-untyped-def]
    """Whether a glyph is of a right-to-left script (drawn leftwards, not out of order)."""
    t = ch.get_text()
    return bool(t) and unicodedata.bidirectional(t[0]) in _RTL
