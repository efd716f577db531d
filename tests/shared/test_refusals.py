"""Every refusal names its fix: each code the readers and ingest raise has one, declared with
``auditor.errors.refusal`` beside the code that raises it, and recorded messages end with it."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import auditor
from auditor.errors import (
    FIX_MARK,
    ExtractionError,
    fix_for,
    split_fix,
    with_fix,
    with_reason_fixes,
)

ROOT = Path(auditor.__file__).parent

# Where a refusal code is written as a literal: raised, returned as (code, message), recorded by the
# walk (Found), or given as the code of a reason a text is not auditable ("code: what").
_RAISED = [
    re.compile(r"""(?:ExtractionError|Unreadable|Fail)\(\s*f?["']([^"']+)["']"""),
    re.compile(r"""Found\([^()]*?["'](?:failed|skipped)["'],\s*["']([^"']+)["']"""),
    re.compile(r"""["']error["']:\s*\(\s*["']([a-z_:]+)["']"""),
    re.compile(r"""return\s+\(?["']([a-z][a-z_:]+)["'],\s*f?["']"""),
    re.compile(r"""Part\([^()]*?["'](?:failed|skipped)["'],\s*None,\s*f?["']([^"']+)["']"""),
]
_REASON = re.compile(r"""(?<![\w"'])f?["']([a-z]+(?:-[a-z]+)+): """)


def raised_codes() -> set[str]:
    """Every refusal code written in the package's source, ``{self.prefix}`` expanded as the
    sandbox workers expand it ("" and "pdf_"), other placeholders cut to the family."""
    found: set[str] = set()
    for path in sorted(ROOT.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        for pattern in (*_RAISED, _REASON):
            for code in pattern.findall(source):
                for prefix in ("", "pdf_") if "{self.prefix}" in code else ("",):
                    code = code.replace("{self.prefix}", prefix)
                    found.add(code.split(":", 1)[0] + ":" if "{" in code else code)
    return found


def load_every_declaration() -> None:
    """Import every module that can raise a refusal (each declares its fixes as it loads)."""
    import auditor.corpus.ingest
    import auditor.extract

    for info in pkgutil.walk_packages(auditor.extract.__path__, "auditor.extract."):
        importlib.import_module(info.name)
    for name in ("auditor.sandbox.pool", "auditor.sandbox.pdfworker", "auditor.store.files"):
        importlib.import_module(name)


def test_the_scan_finds_the_codes_it_is_meant_to_find():
    """It cannot pass by finding nothing: codes of every kind of site are among what it reads."""
    codes = raised_codes()
    assert {"pdf_error", "pdf_crash", "crash", "symlink_outside", "changed", "too_many_parts",
            "memory", "recursion", "binary:", "pdf-image-text", "letter-spaced", "docx-altchunk",
            "css-order", "text-columns", "rtf-hidden"} <= codes, sorted(codes)


def test_every_refusal_code_has_a_fix():
    load_every_declaration()
    missing = sorted(c for c in raised_codes() if not fix_for(c.rstrip(":")))
    assert not missing, f"declare a fix for these codes with auditor.errors.refusal(code, fix): {missing}"
    assert fix_for("no-such-code") is None and fix_for(None) is None


def test_a_message_ends_with_its_fix_once():
    load_every_declaration()
    e = ExtractionError("pdf_encrypted", "PDF is encrypted and needs a password")
    assert str(e).startswith("PDF is encrypted and needs a password" + FIX_MARK) and "qpdf --decrypt" in e.fix
    again = ExtractionError(e.code, str(e))  # what the parent raises from the child's answer
    assert str(again) == str(e) and split_fix(str(again)) == ("PDF is encrypted and needs a password", e.fix)
    assert with_fix("binary:xlsx", "a spreadsheet").endswith(fix_for("binary"))  # the family's fix
    assert with_fix("no-such-code", "what happened") == "what happened"
    assert split_fix("no fix here") == ("no fix here", None)


@pytest.mark.parametrize("reasons, fixed", [
    ("pdf-cid: 3 glyphs without a mapping", ["pdf-cid"]),
    ("text decoded as cp1252 is gibberish; as HTML: css-order: flex items wrapped", ["css-order"]),
    ("pdf-order: drawn backwards; pdf-image-text: page(s) 2 are images", ["pdf-order", "pdf-image-text"]),
    ("HTML body: css-order: grid items; attachment.pdf: pdf-cid: 9 glyphs", ["css-order", "pdf-cid"]),
    ("XML not well-formed at line 3: text may be missing", []),
])
def test_each_reason_not_to_audit_is_followed_by_its_fix(reasons, fixed):
    load_every_declaration()
    out = with_reason_fixes(reasons)
    assert out.count(FIX_MARK) == len(fixed)
    for code in fixed:
        at = out.index(code + ": ")
        assert out.index(FIX_MARK + fix_for(code), at) > at
    for code in fixed:  # nothing else changes: without the fixes, the reasons as they were
        out = out.replace(FIX_MARK + fix_for(code), "", 1)
    assert out == reasons
    assert with_reason_fixes(with_reason_fixes(reasons)) == with_reason_fixes(reasons)  # once
