"""The read decision: (request, the agent's views, the file now) -> response + new view. Pure.

Everything here is computed against exactly what this session was last shown
(`ViewState`: the content hash it saw and which of its lines it knows). The
caller supplies the current file, its symbols, and loaders for old baselines;
this module does no I/O and keeps no state, so every rule can be tested as a
function. When a baseline is missing or anything is uncertain the answer is a
plain full read of the scope: fail open, never stale.

Policy (documented in ARCHITECTURE.md):
* first full read of a parsed, non-small file -> skeleton (long bodies elided);
* re-read, same hash -> one-line `[UNCHANGED]` marker;
* re-read, changed, parsed -> symbol-granular delta, unless a unified diff is
  clearly smaller (< 80 % of the delta's tokens);
* re-read, changed, unparsed -> unified diff behind a complexity gate;
* whatever is chosen, never more tokens than a plain read of the scope.
"""

from __future__ import annotations

from collections import namedtuple
TYPE_CHECKING = False  # `typing` costs milliseconds at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Callable, Sequence

from .tokens import count_tokens
from .views import (
    Segment,
    UnifiedDiff,
    known_mask,
    known_ranges,
    mask_ranges,
    numbered_text,
    render_segments,
    skeleton_segments,
    unified_diff,
)

if TYPE_CHECKING:
    from .symbols import SymbolSlice

# Values here are namedtuples, not dataclasses: this module is on the hook's
# unchanged-re-read path, where dataclass creation alone costs ~10 ms per process.
# Rendering (views, difflib) is imported only by the rules that draw something.

FULL = "full"


class ReadPolicy(namedtuple("ReadPolicy", [
    "elide_min_lines", "small_file_tokens", "skeleton_max_share", "diff_prefer_share",
    "diff_max_hunks", "diff_max_changed_share", "truncation_share",
], defaults=[12, 400, 0.85, 0.8, 8, 0.5, 0.5])):
    """Thresholds of the read policy: elide bodies of at least `elide_min_lines`; read
    files under `small_file_tokens` whole; a skeleton must cost at most
    `skeleton_max_share` of the file; prefer a diff under `diff_prefer_share` of the
    delta; diff gate `diff_max_hunks` / `diff_max_changed_share`; a file shrunk below
    `truncation_share` of its old length is re-read whole."""

    __slots__ = ()


class ViewState(namedtuple("ViewState", ["sha256", "seq", "total_lines", "known", "scope", "elided",
                                         "full_tokens"], defaults=[None, (), None])):
    """What one scope of one file looked like to the agent when last shown: the
    content hash, a sequence number, the lines it knows (1-based inclusive ranges),
    the scope (None: whole file) and the hidden bodies (start, end, symbol id)."""

    __slots__ = ()

    def to_json(self) -> dict:
        return {"sha256": self.sha256, "seq": self.seq, "total_lines": self.total_lines,
                "known": [list(r) for r in self.known], "scope": list(self.scope) if self.scope else None,
                "elided": [list(e) for e in self.elided], "full_tokens": self.full_tokens}

    @classmethod
    def from_json(cls, d: dict) -> "ViewState":
        return cls(sha256=str(d["sha256"]), seq=int(d["seq"]), total_lines=int(d["total_lines"]),
                   known=tuple((int(a), int(b)) for a, b in d["known"]),
                   scope=tuple(d["scope"]) if d.get("scope") else None,
                   elided=tuple((int(a), int(b), str(c)) for a, b, c in d.get("elided", ())),
                   full_tokens=d.get("full_tokens"))


class ReadRequest(namedtuple("ReadRequest", ["path", "offset", "limit", "symbol", "force_full"],
                             defaults=[None, None, None, False])):
    """One read: a path, an optional range or resolved drill-in symbol, and --full."""

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
            self._full_tokens = count_tokens(numbered_text(self.lines, 1, len(self.lines)))
        return self._full_tokens

    @property
    def symbols(self) -> Sequence[SymbolSlice] | None:
        """None when no parser handles the file (or parsing failed)."""
        if callable(self._symbols):
            self._symbols = self._symbols()
        return self._symbols  # type: ignore[return-value]


