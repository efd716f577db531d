"""Untrusted input is parsed only in disposable child processes, with a memory and a time limit.

Parsers (pdfminer.six, lxml, zipfile, the EDGAR and text code) can loop forever, exhaust memory
or recurse without bound on hostile input, and have no timeout of their own. So the parent never
parses. It starts ``python -m auditor.sandbox JOB`` with ``subprocess.Popen`` (no fork of the
parent's state, so no inherited locks or threads), sends each input on the child's stdin and
kills the child when the wall-clock deadline passes. The child caps its own address space
(``RLIMIT_AS``) before importing any parser: doing it there rather than in a ``preexec_fn``
keeps ``Popen`` safe to call from several threads at once.

Four jobs exist: ``pdf`` (:mod:`auditor.extract.pdf.job`: the text of each page), ``pdfocr``
(:mod:`auditor.extract.pdf.ocr`: one page rendered and recognised), ``imageocr``
(:mod:`auditor.extract.image`: one frame of a picture decoded and recognised) and ``prepare``
(:mod:`auditor.extract.prepare`: extract, normalise, shingle and sample one input file, whatever its
format). Starting Python and importing the parsers costs about 0.1-0.3 s, so an idle child is
kept and reused (one child per concurrent caller; ``Pool.clear()`` stops them). A child is
never reused after a failure, and retires itself once it has grown large or served many inputs.
A ``memory`` failure in a reused child is retried once in a fresh one, so whether an input fits
in memory does not depend on what was extracted before it.

Children die with their parent, also after ``kill -9``: on Linux each child asks the kernel for
SIGKILL when its parent goes (``prctl(PR_SET_PDEATHSIG)``). The kernel ties that signal to the
parent *thread* that forked, so every child is started from one long-lived spawner thread, never
from a short-lived worker thread. A watchdog thread in the child also exits when its parent
changes or a deadline passes unkilled.

Protocol, for each input: the parent writes one JSON line ``{"size": n, "timeout": s, ...}`` then
``n`` bytes; the child answers with a decimal length line, that many bytes of JSON and then the
binary attachments the JSON lists in ``"blobs"`` (their lengths)::

    {"ok": true, ..., "blobs": [n1, n2], "retire": false}
    {"ok": false, "code": "pdf_encrypted", "message": "..."}

The child's fd 1 is pointed at stderr, so stray prints cannot corrupt the answer. Anything
outside the protocol (death by a signal, an early exit, unparsable output) becomes an
:class:`~auditor.errors.ExtractionError` with a code of its own.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import importlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from auditor.errors import ExtractionError, refusal
from auditor.sandbox.lifetime import die_with_parent

_AGAIN = "ingest it again; if it fails again, save a clean copy from the program that made it and ingest that"
refusal("crash", _AGAIN)
refusal("memory", "raise --memory-mb (the memory of the process reading each input), or ingest a smaller copy")
refusal("timeout", "raise --timeout (seconds per input), or ingest it alone on a less loaded machine")
refusal("cancelled", "run the same command again: it resumes where it stopped")

#: Exit status of a child that ran out of memory and could not even report it.
MEMORY_EXIT = 3
_STDERR_KEEP = 4000
_RETIRE_RSS = 512 * 2**20
_MAX_IDLE = 8
_MAX_ANSWER = 2**31  # JSON plus attachments; far above any limit a real answer can reach
_MEMORY_SIGNS = ("MemoryError", "failed to map segment", "Cannot allocate memory", "can't start new thread")
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)  # the directory holding auditor/

#: job name -> module whose ``handle(request, payload)`` serves it in the child
JOBS = {"pdf": "auditor.extract.pdf.job", "pdfocr": "auditor.extract.pdf.ocr", "prepare": "auditor.extract.prepare",
        "imageocr": "auditor.extract.image"}


# -- dying with the parent ----------------------------------------------------------------------


class _Spawner:
    """Starts every child from one long-lived thread, so PR_SET_PDEATHSIG fires only when the
    process exits (it fires when the forking thread ends)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pid = -1
        self.requests: queue.SimpleQueue[tuple[list[str], dict[str, Any], Future]] = queue.SimpleQueue()

    def popen(self, cmd: list[str], **kwargs: Any) -> subprocess.Popen:
        if not sys.platform.startswith("linux"):
            return subprocess.Popen(cmd, **kwargs)
        with self.lock:
            if self.pid != os.getpid():  # first use, or a forked copy of this process
                self.requests = queue.SimpleQueue()
                threading.Thread(target=self._loop, args=(self.requests,), daemon=True,
                                 name="auditor-spawner").start()
                self.pid = os.getpid()
            done: Future = Future()
            self.requests.put((cmd, kwargs, done))
        return done.result()

    @staticmethod
    def _loop(requests: queue.SimpleQueue) -> None:
        while True:
            cmd, kwargs, done = requests.get()
            try:
                done.set_result(subprocess.Popen(cmd, **kwargs))
            except BaseException as e:
                done.set_exception(e)


