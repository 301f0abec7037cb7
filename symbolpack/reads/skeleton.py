"""What a first read hides: a skeleton planned against a token budget. Pure.

A skeleton must still let the agent find anything by name and use it: every
symbol's signature lines with their numbers (all of them: parameters and `where`
clauses too), each docstring's or doc comment's summary (its first line, and the
line after a bare `/**` or triple quote), import blocks whole, module-level names and
class fields stay. Everything else is an *elidable unit*:

* a function or method body with its closing line (not a class: its fields and
  method signatures stay);
* the tail of a docstring or of a doc/comment block (its summary stays);
* the interior of a long module-level statement (a test case such as
  `test('...', () => {...})`, a `main` block) or of a long constant or variable
  (a table literal): its first line stays;
* a decorator's (or attribute's) argument list over several lines, such as
  pytest's parametrize cases: its first line stays.

Which units are hidden is decided by tokens, not by a line count: start from the
smallest skeleton (every unit hidden), then show units back, cheapest first
(short bodies before long ones; test code last), while the
whole stays within a share of a plain read. A unit whose marker would cost about
as much as its lines is never hidden.

Why heuristics for statements and import blocks instead of the parse tree: symbols are
what the queries capture, and a read does not keep the tree; a column-0 line
followed by indented lines and a closing bracket is a statement in every
language we parse, and misjudging one only changes what is elided (elided lines
are unknown to the agent, never wrong).
"""

from __future__ import annotations

import re

from ..base.kinds import CONTAINER_KINDS
from ..base.tokens import count_tokens
from .views import Segment, elided_marker

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Sequence

    from ..engine.symbols import SymbolSlice

    _Add = Callable[..., None]  # `_units`' add(out, start, end, symbol, kind)

MARKER_TOKENS = 12  # hiding fewer tokens than a marker's cost plus this never pays
_COMMENT = re.compile(r"\s*(//|/\*|\*|#(?![\[!])|--|;;|%|\"\"\"|''')")
_IMPORT = re.compile(r"(from\s+\S+\s+import\b|import\b|use\s|using\s|#include\b|require\b|open\s|extern crate\b)")
_CLOSER = re.compile(r"\s*[)\]}]")
_CLOSER_ONLY = re.compile(r"\s*([)\]}]+[;,)]*|end[;]?)\s*$")
_VALUE_KINDS = frozenset({"constant", "variable", "field", "property"})


class Unit:
    """One elidable run of lines: [start, end], its tokens, and what it is."""

    __slots__ = ("start", "end", "symbol", "kind", "tokens")

    def __init__(self, start: int, end: int, symbol: str | None, kind: str, tokens: int) -> None:
        self.start, self.end, self.symbol, self.kind, self.tokens = start, end, symbol, kind, tokens


def plan(lines: Sequence[str], symbols: Sequence[SymbolSlice], target_tokens: int, min_lines: int = 3,
         test_file: bool = False) -> tuple[list[Segment], dict[int, str]]:
    """Shown/elided segments of a first read that fits *target_tokens* if it can, and
    the markers' notes (none here: `plan_outline`'s lockfile markers have some)."""
    total = len(lines)
    line_tokens = [0] + [count_tokens(f"{n:>6}\t{lines[n - 1]}") + 1 for n in range(1, total + 1)]
    units = _units(lines, symbols, line_tokens, min_lines)
    # smallest skeleton first, then units shown back by priority while the budget allows
    markers = {id(u): _marker_cost(u, lines) for u in units}
    cost = sum(line_tokens) - 1 - sum(u.tokens for u in units) + sum(markers.values())  # n - 1 newlines
    hidden = []
    for u in sorted(units, key=lambda u: _priority(u, test_file)):
        extra = u.tokens - markers[id(u)]
        if extra <= MARKER_TOKENS or cost + extra <= target_tokens:
            cost += extra
        else:
            hidden.append(u)
    hidden.sort(key=lambda u: u.start)
    segments: list[Segment] = []
    line = 1
    for u in hidden:
        if u.start > line:
            segments.append(Segment("shown", line, u.start - 1))
        last = segments[-1] if segments else None
        if last is not None and last.kind == "elided" and last.end + 1 == u.start \
                and (last.symbol is None or last.symbol == u.symbol):
            # neighbours of one symbol (a doc tail and its body): one marker, named by the symbol
            segments[-1] = last._replace(end=u.end, symbol=u.symbol or last.symbol)
        else:
            segments.append(Segment("elided", u.start, u.end, symbol=u.symbol))
        line = u.end + 1
    if line <= total:
        segments.append(Segment("shown", line, total))
    return segments, {}


