"""A host transcript's parse, kept between hook processes (Claude Code, Qwen Code),
and read from where it stopped (`GrowingFile`).

Every hook process would otherwise parse the whole transcript again; the parse is kept
in a private pickle beside the session's state, under a version, and parsed again from
where it stopped. A missing, torn or other-version file is simply parsed again, and a
failed write only costs the next hook a parse: never a decision taken on a stale parse
(the parse records how far into the file it read).
"""

from __future__ import annotations

import os
import pickle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


def load(cache_path: str, version: int, kind: type[T]) -> T:
    """The kept parse, or a new empty *kind*."""
    try:
        with open(cache_path, "rb") as fh:
            kept_version, value = pickle.load(fh)
        if kept_version == version and isinstance(value, kind):
            return value
    except Exception:  # missing, torn or from another version: parse again
        pass
    return kind()


def save(cache_path: str, version: int, value: object) -> None:
    from ..base.workspace import atomic_write, ensure_private_dir

    try:
        ensure_private_dir(os.path.dirname(cache_path))
        atomic_write(cache_path, pickle.dumps((version, value), protocol=pickle.HIGHEST_PROTOCOL), 0o600,
                     durable=False)
    except OSError:
        pass  # the next hook parses again


def digest(text: str) -> str:
    """What a transcript record's content is compared by: its text's sha256, shortened."""
    from ..base.workspace import sha256_hex

    return sha256_hex(text.encode("utf-8", "surrogateescape"))[:32]


class GrowingFile:
    """The part of an append-only JSON-lines file read so far. A file rewritten in place
    (another inode, shorter, or its first 4 KB or the bytes just before `offset`
    changed) is read again from its start: `__init__` runs again, the subclass's state
    with it."""

    def __init__(self) -> None:
        self.offset = 0
        self.ident: tuple = ()
        self.seam = b""  # the bytes just before `offset`, and
        self.head = b""  # the first 4 KB: a file rewritten in place changes one or the other

    def new_lines(self, path: str) -> list[tuple[bytes, int]] | None:
        """The complete lines appended since the last call, each with its offset; None
        when the file is not there. A line still being written waits for the next call."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        ident = (st.st_dev, st.st_ino)
        with open(path, "rb") as fh:
            if self.offset and ident == self.ident and st.st_size >= self.offset:
                head = fh.read(len(self.head))
                fh.seek(self.offset - len(self.seam))
                if fh.read(len(self.seam)) != self.seam or head != self.head:
                    self.ident = ()  # rewritten in place
            if ident != self.ident or st.st_size < self.offset:  # another file, or rewritten: start over
                self.__init__()  # type: ignore[misc]
                self.ident = ident
            if st.st_size == self.offset:
                return []
            fh.seek(self.offset)
            data = fh.read(st.st_size - self.offset)
        end = data.rfind(b"\n")
        if end < 0:
            return []  # a line still being written
        base = self.offset
        self.offset += end + 1
        self.seam = data[max(0, end + 1 - 64):end + 1]
        if len(self.head) < 4096:
            self.head = (self.head + data[:end + 1])[:4096]
        lines = []
        start = 0
        while start <= end:
            stop = data.index(b"\n", start)
            lines.append((data[start:stop], base + start))
            start = stop + 1
        return lines
