"""Answers as effects on the agent's copy, and the copy as the fold of the answers a
host proves are in the model's context. Pure.

A conversation does not only grow: a host rewinds it, forks it, compacts it or
clears old tool results, and the model then holds only what the answers still in
its context gave it. So besides the copy kept in conversation order
(`agentcopy.AgentCopy`, the default), every answer that changes a copy is kept as
an *effect*: what it did to each line of its scope, in terms that do not depend on
what came before it:

* `show`  the line is in the answer's text, verbatim, at version `sha`;
* `hide`  the answer says the line is elided (a body the model does not have);
* `keep`  the answer says the line is what the model held at line `from` (an
          `[UNCHANGED]` marker or stub, an `unchanged` segment, the lines a
          unified diff leaves out, shifted by its hunks);
* `gap`   the line is no longer known (a refresh);
* `move`  the line is what the model held at line `from`, whatever that was (the
          model's own edit moved it: a belief, not a claim about the file).

`fold(effects, load)` replays an ordered set of effects from nothing. A `keep`
carries the earlier belief only where the model held a line there and its text
is the text the answer vouched for (a line it holds elided stays elided, at the
answer's version: the answer named any change behind the marker); anywhere else
(the answer it leaned on is not in the context, or said something else) the line
is unknown. So an answer whose
base is absent counts for nothing beyond what its own text shows, and a copy
built this way never holds a line the context does not prove. Each line keeps
the id of the answer that last set it (`Folded.source`), which is what a new
answer `leans_on`.

Refreshes (`always=True`) forget lines whatever is in the context; they apply at
their place in time (`seq`) among the answers folded.

The model's own edit (`base` set) is a change to the copy it held when it edited:
its `move`s and length are that copy's, shifted by the edit. It counts only where
that copy is what the fold has built when it comes: where an answer of its `base`
is absent from the fold, the model's belief is its edit applied to something else,
which the effect does not describe, and the whole file is unknown from there on.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from .agentcopy import AgentCopy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Container, Iterable, Mapping, Sequence

SHOW, HIDE, KEEP, GAP, MOVE = "show", "hide", "keep", "gap", "move"
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")


class Effect:
    """One answer's effect on one file's copy. `ops`: (start, end, kind, arg) runs,
    sorted and disjoint (arg: the symbol of a `hide`, the first line a `keep`
    carries from); lines of no op keep what they were. `length`: the file's length
    for an answer about the whole file (lines past it are dropped), else None.
    `seq` orders answers in time; `always`: applies whether or not it is present.
    `digest`: what the host stores as this answer's content, where it can be checked
    (a host proves an answer present only if its record still says that)."""

    __slots__ = ("id", "sha", "length", "ops", "seq", "always", "digest", "base")

    def __init__(self, id: str, sha: str | None, length: int | None, ops: Sequence[tuple], seq: int = 0,
                 always: bool = False, digest: str | None = None, base: Sequence[str] | None = None) -> None:
        self.id = id
        self.sha = sha
        self.length = length
        self.ops = tuple(tuple(op) for op in ops)
        self.seq = seq
        self.always = always
        self.digest = digest
        self.base = None if base is None else tuple(base)  # an own edit: the answers it was made on

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Effect) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"Effect({self.to_json()!r})"

    def keeps(self) -> list[tuple[int, int, int]]:
        """(start, end, from) of the lines this answer vouches for as already held."""
        return [(a, b, arg) for a, b, kind, arg in self.ops if kind == KEEP]

    def to_json(self) -> dict:
        out: dict = {"id": self.id, "sha": self.sha, "length": self.length, "ops": [list(op) for op in self.ops],
                     "seq": self.seq}
        if self.always:
            out["always"] = True
        if self.digest is not None:
            out["digest"] = self.digest
        if self.base is not None:
            out["base"] = list(self.base)
        return out

    @classmethod
    def from_json(cls, raw: object) -> Effect:
        """Decode and validate; ValueError when the stored value does not fit."""
        if not isinstance(raw, dict):
            raise ValueError("effect is not an object")
        ident, sha, length, ops, seq = (raw.get(k) for k in ("id", "sha", "length", "ops", "seq"))
        if not isinstance(ident, str) or not ident or (sha is not None and not isinstance(sha, str)):
            raise ValueError("bad effect id or version")
        if length is not None and not (type(length) is int and length >= 0):
            raise ValueError("bad effect length")
        if type(seq) is not int or not isinstance(ops, list):
            raise ValueError("bad effect seq or ops")
        last = 0
        checked = []
        for op in ops:
            if not (isinstance(op, list) and len(op) == 4 and type(op[0]) is int and type(op[1]) is int
                    and last < op[0] <= op[1] and op[2] in (SHOW, HIDE, KEEP, GAP, MOVE)):
                raise ValueError("bad effect op")
            if op[2] in (KEEP, MOVE) and not (type(op[3]) is int and op[3] >= 1):
                raise ValueError("bad keep op")
            if op[2] == HIDE and not isinstance(op[3], str):
                raise ValueError("bad hide op")
            if op[2] in (SHOW, HIDE) and sha is None:
                raise ValueError("a shown line needs a version")
            last = op[1]
            checked.append(tuple(op))
        digest = raw.get("digest")
        base = raw.get("base")
        if base is not None and not (isinstance(base, list) and all(isinstance(b, str) for b in base)):
            raise ValueError("bad effect base")
        return cls(ident, sha, length, checked, seq, raw.get("always") is True,
                   digest if isinstance(digest, str) else None, base)


class Folded:
    """A fold's result: the copy, per line the id of the answer that set it, and the
    text of every line the answers showed, wherever a later one took its number."""

    __slots__ = ("copy", "source", "shown", "lost")

    def __init__(self, copy: AgentCopy, source: Sequence[str | None], shown: AbstractSet[str] = frozenset(),
                 lost: Mapping[str, AbstractSet[tuple[str, int]]] | None = None) -> None:
        self.copy = copy
        self.source = source  # index 1..: answer id, or None for a gap
        self.shown = shown
        # of those, the text a later answer's other text took the line of, and where it
        # was: (the version it was shown from, its line there, which was its line in the copy)
        self.lost = lost or {}

    def leaned_on(self, effect: Effect) -> list[str]:
        """The answers whose lines *effect* vouches for (its `keep` runs), in first-use order."""
        seen: dict[str, None] = {}
        for a, b, start in effect.keeps():
            for n in range(start, start + b - a + 1):
                if n < len(self.source) and self.source[n] is not None:
                    seen.setdefault(self.source[n], None)  # type: ignore[arg-type]
        return list(seen)


# --------------------------------------------------------------------------- effects of responses

def effect_of(response: Mapping, answer_id: str, seq: int = 0) -> Effect | None:
    """The effect of a read response (PROTOCOL.md) on its file's copy; None for an
    answer that shows nothing of the file (passthrough, error)."""
    mode = response.get("mode")
    total, sha, scope = response.get("total_lines"), response.get("sha256"), response.get("scope")
    if mode not in ("full", "skeleton", "range", "delta", "unchanged", "diff") or type(total) is not int:
        return None
    start, end = (1, total) if scope is None else (scope["start"], scope["end"])
    # the file's length, for an answer that tells it: a bare `[UNCHANGED]` marker does
    # not (it vouches for the copy as the model holds it, its length included)
    length = total if scope is None and mode != "unchanged" else None
    if mode == "unchanged":
        ops: list[tuple] = [(start, end, KEEP, start)] if end >= start else []
    elif mode == "diff":
        ops = _diff_ops(str(response.get("text", "")), total)
    else:
        ops = []
        for seg in response.get("segments") or ():
            kind = seg["kind"]
            if kind == "shown":
                ops.append((seg["start"], seg["end"], SHOW, None))
            elif kind == "elided":
                ops.append((seg["start"], seg["end"], HIDE, seg.get("symbol") or ""))
            else:
                ops.append((seg["start"], seg["end"], KEEP, seg["from"]))
    return Effect(answer_id, sha, length, _merged(ops), seq)


def shown_effect(answer_id: str, sha: str, start: int, end: int, length: int | None, seq: int) -> Effect:
    """An answer that showed lines start..end of version *sha* verbatim (a host's own
    display of the file: a native read, a file it re-attached)."""
    return Effect(answer_id, sha, length, ((start, end, SHOW, None),) if end >= start else (), seq)


def pack_effect(answer_id: str, sha: str, shown: Iterable[tuple[int, int]], kept: Iterable[tuple[int, int]],
                seq: int) -> Effect:
    """A context pack's effect on one file: *shown* spans of version *sha* verbatim and
    numbered (code, windows); *kept* spans vouched for as the model holds them
    (`[UNCHANGED]` stubs) or shown without numbers (signatures): a `keep` where they
    stand, so only what the model holds with that text carries. Shown wins."""
    kinds: dict[int, str] = {}
    for a, b in kept:
        kinds.update((n, KEEP) for n in range(a, b + 1))
    for a, b in shown:
        kinds.update((n, SHOW) for n in range(a, b + 1))
    return Effect(answer_id, sha, None, _merged((n, n, kind, n if kind == KEEP else None)
                                                for n, kind in sorted(kinds.items())), seq)


def forget_effect(answer_id: str, start: int | None, end: int | None, seq: int) -> Effect:
    """A refresh: lines start..end (None: the whole file, stored as length 0) are
    unknown from then on."""
    if start is None or end is None:
        return Effect(answer_id, None, 0, (), seq, always=True)
    return Effect(answer_id, None, None, ((start, end, GAP, None),), seq, always=True)


def _diff_ops(text: str, total: int) -> list[tuple]:
    """A unified diff's effect: the new side of every hunk is shown; the lines between
    hunks are the copy's, shifted by the hunks before them."""
    ops: list[tuple] = []
    new_next = old_next = 1
    for line in text.split("\n"):
        m = _HUNK.match(line)
        if m is None:
            continue
        a, b = int(m.group(1)), int(m.group(2) or 1)
        c, d = int(m.group(3)), int(m.group(4) or 1)
        old_start = a if b else a + 1
        new_start = c if d else c + 1
        if new_start > new_next:
            ops.append((new_next, new_start - 1, KEEP, old_next))
        if d:
            ops.append((new_start, new_start + d - 1, SHOW, None))
        new_next, old_next = new_start + d, old_start + b
    if new_next <= total:
        ops.append((new_next, total, KEEP, old_next))
    return ops


