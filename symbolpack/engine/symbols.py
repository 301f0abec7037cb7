"""Source bytes -> symbol slices: ids, spans, signatures, bodies and ETags. Pure.

The extraction loop is language-agnostic. Everything language-specific lives in
`queries/<lang>.scm` (tree-sitter tags convention: `@definition.<kind>` around an
inner `@name`, optional `@body`, `@reference.<kind>` around `@name`); this module
only applies span rules that hold across grammars:

* a symbol's span is its definition node, extended upward over attached
  decorators, attributes and doc comments (adjacent, no blank line between);
* two patterns that capture the same `@name` node describe one symbol, and the
  larger definition node wins (that is how a query says "this decorated or
  exported wrapper belongs to the definition");
* nesting is by node containment, so `Class.method` and `Outer.Inner` fall out;
  a `function` nested directly in a class-like symbol becomes a `method`;
* the body (the part a skeleton may elide) is the `@body` capture (from the
  first captured node to the last, when a query captures several: Haskell's
  guards, the rules of a `macro_rules!`) or the definition's `body` field, minus
  the lines that must stay visible: the header line, a closing-brace line, a
  leading docstring;
* the signature is the header: from the definition (after its decorators,
  attributes and comments) up to the body, never a token of it. Keywords the
  body node opens with before its brace are header (Go's `interface {`, Zig's
  `packed struct(u32) {`, Dart's `async* {`); a brace that ends the body's
  first line is not (`return {`, `= when {`, `=> ({`: issue 29). Without a body
  a callable's whole declaration is its signature (an interface method, an
  overload) and anything else's its first line (a constant with its value as
  far as that line shows it); an `end` that closes an empty body is left out.

Records are computed path-independently so the parse cache can key them by
content hash alone; `bind()` gives them ids for a concrete path.
"""

from __future__ import annotations

import re
from collections import namedtuple
from itertools import accumulate

from ..base.kinds import CLASS_LIKE
from ..base.workspace import sha256_hex

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence

    from tree_sitter import Node

    from ..base.protocol import SymbolJSON

_ATTACHED_TYPES = frozenset({
    "decorator", "attribute_item", "attribute_list", "attribute", "annotation",
    "marker_annotation", "attributes", "modifiers_annotation",
})
_SKIP_PREFIXES = tuple(p.encode() for p in ("@", "#[", "[", "//", "/*", "*", "--", ";;", "%"))
_CLOSERS = re.compile(r"^(?:[})\]]+[;,)]*|end[;,]?|end\)|fi|done|esac)$")
_OPENERS = ("{", "do", "begin", "(", "[", "=")
_BODYLESS_SIGNATURE_LINES = 8
_CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro"})
_KEYWORD = re.compile(r"[A-Za-z_]+\*?\Z")  # `async`, `async*`, `sync*`: an anonymous token that is a word


# Values are namedtuples, not dataclasses: this module is imported by every read
# that parses (first reads, drill-ins, hooks), and dataclass creation plus the
# `dataclasses` import cost ~10 ms a process.
class SymbolRecord(namedtuple("SymbolRecord", [
    "local_id", "name", "qualname", "kind", "parent", "signature", "lines", "body", "etag"])):
    """A symbol as found in one file's bytes, independent of the file's path.

    local_id: the qualname, with #2, #3 for repeats in source order; parent: the
    parent's local_id; lines and body: 1-based inclusive (start, end), body None
    when there is nothing to elide; etag: hash of the whole symbol text."""

    __slots__ = ()


class Reference(namedtuple("Reference", ["name", "line", "kind"], defaults=["call"])):
    """A use of a name (a call, by default) at a 1-based line."""

    __slots__ = ()


class SymbolSlice(namedtuple("SymbolSlice", [
    "id", "name", "qualname", "kind", "parent", "signature", "lines", "body", "etag", "path"],
        defaults=[""])):
    """The protocol's symbol object: a record bound to a repo-relative path."""

    __slots__ = ()

    def to_json(self) -> SymbolJSON:
        return {
            "id": self.id,
            "name": self.name,
            "qualname": self.qualname,
            "kind": self.kind,
            "parent": self.parent,
            "signature": self.signature,
            "lines": list(self.lines),
            "body": list(self.body) if self.body else None,
            "etag": self.etag,
        }


