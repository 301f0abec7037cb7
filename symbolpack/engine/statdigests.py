"""File digests remembered by stat signature, so a warm index reads no unchanged file.

The parse cache is keyed by content hash, never by mtime: an entry can only
describe the bytes it was computed from. Hashing still means reading every
file, which on a 30,000-file tree costs more than the cache saves. This module
remembers, per repo-relative path, the digest of the bytes last read together
with the file's size, mtime, ctime and inode; when all four still match, the
digest is reused and the file is not read.

Why that cannot serve stale symbols: any write to a file sets its ctime to the
current time, and no user call can set ctime back. An entry is only stored when
the file's mtime and ctime are at least `_RACY_NS` old at saving time (git's
"racily clean" rule), so a later write always yields a newer ctime than the one
stored, and the signature no longer matches. The store is one pickle in the
state directory, written atomically; an unreadable one is ignored (everything is
read and hashed again).
"""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

_RACY_NS = 2_000_000_000  # an entry younger than this at saving time is not trusted later
_VERSION = 1


class StatDigests:
    """rel path -> (stat signature, digest, binary) for one project's files."""

    def __init__(self, path: Path, entries: dict[str, tuple]):
        self.path = path
        self._entries = entries
        self._fresh: dict[str, tuple] = {}

    @classmethod
    def load(cls, path: Path) -> StatDigests:
        try:
            with open(path, "rb") as f:
                version, entries = pickle.load(f)
            if version != _VERSION or not isinstance(entries, dict):
                entries = {}
        except Exception:  # missing, truncated, from another version: start empty
            entries = {}
        return cls(path, entries)

    def get(self, rel: str, st: os.stat_result) -> tuple[str, bool] | None:
        """(digest, binary) of *rel* when its stat signature is the one recorded."""
        entry = self._entries.get(rel)
        if entry is None or entry[0] != _signature(st):
            return None
        return entry[1], entry[2]

    def put(self, rel: str, st: os.stat_result, digest: str, binary: bool) -> None:
        """Record that *rel*, with stat *st* taken before it was read, held bytes of *digest*."""
        self._fresh[rel] = (_signature(st), digest, binary)

    def save(self) -> None:
        """Merge what was read into the store (entries too young to trust are left out)."""
        if not self._fresh:
            return
        limit = time.time_ns() - _RACY_NS
        for rel, entry in self._fresh.items():
            size, mtime, ctime, ino = entry[0]
            if mtime < limit and ctime < limit:
                self._entries[rel] = entry
            else:
                self._entries.pop(rel, None)
        self._fresh = {}
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as f:
                pickle.dump((_VERSION, self._entries), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.path)
        except OSError:  # a read-only state dir: the next run hashes again
            try:
                tmp.unlink()
            except OSError:
                pass


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino
