"""The A/B lab's commands on a real git repository: what each arm's agent is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import git
from symbolpack.base.errors import UsageError
from symbolpack.evaluation.agentab import lab
from symbolpack.evaluation.agentab.lab import (apply_edit, cut_output, in_line_endings_of, parse_edit_blocks, run_command,
                                              setup)

APP = "".join(f"def f{k}(x):\n    y = x + {k}\n    z = y * 2  # twice the input and {k}, as the spec asks\n"
              f"    w = z - 1\n    v = w + y\n    return v * {k}\n\n\n"
              for k in range(100))  # 800 lines, over 4,000 tokens, bodies most of them: a first read is a skeleton


@pytest.fixture
def history(make_repo):
    """A repository with a start commit and a later one that changes f50 (an outside push)."""
    root = make_repo({"app.py": APP, "notes.txt": "alpha\nbeta\n"})
    start = git(root, "rev-parse", "HEAD").strip()
    (root / "app.py").write_text(APP.replace("return v * 50\n", "return v * 5000\n"))
    git(root, "commit", "-qam", "later")
    later = git(root, "rev-parse", "HEAD").strip()
    return root, start, later


@pytest.fixture
def episode(history, tmp_path):
    root, start, later = history
    data = {"name": "tiny", "mirror": str(root), "start": start, "steps": [
        {"questions": [{"id": "Q1", "kind": "body", "text": "What does f3 multiply y by?", "accepted": ["3"],
                        "verify": "True"}],
         "edit": {"id": "E1", "file": "app.py", "text": "make f1 add 100", "check": "'x + 100' in text",
                  "reference": [{"old": "y = x + 1\n    z", "new": "y = x + 100\n    z"}]}},
        {"apply": later, "questions": [{"id": "Q2", "kind": "changed", "text": "f50 now?", "accepted": ["5000"],
                                        "verify": "True"}]}]}
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(data))
    return path


def log(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]


def test_setup_refuses_a_used_directory_and_an_unknown_arm(episode, tmp_path):
    run = setup(str(episode), "plain", str(tmp_path / "run"))
    assert (run / "lab").stat().st_mode & 0o111 and (run / "repo" / "app.py").read_text() == APP
    with pytest.raises(UsageError, match="not empty"):
        setup(str(episode), "plain", str(run))
    with pytest.raises(UsageError, match="arm must be one of"):
        setup(str(episode), "cached", str(tmp_path / "other"))


def test_a_step_waits_for_its_answers_and_the_next_applies_the_later_commit_silently(episode, tmp_path):
    run = setup(str(episode), "plain", str(tmp_path / "run"))
    assert run_command(run, ["next"]).startswith("Step 1 of 2.\nQ1: What does f3")
    assert run_command(run, ["next"]) == "Step 1 is not finished: answer Q1 first.\n"
    assert run_command(run, ["answer", "q1", "3"]) == "recorded Q1: 3\n"  # ids are case-blind; the answer said back
    edited = run_command(run, ["edit", "app.py"], "<<<<<<< OLD\n    y = x + 1\n    z\n=======\n    y = x + 100\n    z\n>>>>>>> NEW\n")
    assert edited == "edited app.py\n"
    step2 = run_command(run, ["next"])
    assert step2 == "Step 2 of 2.\nQ2: f50 now?\n"  # nothing says what changed
    text = (run / "repo" / "app.py").read_text()
    assert "y = x + 100" in text and "return v * 5000" in text  # merged: the agent's edit and the push
    assert run_command(run, ["answer", "Q2", "5000"]) == "recorded Q2: 5000\n"
    assert run_command(run, ["next"]) == "All tasks done.\n"
    assert [r["command"] for r in log(run)] == ["next", "next", "answer", "edit", "next", "answer", "next"]


def test_a_conflicting_push_wins_its_hunk_and_is_reported(history, tmp_path):
    root, start, later = history
    repo = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(repo))
    git(repo, "checkout", "-q", start)
    (repo / "app.py").write_text(APP.replace("return v * 50\n", "return v * 51\n"))
    report = lab.apply_commit(repo, start, later)
    assert report["conflicts"] == ["app.py"] and "return v * 5000" in (repo / "app.py").read_text()


def test_the_plain_arm_reads_like_claude_codes_read(episode, tmp_path):
    run = setup(str(episode), "plain", str(tmp_path / "run"))
    out = run_command(run, ["read", "app.py", "--offset", "4", "--limit", "2"])
    assert out == "     4\t    w = z - 1\n     5\t    v = w + y\n[showed lines 4-5 of 800]\n"
    whole = run_command(run, ["read", "notes.txt"])
    assert whole == "     1\talpha\n     2\tbeta\n"
    assert run_command(run, ["read", "app.py", "--offset", "900"]).startswith("Error: offset 900 is past the end")
    assert run_command(run, ["read", "../outside"]).startswith("Error: ../outside is outside the repository")
    assert run_command(run, ["read", "app.py", "--limit", "x"]).startswith("Error: --limit takes a whole number")


def test_the_symbolpack_arm_answers_with_tldrs_against_every_earlier_answer(episode, tmp_path):
    run = setup(str(episode), "symbolpack", str(tmp_path / "run"))
    first = run_command(run, ["read", "app.py"])
    assert first.startswith("[SKELETON] app.py: 800 lines.")
    again = run_command(run, ["read", "app.py"])
    assert again == "[UNCHANGED] app.py: exactly as you already have it from your earlier reads.\n"
    run_command(run, ["edit", "app.py"], "<<<<<<< OLD\ndef f1(x):\n=======\ndef f1(x, extra=0):\n>>>>>>> NEW\n")
    after = run_command(run, ["read", "app.py"])
    assert after.startswith("[DELTA] app.py") and "     9\tdef f1(x, extra=0):" in after  # its own edit, shown
    records = [r for r in log(run) if r["command"] in ("read", "edit")]
    assert [r["answer_id"] for r in records] == ["r1", "r2", "e1", "r3"] and all(r["rc"] == 0 for r in records)
    state = json.loads((run / "state.json").read_text())
    assert state["answer_ids"] == ["r1", "r2", "e1", "r3"]  # the present set of the next read


def test_the_mcp_arm_is_read_file_with_the_ids_the_model_passes_back(episode, tmp_path):
    """The mcp arm's agent calls read_file with JSON arguments and gets `tldrs mcp`'s
    answers: an id line to pass back; a re-read leans only on the ids it passes; its own
    edits are not kept (an MCP server is not told of them)."""
    run = setup(str(episode), "mcp", str(tmp_path / "run"))
    prompt = lab.prompt_for(run)
    assert "read 'JSON'" in prompt and "known=[...]" in prompt and "read FILE [--offset N]" not in prompt
    first = run_command(run, ["read", '{"path": "app.py"}'])
    assert first.startswith("[SKELETON] app.py: 800 lines.") and 'elided: symbol="f0"' in first
    ident = first.rstrip("\n").rsplit("[answer ", 1)[1].split("]")[0]
    assert first.rstrip("\n").endswith(f'[answer {ident}] To read app.py again, pass known=["{ident}"] (and the '
                                       f'ids of other answers about it you still see).')
    again = run_command(run, ["read", json.dumps({"path": "app.py", "known": [ident]})])
    assert again.startswith("[UNCHANGED] app.py") and again.rstrip("\n").endswith(f"; relies on {ident}] Next read of this file: known=[\"{ident}\", \"{again.rsplit('[answer ', 1)[1].split(';')[0]}\"]")
    forgot = run_command(run, ["read", '{"path": "app.py"}'])
    assert forgot.startswith("[SKELETON] app.py")  # no ids: the text again
    run_command(run, ["edit", "app.py"], "<<<<<<< OLD\ndef f1(x):\n=======\ndef f1(x, extra=0):\n>>>>>>> NEW\n")
    after = run_command(run, ["read", json.dumps({"path": "app.py", "known": [ident]})])
    assert after.startswith("[DELTA] app.py") and "     9\tdef f1(x, extra=0):" in after
    drill = run_command(run, ["read", '{"path": "app.py", "symbol": "f3"}'])
    assert "    25\tdef f3(x):" in drill
    several = run_command(run, ["read", '{"path": "app.py", "symbols": ["f5", "f4"]}'])
    assert several.startswith("[SYMBOLS] app.py: 2 symbols, each whole, as it is now: f4 (lines 33-38), "
                              "f5 (lines 41-46).")
    assert run_command(run, ["read", '{"path": "app.py", "symbols": "f4"}']) == \
        'read_file: argument "symbols" must be a list of symbol names\n'
    assert run_command(run, ["read", "app.py"]).startswith("read_file: the arguments are not a JSON object")
    assert run_command(run, ["read", '{"path": "app.py", "known": "x"}']) == \
        'read_file: argument "known" must be a list of ids\n'
    assert run_command(run, ["read", '{"path": "app.py", "offest": 3}']).startswith(
        'read_file: unknown argument "offest"')
    assert [r.get("known") for r in log(run) if r["command"] == "read"][:3] == [[], [ident], []]
    assert "edits" not in [r for r in log(run) if r["command"] == "edit"][0].get("tldrs", "")


def test_edits_are_claude_codes_edit_all_or_nothing(episode, tmp_path):
    run = setup(str(episode), "plain", str(tmp_path / "run"))
    missing = run_command(run, ["edit", "app.py"], "<<<<<<< OLD\nnot there\n=======\nx\n>>>>>>> NEW\n")
    assert missing == "edit refused: old text not found; file unchanged\n"
    twice = run_command(run, ["edit", "app.py"], "<<<<<<< OLD\n    return v\n=======\nx\n>>>>>>> NEW\n")
    assert twice.startswith("edit refused: old text occurs 100 times")
    assert run_command(run, ["edit", "app.py"], "garbage").startswith("edit refused: give blocks")
    assert (run / "repo" / "app.py").read_text() == APP
    assert json.loads((run / "state.json").read_text())["refused_edits"] == 3
    assert parse_edit_blocks("<<<<<<< OLD\na\n=======\nb\n>>>>>>> NEW\n<<<<<<< OLD\nc\n=======\n>>>>>>> NEW\n") == [
        ("a", "b"), ("c", "")]
    assert apply_edit("a b", [("a", "x"), ("b", "y")]) == ("x y", None)
    assert apply_edit("a b", [("a", "x"), ("q", "y")]) == (None, "old text (block 2) not found")


def test_an_edit_of_a_crlf_file_matches_the_text_the_model_typed_and_keeps_its_endings(episode, tmp_path):
    """FluentValidation's files are CRLF: a model types LF, as Claude Code's Edit lets it."""
    run = setup(str(episode), "symbolpack", str(tmp_path / "run"))
    app = run / "repo" / "app.py"
    app.write_bytes(APP.replace("\n", "\r\n").encode())
    said = run_command(run, ["edit", "app.py"], "<<<<<<< OLD\n    y = x + 1\n    z\n=======\n    y = x + 100\n    z\n>>>>>>> NEW\n")
    assert said == "edited app.py\n"
    assert app.read_bytes().decode() == APP.replace("    y = x + 1\n    z", "    y = x + 100\n    z", 1).replace(
        "\n", "\r\n")
    assert log(run)[-1]["rc"] == 0  # the session kept the edit, as made
    assert in_line_endings_of("a\nb\n", [("a\nb", "c")]) == [("a\nb", "c")]  # an LF file: as typed


def test_grep_ls_and_a_tool_left_out(episode, tmp_path):
    run = setup(str(episode), "plain", str(tmp_path / "run"))
    assert run_command(run, ["grep", "def f5[0-9]", "app.py"]).startswith("app.py:401:def f50(x):\n")
    assert run_command(run, ["grep", "nowhere-to-be-found"]) == "(no matches)\n"
    assert run_command(run, ["ls"]) == "app.py\nnotes.txt\n"
    bare = setup(str(episode), "plain", str(tmp_path / "bare"), without=("grep",))
    assert "grep PATTERN" not in lab.prompt_for(bare) and "grep PATTERN" in lab.prompt_for(run)
    assert run_command(bare, ["grep", "f1"]) == "unknown command 'grep'\n"
    assert log(bare)[-1]["command"] == "grep"  # a call the agent made: it is counted
    with pytest.raises(UsageError, match="only grep can be left out"):
        setup(str(episode), "plain", str(tmp_path / "x"), without=("read",))


def test_a_long_output_is_cut_at_a_line_and_says_what_it_left_out(episode, tmp_path):
    out = "".join(f"{n:>6}\tline {n}\n" for n in range(1, 101))
    cut = cut_output(out, 200)
    assert cut.endswith("[output cut at 200 characters: lines 14-100 not shown; read them with --offset/--limit]\n")
    assert cut.startswith("     1\tline 1\n") and "    13\tline 13\n" in cut and "line 14" not in cut.split("[")[0]
    # an agent reading over MCP is told the JSON arguments it uses, not command-line options
    assert cut_output(out, 200, "mcp").endswith("not shown; read them with offset and limit in the JSON]\n")
    run = setup(str(episode), "plain", str(tmp_path / "run"))
    state = json.loads((run / "state.json").read_text())
    state["max_output_chars"] = 300
    (run / "state.json").write_text(json.dumps(state))
    shown = run_command(run, ["read", "app.py"])
    assert len(shown) < 420 and "not shown" in shown
    assert log(run)[-1]["cut"] is True and log(run)[-1]["output"] == shown


def test_an_edit_inside_a_body_the_model_never_saw_is_shown_by_the_next_read(episode, tmp_path):
    """The lab lets an agent edit text it never read (Qwen Code does too): it moved no
    line, so the rest of its copy stands, and the next read is a delta showing the lines
    it wrote (it never saw their numbers), not the whole file."""
    run = setup(str(episode), "symbolpack", str(tmp_path / "run"))
    assert run_command(run, ["read", "app.py"]).startswith("[SKELETON]")
    run_command(run, ["edit", "app.py"], "<<<<<<< OLD\n    y = x + 1\n    z\n=======\n    y = x + 100\n    z\n>>>>>>> NEW\n")
    after = run_command(run, ["read", "app.py"])
    assert after.startswith("[DELTA] app.py:")
    assert [line for line in after.split("\n") if "\t" in line] == [
        "    10\t    y = x + 100", "    11\t    z = y * 2  # twice the input and 1, as the spec asks"]