def symbol_id(path: str, lang: str, local_id: str) -> str:
    return f"{path}:{lang}:{local_id}"


def bind(path: str, lang: str, records: Iterable[SymbolRecord]) -> list[SymbolSlice]:
    """Give path-independent records their canonical ids for *path*."""
    return [
        SymbolSlice(
            id=symbol_id(path, lang, r.local_id),
            name=r.name,
            qualname=r.qualname,
            kind=r.kind,
            parent=symbol_id(path, lang, r.parent) if r.parent else None,
            signature=r.signature,
            lines=r.lines,
            body=r.body,
            etag=r.etag,
            path=path,
        )
        for r in records
    ]


def split_lines(data: bytes) -> list[bytes]:
    """Lines as `cat -n` counts them: split on LF, no phantom line after a final LF."""
    if not data:
        return []
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def etag_of(lines: Sequence[bytes], start: int, end: int) -> str:
    """Hash of the whole symbol text: lines start..end (1-based, inclusive)."""
    return sha256_hex(b"\n".join(lines[start - 1:end]))[:20]


class _Def:
    """One definition match while a file is being extracted (*start*, *end*: the
    node's bytes, read once: every access of a node's field crosses into C)."""

    __slots__ = ("node", "name_node", "kind", "body_node", "body_last", "pattern", "scope", "trait", "start", "end")

    def __init__(self, node: Node, name_node: Node, kind: str, body_node: Node | None, body_last: Node | None,
                 pattern: int, scope: Node | None, trait: Node | None, start: int, end: int) -> None:
        self.node, self.name_node, self.kind = node, name_node, kind
        self.body_node, self.body_last, self.pattern = body_node, body_last, pattern
        self.scope, self.trait = scope, trait
        self.start, self.end = start, end


def _role(captures: tuple[str, ...]) -> tuple[str, str, bool]:
    """(capture, kind, is a definition) of a match with these capture names: its first
    `definition.KIND` or `reference.KIND` capture; ("", "", False) when it has neither."""
    for cap in captures:
        if cap.startswith("definition."):
            return cap, cap.split(".", 1)[1], True
        if cap.startswith("reference."):
            return cap, cap.split(".", 1)[1], False
    return "", "", False


def parse_bytes(data: bytes, lang: str | None, references: bool = True,
                tree: Any = None) -> tuple[list[SymbolRecord], list[Reference], str | None]:
    """Symbols of *data* (from *tree* when the caller parsed it already); a parse
    failure is reported (third item), never raised."""
    from .languages import has_query

    if not lang or not has_query(lang):
        return [], [], None
    try:
        records, refs = extract(data, lang, references, tree)
        return records, refs, None
    except Exception as exc:  # a broken grammar or query must not break a read
        return [], [], f"{type(exc).__name__}: {exc}"


