"""Where a repository starts, where symbolpack keeps its state, how paths are named.

Every other module names files the way the protocol does: repo-relative POSIX
paths, absolute only outside the repository. Keeping that rule in one place is
what lets a read through the CLI, a hook and the MCP server land on the same
session entry.
"""

from __future__ import annotations

import os

from .errors import StoreError
from .errors import SymbolpackError as SymbolpackError  # re-exported: its old home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import TypeVar

    from .settings import Settings

    _P = TypeVar("_P", str, Path)  # a str or a Path, given back as it came

STATE_DIR_NAME = ".symbolpack"

try:  # the built-in sha256 loads in microseconds; hashlib's OpenSSL binding costs
    from _sha2 import sha256 as _sha256  # type: ignore[import-not-found,unused-ignore]  # ~3 ms per process (3.12+)
except ImportError:
    try:
        from _sha256 import sha256 as _sha256  # type: ignore[import-not-found,no-redef,unused-ignore]  # 3.10, 3.11
    except ImportError:  # pragma: no cover - a build without the built-in modules
        from hashlib import sha256 as _sha256


def sha256_hex(data: bytes) -> str:
    """Hex sha256 of *data*: the content hash every view, baseline and cache key uses."""
    return _sha256(data).hexdigest()


def sha256_hasher():
    """A sha256 object to feed in parts (the built-in one, as `sha256_hex`)."""
    return _sha256()


def _path(value: str) -> Path:
    """A `pathlib.Path`, imported on first use: pathlib (and the urllib.parse and
    ipaddress it pulls in) costs ~4 ms per process, which a read does not pay."""
    from pathlib import Path

    return Path(value)


def repo_root_dir(start: str | os.PathLike | None = None) -> str | None:
    """`find_repo_root` on plain strings (the read path never builds a Path)."""
    here = os.path.realpath(start or os.getcwd())
    if os.path.isfile(here):
        here = os.path.dirname(here)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def project_root_dir(start: str | os.PathLike | None = None) -> str:
    """`project_root` on plain strings."""
    root = repo_root_dir(start)
    if root is not None:
        return root
    here = os.path.realpath(start or os.getcwd())
    return os.path.dirname(here) if os.path.isfile(here) else here


def find_repo_root(start: str | os.PathLike | None = None) -> Path | None:
    """The nearest directory at or above *start* holding `.git` (dir or worktree file)."""
    root = repo_root_dir(start)
    return None if root is None else _path(root)


def project_root(start: str | os.PathLike | None = None) -> Path:
    """The repository root, or *start* (a directory) when not inside a repository."""
    return _path(project_root_dir(start))


class StateUnavailable(StoreError, OSError):
    """symbolpack's state directory cannot be found or created (an unwritable
    directory, `$SYMBOLPACK_DIR` under a file, no home directory). Raised by
    `state_dir`; the OSError behind it is its `__cause__`. A read must not fail
    for it: the caller answers with a plain read and records nothing. It is an
    OSError too, so code that catches OSError around the store keeps working."""


def state_dir(root: Path, create: bool = True, settings: Settings | None = None) -> Path:
    """Where symbolpack keeps the state of the project at *root* (see `state_dir_path`)."""
    return _path(state_dir_path(root, create, settings))


def state_dir_path(root: str | os.PathLike, create: bool = True, settings: Settings | None = None) -> str:
    """Where symbolpack keeps the state of the project at *root*, created 0700 with
    a `*` .gitignore when *create*:

    - `settings.state_dir` (`$SYMBOLPACK_DIR`, or `state_dir` in pyproject.toml) when set;
    - inside a git repository: `<root>/.symbolpack`;
    - outside any repository: `$XDG_STATE_HOME/symbolpack/<name>-<hash of root>`
      (default `~/.local/state`), so reading `/etc/hostname` never writes `/etc/.symbolpack`.

    Raises `StateUnavailable` (never a bare OSError) when it cannot be had."""
    root = os.fspath(root)
    if settings is None:
        from .settings import load_settings

        settings = load_settings(root)
    override = settings.state_dir
    try:
        if override:
            path = os.path.realpath(os.path.expanduser(override))
        elif os.path.exists(os.path.join(root, ".git")) or repo_root_dir(root) is not None:
            path = os.path.join(root, STATE_DIR_NAME)
        else:
            path = _user_state_dir(root)
        if create:
            ensure_private_dir(path)
            ignore = os.path.join(path, ".gitignore")
            if not os.path.exists(ignore):
                try:
                    fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "w") as fh:
                        fh.write("*\n")
                except FileExistsError:
                    pass
    except OSError as exc:
        detail = f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc)
        raise StateUnavailable(f"symbolpack state unavailable ({detail})") from exc
    return path


def user_state_dir(root: Path) -> Path:
    """`$XDG_STATE_HOME/symbolpack/<name>-<hash>` (default `~/.local/state`) for a
    directory outside any repository."""
    return _path(_user_state_dir(os.fspath(root)))


def _user_state_dir(root: str) -> str:
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is ignored
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            raise StateUnavailable("symbolpack state unavailable: no home directory and no $XDG_STATE_HOME")
        base = os.path.join(home, ".local", "state")
    resolved = os.path.realpath(root)
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in os.path.basename(resolved))[:40].strip(".-")
    digest = sha256_hex(resolved.encode("utf-8", "surrogateescape"))[:16]
    return os.path.join(base, "symbolpack", f"{name or 'root'}-{digest}")


def ensure_private_dir(path: _P) -> _P:
    """Create *path* (and its parents) and make it 0700. Returns *path* as given
    (a str or a Path)."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    try:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o700)
    except OSError:
        pass
    return path


def atomic_write(path: str | os.PathLike, data: bytes, mode: int = 0o600, durable: bool = True) -> None:
    """Write *data* to *path* so a reader sees the old bytes or the new, never half:
    a temp file beside it, fsync (unless not *durable*: for files whose loss in a
    power cut is harmless), rename. (Not `tempfile`: it imports `random`, and this
    runs in every hook process.)"""
    import time

    path = os.fspath(path)
    head, name = os.path.split(path)
    tmp = os.path.join(head, f".tmp-{name}-{os.getpid()}-{time.monotonic_ns()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)  # O_CREAT's mode is filtered by the umask
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def display_path(path: str | os.PathLike, root: str | os.PathLike) -> str:
    """Repo-relative POSIX path for files under *root*, else the absolute path
    (both resolved)."""
    path, root = os.fspath(path), os.fspath(root)
    if path == root:
        return "."
    prefix = root if root.endswith("/") else root + "/"
    return path[len(prefix):] if path.startswith(prefix) else path
