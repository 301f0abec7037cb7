"""The pure read decision: each rule of the policy as a function of its inputs.

`Agent` plays one conversation: it keeps the copy the decision returns (as the
store would, every answer delivered) and the file versions it was shown."""

from __future__ import annotations

import hashlib

import pytest

from conftest import distinct_py_lines, py_function, py_lines, python_symbols
from symbolpack.reads.agentcopy import AgentCopy
from symbolpack.reads.hints import hints_for
from symbolpack.reads.read import (
    Current,
    ReadError,
    ReadPolicy,
    ReadRequest,
    decide,
    resolve_scope,
)


def _names(lines) -> set[str] | None:
    if any(line is None for line in lines):
        return None  # a copy with gaps: as `read_file`'s, which names the versions instead
    symbols = python_symbols(lines)
    return None if symbols is None else {s.qualname for s in symbols}


# the fixtures are small modules; their skeletons are what these tests are about (the
# default reads files under 1,500 tokens whole: `test_a_small_file_is_read_whole`)
SMALL = 400


def current(lines: list[str], parsed: bool = True) -> Current:
    data = ("\n".join(lines) + "\n").encode()
    return Current(hashlib.sha256(data).hexdigest(), lines, python_symbols(lines) if parsed else None)


class Agent:
    """One conversation with the pure decision: the copy after every answer, and
    every version shown (the object store)."""

    def __init__(self, policy: ReadPolicy = ReadPolicy(small_file_tokens=SMALL)):
        self.copy = AgentCopy()
        self.versions: dict[str, list[str]] = {}
        self.policy = policy
        self.drill_ins: list = []

    def read(self, cur: Current, request: ReadRequest | None = None, load=None) -> dict:
        self.versions[cur.sha256] = list(cur.lines)
        out = decide(request or ReadRequest("m.py"), cur, self.copy, load or self.versions.get, self.policy,
                     names_before=_names if cur.symbols is not None else None)
        self.copy = out.copy
        self.drill_ins = out.drill_ins
        return out.response


def first_read(cur: Current, policy=ReadPolicy(small_file_tokens=SMALL)):
    agent = Agent(policy)
    return agent, agent.read(cur)


def test_first_read_of_a_parsed_file_is_a_skeleton_with_markers():
    cur = current(py_lines())
    agent, r = first_read(cur)
    assert r["mode"] == "skeleton"
    elided = [s for s in r["segments"] if s["kind"] == "elided"]
    assert len(elided) == 4 and elided[0]["symbol"] == "m.py:python:f0"
    assert "\n    ... 5-25 elided: --symbol f0\n" in r["text"]
    assert "     3\tdef f0(x):" in r["text"] and '     4\t    """Doc 0."""' in r["text"]
    assert r["tokens"] < r["full_tokens"]
    assert agent.copy.hidden_runs()[0] == (5, 25, "m.py:python:f0")


def test_small_and_unparsed_files_are_read_fully():
    assert first_read(current(py_lines(1, 2)))[1]["mode"] == "full"
    _, r = first_read(current(py_lines(), parsed=False))
    assert r["mode"] == "full" and r["tokens"] == r["full_tokens"]
    assert r["segments"] == [{"kind": "shown", "start": 1, "end": len(py_lines())}]


def test_force_full_and_elide_threshold():
    cur = current(py_lines())
    assert Agent().read(cur, ReadRequest("m.py", force_full=True))["mode"] == "full"
    assert first_read(cur, ReadPolicy(elide_min_lines=50, small_file_tokens=SMALL))[1]["mode"] == "full"  # no body is that long


def test_unchanged_reread_is_one_line():
    cur = current(py_lines())
    agent, _ = first_read(cur)
    r = agent.read(cur)
    assert r["mode"] == "unchanged" and r["text"] == "[UNCHANGED] m.py: exactly as you already have it from your earlier reads."
    from symbolpack.base.tokens import estimate_tokens
    # a bare tag cost 12 tokens and real models doubted it; the words say what it vouches for
    assert estimate_tokens("[UNCHANGED] src/auth/tokens.py: exactly as you already have it from your earlier reads.") <= 24


def test_a_change_inside_a_body_never_read_is_a_note_not_the_body():
    agent, _ = first_read(current(py_lines()))
    lines = py_lines()
    lines[30] = "    y3 = x * 1000"  # inside f1's body, which the skeleton elided
    r = agent.read(current(lines))
    assert r["mode"] == "unchanged"  # every line the agent holds is still right where it is
    assert r["text"] == ("[CHANGED] m.py: only inside code you have not read (still elided): f1."
                         " Every line you were shown is unchanged.")
    lines.insert(35, "    extra = 1")  # now the numbering moves: a delta, still without the body
    r = agent.read(current(lines))
    assert r["mode"] == "delta" and "x * 1000" not in r["text"] and "extra = 1" not in r["text"]
    assert {"kind": "elided", "start": 29, "end": 50, "symbol": "m.py:python:f1"} in r["segments"]
    assert {"kind": "unchanged", "start": 51, "end": 53, "from": 50} in r["segments"]
    assert "Changed inside code you have not read (still elided): f1." in r["text"]
    drill = agent.read(current(lines), ReadRequest("m.py", offset=29, limit=22))
    assert drill["mode"] == "range" and "x * 1000" in drill["text"]


def test_changed_symbols_come_back_whole_and_the_rest_unchanged_or_elided():
    agent, _ = first_read(current(py_lines()))
    lines = py_lines()
    lines[0] = "import sys"
    lines[2] = "def f0(x, y=0):"  # a signature the agent saw changes: f0 comes back whole
    for k in range(5, 25, 2):
        lines[k] = lines[k].replace("x +", "x -")
    r = agent.read(current(lines))
    assert r["mode"] == "delta"
    assert r["text"].splitlines()[0].startswith(
        "[DELTA] m.py: changed since your last whole read of it (98 lines then, 98 now). Changed inside code you "
        "had elided, shown whole: f0. Changed outside any symbol: lines 1.")
    shown = [(s["start"], s["end"]) for s in r["segments"] if s["kind"] == "shown"]
    assert shown == [(1, 25)]  # the changed import and f0
    # f1, f2, f3 bodies were never seen and did not change: still elided
    assert [s["symbol"] for s in r["segments"] if s["kind"] == "elided"] == [
        "m.py:python:f1", "m.py:python:f2", "m.py:python:f3"]
    # ... and in the text, what did not move is one marker, not a marker per body
    # (saying that the bodies it was told are elided stay so: "unchanged" alone read as held)
    assert r["text"].splitlines()[-2:] == ["    25\t    return x", "... 26-98 unchanged, elided bodies still elided"]
    assert r["tokens"] <= r["full_tokens"]


def test_a_small_edit_in_a_long_body_the_agent_holds_is_a_window_not_the_body():
    lines = py_lines(body=60)
    agent, _ = first_read(current(lines), ReadPolicy(diff_max_hunks=0, small_file_tokens=SMALL))  # deltas only
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))  # now it holds every line
    lines = py_lines(body=60)
    lines[30] = "    y28 = x * 10"  # one line in the middle of f0's 60-line body
    r = agent.read(current(lines))
    assert r["mode"] == "delta"
    shown = [(s["start"], s["end"]) for s in r["segments"] if s["kind"] == "shown"]
    # f0's header (with the 2 lines above it: cheaper shown than as a marker), and the
    # changed line with 6 lines each side (real models re-read the lines around a change)
    assert shown == [(1, 3), (25, 37)]
    text = r["text"].splitlines()
    assert text[3:5] == ["     3\tdef f0(x):", "... 4-24 unchanged"]
    assert text[5:18] == [f"{n:6d}\t" + lines[n - 1] for n in range(25, 38)] and text[11] == "    31\t    y28 = x * 10"
    assert text[18:] == ["... 38-258 unchanged"]
    assert "Changed/new: f0 (changed line 31)." in text[0] and "Each change comes with the lines around it" in text[0]
    assert agent.read(current(lines))["mode"] == "unchanged"  # the window and the markers left it whole


def test_a_change_in_a_function_that_nests_one_comes_with_its_window():
    """A function holding a nested one is no leaf, but its own lines around a change
    are shown as a leaf's are: without, the lines beside a change inside mocha's
    `canonicalize` came as one-line markers and the agent doubted the delta."""
    def module(k: int) -> list[str]:
        return ["def outer(x):", "    def inner(y):", "        return y + 1", "",
                *[f"    v{i} = inner(x) * {k if i == 20 else i}" for i in range(40)], "    return v0", ""]

    lines = module(20)
    agent, _ = first_read(current(lines), ReadPolicy(diff_max_hunks=0, small_file_tokens=SMALL))
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    lines = module(99)
    r = agent.read(current(lines))
    assert r["mode"] == "delta"
    at = lines.index("    v20 = inner(x) * 99") + 1
    shown = [(s["start"], s["end"]) for s in r["segments"] if s["kind"] == "shown"]
    assert (at - 6, at + 6) in shown, (shown, r["text"])


def test_a_changed_short_function_is_shown_whole():
    """A changed function of under 40 lines comes back whole, the lines the agent holds
    included: real models re-read a changed function's neighbourhood by range, a call
    that re-sends the whole context, rather than piece it from earlier answers."""
    lines = py_lines(body=20)
    agent, _ = first_read(current(lines), ReadPolicy(diff_max_hunks=0, small_file_tokens=SMALL))
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    lines[14] = "    y10 = x * 10"
    r = agent.read(current(lines))
    assert [(s["start"], s["end"]) for s in r["segments"] if s["kind"] == "shown"] == [(1, 25)]
    assert r["text"].splitlines()[1:] == [f"{n:6d}\t" + lines[n - 1] for n in range(1, 26)] + ["... 26-98 unchanged"]


