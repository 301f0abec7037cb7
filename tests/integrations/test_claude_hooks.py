"""Claude Code hooks, run as Claude Code runs them: one process per call, the
documented JSON payload on stdin, the decision (if any) as JSON on stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import symbolpack
from symbolpack.integrations import claude

from conftest import stored_files

PACKAGE_ROOT = Path(symbolpack.__file__).resolve().parents[1]


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID")}
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["SYMBOLPACK_HOOK_SERVER_IDLE"] = "20"  # the resident hook server these runs start ends soon after
    return env


def run_hook(name: str, payload, cwd: Path | None = None) -> tuple[int, str, str]:
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    proc = subprocess.run([sys.executable, "-m", "symbolpack.integrations.claude", name], input=stdin,
                          capture_output=True, text=True, cwd=cwd, env=_env(), timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def run_hook_undelivered(name: str, payload, cwd: Path) -> int:
    """The hook runs, but its output never reaches Claude Code: nobody reads its stdout
    (the reader is gone before the hook writes, as when Claude Code was killed)."""
    read_end, write_end = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "symbolpack.integrations.claude", name], stdin=subprocess.PIPE,
                            stdout=write_end, stderr=subprocess.PIPE, cwd=cwd, env=_env())
    os.close(write_end)
    os.close(read_end)  # before the hook has its payload: its write can only fail
    proc.communicate(json.dumps(payload).encode(), timeout=60)
    return proc.returncode


def tldrs(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=root, env=_env(),
                          capture_output=True, text=True, timeout=60)


def session_doc(root: Path, agent: "Agent") -> dict:
    sid = claude.session_id_for({"session_id": agent.session_id})
    return {"files": stored_files(root, sid)}


def decision(stdout: str) -> dict | None:
    return json.loads(stdout)["hookSpecificOutput"] if stdout.strip() else None


def body(n: int, tag: str = "") -> str:
    return "".join(f"    total += {i}{tag}\n" for i in range(n))


def module(funcs: int = 6, lines: int = 14) -> str:
    return "".join(f"def func{k}(total):\n{body(lines)}    return total\n\n\n" for k in range(funcs))


class Agent:
    """One Claude Code session in one repository, speaking the documented payloads."""

    def __init__(self, root: Path, session_id: str = "5f0c7a52-aaaa-4bbb-8ccc-0123456789ab", agent_id=None):
        self.root = root
        self.session_id = session_id
        self.agent_id = agent_id

    def _payload(self, event: str, tool: str, tool_input: dict, **extra) -> dict:
        # no transcript_path: these tests drive the conversation-order path (tests/integrations/
        # test_claude_transcript.py drives the transcript-proven one)
        payload = {"session_id": self.session_id, "cwd": str(self.root),
                   "permission_mode": "default", "hook_event_name": event, "tool_name": tool,
                   "tool_input": tool_input, "tool_use_id": "toolu_01", **extra}
        if self.agent_id:
            payload["agent_id"] = self.agent_id
            payload["agent_type"] = "general-purpose"
        return payload

    def read(self, rel: str, **args) -> dict | None:
        rc, out, err = run_hook("claude-pre-read", self._payload(
            "PreToolUse", "Read", {"file_path": str(self.root / rel), **args}), self.root)
        assert rc == 0, err
        return decision(out)

    def pre_edit(self, rel: str, tool: str = "Edit", **tool_input) -> dict | None:
        rc, out, err = run_hook("claude-pre-edit", self._payload(
            "PreToolUse", tool, {"file_path": str(self.root / rel), **tool_input}), self.root)
        assert rc == 0, err
        return decision(out)

    def post_edit(self, rel: str, tool: str = "Edit", **tool_input) -> dict | None:
        response = {"filePath": str(self.root / rel), "success": True}
        rc, out, err = run_hook("claude-post-edit", self._payload(
            "PostToolUse", tool, {"file_path": str(self.root / rel), **tool_input}, tool_response=response), self.root)
        assert rc == 0, err
        return decision(out)

    def edit(self, rel: str, old: str, new: str, replace_all: bool = False) -> tuple[dict | None, dict | None]:
        """The whole native Edit: pre-edit guard, the tool's write, post-edit."""
        args = {"old_string": old, "new_string": new, "replace_all": replace_all}
        guard = self.pre_edit(rel, **args)
        if guard is not None:
            return guard, None
        path = self.root / rel
        text = path.read_text()
        assert text.count(old) == 1 or replace_all
        path.write_text(text.replace(old, new) if replace_all else text.replace(old, new, 1))
        return None, self.post_edit(rel, **args)

    def session_start(self, source: str) -> dict | None:
        payload = {"session_id": self.session_id, "cwd": str(self.root),
                   "hook_event_name": "SessionStart", "source": source}
        rc, out, err = run_hook("claude-session-start", payload, self.root)
        assert rc == 0, err
        return decision(out)