def _merged(ops: Iterable[tuple]) -> list[tuple]:
    """Adjacent runs of one kind that continue each other become one."""
    out: list[list] = []
    for a, b, kind, arg in ops:
        if b < a:
            continue
        if out:
            pa, pb, pkind, parg = out[-1]
            if pkind == kind and pb + 1 == a and (parg == arg if kind != KEEP else parg + (pb - pa + 1) == arg):
                out[-1][1] = b
                continue
        out.append([a, b, kind, arg])
    return [tuple(op) for op in out]


# --------------------------------------------------------------------------- the fold

ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: a model copies ids back by hand
ID_LENGTH = 8  # ~39 bits, and never one already kept for the file (`taken`)


def new_answer_id(taken: Container[str] = ()) -> str:
    """An id for an answer whose host gave it none: short, because a model may have to
    pass it back (MCP's `known`), and not among *taken* (the ids already kept for the
    files it will be kept under), so a model's id names exactly one answer."""
    import secrets

    while True:
        ident = "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))
        if ident not in taken:
            return ident


def in_fold_order(present: Sequence[str] | AbstractSet[str], recorded: Sequence[Effect]) -> list[Effect]:
    """The recorded effects of the answers in *present* (in that order: the host's;
    a set has no order, so its answers fold in the order they were given, `seq`),
    with every `always` effect placed before the first present answer that came
    after it in time."""
    by_id = {e.id: e for e in recorded if not e.always}
    chosen = [by_id[i] for i in dict.fromkeys(present) if i in by_id]
    if isinstance(present, AbstractSet):
        chosen.sort(key=lambda e: e.seq)
    forgets = sorted((e for e in recorded if e.always), key=lambda e: e.seq)
    out: list[Effect] = []
    k = 0
    for effect in chosen:
        while k < len(forgets) and forgets[k].seq < effect.seq:
            out.append(forgets[k])
            k += 1
        out.append(effect)
    out.extend(forgets[k:])
    return out


