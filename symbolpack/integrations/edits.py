"""The agent's own edits on its copy, shared by the Claude hooks and the Chibi plugin.

What the two integrations do alike once they know which edit an agent made:

* *marks*: per line of a file, what the agent holds there (KNOWN, DIFFERS, a hidden
  mark naming the elided symbol, or GAP), read off its copy (`copy_marks`, with
  `loader` giving each version's lines from the store);
* `replay`: an edit applied with the native Edit tool's semantics to marked lines,
  and `carry_edit` / `copy_from_cells`: the copy carried through the agent's own edit
  (None when the copy and the file part ways);
* `guard_verdict`: the stale-edit guard's decision on the lines an edit touches.

Nothing here reads a hook payload or writes a hook answer: `claude/` and the
Chibi plugin do that, each in its host's terms. Imports are lazy (a hook process
pays for what it uses).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# --------------------------------------------------------------------------- tool arguments

def int_arg(value) -> int | None:
    """An integer tool argument as agents send it (an int, an integral float, a digit string); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


# --------------------------------------------------------------------------- versions of a file

def loader(store, sha_now: str | None = None, lines_now=None):
    """sha -> that version's lines (None when the baseline is missing or damaged)."""
    from ..engine.sources import split_text_lines

    cache: dict = {}

    def load(sha: str):
        if sha == sha_now:
            return lines_now
        if sha not in cache:
            data = store.get_object(sha)
            cache[sha] = None if data is None else split_text_lines(data.decode("utf-8", "surrogateescape"))
        return cache[sha]

    load.raw = lambda sha: store.get_object(sha)  # type: ignore[attr-defined]
    return load


# --------------------------------------------------------------------------- edits replayed on marked lines

# A mark per line while an edit is replayed: (rank, hidden symbol). A line made of
# several lines' pieces takes the worst mark among them.
KNOWN = (0, None)    # the agent holds it (and, for the guard, it equals the file now)
DIFFERS = (1, None)  # the agent holds it, but the file has something else there now
GAP = (3, None)      # the agent does not hold it and nothing is known about it
# (2, symbol): hidden, the agent was told it is elided


def hidden_mark(symbol) -> tuple:
    return (2, symbol or "")


def _worse(a: tuple, b: tuple) -> tuple:
    return a if a[0] >= b[0] else b


def apply_edit(text: str, old: str, new: str, replace_all: bool = False) -> str | None:
    """The native Edit tool's semantics; None when it would refuse the edit."""
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if old == "":
        return new if text == "" else None
    count = text.count(old)
    if count == 0 or (count > 1 and not replace_all):
        return None
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def edits_of(tool: str, tool_input: dict) -> list[tuple[Any, Any, bool]] | None:
    """(old, new, replace_all) of each edit, as the tool input gives them (not checked here)."""
    if tool == "Edit":
        return [(tool_input.get("old_string"), tool_input.get("new_string"), bool(tool_input.get("replace_all")))]
    if tool == "MultiEdit":
        edits = tool_input.get("edits")
        if not isinstance(edits, list) or not edits:
            return None
        out = []
        for e in edits:
            if not isinstance(e, dict):
                return None
            out.append((e.get("old_string"), e.get("new_string"), bool(e.get("replace_all"))))
        return out
    return None


