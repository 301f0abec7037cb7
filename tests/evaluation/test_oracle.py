"""The judge of the agent's copy (PROTOCOL.md, "The agent's copy"), driven by hand-written
protocol responses: no engine involved. Every rule is shown to catch a bad response and to
accept a correct one."""

from __future__ import annotations

import hashlib

from symbolpack.evaluation.oracle import ReadOracle, split_lines

PATH = "src/cart.py"
V1 = "".join(f"line {n}\n" for n in range(1, 11))  # 10 lines


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def numbered(text: str, *spans: tuple[int, int]) -> str:
    lines = split_lines(text)
    spans = spans or ((1, len(lines)),)
    return "\n".join(f"{n:>6}\t{lines[n - 1]}" for s, e in spans for n in range(s, e + 1)) + "\n"


def response(mode: str, text: str, content: str, segments=None, scope=None, **extra) -> dict:
    return {"v": 1, "path": PATH, "mode": mode, "scope": scope, "total_lines": len(split_lines(content)),
            "sha256": sha(content), "text": text, "tokens": 1, "full_tokens": 1,
            "segments": segments if segments is not None else [], **extra}


def full_read(content: str) -> dict:
    n = len(split_lines(content))
    return response("full", numbered(content), content, [{"kind": "shown", "start": 1, "end": n}])


def rng(content: str, start: int, end: int, segments=None, mode: str = "range") -> dict:
    """A range answer: shown start..end unless *segments* say otherwise."""
    segments = segments if segments is not None else [{"kind": "shown", "start": start, "end": end}]
    shown = [(s["start"], s["end"]) for s in segments if s["kind"] == "shown"]
    text = f"[lines {start}-{end}]\n" + (numbered(content, *shown) if shown else "")
    return response(mode, text, content, segments, scope={"start": start, "end": end})


def unchanged(content: str, scope=None) -> dict:
    return response("unchanged", "[UNCHANGED] since your last read", content, None, scope=scope)


def delta(content: str, segments) -> dict:
    shown = [(s["start"], s["end"]) for s in segments if s["kind"] == "shown"]
    return response("delta", "[DELTA]\n" + (numbered(content, *shown) if shown else ""), content, segments)


def edit(content: str, line: int, new: str) -> str:
    lines = split_lines(content)
    lines[line - 1] = new
    return "\n".join(lines) + "\n"


def test_correct_full_read_then_check_passes_and_detects_a_later_edit():
    oracle = ReadOracle()
    assert oracle.apply(full_read(V1)) == []
    assert oracle.check(PATH, V1) == []
    assert oracle.reconstruct(PATH) == {n: f"line {n}" for n in range(1, 11)}
    assert oracle.check(PATH, edit(V1, 4, "changed")) == [f"{PATH}:4: expected 'changed', agent believes 'line 4'"]


def test_wrong_line_in_text_is_caught_by_check():
    oracle = ReadOracle()
    bad = full_read(V1)
    bad["text"] = bad["text"].replace("line 7", "line 7 (stale)")
    assert oracle.apply(bad) == []  # well-formed, just wrong
    problems = oracle.check(PATH, V1)
    assert len(problems) == 1 and f"{PATH}:7:" in problems[0]


def test_check_reports_believed_lines_beyond_eof_and_wrong_length():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    problems = oracle.check(PATH, "".join(f"line {n}\n" for n in range(1, 9)))
    assert any(f"{PATH}:9:" in p and "only 8 lines" in p for p in problems)
    assert any(f"{PATH}:10:" in p for p in problems)
    assert any("believes 10 lines" in p for p in problems)


# --------------------------------------------------------------------------- segments and text

def test_unchanged_segment_pointing_at_lines_never_seen_is_flagged():
    oracle = ReadOracle()
    skeleton = response("skeleton", numbered(V1, (1, 3), (8, 10)), V1, [
        {"kind": "shown", "start": 1, "end": 3},
        {"kind": "elided", "start": 4, "end": 7, "symbol": f"{PATH}:python:f"},
        {"kind": "shown", "start": 8, "end": 10},
    ])
    assert oracle.apply(skeleton) == []
    bad = delta(V1, [{"kind": "shown", "start": 1, "end": 3}, {"kind": "unchanged", "start": 4, "end": 10, "from": 4}])
    assert oracle.apply(bad) == [
        f"{PATH}: segment 4..10 (from 4) claims unchanged for a line the agent never had: copy line 4-7"]
    assert 5 not in oracle.reconstruct(PATH) and oracle.reconstruct(PATH)[9] == "line 9"


