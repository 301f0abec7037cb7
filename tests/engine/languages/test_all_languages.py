"""Properties every language query must have, checked on every fixture."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

import pytest

from symbolpack.engine.languages import supported_languages
from symbolpack.engine.symbols import extract

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

    from symbolpack.engine.languages import tree_sitter_language

    ours, theirs = tree_sitter_language(lang), get_language(lang)
    assert (ours.name, ours.abi_version, ours.node_kind_count) == (theirs.name, theirs.abi_version,
                                                                   theirs.node_kind_count)


@pytest.mark.parametrize("lang", FIXTURES)
def test_the_smallest_skeleton_keeps_every_signature_line(lang):
    """However small a skeleton gets, an agent can find every symbol by name -- but what
    is defined inside a function's body (a local struct, closure or constant), which is
    that body's, hidden with it (shown between two markers of one body, real agents read
    the whole body again), unless the function wraps most of the file."""
    from symbolpack.reads.skeleton import CONTAINER_KINDS, _header_line, plan
    from symbolpack.engine.symbols import bind

    text = textwrap.dedent(importlib.import_module(f".test_{lang}", __package__).SOURCE).lstrip("\n")
    records, _ = extract(text.encode(), lang, references=False)
    symbols = bind(f"fixture.{lang}", lang, records)
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    segments, _ = plan(lines, symbols, target_tokens=0)
    shown = {n for s in segments if s.kind == "shown" for n in range(s.start, s.end + 1)}

    def parent(s):  # the function whose body *s* is defined in, when that is not most of the file
        return next((o for o in symbols if o is not s and o.body and o.kind not in CONTAINER_KINDS
                     and o.body[0] <= s.lines[0] and s.lines[1] <= o.body[1]
                     and o.lines[1] - o.lines[0] + 1 <= len(lines) // 2), None)

    missing = [s.qualname for s in symbols if parent(s) is None and _header_line(lines, s) not in shown]
    assert missing == []
    # a local shows only with its parent's body (a small body is cheaper shown than its marker)
    holes = [s.qualname for s in symbols if (o := parent(s)) is not None and _header_line(lines, s) in shown
             and not all(n in shown for n in range(o.body[0], o.body[1] + 1))]
    assert holes == []


@pytest.mark.parametrize("lang", FIXTURES)
def test_the_pattern_splitter_cuts_where_tree_sitter_numbers_patterns(lang):
    """Reads compile only the definition patterns, cut from the query text by
    `top_level_patterns`; its cuts must be tree-sitter's own (or a read would compile
    a different query than the index does)."""
    from tree_sitter import Query

    from symbolpack.engine.languages import parser_and_query, query_source, top_level_patterns, tree_sitter_language

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
    from symbolpack.engine.languages import top_level_patterns

    source = ('; a comment with ( and [\n'
              '((identifier) @name (#match? @name "^(a|\\"[b)$"))\n'
              '[(a) (b)] @definition.function ; trailing ) comment\n'
              '(c)+ @reference.call\n')
    assert top_level_patterns(source) == [
        '((identifier) @name (#match? @name "^(a|\\"[b)$"))',
        '[(a) (b)] @definition.function ; trailing ) comment',
        '(c)+ @reference.call',
    ]


def _matches(query, tree) -> set:
    from tree_sitter import QueryCursor

    return {frozenset((name, n.start_byte, n.end_byte) for name, nodes in caps.items() for n in nodes)
            for _, caps in QueryCursor(query).matches(tree.root_node)}


_LITERAL_PREDICATE = r'\(#(?:eq|any-of)\?\s+@[\w.]+((?:\s+"[^"]*")+)'


def _literal_predicates(lang: str, references: bool) -> list[list[str]]:
    """Each `#eq?`/`#any-of?` predicate with string literals: its words."""
    import re

    from symbolpack.engine.languages import query_source, top_level_patterns

    patterns = [p for p in top_level_patterns(query_source(lang) or "") if references or "@reference." not in p]
    return [re.findall(r'"([^"]*)"', m.group(1)) for p in patterns for m in re.finditer(_LITERAL_PREDICATE, p)]


@pytest.mark.parametrize("lang", FIXTURES)
def test_a_query_compiled_for_a_file_matches_what_the_whole_query_matches(lang, monkeypatch):
    """A file's query leaves out the patterns whose `#eq?`/`#any-of?` literals it does
    not contain; on that file it must match exactly what the whole query matches. The
    fixture is checked as it is and with every such literal spelled otherwise (so the
    patterns are really left out)."""
    import re

    from symbolpack.engine import languages
    from symbolpack.engine.languages import parser, parser_and_query

    # a process keeps the union of the subsets it compiled (a later file may get a fuller
    # query): start from none, or files parsed by earlier tests decide what this one gets
    monkeypatch.setattr(languages, "_subsets", {})
    source = textwrap.dedent(importlib.import_module(f".test_{lang}", __package__).SOURCE).lstrip("\n").encode()
    respelled = source
    for word in sorted({w for words in _literal_predicates(lang, True) for w in words}, key=len, reverse=True):
        respelled = re.sub(rb"\b" + re.escape(word.encode()) + rb"\b", word.encode()[::-1] + b"_x", respelled)
    for text in {source, respelled}:
        tree = parser(lang).parse(text)
        for references in (True, False):
            own = parser_and_query(lang, references, text)[1]
            whole = parser_and_query(lang, references)[1]
            assert _matches(own, tree) == _matches(whole, tree), (lang, references)
            absent = any(all(w.encode() not in text for w in words) for words in _literal_predicates(lang, references))
            assert (own.pattern_count < whole.pattern_count) == absent, (lang, references)


def test_the_respelled_fixtures_leave_patterns_out_where_the_queries_have_literals():
    """The test above exercises the leaving-out in these languages at least."""
    import re

    from symbolpack.engine.languages import parser_and_query

    pruned = set()
    for lang in FIXTURES:
        source = textwrap.dedent(importlib.import_module(f".test_{lang}", __package__).SOURCE).lstrip("\n").encode()
        for word in {w for words in _literal_predicates(lang, True) for w in words}:
            source = re.sub(rb"\b" + re.escape(word.encode()) + rb"\b", b"zz_", source)
        if parser_and_query(lang, True, source)[1].pattern_count < parser_and_query(lang, True)[1].pattern_count:
            pruned.add(lang)
    assert {"javascript", "typescript", "c", "cpp", "php"} <= pruned


def test_queries_for_files_are_few_and_cover_each_other():
    """The first file without the words compiles a smaller query; a file with them
    compiles the union (not a second small one); later files reuse what covers them."""
    from symbolpack.engine import languages
    from symbolpack.engine.languages import parser_and_query

    languages._subsets.clear()  # a fresh process's cache
    languages._compiled.cache_clear()
    without = b"const x = 1;\n"
    with_words = (b"exports.f = function () {};\nA.prototype.g = function () {};\nclass B { constructor() {} }\n"
                  b"module.exports = function h() {};\n")
    small = parser_and_query("javascript", False, without)[1]
    whole = parser_and_query("javascript", False)[1]
    assert small.pattern_count < whole.pattern_count
    assert parser_and_query("javascript", False, with_words)[1] is whole  # the union: every pattern
    assert parser_and_query("javascript", False, without)[1] is small


def test_query_version_is_the_sha256_of_what_a_parse_depends_on():
    """Parse-cache keys: sha256 of the engine version, language, query text and
    symbols.py (hashed with the built-in sha256; hashlib must give the same key)."""
    import hashlib

    from symbolpack.engine.languages import ENGINE_VERSION, _engine_fingerprint, query_source, query_version

    for lang in ("python", "typescript"):
        expected = hashlib.sha256(f"{ENGINE_VERSION}\0{lang}\0{query_source(lang)}\0".encode() + _engine_fingerprint())
        assert query_version(lang) == expected.hexdigest()[:16]