def _marker_cost(u: Unit, lines: Sequence[str]) -> int:
    return count_tokens(elided_marker(lines, Segment("elided", u.start, u.end, symbol=u.symbol))) + 1


def _priority(u: Unit, test_file: bool) -> tuple:
    rank = {"body": 0, "statement": 1, "doc": 2}[u.kind]
    if test_file and u.kind in ("body", "statement"):
        rank = 4  # test code is the last thing a reader of a test file's outline needs
    return (rank, u.tokens, u.start)


def _units(lines: Sequence[str], symbols: Sequence[SymbolSlice], line_tokens: Sequence[int],
           min_lines: int) -> list[Unit]:
    total = len(lines)
    taken = [False] * (total + 2)
    quotes = _quote_counts(lines)

    def add(out: list[Unit], start: int, end: int, symbol: str | None, kind: str) -> None:
        if end - start + 1 < min_lines or start < 1 or end > total:
            return
        if any(taken[n] for n in range(start, end + 1)):
            return
        for n in range(start, end + 1):
            taken[n] = True
        out.append(Unit(start, end, symbol, kind, sum(line_tokens[start:end + 1])))

    units: list[Unit] = []
    in_symbol = [False] * (total + 2)
    for s in symbols:
        for n in range(s.lines[0], min(s.lines[1], total) + 1):
            in_symbol[n] = True
        if s.body and s.kind not in CONTAINER_KINDS:
            # its own lines only where it wraps most of the file (an IIFE, a `describe`, a
            # module function): a function or type defined inside keeps its signature line
            # (and gets units of its own below). Elsewhere what is defined inside is the
            # body's: a local function's marker inside its parent's, or a constant's lines
            # shown between two markers of one body, made real agents read the whole body
            # again to be sure where it started
            wrapper = s.lines[1] - s.lines[0] + 1 > total // 2
            own = [True] * (total + 2)
            for inner in symbols:
                if wrapper and inner is not s and inner.kind not in _VALUE_KINDS \
                        and s.body[0] <= inner.lines[0] and inner.lines[1] <= s.body[1]:
                    for n in range(inner.lines[0], inner.lines[1] + 1):
                        own[n] = False
            last = s.body[1]
            if last + 1 <= min(s.lines[1], total) and _CLOSER_ONLY.match(lines[last]):
                last += 1  # the body's own closing `}` / `end` goes with it
            n = s.body[0]
            while n <= last:
                if not own[n]:
                    n += 1
                    continue
                m = n
                while m + 1 <= last and own[m + 1]:
                    m += 1
                add(units, n, m, s.id, "body")
                n = m + 1
        elif not s.body and s.kind in _VALUE_KINDS:  # `TABLE = {...}`: its first line names it
            # (the line that names it, not the comment above it: a constant must not hide behind its comment)
            add(units, _header_line(lines, s) + 1, s.lines[1], None, "statement")
    for s in symbols:
        header = _header_line(lines, s)
        # a leading doc comment (above the header): its first line stays
        _doc_tail(units, add, lines, quotes, s.lines[0], header - 1)
        # a decorator's long argument list (`@pytest.mark.parametrize(` and its cases):
        # its first line stays
        _decorator_tails(units, add, lines, s.lines[0], header - 1)
        # a signature's continuation (parameters, `where` clauses): its first line stays
        sig_end = _signature_end(lines, s, header)
        # a signature is never hidden, every parameter line of it: a model that sees
        # `def __init__(` and a marker cannot call the function, and reads it again
        for n in range(header, min(sig_end, total) + 1):
            taken[n] = True
        # a docstring right after the header (Python functions and classes): its first line stays
        after = sig_end + 1
        if after <= min(s.lines[1], total) and _COMMENT.match(lines[after - 1]):
            _doc_tail(units, add, lines, quotes, after, min(s.lines[1], total), first_run_only=True)
    top = 1  # a module docstring or licence block opening the file
    while top <= total and not in_symbol[top] and (
            (lines[top - 1].strip() and _COMMENT.match(lines[top - 1])) or _in_docstring(quotes, 1, top)):
        top += 1
    _doc_tail(units, add, lines, quotes, 1, top - 1)
    _module_level(units, add, lines, in_symbol)
    return units


_DECORATOR = ("@", "#[")


