"""The agent-view oracle, driven by hand-written protocol responses (no engine involved)."""

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


def test_unchanged_segment_pointing_at_lines_never_seen_is_flagged():
    oracle = ReadOracle()
    skeleton = response("skeleton", numbered(V1, (1, 3), (8, 10)), V1, [
        {"kind": "shown", "start": 1, "end": 3},
        {"kind": "elided", "start": 4, "end": 7, "symbol": f"{PATH}:python:f"},
        {"kind": "shown", "start": 8, "end": 10},
    ])
    assert oracle.apply(skeleton) == []
    delta = response("delta", numbered(V1, (1, 3)), V1, [
        {"kind": "shown", "start": 1, "end": 3},
        {"kind": "unchanged", "start": 4, "end": 10, "from": 4},
    ])
    problems = oracle.apply(delta)
    assert [p for p in problems if "never had" in p] == [
        f"{PATH}: refers to previous line {n}, which the agent never had" for n in range(4, 8)
    ]
    assert 5 not in oracle.reconstruct(PATH) and oracle.reconstruct(PATH)[9] == "line 9"


def test_delta_with_shifted_unchanged_segment_is_resolved_against_the_previous_view():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = "inserted\n" + V1  # line n of v1 is line n + 1 of v2
    delta = response("delta", numbered(v2, (1, 1)), v2, [
        {"kind": "shown", "start": 1, "end": 1},
        {"kind": "unchanged", "start": 2, "end": 11, "from": 1},
    ])
    assert oracle.apply(delta) == []
    assert oracle.check(PATH, v2) == []
    delta_off_by_one = dict(delta, segments=[
        {"kind": "shown", "start": 1, "end": 1},
        {"kind": "unchanged", "start": 2, "end": 11, "from": 2},
    ])
    oracle2 = ReadOracle()
    oracle2.apply(full_read(V1))
    assert any("never had" in p for p in oracle2.apply(delta_off_by_one))  # from 2..11: line 11 unknown
    assert oracle2.check(PATH, v2)  # and lines 2..10 are believed wrong


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


def test_diff_whose_context_does_not_match_the_view_is_flagged():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = edit(V1, 5, "five")
    diff = "@@ -4,3 +4,3 @@\n line 4 (not what the agent saw)\n-line 5\n+five\n line 6\n"
    problems = oracle.apply(response("diff", diff, v2))
    assert problems == [f"{PATH}: diff expects old line 4 = 'line 4 (not what the agent saw)', "
                        f"the agent's view has 'line 4'"]


def test_diff_without_a_previous_view_is_flagged():
    v2 = edit(V1, 5, "five")
    problems = ReadOracle().apply(response("diff", "@@ -5 +5 @@\n-line 5\n+five\n", v2))
    assert problems == [f"{PATH}: mode diff, but the agent has no previous full view"]


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


def test_range_read_only_updates_its_lines():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    # Same file: lines outside the range stay known.
    rng = response("range", numbered(V1, (3, 4)), V1, [{"kind": "shown", "start": 3, "end": 4}],
                   scope={"start": 3, "end": 4})
    assert oracle.apply(rng) == []
    assert sorted(oracle.reconstruct(PATH)) == list(range(1, 11))
    # Changed file: only the range is trustworthy now.
    v2 = edit(V1, 9, "nine")
    rng2 = response("range", numbered(v2, (3, 4)), v2, [{"kind": "shown", "start": 3, "end": 4}],
                    scope={"start": 3, "end": 4})
    assert oracle.apply(rng2) == []
    assert oracle.reconstruct(PATH) == {3: "line 3", 4: "line 4"}
    assert oracle.check(PATH, v2) == []


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


def test_stale_unchanged_is_caught_by_check():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = edit(V1, 2, "two")
    stale = response("unchanged", "[unchanged since your last read]", V1)  # engine lied, sha of old bytes
    assert oracle.apply(stale) == []
    assert oracle.check(PATH, v2) == [f"{PATH}:2: expected 'two', agent believes 'line 2'"]


def test_unchanged_with_a_different_sha_is_flagged():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    v2 = edit(V1, 2, "two")
    problems = oracle.apply(response("unchanged", "[unchanged]", v2))
    assert problems == [f"{PATH}: mode unchanged, but sha256 differs from the previous full view"]


def test_unchanged_without_a_previous_view_is_flagged():
    oracle = ReadOracle()
    assert oracle.apply(response("unchanged", "[unchanged]", V1)) == [
        f"{PATH}: mode unchanged, but the agent has no previous full view"]
    rng = response("unchanged", "[unchanged]", V1, scope={"start": 2, "end": 3})
    assert oracle.apply(rng) == [f"{PATH}: refers to previous line {n}, which the agent never had" for n in (2, 3)]


def test_passthrough_forgets_and_unknown_mode_is_flagged():
    oracle = ReadOracle()
    oracle.apply(full_read(V1))
    assert oracle.apply({"v": 1, "path": PATH, "mode": "passthrough", "text": "binary file"}) == []
    assert oracle.view(PATH) is None and oracle.check(PATH, "anything\n") == []
    assert oracle.apply(dict(full_read(V1), mode="teleport")) == [f"{PATH}: unknown mode 'teleport'"]


def test_split_lines_matches_cat_n():
    assert split_lines("") == []
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("a\r\n\n") == ["a\r", ""]