def test_unchanged_segment_from_past_the_copy_is_flagged_and_one_inside_it_accepted():
    """Rule 6: an `unchanged` segment's `from` must name a line the copy holds."""
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = V1 + "line 11\n"  # an appended line "unchanged from 11": the copy has only 10
    bad = delta(v2, [{"kind": "unchanged", "start": 1, "end": 11, "from": 1}])
    assert oracle.apply(bad) == [
        f"{PATH}: segment 1..11 (from 1) claims unchanged for a line the agent never had: copy line 11"]
    good = ReadOracle()
    good.apply(full_read(V1))
    ok = delta(v2, [{"kind": "unchanged", "start": 1, "end": 10, "from": 1}, {"kind": "shown", "start": 11, "end": 11}])
    assert good.apply(ok) == [] and good.check(PATH, v2) == []


def test_delta_with_shifted_unchanged_segment_is_resolved_against_the_copy():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = "inserted\n" + V1  # line n of v1 is line n + 1 of v2
    shifted = delta(v2, [{"kind": "shown", "start": 1, "end": 1},
                         {"kind": "unchanged", "start": 2, "end": 11, "from": 1}])
    assert oracle.apply(shifted) == []
    assert oracle.check(PATH, v2) == []
    off_by_one = delta(v2, [{"kind": "shown", "start": 1, "end": 1},
                            {"kind": "unchanged", "start": 2, "end": 11, "from": 2}])
    oracle2 = ReadOracle()
    oracle2.apply(full_read(V1))
    assert any("never had" in p for p in oracle2.apply(off_by_one))  # from 2..11: line 11 unknown
    assert oracle2.check(PATH, v2)  # and lines 2..10 are believed wrong


def test_elided_body_is_not_known_so_a_change_inside_it_does_not_fail_check():
    oracle = ReadOracle()
    skeleton = response("skeleton", "# skeleton of cart.py\n" + numbered(V1, (1, 3), (8, 10)), V1, [
        {"kind": "shown", "start": 1, "end": 3},
        {"kind": "elided", "start": 4, "end": 7},
        {"kind": "shown", "start": 8, "end": 10},
    ])
    assert oracle.apply(skeleton) == []
    assert sorted(oracle.reconstruct(PATH)) == [1, 2, 3, 8, 9, 10]
    assert oracle.check(PATH, edit(V1, 5, "body edited")) == []
    assert oracle.check(PATH, edit(V1, 8, "shown edited")) != []


def test_segments_with_a_gap_are_flagged():
    bad = response("skeleton", numbered(V1, (1, 3), (6, 10)), V1, [
        {"kind": "shown", "start": 1, "end": 3},
        {"kind": "shown", "start": 6, "end": 10},
    ])
    assert ReadOracle().apply(bad) == [f"{PATH}: segments leave a gap at lines 4..5"]


def test_segments_overlap_and_short_cover_are_flagged():
    bad = response("full", numbered(V1, (1, 8)), V1, [
        {"kind": "shown", "start": 1, "end": 5},
        {"kind": "shown", "start": 5, "end": 8},
    ])
    problems = ReadOracle().apply(bad)
    assert any("overlaps" in p for p in problems)
    assert any("do not cover lines 9..10" in p for p in problems)


def test_shown_line_missing_from_text_and_stray_numbered_line_are_flagged():
    text = numbered(V1, (1, 4), (6, 10)) + f"{99:>6}\tstray\n"
    problems = ReadOracle().apply(response("full", text, V1, [{"kind": "shown", "start": 1, "end": 10}]))
    assert f"{PATH}: line 5 of a shown segment is missing from text" in problems
    assert f"{PATH}: text shows numbered line 99 outside any shown segment" in problems


