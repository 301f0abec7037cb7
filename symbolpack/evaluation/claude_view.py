"""The judge of a Claude Code context: what the model holds of each file, rebuilt
from the `messages` of one API request, and whether symbolpack's answers in it
lean only on that.

`oracle.py` judges protocol responses (JSON: segments, scopes, sha256). Inside
Claude Code the model never sees that JSON: it sees Read results as Claude Code
renders them (`N<TAB>line`, numbered from the Read's offset, the empty piece after
a final newline numbered too), symbolpack's replaced Read outputs in that same
shape, its answers as a `PostToolUse:Read hook additional context` reminder (or, on
the deny path, as a `PreToolUse:Read hook error`), files Claude re-attaches after a
compaction, results Claude cleared, and its own Edits. A judge that read
symbolpack's transcript parser or its stored answers would grade the engine by the
engine; this one reads only what the request carries, in the formats
docs/PROTOCOL.md defines, and imports nothing from the engine (nor from
`reads/`): its text grammar is written again here on purpose.

One request is one context (a rewind, a fork, a compaction, `/clear` or a
subagent is simply another list of messages). Walking it in order, each file's
view is, per line, the text the latest display covering that line gave the model
(a whole-file display replaces the view, a range overwrites its lines; elided
lines are known to be unknown), shifted by the model's own Edits. An answer given
in this request (a tool result after the last assistant message) is judged: every
line it vouches for (an `[UNCHANGED]` marker, a `... A-B unchanged (were X-Y)` run,
the lines a `[DIFF]` leaves out) must be held in the view just before it with
exactly the file's text when the answer was made, and every line it shows must be
that text. Earlier answers were judged in the request that first carried them;
here they are replayed for their effect only: what they leaned on that this
context no longer holds gives the model nothing.

The file's true texts come from the caller (`FileClock`): the test harness
snapshots the files whenever the fake API receives a request.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Sequence

from .oracle import line_ranges, split_lines

CONTEXT_PREFIX = "PostToolUse:Read hook additional context: "
DENY_PREFIX = "PreToolUse:Read hook error: "
CLEARED = "[Old tool result content cleared]"
REMINDER_OPEN = "<system-reminder>\n"
REMINDER_CLOSE = "\n</system-reminder>"
ATTACHED_CALL = re.compile(r"Called the Read tool with the following input: (\{.*\})", re.S)
ATTACHED_RESULT = "Result of calling the Read tool:\n"

_CLAUDE_ROW = re.compile(r"^(\d+)(?:\t(.*))?$", re.S)  # Claude's `N<TAB>line` (an empty last row may lose its TAB)
_OWN_ROW = re.compile(r"^ *(\d+)\t(.*)$", re.S)  # symbolpack's `cat -n` row, right-aligned in six columns
# `... A-B unchanged`, maybe `, elided bodies still elided`, `(were X-Y)` and `; declared now on lines: f 12, g 40`
_UNCHANGED_RUN = re.compile(r"^\.\.\. (\d+)-(\d+) unchanged(?:, elided bodies still elided)?"
                            r"(?: \(were (\d+)-(\d+)\))?(?:; (?:now at|declared now on lines): .*)?$")
_OTHER_RUN = re.compile(r"^\s*\.\.\. (\d+)-(\d+) (.*)$")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# a diff's `changed (X -> Y lines)`, a delta's `changed since your last whole read of it (X lines then, Y now)`
_CHANGED = re.compile(r" changed (?:\((\d+) -> (\d+) lines\)|since your last whole read of it \((\d+) lines then, (\d+) now\))")
_SKELETON = re.compile(r" (\d+) lines[.:]")


@dataclass(frozen=True)
class FileClock:
    """The files' true texts: when each tool call was made (`before`), when its
    result came back (`after`), and when this request was sent (`now`)."""

    before: Mapping[str, Mapping[str, str | None]]
    after: Mapping[str, Mapping[str, str | None]]
    now: Mapping[str, str | None]


@dataclass(frozen=True)
class ReadResult:
    """One Read result as the model received it: the result proper (Claude's
    numbered rows, or symbolpack's replacement in that shape), symbolpack's answer
    (the hook's additional context, or a deny's reason) and the error flag."""

    tool_use_id: str
    file_path: str
    args: Mapping[str, Any]
    body: str
    answer: str | None
    is_error: bool
    new: bool  # after the last assistant message: given in this request

    @property
    def kind(self) -> str:
        """native | skeleton | unchanged | delta | diff | range | cleared | error."""
        if self.answer is None:
            if self.is_error:
                return "error"
            return "cleared" if self.body.strip() == CLEARED else "native"
        head = self.answer.split("\n", 1)[0]
        # `[CHANGED]`: a change behind bodies the model was told are elided, the copy stands
        for tag, kind in (("[SKELETON]", "skeleton"), ("[UNCHANGED]", "unchanged"), ("[CHANGED]", "unchanged"),
                          ("[DELTA]", "delta"), ("[DIFF]", "diff")):
            if head.startswith(tag):
                return kind
        return "range"


@dataclass(frozen=True)
class JudgedAnswer:
    tool_use_id: str
    file_path: str
    kind: str
    is_error: bool
    problems: tuple[str, ...]


@dataclass
class FileView:
    """What the model holds of one file: line -> text, lines it knows are elided,
    and the length it was last told (None: never told)."""

    held: dict[int, str] = field(default_factory=dict)
    elided: set[int] = field(default_factory=set)
    length: int | None = None


@dataclass(frozen=True)
class Verdict:
    answers: tuple[JudgedAnswer, ...]  # symbolpack's answers given in this request, judged
    replayed: tuple[str, ...]  # earlier answers, replayed for their effect
    views: Mapping[str, FileView]
    problems: tuple[str, ...]  # every judged answer's problems, and the context's own


# --------------------------------------------------------------------------- reading the messages

def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, Mapping)]


def _result_text(block: Mapping[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, Mapping) and b.get("type") == "text")


def split_result(text: str) -> tuple[str, list[str]]:
    """A tool result's own text and the reminders Claude appended to it. A numbered
    body cannot hold a blank line (every row starts with its number), so the first
    blank line before a reminder ends it."""
    reminders: list[str] = []
    at = text.find("\n\n" + REMINDER_OPEN)
    if at < 0:
        if text.startswith(REMINDER_OPEN):
            at, rest = 0, text
        else:
            return text, reminders
    else:
        rest = text[at + 2:]
    body = text[:at]
    while rest.startswith(REMINDER_OPEN):
        end = rest.find(REMINDER_CLOSE + "\n\n" + REMINDER_OPEN)
        if end < 0:
            end = rest.rfind(REMINDER_CLOSE)
            reminders.append(rest[len(REMINDER_OPEN):end] if end >= 0 else rest[len(REMINDER_OPEN):])
            break
        reminders.append(rest[len(REMINDER_OPEN):end])
        rest = rest[end + len(REMINDER_CLOSE) + 2:]
    return body, reminders


def read_results(messages: Sequence[Mapping[str, Any]]) -> list[ReadResult]:
    """Every Read result of the context, in order, split into what Claude showed and
    what symbolpack answered."""
    return [item for item in _events(messages) if isinstance(item, ReadResult)]


@dataclass(frozen=True)
class _Attached:
    file_path: str
    args: Mapping[str, Any]
    body: str


@dataclass(frozen=True)
class _Edited:
    tool_use_id: str
    name: str
    args: Mapping[str, Any]


def _events(messages: Sequence[Mapping[str, Any]], cleared: frozenset[str] = frozenset()) -> Iterator[Any]:
    """ReadResult, _Attached (a file Claude re-attached) and _Edited (an applied Edit
    or Write), in context order."""
    last_assistant = max((k for k, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    calls: dict[str, tuple[str, Mapping[str, Any]]] = {}
    pending: Mapping[str, Any] | None = None  # a re-attached file's input, waiting for its result
    for k, message in enumerate(messages):
        for block in _blocks(message):
            kind = block.get("type")
            if kind == "tool_use" and isinstance(block.get("id"), str):
                args = block.get("input")
                calls[block["id"]] = (str(block.get("name")), args if isinstance(args, Mapping) else {})
            elif kind == "text" and message.get("role") == "user":
                text = str(block.get("text", ""))
                for piece in text.split(REMINDER_OPEN):
                    piece = piece.split(REMINDER_CLOSE, 1)[0]
                    call = ATTACHED_CALL.match(piece)
                    if call:
                        try:
                            pending = json.loads(call.group(1))
                        except ValueError:
                            pending = None
                    elif piece.startswith(ATTACHED_RESULT) and isinstance(pending, Mapping) \
                            and isinstance(pending.get("file_path"), str):
                        yield _Attached(pending["file_path"], pending, piece[len(ATTACHED_RESULT):])
                        pending = None
            elif kind == "tool_result" and block.get("tool_use_id") in calls:
                ident = block["tool_use_id"]
                name, args = calls[ident]
                is_error = block.get("is_error") is True
                if name == "Read" and isinstance(args.get("file_path"), str):
                    text = CLEARED if ident in cleared else _result_text(block)
                    answer: str | None = None
                    body = ""
                    if is_error and text.startswith(DENY_PREFIX):
                        answer, _ = split_result(text[len(DENY_PREFIX):])
                    else:
                        body, reminders = split_result(text)
                        for reminder in reminders:
                            if reminder.startswith(CONTEXT_PREFIX):
                                answer = reminder[len(CONTEXT_PREFIX):]
                    yield ReadResult(ident, args["file_path"], args, body, answer, is_error, k > last_assistant)
                elif name in ("Edit", "Write") and not is_error and isinstance(args.get("file_path"), str):
                    yield _Edited(ident, name, args)


def _server_cleared(messages: Sequence[Mapping[str, Any]], context_management: Any) -> frozenset[str]:
    """Tool results the API may clear server-side (a `clear_tool_uses` edit): every
    one but the last `keep` tool uses, other than the excluded tools. Whether the
    trigger was reached is the server's business: may-be-cleared counts as cleared."""
    edits = context_management.get("edits") if isinstance(context_management, Mapping) else None
    cleared: set[str] = set()
    for edit in edits or []:
        if not (isinstance(edit, Mapping) and str(edit.get("type", "")).startswith("clear_tool_uses")):
            continue
        keep = edit.get("keep")
        count = keep.get("value", 3) if isinstance(keep, Mapping) else 3
        excluded = set(edit.get("exclude_tools") or [])
        uses = [b["id"] for m in messages if m.get("role") == "assistant" for b in _blocks(m)
                if b.get("type") == "tool_use" and b.get("name") not in excluded and isinstance(b.get("id"), str)]
        cleared.update(uses[:max(0, len(uses) - int(count))])
    return frozenset(cleared)


# --------------------------------------------------------------------------- displays

def claude_rows(body: str, text: str | None) -> dict[int, str] | None:
    """Claude's numbered rows of a Read result (None when it is not numbered: a
    cleared result, a warning). The empty piece Claude numbers after a final
    newline is not a line of the file and is dropped, when *text* (the file at the
    time) says it is that piece."""
    if not body or body.strip() == CLEARED or body.startswith("<system-reminder>"):
        return None
    rows: dict[int, str] = {}
    for row in body.split("\n"):
        match = _CLAUDE_ROW.match(row)
        if match is None:
            return None  # not Claude's numbering (a dedup stub, a note): nothing displayed
        rows[int(match.group(1))] = match.group(2) or ""
    last = max(rows)
    if rows[last] == "" and text is not None and text.endswith("\n") and last == len(split_lines(text)) + 1:
        del rows[last]
    return rows


def _show(view: FileView, rows: Mapping[int, str], whole: bool) -> None:
    if whole:
        view.held = dict(rows)
        view.elided = set()
        view.length = max(rows, default=0)
    else:
        view.held.update(rows)
        view.elided -= set(rows)


def _check_shown(rows: Mapping[int, str], current: list[str] | None, what: str, problems: list[str]) -> None:
    if current is None:
        return
    for n, text in sorted(rows.items()):
        if n > len(current):
            problems.append(f"{what} shows line {n} {text!r}, but the file has {len(current)} lines")
        elif current[n - 1] != text:
            problems.append(f"{what} shows line {n} as {text!r}; the file has {current[n - 1]!r}")


def _vouch(view: FileView, lines: Iterable[int], current: list[str] | None, at: Mapping[int, int] | None,
           what: str, problems: list[str]) -> None:
    """The answer says the model holds line `src` (in its view) and that it is the
    file's line `at[src]` now. Absent lines and wrong lines are problems."""
    absent: list[int] = []
    for src in lines:
        held = view.held.get(src)
        if held is None:
            absent.append(src)
            continue
        if current is None:
            continue
        now = (at or {}).get(src, src)
        if now > len(current):
            problems.append(f"{what} vouches for line {now}, but the file has {len(current)} lines")
        elif current[now - 1] != held:
            problems.append(f"{what} vouches for line {now} (the model's {src}), which the model holds as "
                            f"{held!r}; the file has {current[now - 1]!r}")
    if absent:
        problems.append(f"{what} leans on lines {line_ranges(absent)} of the model's copy, which this context does "
                        f"not hold")


# --------------------------------------------------------------------------- symbolpack's answers

def _rel_after(rest: str, file_path: str) -> str | None:
    """What follows the file's name in `rest` (its name is some tail of file_path)."""
    parts = file_path.split("/")
    for k in range(len(parts)):
        tail = "/".join(parts[k:])
        if tail and rest.startswith(tail):
            return rest[len(tail):]
    return None


def _segments(rows: Iterable[str], what: str, problems: list[str]) -> list[tuple[str, int, int, Any]]:
    """symbolpack's text rows as ("shown", n, n, text) / ("unchanged", a, b, source) /
    ("elided", a, b, None); notes are skipped."""
    out: list[tuple[str, int, int, Any]] = []
    for row in rows:
        own = _OWN_ROW.match(row)
        if own:
            if len(row[:own.end(1)]) < 6:
                problems.append(f"{what}: row {row!r} is not a six-column numbered line")
            out.append(("shown", int(own.group(1)), int(own.group(1)), own.group(2)))
            continue
        run = _UNCHANGED_RUN.match(row)
        if run:
            a, b = int(run.group(1)), int(run.group(2))
            src = int(run.group(3)) if run.group(3) else a
            if run.group(4) and int(run.group(4)) - src != b - a:
                problems.append(f"{what}: {row!r} maps runs of different lengths")
            out.append(("unchanged", a, b, src))
            continue
        other = _OTHER_RUN.match(row)
        if other:
            out.append(("elided", int(other.group(1)), int(other.group(2)), None))
    return out


def _cover(segments: Sequence[tuple[str, int, int, Any]], lo: int, hi: int, what: str, problems: list[str]) -> None:
    pos = lo
    for kind, a, b, _ in segments:
        if a != pos:
            problems.append(f"{what}: lines {pos}-{a - 1} are neither shown, unchanged nor elided" if a > pos
                            else f"{what}: line {a} is covered twice")
        pos = max(pos, b + 1)
    if pos != hi + 1:
        problems.append(f"{what}: covers lines up to {pos - 1}, the file has {hi}")


def _apply_skeleton(view: FileView, result: ReadResult, current: list[str] | None, what: str,
                    problems: list[str], text: str | None) -> None:
    answer = result.answer or ""
    head, _, rest = answer.partition("\n")
    total = _SKELETON.search(head)
    body = claude_rows(result.body, text) or {}
    segments = [("shown", n, n, t) for n, t in sorted(body.items())] + _segments(rest.split("\n"), what, problems)
    segments.sort(key=lambda s: s[1])
    length = int(total.group(1)) if total else None
    if length is None:
        problems.append(f"{what}: a skeleton that does not say the file's length")
    else:
        _cover(segments, 1, length, what, problems)
        if current is not None and length != len(current):
            problems.append(f"{what} says {length} lines; the file has {len(current)}")
    shown = {a: t for kind, a, _, t in segments if kind == "shown"}
    _check_shown(shown, current, what, problems)
    view.held = shown
    view.elided = {n for kind, a, b, _ in segments if kind == "elided" for n in range(a, b + 1)}
    view.length = length


def _apply_answer(view: FileView, result: ReadResult, current: list[str] | None, what: str,
                  problems: list[str]) -> None:
    """A re-read answer (marker, delta, diff, range) against the view before it."""
    answer = result.answer or ""
    head, _, rest = answer.partition("\n")
    rows = rest.split("\n") if rest else []
    kind = result.kind
    if kind == "range":
        rows = answer.split("\n")
    if kind == "unchanged":
        after = _rel_after(head.split("] ", 1)[1] if "] " in head else "", result.file_path)
        if after is None:
            problems.append(f"{what} names another file: {head!r}")
            return
        span = re.match(r":(\d+)-(\d+)", after)
        if span:
            a, b = int(span.group(1)), int(span.group(2))
            _vouch(view, range(a, b + 1), current, None, what, problems)
            return
        if view.length is None and not view.held:
            problems.append(f"{what} leans on {result.file_path}, which this context does not hold")
            return
        _vouch(view, sorted(view.held), current, None, what, problems)
        if view.length is not None:
            unknown = [n for n in range(1, view.length + 1) if n not in view.held and n not in view.elided]
            if unknown:
                problems.append(f"{what} says the file is unchanged, but the model holds no text for lines "
                                f"{line_ranges(unknown)} and was not told they are elided")
            if current is not None and view.length != len(current):
                problems.append(f"{what} says the file is unchanged; the model believes {view.length} lines, the "
                                f"file has {len(current)}")
        else:
            problems.append(f"{what} says the whole file is unchanged, but the model was never told its length")
        return
    if kind in ("delta", "diff"):
        if _rel_after(head.split(" ", 1)[1] if " " in head else "", result.file_path) is None:
            problems.append(f"{what} names another file: {head!r}")
        counts = _CHANGED.search(head)
        if counts is None:
            problems.append(f"{what}: header without line counts: {head!r}")
            return
        old_total, total = (int(g) for g in (counts.groups()[:2] if counts.group(1) else counts.groups()[2:]))
        if view.length is None:
            problems.append(f"{what} leans on a copy of {old_total} lines; this context holds no whole copy of "
                            f"the file")
        elif view.length != old_total:
            problems.append(f"{what} leans on a copy of {old_total} lines; the model believes {view.length}")
        if current is not None and total != len(current):
            problems.append(f"{what} says {total} lines; the file has {len(current)}")
        if kind == "delta":
            _apply_delta(view, _segments(rows, what, problems), total, current, what, problems)
        else:
            _apply_diff(view, rows, old_total, total, current, what, problems)
        return
    # a range answer: rows and `unchanged` runs over the asked-for lines
    segments = _segments(rows, what, problems)
    if not segments:
        problems.append(f"{what}: an answer symbolpack's grammar does not know: {head!r}")
        return
    lo, hi = segments[0][1], max(s[2] for s in segments)
    _cover(sorted(segments, key=lambda s: s[1]), lo, hi, what, problems)
    new: dict[int, str] = {}
    for seg_kind, a, b, extra in segments:
        if seg_kind == "shown":
            new[a] = extra
        elif seg_kind == "unchanged":
            _vouch(view, range(extra, extra + b - a + 1), current, {extra + k: a + k for k in range(b - a + 1)},
                   what, problems)
            new.update({a + k: view.held[extra + k] for k in range(b - a + 1) if extra + k in view.held})
        else:
            problems.append(f"{what}: lines {a}-{b} asked for are elided in a range answer")
    _check_shown({n: t for s, n, _, t in segments if s == "shown"}, current, what, problems)
    for n in range(lo, hi + 1):
        view.held.pop(n, None)
        view.elided.discard(n)
    view.held.update(new)


def _apply_delta(view: FileView, segments: list[tuple[str, int, int, Any]], total: int,
                 current: list[str] | None, what: str, problems: list[str]) -> None:
    _cover(segments, 1, total, what, problems)
    held: dict[int, str] = {}
    elided: set[int] = set()
    for kind, a, b, extra in segments:
        if kind == "shown":
            held[a] = extra
        elif kind == "elided":
            elided.update(range(a, b + 1))
        else:  # a run the model holds (or was told is elided), moved together
            vouched = [extra + k for k in range(b - a + 1) if extra + k not in view.elided]
            _vouch(view, vouched, current, {extra + k: a + k for k in range(b - a + 1)}, what, problems)
            for k in range(b - a + 1):
                if extra + k in view.held:
                    held[a + k] = view.held[extra + k]
                else:
                    elided.add(a + k)
    _check_shown({n: t for s, n, _, t in segments if s == "shown"}, current, what, problems)
    view.held, view.elided, view.length = held, elided, total


def _apply_diff(view: FileView, rows: list[str], old_total: int, total: int, current: list[str] | None,
                what: str, problems: list[str]) -> None:
    hunks: list[tuple[int, int, int, int, list[tuple[str, str]]]] = []
    i = 0
    while i < len(rows):
        header = _HUNK.match(rows[i])
        i += 1
        if header is None:
            continue
        a, b, c, d = (int(g) if g is not None else 1 for g in header.groups())
        body: list[tuple[str, str]] = []
        need_old, need_new = b, d
        while (need_old > 0 or need_new > 0) and i < len(rows):
            row = rows[i]
            i += 1
            if row.startswith("\\"):
                continue
            tag, text = (row[0], row[1:]) if row else (" ", "")
            if tag not in " -+":
                problems.append(f"{what}: hunk row {row!r} is not a diff line")
                return
            need_old -= tag in " -"
            need_new -= tag in " +"
            body.append((tag, text))
        if need_old or need_new:
            problems.append(f"{what}: hunk {header.group(0)} does not match its line counts")
            return
        hunks.append((a, b, c, d, body))
    held: dict[int, str] = {}
    shown: dict[int, str] = {}
    old_pos = new_pos = 1
    carried: list[int] = []
    at: dict[int, int] = {}

    def carry(upto: int, shift: int) -> None:
        for o in range(old_pos, upto):
            carried.append(o)
            at[o] = o + shift
            if o in view.held:
                held[o + shift] = view.held[o]

    for a, b, c, d, body in hunks:
        old_first, new_first = (a if b else a + 1), (c if d else c + 1)
        if old_first < old_pos or old_first - old_pos != new_first - new_pos:
            problems.append(f"{what}: hunk -{a},{b} +{c},{d} is out of order")
            return
        carry(old_first, new_pos - old_pos)
        o, n = old_first, new_first
        for tag, text in body:
            if tag in " -":
                had = view.held.get(o)
                if had is not None and had != text:
                    problems.append(f"{what} expects the model's line {o} to be {text!r}; it holds {had!r}")
                o += 1
            if tag in " +":
                held[n] = shown[n] = text
                n += 1
        old_pos, new_pos = old_first + b, new_first + d
    carry(old_total + 1, new_pos - old_pos)
    if old_total + new_pos - old_pos != total:
        problems.append(f"{what}: its hunks turn {old_total} lines into {old_total + new_pos - old_pos}, not "
                        f"{total}")
    _vouch(view, carried, current, at, what, problems)
    _check_shown(shown, current, what, problems)
    view.held, view.elided, view.length = {n: t for n, t in held.items() if 1 <= n <= total}, set(), total


# --------------------------------------------------------------------------- the model's own edits

def _apply_edit(view: FileView, event: _Edited, before: str | None, after: str | None) -> None:
    """The model wrote new_string where old_string was: it holds the lines its edit
    made whole (or completed from lines it held exactly), the lines around shift."""
    args = event.args
    if event.name == "Write":
        content = args.get("content")
        if isinstance(content, str):
            lines = split_lines(content)
            view.held, view.elided, view.length = dict(enumerate(lines, 1)), set(), len(lines)
        return
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str) or before is None or not old or old not in before:
        view.held, view.elided, view.length = {}, set(), None  # cannot place it: the model's copy is unsure
        return
    if args.get("replace_all") is True and before.count(old) > 1:
        view.held, view.elided, view.length = {}, set(), None
        return
    idx = before.index(old)
    start = before.rfind("\n", 0, idx) + 1
    end = before.find("\n", idx + len(old))
    end = len(before) if end < 0 else end
    old_lines = before[start:end].split("\n")
    block = before[start:idx] + new + before[idx + len(old):end]
    new_lines = block.split("\n")
    first = before.count("\n", 0, start) + 1
    shift = len(new_lines) - len(old_lines)
    # where the model believes the edit is: its own copy of those lines, when it holds them once
    spots = [p for p in view.held if all(view.held.get(p + k) == t for k, t in enumerate(old_lines))]
    at = spots[0] if len(spots) == 1 else first
    prefix_known = idx == start or view.held.get(at) == old_lines[0]
    suffix_known = idx + len(old) == end or view.held.get(at + len(old_lines) - 1) == old_lines[-1]
    held: dict[int, str] = {}
    for n, text in view.held.items():
        if n < at:
            held[n] = text
        elif n >= at + len(old_lines):
            held[n + shift] = text
    offset = 0
    new_start, new_end = idx - start, idx - start + len(new)
    for k, text in enumerate(new_lines):
        lo, hi = offset, offset + len(text)
        offset = hi + 1
        if (lo >= new_start or prefix_known) and (hi <= new_end or suffix_known):
            held[at + k] = text
    view.held = held
    view.elided = {n if n < at else n + shift for n in view.elided if n < at or n >= at + len(old_lines)}
    if view.length is not None:
        view.length += shift


