"""`tldrs install|uninstall qwen [--global]` and Qwen's part of `tldrs doctor`: byte-identical
round trips (no file, a user's file with comments, CRLF), hooks merged into the user's
own event lists and cut out again after the user edited elsewhere, a second install
that changes nothing, an older command replaced, bad settings as one error line, the
command Qwen runs, and the doctor's probes (a re-read denied, a broken hook named)."""

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
from symbolpack.integrations.installers import install as inst
from symbolpack.integrations.installers.jsonc_edit import loads
from symbolpack.integrations.qwen.doctor import doctor_report
from symbolpack.integrations.qwen.settings import QWEN_HOOKS, QwenSettings, hook_command, is_ours

PACKAGE_ROOT = Path(symbolpack.__file__).resolve().parents[1]
WORKING = f"{sys.executable} -m symbolpack.cli"

USER = """{
  // my settings, with a comment Qwen accepts
  "hooks": {
    "PreToolUse": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "echo hi"}]} // mine
    ],
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "true"}]}]
  },
  "ui": {"theme": "GitHub" /* light */}
}
"""
CRLF = '{\r\n    // global, CRLF and four spaces\r\n    "general": {"vimMode": false}\r\n}\r\n'
EMPTY_LIST = '{"hooks": {"PreToolUse": [ /* none yet */ ]}}\n'


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(PACKAGE_ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("SYMBOLPACK_TLDRS", WORKING)
    return h


@pytest.fixture
def repo(make_repo):
    return make_repo({"app.py": "".join(f"def f{i}():\n    return {i}\n\n" for i in range(40))})


def run(fn, root: Path, global_: bool = False, **kw) -> str:
    out = io.StringIO()
    assert fn("qwen", global_=global_, root=root, out=out, **kw) == 0
    return out.getvalue()


@pytest.mark.parametrize("global_", [False, True])
@pytest.mark.parametrize("existing", [None, USER, CRLF, EMPTY_LIST])
def test_install_uninstall_round_trip_is_byte_identical(global_, existing, home, repo):
    path = inst.settings_path("qwen", global_, repo)
    assert path == (home if global_ else repo) / ".qwen" / "settings.json"
    if existing is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(existing.encode())
    printed = run(inst.install, repo, global_)
    assert "+++ " in printed and "Qwen Code picks the hooks up" in printed
    text = path.read_bytes().decode("utf-8")
    installed = QwenSettings(path).installed(text)
    assert len(installed) == len(QWEN_HOOKS)
    data = loads(text)
    for event, matcher, name in QWEN_HOOKS:
        assert any(g["matcher"] == matcher and g["hooks"][0]["command"].endswith(name) for g in data["hooks"][event])
    if existing is not None:
        assert "comment" not in existing or "// " in text  # the user's comments stay
        assert loads(existing).get("ui") == data.get("ui")
    assert "nothing changed" in run(inst.install, repo, global_) and path.read_bytes().decode("utf-8") == text
    run(inst.uninstall, repo, global_)
    if existing is None:
        assert not path.exists() and not path.parent.exists()
    else:
        assert path.read_bytes() == existing.encode()
    assert not path.with_name(path.name + inst.BACKUP_SUFFIX).exists()
    assert "nothing changed" in run(inst.uninstall, repo, global_)


def test_install_keeps_the_users_groups_first_and_appends_ours(home, repo):
    path = inst.settings_path("qwen", False, repo)
    path.parent.mkdir()
    path.write_text(USER)
    run(inst.install, repo)
    text = path.read_text()
    assert text.startswith(USER[:USER.index("// mine") + len("// mine")].replace("} // mine", "}"))  # untouched
    pre = loads(text)["hooks"]["PreToolUse"]
    assert pre[0]["hooks"][0]["command"] == "echo hi" and pre[1]["matcher"] == "read_file"
    assert loads(text)["hooks"]["Stop"] == loads(USER)["hooks"]["Stop"]


def test_uninstall_after_the_user_edited_elsewhere_cuts_only_ours(home, repo):
    path = inst.settings_path("qwen", False, repo)
    path.parent.mkdir()
    path.write_text(USER)
    run(inst.install, repo)
    edited = path.read_text().replace('"theme": "GitHub"', '"theme": "Dracula"')
    path.write_text(edited)
    printed = run(inst.uninstall, repo)
    assert "it was edited since install" in printed
    assert path.read_text() == USER.replace('"theme": "GitHub"', '"theme": "Dracula"')


def test_uninstall_removes_what_install_created_after_an_edit(home, repo):
    path = inst.settings_path("qwen", False, repo)
    path.parent.mkdir()
    path.write_text('{"ui": {"theme": "GitHub"}}\n')
    run(inst.install, repo)
    path.write_text(path.read_text().replace("GitHub", "Dracula"))
    run(inst.uninstall, repo)
    assert loads(path.read_text()) == {"ui": {"theme": "Dracula"}}


def test_a_hook_the_user_added_beside_ours_stays(home, repo):
    path = inst.settings_path("qwen", False, repo)
    run(inst.install, repo)
    data = json.loads(path.read_text())
    data["hooks"]["PreToolUse"].append({"matcher": "glob", "hooks": [{"type": "command", "command": "echo g"}]})
    path.write_text(json.dumps(data, indent=2) + "\n")
    run(inst.uninstall, repo)
    assert json.loads(path.read_text()) == {"hooks": {"PreToolUse": [
        {"matcher": "glob", "hooks": [{"type": "command", "command": "echo g"}]}]}}


def test_reinstall_with_another_command_replaces_ours(home, repo):
    path = inst.settings_path("qwen", False, repo)
    path.parent.mkdir()
    path.write_text(USER)
    assert inst.install("qwen", root=repo, tldrs="/old/tldrs", out=io.StringIO()) == 0
    assert all("/old/tldrs qwen-hook" in line for line in QwenSettings(path).installed(path.read_text()))
    run(inst.install, repo)
    lines = QwenSettings(path).installed(path.read_text())
    assert len(lines) == len(QWEN_HOOKS) and not any("/old/" in line for line in lines)
    run(inst.uninstall, repo)
    assert path.read_text() == USER


@pytest.mark.parametrize("bad, says", [
    ('{"hooks": [1]}', '"hooks" is not an object'),
    ('{"hooks": {"PreToolUse": {}}}', "hooks.PreToolUse is not a list"),
    ('{"a": 1,}', "not valid JSON with comments"),
    ("[]", "not a JSON object"),
])
def test_broken_settings_are_one_error_and_left_alone(bad, says, home, repo):
    path = inst.settings_path("qwen", False, repo)
    path.parent.mkdir()
    path.write_text(bad)
    with pytest.raises(SymbolpackError, match=says):
        inst.install("qwen", root=repo, out=io.StringIO())
    assert path.read_text() == bad
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "install", "qwen"], cwd=repo,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and proc.stderr.count("\n") == 1 and says in proc.stderr


