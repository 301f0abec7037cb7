"""The Qwen Code hooks: Qwen's own `read_file` always runs (so its read-before-edit
record is what plain Qwen's would be), and its output is replaced by symbolpack's
answer against what the transcript proves the model holds.

| hook | Qwen event | what it does |
| --- | --- | --- |
| `qwen-pre-read` | `PreToolUse` `read_file` | never a decision: notes the file's fingerprint (device, inode, mtime, size) as Qwen's read starts |
| `qwen-post-read` | `PostToolUse` `read_file` | when the file is still what Qwen read: symbolpack's answer (`present.py`) in place of Qwen's output, as `{"continue": false, "stopReason": ANSWER}` -- a whole read's `[SKELETON]`, `[UNCHANGED]`, `[DELTA]` or `[DIFF]`, a range's marker or delta -- when it costs fewer tokens; Qwen's own "unchanged since last read" note is always replaced; anything else stands and is kept as an answer line by line as the model got it (Qwen trims line ends and cuts long output: those lines are unknown) |
| `qwen-post-edit` | `PostToolUse` `edit`, `write_file` | the model's own edit kept as an answer (`own_edits.keep_own_edit`) |

`qwen-edit-refused` and `qwen-lifecycle`, which earlier installs wrote, still run as no
decision (`retired`) until `tldrs install qwen` runs again and takes them out.

Why the answer replaces Qwen's output after its read, and never a deny before it: the
code facts of Qwen Code 0.24.4 (its bundled `chunks/*.js`):

- Read state. `edit` and `write_file` call `checkPriorRead` (tools/priorReadEnforcement.ts)
  on `FileReadCache` (services/fileReadCache.ts): an entry keyed by `dev:ino` whose
  `mtimeMs` and `size` still match, with `lastReadAt` set and `lastReadCacheable` (plain
  text); `lastReadWasFull` is not asked for ("a partial read with offset / limit is
  fine"). Only `ReadFileToolInvocation.execute` (tools/read-file.ts) records a read
  (`cache.recordRead`, `full` = no offset/limit/pages and not truncated), inside the
  tool, before any PostToolUse hook; `recordGrepResultFileReads` (a partial read per
  grep_search hit), `@file` attachments and Qwen's own writes (`recordWrite`) are the
  others. The cache is process memory: cleared at every compression, at a microcompaction
  that blanks a read it cannot place, dropped or thinned under memory pressure
  (`dropEntries`, `evictNotAccessedSince`) -- with no hook told. So a PreToolUse deny
  (`firePreToolUseHook`: the tool never runs, the reason becomes the result) records
  nothing, and is safe only while an earlier entry provably survives, which a hook
  cannot know under memory pressure.
- (a) A modified tool input: `firePreToolUseHook` (core/toolHookTriggers.ts) returns only
  proceed/deny/ask/stop and `additionalContext`; `hookSpecificOutput.tool_input` is
  applied by `HookRunner.applyHookOutputToInput` to the input of the *next hook* only,
  never to the tool's arguments. `updatedInput` exists only for `PermissionRequest`
  (`firePermissionRequestHook`), which fires only for a call that needs approval: not a
  workspace `read_file`, never under `--yolo`. No way to make Qwen read a tiny range.
- (b) PostToolUse (`firePostToolUseHook`, and its caller in `CoreToolScheduler`): no field
  replaces the output (`additionalContext` is appended after it by
  `appendAdditionalContext`), but `continue: false` makes the scheduler answer the call
  with `createErrorResponse(new Error(stopReason), EXECUTION_DENIED)` -- the same shape
  as a deny, `stopReason` verbatim (a command hook's stdout is parsed whole, up to 1 MB)
  -- after `read_file` ran and recorded the read. `continue: false` stops nothing else
  there (`processCommonHookOutputFields` only logs it); the turn goes on as after a deny.
  This is what `qwen-post-read` does.
- (c) Nothing a hook sends reaches `FileReadCache`: the only writers are the tools above.
- (d) An MCP tool (`DiscoveredMCPTool`) never calls `recordRead`: `edit` would refuse a
  file read only through `tldrs mcp` ("has not been read in this session").

So Qwen's read always runs and is recorded exactly as without symbolpack: an edit is
refused only where plain Qwen's would be. Qwen records a replaced whole read as full
and still in history (its microcompaction never blanks an error result), so its next
whole read of the unchanged file is its own note "unchanged since last read ... the
full content was provided earlier", which after a skeleton is not true: qwen-post-read
replaces every such note with symbolpack's answer. If the file changed between Qwen's
read and the hook (the fingerprints differ), Qwen's output stands: what Qwen recorded
is not the file symbolpack would answer about.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...base.protocol import HookOutput

import os
import re
import time

from .payload import EDIT_TOOLS, READ_TOOLS, fingerprint, int_or_none, parse_request, reading_calls

# Qwen shows these as media or structured values, never as text lines
NATIVE_ONLY_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".svg", ".pdf", ".ipynb",
                        ".mp3", ".m4a", ".wav", ".flac", ".ogg", ".aac", ".mp4", ".mov", ".mkv", ".webm", ".avi")
_SHOWING = re.compile(r"\AShowing lines (\d+)-(\d+) of (?:at least )?(\d+) total lines\.\n\n---\n\n")
_QWEN_UNCHANGED = re.compile(r"\A\[File .* unchanged since last read in this session")
# what symbolpack answers in place of Qwen's output: a whole read, a range
ANSWERS = ("skeleton", "unchanged", "delta", "diff")
RANGE_ANSWERS = ("unchanged", "delta", "diff")


def _workspace(root: str):
    from ..claude.payload import workspace

    return workspace(root)


def _rel(path: str, root) -> str:
    from ..claude.payload import rel_of

    return rel_of(os.path.realpath(path), str(root))


# --------------------------------------------------------------------------- qwen-pre-read

def pre_read(payload: Any, after: list) -> HookOutput | None:
    """Never a decision: Qwen's own read runs (and records the file in its read state);
    the fingerprint it starts from is noted for qwen-post-read."""
    req = parse_request(payload, READ_TOOLS)
    if req is None or req.call_id is None or req.path.lower().endswith(NATIVE_ONLY_SUFFIXES):
        return None
    fp = fingerprint(req.path)
    if fp is None:
        return None
    ws = _workspace(req.root)
    try:
        store = ws.store_or_none()
        if store is None:
            return None
        with store.session(req.session_id) as session:
            reading = reading_calls(session)
            reading.clear() if len(reading) > 64 else None
            reading[req.call_id] = fp
        return None
    finally:
        ws.close()


# --------------------------------------------------------------------------- qwen-post-read

def post_read(payload: Any, after: list) -> dict | None:
    req = parse_request(payload, READ_TOOLS)
    if req is None or req.call_id is None:
        return None
    response = payload.get("tool_response")
    content = response.get("llmContent") if isinstance(response, dict) else None
    ws = _workspace(req.root)
    try:
        store = ws.store_or_none()
        if store is None:
            return None
        fp = fingerprint(req.path)
        with store.session(req.session_id) as session:
            started = reading_calls(session).pop(req.call_id, None)
        if not isinstance(content, str) or req.path.lower().endswith(NATIVE_ONLY_SUFFIXES):
            return None  # media or a structured value: Qwen's own
        placeholder = _QWEN_UNCHANGED.match(content) is not None
        if placeholder or (fp is not None and started == fp):
            out = _answer(req, ws, store, _rel(req.path, ws.root), content, placeholder, after)
            if out is not None:
                return out
        if not placeholder:
            _keep_native(ws, store, req, content)
        return None
    finally:
        ws.close()


def _answer(req, ws, store, rel: str, content: str, placeholder: bool, after: list) -> dict | None:
    """The stop whose reason is symbolpack's answer to this read, in place of Qwen's output
    (which it ran and recorded), or None: Qwen's output stands. *placeholder*: Qwen's
    output is its own "unchanged since last read" note, true only of a read it showed
    whole itself, so any answer symbolpack has replaces it."""
    args = req.tool_input
    offset, limit = int_or_none(args.get("offset")), int_or_none(args.get("limit"))
    if args.get("pages") is not None or (args.get("offset") is not None and offset is None) \
            or (args.get("limit") is not None and limit is None):
        return None
    whole = offset is None and limit is None
    from ...api.operations import read_file
    from ...base.errors import SymbolpackError
    from ...reads.read import ReadPolicy
    from .present import prove

    proof = prove(req.payload, req.call_id, store, rel, str(ws.root))
    # no proof: an answer that leans on nothing the model may hold (a skeleton, lines)
    present = proof.present if proof is not None else []
    policy = ReadPolicy() if whole else ReadPolicy(skeleton_max_share=0.0)  # a range asks for lines
    try:
        result = read_file(ws, req.path, req.session_id, offset=None if offset is None else offset + 1,
                           limit=limit, policy=policy, confirm=False, answer_id=req.call_id, present=present,
                           front="qwen")
    except SymbolpackError:
        return None
    response = result.response
    if response["mode"] not in (ANSWERS if whole else RANGE_ANSWERS):
        return None  # lines as Qwen shows them: its own output is the answer (kept by _keep_native)
    reason = response["text"]
    from ...base.tokens import count_tokens

    if not placeholder and count_tokens(reason) >= count_tokens(content):
        return None
    after.append(result.commit)
    _keep_digest(store, response, reason)
    return {"continue": False, "stopReason": reason}  # Qwen's stop: not a Claude-shaped HookOutput


def _keep_digest(store, response: dict, reason: str) -> None:
    """The answer kept again with what the transcript will say of it (Qwen stores a
    stop's reason as the call's `response.error`): a record saying anything else does
    not count."""
    from ...reads.answers import effect_of
    from .transcript import digest

    ident = response.get("answer_id")
    effect = effect_of(response, ident, time.time_ns()) if ident else None
    if effect is not None:
        effect.digest = digest(reason)
        store.add_answer(response["path"], effect)


def _keep_native(ws, store, req, content: str) -> None:
    """What Qwen's read_file showed, kept as an answer under the call's id: each line the
    model got exactly as the file has it now is shown; a line trimmed or cut is unknown."""
    from pathlib import Path

    from ...engine.sources import load_source, split_text_lines
    from ...reads.answers import GAP, SHOW, Effect
    from .transcript import digest

    try:
        source = load_source(Path(req.path), ws.root, ws.settings.sensitive)
    except Exception:
        return
    if source.passthrough:
        return
    lines = split_text_lines(source.text)
    total = len(lines)
    body = content
    header = _SHOWING.match(content)
    offset = int_or_none(req.tool_input.get("offset")) or 0
    if header is not None:
        body = content[header.end():]
        offset = int(header.group(1)) - 1
    rows = body.split("\n") if body else []
    start = offset + 1
    if rows and rows[-1] == "" and start + len(rows) - 1 == total + 1:
        rows.pop()  # the empty piece after a final newline is not a line
    end = start + len(rows) - 1
    if end > total:
        return  # more lines than the file has now: it changed; nothing is kept
    ops: list[tuple] = []
    for n, row in enumerate(rows, start):
        kind = SHOW if row == lines[n - 1] else GAP
        if ops and ops[-1][2] == kind and ops[-1][1] == n - 1:
            ops[-1] = (ops[-1][0], n, kind, None)
        else:
            ops.append((n, n, kind, None))
    whole = header is None and offset == 0 and all(req.tool_input.get(k) is None for k in ("offset", "limit"))
    store.put_object(source.data, source.sha256)
    store.add_answer(source.rel, Effect(req.call_id, source.sha256, total if whole and end == total else None,
                                        ops, time.time_ns(), digest=digest(content)))


# --------------------------------------------------------------------------- qwen-post-edit

def post_edit(payload: Any, after: list) -> HookOutput | None:
    req = parse_request(payload, EDIT_TOOLS)
    if req is None or req.call_id is None:
        return None  # an edit kept as an answer is kept by the call's id
    from pathlib import Path

    from ...engine.sources import load_source, split_text_lines

    ws = _workspace(req.root)
    try:
        store = ws.store_or_none()
        if store is None:
            return None
        rel = _rel(req.path, ws.root)
        whole = req.tool == "write_file"
        if not whole and not store.has_answers(rel):
            return None  # nothing of the file is kept by id: nothing to carry
        from .present import prove

        proof = prove(req.payload, req.call_id, store, rel, str(ws.root))
        if proof is None:
            return None
        try:
            source = load_source(Path(req.path), ws.root, ws.settings.sensitive)
        except Exception:
            source = None
        from ..own_edits import keep_own_edit

        if source is None or source.passthrough:
            keep_own_edit(store, rel, req.call_id, proof.present, None, None)
            return None
        disk = split_text_lines(source.text)
        if whole:
            content = req.tool_input.get("content")
            if not isinstance(content, str) or content != source.text:
                keep_own_edit(store, rel, req.call_id, proof.present, None, None)
            else:
                keep_own_edit(store, rel, req.call_id, proof.present, source, disk, whole=True)
            return None
        args = req.tool_input
        edits = [(args.get("old_string"), args.get("new_string"), args.get("replace_all") is True)]
        keep_own_edit(store, rel, req.call_id, proof.present, source, disk, edits)
        return None
    finally:
        ws.close()


def retired(payload: Any, after: list) -> HookOutput | None:
    """`qwen-edit-refused` and `qwen-lifecycle`, which an earlier install wrote: no decision,
    nothing noted (nothing depends on Qwen's read state any more)."""
    return None
