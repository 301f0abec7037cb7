"""Whether a host will start what is installed in a project: its folder trust, read as it reads it.

Both CLIs ignore a project's own settings until the user trusts the project, and
say nothing about it: an install that is silently inactive. What each does
(read from Codex CLI 0.171 and Gemini CLI 0.61, and checked with them):

- **Codex** reads `.codex/config.toml` of a project only when `config.toml` in
  `$CODEX_HOME` (default `~/.codex`) has `[projects."<root>"] trust_level =
  "trusted"`, `<root>` being the project's root with symlinks resolved (a
  trusted parent folder does not count). Its global `mcp_servers` run anywhere.
  The interactive `codex` asks on its first start in a project;
  `codex exec --trust` records the same entry.
- **Gemini CLI** has folder trust on unless `security.folderTrust.enabled` is
  false in its user settings; in a folder it does not trust it starts no MCP
  server at all, user-level ones included. Trust is read from
  `~/.gemini/trustedFolders.json` (or `$GEMINI_CLI_TRUSTED_FOLDERS_PATH`):
  `{"<path>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}`, the longest
  rule whose folder (real path; the parent's for `TRUST_PARENT`) contains the
  working folder wins. `GEMINI_CLI_TRUST_WORKSPACE=true|false` overrides.
  `/permissions trust` inside Gemini records it.

This module only reads those files; trusting a project is the user's decision,
so the installer prints how and never writes it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from . import jsonc_edit, toml_edit


@dataclass(frozen=True)
class Trust:
    trusted: bool
    why: str  # one clause: what decided it
    how: str  # the host's own way to trust the folder ("" when trusted)


def codex_home() -> Path:
    home = os.environ.get("CODEX_HOME")
    return Path(home) if home else Path.home() / ".codex"


def codex_trust(root: Path) -> Trust:
    """Whether Codex loads `<root>/.codex/config.toml`."""
    real = os.path.realpath(root)
    config = codex_home() / "config.toml"
    level = None
    try:
        data = toml_edit.loads(config.read_text(encoding="utf-8"))
        entry = (data.get("projects") or {}).get(real)
        level = entry.get("trust_level") if isinstance(entry, dict) else None
    except (OSError, ValueError, AttributeError):
        pass
    if level == "trusted":
        return Trust(True, f"trusted in {config}", "")
    how = (f"run `codex` in {real} and answer yes when it asks to trust the folder, or add to {config}: "
           f'[projects."{real}"] trust_level = "trusted"')
    why = "marked untrusted" if level == "untrusted" else "not trusted"
    return Trust(False, f"project {why} by Codex", how)


def _gemini_dir() -> Path:
    return Path.home() / ".gemini"


def _gemini_trust_enabled() -> bool:
    try:
        settings = jsonc_edit.loads((_gemini_dir() / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True
    security = settings.get("security") if isinstance(settings, dict) else None
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    enabled = folder_trust.get("enabled") if isinstance(folder_trust, dict) else None
    return enabled is not False


def _within(folder: str, path: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def gemini_trust(folder: Path) -> Trust:
    """Whether Gemini CLI, started in *folder*, starts MCP servers."""
    env = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if os.environ.get("GEMINI_RESTRICTED_MODE") == "true" or env == "false":
        return Trust(False, "GEMINI_CLI_TRUST_WORKSPACE=false in the environment",
                     "unset GEMINI_CLI_TRUST_WORKSPACE / GEMINI_RESTRICTED_MODE")
    if env == "true":
        return Trust(True, "GEMINI_CLI_TRUST_WORKSPACE=true in the environment", "")
    if not _gemini_trust_enabled():
        return Trust(True, "folder trust is off in Gemini's settings", "")
    real = os.path.realpath(folder)
    rules_path = Path(os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or _gemini_dir() / "trustedFolders.json")
    how = (f'run `gemini` in {real} and choose to trust the folder (or `/permissions trust` there), '
           f'or add "{real}": "TRUST_FOLDER" to {rules_path}')
    try:
        rules = jsonc_edit.loads(rules_path.read_text(encoding="utf-8"))
    except OSError:
        rules = {}
    except ValueError:
        return Trust(False, f"{rules_path} is not valid JSON (Gemini stops on it)", f"fix {rules_path}")
    best, level = -1, None
    for rule, value in (rules.items() if isinstance(rules, dict) else ()):
        where = os.path.dirname(rule) if value == "TRUST_PARENT" else rule
        if _within(os.path.realpath(os.path.expanduser(where)), real) and len(rule) > best:
            best, level = len(rule), value
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return Trust(True, f"trusted in {rules_path}", "")
    why = "marked DO_NOT_TRUST" if level == "DO_NOT_TRUST" else "not trusted"
    return Trust(False, f"folder {why} by Gemini", how)


def host_trust(agent: str, folder: Path) -> Trust | None:
    """The trust *agent* gives *folder*, or None for a host without folder trust."""
    if agent == "codex":
        return codex_trust(folder)
    if agent == "gemini":
        return gemini_trust(folder)
    return None

