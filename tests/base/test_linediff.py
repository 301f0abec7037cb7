"""linediff: the alignment every version comparison uses. Properties: applying the
opcodes to old gives new; every matched line is equal (unknown lines match
nothing); hunks group exactly as difflib groups the same opcodes; repeated-line
inputs that make difflib quadratic still align sensibly."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from symbolpack.base.linediff import grouped_opcodes, matching_blocks, opcodes

# few distinct lines, so repeats (the hard case) are the rule, plus unknown lines
line = st.one_of(st.sampled_from(["}", "", "  return x;", "a", "b", "c", "d"]), st.text("xyz", max_size=3))
lines = st.lists(line, max_size=60)
with_unknown = st.lists(st.one_of(line, st.none()), max_size=60)


def apply(old, new, ops):
    out = []
    for tag, i1, i2, j1, j2 in ops:
        out.extend(old[i1:i2] if tag == "equal" else new[j1:j2])
    return out


@settings(max_examples=400, deadline=None)
@given(lines, lines)
def test_opcodes_turn_old_into_new_and_cover_both_sides(old, new):
    ops = opcodes(old, new)
    assert apply(old, new, ops) == new
    # contiguous, complete on both sides
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j) and i1 <= i2 and j1 <= j2 and (i2 > i1 or j2 > j1)
        if tag == "equal":
            assert i2 - i1 == j2 - j1 and old[i1:i2] == new[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(old), len(new))


@settings(max_examples=400, deadline=None)
@given(with_unknown, with_unknown)
def test_matched_lines_are_equal_and_unknown_lines_match_nothing(old, new):
    blocks = matching_blocks(old, new)
    assert blocks[-1] == (len(old), len(new), 0)
    last_i = last_j = 0
    for i, j, n in blocks[:-1]:
        assert n > 0 and i >= last_i and j >= last_j  # in order, no overlap
        for k in range(n):
            assert old[i + k] is not None and old[i + k] == new[j + k]
        last_i, last_j = i + n, j + n


@settings(max_examples=300, deadline=None)
@given(lines, lines, st.integers(0, 4))
def test_hunks_group_like_difflib_for_the_same_opcodes(old, new, context):
    ops = opcodes(old, new)
    reference = difflib.SequenceMatcher(None, old, new, autojunk=False)
    reference.opcodes = list(ops)  # difflib groups whatever opcodes it holds
    assert list(grouped_opcodes(ops, context)) == list(reference.get_grouped_opcodes(context))


def test_identical_inputs_are_one_equal_run_and_no_hunk():
    text = ["}", "a", "}"] * 5
    assert opcodes(text, list(text)) == [("equal", 0, 15, 0, 15)]
    assert list(grouped_opcodes(opcodes(text, list(text)))) == []


def test_scattered_edits_in_repetitive_code_change_only_the_edited_lines():
    block = ["  method(value) {", "    if (value == null) {", "      return null;", "    }", "    return value;",
             "  }", ""]
    old = [f"class C{k} {{" if i == 0 else ln for k in range(300) for i, ln in enumerate(["", *block])]
    new = list(old)
    edited = list(range(50, len(old), 400))
    for n in edited:
        new[n] += " // edited"
    changed = [op for op in opcodes(old, new) if op[0] != "equal"]
    assert changed == [("replace", n, n + 1, n, n + 1) for n in edited]


def test_a_gap_of_unknown_lines_is_replaced_one_for_one():
    old = ["a", None, None, "d"]
    assert opcodes(old, ["a", "b", "c", "d"]) == [("equal", 0, 1, 0, 1), ("replace", 1, 3, 1, 3),
                                                  ("equal", 3, 4, 3, 4)]


@settings(max_examples=300, deadline=None)
@given(with_unknown, with_unknown)
def test_without_difflib_for_small_gaps_the_rarest_line_pairing_is_still_exact(old, new):
    import symbolpack.base.linediff as linediff

    saved, linediff._DIFFLIB_PAIRS = linediff._DIFFLIB_PAIRS, 0  # big-gap path on small inputs
    try:
        ops = opcodes(old, new)
    finally:
        linediff._DIFFLIB_PAIRS = saved
    assert apply(old, new, ops) == new
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            assert all(a is not None and a == b for a, b in zip(old[i1:i2], new[j1:j2]))


@settings(max_examples=400, deadline=None)
@given(with_unknown, with_unknown)
def test_opcodes_with_unknown_lines_never_call_an_unknown_line_equal(old, new):
    ops = opcodes(old, new)
    assert apply(old, new, ops) == new
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            assert None not in old[i1:i2] and old[i1:i2] == new[j1:j2]


def test_an_insertion_that_can_end_on_a_blank_line_does():
    """A method added above a twin with the same doc comment: the new block is the
    doc, the method and the blank after it; the twin keeps its own doc."""
    old = ["class A:", "", "  /** doc */", "  def verify():", "    body", "  }"]
    new = ["class A:", "", "  /** doc */", "  def crypto():", "    other", "  }", "", "  /** doc */",
           "  def verify():", "    body", "  }"]
    assert opcodes(old, new) == [("equal", 0, 2, 0, 2), ("insert", 2, 2, 2, 7), ("equal", 2, 6, 7, 11)]
    # and the same for the deletion of it
    assert opcodes(new, old) == [("equal", 0, 2, 0, 2), ("delete", 2, 7, 2, 2), ("equal", 7, 11, 2, 6)]
    # no blank line to end on: the alignment is left as it was found
    no_blank = [line for line in new if line]
    assert opcodes([line for line in old if line], no_blank) == [
        ("equal", 0, 2, 0, 2), ("insert", 2, 2, 2, 6), ("equal", 2, 5, 6, 9)]


def test_a_function_added_after_the_last_one_starts_on_its_blank_line():
    """`};`, blank, new function, `};` at the end of a file: without a blank line to end
    on, the block starts on one, and the last function keeps its closing line (mocha's
    `isNumeric` was "changed line 706", its `};`, and the agent doubted the delta)."""
    from symbolpack.base.linediff import _slid_to_blank_ends

    old = ["exports.isNumeric = (input) => {", "  return !isNaN(input);", "};"]
    new = [*old, "", "exports.isCI = () => {", "  return !!process.env.CI;", "};"]
    assert opcodes(old, new) == [("equal", 0, 3, 0, 3), ("insert", 3, 3, 3, 7)]
    assert opcodes(new, old) == [("equal", 0, 3, 0, 3), ("delete", 3, 7, 3, 3)]
    # the alignment of a longer file paired the last `};` with the file's last line (as a
    # common suffix would): the slide takes that line back, the equal run after it goes
    found = [("equal", 0, 2, 0, 2), ("insert", 2, 2, 2, 6), ("equal", 2, 3, 6, 7)]
    assert _slid_to_blank_ends(found, old, new) == [("equal", 0, 3, 0, 3), ("insert", 3, 3, 3, 7)]
    # in the middle of a file a blank line to end on comes first (the function and the blank after it)
    tail = ["", "module.exports = exports;"]
    assert opcodes([*old, *tail], [*new, *tail]) == [("equal", 0, 4, 0, 4), ("insert", 4, 4, 4, 8),
                                                     ("equal", 4, 5, 8, 9)]