_SPAWNER = _Spawner()


# -- parent side --------------------------------------------------------------------------------


class Worker:
    """One child process serving one job, and the parent's end of its pipes.

    Subclasses set ``job``, the error-code ``prefix`` (``pdf_`` gives ``pdf_timeout``,
    ``pdf_memory``, ``pdf_crash``) and ``what`` (for messages).
    """

    job = "prepare"
    prefix = ""
    what = "extraction"
    retire_after = 10_000

    def __init__(self, memory: int) -> None:
        self.memory = memory
        self.served = 0
        self.retire = False
        self.owner = os.getpid()
        self.stderr = b""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        env.pop("PYTHONSTARTUP", None)
        env["MALLOC_ARENA_MAX"] = "1"  # a second thread's 64 MiB arena would count against RLIMIT_AS
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = "1"  # numpy's BLAS threads reserve address space and are never used here
        cmd = [sys.executable, "-s", "-m", "auditor.sandbox", self.job, "--memory", str(memory),
               "--parent", str(os.getpid()), "--retire-after", str(self.retire_after)]
        try:
            self.proc = _SPAWNER.popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        except OSError as e:
            raise ExtractionError(f"{self.prefix}crash", f"cannot start the {self.what} worker: {e}") from e
        _LIVE.add(self)

    def call(self, request: dict, payload: bytes, deadline: float,
             cancel: threading.Event | None = None) -> tuple[dict, list[bytes]]:
        """Send one input; the child's answer (``ok`` true) and its attachments.

        Raises ExtractionError for an ``ok: false`` answer (the child's code), a deadline
        passed (``timeout``), ``cancel`` set (``cancelled``: the child is killed at once), or a
        child that died or broke the protocol.
        """
        assert self.proc.stdin is not None
        header = json.dumps({**request, "size": len(payload)}).encode() + b"\n"
        try:
            self.proc.stdin.write(header)
            self.proc.stdin.write(payload)
            self.proc.stdin.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError):
            pass  # the child is gone (or was killed meanwhile); its exit status says why
        self.served += 1
        msg, blobs = self._answer(deadline, cancel)
        if not msg.get("ok"):
            raise ExtractionError(str(msg.get("code", f"{self.prefix}error")), str(msg.get("message", "")))
        self.retire = bool(msg.get("retire"))
        return msg, blobs

    def _answer(self, deadline: float, cancel: threading.Event | None = None) -> tuple[dict, list[bytes]]:
        """Read one answer, draining stderr meanwhile so a chatty child cannot block."""
        assert self.proc.stdout is not None and self.proc.stderr is not None
        try:
            out_fd, err_fd = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        except ValueError:  # closed by kill_all() from another thread
            self._fail_exited()
        fds = [out_fd, err_fd]
        buf = bytearray()
        need = -1
        msg: Any = None
        sizes: list[int] = []
        while True:
            if need < 0 and b"\n" in buf:
                line, _, rest = bytes(buf).partition(b"\n")
                try:
                    need = int(line)
                except ValueError:
                    self._fail_garbage()
                buf = bytearray(rest)
            if need >= 0 and msg is None and len(buf) >= need:
                try:
                    msg = json.loads(bytes(buf[:need]))
                except ValueError:
                    msg = None
                if not isinstance(msg, dict):
                    self._fail_garbage()
                sizes = msg.pop("blobs", None) or []
                if not isinstance(sizes, list) or not all(isinstance(n, int) and n >= 0 for n in sizes) \
                        or sum(sizes) > _MAX_ANSWER:
                    self._fail_garbage()
                del buf[:need]
            if msg is not None and len(buf) >= sum(sizes):
                blobs, pos = [], 0
                for n in sizes:
                    blobs.append(bytes(buf[pos : pos + n]))
                    pos += n
                return msg, blobs
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close()
                raise ExtractionError(
                    f"{self.prefix}timeout",
                    f"{self.what} exceeded its time limit; the worker was killed")
            if cancel is not None:
                if cancel.is_set():
                    self.close()
                    raise ExtractionError(f"{self.prefix}cancelled", f"{self.what} was cancelled")
                remaining = min(remaining, 0.25)
            try:
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
            except (OSError, ValueError):  # fds closed by kill_all() from another thread
                self._fail_exited()

    def _fail_garbage(self) -> None:
        self.close()
        raise ExtractionError(f"{self.prefix}crash",
                              f"{self.what} worker broke the protocol: {self._tail() or 'no output'}")

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
                raise ExtractionError(f"{self.prefix}memory",
                                      f"{self.what} worker was killed ({name}), probably out of memory")
            raise ExtractionError(f"{self.prefix}crash", f"{self.what} worker died by {name}")
        if rc == MEMORY_EXIT or any(m in tail for m in _MEMORY_SIGNS):
            raise ExtractionError(f"{self.prefix}memory", f"{self.what} worker ran out of memory")
        raise ExtractionError(f"{self.prefix}crash",
                              f"{self.what} worker exited with status {rc}: {tail or 'no output'}")

    def _drain_stderr(self) -> None:
        """Read what a dead child left on stderr (its last words may trail its stdout EOF)."""
        stream = self.proc.stderr
        if stream is None or stream.closed:
            return
        try:
            fd = stream.fileno()
            deadline = time.monotonic() + 1.0
            while (remaining := deadline - time.monotonic()) > 0:
                if not select.select([fd], [], [], remaining)[0]:
                    break
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                self.stderr = (self.stderr + chunk)[-_STDERR_KEEP:]
        except (OSError, ValueError):
            pass

    def _tail(self) -> str:
        return self.stderr.decode("utf-8", "replace").strip()[-400:]

    def kill(self) -> None:
        """Stop the child at once, from any thread (its caller then sees it die)."""
        if self.owner == os.getpid() and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.kill()

    def close(self) -> None:
        """Stop the child at once (a killed child has nothing left to flush)."""
        _LIVE.discard(self)
        if self.owner != os.getpid():
            return
        if self.proc.poll() is None:
            self.proc.kill()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if f is not None:
                with contextlib.suppress(OSError):  # unflushed input to a dead child
                    f.close()
        self.proc.wait()


