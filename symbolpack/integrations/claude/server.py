"""The resident hook process: Claude Code's hooks answered without starting the engine each time.

Started on demand by a hook that found none (`client.start_server`), it listens
on a private Unix socket (`client.socket_path`) and runs each hook it is handed
with the same code a hook process runs (`runner.run_hook`), one hook at a time
(the engine's parsers and caches are not shared between threads), in the
client's working directory, its warnings sent back for the client's stderr.
It keeps nothing a hook reads between calls except what a process keeps anyway
(imports, compiled queries): every answer is computed from the store and the
transcript on disk, as in a hook process, so an answer here and one from a
hook process are the same answer.

* Delivery: a hook's records are committed only once the client says it wrote
  and flushed the answer (`client.DELIVERED`); a client that dies first leaves them
  pending (unsure), as a hook process that dies before its flush does.
* The transcript wait (Claude Code flushes the call's record ~100 ms after
  it starts the hook) happens before the hook takes its turn
  (`transcript.wait_for_record`), so one slow flush holds up no other session.
* Stale code: a module file of the package that changed since this process
  loaded it ends the server; the hook that noticed is refused and runs in its
  own process (and starts a fresh server).
* It ends after `SYMBOLPACK_HOOK_SERVER_IDLE` seconds (default 600) without a
  call, or when its socket is removed or replaced.

Run as `python -m symbolpack.integrations.claude.server SOCKET`.
"""

from __future__ import annotations

import io
import json
import os
import socket
import sys
import threading
import time

from .client import DELIVERED, PROTOCOL, REFUSED, recv_exactly, recv_line

IDLE_SECONDS = 600.0
_WAITS_FOR_TRANSCRIPT = ("claude-pre-read", "claude-pre-edit", "claude-post-edit", "pre-read", "pre-edit",
                         "post-edit")
MAX_PAYLOAD = 64 << 20