def replay(text: str, marks, edits, touched=None, together: bool = False):
    """Apply *edits* to *text*, whose lines (`text.split("\\n")`, a final empty piece
    included) carry *marks*. Returns (text, marks) after them, or None when the native
    tool would refuse one.

    By default the edits apply one after another, with Claude Code's Edit semantics
    (an `old_string` found once, or every time with `replace_all`; an empty one writes
    an empty file). *together*: pi's `edit` semantics: every `oldText` is matched
    against the text before any of them, must occur exactly once, must not be empty
    and must not overlap another; all are then applied at once.

    A line the edit builds wholly from `new_string` is KNOWN; a line that keeps a
    piece of an old line (the text before `old_string` on its first line, after it
    on its last) takes the worse of KNOWN and that line's mark; untouched lines keep
    theirs, shifted. *touched(first, last, old_marks, new_first, new_last)* is called
    for every occurrence, with the 1-based old lines holding `old_string` and the
    new lines written in their place (new_last < new_first: removed)."""
    from bisect import bisect_right

    lines = text.split("\n")
    marks = list(marks)
    if len(marks) != len(lines):
        raise ValueError("one mark per line")

    def apply(occurrences) -> None:
        """Replace each (position, old, new), sorted and disjoint, in *lines* and *marks*."""
        starts = [0] * len(lines)
        for i in range(1, len(lines)):
            starts[i] = starts[i - 1] + len(lines[i - 1]) + 1
        # right to left: an occurrence never moves the lines left of the next one
        for p, old, new in reversed(occurrences):
            end = p + len(old)
            a = bisect_right(starts, p) - 1
            b = bisect_right(starts, end) - 1
            prefix = lines[a][:p - starts[a]]
            suffix = lines[b][end - starts[b]:]
            region = (prefix + new + suffix).split("\n")
            region_marks = [KNOWN] * len(region)
            if prefix:
                region_marks[0] = _worse(region_marks[0], marks[a])
            if suffix:
                region_marks[-1] = _worse(region_marks[-1], marks[b])
            if touched is not None:
                ends_at_line_start = end == starts[b] and b > a  # old_string ended with its newline
                last = b - 1 if ends_at_line_start else b
                written = len(region) - (1 if ends_at_line_start else 0)  # the last piece is line b, carried
                touched(a + 1, last + 1, marks[a:last + 1], a + 1, a + written)
            lines[a:b + 1] = region
            marks[a:b + 1] = region_marks

    if together:
        found = []
        for old, new, _replace_all in edits:
            if not isinstance(old, str) or not isinstance(new, str) or old == "" or text.count(old) != 1:
                return None
            found.append((text.find(old), old, new))
        found.sort(key=lambda o: o[0])
        if any(p + len(old) > q for (p, old, _), (q, _, _) in zip(found, found[1:])):
            return None  # overlapping edits: pi refuses them
        apply(found)
        return "\n".join(lines), marks
    for old, new, replace_all in edits:
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        if old == "":
            if text != "":
                return None
            text = new
            lines = new.split("\n")
            marks = [KNOWN] * len(lines)
            continue
        count = text.count(old)
        if count == 0 or (count > 1 and not replace_all):
            return None
        positions = []
        at = text.find(old)
        while at >= 0:
            positions.append(at)
            if not replace_all:
                break
            at = text.find(old, at + len(old))
        apply([(p, old, new) for p in positions])
        text = "\n".join(lines)
    return text, marks


# --------------------------------------------------------------------------- the copy through an edit

_TAIL = "\0tail\0"  # stands for the unknown end of a file seen only in ranges (NUL: never in a tracked file)


def _gap_line(n: int) -> str:
    return f"\0{n}\0"


def aligned_marks(texts, marks, lines) -> list:
    """Per line of the file now (0-based), what the agent holds there, matched by text
    (`linediff`), not by line number: a line that only moved (a line inserted above it
    on disk) is still KNOWN; a line whose counterpart the agent holds with other text
    is DIFFERS; hidden lines keep their hidden mark; lines the agent never had are GAP.
    *texts*, *marks*: `copy_marks` of the copy (index 1..)."""
    from ..base.linediff import opcodes

    belief = [texts[n] if marks[n] == KNOWN else object() for n in range(1, len(texts))]
    out: list = [GAP] * len(lines)
    for tag, i1, i2, j1, j2 in opcodes(belief, lines):
        if tag == "equal":
            out[j1:j2] = [KNOWN] * (j2 - j1)
        elif tag == "replace":
            for k in range(j2 - j1):
                mark = marks[i1 + 1 + k] if i1 + k < i2 else GAP
                out[j1 + k] = DIFFERS if mark == KNOWN else mark
    return out