class _Live:
    """Every running child of this process, so an interrupted caller can stop them all."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.workers: set[Worker] = set()

    def add(self, w: Worker) -> None:
        with self.lock:
            self.workers.add(w)

    def discard(self, w: Worker) -> None:
        with self.lock:
            self.workers.discard(w)

    def snapshot(self, cls: type[Worker]) -> list[Worker]:
        with self.lock:
            return [w for w in self.workers if isinstance(w, cls) and w.owner == os.getpid()]


_LIVE = _Live()


class Pool:
    """Idle children of one worker class, reused across calls; never shared between callers."""

    def __init__(self, factory: type[Worker]) -> None:
        self.factory = factory
        self.lock = threading.Lock()
        self.idle: list[Worker] = []

    def take(self, memory: int) -> Worker:
        with self.lock:
            self.idle = [w for w in self.idle if w.owner == os.getpid()]
            for i, w in enumerate(self.idle):
                if w.memory == memory:
                    return self.idle.pop(i)
        return self.factory(memory)

    def give(self, worker: Worker) -> None:
        if worker.retire or worker.served >= worker.retire_after or worker.proc.poll() is not None:
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

    def kill_all(self) -> None:
        """Kill every child of this class, idle or busy: the busy callers see them die."""
        self.clear()
        for w in _LIVE.snapshot(self.factory):
            w.kill()

    def run(self, request: dict, payload: bytes, *, memory: int, deadline: float,
            cancel: threading.Event | None = None) -> tuple[dict, list[bytes]]:
        """One input through a child: a reused idle one, or a fresh one. Thread-safe."""
        worker = self.take(int(memory))
        reused = worker.served > 0
        try:
            return self._attempt(worker, request, payload, deadline, cancel)
        except ExtractionError as e:
            if not (reused and e.code == f"{worker.prefix}memory" and time.monotonic() < deadline):
                raise
        return self._attempt(self.factory(int(memory)), request, payload, deadline, cancel)

    def _attempt(self, worker: Worker, request: dict, payload: bytes, deadline: float,
                 cancel: threading.Event | None) -> tuple[dict, list[bytes]]:
        try:
            result = worker.call(request, payload, deadline, cancel)
        except BaseException:
            worker.close()
            raise
        self.give(worker)
        return result


_POOLS: list[Pool] = []


def register(pool: Pool) -> Pool:
    """Stop the pool's children when this process exits (they would also die with it)."""
    _POOLS.append(pool)
    return pool