def test_numbered_line_inside_elided_segment_is_flagged():
    text = numbered(V1, (1, 3), (5, 5), (8, 10))
    problems = ReadOracle().apply(response("skeleton", text, V1, [
        {"kind": "shown", "start": 1, "end": 3},
        {"kind": "elided", "start": 4, "end": 7},
        {"kind": "shown", "start": 8, "end": 10},
    ]))
    assert problems == [f"{PATH}: text shows numbered line 5 outside any shown segment"]


def test_misaligned_numbers_are_not_file_lines():
    text = "".join(f"{n}\tline {n}\n" for n in range(1, 11))  # not right-aligned in 6 columns
    problems = ReadOracle().apply(response("full", text, V1, [{"kind": "shown", "start": 1, "end": 10}]))
    assert len(problems) == 10 and all("missing from text" in p for p in problems)


def test_sha256_missing_is_flagged():
    bad = dict(full_read(V1), sha256=None)
    assert ReadOracle().apply(bad) == [f"{PATH}: sha256 missing or not a string"]


# --------------------------------------------------------------------------- one copy, every scope

def test_full_scope_answer_sets_the_length_and_elided_lines_become_unknown_again():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = "".join(f"line {n}\n" for n in range(1, 9))  # shortened to 8 lines
    skeleton = response("skeleton", numbered(v2, (1, 3), (8, 8)), v2, [
        {"kind": "shown", "start": 1, "end": 3},
        {"kind": "elided", "start": 4, "end": 7},
        {"kind": "shown", "start": 8, "end": 8},
    ])
    assert oracle.apply(skeleton) == []
    view = oracle.view(PATH)
    assert view.total_lines == 8 and sorted(view.lines) == [1, 2, 3, 8]  # 4-7 elided, 9-10 dropped
    assert oracle.check(PATH, v2) == []


def test_range_read_overwrites_its_lines_and_keeps_the_rest_of_the_copy():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    # Same file: lines outside the range stay known.
    assert oracle.apply(rng(V1, 3, 4)) == []
    assert sorted(oracle.reconstruct(PATH)) == list(range(1, 11))
    # Changed file: the range overwrites 3-4; the agent still holds its old line 9, which
    # no answer claimed current for these bytes, so it is no failure of the engine.
    v2 = edit(edit(V1, 9, "nine"), 3, "three")
    assert oracle.apply(rng(v2, 3, 4)) == []
    assert oracle.reconstruct(PATH) == {**{n: f"line {n}" for n in range(1, 11)}, 3: "three"}
    assert oracle.check(PATH, v2) == []
    # A later full answer that leans on the stale line 9 is caught...
    lazy = delta(v2, [{"kind": "unchanged", "start": 1, "end": 10, "from": 1}])
    assert oracle.apply(lazy) == []
    assert oracle.check(PATH, v2) == [f"{PATH}:9: expected 'nine', agent believes 'line 9'"]
    # ...and the right one (line 3 from the range, line 9 shown) is accepted.
    good = ReadOracle()
    for r in (full_read(V1), rng(v2, 3, 4)):
        good.apply(r)
    right = delta(v2, [{"kind": "unchanged", "start": 1, "end": 8, "from": 1},
                       {"kind": "shown", "start": 9, "end": 9},
                       {"kind": "unchanged", "start": 10, "end": 10, "from": 10}])
    assert good.apply(right) == [] and good.check(PATH, v2) == []


def test_delta_leaning_on_the_last_full_read_instead_of_a_newer_range_is_caught():
    """Rule 1: full read, the file changes, a range shows the new line 5, the file is
    reverted; a delta computed against the last full read calls line 5 unchanged, but
    the copy holds the range's text."""
    v2 = edit(V1, 5, "five")
    bad, good = ReadOracle(), ReadOracle()
    for oracle in (bad, good):
        assert oracle.apply(full_read(V1)) == []
        assert oracle.apply(rng(v2, 4, 6)) == [] and oracle.check(PATH, v2) == []
    stale = delta(V1, [{"kind": "unchanged", "start": 1, "end": 10, "from": 1}])
    assert bad.apply(stale) == []
    assert bad.check(PATH, V1) == [f"{PATH}:5: expected 'line 5', agent believes 'five'"]
    right = delta(V1, [{"kind": "unchanged", "start": 1, "end": 4, "from": 1}, {"kind": "shown", "start": 5, "end": 5},
                       {"kind": "unchanged", "start": 6, "end": 10, "from": 6}])
    assert good.apply(right) == [] and good.check(PATH, V1) == []
    # the same lie as a whole-file `unchanged`
    liar = ReadOracle()
    for r in (full_read(V1), rng(v2, 4, 6)):
        liar.apply(r)
    assert liar.apply(unchanged(V1)) == []
    assert liar.check(PATH, V1) == [f"{PATH}:5: expected 'line 5', agent believes 'five'"]