def test_a_window_keeps_the_lines_the_agent_was_told_are_elided_elided():
    lines = py_lines()
    agent, _ = first_read(current(lines), ReadPolicy(diff_max_hunks=0, small_file_tokens=SMALL))  # deltas only
    lines = py_lines()
    lines[2] = "def f0(x, y=1):"  # the signature the agent saw changes; f0's body stays as it was
    r = agent.read(current(lines))
    assert r["mode"] == "delta" and "y10 = x + 10" not in r["text"]
    # the lines around the change are shown (f0's docstring, which the agent holds), the
    # body it was told is elided stays elided, whatever the window
    assert r["segments"][:2] == [{"kind": "shown", "start": 1, "end": 4},
                                 {"kind": "elided", "start": 5, "end": 25, "symbol": "m.py:python:f0"}]
    assert r["text"].splitlines()[1:] == ["     1\timport os", "     2\t", "     3\tdef f0(x, y=1):",
                                         '     4\t    """Doc 0."""', "... 5-98 unchanged, elided bodies still elided"]


def test_only_the_first_skeleton_of_a_session_explains_the_markers():
    agent, first = first_read(current(py_lines()))
    assert "hides lines A-B" in first["text"].splitlines()[0]
    out = decide(ReadRequest("n.py", told=("skeleton",)), current(py_lines(5)), AgentCopy(), lambda sha: None,
                 ReadPolicy(small_file_tokens=SMALL))
    assert out.response["mode"] == "skeleton"
    assert out.response["text"].splitlines()[0] == f"[SKELETON] n.py: {len(py_lines(5))} lines."


def test_delta_names_removed_symbols():
    agent, _ = first_read(current(py_lines(6, 14)))
    lines = py_lines(6, 14)
    del lines[2:20]  # f0 removed entirely
    for k in range(20, len(lines), 18):  # and a line in each other function (a delta, not a diff, cheaper than the file)
        lines[k] = lines[k] + "  # touched"
    r = agent.read(current(lines))
    assert r["mode"] == "delta", r["text"]
    assert "Removed: f0." in r["text"]


def test_unparsed_change_is_a_unified_diff_until_the_gate():
    agent, _ = first_read(current(py_lines(), parsed=False))
    lines = py_lines()
    lines[10] = "changed"
    r = agent.read(current(lines, parsed=False))
    assert r["mode"] == "diff"
    assert "@@ -8,7 +8,7 @@" in r["text"] and "+changed" in r["text"]
    many = [l + " *" if i % 3 == 0 else l for i, l in enumerate(lines)]
    assert agent.read(current(many, parsed=False))["mode"] == "full"  # too many hunks: the gate sends the file


def test_missing_baseline_and_truncation_fail_open_to_full():
    agent, _ = first_read(current(py_lines()))
    lines = py_lines()
    lines[4] = "    changed = 1"
    assert agent.read(current(lines), load=lambda sha: None)["mode"] == "full"
    agent, _ = first_read(current(py_lines()))
    assert agent.read(current(py_lines()[:20]))["mode"] == "full"


def test_a_range_is_answered_with_every_line_it_asks_for():
    """Real models read an `[UNCHANGED]` range, or holes in one, as text withheld and
    fetched it another way (`tldrs ab`): a range shows its lines, held or not."""
    agent = Agent()
    cur = current(py_lines())
    plain = agent.read(cur, ReadRequest("m.py", offset=3, limit=5))
    assert plain["mode"] == "range" and plain["scope"] == {"start": 3, "end": 7}
    again = agent.read(cur, ReadRequest("m.py", offset=3, limit=5))
    assert again["mode"] == "range" and again["text"] == plain["text"]
    agent.read(cur)  # a skeleton: the agent now holds lines 1-8 and sees the rest elided
    wider = agent.read(cur, ReadRequest("m.py", offset=1, limit=40))
    assert wider["text"].splitlines() == [f"{n:>6}\t{cur.lines[n - 1]}" for n in range(1, 41)]
    lines = py_lines()
    lines[4] = "    inside = 2"
    r = agent.read(current(lines), ReadRequest("m.py", offset=3, limit=5))
    assert r["mode"] == "range" and "inside = 2" in r["text"]


def test_range_overlapping_an_elided_body_is_a_drill_in():
    cur = current(py_lines())
    agent, _ = first_read(cur)
    r = agent.read(cur, ReadRequest("m.py", offset=10, limit=3))
    assert r["mode"] == "range"
    assert agent.drill_ins == [{"symbol": "m.py:python:f0", "hidden": True, "lines": [10, 12]}]


def test_symbol_drill_in_returns_the_symbol_whole():
    cur = current(py_lines())
    f2 = [s for s in cur.symbols if s.qualname == "f2"][0]
    r = Agent().read(cur, ReadRequest("m.py", symbol=f2))
    assert r["scope"] == {"start": f2.lines[0], "end": f2.lines[1]}
    assert r["text"].splitlines()[0] == f"{f2.lines[0]:>6}\tdef f2(x):"


@pytest.mark.parametrize("offset,limit,total,expected", [
    (None, None, 10, None), (1, 10, 10, None), (3, None, 10, (3, 10)), (None, 4, 10, (1, 4)), (9, 50, 10, (9, 10)),
])
def test_resolve_scope(offset, limit, total, expected):
    assert resolve_scope(total, offset, limit) == expected


@pytest.mark.parametrize("offset,limit", [(0, None), (11, None), (2, 0), (-1, 3)])
def test_bad_ranges_are_errors(offset, limit):
    with pytest.raises(ReadError):
        resolve_scope(10, offset, limit)


# --------------------------------------------------------------------------- the agent's copy (issue items)

def sixty(parsed: bool, **changes) -> Current:
    lines = [f"value_{n} = {n}" for n in range(1, 61)]
    for key, text in changes.items():
        lines[int(key[1:]) - 1] = text
    return current(lines, parsed)


@pytest.mark.parametrize("parsed", [True, False])
def test_a_newer_range_display_is_what_the_agent_holds(parsed):
    """Item 1: full read; line 15 changes and a range 10-19 shows it; line 15 is
    reverted and line 50 changes. The agent's latest line 15 is the range's text:
    the full re-read must not call it unchanged (delta) nor use it as diff context."""
    agent = Agent()
    assert agent.read(sixty(parsed))["mode"] == "full"
    assert agent.read(sixty(parsed, l15="value_15 = 'edited'"), ReadRequest("m.py", offset=10, limit=10))["mode"] == "range"
    r = agent.read(sixty(parsed, l50="value_50 = 'new'"))
    assert r["mode"] in ("delta", "diff", "full")
    if r["mode"] == "delta":
        assert any(s["kind"] == "shown" and s["start"] <= 15 <= s["end"] for s in r["segments"]), r["segments"]
    elif r["mode"] == "diff":
        assert "-value_15 = 'edited'" in r["text"] and "+value_15 = 15" in r["text"]
    # whatever the form, line 15 is now right in the copy and line 50 too
    assert agent.copy.holds(1, 60, sixty(parsed, l50="value_50 = 'new'").sha256,
                            sixty(parsed, l50="value_50 = 'new'").lines, agent.versions.get)


def test_the_diff_of_an_unparsed_file_has_the_copy_as_its_old_side():
    """Item 1, [DIFF]: the removed side shows what the agent holds (the range's text)."""
    agent = Agent()
    agent.read(sixty(False))
    agent.read(sixty(False, l15="value_15 = 'edited'"), ReadRequest("m.py", offset=10, limit=10))
    r = agent.read(sixty(False, l50="value_50 = 'new'"))
    assert r["mode"] == "diff"
    assert "-value_15 = 'edited'\n+value_15 = 15" in r["text"]
    assert "-value_50 = 50\n+value_50 = 'new'" in r["text"]


def test_a_range_is_not_unchanged_on_the_strength_of_lines_a_newer_answer_renumbered():
    """Item 2: range 20-24 read; two lines inserted at the top and a full re-read
    renumbers them; the agent's lines 20-24 are now the full answer's, so a range
    read of 20-24 is judged against those, not against the old range."""
    agent = Agent()
    base = [f"v{n} = {n}" for n in range(1, 61)]
    agent.read(current(base, False), ReadRequest("m.py", offset=20, limit=5))
    agent.read(current(base, False))
    shifted = ["new_a = 1", "new_b = 2"] + base
    full = agent.read(current(shifted, False))
    assert full["mode"] in ("diff", "full")
    back = base  # the two lines go again: lines 20-24 are the original text, the copy holds shifted ones
    r = agent.read(current(back, False), ReadRequest("m.py", offset=20, limit=5))
    assert r["mode"] == "range"


def test_unchanged_is_never_said_for_lines_never_sent():
    """Item 3: a skeleton elided the only function; a drill-in or a whole-file range
    must send it, not [UNCHANGED]."""
    lines = ["import os", "", "def only(x):", '    """Doc."""'] + [f"    y{i} = x * {i} + os.getpid()" for i in range(40)] + ["    return x"]
    cur = current(lines)
    only = [s for s in cur.symbols if s.qualname == "only"][0]
    for request in (ReadRequest("m.py", symbol=only), ReadRequest("m.py", offset=1, limit=2000)):
        agent, first = first_read(cur)
        assert first["mode"] == "skeleton"
        r = agent.read(cur, request)
        assert r["mode"] != "unchanged"
        assert "y39 = x * 39" in r["text"]
        assert not agent.copy.hidden_runs()


def test_refresh_of_a_range_forgets_those_lines_whatever_answer_gave_them():
    """Item 13: after a full read, forgetting lines 3-17 makes their range read plain."""
    agent = Agent()
    cur = sixty(False)
    agent.read(cur)
    agent.copy = agent.copy.forgotten(3, 17)
    assert not agent.copy.holds(3, 17, cur.sha256, cur.lines, agent.versions.get)
    assert agent.read(cur, ReadRequest("m.py", offset=3, limit=15))["mode"] == "range"
    assert agent.copy.holds(3, 17, cur.sha256, cur.lines, agent.versions.get)
    assert agent.read(cur)["mode"] == "unchanged"  # the range gave them back


