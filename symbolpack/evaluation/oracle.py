"""The judge: rebuilds what an agent knows about each file from `read` responses alone.

The engine must never show an agent a stale line, and an engine cannot be trusted
to grade itself. So this module imports nothing from symbolpack: it replays the
wire protocol (PROTOCOL.md) the way an agent reads it -- numbered `cat -n` lines,
segments, `unchanged` markers, unified diffs -- and keeps only the lines the agent
can rightly believe. `check` then compares those beliefs with the file on disk;
any contradiction is a staleness bug in the engine (or a malformed response,
which `apply` reports itself).

One `ReadOracle` models one session. When in doubt it forgets a line rather than
guess, so an unknown line never produces a false alarm, and a believed line is
only ever one the responses really gave.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

SEGMENTED_MODES = ("full", "skeleton", "delta", "range")
SEGMENT_KINDS = ("shown", "elided", "unchanged")

# Strict `cat -n`: the number right-aligned in 6 columns, then a TAB (checked in _numbered).
_NUMBERED = re.compile(r"^\s*(\d+)\t(.*)$", re.DOTALL)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class AgentView:
    """What the agent believes about the current version of one file."""

    path: str
    lines: Mapping[int, str]  # 1-based line number -> line text, known lines only
    total_lines: int | None
    sha256: str | None  # of the last response for this path


@dataclass(frozen=True)
class _Segment:
    kind: str
    start: int
    end: int
    source: int | None  # the `from` of an unchanged segment


@dataclass(frozen=True)
class _Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    body: tuple[tuple[str, str], ...]  # (" " | "-" | "+", line)


def split_lines(text: str) -> list[str]:
    """Lines as `cat -n` numbers them: split on "\\n", no phantom line after a final newline."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _numbered(line: str) -> tuple[int, str] | None:
    match = _NUMBERED.match(line)
    if match is None:
        return None
    number = int(match.group(1))
    if line[: match.end(1)] != f"{number:>6}":
        return None
    return number, match.group(2)


def _is_int(value: Any) -> bool:
    return type(value) is int


def _view(path: str, lines: Mapping[int, str], total: int | None, sha: str | None) -> AgentView:
    if total is not None:
        lines = {n: text for n, text in lines.items() if 1 <= n <= total}
    return AgentView(path, MappingProxyType(dict(lines)), total, sha)


