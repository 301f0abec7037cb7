"""How a file is drawn for an agent: numbered lines, markers, skeletons, diffs. Pure.

The text contract (PROTOCOL.md): file lines look exactly like `cat -n` output
(number right-aligned in 6 columns, TAB, line); every other line — headers,
elision and unchanged markers, diff lines — must not. Markers therefore never
start with digits followed by a TAB.

`Segment`s are the structured twin of the text: they cover the scope exactly,
in order, and say for every line whether it is shown, elided, or unchanged
from the agent's previous view.
"""

from __future__ import annotations

from collections import namedtuple

from .hints import CLI, Hints


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import AbstractSet, Collection, Iterable, Sequence
    from ..engine.symbols import SymbolSlice

# namedtuples and a lazy linediff: this module is imported on every read, hooks included.


class Segment(namedtuple("Segment", ["kind", "start", "end", "source", "symbol"], defaults=[None, None])):
    """kind: shown | elided | unchanged; source: for unchanged, the first line in the
    previous view; symbol: the symbol id when the segment is one symbol's."""

    __slots__ = ()

    def to_json(self) -> dict:
        out: dict = {"kind": self.kind, "start": self.start, "end": self.end}
        if self.kind == "unchanged":
            out["from"] = self.source
        if self.symbol:
            out["symbol"] = self.symbol
        return out


def numbered(lines: Sequence[str], start: int, end: int) -> list[str]:
    """Lines start..end (1-based, inclusive) in `cat -n` form."""
    return [f"{n:>6}\t{lines[n - 1]}" for n in range(start, end + 1)]


def numbered_text(lines: Sequence[str], start: int, end: int) -> str:
    return "\n".join(numbered(lines, start, end))


def numbered_tokens(lines: Sequence[str], start: int, end: int) -> int:
    """Tokens of `numbered_text(lines, start, end)`, the yardstick of every read. With
    the estimate the text is not built (its f-strings were half the count on a big
    file): no piece crosses the TAB after a number or a line's end, so the count is
    the lines' own plus each number's digits in threes."""
    from ..base.tokens import count_tokens, uses_estimate

    if not uses_estimate():
        return count_tokens(numbered_text(lines, start, end))
    return count_tokens("\n".join(lines[start - 1:end])) + _number_pieces(start, end)


def _number_pieces(start: int, end: int) -> int:
    """Pieces of the line numbers start..end: 1-999 one each, 1,000-999,999 two, ..."""
    total, low, pieces = 0, 1, 1
    while low <= end:
        high = low * 1000 - 1
        total += max(0, min(end, high) - max(start, low) + 1) * pieces
        low, pieces = high + 1, pieces + 1
    return total


def _qual(symbol_id: str | None) -> str:
    return symbol_id.split(":", 2)[-1] if symbol_id else ""


def _indent_of(lines: Sequence[str], start: int, end: int) -> str:
    """The indentation of the first line of start..end with text (a blank line's is
    none: a marker at column 0 inside a method read as a module-level run), but for a
    preprocessor line (`#pragma`, `#if`) at column 0 (C#'s EmailAddress body began with
    one, and its marker stood out among the others, a real agent said)."""
    text = next((line for n in range(max(start, 1), min(end, len(lines)) + 1)
                 if (line := lines[n - 1]).strip() and not line.startswith("#")), "")
    return text[: len(text) - len(text.lstrip())][:24].replace("\t", "    ")


def elided_marker(lines: Sequence[str], seg: Segment, note: str | None = None, hints: Hints = CLI) -> str:
    """`... A-B elided: --symbol NAME` (or `--offset A --limit N`; each front end's own
    words, `reads/hints.py`): which lines are hidden and what shows them (the
    answer's header names the tool once). *note* replaces "elided" (an import block
    lists its names there)."""
    expand = hints.expand(seg.start, seg.end, _qual(seg.symbol) if seg.symbol else None)
    tail = f": {expand}" if expand else ""  # a front whose header says how (Claude's Read)
    return f"{_indent_of(lines, seg.start, seg.end)}... {seg.start}-{seg.end} {note or 'elided'}{tail}"


ANCHORS_PER_MARKER = 40


