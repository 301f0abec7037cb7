"""Claude Code hooks that answer only from what the session's transcript proves the
model holds: rewinds, forks, compactions, clears and parallel reads need no hook of
their own. The transcripts here are written the way Claude Code 2.1.332 writes
them (records with uuid/parentUuid, tool results in user records, a denied Read
stored as `PreToolUse:Read hook error: <reason>`, a compact_boundary followed by
the summary and the re-attached files); the real CLI runs in tests/e2e."""

from __future__ import annotations

import json
import shutil
import uuid as uuidlib
from pathlib import Path

import pytest

from symbolpack.integrations.claude import transcript as ct

from test_claude_hooks import decision, module, run_hook


def native_rendering(text: str, start: int = 1) -> str:
    """What Claude's Read tool shows: `N<TAB>line` for every piece of the text."""
    return "\n".join(f"{start + i}\t{line}" for i, line in enumerate(text.split("\n")))


class Conversation:
    """A Claude Code session's transcript, written as Claude Code writes it."""

    def __init__(self, root: Path, home: Path, session_id: str | None = None):
        self.root = root
        self.session_id = session_id or str(uuidlib.uuid4())
        self.dir = home / "projects" / "-".join(str(root).split("/"))
        self.dir.mkdir(parents=True, exist_ok=True)
        self.leaf: str | None = None
        self.calls = 0
        self.write({"type": "user", "message": {"role": "user", "content": "start"}})

    @property
    def path(self) -> Path:
        return self.dir / f"{self.session_id}.jsonl"

    def write(self, record: dict, parent: str | None = "leaf") -> str:
        uid = str(uuidlib.uuid4())
        record = {"parentUuid": self.leaf if parent == "leaf" else parent, "isSidechain": False, **record,
                  "uuid": uid, "sessionId": self.session_id}
        with self.path.open("a") as fh:
            fh.write(json.dumps(record) + "\n")
            fh.write(json.dumps({"type": "api-request-blob", "sessionId": self.session_id,
                                 "message": {"content": "x" * 200}}) + "\n")  # bookkeeping, skipped
        self.leaf = uid
        return uid

    def tool_uses(self, *calls: tuple[str, dict]) -> list[str]:
        """One assistant message with these tool calls: one record per block, chained."""
        ids = []
        for name, tool_input in calls:
            self.calls += 1
            ident = f"toolu_{self.session_id[:4]}_{self.calls:03d}"
            self.write({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": ident, "name": name, "input": tool_input}]}})
            ids.append(ident)
        return ids

    def result(self, ident: str, content: str, is_error: bool = False) -> None:
        block = {"tool_use_id": ident, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        self.write({"type": "user", "message": {"role": "user", "content": [block]}})

    def payload(self, ident: str, tool_input: dict) -> dict:
        return {"session_id": self.session_id, "transcript_path": str(self.path), "cwd": str(self.root),
                "permission_mode": "bypassPermissions", "hook_event_name": "PreToolUse", "tool_name": "Read",
                "tool_input": tool_input, "tool_use_id": ident}

    def read(self, rel: str, **args) -> dict | None:
        """The model calls Read; the hook answers; the result lands in the transcript."""
        tool_input = {"file_path": str(self.root / rel), **args}
        (ident,) = self.tool_uses(("Read", tool_input))
        return self.answer(ident, tool_input)

    def answer(self, ident: str, tool_input: dict) -> dict | None:
        """The hooks around one Read, as Claude Code runs them; the result lands in the
        transcript. None when the model got a fresh display of the file (the native
        output, or a skeleton in its place); else {"text": the answer it got}."""
        rc, out, err = run_hook("claude-pre-read", self.payload(ident, tool_input), self.root)
        assert rc == 0, err
        got = decision(out)
        if got is not None:  # a deny: its reason is the result, as an error
            self.result(ident, "PreToolUse:Read hook error: " + got["permissionDecisionReason"], is_error=True)
            return {"text": got["permissionDecisionReason"]}
        text = Path(tool_input["file_path"]).read_text()
        lines = text.split("\n")
        start = tool_input.get("offset") or 1
        response = {"type": "text", "file": {"filePath": tool_input["file_path"], "content": text,
                                             "numLines": len(lines), "startLine": start, "totalLines": len(lines)}}
        post = {**self.payload(ident, tool_input), "hook_event_name": "PostToolUse", "tool_response": response}
        rc, out, err = run_hook("claude-post-read", post, self.root)
        assert rc == 0, err
        replaced = json.loads(out)["hookSpecificOutput"] if out.strip() else None
        if replaced is None:
            self.result(ident, native_rendering(text))
            return None
        file = replaced["updatedToolOutput"]["file"]
        self.result(ident, native_rendering(file["content"], file["startLine"]))
        self.write({"type": "attachment", "attachment": {"type": "hook_additional_context",
                                                         "content": [replaced["additionalContext"]],
                                                         "toolUseID": ident}})
        context = replaced["additionalContext"]
        return None if context.startswith("[SKELETON]") else {"text": context}

    def fork(self) -> "Conversation":
        """`--fork-session`: a new session id, the old records copied with their uuids."""
        other = Conversation.__new__(Conversation)
        other.root, other.dir, other.calls = self.root, self.dir, self.calls
        other.session_id = str(uuidlib.uuid4())
        lines = [json.loads(line) for line in self.path.read_text().splitlines()]
        with other.path.open("w") as fh:
            for rec in lines:
                rec["sessionId"] = other.session_id
                fh.write(json.dumps(rec) + "\n")
        other.leaf = self.leaf
        return other

    def compact(self, attach: list[str]) -> None:
        """`/compact`: boundary, summary, the preserved tail, then the re-attached files."""
        tail = self.write({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "ok"}]}})
        anchor = str(uuidlib.uuid4())
        boundary = self.write({"type": "system", "subtype": "compact_boundary", "logicalParentUuid": tail,
                               "compactMetadata": {"trigger": "manual", "preservedSegment": {
                                   "headUuid": tail, "anchorUuid": anchor, "tailUuid": tail},
                                   "preservedMessages": {"anchorUuid": anchor, "uuids": [tail]}}}, parent=None)
        with self.path.open("a") as fh:
            fh.write(json.dumps({"parentUuid": boundary, "type": "user", "isCompactSummary": True, "uuid": anchor,
                                 "message": {"role": "user", "content": "summary"}}) + "\n")
        self.leaf = tail
        self.write({"type": "user", "message": {"role": "user", "content": "<command-name>/compact</command-name>"}})
        for rel in attach:
            text = (self.root / rel).read_text()
            self.write({"type": "attachment", "attachment": {
                "type": "file", "filename": str(self.root / rel), "displayPath": rel,
                "content": {"type": "text", "file": {"filePath": str(self.root / rel), "content": text,
                                                     "numLines": text.count("\n") + 1, "startLine": 1,
                                                     "totalLines": text.count("\n") + 1}}}})


