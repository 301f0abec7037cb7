"""What one file says, from its bytes alone: symbols, call sites, import bindings, package.

Call sites are the `@reference.call`, `@reference.class` and `@reference.macro`
captures of `queries/<lang>.scm`, each with its receiver (`self`, `cart`, `pkg`,
`a::b`, or none). Import bindings and the package come from the language's
resolver (`resolve/<family>.py`). Facts are keyed by content hash, query version
and `graph_version()` in the call-graph cache: path-independent, never stale.
"""

from __future__ import annotations

import functools
import re
from collections import namedtuple
from pathlib import Path

from .index import looks_binary, sha256_hex
from .workspace import sha256_hasher
from .languages import has_query, language_for_path, query_version
from .snapshot import MAX_GRAPH_BYTES
from .sources import is_sensitive
from .symbols import CLASS_LIKE, SymbolSlice, split_lines

EDGE_KINDS = frozenset({"call", "class", "macro"})
TYPE_KINDS = CLASS_LIKE | {"type"}
CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro"})

_MEMBER_TYPES = frozenset({
    "attribute", "member_expression", "selector_expression", "field_expression",
    "scoped_identifier", "scoped_type_identifier", "qualified_type", "navigation_expression",
    "member_access_expression", "field_access", "dot_index_expression", "method_index_expression",
    "qualified_identifier", "nested_type_identifier", "scoped_call_expression",
    "class_constant_access_expression", "method_reference",
})
_RECEIVER_FIELDS = ("object", "operand", "value", "path", "scope", "package", "module", "namespace", "table")
_SIMPLE_RECEIVER = re.compile(r"(?:[A-Za-z_$@][\w$]*|super\(\))(?:(?:\.|::)[A-Za-z_$][\w$]*)*")
_GENERIC_ARGS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")
_TYPE_ARGS = re.compile(r"<[^<>]*>")


@functools.lru_cache(maxsize=1)
def graph_version() -> str:
    """Part of every graph-cache key: a change to the code that extracts facts or
    resolves edges never serves old ones."""
    here = Path(__file__).parent
    digest = sha256_hasher()
    for path in [here / "facts.py", here / "callgraph.py", *sorted((here / "resolve").glob("*.py"))]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


# Values here are namedtuples and a plain class, not dataclasses: this module is
# on the start-up path of every `diff-context` and `context` process, where the
# `dataclasses` import (inspect, ast, dis, tokenize) and dataclass creation cost
# ~12 ms.
class CallSite(namedtuple("CallSite", ["name", "line", "kind", "receiver"])):
    """One use of a name: `receiver.name(...)` (receiver None for a bare name)."""

    __slots__ = ()

    name: str
    line: int
    kind: str  # call | class | macro
    receiver: str | None  # "<expr>" when it is not a plain name path


class ImportBinding(namedtuple("ImportBinding", ["local", "module", "member", "line"])):
    """A name a file binds by importing: `local` stands for `member` of `module`."""

    __slots__ = ()

    local: str  # "*" for a wildcard import
    module: str  # as written: "..pkg.mod", "./util", "github.com/a/b", "crate::a", "a.b.C"
    member: str | None  # None when the module itself is bound; "default" for JS default imports
    line: int