def test_dry_run_writes_nothing(home, repo):
    printed = run(inst.install, repo, dry_run=True)
    assert "dry run" in printed and not (repo / ".qwen").exists()


def test_hook_command_skips_the_cli_parser_where_it_can(tmp_path):
    script = tmp_path / "tldrs"
    script.write_text(f"#!{sys.executable}\nimport sys\n")
    assert hook_command(str(script), "qwen-pre-read") == f"{sys.executable} -m symbolpack.integrations.qwen qwen-pre-read"
    assert hook_command(f"{sys.executable} -m symbolpack.cli", "x") == f"{sys.executable} -m symbolpack.integrations.qwen x"
    assert hook_command("/nowhere/tldrs", "qwen-post-edit") == "/nowhere/tldrs qwen-hook qwen-post-edit"
    for name in ("qwen-pre-read", "qwen-post-edit", "qwen-lifecycle"):
        assert is_ours(hook_command(str(script), name)) and is_ours(hook_command("/nowhere/tldrs", name))
    assert not is_ours("echo qwen-hook qwen-pre-read")


def test_every_installed_hook_name_is_one_the_runner_knows():
    from symbolpack.integrations.qwen.runner import HOOKS

    from symbolpack.integrations.qwen.runner import RETIRED, run_hook

    assert {name for _, _, name in QWEN_HOOKS} == set(HOOKS)
    # the hooks an earlier install wrote still run, quietly, until the next install
    payload = json.dumps({"session_id": "s", "hook_event_name": "SessionStart", "cwd": "/"})
    assert set(RETIRED) == {"qwen-edit-refused", "qwen-lifecycle"} and all(run_hook(n, payload) == "" for n in RETIRED)


def test_install_over_an_earlier_install_takes_out_its_retired_hooks(home, repo):
    path = inst.settings_path("qwen", False, repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    old = {"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "timeout": 30,
                                                              "command": hook_command(WORKING, name)}]}]
                     for event, matcher, name in (("PreToolUse", "read_file", "qwen-pre-read"),
                                                  ("PostToolUseFailure", "edit|write_file", "qwen-edit-refused"),
                                                  ("SessionStart", "", "qwen-lifecycle"))}}
    path.write_text(json.dumps(old, indent=2) + "\n")
    run(inst.install, repo)
    text = path.read_text()
    assert "qwen-lifecycle" not in text and "qwen-edit-refused" not in text
    assert len(QwenSettings(path).installed(text)) == len(QWEN_HOOKS)


def test_doctor_runs_every_hook_and_answers_the_reads(home, repo):
    run(inst.install, repo)
    report = doctor_report(repo)
    assert report["targets"][0]["status"] == "installed"
    assert [h["hook"] for h in report["hooks"]] == ["qwen-pre-read (a first read)", "qwen-post-read (a first read)",
                                                   "qwen-pre-read (a re-read)", "qwen-post-read (a re-read)",
                                                   "qwen-post-edit"]
    assert all(h["ok"] for h in report["hooks"]), report["hooks"]
    assert report["checks"] == []


def test_doctor_names_a_hook_that_does_not_answer_and_an_incomplete_install(home, repo):
    path = inst.settings_path("qwen", False, repo)
    run(inst.install, repo)
    data = json.loads(path.read_text())
    data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = "false symbolpack.integrations.qwen qwen-pre-read"
    path.write_text(json.dumps(data))
    report = doctor_report(repo)
    bad = [h for h in report["hooks"] if not h["ok"]]
    assert bad and bad[0]["hook"].startswith("qwen-pre-read") and "exit 1" in bad[0]["detail"]
    # without the pre-read hook's note of the file, the post-read hook never answers: named too
    assert all(h["hook"].startswith(("qwen-pre-read", "qwen-post-read")) for h in bad)
    del data["hooks"]["PreToolUse"]
    path.write_text(json.dumps(data))
    report = doctor_report(repo)
    assert report["targets"][0]["status"] == "incomplete"
    assert any("missing PreToolUse[read_file]" in c["detail"] for c in report["checks"])
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "doctor"], cwd=repo, capture_output=True,
                          text=True)
    assert proc.returncode == 1 and "qwen project hooks" in proc.stdout