@pytest.fixture
def repo(make_repo):
    return make_repo({"app.py": module(), "notes.txt": "".join(f"note {i}\n" for i in range(40))})


@pytest.fixture
def convo(repo, tmp_path):
    return Conversation(repo, tmp_path / "claude-home")


def unchanged(got: dict | None) -> bool:
    if got is not None and "permissionDecisionReason" in got:
        return got["permissionDecision"] == "deny" and "[UNCHANGED]" in got["permissionDecisionReason"]
    return got is not None and got["text"].startswith("[UNCHANGED]")


def test_first_read_is_native_and_the_re_read_is_unchanged(convo):
    assert convo.read("app.py") is None
    assert unchanged(convo.read("app.py"))


def test_a_rewind_before_the_first_read_never_gets_unchanged(convo):
    """The bug the issue names: `--resume-session-at` keeps the session id; the reads
    after that point are gone from the model's context."""
    before = convo.leaf
    assert convo.read("app.py") is None
    assert unchanged(convo.read("app.py"))
    convo.leaf = before  # Claude writes the next prompt under the message rewound to
    convo.write({"type": "user", "message": {"role": "user", "content": "again"}})
    assert convo.read("app.py") is None  # native and full: the model has no copy
    assert unchanged(convo.read("app.py"))


def test_a_fork_carries_the_reads_its_context_holds(convo):
    assert convo.read("app.py") is None
    forked = convo.fork()
    assert unchanged(forked.read("app.py"))  # no full native read: the fork's context has the file


