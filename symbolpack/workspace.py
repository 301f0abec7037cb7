"""Where a repository starts, where symbolpack keeps its state, how paths are named.

Every other module names files the way the protocol does: repo-relative POSIX
paths, absolute only outside the repository. Keeping that rule in one place is
what lets a read through the CLI, a hook and the MCP server land on the same
session entry.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import StoreError
from .errors import SymbolpackError as SymbolpackError  # re-exported: its old home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .settings import Settings

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


def find_repo_root(start: str | os.PathLike | None = None) -> Path | None:
    """The nearest directory at or above *start* holding `.git` (dir or worktree file)."""
    here = Path(start or os.getcwd()).resolve()
    if here.is_file():
        here = here.parent
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def project_root(start: str | os.PathLike | None = None) -> Path:
    """The repository root, or *start* (a directory) when not inside a repository."""
    root = find_repo_root(start)
    if root is not None:
        return root
    here = Path(start or os.getcwd()).resolve()
    return here.parent if here.is_file() else here


class StateUnavailable(StoreError, OSError):
    """symbolpack's state directory cannot be found or created (an unwritable
    directory, `$SYMBOLPACK_DIR` under a file, no home directory). Raised by
    `state_dir`; the OSError behind it is its `__cause__`. A read must not fail
    for it: the caller answers with a plain read and records nothing. It is an
    OSError too, so code that catches OSError around the store keeps working."""


def state_dir(root: Path, create: bool = True, settings: Settings | None = None) -> Path:
    """Where symbolpack keeps the state of the project at *root*, created 0700 with
    a `*` .gitignore when *create*:

    - `settings.state_dir` (`$SYMBOLPACK_DIR`, or `state_dir` in pyproject.toml) when set;
    - inside a git repository: `<root>/.symbolpack`;
    - outside any repository: `$XDG_STATE_HOME/symbolpack/<name>-<hash of root>`
      (default `~/.local/state`), so reading `/etc/hostname` never writes `/etc/.symbolpack`.

    Raises `StateUnavailable` (never a bare OSError) when it cannot be had."""
    if settings is None:
        from .settings import load_settings

        settings = load_settings(root)
    override = settings.state_dir
    try:
        if override:
            path = Path(override).expanduser().resolve()
        elif (root / ".git").exists() or find_repo_root(root) is not None:
            path = root / STATE_DIR_NAME
        else:
            path = user_state_dir(root)
        if create:
            ensure_private_dir(path)
            ignore = path / ".gitignore"
            if not ignore.exists():
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
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is ignored
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            raise StateUnavailable("symbolpack state unavailable: no home directory and no $XDG_STATE_HOME")
        base = os.path.join(home, ".local", "state")
    resolved = str(Path(root).resolve())
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in Path(resolved).name)[:40].strip(".-")
    digest = sha256_hex(resolved.encode("utf-8", "surrogateescape"))[:16]
    return Path(base) / "symbolpack" / f"{name or 'root'}-{digest}"


def ensure_private_dir(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o700)
    except OSError:
        pass
    return path


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write *data* to *path* so a reader sees the old bytes or the new, never half:
    a temp file beside it, fsync, rename. (Not `tempfile`: it imports `random`, and
    this runs in every hook process.)"""
    import time

    tmp = path.parent / f".tmp-{path.name}-{os.getpid()}-{time.monotonic_ns()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)  # O_CREAT's mode is filtered by the umask
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def display_path(path: Path, root: Path) -> str:
    """Repo-relative POSIX path for files under *root*, else the absolute path."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
