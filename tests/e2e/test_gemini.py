"""The real Gemini CLI (pinned in npm/gemini/package-lock.json) with what `tldrs install gemini`
writes, in a throwaway HOME and project.

Gemini reads its settings as JSON with comments and starts no MCP server in a
folder it does not trust (folder trust is on by default in 0.61). So: a
settings file with the user's comments is installed into and uninstalled from
byte for byte; the real Gemini accepts the installed file; in an untrusted
folder `gemini mcp list` shows symbolpack disabled and `tldrs doctor` says
inactive; once the folder is trusted, `gemini mcp list` shows it connected
(Gemini started the server and spoke MCP with it) and doctor is clean.

Work, compression and resume: headless `gemini -p` whose model is a scripted fake on
127.0.0.1 (`fake_gemini.py`, `GOOGLE_GEMINI_BASE_URL`) that passes back exactly the
answer ids its request shows: it reads, re-reads, reads after an outside change,
drills in; Gemini compresses the chat (the fake reports a prompt over half the
model's window, and the next-speaker check, switched on, has Gemini go on after the
model's text); it reads on; `gemini -p --resume latest` (a new server process) reads
once more. Every answer is judged in the request that delivered it (`mcp_view.judge`).
Headless, Gemini offers the model an MCP tool only when a policy allows it (without
one, none of symbolpack's): a `--policy` file allows symbolpack's read_file alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import clients
import fake_gemini
import mcp_view

from symbolpack.base.tokens import count_tokens
from symbolpack.integrations.installers.doctor import INACTIVE

USER_SETTINGS = """{
  // my own settings, with comments Gemini accepts
  "ui": {
    "theme": "GitHub" /* light */
  },
  "mcpServers": {
    "other": {"command": "/nonexistent/other-server"} // not started by this test's assertions
  }
}
"""

GLOBAL_SETTINGS = '{\r\n    // global, CRLF and four spaces\r\n    "general": {"vimMode": false}\r\n}\r\n'


@pytest.fixture(scope="module")
def gemini() -> Path:
    return clients.node_bin("gemini", "gemini")  # installs the pinned client when the cache lacks it; fails, never skips


class Lab:
    def __init__(self, root: Path, gemini: Path):
        self.gemini = gemini
        self.home = root / "home"
        (self.home / ".gemini").mkdir(parents=True)
        self.proj = root / "proj"
        (self.proj / ".gemini").mkdir(parents=True)
        clients.keep_scenario_threshold(self.proj)
        subprocess.run(["git", "init", "-q"], cwd=self.proj, check=True)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
                    "XDG_STATE_HOME": str(root / "state"), "NO_COLOR": "1"}

    def tldrs(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=self.proj, env=self.env,
                              capture_output=True, text=True, timeout=120)

    def mcp_list(self) -> str:
        proc = subprocess.run([str(self.gemini), "mcp", "list"], cwd=self.proj, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout + proc.stderr

    def trust(self) -> None:
        (self.home / ".gemini" / "trustedFolders.json").write_text(
            json.dumps({os.path.realpath(self.proj): "TRUST_FOLDER"}))

    def doctor(self) -> tuple[int, dict]:
        proc = self.tldrs("doctor", "--json")
        return proc.returncode, json.loads(proc.stdout)

    def headless(self, port: int, prompt: str, *more: str) -> subprocess.CompletedProcess:
        """`gemini -p PROMPT` against the fake model on *port*, as HOME_SETTINGS configures it."""
        (self.home / ".gemini" / "settings.json").write_text(json.dumps(HOME_SETTINGS))
        env = {**self.env, "GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}"}
        return subprocess.run([str(self.gemini), "-m", MODEL, *more, "-p", prompt], cwd=self.proj, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)


def line_of(listing: str, name: str) -> str:
    lines = [line for line in listing.splitlines() if f" {name}: " in line]
    assert len(lines) == 1, listing
    return lines[0]


def target(report: dict, scope: str) -> dict:
    return next(t for t in report["targets"] if t["agent"] == "gemini" and t["scope"] == scope)


def test_project_install_keeps_comments_is_disabled_untrusted_and_connected_trusted(tmp_path, gemini):
    lab = Lab(tmp_path, gemini)
    settings = lab.proj / ".gemini" / "settings.json"
    settings.write_text(USER_SETTINGS)
    installed = lab.tldrs("install", "gemini")
    assert installed.returncode == 0, installed.stderr
    assert f'add "{os.path.realpath(lab.proj)}": "TRUST_FOLDER" to' in installed.stdout
    text = settings.read_text()
    assert text.startswith(USER_SETTINGS[:USER_SETTINGS.index('"other"')])  # the user's part, comments included
    assert '"theme": "GitHub" /* light */' in text and "// not started" in text

    assert line_of(lab.mcp_list(), "symbolpack").endswith("(stdio) - Disabled")
    code, report = lab.doctor()
    assert code == 1 and target(report, "project")["status"] == INACTIVE

    lab.trust()
    assert line_of(lab.mcp_list(), "symbolpack").endswith("mcp (stdio) - Connected")
    code, report = lab.doctor()
    assert target(report, "project")["status"] == "installed"
    assert report["problems"] == []  # "other" is not symbolpack's: doctor starts only what is installed
    assert code == 0

    assert lab.tldrs("uninstall", "gemini").returncode == 0
    assert settings.read_text() == USER_SETTINGS
    assert "symbolpack" not in lab.mcp_list()


def test_global_install_into_a_file_with_comments_and_crlf(tmp_path, gemini):
    lab = Lab(tmp_path, gemini)
    lab.trust()
    settings = lab.home / ".gemini" / "settings.json"
    settings.write_bytes(GLOBAL_SETTINGS.encode())
    assert lab.tldrs("install", "gemini", "--global").returncode == 0
    installed = settings.read_bytes()
    assert b"\r\n    // global, CRLF and four spaces\r\n" in installed
    assert installed.count(b"\n") == installed.count(b"\r\n")  # every line break stays CRLF
    assert line_of(lab.mcp_list(), "symbolpack").endswith("mcp (stdio) - Connected")
    code, report = lab.doctor()
    assert code == 0 and target(report, "global")["status"] == "installed", report["problems"]
    assert lab.tldrs("uninstall", "gemini", "--global").returncode == 0
    assert settings.read_bytes() == GLOBAL_SETTINGS.encode()


BODY = "".join(f"def rule{i}(value):\n" + "".join(f"    value += {j}\n" for j in range(12)) +
               f"    return value * {i + 3}\n\n\n" for i in range(30))
MODEL = "gemini-2.5-flash"  # named, so no router (and no classifier call) picks one; its window is 1,048,576
OVER_THRESHOLD = 600_000  # a prompt over half the window (Gemini's default threshold): it compresses next turn
READ_FILE = "mcp_symbolpack_read_file"  # Gemini names an MCP tool mcp_<server>_<tool>
PAUSE = "Next, I will read app.py again."
SUMMARY = "<state_snapshot>The user asked me to read app.py; I read it.</state_snapshot>"
ROUND_TRIP_TOKENS = 100  # a drill-in costs the agent a turn (as `tldrs eval` charges it)
# Headless, Gemini 0.61 leaves out of the model's tools every MCP tool no policy allows
# (their default is ask_user, which non-interactive mode turns into deny). This allows
# one tool of one server, no more: not --yolo (every tool), not the server's `trust`.
POLICY = '[[rule]]\nmcpName = "symbolpack"\ntoolName = "read_file"\ndecision = "allow"\npriority = 100\n'
HOME_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},  # GOOGLE_GEMINI_BASE_URL alone: "Invalid auth method"
    "privacy": {"usageStatisticsEnabled": False},
    "model": {"skipNextSpeakerCheck": False},  # on: after the model's text Gemini may go on ("Please continue.")
}


def visible_ids(body: dict) -> list[str]:
    """The answer ids the request shows the model, each once: what a model passes back as `known`."""
    return list(dict.fromkeys(a.ident for a in mcp_view.answers_in_contents(body.get("contents", []), READ_FILE)
                              if a.ident))


def read_call(body: dict, **more) -> dict:
    ids = visible_ids(body)
    return fake_gemini.call(READ_FILE, {"path": "app.py", **more, **({"known": ids} if ids else {})})


class Scripted:
    """The model of the compression scenario: one planned step per chat turn. The side
    calls are answered as such: the next-speaker check says the model goes on after its
    PAUSE text (the user after anything else); the compression's summary and its
    verification are one snapshot that names no ids."""

    PLAN = ["read", "re-read", "change-and-read", "drill-in", "pause", "read", "re-read", "done", "read", "done"]

    def __init__(self, app: Path):
        self.app = app
        self.steps = iter(self.PLAN)
        self.step = ""
        self.compact_next = False
        self.judged: list[dict] = []  # per delivered answer: the step that asked, its text, problems, the file then
        self.seen: set[str] = set()
        self.summaries = 0
        self.unexpected: list[str] = []

    def turn(self, body: dict) -> list[dict]:
        if not fake_gemini.is_chat(body):
            return self.side(body)
        contents = body.get("contents", [])
        results = mcp_view.gemini_results(contents, READ_FILE)
        if results and results[-1][0] not in self.seen:  # the answer this request is the first to deliver,
            self.seen.add(results[-1][0])  # made with the file as it is now
            now = self.app.read_text()
            problems = mcp_view.judge(mcp_view.answers_in_contents(contents, READ_FILE), now.split("\n"))
            self.judged.append({"step": self.step, "text": results[-1][2], "file": now, "problems": problems})
        self.step = step = next(self.steps, "done")
        if step == "change-and-read":  # a teammate's push: a body the skeleton hid, and a new function
            self.app.write_text(self.app.read_text().replace("    value += 5\n    value += 6\n    value += 7\n"
                                                             "    value += 8\n    value += 9\n    value += 10\n"
                                                             "    value += 11\n    return value * 10",
                                                             "    value += 555\n    value += 6\n    value += 7\n"
                                                             "    value += 8\n    value += 9\n    value += 10\n"
                                                             "    value += 11\n    return value * 10", 1)
                                + "def added(value):\n    return value\n")
        if step == "drill-in":
            return [read_call(body, symbol="rule7")]
        if step in ("read", "re-read", "change-and-read"):
            return [read_call(body)]
        if step == "pause":  # text and no call, the prompt reported over the threshold
            self.compact_next = True
            return [fake_gemini.say(PAUSE)]
        return [fake_gemini.say("done")]

    def side(self, body: dict) -> list[dict]:
        schema = fake_gemini.schema_of(body) or {}
        if "next_speaker" in (schema.get("properties") or {}):
            said = [p.get("text", "") for c in body.get("contents", []) if c.get("role") == "model"
                    for p in c.get("parts") or []]
            who = "model" if said and said[-1] == PAUSE else "user"
            return [fake_gemini.say(json.dumps({"reasoning": "scripted", "next_speaker": who}))]
        if "state_snapshot" in fake_gemini.system_text(body) + fake_gemini.last_user_text(body):
            self.summaries += 1
            return [fake_gemini.say(SUMMARY)]
        self.unexpected.append(json.dumps(body)[:300])
        return [fake_gemini.say("")]

    def usage(self, body: dict) -> int:
        if self.compact_next and fake_gemini.is_chat(body):
            self.compact_next = False
            return OVER_THRESHOLD
        return 100


def test_mcp_view_reads_gemini_contents_as_the_model_does():
    """Results paired with their call by id, other tools' left out, Gemini's wrapper (and its escape) undone."""
    answer = 'x = "</untrusted_context>"\n[answer a1]'
    wrapped = "<untrusted_context>\n" + answer.replace("</untrusted_context>", "&lt;/untrusted_context&gt;") + \
        "\n</untrusted_context>"
    calls = [{"functionCall": {"id": "c1", "name": READ_FILE, "args": {"path": "a.py"}}},
             {"functionCall": {"id": "c2", "name": "read_file", "args": {"path": "a.py"}}}]
    contents = [{"role": "user", "parts": [{"text": "Read a.py."}]}, {"role": "model", "parts": calls},
                {"role": "user", "parts": [{"functionResponse": {"id": "c2", "name": "read_file",
                                                                 "response": {"output": "plain"}}},
                                           {"functionResponse": {"id": "c1", "name": READ_FILE,
                                                                 "response": {"output": wrapped}}}]}]
    assert mcp_view.gemini_results(contents, READ_FILE) == [("c1", {"path": "a.py"}, answer)]
    (only,) = mcp_view.answers_in_contents(contents, READ_FILE)
    assert (only.ident, only.text, only.call) == ("a1", 'x = "</untrusted_context>"', {"path": "a.py"})


def mentions(body: dict, text: str) -> bool:
    return any(text in p.get("text", "") for c in body.get("contents", []) for p in c.get("parts") or [])


def test_after_a_compression_and_a_resume_answers_lean_only_on_what_the_request_carries(tmp_path, gemini):
    lab = Lab(tmp_path, gemini)
    (lab.proj / "app.py").write_text(BODY)
    assert lab.tldrs("install", "gemini").returncode == 0
    lab.trust()
    policy = tmp_path / "symbolpack.toml"
    policy.write_text(POLICY)
    model = Scripted(lab.proj / "app.py")
    server, port = fake_gemini.start(model.turn, usage=model.usage)
    try:
        first = lab.headless(port, "Read app.py.", "--policy", str(policy))
        assert first.returncode == 0, (first.stderr[-3000:], model.unexpected)
        before_resume = len(server.requests())
        resumed = lab.headless(port, "Read app.py once more.", "--policy", str(policy), "--resume", "latest")
        assert resumed.returncode == 0, (resumed.stderr[-3000:], model.unexpected)
        chats = server.requests()
    finally:
        server.shutdown()
    assert model.unexpected == []
    assert [t for t in fake_gemini.tools(chats[0]) if t.startswith("mcp_")] == [READ_FILE]  # the policy's one tool
    # Gemini compressed the chat (a summary, then its verification) in the middle of the headless prompt,
    # with the same server process; the first turn after it carries the summary and no answer
    assert model.summaries == 2
    after = next(i for i, body in enumerate(chats) if mentions(body, SUMMARY))
    assert after < before_resume and mcp_view.gemini_results(chats[after]["contents"], READ_FILE) == []
    kinds = [j["text"].split(" ", 1)[0] if j["text"].startswith("[") else "rows" for j in model.judged]
    # read, re-read, the change (inside rule7's hidden body, plus an added function), the drill-in;
    # after the compression a first read again and a re-read; after the resume a re-read
    assert kinds == ["[SKELETON]", "[UNCHANGED]", "[DELTA]", "rows", "[SKELETON]", "[UNCHANGED]", "[UNCHANGED]"], (
        kinds, [j["text"][:300] for j in model.judged])
    assert [p for j in model.judged for p in j["problems"]] == []
    assert "value += 555" in model.judged[3]["text"]
    # the resumed chat is the compressed one: it shows the two answers made after the compression (Gemini
    # 0.61 repeats each function response of a resumed chat; the ids are the same) and the re-read relies on them
    after_ids = [a.ident for a in mcp_view.answers_in_contents(chats[before_resume - 1]["contents"], READ_FILE)]
    assert visible_ids(chats[before_resume]) == after_ids and len(after_ids) == 2
    assert mcp_view.answer_of({}, model.judged[-1]["text"]).relies[0] in after_ids

    # the same steps read whole with a plain read: the file as it was; a plain reader needs no drill-in
    rows = [(j["step"], kind, count_tokens(j["text"]) + (ROUND_TRIP_TOKENS if j["step"] == "drill-in" else 0),
             0 if j["step"] == "drill-in" else count_tokens(j["file"])) for j, kind in zip(model.judged, kinds)]
    ours, plain = sum(r[2] for r in rows), sum(r[3] for r in rows)
    print(f"\nread tokens the model received (the drill-in +{ROUND_TRIP_TOKENS} for its round trip):")
    for step, kind, a, b in rows:
        print(f"  {step:<16} {kind:<12} symbolpack {a:6d}  plain {b:6d}")
    print(f"  overall symbolpack {ours:6d}  plain {plain:6d}  {ours / plain:.3f}x")
    assert ours < plain


def test_headless_gemini_offers_no_symbolpack_tool_without_a_policy(tmp_path, gemini):
    lab = Lab(tmp_path, gemini)
    assert lab.tldrs("install", "gemini").returncode == 0
    lab.trust()
    server, port = fake_gemini.start(lambda body: [fake_gemini.say(
        "done" if fake_gemini.is_chat(body) else '{"reasoning": "scripted", "next_speaker": "user"}')])
    try:
        proc = lab.headless(port, "Read app.py.")
        assert proc.returncode == 0, proc.stderr[-3000:]
        chats = server.requests()
    finally:
        server.shutdown()
    offered = fake_gemini.tools(chats[0])
    assert "read_file" in offered and not any(t.startswith("mcp_") for t in offered), offered
    assert line_of(lab.mcp_list(), "symbolpack").endswith("mcp (stdio) - Connected")  # started, yet not offered
