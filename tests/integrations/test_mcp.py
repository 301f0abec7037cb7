"""The MCP server, driven by the official SDK's own stdio client (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is an optional extra: pip install 'symbolpack[mcp]'")

import anyio  # noqa: E402  (installed with mcp)
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

import symbolpack  # noqa: E402

PACKAGE_ROOT = Path(symbolpack.__file__).resolve().parents[1]
TOOLS = {"read_file", "context", "diff_context", "search_symbols", "refresh", "session_status"}


def body(n: int) -> str:
    return "".join(f"    total += {i}\n" for i in range(n))


SOURCE = "".join(f"def func{k}(total):\n{body(14)}    return helper(total)\n\n\n" for k in range(6)) + \
    "def helper(total):\n    return total * 2\n"


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID")}
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def server_params(root: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "symbolpack.integrations.mcp_server", *extra],
                                 cwd=str(root), env=_env())


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def with_session(root: Path, script, *extra: str):
    async def main():
        async with stdio_client(server_params(root, *extra)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await script(session)

    return anyio.run(main)


@pytest.fixture
def repo(make_repo):
    return make_repo({"app.py": SOURCE})


def test_round_trip_with_the_official_client(repo):
    async def script(s: ClientSession):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert set(tools) == TOOLS
        desc = tools["read_file"].description
        assert "[UNCHANGED]" in desc and "[DELTA]" in desc and "symbol=" in desc
        assert set(tools["read_file"].inputSchema["properties"]) >= {"path", "offset", "limit", "symbol"}

        first = text_of(await s.call_tool("read_file", {"path": "app.py"}))
        assert first.startswith("[SKELETON]") and " elided: --symbol " in first
        again = text_of(await s.call_tool("read_file", {"path": "app.py"}))
        assert again.startswith("[UNCHANGED] app.py")

        path = repo / "app.py"
        path.write_text(path.read_text().replace("    total += 3\n", "    total += 333\n", 1))
        note = text_of(await s.call_tool("read_file", {"path": "app.py"}))
        # the change is inside func0's body, which the skeleton hid: named, not shown
        assert note == "[UNCHANGED] app.py. Changed inside code you have not read (still elided): func0."
        opened = text_of(await s.call_tool("read_file", {"path": "app.py", "symbol": "func0"}))
        assert "total += 333" in opened

        drill = text_of(await s.call_tool("read_file", {"path": "app.py", "symbol": "func4"}))
        assert "def func4(total):" in drill and "total += 13" in drill

        status = json.loads(text_of(await s.call_tool("session_status", {})))
        assert status["reads"] == 5 and status["drill_ins"] == 2
        assert status["session_id"].startswith("mcp-")

        found = text_of(await s.call_tool("search_symbols", {"query": "helper"}))
        assert found.splitlines()[0].startswith("app.py:") and "helper" in found

        msg = text_of(await s.call_tool("refresh", {"path": "app.py"}))
        assert "full read" in msg
        full = text_of(await s.call_tool("read_file", {"path": str(path)}))
        assert full.startswith("     1\tdef func0(total):")

        missing = await s.call_tool("read_file", {"path": "nope.py"})
        assert missing.isError and "no such file" in text_of(missing)

    with_session(repo, script)


def test_each_connection_is_its_own_session_unless_one_is_named(repo):
    async def read_twice(s: ClientSession):
        return [text_of(await s.call_tool("read_file", {"path": "app.py", "offset": 1, "limit": 30}))
                for _ in range(2)]

    first = with_session(repo, read_twice)
    assert not first[0].startswith("[UNCHANGED]") and first[1].startswith("[UNCHANGED]")
    second = with_session(repo, read_twice)  # a new connection: nothing seen yet
    assert not second[0].startswith("[UNCHANGED]")

    async def named(s: ClientSession):
        return text_of(await s.call_tool("read_file", {"path": "app.py", "offset": 1, "limit": 30,
                                                         "session_id": "shared-1"}))

    assert not with_session(repo, named).startswith("[UNCHANGED]")
    assert with_session(repo, named).startswith("[UNCHANGED]")  # the named session outlives the connection

    async def unnamed(s: ClientSession):
        return text_of(await s.call_tool("read_file", {"path": "app.py", "offset": 1, "limit": 30}))

    assert with_session(repo, unnamed, "--session-id", "shared-1").startswith("[UNCHANGED]")  # server default

    async def bad(s: ClientSession):
        return await s.call_tool("read_file", {"path": "app.py", "session_id": "../etc"})

    assert with_session(repo, bad).isError


def test_context_tools(repo):
    async def script(s: ClientSession):
        pack = text_of(await s.call_tool("context", {"entry": "func2"}))
        assert "func2" in pack and "helper" in pack
        path = repo / "app.py"
        path.write_text(path.read_text().replace("return total * 2", "return total * 3"))
        diff = await s.call_tool("diff_context", {})
        assert not diff.isError and "total * 3" in text_of(diff)
        plain = await s.call_tool("diff_context", {"no_delta": True, "budget": 4000})
        assert not plain.isError and "total * 3" in text_of(plain)

    with_session(repo, script)


def test_stdout_carries_only_the_protocol(repo):
    """Raw JSON-RPC over the pipes: every stdout line is a JSON-RPC message, even
    when a tool's work prints to stdout (a patched operation) or warns (a corrupt session)."""
    state = repo / ".symbolpack" / "sessions"
    state.mkdir(parents=True)
    (state / "noisy.json").write_text("{corrupt")
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "read_file", "arguments": {"path": "app.py", "session_id": "noisy"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "session_status", "arguments": {}}},
    ]
    noisy_server = (
        "import os, sys\n"
        "from symbolpack.api import operations\n"
        "status = operations.status\n"
        "def noisy(*args, **kwargs):\n"
        "    print('stray print'); sys.stdout.flush(); os.write(1, b'stray fd write\\n')\n"
        "    return status(*args, **kwargs)\n"
        "operations.status = noisy\n"
        "from symbolpack.integrations.mcp_server import main\n"
        "sys.exit(main())\n")
    proc = subprocess.Popen([sys.executable, "-c", noisy_server], cwd=repo, env=_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killer = threading.Timer(60, proc.kill)
    killer.start()
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        replies = []
        while not {3, 4} <= {r.get("id") for r in replies}:
            line = proc.stdout.readline()
            assert line, "the server closed stdout before answering"
            replies.append(json.loads(line))  # raises if anything but JSON-RPC reached stdout
        rest, stderr = proc.communicate(timeout=30)  # closes stdin: the server ends
        replies += [json.loads(line) for line in rest.splitlines() if line.strip()]
    finally:
        killer.cancel()
        if proc.poll() is None:
            proc.kill()
    assert all(r.get("jsonrpc") == "2.0" for r in replies)
    assert {r.get("id") for r in replies} >= {1, 2, 3, 4}
    call = next(r for r in replies if r.get("id") == 3)
    assert "[SKELETON]" in call["result"]["content"][0]["text"] or "def func0" in call["result"]["content"][0]["text"]
    assert "moved aside" in stderr and "stray print" in stderr and "stray fd write" in stderr
    assert "Processing request" not in stderr  # the SDK's per-request log lines are off (SYMBOLPACK_LOG=debug)


DYING_SERVER = (
    "import os, sys\n"
    "import mcp.server.stdio as stdio\n"
    "real = stdio.stdio_server\n"
    "class Dying:\n"
    "    def __init__(self, out):\n"
    "        self.out = out\n"
    "    async def write(self, text):\n"
    "        if text.startswith('{\"jsonrpc\":\"2.0\",\"id\":2,\"result\"'):\n"
    "            os._exit(9)  # killed while delivering the answer to the tool call\n"
    "        return await self.out.write(text)\n"
    "    async def flush(self):\n"
    "        return await self.out.flush()\n"
    "def dying(stdin=None, stdout=None):\n"
    "    return real(stdin=stdin, stdout=Dying(stdout))\n"
    "stdio.stdio_server = dying\n"
    "from symbolpack.integrations.mcp_server import main\n"
    "sys.exit(main())\n")


@pytest.mark.parametrize("tool,arguments", [("read_file", {"path": "app.py"}), ("context", {"entry": "func2"})])
def test_an_answer_that_never_reached_the_client_is_not_trusted(repo, tool, arguments):
    """A read (or pack) is committed only after its response was written and flushed:
    a server killed while answering leaves the lines pending (unsure)."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": tool, "arguments": {**arguments, "session_id": "crash-1"}}},
    ]
    proc = subprocess.Popen([sys.executable, "-c", DYING_SERVER], cwd=repo, env=_env(), text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()  # stdin stays open: the server ends only by dying
        code = proc.wait(timeout=60)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdin.close()
    assert code == 9, err
    assert all(json.loads(line).get("id") != 2 for line in out.splitlines() if line.strip())

    async def again(s: ClientSession):
        return [text_of(await s.call_tool(tool, {**arguments, "session_id": "crash-1"})) for _ in range(2)]

    first, second = with_session(repo, again)
    if tool == "read_file":
        assert first.startswith("     1\tdef func0(total):")  # plain: the skeleton may never have arrived
        assert second.startswith("[UNCHANGED] app.py")  # that one was delivered
    else:
        assert "[UNCHANGED]" not in first and "total += 13" in first  # the code again, in full
        assert "-- [UNCHANGED] app.py" in second and second.endswith("2 symbols, 2 [UNCHANGED] ==")


UTIL = "from app import helper\n\n\ndef twice(total):\n    return helper(total) + helper(total)\n"


def _history():
    """One session's calls, the same through the CLI and through MCP: reads of every
    kind, packs, and edits between them. (kind, arguments) or ("edit", (path, old, new))."""
    return [
        ("read_file", {"path": "app.py"}),
        ("read_file", {"path": "app.py"}),
        ("read_file", {"path": "app.py", "symbol": "func1"}),
        ("edit", ("app.py", "    total += 3\n", "    total += 333\n")),
        ("read_file", {"path": "app.py"}),
        ("read_file", {"path": "app.py", "offset": 2, "limit": 6}),
        ("context", {"entry": "twice"}),
        ("edit", ("app.py", "return total * 2", "return total * 5")),
        ("context", {"entry": "twice"}),
        ("read_file", {"path": "util.py"}),
        ("diff_context", {}),
        ("read_file", {"path": "app.py"}),
    ]


def _cli_args(kind: str, args: dict) -> list[str]:
    if kind == "read_file":
        out = ["read", args["path"]]
        for key in ("symbol", "offset", "limit"):
            if key in args:
                out += [f"--{key}", str(args[key])]
        return out
    if kind == "context":
        return ["context", args["entry"]]
    return ["diff-context"]


def test_answers_are_the_cli_answers_for_the_same_history(make_repo):
    files = {"app.py": SOURCE, "util.py": UTIL}
    cli_root, mcp_root = make_repo(files, name="cli"), make_repo(files, name="mcp")

    def apply(root, path, old, new):
        p = root / path
        p.write_text(p.read_text().replace(old, new, 1))

    cli_answers = []
    for kind, args in _history():
        if kind == "edit":
            apply(cli_root, *args)
            continue
        proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", *_cli_args(kind, args), "--session-id", "same"],
                              cwd=cli_root, env=_env(), capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        cli_answers.append(proc.stdout.rstrip("\n"))

    async def script(s: ClientSession):
        answers = []
        for kind, args in _history():
            if kind == "edit":
                apply(mcp_root, *args)
                continue
            result = await s.call_tool(kind, {**args, "session_id": "same"})
            assert not result.isError, text_of(result)
            answers.append(text_of(result).rstrip("\n"))
        return answers

    mcp_answers = with_session(mcp_root, script)
    assert mcp_answers == cli_answers
    # the history reaches the interesting answers: a skeleton, a named hidden change, packs with stubs
    assert mcp_answers[0].startswith("[SKELETON] app.py")
    assert mcp_answers[3].endswith("Changed inside code you have not read (still elided): func0.")
    assert "-- [UNCHANGED] util.py:4-5 function twice [entry]" in mcp_answers[6]
