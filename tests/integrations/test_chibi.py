"""Chibi: the plugins `tldrs install chibi` writes, run as Chibi runs them.

Every call is a real process started the way chibi-core starts plugins
(crates/chibi-core/src/tools/{plugins,hooks}.rs at chibi 717af12): the launcher
in `<home>/plugins/`, `--schema` for the schema, tool arguments as JSON on
stdin with `$CHIBI_TOOL_NAME`, hook data as JSON on stdin with `$CHIBI_HOOK`,
`$CHIBI_PROJECT_ROOT` exported. The payloads have the exact shapes
`api/send.rs`, `chibi.rs` and `api/compact.rs` build. This test process plays
the Chibi process (it is every plugin's parent); a second Chibi process is a
small Python process in between.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import symbolpack
from symbolpack.integrations.chibi import plugin as chibi
from symbolpack.integrations.chibi.install import BACKUP_SUFFIX, MANIFEST, doctor_report
from symbolpack.integrations.chibi.lang import plugin_languages

from conftest import stored_files


PACKAGE_ROOT = Path(symbolpack.__file__).resolve().parents[1]

# chibi-core's HookPoint enum (tools/hooks.rs), snake_case as strum serializes it
CHIBI_HOOK_POINTS = {
    "pre_message", "post_message", "pre_tool", "post_tool", "pre_tool_output", "post_tool_output", "pre_clear",
    "post_clear", "pre_compact", "post_compact", "pre_rolling_compact", "post_rolling_compact", "on_start", "on_end",
    "pre_system_prompt", "post_system_prompt", "pre_send_message", "post_send_message", "pre_cache_output",
    "post_cache_output", "pre_api_tools", "pre_api_request", "pre_agentic_loop", "post_tool_batch", "pre_file_read",
    "pre_file_write", "pre_shell_exec", "pre_fetch_url", "pre_spawn_agent", "post_spawn_agent", "post_index_file",
    "pre_vfs_write", "post_vfs_write",
}
# index/indexer.rs LANG_MAP: the language Chibi's indexer asks for, by extension
CHIBI_LANG_MAP = {
    "rs": "rust", "py": "python", "js": "javascript", "ts": "typescript", "tsx": "typescript", "jsx": "javascript",
    "rb": "ruby", "go": "go", "java": "java", "c": "c", "h": "c", "cpp": "cpp", "hpp": "cpp", "cc": "cpp",
    "zig": "zig", "lua": "lua", "sh": "shell", "bash": "shell", "toml": "toml", "yaml": "yaml", "yml": "yaml",
    "json": "json", "md": "markdown",
}


def env_for(home: Path, root: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID", "CHIBI_HOOK", "CHIBI_TOOL_NAME", "CHIBI_HOME")}
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["SYMBOLPACK_TLDRS"] = f"{sys.executable} -m symbolpack.cli"
    env["CHIBI_PROJECT_ROOT"] = str(root)  # chibi.rs load_with_options exports it
    env["CHIBI_INDEX_DB"] = str(root / ".chibi" / "codebase.db")
    env.update(extra)
    return env


def tldrs(env: dict, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr


def tree(path: Path) -> dict:
    """Everything under *path*: relative name -> (mode, bytes or None for a directory)."""
    out = {}
    for p in sorted(path.rglob("*")):
        st = p.lstat()
        out[str(p.relative_to(path))] = (stat.S_IMODE(st.st_mode), None if p.is_dir() else p.read_bytes())
    return out


# --------------------------------------------------------------------------- the fake Chibi

def body(n: int, tag: str = "") -> str:
    return "".join(f"    total += {i}{tag}\n" for i in range(n))


def module(funcs: int = 6, lines: int = 14) -> str:
    return "".join(f"def func{k}(total):\n{body(lines)}    return total\n\n\n" for k in range(funcs))


def rust_lines(text: str) -> list[str]:
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def apply_file_edit(text: str, args: dict) -> str:
    """chibi-core tools/fs_write.rs apply_edit, for the operations the tests use."""
    op = args["operation"]
    if op == "replace_string":
        if args["find"] not in text:
            raise ValueError("String not found in file")
        return text.replace(args["find"], args["replace"], 1)
    lines = rust_lines(text)
    had_newline = text.endswith("\n")
    new = rust_lines(args.get("content", ""))
    start = args["line_start"]
    if op == "replace_lines":
        lines[start - 1:args["line_end"]] = new
    elif op == "delete_lines":
        del lines[start - 1:args["line_end"]]
    elif op == "insert_before":
        lines[start - 1:start - 1] = new
    elif op == "insert_after":
        lines[start:start] = new
    out = "\n".join(lines)
    return out + "\n" if had_newline or out else out


class Chibi:
    """One Chibi process (this test process) with one home, in one project."""

    def __init__(self, home: Path, root: Path):
        self.home, self.root = home, root
        self.plugins = home / "plugins"
        self.env = env_for(home, root)
        self.context = None

    def run(self, launcher: str, stdin: str, **env) -> subprocess.CompletedProcess:
        proc = subprocess.run([str(self.plugins / launcher)], input=stdin, capture_output=True, text=True,
                              cwd=self.root, env={**self.env, **env}, timeout=120)
        no_traceback(proc)
        return proc

    def hook(self, name: str, payload) -> dict:
        proc = self.run("symbolpack", payload if isinstance(payload, str) else json.dumps(payload), CHIBI_HOOK=name)
        assert proc.returncode == 0, proc.stderr
        assert "symbolpack (chibi)" not in proc.stderr, proc.stderr
        return json.loads(proc.stdout)

    def turn(self, context: str) -> dict:
        """send.rs: pre_api_tools fires before the turn's first request, with the context's name."""
        self.context = context
        return self.hook("pre_api_tools", {"context_name": context, "fuel_remaining": 30, "fuel_total": 30,
                                           "tools": [{"name": "shell_exec", "type": "shell"},
                                                     {"name": "lang_python", "type": "plugin"},
                                                     {"name": "symbolpack_read", "type": "plugin"}]})

    def call(self, tool: str, args: dict, cached: bool = False, deliver=None) -> str:
        """One tool call as send.rs runs it: pre_tool, the plugin, post_tool (result, cached)."""
        assert self.hook("pre_tool", {"tool_name": tool, "arguments": args}) == {}
        proc = self.run("symbolpack", json.dumps(args), CHIBI_TOOL_NAME=tool)
        assert proc.returncode == 0, proc.stderr
        result = proc.stdout if deliver is None else deliver(proc.stdout)
        assert self.hook("post_tool", {"tool_name": tool, "arguments": args, "result": result, "cached": cached}) == {}
        return proc.stdout

    def read(self, path: str, **kw) -> str:
        return self.call("symbolpack_read", {"path": path, **kw})

    def file_edit(self, args: dict) -> str:
        """pre_tool (may block), pre_file_write (the permission gate), the edit, post_tool."""
        pre = self.hook("pre_tool", {"tool_name": "file_edit", "arguments": args})
        if pre.get("block"):
            result = pre["message"]
        else:
            gate = self.hook("pre_file_write", {"tool_name": "file_edit", "path": args["path"],
                                                "operation": args["operation"], "content": args.get("content")})
            assert gate == {}  # file_edit is judged in pre_tool: the gate never denies it, never approves
            target = self.root / args["path"]
            target.write_text(apply_file_edit(target.read_text(), args))
            result = (f"Replaced string in {target} ({len(args['find'])} → {len(args['replace'])} bytes)"
                      if args["operation"] == "replace_string" else
                      f"Edited {target} ({len(rust_lines(target.read_text()))} lines)")
        self.hook("post_tool", {"tool_name": "file_edit", "arguments": args, "result": result, "cached": False})
        return result

    def write_file(self, path: str, content: str) -> str:
        args = {"path": path, "content": content}
        assert self.hook("pre_tool", {"tool_name": "write_file", "arguments": args}) == {}
        gate = self.hook("pre_file_write", {"tool_name": "write_file", "path": path, "content": content})
        if gate.get("denied"):
            result = f"Permission denied: {gate['reason']}"
        else:
            (self.root / path).write_text(content)
            result = f"File written successfully: {path} ({len(content)} bytes)"
        self.hook("post_tool", {"tool_name": "write_file", "arguments": args, "result": result, "cached": False})
        return result


@pytest.fixture
def installed(tmp_path, make_repo) -> Chibi:
    root = make_repo({"big.py": module(), "small.py": "def tiny():\n    return 1\n"}, name="project")
    home = tmp_path / "chibi-home"
    proc = tldrs(env_for(home, root), "install", "chibi", "--home", str(home))
    assert proc.returncode == 0, proc.stderr
    return Chibi(home, root)


# --------------------------------------------------------------------------- schema

def test_schema_is_what_chibi_loads(installed):
    assert installed.run("symbolpack", "").stdout.startswith("Error: unknown tool")  # no tool name: no crash
    proc = subprocess.run([str(installed.plugins / "symbolpack"), "--schema"], capture_output=True, text=True)
    assert proc.returncode == 0
    tools = json.loads(proc.stdout)  # plugins.rs get_tool_schemas: an array is several tools
    assert [t["name"] for t in tools] == list(chibi.OUR_TOOLS)
    for t in tools:
        assert isinstance(t["description"], str) and t["parameters"]["type"] == "object"
    assert set(tools[0]["hooks"]) <= CHIBI_HOOK_POINTS  # an unknown name would be dropped with a warning
    assert all("hooks" not in t for t in tools[1:])  # hooks.rs runs a plugin once per tool listing the hook
    # the launcher's static schema is the one the plugin itself prints
    direct = tldrs(installed.env, "chibi", "plugin", "--schema")
    assert json.loads(direct.stdout) == tools
    langs = sorted(p.name for p in installed.plugins.iterdir() if p.name.startswith("lang_"))
    assert langs == sorted(f"lang_{name}" for name in plugin_languages())
    assert {"lang_python", "lang_rust", "lang_shell", "lang_typescript"} <= set(langs) and "lang_tsx" not in langs
    for name in langs:
        out = subprocess.run([str(installed.plugins / name), "--schema"], capture_output=True, text=True)
        assert json.loads(out.stdout)["name"] == name


# --------------------------------------------------------------------------- tools and sessions

def test_reads_are_per_context_and_hidden_lang_plugins(installed):
    c = installed
    assert c.turn("dev") == {"exclude": ["lang_python"]}  # ours only; the indexer still finds it
    first = c.read("big.py")
    assert first.startswith("[SKELETON]")
    assert c.read("big.py").startswith("[UNCHANGED]")
    c.turn("other")  # the same process, now in another context: nothing it was given
    assert c.read("big.py").startswith("[SKELETON]")
    c.turn("dev")
    assert c.read("big.py").startswith("[UNCHANGED]")
    (c.root / "big.py").write_text(module().replace("def func0(total):", "def func0(total, k=3):"))
    again = c.read("big.py")
    assert again.startswith("[DELTA] big.py: changed since your last whole read of it (108 lines then, 108 now). Changed/new: func0 (changed line 1).")
    assert "k=3" in again
    assert c.read("small.py", symbol="tiny").splitlines()[-1].endswith("return 1")


def test_no_recorded_context_means_no_session(installed):
    """A Chibi process whose turn was never announced (`chibi -P`, or hooks that did not
    run): plain reads, nothing recorded. A second process stands in for it."""
    c = installed
    c.turn("dev")
    c.read("big.py")
    script = ("import subprocess,sys\nfor _ in range(2):\n"
              "    p = subprocess.run([sys.argv[1]], input='{\"path\": \"big.py\"}', capture_output=True, text=True)\n"
              "    print(p.stdout.splitlines()[0])\n")
    proc = subprocess.run([sys.executable, "-c", script, str(c.plugins / "symbolpack")], capture_output=True,
                          text=True, cwd=c.root, env={**c.env, "CHIBI_TOOL_NAME": "symbolpack_read"}, timeout=120)
    heads = proc.stdout.splitlines()
    assert len(heads) == 2 and not any(h.startswith("[UNCHANGED]") for h in heads), proc.stdout + proc.stderr
    assert c.read("big.py").startswith("[UNCHANGED]")  # this process's context was not touched


@pytest.mark.parametrize("hook,payload", [
    ("post_clear", {"context_name": "dev"}),  # chibi.rs clear_context sends only the name
    ("post_compact", {"context_name": "dev", "message_count": 2, "summary": "we read big.py"}),
    ("post_rolling_compact", {"context_name": "dev", "message_count": 6, "messages_archived": 10,
                              "summary": "we read big.py"}),
])
def test_clear_and_compaction_drop_the_context_copies(installed, hook, payload):
    c = installed
    c.turn("dev")
    c.read("big.py")
    old = chibi.session_for(str(c.home), "dev")
    assert c.read("big.py").startswith("[UNCHANGED]")
    assert c.hook(hook, payload) == {}
    assert chibi.session_for(str(c.home), "dev") != old  # copies kept in other projects are never used again
    assert stored_files(c.root, old) == {}
    assert c.read("big.py").startswith("[SKELETON]")
    c.turn("other")
    assert c.hook(hook, {**payload, "context_name": "other"}) == {}
    c.turn("dev")
    assert c.read("big.py").startswith("[UNCHANGED]")  # clearing another context changes nothing here


def test_answer_not_delivered_as_written_is_taken_back(installed):
    c = installed
    c.turn("dev")
    assert c.hook("pre_cache_output", {"tool_name": "symbolpack_read", "output_size": 90000,
                                       "arguments": {"path": "big.py"}}) == {"block": True}
    assert c.hook("pre_cache_output", {"tool_name": "shell_exec", "output_size": 90000, "arguments": {}}) == {}
    c.call("symbolpack_read", {"path": "big.py"}, cached=True)  # the model got a preview
    assert c.read("big.py").startswith("     1\tdef func0(total):")  # plain: the skeleton is forgotten
    c.call("symbolpack_read", {"path": "big.py", "full": True}, deliver=lambda out: out[:200])  # rewritten
    assert not c.read("big.py").startswith("[UNCHANGED]")
    assert c.read("big.py").startswith("[UNCHANGED]")


def test_context_and_diff_context_tools(installed):
    c = installed
    c.turn("dev")
    (c.root / "small.py").write_text("def tiny():\n    return helper()\n\n\ndef helper():\n    return 2\n")
    pack = c.call("symbolpack_diff_context", {})
    assert "tiny" in pack and "helper" in pack
    again = c.call("symbolpack_diff_context", {})
    assert "[UNCHANGED]" in again
    assert "tiny" in c.call("symbolpack_context", {"entry": "tiny", "depth": 1})
    assert c.call("symbolpack_context", {}).startswith("Error: entry is required")


def test_tools_refuse_bad_calls_cleanly(installed):
    c = installed
    c.turn("dev")
    cases = [("symbolpack_read", "{not json", "Error: the arguments are not JSON"),
             ("symbolpack_read", "[1, 2]", "Error: the arguments are not a JSON object"),
             ("symbolpack_read", "{}", "Error: path must be"),
             ("symbolpack_read", '{"path": "vfs:///shared/x"}', "Error: path must be"),
             ("symbolpack_read", '{"path": "/etc/hostname"}', "Error: /etc/hostname is outside the project"),
             ("symbolpack_read", '{"path": "nope.py"}', "Error: no such file"),
             ("symbolpack_read", '{"path": "big.py", "offset": "x"}', "Error: offset must be an integer"),
             ("symbolpack_read", '{"path": "big.py", "symbol": "nosuch"}', "Error: "),
             ("symbolpack_nope", "{}", "Error: unknown tool")]
    for tool, stdin, expected in cases:
        proc = c.run("symbolpack", stdin, CHIBI_TOOL_NAME=tool)
        assert proc.returncode == 0 and proc.stdout.startswith(expected), (tool, stdin, proc.stdout)
    direct = c.run("symbolpack", json.dumps({"args": ["small.py"]}), CHIBI_TOOL_NAME="symbolpack_read")
    assert "def tiny" in direct.stdout  # `chibi -p symbolpack_read small.py`


def test_malformed_hook_data_is_ignored(installed):
    c = installed
    for name in chibi.HOOKS + ("on_start", "pre_file_read", "no_such_hook"):
        for stdin in ("", "{not json", "[]", "null", '{"tool_name": 5, "arguments": "x", "context_name": 7}',
                      '{"tool_name": "file_edit", "arguments": {"path": 3}}',
                      '{"tool_name": "write_file", "path": "../../etc/passwd", "content": null}',
                      '{"tool_name": "symbolpack_read", "arguments": {}, "result": 1, "cached": "no"}'):
            proc = c.run("symbolpack", stdin, CHIBI_HOOK=name)
            expected = {"block": True} if name == "pre_cache_output" and "symbolpack_read" in stdin else {}
            assert proc.returncode == 0 and json.loads(proc.stdout) == expected, (name, stdin, proc.stdout)
    # on_start/on_end as chibi.rs init/shutdown send them
    for name in ("on_start", "on_end"):
        assert c.hook(name, {"chibi_home": str(c.home), "project_root": str(c.root), "tool_count": 40}) == {}


# --------------------------------------------------------------------------- the guard and edits

def test_file_edit_guard_and_own_edits(installed):
    c = installed
    c.turn("dev")
    c.read("big.py")  # a skeleton: func bodies (lines 2-16, ...) elided
    blocked = c.file_edit({"path": "big.py", "operation": "replace_lines", "line_start": 5, "line_end": 5,
                           "content": "    total += 99"})
    assert "NOT applied" in blocked and "not seen" in blocked and "func0" in blocked
    assert "total += 99" not in (c.root / "big.py").read_text()
    # the header line was shown: editing it is the agent's business
    assert c.file_edit({"path": "big.py", "operation": "replace_lines", "line_start": 1, "line_end": 1,
                        "content": "def func0(total, extra=0):"}).startswith("Edited")
    assert c.read("big.py").startswith("[UNCHANGED]")  # its own edit is in its copy
    c.read("big.py", offset=2, limit=15)  # drill in
    assert c.file_edit({"path": "big.py", "operation": "replace_string", "find": "extra=0):\n    total += 0\n",
                        "replace": "extra=0):\n    total += 0  # zero\n"}).startswith("Replaced")
    assert c.file_edit({"path": "big.py", "operation": "insert_after", "line_start": 6,
                        "content": "    total += 5"}).startswith("Edited")
    assert c.file_edit({"path": "big.py", "operation": "delete_lines", "line_start": 3,
                        "line_end": 3}).startswith("Edited")
    assert c.read("big.py").startswith("[UNCHANGED]")  # all three carried through its copy
    # a string Chibi replaces the first of, but which occurs in every function: the copy cannot
    # follow it, so it is dropped (the next read starts over) rather than guessed
    assert c.file_edit({"path": "big.py", "operation": "replace_string", "find": "    total += 7\n",
                        "replace": "    total += 77\n"}).startswith("Replaced")
    assert c.read("big.py").startswith("[SKELETON]")
    assert "total += 77" in c.read("big.py", symbol="func0")
    # someone else changes a line the agent holds: its next edit there is refused
    text = (c.root / "big.py").read_text().replace("total += 77", "total += 78")
    (c.root / "big.py").write_text(text)
    stale = c.file_edit({"path": "big.py", "operation": "replace_string", "find": "total += 78",
                         "replace": "total += 79"})
    assert "changed on disk" in stale and "NOT applied" in stale
    assert "total += 78" in c.read("big.py")  # the delta shows it; now the agent holds it
    assert c.file_edit({"path": "big.py", "operation": "replace_string", "find": "total += 78",
                        "replace": "total += 79"}).startswith("Replaced")
    # never read through symbolpack: no opinion
    assert c.file_edit({"path": "small.py", "operation": "delete_lines", "line_start": 2,
                        "line_end": 2}).startswith("Edited")
    # vfs paths and other tools are not ours to judge
    assert c.hook("pre_tool", {"tool_name": "file_edit", "arguments": {
        "path": "vfs:///shared/x", "operation": "delete_lines", "line_start": 1, "line_end": 1}}) == {}


def test_file_edit_of_lines_that_only_moved_passes_and_a_stale_one_is_still_refused(installed):
    """The guard judges text, not line numbers: lines inserted above on disk move what the
    agent holds without changing it; an edit of them passes. A line changed on disk, edited
    with its old text, is refused even where that old text still occurs elsewhere."""
    c = installed
    c.turn("dev")
    c.read("big.py", full=True)
    held = (c.root / "big.py").read_text()
    old = held.split("\n")[1]  # line 2 as the agent holds it
    assert old.strip() and held.count(old + "\n") > 1  # its text also occurs in other functions
    # on disk: two lines inserted at the top (everything moves by two), and that line changed
    (c.root / "big.py").write_text("# header\n# more\n" + held.replace(old + "\n", old + "  # changed\n", 1))
    stale = c.file_edit({"path": "big.py", "operation": "replace_lines", "line_start": 4, "line_end": 4,
                         "content": old + "  # mine"})
    assert "changed on disk" in stale and "NOT applied" in stale
    moved = c.file_edit({"path": "big.py", "operation": "replace_lines", "line_start": 7, "line_end": 7,
                         "content": "    total += 40"})
    assert moved.startswith("Edited"), moved
    assert (c.root / "big.py").read_text().split("\n")[6] == "    total += 40"


def test_write_file_guard(installed):
    c = installed
    c.turn("dev")
    c.read("big.py")
    denied = c.write_file("big.py", "x = 1\n")
    assert denied.startswith("Permission denied: [symbolpack stale-edit guard]") and "full=true" in denied
    assert (c.root / "big.py").read_text() == module()
    c.read("big.py", full=True)
    assert c.write_file("big.py", module(2)).startswith("File written")
    assert c.read("big.py").startswith("[UNCHANGED]")  # it wrote every line itself
    assert c.write_file("new.py", "y = 2\n").startswith("File written")  # a new file: nothing to be stale about
    # pre_file_write only ever denies: no "denied": false, no approval of its own
    assert c.hook("pre_file_write", {"tool_name": "write_file", "path": "big.py", "content": "z\n"}) == {}


# --------------------------------------------------------------------------- language plugins

LANG_FILES = {
    "pkg/cart.py": '"""Cart."""\nfrom .util import helper\n\n\nclass Cart:\n    def __init__(self):\n'
                   '        self.items = []\n\n    def add(self, item):\n        self.items.append(item)\n'
                   '        return self.total()\n\n    def total(self):\n        return helper(self.items)\n\n\n'
                   'def _private():\n    return Cart().add(1)\n',
    "pkg/util.py": "def helper(items):\n    return len(items)\n",
    "src/lib.rs": "use std::collections::HashMap;\n\npub struct Parser {\n    input: String,\n}\n\n"
                  "impl Parser {\n    pub fn new(input: String) -> Self {\n        Self { input }\n    }\n\n"
                  "    pub(crate) fn parse(&self) -> usize {\n        self.helper()\n    }\n\n"
                  "    fn helper(&self) -> usize {\n        0\n    }\n}\n\npub static LIMIT: usize = 3;\n",
    "cmd/main.go": "package main\n\ntype Cart struct{ n int }\n\nfunc (c *Cart) Add() { c.sum() }\n\n"
                   "func (c *Cart) sum() int { return c.n }\n\nfunc main() { c := &Cart{}; c.Add() }\n",
    "web/app.ts": "export class Store {\n  private items: string[] = [];\n  public add(x: string): void {\n"
                  "    this.items.push(x);\n    this.save();\n  }\n  protected save() {}\n}\n"
                  "export function make(): Store {\n  return new Store();\n}\n",
    "web/view.tsx": "export function View() {\n  return <div>hi</div>;\n}\n",
    "App.java": "public class App {\n    private int n;\n    public void run() { helper(); }\n"
                "    void helper() {}\n}\n",
    "tools/run.sh": "#!/bin/sh\nsetup() {\n  echo hi\n}\nsetup\n",
    "README.md": "# title\n",
}


def lang_call(c: Chibi, language: str, files: list[dict] | str) -> tuple[int, dict, str]:
    stdin = files if isinstance(files, str) else json.dumps({"files": files})
    proc = c.run(f"lang_{language}", stdin, CHIBI_TOOL_NAME=f"lang_{language}")
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def index_like_chibi(c: Chibi, root: Path) -> dict[str, dict]:
    """indexer.rs update_index: one call per file, to lang_<language of its extension>,
    with the repo-relative path and the file's text."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if not p.is_file() or rel.startswith((".git/", ".symbolpack/", ".chibi")):
            continue
        language = CHIBI_LANG_MAP.get(p.suffix[1:])
        if language is None or not (c.plugins / f"lang_{language}").exists():
            continue
        code, data, err = lang_call(c, language, [{"path": rel, "content": p.read_text()}])
        assert code == 0, (rel, data, err)
        out[rel] = data
    return out