class FileFacts:
    """Symbols, call sites, imports and package of one file's bytes (never changed once
    built; the indexes below are computed on first use)."""

    __slots__ = ("path", "language", "sha256", "data", "symbols", "calls", "imports", "package", "parsed",
                 "_lines", "_by_id", "_by_name", "_by_qual")

    def __init__(self, path: str, language: str | None, sha256: str, data: bytes,
                 symbols: tuple[SymbolSlice, ...] = (), calls: tuple[CallSite, ...] = (),
                 imports: tuple[ImportBinding, ...] = (), package: str | None = None,
                 parsed: bool = False) -> None:
        self.path = path
        self.language = language
        self.sha256 = sha256
        self.data = data
        self.symbols = symbols
        self.calls = calls
        self.imports = imports
        self.package = package
        self.parsed = parsed
        self._lines: list[bytes] | None = None
        self._by_id: dict[str, SymbolSlice] | None = None
        self._by_name: dict[str, list[SymbolSlice]] | None = None
        self._by_qual: dict[str, list[SymbolSlice]] | None = None

    @property
    def lines(self) -> list[bytes]:
        if self._lines is None:
            self._lines = split_lines(self.data)
        return self._lines

    @property
    def by_id(self) -> dict[str, SymbolSlice]:
        if self._by_id is None:
            self._by_id = {s.id: s for s in self.symbols}
        return self._by_id

    @property
    def by_name(self) -> dict[str, list[SymbolSlice]]:
        if self._by_name is None:
            out: dict[str, list[SymbolSlice]] = {}
            for s in self.symbols:
                out.setdefault(s.name, []).append(s)
            self._by_name = out
        return self._by_name

    @property
    def by_qual(self) -> dict[str, list[SymbolSlice]]:
        if self._by_qual is None:
            out: dict[str, list[SymbolSlice]] = {}
            for s in self.symbols:
                out.setdefault(_base_qual(s.qualname), []).append(s)
            self._by_qual = out
        return self._by_qual

    def innermost(self, line: int) -> SymbolSlice | None:
        """The smallest symbol whose span holds *line*."""
        best = None
        for s in self.symbols:
            if s.lines[0] <= line <= s.lines[1]:
                if best is None or s.lines[1] - s.lines[0] <= best.lines[1] - best.lines[0]:
                    best = s
        return best


def _base_qual(qualname: str) -> str:
    return qualname.split("#", 1)[0]


def _type_name(text: str) -> str:
    """`impl Display for Cart<T>` -> `Cart`; `Pair[K]` -> `Pair`; `a.b.Outer.Inner` -> `Inner`."""
    text = text.strip()
    if text.startswith("impl "):
        text = text[5:]
        if " for " in text:
            text = text.rsplit(" for ", 1)[1]
    prev = None
    while prev != text:
        prev, text = text, _GENERIC_ARGS.sub("", text)
    text = text.strip().lstrip("*&").strip()
    return re.split(r"\.|::", text)[-1].strip() if text else text


def owner_type(sym: SymbolSlice, facts: FileFacts) -> SymbolSlice | str | None:
    """The type a method belongs to: its enclosing class-like symbol, or (Go
    receivers, C++ `Type::m`) the type named in its qualname."""
    parent = facts.by_id.get(sym.parent) if sym.parent else None
    while parent is not None:
        if parent.kind in CLASS_LIKE:
            return parent
        parent = facts.by_id.get(parent.parent) if parent.parent else None
    if sym.kind in ("method", "constructor") and "." in _base_qual(sym.qualname):
        return _type_name(_base_qual(sym.qualname).rsplit(".", 1)[0])
    return None


def _reference_query(lang: str, data: bytes):
    """The language's whole query for *data*, the one the symbols' parse uses:
    compiling a query costs ~90 ms for TypeScript, so facts share it rather than
    compile a copy with only the `@reference.*` patterns (`extract_facts` skips the
    matches that define)."""
    from .languages import parser_and_query

    return parser_and_query(lang, True, data)[1]


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _normalize_receiver(node) -> str:
    text = "".join(_text(node).split()).replace("?.", ".").replace("->", ".")
    prev = None
    while prev != text:  # type arguments only: `Vec::<u8>::new`; `xs[0].f()` stays an expression
        prev, text = text, _TYPE_ARGS.sub("", text)
    text = text.lstrip("&*")
    return text if _SIMPLE_RECEIVER.fullmatch(text) else "<expr>"


