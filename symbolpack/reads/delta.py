"""Re-reads of a changed file: a symbol-granular delta or a unified diff against the
agent's copy. Pure; split from `read.py`, which decides which answer a read gets.

A delta aligns the copy with the file line by line (`linediff`) and shows what the
agent does not hold as it is now: each changed symbol's header line and changed lines,
bodies it was told are elided when they changed, and the lines its own edits wrote.
Everything else is a marker that says what it vouches for, with current numbers
(ARCHITECTURE.md, "Re-reads" and "Answers a real model trusts").
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs milliseconds at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import AbstractSet, Callable, Collection, Mapping, Sequence

    from ..engine.symbols import SymbolSlice
    from .views import Segment, UnifiedDiff

import re
from types import MappingProxyType

from ..base.linediff import matching_blocks
from .agentcopy import AgentCopy
from .outcome import Current, ReadOutcome, copy_after, response_of


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
    from ..base.linediff import is_blank

    out = [list(op) for op in ops]

    def same(seq_old: bool, a: int, b: int) -> bool:  # 0-based positions of one side
        if seq_old:
            return old[a + 1] is not None and old[a + 1] == old[b + 1] and known[a + 1] == known[b + 1]
        return new[a] == new[b]

    def blank_end(on_old: bool, op) -> bool:  # the block ends on a blank line
        return is_blank(old[op[2]] if on_old else new[op[4] - 1])

    for k in range(1, len(out) - 1):
        before, op, after = out[k - 1], out[k], out[k + 1]
        if before[0] != "equal" or after[0] != "equal" or op[0] not in ("delete", "insert"):
            continue
        on_old = op[0] == "delete"
        lo, hi = (1, 2) if on_old else (3, 4)  # the block's ends in the op
        # it stops early where it ends on a blank line (`linediff`'s slider rule put it
        # there: a method added above a twin with the same doc comment leaves the
        # twin's doc unchanged); the agent's numbers decide only between other ties
        if after[3] - after[1] == 0:  # the run after keeps its numbers: the block goes up
            while before[2] > before[1] and same(on_old, op[lo] - 1, op[hi] - 1) and not blank_end(on_old, op):
                before[2], before[4] = before[2] - 1, before[4] - 1
                after[1], after[3] = after[1] - 1, after[3] - 1
                op[1], op[2], op[3], op[4] = op[1] - 1, op[2] - 1, op[3] - 1, op[4] - 1
        elif before[3] - before[1] == 0:  # the run before does: the block goes down
            while after[2] > after[1] and same(on_old, op[lo], op[hi]) and not blank_end(on_old, op):
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


def _own_lines(sym, owner, total: int) -> list[int]:
    """*sym*'s own lines (its children's excluded)."""
    return [i for i in range(sym.lines[0], min(sym.lines[1], total) + 1) if owner[i] is sym]


def _mostly_unmatched(sym, owner, mapped, total: int) -> bool:
    """Most of *sym*'s own lines stand for no line of the copy: the alignment lost it
    (moved), rather than a line or two of it differing from the copy."""
    own = _own_lines(sym, owner, total)
    return bool(own) and 2 * sum(mapped[i] is None for i in own) > len(own)


def _held_as_run(sym, new: Sequence[str], held: Sequence[str | None]) -> bool:
    """Whether *held* (the copy's text, its gaps None) has *sym*'s lines, all of them,
    as one run."""
    block = list(new[sym.lines[0] - 1:sym.lines[1]])
    if len(block) < _MOVED_MIN:
        return False
    return any(held[k] == block[0] and list(held[k:k + len(block)]) == block
               for k in range(len(held) - len(block) + 1))


_MOVED_MIN = 3  # lines a block must have to be found moved (a `}` alone moves nowhere)


def removed_names(old: Sequence, current: Current, names_before) -> list[str]:
    """Qualnames the copy defines and the file no longer does: *names_before* gives the
    names of the versions the copy was made of, or of its text when it is whole (a
    partial text would make up removals), else None."""
    if names_before is None:
        return []
    before = names_before(old[1:])
    if not before:
        return []
    gone = set(before) - {s.qualname for s in current.symbols or ()}
    # a name the file still spells is not said removed: a parse the grammar lost its way
    # in (vapor's FileMiddleware.swift, one ERROR node) named every member anew, and
    # "Removed: FileMiddleware, FileMiddleware.init, ..." was read as wrong (a real agent)
    words = set(re.findall(r"[A-Za-z_$][\w$]*", "\n".join(current.lines)))
    return sorted(name for name in gone if _last_name(name) not in words)


def _last_name(qualname: str) -> str:
    """`f` of `A.B.f`, `String` of `impl Display for String`, `x` of `$x`."""
    last = re.split(r"[.\s]", qualname.strip())[-1]
    return last.split("#", 1)[0].lstrip("$")


def delta_outcome(request, current, copy: AgentCopy, old: Sequence, known: Sequence[bool],
                  removed: Sequence[str], ops, max_chars: int | None = None,
                  outline: tuple[set[int], set[int]] | None = None,
                  known_names: Collection[str] = (),
                  versions: Mapping[str, Sequence[str]] = MappingProxyType({})) -> tuple[ReadOutcome, bool]:
    """Symbol-granular re-read against the copy: a symbol whose own lines changed is
    shown (its own lines, children excluded); a line identical to one the agent holds
    is `unchanged` from there; a line identical to one the agent was only told is
    elided stays elided; everything else is shown. A line whose text the present
    answers showed (`request.shown`), wherever a later answer took its number, is
    shown but is no change, and a symbol they declared is not called new. Returns the
    outcome and whether every change it names is inside bodies the agent never read.
    *max_chars*: the host's cap on a tool result; a longer delta stops after the last
    segment that fits, the rest one elided run (`_cut_to_fit`).

    *outline*: the copy holds parts only (ranges, symbols: no whole-file answer yet),
    and this is (the lines no part read stands for, those of them a first read's
    skeleton elides): the parts are a delta, the rest is drawn as a skeleton draws it
    (`read._first_read`). A skeleton that showed the parts again whole was read as
    "an outline I did not need" and "not the delta I asked for" (real agents)."""
    from .views import labelled_again, render_delta

    new = current.lines
    total = len(new)
    mapped, in_gaps = _align(old, new, ops, known)
    unread: set[int] = set()
    if outline is not None:
        unread = {i for i in outline[0] if (src := mapped[i]) is None or not known[src]}
        in_gaps |= unread  # text never read: no change of anything
    shown = request.shown
    # lost text counts where it was lost: where its own version's line is now (set_cookie's
    # signature, shown by a skeleton, its lines then taken by a read of the function above
    # that the agent's edit had grown by ten lines, was called changed), or near where the
    # copy's nearest line above puts it. The same text elsewhere
    # (WriteLogger's new `self._write = ...` like BytesLogger's, whose line a re-read had
    # taken) is new there, and its symbol changed (a real agent re-read it)
    where_in_copy: list[int] = []
    now_at: dict[str, dict[int, int]] = {}  # a lost text's version: its line -> the line equal to it now
    if request.lost:
        where_in_copy = [0] * (total + 1)
        last: tuple[int, int] | None = None
        for i in range(1, total + 1):
            if (src := mapped[i]) is not None:
                last = (i, src)
            where_in_copy[i] = src if src is not None else (last[1] + i - last[0] if last else i)

    def lost_near(i: int) -> bool:
        for sha, n in request.lost.get(new[i - 1], ()):
            if sha not in now_at and sha in versions:
                now_at[sha] = {a + k + 1: b + k + 1 for a, b, size in matching_blocks(versions[sha], new)
                               for k in range(size)}
            if abs(n - where_in_copy[i]) <= _LOST_SLACK or sha in now_at and now_at[sha].get(n) == i:
                return True
        return False

    if shown:
        # a line the copy lost when a later answer took its number (text an answer showed,
        # held nowhere now) is shown but is no change: rule4's first lines, which a
        # read of rule3 after a push overwrote, made rule4 "changed" and shown whole
        # (text held elsewhere too counts where a later answer's other text took its line:
        # a re-read of an edited method took the first lines of the next one, `self,`)
        held = {t for t in old[1:] if t is not None}
        in_gaps.update(i for i in range(1, total + 1) if mapped[i] is None and new[i - 1].strip()
                       and new[i - 1] in shown
                       and (lost_near(i) or new[i - 1] not in held and new[i - 1] not in request.lost))
    owner = _innermost(total, current.symbols or ())
    by_id = {sym.id: sym for sym in current.symbols or ()}
    if outline is not None and known_names:
        # (*known_names*: symbols of the versions the parts were read from: one no part
        # stands for was not read, not added; drawn as the rest never read is)
        for sym in current.symbols or ():
            if sym.qualname in known_names and _all_new(sym, owner, mapped, total):
                own = set(_own_lines(sym, owner, total))
                unread |= own
                in_gaps |= own
    points = _change_points(mapped, in_gaps, total)
    # a changed line changes its symbol; lines removed inside a symbol change it. A new
    # blank line is shown but changes nothing, and lines removed between two symbols
    # change neither ("your lines A-B were removed here" says it, and "Removed:" names a
    # symbol that went): real agents went to look at a class named "changed" for the
    # blank after a method added to it, and at a method named changed for the method
    # removed below it
    dirty: set[str] = set()
    for group in points:
        went = (mapped[group[0]], mapped[group[1]]) if len(group) == 2 else (None, None)
        if went[0] is not None and went[1] is not None and all(
                t is not None and not t.strip() for t in old[went[0] + 1:went[1]]):
            continue  # only blank lines went ("res.sendFile: lines removed" for a blank line, a real agent doubted)
        first = owner[group[0]]
        if first is not None and (first is owner[group[-1]] if len(group) > 1 else bool(new[group[0] - 1].strip())):
            dirty.add(first.id)
    # a symbol whose whole text the copy has as it is, elsewhere: moved there, not changed
    # (said apart; jackson's reordered methods were named changed). The copy's text, not
    # any version's it was made of: one whose answer elided the symbol, the copy holding
    # an older text of it, made a real agent doubt a "moved, not changed" it had not read
    held_whole = {sym.id for sym in current.symbols or () if sym.id in dirty and _held_as_run(sym, new, old[1:])}
    moved = {sid for sid in held_whole if _mostly_unmatched(by_id[sid], owner, mapped, total)}
    # (one the alignment paired in part, a removal point inside it, its text all there
    # as a run: not changed, and not said to be: StopWatch.unsplit was "lines removed")
    dirty -= held_whole
    unseen = _changed_unseen(current.symbols or (), dirty, owner, mapped, known, total)
    window, opened = _change_windows(dirty - unseen, owner, points, total, _signature_lines(current, dirty))
    for group in points:  # an indented change no symbol owns (an anonymous callback's): a few lines around it
        at = group[0]
        if len(group) == 1 and owner[at] is None and new[at - 1][:1] in (" ", "\t") and new[at - 1].strip():
            window.update(k for k in range(max(at - _LOOSE_CONTEXT, 1), min(at + _LOOSE_CONTEXT, total) + 1)
                          if owner[k] is None)
    status: list[str] = [""] * (total + 1)  # S show, U unchanged, E elided
    for i in range(1, total + 1):
        sym = owner[i]
        src = mapped[i]
        if i in unread:
            status[i] = "E" if outline is not None and i in outline[1] else "S"  # as a skeleton draws it
        elif sym is not None and sym.id in unseen and src is not None and known[src]:
            status[i] = "U"  # the header of a body changed out of sight: as the agent has it
        elif sym is not None and sym.id in unseen:
            status[i] = "E"  # a change inside a body the agent never saw: a note, not the body
        elif src is None or (i in window and known[src]) or (sym is not None and sym.id in opened and not known[src]):
            status[i] = "S"  # a window shows lines the agent holds; a body it was told is elided, when it changed
        elif known[src]:
            status[i] = "U"
        else:
            status[i] = "H"  # elided before, the same text now: still elided, just moved
    _show_short_holes(status, window)
    # a change inside text the agent never saw, longer than a hole a window shows (an
    # elided doc comment: told elided around it, and so were the lines it replaced) is
    # one elided marker, named in the header, not fragments between markers ("scattered
    # fragments with hidden pieces in between", a real agent of a Rust doc-comment push)
    quiet = _unseen_runs(status, mapped, old, known, unread | in_gaps, owner)
    for a, b in quiet:
        for k in range(a, b + 1):
            status[k] = "E"
    in_quiet = {k for a, b in quiet for k in range(a, b + 1)}
    only_unseen = bool(unseen or quiet) and "S" not in status
    # (over a host's cap, the lines never read are elided runs across symbols: a marker
    # per member between the parts read would cost the room the outline did)
    terse = outline is not None and outline[1] == outline[0]
    segments = _segments_from_status(status, mapped, owner, unread if terse else frozenset())
    # a changed body the agent was told is elided comes back whole: said apart, or a model
    # that never read it cannot tell what changed from what it sees for the first time
    # (a body the agent held part of is a changed symbol: its window showed those lines)
    whole = {s.id for s in current.symbols or () if s.id in opened and s.body
             and all(status[i] == "S" for i in range(s.body[0], min(s.body[1], total) + 1) if owner[i] is s)
             and _only_elided([src for i in range(s.body[0], min(s.body[1], total) + 1)
                               if owner[i] is s and (src := mapped[i]) is not None], known)}
    # each changed symbol with the lines that changed in it: the lines shown around them
    # were read as "flagged as changed though they look the same" (real agents)
    new_in: dict[str, list[int]] = {}
    for i in range(1, total + 1):
        sym = owner[i]
        if mapped[i] is None and i not in in_gaps and i not in in_quiet and sym is not None and new[i - 1].strip():
            new_in.setdefault(sym.id, []).append(i)
    # a symbol every change of which is in such a run: named there, not changed
    hushed = {sym.id for a, b in quiet if (sym := owner[a]) is not None}
    hushed = {sid for sid in hushed if all(all(k in in_quiet or k - 1 in in_quiet or k + 1 in in_quiet for k in group)
                                           for group in points if (o := owner[group[0]]) is not None and o.id == sid)}
    # an overload family split between changed and moved is named by its local ids there
    # (`collectFile` in both lists read as a contradiction)
    split = {sym.qualname for sym in current.symbols or () if sym.id in moved} & \
        {sym.qualname for sym in current.symbols or () if sym.id in dirty}

    def named(sym) -> str:
        return sym.id.split(":", 2)[-1] if sym.qualname in split else sym.qualname

    # (a symbol none of whose lines the copy holds is "shown whole", not "new", where an earlier
    # answer declared it or the copy holds its declaration elided: commons-lang's toClass, in the
    # tail a capped skeleton elided, was called new and a real agent stopped trusting the list)
    elided_text = {t for t, k in zip(old[1:], known[1:]) if t is not None and not k}
    changed = sorted({named(s) + _where(new_in.get(s.id, ()), new, all_new := _all_new(s, owner, mapped, total),
                                        all_new and (_declared_in(s, new, shown)
                                                     or new[declaration_line(new, s) - 1] in elided_text))
                      for s in current.symbols or () if s.id in dirty and s.id not in unseen | whole | hushed})
    if outline is not None:
        header = (f"[DELTA] {request.path}: {total} lines now. You had read only parts of it (ranges or symbols):"
                  " what changed in them is shown, the rest of them is `unchanged`; the lines you never read are"
                  + (" elided (an outline of them would not fit the tool's output limit)." if terse else
                     " drawn as a first read draws them (signatures shown, long bodies elided)."))
    else:
        header = (f"[DELTA] {request.path}: changed {request.hints.delta_since} "
                  f"{request.hints.delta_lengths(copy.length, total)}.")
    if changed:
        header += f" Changed/new: {_listed(changed)}."
    if outline is not None and (unread_changed := _unread_changed(current, owner, unread, versions, known_names)):
        # the lines never read moved the parts read: say why (a real agent, told only of its
        # own edit, saw everything below `New()` fourteen lines down and wondered)
        header += f" Changed since too, in code you never read (drawn as a first read draws it): " \
                  f"{_listed(unread_changed)}."
    if whole:
        names = _names_of([s for s in current.symbols or () if s.id in whole], current.symbols)
        header += f" Changed inside code you had elided, shown whole: {_listed(names)}."
    # shown, no change, said: text the answers showed whose line a later answer took (`lost`;
    # a blank line between such lines goes with them). Not any text like some line shown
    # (`}`, `///`): labels scattered through new code blurred what was new (real agents),
    # and never lines no part read stands for
    again = {i for i in in_gaps - unread if mapped[i] is None and lost_near(i)}
    again |= {i for i in range(2, total) if mapped[i] is None and not new[i - 1].strip()
              and i - 1 in again and i + 1 in again}
    again = _distinct_runs(again, new)
    real_loose = [i for i in range(1, total + 1)
                  if mapped[i] is None and i not in in_gaps | in_quiet and owner[i] is None and new[i - 1].strip()]
    # (and text shown again no label says is no change, among them: pino's `const asJsonChan`,
    # an earlier answer's line, shown between two listed changes and named nowhere, made a
    # real agent re-read the range)
    said_again = labelled_again(again, segments)
    near = {k for i in real_loose for k in range(i - _LOOSE_CONTEXT, i + _LOOSE_CONTEXT + 1)}
    loose = _line_runs(sorted(set(real_loose) | {
        i for i in near & (in_gaps - unread - in_quiet) if 1 <= i <= total and mapped[i] is None and owner[i] is None
        and status[i] == "S" and new[i - 1].strip() and i not in said_again}))
    if loose:  # an import, a module constant: the header names every change the answer shows
        header += f" {'Also changed' if changed else 'Changed'} outside any symbol: lines {_listed(loose, 6)}."
    names = _names_of([s for s in current.symbols or () if s.id in unseen or s.id in hushed], current.symbols)
    names += [f"lines {a}-{b}" for a, b in quiet if owner[a] is None]
    if names:
        header += f" Changed inside code you have not read (still elided): {_listed(names)}."
    if moved:
        moved_names = _names_of([s for s in current.symbols or () if s.id in moved], current.symbols,
                                lambda group: len(group) == 1 and group[0].qualname not in split)
        header += f" Moved, not changed: {_listed(moved_names)}."
    if removed:
        header += f" Removed: {_listed(removed)}."
    nothing = not (changed or whole or loose or names or moved or removed or request.own_edits
                   or outline is not None and unread_changed)
    if nothing and outline is None:
        # (a delta of a copy stitched from versions numbered apart, nothing changed since the
        # latest: lines shown with no change named read as "the file changed, but every part
        # is unchanged", and "changed since ..." beside "nothing you read changed" as a
        # contradiction, real agents said; every line shown is labelled shown again)
        header = (f"[DELTA] {request.path}: nothing you read changed {request.hints.delta_since}"
                  f" {request.hints.delta_lengths(copy.length, total)}; your answers gave some of its text at other"
                  f" line numbers: that text is shown again where it is now.")
        again = {i for i in range(1, total + 1) if status[i] == "S"}
    header += " Your own edit is shown as it is now." if request.own_edits else request.hints.delta_edits
    shown_old = [t if n and n < len(known) and known[n] else None for n, t in enumerate(old)]
    held_to = {src for src in mapped[1:] if src is not None}
    gone = {n for n in range(1, len(old)) if known[n] and n not in held_to}  # held lines nothing stands for now
    fresh = {i for i in range(1, total + 1) if mapped[i] is None}
    where = anchors(current)
    # lines elided with a change inside: a body changed out of sight, a run no part of which it saw
    hidden_change = {i for i in range(1, total + 1) if status[i] == "E" and (i in in_quiet or (
        (sym := owner[i]) is not None and sym.id in unseen))}
    body = render_delta(new, segments, request.hints, where, shown_old, gone, fresh, mapped, again, hidden_change,
                        label_all=nothing)
    if max_chars and sum(len(line) + 1 for line in body) + len(header) > max_chars - ANSWER_RESERVE:
        if outline is not None and outline[1] != outline[0]:
            # over the cap, the lines never read are elided runs, not an outline: drawn,
            # the outline took the room and the cut fell before the parts' changes (a real
            # agent's own edit at line 1571 of 1701, named in the header, not shown)
            return delta_outcome(request, current, copy, old, known, removed, ops, max_chars,
                                 (outline[0], set(outline[0])), known_names, versions)
        segments, body, cut = _cut_to_fit(
            segments, total, max_chars - ANSWER_RESERVE - len(header) - 300,
            lambda segs, tail: render_delta(new, segs, request.hints, where, shown_old, gone, fresh, mapped, again,
                                            hidden_change, tail, label_all=nothing))
        kept = any(seg.kind == "unchanged" and seg.start > cut for seg in segments)
        header += (f" It stops at line {cut - 1} to fit the tool's output limit: lines {cut}-{total} are "
                   + ("elided but for the parts you hold, marked `unchanged`" if kept else "one elided run")
                   + f" ({request.hints.read_lines(request.path, cut, total)} shows them).")
    if "delta" not in request.told:
        header += (" Numbers are current. Each change comes with the lines around it (a short function whole)."
                   f" \"... A-B unchanged\": the text you have there; \"(were C-D)\": {request.hints.delta_were}.")
    if any("; declared now on lines: " in line for line in body):
        # said in every delta that has them: "the attribute's line or the fn's?", and two real
        # agents of a later delta re-read a decorated method to be sure which line it named
        header += (" \"declared now on lines: f 12\": line 12 is f's own def/fn/class line (not a decorator or"
                   " comment above it)." if "delta" not in request.told else
                   " \"declared now on lines\": def/fn/class lines, not decorators.")
    text = "\n".join([header, *body])
    response = response_of(request, current, "delta", text, None, segments, current.full_tokens())
    return ReadOutcome(response, copy_after(copy, current, segments), None), only_unseen


def _distinct_runs(lines_in: set[int], new: Sequence[str]) -> set[int]:
    """The runs of *lines_in* that hold a line of their own: text found once in the file
    and more than punctuation (`self,` counts; `}` and `///` do not: a run of those is
    text like any, not text the model was shown there)."""
    from collections import Counter

    from .views import number_runs

    if not lines_in:
        return set()
    counts = Counter(new)
    out: set[int] = set()
    for a, b in number_runs(lines_in):
        if any(counts[new[k - 1]] == 1 and re.search(r"\w{2}", new[k - 1]) for k in range(a, b + 1)):
            out.update(range(a, b + 1))
    return out


# what the header's cut note, the answer id line and the tail's marker may take after
# a delta's (or a diff's) body, under the host's cap
ANSWER_RESERVE = 600


def _cut_to_fit(segments: list, total: int, room: int,
                render: Callable[[list, int | None], list[str]]) -> tuple[list, list[str], int]:
    """The longest head of *segments* whose rendering, with the rest of the file elided,
    fits *room* characters (a host cut a longer delta itself, and the copy recorded lines
    the model never got): those segments with the tail, the text, and where the tail
    starts. The tail keeps the `unchanged` runs (named in one line, `views.tail_marker`):
    a tail that elided them took from the copy the parts the agent held, and its ids
    were called "not needed" (a real agent doubted)."""
    from .views import Segment

    keep = True  # the tail's `unchanged` runs, unless even the shortest head does not fit with them

    def drawn(k: int) -> tuple[list, list[str]]:  # (the tail drawn as one line: `views.tail_marker`)
        head = list(segments[:k])
        for seg in segments[k:]:  # the rest elided, but for what the agent holds as it is
            if seg.kind == "unchanged" and keep:
                head.append(seg)
            elif head and head[-1].kind == "elided" and head[-1].source is None and len(head) > k:
                head[-1] = head[-1]._replace(end=seg.end)
            else:
                head.append(Segment("elided", seg.start, seg.end))
        return head, render(head, segments[k].start if k < len(segments) else None)

    if len(segments) > 1 and sum(len(line) + 1 for line in drawn(1)[1]) > room:
        keep = False
    lo, hi = 0, len(segments) - 1  # the whole list did not fit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(len(line) + 1 for line in drawn(mid)[1]) <= room:
            lo = mid
        else:
            hi = mid - 1
    k = max(lo, 1) if len(segments) > 1 else 0
    head, text = drawn(k)
    return head, text, segments[k].start if k < len(segments) else total + 1


_ANCHOR_KINDS = frozenset({"function", "method", "constructor", "class", "struct", "enum", "interface", "trait",
                           "impl", "type", "macro"})


def anchors(current: Current) -> dict[int, str]:
    """Each function-like or type symbol's declaration line -> its name (a moved run's
    marker says where they are now): the first line of its signature that names it, not
    an attribute or a decorator above it (a model asked for "the line of f" wants that one)."""
    out: dict[int, str] = {}
    for s in current.symbols or ():
        if s.kind in _ANCHOR_KINDS:
            out[declaration_line(current.lines, s)] = s.qualname
    return out


def declaration_line(lines: Sequence[str], s) -> int:
    """The first line of *s*'s signature that names it: not an attribute, a decorator or
    a C++ `template <...>` line above it (a model asked for "the line of f" wants that
    one; "declared on 1238" for fmt's `template` line made a real agent count again)."""
    from .skeleton import _header_line

    line = _header_line(lines, s)
    end = min(s.body[0] - 1 if s.body else s.lines[1], len(lines))
    return next((n for n in range(line, end + 1) if re.search(rf"\b{re.escape(s.name)}\b", lines[n - 1])
                 and not lines[n - 1].lstrip().startswith(("#[", "@", "//", "#", "/*", "*"))), line)


# Lines shown around a change inside a changed symbol, its own lines only; a changed
# function of at most `_WHOLE_LEAF_LINES` lines is shown whole. The agent holds those
# lines (at numbered places the delta names), but a real model does not work from a
# copy spread over earlier answers: it read the lines around a change again, a call
# each (of 175 reads that followed a delta in the same step, 88 took in a changed line
# or one within 5 lines of it, a median 29 lines). A call re-sends the whole context,
# which costs more than these lines. (The replayed histories' simulated agent, which
# never re-reads, measured 2 lines of context as 0.3-1.5% dearer.)
_WINDOW_CONTEXT = 6
# around an indented change no symbol owns: a line of a callback inside `export default
# function` shown alone was read again with its neighbours (a real agent, axios); a
# top-level line (an import, a constant) stands alone
_LOOSE_CONTEXT = 2
_HOLE_IN_WINDOW = 4  # elided lines a window shows rather than mark
_WHOLE_LEAF_LINES = 40


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


def _listed(names: Sequence[str], most: int = 12) -> str:
    """The first *most* of *names*, comma-separated, "..." when there are more."""
    return ", ".join(names[:most]) + ("..." if len(names) > most else "")


def _where(numbers: Sequence[int], lines: Sequence[str], all_new: bool = False, seen: bool = False) -> str:
    """` (changed line 7)`, ` (changed lines 7, 12-14)` (runs apart by blank lines only
    are one), ` (new)` for a symbol none of whose lines the agent had -- ` (shown
    whole)` when an earlier answer declared it (a later answer took its lines' numbers:
    "new" for a function it had read made real agents doubt the delta); ` (lines
    removed)` when it only lost lines. ("req.range (lines 215-217)" for a function
    starting at 214 "looked wrong until I saw it lists only the lines that changed",
    and a new function's lines listed in pieces read as odd, real agents said.)"""
    from ..base.linediff import is_blank

    if all_new:
        return " (shown whole)" if seen else " (new)"
    filled: list[int] = []
    for n in numbers:
        if filled and all(is_blank(lines[k - 1]) for k in range(filled[-1] + 1, n)):
            filled.extend(range(filled[-1] + 1, n))
        filled.append(n)
    runs = _line_runs(filled)
    if not runs:
        return " (lines removed)"
    return f" (changed line{'s' if len(runs) > 1 or '-' in runs[0] else ''} {_listed(runs, 6)})"


def _declared_in(symbol, lines: Sequence[str], shown: AbstractSet[str]) -> bool:
    """Is *symbol*'s declaring line (its first line naming it) among the *shown* lines?"""
    name = symbol.qualname.rsplit(".", 1)[-1]
    for n in range(symbol.lines[0], min(symbol.lines[1], len(lines)) + 1):
        if name in lines[n - 1]:
            return lines[n - 1] in shown
    return False


def _names_of(listed, symbols, plain=lambda group: len(group) == 1) -> list[str]:
    """Names for a header's list: a qualname once; several definitions of one name as
    "f (all 5 overloads)" when they are all the file has, else by their local ids
    (FluentValidation's five `Matches` were listed five times over, the same name)."""
    from collections import Counter

    from ..engine.lookup import local_id

    total = Counter(s.qualname for s in symbols or ())
    groups: dict[str, list] = {}
    for sym in listed:
        groups.setdefault(sym.qualname, []).append(sym)
    out: list[str] = []
    for name, group in groups.items():
        if plain(group):
            out.append(name)
        elif len(group) == total[name] and len(group) > 1:
            out.append(f"{name} (all {len(group)} overloads)")
        else:
            out.extend(local_id(s) for s in group)
    return sorted(out)


def _unread_changed(current, owner, unread: set[int], versions: Mapping[str, Sequence[str]],
                    known_names: Collection[str]) -> list[str]:
    """The symbols whose lines never read hold text no version the parts were read from
    has (` (new)` for one those versions neither named nor spelled the declaration of).
    Text a version has anywhere counts as there: the alignment pairs a `return x` with
    any of its twins, and a function untouched was named changed."""
    new = current.lines
    had = {line for text in versions.values() for line in text}
    names: dict[str, str] = {}
    for i in sorted(unread):
        sym = owner[i]
        if sym is not None and new[i - 1] not in had and new[i - 1].strip() and sym.qualname not in names:
            fresh = sym.qualname not in known_names and new[declaration_line(new, sym) - 1] not in had
            names[sym.qualname] = sym.qualname + (" (new)" if fresh else "")
    return sorted(names.values())


def _all_new(symbol, owner, mapped, total: int) -> bool:
    """None of *symbol*'s own lines stands for a line of the agent's copy."""
    own = _own_lines(symbol, owner, total)
    return bool(own) and all(mapped[i] is None for i in own)


def _only_elided(sources: Sequence[int], known: Sequence[bool]) -> bool:
    """Copy lines *sources* are there, and the agent was told every one is elided."""
    return bool(sources) and not any(known[src] for src in sources)


def _line_runs(numbers: Sequence[int]) -> list[str]:
    """Sorted line numbers as runs: [7, 12, 13, 14] -> ["7", "12-14"]."""
    from .views import number_runs

    return [f"{a}" if a == b else f"{a}-{b}" for a, b in number_runs(numbers)]


def _signature_lines(current: Current, ids: set[str]) -> dict[str, int]:
    """Where each symbol of *ids* is declared: the line a changed symbol shows as its
    header (the first line of its doc comment, `/**`, told a model nothing)."""
    from .skeleton import _header_line

    return {s.id: _header_line(current.lines, s) for s in current.symbols or () if s.id in ids}


_FUNCTION_KINDS = frozenset({"function", "method", "constructor"})


def _change_windows(dirty: set[str], owner, points: list[tuple[int, ...]], total: int,
                    signature_lines: dict[str, int] | None = None) -> tuple[set[int], set[str]]:
    """The lines a changed symbol shows: its header line, and each change (with
    `_WINDOW_CONTEXT` lines around it, its own lines only; a short function whole,
    `_WHOLE_LEAF_LINES`). The rest of its lines are
    as the agent holds them (`unchanged`, at their new numbers) or stay elided: a
    2-line edit in a 200-line function costs a window, not the function. Also the
    changed symbols whose body changed: what the agent was told is elided of those
    comes back whole (a body half shown, half elided line by line, helps nobody) --
    a function's, not a class's: a class's own lines are the blanks and statements
    between its methods, and opening it drew 750 lines of a Ruby class as one marker
    per method and a numbered blank line between each (a real agent re-read it)."""
    out: set[int] = set()
    opened: set[str] = set()
    headed: set[str] = set()
    for i in range(1, total + 1):  # each changed symbol's header: its declaration, else the first line it owns
        s = owner[i]
        if s is not None and s.id in dirty and s.id not in headed:
            headed.add(s.id)
            line = (signature_lines or {}).get(s.id, i)
            out.add(line if 1 <= line <= total and owner[line] is s else i)
    for group in points:  # a group's window is its first line's symbol's
        s = owner[group[0]]
        if s is None or s.id not in dirty:
            continue
        # a function's lines around a change; a class's own lines are its fields and the
        # gaps between its methods, and its doc comment heading a change read as noise
        leaf = all(owner[k] is s for k in range(s.lines[0], min(s.lines[1], total) + 1))
        # a function with a nested one keeps its window (its own lines): with none, the
        # lines beside a change inside mocha's canonicalize came as one-line markers
        around = _WINDOW_CONTEXT if leaf or s.kind in _FUNCTION_KINDS else 0
        declared = (signature_lines or {}).get(s.id, s.lines[0])
        if all(p < declared for p in group) and s.lines[0] < declared:
            # a change in its doc comment only: the comment and the declaration, not the
            # body (a Javadoc pass over a class drew every method whole, 0.8x of the file)
            out.update(range(s.lines[0], declared + 1))
        elif leaf and s.lines[1] - s.lines[0] < _WHOLE_LEAF_LINES:
            out.update(range(s.lines[0], min(s.lines[1], total) + 1))
        else:
            out.update(k for p in group for k in range(max(p - around, 1), min(p + around, total) + 1)
                       if owner[k] is s)
        if s.body and any(s.body[0] <= p <= s.body[1] for p in group) \
                and all(owner[k] is s for k in range(s.body[0], min(s.body[1], total) + 1)):
            opened.add(s.id)  # a leaf's body; a class's own lines are the gaps between its methods
    return out, opened


def hidden_change_note(numbers: Sequence[int], current: Current) -> str:
    """What changed behind elided markers ("f, g", or "lines A-B"); "" when nothing did."""
    if not numbers:
        return ""
    owner = _innermost(len(current.lines), current.symbols or ())
    names = sorted({o.qualname for n in numbers if (o := owner[n]) is not None})
    what = ", ".join(names[:8]) + ("..." if len(names) > 8 else "") if names else \
        f"lines {numbers[0]}-{numbers[-1]}"
    return what


def _show_short_holes(status: list[str], window: AbstractSet[int]) -> None:
    """A short run the agent was told is elided (H), inside a window or between shown
    lines, is shown (S): a doc comment or a list shown in pieces between one-line
    markers made real agents re-read it, and a moved function shown with two one-line
    markers in its body was "hard to follow" (a body stays elided: it is longer, or not
    all inside the window)."""
    total = len(status) - 1
    run: list[int] = []
    for i in range(1, total + 2):
        if i <= total and status[i] == "H":
            run.append(i)
            continue
        if run and len(run) <= _HOLE_IN_WINDOW and (all(k in window for k in run) or (
                run[0] > 1 and status[run[0] - 1] == "S" and i <= total and status[i] == "S")):
            for k in run:
                status[k] = "S"
        run = []


def _unseen_runs(status: list[str], mapped, old: Sequence, known, apart: set[int], owner) -> list[tuple[int, int]]:
    """Runs of one symbol's lines (or of lines no symbol owns) to be shown or still
    elided of which the agent knows none, with a change inside (a new line) and a line
    it was told is elided, longer than a window's hole, where the lines of the copy
    they stand between were all told elided too (it saw neither what was there nor
    what is; a gap, a line the copy lost track of, may be one its own edit wrote).
    Lines *apart* (never read, or text shown before: no change) are in no run. One
    symbol's at a time: a skeleton cut at a host's cap left the tail of a file elided,
    and one run over it called every body there changed. (first, last) each."""
    total = len(status) - 1

    def unseen(k: int) -> bool:
        return status[k] in "SH" and k not in apart and (mapped[k] is None or not known[mapped[k]])

    out: list[tuple[int, int]] = []
    i = 1
    while i <= total:
        if not unseen(i):
            i += 1
            continue
        j = i
        while j + 1 <= total and unseen(j + 1) and owner[j + 1] is owner[i]:
            j += 1
        run = range(i, j + 1)
        before = mapped[i - 1] if i > 1 else 0
        after = mapped[j + 1] if j < total else len(known)
        if (j - i + 1 > _HOLE_IN_WINDOW and any(status[k] == "H" for k in run) and any(mapped[k] is None for k in run)
                and before is not None and after is not None and before < after
                and all(old[k] is not None and not known[k] for k in range(before + 1, after))):
            out.append((i, j))
        i = j + 1
    return out


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
_LOST_SLACK = 6  # lines lost text may sit from where it was lost (a few lines added around it)


def _segments_from_status(status, mapped, owner, across: AbstractSet[int] = frozenset()) -> list[Segment]:
    """Status per line (S shown, U unchanged, H elided before and still, E elided
    with a change inside) -> segments. U and H segments keep their source line: a
    run of them that moved together is drawn as one marker (`render_delta`). An E run
    of lines *across* is one segment whatever symbols it spans (no symbol named)."""
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
            # (between shown lines: two lines shown between two markers were read as changed,
            # nothing saying they were not; sidekiq's cleanup, moved by the agent's own edit)
            between = (i == 1 or status[i - 1] == "S") and (j == total or status[j + 1] == "S")
            if alone and between and j - i + 1 <= _MARKER_COST_LINES:
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
            if kind in "EH" and owner[j + 1] is not owner[i] and not (kind == "E" and i in across and j + 1 in across):
                break
            j += 1
        if kind == "S":
            segments.append(Segment("shown", i, j))
        elif kind == "U":
            sym = owner[i] if owner[i] is owner[j] else None
            segments.append(Segment("unchanged", i, j, source=mapped[i], symbol=sym.id if sym else None))
        else:
            # (one line elided is opened by its numbers, not by its symbol's name: `... 903-903
            # elided: symbol="Request"`, a class named over one hidden line, made a real agent
            # doubt the numbers around it; shown instead, such a line read as an unexplained change)
            one = owner[i] if i < j and all(owner[k] is owner[i] for k in range(i, j + 1)) else None
            segments.append(Segment("elided", i, j, source=mapped[i] if kind == "H" else None,
                                    symbol=one.id if one else None))
        i = j + 1
    return segments


# --------------------------------------------------------------------------- diff

def diff_outcome(request, current, copy: AgentCopy, old_total: int, old_known: Sequence[bool],
                  diff: UnifiedDiff) -> ReadOutcome:
    from .views import declared_between

    total = len(current.lines)
    header = (f"[DIFF] {request.path} changed ({old_total} -> {total} lines); unified diff against your copy"
              f"{request.hints.diff_base}:")
    text = header + ("\n" + diff.text if diff.text else "")
    # where the symbols the hunks moved are declared now: real agents worked line numbers
    # out of hunk headers, then read a range to confirm them
    outside = _outside_hunks(diff.spans, old_total, total)
    marks = anchors(current) if current.symbols else {}
    moved = {n: name for n, name in marks.items() if outside.get(n) != n}  # in a hunk, or shifted by one
    if moved:
        text += f"\nIn or moved by these hunks, declared now on lines: {declared_between(moved, 1, total)}"
    response = response_of(request, current, "diff", text, None, None, current.full_tokens())
    # known now: every line inside a hunk, and outside hunks what the agent knew
    # there (those lines are identical, shifted by the hunks before them)
    old_hidden: list[str | None] = [None] * (old_total + 1)
    for a, b, symbol in copy.hidden_runs():
        for n in range(a, min(b, old_total) + 1):
            old_hidden[n] = symbol
    known = [True] * (total + 1)  # inside a hunk: shown
    hidden_names: list = [None] * (total + 1)
    for new_line, old_line in outside.items():
        known[new_line] = old_known[old_line]
        hidden_names[new_line] = old_hidden[old_line]
    known[0] = False
    hidden = [(n, n, hidden_names[n] or "") for n in range(1, total + 1) if not known[n]]
    return ReadOutcome(response, copy.replaced(total, current.sha256, known, hidden), None)


def _outside_hunks(spans, old_total: int, total: int) -> dict[int, int]:
    """New line -> the copy's line it is, for the lines outside a unified diff's hunks
    (*spans*: (i1, i2, j1, j2) per hunk, 0-based starts): identical, shifted by the
    hunks before them."""
    out: dict[int, int] = {}
    old_line = new_line = 1
    for i1, i2, j1, j2 in (*spans, (old_total, None, total, None)):
        while new_line <= j1 and old_line <= i1:
            out[new_line] = old_line
            new_line, old_line = new_line + 1, old_line + 1
        if j2 is None:
            break
        old_line, new_line = i2 + 1, j2 + 1
    return out
