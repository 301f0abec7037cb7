"""The session id ladder with real processes: a fake agent CLI named `claude`, a
detached process with no terminal and no agent above it, a pseudo-terminal.

A session is one conversation: two agent processes never share one, one agent
process keeps its own across calls, and a repository or branch alone is never
a session (no agent, no terminal: no session at all).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from symbolpack.state.session_id import agent_name, resolve_session_id
from symbolpack.base.workspace import SymbolpackError

ROOT = Path(__file__).resolve().parents[2]
PROBE = "from symbolpack.state.session_id import resolve_session_id; print(resolve_session_id())"

# Run a script in a grandchild that has left our process tree (re-parented to init)
# in a session of its own with no controlling terminal: no agent and no terminal
# above it, whatever runs these tests. Its stdout is ours until it exits.
DETACH = textwrap.dedent("""\
    import os, sys
    if os.fork():
        os._exit(0)
    os.setsid()
    if os.fork():
        os._exit(0)
    code = sys.argv[1]
    sys.argv = sys.argv[1:]
    exec(compile(code, "<scenario>", "exec"))
""")


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("SYMBOLPACK_SESSION_ID", "SYMBOLPACK_DIR")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def detached(code: str, *args: str, cwd: Path | None = None, **env: str) -> str:
    proc = subprocess.run([sys.executable, "-c", DETACH, code, *args], cwd=cwd, env=_env(**env),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    return proc.stdout


@pytest.fixture
def fake_claude(tmp_path) -> Path:
    """An executable named `claude` (a Python script, as npm installs `node .../claude`)
    that makes two tool calls, each a shell running the probe or the given command."""
    path = tmp_path / "bin" / "claude"
    path.parent.mkdir()
    path.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import shlex, subprocess, sys
        command = sys.argv[1:] or [sys.executable, "-c", {PROBE!r}]
        for _ in range(2):  # two tool calls of one conversation, each through a shell
            subprocess.run(shlex.join(command), shell=True, check=True)
    """))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def run_agent(argv: list, cwd: Path | None = None, **env: str) -> list[str]:
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=_env(**env), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


# --------------------------------------------------------------------------- agent processes

def test_one_agent_process_is_one_session_and_two_are_two(fake_claude):
    first = run_agent([fake_claude])
    second = run_agent([fake_claude])
    assert len(first) == len(second) == 2
    assert first[0] == first[1] and second[0] == second[1]  # same conversation, same id
    assert first[0] != second[0]  # another conversation, another id
    assert first[0].startswith("agent-claude-") and second[0].startswith("agent-claude-")


def test_an_agent_run_by_an_interpreter_is_found_by_its_script(fake_claude):
    """`node /usr/local/bin/claude`: comm is the interpreter's, argv[1] names the agent."""
    ids = run_agent([sys.executable, fake_claude])
    assert ids[0] == ids[1] and ids[0].startswith("agent-claude-")
    pid = int(ids[0].split("-")[2])
    assert pid != os.getpid()


def test_agent_reads_share_a_session_and_two_agents_do_not(fake_claude, make_repo):
    repo = make_repo({"notes.txt": "".join(f"line {i}\n" for i in range(30))})
    read = [sys.executable, "-m", "symbolpack.cli", "read", "notes.txt", "--format", "json"]
    modes = [json.loads(line)["mode"] for line in run_agent([fake_claude, *read], cwd=repo)]
    assert modes == ["full", "unchanged"]
    modes = [json.loads(line)["mode"] for line in run_agent([fake_claude, *read], cwd=repo)]
    assert modes == ["full", "unchanged"]  # a new conversation starts from nothing
    sessions = sorted(p.parent.name for p in (repo / ".symbolpack" / "sessions").glob("*/session.json"))
    assert len(sessions) == 2 and all(s.startswith("agent-claude-") for s in sessions)


def test_environment_wins_over_the_agent_process(fake_claude):
    assert run_agent([fake_claude], SYMBOLPACK_SESSION_ID="shared-1") == ["shared-1", "shared-1"]


@pytest.mark.parametrize("comm, argv, expected", [
    ("claude", ["claude"], "claude"),
    ("node", ["node", "/usr/local/bin/claude", "--resume"], "claude"),
    ("node", ["/usr/bin/node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"], "codex"),
    ("node", ["node", "--max-old-space-size=8192", "/usr/local/bin/gemini"], "gemini"),
    ("node", ["/home/u/.local/share/cursor-agent/versions/1.2/node", "--use-system-ca",
              "/home/u/.local/share/cursor-agent/versions/1.2/index.js"], "cursor-agent"),
    ("python3", ["/usr/bin/python3", "/home/u/.local/bin/aider", "--model", "x"], "aider"),
    ("MainThread", ["codex", "exec"], "codex"),
    ("goose", ["goose", "session"], "goose"),
    ("bash", ["bash"], None),
    ("vim", ["vim", "claude"], None),  # a file named claude is not an agent
    ("node", ["node", "server.js"], None),
    ("node", ["node", "/srv/app/index.js"], None),
    ("python3", ["python3", "-m", "pytest"], None),
])
def test_agent_name(comm, argv, expected):
    assert agent_name(comm, argv) == expected


