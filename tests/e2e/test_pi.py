"""The real pi CLI (pinned in npm/pi/package-lock.json) with symbolpack's extension
(`tldrs install pi`), driven headless (`pi --mode rpc`) by a scripted model on
127.0.0.1 (`fake_openai_chat.py`), judged on what the model actually received: the
`messages` of every request pi sent.

The scenario: first read, re-read, an outside change, a drill-in by symbol, the
model's own edit (two replacements in one call, one adding a line), `/tree` back to before the first read, `/tree` forward again, a
compaction, a fork, a switch back to the original session, two reads in one
assistant message after another outside change, a result another extension rewrote,
a sensitive file, a file longer than pi's read shows, an unknown symbol, a `fresh`
read, a file the model wrote whole and read back, the refresh tool and command, the
status command. The same prompts run once
more in plain pi (its built-in read) on the same file states: the baseline the token
counts are compared with.

Every symbolpack answer is judged in the request that first carried it to the model:
1. its text is byte for byte what the extension recorded (details' sha256 of it);
2. every answer it leans on (`leans_on`) is a read result earlier in that request;
3. the project's oracle (`ReadOracle.replay` of the earlier answers of that request
   and of the model's own `edit`/`write` calls among them, each an `OwnEdit`: its
   earlier copy with its edit applied where it made it, the lines below moved by it;
   then `apply` and `check` against the file version the answer names) finds
   nothing wrong: no line vouched for that the context does not hold or that the
   file does not have.

`test_pi_reads_a_first_read_after_an_own_edit_symbolpack_could_not_keep` runs a
`tldrs` that refuses to keep edits: the read after that edit must be a first read.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

import clients
import fake_openai_chat as fake

from symbolpack.base.tokens import count_tokens
from symbolpack.evaluation.oracle import OwnEdit, ReadOracle, split_lines

HERE = Path(__file__).resolve().parent
LEDGER = (HERE / "fixtures" / "pi_ledger.py").read_text()
TEST_EXTENSION = HERE / "pi_test_commands.ts"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")  # 1x1 pixel
ROUND_TRIP_TOKENS = 100  # a drill-in costs the agent a turn (as `tldrs eval` charges it)


@pytest.fixture(scope="module")
def pi_bin() -> Path:
    return clients.node_bin("pi", "pi")  # installs the pinned pi when the cache lacks it; fails, never skips


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Pi:
    """One `pi --mode rpc` process: commands in, events out."""

    def __init__(self, argv: list[str], cwd: Path, env: dict):
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, encoding="utf-8")
        self.events: list[dict] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.rstrip("\r\n")
            if not line.startswith("{"):
                continue
            with self.cond:
                self.events.append(json.loads(line))
                self.cond.notify_all()

    def wait_for(self, test, start: int, timeout: float = 120.0) -> dict:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for event in self.events[start:]:
                    if test(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"pi gave no such event; exit {self.proc.poll()}; last events "
                                         f"{json.dumps(self.events[-6:])[:3000]}")
                self.cond.wait(min(left, 1.0))

    def command(self, cmd: dict, timeout: float = 120.0) -> dict:
        ident = uuid.uuid4().hex
        start = len(self.events)
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({**cmd, "id": ident}) + "\n")
        self.proc.stdin.flush()
        response = self.wait_for(lambda e: e.get("type") == "response" and e.get("id") == ident, start, timeout)
        assert response.get("success"), response
        return response

    def prompt(self, text: str) -> None:
        start = len(self.events)
        self.command({"type": "prompt", "message": text})
        self.wait_for(lambda e: e.get("type") == "agent_end", start)

    def slash(self, command: str, says: str) -> str:
        """Run an extension's slash command; the text of its notification containing *says*."""
        start = len(self.events)
        self.command({"type": "prompt", "message": command})
        return self.wait_for(lambda e: e.get("method") == "notify" and says in str(e.get("message")), start)["message"]

    def tree(self, entry_id: str) -> None:
        """pi's `/tree` to *entry_id*, without a summary (the test extension's command)."""
        assert '"cancelled":false' in self.slash(f"/sp-tree {entry_id}", "sp-tree")

    def close(self) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        assert self.proc.stderr is not None
        return self.proc.stderr.read()