def extract(data: bytes, lang: str, references: bool = True,
            tree: Any = None) -> tuple[list[SymbolRecord], list[Reference]]:
    """Parse *data* as *lang* and return its symbols (source order) and references.

    Raises LookupError when *lang* has no query, and whatever tree-sitter raises
    on a broken grammar; callers treat both as "no symbols".
    """
    from tree_sitter import QueryCursor

    from .languages import parser_and_query

    parser, query = parser_and_query(lang, references, data)
    if tree is None:
        tree = parser.parse(data)
    lines = split_lines(data)
    offsets = line_starts(lines)

    defs: dict[tuple[int, int], _Def] = {}
    ref_nodes: list[tuple[Node, str]] = []
    roles: dict[tuple[str, ...], tuple[str, str, bool]] = {}  # capture names -> (capture, kind, is a definition)
    for pattern, caps in QueryCursor(query).matches(tree.root_node):
        names = caps.get("name")
        if not names:
            continue
        name_node = names[0]
        shape = tuple(caps)
        role = roles.get(shape)
        if role is None:
            role = roles[shape] = _role(shape)
        cap, kind, is_def = role
        if not is_def:
            if cap:
                ref_nodes.append((name_node, kind))
            continue
        def_node = caps[cap][0]
        body_caps = caps.get("body")
        key = (name_node.start_byte, name_node.end_byte)
        old = defs.get(key)
        start, end = def_node.start_byte, def_node.end_byte
        if old is not None:
            old_size, size = old.end - old.start, end - start
            if old_size > size or (old_size == size and old.pattern <= pattern):
                continue
        scope_caps, trait_caps = caps.get("scope"), caps.get("trait")
        defs[key] = _Def(def_node, name_node, kind, body_caps[0] if body_caps else None,
                         body_caps[-1] if body_caps else None, pattern,
                         scope_caps[0] if scope_caps else None, trait_caps[0] if trait_caps else None, start, end)

    # a header like Elixir's `def add(a)` is also a call node: not a reference to itself
    refs = [Reference(_text(n), n.start_point[0] + 1, kind) for n, kind in ref_nodes
            if (n.start_byte, n.end_byte) not in defs]
    ordered = sorted(defs.values(), key=lambda d: (d.start, -d.end))
    def_ranges = frozenset((d.start, d.end) for d in ordered)
    records: list[SymbolRecord] = []
    stack: list[tuple[_Def, SymbolRecord]] = []
    seen: dict[str, int] = {}
    for d in ordered:
        while stack and not _contains(stack[-1][0], d):
            stack.pop()
        parent = stack[-1][1] if stack else None
        kind = d.kind
        scope = d.scope
        if kind == "function" and (scope is not None or (parent is not None and parent.kind in CLASS_LIKE)):
            kind = "method"
        name = _name_of(d, kind)
        if not name:
            continue
        qualname = name
        if scope is not None:  # Go receivers, C++ `Type::method`: the type qualifies the name
            qualname = f"{_scope_name(scope)}.{name}"
        if parent is not None:
            qualname = f"{parent.qualname}.{qualname}"
        count = seen.get(qualname, 0) + 1
        seen[qualname] = count
        local_id = qualname if count == 1 else f"{qualname}#{count}"
        start = _span_start(d.node, lines, def_ranges)
        body_node = d.body_node or _find_body(d)
        end = _content_end(d.node)
        if body_node is not None and body_node.start_byte >= d.node.end_byte:
            end = _content_end(body_node)  # a body beside its signature (Dart)
        end = max(end, start)
        body = _body_span(body_node, lines, lang, d.body_last) if body_node is not None else None
        if body and (body[0] < start or body[1] > end or body[0] > body[1]):
            body = None
        record = SymbolRecord(
            local_id=local_id,
            name=name,
            qualname=qualname,
            kind=kind,
            parent=parent.local_id if parent else None,
            signature=_signature(d, kind, body_node, lines, offsets, data),
            lines=(start, end),
            body=body,
            etag=etag_of(lines, start, end),
        )
        records.append(record)
        stack.append((d, record))
    return records, refs


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _contains(outer: _Def, inner: _Def) -> bool:
    """Strict containment by byte range (node objects are fresh on every access)."""
    return outer.start <= inner.start and inner.end <= outer.end and (outer.start, outer.end) != (inner.start, inner.end)


# grammars that name an operator by its token or its type alone (C#): the engine says
# which, as C++'s `operator_name` does (`operator==`, `operator byte[]`, `~JToken`)
_NAMED_AS = {"operator_declaration": "operator{}", "conversion_operator_declaration": "operator {}",
             "destructor_declaration": "~{}"}


def _name_of(d: _Def, kind: str) -> str:
    name = " ".join(_text(d.name_node).split())
    if d.node.type in _NAMED_AS and d.name_node.type != "operator_name":
        name = _NAMED_AS[d.node.type].format(name)
    if kind == "impl":
        trait = d.trait
        name = f"impl {' '.join(_text(trait).split())} for {name}" if trait is not None else f"impl {name}"
    return name


def _scope_name(node: Node) -> str:
    text = " ".join(_text(node).split())
    return text.replace("::", ".").lstrip("*&").strip()


def _content_end(node: Node) -> int:
    """1-based last line of *node*'s real content: trailing comments and whitespace that
    some grammars (Scala's indented blocks) fold into a node are not part of it."""
    last = node
    while last.child_count:
        i = last.child_count - 1
        child: Node | None = last.child(i)
        while child is not None and (_is_comment(child) or child.end_byte == child.start_byte):
            i -= 1
            child = last.child(i) if i >= 0 else None
        if child is None:
            break
        last = child
    return max(_row_end(last), node.start_point[0] + 1)