def _decorator_tails(units: list[Unit], add: _Add, lines: Sequence[str], start: int, end: int) -> None:
    """Each decorator (or attribute) spanning several lines between *start* and *end*:
    its continuation lines, up to the next decorator, are one statement unit."""
    opens = [n for n in range(start, end + 1) if lines[n - 1].lstrip().startswith(_DECORATOR)]
    for k, n in enumerate(opens):
        last = (opens[k + 1] - 1) if k + 1 < len(opens) else end
        add(units, n + 1, last, None, "statement")


def _header_line(lines: Sequence[str], s: SymbolSlice) -> int:
    """The line where the symbol's signature starts (after decorators and doc comments)."""
    first = (s.signature or "").split("\n", 1)[0].strip()[:40]
    if first:
        for n in range(s.lines[0], min(s.lines[1], len(lines)) + 1):
            if lines[n - 1].strip().startswith(first):
                return n
    return s.lines[0]


def _signature_end(lines: Sequence[str], s: SymbolSlice, header: int) -> int:
    return header + (s.signature or "").count("\n")


def _doc_tail(units: list[Unit], add: _Add, lines: Sequence[str], quotes: list[int], start: int, end: int,
              first_run_only: bool = False) -> None:
    """Within start..end, each run of comment/docstring lines keeps its first line. A
    `/*` opening a block after other comment lines starts a run of its own: a line
    comment above a doc block is often about something else, and the block's summary
    says what the symbol is."""
    n = start
    while n <= end:
        if not _COMMENT.match(lines[n - 1]) and not _in_docstring(quotes, start, n):
            n += 1
            continue
        m = n
        while m + 1 <= end and ((lines[m].strip() and _COMMENT.match(lines[m]) and not _BLOCK_OPENER.match(lines[m]))
                                or _in_docstring(quotes, start, m + 1)):
            m += 1
        add(units, _summary_line(lines, n, m) + 1, m, None, "doc")
        if first_run_only:
            return
        n = m + 1


_BLOCK_OPENER = re.compile(r"\s*/\*")
_BARE_OPENER = re.compile(r"\s*(/\*\*?|/\*!|\"\"\"|'''|[rRbBuU]?\"\"\"|///?|//!|#|--|;;)\s*$")


def _summary_line(lines: Sequence[str], start: int, end: int) -> int:
    """The last line of a doc block's head that stays: its first line, and the line
    after it when the first is a bare opener (`/**`, `\"\"\"`): a skeleton shows the
    summary, not the punctuation that opens it."""
    if start < end and _BARE_OPENER.match(lines[start - 1]):
        return start + 1
    return start


def _quote_counts(lines: Sequence[str]) -> list[int]:
    """Triple quotes on lines 1..n, for every n (index 0: none): counted once per file,
    so asking whether a line is inside a docstring costs a subtraction."""
    counts = [0]
    for text in lines:
        counts.append(counts[-1] + text.count('"""') + text.count("'''"))
    return counts


def _in_docstring(quotes: list[int], start: int, n: int) -> bool:
    """Is line *n* inside a triple-quoted string opened at or after line *start*?"""
    return (quotes[n - 1] - quotes[start - 1]) % 2 == 1


def _module_level(units: list[Unit], add: _Add, lines: Sequence[str], in_symbol: Sequence[bool]) -> None:
    """Top-level statements outside every symbol: import blocks and long statements."""
    total = len(lines)
    n = 1
    while n <= total:
        text = lines[n - 1]
        if in_symbol[n] or not text.strip() or text[0].isspace():
            n += 1
            continue
        if _COMMENT.match(text):  # a comment block (crate docs, a licence): its first line stays
            m = n
            while m + 1 <= total and not in_symbol[m + 1] and lines[m].strip() and _COMMENT.match(lines[m]):
                m += 1
            add(units, _summary_line(lines, n, m) + 1, m, None, "doc")
            n = m + 1
            continue
        if _IMPORT.match(text):
            m = n
            while m + 1 <= total and not in_symbol[m + 1] and (
                    _IMPORT.match(lines[m]) or (lines[m][:1].isspace() and lines[m].strip())
                    or _CLOSER.match(lines[m]) or not lines[m].strip()):
                m += 1
            # an import block is shown whole: its module paths say where every name
            # comes from (a list of bare words did not), and it is read once
            n = m + 1
            continue
        # a statement: this column-0 line, indented continuation lines, a closing line
        m = n
        while m + 1 <= total and not in_symbol[m + 1] and (
                (lines[m][:1].isspace() and lines[m].strip()) or not lines[m].strip() or _CLOSER.match(lines[m])):
            m += 1
        while m > n and not lines[m - 1].strip():
            m -= 1
        if m > n:
            add(units, n + 1, m, None, "statement")
        n = m + 1


