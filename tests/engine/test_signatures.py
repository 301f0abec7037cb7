"""A signature is its symbol's header and nothing of its body (issue 29).

`tldrs extract` on httpx gave `def as_dict(self) -> dict[str, float | None]:` plus the
`return` of the next line, and a property setter's signature ended in
`self._event_hooks =`: a body whose first line ended in `{` lent that line to the
header. The same happened in every language whose bodies can open with an expression
(`= when {`, `=> ({`, `= synchronized {`, `-> #{`), and a definition whose body is not
one node (Haskell's guards, `macro_rules!` with several rules, an empty Ruby `def`)
had its whole text as its signature.

For every symbol of every fixture in `signatures/` (one file per language, written in
the shapes real projects use) and of the per-language fixtures in `languages/`:

1. the signature is the symbol's own text: from a line inside the symbol's span, the
   file's text (each line's trailing blanks dropped) starts with it;
2. it holds no token of the body. The body is found here from the syntax tree, by the
   rules below (`body_of`, `body_start`), not by the engine's code;
3. it is the whole header: between its end and the body's start there are only
   blanks, comments and an opening brace;
4. a definition with no body does not end in the `end` that closes it;
5. a constant, variable or field has no body: its signature stays on its first line
   (down to the line of its name, when the name comes later), the value only as far
   as that line shows it. docs/PROTOCOL.md says no more of a signature than its
   examples (`def total(self) -> int:`); these rules are the engine's docstring's.
"""

from __future__ import annotations

import collections
import importlib
import re
import textwrap
from pathlib import Path

import pytest

from symbolpack.engine.languages import language_for_path, parser, supported_languages
from symbolpack.engine.symbols import extract, line_starts, split_lines

FIXTURES = Path(__file__).parent / "signatures"
LANGUAGE_TESTS = Path(__file__).parent / "languages"

ASSIGNMENT_KINDS = frozenset({"constant", "variable", "field"})

# A definition's body is some node's `body` field or, where a grammar gives it no such
# field, a node of one of these types (found breadth-first from the definition node,
# so a lambda in a parameter's default value is never taken for it).
BODY_TYPES: dict[str, frozenset[str]] = collections.defaultdict(frozenset, {
    "c": frozenset({"preproc_arg"}),  # `#define SQUARE(x) ((x) * (x))`: the value
    "cpp": frozenset({"preproc_arg"}),
    "csharp": frozenset({"accessor_list", "arrow_expression_clause"}),
    "dart": frozenset({"function_body", "class_body"}),  # a mixin's `class_body` is no `body` field
    "elixir": frozenset({"do_block", "keywords"}),  # `do ... end` and `, do: expr` (only `do:` keywords)
    "go": frozenset({"field_declaration_list", "interface_type"}),
    "haskell": frozenset({"match", "class_declarations", "instance_declarations"}),
    "julia": frozenset({"block"}),
    "kotlin": frozenset({"function_body", "class_body", "enum_class_body", "statements"}),
    "rust": frozenset({"macro_rule"}),
    "swift": frozenset({"computed_property", "protocol_property_requirements"}),
    "tsx": frozenset({"object_type"}),  # `type Props = { ... }` (only as the alias's value)
    "typescript": frozenset({"object_type"}),
    "zig": frozenset({"Block", "ContainerDecl", "ErrorSetDecl"}),
})

# A body that opens with its own keywords and then a brace starts at the brace: the
# keywords say what is declared (`type Shape interface {`, Zig's `packed struct(u32) {`
# and `enum(u8) {`, Dart's `async {` and `async* {`).
KEYWORDS_BEFORE_BRACE = {
    "go": re.compile(rb"interface\s*\{"),
    "zig": re.compile(rb"(?:(?:extern|packed)\s+)?(?:struct|enum|union|opaque|error)(?:\s*\([^)]*\))?\s*\{"),
    "dart": re.compile(rb"(?:async|sync)\*?\s*\{"),
}


_HEADER_LISTS = re.compile("argument|parameter|initializer")  # a lambda in them is not the body


