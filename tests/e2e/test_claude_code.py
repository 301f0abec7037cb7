"""The real Claude Code CLI (pinned in npm/package-lock.json) with symbolpack's hooks,
driven headless by a scripted model on 127.0.0.1 (`fake_anthropic.py`), judged on
what the model actually received: the `messages` of every request the CLI sent.

The scenario (below, fixed before any tuning): first read, re-read, an outside
change then a re-read, the model's own edit then a re-read, a range, two reads in
one message, lines moved by an insert then edited, a genuinely stale edit, a
rewind to before the first read, a fork, a plain resume, a compaction. The same
tool calls run once more in plain Claude Code, without symbolpack, on the same
file states: the baseline the token counts are compared with.

Rules checked on every request (the model's whole context at that moment):
1. an answer of symbolpack's about a file (a denied Read whose reason is the
   content) comes after a display of that file in the same context: it never
   leans on content the model no longer has (the rewind bug);
2. an `[UNCHANGED]` answer comes after a full display of the file in the version
   the file had when it was answered, with no other version shown since;
and for the scenario's steps, what each read must have been (native or not).
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

HOOK_ERROR = "PreToolUse:Read hook error: "
REMINDER = re.compile(r"\n*<system-reminder>\n(?!PostToolUse:Read hook additional context:).*?</system-reminder>", re.S)


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
        (self.proj / "app.py").write_text(APP)
        (self.proj / "notes.txt").write_text(NOTES)
        env = self.git_env()
        subprocess.run(["git", "init", "-q"], cwd=self.proj, check=True, env=env)
        subprocess.run(["git", "add", "-A"], cwd=self.proj, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "init"], cwd=self.proj, check=True, env=env)
        self.server, self.port = fake_anthropic.start(0)
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
               "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "IS_SANDBOX": "1"}
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
    return sid


# --------------------------------------------------------------------------- what the model received

def context_items(body: dict) -> list[tuple[str, dict | None, str]]:
    """The request's context in order, as (tool_use_id, Read input or None for another
    tool, content as the model reads it); files re-attached after a compaction come as
    ("attached", {"file_path"}, content)."""
    inputs: dict[str, dict | None] = {}
    out: list[tuple[str, dict | None, str]] = []
    messages = body.get("messages", [])
    for k, message in enumerate(messages):
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        # a re-attached file: its "Called" reminder, then (in this or the next message) its "Result"
        texts = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        if "Called the Read tool" in texts and k + 1 < len(messages) and "Result of calling" not in texts:
            after = messages[k + 1].get("content")
            texts += "\n" + "\n".join(b.get("text", "") for b in (after if isinstance(after, list) else
                                                                  [{"type": "text", "text": after or ""}])
                                        if b.get("type") == "text")
        for m in re.finditer(r"Called the Read tool with the following input: (\{.*?\})\n</system-reminder>"
                             r"\s*<system-reminder>\nResult of calling the Read tool:\n(.*?)\n</system-reminder>",
                             texts, re.S):
            out.append(("attached", json.loads(m.group(1)), m.group(2)))
        for block in blocks:
            kind = block.get("type")
            if kind == "tool_use":
                inputs[block["id"]] = block["input"] if block.get("name") == "Read" else None
            elif kind == "tool_result" and block.get("tool_use_id") in inputs:
                text = block["content"] if isinstance(block["content"], str) else \
                    "".join(b.get("text", "") for b in block["content"])
                out.append((block["tool_use_id"], inputs[block["tool_use_id"]], REMINDER.sub("", text)))
    return out


def read_results(body: dict) -> list[tuple[str, dict, str]]:
    return [(i, a, t) for i, a, t in context_items(body) if a is not None]


def native_lines(text: str) -> dict[int, str]:
    """The numbered rows of a display: Claude's `N<TAB>line` (a last empty row loses its
    TAB where Claude trims the result before appending a reminder) and symbolpack's
    right-aligned `     N<TAB>line` in a skeleton's additional context."""
    lines = {}
    for row in text.split("\n"):
        m = re.match(r"^ *(\d+)(?:\t(.*))?$", row, re.S)
        if m:
            lines[int(m.group(1))] = m.group(2) or ""
    return lines