class Lab:
    """A fake model, a throwaway HOME and pi agent dir, one git project, one pi process."""

    def __init__(self, root: Path, pi: Path, extension: bool, tldrs: str | None = None,
                 global_tldrs: str | None = None):
        self.extension = extension
        self.home = root / "home"
        self.agent = root / "agent"
        self.sessions = root / "sessions"
        self.proj = root / "proj"
        for d in (self.home, self.agent, self.sessions, self.proj):
            d.mkdir(parents=True)
        clients.keep_scenario_threshold(self.proj)
        self.versions: dict[str, str] = {}  # sha256 -> text, every version ledger.py (and notes.py) had
        self.before: dict[str, str] = {}  # an own edit's tool call id -> the file's text before it
        self.status = ""  # what /symbolpack-status said
        self.write("ledger.py", LEDGER)
        self.write(".env", "API_TOKEN=not-for-the-model\n")
        (self.proj / "dot.png").write_bytes(PNG)
        self.write("journal.txt", "".join(f"entry {i}: posted\n" for i in range(3000)))  # past pi's 2,000 lines
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(self.home)}
        subprocess.run(["git", "init", "-q"], cwd=self.proj, check=True, env=env)
        subprocess.run(["git", "add", "ledger.py"], cwd=self.proj, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "init"], cwd=self.proj, check=True, env=env)
        self.server, port = fake.start()
        (self.agent / "models.json").write_text(json.dumps({"providers": {"fake": {
            "baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions", "apiKey": "fake",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "fake-model", "reasoning": False, "contextWindow": 200000, "maxTokens": 4096}]}}}))
        # a compaction keeps only the newest turn: the reads before it leave the context
        (self.agent / "settings.json").write_text(json.dumps({"compaction": {"enabled": False,
                                                                             "keepRecentTokens": 1}}))
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
                    "PI_CODING_AGENT_DIR": str(self.agent), "PI_OFFLINE": "1", "PI_TELEMETRY": "0",
                    "PI_SKIP_VERSION_CHECK": "1", "SYMBOLPACK_DIR": str(root / "state")}
        if extension:
            env = {**os.environ, "HOME": str(self.home)}
            if tldrs is not None:
                env["SYMBOLPACK_TLDRS"] = tldrs
            proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "install", "pi"], cwd=self.proj,
                                  env=env, capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
        if global_tldrs is not None:
            env = {**os.environ, "HOME": str(self.home), "PI_CODING_AGENT_DIR": str(self.agent),
                   "SYMBOLPACK_TLDRS": global_tldrs}
            proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "install", "pi", "--global"],
                                  cwd=self.proj, env=env, capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
            assert (self.proj / ".pi" / "extensions" / "symbolpack.ts").exists()
        self.pi = Pi([str(pi), "--mode", "rpc", "--provider", "fake", "--model", "fake-model",
                      "--session-dir", str(self.sessions), "-e", str(TEST_EXTENSION)], self.proj, self.env)

    def write(self, rel: str, text: str) -> None:
        (self.proj / rel).write_text(text)
        if rel == "ledger.py":
            self.versions[sha(text)] = text

    def edit_outside(self, old: str, new: str) -> None:
        text = (self.proj / "ledger.py").read_text()
        assert text.count(old) == 1, old
        self.write("ledger.py", text.replace(old, new))

    def note_version(self, rel: str = "ledger.py") -> None:
        text = (self.proj / rel).read_text()
        self.versions[sha(text)] = text

    def state(self) -> dict:
        return self.pi.command({"type": "get_state"})["data"]

    def entries(self, session_file: str) -> list[dict]:
        return [json.loads(line) for line in Path(session_file).read_text().splitlines() if line.strip()]

    def details(self) -> dict[str, dict]:
        """toolCallId -> the `details` pi stored for that tool result, from every session file."""
        out: dict[str, dict] = {}
        for path in self.sessions.rglob("*.jsonl"):
            for entry in self.entries(str(path)):
                message = entry.get("message") or {}
                if entry.get("type") == "message" and message.get("role") == "toolResult":
                    out[message["toolCallId"]] = message.get("details") or {}
        return out

    def close(self) -> str:
        try:
            return self.pi.close()
        finally:
            self.server.shutdown()


NOTES = "".join(f"def note{i}(text: str) -> str:\n    return text.strip() + {str(i)!r}\n\n\n" for i in range(12))
STEPS: list[tuple[str, str]] = []  # (step name, tool call id), in the order played
TAMPERED: set[str] = set()  # tool call ids whose result the test extension rewrote


def call(step: str, name: str, **arguments) -> dict:
    ident = f"call_{step}_{uuid.uuid4().hex[:10]}"
    STEPS.append((step, ident))
    return {"name": name, "arguments": arguments, "id": ident}


