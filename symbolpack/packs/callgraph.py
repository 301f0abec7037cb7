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

Where the parts live: `git` (plumbing), `snapshot` (the tree resolved against),
`facts` (one file's call sites and imports, and their cache), `resolve/` (one
module per language family: its imports, modules and type rules) and this
module (the rules every language shares, the edges and their cache). The names
other modules import from here (`CallGraph`, `Edge`, `Snapshot`, `run_git`, ...)
stay importable from here.
"""

from __future__ import annotations

import re
from collections import namedtuple

from .facts import extract_facts, file_facts, graph_cache, graph_version, receiver_of
from .records import (CALLABLE_KINDS, EDGE_KINDS, TYPE_KINDS, CallSite, FileFacts, ImportBinding, base_qual,
                      owner_type, type_name)
from ..state.git import cat_blobs, run_git
from ..engine.index import sha256_hex
from ..engine.languages import language_for_path
from .mentions import NameSearch
from .resolve import Resolver, hint_matches, observation_class, ordered_hints, resolver_class
from ..state.snapshot import MAX_GRAPH_BYTES, GitTreeSnapshot, Snapshot, WorkTreeSnapshot
from ..engine.sources import is_sensitive
from ..engine.symbols import CLASS_LIKE, SymbolSlice

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Iterable, Sequence

__all__ = [  # what other modules import from here, wherever it lives now
    "CallGraph", "Edge", "GraphStats", "SELF_NAMES", "COMMON_METHOD_NAMES",
    "CallSite", "ImportBinding", "FileFacts", "EDGE_KINDS", "TYPE_KINDS", "CALLABLE_KINDS",
    "extract_facts", "receiver_of", "owner_type", "graph_cache", "graph_version",
    "Snapshot", "WorkTreeSnapshot", "GitTreeSnapshot", "MAX_GRAPH_BYTES", "run_git", "cat_blobs",
]

SELF_NAMES = frozenset({"self", "this", "$this", "Self", "cls", "@"})

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

# Languages where a bare `name()` inside a class may be one of its methods.
_BARE_METHOD_CALLS = frozenset({"java", "csharp", "kotlin", "scala", "cpp", "ruby", "dart", "php"})

# Edge is a namedtuple and GraphStats a plain class, not dataclasses: this module is
# on the start-up path of `diff-context` and `context` (see facts.py).
class Edge(namedtuple("Edge", ["path", "caller", "line", "name", "receiver", "kind", "targets", "status", "via"])):
    """A call site and what it resolved to."""

    __slots__ = ()

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


class GraphStats:
    """Counters of one graph's work: facts parsed or read from the cache, files whose
    edges were resolved or reused."""

    __slots__ = ("facts_parsed", "facts_cached", "files_resolved", "files_reused")

    def __init__(self, facts_parsed: int = 0, facts_cached: int = 0, files_resolved: int = 0,
                 files_reused: int = 0) -> None:
        self.facts_parsed = facts_parsed
        self.facts_cached = facts_cached
        self.files_resolved = files_resolved
        self.files_reused = files_reused


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
        self._resolvers: dict[type[Resolver], Resolver] = {}
        self._defs_named: dict[str, list[SymbolSlice]] = {}
        self._names = NameSearch(snapshot, self.index.settings.sensitive)
        self._site_edges: dict[str, dict[int, Edge]] = {}  # call sites resolved one by one, by index
        self._hints: dict[tuple[str, str | None, str], list[tuple[int, int, str]]] = {}
        self._texts: dict[str, tuple[str, list[int]]] = {}

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
        owner = observation_class(kind)  # a language's own: module and class indexes
        if owner is None:
            raise KeyError(kind)
        return self._resolver_of(owner).observe(key)

    def _sha(self, path: str) -> str | None:
        return self._note(("sha", path), self.snap.sha(path))

    def _exists(self, path: str) -> bool:
        return self._note(("exists", path), self.snap.exists(path))

    def _listdir(self, directory: str) -> tuple[str, ...]:
        return self._note(("dir", directory), self.snap.listdir(directory))

    # -- the language resolvers of this graph (one per family, holding its indexes)
    def resolver(self, lang: str | None) -> Resolver:
        return self._resolver_of(resolver_class(lang))

    def _resolver_of(self, cls: type[Resolver]) -> Resolver:
        if cls not in self._resolvers:
            self._resolvers[cls] = cls(self)
        return self._resolvers[cls]

    def carry_over(self, old: "CallGraph", paths: Iterable[str]) -> None:
        """Take *old*'s facts of *paths*, files whose bytes did not change (facts
        depend on a file's bytes alone; edges and indexes are rebuilt)."""
        for p in paths:
            if p in old._facts:
                self._facts[p] = old._facts[p]

    # -- facts
    def facts(self, path: str) -> FileFacts | None:
        """Symbols, call sites and imports of *path* in this snapshot (None when absent)."""
        if path in self._facts:
            return self._facts[path]
        if is_sensitive(path, self.index.settings.sensitive):  # never read, never parsed, never cached
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
        """Facts of *data* as *path* (through the facts cache; see `facts.file_facts`)."""
        return file_facts(self.index, self.cache, self.stats, path, data)

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
        edges = self._cached_edges(path, facts)
        if edges is None:
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

    def _cached_edges(self, path: str, facts: FileFacts) -> list[Edge] | None:
        """*path*'s edges from the cache when nothing they saw changed, else None."""
        cached = self.cache.get(f"edges:{graph_version()}:{path}:{facts.sha256}") if self.cache else None
        if cached is None or not self._still_valid(cached[0]):
            return None
        self.stats.files_reused += 1
        return [Edge(path, *e) for e in cached[1]]

    def _edges_where(self, path: str, keep) -> list[Edge]:
        """The edges of *path* whose call site *keep* accepts (it sees `name` and `line`,
        which a `CallSite` and an `Edge` share), in file order: filtered from the whole
        file's edges when they are in memory or valid in the cache, else resolved for those
        sites alone (a caller search wants the calls of a few names, not every call of every
        file that mentions one; the file's cache entry waits for a full resolution)."""
        if path not in self._edges:
            facts = self.facts(path)
            if facts is None or not facts.parsed:
                return []
            edges = self._cached_edges(path, facts)
            if edges is None:
                resolved = self._site_edges.setdefault(path, {})
                for n, site in enumerate(facts.calls):
                    if keep(site) and n not in resolved:
                        resolved[n] = self._resolve(facts, site)
                return [resolved[n] for n, site in enumerate(facts.calls) if keep(site)]
            self._edges[path] = edges
        return [e for e in self._edges[path] if keep(e)]

    def _still_valid(self, observed) -> bool:
        try:
            return all(self._observe(tuple(k)) == v for k, v in observed)
        except (KeyError, TypeError, ValueError):
            return False

    def callees(self, sym: SymbolSlice, include_nested: bool = False) -> list[Edge]:
        """Calls made directly in *sym* (and in its members when *include_nested*)."""
        first, last = sym.lines
        edges = self._edges_where(sym.path, lambda site: first <= site.line <= last)
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
            for e in self._edges_where(path, lambda site: site.name in names):
                if guess and e.status == "unresolved":
                    e = self.guess(e)
                if ids.intersection(e.targets) and e.status in ("resolved", "guessed"):
                    out.append(e)
        return out

    def grep(self, names: Iterable[str], uses_only: bool = False) -> list[str]:
        """Parsed-language files that mention one of *names* as a word (`mentions.NameSearch`)."""
        return self._names.files(names, uses_only)

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
        elif len(ids) == 1 or len({(t.path, base_qual(t.qualname)) for t in targets}) == 1:
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
        for b in facts.imports:
            if b.local == name:
                found = self._import_targets(facts, b)
                return found, "import" if found else "external"
        found = self.resolver(facts.language).package_members(facts, name)
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
                out.extend(_default_export(facts))
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
            if not hits:
                hits = self.resolver(facts.language).file_members(facts, name)
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
                        if b.member == "*" and self.resolver(facts.language).follows_star_reexports:
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
            types = self._find_types(facts, type_name(sym.name))
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
        return self.resolver(facts.language).package_types(facts, name)

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
        tname = type_name(type_sym.name)
        files = [facts]
        if also is not None and also.path != facts.path:
            files.append(also)
        files += self.resolver(facts.language).method_files(facts, type_sym)
        out = []
        for f in files:
            for s in f.by_name.get(name, ()):
                if s.kind not in CALLABLE_KINDS:
                    continue
                owner = owner_type(s, f)
                if isinstance(owner, SymbolSlice):
                    if owner.id == type_sym.id or (owner.kind in ("impl", "trait") and type_name(owner.name) == tname):
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
        names += self.resolver(facts.language).signature_bases(type_sym.signature)
        out: list[SymbolSlice] = []
        for name in dict.fromkeys(names):
            found = self._find_types(facts, name) if re.fullmatch(r"[\w$]+", name) else \
                self._lookup_types(facts, name, None)
            out.extend(b for b in found if b.id != type_sym.id and b not in out)
        return out

    def _infer_types(self, facts: FileFacts, var: str, caller: SymbolSlice | None, line: int) -> list[SymbolSlice]:
        """The type of variable *var* as written near its use (annotation, constructor call)."""
        resolver = self.resolver(facts.language)
        if caller is None or resolver.family is None:
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
            for v in names:
                for type_name in self._type_hints(facts, resolver, v, start, end):
                    types = self._lookup_types(facts, type_name, caller)
                    if types:
                        return types
        return []

    def _type_hints(self, facts: FileFacts, resolver: Resolver, var: str, start: int, end: int) -> list[str]:
        """`resolver.type_hints(var, lines start..end)`, from one pass of its patterns over
        the whole file per (content, variable): a class's scope is most of its file, and
        one call site after another asked it again (a third of a pack's time on TypeScript).
        A match crossing the scope's first or last line asks the scope's own text instead."""
        text, starts = self._file_text(facts)
        key = (facts.sha256, facts.language, var)
        found = self._hints.get(key)
        if found is None:
            patterns, pick = resolver.hint_patterns(var)
            found = self._hints[key] = hint_matches(patterns, text, pick)
        end = min(end, len(starts))
        if start > end:
            return []
        lo, hi = starts[start - 1], (starts[end] - 1 if end < len(starts) else len(text))
        if any(s < lo < e or s < hi < e for s, e, _ in found):
            return resolver.type_hints(var, text[lo:hi])
        return ordered_hints(m for m in found if lo <= m[0] and m[1] <= hi)

    def _file_text(self, facts: FileFacts) -> tuple[str, list[int]]:
        """*facts*' lines joined and decoded, with the offset where each line starts."""
        known = self._texts.get(facts.sha256)
        if known is None:
            text = b"\n".join(facts.lines).decode("utf-8", "replace")
            starts = [0]
            pos = text.find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = text.find("\n", pos + 1)
            known = self._texts[facts.sha256] = (text, starts if facts.lines else [])
        return known

    # modules ---------------------------------------------------------------
    def _lookup_module_path(self, facts: FileFacts, recv: str) -> tuple[list[str], list[str]] | None:
        """*recv* as a module reference: an import alias, a Go package, a Rust path."""
        resolver = self.resolver(facts.language)
        for b in facts.imports:
            if b.local == recv and b.local != "*":
                if b.member is None:
                    return self._module_files(facts, b.module)
                module = resolver.member_module(b)  # `from pkg import mod` then `mod.f()`
                return self._module_files(facts, module) if module is not None else None
        return resolver.module_path_fallback(facts, recv)

    def _module_files(self, facts: FileFacts, module: str) -> tuple[list[str], list[str]] | None:
        """(files, inner qualname prefix) of a module spec in *facts*' language, or None."""
        return self.resolver(facts.language).module_files(facts, module)


# --------------------------------------------------------------------------- helpers

def _owner_name(owner: SymbolSlice) -> str:
    return type_name(owner.name)


def _prefer_callable(symbols: list[SymbolSlice], kind: str) -> list[SymbolSlice]:
    if kind == "class":
        types = [s for s in symbols if s.kind in TYPE_KINDS]
        return types or symbols
    callables = [s for s in symbols if s.kind in CALLABLE_KINDS or s.kind in TYPE_KINDS]
    return callables or symbols


def _default_export(facts: FileFacts) -> list[SymbolSlice]:
    """What a `default` import of *facts* names: its `export default` declaration or name."""
    for s in facts.symbols:
        if s.parent is None and b"export default" in facts.lines[s.lines[0] - 1]:
            return [s]
    m = re.search(rb"^export\s+default\s+([A-Za-z_$][\w$]*)\s*;?\s*$", facts.data, re.M)
    if m:
        name = m.group(1).decode()
        return [s for s in facts.by_name.get(name, ()) if s.parent is None]
    return []
