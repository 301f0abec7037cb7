"""The Qwen Code hooks on payloads and transcripts shaped as Qwen 0.24.4 writes them: Qwen's
own read always runs (its read state is what plain Qwen's would be), and its output is
replaced by symbolpack's answer (a stop whose reason Qwen sends as the result) when the
file is still what Qwen read and the answer is smaller; the answer leans only on
results the transcript's active chain still carries (and microcompaction cannot have
blanked); Qwen's own "unchanged" note never reaches the model; native output kept
line by line as the model got it, own edits kept, bad input ignored."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from symbolpack.integrations.qwen.hooks import post_edit, post_read, pre_read, retired
from symbolpack.integrations.qwen.present import blanked
from symbolpack.integrations.qwen.runner import run_hook
from symbolpack.integrations.qwen.transcript import Record

TEXT = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(40))  # small: Qwen's own lines are cheapest
BIG = "import math\n\n\n" + "".join(  # bodies a skeleton leaves out
    f"def g{i}(x):\n" + "".join(f"    x += {i} * math.floor(x / {k + 1})\n" for k in range(12)) + f"    return {i}\n\n\n"
    for i in range(12))
PLACEHOLDER = ("[File app.py unchanged since last read in this session \u2014 the full content was provided earlier "
               "in this conversation. If you cannot retrieve that prior content (e.g. after context compaction) or "
               "you suspect the file was modified outside the read/edit tools (shell command, MCP tool, another "
               "process), re-read with explicit offset/limit to fetch current content.]")


class Qwen:
    """One Qwen session as its hooks see it: a project, a transcript, call ids."""

    def __init__(self, root: Path):
        self.root = root
        self.path = root / "app.py"
        self.path.write_text(TEXT)
        self.transcript = root / "chat.jsonl"
        self.records: list[dict] = []
        self.n = 0
        self.when = datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp()

    def base(self, event: str) -> dict:
        return {"session_id": "s1", "cwd": str(self.root), "transcript_path": str(self.transcript),
                "hook_event_name": event}

    def _append(self, kind: str, message: dict | None = None, **extra) -> None:
        uuid = f"u{len(self.records)}"
        parent = extra.pop("parent", self.records[-1]["uuid"] if self.records else None)
        self.when += extra.pop("later", 1)
        stamp = datetime.fromtimestamp(self.when, timezone.utc).isoformat().replace("+00:00", "Z")
        record = {"uuid": uuid, "parentUuid": parent, "type": kind, "timestamp": stamp, **extra}
        if message is not None:
            record["message"] = message
        self.records.append(record)
        self.transcript.write_text("".join(json.dumps(r) + "\n" for r in self.records))

    def call(self, name: str, args: dict, later: float = 1) -> str:
        self.n += 1
        ident = f"call_{self.n:04d}"
        self._append("assistant", {"role": "model", "parts": [{"functionCall": {"id": ident, "name": name,
                                                                                 "args": args}}]}, later=later)
        return ident

    def result(self, ident: str, name: str, output: str | None = None, error: str | None = None) -> None:
        response = {"error": error} if error is not None else {"output": output}
        self._append("tool_result", {"role": "user", "parts": [{"functionResponse": {
            "id": ident, "name": name, "response": response}}]})

    def system(self, subtype: str, **payload) -> None:
        self._append("system", subtype=subtype, systemPayload=payload)

    def read(self, shown: str | None = None, during=None, **args) -> tuple[str, dict | None]:
        """A read_file call as Qwen runs it: pre-read (never a decision), its own read
        (*shown*: what it produced, else the file's lines; *during*: what happens to the
        file while it reads), post-read. (id, the answer that replaced its output)."""
        tool_input = {"file_path": str(self.path), **args}
        ident = self.call("read_file", tool_input)
        pre = {**self.base("PreToolUse"), "tool_name": "read_file", "tool_input": tool_input, "tool_call_id": ident}
        assert pre_read(pre, []) is None
        if shown is None:
            lines = self.path.read_text().split("\n")
            offset = args.get("offset") or 0
            shown = "\n".join(line.rstrip() for line in lines[offset:offset + args["limit"]]) if "limit" in args \
                else "\n".join(line.rstrip() for line in lines)
        if during is not None:
            during()
        out = post_read({**pre, "hook_event_name": "PostToolUse", "tool_response": {"llmContent": shown}}, [])
        if out is not None:
            assert out["continue"] is False and set(out) == {"continue", "stopReason"}
            self.result(ident, "read_file", error=out["stopReason"])  # Qwen records a stop as an error
        else:
            self.result(ident, "read_file", output=shown)
        return ident, out

    def edit(self, old: str, new: str) -> str:
        tool_input = {"file_path": str(self.path), "old_string": old, "new_string": new}
        ident = self.call("edit", tool_input)
        self.path.write_text(self.path.read_text().replace(old, new, 1))
        post_edit({**self.base("PostToolUse"), "tool_name": "edit", "tool_input": tool_input, "tool_call_id": ident,
                   "tool_response": {"llmContent": "ok"}}, [])
        self.result(ident, "edit", output=f"The file: {self.path} has been updated.")
        return ident


@pytest.fixture
def qwen(make_repo, monkeypatch, tmp_path):
    root = make_repo({}, commit=False)
    monkeypatch.setenv("SYMBOLPACK_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return Qwen(root)


def answer(out: dict | None) -> str:
    assert out is not None, "Qwen's output was not replaced"
    return out["stopReason"]


def test_a_first_read_is_a_skeleton_in_place_of_qwens_output_and_a_re_read_is_unchanged(qwen):
    qwen.path.write_text(BIG)
    assert answer(qwen.read()[1]).startswith("[SKELETON] app.py")
    assert answer(qwen.read()[1]).startswith("[UNCHANGED] app.py")


def test_qwens_own_lines_stand_where_they_are_the_cheapest_answer(qwen):
    assert qwen.read()[1] is None  # a small file: its lines, as Qwen shows them
    assert answer(qwen.read()[1]).startswith("[UNCHANGED] app.py")


def test_after_its_own_edit_a_re_read_shows_the_edit(qwen):
    qwen.read()
    qwen.edit("    return 7\n", "    return 77\n")
    text = answer(qwen.read()[1])
    assert text.startswith("[DELTA]") and "return 77" in text and "return 7\n" not in text


def test_after_an_outside_change_a_re_read_says_what_changed(qwen):
    qwen.read()
    qwen.path.write_text(TEXT.replace("return 3\n", "return 30\n"))
    text = answer(qwen.read()[1])
    assert text.startswith(("[DELTA]", "[DIFF]")) and "return 30" in text
    assert answer(qwen.read()[1]).startswith("[UNCHANGED]")


def test_a_file_that_changes_while_qwen_reads_it_is_left_to_qwen(qwen):
    qwen.path.write_text(BIG)
    qwen.read()
    _, out = qwen.read(during=lambda: qwen.path.write_text(BIG.replace("return 3\n", "return 30\n")))
    assert out is None  # what Qwen recorded is not the file symbolpack would answer about
    assert qwen.read()[1] is not None


def test_qwens_own_unchanged_note_never_reaches_the_model(qwen):
    qwen.path.write_text(BIG)
    qwen.read()  # a skeleton: Qwen recorded a full read, so its next answer is its note
    assert answer(qwen.read(shown=PLACEHOLDER)[1]).startswith("[UNCHANGED]")
    qwen.transcript.unlink()  # nothing proven: an answer that leans on nothing
    qwen.records.clear()
    assert answer(qwen.read(shown=PLACEHOLDER)[1]).startswith("[SKELETON]")


def test_a_compression_or_rewind_on_the_chain_is_a_barrier_without_any_hook(qwen):
    qwen.path.write_text(BIG)
    qwen.read()
    qwen.system("chat_compression", info={"compressionStatus": 1})
    assert answer(qwen.read()[1]).startswith("[SKELETON]")  # the model holds nothing of it
    assert answer(qwen.read()[1]).startswith("[UNCHANGED]")
    first = qwen.records[-1]["uuid"]
    qwen.system("rewind", truncatedCount=2, parent=first)
    assert answer(qwen.read()[1]).startswith("[UNCHANGED]")  # the rewound-to chain still holds it


def test_only_results_on_the_active_chain_count(qwen):
    qwen.path.write_text(BIG)
    qwen.read()
    # a branch that leaves the read's result behind (its parent is before the read)
    qwen._append("user", {"role": "user", "parts": [{"text": "again"}]}, parent=None)
    assert answer(qwen.read()[1]).startswith("[SKELETON]")


def test_a_line_qwen_trimmed_is_not_vouched_for(qwen):
    qwen.path.write_text(TEXT.replace("return 5\n", "return 5   \n"))
    qwen.read()
    _, out = qwen.read()
    assert out is None or not answer(out).startswith("[UNCHANGED]")


def test_a_result_with_other_text_than_kept_does_not_count(qwen):
    qwen.read()
    qwen.records[-1]["message"]["parts"][0]["functionResponse"]["response"]["output"] += "\n\nsome hook's note"
    qwen.transcript.write_text("".join(json.dumps(r) + "\n" for r in qwen.records))
    _, out = qwen.read()
    assert out is None or not answer(out).startswith("[UNCHANGED]")


def test_a_range_is_qwens_own_lines(qwen):
    assert qwen.read(offset=3, limit=40)[1] is None  # lines nobody showed
    qwen.read()
    assert qwen.read(offset=3, limit=40)[1] is None  # asked for lines: shown again, as Qwen shows them
    qwen.path.write_text(BIG)
    assert qwen.read(offset=3, limit=40)[1] is None  # never a skeleton for a range


def test_media_and_the_retired_hooks_are_no_decision(qwen):
    image = qwen.root / "a.png"
    image.write_bytes(b"\x89PNG\r\n")
    payload = {**qwen.base("PostToolUse"), "tool_name": "read_file", "tool_input": {"file_path": str(image)},
               "tool_call_id": "call_img", "tool_response": {"llmContent": "x"}}
    assert pre_read({**payload, "hook_event_name": "PreToolUse"}, []) is None and post_read(payload, []) is None
    assert retired(qwen.base("SessionStart"), []) is None


def test_an_idle_gap_blanks_all_but_the_newest_results():
    def rec(kind, when, results=()):
        r = Record(None, 0, kind, when)
        r.results = tuple(results)
        return r

    items = [rec("assistant", 0), rec("tool_result", 1, [("a", "read_file", "d", False, 100, False)]),
             rec("assistant", 2), rec("tool_result", 3, [("b", "read_file", "d", False, 100, False)])]
    assert blanked(items, (60, 1, 500_000)) == set()
    late = items + [rec("assistant", 3 + 3600)]
    assert blanked(late, (60, 1, 500_000)) == {"a"}
    assert blanked(late, (60, 5, 500_000)) == set()
    assert blanked(late, (-1, 1, -1)) == set()
    assert blanked(items, (60, 1, 150)) == {"a"}  # half the size threshold reached
    fast = rec("slash_command", 4)
    fast.command = "/compress-fast"
    assert blanked(items + [fast], (60, 1, 500_000)) == {"a"}


@pytest.mark.parametrize("stdin", ["", "{not json", "[]", '{"tool_name": "read_file"}',
                                   '{"session_id": "s", "tool_name": "read_file", "tool_input": {"file_path": 3}}',
                                   '{"session_id": "../x", "tool_name": "read_file", "tool_input": {}}'])
@pytest.mark.parametrize("name", ["qwen-pre-read", "qwen-post-read", "qwen-post-edit", "qwen-edit-refused",
                                  "qwen-lifecycle", "no-such-hook"])
def test_bad_input_is_no_decision(name, stdin, tmp_path, monkeypatch):
    monkeypatch.setenv("SYMBOLPACK_DIR", str(tmp_path / "state"))
    assert run_hook(name, stdin) == ""


def test_the_process_entry_never_fails_the_tool_call(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "symbolpack.integrations.qwen", "qwen-pre-read"], input="{oops",
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "SYMBOLPACK_DIR": str(tmp_path / "s")})
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr.count("\n") == 1
