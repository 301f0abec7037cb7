"""Which session a read belongs to, when nobody says.

The ladder (first that applies): `--session-id`, `$SYMBOLPACK_SESSION_ID`, an id
derived from git (repository + branch + worktree, read from `.git/HEAD`
directly: no subprocess on the hot path), the parent process and its start
time (one shell or agent process = one session), the working directory.
Explicit ids are validated and refused when malformed, because they become
file names; derived ids are built from safe characters only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .workspace import SymbolpackError, find_repo_root, sha256_hex

VALID_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")


def validate_session_id(value: str) -> str:
    if not VALID_ID.fullmatch(value) or value in (".", ".."):
        raise SymbolpackError(
            f"invalid session id {value[:40]!r}: use 1-128 characters from A-Z a-z 0-9 . _ -")
    return value


def _slug(text: str, limit: int = 40) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:limit] or "x"


def _short_hash(text: str) -> str:
    return sha256_hex(text.encode("utf-8", "surrogateescape"))[:10]


def git_session_id(cwd: Path) -> str | None:
    root = find_repo_root(cwd)
    if root is None:
        return None
    dot_git = root / ".git"
    try:
        if dot_git.is_file():  # a worktree: ".git" says where its git dir is
            text = dot_git.read_text(encoding="utf-8").strip()
            git_dir = Path(text.split(":", 1)[1].strip()) if text.startswith("gitdir:") else dot_git
            if not git_dir.is_absolute():
                git_dir = (root / git_dir).resolve()
        else:
            git_dir = dot_git
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, IndexError):
        return None
    branch = head[len("ref: refs/heads/"):] if head.startswith("ref: refs/heads/") else "detached-" + head[:12]
    return f"git-{_slug(root.name, 30)}-{_slug(branch, 40)}-{_short_hash(str(root) + '|' + str(git_dir))}"


def parent_process_session_id() -> str | None:
    ppid = os.getppid()
    try:
        stat = Path(f"/proc/{ppid}/stat").read_text()
        start_time = stat.rsplit(")", 1)[1].split()[19]  # field 22 overall
    except (OSError, IndexError):
        return None
    return f"ppid-{ppid}-{start_time}"


def resolve_session_id(explicit: str | None = None, cwd: Path | None = None) -> str:
    if explicit is not None:
        return validate_session_id(explicit)
    env = os.environ.get("SYMBOLPACK_SESSION_ID")
    if env:
        return validate_session_id(env)
    here = Path(cwd or os.getcwd())
    return git_session_id(here) or parent_process_session_id() or f"cwd-{_short_hash(str(here.resolve()))}"
