"""The Claude Code context judge on hand-built request messages, in the shapes the
real CLI 2.1.332 sent to the fake API (tests/e2e): every rule broken once and
caught, and the contexts that must pass."""

from __future__ import annotations

import pytest

from symbolpack.evaluation.claude_view import FileClock, judge_request, read_results

PATH = "/w/proj/app.py"
V0 = "".join(f"line {k}\n" for k in range(1, 13))  # 12 lines and a final newline
REMINDER = "\n\n<system-reminder>\n<total_tokens>14999890 tokens left</total_tokens>\n</system-reminder>"
NOTE = "(The Read above shows line {k} only.)"


def claude_numbered(text: str, start: int = 1) -> str:
    """Claude's Read rendering: every piece of content numbered, the empty one after a final newline too."""
    return "\n".join(f"{start + k}\t{piece}" for k, piece in enumerate(text.split("\n")))


class Talk:
    """A context: the prompt, then assistant tool calls and their results, with the
    file's texts before and after each call."""

    def __init__(self, text: str = V0) -> None:
        self.messages: list[dict] = [{"role": "user", "content": [{"type": "text", "text": "work"}]}]
        self.text = text
        self.before: dict[str, dict] = {}
        self.after: dict[str, dict] = {}
        self.n = 0

    def call(self, name: str, args: dict, content: str, is_error: bool = False, then: str | None = None) -> str:
        self.n += 1
        ident = f"toolu_{self.n:04d}"
        self.messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": ident, "name": name,
                                                                "input": args}]})
        self.before[ident] = {PATH: self.text}
        if then is not None:
            self.text = then
        self.after[ident] = {PATH: self.text}
        result = {"tool_use_id": ident, "type": "tool_result", "content": content}
        if is_error:
            result["is_error"] = True
        self.messages.append({"role": "user", "content": [result]})
        return ident

    def native(self, **rng) -> str:
        lines = self.text.split("\n")
        if rng:
            start = rng["offset"]
            body = claude_numbered("\n".join(lines[start - 1:start - 1 + rng["limit"]]), start)
        else:
            body = claude_numbered(self.text)
        return self.call("Read", {"file_path": PATH, **rng}, body + REMINDER)

    def answer(self, text: str, line: int = 2, **rng) -> str:
        """A re-read answered by symbolpack: one line as the Read result, the answer as the hook's context."""
        shown = self.text.split("\n")[line - 1]
        body = f"{line}\t{shown}" if shown else f"{line}"
        context = f"{text}\n{NOTE.format(k=line)}"
        return self.call("Read", {"file_path": PATH, **rng}, f"{body}\n\n<system-reminder>\nPostToolUse:Read hook "
                         f"additional context: {context}\n</system-reminder>" + REMINDER)

    def skeleton(self, head: int, rest: str) -> str:
        lines = self.text.split("\n")
        total = len(lines) - 1
        body = claude_numbered("\n".join(lines[:head]))
        context = (f"[SKELETON] app.py, {total} lines: 1-{head} above, the rest here; \"... A-B elided\" hides "
                   f"lines A-B (Read offset=A limit=B-A+1 shows them).\n{rest}")
        return self.call("Read", {"file_path": PATH}, f"{body}\n\n<system-reminder>\nPostToolUse:Read hook additional "
                         f"context: {context}\n</system-reminder>" + REMINDER)

    def bash(self, new_text: str) -> str:
        return self.call("Bash", {"command": "sed -i ...", "description": "outside change"},
                         "[This command modified 1 file you've previously read: app.py. Call Read before editing.]",
                         then=new_text)

    def judge(self, context_management=None):
        return judge_request(self.messages, FileClock(self.before, self.after, {PATH: self.text}), context_management)


def row(n: int, text: str) -> str:
    return f"{n:>6}\t{text}"


def changed(text: str, n: int, new: str) -> str:
    lines = text.split("\n")
    lines[n - 1] = new
    return "\n".join(lines)


def passes(talk: Talk) -> None:
    verdict = talk.judge()
    assert verdict.answers, "the last result must be an answer to judge"
    assert verdict.problems == ()


