"""The real Gemini CLI (pinned in npm/gemini/package-lock.json) with what `tldrs install gemini`
writes, in a throwaway HOME and project.

Gemini reads its settings as JSON with comments and starts no MCP server in a
folder it does not trust (folder trust is on by default in 0.61). So: a
settings file with the user's comments is installed into and uninstalled from
byte for byte; the real Gemini accepts the installed file; in an untrusted
folder `gemini mcp list` shows symbolpack disabled and `tldrs doctor` says
inactive; once the folder is trusted, `gemini mcp list` shows it connected
(Gemini started the server and spoke MCP with it) and doctor is clean.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import clients

from symbolpack.integrations.doctor import INACTIVE

USER_SETTINGS = """{
  // my own settings, with comments Gemini accepts
  "ui": {
    "theme": "GitHub" /* light */
  },
  "mcpServers": {
    "other": {"command": "/nonexistent/other-server"} // not started by this test's assertions
  }
}
"""

GLOBAL_SETTINGS = '{\r\n    // global, CRLF and four spaces\r\n    "general": {"vimMode": false}\r\n}\r\n'


@pytest.fixture(scope="module")
def gemini() -> Path:
    return clients.node_bin("gemini", "gemini")  # installs the pinned client when the cache lacks it; fails, never skips


class Lab:
    def __init__(self, root: Path, gemini: Path):
        self.gemini = gemini
        self.home = root / "home"
        (self.home / ".gemini").mkdir(parents=True)
        self.proj = root / "proj"
        (self.proj / ".gemini").mkdir(parents=True)
        subprocess.run(["git", "init", "-q"], cwd=self.proj, check=True)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
                    "XDG_STATE_HOME": str(root / "state"), "NO_COLOR": "1"}

    def tldrs(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=self.proj, env=self.env,
                              capture_output=True, text=True, timeout=120)

    def mcp_list(self) -> str:
        proc = subprocess.run([str(self.gemini), "mcp", "list"], cwd=self.proj, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout + proc.stderr

    def trust(self) -> None:
        (self.home / ".gemini" / "trustedFolders.json").write_text(
            json.dumps({os.path.realpath(self.proj): "TRUST_FOLDER"}))

    def doctor(self) -> tuple[int, dict]:
        proc = self.tldrs("doctor", "--json")
        return proc.returncode, json.loads(proc.stdout)


def line_of(listing: str, name: str) -> str:
    lines = [line for line in listing.splitlines() if f" {name}: " in line]
    assert len(lines) == 1, listing
    return lines[0]


def target(report: dict, scope: str) -> dict:
    return next(t for t in report["targets"] if t["agent"] == "gemini" and t["scope"] == scope)


def test_project_install_keeps_comments_is_disabled_untrusted_and_connected_trusted(tmp_path, gemini):
    lab = Lab(tmp_path, gemini)
    settings = lab.proj / ".gemini" / "settings.json"
    settings.write_text(USER_SETTINGS)
    installed = lab.tldrs("install", "gemini")
    assert installed.returncode == 0, installed.stderr
    assert f'add "{os.path.realpath(lab.proj)}": "TRUST_FOLDER" to' in installed.stdout
    text = settings.read_text()
    assert text.startswith(USER_SETTINGS[:USER_SETTINGS.index('"other"')])  # the user's part, comments included
    assert '"theme": "GitHub" /* light */' in text and "// not started" in text

    assert line_of(lab.mcp_list(), "symbolpack").endswith("(stdio) - Disabled")
    code, report = lab.doctor()
    assert code == 1 and target(report, "project")["status"] == INACTIVE

    lab.trust()
    assert line_of(lab.mcp_list(), "symbolpack").endswith("mcp (stdio) - Connected")
    code, report = lab.doctor()
    assert target(report, "project")["status"] == "installed"
    assert report["problems"] == []  # "other" is not symbolpack's: doctor starts only what is installed
    assert code == 0

    assert lab.tldrs("uninstall", "gemini").returncode == 0
    assert settings.read_text() == USER_SETTINGS
    assert "symbolpack" not in lab.mcp_list()


def test_global_install_into_a_file_with_comments_and_crlf(tmp_path, gemini):
    lab = Lab(tmp_path, gemini)
    lab.trust()
    settings = lab.home / ".gemini" / "settings.json"
    settings.write_bytes(GLOBAL_SETTINGS.encode())
    assert lab.tldrs("install", "gemini", "--global").returncode == 0
    installed = settings.read_bytes()
    assert b"\r\n    // global, CRLF and four spaces\r\n" in installed
    assert installed.count(b"\n") == installed.count(b"\r\n")  # every line break stays CRLF
    assert line_of(lab.mcp_list(), "symbolpack").endswith("mcp (stdio) - Connected")
    code, report = lab.doctor()
    assert code == 0 and target(report, "global")["status"] == "installed", report["problems"]
    assert lab.tldrs("uninstall", "gemini", "--global").returncode == 0
    assert settings.read_bytes() == GLOBAL_SETTINGS.encode()
