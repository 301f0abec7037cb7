"""`tldrs install|uninstall opencode` and OpenCode's part of `tldrs doctor`: the shipped
plugin written with this installation's command, what is printed, dry runs, a file of
the user's moved aside and back, byte-identical round trips, what OpenCode wrote into a
folder install created, bad input, and the doctor's probe of the command."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import symbolpack
from symbolpack.base.errors import SymbolpackError
from symbolpack.integrations.installers.doctor import doctor
from symbolpack.integrations.opencode import install as oc

PACKAGE_ROOT = Path(symbolpack.__file__).resolve().parents[1]
WORKING = f"{sys.executable} -m symbolpack.cli"  # runs `read` like an installed tldrs


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("OPENCODE_DISABLE_PROJECT_CONFIG", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(PACKAGE_ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("SYMBOLPACK_TLDRS", WORKING)
    return h


@pytest.fixture
def repo(make_repo):
    return make_repo({"app.py": "x = 1\n"})


def snapshot(root: Path) -> dict[str, tuple[str, bytes | None, int]]:
    """Every file and folder under *root*: kind, bytes, mode."""
    out: dict[str, tuple[str, bytes | None, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in dirnames:
            p = Path(dirpath) / name
            out[str(p.relative_to(root))] = ("dir", None, p.stat().st_mode)
        for name in filenames:
            p = Path(dirpath) / name
            out[str(p.relative_to(root))] = ("file", p.read_bytes(), p.stat().st_mode)
    return out


def call(fn, **kw) -> str:
    out = io.StringIO()
    assert fn(out=out, **kw) == 0
    return out.getvalue()


def test_render_changes_only_the_command_and_scope_lines_and_reads_back():
    shipped = oc.shipped()
    rendered = oc.render("'/opt/my env/bin/tldrs' --quiet").decode()  # a shell command prefix
    changed = [(a, b) for a, b in zip(shipped.splitlines(), rendered.splitlines()) if a != b]
    assert len(shipped.splitlines()) == len(rendered.splitlines())
    assert changed == [('const TLDRS: string[] = ["tldrs"];',
                        'const TLDRS: string[] = ["/opt/my env/bin/tldrs", "--quiet"];')]
    assert oc.command_of(rendered.encode()) == ["/opt/my env/bin/tldrs", "--quiet"]
    assert oc.command_of(shipped.encode()) == ["tldrs"]
    glob = oc.render("tldrs", global_=True).decode()
    assert [(a, b) for a, b in zip(shipped.splitlines(), glob.splitlines()) if a != b] == [
        ('const SCOPE: string = "project";', 'const SCOPE: string = "global";')]
    # the mark install recognises its files by is the one a global copy looks for in the project
    assert shipped.count(oc.MARK.decode()) == 2
    with pytest.raises(SymbolpackError):
        oc.render("   ")


def test_the_plugin_exports_one_function_and_answers_in_opencodes_words():
    """OpenCode calls every export of a plugin file as a plugin: one, the default."""
    text = oc.shipped()
    assert re.findall(r"^export .*$", text, re.M) == ["export default async function symbolpack(input: any) {"]
    assert 'const FRONT_ARGS: string[] = ["--front", "opencode"];' in text
    for hook in ("tool.execute.after", "tool.execute.before", "experimental.chat.messages.transform",
                 "tool.definition"):
        assert f'"{hook}": async' in text


@pytest.mark.parametrize("where", ["project", "global-default", "global-xdg"])
@pytest.mark.parametrize("existing", [False, True])
def test_install_uninstall_round_trip_is_byte_identical(where, existing, home, repo, tmp_path, monkeypatch):
    global_ = where != "project"
    if where == "global-xdg":
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
        base = tmp_path / "xdg" / "opencode"
    else:
        base = home / ".config" / "opencode" if global_ else repo / ".opencode"
    if existing:  # another plugin, OpenCode's config and its dependency files already there
        (base / "plugin").mkdir(parents=True)
        (base / "plugin" / "other.ts").write_text("export default async () => ({})\n")
        (base / "opencode.json").write_text('{"theme": "dark"}')
        (base / "package.json").write_text('{"dependencies": {"@opencode-ai/plugin": "1.18.33"}}')
    top = tmp_path if where == "global-xdg" else (home if global_ else repo)
    before = snapshot(top)
    shown = call(oc.install, global_=global_, root=repo, tldrs="tldrs")
    path = base / "plugin" / "symbolpack.ts"
    assert path.read_bytes() == oc.render("tldrs", global_)
    assert f"new file {path} ({len(oc.render('tldrs', global_).splitlines())} lines)" in shown
    assert "+const TLDRS" not in shown  # a new file is one line, not a diff of every line
    assert "already installed" in call(oc.install, global_=global_, root=repo, tldrs="tldrs")
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]
    removed = call(oc.uninstall, global_=global_, root=repo)
    assert f"removed file {path} (" in removed and "kept" not in removed
    assert snapshot(top) == before
    assert "not installed" in call(oc.uninstall, global_=global_, root=repo)


def test_dry_run_writes_nothing(home, repo):
    before = snapshot(repo)
    shown = call(oc.install, root=repo, tldrs="tldrs", dry_run=True)
    assert f"new file {repo / '.opencode' / 'plugin' / 'symbolpack.ts'} (" in shown and "dry run" in shown
    assert snapshot(repo) == before
    call(oc.install, root=repo, tldrs="tldrs")
    installed = snapshot(repo)
    assert "dry run" in call(oc.uninstall, root=repo, dry_run=True)
    assert snapshot(repo) == installed


def test_a_users_file_of_that_name_is_moved_aside_and_put_back(home, repo):
    folder = repo / ".opencode" / "plugin"
    folder.mkdir(parents=True)
    mine = b"// my own symbolpack.ts\nexport default async () => ({})\n"
    (folder / "symbolpack.ts").write_bytes(mine)
    before = snapshot(repo)
    shown = call(oc.install, root=repo, tldrs="tldrs")
    assert "moved aside to symbolpack.ts.symbolpack.bak" in shown
    assert (folder / "symbolpack.ts.symbolpack.bak").read_bytes() == mine
    assert (folder / "symbolpack.ts").read_bytes() == oc.render("tldrs")
    assert "symbolpack.ts.symbolpack.bak" in call(oc.uninstall, root=repo)
    assert snapshot(repo) == before


def test_a_new_command_updates_the_installed_file_in_place(home, repo):
    call(oc.install, root=repo, tldrs="tldrs")
    shown = call(oc.install, root=repo, tldrs="/usr/local/bin/tldrs")
    assert '-const TLDRS: string[] = ["tldrs"];' in shown
    assert '+const TLDRS: string[] = ["/usr/local/bin/tldrs"];' in shown
    assert "updated" in shown
    shown = call(oc.uninstall, root=repo)
    assert f"removed {repo / '.opencode'} (symbolpack had created it)" in shown
    assert not (repo / ".opencode").exists()


def test_what_opencode_wrote_into_a_folder_install_created_is_kept_and_named(home, repo):
    """OpenCode installs its plugin package into every config folder it loads: once it
    ran, `.opencode/` holds its files, which are not symbolpack's to delete."""
    call(oc.install, root=repo, tldrs="tldrs")
    folder = repo / ".opencode"
    (folder / "package.json").write_text("{}")
    (folder / "node_modules").mkdir()
    (folder / ".gitignore").write_text("node_modules\n")
    shown = call(oc.uninstall, root=repo)
    assert f"removed {folder / 'plugin'} (symbolpack had created it)" in shown
    assert f"kept {folder}: OpenCode wrote .gitignore, node_modules, package.json there" in shown
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "node_modules", "package.json"]


