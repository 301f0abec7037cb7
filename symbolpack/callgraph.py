"""Who calls whom: call sites and imports per file, resolved to symbol ids.

Why this module exists apart from `index`: the parse cache answers "what does
this file define" from the file alone. A call edge also depends on *other*
files (what `from .cart import Cart` names, which file is package `util`), so
edges need their own cache, invalidated by what they looked at.

Two layers, two caches (diskcache under `state_dir(root)/graph`):

* **facts** of one file's bytes: its call sites (the `@reference.call`,
  `@reference.class` and `@reference.macro` captures of `queries/<lang>.scm`,
  each with its receiver: `self`, `cart`, `pkg`, `a::b`, or none), its import
  bindings and its package. Keyed by content hash and query version, like the
  parse cache: path-independent, never stale.
* **edges** of one file: every call site resolved to target ids, or marked
  `ambiguous` / `unresolved`. Keyed by path and content hash, and stored with
  the observations resolution made of the rest of the tree (other files'
  hashes, which module paths exist, directory listings). An entry is reused
  only when every observation still holds, so a change to one file
  re-resolves exactly the files that looked at it.

Resolution is deliberately conservative; an edge is `resolved` only through a
rule that names its target: same-file definitions (nested scopes first),
`self.` / `this.` / `Self::` into the enclosing type (and its bases), calls on
a class name, receivers whose type is written down nearby (a parameter
annotation, `x = Cart()`, `c := &Cart{}`, `Cart c = new Cart()`, a Go method
receiver), and imported names per language (Python `import`/`from`, JS/TS
`import`/`export ... from`/`require`, Go packages, Rust `use`/`mod`, Java
`import`/`package`). Calls on receivers of unknown type stay `unresolved`;
`guess()` may link one to the only method of that name in the tree, labelled
`guessed`, and never for names every codebase has (`get`, `push`, ...).
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from .index import looks_binary, sha256_hex
from .languages import has_query, language_for_path, query_version
from .sources import is_sensitive
from .symbols import CLASS_LIKE, SymbolSlice, split_lines
from .workspace import SymbolpackError

EDGE_KINDS = frozenset({"call", "class", "macro"})
TYPE_KINDS = CLASS_LIKE | {"type"}
CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro"})
SELF_NAMES = frozenset({"self", "this", "$this", "Self", "cls", "@"})
MAX_GRAPH_BYTES = 2 * 1024 * 1024

# Methods nearly every runtime has: a call `x.get()` on an unknown receiver is
# never pinned to the repository's one `get`.
COMMON_METHOD_NAMES = frozenset("""
get set add remove pop push append extend insert update clear copy keys values items
len size length count index find contains has join split strip trim replace format
read write close open flush send recv run start stop next iter map filter reduce forEach
then catch finally resolve reject emit on off call apply bind toString valueOf equals
hashCode compareTo String Error new init main log debug info warn error print println
Printf Sprintf Errorf Println unwrap expect clone into from as_ref to_string is_empty
lower upper encode decode load dump loads dumps sort sorted reverse min max sum
""".split())

FAMILY = {"python": "python", "javascript": "js", "typescript": "js", "tsx": "js",
          "go": "go", "rust": "rust", "java": "java"}
# Languages where a bare `name()` inside a class may be one of its methods.
_BARE_METHOD_CALLS = frozenset({"java", "csharp", "kotlin", "scala", "cpp", "ruby", "dart", "php"})

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
_DEFINITION_PREFIXES = tuple(
    k.encode() + sep
    for k in ("def", "fn", "func", "function", "fun", "class", "struct", "interface", "trait", "enum", "sub",
              "macro_rules!")
    for sep in (b" ", b"\t"))
_JS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts")


@functools.lru_cache(maxsize=1)
def graph_version() -> str:
    """Part of every graph-cache key: a change to this code never serves old edges."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


# --------------------------------------------------------------------------- values

@dataclass(frozen=True)
class CallSite:
    """One use of a name: `receiver.name(...)` (receiver None for a bare name)."""

    name: str
    line: int
    kind: str  # call | class | macro
    receiver: str | None  # "<expr>" when it is not a plain name path


@dataclass(frozen=True)
class ImportBinding:
    """A name a file binds by importing: `local` stands for `member` of `module`."""

    local: str  # "*" for a wildcard import
    module: str  # as written: "..pkg.mod", "./util", "github.com/a/b", "crate::a", "a.b.C"
    member: str | None  # None when the module itself is bound; "default" for JS default imports
    line: int


@dataclass(frozen=True)
class FileFacts:
    path: str
    language: str | None
    sha256: str
    data: bytes
    symbols: tuple[SymbolSlice, ...] = ()
    calls: tuple[CallSite, ...] = ()
    imports: tuple[ImportBinding, ...] = ()
    package: str | None = None
    parsed: bool = False

    @functools.cached_property
    def lines(self) -> list[bytes]:
        return split_lines(self.data)

    @functools.cached_property
    def by_id(self) -> dict[str, SymbolSlice]:
        return {s.id: s for s in self.symbols}

    @functools.cached_property
    def by_name(self) -> dict[str, list[SymbolSlice]]:
        out: dict[str, list[SymbolSlice]] = {}
        for s in self.symbols:
            out.setdefault(s.name, []).append(s)
        return out

    @functools.cached_property
    def by_qual(self) -> dict[str, list[SymbolSlice]]:
        out: dict[str, list[SymbolSlice]] = {}
        for s in self.symbols:
            out.setdefault(_base_qual(s.qualname), []).append(s)
        return out

    def innermost(self, line: int) -> SymbolSlice | None:
        """The smallest symbol whose span holds *line*."""
        best = None
        for s in self.symbols:
            if s.lines[0] <= line <= s.lines[1]:
                if best is None or s.lines[1] - s.lines[0] <= best.lines[1] - best.lines[0]:
                    best = s
        return best


@dataclass(frozen=True)
class Edge:
    """A call site and what it resolved to."""

    path: str
    caller: str | None  # symbol id; None for top-level code of *path*
    line: int
    name: str
    receiver: str | None
    kind: str
    targets: tuple[str, ...]
    status: str  # resolved | ambiguous | unresolved | guessed
    via: str  # the rule that decided it

    def to_json(self) -> dict:
        return {"path": self.path, "caller": self.caller, "line": self.line, "name": self.name,
                "receiver": self.receiver, "kind": self.kind, "targets": list(self.targets),
                "status": self.status, "via": self.via}

    def _pack(self) -> tuple:
        return (self.caller, self.line, self.name, self.receiver, self.kind, self.targets, self.status, self.via)


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


# --------------------------------------------------------------------------- snapshots

def run_git(root: Path, *args: str, stdin: bytes | None = None, check: bool = True) -> bytes:
    """stdout of `git -C root args`; SymbolpackError with git's first line on failure."""
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True)
    except OSError as exc:
        raise SymbolpackError(f"cannot run git: {exc.strerror or exc}") from None
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SymbolpackError(f"git {args[0]} failed: {message[0] if message else 'exit ' + str(proc.returncode)}")
    return proc.stdout


