"""diff-context sized by the change: windows inside long symbols (and what the agent's copy
then holds), no line sent twice, tests named only by name as signatures, stubs that shrink
the pack, and a pack no bigger than about `git diff` of the same change."""

from __future__ import annotations

import re
import textwrap

from symbolpack.api.context import diff_context
from symbolpack.evaluation.harness import ChangedLines, PackJudge
from symbolpack.evaluation.oracle import ReadOracle
from symbolpack.api.operations import Workspace, read_file
from symbolpack.base.tokens import count_tokens

from conftest import git
from test_context import assert_every_change_visible, by_id, copy_holds, edit

LONG = "def process(items):\n" + "".join(f"    step_{i} = items[{i}] * {i}\n" for i in range(120)) + \
    "    return step_0\n"


def numbered(text: str) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2)) for m in re.finditer(r"^ *(\d+)\t(.*)$", text, re.M)]


def file_lines(root, rel: str) -> list[str]:
    return (root / rel).read_text().split("\n")[:-1]


def test_a_window_is_all_the_copy_holds_of_its_symbol(make_repo):
    """The window's lines, and only those, go into the agent's copy: a read of them is
    the lines as they are, a read of the hidden lines too, and the symbol is never a stub later."""
    root = make_repo({"proc.py": LONG})
    edit(root, "proc.py", "step_60 = items[60] * 60", "step_60 = items[60] * 61")
    ws = Workspace(root)
    oracle = ReadOracle()
    judge = PackJudge(delta=True, read_oracle=oracle)
    changed = {"proc.py": ChangedLines(lines={62})}
    pack = diff_context(ws, session_id="w")
    s = by_id(pack)["proc.py:python:process"]
    assert s["lines"] == [59, 65] and s["code"] == "\n".join(file_lines(root, "proc.py")[58:65])
    assert judge.apply(pack, lambda rel: file_lines(root, rel), changed) == []
    window = read_file(ws, root / "proc.py", "w", offset=59, limit=7).response
    assert window["mode"] == "range" and window["text"] == "\n".join(
        f"{n:>6}\t{t}" for n, t in enumerate(file_lines(root, "proc.py")[58:65], 59))
    assert oracle.apply(window) == []
    hidden = read_file(ws, root / "proc.py", "w", offset=20, limit=10).response
    assert hidden["mode"] == "range" and "step_18 = items[18]" in hidden["text"]
    assert oracle.apply(hidden) == []
    again = diff_context(ws, session_id="w")  # not held whole: the window again, never a stub
    assert again["unchanged"] == [] and by_id(again)["proc.py:python:process"]["code"] == s["code"]
    assert not copy_holds(ws, "w")({"path": "proc.py", "lines": [1, 122]})
    assert judge.apply(again, lambda rel: file_lines(root, rel), changed) == []


def test_no_line_is_sent_twice(make_repo):
    """A class changed at class level next to a changed method: one run of numbered lines,
    the method's lines inside the class's code or window, not repeated."""
    cls = textwrap.dedent('''
        class Store:
            limit = 10

            def __init__(self):
                self.items = []

            def put(self, item):
                self.items.append(item)
        ''').lstrip() + "".join(f"\n    def get_{i}(self):\n        return self.items[{i}]\n" for i in range(30))
    root = make_repo({"store.py": cls})
    edit(root, "store.py", "limit = 10", "limit = 20")
    edit(root, "store.py", "self.items = []", "self.items = list()")
    result = diff_context(Workspace(root), delta=False)
    shown = [n for n, _ in numbered(result["text"])]
    assert len(shown) == len(set(shown)), shown
    spans = sorted(tuple(s["lines"]) for s in result["slices"] if s["code"] is not None)
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:])), spans  # no overlap in the JSON either
    assert_every_change_visible(result, root)


