"""One session on disk: a small session document and one record per file.

Layout under the state dir's `sessions/` (`store.py` owns the rest):

    <id>.lock                the flock a whole load -> decide -> save holds (store.py)
    <id>/session.json        the session's own fields: ids, times, the intent counter,
                             stats, hook state; no file's copy
    <id>/drill-ins.json      the drill-in log (the last 500), written only when one is added
    <id>/files/<key>.json    one file's record: {"path", "touched", "copy", "tokens"?};
                             <key> = sha256 of the path (32 hex), so any path is a file name

Why shards: a read must cost what its own file costs. With one document per
session every read decoded, validated and rewrote every file's copy: O(entries)
per read (~26 ms at 5,000 entries), and an MCP session of thousands of reads
went quadratic. Here a read opens its file's record and the session document,
and writes the same two; no other record is read or written.

Why still JSON and not sqlite: records stay readable and repairable by hand,
and a hook process opens one in well under a millisecond without importing
`sqlite3`.

Validation is per record, on first touch: a record that does not fit is moved
aside alone (`<key>.json.bad-<time>`, collected after a week) with one warning,
and only that file is read plainly; the others stand. A session document that
does not fit is moved aside the same way: its counters start over and that one
answer is plain, while the file records stand (each is checked on its own).

LRU and TTL: a record's `touched` is its last answer (to the minute: a re-read
that leaves the copy as it was rewrites the record only when `touched` is a
minute old); one older than the TTL is absent when a read reaches it, and
collection (`store.gc`) drops it. The session document counts the records, so
the LRU bound costs nothing until a read passes it: then the files directory is
listed and the least recently written records go (a record's mtime is its last
write). A count a crash left short is made exact again by collection.

Durability: records are fsync'd before the answer goes out (a record must
survive whatever its answer survives). The session document and the drill-in
log are not: nothing in them vouches for a line, and one torn by a power cut is
set aside like any document that does not fit.

Earlier formats: the single v2 document (`<id>.json`) is migrated on first load
(records, drill-ins and counters carried over); one that does not fit the v2
format is moved aside (`<id>.json.bad-<time>`) and the session starts over with
plain reads, as before; the v1 per-view format starts over quietly.

`tokens` caches the token count of a plain read of the version the copy was
last answered from (`[sha256, counter, count]`): an unchanged re-read of a big
file otherwise spends most of its time counting tokens it does not send.
"""

from __future__ import annotations

import os
import time

from ..reads.agentcopy import AgentCopy
from ..base.workspace import atomic_write, ensure_private_dir, sha256_hex

SESSION_VERSION = 3
LEGACY_VERSION = 2
MAX_DRILL_INS = 500
SHARED_INTENT = ".pack"
META_NAME = "session.json"
DRILL_INS_NAME = "drill-ins.json"
FILES_DIR = "files"
# how stale a record's `touched` (its LRU/TTL clock) may get before a read that
# changes nothing in it writes it again: an unchanged re-read then costs no write
TOUCH_RESOLUTION_SECONDS = 60


def loads(raw: bytes):
    import json

    return json.loads(raw)


def dumps(data) -> bytes:
    import json

    return json.dumps(data, separators=(",", ":")).encode()


def record_key(path: str) -> str:
    return sha256_hex(path.encode("utf-8", "surrogateescape"))[:32]


def empty_meta(session_id: str, now: float) -> dict:
    return {"v": SESSION_VERSION, "id": session_id, "created": now, "touched": now, "seq": 0,
            "stats": {"reads": {}, "tokens": 0, "full_tokens": 0, "drill_ins": 0}}


def tokens_key() -> str:
    """Which counter a cached count was made with (the eval swaps in exact counts)."""
    from .._version import __version__
    from ..base.tokens import counter_name

    return f"{counter_name()}/{__version__}"


