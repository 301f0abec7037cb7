"""The MCP server (`mcp_server`, `mcp/protocol.py`, `mcp/tools.py`, `mcp/roots.py` together),
driven over real stdio: by the official SDK's own client, and by raw JSON-RPC lines
where a test needs to see or break the protocol itself.

Every text the server answers with in this module is recorded (`RECORDED`); the last
test checks that none of it speaks the CLI's language (`--flag`, `tldrs `)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError

import symbolpack

PACKAGE_ROOT = Path(symbolpack.__file__).resolve().parents[1]
TOOLS = {"read_file", "context", "diff_context", "search_symbols", "refresh", "session_status"}
RECORDED: list[str] = []  # every text an answer of this module carried


def body(n: int) -> str:
    return "".join(f"    total += {i}\n" for i in range(n))


SOURCE = "".join(f"def func{k}(total):\n{body(14)}    return helper(total)\n\n\n" for k in range(6)) + \
    "def helper(total):\n    return total * 2\n"


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID", "SYMBOLPACK_MCP_ALLOW_DIRS")}
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra)
    return env


def server_params(root: Path, *extra: str, env: dict | None = None, command: list[str] | None = None):
    command = command or [sys.executable, "-m", "symbolpack.integrations.mcp_server"]
    return StdioServerParameters(command=command[0], args=[*command[1:], *extra], cwd=str(root),
                                 env=env or _env())


def text_of(result) -> str:
    text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    RECORDED.append(text)
    return text


def answer_id(text: str) -> str:
    """The id an answer's last line gives the model to pass back in `known`."""
    last = text.splitlines()[-1]
    assert last.startswith("[answer "), text
    return last[len("[answer "):].split("]")[0].split(";")[0].split(":")[0]


def content(text: str) -> str:
    """An answer without its id line, and without the `[FILE]` line that says why a
    whole file came back after ids (both are MCP's framing, `reads.hints.with_answer_id`)."""
    text = text.rpartition("\n[answer ")[0] if "\n[answer " in text else text
    return text.partition("\n")[2] if text.startswith("[FILE] ") else text


def with_session(root: Path, script, *extra: str, env: dict | None = None, command: list[str] | None = None,
                 roots=None):
    """Run `script(session)` against a fresh server; with *roots* (a list of directories,
    or a callable returning one), the client declares the roots capability."""
    async def list_roots(context):
        dirs = roots() if callable(roots) else roots
        return types.ListRootsResult(roots=[types.Root(uri=Path(d).as_uri()) for d in dirs])

    async def main():
        async with stdio_client(server_params(root, *extra, env=env, command=command)) as (read, write):
            async with ClientSession(read, write, list_roots_callback=list_roots if roots is not None else None) \
                    as session:
                session.initialize_result = await session.initialize()
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
        assert "[UNCHANGED]" in desc and "[DELTA]" in desc and 'symbol="NAME"' in desc
        assert set(tools["read_file"].inputSchema["properties"]) == {"path", "offset", "limit", "symbol",
                                                                      "symbols", "known", "session_id"}

        first = text_of(await s.call_tool("read_file", {"path": "app.py"}))
        assert first.startswith("[SKELETON]") and ' elided: symbol="func0"' in first
        again = text_of(await s.call_tool("read_file", {"path": "app.py", "known": [answer_id(first)]}))
        assert again.startswith("[UNCHANGED] app.py") and f"; relies on {answer_id(first)}] Next read" in again
        known = [answer_id(first), answer_id(again)]

        path = repo / "app.py"
        path.write_text(path.read_text().replace("    total += 3\n", "    total += 333\n", 1))
        note = text_of(await s.call_tool("read_file", {"path": "app.py", "known": known}))
        # the change is inside func0's body, which the skeleton hid: named, not shown
        assert content(note) == ("[CHANGED] app.py: only inside code you have not read (still elided): func0."
                                 " Every line you were shown is unchanged.")
        opened = text_of(await s.call_tool("read_file", {"path": "app.py", "symbol": "func0", "known": known}))
        assert "total += 333" in opened

        drill = text_of(await s.call_tool("read_file", {"path": "app.py", "symbol": "func4"}))
        assert "def func4(total):" in drill and "total += 13" in drill

        status = json.loads(text_of(await s.call_tool("session_status", {})))
        assert status["reads"] == 5 and status["drill_ins"] == 2
        assert status["session_id"].startswith("mcp-")

        found = text_of(await s.call_tool("search_symbols", {"query": "helper"}))
        assert found.splitlines()[0].startswith("app.py:") and "helper" in found

        msg = text_of(await s.call_tool("refresh", {"path": "app.py"}))
        assert msg == "app.py: forgotten; the next read of the whole file leans on nothing you were shown of it before"
        fresh = text_of(await s.call_tool("read_file", {"path": str(path), "known": known}))
        assert fresh.startswith("[SKELETON] app.py") and "relies on" not in fresh  # the refresh outranks the ids

        missing = await s.call_tool("read_file", {"path": "nope.py"})
        assert missing.isError and "no such file" in text_of(missing)

    with_session(repo, script)