def _shutdown_all() -> None:
    for p in _POOLS:
        p.clear()


def _after_fork() -> None:
    for p in _POOLS:
        p.lock = threading.Lock()
    _LIVE.lock = threading.Lock()
    _SPAWNER.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
atexit.register(_shutdown_all)


# -- child side ---------------------------------------------------------------------------------


class Fail(Exception):
    """Raised by a job handler for a failure with a code of its own."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def limit_memory(limit: int) -> None:
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def is_memory_error(e: BaseException) -> bool:
    """Under RLIMIT_AS, running out of memory can also surface as a failed ``mmap`` of a shared
    library (an ImportError) or an OSError with ENOMEM."""
    text = str(e)
    return isinstance(e, MemoryError) or (
        isinstance(e, (ImportError, OSError))
        and (any(m in text for m in _MEMORY_SIGNS) or getattr(e, "errno", None) == errno.ENOMEM))


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


def _watchdog(state: dict, parent: int) -> None:
    """Exit if the parent dies or an input overruns its deadline unkilled: no orphaned spinners."""
    while True:
        time.sleep(0.5)
        deadline = state.get("deadline")
        if os.getppid() != parent or (deadline is not None and time.monotonic() > deadline):
            os._exit(1)


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _serve(job: Any, result_fd: int, memory: int, retire_after: int, state: dict) -> None:
    stdin = sys.stdin.buffer
    served = 0
    while True:
        line = stdin.readline()
        if not line:
            return
        served += 1
        retire = False
        blobs: list[bytes] = []
        try:
            req = json.loads(line)
            state["deadline"] = time.monotonic() + float(req["timeout"]) + 5.0
            data = _read_exact(stdin, int(req["size"]))
            if data is None:
                return
            answer, blobs = job.handle(req, data)
            del data
            result: dict = {"ok": True, **answer}
            del answer
        except Exception as e:
            code, message = job.classify(e)
            result, retire = {"ok": False, "code": code, "message": message}, "memory" in code
        state["deadline"] = None
        retire = retire or served >= retire_after or _rss() > min(_RETIRE_RSS, memory // 2)
        result["retire"] = retire
        result["blobs"] = [len(b) for b in blobs]
        try:
            payload = json.dumps(result, ensure_ascii=False).encode("utf-8", "surrogatepass")
            del result
            os.write(result_fd, b"%d\n" % len(payload))
            _write_all(result_fd, payload)
            for b in blobs:
                _write_all(result_fd, b)
        except MemoryError:
            os._exit(MEMORY_EXIT)
        if retire:
            return


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m auditor.sandbox",
                                 description="Serve one auditor job on stdin/stdout (see auditor.sandbox.pool).")
    ap.add_argument("job", choices=sorted(JOBS))
    ap.add_argument("--memory", type=int, required=True, help="RLIMIT_AS in bytes")
    ap.add_argument("--parent", type=int, help="exit at once unless this is the parent's pid")
    ap.add_argument("--retire-after", type=int, default=10_000)
    args = ap.parse_args(argv)
    parent = args.parent if args.parent is not None else os.getppid()
    die_with_parent(parent)
    result_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    state: dict = {}
    threading.stack_size(256 * 1024)
    threading.Thread(target=_watchdog, args=(state, parent), daemon=True).start()
    try:
        limit_memory(args.memory)
        job = importlib.import_module(JOBS[args.job])
        _serve(job, result_fd, args.memory, args.retire_after, state)
    except MemoryError:
        os._exit(MEMORY_EXIT)
    except Exception as e:
        if is_memory_error(e):
            os._exit(MEMORY_EXIT)
        raise
    return 0
