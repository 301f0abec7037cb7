"""The real Claude Code CLI (pinned in npm/package-lock.json) with symbolpack's hooks,
driven headless by a scripted model on 127.0.0.1 (`fake_anthropic.py`), judged on
what the model actually received: the `messages` of every request the CLI sent.

The scenario (below, fixed before any tuning): first read, re-read, an outside
change then a re-read, the model's own edit then a re-read, a range, two reads in
one message, lines moved by an insert then edited, a genuinely stale edit, a
rewind to before the first read, a fork, a plain resume, a subagent, a
compaction; added later, `/clear`. The same tool calls run once more in plain
Claude Code, without symbolpack, on the same file states: the baseline the token
counts are compared with.

The judge is the project's oracle for Claude Code contexts,
`symbolpack.evaluation.claude_view`: on every request (the model's whole context
at that moment) it rebuilds, from the `messages` alone, what the model holds of
each file line by line, and checks that every answer given there vouches only for
lines the model holds with the file's true text (snapshotted by the fake API as
each request arrived) and shows only the file's text. It shares no code with the
engine, nor with symbolpack's transcript parser. On top, for the scenario's steps,
what each read must have been (a skeleton, a marker, ...).

Microcompact (Claude's in-process clearing of old tool results) cannot be driven
headless in 2.1.332: it runs only through the context-hint controller, which
needs a GrowthBook flag and a `repl_main_thread` query source (`-p` runs as the
SDK); the oracle's unit tests cover cleared results instead.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import clients
import fake_anthropic

from symbolpack.base.tokens import count_tokens
from symbolpack.evaluation.claude_view import CONTEXT_PREFIX, DENY_PREFIX, FileClock, ReadResult, judge_request, \
    read_results


def module_text() -> str:
    parts = ['"""Accounts: balances and the rules that move them."""', "", "import math", ""]
    for k in range(8):
        parts += [f"def rule{k}(value, acc{k}=0):", f'    """Rule {k} of the ledger."""']
        parts += [f"    acc{k} += value * {k + 3}" if i == 0 else f"    acc{k} += {i} * math.floor(value / {i + 1})"
                  for i in range(12)]
        parts += [f"    return acc{k}", "", ""]
    return "\n".join(parts)


APP = module_text()
NOTES = "".join(f"note {i}: remember line {i}\n" for i in range(60))


@pytest.fixture(scope="module")
def claude_bin() -> Path:
    return clients.claude_binary()  # installs the pinned client when the cache lacks it; fails, never skips


class Lab:
    """A fake model server, a throwaway HOME and one project."""

    def __init__(self, root: Path, claude: Path, hooks: bool):
        self.claude = claude
        self.home = root / "home"
        self.home.mkdir(parents=True)
        self.proj = root / "proj"
        self.proj.mkdir()
        clients.keep_scenario_threshold(self.proj)
        (self.proj / "app.py").write_text(APP)
        (self.proj / "notes.txt").write_text(NOTES)
        env = self.git_env()
        subprocess.run(["git", "init", "-q"], cwd=self.proj, check=True, env=env)
        subprocess.run(["git", "add", "-A"], cwd=self.proj, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "init"], cwd=self.proj, check=True, env=env)
        self.server, self.port = fake_anthropic.start(0)
        self.server.watch([str(self.proj / "app.py"), str(self.proj / "notes.txt")])
        if hooks:
            proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "install", "claude"], cwd=self.proj,
                                  env={**os.environ, "HOME": str(self.home)}, capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr

    def git_env(self) -> dict:
        return {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(self.home)}

    def run(self, prompt: str, turns: list, *args: str) -> list[dict]:
        """`claude -p PROMPT ARGS` with the model answering *turns*; the stream-json events."""
        self.server.set_script(turns, prompt)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
               "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.port}", "ANTHROPIC_API_KEY": "fake",
               "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
               "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "IS_SANDBOX": "1",
               "SYMBOLPACK_HOOK_SERVER_IDLE": "20"}  # the hooks' resident process ends soon after the run
        if os.environ.get("SYMBOLPACK_DIR"):
            env["SYMBOLPACK_DIR"] = os.environ["SYMBOLPACK_DIR"]
        proc = subprocess.run([str(self.claude), "-p", prompt, "--output-format", "stream-json", "--verbose",
                               "--model", "claude-sonnet-4-5", "--permission-mode", "bypassPermissions", *args],
                              cwd=self.proj, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
        return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]

    def requests(self, label: str | None = None) -> list[dict]:
        return [r["body"] for r in self.server.requests("main", label)]

    def transcript(self, session_id: str) -> list[dict]:
        key = re.sub(r"[^a-zA-Z0-9]", "-", str(self.proj))
        path = self.home / ".claude" / "projects" / key / f"{session_id}.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def close(self) -> None:
        self.server.shutdown()


KINDS: dict[str, str] = {}  # tool_use id -> first | reread | range | drill


def read(path: str, kind: str, **args) -> dict:
    ident = f"toolu_{uuid.uuid4().hex[:20]}"
    KINDS[ident] = kind
    return {"type": "tool_use", "name": "Read", "input": {"file_path": path, **args}, "id": ident}


def scenario(proj: Path) -> dict[str, list]:
    """The runs and their scripted turns; ids are fresh per call."""
    app, notes = str(proj / "app.py"), str(proj / "notes.txt")
    return {
        "work": [
            [read(app, "first")],                          # first read
            [read(app, "reread")],                         # re-read, unchanged
            [{"type": "tool_use", "name": "Bash", "id": "toolu_bash1",
              "input": {"command": f"sed -i 's/value \\* 5/value * 50/' {app}", "description": "outside change"}}],
            [read(app, "reread")],                         # re-read after an outside change
            [read(app, "drill", offset=107, limit=15)],    # rule6's body, elided so far: before editing it
            [{"type": "tool_use", "name": "Edit", "id": "toolu_edit1",
              "input": {"file_path": app, "old_string": "    return acc6\n", "new_string": "    return acc6 + 1\n"}}],
            [read(app, "reread")],                         # re-read after its own edit
            [read(app, "range", offset=20, limit=10)],     # a range
            [read(app, "reread"), read(notes, "first")],   # two reads in one message
            [{"type": "tool_use", "name": "Bash", "id": "toolu_bash2",  # every line moves down one
              "input": {"command": f"sed -i '1i # ledger' {app}", "description": "insert a line"}}],
            [read(app, "drill", offset=23, limit=15)],     # rule1's body, before editing it
            [{"type": "tool_use", "name": "Edit", "id": "toolu_edit2",  # unchanged text that only moved
              "input": {"file_path": app, "old_string": "    return acc1\n", "new_string": "    return acc1 * 2\n"}}],
            [read(app, "drill", offset=57, limit=31)],     # rule3 and rule4, before editing there
            [{"type": "tool_use", "name": "Bash", "id": "toolu_bash3",  # acc3's line changes; its old text
              "input": {"command": f"sed -i -e 's/acc3 += value \\* 6/acc3 += value * 60/' "  # lands on acc4's
                                   f"-e 's/acc4 += value \\* 7/acc3 += value * 6/' {app}",
                        "description": "change two lines"}}],
            [{"type": "tool_use", "name": "Edit", "id": "toolu_edit3",  # a genuinely stale edit
              "input": {"file_path": app, "old_string": "    acc3 += value * 6\n",
                        "new_string": "    acc3 += value * 600\n"}}],
            [read(app, "reread")],                         # re-read after the refusal
            [{"type": "text", "text": "done"}],
        ],
        "after-rewind": [[read(app, "first")], [read(app, "reread")], [{"type": "text", "text": "done"}]],
        "in-fork": [[read(app, "reread")], [{"type": "text", "text": "done"}]],
        "after-resume": [[read(app, "reread")], [{"type": "text", "text": "done"}]],
        "subagent": [  # a subagent's context is its own: the main context's reads do not count in it
            [{"type": "tool_use", "name": "Agent", "id": "toolu_agent1", "input": {
                "description": "read app", "prompt": "Read app.py twice", "subagent_type": "general-purpose",
                "run_in_background": False}}],
            [read(app, "first")],                          # the subagent's turns
            [read(app, "reread")],
            [{"type": "text", "text": "subagent report"}],
            [{"type": "text", "text": "done"}],            # back in the main context
        ],
        "after-compact": [[read(app, "reread")], [{"type": "text", "text": "done"}]],
        # added after the scenario above was measured: `/clear` starts a new, empty conversation
        "after-clear": [[read(app, "first")], [read(app, "reread")], [{"type": "text", "text": "done"}]],
    }


ROUND_TRIP_TOKENS = 100  # a drill-in costs the agent a turn (as `tldrs eval` charges it)
PLAYED: dict[tuple[str, str], list] = {}  # (project, run label) -> the turns played


def scenario_ids(label: str, lab: Lab) -> list:
    return PLAYED[(str(lab.proj), label)]


def play(lab: Lab) -> str:
    """The scenario's runs; returns the session id."""
    sid = str(uuid.uuid4())
    turns = scenario(lab.proj)
    for label, script in turns.items():
        PLAYED[(str(lab.proj), label)] = script
    lab.run("work", turns["work"], "--session-id", sid)
    first_prompt = next(r["uuid"] for r in lab.transcript(sid) if r.get("type") == "user"
                        and r.get("message", {}).get("content") == "work")
    lab.run("after-rewind", turns["after-rewind"], "--resume", sid, "--resume-session-at", first_prompt)
    lab.run("in-fork", turns["in-fork"], "--resume", sid, "--fork-session")
    lab.run("after-resume", turns["after-resume"], "--resume", sid)
    lab.run("subagent", turns["subagent"], "--resume", sid)
    lab.run("/compact", [], "--resume", sid)
    lab.run("after-compact", turns["after-compact"], "--resume", sid)
    # `-p /clear --resume SID` resets the conversation into a new session (its id in the events)
    events = lab.run("/clear", [], "--resume", sid)
    assert any(e.get("type") == "conversation_reset" for e in events), events
    cleared = next(e["session_id"] for e in events if e.get("type") == "result")
    assert cleared != sid
    lab.run("after-clear", turns["after-clear"], "--resume", cleared)
    return sid