def play(lab: Lab) -> dict[str, str]:
    """The scenario; returns step name -> the tool call id of that step (its last call)."""
    STEPS.clear()
    pi = lab.pi
    sym = lab.extension

    def ask(*calls: dict) -> None:
        pi.prompt(fake.call_prompt(list(calls)))

    ask(call("first", "read", path="ledger.py"))
    first_file = lab.state()["sessionFile"]
    first_prompt = next(e["id"] for e in lab.entries(first_file) if e.get("type") == "message"
                        and e["message"].get("role") == "user")
    ask(call("reread", "read", path="ledger.py"))
    lab.edit_outside("    acc3 += value * 6\n", "    acc3 += value * 60\n")      # inside an elided body
    lab.edit_outside('"""Rule 1 of the ledger', '"""Rule one of the ledger')      # a shown docstring
    ask(call("outside", "read", path="ledger.py"))
    if sym:
        ask(call("drill", "read", path="ledger.py", symbol="rule5"))
    edit = call("edit", "edit", path="ledger.py",
                edits=[{"oldText": "    acc5 += 7 * math.floor(value / 8)\n",  # a line the model holds, +1 line
                        "newText": "    acc5 += 70 * math.floor(value / 8)\n    acc5 -= 1\n"},
                       {"oldText": '"""Rule 7 of the ledger',                  # part of a shown docstring, below
                        "newText": '"""Rule seven of the ledger'}])
    lab.before[edit["id"]] = (lab.proj / "ledger.py").read_text()
    ask(edit)
    lab.note_version()
    ask(call("own-edit", "read", path="ledger.py"))
    forward_leaf = lab.entries(first_file)[-1]["id"]
    pi.tree(first_prompt)  # back to before the first read
    ask(call("tree-back", "read", path="ledger.py"))
    pi.tree(forward_leaf)
    ask(call("tree-forward", "read", path="ledger.py"))
    pi.command({"type": "compact"})
    ask(call("compacted", "read", path="ledger.py"))
    ask(call("fork-point", "read", path="ledger.py"))
    fork_at = lab.entries(first_file)[-1]["id"]  # the leaf now
    forks = pi.command({"type": "get_fork_messages"})["data"]["messages"]
    assert forks, "no user message to fork from"
    pi.command({"type": "fork", "entryId": forks[-1]["entryId"]})  # before the last prompt: after "compacted"
    assert lab.state()["sessionFile"] != first_file
    ask(call("in-fork", "read", path="ledger.py"))
    pi.command({"type": "switch_session", "sessionPath": first_file})
    assert lab.state()["sessionFile"] == first_file and lab.entries(first_file)[-1]["id"] == fork_at
    ask(call("switched-back", "read", path="ledger.py"))
    lab.edit_outside("    acc8 += value * 11\n", "    acc8 += value * 110\n")
    ask(call("pair-range", "read", path="ledger.py", offset=200, limit=30),
        call("pair-whole", "read", path="ledger.py"))
    lab.edit_outside('"""Rule 9 of the ledger', '"""Rule nine of the ledger')  # a line the model holds
    pi.slash("/sp-tamper", "sp-tamper armed")
    ask(call("tampered", "read", path="ledger.py"))      # the model never sees this answer
    ask(call("after-tamper", "read", path="ledger.py"))  # so this one must show the change again
    ask(call("sensitive", "read", path=".env"))
    ask(call("long", "read", path="journal.txt"))
    ask(call("image", "read", path="dot.png"))
    ask(call("write", "write", path="notes.py", content=NOTES))
    lab.note_version("notes.py")
    ask(call("after-write", "read", path="notes.py"))
    # two edits of one file in one message with no read: pi runs them in parallel, and
    # neither sees the other's result: neither is kept, the next read is a first read
    text = (lab.proj / "notes.py").read_text()
    one, two = ("def note3", "def note3_renamed"), ("def note7", "def note7_renamed")
    first_edit = call("parallel-1", "edit", path="notes.py", edits=[{"oldText": one[0], "newText": one[1]}])
    second_edit = call("parallel-2", "edit", path="notes.py", edits=[{"oldText": two[0], "newText": two[1]}])
    lab.before[first_edit["id"]], lab.before[second_edit["id"]] = text, text.replace(*one)
    ask(first_edit, second_edit)
    lab.note_version("notes.py")
    ask(call("after-parallel", "read", path="notes.py"))
    if sym:
        ask(call("bad-symbol", "read", path="ledger.py", symbol="Ledger.balance"))
        ask(call("fresh", "read", path="ledger.py", offset=1, limit=20, fresh=True))
        ask(call("refresh", "symbolpack_refresh", path="ledger.py"))
    ask(call("after-refresh", "read", path="ledger.py"))  # plain pi: one more full read
    if sym:
        ask(call("before-command", "read", path="ledger.py"))
        pi.slash("/symbolpack-refresh ledger.py", "no longer count")
        ask(call("after-command", "read", path="ledger.py"))
        lab.status = pi.slash("/symbolpack-status", "symbolpack:")
    out: dict[str, str] = {}
    for step, ident in STEPS:
        out[step] = ident
    TAMPERED.add(out["tampered"])
    return out


