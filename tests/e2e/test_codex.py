"""The real Codex CLI (pinned in npm/codex/package-lock.json) with what `tldrs install codex`
writes, in a throwaway HOME and project, its model a scripted fake on 127.0.0.1
(`fake_openai.py`).

- Trust: Codex ignores a project's `.codex/config.toml` until the project is trusted.
  The installer must say so, `tldrs doctor` must report it inactive, and after
  trusting, `codex mcp get symbolpack --json` shows the server and doctor is clean.
- Work: `codex exec` whose model calls symbolpack's `read_file` twice on one file,
  judged on the requests the model received: the tools were offered in the first
  request, both calls ran under Codex's default approval (the tools are annotated
  read-only; nothing else is written into the config), and the second answered
  `[UNCHANGED]`. Ten runs, each a fresh Codex and server, with no start-up grace
  setting: Codex gives an MCP server about a second before the first request.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import clients
import fake_openai

from symbolpack.integrations.doctor import INACTIVE

APP = "".join(f"def rule{i}(value):\n    return value * {i + 3}\n\n\n" for i in range(40))
RUNS = 10


@pytest.fixture(scope="module")
def codex() -> Path:
    return clients.node_bin("codex", "codex")  # installs the pinned client when the cache lacks it; fails, never skips


class Lab:
    def __init__(self, root: Path, codex: Path):
        self.codex = codex
        self.home = root / "home"
        self.home.mkdir(parents=True)
        self.proj = root / "proj"
        self.proj.mkdir()
        (self.proj / "app.py").write_text(APP)
        subprocess.run(["git", "init", "-q"], cwd=self.proj, check=True)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
                    "XDG_STATE_HOME": str(root / "state"), "FAKE_OPENAI_KEY": "fake"}

    def tldrs(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=self.proj, env=self.env,
                              capture_output=True, text=True, timeout=120)

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.codex), "-c", "analytics.enabled=false",
                               "-c", "check_for_update_on_startup=false", *args],
                              cwd=self.proj, env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)

    def trust(self) -> None:
        (self.home / ".codex").mkdir(exist_ok=True)
        (self.home / ".codex" / "config.toml").write_text(
            f'[projects."{os.path.realpath(self.proj)}"]\ntrust_level = "trusted"\n')

    def doctor(self) -> tuple[int, dict]:
        proc = self.tldrs("doctor", "--json")
        return proc.returncode, json.loads(proc.stdout)


def codex_target(report: dict) -> dict:
    return next(t for t in report["targets"] if t["agent"] == "codex" and t["scope"] == "project")


def test_install_says_trust_doctor_says_inactive_until_the_project_is_trusted(tmp_path, codex):
    lab = Lab(tmp_path, codex)
    real = os.path.realpath(lab.proj)
    installed = lab.tldrs("install", "codex")
    assert installed.returncode == 0, installed.stderr
    assert f'[projects."{real}"] trust_level = "trusted"' in installed.stdout

    untrusted = lab.run("mcp", "get", "symbolpack", "--json")
    assert untrusted.returncode == 1 and "No MCP server named 'symbolpack' found." in untrusted.stderr
    code, report = lab.doctor()
    assert code == 1 and codex_target(report)["status"] == INACTIVE

    lab.trust()
    got = lab.run("mcp", "get", "symbolpack", "--json")
    assert got.returncode == 0, got.stderr
    server = json.loads(got.stdout)
    config = (lab.proj / ".codex" / "config.toml").read_text()
    assert server["name"] == "symbolpack" and server["enabled"] is True
    assert f'command = "{server["transport"]["command"]}"' in config
    assert server["transport"]["args"][-1] == "mcp"
    code, report = lab.doctor()
    assert code == 0, report["problems"]
    assert codex_target(report)["status"] == "installed" and "read_file" in codex_target(report)["server"]["tools"]


def read_twice(body: dict) -> list[dict]:
    """The scripted model: read app.py through symbolpack, read it again, then stop."""
    offered = ("mcp__symbolpack", "read_file") in fake_openai.tools(body)
    done = len(fake_openai.outputs(body))
    if offered and done < 2:
        return [fake_openai.call("read_file", {"path": "app.py"}, namespace="mcp__symbolpack")]
    return [fake_openai.say("done")]


def test_codex_exec_gets_the_tools_and_runs_both_reads_every_time(tmp_path, codex):
    results = []
    for k in range(RUNS):
        lab = Lab(tmp_path / f"run{k}", codex)
        assert lab.tldrs("install", "codex").returncode == 0
        lab.trust()
        server, port = fake_openai.start(read_twice)
        try:
            proc = lab.run("exec", "--skip-git-repo-check", "-c", "model_provider=fake", "-c", "model=gpt-fake",
                           "-c", 'model_providers.fake.name="fake"',
                           "-c", f'model_providers.fake.base_url="http://127.0.0.1:{port}/v1"',
                           "-c", 'model_providers.fake.wire_api="responses"',
                           "-c", 'model_providers.fake.env_key="FAKE_OPENAI_KEY"',
                           "Read app.py twice with symbolpack.")
            assert proc.returncode == 0, proc.stderr[-2000:]
            requests = server.requests()
        finally:
            server.shutdown()
        offered = bool(requests) and ("mcp__symbolpack", "read_file") in fake_openai.tools(requests[0])
        answers = [fake_openai.output_text(o) for o in fake_openai.outputs(requests[-1])] if requests else []
        results.append({"offered": offered, "answers": answers})
    assert "mcp_optional_startup_grace_ms" not in (tmp_path / "run0" / "proj" / ".codex" / "config.toml").read_text()
    offered = sum(r["offered"] for r in results)
    ran = sum(len(r["answers"]) == 2 and not any("requires approval" in a for a in r["answers"]) for r in results)
    assert (offered, ran) == (RUNS, RUNS), (f"tools offered in {offered}/{RUNS} runs, both reads ran in {ran}/{RUNS}; "
                                            f"first answers: {[r['answers'][:1] for r in results]}")
    for r in results:
        first, second = r["answers"]
        assert "def rule0(value):" in first and "[UNCHANGED]" not in first
        assert "[UNCHANGED]" in second


def test_uninstall_keeps_the_users_key_and_doctor_names_what_codex_then_refuses(tmp_path, codex):
    lab = Lab(tmp_path, codex)
    lab.trust()
    assert lab.tldrs("install", "codex").returncode == 0
    config = lab.proj / ".codex" / "config.toml"
    config.write_text(config.read_text() + "startup_timeout_sec = 30\n")
    assert lab.run("mcp", "list").returncode == 0
    removed = lab.tldrs("uninstall", "codex")
    assert removed.returncode == 0 and "kept [mcp_servers.symbolpack]" in removed.stdout
    assert config.read_text() == "[mcp_servers.symbolpack]\nstartup_timeout_sec = 30\n"
    refused = lab.run("mcp", "list")  # the fact doctor's warning rests on
    assert refused.returncode == 1 and "invalid transport" in refused.stderr
    code, report = lab.doctor()
    assert code == 1 and codex_target(report)["status"] == "leftover table"
    assert lab.tldrs("install", "codex").returncode == 0
    assert lab.run("mcp", "list").returncode == 0