# --------------------------------------------------------------------------- the judge

def judge_request(messages: Sequence[Mapping[str, Any]], clock: FileClock,
                  context_management: Any = None) -> Verdict:
    """Rebuild every file's view through the context and judge the answers given in it."""
    views: dict[str, FileView] = {}
    judged: list[JudgedAnswer] = []
    replayed: list[str] = []
    problems: list[str] = []
    cleared = _server_cleared(messages, context_management)
    for event in _events(messages, cleared):
        if isinstance(event, _Attached):
            text = clock.now.get(event.file_path)
            rows = claude_rows(event.body, text)
            if rows:
                whole = "offset" not in event.args and "limit" not in event.args
                _show(views.setdefault(event.file_path, FileView()), rows, whole)
            continue
        if isinstance(event, _Edited):
            path = event.args["file_path"]
            before = clock.before.get(event.tool_use_id, {}).get(path)
            _apply_edit(views.setdefault(path, FileView()), event, before,
                        clock.after.get(event.tool_use_id, {}).get(path))
            continue
        result: ReadResult = event
        path = result.file_path
        view = views.setdefault(path, FileView())
        text = clock.after.get(result.tool_use_id, {}).get(path)
        whole = "offset" not in result.args and "limit" not in result.args
        if result.answer is None:
            rows = claude_rows(result.body, text)
            if rows:
                _show(view, rows, whole)
            continue
        own: list[str] = []
        what = f"{result.tool_use_id} ({path.rsplit('/', 1)[-1]}, {result.kind})"
        current = None if text is None else split_lines(text)
        if result.new and text is None:
            own.append(f"{what}: no true text of the file for this answer (the clock does not know the call)")
        check = current if result.new else None
        if result.kind == "skeleton":
            _apply_skeleton(view, result, check, what, own, text)
        else:
            _apply_answer(view, result, check, what, own)
            rows = claude_rows(result.body, text) if not result.is_error else None
            if rows:
                _check_shown(rows, check, what, own)
                _show(view, rows, False)
        if result.new:
            judged.append(JudgedAnswer(result.tool_use_id, path, result.kind, result.is_error, tuple(own)))
            problems.extend(own)
        else:
            replayed.append(result.tool_use_id)
    return Verdict(tuple(judged), tuple(replayed), views, tuple(problems))
