"""Git plumbing: one `git` process per call, with failures as SymbolpackError."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..base.errors import GitError

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Sequence


def run_git(root: Path, *args: str, stdin: bytes | None = None, check: bool = True) -> bytes:
    """stdout of `git -C root args`; SymbolpackError with git's first line on failure."""
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True)
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {message[0] if message else 'exit ' + str(proc.returncode)}")
    return proc.stdout


def cat_blobs(root: Path, names: Sequence[str]) -> dict[str, bytes | None]:
    """Contents of git objects (`<sha>` or `<rev>:<path>`) through one `cat-file --batch`."""
    if not names:
        return {}
    names = list(dict.fromkeys(names))
    out = run_git(root, "cat-file", "--batch", stdin=("\n".join(names) + "\n").encode())
    result: dict[str, bytes | None] = {}
    pos = 0
    for name in names:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] in (b"blob", b"commit", b"tree", b"tag"):
            size = int(header[2])
            result[name] = out[pos:pos + size] if header[1] == b"blob" else None
            pos += size + 1
        else:  # "<name> missing" / "ambiguous"
            result[name] = None
    return result