def reason(d: dict | None) -> str:
    assert d is not None and d["hookEventName"] == "PreToolUse" and d["permissionDecision"] == "deny", d
    return d["permissionDecisionReason"]


@pytest.fixture
def repo(make_repo):
    return make_repo({"app.py": module(), "big.txt": "".join(f"row {i}\n" for i in range(1, 2501))})


# --------------------------------------------------------------------------- pre-read

def test_first_read_passes_through_and_the_re_read_is_unchanged(repo):
    agent = Agent(repo)
    assert agent.read("app.py") is None  # native tool runs: Claude's read tracking sees it
    text = reason(agent.read("app.py"))
    assert "[UNCHANGED] app.py: exactly as you already have it from your earlier reads. (symbolpack:" in text and "not an error" in text
    assert len(text) < 160 and "\n" not in text  # one short line: this is the common case


def test_the_native_first_read_is_recorded_in_the_copy(repo):
    agent = Agent(repo)
    from symbolpack.state.store import Store

    agent.read("big.txt", offset=10, limit=5)
    store = Store(repo)
    with store.session(claude.session_id_for({"session_id": agent.session_id}), write=False) as session:
        copy = session.copy("big.txt")
    assert copy.length is None and not copy.pending  # the hook's (empty) output went out: committed
    assert [run[:2] for run in copy.runs] == [(10, 14)] and copy.runs[0][3] is None
    assert store.get_object(copy.runs[0][2]) == (repo / "big.txt").read_bytes()


def test_an_answer_never_delivered_leaves_its_lines_unsure(repo):
    agent = Agent(repo)
    agent.read("app.py")
    path = repo / "app.py"
    path.write_text(path.read_text().replace("    total += 3\n", "    total += 333\n", 1))
    payload = agent._payload("PreToolUse", "Read", {"file_path": str(path)})
    assert run_hook_undelivered("claude-pre-read", payload, repo) == 0  # a [DELTA] nobody received
    # the agent may or may not have the new lines: never [UNCHANGED], a plain (native) read
    assert agent.read("app.py") is None
    assert "[UNCHANGED] app.py: exactly as you already have it from your earlier reads. (symbolpack:" in reason(agent.read("app.py"))  # that one was delivered


def test_re_read_after_an_outside_change_shows_what_changed(repo):
    agent = Agent(repo)
    agent.read("app.py")
    path = repo / "app.py"
    path.write_text(path.read_text().replace("    total += 3\n", "    total += 333\n", 1))
    text = reason(agent.read("app.py"))
    # the model holds every line (a native read): a diff is the smallest answer
    assert ("\n[DIFF] app.py changed (108 -> 108 lines); unified diff against your copy:\n@@ -2,7 +2,7 @@\n"
            "     total += 0\n     total += 1\n     total += 2\n-    total += 3\n+    total += 333\n") in text
    assert "[UNCHANGED] app.py: exactly as you already have it from your earlier reads. (symbolpack:" in reason(agent.read("app.py"))  # and now it is current again