def fold(effects: Iterable[Effect], load: Callable[[str], Sequence[str] | None]) -> Folded:
    """The copy the model holds after exactly *effects*, in order, from nothing."""
    cells: list = [None]  # index 1..: (sha, hidden) or None
    source: list = [None]
    length: int | None = None
    texts: dict[str, Sequence[str] | None] = {}

    def text(sha: str, n: int) -> str | None:
        if sha not in texts:
            texts[sha] = load(sha)
        version = texts[sha]
        return version[n - 1] if version is not None and 1 <= n <= len(version) else None

    folded: set[str] = set()
    aligned: dict = {}  # (older sha, newer sha) -> older line -> newer line, for `_forget_restated`
    shown: set[str] = set()
    lost: dict[str, set[tuple[str, int]]] = {}
    for effect in effects:
        if effect.always and effect.length == 0:  # the whole file forgotten
            cells, source, length = [None], [None], None
            continue
        if effect.base is not None and not folded.issuperset(effect.base):
            cells, source, length = [None], [None], None  # an own edit made on another copy than this one
            folded.add(effect.id)
            continue
        folded.add(effect.id)
        top = max(len(cells) - 1, effect.ops[-1][1] if effect.ops else 0)
        new_cells = cells + [None] * (top + 1 - len(cells))
        new_source = source + [None] * (top + 1 - len(source))
        for a, b, kind, arg in effect.ops:
            for n in range(a, b + 1):
                if kind == SHOW:
                    new_cells[n], new_source[n] = (effect.sha, None), effect.id
                    line = text(effect.sha, n) if effect.sha is not None else None
                    if line is not None:
                        shown.add(line)
                elif kind == HIDE:
                    new_cells[n], new_source[n] = (effect.sha, arg), effect.id
                elif kind == GAP:
                    new_cells[n], new_source[n] = None, None
                elif kind == MOVE and arg + (n - a) == n:  # the model's line, where it was: as it held it
                    new_cells[n], new_source[n] = (cells[n] if n < len(cells) else None), (
                        source[n] if n < len(source) else None)
                else:  # keep, or a move to another line: a cell names its version's line n, so the text must agree
                    m = arg + (n - a)
                    held = cells[m] if m < len(cells) else None
                    # (a marker the model holds, kept, stays one: what is behind it now is this
                    # answer's version, which named any change there)
                    if (held is not None and effect.sha is not None
                            and (kind == KEEP and held[1] is not None
                                 or held[0] == effect.sha and m == n or text(held[0], m) == text(effect.sha, n)
                                 and text(effect.sha, n) is not None)):
                        new_cells[n], new_source[n] = (effect.sha, held[1]), source[m]
                    else:
                        new_cells[n], new_source[n] = None, None
        if effect.length is not None:
            del new_cells[effect.length + 1:]
            del new_source[effect.length + 1:]
            length = effect.length
        elif effect.sha is not None and effect.base is None:
            _forget_restated(new_cells, new_source, effect, load, aligned)
        for n in range(1, len(cells)):  # shown text whose line now holds other text (or none)
            was = cells[n]
            if was is not None and was[1] is None and (n >= len(new_cells) or new_cells[n] != was):
                before = text(was[0], n)
                now = new_cells[n] if n < len(new_cells) else None
                if before is not None and (now is None or now[1] is not None or text(now[0], n) != before):
                    lost.setdefault(before, set()).add((was[0], n))
        cells, source = new_cells, new_source
    if not any(cells):  # nothing held: what a first read finds (a skeleton where one applies)
        return Folded(AgentCopy(), [None])
    return Folded(AgentCopy.from_cells(length, cells), source, shown, lost)