def resolve_parents(symbols: list[dict]) -> list[str]:
    """indexer.rs insert_symbols' second pass: a parent is the smallest symbol with that
    name whose lines contain the child. Returns the children whose parent did not resolve."""
    unresolved = []
    for i, s in enumerate(symbols):
        if s["parent"] is None:
            continue
        found = [p for j, p in enumerate(symbols) if j != i and p["name"] == s["parent"]
                 and p["line_start"] <= s["line_start"] and p["line_end"] >= s["line_end"]]
        if not found:
            unresolved.append(s["name"])
    return unresolved


def structure_comparison(c: Chibi, root: Path) -> dict:
    """The symbols each file's lang plugin returns against `tldrs structure --format json`."""
    proc = tldrs(c.env, "structure", str(root), "--format", "json", "--no-cache", cwd=root)
    assert proc.returncode == 0, proc.stderr
    expected = {}
    for f in json.loads(proc.stdout)["files"]:
        by_id = {s["id"]: s for s in f["symbols"]}
        expected[f["path"]] = [(s["name"], "function" if s["kind"] in ("method", "constructor") else s["kind"],
                                s["lines"][0], s["lines"][1], s["signature"],
                                by_id[s["parent"]]["name"] if s["parent"] else None) for s in f["symbols"]]
    got = index_like_chibi(c, root)
    stats = {"files": 0, "symbols": 0, "equal_files": 0, "refs": 0, "unresolved_parents": 0}
    mismatched = []
    for rel, data in got.items():
        stats["files"] += 1
        mine = [(s["name"], s["kind"], s["line_start"], s["line_end"], s["signature"], s["parent"])
                for s in data["symbols"]]
        # the only kind differences allowed are Chibi's Rust names for `static` and `union`
        theirs = [e if e[1] not in ("variable", "struct") or m[1] not in ("static", "union") else (*e[:1], m[1], *e[2:])
                  for e, m in zip(expected.get(rel, []), mine)]
        stats["symbols"] += len(mine)
        stats["refs"] += len(data["refs"])
        stats["unresolved_parents"] += len(resolve_parents(data["symbols"]))
        if mine == theirs and len(mine) == len(expected.get(rel, [])):
            stats["equal_files"] += 1
        else:
            mismatched.append(rel)
    stats["mismatched"] = mismatched
    return stats


