"""External converters (antiword, wpd2text): one program run on one input, under limits.

A legacy format is read by the program its readers use, not by code written here. The program
runs as a child of the extraction process (the sandbox child of :mod:`auditor.sandbox.pool`
during ingest), with the limits that child has: the same address-space limit
(``Limits.memory``), CPU seconds and wall-clock seconds no more than ``Limits.timeout``, output
no larger than the text limit allows, and it is killed with its parent (so a sandbox child
killed at its deadline leaves no converter behind). Its input is a file in a private temporary
directory, removed afterwards; it gets no standard input and a minimal environment.

A converter that is not installed fails closed: ``converter_missing``, naming the Debian
package that brings it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable

from auditor.errors import ExtractionError, refusal
from auditor.extract.common import Limits

refusal("converter_missing", "install the program it names and ingest the file again")
refusal("convert_error", "if a word processor opens it, save it from there as .docx or PDF and ingest that")
refusal("convert_timeout", "raise --timeout (seconds per input) if the file is large, or ingest it alone on a less "
                           "loaded machine")

_TAIL = 300


@functools.cache
def tool_version(tool: str, args: tuple[str, ...], pattern: str) -> str:
    """The version a converter prints (``pattern``'s first group), or ``unknown``."""
    path = shutil.which(tool)
    if path is None:
        return "unknown"
    try:
        got = subprocess.run([path, *args], stdin=subprocess.DEVNULL, capture_output=True, timeout=10,
                             env=_env())
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    m = re.search(pattern, (got.stdout + got.stderr).decode("utf-8", "replace"))
    return m.group(1) if m else "unknown"


def _env(home: str = "/nonexistent") -> dict[str, str]:
    """PATH, a UTF-8 locale and HOME (antiword needs one; a private one keeps a user's own
    ~/.antiword mapping files from changing the reading)."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "HOME": home}


def _limiter(memory: int, seconds: int, out_bytes: int) -> Callable[[], None]:
    import resource

    from auditor.sandbox.lifetime import die_with_parent

    def limit() -> None:  # in the forked child, before exec: nothing is imported there
        die_with_parent()
        for what, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, seconds),
                            (resource.RLIMIT_FSIZE, out_bytes)):
            _, hard = resource.getrlimit(what)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(what, (value, hard))

    return limit


def require(tool: str, package: str, what: str) -> str:
    """The path of ``tool``; ExtractionError ``converter_missing`` naming the package when absent."""
    path = shutil.which(tool)
    if path is None:
        raise ExtractionError(
            "converter_missing", f"reading {what} needs the program {tool}, which is not installed",
            fix=f"install the Debian package {package} (apt-get install {package}) and ingest the file again")
    return path


def run(tool: str, package: str, what: str, args: list[str], data: bytes, suffix: str,
        limits: Limits) -> bytes:
    """What ``tool args FILE`` writes to its standard output, ``FILE`` holding ``data``.

    Raises ExtractionError: ``converter_missing`` (not installed), ``convert_timeout``,
    ``text_too_long`` (more output than the text limit), ``convert_error`` (it failed, with
    the end of what it said).
    """
    path = require(tool, package, what)
    seconds = max(1, int(limits.timeout))
    out_limit = 4 * limits.max_text_chars + 1
    with tempfile.TemporaryDirectory(prefix="auditor-convert-") as tmp:
        src = os.path.join(tmp, "input" + suffix)
        out = os.path.join(tmp, "output")
        with open(src, "wb") as f:
            f.write(data)
        with open(out, "wb") as sink:
            try:
                proc = subprocess.Popen(
                    [path, *args, src], stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.PIPE,
                    env=_env(tmp), cwd=tmp, start_new_session=True,
                    preexec_fn=_limiter(limits.memory, seconds + 1, out_limit))
            except OSError as e:
                raise ExtractionError("convert_error", f"cannot run {tool}: {e}") from e
            try:
                _, err = proc.communicate(timeout=seconds)
            except subprocess.TimeoutExpired as e:
                raise ExtractionError("convert_timeout",
                                      f"{tool} did not finish reading {what} in {seconds} s; it was killed") from e
            finally:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)  # the converter and anything it started
                if proc.poll() is None:
                    proc.wait()
                if proc.stderr is not None:
                    proc.stderr.close()
        size = os.path.getsize(out)
        said = err.decode("utf-8", "replace").strip()[-_TAIL:]
        if proc.returncode == -signal.SIGXFSZ or size >= out_limit:
            raise ExtractionError("text_too_long", f"{tool} wrote more than {out_limit - 1} bytes of text "
                                  f"for {what}, more than the text limit allows")
        if proc.returncode < 0:
            name = signal.Signals(-proc.returncode).name if -proc.returncode in signal.valid_signals() \
                else f"signal {-proc.returncode}"
            why = " (a crash, or out of memory or CPU time)" if name in ("SIGKILL", "SIGXCPU", "SIGSEGV", "SIGABRT") else ""
            raise ExtractionError("convert_error", f"{tool} died by {name}{why} reading {what}: "
                                  f"{said or 'no message'}", fix="save it as .docx or PDF and ingest that, or raise "
                                  "--memory-mb and --timeout if it is large")
        if proc.returncode != 0:
            raise ExtractionError("convert_error", f"{tool} could not read {what} (exit status "
                                  f"{proc.returncode}): {said or 'no message'}")
        with open(out, "rb") as f:
            return f.read()