def test_a_file_where_the_plugin_folder_should_be_is_one_clear_error(home, repo):
    (repo / ".opencode").mkdir()
    (repo / ".opencode" / "plugin").write_text("not a folder\n")
    before = snapshot(repo)
    with pytest.raises(SymbolpackError, match=r"plugin is not a folder; move it away first"):
        oc.install(root=repo, tldrs="tldrs", out=io.StringIO())
    assert snapshot(repo) == before
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "install", "opencode"], cwd=repo,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "not a folder" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "install", "open-code"], cwd=repo,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "invalid choice: 'open-code'" in proc.stderr


def test_doctor_probes_the_installed_command(home, repo):
    call(oc.install, root=repo)  # the command: $SYMBOLPACK_TLDRS
    report = oc.doctor_report(repo)
    project = next(t for t in report["targets"] if t["scope"] == "project")
    assert project["installed"] and project["current"]
    assert [c["check"] for c in report["checks"]] == ["project probe"] and report["checks"][0]["ok"], report
    out = io.StringIO()
    assert doctor(root=repo, out=out) == 0
    assert "project probe: ok" in out.getvalue() and "opencode project  installed" in out.getvalue()


def test_doctor_fails_on_a_command_that_does_not_answer_and_on_a_stale_file(home, repo):
    call(oc.install, root=repo, tldrs="/nonexistent/tldrs")
    report = oc.doctor_report(repo)
    assert {c["check"]: c["ok"] for c in report["checks"]} == {"project file": False, "project probe": False}
    out = io.StringIO()
    assert doctor(root=repo, out=out) == 1
    assert "installed (stale)" in out.getvalue() and "FAILED" in out.getvalue()


def test_doctor_says_when_opencode_would_not_load_the_projects_copy(home, repo, monkeypatch):
    call(oc.install, root=repo)
    monkeypatch.setenv("OPENCODE_DISABLE_PROJECT_CONFIG", "1")
    checks = {c["check"]: c for c in oc.doctor_report(repo)["checks"]}
    loaded = checks["project loaded"]
    assert not loaded["ok"] and "OPENCODE_DISABLE_PROJECT_CONFIG" in loaded["detail"]
    assert checks["project probe"]["ok"]


def test_doctor_reports_nothing_installed_as_no_problem(home, repo):
    report = oc.doctor_report(repo)
    assert [t["installed"] for t in report["targets"]] == [False, False] and report["checks"] == []
    assert oc.doctor_lines(report)[0].startswith("opencode project  not installed")


def test_cli_install_doctor_uninstall(home, repo):
    env = {**os.environ, "HOME": str(home)}
    env.pop("SYMBOLPACK_DIR", None)

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "symbolpack.integrations.commands", *args], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=120)

    proc = cli("install", "opencode", "--global")
    assert proc.returncode == 0, proc.stderr
    assert (home / ".config" / "opencode" / "plugin" / "symbolpack.ts").exists()
    report = json.loads(cli("doctor", "--json").stdout)
    assert report["opencode"]["checks"] and all(c["ok"] for c in report["opencode"]["checks"]), report["opencode"]
    assert cli("uninstall", "opencode", "--global").returncode == 0
    assert list(home.iterdir()) == []