def test_range_unchanged_over_lines_a_later_full_answer_renumbered_is_caught():
    """Rule 3: range 3-4 read, a line inserted on top and a full delta renumbers the copy,
    the insertion is reverted: "lines 3-4 unchanged" (true of the range as first read) is
    false of the copy, which now holds the old lines 2-3 there."""
    v2 = "inserted\n" + V1
    bad, good = ReadOracle(), ReadOracle()
    for oracle in (bad, good):
        assert oracle.apply(rng(V1, 3, 4)) == []
        renumbered = delta(v2, [{"kind": "shown", "start": 1, "end": 1}, {"kind": "elided", "start": 2, "end": 3},
                                {"kind": "unchanged", "start": 4, "end": 5, "from": 3},
                                {"kind": "elided", "start": 6, "end": 11}])
        assert oracle.apply(renumbered) == [] and oracle.check(PATH, v2) == []
    # lines 3-4 of the copy hold v2's lines 3 (unknown, elided) and 4 ("line 3")
    assert bad.apply(unchanged(V1, scope={"start": 3, "end": 4})) == [
        f"{PATH}: mode unchanged for lines 3..4, but asked for lines never shown: 3"]
    assert bad.check(PATH, V1) == [f"{PATH}:4: expected 'line 4', agent believes 'line 3'"]
    assert good.apply(rng(V1, 3, 4)) == [] and good.check(PATH, V1) == []
    assert good.apply(unchanged(V1, scope={"start": 3, "end": 4})) == []  # now it is true


def test_range_or_symbol_unchanged_for_lines_only_elided_is_flagged():
    """Rule 4: never [UNCHANGED] for lines the agent never got, even when an earlier
    answer of the same bytes showed them (a skeleton since made them unknown again)."""
    skeleton = response("skeleton", numbered(V1, (1, 3), (8, 10)), V1, [
        {"kind": "shown", "start": 1, "end": 3},
        {"kind": "elided", "start": 4, "end": 7, "symbol": f"{PATH}:python:f"},
        {"kind": "shown", "start": 8, "end": 10},
    ])
    for history in ([skeleton], [full_read(V1), skeleton]):
        oracle = ReadOracle()
        for r in history:
            assert oracle.apply(r) == []
        assert oracle.apply(unchanged(V1, scope={"start": 3, "end": 7})) == [
            f"{PATH}: mode unchanged for lines 3..7, but asked for lines never shown: 4-7"]
    oracle = ReadOracle()
    oracle.apply(skeleton)
    assert oracle.apply(rng(V1, 4, 7)) == []  # the drill-in that shows them
    assert oracle.apply(unchanged(V1, scope={"start": 4, "end": 7})) == []
    assert oracle.check(PATH, V1) == []
    # and a range answer's own `unchanged` segment over them
    segs = ReadOracle()
    segs.apply(skeleton)
    assert segs.apply(rng(V1, 3, 7, [{"kind": "unchanged", "start": 3, "end": 7, "from": 3}])) == [
        f"{PATH}: segment 3..7 (from 3) claims unchanged for a line the agent never had: copy line 4-7"]


