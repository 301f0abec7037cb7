"""The token estimate: its fast path (byte classes, ASCII text) must count exactly
what its definition (the regular expressions) counts."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from symbolpack.base.tokens import estimate_tokens, regex_estimate

# every ASCII character, weighted toward the ones that make pieces and runs
ASCII = st.text(st.sampled_from([chr(c) for c in range(128)] + list("aZ09 \n\t_") * 8), max_size=400)


@given(ASCII)
@settings(max_examples=400)
def test_the_fast_estimate_is_the_regex_estimate_on_ascii(text):
    assert estimate_tokens(text) == regex_estimate(text)


@given(st.text(max_size=200))
def test_non_ascii_text_is_counted_by_the_definition(text):
    assert estimate_tokens(text) == regex_estimate(text)


def test_pieces_by_hand():
    assert estimate_tokens("") == 0
    assert estimate_tokens("foo(bar, 1234567)\n") == 1 + 1 + 1 + 1 + 3 + 1 + 1  # 123|456|7
    assert estimate_tokens("abcdefghijklmnopq") == 1 + 2  # 17 letters: one more per 8 past the first 8
    assert estimate_tokens("  \t x\x0b\x1c") == 1


def test_the_package_source_counts_the_same_both_ways():
    paths = sorted((Path(__file__).resolve().parents[2] / "symbolpack").rglob("*.py"))
    assert len(paths) > 40
    for path in paths:
        text = path.read_text()
        assert estimate_tokens(text) == regex_estimate(text), path


LINES = st.lists(st.one_of(ASCII, st.text(max_size=40)), max_size=30)


@given(LINES, st.sampled_from([1, 2, 995, 998, 999_990, 999_999_995]), st.data())
@settings(max_examples=300)
def test_numbered_tokens_count_the_numbered_text_without_building_it(lines, first, data):
    """The count of `numbered_text` a read is measured by, taken without the text:
    line numbers across 999/1,000 and 999,999/1,000,000 included (the lines are laid
    out from *first* on)."""
    from symbolpack.reads.views import numbered_text, numbered_tokens

    padded = [""] * (first - 1) + lines if first < 1000 else None
    if padded is None:  # big line numbers: a list that long would not fit; index a view instead
        class Offset(list):
            def __getitem__(self, index):
                if isinstance(index, slice):
                    return lines[index.start - (first - 1):index.stop - (first - 1)]
                return lines[index - (first - 1)]
        padded = Offset()
    end = first - 1 + len(lines)
    start = data.draw(st.integers(first, max(first, end)))
    assert numbered_tokens(padded, start, end) == regex_estimate(numbered_text(padded, start, end))


def test_numbered_tokens_use_the_exact_counter_when_one_is_swapped_in():
    from symbolpack.base.tokens import use_counter
    from symbolpack.reads.views import numbered_tokens

    use_counter(len, "chars")
    try:
        assert numbered_tokens(["ab", "c"], 1, 2) == len("     1\tab\n     2\tc")
    finally:
        use_counter(estimate_tokens, "estimate")
