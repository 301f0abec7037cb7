"""Incremental reparse (`reparse.py`): a tree reparsed from the previous version's
tree, told where the lines changed, is the tree a fresh parse gives. Checked on
random line edits of every language's fixture, node by node (type, bytes, points)."""

from __future__ import annotations

import importlib
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symbolpack.engine.languages import parser
from symbolpack.engine.reparse import line_edits, reparse
from symbolpack.engine.symbols import extract

from languages.test_all_languages import FIXTURES


def _fixture(lang: str) -> str:
    return textwrap.dedent(importlib.import_module(f"languages.test_{lang}").SOURCE).lstrip("\n")


def _nodes(node) -> tuple:
    return (node.type, node.start_byte, node.end_byte, tuple(node.start_point), tuple(node.end_point),
            tuple(_nodes(child) for child in node.children))


def _edited(lines: list[str], edits: list[tuple[int, int, int]]) -> list[str]:
    """Apply (kind, at, other) line edits: delete, duplicate another line here, append
    a token, swap with another line."""
    out = list(lines)
    for kind, at, other in edits:
        if not out:
            out = ["x = 1"]
        at, other = at % len(out), other % len(out)
        if kind == 0:
            del out[at]
        elif kind == 1:
            out.insert(at, out[other])
        elif kind == 2:
            out[at] += " x"
        else:
            out[at], out[other] = out[other], out[at]
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lang=st.sampled_from(FIXTURES),
       edits=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10_000), st.integers(0, 10_000)),
                      min_size=1, max_size=4),
       trailing_newline=st.booleans())
def test_a_reparsed_tree_is_the_fresh_parse_of_the_new_text(lang, edits, trailing_newline):
    old_text = _fixture(lang)
    new_text = "\n".join(_edited(old_text.rstrip("\n").split("\n"), edits)) + ("\n" if trailing_newline else "")
    old, new = old_text.encode(), new_text.encode()
    p = parser(lang)
    fresh = p.parse(new)
    reparsed = reparse(p, old, p.parse(old), new)
    if fresh.root_node.has_error:
        return  # error recovery may place errors differently: not promised (reparse.py)
    assert _nodes(reparsed.root_node) == _nodes(fresh.root_node)
    assert extract(new, lang, references=False, tree=reparsed) == extract(new, lang, references=False)


def _point(text: bytes, byte: int) -> tuple[int, int]:
    before = text[:byte]
    return before.count(b"\n"), len(before) - (before.rfind(b"\n") + 1)


_LINES = st.lists(st.sampled_from(["a", "bb", "", "a b", "}"]), max_size=8)


@settings(max_examples=400, deadline=None)
@given(old_lines=_LINES, new_lines=_LINES, old_newline=st.booleans(), new_newline=st.booleans())
def test_the_edits_turn_the_old_text_into_the_new_one_at_the_points_they_name(old_lines, new_lines, old_newline,
                                                                              new_newline):
    """Applied in the order given (last first), each edit replaces exactly its bytes of
    the text as it is by then with the new text's; what no edit covers is already
    equal. Every point is the (row, column) of its byte in that text."""
    old = ("\n".join(old_lines) + ("\n" if old_newline and old_lines else "")).encode()
    new = ("\n".join(new_lines) + ("\n" if new_newline and new_lines else "")).encode()
    edits = line_edits(old, new)
    text = old
    for k, (start, old_end, new_end, start_point, old_end_point, new_end_point) in enumerate(edits):
        shift = sum(ne - oe for _, oe, ne, *_ in edits[k + 1:])  # the edits before it, not applied yet
        assert 0 <= start <= old_end <= len(text) and start <= new_end
        assert start_point == _point(text, start) and old_end_point == _point(text, old_end)
        text = text[:start] + new[start + shift:new_end + shift] + text[old_end:]
        assert new_end_point == _point(text, new_end)
    assert text == new


@pytest.mark.parametrize("old, new", [
    ("a = 1", "a = 1\nb = 2"),  # lines added after a last line without a newline
    ("a = 1\n", "a = 1\nb = 2\n"),
    ("a = 1\nb = 2", "a = 1"),  # the last line removed
    ("a = 1\nb = 2\n", "a = 1\n"),
    ("a = 1\n", "a = 1"),  # only the final newline removed
    ("a = 1", "a = 1\n"),
    ("", "a = 1\n"),
    ("a = 1\n", ""),
    ("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 22\nc = 3\n"),
    ("a = 1\nb = 2\nc = 3\n", "z = 0\na = 1\nc = 3\nd = 4"),
])
def test_edits_at_the_ends_of_the_text(old, new):
    p = parser("python")
    reparsed = reparse(p, old.encode(), p.parse(old.encode()), new.encode())
    assert _nodes(reparsed.root_node) == _nodes(p.parse(new.encode()).root_node)


def test_an_edit_covers_every_changed_byte_and_the_old_tree_is_left_as_it_was():
    old = b"def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    new = b"def f():\n    return 10\n\n\ndef g():\n    return 2\n"
    ((start, old_end, new_end, start_point, old_end_point, new_end_point),) = line_edits(old, new)
    assert old[:start] == new[:start] and old[old_end:] == new[new_end:]
    assert (start_point, old_end_point, new_end_point) == ((1, 0), (2, 0), (2, 0))
    p = parser("python")
    before = p.parse(old)
    shape = _nodes(before.root_node)
    reparse(p, old, before, new)
    assert _nodes(before.root_node) == shape  # the kept tree is not edited in place
