"""Token counts for what the agent is shown.

A fast, dependency-free estimate by default (it runs on every read, including
in hooks where start-up time matters). It is deliberately tokenizer-shaped:
words split roughly as BPE does, every symbol and newline counted, runs of
indentation cheap. All policies in a comparison are counted with the same
counter, so savings ratios do not depend on its absolute accuracy; the eval can
swap in an exact BPE counter when one is installed offline.
"""

from __future__ import annotations

import re
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

_PIECES = re.compile(r"[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]|\n")
_LONG_WORDS = re.compile(r"[A-Za-z]{9,}")


def _byte_table(keep: Callable[[int], int]) -> bytes:
    return bytes(keep(b) for b in range(256))


_LETTERS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset(b"0123456789")
_SPACE = frozenset(b" \t\r\x0b\x0c\x1c\x1d\x1e\x1f")  # what `\s` matches in ASCII, but newline
# every ASCII byte as its class: a letter, a digit, a newline, a space, or p(unctuation)
_CLASSES = _byte_table(lambda b: 97 if b in _LETTERS else 100 if b in _DIGITS else 110 if b == 10
                       else 32 if b in _SPACE else 112)
_ONLY_LETTERS = _byte_table(lambda b: b if b in _LETTERS else 32)
_ONLY_DIGITS = _byte_table(lambda b: b if b in _DIGITS else 32)


def estimate_tokens(text: str) -> int:
    """One token per piece (a run of letters, up to 3 digits, a symbol, a newline),
    and a long word one more per 8 letters past the first 8. Runs over whole files
    on every read, so ASCII text (nearly all code) is counted with byte translations
    and splits in C; other text with the regular expressions that define it."""
    if not text.isascii():
        return regex_estimate(text)
    data = text.encode("ascii")
    classes = data.translate(_CLASSES)
    words = data.translate(_ONLY_LETTERS).split()
    return (classes.count(b"p") + classes.count(b"n") + len(words)
            + sum((len(w) - 1) // 8 for w in words if len(w) > 8)
            + sum((len(d) + 2) // 3 for d in data.translate(_ONLY_DIGITS).split()))


def regex_estimate(text: str) -> int:
    """`estimate_tokens` by its definition alone (non-ASCII text, and the tests' yardstick
    for the fast path)."""
    return len(_PIECES.findall(text)) + sum((len(w) - 1) // 8 for w in _LONG_WORDS.findall(text))


_counter: Callable[[str], int] = estimate_tokens
_counter_name = "estimate"


def count_tokens(text: str) -> int:
    return _counter(text)


def uses_estimate() -> bool:
    """Is the counter the estimate (whose count of a text is the sum of its lines')?"""
    return _counter is estimate_tokens


def counter_name() -> str:
    return _counter_name


def use_counter(counter: Callable[[str], int], name: str) -> None:
    """Swap the process-wide counter (the eval harness does this for exact BPE counts)."""
    global _counter, _counter_name
    _counter, _counter_name = counter, name
