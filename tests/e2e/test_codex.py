"""The real Codex CLI (pinned in npm/codex/package-lock.json) with what `tldrs install codex`
writes, in a throwaway HOME and project, its model a scripted fake on 127.0.0.1
(`fake_openai.py`).

- Trust: Codex ignores a project's `.codex/config.toml` until the project is trusted.
  The installer must say so, `tldrs doctor` must report it inactive, and after
  trusting, `codex mcp get symbolpack --json` shows the server and doctor is clean.
- Work: `codex exec` whose model calls symbolpack's `read_file` twice on one file,
  passing back the answer id it sees, judged on the requests the model received:
  the tools were offered in the first request, both calls ran under Codex's default
  approval (the tools are annotated read-only; nothing else is written into the
  config), and the second answered `[UNCHANGED]`. Ten runs, each a fresh Codex and
  server, with no start-up grace setting: Codex gives an MCP server about a second
  before the first request.
- Compaction and resume: a scripted model that passes back exactly the answer ids
  its request shows reads, re-reads, reads after an outside change, drills in; Codex
  compacts the conversation (the fake reports a token count over the limit); the
  model reads on; `codex exec resume --last` (a new server process) reads once more.
  Every answer is judged in the request that delivered it (`mcp_view.judge`).
- Rewind and fork: Codex 0.171 has no rewind in `codex exec` (its TUI's backtrack is
  interactive), but its app server (`codex app-server`, JSON-RPC on stdio, the protocol
  the TUI and IDE clients speak) has `thread/revert` {threadId, beforeTurnId}: "Replace a
  paginated thread's durable history with the prefix before one turn" (a thread must be
  loaded first, `thread/resume`; turns are listed by `thread/turns/list`); `codex exec
  fork <SESSION_ID> [PROMPT]` forks a saved session into a new one (`thread/fork`, which
  also takes `lastTurnId`/`beforeTurnId`). The scripted model reads (a skeleton), then in
  a second turn drills into rule7 and re-reads; the second turn is reverted; a teammate
  changes rule7; `codex exec resume` reads again: its request no longer carries the
  drill-in or the re-read, and the answer leans only on the first read. Then `codex exec
  fork` reads rule3 in the fork; the file changes; the original and the fork each read
  again, each judged in its own request (the original's never leans on the fork's answer).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import clients
import fake_openai
import mcp_view

from symbolpack.integrations.installers.doctor import INACTIVE

APP = "".join(f"def rule{i}(value):\n    return value * {i + 3}\n\n\n" for i in range(40))
RUNS = 10


@pytest.fixture(scope="module")
def codex() -> Path:
    return clients.node_bin("codex", "codex")  # installs the pinned client when the cache lacks it; fails, never skips


class Lab:
    def __init__(self, root: Path, codex: Path):
        self.codex = codex
        self.home = root / "home"
        self.home.mkdir(parents=True)
        self.proj = root / "proj"
        self.proj.mkdir()
        clients.keep_scenario_threshold(self.proj)
        (self.proj / "app.py").write_text(APP)
        subprocess.run(["git", "init", "-q"], cwd=self.proj, check=True)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
                    "XDG_STATE_HOME": str(root / "state"), "FAKE_OPENAI_KEY": "fake"}

    def tldrs(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=self.proj, env=self.env,
                              capture_output=True, text=True, timeout=120)

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.codex), "-c", "analytics.enabled=false",
                               "-c", "check_for_update_on_startup=false", *args],
                              cwd=self.proj, env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)

    def trust(self) -> None:
        (self.home / ".codex").mkdir(exist_ok=True)
        (self.home / ".codex" / "config.toml").write_text(
            f'[projects."{os.path.realpath(self.proj)}"]\ntrust_level = "trusted"\n')

    def doctor(self) -> tuple[int, dict]:
        proc = self.tldrs("doctor", "--json")
        return proc.returncode, json.loads(proc.stdout)


def codex_target(report: dict) -> dict:
    return next(t for t in report["targets"] if t["agent"] == "codex" and t["scope"] == "project")


def test_install_says_trust_doctor_says_inactive_until_the_project_is_trusted(tmp_path, codex):
    lab = Lab(tmp_path, codex)
    real = os.path.realpath(lab.proj)
    installed = lab.tldrs("install", "codex")
    assert installed.returncode == 0, installed.stderr
    assert f'[projects."{real}"] trust_level = "trusted"' in installed.stdout

    untrusted = lab.run("mcp", "get", "symbolpack", "--json")
    assert untrusted.returncode == 1 and "No MCP server named 'symbolpack' found." in untrusted.stderr
    code, report = lab.doctor()
    assert code == 1 and codex_target(report)["status"] == INACTIVE

    lab.trust()
    got = lab.run("mcp", "get", "symbolpack", "--json")
    assert got.returncode == 0, got.stderr
    server = json.loads(got.stdout)
    config = (lab.proj / ".codex" / "config.toml").read_text()
    assert server["name"] == "symbolpack" and server["enabled"] is True
    assert f'command = "{server["transport"]["command"]}"' in config
    assert server["transport"]["args"][-1] == "mcp"
    code, report = lab.doctor()
    assert code == 0, report["problems"]
    assert codex_target(report)["status"] == "installed" and "read_file" in codex_target(report)["server"]["tools"]


def visible_ids(body: dict) -> list[str]:
    """The answer ids the request shows the model: what a model passes back as `known`."""
    return [a.ident for a in mcp_view.answers_in(body.get("input", [])) if a.ident]


def read_call(body: dict, **more) -> dict:
    ids = visible_ids(body)
    return fake_openai.call("read_file", {"path": "app.py", **more, **({"known": ids} if ids else {})},
                            namespace="mcp__symbolpack")


def read_twice(body: dict) -> list[dict]:
    """The scripted model: read app.py through symbolpack, read it again, then stop."""
    offered = ("mcp__symbolpack", "read_file") in fake_openai.tools(body)
    done = len(fake_openai.outputs(body))
    if offered and done < 2:
        return [read_call(body)]
    return [fake_openai.say("done")]


def test_codex_exec_gets_the_tools_and_runs_both_reads_every_time(tmp_path, codex):
    results = []
    for k in range(RUNS):
        lab = Lab(tmp_path / f"run{k}", codex)
        assert lab.tldrs("install", "codex").returncode == 0
        lab.trust()
        server, port = fake_openai.start(read_twice)
        try:
            proc = lab.run("exec", "--skip-git-repo-check", "-c", "model_provider=fake", "-c", "model=gpt-fake",
                           "-c", 'model_providers.fake.name="fake"',
                           "-c", f'model_providers.fake.base_url="http://127.0.0.1:{port}/v1"',
                           "-c", 'model_providers.fake.wire_api="responses"',
                           "-c", 'model_providers.fake.env_key="FAKE_OPENAI_KEY"',
                           "Read app.py twice with symbolpack.")
            assert proc.returncode == 0, proc.stderr[-2000:]
            requests = server.requests()
        finally:
            server.shutdown()
        offered = bool(requests) and ("mcp__symbolpack", "read_file") in fake_openai.tools(requests[0])
        answers = [fake_openai.output_text(o) for o in fake_openai.outputs(requests[-1])] if requests else []
        results.append({"offered": offered, "answers": answers})
    assert "mcp_optional_startup_grace_ms" not in (tmp_path / "run0" / "proj" / ".codex" / "config.toml").read_text()
    offered = sum(r["offered"] for r in results)
    ran = sum(len(r["answers"]) == 2 and not any("requires approval" in a for a in r["answers"]) for r in results)
    assert (offered, ran) == (RUNS, RUNS), (f"tools offered in {offered}/{RUNS} runs, both reads ran in {ran}/{RUNS}; "
                                            f"first answers: {[r['answers'][:1] for r in results]}")
    for r in results:
        first, second = r["answers"]
        assert "def rule0(value):" in first and "[UNCHANGED]" not in first
        assert "[UNCHANGED]" in second


BODY = "".join(f"def rule{i}(value):\n" + "".join(f"    value += {j}\n" for j in range(12)) +
               f"    return value * {i + 3}\n\n\n" for i in range(30))
COMPACTION = "You are performing a CONTEXT CHECKPOINT COMPACTION"


class Scripted:
    """The model of the compaction scenario: one planned step per request (the
    compaction request Codex makes is answered with a summary that names no ids)."""

    PLAN = ["read", "re-read", "change-and-read", "drill-in", "read", "re-read", "done", "read", "done"]

    def __init__(self, app: Path):
        self.app = app
        self.steps = iter(self.PLAN)
        self.compact_next = False
        self.judged: list[tuple[str, list[str]]] = []  # (answer text, problems) per delivered answer
        self.seen: set[str] = set()

    def turn(self, body: dict) -> list[dict]:
        items = body.get("input", [])
        users = [i for i in items if i.get("role") == "user"]
        last_user = "".join(c.get("text", "") for c in (users[-1].get("content") or [])) if users else ""
        answers = mcp_view.answers_in(items)
        outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
        if outputs and outputs[-1] not in self.seen:  # the answer this request is the first to deliver,
            self.seen.add(outputs[-1])  # made with the file as it is now
            self.judged.append((answers[-1].text, mcp_view.judge(answers, self.app.read_text().split("\n"))))
        if last_user.startswith(COMPACTION):
            return [fake_openai.say("Summary: the user asked me to read app.py; I read it.")]
        step = next(self.steps, "done")
        if step == "change-and-read":  # a teammate's push: a body the skeleton hid, and a new function
            self.app.write_text(self.app.read_text().replace("    value += 5\n    value += 6\n    value += 7\n"
                                                             "    value += 8\n    value += 9\n    value += 10\n"
                                                             "    value += 11\n    return value * 10",
                                                             "    value += 555\n    value += 6\n    value += 7\n"
                                                             "    value += 8\n    value += 9\n    value += 10\n"
                                                             "    value += 11\n    return value * 10", 1)
                                + "def added(value):\n    return value\n")
        if step == "drill-in":
            self.compact_next = True
            return [read_call(body, symbol="rule7")]
        if step in ("read", "re-read", "change-and-read"):
            return [read_call(body)]
        return [fake_openai.say("done")]

    def usage(self, body: dict) -> int:
        if self.compact_next:  # over model_auto_compact_token_limit: Codex compacts before its next request
            self.compact_next = False
            return 200_000
        return 110


def test_after_a_compaction_and_a_resume_answers_lean_only_on_what_the_request_carries(tmp_path, codex):
    lab = Lab(tmp_path, codex)
    (lab.proj / "app.py").write_text(BODY)
    assert lab.tldrs("install", "codex").returncode == 0
    lab.trust()
    model = Scripted(lab.proj / "app.py")
    server, port = fake_openai.start(model.turn, usage=model.usage)
    provider = ["-c", "model_provider=fake", "-c", "model=gpt-fake", "-c", 'model_providers.fake.name="fake"',
                "-c", f'model_providers.fake.base_url="http://127.0.0.1:{port}/v1"',
                "-c", 'model_providers.fake.wire_api="responses"', "-c", 'model_providers.fake.env_key="FAKE_OPENAI_KEY"',
                "-c", "model_auto_compact_token_limit=100000"]
    try:
        first = lab.run("exec", "--skip-git-repo-check", *provider, "Read app.py.")
        assert first.returncode == 0, first.stderr[-2000:]
        assert "context compacted" in first.stderr, first.stderr[-3000:]
        resumed = lab.run("exec", "resume", "--last", "--skip-git-repo-check", *provider, "Read app.py once more.")
        assert resumed.returncode == 0, resumed.stderr[-2000:]
    finally:
        server.shutdown()
    kinds = [text.split(" ", 1)[0] if text.startswith("[") else "rows" for text, _ in model.judged]
    # read, re-read, the change (inside rule7's hidden body, plus an added function), the drill-in;
    # after the compaction a first read again and a re-read; after the resume a re-read
    assert kinds == ["[SKELETON]", "[UNCHANGED]", "[DELTA]", "rows", "[SKELETON]", "[UNCHANGED]", "[UNCHANGED]"], (kinds, \
        [text[:300] for text, _ in model.judged])
    problems = [p for _, ps in model.judged for p in ps]
    assert problems == []
    assert "value += 555" in model.judged[3][0]


def test_uninstall_keeps_the_users_key_and_doctor_names_what_codex_then_refuses(tmp_path, codex):
    lab = Lab(tmp_path, codex)
    lab.trust()
    assert lab.tldrs("install", "codex").returncode == 0
    config = lab.proj / ".codex" / "config.toml"
    config.write_text(config.read_text() + "startup_timeout_sec = 30\n")
    assert lab.run("mcp", "list").returncode == 0
    removed = lab.tldrs("uninstall", "codex")
    assert removed.returncode == 0 and "kept [mcp_servers.symbolpack]" in removed.stdout
    assert config.read_text() == "[mcp_servers.symbolpack]\nstartup_timeout_sec = 30\n"
    refused = lab.run("mcp", "list")  # the fact doctor's warning rests on
    assert refused.returncode == 1 and "invalid transport" in refused.stderr
    code, report = lab.doctor()
    assert code == 1 and codex_target(report)["status"] == "leftover table"
    assert lab.tldrs("install", "codex").returncode == 0
    assert lab.run("mcp", "list").returncode == 0


class AppServer(clients.StdioJsonRpc):
    """`codex app-server` on stdio: JSON-RPC requests, one line each; notifications skipped."""

    def __init__(self, lab: Lab, provider: list[str]):
        super().__init__([str(lab.codex), "-c", "analytics.enabled=false", "-c", "check_for_update_on_startup=false",
                          "app-server", *provider], "codex app-server", lab.proj, lab.env)
        self.request("initialize", {"clientInfo": {"name": "symbolpack-e2e", "version": "1"},
                                    "capabilities": {"experimentalApi": True}})
        self.send({"jsonrpc": "2.0", "method": "initialized"})


class Branching:
    """The model of the rewind and fork scenario: per prompt, the reads it makes, one per request."""

    PLANS = {
        "Read app.py.": [{}],
        "Look inside rule7.": [{"symbol": "rule7"}, {}],
        "Read app.py again.": [{}],
        "Read rule3 in the fork.": [{"symbol": "rule3"}],
        "Read app.py in the original.": [{}],
        "Read app.py in the fork.": [{}],
    }

    def __init__(self, app: Path):
        self.app = app
        self.seen: set[str] = set()
        self.judged: list[dict] = []  # per delivered answer: prompt, id, relies, kind, visible ids, problems

    def turn(self, body: dict) -> list[dict]:
        items = body.get("input", [])
        at = max((k for k, i in enumerate(items) if i.get("role") == "user" and self.prompt(i) in self.PLANS),
                 default=None)
        if at is None:
            return [fake_openai.say("done")]
        prompt = self.prompt(items[at])
        answers = mcp_view.answers_in(items)
        outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
        if outputs and outputs[-1] not in self.seen:  # the answer this request is the first to deliver
            self.seen.add(outputs[-1])
            last = answers[-1]
            self.judged.append({"prompt": prompt, "id": last.ident, "relies": last.relies,
                                "kind": last.text.split(" ", 1)[0] if last.text.startswith("[") else "rows",
                                "visible": [a.ident for a in answers[:-1]], "text": last.text,
                                "problems": mcp_view.judge(answers, self.app.read_text().split("\n"))})
        done = sum(1 for i in items[at:] if i.get("type") == "function_call_output")
        plan = self.PLANS[prompt]
        return [read_call(body, **plan[done])] if done < len(plan) else [fake_openai.say("done")]

    @staticmethod
    def prompt(item: dict) -> str:
        return "".join(c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict))


def test_after_a_rewind_and_a_fork_answers_lean_only_on_what_each_request_carries(tmp_path, codex):
    lab = Lab(tmp_path, codex)
    app = lab.proj / "app.py"
    app.write_text(BODY)
    assert lab.tldrs("install", "codex").returncode == 0
    lab.trust()
    model = Branching(app)
    server, port = fake_openai.start(model.turn)
    provider = ["-c", "model_provider=fake", "-c", "model=gpt-fake", "-c", 'model_providers.fake.name="fake"',
                "-c", f'model_providers.fake.base_url="http://127.0.0.1:{port}/v1"',
                "-c", 'model_providers.fake.wire_api="responses"', "-c", 'model_providers.fake.env_key="FAKE_OPENAI_KEY"']

    def exec_(*args: str) -> str:
        proc = lab.run("exec", *args[:-1], "--json", "--skip-git-repo-check", *provider, args[-1])
        assert proc.returncode == 0, (args, proc.stderr[-2000:])
        return json.loads(proc.stdout.splitlines()[0])["thread_id"]  # the `thread.started` event

    try:
        original = exec_("Read app.py.")
        assert exec_("resume", original, "Look inside rule7.") == original
        rpc = AppServer(lab, provider)
        try:
            rpc.request("thread/resume", {"threadId": original, "excludeTurns": True})
            turns = rpc.request("thread/turns/list", {"threadId": original, "sortDirection": "asc"})["data"]
            assert len(turns) == 2, turns
            rpc.request("thread/revert", {"threadId": original, "beforeTurnId": turns[1]["id"]})  # the rewind
        finally:
            rpc.close()
        app.write_text(app.read_text().replace("    value += 5\n    value += 6\n    value += 7\n    value += 8\n"
                                               "    value += 9\n    value += 10\n    value += 11\n    return value * 10",
                                               "    value += 555\n    value += 6\n    value += 7\n    value += 8\n"
                                               "    value += 9\n    value += 10\n    value += 11\n    return value * 10", 1))
        assert exec_("resume", original, "Read app.py again.") == original
        fork = exec_("fork", original, "Read rule3 in the fork.")
        assert fork != original
        app.write_text(app.read_text() + "def added(value):\n    return value\n")
        exec_("resume", original, "Read app.py in the original.")
        exec_("resume", fork, "Read app.py in the fork.")
    finally:
        server.shutdown()
    got = [(j["prompt"], j["kind"]) for j in model.judged]
    print("answers:", [(j["prompt"], j["id"], j["kind"], j["relies"], j["visible"]) for j in model.judged])
    assert [p for p, _ in got] == ["Read app.py.", "Look inside rule7.", "Look inside rule7.", "Read app.py again.",
                                   "Read rule3 in the fork.", "Read app.py in the original.", "Read app.py in the fork."]
    assert [j["problems"] for j in model.judged] == [[]] * 7
    first, drill, reread, after, forked, orig_next, fork_next = model.judged
    assert first["kind"] == "[SKELETON]" and drill["kind"] == "rows" and reread["kind"] == "[UNCHANGED]"
    # the rewind: the request carries only the first read, and the answer leans only on it
    assert after["visible"] == [first["id"]], after
    assert set(after["relies"]) <= {first["id"]} and not {drill["id"], reread["id"]} & set(after["relies"]), after
    assert drill["id"] not in after["text"] and reread["id"] not in after["text"]
    # rule7's body changed: elided in the first read (the drill-in that showed it was reverted)
    assert after["kind"] == "[CHANGED]" and "value += 555" not in after["text"], after
    # the fork carries the original's history; the original never sees what the fork was answered
    assert forked["visible"] == [first["id"], after["id"]], forked
    assert orig_next["visible"] == [first["id"], after["id"]] and forked["id"] not in orig_next["relies"], orig_next
    assert fork_next["visible"] == [first["id"], after["id"], forked["id"]], fork_next
    assert orig_next["kind"] == fork_next["kind"] == "[DELTA]" and forked["id"] in fork_next["relies"], fork_next