def copy_marks(copy, load, upto: int):
    """(texts, marks) per line 1..upto of *copy*: a pending (undelivered) or unknown
    line is a GAP, a hidden one its hidden mark, the rest KNOWN."""
    texts, known = copy.texts(load, upto)
    marks: list = [GAP] * (upto + 1)
    for a, b, _sha, hidden in copy.runs:
        for n in range(a, min(b, upto) + 1):
            if texts[n] is not None:
                marks[n] = KNOWN if known[n] else hidden_mark(hidden)
    for _intent, a, b in copy.pending:
        for n in range(max(a, 1), min(b, upto) + 1):
            marks[n] = GAP
    return texts, marks


def ends_with_newline(copy, load) -> bool:
    """Does the version the copy's last line came from end with a newline there?"""
    extent = copy.extent()
    if not copy.runs or copy.runs[-1][1] != extent:
        return True
    sha = copy.runs[-1][2]
    lines = load(sha)
    if lines is not None and len(lines) > extent:
        return True
    raw = load.raw(sha) if hasattr(load, "raw") else None
    return raw is None or raw.endswith(b"\n")


def _as_text(copy, load, final_newline: bool, hidden_text: bool):
    """The copy as the text an edit is replayed on: (texts, lines, marks, tail), where
    *texts* are `copy_marks`' (index 1..), *lines* and *marks* one per piece of the text
    (0-based): a line the copy does not hold is a placeholder that no `old_string` can
    match (a hidden line too, unless *hidden_text*), then the unseen end of a file seen
    only in ranges (*tail*), or the empty piece after a final newline."""
    extent = copy.extent()
    texts, marks = copy_marks(copy, load, extent)
    readable = (lambda m: m != GAP) if hidden_text else (lambda m: m == KNOWN)
    lines = [texts[n] if readable(marks[n]) else _gap_line(n) for n in range(1, extent + 1)]
    marks = marks[1:]
    tail = copy.length is None or copy.length < extent  # the end of the file was never shown whole
    if tail:
        lines.append(_TAIL)
        marks.append(GAP)
    elif final_newline or not lines:
        lines.append("")
        marks.append(KNOWN)
    return texts, lines, marks, tail


def carry_edit(copy, load, edits, disk_lines, final_newline: bool = True):
    """The agent's copy through its own *edits*: per line of the file now (index 0
    unused) KNOWN, a hidden mark or GAP, plus the occurrences that replaced lines it
    did not hold ((old_first, old_last, symbols, new_first, new_last)). None when the
    edits do not apply to the copy, or the result differs from *disk_lines* on any
    line the copy says something about: then the copy cannot be carried."""
    _texts, lines, marks, tail = _as_text(copy, load, final_newline, hidden_text=True)
    blind: list = []
    out = replay("\n".join(lines), marks, edits, _blind_collector(blind))
    if out is None:
        return None
    text, marks = out
    result = text.split("\n")
    if tail:
        if result[-1] != _TAIL:
            return None  # the edit reached into the part never shown
        result, marks = result[:-1], marks[:-1]
        if len(result) > len(disk_lines):
            return None
    else:
        if text == "" or text.endswith("\n"):
            result, marks = result[:-1], marks[:-1]
        if len(result) != len(disk_lines):
            return None
    cells: list = [None] + [GAP] * len(disk_lines)
    for i, line in enumerate(result):
        mark = marks[i]
        if mark == GAP or "\0" in line:
            continue
        if line != disk_lines[i]:
            return None
        cells[i + 1] = mark
    return cells, blind


def _blind_collector(blind: list):
    """A `replay` *touched* callback appending each occurrence that replaced a line the
    agent does not hold (hidden or never shown): (old_first, old_last, hidden symbols,
    new_first, new_last)."""
    def touched(first, last, old_marks, new_first, new_last):
        if any(m[0] >= 2 for m in old_marks):
            names = []
            for m in old_marks:
                if m[0] == 2 and m[1] and m[1] not in names:
                    names.append(m[1])
            blind.append((first, last, names, new_first, new_last))

    return touched


def blind_touches(tool: str, tool_input: dict, text: str, marks) -> list:
    """Where an edit of *text* (whose lines carry *marks*, as for `guard_verdict`) replaces
    lines the agent does not hold, in `carry_edit`'s form; [] when none, or when the
    native tool would refuse the edit."""
    edits = edits_of(tool, tool_input)
    blind: list = []
    if not edits or replay(text, marks, edits, _blind_collector(blind)) is None:
        return []
    return blind


