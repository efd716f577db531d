"""A child process that dies with its parent: what every pool of worker processes needs.

The sandbox's children (:mod:`.pool`) and the process pools of the index builder and the audit
use :func:`die_with_parent`; it lives apart from the pool so that they load nothing else.
"""

from __future__ import annotations

import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(expected_parent: int | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; elsewhere a no-op).

    Also usable as a ``ProcessPoolExecutor`` initializer (``initargs=(os.getpid(),)``). With
    ``expected_parent``, exit at once if the parent is already gone (the race between fork and
    this call).
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if expected_parent is not None and os.getppid() != expected_parent:
        os._exit(1)
