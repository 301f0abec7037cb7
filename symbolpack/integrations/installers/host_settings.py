"""What symbolpack writes into each host's settings file, and how it takes it out again.

| agent  | file                     | symbolpack's entry                        | format                  |
|--------|--------------------------|-------------------------------------------|-------------------------|
| claude | `.claude/settings.json`  | five hooks running `claude/client.py …` (or `tldrs hook …`) | JSON, re-dumped |
| codex  | `.codex/config.toml`     | `command`, `args` in `[mcp_servers.symbolpack]` | TOML, edited as text |
| gemini | `.gemini/settings.json`  | `command`, `args` in `mcpServers.symbolpack` | JSON with comments, edited as text |
| qwen   | `.qwen/settings.json`    | three hooks running `tldrs qwen-hook …` (`qwen/settings.py`) | JSON with comments, edited as text |

One adapter per host, all with the same four operations on text: `add` and
`remove` (pure: text in, text out), `installed` (what of ours is there) and
`server` (the command a host would start, for `tldrs doctor`). `install.py`
does the file I/O around them.

What is ours: the hooks whose command runs `tldrs hook` or symbolpack's hook client
(`<python> -S .../symbolpack/integrations/claude/client.py`: the command install
writes unless a prefix was given, see `install.claude_hook_prefix`), and in an MCP server
entry only the keys symbolpack writes (`OUR_KEYS`). A key the user added to
the entry (Codex `startup_timeout_sec`, Gemini `trust`, an `env` table) stays
on uninstall, and with it the entry. The entry's container (`mcpServers`) goes
only when it is empty and install created it (the caller passes what install
recorded). Codex and Gemini files are edited as text (`toml_edit`,
`jsonc_edit`), so comments and layout survive and an install followed by an
uninstall gives the same bytes; each edit is checked by parsing the result and
comparing it with the intended data before anything is written.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...base.errors import SymbolpackError
from . import jsonc_edit, toml_edit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..qwen.settings import QwenSettings

SERVER_NAME = "symbolpack"
OUR_KEYS = ("command", "args")  # what symbolpack writes in an MCP server entry
HOOK_TIMEOUT_SECONDS = 30
CLAUDE_HOOKS = (  # (event, matcher, hook name)
    ("PreToolUse", "Read", "claude-pre-read"),
    ("PreToolUse", "Edit|MultiEdit|Write", "claude-pre-edit"),
    ("PostToolUse", "Edit|Write|MultiEdit|NotebookEdit", "claude-post-edit"),
    ("PostToolUse", "Read", "claude-post-read"),
    ("SessionStart", "compact|clear|resume", "claude-session-start"),
)
_OUR_HOOK = re.compile(r"\bhook\s+(claude-[a-z-]+)\s*$|symbolpack\.integrations\.claude\s+(claude-)?[a-z-]+\s*$"
                       r"|symbolpack[/\\]integrations[/\\]claude[/\\]client\.py'?\s+(claude-[a-z-]+)\s*$")


@dataclass(frozen=True)
class Edit:
    text: str
    created: tuple[str, ...] = ()  # containers install made (to remove when empty on uninstall)
    kept: tuple[str, ...] = ()  # keys of the user's an uninstall left in symbolpack's entry


def server_command(tldrs: str) -> tuple[str, list[str]]:
    parts = shlex.split(tldrs)
    return parts[0], [*parts[1:], "mcp"]


def describe_server(server: Any) -> str:
    if isinstance(server, dict):
        return " ".join([str(server.get("command", "?")), *map(str, server.get("args", []) or [])])
    return repr(server)


def _is_ours(command: Any) -> bool:
    return isinstance(command, str) and bool(_OUR_HOOK.search(command)) and (
        "tldrs" in command or "symbolpack" in command)


def _unsafe(path: Path) -> SymbolpackError:
    return SymbolpackError(f"{path}: could not edit it safely; nothing was written")


# --------------------------------------------------------------------------- Claude Code

def _load_json(text: str, path: Path) -> dict:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SymbolpackError(f"{path}: not valid JSON ({exc}); fix it by hand, then run this again") from None
    if not isinstance(data, dict):
        raise SymbolpackError(f"{path}: not a JSON object; fix it by hand, then run this again")
    return data


def _dump_json(data: dict, like: str) -> str:
    indent: int | str = 2
    m = re.search(r"^([ \t]+)\S", like, re.M)
    if m:
        indent = m.group(1) if "\t" in m.group(1) else len(m.group(1))
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return text + "\n" if (not like or like.endswith("\n")) else text


class ClaudeSettings:
    """Claude Code's settings are strict JSON; our hooks are merged into the data and the file re-dumped
    in its own indentation (Claude Code rewrites the file the same way)."""

    agent = "claude"

    def __init__(self, path: Path, hooks: str | None = None):
        self.path = path
        self.hooks = hooks  # the hook command before its name, instead of `<tldrs> hook` (`install.claude_hook_prefix`)

    def parse(self, text: str) -> dict:
        return _load_json(text, self.path)

    def add(self, text: str, tldrs: str) -> Edit:
        data = self.parse(text)
        new = self._add(self._strip(data), tldrs)
        return Edit(text if new == data else _dump_json(new, text))

    def remove(self, text: str, created: tuple[str, ...] = ()) -> Edit:
        data = self.parse(text)
        new = self._strip(data)
        return Edit(text if new == data else _dump_json(new, text))

    def server(self, text: str) -> dict | None:
        return None

    def _add(self, data: dict, tldrs: str) -> dict:
        data = copy.deepcopy(data)
        hooks = data.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise SymbolpackError(f"{self.path}: \"hooks\" is not an object; fix it by hand")
        for event, matcher, name in CLAUDE_HOOKS:
            groups = hooks.setdefault(event, [])
            if not isinstance(groups, list):
                raise SymbolpackError(f"{self.path}: hooks.{event} is not a list; fix it by hand")
            groups.append({"matcher": matcher, "hooks": [
                {"type": "command", "command": f"{self.hooks} {name}" if self.hooks else f"{tldrs} hook {name}",
                 "timeout": HOOK_TIMEOUT_SECONDS}]})
        return data

    def _strip(self, data: dict) -> dict:
        """*data* without our hook entries; containers left empty by that removal go too."""
        hooks = data.get("hooks")
        if not isinstance(hooks, dict):
            return data
        data = copy.deepcopy(data)
        hooks = data["hooks"]
        removed = False
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue
            kept = []
            for group in groups:
                entries = group.get("hooks") if isinstance(group, dict) else None
                mine = [h for h in entries if isinstance(h, dict) and _is_ours(h.get("command"))] \
                    if isinstance(entries, list) else []
                if not mine:
                    kept.append(group)
                    continue
                removed = True
                if isinstance(entries, list) and len(mine) < len(entries):
                    kept.append({**group, "hooks": [h for h in entries if h not in mine]})
            if kept or len(kept) == len(groups):
                hooks[event] = kept
            else:
                del hooks[event]
        if removed and not hooks:
            del data["hooks"]
        return data

    def installed(self, text: str) -> list[str]:
        data = self.parse(text)
        out = []
        hooks = data.get("hooks")
        if isinstance(hooks, dict):
            for event, groups in hooks.items():
                for group in groups if isinstance(groups, list) else ():
                    for h in group.get("hooks", ()) if isinstance(group, dict) else ():
                        if isinstance(h, dict) and _is_ours(h.get("command")):
                            out.append(f"{event}[{group.get('matcher', '')}]: {h['command']}")
        return out


# --------------------------------------------------------------------------- Gemini CLI

class GeminiSettings:
    """Gemini CLI's settings: JSON with comments (see `jsonc_edit`), edited as text."""

    agent = "gemini"
    CONTAINER = "mcpServers"

    def __init__(self, path: Path):
        self.path = path

    def _root(self, text: str) -> jsonc_edit.Node:
        return jsonc_edit.settings_object(self.path, text)

    def parse(self, text: str) -> dict:
        return self._root(text).value

    def _entry(self, data: dict) -> Any:
        servers = data.get(self.CONTAINER)
        return servers.get(SERVER_NAME) if isinstance(servers, dict) else None

    def add(self, text: str, tldrs: str) -> Edit:
        command, args = server_command(tldrs)
        ours = {"command": command, "args": args}
        start = new = text if text.strip() else "{}\n"  # an empty file: an empty object to add to
        root = self._root(new)
        expected = copy.deepcopy(root.value)
        created: tuple[str, ...] = ()
        servers = jsonc_edit.find(root, (self.CONTAINER,))
        if servers is None:
            new = jsonc_edit.insert_member(new, root, self.CONTAINER, {SERVER_NAME: ours})
            expected[self.CONTAINER] = {SERVER_NAME: ours}
            created = (self.CONTAINER,)
        elif not servers.is_object:
            raise SymbolpackError(f"{self.path}: \"{self.CONTAINER}\" is not an object; fix it by hand")
        else:
            entry = jsonc_edit.find(servers, (SERVER_NAME,))
            if entry is None:
                new = jsonc_edit.insert_member(new, servers, SERVER_NAME, ours)
                expected[self.CONTAINER][SERVER_NAME] = ours
            elif not entry.is_object:
                raise SymbolpackError(f"{self.path}: {self.CONTAINER}.{SERVER_NAME} is not an object; fix it by hand")
            else:
                for key, value in ours.items():
                    entry = jsonc_edit.find(self._root(new), (self.CONTAINER, SERVER_NAME))
                    assert entry is not None
                    member = entry.member(key)
                    if member is None:
                        new = jsonc_edit.insert_member(new, entry, key, value)
                    elif member.value.value != value:
                        new = jsonc_edit.replace_value(new, member.value, value)
                    expected[self.CONTAINER][SERVER_NAME][key] = value
        if new == start:
            return Edit(text)
        if self.parse(new) != expected:
            raise _unsafe(self.path)
        return Edit(new, created)

    def remove(self, text: str, created: tuple[str, ...] = ()) -> Edit:
        root = self._root(text)
        entry = jsonc_edit.find(root, (self.CONTAINER, SERVER_NAME))
        if entry is None:
            return Edit(text)
        if not entry.is_object:
            raise SymbolpackError(f"{self.path}: {self.CONTAINER}.{SERVER_NAME} is not an object; remove it by hand")
        expected = copy.deepcopy(root.value)
        new = text
        for key in OUR_KEYS:
            entry = jsonc_edit.find(self._root(new), (self.CONTAINER, SERVER_NAME))
            assert entry is not None
            if entry.member(key) is not None:
                new = jsonc_edit.delete_member(new, entry, key)
                del expected[self.CONTAINER][SERVER_NAME][key]
        kept = tuple(expected[self.CONTAINER][SERVER_NAME])
        if not kept:
            servers = jsonc_edit.find(self._root(new), (self.CONTAINER,))
            assert servers is not None
            new = jsonc_edit.delete_member(new, servers, SERVER_NAME)
            del expected[self.CONTAINER][SERVER_NAME]
            if not expected[self.CONTAINER] and self.CONTAINER in created:
                root = self._root(new)
                new = jsonc_edit.delete_member(new, root, self.CONTAINER)
                del expected[self.CONTAINER]
        if self.parse(new) != expected:
            raise _unsafe(self.path)
        return Edit(new, kept=kept)

    def installed(self, text: str) -> list[str]:
        entry = self._entry(self.parse(text))
        if not isinstance(entry, dict) or "command" not in entry:
            return []
        return [f"{self.CONTAINER}.{SERVER_NAME}: {describe_server(entry)}"]

    def server(self, text: str) -> dict | None:
        entry = self._entry(self.parse(text))
        return entry if isinstance(entry, dict) and "command" in entry else None