def test_a_pending_answer_makes_every_answer_touching_it_plain():
    """Item 7 (pure part): lines of an answer not yet confirmed delivered are unsure."""
    agent = Agent()
    cur = sixty(False)
    agent.read(cur)
    agent.copy = agent.copy.with_pending("intent-1", 10, 19)
    assert agent.read(cur)["mode"] == "full"
    agent.copy = agent.copy.with_pending("intent-2", 10, 19)
    assert agent.read(cur, ReadRequest("m.py", offset=15, limit=2))["mode"] == "range"
    assert agent.read(cur)["mode"] == "full"  # still unsure: the range settles nothing in the pure decision


def test_a_revert_after_a_range_read_is_not_unchanged():
    """Edited, range-read, then reverted: the agent's copy of those lines is the
    edited one, so neither the whole file nor the wider range is 'unchanged'."""
    from symbolpack.evaluation.oracle import ReadOracle

    v1 = current(py_lines(), parsed=False)
    edited = py_lines()
    edited[5] = "    edited = True"
    v2 = current(edited, parsed=False)
    for steps in (
        [(v1, ReadRequest("m.py")), (v2, ReadRequest("m.py", offset=4, limit=5)), (v1, ReadRequest("m.py"))],
        [(v1, ReadRequest("m.py", offset=1, limit=20)), (v2, ReadRequest("m.py", offset=4, limit=5)),
         (v1, ReadRequest("m.py", offset=1, limit=20))],
    ):
        oracle, agent = ReadOracle(), Agent()
        modes = []
        for cur, request in steps:
            response = agent.read(cur, request)
            assert oracle.apply(response) == []
            assert oracle.check("m.py", "\n".join(cur.lines) + "\n") == [], response["mode"]
            modes.append(response["mode"])
        assert modes[2] != "unchanged", modes


def test_a_whole_read_naming_parts_it_holds_is_a_delta_over_them_and_an_outline_of_the_rest():
    """Over MCP the model names the answers it holds: after parts read (a symbol) and a
    push, a whole read is a delta over those parts (what changed shown, the rest of them
    `unchanged`) and the lines never read drawn as a skeleton draws them. Real agents
    called the skeleton that showed their parts again "an outline I did not need" and
    "not the delta I asked for"."""
    mcp = hints_for("mcp")
    lines = distinct_py_lines(8, 14)
    cur = current(lines)
    f2, f5 = (next(s for s in cur.symbols if s.qualname == name) for name in ("f2", "f5"))
    agent = Agent()
    agent.read(cur, ReadRequest("m.py", offset=f2.lines[0], limit=f2.lines[1] - f2.lines[0] + 1, hints=mcp))
    agent.read(cur, ReadRequest("m.py", offset=f5.lines[0], limit=f5.lines[1] - f5.lines[0] + 1, hints=mcp))
    pushed = ["import sys", *lines]  # every line one down
    at = pushed.index("    y3 = x + 503")  # in f5
    pushed[at] = "    y3 = x - 503"
    r = agent.read(current(pushed), ReadRequest("m.py", hints=mcp))
    assert r["mode"] == "delta", r["text"]
    text = r["text"].splitlines()
    assert text[0].startswith(f"[DELTA] m.py: {len(pushed)} lines now.")
    assert "You had read only parts of it (ranges or symbols): what changed in them is shown" in text[0]
    assert "Changed/new: f5 (changed line" in text[0] and "f2" not in text[0].split("Changed/new:")[1]
    # f2 as the agent holds it, one line down; f5's change shown; never-read bodies elided
    assert f"... {f2.lines[0] + 1}-{f2.lines[1] + 1} unchanged (were {f2.lines[0]}-{f2.lines[1]})" in " ".join(text), r["text"]
    assert f"{at + 1:>6}\t{pushed[at]}" in text
    f0 = next(s for s in cur.symbols if s.qualname == "f0")
    assert any(line.startswith(f"    ... {f0.body[0] + 1}-") and "elided" in line for line in text), r["text"]
    assert "in code you never read" not in text[0], text[0]  # only lines moved there
    # never-read code that changed too is named (what moved the parts, a real agent wondered)
    agent = Agent()
    agent.read(cur, ReadRequest("m.py", offset=f2.lines[0], limit=f2.lines[1] - f2.lines[0] + 1, hints=mcp))
    grown = list(pushed)
    grown[grown.index("    y3 = x + 3")] = "    y3 = x * 3"  # in f0, never read (f5 too now)
    grown += py_function(9)
    r = agent.read(current(grown), ReadRequest("m.py", hints=mcp))
    assert r["mode"] == "delta", r["text"]
    assert " Changed since too, in code you never read (drawn as a first read draws it): f0, f5, f9 (new)." \
        in r["text"].splitlines()[0], r["text"]
    # the same read from a front whose host names the answers (hooks): the skeleton as before
    agent = Agent()
    agent.read(cur, ReadRequest("m.py", offset=f2.lines[0], limit=f2.lines[1] - f2.lines[0] + 1))
    assert agent.read(current(pushed))["mode"] == "skeleton"


def test_a_whole_read_after_parts_over_the_cap_elides_the_lines_never_read_not_the_change():
    """Over a host's cap, the outline of the lines never read took the room and the cut
    fell before the part's change (a real agent's own edit, named in the header, not
    shown): the lines never read are elided runs then, and the change is shown."""
    mcp = hints_for("mcp")
    lines = distinct_py_lines(40, 14)
    cur = current(lines)
    f37, f39 = (next(s for s in cur.symbols if s.qualname == name) for name in ("f37", "f39"))
    agent = Agent(ReadPolicy(small_file_tokens=SMALL, max_answer_chars=2500))
    agent.read(cur, ReadRequest("m.py", offset=f37.lines[0], limit=f39.lines[1] - f37.lines[0] + 1, hints=mcp))
    pushed = list(lines)
    at = pushed.index("    y7 = x + 3807")
    pushed[at] = "    y7 = x - 3807"
    r = agent.read(current(pushed), ReadRequest("m.py", hints=mcp))
    text = r["text"].splitlines()
    assert r["mode"] == "delta" and "the lines you never read are elided (an outline of them would not fit" in text[0]
    assert f"{at + 1:>6}\t{pushed[at]}" in text, r["text"]
    assert text[1] == f"... 1-{f37.lines[0] - 1} elided: offset=1, limit={f37.lines[0] - 1}", r["text"]
    assert len(r["text"]) < 2500


def test_a_function_held_only_elided_is_not_called_new_when_it_comes_back_whole():
    """commons-lang's toClass sat in the tail a capped skeleton elided; a push moved and
    changed it, and the delta called it new (a real agent stopped trusting the list)."""
    lines = distinct_py_lines(40, 14)
    agent = Agent(ReadPolicy(small_file_tokens=SMALL, max_answer_chars=2500, diff_max_hunks=0))
    sk = agent.read(current(lines))
    assert sk["mode"] == "skeleton" and "def f35(" not in sk["text"], sk["text"]
    f35 = py_function(35, 14)
    f35[f35.index("    y3 = x + 3503")] = "    y3 = x - 3503"
    pushed = ["import os", ""] + f35 + [line for k in range(40) if k != 35 for line in py_function(k, 14)]
    r = agent.read(current(pushed))
    header = r["text"].splitlines()[0]
    assert r["mode"] == "delta" and "f35 (shown whole)" in header and "f35 (new)" not in header, header


def test_a_first_whole_read_shows_what_a_range_already_gave():
    """Lines the agent already holds (a range, a pack) are shown by the skeleton, not
    hidden (an `elided` marker would contradict what it was given) and not marked
    `unchanged` (real models read that hole as text withheld and read the file again)."""
    cur = current(py_lines())
    f1 = [s for s in cur.symbols if s.qualname == "f1"][0]
    agent = Agent()
    agent.read(cur, ReadRequest("m.py", offset=f1.lines[0], limit=f1.lines[1] - f1.lines[0] + 1))
    r = agent.read(cur)
    assert r["mode"] == "skeleton" and not any(s["kind"] == "unchanged" for s in r["segments"])
    shown = {n for s in r["segments"] if s["kind"] == "shown" for n in range(s["start"], s["end"] + 1)}
    assert set(range(f1.lines[0], f1.lines[1] + 1)) <= shown
    assert [s["symbol"] for s in r["segments"] if s["kind"] == "elided"] == [
        "m.py:python:f0", "m.py:python:f2", "m.py:python:f3"]
    assert not [e for e in agent.copy.hidden_runs() if e[2] == "m.py:python:f1"]


def test_a_body_read_in_part_is_shown_whole_when_the_rest_is_short_no_hole_in_it():
    """gin's setWithProperType came back as `... 324-330 elided` above the rest of its
    body, which a range had shown: real agents looked for what the marker hid."""
    lines = distinct_py_lines(4, 20)  # bodies of distinct lines: a range's lines map to one place only
    cur = current(lines)
    f1 = [s for s in cur.symbols if s.qualname == "f1"][0]
    agent = Agent()
    agent.read(cur, ReadRequest("m.py", offset=f1.body[0] + 8, limit=f1.body[1] - f1.body[0] - 8 + 1))
    r = agent.read(cur)
    assert r["mode"] == "skeleton"
    shown = {n for s in r["segments"] if s["kind"] == "shown" for n in range(s["start"], s["end"] + 1)}
    assert set(range(f1.lines[0], f1.lines[1] + 1)) <= shown, r["text"]
    # a longer rest stays elided: only what the range gave is shown of it
    agent = Agent()
    agent.read(cur, ReadRequest("m.py", offset=f1.body[1] - 2, limit=3))
    r = agent.read(cur)
    elided = [(s["start"], s["end"]) for s in r["segments"] if s["kind"] == "elided"]
    assert (f1.body[0], f1.body[1] - 3) in elided, r["text"]


def test_a_short_gap_between_two_parts_read_before_is_shown():
    """Command.run came back as three markers around two ranges read before; a gap of a
    few lines between them is shown, the long ends stay elided."""
    lines = distinct_py_lines(3, 40)
    cur = current(lines)
    f1 = [s for s in cur.symbols if s.qualname == "f1"][0]
    agent = Agent()
    start = f1.body[0]
    agent.read(cur, ReadRequest("m.py", offset=start + 12, limit=3))
    agent.read(cur, ReadRequest("m.py", offset=start + 20, limit=3))
    r = agent.read(cur)
    assert r["mode"] == "skeleton", r["text"]
    pieces = [(s["kind"], s["start"], s["end"]) for s in r["segments"] if start <= s["start"] <= f1.body[1]]
    assert pieces[:3] == [("elided", start, start + 11), ("shown", start + 12, start + 22),
                          ("elided", start + 23, f1.body[1])], r["text"]


