"""PDF text extraction in disposable child processes (the ``pdf`` job of :mod:`auditor.sandbox`).

pdfminer.six can loop forever, exhaust memory or recurse without bound on hostile or merely
broken PDFs, and has no timeout of its own. So the parent never parses a PDF: each one goes to
a ``python -m auditor.sandbox pdf`` child with an address-space limit, which is killed when the
wall-clock deadline passes (see :mod:`auditor.sandbox` for the protocol, reuse of idle children
and how they die with their parent).

A reference cycle (``3 0 obj 4 0 R endobj`` and ``4 0 obj 3 0 R endobj``, a few hundred bytes)
makes pdfminer.six's ``resolve1`` spin forever, so every such PDF would cost the whole time
limit. The child follows chains of indirect references itself and fails the PDF
(``pdf_error``) as soon as a chain comes back to an object it already passed.

The answer for one PDF::

    {"ok": true, "pages": [str, ...], "version": "20260107", "warnings": [...], "retire": false}
    {"ok": false, "code": "pdf_encrypted", "message": "..."}
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from auditor import dates, sandbox
from auditor.errors import ExtractionError
from auditor.sandbox import MEMORY_EXIT, Fail

__all__ = ["MEMORY_EXIT", "PdfResult", "run", "shutdown"]

_MAX_WARNINGS = 20
_MAX_CHAIN = 10_000


@dataclass
class PdfResult:
    pages: list[str]
    version: str
    warnings: list[str] = field(default_factory=list)
    dates: dict[str, str] = field(default_factory=dict)  # /ModDate, /CreationDate, XMP, as found


class _Worker(sandbox.Worker):
    """One PDF child."""

    job = "pdf"
    prefix = "pdf_"
    what = "PDF"
    retire_after = 200

    def extract(self, data: bytes, request: dict, deadline: float) -> PdfResult:
        msg, _ = self.call(request, data, deadline)
        pages = msg.get("pages")
        if not isinstance(pages, list) or not all(isinstance(p, str) for p in pages):
            self.close()
            raise ExtractionError("pdf_crash", "PDF worker gave a malformed result")
        found = msg.get("dates")
        return PdfResult(pages, str(msg.get("version", "")), [str(w) for w in msg.get("warnings", [])],
                         {str(k)[:64]: str(v)[:200] for k, v in found.items()} if isinstance(found, dict) else {})


_POOL = sandbox.register(sandbox.Pool(_Worker))


def run(data: bytes, *, timeout: float, memory: int, max_pages: int, max_chars: int) -> PdfResult:
    """Extract the text of each page of ``data`` in a child process. Thread-safe.

    Raises ExtractionError with code ``pdf_timeout``, ``pdf_memory``, ``pdf_encrypted``,
    ``pdf_error``, ``pdf_crash``, ``too_many_pages`` or ``text_too_long``.
    """
    request = {"max_pages": int(max_pages), "max_chars": int(max_chars), "timeout": float(timeout)}
    deadline = time.monotonic() + timeout
    worker = _POOL.take(int(memory))
    reused = worker.served > 0
    try:
        return _attempt(worker, data, request, deadline)
    except ExtractionError as e:
        if not (reused and e.code == "pdf_memory"):
            raise
    return _attempt(_Worker(int(memory)), data, request, time.monotonic() + timeout)


def _attempt(worker: _Worker, data: bytes, request: dict, deadline: float) -> PdfResult:
    try:
        result = worker.extract(data, request, deadline)
    except BaseException:
        worker.close()
        raise
    _POOL.give(worker)
    return result


def shutdown() -> None:
    """Stop every idle PDF child of this process (they also exit when the parent does)."""
    _POOL.clear()


# -- child side ------------------------------------------------------------------------------


def _page_count(doc: object) -> int | None:
    from pdfminer.pdftypes import resolve1

    try:
        count = resolve1(resolve1(doc.catalog["Pages"])["Count"])  # type: ignore[attr-defined]
    except Exception:
        return None
    return count if isinstance(count, int) else None


def _guard_reference_cycles() -> None:
    """Make ``PDFObjRef.resolve`` follow a whole chain of references, failing on a cycle.

    pdfminer.six resolves with ``while isinstance(x, PDFObjRef): x = x.resolve()``, which never
    ends when the chain loops. Returning the end of the chain keeps that loop's result and ends
    it after one step; a chain that revisits an object raises instead.
    """
    from pdfminer.pdftypes import PDFObjRef

    if getattr(PDFObjRef.resolve, "_auditor_guarded", False):
        return
    one_step = PDFObjRef.resolve

    def resolve(self: PDFObjRef, default: object = None) -> object:
        seen = {self.objid}
        x = one_step(self, default)
        while isinstance(x, PDFObjRef):
            if x.objid in seen or len(seen) > _MAX_CHAIN:
                raise Fail("pdf_error", "PDF has a cycle of indirect references (object "
                           f"{x.objid} is reached again from object {self.objid})")
            seen.add(x.objid)
            x = one_step(x, default)
        return x

    resolve._auditor_guarded = True  # type: ignore[attr-defined]
    PDFObjRef.resolve = resolve  # type: ignore[method-assign]


def _extract(data: bytes, max_pages: int, max_chars: int) -> list[str]:
    import io

    from pdfminer.converter import TextConverter
    from pdfminer.layout import LAParams
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    _guard_reference_cycles()
    try:
        doc = PDFDocument(PDFParser(io.BytesIO(data)), password="")
    except PDFEncryptionError as e:
        raise Fail("pdf_encrypted", f"PDF is encrypted and needs a password ({type(e).__name__}: {e})") from e
    _DATES.update(dates.pdf_document(doc))
    count = _page_count(doc)
    if count is not None and count > max_pages:
        raise Fail("too_many_pages", f"PDF declares {count} pages, more than the limit of {max_pages}")
    buf = io.StringIO()
    rsrc = PDFResourceManager(caching=True)
    # boxes_flow=None skips pdfminer's quadratic text-box ordering but keeps word spacing.
    device = TextConverter(rsrc, buf, laparams=LAParams(boxes_flow=None))
    interp = PDFPageInterpreter(rsrc, device)
    pages: list[str] = []
    total = 0
    for page in PDFPage.create_pages(doc):
        if len(pages) >= max_pages:
            raise Fail("too_many_pages", f"PDF has more than {max_pages} pages")
        interp.process_page(page)
        text = buf.getvalue()
        buf.seek(0)
        buf.truncate()
        if text.endswith("\f"):
            text = text[:-1]
        total += len(text)
        if total > max_chars:
            raise Fail("text_too_long", f"PDF text exceeds the limit of {max_chars} characters")
        pages.append(text)
    device.close()
    return pages


def _pdfminer_version() -> str:
    import pdfminer

    return str(pdfminer.__version__)


_WARNINGS: list[str] | None = None


def _collect_warnings() -> list[str]:
    """pdfminer's first distinct warnings, kept for the caller instead of printed."""
    global _WARNINGS
    if _WARNINGS is not None:
        return _WARNINGS
    import logging

    into: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                msg = record.getMessage()[:300]
            except Exception:
                return
            if len(into) < _MAX_WARNINGS and msg not in into:
                into.append(msg)

    log = logging.getLogger("pdfminer")
    log.addHandler(Collect(logging.WARNING))
    log.propagate = False
    _WARNINGS = into
    return into


_DATES: dict[str, str] = {}  # the dates of the PDF being extracted (its metadata), as found


def handle(request: dict, data: bytes) -> tuple[dict, list[bytes]]:
    """The ``pdf`` job, in the child: one PDF's pages."""
    warnings = _collect_warnings()
    warnings.clear()
    _DATES.clear()
    pages = _extract(data, int(request["max_pages"]), int(request["max_chars"]))
    return {"pages": pages, "version": _pdfminer_version(), "warnings": list(warnings), "dates": dict(_DATES)}, []


def classify(e: BaseException) -> tuple[str, str]:
    """Error code and message for an exception raised while extracting one PDF.

    pdfminer.six raises all kinds of exceptions on malformed PDFs (its maintainers expect it),
    so anything else is ``pdf_error`` with the exception named.
    """
    if isinstance(e, Fail):
        return e.code, str(e)
    if sandbox.is_memory_error(e):
        return "pdf_memory", "PDF worker ran out of memory"
    if isinstance(e, RecursionError):
        return "pdf_error", "RecursionError: PDF objects nested or referenced too deeply"
    return "pdf_error", f"{type(e).__name__}: {str(e)[:500]}"
