"""The real agent clients, installed from the npm registry at the versions pinned in
`npm/package-lock.json`, into a cache outside the repository (reused when present).

A client that cannot be installed fails the tests that need it; they never skip.
Only the platform binary of Claude Code is used (it is a native executable), so
its install script is not run.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOCK = HERE / "npm" / "package-lock.json"


def cache_dir() -> Path:
    base = os.environ.get("SYMBOLPACK_E2E_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "symbolpack-e2e")
    return Path(base)


def _prefix() -> Path:
    digest = hashlib.sha256(LOCK.read_bytes() + (HERE / "npm" / "package.json").read_bytes()).hexdigest()[:16]
    return cache_dir() / f"clients-{digest}"


def claude_binary() -> Path:
    """Claude Code's executable, installed first if the cache does not have it."""
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    if arch is None:
        raise RuntimeError(f"no Claude Code build for {platform.machine()}")
    prefix = _prefix()
    binary = prefix / "node_modules" / "@anthropic-ai" / f"claude-code-linux-{arch}" / "claude"
    if not binary.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is not installed: the end-to-end tests need it to install Claude Code")
        prefix.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(HERE / "npm" / name, prefix / name)
        proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=prefix,
                              capture_output=True, text=True, timeout=900)
        if proc.returncode != 0 or not binary.exists():
            raise RuntimeError(f"npm ci of the pinned clients failed in {prefix}: {proc.stderr.strip()[-600:]}")
    return binary
