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
  clearly smaller (< 80 % of the delta's tokens) (both in `delta.py`);
* re-read, changed, unparsed -> unified diff behind a complexity gate;
* whatever is chosen, never more tokens than a plain read of the scope.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping, Set as AbstractSet
from types import MappingProxyType
TYPE_CHECKING = False  # `typing` costs milliseconds at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Callable, Collection, Sequence

from .agentcopy import AgentCopy
from .hints import CLI, Hints
from .outcome import Current, ReadOutcome, copy_after, response_of
from ..base.errors import UsageError
from ..base.tokens import count_tokens

if TYPE_CHECKING:
    from .views import Segment

# Values here are namedtuples, not dataclasses: this module is on the hook's
# unchanged-re-read path, where dataclass creation alone costs ~10 ms per process.
# Line alignment (linediff) and rendering (views, ~0.4 ms) are imported only by the
# rules that use them: an unchanged re-read needs neither.

FULL = "full"


class ReadPolicy(namedtuple("ReadPolicy", [
    "elide_min_lines", "small_file_tokens", "skeleton_max_share", "diff_prefer_share",
    "diff_max_hunks", "diff_max_changed_share", "truncation_share", "skeleton_target_share",
    "max_answer_chars",
], defaults=[3, 1500, 0.6, 1.0, 8, 0.5, 0.5, 0.25, None])):  # small_file_tokens: Settings.small_file_tokens
    """Thresholds of the read policy: a skeleton aims at `skeleton_target_share` of a
    plain read and hides no run shorter than `elide_min_lines`; read
    files under `small_file_tokens` whole; a skeleton must cost at most
    `skeleton_max_share` of the file; prefer a diff under `diff_prefer_share` of the
    delta; diff gate `diff_max_hunks` / `diff_max_changed_share`; a file shrunk below
    `truncation_share` of its old length is re-read whole; a whole-file skeleton or
    plain answer longer than `max_answer_chars` (the host's cap on a tool result; None:
    no cap) stops where it fits, the rest one elided run (`_capped`)."""

    __slots__ = ()


_NO_LOST: Mapping[str, AbstractSet[tuple[str, int]]] = MappingProxyType({})


class ReadRequest(namedtuple("ReadRequest", ["path", "offset", "limit", "symbol", "force_full", "told", "hints",
                                             "own_edits", "capped", "shown", "lost"],
                             defaults=[None, None, None, False, (), CLI, (), False, frozenset(), _NO_LOST])):
    """One read: a path, an optional range or resolved drill-in symbol, and --full.
    *told*: the modes this session was already answered with ("skeleton", "delta"):
    their first answer explained the markers; later ones say only what they are
    (a convention is explained once per session, not in every answer).
    *hints*: the words of the front end the answer goes to (`reads/hints.py`).
    *own_edits*: runs (start, end) of the copy that the model's own edits wrote and
    no answer has shown since: a whole-file re-read shows them (real models read an
    `[UNCHANGED]` after their edit as "my edit was not applied").
    *capped*: the range is the host's cap on a whole-file read (Claude's Read shows
    lines 1-2000 of a longer file), not lines the model asked for.
    *shown*: the text of every line the present answers showed, wherever a later
    answer took its number (`answers.Folded.shown`): a delta does not call such text
    new or changed.
    *lost*: of those, the text whose line a later answer gave other text, and where it
    was (its version's sha and its line, `answers.Folded.lost`): found again unaligned
    where it was, it is no change, even where the copy holds the same text elsewhere
    (`self,`)."""

    __slots__ = ()


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
    if outcome.response["mode"] == FULL and policy.max_answer_chars and current.diffable \
            and not asks_for_lines(request):
        from .views import Segment

        capped = _capped(request, current, copy, [Segment("shown", 1, len(current.lines))], {},
                         f"[FILE] {request.path}: {len(current.lines)} lines.", policy.max_answer_chars,
                         len(outcome.response["text"]) + 1)
        if capped is not None:
            capped.fallback = outcome.fallback
            outcome = capped
    elif outcome.response["mode"] in (FULL, "range") and policy.max_answer_chars and asks_for_lines(request):
        outcome = _range_capped(request, current, scope or (1, len(current.lines)), copy,
                                policy.max_answer_chars) or outcome
    outcome.drill_ins = _drill_ins(request, scope, copy)
    return outcome


# --------------------------------------------------------------------------- responses

def _plain(request, current, scope, copy: AgentCopy, fallback: str | None = None) -> ReadOutcome:
    from .views import Segment, numbered_text

    total = len(current.lines)
    start, end = scope if scope else (1, total)
    text = numbered_text(current.lines, start, end)
    segments = [Segment("shown", start, end)] if total else []
    mode = FULL if scope is None else "range"
    tokens = current.full_tokens() if scope is None else count_tokens(text)
    response = response_of(request, current, mode, text, scope, segments, tokens, tokens)  # a plain read is its own yardstick
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
    response = response_of(request, current, "unchanged", text, None, None, current.full_tokens())
    return ReadOutcome(response, copy, None)


def _full_scope(request, current, copy: AgentCopy, load, policy, plain_only, names_before) -> ReadOutcome:
    lines = current.lines
    total = len(lines)
    if plain_only:
        return _plain(request, current, None, copy, "forced")
    if copy.length is None:  # no whole-file answer yet (range reads at most)
        return _first_read(request, current, copy, policy, load, names_before)
    if copy.pending:
        return _plain(request, current, None, copy, "pending")  # an answer may not have arrived: unsure
    if copy.in_sync(current.sha256, total):
        return _unchanged(request, current, copy)
    upto = copy.extent()
    old, known = copy.texts(load, upto)
    from .delta import ANSWER_RESERVE, delta_outcome, diff_outcome, hidden_change_note, removed_names

    if upto == total == copy.length and all(
            old[n] == lines[n - 1] if known[n] else old[n] is not None for n in range(1, total + 1)):
        # every line the agent holds is right where it holds it, and the rest is elided
        # (mixed versions after an edit and its revert, or changes only inside bodies
        # it never read): the copy stands; say which hidden bodies changed
        hidden = copy.hidden_runs()
        moved = [n for n in range(1, total + 1) if not known[n] and old[n] != lines[n - 1]]
        return _unchanged(request, current, copy.replaced(total, current.sha256, known, hidden),
                          hidden_change_note(moved, current))
    if not current.diffable or total < upto * policy.truncation_share:
        return _plain(request, current, None, copy, "truncated")
    if not any(known):
        return _plain(request, current, None, copy, "baseline" if copy.runs else None)
    # a diff's old side is the copy: every line of it known to us, none past its length,
    # and none the model was only told is elided (a diff's context and removed lines would
    # show it text of a copy it never saw: real models then doubted the diff)
    # ... nor from a copy stitched from versions numbered differently (a range read after an
    # edit the model made, over a whole read from before it): its hunks paired lines the
    # model holds at other numbers, and real agents re-read the code ("an odd first hunk that
    # added back `}`"; Polly, zustand); a delta shows the changed code at its current numbers
    diff_possible = upto == copy.length and all(t is not None for t in old[1:]) and all(known[1:upto + 1]) \
        and len({len(load(sha) or ()) for sha in copy.versions()}) <= 1
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
            candidate = diff_outcome(request, current, copy, upto, known, diff)
            cap = policy.max_answer_chars
            if not cap or len(candidate.response["text"]) < cap - ANSWER_RESERVE:
                candidates.append(candidate)  # a diff the host would cut is no answer: the delta stops where it fits
    if delta_possible:
        before = names_before(old[1:]) if names_before is not None else None
        removed = removed_names(old, current, (lambda _: before) if names_before is not None else None)
        delta, only_unseen = delta_outcome(request, current, copy, old, known, removed, ops, policy.max_answer_chars,
                                           versions=_versions(copy, load, request.lost))
        if only_unseen:
            candidates = []  # every change is inside bodies the agent never read: name them, no diff
        diff_wins = bool(candidates) and (
            candidates[0].response["tokens"] < policy.diff_prefer_share * delta.response["tokens"])
        candidates.insert(1 if diff_wins else 0, delta)
    for outcome in candidates:
        if outcome.response["tokens"] <= full_tokens:
            return outcome
    return _plain(request, current, None, copy, "cost" if candidates else "gate")


def _first_read(request, current, copy, policy, load, names_before=None) -> ReadOutcome:
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
    if current.symbols is not None:
        planned = plan(current.lines, current.symbols, target, policy.elide_min_lines, _is_test_path(request.path))
    elif current.diffable and (kind := outline_kind(request.path)):  # a README, a changelog, a lockfile
        planned = plan_outline(current.lines, kind, target, policy.elide_min_lines)
    else:
        return plain
    # the parts read before (held, moved or changed since) shown; when that outgrows a
    # skeleton's share (many bodies drilled into), the file whole (a host's cap cuts a long
    # one where it fits, `_capped`). A skeleton showing only the lines held as they are
    # hid the parts a push changed and split functions into pieces, below a header that
    # said the parts read were shown: a real agent read them all again
    held = _read_before_mask(copy, current, load) if copy.runs else None
    outcome = _skeleton_outcome(request, current, copy, policy, planned, held, plain, total, full_tokens)
    if held is not None and any(held) and current.symbols is not None and request.hints.model_names_its_copy:
        # (never longer than the skeleton but for its header: the parts it holds are markers
        # there, not text; and under the host's cap the delta keeps them, the skeleton's tail not)
        parts = _parts_delta(request, current, copy, load, policy, planned[0], held, names_before)
        if parts is not None and parts.response["tokens"] <= parts.response["full_tokens"]:
            return parts
    return plain if outcome is None else outcome


def _versions(copy, load, lost) -> dict[str, Sequence[str]]:
    """The texts of the versions the copy was made of and of those its lost text was
    shown from (those still stored), by sha."""
    shas = dict.fromkeys([*copy.versions(), *(sha for where in lost.values() for sha, _ in where)])
    return {sha: text for sha in shas if (text := load(sha)) is not None}


def _parts_delta(request, current, copy, load, policy, outline, read_before, names_before=None) -> ReadOutcome | None:
    """A first whole read after parts read (ranges, symbols): the parts as a delta (what
    changed in them shown, the rest `unchanged`), the lines never read drawn as the
    skeleton *outline* draws them. None when no part stands unchanged (then the
    skeleton showing the parts as they are now says as much)."""
    from .delta import delta_outcome

    total = len(current.lines)
    old, known = copy.texts(load, copy.extent())
    if not any(known):
        return None
    ops = _part_ops(old[1:], current.lines)  # aligned as `_read_before_mask` aligns them
    unread = {n for n in range(1, total + 1) if not read_before[n]}
    elided = {n for seg in outline if seg.kind == "elided" for n in range(seg.start, seg.end + 1)}
    # symbols the versions read from had: where no part read stands for them they were
    # not read, not added (a parts copy from two versions numbered apart put autolink in a
    # hole between two parts, and a real agent was told it was new)
    before = set(names_before(old[1:]) or ()) if names_before is not None else set()
    outcome, _ = delta_outcome(request, current, copy, old, known, (), ops, policy.max_answer_chars,
                               outline=(unread, elided), known_names=before,
                               versions=_versions(copy, load, request.lost))
    if not any(seg["kind"] == "unchanged" for seg in outcome.response["segments"]):
        return None
    return outcome


def _skeleton_outcome(request, current, copy, policy, planned, held, plain, total: int,
                      full_tokens: int) -> ReadOutcome | None:
    """The skeleton of *planned* showing the lines *held* marks; None when it hides
    nothing or outgrows its share of the file."""
    from .views import render_segments

    segments, notes = planned
    if held is not None and any(held):
        segments = _shown_where_held(segments, held)
    if not request.hints.has_symbol:  # its markers name lines: the blank lines after a body go with it
        segments = _blank_tails_elided(segments, current.lines)
    hidden = [s for s in segments if s.kind == "elided"]
    if not hidden:
        return plain
    body = render_segments(current.lines, segments, notes, request.hints)
    header = f"[SKELETON] {request.path}: {total} lines."
    if held is not None and any(held):
        # asked with earlier answers that showed parts only: say why this is no delta
        header += (" You had read only parts of it (ranges or symbols), so this is its first whole read, not a"
                   " delta: an outline, with the parts you read shown as they are now.")
    if policy.max_answer_chars:
        capped = _capped(request, current, copy, segments, notes, header, policy.max_answer_chars,
                         sum(len(line) + 1 for line in body))
        if capped is not None:
            return capped
    if "skeleton" not in request.told:
        header += f" {request.hints.skeleton_help(request.path)}"
    text = "\n".join([header, *body])
    response = response_of(request, current, "skeleton", text, None, segments, full_tokens)
    # over its share, the file whole; unless the host's cap would cut the file: an outline
    # of every line then beats the file's head (a real agent, given 528 of FileSpec.kt's
    # 592 lines as "[SKELETON]", read the rest by a range)
    plain_cut = policy.max_answer_chars and len(plain.response["text"]) + 1 > _cap_room(
        request, header, policy.max_answer_chars)
    if response["tokens"] > policy.skeleton_max_share * full_tokens and not plain_cut:
        return None
    return ReadOutcome(response, copy_after(copy, current, segments), None)


# what the answer id line and the tail's marker (with what the tail declares) may take
# after a capped answer's body
_CAP_RESERVE = 400 + 1600
_DECLARED_MAX = 60  # names a capped tail's marker lists
_RANGE_RESERVE = 400  # a capped range's: its note and the answer id line


def _cap_room(request, header: str, max_chars: int) -> int:
    """Characters a capped whole-file answer's body may take under *max_chars*."""
    help_text = "" if "skeleton" in request.told else f" {request.hints.skeleton_help(request.path)}"
    return max_chars - len(header) - len(help_text) - _CAP_RESERVE - 120  # 120: the header's cut note


def _capped(request, current, copy, segments: list, notes: dict, header: str, max_chars: int,
            body_chars: int) -> ReadOutcome | None:
    """A whole-file answer drawn as *segments* (*body_chars* long as drawn) cut to
    *max_chars* characters: the lines that fit as drawn, the rest one elided run from
    the first line that does not; None when it fits. A host cuts a longer tool result itself, mid-line, and the id at the
    end of an MCP answer goes with it: the model then holds lines no later answer can
    lean on and reads the whole file again (a real agent did, over a 1,900-line file)."""
    hints = request.hints
    help_text = "" if "skeleton" in request.told else f" {hints.skeleton_help(request.path)}"
    room = _cap_room(request, header, max_chars)
    if body_chars <= room:
        return None
    full = current.full_tokens()
    for _ in range(8):  # the lines cut cost at least the note and marker added: never more than a plain read
        outcome = _cut_at(request, current, copy, segments, notes, header, help_text, room)
        if outcome is None or outcome.response["tokens"] <= full:
            return outcome
        room -= 4 * (outcome.response["tokens"] - full) + 40
    return outcome


def _cut_at(request, current, copy, segments: list, notes: dict, header: str, help_text: str,
            room: int) -> ReadOutcome | None:
    """`_capped`'s answer with *room* characters for its body; None when nothing fits."""
    from .views import Segment, declared_between, render_segments

    lines, total, hints = current.lines, len(current.lines), request.hints
    kept: list = []
    used, cut = 0, total + 1
    for seg in segments:
        size = sum(len(line) + 1 for line in render_segments(lines, [seg], notes, hints))
        if used + size <= room:
            kept.append(seg)
            used += size
            continue
        cut = seg.start
        if seg.kind == "shown":  # as many of its lines as fit
            cut = _lines_that_fit(lines, seg.start, seg.end, room - used)
            if cut > seg.start:
                kept.append(seg._replace(end=cut - 1))
        break
    if cut <= 1 or cut > total:
        return None
    # the tail starts at a top-level line where one is near (a marker indented inside a
    # body reads as that body's): the line after a blank one at no indent, 200 lines back at most
    top = next((n for n in range(cut, max(cut - 200, 2) - 1, -1)
                if lines[n - 1].strip() and not lines[n - 1][:1].isspace() and not lines[n - 2].strip()), cut)
    if top < cut:
        cut = top
        kept = [seg._replace(end=min(seg.end, cut - 1)) for seg in kept if seg.start < cut]
    if kept and kept[-1].kind == "elided" and kept[-1].symbol is None:
        cut = kept.pop().start  # one run of hidden lines, one marker
    drawn = [*kept, Segment("elided", cut, total)]
    note = (f" It stops at line {cut - 1} to fit the tool's output limit: lines {cut}-{total} are one elided run"
            f" ({hints.read_lines(request.path, cut, total)} shows them).")
    # what the tail declares, and where: a model that only had the line numbers read the
    # whole tail as one range (7,500 tokens) where one symbol would have done
    from .delta import anchors

    declared = declared_between(anchors(current), cut, total, _DECLARED_MAX)
    if declared:
        notes = {**notes, cut: f"elided; declared there: {declared}"}
    text = "\n".join([header + note + help_text, *render_segments(lines, drawn, notes, hints)])
    response = response_of(request, current, "skeleton", text, None, drawn, current.full_tokens())
    return ReadOutcome(response, copy_after(copy, current, drawn), None)


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


_GROWN_MOST = 60  # lines the file may have grown by above a part read before, and it is still found


def _part_ops(old: Sequence[str | None], lines: Sequence[str]) -> list:
    """Opcodes of parts read only (*old*, 0-based, None where nothing was read) against
    the file's *lines*: the parts are looked for where they were, give or take what the
    file grew by above them, and the rest of the file is one insertion. Aligned with the
    whole file, the last lines read (a closing `}`, a `return x`) paired with the file's
    last ones, and a Go file's first 715 lines, never read, came back as parts read."""
    from ..base.linediff import opcodes

    reach = min(len(lines), len(old) + max(_GROWN_MOST, len(old) // 2))
    ops = list(opcodes(old, lines[:reach]))
    if reach < len(lines):
        ops.append(("insert", len(old), len(old), reach, len(lines)))
    return ops


def _read_before_mask(copy: AgentCopy, current: Current, load) -> list[bool]:
    """Per line of the file: is it in a part the agent has read before -- held as it is
    now at that number, or the current text of lines it holds in an older version (moved
    or changed since; its own edit, a teammate's)? A first whole read shows those whole:
    a skeleton that hid the very lines a model had read and then edited was re-read by
    symbol (measured with real models over MCP). Showing the file's text is never wrong;
    it only costs what those lines cost."""
    from ..base.linediff import opcodes

    mask = _held_mask(copy, current, load)
    texts, known = copy.texts(load)
    old = [texts[n] if known[n] else None for n in range(1, len(texts))]
    ops = _part_ops(old, current.lines) if copy.length is None else opcodes(old, current.lines)
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for k in range(i2 - i1):
                if known[i1 + k + 1]:
                    mask[j1 + k + 1] = True
        elif tag == "replace" and all(known[i1 + 1:i2 + 1]) or \
                tag == "insert" and 0 < i1 < len(old) and known[i1] and known[i1 + 1]:
            for n in range(j1 + 1, j2 + 1):  # lines it read, changed, or lines added inside them
                mask[n] = True
    return _without_lone_blanks(mask, current.lines)


def _without_lone_blanks(mask: list[bool], lines: Sequence[str]) -> list[bool]:
    """*mask* without its runs of blank lines and closing brackets alone: a blank line or
    a `}` the alignment paired with one the agent read is no part it read (three blank
    lines of flask's `url_for`, so paired after a push, split its body into three
    markers; a lone `}` split logrus's needsQuoting)."""
    from .skeleton import _CLOSER_ONLY

    n = 1
    while n < len(mask):
        if not mask[n]:
            n += 1
            continue
        m = n
        while m + 1 < len(mask) and mask[m + 1]:
            m += 1
        if all(not lines[k - 1].strip() or _CLOSER_ONLY.match(lines[k - 1]) for k in range(n, m + 1)):
            for k in range(n, m + 1):
                mask[k] = False
        n = m + 1
    return mask


# an elided run the agent holds part of is shown whole when the rest is this short: a
# body shown where it was read and elided around it (`... 324-330 elided` above the
# rest of setWithProperType) made real agents look for what the marker hid
_HOLE_LINES = 15
_EDGE_LINES = 3  # an unread piece shorter than this at the edge of a body read in part: shown


def _shown_where_held(segments, held: Sequence[bool]) -> list[Segment]:
    """A skeleton's elided runs, shown where the agent already holds the lines (and
    whole, where what it does not hold of one is short; a short gap between lines it
    holds, shown too: a body split into several markers around a range read before
    made real agents read it again)."""
    from .views import Segment

    held = list(held)
    out: list[Segment] = []
    for seg in segments:
        if seg.kind == "elided" and any(held[n] for n in range(seg.start, seg.end + 1)):
            if sum(not held[n] for n in range(seg.start, seg.end + 1)) <= _HOLE_LINES:
                seg = seg._replace(kind="shown", symbol=None)
            else:
                n = seg.start
                while n <= seg.end:
                    m = n
                    while m + 1 <= seg.end and held[m + 1] == held[n]:
                        m += 1
                    # a gap with held lines on both sides within the run, or a line or two
                    # at its edge (a marker for one line cost as much and read as a hole)
                    size = m - n + 1
                    if not held[n] and (size < _EDGE_LINES or (size <= _HOLE_LINES and n > seg.start and m < seg.end)):
                        for k in range(n, m + 1):
                            held[k] = True
                    n = m + 1
        # what is left hidden of a body shown in part is named by its lines: `symbol=` there
        # reads the whole body, and a real agent could not tell whether it would
        split = seg.kind == "elided" and any(held[n] for n in range(seg.start, seg.end + 1))
        n = seg.start
        while n <= seg.end:
            m = n
            while m + 1 <= seg.end and held[m + 1] == held[n]:
                m += 1
            kind = "shown" if seg.kind == "shown" or held[n] else "elided"
            if out and out[-1].kind == kind == "shown" and out[-1].end + 1 == n:
                out[-1] = out[-1]._replace(end=m)
            else:
                out.append(seg._replace(kind=kind, start=n, end=m,
                                        symbol=None if kind == "shown" or split else seg.symbol))
            n = m + 1
    return out


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
        response = response_of(request, current, "unchanged", text, scope, None,
                             numbered_tokens(current.lines, start, end))
        return ReadOutcome(response, copy.written(start, end, current.sha256), scope)
    return _plain(request, current, scope, copy, "forced" if plain_only else None)


def _lines_that_fit(lines: Sequence[str], start: int, end: int, room: int) -> int:
    """The first line of *start*..*end* that no longer fits in *room* characters,
    numbered as an answer shows them (*end* + 1 when all fit)."""
    cut = start
    while cut <= end and (size := len(f"{cut:>6}\t{lines[cut - 1]}") + 1) <= room:
        room -= size
        cut += 1
    return cut


def _range_capped(request, current, scope, copy: AgentCopy, max_chars: int) -> ReadOutcome | None:
    """A range (or a symbol) longer than the host's cap on a tool result, cut at the
    last line that fits, the rest named with the read that shows it; None when it
    fits. A host cuts a longer result itself: the model then holds fewer lines than
    the answer records (a real agent's 700-line symbol read was cut that way)."""
    start, end = scope
    cut = _lines_that_fit(current.lines, start, end, max_chars - _RANGE_RESERVE)
    if cut > end:
        return None
    from .views import numbered_text

    def note(at: int) -> str:
        return (f"[lines {at}-{end} not shown: this answer stops at line {at - 1} to fit the tool's output"
                f" limit; {request.hints.read_lines(request.path, at, end)} shows them]")

    cut = max(cut, start + 1)  # one line at least, however long
    # the lines left out cost at least what the note does: never more than a plain read
    while cut > start + 1 and count_tokens(numbered_text(current.lines, cut, end)) < count_tokens(note(cut)):
        cut -= 1
    outcome = _plain(request, current, (start, cut - 1), copy)
    text = f"{outcome.response['text']}\n{note(cut)}"
    outcome.response["text"] = text
    outcome.response["tokens"] = count_tokens(text)
    # the yardstick is a plain read of what was asked for, not of the lines that fit
    outcome.response["full_tokens"] = count_tokens(numbered_text(current.lines, start, end))
    return outcome


def _drill_ins(request, scope, copy: AgentCopy) -> list[dict]:
    """Drill-ins to record: a --symbol read, or a range that opens elided lines."""
    if scope is None:
        return []
    hidden = [e for e in copy.hidden_runs() if e[0] <= scope[1] and scope[0] <= e[1]]
    if request.symbol is not None:
        return [{"symbol": request.symbol.id, "hidden": bool(hidden), "lines": list(scope)}]
    return [{"symbol": e[2], "hidden": True, "lines": list(scope)} for e in hidden]
