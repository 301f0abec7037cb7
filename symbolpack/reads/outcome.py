"""A read's outcome: the file now (`Current`), the response the protocol names, and the
agent's copy after it (`ReadOutcome`). Pure, and below both the read decision
(`read.py`) and the re-reads of a changed file (`delta.py`), which build them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs milliseconds at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Callable, Sequence

    from ..engine.symbols import SymbolSlice

from .agentcopy import AgentCopy
from ..base.tokens import count_tokens


class Current:
    """The file now, as the caller loaded it. Symbols are parsed only if a rule needs
    them (an unchanged re-read never parses)."""

    def __init__(self, sha256: str, lines: Sequence[str],
                 symbols: "Sequence[SymbolSlice] | None | Callable[[], Sequence[SymbolSlice] | None]",
                 diffable: bool = True):
        self.sha256 = sha256
        self.lines = lines
        self.diffable = diffable
        self._symbols = symbols
        self._full_tokens: int | None = None

    def full_tokens(self) -> int:
        """Tokens of a plain full read (counted once per read; it is the yardstick of
        every rule)."""
        if self._full_tokens is None:
            from .views import numbered_tokens

            self._full_tokens = numbered_tokens(self.lines, 1, len(self.lines))
        return self._full_tokens

    def know_full_tokens(self, count: int | None) -> None:
        """A count made earlier of these same bytes (the session keeps one per file)."""
        if count is not None:
            self._full_tokens = count

    @property
    def counted_full_tokens(self) -> int | None:
        """The count, if this read has needed it (None: not counted)."""
        return self._full_tokens

    @property
    def parsed(self) -> Sequence[SymbolSlice] | None:
        """The symbols if this read has parsed the file already (None: not parsed, or
        no parser handles it)."""
        return None if callable(self._symbols) else self._symbols

    @property
    def symbols(self) -> Sequence[SymbolSlice] | None:
        """None when no parser handles the file (or parsing failed)."""
        if callable(self._symbols):
            self._symbols = self._symbols()
        return self._symbols


class ReadOutcome:
    """The response, the agent's copy after it, and drill-ins to record."""

    __slots__ = ("response", "copy", "scope", "drill_ins", "fallback")

    def __init__(self, response: dict, copy: AgentCopy, scope: tuple[int, int] | None,
                 drill_ins: list[dict] | None = None, fallback: str | None = None):
        self.response = response
        self.copy = copy
        self.scope = scope
        self.drill_ins = drill_ins or []
        # why a plain read answered where the copy held something: "pending" (an
        # answer may not have arrived), "mixed" (the copy cannot be the old side of
        # a diff and no parser gives a delta), "baseline" (a version is missing),
        # "gate"/"cost" (a diff or delta would not pay), "truncated", "forced"
        self.fallback = fallback

    @property
    def changes_copy_text(self) -> bool:
        """Did the answer give the agent lines it may not have had? Only then does
        an undelivered answer leave the copy unsure (an `unchanged` answer only
        confirms text the agent already holds)."""
        return self.response["mode"] != "unchanged"



def response_of(request, current: Current, mode: str, text: str, scope, segments, full_tokens: int,
              tokens: int | None = None) -> dict:
    out = {
        "v": 1,
        "path": request.path,
        "mode": mode,
        "scope": {"start": scope[0], "end": scope[1]} if scope else None,
        "total_lines": len(current.lines),
        "sha256": current.sha256,
        "text": text,
        "tokens": count_tokens(text) if tokens is None else tokens,
        "full_tokens": full_tokens,
    }
    if segments is not None:
        out["segments"] = [s.to_json() for s in segments]
    return out


def copy_after(copy: AgentCopy, current: Current, segments) -> AgentCopy:
    """The copy after a whole-file answer drawn as *segments*."""
    from .views import known_mask, known_ranges

    total = len(current.lines)
    known = known_mask(total, known_ranges(segments))
    hidden = [(s.start, s.end, s.symbol or "") for s in segments if s.kind == "elided"]
    return copy.replaced(total, current.sha256, known, hidden)
