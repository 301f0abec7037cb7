"""The agent's copy of one file: what the conversation last gave it, line by line. Pure.

A model reads a conversation; for each line number it believes the most recent
display of that line. Every answer symbolpack gives — a full read, a skeleton, a
delta, a diff, a range, a drill-in, a context-pack slice, an `[UNCHANGED]` stub —
writes into this one copy, and every later answer is computed against it. There
are no per-scope "views": a range read newer than the last full read simply
overwrites those lines (ARCHITECTURE.md, "The agent's copy").

What we store per line is not text but *where the text came from*: every answer
makes the lines it covers equal to the file as it is at that moment, at the same
line numbers, so a line is fully described by the content hash (`sha`) of the
file version it was shown from, and by whether it was shown (*known*) or hidden
behind an elision marker (*hidden*: the agent does not have it, but we know what
it was, so a later read can tell whether it changed). Lines in no run are *gaps*:
nothing is known about them at all (never shown, or forgotten by a refresh).
The texts themselves live once in the object store, by hash.

Answers that were written but not yet confirmed delivered leave *pending* ranges
(intent id, start, end). Until the intent is committed, nobody knows whether the
agent got the new lines or still holds the old ones, so any answer whose scope
touches a pending line is a plain read ("unsure" fails open).
"""

from __future__ import annotations

from itertools import groupby

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Sequence

# A run: (start, end, sha, hidden). hidden is None for known lines, else the symbol
# id (or "") whose body the agent was told is elided there.


