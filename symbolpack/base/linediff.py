"""Line alignment in near-linear time: patience diff, with a bounded fallback.

Every rule that compares two versions of a file (a re-read's alignment of the
file with the agent's copy, the unified diff it may send, a change's opcodes
when git has none) needs the same thing: which lines of *old* stand unchanged
in *new*. `difflib.SequenceMatcher` answers that by repeatedly searching the
longest common block, which is quadratic in the number of repeated lines — a
9,000-line file after 40 scattered edits took seconds. Patience diff answers it
from the lines that occur exactly once on both sides (their longest increasing
run is the skeleton of the alignment), then recurses into the gaps between
those anchors, where lines that were repeated file-wide are often unique.
A gap with no such line is aligned by difflib when it is small, and otherwise
by pairing the occurrences of its rarest shared line in order; both keep the
total work near-linear in the file's length.

A `None` element is a line whose text is unknown (a gap in the agent's copy):
it matches nothing, not even another `None`. Pure: no I/O, standard library
only, so the read path can import it on every call.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Iterator, Sequence

# A gap whose two sides multiply to at most this many pairs is left to difflib,
# whose longest-block search gives the closest alignment on short runs of
# repeated lines (closing braces, blank lines); beyond it difflib is quadratic.
_DIFFLIB_PAIRS = 40_000

Block = tuple[int, int, int]  # (i, j, n): old[i:i+n] == new[j:j+n]
Opcode = tuple[str, int, int, int, int]  # difflib's (tag, i1, i2, j1, j2)


def matching_blocks(old: Sequence[Hashable | None], new: Sequence[Hashable | None]) -> list[Block]:
    """Maximal runs of equal lines, in order, ending with the sentinel
    ``(len(old), len(new), 0)`` — the shape of difflib's `get_matching_blocks`."""
    a, b = _intern(old, new)
    pairs: list[tuple[int, int]] = []
    _align(a, b, pairs)
    pairs.sort()
    blocks: list[Block] = []
    for i, j in pairs:
        if blocks:
            bi, bj, n = blocks[-1]
            if bi + n == i and bj + n == j:
                blocks[-1] = (bi, bj, n + 1)
                continue
        blocks.append((i, j, 1))
    blocks.append((len(a), len(b), 0))
    return blocks


def opcodes(old: Sequence[Hashable | None], new: Sequence[Hashable | None],
            blocks: Sequence[Block] | None = None) -> list[Opcode]:
    """How to turn *old* into *new*: difflib-style opcodes (equal, replace, delete,
    insert), from *blocks* when the caller already has them."""
    if blocks is None:
        blocks = matching_blocks(old, new)
    out: list[Opcode] = []
    i = j = 0
    for bi, bj, n in blocks:
        if i < bi and j < bj:
            out.append(("replace", i, bi, j, bj))
        elif i < bi:
            out.append(("delete", i, bi, j, bj))
        elif j < bj:
            out.append(("insert", i, bi, j, bj))
        i, j = bi + n, bj + n
        if n:
            out.append(("equal", bi, i, bj, j))
    return _slid_to_blank_ends(out, old, new)


def is_blank(line: Hashable | None) -> bool:
    """A line of text with nothing but whitespace (an unknown line, None, is not)."""
    return isinstance(line, str) and not line.strip()


def _slid_to_blank_ends(ops: list[Opcode], old: Sequence[Hashable | None], new: Sequence[Hashable | None]
                        ) -> list[Opcode]:
    """Each pure insertion or deletion between two equal runs moved, where the lines
    around it allow (the same text either way), to end on a blank line: git's slider
    rule. A method added above a twin with the same doc comment is otherwise aligned
    as "doc, new method, blank, doc": the twin's doc reads as new, and a re-read names
    the untouched twin as changed (a real agent then read it again to see why). Where
    no position ends on a blank line, one that starts on a blank line is taken: a
    function added after the last one (`};`, blank, new function, `};`) otherwise
    takes the last one's closing line, which reads as changed. At the end of the file
    the run after it may give all its lines."""
    out = list(ops)
    dropped: set[int] = set()
    for k in range(1, len(out) - 1):
        tag, i1, i2, j1, j2 = out[k]
        before, after = out[k - 1], out[k + 1]
        if tag not in ("insert", "delete") or before[0] != "equal" or after[0] != "equal":
            continue
        seq, lo, hi = (new, j1, j2) if tag == "insert" else (old, i1, i2)
        if is_blank(seq[hi - 1]):
            continue
        up = 0  # the equal run before keeps at least one line
        while up < before[2] - before[1] - 1 and seq[lo - 1 - up] is not None and seq[lo - 1 - up] == seq[hi - 1 - up]:
            up += 1
        down = 0  # so does the one after, unless it ends the file
        room = after[2] - after[1] - (0 if k + 1 == len(out) - 1 else 1)
        while down < room and hi + down < len(seq) and seq[lo + down] is not None and seq[lo + down] == seq[hi + down]:
            down += 1
        shift = next((s for s in range(down, -up - 1, -1) if is_blank(seq[hi - 1 + s])), None)
        if shift is None and not is_blank(seq[lo]):
            shift = next((s for s in range(-up, down + 1) if is_blank(seq[lo + s])), None)
        if not shift:
            continue
        _, bi1, bi2, bj1, bj2 = before
        _, ai1, ai2, aj1, aj2 = after
        out[k - 1] = ("equal", bi1, bi2 + shift, bj1, bj2 + shift)
        out[k] = (tag, i1 + shift, i2 + shift, j1 + shift, j2 + shift)
        out[k + 1] = ("equal", ai1 + shift, ai2, aj1 + shift, aj2)
        if ai1 + shift == ai2:
            dropped.add(k + 1)
    return [op for k, op in enumerate(out) if k not in dropped]


