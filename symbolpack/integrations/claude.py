"""Claude Code hooks: the native Read and Edit tools, made delta-aware and stale-safe.

`tldrs hook NAME` (or `python -m symbolpack.integrations.claude NAME`) reads one
hook payload (Claude Code's documented schema: `session_id`, `cwd`,
`hook_event_name`, `tool_name`, `tool_input`, ...) on stdin and answers on stdout.

Everything is computed against the session's *agent copy* of each file
(`agentcopy.AgentCopy`, PROTOCOL.md "The agent's copy"): per line, the version
the most recent answer covering it came from.

* `claude-pre-read` (PreToolUse, `Read`) decides every read against the answers
  the session's transcript proves the model holds (`claude_transcript.py`) and
  lets the native tool run, so Claude's own read-before-edit tracking sees it;
  `claude-post-read` (PostToolUse, `Read`) then puts symbolpack's answer in place
  of the native output, in Read's own output shape (`updatedToolOutput`): a
  skeleton's first shown lines, or one line of a re-read's scope (the shortest), which
  Claude numbers from their start line (exact), and the rest of the skeleton or
  the `[UNCHANGED]` / `[DELTA]` / `[DIFF]` answer as additional context in the
  same result. Not an error. A plain answer is the native output itself. Without
  a transcript the first read is native and plain, and re-reads are a `deny`
  whose reason is the content (Claude shows it as an error).
  Whenever symbolpack would answer with a plain read anyway, the native tool
  runs (no decision), so Claude's tracking stays current. Either way the lines
  stay pending (unsure) until the hook's output has been written and flushed.
* `claude-post-edit` (PostToolUse, `Edit|Write|MultiEdit|NotebookEdit`). The
  agent's own edit is replayed on its copy: the lines it wrote become known,
  every other line is carried (shifted) as it was — known, hidden or a gap. The
  result must equal the file on disk (where the copy says anything); otherwise
  (a formatter rewrote it, someone else changed it) the file's copy is dropped
  and the next read is plain. `additionalContext` warns when the edit replaced
  lines the agent had only seen elided (or never saw).
* `claude-pre-edit` (PreToolUse, `Edit|MultiEdit|Write`): the stale-read guard,
  on the lines the edit touches (where `old_string` is in the file now; every
  line for a Write): all known in the copy and equal to the file now -> allow;
  one hidden or never shown -> deny ("you have not seen these lines"); one
  different from the copy -> deny ("changed on disk"). The agent's own edits
  are in its copy, so they never trip it. After a denied or failed edit (no
  PostToolUse followed its PreToolUse) the next read of that file goes to the
  native tool.
* `claude-session-start` (SessionStart, `compact|clear|resume`): the agent lost
  its context, or may have (a resume is also how a rewind starts:
  `--resume-session-at` keeps the session id and fires only `resume`, and the
  context no longer holds the reads after that point); every file's copy is
  dropped so the next reads are plain. A plain resume costs one full re-read per
  file; answering only from what the transcript proves the context holds lifts it.

Sessions: `claude-<session_id>`, plus `-<agent_id>` inside a subagent (subagents
share the parent's session id, but not its context). Per-file hook state
(`fresh`: the next read goes native; `pending`: an allowed edit not yet seen by
PostToolUse) lives in the session document under `"claude"`.

A hook must never break a tool call: every failure (bad payload, missing file,
corrupt store, any exception) exits 0 with no output, and at most one line on
stderr. Imports are lazy: an unchanged re-read pays for the read path only.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from ..base.protocol import HookOutput

import json
import os
import re
import sys

from ..base.workspace import repo_root_dir, sha256_hex
from .edits import (DIFFERS, GAP, KNOWN, aligned_marks, apply_edit, carry_edit, copy_from_cells,  # noqa: F401
                    copy_marks, edits_of, ends_with_newline, guard_verdict, int_arg, loader,
                    qualnames, replay)
from .edits import hidden_mark as _hidden_mark  # noqa: F401  (the marks are edits.py's; tests use this name)

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

PREAMBLE = ("symbolpack answered this Read from your session's record of the file. This is the file's "
            "content for you, not an error; do not retry the Read.")
FOOTER = ("(Lost your earlier copy? Run `tldrs session refresh {path} --session-id {sid}` "
          "and Read again for the full text.)")
UNCHANGED_NOTE = "(symbolpack: not an error; do not retry the Read.)"

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


def session_id_for(payload: dict) -> str | None:
    """`claude-<session_id>[-<agent_id>]`, made file-name safe; None when absent."""
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
    return "claude-" + "-".join(parts)


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


def _count_lines(data: bytes) -> int:
    """Lines as `sources.split_text_lines` counts them."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


