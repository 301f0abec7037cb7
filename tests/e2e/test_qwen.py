"""The real Qwen Code CLI (pinned in npm/qwen/package-lock.json) with what `tldrs install
qwen` writes, driven headless by a scripted model on 127.0.0.1 (`fake_qwen_chat.py`),
judged on what the model actually received: the `messages` of every request.

Qwen's own `read_file` always runs (it alone records the read `edit` requires);
symbolpack's answer replaces its output (a `PostToolUse` stop). Each headless run is
one Qwen process, and Qwen's read state is that process's: so a run plays several
turns (the fake answers the k-th request after the prompt with the k-th scripted
turn). The scenario: a first read,
a re-read, the model's own edit and a re-read, an outside change (a shell `sed`) and
a re-read, an edit after each of those reads, a range and an edit in it; an automatic
compression inside a run (the fake reports a prompt over Qwen's threshold) then a
read and an edit; `/compress` in a run of its own; a new process (`--continue`)
reading twice and editing. The first read of each process is a skeleton; no edit may
be refused, whatever kind of answer it came after. The same turns run once more in
plain Qwen, without symbolpack, on the same file states: the baseline of the token
counts.

Rewind and fork, headless: Qwen's `/rewind` (`rewindCommand`, alias `rollback`) is
`supportedModes: ["interactive"]` and opens a dialog, so not usable with a prompt
argument; but its ACP mode (`qwen --acp`, JSON-RPC on stdio) answers the extension
method `rewindSession` (also `qwen/control/session/rewind`) {sessionId,
targetTurnIndex, rewindFiles} on a loaded session (`session/load`): `rewindToTurn`
truncates the model history and `ChatRecordingService.rewindRecording` appends a
`system`/`rewind` record whose `parentUuid` is the kept turn's, so the next
`--resume` continues from there. `--resume <id> --fork-session` copies the session
(`SessionService.forkSession`) under a new id. The scripted model reads (a skeleton),
then in a second run reads a range and re-reads; that run is rewound over ACP; a
teammate changes a line only the range showed; `--resume` reads ([CHANGED], from the
skeleton alone), edits, reads; `--fork-session` reads another range; the file changes;
the original and the fork each read again. No request after the rewind carries the
dropped run's answers; the original never carries the fork's.

The judge is `symbolpack.evaluation.qwen_view` (claude_view's judge on Qwen's shapes;
no engine code): every symbolpack answer is judged in the request that carried it.

The lock file lists only the optional packages the registry has: Qwen 0.24.4 names
`@teddyzhu/clipboard-*` builds for five platforms the registry never published, and
`npm ci` refuses a lock that names them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import clients
import fake_qwen_chat

from symbolpack.base.tokens import count_tokens
from symbolpack.evaluation.claude_view import FileClock
from symbolpack.evaluation.qwen_view import ANSWER_HEADS, judge
from symbolpack.integrations.installers.jsonc_edit import loads


def module_text() -> str:
    parts = ['"""Accounts: balances and the rules that move them."""', "", "import math", ""]
    for k in range(8):
        parts += [f"def rule{k}(value, acc{k}=0):", f'    """Rule {k} of the ledger."""']
        parts += [f"    acc{k} += value * {k + 3}" if i == 0 else f"    acc{k} += {i} * math.floor(value / {i + 1})"
                  for i in range(12)]
        parts += [f"    return acc{k}", "", ""]
    return "\n".join(parts)


APP = module_text()
REFUSALS = ("has not been read in this session", "has been modified since you last read it")


@pytest.fixture(scope="module")
def qwen() -> Path:
    return clients.node_bin("qwen", "qwen")  # installs the pinned client when the cache lacks it; fails, never skips


class Lab:
    def __init__(self, root: Path, qwen: Path, hooks: bool):
        self.qwen = qwen
        self.home = root / "home"
        self.home.mkdir(parents=True)
        self.proj = root / "proj"
        self.proj.mkdir()
        clients.keep_scenario_threshold(self.proj)
        self.app = str(self.proj / "app.py")
        Path(self.app).write_text(APP)
        subprocess.run(["git", "init", "-q"], cwd=self.proj, check=True)
        self.state = root / "state"
        self.server, self.port = fake_qwen_chat.start(0)
        self.server.watch([self.app])
        self.server.prompt_tokens = 20_000  # a history /compress can shrink (the summary reports 50,000 in)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
                    "NO_COLOR": "1", "SYMBOLPACK_DIR": str(self.state), "XDG_STATE_HOME": str(root / "xdg"),
                    "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}
        if hooks:
            proc = self.tldrs("install", "qwen")
            assert proc.returncode == 0, proc.stderr

    def tldrs(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=self.proj,
                              env={**self.env, "SYMBOLPACK_TLDRS": f"{sys.executable} -m symbolpack.cli"},
                              capture_output=True, text=True, timeout=120)

    def run(self, label: str, turns: list, *more: str) -> None:
        self.server.set_script(label, turns)
        prompt = label if label.startswith("/") else fake_qwen_chat.run_prompt(label)
        proc = subprocess.run([str(self.qwen), prompt, "-o", "json", "--auth-type", "openai", "--openai-base-url",
                               f"http://127.0.0.1:{self.port}/v1", "--openai-api-key", "x", "-m", "fake-model",
                               "--yolo", *more], cwd=self.proj, env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, (label, proc.stdout[-2000:], proc.stderr[-2000:])

    def close(self) -> None:
        self.server.shutdown()


KINDS: dict[str, str] = {}  # call id -> first | reread | range


def read(path: str, kind: str, **args) -> dict:
    ident = f"call_{uuid.uuid4().hex[:16]}"
    KINDS[ident] = kind
    return {"name": "read_file", "arguments": {"file_path": path, **args}, "id": ident}


def edit(path: str, old: str, new: str) -> dict:
    return {"name": "edit", "arguments": {"file_path": path, "old_string": old, "new_string": new},
            "id": f"call_{uuid.uuid4().hex[:16]}"}


def shell(command: str) -> dict:
    return {"name": "run_shell_command", "arguments": {"command": command}, "id": f"call_{uuid.uuid4().hex[:16]}"}


def scenario(app: str) -> list[tuple[str, list, tuple[str, ...]]]:
    """(label, turns, extra arguments) of each run; ids are fresh per call."""
    return [
        ("work", [
            [read(app, "first")],                                                   # first read: Qwen's own
            [read(app, "reread")],                                                  # re-read: [UNCHANGED]
            [edit(app, "    return acc6\n", "    return acc6 + 1\n")],              # edit after a denied read
            [read(app, "reread")],                                                  # re-read after its own edit
            [edit(app, "    return acc5\n", "    return acc5 + 5\n")],              # edit after a delta
            [shell(f"sed -i 's/value \\* 5/value * 50/' {app}")],                  # outside change
            [read(app, "reread")],                                                  # re-read: Qwen's own
            [edit(app, "    return acc1\n", "    return acc1 * 2\n")],              # edit after it
            [read(app, "range", offset=20, limit=10)],                              # a range
            [edit(app, "    acc1 += 5 * math.floor(value / 6)\n", "    acc1 += 50 * math.floor(value / 6)\n")],
            [read(app, "reread")],                                                  # the prompt spikes here
            [read(app, "reread")],                                                  # after the auto-compression
            [edit(app, "    return acc2\n", "    return acc2 - 2\n")],              # edit after it
            [read(app, "reread")],
        ], ()),
        ("/compress", [], ("--continue",)),
        ("after-compress", [
            [read(app, "reread")],                                                  # a new process: Qwen's own
            [read(app, "reread")],                                                  # [UNCHANGED] again
            [edit(app, "    return acc3\n", "    return acc3 + 3\n")],
        ], ("--continue",)),
    ]


SPIKE = ("work", 10)  # the answer to this turn reports a prompt over Qwen's auto-compaction threshold


def play(lab: Lab) -> list[tuple[str, list]]:
    runs = scenario(lab.app)
    lab.server.spikes[SPIKE] = 180_000
    for label, turns, more in runs:
        lab.run(label, turns, *more)
    return [(label, turns) for label, turns, _ in runs]


def clock_of(records: list[dict]) -> dict[str, dict]:
    """The file's true texts around each call: before (the request whose answer made it)
    and after (the first request carrying its result)."""
    before: dict[str, dict] = {}
    after: dict[str, dict] = {}
    for record in records:
        for message in record["body"].get("messages", []):
            if message.get("role") == "tool":
                after.setdefault(message.get("tool_call_id"), record["files"])
        if isinstance(record.get("answer"), list):
            for call in record["answer"]:
                before[call["id"]] = record["files"]
    return {"before": before, "after": after}


def main_requests(lab: Lab) -> list[dict]:
    return [r for r in lab.server.requests() if r["kind"] in ("call", "done")]


def tool_texts(body: dict) -> dict[str, str]:
    out = {}
    for message in body.get("messages", []):
        if message.get("role") == "tool":
            content = message.get("content")
            out[message["tool_call_id"]] = content if isinstance(content, str) else "".join(
                p.get("text", "") for p in content or [] if isinstance(p, dict))
    return out


def judge_run(lab: Lab) -> tuple[list[str], set[str], set[str]]:
    records = lab.server.requests()
    times = clock_of(records)
    problems: list[str] = []
    judged: set[str] = set()
    carried: set[str] = set()
    for n, record in enumerate(records):
        if record["kind"] not in ("call", "done"):
            continue
        clock = FileClock(times["before"], times["after"], record["files"])
        verdict = judge(record["body"]["messages"], clock)
        problems += [f"request {n} ({record['label']}): {p}" for p in verdict.problems]
        judged |= {a.tool_use_id for a in verdict.answers}
        carried |= {ident for ident, text in tool_texts(record["body"]).items() if text.startswith(ANSWER_HEADS)}
    return problems, judged, carried


def outcomes(lab: Lab) -> dict[str, str]:
    """Every call's result text as the model last received it, across all requests."""
    out: dict[str, str] = {}
    for record in main_requests(lab):
        out.update(tool_texts(record["body"]))
    return out