def _leaves(node):
    if node.child_count == 0:
        yield node
    for child in node.children:
        yield from _leaves(child)


def _is_body_type(node, lang: str) -> bool:
    if node.type == "keywords" and lang == "elixir":
        return (node.text or b"").startswith(b"do:")  # `defstruct items: []` has fields, not a body
    if node.type == "object_type":  # not `T extends { length: 0 } ? ...`
        return node.parent is not None and node.parent.type == "type_alias_declaration"
    if node.type == "statements":  # a secondary constructor's `{ ... }`, not a lambda's
        return node.parent is not None and node.parent.type == "secondary_constructor"
    if node.type == "interface_type" and lang == "go":  # `type Shape interface {`, not `v interface{}`
        return node.parent is not None and node.parent.type == "type_spec"
    return node.type in BODY_TYPES[lang]


def _is_body_of(parent, child) -> bool:
    return any(parent.field_name_for_child(i) == "body" and parent.child(i) == child
               for i in range(parent.child_count))


def definition_node(root, sig_start: int, sig_end: int, name: str, span_end: int):
    """The smallest named node holding the signature's first token and the symbol's
    name (its first token in the signature spelt like the name), widened to parents
    that start where it starts and end inside the symbol's span (an `export` or an
    expression statement around it), never to a node it is the body of."""
    first = root.descendant_for_byte_range(sig_start, sig_start + 1)
    name_leaf = next((leaf for leaf in _leaves(root.descendant_for_byte_range(sig_start, sig_end))
                      if sig_start <= leaf.start_byte and leaf.end_byte <= sig_end
                      and leaf.text.decode("utf-8", "replace") == name), None)
    node = first
    while node.parent is not None and (
            node.child_count == 0 or not node.is_named
            or (name_leaf is not None and not (node.start_byte <= name_leaf.start_byte
                                               and name_leaf.end_byte <= node.end_byte))):
        node = node.parent
    while (node.parent is not None and node.parent.parent is not None  # never the whole file
           and node.parent.start_byte == node.start_byte and node.parent.end_byte <= span_end
           and not _is_body_of(node.parent, node)):
        node = node.parent
    return node


def body_of(definition, lang: str):
    """Breadth-first from the definition node: the first `body` field or node of a body
    type, not looking inside argument, parameter or initializer lists (a lambda there
    is not the definition's body). Julia's `f(x) = expr` has its right-hand side for a
    body. A definition with none may have its body beside it (Dart, Zig: a function's
    body is the node after its signature, or after an ancestor of it ending where it
    ends)."""
    if lang == "julia" and definition.type == "assignment":
        return definition.named_child(definition.named_child_count - 1)
    queue = collections.deque([definition])
    while queue:
        node = queue.popleft()
        for i in range(node.child_count):
            child = node.child(i)
            if node.field_name_for_child(i) == "body" or _is_body_type(child, lang):
                return child
        queue.extend(child for child in node.children if not _HEADER_LISTS.search(child.type))
    node = definition
    while node is not None:
        sibling = node.next_named_sibling
        if sibling is not None and _is_body_type(sibling, lang):
            return sibling
        if node.parent is None or node.parent.end_byte != node.end_byte:
            break
        node = node.parent
    return None


def body_start(body, lang: str, data: bytes) -> int:
    """The body's first byte, or its brace after the keywords of KEYWORDS_BEFORE_BRACE."""
    keywords = KEYWORDS_BEFORE_BRACE.get(lang)
    if keywords is not None:
        opened = keywords.match(data, body.start_byte, body.end_byte)
        if opened is not None:
            return opened.end() - 1
    return body.start_byte


def _is_comment(node) -> bool:
    return "comment" in node.type or node.type == "haddock"


def _only_blanks_and_comments(node, start: int, end: int) -> bool:
    """Whether the file's bytes start..end under *node* hold nothing but blanks,
    comments and an opening brace (what may lie between a header and its body)."""
    if node.end_byte <= start or end <= node.start_byte or _is_comment(node):
        return True
    if node.child_count == 0:
        return node.type == "{"
    return all(_only_blanks_and_comments(child, start, end) for child in node.children)


