"""Grading an A/B run: the answer rule, the cost model, and the report's ratios."""

from __future__ import annotations

import json

import pytest

from symbolpack.evaluation.agentab.grade import answer_is_right, cost_of, grade_run, is_confused
from symbolpack.evaluation.agentab.lab import run_command, setup
from symbolpack.evaluation.agentab.report import ab_summary, format_ab

from test_lab import episode, history  # noqa: F401  (fixtures)

Q = {"accepted": ["trimEnd", "143"], "reject": ["trimRight"]}


@pytest.mark.parametrize("given, right", [
    ("trimEnd", True),
    ("`trimEnd`.", True),  # quotes, backticks and a final period do not matter
    ("It calls TRIMEND on the part", True),  # a whole token, any case
    ("trimEndish", False),  # not a whole token
    ("trimEnd (it was trimRight before)", False),  # a rejected string anywhere
    ("line 143", True),
    ("142 or 143", False),  # a number must be the only number
    ("1430", False),
    ("", False),
    (None, False),
])
def test_the_answer_rule(given, right):
    assert answer_is_right(given, Q) is right


def test_short_accepted_strings_must_match_whole():
    q = {"accepted": ["{}"]}
    assert answer_is_right("{}", q) and not answer_is_right("it returns {} or null", q)


def test_cost_charges_each_call_the_context_it_re_sends():
    # prompt 1000; call 1 outputs 200: 200 + 0.1 * 1000; call 2 outputs 50: 50 + 0.1 * (1000 + 200 + 100)
    assert cost_of([200, 50], 1000) == pytest.approx(200 + 100 + 50 + 130)
    assert cost_of([], 1000) == 0
    # the same tokens one call later cost less: fewer calls re-send them
    assert cost_of([0, 500], 1000) < cost_of([500, 0], 1000)


@pytest.mark.parametrize("feedback, confused", [
    ("none", False), ("None.", False), ("none - the output was clear", False), ("Nothing confused me", False),
    ("No, but the skeleton hid the body I needed", True),
    ("The [DELTA] view made me re-read", True),
    (None, None),
])
def test_what_counts_as_a_report_of_confusion(feedback, confused):
    assert is_confused(feedback) is confused


def test_a_graded_run(episode, tmp_path):  # noqa: F811
    run = setup(str(episode), "plain", str(tmp_path / "run"))
    run_command(run, ["next"])
    run_command(run, ["read", "app.py", "--offset", "17", "--limit", "5"])
    run_command(run, ["answer", "Q1", "it multiplies by 3"])
    run_command(run, ["edit", "app.py"], "<<<<<<< OLD\n    y = x + 1\n    z\n=======\n    y = x + 100\n    z\n>>>>>>> NEW\n")
    run_command(run, ["next"])
    run_command(run, ["answer", "Q2", "500"])  # wrong: 5000
    run_command(run, ["feedback", "none"])
    g = grade_run(run)
    assert (g["questions_right"], g["questions"], g["edits_passed"], g["edits"]) == (1, 2, 1, 1)
    assert g["calls"] == {"next": 2, "read": 1, "answer": 2, "edit": 1} and g["tool_calls"] == 2
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    counted = [r["output_tokens"] for r in log if r["command"] != "feedback"]
    state = json.loads((run / "state.json").read_text())
    assert g["cost"] == round(cost_of(counted, state["prompt_tokens"]), 1)
    assert g["tool_tokens"] == sum(r["output_tokens"] for r in log if r["command"] in ("read", "edit"))
    assert g["confused"] is False and not g["finished"]


def _run(episode: str, arm: str, cost: float, calls: int = 10, tokens: int = 100, confused: bool = False) -> dict:
    return {"episode": episode, "arm": arm, "run": f"{episode}-{arm}-{cost}", "questions_right": 1, "questions": 1,
            "edits_passed": 1, "edits": 1, "tool_calls": calls, "tool_tokens": tokens, "cost": cost,
            "calls": {"read": calls}, "tokens": {"read": tokens}, "confused": confused, "feedback": "x"}


def test_the_report_compares_per_run_means_episode_by_episode():
    runs = [_run("a", "plain", 100), _run("a", "plain", 300), _run("a", "symbolpack", 100),
            _run("b", "plain", 1000), _run("b", "symbolpack", 500, confused=True),
            _run("c", "plain", 50)]  # c has no symbolpack run: left out of the ratios
    s = ab_summary(runs)
    # (100 + 500) / (200 + 1000): means per episode, summed
    assert s["all"]["ratios"]["cost"] == 0.5
    assert s["episodes"]["a"]["ratios"]["cost"] == 0.5 and s["episodes"]["a"]["cost_spread"]["plain"] == [100, 300]
    assert s["episodes"]["c"]["ratios"]["cost"] is None
    assert s["all"]["arms"]["symbolpack"]["confused"] == 1
    assert sorted(s["rounds"]) == [1, 2] and s["rounds"][2]["ratios"]["cost"] is None  # round 2: plain only
    table = format_ab(s)
    assert "cost (tokens + 0.1 x context per call)" in table and "0.50x" in table