def test_qwen_code_with_symbolpack_answers_only_from_what_the_model_holds(qwen, tmp_path):
    lab = Lab(tmp_path / "with", qwen, hooks=True)
    plain = Lab(tmp_path / "plain", qwen, hooks=False)
    try:
        runs = play(lab)
        plain_runs = play(plain)
        compressions = [r for r in lab.server.requests() if r["kind"] == "compress"]
        assert len(compressions) == 2, "the automatic and the /compress compression must both have run"
        # the automatic one ran inside the work run: its requests after the spike carry a summary
        work = [r for r in main_requests(lab) if r["label"] == "work"]
        assert any("<state_snapshot>" in json.dumps(r["body"]["messages"]) for r in work)

        problems, judged, carried = judge_run(lab)
        print(f"\noracle (qwen_view): {len(judged)} answers judged in {len(main_requests(lab))} requests, "
              f"{len(problems)} failures")
        assert problems == []
        assert carried and carried <= judged, ("answers never judged where they were given", carried - judged)

        got = outcomes(lab)
        kinds: list[str] = []
        edited_after: set[str] = set()  # the kind of answer each edit came after
        for label, turns in runs:
            for turn in turns:
                for call in turn:
                    text = got[call["id"]]
                    if call["name"] == "read_file":
                        kinds.append(text.split(" ", 1)[0] if text.startswith("[") else "native")
                    elif call["name"] == "edit":
                        assert text.startswith("The file: "), (label, call["arguments"]["old_string"], text)
                        assert not any(r in text for r in REFUSALS)
                        edited_after.add(kinds[-1])
        print("read answers:", kinds)
        print("edits went through after:", sorted(edited_after))
        assert kinds[:2] == ["[SKELETON]", "[UNCHANGED]"], kinds  # a first read: a skeleton, in place of Qwen's
        assert kinds[3] == "[DELTA]", kinds                        # after an outside change: what changed
        assert kinds[6] == "[SKELETON]", kinds                     # after the automatic compression
        assert kinds[-2:] == ["[SKELETON]", "[UNCHANGED]"], kinds  # a new process, then a re-read
        # Qwen recorded every read it ran: an edit after each kind of answer goes through
        assert edited_after >= {"[SKELETON]", "[UNCHANGED]", "[DELTA]", "native"}, edited_after
        # and the answers replaced Qwen's output: none of its own text for a read answered
        assert not any(t.startswith("[File ") and "unchanged since last read" in t for t in got.values())
        final = Path(lab.app).read_text()
        for piece in ("return acc6 + 1", "return acc5 + 5", "return acc1 * 2", "50 * math.floor(value / 6)",
                      "return acc2 - 2", "return acc3 + 3", "value * 50"):
            assert piece in final
        assert final == Path(plain.app).read_text(), "plain Qwen ended with another file"

        # the judge is not vacuous on Qwen's real shapes: the work run's last request without its
        # first read (what a marker leans on) fails
        record = [r for r in main_requests(lab) if r["label"] == "work"][2]  # carries the [UNCHANGED]
        messages = record["body"]["messages"]
        first = next(k for k, m in enumerate(messages) if m.get("role") == "tool")
        times = clock_of(lab.server.requests())
        broken = judge(messages[:first] + messages[first + 1:],
                       FileClock(times["before"], times["after"], record["files"]))
        assert any("does not hold" in p or "never told" in p for p in broken.problems), broken.problems

        ours = theirs = 0
        by_kind: dict[str, list[int]] = {}
        plain_got = outcomes(plain)
        for (label, turns), (_, plain_turns) in zip(runs, plain_runs):
            for turn, plain_turn in zip(turns, plain_turns):
                for call, plain_call in zip(turn, plain_turn):
                    if call["name"] != "read_file":
                        continue
                    a, b = count_tokens(got[call["id"]]), count_tokens(plain_got[plain_call["id"]])
                    ours += a
                    theirs += b
                    row = by_kind.setdefault(KINDS[call["id"]], [0, 0])
                    row[0] += a
                    row[1] += b
        print("Read tokens the model received:")
        for kind, (a, b) in by_kind.items():
            print(f"  {kind:<7} symbolpack {a:6d}  plain Qwen {b:6d}  {a / b if b else float('nan'):.2f}x")
        print(f"  overall symbolpack {ours:6d}  plain Qwen {theirs:6d}  {ours / theirs:.3f}x")
        assert ours <= 0.5 * theirs, (ours, theirs)
    finally:
        lab.close()
        plain.close()


