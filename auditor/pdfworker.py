"""PDF text extraction in disposable child processes.

pdfminer.six can loop forever, exhaust memory or recurse without bound on hostile or merely
broken PDFs, and has no timeout of its own. So the parent never parses a PDF. It starts
``python -m auditor.pdfworker`` with ``subprocess.Popen`` (no fork of the parent's state, so
no inherited locks or threads), sends the PDF on the child's stdin and kills the child when
the wall-clock deadline passes. The child caps its own address space (``RLIMIT_AS``) before
importing pdfminer: doing it there rather than in a ``preexec_fn`` keeps ``Popen`` safe to
call from several threads at once.

Starting Python and importing pdfminer costs about 0.1 s, more than pdfminer needs for a short
PDF, so an idle child is kept and reused for the next PDF (one child per concurrent caller;
``shutdown()`` stops them). A child is never reused after a failure, and retires itself once
it has grown large or served many PDFs. Because a long-lived child's heap may be fragmented,
a ``pdf_memory`` failure in a reused child is retried once in a fresh one, so whether a PDF
fits in memory does not depend on what was extracted before it.

Protocol, for each PDF: the parent writes one JSON line ``{"size": n, "max_pages": ...,
"max_chars": ..., "timeout": ...}`` then ``n`` bytes; the child answers with a decimal length
line and that many bytes of JSON::

    {"ok": true, "pages": [str, ...], "version": "20260107", "warnings": [...], "retire": false}
    {"ok": false, "code": "pdf_encrypted", "message": "..."}

The child's fd 1 is pointed at stderr, so stray prints cannot corrupt the answer. Anything
outside the protocol (death by a signal, an early exit, unparsable output) becomes an
:class:`~auditor.errors.ExtractionError` with a code of its own.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from auditor.errors import ExtractionError

#: Exit status of a child that ran out of memory and could not even report it.
MEMORY_EXIT = 3
_STDERR_KEEP = 4000
_MAX_WARNINGS = 20
_RETIRE_RSS = 512 * 2**20
_RETIRE_AFTER = 200
_MAX_IDLE = 8
_MEMORY_SIGNS = ("MemoryError", "failed to map segment", "Cannot allocate memory", "can't start new thread")
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)


@dataclass
class PdfResult:
    pages: list[str]
    version: str
    warnings: list[str] = field(default_factory=list)


def run(data: bytes, *, timeout: float, memory: int, max_pages: int, max_chars: int) -> PdfResult:
    """Extract the text of each page of ``data`` in a child process. Thread-safe.

    Raises ExtractionError with code ``pdf_timeout``, ``pdf_memory``, ``pdf_encrypted``,
    ``pdf_error``, ``pdf_crash``, ``too_many_pages`` or ``text_too_long``.
    """
    request = {"max_pages": int(max_pages), "max_chars": int(max_chars), "timeout": float(timeout)}
    worker = _POOL.take(int(memory))
    reused = worker.served > 0
    try:
        return _attempt(worker, data, request, timeout)
    except ExtractionError as e:
        if not (reused and e.code == "pdf_memory"):
            raise
    return _attempt(_Worker(int(memory)), data, request, timeout)


def _attempt(worker: _Worker, data: bytes, request: dict, timeout: float) -> PdfResult:
    try:
        result = worker.extract(data, request, time.monotonic() + timeout)
    except BaseException:
        worker.close()
        raise
    _POOL.give(worker)
    return result


def shutdown() -> None:
    """Stop every idle child of this process (they also exit when the parent does)."""
    _POOL.clear()


class _Worker:
    """One child process and the parent's end of its pipes."""

    def __init__(self, memory: int) -> None:
        self.memory = memory
        self.served = 0
        self.retire = False
        self.owner = os.getpid()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        env.pop("PYTHONSTARTUP", None)
        env["MALLOC_ARENA_MAX"] = "1"  # a second thread's 64 MiB arena would count against RLIMIT_AS
        cmd = [sys.executable, "-s", "-m", "auditor.pdfworker", "--memory", str(memory)]
        try:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=env,
            )
        except OSError as e:
            raise ExtractionError("pdf_crash", f"cannot start the PDF worker: {e}") from e
        self.stderr = b""

    def extract(self, data: bytes, request: dict, deadline: float) -> PdfResult:
        assert self.proc.stdin is not None
        header = json.dumps({**request, "size": len(data)}).encode() + b"\n"
        try:
            self.proc.stdin.write(header)
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the child is gone; its exit status says why
        self.served += 1
        msg = self._answer(deadline)
        if not msg.get("ok"):
            raise ExtractionError(str(msg.get("code", "pdf_error")), str(msg.get("message", "")))
        pages = msg.get("pages")
        if not isinstance(pages, list) or not all(isinstance(p, str) for p in pages):
            raise ExtractionError("pdf_crash", "PDF worker gave a malformed result")
        self.retire = bool(msg.get("retire"))
        return PdfResult(pages, str(msg.get("version", "")), [str(w) for w in msg.get("warnings", [])])

    def _answer(self, deadline: float) -> dict:
        """Read one answer, draining stderr meanwhile so a chatty child cannot block."""
        assert self.proc.stdout is not None and self.proc.stderr is not None
        out_fd, err_fd = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        fds = [out_fd, err_fd]
        buf = bytearray()
        need = -1
        while True:
            if need < 0 and b"\n" in buf:
                line, _, rest = bytes(buf).partition(b"\n")
                try:
                    need = int(line)
                except ValueError:
                    self._fail_garbage()
                buf = bytearray(rest)
            if need >= 0 and len(buf) >= need:
                try:
                    msg = json.loads(bytes(buf[:need]))
                except ValueError:
                    msg = None
                if not isinstance(msg, dict):
                    self._fail_garbage()
                return msg
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close()
                raise ExtractionError(
                    "pdf_timeout", "PDF extraction exceeded its time limit; the worker was killed")
            ready, _, _ = select.select(fds, [], [], remaining)
            for fd in ready:
                chunk = os.read(fd, 1 << 20)
                if fd == err_fd:
                    self.stderr = (self.stderr + chunk)[-_STDERR_KEEP:]
                    if not chunk:
                        fds.remove(fd)
                elif chunk:
                    buf += chunk
                else:
                    self._fail_exited()

    def _fail_garbage(self) -> None:
        self.close()
        raise ExtractionError("pdf_crash", f"PDF worker broke the protocol: {self._tail() or 'no output'}")

    def _fail_exited(self) -> None:
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.close()
            rc = self.proc.returncode
        self._drain_stderr()
        tail = self._tail()
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = f"signal {-rc}"
            if -rc == signal.SIGKILL:
                raise ExtractionError("pdf_memory", f"PDF worker was killed ({name}), probably out of memory")
            raise ExtractionError("pdf_crash", f"PDF worker died by {name}")
        if rc == MEMORY_EXIT or any(m in tail for m in _MEMORY_SIGNS):
            raise ExtractionError("pdf_memory", "PDF worker ran out of memory")
        raise ExtractionError("pdf_crash", f"PDF worker exited with status {rc}: {tail or 'no output'}")

    def _drain_stderr(self) -> None:
        """Read what a dead child left on stderr (its last words may trail its stdout EOF)."""
        stream = self.proc.stderr
        if stream is None or stream.closed:
            return
        fd = stream.fileno()
        deadline = time.monotonic() + 1.0
        while (remaining := deadline - time.monotonic()) > 0:
            if not select.select([fd], [], [], remaining)[0]:
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            self.stderr = (self.stderr + chunk)[-_STDERR_KEEP:]

    def _tail(self) -> str:
        return self.stderr.decode("utf-8", "replace").strip()[-400:]

    def close(self) -> None:
        """Stop the child at once (a killed child has nothing left to flush)."""
        if self.owner != os.getpid():
            return
        if self.proc.poll() is None:
            self.proc.kill()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if f is not None:
                with contextlib.suppress(OSError):  # unflushed input to a dead child
                    f.close()
        self.proc.wait()