def test_server_info_names_symbolpack_and_its_version(repo):
    """Through the installed console script, as hosts start it (`tldrs mcp`)."""
    tldrs = Path(sys.executable).with_name("tldrs")

    async def script(s: ClientSession):
        return s.initialize_result

    init = with_session(repo, script, "mcp", command=[str(tldrs)])
    assert (init.serverInfo.name, init.serverInfo.version) == ("symbolpack", symbolpack.__version__)
    assert init.protocolVersion == types.LATEST_PROTOCOL_VERSION  # the client's, which the server supports
    assert init.capabilities.tools is not None and init.capabilities.tools.listChanged is False
    assert init.instructions.startswith("symbolpack reads code for you")


def test_every_tool_is_annotated_read_only(repo):
    async def script(s: ClientSession):
        return (await s.list_tools()).tools

    tools = with_session(repo, script)
    for tool in tools:
        a = tool.annotations
        assert a is not None and a.title, tool.name
        assert (a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint) == (True, False, True, False)
        assert tool.inputSchema["type"] == "object" and tool.inputSchema["additionalProperties"] is False
    schemas = {t.name: t.inputSchema for t in tools}
    assert schemas["context"]["required"] == ["entry"] and schemas["context"]["properties"]["depth"]["default"] == 2
    assert schemas["diff_context"]["properties"]["base"]["default"] == "HEAD"
    assert schemas["session_status"]["required"] == []


BAD_ARGUMENTS = [
    ("read_file", {}, 'read_file: missing required argument "path"'),
    ("read_file", {"path": "app.py", "offset": "abc"}, 'read_file: argument "offset" must be an integer, got "abc"'),
    ("read_file", {"path": "app.py", "offset": 0}, 'read_file: argument "offset" must be at least 1, got 0'),
    ("read_file", {"path": "app.py", "limit": True}, 'read_file: argument "limit" must be an integer, got true'),
    ("read_file", {"path": 7}, 'read_file: argument "path" must be a string, got 7'),
    ("read_file", {"path": ""}, 'read_file: argument "path" must not be empty'),
    ("read_file", {"path": "app.py", "offest": 3},
     'read_file: unknown argument "offest"; it takes path, offset, limit, symbol, symbols, known, session_id'),
    ("context", {"entry": "func2", "depth": -1}, 'context: argument "depth" must be at least 0, got -1'),
    ("diff_context", {"no_delta": "yes"}, 'diff_context: argument "no_delta" must be true or false, got "yes"'),
    ("search_symbols", {"query": "helper", "limit": 0}, 'search_symbols: argument "limit" must be at least 1, got 0'),
    ("session_status", {"session_id": "../etc"},
     "invalid session id '../etc': use 1-128 characters from A-Z a-z 0-9 . _ -"),
]


def test_bad_arguments_are_one_clear_line(repo):
    async def script(s: ClientSession):
        return [await s.call_tool(tool, args) for tool, args, _ in BAD_ARGUMENTS]

    results = with_session(repo, script)
    for (tool, args, expected), result in zip(BAD_ARGUMENTS, results):
        assert result.isError, (tool, args)
        assert text_of(result) == expected


