"""Chibi: the stale-edit guard on `write_file` / `file_edit`, and the agent's own
edits carried through its copy (the shared machinery is `edits.py`; this is Chibi's
side of it: its tools' arguments, its answers). See `chibi.py` for the contracts.
"""

from __future__ import annotations

import os

from .state import workspace_for
from .tools import TOOL_READ

_WRITE_OK = "File written successfully"
_EDIT_OK = ("Edited ", "Replaced string in ")


# --------------------------------------------------------------------------- the guard

def _deny_text(rel: str, tool: str, verdict) -> str:
    from ..edits import qualnames

    a, b = verdict[1], verdict[2]
    where = f"line {a}" if a == b else f"lines {a}-{b}"
    if verdict[0] == "unseen":
        names = qualnames(verdict[3])
        inside = f" (inside {', '.join(names[:3])})" if names else ""
        if tool == "write_file":
            return (f"[symbolpack stale-edit guard] This write_file was NOT applied: it overwrites {rel}, including "
                    f"{where}{inside} that you have not seen (elided or never read). Read the whole file first "
                    f"({TOOL_READ} path={rel} full=true), then write it again, or use file_edit for a targeted "
                    f"change.")
        return (f"[symbolpack stale-edit guard] This {tool} was NOT applied: it changes {rel} {where}{inside}, "
                f"which you have not seen (elided or never read). Read them first ({TOOL_READ} path={rel} "
                f"offset={a} limit={b - a + 1}), then redo the {tool}.")
    return (f"[symbolpack stale-edit guard] This {tool} was NOT applied: {rel} {where} changed on disk since "
            f"you last read it, and not by your own edits. Read {rel} again ({TOOL_READ} shows what changed), "
            f"then redo the {tool} against what is there now.")


def _marks_now(store, copy, source, by_text: bool):
    """(lines, marks) of the file now: per line (index 0 unused) the guard's mark (`edits`):
    KNOWN (held and equal), DIFFERS (held, different now), hidden or GAP. *by_text*: a
    line is matched to what the agent holds by its text (`edits.aligned_marks`: a line
    that only moved is still KNOWN), for an edit that replaces text; else by its number
    (a whole-file write replaces every line where it is)."""
    from ..edits import DIFFERS, KNOWN, aligned_marks, copy_marks, loader
    from ...engine.sources import split_text_lines

    lines = split_text_lines(source.text)
    texts, marks = copy_marks(copy, loader(store, source.sha256, lines), max(len(lines), copy.extent()))
    if by_text:
        return lines, [None, *aligned_marks(texts, marks, lines)]
    marks = marks[:len(lines) + 1]
    for n in range(1, len(lines) + 1):
        if marks[n] == KNOWN and texts[n] != lines[n - 1]:
            marks[n] = DIFFERS
    return lines, marks


def _edit_span(args: dict, lines: list[str], text: str) -> tuple[int, int] | None:
    """The lines of the file now that a Chibi `file_edit` replaces or places its text
    by (fs_write.rs semantics); None when Chibi would refuse the edit itself."""
    from ..edits import int_arg

    op = args.get("operation")
    total = len(lines)
    if op == "replace_string":
        find = args.get("find")
        if not isinstance(find, str) or not isinstance(args.get("replace"), str):
            return None
        at = text.find(find)
        if at < 0:
            return None
        first = text.count("\n", 0, at) + 1
        last = text.count("\n", 0, at + max(len(find), 1) - 1) + 1  # the line of its last character
        return first, min(max(last, first), max(total, 1))
    start = int_arg(args.get("line_start"))
    if start is None or start < 1:
        return None
    if op in ("replace_lines", "delete_lines"):
        end = int_arg(args.get("line_end"))
        if end is None or end < start or end > total:
            return None
        return start, end
    if op in ("insert_before", "insert_after"):
        return (start, start) if start <= total else None  # the line it is placed by
    return None


