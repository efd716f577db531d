"""Pages whose text a reader sees only after their scripts run (issue #36).

Scripts are not run, so what a script writes into a page is not read. Failing closed on every
script would refuse ordinary pages: 53 of the 195 EDGAR HTML pages that edgartools ships as
test fixtures carry one (the XBRL viewer's R pages, with 30 to 1,200 words of static tables and
a script that only toggles their display; fund pages; a proxy statement). What marks a page
built by its script is little static text beside a script that writes the page:

- a DOM-writing call in an inline script (``document.write``, ``innerHTML``, ``appendChild``,
  ``insertAdjacentHTML``, jQuery's ``.html()``/``.append()``/``.load()``, ``fetch`` or
  ``XMLHttpRequest``, a React/Vue/Angular mount), or
- an empty mount point for a script (``<div id="root"></div>``, ``ng-app``, ``data-reactroot``,
  ``v-cloak``...) or a ``noscript`` asking for JavaScript, beside a script;

with fewer than :data:`STATIC_WORDS` visible words; or, whatever the page's size, inline scripts
that write the page and whose string literals hold more words than the page shows (the text is
in the script). Such a page is unreadable (``script-built:``): its stored text is not what a
reader reads, so a gate does not vouch for it.
"""

from __future__ import annotations

import re

STATIC_WORDS = 200
FIX = "save the page as a browser shows it (print it to PDF, or save its rendered HTML) and ingest that"
_EXECUTABLE = frozenset({"", "text/javascript", "application/javascript", "module", "text/ecmascript",
                         "application/ecmascript", "text/jsx", "text/babel"})
_WRITES = re.compile(
    r"document\s*\.\s*write(?:ln)?\s*\(|\.\s*(?:innerHTML|outerHTML|innerText|textContent)\s*\+?=|"
    r"insertAdjacent(?:HTML|Element|Text)\s*\(|\.\s*(?:appendChild|append|prepend|replaceChildren|replaceWith|"
    r"insertBefore)\s*\(|createElement\s*\(|\$\([^)]*\)\s*\.\s*(?:html|append|prepend|load|text)\s*\(|"
    r"\bfetch\s*\(|XMLHttpRequest|\.\s*ajax\s*\(|ReactDOM|createRoot\s*\(|\bhydrate(?:Root)?\s*\(|"
    r"createApp\s*\(|new\s+Vue\s*\(|angular\s*\.\s*(?:module|bootstrap)|\.\s*mount\s*\(", re.I)
_MOUNT_IDS = frozenset({"root", "app", "__next", "__nuxt", "___gatsby", "react-root", "app-root", "main-app",
                        "svelte", "ember-application"})
_MOUNT_ATTRS = ("ng-app", "data-ng-app", "ng-view", "data-reactroot", "v-cloak", "data-v-app", "x-data")
_LITERAL = re.compile(r"'(?:[^'\\\n]|\\.){20,}'|\"(?:[^\"\\\n]|\\.){20,}\"|`(?:[^`\\]|\\.){20,}`", re.S)
_TAGS = re.compile(r"<[^<>]*>")
_WORD = re.compile(r"[^\W\d_]{2,}")


def script_built(tree: object, visible_words: int) -> str | None:
    """The ``script-built:`` reason when a parsed page (a selectolax tree) looks built by its
    scripts, else None."""
    scripts = [s for s in tree.css("script")  # type: ignore[attr-defined]
               if (s.attributes.get("type") or "").strip().lower() in _EXECUTABLE]
    if not scripts:
        return None
    inline = "\n".join(s.text(deep=True) or "" for s in scripts if not s.attributes.get("src"))
    writes = sorted({m.group(0).split("(")[0].strip(" .=+$").lower() for m in _WRITES.finditer(inline)})[:4]
    if writes:
        literal_words = sum(len(_WORD.findall(_TAGS.sub(" ", m.group(0)))) for m in _LITERAL.finditer(inline))
        if visible_words < STATIC_WORDS or literal_words > max(50, visible_words):
            where = (f"its scripts' strings hold {literal_words} words" if literal_words > visible_words
                     else "a browser shows what they write")
            return (f"script-built: the page shows {visible_words} words without its scripts, which write the page "
                    f"({', '.join(writes)}); {where}, and scripts are not run: {FIX}")
    if visible_words < STATIC_WORDS:
        mount = _empty_mount(tree)
        if mount:
            return (f"script-built: the page shows {visible_words} words without its scripts and has {mount} for a "
                    f"script to fill; a browser shows what the script writes, and scripts are not run: {FIX}")
    return None


def _empty_mount(tree: object) -> str | None:
    for node in tree.css("[id], " + ", ".join(f"[{a}]" for a in _MOUNT_ATTRS)):  # type: ignore[attr-defined]
        attrs = node.attributes
        ident = (attrs.get("id") or "").strip().lower()
        if (ident in _MOUNT_IDS or any(a in attrs for a in _MOUNT_ATTRS)) and \
                len((node.text(deep=True) or "").split()) < 10:
            return f"an empty mount point (<{node.tag} {'id=' + repr(ident) if ident in _MOUNT_IDS else 'with a framework attribute'}>)"
    for node in tree.css("noscript"):  # type: ignore[attr-defined]
        if "javascript" in (node.text(deep=True) or "").lower():
            return "a noscript notice asking for JavaScript"
    return None