class ReadOracle:
    """Replays one session's `read` responses; see the module docstring."""

    def __init__(self) -> None:
        self._views: dict[str, AgentView] = {}
        # The view as of the last full-scope response: what `diff` is computed from.
        self._full: dict[str, AgentView] = {}
        # Per line, the text the agent was last shown for it (by any response, of any
        # version): what a range `unchanged` ("identical to what you last read of
        # them") refers to when newer responses elided or dropped those lines.
        self._seen: dict[str, dict[int, str]] = {}

    # -- queries -------------------------------------------------------------

    def view(self, path: str) -> AgentView | None:
        return self._views.get(path)

    def reconstruct(self, path: str) -> dict[int, str]:
        """The lines the agent believes `path` has now (empty when it knows nothing)."""
        view = self._views.get(path)
        return dict(view.lines) if view else {}

    def forget(self, path: str) -> None:
        self._views.pop(path, None)
        self._full.pop(path, None)
        self._seen.pop(path, None)

    def learn(self, path: str, start: int, lines: list[str]) -> None:
        """The agent was shown these lines (from line *start*) by another channel, a
        context pack: a later range read may rightly call them `unchanged`."""
        seen = self._seen.setdefault(path, {})
        for i, text in enumerate(lines):
            seen[start + i] = text

    def check(self, path: str, current_text: str) -> list[str]:
        """One message per believed line that `current_text` contradicts (or lacks)."""
        view = self._views.get(path)
        if view is None:
            return []
        actual = split_lines(current_text)
        problems = []
        for n in sorted(view.lines):
            believed = view.lines[n]
            if n > len(actual):
                problems.append(
                    f"{path}:{n}: agent believes {believed!r}, but the file has only {len(actual)} lines"
                )
            elif actual[n - 1] != believed:
                problems.append(f"{path}:{n}: expected {actual[n - 1]!r}, agent believes {believed!r}")
        if view.total_lines is not None and view.total_lines != len(actual):
            problems.append(f"{path}: agent believes {view.total_lines} lines, the file has {len(actual)}")
        return problems

    # -- replay --------------------------------------------------------------

    def apply(self, response: Mapping[str, Any]) -> list[str]:
        """Update the view of `response["path"]`; return the problems of the response itself."""
        if not isinstance(response, Mapping):
            return [f"response is not a JSON object: {type(response).__name__}"]
        mode = response.get("mode")
        if mode == "error":
            return []
        path = response.get("path")
        if not isinstance(path, str) or not path:
            return [f"response (mode {mode!r}) has no path"]
        problems: list[str] = []
        if response.get("v") != 1:
            problems.append(f"{path}: protocol version {response.get('v')!r}, expected 1")
        if response.get("deleted") is True or mode in ("deleted", "passthrough"):
            self.forget(path)
            return problems
        if mode not in (*SEGMENTED_MODES, "unchanged", "diff"):
            self.forget(path)
            return problems + [f"{path}: unknown mode {mode!r}"]
        total = response.get("total_lines")
        if not _is_int(total) or total < 0:
            self.forget(path)
            return problems + [f"{path}: bad total_lines {total!r}"]
        scope = self._scope(path, response.get("scope"), total, problems)
        if scope is False:
            self.forget(path)
            return problems
        sha = response.get("sha256") if isinstance(response.get("sha256"), str) else None
        if mode == "unchanged":
            self._apply_unchanged(path, scope, total, sha, problems)
        elif mode == "diff":
            self._apply_diff(path, response.get("text"), total, sha, problems)
        else:
            self._apply_segmented(path, response, scope, total, sha, problems)
        view = self._views.get(path)
        if view is not None:  # what the agent last read of each line, in any version
            self._seen.setdefault(path, {}).update(view.lines)
        return problems

    @staticmethod
    def _scope(path: str, scope: Any, total: int, problems: list[str]) -> tuple[int, int] | None | bool:
        """(start, end) for a range, None for the whole file, False when malformed."""
        if scope is None:
            return None
        if not isinstance(scope, Mapping) or not _is_int(scope.get("start")) or not _is_int(scope.get("end")):
            problems.append(f"{path}: malformed scope {scope!r}")
            return False
        start, end = scope["start"], scope["end"]
        if not 1 <= start <= end or end > total:
            problems.append(f"{path}: scope {start}..{end} is not a clamped range of {total} lines")
            return False
        if start == 1 and end == total:
            return None  # a range covering the whole file is the full scope
        return start, end

    def _previous_line(self, path: str, n: int, problems: list[str], full_scope: bool) -> str | None:
        """Line n of the agent's previous view, or None (with a problem) if it never had it.

        For a full-scope response (a delta) "previous view" is the last full view: the
        baseline deltas and diffs are computed against. For a range, it is the
        freshest knowledge of that line: the text last shown for it (by a read or a
        context pack), else the current view, else the last full view.
        Whatever is taken, `check` still compares it with the file.
        """
        current = self._views.get(path)
        full = self._full.get(path)
        based = full.lines.get(n) if full else None
        if full_scope:
            if based is None:
                problems.append(f"{path}: refers to previous line {n}, which the agent never had")
            return based
        mine = self._seen.get(path, {}).get(n)  # the text last shown for line n, by any channel
        if mine is None:
            mine = current.lines.get(n) if current else None
        if mine is None and based is None:
            problems.append(f"{path}: refers to previous line {n}, which the agent never had")
            return None
        return mine if mine is not None else based

    def _store_range(
        self, path: str, lo: int, hi: int, lines: dict[int, str], total: int, sha: str | None
    ) -> None:
        """Lines lo..hi become `lines`; outside knowledge survives only if the file is unchanged."""
        previous = self._views.get(path)
        same_file = previous is not None and sha is not None and previous.sha256 == sha
        kept = {n: t for n, t in previous.lines.items() if not lo <= n <= hi} if same_file else {}
        self._views[path] = _view(path, {**kept, **lines}, total, sha)
        full = self._full.get(path)
        if full is not None and sha is not None and full.sha256 == sha:
            self._full[path] = _view(path, {**full.lines, **lines}, total, sha)

    def _apply_segmented(
        self,
        path: str,
        response: Mapping[str, Any],
        scope: tuple[int, int] | None,
        total: int,
        sha: str | None,
        problems: list[str],
    ) -> None:
        lo, hi = scope if scope is not None else (1, total)
        segments = _segments(path, response.get("segments"), lo, hi, problems)
        text_lines = _text_lines(path, response.get("text"), problems)
        new: dict[int, str] = {}
        shown: set[int] = set()
        for seg in segments:
            for n in range(max(seg.start, lo), min(seg.end, hi) + 1):
                if seg.kind == "shown":
                    shown.add(n)
                    if n in text_lines:
                        new[n] = text_lines[n]
                    else:
                        problems.append(f"{path}: line {n} of a shown segment is missing from text")
                elif seg.kind == "unchanged":
                    line = self._previous_line(path, seg.source + n - seg.start, problems, scope is None)
                    if line is not None:
                        new[n] = line
        for n in sorted(set(text_lines) - shown):
            problems.append(f"{path}: text shows numbered line {n} outside any shown segment")
        if scope is None:
            # Lines an earlier response gave for these same bytes stay known even
            # where this one elides them: the agent still has them in context.
            self._views[path] = self._full[path] = _view(path, self._same_bytes_kept(path, new, total, sha),
                                                         total, sha)
        else:
            self._store_range(path, lo, hi, new, total, sha)

    def _apply_unchanged(
        self, path: str, scope: tuple[int, int] | None, total: int, sha: str | None, problems: list[str]
    ) -> None:
        if scope is None:
            full = self._full.get(path)
            if full is None:
                problems.append(f"{path}: mode unchanged, but the agent has no previous full view")
                return
            if full.sha256 is not None and sha is not None and full.sha256 != sha:
                problems.append(f"{path}: mode unchanged, but sha256 differs from the previous full view")
            if full.total_lines != total:
                problems.append(f"{path}: mode unchanged, but total_lines {total} != previous {full.total_lines}")
            current = self._views.get(path, full)
            self._views[path] = _view(path, current.lines, total, sha)
            return
        lo, hi = scope
        lines = {}
        for n in range(lo, hi + 1):
            line = self._previous_line(path, n, problems, False)
            if line is not None:
                lines[n] = line
        self._store_range(path, lo, hi, lines, total, sha)

    def _apply_diff(self, path: str, text: Any, total: int, sha: str | None, problems: list[str]) -> None:
        full = self._full.get(path)
        if full is None:
            problems.append(f"{path}: mode diff, but the agent has no previous full view")
        base = full.lines if full else {}
        base_total = full.total_lines if full else None
        hunks = _hunks(path, text, problems)
        new = None if hunks is None else _patch(path, base, base_total, hunks, total, problems)
        self._views[path] = self._full[path] = _view(path, self._same_bytes_kept(path, new or {}, total, sha),
                                                     total, sha)

    def _same_bytes_kept(self, path: str, new: dict[int, str], total: int, sha: str | None) -> dict[int, str]:
        """Lines an earlier response gave for these same bytes stay known: the agent
        still has them in context, whatever this response left out."""
        previous = self._views.get(path)
        if previous is None or sha is None or previous.sha256 != sha:
            return new
        return {**{n: t for n, t in previous.lines.items() if n <= total}, **new}