def unchanged_marker(seg: Segment, anchors: dict[int, str] | None = None, with_elided: bool = False) -> str:
    """`... A-B unchanged` (and `(were X-Y)` when they moved): short, it is the common case.
    Lines that moved also name where each symbol starting among them is now
    (*anchors*: line -> name), so a model finds `f` at its new number without
    mapping it from the old one (real models re-read to get new numbers otherwise)."""
    src_end = (seg.source or 0) + seg.end - seg.start
    # a run that holds bodies the model was told are elided says so: "unchanged" alone
    # read as "you have these lines", and real models then looked for text never shown
    what = "unchanged, elided bodies still elided" if with_elided else "unchanged"
    if seg.source == seg.start:
        return f"... {seg.start}-{seg.end} {what}"
    marker = f"... {seg.start}-{seg.end} {what} (were {seg.source}-{src_end})"
    inside = declared_between(anchors or {}, seg.start, seg.end)
    return marker + f"; declared now on lines: {inside}" if inside else marker


def declared_between(anchors: dict[int, str], start: int, end: int, most: int = ANCHORS_PER_MARKER) -> str:
    """`f 12, g 40` for the symbols *anchors* (line -> name) declares in lines
    start..end, the first *most* of them, `(+N more)` after; "" when there are none."""
    inside = [f"{name} {n}" for n, name in sorted(anchors.items()) if start <= n <= end]
    more = len(inside) - most
    return ", ".join(inside[:most]) + (f" (+{more} more)" if more > 0 else "")


def render_segments(lines: Sequence[str], segments: Iterable[Segment], notes: dict | None = None,
                    hints: Hints = CLI) -> list[str]:
    out: list[str] = []
    segments = list(segments)
    i = 0
    while i < len(segments):
        seg = segments[i]
        if seg.kind == "shown":
            out.extend(numbered(lines, seg.start, seg.end))
        elif seg.kind == "elided":
            note = notes.get(seg.start) if notes else None
            if not hints.has_symbol and note is None:
                # markers that name lines only: neighbours are one marker (two in a row, differently
                # indented, read as a glitch to a real model)
                while i + 1 < len(segments) and segments[i + 1].kind == "elided" \
                        and segments[i + 1].start == seg.end + 1 and not (notes and segments[i + 1].start in notes):
                    i += 1
                    seg = seg._replace(end=segments[i].end)
            out.append(elided_marker(lines, seg, note, hints))
        else:
            out.append(unchanged_marker(seg))
        i += 1
    return out


_REMOVED_TEXT_LINES = 3  # a removal this short names its text (a model asked "which lines?")


_AGAIN_RUN = 3


