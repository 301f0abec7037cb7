"""Settings: the environment over `[tool.symbolpack]` over the defaults, read in one
place and passed down; real processes and real repositories where it matters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from symbolpack.base.settings import (DEFAULT_MAX_ENTRIES, FIELDS, Settings, _may_configure, load_settings,
                                 settings_table)

NO_ENV: dict[str, str] = {}


def write_pyproject(root: Path, body: str) -> None:
    (root / "pyproject.toml").write_text(body)


def test_defaults_without_environment_or_file(tmp_path):
    assert load_settings(tmp_path, NO_ENV) == Settings()
    assert Settings().max_entries == DEFAULT_MAX_ENTRIES and Settings().sensitive == ()


def test_pyproject_table_is_read(tmp_path):
    write_pyproject(tmp_path, '[project]\nname = "x"\n\n[tool.symbolpack]\nsensitive = ["notes.*", " b.txt "]\n'
                              'max_entries = 50\nttl_seconds = 60\nlog = "DEBUG"\nstate_dir = "state"\n')
    s = load_settings(tmp_path, NO_ENV)
    assert s == Settings(sensitive=("notes.*", "b.txt"), max_entries=50, ttl_seconds=60, log="debug",
                         state_dir=str(tmp_path / "state"))


def test_environment_beats_pyproject(tmp_path):
    write_pyproject(tmp_path, '[tool.symbolpack]\nsensitive = ["notes.*"]\nmax_entries = 50\n')
    env = {"SYMBOLPACK_SENSITIVE": "a.*, b.*", "SYMBOLPACK_MAX_ENTRIES": "7", "SYMBOLPACK_SESSION_ID": "s1",
           "SYMBOLPACK_DEBUG": "1", "SYMBOLPACK_DIR": "/tmp/x"}
    s = load_settings(tmp_path, env)
    assert s == Settings(sensitive=("a.*", "b.*"), max_entries=7, session_id="s1", debug=True, state_dir="/tmp/x")


def test_malformed_environment_number_is_the_default(tmp_path):
    write_pyproject(tmp_path, '[tool.symbolpack]\nmax_entries = 50\n')
    assert load_settings(tmp_path, {"SYMBOLPACK_MAX_ENTRIES": "lots"}).max_entries == 50
    assert load_settings(None, {"SYMBOLPACK_MAX_ENTRIES": "0"}).max_entries == 1  # clamped, as before


def test_bad_pyproject_values_warn_and_use_defaults(tmp_path, caplog):
    write_pyproject(tmp_path, '[tool.symbolpack]\nmax_entries = "many"\nsensitive = "x"\nsession_id = "s"\n'
                              'colour = 1\nlog = "loud"\n')
    with caplog.at_level("WARNING", logger="symbolpack"):
        s = load_settings(tmp_path, NO_ENV)
    assert s == Settings()
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 5
    assert any("max_entries = 'many' is not a positive integer" in m for m in messages)
    assert any("session_id is not a setting symbolpack reads there" in m for m in messages)


def test_invalid_toml_warns_and_is_ignored(tmp_path, caplog):
    write_pyproject(tmp_path, '[tool.symbolpack\nmax_entries = 5\n')
    with caplog.at_level("WARNING", logger="symbolpack"):
        assert load_settings(tmp_path, NO_ENV) == Settings()
    assert [r.getMessage() for r in caplog.records][0].endswith("its [tool.symbolpack] settings are ignored")


@pytest.mark.parametrize("text, parse", [
    ('[tool.symbolpack]\nx = 1\n', True),
    ('[ tool . "symbolpack" ]\nx = 1\n', True),
    ('tool.symbolpack.max_entries = 3\n', True),
    ('[tool]\nsymbolpack = { max_entries = 3 }\n', True),
    ('[tool.symbolpack.extra]\n', True),
    ('[project]\nname = "symbolpack"\n', False),
    ('[project]\ndependencies = ["symbolpack>=1"]\n', False),
    ('[tool.ruff]\nline-length = 100\n', False),
])
def test_byte_search_never_misses_a_table(text, parse):
    assert _may_configure(text.encode()) is parse


@pytest.mark.parametrize("text", ['[ tool . "symbolpack" ]\nmax_entries = 3\n', 'tool.symbolpack.max_entries = 3\n',
                                  '[tool]\nsymbolpack = { max_entries = 3 }\n'])
def test_every_toml_spelling_is_read(tmp_path, text):
    write_pyproject(tmp_path, text)
    assert load_settings(tmp_path, NO_ENV).max_entries == 3


def test_settings_are_immutable():
    s = Settings()
    with pytest.raises(AttributeError):
        s.max_entries = 3  # type: ignore[misc]
    assert s.replace(max_entries=3).max_entries == 3 and s.max_entries == DEFAULT_MAX_ENTRIES
    with pytest.raises(TypeError):
        s.replace(colour=1)


def test_readme_documents_every_setting():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert settings_table() in readme
    assert len(FIELDS) == len(Settings.__slots__)


def tldrs(root: Path, *args: str, env: dict | None = None, flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SYMBOLPACK_")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, *flags, "-m", "symbolpack.cli", *args], cwd=root, env=full_env,
                          capture_output=True, text=True, timeout=60)


def test_pyproject_sensitive_and_state_dir_reach_a_real_read(make_repo):
    repo = make_repo({"notes.txt": "a\nb\nc\n", "a.txt": "x\n", "pyproject.toml":
                      '[tool.symbolpack]\nsensitive = ["notes.*"]\nstate_dir = ".state"\n'})
    proc = tldrs(repo, "read", "notes.txt", "--session-id", "s1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["mode"] == "passthrough"
    assert tldrs(repo, "read", "a.txt", "--session-id", "s1").returncode == 0
    assert (repo / ".state" / "sessions" / "s1" / "session.json").is_file() and not (repo / ".symbolpack").exists()
    # the environment wins: no extra globs, the default state dir
    proc = tldrs(repo, "read", "notes.txt", "--session-id", "s1", "--format", "json",
                 env={"SYMBOLPACK_SENSITIVE": "", "SYMBOLPACK_DIR": str(repo / "elsewhere")})
    assert json.loads(proc.stdout)["mode"] == "full"
    assert (repo / "elsewhere" / "sessions" / "s1" / "session.json").is_file()


def test_a_read_imports_no_toml_parser_unless_the_project_configures_symbolpack(make_repo):
    repo = make_repo({"a.txt": "x\n", "pyproject.toml": '[project]\nname = "demo"\n'})
    proc = tldrs(repo, "read", "a.txt", "--session-id", "s1", flags=("-X", "importtime"))
    assert proc.returncode == 0 and "tomllib" not in proc.stderr and "| logging" not in proc.stderr
    (repo / "pyproject.toml").write_text('[project]\nname = "demo"\n[tool.symbolpack]\nmax_entries = 9\n')
    proc = tldrs(repo, "read", "a.txt", "--session-id", "s1", flags=("-X", "importtime"))
    assert proc.returncode == 0 and "tomllib" in proc.stderr


def test_eval_harness_leaves_the_environment_alone(monkeypatch):
    from symbolpack.evaluation.harness import isolated_state

    monkeypatch.delenv("SYMBOLPACK_DIR", raising=False)
    before = dict(os.environ)
    with isolated_state() as settings:
        assert dict(os.environ) == before
        assert settings.state_dir is not None and Path(settings.state_dir).is_dir()
    assert not Path(settings.state_dir).exists()


def test_verbose_and_the_log_setting_turn_on_debug_lines(make_repo):
    repo = make_repo({"z.py": "def a():\n    return 1\n"})
    assert tldrs(repo, "read", "z.py", "--session-id", "v1").returncode == 0
    (repo / "z.py").write_text("def a():\n    return 1\nx = 1\n")
    quiet = tldrs(repo, "read", "z.py", "--session-id", "v1")
    assert quiet.returncode == 0 and quiet.stderr == ""
    (repo / "z.py").write_text("def a():\n    return 2\nx = 1\n")
    verbose = tldrs(repo, "--verbose", "read", "z.py", "--session-id", "v1")
    assert verbose.stderr == "symbolpack: debug: z.py: a plain read answered (cost)\n"
    (repo / "z.py").write_text("def a():\n    return 3\nx = 1\n")
    by_env = tldrs(repo, "read", "z.py", "--session-id", "v1", env={"SYMBOLPACK_LOG": "debug"})
    assert by_env.stderr == verbose.stderr


def test_mcp_allow_dirs_from_pyproject_and_environment(tmp_path, caplog):
    write_pyproject(tmp_path, '[tool.symbolpack]\nmcp_allow_dirs = ["../docs", "/opt/docs"]\n')
    assert load_settings(tmp_path, NO_ENV).mcp_allow_dirs == (str(tmp_path / "../docs"), "/opt/docs")
    env = {"SYMBOLPACK_MCP_ALLOW_DIRS": os.pathsep.join(["/a b", "", "/c"])}
    assert load_settings(tmp_path, env).mcp_allow_dirs == ("/a b", "/c")  # the environment wins, as given
    assert load_settings(tmp_path, {"SYMBOLPACK_MCP_ALLOW_DIRS": ""}).mcp_allow_dirs == ()  # set empty: none
    write_pyproject(tmp_path, '[tool.symbolpack]\nmcp_allow_dirs = "/opt/docs"\n')
    with caplog.at_level("WARNING", logger="symbolpack"):
        assert load_settings(tmp_path, NO_ENV).mcp_allow_dirs == ()
    assert [r.getMessage().split(": ", 1)[1] for r in caplog.records] == [
        "[tool.symbolpack] mcp_allow_dirs = '/opt/docs' is not a list of directories; using the default"]
