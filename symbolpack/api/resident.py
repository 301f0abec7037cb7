"""The resident engine: one project's file list, symbols and call graph kept warm
for a long-lived server, and invalidated file by file.

Why: a CLI process starts cold every time, and that is fine for one read. A
server that did the same per tool call re-walked the repository, re-read and
re-hashed every file and reopened its caches on every `context` (22 ms on a
small repository; minutes at 5,000 files). The engine keeps, between calls:

* the tree: the walked file list and each file's identity, its stat data
  (mtime, ctime, size, inode) plus, for a file git tracks, its blob id from
  `git ls-files -s`. The list is walked again only when something that decides
  it changed: a directory holding listed files (a file added, removed or
  renamed), the git index or HEAD (`git add`, `checkout`, `commit`), an ignore
  file. A file is looked at again only when its identity changed, so a clean
  tracked file is never read or hashed to learn that it did not change;
* each file's symbols (`FileSymbols` from the index and its parse cache), for
  name lookups (`context ENTRY`, `search_symbols`);
* one `CallGraph` of the working tree, with its facts, file contents and caches
  open. When files change, the graph is rebuilt around what the unchanged files
  already had (a file's facts depend on its bytes alone; edges are re-checked
  through the edge cache's observations, as a cold run does).

A stat is only as good as the clock: a file written twice within one timestamp
tick, same size, same inode, looks unchanged. Like git's "racy clean" rule, a
file whose mtime was within `RACY_SECONDS` of the moment it was looked at is
counted as changed on the next call too.

Sessions need nothing warm: a read opens only its own file's record
(`sessionstore.py`).

Threads: the engine is not thread-safe. The MCP server runs each tool in a
worker thread holding `Engine.lock`, so its event loop never blocks and calls
run one at a time per repository. The index parses in-process (one job): no
process pool is forked inside a threaded server.
"""

from __future__ import annotations

import os
import threading
import time

from .operations import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Callable, TypeVar

    from ..packs.callgraph import CallGraph
    from ..engine.index import DiskCache, FileSymbols, Index
    from ..base.settings import Settings
    from ..state.snapshot import Snapshot
    from ..engine.symbols import SymbolSlice

    _T = TypeVar("_T")

RACY_SECONDS = 2.0


class EngineWorkspace(Workspace):
    """A `Workspace` whose call graph and symbol list come warm from its engine."""

    def __init__(self, engine: Engine, root: str | None = None, settings: Settings | None = None):
        super().__init__(root, settings)
        self.engine = engine

    @property
    def index(self) -> Index:
        if self._index is None:
            from ..engine.index import Index

            self._index = Index(self.root, jobs=1, settings=self.settings)  # no fork from a threaded server
        return self._index

    def call_graph(self, root: Path, snapshot: Snapshot) -> CallGraph:
        from ..state.snapshot import WorkTreeSnapshot

        if type(snapshot) is WorkTreeSnapshot and os.path.realpath(root) == self.root_dir:
            return self.engine.graph()
        return super().call_graph(root, snapshot)

    def release_graph(self, graph: CallGraph) -> None:
        if graph is not self.engine._graph:
            super().release_graph(graph)

    def warm_symbols(self, root: Path) -> list[SymbolSlice] | None:
        return self.engine.symbols() if os.path.realpath(root) == self.root_dir else None

    def symbols_of(self, rel: str, data: bytes) -> list[SymbolSlice] | None:
        """As a cold read finds them, but parsed from the tree this engine last
        parsed of *rel*, where it has one (`reparse.py`): re-reads of a big file
        being edited reparse around the edits only."""
        from ..engine.languages import has_query, language_for_source
        from ..engine.symbols import bind, parse_bytes

        lang = language_for_source(rel, data)
        if not has_query(lang):
            return None
        records, _, error = parse_bytes(data, lang, references=False, tree=self.engine.trees.tree(rel, lang, data))
        return None if error else bind(rel, lang, records)