def test_each_symbolpack_arm_is_compared_with_the_plain_runs_of_its_setting():
    from symbolpack.evaluation.agentab.report import ab_report

    runs = [_run("a", "plain", 200), _run("a", "symbolpack", 100), _run("a", "mcp", 50)]
    report = ab_report(runs)
    assert sorted(report) == ["all tools", "all tools; symbolpack over MCP (read_file, known ids)"]
    assert report["all tools"]["all"]["ratios"]["cost"] == 0.5
    assert report["all tools; symbolpack over MCP (read_file, known ids)"]["all"]["ratios"]["cost"] == 0.25


def test_the_repeat_free_ceiling_frees_only_lines_already_received_as_they_were():
    from symbolpack.evaluation.agentab.grade import MARKER_TOKENS, repeat_free_outputs

    def read(path, rows, tokens):
        return {"command": "read", "args": [path], "output_tokens": tokens,
                "output": "".join(f"{n:>6}\t{t}\n" for n, t in rows)}

    log = [read("a.py", [(1, "x"), (2, "y")], 100),
           read("a.py", [(1, "x"), (2, "y")], 100),   # all repeated: a marker
           read("a.py", [(2, "y"), (3, "z")], 100),   # half repeated
           read("a.py", [(3, "Z")], 40),              # changed text: nothing free
           read("b.py", [(1, "x")], 30),              # another file
           {"command": "feedback", "args": [], "output_tokens": 5, "output": ""}]
    assert repeat_free_outputs(log) == [100, MARKER_TOKENS, 50 + MARKER_TOKENS, 40, 30]


def test_tldrs_ab_run_drives_an_agent_command_in_every_run_and_reports(episode, tmp_path):  # noqa: F811
    """`tldrs ab run` with a scripted agent (a shell script reading the prompt on stdin and
    answering through ./lab): both arms, neutral names, then the table."""
    import subprocess
    import sys

    agent = ("sh -c 'cat > prompt.txt; ./lab next; ./lab read app.py --offset 17 --limit 5; ./lab answer Q1 3; "
             "./lab next; ./lab answer Q2 5000; ./lab next; ./lab feedback none'")
    # a process of its own, as a user runs it (the CLI sets up logging for its process)
    out = subprocess.run([sys.executable, "-m", "symbolpack.cli", "ab", "run", str(episode), "--agent", agent,
                          "--out", str(tmp_path / "runs"), "--rounds", "1"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    runs = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert runs == ["run-01", "run-02"]  # names say nothing of the arm
    arms = {json.loads((tmp_path / "runs" / r / "state.json").read_text())["arm"] for r in runs}
    assert arms == {"plain", "symbolpack"}
    prompt = (tmp_path / "runs" / "run-01" / "prompt.txt").read_text()
    assert "lab next" in prompt and "symbolpack" not in prompt and "plain" not in prompt
    rows = {line[:36].strip(): line[36:].split() for line in out.stdout.splitlines() if line.startswith("  ")}
    assert rows["questions right"] == ["2/2", "2/2"] and rows["runs reporting confusion"] == ["0", "0"]
    assert "tiny [plain] run-0" in out.stderr and "tiny [symbolpack] run-0" in out.stderr  # a line per run as it ends
    mcp = subprocess.run([sys.executable, "-m", "symbolpack.cli", "ab", "run", str(episode), "--agent", agent,
                          "--out", str(tmp_path / "mcp-runs"), "--rounds", "1", "--against", "mcp"],
                         capture_output=True, text=True)
    assert mcp.returncode == 0, mcp.stderr
    arms = {json.loads((tmp_path / "mcp-runs" / r / "state.json").read_text())["arm"]
            for r in ("run-01", "run-02")}
    assert arms == {"plain", "mcp"} and "symbolpack over MCP" in mcp.stdout


def test_every_committed_episode_is_well_formed_and_asks_what_the_issue_asks():
    """The episodes in evals/agent_ab: valid, 5 steps, 8-12 questions, 2-3 edits, later commits
    applied between steps, every question checkable (its accepted answers pass the rule)."""
    from pathlib import Path

    from symbolpack.evaluation.agentab.episode import load_episode

    folder = Path(__file__).resolve().parents[3] / "evals" / "agent_ab" / "episodes"
    episodes = [load_episode(p) for p in sorted(folder.glob("*.json"))]
    assert len(episodes) >= 6 and len({e.data["language"] for e in episodes}) >= 4
    for ep in episodes:
        questions = ep.questions()
        assert 8 <= len(questions) <= 12 and 2 <= len(ep.edits()) <= 3, ep.name
        assert sum(1 for step in ep.steps if step.get("apply")) >= 3, ep.name
        for _, q in questions:
            assert all(answer_is_right(a, q) for a in q["accepted"]), (ep.name, q["id"])


def test_an_edit_check_sees_the_run_s_work_tree_as_the_lab_s_checks_do(tmp_path):
    """A check that imports the edited package from `repo` (structlog's) failed in every
    run, both arms, when the harness gave it no `repo`."""
    from symbolpack.evaluation.agentab.episode import check_passes

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("VALUE = 1\n")
    check = ("import os\n"
             "with open(os.path.join(repo, 'pkg', 'mod.py')) as f:\n"
             "    before = f.read()\n"
             "return before == 'VALUE = 1\\n' and 'VALUE = 2' in text")
    assert check_passes(check, "VALUE = 2\n", "pkg/mod.py", tmp_path)
    assert not check_passes(check, "VALUE = 3\n", "pkg/mod.py", tmp_path)
    assert not check_passes(check, "VALUE = 2\n", "pkg/mod.py")  # no work tree: the check raises, and fails
