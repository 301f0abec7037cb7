"""Start an installed MCP server as its host would and ask it what tools it has.

`tldrs doctor` must say whether what a host will start actually starts: the
command in the host's settings may be gone (a removed virtualenv), lack a
dependency, or print to stdout before speaking JSON-RPC. Reading the settings
cannot tell; running the command can. This is a minimal stdio MCP client:
spawn the command with the host's arguments, environment and folder, send
`initialize`, `notifications/initialized` and `tools/list` as newline-delimited
JSON-RPC, and stop the process. The standard library suffices (a thread reads
stdout so that every wait has a deadline); the MCP SDK would cost its import
time and would hide exactly the protocol details a host is strict about.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

PROTOCOL_VERSION = "2025-06-18"


@dataclass
class ProbeResult:
    ok: bool
    detail: str  # one line: what happened
    tools: list[str] = field(default_factory=list)
    server: dict = field(default_factory=dict)  # the serverInfo it reported
    ms: float = 0.0  # from spawn to the initialize answer


class _Failed(Exception):
    pass


def probe(command: str, args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
          timeout: float = 15.0) -> ProbeResult:
    """Run `command args` and do initialize + tools/list with it, within *timeout* seconds in all."""
    from ..._version import __version__

    start = time.perf_counter()
    try:
        proc = subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=cwd, env={**os.environ, **(env or {})})
    except FileNotFoundError:
        return ProbeResult(False, f"command not found: {command}")
    except OSError as exc:
        return ProbeResult(False, f"could not start {command}: {exc.strerror or exc}")
    lines: queue.Queue[bytes | None] = queue.Queue()
    stderr: list[bytes] = []

    def pump(stream, sink, eof: bool) -> None:
        for line in iter(stream.readline, b""):
            sink(line)
        if eof:
            lines.put(None)

    threading.Thread(target=pump, args=(proc.stdout, lines.put, True), daemon=True).start()
    errors = threading.Thread(target=pump, args=(proc.stderr, stderr.append, False), daemon=True)
    errors.start()
    deadline = start + timeout

    def send(message: dict) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def answer(request_id: int, what: str) -> dict:
        while True:
            left = deadline - time.perf_counter()
            try:
                line = lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                raise _Failed(f"no answer to {what} within {timeout:g} s") from None
            if line is None:
                try:
                    proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    pass  # it closed stdout but lives on: reported with no code
                errors.join(timeout=2)
                last = b"".join(stderr).decode("utf-8", "replace").strip().splitlines()
                raise _Failed(f"exited with code {proc.returncode} before answering {what}"
                              + (f": {last[-1].strip()}" if last else ""))
            try:
                message = json.loads(line)
            except ValueError:
                raise _Failed(f"wrote something that is not JSON-RPC to stdout: {line[:60].decode('utf-8', 'replace')!r}") \
                    from None
            if not isinstance(message, dict) or message.get("id") != request_id:
                continue  # a notification or a request of the server's
            if "error" in message:
                error = message["error"]
                raise _Failed(f"{what} failed: {error.get('message') if isinstance(error, dict) else error}")
            result = message.get("result")
            if not isinstance(result, dict):
                raise _Failed(f"{what} answered without a result object")
            return result

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "tldrs-doctor", "version": __version__}}})
        init = answer(1, "initialize")
        ms = (time.perf_counter() - start) * 1000
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        listed = answer(2, "tools/list")
        tools = [t.get("name", "?") for t in listed.get("tools", []) if isinstance(t, dict)]
        info = init.get("serverInfo")
        server: dict = info if isinstance(info, dict) else {}
        if not tools:
            return ProbeResult(False, "started but lists no tools", [], server, ms)
        return ProbeResult(True, f"{len(tools)} tools ({', '.join(tools)}); initialize answered in {ms:.0f} ms",
                           tools, server, ms)
    except _Failed as exc:
        return ProbeResult(False, str(exc))
    except OSError as exc:  # stdin closed under us: it died
        proc.poll()
        return ProbeResult(False, f"exited with code {proc.returncode} while being asked ({exc.strerror or exc})")
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    try:
        if proc.stdin:
            proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=2)  # a stdio server ends when its input does
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
