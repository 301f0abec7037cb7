"""Which symbols belong in a pack besides the ones asked for: callers, callees, tests.

`related_symbols` is diff-context's one hop around the changed symbols (their
callers and callees through `callgraph`, and the tests that reach or name
them); `call_walk` is `context`'s breadth-first walk from an entry symbol;
`resolve_entry` turns what the user typed into that entry. Relevance names why
a symbol is in a pack, and orders it.
"""

from __future__ import annotations

import re
from pathlib import Path

from .callgraph import CallGraph, Edge
from .changes import decode_lines
from ..engine.sources import is_sensitive
from ..engine.symbols import CLASS_LIKE, SymbolSlice
from ..base.errors import NotFound, UsageError

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Sequence

MAX_RELATED = 200
RELEVANCE_ORDER = {"entry": 0, "contains_diff": 0, "caller": 1, "callee": 2, "test": 3}
_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec|testing)/|(^|/)test_[^/]*$|_test\.[^/]+$|\.(test|spec)\.[^/]+$|"
    r"(^|/)[^/]*Tests?\.(java|kt|cs|scala)$|(^|/)conftest\.py$")


def is_test_path(path: str) -> bool:
    return bool(_TEST_PATH.search(path))



def symbol_of(graph: CallGraph, symbol_id: str) -> SymbolSlice | None:
    path = symbol_id.split(":", 1)[0]
    facts = graph.facts(path)
    if facts is None or symbol_id not in facts.by_id:  # a path holding ':'
        for p in graph.snap.paths():
            if symbol_id.startswith(p + ":"):
                facts = graph.facts(p)
                break
    return facts.by_id.get(symbol_id) if facts else None


def data_of(graph: CallGraph, path: str) -> bytes | None:
    facts = graph.facts(path)
    return facts.data if facts else None


def lines_of(graph: CallGraph, path: str) -> list[str]:
    facts = graph.facts(path)
    return decode_lines(facts.data) if facts else []


def constructors(graph: CallGraph, cls: SymbolSlice) -> list[SymbolSlice]:
    """What a call of class *cls* runs: `__init__`, `constructor`, a Java/C# constructor."""
    facts = graph.facts(cls.path)
    if facts is None or cls.kind not in CLASS_LIKE:
        return []
    return [s for s in facts.symbols if s.parent == cls.id
            and (s.kind == "constructor" or s.name in ("__init__", "constructor", "initialize"))]


def targets_of(graph: CallGraph, edges: list[Edge]) -> list[SymbolSlice]:
    """The symbols resolved (or guessed) edges lead to, a class followed by its constructor."""
    out: list[SymbolSlice] = []
    for e in _followable(graph, edges):
        for t in e.targets:
            sym = symbol_of(graph, t)
            if sym is not None:
                out.append(sym)
                out.extend(constructors(graph, sym))
    return out


def _followable(graph: CallGraph, edges: list[Edge]) -> list[Edge]:
    names = {e.name for e in edges if e.status == "unresolved" and e.via == "unknown-receiver"}
    if names:
        graph.definitions_named(names)
    out = []
    for e in edges:
        e = graph.guess(e)
        if e.status in ("resolved", "guessed"):
            out.append(e)
    return out


def related_symbols(graph: CallGraph, changed: Sequence[SymbolSlice]) -> list[tuple[SymbolSlice, str, int]]:
    """One hop of callers and callees of *changed*, and the tests that reach or name them:
    (symbol, relevance, depth), depth 1 when a call links it to the change, 2 when a
    test is there only because its name names a changed symbol."""
    changed_ids = {s.id for s in changed}
    found: dict[str, tuple[SymbolSlice, str, int]] = {}

    def add(sym: SymbolSlice | None, relevance: str, depth: int = 1) -> None:
        if sym is None or sym.id in changed_ids:
            return
        if is_test_path(sym.path):
            relevance = "test"
        old = found.get(sym.id)
        if old is None or (RELEVANCE_ORDER[relevance], depth) < (RELEVANCE_ORDER[old[1]], old[2]):
            found[sym.id] = (sym, relevance, depth)

    for e in graph.callers(changed):
        if e.caller:
            add(symbol_of(graph, e.caller), "caller")
    callee_edges = []
    for s in changed:
        callee_edges += graph.callees(s)
    for t in targets_of(graph, callee_edges):
        add(t, "callee")
    names = {s.name for s in changed if len(s.name) >= 4 and s.kind in ("function", "method", "class", "struct")}
    for path in graph.grep(names) if names else ():
        if not is_test_path(path):
            continue
        facts = graph.facts(path)
        for t in facts.symbols if facts else ():
            low = t.name.lower()
            if low.startswith("test") and any(n.lower() in low for n in names):
                add(t, "test", depth=2)
    return list(found.values())[:MAX_RELATED]