class SessionDir:
    """The files of one session: where they are, how they are read, checked and written."""

    __slots__ = ("path", "files", "session_id")

    def __init__(self, sessions_dir: str, session_id: str):
        self.session_id = session_id
        self.path = os.path.join(sessions_dir, session_id)
        self.files = os.path.join(self.path, FILES_DIR)

    def record_path(self, rel: str) -> str:
        return os.path.join(self.files, f"{record_key(rel)}.json")

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def exists(self) -> bool:
        return os.path.isdir(self.path)

    def ensure(self) -> None:
        ensure_private_dir(self.path)  # each level 0700 (mkdir's parents get the umask's mode)
        ensure_private_dir(self.files)

    def read_meta(self, now: float) -> tuple[dict | None, str | None]:
        """(document, None), (None, None) when there is none, or (None, why) when it
        did not fit and was moved aside."""
        path = self.file(META_NAME)
        try:
            raw = read_bytes(path)
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, f"is unreadable ({exc.strerror})"
        try:
            data = loads(raw)
            validate_meta(data, self.session_id)
        except (ValueError, KeyError, TypeError) as exc:
            kept = quarantine(path, now)
            return None, f"did not fit the session format ({exc}); it was moved aside{' to ' + os.path.basename(kept) if kept else ''}"
        return data, None

    def read_record(self, rel: str, now: float) -> tuple[dict | None, AgentCopy | None, str | None]:
        """(record, its copy decoded, None), (None, None, None) when there is none, or
        (None, None, why) when it did not fit (then it was moved aside)."""
        path = self.record_path(rel)
        try:
            raw = read_bytes(path)
        except FileNotFoundError:
            return None, None, None
        except OSError as exc:
            return None, None, f"is unreadable ({exc.strerror})"
        try:
            record = loads(raw)
            validate_record(record, rel)
            copy = AgentCopy.from_json(record["copy"])
        except (ValueError, KeyError, TypeError) as exc:
            quarantine(path, now)
            return None, None, f"{exc}; it was moved aside"
        return record, copy, None

    def write(self, path: str, data, durable: bool = True) -> None:
        atomic_write(path, dumps(data), 0o600, durable)

    def record_names(self) -> list[str]:
        try:
            return [n for n in os.listdir(self.files) if n.endswith(".json") and not n.startswith(".")]
        except FileNotFoundError:
            return []


