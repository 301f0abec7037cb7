"""One Qwen Code hook payload, checked once, and Qwen's own read state as symbolpack knows it.

Qwen Code (a Gemini CLI fork) runs Claude-style command hooks and sends
`session_id`, `cwd`, `transcript_path`, `hook_event_name`, `tool_name`
(`read_file`, `edit`, `write_file`), `tool_input` (`file_path`, `offset`, `limit`,
`old_string`, ...), `tool_use_id` (made up per execution) and `tool_call_id` (the
API's id for the call: the one the transcript and the model's messages carry).
`parse_request` reads that; nothing here decides an answer.

Qwen's read state. Qwen's `edit`/`write_file` refuse a file its own `read_file` did
not read in this process, or that changed (mtime or size) since it last read or
wrote it (`FileReadCache`, keyed by device and inode; cleared on every compression,
rewind, history reset, and under memory pressure). A denied read does not run
`read_file`, so it records nothing there. symbolpack may therefore deny (answer a
read itself) only where Qwen's entry for the file is provably fresh and stays so:
this module keeps, per file, the fingerprint Qwen recorded at its last native read or
own write (`fingerprint`, taken by the hooks around that call) with the Qwen process
it happened in and the session's generation (bumped by every `SessionStart`,
`PreCompact` and `PostCompact`, and by a refused edit). `qwen_fresh` is true only
when all three still match the file and the process now.
"""

from __future__ import annotations

import os
import re


READ_TOOLS = ("read_file",)
EDIT_TOOLS = ("edit", "write_file")
STATE_KEY = "qwen"
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,60}")
_SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox", "env"))


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


def qwen_process() -> str | None:
    """The Qwen Code process this hook runs for: the nearest ancestor that is not a
    shell (Qwen spawns `$SHELL -c COMMAND`, which may exec it), as pid and start time
    (a pid alone is reused). Its FileReadCache lives and dies with it. None where
    `/proc` cannot tell."""
    pid = os.getppid()
    for _ in range(8):
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                raw = fh.read().decode("utf-8", "surrogateescape")
        except OSError:
            return None
        head, _, rest = raw.rpartition(")")
        comm = head.partition("(")[2]
        fields = rest.split()
        if comm not in _SHELLS:
            return f"{pid}-{fields[19]}"
        pid = int(fields[1])
        if pid <= 1:
            return None
    return None


def qwen_states(session, create: bool = True) -> dict:
    """The session document's Qwen part: `{"gen": int, "files": {rel: entry}}`."""
    state = session.data.get(STATE_KEY)
    if not isinstance(state, dict) or not isinstance(state.get("files"), dict) \
            or type(state.get("gen", 0)) is not int:
        if not create:
            return {"gen": 0, "files": {}}
        state = session.data[STATE_KEY] = {"gen": 0, "files": {}}
    return state


def bump_generation(session) -> None:
    """Qwen may have dropped every entry of its read cache (a new process, a compression,
    a reset): nothing it recorded before counts."""
    state = qwen_states(session)
    state["gen"] = int(state.get("gen", 0)) + 1
    state["files"] = {}


def note_qwen_read(session, rel: str, fp: list[int] | None, process: str | None, event: str | None) -> None:
    """Qwen recorded *rel* at fingerprint *fp* in its read cache (its native read or
    own write just ran); None: what it recorded is unknown (the entry is dropped)."""
    state = qwen_states(session)
    if fp is None or process is None:
        state["files"].pop(rel, None)
        return
    state["files"][rel] = {"fp": fp, "proc": process, "gen": state["gen"], "event": event}


def forget_qwen_read(session, rel: str) -> None:
    state = qwen_states(session, create=False)
    files = state.get("files")
    if isinstance(files, dict):
        files.pop(rel, None)


def qwen_fresh(session, rel: str, fp: list[int] | None, process: str | None) -> str | None:
    """The call id of the native read or own write after which Qwen's entry for *rel*
    is still what it recorded (same process, same generation, same fingerprint), else
    None: a denied read would leave its edit tools refusing the file."""
    if fp is None or process is None:
        return None
    state = qwen_states(session, create=False)
    entry = state["files"].get(rel)
    if not isinstance(entry, dict) or entry.get("proc") != process or entry.get("gen") != state.get("gen") \
            or entry.get("fp") != fp:
        return None
    event = entry.get("event")
    return event if isinstance(event, str) else None