def judge_write(path: str, session_id: str, tool: str, args: dict) -> str | None:
    """The guard's refusal for this write_file/file_edit, or None (no opinion)."""
    from pathlib import Path

    from ..edits import KNOWN, guard_verdict
    from ...engine.sources import load_source

    ws = workspace_for(path)
    try:
        source = load_source(Path(path), ws.root, ws.settings.sensitive)
        if source.passthrough:
            return None
        store = ws.store_or_none()
        if store is None:
            return None
        with store.session(session_id, write=False) as session:
            copy = session.copy(source.rel)
            if copy.empty:
                return None  # never read through symbolpack: nothing to judge by
            lines, marks = _marks_now(store, copy, source, by_text=tool != "write_file")
        if tool == "write_file":
            all_marks = marks[1:]
            if len(all_marks) < len(source.text.split("\n")):
                all_marks.append(KNOWN)  # the empty piece after a final newline
            verdict = guard_verdict("Write", {}, source.text, all_marks)
            if verdict is None and copy.length is not None and copy.length != len(lines):
                verdict = ("changed", min(copy.length, len(lines)) + 1, max(copy.length, len(lines)))
        else:
            span = _edit_span(args, lines, source.text)
            if span is None:
                return None
            a, b = span
            # the touched lines judged as a file of their own (guard_verdict's Write rule)
            sub = lines[a - 1:b] or [""]
            sub_marks = (marks[a:b + 1] or [KNOWN]) + [KNOWN]
            verdict = guard_verdict("Write", {}, "\n".join(sub) + "\n", sub_marks)
            if verdict is not None:
                verdict = (verdict[0], verdict[1] + a - 1, verdict[2] + a - 1, *verdict[3:])
        return None if verdict is None else _deny_text(source.rel, tool, verdict)
    finally:
        ws.close()


# --------------------------------------------------------------------------- edits carried

def _rust_lines(text: str) -> list[str]:
    """Rust's `str::lines`: split on LF, drop one trailing empty piece, strip a CR."""
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def _carry_lines(copy, load, args: dict, disk: list[str]):
    """Per-line cells of the copy after a line-based `file_edit` (index 0 unused), or
    None when the result disagrees with the file on any line the copy says anything about."""
    from ..edits import GAP, KNOWN, copy_marks, int_arg

    op = args.get("operation")
    start = int_arg(args.get("line_start"))
    if start is None or start < 1:
        return None
    new = _rust_lines(args["content"]) if isinstance(args.get("content"), str) else []
    if op in ("replace_lines", "delete_lines"):
        end = int_arg(args.get("line_end"))
        if end is None or end < start:
            return None
        i, j = start - 1, end
        if op == "delete_lines":
            new = []
    elif op == "insert_before":
        i = j = start - 1
    elif op == "insert_after":
        i = j = start
    else:
        return None
    extent = copy.extent()
    texts, marks = copy_marks(copy, load, extent)
    cells, words = list(marks[1:]), list(texts[1:])
    if j > len(cells):
        cells += [GAP] * (j - len(cells))
        words += [None] * (j - len(words))
    cells[i:j] = [KNOWN] * len(new)
    words[i:j] = new
    if copy.length is not None:
        if copy.length - (j - i) + len(new) != len(disk):
            return None
    elif len(cells) > len(disk):
        return None
    out: list = [None] + [GAP] * len(disk)
    for k, mark in enumerate(cells):
        if mark == GAP or words[k] is None:
            continue
        if k >= len(disk) or words[k] != disk[k]:
            return None
        out[k + 1] = mark
    return out


def carry_write(path: str, session_id: str, tool: str, args: dict, result) -> None:
    """post_tool of write_file/file_edit: the agent's copy after its own edit."""
    from pathlib import Path

    from ...reads.agentcopy import AgentCopy
    from ...engine.sources import load_source, split_text_lines
    from ..edits import carry_edit, copy_from_cells, ends_with_newline, loader

    ok = _WRITE_OK if tool == "write_file" else _EDIT_OK
    if not isinstance(result, str) or not result.startswith(ok):
        return  # refused, blocked or failed: the file is as it was, and so is the copy
    ws = workspace_for(path)
    try:
        try:
            source = load_source(Path(path), ws.root, ws.settings.sensitive)
        except Exception:
            source = None
        store = ws.store_or_none()
        if store is None:
            return
        from ...engine.sources import stored_name

        rel = source.rel if source is not None else stored_name(Path(os.path.realpath(path)), ws.root)
        with store.session(session_id) as session:
            if source is None or source.passthrough:
                session.drop_file(rel)
                return
            disk = split_text_lines(source.text)
            if tool == "write_file":
                content = args.get("content")
                if not isinstance(content, str) or split_text_lines(content) != disk:
                    session.drop_file(rel)
                    return
                store.put_object(source.data, source.sha256)
                session.set_copy(rel, AgentCopy().replaced(len(disk), source.sha256, [True] * (len(disk) + 1)))
                return
            copy = session.copy(rel)
            if copy.empty:
                return
            load = loader(store)
            if args.get("operation") == "replace_string":
                carried = carry_edit(copy, load, [(args.get("find"), args.get("replace"), False)], disk,
                                     ends_with_newline(copy, load))
                cells = carried[0] if carried else None
            else:
                cells = _carry_lines(copy, load, args, disk)
            if cells is None:
                session.drop_file(rel)  # the copy and the file part ways: the next read is plain
                return
            store.put_object(source.data, source.sha256)
            session.set_copy(rel, copy_from_cells(cells, source.sha256, len(disk) if copy.length is not None else None))
    finally:
        ws.close()