def test_baseline_follows_the_native_default_cap_and_ranges(repo):
    agent = Agent(repo)
    assert agent.read("big.txt") is None  # native shows lines 1-2000 of 2500
    # the model asked for the whole file: held, the capped scope is a marker
    assert "[UNCHANGED] big.txt:1-2000: exactly as you already have them" in reason(agent.read("big.txt"))
    assert agent.read("big.txt", offset=2001) is None  # never seen: the native tool shows it
    # a range the model asks for is shown, held or not (real models distrusted markers there)
    assert agent.read("big.txt", offset=2001) is None
    assert agent.read("big.txt", offset=100, limit=20) is None


def test_a_range_first_read_records_that_range_only(repo):
    agent = Agent(repo)
    assert agent.read("app.py", offset=5, limit=10) is None
    assert agent.read("app.py", offset=5, limit=10) is None  # asked for again: shown again
    assert agent.read("app.py") is None  # the whole file was never shown: plain read, natively


def test_a_file_in_no_repository_is_followed_too(tmp_path):
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "notes.py").write_text(module(funcs=2))
    agent = Agent(loose)  # no .git anywhere: the file is named by its absolute path
    assert agent.read("notes.py") is None
    assert "[UNCHANGED]" in reason(agent.read("notes.py"))


def test_subagents_get_their_own_view(repo):
    parent = Agent(repo)
    parent.read("app.py")
    child = Agent(repo, agent_id="agent-7")
    assert child.read("app.py") is None  # same session_id, but this agent never saw it
    assert "[UNCHANGED]" in reason(child.read("app.py"))


# --------------------------------------------------------------------------- post-edit

def test_own_edits_keep_the_view_current(repo):
    agent = Agent(repo)
    agent.read("app.py")
    guard, note = agent.edit("app.py", "def func2(total):\n", "def func2(total, extra=0):\n")
    assert guard is None and note is None
    guard, _ = agent.edit("app.py", "def func3(total):\n", "def func3(total):\n    total -= 1\n")
    assert guard is None  # its own earlier edit does not trip the guard
    assert "[UNCHANGED] app.py: exactly as you already have it from your earlier reads. (symbolpack:" in reason(agent.read("app.py"))


def test_own_edits_of_a_file_without_final_newline_keep_the_copy(make_repo):
    root = make_repo({"tail.py": module(funcs=4) + "def last(total):\n    return total"})
    agent = Agent(root)
    assert agent.read("tail.py") is None
    guard, note = agent.edit("tail.py", "    return total\n\n\ndef last", "    return total + 1\n\n\ndef last")
    assert guard is None and note is None
    guard, note = agent.edit("tail.py", "def last(total):\n    return total", "def last(total):\n    return -total")
    assert guard is None and note is None
    assert not (root / "tail.py").read_text().endswith("\n")
    assert "[UNCHANGED] tail.py: exactly as you already have it from your earlier reads. (symbolpack:" in reason(agent.read("tail.py"))


def test_multiedit_and_write_update_the_view(repo):
    agent = Agent(repo)
    agent.read("app.py")
    edits = [{"old_string": "def func0(total):\n", "new_string": "def func0(total, a=1):\n"},
             {"old_string": "def func1(total):\n", "new_string": "def func1(total, b=2):\n"}]
    assert agent.pre_edit("app.py", tool="MultiEdit", edits=edits) is None
    path = repo / "app.py"
    text = path.read_text()
    for e in edits:
        text = text.replace(e["old_string"], e["new_string"], 1)
    path.write_text(text)
    assert agent.post_edit("app.py", tool="MultiEdit", edits=edits) is None
    assert "[UNCHANGED]" in reason(agent.read("app.py"))

    content = module(funcs=3)  # (a one-line file would be read plainly: the marker costs more)
    assert agent.pre_edit("app.py", tool="Write", content=content) is None
    path.write_text(content)
    agent.post_edit("app.py", tool="Write", content=content)
    assert reason(agent.read("app.py")).startswith("[UNCHANGED] app.py: exactly as you already have it from your earlier reads. (symbolpack: ")


