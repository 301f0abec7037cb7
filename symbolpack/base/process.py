"""Ending a process as soon as its answer is out.

Hooks and reads run one process per agent tool call; the interpreter's teardown
(module finalizers, the garbage collector) is ~2-3 ms of a 20 ms read that nobody
waits for. Shared by the CLI and the Claude Code hooks, which both end this way.
"""

from __future__ import annotations

import os
import sys


def exit_now(code: int) -> None:
    """Flush and end the process without the interpreter's teardown (~2-3 ms of a
    20 ms read). Everything is written by then: the answer, the session's records
    (closed files), the commit marker."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)
