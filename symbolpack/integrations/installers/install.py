"""`tldrs install|uninstall AGENT [--global]`: put symbolpack into a host's settings and take it out.

| agent  | project (default)       | `--global`                                | what (see `host_settings`)       |
|--------|-------------------------|-------------------------------------------|----------------------------------|
| claude | `.claude/settings.json` | `~/.claude/settings.json`                 | the five hooks (`tldrs hook`)    |
| codex  | `.codex/config.toml`    | `$CODEX_HOME/config.toml` (`~/.codex/`)   | `[mcp_servers.symbolpack]`       |
| gemini | `.gemini/settings.json` | `~/.gemini/settings.json`                 | `mcpServers.symbolpack`          |
| qwen   | `.qwen/settings.json`   | `~/.qwen/settings.json`                   | three hooks (`tldrs qwen-hook`, `qwen/settings.py`) |

Chibi is not a settings file but a plugins directory: `chibi/install.py`.

Rules: edits merge with what is there (other hooks, servers, keys and, for
Codex and Gemini, comments and layout are kept); a second install changes
nothing; before any change the file's bytes are saved as
`<file>.symbolpack.bak`; every change is printed as a unified diff.

Round trip: uninstall asks "is the current file exactly the backup plus our
install?" and, when it is, writes the backup's bytes back and deletes the
backup (or deletes the file when install created it), so install + uninstall
leaves the file byte-identical. When the file was edited in between, only the
keys symbolpack wrote are removed; keys the user added to symbolpack's entry
stay, and so does the entry then.

What install created besides the file (folders such as `.codex/`, Gemini's
`mcpServers` object) is recorded in `installs.json` under the user's state
folder (`$XDG_STATE_HOME/symbolpack/`, default `~/.local/state/symbolpack/`),
keyed by the settings file's path: uninstall removes those, and only those,
when they are empty. A record in the user's folder rather than a marker file
next to the settings, because a marker would itself keep the folder from
being empty and would show up in the user's project.

Trust: Codex and Gemini ignore what is installed in a project they do not
trust (`trust.py`); install says so and prints the host's own way to trust it.

`$SYMBOLPACK_TLDRS` overrides the command prefix written into settings (default:
`tldrs` when it is on PATH, else the absolute path of this installation's script).
Claude Code's hooks are the exception when no prefix is given: they start the
resident hook server's client file with this interpreter and no `site` (`<python> -S
.../claude/client.py NAME`, `claude_hook_prefix`), ~9 ms a hook where pip's console
script `tldrs hook NAME` takes ~27 ms, on every tool call.
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
import shutil
import sys
from pathlib import Path

from ...base.errors import SymbolpackError, UsageError
from ...base.workspace import atomic_write, project_root
from .host_settings import CLAUDE_HOOKS, SERVER_NAME, adapter_for  # noqa: F401  (re-exported)
from .trust import codex_home, host_trust

BACKUP_SUFFIX = ".symbolpack.bak"
HOSTS = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI", "qwen": "Qwen Code"}


def tldrs_command() -> str:
    """The command prefix to write into settings."""
    from ...base.settings import load_settings

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


def claude_hook_prefix(tldrs: str | None) -> str | None:
    """Claude Code's hook command before the hook's name: this interpreter without
    `site`, running the hook client file (`claude/client.py`, which imports nothing of
    the package unless no resident server answers). None (the hooks run `<tldrs> hook
    NAME`) when a prefix was given (*tldrs*, `$SYMBOLPACK_TLDRS`), on Windows (no Unix
    socket to offer to), or without a known interpreter."""
    from ...base.settings import load_settings

    if tldrs or load_settings().tldrs or os.name == "nt" or not sys.executable:
        return None
    client = Path(__file__).resolve().parent.parent / "claude" / "client.py"
    if not client.is_file():
        return None
    return f"{shlex.quote(sys.executable)} -S {shlex.quote(str(client))}"


# --------------------------------------------------------------------------- locations

def settings_path(agent: str, global_: bool, root: Path | None = None) -> Path:
    base = Path.home() if global_ else (root or project_root())
    if agent == "claude":
        return base / ".claude" / "settings.json"
    if agent == "codex":
        return codex_home() / "config.toml" if global_ else base / ".codex" / "config.toml"
    if agent == "gemini":
        return base / ".gemini" / "settings.json"
    if agent == "qwen":
        return base / ".qwen" / "settings.json"
    raise UsageError(f"unknown agent {agent!r}: use claude, codex, gemini or qwen")


def record_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "symbolpack" / "installs.json"


CREATED_DIRS = "__created_dirs__"  # the record's own folders, made by the first install


def _records() -> dict:
    try:
        data = json.loads(record_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def created_by_install(path: Path) -> dict:
    """What install created for the settings file *path*: `{"dirs": [...], "containers": [...]}`."""
    entry = _records().get(str(path.absolute()))
    return entry if isinstance(entry, dict) else {}


def _save_record(path: Path, entry: dict | None) -> None:
    records = _records()
    key = str(path.absolute())
    if entry:
        records[key] = entry
    elif key not in records:
        return
    else:
        del records[key]
    target = record_path()
    if not any(k != CREATED_DIRS for k in records):
        # nothing left to remember: the record goes, and the folders the first install made for it
        target.unlink(missing_ok=True)
        remove_empty_dirs(None, records.get(CREATED_DIRS) or ())
        return
    if not target.exists():
        records[CREATED_DIRS] = [str(d) for d in missing_dirs(target)]
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, (json.dumps(records, indent=1, sort_keys=True) + "\n").encode("utf-8"), 0o600)


# --------------------------------------------------------------------------- file edits

def read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise SymbolpackError(f"{path}: not UTF-8 text; fix it by hand") from None
    except OSError as exc:
        raise SymbolpackError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def _write_atomic(path: Path, data: bytes, like: Path | None = None) -> None:
    """Atomically, keeping the permissions of the file it replaces (or of *like*)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = (like or path).stat().st_mode & 0o777
    except OSError:
        mode = 0o644
    atomic_write(path, data, mode)