def test_language_plugins_match_structure_on_a_repository(installed, make_repo):
    c = installed
    root = make_repo(LANG_FILES, name="langs")
    stats = structure_comparison(c, root)
    assert stats["mismatched"] == [] and stats["unresolved_parents"] == 0, stats
    assert stats["files"] == 8 and stats["symbols"] > 20  # README.md has no lang_markdown


def test_language_plugin_output(installed):
    c = installed
    files = [{"path": p, "content": LANG_FILES[p]} for p in ("pkg/cart.py", "pkg/util.py")]
    code, data, _ = lang_call(c, "python", files)  # a batch: one process, every symbol says its file
    assert code == 0
    assert {s["path"] for s in data["symbols"]} == {"pkg/cart.py", "pkg/util.py"}
    add = next(s for s in data["symbols"] if s["name"] == "add")
    assert add["kind"] == "function" and add["parent"] == "Cart" and add["visibility"] is None
    assert next(s for s in data["symbols"] if s["name"] == "_private")["visibility"] is None  # a convention only
    refs = {(r["from_line"], r["to_name"], r["kind"]) for r in data["refs"]}
    assert (11, "Cart.total", "call") in refs  # self.total(): resolved and qualified
    assert (14, "helper", "call") in refs and (2, ".util.helper", "import") in refs
    assert (18, "Cart", "type") in refs or (18, "Cart", "call") in refs

    code, data, _ = lang_call(c, "rust", [{"path": "src/lib.rs", "content": LANG_FILES["src/lib.rs"]}])
    vis = {s["name"]: (s["kind"], s["visibility"], s["parent"]) for s in data["symbols"]}
    assert vis["Parser"] == ("struct", "public", None)
    assert vis["new"] == ("function", "public", "impl Parser")
    assert vis["parse"][1] == "pub(crate)" and vis["helper"][1] == "private"
    assert vis["LIMIT"] == ("static", "public", None) and vis["impl Parser"][1] is None
    assert {"from_line": 13, "to_name": "Parser::helper", "kind": "call", "path": "src/lib.rs"} in data["refs"]
    assert any(r["to_name"] == "std::collections::HashMap" and r["kind"] == "import" for r in data["refs"])

    code, data, _ = lang_call(c, "go", [{"path": "cmd/main.go", "content": LANG_FILES["cmd/main.go"]}])
    assert {s["name"]: s["visibility"] for s in data["symbols"]} == {
        "Cart": "public", "Add": "public", "sum": "private", "main": "private"}
    code, data, _ = lang_call(c, "typescript", [{"path": "web/app.ts", "content": LANG_FILES["web/app.ts"]},
                                               {"path": "web/view.tsx", "content": LANG_FILES["web/view.tsx"]}])
    assert {s["name"]: s["visibility"] for s in data["symbols"]} == {
        "Store": None, "add": "public", "save": "protected", "make": None, "View": None}
    code, data, _ = lang_call(c, "java", [{"path": "App.java", "content": LANG_FILES["App.java"]}])
    assert {s["name"]: s["visibility"] for s in data["symbols"]} == {"App": "public", "run": "public",
                                                                     "helper": None}
    code, data, _ = lang_call(c, "python", [{"path": ".env", "content": "def secret():\n    pass\n"},
                                            {"path": "empty.py", "content": ""}])
    assert code == 0 and data == {"symbols": [], "refs": []}  # a sensitive name is never parsed


