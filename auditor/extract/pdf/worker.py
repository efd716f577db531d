"""The parent's side of the ``pdf`` job (:mod:`auditor.extract.pdf.job` is the child's): one PDF
sent to a killable, memory-limited child of :mod:`auditor.sandbox.pool`, and its answer checked
and read as a :class:`PdfResult`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from auditor.errors import ExtractionError, refusal
from auditor.sandbox import pool as sandbox
from auditor.sandbox.pool import MEMORY_EXIT

__all__ = ["MEMORY_EXIT", "PdfResult", "run", "shutdown"]

_REPAIR = ("the PDF is damaged: repair it (qpdf damaged.pdf repaired.pdf) or print it to a new PDF from a "
           "viewer, and ingest that")
refusal("pdf_error", _REPAIR)
refusal("pdf_crash", _REPAIR)
refusal("pdf_encrypted", "decrypt it with its password (qpdf --decrypt --password=... in.pdf out.pdf) and "
                         "ingest the copy")
refusal("pdf_memory", "raise --pdf-memory-mb (the memory of the PDF reader), or ingest a smaller copy")
refusal("pdf_timeout", "raise --pdf-timeout (seconds per PDF), or ingest it alone on a less loaded machine")
refusal("pdf_cancelled", "run the same command again: it resumes where it stopped")
refusal("too_many_pages", "split it (qpdf in.pdf --split-pages=1000 part.pdf) and ingest the parts")
refusal("pdf_bomb", "if the PDF is genuine, ingest a copy printed again from a viewer, or read it with a larger "
                    "Limits.pdf_max_stream_bytes (library)")


@dataclass
class PdfResult:
    pages: list[str]
    version: str
    warnings: list[str] = field(default_factory=list)
    #: per page, every glyph's text when some were hidden from a viewer (else None)
    all_pages: list[str | None] = field(default_factory=list)
    #: per page, the strings of its annotations (shown or not)
    annotations: list[str] = field(default_factory=list)
    #: per page, measures of how far the text layer reads what the page shows
    signals: list[dict] = field(default_factory=list)
    #: font name -> a sample of the words drawn in it (lower-case)
    fonts: dict[str, list[str]] = field(default_factory=dict)
    #: [font name, letters its encoding names, of which its ToUnicode map says otherwise]
    font_maps: list[list] = field(default_factory=list)
    dates: dict[str, str] = field(default_factory=dict)  # /ModDate, /CreationDate, XMP, as found
    #: per page, its visible lines read row by row, left to right, when that reads otherwise
    row_pages: list[str | None] = field(default_factory=list)
    #: the engine that read the file (pdfminer.six; after a repair by qpdf; or pdfium)
    reader: str = ""


class _Worker(sandbox.Worker):
    """One PDF child."""

    job = "pdf"
    prefix = "pdf_"
    what = "PDF"
    retire_after = 200

    def extract(self, data: bytes, request: dict, deadline: float) -> PdfResult:
        msg, _ = self.call(request, data, deadline)
        try:
            return _result(msg)
        except ExtractionError:
            self.close()
            raise


def _result(msg: dict) -> PdfResult:
    """A child's answer as a ``PdfResult``; ``pdf_crash`` when it is not one."""
    pages = msg.get("pages")
    if not isinstance(pages, list) or not all(isinstance(p, str) for p in pages):
        raise ExtractionError("pdf_crash", "PDF worker gave a malformed result")
    n = len(pages)
    all_pages = msg.get("all_pages") or [None] * n
    annotations = msg.get("annotations") or [""] * n
    signals = msg.get("signals") or [{} for _ in range(n)]
    fonts = msg.get("fonts") or {}
    row_pages = msg.get("row_pages") or [None] * n
    if not (len(all_pages) == len(annotations) == len(signals) == len(row_pages) == n and isinstance(fonts, dict)
            and all(p is None or isinstance(p, str) for p in all_pages + row_pages)
            and all(isinstance(a, str) for a in annotations) and all(isinstance(x, dict) for x in signals)):
        raise ExtractionError("pdf_crash", "PDF worker gave a malformed result")
    maps = [[str(m[0]), int(m[1]), int(m[2])] for m in msg.get("font_maps") or []
            if isinstance(m, list) and len(m) == 3]
    found = msg.get("dates")
    return PdfResult(pages, str(msg.get("version", "")), [str(w) for w in msg.get("warnings", [])],
                     all_pages, annotations, signals,
                     {str(k): [str(w) for w in v] for k, v in fonts.items() if isinstance(v, list)}, maps,
                     {str(k)[:64]: str(v)[:200] for k, v in found.items()} if isinstance(found, dict) else {},
                     row_pages, str(msg.get("reader", "")))


_POOL = sandbox.register(sandbox.Pool(_Worker))


def run(data: bytes, *, timeout: float, memory: int, max_pages: int, max_chars: int,
        max_stream_bytes: int = 64 * 2**20) -> PdfResult:
    """Extract the text of each page of ``data`` in a child process. Thread-safe.

    Raises ExtractionError with code ``pdf_timeout``, ``pdf_memory``, ``pdf_encrypted``,
    ``pdf_error``, ``pdf_crash``, ``pdf_bomb``, ``too_many_pages`` or ``text_too_long``.
    """
    request = {"max_pages": int(max_pages), "max_chars": int(max_chars), "timeout": float(timeout),
               "max_stream_bytes": int(max_stream_bytes)}
    # the pool retries a reused child that ran out of memory in a fresh one, within this deadline
    msg, _ = _POOL.run(request, data, memory=int(memory), deadline=time.monotonic() + timeout)
    return _result(msg)


def shutdown() -> None:
    """Stop every idle PDF child of this process (they also exit when the parent does)."""
    _POOL.clear()
