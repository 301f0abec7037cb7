"""The token estimate: its fast path (byte classes, ASCII text) must count exactly
what its definition (the regular expressions) counts."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from symbolpack.tokens import estimate_tokens, regex_estimate

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
    for path in sorted((Path(__file__).parent.parent / "symbolpack").glob("*.py")):
        text = path.read_text()
        assert estimate_tokens(text) == regex_estimate(text), path