@pytest.mark.parametrize("stdin,code,message", [
    ("", 2, "not JSON"),
    ("{not json", 2, "not JSON"),
    ("[]", 2, "input must be"),
    ('{"files": {}}', 2, "input must be"),
    ('{"files": ["a.py"]}', 2, "files[0] is not an object"),
    ('{"files": [{"path": "a.py"}]}', 2, "content must be a string (missing)"),
    ('{"files": [{"path": "a.py", "content": 3}]}', 2, "content must be a string"),
    ('{"files": [{"content": "x = 1"}]}', 2, "path must be"),
    ('{"files": [{"path": "a.py", "content": "x\\u0000y"}]}', 1, "binary content"),
    ('{"files": [{"path": "a.py", "content": "\\ud800"}]}', 1, "not valid Unicode"),
])
def test_language_plugin_refuses_bad_input(installed, stdin, code, message):
    got, data, err = lang_call(installed, "python", stdin)
    assert got == code and message in data["error"], data
    assert "Traceback" not in err


def test_language_plugin_batch_keeps_good_files_and_refuses_big_ones(installed):
    big = "x = 1\n" * 400_000  # 2.4 MB: over the index limit `tldrs structure` skips files at
    code, data, _ = lang_call(installed, "python", [{"path": "big.py", "content": big},
                                                    {"path": "ok.py", "content": "def ok():\n    pass\n"}])
    assert code == 1 and "over the 2 MB limit" in data["errors"][0]["error"]
    assert [s["name"] for s in data["symbols"]] == ["ok"]
    proc = tldrs(installed.env, "chibi", "lang", "cobol")
    assert proc.returncode == 2 and "unknown language" in json.loads(proc.stdout)["error"]