def _is_comment(node: Node) -> bool:
    return node.type == "comment" or node.type.endswith("_comment")


def _row_end(node: Node) -> int:
    """1-based last line of *node* (a node ending at column 0 ends on the line before)."""
    row, col = node.end_point
    if col == 0 and row > node.start_point[0]:
        row -= 1
    return row + 1


def _is_attached(node: Node) -> bool:
    t = node.type
    if t in _ATTACHED_TYPES or t.endswith("comment") or t in ("haddock", "string_literal"):
        return True  # string_literal: a Julia docstring; haddock: `-- |` in Haskell
    return t == "unary_operator" and (node.text or b"")[:1] == b"@"  # Elixir @doc / @spec


def _span_start(node: Node, lines: Sequence[bytes], def_ranges: frozenset = frozenset()) -> int:
    """1-based first line: the node, or the adjacent decorators/comments above it."""
    start_row = node.start_point[0]
    sib = node.prev_named_sibling
    holder = node
    while sib is None and holder.parent is not None and holder.parent.start_byte == holder.start_byte:
        holder = holder.parent  # first in its parent (Ruby body_statement): look above the parent
        sib = holder.prev_named_sibling
    while sib is not None and _is_attached(sib) and (sib.start_byte, sib.end_byte) not in def_ranges:
        end_row = _row_end(sib) - 1
        if end_row < start_row - 1:
            break  # a blank line between: not attached
        line = lines[sib.start_point[0]] if sib.start_point[0] < len(lines) else b""
        if line[: sib.start_point[1]].strip():
            break  # a trailing comment of an earlier statement shares its line with code
        if line.lstrip().startswith(b"#!"):
            break  # a shebang documents the file, not the definition
        start_row = min(start_row, sib.start_point[0])
        sib = sib.prev_named_sibling
    return start_row + 1


def _find_body(d: _Def) -> Node | None:
    node = d.name_node.parent
    while node is not None:
        body = node.child_by_field_name("body")
        if body is not None:
            return body
        if node == d.node:
            break
        node = node.parent
    return None


def _body_span(body: Node, lines: Sequence[bytes], lang: str,
               last_node: Node | None = None) -> tuple[int, int] | None:
    """1-based inclusive lines of *body* that a skeleton may hide (*body* through
    *last_node* when the body is several nodes: Haskell's guards, a `macro_rules!`)."""
    bs, bcol = body.start_point
    be = _row_end(body) - 1
    if bs >= len(lines):
        return None
    start = bs
    head = lines[bs][:bcol]
    if head.strip():
        start = bs + 1  # the body opens on the header line
    else:
        first = lines[bs].strip().decode("utf-8", "replace")
        if first in _OPENERS:
            start = bs + 1  # an opening brace alone on its line stays visible
    doc_end = _leading_docstring_end(body)
    if doc_end is not None:
        start = max(start, doc_end + 1)
    if last_node is not None:
        body = last_node  # where the body ends: the last node's end and closing brace
    be = _content_end(body) - 1
    end = be
    count = body.child_count
    closing = body.child(count - 1) if count else None
    while (closing is not None and closing.is_named and (count := closing.child_count)
           and closing.start_byte == body.start_byte and _opens_with_bracket(closing)):
        closing = closing.child(count - 1)  # a wrapper around the whole body (Dart function_body -> block)
    if closing is not None and not closing.is_named and closing.start_point[0] == be and be > start:
        last = lines[be][: closing.end_point[1]].strip().decode("utf-8", "replace") if be < len(lines) else ""
        if _CLOSERS.match(last):
            end = be - 1  # the body's own closing brace / `end` stays visible
    if start > end:
        return None
    return start + 1, end + 1


def _opens_with_bracket(node: Node) -> bool:
    first = node.child(0)
    return first is not None and not first.is_named and first.type in _OPENERS


def _leading_docstring_end(body: Node) -> int | None:
    """0-based last row of a Python-style docstring that opens *body*, if any."""
    first = body.named_child(0) if body.named_child_count else None  # not .named_children: all of them
    if first is not None and first.type == "expression_statement" and first.named_child_count == 1:
        inner: Node | None = first.named_child(0)
    else:
        inner = first
    if first is None or inner is None or inner.type not in ("string", "concatenated_string"):
        return None
    return _row_end(first) - 1


