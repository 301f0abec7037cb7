"""What a skeleton hides and what it must keep (the compression issue's rules)."""

from __future__ import annotations

from symbolpack.engine.languages import language_for_path
from symbolpack.reads.skeleton import _header_line, plan
from symbolpack.engine.symbols import bind, parse_bytes
from symbolpack.base.tokens import count_tokens
from symbolpack.reads.views import Segment, numbered_text, render_segments

PY = '''"""The module docstring.

It goes on for a while, explaining at length what this module is for,
why it exists, which alternatives were considered and rejected,
and then some more about the history of the project and its authors.
"""

from __future__ import annotations

import os
import sys
from collections import (
    OrderedDict,
    defaultdict as dd,
)


class Config:
    """Settings.

    More words about settings that nobody needs on a first read.
    And more, about where the settings come from and how they are merged,
    which environment variables override which files, and in what order.
    """

    name: str = "x"
    retries: int = 3

    def load(self, path):
        """Load the file.

        Details that a skeleton can hide.
        More details.
        """
''' + "".join(f"        step_{i} = os.path.join(path, '{i}')\n" for i in range(30)) + '''        return step_0


def tiny(a):
    return a + 1


TABLE = {
''' + "".join(f"    'key_{i}': {i},\n" for i in range(40)) + '''}
'''

TS_TEST = "import test from 'ava';\nimport {thing} from '../source/index.js';\n\n" + "".join(
    f"test('case {k}', async t => {{\n" + "".join(f"\tconst v{i} = await thing({i});\n" for i in range(12))
    + "\tt.is(v0, 0);\n});\n\n" for k in range(6))


def _symbols(rel: str, text: str):
    lang = language_for_path(rel)
    records, _, error = parse_bytes(text.encode(), lang, references=False)
    assert error is None
    return bind(rel, lang, records)


def _shown(segments) -> set[int]:
    return {n for s in segments if s.kind == "shown" for n in range(s.start, s.end + 1)}


def test_a_python_skeleton_keeps_names_and_first_lines_and_hides_the_rest():
    lines = PY.split("\n")[:-1]
    syms = _symbols("m.py", PY)
    segments, notes = plan(lines, syms, target_tokens=0)  # as small as it gets
    shown = _shown(segments)
    text = "\n".join(render_segments(lines, segments, notes))
    for s in syms:  # every symbol's signature line, numbered
        assert _header_line(lines, s) in shown, s.qualname
    assert 1 in shown and 2 not in shown  # the module docstring's first line only
    # an import block is shown whole, module paths and all (a list of bare names was not enough)
    assert all(number in shown for number in range(8, 16) if lines[number - 1].strip())
    number = {t: n for n, t in enumerate(lines, 1)}
    assert number['    """Settings.'] in shown and number["    More words about settings that nobody needs on a first read."] not in shown
    assert number['    name: str = "x"'] in shown and number["    retries: int = 3"] in shown  # class fields
    assert number["        step_0 = os.path.join(path, '0')"] not in shown  # a body
    assert number["TABLE = {"] in shown and number["    'key_5': 5,"] not in shown  # a long literal
    assert number["    return a + 1"] in shown  # a one-line body is cheaper than its marker


def test_the_budget_decides_what_comes_back_cheapest_first():
    lines = PY.split("\n")[:-1]
    syms = _symbols("m.py", PY)
    full = count_tokens(numbered_text(lines, 1, len(lines)))
    small, _ = plan(lines, syms, target_tokens=0)
    roomy, _ = plan(lines, syms, target_tokens=full)
    assert len(_shown(small)) < len(_shown(roomy)) == len(lines)  # everything fits: nothing hidden
    middle, notes = plan(lines, syms, target_tokens=int(0.6 * full))
    assert count_tokens("\n".join(render_segments(lines, middle, notes))) <= 0.6 * full
    assert _shown(small) < _shown(middle) < _shown(roomy)


def test_test_cases_that_are_calls_are_elided_in_a_test_file():
    lines = TS_TEST.split("\n")[:-1]
    syms = _symbols("test/thing.ts", TS_TEST)
    segments, notes = plan(lines, syms, target_tokens=0, test_file=True)
    text = "\n".join(render_segments(lines, segments, notes))
    for k in range(6):
        assert f"test('case {k}', async t => {{" in text
    assert "await thing(3)" not in text
    assert text.count("elided: --offset") == 6