# --------------------------------------------------------------------------- outputs

def _pre_tool(decision: Literal["allow", "deny", "ask"], reason: str) -> HookOutput:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                   "permissionDecisionReason": reason}}


def _post_tool(context: str) -> HookOutput:
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": context}}


# --------------------------------------------------------------------------- shared pieces

def _workspace(root: str):
    from pathlib import Path

    from ..api.operations import Workspace

    return Workspace(Path(root))


def _rel(real: str, root: str) -> str:
    """The name `sources.load_source` gives the file at *real*, without reading it."""
    from pathlib import Path

    from ..engine.sources import stored_name

    return stored_name(Path(real), Path(root))


def _state(session, rel: str, create: bool = True) -> dict:
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


def _forget_state(session, rel: str) -> None:
    states = session.data.get(STATE_KEY)
    if isinstance(states, dict):
        states.pop(rel, None)
    _tidy(session, rel)


# --------------------------------------------------------------------------- the native read, recorded

def _native_read_args(path: str, offset, limit):
    """(offset, limit) of the native scope, or None for files that are not plain text
    lines to the native tool (or not regular files: never open a FIFO)."""
    import stat

    from ..engine.sources import MAX_READ_BYTES

    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_READ_BYTES:
        return None
    with open(path, "rb") as fh:
        data = fh.read(MAX_READ_BYTES + 1)
    return native_scope(_count_lines(data), offset, limit)


def record_native_read(store, session, source, offset, limit, answer_id: str | None = None) -> str | None:
    """Write into the copy exactly what Claude's native Read shows for these arguments
    (its scope, plainly, in full), pending on a new intent; returns the intent (None
    when nothing is shown). The caller commits it once its hook output is out. With
    *answer_id* (the call's tool_use_id) the display is also kept as an answer by id,
    so a later read that the transcript proves things for finds it."""
    from ..engine.sources import split_text_lines
    from ..reads.views import numbered_tokens

    lines = split_text_lines(source.text)
    total = len(lines)
    copy = session.copy(source.rel)
    first, count = native_scope(total, offset, limit)
    if first is None or count is None:  # both None, or neither
        start, end = 1, total
        new_copy = copy.replaced(total, source.sha256, [True] * (total + 1))
        pending = (1, max(total, copy.extent(), 1))
    else:
        start, end = first, min(total, first + count - 1)
        if start > end:
            return None  # past the end: the native tool shows no lines
        new_copy = copy.written(start, end, source.sha256)
        pending = (start, end)
    intent = session.new_intent()
    new_copy = new_copy.cleared(*pending).with_pending(intent, *pending)
    store.put_object(source.data, source.sha256)
    session.set_copy(source.rel, new_copy)
    if answer_id is not None:
        import time

        from ..reads.answers import shown_effect

        store.add_answer(source.rel, shown_effect(answer_id, source.sha256, start, end,
                                                  total if first is None else None, time.time_ns()))
    tokens = numbered_tokens(lines, start, end) if total else 0
    session.record_read("full" if first is None else "range", tokens, tokens)
    return intent


# --------------------------------------------------------------------------- hooks