def cat_blobs(root: Path, names: Sequence[str]) -> dict[str, bytes | None]:
    """Contents of git objects (`<sha>` or `<rev>:<path>`) through one `cat-file --batch`."""
    if not names:
        return {}
    names = list(dict.fromkeys(names))
    out = run_git(root, "cat-file", "--batch", stdin=("\n".join(names) + "\n").encode())
    result: dict[str, bytes | None] = {}
    pos = 0
    for name in names:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] in (b"blob", b"commit", b"tree", b"tag"):
            size = int(header[2])
            result[name] = out[pos:pos + size] if header[1] == b"blob" else None
            pos += size + 1
        else:  # "<name> missing" / "ambiguous"
            result[name] = None
    return result


class Snapshot:
    """The files of one tree (the working tree or a commit), read lazily, memoised."""

    def __init__(self) -> None:
        self._data: dict[str, bytes | None] = {}
        self._sha: dict[str, str | None] = {}
        self._paths: list[str] | None = None
        self._path_set: frozenset[str] | None = None
        self._dirs: dict[str, tuple[str, ...]] | None = None

    def paths(self) -> list[str]:
        if self._paths is None:
            self._paths = sorted(self._list())
        return self._paths

    @property
    def path_set(self) -> frozenset[str]:
        if self._path_set is None:
            self._path_set = frozenset(self.paths())
        return self._path_set

    def exists(self, path: str) -> bool:
        return path in self.path_set

    def listdir(self, directory: str) -> tuple[str, ...]:
        """Files directly in *directory* ("" for the root)."""
        if self._dirs is None:
            dirs: dict[str, list[str]] = {}
            for p in self.paths():
                dirs.setdefault(posixpath.dirname(p), []).append(p)
            self._dirs = {d: tuple(v) for d, v in dirs.items()}
        return self._dirs.get(directory, ())

    def read(self, path: str) -> bytes | None:
        if path not in self._data:
            self._data[path] = self._read(path) if self.exists(path) else None
        return self._data[path]

    def read_many(self, paths: Iterable[str]) -> dict[str, bytes | None]:
        return {p: self.read(p) for p in paths}

    def seed(self, path: str, data: bytes) -> None:
        """Use *data* as the content of *path* (bytes the caller already read)."""
        self._data[path] = data
        self._sha.pop(path, None)

    def sha(self, path: str) -> str | None:
        if path not in self._sha:
            data = self.read(path)
            self._sha[path] = sha256_hex(data) if data is not None else None
        return self._sha[path]

    def _list(self) -> list[str]:
        raise NotImplementedError

    def _read(self, path: str) -> bytes | None:
        raise NotImplementedError


class WorkTreeSnapshot(Snapshot):
    """The files `index.walk` keeps (git's tracked + untracked-not-ignored), from disk."""

    def __init__(self, root: Path, paths: Sequence[str] | None = None):
        super().__init__()
        self.root = root
        if paths is not None:
            self._paths = sorted(paths)

    def _list(self) -> list[str]:
        from .index import walk
        from .workspace import display_path

        return [display_path(p, self.root) for p in walk(self.root, self.root).files]

    def _read(self, path: str) -> bytes | None:
        try:
            return (self.root / path).read_bytes()
        except OSError:
            return None


class GitTreeSnapshot(Snapshot):
    """The blobs of one commit, read through `git cat-file --batch`."""

    def __init__(self, root: Path, rev: str):
        super().__init__()
        self.root = root
        self.rev = rev
        self._blob: dict[str, str] = {}

    def _list(self) -> list[str]:
        out = run_git(self.root, "ls-tree", "-r", "-z", "-l", "--full-tree", self.rev)
        paths = []
        for entry in out.split(b"\0"):
            if not entry:
                continue
            meta, path = entry.split(b"\t", 1)
            mode, kind, sha, size = meta.split()
            if kind != b"blob" or mode == b"120000" or size == b"-" or int(size) > MAX_GRAPH_BYTES:
                continue
            rel = path.decode("utf-8", "surrogateescape")
            self._blob[rel] = sha.decode()
            paths.append(rel)
        return paths

    def read_many(self, paths: Iterable[str]) -> dict[str, bytes | None]:
        todo = [p for p in paths if p not in self._data and self.exists(p)]
        if todo:
            blobs = cat_blobs(self.root, [self._blob[p] for p in todo])
            for p in todo:
                self._data[p] = blobs.get(self._blob[p])
        return {p: self.read(p) for p in paths}

    def _read(self, path: str) -> bytes | None:
        return self.read_many([path])[path]


# --------------------------------------------------------------------------- facts

@functools.lru_cache(maxsize=None)
def _reference_query(lang: str):
    """The language's query with only its `@reference.*` patterns enabled."""
    from tree_sitter import Query

    from .languages import query_source, tree_sitter_language

    source = (query_source(lang) or "").encode()
    query = Query(tree_sitter_language(lang), source.decode())
    for i in range(query.pattern_count):
        if b"@reference." not in source[query.start_byte_for_pattern(i):query.end_byte_for_pattern(i)]:
            query.disable_pattern(i)
    return query


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


def extract_facts(data: bytes, lang: str) -> tuple[tuple[CallSite, ...], tuple[ImportBinding, ...], str | None]:
    """Call sites (with receivers), import bindings and package of *data*."""
    from tree_sitter import QueryCursor

    from .languages import parser_and_query

    parser, _ = parser_and_query(lang)
    tree = parser.parse(data)
    calls: dict[tuple, CallSite] = {}
    for _, caps in QueryCursor(_reference_query(lang)).matches(tree.root_node):
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
    family = FAMILY.get(lang)
    imports: list[ImportBinding] = []
    package = None
    root = tree.root_node
    if family == "python":
        imports = _python_imports(root)
    elif family == "js":
        imports = _js_imports(root)
    elif family == "go":
        imports, package = _go_imports(root)
    elif family == "rust":
        imports = _rust_imports(root)
    elif family == "java":
        imports, package = _java_imports(root)
    return ordered, tuple(imports), package


def _python_imports(root) -> list[ImportBinding]:
    out: list[ImportBinding] = []

    def visit(node, depth: int) -> None:
        for child in node.named_children:
            line = child.start_point[0] + 1
            if child.type == "import_statement":
                for n in child.children_by_field_name("name"):
                    if n.type == "aliased_import":
                        out.append(ImportBinding(_text(n.child_by_field_name("alias")),
                                                 _text(n.child_by_field_name("name")), None, line))
                    else:
                        out.append(ImportBinding(_text(n), _text(n), None, line))
            elif child.type == "import_from_statement":
                module = child.child_by_field_name("module_name")
                mod = "".join(_text(module).split()) if module is not None else ""
                if any(c.type == "wildcard_import" for c in child.named_children):
                    out.append(ImportBinding("*", mod, "*", line))
                for n in child.children_by_field_name("name"):
                    if n.type == "aliased_import":
                        out.append(ImportBinding(_text(n.child_by_field_name("alias")), mod,
                                                 _text(n.child_by_field_name("name")), line))
                    else:
                        out.append(ImportBinding(_text(n), mod, _text(n), line))
            elif depth < 4 and child.type in ("if_statement", "try_statement", "with_statement", "block",
                                              "else_clause", "elif_clause", "except_clause", "finally_clause"):
                visit(child, depth + 1)

    visit(root, 0)
    return out


def _string_value(node) -> str | None:
    if node is None or node.type not in ("string", "template_string"):
        return None
    return _text(node)[1:-1]