def test_elided_segment_inside_a_range_answer_is_flagged():
    """Rule 5: every line a range or drill-in asks for ends up known."""
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    bad = rng(V1, 2, 8, [{"kind": "shown", "start": 2, "end": 4}, {"kind": "elided", "start": 5, "end": 7},
                         {"kind": "unchanged", "start": 8, "end": 8, "from": 8}])
    assert oracle.apply(bad) == [f"{PATH}: lines 5-7 asked for, never shown (elided in a range answer)"]
    assert 6 not in oracle.reconstruct(PATH)
    good = rng(V1, 2, 8, [{"kind": "shown", "start": 2, "end": 4},
                          {"kind": "unchanged", "start": 5, "end": 8, "from": 5}])
    fresh = ReadOracle()
    fresh.apply(full_read(V1))
    assert fresh.apply(good) == [] and fresh.check(PATH, V1) == []


def test_whole_file_unchanged_needs_a_copy_with_a_length():
    oracle = ReadOracle()
    assert oracle.apply(unchanged(V1)) == [
        f"{PATH}: mode unchanged, but the agent's copy has no known length (no full-scope answer yet)"]
    ranges_only = ReadOracle()
    ranges_only.apply(rng(V1, 1, 5))
    assert ranges_only.apply(unchanged(V1)) != []
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    assert oracle.apply(unchanged(V1)) == [] and oracle.check(PATH, V1) == []


def test_whole_file_unchanged_with_another_length_is_flagged_and_caught_by_check():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = V1 + "line 11\n"
    assert oracle.apply(unchanged(v2)) == [f"{PATH}: mode unchanged, but total_lines 11 != the copy's 10 lines"]
    assert oracle.check(PATH, v2) == [f"{PATH}: agent believes 10 lines, the file has 11"]


def test_stale_unchanged_is_caught_by_check():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = edit(V1, 2, "two")
    stale = response("unchanged", "[unchanged since your last read]", V1)  # engine lied, sha of old bytes
    assert oracle.apply(stale) == []
    assert oracle.check(PATH, v2) == [f"{PATH}:2: expected 'two', agent believes 'line 2'"]
    # with the right sha of the new bytes the lie is caught just the same
    honest_sha = ReadOracle()
    honest_sha.apply(full_read(V1))
    assert honest_sha.apply(unchanged(v2)) == []
    assert honest_sha.check(PATH, v2) == [f"{PATH}:2: expected 'two', agent believes 'line 2'"]


def test_whole_file_unchanged_makes_no_claim_about_elided_lines():
    """A body the skeleton elided changed: `unchanged` is still right (no claim on it)."""
    oracle = ReadOracle()
    oracle.apply(response("skeleton", numbered(V1, (1, 3), (8, 10)), V1, [
        {"kind": "shown", "start": 1, "end": 3}, {"kind": "elided", "start": 4, "end": 7},
        {"kind": "shown", "start": 8, "end": 10}]))
    v2 = edit(V1, 5, "body edited")
    assert oracle.apply(unchanged(v2)) == [] and oracle.check(PATH, v2) == []
    assert oracle.check(PATH, edit(v2, 9, "x")) == [f"{PATH}:9: expected 'x', agent believes 'line 9'"]


# --------------------------------------------------------------------------- diffs

def test_correct_diff_applies_and_check_passes():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = edit(V1, 5, "five").replace("line 9\n", "line 9\nnew 9b\n")
    diff = ("--- a/src/cart.py\n+++ b/src/cart.py\n"
            "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+five\n line 6\n"
            "@@ -9,0 +10,1 @@\n+new 9b\n")
    assert oracle.apply(response("diff", diff, v2)) == []
    assert oracle.check(PATH, v2) == []
    assert oracle.reconstruct(PATH)[11] == "line 10"


def test_diff_whose_context_does_not_match_the_copy_is_flagged():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = edit(V1, 5, "five")
    diff = "@@ -4,3 +4,3 @@\n line 4 (not what the agent saw)\n-line 5\n+five\n line 6\n"
    problems = oracle.apply(response("diff", diff, v2))
    assert problems == [f"{PATH}: diff expects old line 4 = 'line 4 (not what the agent saw)', "
                        f"the agent's copy has 'line 4'"]