def number_runs(numbers: Iterable[int]) -> list[tuple[int, int]]:
    """Line numbers as runs of consecutive ones: {7, 12, 13, 14} -> [(7, 7), (12, 14)]."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and runs[-1][1] + 1 == n:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return [(a, b) for a, b in runs]


def removed_marker(first: int, last: int, old: Sequence[str | None] | None, gone: str = "",
                   above: int | None = None, elsewhere: AbstractSet[str] = frozenset()) -> str:
    """`... your lines A-B were removed here`, with `: "text", ...` for a short run
    whose text the copy holds; *gone* ("around here", "below"): beside shown lines,
    which may be what they became; *above*: the line they stood above, when that is
    inside the lines shown below (a real agent had to work out where a removed line of
    a shown window had been); *elsewhere*: text the answer shows at other lines (moved
    there), never quoted as what went."""
    import json

    # ("gone from above line 211" was awkward to place, a real agent said: between two lines)
    where = f" from between lines {above - 1} and {above}" if above is not None else ""
    # (one line is "your line 219", not "your lines 219-219": a real agent paused on it)
    lines_ = f"line {first} is" if first == last else f"lines {first}-{last} are"
    marker = (f"... your {lines_} gone{where} (removed, or changed into lines shown {gone})" if gone
              else f"... your {lines_.replace(' is', ' was').replace(' are', ' were')} removed here")
    texts = [old[n] for n in range(first, last + 1)] if old is not None and last < len(old) else []
    if texts and all(t is not None and not t.strip() for t in texts):
        marker += " (blank)" if len(texts) == 1 else " (blank lines)"
    elif texts and len(texts) <= _REMOVED_TEXT_LINES and all(t is not None for t in texts):
        marker += ": " + ", ".join(json.dumps((t or "").rstrip("\r"), ensure_ascii=False) for t in texts)  # (no CRLF "\\r")
    elif texts and all(t is not None for t in texts):
        # a longer run: its first line of text says which code went (13 lines "gone" and
        # nothing to tell them by left a real agent unsure it had been removed)
        said = [t.strip() for t in texts if t is not None]
        top = next((k for k, t in enumerate(said) if t), None)
        went = next((t for t, raw in zip(said, texts) if t and raw not in elsewhere), None)
        if top is not None and went == said[top]:
            marker += f": {json.dumps(said[top], ensure_ascii=False)} and the {len(said) - top - 1} lines after it"
        elif went is not None:  # its first lines moved (shown where they are now): what went
            marker += f", {json.dumps(went, ensure_ascii=False)} among them"
    return marker


def render_delta(lines: Sequence[str], segments: Sequence[Segment], hints: Hints = CLI,
                 anchors: dict[int, str] | None = None, old: Sequence[str | None] | None = None,
                 gone: Collection[int] = (), fresh: Collection[int] = (),
                 sources: Sequence[int | None] = (), again: Collection[int] = (),
                 changed_hidden: Collection[int] = (), tail_from: int | None = None,
                 label_all: bool = False) -> list[str]:
    """A delta's text: shown lines numbered; a run of unchanged lines and of lines
    that were elided and still are, moved together (one offset from the copy), is
    one `unchanged` marker: the agent's copy already says which of them it holds
    and which it was told are elided, so naming every alternation again would
    cost a marker per symbol of the file. A run of elided lines alone keeps its
    elided marker (the command that opens it); an elided run without a source
    (a change the agent did not read) too. Lines of the copy removed between two runs
    are said, with their text when it is short and *old* (the copy's text, 1-based) has it;
    so are lines of the copy *gone* (no line of the file stands for them) beside shown
    lines, where more went than the *fresh* lines (no copy line stands for them) shown,
    inside a run of shown lines too when *sources* (new line -> the copy line it is)
    says where (a window around a change shows the lines after a removal). A run of
    *again* lines (text the answers showed at numbers later answers took: no change)
    of `_AGAIN_RUN` lines or more is said to be that, or the jump of the "were"
    numbers around it reads as a wrong map (a real agent re-read to check). An elided
    run with a change inside (its lines in *changed_hidden*) says so, and which lines of
    the copy it stands for when they differ: the "were" numbers on either side of it
    disagree there, and a real agent doubted the map. From line *tail_from* on (the
    rest of a delta the host's cap cut), one line lists the runs it holds as they are
    (`tail_marker`)."""
    if tail_from is not None:
        head = [seg for seg in segments if seg.start < tail_from]
        tail = [seg for seg in segments if seg.start >= tail_from]
        return render_delta(lines, head, hints, anchors, old, gone, fresh, sources, again, changed_hidden,
                            label_all=label_all) + ([tail_marker(lines, tail, hints)] if tail else [])
    out: list[str] = []
    again_runs = {a: b for a, b in number_runs(again) if label_all or _labelled(a, b, segments)}
    arrived = {lines[n - 1] for n in fresh if 0 < n <= len(lines)}

    def moved(first: int, last: int) -> bool:
        # each line of the run is a line the file has anew elsewhere: it moved, it did
        # not go ("your lines 41-42 are gone" for a class moved up: a real agent re-read)
        # (lines it was told are elided have no text here: they say nothing either way; a
        # block of FluentValidation's overloads moved up was said removed for them)
        texts = [t for k in range(first, last + 1) if old is not None and k < len(old) and (t := old[k]) is not None]
        # (blank lines alone did not move: they went, and the jump of the "were" numbers
        # over one was read as a line unaccounted for, a real agent said)
        return any(t.strip() for t in texts) and all(t in arrived or not t.strip() for t in texts)

    i = 0
    after: tuple[int, int] | None = None  # (last new line, last copy line) of the previous run with a source
    last_source: int | None = None  # the last copy line a run vouched for, across shown lines
    shown_since = 0  # fresh lines shown since that run

    def went_unsaid(src: int, shown: Sequence[str] = ()) -> range | None:
        # the copy's lines between the last one vouched for and *src*, when no line of the
        # file stands for them and more went than fresh lines were shown in their place;
        # not when they moved, nor when each is a line *shown* has (the copy held it at
        # two numbers, and "gone" beside it read as a line lost, real agents said)
        if last_source is None:
            return None
        went = range(last_source + 1, src)
        if len(went) <= shown_since or not all(k in gone for k in went) or moved(went[0], went[-1]):
            return None
        if shown and all(old is not None and k < len(old) and old[k] in shown for k in went):
            return None
        return went

    while i < len(segments):
        seg = segments[i]
        if seg.kind == "shown":
            start, top, gone_runs, mid = seg.start, len(out), [], False
            for n in range(seg.start, seg.end + 1):
                if n in again_runs:
                    out.extend(numbered(lines, start, n - 1))
                    lines_ = f"{n} below is" if again_runs[n] == n else f"{n}-{again_runs[n]} below are"
                    out.append(f"... {lines_} not changed (shown again: your earlier answers"
                               f" had this text at other line numbers)")
                    start = n
                src = sources[n] if n < len(sources) else None
                if src is None:
                    shown_since += n in fresh
                    continue
                went = went_unsaid(src, lines[seg.start - 1:n])
                if went is not None:
                    # said above the window, not where it falls inside it: a note between
                    # an `if` and its `else` was read as a hole in the code (real agents)
                    # (where they stood, when nothing new stands there: "gone from above
                    # line 483" beside new lines 482-484 was "hard to follow", a real agent)
                    gone_runs.append((went[0], went[-1], n if shown_since == 0 else seg.start))
                    mid = mid or n > seg.start
                last_source, shown_since = src, 0
            out.extend(numbered(lines, start, seg.end))
            if len(gone_runs) == 1:
                first, last, above = gone_runs[0]
                out.insert(top, removed_marker(first, last, old, gone="below" if mid else "around here",
                                               above=above if above > seg.start else None, elsewhere=arrived))
            elif gone_runs:  # one note: four stacked above a window read as out of order
                # (where each stood is not said: some runs with it, some without, read as hard to map)
                runs = ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b, _ in gone_runs)
                out.insert(top, f"... your lines {runs} are gone (removed, or changed into lines shown below)")
            after = None
            i += 1
            continue
        if seg.source is None:  # elided, changed inside
            note = None
            if seg.start in changed_hidden:
                before = sources[seg.start - 1] if 1 < seg.start < len(sources) + 1 else 0
                beyond = sources[seg.end + 1] if seg.end + 1 < len(sources) else None
                note = "elided, changed" + (f" (were {before + 1}-{beyond - 1})" if before is not None and beyond
                                            and (before + 1, beyond - 1) != (seg.start, seg.end) else "")
            out.append(elided_marker(lines, seg, note, hints=hints))
            joined = _joined_elided(lines, segments, i, out, hints)
            if joined is not None:
                out[-2:] = [joined]
            after = last_source = None
            i += 1
            continue
        held_between = [k for k in range(after[1] + 1, seg.source)
                        if old is None or k < len(old) and old[k] is not None] \
            if after is not None and after[0] + 1 == seg.start else []
        if held_between and not moved(held_between[0], held_between[-1]):
            # lines of the copy removed between two runs it still has: said, not left to be inferred
            # from the jump in "were" numbers (real models doubted the mapping there); lines it
            # does not hold there are not its lines to lose
            out.append(removed_marker(held_between[0], held_between[-1], old, elsewhere=arrived))
        elif (went := went_unsaid(seg.source)) is not None:
            # more lines of the copy gone than lines shown in their place, none vouched for
            # anywhere: said (res.send's removed block beside its changed lines: real models
            # looked for it); a line changed in place says nothing more
            out.append(removed_marker(went[0], went[-1], old, gone="around here", elsewhere=arrived))
        j = i
        while j + 1 < len(segments) and segments[j + 1].source is not None and segments[j + 1].kind != "shown" \
                and segments[j + 1].start == segments[j].end + 1 \
                and segments[j + 1].source == segments[j].source + segments[j].end - segments[j].start + 1:
            j += 1
        run = segments[i:j + 1]
        after = (run[-1].end, (seg.source or 0) + run[-1].end - seg.start)
        last_source, shown_since = after[1], 0
        if all(r.kind == "elided" for r in run) and len(run) == 1:
            out.append(elided_marker(lines, seg, hints=hints))
            joined = _joined_elided(lines, segments, i, out, hints)
            if joined is not None:
                out[-2:] = [joined]
        else:
            out.append(unchanged_marker(Segment("unchanged", seg.start, run[-1].end, source=seg.source), anchors,
                                        with_elided=any(r.kind == "elided" for r in run)))
        i = j + 1
    return out


def _labelled(first: int, last: int, segments: Sequence[Segment]) -> bool:
    """Whether a run of text shown again gets its `below are not changed` label: three
    lines or more, or a shorter one that is all a shown segment has, between markers (two
    such lines read as a change, nothing saying they were not; sidekiq's cleanup)."""
    return last - first + 1 >= _AGAIN_RUN or any(
        seg.kind == "shown" and (seg.start, seg.end) == (first, last) for seg in segments)


def labelled_again(again: Collection[int], segments: Sequence[Segment]) -> set[int]:
    """The lines of *again* a delta's text labels as shown again, no change."""
    return {k for a, b in number_runs(again) if _labelled(a, b, segments) for k in range(a, b + 1)}


def tail_marker(lines: Sequence[str], tail: Sequence[Segment], hints: Hints = CLI) -> str:
    """The rest of a delta a host's cap cut, in one line: which lines it leaves out and,
    of them, the runs the model holds as they are (each with where it had them). A
    marker each, elided and `unchanged` alternating down the file, was "hard to follow"
    (a real agent)."""
    first, last = tail[0].start, tail[-1].end
    held = []
    for seg in tail:
        if seg.kind == "unchanged":
            here = f"{seg.start}-{seg.end}" if seg.end > seg.start else f"{seg.start}"
            if seg.source is not None and seg.source != seg.start:
                were = seg.source + seg.end - seg.start
                here += f" (were {seg.source}-{were})" if were > seg.source else f" (were {seg.source})"
            held.append(here)
    if not held:
        return elided_marker(lines, Segment("elided", first, last), hints=hints)
    how = hints.expand(first, last, None)
    return (f"... {first}-{last} not shown{f' ({how})' if how else ''}, but for these lines, unchanged: "
            + ", ".join(held))


def _joined_elided(lines: Sequence[str], segments: Sequence[Segment], i: int, out: list[str],
                   hints: Hints) -> str | None:
    """One marker for segment *i* and the elided segment before it, when both are one
    symbol's and nothing was drawn between them (two `from_f64` markers side by side, a
    removed attribute between its two runs, read as odd to a real agent); else None."""
    if i == 0 or len(out) < 2:
        return None
    seg, prev = segments[i], segments[i - 1]
    if prev.kind != "elided" or seg.kind != "elided" or prev.end + 1 != seg.start or not seg.symbol \
            or prev.symbol != seg.symbol or out[-2] != elided_marker(lines, prev, hints=hints):
        return None
    return elided_marker(lines, Segment("elided", prev.start, seg.end, symbol=seg.symbol), hints=hints)


# --------------------------------------------------------------------------- segments

def known_ranges(segments: Iterable[Segment]) -> list[tuple[int, int]]:
    """The lines the agent knows after being shown *segments* (shown + unchanged)."""
    out: list[tuple[int, int]] = []
    for seg in segments:
        if seg.kind == "elided":
            continue
        if out and out[-1][1] + 1 == seg.start:
            out[-1] = (out[-1][0], seg.end)
        else:
            out.append((seg.start, seg.end))
    return out


def known_mask(total: int, known: Iterable[tuple[int, int]]) -> list[bool]:
    """1-based mask (index 0 unused) of the lines inside the *known* ranges."""
    mask = [False] * (total + 1)
    for a, b in known:
        a, b = max(a, 1), min(b, total)
        if a <= b:
            mask[a:b + 1] = [True] * (b - a + 1)
    return mask


# --------------------------------------------------------------------------- diff

class UnifiedDiff(namedtuple("UnifiedDiff", ["text", "hunks", "changed_lines", "spans"])):
    """Hunks text, hunk count, added+removed line count, and each hunk's span as
    0-based half-open (old_start, old_end, new_start, new_end)."""

    __slots__ = ()


def unified_diff(old: Sequence[str], new: Sequence[str], context: int = 3,
                 ops: "Sequence[tuple[str, int, int, int, int]] | None" = None) -> UnifiedDiff:
    """Hunks only (no ---/+++ lines); the caller's header names the file. *ops*: the
    opcodes of old -> new when the caller has aligned them already (`linediff`)."""
    from ..base.linediff import grouped_opcodes, opcodes

    out: list[str] = []
    changed = 0
    spans: list[tuple[int, int, int, int]] = []
    for group in grouped_opcodes(opcodes(old, new) if ops is None else ops, context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        spans.append((i1, i2, j1, j2))
        out.append(f"@@ -{_hunk_range(i1, i2)} +{_hunk_range(j1, j2)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old[a1:a2])
                continue
            out.extend("-" + line for line in old[a1:a2])
            out.extend("+" + line for line in new[b1:b2])
            changed += (a2 - a1) + (b2 - b1)
    return UnifiedDiff("\n".join(out), len(spans), changed, tuple(spans))


def _hunk_range(start: int, stop: int) -> str:
    length = stop - start
    first = start + 1 if length else start
    return f"{first}" if length == 1 else f"{first},{length}"