def pre_read(payload: Any, after: list) -> HookOutput | None:
    """PreToolUse(Read): pass the first read through and record it; answer re-reads."""
    req = parse_request(payload, READ_TOOLS)
    if req is None or req.path.lower().endswith(NATIVE_ONLY_SUFFIXES):
        return None
    scope = _native_read_args(req.path, req.tool_input.get("offset"), req.tool_input.get("limit"))
    if scope is None:
        return None
    offset, limit = scope
    ws = _workspace(req.root)
    try:
        store = ws.store_or_none()
        if store is None:
            return None  # no record can be kept: the native tool answers every read
        rel = _rel(os.path.realpath(req.path), str(ws.root))
        present = _present_answers(req, store, rel)
        if present is not None:
            return _pre_read_present(req, ws, store, rel, offset, limit, present, after)
        with store.session(req.session_id, write=False) as session:
            state = _state(session, rel, create=False)
            fresh = session.copy(rel).empty or bool(state.get("fresh")) or "pending" in state
        if fresh:
            from pathlib import Path

            from ..engine.sources import load_source

            source = load_source(Path(req.path), ws.root, ws.settings.sensitive)
            if source.passthrough:
                return None
            with store.session(req.session_id) as session:
                intent = record_native_read(store, session, source, req.tool_input.get("offset"),
                                            req.tool_input.get("limit"), _tool_use_id(req))
                _forget_state(session, source.rel)  # the native read makes the copy current again
            if intent:
                after.append(lambda: store.commit(intent))
            return None
        from ..api.operations import read_file
        from ..reads.read import ReadPolicy

        # no skeletons here: the native tool shows plain text, and so do we
        result = read_file(ws, req.path, req.session_id, offset=offset, limit=limit,
                           policy=ReadPolicy(skeleton_max_share=0.0), confirm=False, answer_id=_tool_use_id(req),
                           front="claude", capped=_capped(req, offset))
        after.append(result.commit)  # a plain answer is what the native tool shows: it is delivered too
        response = result.response
        mode = response["mode"]
        if mode == "unchanged":
            reason = f"{response['text']} {UNCHANGED_NOTE}"
        elif mode in ("delta", "diff"):
            footer = FOOTER.format(path=_shell_quote(req.path), sid=req.session_id)
            reason = f"{PREAMBLE}\n{response['text']}\n{footer}"
        else:
            return None  # a plain read: let the native tool show it (and track it)
        if _costs_more(reason, response):
            return None
        _keep_digest(store, response, reason)
        return _pre_tool("deny", reason)
    finally:
        ws.close()


# --------------------------------------------------------------------------- answers the transcript proves

DENY_PREFIX = "PreToolUse:Read hook error: "  # how Claude Code stores a denied Read's reason
# Claude Code 2.1.332 saves a hook's text longer than 10,000 characters to a file and
# shows the model a 2 KB preview of it: an answer must fit, or the model would hold
# less than symbolpack records. Longer answers are left to the native tool.
HOOK_TEXT_LIMIT = 9_500


def _present_answers(req: HookRequest, store, rel: str) -> list[str] | None:
    """The ids of the answers about *rel* the model holds now, in context order, as the
    session's transcript proves them (`claude_transcript`); None when it cannot (no
    transcript or tool-use id in the payload, or the call never shows up in it): the
    session's conversation-order copy answers then."""
    tool_use_id = req.payload.get("tool_use_id")
    if not isinstance(tool_use_id, str) or not tool_use_id:
        return None
    from .claude_transcript import present_for, present_results, transcript_for

    path = transcript_for(req.payload)
    if path is None:
        return None
    cache = os.path.join(store.dir, "claude", sha256_hex(path.encode("utf-8", "surrogateescape"))[:32] + ".pickle")
    found = present_for(path, cache, tool_use_id)
    if found is None:
        return None
    known = {e.id: e for e in store.answers(rel)}
    real = os.path.realpath(req.path)
    present = []
    for kind, item in present_results(*found):
        if kind == "result":
            ident, digest, is_error, cleared = item
            effect = known.get(ident)
            if effect is None or cleared:
                continue  # not ours, or Claude cleared it
            if effect.digest is not None and effect.digest != digest:
                continue  # the record says something else than the answer we gave
            if effect.digest is None and is_error:
                continue  # a native read that failed showed nothing
            present.append(ident)
        elif os.path.realpath(item[1]) == real:  # a file Claude re-attached after compacting
            if item[0] not in known:
                _record_attached(store, rel, *item)
            present.append(item[0])
    return present