# --------------------------------------------------------------------------- files no parser handles

LOCKFILES = frozenset({
    "Cargo.lock", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock",
    "uv.lock", "Pipfile.lock", "Gemfile.lock", "composer.lock", "go.sum", "flake.lock", "mix.lock",
    "pubspec.lock", "Package.resolved", "bun.lock"})
_MARKDOWN = (".md", ".markdown", ".mdx")
_HEADING = re.compile(r"#{1,6}\s")
_FENCE = re.compile(r"\s*(```|~~~)")
LOCKFILE_HEAD = 5  # lines of a lockfile a first read shows (its format and version)
CHUNK_LINES = 80  # the longest run one marker hides in a document or a lockfile


def _chunks(lines: Sequence[str], start: int, end: int) -> list[tuple[int, int]]:
    """start..end cut at blank lines into runs of at most about CHUNK_LINES."""
    out = []
    a = start
    while a <= end:
        b = min(a + CHUNK_LINES - 1, end)
        if b < end:
            cut = next((n for n in range(b, a + CHUNK_LINES // 2, -1) if not lines[n - 1].strip()), b)
            b = cut
        while b > a and not lines[b - 1].strip():
            b -= 1
        out.append((a, b))
        a = b + 1
        while a <= end and not lines[a - 1].strip():
            a += 1
    return out


def outline_kind(path: str) -> str | None:
    """"lockfile" or "markdown" when a first read of *path* can be an outline though
    no symbol query covers it; None otherwise."""
    name = path.rsplit("/", 1)[-1]
    if name in LOCKFILES:
        return "lockfile"
    if name.lower().endswith(_MARKDOWN):
        return "markdown"
    return None


def plan_outline(lines: Sequence[str], kind: str, target_tokens: int,
                 min_lines: int = 3) -> tuple[list[Segment], dict[int, str]]:
    """A first read of a generated lockfile (its head; the rest is one marker) or of a
    Markdown document (every heading; section texts shown back in document order
    while the budget allows: the top of a README or a changelog matters most)."""
    total = len(lines)
    if kind == "lockfile":
        if total - LOCKFILE_HEAD < min_lines:
            return [Segment("shown", 1, total)] if total else [], {}
        # markers every CHUNK_LINES lines: a look at one entry opens a chunk, not the file
        chunks = [Segment("shown", 1, LOCKFILE_HEAD)]
        for start in range(LOCKFILE_HEAD + 1, total + 1, CHUNK_LINES):
            chunks.append(Segment("elided", start, min(start + CHUNK_LINES - 1, total)))
        return chunks, {seg.start: "generated lockfile lines" for seg in chunks[1:]}
    line_tokens = [0] + [count_tokens(f"{n:>6}\t{lines[n - 1]}") + 1 for n in range(1, total + 1)]
    headings = []
    fenced = False
    for n in range(1, total + 1):
        if _FENCE.match(lines[n - 1]):
            fenced = not fenced
        elif not fenced and _HEADING.match(lines[n - 1]):
            headings.append(n)
    # sections: the text before the first heading, then each heading's text (heading excluded)
    starts = ([1] if not headings or headings[0] > 1 else []) + [h + 1 for h in headings]
    ends = [h - 1 for h in headings if h > 1] + [total]
    units = []
    for start, end in zip(starts, ends):
        while end >= start and not lines[end - 1].strip():
            end -= 1
        for a, b in _chunks(lines, start, end):  # a long section in paragraphs of about CHUNK_LINES
            if b - a + 1 >= min_lines:
                units.append(Unit(a, b, None, "doc", sum(line_tokens[a:b + 1])))
    cost = sum(line_tokens) - 1 - sum(u.tokens for u in units) + sum(_marker_cost(u, lines) for u in units)
    hidden = []
    for u in units:  # document order
        extra = u.tokens - _marker_cost(u, lines)
        if extra <= MARKER_TOKENS or cost + extra <= target_tokens:
            cost += extra
        else:
            hidden.append(u)
    segments: list[Segment] = []
    line = 1
    for u in hidden:
        if u.start > line:
            segments.append(Segment("shown", line, u.start - 1))
        segments.append(Segment("elided", u.start, u.end))
        line = u.end + 1
    if line <= total:
        segments.append(Segment("shown", line, total))
    return segments, {}