CONTEXT = "PostToolUse:Read hook additional context: "


def answer_text(text: str) -> str | None:
    """symbolpack's answer in a Read result (a re-read it answered: a deny's reason, or
    the additional context that replaced the native output), or None for a display
    (the native output, or a skeleton)."""
    if text.startswith(HOOK_ERROR):
        return text[len(HOOK_ERROR):]
    at = text.find(CONTEXT)
    if at < 0:
        return None
    context = text[at + len(CONTEXT):]
    return None if context.startswith("[SKELETON]") else context


def is_answer(text: str) -> bool:
    return answer_text(text) is not None


def judge(requests: list[tuple[str, dict]], versions: dict[str, list[str]], changes: dict[str, int]) -> list[str]:
    """Rules 1 and 2 on every (run label, request body). *versions*: each file's texts in
    the order they existed; *changes*: the tool calls after whose result a file moved to
    its next version (the run "work" starts at the first; every later run finds the last).
    What the model holds of a file: the numbered rows of its latest whole-file display
    (a native read, a skeleton: Claude's `N<TAB>` rows and the hook's own in its
    additional context; elided lines are not held), updated by range displays; after a
    delta or a diff of symbolpack's the file is not checked again until the next display."""
    problems = []
    for n, (label, body) in enumerate(requests):
        now = {path: texts[0] if label == "work" else texts[-1] for path, texts in versions.items()}
        held: dict[str, dict[int, str] | None] = {}  # None: patched by an answer this judge does not replay
        for ident, args, text in context_items(body):
            if args is None:
                if ident in changes and label == "work":
                    path = next(p for p in versions if changes[ident] < len(versions[p]))
                    now[path] = versions[path][changes[ident]]
                continue
            path = args["file_path"]
            answer = answer_text(text)
            if answer is None:
                rows = native_lines(text)
                if "offset" in args or "limit" in args:
                    held[path] = {**(held.get(path) or {}), **rows} if held.get(path) is not None else None
                else:
                    held[path] = rows
                continue
            if path not in held:
                problems.append(f"request {n} ({label}): {ident} answers {Path(path).name} with no display of it "
                                f"in the context")
                continue
            first = answer.split("\n", 1)[0]
            if first.startswith("[UNCHANGED]") and "offset" not in args:
                lines = now[path].split("\n")
                rows = held[path]
                if rows is not None:
                    wrong = [k for k, t in rows.items() if k > len(lines) or lines[k - 1] != t]
                    if wrong or not rows:
                        problems.append(f"request {n} ({label}): {ident} says [UNCHANGED] while the model holds "
                                        f"{Path(path).name} lines {wrong[:5]} with other text")
            elif not first.startswith("[UNCHANGED]"):
                held[path] = None  # a delta or a diff: not replayed here
    return problems


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
        versions = {app: [v0, v1, v2, v3, v4, v5], str(lab.proj / "notes.txt"): [NOTES]}
        requests = [(r["label"], r["body"]) for r in lab.server.requests("main")]
        changes = {"toolu_bash1": 1, "toolu_edit1": 2, "toolu_bash2": 3, "toolu_edit2": 4, "toolu_bash3": 5}
        assert judge(requests, versions, changes) == []
        assert (lab.proj / "app.py").read_text() == v5  # the stale edit was not applied

        def results(label: str, lab_: Lab) -> list[tuple[str, dict, str]]:
            last = lab_.requests(label)[-1]
            return read_results(last)

        work = results("work", lab)
        kinds = [("answer" if is_answer(t) else "native") for _, _, t in work]
        assert kinds[0] == "native" and "[UNCHANGED]" in work[1][2], kinds
        assert work[0][2].startswith("1\t") and "[SKELETON]" in work[0][2]  # first read: a skeleton, not an error
        # the outside change is inside a body the skeleton elided: named, not shown
        assert is_answer(work[2][2]) and "still elided): rule2" in work[2][2]
        rewound = results("after-rewind", lab)
        assert not is_answer(rewound[0][2]), "a rewind before the first read must not get [UNCHANGED]"
        assert "[UNCHANGED]" in rewound[1][2]
        forked = results("in-fork", lab)
        assert "[UNCHANGED]" in forked[-1][2], "a fork's context holds the file: no full re-read"
        sub_ids = [b["id"] for turn in scenario_ids("subagent", lab) for b in turn if b.get("name") == "Read"]
        seen: dict[str, str] = {}
        for r in lab.server.requests("main"):
            for i, _, text in read_results(r["body"]):
                if i in sub_ids:
                    seen[i] = text
        assert list(seen) == sub_ids, (list(seen), sub_ids)
        assert not is_answer(seen[sub_ids[0]]), "the subagent's first read leaned on the main context"
        assert "[UNCHANGED]" in seen[sub_ids[1]], "the subagent's own earlier read counts in its context"
        resumed = results("after-resume", lab)
        assert "[UNCHANGED]" in resumed[-1][2], "a plain resume keeps the context: no full re-read"
        compacted = results("after-compact", lab)
        assert "[UNCHANGED]" in compacted[-1][2], "the re-attached file is in the context: no full re-read"
        outcome = {r["tool_use_id"]: r for m in lab.requests("work")[-1]["messages"]
                   if isinstance(m.get("content"), list) for r in m["content"] if r.get("type") == "tool_result"}
        assert not outcome["toolu_edit1"].get("is_error"), "the model's own edit was refused"
        assert not outcome["toolu_edit2"].get("is_error"), ("an edit of lines that only moved was refused",
                                                           outcome["toolu_edit2"])
        assert outcome["toolu_edit3"].get("is_error") and "changed on disk" in str(outcome["toolu_edit3"]["content"])
        # after the refusal the re-read shows what changed (the native tool ran, so Claude's read state is current)
        assert "acc3 += value * 60" in work[-1][2]

        by_kind = {k: [0, 0] for k in ("first", "reread", "range", "drill")}  # symbolpack, plain
        errors = answers = 0
        for label in ("work", "after-rewind", "in-fork", "after-resume", "after-compact"):
            for side, lab_ in enumerate((lab, plain)):
                own = [(i, t) for i, a, t in results(label, lab_) if i in KINDS]
                run_ids = [b["id"] for turn in scenario_ids(label, lab_) for b in turn if "id" in b]
                for ident, text in own:
                    if ident not in run_ids:
                        continue
                    kind = KINDS[ident]
                    if side == 1 and kind == "drill":
                        continue  # a plain agent holds every line: it needs no drill-in
                    by_kind[kind][side] += count_tokens(text) + (ROUND_TRIP_TOKENS if kind == "drill" else 0)
                    if side == 0:
                        answers += 1
                        errors += text.startswith(HOOK_ERROR)
        ours = sum(v[0] for v in by_kind.values())
        theirs = sum(v[1] for v in by_kind.values())
        print("\nRead tokens the model received (drill-ins +%d per round trip):" % ROUND_TRIP_TOKENS)
        for kind, (a_, b_) in by_kind.items():
            print(f"  {kind:<7} symbolpack {a_:6d}  plain {b_:6d}  {a_ / b_ if b_ else float('nan'):.2f}x")
        print(f"  overall symbolpack {ours:6d}  plain {theirs:6d}  {ours / theirs:.2f}x; "
              f"{errors} of {answers} Read results reached the model as errors")
        assert ours < theirs
    finally:
        lab.close()
        plain.close()