class _Pool:
    """Idle children, reused across calls; none are shared between concurrent callers."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: list[_Worker] = []

    def take(self, memory: int) -> _Worker:
        with self.lock:
            self.idle = [w for w in self.idle if w.owner == os.getpid()]
            for i, w in enumerate(self.idle):
                if w.memory == memory:
                    return self.idle.pop(i)
        return _Worker(memory)

    def give(self, worker: _Worker) -> None:
        if worker.retire or worker.served >= _RETIRE_AFTER or worker.proc.poll() is not None:
            worker.close()
            return
        with self.lock:
            self.idle.append(worker)
            extra = self.idle[:-_MAX_IDLE]
            del self.idle[:-_MAX_IDLE]
        for w in extra:
            w.close()

    def clear(self) -> None:
        with self.lock:
            idle, self.idle = self.idle, []
        for w in idle:
            w.close()


_POOL = _Pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: setattr(_POOL, "lock", threading.Lock()))
atexit.register(shutdown)


# -- child side ------------------------------------------------------------------------------


class _Fail(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _limit_memory(limit: int) -> None:
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _page_count(doc: object) -> int | None:
    from pdfminer.pdftypes import resolve1

    try:
        count = resolve1(resolve1(doc.catalog["Pages"])["Count"])  # type: ignore[attr-defined]
    except Exception:
        return None
    return count if isinstance(count, int) else None


def _extract(data: bytes, max_pages: int, max_chars: int) -> list[str]:
    import io

    from pdfminer.converter import TextConverter
    from pdfminer.layout import LAParams
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    try:
        doc = PDFDocument(PDFParser(io.BytesIO(data)), password="")
    except PDFEncryptionError as e:
        raise _Fail("pdf_encrypted", f"PDF is encrypted and needs a password ({type(e).__name__}: {e})") from e
    count = _page_count(doc)
    if count is not None and count > max_pages:
        raise _Fail("too_many_pages", f"PDF declares {count} pages, more than the limit of {max_pages}")
    buf = io.StringIO()
    rsrc = PDFResourceManager(caching=True)
    # boxes_flow=None skips pdfminer's quadratic text-box ordering but keeps word spacing.
    device = TextConverter(rsrc, buf, laparams=LAParams(boxes_flow=None))
    interp = PDFPageInterpreter(rsrc, device)
    pages: list[str] = []
    total = 0
    for page in PDFPage.create_pages(doc):
        if len(pages) >= max_pages:
            raise _Fail("too_many_pages", f"PDF has more than {max_pages} pages")
        interp.process_page(page)
        text = buf.getvalue()
        buf.seek(0)
        buf.truncate()
        if text.endswith("\f"):
            text = text[:-1]
        total += len(text)
        if total > max_chars:
            raise _Fail("text_too_long", f"PDF text exceeds the limit of {max_chars} characters")
        pages.append(text)
    device.close()
    return pages


def _pdfminer_version() -> str:
    import pdfminer

    return str(pdfminer.__version__)


def _collect_warnings(into: list[str]) -> None:
    """Keep pdfminer's first distinct warnings for the caller instead of printing them."""
    import logging

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