class Baseline(Current):
    """What the agent was shown before (same shape as the file now)."""


class ReadOutcome:
    """The response, the view that replaces `view_key`, and drill-ins to record."""

    __slots__ = ("response", "view_key", "view", "drill_ins")

    def __init__(self, response: dict, view_key: str | None, view: ViewState | None,
                 drill_ins: list[dict] | None = None):
        self.response = response
        self.view_key = view_key
        self.view = view
        self.drill_ins = drill_ins or []


class ReadError(ValueError):
    """A bad request (range out of bounds): one clear line for the user."""


def resolve_scope(total: int, offset: int | None, limit: int | None) -> tuple[int, int] | None:
    """1-based inclusive scope, or None for the whole file. Raises ReadError when bad."""
    if offset is None and limit is None:
        return None
    if offset is not None and offset < 1:
        raise ReadError(f"--offset must be >= 1 (got {offset})")
    if limit is not None and limit < 1:
        raise ReadError(f"--limit must be >= 1 (got {limit})")
    start = offset or 1
    if start > max(total, 1):
        raise ReadError(f"--offset {start} is past the end of the file ({total} lines)")
    end = total if limit is None else min(total, start + limit - 1)
    if start <= 1 and end >= total:
        return None
    return start, end


def range_key(scope: tuple[int, int]) -> str:
    return f"range:{scope[0]}-{scope[1]}"


def scope_key(scope: tuple[int, int] | None) -> str:
    """The session key of a scope's view: "full", or "range:S-E"."""
    return FULL if scope is None else range_key(scope)


def request_scope(request: ReadRequest, total: int) -> tuple[int, int] | None:
    """The scope a request reads: a drill-in's symbol span, or --offset/--limit."""
    if request.symbol is not None:
        scope = request.symbol.lines
        return None if scope == (1, total) else scope
    return resolve_scope(total, request.offset, request.limit)


def decide(
    request: ReadRequest,
    current: Current,
    views: dict[str, ViewState],
    load_baseline: Callable[[str], Baseline | None],
    seq: int,
    policy: ReadPolicy = ReadPolicy(),
    degraded: bool = False,
) -> ReadOutcome:
    """The whole read decision. *views* are this session's views of this file."""
    scope = request_scope(request, len(current.lines))
    if scope is None:
        outcome = _full_scope(request, current, views, load_baseline, seq, policy, degraded)
    else:
        outcome = _range_scope(request, current, scope, views, load_baseline, seq, degraded)
    if outcome.response["tokens"] > outcome.response["full_tokens"]:
        # the invariant of the product: never more than a plain read of the scope
        outcome = _plain(request, current, scope, seq, scope_key(scope))
    outcome.drill_ins = _drill_ins(request, scope, views.get(FULL))
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


def _plain(request, current, scope, seq, key) -> ReadOutcome:
    total = len(current.lines)
    start, end = scope if scope else (1, total)
    text = numbered_text(current.lines, start, end)
    segments = [Segment("shown", start, end)] if total else []
    mode = FULL if scope is None else "range"
    tokens = current.full_tokens() if scope is None else count_tokens(text)
    response = _response(request, current, mode, text, scope, segments, tokens, tokens)  # a plain read is its own yardstick
    view = ViewState(current.sha256, seq, total, ((start, end),) if total else (), scope,
                     full_tokens=current.full_tokens() if scope is None else None)
    return ReadOutcome(response, key, view)


