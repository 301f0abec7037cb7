"""The judge of a Qwen Code context: one OpenAI Chat Completions request, as Qwen
sent it, turned into the Claude Code shapes `claude_view` judges.

Why a conversion and not a second judge: what a model can hold of a file is the
same in both hosts (the latest display of each line wins, an answer vouches only
for lines the context still holds), and only the shapes differ. Qwen shows a
`read_file` result as the file's raw lines (no numbers; a range starts at its
0-based `offset`, or at the `Showing lines A-B of N total lines.` header Qwen puts
on a cut read), a denied read's reason as the result's text, an edit as `edit`
or `write_file`, a compression as a summary plus each recent file re-embedded
whole in a fence (`Recently accessed file (full current content embedded):`), and a
result its microcompaction blanked as `[Old tool result content cleared]`. Each is
rewritten here into what `claude_view` reads: numbered rows, a hook error holding
symbolpack's answer, Read/Edit/Write tool uses, a re-attached file, a cleared
result. Like `claude_view`, this imports nothing from the engine: the answer
grammar is `claude_view`'s, written from docs/PROTOCOL.md.

An edit's result does not say whether it was applied in a way that survives the
conversion (Qwen's error and success texts are both plain text in the request), so
the caller's clock decides: an edit whose file did not change was refused.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping, Sequence

from .claude_view import ATTACHED_RESULT, DENY_PREFIX, REMINDER_CLOSE, REMINDER_OPEN, FileClock, Verdict, \
    judge_request

ANSWER_HEADS = ("[UNCHANGED]", "[CHANGED]", "[DELTA]", "[DIFF]", "[SKELETON]")
_SHOWING = re.compile(r"\AShowing lines (\d+)-(\d+) of (?:at least )?(\d+) total lines\.\n\n---\n\n")
_EMBED = re.compile(r"Recently accessed file \(full current content embedded\):\n\n## (?P<path>[^\n]+)\n\n"
                    r"(?P<fence>`{3,})\n(?P<body>.*?)\n(?P=fence)(?:\n|$)", re.S)
TOOLS = {"read_file": "Read", "edit": "Edit", "write_file": "Write"}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping) and p.get("type") == "text")
    return ""


def numbered(raw: str, start: int) -> str:
    """Qwen's raw lines as Claude's `N<TAB>line` rows from line *start*."""
    return "\n".join(f"{start + k}\t{row}" for k, row in enumerate(raw.split("\n")))


def _args(call: Mapping[str, Any]) -> dict:
    try:
        args = json.loads(call.get("function", {}).get("arguments") or "{}")
    except ValueError:
        return {}
    return args if isinstance(args, dict) else {}


def _claude_input(name: str, args: dict) -> dict:
    if name == "read_file":
        out = {"file_path": args.get("file_path")}
        if isinstance(args.get("offset"), int):
            out["offset"] = args["offset"] + 1  # Qwen counts from 0, Claude's Read from 1
        if isinstance(args.get("limit"), int):
            out["limit"] = args["limit"]
        return out
    return dict(args)


def to_claude(messages: Sequence[Mapping[str, Any]], clock: FileClock) -> list[dict]:
    """Qwen's request *messages* in the shapes `claude_view.judge_request` reads."""
    out: list[dict] = []
    calls: dict[Any, tuple[str, dict]] = {}
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            blocks: list[dict] = []
            if _text(message.get("content")):
                blocks.append({"type": "text", "text": _text(message.get("content"))})
            for call in message.get("tool_calls") or []:
                name = str(call.get("function", {}).get("name"))
                args = _args(call)
                calls[call.get("id")] = (name, args)
                blocks.append({"type": "tool_use", "id": call.get("id"), "name": TOOLS.get(name, name),
                               "input": _claude_input(name, args)})
            out.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            ident = message.get("tool_call_id")
            name, args = calls.get(ident, ("", {}))
            out.append({"role": "user", "content": [_result(ident, name, args, _text(message.get("content")), clock)]})
        elif role == "user":
            out.append({"role": "user", "content": [{"type": "text", "text": _user_text(_text(message.get("content")))}]})
    return out


def _result(ident: Any, name: str, args: dict, text: str, clock: FileClock) -> dict:
    block: dict = {"type": "tool_result", "tool_use_id": ident, "content": text}
    if name == "read_file":
        if text.startswith(ANSWER_HEADS):  # symbolpack's answer, delivered as the denied read's reason
            block.update(content=DENY_PREFIX + text, is_error=True)
            return block
        header = _SHOWING.match(text)
        if header is not None:
            block["content"] = numbered(text[header.end():], int(header.group(1)))
        elif text and not text.startswith("[") and not _looks_like_error(text):
            offset = args.get("offset")
            block["content"] = numbered(text, (offset if isinstance(offset, int) else 0) + 1)
        return block
    if name in ("edit", "write_file"):
        path = str(args.get("file_path"))
        before = clock.before.get(str(ident), {}).get(path)
        after = clock.after.get(str(ident), {}).get(path)
        if before == after and name == "edit":
            block["is_error"] = True  # the file did not change: the edit was refused
    return block


def _looks_like_error(text: str) -> bool:
    return text.startswith(("Error", "File not found", "Could not read file", "Cannot read file"))


def _user_text(text: str) -> str:
    """A compression's re-embedded files as Claude's re-attached files (reminders)."""
    pieces = [text]
    for found in _EMBED.finditer(text):
        call = json.dumps({"file_path": found.group("path")})
        pieces.append(f"{REMINDER_OPEN}Called the Read tool with the following input: {call}{REMINDER_CLOSE}")
        pieces.append(f"{REMINDER_OPEN}{ATTACHED_RESULT}{numbered(found.group('body'), 1)}{REMINDER_CLOSE}")
    return "\n\n".join(pieces)


def judge(messages: Sequence[Mapping[str, Any]], clock: FileClock) -> Verdict:
    """`claude_view.judge_request` on Qwen's request: every symbolpack answer given in it,
    judged against what this context holds and the files' true texts."""
    return judge_request(to_claude(messages, clock), clock)
