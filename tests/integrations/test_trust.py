"""Folder trust read as Codex 0.171 and Gemini CLI 0.61 read it (their rules are in trust.py;
the end-to-end tests check the same cases against the real clients)."""

from __future__ import annotations

import json
import os

import pytest

from symbolpack.integrations.installers.trust import codex_trust, gemini_trust


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    (h / ".codex").mkdir(parents=True)
    (h / ".gemini").mkdir()
    monkeypatch.setenv("HOME", str(h))
    for var in ("CODEX_HOME", "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE", "GEMINI_CLI_TRUSTED_FOLDERS_PATH"):
        monkeypatch.delenv(var, raising=False)
    return h


@pytest.fixture
def proj(tmp_path):
    p = tmp_path / "proj"
    (p / "sub").mkdir(parents=True)
    return p


def codex_config(home, text: str) -> None:
    (home / ".codex" / "config.toml").write_text(text)


def test_codex_trusts_the_exact_real_path_only(home, proj, tmp_path):
    assert not codex_trust(proj).trusted
    codex_config(home, f'[projects."{tmp_path}"]\ntrust_level = "trusted"\n')
    assert not codex_trust(proj).trusted  # a trusted parent does not count
    codex_config(home, f'[projects."{proj}"]\ntrust_level = "trusted"\n')
    assert codex_trust(proj).trusted
    link = tmp_path / "link"
    link.symlink_to(proj)
    assert codex_trust(link).trusted  # Codex resolves the project's path
    codex_config(home, f'[projects."{link}"]\ntrust_level = "trusted"\n')
    assert not codex_trust(link).trusted


def test_codex_untrusted_and_codex_home(home, proj, tmp_path, monkeypatch):
    codex_config(home, f'[projects."{proj}"]\ntrust_level = "untrusted"\n')
    assert codex_trust(proj).why == "project marked untrusted by Codex"
    other = tmp_path / "codex-home"
    other.mkdir()
    (other / "config.toml").write_text(f'[projects."{proj}"]\ntrust_level = "trusted"\n')
    monkeypatch.setenv("CODEX_HOME", str(other))
    assert codex_trust(proj).trusted


def rules(home, data: dict) -> None:
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(data))


def test_gemini_trusts_nothing_by_default(home, proj):
    t = gemini_trust(proj)
    assert not t.trusted and t.why == "folder not trusted by Gemini"


def test_gemini_the_longest_rule_wins_and_covers_subfolders(home, proj):
    rules(home, {str(proj): "TRUST_FOLDER"})
    assert gemini_trust(proj).trusted and gemini_trust(proj / "sub").trusted
    rules(home, {str(proj): "TRUST_FOLDER", str(proj / "sub"): "DO_NOT_TRUST"})
    assert gemini_trust(proj).trusted and not gemini_trust(proj / "sub").trusted
    rules(home, {str(proj / "sub"): "TRUST_PARENT"})  # trusts sub's parent, proj
    assert gemini_trust(proj).trusted
    rules(home, {str(proj) + "x": "TRUST_FOLDER"})  # a sibling with a longer name is not a parent
    assert not gemini_trust(proj).trusted


def test_gemini_environment_and_settings_override(home, proj, monkeypatch):
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    assert gemini_trust(proj).trusted
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "false")
    rules(home, {str(proj): "TRUST_FOLDER"})
    assert not gemini_trust(proj).trusted
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE")
    rules(home, {})
    (home / ".gemini" / "settings.json").write_text('{\n  // off\n  "security": {"folderTrust": {"enabled": false}}\n}')
    assert gemini_trust(proj).trusted


def test_gemini_rules_file_elsewhere(home, proj, tmp_path, monkeypatch):
    elsewhere = tmp_path / "rules.json"
    elsewhere.write_text(json.dumps({os.path.realpath(proj): "TRUST_FOLDER"}))
    monkeypatch.setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", str(elsewhere))
    assert gemini_trust(proj).trusted