class Session:
    """One session as a read sees it: the session document (`data`), and file records
    loaded only when a read asks for their file."""

    def __init__(self, where: SessionDir, data: dict, limits, now: float, degraded: bool = False,
                 expired: bool = False, committed=None, fresh: bool = False):
        self.where = where
        self.data = data
        self.limits = limits
        self.now = now
        self.degraded = degraded  # the stored session document was unusable: this answer is plain
        self.expired = expired  # the session had outlived its TTL and starts over
        self._committed = committed or (lambda intent: False)
        self.settled_intents: list[str] = []  # markers to remove after the records are saved
        self._records: dict[str, dict | None] = {}  # path -> record (None: none on disk)
        self._copies: dict[str, AgentCopy] = {}  # path -> its record's copy, decoded once
        self._on_disk: set[str] = set()  # paths whose record existed when loaded
        self._dirty: set[str] = set()
        self._drill_ins: list | None = None
        self._drill_ins_dirty = False
        self._drop_all = fresh  # every stored record is void (a reset session)

    @property
    def id(self) -> str:
        return self.data["id"]

    def next_seq(self) -> int:
        self.data["seq"] = int(self.data.get("seq", 0)) + 1
        return self.data["seq"]

    def new_intent(self, shared: bool = False) -> str:
        """A unique id for one answer about to be written (see `Store.commit`).
        *shared*: the answer covers several files (a context pack), so its commit
        marker must outlive the first file that settles it."""
        suffix = SHARED_INTENT if shared else ""
        return f"{self.id[:40]}.{self.next_seq()}.{os.getpid():x}{time.monotonic_ns() & 0xffffff:x}{suffix}"

    # -- file records
    def _record(self, path: str) -> dict | None:
        if path in self._records:
            return self._records[path]
        record = None
        if not self._drop_all:
            record, copy, problem = self.where.read_record(path, self.now)
            if problem is not None:
                warn(f"session {self.id}: the record of {path} was malformed ({problem}); reading it plainly")
                copy = AgentCopy(0)
                record = {"path": path, "copy": copy.to_json(), "touched": self.now}
                self._dirty.add(path)
            elif record is not None:
                self._on_disk.add(path)
            if copy is not None:
                self._copies[path] = copy
        self._records[path] = record
        return record

    def file_entry(self, path: str) -> dict | None:
        record = self._record(path)
        if record is not None and self.now - record.get("touched", 0) > self.limits.ttl_seconds:
            self.drop_file(path)  # expired on access
            return None
        return record

    def copy(self, path: str) -> AgentCopy:
        """This file's copy, pending answers that have since been delivered settled.
        A record that does not fit was moved aside with a warning (a gap-only copy:
        the next read of any scope is plain)."""
        entry = self.file_entry(path)
        if entry is None:
            return AgentCopy()
        copy = self._copies[path]
        settled = copy.settled(self._committed)
        if settled is not copy:
            entry["copy"] = settled.to_json()
            self._copies[path] = settled
            self._dirty.add(path)
            for intent, _a, _b in set(copy.pending) - set(settled.pending):
                if not intent.endswith(SHARED_INTENT):
                    self.settled_intents.append(intent)  # one file's answer: its marker is done once saved
        return settled

    def set_copy(self, path: str, copy: AgentCopy) -> None:
        old = self._record(path)
        if old is not None and path not in self._dirty and self._copies.get(path) == copy \
                and 0 <= self.now - old["touched"] < TOUCH_RESOLUTION_SECONDS:
            return  # the same copy, touched a moment ago: no write (unchanged re-reads)
        record = {"path": path, "touched": self.now, "copy": copy.to_json()}
        if old is not None and "tokens" in old:
            record["tokens"] = old["tokens"]
        self._records[path] = record
        self._copies[path] = copy
        self._dirty.add(path)

    def full_tokens(self, path: str, sha: str) -> int | None:
        """The token count of a plain read of version *sha* of *path*, if measured."""
        record = self._records.get(path)
        cached = record.get("tokens") if record else None
        if isinstance(cached, list) and len(cached) == 3 and cached[0] == sha and cached[1] == tokens_key() \
                and type(cached[2]) is int:
            return cached[2]
        return None

    def remember_full_tokens(self, path: str, sha: str, count: int) -> None:
        record = self._records.get(path)
        entry = [sha, tokens_key(), count]
        if record is not None and record.get("tokens") != entry:
            record["tokens"] = entry
            self._dirty.add(path)

    def drop_file(self, path: str) -> bool:
        had = self._record(path) is not None
        self._records[path] = None
        self._copies.pop(path, None)
        self._dirty.add(path)
        return had

    def drop_all_files(self) -> bool:
        """Forget every file's copy (the agent's context was cleared). True when any was held."""
        had = any(r is not None for r in self._records.values()) or (
            not self._drop_all and bool(self.where.record_names()))
        self._drop_all = True
        self._records = {p: None for p in self._records}
        self._copies.clear()
        self._dirty = set(self._records)
        return had

    def file_count(self) -> int:
        if self._drop_all:
            return sum(1 for r in self._records.values() if r is not None)
        on_disk = {n[:-5] for n in self.where.record_names()}
        for path in self._dirty:
            key = record_key(path)
            if self._records.get(path) is None:
                on_disk.discard(key)
            else:
                on_disk.add(key)
        return len(on_disk)

    # -- stats
    def shown(self, mode: str) -> bool:
        """Was this session answered with *mode* (e.g. a skeleton) before?"""
        return self.data["stats"]["reads"].get(mode, 0) > 0

    def record_read(self, mode: str, tokens: int, full_tokens: int) -> None:
        stats = self.data["stats"]
        stats["reads"][mode] = stats["reads"].get(mode, 0) + 1
        stats["tokens"] = stats.get("tokens", 0) + tokens
        stats["full_tokens"] = stats.get("full_tokens", 0) + full_tokens

    def drill_ins(self) -> list:
        if self._drill_ins is None:
            self._drill_ins = []
            try:
                log = loads(read_bytes(self.where.file(DRILL_INS_NAME)))
                if isinstance(log, list) and all(isinstance(d, dict) for d in log):
                    self._drill_ins = log
            except (OSError, ValueError):
                pass  # a lost log loses history, never an answer
        return self._drill_ins

    def record_drill_in(self, item: dict) -> None:
        self.data["stats"]["drill_ins"] = self.data["stats"].get("drill_ins", 0) + 1
        log = self.drill_ins()
        log.append({**item, "at": self.now})
        del log[:-MAX_DRILL_INS]
        self._drill_ins_dirty = True

    # -- saving
    def save(self) -> None:
        """Write what this session changed: its dirty records, then the session
        document. Every write is atomic; a crash in between leaves each file old or new."""
        where = self.where
        where.ensure()
        count = self.data.get("records")
        if type(count) is not int or count < 0:
            count = None  # not known (an older document): counted below
        if self._drop_all:
            for name in where.record_names():
                unlink(os.path.join(where.files, name))
            count = 0
        added = 0
        for path in self._dirty:
            record = self._records.get(path)
            target = where.record_path(path)
            if record is None:
                if unlink(target) and count is not None and not self._drop_all:
                    count -= 1
            else:
                where.write(target, record)  # durable: a record must survive what its answer survives
                added += path not in self._on_disk
        self._on_disk = {p for p, r in self._records.items() if r is not None}
        self._dirty.clear()
        self._drop_all = False
        if count is not None:
            count += added
        if count is None or (added and count > self.limits.max_entries):
            count = self.keep_lru()
        self.data["records"] = count
        if self._drill_ins_dirty:
            where.write(where.file(DRILL_INS_NAME), self._drill_ins, durable=False)
            self._drill_ins_dirty = False
        self.data["touched"] = self.now
        # not fsync'd: nothing in it vouches for a line (stats, the intent counter, hook
        # state); lost or torn in a power cut, it is set aside and the records stand
        where.write(where.file(META_NAME), self.data, durable=False)

    def keep_lru(self) -> int:
        """At most `max_entries` records: past it, the least recently written go.
        Returns how many records there are (the session document keeps the count,
        so only a read that passes the bound lists the directory)."""
        names = self.where.record_names()
        excess = len(names) - self.limits.max_entries
        if excess <= 0:
            return len(names)
        keep = {record_key(p) + ".json" for p in self._records if self._records[p] is not None}
        aged = []
        for name in names:
            try:
                aged.append((os.stat(os.path.join(self.where.files, name)).st_mtime_ns, name))
            except OSError:
                pass
        removed = 0
        for _mtime, name in sorted(aged)[:excess]:
            if name not in keep:  # this read's own records stay, whatever their clock says
                removed += unlink(os.path.join(self.where.files, name))
        return len(names) - removed

    def all_records(self) -> dict[str, dict]:
        """Every valid record of this session, by path (collection and inspection;
        reads never need this). A record that does not fit is moved aside."""
        out: dict[str, dict] = {}
        for name in self.where.record_names():
            path = os.path.join(self.where.files, name)
            try:
                record = loads(read_bytes(path))
                validate_record(record, None)
                AgentCopy.from_json(record["copy"])
            except FileNotFoundError:
                continue
            except (OSError, ValueError, KeyError, TypeError):
                quarantine(path, self.now)
                continue
            if name[:-5] != record_key(record["path"]):
                quarantine(path, self.now)
                continue
            out[record["path"]] = record
        return out


