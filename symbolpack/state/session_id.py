"""Which session a read belongs to, when nobody says.

A session is one conversation: what one agent was shown, in one context window.
Joining two conversations in one session would let an answer say "[UNCHANGED]"
about lines the other conversation read, lines this agent never got. So the
default must tell conversations apart, and when it cannot, there is no session:
the caller gives a plain read and records nothing. A repository or a branch is
never a session (two agents in one checkout would share a copy for days).

The ladder (first that applies):

1. `--session-id` (validated: ids become file names);
2. `$SYMBOLPACK_SESSION_ID` (validated the same way);
3. the agent's own process: the nearest ancestor whose command is a known agent
   CLI (`claude`, `codex`, `gemini`, ...; matched on its `comm` and on the
   basename of `argv[0]`, or of the script an interpreter runs, since many
   agents are `node /path/to/claude`), named by its pid and start time, because
   one agent process is one conversation and a pid alone gets reused;
4. the terminal session: when this process has a controlling terminal, its
   session leader (pid + start time): one terminal session, one conversation;
5. None: no session.

Linux reads `/proc` only: no subprocess, a few small reads per ancestor, at most
`MAX_ANCESTORS` of them, since hooks run one process per tool call. Elsewhere
(macOS) the same ladder runs on `proc_pidinfo`; where neither exists, the
process steps give None.
"""

from __future__ import annotations

import os
import re
import sys

from ..base.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Union

    from ..base.settings import Settings

    _Stat = tuple[str, int, int, int, str]  # comm, ppid, pgrp, session, start time
    _Procs = Union["_LinuxProcs", "_DarwinProcs"]

# [A-Za-z0-9._-]{1,128}, checked without a regex: patterns compile in every process,
# and only the process ladder below needs one
_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")

MAX_ANCESTORS = 64

# Agent CLIs whose process is one conversation. Keys are what a process is called
# (its comm, or the basename of its executable or script); values the name in the id.
AGENT_COMMANDS = {
    "claude": "claude", "claude-code": "claude",
    "codex": "codex",
    "gemini": "gemini", "gemini-cli": "gemini",
    "chibi": "chibi",
    "aider": "aider",
    "cursor-agent": "cursor-agent",
    "opencode": "opencode",
    "goose": "goose",
    "amp": "amp",
    "crush": "crush",
    "qwen": "qwen", "qwen-code": "qwen",
    "copilot": "copilot",
    "auggie": "auggie",
    "droid": "droid",
    "kiro-cli": "kiro-cli",
}
# Programs that run an agent's script: `node /usr/local/bin/claude`.
_INTERPRETER = r"(node|nodejs|bun|deno|python[0-9.]*|pypy[0-9.]*|ruby|perl|sh|bash|dash|zsh)"
# Entry-point names too generic to say which agent: look at the script's directories.
_GENERIC_SCRIPTS = {"index", "cli", "main", "entry", "run"}
_SCRIPT_SUFFIX = r"\.(js|mjs|cjs|ts|py|rb|sh|exe)$"


def validate_session_id(value: str) -> str:
    if not 0 < len(value) <= 128 or not _ID_CHARS.issuperset(value) or value in (".", ".."):
        raise UsageError(
            f"invalid session id {value[:40]!r}: use 1-128 characters from A-Z a-z 0-9 . _ -")
    return value


def resolve_session_id(explicit: str | None = None, settings: Settings | None = None) -> str | None:
    """The session of this call, or None when there is none (plain reads, nothing
    recorded). Step 2 is `settings.session_id` (`$SYMBOLPACK_SESSION_ID`); without
    *settings*, the environment's."""
    if explicit is not None:
        return validate_session_id(explicit)
    if settings is None:
        from ..base.settings import load_settings

        settings = load_settings()
    if settings.session_id:
        return validate_session_id(settings.session_id)
    return process_session_id()


def process_session_id() -> str | None:
    """Steps 3 and 4 of the ladder: the agent process, else the terminal session, else None."""
    try:
        procs = _procs()
        if procs is None:
            return None
        return _agent_session_id(procs) or _terminal_session_id(procs)
    except (OSError, ValueError, IndexError):  # an unreadable /proc never fails a read
        return None


def agent_name(comm: str, argv: list[str]) -> str | None:
    """The agent a process is, from its comm and argv, or None."""
    found = AGENT_COMMANDS.get(_stem(comm))
    if found or not argv:
        return found
    first = _stem(argv[0])
    if first in AGENT_COMMANDS:
        return AGENT_COMMANDS[first]
    if not re.fullmatch(_INTERPRETER, first):
        return None
    script = next((a for a in argv[1:] if not a.startswith("-") and a != "run"), None)
    if script is None:
        return None
    name = _stem(script)
    if name in AGENT_COMMANDS:
        return AGENT_COMMANDS[name]
    if name in _GENERIC_SCRIPTS:  # `node .../cursor-agent/versions/1.2/index.js`
        for part in reversed(script.replace("\\", "/").split("/")[:-1]):
            if part.lower() in AGENT_COMMANDS:
                return AGENT_COMMANDS[part.lower()]
    return None