def test_a_first_whole_read_shows_the_parts_read_before_as_they_are_now():
    """The agent read f1 by range, then f1 changed (its own edit, a teammate's) and a
    line was added above it: a first whole read shows f1 whole, as it is now -- its
    changed line and its moved lines -- not a marker over the very lines the model was
    working on (real models re-read them by symbol), and still hides what it never read.
    (Bodies of distinct lines, as real code has: where every body is the same lines,
    an alignment may place the read part in another body -- more lines shown, none wrong.)"""
    lines = [line.replace(" + ", f" * {k} + ") if line.startswith("    y") else line
             for k, line in zip([n // 23 for n in range(len(py_lines()))], py_lines())]
    cur = current(lines)
    f1 = [s for s in cur.symbols if s.qualname == "f1"][0]
    agent = Agent()
    agent.read(cur, ReadRequest("m.py", offset=f1.lines[0], limit=f1.lines[1] - f1.lines[0] + 1))
    changed = list(lines)
    changed[f1.body[0]] = changed[f1.body[0]] + "  # edited"
    changed.insert(0, "# a new first line")
    now = current(changed)
    r = agent.read(now)
    assert r["mode"] == "skeleton"
    g1 = [s for s in now.symbols if s.qualname == "f1"][0]
    shown = {n for s in r["segments"] if s["kind"] == "shown" for n in range(s["start"], s["end"] + 1)}
    assert set(range(g1.lines[0], g1.lines[1] + 1)) <= shown
    assert f"{g1.body[0] + 1:>6}\t{changed[g1.body[0]]}" in r["text"]
    assert [s["symbol"] for s in r["segments"] if s["kind"] == "elided"] == [
        "m.py:python:f0", "m.py:python:f2", "m.py:python:f3"]


def test_a_first_whole_read_too_big_with_every_part_read_before_is_the_whole_file():
    """The agent read most bodies by range, then a line was added on top: showing every
    part it read (all moved) would outgrow the skeleton's share, so the file comes back
    whole. A skeleton of the lines still held as they are (none here) would hide every
    body the agent read: a real agent given such a skeleton read them all again."""
    lines = [line.replace(" + ", f" * {k} + ") if line.startswith("    y") else line
             for k, line in zip([n // 23 for n in range(len(py_lines(8)))], py_lines(8))]
    cur = current(lines)
    agent = Agent()
    for sym in [s for s in cur.symbols if s.qualname != "f0"]:
        agent.read(cur, ReadRequest("m.py", offset=sym.lines[0], limit=sym.lines[1] - sym.lines[0] + 1))
    now = current(["# a new first line"] + lines)
    r = agent.read(now)
    assert r["mode"] == "full" and r["tokens"] == r["full_tokens"], r["mode"]


def test_a_body_the_copy_has_no_record_of_is_shown_not_named():
    """Found by the property test: after a refresh, a range gave the lines up to f1's
    header; a whole-file read must send the bodies past it (gaps, not elided bodies)."""
    lines = py_lines(4, 20)
    cur = current(lines)
    f1 = [s for s in cur.symbols if s.qualname == "f1"][0]
    agent = Agent()
    agent.copy = AgentCopy(0)  # a refresh of a file never read
    agent.read(cur, ReadRequest("m.py", offset=1, limit=f1.body[0] - 1))  # up to f1's header
    r = agent.read(cur, ReadRequest("m.py", offset=1, limit=100000))
    assert not [s for s in r["segments"] if s["kind"] == "elided"]
    assert all(f"{n:>6}\t{lines[n - 1]}" in r["text"] for n in range(f1.body[0], len(lines) + 1))


def test_a_line_held_at_two_numbers_keeps_the_one_at_its_true_number():
    """A line inserted on top (the agent was not told), then a range read of f1: the
    agent holds `def f1(x):` at 27 (stale) and at 28 (true). Of the two equally long
    alignments, the one that keeps the agent's lines 28-37 at their numbers wins: the
    stale 27 is the line corrected, and f1's lines are not called moved."""
    v0 = py_lines(body=60)
    agent = Agent(ReadPolicy(diff_max_hunks=0, small_file_tokens=SMALL))
    agent.read(current(v0), ReadRequest("m.py", offset=1, limit=len(v0)))
    v1 = ["# top"] + v0
    agent.read(current(v1), ReadRequest("m.py", offset=68, limit=10))
    r = agent.read(current(v1))
    # (a run that moved names where its symbols start now: the model need not map numbers)
    # (a window of 6 lines each side shows the line the copy lacked, y8; the stale
    # `def f1` is not called gone beside the true one shown)
    assert r["text"].splitlines()[1:] == [
        "     1\t# top", "... 2-67 unchanged (were 1-66); declared now on lines: f0 4",
        "    68\tdef f1(x):", "... 69-71 unchanged", *[f"{n:6d}\t{v1[n - 1]}" for n in range(72, 85)],
        "... 85-259 unchanged (were 84-258); declared now on lines: f2 132, f3 196"]
    assert v1[77] == "    y8 = x + 8"


def test_alignment_ties_slide_toward_the_run_that_keeps_its_numbers():
    from symbolpack.reads.delta import _slid

    # the copy holds "a" at 1 and 2 (a stale duplicate), the file has "x" on top: deleting
    # the copy's line 2 or line 1 is the same text; the run after keeps its numbers
    old, new = [None, "a", "a", "b", "c"], ["x", "a", "b", "c"]
    known = [False, True, True, True, True]
    ops = [("insert", 0, 0, 0, 1), ("equal", 0, 1, 1, 2), ("delete", 1, 2, 2, 2), ("equal", 2, 4, 2, 4)]
    assert _slid(ops, old, new, known) == [["insert", 0, 0, 0, 1], ["delete", 0, 1, 1, 1], ["equal", 1, 4, 1, 4]]
    # the file gains "q" next to an equal "q": the run before keeps its numbers, so the
    # added line is the later one
    old, new = [None, "p", "q", "r"], ["p", "q", "q", "r"]
    ops = [("equal", 0, 1, 0, 1), ("insert", 1, 1, 1, 2), ("equal", 1, 3, 2, 4)]
    assert _slid(ops, old, new, [False, True, True, True]) == [["equal", 0, 2, 0, 2], ["insert", 2, 2, 2, 3],
                                                              ["equal", 2, 3, 3, 4]]
    # neither run keeps its numbers (a line added on top too), or the lines are gaps
    # (unknown text) or held differently (one elided): nothing moves
    shifted = [("insert", 0, 0, 0, 1), ("equal", 0, 2, 1, 3), ("insert", 2, 2, 3, 4), ("equal", 2, 3, 4, 5)]
    assert _slid(shifted, [None, "p", "q", "r"], ["z", "p", "q", "q", "r"], [False, True, True, True]) == \
        [list(op) for op in shifted]
    gaps = [("insert", 0, 0, 0, 1), ("equal", 0, 1, 1, 2), ("delete", 1, 2, 2, 2), ("equal", 2, 4, 2, 4)]
    assert _slid(gaps, [None, None, None, "b", "c"], ["x", "a", "b", "c"], known) == [list(op) for op in gaps]
    assert _slid(gaps, [None, "a", "a", "b", "c"], ["x", "a", "b", "c"], [False, True, False, True, True]) == \
        [list(op) for op in gaps]


def test_a_small_file_is_read_whole():
    """The default: a first read of a file under `small_file_tokens` (1,500) is the file. Real
    agents paid a drill-in call for a small file's skeleton, more than its lines cost."""
    cur = current(py_lines())
    assert 400 < cur.full_tokens() < 1500
    assert first_read(cur, ReadPolicy())[1]["mode"] == "full"
    assert first_read(cur, ReadPolicy(small_file_tokens=SMALL))[1]["mode"] == "skeleton"


def test_a_short_elided_hole_is_shown_inside_a_window_or_between_shown_lines():
    """ExpectedId.check, moved, came back with two one-line markers in its shown body
    ("hard to follow", a real agent); a longer hole, or one beside unchanged lines
    outside any window, stays a marker."""
    from symbolpack.reads.delta import _segments_from_status, _show_short_holes

    status = ["", *"SSHSSHHSS"]
    _show_short_holes(status, window=set())
    assert "".join(status) == "SSSSSSSSS"
    status = ["", *"SHHHHHSUHHS"]  # five elided: a marker; two beside an unchanged line: a marker
    _show_short_holes(status, window=set())
    assert "".join(status) == "SHHHHHSUHHS"
    status = ["", *"UUHUU"]  # one line alone between markers: a marker (shown, it read as a change)
    _show_short_holes(status, window=set())
    assert "".join(status) == "UUHUU"
    segments = _segments_from_status(status, [None, 1, 2, 3, 4, 5], [None, *[python_symbols(["class A:", "  x = 1"])[0]] * 5])
    assert [(seg.kind, seg.symbol) for seg in segments][1] == ("elided", None)  # opened by its numbers
    status = ["", *"UHHU"]  # in a window: shown
    _show_short_holes(status, window={2, 3})
    assert "".join(status) == "USSU"


def test_two_lines_between_markers_are_a_marker_or_say_they_are_no_change():
    """Two lines shown between two markers read as a change (sidekiq's cleanup, moved by
    the agent's own edit): a short unchanged run is shown instead of a marker only
    between shown lines, and text shown again there says it is no change."""
    from symbolpack.reads.delta import _segments_from_status
    from symbolpack.reads.views import Segment, render_delta

    owner = [None] * 13
    # U runs of three shifts: the middle one stays a marker (its neighbours are markers)
    status, mapped = ["", *"UUUUUUUU"], [None, 1, 2, 3, 6, 7, 10, 11, 12]
    assert [seg.kind for seg in _segments_from_status(status, mapped, owner)] == ["unchanged"] * 3
    # between shown lines, two unchanged lines are cheaper shown
    status = ["", *"UUUSSUUSSUUU"]
    mapped = [None, 1, 2, 3, None, None, 8, 9, None, None, 14, 15, 16]
    assert [seg.kind for seg in _segments_from_status(status, mapped, owner)] == ["unchanged", "shown", "unchanged"]
    lines = [f"line {n}" for n in range(1, 9)]
    text = render_delta(lines, [Segment("unchanged", 1, 3, source=1), Segment("shown", 4, 5),
                                Segment("unchanged", 6, 8, source=8)], again={4, 5})
    assert text[1] == "... 4-5 below are not changed (shown again: your earlier answers had this text at other line numbers)"


def test_lines_removed_between_two_held_runs_are_said():
    """Lines of the copy deleted with nothing shown in their place (a block owned by no
    changed symbol): the delta's text says so. A jump from `were 19-35` to `were 41-46`
    alone left real models doubting the map."""
    from symbolpack.reads.views import Segment, render_delta

    lines = [f"line {n}" for n in range(1, 21)]
    text = render_delta(lines, [Segment("unchanged", 1, 10, source=1), Segment("unchanged", 11, 20, source=16)])
    assert text == ["... 1-10 unchanged", "... your lines 11-15 were removed here", "... 11-20 unchanged (were 16-25)"]
    # a blank line that went is said too (the jump of the "were" numbers over it was read as a line unaccounted for)
    blank = [None, "a", "", "b", "c"]
    text = render_delta(["a", "b", "c"], [Segment("unchanged", 1, 1, source=1), Segment("unchanged", 2, 3, source=3)],
                        old=blank)
    assert text == ["... 1-1 unchanged", "... your line 2 was removed here (blank)", "... 2-3 unchanged (were 3-4)"]
    # a shown line between them stands in for what went: nothing more is said
    text = render_delta(lines, [Segment("unchanged", 1, 9, source=1), Segment("shown", 10, 10),
                                Segment("unchanged", 11, 20, source=16)])
    assert text == ["... 1-9 unchanged", "    10\tline 10", "... 11-20 unchanged (were 16-25)"]
    # a short removal names its text, where the copy holds it ("which lines?", a real agent asked)
    old = [None, *[f"old {n}" for n in range(1, 26)]]
    text = render_delta(lines, [Segment("unchanged", 1, 10, source=1), Segment("unchanged", 11, 20, source=14)],
                        old=old)
    assert text[1] == '... your lines 11-13 were removed here: "old 11", "old 12", "old 13"'
    from symbolpack.reads.views import removed_marker  # a CRLF file's lines are quoted without their "\r"
    assert removed_marker(2, 3, [None, "a\r", "b\r", "c\r"]) == '... your lines 2-3 were removed here: "b", "c"'
    held_in_part = [*old[:12], None, *old[13:]]
    text = render_delta(lines, [Segment("unchanged", 1, 10, source=1), Segment("unchanged", 11, 20, source=14)],
                        old=held_in_part)
    assert text[1] == "... your lines 11-13 were removed here"
    # lines that moved up, shown there (fresh), are not removed, the elided ones among
    # them saying nothing either way (FluentValidation's Matches overloads, moved)
    moved = [*lines[:3], "old 11", "old 13", *lines[5:]]
    text = render_delta(moved, [Segment("unchanged", 1, 3, source=1), Segment("shown", 4, 5),
                                Segment("unchanged", 6, 10, source=6), Segment("unchanged", 11, 20, source=14)],
                        old=held_in_part, fresh=(4, 5), sources=[None, 1, 2, 3, None, None, 6, 7, 8, 9, 10,
                                                                  *range(14, 24)])
    assert not any("removed" in line for line in text), text


def test_a_function_removed_between_two_changes_neither_neighbour():
    lines = py_lines(6, 14)
    agent, _ = first_read(current(lines), NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    gone = lines[:20] + lines[38:]  # f1 (lines 21-38) removed
    gone[60] += "  # touched"  # and a change inside f4, so the answer is a delta
    r = agent.read(current(gone))
    assert r["mode"] == "delta", r["text"]
    header = r["text"].splitlines()[0]
    assert "Changed/new: f4 (changed line 61)." in header and "Removed: f1." in header and "f0," not in header and "f2," not in header
    assert '... your lines 21-38 were removed here: "def f1(x):" and the 17 lines after it' in r["text"].splitlines()


# --------------------------------------------------------------------------- a host's cap on an answer

def _cap_policy(chars: int) -> ReadPolicy:
    return ReadPolicy(small_file_tokens=SMALL, max_answer_chars=chars)


def test_a_skeleton_over_the_hosts_cap_stops_where_it_fits_the_rest_one_elided_run():
    lines = py_lines(60, 14)
    uncapped = first_read(current(lines))[1]
    assert uncapped["mode"] == "skeleton" and len(uncapped["text"]) > 4500
    agent, r = first_read(current(lines), _cap_policy(4500))
    assert r["mode"] == "skeleton" and len(r["text"]) <= 4500
    tail = r["segments"][-1]
    assert tail["kind"] == "elided" and tail["end"] == len(lines) and "symbol" not in tail
    cut = tail["start"]
    assert f"It stops at line {cut - 1} to fit the tool's output limit: lines {cut}-{len(lines)}" in r["text"]
    # the tail's marker names what is declared there, and where (the first 60)
    declared = [f"f{k} {n}" for k in range(60) if (n := 3 + 18 * k) >= cut]
    assert 0 < len(declared) <= 60
    assert r["text"].splitlines()[-1] == (f"... {cut}-{len(lines)} elided; declared there: {', '.join(declared)}: "
                                          f"--offset {cut} --limit {len(lines) - cut + 1}")
    # the head is drawn as the uncapped skeleton draws it, line for line
    head = [line for line in r["text"].splitlines()[1:-1]]
    assert head == uncapped["text"].splitlines()[1:len(head) + 1]
    # the copy holds nothing from the cut on: the tail read by its marker's range comes whole
    again = agent.read(current(lines), ReadRequest("m.py", offset=cut, limit=30))
    assert again["mode"] == "range"
    assert again["text"].splitlines() == [f"{n:>6}\t{lines[n - 1]}" for n in range(cut, cut + 30)]


def test_an_answer_under_the_cap_is_not_touched_and_no_cap_means_none():
    lines = py_lines(40, 14)
    uncapped = first_read(current(lines))[1]
    assert first_read(current(lines), _cap_policy(len(uncapped["text"]) + 2500))[1] == uncapped


def test_a_plain_whole_file_over_the_cap_is_its_head_and_one_elided_run():
    lines = [f"row {n} " + "x" * 40 for n in range(1, 301)]
    agent, r = first_read(current(lines, parsed=False), _cap_policy(4000))
    assert r["mode"] == "skeleton" and len(r["text"]) <= 4000
    shown, tail = r["segments"]
    assert shown["kind"] == "shown" and shown["start"] == 1 and tail == {"kind": "elided", "start": shown["end"] + 1,
                                                                        "end": 300}
    assert r["text"].splitlines()[1:-1] == [f"{n:>6}\t{lines[n - 1]}" for n in range(1, shown["end"] + 1)]
    assert agent.copy.hidden_runs() == [(shown["end"] + 1, 300, "")]


def test_a_skeleton_over_its_share_is_still_the_answer_where_the_cap_would_cut_the_file():
    """Over its share of the file a skeleton gives way to the file whole, but not to a
    file the host's cap cuts: an outline of every line beats the file's head (a real
    agent given 528 of 592 lines read the rest by a range)."""
    lines = py_lines(60, 14)
    strict = ReadPolicy(small_file_tokens=SMALL, skeleton_max_share=0.05)
    assert first_read(current(lines), strict)[1]["mode"] == "full"  # no cap: the file whole
    whole_chars = len(first_read(current(lines), strict)[1]["text"])
    roomy = strict._replace(max_answer_chars=whole_chars + 3000)
    assert first_read(current(lines), roomy)[1]["mode"] == "full"  # the file fits: whole
    tight = strict._replace(max_answer_chars=whole_chars - 100)
    r = first_read(current(lines), tight)[1]
    skeleton = first_read(current(lines))[1]
    assert r["mode"] == "skeleton" and r["segments"] == skeleton["segments"]  # the outline, not cut
    assert "stops at line" not in r["text"] and r["segments"][-1]["end"] == len(lines)


def test_a_plain_file_cut_by_the_cap_is_headed_as_the_file_not_as_an_outline():
    lines = [f"row {n} " + "x" * 40 for n in range(1, 301)]
    r = first_read(current(lines, parsed=False), _cap_policy(4000))[1]
    assert r["text"].splitlines()[0].startswith("[FILE] m.py: 300 lines. It stops at line ")


def test_a_whole_read_after_parts_shows_no_marker_for_a_line_or_two_and_pairs_no_blank_lines_alone():
    """What a push moved under the parts read is found again by alignment: a blank line
    paired with a blank line read is no part read (flask's `url_for` came back as three
    markers around three such lines, and a one-line `... 1210-1210 elided`)."""
    from symbolpack.reads.read import _shown_where_held, _without_lone_blanks
    from symbolpack.reads.views import Segment

    lines = ["def f():", "    a = 1", "", "    b = 2", "", "", "    return a + b", "    }", ""]
    mask = [False, True, True, True, False, True, True, False, True, True]
    assert _without_lone_blanks(mask, lines) == [False, True, True, True, False, False, False, False, False, False]
    held = [False] * 31
    for n in range(2, 28):
        held[n] = True  # all of the body read but its last two lines
    out = _shown_where_held([Segment("shown", 1, 1), Segment("elided", 2, 29, symbol="f")], held)
    assert [(s.kind, s.start, s.end) for s in out] == [("shown", 1, 29)]
    held = [False] * 31
    for n in range(2, 10):
        held[n] = True
    out = _shown_where_held([Segment("shown", 1, 1), Segment("elided", 2, 29, symbol="f")], held)
    assert [(s.kind, s.start, s.end) for s in out] == [("shown", 1, 9), ("elided", 10, 29)]


def test_a_marker_takes_the_indentation_of_the_first_hidden_line_with_text():
    from symbolpack.reads.views import Segment, elided_marker

    lines = ["class A:", "    def f(self):", "", "        x = 1", "        return x"]
    assert elided_marker(lines, Segment("elided", 3, 5)).startswith("        ... 3-5 elided")
    assert elided_marker(["", "", ""], Segment("elided", 1, 3)).startswith("... 1-3 elided")
    # a preprocessor line at column 0 leading a C# body gives no indentation
    body = ["    void F() {", "#pragma warning disable 618", "        var v = 1;", "#pragma warning restore 618", "    }"]
    assert elided_marker(body, Segment("elided", 2, 4)).startswith("        ... 2-4 elided")


def test_a_range_under_the_cap_comes_whole_and_one_over_it_stops_where_it_fits_and_says_so():
    """A host cuts a longer result itself (a real agent's 700-line symbol read): the
    copy would then hold lines the model never got. So the answer stops at the last
    line that fits, and names the rest with the read that shows it."""
    lines = [f"row {n} " + "x" * 40 for n in range(1, 301)]
    policy = _cap_policy(4000)
    small = Agent(policy).read(current(lines, parsed=False), ReadRequest("m.py", offset=10, limit=20))
    assert small["mode"] == "range" and small["text"] == "\n".join(f"{n:>6}\t{lines[n - 1]}" for n in range(10, 30))
    for offset, limit in ((1, 300), (50, 200)):  # the whole file as a range, and a part of it
        agent = Agent(policy)
        r = agent.read(current(lines, parsed=False), ReadRequest("m.py", offset=offset, limit=limit))
        *rows, note = r["text"].splitlines()
        last = offset + len(rows) - 1
        assert r["mode"] == "range" and len(r["text"]) <= 4000 and last < offset + limit - 1
        assert rows == [f"{n:>6}\t{lines[n - 1]}" for n in range(offset, last + 1)]
        assert note == (f"[lines {last + 1}-{offset + limit - 1} not shown: this answer stops at line {last} to fit"
                        f" the tool's output limit; tldrs read m.py --offset {last + 1} --limit {offset + limit - 1 - last} shows them]")
        # the copy holds what was shown, not the rest: that range read again comes whole
        rest = agent.read(current(lines, parsed=False), ReadRequest("m.py", offset=last + 1, limit=10))
        assert rest["text"] == "\n".join(f"{n:>6}\t{lines[n - 1]}" for n in range(last + 1, last + 11))
        assert agent.copy.holds(offset, last, r["sha256"], lines, lambda _: None)
        assert not agent.copy.holds(offset, last + 11, r["sha256"], lines, lambda _: None)


def test_a_delta_over_the_cap_stops_after_the_last_segment_that_fits_and_the_rest_is_elided():
    """A delta the host would cut (a real agent's, of a 2,600-line file after a push):
    it stops where it fits, says so, and the copy holds nothing from the cut on but
    the runs it marks `unchanged` (a tail that elided them took from the copy the
    parts the agent held, and its ids were called "not needed")."""
    lines = py_lines(40, 60)
    agent = Agent(ReadPolicy(small_file_tokens=SMALL, diff_max_hunks=0))
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))  # it holds every line
    agent.policy = ReadPolicy(small_file_tokens=SMALL, max_answer_chars=3000, diff_max_hunks=0)
    at_y3 = [n for n, line in enumerate(lines) if line.endswith("y3 = x + 3")]
    changed = list(lines)
    for n in at_y3[::4]:  # ten functions changed
        changed[n] = changed[n].replace("y3 = x + 3", "y3 = x + 33")
    r = agent.read(current(changed))
    assert r["mode"] == "delta" and len(r["text"]) <= 3000, len(r["text"])
    cut = next(int(part.split("-")[0]) for part in r["text"].split("It stops at line ")[1:2]
               for part in [part.split("lines ", 1)[1]])
    tail = [seg for seg in r["segments"] if seg["start"] >= cut]
    assert tail and all(seg["kind"] in ("elided", "unchanged") for seg in tail) and tail[-1]["end"] == len(lines)
    assert all(seg["kind"] == "unchanged" for seg in tail[1::2]) and all("source" not in seg for seg in tail[::2])
    assert (f"It stops at line {cut - 1} to fit the tool's output limit: lines {cut}-{len(lines)} are elided but"
            f" for the parts you hold, marked `unchanged` (tldrs read m.py --offset {cut} --limit"
            f" {len(lines) - cut + 1} shows them).") in r["text"]
    # the tail is one line naming the runs held ("elided" and "unchanged" markers down the
    # file, alternating, were hard to follow for a real agent)
    held_runs = ", ".join(f"{seg['start']}-{seg['end']}" for seg in tail if seg["kind"] == "unchanged")
    assert r["text"].splitlines()[-1] == (f"... {cut}-{len(lines)} not shown (--offset {cut} --limit"
                                          f" {len(lines) - cut + 1}), but for these lines, unchanged: {held_runs}")
    # a changed line past the cut is not the model's: a range there comes back whole, with its change
    at = next(n for n in range(cut, len(lines) + 1) if changed[n - 1].endswith("y3 = x + 33"))
    again = agent.read(current(changed), ReadRequest("m.py", offset=at - 2, limit=5))
    assert again["mode"] == "range" and f"{at:>6}\t{changed[at - 1]}" in again["text"].splitlines()
    # ... and the runs it marked unchanged stay the model's
    held = tail[1]
    assert agent.copy.holds(held["start"], held["end"], again["sha256"], changed, lambda _: None)


def test_a_delta_tail_too_long_with_its_unchanged_runs_is_one_elided_run():
    lines = py_lines(300, 3)  # 300 functions, each changed: a marker each past the cut would not fit
    agent = Agent(ReadPolicy(small_file_tokens=SMALL, diff_max_hunks=0))
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    agent.policy = ReadPolicy(small_file_tokens=SMALL, max_answer_chars=4000, diff_max_hunks=0)
    changed = [line.replace("y1 = x + 1", "y1 = x + 11") for line in lines]
    r = agent.read(current(changed))
    assert r["mode"] == "delta" and len(r["text"]) <= 4000, len(r["text"])
    tail = r["segments"][-1]
    assert tail["kind"] == "elided" and tail["end"] == len(lines) and "source" not in tail
    assert f"lines {tail['start']}-{len(lines)} are one elided run" in r["text"]


NO_DIFF = ReadPolicy(small_file_tokens=SMALL, diff_max_hunks=0)  # the delta, whatever a diff would cost


def test_a_method_added_to_a_class_names_the_method_not_the_class():
    """The blank line after a method added to a class is the class's own line: it is
    shown, but does not make the class "changed" (a real agent went to look at it)."""
    def method(name: str) -> list[str]:
        return [f"    def {name}(self, x):", '        """Same doc."""', *[f"        x = x + {k}" for k in range(12)],
                "        return x", ""]

    lines = ["class Box:", '    """A box."""', "", *method("keep"), *method("twin")]
    agent, _ = first_read(current(lines), NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))  # all of it held
    added = lines[:3 + 16] + method("added") + lines[3 + 16:]
    r = agent.read(current(added))
    assert r["mode"] == "delta", r["text"]
    header = r["text"].splitlines()[0]
    assert "Changed/new: Box.added (new)." in header and "Box," not in header and "Box.twin" not in header
    shown = [line for line in r["text"].splitlines()[1:] if "\t" in line]
    assert shown == [f"{n:>6}\t{added[n - 1]}" for n in range(20, 36)]


def java(lines: list[str]) -> Current:
    from symbolpack.engine.index import parse_bytes
    from symbolpack.engine.symbols import bind

    data = ("\n".join(lines) + "\n").encode()
    records, _, error = parse_bytes(data, "java")
    assert not error
    return Current(hashlib.sha256(data).hexdigest(), lines, bind("m.java", "java", records))


def test_a_method_added_above_a_twin_with_the_same_doc_leaves_the_twin_unchanged():
    """Guzzle's add_crypto_method, added above add_verify with the same doc comment: a
    real agent was told add_verify changed and read it again to see how."""
    def method(name: str) -> list[str]:
        return ["  /**", "   * @param value as passed via options.", "   */", f"  void {name}(int value) {{",
                *[f"    step({k});" for k in range(12)], "  }", ""]

    head = [line for name in ("open", "close", "proxy") for line in method(name)]
    lines = ["class Box {", *head, *method("verify"), "}"]
    agent = Agent(NO_DIFF)
    assert agent.read(java(lines), ReadRequest("m.java"))["mode"] == "skeleton"
    added = ["class Box {", *head, *method("crypto"), *method("verify"), "}"]
    r = agent.read(java(added), ReadRequest("m.java"))
    assert r["mode"] == "delta", r["text"]
    assert "Changed/new: Box.crypto (new)." in r["text"].splitlines()[0], r["text"]
    shown = [int(line.split("\t")[0]) for line in r["text"].splitlines()[1:] if "\t" in line]
    start = 2 + len(head)
    assert shown == list(range(start, start + 18)), r["text"]  # the doc, the method and the blank after it


def test_a_changed_symbol_is_headed_by_its_declaration_not_its_doc_comment():
    lines = ["/**", " * The box.", " */", "class Box {", "  int size = 1;",
             *[f"  int f{k}() {{ return {k}; }}" for k in range(40)], "}"]
    agent = Agent(NO_DIFF)
    agent.read(java(lines), ReadRequest("m.java", offset=1, limit=len(lines)))
    agent.read(java(lines))  # a whole read: the copy is the file
    changed = [*lines[:4], "  int size = 2;", *lines[5:]]
    r = agent.read(java(changed), ReadRequest("m.java"))
    assert r["mode"] == "delta", r["text"]
    shown = [line for line in r["text"].splitlines()[1:] if "\t" in line]
    assert shown == ["     4\tclass Box {", "     5\t  int size = 2;"], r["text"]


def test_a_change_in_a_class_s_own_lines_does_not_open_the_class():
    """The class's own lines the agent was told are elided (the blank after each
    method goes with its marker) stay elided when a class-level line changes."""
    methods = [line for k in range(8) for line in (f"    def m{k}(self, x):", *[f"        x = x + {i}" for i in range(12)],
                                                    "        return x", "")]
    lines = ["class Box:", "    size = 1", "", *methods]
    claude = hints_for("claude")  # markers name lines: a body's blank tail is elided with it
    agent = Agent(NO_DIFF)
    first = agent.read(current(lines), ReadRequest("m.py", hints=claude))
    elided = [(seg["start"], seg["end"]) for seg in first["segments"] if seg["kind"] == "elided"]
    assert first["mode"] == "skeleton" and elided[0] == (5, 18), first["text"]  # line 18: the blank after m0
    r = agent.read(current([lines[0], "    size = 2", *lines[2:]]), ReadRequest("m.py", hints=claude))
    assert r["mode"] == "delta", r["text"]
    shown = [line for line in r["text"].splitlines()[1:] if "\t" in line]
    assert shown == ["     1\tclass Box:", "     2\t    size = 2"], r["text"]


def test_a_delta_names_changed_lines_outside_any_symbol():
    """An import changed beside a function: a real agent saw line 7 shown, not named in
    the header's list, and read the file again to find out why."""
    lines = py_lines(6, 14)
    agent, _ = first_read(current(lines), NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    changed = ["import sys", *lines[1:]]
    changed[20] += "  # touched"
    r = agent.read(current(changed))
    assert r["mode"] == "delta", r["text"]
    assert r["text"].splitlines()[0].split(". ")[1:3] == ["Changed/new: f1 (changed line 21)", "Also changed outside any symbol: lines 1"]


def test_a_changed_body_the_agent_read_in_part_is_changed_not_shown_whole():
    lines = py_lines(body=60)
    agent, _ = first_read(current(lines))
    agent.read(current(lines), ReadRequest("m.py", offset=5, limit=6))  # lines 5-10 of f0's body
    changed = list(lines)
    changed[6] = "    y2 = x - 2"  # line 7, one the agent holds
    r = agent.read(current(changed))
    assert r["mode"] == "delta", r["text"]
    header = r["text"].splitlines()[0]
    assert "Changed/new: f0 (changed line 7)." in header and "shown whole" not in header, header
    # the body comes back whole (it changed where the agent had it elided), the lines the
    # agent held among it too: the change's window
    assert r["text"].splitlines()[1:] == [f"{n:6d}\t{changed[n - 1]}" for n in range(1, 66)] + [
        "... 66-258 unchanged, elided bodies still elided"]


def test_a_block_removed_beside_a_changed_line_is_said():
    """res.send lost a 13-line block next to a changed line: the delta showed the changed
    line and no word of the block, and real agents read the whole function again."""
    lines = distinct_py_lines(3, 60)
    agent = Agent(NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    changed = list(lines)
    changed[71] = "    y5 = x - 105"  # line 72, in f1
    del changed[72:78]  # lines 73-78: gone
    r = agent.read(current(changed))
    assert r["mode"] == "delta", r["text"]
    body = r["text"].splitlines()[1:]
    at = body.index("    72\t    y5 = x - 105")
    # its window, f1's own lines 6 each side, and above it where the block went (not
    # inside it: a note between an `if` and its `else` read as a hole in the code)
    assert body[at - 6:at + 7] == [
        '... your lines 72-78 are gone (removed, or changed into lines shown below): "y3 = x + 103" and the 6 lines'
        ' after it'] + [
        f"{n:6d}\t{changed[n - 1]}" for n in range(67, 79)], r["text"]
    # a line changed in place is no removal: nothing more is said
    again = list(lines)
    again[71] = "    y5 = x - 105"
    agent = Agent(NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    r = agent.read(current(again))
    assert not any("are gone" in line for line in r["text"].splitlines()), r["text"]


def test_lines_gone_at_two_places_in_one_window_are_one_note_above_it():
    """Four stacked "your lines A-B are gone" notes above one window were read as out
    of order (a real agent): one note names every run."""
    lines = distinct_py_lines(3, 60)
    agent = Agent(NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    changed = list(lines)
    changed[80] = "    y15 = x - 115"  # line 81, in f1
    del changed[84:89]  # its lines 85-89 went
    del changed[73:78]  # and its lines 74-78
    r = agent.read(current(changed))
    assert r["mode"] == "delta", r["text"]
    notes = [line for line in r["text"].splitlines() if "are gone" in line]
    assert notes == ["... your lines 74-78, 85-89 are gone (removed, or changed into lines shown below)"], r["text"]


def test_text_lost_elsewhere_does_not_hide_a_change_here():
    """Text whose line a later answer took is no change where it was lost, not anywhere:
    WriteLogger's new `self._write = ...`, like BytesLogger's whose line a re-read had
    taken, was shown unnamed, and a real agent re-read the method to see what it was."""
    lines = distinct_py_lines(4, 20)
    agent = Agent(NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    twin = "    y5 = x + 5"  # f0's line, added to f3 too
    at_f0 = lines.index(twin) + 1
    pushed = list(lines)
    at = pushed.index("    y5 = x + 305")
    pushed.insert(at, twin)
    far = ReadRequest("m.py", shown=frozenset({twin}), lost={twin: {("v0", at_f0)}})
    r = agent.read(current(pushed), far)
    assert r["mode"] == "delta" and f"f3 (changed line {at + 1})" in r["text"].splitlines()[0], r["text"]
    agent = Agent(NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    near = ReadRequest("m.py", shown=frozenset({twin}), lost={twin: {("v0", at + 1)}})
    r = agent.read(current(pushed), near)
    assert "f3" not in r["text"].splitlines()[0], r["text"]  # lost right there: shown, no change


def test_text_shown_again_between_listed_changes_outside_symbols_is_listed_too():
    """pino's `const asJsonChan = ...`, an earlier answer's line, came back between two
    changed module lines, no label and not in the header's list: a real agent re-read
    the range to see whether it had changed."""
    lines = ["import os", "", "print('a', 1)", "print('b', 2)", "print('c', 3)", "", *py_function(0, 30)]
    agent = Agent(NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    again = "print('late', os.environ.get('LATE'))"
    pushed = ["import os", "", "print('a', 10)", again, "print('c', 30)", "", *py_function(0, 30)]
    r = agent.read(current(pushed), ReadRequest("m.py", shown=frozenset({again}), lost={again: {("v0", 4)}}))
    assert r["mode"] == "delta" and "Changed outside any symbol: lines 3-5." in r["text"].splitlines()[0], r["text"]


def test_a_function_moved_whole_is_said_moved_not_changed():
    """jackson reordered its error methods: each was named changed (and a real agent
    re-read them all) though its text was the one the agent held, elsewhere."""
    fn = py_function
    v1 = distinct_py_lines(4, 12)
    agent = Agent(NO_DIFF)
    agent.read(current(v1), ReadRequest("m.py", offset=1, limit=len(v1)))
    v2 = ["import os", ""] + fn(0) + fn(3) + fn(1) + fn(2)  # f3 moved up, untouched
    v2[v2.index("    y5 = x + 105")] = "    y5 = x - 105"  # and f1 changed
    r = agent.read(current(v2))
    header = r["text"].splitlines()[0]
    assert r["mode"] == "delta" and "Moved, not changed: f3." in header, header
    assert "f1 (changed line" in header and "f3 (" not in header, header


def test_several_definitions_of_one_name_are_listed_once():
    """FluentValidation's five `Matches` overloads, moved, were listed five times over:
    all of a name's definitions are the name once, some of them their local ids."""
    fn = py_function
    g = [fn(k, body=4, name="g") for k in (1, 2, 3)]
    big = [fn(k, body=40) for k in (4, 5)]
    v1 = ["import os", ""] + fn(0) + g[0] + g[1] + g[2] + big[0] + big[1]
    for v2, said in ((["import os", ""] + fn(0) + big[0] + big[1] + g[0] + g[1] + g[2], "g (all 3 overloads)"),
                     (["import os", ""] + fn(0) + g[0] + big[0] + big[1] + g[1] + g[2], "g#2, g#3")):
        agent = Agent(NO_DIFF)
        agent.read(current(v1), ReadRequest("m.py", offset=1, limit=len(v1)))
        v2 = list(v2)
        v2[v2.index("    y5 = x + 405")] = "    y5 = x - 405"  # and f4 changed
        r = agent.read(current(v2))
        header = r["text"].splitlines()[0]
        assert r["mode"] == "delta" and f"Moved, not changed: {said}." in header, header


def test_a_removal_note_never_quotes_text_that_moved_as_what_went():
    """g moved below f1 and its twin h went: the note about the copy's lines there names
    h, not g's first line, which the answer shows where it is now."""
    fn = py_function
    g = ["def g(x):", '    """Shared doc."""', "    a = 1", "    b = 2", "    c = 3", "    return x", ""]
    h = ["def h(x):", *g[1:]]
    v1 = ["import os", ""] + fn(0) + g + h + fn(1) + fn(2)
    v2 = ["import os", ""] + fn(0) + fn(1) + g + fn(2)
    agent = Agent(NO_DIFF)
    agent.read(current(v1), ReadRequest("m.py", offset=1, limit=len(v1)))
    r = agent.read(current(v2))
    assert "Moved, not changed: g. Removed: h." in r["text"].splitlines()[0], r["text"]
    assert '... your lines 19-32 were removed here, "def h(x):" among them' in r["text"].splitlines(), r["text"]


def test_lines_that_moved_are_not_called_gone():
    """A block moved up (typer's MarkupMode): the delta shows it where it is now and does
    not call its old lines gone (a real agent re-read to find the 'gone' class)."""
    lines = py_lines(body=60)
    block = ["MARKUP_MODE = 'rich'", "MARKUP_STRICT = True"]
    old = lines[:130] + block + lines[130:]
    agent = Agent(NO_DIFF)
    agent.read(current(old), ReadRequest("m.py", offset=1, limit=len(old)))
    new = lines[:2] + block + lines[2:]
    r = agent.read(current(new))
    assert r["mode"] == "delta", r["text"]
    assert "gone" not in r["text"] and "removed" not in r["text"], r["text"]
    assert "     3\tMARKUP_MODE = 'rich'" in r["text"].splitlines()
    # a block that went for good is still said
    agent = Agent(NO_DIFF)
    agent.read(current(old), ReadRequest("m.py", offset=1, limit=len(old)))
    r = agent.read(current(lines))
    assert any(line.startswith("... your lines 131-132 were removed here") for line in r["text"].splitlines()), r["text"]


def test_a_diff_says_where_the_symbols_it_moved_are_declared_now():
    """Real agents worked line numbers out of hunk headers, then read a range to confirm
    them: a diff names where each symbol its hunks moved is declared now."""
    lines = py_lines(n_funcs=3, body=30)
    agent = Agent()
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    now = ["import sys", "import re"] + lines
    r = agent.read(current(now))
    assert r["mode"] == "diff", r["text"]
    assert r["text"].splitlines()[-1] == "In or moved by these hunks, declared now on lines: f0 5, f1 39, f2 73"
    assert [now[n - 1] for n in (5, 39, 73)] == ["def f0(x):", "def f1(x):", "def f2(x):"]


def test_a_first_whole_read_after_a_range_shows_only_what_was_read_before():
    """The model read the top of a file to the end of its first function, a push added a
    line inside it: the first whole read shows that function as it is now and outlines
    the rest. The alignment of a copy that ends early can pair its last lines with the
    file's last ones (every function here ends alike): the lines between were never read
    and are not shown as read (a Go file's first 715 lines came back as 'parts you read')."""
    lines = py_lines(n_funcs=8, body=30)[:-1]  # the file ends on `return x`, as f0 does
    f0 = next(s for s in current(lines).symbols if s.qualname == "f0")
    agent = Agent()
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=f0.lines[1]))
    now = list(lines)
    now.insert(10, "    y_new = x * 7")
    r = agent.read(current(now))
    assert r["mode"] == "skeleton", r["mode"]
    body = r["text"].splitlines()[1:]
    assert "    11\t    y_new = x * 7" in body and f"{f0.lines[1] + 1:6d}\t    return x" in body
    hidden = [line.split(" elided")[0].strip() for line in body if " elided: " in line]
    assert hidden[-3:] == ["... 176-206", "... 210-240", "... 244-274"], r["text"]  # f5, f6, f7 bodies


def test_no_diff_from_a_copy_stitched_from_versions_numbered_differently():
    """A whole read, then (after lines were added above) a range read: the copy holds
    lines of two versions numbered differently. A diff from it paired lines the model
    holds at other numbers ("an odd first hunk that added back `}`", real agents, Polly
    and zustand): the re-read is a delta, at current numbers."""
    v1 = py_lines(n_funcs=4, body=30)
    agent = Agent()
    agent.read(current(v1), ReadRequest("m.py", offset=1, limit=len(v1)))
    v2 = v1[:10] + ["    extra_a = 1", "    extra_b = 2", "    extra_c = 3"] + v1[10:]
    agent.read(current(v2), ReadRequest("m.py", offset=5, limit=20))
    v3 = list(v2)
    v3[100] = "    y_changed = 0"
    r = agent.read(current(v3))
    assert r["mode"] == "delta", r["text"]


def test_an_indented_change_no_symbol_owns_comes_with_the_lines_around_it():
    """A line changed inside code no symbol owns (here a `__main__` block; in JavaScript
    an anonymous callback) is shown with two lines each side, as a symbol's change is
    with its window: shown alone, a real agent read its neighbours again. A top-level
    line (an import) stands alone."""
    v0 = ["import os", "import io", "import sys", "import json", "import time", "", "", "def f(x):", "    return x",
          "", "", 'if __name__ == "__main__":', *[f"    step{k} = f({k})" for k in range(40)]]
    agent = Agent(ReadPolicy(diff_max_hunks=0, small_file_tokens=SMALL))
    agent.read(current(v0), ReadRequest("m.py", offset=1, limit=len(v0)))
    v1 = [line.replace("f(20)", "f(200)").replace("import sys", "import re") for line in v0]
    r = agent.read(current(v1))
    shown = [line for line in r["text"].splitlines()[1:] if "\t" in line]
    # (lines 1-2 are shown rather than a marker as long as they: an unchanged run that short)
    assert shown == [*[f"{n:6d}\t{v1[n - 1]}" for n in (1, 2, 3)], *[f"{n:6d}\t{v1[n - 1]}" for n in range(31, 36)]
                     ], r["text"]
    assert v1[32] == "    step20 = f(200)"


def test_a_change_in_doc_comments_only_shows_the_comments_not_the_bodies():
    """A Javadoc pass over a class (commons-cli's Options.java): each short method had
    been drawn whole, its body too, 0.8x of the file; the comment and the declaration
    say what changed."""
    lines = ["import os", ""]
    for k in range(4):
        lines += ["# Adds thing.", f"# Version {k}.", f"def f{k}(x):", *[f"    y{i} = x + {10 * k + i}" for i in range(8)],
                  "    return x", ""]
    agent = Agent(NO_DIFF)
    agent.read(current(lines), ReadRequest("m.py", offset=1, limit=len(lines)))
    changed = [line.replace("# Version", "# Since version") for line in lines]
    changed[20] = "    y7 = x + 99"  # and one body line of f1: its function whole
    r = agent.read(current(changed))
    assert r["mode"] == "delta", r["text"]
    body = r["text"].splitlines()[1:]
    shown = {int(line.split("\t")[0]) for line in body if "\t" in line}
    heads = [n for n in range(1, len(changed) + 1) if changed[n - 1].startswith("# Adds")]
    for k, head in enumerate(heads):
        assert {head, head + 1, head + 2} <= shown  # the comment and the declaration
        if k == 1:  # a body line changed too: the short function whole
            assert set(range(head, head + 12)) <= shown
        else:
            assert f"... {head + 3}-{head + 12} unchanged" in body, r["text"]


def test_a_window_shows_a_short_run_it_was_told_is_elided_and_keeps_a_body_elided(tmp_path, monkeypatch):
    """A line added to a PHP docblock whose middle the skeleton elided: the window shows
    the docblock whole, not in pieces between one-line markers (a real agent doubted such
    a delta); the method's body below, longer, stays elided."""
    import subprocess

    from symbolpack.api.operations import Workspace, read_file

    monkeypatch.setenv("SYMBOLPACK_DIR", str(tmp_path / ".state"))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)

    def method(k: int, extra: str = "") -> str:
        return (f"    /**\n     * Sets thing {k}.\n     *\n     * This also allows overriding {k}.\n     *\n"
                f"     * @param string $name The name\n{extra}     */\n"
                f"    public function set{k}(string $name): void\n    {{\n"
                + "".join(f"        $this->v{i} = $name . '{i}';\n" for i in range(12)) + "    }\n\n")

    def text(extra_in: int | None = None) -> str:
        return "<?php\n\nclass Bar\n{\n" + "".join(
            method(k, "     * @throws LogicException when locked\n" if k == extra_in else "") for k in range(6)) + "}\n"

    path = tmp_path / "Bar.php"
    path.write_text(text())
    ws = Workspace(tmp_path)
    try:
        first = read_file(ws, path, "s", answer_id="r1", present=[]).response
        assert first["mode"] == "skeleton" and "... 53-57 elided" in first["text"]
        path.write_text(text(2))
        after = read_file(ws, path, "s", answer_id="r2", present=["r1"]).response
    finally:
        ws.close()
    lines = text(2).split("\n")
    shown = [line for line in after["text"].splitlines()[1:] if "\t" in line]
    # the docblock and its declaration: a change in a doc comment only opens no body
    assert shown == [f"{n:6d}\t{lines[n - 1]}" for n in range(51, 60)], after["text"]
    assert after["text"].splitlines()[-1].startswith("... 60-144 unchanged, elided bodies still elided")


def test_two_elided_runs_of_one_symbol_side_by_side_are_one_marker():
    """A removed `#[inline]` inside an elided body split it into two runs moved apart:
    two `from_f64` markers side by side read as odd (a real agent re-read the range)."""
    from symbolpack.reads.views import Segment, render_delta

    lines = [f"line {n}" for n in range(1, 21)]
    segments = [Segment("unchanged", 1, 4, source=1), Segment("elided", 5, 9, source=7, symbol="m.py:python:f"),
                Segment("elided", 10, 14, source=13, symbol="m.py:python:f"), Segment("unchanged", 15, 20, source=20)]
    text = render_delta(lines, segments, old=[None] * 25)  # (no line of the copy between them to name)
    assert [line for line in text if "elided" in line] == ["... 5-14 elided: --symbol f"], text
    assert len(text) == 3, text


def test_overloads_split_between_changed_and_moved_are_named_by_their_local_ids():
    """vapor's collectFile: one overload changed, another moved, and the header named
    `collectFile` in both lists (a real agent read it as a contradiction)."""
    def fn(name: str, k: int) -> list[str]:
        return py_function(k, name=name)

    v1 = ["import os", ""] + fn("f", 0) + fn("g", 1) + fn("h", 2) + fn("g", 3)
    agent = Agent(NO_DIFF)
    agent.read(current(v1), ReadRequest("m.py", offset=1, limit=len(v1)))
    v2 = ["import os", ""] + fn("f", 0) + fn("g", 3) + fn("g", 1) + fn("h", 2)  # the second g moved up
    v2[v2.index("    y5 = x + 105")] = "    y5 = x - 105"  # and the first one changed
    header = agent.read(current(v2))["text"].splitlines()[0]
    assert "Moved, not changed: g" in header and "Changed/new: g" in header, header
    moved = header.split("Moved, not changed: ")[1].split(".")[0]
    changed = header.split("Changed/new: ")[1].split(" (")[0]
    assert moved != changed and {moved, changed} <= {"g", "g#2"}, header
