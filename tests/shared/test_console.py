"""auditor.console: what is printed from data is inert, and nothing else changes."""

from __future__ import annotations

import io
import json
import unicodedata

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from auditor.console import clean, json_safe, markup, text

UNSAFE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def test_controls_bidi_and_separators_are_made_visible():
    assert clean("a\x1b[2Jb\x07c\rd\u202ee\u2028f\x9bg") == "a\\x1b[2Jb\\x07c\\rd\\u202ee\\u2028f\\x9bg"
    assert clean("tab\there\nline") == "tab\\there\\nline"
    assert clean("tab\there\nline", keep_newlines=True) == "tab\\there\nline"
    assert clean("lone \udcff surrogate") == "lone \\udcff surrogate"
    assert clean("\U000e0041 tag") == "\\U000e0041 tag"


def test_ordinary_text_is_left_alone():
    for s in ("Café contrat", "契約書 第3条", "Ελληνικά", "a [b] c", "emoji \U0001F600", "100% sure: yes, no"):
        assert clean(s) == s


@given(st.text())
def test_clean_leaves_no_unsafe_character(s):
    assert not any(unicodedata.category(c) in UNSAFE for c in clean(s))


@given(st.recursive(st.text() | st.integers() | st.none(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                    max_leaves=12))
def test_json_safe_is_the_same_json_value_with_nothing_raw(value):
    safe = json_safe(json.dumps(value, ensure_ascii=False, indent=2))
    assert json.loads(safe) == value
    assert not any(c != "\n" and unicodedata.category(c) in UNSAFE for c in safe)


def test_data_is_never_read_as_markup():
    buf = io.StringIO()
    console = Console(file=buf, emoji=False, width=200, force_terminal=True, color_system="truecolor")
    console.print(f"[bold]label[/]: {markup('[link=https://evil]x[/] :smile: [/]')}", highlight=False)
    console.print(text("[/] and [red]not red[/red]\x1b[31m"))
    out = buf.getvalue()
    assert "[link=https://evil]x[/] :smile: [/]" in out
    assert "[/] and [red]not red[/red]\\x1b[31m" in out
    assert "\x1b]8;" not in out  # no hyperlink escape was emitted