def receiver_of(name_node) -> str | None:
    """What `name` is called on: the object of its member/selector/path node."""
    parent = name_node.parent
    if parent is None:
        return None
    if parent.type == "method_invocation":  # Java: object field beside name
        obj = parent.child_by_field_name("object")
        return _normalize_receiver(obj) if obj is not None else None
    if parent.type not in _MEMBER_TYPES:
        return None
    for field in _RECEIVER_FIELDS:
        child = parent.child_by_field_name(field)
        if child is not None and child != name_node:
            return _normalize_receiver(child)
    others = [c for c in parent.named_children if c != name_node]
    if others and others[0].start_byte < name_node.start_byte:
        return _normalize_receiver(others[0])
    return None


def parse_tree(data: bytes, lang: str):
    """*data*'s syntax tree, shared by the symbols and the facts of a file neither cache holds."""
    from .languages import parser

    return parser(lang).parse(data)


def extract_facts(data: bytes, lang: str,
                  tree=None) -> tuple[tuple[CallSite, ...], tuple[ImportBinding, ...], str | None]:
    """Call sites (with receivers), import bindings and package of *data* (from *tree*
    when the caller parsed it already)."""
    from tree_sitter import QueryCursor

    from .languages import parser
    from .resolve import resolver_class

    if tree is None:
        tree = parser(lang).parse(data)
    calls: dict[tuple, CallSite] = {}
    for _, caps in QueryCursor(_reference_query(lang, data)).matches(tree.root_node):
        names = caps.get("name")
        if not names:
            continue
        kind = next((c.split(".", 1)[1] for c in caps if c.startswith("reference.")), None)
        if kind not in EDGE_KINDS:
            continue
        node = names[0]
        key = (node.start_byte, node.end_byte)
        if key not in calls:
            calls[key] = CallSite(_text(node), node.start_point[0] + 1, kind, receiver_of(node))
    ordered = tuple(calls[k] for k in sorted(calls))
    imports, package = resolver_class(lang).extract_imports(tree.root_node)
    return ordered, tuple(imports), package


def file_facts(index, cache, stats, path: str, data: bytes) -> FileFacts:
    """Facts of *data* as *path*, through the facts cache (*cache* may be None). A
    sensitive file (by name) or one that is not UTF-8 text gets none: nothing of it
    is parsed or cached, so no slice can show it. *stats* counts parses and hits."""
    lang = language_for_path(path)
    if is_sensitive(path, index.settings.sensitive):
        return FileFacts(path, lang, sha256_hex(b""), b"")
    sha = sha256_hex(data)
    if not has_query(lang) or looks_binary(data) or len(data) > MAX_GRAPH_BYTES or not _is_utf8(data):
        return FileFacts(path, lang, sha, data)
    key = f"facts:{graph_version()}:{query_version(lang)}:{sha}"
    value = cache.get(key) if cache else None
    tree = None
    if value is None:  # one parse for the facts and, when the parse cache misses too, the symbols
        try:
            tree = parse_tree(data, lang)
        except Exception:  # a broken grammar: the symbols' own parse reports it
            tree = None
    fs = index.symbols_for_bytes(path, data, lang, tree)
    if not fs.parsed:
        return FileFacts(path, lang, sha, data)
    if value is None:
        try:
            calls, imports, package = extract_facts(data, lang, tree)
        except Exception:  # a broken grammar must not break a context pack
            calls, imports, package = (), (), None
        stats.facts_parsed += 1
        if cache:
            cache.set(key, ([tuple(c) for c in calls], [tuple(i) for i in imports], package))
    else:
        stats.facts_cached += 1
        calls = tuple(CallSite(*c) for c in value[0])
        imports = tuple(ImportBinding(*i) for i in value[1])
        package = value[2]
    return FileFacts(path, lang, sha, data, fs.symbols, calls, imports, package, True)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def graph_cache(directory: Path):
    """The call-graph cache: facts and edges by content hash; a fault means a rebuild."""
    from .index import DiskCache

    return DiskCache(directory, size_limit=2**29, label="call-graph cache")