def test_a_compaction_counts_the_files_claude_re_attached(convo):
    assert convo.read("app.py") is None
    assert convo.read("notes.txt") is None
    convo.compact(attach=["app.py"])
    assert unchanged(convo.read("app.py"))  # the re-attached content is in the context
    assert convo.read("notes.txt") is None  # not re-attached: its earlier read is gone with the summary


def test_a_clear_starts_a_new_transcript_with_nothing_in_it(convo, repo, tmp_path):
    assert convo.read("app.py") is None
    cleared = Conversation(repo, tmp_path / "claude-home")  # /clear: a new session id and file
    assert cleared.read("app.py") is None


def test_two_reads_in_one_message_do_not_lean_on_each_other(convo):
    """Both hooks run before either result exists (Claude Code runs them in parallel
    and sends the results in completion order): the second read's chain holds the
    first's tool_use, never its result, so it cannot vouch for lines the first one
    is about to show. Here the first is answered (and recorded) before the second
    even starts, the worst order for the second."""
    assert convo.read("app.py") is None
    whole = {"file_path": str(convo.root / "app.py")}
    head = {"file_path": str(convo.root / "app.py"), "offset": 1, "limit": 5}
    a, b = convo.tool_uses(("Read", whole), ("Read", head))
    (convo.root / "app.py").write_text(module().replace("def func0(total):", "def func0(total, z=1):", 1))  # line 1
    got_a = convo.answer(a, whole)  # its result lands after b's call: b's chain does not hold it
    assert got_a is not None and "z=1" in got_a["text"]
    _, out_b, _ = run_hook("claude-pre-read", convo.payload(b, head), convo.root)
    assert decision(out_b) is None  # lines 1-5 natively, line 1 changed: never [UNCHANGED] on the sibling's word


def clear_results(convo: Conversation, keep_last: int = 0) -> None:
    """Claude's record of cleared tool results: the content replaced by a marker."""
    lines = convo.path.read_text().splitlines()
    results = [i for i, line in enumerate(lines) if '"tool_result"' in line]
    for i in results[: len(results) - keep_last]:
        rec = json.loads(lines[i])
        rec["message"]["content"][0]["content"] = ct.CLEARED
        lines[i] = json.dumps(rec)
    convo.path.write_text("\n".join(lines) + "\n")


def test_cleared_results_count_for_nothing(convo):
    assert convo.read("app.py") is None
    assert unchanged(convo.read("app.py"))
    clear_results(convo, keep_last=1)  # the native read is cleared; the marker that leaned on it stays
    assert convo.read("app.py") is None  # the marker alone gives nothing: native and full again
    assert unchanged(convo.read("app.py"))


def test_a_result_stored_as_an_error_does_not_count(convo):
    """A Read whose result Claude stored as an error (the tool failed) showed nothing."""
    assert convo.read("app.py") is None
    (ident,) = convo.tool_uses(("Read", {"file_path": str(convo.root / "app.py")}))
    _, out, _ = run_hook("claude-pre-read", convo.payload(ident, {"file_path": str(convo.root / "app.py")}),
                         convo.root)
    convo.result(ident, "<tool_use_error>File does not exist.</tool_use_error>", is_error=True)
    clear_results(convo, keep_last=1)  # only the failed one is left
    assert convo.read("app.py") is None


def test_without_a_transcript_the_conversation_copy_answers(convo):
    """No transcript (or the call never shows up in it): the session's own copy,
    as before transcripts were read."""
    tool_input = {"file_path": str(convo.root / "app.py")}
    payload = convo.payload("toolu_x", tool_input)
    del payload["transcript_path"]
    rc, out, _ = run_hook("claude-pre-read", payload, convo.root)
    assert decision(out) is None
    rc, out, _ = run_hook("claude-pre-read", {**payload, "tool_use_id": "toolu_y"}, convo.root)
    assert unchanged(decision(out))