def test_a_new_file_written_by_the_agent_is_known(repo):
    agent = Agent(repo)
    content = module(funcs=2)
    assert agent.pre_edit("new.py", tool="Write", content=content) is None
    (repo / "new.py").write_text(content)
    agent.post_edit("new.py", tool="Write", content=content)
    assert "[UNCHANGED] new.py: exactly as you already have it from your earlier reads. (symbolpack:" in reason(agent.read("new.py"))


def test_a_formatter_after_the_edit_makes_the_next_read_plain(repo):
    agent = Agent(repo)
    agent.read("app.py")
    path = repo / "app.py"
    args = {"old_string": "def func4(total):\n", "new_string": "def func4(total,x):\n"}
    assert agent.pre_edit("app.py", **args) is None
    path.write_text(path.read_text().replace("def func4(total):\n", "def func4(total, x):\n"))  # formatted
    assert agent.post_edit("app.py", **args) is None
    # the edit replayed on the copy is not the file: the copy is dropped, never trusted
    assert session_doc(repo, agent)["files"].get("app.py") is None
    assert agent.read("app.py") is None  # the native tool shows what the formatter wrote
    assert "[UNCHANGED] app.py: exactly as you already have it from your earlier reads. (symbolpack:" in reason(agent.read("app.py"))


def test_an_edit_carries_a_partial_copy(repo):
    agent = Agent(repo)
    agent.read("big.txt")  # lines 1-2000 of 2500: the end of the file was never shown
    _, note = agent.edit("big.txt", "row 10\n", "row ten\nrow 10.5\n")
    assert note is None
    doc = session_doc(repo, agent)
    length, runs, shas, pending = doc["files"]["big.txt"]["copy"]
    assert length is None and runs == [[1, 2001, 0, None]] and not pending  # shifted by the inserted line
    assert "[UNCHANGED] big.txt:1-2000: exactly as" in reason(agent.read("big.txt"))  # and every one of them is right
    assert agent.read("big.txt", offset=2002) is None  # never shown: the native tool shows it


def test_an_edit_inside_an_elided_body_is_flagged_and_its_lines_become_known(repo):
    from symbolpack.api.operations import Workspace, read_file

    agent = Agent(repo)
    session = claude.session_id_for({"session_id": agent.session_id})
    ws = Workspace(repo)
    first = read_file(ws, repo / "app.py", session).response  # a skeleton, as `tldrs read` shows it
    ws.close()
    assert first["mode"] == "skeleton"
    old = "def func3(total):\n" + body(14)
    new = old.replace("    total += 2\n", "    total += 22\n")
    path = repo / "app.py"
    path.write_text(path.read_text().replace(old, new))  # the tool's write (no pre-edit hook installed)
    note = agent.post_edit("app.py", old_string=old, new_string=new)
    assert note is not None and note["hookEventName"] == "PostToolUse"
    assert "func3" in note["additionalContext"] and "elided" in note["additionalContext"]
    length, runs, shas, _ = session_doc(repo, agent)["files"]["app.py"]["copy"]
    start = path.read_text().splitlines().index("def func3(total):") + 1
    known = [r for r in runs if r[3] is None]
    assert any(a <= start and start + 14 <= b for a, b, _, _ in known)  # the lines it wrote
    assert [r for r in runs if r[0] == start + 15] == [[start + 15, start + 15, 0, "app.py:python:func3"]]  # still elided


def test_notebook_edits_drop_the_view(repo):
    agent = Agent(repo)
    agent.read("app.py")
    rc, out, _ = run_hook("claude-post-edit", agent._payload("PostToolUse", "NotebookEdit", {
        "notebook_path": str(repo / "app.py"), "new_source": "x"}), repo)
    assert rc == 0 and out == ""
    assert agent.read("app.py") is None