# --------------------------------------------------------------------------- what the model received

def clock_of(records: list[dict]) -> dict[str, dict]:
    """The files' true texts around every tool call, from the fake API's snapshots
    (taken as each request arrived): `before` a call, the snapshot of the request
    whose answer made it; `after`, of the first request carrying its result."""
    before: dict[str, dict] = {}
    after: dict[str, dict] = {}
    for record in records:
        body = record.get("body")
        if not isinstance(body, dict) or "files" not in record:
            continue
        for message in body.get("messages", []):
            for block in message.get("content") if isinstance(message.get("content"), list) else []:
                if block.get("type") == "tool_result":
                    after.setdefault(block["tool_use_id"], record["files"])
        for block in (record.get("response") or {}).get("content", []):
            if block.get("type") == "tool_use":
                before[block["id"]] = record["files"]
    return {"before": before, "after": after}


def judge_run(lab: Lab) -> tuple[list[str], set[str], set[str]]:
    """The oracle (`symbolpack.evaluation.claude_view`) on every request the model
    received: its problems, the answers it judged, and every answer any request
    carried (each must have been judged where it was given)."""
    records = lab.server.requests()
    times = clock_of(records)
    problems: list[str] = []
    judged: set[str] = set()
    carried: set[str] = set()
    for n, record in enumerate(records):
        if record["kind"] != "main":
            continue
        body = record["body"]
        clock = FileClock(times["before"], times["after"], record["files"])
        verdict = judge_request(body["messages"], clock, body.get("context_management"))
        problems += [f"request {n} ({record['label']}): {p}" for p in verdict.problems]
        judged |= {a.tool_use_id for a in verdict.answers}
        carried |= {r.tool_use_id for r in read_results(body["messages"]) if r.answer is not None}
    return problems, judged, carried


