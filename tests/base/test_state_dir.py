"""Where symbolpack keeps its state: `<repo>/.symbolpack` inside a repository, the
per-user state directory outside any (reading /etc/hostname must not write
/etc/.symbolpack), and an unavailable state directory never fails a read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from symbolpack.base.workspace import StateUnavailable, state_dir, user_state_dir

ROOT = Path(__file__).resolve().parents[2]
TEXT = "".join(f"line {i}\n" for i in range(1, 21))


def tldrs(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID")}
    full["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), full.get("PYTHONPATH")) if p)
    full.update(env)
    return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=60)


def outside_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=path, capture_output=True, text=True)
    assert proc.returncode != 0, f"{path} is inside the repository {proc.stdout.strip()}"
    return path


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file())


def test_a_read_outside_any_repository_keeps_state_in_the_user_state_dir(tmp_path):
    outside = outside_repo(tmp_path / "etc")
    (outside / "hostname").write_text(TEXT)
    cwd = outside_repo(tmp_path / "elsewhere")
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    home.mkdir()
    proc = tldrs(cwd, "read", str(outside / "hostname"), "--session-id", "s1", HOME=str(home), XDG_STATE_HOME=str(xdg))
    assert proc.returncode == 0, proc.stderr
    assert "     1\tline 1" in proc.stdout
    assert not (outside / ".symbolpack").exists() and not (cwd / ".symbolpack").exists()
    [state] = (xdg / "symbolpack").iterdir()
    assert state.name.startswith("etc-") and (state / "sessions" / "s1" / "session.json").is_file()
    assert oct(state.stat().st_mode & 0o777) == "0o700"
    assert not files_under(home)
    # the same directory finds the same state: the re-read is unchanged
    again = tldrs(cwd, "read", str(outside / "hostname"), "--session-id", "s1", HOME=str(home), XDG_STATE_HOME=str(xdg))
    assert again.returncode == 0 and "[UNCHANGED]" in again.stdout, again.stdout


def test_without_xdg_state_home_state_goes_to_home_local_state(tmp_path):
    work = outside_repo(tmp_path / "work")
    (work / "notes.txt").write_text(TEXT)
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "XDG_STATE_HOME": ""}
    proc = tldrs(work, "read", "notes.txt", "--session-id", "s1", **env)
    assert proc.returncode == 0, proc.stderr
    assert not (work / ".symbolpack").exists()
    [state] = (home / ".local" / "state" / "symbolpack").iterdir()
    assert (state / "sessions" / "s1" / "session.json").is_file()


def test_inside_a_repository_state_stays_in_the_repository(make_repo, tmp_path):
    repo = make_repo({"notes.txt": TEXT})
    xdg = tmp_path / "xdg-unused"
    proc = tldrs(repo, "read", "notes.txt", "--session-id", "s1", XDG_STATE_HOME=str(xdg))
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".symbolpack" / "sessions" / "s1" / "session.json").is_file()
    assert not xdg.exists()
    assert state_dir(repo, create=False) == repo / ".symbolpack"
    sub = repo / "pkg"
    sub.mkdir()
    assert state_dir(sub, create=False) == sub / ".symbolpack"  # a root inside a repository: not per-user


def test_state_dir_rules(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    a, b = outside_repo(tmp_path / "a"), outside_repo(tmp_path / "b")
    assert state_dir(a, create=False) != state_dir(b, create=False)
    assert state_dir(b, create=False).parent == tmp_path / "xdg" / "symbolpack"
    assert not (tmp_path / "xdg").exists()  # create=False creates nothing
    made = state_dir(b)
    assert made.is_dir() and (made / ".gitignore").read_text() == "*\n"
    monkeypatch.setenv("SYMBOLPACK_DIR", str(tmp_path / "override"))
    assert state_dir(b) == tmp_path / "override"
    monkeypatch.delenv("SYMBOLPACK_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", "relative/dir")  # the XDG spec: ignored when relative
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_state_dir(b).parent == tmp_path / "home" / ".local" / "state" / "symbolpack"


def test_an_unavailable_state_dir_is_one_signal(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a regular file")
    monkeypatch.setenv("SYMBOLPACK_DIR", str(blocker / "state"))  # fails even for root
    with pytest.raises(StateUnavailable) as err:
        state_dir(tmp_path)
    assert isinstance(err.value.__cause__, OSError)
    assert "state unavailable" in str(err.value) and str(blocker) in str(err.value)
    monkeypatch.delenv("SYMBOLPACK_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker / "xdg"))
    with pytest.raises(StateUnavailable):
        state_dir(outside_repo(tmp_path))


def test_commands_that_only_cache_run_without_state(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    return 1\n")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = tldrs(tmp_path, "extract", "m.py", SYMBOLPACK_DIR=str(blocker / "state"))
    assert proc.returncode == 0, proc.stderr
    assert "f" in proc.stdout


def test_a_read_with_an_unavailable_state_dir_exits_0_with_the_plain_file(tmp_path):
    (tmp_path / "notes.txt").write_text(TEXT)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = tldrs(tmp_path, "read", "notes.txt", "--session-id", "s1", SYMBOLPACK_DIR=str(blocker / "state"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("\n") == 1 and "no usable state dir" in proc.stderr  # one warning line
    assert proc.stdout == "".join(f"{i:6d}\tline {i}\n" for i in range(1, 21))
