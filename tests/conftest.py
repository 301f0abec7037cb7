"""Shared fixtures: real git repositories made with `git`, isolated state dirs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


# The fixtures are small files, and their skeletons are what most tests are about: every
# process the tests start (module-scoped fixtures' too) reads files over 400 tokens as
# skeletons. The default (files under 1,500 tokens read whole) has tests of its own that
# pass their own settings.
SMALL_FILE_TOKENS = "400"
os.environ["SYMBOLPACK_SMALL_FILE_TOKENS"] = SMALL_FILE_TOKENS
# a resident Claude Code hook process a test starts ends 20 s after its last call, not
# 10 minutes later: a test run leaves no process behind for long
os.environ["SYMBOLPACK_HOOK_SERVER_IDLE"] = "20"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path_factory):
    for var in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID"):
        monkeypatch.delenv(var, raising=False)
    # state of directories outside any repository goes here, never to the real ~/.local/state
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))
    monkeypatch.setenv("SYMBOLPACK_SMALL_FILE_TOKENS", SMALL_FILE_TOKENS)


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


def py_lines(n_funcs: int = 4, body: int = 20) -> list[str]:
    """A Python module of *n_funcs* functions with *body*-line bodies."""
    out = ["import os", ""]
    for k in range(n_funcs):
        out += [f"def f{k}(x):", f'    """Doc {k}."""'] + [f"    y{i} = x + {i}" for i in range(body)] + ["    return x", ""]
    return out


def py_function(k: int, body: int = 12, name: str | None = None) -> list[str]:
    """Function `f{k}` (or *name*) whose body lines are its own (`x + 100k + i`): no other
    function of the module has them, so a line maps to one place only."""
    return [f"def {name or f'f{k}'}(x):", f'    """Doc {k}."""', *[f"    y{i} = x + {100 * k + i}" for i in range(body)],
            "    return x", ""]


def distinct_py_lines(n_funcs: int, body: int) -> list[str]:
    """`py_lines`, each function's body lines its own (`py_function`)."""
    return ["import os", ""] + [line for k in range(n_funcs) for line in py_function(k, body)]


def python_symbols(lines) -> list | None:
    """The symbols of *lines* as Python file m.py, or None when the parse failed."""
    from symbolpack.engine.index import parse_bytes
    from symbolpack.engine.symbols import bind

    records, _, error = parse_bytes(("\n".join(lines) + "\n").encode(), "python")
    return None if error else bind("m.py", "python", records)


def tldrs(root: Path, *args: str, env: dict | None = None, check: bool = False) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k != "SYMBOLPACK_SESSION_ID"}
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=root, env=full_env,
                          capture_output=True, text=True, timeout=60)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def read_json(root: Path, path: str, *extra: str, session: str = "t1") -> dict:
    proc = tldrs(root, "read", path, "--session-id", session, "--format", "json", *extra, check=True)
    return json.loads(proc.stdout)


@pytest.fixture
def app_repo(make_repo):
    """A committed repository with a parsed file of five long functions and a text file."""
    return make_repo({"src/app.py": "\n".join(py_lines(5, 16)) + "\n", "notes.txt": "a\nb\n"})
