"""One hook payload read, and the pieces every Claude Code hook shares.

Claude Code's documented payload (`session_id`, `cwd`, `hook_event_name`,
`tool_name`, `tool_input`, `tool_use_id`, `transcript_path`, ...) is checked here
once (`parse_request`); the answers' JSON shapes (`pre_tool`, `post_tool`), the
session id, the project root, the Read tool's native scope and the per-file hook
state in the session document live here too. Nothing here decides an answer.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from ...base.protocol import HookOutput

import os
import re

from ...base.workspace import repo_root_dir, sha256_hex
from ..edits import int_arg

NATIVE_READ_CAP = 2000  # lines the native Read tool shows without a limit
READ_TOOLS = ("Read",)
EDIT_TOOLS = ("Edit", "MultiEdit", "Write")
POST_EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
# the native tool shows these as images/pages/cells, not numbered text lines
NATIVE_ONLY_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".pdf", ".ipynb")
STATE_KEY = "claude"
# SessionStart sources after which the context may no longer hold earlier reads: a
# rewind (`--resume-session-at`, `/rewind`) fires `resume` with the same session id
DROP_SOURCES = ("compact", "clear", "resume")
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,60}")

# --------------------------------------------------------------------------- payload

class HookRequest:
    """The parts of a tool-hook payload every hook needs, validated."""

    __slots__ = ("tool", "path", "tool_input", "session_id", "root", "payload")

    def __init__(self, tool, path, tool_input, session_id, root, payload):
        self.tool = tool
        self.path = path  # absolute, as given (symlinks unresolved)
        self.tool_input = tool_input
        self.session_id = session_id
        self.root = root  # the project root (repository of cwd), real path
        self.payload = payload


def session_id_for(payload: dict, host: str = "claude") -> str | None:
    """`<host>-<session_id>[-<agent_id>]`, made file-name safe; None when absent
    (Claude Code's hooks, and Qwen Code's, whose payloads name sessions alike)."""
    parts = []
    for field in ("session_id", "agent_id"):
        raw = payload.get(field)
        if raw is None or raw == "":
            if field == "session_id":
                return None
            continue
        if not isinstance(raw, str):
            return None
        parts.append(raw if _SAFE_ID.fullmatch(raw) and raw not in (".", "..")
                     else sha256_hex(raw.encode("utf-8", "surrogatepass"))[:24])
    return f"{host}-" + "-".join(parts)


def hook_root(payload: dict) -> str:
    """The repository holding the payload's `cwd` (as `workspace.project_root` finds it)."""
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        cwd = os.getcwd()
    return repo_root_dir(cwd) or os.path.realpath(cwd)


def parse_request(payload, tools: tuple[str, ...], path_field: str = "file_path") -> HookRequest | None:
    if not isinstance(payload, dict):
        return None
    tool = payload.get("tool_name")
    if tool not in tools:
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    path = tool_input.get(path_field)
    if path_field == "file_path" and path is None and tool == "NotebookEdit":
        path = tool_input.get("notebook_path")
    if not isinstance(path, str) or not path or "\0" in path:
        return None
    session_id = session_id_for(payload)
    if session_id is None:
        return None
    root = hook_root(payload)
    if not os.path.isabs(path):
        cwd = payload.get("cwd")
        path = os.path.join(cwd if isinstance(cwd, str) and os.path.isabs(cwd) else os.getcwd(), path)
    return HookRequest(tool, os.path.normpath(path), tool_input, session_id, root, payload)


def native_scope(total: int, offset, limit) -> tuple[int | None, int | None]:
    """(offset, limit) for `operations.read_file` naming exactly the lines the native Read
    shows for these arguments; (None, None) for the whole file."""
    offset, limit = int_arg(offset), int_arg(limit)
    start = offset if offset is not None and offset > 0 else 1
    cap = limit if limit is not None and limit > 0 else NATIVE_READ_CAP
    end = min(total, start + cap - 1)
    if start <= 1 and end >= total:
        return None, None
    return start, max(end - start + 1, 1)


def count_lines(data: bytes) -> int:
    """Lines as `sources.split_text_lines` counts them."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


# --------------------------------------------------------------------------- outputs

def pre_tool(decision: Literal["allow", "deny", "ask"], reason: str) -> HookOutput:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                   "permissionDecisionReason": reason}}


def post_tool(context: str) -> HookOutput:
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": context}}


# --------------------------------------------------------------------------- shared pieces

def workspace(root: str):
    from pathlib import Path

    from ...api.operations import Workspace

    return Workspace(Path(root))


def rel_of(real: str, root: str) -> str:
    """The name `sources.load_source` gives the file at *real*, without reading it."""
    from pathlib import Path

    from ...engine.sources import stored_name

    return stored_name(Path(real), Path(root))


def hook_state(session, rel: str, create: bool = True) -> dict:
    """This file's hook state in the session document (created on demand)."""
    states = session.data.get(STATE_KEY)
    if not isinstance(states, dict):
        if not create:
            return {}
        states = session.data[STATE_KEY] = {}
    state = states.get(rel)
    if not isinstance(state, dict):
        if not create:
            return {}
        state = states[rel] = {}
    return state


def _tidy(session, rel: str) -> None:
    states = session.data.get(STATE_KEY)
    if isinstance(states, dict) and not states.get(rel):
        states.pop(rel, None)
        if not states:
            session.data.pop(STATE_KEY, None)


def forget_state(session, rel: str) -> None:
    states = session.data.get(STATE_KEY)
    if isinstance(states, dict):
        states.pop(rel, None)
    _tidy(session, rel)


def tool_use_id(req: HookRequest) -> str | None:
    ident = req.payload.get("tool_use_id")
    return ident if isinstance(ident, str) and ident else None



def shell_quote(text: str) -> str:
    """`shlex.quote` without importing shlex on the hot path."""
    if text and re.fullmatch(r"[\w@%+=:,./-]+", text, re.ASCII):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"
