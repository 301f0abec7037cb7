"""`tldrs install|uninstall|doctor`: merges, idempotence, backups, byte-identical round trips."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import symbolpack
from symbolpack.integrations import install as inst
from symbolpack.integrations.doctor import doctor
from symbolpack.integrations.commands import HOOK_NAMES
from symbolpack.integrations.claude import HOOKS
from symbolpack.base.workspace import SymbolpackError

PACKAGE_ROOT = Path(symbolpack.__file__).resolve().parents[1]
TLDRS = "tldrs"


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return h


@pytest.fixture
def repo(make_repo):
    return make_repo({"app.py": "x = 1\n"})


def run(fn, agent: str, root: Path, global_: bool = False, **kw) -> str:
    out = io.StringIO()
    assert fn(agent, global_=global_, root=root, tldrs=kw.pop("tldrs", TLDRS), out=out, **kw) == 0
    return out.getvalue()


CLAUDE_EXISTING = """{
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check-bash.sh"}]}
        ]
    },
    "model": "opus"
}"""  # four-space indent, compact arrays, no final newline: a round trip must keep all of it

GEMINI_EXISTING = '{\n  "theme": "Dracula",\n  "mcpServers": {\n    "git": {"command": "uvx", "args": ["mcp-server-git"]}\n  }\n}\n'

CODEX_EXISTING = """# my codex config
model = "o4-mini"   # keep this comment

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "gpt-5-mini\""""

EXISTING = {"claude": CLAUDE_EXISTING, "gemini": GEMINI_EXISTING, "codex": CODEX_EXISTING}


def target(agent: str, root: Path, global_: bool) -> Path:
    return inst.settings_path(agent, global_, root)


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
@pytest.mark.parametrize("global_", [False, True])
@pytest.mark.parametrize("existing", [False, True])
def test_install_uninstall_round_trip_is_byte_identical(agent, global_, existing, home, repo):
    path = target(agent, repo, global_)
    assert path.is_relative_to(home if global_ else repo)
    if existing:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(EXISTING[agent].encode())
    before = path.read_bytes() if existing else None

    printed = run(inst.install, agent, repo, global_)
    assert printed.startswith(("--- ", "+++ ")) or "+++ " in printed  # the change, as a diff
    text = path.read_text()
    assert inst.adapter_for(agent, path).installed(text)
    backup = path.with_name(path.name + inst.BACKUP_SUFFIX)
    assert backup.exists() == existing
    if existing:
        assert backup.read_bytes() == before

    again = run(inst.install, agent, repo, global_)
    assert "nothing changed" in again and path.read_text() == text  # idempotent

    run(inst.uninstall, agent, repo, global_)
    if existing:
        assert path.read_bytes() == before
    else:
        assert not path.exists()
    assert not backup.exists()
    assert "nothing changed" in run(inst.uninstall, agent, repo, global_)


def test_claude_hooks_merge_with_existing_ones(home, repo):
    path = target("claude", repo, False)
    path.parent.mkdir()
    path.write_text(CLAUDE_EXISTING)
    run(inst.install, "claude", repo)
    data = json.loads(path.read_text())
    assert data["permissions"] == {"allow": ["Bash(git status)"]} and data["model"] == "opus"
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check-bash.sh"}]}
    installed = {(event, g["matcher"], h["command"]) for event, groups in data["hooks"].items()
                 for g in groups for h in g["hooks"]}
    assert installed >= {
        ("PreToolUse", "Read", "tldrs hook claude-pre-read"),
        ("PreToolUse", "Edit|MultiEdit|Write", "tldrs hook claude-pre-edit"),
        ("PostToolUse", "Edit|Write|MultiEdit|NotebookEdit", "tldrs hook claude-post-edit"),
        ("PostToolUse", "Read", "tldrs hook claude-post-read"),
        ("SessionStart", "compact|clear|resume", "tldrs hook claude-session-start"),
    }
    assert path.read_text().startswith('{\n    "permissions"')  # the file's own indent


def test_reinstall_replaces_an_earlier_versions_session_start_matcher(home, repo):
    """Installs made before rewinds were handled matched `compact|clear`; installing
    again leaves exactly one SessionStart entry of ours, on `compact|clear|resume`."""
    path = target("claude", repo, False)
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"SessionStart": [{"matcher": "compact|clear", "hooks": [
        {"type": "command", "command": "tldrs hook claude-session-start", "timeout": 30}]}]}}, indent=2) + "\n")
    run(inst.install, "claude", repo)
    starts = json.loads(path.read_text())["hooks"]["SessionStart"]
    assert [g["matcher"] for g in starts] == ["compact|clear|resume"]