def _record_attached(store, rel: str, uuid: str, _path: str, content: str, start: int) -> None:
    """A file Claude re-attached (read from disk, shown whole) is an answer of its own."""
    import time

    from ..engine.sources import split_text_lines
    from ..reads.answers import shown_effect

    data = content.encode("utf-8", "surrogateescape")
    sha = store.put_object(data)
    count = len(split_text_lines(content))
    store.add_answer(rel, shown_effect(uuid, sha, start, start + count - 1, count if start == 1 else None,
                                       time.time_ns()))


def _pre_read_present(req: HookRequest, ws, store, rel: str, offset, limit, present: list[str],
                      after: list) -> HookOutput | None:
    """PreToolUse(Read) against exactly the answers the model holds. A plain answer is
    the native tool's (it runs, and its result, found by id, is the proof); a marker, a
    delta or a diff is a deny whose stored reason is the proof."""
    from ..api.operations import read_file
    from ..reads.read import ReadPolicy

    tool_use_id = req.payload["tool_use_id"]
    with store.session(req.session_id, write=False) as session:
        edited = bool(_state(session, rel, create=False))  # hook state of an edit refused or in flight
    if edited:  # the native tool runs on every read here, so Claude's read state is current again
        with store.session(req.session_id) as session:
            _forget_state(session, rel)
    whole = offset is None and limit is None
    # a skeleton only for a whole-file read, delivered by claude-post-read in place of the native output
    policy = ReadPolicy() if whole else ReadPolicy(skeleton_max_share=0.0)
    result = read_file(ws, req.path, req.session_id, offset=offset, limit=limit, policy=policy, confirm=False,
                       answer_id=tool_use_id, present=present, front="claude", capped=_capped(req, offset))
    after.append(result.commit)
    response = result.response
    mode = response["mode"]
    if mode == "skeleton":
        _stash_skeleton(store, tool_use_id, req.path, response)
        return None  # the native tool runs (Claude's read state is set); its output is replaced after
    if mode not in ("unchanged", "delta", "diff"):
        return None  # a plain read: the native tool shows it
    # the native tool runs; claude-post-read puts the answer in place of its output: one
    # line of the scope as the Read result itself (Claude numbers it: exact; the result
    # is never empty), the answer as additional context in the same result; not an error
    first = response["scope"]["start"] if response.get("scope") else 1
    last = response["scope"]["end"] if response.get("scope") else response["total_lines"]
    lines = _file_lines(req.path)
    if lines is None or first > len(lines):
        return None
    # the line shown beside the answer: the shortest of the scope (often an empty one)
    start = min(range(first, min(last, len(lines)) + 1), key=lambda n: (len(lines[n - 1]), n))
    context = f"{response['text']}\n{REREAD_NOTE.format(line=start)}"
    if _costs_more(context, response, extra=lines[start - 1]):
        return None
    _stash(store, tool_use_id, {"file_path": req.path, "content": lines[start - 1], "start": start, "head": 1,
                                "native_start": first, "total": response["total_lines"],
                                "sha256": response["sha256"], "context": context})
    return None


def _capped(req: HookRequest, offset) -> bool:
    """Is the native scope Read's 2,000-line cap on a whole-file read (the model gave
    neither offset nor limit)? Then it is answered as a whole-file read, not an asked range."""
    return offset is not None and req.tool_input.get("offset") is None and req.tool_input.get("limit") is None


def _file_lines(path: str) -> list[str] | None:
    from ..engine.sources import split_text_lines

    try:
        with open(path, "rb") as fh:
            return split_text_lines(fh.read().decode("utf-8", "surrogateescape"))
    except OSError:
        return None


# --------------------------------------------------------------------------- skeleton first reads