def _segments(path: str, raw: Any, lo: int, hi: int, problems: list[str]) -> list[_Segment]:
    """The well-formed segments; gaps, overlaps and a short or long cover are problems."""
    if not isinstance(raw, list):
        problems.append(f"{path}: segments missing or not a list")
        return []
    parsed = []
    pos = lo
    for i, seg in enumerate(raw):
        if not isinstance(seg, Mapping) or seg.get("kind") not in SEGMENT_KINDS:
            problems.append(f"{path}: segment {i} is malformed: {seg!r}")
            continue
        start, end, source = seg.get("start"), seg.get("end"), seg.get("from")
        if not _is_int(start) or not _is_int(end) or start > end:
            problems.append(f"{path}: segment {i} has a bad span: {seg!r}")
            continue
        if seg["kind"] == "unchanged" and (not _is_int(source) or source < 1):
            problems.append(f"{path}: unchanged segment {i} has a bad 'from': {seg!r}")
            continue
        if start > pos:
            problems.append(f"{path}: segments leave a gap at lines {pos}..{start - 1}")
        elif start < pos:
            problems.append(f"{path}: segment {i} overlaps earlier ones at lines {start}..{min(end, pos - 1)}")
        parsed.append(_Segment(seg["kind"], start, end, source if seg["kind"] == "unchanged" else None))
        pos = max(pos, end + 1)
    if pos <= hi:
        problems.append(f"{path}: segments do not cover lines {pos}..{hi}")
    elif pos > hi + 1:
        problems.append(f"{path}: segments run past the scope end {hi} to line {pos - 1}")
    return parsed