def test_a_markdown_outline_keeps_every_heading_and_the_top_first():
    from symbolpack.reads.skeleton import outline_kind, plan_outline

    doc = ["# Title", "", "Intro line."]
    for k in range(8):
        doc += ["", f"## Section {k}", ""] + [f"Sentence {i} of section {k}, long enough to cost tokens." for i in range(8)]
    doc += ["", "```", "# not a heading inside a fence", "```"]
    assert outline_kind("docs/README.md") == "markdown" and outline_kind("src/a.py") is None
    full = count_tokens(numbered_text(doc, 1, len(doc)))
    segments, _ = plan_outline(doc, "markdown", int(0.35 * full))
    shown = _shown(segments)
    headings = [n for n, t in enumerate(doc, 1) if t.startswith("## ")]
    assert all(h in shown for h in headings)
    first_text = headings[0] + 2  # "## Section 0", blank, then its text
    last_text = headings[-1] + 2
    assert first_text in shown and last_text not in shown  # budget spent from the top down


def test_a_lockfile_is_its_head_and_a_marker_per_chunk():
    from symbolpack.reads.skeleton import outline_kind, plan_outline

    lock = ["# generated", "version = 3", ""] + [f'name = "crate{i}"' for i in range(200)]
    assert outline_kind("sub/Cargo.lock") == "lockfile" and outline_kind("package-lock.json") == "lockfile"
    segments, notes = plan_outline(lock, "lockfile", 0)
    assert [(s.kind, s.start, s.end) for s in segments] == [
        ("shown", 1, 5), ("elided", 6, 85), ("elided", 86, 165), ("elided", 166, 203)]
    assert notes == {6: "generated lockfile lines", 86: "generated lockfile lines", 166: "generated lockfile lines"}


PY_PARAMETRIZED = "import pytest\n\n\n" + "".join(
    f"@pytest.mark.parametrize(\n    'value, expected',\n    (\n"
    + "".join(f"        ({i}, {i * k}),\n" for i in range(8))
    + f"    ),\n)\ndef test_times_{k}(value, expected):\n    assert value * {k} == expected\n\n\n" for k in range(3))


def test_a_decorators_long_argument_list_is_elided_its_first_line_stays():
    lines = PY_PARAMETRIZED.split("\n")[:-1]
    syms = _symbols("tests/test_times.py", PY_PARAMETRIZED)
    segments, notes = plan(lines, syms, target_tokens=0, test_file=True)
    text = "\n".join(render_segments(lines, segments, notes))
    assert text.count("@pytest.mark.parametrize(") == 3 and "(5, 10)," not in text
    assert "\n    ... 5-16 elided: --offset 5 --limit 12\n    17\tdef test_times_0(" in text  # its arguments
    for k in range(3):
        assert f"def test_times_{k}(value, expected):" in text


def test_a_constant_or_variable_inside_a_function_is_the_body_s_not_a_hole_in_it():
    """axum's `on_upgrade` came back as two markers with its inner `const UPGRADE` lines
    shown between them, gin's `setWithProperType` as its `ok, err :=` lines elided and the
    rest shown: real agents read the whole body again to see where it began."""
    rust = "pub fn on_upgrade(x: u32) -> u32 {\n" + "".join(f"    let a{i} = x + {i};\n" for i in range(12)) + \
        "    const UPGRADE: u32 = 7;\n" + "".join(f"    let b{i} = x * {i};\n" for i in range(12)) + "    x\n}\n"
    lines = rust.split("\n")[:-1]
    syms = _symbols("ws.rs", rust)
    assert any(s.name == "UPGRADE" for s in syms)  # the parser does see it
    segments, _ = plan(lines, syms, target_tokens=0)
    assert [(s.kind, s.start, s.end) for s in segments] == [("shown", 1, 1), ("elided", 2, len(lines))]
    # a local function too (Ky.create's `const function_ = async () => {...}` came back as
    # a marker inside Ky.create's own), unless its parent wraps most of the file: then it
    # keeps its signature, or the outline of a module written inside one function is one marker
    nested = "def outer(x):\n" + "".join(f"    a{i} = x + {i}\n" for i in range(8)) + "    def inner(y):\n" + \
        "".join(f"        b{i} = y * {i}\n" for i in range(8)) + "        return y\n    return inner\n"
    lines = nested.split("\n")[:-1]
    segments, _ = plan(lines, _symbols("m.py", nested), target_tokens=0)
    assert 10 in _shown(segments) and lines[9] == "    def inner(y):"
    beside = nested + "\n\n" + "".join(f"def f{k}(x):\n" + "".join(f"    c{i} = x - {i}\n" for i in range(6)) + "    return x\n\n\n"
                                     for k in range(3))
    lines = beside.split("\n")[:-1]
    segments, _ = plan(lines, _symbols("m.py", beside), target_tokens=0)
    assert segments[:2] == [Segment("shown", 1, 1), Segment("elided", 2, 20, symbol="m.py:python:outer")], segments
