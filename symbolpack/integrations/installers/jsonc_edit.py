"""JSON with comments, edited as text: one member in, one member out, every other byte kept.

Gemini CLI's settings files are JSON with comments: Gemini 0.61 reads them with
`JSON.parse(stripJsonComments(text))` (strip-json-comments 3: `//` to the end of
the line and `/* */`, no trailing commas, no BOM). A user's comments, key order
and indentation are theirs; loading the file into a dict and dumping it again
would lose all three. So this module tokenizes the text itself, finds an object
member by its key path, and inserts or deletes that member's bytes, nothing
else. Inserting a member and deleting it again gives the original bytes back
(the layout of the insert is chosen so that the delete can undo it).

The grammar is exactly what Gemini accepts: a trailing comma is an error here
as it is there, so a file this module accepts is one Gemini accepts. Duplicate
keys follow `JSON.parse`: the last one wins.

Pure: text in, text out. `JsoncError` carries one line saying where the text is
not JSON.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\n]+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?(?:\*/|\Z))  # unclosed at the end: a comment, as strip-json-comments has it
  | (?P<string>"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")
  | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
  | (?P<literal>true|false|null)
  | (?P<punct>[{}\[\]:,])
""", re.S | re.X)
_LITERALS = {"true": True, "false": False, "null": None}


class JsoncError(ValueError):
    """The text is not JSON with comments as Gemini reads it (one line: what and where)."""


@dataclass
class Node:
    """A value in the text: its span and, for objects, its members in order."""

    start: int
    end: int
    value: Any
    members: list[Member] = field(default_factory=list)

    @property
    def is_object(self) -> bool:
        return isinstance(self.value, dict)

    def member(self, key: str) -> Member | None:
        found = [m for m in self.members if m.key == key]
        return found[-1] if found else None  # JSON.parse keeps the last duplicate


@dataclass
class Member:
    key: str
    start: int  # the key's opening quote
    value: Node
    comma: int | None = None  # the comma after the value, if one follows

    @property
    def end(self) -> int:
        return self.value.end


@dataclass
class _Token:
    kind: str
    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col}"


def _tokens(text: str) -> list[_Token]:
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise JsoncError(f"unexpected {text[pos]!r} at {_where(text, pos)}")
        kind = m.lastgroup or ""
        if kind not in ("ws", "line_comment", "block_comment"):
            out.append(_Token(kind, m.group(), pos))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0

    def _next(self, expect: str | None = None) -> _Token:
        if self.i >= len(self.tokens):
            raise JsoncError("unexpected end of file" + (f" (expected {expect!r})" if expect else ""))
        tok = self.tokens[self.i]
        if expect is not None and tok.text != expect:
            raise JsoncError(f"expected {expect!r} at {_where(self.text, tok.start)}, found {tok.text[:20]!r}")
        self.i += 1
        return tok

    def _peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def value(self) -> Node:
        tok = self._next()
        if tok.kind == "string":
            return Node(tok.start, tok.end, json.loads(tok.text))
        if tok.kind == "number":
            return Node(tok.start, tok.end, json.loads(tok.text))
        if tok.kind == "literal":
            return Node(tok.start, tok.end, _LITERALS[tok.text])
        if tok.text == "{":
            return self._object(tok)
        if tok.text == "[":
            return self._array(tok)
        raise JsoncError(f"unexpected {tok.text!r} at {_where(self.text, tok.start)}")

    def _object(self, open_: _Token) -> Node:
        node = Node(open_.start, 0, {})
        tok = self._peek()
        if tok is not None and tok.text == "}":
            node.end = self._next().end
            return node
        while True:
            key = self._next()
            if key.kind != "string":
                what = "a trailing comma" if key.text == "}" else repr(key.text[:20])
                raise JsoncError(f"expected a key at {_where(self.text, key.start)}, found {what}")
            self._next(":")
            member = Member(json.loads(key.text), key.start, self.value())
            node.members.append(member)
            node.value[member.key] = member.value.value
            sep = self._next()
            if sep.text == "}":
                node.end = sep.end
                return node
            if sep.text != ",":
                raise JsoncError(f"expected ',' or '}}' at {_where(self.text, sep.start)}")
            member.comma = sep.start

    def _array(self, open_: _Token) -> Node:
        items: list[Any] = []
        tok = self._peek()
        if tok is not None and tok.text == "]":
            return Node(open_.start, self._next().end, items)
        while True:
            tok = self._peek()
            if tok is not None and tok.text == "]":
                raise JsoncError(f"a trailing comma before {_where(self.text, tok.start)}")
            items.append(self.value().value)
            sep = self._next()
            if sep.text == "]":
                return Node(open_.start, sep.end, items)
            if sep.text != ",":
                raise JsoncError(f"expected ',' or ']' at {_where(self.text, sep.start)}")


def parse(text: str) -> Node:
    """The text's top value, with spans; `JsoncError` where Gemini would fail too."""
    parser = _Parser(text)
    node = parser.value()
    extra = parser._peek()
    if extra is not None:
        raise JsoncError(f"unexpected {extra.text[:20]!r} after the value at {_where(text, extra.start)}")
    return node


def loads(text: str) -> Any:
    return parse(text).value


def find(root: Node, path: tuple[str, ...]) -> Node | None:
    """The node at *path* (keys of nested objects), or None."""
    node: Node | None = root
    for key in path:
        if node is None or not node.is_object:
            return None
        member = node.member(key)
        node = member.value if member else None
    return node


# --------------------------------------------------------------------------- layout

def newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _indent_at(text: str, pos: int) -> str | None:
    """The whitespace before *pos* on its line, or None when something else precedes it."""
    before = text[_line_start(text, pos):pos]
    return before if not before.strip() else None


