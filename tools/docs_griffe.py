"""A griffe extension for the API reference: Sphinx roles in docstrings as Markdown code.

The docstrings name other objects the Sphinx way (``:class:`~auditor.store.db.Store```). The
site renders Markdown, where such a role would show as typed. This writes it as the code span a
reader expects: `Store` (``~`` keeps the last name, as Sphinx does), or the name as written.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([^`]+)`")


def plain(text: str) -> str:
    return ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2).lstrip('.')}`", text)


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