def _header_node(d: _Def) -> Node:
    """The node a signature starts at: the definition, or the defined thing inside a
    decorator/attribute wrapper (`decorated_definition` -> `function_definition`)."""
    child = d.name_node
    while child.parent is not None and child.parent != d.node:
        child = child.parent
    if child.parent != d.node or child == d.name_node:
        return d.node
    sib = child.prev_sibling
    while sib is not None:
        if not _is_attached(sib):
            return d.node
        sib = sib.prev_sibling
    return child


def _signature(d: _Def, kind: str, body_node: Node | None, lines: Sequence[bytes], offsets: Sequence[int], data: bytes) -> str:
    """The definition's header, whole when it spans lines, without a token of its body
    (the rules are in the module's docstring)."""
    header = _header_node(d)
    start_row = header.start_point[0]
    name_row = d.name_node.start_point[0]
    while start_row < name_row and lines[start_row].lstrip().startswith(_SKIP_PREFIXES):
        start_row += 1  # annotations and comments inside the node are not the header
    if start_row == header.start_point[0]:
        start_byte = header.start_byte
    else:
        line = lines[start_row]
        start_byte = offsets[start_row] + len(line) - len(line.lstrip())
    if body_node is not None and body_node.start_byte > start_byte:
        end_byte = body_node.start_byte
        before = body_node.prev_sibling
        while before is not None and _is_attached(before) and before.start_byte > start_byte:
            before = before.prev_sibling  # a comment between header and body is not the header
        if before is not None and start_byte < before.end_byte <= end_byte:
            end_byte = before.end_byte
        brace = _own_brace(body_node)
        if brace is not None:
            end_byte = brace  # `type Shape interface {`: the body's own keywords are header
    else:
        if kind in _CALLABLE_KINDS and header.end_point[0] - start_row < _BODYLESS_SIGNATURE_LINES:
            end_byte = header.end_byte  # a bodyless declaration (interface method, overload): whole
        else:
            end_of_line = offsets[start_row] + len(lines[start_row]) if start_row < len(lines) else len(data)
            end_byte = max(min(header.end_byte, end_of_line), d.name_node.end_byte)
        closing = _closing_end(header)
        if closing is not None and d.name_node.end_byte <= closing < end_byte:
            end_byte = closing  # an empty body's `end` (Ruby `def noop; end`) is not header
    text = data[start_byte:end_byte].decode("utf-8", "replace").rstrip()
    if text.endswith("{"):
        text = text[:-1].rstrip()
    if "\n" not in text:
        return text  # one line, already stripped on the right
    return "\n".join(line.rstrip() for line in text.split("\n"))


def _own_brace(body: Node) -> int | None:
    """Where *body* opens its brace after words of its own, when it does: Go's
    `interface {`, Zig's `packed struct(u32) {` (keywords and at most one node of them,
    then a `{` of the body node's own), Dart's `async {` and `async* {` (keywords, then
    the block that ends the body). Those words say what is declared: header. A brace
    after anything else (`return {`, `= when {`, `=> ({`, `= synchronized {`) is code."""
    count = body.child_count
    named = 0
    for i in range(count):
        child = body.child(i)
        if child is None:
            return None
        if not child.is_named:
            if child.type == "{":
                return child.start_byte if i else None
            if _KEYWORD.match(child.type) is None:
                return None
            continue
        if not named and i and i == count - 1 and child.child_count:
            first = child.child(0)
            if first is not None and not first.is_named and first.type == "{":
                return first.start_byte
        named += 1
        if named > 1:
            return None  # statements, an expression and its arguments: the body's code
    return None


def _closing_end(node: Node) -> int | None:
    """Start of the `end` keyword that closes *node* (and of a `;` right before it), if
    *node* ends with one: an empty `def noop; end` or `function noop() end`."""
    last = node.child(node.child_count - 1) if node.child_count else None
    if last is None or last.is_named or last.type != "end":
        return None
    before = last.prev_sibling
    if before is not None and not before.is_named and before.type == ";":
        return before.start_byte
    return last.start_byte


def line_starts(lines: Sequence[bytes]) -> list[int]:
    """Byte offset of each line's start (a line and its newline: len + 1), and one
    more entry: where a line after the last would start."""
    return list(accumulate(map((1).__add__, map(len, lines)), initial=0))
