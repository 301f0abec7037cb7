"""What `tldrs install qwen` writes into Qwen Code's settings, and how it takes it out.

Qwen Code reads hooks from `hooks` in `.qwen/settings.json` (the project's) and
`~/.qwen/settings.json` (the user's), Claude-style: `{"<Event>": [{"matcher":
"<tool regex>", "hooks": [{"type": "command", "command": ..., "timeout": seconds}]}]}`.
The file is JSON with comments (Qwen, a Gemini CLI fork, strips them), so it is edited
as text (`jsonc_edit`): a missing `hooks` object or event list is inserted as a
member; an event list of the user's gets symbolpack's groups appended before its
closing bracket. Uninstall (when the file changed since install, so the backup cannot
simply be put back) cuts exactly the text install added, and renders the list again
only where that text is no longer there as written. Each edit is checked by parsing
the result and comparing it with the intended data before anything is written.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from ...base.errors import SymbolpackError
from ..installers import jsonc_edit

HOOK_TIMEOUT_SECONDS = 30
QWEN_HOOKS = (  # (event, matcher, hook name)
    ("PreToolUse", "read_file", "qwen-pre-read"),
    ("PostToolUse", "read_file", "qwen-post-read"),
    ("PostToolUse", "edit|write_file", "qwen-post-edit"),
)
_OUR_HOOK = re.compile(r"\bqwen-hook\s+(qwen-[a-z-]+)\s*$|symbolpack\.integrations\.qwen\s+(qwen-)?[a-z-]+\s*$")


def is_ours(command: Any) -> bool:
    return isinstance(command, str) and bool(_OUR_HOOK.search(command)) and (
        "tldrs" in command or "symbolpack" in command)


def hook_command(tldrs: str, name: str) -> str:
    """The command Qwen runs for hook *name*: `PYTHON -m symbolpack.integrations.qwen NAME`
    with the interpreter of the *tldrs* command (a console script's shebang, or the
    `-m symbolpack.cli` form's), which skips the CLI's argument parser (~80 ms a tool call
    through `tldrs qwen-hook`, measured); `TLDRS qwen-hook NAME` when it cannot tell."""
    python = _interpreter(tldrs)
    if python is not None:
        return f"{python} -m symbolpack.integrations.qwen {name}"
    return f"{tldrs} qwen-hook {name}"


def _interpreter(tldrs: str) -> str | None:
    import os
    import shlex
    import shutil

    try:
        words = shlex.split(tldrs)
    except ValueError:
        return None
    if len(words) == 3 and words[1:] == ["-m", "symbolpack.cli"]:
        return shlex.quote(words[0])
    if len(words) != 1:
        return None
    script = shutil.which(words[0]) if os.sep not in words[0] else words[0]
    try:
        with open(script or "", "rb") as fh:
            first = fh.readline(512).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    shebang = first[2:].strip().split()
    if len(shebang) == 1 and os.path.basename(shebang[0]).startswith("python") and os.path.isabs(shebang[0]):
        return shlex.quote(shebang[0])
    return None


def groups_for(tldrs: str) -> dict[str, list[dict]]:
    """symbolpack's groups by event, in QWEN_HOOKS order."""
    out: dict[str, list[dict]] = {}
    for event, matcher, name in QWEN_HOOKS:
        out.setdefault(event, []).append({"matcher": matcher, "hooks": [
            {"type": "command", "command": hook_command(tldrs, name), "timeout": HOOK_TIMEOUT_SECONDS}]})
    return out


class Edit:
    __slots__ = ("text", "created", "kept")

    def __init__(self, text: str, created: tuple[str, ...] = (), kept: tuple[str, ...] = ()) -> None:
        self.text = text
        self.created = created
        self.kept = kept


class QwenSettings:
    """Qwen Code's settings.json: symbolpack's hook groups, edited as text."""

    agent = "qwen"

    def __init__(self, path: Path):
        self.path = path

    def _root(self, text: str) -> jsonc_edit.Node:
        return jsonc_edit.settings_object(self.path, text)

    def parse(self, text: str) -> dict:
        return self._root(text).value

    def _hooks(self, root: jsonc_edit.Node) -> jsonc_edit.Node | None:
        hooks = jsonc_edit.find(root, ("hooks",))
        if hooks is not None and not hooks.is_object:
            raise SymbolpackError(f"{self.path}: \"hooks\" is not an object; fix it by hand")
        return hooks

    def _check(self, data: dict) -> None:
        """The shapes symbolpack edits, or one error naming what is not."""
        hooks = data.get("hooks")
        if hooks is None:
            return
        if not isinstance(hooks, dict):
            raise SymbolpackError(f"{self.path}: \"hooks\" is not an object; fix it by hand")
        for event, groups in hooks.items():
            if event in {e for e, _, _ in QWEN_HOOKS} and not isinstance(groups, list):
                raise SymbolpackError(f"{self.path}: hooks.{event} is not a list; fix it by hand")

    def add(self, text: str, tldrs: str) -> Edit:
        start = new = text if text.strip() else "{}\n"
        current = self.parse(new)
        self._check(current)
        stripped = self._strip(current)
        wanted = groups_for(tldrs)
        if self._with(stripped, wanted) == current:
            return Edit(text)  # installed as it would be: nothing to do
        if stripped != current:  # an older install of ours: take it out first
            new = self.remove(new).text
            start = new
        expected = self._with(self.parse(new), wanted)
        created: list[str] = []
        root = self._root(new)
        hooks = self._hooks(root)
        if hooks is None:
            new = jsonc_edit.insert_member(new, root, "hooks", wanted)
            created.append("hooks")
        else:
            for event, groups in wanted.items():
                hooks = self._hooks(self._root(new))
                assert hooks is not None
                member = hooks.member(event)
                if member is None:
                    new = jsonc_edit.insert_member(new, hooks, event, groups)
                    created.append(f"hooks.{event}")
                elif not isinstance(member.value.value, list):
                    raise SymbolpackError(f"{self.path}: hooks.{event} is not a list; fix it by hand")
                else:
                    new = _append(new, member.value, groups)
        if new == start:
            return Edit(text)
        if self.parse(new) != expected:
            raise _unsafe(self.path)
        return Edit(new, tuple(created))

    def remove(self, text: str, created: tuple[str, ...] = ()) -> Edit:
        root = self._root(text)
        self._check(root.value)
        hooks = self._hooks(root)
        if hooks is None:
            return Edit(text)
        expected = self._strip(root.value, created)
        new = text
        for event in list(hooks.value):
            hooks = self._hooks(self._root(new))
            assert hooks is not None
            member = hooks.member(event)
            if member is None or not isinstance(member.value.value, list):
                continue
            items = member.value.value
            kept = [g for g in items if not _group_is_ours(g)]
            if len(kept) == len(items):
                continue
            if not kept and (f"hooks.{event}" in created or "hooks" in created):
                new = jsonc_edit.delete_member(new, hooks, event)
            else:
                new = _cut(new, member.value, [g for g in items if _group_is_ours(g)], kept)
        hooks = self._hooks(self._root(new))
        if hooks is not None and not hooks.value and "hooks" in created:
            new = jsonc_edit.delete_member(new, self._root(new), "hooks")
        if self.parse(new) != expected:
            raise _unsafe(self.path)
        return Edit(new)

    def installed(self, text: str) -> list[str]:
        out = []
        hooks = self.parse(text).get("hooks")
        if isinstance(hooks, dict):
            for event, groups in hooks.items():
                for group in groups if isinstance(groups, list) else ():
                    for h in group.get("hooks", ()) if isinstance(group, dict) else ():
                        if isinstance(h, dict) and is_ours(h.get("command")):
                            out.append(f"{event}[{group.get('matcher', '')}]: {h['command']}")
        return out

    def server(self, text: str) -> dict | None:
        return None

    # -- data views
    @staticmethod
    def _with(data: dict, wanted: dict[str, list[dict]]) -> dict:
        out = copy.deepcopy(data)
        hooks = out.setdefault("hooks", {})
        for event, groups in wanted.items():
            hooks.setdefault(event, []).extend(copy.deepcopy(groups))
        return out

    @staticmethod
    def _strip(data: dict, created: tuple[str, ...] = ()) -> dict:
        hooks = data.get("hooks")
        if not isinstance(hooks, dict):
            return data
        out = copy.deepcopy(data)
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue
            kept = [g for g in groups if not _group_is_ours(g)]
            if len(kept) == len(groups):
                continue
            if not kept and (f"hooks.{event}" in created or "hooks" in created):
                del out["hooks"][event]
            else:
                out["hooks"][event] = kept
        if not out["hooks"] and "hooks" in created:
            del out["hooks"]
        return out


def _group_is_ours(group: Any) -> bool:
    entries = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(entries, list) and bool(entries) and all(
        isinstance(h, dict) and is_ours(h.get("command")) for h in entries)


def _render(groups: list[dict]) -> str:
    return ", ".join(jsonc_edit.render(g, "", "  ", "\n", False) for g in groups)


def _append(text: str, array: jsonc_edit.Node, groups: list[dict]) -> str:
    """*text* with *groups* added at the end of the list *array*, on the line of its last item."""
    close = array.end - 1
    if not _mask_comments(text[array.start + 1:close]).strip():
        return text[:array.start + 1] + _render(groups) + text[array.start + 1:]
    pos = _last_item_end(text, array)
    return text[:pos] + ", " + _render(groups) + text[pos:]


def _last_item_end(text: str, array: jsonc_edit.Node) -> int:
    """Where the list's last item ends (comments and whitespace before `]` skipped)."""
    masked = _mask_comments(text[array.start + 1:array.end - 1])
    return array.start + 1 + len(masked.rstrip())


def _mask_comments(s: str) -> str:
    """*s* with its comments turned into spaces (same length); strings are left alone."""
    out = []
    i = 0
    while i < len(s):
        if s[i] == '"':
            j = i + 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            out.append(s[i:j + 1])
            i = j + 1
        elif s.startswith("//", i):
            j = s.find("\n", i)
            j = len(s) if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif s.startswith("/*", i):
            j = s.find("*/", i + 2)
            j = len(s) if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", s[i:j]))
            i = j
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def _cut(text: str, array: jsonc_edit.Node, ours: list[dict], kept: list[dict]) -> str:
    """*text* without symbolpack's groups in *array*: the text `_append` added where it
    is still there as written, else the list rendered again without them."""
    span = text[array.start:array.end]
    added = _render(ours)
    if kept and (", " + added) in span:
        at = array.start + span.index(", " + added)
        return text[:at] + text[at + 2 + len(added):]
    if not kept and "[" + added + "]" == span:
        return text[:array.start] + "[]" + text[array.end:]
    return jsonc_edit.replace_value(text, array, kept)


def _unsafe(path: Path) -> SymbolpackError:
    return SymbolpackError(f"{path}: could not edit it safely; nothing was written")