def fails(talk: Talk, *words: str, **kw) -> None:
    verdict = talk.judge(**kw)
    assert verdict.problems, "the judge let a broken answer through"
    message = " | ".join(verdict.problems)
    for word in words:
        assert word in message, message


# --------------------------------------------------------------------------- contexts that must pass

def test_native_read_then_unchanged_passes_and_the_empty_piece_after_the_final_newline_is_no_line():
    talk = Talk()
    talk.native()
    talk.answer("[UNCHANGED] app.py")
    passes(talk)
    assert talk.judge().views[PATH].length == 12  # Claude numbered 13 pieces; the last is the final newline's


def test_skeleton_then_unchanged_and_a_drill_in_pass():
    talk = Talk()
    talk.skeleton(3, "\n".join([row(4, "line 4"), "    ... 5-9 elided", row(10, "line 10"),
                                row(11, "line 11"), row(12, "line 12")]))
    view = talk.judge().views[PATH]
    assert view.elided == {5, 6, 7, 8, 9} and view.length == 12 and view.held[4] == "line 4"
    talk.answer("[UNCHANGED] app.py")
    passes(talk)
    talk.native(offset=5, limit=5)
    talk.answer("[UNCHANGED] app.py:5-9", line=5, offset=5, limit=5)
    passes(talk)


def test_a_delta_with_moved_runs_passes():
    talk = Talk()
    talk.native()
    talk.bash("line 0\n" + changed(V0, 6, "line 6 changed"))
    talk.answer("\n".join(["[DELTA] app.py: changed since your last whole read of it (12 lines then, 13 now). Changed/new: f.", row(1, "line 0"),
                           "... 2-6 unchanged (were 1-5)", row(7, "line 6 changed"), "... 8-13 unchanged (were 7-12)"]))
    passes(talk)
    assert talk.judge().views[PATH].held[13] == "line 12"


def test_a_diff_passes():
    talk = Talk()
    talk.native()
    talk.bash(changed(V0, 6, "line 6 changed"))
    talk.answer("\n".join(["[DIFF] app.py changed (12 -> 12 lines); unified diff against your copy:",
                           "@@ -5,3 +5,3 @@", " line 5", "-line 6", "+line 6 changed", " line 7"]))
    passes(talk)


def test_a_file_reattached_after_compaction_counts_as_a_display():
    talk = Talk()
    talk.messages = [
        {"role": "user", "content": "This session is being continued from a previous conversation ...\nSummary:\nx"},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        {"role": "user", "content": '<system-reminder>\nCalled the Read tool with the following input: '
                                    '{"file_path":"%s"}\n</system-reminder>' % PATH},
        {"role": "user", "content": [{"type": "text", "text": "<system-reminder>\nResult of calling the Read tool:\n"
                                      + claude_numbered(V0) + "\n</system-reminder>"},
                                     {"type": "text", "text": "after-compact"}]},
    ]
    talk.answer("[UNCHANGED] app.py")
    passes(talk)


def test_the_models_own_edit_is_held_and_shifts_the_lines_below():
    talk = Talk()
    talk.native()
    after = V0.replace("line 6\n", "line 6a\nline 6b\n")
    talk.call("Edit", {"file_path": PATH, "old_string": "line 6\n", "new_string": "line 6a\nline 6b\n",
                       "replace_all": False},
              f"The file {PATH} has been updated successfully." + REMINDER, then=after)
    talk.answer("[UNCHANGED] app.py")
    passes(talk)
    assert talk.judge().views[PATH].length == 13


def test_a_deny_is_judged_like_any_answer_and_counted_as_an_error():
    talk = Talk()
    talk.native()
    talk.call("Read", {"file_path": PATH}, "PreToolUse:Read hook error: [UNCHANGED] app.py (symbolpack: not an "
              "error; do not retry the Read.)" + REMINDER, is_error=True)
    verdict = talk.judge()
    assert verdict.problems == () and [a.is_error for a in verdict.answers] == [True]
    assert [r.kind for r in read_results(talk.messages)] == ["native", "unchanged"]