def _full_scope(request, current, views, load_baseline, seq, policy, degraded) -> ReadOutcome:
    prior = views.get(FULL)
    lines = current.lines
    total = len(lines)
    if prior is not None and not (request.force_full or degraded) and prior.sha256 == current.sha256 \
            and prior.total_lines == total:
        fresher = {k: v for k, v in views.items() if v.seq > prior.seq}
        if fresher and not _freshest_agree(fresher, current, load_baseline, 1, total, cover=False):
            # a later range read showed other bytes (the file has since been reverted):
            # the agent's freshest lines are wrong now, so "unchanged" would mislead it
            return _plain(request, current, None, seq, FULL)
        if prior.full_tokens is not None:
            current._full_tokens = prior.full_tokens  # same bytes, same count: skip recounting
        text = f"[UNCHANGED] {request.path}: {total} lines, identical to what you last read; use that."
        response = _response(request, current, "unchanged", text, None, None, current.full_tokens())
        return ReadOutcome(response, FULL, prior._replace(seq=seq, full_tokens=current.full_tokens()))
    plain = _plain(request, current, None, seq, FULL)
    full_tokens = plain.response["full_tokens"]
    if request.force_full or degraded:
        return plain
    if prior is None:
        return _first_read(request, current, plain, seq, policy)
    if not current.diffable or total < prior.total_lines * policy.truncation_share:
        return plain
    baseline = load_baseline(prior.sha256)
    if baseline is None or len(baseline.lines) != prior.total_lines:
        return plain  # no trustworthy record of what the agent saw
    diff = unified_diff(baseline.lines, lines)
    candidates: list[ReadOutcome] = []
    if diff.hunks <= policy.diff_max_hunks and diff.changed_lines <= policy.diff_max_changed_share * max(total, 1):
        candidates.append(_diff_outcome(request, current, prior, diff, seq))
    if current.symbols is not None and baseline.symbols is not None:
        delta = _delta(request, current, prior, baseline, seq)
        diff_wins = bool(candidates) and (
            candidates[0].response["tokens"] < policy.diff_prefer_share * delta.response["tokens"])
        candidates.insert(1 if diff_wins else 0, delta)
    for outcome in candidates:
        if outcome.response["tokens"] <= full_tokens:
            return outcome
    return plain


def _first_read(request, current, plain, seq, policy) -> ReadOutcome:
    full_tokens = plain.response["full_tokens"]
    if current.symbols is None or full_tokens < policy.small_file_tokens:
        return plain
    total = len(current.lines)
    segments = skeleton_segments(total, current.symbols, policy.elide_min_lines)
    hidden = [s for s in segments if s.kind == "elided"]
    if not hidden:
        return plain
    body = render_segments(current.lines, segments)
    header = (f"[SKELETON] {request.path}: {total} lines, {len(hidden)} long bodies elided; "
              f"ask for one with --symbol NAME or --offset/--limit to see it whole.")
    text = "\n".join([header, *body])
    response = _response(request, current, "skeleton", text, None, segments, full_tokens)
    if response["tokens"] > policy.skeleton_max_share * full_tokens:
        return plain
    view = ViewState(current.sha256, seq, total, tuple(known_ranges(segments)), None,
                     tuple((s.start, s.end, s.symbol or "") for s in hidden), full_tokens)
    return ReadOutcome(response, FULL, view)


def _freshest_agree(views, current, load_baseline, start: int, end: int, cover: bool) -> bool | None:
    """Does the agent's freshest knowledge of every line start..end match the file now?

    Per line, the freshest view (highest seq) that knows it decides what the agent
    believes: an older view that happens to match does not help when a newer one
    showed other text (a file edited, range-read, then reverted). Returns True when
    every known line agrees, False when one does not (or its baseline is gone), and
    None when *cover* is asked and some line is known to no view.
    """
    owner: dict[int, ViewState] = {}
    for view in sorted(views.values(), key=lambda v: -v.seq):
        for a, b in view.known:
            for n in range(max(a, start), min(b, end) + 1):
                owner.setdefault(n, view)
    if cover and len(owner) < end - start + 1:
        return None
    by_view: dict[ViewState, list[int]] = {}
    for n, view in owner.items():
        if view.sha256 != current.sha256:
            by_view.setdefault(view, []).append(n)
    for view, numbers in by_view.items():
        baseline = load_baseline(view.sha256)
        if baseline is None:
            return False
        old = baseline.lines
        if any(n > len(old) or n > len(current.lines) or old[n - 1] != current.lines[n - 1] for n in numbers):
            return False
    return True


