"""The judge: rebuilds the agent's copy of each file from `read` responses alone.

The engine must never show an agent a stale line, and an engine cannot be trusted
to grade itself. So this module imports nothing from symbolpack: it replays the
wire protocol (PROTOCOL.md, "The agent's copy") the way an agent reads it --
numbered `cat -n` lines, segments, `unchanged` markers, unified diffs -- into one
copy per file, and `check` compares that copy with the file on disk.

The copy of a file: for every line number, the text the most recent response
covering that line gave the agent, or unknown. There are no per-scope views:

* a full-scope answer (full, skeleton, delta, diff, unchanged; scope null) covers
  every line: `total_lines` becomes the copy's length, lines past it are dropped;
  shown lines take the numbered text, elided lines become unknown, an `unchanged`
  segment takes the copy's own line `from`+k (as it was before this answer);
* a range answer (scope {start, end}) covers start..end only; every other line of
  the copy stays as it was;
* a diff's old side is the copy: its context and removed lines must agree with the
  copy wherever the copy knows the line; lines outside its hunks are the copy's,
  shifted (known stay known, unknown stay unknown);
* `unchanged` claims (the mode, a segment, diff context, carried lines) may only
  lean on lines the copy holds -- never "unchanged" for a line the agent never got;
  a range or drill-in leaves every asked-for line known;
* passthrough and error answers show nothing: the copy stays as it was;
* `learn` (a context pack displayed lines verbatim), `learn_all` (the agent wrote
  the whole file) and `edit` (the agent replaced some lines) write into the copy.

`apply` reports what is wrong with a response by itself (malformed, or leaning on
lines the copy does not hold). `check` reports what the copy gets wrong about the
file now: every line an answer vouched for is compared with the file. Each held
line remembers the sha256 of the answer that last vouched for it (None when the
agent got it from a pack or its own edit): a line is checked when that is the sha
of the latest answer for the file, i.e. when some answer claimed it for these very
bytes. Lines the agent still holds from an older version of a file that changed
since -- outside a later range -- are kept (a later answer may rightly call them
unchanged, and is then checked) but are not themselves a failure: no answer
claimed them current. One `ReadOracle` models one session (one conversation); `ReadOracle.replay`
models a conversation a host rewound, forked, compacted or cleared: the answers
still in its context, in order, and the agent's own edits among them (`OwnEdit`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Literal, Mapping, Sequence, TypeGuard

SEGMENTED_MODES = ("full", "skeleton", "delta", "range")
SEGMENT_KINDS = ("shown", "elided", "unchanged")

# Strict `cat -n`: the number right-aligned in 6 columns, then a TAB (checked in _numbered).
_NUMBERED = re.compile(r"^\s*(\d+)\t(.*)$", re.DOTALL)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class AgentView:
    """A snapshot of the agent's copy of one file."""

    path: str
    lines: Mapping[int, str]  # 1-based line number -> text the agent holds (known lines only)
    total_lines: int | None  # the copy's length, once a full-scope answer (or a Write) gave it
    sha256: str | None  # of the latest answer for this path; None once nothing vouches for the file


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


class _Copy:
    """One file's copy: line -> (text, stamp); stamp = sha256 of the answer that last
    vouched for the line, None when no answer did (a pack or the agent's own edit)."""

    __slots__ = ("held", "elided", "total", "total_stamp", "sha")

    def __init__(self) -> None:
        self.held: dict[int, tuple[str, Any]] = {}
        # lines an answer told the agent are elided: unknown, but knowingly so. A line
        # neither held nor elided was never given or was lost (a refresh): a whole-file
        # `unchanged` must not leave the agent without it.
        self.elided: set[int] = set()
        self.total: int | None = None
        self.total_stamp: Any = None
        self.sha: Any = None  # the latest answer's sha256 (a fresh token when it had none)

    def text(self, n: int) -> str | None:
        entry = self.held.get(n)
        return None if entry is None else entry[0]


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


def _is_int(value: Any) -> TypeGuard[int]:
    return type(value) is int


def line_ranges(numbers: Iterable[int]) -> str:
    """1, 2, 3, 7 -> "1-3, 7"."""
    out: list[list[int]] = []
    for n in sorted(set(numbers)):
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in out)


@dataclass(frozen=True)
class OwnEdit:
    """The agent's own edit as its context shows it, for `ReadOracle.replay`: lines
    start..start+old_count-1 became *new_lines* (`edit`); *old_count* None: the agent
    wrote the whole file, *new_lines* (`learn_all`). *unsure*: lines of the result the
    agent holds only in part (a piece of an old line it did not hold): unknown after."""

    path: str
    start: int
    old_count: int | None
    new_lines: tuple[str, ...]
    unsure: tuple[int, ...] = ()