# Both are the Read's own result (`is_error` false), so they need not say "not an error":
# they say why the result shows so few lines, and what the rest is.
REREAD_NOTE = "(The Read above shows line {line} only.)"
SKELETON_NOTE = ("[SKELETON] {path}, {total} lines: 1-{head} above, the rest here; \"... A-B elided\" hides "
                 "lines A-B (Read offset=A limit=B-A+1 shows them).")


def _stash_path(store, tool_use_id: str) -> str:
    return os.path.join(store.dir, "claude", "post", sha256_hex(tool_use_id.encode())[:32] + ".json")


def _stash_skeleton(store, tool_use_id: str, path: str, response: dict) -> None:
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
    _stash(store, tool_use_id, {"file_path": path, "content": content, "start": 1, "head": head,
                                "total": response["total_lines"], "sha256": response["sha256"],
                                "context": note + "\n" + body})


def _stash(store, tool_use_id: str, stash: dict) -> None:
    """What claude-post-read puts in place of this call's native output."""
    from ..base.workspace import atomic_write, ensure_private_dir

    target = _stash_path(store, tool_use_id)
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
    ws = _workspace(req.root)
    try:
        store = ws.store_or_none()
        if store is None:
            return None
        target = _stash_path(store, ident)
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


def _costs_more(reason: str, response: dict, extra: str = "") -> bool:
    """Would the answer (with its note, and *extra* shown beside it) cost the model
    more than the native tool showing the lines (a one-line range, say), or not
    reach it whole (longer than Claude shows a hook's text)? Then the native tool
    answers."""
    from ..base.tokens import count_tokens

    if len(reason) > HOOK_TEXT_LIMIT:
        return True  # Claude would show only a preview of it
    full = response.get("full_tokens")
    return isinstance(full, int) and count_tokens(reason) + count_tokens(extra) >= full


def _tool_use_id(req: HookRequest) -> str | None:
    ident = req.payload.get("tool_use_id")
    return ident if isinstance(ident, str) and ident else None


def _keep_digest(store, response: dict, reason: str) -> None:
    """A denied Read's answer, kept again with what the transcript will say of it (the
    later entry of an id wins): a result that says anything else does not count."""
    import time

    from ..reads.answers import effect_of
    from .claude_transcript import digest

    ident = response.get("answer_id")
    effect = effect_of(response, ident, time.time_ns()) if ident else None
    if effect is not None:
        effect.digest = digest(DENY_PREFIX + reason)
        store.add_answer(response["path"], effect)


def _shell_quote(text: str) -> str:
    """`shlex.quote` without importing shlex on the hot path."""
    if text and re.fullmatch(r"[\w@%+=:,./-]+", text, re.ASCII):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def pre_edit(payload: Any, after: list) -> HookOutput | None:
    """PreToolUse(Edit|MultiEdit|Write): the stale-read guard."""
    req = parse_request(payload, EDIT_TOOLS)
    if req is None or not os.path.isfile(req.path):
        return None  # a new file: nothing to be stale about
    from pathlib import Path

    from ..engine.sources import load_source, split_text_lines

    ws = _workspace(req.root)
    try:
        source = load_source(Path(req.path), ws.root, ws.settings.sensitive)
        if source.passthrough:
            return None
        store = ws.store_or_none()
        if store is None:
            return None
        lines = split_text_lines(source.text)
        load = loader(store, source.sha256, lines)
        present = _present_answers(req, store, source.rel)
        with store.session(req.session_id) as session:
            if present is not None:  # what the transcript proves the model holds (a rewind, a fork, ...)
                from ..reads.answers import fold, in_fold_order

                copy = fold(in_fold_order(present, store.answers(source.rel)), load).copy
            else:
                copy = session.copy(source.rel)
            if copy.empty:
                return None  # never read through symbolpack: Claude's own rule applies
            total = len(lines)
            texts, marks = copy_marks(copy, load, max(copy.extent(), total))
            if req.tool == "Write":  # it replaces every line: judged line by line, where the agent holds them
                marks = marks[1:total + 1]
                for n, mark in enumerate(marks):
                    if mark == KNOWN and texts[n + 1] != lines[n]:
                        marks[n] = DIFFERS
            else:  # the text it replaces, wherever it now is: lines that only moved are not stale
                marks = aligned_marks(texts, marks, lines)
            if len(marks) < len(source.text.split("\n")):
                marks.append(KNOWN)  # the empty piece after a final newline
            verdict = guard_verdict(req.tool, req.tool_input, source.text, marks)
            if verdict is None and req.tool == "Write" and copy.length is not None and copy.length != total:
                verdict = ("changed", min(copy.length, total) + 1, max(copy.length, total))
            if verdict is not None and verdict[0] == "unseen" and req.tool != "Write":
                verdict = None  # Claude Code allows it (the text may come from grep); post-edit tells the agent
            state = _state(session, source.rel)
            if verdict is None:
                state["pending"] = source.sha256
                return None
            state["fresh"] = True  # Claude's own tracking needs a native read after this
            state.pop("pending", None)
            if verdict[0] == "unseen":
                return _pre_tool("deny", _unseen_reason(source.rel, req.tool, verdict[1:3], verdict[3]))
            return _pre_tool("deny", _stale_reason(source, req.tool, verdict[1:3]))
    finally:
        ws.close()