def grouped_opcodes(ops: Sequence[Opcode], context: int = 3) -> Iterator[list[Opcode]]:
    """Hunks: the changes with up to *context* equal lines around each, a hunk
    split where more than twice *context* equal lines separate two changes."""
    ops = list(ops) or [("equal", 0, 1, 0, 1)]
    if ops[0][0] == "equal":
        _, i1, i2, j1, j2 = ops[0]
        ops[0] = ("equal", max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    if ops[-1][0] == "equal":
        _, i1, i2, j1, j2 = ops[-1]
        ops[-1] = ("equal", i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, i1 + context, j1, j1 + context))
            yield group
            group = []
            i1, j1 = i2 - context, j2 - context
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


# --------------------------------------------------------------------------- internals

def _intern(old: Sequence, new: Sequence) -> tuple[list[int], list[int]]:
    """Lines as small ints (equal text, equal int); unknown lines get distinct
    negative ints so they match nothing."""
    ids: dict = {}
    unknown = 0

    def number(seq: Sequence) -> list[int]:
        nonlocal unknown
        out = []
        for x in seq:
            if x is None:
                unknown -= 1
                out.append(unknown)
            else:
                out.append(ids.setdefault(x, len(ids)))
        return out

    return number(old), number(new)


def _align(a: list[int], b: list[int], pairs: list[tuple[int, int]]) -> None:
    """Append every matched (old index, new index) pair to *pairs* (any order)."""
    stack = [(0, len(a), 0, len(b))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:  # common head
            pairs.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:  # common tail
            ahi, bhi = ahi - 1, bhi - 1
            pairs.append((ahi, bhi))
        if alo == ahi or blo == bhi:
            continue
        anchors = _unique_anchors(a, b, alo, ahi, blo, bhi)
        if not anchors:
            if (ahi - alo) * (bhi - blo) <= _DIFFLIB_PAIRS:
                _difflib_pairs(a, b, alo, ahi, blo, bhi, pairs)
                continue
            anchors = _rarest_anchors(a, b, alo, ahi, blo, bhi)
            if not anchors:
                continue  # nothing in common: all replaced
        pi, pj = alo, blo
        for i, j in anchors:
            pairs.append((i, j))
            if pi < i and pj < j:
                stack.append((pi, i, pj, j))
            pi, pj = i + 1, j + 1
        if pi < ahi and pj < bhi:
            stack.append((pi, ahi, pj, bhi))


def _unique_anchors(a, b, alo, ahi, blo, bhi) -> list[tuple[int, int]]:
    """Lines occurring once in each range, as (i, j) pairs forming the longest
    run increasing on both sides (patience sorting)."""
    seen_a: dict[int, int] = {}  # line -> index, or -1 when repeated
    for i in range(alo, ahi):
        x = a[i]
        if x >= 0:
            seen_a[x] = -1 if x in seen_a else i
    seen_b: dict[int, int] = {}
    for j in range(blo, bhi):
        x = b[j]
        if seen_a.get(x, -1) >= 0:
            seen_b[x] = -1 if x in seen_b else j
    candidates = [(seen_a[x], j) for x, j in seen_b.items() if j >= 0]
    if not candidates:
        return []
    candidates.sort(key=lambda p: p[1])
    return _longest_increasing(candidates)


def _rarest_anchors(a, b, alo, ahi, blo, bhi) -> list[tuple[int, int]]:
    """The occurrences of the shared line that is rarest on both sides, paired in
    order (k-th in old with k-th in new): a monotone, never empty set of anchors."""
    count_a: dict[int, int] = {}
    for i in range(alo, ahi):
        count_a[a[i]] = count_a.get(a[i], 0) + 1
    count_b: dict[int, int] = {}
    for j in range(blo, bhi):
        if b[j] in count_a:
            count_b[b[j]] = count_b.get(b[j], 0) + 1
    if not count_b:
        return []
    line = min(count_b, key=lambda x: (max(count_a[x], count_b[x]), x))
    return list(zip((i for i in range(alo, ahi) if a[i] == line), (j for j in range(blo, bhi) if b[j] == line)))


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of *pairs* (sorted by j) whose i increase too."""
    tails: list[int] = []  # tails[k]: smallest i ending an increasing run of length k+1
    tail_at: list[int] = []  # index into pairs of that run's last element
    back: list[int] = [-1] * len(pairs)
    for n, (i, _) in enumerate(pairs):
        k = bisect_left(tails, i)
        if k == len(tails):
            tails.append(i)
            tail_at.append(n)
        else:
            tails[k] = i
            tail_at[k] = n
        back[n] = tail_at[k - 1] if k else -1
    out = []
    n = tail_at[-1]
    while n >= 0:
        out.append(pairs[n])
        n = back[n]
    out.reverse()
    return out


def _difflib_pairs(a, b, alo, ahi, blo, bhi, pairs) -> None:
    import difflib

    matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
    for i, j, n in matcher.get_matching_blocks():
        pairs.extend((alo + i + k, blo + j + k) for k in range(n))