def test_diff_from_the_last_full_read_instead_of_the_copy_is_flagged():
    """Rule 2: full read, line 5 changes and a range shows it, then line 6 changes: a diff
    from the last full read removes the old line 5 the agent no longer holds."""
    v2 = edit(V1, 5, "five")
    v3 = edit(v2, 6, "six")
    bad, good = ReadOracle(), ReadOracle()
    for oracle in (bad, good):
        oracle.apply(full_read(V1))
        assert oracle.apply(rng(v2, 4, 6)) == []
    from_full_read = "@@ -5,2 +5,2 @@\n-line 5\n-line 6\n+five\n+six\n"
    assert bad.apply(response("diff", from_full_read, v3)) == [
        f"{PATH}: diff expects old line 5 = 'line 5', the agent's copy has 'five'"]
    from_copy = "@@ -5,2 +5,2 @@\n five\n-line 6\n+six\n"
    assert good.apply(response("diff", from_copy, v3)) == [] and good.check(PATH, v3) == []
    # a diff that leaves the changed line out (the copy's line 5 is right, line 6 is not)
    dropped = ReadOracle()
    for r in (full_read(V1), rng(v2, 4, 6)):
        dropped.apply(r)
    assert dropped.apply(response("diff", "", v3)) == []
    assert dropped.check(PATH, v3) == [f"{PATH}:6: expected 'six', agent believes 'line 6'"]


def test_diff_carries_unknown_lines_as_unknown():
    oracle = ReadOracle()
    oracle.apply(response("skeleton", numbered(V1, (1, 3), (8, 10)), V1, [
        {"kind": "shown", "start": 1, "end": 3}, {"kind": "elided", "start": 4, "end": 7},
        {"kind": "shown", "start": 8, "end": 10}]))
    v2 = "top\n" + edit(V1, 5, "five")  # line 5 (elided) changed, a line inserted on top
    diff = "@@ -0,0 +1,1 @@\n+top\n@@ -5 +6 @@\n-line 5\n+five\n"
    assert oracle.apply(response("diff", diff, v2)) == [] and oracle.check(PATH, v2) == []
    assert sorted(oracle.reconstruct(PATH)) == [1, 2, 3, 4, 6, 9, 10, 11]


def test_diff_length_and_missing_copy_and_range_scope_are_flagged():
    v2 = edit(V1, 5, "five")
    assert ReadOracle().apply(response("diff", "@@ -5 +5 @@\n-line 5\n+five\n", v2)) == [
        f"{PATH}: mode diff, but the agent holds no copy of the file"]
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    assert oracle.apply(response("diff", "@@ -5 +5,2 @@\n-line 5\n+five\n+more\n", v2)) == [
        f"{PATH}: diff turns the copy's 10 lines into 11, response says 10"]
    ranged = response("diff", "@@ -5 +5 @@\n-line 5\n+five\n", v2, scope={"start": 4, "end": 6})
    assert ReadOracle().apply(ranged) == [f"{PATH}: mode diff with a range scope {{'start': 4, 'end': 6}}"]


# --------------------------------------------------------------------------- other channels

def test_learned_pack_lines_may_be_called_unchanged_and_are_checked_then():
    """Rule 7: a context pack displayed lines 4-7; a drill-in may call them unchanged."""
    oracle = ReadOracle()
    oracle.learn(PATH, 4, ["line 4", "line 5", "line 6", "line 7"])
    assert oracle.reconstruct(PATH) == {n: f"line {n}" for n in range(4, 8)}
    assert oracle.apply(unchanged(V1, scope={"start": 4, "end": 7})) == [] and oracle.check(PATH, V1) == []
    # the code changed after the pack: the same claim is caught
    v2 = edit(V1, 6, "six")
    stale = ReadOracle()
    stale.learn(PATH, 4, ["line 4", "line 5", "line 6", "line 7"])
    assert stale.apply(unchanged(v2, scope={"start": 4, "end": 7})) == []
    assert stale.check(PATH, v2) == [f"{PATH}:6: expected 'six', agent believes 'line 6'"]
    # a later display overwrites what the pack gave
    shown_later = ReadOracle()
    shown_later.learn(PATH, 4, ["line 4", "line 5", "line 6", "line 7"])
    shown_later.apply(rng(v2, 6, 6))
    assert shown_later.reconstruct(PATH)[6] == "six"
    assert shown_later.apply(unchanged(V1, scope={"start": 4, "end": 7})) == []
    assert shown_later.check(PATH, V1) == [f"{PATH}:6: expected 'line 6', agent believes 'six'"]


