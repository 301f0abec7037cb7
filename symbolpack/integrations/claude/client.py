"""A hook run handed to the resident hook process (`server.py`), or done here when none answers.

Claude Code starts one process per hook; importing the engine and the store took
most of each (`evals/bench_hooks.py`). So a hook first offers the payload to a
resident process over a private Unix socket and prints what it answers. When no
server answers (none running, another interpreter or environment, stale code), the
hook runs in its own process as before (`entry.py`) and then starts one for the
calls that follow (at most one start every `SPAWN_EVERY` seconds). Fail open: a
server that breaks off mid-answer means no decision, and records it made stay
pending (unsure).

This file is also the hook command `tldrs install claude` writes: `<python> -S
<this file> NAME`. It imports nothing of the package and nothing beyond what the
interpreter loads anyway, so a hook the server answers costs an interpreter without
`site` (~9 ms) instead of pip's console script and `symbolpack.cli` (`tldrs hook
NAME`, ~27 ms; that form still works, for settings written before). Only when no
server takes the payload does it add `site` and run the hook from the package.

Delivery is the same rule as in-process: the server commits a hook's records only
after this process has written its answer to stdout, flushed it and said so
(`DELIVERED`); a client killed or unable to write leaves them pending.

The socket: `<user state>/symbolpack/claude-hooks/<key>.sock` (`$XDG_STATE_HOME`,
default `~/.local/state`), in a 0700 folder, the socket itself 0600. *key* hashes
what a server's answers depend on beyond the payload: the interpreter (its folder
and version), the package's folder and version, and the environment symbolpack, git
and Python read (`_KEYED_ENV`); a server started under another of those is another
server. `SYMBOLPACK_HOOK_SERVER=0` turns the resident process off (every hook runs
in its own process). Unix only; elsewhere hooks run in-process.
"""

from __future__ import annotations

import os
import sys

PROTOCOL = b"SPH1"
DELIVERED = b"d"
REFUSED = b"no\n"
SPAWN_EVERY = 10.0  # seconds between server starts, so a server that cannot start costs little
ANSWER_TIMEOUT = 25.0  # seconds; Claude Code's hook timeout (host_settings: 30 s) ends us soon after
_KEYED_ENV = ("HOME", "PATH", "LANG", "TMPDIR", "TZ")
_KEYED_PREFIXES = ("SYMBOLPACK_", "XDG_", "GIT_", "PYTHON", "LC_")


def enabled() -> bool:
    return os.environ.get("SYMBOLPACK_HOOK_SERVER", "1") not in ("0", "off", "no", "false") and hasattr(
        __import__("_socket"), "AF_UNIX")