def _js_imports(root) -> list[ImportBinding]:
    out: list[ImportBinding] = []
    for child in root.named_children:
        line = child.start_point[0] + 1
        source = _string_value(child.child_by_field_name("source"))
        if child.type == "import_statement" and source is not None:
            for clause in child.named_children:
                if clause.type != "import_clause":
                    continue
                for c in clause.named_children:
                    if c.type == "identifier":
                        out.append(ImportBinding(_text(c), source, "default", line))
                    elif c.type == "namespace_import":
                        ident = next((x for x in c.named_children if x.type == "identifier"), None)
                        if ident is not None:
                            out.append(ImportBinding(_text(ident), source, None, line))
                    elif c.type == "named_imports":
                        for spec in c.named_children:
                            if spec.type == "import_specifier":
                                name = spec.child_by_field_name("name")
                                alias = spec.child_by_field_name("alias") or name
                                out.append(ImportBinding(_text(alias), source, _text(name), line))
        elif child.type == "export_statement" and source is not None:
            clause = next((c for c in child.named_children if c.type == "export_clause"), None)
            if clause is None:
                ns = next((c for c in child.named_children if c.type == "namespace_export"), None)
                if ns is not None and ns.named_children:
                    out.append(ImportBinding(_text(ns.named_children[-1]), source, None, line))
                else:
                    out.append(ImportBinding("*", source, "*", line))
            else:
                for spec in clause.named_children:
                    if spec.type == "export_specifier":
                        name = spec.child_by_field_name("name")
                        alias = spec.child_by_field_name("alias") or name
                        out.append(ImportBinding(_text(alias), source, _text(name), line))
        elif child.type in ("lexical_declaration", "variable_declaration"):
            for decl in child.named_children:
                if decl.type != "variable_declarator":
                    continue
                value = decl.child_by_field_name("value")
                if value is None or value.type != "call_expression":
                    continue
                fn = value.child_by_field_name("function")
                args = value.child_by_field_name("arguments")
                if fn is None or _text(fn) != "require" or args is None or not args.named_children:
                    continue
                source = _string_value(args.named_children[0])
                name = decl.child_by_field_name("name")
                if source is None or name is None:
                    continue
                if name.type == "identifier":
                    out.append(ImportBinding(_text(name), source, None, line))
                elif name.type == "object_pattern":
                    for p in name.named_children:
                        if p.type == "shorthand_property_identifier_pattern":
                            out.append(ImportBinding(_text(p), source, _text(p), line))
                        elif p.type == "pair_pattern":
                            key, val = p.child_by_field_name("key"), p.child_by_field_name("value")
                            if key is not None and val is not None and val.type == "identifier":
                                out.append(ImportBinding(_text(val), source, _text(key), line))
    return out


