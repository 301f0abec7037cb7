"""The read decision: (request, the agent's copy, the file now) -> response + new copy. Pure.

Everything here is computed against the agent's copy of the file (`AgentCopy`):
for every line number, what the most recent answer covering that line gave the
agent. Never against "the last full read" alone: a range read, a drill-in or a
context pack newer than it has overwritten those lines. The caller supplies the
current file, its symbols and a loader of old versions; this module does no I/O
and keeps no state, so every rule can be tested as a function. When a version is
missing, an answer may not have been delivered, or anything else is unsure, the
answer is a plain read of the scope: fail open, never stale.

Policy (documented in ARCHITECTURE.md):
* first full read of a parsed, non-small file -> skeleton (long bodies elided);
* re-read, same hash -> one-line `[UNCHANGED]` marker;
* re-read, changed, parsed -> symbol-granular delta, unless a unified diff is
  clearly smaller (< 80 % of the delta's tokens);
* re-read, changed, unparsed -> unified diff behind a complexity gate;
* whatever is chosen, never more tokens than a plain read of the scope.
"""

from __future__ import annotations

import re
from collections import namedtuple
TYPE_CHECKING = False  # `typing` costs milliseconds at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Callable, Collection, Sequence

from .agentcopy import AgentCopy
from .hints import CLI, Hints
from ..base.errors import UsageError
from ..base.tokens import count_tokens

if TYPE_CHECKING:
    from ..engine.symbols import SymbolSlice
    from .views import Segment, UnifiedDiff

# Values here are namedtuples, not dataclasses: this module is on the hook's
# unchanged-re-read path, where dataclass creation alone costs ~10 ms per process.
# Line alignment (linediff) and rendering (views, ~0.4 ms) are imported only by the
# rules that use them: an unchanged re-read needs neither.

FULL = "full"


class ReadPolicy(namedtuple("ReadPolicy", [
    "elide_min_lines", "small_file_tokens", "skeleton_max_share", "diff_prefer_share",
    "diff_max_hunks", "diff_max_changed_share", "truncation_share", "skeleton_target_share",
], defaults=[3, 1500, 0.85, 1.0, 8, 0.5, 0.5, 0.25])):  # small_file_tokens: Settings.small_file_tokens
    """Thresholds of the read policy: a skeleton aims at `skeleton_target_share` of a
    plain read and hides no run shorter than `elide_min_lines`; read
    files under `small_file_tokens` whole; a skeleton must cost at most
    `skeleton_max_share` of the file; prefer a diff under `diff_prefer_share` of the
    delta; diff gate `diff_max_hunks` / `diff_max_changed_share`; a file shrunk below
    `truncation_share` of its old length is re-read whole."""

    __slots__ = ()


class ReadRequest(namedtuple("ReadRequest", ["path", "offset", "limit", "symbol", "force_full", "told", "hints",
                                             "own_edits", "capped"],
                             defaults=[None, None, None, False, (), CLI, (), False])):
    """One read: a path, an optional range or resolved drill-in symbol, and --full.
    *told*: the modes this session was already answered with ("skeleton", "delta"):
    their first answer explained the markers; later ones say only what they are
    (a convention is explained once per session, not in every answer).
    *hints*: the words of the front end the answer goes to (`reads/hints.py`).
    *own_edits*: runs (start, end) of the copy that the model's own edits wrote and
    no answer has shown since: a whole-file re-read shows them (real models read an
    `[UNCHANGED]` after their edit as "my edit was not applied").
    *capped*: the range is the host's cap on a whole-file read (Claude's Read shows
    lines 1-2000 of a longer file), not lines the model asked for."""

    __slots__ = ()


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


class ReadError(UsageError):
    """A bad request (range out of bounds): one clear line for the user."""


def resolve_scope(total: int, offset: int | None, limit: int | None, hints: Hints = CLI) -> tuple[int, int] | None:
    """1-based inclusive scope, or None for the whole file. Raises ReadError when bad
    (worded for *hints*' front end)."""
    if offset is None and limit is None:
        return None
    if offset is not None and offset < 1:
        raise ReadError(f"{hints.option('offset')} must be >= 1 (got {offset})")
    if limit is not None and limit < 1:
        raise ReadError(f"{hints.option('limit')} must be >= 1 (got {limit})")
    start = offset or 1
    if start > max(total, 1):
        raise ReadError(f"{hints.option('offset')} {start} is past the end of the file ({total} lines)")
    end = total if limit is None else min(total, start + limit - 1)
    if start <= 1 and end >= total:
        return None
    return start, end