def call_walk(graph: CallGraph, start: SymbolSlice, depth: int, callers: bool
              ) -> tuple[dict[str, tuple[SymbolSlice, str, int]], list[dict]]:
    """*start*'s callees (and callers) breadth-first to *depth*: {id: (symbol, relevance, depth)}
    in the order found, and the calls of *start* itself that resolve to nothing or to several."""
    found: dict[str, tuple[SymbolSlice, str, int]] = {start.id: (start, "entry", 0)}
    unresolved: list[dict] = []
    down, up = [start], ([start] if callers else [])  # callees of callees, callers of callers
    for d in range(1, depth + 1):
        edges: list[Edge] = []
        for sym in down:
            own = graph.callees(sym, include_nested=sym.kind in CLASS_LIKE)
            if d == 1:
                unresolved += [{"caller": e.caller, "line": e.line, "name": e.name, "receiver": e.receiver,
                                "status": e.status, "candidates": list(e.targets)}
                               for e in (graph.guess(x) for x in own) if e.status in ("unresolved", "ambiguous")]
            edges += own
        callee_syms = targets_of(graph, edges)
        caller_syms = [symbol_of(graph, e.caller) for e in graph.callers(up) if e.caller] if up else []
        down, up = [], []
        for syms, rel, bucket in ((callee_syms, "callee", down), (caller_syms, "caller", up)):
            for linked in syms:
                if linked is None or linked.id in found or len(found) > MAX_RELATED:
                    continue
                found[linked.id] = (linked, rel, d)
                if linked.kind not in CLASS_LIKE:  # a called class: its constructor was added
                    bucket.append(linked)
        if not down and not up:
            break
    return found, unresolved


def resolve_entry(ws, graph: CallGraph, entry: str) -> SymbolSlice:
    """ENTRY as a symbol: an id, `file.py:func`, or a (fuzzy) qualname anywhere."""
    from ..engine.index import walk
    from ..engine.lookup import _exact, _overload_impl, resolve

    root = graph.snap.root if hasattr(graph.snap, "root") else ws.root
    if ":" in entry:
        path_part, _, rest = entry.partition(":")
        rel = _relative(root, path_part)
        if rel is not None and graph.snap.exists(rel):
            if is_sensitive(rel, graph.index.settings.sensitive):
                raise UsageError(f"{rel} is a sensitive file: symbolpack neither shows nor stores it")
            facts = graph.facts(rel)
            if facts is None or not facts.parsed:
                raise NotFound(f"no symbols in {rel} (no parser handles it)")
            lang, _, local = rest.partition(":")
            if lang == facts.language and local:
                rest = local
            if not rest:
                _whole_file_error(rel)
            return resolve(rest, list(facts.symbols), where=rel)
    warm = ws.warm_symbols(root)  # a resident engine holds every symbol already: no walk, no grep
    if warm is not None:
        symbols = warm
    else:
        listed = walk(root, root).files
        named = _files_naming(root, listed, entry)
        if named is not None:  # every exact candidate lives in a file that names it: parse those
            symbols = [s for f in ws.index.iter_files(named) for s in f.symbols]
            if _exact(entry, symbols) or _overload_impl(entry, symbols):
                return resolve(entry, symbols)
        symbols = [s for f in ws.index.iter_files(listed) for s in f.symbols]  # fuzzy: every name
    if not symbols:
        raise NotFound(f"no symbols found under {root}")
    return resolve(entry, symbols)


def _files_naming(root: Path, listed: list[Path], entry: str) -> list[Path] | None:
    """Of *listed*, the files where the last name of *entry* occurs as a whole word in
    any case (`git grep -lwi`; the exact matches of `lookup` ignore case too), or None
    when git cannot say (not a repository, a name git's words do not cover)."""
    import subprocess

    leaf = re.split(r"[.:#/]", entry.split("#")[0])[-1]
    if not re.fullmatch(r"[A-Za-z0-9_]+", leaf):
        return None
    try:
        out = subprocess.run(["git", "grep", "-l", "-z", "-w", "-i", "-F", "--untracked", "-e", leaf],
                             cwd=root, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode not in (0, 1):  # 1: no file names it
        return None
    found = {(root / p).resolve() for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p}
    return [p for p in listed if p.resolve() in found]


def _whole_file_error(rel: str):
    raise UsageError(f"name a symbol after the file: {rel}:NAME")


def _relative(root: Path, path_part: str) -> str | None:
    p = Path(path_part)
    if not p.is_absolute():
        cwd_rel = (Path.cwd() / p).resolve()
        try:
            return cwd_rel.relative_to(root).as_posix() if cwd_rel.exists() else p.as_posix()
        except ValueError:
            return p.as_posix()
    try:
        return p.resolve().relative_to(root).as_posix()
    except ValueError:
        return None