# --------------------------------------------------------------------------- pre-edit guard

def test_guard_denies_an_edit_of_lines_changed_outside_then_serves_fresh(repo):
    agent = Agent(repo)
    agent.read("app.py")
    path = repo / "app.py"
    path.write_text(path.read_text().replace("def func1(total):\n", "def func1(total, y=0):\n"))
    text = reason(agent.pre_edit("app.py", old_string="def func1(total", new_string="def func1(t"))
    line = path.read_text().splitlines().index("def func1(total, y=0):") + 1
    assert "NOT applied" in text and f"line {line} changed on disk" in text
    assert agent.read("app.py") is None  # after the failed edit: the native tool shows it fresh
    assert agent.pre_edit("app.py", old_string="def func1(total", new_string="def func1(t") is None


def test_guard_allows_edits_of_lines_unchanged_since_read(repo):
    agent = Agent(repo)
    agent.read("app.py")
    path = repo / "app.py"
    path.write_text(path.read_text().replace("    total += 5\n", "    total += 55\n", 1))  # in func0
    guard, _ = agent.edit("app.py", "def func1(total):\n", "def func1(t):\n")
    assert guard is None  # the lines it changes are exactly as the agent read them
    # its copy is not the file (func0 changed under it): dropped, and the next read is plain
    assert agent.read("app.py") is None


def test_guard_allows_edits_of_elided_lines_and_says_so_afterwards(repo):
    """Claude Code allows an edit after a partial read (the text may come from grep):
    the guard does too, and the post-edit hook tells the agent what it edited unseen."""
    from symbolpack.api.operations import Workspace, read_file

    agent = Agent(repo)
    ws = Workspace(repo)
    assert read_file(ws, repo / "app.py", claude.session_id_for({"session_id": agent.session_id})
                     ).response["mode"] == "skeleton"
    ws.close()
    guard, note = agent.edit("app.py", "def func2(total):\n    total += 0\n    total += 1\n", "def func2(total):\n")
    assert guard is None
    assert note is not None and "only seen elided or never read" in note["additionalContext"]
    assert "func2" in note["additionalContext"]


def test_guard_allows_an_edit_of_code_a_context_pack_showed_without_final_newline(make_repo):
    """Item 6: a file without a final newline, seen through `tldrs context`, was
    reported changed on disk when it was not."""
    source = module(funcs=3) + "def last(total):\n    total += func0(total)\n    return total"
    root = make_repo({"lib.py": source})
    agent = Agent(root)
    sid = claude.session_id_for({"session_id": agent.session_id})
    pack = tldrs(root, "context", "last", "--session-id", sid)
    assert pack.returncode == 0, pack.stderr
    assert "return total" in pack.stdout and "def last(total):" in pack.stdout
    guard, note = agent.edit("lib.py", "    total += func0(total)\n    return total",
                             "    total += func0(total) + 1\n    return total")
    assert guard is None and note is None
    guard, _ = agent.edit("lib.py", "    total += func0(total) + 1\n", "    total += func0(total) + 2\n")
    assert guard is None  # its own earlier edit never trips it
    assert not (root / "lib.py").read_text().endswith("\n")
    assert agent.pre_edit("lib.py", old_string="def func1(total):\n", new_string="def func1(t):\n") is None
    # the pack never showed func1: allowed, as Claude Code allows it


def test_guard_trusts_content_not_mtime(repo):
    agent = Agent(repo)
    agent.read("app.py")
    path = repo / "app.py"
    os.utime(path, (path.stat().st_atime + 1000, path.stat().st_mtime + 1000))  # touched, same bytes
    assert agent.pre_edit("app.py", old_string="def func1(total):\n", new_string="def func1(t):\n") is None


def test_guard_allows_edits_of_lines_never_seen_but_not_a_write_over_them(repo):
    agent = Agent(repo)
    agent.read("big.txt")  # lines 1-2000
    assert agent.pre_edit("big.txt", old_string="row 2300\n", new_string="ROW\n") is None
    assert "overwrites big.txt" in reason(agent.pre_edit("big.txt", tool="Write", content="x\n"))
    assert agent.pre_edit("big.txt", old_string="row 1500\n", new_string="ROW\n") is None


