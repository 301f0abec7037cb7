"""The Qwen hooks by name, and one hook run: payload in, answer out.

`tldrs qwen-hook NAME` (or `python -m symbolpack.integrations.qwen NAME`) reads one
payload on stdin and writes the answer on stdout. A hook must never break a tool
call: every failure exits 0 with no output (Qwen then runs its own tool) and at most
one `symbolpack hook: warning: ...` line on stderr. A usage error exits 0 too: Qwen,
like Claude Code, treats exit 2 as "block the tool call".
"""

from __future__ import annotations

import sys

from .hooks import post_edit, post_read, pre_read, retired

HOOKS = {
    "qwen-pre-read": pre_read,
    "qwen-post-read": post_read,
    "qwen-post-edit": post_edit,
}
# written by an earlier install (until `tldrs install qwen` runs again): quiet, no decision
RETIRED = {"qwen-edit-refused": retired, "qwen-lifecycle": retired}


def run_hook(name: str, stdin_text: str, after: list | None = None) -> str:
    """The hook's stdout for one payload; '' for no decision. Never raises
    (`hook_runner.run_hook`; *after*: what waits for the answer's delivery)."""
    from ..hook_runner import run_hook as run

    return run({**HOOKS, **RETIRED}, "qwen-", name, stdin_text, after)


def _run_all(callbacks) -> None:
    from ..hook_runner import run_all

    run_all(callbacks)


def _log(message: str) -> None:
    from ..hook_runner import log

    log(message)


def main(argv: list[str] | None = None) -> int:
    from ...base.log import configure

    configure(prefix="symbolpack hook")
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        _log(f"usage: tldrs qwen-hook {{{','.join(HOOKS)}}} < payload.json")
        return 0
    try:
        text = sys.stdin.buffer.read().decode("utf-8", "replace")
    except Exception:
        return 0
    after: list = []
    out = run_hook(argv[0], text, after)
    try:
        if out:
            sys.stdout.write(out + "\n")
        sys.stdout.flush()
    except Exception:
        return 0
    _run_all(after)
    return 0


def run_as_process(argv: list[str] | None = None) -> None:
    """`main`, then end the process at once (everything is written and flushed)."""
    from ...base.process import exit_now

    exit_now(main(argv))