def test_answers_of_earlier_requests_are_replayed_not_judged_again():
    talk = Talk()
    talk.answer("[UNCHANGED] app.py")  # its base is gone (a rewind): judged when it was given, not here
    talk.native()
    talk.answer("[UNCHANGED] app.py")
    verdict = talk.judge()
    assert verdict.problems == () and len(verdict.replayed) == 1 and len(verdict.answers) == 1


# --------------------------------------------------------------------------- every rule, broken once

def test_a_marker_with_no_display_in_the_context_fails():  # the rewind bug
    talk = Talk()
    talk.answer("[UNCHANGED] app.py")
    fails(talk, "does not hold")


def test_a_marker_over_a_line_that_changed_fails():
    talk = Talk()
    talk.native()
    talk.bash(changed(V0, 6, "line 6 changed"))
    talk.answer("[UNCHANGED] app.py")
    fails(talk, "'line 6'", "'line 6 changed'")


def test_a_marker_when_the_file_grew_fails():
    talk = Talk()
    talk.native()
    talk.bash(V0 + "line 13\n")
    talk.answer("[UNCHANGED] app.py")
    fails(talk, "believes 12 lines, the file has 13")


def test_a_whole_file_marker_after_range_reads_only_fails():
    talk = Talk()
    talk.native(offset=1, limit=5)
    talk.answer("[UNCHANGED] app.py")
    fails(talk, "never told its length")


def test_a_range_marker_over_elided_lines_fails():
    talk = Talk()
    talk.skeleton(3, "\n".join([row(4, "line 4"), "    ... 5-9 elided", row(10, "line 10"),
                                row(11, "line 11"), row(12, "line 12")]))
    talk.answer("[UNCHANGED] app.py:4-6", line=4, offset=4, limit=3)
    fails(talk, "lines 5-6", "does not hold")


def test_a_result_claude_cleared_counts_for_nothing():
    talk = Talk()
    talk.native()
    talk.messages[-1]["content"][0]["content"] = "[Old tool result content cleared]"
    talk.answer("[UNCHANGED] app.py")
    fails(talk, "does not hold")
    assert talk.judge().views[PATH].held == {2: "line 2"}  # only the line shown beside the answer