def go_default_local(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    last = parts[-1] if parts else path
    if re.fullmatch(r"v\d+", last) and len(parts) > 1:
        last = parts[-2]
    last = re.sub(r"\.v\d+$", "", last)
    return re.sub(r"^go-|-go$", "", last).replace("-", "_").replace(".", "_")


def _go_imports(root) -> tuple[list[ImportBinding], str | None]:
    out: list[ImportBinding] = []
    package = None
    for child in root.named_children:
        if child.type == "package_clause":
            ident = next((c for c in child.named_children if c.type == "package_identifier"), None)
            package = _text(ident) if ident is not None else None
        elif child.type == "import_declaration":
            specs = [c for c in child.named_children if c.type == "import_spec"]
            for lst in (c for c in child.named_children if c.type == "import_spec_list"):
                specs.extend(c for c in lst.named_children if c.type == "import_spec")
            for spec in specs:
                path_node = spec.child_by_field_name("path")
                if path_node is None:
                    continue
                path = _text(path_node).strip("\"`")
                name = spec.child_by_field_name("name")
                local = _text(name) if name is not None else go_default_local(path)
                if local == "_":
                    continue
                out.append(ImportBinding("*" if local == "." else local, path,
                                         "*" if local == "." else None, spec.start_point[0] + 1))
    return out, package


def _rust_imports(root) -> list[ImportBinding]:
    out: list[ImportBinding] = []

    def segs(node) -> list[str]:
        return [s for s in "".join(_text(node).split()).split("::") if s] if node is not None else []

    def flatten(node, prefix: list[str], line: int) -> None:
        t = node.type
        if t == "use_as_clause":
            path = prefix + segs(node.child_by_field_name("path"))
            alias = node.child_by_field_name("alias")
            if path:
                out.append(ImportBinding(_text(alias) if alias is not None else path[-1],
                                         "::".join(path[:-1]), path[-1], line))
        elif t == "scoped_use_list":
            new = prefix + segs(node.child_by_field_name("path"))
            lst = node.child_by_field_name("list")
            if lst is not None:
                flatten(lst, new, line)
        elif t == "use_list":
            for c in node.named_children:
                flatten(c, prefix, line)
        elif t == "use_wildcard":
            first = node.named_children[0] if node.named_children else None
            path = prefix + segs(first)
            out.append(ImportBinding("*", "::".join(path), "*", line))
        elif t == "self":
            if prefix:
                out.append(ImportBinding(prefix[-1], "::".join(prefix), None, line))
        else:
            path = prefix + segs(node)
            if path:
                out.append(ImportBinding(path[-1], "::".join(path[:-1]), path[-1], line))

    def visit(node, depth: int) -> None:
        for child in node.named_children:
            line = child.start_point[0] + 1
            if child.type == "use_declaration":
                arg = child.child_by_field_name("argument")
                if arg is not None:
                    flatten(arg, [], line)
            elif child.type == "mod_item" and child.child_by_field_name("body") is None:
                name = child.child_by_field_name("name")
                if name is not None:
                    out.append(ImportBinding(_text(name), "self::" + _text(name), None, line))
            elif child.type in ("function_item", "mod_item", "impl_item") and depth < 2:
                body = child.child_by_field_name("body")
                if body is not None and child.type == "function_item":
                    visit(body, depth + 1)  # `use` inside a function body

    visit(root, 0)
    return out


_JAVA_IMPORT = re.compile(r"import\s+(static\s+)?([\w.\s]+?)(\s*\.\s*\*)?\s*;")


def _java_imports(root) -> tuple[list[ImportBinding], str | None]:
    out: list[ImportBinding] = []
    package = None
    for child in root.named_children:
        if child.type == "package_declaration":
            m = re.search(r"package\s+([\w.\s]+?)\s*;", _text(child))
            package = "".join(m.group(1).split()) if m else None
        elif child.type == "import_declaration":
            m = _JAVA_IMPORT.search(_text(child))
            if not m:
                continue
            name = "".join(m.group(2).split())
            line = child.start_point[0] + 1
            if m.group(3):
                out.append(ImportBinding("*", name, "*", line))
            elif m.group(1):  # import static a.b.C.m
                cls, _, member = name.rpartition(".")
                out.append(ImportBinding(member, cls, member, line))
            else:  # the class, as the member of its own file
                out.append(ImportBinding(name.rsplit(".", 1)[-1], name, name.rsplit(".", 1)[-1], line))
    return out, package


# --------------------------------------------------------------------------- cache

def graph_cache(directory: Path):
    """The call-graph cache: facts and edges by content hash; a fault means a rebuild."""
    from .index import DiskCache

    return DiskCache(directory, size_limit=2**29, label="call-graph cache")


# --------------------------------------------------------------------------- the graph

@dataclass
class GraphStats:
    facts_parsed: int = 0
    facts_cached: int = 0
    files_resolved: int = 0
    files_reused: int = 0


class CallGraph:
    """Call edges of one snapshot, computed per file on demand and cached."""

    def __init__(self, index, snapshot: Snapshot, cache=None):
        self.index = index
        self.snap = snapshot
        self.cache = cache
        self.stats = GraphStats()
        self._facts: dict[str, FileFacts | None] = {}
        self._edges: dict[str, list[Edge]] = {}
        self._observed: dict[tuple, object] | None = None
        self._py_modules: dict[str, list[str]] | None = None
        self._java_classes: dict[str, list[str]] | None = None
        self._defs_named: dict[str, list[SymbolSlice]] = {}
        self._grep: dict[tuple[str, bool], set[str]] = {}
        self._pool: list[str] | None = None

    # -- observations: everything resolution learns about other files goes through these
    def _note(self, key: tuple, value):
        if self._observed is not None:
            self._observed[key] = value
        return value

    def _observe(self, key: tuple):
        kind = key[0]
        if kind == "sha":
            return self.snap.sha(key[1])
        if kind == "exists":
            return self.snap.exists(key[1])
        if kind == "dir":
            return self.snap.listdir(key[1])
        if kind == "pymod":
            return tuple(self._python_module_index().get(key[1], ()))
        if kind == "javacls":
            return tuple(self._java_class_index().get(key[1], ()))
        if kind == "javapkg":
            return self._java_package_dirs(key[1])
        raise KeyError(kind)

    def _sha(self, path: str) -> str | None:
        return self._note(("sha", path), self.snap.sha(path))

    def _exists(self, path: str) -> bool:
        return self._note(("exists", path), self.snap.exists(path))

    def _listdir(self, directory: str) -> tuple[str, ...]:
        return self._note(("dir", directory), self.snap.listdir(directory))

    # -- facts
    def facts(self, path: str) -> FileFacts | None:
        """Symbols, call sites and imports of *path* in this snapshot (None when absent)."""
        if path in self._facts:
            return self._facts[path]
        if is_sensitive(path):  # never read, never parsed, never cached
            self._facts[path] = FileFacts(path, language_for_path(path), sha256_hex(b""), b"") \
                if self.snap.exists(path) else None
            return self._facts[path]
        data = self.snap.read(path)
        self._facts[path] = None if data is None else self.facts_for_bytes(path, data)
        return self._facts[path]

    def facts_for_path(self, path: str, data: bytes) -> FileFacts:
        """Facts of *data* as *path*, shared with `facts(path)` when the snapshot holds the same bytes."""
        known = self._facts.get(path)
        if known is not None and known.data == data:
            return known
        facts = self.facts_for_bytes(path, data)
        if self.snap.read(path) == data:
            self._facts[path] = facts
        return facts

    def facts_for_bytes(self, path: str, data: bytes) -> FileFacts:
        """Facts of *data* as *path*. A sensitive file (by name) or one that is not UTF-8
        text gets none: nothing of it is parsed or cached, so no slice can show it."""
        lang = language_for_path(path)
        if is_sensitive(path):
            return FileFacts(path, lang, sha256_hex(b""), b"")
        sha = sha256_hex(data)
        if not has_query(lang) or looks_binary(data) or len(data) > MAX_GRAPH_BYTES or not _is_utf8(data):
            return FileFacts(path, lang, sha, data)
        fs = self.index.symbols_for_bytes(path, data, lang)
        if not fs.parsed:
            return FileFacts(path, lang, sha, data)
        key = f"facts:{graph_version()}:{query_version(lang)}:{sha}"
        value = self.cache.get(key) if self.cache else None
        if value is None:
            try:
                calls, imports, package = extract_facts(data, lang)
            except Exception:  # a broken grammar must not break a context pack
                calls, imports, package = (), (), None
            self.stats.facts_parsed += 1
            if self.cache:
                self.cache.set(key, ([tuple(c.__dict__.values()) for c in calls],
                                     [tuple(i.__dict__.values()) for i in imports], package))
        else:
            self.stats.facts_cached += 1
            calls = tuple(CallSite(*c) for c in value[0])
            imports = tuple(ImportBinding(*i) for i in value[1])
            package = value[2]
        return FileFacts(path, lang, sha, data, fs.symbols, calls, imports, package, True)

    def prefetch(self, paths: Iterable[str]) -> None:
        self.snap.read_many(paths)

    # -- edges
    def file_edges(self, path: str) -> list[Edge]:
        """Every call site of *path*, resolved; reused from the cache when nothing it saw changed."""
        if path in self._edges:
            return self._edges[path]
        facts = self.facts(path)
        if facts is None or not facts.parsed:
            self._edges[path] = []
            return []
        key = f"edges:{graph_version()}:{path}:{facts.sha256}"
        cached = self.cache.get(key) if self.cache else None
        if cached is not None and self._still_valid(cached[0]):
            self.stats.files_reused += 1
            edges = [Edge(path, *e) for e in cached[1]]
        else:
            self._observed = {}
            try:
                edges = [self._resolve(facts, site) for site in facts.calls]
                observed = list(self._observed.items())
            finally:
                self._observed = None
            self.stats.files_resolved += 1
            if self.cache:
                self.cache.set(key, (observed, [e._pack() for e in edges]))
        self._edges[path] = edges
        return edges

    def _still_valid(self, observed) -> bool:
        try:
            return all(self._observe(tuple(k)) == v for k, v in observed)
        except (KeyError, TypeError, ValueError):
            return False

    def callees(self, sym: SymbolSlice, include_nested: bool = False) -> list[Edge]:
        """Calls made directly in *sym* (and in its members when *include_nested*)."""
        edges = self.file_edges(sym.path)
        if include_nested:
            return [e for e in edges if e.caller is not None and sym.lines[0] <= e.line <= sym.lines[1]]
        return [e for e in edges if e.caller == sym.id]

    def callers(self, targets: Sequence[SymbolSlice], guess: bool = True) -> list[Edge]:
        """Call sites anywhere in the snapshot that resolve to one of *targets*."""
        ids = {t.id for t in targets}
        names = {t.name for t in targets}
        for t in targets:  # `Cart(...)` calls a constructor
            if t.kind == "constructor" or t.name in ("__init__", "constructor"):
                facts = self.facts(t.path)
                owner = owner_type(t, facts) if facts else None
                if isinstance(owner, SymbolSlice):
                    ids.add(owner.id)
                    names.add(owner.name)
        out = []
        for path in self.grep(names, uses_only=True):
            for e in self.file_edges(path):
                if e.name not in names:
                    continue
                if guess and e.status == "unresolved":
                    e = self.guess(e)
                if ids.intersection(e.targets) and e.status in ("resolved", "guessed"):
                    out.append(e)
        return out

    def grep(self, names: Iterable[str], uses_only: bool = False) -> list[str]:
        """Parsed-language files whose bytes mention one of *names* as a word; with
        *uses_only*, at least once not right after a definition keyword (`def name`),
        so a file that only defines a common method name is not parsed for callers."""
        found: set[str] = set()
        for name in {n for n in names if n}:
            found |= self._grep_one(name, uses_only)
        return sorted(found)

    def _grep_one(self, name: str, uses_only: bool) -> set[str]:
        key = (name, uses_only)
        if key not in self._grep:
            pool = self._grep_one(name, False) if uses_only else self._parseable()
            needle = name.encode()
            self._grep[key] = {p for p in pool if _mentions(self.snap.read(p), needle, uses_only)}
        return self._grep[key]

    def _parseable(self) -> list[str]:
        if self._pool is None:
            self._pool = [p for p in self.snap.paths() if has_query(language_for_path(p)) and not is_sensitive(p)]
            self.snap.read_many(self._pool)
        return self._pool

    def definitions_named(self, names: Iterable[str]) -> dict[str, list[SymbolSlice]]:
        todo = {n for n in names if n not in self._defs_named}
        if todo:
            for n in todo:
                self._defs_named[n] = []
            for path in self.grep(todo):
                facts = self.facts(path)
                for s in facts.symbols if facts else ():
                    if s.name in todo:
                        self._defs_named[s.name].append(s)
        return {n: self._defs_named[n] for n in names}

    def guess(self, edge: Edge) -> Edge:
        """An unresolved `x.name()` pinned to the snapshot's only method `name`, if there is one."""
        if edge.status != "unresolved" or edge.receiver is None or edge.name in COMMON_METHOD_NAMES \
                or edge.via != "unknown-receiver" or len(edge.name) < 3:
            return edge
        defs = [s for s in self.definitions_named([edge.name])[edge.name] if s.kind in ("method", "constructor")]
        if len(defs) != 1:
            return edge
        return Edge(edge.path, edge.caller, edge.line, edge.name, edge.receiver, edge.kind,
                    (defs[0].id,), "guessed", "unique-method-name")

    # -- resolution
    def _resolve(self, facts: FileFacts, site: CallSite) -> Edge:
        caller = facts.innermost(site.line)
        try:
            targets, via = self._targets(facts, site, caller)
        except RecursionError:
            targets, via = [], "unknown"
        ids = tuple(dict.fromkeys(t.id for t in targets))
        if not ids:
            status = "unresolved"
        elif len(ids) == 1 or len({(t.path, _base_qual(t.qualname)) for t in targets}) == 1:
            status = "resolved"  # one target, or the overloads of one name
        else:
            status = "ambiguous"
        return Edge(facts.path, caller.id if caller else None, site.line, site.name, site.receiver,
                    site.kind, ids, status, via if ids else (via or "unknown"))

    def _targets(self, facts: FileFacts, site: CallSite, caller: SymbolSlice | None) -> tuple[list[SymbolSlice], str]:
        name, recv = site.name, site.receiver
        if recv is None:
            return self._lookup_bare(facts, name, caller, site.kind)
        if recv == "<expr>":
            return [], "unknown-receiver"
        owner = self._enclosing_type(facts, caller)
        if recv in SELF_NAMES or recv in ("super", "super()"):
            if owner is None:
                return [], "unknown-receiver"
            if recv in ("super", "super()"):
                found = [m for base in self._bases(owner) for m in self._methods_of(base, name)]
                return found, "base"
            return self._methods_of(owner, name, also=facts), "self"
        if owner is not None and recv == _owner_name(owner):
            return self._methods_of(owner, name, also=facts), "self"
        # receiver is a module, a class, or a variable of a known type
        mod = self._lookup_module_path(facts, recv)
        if mod is not None:
            files, qual = mod
            found = self._members_of(files, qual, name, facts.language)
            return found, "import"
        types = self._lookup_types(facts, recv, caller)
        if types:
            return [m for t in types for m in self._methods_of(t, name)], "class"
        var_types = self._infer_types(facts, recv, caller, site.line)
        if var_types:
            return [m for t in var_types for m in self._methods_of(t, name)], "type"
        first = re.split(r"\.|::", recv, maxsplit=1)[0]
        if any(b.local == first for b in facts.imports):
            return [], "external"  # an imported module or type that is not in this tree
        return [], "unknown-receiver"

    # bare names ------------------------------------------------------------
    def _lookup_bare(self, facts: FileFacts, name: str, caller: SymbolSlice | None,
                     kind: str) -> tuple[list[SymbolSlice], str]:
        candidates = [s for s in facts.by_name.get(name, ()) if s.kind not in ("field", "property")]
        # nested scopes, innermost first: a local function shadows a top-level one
        scope = caller
        while scope is not None:
            local = [s for s in candidates if s.parent == scope.id and s.kind not in ("method", "constructor")
                     and scope.kind not in CLASS_LIKE]
            if local:
                return local, "local"
            scope = facts.by_id.get(scope.parent) if scope.parent else None
        top = [s for s in candidates if s.parent is None and not (s.kind == "method" and "." in s.qualname)]
        if top:
            return _prefer_callable(top, kind), "local"
        if facts.language in _BARE_METHOD_CALLS:
            owner = self._enclosing_type(facts, caller)
            if owner is not None:
                methods = self._methods_of(owner, name)
                if methods:
                    return methods, "self"
        family = FAMILY.get(facts.language or "")
        for b in facts.imports:
            if b.local == name:
                found = self._import_targets(facts, b)
                return found, "import" if found else "external"
        if family == "go":
            found = self._go_package_members(facts.path, name, include_tests=facts.path.endswith("_test.go"))
            if found:
                return found, "package"
        if family == "java":
            found = self._java_same_package_class(facts, name)
            if found:
                return found, "package"
        for b in facts.imports:
            if b.member == "*":
                files, qual = self._module_files(facts, b.module) or ([], [])
                found = self._members_of(files, qual, name, facts.language)
                if found:
                    return found, "import"
        return [], "unknown-name"

    def _import_targets(self, facts: FileFacts, b: ImportBinding, depth: int = 0) -> list[SymbolSlice]:
        mod = self._module_files(facts, b.module)
        if mod is None:
            return []
        files, qual = mod
        if b.member is None:
            return []  # the module itself: calling it names nothing we index
        return self._members_of(files, qual, b.member, facts.language, depth)

    def _members_of(self, files: Sequence[str], qual: Sequence[str], name: str, lang: str | None,
                    depth: int = 0) -> list[SymbolSlice]:
        """Top-level *name* (or `qual.name`) defined in *files*, following re-exports."""
        out: list[SymbolSlice] = []
        for path in files:
            facts = self._facts_observed(path)
            if facts is None:
                continue
            if name == "default":
                out.extend(_js_default_export(facts))
                continue
            if qual:
                q = ".".join(qual)
                hits = facts.by_qual.get(f"{q}.{name}", [])
                if not hits:  # `Type::method` through a module path
                    for t in (s for s in facts.by_name.get(qual[-1], ()) if s.kind in TYPE_KINDS):
                        hits.extend(self._methods_of(t, name))
                out.extend(hits)
                continue
            hits = [s for s in facts.by_name.get(name, ()) if s.parent is None
                    and not (s.kind == "method" and "." in s.qualname)]
            if not hits and FAMILY.get(facts.language or "") == "java":  # static members of the file's class
                tops = {s.id for s in facts.symbols if s.parent is None}
                hits = [s for s in facts.by_name.get(name, ()) if s.parent in tops]
            if hits:
                out.extend(hits)
                continue
            if depth < 4:  # re-exports: `from .x import name`, `export { name } from './x'`
                for b in facts.imports:
                    if b.local == name and b.member is not None:
                        out.extend(self._import_targets(facts, b, depth + 1))
                        break
                else:
                    for b in facts.imports:
                        if b.member == "*" and FAMILY.get(facts.language or "") in ("js", "python"):
                            mod = self._module_files(facts, b.module)
                            if mod:
                                out.extend(self._members_of(mod[0], mod[1], name, lang, depth + 1))
        return out

    def _facts_observed(self, path: str) -> FileFacts | None:
        self._sha(path)
        return self.facts(path)

    # types -----------------------------------------------------------------
    def _enclosing_type(self, facts: FileFacts, sym: SymbolSlice | None) -> SymbolSlice | None:
        """The class-like symbol *sym* is a member of (Go/Rust: the type its receiver names)."""
        while sym is not None:
            if sym.kind in CLASS_LIKE:
                return self._canonical_type(facts, sym)
            owner = owner_type(sym, facts)
            if isinstance(owner, SymbolSlice):
                return self._canonical_type(facts, owner)
            if isinstance(owner, str):
                types = self._find_types(facts, owner)
                return types[0] if types else None
            sym = facts.by_id.get(sym.parent) if sym.parent else None
        return None

    def _canonical_type(self, facts: FileFacts, sym: SymbolSlice) -> SymbolSlice:
        """`impl Cart` stands for the struct `Cart` when one is in reach."""
        if sym.kind == "impl":
            types = self._find_types(facts, _type_name(sym.name))
            if types:
                return types[0]
        return sym

    def _find_types(self, facts: FileFacts, name: str) -> list[SymbolSlice]:
        local = [s for s in facts.by_name.get(name, ()) if s.kind in TYPE_KINDS and s.kind != "impl"]
        if local:
            return local
        for b in facts.imports:
            if b.local == name:
                return [t for t in self._import_targets(facts, b) if t.kind in TYPE_KINDS]
        family = FAMILY.get(facts.language or "")
        if family == "go":
            return [t for t in self._go_package_members(facts.path, name, True) if t.kind in TYPE_KINDS]
        if family == "java":
            return [t for t in self._java_same_package_class(facts, name) if t.kind in TYPE_KINDS]
        return []

    def _lookup_types(self, facts: FileFacts, recv: str, caller: SymbolSlice | None) -> list[SymbolSlice]:
        """*recv* as a type name: `Cart`, `models.Cart`, `crate::a::Cart`."""
        parts = re.split(r"\.|::", recv)
        if len(parts) == 1:
            return [t for t in self._find_types(facts, recv) if t.kind != "impl"]
        mod = self._lookup_module_path(facts, ".".join(parts[:-1]) if "." in recv else "::".join(parts[:-1]))
        if mod is None:
            return []
        return [t for t in self._members_of(mod[0], mod[1], parts[-1], facts.language) if t.kind in TYPE_KINDS]

    def _methods_of(self, type_sym: SymbolSlice, name: str, depth: int = 0,
                    also: FileFacts | None = None) -> list[SymbolSlice]:
        """Methods *name* of a type: its members, Go/Rust methods and impls elsewhere, then its bases."""
        facts = self._facts_observed(type_sym.path)
        if facts is None:
            return []
        tname = _type_name(type_sym.name)
        files = [facts]
        if also is not None and also.path != facts.path:
            files.append(also)
        family = FAMILY.get(facts.language or "")
        if family == "go":
            files += [f for f in (self._facts_observed(p) for p in self._go_package_files(type_sym.path, True))
                      if f is not None and f.path != facts.path]
        out = []
        for f in files:
            for s in f.by_name.get(name, ()):
                if s.kind not in CALLABLE_KINDS:
                    continue
                owner = owner_type(s, f)
                if isinstance(owner, SymbolSlice):
                    if owner.id == type_sym.id or (owner.kind in ("impl", "trait") and _type_name(owner.name) == tname):
                        out.append(s)
                elif owner == tname:
                    out.append(s)
        if not out and depth < 3:
            for base in self._bases(type_sym):
                out.extend(self._methods_of(base, name, depth + 1))
        return out

    def _bases(self, type_sym: SymbolSlice) -> list[SymbolSlice]:
        """Base classes named on the header of *type_sym* that resolve in its file's scope."""
        facts = self._facts_observed(type_sym.path)
        if facts is None:
            return []
        header_end = type_sym.body[0] - 1 if type_sym.body else type_sym.lines[0]
        names = [site.name if site.receiver is None else f"{site.receiver}.{site.name}"
                 for site in facts.calls
                 if site.kind == "class" and type_sym.lines[0] <= site.line <= header_end
                 and site.name != type_sym.name and site.receiver != "<expr>"]
        names += _signature_bases(type_sym.signature, FAMILY.get(facts.language or ""))
        out: list[SymbolSlice] = []
        for name in dict.fromkeys(names):
            found = self._find_types(facts, name) if re.fullmatch(r"[\w$]+", name) else \
                self._lookup_types(facts, name, None)
            out.extend(b for b in found if b.id != type_sym.id and b not in out)
        return out

    def _infer_types(self, facts: FileFacts, var: str, caller: SymbolSlice | None, line: int) -> list[SymbolSlice]:
        """The type of variable *var* as written near its use (annotation, constructor call)."""
        family = FAMILY.get(facts.language or "")
        if caller is None or family is None:
            return []
        field = None
        for prefix in ("self.", "this.", "self::", "@"):
            if var.startswith(prefix):
                field = var[len(prefix):]
        if field is None and not re.fullmatch(r"[A-Za-z_$][\w$]*", var):
            return []
        scopes = [(caller.lines[0], line)]
        owner = self._enclosing_type(facts, caller)
        if owner is not None and owner.path == facts.path:
            scopes.append((owner.lines[0], owner.lines[1]))
        names = [var] if field is None else [var, field]
        for start, end in scopes:
            text = b"\n".join(facts.lines[start - 1:end]).decode("utf-8", "replace")
            for v in names:
                for type_name in _type_hints(family, v, text):
                    types = self._lookup_types(facts, type_name, caller)
                    if types:
                        return types
        return []

    # modules ---------------------------------------------------------------
    def _lookup_module_path(self, facts: FileFacts, recv: str) -> tuple[list[str], list[str]] | None:
        """*recv* as a module reference: an import alias, a Go package, a Rust path."""
        family = FAMILY.get(facts.language or "")
        for b in facts.imports:
            if b.local == recv and b.local != "*":
                if b.member is None:
                    return self._module_files(facts, b.module)
                if family == "python":  # `from pkg import mod` then `mod.f()`
                    return self._module_files(facts, _py_join(b.module, b.member))
                if family == "rust":
                    return self._module_files(facts, f"{b.module}::{b.member}" if b.module else b.member)
                return None
        if family == "rust" and "::" in recv:
            first, _, rest = recv.partition("::")
            if first in ("crate", "self", "super"):
                return self._module_files(facts, recv)
            for b in facts.imports:
                if b.local == first:
                    base = b.module if b.member is None else (f"{b.module}::{b.member}" if b.module else b.member)
                    return self._module_files(facts, f"{base}::{rest}")
            return self._module_files(facts, recv)
        if family == "rust":
            own = [s for s in facts.by_name.get(recv, ()) if s.kind == "module" and s.parent is None]
            if own:
                return [facts.path], [recv]
        return None

    def _module_files(self, facts: FileFacts, module: str) -> tuple[list[str], list[str]] | None:
        """(files, inner qualname prefix) of a module spec in *facts*' language, or None."""
        family = FAMILY.get(facts.language or "")
        if family == "python":
            files = self._python_module(facts.path, module)
        elif family == "js":
            files = self._js_module(facts.path, module)
        elif family == "go":
            files = self._go_import_files(facts.path, module)
        elif family == "rust":
            return self._rust_module(facts.path, module)
        elif family == "java":
            files = self._java_class_files(module)
            if not files:  # a package (wildcard import): its directory
                files = self._java_package_files(module)
        else:
            files = []
        return (files, []) if files else None

    def _python_module_index(self) -> dict[str, list[str]]:
        if self._py_modules is None:
            index: dict[str, list[str]] = {}
            for p in self.snap.paths():
                if not p.endswith((".py", ".pyi")):
                    continue
                dotted = p.rsplit(".", 1)[0].replace("/", ".")
                if dotted.endswith(".__init__") or dotted == "__init__":
                    dotted = dotted[: -len("__init__")].rstrip(".")
                parts = dotted.split(".") if dotted else []
                for i in range(len(parts)):
                    index.setdefault(".".join(parts[i:]), []).append(p)
            self._py_modules = index
        return self._py_modules

    def _python_module(self, from_path: str, module: str) -> list[str]:
        if module.startswith("."):
            dots = len(module) - len(module.lstrip("."))
            base = posixpath.dirname(from_path)
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            rest = module[dots:].replace(".", "/")
            stem = posixpath.join(base, rest) if rest else base
            for cand in (stem + ".py", stem + "/__init__.py", stem + ".pyi", stem + "/__init__.pyi"):
                if cand and self._exists(cand.lstrip("/")):
                    return [cand.lstrip("/")]
            return []
        found = self._note(("pymod", module), tuple(self._python_module_index().get(module, ())))
        if len(found) <= 1:
            return list(found)
        # several files end in this dotted path: take the one nearest the root; a tie is ambiguous
        depth = {p: p.count("/") for p in found}
        best = min(depth.values())
        top = [p for p in found if depth[p] == best]
        return top if len(top) == 1 else []

    def _js_module(self, from_path: str, spec: str) -> list[str]:
        if not spec.startswith("."):
            return []
        stem = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), spec))
        if stem.startswith(".."):
            return []
        stem = "" if stem == "." else stem
        cands = [stem]
        base, ext = posixpath.splitext(stem)
        if ext in (".js", ".jsx", ".mjs", ".cjs"):
            cands += [base + e for e in (".ts", ".tsx", ".mts", ".cts")]
        cands += [stem + e for e in _JS_EXTS]
        cands += [posixpath.join(stem, "index" + e) for e in _JS_EXTS]
        for c in cands:
            if c and self._exists(c):
                return [c]
        return []

    def _go_module_root(self, from_path: str) -> tuple[str, str] | None:
        """(directory of the nearest go.mod, its module path)."""
        d = posixpath.dirname(from_path)
        while True:
            gomod = posixpath.join(d, "go.mod") if d else "go.mod"
            if self._exists(gomod):
                self._sha(gomod)
                data = self.snap.read(gomod) or b""
                m = re.search(rb"^\s*module\s+(\S+)", data, re.M)
                return (d, m.group(1).decode().strip('"')) if m else None
            if not d:
                return None
            d = posixpath.dirname(d)

    def _go_import_files(self, from_path: str, import_path: str) -> list[str]:
        root = self._go_module_root(from_path)
        if root is not None and (import_path == root[1] or import_path.startswith(root[1] + "/")):
            rel = import_path[len(root[1]):].strip("/")
            directory = posixpath.join(root[0], rel) if root[0] else rel
            return self._go_package_files(posixpath.join(directory, "x.go"), False)
        return []

    def _go_package_files(self, path: str, include_tests: bool) -> list[str]:
        return [p for p in self._listdir(posixpath.dirname(path))
                if p.endswith(".go") and (include_tests or not p.endswith("_test.go"))]

    def _go_package_members(self, path: str, name: str, include_tests: bool) -> list[SymbolSlice]:
        out = []
        for p in self._go_package_files(path, include_tests):
            facts = self._facts_observed(p)
            if facts is not None:
                out.extend(s for s in facts.by_name.get(name, ()) if s.parent is None and s.kind != "method")
        return out

    def _rust_module(self, from_path: str, module: str) -> tuple[list[str], list[str]] | None:
        """(file, inline module path) of a Rust path: `crate::a::b`, `self::x`, `super::y`, `mycrate::z`."""
        segs = [s for s in module.split("::") if s]
        crate = self._rust_crate(from_path)
        if not segs or crate is None:
            return None
        crate_dir, crate_file, crate_name = crate
        if crate_name and segs[0] == crate_name:
            return self._rust_walk(crate_dir, crate_file, segs[1:])
        inside = from_path == crate_file or (from_path.startswith(crate_dir + "/") if crate_dir else True)
        if not inside:  # an integration test, example or bench: its own crate root
            return ([from_path], segs[1:]) if segs[0] in ("crate", "self") else None
        here = _rust_module_path(from_path, crate_dir)
        if segs[0] == "crate":
            return self._rust_walk(crate_dir, crate_file, segs[1:])
        if segs[0] in ("self", "super"):
            base = list(here)
            while segs and segs[0] in ("self", "super"):
                if segs[0] == "super":
                    if not base:
                        return None
                    base.pop()
                segs = segs[1:]
            return self._rust_walk(crate_dir, crate_file, base + segs)
        # a path in scope here (a child or inline module), else from the crate root (2015 paths)
        for base in (here, []):
            found = self._rust_try(crate_dir, crate_file, base, segs)
            if found is not None:
                return found
        return None  # an external crate

    def _rust_try(self, crate_dir: str, crate_file: str, base: list[str], rel: list[str]):
        files, qual = self._rust_walk(crate_dir, crate_file, base + rel)
        base_files, base_qual = self._rust_walk(crate_dir, crate_file, base)
        if files != base_files:
            return files, qual
        facts = self._facts_observed(files[0])
        if facts is not None and facts.by_qual.get(".".join(base_qual + rel[:1])):
            return files, qual
        return None

    def _rust_walk(self, crate_dir: str, crate_file: str, segs: list[str]) -> tuple[list[str], list[str]]:
        file, directory, qual = crate_file, crate_dir, []
        for seg in segs:
            if not qual:
                for cand in (posixpath.join(directory, seg + ".rs"), posixpath.join(directory, seg, "mod.rs")):
                    if self._exists(cand):
                        file, directory = cand, posixpath.join(directory, seg)
                        break
                else:
                    qual.append(seg)
                continue
            qual.append(seg)
        return [file], qual

    def _rust_crate(self, from_path: str) -> tuple[str, str, str | None] | None:
        """(source dir, root file, crate name) of the crate *from_path* belongs to."""
        d = posixpath.dirname(from_path)
        while True:
            manifest = posixpath.join(d, "Cargo.toml")
            if self._exists(manifest):
                src = posixpath.join(d, "src")
                for f in ("lib.rs", "main.rs"):
                    if self._exists(posixpath.join(src, f)):
                        self._sha(manifest)
                        data = (self.snap.read(manifest) or b"").decode("utf-8", "replace")
                        m = re.search(r'\[package\][^\[]*?^\s*name\s*=\s*"([^"]+)"', data, re.M | re.S)
                        name = m.group(1).replace("-", "_") if m else None
                        return src, posixpath.join(src, f), name
            for f in ("lib.rs", "main.rs"):
                if self._exists(posixpath.join(d, f)):
                    return d, posixpath.join(d, f), None
            if not d:
                return None
            d = posixpath.dirname(d)

    def _java_class_index(self) -> dict[str, list[str]]:
        if self._java_classes is None:
            index: dict[str, list[str]] = {}
            for p in self.snap.paths():
                if p.endswith(".java"):
                    parts = p[:-5].split("/")
                    for i in range(len(parts)):
                        index.setdefault(".".join(parts[i:]), []).append(p)
            self._java_classes = index
        return self._java_classes

    def _java_class_files(self, dotted: str) -> list[str]:
        found = self._note(("javacls", dotted), tuple(self._java_class_index().get(dotted, ())))
        if len(found) == 1:
            return list(found)
        if "." in dotted:  # a nested class `a.b.Outer.Inner`: the file of `a.b.Outer`
            outer = dotted.rsplit(".", 1)[0]
            found = self._note(("javacls", outer), tuple(self._java_class_index().get(outer, ())))
            return list(found) if len(found) == 1 else []
        return []

    def _java_package_dirs(self, package: str) -> tuple[str, ...]:
        suffix = package.replace(".", "/")
        return tuple(sorted({posixpath.dirname(p) for p in self.snap.paths() if p.endswith(".java")
                             and (posixpath.dirname(p) == suffix or posixpath.dirname(p).endswith("/" + suffix))}))

    def _java_package_files(self, package: str) -> list[str]:
        dirs = self._note(("javapkg", package), self._java_package_dirs(package))
        if len(dirs) != 1:
            return []
        return [p for p in self._listdir(dirs[0]) if p.endswith(".java")]

    def _java_same_package_class(self, facts: FileFacts, name: str) -> list[SymbolSlice]:
        directory = posixpath.dirname(facts.path)
        path = posixpath.join(directory, name + ".java").lstrip("/")
        if not self._exists(path):
            for b in facts.imports:
                if b.member == "*":
                    files = self._java_class_files(f"{b.module}.{name}")
                    if files:
                        path = files[0]
                        break
            else:
                return []
        other = self._facts_observed(path)
        return [s for s in other.by_name.get(name, ()) if s.parent is None] if other else []


