"""The resident hook server (`integrations/claude/server.py`): the hook process hands it
the payload over a private Unix socket; its answers are the ones a hook process gives,
its records are committed only once the client delivered the answer, and whenever
it cannot answer the hook runs in its own process (fail open)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from test_claude_hooks import PACKAGE_ROOT, decision, module

pytestmark = pytest.mark.skipif(not hasattr(__import__("socket"), "AF_UNIX"), reason="Unix sockets only")


def env_for(home: Path, server: bool = True) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID", "XDG_STATE_HOME", "SYMBOLPACK_HOOK_SERVER")}
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["HOME"] = str(home)
    env["SYMBOLPACK_HOOK_SERVER_IDLE"] = "30"
    if not server:
        env["SYMBOLPACK_HOOK_SERVER"] = "0"
    return env


def hook(name: str, payload: dict, root: Path, env: dict, importtime: bool = False) -> tuple[str, str]:
    cmd = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "symbolpack.cli", "hook", name]
    proc = subprocess.run(cmd, input=json.dumps(payload), capture_output=True, text=True, cwd=root, env=env,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def socket_of(home: Path) -> Path | None:
    found = sorted((home / ".local" / "state" / "symbolpack" / "claude-hooks").glob("*.sock"))
    return found[0] if found else None


def wait_for_server(home: Path) -> Path:
    for _ in range(200):
        sock = socket_of(home)
        if sock is not None and stat.S_ISSOCK(sock.stat().st_mode):
            return sock
        time.sleep(0.05)
    raise AssertionError("no resident server came up")


def stop(home: Path) -> None:
    sock = socket_of(home)
    if sock is not None:
        sock.unlink()  # the server sees its socket gone within a second and ends


def read_payload(root: Path, rel: str, ident: str) -> dict:
    return {"session_id": "5f0c7a52-aaaa-4bbb-8ccc-0123456789ab", "cwd": str(root), "hook_event_name": "PreToolUse",
            "tool_name": "Read", "tool_input": {"file_path": str(root / rel)}, "tool_use_id": ident}


def history(root: Path, env: dict) -> list:
    """First read, re-read, an outside change, a re-read, a re-read: every answer."""
    out = []
    for step in range(4):
        if step == 2:
            path = root / "app.py"
            path.write_text(path.read_text().replace("    total += 3\n", "    total += 333\n", 1))
        answer, _ = hook("claude-pre-read", read_payload(root, "app.py", f"toolu_{step}"), root, env)
        got = decision(answer)
        out.append(got and got["permissionDecisionReason"].replace(str(root), "ROOT"))
    return out


def twin_projects(make_repo, tmp_path: Path, name: str) -> tuple[Path, Path, Path]:
    """Two projects with the same app.py, one answered by a hook process of its own (`own`),
    the other (*name*) by the way under test, and the HOME both hooks use."""
    text = module(funcs=40, lines=30)
    home = tmp_path / "home"
    home.mkdir()
    return make_repo({"app.py": text}, name="own"), make_repo({"app.py": text}, name=name), home


def test_the_resident_server_answers_as_a_hook_process_does_and_the_client_loads_no_engine(make_repo, tmp_path):
    own, resident, home = twin_projects(make_repo, tmp_path, "resident")
    try:
        hook("claude-pre-read", read_payload(resident, "app.py", "toolu_start"), resident, env_for(home))
        sock = wait_for_server(home)  # the first hook ran itself, then started one
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600 and stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
        expected = history(own, env_for(home, server=False))
        subprocess.run(["rm", "-rf", str(resident / ".symbolpack")], check=True)  # start over, as `own` did
        assert history(resident, env_for(home)) == expected
        assert "[UNCHANGED] app.py" in expected[1] and "app.py changed" in expected[2] and "[UNCHANGED]" in expected[3]
        # answered by the server: the hook process itself never loaded the read path
        out, err = hook("claude-pre-read", read_payload(resident, "app.py", "toolu_9"), resident, env_for(home),
                        importtime=True)
        assert "[UNCHANGED] app.py" in decision(out)["permissionDecisionReason"]
        assert "symbolpack.api.operations" not in err and "symbolpack.integrations.claude.client" in err
    finally:
        stop(home)


CLIENT = PACKAGE_ROOT / "symbolpack" / "integrations" / "claude" / "client.py"


def fast_hook(name: str, payload, root: Path, env: dict, importtime: bool = False) -> tuple[str, str]:
    """The hook command `tldrs install claude` writes: `<python> -S .../claude/client.py NAME`."""
    cmd = [sys.executable, "-S", *(["-X", "importtime"] if importtime else []), str(CLIENT), name]
    env = {k: v for k, v in env.items() if k != "PYTHONPATH"}  # the file finds its package itself
    proc = subprocess.run(cmd, input=payload if isinstance(payload, str) else json.dumps(payload),
                          capture_output=True, text=True, cwd=root, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def test_the_hook_client_file_run_without_site_answers_as_tldrs_hook_does(make_repo, tmp_path):
    own, fast, home = twin_projects(make_repo, tmp_path, "fast")
    try:
        expected = history(own, env_for(home, server=False))
        answers = []
        for step in range(4):  # the first runs the hook itself (no server yet) and starts one
            if step == 2:
                path = fast / "app.py"
                path.write_text(path.read_text().replace("    total += 3\n", "    total += 333\n", 1))
            out, _ = fast_hook("claude-pre-read", read_payload(fast, "app.py", f"toolu_{step}"), fast, env_for(home))
            got = decision(out)
            answers.append(got and got["permissionDecisionReason"].replace(str(fast), "ROOT"))
            if step == 0:
                wait_for_server(home)
        assert answers == expected
        # answered by the server: nothing of the package is imported, nor `site`
        out, err = fast_hook("claude-pre-read", read_payload(fast, "app.py", "toolu_9"), fast, env_for(home),
                             importtime=True)
        assert "[UNCHANGED] app.py" in decision(out)["permissionDecisionReason"]
        assert "symbolpack" not in err and " site\n" not in err and "| site" not in err
        for bad in ("{not json", ""):  # fail open: no decision, no traceback
            out, err = fast_hook("claude-pre-read", bad, fast, env_for(home))
            assert out == "" and "Traceback" not in err
        stop(home)
        out, err = fast_hook("claude-pre-read", "{not json", fast, env_for(home, server=False))
        assert out == "" and "Traceback" not in err  # run here, from the package
    finally:
        stop(home)


def test_an_answer_the_client_never_delivered_is_not_committed_by_the_server(make_repo, tmp_path):
    root = make_repo({"app.py": module(funcs=40, lines=30)})
    home = tmp_path / "home"
    home.mkdir()
    env = env_for(home)
    try:
        hook("claude-pre-read", read_payload(root, "app.py", "toolu_1"), root, env)
        wait_for_server(home)
        path = root / "app.py"
        path.write_text(path.read_text().replace("    total += 3\n", "    total += 333\n", 1))
        read_end, write_end = os.pipe()
        proc = subprocess.Popen([sys.executable, "-m", "symbolpack.cli", "hook", "claude-pre-read"],
                                stdin=subprocess.PIPE, stdout=write_end, stderr=subprocess.PIPE, cwd=root, env=env)
        os.close(write_end)
        os.close(read_end)  # nobody reads the answer: the client's write fails
        proc.communicate(json.dumps(read_payload(root, "app.py", "toolu_2")).encode(), timeout=60)
        assert proc.returncode == 0
        # the [DELTA] never arrived: its lines are unsure, so the next read is plain (native), not [UNCHANGED]
        assert decision(hook("claude-pre-read", read_payload(root, "app.py", "toolu_3"), root, env)[0]) is None
        assert "[UNCHANGED]" in decision(hook("claude-pre-read", read_payload(root, "app.py", "toolu_4"), root,
                                              env)[0])["permissionDecisionReason"]
    finally:
        stop(home)


def test_without_a_server_or_with_a_dead_socket_the_hook_runs_itself(make_repo, tmp_path):
    root = make_repo({"app.py": module(funcs=40, lines=30)})
    home = tmp_path / "home"
    home.mkdir()
    env = env_for(home, server=False)
    hook("claude-pre-read", read_payload(root, "app.py", "toolu_1"), root, env)
    assert socket_of(home) is None  # turned off: none started
    env = env_for(home)
    code = ("from symbolpack.integrations.claude import client; import os; p = client.socket_path(); "
            "os.makedirs(os.path.dirname(p), exist_ok=True); open(p, 'w').close(); "
            "open(p + '.started', 'w').close(); print(p)")
    dead = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert Path(dead.stdout.strip()).exists()  # a file where the socket should be: nobody listens
    out, _ = hook("claude-pre-read", read_payload(root, "app.py", "toolu_2"), root, env)
    assert "[UNCHANGED] app.py" in decision(out)["permissionDecisionReason"]  # answered all the same


def test_a_server_whose_code_changed_refuses_and_the_hook_runs_itself(tmp_path, monkeypatch):
    from symbolpack.integrations.claude import client, server

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.delenv("SYMBOLPACK_HOOK_SERVER", raising=False)
    here = os.getcwd()
    hooks = server.HookServer(client.socket_path(), idle=30)
    try:
        assert hooks.bind()
        assert not server.HookServer(client.socket_path()).bind()  # one server per socket
    finally:
        os.chdir(here)
    thread = threading.Thread(target=hooks.serve, daemon=True)
    thread.start()
    try:
        hooks.code_is_stale()  # the files as loaded
        assert client.offer("claude-session-start", b"{}")  # taken (no decision for an empty payload)
        a_module = next(f for f in hooks.code)
        hooks.code[a_module] = (0, 0)  # as if the file changed since it was loaded
        assert not client.offer("claude-session-start", b"{}")  # refused: the caller runs the hook itself
        thread.join(5)
        assert not thread.is_alive()  # and the stale server ended
    finally:
        hooks.stopping = True
        os.chdir(here)


def test_the_server_takes_no_request_it_cannot_read(tmp_path, monkeypatch):
    from symbolpack.integrations.claude import client, server

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    here = os.getcwd()
    hooks = server.HookServer(client.socket_path(), idle=30)
    try:
        assert hooks.bind()
    finally:
        os.chdir(here)
    thread = threading.Thread(target=hooks.serve, daemon=True)
    thread.start()
    try:
        sock = client._connect(client.socket_path())
        assert sock is not None
        try:
            sock.sendall(b"GET / HTTP/1.0\n\n")
            assert sock.recv(16) == client.REFUSED
        finally:
            sock.close()
    finally:
        hooks.stopping = True
        thread.join(5)
        os.chdir(here)

