"""`claude-pre-edit` and `claude-post-edit`: the stale-edit guard, and the model's own
edits carried into its copy.

* `claude-pre-edit` (PreToolUse, `Edit|MultiEdit|Write`): the stale-read guard on
  the lines the edit touches, judged by text, not line numbers (`edits.aligned_marks`:
  a line that only moved is still held). An Edit is refused only where the text it
  replaces stands on a line the model holds with other text ("changed on disk"); a
  Write also where it overwrites lines the model never saw. Lines never shown pass
  (Claude Code allows them; the text may come from grep) and are reported after the
  edit. The model's own earlier edits are in its copy and never trip it; after a
  refused or failed edit the next read of the file is native.
* `claude-post-edit` (PostToolUse, `Edit|Write|MultiEdit|NotebookEdit`): the edit is
  replayed on the copy (`edits.carry_edit`): the lines it wrote become known, the
  rest carried shifted as they were. A copy that cannot be carried (a formatter
  rewrote the file, someone else changed it) is dropped: the next read is plain.
  Where the transcript proves what the model holds, the edit is also kept as an
  answer of its own (`own_edits.keep_own_edit`). `additionalContext` tells the model
  when its edit replaced lines it had only seen elided, or never saw.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...base.protocol import HookOutput

import os

from ..edits import (DIFFERS, KNOWN, aligned_marks, blind_touches, carry_edit, copy_from_cells, copy_marks,
                     edits_of, ends_with_newline, guard_verdict, loader, qualnames)
from .payload import (EDIT_TOOLS, POST_EDIT_TOOLS, HookRequest, forget_state, hook_state, parse_request,
                      post_tool, pre_tool, rel_of, tool_use_id, workspace)
from .present import present_answers


def pre_edit(payload: Any, after: list) -> HookOutput | None:
    """PreToolUse(Edit|MultiEdit|Write): the stale-read guard."""
    req = parse_request(payload, EDIT_TOOLS)
    if req is None or not os.path.isfile(req.path):
        return None  # a new file: nothing to be stale about
    from pathlib import Path

    from ...engine.sources import load_source, split_text_lines

    ws = workspace(req.root)
    try:
        source = load_source(Path(req.path), ws.root, ws.settings.sensitive)
        if source.passthrough:
            return None
        store = ws.store_or_none()
        if store is None:
            return None
        lines = split_text_lines(source.text)
        load = loader(store, source.sha256, lines)
        present = present_answers(req, store, source.rel)
        with store.session(req.session_id) as session:
            if present is not None:  # what the transcript proves the model holds (a rewind, a fork, ...)
                from ...reads.answers import fold, in_fold_order

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
            state = hook_state(session, source.rel)
            if verdict is None:
                state["pending"] = source.sha256
                blind = blind_touches(req.tool, req.tool_input, source.text, marks) if req.tool != "Write" else []
                if blind:  # lines it never saw, or saw elided: claude-post-edit tells the model once it is applied
                    state["unseen"] = [tool_use_id(req), blind]
                return None
            state["fresh"] = True  # Claude's own tracking needs a native read after this
            state.pop("pending", None)
            if verdict[0] == "unseen":
                return pre_tool("deny", _unseen_reason(source.rel, req.tool, verdict[1:3], verdict[3]))
            return pre_tool("deny", _stale_reason(source, req.tool, verdict[1:3]))
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

    from ...reads.agentcopy import AgentCopy
    from ...engine.sources import load_source, split_text_lines

    ws = workspace(req.root)
    try:
        try:
            source = load_source(Path(req.path), ws.root, ws.settings.sensitive)
        except Exception:
            source = None
        rel = source.rel if source is not None else rel_of(os.path.realpath(req.path), str(ws.root))
        store = ws.store_or_none()
        if store is None:
            return None
        with store.session(req.session_id) as session:
            # lines the guard found it replaces without having seen them (claude-pre-edit, this call)
            unseen = hook_state(session, rel, create=False).get("unseen")
            note = post_tool(_blind_warning(rel, unseen[1])) if isinstance(unseen, list) and len(unseen) == 2 \
                and unseen[0] is not None and unseen[0] == tool_use_id(req) and unseen[1] else None
            forget_state(session, rel)  # the edit went through: no edit in flight, tracking current
            if req.tool == "NotebookEdit" or source is None or source.passthrough:
                session.drop_file(rel)  # not something symbolpack can follow: start over
                _record_edit(req, store, rel, None, None)
                return note
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
                return note  # never read through symbolpack: nothing to carry
            edits = edits_of(req.tool, req.tool_input)
            load = loader(store)
            carried = carry_edit(copy, load, edits, disk, ends_with_newline(copy, load)) if edits else None
            if carried is None:
                session.drop_file(rel)  # the copy and the file part ways: the next read is plain
                return note  # an edit of lines never shown lands here: the model is still told
            cells, blind = carried
            store.put_object(source.data, source.sha256)
            session.set_copy(rel, copy_from_cells(cells, source.sha256,
                                                  len(disk) if copy.length is not None else None))
            if note is not None or not blind:
                return note  # the guard's note judged what the model holds now (the transcript's answers)
            return post_tool(_blind_warning(rel, blind))
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
    present = present_answers(req, store, rel)
    if present is None:
        return
    from ..own_edits import keep_own_edit

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