def locate(signature: str, lines: list[bytes], span: tuple[int, int]) -> tuple[int, int] | None:
    """(0-based row, byte column) where the file's text, each line right-stripped,
    starts with *signature*, searching the symbol's span; None when nowhere."""
    wanted = signature.encode()
    first = wanted.split(b"\n", 1)[0]
    count = wanted.count(b"\n") + 1
    for row in range(span[0] - 1, min(span[1], len(lines))):
        col = lines[row].find(first)
        while col >= 0:
            text = b"\n".join([lines[row][col:].rstrip()]
                               + [line.rstrip() for line in lines[row + 1:row + count]])
            if text.startswith(wanted):
                return row, col
            col = lines[row].find(first, col + 1)
    return None


def signature_problems(data: bytes, lang: str) -> list[str]:
    """Every way a signature of *data*'s symbols breaks the three rules above."""
    records, _ = extract(data, lang, references=False)
    assert records, f"{lang}: no symbols"
    tree = parser(lang).parse(data)
    lines = split_lines(data)
    offsets = line_starts(lines)
    problems = []
    for r in records:
        where = locate(r.signature, lines, r.lines)
        if where is None:
            problems.append(f"{r.local_id}: {r.signature!r} is not the symbol's own text")
            continue
        row, col = where
        start = offsets[row] + col
        sig_lines = r.signature.encode().split(b"\n")
        end = (start + len(sig_lines[0]) if len(sig_lines) == 1
               else offsets[row + len(sig_lines) - 1] + len(sig_lines[-1]))
        definition = definition_node(tree.root_node, start, end, r.name, offsets[min(r.lines[1], len(lines))])
        if definition.type == "pp_define" and lang == "erlang":
            continue  # `-define(MAX_ITEMS, 50).`: the replacement is in the signature (languages/test_erlang)
        if r.kind in ASSIGNMENT_KINDS:
            name_row = next((leaf.start_point[0] for leaf in _leaves(definition)
                             if start <= leaf.start_byte < end
                             and leaf.text.decode("utf-8", "replace") == r.name), row)
            if row + len(sig_lines) - 1 > max(row, name_row):
                problems.append(f"{r.local_id} ({r.kind}): {r.signature!r} runs past its first line")
            continue
        body = body_of(definition, lang)
        if body is not None:
            opens = body_start(body, lang, data)
            if end > opens:
                problems.append(f"{r.local_id}: {r.signature!r} reaches into its body "
                                f"({data[opens:opens + 30]!r}...)")
            elif not _only_blanks_and_comments(tree.root_node, end, opens):
                problems.append(f"{r.local_id}: {r.signature!r} stops short of its body "
                                f"({data[end:opens]!r} left out)")
            continue
        last = definition.child(definition.child_count - 1) if definition.child_count else None
        if last is not None and last.type == "end" and end >= last.end_byte:
            problems.append(f"{r.local_id}: {r.signature!r} holds the `end` that closes it")
    return problems


def _fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.is_file())


def test_every_supported_language_has_a_signature_fixture():
    assert sorted(language_for_path(p) for p in _fixtures()) == supported_languages()


@pytest.mark.parametrize("path", _fixtures(), ids=lambda p: p.name)
def test_signatures_hold_no_token_of_their_bodies(path):
    lang = language_for_path(path)
    assert signature_problems(path.read_bytes(), lang) == []


@pytest.mark.parametrize("lang", sorted(p.stem[len("test_"):] for p in LANGUAGE_TESTS.glob("test_*.py")
                                        if p.stem != "test_all_languages"))
def test_the_language_fixtures_signatures_hold_no_token_of_their_bodies(lang):
    source = importlib.import_module(f"languages.test_{lang}").SOURCE  # the name pytest gives it
    assert signature_problems(textwrap.dedent(source).lstrip("\n").encode(), lang) == []