def request_scope(request: ReadRequest, total: int) -> tuple[int, int] | None:
    """The scope a request reads: a drill-in's symbol span, or --offset/--limit."""
    if request.symbol is not None:
        scope = tuple(request.symbol.lines)
        return None if scope == (1, total) else scope
    return resolve_scope(total, request.offset, request.limit, request.hints)


def asks_for_lines(request: ReadRequest) -> bool:
    """A drill-in or an explicit range asks for lines: every one of them must end up
    in the copy, even when the range happens to cover the whole file (then the scope
    is `full`, but no skeleton and no elision may answer it)."""
    return request.symbol is not None or request.offset is not None or request.limit is not None


def decide(
    request: ReadRequest,
    current: Current,
    copy: AgentCopy,
    load: Callable[[str], Sequence[str] | None],
    policy: ReadPolicy = ReadPolicy(),
    degraded: bool = False,
    names_before: Callable[[Sequence[str]], Collection[str] | None] | None = None,
) -> ReadOutcome:
    """The whole read decision against the agent's *copy* of this file. *load* maps
    a version hash to that version's lines (None when the baseline is gone);
    *names_before* (optional) gives the symbol names the copy's text defines (None:
    no parser), to name removed ones."""
    scope = request_scope(request, len(current.lines))
    plain_only = request.force_full or degraded
    if scope is None and asks_for_lines(request) and (copy.length is None or copy.hidden_runs()):
        # the agent asked for every line and some are not in its copy: send them all
        outcome = _plain(request, current, None, copy)
    elif scope is None:
        for start, end in request.own_edits:
            copy = copy.forgotten(start, end)
        outcome = _full_scope(request, current, copy, load, policy, plain_only, names_before)
    else:
        outcome = _range_scope(request, current, scope, copy, load, plain_only)
    if outcome.response["tokens"] > outcome.response["full_tokens"]:
        # the invariant of the product: never more than a plain read of the scope
        outcome = _plain(request, current, scope, copy, "cost")
    outcome.drill_ins = _drill_ins(request, scope, copy)
    return outcome


# --------------------------------------------------------------------------- responses

