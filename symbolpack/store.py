"""The session store: every byte symbolpack writes about sessions goes through here.

Layout under the state dir (`<repo>/.symbolpack/`, or `$SYMBOLPACK_DIR`):

    sessions/<id>.json   one JSON document per session (views, symbol ETags, stats)
    sessions/<id>.lock   flock target; held for a whole read-modify-write
    objects/ab/cdef...   baselines: file contents the agent was shown, by sha256

Why one JSON per session and not a database: a session is small (a view is a
hash and a few ranges; contents live in `objects/`), it must be readable and
repairable by hand, and a hook process should load it in a millisecond without
importing anything heavy. Concurrency is handled by an exclusive `flock` around
load-decide-save, and every write is temp file + fsync + atomic rename, so a
reader never sees half a document and no update is lost.

Faults fail open: an unreadable session file is reported once on stderr,
treated as empty (so the next read is a plain full read) and overwritten with
a sound document. Baselines are checked against their hash on load; a missing
or damaged one means "no baseline", never a wrong one.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

from .workspace import atomic_write, ensure_private_dir, sha256_hex, state_dir

def _loads(raw: bytes):
    import json

    return json.loads(raw)


def _dumps(data: dict) -> bytes:
    import json

    return json.dumps(data, separators=(",", ":")).encode()


# A view is stored as a compact list, not an object: a session with thousands of
# entries is parsed and written on every read, and this halves that cost.
#   [sha256, seq, total_lines, known (flat start,end,...), scope, elided, full_tokens]
def _encode_view(view: dict) -> list:
    return [view["sha256"], view["seq"], view["total_lines"], [n for run in view["known"] for n in run],
            view.get("scope"), view.get("elided") or [], view.get("full_tokens")]


def _decode_view(raw) -> dict:
    if isinstance(raw, dict):
        return raw
    sha, seq, total, flat, scope, elided, full_tokens = raw
    return {"sha256": sha, "seq": seq, "total_lines": total,
            "known": [flat[i:i + 2] for i in range(0, len(flat), 2)], "scope": scope, "elided": elided,
            "full_tokens": full_tokens}


def _view_sha(raw) -> str:
    return raw["sha256"] if isinstance(raw, dict) else raw[0]


def _view_seq(raw) -> int:
    return raw.get("seq", 0) if isinstance(raw, dict) else raw[1]


SESSION_VERSION = 1
DEFAULT_MAX_ENTRIES = 10_000
DEFAULT_TTL_SECONDS = 7 * 24 * 3600
OBJECT_GC_GRACE_SECONDS = 15 * 60
MAX_DRILL_INS = 500
MAX_VIEWS_PER_FILE = 32


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


class StoreLimits:
    """LRU size (file entries per session) and TTL (seconds), from the environment."""

    __slots__ = ("max_entries", "ttl_seconds")

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES, ttl_seconds: int = DEFAULT_TTL_SECONDS):
        self.max_entries = max_entries
        self.ttl_seconds = ttl_seconds

    @classmethod
    def from_env(cls) -> "StoreLimits":
        return cls(max(1, _env_int("SYMBOLPACK_MAX_ENTRIES", DEFAULT_MAX_ENTRIES)),
                   max(1, _env_int("SYMBOLPACK_TTL_SECONDS", DEFAULT_TTL_SECONDS)))


def _empty_session(session_id: str, now: float) -> dict:
    return {"v": SESSION_VERSION, "id": session_id, "created": now, "touched": now, "seq": 0,
            "files": {}, "symbols": {}, "drill_ins": [],
            "stats": {"reads": {}, "tokens": 0, "full_tokens": 0, "drill_ins": 0}}


class Session:
    """One loaded session document, with the operations reads and context packs need."""

    def __init__(self, data: dict, limits: StoreLimits, now: float, degraded: bool = False,
                 expired: bool = False):
        self.expired = expired  # the stored document had outlived its TTL and was reset
        self.data = data
        self.limits = limits
        self.now = now
        self.degraded = degraded  # the stored document was unreadable and was reset

    @property
    def id(self) -> str:
        return self.data["id"]

    def next_seq(self) -> int:
        self.data["seq"] = int(self.data.get("seq", 0)) + 1
        return self.data["seq"]

    # -- per-file views
    def file_entry(self, path: str) -> dict | None:
        entry = self.data["files"].get(path)
        if entry is not None and self.now - entry.get("touched", 0) > self.limits.ttl_seconds:
            del self.data["files"][path]  # expired on access
            return None
        return entry

    def views(self, path: str) -> dict[str, dict]:
        """This file's views, by scope key, in `ViewState.to_json()` form."""
        entry = self.file_entry(path)
        return {key: _decode_view(raw) for key, raw in entry["views"].items()} if entry else {}

    def set_view(self, path: str, key: str, view: dict) -> None:
        entry = self.data["files"].setdefault(path, {"views": {}, "touched": self.now})
        views = entry["views"]
        views[key] = _encode_view(view)
        entry["touched"] = self.now
        if key in entry.get("refresh", ()):
            entry["refresh"].remove(key)
        if len(views) > MAX_VIEWS_PER_FILE:  # old range views go first; the full view stays
            ranges = sorted((k for k in views if k != "full"), key=lambda k: _view_seq(views[k]))
            for k in ranges[: len(views) - MAX_VIEWS_PER_FILE]:
                del views[k]

    def drop_file(self, path: str) -> bool:
        return self.data["files"].pop(path, None) is not None

    def drop_view(self, path: str, key: str) -> None:
        entry = self.data["files"].get(path)
        if entry:
            entry["views"].pop(key, None)
            if key == "full":
                entry["views"].clear()  # a refreshed file starts over in every scope
            entry.setdefault("refresh", [])
            if key not in entry["refresh"]:
                entry["refresh"].append(key)
            entry["touched"] = self.now
        else:
            self.data["files"][path] = {"views": {}, "touched": self.now, "refresh": [key]}

    def wants_refresh(self, path: str, key: str) -> bool:
        entry = self.file_entry(path)
        return bool(entry) and key in entry.get("refresh", ())

    # -- symbols whose code this session was given (diff-context delta)
    def given_symbols(self) -> dict[str, str]:
        return self.data.setdefault("symbols", {})

    def give_symbol(self, symbol_id: str, etag: str) -> None:
        self.given_symbols()[symbol_id] = etag

    # -- stats
    def record_read(self, mode: str, tokens: int, full_tokens: int) -> None:
        stats = self.data["stats"]
        stats["reads"][mode] = stats["reads"].get(mode, 0) + 1
        stats["tokens"] = stats.get("tokens", 0) + tokens
        stats["full_tokens"] = stats.get("full_tokens", 0) + full_tokens

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
        return {_view_sha(v) for e in self.data["files"].values() for v in e["views"].values()}