# --------------------------------------------------------------------------- helpers

def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _mentions(data: bytes | None, needle: bytes, uses_only: bool) -> bool:
    """*needle* occurs in *data* as a whole word (with *uses_only*: not as `def needle`)."""
    if not data or needle not in data:
        return False
    size = len(needle)
    pos = data.find(needle)
    while pos != -1:
        before, after = data[pos - 1:pos], data[pos + size:pos + size + 1]
        if not (before and (before.isalnum() or before in b"_$")) and not (after and (after.isalnum() or after in b"_$")):
            if not uses_only or not data[max(0, pos - 16):pos].endswith(_DEFINITION_PREFIXES):
                return True
        pos = data.find(needle, pos + 1)
    return False


def _signature_bases(signature: str, family: str | None) -> list[str]:
    """Base class names written in a class header, generic arguments dropped:
    `class C(Base[T], mod.Mixin, metaclass=M)`, `class C extends B<T> implements I`."""
    text = " ".join(signature.split())
    names: list[str] = []
    if family == "python":
        start = text.find("(")
        if start < 0:
            return []
        depth = 0
        for i, ch in enumerate(text[start:], start):
            depth += ch in "([{"
            depth -= ch in ")]}"
            if depth == 0:
                inner = text[start + 1:i]
                break
        else:
            return []
        prev = None
        while prev != inner:
            prev, inner = inner, re.sub(r"\[[^\[\]()]*\]|\([^()\[\]]*\)", "", inner)
        for part in inner.split(","):
            part = part.strip()
            if part and "=" not in part and re.fullmatch(r"[\w.]+", part):
                names.append(part)
    elif family in ("js", "java"):
        prev = None
        while prev != text:
            prev, text = text, _TYPE_ARGS.sub("", text)
        for m in re.finditer(r"\b(?:extends|implements)\s+([\w$.]+(?:\s*,\s*[\w$.]+)*)", text):
            names += [n.strip() for n in m.group(1).split(",") if n.strip()]
    return names


