"""The session store: every byte symbolpack writes about sessions goes through here.

Layout under the state dir (`<repo>/.symbolpack/`, `$SYMBOLPACK_DIR`, or
`$XDG_STATE_HOME/symbolpack/<dir>-<hash>` for files in no repository):

    sessions/<id>.lock       flock target; held for a whole read-modify-write
    sessions/<id>/           the session: a small document and one record per file
                             (`sessionstore.py`)
    commits/<intent>         "this answer was delivered whole" markers
    objects/ab/cdef...       file versions the agent was shown, by sha256
    objects/ab/cdef....names the symbol names a parse of that version found (so a
                             re-read names removed symbols without parsing the old one)
    answers/ab/cdef....jsonl one file's answers by id, as effects on the copy
                             (`reads/answers.py`), for hosts that say which
                             answers are still in the model's context; shared by
                             every session of the project (a fork carries ids)

Why files and not a database: a record is small (a copy is a few runs of
version hashes; contents live in `objects/`), it must be readable and
repairable by hand, and a hook process should load one in a millisecond
without importing anything heavy. Concurrency is handled by an exclusive
`flock` around load-decide-save, and every write is temp file + fsync + atomic
rename, so a reader never sees half a record and no update is lost. A read
touches only its own file's record (see `sessionstore.py` for why).

Crash safety: a read saves its new copy with the answered lines marked pending
under an intent id *before* writing the answer, and commits (one marker file)
after the answer is out. A process killed in between leaves the lines pending,
which every later answer treats as unsure: a plain read of them.

Faults fail open: a record or session document that does not fit is moved
aside, reported once on stderr, and that answer is plain. Versions are checked
against their hash on load; a missing or damaged one means "no record", never
a wrong one.
"""

from __future__ import annotations

import os
import time

from .sessionstore import Session, SessionDir, empty_meta, migrate_legacy, read_bytes, unlink, warn
from ..base.settings import DEFAULT_MAX_ENTRIES, DEFAULT_TTL_SECONDS  # one source: the settings
from ..base.workspace import atomic_write, ensure_private_dir, sha256_hex, state_dir_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

    from ..base.settings import Settings
    from ..reads.answers import Effect

OBJECT_GC_GRACE_SECONDS = 15 * 60
COMMIT_MARKER_TTL_SECONDS = 24 * 3600
QUARANTINE_TTL_SECONDS = 7 * 24 * 3600
AUTO_GC_INTERVAL_SECONDS = 6 * 3600
MAX_ANSWERS_PER_FILE = 400  # kept when a file's answer log is compacted
MAX_ANSWER_LOG_BYTES = 1 << 20  # compacted past this size


class StoreLimits:
    """LRU size (file entries per session) and TTL (seconds), from the settings."""

    __slots__ = ("max_entries", "ttl_seconds")

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES, ttl_seconds: int = DEFAULT_TTL_SECONDS):
        self.max_entries = max_entries
        self.ttl_seconds = ttl_seconds

    @classmethod
    def from_settings(cls, settings: Settings) -> StoreLimits:
        return cls(settings.max_entries, settings.ttl_seconds)


