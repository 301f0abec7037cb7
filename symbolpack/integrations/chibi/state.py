"""Chibi: where the plugin's things live (`chibi.py` is the plugin itself).

The Chibi home (`--home` > `$CHIBI_HOME` > `~/.chibi`), symbolpack's own Chibi
bookkeeping under `$XDG_STATE_HOME/symbolpack/chibi` (process records, epochs,
deliveries), the session of a Chibi context (`chibi-<home hash>-<context>-<epoch>`)
and of the Chibi process that spawned us, the project a call is about, and the
plugin's one line on stderr. See `chibi.py` for the contracts.
"""

from __future__ import annotations

import json
import os
import re

_SAFE_CONTEXT = re.compile(r"[A-Za-z0-9_-]{1,64}")


def chibi_home(explicit: str | None = None) -> str:
    """Chibi's own rule: --home, else $CHIBI_HOME, else ~/.chibi."""
    home = explicit or os.environ.get("CHIBI_HOME") or os.path.join(os.path.expanduser("~"), ".chibi")
    return os.path.abspath(os.path.expanduser(home))


def state_root() -> str:
    """symbolpack's Chibi bookkeeping (process records, epochs, deliveries):
    `$XDG_STATE_HOME/symbolpack/chibi` (default `~/.local/state`), never inside the Chibi home."""
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "symbolpack", "chibi")


def _home_key(home: str) -> str:
    from ...base.workspace import sha256_hex

    return sha256_hex(os.path.realpath(home).encode("utf-8", "surrogateescape"))[:10]


def _context_key(context: str) -> str:
    from ...base.workspace import sha256_hex

    if _SAFE_CONTEXT.fullmatch(context):
        return context
    return "h" + sha256_hex(context.encode("utf-8", "surrogatepass"))[:20]


def private_dir(*parts: str) -> str:
    from pathlib import Path

    from ...base.workspace import ensure_private_dir

    return str(ensure_private_dir(Path(state_root(), *parts)))


def write_json(path: str, data) -> None:
    from pathlib import Path

    from ...base.workspace import atomic_write

    atomic_write(Path(path), json.dumps(data).encode())


def read_json(path: str):
    try:
        with open(path, "rb") as fh:
            return json.loads(fh.read())
    except (OSError, ValueError):
        return None


def epoch(home: str, context: str) -> str:
    data = read_json(os.path.join(state_root(), "epochs", f"{_home_key(home)}-{_context_key(context)}"))
    value = data.get("epoch") if isinstance(data, dict) else None
    return value if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{1,16}", value) else "0"


def new_epoch(home: str, context: str) -> str:
    import time

    value = f"{time.time_ns():x}"[-16:]
    write_json(os.path.join(private_dir("epochs"), f"{_home_key(home)}-{_context_key(context)}"),
                {"epoch": value, "context": context})
    return value


def session_for(home: str, context: str) -> str:
    """The symbolpack session of Chibi context *context* under *home*, as it is now."""
    from ...state.session_id import validate_session_id

    return validate_session_id(f"chibi-{_home_key(home)}-{_context_key(context)}-{epoch(home, context)}")


def chibi_process() -> str | None:
    """Our parent (the Chibi process: plugins are spawned by it, and the launcher
    execs) as `pid-starttime`, or None where /proc cannot say (no session then)."""
    pid = os.getppid()
    if pid <= 1:
        return None
    start = _start_time(pid)
    return f"{pid}-{start}" if start else None


def _start_time(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read().decode("utf-8", "surrogateescape")
        return raw.rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return None


def remember_context(home: str, context: str) -> None:
    proc = chibi_process()
    if proc is None:
        return
    directory = private_dir("procs")
    write_json(os.path.join(directory, proc + ".json"), {"home": os.path.realpath(home), "context": context})
    for name in os.listdir(directory):  # records of processes that are gone
        pid, _, start = name[:-5].partition("-")
        if name.endswith(".json") and pid.isdigit() and _start_time(int(pid)) != start:
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass


def current_context(home: str) -> str | None:
    proc = chibi_process()
    if proc is None:
        return None
    data = read_json(os.path.join(state_root(), "procs", proc + ".json"))
    if not isinstance(data, dict) or data.get("home") != os.path.realpath(home):
        return None
    context = data.get("context")
    return context if isinstance(context, str) and context else None


def current_session(home: str) -> str | None:
    context = current_context(home)
    return session_for(home, context) if context is not None else None


def project_dir() -> str:
    """Chibi's project root (it exports `$CHIBI_PROJECT_ROOT` to plugins), else the cwd."""
    root = os.environ.get("CHIBI_PROJECT_ROOT")
    return root if root and os.path.isabs(root) and os.path.isdir(root) else os.getcwd()


def os_path(raw, relative_to: str) -> str | None:
    """An OS path from a Chibi tool argument (None for `vfs://` URIs and junk)."""
    if not isinstance(raw, str) or not raw or "\0" in raw or raw.startswith("vfs:"):
        return None
    raw = os.path.expanduser(raw)
    return os.path.normpath(raw if os.path.isabs(raw) else os.path.join(relative_to, raw))


def workspace_for(path: str):
    """The workspace of a file: its repository, as `tldrs read` picks it, so the read
    tool and the hooks land on the same store."""
    from pathlib import Path

    from ...api.operations import Workspace
    from ...base.workspace import project_root

    parent = Path(path).parent
    return Workspace(project_root(parent if parent.exists() else None))


def forget_context(home: str, context: str) -> None:
    """The context lost what it was shown: drop its copies here, and give it a new
    epoch so copies in other projects' stores are never consulted again."""
    from pathlib import Path

    from ...api.operations import Workspace
    from ...base.workspace import project_root

    old = session_for(home, context)
    new_epoch(home, context)
    ws = Workspace(project_root(Path(project_dir())))
    try:
        store = ws.store_or_none()
        if store is not None:
            with store.session(old) as session:
                session.drop_all_files()
    finally:
        ws.close()


def log(message: str) -> None:
    try:
        from ...base.log import warning

        warning(message)
    except Exception:
        pass
