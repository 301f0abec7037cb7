"""Shared fixtures: real git repositories made with `git`, isolated state dirs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path_factory):
    for var in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID"):
        monkeypatch.delenv(var, raising=False)
    # state of directories outside any repository goes here, never to the real ~/.local/state
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))


@pytest.fixture
def make_repo(tmp_path):
    """make_repo({"a.py": "..."}) -> a committed git repository holding those files."""

    def make(files: dict[str, str], name: str = "repo", commit: bool = True) -> Path:
        root = tmp_path / name
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        for rel, text in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        if commit and files:
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "init")
        return root

    return make


def session_dir(root: Path, session_id: str) -> Path:
    """Where the store keeps one session of the repository at *root* (sessionstore.py)."""
    return root / ".symbolpack" / "sessions" / session_id


def stored_files(root: Path, session_id: str) -> dict:
    """The file records of one session as they are on disk, by path."""
    import json

    files = session_dir(root, session_id) / "files"
    records = (json.loads(p.read_text()) for p in sorted(files.glob("*.json"))) if files.is_dir() else ()
    return {r["path"]: r for r in records}