# --------------------------------------------------------------------------- the parser alone

def test_the_parser_reads_only_what_was_appended(convo, tmp_path):
    convo.read("app.py")
    cache = str(tmp_path / "cache.pickle")
    t = ct.Transcript()
    assert t.update(str(convo.path))
    offset, count = t.offset, len(t.records)
    ct.save(cache, t)
    convo.read("app.py")
    again = ct.load(cache)
    assert again.offset == offset and again.update(str(convo.path))
    assert again.offset > offset and len(again.records) > count


def test_a_half_written_last_line_waits_for_its_end(convo):
    t = ct.Transcript()
    with convo.path.open("a") as fh:
        fh.write('{"parentUuid": null, "uuid": "half')
    assert t.update(str(convo.path))
    assert "half" not in "".join(t.records)
    with convo.path.open("a") as fh:
        fh.write('way", "type": "user"}\n')
    assert t.update(str(convo.path)) and "halfway" in t.records


def test_a_subagent_reads_its_own_transcript(tmp_path):
    payload = {"transcript_path": str(tmp_path / "s1.jsonl"), "session_id": "s1", "agent_id": "abc"}
    assert ct.transcript_for(payload) == str(tmp_path / "s1" / "subagents" / "agent-abc.jsonl")
    assert ct.transcript_for({"transcript_path": str(tmp_path / "s1.jsonl"), "session_id": "s1"}) == \
        str(tmp_path / "s1.jsonl")
    assert ct.transcript_for({"transcript_path": "relative.jsonl"}) is None


def test_a_rewritten_transcript_is_parsed_again_from_the_start(convo, tmp_path):
    convo.read("app.py")
    t = ct.Transcript()
    t.update(str(convo.path))
    copy = tmp_path / "copy.jsonl"
    shutil.copy(convo.path, copy)
    convo.path.unlink()
    copy.rename(convo.path)  # another inode: start over
    assert t.update(str(convo.path)) and t.records


def test_a_transcript_rewritten_in_place_is_parsed_again(convo):
    """Claude Code appends to a transcript. A file rewritten in place to the same or a
    larger size is noticed where its head or the last bytes parsed changed (here the
    newest result is cleared), and parsed again from the start."""
    convo.read("app.py")
    convo.read("app.py")
    t = ct.Transcript()
    t.update(str(convo.path))
    before = [r.results for r in t.records.values() if r.results]
    clear_results(convo, keep_last=0)
    with convo.path.open("a") as fh:
        fh.write(" " * 4000 + "\n")  # longer than before
    assert t.update(str(convo.path))
    after = [r.results for r in t.records.values() if r.results]
    assert len(after) == len(before) and all(res[0][3] for res in after)  # every one cleared


def big_module(funcs: int) -> str:
    return "".join(f"def handler_{k}(request, retries=3):\n    \"\"\"Handle request kind {k} with care.\"\"\"\n"
                   + "".join(f"    v{i} = request.get('f{i}', {i}) * retries\n" for i in range(6))
                   + "    return v0\n\n" for k in range(funcs))