def _stale_reason(source, tool: str, lines: tuple[int, int]) -> str:
    import time

    try:
        age = f"; last modified {max(0, int(time.time() - os.stat(source.path).st_mtime))} s ago"
    except OSError:
        age = ""
    a, b = lines
    where = f"line {a}" if a == b else f"lines {a}-{b}"
    return (f"[symbolpack stale-read guard] This {tool} was NOT applied: {source.rel} {where} changed on disk "
            f"since you last read it, and not by your own edits{age}. Read {source.rel} again (that read "
            f"shows its current content), then redo the {tool} against what is there now.")


def _unseen_reason(rel: str, tool: str, unseen: tuple[int, int], symbols) -> str:
    a, b = unseen
    names = qualnames(symbols)
    inside = f" (inside {', '.join(names[:3])})" if names else ""
    if tool == "Write":
        return (f"[symbolpack stale-read guard] This Write was NOT applied: it overwrites {rel}, including "
                f"lines {a}-{b}{inside} that you have not seen (elided or never read). Read the whole file "
                f"first, then write it again, or use Edit for a targeted change.")
    return (f"[symbolpack stale-read guard] This {tool} was NOT applied: it changes {rel} lines {a}-{b}{inside}, "
            f"which you have not seen (they were elided or outside what you read). Read them first "
            f"(Read {rel} with offset={a} and limit={b - a + 1}), then redo the {tool}.")


def post_edit(payload: Any, after: list) -> HookOutput | None:
    """PostToolUse(Edit|Write|MultiEdit|NotebookEdit): carry the copy through the edit."""
    req = parse_request(payload, POST_EDIT_TOOLS)
    if req is None:
        return None
    from pathlib import Path

    from ..reads.agentcopy import AgentCopy
    from ..engine.sources import load_source, split_text_lines

    ws = _workspace(req.root)
    try:
        try:
            source = load_source(Path(req.path), ws.root, ws.settings.sensitive)
        except Exception:
            source = None
        rel = source.rel if source is not None else _rel(os.path.realpath(req.path), str(ws.root))
        store = ws.store_or_none()
        if store is None:
            return None
        with store.session(req.session_id) as session:
            _forget_state(session, rel)  # the edit went through: no edit in flight, tracking current
            if req.tool == "NotebookEdit" or source is None or source.passthrough:
                session.drop_file(rel)  # not something symbolpack can follow: start over
                _record_edit(req, store, rel, None, None)
                return None
            disk = split_text_lines(source.text)
            if req.tool == "Write":
                content = req.tool_input.get("content")
                if not isinstance(content, str) or split_text_lines(content) != disk:
                    session.drop_file(rel)
                    _record_edit(req, store, rel, None, None)
                    return None
                store.put_object(source.data, source.sha256)
                session.set_copy(rel, AgentCopy().replaced(len(disk), source.sha256, [True] * (len(disk) + 1)))
                _record_edit(req, store, rel, source, disk)
                return None
            _record_edit(req, store, rel, source, disk)
            copy = session.copy(rel)
            if copy.empty:
                return None  # never read through symbolpack: nothing to carry
            edits = edits_of(req.tool, req.tool_input)
            load = loader(store)
            carried = carry_edit(copy, load, edits, disk, ends_with_newline(copy, load)) if edits else None
            if carried is None:
                session.drop_file(rel)  # the copy and the file part ways: the next read is plain
                return None
            cells, blind = carried
            store.put_object(source.data, source.sha256)
            session.set_copy(rel, copy_from_cells(cells, source.sha256,
                                                  len(disk) if copy.length is not None else None))
            if not blind:
                return None
            return _post_tool(_blind_warning(rel, blind))
    finally:
        ws.close()


