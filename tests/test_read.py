"""The pure read decision: each rule of the policy as a function of its inputs."""

from __future__ import annotations

import textwrap

import pytest

from symbolpack.read import (
    Baseline,
    Current,
    ReadError,
    ReadPolicy,
    ReadRequest,
    ViewState,
    decide,
    resolve_scope,
)
from symbolpack.index import parse_bytes
from symbolpack.symbols import bind


def py_lines(n_funcs: int = 4, body: int = 20) -> list[str]:
    out = ["import os", ""]
    for k in range(n_funcs):
        out += [f"def f{k}(x):", f'    """Doc {k}."""'] + [f"    y{i} = x + {i}" for i in range(body)] + ["    return x", ""]
    return out


def current(lines: list[str], parsed: bool = True) -> Current:
    data = ("\n".join(lines) + "\n").encode()
    import hashlib

    syms = None
    if parsed:
        records, _, _ = parse_bytes(data, "python")
        syms = bind("m.py", "python", records)
    return Current(hashlib.sha256(data).hexdigest(), lines, syms)


def baseline_loader(*versions: Current):
    table = {c.sha256: Baseline(c.sha256, c.lines, c.symbols) for c in versions}
    return table.get


def first_read(cur: Current, policy=ReadPolicy()):
    return decide(ReadRequest("m.py"), cur, {}, baseline_loader(cur), 1, policy)


def test_first_read_of_a_parsed_file_is_a_skeleton_with_markers():
    cur = current(py_lines())
    out = first_read(cur)
    r = out.response
    assert r["mode"] == "skeleton"
    elided = [s for s in r["segments"] if s["kind"] == "elided"]
    assert len(elided) == 4 and elided[0]["symbol"] == "m.py:python:f0"
    assert "[ELIDED] lines 5-25 (21 lines) of f0; expand: --symbol f0" in r["text"]
    assert "     3\tdef f0(x):" in r["text"] and '     4\t    """Doc 0."""' in r["text"]
    assert r["tokens"] < r["full_tokens"]
    assert out.view.elided[0] == (5, 25, "m.py:python:f0")


def test_small_and_unparsed_files_are_read_fully():
    small = current(py_lines(1, 2))
    assert first_read(small).response["mode"] == "full"
    unparsed = current(py_lines(), parsed=False)
    r = first_read(unparsed).response
    assert r["mode"] == "full" and r["tokens"] == r["full_tokens"]
    assert r["segments"] == [{"kind": "shown", "start": 1, "end": len(py_lines())}]


def test_force_full_and_elide_threshold():
    cur = current(py_lines())
    r = decide(ReadRequest("m.py", force_full=True), cur, {}, baseline_loader(cur), 1).response
    assert r["mode"] == "full"
    r = first_read(cur, ReadPolicy(elide_min_lines=50)).response
    assert r["mode"] == "full"  # no body is that long


def test_unchanged_reread_is_one_line():
    cur = current(py_lines())
    view = first_read(cur).view
    r = decide(ReadRequest("m.py"), cur, {"full": view}, baseline_loader(cur), 2).response
    assert r["mode"] == "unchanged" and "\n" not in r["text"] and str(len(py_lines())) in r["text"]


def test_changed_body_comes_back_whole_and_the_rest_unchanged():
    old = current(py_lines())
    view = first_read(old).view
    lines = py_lines()
    lines[30] = "    y3 = x * 1000"  # inside f1's body
    new = current(lines)
    out = decide(ReadRequest("m.py"), new, {"full": view}, baseline_loader(old, new), 2)
    r = out.response
    assert r["mode"] in ("delta", "diff")
    if r["mode"] == "delta":
        shown = [s for s in r["segments"] if s["kind"] == "shown"]
        assert any(s["start"] <= 31 <= s["end"] for s in shown)
        assert "f1" in r["text"].splitlines()[0]
        # f0, f2, f3 bodies were never seen: still elided, not shown
        assert [s["symbol"] for s in r["segments"] if s["kind"] == "elided"] == [
            "m.py:python:f0", "m.py:python:f2", "m.py:python:f3"]
    assert r["tokens"] <= r["full_tokens"]


def test_delta_names_removed_symbols_and_prefers_delta_for_many_hunks():
    old = current(py_lines(6, 14))
    view = first_read(old).view
    lines = py_lines(6, 14)
    del lines[2:20]  # f0 removed entirely
    for k in range(20, len(lines), 9):
        lines[k] = lines[k] + "  # touched"
    new = current(lines)
    r = decide(ReadRequest("m.py"), new, {"full": view}, baseline_loader(old, new), 2).response
    assert r["mode"] == "delta"
    assert "Removed: f0." in r["text"]


