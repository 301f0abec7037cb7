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
from pathlib import Path

from ..engine.index import looks_binary, sha256_hex
from ..base.workspace import sha256_hasher
from ..engine.languages import has_query, language_for_source, query_version
from ..state.snapshot import MAX_GRAPH_BYTES
from ..engine.sources import is_sensitive
from .records import EDGE_KINDS, TYPE_ARGS, CallSite, FileFacts, ImportBinding, node_text

_MEMBER_TYPES = frozenset({
    "attribute", "member_expression", "selector_expression", "field_expression",
    "scoped_identifier", "scoped_type_identifier", "qualified_type", "navigation_expression",
    "member_access_expression", "field_access", "dot_index_expression", "method_index_expression",
    "qualified_identifier", "nested_type_identifier", "scoped_call_expression",
    "class_constant_access_expression", "method_reference",
})
_RECEIVER_FIELDS = ("object", "operand", "value", "path", "scope", "package", "module", "namespace", "table")
_SIMPLE_RECEIVER = re.compile(r"(?:[A-Za-z_$@][\w$]*|super\(\))(?:(?:\.|::)[A-Za-z_$][\w$]*)*")


@functools.lru_cache(maxsize=1)
def graph_version() -> str:
    """Part of every graph-cache key: a change to the code that extracts facts or
    resolves edges never serves old ones."""
    here = Path(__file__).parent
    digest = sha256_hasher()
    for path in [here / "facts.py", here / "records.py", here / "callgraph.py", *sorted((here / "resolve").glob("*.py"))]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def _reference_query(lang: str, data: bytes):
    """The language's whole query for *data*, the one the symbols' parse uses:
    compiling a query costs ~90 ms for TypeScript, so facts share it rather than
    compile a copy with only the `@reference.*` patterns (`extract_facts` skips the
    matches that define)."""
    from ..engine.languages import parser_and_query

    return parser_and_query(lang, True, data)[1]


def _normalize_receiver(node) -> str:
    text = "".join(node_text(node).split()).replace("?.", ".").replace("->", ".")
    prev = None
    while prev != text:  # type arguments only: `Vec::<u8>::new`; `xs[0].f()` stays an expression
        prev, text = text, TYPE_ARGS.sub("", text)
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
    from ..engine.languages import parser

    return parser(lang).parse(data)


def extract_facts(data: bytes, lang: str,
                  tree=None) -> tuple[tuple[CallSite, ...], tuple[ImportBinding, ...], str | None]:
    """Call sites (with receivers), import bindings and package of *data* (from *tree*
    when the caller parsed it already)."""
    from tree_sitter import QueryCursor

    from ..engine.languages import parser
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
            calls[key] = CallSite(node_text(node), node.start_point[0] + 1, kind, receiver_of(node))
    ordered = tuple(calls[k] for k in sorted(calls))
    imports, package = resolver_class(lang).extract_imports(tree.root_node)
    return ordered, tuple(imports), package


def file_facts(index, cache, stats, path: str, data: bytes) -> FileFacts:
    """Facts of *data* as *path*, through the facts cache (*cache* may be None). A
    sensitive file (by name) or one that is not UTF-8 text gets none: nothing of it
    is parsed or cached, so no slice can show it. *stats* counts parses and hits."""
    lang = language_for_source(path, data)
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
    from ..engine.index import DiskCache

    return DiskCache(directory, size_limit=2**29, label="call-graph cache")