class Store:
    """Sessions and baselines of one project."""

    def __init__(self, root: str | os.PathLike[str], limits: StoreLimits | None = None,
                 settings: Settings | None = None):
        if settings is None:
            from ..base.settings import load_settings

            settings = load_settings(os.fspath(root))
        self.root = root
        self.settings = settings
        self.dir = state_dir_path(root, settings=settings)  # plain str paths: a read never imports pathlib
        self.sessions_dir = ensure_private_dir(os.path.join(self.dir, "sessions"))
        self.objects_dir = ensure_private_dir(os.path.join(self.dir, "objects"))
        self.commits_dir = ensure_private_dir(os.path.join(self.dir, "commits"))
        self.limits = limits or StoreLimits.from_settings(settings)

    # -- sessions
    def session_path(self, session_id: str) -> str:
        """The session's directory."""
        return os.path.join(self.sessions_dir, session_id)

    def _legacy_path(self, session_id: str) -> str:
        return os.path.join(self.sessions_dir, f"{session_id}.json")  # the single document of format 2

    def session(self, session_id: str, write: bool = True) -> "_SessionScope":
        """`with store.session(id) as session:` lock, load (repairing what does not
        fit), use, and save what changed (unless *write* is False)."""
        return _SessionScope(self, session_id, write)

    def _load(self, session_id: str, now: float) -> Session:
        where = SessionDir(self.sessions_dir, session_id)

        def fresh(**flags) -> Session:
            return Session(where, empty_meta(session_id, now), self.limits, now, committed=self.committed, **flags)

        legacy = self._legacy_path(session_id)
        if os.path.lexists(legacy):
            data, problem, reset = migrate_legacy(where, legacy, now)
            if reset:
                return fresh(degraded=True, fresh=True)
            if data is None:
                if problem:
                    warn(f"session {session_id} {problem}; answering with plain reads")
                return fresh(degraded=True, fresh=True)
        data, problem = where.read_meta(now)
        if problem is not None:
            warn(f"session {session_id} {problem}; answering with plain reads")
            return fresh(degraded=True)  # the file records stand: each is checked on its own
        if data is None:
            return fresh()
        if now - float(data.get("touched", 0)) > self.limits.ttl_seconds:
            return fresh(expired=True, fresh=True)
        return Session(where, data, self.limits, now, committed=self.committed)

    def _locked(self, session_id: str) -> "_Lock":
        return _Lock(os.path.join(self.sessions_dir, f"{session_id}.lock"))

    # -- delivery: intent recorded with the copy, commit after the answer is out
    def _commit_path(self, intent: str) -> str:
        return os.path.join(self.commits_dir, intent)

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
        unlink(self._commit_path(intent))

    def session_ids(self) -> list[str]:
        ids = set()
        for entry in os.scandir(self.sessions_dir):
            if entry.is_dir(follow_symlinks=False):
                ids.add(entry.name)
            elif entry.name.endswith(".json"):
                ids.add(entry.name[:-5])  # a format-2 document, migrated on load
        return sorted(ids)

    def list_sessions(self) -> list[dict]:
        out = []
        for session_id in self.session_ids():
            with self.session(session_id, write=False) as session:
                if session.degraded:
                    out.append({"id": session_id, "touched": 0, "files": 0, "stats": {}, "corrupt": True})
                    continue
                data = session.data
                out.append({"id": session_id, "touched": data.get("touched", 0), "files": session.file_count(),
                            "stats": data.get("stats", {})})
        return out

    def clear(self, session_id: str) -> bool:
        with self._locked(session_id):
            existed = _remove_tree(self.session_path(session_id))
            return unlink(self._legacy_path(session_id)) or existed

    def maybe_gc(self) -> None:
        """Collect now and then without anyone running `session gc`: at most once per
        AUTO_GC_INTERVAL_SECONDS per state dir, decided by one stat. Callers run it
        after the answer is delivered, off the hot path."""
        stamp = os.path.join(self.dir, "gc-stamp")
        try:
            if time.time() - os.stat(stamp).st_mtime < AUTO_GC_INTERVAL_SECONDS:
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
        """Drop expired sessions and records (TTL), records past the LRU bound,
        every baseline no record references, old commit markers, quarantined
        documents, orphan lock and temp files."""
        now = time.time()
        dropped_sessions = 0
        referenced: set[str] = set()
        live: set[str] = set()
        for session_id in self.session_ids():
            with self._locked(session_id):
                session = self._load(session_id, now)
                if session.expired or session.degraded or not session.where.exists():
                    _remove_tree(session.where.path)
                    dropped_sessions += 1
                    continue
                live.add(session_id)
                records = session.all_records()
                expired = [p for p, r in records.items() if now - r["touched"] > self.limits.ttl_seconds]
                excess = len(records) - len(expired) - self.limits.max_entries
                if excess > 0:
                    kept = sorted((p for p in records if p not in expired), key=lambda p: records[p]["touched"])
                    expired += kept[:excess]
                for path in expired:
                    session.drop_file(path)
                    del records[path]
                if expired or session.data.get("records") != len(records):
                    session.data["records"] = len(records)  # the count reads keep, made exact again
                    session.save()
                for record in records.values():
                    copy = record["copy"]
                    if len(copy) == 4 and isinstance(copy[2], list):
                        referenced.update(s for s in copy[2] if isinstance(s, str))
                for leftover in _leftovers(session.where.path):
                    if _older_than(leftover, now, QUARANTINE_TTL_SECONDS if ".bad-" in os.path.basename(leftover)
                                   else OBJECT_GC_GRACE_SECONDS):
                        unlink(leftover)
        for name in _listdir(self.sessions_dir):
            lock = os.path.join(self.sessions_dir, name)
            if name.endswith(".lock") and name[:-5] not in live and _older_than(lock, now, OBJECT_GC_GRACE_SECONDS):
                unlink(lock)
        for leftover in _leftovers(self.sessions_dir):
            if _older_than(leftover, now, QUARANTINE_TTL_SECONDS if ".bad-" in os.path.basename(leftover)
                           else OBJECT_GC_GRACE_SECONDS):
                unlink(leftover)
        answers_dir = os.path.join(self.dir, "answers")
        for prefix in _listdir(answers_dir):
            for name in _listdir(os.path.join(answers_dir, prefix)):
                log = os.path.join(answers_dir, prefix, name)
                if _older_than(log, now, self.limits.ttl_seconds):
                    unlink(log)
                elif name.endswith(".jsonl"):
                    referenced.update(e.sha for e in _read_answers(log) if e.sha)
        for name in _listdir(self.commits_dir):
            marker = os.path.join(self.commits_dir, name)
            if _older_than(marker, now, COMMIT_MARKER_TTL_SECONDS):
                unlink(marker)  # an intent still pending after this long reads as "unsure"
        removed = kept_objects = 0
        objects = ((prefix, name) for prefix in _listdir(self.objects_dir)
                   for name in _listdir(os.path.join(self.objects_dir, prefix)))
        for prefix, name in objects:
            sha, obj = prefix + name.split(".", 1)[0], os.path.join(self.objects_dir, prefix, name)
            version = "." not in name  # not a version's `.names`
            if sha in referenced or not _older_than(obj, now, OBJECT_GC_GRACE_SECONDS):
                kept_objects += version  # referenced, or may belong to a read that has not saved its record yet
                continue
            if unlink(obj):
                removed += version
        return {"sessions_removed": dropped_sessions, "objects_removed": removed, "objects_kept": kept_objects}

    # -- objects
    def _object_path(self, sha: str) -> str:
        return os.path.join(self.objects_dir, sha[:2], sha[2:])

    def put_object(self, data: bytes, sha: str | None = None) -> str:
        sha = sha or sha256_hex(data)
        path = self._object_path(sha)
        if os.path.exists(path):
            try:
                os.utime(path)  # keeps it inside the GC grace window
            except OSError:
                pass
            return sha
        ensure_private_dir(os.path.dirname(path))
        # not fsync'd: an object lost or torn in a power cut fails its hash check on
        # load, which means "no baseline" (a plain read), never a wrong one
        atomic_write(path, data, 0o600, durable=False)
        return sha

    def put_names(self, sha: str, parser_version: str, names: Iterable[str]) -> None:
        """Remember the symbol names a parse (by *parser_version*: a query or engine
        change makes them stale) found in object *sha*."""
        path = self._object_path(sha) + ".names"
        if os.path.exists(self._object_path(sha)) and not os.path.exists(path):
            body = "\n".join(sorted(set(names))).encode("utf-8", "surrogateescape")
            # not fsync'd, like objects: a torn file fails its check and means "parse it"
            atomic_write(path, f"{parser_version} {sha256_hex(body)}\n".encode() + body, 0o600, durable=False)

    def get_names(self, sha: str, parser_version: str) -> set[str] | None:
        """The names `put_names` kept for object *sha* by this *parser_version*, or None."""
        try:
            head, _, body = read_bytes(self._object_path(sha) + ".names").partition(b"\n")
        except OSError:
            return None
        if head != f"{parser_version} {sha256_hex(body)}".encode():
            return None
        return set(body.decode("utf-8", "surrogateescape").split("\n")) - {""}

    # -- answers (effects on a file's copy, by answer id)
    def _answer_log(self, rel: str) -> str:
        key = sha256_hex(rel.encode("utf-8", "surrogateescape"))
        return os.path.join(self.dir, "answers", key[:2], key[2:] + ".jsonl")

    def add_answer(self, rel: str, effect: Effect) -> None:
        """Keep *effect* (one answer about *rel*) under its id. The log keeps the
        newest MAX_ANSWERS_PER_FILE: an answer that fell out counts for nothing,
        which costs a re-read, never a wrong line."""
        import json

        path = self._answer_log(rel)
        ensure_private_dir(os.path.dirname(path))
        line = (json.dumps(effect.to_json(), separators=(",", ":")) + "\n").encode()
        with _Lock(path + ".lock"):
            try:
                size = os.stat(path).st_size
            except FileNotFoundError:
                size = 0
            if size > MAX_ANSWER_LOG_BYTES:
                kept = _read_answers(path)[-MAX_ANSWERS_PER_FILE:]
                body = b"".join((json.dumps(e.to_json(), separators=(",", ":")) + "\n").encode() for e in kept)
                atomic_write(path, body + line, 0o600, durable=False)
                return
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)

    def has_answers(self, rel: str) -> bool:
        return os.path.exists(self._answer_log(rel))

    def answers(self, rel: str) -> list[Effect]:
        """The effects kept for *rel*, oldest first (damaged lines are skipped: an
        answer not found counts for nothing)."""
        return _read_answers(self._answer_log(rel))

    def get_object(self, sha: str) -> bytes | None:
        try:
            data = read_bytes(self._object_path(sha))
        except OSError:
            return None
        if sha256_hex(data) != sha:
            warn(f"baseline {sha[:12]} is damaged; ignoring it")
            return None
        return data