def _record_edit(req: HookRequest, store, rel: str, source, disk: list[str] | None) -> None:
    """The model's own edit as an answer of its own, under the Edit's tool_use_id, where
    the transcript proves what the model holds (`_present_answers`): carried through
    the fold of the answers present when it ran (`own_edits.keep_own_edit`), so a later
    answer computed against a present set that holds this edit counts what it wrote
    and where the rest moved. *source* None: the file cannot be followed (every line
    unknown from this edit on, in the contexts that hold it)."""
    tool_use_id = req.payload.get("tool_use_id")
    if not isinstance(tool_use_id, str) or not tool_use_id or not store.has_answers(rel):
        return  # no answer of this file is kept by id: nothing folds by present sets
    present = _present_answers(req, store, rel)
    if present is None:
        return
    from .own_edits import keep_own_edit

    keep_own_edit(store, rel, tool_use_id, present, source, disk, edits_of(req.tool, req.tool_input),
                  whole=req.tool == "Write")


def _blind_warning(rel: str, blind) -> str:
    parts = []
    for old_a, old_b, symbols, new_a, new_b in blind[:4]:
        names = qualnames(symbols)
        where = f" in {', '.join(names[:3])}" if names else ""
        now = f"now lines {new_a}-{new_b}" if new_b >= new_a else "now removed"
        parts.append(f"your old lines {old_a}-{old_b}{where} ({now})")
    return (f"symbolpack: your edit to {rel} changed code you had only seen elided or never read: "
            f"{'; '.join(parts)}. Read those lines to check the result before relying on it.")


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
    ws = _workspace(hook_root(payload))
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
    from .claude_transcript import transcript_for

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
    they run before this returns."""
    handler = HOOKS.get(name) or HOOKS.get(f"claude-{name}")
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
        from ..base.settings import load_settings

        if load_settings().debug:
            import traceback

            traceback.print_exc()
        _log(f"{name}: {type(exc).__name__}: {exc}; no decision")
        return ""  # nothing recorded is committed: what it wrote stays pending (unsure)
    if after is None:
        _run_all(pending)
    else:
        after.extend(pending)
    return text


def _run_all(callbacks) -> None:
    for callback in callbacks:
        try:
            callback()
        except Exception as exc:  # an uncommitted intent only means "unsure"
            _log(f"commit failed: {type(exc).__name__}: {exc}")


def _log(message: str) -> None:
    """A hook's own trouble: one `symbolpack hook: warning: ...` line on stderr."""
    try:
        from ..base.log import warning

        warning(message)
    except Exception:
        pass


def main(argv: list[str] | None = None) -> int:
    from ..base.log import configure

    configure(prefix="symbolpack hook")  # warnings: one `symbolpack hook: warning: ...` line on stderr
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        _log(f"usage: tldrs hook {{{','.join(HOOKS)}}} < payload.json")
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
        return 0  # not delivered: the records stay pending, and later answers treat them as unsure
    _run_all(after)  # delivered whole: commit
    return 0


def run_as_process(argv: list[str] | None = None) -> None:
    """`main`, then end the process at once: everything is written and flushed, and
    skipping the interpreter's teardown saves ~4 ms per tool call."""
    from ..base.process import exit_now

    exit_now(main(argv))


if __name__ == "__main__":
    run_as_process()