def copy_from_cells(cells, sha: str, length):
    """An AgentCopy of version *sha* from per-line marks (GAP: no run)."""
    from ..reads.agentcopy import AgentCopy

    marks = [None if mark is None or mark == GAP else (sha, None if mark[0] < 2 else mark[1]) for mark in cells]
    return AgentCopy.from_cells(length, marks)


# --------------------------------------------------------------------------- the stale-edit guard

def guard_verdict(tool: str, tool_input: dict, text: str, marks) -> tuple | None:
    """The stale-read guard's decision on the lines the edit touches: None (allow),
    ("unseen", first, last, symbols) or ("changed", first, last). *marks*: per line
    of the file now (`text.split("\\n")`), KNOWN, DIFFERS, hidden or GAP."""
    def problem(line_marks, first):
        bad = [first + i for i, m in enumerate(line_marks) if m[0] >= 2]
        if bad:
            names = []
            for m in line_marks:
                if m[0] == 2 and m[1] and m[1] not in names:
                    names.append(m[1])
            run_end = bad[0]
            while run_end + 1 in bad:
                run_end += 1
            return ("unseen", bad[0], run_end, names)
        changed = [first + i for i, m in enumerate(line_marks) if m == DIFFERS]
        if changed:
            return ("changed", changed[0], changed[-1])
        return None

    if tool == "Write":
        return problem(marks[:len(marks) - 1] if text.endswith("\n") else marks, 1)
    edits = edits_of(tool, tool_input)
    if not edits:
        return None
    found: list = []

    def touched(first, last, old_marks, _new_first, _new_last):
        verdict = problem(old_marks, first)
        if verdict is not None:
            found.append(verdict)

    if replay(text, marks, edits, touched) is None:
        return None  # the native tool refuses it on its own
    return found[0] if found else None


def qualnames(symbols) -> list[str]:
    out = []
    for sid in symbols:
        name = sid.split(":", 2)[-1]
        if name and name not in out:
            out.append(name)
    return out


# --------------------------------------------------------------------------- an edit as an answer