def test_install_then_uninstall_round_trips_and_qwen_loads_the_hooks(qwen, tmp_path):
    lab = Lab(tmp_path, qwen, hooks=False)
    try:
        settings = lab.proj / ".qwen" / "settings.json"
        settings.parent.mkdir()
        original = '{\n  // mine\n  "hooks": {"PreToolUse": [\n    {"matcher": "run_shell_command", "hooks": []}\n  ]},\n' \
                   '  "ui": {"theme": "GitHub"}\n}\n'
        settings.write_text(original)
        assert lab.tldrs("install", "qwen").returncode == 0
        assert lab.tldrs("uninstall", "qwen").returncode == 0
        assert settings.read_text() == original  # byte for byte
        assert lab.tldrs("install", "qwen").returncode == 0
        installed = settings.read_text()
        assert "// mine" in installed and "qwen-pre-read" in installed
        code, report = doctor(lab)
        qwen_targets = [t for t in report["qwen"]["targets"] if t["scope"] == "project"]
        assert qwen_targets[0]["status"] == "installed", report["qwen"]
        assert report["qwen"]["hooks"] and all(h["ok"] for h in report["qwen"]["hooks"]), report["qwen"]
        assert code == 0, report["problems"]
        lab.run("loads", [[read(lab.app, "first")], [read(lab.app, "reread")]])
        assert any(t.startswith("[UNCHANGED]") for t in outcomes(lab).values()), "Qwen did not run the hooks"
        # Qwen migrated the file on start ("$version", its own layout): uninstall takes out exactly ours
        migrated = settings.read_text()
        assert migrated != installed
        assert lab.tldrs("uninstall", "qwen").returncode == 0
        left = loads(settings.read_text())
        assert "qwen-hook" not in settings.read_text() and "integrations.qwen" not in settings.read_text()
        assert left["ui"] == {"theme": "GitHub"}
        assert left["hooks"]["PreToolUse"] == [{"matcher": "run_shell_command", "hooks": []}]
    finally:
        lab.close()


