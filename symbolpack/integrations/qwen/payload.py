"""One Qwen Code hook payload, checked once, and the file's state around a read.

Qwen Code (a Gemini CLI fork) runs Claude-style command hooks and sends
`session_id`, `cwd`, `transcript_path`, `hook_event_name`, `tool_name`
(`read_file`, `edit`, `write_file`), `tool_input` (`file_path`, `offset`, `limit`,
`old_string`, ...), `tool_use_id` (made up per execution) and `tool_call_id` (the
API's id for the call: the one the transcript and the model's messages carry).
`parse_request` reads that; nothing here decides an answer.

Qwen's read state. Qwen's `edit`/`write_file` refuse a file its own `read_file` did
not read in this process, or that changed (mtime or size) since it last read or
wrote it (`FileReadCache`, keyed by device and inode). symbolpack never keeps that
read from running (`hooks.py` says why): it only notes, per call, the file's
`fingerprint` before the read (`reading_calls`), so that the answer put in place of
Qwen's output is given only when the file Qwen recorded is the file answered about.
"""

from __future__ import annotations

import os
import re


READ_TOOLS = ("read_file",)
EDIT_TOOLS = ("edit", "write_file")
STATE_KEY = "qwen"
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,60}")


class QwenRequest:
    """The parts of a Qwen tool-hook payload every hook needs, validated."""

    __slots__ = ("tool", "path", "tool_input", "session_id", "root", "call_id", "payload")

    def __init__(self, tool, path, tool_input, session_id, root, call_id, payload):
        self.tool = tool
        self.path = path  # absolute, as given (symlinks unresolved)
        self.tool_input = tool_input
        self.session_id = session_id
        self.root = root  # the project root (repository of cwd), real path
        self.call_id = call_id  # the API's id for the call (`tool_call_id`), or None
        self.payload = payload


def session_id_for(payload: dict) -> str | None:
    """`qwen-<session_id>[-<agent_id>]`, made file-name safe; None when absent."""
    from ..claude.payload import session_id_for as host_session_id

    return host_session_id(payload, "qwen")


def parse_request(payload, tools: tuple[str, ...]) -> QwenRequest | None:
    if not isinstance(payload, dict) or payload.get("tool_name") not in tools:
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    path = tool_input.get("file_path")
    if not isinstance(path, str) or not path.strip() or "\0" in path:
        return None
    path = path.strip()
    session_id = session_id_for(payload)
    if session_id is None:
        return None
    from ..claude.payload import hook_root

    root = hook_root(payload)
    if not os.path.isabs(path):
        cwd = payload.get("cwd")
        path = os.path.join(cwd if isinstance(cwd, str) and os.path.isabs(cwd) else os.getcwd(), path)
    call_id = payload.get("tool_call_id")
    call_id = call_id if isinstance(call_id, str) and _SAFE_ID.fullmatch(call_id) else None
    return QwenRequest(payload["tool_name"], os.path.normpath(path), tool_input, session_id, root, call_id, payload)


def int_or_none(value) -> int | None:
    """A tool argument that should be an integer (Qwen sends null for 'not given')."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


# --------------------------------------------------------------------------- Qwen's read state

def fingerprint(path: str) -> list[int] | None:
    """What Qwen's FileReadCache compares: device, inode, mtime (ns) and size; None for
    what is not a regular file (or an inode Qwen cannot verify, 0)."""
    import stat

    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_ino == 0:
        return None
    return [st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size]


def reading_calls(session) -> dict:
    """The session document's reads in flight: call id -> the fingerprint its
    qwen-pre-read saw (qwen-post-read answers only when the file is still that)."""
    state = session.data.get(STATE_KEY)
    if not isinstance(state, dict):
        state = session.data[STATE_KEY] = {}
    reading = state.get("reading")
    if not isinstance(reading, dict):
        reading = state["reading"] = {}
    return reading