def _range_scope(request, current, scope, views, load_baseline, seq, degraded) -> ReadOutcome:
    key = range_key(scope)
    plain = _plain(request, current, scope, seq, key)
    if request.force_full or degraded:
        return plain
    start, end = scope
    if _freshest_agree(views, current, load_baseline, start, end, cover=True) is not True:
        return plain
    changed_elsewhere = any(v.sha256 != current.sha256 for v in views.values())
    note = "; the file changed outside this range since" if changed_elsewhere else ""
    text = f"[UNCHANGED] {request.path} lines {start}-{end}: identical to what you last read of them{note}."
    response = _response(request, current, "unchanged", text, scope, None, plain.response["full_tokens"])
    view = ViewState(current.sha256, seq, len(current.lines), ((start, end),), scope)
    return ReadOutcome(response, key, view)


def _drill_ins(request, scope, full_view) -> list[dict]:
    """Drill-ins to record: a --symbol read, or a range that opens elided lines."""
    if scope is None:
        return []
    hidden = []
    if full_view is not None:
        hidden = [e for e in full_view.elided if e[0] <= scope[1] and scope[0] <= e[1]]
    if request.symbol is not None:
        was_hidden = any(e[2] == request.symbol.id for e in hidden) or bool(hidden)
        return [{"symbol": request.symbol.id, "hidden": was_hidden, "lines": list(scope)}]
    return [{"symbol": e[2], "hidden": True, "lines": list(scope)} for e in hidden]


# --------------------------------------------------------------------------- delta

def _own_hashes(lines: Sequence[str], symbols: Sequence[SymbolSlice]) -> dict[str, str]:
    """Per symbol: a hash of its own lines, children's lines cut out (so a changed
    method does not make its whole class 'changed')."""
    import hashlib  # deltas only: not on the unchanged path

    children: dict[str, list[SymbolSlice]] = {}
    for s in symbols:
        if s.parent:
            children.setdefault(s.parent, []).append(s)
    out = {}
    for s in symbols:
        h = hashlib.sha256()
        line = s.lines[0]
        for child in sorted(children.get(s.id, ()), key=lambda c: c.lines[0]):
            for i in range(line, child.lines[0]):
                h.update(lines[i - 1].encode() + b"\n")
            h.update(b"\0child\0")
            line = max(line, child.lines[1] + 1)
        for i in range(line, s.lines[1] + 1):
            h.update(lines[i - 1].encode() + b"\n")
        out[s.id] = h.hexdigest()
    return out


def _innermost(total: int, symbols: Sequence[SymbolSlice]) -> list[SymbolSlice | None]:
    owner: list[SymbolSlice | None] = [None] * (total + 1)
    for s in symbols:  # source order, parents first: inner symbols overwrite
        for i in range(s.lines[0], min(s.lines[1], total) + 1):
            owner[i] = s
    return owner


