"""`tldrs install|uninstall AGENT [--global]` and `tldrs doctor`.

What is written where:

| agent  | project (default)             | `--global`                | what                          |
|--------|-------------------------------|---------------------------|-------------------------------|
| claude | `.claude/settings.json`       | `~/.claude/settings.json` | the four hooks (`tldrs hook`) |
| codex  | `.codex/config.toml`          | `~/.codex/config.toml`    | `[mcp_servers.symbolpack]`    |
| gemini | `.gemini/settings.json`       | `~/.gemini/settings.json` | `mcpServers.symbolpack`       |

Chibi is not a settings file but a plugins directory: `chibi_install.py` (its
part of `tldrs doctor` is added to the report here).

Rules: edits merge with what is there (other hooks, servers and keys are kept,
ours are recognised by their command and replaced, never duplicated); a second
install changes nothing; before any change the file's bytes are saved as
`<file>.symbolpack.bak`; every change is printed as a unified diff.

Round trip: uninstall asks "is the current file exactly the backup plus our
install?" and, when it is, writes the backup's bytes back and deletes the
backup (or deletes the file when install created it), so install + uninstall
leaves the file byte-identical. When the file was edited in between, only our
entries are removed. TOML is edited as text (one table, appended or replaced),
and the result is checked with `tomllib` before anything is written.

`$SYMBOLPACK_TLDRS` overrides the command prefix written into settings (default:
`tldrs` when it is on PATH, else the absolute path of this installation's script).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

from ..base.errors import SymbolpackError, UsageError
from ..base.workspace import atomic_write, project_root

SERVER_NAME = "symbolpack"
BACKUP_SUFFIX = ".symbolpack.bak"
HOOK_TIMEOUT_SECONDS = 30
CLAUDE_HOOKS = (  # (event, matcher, hook name)
    ("PreToolUse", "Read", "claude-pre-read"),
    ("PreToolUse", "Edit|MultiEdit|Write", "claude-pre-edit"),
    ("PostToolUse", "Edit|Write|MultiEdit|NotebookEdit", "claude-post-edit"),
    ("PostToolUse", "Read", "claude-post-read"),
    ("SessionStart", "compact|clear|resume", "claude-session-start"),
)
_OUR_HOOK = re.compile(r"\bhook\s+(claude-[a-z-]+)\s*$|symbolpack\.integrations\.claude\s+(claude-)?[a-z-]+\s*$")


def tldrs_command() -> str:
    """The command prefix to write into settings."""
    from ..base.settings import load_settings

    override = load_settings().tldrs
    if override:
        return override
    script = Path(sys.executable).parent / ("tldrs.exe" if os.name == "nt" else "tldrs")
    on_path = shutil.which("tldrs")
    if script.exists():
        try:
            if on_path and os.path.samefile(on_path, script):
                return "tldrs"
        except OSError:
            pass
        return shlex.quote(str(script))
    if on_path:
        return "tldrs"
    return f"{shlex.quote(sys.executable)} -m symbolpack.cli"


def _is_ours(command) -> bool:
    return isinstance(command, str) and bool(_OUR_HOOK.search(command)) and (
        "tldrs" in command or "symbolpack" in command)


# --------------------------------------------------------------------------- formats

def _load_json(text: str, path: Path) -> dict:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SymbolpackError(f"{path} is not valid JSON ({exc}); fix it by hand, then run this again") from None
    if not isinstance(data, dict):
        raise SymbolpackError(f"{path} is not a JSON object; fix it by hand, then run this again")
    return data


def _dump_json(data: dict, like: str) -> str:
    indent: int | str = 2
    m = re.search(r"^([ \t]+)\S", like, re.M)
    if m:
        indent = m.group(1) if "\t" in m.group(1) else len(m.group(1))
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return text + "\n" if (not like or like.endswith("\n")) else text


class _JsonAgent:
    """Settings kept as a JSON object; subclasses add and strip their entries on data."""

    def __init__(self, path: Path):
        self.path = path

    def parse(self, text: str):
        return _load_json(text, self.path)

    def add(self, text: str, tldrs: str) -> str:
        data = self.parse(text)
        new = self._add(self._strip(data), tldrs)
        return text if new == data else _dump_json(new, text)

    def remove(self, text: str) -> str:
        data = self.parse(text)
        new = self._strip(data)
        return text if new == data else _dump_json(new, text)

    def installed(self, text: str) -> list[str]:
        raise NotImplementedError

    def _add(self, data: dict, tldrs: str) -> dict:
        raise NotImplementedError

    def _strip(self, data: dict) -> dict:
        raise NotImplementedError


class ClaudeSettings(_JsonAgent):
    agent = "claude"

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
                {"type": "command", "command": f"{tldrs} hook {name}", "timeout": HOOK_TIMEOUT_SECONDS}]})
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


class GeminiSettings(_JsonAgent):
    agent = "gemini"

    def _add(self, data: dict, tldrs: str) -> dict:
        data = copy.deepcopy(data)
        servers = data.setdefault("mcpServers", {})
        if not isinstance(servers, dict):
            raise SymbolpackError(f"{self.path}: \"mcpServers\" is not an object; fix it by hand")
        command, args = _server_command(tldrs)
        servers[SERVER_NAME] = {"command": command, "args": args}
        return data

    def _strip(self, data: dict) -> dict:
        servers = data.get("mcpServers")
        if not isinstance(servers, dict) or SERVER_NAME not in servers:
            return data
        data = copy.deepcopy(data)
        del data["mcpServers"][SERVER_NAME]
        if not data["mcpServers"]:
            del data["mcpServers"]
        return data

    def installed(self, text: str) -> list[str]:
        server = self.parse(text).get("mcpServers", {})
        server = server.get(SERVER_NAME) if isinstance(server, dict) else None
        return [f"mcpServers.{SERVER_NAME}: {_describe_server(server)}"] if server is not None else []


def _server_command(tldrs: str) -> tuple[str, list[str]]:
    parts = shlex.split(tldrs)
    return parts[0], [*parts[1:], "mcp"]


def _describe_server(server) -> str:
    if isinstance(server, dict):
        return " ".join([str(server.get("command", "?")), *map(str, server.get("args", []) or [])])
    return repr(server)


# TOML: one table, edited as text
_NAME = r"[ \t]*(?:\"symbolpack\"|'symbolpack'|symbolpack)[ \t]*"
_TABLE = re.compile(rf"^[ \t]*\[[ \t]*mcp_servers[ \t]*\.{_NAME}\][ \t]*(?:#[^\n]*)?$", re.M)
_SUBTABLE = re.compile(rf"[ \t]*\[[ \t]*mcp_servers[ \t]*\.{_NAME}\.")
_ANY_TABLE = re.compile(r"^[ \t]*\[", re.M)


def _toml_loads(text: str):
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            return None
    return tomllib.loads(text)


def _toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


class CodexConfig:
    agent = "codex"

    def __init__(self, path: Path):
        self.path = path

    def parse(self, text: str):
        try:
            data = _toml_loads(text)
        except ValueError as exc:
            raise SymbolpackError(f"{self.path} is not valid TOML ({exc}); fix it by hand, then run this again") from None
        return data if data is not None else text  # no TOML parser: compare text

    def _ours(self, data) -> dict | None:
        if isinstance(data, str):
            return {} if _TABLE.search(data) else None
        servers = data.get("mcp_servers")
        return servers.get(SERVER_NAME) if isinstance(servers, dict) else None

    def _span(self, text: str, subtables: bool = True) -> tuple[int, int] | None:
        """Where our table starts and ends (with its `[mcp_servers.symbolpack.*]` subtables,
        or without them: replacing the table keeps e.g. the user's `env`)."""
        m = _TABLE.search(text)
        if not m:
            return None
        end = len(text)
        for h in _ANY_TABLE.finditer(text, m.end()):
            if not (subtables and _SUBTABLE.match(text, h.start())):
                end = h.start()
                break
        return m.start(), end

    def block(self, tldrs: str) -> str:
        command, args = _server_command(tldrs)
        return (f"[mcp_servers.{SERVER_NAME}]\ncommand = {_toml_str(command)}\n"
                f"args = [{', '.join(_toml_str(a) for a in args)}]\n")

    def add(self, text: str, tldrs: str) -> str:
        data = self.parse(text)
        command, args = _server_command(tldrs)
        current = self._ours(data)
        if isinstance(current, dict) and {k: current.get(k) for k in ("command", "args")} == \
                {"command": command, "args": args}:
            return text
        span = self._span(text, subtables=False)
        if current is not None and span is None:
            raise SymbolpackError(f"{self.path}: mcp_servers.{SERVER_NAME} is written in a form symbolpack does "
                                  f"not edit (inline table or dotted keys); change it by hand")
        block = self.block(tldrs)
        if span:
            old = text[span[0]:span[1]]
            trailing = old[len(old.rstrip()):]
            new = text[:span[0]] + block + (trailing[1:] if trailing.startswith("\n") else trailing) + text[span[1]:]
        elif not text:
            new = block
        else:
            new = text + ("" if text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n") + block
        self._check(new, expect=True)
        return new

    def remove(self, text: str) -> str:
        span = self._span(text)
        if span is None:
            if self._ours(self.parse(text)) is not None:
                raise SymbolpackError(f"{self.path}: mcp_servers.{SERVER_NAME} is written in a form symbolpack "
                                      f"does not edit; remove it by hand")
            return text
        before, after = text[:span[0]], text[span[1]:]
        if not after and before.endswith("\n\n"):
            before = before[:-1]  # the blank line install put before the table
        new = before + after
        new = "" if not new.strip() else new
        self._check(new, expect=False)
        return new

    def _check(self, text: str, expect: bool) -> None:
        data = self.parse(text)
        if isinstance(data, str):
            return
        if (self._ours(data) is not None) != expect:
            raise SymbolpackError(f"could not edit {self.path} safely; nothing was written")

    def installed(self, text: str) -> list[str]:
        server = self._ours(self.parse(text))
        return [] if server is None else [f"[mcp_servers.{SERVER_NAME}]: {_describe_server(server)}"]


# --------------------------------------------------------------------------- locations

def settings_path(agent: str, global_: bool, root: Path | None = None) -> Path:
    base = Path.home() if global_ else (root or project_root())
    if agent == "claude":
        return base / ".claude" / "settings.json"
    if agent == "codex":
        if global_ and os.environ.get("CODEX_HOME"):
            return Path(os.environ["CODEX_HOME"]) / "config.toml"
        return base / ".codex" / "config.toml"
    if agent == "gemini":
        return base / ".gemini" / "settings.json"
    raise UsageError(f"unknown agent {agent!r}: use claude, codex or gemini")


def adapter_for(agent: str, path: Path):
    return {"claude": ClaudeSettings, "codex": CodexConfig, "gemini": GeminiSettings}[agent](path)


# --------------------------------------------------------------------------- file edits

def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise SymbolpackError(f"{path} is not UTF-8 text; fix it by hand") from None


def _write_atomic(path: Path, data: bytes, like: Path | None = None) -> None:
    """Atomically, keeping the permissions of the file it replaces (or of *like*)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = (like or path).stat().st_mode & 0o777
    except OSError:
        mode = 0o644
    atomic_write(path, data, mode)


def _diff(path: Path, old: str | None, new: str | None) -> str:
    lines = difflib.unified_diff((old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
                                 fromfile=str(path) if old is not None else "/dev/null",
                                 tofile=str(path) if new is not None else "/dev/null")
    out = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return out


def _say(out, text: str) -> None:
    out.write(text if text.endswith("\n") else text + "\n")


def install(agent: str, global_: bool = False, dry_run: bool = False, root: Path | None = None,
            tldrs: str | None = None, out=None) -> int:
    out = out or sys.stdout
    path = settings_path(agent, global_, root)
    adapter = adapter_for(agent, path)
    old = _read_text(path)
    new = adapter.add(old or "", tldrs or tldrs_command())
    if old is not None and new == old:
        _say(out, f"symbolpack is already installed for {agent} in {path}; nothing changed.")
        return 0
    _say(out, _diff(path, old, new))
    if dry_run:
        _say(out, "(dry run: nothing was written)")
        return 0
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    if old is not None and not (backup.exists() and adapter.installed(old)):
        _write_atomic(backup, old.encode("utf-8"), like=path)  # the file as it was before symbolpack
        _say(out, f"backup: {backup}")
    _write_atomic(path, new.encode("utf-8"))
    _say(out, f"{'updated' if old is not None else 'created'} {path}")
    _say(out, _next_step(agent))
    return 0


def uninstall(agent: str, global_: bool = False, dry_run: bool = False, root: Path | None = None,
              tldrs: str | None = None, out=None) -> int:
    out = out or sys.stdout
    path = settings_path(agent, global_, root)
    adapter = adapter_for(agent, path)
    old = _read_text(path)
    if old is None or not adapter.installed(old):
        _say(out, f"symbolpack is not installed for {agent} in {path}; nothing changed.")
        return 0
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    before = _read_text(backup)
    restore = False
    try:
        restore = adapter.parse(adapter.add(before or "", tldrs or tldrs_command())) == adapter.parse(old)
    except SymbolpackError:
        pass
    if restore:  # nothing but our install changed the file: put the original bytes back
        new = before
    else:
        new = adapter.remove(old)
    _say(out, _diff(path, old, new))
    if dry_run:
        _say(out, "(dry run: nothing was written)")
        return 0
    if restore and before is None:
        path.unlink()
        _say(out, f"removed {path} (symbolpack had created it)")
    elif restore:
        _write_atomic(path, backup.read_bytes(), like=path)
        backup.unlink()
        _say(out, f"restored {path} from {backup.name} (byte for byte) and removed the backup")
    else:
        assert new is not None  # only a restore can leave no text
        _write_atomic(backup, old.encode("utf-8"), like=path)
        _write_atomic(path, new.encode("utf-8"), like=path)
        _say(out, f"removed symbolpack's entries from {path} (it was edited since install; "
                  f"the previous content is in {backup.name})")
    return 0


def _next_step(agent: str) -> str:
    if agent == "claude":
        return "Claude Code picks the hooks up in new sessions; check with: tldrs doctor"
    if agent == "codex":
        return "Codex starts the server in new sessions (needs: pip install 'symbolpack[mcp]'); check with: tldrs doctor"
    return "Gemini CLI starts the server in new sessions (needs: pip install 'symbolpack[mcp]'); check with: /mcp"
