"""Answers speak the front end's language: markers, headers, errors and packs name the
parameters of the tool the agent calls (`reads/hints.py`), never another front end's."""

from __future__ import annotations

import json
import re

import pytest

from symbolpack.api.context import context_pack, diff_context
from symbolpack.api.operations import Workspace, read_file
from symbolpack.base.errors import UsageError
from symbolpack.reads.hints import FRONTS, hints_for, with_answer_id

from conftest import git, py_lines, tldrs

CLI_WORDS = re.compile(r"--[a-z]|tldrs ")

LONG = "def process(items):\n" + "".join(f"    step_{i} = items[{i}] * {i}\n" for i in range(120)) + \
    "    return step_0\n"


def skeleton(root, front: str, session: str) -> dict:
    ws = Workspace(root)
    try:
        return read_file(ws, root / "src/app.py", session, front=front).response
    finally:
        ws.close()


@pytest.mark.parametrize("front, marker, header", [
    ("cli", "... 5-21 elided: --symbol f0", "tldrs read src/app.py OPTIONS shows them."),
    ("mcp", '... 5-21 elided: symbol="f0"', 'read_file with path="src/app.py" and those ARGS shows them. Several bodies in one call: symbols=["A", "B"].'),
    ("pi", '... 5-21 elided: symbol="f0"', 'read with path="src/app.py" and those ARGS shows them.'),
    ("chibi", '... 5-21 elided: symbol="f0"', 'symbolpack_read with path="src/app.py" and those ARGS shows them.'),
    ("claude", "... 5-22 elided", "\"... A-B elided\" hides lines A-B: Read offset=A limit=B-A+1 shows them."),
    ("opencode", "... 5-22 elided: offset=5 limit=18",
     "\"... A-B elided: ARGS\" hides lines A-B; read this file again with those ARGS to see them."),
])
def test_a_skeleton_names_the_front_ends_own_parameters(app_repo, front, marker, header):
    response = skeleton(app_repo, front, f"s-{front}")
    assert response["mode"] == "skeleton"
    lines = response["text"].split("\n")
    assert lines[0].endswith(header)
    assert any(line.strip() == marker for line in lines), response["text"]
    if front != "cli":
        assert not CLI_WORDS.search(response["text"]), response["text"]


def test_claude_markers_name_only_lines_because_its_read_tool_has_no_symbol_parameter(app_repo):
    """`... A-B elided` says which lines; the header says once that Read offset=A
    limit=B-A+1 shows them: no marker repeats it."""
    text = skeleton(app_repo, "claude", "c")["text"]
    markers = [line for line in text.split("\n")[1:] if " elided" in line]
    assert len(markers) == 5 and all(re.fullmatch(r" *\.\.\. \d+-\d+ elided", m) for m in markers), markers


def test_where_markers_name_lines_the_blank_lines_after_a_body_go_with_it(app_repo):
    """Claude's markers name lines (one Read of A-B shows them all): a numbered blank
    line after a hidden body costs tokens and says nothing, so it is hidden with the
    body. Where a marker names a symbol (the CLI, MCP, pi) the run stays the symbol's."""
    claude = skeleton(app_repo, "claude", "c")
    cli = skeleton(app_repo, "cli", "l")
    blank_after_marker = re.compile(r"elided[^\n]*\n +\d+\t\n")
    assert not blank_after_marker.search(claude["text"]), claude["text"]
    assert blank_after_marker.search(cli["text"]), cli["text"]
    hidden = [(s["start"], s["end"]) for s in claude["segments"] if s["kind"] == "elided"]
    assert hidden[0] == (5, 22) and claude["tokens"] < cli["tokens"]
    lines = (app_repo / "src/app.py").read_text().split("\n")
    for s in claude["segments"]:  # every shown run that follows a hidden one starts with code
        if s["kind"] == "shown" and s["start"] > 1:
            assert lines[s["start"] - 1].strip(), s