def test_the_agents_own_writes_and_edits_are_in_the_copy():
    oracle = ReadOracle()
    oracle.learn_all(PATH, split_lines(V1))
    assert oracle.check(PATH, "anything\n") == []  # no answer vouched for anything yet
    assert oracle.apply(unchanged(V1)) == [] and oracle.check(PATH, V1) == []
    v2 = V1.replace("line 5\n", "five\nfive b\n")
    oracle.edit(PATH, 5, 1, ["five", "five b"])
    assert oracle.view(PATH).total_lines == 11 and oracle.reconstruct(PATH)[11] == "line 10"
    assert oracle.apply(unchanged(v2)) == [] and oracle.check(PATH, v2) == []
    wrong = ReadOracle()
    wrong.learn_all(PATH, split_lines(V1))
    wrong.edit(PATH, 5, 1, ["five"])  # the agent's edit, then someone else changes line 9
    assert wrong.apply(unchanged(edit(edit(V1, 5, "five"), 9, "nine"))) == []
    assert wrong.check(PATH, edit(edit(V1, 5, "five"), 9, "nine")) == [
        f"{PATH}:9: expected 'nine', agent believes 'line 9'"]


def test_passthrough_keeps_the_copy_and_unknown_mode_is_flagged():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    assert oracle.apply({"v": 1, "path": PATH, "mode": "passthrough", "text": "binary file"}) == []
    assert oracle.reconstruct(PATH) == {n: f"line {n}" for n in range(1, 11)}
    assert oracle.check(PATH, "anything\n") == []  # the passthrough vouched for nothing
    assert oracle.apply(unchanged(V1)) == [] and oracle.check(PATH, V1) == []
    assert oracle.apply(dict(full_read(V1), mode="teleport")) == [f"{PATH}: unknown mode 'teleport'"]


def test_error_answers_change_nothing():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    assert oracle.apply({"v": 1, "mode": "error", "error": "no such file"}) == []
    assert oracle.apply(unchanged(V1)) == [] and oracle.check(PATH, V1) == []


def test_split_lines_matches_cat_n():
    assert split_lines("") == []
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("a\r\n\n") == ["a\r", ""]


def test_the_judge_imports_nothing_of_the_engine():
    import ast
    from pathlib import Path

    import symbolpack.evaluation.oracle as oracle

    tree = ast.parse(Path(oracle.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and not (node.module or "").startswith("symbolpack"), ast.dump(node)
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith("symbolpack") for a in node.names)


def test_pack_stubs_are_judged_against_the_copy_not_against_what_a_pack_once_gave():
    """A pack gave lines 4-7; a range then showed other text there; the file came back:
    an [UNCHANGED] stub for that code is wrong (the copy holds the range's text)."""
    from symbolpack.evaluation.harness import PackJudge

    v2 = edit(V1, 5, "five")
    files = {PATH: split_lines(V1)}
    oracle = ReadOracle()
    judge = PackJudge(delta=True, read_oracle=oracle)
    code = {"v": 1, "slices": [{"id": "f", "path": PATH, "lines": [4, 7], "code": "line 4\nline 5\nline 6\nline 7"}],
            "unchanged": [], "diffs": [], "text": "..."}
    stub = {"v": 1, "slices": [{"id": "f", "path": PATH, "lines": [4, 7], "code": None}],
            "unchanged": ["f"], "diffs": [], "text": "..."}
    assert judge.apply(code, files.get) == []
    assert oracle.reconstruct(PATH) == {n: f"line {n}" for n in range(4, 8)}  # the pack wrote into the copy
    assert judge.apply(stub, files.get) == []  # the copy holds it as it is
    assert oracle.apply(rng(v2, 5, 5)) == []  # a later display of other text at line 5
    assert judge.apply(stub, files.get) == [
        "f: claimed [UNCHANGED], but this session was never given that code as it is now"]
    assert oracle.apply(rng(V1, 5, 5)) == []  # shown again as it is: the stub is right again
    assert judge.apply(stub, files.get) == []