def test_an_edit_of_lines_never_seen_after_a_range_read_is_reported_after_it(repo):
    """A range-only Read, then an Edit of lines the model never saw: Claude Code applies
    it (the text may come from grep); the copy cannot be carried (it never held those
    lines) and is dropped, and the post-edit hook says what the model edited unseen."""
    agent = Agent(repo)
    assert agent.read("big.txt", offset=20, limit=30) is None  # lines 20-49, native
    guard, note = agent.edit("big.txt", "row 101\n", "row one-oh-one\nrow 101.5\n")
    assert guard is None
    assert note is not None and note["hookEventName"] == "PostToolUse"
    text = note["additionalContext"]
    assert "big.txt" in text and "never read" in text and "old lines 101-101 (now lines 101-102)" in text
    assert "big.txt" not in session_doc(repo, agent)["files"]  # the copy is dropped: the next read is plain
    # an edit inside the lines it was shown says nothing
    assert agent.read("big.txt", offset=20, limit=30) is None
    guard, note = agent.edit("big.txt", "row 30\n", "row thirty\n")
    assert guard is None and note is None


def test_guard_allows_lines_that_only_moved(repo):
    """The false refusal the issue measured: a line inserted at the top on disk moves
    every line down; an edit of text the agent was shown, unchanged, goes through."""
    agent = Agent(repo)
    agent.read("app.py")
    path = repo / "app.py"
    path.write_text("import os\n" + path.read_text())
    guard, _ = agent.edit("app.py", "def func3(total):\n    total += 0\n", "def func3(total):\n    total += 100\n")
    assert guard is None


def test_guard_refuses_old_text_that_now_stands_elsewhere(repo):
    """A line the agent was shown changed on disk, and its old text now stands on a
    line the agent holds with other text: the native tool would edit the wrong place."""
    agent = Agent(repo)
    agent.read("app.py")
    path = repo / "app.py"
    lines = path.read_text().split("\n")
    first = lines.index("def func1(total):")
    other = lines.index("def func4(total):")
    lines[first] = "def func1(total, y=0):"
    lines[other] = "def func1(total):"  # the agent's old text, now where it holds func4
    path.write_text("\n".join(lines))
    text = reason(agent.pre_edit("app.py", old_string="def func1(total):\n", new_string="def func1(t):\n"))
    assert "NOT applied" in text and f"line {other + 1} changed on disk" in text


def test_a_failed_edit_makes_the_next_read_fresh(repo):
    agent = Agent(repo)
    agent.read("app.py")
    assert agent.pre_edit("app.py", old_string="def func1(total):\n", new_string="def func1(t):\n") is None
    # the native Edit failed (or was rejected): no PostToolUse
    assert agent.read("app.py") is None
    assert "[UNCHANGED]" in reason(agent.read("app.py"))


def test_guard_ignores_files_it_never_saw_and_new_files(repo):
    agent = Agent(repo)
    assert agent.pre_edit("app.py", old_string="def func1(total):\n", new_string="x") is None
    assert agent.pre_edit("nope.py", tool="Write", content="x") is None


# --------------------------------------------------------------------------- session start

def test_compaction_drops_every_copy(repo):
    agent = Agent(repo)
    agent.read("app.py")
    agent.read("big.txt")
    path = repo / "app.py"
    path.write_text(path.read_text().replace("def func1(total):\n", "def func1(total, y=0):\n"))
    assert agent.pre_edit("app.py", old_string="def func1(total", new_string="x") is not None  # hook state too
    assert agent.session_start("startup") is None
    assert agent.read("big.txt") is not None  # a new process on the same context keeps the copies
    out = agent.session_start("compact")
    assert out is not None and out["hookEventName"] == "SessionStart"
    doc = session_doc(repo, agent)
    assert doc["files"] == {} and claude.STATE_KEY not in doc and "symbols" not in doc
    assert agent.read("app.py") is None  # full again
    assert agent.session_start("clear") is not None