def doctor(lab: Lab) -> tuple[int, dict]:
    proc = lab.tldrs("doctor", "--json")
    return proc.returncode, json.loads(proc.stdout)


class Acp(clients.StdioJsonRpc):
    """`qwen --acp` (the Agent Client Protocol on stdio): JSON-RPC requests, notifications skipped."""

    def __init__(self, lab: Lab):
        super().__init__([str(lab.qwen), "--acp", "--auth-type", "openai", "--openai-base-url",
                          f"http://127.0.0.1:{lab.port}/v1", "--openai-api-key", "x", "-m", "fake-model", "--yolo"],
                         "qwen --acp", lab.proj, lab.env)
        self.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})


def chats(lab: Lab) -> set[str]:
    """The session ids Qwen keeps for the project (`~/.qwen/projects/<project>/chats/<id>.jsonl`)."""
    return {p.stem for p in (lab.home / ".qwen" / "projects").glob("*/chats/*.jsonl")}


def test_after_a_rewind_and_a_fork_qwen_answers_lean_only_on_what_each_request_carries(qwen, tmp_path):
    lab = Lab(tmp_path, qwen, hooks=True)
    app = lab.app
    original = str(uuid.uuid4())
    try:
        lab.run("first", [[read(app, "first")]], "--session-id", original)
        lab.run("drill", [[read(app, "range", offset=20, limit=10)], [read(app, "reread")]], "--resume", original)
        acp = Acp(lab)
        try:
            acp.request("session/load", {"sessionId": original, "cwd": str(lab.proj), "mcpServers": []})
            acp.request("rewindSession", {"sessionId": original, "targetTurnIndex": 1, "rewindFiles": False})
        finally:
            acp.close()
        Path(app).write_text(Path(app).read_text().replace("acc1 += 5 * math.floor(value / 6)",
                                                           "acc1 += 55 * math.floor(value / 6)"))  # a teammate
        lab.run("after-rewind", [[read(app, "reread")], [edit(app, "    return acc1\n", "    return acc1 + 1\n")],
                                 [read(app, "reread")]], "--resume", original)
        before = chats(lab)
        lab.run("fork", [[read(app, "range", offset=40, limit=8)]], "--resume", original, "--fork-session")
        (fork,) = chats(lab) - before
        Path(app).write_text(Path(app).read_text() + "\n\ndef added(value):\n    return value\n")
        lab.run("original", [[read(app, "reread")]], "--resume", original)
        lab.run("forked", [[read(app, "reread")]], "--resume", fork)

        problems, judged, carried = judge_run(lab)
        print(f"\noracle (qwen_view): {len(judged)} answers judged, {len(problems)} failures")
        assert problems == []
        assert carried and carried <= judged, ("answers never judged where they were given", carried - judged)

        got = outcomes(lab)
        by_label = {r["label"]: r for r in main_requests(lab)}  # each run's last request
        calls = {label: [c for t in lab.server.scripts[label] for c in t] for label in by_label}
        texts = {label: [got[c["id"]] for c in calls[label]] for label in calls}
        print({label: [t.split("\n", 1)[0][:40] for t in ts] for label, ts in texts.items()})
        ids = {label: {m.get("tool_call_id") for m in r["body"]["messages"] if m.get("role") == "tool"}
               for label, r in by_label.items()}
        drill = {c["id"] for c in calls["drill"]}
        # the rewind: the runs after it never carry the drill's answers, and no answer leans on them
        for label in ("after-rewind", "fork", "original", "forked"):
            assert not drill & ids[label], label
        assert texts["drill"][1].startswith("[UNCHANGED]")
        # acc1 changed on a line only the dropped range showed: the answer leans on the skeleton alone
        assert texts["after-rewind"][0].startswith("[CHANGED]"), texts["after-rewind"][0]
        assert texts["after-rewind"][1].startswith("The file: "), texts["after-rewind"][1]
        assert not any(r in texts["after-rewind"][1] for r in REFUSALS)
        # the fork carries the original's history; each goes on without the other's later answers
        fork_read = calls["fork"][0]["id"]
        assert {c["id"] for c in calls["after-rewind"]} <= ids["fork"]
        assert fork_read not in ids["original"] and fork_read in ids["forked"]
    finally:
        lab.close()
