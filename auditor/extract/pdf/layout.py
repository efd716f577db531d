"""A laid-out page (pdfminer.six's ``LTPage``) as text: as pdfminer's TextConverter writes it,
and row by row as a reader reads a page."""

from __future__ import annotations

from typing import Any


def rows(page, text: str) -> str | None:  # type: ignore[no-untyped-def]
    """The page's text lines row by row, top to bottom, each row left to right: the order a
    reader reads a page in, which pdfminer's text boxes do not keep when the words of a row lie
    far apart (wide gaps, or the places of glyphs left out as hidden) and it stacks words of
    many rows into one box. None when that gives the words of ``text`` in the same order."""
    from pdfminer.layout import LTTextBox, LTTextLineHorizontal

    lines = [line for box in page if isinstance(box, LTTextBox)
             for line in box if isinstance(line, LTTextLineHorizontal) and line.get_text().strip()]
    if len(lines) < 2:
        return None
    lines.sort(key=lambda ln: (-(ln.y0 + ln.y1) / 2, ln.x0))
    rows: list[list[Any]] = []
    for line in lines:
        top = rows[-1][0] if rows else None
        if top is not None and min(top.y1, line.y1) - max(top.y0, line.y0) > 0.5 * min(top.height, line.height):
            rows[-1].append(line)
        else:
            rows.append([line])
    out = "\n".join(" ".join(ln.get_text().strip() for ln in sorted(row, key=lambda ln: ln.x0)) for row in rows) + "\n"
    return None if out.split() == text.split() else out


def layout_text(page) -> str:  # type: ignore[no-untyped-def]
    """The page's text as pdfminer's TextConverter writes it."""
    from pdfminer.layout import LTContainer, LTText, LTTextBox

    out: list[str] = []

    def render(item) -> None:  # type: ignore[no-untyped-def]
        if isinstance(item, LTContainer):
            for child in item:
                render(child)
        elif isinstance(item, LTText):
            out.append(item.get_text())
        if isinstance(item, LTTextBox):
            out.append("\n")

    render(page)
    return "".join(out)