def _response(request: ReadRequest, current: Current, mode: str, text: str, scope, segments, full_tokens: int,
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


def _plain(request, current, scope, copy: AgentCopy, fallback: str | None = None) -> ReadOutcome:
    from .views import Segment, numbered_text

    total = len(current.lines)
    start, end = scope if scope else (1, total)
    text = numbered_text(current.lines, start, end)
    segments = [Segment("shown", start, end)] if total else []
    mode = FULL if scope is None else "range"
    tokens = current.full_tokens() if scope is None else count_tokens(text)
    response = _response(request, current, mode, text, scope, segments, tokens, tokens)  # a plain read is its own yardstick
    if scope is None:
        new_copy = copy.replaced(total, current.sha256, [True] * (total + 1))
    else:
        new_copy = copy.written(start, end, current.sha256)
    return ReadOutcome(response, new_copy, scope, fallback=fallback)


def _unchanged(request, current, copy: AgentCopy, note: str = "") -> ReadOutcome:
    """The copy stands. Said in words a model takes at face value (what the marker
    vouches for, not a bare tag); a change behind a body it was told is elided heads
    the answer `[CHANGED]`, never `[UNCHANGED]`."""
    if note:
        text = (f"[CHANGED] {request.path}: only inside code you have not read (still elided): {note}."
                " Every line you were shown is unchanged.")
    else:
        text = f"[UNCHANGED] {request.path}: exactly as you already have it from your earlier reads."
    response = _response(request, current, "unchanged", text, None, None, current.full_tokens())
    return ReadOutcome(response, copy, None)


def _full_scope(request, current, copy: AgentCopy, load, policy, plain_only, names_before) -> ReadOutcome:
    lines = current.lines
    total = len(lines)
    if plain_only:
        return _plain(request, current, None, copy, "forced")
    if copy.length is None:  # no whole-file answer yet (range reads at most)
        return _first_read(request, current, copy, policy, load)
    if copy.pending:
        return _plain(request, current, None, copy, "pending")  # an answer may not have arrived: unsure
    if copy.in_sync(current.sha256, total):
        return _unchanged(request, current, copy)
    upto = copy.extent()
    old, known = copy.texts(load, upto)
    if upto == total == copy.length and all(
            old[n] == lines[n - 1] if known[n] else old[n] is not None for n in range(1, total + 1)):
        # every line the agent holds is right where it holds it, and the rest is elided
        # (mixed versions after an edit and its revert, or changes only inside bodies
        # it never read): the copy stands; say which hidden bodies changed
        hidden = copy.hidden_runs()
        moved = [n for n in range(1, total + 1) if not known[n] and old[n] != lines[n - 1]]
        return _unchanged(request, current, copy.replaced(total, current.sha256, known, hidden),
                          _hidden_change_note(moved, current))
    if not current.diffable or total < upto * policy.truncation_share:
        return _plain(request, current, None, copy, "truncated")
    if not any(known):
        return _plain(request, current, None, copy, "baseline" if copy.runs else None)
    # a diff's old side is the copy: every line of it known to us, none past its length,
    # and none the model was only told is elided (a diff's context and removed lines would
    # show it text of a copy it never saw: real models then doubted the diff)
    diff_possible = upto == copy.length and all(t is not None for t in old[1:]) and all(known[1:upto + 1])
    # a delta needs a parser, or only the lines of the model's own edit to show (line by line)
    delta_possible = current.symbols is not None or bool(request.own_edits)
    if not diff_possible and not delta_possible:
        return _plain(request, current, None, copy, "mixed")  # no diff starts from it, no parser gives a delta
    full_tokens = current.full_tokens()
    candidates: list[ReadOutcome] = []
    from ..base.linediff import opcodes
    from .views import unified_diff

    ops = opcodes(old[1:], lines)  # the copy aligned with the file, once for the diff and the delta
    if diff_possible:
        diff = unified_diff(old[1:], lines, ops=ops)
        if diff.hunks <= policy.diff_max_hunks and diff.changed_lines <= policy.diff_max_changed_share * max(total, 1):
            candidates.append(_diff_outcome(request, current, copy, upto, known, diff))
    if delta_possible:
        removed = _removed(old, current, names_before)
        delta, only_unseen = _delta(request, current, copy, old, known, removed, ops)
        if only_unseen:
            candidates = []  # every change is inside bodies the agent never read: name them, no diff
        diff_wins = bool(candidates) and (
            candidates[0].response["tokens"] < policy.diff_prefer_share * delta.response["tokens"])
        candidates.insert(1 if diff_wins else 0, delta)
    for outcome in candidates:
        if outcome.response["tokens"] <= full_tokens:
            return outcome
    return _plain(request, current, None, copy, "cost" if candidates else "gate")


def _first_read(request, current, copy, policy, load) -> ReadOutcome:
    from .views import render_segments

    plain = _plain(request, current, None, copy)
    full_tokens = plain.response["full_tokens"]
    if full_tokens < policy.small_file_tokens:
        return plain
    total = len(current.lines)
    from .skeleton import outline_kind, plan, plan_outline

    target = int(policy.skeleton_target_share * full_tokens)
    # lines a range already gave are shown where the skeleton would hide them: a marker
    # `unchanged` there was read by real models as text withheld (they read the whole file
    # again by ranges), and `elided` over lines they were given would contradict them
    held = _held_mask(copy, current, load) if copy.runs else None
    if current.symbols is not None:
        segments, notes = plan(current.lines, current.symbols, target, policy.elide_min_lines,
                               _is_test_path(request.path))
    elif current.diffable and (kind := outline_kind(request.path)):  # a README, a changelog, a lockfile
        segments, notes = plan_outline(current.lines, kind, target, policy.elide_min_lines)
    else:
        return plain
    if held is not None and any(held):
        segments = _shown_where_held(segments, held)
    if not request.hints.has_symbol:  # its markers name lines: the blank lines after a body go with it
        segments = _blank_tails_elided(segments, current.lines)
    hidden = [s for s in segments if s.kind == "elided"]
    if not hidden:
        return plain
    body = render_segments(current.lines, segments, notes, request.hints)
    header = f"[SKELETON] {request.path}: {total} lines."
    if "skeleton" not in request.told:
        header += f" {request.hints.skeleton_help(request.path)}"
    text = "\n".join([header, *body])
    response = _response(request, current, "skeleton", text, None, segments, full_tokens)
    if response["tokens"] > policy.skeleton_max_share * full_tokens:
        return plain
    return ReadOutcome(response, _copy_after(copy, current, segments), None)


def _blank_tails_elided(segments: list, lines: Sequence[str]) -> list:
    """The blank lines that follow an elided run, hidden with it, where a marker names
    lines (`... A-B elided`, shown by one read of A-B) rather than a symbol: numbered
    blank lines cost tokens and say nothing. A shown run keeps at least one line
    unless it ends the file."""
    from .views import Segment

    out: list = []
    for i, seg in enumerate(segments):
        prev = out[-1] if out else None
        if seg.kind == "shown" and prev is not None and prev.kind == "elided":
            last = seg.end if i == len(segments) - 1 else seg.end - 1
            end = seg.start - 1
            while end < last and not lines[end].strip():
                end += 1
            if end >= seg.start:
                out[-1] = prev._replace(end=end)
                if end == seg.end:
                    continue
                seg = Segment("shown", end + 1, seg.end)
        out.append(seg)
    return out


_TEST_PATH = ("test/", "tests/", "test_", "_test.", ".test.", ".spec.", "spec/", "__tests__/")


def _is_test_path(path: str) -> bool:
    low = "/" + path.lower()
    return any(("/" + p if p.endswith("/") or p.startswith("test_") else p) in low for p in _TEST_PATH)


def _held_mask(copy: AgentCopy, current: Current, load) -> list[bool]:
    """Per line of the file: does the agent hold it, as it is now, at that number?"""
    lines = current.lines
    total = len(lines)
    texts, known = copy.texts(load, total)
    return [False] + [known[n] and texts[n] == lines[n - 1] and not copy.uncertain(n, n)
                      for n in range(1, total + 1)]


def _shown_where_held(segments, held: Sequence[bool]) -> list[Segment]:
    """A skeleton's elided runs, shown where the agent already holds the lines."""
    from .views import Segment

    out: list[Segment] = []
    for seg in segments:
        n = seg.start
        while n <= seg.end:
            m = n
            while m + 1 <= seg.end and held[m + 1] == held[n]:
                m += 1
            kind = "shown" if seg.kind == "shown" or held[n] else "elided"
            if out and out[-1].kind == kind == "shown" and out[-1].end + 1 == n:
                out[-1] = out[-1]._replace(end=m)
            else:
                out.append(seg._replace(kind=kind, start=n, end=m, symbol=None if kind == "shown" else seg.symbol))
            n = m + 1
    return out


def _copy_after(copy: AgentCopy, current: Current, segments) -> AgentCopy:
    """The copy after a whole-file answer drawn as *segments*."""
    from .views import known_mask, known_ranges

    total = len(current.lines)
    known = known_mask(total, known_ranges(segments))
    hidden = [(s.start, s.end, s.symbol or "") for s in segments if s.kind == "elided"]
    return copy.replaced(total, current.sha256, known, hidden)


def _range_scope(request, current, scope, copy: AgentCopy, load, plain_only) -> ReadOutcome:
    """A range or a drill-in is answered with every line it asks for, as the file is now.

    Measured with real models (`tldrs ab`): an asked-for range answered
    `[UNCHANGED]`, or with `unchanged` holes for lines the copy holds, was read as
    "missing" -- the model fetched the text again with grep, and a call re-sends
    the whole context, which costs more than the lines saved. A model re-reads a
    range to see it near its next step (an edit's exact text, its own edit's
    result), so the answer is the lines; the copy still learns them.

    A range the model did not ask for (*capped*: a host's cap on a whole-file read)
    is a whole-file read to it: held as it is, it is `[UNCHANGED]` like one."""
    start, end = scope
    if request.capped and not plain_only and copy.holds(start, end, current.sha256, current.lines, load):
        from .views import numbered_tokens

        text = f"[UNCHANGED] {request.path}:{start}-{end}: exactly as you already have them from your earlier reads."
        response = _response(request, current, "unchanged", text, scope, None,
                             numbered_tokens(current.lines, start, end))
        return ReadOutcome(response, copy.written(start, end, current.sha256), scope)
    return _plain(request, current, scope, copy, "forced" if plain_only else None)


def _drill_ins(request, scope, copy: AgentCopy) -> list[dict]:
    """Drill-ins to record: a --symbol read, or a range that opens elided lines."""
    if scope is None:
        return []
    hidden = [e for e in copy.hidden_runs() if e[0] <= scope[1] and scope[0] <= e[1]]
    if request.symbol is not None:
        return [{"symbol": request.symbol.id, "hidden": bool(hidden), "lines": list(scope)}]
    return [{"symbol": e[2], "hidden": True, "lines": list(scope)} for e in hidden]


# --------------------------------------------------------------------------- delta

def _innermost(total: int, symbols: Sequence[SymbolSlice]) -> list[SymbolSlice | None]:
    owner: list[SymbolSlice | None] = [None] * (total + 1)
    for s in symbols:  # source order, parents first: inner symbols overwrite
        a, b = s.lines[0], min(s.lines[1], total)
        if a <= b:
            owner[a:b + 1] = [s] * (b - a + 1)
    return owner


def _slid(ops, old: Sequence, new: Sequence[str], known: Sequence[bool]) -> list[list]:
    """*ops* (`linediff.opcodes` of the copy's text, 1-based in *old*, against *new*)
    with ties broken toward the copy's own numbers. A block the copy loses (or the file
    gains) between two equal runs may sit a line earlier or later with the same texts
    (its last line equals the line before it, or its first the line after): it goes
    to the end of the run that keeps the agent's numbers. After a line inserted on top
    left the agent holding one line at two numbers, the line it holds at its true
    number stays in place, instead of being called moved (its symbol changed)."""
    out = [list(op) for op in ops]

    def same(seq_old: bool, a: int, b: int) -> bool:  # 0-based positions of one side
        if seq_old:
            return old[a + 1] is not None and old[a + 1] == old[b + 1] and known[a + 1] == known[b + 1]
        return new[a] == new[b]

    for k in range(1, len(out) - 1):
        before, op, after = out[k - 1], out[k], out[k + 1]
        if before[0] != "equal" or after[0] != "equal" or op[0] not in ("delete", "insert"):
            continue
        on_old = op[0] == "delete"
        lo, hi = (1, 2) if on_old else (3, 4)  # the block's ends in the op
        if after[3] - after[1] == 0:  # the run after keeps its numbers: the block goes up
            while before[2] > before[1] and same(on_old, op[lo] - 1, op[hi] - 1):
                before[2], before[4] = before[2] - 1, before[4] - 1
                after[1], after[3] = after[1] - 1, after[3] - 1
                op[1], op[2], op[3], op[4] = op[1] - 1, op[2] - 1, op[3] - 1, op[4] - 1
        elif before[3] - before[1] == 0:  # the run before does: the block goes down
            while after[2] > after[1] and same(on_old, op[lo], op[hi]):
                before[2], before[4] = before[2] + 1, before[4] + 1
                after[1], after[3] = after[1] + 1, after[3] + 1
                op[1], op[2], op[3], op[4] = op[1] + 1, op[2] + 1, op[3] + 1, op[4] + 1
    return [op for op in out if op[0] != "equal" or op[2] > op[1]]


def _align(old: Sequence, new: Sequence[str], ops, known: Sequence[bool]) -> tuple[list[int | None], set[int]]:
    """new line -> old line with identical text (1-based), by the opcodes *ops* of the
    copy's text (gaps are None: equal to nothing) against *new* (ties broken toward the
    agent's numbers, `_slid`; *known*: the copy's lines it holds); and the new lines that
    stand one for one where the copy has gaps (text unknown to us: they are shown, but
    they do not make their symbol "changed")."""
    mapped: list[int | None] = [None] * (len(new) + 1)
    in_gaps: set[int] = set()
    for tag, i1, i2, j1, j2 in _slid(ops, old, new, known):
        if tag == "equal":
            mapped[j1 + 1:j2 + 1] = range(i1 + 1, i2 + 1)
        elif tag == "replace" and i2 - i1 == j2 - j1 and all(old[i + 1] is None for i in range(i1, i2)):
            in_gaps.update(range(j1 + 1, j2 + 1))
    return mapped, in_gaps


def _removed(old: Sequence, current: Current, names_before) -> list[str]:
    """Qualnames the copy's text defines and the file no longer does (only when the
    copy's text is whole: a partial text would make up removals)."""
    if names_before is None or any(t is None for t in old[1:]):
        return []
    before = names_before(old[1:])
    if not before:
        return []
    return sorted(set(before) - {s.qualname for s in current.symbols or ()})


def _delta(request, current, copy: AgentCopy, old: Sequence, known: Sequence[bool],
           removed: Sequence[str], ops) -> tuple[ReadOutcome, bool]:
    """Symbol-granular re-read against the copy: a symbol whose own lines changed is
    shown (its own lines, children excluded); a line identical to one the agent holds
    is `unchanged` from there; a line identical to one the agent was only told is
    elided stays elided; everything else is shown. Returns the outcome and whether
    every change it names is inside bodies the agent never read."""
    from .views import render_delta

    new = current.lines
    total = len(new)
    mapped, in_gaps = _align(old, new, ops, known)
    owner = _innermost(total, current.symbols or ())
    points = _change_points(mapped, in_gaps, total)
    # a changed line changes its symbol; lines removed between two change both neighbours'
    dirty = {sym.id for group in points for sym in (owner[p] for p in group) if sym is not None}
    unseen = _changed_unseen(current.symbols or (), dirty, owner, mapped, known, total)
    window, opened = _change_windows(dirty - unseen, owner, points, total)
    status: list[str] = [""] * (total + 1)  # S show, U unchanged, E elided
    for i in range(1, total + 1):
        sym = owner[i]
        src = mapped[i]
        if sym is not None and sym.id in unseen and src is not None and known[src]:
            status[i] = "U"  # the header of a body changed out of sight: as the agent has it
        elif sym is not None and sym.id in unseen:
            status[i] = "E"  # a change inside a body the agent never saw: a note, not the body
        elif src is None or (i in window and known[src]) or (sym is not None and sym.id in opened and not known[src]):
            status[i] = "S"  # a window shows lines the agent holds; a body it was told is elided, when it changed
        elif known[src]:
            status[i] = "U"
        else:
            status[i] = "H"  # elided before, the same text now: still elided, just moved
    only_unseen = bool(unseen) and "S" not in status
    segments = _segments_from_status(status, mapped, owner)
    changed = sorted({s.qualname for s in current.symbols or () if s.id in dirty and s.id not in unseen})
    header = f"[DELTA] {request.path}: changed since your last whole read of it ({copy.length} lines then, {total} now)."
    if changed:
        header += " Changed/new: " + ", ".join(changed[:12]) + ("..." if len(changed) > 12 else "") + "."
    if unseen:
        names = sorted(s.qualname for s in current.symbols or () if s.id in unseen)
        header += (" Changed inside code you have not read (still elided): " + ", ".join(names[:12])
                   + ("..." if len(names) > 12 else "") + ".")
    if removed:
        header += " Removed: " + ", ".join(removed[:12]) + ("..." if len(removed) > 12 else "") + "."
    if request.own_edits:
        header += " Your own edit is shown as it is now."
    if "delta" not in request.told:
        header += " Numbers are current; \"... A-B unchanged\": as you had them (\"were C-D\": moved)."
    text = "\n".join([header, *render_delta(new, segments, request.hints, _anchors(current))])
    response = _response(request, current, "delta", text, None, segments, current.full_tokens())
    return ReadOutcome(response, _copy_after(copy, current, segments), None), only_unseen


_ANCHOR_KINDS = frozenset({"function", "method", "constructor", "class", "struct", "enum", "interface", "trait",
                           "impl", "type", "macro"})


def _anchors(current: Current) -> dict[int, str]:
    """Each function-like or type symbol's declaration line -> its name (a moved run's
    marker says where they are now): the first line of its signature that names it, not
    an attribute or a decorator above it (a model asked for "the line of f" wants that one)."""
    from .skeleton import _header_line

    out: dict[int, str] = {}
    for s in current.symbols or ():
        if s.kind not in _ANCHOR_KINDS:
            continue
        line = _header_line(current.lines, s)
        end = min(s.body[0] - 1 if s.body else s.lines[1], len(current.lines))
        named = next((n for n in range(line, end + 1) if re.search(rf"\b{re.escape(s.name)}\b", current.lines[n - 1])
                      and not current.lines[n - 1].lstrip().startswith(("#[", "@", "//", "#", "/*", "*"))), line)
        out[named] = s.qualname
    return out


# lines shown around a change inside a changed symbol: none. The agent holds the lines
# around it at numbered places (a delta keeps them `unchanged`), so repeating them
# tells it nothing; the symbol's header line orients it. (2 cost 0.3-1.5% more on six
# replayed histories (two never tuned on: click, mini-redis) and a tenth more on the real
# Claude Code scenario.)
_WINDOW_CONTEXT = 0


def _change_points(mapped, in_gaps: set[int], total: int) -> list[tuple[int, ...]]:
    """Where the file departs from the copy, in order: (i,) for a line with no match
    in the copy (not one standing in a gap: its text was unknown, not changed), and
    (i, i + 1) where lines of the copy were removed (or moved) between i and i + 1."""
    points: list[tuple[int, ...]] = []
    for i in range(1, total + 1):
        here = mapped[i]
        if here is None:
            if i not in in_gaps:
                points.append((i,))
        elif i < total and mapped[i + 1] is not None and mapped[i + 1] != here + 1:
            points.append((i, i + 1))
    return points


def _change_windows(dirty: set[str], owner, points: list[tuple[int, ...]], total: int
                    ) -> tuple[set[int], set[str]]:
    """The lines a changed symbol shows: its header line, and each change (with
    `_WINDOW_CONTEXT` lines around it, its own lines only). The rest of its lines are
    as the agent holds them (`unchanged`, at their new numbers) or stay elided: a
    2-line edit in a 200-line function costs a window, not the function. Also the
    changed symbols whose body changed: what the agent was told is elided of those
    comes back whole (a body half shown, half elided line by line, helps nobody)."""
    out: set[int] = set()
    opened: set[str] = set()
    headed: set[str] = set()
    for i in range(1, total + 1):  # each changed symbol's header: the first line it owns
        s = owner[i]
        if s is not None and s.id in dirty and s.id not in headed:
            headed.add(s.id)
            out.add(i)
    for group in points:  # a group's window is its first line's symbol's
        s = owner[group[0]]
        if s is None or s.id not in dirty:
            continue
        out.update(k for p in group for k in range(max(p - _WINDOW_CONTEXT, 1), min(p + _WINDOW_CONTEXT, total) + 1)
                   if owner[k] is s)
        if s.body and any(s.body[0] <= p <= s.body[1] for p in group):
            opened.add(s.id)
    return out, opened


def _hidden_change_note(numbers: Sequence[int], current: Current) -> str:
    """What changed behind elided markers ("f, g", or "lines A-B"); "" when nothing did."""
    if not numbers:
        return ""
    owner = _innermost(len(current.lines), current.symbols or ())
    names = sorted({o.qualname for n in numbers if (o := owner[n]) is not None})
    what = ", ".join(names[:8]) + ("..." if len(names) > 8 else "") if names else \
        f"lines {numbers[0]}-{numbers[-1]}"
    return what


def _changed_unseen(symbols, dirty: set[str], owner, mapped, known, total: int) -> set[str]:
    """Changed symbols whose body the agent was told is elided: none of its body lines
    (its own, children excluded) maps to a line the agent knows, some map to lines it
    was shown as elided (a body that is new, or a gap, is shown), and its header is intact.
    Their change is named, not shown: the agent never read those bodies."""
    out: set[str] = set()
    for s in symbols:
        if s.id not in dirty or not s.body:
            continue
        body = [i for i in range(s.body[0], min(s.body[1], total) + 1) if owner[i] is s]
        head = [i for i in range(s.lines[0], s.body[0]) if owner[i] is s]
        if body and head and all(mapped[i] is None or not known[mapped[i]] for i in body) \
                and any(mapped[i] is not None for i in body) \
                and all(mapped[i] is not None and known[mapped[i]] for i in head):
            out.add(s.id)
    return out


_MARKER_COST_LINES = 2  # an [UNCHANGED] run this short is cheaper to show


def _segments_from_status(status, mapped, owner) -> list[Segment]:
    """Status per line (S shown, U unchanged, H elided before and still, E elided
    with a change inside) -> segments. U and H segments keep their source line: a
    run of them that moved together is drawn as one marker (`render_delta`)."""
    from .views import Segment

    total = len(status) - 1

    def moves_with(a: int, b: int) -> bool:  # line b continues line a's run in the copy
        return status[a] in "UH" and status[b] in "UH" and mapped[a] is not None and mapped[b] == mapped[a] + 1

    # a short unchanged run between shown lines costs more as a marker than as lines
    i = 1
    while i <= total:
        if status[i] == "U":
            j = i
            while j + 1 <= total and status[j + 1] == "U" and mapped[j + 1] == mapped[j] + 1:
                j += 1
            alone = not (i > 1 and moves_with(i - 1, i)) and not (j < total and moves_with(j, j + 1))
            if alone and j - i + 1 <= _MARKER_COST_LINES:
                for k in range(i, j + 1):
                    status[k] = "S"
            i = j + 1
        else:
            i += 1
    segments: list[Segment] = []
    i = 1
    while i <= total:
        kind = status[i]
        j = i
        while j + 1 <= total and status[j + 1] == kind:
            if kind in "UH" and mapped[j + 1] != mapped[j] + 1:
                break
            if kind in "EH" and owner[j + 1] is not owner[i]:
                break
            j += 1
        if kind == "S":
            segments.append(Segment("shown", i, j))
        elif kind == "U":
            sym = owner[i] if owner[i] is owner[j] else None
            segments.append(Segment("unchanged", i, j, source=mapped[i], symbol=sym.id if sym else None))
        else:
            segments.append(Segment("elided", i, j, source=mapped[i] if kind == "H" else None,
                                    symbol=owner[i].id if owner[i] else None))
        i = j + 1
    return segments


# --------------------------------------------------------------------------- diff

def _diff_outcome(request, current, copy: AgentCopy, old_total: int, old_known: Sequence[bool],
                  diff: UnifiedDiff) -> ReadOutcome:
    total = len(current.lines)
    header = f"[DIFF] {request.path} changed ({old_total} -> {total} lines); unified diff against your copy:"
    text = header + ("\n" + diff.text if diff.text else "")
    response = _response(request, current, "diff", text, None, None, current.full_tokens())
    # known now: every line inside a hunk, and outside hunks what the agent knew
    # there (those lines are identical, shifted by the hunks before them)
    old_hidden: list[str | None] = [None] * (old_total + 1)
    for a, b, symbol in copy.hidden_runs():
        for n in range(a, min(b, old_total) + 1):
            old_hidden[n] = symbol
    known = [False] * (total + 1)
    hidden_names: list = [None] * (total + 1)
    old_line = new_line = 1
    for i1, i2, j1, j2 in (*diff.spans, (old_total, None, total, None)):
        while new_line <= j1 and old_line <= i1:
            known[new_line] = old_known[old_line]
            hidden_names[new_line] = old_hidden[old_line]
            new_line, old_line = new_line + 1, old_line + 1
        if j2 is None:
            break
        for n in range(j1 + 1, j2 + 1):
            known[n] = True
        old_line, new_line = i2 + 1, j2 + 1
    hidden = [(n, n, hidden_names[n] or "") for n in range(1, total + 1) if not known[n]]
    return ReadOutcome(response, copy.replaced(total, current.sha256, known, hidden), None)