@pytest.mark.parametrize("front, request_, change", [
    ("cli", "tldrs read src/a.py --offset 3 --limit 5", "git diff HEAD -- src/a.py"),
    ("mcp", 'read_file(path="src/a.py", offset=3, limit=5)',
     'diff_context with a larger budget, or read_file(path="src/a.py")'),
    ("claude", "Read src/a.py offset=3 limit=5", "the pack with a larger budget, or Read src/a.py"),
    ("pi", 'read path="src/a.py" offset=3 limit=5', 'the pack with a larger budget, or read path="src/a.py"'),
    ("chibi", 'symbolpack_read path="src/a.py" offset=3 limit=5',
     'symbolpack_diff_context with a larger budget, or symbolpack_read path="src/a.py"'),
    ("opencode", 'read filePath="src/a.py" offset=3 limit=5', 'the pack with a larger budget, or read filePath="src/a.py"'),
])
def test_a_request_for_lines_and_for_a_change_in_each_front_ends_words(front, request_, change):
    """Every front names both numbers: Claude's markers carry none, its requests do."""
    hints = hints_for(front)
    assert hints.read_lines("src/a.py", 3, 7) == request_
    assert hints.see_change("src/a.py", None, ("HEAD",), False) == change


@pytest.mark.parametrize("front, expected", [
    ("cli", "--offset must be >= 1 (got 0)"), ("mcp", "offset must be >= 1 (got 0)"),
    ("claude", "offset must be >= 1 (got 0)"), ("pi", "offset must be >= 1 (got 0)"),
    ("opencode", "offset must be >= 1 (got 0)"),
])
def test_a_bad_range_is_refused_in_the_front_ends_words(app_repo, front, expected):
    ws = Workspace(app_repo)
    try:
        with pytest.raises(UsageError) as caught:
            read_file(ws, app_repo / "src/app.py", "e", offset=0, front=front)
        assert str(caught.value) == expected
        with pytest.raises(UsageError) as caught:
            context_pack(ws, "f0", budget=0, front=front)
        assert str(caught.value).startswith(("--budget" if front == "cli" else "budget") + " must be")
    finally:
        ws.close()


def test_a_windowed_pack_through_a_tool_names_the_tools_request_and_its_paths_whole(make_repo):
    root = make_repo({"src/proc.py": LONG, "src/main.py": "from proc import process\n\n\n"
                      "def main():\n    return process([1])\n"})
    text = (root / "src/proc.py").read_text().replace("step_60 = items[60] * 60", "step_60 = items[60] * 61")
    (root / "src/proc.py").write_text(text)
    (root / "src/new.txt").write_text("x\n" * 4000)  # untracked and over the budget: only summarized
    ws = Workspace(root)
    try:
        cli = diff_context(ws, session_id=None, delta=False, budget=600)
        mcp = diff_context(ws, session_id=None, delta=False, budget=600, front="mcp")
    finally:
        ws.close()
    assert "   ... not shown: tldrs read src/proc.py --offset 1 --limit " in cli["text"]
    assert '   ... not shown: read_file(path="src/proc.py", offset=1, limit=' in mcp["text"]
    assert "see: read_file(path=\"src/new.txt\")" in mcp["text"], mcp["text"]
    assert not CLI_WORDS.search(mcp["text"]), mcp["text"]
    # every slice and marker names its file by the repository-relative path, whole
    heads = re.findall(r"^-- (?:\[UNCHANGED\] )?(\S+):\d+-\d+ ", mcp["text"], re.M)
    assert heads and all(h.startswith("src/") for h in heads), heads