def test_reads_outside_the_workspace_are_refused(repo, tmp_path):
    outside = tmp_path / "elsewhere" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text("not yours\n")
    (repo / "link.txt").symlink_to(outside)  # inside by name, outside once resolved

    async def script(s: ClientSession):
        return [await s.call_tool(tool, args) for tool, args in (
            ("read_file", {"path": str(outside)}),
            ("read_file", {"path": "link.txt"}),
            ("read_file", {"path": "../elsewhere/secret.txt"}),
            ("refresh", {"path": str(outside)}),
            ("read_file", {"path": "app.py", "offset": 1, "limit": 2}))]

    *refused, inside = with_session(repo, script)
    real_repo = os.path.realpath(repo)
    how = ("to allow it, add a directory to mcp_allow_dirs ([tool.symbolpack] in pyproject.toml, "
           "or SYMBOLPACK_MCP_ALLOW_DIRS)")
    assert [text_of(r) for r in refused] == [
        f"{outside} is outside the workspace ({real_repo}); {how}",
        f"{repo / 'link.txt'} is outside the workspace ({real_repo}); {how}",
        f"{repo / '../elsewhere/secret.txt'} is outside the workspace ({real_repo}); {how}",
        f"{outside} is outside the workspace ({real_repo}); {how}"]
    assert all(r.isError for r in refused)
    assert not inside.isError and text_of(inside).startswith("     1\tdef func0(total):")

    async def allowed(s: ClientSession):
        return text_of(await s.call_tool("read_file", {"path": "link.txt"}))

    env = _env(SYMBOLPACK_MCP_ALLOW_DIRS=str(outside.parent))
    assert content(with_session(repo, allowed, env=env)) == "     1\tnot yours"


