"""Exact content fingerprints: the crawler's "content seen?" test.

The near-duplicate article (after Manning, Raghavan and Schütze 2008, §19.6) fingerprints a
page with 64 bits of a cryptographic hash: different fingerprints mean different content, equal
ones mean identical content with overwhelming probability. We hash the *normalised* text
(``auditor.text.normalize.normalize``), so copies that differ only in layout, case or typographic
forms get the same fingerprint; any change of a word gives an unrelated one.
"""

from __future__ import annotations

import hashlib

from auditor.text.normalize import normalize


def fingerprint(text: str) -> int:
    """First 64 bits (big-endian) of SHA-256 of the normalised text, as an unsigned int.

    The value can exceed 2**63 - 1; a SQLite column must store it as hex or as signed.
    """
    digest = hashlib.sha256(normalize(text).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big")


def fingerprint_hex(text: str) -> str:
    """``fingerprint(text)`` as 16 lower-case hex digits (the first 8 bytes of the digest)."""
    return f"{fingerprint(text):016x}"
