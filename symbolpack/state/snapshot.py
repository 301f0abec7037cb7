"""The files of one tree (the working tree or a commit), read lazily and memoised:
what the call graph resolves against."""

from __future__ import annotations

import posixpath
from pathlib import Path

from .git import cat_blobs, run_git
from ..engine.index import sha256_hex

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Callable, Iterable, Sequence

MAX_GRAPH_BYTES = 2 * 1024 * 1024


class Snapshot:
    """The files of one tree (the working tree or a commit), read lazily, memoised."""

    def __init__(self) -> None:
        self._data: dict[str, bytes | None] = {}
        self._sha: dict[str, str | None] = {}
        self._paths: list[str] | None = None
        self._path_set: frozenset[str] | None = None
        self._dirs: dict[str, tuple[str, ...]] | None = None
        self.seeded: set[str] = set()  # paths whose bytes a caller gave (`seed`), not read here

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
        self.seeded.add(path)
        self._data[path] = data
        self._sha.pop(path, None)

    def carry_over(self, old: "Snapshot", paths: Iterable[str]) -> None:
        """Take what *old* read of *paths* (files known to hold the same bytes now)."""
        for p in paths:
            if p in old._data:
                self._data[p] = old._data[p]
            if p in old._sha:
                self._sha[p] = old._sha[p]

    def sha(self, path: str) -> str | None:
        if path not in self._sha:
            data = self.read(path)
            self._sha[path] = sha256_hex(data) if data is not None else None
        return self._sha[path]

    def grep_words(self, names: Sequence[str]) -> Callable[[], set[str] | None]:
        """Paths where one of *names* may occur as a whole word (a superset: callers
        confirm), or None when this snapshot cannot ask git. Returns a function to
        call for the answer: git searches while the caller does other work."""
        return lambda: None

    def _git_grep(self, names: Sequence[str], *rev: str) -> Callable[[], set[str] | None]:
        import subprocess

        args = ["git", "grep", "-l", "-z", "-w", "-F", *(a for n in names for a in ("-e", n))]
        cmd = [*args, "--full-name", *rev, "--", ":/"] if rev else [*args, "--untracked"]
        try:
            proc = subprocess.Popen(cmd, cwd=self.root, stdout=subprocess.PIPE,  # type: ignore[attr-defined]
                                    stderr=subprocess.DEVNULL)
        except OSError:
            return lambda: None

        def answer() -> set[str] | None:
            try:
                out, _ = proc.communicate(timeout=120)
            except subprocess.SubprocessError:
                proc.kill()
                proc.communicate()
                return None
            if proc.returncode not in (0, 1):  # 1: nothing matched
                return None
            prefix = f"{rev[0]}:" if rev else ""
            found = set()
            for entry in out.decode("utf-8", "surrogateescape").split("\0"):
                if entry:
                    found.add(entry[len(prefix):] if prefix and entry.startswith(prefix) else entry)
            return found

        return answer

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
        from ..engine.index import walk_names
        from ..base.workspace import display_path

        top = str(self.root).rstrip("/") + "/"  # display_path, without pathlib per file
        return [name[len(top):] if name.startswith(top) else display_path(Path(name), self.root)
                for name in walk_names(self.root, self.root)[0]]

    def _read(self, path: str) -> bytes | None:
        try:
            return (self.root / path).read_bytes()
        except OSError:
            return None

    def grep_words(self, names: Sequence[str]) -> Callable[[], set[str] | None]:
        return self._git_grep(names)  # outside a repository git fails: None


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

    def grep_words(self, names: Sequence[str]) -> Callable[[], set[str] | None]:
        return self._git_grep(names, self.rev)