def package_dir() -> str:
    """The folder of the `symbolpack` package this file belongs to."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def server_key() -> str:
    """What a server's answers depend on besides the payload, hashed. Computed without
    importing the package (this file runs as the hook command): the interpreter by its
    folder and version (`python` and `python3` of one venv are one interpreter), the
    package's version by its file's bytes."""
    package = package_dir()
    try:
        with open(os.path.join(package, "_version.py"), "rb") as fh:
            version = fh.read()
    except OSError:
        version = b""
    env = sorted((k, v) for k, v in os.environ.items()
                 if k in _KEYED_ENV or k.startswith(_KEYED_PREFIXES))
    interpreter = (os.path.dirname(os.path.abspath(sys.executable)), sys.hexversion)
    raw = repr((interpreter, package, version, env)).encode("utf-8", "surrogateescape")
    return _sha256_hex(raw)[:20]


def _sha256_hex(data: bytes) -> str:
    try:  # the built-in sha256, as `base.workspace.sha256_hex` (hashlib's OpenSSL costs ~3 ms)
        from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]  # 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:  # pragma: no cover - a build without the built-in modules
            from hashlib import sha256
    return sha256(data).hexdigest()


def socket_path() -> str | None:
    """Where the server for this interpreter and environment listens; None without a home."""
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".local", "state")
    return os.path.join(base, "symbolpack", "claude-hooks", server_key() + ".sock")


def _connect(path: str):
    """A connected socket, or None. The path is bound relative to its folder (a Unix
    socket's path is limited to ~107 bytes; a folder deep in a temporary HOME is not)."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    here = None
    try:
        here = os.open(".", os.O_RDONLY)
        os.chdir(os.path.dirname(path))
        sock.connect(os.path.basename(path))
        return sock
    except OSError:
        sock.close()
        return None
    finally:
        if here is not None:
            try:
                os.fchdir(here)
            finally:
                os.close(here)


def recv_exactly(sock, n: int) -> bytes | None:
    """*n* bytes from *sock*, or None when it closes or fails first (both ends of the socket)."""
    chunks = []
    while n > 0:
        try:
            chunk = sock.recv(min(n, 1 << 20))
        except OSError:
            return None
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv_line(sock, limit: int = 256) -> bytes | None:
    """One line ending in a newline, or None when it closes first or runs past *limit*."""
    line = b""
    while not line.endswith(b"\n"):
        chunk = sock.recv(1)
        if not chunk or len(line) >= limit:
            return None
        line += chunk
    return line


def offer(name: str, payload: bytes) -> bool:
    """Have the resident server answer this hook: its answer written to stdout (and its
    warnings to stderr), then confirmed delivered. False when no server took it (the
    caller runs the hook itself); True when one did, whether or not it answered."""
    path = socket_path() if enabled() else None
    if path is None:
        return False
    sock = _connect(path)
    if sock is None:
        return False
    try:
        cwd = os.getcwd().encode("utf-8", "surrogateescape")
        sock.sendall(b"%s %s %d %d\n" % (PROTOCOL, name.encode("ascii", "replace"), len(cwd), len(payload))
                     + cwd + payload)
        sock.settimeout(ANSWER_TIMEOUT)
        head = recv_line(sock)
        if head == REFUSED:
            return False  # refused before doing anything (stale code, shutting down): run it here
        if head is None:
            return True  # the server broke off: no decision (what it recorded stays pending)
        parts = head.split()
        if len(parts) != 3 or parts[0] != b"ok":
            return True  # a broken answer: no decision
        body = recv_exactly(sock, int(parts[1]) + int(parts[2]))
        if body is None:
            return True
        out, err = body[:int(parts[1])], body[int(parts[1]):]
        if err:
            try:
                sys.stderr.buffer.write(err)
                sys.stderr.flush()
            except Exception:
                pass
        try:
            if out:
                sys.stdout.buffer.write(out + b"\n")
            sys.stdout.flush()
        except Exception:
            return True  # not delivered: the server commits nothing, its records stay pending
        sock.sendall(DELIVERED)
        return True
    except (OSError, ValueError):
        return True  # the server broke off: no decision (what it recorded stays pending)
    finally:
        sock.close()


def start_server() -> None:
    """Start a resident server in the background for the calls that follow (detached,
    its own session, stdio on /dev/null so Claude Code does not wait for it)."""
    path = socket_path() if enabled() else None
    if path is None:
        return
    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        stamp = path + ".started"
        import time

        try:
            if time.time() - os.stat(stamp).st_mtime < SPAWN_EVERY:
                return  # one is starting, or cannot start: do not pile them up
        except OSError:
            pass
        with open(stamp, "wb"):
            pass
        null = os.devnull
        actions = [(os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0), (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0)]
        os.posix_spawn(sys.executable, [sys.executable, "-m", "symbolpack.integrations.claude.server", path],
                       dict(os.environ), file_actions=actions, setsid=True)
    except (OSError, AttributeError, NotImplementedError):
        pass  # hooks keep running in their own processes


def main() -> None:
    """The hook command: `<python> -S <this file> NAME` (`tldrs install claude`). The
    payload offered to the server; when none takes it, `site` is added after all and
    the hook runs from the package (`entry.main`), which starts a server."""
    if sys.path and sys.path[0] and os.path.realpath(sys.path[0]) == os.path.dirname(os.path.realpath(__file__)):
        del sys.path[0]  # this file's folder: its modules must not shadow the standard library
    argv = sys.argv[1:]
    try:
        data: bytes | None = sys.stdin.buffer.read()
    except Exception:
        data = None
    offered = data is not None and len(argv) == 1
    if offered and offer(argv[0], data):  # type: ignore[arg-type]
        _exit_now(0)
    if sys.flags.no_site:
        import site

        site.main()  # the interpreter's site-packages (and a venv's, and .pth files), as without -S
    root = os.path.dirname(package_dir())
    if root not in sys.path:
        sys.path.insert(0, root)  # the package this file belongs to (an editable install's finder aside)
    try:  # by name: run as a file this module is `__main__`, which the package's modules never import
        run = __import__("symbolpack.integrations.claude.entry", fromlist=["main"]).main
    except Exception as exc:  # a hook must never break the tool call: no decision
        sys.stderr.write(f"symbolpack hook: warning: cannot load symbolpack ({type(exc).__name__}: {exc})\n")
        _exit_now(0)
    _exit_now(run(argv, data=data, offered=offered) if data is not None else 0)


def _exit_now(code: int) -> None:
    """End without the interpreter's teardown (as `base.process.exit_now`): everything is
    written and flushed by then."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


if __name__ == "__main__":
    main()