def _text_lines(path: str, text: Any, problems: list[str]) -> dict[int, str]:
    """The numbered file lines of `text`; every other line is a marker and ignored."""
    if not isinstance(text, str):
        problems.append(f"{path}: text missing or not a string")
        return {}
    found: dict[int, str] = {}
    for line in split_lines(text):
        numbered = _numbered(line)
        if numbered is None:
            continue
        n, content = numbered
        if n in found:
            problems.append(f"{path}: line {n} appears more than once in text")
        found[n] = content
    return found


def _hunks(path: str, text: Any, problems: list[str]) -> list[_Hunk] | None:
    """The hunks of a unified diff (headers and markers skipped), or None when malformed."""
    if not isinstance(text, str):
        problems.append(f"{path}: diff text missing or not a string")
        return None
    lines = split_lines(text)
    hunks = []
    i = 0
    while i < len(lines):
        header = _HUNK.match(lines[i])
        if header is None:
            if _numbered(lines[i]) is not None:
                problems.append(f"{path}: diff marker line looks like a numbered file line: {lines[i]!r}")
            i += 1
            continue
        a, b, c, d = (int(g) if g is not None else 1 for g in header.groups())
        need_old, need_new, body = b, d, []
        i += 1
        while (need_old > 0 or need_new > 0) and i < len(lines):
            line = lines[i]
            i += 1
            if line.startswith("\\"):  # "\ No newline at end of file"
                continue
            tag, content = (line[0], line[1:]) if line else (" ", "")
            if tag not in " -+":
                i -= 1
                break
            need_old -= tag in " -"
            need_new -= tag in " +"
            if need_old < 0 or need_new < 0:
                break
            body.append((tag, content))
        if need_old or need_new:
            problems.append(f"{path}: hunk {header.group(0)} does not match its line counts")
            return None
        while i < len(lines) and lines[i].startswith("\\"):
            i += 1
        hunks.append(_Hunk(a, b, c, d, tuple(body)))
    return hunks


def _patch(
    path: str,
    base: Mapping[int, str],
    base_total: int | None,
    hunks: list[_Hunk],
    total: int,
    problems: list[str],
) -> dict[int, str] | None:
    """Apply hunks to the known lines of the previous full view; None when they cannot apply."""
    new: dict[int, str] = {}
    old_pos = new_pos = 1

    def carry(upto: int | None, shift: int) -> None:
        for o, line in base.items():
            if o >= old_pos and (upto is None or o < upto):
                new[o + shift] = line

    for h in hunks:
        # A zero count means "after line N", so the hunk really starts at N + 1.
        old_first = h.old_start if h.old_count else h.old_start + 1
        new_first = h.new_start if h.new_count else h.new_start + 1
        if old_first < old_pos or old_first - old_pos != new_first - new_pos:
            problems.append(f"{path}: hunk -{h.old_start},{h.old_count} +{h.new_start},{h.new_count} is out of order")
            return None
        carry(old_first, new_pos - old_pos)
        o, n = old_first, new_first
        for tag, content in h.body:
            if tag in " -":
                had = base.get(o)
                if had is not None and had != content:
                    problems.append(f"{path}: diff expects old line {o} = {content!r}, the agent's view has {had!r}")
                o += 1
            if tag in " +":
                new[n] = content
                n += 1
        old_pos, new_pos = old_first + h.old_count, new_first + h.new_count
    carry(None, new_pos - old_pos)
    if base_total is not None and base_total + new_pos - old_pos != total:
        problems.append(
            f"{path}: diff turns {base_total} lines into {base_total + new_pos - old_pos}, response says {total}"
        )
    return new