def test_every_slice_of_a_pack_names_its_file_by_the_same_relative_path(make_repo):
    """A slice after another one of the same file used to name it by its base name only
    (`cart.ts:29-33` beside `src/cart.ts:25-27`): a path the agent cannot use as it is."""
    root = make_repo({"src/cart.py": "def add(x):\n    return price(x) + 1\n\n\ndef price(x):\n    return x * 2\n"})
    ws = Workspace(root)
    try:
        pack = context_pack(ws, "add", session_id=None, delta=False)
    finally:
        ws.close()
    heads = re.findall(r"^-- (\S+):(\d+)-(\d+) ", pack["text"], re.M)
    assert [h[0] for h in heads] == ["src/cart.py", "src/cart.py"], pack["text"]


def test_the_cli_takes_the_front_end_and_refuses_an_unknown_one(app_repo):
    proc = tldrs(app_repo, "read", "src/app.py", "--session-id", "f", "--front", "mcp", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert '... 5-21 elided: symbol="f0"' in json.loads(proc.stdout)["text"]
    bad = tldrs(app_repo, "read", "src/app.py", "--front", "vim")
    assert bad.returncode == 2 and "invalid choice: 'vim'" in bad.stderr and "Traceback" not in bad.stderr
    with pytest.raises(ValueError, match="unknown front end 'vim'"):
        hints_for("vim")
    assert set(FRONTS) == {"cli", "mcp", "claude", "pi", "chibi", "opencode", "qwen"}


def _answer(mode: str, scope=None, ident="a1", known_next=None, total=40) -> dict:
    return {"answer_id": ident, "mode": mode, "scope": scope, "total_lines": total,
            "known_next": known_next or [ident], "leans_on": []}


def test_a_whole_file_sent_back_after_known_ids_says_why_first():
    """Real agents read a whole file with no header, after passing ids, as "my ids were ignored"."""
    text = "     1\tx = 1\n     2\ty = 2"
    out = with_answer_id(text, _answer("full"), "a.py", True, "mcp", "cost")
    first, *body, last = out.splitlines()
    assert first == ("[FILE] a.py: 40 lines, whole, as it is now: it changed since the answers you passed, and the "
                     "changes would take more space than the file.")
    assert body == text.splitlines()
    assert last == '[answer a1: the whole file, as it is now] Next read of this file: known=["a1"]'
    # a small file read whole after ids of range answers: its first whole read
    assert with_answer_id(text, _answer("full"), "a.py", True, "mcp", "first").splitlines()[0] == (
        "[FILE] a.py: 40 lines, whole, as it is now: your first whole read of it (the answers you passed showed "
        "parts of it at most).")
    # a first read (no ids passed) and a range that covers the file (no fallback) get no header
    assert with_answer_id(text, _answer("full"), "a.py", False, "mcp", "first").splitlines()[0] == "     1\tx = 1"
    assert with_answer_id(text, _answer("full"), "a.py", True, "mcp", None).splitlines()[0] == "     1\tx = 1"


def test_every_answer_after_known_ids_names_the_next_reads_ids():
    out = with_answer_id("[UNCHANGED] a.py: ...", _answer("unchanged", known_next=["a0", "a1"]), "a.py", True, "mcp")
    assert out.splitlines()[-1] == '[answer a1] Next read of this file: known=["a0", "a1"]'
    # an answer that replaces the earlier ones says so too: the model knows which ids still count
    alone = with_answer_id("[SKELETON] a.py: 40 lines.", _answer("skeleton"), "a.py", True, "mcp")
    assert alone.splitlines()[-1] == '[answer a1] Next read of this file: known=["a1"]'


def test_ids_passed_that_an_answer_does_not_need_are_named():
    response = {**_answer("delta", known_next=["a0", "a2", "a3"], ident="a3"), "leans_on": ["a0", "a2"]}
    out = with_answer_id("[DELTA] a.py: ...", response, "a.py", True, "mcp", None, ["a2", "a0", "a1"])
    assert out.splitlines()[-1] == ('[answer a3; relies on a0, a2; not needed: a1 (newer answers show or mark '
                                    'each of its lines, or it is not about this file)] Next read of this file: known=["a0", "a2", "a3"]')
