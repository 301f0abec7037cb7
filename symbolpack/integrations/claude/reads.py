"""`claude-pre-read`: the native Read, recorded or answered from the session's record.

The first read of a file goes to the native tool (Claude's read-before-edit
tracking must see it) and symbolpack records exactly what that tool shows. A
re-read is answered against the answers the transcript proves the model holds
(`present.py`): a skeleton, `[UNCHANGED]`, a delta or a diff, delivered by
`claude-post-read` in place of the native output (`delivery.py`); a plain answer is
the native output itself. Without a transcript, against the session's
conversation-order copy, and a re-read's answer is a `deny` whose reason is the
content. Whenever symbolpack would answer with a plain read anyway, the native tool
runs (no decision), so Claude's tracking stays current; the lines stay pending
(unsure) until the hook's output has been written and flushed.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...base.protocol import HookOutput

import os

from .delivery import HOOK_TEXT_LIMIT, REREAD_NOTE, stash, stash_skeleton
from .payload import (NATIVE_ONLY_SUFFIXES, READ_TOOLS, HookRequest, count_lines, forget_state, hook_state,
                      native_scope, parse_request, pre_tool, rel_of, shell_quote, tool_use_id, workspace)
from .present import DENY_PREFIX, present_answers

PREAMBLE = ("symbolpack answered this Read from your session's record of the file. This is the file's "
            "content for you, not an error; do not retry the Read.")
FOOTER = ("(Lost your earlier copy? Run `tldrs session refresh {path} --session-id {sid}` "
          "and Read again for the full text.)")
UNCHANGED_NOTE = "(symbolpack: not an error; do not retry the Read.)"


# --------------------------------------------------------------------------- the native read, recorded

def _native_read_args(path: str, offset, limit):
    """(offset, limit) of the native scope, or None for files that are not plain text
    lines to the native tool (or not regular files: never open a FIFO)."""
    import stat

    from ...engine.sources import MAX_READ_BYTES

    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_READ_BYTES:
        return None
    with open(path, "rb") as fh:
        data = fh.read(MAX_READ_BYTES + 1)
    return native_scope(count_lines(data), offset, limit)


def record_native_read(store, session, source, offset, limit, answer_id: str | None = None) -> str | None:
    """Write into the copy exactly what Claude's native Read shows for these arguments
    (its scope, plainly, in full), pending on a new intent; returns the intent (None
    when nothing is shown). The caller commits it once its hook output is out. With
    *answer_id* (the call's tool_use_id) the display is also kept as an answer by id,
    so a later read that the transcript proves things for finds it."""
    from ...engine.sources import split_text_lines
    from ...reads.views import numbered_tokens

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

        from ...reads.answers import shown_effect

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
    ws = workspace(req.root)
    try:
        store = ws.store_or_none()
        if store is None:
            return None  # no record can be kept: the native tool answers every read
        rel = rel_of(os.path.realpath(req.path), str(ws.root))
        present = present_answers(req, store, rel)
        if present is not None:
            return _pre_read_present(req, ws, store, rel, offset, limit, present, after)
        with store.session(req.session_id, write=False) as session:
            state = hook_state(session, rel, create=False)
            fresh = session.copy(rel).empty or bool(state.get("fresh")) or "pending" in state
        if fresh:
            from pathlib import Path

            from ...engine.sources import load_source

            source = load_source(Path(req.path), ws.root, ws.settings.sensitive)
            if source.passthrough:
                return None
            with store.session(req.session_id) as session:
                intent = record_native_read(store, session, source, req.tool_input.get("offset"),
                                            req.tool_input.get("limit"), tool_use_id(req))
                forget_state(session, source.rel)  # the native read makes the copy current again
            if intent:
                after.append(lambda: store.commit(intent))
            return None
        from ...api.operations import read_file
        from ...reads.read import ReadPolicy

        # no skeletons here: the native tool shows plain text, and so do we
        result = read_file(ws, req.path, req.session_id, offset=offset, limit=limit,
                           policy=ReadPolicy(skeleton_max_share=0.0), confirm=False, answer_id=tool_use_id(req),
                           front="claude", capped=_capped(req, offset))
        after.append(result.commit)  # a plain answer is what the native tool shows: it is delivered too
        response = result.response
        mode = response["mode"]
        if mode == "unchanged":
            reason = f"{response['text']} {UNCHANGED_NOTE}"
        elif mode in ("delta", "diff"):
            footer = FOOTER.format(path=shell_quote(req.path), sid=req.session_id)
            reason = f"{PREAMBLE}\n{response['text']}\n{footer}"
        else:
            return None  # a plain read: let the native tool show it (and track it)
        if _costs_more(reason, response):
            return None
        _keep_digest(store, response, reason)
        return pre_tool("deny", reason)
    finally:
        ws.close()



def _pre_read_present(req: HookRequest, ws, store, rel: str, offset, limit, present: list[str],
                      after: list) -> HookOutput | None:
    """PreToolUse(Read) against exactly the answers the model holds. A plain answer is
    the native tool's (it runs, and its result, found by id, is the proof); a marker, a
    delta or a diff is a deny whose stored reason is the proof."""
    from ...api.operations import read_file
    from ...reads.read import ReadPolicy

    tool_use_id = req.payload["tool_use_id"]
    with store.session(req.session_id, write=False) as session:
        edited = bool(hook_state(session, rel, create=False))  # hook state of an edit refused or in flight
    if edited:  # the native tool runs on every read here, so Claude's read state is current again
        with store.session(req.session_id) as session:
            forget_state(session, rel)
    whole = offset is None and limit is None
    # a skeleton only for a whole-file read, delivered by claude-post-read in place of the native output
    policy = ReadPolicy() if whole else ReadPolicy(skeleton_max_share=0.0)
    result = read_file(ws, req.path, req.session_id, offset=offset, limit=limit, policy=policy, confirm=False,
                       answer_id=tool_use_id, present=present, front="claude", capped=_capped(req, offset))
    after.append(result.commit)
    response = result.response
    mode = response["mode"]
    if mode == "skeleton":
        stash_skeleton(store, tool_use_id, req.path, response)
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
    stash(store, tool_use_id, {"file_path": req.path, "content": lines[start - 1], "start": start, "head": 1,
                                "native_start": first, "total": response["total_lines"],
                                "sha256": response["sha256"], "context": context})
    return None


def _capped(req: HookRequest, offset) -> bool:
    """Is the native scope Read's 2,000-line cap on a whole-file read (the model gave
    neither offset nor limit)? Then it is answered as a whole-file read, not an asked range."""
    return offset is not None and req.tool_input.get("offset") is None and req.tool_input.get("limit") is None


def _file_lines(path: str) -> list[str] | None:
    from ...engine.sources import split_text_lines

    try:
        with open(path, "rb") as fh:
            return split_text_lines(fh.read().decode("utf-8", "surrogateescape"))
    except OSError:
        return None


def _costs_more(reason: str, response: dict, extra: str = "") -> bool:
    """Would the answer (with its note, and *extra* shown beside it) cost the model
    more than the native tool showing the lines (a one-line range, say), or not
    reach it whole (longer than Claude shows a hook's text)? Then the native tool
    answers."""
    from ...base.tokens import count_tokens

    if len(reason) > HOOK_TEXT_LIMIT:
        return True  # Claude would show only a preview of it
    full = response.get("full_tokens")
    return isinstance(full, int) and count_tokens(reason) + count_tokens(extra) >= full



def _keep_digest(store, response: dict, reason: str) -> None:
    """A denied Read's answer, kept again with what the transcript will say of it (the
    later entry of an id wins): a result that says anything else does not count."""
    import time

    from ...reads.answers import effect_of
    from .transcript import digest

    ident = response.get("answer_id")
    effect = effect_of(response, ident, time.time_ns()) if ident else None
    if effect is not None:
        effect.digest = digest(DENY_PREFIX + reason)
        store.add_answer(response["path"], effect)

