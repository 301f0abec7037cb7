"""Reading one file for an agent, safely: the only place file bytes enter a read.

Every refusal is decided here, before anything is parsed or stored: special
files (`/dev/zero`, FIFOs) are refused from `stat` without opening them, huge
files from their size, sensitive names from the name alone, and binary or
non-UTF-8 content after one bounded read. A `Source` either carries text the
rest of the pipeline may show and store, or a reason it must be passed through.
"""

from __future__ import annotations

import errno
import fnmatch
import functools
import os
import re
import stat as stat_mod
from collections import namedtuple

from ..base.errors import NotFound, SymbolpackError, UsageError
from ..base.workspace import display_path, sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

MAX_READ_BYTES = 50 * 1024 * 1024
MAX_DIFF_BYTES = 1024 * 1024
DEFAULT_SENSITIVE = (
    ".env", ".env.*", "*.env", "*.pem", "*.key", "*.p12", "*.pfx", "id_rsa*", "id_ed25519*",
    "id_ecdsa*", "id_dsa*", ".npmrc", ".netrc", ".pypirc", "*.keystore", "*.jks", "credentials.json",
)


class Source(namedtuple("Source", ["path", "rel", "data", "sha256", "passthrough", "size"],
                        defaults=[b"", "", None, 0])):
    """A file as the read pipeline sees it: the real path (symlinks resolved), its
    repo-relative name, and its bytes and hash, or a passthrough reason."""

    __slots__ = ()

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    @property
    def lines(self) -> list[str]:
        return split_text_lines(self.text)

    @property
    def diffable(self) -> bool:
        return self.size <= MAX_DIFF_BYTES


def split_text_lines(text: str) -> list[str]:
    """Lines as `cat -n` numbers them: split on LF, no phantom line after a final LF."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


@functools.lru_cache(maxsize=8)
def _sensitive_matcher(extra: tuple[str, ...]) -> Callable[[str], bool]:
    """One test for all patterns (the tree walks ask this of every file). Globs of
    literals and `*` (every default) are matched by prefix, suffix and ordered
    pieces, which is what fnmatch does with them, without compiling a regex in
    every process; any other glob goes into one compiled regex. Exact names, `P*`
    and `*S` globs (all but one default) are tested at once: a set, and one
    `startswith` and one `endswith` on tuples."""
    patterns = DEFAULT_SENSITIVE + extra
    simple = [p.split("*") for p in patterns if "?" not in p and "[" not in p]
    others = [p for p in patterns if "?" in p or "[" in p]
    regex = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in others)).match if others else None
    exact = frozenset(pieces[0] for pieces in simple if len(pieces) == 1)
    prefixes = tuple(pieces[0] for pieces in simple if len(pieces) == 2 and not pieces[1])  # "P*" (and "*")
    suffixes = tuple(pieces[1] for pieces in simple if len(pieces) == 2 and not pieces[0] and pieces[1])  # "*S"
    general = [pieces for pieces in simple if len(pieces) > 2 or (len(pieces) == 2 and pieces[0] and pieces[1])]

    def match(name: str) -> bool:
        if name in exact or name.startswith(prefixes) or name.endswith(suffixes):
            return True
        for pieces in general:
            head, tail = pieces[0], pieces[-1]
            if len(name) < len(head) + len(tail) or not name.startswith(head) or not name.endswith(tail):
                continue
            at, end = len(head), len(name) - len(tail)
            for piece in pieces[1:-1]:
                found = name.find(piece, at, end)
                if found < 0:
                    break
                at = found + len(piece)
            else:
                return True
        return regex is not None and regex(name) is not None

    return match


def is_sensitive(path: str | os.PathLike[str], extra: tuple[str, ...] = ()) -> bool:
    """Is this file's *name* one whose content symbolpack must never show, store or
    cache (`DEFAULT_SENSITIVE` plus *extra*: `Settings.sensitive`, the globs of
    `$SYMBOLPACK_SENSITIVE` or pyproject.toml)?"""
    name = os.fspath(path).rstrip("/").rsplit("/", 1)[-1]
    return _sensitive_matcher(extra)(name)


def stored_name(real: str | os.PathLike[str], root: str | os.PathLike[str]) -> str:
    """The name a file is kept and reported under, without reading it: repo-relative
    inside a repository (*root* holds `.git`); absolute in no repository, whose
    directory is only where its state is keyed, not a project. *real* is resolved."""
    return display_path(real, root) if os.path.lexists(os.path.join(root, ".git")) else os.fspath(real)


def load_source(path: str | os.PathLike[str], root: str | os.PathLike[str], sensitive: tuple[str, ...] = ()) -> Source:
    """Stat, classify and (when allowed) read *path*; *sensitive*: more names never
    read (`Settings.sensitive`). Raises NotFound when missing. `Source.path` is the
    resolved path, a str (no pathlib on the read path)."""
    try:
        real = os.path.realpath(path, strict=True)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError) or exc.errno == errno.ELOOP:  # a loop: no file there
            raise NotFound(f"no such file: {os.fspath(path)}") from None
        raise SymbolpackError(f"cannot open {os.fspath(path)}: {exc.strerror or exc}") from None
    rel = stored_name(real, root)
    try:
        st = os.stat(real)
    except OSError as exc:
        raise SymbolpackError(f"cannot open {path}: {exc.strerror or exc}") from None
    if stat_mod.S_ISDIR(st.st_mode):
        raise UsageError(f"{path} is a directory, not a file")
    if not stat_mod.S_ISREG(st.st_mode):
        return Source(real, rel, passthrough="not a regular file (device, FIFO or socket); refused without reading")
    if is_sensitive(real, sensitive) or is_sensitive(path, sensitive):
        return Source(real, rel, size=st.st_size,
                      passthrough="sensitive file name; symbolpack neither shows nor stores it")
    if st.st_size > MAX_READ_BYTES:
        return Source(real, rel, size=st.st_size,
                      passthrough=f"file is {st.st_size:,} bytes, over the {MAX_READ_BYTES // 2**20} MB limit")
    try:
        with open(real, "rb") as fh:
            data = fh.read(MAX_READ_BYTES + 1)
    except OSError as exc:
        raise SymbolpackError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_READ_BYTES:
        return Source(real, rel, size=len(data), passthrough="file grew past the size limit while reading")
    if b"\0" in data:
        return Source(real, rel, size=len(data), passthrough=f"binary file ({len(data):,} bytes)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return Source(real, rel, size=len(data), passthrough=f"not UTF-8 text ({len(data):,} bytes)")
    return Source(real, rel, data=data, sha256=sha256_hex(data), size=len(data))