def unified_diff_text(path: Path, old: str | None, new: str | None) -> str:
    """The change to *path* as the installers print it (None: no file on that side)."""
    lines = difflib.unified_diff((old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
                                 fromfile=str(path) if old is not None else "/dev/null",
                                 tofile=str(path) if new is not None else "/dev/null")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def say(out, text: str) -> None:
    out.write(text if text.endswith("\n") else text + "\n")


def missing_dirs(path: Path) -> list[Path]:
    out = []
    d = path.parent.absolute()
    while not d.exists() and d != d.parent:
        out.append(d)
        d = d.parent
    return out  # deepest first


def install(agent: str, global_: bool = False, dry_run: bool = False, root: Path | None = None,
            tldrs: str | None = None, out=None) -> int:
    out = out or sys.stdout
    root = root or project_root()
    path = settings_path(agent, global_, root)
    adapter = adapter_for(agent, path, claude_hook_prefix(tldrs) if agent == "claude" else None)
    old = read_text(path)
    edit = adapter.add(old or "", tldrs or tldrs_command())
    if old is not None and edit.text == old:
        say(out, f"symbolpack is already installed for {agent} in {path}; nothing changed.")
        _say_trust(out, agent, global_, root)
        return 0
    say(out, unified_diff_text(path, old, edit.text))
    if dry_run:
        say(out, "(dry run: nothing was written)")
        return 0
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    record = created_by_install(path)
    dirs = [*record.get("dirs", []), *(str(d) for d in missing_dirs(path))]
    containers = sorted({*record.get("containers", []), *edit.created})
    if old is not None and not (backup.exists() and adapter.installed(old)):
        _write_atomic(backup, old.encode("utf-8"), like=path)  # the file as it was before symbolpack
        say(out, f"backup: {backup}")
    _write_atomic(path, edit.text.encode("utf-8"))
    if dirs or containers:
        _save_record(path, {"dirs": dirs, "containers": containers})
    say(out, f"{'updated' if old is not None else 'created'} {path}")
    say(out, _next_step(agent))
    _say_trust(out, agent, global_, root)
    return 0


def uninstall(agent: str, global_: bool = False, dry_run: bool = False, root: Path | None = None,
              tldrs: str | None = None, out=None) -> int:
    out = out or sys.stdout
    root = root or project_root()
    path = settings_path(agent, global_, root)
    adapter = adapter_for(agent, path, claude_hook_prefix(tldrs) if agent == "claude" else None)
    old = read_text(path)
    record = created_by_install(path)
    if old is None or not adapter.installed(old):
        say(out, f"symbolpack is not installed for {agent} in {path}; nothing changed.")
        if not dry_run and old is None:
            _remove_created(out, path, record)  # the file was deleted by hand: its empty folders can go
        return 0
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    before = read_text(backup)
    restore = False
    try:
        restore = adapter.add(before or "", tldrs or tldrs_command()).text == old
    except SymbolpackError:
        pass
    kept: tuple[str, ...] = ()
    if restore:  # nothing but our install changed the file: put the original bytes back
        new = before
    else:
        edit = adapter.remove(old, tuple(record.get("containers", ())))
        new, kept = edit.text, edit.kept
    say(out, unified_diff_text(path, old, new))
    if dry_run:
        say(out, "(dry run: nothing was written)")
        return 0
    if restore and before is None:
        path.unlink()
        say(out, f"removed {path} (symbolpack had created it)")
    elif restore:
        _write_atomic(path, backup.read_bytes(), like=path)
        backup.unlink()
        say(out, f"restored {path} from {backup.name} (byte for byte) and removed the backup")
    else:
        assert new is not None  # only a restore can leave no text
        _write_atomic(backup, old.encode("utf-8"), like=path)
        _write_atomic(path, new.encode("utf-8"), like=path)
        say(out, f"removed symbolpack's entries from {path} (it was edited since install; "
                 f"the previous content is in {backup.name})")
    if kept:
        say(out, _kept_note(agent, kept))
    _remove_created(out, path, record)
    return 0


def _remove_created(out, path: Path, record: dict) -> None:
    """Remove the folders install created for *path* that are empty now, and forget the record."""
    remove_empty_dirs(out, record.get("dirs", []))
    _save_record(path, None)


def remove_empty_dirs(out, dirs) -> None:
    """Remove the folders an install created (*dirs*) that are empty now, the deepest first
    (said on *out*, unless it is None)."""
    for d in sorted(map(str, dirs), key=len, reverse=True):
        try:
            os.rmdir(d)  # only when empty
        except OSError:
            continue
        if out is not None:
            say(out, f"removed {d} (symbolpack had created it)")


def _kept_note(agent: str, kept: tuple[str, ...]) -> str:
    where = f"[mcp_servers.{SERVER_NAME}]" if agent == "codex" else f"mcpServers.{SERVER_NAME}"
    note = f"kept {where} with the keys you added ({', '.join(kept)}); delete it by hand if you no longer want it"
    if agent == "codex":
        note += " (Codex refuses a server entry without `command`: \"invalid transport\")"
    return note


def _next_step(agent: str) -> str:
    host = HOSTS[agent]
    what = "the hooks" if agent in ("claude", "qwen") else "the MCP server"
    return f"{host} picks {what} up in new sessions; check with: tldrs doctor"


def _say_trust(out, agent: str, global_: bool, root: Path) -> None:
    if agent == "codex" and global_:
        return  # Codex starts servers of its own config.toml in any project
    trust = host_trust(agent, root)
    if trust is None or trust.trusted:
        return
    scope = "MCP servers" if global_ else "a project's settings"
    say(out, f"{HOSTS[agent]} ignores {scope} in a folder it does not trust, and {root} is not trusted "
             f"({trust.why}). To trust it: {trust.how}")
