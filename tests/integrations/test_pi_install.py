"""`tldrs install|uninstall pi` and pi's part of `tldrs doctor`: the shipped extension
written with this installation's command, diffs, dry runs, a file of the user's moved
aside and back, byte-identical round trips, and the doctor's probe of the command."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import symbolpack
from symbolpack.base.errors import SymbolpackError
from symbolpack.integrations.pi import install as pii
from symbolpack.integrations.installers.doctor import doctor

PACKAGE_ROOT = Path(symbolpack.__file__).resolve().parents[1]
WORKING = f"{sys.executable} -m symbolpack.cli"  # runs `read` like an installed tldrs


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(PACKAGE_ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("SYMBOLPACK_TLDRS", WORKING)
    return h


@pytest.fixture
def repo(make_repo):
    return make_repo({"app.py": "x = 1\n"})


def snapshot(root: Path) -> dict[str, tuple[str, bytes | None, int]]:
    """Every file and folder under *root*: kind, bytes, mode."""
    out = {}
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


def test_render_changes_only_the_command_line_and_reads_back():
    shipped = pii.shipped()
    rendered = pii.render("'/opt/my env/bin/tldrs' --quiet").decode()  # a shell command prefix
    changed = [(a, b) for a, b in zip(shipped.splitlines(), rendered.splitlines()) if a != b]
    assert len(shipped.splitlines()) == len(rendered.splitlines())
    assert changed == [('const TLDRS: string[] = ["tldrs"];',
                        'const TLDRS: string[] = ["/opt/my env/bin/tldrs", "--quiet"];')]
    assert pii.command_of(rendered.encode()) == ["/opt/my env/bin/tldrs", "--quiet"]
    assert pii.command_of(shipped.encode()) == ["tldrs"]
    glob = pii.render("tldrs", global_=True).decode()
    assert [(a, b) for a, b in zip(shipped.splitlines(), glob.splitlines()) if a != b] == [
        ('const SCOPE: string = "project";', 'const SCOPE: string = "global";')]
    # the mark install recognises its files by is the one a global copy looks for in the project
    assert shipped.count(pii.MARK.decode()) == 2
    with pytest.raises(SymbolpackError):
        pii.render("   ")


@pytest.mark.parametrize("where", ["project", "global-default", "global-env"])
@pytest.mark.parametrize("existing", [False, True])
def test_install_uninstall_round_trip_is_byte_identical(where, existing, home, repo, tmp_path, monkeypatch):
    global_ = where != "project"
    if where == "global-env":
        monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
        base = tmp_path / "agent"
    else:
        base = home / ".pi" / "agent" if global_ else repo / ".pi"
    if existing:  # another extension and a settings file already there
        (base / "extensions").mkdir(parents=True)
        (base / "extensions" / "other.ts").write_text("export default function () {}\n")
        (base / "settings.json").write_text('{"theme": "dark"}')
    top = tmp_path if where == "global-env" else (home if global_ else repo)
    before = snapshot(top)
    shown = call(pii.install, global_=global_, root=repo, tldrs="tldrs")
    path = base / "extensions" / "symbolpack.ts"
    assert path.read_bytes() == pii.render("tldrs", global_)
    assert f"new file {path} ({len(pii.render('tldrs', global_).splitlines())} lines)" in shown
    assert "+const TLDRS" not in shown  # a new file is one line, not a 373-line diff
    assert "already installed" in call(pii.install, global_=global_, root=repo, tldrs="tldrs")
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]
    removed = call(pii.uninstall, global_=global_, root=repo)
    assert f"removed file {path} (" in removed
    assert snapshot(top) == before
    assert "not installed" in call(pii.uninstall, global_=global_, root=repo)


def test_dry_run_writes_nothing(home, repo):
    before = snapshot(repo)
    shown = call(pii.install, root=repo, tldrs="tldrs", dry_run=True)
    assert f"new file {repo / '.pi' / 'extensions' / 'symbolpack.ts'} (" in shown and "dry run" in shown
    assert snapshot(repo) == before
    call(pii.install, root=repo, tldrs="tldrs")
    installed = snapshot(repo)
    assert "dry run" in call(pii.uninstall, root=repo, dry_run=True)
    assert snapshot(repo) == installed


def test_a_users_file_of_that_name_is_moved_aside_and_put_back(home, repo):
    folder = repo / ".pi" / "extensions"
    folder.mkdir(parents=True)
    mine = b"// my own symbolpack.ts\nexport default function () {}\n"
    (folder / "symbolpack.ts").write_bytes(mine)
    before = snapshot(repo)
    shown = call(pii.install, root=repo, tldrs="tldrs")
    assert "moved aside to symbolpack.ts.symbolpack.bak" in shown
    assert (folder / "symbolpack.ts.symbolpack.bak").read_bytes() == mine
    assert (folder / "symbolpack.ts").read_bytes() == pii.render("tldrs")
    call(pii.uninstall, root=repo)
    assert snapshot(repo) == before


def test_a_new_command_updates_the_installed_file_in_place(home, repo):
    call(pii.install, root=repo, tldrs="tldrs")
    shown = call(pii.install, root=repo, tldrs="/usr/local/bin/tldrs")
    assert '-const TLDRS: string[] = ["tldrs"];' in shown and '+const TLDRS: string[] = ["/usr/local/bin/tldrs"];' in shown
    assert "updated" in shown
    call(pii.uninstall, root=repo)
    assert not (repo / ".pi").exists()


def test_doctor_probes_the_installed_command(home, repo):
    call(pii.install, root=repo)  # the command: $SYMBOLPACK_TLDRS
    report = pii.doctor_report(repo)
    project = next(t for t in report["targets"] if t["scope"] == "project")
    assert project["installed"] and project["current"]
    assert [c["check"] for c in report["checks"]] == ["project probe"] and report["checks"][0]["ok"], report
    out = io.StringIO()
    assert doctor(root=repo, out=out) == 0
    assert "project probe: ok" in out.getvalue()


def test_doctor_fails_on_a_command_that_does_not_answer_and_on_a_stale_file(home, repo):
    call(pii.install, root=repo, tldrs="/nonexistent/tldrs")
    report = pii.doctor_report(repo)
    assert {c["check"]: c["ok"] for c in report["checks"]} == {"project file": False, "project probe": False}
    out = io.StringIO()
    assert doctor(root=repo, out=out) == 1
    assert "installed (stale)" in out.getvalue() and "FAILED" in out.getvalue()


def test_cli_install_doctor_uninstall(home, repo):
    env = {**os.environ, "HOME": str(home)}
    env.pop("SYMBOLPACK_DIR", None)

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "symbolpack.integrations.commands", *args], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=120)

    proc = cli("install", "pi")
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".pi" / "extensions" / "symbolpack.ts").exists()
    report = json.loads(cli("doctor", "--json").stdout)
    assert report["pi"]["checks"] and all(c["ok"] for c in report["pi"]["checks"]), report["pi"]
    assert cli("uninstall", "pi").returncode == 0
    assert not (repo / ".pi").exists()
