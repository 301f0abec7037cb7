"""The doctor's stdio MCP client against real processes: symbolpack's server, and servers
that fail in each way a host would meet (missing, dying, chattering, silent)."""

from __future__ import annotations

import sys

from symbolpack.integrations.mcp.probe import probe


def test_symbolpack_server_answers_and_lists_its_tools(tmp_path):
    result = probe(sys.executable, ["-m", "symbolpack.cli", "mcp"], cwd=tmp_path)
    assert result.ok, result.detail
    assert "read_file" in result.tools and result.detail.startswith(f"{len(result.tools)} tools (read_file")
    assert result.ms > 0


def test_a_missing_command():
    result = probe("/nonexistent/tldrs", ["mcp"])
    assert not result.ok and result.detail == "command not found: /nonexistent/tldrs"


def test_a_server_that_dies_shows_its_last_stderr_line():
    code = "import sys; print('Traceback ...', file=sys.stderr); print('ModuleNotFoundError: mcp', file=sys.stderr); sys.exit(3)"
    result = probe(sys.executable, ["-c", code])
    assert not result.ok
    assert result.detail == "exited with code 3 before answering initialize: ModuleNotFoundError: mcp"


def test_a_server_that_prints_to_stdout_first():
    result = probe(sys.executable, ["-c", "print('hello'); import time; time.sleep(5)"])
    assert not result.ok and result.detail == "wrote something that is not JSON-RPC to stdout: 'hello\\n'"


def test_a_silent_server_times_out():
    result = probe(sys.executable, ["-c", "import time; time.sleep(30)"], timeout=1)
    assert not result.ok and result.detail == "no answer to initialize within 1 s"


def test_the_servers_environment_is_passed(tmp_path):
    code = ("import json, os, sys\n"
            "for line in sys.stdin:\n"
            "    m = json.loads(line)\n"
            "    if m.get('method') == 'initialize':\n"
            "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {'serverInfo': {'name': os.environ['X']}}}), flush=True)\n"
            "    elif m.get('method') == 'tools/list':\n"
            "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {'tools': []}}), flush=True)\n")
    result = probe(sys.executable, ["-c", code], env={"X": "from-config"}, cwd=tmp_path)
    assert result.server == {"name": "from-config"}
    assert not result.ok and result.detail == "started but lists no tools"
