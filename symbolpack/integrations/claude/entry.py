"""The hook process: `tldrs hook NAME` (what `tldrs install claude` wrote before the hook
command became `client.py` itself, which comes here when no server answers) and `python
-m symbolpack.integrations.claude NAME` (always in its own process: no server is started).

It reads one payload on stdin, offers it to the resident hook server (`client.py`),
and only when none takes it runs the hook itself (`runner.py`), then starts one.
Only this module and the client are imported before the offer.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None, resident: bool = True, data: bytes | None = None,
         offered: bool = False) -> int:
    """One hook: handed to the resident server when one answers (`client.py`), else run
    here, and a server started for the calls that follow. *resident* False (`python -m
    symbolpack.integrations.claude`, what the unit tests run): always here, none started.
    *data*: the payload, already read from stdin; *offered*: already offered to the
    server, which did not take it (`client.main`)."""
    from ...base.log import configure

    configure(prefix="symbolpack hook")  # warnings: one `symbolpack hook: warning: ...` line on stderr
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        from .runner import HOOKS, _log

        _log(f"usage: tldrs hook {{{','.join(HOOKS)}}} < payload.json")
        return 0
    if data is None:
        try:
            data = sys.stdin.buffer.read()
        except Exception:
            return 0
    from . import client

    if resident and not offered and client.offer(argv[0], data):
        return 0
    from .runner import _run_all, run_hook

    after: list = []
    out = run_hook(argv[0], data.decode("utf-8", "replace"), after)
    try:
        if out:
            sys.stdout.write(out + "\n")
        sys.stdout.flush()
    except Exception:
        return 0  # not delivered: the records stay pending, and later answers treat them as unsure
    _run_all(after)  # delivered whole: commit
    if resident:
        client.start_server()
    return 0


def run_as_process(argv: list[str] | None = None, resident: bool = True) -> None:
    """`main`, then end the process at once: everything is written and flushed, and
    skipping the interpreter's teardown saves ~4 ms per tool call."""
    from ...base.process import exit_now

    exit_now(main(argv, resident))
