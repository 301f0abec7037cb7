"""What a skeleton must show for a real model to use it without reading again (issue 27):
every parameter line of a signature, a doc block's summary after its bare opener,
import blocks whole (module paths, not bare words), a constant past its comment."""

from __future__ import annotations

from symbolpack.engine.languages import language_for_path
from symbolpack.engine.symbols import bind, parse_bytes
from symbolpack.reads.skeleton import plan
from symbolpack.reads.views import render_segments


def skeleton(rel: str, text: str) -> tuple[list[str], set[int]]:
    """The smallest skeleton of *text* (every unit that may hide, hidden): lines and shown numbers."""
    lang = language_for_path(rel)
    records, _, error = parse_bytes(text.encode(), lang, references=False)
    assert error is None
    lines = text.split("\n")[:-1]
    segments, notes = plan(lines, bind(rel, lang, records), target_tokens=0)
    shown = {n for s in segments if s.kind == "shown" for n in range(s.start, s.end + 1)}
    return render_segments(lines, segments, notes), shown


def numbers_of(text: str, *needles: str) -> list[int]:
    lines = text.split("\n")
    return [next(n for n, line in enumerate(lines, 1) if needle in line) for needle in needles]


def body(k: int) -> str:
    return "".join(f"        step_{i} = value * {i} + {k}\n" for i in range(12))


PY = '''import os


class Ledger:
    def __init__(
        self,
        name: str,
        limit: int = 10,
        *,
        strict: bool = False,
    ) -> None:
        """
        Make a ledger named *name*.

        More words that a first read can do without, about where the
        name comes from, which limits apply, what strict mode refuses,
        and how a ledger is closed again when the program ends.
        """
''' + body(0) + '''
    def total(self):
''' + body(1)


def test_python_signatures_are_whole_and_a_bare_docstring_opener_keeps_its_summary():
    _, shown = skeleton("m.py", PY)
    for n in numbers_of(PY, "def __init__(", "self,", "name: str,", "limit: int = 10,", "*,",
                        "strict: bool = False,", ") -> None:", '"""', "Make a ledger named"):
        assert n in shown, PY.split("\n")[n - 1]
    assert numbers_of(PY, "More words")[0] not in shown and numbers_of(PY, "step_3 = value * 3 + 0")[0] not in shown


JS = '''const path = require('node:path');

/**
 * Send a response.
 *
 * Examples:
 *
 *     res.send('<p>some html</p>');
 *
 * @param {string|number|boolean|object|Buffer} body
 * @public
 */
res.send = function send(body) {
''' + "".join(f"  var chunk{i} = body + {i};\n" for i in range(15)) + '''  return this;
};
'''


def test_a_jsdoc_block_keeps_its_summary_not_just_its_opener():
    rows, shown = skeleton("r.js", JS)
    opener, summary, example = numbers_of(JS, "/**", "Send a response.", "res.send('<p>")
    assert {opener, summary} <= shown and example not in shown
    assert "res.send = function send(body) {" in "\n".join(rows)



TS_COMMENTS = """// Emit an operand for a gt/lt bound; numbers inline, dates hoisted.
/**
 * A count bound reaches generated source verbatim, so a non-number would be
 * emitted as code rather than as a value.
 *
 * TypeScript types these as numbers, so this is a backstop.
 */
function numericOperand(value: unknown, label: string): string {
""" + "".join(f"  const v{i} = String(value) + label + {i};\n" for i in range(15)) + """  return label;
}
"""


def test_a_doc_block_below_a_line_comment_keeps_its_own_summary():
    # one run of comment lines hid the JSDoc's summary behind a line comment about
    # another function: the agent could not tell which function the comment was for
    _, shown = skeleton("c.ts", TS_COMMENTS)
    line_comment, opener, summary, detail = numbers_of(
        TS_COMMENTS, "// Emit an operand", "/**", "A count bound reaches", "TypeScript types these")
    assert {line_comment, opener, summary} <= shown and detail not in shown

GO = '''package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"
	flag "github.com/spf13/pflag"
)

// DefaultTimeout is how long a command may run.
// It can be changed per command.
// Zero means no limit.
const DefaultTimeout = 30

func Run(name string) error {
''' + "".join(f"\tfmt.Println(name, {i})\n" for i in range(15)) + '''	return nil
}
'''


def test_go_imports_keep_their_paths_and_a_constant_shows_past_its_comment():
    rows, shown = skeleton("cmd.go", GO)
    text = "\n".join(rows)
    assert '"github.com/spf13/pflag"' in text and 'flag "github.com/spf13/pflag"' in text
    assert numbers_of(GO, "const DefaultTimeout = 30")[0] in shown
    assert numbers_of(GO, "// DefaultTimeout is how long")[0] in shown  # the comment's first line
    assert numbers_of(GO, "fmt.Println(name, 7)")[0] not in shown  # a body still hides


RS = '''use std::fmt::{self, Debug, Display};
use crate::backtrace::Backtrace;

impl Error {
    pub fn context<C>(
        self,
        context: C,
    ) -> Self
    where
        C: Display + Send + Sync + 'static,
    {
''' + "".join(f"        let step{i} = {i};\n" for i in range(15)) + '''        self
    }
}
'''


def test_a_rust_signature_keeps_its_where_clause():
    rows, shown = skeleton("e.rs", RS)
    for needle in ("pub fn context<C>(", "context: C,", ") -> Self", "where", "C: Display + Send"):
        assert numbers_of(RS, needle)[0] in shown, needle
    assert "use std::fmt::{self, Debug, Display};" in "\n".join(rows)
    assert numbers_of(RS, "let step7 = 7;")[0] not in shown