class ReadOracle:
    """Replays one session's `read` responses into the agent's copy; see the module docstring."""

    def __init__(self) -> None:
        self._copies: dict[str, _Copy] = {}
        self._replaying = False  # answers judged when given, read now as the model reads them

    @classmethod
    def replay(cls, answers: Iterable[Mapping[str, Any] | OwnEdit]) -> ReadOracle:
        """The copies a model holds after exactly *answers* (read responses, context
        packs, the model's own edits), in order: what a host's
        context still carries after a rewind, a fork, a compaction or cleared tool
        results. Each answer is read as the model reads it; what it leaned on that is
        not among *answers* gives the model nothing. Their own problems were judged
        when they were given, so they are not reported here, and nothing they vouched
        for is checked again: `check` after the next `apply` judges what that answer
        vouches for."""
        oracle = cls()
        oracle._replaying = True
        for answer in answers:
            if isinstance(answer, Mapping) and "slices" in answer and "mode" not in answer:
                oracle.learn_pack(answer)
                continue
            if isinstance(answer, OwnEdit):
                if answer.old_count is None:
                    oracle.learn_all(answer.path, answer.new_lines)
                else:
                    oracle.edit(answer.path, answer.start, answer.old_count, answer.new_lines)
                for n in answer.unsure:
                    oracle.forget_lines(answer.path, n, n)
                continue
            oracle.apply(answer)
        for copy in oracle._copies.values():
            # what they vouched for was judged when they were given: an answer judged now is
            # checked on what it vouches for itself (a marker whose base the host cleared may
            # leave the model believing an old line; no later answer may vouch for it again)
            copy.held = {n: (text, None) for n, (text, _) in copy.held.items()}
            copy.total_stamp = None
            copy.sha = None
        oracle._replaying = False
        return oracle

    # -- queries -------------------------------------------------------------

    def view(self, path: str) -> AgentView | None:
        copy = self._copies.get(path)
        if copy is None:
            return None
        lines = MappingProxyType({n: t for n, (t, _) in copy.held.items()})
        return AgentView(path, lines, copy.total, copy.sha if isinstance(copy.sha, str) else None)

    def reconstruct(self, path: str) -> dict[int, str]:
        """The lines the agent's copy holds (empty when it holds nothing)."""
        copy = self._copies.get(path)
        return {n: t for n, (t, _) in copy.held.items()} if copy else {}

    def check(self, path: str, current_text: str) -> list[str]:
        """One message per line an answer vouched for (for the bytes of the latest answer)
        that `current_text` contradicts or lacks, and for a vouched length that differs."""
        copy = self._copies.get(path)
        if copy is None or copy.sha is None:
            return []
        actual = split_lines(current_text)
        problems = []
        for n in sorted(copy.held):
            believed, stamp = copy.held[n]
            if stamp is None or stamp != copy.sha:
                continue
            if n > len(actual):
                problems.append(
                    f"{path}:{n}: agent believes {believed!r}, but the file has only {len(actual)} lines"
                )
            elif actual[n - 1] != believed:
                problems.append(f"{path}:{n}: expected {actual[n - 1]!r}, agent believes {believed!r}")
        if copy.total is not None and copy.total_stamp is not None and copy.total_stamp == copy.sha \
                and copy.total != len(actual):
            problems.append(f"{path}: agent believes {copy.total} lines, the file has {len(actual)}")
        return problems

    # -- what the agent got by other channels --------------------------------

    def forget(self, path: str) -> None:
        self._copies.pop(path, None)

    def forget_lines(self, path: str, start: int, end: int) -> None:
        """The agent lost lines start..end (a refresh of that range): unknown again."""
        copy = self._copies.get(path)
        if copy is not None:
            for n in range(start, end + 1):
                copy.held.pop(n, None)
                copy.elided.discard(n)

    def learn(self, path: str, start: int, lines: Sequence[str]) -> None:
        """A context pack displayed these lines verbatim from line *start*: they
        overwrite the copy there (a later answer may rightly call them unchanged)."""
        copy = self._copies.setdefault(path, _Copy())
        for i, text in enumerate(lines):
            copy.held[start + i] = (text, None)
            copy.elided.discard(start + i)

    def learn_pack(self, pack: Mapping[str, Any]) -> None:
        """A context pack as the model reads it: each slice with code gives its lines,
        numbered from the slice's first; stubs and signatures give no numbered lines."""
        for piece in pack.get("slices") or ():
            code, span = piece.get("code"), piece.get("lines")
            if isinstance(code, str) and isinstance(span, list) and span and _is_int(span[0]):
                self.learn(piece["path"], span[0], split_lines(code))

    def learn_all(self, path: str, lines: Sequence[str]) -> None:
        """The agent wrote the whole file (Write): the copy is exactly *lines*."""
        copy = self._copies.setdefault(path, _Copy())
        copy.held = {i: (text, None) for i, text in enumerate(lines, 1)}
        copy.elided = set()
        copy.total, copy.total_stamp, copy.sha = len(lines), None, None

    def edit(self, path: str, start: int, old_count: int, new_lines: Sequence[str]) -> None:
        """The agent replaced lines start..start+old_count-1 with *new_lines* (Edit):
        the copy holds what it wrote there, later lines shift with the edit. No answer
        vouches for the new bytes yet, so nothing is checked until the next one."""
        copy = self._copies.setdefault(path, _Copy())
        shift = len(new_lines) - old_count
        held: dict[int, tuple[str, Any]] = {}
        for n, (text, _) in copy.held.items():
            if n < start:
                held[n] = (text, None)
            elif n >= start + old_count:
                held[n + shift] = (text, None)
        for i, text in enumerate(new_lines):
            held[start + i] = (text, None)
        copy.held = held
        copy.elided = {n if n < start else n + shift for n in copy.elided
                       if n < start or n >= start + old_count}
        if copy.total is not None:
            copy.total += shift
        copy.total_stamp = copy.sha = None

    # -- replay --------------------------------------------------------------

    def apply(self, response: Mapping[str, Any]) -> list[str]:
        """Write `response` into the copy of its path; return the problems of the response itself."""
        if not isinstance(response, Mapping):
            return [f"response is not a JSON object: {type(response).__name__}"]
        mode = response.get("mode")
        if mode == "error":
            return []
        path = response.get("path")
        if not isinstance(path, str) or not path:
            return [f"response (mode {mode!r}) has no path"]
        problems: list[str] = []
        if response.get("v") not in (1, 2):
            problems.append(f"{path}: protocol version {response.get('v')!r}, expected 1 or 2")
        elif response.get("v") == 2 and not (isinstance(response.get("answer_id"), str) and response["answer_id"]):
            problems.append(f"{path}: a v2 answer without an answer_id")
        if response.get("deleted") is True or mode == "deleted":
            self.forget(path)
            return problems
        copy = self._copies.get(path)
        if mode == "passthrough":  # nothing shown: the copy stays, nothing vouches for the file now
            if copy is not None:
                copy.sha = None
            return problems
        total = response.get("total_lines")
        if mode not in (*SEGMENTED_MODES, "unchanged", "diff"):
            problems.append(f"{path}: unknown mode {mode!r}")
            scope: tuple[int, int] | None | Literal[False] = False
        elif not _is_int(total) or total < 0:
            problems.append(f"{path}: bad total_lines {total!r}")
            scope = False
        else:
            scope = self._scope(path, response.get("scope"), total, problems)
        if mode == "diff" and scope not in (None, False):
            problems.append(f"{path}: mode diff with a range scope {response.get('scope')!r}")
            scope = False
        if scope is False or not _is_int(total):  # uninterpretable: the copy stays, unvouched
            if copy is not None:
                copy.sha = None
            return problems
        sha = response.get("sha256")
        if not isinstance(sha, str) or not sha:
            problems.append(f"{path}: sha256 missing or not a string")
            sha = object()  # this answer's own token: vouches for its lines, matches nothing older
        if copy is None:
            copy = self._copies[path] = _Copy()
        if mode == "unchanged":
            self._apply_unchanged(path, copy, scope, total, sha, problems)
        elif mode == "diff":
            self._apply_diff(path, copy, response.get("text"), total, sha, problems)
        else:
            self._apply_segmented(path, copy, response, scope, total, sha, problems)
        return problems

    @staticmethod
    def _scope(path: str, scope: Any, total: int, problems: list[str]) -> tuple[int, int] | None | Literal[False]:
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

    def _apply_segmented(
        self,
        path: str,
        copy: _Copy,
        response: Mapping[str, Any],
        scope: tuple[int, int] | None,
        total: int,
        sha: Any,
        problems: list[str],
    ) -> None:
        lo, hi = scope if scope is not None else (1, total)
        segments = _segments(path, response.get("segments"), lo, hi, problems)
        text_lines = _text_lines(path, response.get("text"), problems)
        new: dict[int, tuple[str, Any]] = {}
        shown: set[int] = set()
        elided: list[int] = []
        for seg in segments:
            never_had = []
            for n in range(max(seg.start, lo), min(seg.end, hi) + 1):
                if seg.kind == "shown":
                    shown.add(n)
                    if n in text_lines:
                        new[n] = (text_lines[n], sha)
                    else:
                        problems.append(f"{path}: line {n} of a shown segment is missing from text")
                elif seg.kind == "unchanged" and seg.source is not None:  # always, for unchanged
                    source = seg.source + n - seg.start
                    had = copy.text(source)  # the copy as it was before this answer
                    if had is None and source in copy.elided and self._replaying:
                        # replayed in a context that lost the answer that showed the line, a
                        # marker over a line the model holds elided leaves it elided (given
                        # now, such a claim is a problem: the marker says "the text you have")
                        elided.append(n)
                    elif had is None:
                        never_had.append(source)
                    else:
                        new[n] = (had, sha)
                else:
                    elided.append(n)
            if never_had:
                problems.append(f"{path}: segment {seg.start}..{seg.end} (from {seg.source}) claims unchanged "
                                f"for a line the agent never had: copy line {line_ranges(never_had)}")
        for n in sorted(set(text_lines) - shown):
            problems.append(f"{path}: text shows numbered line {n} outside any shown segment")
        if scope is None:
            copy.held = new
            copy.elided = set(elided)
            copy.total, copy.total_stamp = total, sha
        else:
            copy.elided -= set(range(lo, hi + 1))
            if elided:
                problems.append(f"{path}: lines {line_ranges(elided)} asked for, never shown (elided in a range answer)")
            for n in range(lo, hi + 1):
                copy.held.pop(n, None)
            copy.held.update(new)
        copy.sha = sha

    def _apply_unchanged(
        self, path: str, copy: _Copy, scope: tuple[int, int] | None, total: int, sha: Any, problems: list[str]
    ) -> None:
        if scope is None:
            # The file is the copy: every line it holds is vouched for now; unknown lines stay unknown.
            if copy.total is None:
                problems.append(f"{path}: mode unchanged, but the agent's copy has no known length "
                                f"(no full-scope answer yet)")
                copy.total = total
            elif copy.total != total:
                problems.append(f"{path}: mode unchanged, but total_lines {total} != the copy's {copy.total} lines")
            else:
                absent = [n for n in range(1, total + 1) if n not in copy.held and n not in copy.elided]
                if absent:
                    problems.append(f"{path}: mode unchanged, but the agent holds no text for lines "
                                    f"{line_ranges(absent)} (never given, or lost) and none was elided")
            copy.total_stamp = sha
            copy.held = {n: (text, sha) for n, (text, _) in copy.held.items()}
        else:
            lo, hi = scope
            missing = [n for n in range(lo, hi + 1) if n not in copy.held]
            if missing:
                problems.append(f"{path}: mode unchanged for lines {lo}..{hi}, but asked for lines never shown: "
                                f"{line_ranges(missing)}")
            for n in range(lo, hi + 1):
                if n in copy.held:
                    copy.held[n] = (copy.held[n][0], sha)
        copy.sha = sha

    def _apply_diff(self, path: str, copy: _Copy, text: Any, total: int, sha: Any, problems: list[str]) -> None:
        if not copy.held and copy.total is None:
            problems.append(f"{path}: mode diff, but the agent holds no copy of the file")
        hunks = _hunks(path, text, problems)
        patched = None if hunks is None else _patch(path, copy, hunks, total, sha, problems)
        if patched is None:  # the agent cannot apply it: its copy stays, nothing is vouched for
            copy.sha = None
            return
        copy.held, copy.elided = patched
        copy.total, copy.total_stamp, copy.sha = total, sha, sha


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
    path: str, copy: _Copy, hunks: list[_Hunk], total: int, sha: Any, problems: list[str]
) -> tuple[dict[int, tuple[str, Any]], set[int]] | None:
    """The copy after the hunks (held lines, elided lines): lines outside them carried
    over (shifted, vouched for by this answer), context and added lines as the diff
    shows them. None when they cannot apply."""
    new: dict[int, tuple[str, Any]] = {}
    new_elided: set[int] = set()
    old_pos = new_pos = 1

    def carry(upto: int | None, shift: int) -> None:
        for o, (line, _) in copy.held.items():
            if o >= old_pos and (upto is None or o < upto):
                new[o + shift] = (line, sha)
        for o in copy.elided:
            if o >= old_pos and (upto is None or o < upto):
                new_elided.add(o + shift)

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
                had = copy.text(o)
                if had is not None and had != content:
                    problems.append(f"{path}: diff expects old line {o} = {content!r}, the agent's copy has {had!r}")
                o += 1
            if tag in " +":
                new[n] = (content, sha)
                n += 1
        old_pos, new_pos = old_first + h.old_count, new_first + h.new_count
    carry(None, new_pos - old_pos)
    if copy.total is not None and copy.total + new_pos - old_pos != total:
        problems.append(f"{path}: diff turns the copy's {copy.total} lines into "
                        f"{copy.total + new_pos - old_pos}, response says {total}")
    return ({n: entry for n, entry in new.items() if 1 <= n <= total},
            {n for n in new_elided if 1 <= n <= total and n not in new})