def _stem(arg: str) -> str:
    base = arg.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return re.sub(_SCRIPT_SUFFIX, "", base)


def _agent_session_id(procs: _Procs) -> str | None:
    pid = os.getppid()
    for _ in range(MAX_ANCESTORS):
        if pid <= 0:
            return None
        info = procs.stat(pid)
        if info is None:
            return None
        comm, ppid, _session, _tty, start = info
        name = agent_name(comm, procs.argv(pid))
        if name is not None:
            return f"agent-{name}-{pid}-{start}{procs.boot_suffix()}"
        if pid == 1:
            return None
        pid = ppid
    return None


def _terminal_session_id(procs: _Procs) -> str | None:
    mine = procs.stat(os.getpid())
    if mine is None:
        return None
    _, _, leader, tty, _ = mine
    if not tty or leader <= 0:
        return None
    info = procs.stat(leader)
    if info is None:  # the leader is gone (or outside our pid namespace): no start time
        return None
    return f"tty-{leader}-{info[4]}{procs.boot_suffix()}"


def _procs() -> _Procs | None:
    if os.path.isdir("/proc/self"):
        return _LinuxProcs()
    if sys.platform == "darwin":
        return _DarwinProcs.load()
    return None


class _LinuxProcs:
    """`/proc/<pid>/stat` and `/proc/<pid>/cmdline`, read raw."""

    _boot: str | None = None

    @staticmethod
    def stat(pid: int) -> _Stat | None:
        """(comm, ppid, session, tty_nr, start time) or None."""
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                raw = fh.read().decode("utf-8", "surrogateescape")
        except OSError:
            return None
        head, _, rest = raw.rpartition(")")
        fields = rest.split()  # fields[0] is field 3 (state)
        # field 4 ppid, 6 session, 7 tty_nr, 22 starttime (clock ticks since boot)
        return head.partition("(")[2], int(fields[1]), int(fields[3]), int(fields[4]), fields[19]

    @staticmethod
    def argv(pid: int) -> list[str]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                raw = fh.read(4096)
        except OSError:
            return []
        return [a.decode("utf-8", "surrogateescape") for a in raw.split(b"\0") if a][:8]

    def boot_suffix(self) -> str:
        """A pid and its start time are unique within one boot; the boot id makes them unique."""
        if self._boot is None:
            try:
                with open("/proc/sys/kernel/random/boot_id", "rb") as fh:
                    boot = fh.read(64).decode("ascii", "replace").replace("-", "").strip()[:8]
            except OSError:
                boot = ""
            self._boot = "-" + boot if re.fullmatch(r"[0-9a-f]{8}", boot) else ""
        return self._boot


class _DarwinProcs:
    """`proc_pidinfo(PROC_PIDTBSDINFO)` from libproc: ppid, comm, tty and start time."""

    _SIZE = 136  # sizeof(struct proc_bsdinfo)
    _NODEV = 0xFFFFFFFF

    def __init__(self, libc, ctypes):
        self._libc = libc
        self._ctypes = ctypes

    @classmethod
    def load(cls):
        try:
            import ctypes
            import ctypes.util

            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.dylib", use_errno=True)
            libc.proc_pidinfo  # noqa: B018 - present?
        except (OSError, AttributeError, ImportError):
            return None
        return cls(libc, ctypes)

    def stat(self, pid: int) -> _Stat | None:
        ctypes = self._ctypes
        buf = ctypes.create_string_buffer(self._SIZE)
        if self._libc.proc_pidinfo(pid, 3, ctypes.c_uint64(0), buf, self._SIZE) != self._SIZE:
            return None
        raw = buf.raw
        got_pid, ppid = int.from_bytes(raw[12:16], "little"), int.from_bytes(raw[16:20], "little")
        if got_pid != pid:  # the layout is not the one we know: do not guess
            return None
        name = raw[64:96].split(b"\0", 1)[0] or raw[48:64].split(b"\0", 1)[0]  # pbi_name, pbi_comm
        comm = name.decode("utf-8", "replace")
        tdev = int.from_bytes(raw[108:112], "little")
        start_sec, start_usec = int.from_bytes(raw[120:128], "little"), int.from_bytes(raw[128:136], "little")
        if start_sec <= 0:
            return None
        try:
            session = os.getsid(pid)
        except OSError:
            session = 0
        tty = 0 if tdev in (0, self._NODEV) else tdev
        return comm, ppid, session, tty, f"{start_sec}.{start_usec:06d}"

    @staticmethod
    def argv(pid: int) -> list[str]:
        return []  # comm only: argv needs sysctl(KERN_PROCARGS2)

    @staticmethod
    def boot_suffix() -> str:
        return ""  # the start time is wall-clock seconds and microseconds: unique enough
