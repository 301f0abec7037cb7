"""The MCP context judge (`mcp_view`) fails on each of its rules: a judge that cannot
fail would pass any answer the clients' tests show it."""

from __future__ import annotations

import mcp_view

FILE = [f"line {n}" for n in range(1, 11)]


def rows(lines: list[str], start: int = 1) -> str:
    return "\n".join(f"{n:6d}\t{text}" for n, text in enumerate(lines, start))


def answer(call: dict, text: str, ident: str, relies: tuple[str, ...] = ()) -> mcp_view.Answer:
    tail = f"[answer {ident}" + (f"; relies on {', '.join(relies)}]" if relies else "]")
    return mcp_view.answer_of(call, f"{text}\n{tail}")


WHOLE = {"path": "a.py"}
SKELETON = "[SKELETON] a.py: 10 lines.\n" + rows(FILE[:2]) + "\n    ... 3-8 elided: symbol=\"f\"\n" + rows(FILE[8:], 9)
UNCHANGED = "[UNCHANGED] a.py: exactly as you already have it from your earlier reads."


def test_a_sound_history_has_no_problem():
    first = answer(WHOLE, SKELETON, "s1")
    again = answer(WHOLE, UNCHANGED, "u1", ("s1",))
    changed = FILE[:9] + ["line ten"]
    delta = answer(WHOLE, "[DELTA] a.py: changed since the answers you passed in known (10 lines now).\n"
                   "... 1-9 unchanged, elided bodies still elided\n" + rows(["line ten"], 10), "d1", ("s1",))
    assert mcp_view.judge([first, again], FILE) == []
    assert mcp_view.judge([first, again, delta], changed) == []


def test_each_rule_fails():
    first = answer(WHOLE, SKELETON, "s1")
    # relies on an answer the request does not carry
    assert mcp_view.judge([answer(WHOLE, UNCHANGED, "u1", ("gone",))], FILE)[0].startswith("answer u1 relies on gone")
    # vouches with no earlier answer of the file
    assert any("no earlier answer" in p for p in mcp_view.judge([answer(WHOLE, UNCHANGED, "u1", ("s1",))], FILE))
    # vouches but names nothing it relies on
    assert any("names nothing" in p for p in mcp_view.judge([first, answer(WHOLE, UNCHANGED, "u1")], FILE))
    # a shown row that is not the file's
    wrong = answer({"path": "a.py", "offset": 2, "limit": 1}, rows(["line two?"], 2), "r1")
    assert any("row 2 shows" in p for p in mcp_view.judge([first, wrong], FILE))
    # an [UNCHANGED] over a shown line the file changed
    changed = ["line one!"] + FILE[1:]
    assert any("vouches for line 1" in p for p in mcp_view.judge([first, answer(WHOLE, UNCHANGED, "u1", ("s1",))],
                                                                changed))
    # a delta run that carries a line the file changed, and one the context never held
    run = answer(WHOLE, "[DELTA] a.py: changed since the answers you passed in known (11 lines now).\n... 1-2 unchanged (were 1-2)\n"
                 + rows(FILE[2:], 3), "d1", ("s1",))
    assert any("vouches for line 1" in p for p in mcp_view.judge([first, run], changed))
    partial = answer({"path": "a.py", "offset": 9, "limit": 2}, rows(FILE[8:], 9), "r2")
    assert any("does not hold" in p for p in mcp_view.judge([partial, answer(WHOLE, UNCHANGED.replace(
        "[UNCHANGED]", "[DELTA]") + "\n... 1-2 unchanged (were 1-2)", "d2", ("r2",))], FILE))


def test_a_range_answer_s_id_line_is_read_with_its_scope():
    text = rows(FILE[2:4], 3) + "\n[answer r4ng3idx: lines 3-4, as they are now; relies on s1]"
    a = mcp_view.answer_of({"path": "a.py", "offset": 3, "limit": 2}, text)
    assert (a.ident, a.relies, a.text) == ("r4ng3idx", ["s1"], rows(FILE[2:4], 3))


def test_an_id_line_naming_ids_not_needed_is_read_with_what_it_relies_on():
    text = rows(FILE[2:4], 3) + ("\n[answer r4ng3idx: lines 3-4, as they are now; relies on s1; not needed: s0 "
                                 "(newer answers show or mark each of its lines, or it is not about this file)] Next read of this file: "
                                 'known=["s1", "r4ng3idx"]')
    a = mcp_view.answer_of({"path": "a.py", "offset": 3, "limit": 2}, text)
    assert (a.ident, a.relies, a.text) == ("r4ng3idx", ["s1"], rows(FILE[2:4], 3))