def test_the_clients_roots_are_the_workspace(repo, tmp_path):
    """A client that declares roots is asked for them: files under its roots are read,
    the server's own project outside them is not; a changed list is asked for again."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.py").write_text("def note():\n    return 1\n")
    current = [other]

    async def script(s: ClientSession):
        in_root = await s.call_tool("read_file", {"path": str(other / "notes.py")})
        project = await s.call_tool("read_file", {"path": "app.py"})
        current[:] = [repo]
        await s.send_roots_list_changed()
        await s.send_ping()  # answered after the notification was read: the roots are being asked for
        after = [await s.call_tool("read_file", {"path": p}) for p in ("app.py", str(other / "notes.py"))]
        return in_root, project, after

    in_root, project, (now_in, now_out) = with_session(repo, script, roots=lambda: list(current))
    assert not in_root.isError and content(text_of(in_root)) == "     1\tdef note():\n     2\t    return 1"
    assert project.isError and text_of(project).startswith(
        f"{repo / 'app.py'} is outside the workspace ({os.path.realpath(other)});")
    assert not now_in.isError and text_of(now_in).startswith("[SKELETON] app.py")
    assert now_out.isError and "is outside the workspace" in text_of(now_out)


def test_answers_lean_only_on_the_ids_the_model_passes(repo):
    """A re-read leans on earlier answers only through `known`: without ids (a compaction
    dropped them, a new conversation) it is a first read again, in the same connection
    or another; with the ids of answers from another connection (a resumed
    conversation that still shows them) it leans on those; an id the model invents
    or one of another file counts for nothing; a named session changes none of this."""
    async def read(s: ClientSession, known=None, path="app.py", **more):
        args = {"path": path, **more, **({} if known is None else {"known": known})}
        return text_of(await s.call_tool("read_file", args))

    async def first_connection(s: ClientSession):
        first = await read(s)
        again = await read(s, [answer_id(first)])
        dropped = await read(s)  # after a compaction the model sees neither answer
        return first, again, dropped

    first, again, dropped = with_session(repo, first_connection)
    assert first.startswith("[SKELETON] app.py") and again.startswith("[UNCHANGED] app.py")
    assert dropped.startswith("[SKELETON] app.py")
    (repo / "other.py").write_text("def other():\n    return 1\n")

    async def resumed(s: ClientSession):
        held = await read(s, [answer_id(first)], session_id="shared-1")
        invented = await read(s, ["abcdefgh", "k2k2k2k2"])
        only_marker = await read(s, [answer_id(again)])  # the marker without the answer it points at
        other = await read(s, path="other.py")
        foreign = await read(s, [answer_id(other)])  # an id of another file's answer
        return held, invented, only_marker, foreign

    held, invented, only_marker, foreign = with_session(repo, resumed)
    assert held.startswith("[UNCHANGED] app.py") and held.endswith(f"; relies on {answer_id(first)}] Next read of this file: known=[\"{answer_id(first)}\", \"{answer_id(held)}\"]")
    for text in (invented, only_marker, foreign):
        assert text.startswith("[SKELETON] app.py") and "relies on" not in text


def test_several_symbols_in_one_call_each_an_answer_the_next_read_leans_on(repo):
    """`symbols=[...]`: the bodies a skeleton hid, read whole in one call (a call each
    cost real agents a re-sent context each), each under its own id, in source order
    whatever order they were asked in; the next whole read passes them and leans on
    them, a body changed after the skeleton included."""
    async def script(s: ClientSession):
        first = text_of(await s.call_tool("read_file", {"path": "app.py"}))
        path = repo / "app.py"
        path.write_text(path.read_text().replace("    total += 3\n", "    total += 333\n", 1))
        both = text_of(await s.call_tool("read_file", {"path": "app.py", "symbols": ["func4", "func0"],
                                                       "known": [answer_id(first)]}))
        next_ids = json.loads(both.splitlines()[-1].split("known=")[1])
        again = text_of(await s.call_tool("read_file", {"path": "app.py", "known": next_ids}))
        mixed = text_of(await s.call_tool("read_file", {"path": "app.py", "symbol": "func0", "limit": 3}))
        return first, both, next_ids, again, mixed

    first, both, next_ids, again, mixed = with_session(repo, script)
    lines = both.splitlines()
    assert lines[0] == ("[SYMBOLS] app.py: 2 symbols, each whole, as it is now: func0 (lines 1-16), "
                        "func4 (lines 73-88).")
    ids = [line[len("[answer "):].split(":")[0] for line in lines if line.startswith("[answer ")]
    assert [line for line in lines if line.startswith("[answer ")] == [
        f"[answer {ids[0]}: lines 1-16, as they are now]", f"[answer {ids[1]}: lines 73-88, as they are now]"]
    assert "     5\t    total += 333" in lines and "    73\tdef func4(total):" in lines
    assert next_ids == [answer_id(first), *ids]
    assert again.startswith("[UNCHANGED] app.py")
    assert content(mixed).splitlines() == both.splitlines()[1:17]  # a symbol is whole, whatever the limit


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


# -- raw JSON-RPC over the pipes

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class RawClient:
    """A server process spoken to line by line; every answer's texts are recorded."""

    def __init__(self, root: Path, code: str | None = None, args: tuple[str, ...] = ()):
        cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "symbolpack.integrations.mcp_server"]
        self.proc = subprocess.Popen([*cmd, *args], cwd=root, env=_env(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.killer = threading.Timer(120, self.proc.kill)  # a hung server fails the test, never hangs it
        self.killer.start()
        self.seen: list[dict] = []

    def send(self, *messages: dict | bytes) -> None:
        data = b"".join(m if isinstance(m, bytes) else json.dumps(m).encode() + b"\n" for m in messages)
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def receive(self) -> dict:
        line = self.proc.stdout.readline()
        assert line, "the server closed stdout: " + self.proc.stderr.read().decode()[-2000:]
        message = json.loads(line)  # raises if anything but JSON reached stdout
        self.seen.append(message)
        for c in (message.get("result") or {}).get("content") or ():
            RECORDED.append(c.get("text", ""))
        if "error" in message:
            RECORDED.append(message["error"]["message"])
        return message

    def answer_to(self, request_id) -> dict:
        while True:
            message = self.receive()
            if message.get("id") == request_id and "method" not in message:
                return message

    def close(self) -> tuple[list[dict], str]:
        """Close stdin (the server ends); the remaining messages and stderr."""
        try:
            rest, err = self.proc.communicate(timeout=60)
        finally:
            self.killer.cancel()
            if self.proc.poll() is None:
                self.proc.kill()
        more = [json.loads(line) for line in rest.decode().splitlines() if line.strip()]
        self.seen += more
        return more, err.decode()


def test_protocol_errors_and_version_negotiation(repo):
    client = RawClient(repo)
    client.send({**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "1999-01-01"}}, INITIALIZED)
    assert client.answer_to(1)["result"]["protocolVersion"] == "2025-11-25"  # unknown: our latest
    client.send({"jsonrpc": "2.0", "id": 2, "method": "ping"},
                b"this is not json\n",
                {"jsonrpc": "2.0", "id": 3, "method": "no/such/method"},
                {"id": 4, "method": "ping"},
                {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"arguments": {}}},
                {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "rm_rf", "arguments": {}}},
                {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": ["read_file"]},
                [{"jsonrpc": "2.0", "id": 8, "method": "ping"}],
                {"jsonrpc": "2.0", "id": 9, "method": "prompts/list"},
                {"jsonrpc": "2.0", "id": 10, "method": "resources/list"},
                {"jsonrpc": "2.0", "id": 11, "method": "initialize", "params": {
                    **INITIALIZE["params"], "protocolVersion": "2024-11-05"}})
    replies = [client.receive() for _ in range(11)]
    more, _ = client.close()
    assert more == []
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    nulls = [r["error"] for r in replies if r["id"] is None]
    assert by_id[2]["result"] == {}
    assert by_id[3]["error"] == {"code": -32601, "message": "Method not found: no/such/method"}
    assert by_id[4]["error"]["code"] == -32600
    assert by_id[5]["error"] == {"code": -32602, "message": "Invalid params for tools/call: name must be a string"}
    assert by_id[6]["error"] == {"code": -32602, "message": "Unknown tool: rm_rf"}
    assert by_id[7]["error"]["code"] == -32602
    assert by_id[9]["result"] == {"prompts": []} and by_id[10]["result"] == {"resources": []}
    assert by_id[11]["result"]["protocolVersion"] == "2024-11-05"  # supported: the client's own
    assert [e["code"] for e in nulls] == [-32700, -32600]  # the garbage line, the batch


