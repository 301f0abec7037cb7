"""`tldrs install chibi` / `tldrs uninstall chibi` and the Chibi part of `tldrs doctor`.

What is written (home: `--home` > `$CHIBI_HOME` > `~/.chibi`, Chibi's own rule):

| file in `<home>/plugins/`  | what                                                        |
|----------------------------|-------------------------------------------------------------|
| `symbolpack`               | the tools (read, context, diff-context) and the hooks       |
| `lang_<language>`          | one per language symbolpack parses (Chibi's indexer calls it) |
| `.symbolpack-install.json` | what install created or moved aside (not executable: Chibi skips it) |

Each launcher is a small `sh` script that answers `--schema` itself (Chibi runs
every plugin with `--schema` at every start: no Python start-up there) and
otherwise `exec`s `tldrs chibi ...` (so the Chibi process stays the parent,
which is how tools and hooks find their context). Ours carry
`chibi.LAUNCHER_MARK` in their second line.

Rules: a second install changes nothing; a plugin of the same name that is not
ours (say Chibi's own `lang_rust`) is moved aside to `<name>.symbolpack-backup.disabled`
(Chibi skips `*.disabled`) and put back by uninstall; uninstall removes only files
that still carry the mark, restores what was moved aside, and removes the
directories install created if they are empty again. Install then uninstall
leaves the home byte for byte as it was (file contents and modes).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

from .plugin import LAUNCHER_MARK, chibi_home, plugin_schema
from ..installers.install import remove_empty_dirs, say

MANIFEST = ".symbolpack-install.json"
BACKUP_SUFFIX = ".symbolpack-backup.disabled"
PLUGIN_NAME = "symbolpack"


def _script(schema, command: str) -> bytes:
    text = json.dumps(schema, ensure_ascii=True, separators=(",", ":"))
    return (f"#!/bin/sh\n{LAUNCHER_MARK}: written by `tldrs install chibi`, removed by `tldrs uninstall chibi`\n"
            f"if [ \"$1\" = \"--schema\" ]; then\ncat <<'SYMBOLPACK_SCHEMA'\n{text}\nSYMBOLPACK_SCHEMA\nexit 0\nfi\n"
            f"exec {command}\n").encode()


def launchers(home: str, tldrs: str) -> dict[str, bytes]:
    """Every launcher install writes, by file name."""
    from .lang import plugin_languages, schema

    out = {PLUGIN_NAME: _script(plugin_schema(), f"{tldrs} chibi plugin --home {shlex.quote(home)} \"$@\"")}
    for language in sorted(plugin_languages()):
        out[f"lang_{language}"] = _script(schema(language), f"{tldrs} chibi lang {language}")
    return out


def _is_ours(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return LAUNCHER_MARK.encode() in fh.read(200)
    except OSError:
        return False


def _load_manifest(plugins: Path) -> dict:
    try:
        data = json.loads((plugins / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, data: bytes, mode: int) -> None:
    from ...base.workspace import atomic_write

    atomic_write(path, data, mode)


def install(home: str | None = None, dry_run: bool = False, tldrs: str | None = None, out=None) -> int:
    from ..installers.install import tldrs_command

    out = out or sys.stdout
    home_dir = Path(chibi_home(home))
    plugins = home_dir / "plugins"
    manifest = _load_manifest(plugins)
    created = list(manifest.get("created", []))
    for d in (home_dir, plugins):
        if not d.exists() and str(d) not in created:
            created.append(str(d))
    backups = dict(manifest.get("backups", {}))
    wanted = launchers(str(home_dir), tldrs or tldrs_command())
    actions: list[tuple[str, str]] = []  # (verb, name)
    for name, data in wanted.items():
        path = plugins / name
        if path.is_file() and not path.is_symlink() and path.read_bytes() == data and os.access(path, os.X_OK):
            continue
        if path.exists() or path.is_symlink():
            if _is_ours(path) and not path.is_symlink():
                actions.append(("update", name))
            elif (plugins / (name + BACKUP_SUFFIX)).exists() or (plugins / (name + BACKUP_SUFFIX)).is_symlink():
                say(out, f"skipped {name}: {path} is not symbolpack's, and {name + BACKUP_SUFFIX} is taken")
                continue
            else:
                actions.append(("replace", name))
        else:
            actions.append(("create", name))
    stale = [p.name for p in plugins.iterdir() if p.name not in wanted and p.is_file()
             and not p.is_symlink() and _is_ours(p)] if plugins.is_dir() else []
    if not actions and not stale and (plugins / MANIFEST).exists():
        say(out, f"symbolpack is already installed for chibi in {plugins}; nothing changed.")
        return 0
    for verb, name in actions:
        note = f" (yours moved aside to {name + BACKUP_SUFFIX}; uninstall puts it back)" if verb == "replace" else ""
        say(out, f"{verb} {plugins / name}{note}")
    for name in stale:
        say(out, f"remove {plugins / name} (no longer installed by this version)")
    if dry_run:
        say(out, "(dry run: nothing was written)")
        return 0
    plugins.mkdir(parents=True, exist_ok=True)
    for verb, name in actions:
        if verb == "replace":
            os.replace(plugins / name, plugins / (name + BACKUP_SUFFIX))
            backups[name] = name + BACKUP_SUFFIX
        _write(plugins / name, wanted[name], 0o755)
    for name in stale:
        (plugins / name).unlink()
    files = sorted(n for n in wanted if _is_ours(plugins / n))
    record = {"v": 1, "created": created, "backups": backups, "files": files}
    _write(plugins / MANIFEST, (json.dumps(record, indent=1) + "\n").encode(), 0o600)
    langs = sum(1 for n in files if n.startswith("lang_"))
    say(out, f"installed for chibi in {plugins}: the {PLUGIN_NAME} plugin (tools and hooks) and {langs} "
              f"language plugins. Chibi loads them at its next start; check with: tldrs doctor")
    return 0


def uninstall(home: str | None = None, dry_run: bool = False, out=None) -> int:
    out = out or sys.stdout
    home_dir = Path(chibi_home(home))
    plugins = home_dir / "plugins"
    manifest = _load_manifest(plugins)
    ours = sorted(p.name for p in plugins.iterdir() if p.is_file() and not p.is_symlink() and _is_ours(p)) \
        if plugins.is_dir() else []
    backups = {k: v for k, v in manifest.get("backups", {}).items() if isinstance(k, str) and isinstance(v, str)
               and "/" not in k and "/" not in v}
    if not ours and not manifest and not (plugins / MANIFEST).exists():
        say(out, f"symbolpack is not installed for chibi in {plugins}; nothing changed.")
        return 0
    for name in ours:
        say(out, f"remove {plugins / name}")
    for name, kept in backups.items():
        say(out, f"restore {plugins / name} from {kept}")
    if dry_run:
        say(out, "(dry run: nothing was written)")
        return 0
    for name in ours:
        (plugins / name).unlink()
    for name, kept in backups.items():
        if (plugins / kept).exists() and not (plugins / name).exists():
            os.replace(plugins / kept, plugins / name)
    try:
        (plugins / MANIFEST).unlink()
    except FileNotFoundError:
        pass
    remove_empty_dirs(out, manifest.get("created", []))
    say(out, f"removed symbolpack from chibi in {plugins}")
    return 0


# --------------------------------------------------------------------------- doctor

def _run(argv: list[str], stdin: str = "", env: dict | None = None, timeout: float = 30.0):
    import subprocess

    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def doctor_report(home: str | None = None) -> dict:
    """What is installed in the Chibi home, and whether the launchers answer as Chibi calls them."""
    import tempfile

    home_dir = Path(chibi_home(home))
    plugins = home_dir / "plugins"
    ours = sorted(p.name for p in plugins.iterdir() if p.is_file() and _is_ours(p)) if plugins.is_dir() else []
    report: dict = {"home": str(home_dir), "installed": ours, "checks": []}
    if not ours:
        return report
    checks = report["checks"]
    with tempfile.TemporaryDirectory(prefix="symbolpack-doctor-") as tmp:
        env = {"XDG_STATE_HOME": tmp, "SYMBOLPACK_DIR": str(Path(tmp) / "state")}

        def check(name: str, fn) -> None:
            try:
                ok, detail = fn()
            except Exception as exc:
                ok, detail = False, f"could not run it: {exc}"
            checks.append({"check": name, "ok": ok, "detail": detail})

        if PLUGIN_NAME in ours:
            def schema():
                proc = _run([str(plugins / PLUGIN_NAME), "--schema"])
                names = [t.get("name") for t in json.loads(proc.stdout)]
                return names == [t["name"] for t in plugin_schema()], f"tools: {', '.join(map(str, names))}"

            def hook():
                proc = _run([str(plugins / PLUGIN_NAME)], json.dumps({"tool_name": "symbolpack_read",
                                                                      "output_size": 1, "arguments": {}}),
                            env={**env, "CHIBI_HOOK": "pre_cache_output"})
                return json.loads(proc.stdout) == {"block": True}, f"hook answered {proc.stdout.strip()[:60]}"

            check("schema", schema)
            check("hook", hook)
        if "lang_python" in ours:
            def lang():
                probe = {"files": [{"path": "probe.py", "content": "class Probe:\n    def run(self):\n"
                                                                        "        return helper()\n"}]}
                proc = _run([str(plugins / "lang_python")], json.dumps(probe), env=env)
                names = [s["name"] for s in json.loads(proc.stdout).get("symbols", [])]
                return proc.returncode == 0 and names == ["Probe", "run"], f"lang_python found {names}"

            check("lang_python", lang)
    return report


def doctor_lines(report: dict) -> list[str]:
    if not report["installed"]:
        return [f"chibi  {'':9}{'not installed':<18}{report['home']}"]
    langs = sum(1 for n in report["installed"] if n.startswith("lang_"))
    lines = [f"chibi  {'':9}{'installed':<18}{report['home']}",
             f"{'':18}{PLUGIN_NAME if PLUGIN_NAME in report['installed'] else '(no symbolpack plugin)'}, "
             f"{langs} language plugins"]
    for c in report["checks"]:
        lines.append(f"{'':18}{c['check']}: {'ok' if c['ok'] else 'FAILED'} ({c['detail']})")
    return lines