# --------------------------------------------------------------------------- Codex CLI

def _toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _toml_value(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return _toml_str(value)


class CodexConfig:
    """Codex's `config.toml`, edited as text (see `toml_edit`): our keys in `[mcp_servers.symbolpack]`."""

    agent = "codex"
    TABLE = ("mcp_servers", SERVER_NAME)

    def __init__(self, path: Path):
        self.path = path

    def parse(self, text: str) -> Any:
        try:
            return toml_edit.loads(text)
        except ValueError as exc:
            raise SymbolpackError(f"{self.path}: not valid TOML ({exc}); fix it by hand, then run this again") \
                from None

    def _entry(self, data: Any) -> Any:
        servers = data.get("mcp_servers") if isinstance(data, dict) else None
        return servers.get(SERVER_NAME) if isinstance(servers, dict) else None

    def _table(self, text: str) -> toml_edit.Table | None:
        try:
            return toml_edit.find_table(text, self.TABLE)
        except toml_edit.TomlScanError:
            raise _unsafe(self.path) from None

    def block(self, tldrs: str) -> str:
        command, args = server_command(tldrs)
        return (f"[mcp_servers.{SERVER_NAME}]\ncommand = {_toml_str(command)}\n"
                f"args = {_toml_value(args)}\n")

    def add(self, text: str, tldrs: str) -> Edit:
        data = self.parse(text)
        command, args = server_command(tldrs)
        ours = {"command": command, "args": args}
        current = self._entry(data)
        table = self._table(text)
        if current is not None and table is None:
            raise SymbolpackError(f"{self.path}: mcp_servers.{SERVER_NAME} is written in a form symbolpack does "
                                  f"not edit (inline table or dotted keys); change it by hand")
        if isinstance(current, dict) and all(current.get(k) == v for k, v in ours.items()):
            return Edit(text)
        expected = copy.deepcopy(data)
        if table is None:
            new = toml_edit.append_table(text, self.block(tldrs))
            expected.setdefault("mcp_servers", {})[SERVER_NAME] = ours
        else:
            new = text
            for key, value in ours.items():
                found = self._table(new)
                assert found is not None
                new = toml_edit.set_key(new, found, key, _toml_value(value))
                expected["mcp_servers"][SERVER_NAME][key] = value
        self._check(new, expected)
        return Edit(new)

    def remove(self, text: str, created: tuple[str, ...] = ()) -> Edit:
        data = self.parse(text)
        table = self._table(text)
        if table is None:
            if self._entry(data) is not None:
                raise SymbolpackError(f"{self.path}: mcp_servers.{SERVER_NAME} is written in a form symbolpack "
                                      f"does not edit; remove it by hand")
            return Edit(text)
        expected = copy.deepcopy(data)
        new = text
        for key in OUR_KEYS:
            found = self._table(new)
            assert found is not None
            new = toml_edit.delete_key(new, found, key)
            expected["mcp_servers"][SERVER_NAME].pop(key, None)
        kept = tuple(expected["mcp_servers"][SERVER_NAME])
        found = self._table(new)
        assert found is not None
        if not kept and not found.keys and not found.subtables:
            new = toml_edit.delete_table(new, found)
            del expected["mcp_servers"][SERVER_NAME]
            if not expected["mcp_servers"] and "mcp_servers" not in self.parse(new):
                del expected["mcp_servers"]  # it existed only as our table's parent
        self._check(new, expected)
        return Edit(new, kept=kept)

    def _check(self, text: str, expected: Any) -> None:
        try:
            data = self.parse(text)
        except SymbolpackError:
            raise _unsafe(self.path) from None
        if data != expected:
            raise _unsafe(self.path)

    def installed(self, text: str) -> list[str]:
        server = self.server(text)
        return [] if server is None else [f"[mcp_servers.{SERVER_NAME}]: {describe_server(server)}"]

    def leftover(self, text: str) -> tuple[str, ...]:
        """The keys of a `[mcp_servers.symbolpack]` without `command` (what uninstall keeps of the
        user's): Codex 0.171 refuses to load any config holding one ("invalid transport")."""
        entry = self._entry(self.parse(text))
        return tuple(entry) if isinstance(entry, dict) and "command" not in entry else ()

    def server(self, text: str) -> dict | None:
        entry = self._entry(self.parse(text))
        return entry if isinstance(entry, dict) and "command" in entry else None


Adapter = ClaudeSettings | CodexConfig | GeminiSettings


def adapter_for(agent: str, path: Path, claude_hooks: str | None = None) -> Adapter | QwenSettings:
    """The adapter of *agent*'s settings at *path*; *claude_hooks*: Claude Code's hook
    command before the hook's name, when it is not `<tldrs> hook`."""
    if agent == "claude":
        return ClaudeSettings(path, claude_hooks)
    if agent == "codex":
        return CodexConfig(path)
    if agent == "qwen":  # Qwen Code's hooks: `qwen/settings.py`
        from ..qwen.settings import QwenSettings

        return QwenSettings(path)
    return GeminiSettings(path)
