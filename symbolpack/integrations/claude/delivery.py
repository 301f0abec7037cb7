"""`claude-post-read`: symbolpack's answer put in place of the native Read's output.

`claude-pre-read` lets the native tool run (Claude's read-before-edit tracking must
see it) and leaves here, under the call's tool_use_id, what to show instead: the
first run of a skeleton's shown lines, or one line of a re-read's scope, as the Read
result itself in Read's own shape (Claude numbers it from its start line: exact), and
the rest as additional context in the same result. Only when the native tool read
the lines planned for (same start line, same bytes on disk); otherwise the native
output stands, which shows more than was recorded.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...base.protocol import HookOutput

import json
import os

from ...base.workspace import sha256_hex
from .payload import READ_TOOLS, parse_request, workspace

# Claude Code 2.1.332 saves a hook's text longer than 10,000 characters to a file and
# shows the model a 2 KB preview of it: an answer must fit, or the model would hold
# less than symbolpack records. Longer answers are left to the native tool.
HOOK_TEXT_LIMIT = 9_500

# Both are the Read's own result (`is_error` false), so they need not say "not an error":
# they say why the result shows so few lines, and what the rest is.
REREAD_NOTE = "(The Read above shows line {line} only.)"
SKELETON_NOTE = ("[SKELETON] {path}, {total} lines: 1-{head} above, the rest here; \"... A-B elided\" hides "
                 "lines A-B (Read offset=A limit=B-A+1 shows them).")


def stash_path(store, tool_use_id: str) -> str:
    return os.path.join(store.dir, "claude", "post", sha256_hex(tool_use_id.encode())[:32] + ".json")


def stash_skeleton(store, tool_use_id: str, path: str, response: dict) -> None:
    """What claude-post-read puts in place of the native Read's output: the skeleton's
    first shown run as the Read result itself (Claude numbers it from line 1, which
    is exact), the rest, markers included, as the hook's additional context (its
    lines keep their own numbers; markers name the Read tool's offset/limit)."""
    segments = response.get("segments") or []
    if not segments or segments[0]["kind"] != "shown" or segments[0]["start"] != 1:
        return  # nothing exact to put first: the native output stands (it shows more than recorded)
    head = segments[0]["end"]
    rows = response["text"].split("\n")[1:]  # the skeleton's own header goes: Claude's note replaces it
    shown, rest = rows[:head], rows[head:]
    content = "\n".join(row.split("\t", 1)[1] for row in shown)
    body = "\n".join(rest)  # its markers name the Read tool's offset/limit (front "claude")
    note = SKELETON_NOTE.format(path=response["path"], total=response["total_lines"], head=head)
    if len(note) + 1 + len(body) > HOOK_TEXT_LIMIT:
        return  # Claude would show only a preview of it: the native output stands (it shows more than recorded)
    stash(store, tool_use_id, {"file_path": path, "content": content, "start": 1, "head": head,
                                "total": response["total_lines"], "sha256": response["sha256"],
                                "context": note + "\n" + body})


def stash(store, tool_use_id: str, stash: dict) -> None:
    """What claude-post-read puts in place of this call's native output."""
    from ...base.workspace import atomic_write, ensure_private_dir

    target = stash_path(store, tool_use_id)
    ensure_private_dir(os.path.dirname(target))
    atomic_write(target, json.dumps(stash).encode(), 0o600, durable=False)


def post_read(payload: Any, after: list) -> HookOutput | None:
    """PostToolUse(Read): put the skeleton claude-pre-read planned in place of the
    native output (only when the native tool read the whole file symbolpack planned
    for: same bytes, every line)."""
    req = parse_request(payload, READ_TOOLS)
    ident = payload.get("tool_use_id") if isinstance(payload, dict) else None
    if req is None or not isinstance(ident, str):
        return None
    ws = workspace(req.root)
    try:
        store = ws.store_or_none()
        if store is None:
            return None
        target = stash_path(store, ident)
        try:
            with open(target, "rb") as fh:
                stash = json.loads(fh.read())
            os.unlink(target)
        except (OSError, ValueError):
            return None
        response = payload.get("tool_response")
        file = response.get("file") if isinstance(response, dict) else None
        try:
            with open(req.path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        if not isinstance(file, dict) or file.get("startLine") != stash.get("native_start", stash["start"]) \
                or sha256_hex(data) != stash["sha256"]:
            return None  # not the read that was planned: the native output stands
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {
            "type": "text", "file": {"filePath": file.get("filePath", req.path), "content": stash["content"],
                                     "numLines": stash["head"], "startLine": stash["start"],
                                     "totalLines": file.get("totalLines", stash["total"])}},
            "additionalContext": stash["context"]}}
    finally:
        ws.close()