def _owner_name(owner: SymbolSlice) -> str:
    return _type_name(owner.name)


def _prefer_callable(symbols: list[SymbolSlice], kind: str) -> list[SymbolSlice]:
    if kind == "class":
        types = [s for s in symbols if s.kind in TYPE_KINDS]
        return types or symbols
    callables = [s for s in symbols if s.kind in CALLABLE_KINDS or s.kind in TYPE_KINDS]
    return callables or symbols


def _py_join(module: str, member: str) -> str:
    return module + member if module.endswith(".") else f"{module}.{member}"


def _js_default_export(facts: FileFacts) -> list[SymbolSlice]:
    for s in facts.symbols:
        if s.parent is None and b"export default" in facts.lines[s.lines[0] - 1]:
            return [s]
    m = re.search(rb"^export\s+default\s+([A-Za-z_$][\w$]*)\s*;?\s*$", facts.data, re.M)
    if m:
        name = m.group(1).decode()
        return [s for s in facts.by_name.get(name, ()) if s.parent is None]
    return []


def _rust_module_path(path: str, crate_dir: str) -> list[str]:
    rel = path[len(crate_dir):].lstrip("/") if crate_dir else path
    parts = rel[:-3].split("/") if rel.endswith(".rs") else rel.split("/")
    if parts and parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return [p for p in parts if p]