def _line_indent(text: str, pos: int) -> str:
    """The whitespace that starts the line *pos* is on."""
    line = text[_line_start(text, pos):pos]
    return line[:len(line) - len(line.lstrip())]


def indent_unit(text: str) -> str:
    m = re.search(r"^([ \t]+)\S", text, re.M)
    if m is None:
        return "  "
    return "\t" if m.group(1).startswith("\t") else " " * min(len(m.group(1)), 8)


def _is_multiline(text: str, obj: Node) -> bool:
    if not obj.members:
        return True  # an empty object opens into lines when a member goes in
    return "\n" in text[obj.start:obj.members[-1].start]


def render(value: Any, indent: str, unit: str, nl: str, multiline: bool) -> str:
    """*value* as JSON text: objects over lines indented from *indent*, arrays and scalars inline."""
    if isinstance(value, dict) and value:
        if not multiline:
            return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {render(v, indent, unit, nl, False)}"
                                   for k, v in value.items()) + "}"
        inner = indent + unit
        body = ("," + nl).join(f"{inner}{json.dumps(k, ensure_ascii=False)}: {render(v, inner, unit, nl, True)}"
                               for k, v in value.items())
        return "{" + nl + body + nl + indent + "}"
    if isinstance(value, list):
        return "[" + ", ".join(render(v, indent, unit, nl, False) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------- edits

def insert_member(text: str, obj: Node, key: str, value: Any) -> str:
    """*text* with `"key": value` added as the last member of *obj* (which has no *key*)."""
    nl, unit = newline_of(text), indent_unit(text)
    if obj.members:
        last = obj.members[-1]
        if not _is_multiline(text, obj):
            member = f", {json.dumps(key, ensure_ascii=False)}: {render(value, '', unit, nl, False)}"
            return text[:last.end] + member + text[last.end:]
        indent = _indent_at(text, last.start)
        if indent is None:
            indent = _line_indent(text, obj.start) + unit
        member = f"{json.dumps(key, ensure_ascii=False)}: {render(value, indent, unit, nl, True)}"
        # the comma right after the last value; the member after whatever ends that line (a comment)
        eol = text.find("\n", last.end)
        rest = text[last.end:eol if eol != -1 else len(text)]
        if eol == -1 or not _only_comments(rest):
            return text[:last.end] + "," + nl + indent + member + text[last.end:]
        cut = eol - 1 if text[eol - 1:eol] == "\r" else eol
        return text[:last.end] + "," + text[last.end:cut] + nl + indent + member + text[cut:]
    outer = _line_indent(text, obj.start)
    inner = outer + unit
    member = f"{json.dumps(key, ensure_ascii=False)}: {render(value, inner, unit, nl, True)}"
    inside = text[obj.start + 1:obj.end - 1]
    if not inside.strip():
        return text[:obj.start + 1] + nl + inner + member + nl + outer + text[obj.end - 1:]
    return text[:obj.start + 1] + nl + inner + member + inside + text[obj.end - 1:]


def _strip_comments(s: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", s, flags=re.S)


def _only_comments(s: str) -> bool:
    return not _strip_comments(s).strip()


def delete_member(text: str, obj: Node, key: str) -> str:
    """*text* without *obj*'s member *key* (the undo of `insert_member` where that made it)."""
    index = max(i for i, m in enumerate(obj.members) if m.key == key)
    member = obj.members[index]
    if index > 0 and index == len(obj.members) - 1:
        comma = obj.members[index - 1].comma
        assert comma is not None
        start = member.start
        indent = _indent_at(text, member.start)
        if indent is not None:  # on a line of its own: its line break goes with it
            start = _line_start(text, member.start) - 1
            if text[start - 1:start] == "\r":
                start -= 1
            start = max(start, comma + 1)
        else:
            start = comma + 1
        return text[:comma] + text[comma + 1:start] + text[member.end:]
    if index < len(obj.members) - 1:
        nxt = obj.members[index + 1]
        start = member.start
        if _indent_at(text, member.start) is not None and _indent_at(text, nxt.start) is not None:
            start = _line_start(text, member.start)
            comma = member.comma
            assert comma is not None
            eol = text.find("\n", comma)
            end = eol + 1 if eol != -1 and not text[comma + 1:eol].strip() else comma + 1
            if end <= nxt.start:
                return text[:start] + text[end:]
        return text[:start] + text[nxt.start:]
    # the only member: the object closes again (`{}`), or gets back the comments it held
    before = text[obj.start + 1:member.start]
    after = text[member.end:obj.end - 1]
    if not after.strip():
        return text[:obj.start + 1] + text[obj.end - 1:]
    start = obj.start + 1 if not before.strip() else member.start
    return text[:start] + text[member.end:]


def replace_value(text: str, node: Node, value: Any) -> str:
    """*text* with *node*'s value replaced by *value*, laid out like its surroundings."""
    nl, unit = newline_of(text), indent_unit(text)
    indent = _line_indent(text, node.start)
    multiline = isinstance(value, dict) and "\n" in text[node.start:node.end]
    return text[:node.start] + render(value, indent, unit, nl, multiline) + text[node.end:]


def settings_object(path, text: str) -> Node:
    """A settings file's text as a JSON-with-comments object (an empty file is `{}`);
    `SymbolpackError` naming *path* when it is not one (the host installers' shared check)."""
    from ...base.errors import SymbolpackError

    try:
        root = parse(text if text.strip() else "{}")
    except JsoncError as exc:
        raise SymbolpackError(f"{path}: not valid JSON with comments ({exc}); "
                              f"fix it by hand, then run this again") from None
    if not root.is_object:
        raise SymbolpackError(f"{path}: not a JSON object; fix it by hand, then run this again")
    return root