# The shapes that broke, each in a few lines: (language, source, symbol, its signature).
SHAPES = [
    # httpx/_config.py, Timeout.as_dict: the body's first line ended in `{`
    ("python", '''
     class Timeout:
         def as_dict(self) -> dict[str, float | None]:
             return {
                 "connect": self.connect,
             }
     ''', "Timeout.as_dict", "def as_dict(self) -> dict[str, float | None]:"),
    # httpx/_client.py, BaseClient.event_hooks#2: the property's setter (a method)
    ("python", '''
     class BaseClient:
         @property
         def event_hooks(self) -> dict[str, list[EventHook]]:
             return self._event_hooks

         @event_hooks.setter
         def event_hooks(self, event_hooks: dict[str, list[EventHook]]) -> None:
             self._event_hooks = {
                 "request": list(event_hooks.get("request", [])),
             }
     ''', "BaseClient.event_hooks#2", "def event_hooks(self, event_hooks: dict[str, list[EventHook]]) -> None:"),
    # httpx/_auth.py, DigestAuth: a class whose first statement opens a dict
    ("python", '''
     class DigestAuth(Auth):
         _ALGORITHM_TO_HASH_FUNCTION: dict[str, typing.Callable[[bytes], _Hash]] = {
             "MD5": hashlib.md5,
         }
     ''', "DigestAuth", "class DigestAuth(Auth):"),
    ("python", 'def headers(): return {\n    "accept": "*/*",\n}\n', "headers", "def headers():"),
    ("javascript", "const mapState = (state) => ({\n  user: state.user,\n});\n", "mapState",
     "const mapState = (state) =>"),
    ("typescript", "export const delay = (ms: number): Promise<void> => new Promise(resolve => {\n"
                   "  setTimeout(resolve, ms);\n});\n", "delay", "export const delay = (ms: number): Promise<void> =>"),
    ("tsx", "export const createStore = (n: number) => (set: Setter) => ({\n  count: n,\n});\n", "createStore",
     "export const createStore = (n: number) =>"),
    ("kotlin", "fun minTimeout(a: Long, b: Long) = when {\n  a == 0L -> b\n  else -> a\n}\n", "minTimeout",
     "fun minTimeout(a: Long, b: Long)"),
    ("scala", "object Proc {\n  def bytes: Array[Byte] = synchronized {\n    Array.emptyByteArray\n  }\n}\n",
     "Proc.bytes", "def bytes: Array[Byte] ="),
    ("ruby", "class Base\n  def engines\n    engines = {\n      css: []\n    }\n  end\nend\n", "Base.engines",
     "def engines"),
    ("ruby", "class Base\n  def noop\n  end\n\n  def hook; end\nend\n", "Base.noop", "def noop"),
    ("ruby", "class Base\n  def noop\n  end\n\n  def hook; end\nend\n", "Base.hook", "def hook"),
    ("elixir", "defmodule Conn do\n  def headers(conn) do %{\n      \"accept\" => conn.accept\n    }\n  end\nend\n",
     "Conn.headers", "def headers(conn)"),
    ("erlang", "-module(req).\nto_map(Req) -> #{\n    method => Req\n}.\n", "req.to_map", "to_map(Req)"),
    ("ocaml", "let sexp_of_t t =\n  sexp_of_t {\n    path = t.path;\n  }\n", "sexp_of_t", "let sexp_of_t t ="),
    ("go", "func (p Pair) Swap() Pair { return Pair{\n\tA: p.B,\n} }\n", "Pair.Swap", "func (p Pair) Swap() Pair"),
    ("go", "type Empty interface{}\n", "Empty", "type Empty interface"),  # as `interface {` on its own line
    ("rust", "fn empty() -> Chain { Chain {\n    next: None,\n} }\n", "empty", "fn empty() -> Chain"),
    ("rust", "macro_rules! bail {\n    ($msg:literal) => { return Err(msg!($msg)) };\n    // an error value\n"
             "    ($err:expr) => { return Err($err) };\n}\n", "bail", "macro_rules! bail"),
    ("haskell", "digits :: Int -> String\ndigits n\n  | n < 10 = '0' : show n -- one digit\n  | otherwise = show n\n",
     "digits#2", "digits n"),
    ("haskell", "instance Encode Zone where\n  encode z = build z\n    where\n      build = show\n",
     "impl Encode for Zone.encode", "encode z"),
    ("dart", "class Event {\n  Map<String, int> toJson() => <String, int>{\n    'at': 1,\n  };\n}\n", "Event.toJson",
     "Map<String, int> toJson()"),
    # these two held before; the rule that replaced the one that broke must keep them
    ("dart", "Stream<int> count() async* {\n  yield 1;\n}\n", "count", "Stream<int> count() async*"),
    ("zig", "const Flags = packed struct(u32) {\n    dirty: bool,\n};\n", "Flags", "const Flags = packed struct(u32)"),
    ("zig", "const Mode = enum { debug, release };\n", "Mode", "const Mode = enum"),  # as `enum {` on its own line
    ("julia", "function noop() end\n", "noop", "function noop()"),
    ("lua", "local function defaults() return {\n    indent = 2,\n  }\nend\n", "defaults", "local function defaults()"),
    ("r", "read_template <- function(path) tryCatch({\n  readLines(path)\n}, error = function(e) character())\n",
     "read_template", "read_template <- function(path)"),
    ("bash", 'require_cmd() { command -v "$1" >/dev/null || {\n    echo "$1 is required" >&2\n  }\n}\n',
     "require_cmd", "require_cmd()"),
    ("c", "int parse(const char *s) { if (s == NULL) {\n    return -1;\n  }\n  return 0;\n}\n", "parse",
     "int parse(const char *s)"),
    ("java", "class Gson {\n  Map<String, Object> describe() { return new HashMap<>() {{\n"
             "    put(\"a\", 1);\n  }}; }\n}\n", "Gson.describe", "Map<String, Object> describe()"),
    ("csharp", "class Retry {\n    public IDictionary<string, int> Describe() { return new Dictionary<string, int> {\n"
               "        [\"a\"] = 1,\n    }; }\n}\n", "Retry.Describe", "public IDictionary<string, int> Describe()"),
    ("php", "<?php\nfunction load(array $c): array { if (isset($c['a'])) {\n        return $c;\n    }\n"
            "    return [];\n}\n", "load", "function load(array $c): array"),
    ("swift", "func cancelAll() { queue.async {\n    self.cancel()\n} }\n", "cancelAll", "func cancelAll()"),
]