BLOCKING_SERVER = (
    "import os, sys, time\n"
    "from symbolpack.api import operations\n"
    "read = operations.read_file\n"
    "def blocking(ws, path, session, **kwargs):\n"
    "    if session.startswith('block'):\n"
    "        open(os.path.join(FLAGS, session + '.started'), 'w').close()\n"
    "        while not os.path.exists(os.path.join(FLAGS, session + '.go')):\n"
    "            time.sleep(0.01)\n"
    "    return read(ws, path, session, **kwargs)\n"
    "operations.read_file = blocking\n"
    "FLAGS = sys.argv[1]\n"
    "from symbolpack.integrations.mcp_server import main\n"
    "sys.exit(main([]))\n")


def test_a_tool_call_blocks_neither_ping_nor_cancellation(repo, tmp_path):
    """While one call runs (held on a flag file), ping and tools/list are answered; a
    cancelled call gets no answer, running or queued, and its read is not trusted."""
    flags = tmp_path / "flags"
    flags.mkdir()
    client = RawClient(repo, BLOCKING_SERVER, (str(flags),))

    def read(request_id: int, session: str) -> dict:
        return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                "params": {"name": "read_file", "arguments": {"path": "app.py", "session_id": session}}}

    def cancel(request_id: int) -> dict:
        return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}

    client.send(INITIALIZE, INITIALIZED, read(2, "block-1"), read(3, "queued-1"))
    client.answer_to(1)
    deadline = time.monotonic() + 60
    while not (flags / "block-1.started").exists():  # call 2 is running (held), call 3 is queued
        assert time.monotonic() < deadline, "the tool call never started"
        time.sleep(0.01)
    client.send(cancel(3), cancel(2), {"jsonrpc": "2.0", "id": 4, "method": "ping"},
                {"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
    assert client.receive() == {"jsonrpc": "2.0", "id": 4, "result": {}}
    assert len(client.receive()["result"]["tools"]) == 6
    (flags / "block-1.go").touch()
    client.send(read(6, "block-1"))
    answers = {6: client.answer_to(6)["result"]["content"][0]["text"]}
    known = {"known": [answer_id(answers[6])]}
    client.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                 "params": {"name": "read_file", "arguments": {"path": "app.py", **known}}})
    answers[7] = client.answer_to(7)["result"]["content"][0]["text"]
    more, err = client.close()
    assert all(m.get("id") not in (2, 3) for m in client.seen), "a cancelled call was answered"
    assert answers[6].startswith("[SKELETON] app.py"), err  # the model holds no answer of call 2: a first read
    assert answers[7].startswith("[UNCHANGED] app.py")  # and the server goes on delivering


