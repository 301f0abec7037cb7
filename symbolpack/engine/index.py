"""The repository's files and their symbols: the walk, the parse cache, the pool.

* The walk asks git (`ls-files`: tracked plus untracked-not-ignored) inside a
  repository and applies `.gitignore` rules itself outside one; `.symbolpackignore`
  applies in both. Nothing is capped silently: skipped files are counted and
  reported by reason.
* The parse cache (diskcache, under the state dir) is keyed by the content hash
  plus the query version, never by mtime, so a cache entry can never describe
  other bytes than the ones being read. A corrupt cache is deleted and rebuilt
  with a warning.
* Cold indexing of many files fans out to a process pool (one per core); a few
  files parse in-process, where a pool's start-up would cost more than it saves.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

from ..base.errors import NotFound
from .languages import has_query, language_for_path, language_for_source, query_version
from ..base.settings import Settings, load_settings
from .sources import is_sensitive
from .symbols import Reference, SymbolSlice, parse_bytes
from ..base.workspace import StateUnavailable, display_path, find_repo_root, sha256_hex, state_dir

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Any, Iterable, Iterator, Sequence

    from typing import Protocol

    from ..base.protocol import FileSymbolsJSON

    class Renderer(Protocol):
        """What the index asks of `structure`'s renderer (`rendercache.Renderer`, one
        layer up: it renders with `outline`, which reads `FileSymbols`)."""

        def key(self, parse_key: str, lang: str, rel: str) -> str: ...
        def render(self, fs: FileSymbols) -> tuple[int, str]: ...
        def valid(self, value: object) -> bool: ...

MAX_INDEX_BYTES = 2 * 1024 * 1024
_POOL_MIN_FILES = 24
_POOL_MIN_BYTES = 512 * 1024
# a batch of `Index.iter_files`: what is read, parsed and bound before the next is read
_BATCH_BYTES = 8 * 1024 * 1024
_BATCH_FILES = 2048


# A namedtuple and a plain class, not dataclasses: this module is on the start-up
# path of `diff-context` and `context`, where the `dataclasses` import and dataclass
# creation cost ~12 ms a process.
class FileSymbols(namedtuple("FileSymbols", ["path", "language", "sha256", "symbols", "references", "parse_error"],
                             defaults=[(), (), None])):
    """One file's symbols, bound to its repo-relative path (`references`: always empty
    now; the call graph's facts hold a file's call sites)."""

    __slots__ = ()

    path: str
    language: str | None
    sha256: str
    symbols: tuple[SymbolSlice, ...]
    references: tuple[Reference, ...]
    parse_error: str | None

    @property
    def parsed(self) -> bool:
        return self.language is not None and has_query(self.language) and self.parse_error is None

    def to_json(self) -> FileSymbolsJSON:
        return {"path": self.path, "language": self.language,
                "symbols": [s.to_json() for s in self.symbols]}


class WalkResult:
    """The files a walk found, and how many it skipped by reason."""

    __slots__ = ("files", "skipped")

    def __init__(self, files: list[Path], skipped: dict[str, int] | None = None) -> None:
        self.files = files
        self.skipped: dict[str, int] = {} if skipped is None else skipped


def looks_binary(data: bytes) -> bool:
    return b"\0" in data[:8192]


# --------------------------------------------------------------------------- walk

def walk(path: Path, root: Path) -> WalkResult:
    """Every indexable file under *path* (a file or a directory) inside *root*."""
    names, skipped = walk_names(path, root)
    return WalkResult([Path(n) for n in names], skipped)


def walk_names(path: Path, root: Path) -> tuple[list[str], dict[str, int]]:
    """`walk` as absolute path strings, in `walk`'s order (a 30,000-file tree lists in
    a third of the time without a Path object per file), and the skipped counts."""
    path = path.resolve()
    if path.is_file():
        return [str(path)], {}
    if not path.is_dir():
        raise NotFound(f"no such file or directory: {path}")
    git_root = find_repo_root(path)
    candidates = _git_files(path, git_root) if git_root is not None else None
    if candidates is None:
        candidates = [str(p) for p in _plain_walk(path)]
    ignore = _load_ignore(root / ".symbolpackignore")
    files: list[str] = []
    skipped: dict[str, int] = {}
    for file in candidates:
        if ignore is not None and ignore.match_file(display_path(Path(file), root)):
            skipped["symbolpackignore"] = skipped.get("symbolpackignore", 0) + 1
            continue
        try:
            st = os.lstat(file)
        except OSError:
            continue  # deleted since git listed it
        if not _is_regular(st):
            continue
        if st.st_size > MAX_INDEX_BYTES:
            skipped["too large"] = skipped.get("too large", 0) + 1
            continue
        files.append(file)
    files.sort(key=lambda f: f.split("/"))  # as Paths sort: by components
    return files, skipped


def _is_regular(st: os.stat_result) -> bool:
    import stat

    return stat.S_ISREG(st.st_mode)


def _git_files(path: Path, git_root: Path) -> list[str] | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(path), "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name"],
            capture_output=True, check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    names = dict.fromkeys(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)
    top = str(git_root).rstrip("/")
    return [f"{top}/{name}" for name in names]


def _plain_walk(top: Path) -> Iterable[Path]:
    """os.walk with `.gitignore` files honoured per directory, `.git`-like dirs skipped."""
    specs: list[tuple[Path, Any]] = []  # (directory, its pathspec.PathSpec)
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        spec = _load_ignore(here / ".gitignore")
        if spec is not None:
            specs.append((here, spec))
        specs = [(base, s) for base, s in specs if base == here or base in here.parents]

        def ignored(p: Path, is_dir: bool) -> bool:
            for base, s in specs:
                rel = p.relative_to(base).as_posix() + ("/" if is_dir else "")
                if s.match_file(rel):
                    return True
            return False

        dirnames[:] = sorted(
            d for d in dirnames
            if d not in (".git", ".hg", ".svn", ".symbolpack") and not ignored(here / d, True)
        )
        for name in sorted(filenames):
            p = here / name
            if not ignored(p, False):
                yield p


def _load_ignore(path: Path):
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


# --------------------------------------------------------------------------- parse

def _parse_job(job: tuple[str | None, bytes]) -> tuple:
    """Pool worker: parse and return the packed (plain-tuple) form, which pickles
    an order of magnitude faster than dataclasses on the way back."""
    lang, data = job
    return _pack(*parse_bytes(data, lang, references=False))


class DiskCache:
    """A diskcache.Cache that never breaks a command: a fault warns once, deletes the
    cache and rebuilds it (or runs without one). The parse cache and the call-graph
    cache are both this."""

    def __init__(self, directory: Path, size_limit: int = 2**30, label: str = "parse cache"):
        self.directory = directory
        self.size_limit = size_limit
        self.label = label
        self._cache = None
        self._broken = False

    def _open(self):
        if self._cache is None and not self._broken:
            import diskcache

            try:
                self._cache = diskcache.Cache(str(self.directory), size_limit=self.size_limit)
            except Exception as exc:
                self._repair(exc)
        return self._cache

    def _repair(self, exc: BaseException) -> None:
        import shutil

        print(f"symbolpack: warning: {self.label} at {self.directory} is unreadable ({exc}); rebuilding it",
              file=sys.stderr)
        if self._cache is not None:
            try:
                self._cache.close()
            except Exception:
                pass
        self._cache = None
        shutil.rmtree(self.directory, ignore_errors=True)
        try:
            import diskcache

            self._cache = diskcache.Cache(str(self.directory), size_limit=self.size_limit)
        except Exception:
            self._broken = True  # run without a cache rather than fail

    def get(self, key: str):
        return self.get_many([key]).get(key)

    def set(self, key: str, value) -> None:
        self.set_many({key: value})

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple]:
        cache = self._open()
        if cache is None:
            return {}
        found: dict[str, tuple] = {}
        try:
            for key in keys:
                value = cache.get(key)
                if value is not None:
                    found[key] = value
        except Exception as exc:
            self._repair(exc)
            return {}
        return found

    def set_many(self, items: dict[str, tuple]) -> None:
        cache = self._open()
        if cache is None or not items:
            return
        try:
            with cache.transact():
                for key, value in items.items():
                    cache.set(key, value)
        except Exception as exc:
            self._repair(exc)

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None


def _cache_key(lang: str, digest: str) -> str:
    return f"{query_version(lang)}:{digest}"


def _pack(records, refs, error) -> tuple:
    """Plain tuples (records are namedtuples) for the cache and the pool: they pickle
    without naming a class, so they stay readable across versions. References are not
    kept: call sites live with the call graph's facts, and a warm index of a big tree
    spent a fifth of its time unpickling and rebuilding references nobody read."""
    return [tuple(r) for r in records], [], error


def _bind_packed(rel: str, lang: str, value: tuple) -> tuple[tuple[SymbolSlice, ...], tuple[Reference, ...], str | None]:
    recs, refs, error = value
    # what `bind` gives for these records, built in one step (a warm index binds ~500,000 of them)
    prefix = f"{rel}:{lang}:"
    make = SymbolSlice._make
    symbols = tuple(make((prefix + r[0], r[1], r[2], r[3], prefix + r[4] if r[4] else None, r[5], tuple(r[6]),
                          tuple(r[7]) if r[7] else None, r[8], rel)) for r in recs)
    return symbols, (), error


class _Pending:
    """One file on its way through `Index.iter_files`: its bytes are held only while
    its batch is being parsed."""

    __slots__ = ("rel", "path", "stat", "lang", "data", "digest", "size", "skip", "out", "_key", "_key_of")

    def __init__(self, rel: str, path: str | Path | None, stat, lang: str | None, data: bytes | None,
                 digest: str | None, size: int = 0):
        self.rel, self.path, self.stat, self.lang = rel, path, stat, lang
        self.data, self.digest, self.size, self.skip = data, digest, size, False
        self.out: tuple[int, str] | None = None  # its rendered fragment, found in the cache
        self._key: str | None = None
        self._key_of: tuple | None = None

    @property
    def key(self) -> str | None:
        """The parse-cache key, once the digest is known (None: no parser for it)."""
        if self._key_of != (self.lang, self.digest):  # asked several times per file: computed once
            self._key_of = (self.lang, self.digest)
            self._key = _cache_key(self.lang, self.digest) if self.digest is not None and has_query(self.lang) \
                else None
        return self._key


class Index:
    """Symbols of the files under one project root, served through the parse cache."""

    def __init__(self, root: Path, use_cache: bool = True, jobs: int | None = None,
                 settings: Settings | None = None):
        self.root = root.resolve()
        self.settings = settings if settings is not None else load_settings(self.root)
        self._root_prefix = str(self.root).rstrip("/") + "/"
        self.jobs = jobs if jobs is not None else (os.cpu_count() or 1)
        self._pool = None
        self.files_read = 0  # by iter_files: what the stat digests could not spare
        self.cache = None
        if use_cache:
            try:
                self.cache = DiskCache(state_dir(self.root, settings=self.settings) / "cache")
            except StateUnavailable:  # no state directory: parse without a cache
                pass

    def close(self) -> None:
        self._stop_pool()
        if self.cache is not None:
            self.cache.close()

    def _stop_pool(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _process_pool(self):
        """One pool for every batch of an `iter_files` (started at its first big batch)."""
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            try:
                ctx = multiprocessing.get_context("fork")
            except ValueError:
                ctx = None
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx)  # type: ignore[assignment]
        return self._pool

    def rel(self, path: Path) -> str:
        return display_path(path.resolve(), self.root)

    def _walked_rel(self, path: str | Path) -> str:
        """`rel` for a path `walk` listed: already absolute and free of symlinked
        directories (git lists none through them, os.walk does not follow them), so a
        path under the root needs no `resolve` (a dozen system calls per file)."""
        text, top = os.fspath(path), self._root_prefix
        if text.startswith(top) and "/./" not in text and "/../" not in text and os.path.isabs(text):
            return text[len(top):]
        return self.rel(Path(text))

    def symbols_for_bytes(self, rel: str, data: bytes, lang: str | None = None, tree=None) -> FileSymbols:
        """Symbols of in-memory *data* as if it were the file *rel* (no disk read); *tree*:
        its syntax tree when the caller parsed it already (a cache miss then parses nothing)."""
        return self._bind_all([(rel, lang or language_for_source(rel, data), data)], tree)[0]

    def file(self, path: Path) -> FileSymbols:
        path = path.resolve()
        if is_sensitive(path, self.settings.sensitive):
            return self.symbols_for_bytes(self.rel(path), b"")
        data = path.read_bytes()
        return self.symbols_for_bytes(self.rel(path), data)

    def files(self, paths: Sequence[Path]) -> list[FileSymbols]:
        return list(self.iter_files(paths))

    def iter_files(self, paths: Iterable[str | Path], progress=None) -> Iterator[FileSymbols]:
        """Symbols of *paths* in order, a batch at a time: at most `_BATCH_BYTES` of source
        are held at once, never every file's bytes. A file whose stat signature matches
        the digest recorded when it was last read (`statdigests`) is not read at all when
        the parse cache holds that digest. *progress(n)* is told of every file done."""
        return self._iter(paths, progress, None)

    def iter_rendered(self, paths: Iterable[str | Path], render: Renderer, progress=None) -> Iterator[tuple[int, str]]:
        """`iter_files` rendered by *render*: (symbol count, fragment) per file, in order.
        A file known by its stat signature whose fragment is cached (`rendercache`) is
        neither read nor unpickled; the others are rendered and their fragments cached."""
        return self._iter(paths, progress, render)

    def _iter(self, paths: Iterable[str | Path], progress, render: Renderer | None) -> Iterator[Any]:
        known = self._stat_digests()
        batch: list[_Pending] = []
        held = 0
        in_flight = None  # the batch the pool is parsing while the next one is read
        try:
            for path in paths:
                item = self._pending(path, known)
                if item is None:
                    continue
                batch.append(item)
                held += item.size
                if held >= _BATCH_BYTES or len(batch) >= _BATCH_FILES:
                    started = self._start(batch, known, render)
                    if in_flight is not None:
                        yield from self._complete(in_flight, progress, render)
                    in_flight, batch, held = started, [], 0
            started = self._start(batch, known, render)
            if in_flight is not None:
                yield from self._complete(in_flight, progress, render)
            yield from self._complete(started, progress, render)
            if known is not None:
                known.save()
        finally:
            self._stop_pool()

    def _stat_digests(self):
        if self.cache is None:
            return None
        from .statdigests import StatDigests

        return StatDigests.load(self.cache.directory.parent / "stat-digests.pickle")

    def _pending(self, path: str | Path, known) -> _Pending | None:
        rel = self._walked_rel(path)
        if is_sensitive(rel, self.settings.sensitive):  # listed, never read (see _bind_all)
            return _Pending(rel, None, None, None, b"", sha256_hex(b""))
        try:
            st = os.stat(path)
        except OSError:
            return None
        lang = language_for_path(path)
        hit = known.get(rel, st) if known is not None else None
        if hit is not None:
            digest, binary = hit
            return _Pending(rel, path, st, None if binary else lang, None, digest)
        return _Pending(rel, path, st, lang, None, None, st.st_size)

    def _start(self, batch: list[_Pending], known, render: Renderer | None = None) -> tuple:
        """Cache lookups, reads of what the cache cannot answer, the misses sent to be
        parsed (to the pool when there are many: they parse while the caller goes on)."""
        if render is not None and self.cache:
            self._lookup_rendered(batch, render)
        packed = self._lookup([p for p in batch if p.digest is not None and p.out is None])
        for p in batch:
            if p.out is not None or p.data is not None or (p.digest is not None and (p.key is None or p.key in packed)):
                continue  # rendered, sensitive, or known by its stat and answered (or no parser wants it)
            try:
                with open(p.path, "rb") as f:  # type: ignore[arg-type]  # a file to read has a path
                    data = f.read()
            except OSError:
                p.skip = True
                continue
            self.files_read += 1
            binary = looks_binary(data)
            if binary:
                p.lang, data = None, b""
            elif p.lang == "c":  # a `.h` file may be C++ (`language_for_source`)
                p.lang = language_for_source(p.rel, data)
            p.data, p.digest = data, sha256_hex(data)
            if known is not None:
                known.put(p.rel, p.stat, p.digest, binary)
        if render is not None and self.cache:  # read and hashed: its fragment may be cached all the same
            self._lookup_rendered([p for p in batch if p.data is not None and p.out is None], render)
        packed.update(self._lookup([p for p in batch if p.data is not None and p.out is None and p.key not in packed]))
        misses = {p.key: p for p in batch
                  if p.key is not None and p.out is None and p.key not in packed and not p.skip}
        return batch, packed, list(misses), self._parse_later([(p.lang, p.data or b"") for p in misses.values()])

    def _lookup_rendered(self, batch: list[_Pending], render: Renderer) -> None:
        """Cached fragments of the files of *batch* whose digest is known (sensitive ones never)."""
        wanted = {render.key(p.key, p.lang, p.rel): p for p in batch  # type: ignore[arg-type]  # a key: a lang
                  if p.path is not None and p.key is not None and p.out is None}
        for key, value in self.cache.get_many(list(wanted)).items() if wanted and self.cache else ():
            if render.valid(value):
                wanted[key].out = value

    def _complete(self, started: tuple, progress, render: Renderer | None = None) -> Iterator[Any]:
        """A started batch's parses cached, then its files bound (and rendered), in order."""
        batch, packed, misses, parsed = started
        new_entries: dict[str, tuple] = {}
        for key, value in zip(misses, parsed()):
            packed[key] = value
            if value[2] is None:  # failures are not cached: a fixed grammar should retry
                new_entries[key] = value
        if self.cache:
            self.cache.set_many(new_entries)
        rendered: dict[str, tuple] = {}
        for p in batch:
            p.data = None
            if p.skip:
                continue
            if p.out is not None:
                out, p.out = p.out, None
                yield out
                continue
            if p.key is not None:
                symbols, refs, error = _bind_packed(p.rel, p.lang, packed[p.key])
                fs = FileSymbols(p.rel, p.lang, p.digest, symbols, refs, error)
            else:
                fs = FileSymbols(p.rel, p.lang, p.digest)
            if render is None:
                yield fs
                continue
            out = render.render(fs)
            if p.key is not None and p.path is not None and fs.parse_error is None:  # never a sensitive file
                rendered[render.key(p.key, p.lang, p.rel)] = out
            yield out
        if rendered and self.cache:
            self.cache.set_many(rendered)
        if progress is not None:
            progress(len(batch))

    def _lookup(self, pending: list[_Pending]) -> dict[str, tuple]:
        keys = [p.key for p in pending if p.key is not None]
        return self.cache.get_many(list(dict.fromkeys(keys))) if self.cache and keys else {}

    def _bind_all(self, items: list[tuple[str, str | None, bytes]], tree=None) -> list[FileSymbols]:
        # a sensitive file (by name, `sources.is_sensitive`) is never parsed nor cached:
        # no symbol, signature or digest of its content may reach the state directory
        sensitive = self.settings.sensitive
        items = [(rel, None, b"") if is_sensitive(rel, sensitive) else (rel, lang, data) for rel, lang, data in items]
        digests = [sha256_hex(data) for _, _, data in items]
        keys = {i: _cache_key(lang, digests[i]) for i, (_, lang, _) in enumerate(items) if has_query(lang)}
        packed: dict[int, tuple] = {}
        if self.cache:
            cached = self.cache.get_many(list(dict.fromkeys(keys.values())))
            packed = {i: cached[key] for i, key in keys.items() if key in cached}
        misses = [i for i in keys if i not in packed]
        if tree is not None and len(misses) == 1 == len(items):
            fresh = [_pack(*parse_bytes(items[0][2], items[0][1], tree=tree))]  # the facts' query: compiled once
        else:
            fresh = self._parse_many([(items[i][1], items[i][2]) for i in misses])
        new_entries: dict[str, tuple] = {}
        for i, value in zip(misses, fresh):
            packed[i] = value
            if value[2] is None:  # failures are not cached: a fixed grammar should retry
                new_entries[keys[i]] = value
        if self.cache:
            self.cache.set_many(new_entries)
        out = []
        for i, (rel, lang, _) in enumerate(items):
            if i in packed and lang:
                symbols, refs, error = _bind_packed(rel, lang, packed[i])
                out.append(FileSymbols(rel, lang, digests[i], symbols, refs, error))
            else:
                out.append(FileSymbols(rel, lang, digests[i]))
        return out

    def _parse_many(self, jobs: list[tuple[str | None, bytes]]) -> list[tuple]:
        return self._parse_later(jobs)()

    def _parse_later(self, jobs: list[tuple[str | None, bytes]]):
        """A function returning the parses of *jobs*: a pool's are under way already."""
        total = sum(len(d) for _, d in jobs)
        if self.jobs > 1 and len(jobs) >= _POOL_MIN_FILES and total >= _POOL_MIN_BYTES:
            # biggest first so one large file does not finish the run alone
            order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][1]))
            done = self._process_pool().map(_parse_job, [jobs[i] for i in order], chunksize=8)

            def gathered() -> list:
                results: list = [None] * len(jobs)
                for i, r in zip(order, done):
                    results[i] = r
                return results

            return gathered
        return lambda: [_parse_job(job) for job in jobs]