def _rss() -> int:
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _read_exact(stream, n: int) -> bytes | None:  # type: ignore[no-untyped-def]
    chunks = []
    while n > 0:
        chunk = stream.read(min(n, 1 << 24))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _watchdog(state: dict) -> None:
    """Exit if the parent dies or a PDF overruns its deadline unkilled: no orphaned spinners."""
    parent = os.getppid()
    while True:
        time.sleep(0.5)
        deadline = state.get("deadline")
        if os.getppid() != parent or (deadline is not None and time.monotonic() > deadline):
            os._exit(1)


def _classify(e: BaseException) -> tuple[str, str]:
    """Error code and message for an exception raised while extracting one PDF.

    Under RLIMIT_AS, running out of memory can also surface as a failed ``mmap`` of a shared
    library (an ImportError) or an OSError with ENOMEM.
    """
    if isinstance(e, _Fail):
        return e.code, str(e)
    text = str(e)
    if isinstance(e, MemoryError) or (
        isinstance(e, (ImportError, OSError))
        and (any(m in text for m in _MEMORY_SIGNS) or getattr(e, "errno", None) == errno.ENOMEM)
    ):
        return "pdf_memory", "PDF worker ran out of memory"
    return "pdf_error", f"{type(e).__name__}: {text[:500]}"


def _serve(result_fd: int, memory: int, state: dict) -> None:
    stdin = sys.stdin.buffer
    warnings: list[str] = []
    _collect_warnings(warnings)
    served = 0
    while True:
        line = stdin.readline()
        if not line:
            return
        served += 1
        retire = False
        warnings.clear()
        try:
            req = json.loads(line)
            state["deadline"] = time.monotonic() + float(req["timeout"]) + 5.0
            data = _read_exact(stdin, int(req["size"]))
            if data is None:
                return
            pages = _extract(data, int(req["max_pages"]), int(req["max_chars"]))
            del data
            result: dict = {"ok": True, "pages": pages, "version": _pdfminer_version(),
                            "warnings": list(warnings)}
            del pages
        except Exception as e:
            code, message = _classify(e)
            result, retire = {"ok": False, "code": code, "message": message}, code == "pdf_memory"
        state["deadline"] = None
        retire = retire or served >= _RETIRE_AFTER or _rss() > min(_RETIRE_RSS, memory // 2)
        result["retire"] = retire
        try:
            payload = json.dumps(result).encode("ascii")
            del result
            os.write(result_fd, b"%d\n" % len(payload))
            view = memoryview(payload)
            while view:
                view = view[os.write(result_fd, view):]
        except MemoryError:
            os._exit(MEMORY_EXIT)
        if retire:
            return


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m auditor.pdfworker", description="Extract PDF text for auditor.pdfworker.run (protocol on stdin/stdout).")
    ap.add_argument("--memory", type=int, required=True, help="RLIMIT_AS in bytes")
    args = ap.parse_args(argv)
    result_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    state: dict = {}
    threading.stack_size(256 * 1024)
    threading.Thread(target=_watchdog, args=(state,), daemon=True).start()
    try:
        _limit_memory(args.memory)
        _serve(result_fd, args.memory, state)
    except MemoryError:
        os._exit(MEMORY_EXIT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
