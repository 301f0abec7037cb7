"""The session store: every byte symbolpack writes about sessions goes through here.

Layout under the state dir (`<repo>/.symbolpack/`, `$SYMBOLPACK_DIR`, or
`$XDG_STATE_HOME/symbolpack/<dir>-<hash>` for files in no repository):

    sessions/<id>.json   one JSON document per session: each file's agent copy, stats
    sessions/<id>.lock   flock target; held for a whole read-modify-write
    commits/<intent>     "this answer was delivered whole" markers
    objects/ab/cdef...   file versions the agent was shown, by sha256

Why one JSON per session and not a database: a session is small (a copy is a
few runs of version hashes; contents live in `objects/`), it must be readable and
repairable by hand, and a hook process should load it in a millisecond without
importing anything heavy. Concurrency is handled by an exclusive `flock` around
load-decide-save, and every write is temp file + fsync + atomic rename, so a
reader never sees half a document and no update is lost.

Crash safety: a read saves its new copy with the answered lines marked pending
under an intent id *before* writing the answer, and commits (one marker file)
after the answer is out. A process killed in between leaves the lines pending,
which every later answer treats as unsure: a plain read of them.

Faults fail open: a document that does not fit the format is moved aside,
reported once on stderr, and replaced by an empty one (plain reads). Versions
are checked against their hash on load; a missing or damaged one means "no
record", never a wrong one.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

    from .settings import Settings

from .agentcopy import AgentCopy
from .workspace import atomic_write, ensure_private_dir, sha256_hex, state_dir

def _loads(raw: bytes):
    import json

    return json.loads(raw)


def _dumps(data: dict) -> bytes:
    import json

    return json.dumps(data, separators=(",", ":")).encode()


SESSION_VERSION = 2
from .settings import DEFAULT_MAX_ENTRIES, DEFAULT_TTL_SECONDS  # noqa: E402  (one source: the settings)
OBJECT_GC_GRACE_SECONDS = 15 * 60
MAX_DRILL_INS = 500
COMMIT_MARKER_TTL_SECONDS = 24 * 3600
QUARANTINE_TTL_SECONDS = 7 * 24 * 3600
AUTO_GC_INTERVAL_SECONDS = 6 * 3600
SHARED_INTENT = ".pack"


class StoreLimits:
    """LRU size (file entries per session) and TTL (seconds), from the settings."""

    __slots__ = ("max_entries", "ttl_seconds")

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES, ttl_seconds: int = DEFAULT_TTL_SECONDS):
        self.max_entries = max_entries
        self.ttl_seconds = ttl_seconds

    @classmethod
    def from_settings(cls, settings: Settings) -> StoreLimits:
        return cls(settings.max_entries, settings.ttl_seconds)


def _empty_session(session_id: str, now: float) -> dict:
    return {"v": SESSION_VERSION, "id": session_id, "created": now, "touched": now, "seq": 0,
            "files": {}, "drill_ins": [],
            "stats": {"reads": {}, "tokens": 0, "full_tokens": 0, "drill_ins": 0}}


class Session:
    """One loaded session document, with the operations reads and context packs need."""

    def __init__(self, data: dict, limits: StoreLimits, now: float, degraded: bool = False,
                 expired: bool = False, committed=None):
        self.expired = expired  # the stored document had outlived its TTL and was reset
        self.data = data
        self.limits = limits
        self.now = now
        self.degraded = degraded  # the stored document was unreadable and was reset
        self._committed = committed or (lambda intent: False)
        self.settled_intents: list[str] = []  # markers to remove after the document is saved

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

    # -- the agent's copy of each file
    def file_entry(self, path: str) -> dict | None:
        entry = self.data["files"].get(path)
        if entry is not None and self.now - entry.get("touched", 0) > self.limits.ttl_seconds:
            del self.data["files"][path]  # expired on access
            return None
        return entry

    def copy(self, path: str) -> AgentCopy:
        """This file's copy, pending answers that have since been delivered settled.
        A stored copy that does not decode is dropped with a warning (a gap-only
        copy: the next read of any scope is plain)."""
        entry = self.file_entry(path)
        if entry is None:
            return AgentCopy()
        try:
            copy = AgentCopy.from_json(entry.get("copy"))
        except ValueError as exc:
            _warn(f"session {self.id}: the record of {path} was malformed ({exc}); reading it plainly")
            copy = AgentCopy(0)
            self.set_copy(path, copy)
            return copy
        settled = copy.settled(self._committed)
        if settled is not copy:
            entry["copy"] = settled.to_json()
            for intent, _a, _b in set(copy.pending) - set(settled.pending):
                if not intent.endswith(SHARED_INTENT):
                    self.settled_intents.append(intent)  # one file's answer: its marker is done once saved
        return settled

    def set_copy(self, path: str, copy: AgentCopy) -> None:
        self.data["files"][path] = {"copy": copy.to_json(), "touched": self.now}

    def drop_file(self, path: str) -> bool:
        return self.data["files"].pop(path, None) is not None

    # -- stats
    def record_read(self, mode: str, tokens: int, full_tokens: int) -> None:
        stats = self.data["stats"]
        stats["reads"][mode] = stats["reads"].get(mode, 0) + 1
        stats["tokens"] = stats.get("tokens", 0) + tokens
        stats["full_tokens"] = stats.get("full_tokens", 0) + full_tokens

    def shown(self, mode: str) -> bool:
        """Was this session answered with *mode* (e.g. a skeleton) before?"""
        return self.data["stats"]["reads"].get(mode, 0) > 0

    def record_drill_in(self, item: dict) -> None:
        self.data["stats"]["drill_ins"] = self.data["stats"].get("drill_ins", 0) + 1
        log = self.data.setdefault("drill_ins", [])
        log.append({**item, "at": self.now})
        del log[:-MAX_DRILL_INS]

    def evict(self) -> None:
        files = self.data["files"]
        expired = [p for p, e in files.items() if self.now - e.get("touched", 0) > self.limits.ttl_seconds]
        for p in expired:
            del files[p]
        excess = len(files) - self.limits.max_entries
        if excess > 0:
            for p in sorted(files, key=lambda p: files[p].get("touched", 0))[:excess]:
                del files[p]

    def referenced_objects(self) -> set[str]:
        out: set[str] = set()
        for entry in self.data["files"].values():
            copy = entry.get("copy")
            if isinstance(copy, list) and len(copy) == 4 and isinstance(copy[2], list):
                out.update(s for s in copy[2] if isinstance(s, str))
        return out


class Store:
    """Sessions and baselines of one project."""

    def __init__(self, root: Path, limits: StoreLimits | None = None, settings: Settings | None = None):
        if settings is None:
            from .settings import load_settings

            settings = load_settings(root)
        self.root = root
        self.settings = settings
        self.dir = state_dir(root, settings=settings)
        self.sessions_dir = ensure_private_dir(self.dir / "sessions")
        self.objects_dir = ensure_private_dir(self.dir / "objects")
        self.commits_dir = ensure_private_dir(self.dir / "commits")
        self.limits = limits or StoreLimits.from_settings(settings)

    # -- sessions
    def session_path(self, session_id: str) -> Path:
        return self.sessions_dir / f"{session_id}.json"

    @contextlib.contextmanager
    def session(self, session_id: str, write: bool = True) -> Iterator[Session]:
        """Lock, load (repairing a corrupt document), yield, and save atomically."""
        with self._locked(session_id):
            now = time.time()
            session = self._load(session_id, now)
            yield session
            if write:
                session.data["touched"] = now
                session.evict()
                self._write_json(self.session_path(session_id), session.data)
                for intent in session.settled_intents:  # only now is "settled" on record
                    self.discard_commit(intent)

    def _load(self, session_id: str, now: float) -> Session:
        path = self.session_path(session_id)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return Session(_empty_session(session_id, now), self.limits, now, committed=self.committed)
        except OSError as exc:
            _warn(f"session {session_id} is unreadable ({exc.strerror}); starting it afresh")
            return Session(_empty_session(session_id, now), self.limits, now, degraded=True,
                           committed=self.committed)
        try:
            data = _loads(raw)
            if isinstance(data, dict) and data.get("v") == 1:
                # the per-view format of earlier versions: nothing in it describes the
                # agent's copy, so the session starts over (plain reads), quietly
                return Session(_empty_session(session_id, now), self.limits, now, degraded=True,
                               committed=self.committed)
            _validate(data, session_id)
        except (ValueError, KeyError, TypeError) as exc:
            kept = self._quarantine(path, now)
            _warn(f"session {session_id} did not fit the session format ({exc}); it was moved aside"
                  f"{' to ' + kept.name if kept else ''}; answering with plain reads")
            return Session(_empty_session(session_id, now), self.limits, now, degraded=True,
                           committed=self.committed)
        if now - float(data.get("touched", 0)) > self.limits.ttl_seconds:
            return Session(_empty_session(session_id, now), self.limits, now, expired=True,
                           committed=self.committed)
        return Session(data, self.limits, now, committed=self.committed)

    def _quarantine(self, path: Path, now: float) -> Path | None:
        """Keep a bad document for a human to look at (removed by gc after a week)."""
        target = path.with_name(f"{path.name}.bad-{int(now)}")
        try:
            os.replace(path, target)
            return target
        except OSError:
            return None

    @contextlib.contextmanager
    def _locked(self, session_id: str) -> Iterator[None]:
        lock_path = self.sessions_dir / f"{session_id}.lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
            except ImportError:  # no flock on this platform: single-writer assumption
                pass
            yield
        finally:
            os.close(fd)  # closing releases the lock

    # -- delivery: intent recorded with the copy, commit after the answer is out
    def _commit_path(self, intent: str) -> Path:
        return self.commits_dir / intent

    def commit(self, intent: str | None) -> None:
        """The answer of *intent* was delivered whole: its lines are trusted from now
        on. A marker file, not a second read-modify-write of the session: cheap, and a
        process killed before it leaves the intent pending, which means "unsure"."""
        if not intent:
            return
        try:
            os.close(os.open(self._commit_path(intent), os.O_WRONLY | os.O_CREAT, 0o600))
        except OSError:
            pass  # not committed: the next read of those lines is plain

    def committed(self, intent: str) -> bool:
        return os.path.exists(self._commit_path(intent))

    def discard_commit(self, intent: str) -> None:
        """The marker of a settled single-file answer: no longer needed (gc would
        collect it after a day; removing it keeps `commits/` small)."""
        _unlink(self._commit_path(intent))

    def list_sessions(self) -> list[dict]:
        out = []
        for path in sorted(self.sessions_dir.glob("*.json")):
            try:
                data = _loads(path.read_bytes())
                out.append({"id": data["id"], "touched": data.get("touched", 0), "files": len(data.get("files", {})),
                            "stats": data.get("stats", {})})
            except (OSError, ValueError, KeyError, TypeError):
                out.append({"id": path.stem, "touched": 0, "files": 0, "stats": {}, "corrupt": True})
        return out

    def clear(self, session_id: str) -> bool:
        with self._locked(session_id):
            try:
                self.session_path(session_id).unlink()
                return True
            except FileNotFoundError:
                return False

    def maybe_gc(self) -> None:
        """Collect now and then without anyone running `session gc`: at most once per
        AUTO_GC_INTERVAL_SECONDS per state dir, decided by one stat. Callers run it
        after the answer is delivered, off the hot path."""
        stamp = self.dir / "gc-stamp"
        try:
            if time.time() - stamp.stat().st_mtime < AUTO_GC_INTERVAL_SECONDS:
                return
        except FileNotFoundError:
            pass
        except OSError:
            return
        try:
            atomic_write(stamp, b"", 0o600)
            self.gc()
        except OSError:
            pass

    def gc(self) -> dict:
        """Drop expired sessions, every baseline no session references, old commit
        markers, quarantined documents and orphan lock files."""
        now = time.time()
        dropped_sessions = 0
        referenced: set[str] = set()
        live: set[str] = set()
        for path in list(self.sessions_dir.glob("*.json")):
            session_id = path.stem
            with self._locked(session_id):
                session = self._load(session_id, now)
                if session.expired or session.degraded:
                    path.unlink(missing_ok=True)
                    dropped_sessions += 1
                    continue
                live.add(session_id)
                before = len(session.data["files"])
                session.evict()
                if len(session.data["files"]) != before:
                    self._write_json(path, session.data)
                referenced |= session.referenced_objects()
        for lock in self.sessions_dir.glob("*.lock"):
            if lock.stem not in live and _older_than(lock, now, OBJECT_GC_GRACE_SECONDS):
                _unlink(lock)
        for bad in self.sessions_dir.glob("*.json.bad-*"):
            if _older_than(bad, now, QUARANTINE_TTL_SECONDS):
                _unlink(bad)
        for marker in self.commits_dir.iterdir():
            if _older_than(marker, now, COMMIT_MARKER_TTL_SECONDS):
                _unlink(marker)  # an intent still pending after this long reads as "unsure"
        removed = kept = 0
        for obj in self.objects_dir.glob("*/*"):
            sha = obj.parent.name + obj.name
            if sha in referenced or not _older_than(obj, now, OBJECT_GC_GRACE_SECONDS):
                kept += 1  # referenced, or may belong to a read that has not saved its session yet
                continue
            if _unlink(obj):
                removed += 1
        return {"sessions_removed": dropped_sessions, "objects_removed": removed, "objects_kept": kept}

    # -- objects
    def _object_path(self, sha: str) -> Path:
        return self.objects_dir / sha[:2] / sha[2:]

    def put_object(self, data: bytes, sha: str | None = None) -> str:
        sha = sha or sha256_hex(data)
        path = self._object_path(sha)
        if path.exists():
            try:
                os.utime(path)  # keeps it inside the GC grace window
            except OSError:
                pass
            return sha
        ensure_private_dir(path.parent)
        self._write_bytes(path, data)
        return sha

    def get_object(self, sha: str) -> bytes | None:
        try:
            data = self._object_path(sha).read_bytes()
        except OSError:
            return None
        if sha256_hex(data) != sha:
            _warn(f"baseline {sha[:12]} is damaged; ignoring it")
            return None
        return data

    # -- atomic writes
    def _write_json(self, path: Path, data: dict) -> None:
        self._write_bytes(path, _dumps(data))

    @staticmethod
    def _write_bytes(path: Path, payload: bytes) -> None:
        atomic_write(path, payload, 0o600)


def _older_than(path: Path, now: float, seconds: float) -> bool:
    try:
        return now - path.stat().st_mtime >= seconds
    except OSError:
        return False


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except OSError:
        return False


def _number(value) -> bool:
    return type(value) in (int, float)


def _validate(data, session_id: str) -> None:
    """The whole document's shape, so that no read can trip over it later. Copies are
    decoded (and a bad one dropped) when a read touches their file."""
    if not isinstance(data, dict) or data.get("v") != SESSION_VERSION:
        raise ValueError("unknown session format")
    if data.get("id") != session_id:
        raise ValueError("id does not match the file name")
    for key in ("created", "touched"):
        if not _number(data.get(key)):
            raise TypeError(f"{key} is not a number")
    if type(data.get("seq")) is not int:
        raise TypeError("seq is not an integer")
    files = data.get("files")
    if not isinstance(files, dict):
        raise TypeError("files is not an object")
    for path, entry in files.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("copy"), list) or not _number(entry.get("touched")):
            raise TypeError(f"the entry of {path[:60]!r} is malformed")
    stats = data.get("stats")
    if not isinstance(stats, dict) or not isinstance(stats.get("reads"), dict):
        raise TypeError("stats is malformed")
    if not all(type(v) is int for v in stats["reads"].values()):
        raise TypeError("stats.reads is malformed")
    for key in ("tokens", "full_tokens", "drill_ins"):
        if type(stats.get(key)) is not int:
            raise TypeError(f"stats.{key} is not an integer")
    drill_ins = data.get("drill_ins")
    if not isinstance(drill_ins, list) or not all(isinstance(d, dict) for d in drill_ins):
        raise TypeError("drill_ins is malformed")


def _warn(message: str) -> None:
    from .log import warning

    warning(message)
