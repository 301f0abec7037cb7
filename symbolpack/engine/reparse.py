"""Incremental reparse: the syntax tree of a file's next version from its last one.

Why: a resident engine (the MCP server) re-reads the same big files as an agent
edits them. Parsing a 9,000-line file from scratch costs ~28 ms; tree-sitter can
instead take the previous tree, told where the bytes changed, and reparse only
around the edits: ~12 ms for 40 scattered edits, of which ~8 ms is aligning the
lines to find them and ~4 ms the parse. A CLI process cannot: trees do not
outlive it.

The edits come from the line alignment of the two versions (`linediff`), one
edit per changed run of lines. An edit may cover more than what changed — that
only costs reparse time; it must never cover less, and it cannot, because every
byte outside an `equal` run is inside an edit.

What it gives: for a tree without syntax errors, the same tree a fresh parse
gives (tree-sitter's guarantee; `tests/engine/test_reparse.py` checks it on random
edits). Where the file has syntax errors, error recovery may place them
differently than a fresh parse would; symbols in such a region can then differ
from what a CLI process finds. That never touches the agent's copy — answers
are built from the file's lines, symbols only decide what is elided and what a
change is named — and an ETag from a different span only makes a pack show a
symbol again. Pure: no I/O.
"""

from __future__ import annotations

from bisect import bisect_right

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_sitter import Parser, Tree


def line_edits(old: bytes, new: bytes) -> list[tuple[int, int, int, tuple[int, int], tuple[int, int], tuple[int, int]]]:
    """(start_byte, old_end_byte, new_end_byte, start_point, old_end_point,
    new_end_point) for each changed run of lines, last first: applied in that
    order, each edit's start is still where the old text has it."""
    from ..base.linediff import opcodes
    from .symbols import line_starts

    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    old_at, new_at = line_starts(old_lines), line_starts(new_lines)
    edits = []
    for tag, i1, i2, j1, j2 in reversed(opcodes(old_lines, new_lines)):
        if tag == "equal":
            continue
        # a run of lines is its bytes through its last newline; the last line has no
        # newline of its own, so a run reaching the end starts one byte earlier (the
        # newline before it, the same on both sides) and ends at the end
        start, old_end, new_start, new_end = old_at[i1], old_at[i2], new_at[j1], new_at[j2]
        if i2 == len(old_lines):  # then j2 == len(new_lines): the last opcode ends both
            old_end, new_end = len(old), len(new)
            if i1 and j1:
                start, new_start = start - 1, new_start - 1
        start_point = _point(old_at, start)
        new_from, new_to = _point(new_at, new_start), _point(new_at, new_end)
        rows = new_to[0] - new_from[0]
        new_end_point = (start_point[0] + rows, new_to[1] if rows else start_point[1] + new_to[1] - new_from[1])
        edits.append((start, old_end, start + new_end - new_start, start_point, _point(old_at, old_end), new_end_point))
    return edits


def reparse(parser: Parser, old: bytes, old_tree: Tree, new: bytes) -> Tree:
    """The tree of *new*, reparsed from *old_tree* (the tree of *old*, left as it
    was: the edits go to a copy)."""
    if old == new:
        return old_tree
    tree: Any = old_tree.copy()
    for start, old_end, new_end, start_point, old_end_point, new_end_point in line_edits(old, new):
        tree.edit(start_byte=start, old_end_byte=old_end, new_end_byte=new_end,
                  start_point=start_point, old_end_point=old_end_point, new_end_point=new_end_point)
    return parser.parse(new, tree)


def _point(starts: list[int], byte: int) -> tuple[int, int]:
    """(row, column) of *byte*."""
    row = bisect_right(starts, byte, 0, len(starts) - 1) - 1
    return row, byte - starts[row]