def _delta(request, current, prior: ViewState, baseline: Baseline, seq: int) -> ReadOutcome:
    new, old = current.lines, baseline.lines
    total = len(new)
    known_old = known_mask(len(old), prior.known)
    mapped: list[int | None] = [None] * (total + 1)  # new line -> old line (identical text)
    import difflib

    matcher = difflib.SequenceMatcher(None, old, new, autojunk=len(old) + len(new) > 20000)
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            mapped[b + k + 1] = a + k + 1
    old_own = _own_hashes(old, baseline.symbols or ())
    new_own = _own_hashes(new, current.symbols or ())
    owner = _innermost(total, current.symbols or ())
    dirty = {sid for sid, h in new_own.items() if old_own.get(sid) != h}

    status: list[str] = [""] * (total + 1)  # S show, U unchanged, E elided
    for i in range(1, total + 1):
        sym = owner[i]
        src = mapped[i]
        if src is None or (sym is not None and sym.id in dirty):
            status[i] = "S"
        elif known_old[src]:
            status[i] = "U"
        else:
            status[i] = "E"
    segments = _segments_from_status(status, mapped, owner)
    removed = sorted({s.qualname for s in baseline.symbols or ()} - {s.qualname for s in current.symbols or ()})
    changed = sorted({owner[i].qualname for i in range(1, total + 1) if status[i] == "S" and owner[i]})
    header = f"[DELTA] {request.path} changed since you last read it ({prior.total_lines} -> {total} lines)."
    if changed:
        header += " Changed/new: " + ", ".join(changed[:12]) + ("..." if len(changed) > 12 else "") + "."
    if removed:
        header += " Removed: " + ", ".join(removed[:12]) + ("..." if len(removed) > 12 else "") + "."
    header += " [UNCHANGED] spans are exactly as you last saw them."
    text = "\n".join([header, *render_segments(new, segments)])
    response = _response(request, current, "delta", text, None, segments, current.full_tokens())
    elided = tuple((s.start, s.end, s.symbol or "") for s in segments if s.kind == "elided")
    view = ViewState(current.sha256, seq, total, tuple(known_ranges(segments)), None, elided)
    return ReadOutcome(response, FULL, view)


_MARKER_COST_LINES = 2  # an [UNCHANGED] run this short is cheaper to show


def _segments_from_status(status, mapped, owner) -> list[Segment]:
    total = len(status) - 1
    # short unchanged runs between shown lines cost more as markers than as lines
    i = 1
    while i <= total:
        if status[i] == "U":
            j = i
            while j + 1 <= total and status[j + 1] == "U" and mapped[j + 1] == mapped[j] + 1:
                j += 1
            if j - i + 1 <= _MARKER_COST_LINES:
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
            if kind == "U" and mapped[j + 1] != mapped[j] + 1:
                break
            if kind == "E" and owner[j + 1] is not owner[i]:
                break
            j += 1
        if kind == "S":
            segments.append(Segment("shown", i, j))
        elif kind == "U":
            sym = owner[i] if owner[i] is owner[j] else None
            segments.append(Segment("unchanged", i, j, source=mapped[i], symbol=sym.id if sym else None))
        else:
            segments.append(Segment("elided", i, j, symbol=owner[i].id if owner[i] else None))
        i = j + 1
    return segments


# --------------------------------------------------------------------------- diff

def _diff_outcome(request, current, prior: ViewState, diff: UnifiedDiff, seq) -> ReadOutcome:
    total = len(current.lines)
    header = (f"[DIFF] {request.path} changed since you last read it ({prior.total_lines} -> {total} lines); "
              f"unified diff against your copy:")
    text = header + ("\n" + diff.text if diff.text else "")
    response = _response(request, current, "diff", text, None, None, current.full_tokens())
    # known now: every line inside a hunk, and outside hunks what the agent knew
    # there (those lines are identical, shifted by the hunks before them)
    old_known = known_mask(prior.total_lines, prior.known)
    known = [False] * (total + 1)
    old_line = new_line = 1
    for i1, i2, j1, j2 in (*diff.spans, (prior.total_lines, None, total, None)):
        while new_line <= j1 and old_line <= i1:
            known[new_line] = old_known[old_line]
            new_line, old_line = new_line + 1, old_line + 1
        if j2 is None:
            break
        for n in range(j1 + 1, j2 + 1):
            known[n] = True
        old_line, new_line = i2 + 1, j2 + 1
    ranges = mask_ranges(known)
    elided = tuple((a, b, "") for a, b in mask_ranges(known, False))
    view = ViewState(current.sha256, seq, total, tuple(ranges), None, elided)
    return ReadOutcome(response, FULL, view)