def results(label: str, lab_: Lab) -> list[ReadResult]:
    """The Read results of the run's last request (the whole context it ended with)."""
    return read_results(lab_.requests(label)[-1]["messages"])


def model_text(result: ReadResult) -> str:
    """What the model read of a Read result: Claude's rows and symbolpack's answer."""
    if result.answer is None:
        return result.body
    if result.is_error:
        return DENY_PREFIX + result.answer
    return f"{result.body}\n\n<system-reminder>\n{CONTEXT_PREFIX}{result.answer}\n</system-reminder>"


def test_claude_code_with_symbolpack_answers_only_from_what_the_model_holds(claude_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("SYMBOLPACK_DIR", str(tmp_path / "state"))
    lab = Lab(tmp_path / "with", claude_bin, hooks=True)
    plain = Lab(tmp_path / "plain", claude_bin, hooks=False)
    try:
        play(lab)
        play(plain)
        app = str(lab.proj / "app.py")
        v0 = APP
        v1 = APP.replace("value * 5", "value * 50")
        v2 = v1.replace("    return acc6\n", "    return acc6 + 1\n")
        v3 = "# ledger\n" + v2
        v4 = v3.replace("    return acc1\n", "    return acc1 * 2\n")
        v5 = v4.replace("acc3 += value * 6", "acc3 += value * 60").replace("acc4 += value * 7", "acc3 += value * 6")
        states: list[str] = []  # the file states the oracle's clock holds are the scenario's
        for record in lab.server.requests("main", "work"):
            if not states or states[-1] != record["files"][app]:
                states.append(record["files"][app])
        assert states == [v0, v1, v2, v3, v4, v5]
        problems, judged, carried = judge_run(lab)
        assert problems == []
        assert carried and carried <= judged, ("answers never judged where they were given", carried - judged)
        print(f"\noracle (claude_view): {len(judged)} answers judged in {len(lab.server.requests('main'))} "
              f"requests, {len(problems)} failures")
        assert (lab.proj / "app.py").read_text() == v5  # the stale edit was not applied
        # the judge is not vacuous on the CLI's real shapes: the rewound context without its skeleton
        # read (the rewind bug: a marker leaning on a read the context no longer holds) fails
        record = lab.server.requests("main", "after-rewind")[-1]
        messages = record["body"]["messages"]
        first = next(k for k, m in enumerate(messages) if m["role"] == "assistant")
        times = clock_of(lab.server.requests())
        broken = judge_request(messages[:first] + messages[first + 2:],
                               FileClock(times["before"], times["after"], record["files"]))
        assert any("does not hold" in p for p in broken.problems), broken.problems

        work = results("work", lab)
        assert [r.kind for r in work[:2]] == ["skeleton", "unchanged"], [r.kind for r in work]
        assert work[0].body.startswith("1\t") and not work[0].is_error  # first read: a skeleton, not an error
        # the outside change is inside a body the skeleton elided: named, not shown
        assert work[2].kind == "unchanged" and "still elided): rule2" in (work[2].answer or "")
        rewound = results("after-rewind", lab)
        assert rewound[0].kind == "skeleton", "a rewind before the first read must not get [UNCHANGED]"
        assert rewound[1].kind == "unchanged"
        forked = results("in-fork", lab)
        assert forked[-1].kind == "unchanged", "a fork's context holds the file: no full re-read"
        sub_ids = [b["id"] for turn in scenario_ids("subagent", lab) for b in turn if b.get("name") == "Read"]
        seen: dict[str, ReadResult] = {}
        for r in lab.server.requests("main"):
            for result in read_results(r["body"]["messages"]):
                if result.tool_use_id in sub_ids:
                    seen[result.tool_use_id] = result
        assert list(seen) == sub_ids, (list(seen), sub_ids)
        assert seen[sub_ids[0]].kind == "skeleton", "the subagent's first read leaned on the main context"
        assert seen[sub_ids[1]].kind == "unchanged", "the subagent's own earlier read counts in its context"
        resumed = results("after-resume", lab)
        assert resumed[-1].kind == "unchanged", "a plain resume keeps the context: no full re-read"
        compacted = results("after-compact", lab)
        assert compacted[-1].kind == "unchanged", "the re-attached file is in the context: no full re-read"
        after_clear = results("after-clear", lab)
        assert [r.kind for r in after_clear] == ["skeleton", "unchanged"], "after /clear a read starts over"
        outcome = {r["tool_use_id"]: r for m in lab.requests("work")[-1]["messages"]
                   if isinstance(m.get("content"), list) for r in m["content"] if r.get("type") == "tool_result"}
        assert not outcome["toolu_edit1"].get("is_error"), "the model's own edit was refused"
        assert not outcome["toolu_edit2"].get("is_error"), ("an edit of lines that only moved was refused",
                                                           outcome["toolu_edit2"])
        assert outcome["toolu_edit3"].get("is_error") and "changed on disk" in str(outcome["toolu_edit3"]["content"])
        # after the refusal the re-read shows what changed (the native tool ran, so Claude's read state is current)
        assert "acc3 += value * 60" in model_text(work[-1])

        by_kind = {k: [0, 0] for k in ("first", "reread", "range", "drill")}  # symbolpack, plain
        errors = answers = 0
        for label in ("work", "after-rewind", "in-fork", "after-resume", "after-compact", "after-clear"):
            for side, lab_ in enumerate((lab, plain)):
                run_ids = [b["id"] for turn in scenario_ids(label, lab_) for b in turn if "id" in b]
                for result in results(label, lab_):
                    if result.tool_use_id not in run_ids or result.tool_use_id not in KINDS:
                        continue
                    kind = KINDS[result.tool_use_id]
                    if side == 1 and kind == "drill":
                        continue  # a plain agent holds every line: it needs no drill-in
                    by_kind[kind][side] += count_tokens(model_text(result)) + (ROUND_TRIP_TOKENS if kind == "drill"
                                                                                else 0)
                    if side == 0:
                        answers += 1
                        errors += result.is_error
        ours = sum(v[0] for v in by_kind.values())
        theirs = sum(v[1] for v in by_kind.values())
        print("\nRead tokens the model received (drill-ins +%d per round trip):" % ROUND_TRIP_TOKENS)
        for kind, (a_, b_) in by_kind.items():
            print(f"  {kind:<7} symbolpack {a_:6d}  plain {b_:6d}  {a_ / b_ if b_ else float('nan'):.2f}x")
        print(f"  overall symbolpack {ours:6d}  plain {theirs:6d}  {ours / theirs:.3f}x; "
              f"{errors} of {answers} Read results reached the model as errors")
        assert ours < theirs
    finally:
        lab.close()
        plain.close()


def test_an_edit_that_adds_a_line_is_part_of_the_copy_the_next_answer_leans_on(claude_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("SYMBOLPACK_DIR", str(tmp_path / "state"))
    lab = Lab(tmp_path / "with", claude_bin, hooks=True)
    try:
        app = str(lab.proj / "app.py")
        lab.run("edit-adds-a-line", [
            [read(app, "first")],
            [read(app, "drill", offset=7, limit=13)],  # rule0's body, before editing it
            [{"type": "tool_use", "name": "Edit", "id": "toolu_edit_grow", "input": {
                "file_path": app, "old_string": "    return acc0\n", "new_string": "    x = 0\n    return acc0 + x\n"}}],
            [read(app, "reread")],
            [{"type": "text", "text": "done"}],
        ], "--session-id", str(uuid.uuid4()))
        problems, judged, carried = judge_run(lab)
        assert carried and carried <= judged
        assert problems == []
    finally:
        lab.close()


def test_an_edit_of_lines_never_seen_after_a_range_read_is_reported_to_the_model(claude_bin, tmp_path, monkeypatch):
    """Found with the real CLI: after a range-only Read (lines 20-49), an Edit of lines
    the model never saw (line 101) is applied; the model must be told, in what it
    receives with the Edit's result."""
    monkeypatch.setenv("SYMBOLPACK_DIR", str(tmp_path / "state"))
    lab = Lab(tmp_path / "with", claude_bin, hooks=True)
    try:
        app = str(lab.proj / "app.py")
        lab.run("edit-unseen", [
            [read(app, "range", offset=20, limit=30)],
            [{"type": "tool_use", "name": "Edit", "id": "toolu_edit_unseen", "input": {
                "file_path": app, "old_string": "    acc5 += 9 * math.floor(value / 10)\n",
                "new_string": "    acc5 += 90 * math.floor(value / 10)\n"}}],
            [{"type": "tool_use", "name": "Edit", "id": "toolu_edit_seen", "input": {
                "file_path": app, "old_string": "    acc1 += 2 * math.floor(value / 3)\n",
                "new_string": "    acc1 += 20 * math.floor(value / 3)\n"}}],
            [{"type": "text", "text": "done"}],
        ], "--session-id", str(uuid.uuid4()))
        assert "acc5 += 90 * math.floor" in (lab.proj / "app.py").read_text()  # Claude Code applied it
        messages = lab.requests("edit-unseen")[-1]["messages"]

        def received_with(tool_use_id: str) -> str:
            """Everything the model received in the user message carrying that result."""
            for message in messages:
                content = message.get("content")
                if isinstance(content, list) and any(b.get("type") == "tool_result" and b.get("tool_use_id") ==
                                                     tool_use_id for b in content):
                    return json.dumps(content)
            raise AssertionError(f"no result for {tool_use_id}")

        unseen = received_with("toolu_edit_unseen")
        assert "never read" in unseen and "old lines 101-101" in unseen, unseen
        assert "symbolpack" not in received_with("toolu_edit_seen")  # lines it was shown: nothing to say
        problems, judged, carried = judge_run(lab)
        assert problems == []
    finally:
        lab.close()