def test_results_the_api_may_clear_server_side_count_for_nothing():
    talk = Talk()
    talk.native()
    talk.answer("[UNCHANGED] app.py")
    edits = {"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 2},
                        "keep": {"type": "tool_uses", "value": 1}}]}
    fails(talk, "does not hold", context_management=edits)
    assert talk.judge({"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}).problems == ()


def test_a_delta_leaning_on_lines_past_the_models_copy_fails():
    talk = Talk()
    talk.native()
    talk.bash("line 0\n" + V0)
    talk.answer("\n".join(["[DELTA] app.py: changed since your last whole read of it (12 lines then, 13 now).", "... 1-13 unchanged (were 0-12)"]))
    fails(talk, "lines 0 of the model's copy")


def test_a_delta_vouching_for_a_moved_run_with_the_wrong_offset_fails():
    talk = Talk()
    talk.native()
    talk.bash("line 0\n" + V0)
    talk.answer("\n".join(["[DELTA] app.py: changed since your last whole read of it (12 lines then, 13 now).", row(1, "line 0"), "... 2-13 unchanged"]))
    fails(talk, "vouches for line 2")


def test_a_delta_showing_a_wrong_line_fails():
    talk = Talk()
    talk.native()
    talk.bash(changed(V0, 6, "line 6 changed"))
    talk.answer("\n".join(["[DELTA] app.py: changed since your last whole read of it (12 lines then, 12 now).", "... 1-5 unchanged", row(6, "line 6 CHANGED"),
                           "... 7-12 unchanged"]))
    fails(talk, "shows line 6")


def test_a_delta_with_a_gap_or_the_wrong_lengths_fails():
    talk = Talk()
    talk.native()
    talk.bash(changed(V0, 6, "line 6 changed"))
    talk.answer("\n".join(["[DELTA] app.py: changed since your last whole read of it (11 lines then, 13 now).", "... 1-5 unchanged", row(6, "line 6 changed"),
                           "... 8-12 unchanged"]))
    fails(talk, "leans on a copy of 11 lines; the model believes 12", "says 13 lines; the file has 12",
          "lines 7-7 are neither shown")


def test_a_diff_leaving_out_a_line_that_changed_fails():
    talk = Talk()
    talk.native()
    talk.bash(changed(changed(V0, 6, "line 6 changed"), 11, "line 11 changed"))
    talk.answer("\n".join(["[DIFF] app.py changed (12 -> 12 lines); unified diff against your copy:",
                           "@@ -5,3 +5,3 @@", " line 5", "-line 6", "+line 6 changed", " line 7"]))
    fails(talk, "vouches for line 11")


def test_a_diff_whose_old_side_is_not_the_models_copy_fails():
    talk = Talk()
    talk.native()
    talk.bash(changed(V0, 6, "line 6 changed"))
    talk.answer("\n".join(["[DIFF] app.py changed (12 -> 12 lines); unified diff against your copy:",
                           "@@ -5,3 +5,3 @@", " line 5", "-line six", "+line 6 changed", " line 7"]))
    fails(talk, "expects the model's line 6 to be 'line six'")


def test_a_skeleton_showing_a_wrong_line_or_leaving_a_gap_fails():
    talk = Talk()
    talk.skeleton(3, "\n".join([row(4, "line four"), "    ... 5-9 elided", row(11, "line 11"),
                                row(12, "line 12")]))
    fails(talk, "shows line 4 as 'line four'", "lines 10-10 are neither shown")


def test_the_line_shown_beside_an_answer_must_be_the_files():
    talk = Talk()
    talk.native()
    talk.answer("[UNCHANGED] app.py")
    talk.messages[-1]["content"][0]["content"] = talk.messages[-1]["content"][0]["content"].replace(
        "2\tline 2", "2\tline two", 1)
    fails(talk, "shows line 2 as 'line two'")


def test_an_answer_about_another_file_fails():
    talk = Talk()
    talk.native()
    talk.answer("[UNCHANGED] other.py")
    fails(talk, "names another file")


def test_an_edit_the_model_made_does_not_vouch_for_what_changed_after_it():
    talk = Talk()
    talk.native()
    after = V0.replace("line 6\n", "line 6a\nline 6b\n")
    talk.call("Edit", {"file_path": PATH, "old_string": "line 6\n", "new_string": "line 6a\nline 6b\n"},
              f"The file {PATH} has been updated successfully." + REMINDER, then=after)
    talk.bash(after.replace("line 6b", "line 6c"))
    talk.answer("[UNCHANGED] app.py")
    fails(talk, "'line 6b'", "'line 6c'")


def test_a_deny_leaning_on_nothing_fails_and_is_an_error():
    talk = Talk()
    talk.call("Read", {"file_path": PATH}, "PreToolUse:Read hook error: [UNCHANGED] app.py (symbolpack: not an "
              "error; do not retry the Read.)", is_error=True)
    fails(talk, "does not hold")
    assert [a.is_error for a in talk.judge().answers] == [True]


@pytest.mark.parametrize("text", ["[WHATEVER] app.py", "some words"])
def test_an_answer_in_no_known_grammar_fails(text):
    talk = Talk()
    talk.native()
    talk.answer(text)
    fails(talk, "grammar")


def test_an_answer_the_clock_cannot_date_fails():
    talk = Talk()
    talk.native()
    ident = talk.answer("[UNCHANGED] app.py")
    del talk.after[ident]
    fails(talk, "no true text")


def test_an_edit_inside_a_line_the_model_never_saw_leaves_that_line_unknown():
    talk = Talk()
    talk.skeleton(3, "\n".join([row(4, "line 4"), "    ... 5-9 elided", row(10, "line 10"),
                                row(11, "line 11"), row(12, "line 12")]))
    talk.call("Edit", {"file_path": PATH, "old_string": "ne 6\n", "new_string": "NE 6\n"},
              f"The file {PATH} has been updated successfully." + REMINDER, then=V0.replace("line 6\n", "liNE 6\n"))
    talk.answer("[UNCHANGED] app.py")
    fails(talk, "no text for lines 6")