def test_unparsed_change_is_a_unified_diff_until_the_gate():
    old = current(py_lines(), parsed=False)
    view = first_read(old).view
    lines = py_lines()
    lines[10] = "changed"
    new = current(lines, parsed=False)
    r = decide(ReadRequest("m.py"), new, {"full": view}, baseline_loader(old, new), 2).response
    assert r["mode"] == "diff"
    assert "@@ -8,7 +8,7 @@" in r["text"] and "+changed" in r["text"]
    many = [l + " *" if i % 3 == 0 else l for i, l in enumerate(py_lines())]
    new2 = current(many, parsed=False)
    r = decide(ReadRequest("m.py"), new2, {"full": view}, baseline_loader(old, new2), 3).response
    assert r["mode"] == "full"  # too many hunks: the gate sends the file


def test_missing_baseline_and_truncation_fail_open_to_full():
    old = current(py_lines())
    view = first_read(old).view
    lines = py_lines()
    lines[4] = "    changed = 1"
    new = current(lines)
    r = decide(ReadRequest("m.py"), new, {"full": view}, lambda sha: None, 2).response
    assert r["mode"] == "full"
    short = current(py_lines()[:20])
    r = decide(ReadRequest("m.py"), short, {"full": view}, baseline_loader(old, short), 3).response
    assert r["mode"] == "full"


def test_range_unchanged_only_when_its_lines_are_identical():
    old = current(py_lines())
    plain = decide(ReadRequest("m.py", offset=3, limit=5), old, {}, baseline_loader(old), 1)
    assert plain.response["mode"] == "range" and plain.response["scope"] == {"start": 3, "end": 7}
    views = {plain.view_key: plain.view}
    lines = py_lines()
    lines[60] = "    elsewhere = 1"
    new = current(lines)
    r = decide(ReadRequest("m.py", offset=3, limit=5), new, views, baseline_loader(old, new), 2).response
    assert r["mode"] == "unchanged" and "changed outside this range" in r["text"]
    lines[4] = "    inside = 2"
    newer = current(lines)
    r = decide(ReadRequest("m.py", offset=3, limit=5), newer, views, baseline_loader(old, newer), 3).response
    assert r["mode"] == "range" and "inside = 2" in r["text"]


def test_range_overlapping_an_elided_body_is_a_drill_in():
    cur = current(py_lines())
    view = first_read(cur).view
    out = decide(ReadRequest("m.py", offset=10, limit=3), cur, {"full": view}, baseline_loader(cur), 2)
    assert out.response["mode"] == "range"
    assert out.drill_ins == [{"symbol": "m.py:python:f0", "hidden": True, "lines": [10, 12]}]


def test_symbol_drill_in_returns_the_symbol_whole():
    cur = current(py_lines())
    f2 = [s for s in cur.symbols if s.qualname == "f2"][0]
    out = decide(ReadRequest("m.py", symbol=f2), cur, {}, baseline_loader(cur), 1)
    assert out.response["scope"] == {"start": f2.lines[0], "end": f2.lines[1]}
    assert out.response["text"].splitlines()[0] == f"{f2.lines[0]:>6}\tdef f2(x):"


@pytest.mark.parametrize("offset,limit,total,expected", [
    (None, None, 10, None), (1, 10, 10, None), (3, None, 10, (3, 10)), (None, 4, 10, (1, 4)), (9, 50, 10, (9, 10)),
])
def test_resolve_scope(offset, limit, total, expected):
    assert resolve_scope(total, offset, limit) == expected


@pytest.mark.parametrize("offset,limit", [(0, None), (11, None), (2, 0), (-1, 3)])
def test_bad_ranges_are_errors(offset, limit):
    with pytest.raises(ReadError):
        resolve_scope(10, offset, limit)


def _run(cur, views, request, seq, *versions):
    out = decide(request, cur, views, baseline_loader(*versions), seq)
    if out.view is not None:
        views[out.view_key] = out.view
    return out.response


def test_a_revert_after_a_range_read_is_not_unchanged():
    """Edited, range-read, then reverted: the agent's freshest copy of those lines is
    the edited one, so neither the whole file nor the wider range is 'unchanged'."""
    from symbolpack.evaluation.oracle import ReadOracle

    v1 = current(py_lines(), parsed=False)
    edited = py_lines()
    edited[5] = "    edited = True"
    v2 = current(edited, parsed=False)
    for steps, must_not_be_unchanged in (
        ([(v1, ReadRequest("m.py")),  # full at v1
          (v2, ReadRequest("m.py", offset=4, limit=5)),  # range 4-8 at v2 (shows the edit)
          (v1, ReadRequest("m.py"))], 2),  # reverted: the full re-read
        ([(v1, ReadRequest("m.py", offset=1, limit=20)),  # range 1-20 at v1
          (v2, ReadRequest("m.py", offset=4, limit=5)),  # range 4-8 at v2
          (v1, ReadRequest("m.py", offset=1, limit=20))], 2),  # reverted: the wide range
    ):
        oracle, views = ReadOracle(), {}
        modes = []
        for seq, (cur, request) in enumerate(steps, 1):
            response = _run(cur, views, request, seq, v1, v2)
            assert oracle.apply(response) == []
            assert oracle.check("m.py", "\n".join(cur.lines) + "\n") == [], (seq, response["mode"])
            modes.append(response["mode"])
        assert modes[must_not_be_unchanged] != "unchanged", modes
