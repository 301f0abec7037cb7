"""The Qwen Code hooks: a read answered by symbolpack only where Qwen's own read state
stays true; every native read and own edit kept as an answer the next read leans on.

| hook | Qwen event | what it does |
| --- | --- | --- |
| `qwen-pre-read` | `PreToolUse` `read_file` | a whole-file re-read of a file Qwen's read cache still holds as it is (`payload.qwen_fresh`): answered against the answers the transcript proves present (`present.py`) with a `deny` whose reason is the answer (Qwen sends it as the tool's result, verbatim): `[UNCHANGED]`, a delta or diff, a skeleton; anything else, and every first read, range, read after an outside change, compression, rewind or restart, runs natively |
| `qwen-post-read` | `PostToolUse` `read_file` | the native output kept as an answer, line by line as the model got it (Qwen trims line ends and cuts long output: those lines are unknown); Qwen's read state noted when the file did not change during the read |
| `qwen-post-edit` | `PostToolUse` `edit`, `write_file` | the model's own edit kept as an answer (`own_edits.keep_own_edit`); Qwen's read state noted (it records its own writes) |
| `qwen-edit-refused` | `PostToolUseFailure` `edit`, `write_file` | Qwen refused an edit for its read state ("has not been read", "modified since you last read it"): symbolpack's note of that state goes, the next read runs natively |
| `qwen-lifecycle` | `SessionStart`, `PreCompact`, `PostCompact` | a new process, a reset or a compression: Qwen's read cache may be empty, nothing noted before counts |

Why a deny only then: a denied `read_file` never runs, so Qwen records nothing, and its
`edit` refuses a file it has not read in this process or that changed since it read or
wrote it. A deny where Qwen's entry is fresh leaves that entry as it was (fresh), so
the next edit goes through; anywhere else the native read must run for Qwen to record
it. The price: first reads, reads after an outside change, after a compression, a
rewind or a restart are Qwen's own full reads (no skeleton, no delta).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...base.protocol import HookOutput

import os
import re
import time

from .payload import (EDIT_TOOLS, READ_TOOLS, bump_generation, fingerprint, forget_qwen_read, int_or_none,
                      note_qwen_read, parse_request, qwen_fresh, qwen_process, qwen_states, session_id_for)

# Qwen shows these as media or structured values, never as text lines
NATIVE_ONLY_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".svg", ".pdf", ".ipynb",
                        ".mp3", ".m4a", ".wav", ".flac", ".ogg", ".aac", ".mp4", ".mov", ".mkv", ".webm", ".avi")
_SHOWING = re.compile(r"\AShowing lines (\d+)-(\d+) of (?:at least )?(\d+) total lines\.\n\n---\n\n")
_QWEN_UNCHANGED = re.compile(r"\A\[File .* unchanged since last read in this session")
# Qwen's refusals of an edit for its read state (priorReadEnforcement)
_REFUSED = ("has not been read in this session", "has been modified since you last read it",
            "disappeared after the model read it", "Could not stat")
READING = "reading"  # per call: the fingerprint before a native read, to check Qwen's stat saw the same


def _workspace(root: str):
    from ..claude.payload import workspace

    return workspace(root)


def _rel(path: str, root) -> str:
    from ..claude.payload import rel_of

    return rel_of(os.path.realpath(path), str(root))


# --------------------------------------------------------------------------- qwen-pre-read

def pre_read(payload: Any, after: list) -> HookOutput | None:
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
        rel = _rel(req.path, ws.root)
        process = qwen_process()
        args = req.tool_input
        whole = all(args.get(k) is None for k in ("offset", "limit", "pages"))
        with store.session(req.session_id, write=False) as session:
            event = qwen_fresh(session, rel, fp, process) if whole else None
        answer = _answer(req, ws, store, rel, event, after) if event is not None else None
        if answer is not None:
            return answer
        # the native read runs: note the fingerprint it starts from (qwen-post-read checks it)
        with store.session(req.session_id) as session:
            reading = qwen_states(session).setdefault(READING, {})
            reading.clear() if len(reading) > 64 else None
            reading[req.call_id] = [fp, process]
        return None
    finally:
        ws.close()


def _answer(req, ws, store, rel: str, event: str, after: list) -> HookOutput | None:
    """The deny that answers this whole-file re-read, or None (the native read runs)."""
    from .present import prove

    proof = prove(req.payload, req.call_id, store, rel, str(ws.root))
    if proof is None or event not in proof.since_barrier:
        return None  # Qwen cleared its read cache since (a compression, a rewind) or nothing is proven
    from ...api.operations import read_file

    result = read_file(ws, req.path, req.session_id, confirm=False, answer_id=req.call_id,
                       present=proof.present, front="qwen")
    after.append(result.commit)
    response = result.response
    if response["mode"] not in ("unchanged", "delta", "diff", "skeleton"):
        return None  # a plain read: Qwen's own shows the same lines, and records them
    reason = response["text"]
    from ...base.tokens import count_tokens

    full = response.get("full_tokens")
    if isinstance(full, int) and count_tokens(reason) >= full:
        return None
    _keep_digest(store, response, reason)
    from ..claude.payload import pre_tool

    return pre_tool("deny", reason)


def _keep_digest(store, response: dict, reason: str) -> None:
    """The answer kept again with what the transcript will say of it (Qwen stores a deny's
    reason as the call's `response.error`): a record saying anything else does not count."""
    from ...reads.answers import effect_of
    from .transcript import digest

    ident = response.get("answer_id")
    effect = effect_of(response, ident, time.time_ns()) if ident else None
    if effect is not None:
        effect.digest = digest(reason)
        store.add_answer(response["path"], effect)


# --------------------------------------------------------------------------- qwen-post-read

def post_read(payload: Any, after: list) -> HookOutput | None:
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
        rel = _rel(req.path, ws.root)
        fp = fingerprint(req.path)
        with store.session(req.session_id) as session:
            started = qwen_states(session).get(READING, {}).pop(req.call_id, None)
            if not isinstance(content, str) or _QWEN_UNCHANGED.match(content):
                return None  # media, or Qwen's own "unchanged" note: nothing shown, its state as it was
            same = isinstance(started, list) and len(started) == 2 and started[0] == fp and fp is not None
            note_qwen_read(session, rel, fp if same else None, started[1] if same else None, req.call_id)
        _keep_native(ws, store, req, content)
        return None
    finally:
        ws.close()


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
    if req is None:
        return None
    from pathlib import Path

    from ...engine.sources import load_source, split_text_lines

    ws = _workspace(req.root)
    try:
        store = ws.store_or_none()
        if store is None:
            return None
        rel = _rel(req.path, ws.root)
        with store.session(req.session_id) as session:  # Qwen recorded its own write: its entry is fresh
            note_qwen_read(session, rel, fingerprint(req.path), qwen_process(), req.call_id)
        if req.call_id is None:
            return None
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


# --------------------------------------------------------------------------- qwen-edit-refused

def edit_refused(payload: Any, after: list) -> HookOutput | None:
    req = parse_request(payload, EDIT_TOOLS)
    error = payload.get("error") if isinstance(payload, dict) else None
    if req is None or not isinstance(error, str) or not any(r in error for r in _REFUSED):
        return None
    ws = _workspace(req.root)
    try:
        store = ws.store_or_none()
        if store is None:
            return None
        with store.session(req.session_id) as session:
            forget_qwen_read(session, _rel(req.path, ws.root))
        return None
    finally:
        ws.close()


# --------------------------------------------------------------------------- qwen-lifecycle

def lifecycle(payload: Any, after: list) -> HookOutput | None:
    if not isinstance(payload, dict) or payload.get("hook_event_name") not in ("SessionStart", "PreCompact",
                                                                               "PostCompact"):
        return None
    session_id = session_id_for(payload)
    if session_id is None:
        return None
    from ..claude.payload import hook_root

    ws = _workspace(hook_root(payload))
    try:
        store = ws.store_or_none()
        if store is None:
            return None
        with store.session(session_id) as session:
            bump_generation(session)
        return None
    finally:
        ws.close()