def test_stdout_carries_only_the_protocol(repo):
    """Every stdout line is a JSON-RPC message, even when a tool's work prints to
    stdout (a patched operation) or warns (a corrupt session)."""
    state = repo / ".symbolpack" / "sessions"
    state.mkdir(parents=True)
    (state / "noisy.json").write_text("{corrupt")
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
    client = RawClient(repo, noisy_server)
    client.send(INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                    "name": "read_file", "arguments": {"path": "app.py", "session_id": "noisy"}}},
                {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "session_status",
                                                                               "arguments": {}}})
    call = client.answer_to(3)
    client.answer_to(4)
    _, stderr = client.close()
    assert all(r.get("jsonrpc") == "2.0" for r in client.seen)
    assert {r.get("id") for r in client.seen} == {1, 2, 3, 4}
    assert call["result"]["content"][0]["text"].startswith("     1\tdef func0(total):")  # a corrupt session: plain
    assert "moved aside" in stderr and "stray print" in stderr and "stray fd write" in stderr


def test_serving_imports_no_mcp_sdk(repo):
    """The server speaks MCP itself: a whole session (tools listed, a read, a pack)
    loads neither the SDK nor pydantic nor anyio; and when `initialize` and
    `tools/list` have been answered, nothing of the engine is loaded yet."""
    probe = (
        "import sys\n"
        "from symbolpack.integrations.mcp import tools\n"
        "from symbolpack.integrations.mcp_server import main\n"
        "started = tools.SymbolpackTools.start\n"
        "def start(self):\n"
        "    early = sorted(m for m in sys.modules if m.split('.')[0] in ('tree_sitter', 'mcp', 'pydantic')\n"
        "                   or m.startswith(('symbolpack.api', 'symbolpack.engine', 'symbolpack.reads')))\n"
        "    sys.stderr.write('EARLY=' + ','.join(early) + '\\n')\n"
        "    started(self)\n"
        "tools.SymbolpackTools.start = start\n"
        "code = main([])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'pydantic', 'anyio'})\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy) + '\\n')\n"
        "sys.exit(code)\n")
    client = RawClient(repo, probe)
    client.send(INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                    "name": "read_file", "arguments": {"path": "app.py"}}},
                {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
                    "name": "context", "arguments": {"entry": "func1"}}})
    assert "func1" in client.answer_to(4)["result"]["content"][0]["text"]
    _, stderr = client.close()
    assert "EARLY=\n" in stderr, stderr[-2000:]  # both answers were out before any of it loaded
    assert "HEAVY=\n" in stderr, stderr[-2000:]