def test_tests_named_like_the_change_are_signatures(make_repo, monkeypatch):
    from symbolpack.packs import diffpack

    monkeypatch.setattr(diffpack, "RELATED_FLOOR", 10_000)  # room for every related symbol
    monkeypatch.setattr(diffpack, "RELATED_CAP", 10_000)
    root = make_repo({
        "calc.py": "def compute_total(xs):\n    return sum(xs)\n",
        "tests/test_calc.py": "from calc import compute_total\n\n\ndef test_direct():\n"
                              "    assert compute_total([1]) == 1\n\n\n"
                              "def test_compute_total_by_name_only():\n    assert True\n",
    })
    edit(root, "calc.py", "return sum(xs)", "return sum(xs) + 0")
    result = diff_context(Workspace(root), delta=False)
    s = by_id(result)
    assert s["tests/test_calc.py:python:test_direct"]["code"] is not None  # it calls the change
    assert s["tests/test_calc.py:python:test_compute_total_by_name_only"]["code"] is None


def test_stubs_shrink_the_pack_and_free_nothing_for_more_code(make_repo):
    root = make_repo({"proc.py": LONG + "\n\ndef caller(xs):\n    return process(xs)\n"})
    edit(root, "proc.py", "step_60 = items[60] * 60", "step_60 = items[60] * 61")
    ws = Workspace(root)
    first = diff_context(ws, session_id="s")
    edit(root, "proc.py", "return process(xs)", "return process(xs) or 0")
    second = diff_context(ws, session_id="s")  # caller changed; process's window was given...
    assert second["unchanged"] == []  # ...but only partly: not a stub
    read_file(ws, root / "proc.py", "s", force_full=True)  # now the agent holds every line
    third = diff_context(ws, session_id="s")
    assert "proc.py:python:process" in third["unchanged"]
    assert third["budget_used"] < second["budget_used"]
    code = lambda pack: {x["id"] for x in pack["slices"] if x["code"] is not None}  # noqa: E731
    assert code(third) <= code(second)  # the stub freed no room for other code
    assert first["budget_used"] > 0


def test_a_pack_is_about_the_size_of_git_diff(make_repo):
    """A 2-line edit in a 120-line function with callers and tests around it: the pack
    stays within 1.5x the tokens of `git diff` (issue 10's bound) while every line shows."""
    callers = "".join(f"def use_{i}(xs):\n    return process(xs) + {i}\n\n\n" for i in range(12))
    tests = "from proc import process\n\n\n" + "".join(
        f"def test_process_{i}():\n    assert process(list(range(130))) is not None\n\n\n" for i in range(8))
    root = make_repo({"proc.py": LONG, "use.py": "from proc import process\n\n\n" + callers,
                      "tests/test_proc.py": tests})
    edit(root, "proc.py", "step_60 = items[60] * 60\n    step_61 = items[61] * 61",
         "step_60 = items[60] * 600\n    step_61 = items[61] * 610")
    result = diff_context(Workspace(root), delta=False)
    plain = git(root, "diff", "--no-color", "HEAD")
    assert result["budget_used"] <= 1.5 * count_tokens(plain), (result["budget_used"], count_tokens(plain))
    assert "step_59 = items[59]" in result["text"] and "step_20 = items[20]" not in result["text"]
    assert_every_change_visible(result, root)


def test_stubs_for_symbols_around_the_change_shrink_the_pack(make_repo):
    """Callers the agent holds become one-line stubs: the same symbols as without a
    session, fewer tokens, never room for more."""
    callers = "".join(f"def use_{i}(xs):\n    total = process(xs)\n    return total + {i}\n\n\n" for i in range(6))
    root = make_repo({"proc.py": LONG, "use.py": "from proc import process\n\n\n" + callers})
    ws = Workspace(root)
    read_file(ws, root / "use.py", "s", force_full=True)  # the agent holds every caller
    edit(root, "proc.py", "step_60 = items[60] * 60", "step_60 = items[60] * 61")
    plain = diff_context(ws, delta=False)
    held = diff_context(ws, session_id="s")
    assert held["unchanged"] and all(i.startswith("use.py:") for i in held["unchanged"])
    assert {s["id"] for s in held["slices"]} == {s["id"] for s in plain["slices"]}
    assert held["budget_used"] < plain["budget_used"]