def _forget_restated(cells: list, source: list, effect: Effect, load, aligned: dict) -> None:
    """A part answer (a symbol, a range) of a newer version shows text the copy also
    holds, from an older answer, at the older version's numbers: forget those older
    lines. Per line number both are what the model was given, but a copy that holds a
    function twice, once where a skeleton showed it and once where a symbol read gives
    it now, made deltas call the function's lines removed and hide part of its
    docstring behind the skeleton's marker; real agents doubted such deltas and read
    the code again (click, viper, axios). Forgetting is always sound: those lines are
    shown again if an answer needs them. The older lines restated are those the
    alignment of the two versions maps into the answer's lines, and the lines between
    them (the part of the older version that became this text)."""
    spans = [(a, b) for a, b, kind, _ in effect.ops if kind in (SHOW, HIDE)]
    if not spans:
        return
    written = {n for a, b in spans for n in range(a, b + 1)}
    newer = effect.sha
    for older in {cell[0] for cell in cells[1:] if cell is not None and cell[0] != newer}:
        key = (older, newer)
        if key not in aligned:
            aligned[key] = _line_map(load(older), load(newer))
        moved = aligned[key]
        if moved is None:
            continue
        for a, b in spans:
            inside = [m for m, j in moved.items() if a <= j <= b and m != j]
            if not inside:
                continue
            for n in range(min(inside), min(max(inside), len(cells) - 1) + 1):
                cell = cells[n]
                if n not in written and cell is not None and cell[0] == older:
                    cells[n], source[n] = None, None


def _line_map(older: Sequence[str] | None, newer: Sequence[str] | None) -> dict[int, int] | None:
    """Each line of *older* (1-based) that stands unchanged in *newer*, to its line there."""
    if older is None or newer is None:
        return None
    from ..base.linediff import matching_blocks

    return {i + k + 1: j + k + 1 for i, j, n in matching_blocks(older, newer) for k in range(n)}