def test_a_skeleton_longer_than_claude_shows_a_hook_text_is_not_delivered(convo):
    """Claude Code keeps only a 2 KB preview of a hook text over 10,000 characters:
    such a skeleton would leave the model with less than symbolpack records, so the
    native output stands (it shows more than recorded)."""
    (convo.root / "big.py").write_text(big_module(150))
    (ident,) = convo.tool_uses(("Read", {"file_path": str(convo.root / "big.py")}))
    tool_input = {"file_path": str(convo.root / "big.py")}
    _, out, _ = run_hook("claude-pre-read", convo.payload(ident, tool_input), convo.root)
    assert decision(out) is None
    text = (convo.root / "big.py").read_text()
    post = {**convo.payload(ident, tool_input), "hook_event_name": "PostToolUse", "tool_response": {
        "type": "text", "file": {"filePath": tool_input["file_path"], "content": text, "numLines": 1,
                                 "startLine": 1, "totalLines": text.count("\n") + 1}}}
    _, out, _ = run_hook("claude-post-read", post, convo.root)
    assert out.strip() == ""
    small = {"file_path": str(convo.root / "app.py")}
    (ident,) = convo.tool_uses(("Read", small))
    run_hook("claude-pre-read", convo.payload(ident, small), convo.root)
    text = (convo.root / "app.py").read_text()
    post = {**convo.payload(ident, small), "hook_event_name": "PostToolUse", "tool_response": {
        "type": "text", "file": {"filePath": small["file_path"], "content": text, "numLines": 1,
                                 "startLine": 1, "totalLines": text.count("\n") + 1}}}
    _, out, _ = run_hook("claude-post-read", post, convo.root)
    replaced = json.loads(out)["hookSpecificOutput"]
    assert "[SKELETON]" in replaced["additionalContext"] and len(replaced["additionalContext"]) < 10_000


def test_an_answer_longer_than_claude_shows_a_hook_text_goes_to_the_native_tool(convo):
    rows = [f"row {i}: a line of text that is long enough to count\n" for i in range(600)]
    (convo.root / "long.txt").write_text("".join(rows))
    assert convo.read("long.txt") is None  # no parser: every line, plainly
    changed = rows[:100] + [r.replace("row", "ROW") for r in rows[100:215]] + rows[215:]
    (convo.root / "long.txt").write_text("".join(changed))  # one hunk, 230 lines changed: ~13,000 characters
    assert convo.read("long.txt") is None  # the native tool shows it whole
    (convo.root / "long.txt").write_text("".join(changed).replace("ROW 200:", "row 200:"))
    got = convo.read("long.txt")  # a short diff still comes from symbolpack
    assert got is not None and got["text"].startswith("[DIFF]")


def test_with_the_apis_server_side_clearing_on_no_result_counts(convo):
    """The transcript keeps results the API may have cleared server-side: when a logged
    request carries `clear_tool_uses`, no tool result proves anything."""
    assert convo.read("app.py") is None
    assert unchanged(convo.read("app.py"))
    with convo.path.open("a") as fh:
        fh.write(json.dumps({"type": "api-request", "sessionId": convo.session_id, "context_management": {
            "edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1000}}]}})
                 + "\n")
    assert convo.read("app.py") is None  # a fresh display again, never [UNCHANGED] on a result that may be gone
    assert convo.read("app.py") is None


def test_an_edit_of_lines_never_seen_is_reported_where_the_transcript_proves_the_reads(convo):
    """The transcript proves a range read (lines 20-49); an Edit of line 101 is applied
    and the model is told it edited lines it never read."""
    rows = "".join(f"row {i}\n" for i in range(1, 301))
    (convo.root / "rows.txt").write_text(rows)
    assert convo.read("rows.txt", offset=20, limit=30) is None  # native: the model holds 20-49
    tool_input = {"file_path": str(convo.root / "rows.txt"), "old_string": "row 101\n", "new_string": "row 1O1\n"}
    (ident,) = convo.tool_uses(("Edit", tool_input))
    pre = {**convo.payload(ident, tool_input), "tool_name": "Edit"}
    rc, out, err = run_hook("claude-pre-edit", pre, convo.root)
    assert rc == 0 and out.strip() == "", (out, err)  # allowed: Claude Code allows it too
    (convo.root / "rows.txt").write_text(rows.replace("row 101\n", "row 1O1\n"))
    post = {**pre, "hook_event_name": "PostToolUse", "tool_response": {"filePath": tool_input["file_path"]}}
    rc, out, err = run_hook("claude-post-edit", post, convo.root)
    assert rc == 0, err
    note = decision(out)
    assert note is not None and "never read" in note["additionalContext"], out
    assert "old lines 101-101" in note["additionalContext"]