def migrate_legacy(where: SessionDir, legacy: str, now: float) -> tuple[dict | None, str | None, bool]:
    """Carry a single-document session (v2) over into records. Returns (document,
    warning, quiet_reset): the new session document, or None with why (then the
    old document was moved aside) or quiet_reset for the v1 format."""
    try:
        raw = read_bytes(legacy)
    except FileNotFoundError:
        return None, None, False
    except OSError as exc:
        return None, f"is unreadable ({exc.strerror})", False
    try:
        data = loads(raw)
        if isinstance(data, dict) and data.get("v") == 1:
            unlink(legacy)  # the per-view format: nothing in it describes the agent's copy
            return None, None, True
        validate_legacy(data, where.session_id)
    except (ValueError, KeyError, TypeError) as exc:
        kept = quarantine(legacy, now)
        return None, (f"did not fit the session format ({exc}); it was moved aside"
                      f"{' to ' + os.path.basename(kept) if kept else ''}"), False
    where.ensure()
    for path, entry in data["files"].items():
        where.write(where.record_path(path), {"path": path, "touched": entry["touched"], "copy": entry["copy"]})
    if data["drill_ins"]:
        where.write(where.file(DRILL_INS_NAME), data["drill_ins"][-MAX_DRILL_INS:])
    meta = {k: v for k, v in data.items() if k not in ("files", "drill_ins")}
    meta["v"] = SESSION_VERSION
    where.write(where.file(META_NAME), meta)
    unlink(legacy)
    return meta, None, False