# --------------------------------------------------------------------------- what the model received

def tool_results(body: dict) -> list[tuple[str, dict, str]]:
    """(tool call id, the call {name, arguments}, result text) in the request's order."""
    calls: dict[str, dict] = {}
    out = []
    for message in body.get("messages", []):
        for c in message.get("tool_calls") or []:
            calls[c["id"]] = {"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
        if message.get("role") == "tool":
            content = message.get("content")
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])
            out.append((message["tool_call_id"], calls.get(message["tool_call_id"], {}), text))
    return out


def own_edits(lab: Lab, ident: str, call_: dict, earlier: list) -> list[OwnEdit]:
    """The model's own `edit` or `write` call as the oracle's `OwnEdit`s: pi matches every
    oldText once in the file before the call (`lab.before`), so its copy after the call
    is its copy before with each replacement made there, the lowest first (the lines
    above keep their numbers). A line the call wrote only in part (a piece of an old
    line) is the model's only if it held that old line."""
    args = call_["arguments"]
    if call_["name"] == "write":
        return [OwnEdit(args["path"], 1, None, tuple(split_lines(args["content"])))]
    before = lab.before[ident]
    held = ReadOracle.replay(earlier).reconstruct(args["path"])
    out = []
    for idx, old, new in sorted(((before.index(e["oldText"]), e["oldText"], e["newText"]) for e in args["edits"]),
                                reverse=True):
        start = before.rfind("\n", 0, idx) + 1
        end = before.find("\n", idx + len(old))
        end = len(before) if end < 0 else end
        old_lines = before[start:end].split("\n")
        new_lines = (before[start:idx] + new + before[idx + len(old):end]).split("\n")
        first = before.count("\n", 0, start) + 1
        unsure = []
        if idx > start and held.get(first) != old_lines[0]:
            unsure.append(first)
        if idx + len(old) < end and held.get(first + len(old_lines) - 1) != old_lines[-1]:
            unsure.append(first + len(new_lines) - 1)
        out.append(OwnEdit(args["path"], first, len(old_lines), tuple(new_lines), tuple(unsure)))
    return out


def judge(lab: Lab) -> tuple[list[str], dict[str, dict]]:
    """Rules 1-3 on every symbolpack answer, in the request that first carried it; returns
    the problems and each answer's response (tool call id -> response with its text)."""
    details = lab.details()
    problems: list[str] = []
    judged: dict[str, dict] = {}
    for n, record in enumerate(lab.server.requests()):
        earlier: list[dict | OwnEdit] = []
        kept: set[str] = set()  # the answer ids of the model's own edits in this request
        for ident, call_, text in tool_results(record["body"]):
            answer = details.get(ident, {}).get("symbolpack")
            if call_.get("name") in ("edit", "write") and text.startswith("Successfully"):
                earlier += own_edits(lab, ident, call_, earlier)
                if answer is not None and sha(text) == answer["textSha256"]:
                    kept.add(answer["answerId"])
                continue
            if call_.get("name") != "read" or answer is None:
                continue
            response = {**answer["response"], "text": text}
            if sha(text) != answer["textSha256"]:  # rewritten after the extension answered
                if ident not in TAMPERED:
                    problems.append(f"request {n}: {ident}: the model received other text than was recorded")
                continue  # the model holds something else: nothing may lean on it
            if ident not in judged:
                judged[ident] = response
                held = kept | {a["answer_id"] for a in earlier if isinstance(a, dict)}
                missing = [i for i in response.get("leans_on", []) if i not in held]
                if missing:
                    problems.append(f"request {n}: {ident} ({response['mode']}) leans on {missing}, "
                                    f"absent from the model's context")
                oracle = ReadOracle.replay(earlier)
                problems += [f"request {n}: {ident}: {p}" for p in oracle.apply(response)]
                version = lab.versions.get(response["sha256"])
                if version is None:
                    problems.append(f"request {n}: {ident}: answered for a version the test never wrote")
                else:
                    problems += [f"request {n}: {ident}: {p}" for p in oracle.check(response["path"], version)]
            earlier.append(response)
    return problems, judged


