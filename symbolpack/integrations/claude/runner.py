"""The hooks by name, and one hook run: payload in, answer out, records committed
once the answer is delivered.

One payload in, the answer out (`entry.py` runs it in a hook process, `server.py` in
the resident one). A hook must never break a tool
call: every failure (bad payload, missing file, corrupt store, any exception)
exits 0 with no output and at most one line on stderr. Records that wait for the
answer to be delivered (intents to commit) run only after it is written and
flushed: an answer that never reached Claude Code stays pending (unsure).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...base.protocol import HookOutput

import os

from .delivery import post_read
from .edit_hooks import post_edit, pre_edit
from .payload import DROP_SOURCES, STATE_KEY, hook_root, session_id_for, workspace
from .reads import pre_read


def session_start(payload: Any, after: list) -> HookOutput | None:
    """SessionStart(compact|clear|resume): the agent lost its context, or may have (a
    rewind is a resume); forget what it saw."""
    if not isinstance(payload, dict):
        return None
    source = payload.get("source")
    if source is not None and source not in DROP_SOURCES:
        return None
    session_id = session_id_for(payload)
    if session_id is None:
        return None
    ws = workspace(hook_root(payload))
    try:
        with ws.store.session(session_id) as session:
            had = session.drop_all_files()
            session.data.pop(STATE_KEY, None)
    finally:
        ws.close()
    if not had or _has_transcript(payload):
        return None  # with a transcript, reads answer from what it proves: nothing to tell the model
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext":
            "symbolpack: your earlier copies of files were dropped with the context; the next Read of each "
            "file shows it in full."}}


def _has_transcript(payload: dict) -> bool:
    from .transcript import transcript_for

    path = transcript_for(payload)
    return path is not None and os.path.isfile(path)


HOOKS = {
    "claude-pre-read": pre_read,
    "claude-pre-edit": pre_edit,
    "claude-post-edit": post_edit,
    "claude-post-read": post_read,
    "claude-session-start": session_start,
}


def run_hook(name: str, stdin_text: str, after: list | None = None) -> str:
    """The hook's stdout for one payload; '' for no decision. Never raises.

    Records that wait for the output to be delivered (intents to commit) are
    appended to *after*, for the caller to run once the output is written and
    flushed; without *after* (an in-process caller: returning is delivering)
    they run before this returns (`hook_runner.run_hook`)."""
    from ..hook_runner import run_hook as run

    return run(HOOKS, "claude-", name, stdin_text, after)


def _run_all(callbacks) -> None:
    from ..hook_runner import run_all

    run_all(callbacks)


def _log(message: str) -> None:
    """A hook's own trouble: one `symbolpack hook: warning: ...` line on stderr."""
    from ..hook_runner import log

    log(message)