class _SessionScope:
    """The `with` block of `Store.session` (a class, not `contextlib`: ~0.6 ms less
    per process on the read path)."""

    __slots__ = ("store", "session_id", "write", "lock", "session")

    def __init__(self, store: Store, session_id: str, write: bool):
        self.store, self.session_id, self.write = store, session_id, write

    def __enter__(self) -> Session:
        self.lock = self.store._locked(self.session_id)
        self.lock.__enter__()
        try:
            self.session = self.store._load(self.session_id, time.time())
        except BaseException:
            self.lock.__exit__(None, None, None)
            raise
        return self.session

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if self.write and exc_type is None:
                self.session.save()
                for intent in self.session.settled_intents:  # only now is "settled" on record
                    self.store.discard_commit(intent)
        finally:
            self.lock.__exit__(None, None, None)


class _Lock:
    """An exclusive flock on one lock file, held for the `with` block."""

    __slots__ = ("path", "fd")

    def __init__(self, path: str):
        self.path = path

    def __enter__(self) -> None:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            import fcntl

            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except ImportError:  # no flock on this platform: single-writer assumption
            pass
        except BaseException:
            os.close(self.fd)
            raise

    def __exit__(self, *exc) -> None:
        os.close(self.fd)  # closing releases the lock


def _read_answers(path: str) -> list[Effect]:
    import json

    from ..reads.answers import Effect

    try:
        raw = read_bytes(path)
    except OSError:
        return []
    out = []
    for line in raw.split(b"\n"):
        if not line:
            continue
        try:
            out.append(Effect.from_json(json.loads(line)))
        except ValueError:  # json's errors are ValueErrors too
            continue
    return out


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _leftovers(directory: str):
    """Quarantined documents and records (`*.bad-<time>`) and temp files a killed
    write left behind (`.tmp-*`), in *directory* and its `files/`."""
    for where in (directory, os.path.join(directory, "files")):
        try:
            entries = list(os.scandir(where))
        except OSError:
            continue
        for entry in entries:
            if entry.is_file(follow_symlinks=False) and (".bad-" in entry.name or entry.name.startswith(".tmp-")):
                yield entry.path


def _remove_tree(path: str) -> bool:
    """Remove a session directory (its records, then itself). True when it existed."""
    import shutil

    if not os.path.isdir(path):
        return False
    shutil.rmtree(path, ignore_errors=True)
    return True


def _older_than(path: str, now: float, seconds: float) -> bool:
    try:
        return now - os.stat(path).st_mtime >= seconds
    except OSError:
        return False