# --------------------------------------------------------------------------- no agent

def test_no_agent_and_no_terminal_is_no_session(make_repo):
    """Repository and branch alone are never a session: two processes in one repo
    with no agent and no terminal above them get no id at all, not a shared one."""
    repo = make_repo({"a.txt": "a\n"})
    assert detached(PROBE, cwd=repo) == "None\n"
    assert detached(PROBE, cwd=repo) == "None\n"


def test_environment_and_explicit_ids_need_no_process(monkeypatch):
    assert detached(PROBE, SYMBOLPACK_SESSION_ID="from-env") == "from-env\n"
    monkeypatch.setenv("SYMBOLPACK_SESSION_ID", "from-env")
    assert resolve_session_id("explicit") == "explicit"  # explicit wins over the environment
    assert resolve_session_id() == "from-env"


@pytest.mark.parametrize("bad", ["", "a/b", "..", "x" * 129, "sp ace"])
def test_malformed_ids_are_refused(bad, monkeypatch):
    with pytest.raises(SymbolpackError, match="invalid session id"):
        resolve_session_id(bad)
    if bad:
        monkeypatch.setenv("SYMBOLPACK_SESSION_ID", bad)
        with pytest.raises(SymbolpackError, match="invalid session id"):
            resolve_session_id()


def test_session_commands_without_a_session_say_so(make_repo):
    repo = make_repo({"a.txt": "a\n"})
    scenario = textwrap.dedent("""\
        import subprocess, sys
        for action in (["status"], ["clear"], ["refresh", "a.txt"]):
            p = subprocess.run([sys.executable, "-m", "symbolpack.cli", "session", *action],
                               capture_output=True, text=True)
            print(p.returncode, p.stderr.strip(), repr(p.stdout))
    """)
    lines = detached(scenario, cwd=repo).splitlines()
    assert lines == ["2 tldrs: error: no session: pass --session-id or set SYMBOLPACK_SESSION_ID ''"] * 3
    assert not (repo / ".symbolpack" / "sessions").exists() or not any((repo / ".symbolpack" / "sessions").iterdir())


def test_diff_context_without_a_session_is_no_delta(make_repo):
    repo = make_repo({"m.py": "def f():\n    return 1\n"})
    (repo / "m.py").write_text("def f():\n    return 2\n")
    scenario = textwrap.dedent("""\
        import subprocess, sys
        p = subprocess.run([sys.executable, "-m", "symbolpack.cli", "diff-context", "--format", "json"],
                           capture_output=True, text=True)
        print(p.returncode, p.stderr.strip() or "-")
        print(p.stdout.strip())
    """)
    code, out = detached(scenario, cwd=repo).split("\n", 1)
    assert code == "0 -"
    result = json.loads(out)
    assert result["session_id"] is None and result["unchanged"] == []
    assert [s["id"] for s in result["slices"]] == ["m.py:python:f"]
    assert not list((repo / ".symbolpack").glob("sessions/*/session.json"))


def test_read_without_a_session_is_a_plain_read_that_records_nothing(make_repo):
    text = "".join(f"line {i}\n" for i in range(30))
    repo = make_repo({"notes.txt": text})
    scenario = textwrap.dedent("""\
        import subprocess, sys
        for _ in range(2):
            p = subprocess.run([sys.executable, "-m", "symbolpack.cli", "read", "notes.txt", "--format", "json"],
                               capture_output=True, text=True)
            print(p.returncode, p.stdout.strip() or p.stderr.strip())
    """)
    results = [line.split(" ", 1) for line in detached(scenario, cwd=repo).splitlines()]
    assert [code for code, _ in results] == ["0", "0"], results
    assert [json.loads(out)["mode"] for _, out in results] == ["full", "full"]  # never "unchanged"
    assert not list((repo / ".symbolpack").glob("sessions/*/session.json"))


# --------------------------------------------------------------------------- terminals

def test_a_terminal_session_is_one_session():
    """Two pseudo-terminals (two terminal windows), two calls in each: one id per terminal."""
    scenario = textwrap.dedent("""\
        import os, subprocess, sys
        probe = sys.argv[1]
        out = []
        for _ in range(2):
            r, w = os.pipe()
            pid, master = os.forkpty()
            if pid == 0:  # a new session whose controlling terminal is the pty
                os.close(r)
                ids = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip()
                       for _ in range(2)]
                os.write(w, " ".join(ids).encode())
                os._exit(0)
            os.close(w)
            data = b""
            while chunk := os.read(r, 4096):
                data += chunk
            os.close(r)
            os.waitpid(pid, 0)
            os.close(master)
            out.append(data.decode())
        print("\\n".join(out))
    """)
    first, second = (line.split() for line in detached(scenario, PROBE).splitlines())
    assert first[0] == first[1] and second[0] == second[1]
    assert first[0] != second[0]
    assert first[0].startswith("tty-") and second[0].startswith("tty-")


def test_resolving_is_cheap():
    import time

    from symbolpack.state.session_id import process_session_id

    start = time.perf_counter()
    for _ in range(50):
        process_session_id()
    assert (time.perf_counter() - start) / 50 < 0.005  # /proc reads only, no subprocess
