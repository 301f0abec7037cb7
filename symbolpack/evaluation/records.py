"""What the eval records per call: one `ReadRecord` per read, one `PackRecord` per pack.

The harness (`harness.py`) fills them; the summary (`summary.py`) prices and
totals them. They live here so that neither of the two imports the other for a type.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ReadRecord:
    """One engine call and what each policy would have cost for it."""

    turn: str
    path: str
    category: str
    request: str  # human-readable: "full", "lines 10-40", "symbol X"
    mode: str
    tokens: int  # symbolpack: tokens of the text it sent
    native: int
    reference: int
    latency_ms: float
    failures: list[str] = field(default_factory=list)
    reference_held: bool = False  # the diff-only reference already held exactly these lines
    held: bool = False  # symbolpack's agent already held exactly these lines (the oracle's copy)


@dataclass
class PackRecord:
    """One context pack (context / diff-context) and its judgement."""

    turn: str
    kind: str  # "context" | "diff-context" | "diff-context --no-delta"
    tokens: int
    native: int
    reference: int
    latency_ms: float
    unchanged: int
    failures: list[str] = field(default_factory=list)
    summarized: int = 0  # changed files the pack summarized instead of showing (not failures)