# --------------------------------------------------------------------------- checks

def _number(value) -> bool:
    return type(value) in (int, float)


def _check_common(data, session_id: str) -> None:
    if data.get("id") != session_id:
        raise ValueError("id does not match the file name")
    for key in ("created", "touched"):
        if not _number(data.get(key)):
            raise TypeError(f"{key} is not a number")
    if type(data.get("seq")) is not int:
        raise TypeError("seq is not an integer")
    stats = data.get("stats")
    if not isinstance(stats, dict) or not isinstance(stats.get("reads"), dict):
        raise TypeError("stats is malformed")
    if not all(type(v) is int for v in stats["reads"].values()):
        raise TypeError("stats.reads is malformed")
    for key in ("tokens", "full_tokens", "drill_ins"):
        if type(stats.get(key)) is not int:
            raise TypeError(f"stats.{key} is not an integer")


def validate_meta(data, session_id: str) -> None:
    if not isinstance(data, dict) or data.get("v") != SESSION_VERSION:
        raise ValueError("unknown session format")
    _check_common(data, session_id)


def validate_record(record, path: str | None) -> None:
    if not isinstance(record, dict) or not isinstance(record.get("path"), str):
        raise TypeError("not a file record")
    if path is not None and record["path"] != path:
        raise ValueError("the record names another file")
    if not isinstance(record.get("copy"), list) or not _number(record.get("touched")):
        raise TypeError("the record is malformed")


def validate_legacy(data, session_id: str) -> None:
    """The whole v2 document's shape (as v2 checked it on every load)."""
    if not isinstance(data, dict) or data.get("v") != LEGACY_VERSION:
        raise ValueError("unknown session format")
    _check_common(data, session_id)
    files = data.get("files")
    if not isinstance(files, dict):
        raise TypeError("files is not an object")
    for path, entry in files.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("copy"), list) or not _number(entry.get("touched")):
            raise TypeError(f"the entry of {path[:60]!r} is malformed")
    drill_ins = data.get("drill_ins")
    if not isinstance(drill_ins, list) or not all(isinstance(d, dict) for d in drill_ins):
        raise TypeError("drill_ins is malformed")


# --------------------------------------------------------------------------- small helpers

def read_bytes(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def quarantine(path: str, now: float) -> str | None:
    """Keep a bad document for a human to look at (removed by gc after a week)."""
    target = f"{path}.bad-{int(now)}"
    try:
        os.replace(path, target)
        return target
    except OSError:
        return None


def unlink(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


def warn(message: str) -> None:
    from ..base.log import warning

    warning(message)
