"""What every installer shares: `install` (`tldrs install|uninstall` for Claude Code, Codex
and Gemini, and the helpers each host's installer uses: the command written into
settings, printed diffs, folders created and removed), `host_settings` (what symbolpack
writes into a host's settings file and takes out again), `jsonc_edit` / `toml_edit`
(JSON with comments and TOML edited as text), `trust` (Codex's and Gemini's folder
trust, read as they read it) and `doctor` (`tldrs doctor`, every host's report). Each
host's own installer lives in its folder (`chibi/install.py`, `pi/install.py`,
`opencode/install.py`, `qwen/settings.py`).
"""