def edit_effect(answer_id: str, sha: str, copy, load, edits, disk: list[str], final_newline: bool, seq: int,
                together: bool = False):
    """The model's own edit as an answer's effect (`reads/answers.py`), for hosts whose
    context is the fold of the answers it still holds. *copy*: that fold before the
    edit; *disk*: the file after it (version *sha*).

    The model's belief after its edit is positional: its lines shifted by its own edit
    only (it is not told that someone else moved them). So a line the edit left alone
    is a `move` of the model's line to where the edit put it: the fold carries it
    while the answer that gave it is present -- as the model holds it where the edit
    did not move it (an outside change there is the next answer's business), and
    where it moved, only if it is the file's text at its new place (a copy's line
    names its version's line at the same number; otherwise unknown). A line the edit wrote whole is
    `show`n where it equals the file there; a line it wrote in part, or that the edit
    could not be replayed on (an `old_string` the copy does not hold once), is
    unknown; so is the whole file, unless the edit replaced only text the model does
    not hold (inside a body it was told is elided, or never shown: a copy held whole
    that lacks the text is stale, and the file then goes) and moved no line: then its
    lines stay, and every line now holding what it wrote is unknown (`_blind_lines`; it
    never saw their numbers). A re-read after a one-line fix inside an elided body was
    the whole file (Qwen Code's scenario, 0.43x of its own reads). Lines the model was
    told are elided are moves too: the fold keeps each hidden line with the version it
    was hidden from (the text behind the marker the model holds), not the file's text at
    its new number.
    *together*: the edits are matched all at once (pi's `edit`; see `replay`)."""
    from ..reads.answers import GAP as FORGET, MOVE, SHOW, Effect

    extent = copy.extent()
    texts, lines, marks, tail = _as_text(copy, load, final_newline, hidden_text=False)
    # a held or hidden line carries where it came from (rank 1 or 2, as `replay` ranks them)
    origin: list = [(1 if mark == KNOWN else 2, i + 1) if i < extent and (mark == KNOWN or mark[0] == 2) else mark
                    for i, mark in enumerate(marks)]
    out = replay("\n".join(lines), origin, edits, together=together) if edits else None
    top = max(extent, len(disk), 1)
    if out is None:
        unheld = tail or any(mark[0] != 1 for mark in origin[:extent])  # hidden or never shown
        written = _blind_lines(lines, edits, disk) if edits and unheld else None
        if written is None:
            return Effect(answer_id, None, None, ((1, top, FORGET, None),), seq)
        # an edit of lines the model never held, that moved none: every line it holds
        # stays where it was, and where the edit wrote is unknown (it never saw the numbers)
        kept = [(FORGET, None) if n in written or origin[n - 1] == GAP else (MOVE, n) for n in range(1, extent + 1)]
        return Effect(answer_id, sha, None if tail else extent, _runs_of(kept, top), seq)
    after, after_origin = out[0].split("\n"), out[1]
    if tail:
        if after[-1] != _TAIL:
            return Effect(answer_id, None, None, ((1, top, FORGET, None),), seq)  # it reached the unseen end
        after, after_origin = after[:-1], after_origin[:-1]
    elif out[0] == "" or out[0].endswith("\n"):
        after, after_origin = after[:-1], after_origin[:-1]
    per_line: list[tuple] = []
    for j, (text, mark) in enumerate(zip(after, after_origin), start=1):
        if mark == KNOWN:  # written whole by the edit
            per_line.append((SHOW, None) if j <= len(disk) and disk[j - 1] == text else (FORGET, None))
        elif mark[0] == 1 and text == texts[mark[1]] or mark[0] == 2 and text == lines[mark[1] - 1]:
            per_line.append((MOVE, mark[1]))  # the model's line or marker, only moved by its edit
        else:  # written in part, or never held
            per_line.append((FORGET, None))
    return Effect(answer_id, sha, None if tail else len(per_line), _runs_of(per_line, top), seq)


def _runs_of(per_line: list[tuple], top: int) -> list[tuple]:
    """An effect's ops from one (kind, arg) per line 1..: equal neighbours joined (a
    move while it moves by the same amount); lines past them up to *top* unknown."""
    from ..reads.answers import GAP as FORGET, MOVE, SHOW

    ops: list[tuple] = []
    for n, (kind, arg) in enumerate(per_line, start=1):
        last = ops[-1] if ops else None
        if last is not None and last[2] == kind and (kind in (SHOW, FORGET)
                                                     or kind == MOVE and last[3] + (n - last[0]) == arg):
            ops[-1] = (last[0], n, kind, last[3])
        else:
            ops.append((n, n, kind, arg))
    if top > len(per_line):
        ops.append((len(per_line) + 1, top, FORGET, None))
    return ops


def _blind_lines(lines: list[str], edits, disk: list[str]) -> set[int] | None:
    """The lines an edit may have written, when it replaced only text the model does not
    hold (none of its `old_string`s is in *lines*, the copy's held text) and moved no
    line (each replaces as many line breaks as it writes): every line of the file that
    now holds a `new_string`. None when that is not so, or a `new_string` is not in the
    file (a later edit of the same call rewrote it, or nothing can be placed): the
    model's lines may have moved where it cannot tell."""
    held = "\n".join(lines)
    text = "\n".join(disk) + "\n"
    starts = [0]
    for line in disk:
        starts.append(starts[-1] + len(line) + 1)
    from bisect import bisect_right

    written: set[int] = set()
    for old, new, _replace_all in edits:
        if not isinstance(old, str) or not isinstance(new, str) or not old or not new \
                or old in held or old.count("\n") != new.count("\n"):
            return None
        found, at = False, text.find(new)
        while at >= 0:
            found = True
            first, last = bisect_right(starts, at), bisect_right(starts, at + len(new) - 1)
            written.update(range(first, last + 1))
            at = text.find(new, at + 1)
        if not found:
            return None
    return written