class Engine:
    """One project, kept warm. Use `run(fn)`: it takes the lock and calls fn(workspace)."""

    def __init__(self, root: str | None = None, settings: Settings | None = None):
        self.ws = EngineWorkspace(self, root, settings)
        self.root = self.ws.root_dir
        self.lock = threading.Lock()
        self.walks = 0  # how many times the tree was walked (tests, benchmarks)
        self.rebuilds = 0  # how many times the call graph was rebuilt
        self._paths: list[str] = []
        self._listed = False  # walked at least once
        self._ident: dict[str, tuple[object, ...]] = {}
        self._racy: set[str] = set()
        self._token: tuple[object, ...] | None = None
        self._blobs: dict[str, str] = {}
        self._symbols: dict[str, FileSymbols | None] = {}
        self._graph: CallGraph | None = None
        self._graph_cache: DiskCache | None = None
        self._fresh = False  # refreshed during the current call
        self._gitdir: str | None = None
        self._stopping = False
        self.trees = Trees()

    # -- the front door
    def run(self, fn: Callable[[EngineWorkspace], _T]) -> _T:
        """fn(workspace) under the engine's lock; the tree is looked at (once) when
        fn first needs the graph or the symbols."""
        with self.lock:
            self._fresh = False
            return fn(self.ws)

    def close(self) -> None:
        self._stopping = True
        with self.lock:
            if self._graph_cache is not None:
                self._graph_cache.close()
                self._graph_cache = None
            self._graph = None
            self.ws.close()

    # -- what callers ask for
    def graph(self) -> CallGraph:
        """The call graph of the working tree as it is now."""
        self.refresh()
        if self._graph is None:
            self._graph = self._new_graph(None, set())
        return self._graph

    def symbols(self) -> list[SymbolSlice]:
        """Every symbol of the working tree, in walk order (as `index.files(walk(...))`)."""
        self.refresh()
        self._index_symbols([p for p in self._paths if p not in self._symbols])
        found = (self._symbols.get(p) for p in self._paths)
        return [s for fs in found if fs is not None for s in fs.symbols]

    def _index_symbols(self, paths: list[str]) -> None:
        if not paths:
            return
        index = self.ws.index
        files = [self.ws.root / p for p in paths]
        found = iter(index.files(files))  # in order; a file that cannot be read is left out
        fs = next(found, None)
        for p in paths:
            if fs is not None and (fs.path == p or fs.path == index.rel(self.ws.root / p)):  # a symlink: its target
                self._symbols[p] = fs
                fs = next(found, None)
            else:
                self._symbols[p] = None

    def warm_up(self, chunk: int = 200) -> None:
        """Index every file's symbols ahead of the first name lookup, a chunk at a
        time under the lock, so calls that arrive meanwhile wait at most one chunk.
        Run in a background thread by the server; `stop()` ends it early."""
        with self.lock:
            self.ws.store_or_none()  # the state dir exists before the walk: making it changes the root
        for attempt in range(4):
            with self.lock:
                self._fresh = False
                self.refresh()
            while not self._stopping:
                with self.lock:
                    todo = [p for p in self._paths if p not in self._symbols][:chunk]
                    if not todo:
                        break
                    self._index_symbols(todo)
            if self._stopping or ("unsettled" not in (self._token or ()) and not self._racy):
                return
            # a listing taken while the tree was changing, or files changed just before
            # they were looked at: looked at again once the racy window has passed
            time.sleep(RACY_SECONDS + 0.1)

    def start_warm_up(self) -> None:
        thread = threading.Thread(target=self._warm_up_quietly, name="symbolpack-warm-up", daemon=True)
        thread.start()

    def _warm_up_quietly(self) -> None:
        try:
            self.warm_up()
        except Exception:  # warming up is an optimisation: a call does the same work when it needs it
            pass

    # -- looking at the tree
    def refresh(self) -> set[str]:
        """Compare the tree with what the engine holds; forget what changed. Returns
        the paths added, removed or changed (once per call: later asks reuse it)."""
        if self._fresh:
            return set()
        self._fresh = True
        if not self._listed or self._tree_token(self._paths) != self._token:
            start = time.time()
            paths = self._walk()
            self._listed = True
            self._blobs = self._blob_ids()
            self._token = self._tree_token(paths, settled_before=start)
        else:
            paths = self._paths
        now = time.time()
        ident: dict[str, tuple[object, ...]] = {}
        racy: set[str] = set()
        for p in paths:
            try:
                st = os.stat(os.path.join(self.root, p))
            except OSError:
                ident[p] = ("gone",)
                continue
            ident[p] = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, self._blobs.get(p))
            if now - st.st_mtime < RACY_SECONDS or now - st.st_ctime < RACY_SECONDS:
                racy.add(p)
        old = self._ident
        changed = {p for p, i in ident.items() if old.get(p) != i} | (set(old) - set(ident)) | self._racy
        listed_again = paths is not self._paths
        self._paths, self._ident, self._racy = paths, ident, racy
        for p in changed:
            self._symbols.pop(p, None)
        if changed or listed_again:
            if self._graph is not None and (changed or set(paths) != set(self._graph.snap.paths())):
                self._graph = self._new_graph(self._graph, changed)
        return changed

    def _new_graph(self, old: CallGraph | None, changed: set[str]) -> CallGraph:
        from ..packs.callgraph import CallGraph
        from ..packs.facts import graph_cache
        from ..state.snapshot import WorkTreeSnapshot
        from ..base.workspace import state_dir

        snapshot = WorkTreeSnapshot(self.ws.root, self._paths)
        if self._graph_cache is None:
            self._graph_cache = graph_cache(state_dir(self.ws.root, settings=self.ws.settings) / "graph")
        graph = CallGraph(self.ws.index, snapshot, self._graph_cache)
        if old is not None:
            keep = set(self._paths) - changed
            snapshot.carry_over(old.snap, keep)
            graph.carry_over(old, keep)
            self.rebuilds += 1
        return graph

    def _walk(self) -> list[str]:
        from ..state.snapshot import WorkTreeSnapshot

        self.walks += 1
        return WorkTreeSnapshot(self.ws.root).paths()  # the walk's files, repo-relative, in its order

    def _git_dir(self) -> str | None:
        if self._gitdir is None:
            import subprocess

            try:
                out = subprocess.run(["git", "-C", self.root, "rev-parse", "--absolute-git-dir"],
                                     capture_output=True, text=True, check=True).stdout.strip()
            except (OSError, subprocess.CalledProcessError):
                out = ""
            self._gitdir = out
        return self._gitdir or None

    def _blob_ids(self) -> dict[str, str]:
        """path -> blob id of every file in git's index (stage 0), from `git ls-files -s`."""
        if self._git_dir() is None:
            return {}
        import subprocess

        try:
            out = subprocess.run(["git", "-C", self.root, "ls-files", "-s", "-z", "--full-name"],
                                 capture_output=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            return {}
        blobs: dict[str, str] = {}
        for entry in out.split(b"\0"):
            meta, _, path = entry.partition(b"\t")
            parts = meta.split()
            if len(parts) == 3 and parts[2] == b"0":
                blobs[path.decode("utf-8", "surrogateescape")] = parts[1].decode()
        return blobs

    def _tree_token(self, paths: list[str], settled_before: float | None = None) -> tuple[object, ...]:
        """Stat data of everything that decides the file list of *paths*. Taken
        right after a walk (*settled_before*: when it started), an entry modified
        since shortly before the walk cannot vouch for the listing: it is left
        unsettled, which no later stat equals, so the next call walks again."""
        watched = [os.path.join(self.root, name) for name in (".gitignore", ".symbolpackignore")]
        gitdir = self._git_dir()
        if gitdir:
            watched += [os.path.join(gitdir, name) for name in ("index", "HEAD", os.path.join("info", "exclude"))]
        dirs = {""}
        for p in paths:
            dirs.add(os.path.dirname(p))
            if p.endswith((".gitignore", ".symbolpackignore")):
                watched.append(os.path.join(self.root, p))
        watched += [os.path.join(self.root, d) for d in sorted(dirs)]
        out: list[object] = []
        for path in watched:
            try:
                st = os.stat(path)
            except OSError:
                out.append(None)
                continue
            if settled_before is not None and max(st.st_mtime, st.st_ctime) >= settled_before - RACY_SECONDS:
                out.append("unsettled")
            else:
                out.append((st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino))
        return tuple(out)


class Trees:
    """The syntax tree of the version of each file this engine last parsed, for
    `reparse`. A tree takes ~30x its source in memory (a 175 KB file: ~6 MB), so
    only files of at least *min_bytes* are kept (a smaller one parses in a
    millisecond or two), the most recently used first out of *max_bytes* of
    source (~60 MB of trees)."""

    def __init__(self, max_bytes: int = 2 << 20, min_bytes: int = 16 << 10):
        self.max_bytes = max_bytes
        self.min_bytes = min_bytes
        self.reparsed = 0  # how many parses started from a kept tree (tests)
        self._kept: dict[str, tuple[str, bytes, object]] = {}  # rel -> (lang, bytes, tree), oldest first
        self._bytes = 0

    def tree(self, rel: str, lang: str, data: bytes) -> object | None:
        """The tree of *data*, reparsed from the kept tree of *rel* when there is one;
        None when the grammar fails (the caller parses, and reports the failure)."""
        from ..engine.languages import parser
        from ..engine.reparse import reparse

        kept = self._kept.pop(rel, None)
        if kept is not None:
            self._bytes -= len(kept[1])
        try:
            if kept is not None and kept[0] == lang:
                tree = reparse(parser(lang), kept[1], kept[2], data)  # type: ignore[arg-type]
                self.reparsed += 1
            else:
                tree = parser(lang).parse(data)
        except Exception:  # a broken grammar: the cold path parses and reports it
            return None
        if self.min_bytes <= len(data) <= self.max_bytes:
            self._kept[rel] = (lang, data, tree)
            self._bytes += len(data)
            while self._bytes > self.max_bytes:
                self._bytes -= len(self._kept.pop(next(iter(self._kept)))[1])
        return tree
