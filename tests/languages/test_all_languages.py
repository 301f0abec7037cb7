"""Properties every language query must have, checked on every fixture."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

import pytest

from symbolpack.languages import supported_languages
from symbolpack.symbols import extract

FIXTURES = sorted(p.stem[len("test_"):] for p in Path(__file__).parent.glob("test_*.py")
                  if p.stem != "test_all_languages")


def test_every_supported_language_has_a_fixture_test():
    assert set(supported_languages()) == set(FIXTURES)
    assert len(FIXTURES) >= 25


@pytest.mark.parametrize("lang", FIXTURES)
def test_definitions_do_not_depend_on_reference_patterns(lang):
    """Reads disable the @reference patterns; the symbols must come out the same."""
    source = textwrap.dedent(importlib.import_module(f".test_{lang}", __package__).SOURCE).lstrip("\n").encode()
    with_refs, refs = extract(source, lang, references=True)
    without, none = extract(source, lang, references=False)
    assert with_refs == without and none == []
    assert refs, f"{lang}: the fixture should exercise at least one reference"


@pytest.mark.parametrize("lang", FIXTURES)
def test_spans_nest_and_bodies_lie_inside_their_symbols(lang):
    source = textwrap.dedent(importlib.import_module(f".test_{lang}", __package__).SOURCE).lstrip("\n").encode()
    records, _ = extract(source, lang)
    by_id = {r.local_id: r for r in records}
    total = source.count(b"\n") + 1
    for r in records:
        assert 1 <= r.lines[0] <= r.lines[1] <= total, r
        if r.body:
            assert r.lines[0] <= r.body[0] <= r.body[1] <= r.lines[1], r
        if r.parent:
            parent = by_id[r.parent]
            assert parent.lines[0] <= r.lines[0] and r.lines[1] <= parent.lines[1], (r, parent)


@pytest.mark.parametrize("lang", FIXTURES)
def test_directly_loaded_grammars_are_the_packs_own(lang):
    """languages.py loads grammar binaries without importing the pack's package; the
    Language must be the one the pack's get_language gives."""
    from tree_sitter_language_pack import get_language

    from symbolpack.languages import tree_sitter_language

    ours, theirs = tree_sitter_language(lang), get_language(lang)
    assert (ours.name, ours.abi_version, ours.node_kind_count) == (theirs.name, theirs.abi_version,
                                                                   theirs.node_kind_count)


@pytest.mark.parametrize("lang", FIXTURES)
def test_the_smallest_skeleton_keeps_every_signature_line(lang):
    """However small a skeleton gets, an agent can find every symbol by name."""
    from symbolpack.skeleton import _header_line, plan
    from symbolpack.symbols import bind

    text = textwrap.dedent(importlib.import_module(f".test_{lang}", __package__).SOURCE).lstrip("\n")
    records, _ = extract(text.encode(), lang, references=False)
    symbols = bind(f"fixture.{lang}", lang, records)
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    segments, _ = plan(lines, symbols, target_tokens=0)
    shown = {n for s in segments if s.kind == "shown" for n in range(s.start, s.end + 1)}
    missing = [s.qualname for s in symbols if _header_line(lines, s) not in shown]
    assert missing == []


@pytest.mark.parametrize("lang", FIXTURES)
def test_the_pattern_splitter_cuts_where_tree_sitter_numbers_patterns(lang):
    """Reads compile only the definition patterns, cut from the query text by
    `top_level_patterns`; its cuts must be tree-sitter's own (or a read would compile
    a different query than the index does)."""
    from tree_sitter import Query

    from symbolpack.languages import parser_and_query, query_source, top_level_patterns, tree_sitter_language

    source = query_source(lang)
    assert source is not None
    full = Query(tree_sitter_language(lang), source)
    raw = source.encode()
    theirs = [raw[full.start_byte_for_pattern(i):full.end_byte_for_pattern(i)].decode().strip()
              for i in range(full.pattern_count)]
    assert top_level_patterns(source) == theirs
    definitions = [p for p in theirs if "@reference." not in p]
    assert parser_and_query(lang, references=False)[1].pattern_count == len(definitions) < len(theirs)


def test_the_pattern_splitter_skips_brackets_in_strings_and_comments():
    from symbolpack.languages import top_level_patterns

    source = ('; a comment with ( and [\n'
              '((identifier) @name (#match? @name "^(a|\\"[b)$"))\n'
              '[(a) (b)] @definition.function ; trailing ) comment\n'
              '(c)+ @reference.call\n')
    assert top_level_patterns(source) == [
        '((identifier) @name (#match? @name "^(a|\\"[b)$"))',
        '[(a) (b)] @definition.function ; trailing ) comment',
        '(c)+ @reference.call',
    ]