class HookServer:
    def __init__(self, path: str, idle: float = IDLE_SECONDS) -> None:
        self.path = path
        self.idle = idle
        self.turn = threading.Lock()  # one hook at a time
        self.last_call = time.monotonic()
        self.stopping = False
        self.code: dict[str, tuple[int, int]] = {}  # module file -> (mtime_ns, size) when first seen
        self.sock: socket.socket | None = None
        self.ident: tuple[int, int] | None = None

    # -- set-up
    def bind(self) -> bool:
        """Take the socket (False when another server holds it)."""
        import fcntl

        folder = os.path.dirname(self.path)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)
        self.lock_fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        name = os.path.basename(self.path)
        os.chdir(folder)  # bound by its name in its folder: no limit on the folder's length
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(name)
        finally:
            os.umask(old)
        sock.listen(64)
        sock.settimeout(1.0)
        st = os.stat(name)
        self.sock, self.ident = sock, (st.st_dev, st.st_ino)
        return True

    def warm_up(self) -> None:
        """What every hook imports, once."""
        from . import delivery, edit_hooks, reads, runner, transcript  # noqa: F401
        from ...api import operations  # noqa: F401
        from ...reads import answers, read  # noqa: F401

        self.code_is_stale()  # remember the files as loaded

    # -- the loop
    def serve(self) -> None:
        assert self.sock is not None
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                if time.monotonic() - self.last_call > self.idle or not self._socket_is_ours():
                    break
                continue
            except OSError:
                break
            self.last_call = time.monotonic()
            threading.Thread(target=self._handle_quietly, args=(conn,), daemon=True).start()
        self.close()

    def close(self) -> None:
        self.stopping = True
        if self._socket_is_ours():
            try:
                os.unlink(self.path)
            except OSError:
                pass
        if self.sock is not None:
            self.sock.close()

    def _socket_is_ours(self) -> bool:
        try:
            st = os.stat(self.path)  # absolute: a hook's turn may have another working directory
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.ident

    def code_is_stale(self) -> bool:
        """Has a module file of the package changed since this process loaded it?"""
        for name, module in list(sys.modules.items()):
            if not name.startswith("symbolpack"):
                continue
            file = getattr(module, "__file__", None)
            if not file:
                continue
            try:
                st = os.stat(file)
            except OSError:
                return True
            seen = self.code.setdefault(file, (st.st_mtime_ns, st.st_size))
            if seen != (st.st_mtime_ns, st.st_size):
                return True
        return False

    # -- one call
    def _handle_quietly(self, conn: socket.socket) -> None:
        try:
            with conn:
                self.handle(conn)
        except Exception:
            pass  # the client sees a broken answer: no decision
        finally:
            self.last_call = time.monotonic()

    def handle(self, conn: socket.socket) -> None:
        conn.settimeout(30.0)
        head = recv_line(conn, 512)  # the request line: a cwd and a hook name, longer than an answer's
        parts = head.split() if head else []
        if len(parts) != 4 or parts[0] != PROTOCOL:
            conn.sendall(REFUSED)
            return
        name = parts[1].decode("ascii", "replace")
        cwd_len, size = int(parts[2]), int(parts[3])
        if size > MAX_PAYLOAD or cwd_len > 1 << 16:
            conn.sendall(REFUSED)
            return
        body = recv_exactly(conn, cwd_len + size)
        if body is None:
            return
        cwd = body[:cwd_len].decode("utf-8", "surrogateescape")
        text = body[cwd_len:].decode("utf-8", "replace")
        if self.stopping or self.code_is_stale():
            self.stopping = True
            conn.sendall(REFUSED)
            return
        found = self._wait_for_transcript(name, text)
        from . import runner, transcript

        after: list = []
        with self.turn:
            err = io.StringIO()
            saved_err, saved_poll = sys.stderr, transcript.POLL_SECONDS
            try:
                if os.path.isdir(cwd):
                    os.chdir(cwd)  # as the hook process would run: its cwd is the fallback for a payload's
                sys.stderr = err
                if found is False:
                    transcript.POLL_SECONDS = 0.0  # it waited already: the record is not coming
                out = runner.run_hook(name, text, after)
            finally:
                sys.stderr, transcript.POLL_SECONDS = saved_err, saved_poll
                os.chdir(os.path.dirname(self.path))
        data, warnings = out.encode("utf-8", "surrogateescape"), err.getvalue().encode("utf-8", "replace")
        conn.sendall(b"ok %d %d\n" % (len(data), len(warnings)) + data + warnings)
        if recv_exactly(conn, len(DELIVERED)) == DELIVERED:  # written and flushed by the client
            with self.turn:
                runner._run_all(after)

    def _wait_for_transcript(self, name: str, text: str) -> bool | None:
        """Wait, outside the hook's turn, for the call's record the hook will look for;
        None when the hook will not look for one."""
        if name not in _WAITS_FOR_TRANSCRIPT:
            return None
        try:
            payload = json.loads(text)
        except ValueError:
            return None
        ident = payload.get("tool_use_id") if isinstance(payload, dict) else None
        if not isinstance(ident, str) or not ident:
            return None
        from .transcript import POLL_SECONDS, transcript_for, wait_for_record

        path = transcript_for(payload)
        if path is None:
            return None
        return wait_for_record(path, ident, POLL_SECONDS)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not os.path.isabs(argv[0]):
        sys.stderr.write("usage: python -m symbolpack.integrations.claude.server /absolute/path.sock\n")
        return 2
    try:
        idle = float(os.environ.get("SYMBOLPACK_HOOK_SERVER_IDLE", IDLE_SECONDS))
    except ValueError:
        idle = IDLE_SECONDS
    server = HookServer(argv[0], idle)
    if not server.bind():
        return 0  # another server has it
    from ...base.log import configure

    configure(prefix="symbolpack hook")
    server.warm_up()
    server.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
