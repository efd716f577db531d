"""Data shown on a terminal or in a CI log, made harmless.

File names and texts come from batch submitters, who may be hostile: a name can hold ESC and
OSC sequences (colours, hyperlinks, window titles, cleared screens), BEL, CR (overwriting what
was printed), bidirectional overrides (U+202E shows ``exe.txt`` for ``txt.exe``) or rich markup
(``[link=...]``, or ``[/]``, which makes rich raise). Everything printed from data goes through
:func:`clean` (control, format, surrogate, unassigned and line-separator characters become
visible escapes such as ``\\x1b`` and ``\\u202e``) and, where rich renders it, :func:`markup`
or :func:`text`, which keep it from being read as markup.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich is imported when a Text is made, not with this module
    from rich.text import Text

__all__ = ["clean", "json_safe", "markup", "text"]

_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    n = ord(ch)
    if ch in _SHORT:
        return _SHORT[ch]
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def _unsafe(ch: str, keep: str) -> bool:
    return ch not in keep and unicodedata.category(ch) in _ESCAPED_CATEGORIES


def clean(s: object, *, keep_newlines: bool = False, keep: str = "") -> str:
    """``s`` with every character a terminal or log viewer could act on made visible.

    Tabs and newlines are escaped too, unless ``keep_newlines`` (for multi-line messages);
    ``keep`` names further characters the caller escapes its own way.
    """
    s = str(s)
    if s.isprintable():  # the common case: nothing to do
        return s
    keep += "\n" if keep_newlines else ""
    return "".join(_escape(ch) if _unsafe(ch, keep) else ch for ch in s)


def markup(s: object, *, keep_newlines: bool = False) -> str:
    """Data to interpolate into a rich markup string: cleaned, and its brackets escaped."""
    from rich.markup import escape

    return escape(clean(s, keep_newlines=keep_newlines))


def text(s: object, style: str = "") -> Text:
    """Data as a rich ``Text`` (never parsed as markup), for table cells and prints."""
    from rich.text import Text

    return Text(clean(s), style=style)


def json_safe(dumped: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with every unsafe character
    written as a ``\\uXXXX`` escape: the same JSON value, but nothing raw reaches a terminal.
    Such characters can only occur inside JSON strings, where the escape means the same."""
    if dumped.isprintable():
        return dumped
    out = []
    for ch in dumped:
        if _unsafe(ch, "\n"):
            n = ord(ch)
            if n >= 0x10000:
                n -= 0x10000
                out.append(f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}")
            else:
                out.append(f"\\u{n:04x}")
        else:
            out.append(ch)
    return "".join(out)