# --------------------------------------------------------------------------- install / uninstall / doctor

def foreign_plugin(path: Path) -> None:
    path.write_text("#!/bin/sh\necho '{\"name\": \"lang_rust\", \"description\": \"theirs\", \"parameters\": {}}'\n")
    path.chmod(0o750)


@pytest.mark.parametrize("existing", [False, True])
def test_install_uninstall_round_trip_is_byte_identical(tmp_path, existing):
    home = tmp_path / "home" / ".chibi"
    if existing:
        (home / "plugins" / "fetch_url").parent.mkdir(parents=True)
        (home / "plugins" / "fetch_url").write_text("#!/bin/sh\necho hi\n")
        (home / "plugins" / "fetch_url").chmod(0o755)
        foreign_plugin(home / "plugins" / "lang_rust")
        (home / "config.toml").write_text('model = "x"\n')
        (home / "mcp-bridge.toml").write_text('[servers.git]\ncommand = "uvx"\n')
    before = tree(tmp_path / "home")
    env = env_for(home, tmp_path, CHIBI_HOME=str(home))
    first = tldrs(env, "install", "chibi")
    assert first.returncode == 0, first.stderr
    if existing:
        assert f"lang_rust{BACKUP_SUFFIX}" in first.stdout
        assert "theirs" in (home / "plugins" / f"lang_rust{BACKUP_SUFFIX}").read_text()
    installed_tree = tree(tmp_path / "home")
    second = tldrs(env, "install", "chibi")
    assert "nothing changed" in second.stdout and tree(tmp_path / "home") == installed_tree
    assert json.loads((home / "plugins" / MANIFEST).read_text())["files"]
    dry = tldrs(env, "uninstall", "chibi", "--dry-run")
    assert "dry run" in dry.stdout and tree(tmp_path / "home") == installed_tree
    assert tldrs(env, "uninstall", "chibi").returncode == 0
    assert tree(tmp_path / "home") == before
    assert "not installed" in tldrs(env, "uninstall", "chibi").stdout


def test_doctor_reports_chibi(tmp_path, make_repo):
    home = tmp_path / "chibi"
    root = make_repo({"a.py": "x = 1\n"})
    env = env_for(home, root, CHIBI_HOME=str(home), HOME=str(tmp_path))
    assert tldrs(env, "install", "chibi").returncode == 0
    proc = tldrs(env, "doctor", "--json", cwd=root)
    report = json.loads(proc.stdout)["chibi"]
    assert proc.returncode == 0, proc.stdout
    assert report["home"] == str(home) and "symbolpack" in report["installed"]
    assert [c["check"] for c in report["checks"]] == ["schema", "hook", "lang_python"]
    assert all(c["ok"] for c in report["checks"]), report
    assert "chibi" in tldrs(env, "doctor", cwd=root).stdout
    (home / "plugins" / "lang_python").write_text((home / "plugins" / "lang_python").read_text()
                                                  .replace("chibi lang python", "chibi lang nosuch"))
    assert tldrs(env, "doctor", cwd=root).returncode == 1
    assert doctor_report(str(tmp_path / "elsewhere"))["installed"] == []
