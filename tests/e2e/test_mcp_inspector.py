"""`tldrs mcp` under a real MCP client: the MCP Inspector's `--cli` mode (pinned in
npm/inspector/package-lock.json), as a user would try the server.

Each `--cli` invocation starts its own server process (a new connection): what a
re-read may lean on travels in the `known` ids the client passes, as a resumed
conversation's would. The Inspector runs with a throwaway HOME (it keeps a
catalog in `~/.mcp-inspector`); it declares Node >= 22.19 and runs under the
machine's Node 20 with an engine warning.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import clients

TOOLS = {"read_file", "context", "diff_context", "search_symbols", "refresh", "session_status"}
SOURCE = "".join(f"def func{k}(total):\n" + "".join(f"    total += {i}\n" for i in range(14)) +
                 "    return helper(total)\n\n\n" for k in range(6)) + "def helper(total):\n    return total * 2\n"


@pytest.fixture(scope="module")
def inspector() -> Path:
    return clients.node_bin("inspector", "mcp-inspector")  # installs the pinned client; fails, never skips


@pytest.fixture
def project(make_repo):
    return make_repo({"app.py": SOURCE})


def run(inspector: Path, project: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    tldrs = Path(sys.executable).with_name("tldrs")  # the console script the installers write
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYMBOLPACK_")}
    env["HOME"] = str(home)
    # the Inspector starts the server with an environment of its own: the fixtures' skeletons
    # (conftest.SMALL_FILE_TOKENS) are passed to it by name
    return subprocess.run([str(inspector), "--cli", "-e", "SYMBOLPACK_SMALL_FILE_TOKENS=400", str(tldrs), "mcp", *args],
                          cwd=project, env=env,
                          capture_output=True, text=True, timeout=180)


def tool_text(proc: subprocess.CompletedProcess) -> tuple[str, bool]:
    """The text and isError of the tool result the Inspector printed (its own error
    summary line, printed after the result for a tool error, is left out)."""
    result, _ = json.JSONDecoder().raw_decode(proc.stdout.lstrip())
    return "\n".join(c["text"] for c in result["content"] if c["type"] == "text"), result.get("isError", False)


def test_the_inspector_lists_six_read_only_tools(inspector, project, tmp_path):
    proc = run(inspector, project, tmp_path, "--method", "tools/list", "--strict")
    assert proc.returncode == 0, proc.stderr  # --strict: no schema portability problem of error severity
    tools = {t["name"]: t for t in json.loads(proc.stdout)["tools"]}
    assert set(tools) == TOOLS
    for tool in tools.values():
        annotations = tool["annotations"]
        assert annotations["readOnlyHint"] is True and annotations["destructiveHint"] is False, tool["name"]
        assert annotations["idempotentHint"] is True and annotations["openWorldHint"] is False, tool["name"]
        assert annotations["title"], tool["name"]
    assert tools["read_file"]["inputSchema"]["required"] == ["path"]


def answer_id(text: str) -> str:
    last = text.splitlines()[-1]
    assert last.startswith("[answer "), text
    return last[len("[answer "):].split("]")[0].split(";")[0].split(":")[0]


def test_re_reads_lean_only_on_the_known_ids_passed(inspector, project, tmp_path):
    """None: a first read. A present one: [UNCHANGED], naming it. An unknown one: a first
    read. After a simulated compaction the client drops the ids it no longer shows: a
    first read again, and the dropped answer is never leaned on."""
    def read(*known: str) -> str:
        args = ["--tool-arg", "path=app.py"] + (["--tool-arg", "known=" + json.dumps(list(known))] if known else [])
        proc = run(inspector, project, tmp_path, "--method", "tools/call", "--tool-name", "read_file", *args)
        assert proc.returncode == 0, proc.stderr
        text, error = tool_text(proc)
        assert not error, text
        return text

    first = read()
    assert first.startswith("[SKELETON] app.py") and 'elided: symbol="func0"' in first
    ident = answer_id(first)
    assert first.endswith(f'[answer {ident}] To read app.py again, pass known=["{ident}"] (and the ids of other '
                          f'answers about it you still see).')
    again = read(ident)
    assert again == (f"[UNCHANGED] app.py: exactly as you already have it from your earlier reads.\n"
                     f"[answer {answer_id(again)}; relies on {ident}] Next read of this file: known=[\"{ident}\", \"{answer_id(again)}\"]")
    unknown = read("zzzz9999")
    assert unknown.startswith("[SKELETON] app.py") and "relies on" not in unknown
    compacted = read(answer_id(again))  # the summary kept the marker's id; the skeleton it points at is gone
    assert compacted.startswith("[SKELETON] app.py") and "relies on" not in compacted
    after = read(answer_id(compacted))
    assert after.startswith("[UNCHANGED] app.py") and f"; relies on {answer_id(compacted)}] Next read of this file: known=" in after


@pytest.mark.parametrize("args,expected", [
    ((), 'read_file: missing required argument "path"'),
    (("--tool-arg", "path=app.py", "--tool-arg", "offset=0"), 'read_file: argument "offset" must be at least 1, got 0'),
    (("--tool-arg", "path=/etc/hostname"),
     "/etc/hostname is outside the workspace ({root}); to allow it, add a directory to mcp_allow_dirs "
     "([tool.symbolpack] in pyproject.toml, or SYMBOLPACK_MCP_ALLOW_DIRS)"),
])
def test_bad_arguments_are_a_clear_tool_error(inspector, project, tmp_path, args, expected):
    proc = run(inspector, project, tmp_path, "--method", "tools/call", "--tool-name", "read_file", *args)
    assert proc.returncode != 0  # the Inspector exits non-zero for a tool result with isError
    assert tool_text(proc) == (expected.format(root=os.path.realpath(project)), True)
