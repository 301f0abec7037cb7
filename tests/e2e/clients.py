"""The real agent clients, installed from the npm registry at the versions pinned in
`npm/<client>/package-lock.json`, each into its own folder of a cache outside the
repository (reused when present; the folder's name carries a hash of the pin).

A client that cannot be installed fails the tests that need it; they never skip.
Install scripts are not run (`--ignore-scripts`): Claude Code is used through its
platform binary; Codex's `codex` launcher finds its native binary in the platform
package npm installs as an optional dependency (no install script needed); the
others are plain JavaScript run by Node.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
PINS = HERE / "npm"


def cache_dir() -> Path:
    base = os.environ.get("SYMBOLPACK_E2E_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "symbolpack-e2e")
    return Path(base)


def installed(client: str) -> Path:
    """The `node_modules` folder of one pinned client (`npm/<client>/`), installed first
    with `npm ci` when the cache does not have it yet."""
    pin = PINS / client
    files = [pin / "package.json", pin / "package-lock.json"]
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()[:16]
    prefix = cache_dir() / f"{client}-{digest}"
    modules = prefix / "node_modules"
    done = prefix / ".installed"
    if not done.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError(f"npm is not installed: the end-to-end tests need it to install {client}")
        prefix.mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copy(f, prefix / f.name)
        proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=prefix,
                              capture_output=True, text=True, timeout=900)
        if proc.returncode != 0 or not modules.is_dir():
            raise RuntimeError(f"npm ci of the pinned {client} failed in {prefix}: {proc.stderr.strip()[-600:]}")
        done.write_text("ok\n")
    return modules


def node_bin(client: str, name: str) -> Path:
    """An executable a pinned client's packages declare (`node_modules/.bin/NAME`)."""
    path = installed(client) / ".bin" / name
    if not path.exists():
        raise RuntimeError(f"the pinned {client} has no executable {name!r} in {path.parent}")
    return path


def claude_binary() -> Path:
    """Claude Code's native executable (its platform package, pinned with it)."""
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    if arch is None:
        raise RuntimeError(f"no Claude Code build for {platform.machine()}")
    binary = installed("claude") / "@anthropic-ai" / f"claude-code-linux-{arch}" / "claude"
    if not binary.exists():
        raise RuntimeError(f"the pinned Claude Code has no binary at {binary}")
    return binary


# The scenarios' files are 1,500-4,000 tokens: under the default `small_file_tokens`
# (4,000) their first reads would be whole files. The scenarios test what each host's
# record proves the model holds, skeletons and their drill-ins included, so each project
# keeps the threshold they were written for in its pyproject.toml, which symbolpack reads
# whatever environment a host gives the processes it starts (Codex passes MCP servers few
# variables).
SCENARIO_PYPROJECT = "[tool.symbolpack]\nsmall_file_tokens = 1500\n"


def keep_scenario_threshold(proj) -> None:
    (proj / "pyproject.toml").write_text(SCENARIO_PYPROJECT)


class StdioJsonRpc:
    """A client's JSON-RPC server on stdio (`codex app-server`, `qwen --acp`): one message
    per line; the server's notifications and requests are skipped while a request waits."""

    def __init__(self, argv: list[str], name: str, cwd: Path, env: dict):
        self.name = name
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.n = 0

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)
            if message.get("id") == self.n and "method" not in message:
                assert "error" not in message, (method, message["error"])
                return message["result"]
        raise AssertionError(f"{self.name} ended before answering {method}")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
