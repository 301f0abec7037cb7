"""`tldrs install|uninstall|doctor`: merges, idempotence, backups, byte-identical round trips,
the user's keys and folders kept, trust said, and doctor's exit codes with real processes."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import symbolpack
from symbolpack.integrations.installers import install as inst
from symbolpack.integrations.installers.doctor import INACTIVE, doctor
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
    for var in ("CODEX_HOME", "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE", "GEMINI_CLI_TRUSTED_FOLDERS_PATH"):
        monkeypatch.delenv(var, raising=False)
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


def test_claude_hooks_start_the_hook_client_file_without_site(home, repo, monkeypatch):
    """With no prefix given, each hook is `<python> -S .../claude/client.py NAME` (no console
    script, no `site` while a resident server answers); an install over the `tldrs hook`
    form of earlier versions replaces it, `doctor` runs it, and uninstall restores the file
    byte for byte."""
    monkeypatch.delenv("SYMBOLPACK_TLDRS", raising=False)
    path = target("claude", repo, False)
    path.parent.mkdir()
    path.write_text(CLAUDE_EXISTING)
    run(inst.install, "claude", repo, tldrs="tldrs")  # what an earlier version wrote
    run(inst.install, "claude", repo, tldrs=None)
    text = path.read_text()
    client = PACKAGE_ROOT / "symbolpack" / "integrations" / "claude" / "client.py"
    ours = sorted(h["command"] for groups in json.loads(text)["hooks"].values() for g in groups for h in g["hooks"]
                  if h["command"] != "./check-bash.sh")
    assert ours == sorted(f"{shlex.quote(sys.executable)} -S {shlex.quote(str(client))} {name}"
                          for _, _, name in inst.CLAUDE_HOOKS)
    assert "tldrs hook" not in text
    env = {k: v for k, v in _env(home).items() if k != "SYMBOLPACK_TLDRS"}
    doctor = subprocess.run([sys.executable, "-m", "symbolpack.integrations.commands", "doctor", "--json"], cwd=repo,
                            env=env, capture_output=True, text=True, timeout=120)
    report = json.loads(doctor.stdout)
    assert sorted(h["command"] for h in report["hooks"]) == ours
    assert all(h["ok"] for h in report["hooks"]), report["hooks"]
    run(inst.install, "claude", repo, tldrs=None)
    assert path.read_text() == text  # idempotent
    run(inst.uninstall, "claude", repo, tldrs=None)
    assert path.read_text() == CLAUDE_EXISTING


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
    with pytest.raises(SymbolpackError, match=r"settings\.json: not valid JSON with comments \(unexpected 'n' at line 1, column 3\)"):
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
    # every installed hook is run with a probe of its own event, not the pre-read hook alone
    assert sorted(h["command"].rsplit(" ", 1)[-1] for h in report["hooks"]) == sorted(
        name for _, _, name in inst.CLAUDE_HOOKS)
    assert all(h["ok"] for h in report["hooks"]), report["hooks"]
    text = cli("doctor")
    assert "answers" in text.stdout and "claude " in text.stdout
    assert cli("uninstall", "claude").returncode == 0
    assert not (repo / ".claude" / "settings.json").exists()


def test_doctor_reports_a_hook_that_does_not_answer(home, repo):
    run(inst.install, "claude", repo, tldrs="/nonexistent/tldrs")
    out = io.StringIO()
    assert doctor(root=repo, out=out) == 1
    assert "DOES NOT ANSWER" in out.getvalue()


# --------------------------------------------------------------------------- Gemini: JSON with comments

GEMINI_LAYOUTS = {
    "comments": '{\n  // my theme\n  "theme": "Dracula", /* inline */\n  "ui": {"hideBanner": true} // last\n}\n',
    "odd indent": '{\n     "theme": "x",\n     "ui": {\n\t"a": [1,\n 2]\n     }\n}',
    "crlf": '{\r\n  // note\r\n  "theme": "x"\r\n}\r\n',
    "other servers": '{\n  "mcpServers": {\n    "git": {"command": "uvx", "args": ["mcp-server-git"]} // git\n  }\n}\n',
    "empty servers": '{\n  "mcpServers": {}\n}\n',
    "empty object": "{}",
    "one line": '{"theme": "x"}',
}


@pytest.mark.parametrize("name", GEMINI_LAYOUTS)
def test_gemini_round_trip_keeps_comments_and_layout_byte_for_byte(name, home, repo):
    path = target("gemini", repo, False)
    path.parent.mkdir()
    original = GEMINI_LAYOUTS[name].encode()
    path.write_bytes(original)
    run(inst.install, "gemini", repo)
    text = path.read_bytes().decode()
    untouched = inst.adapter_for("gemini", path).remove(text, ("mcpServers",) if "servers" not in name else ())
    assert untouched.text.encode() == original  # the text edit alone undoes the install, backup or not
    data = inst.adapter_for("gemini", path).parse(text)
    assert data["mcpServers"]["symbolpack"] == {"command": "tldrs", "args": ["mcp"]}
    run(inst.uninstall, "gemini", repo)
    assert path.read_bytes() == original


def test_gemini_uninstall_after_the_user_edited_elsewhere_keeps_their_edit_and_comments(home, repo):
    path = target("gemini", repo, False)
    path.parent.mkdir()
    path.write_text(GEMINI_LAYOUTS["comments"])
    run(inst.install, "gemini", repo)
    path.write_text(path.read_text().replace('"Dracula"', '"GitHub"'))
    printed = run(inst.uninstall, "gemini", repo)
    assert "edited since install" in printed
    assert path.read_text() == GEMINI_LAYOUTS["comments"].replace('"Dracula"', '"GitHub"')


def test_gemini_install_refuses_what_gemini_refuses(home, repo):
    path = target("gemini", repo, False)
    path.parent.mkdir()
    path.write_text('{\n  "theme": "x", // trailing comma next\n}\n')
    with pytest.raises(SymbolpackError, match=r"line 3, column 1, found a trailing comma\); fix it by hand"):
        run(inst.install, "gemini", repo)


# --------------------------------------------------------------------------- the user's keys and folders

def test_codex_uninstall_keeps_a_key_the_user_added_to_our_table(home, repo):
    path = target("codex", repo, False)
    run(inst.install, "codex", repo)
    path.write_text(path.read_text() + "startup_timeout_sec = 30\n")
    printed = run(inst.uninstall, "codex", repo)
    assert "kept [mcp_servers.symbolpack] with the keys you added (startup_timeout_sec)" in printed
    assert path.read_text() == "[mcp_servers.symbolpack]\nstartup_timeout_sec = 30\n"
    assert not inst.adapter_for("codex", path).installed(path.read_text())
    code, _, problems = doctor_run(repo)  # Codex refuses a server table without a command: doctor says so
    assert code == 1 and problems == [
        f"codex project: {path}: [mcp_servers.symbolpack] has no command, only startup_timeout_sec: Codex will not "
        f"start (\"invalid transport\"); delete the table or run: tldrs install codex"]
    run(inst.install, "codex", repo)  # and a later install fills the table in again
    assert path.read_text() == '[mcp_servers.symbolpack]\nstartup_timeout_sec = 30\ncommand = "tldrs"\nargs = ["mcp"]\n'


def test_gemini_uninstall_keeps_a_key_the_user_added_to_our_entry(home, repo):
    path = target("gemini", repo, False)
    run(inst.install, "gemini", repo)
    path.write_text(path.read_text().replace('"args": ["mcp"]', '"args": ["mcp"],\n      "trust": true'))
    printed = run(inst.uninstall, "gemini", repo)
    assert "kept mcpServers.symbolpack with the keys you added (trust)" in printed
    assert path.read_text() == '{\n  "mcpServers": {\n    "symbolpack": {\n      "trust": true\n    }\n  }\n}\n'


@pytest.mark.parametrize("agent, folder", [("codex", ".codex"), ("gemini", ".gemini"), ("claude", ".claude")])
def test_uninstall_removes_the_folder_only_when_install_created_it(agent, folder, home, repo):
    run(inst.install, agent, repo)
    assert (repo / folder).is_dir()
    printed = run(inst.uninstall, agent, repo)
    assert not (repo / folder).exists() and f"removed {repo / folder} (symbolpack had created it)" in printed

    (repo / folder).mkdir()  # the user's own folder
    run(inst.install, agent, repo)
    run(inst.uninstall, agent, repo)
    assert (repo / folder).is_dir() and not any((repo / folder).iterdir())


def test_uninstall_after_the_file_was_deleted_by_hand_removes_the_empty_folder(home, repo):
    run(inst.install, "gemini", repo)
    target("gemini", repo, False).unlink()
    printed = run(inst.uninstall, "gemini", repo)
    assert "nothing changed" in printed and not (repo / ".gemini").exists()


def test_a_created_folder_that_is_not_empty_stays(home, repo):
    run(inst.install, "codex", repo)
    (repo / ".codex" / "notes.md").write_text("mine\n")
    run(inst.uninstall, "codex", repo)
    assert (repo / ".codex" / "notes.md").read_text() == "mine\n"
    assert not (repo / ".codex" / "config.toml").exists()


def test_gemini_keeps_an_mcpServers_object_it_did_not_create(home, repo):
    path = target("gemini", repo, False)
    path.parent.mkdir()
    path.write_text('{\n  "mcpServers": {}\n}\n')
    run(inst.install, "gemini", repo)
    path.write_text(path.read_text() + "\n")  # an edit: uninstall cannot restore the backup
    run(inst.uninstall, "gemini", repo)
    assert path.read_text() == '{\n  "mcpServers": {}\n}\n\n'


# --------------------------------------------------------------------------- trust

def trust_codex(home: Path, root: Path) -> None:
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / "config.toml").write_text(f'[projects."{os.path.realpath(root)}"]\ntrust_level = "trusted"\n')


def trust_gemini(home: Path, root: Path) -> None:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({os.path.realpath(root): "TRUST_FOLDER"}))


def test_a_project_install_into_an_untrusted_project_says_how_to_trust_it(home, repo):
    real = os.path.realpath(repo)
    printed = run(inst.install, "codex", repo)
    assert (f"Codex ignores a project's settings in a folder it does not trust, and {repo} is not trusted "
            f"(project not trusted by Codex)") in printed
    assert f'add to {home}/.codex/config.toml: [projects."{real}"] trust_level = "trusted"' in printed
    printed = run(inst.install, "gemini", repo)
    assert f'add "{real}": "TRUST_FOLDER" to {home}/.gemini/trustedFolders.json' in printed
    assert "/permissions trust" in printed


def test_a_trusted_project_install_says_nothing_about_trust(home, repo):
    trust_codex(home, repo)
    trust_gemini(home, repo)
    assert "does not trust" not in run(inst.install, "codex", repo)
    assert "does not trust" not in run(inst.install, "gemini", repo)


def test_a_global_codex_install_needs_no_trust_but_gemini_does(home, repo):
    assert "does not trust" not in run(inst.install, "codex", repo, global_=True)
    assert "Gemini CLI ignores MCP servers in a folder it does not trust" in run(inst.install, "gemini", repo,
                                                                                 global_=True)


# --------------------------------------------------------------------------- doctor, with real processes

def doctor_run(repo: Path) -> tuple[int, str, list[str]]:
    out = io.StringIO()
    code = doctor(root=repo, out=out)
    text = out.getvalue()
    problems = text.split("problem", 1)[1].splitlines()[1:] if " problem" in text else []
    return code, text, [p.strip() for p in problems]


def test_doctor_exits_0_when_nothing_is_installed(home, repo):
    code, text, problems = doctor_run(repo)
    assert code == 0 and problems == [] and text.rstrip().endswith("no problems")


def test_doctor_exits_1_naming_a_server_command_that_does_not_exist(home, repo):
    trust_codex(home, repo)
    run(inst.install, "codex", repo, tldrs="/nonexistent/bin/tldrs")
    code, _, problems = doctor_run(repo)
    assert code == 1
    assert problems == ["codex project: MCP server `/nonexistent/bin/tldrs mcp`: "
                        "command not found: /nonexistent/bin/tldrs"]


def test_doctor_exits_1_on_settings_it_cannot_parse_with_the_path_first(home, repo):
    path = target("gemini", repo, False)
    path.parent.mkdir()
    path.write_text('{"mcpServers": {},}')
    code, text, problems = doctor_run(repo)
    assert code == 1
    assert problems == [f"gemini project: {path}: not valid JSON with comments (expected a key at line 1, "
                        f"column 19, found a trailing comma); fix it by hand, then run this again"]


def test_doctor_starts_the_installed_server_and_lists_its_tools(home, repo):
    trust_codex(home, repo)
    trust_gemini(home, repo)
    command = f"{sys.executable} -m symbolpack.cli"
    run(inst.install, "codex", repo, tldrs=command)
    run(inst.install, "gemini", repo, tldrs=command)
    out = io.StringIO()
    assert doctor(as_json=True, root=repo, out=out) == 0, out.getvalue()
    report = json.loads(out.getvalue())
    assert report["problems"] == []
    [server] = report["servers"]  # one command, started once
    assert server["ok"] and "read_file" in server["tools"]
    # and labelled with every host that uses it (the Gemini entry showed "agent": "codex")
    assert server["agents"] == ["codex", "gemini"]
    for agent in ("codex", "gemini"):
        entry = next(t for t in report["targets"] if t["agent"] == agent and t["scope"] == "project")
        assert entry["status"] == "installed" and entry["trusted"] is True


def test_doctor_says_inactive_for_an_untrusted_project(home, repo):
    run(inst.install, "codex", repo, tldrs=f"{sys.executable} -m symbolpack.cli")
    code, text, problems = doctor_run(repo)
    assert code == 1
    assert f"codex  project  {INACTIVE}" in text
    assert problems == [f"codex project: {INACTIVE} (project not trusted by Codex: {repo}); to trust it, run "
                        f"`codex` in {os.path.realpath(repo)} and answer yes when it asks to trust the folder, or add "
                        f"to {home}/.codex/config.toml: [projects.\"{os.path.realpath(repo)}\"] "
                        f"trust_level = \"trusted\""]


def test_doctor_starts_a_server_added_to_claude_code_with_claude_mcp_add(home, repo):
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"symbolpack": {
        "type": "stdio", "command": "/nonexistent/tldrs", "args": ["mcp"]}}}))
    (home / ".claude.json").write_text(json.dumps({"projects": {str(repo): {"mcpServers": {"symbolpack": {
        "type": "stdio", "command": sys.executable, "args": ["-m", "symbolpack.cli", "mcp"]}}}}}))
    out = io.StringIO()
    assert doctor(as_json=True, root=repo, out=out) == 1
    report = json.loads(out.getvalue())
    assert report["problems"] == ["claude-mcp project: MCP server `/nonexistent/tldrs mcp`: "
                                  "command not found: /nonexistent/tldrs"]
    local = next(t for t in report["targets"] if t["agent"] == "claude-mcp" and t["scope"] == "local")
    assert local["server"]["ok"] and "read_file" in local["server"]["tools"]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_install_then_uninstall_into_an_empty_home_leaves_it_empty(agent, home, repo, monkeypatch):
    """The record of what install created (`installs.json` under ~/.local/state) goes with
    the last entry, and so do the folders the first install made for it (issue 29)."""
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    run(inst.install, agent, repo, True)
    assert inst.record_path() == home / ".local" / "state" / "symbolpack" / "installs.json"
    assert inst.record_path().is_file()
    run(inst.uninstall, agent, repo, True)
    assert not inst.record_path().exists()
    assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == []


def test_the_record_keeps_a_state_folder_that_was_there_before(home, repo, monkeypatch):
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    (home / ".local" / "state").mkdir(parents=True)
    run(inst.install, "gemini", repo)
    run(inst.uninstall, "gemini", repo)
    assert (home / ".local" / "state").is_dir() and not (home / ".local" / "state" / "symbolpack").exists()


def test_doctor_says_which_hook_fails_its_probe(tmp_path):
    """A hook that crashes on its event, or answers for another event, or prints on a payload it
    cannot read, is reported; one that answers nothing (fails open) passes."""
    from symbolpack.integrations.installers.doctor import check_event_hook

    def script(body: str) -> str:
        path = tmp_path / f"hook{len(list(tmp_path.iterdir()))}.py"
        path.write_text("import json, sys\n" + body)
        return f"{sys.executable} {path}"

    silent = script("sys.stdin.read()\n")
    assert check_event_hook(silent, "PostToolUse", "Edit|Write")["ok"]
    crash = script("raise SystemExit(3)\n")
    assert not check_event_hook(crash, "SessionStart", "compact")["ok"]
    wrong = script("sys.stdin.read(); print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse'}}))\n")
    assert not check_event_hook(wrong, "PostToolUse", "Read")["ok"]
    chatty = script("print('hello')\n")
    assert not check_event_hook(chatty, "PreToolUse", "Edit")["ok"]