class AgentCopy:
    """One file's copy: `length` (lines in the last whole-file answer, None before
    any), `runs` (sorted, disjoint), `pending` ((intent, start, end) not yet delivered)."""

    __slots__ = ("length", "runs", "pending")

    def __init__(self, length: int | None = None, runs: tuple = (), pending: tuple = ()):
        self.length = length
        self.runs = tuple(runs)
        self.pending = tuple(pending)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentCopy) and (self.length, self.runs, self.pending) == (
            other.length, other.runs, other.pending)

    def __repr__(self) -> str:
        return f"AgentCopy(length={self.length}, runs={self.runs}, pending={self.pending})"

    # ------------------------------------------------------------------ facts
    @property
    def empty(self) -> bool:
        return self.length is None and not self.runs

    def extent(self) -> int:
        """The highest line number the copy says anything about."""
        return max(self.length or 0, self.runs[-1][1] if self.runs else 0)

    def versions(self) -> set[str]:
        return {run[2] for run in self.runs}

    def uncertain(self, start: int, end: int) -> bool:
        """Does an undelivered answer touch lines start..end?"""
        return any(a <= end and start <= b for _, a, b in self.pending)

    def in_sync(self, sha: str, total: int) -> bool:
        """The whole copy is version *sha* of a *total*-line file, no gap, nothing
        pending: the cheap test for an unchanged re-read (no object is loaded)."""
        if self.length != total or self.pending:
            return False
        line = 1
        for start, end, run_sha, _hidden in self.runs:
            if start != line or run_sha != sha:
                return False
            line = end + 1
        return line == total + 1

    def per_line(self, upto: int | None = None) -> list:
        """Index 1..upto: (sha, hidden) or None for a gap (index 0 unused)."""
        upto = self.extent() if upto is None else upto
        out: list = [None] * (upto + 1)
        for start, end, sha, hidden in self.runs:
            for n in range(start, min(end, upto) + 1):
                out[n] = (sha, hidden)
        return out

    def hidden_runs(self) -> list[tuple[int, int, str]]:
        """(start, end, symbol) of lines the agent was told are elided."""
        return [(a, b, h) for a, b, _sha, h in self.runs if h is not None]

    def texts(self, load: Callable[[str], Sequence[str] | None],
              upto: int | None = None) -> tuple[list, list[bool]]:
        """(texts, known): per line 1..upto, the text the copy's version has there
        (None for a gap, a missing baseline, or a line past that version's end) and
        whether the agent holds it (False for hidden lines and gaps)."""
        upto = self.extent() if upto is None else upto
        texts: list = [None] * (upto + 1)
        known = [False] * (upto + 1)
        cache: dict[str, Sequence[str] | None] = {}
        for start, end, sha, hidden in self.runs:
            if sha not in cache:
                cache[sha] = load(sha)
            version = cache[sha]
            if version is None:
                continue  # no trustworthy record: a gap
            stop = min(end, upto, len(version))
            if start <= stop:
                texts[start:stop + 1] = version[start - 1:stop]
                if hidden is None:
                    known[start:stop + 1] = [True] * (stop - start + 1)
        return texts, known

    def holds(self, start: int, end: int, sha: str, lines: Sequence[str],
              load: Callable[[str], Sequence[str] | None]) -> bool:
        """Does the agent hold every line start..end exactly as *lines* (version
        *sha*) has them now? Nothing pending, no gap, nothing hidden."""
        if start < 1 or end > len(lines) or start > end or self.uncertain(start, end):
            return False
        covered = start
        foreign: list[tuple[int, int, str]] = []
        for a, b, run_sha, hidden in self.runs:
            if b < start or a > end:
                continue
            if a > covered or hidden is not None:
                return False
            if run_sha != sha:
                foreign.append((max(a, start), min(b, end), run_sha))
            covered = b + 1
            if covered > end:
                break
        if covered <= end:
            return False
        for a, b, run_sha in foreign:
            version = load(run_sha)
            if version is None or len(version) < b or any(version[n - 1] != lines[n - 1] for n in range(a, b + 1)):
                return False
        return True

    @classmethod
    def from_cells(cls, length: int | None, cells: Sequence, pending: tuple = ()) -> "AgentCopy":
        """A copy from per-line cells (index 0 unused): (sha, hidden) or None for a gap,
        the shape `per_line` gives."""
        return cls(length, _runs(cells), pending)

    # ------------------------------------------------------------------ changes (each returns a new copy)
    def replaced(self, total: int, sha: str, known: Sequence[bool], hidden_symbols: Iterable = ()) -> "AgentCopy":
        """After a whole-file answer: every line is version *sha*; *known* (1-based
        mask) says which the agent holds; the rest are hidden, named by
        *hidden_symbols* ((start, end, symbol) runs) where a symbol is known."""
        names: list = [""] * (total + 1)
        for a, b, symbol in hidden_symbols:
            a, b = max(a, 1), min(b, total)
            if a <= b:
                names[a:b + 1] = [symbol or ""] * (b - a + 1)
        runs = []
        start = 1
        for held, lines in groupby(known[1:total + 1], bool):  # runs, not lines: a copy is re-made per read
            end = start + sum(1 for _ in lines) - 1
            if held:
                runs.append((start, end, sha, None))
            else:
                for symbol, hidden in groupby(names[start:end + 1]):
                    stop = start + sum(1 for _ in hidden) - 1
                    runs.append((start, stop, sha, symbol))
                    start = stop + 1
            start = end + 1
        return AgentCopy(total, tuple(runs))  # answered whole: nothing before it is pending

    def written(self, start: int, end: int, sha: str) -> "AgentCopy":
        """After lines start..end of version *sha* were shown (or truly confirmed)."""
        cells = self.per_line(max(self.extent(), end))
        for n in range(start, end + 1):
            cells[n] = (sha, None)
        return AgentCopy(self.length, _runs(cells), self.pending)

    def forgotten(self, start: int, end: int) -> "AgentCopy":
        """Lines start..end are no longer trusted (a refresh): gaps."""
        cells = self.per_line()
        for n in range(max(start, 1), min(end, len(cells) - 1) + 1):
            cells[n] = None
        return AgentCopy(self.length, _runs(cells), self.pending)

    def reconciled(self, start: int, end: int, lines: Sequence[str],
                   load: Callable[[str], Sequence[str] | None]) -> "AgentCopy":
        """Lines start..end were shown as they are now (*lines*), but not as numbered
        lines (a signature in a context pack): where the agent held other text there,
        it may now believe either, so those lines become gaps (hidden ones too: it was
        shown something there); where it held the same text, or nothing, nothing changes."""
        texts, known = self.texts(load, max(end, self.extent()))
        cells = self.per_line(max(end, self.extent()))
        changed = False
        for n in range(max(start, 1), min(end, len(lines)) + 1):
            if cells[n] is not None and texts[n] != lines[n - 1]:
                cells[n] = None
                changed = True
        return AgentCopy(self.length, _runs(cells), self.pending) if changed else self

    def with_pending(self, intent: str, start: int, end: int) -> "AgentCopy":
        return AgentCopy(self.length, self.runs, (*self.pending, (intent, start, end)))

    def settled(self, committed: Callable[[str], bool]) -> "AgentCopy":
        """Drop pending ranges whose intent was committed (the answer was delivered)."""
        left = tuple(p for p in self.pending if not committed(p[0]))
        return self if len(left) == len(self.pending) else AgentCopy(self.length, self.runs, left)

    def cleared(self, start: int, end: int) -> "AgentCopy":
        """Pending ranges inside start..end are resolved by a plain answer of that scope."""
        left = tuple(p for p in self.pending if not (start <= p[1] and p[2] <= end))
        return AgentCopy(self.length, self.runs, left)

    # ------------------------------------------------------------------ storage
    def to_json(self) -> list:
        """[length, [[start, end, version index, hidden], ...], [sha, ...], [[intent, start, end], ...]]"""
        shas: list[str] = []
        index: dict[str, int] = {}
        runs = []
        for a, b, sha, hidden in self.runs:
            if sha not in index:
                index[sha] = len(shas)
                shas.append(sha)
            runs.append([a, b, index[sha], hidden])
        return [self.length, runs, shas, [list(p) for p in self.pending]]

    @classmethod
    def from_json(cls, raw: object) -> AgentCopy:
        """Decode and validate; ValueError when the stored value does not fit."""
        if not isinstance(raw, list) or len(raw) != 4:
            raise ValueError("copy is not a 4-list")
        length, runs, shas, pending = raw
        if length is not None and not _is_count(length):
            raise ValueError("bad length")
        if not isinstance(runs, list) or not isinstance(shas, list) or not isinstance(pending, list):
            raise ValueError("bad copy parts")
        if not all(isinstance(s, str) and len(s) == 64 for s in shas):
            raise ValueError("bad version hash")
        out = []
        last = 0
        for run in runs:
            if not (isinstance(run, list) and len(run) == 4 and _is_count(run[0]) and _is_count(run[1])
                    and type(run[2]) is int and 0 <= run[2] < len(shas)
                    and (run[3] is None or isinstance(run[3], str))):
                raise ValueError("bad run")
            a, b = run[0], run[1]
            if not (last < a <= b):
                raise ValueError("runs overlap or are out of order")
            last = b
            out.append((a, b, shas[run[2]], run[3]))
        pend = []
        for p in pending:
            if not (isinstance(p, list) and len(p) == 3 and isinstance(p[0], str) and _is_count(p[1])
                    and _is_count(p[2]) and p[1] <= p[2]):
                raise ValueError("bad pending range")
            pend.append((p[0], p[1], p[2]))
        return cls(length, tuple(out), tuple(pend))


def _is_count(value: object) -> bool:
    return type(value) is int and value >= 0


def _runs(cells: Sequence) -> tuple:
    """Compress per-line cells (index 0 unused) into runs."""
    out: list = []
    for n in range(1, len(cells)):
        cell = cells[n]
        if cell is None:
            continue
        if out and out[-1][1] == n - 1 and out[-1][2] == cell[0] and out[-1][3] == cell[1]:
            out[-1][1] = n
        else:
            out.append([n, n, cell[0], cell[1]])
    return tuple(tuple(r) for r in out)
