"""The error hierarchy: each kind of trouble raises its own class (real files, real git),
and each front end turns it into one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from symbolpack.base import errors
from symbolpack.api.context import context_pack, diff_context
from symbolpack.base.errors import GitError, NotFound, StoreError, SymbolpackError, UsageError
from symbolpack.api.operations import Workspace, read_file
from symbolpack.state.session_id import resolve_session_id
from symbolpack.base.settings import Settings
from symbolpack.base.workspace import StateUnavailable, state_dir

APP = "def alpha():\n    return 1\n\n\ndef beta():\n    return alpha() + 1\n"


@pytest.fixture
def repo(make_repo):
    return make_repo({"app.py": APP, "notes.txt": "a\nb\n"})


def test_the_tree():
    for cls in (UsageError, NotFound, GitError, StoreError):
        assert issubclass(cls, SymbolpackError)
    assert issubclass(UsageError, ValueError) and issubclass(NotFound, LookupError)
    assert issubclass(StateUnavailable, StoreError) and issubclass(StateUnavailable, OSError)
    assert set(errors.__all__) == {"SymbolpackError", "UsageError", "NotFound", "GitError", "StoreError"}


def test_missing_symbol_is_not_found_with_suggestions(repo):
    ws = Workspace(repo)
    with pytest.raises(NotFound) as caught:
        read_file(ws, repo / "app.py", "s1", symbol="alpah")
    assert caught.value.suggestions[0] == "alpha"
    assert "did you mean: alpha" in str(caught.value)


def test_missing_file_and_bad_range(repo):
    ws = Workspace(repo)
    with pytest.raises(NotFound, match="no such file"):
        read_file(ws, repo / "nope.py", "s1")
    with pytest.raises(UsageError, match="past the end of the file"):
        read_file(ws, repo / "notes.txt", "s1", offset=10)
    with pytest.raises(UsageError, match="invalid session id"):
        resolve_session_id("a/b")


def test_git_trouble_is_a_git_error(repo, tmp_path):
    with pytest.raises(NotFound, match="unknown base revision"):
        diff_context(Workspace(repo), base="no-such-rev", delta=False)
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text(APP)
    with pytest.raises(GitError, match="not a git repository"):
        diff_context(Workspace(plain, Settings(state_dir=str(tmp_path / "st"))), delta=False)


def test_bad_pack_arguments_are_usage_errors(repo):
    with pytest.raises(UsageError, match="--budget"):
        context_pack(Workspace(repo), "alpha", budget=0, delta=False)
    with pytest.raises(UsageError, match="--depth"):
        context_pack(Workspace(repo), "alpha", depth=-1, delta=False)


def test_unusable_state_is_a_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="state unavailable"):
        state_dir(tmp_path, settings=Settings(state_dir=str(blocker / "state")))


def cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYMBOLPACK_")}
    return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60)


def test_cli_prints_each_kind_as_one_line(repo):
    cases = {
        ("read", "app.py", "--session-id", "s1", "--symbol", "alpah"):
            "tldrs: error: no symbol named 'alpah' in app.py; did you mean: alpha, beta?",
        ("read", "notes.txt", "--session-id", "s1", "--offset", "9"):
            "tldrs: error: --offset 9 is past the end of the file (2 lines)",
        ("diff-context", "--base", "nope"): "tldrs: error: unknown base revision 'nope'",
    }
    for argv, line in cases.items():
        proc = cli(repo, *argv, "--format", "json")
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.splitlines() == [line]
        assert json.loads(proc.stdout) == {"v": 1, "mode": "error", "error": line.removeprefix("tldrs: error: ")}


def test_hook_fails_open_with_one_warning_line(repo, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    payload = {"session_id": "h1", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Read",
               "tool_input": {"file_path": str(repo / "app.py")}}
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYMBOLPACK_")}
    env["SYMBOLPACK_DIR"] = str(blocker / "state")  # a StoreError inside the hook
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "hook", "claude-pre-read"], cwd=repo, env=env,
                          input=json.dumps(payload), capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (0, "")  # no decision: the native read goes ahead
    assert len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("symbolpack hook: warning: no usable state dir (symbolpack state unavailable")
