"""The Qwen hooks by name, and one hook run: payload in, answer out.

`tldrs qwen-hook NAME` (or `python -m symbolpack.integrations.qwen NAME`) reads one
payload on stdin and writes the answer on stdout. A hook must never break a tool
call: every failure exits 0 with no output (Qwen then runs its own tool) and at most
one `symbolpack hook: warning: ...` line on stderr. A usage error exits 0 too: Qwen,
like Claude Code, treats exit 2 as "block the tool call".
"""

from __future__ import annotations

import json
import sys

from .hooks import edit_refused, lifecycle, post_edit, post_read, pre_read

HOOKS = {
    "qwen-pre-read": pre_read,
    "qwen-post-read": post_read,
    "qwen-post-edit": post_edit,
    "qwen-edit-refused": edit_refused,
    "qwen-lifecycle": lifecycle,
}


def run_hook(name: str, stdin_text: str, after: list | None = None) -> str:
    """The hook's stdout for one payload; '' for no decision. Never raises. Callbacks
    that wait for the output to be delivered go to *after* (run here without it)."""
    handler = HOOKS.get(name) or HOOKS.get(f"qwen-{name}")
    if handler is None:
        _log(f"unknown hook {name!r} (known: {', '.join(HOOKS)})")
        return ""
    try:
        payload = json.loads(stdin_text) if stdin_text.strip() else None
    except ValueError:
        _log(f"{name}: payload is not JSON; no decision")
        return ""
    pending: list = []
    try:
        out = handler(payload, pending)
        text = json.dumps(out, ensure_ascii=False) if out else ""
    except Exception as exc:  # a hook never breaks the tool call
        from ...base.settings import load_settings

        if load_settings().debug:
            import traceback

            traceback.print_exc()
        _log(f"{name}: {type(exc).__name__}: {exc}; no decision")
        return ""
    if after is None:
        _run_all(pending)
    else:
        after.extend(pending)
    return text


def _run_all(callbacks) -> None:
    for callback in callbacks:
        try:
            callback()
        except Exception as exc:
            _log(f"commit failed: {type(exc).__name__}: {exc}")


def _log(message: str) -> None:
    try:
        from ...base.log import warning

        warning(message)
    except Exception:
        pass


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