def test_a_resume_drops_every_copy_because_a_rewind_is_a_resume(repo):
    """`claude --resume SID --resume-session-at UUID` keeps the session id, fires only
    SessionStart(resume), and the reads after that message are gone from the context:
    an [UNCHANGED] answer then would lean on content the model no longer has."""
    agent = Agent(repo)
    assert agent.read("app.py") is None  # first read: native
    assert "[UNCHANGED]" in agent.read("app.py")["permissionDecisionReason"]
    out = agent.session_start("resume")
    assert out is not None and "dropped" in out["additionalContext"]
    assert agent.read("app.py") is None  # native and full again, never [UNCHANGED]


# --------------------------------------------------------------------------- never break a tool call

MALFORMED = [
    "", "not json", "[1, 2]", "null", '"text"', "{}",
    json.dumps({"session_id": "s", "tool_name": "Read"}),
    json.dumps({"session_id": "s", "tool_name": "Read", "tool_input": "x"}),
    json.dumps({"session_id": "s", "tool_name": "Read", "tool_input": {"file_path": 42}}),
    json.dumps({"session_id": 7, "tool_name": "Read", "tool_input": {"file_path": "/etc/hostname"}}),
    json.dumps({"tool_name": "Read", "tool_input": {"file_path": "/etc/hostname"}}),
    json.dumps({"session_id": "s", "tool_name": "Read", "tool_input": {"file_path": "/no/such/file"}}),
    json.dumps({"session_id": "s", "tool_name": "Read", "tool_input": {"file_path": "/"}}),
    json.dumps({"session_id": "s", "tool_name": "Read", "tool_input": {"file_path": "/dev/null", "offset": "x"}}),
    json.dumps({"session_id": "s", "tool_name": "Edit", "tool_input": {"file_path": "/no/such", "edits": 3}}),
    json.dumps({"session_id": "s", "tool_name": "MultiEdit", "tool_input": {"file_path": "/etc/hostname",
                                                                           "edits": [1, None]}}),
    json.dumps({"session_id": "../../etc", "hook_event_name": "SessionStart", "source": 5}),
]


@pytest.mark.parametrize("name", claude.HOOKS)
@pytest.mark.parametrize("stdin", MALFORMED)
def test_malformed_payloads_exit_0_without_a_decision(name, stdin, tmp_path):
    rc, out, _ = run_hook(name, stdin, cwd=tmp_path)
    assert rc == 0 and out == ""


def test_binary_and_sensitive_files_pass_through(repo):
    (repo / "blob.bin").write_bytes(b"\0\1\2" * 100)
    (repo / ".env").write_text("SECRET=1\n")
    agent = Agent(repo)
    for rel in ("blob.bin", ".env"):
        assert agent.read(rel) is None and agent.read(rel) is None


def test_a_broken_store_never_breaks_the_tool_call(repo):
    agent = Agent(repo)
    agent.read("app.py")
    sessions = repo / ".symbolpack" / "sessions"
    for doc in sessions.rglob("*.json"):  # the session document and every file record
        doc.write_text("{broken")
    rc, out, _ = run_hook("claude-pre-read", agent._payload("PreToolUse", "Read", {"file_path": str(repo / "app.py")}),
                          repo)
    assert rc == 0  # fails open: a plain read, by the native tool or as content
    assert out == "" or "[UNCHANGED]" not in out


def test_unknown_hook_name_is_harmless(tmp_path):
    rc, out, err = run_hook("claude-nope", "{}", cwd=tmp_path)
    assert rc == 0 and out == "" and "unknown hook" in err


# --------------------------------------------------------------------------- pieces