def test_hook_names_agree_everywhere():
    assert set(HOOK_NAMES) == set(HOOKS) == {name for _, _, name in inst.CLAUDE_HOOKS}


def test_uninstall_after_other_edits_removes_only_ours(home, repo):
    path = target("claude", repo, False)
    path.parent.mkdir()
    path.write_text(CLAUDE_EXISTING)
    run(inst.install, "claude", repo)
    data = json.loads(path.read_text())
    data["model"] = "sonnet"  # the user changes something meanwhile
    path.write_text(json.dumps(data, indent=4))
    printed = run(inst.uninstall, "claude", repo)
    assert "edited since install" in printed
    after = json.loads(path.read_text())
    assert after["model"] == "sonnet"
    assert after["hooks"] == {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check-bash.sh"}]}]}
    assert "symbolpack" not in path.read_text()


def test_reinstall_with_another_command_replaces_ours(home, repo):
    run(inst.install, "claude", repo, tldrs="/opt/old/tldrs")
    run(inst.install, "claude", repo, tldrs="tldrs")
    text = target("claude", repo, False).read_text()
    assert "/opt/old/tldrs" not in text and text.count("hook claude-pre-read") == 1


def test_codex_table_is_replaced_in_place_keeping_subtables(home):
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    original = ('model = "x"\n\n[mcp_servers.symbolpack]\ncommand = "old"\nargs = []\n\n'
                '[mcp_servers.symbolpack.env]\nFOO = "1"\n\n[other]\na = 1\n')
    path.write_text(original)
    run(inst.install, "codex", home, global_=True)
    import tomllib

    data = tomllib.loads(path.read_text())
    assert data["mcp_servers"]["symbolpack"] == {"command": "tldrs", "args": ["mcp"], "env": {"FOO": "1"}}
    assert data["other"] == {"a": 1} and data["model"] == "x"
    run(inst.uninstall, "codex", home, global_=True)
    assert path.read_text() == original  # restored from the backup


def test_codex_inline_definitions_are_refused(home):
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text('mcp_servers = { symbolpack = { command = "x" } }\n')
    with pytest.raises(SymbolpackError, match="by hand"):
        run(inst.install, "codex", home, global_=True)
    assert path.read_text() == 'mcp_servers = { symbolpack = { command = "x" } }\n'


def test_broken_settings_are_left_alone(home, repo):
    path = target("gemini", repo, False)
    path.parent.mkdir()
    path.write_text("{ not json")
    with pytest.raises(SymbolpackError, match="not valid JSON"):
        run(inst.install, "gemini", repo)
    assert path.read_text() == "{ not json"
    assert not path.with_name(path.name + inst.BACKUP_SUFFIX).exists()


def test_dry_run_writes_nothing(home, repo):
    printed = run(inst.install, "gemini", repo, dry_run=True)
    assert '"symbolpack"' in printed and "dry run" in printed
    assert not target("gemini", repo, False).exists()


def test_gemini_and_codex_commands(home, repo):
    run(inst.install, "gemini", repo, tldrs="/venv/bin/python -m symbolpack.cli")
    data = json.loads(target("gemini", repo, False).read_text())
    assert data["mcpServers"]["symbolpack"] == {"command": "/venv/bin/python",
                                                "args": ["-m", "symbolpack.cli", "mcp"]}


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID")}
    env["HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    # hooks run through the module entry point, so this works before `tldrs hook` is wired into the CLI
    env["SYMBOLPACK_TLDRS"] = f"{sys.executable} -m symbolpack.integrations.commands"
    return env


def test_commands_and_doctor_end_to_end(home, repo):
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "symbolpack.integrations.commands", *args], cwd=repo,
                              env=_env(home), capture_output=True, text=True, timeout=120)

    proc = cli("install", "claude")
    assert proc.returncode == 0, proc.stderr
    assert "+++ " in proc.stdout and "claude-pre-read" in proc.stdout
    doctor = cli("doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    report = json.loads(doctor.stdout)
    project = next(t for t in report["targets"] if t["agent"] == "claude" and t["scope"] == "project")
    assert len(project["installed"]) == len(inst.CLAUDE_HOOKS) == 5
    assert report["hooks"] and all(h["ok"] for h in report["hooks"])
    text = cli("doctor")
    assert "answers" in text.stdout and "claude " in text.stdout
    assert cli("uninstall", "claude").returncode == 0
    assert not (repo / ".claude" / "settings.json").exists()


def test_doctor_reports_a_hook_that_does_not_answer(home, repo):
    run(inst.install, "claude", repo, tldrs="/nonexistent/tldrs")
    out = io.StringIO()
    assert doctor(root=repo, out=out) == 1
    assert "DOES NOT ANSWER" in out.getvalue()