@pytest.mark.parametrize("lang, source, local_id, signature", SHAPES,
                         ids=[f"{s[0]}-{s[2]}" for s in SHAPES])
def test_the_shapes_that_broke(lang, source, local_id, signature):
    data = textwrap.dedent(source).lstrip("\n").encode()
    records, _ = extract(data, lang, references=False)
    assert {r.local_id: r.signature for r in records}[local_id] == signature
    assert signature_problems(data, lang) == []


def test_a_body_of_several_nodes_runs_from_the_first_to_the_last():
    """Haskell's guards and a `macro_rules!` with several rules are bodies a skeleton may
    hide; their signatures stop where they start."""
    haskell = (b"digits :: Int -> String\ndigits n\n  | n < 10 = '0' : show n\n  -- the rest\n"
               b"  | otherwise = show n\n  where\n    unused = ()\n")
    records, _ = extract(haskell, "haskell", references=False)
    assert [(r.local_id, r.signature, r.lines, r.body) for r in records] == [
        ("digits", "digits :: Int -> String", (1, 1), None),
        ("digits#2", "digits n", (2, 7), (3, 5)),  # the `where` block stays visible
    ]
    rust = (b"macro_rules! bail {\n    ($msg:literal) => {\n        err!($msg)\n    };\n"
            b"    ($err:expr) => {\n        $err\n    };\n}\n")
    records, _ = extract(rust, "rust", references=False)
    assert [(r.local_id, r.signature, r.lines, r.body) for r in records] == [
        ("bail", "macro_rules! bail", (1, 8), (2, 7)),
    ]