def _type_hints(family: str, var: str, text: str) -> list[str]:
    """Type names written for *var* in *text*, the last one first."""
    v = re.escape(var)
    lead = r"(?<![\w$.])"
    if family == "python":
        pats = [lead + v + r"[ \t]*:[ \t]*(?:Optional\[|\"|')?([A-Za-z_][\w.]*)",
                lead + v + r"\s*(?::[^=\n]*)?=\s*([A-Za-z_][\w.]*)\s*\(",
                r"except\s*\(?\s*([A-Za-z_][\w.]*)[^:\n]*?\s+as\s+" + v + r"\b"]
    elif family == "js":
        pats = [lead + v + r"[ \t]*[?!]?[ \t]*:[ \t]*([A-Za-z_$][\w$.]*)",
                lead + v + r"\s*=\s*new\s+([A-Za-z_$][\w$.]*)"]
    elif family == "go":
        pats = [lead + v + r"\s+\*?([A-Za-z_][\w.]*)\s*[,)]",
                lead + v + r"\s*:?=\s*&?([A-Za-z_][\w.]*)\s*\{",
                lead + v + r"\s*:?=\s*(?:(\w+)\.)?New([A-Z]\w*)\s*\("]
    elif family == "rust":
        pats = [lead + v + r"[ \t]*:[ \t]*&?(?:'\w+[ \t]+)?(?:mut[ \t]+)?([A-Za-z_][\w:]*)",
                r"let\s+(?:mut\s+)?" + v + r"\s*(?::[^=;]*)?=\s*&?(?:mut\s+)?([A-Za-z_][\w:]*?)(?:::\w+\s*\(|\s*\{)"]
    elif family == "java":
        pats = [r"([A-Z][\w.]*)(?:<[^;()=]*?>)?(?:\[\])?\s+" + v + r"\s*[=;,)]",
                lead + v + r"\s*=\s*new\s+([A-Z][\w.]*)"]
    else:
        return []
    found: list[tuple[int, str]] = []
    for pat in pats:
        for m in re.finditer(pat, text):
            groups = [g for g in m.groups() if g]
            if family == "go" and "New" in pat:
                name = ".".join(groups) if len(groups) == 2 else groups[-1]
            else:
                name = groups[0]
            found.append((m.start(), name.strip(".").replace("::", "::")))
    found.sort(key=lambda x: -x[0])
    return [n for _, n in found if n not in ("self", "this", "mut", "dyn", "impl")]