def first_texts(lab: Lab) -> dict[str, str]:
    """Tool call id -> the result text the model first received for it."""
    out: dict[str, str] = {}
    for record in lab.server.requests():
        for ident, _, text in tool_results(record["body"]):
            out.setdefault(ident, text)
    return out


def test_pi_with_symbolpack_answers_only_from_what_the_model_holds(pi_bin, tmp_path):
    lab = Lab(tmp_path / "with", pi_bin, extension=True)
    plain = Lab(tmp_path / "plain", pi_bin, extension=False)
    try:
        ids = play(lab)
        plain_steps = play(plain)
    finally:
        errors = lab.close(), plain.close()
    problems, answers = judge(lab)
    assert problems == [], "\n".join(problems)
    modes = {step: answers[ident]["mode"] for step, ident in ids.items() if ident in answers}
    texts = first_texts(lab)
    expected = {
        "first": "skeleton", "reread": "unchanged", "outside": "delta", "drill": "range",
        "tree-back": "skeleton",     # the context holds no read of the file: a first read, never a marker
        "tree-forward": "unchanged",  # the branch's own answers are back in the context
        "compacted": "skeleton",      # the compaction summarised every read away
        "fork-point": "unchanged",
        "in-fork": "unchanged",       # the fork's context carries the compacted read's answer
        "switched-back": "unchanged",
        "pair-range": "range",
        "own-edit": "delta",          # its copy is its earlier copy with its edit applied: the lines it
                                      # wrote are shown as they are now, and the line it wrote in part (below)
        "after-write": "unchanged",   # it wrote the file whole
        "after-parallel": "full",     # the edits were not kept: a first read (nothing to elide)
        "after-refresh": "skeleton",  # the refresh on this branch: earlier answers count for nothing
        "before-command": "unchanged",
        "after-command": "skeleton",  # /symbolpack-refresh: a custom entry on the branch, same effect
    }
    assert {k: modes.get(k) for k in expected} == expected, modes
    now = (lab.proj / "ledger.py").read_text().split("\n")
    seven = next(n for n, line in enumerate(now, 1) if '"""Rule seven of the ledger' in line)
    written = next(n for n, line in enumerate(now, 1) if line == "    acc5 += 70 * math.floor(value / 8)")
    own = texts[ids["own-edit"]]
    assert now[written] == "    acc5 -= 1"
    assert re.findall(r"^ *(\d+)\t", own, re.M) == [str(written), str(written + 1), str(seven)], own
    assert "were" not in own and "Your own edit is shown as it is now." in own, own  # nothing moved
    assert modes["pair-whole"] in ("delta", "diff", "unchanged"), modes
    assert "acc8 += value * 110" in texts[ids["pair-range"]]
    assert ids["sensitive"] not in answers and "API_TOKEN" in texts[ids["sensitive"]]  # pi's own read, uncached
    assert texts[ids["tampered"]] == "[another extension withheld this result]" and ids["tampered"] not in answers
    assert modes["after-tamper"] in ("delta", "diff") and "Rule nine of the ledger" in texts[ids["after-tamper"]]
    assert texts[ids["image"]].startswith("Read image file [image/png]") and ids["image"] not in answers  # pi's read
    assert ids["long"] not in answers and "Use offset=2001 to continue" in texts[ids["long"]]  # pi's read truncates
    assert ids["bad-symbol"] not in answers and "did you mean: Account" in texts[ids["bad-symbol"]]  # an error
    assert modes["fresh"] == "range" and texts[ids["fresh"]].count("\n") == 19  # every asked-for line, shown
    first = texts[ids["first"]]
    assert 'symbol="rule0"' in first and "--symbol" not in first and "tldrs" not in first  # pi's own words
    assert (lab.proj / "ledger.py").read_text() == (plain.proj / "ledger.py").read_text()

    assert not any("symbolpack" in lab.details()[ids[step]] for step in ("parallel-1", "parallel-2"))
    assert all("symbolpack" in lab.details()[ids[step]] for step in ("edit", "write"))
    assert re.fullmatch(r"symbolpack: \d+ reads, \d+ tokens sent for \d+ \(saved \d+\); [1-9]\d* answers in the "
                        r"context", lab.status), lab.status

    # the scenario's reads, played by both (and the drill-in an agent needs to see an elided body)
    ours = theirs = 0
    by_step: dict[str, list[int]] = {}
    plain_texts = first_texts(plain)
    for step, ident in ids.items():
        if ident not in answers or (step not in plain_steps and step != "drill") or step == "tampered":
            continue
        cost = count_tokens(texts[ident]) + (ROUND_TRIP_TOKENS if step == "drill" else 0)
        base = count_tokens(plain_texts[plain_steps[step]]) if step in plain_steps else 0
        by_step[step] = [cost, base]
        ours += cost
        theirs += base
    print("\nread tokens the model received (drill-ins +%d per round trip):" % ROUND_TRIP_TOKENS)
    for step, (a, b) in by_step.items():
        print(f"  {step:<14} symbolpack {a:6d}  plain {b:6d}")
    print(f"  overall symbolpack {ours:6d}  plain {theirs:6d}  {ours / theirs:.2f}x")
    assert ours < theirs, errors