def test_a_bad_default_session_is_one_line_and_exit_2(repo):
    proc = subprocess.run([str(Path(sys.executable).with_name("tldrs")), "mcp", "--session-id", "../x"], cwd=repo,
                          env=_env(), input="", capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "tldrs mcp: invalid session id '../x': use 1-128 characters from A-Z a-z 0-9 . _ -\n"


DYING_SERVER = (
    "import os, sys\n"
    "from symbolpack.integrations.mcp import server as mcp_server\n"
    "real = mcp_server.open_protocol_streams\n"
    "class Dying:\n"
    "    def __init__(self, out):\n"
    "        self.out = out\n"
    "    def write(self, data):\n"
    "        if data.startswith(b'{\"jsonrpc\":\"2.0\",\"id\":2,\"result\"'):\n"
    "            os._exit(9)  # killed while delivering the answer to the tool call\n"
    "        return self.out.write(data)\n"
    "    def flush(self):\n"
    "        return self.out.flush()\n"
    "def dying():\n"
    "    inp, out = real()\n"
    "    return inp, Dying(out)\n"
    "mcp_server.open_protocol_streams = dying\n"
    "sys.exit(mcp_server.main([]))\n")


@pytest.mark.parametrize("tool,arguments", [("read_file", {"path": "app.py"}), ("context", {"entry": "func2"})])
def test_an_answer_that_never_reached_the_client_is_not_trusted(repo, tool, arguments):
    """A server killed while answering: the model never saw that answer's id, so
    nothing leans on it; the next call is a first one, and the one after leans on it."""
    client = RawClient(repo, DYING_SERVER)
    client.send(INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": tool, "arguments": {**arguments, "session_id": "crash-1"}}})  # stdin stays open
    code = client.proc.wait(timeout=60)
    _, err = client.close()
    assert code == 9, err
    assert all(m.get("id") != 2 for m in client.seen)

    async def again(s: ClientSession):
        first = text_of(await s.call_tool(tool, {**arguments, "session_id": "crash-1"}))
        return first, text_of(await s.call_tool(tool, {**arguments, "known": [answer_id(first)]}))

    first, second = with_session(repo, again)
    if tool == "read_file":
        assert first.startswith("[SKELETON] app.py")  # a first read: the dying answer counts for nothing
        assert second.startswith("[UNCHANGED] app.py")  # that one was delivered
    else:
        assert "[UNCHANGED]" not in first and "total += 13" in first  # the code again, in full
        assert "-- [UNCHANGED] app.py" in second and content(second).endswith("2 symbols, 2 [UNCHANGED] ==")


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
    """The CLI asked to word its answers for MCP (`--front mcp`), given the same answer
    ids and present sets, answers exactly as the server, but for the id line. The model
    here passes every id it was given."""
    files = {"app.py": SOURCE, "util.py": UTIL}
    cli_root, mcp_root = make_repo(files, name="cli"), make_repo(files, name="mcp")

    def apply(root, path, old, new):
        p = root / path
        p.write_text(p.read_text().replace(old, new, 1))

    async def script(s: ClientSession):
        answers, known = [], []
        for kind, args in _history():
            if kind == "edit":
                apply(mcp_root, *args)
                continue
            result = await s.call_tool(kind, {**args, "known": list(known), "session_id": "same"})
            assert not result.isError, text_of(result)
            text = text_of(result)
            answers.append((content(text).rstrip("\n"), answer_id(text), list(known)))
            known.append(answer_id(text))
        return answers

    mcp_answers = with_session(mcp_root, script)
    cli_answers = []
    for kind, args in _history():
        if kind == "edit":
            apply(cli_root, *args)
            continue
        _, ident, known = mcp_answers[len(cli_answers)]
        proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", *_cli_args(kind, args), "--session-id", "same",
                               "--front", "mcp", "--answer-id", ident, "--present", ",".join(known)],
                              cwd=cli_root, env=_env(), capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        cli_answers.append(proc.stdout.rstrip("\n"))
    texts = [text for text, _, _ in mcp_answers]
    assert texts == cli_answers
    # the history reaches the interesting answers: a skeleton, a named hidden change, packs with stubs
    assert texts[0].startswith("[SKELETON] app.py")
    assert texts[3].endswith("(still elided): func0. Every line you were shown is unchanged.")
    assert "-- [UNCHANGED] util.py:4-5 function twice [entry]" in texts[6]


def test_no_answer_speaks_the_cli(make_repo):
    """No answer through MCP names a CLI flag or command: every text this module's
    tests were answered with, plus answers made to carry hints (skeleton markers and
    headers, packs that leave code out, range and budget errors, a file without
    symbols), the instructions and the tool list."""
    big = "".join(f"def step{k}(value):\n{body(30)}    return value\n\n\n" for k in range(40))
    root = make_repo({"app.py": SOURCE, "big.py": big, "notes.txt": "plain text\n" * 50})
    (root / "big.py").write_text(big.replace("total += 7\n", "total += 77\n"))
    (root / "new.py").write_text("def fresh():\n    return 1\n")

    async def script(s: ClientSession):
        calls = [("read_file", {"path": "big.py"}), ("read_file", {"path": "big.py", "offset": 5000}),
                 ("read_file", {"path": "notes.txt", "symbol": "x"}), ("read_file", {"path": "app.py",
                                                                                      "symbol": "nosuch"}),
                 ("context", {"entry": "step3", "budget": 60}), ("context", {"entry": "nosuch_symbol"}),
                 ("diff_context", {"budget": 40}), ("diff_context", {"base": "no-such-rev"}),
                 ("refresh", {"path": "big.py", "offset": 9000, "limit": 3}),
                 ("search_symbols", {"query": "zzzzqqq"}), ("read_file", {"path": "/etc/hostname"})]
        for tool, args in calls:
            text_of(await s.call_tool(tool, args))
        listed = (await s.list_tools()).model_dump_json()  # descriptions, schemas, annotations
        return [s.initialize_result.instructions, listed]

    texts = with_session(root, script)
    assert len(RECORDED) >= 11  # at least this test's own answers (the whole module's when it ran)
    flag, command = re.compile(r"--[a-z]"), "tldrs "
    offending = [t for t in RECORDED + texts if flag.search(t) or command in t]
    assert offending == [], "\n---\n".join(offending)[:4000]


def test_symbols_and_a_range_in_one_call(repo):
    """symbols=[...] with offset/limit reads the range too, as one more part of the same
    answer (a real agent that passed both got the symbol alone and read the range again)."""
    async def script(s: ClientSession):
        return text_of(await s.call_tool("read_file", {"path": "app.py", "symbols": ["func4"], "offset": 90,
                                                       "limit": 3}))

    both = with_session(repo, script)
    lines = both.splitlines()
    assert lines[0] == "[SYMBOLS] app.py, as it is now: func4 (lines 73-88), lines 90-92."
    assert [line for line in lines if line.startswith("[answer ")][1].endswith(": lines 90-92, as they are now]")
    assert "    91\tdef func5(total):" in lines and "    73\tdef func4(total):" in lines


def test_a_symbol_read_names_its_declaration_line_when_a_comment_leads(make_repo):
    """A symbol's lines start at its doc comment; the id line says where it is declared
    (real agents confirmed a function's line with a range read)."""
    root = make_repo({"doc.py": "import os\n\n\n# The helper.\n# It helps.\ndef helper(x):\n    return x\n"})

    async def script(s: ClientSession):
        return text_of(await s.call_tool("read_file", {"path": "doc.py", "symbol": "helper"}))

    answer = with_session(root, script)
    assert answer.splitlines()[:4] == ["     4\t# The helper.", "     5\t# It helps.", "     6\tdef helper(x):",
                                       "     7\t    return x"]
    assert answer.splitlines()[-1].startswith(f"[answer {answer_id(answer)}: lines 4-7, as they are now; helper "
                                              "declared on line 6] To read doc.py again")


def test_symbols_past_the_hosts_cap_wait_for_another_call(repo):
    """Symbols whose text would pass the host's cap on a tool result are left out and named
    (an answer cut by the host loses its ids at the end)."""
    async def script(s: ClientSession):
        return text_of(await s.call_tool("read_file", {"path": "app.py",
                                                       "symbols": ["func0", "func1", "func2", "func3"]}))

    answer = with_session(repo, script, env=_env(SYMBOLPACK_MCP_MAX_ANSWER_CHARS="900"))
    head = answer.splitlines()[0]
    assert head.startswith("[SYMBOLS] app.py: Not read in this answer, which would pass the tool's output limit: "
                           "func2, func3; ask for them in another call. Shown, as it is now: func0 (lines 1-16), "
                           "func1 (lines 19-34)."), head