def test_native_scope_matches_the_native_tool():
    assert claude.native_scope(100, None, None) == (None, None)
    assert claude.native_scope(2500, None, None) == (1, 2000)
    assert claude.native_scope(2500, 2001, None) == (2001, 500)
    assert claude.native_scope(100, 10, 5) == (10, 5)
    assert claude.native_scope(100, 0, None) == (None, None)
    assert claude.native_scope(100, 1, 100) == (None, None)


def test_session_ids_are_file_name_safe():
    assert claude.session_id_for({"session_id": "abc-123"}) == "claude-abc-123"
    assert claude.session_id_for({"session_id": "abc", "agent_id": "a1"}) == "claude-abc-a1"
    weird = claude.session_id_for({"session_id": "../../x y"})
    assert weird.startswith("claude-") and "/" not in weird and " " not in weird
    assert claude.session_id_for({}) is None


def test_replay_knows_the_lines_written_and_carries_the_rest():
    K, G, H = claude.KNOWN, claude.GAP, claude._hidden_mark("f")
    text, marks = "a\nb\nc\nd\n", [K, H, G, K, K]
    seen = []
    out = claude.replay(text, marks, [("b\nc\n", "B\nx\nC\n", False)], lambda *t: seen.append(t))
    assert out == ("a\nB\nx\nC\nd\n", [K, K, K, K, K, K])  # written wholly by the agent: known
    assert seen == [(2, 3, [H, G], 2, 4)]
    text2, marks2 = claude.replay("a\nb1\nc\nd\n", marks, [("b", "bb", False)])
    assert text2 == "a\nbb1\nc\nd\n" and marks2 == marks  # a piece of a hidden line kept: still hidden
    assert claude.replay(text, marks, [("z", "y", False)]) is None  # the native tool refuses it
    assert claude.replay("q q", [K], [("q", "r", True)]) == ("r r", [K])


def test_carry_edit_follows_the_copy_and_checks_it_against_the_file():
    from symbolpack.reads.agentcopy import AgentCopy

    K, G, H = claude.KNOWN, claude.GAP, claude._hidden_mark("f")
    v1, sha = ["a", "b", "c", "d"], "1" * 64
    copy = AgentCopy(None, ((1, 2, sha, None), (3, 3, sha, "f")))  # lines 1-3 seen in a range; c elided
    load = {sha: v1}.get
    cells, blind = claude.carry_edit(copy, load, [("b\n", "B\nb2\n", False)], ["a", "B", "b2", "c", "d", "e"])
    assert cells[1:] == [K, K, K, H, G, G] and blind == []
    assert claude.carry_edit(copy, load, [("b\n", "B\n", False)], ["a", "X", "c", "d"]) is None  # not the file
    assert claude.carry_edit(copy, load, [("d", "D", False)], ["a", "b", "c", "D"]) is None  # never shown: no replay
    pending = AgentCopy(4, ((1, 4, sha, None),), (("i1", 2, 2),))
    cells, blind = claude.carry_edit(pending, load, [("c", "C", False)], ["a", "b", "C", "d"], final_newline=False)
    assert cells[1:] == [K, G, K, K]  # an undelivered line is carried as unknown


def test_apply_edit_follows_the_native_rules():
    assert claude.apply_edit("a b a", "b", "c") == "a c a"
    assert claude.apply_edit("a b a", "a", "c") is None  # not unique
    assert claude.apply_edit("a b a", "a", "c", True) == "c b c"
    assert claude.apply_edit("", "", "new") == "new"
    assert claude.apply_edit("x", "q", "y") is None


def test_a_range_the_model_asks_for_is_shown_whatever_it_holds(repo):
    """A range the model gives offset/limit for is the native tool's (real models read a
    marker there as text withheld); a whole-file read it holds is the marker."""
    agent = Agent(repo)
    agent.read("app.py")
    assert agent.read("app.py", offset=5, limit=1) is None
    assert agent.read("app.py", offset=5, limit=40) is None
    assert "[UNCHANGED]" in reason(agent.read("app.py"))
