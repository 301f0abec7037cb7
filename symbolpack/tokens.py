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


def estimate_tokens(text: str) -> int:
    # one token per piece, and a long word one more per 8 letters past the first 8
    # (counted with two C-level scans: this runs over whole files on every read)
    extra = sum((len(w) - 1) // 8 for w in _LONG_WORDS.findall(text))
    return len(_PIECES.findall(text)) + extra


_counter: Callable[[str], int] = estimate_tokens
_counter_name = "estimate"


def count_tokens(text: str) -> int:
    return _counter(text)


def counter_name() -> str:
    return _counter_name


def use_counter(counter: Callable[[str], int], name: str) -> None:
    """Swap the process-wide counter (the eval harness does this for exact BPE counts)."""
    global _counter, _counter_name
    _counter, _counter_name = counter, name