def test_pi_reads_with_its_own_tool_when_tldrs_is_missing(pi_bin, tmp_path):
    lab = Lab(tmp_path / "lab", pi_bin, extension=True, tldrs="/nonexistent/bin/tldrs")
    try:
        lab.pi.prompt(fake.call_prompt([call("first", "read", path="ledger.py"),
                                        call("range", "read", path="ledger.py", offset=3, limit=2)]))
    finally:
        lab.close()
    texts = first_texts(lab)
    details = lab.details()
    first, part = (ident for _, ident in STEPS[-2:])
    assert texts[first] == LEDGER and texts[part].startswith("A small but realistic module for the pi end-to-end test")
    assert "symbolpack" not in details[first] and "symbolpack" not in details[part]  # nothing to lean on later


def test_pi_starts_with_a_global_and_a_project_install_and_the_projects_copy_answers(pi_bin, tmp_path):
    """pi refuses to start when two extensions register one tool: the global copy stands aside."""
    lab = Lab(tmp_path / "lab", pi_bin, extension=True, global_tldrs="/nonexistent/bin/tldrs")
    try:
        lab.pi.prompt(fake.call_prompt([call("first", "read", path="ledger.py")]))
    finally:
        stderr = lab.close()
    ident = STEPS[-1][1]
    assert "symbolpack" in lab.details()[ident], stderr  # the project's copy (the global one's tldrs is missing)
    assert (lab.agent / "extensions" / "symbolpack.ts").exists()


def test_pi_reads_a_first_read_after_an_own_edit_symbolpack_could_not_keep(pi_bin, tmp_path):
    """A `tldrs` that refuses to keep edits (exit 1 on `session edit`) and reads as usual:
    the edit adds a line above lines the model holds, and nothing records it. The read
    after it must not be answered against the copy before the edit (its "unchanged" lines
    one off): the unkept edit clears the file's earlier answers, a first read answers."""
    wrapper = tmp_path / "tldrs-keeps-no-edit"
    wrapper.write_text("#!/bin/sh\n"
                       'if [ "$1" = session ] && [ "$2" = edit ]; then echo "tldrs: error: refused" >&2; exit 1; fi\n'
                       f'exec {sys.executable} -m symbolpack.cli "$@"\n')
    wrapper.chmod(0o755)
    lab = Lab(tmp_path / "lab", pi_bin, extension=True, tldrs=str(wrapper))
    try:
        ask = lambda *calls: lab.pi.prompt(fake.call_prompt(list(calls)))  # noqa: E731
        ask(call("first", "read", path="ledger.py"))
        ask(call("drill", "read", path="ledger.py", symbol="rule5"))
        edit = call("edit", "edit", path="ledger.py", edits=[{"oldText": "    acc5 += 7 * math.floor(value / 8)\n",
                                                              "newText": "    acc5 += 70 * math.floor(value / 8)\n"
                                                                         "    acc5 -= 1\n"}])
        lab.before[edit["id"]] = (lab.proj / "ledger.py").read_text()
        ask(edit)
        lab.note_version()
        ask(call("after-edit", "read", path="ledger.py"))
    finally:
        lab.close()
    problems, answers = judge(lab)
    assert problems == [], "\n".join(problems)
    steps = dict(STEPS[-4:])
    assert "symbolpack" not in lab.details()[steps["edit"]]  # not kept
    assert answers[steps["after-edit"]]["mode"] == "skeleton"