class Store:
    """Sessions and baselines of one project."""

    def __init__(self, root: Path, limits: StoreLimits | None = None):
        self.root = root
        self.dir = state_dir(root)
        self.sessions_dir = ensure_private_dir(self.dir / "sessions")
        self.objects_dir = ensure_private_dir(self.dir / "objects")
        self.limits = limits or StoreLimits.from_env()

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

    def _load(self, session_id: str, now: float) -> Session:
        path = self.session_path(session_id)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return Session(_empty_session(session_id, now), self.limits, now)
        except OSError as exc:
            _warn(f"session {session_id} is unreadable ({exc.strerror}); starting it afresh")
            return Session(_empty_session(session_id, now), self.limits, now, degraded=True)
        try:
            data = _loads(raw)
            _validate(data)
        except (ValueError, KeyError, TypeError) as exc:
            _warn(f"session {session_id} was corrupt ({type(exc).__name__}); answering with full reads and repairing it")
            return Session(_empty_session(session_id, now), self.limits, now, degraded=True)
        if now - float(data.get("touched", 0)) > self.limits.ttl_seconds:
            return Session(_empty_session(session_id, now), self.limits, now, expired=True)
        return Session(data, self.limits, now)

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

    def gc(self) -> dict:
        """Drop expired sessions and every baseline no session references."""
        now = time.time()
        dropped_sessions = 0
        referenced: set[str] = set()
        for path in list(self.sessions_dir.glob("*.json")):
            session_id = path.stem
            with self._locked(session_id):
                session = self._load(session_id, now)
                if session.expired or session.degraded:
                    path.unlink(missing_ok=True)
                    dropped_sessions += 1
                    continue
                before = len(session.data["files"])
                session.evict()
                if len(session.data["files"]) != before:
                    self._write_json(path, session.data)
                referenced |= session.referenced_objects()
        removed = kept = 0
        for obj in self.objects_dir.glob("*/*"):
            sha = obj.parent.name + obj.name
            if sha in referenced:
                kept += 1
                continue
            try:
                if now - obj.stat().st_mtime < OBJECT_GC_GRACE_SECONDS:
                    kept += 1  # may belong to a read that has not saved its session yet
                    continue
                obj.unlink()
                removed += 1
            except OSError:
                pass
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


def _validate(data: dict) -> None:
    if not isinstance(data, dict) or data.get("v") != SESSION_VERSION:
        raise ValueError("unknown session format")
    if not isinstance(data["files"], dict) or not isinstance(data["stats"], dict):
        raise TypeError("malformed session")
    for entry in data["files"].values():
        for view in entry["views"].values():
            if not isinstance(_view_sha(view), str):
                raise TypeError("malformed view")


def _warn(message: str) -> None:
    print(f"symbolpack: warning: {message}", file=sys.stderr)
