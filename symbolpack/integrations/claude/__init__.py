"""Claude Code hooks: the native Read and Edit tools, made delta-aware and stale-safe.

`tldrs hook NAME` (or `python -m symbolpack.integrations.claude NAME`) reads one
hook payload on stdin and answers on stdout. Everything is computed against the
answers the session's transcript proves the model holds, else against the
session's *agent copy* of each file (PROTOCOL.md "The agent's copy").

| module | one idea |
| --- | --- |
| `payload.py` | a hook payload checked once; answer shapes, session id, project root, native Read scope, hook state |
| `transcript.py` | the session's transcript, parsed incrementally: the active chain and its tool results |
| `present.py` | which of symbolpack's answers about a file the transcript proves present |
| `reads.py` | `claude-pre-read`: the first read recorded, re-reads answered |
| `delivery.py` | `claude-post-read`: the answer put in place of the native Read's output |
| `edit_hooks.py` | `claude-pre-edit` (the stale-edit guard) and `claude-post-edit` (own edits carried) |
| `runner.py` | the hooks by name, one run, `claude-session-start` |
| `entry.py` | the hook process: the payload offered to the resident server, else run here |
| `client.py`, `server.py` | the resident hook process and how a hook reaches it (a private Unix socket) |

Sessions: `claude-<session_id>`, plus `-<agent_id>` inside a subagent (subagents
share the parent's session id, but not its context). Per-file hook state
(`fresh`: the next read goes native; `pending`: an allowed edit not yet seen by
PostToolUse) lives in the session document under `"claude"`.

Nothing is imported here until a name is asked for: a hook process pays only for
the modules its hook uses.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .edit_hooks import post_edit, pre_edit  # noqa: F401
    from .payload import HookRequest, native_scope, parse_request, session_id_for  # noqa: F401
    from .entry import main, run_as_process  # noqa: F401
    from .runner import HOOKS, run_hook  # noqa: F401

# name -> the module holding it (the names tests and other front ends use)
_WHERE = {
    "HOOKS": "runner", "run_hook": "runner", "main": "entry", "run_as_process": "entry",
    "session_start": "runner",
    "pre_read": "reads", "record_native_read": "reads",
    "post_read": "delivery",
    "pre_edit": "edit_hooks", "post_edit": "edit_hooks",
    "HookRequest": "payload", "session_id_for": "payload", "hook_root": "payload", "parse_request": "payload",
    "native_scope": "payload", "STATE_KEY": "payload", "NATIVE_READ_CAP": "payload",
    # the marks and edit replay are `integrations/edits.py`'s; tests reach them through here
    "KNOWN": "..edits", "GAP": "..edits", "DIFFERS": "..edits", "apply_edit": "..edits", "replay": "..edits",
    "carry_edit": "..edits", "_hidden_mark": "..edits",
}


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    module = import_module(("." if not where.startswith(".") else "") + where, __name__)
    return getattr(module, "hidden_mark" if name == "_hidden_mark" else name)
