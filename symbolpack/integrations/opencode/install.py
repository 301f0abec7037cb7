"""`tldrs install opencode [--global]` / `tldrs uninstall opencode` and OpenCode's part of
`tldrs doctor`.

OpenCode has no settings entry for a plugin file: it loads every `plugin/*.{ts,js}` of
its config folders (through Bun, no build step). So install writes one file, the
plugin this package ships (`symbolpack.ts` beside this module) with the command that
runs this installation's `tldrs` on its `TLDRS` line and where it is installed on its
`SCOPE` line:

| scope              | file                                                                      |
|--------------------|---------------------------------------------------------------------------|
| project (default)  | `.opencode/plugin/symbolpack.ts` at the repository's root                 |
| `--global`         | `$XDG_CONFIG_HOME/opencode/plugin/symbolpack.ts` (default `~/.config/...`) |

OpenCode loads the project's plugins and the global ones, both: a global copy stands
aside (registers nothing) in a project that has its own copy, so no read is answered
twice.

What OpenCode itself writes into a config folder it loads (`package.json`,
`package-lock.json`, `node_modules/` with its `@opencode-ai/plugin`, a `.gitignore`
for them) is OpenCode's: uninstall leaves it, and then keeps a folder install created
that holds it (saying so).

Rules, as for the other installers: what changes is printed (a new or removed plugin
as one line, a changed one as a diff); `--dry-run` writes nothing; a second install
changes nothing; a file of that name that is not ours is moved aside to
`symbolpack.ts.symbolpack.bak` (OpenCode loads only `*.ts`/`*.js`) and put back by
uninstall; the folders install created are recorded in `.symbolpack-install.json`
beside the file and removed by uninstall when empty again. The file is written
atomically (its temporary name does not end in `.ts`), and only after the rendered text
was checked to differ from the shipped one in its two lines alone. Install then
uninstall leaves the tree byte for byte as it was.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

from ...base.errors import SymbolpackError
from ..installers.install import missing_dirs, remove_empty_dirs, say, unified_diff_text

FILE_NAME = "symbolpack.ts"
MANIFEST = ".symbolpack-install.json"
BACKUP_SUFFIX = ".symbolpack.bak"
MARK = b"Written by `tldrs install opencode`"
HOST = "opencode"
_COMMAND_LINE = re.compile(r'^const TLDRS: string\[\] = (\[.*\]);$', re.M)
_SCOPE_LINE = re.compile(r'^const SCOPE: string = "(project|global)";$', re.M)
# what OpenCode writes into a config folder it loads, never symbolpack's to remove
OPENCODE_OWN = ("package.json", "package-lock.json", "bun.lock", "node_modules", ".gitignore")


def shipped() -> str:
    """The plugin as this package ships it (command: `tldrs` on PATH)."""
    return (Path(__file__).parent / FILE_NAME).read_text(encoding="utf-8")


def render(tldrs: str, global_: bool = False) -> bytes:
    """The shipped plugin with *tldrs* (a shell command prefix) as its command and its scope."""
    argv = shlex.split(tldrs)
    if not argv:
        raise SymbolpackError("the tldrs command to install is empty")
    line = f"const TLDRS: string[] = {json.dumps(argv)};"
    out, count = _COMMAND_LINE.subn(lambda _m: line, shipped())
    scope = f'const SCOPE: string = "{"global" if global_ else "project"}";'
    out, scopes = _SCOPE_LINE.subn(lambda _m: scope, out)
    if count != 1 or scopes != 1:
        raise SymbolpackError(f"the shipped OpenCode plugin has {count} TLDRS and {scopes} SCOPE lines (expected 1 "
                              f"each); reinstall symbolpack")
    return out.encode("utf-8")


def command_of(data: bytes) -> list[str] | None:
    """The command an installed plugin runs, from its TLDRS line."""
    match = _COMMAND_LINE.search(data.decode("utf-8", "replace"))
    if match is None:
        return None
    try:
        argv = json.loads(match.group(1))
    except ValueError:
        return None
    return argv if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv) else None


def config_dir() -> Path:
    """OpenCode's global config folder: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`."""
    base = os.environ.get("XDG_CONFIG_HOME")
    return (Path(os.path.expanduser(base)) if base else Path.home() / ".config") / "opencode"


def plugin_path(global_: bool, root: Path | None = None) -> Path:
    if global_:
        return config_dir() / "plugin" / FILE_NAME
    from ...base.workspace import project_root

    return (root or project_root()) / ".opencode" / "plugin" / FILE_NAME


def _is_ours(data: bytes | None) -> bool:
    return data is not None and MARK in data[:2000]


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise SymbolpackError(f"{path} is a directory; move it away first") from None
    except NotADirectoryError:
        raise SymbolpackError(f"{path.parent} is not a folder; move it away first") from None


def _diff(path: Path, old: bytes | None, new: bytes | None) -> str:
    """A plugin written or removed whole is one line (its every line tells nobody
    anything); a changed one is its diff."""
    if (old is None) != (new is None):
        whole = new if new is not None else old
        assert whole is not None
        lines = len(whole.decode("utf-8", "replace").splitlines())
        return f"{'new' if old is None else 'removed'} file {path} ({lines} lines)\n"
    return unified_diff_text(path, None if old is None else old.decode("utf-8", "replace"),
                             None if new is None else new.decode("utf-8", "replace"))


def _load_manifest(folder: Path) -> dict:
    try:
        data = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def install(global_: bool = False, dry_run: bool = False, root: Path | None = None, tldrs: str | None = None,
            out=None) -> int:
    from ...base.workspace import atomic_write
    from ..installers.install import tldrs_command

    out = out or sys.stdout
    path = plugin_path(global_, root)
    folder = path.parent
    wanted = render(tldrs or tldrs_command(), global_)
    old = _read(path)
    if old == wanted:
        say(out, f"symbolpack is already installed for OpenCode in {path}; nothing changed.")
        return 0
    if folder.exists() and not folder.is_dir():
        raise SymbolpackError(f"{folder} is not a folder; move it away first")
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    moved = old is not None and not _is_ours(old)
    if moved and (backup.exists() or backup.is_symlink()):
        raise SymbolpackError(f"{path} is not symbolpack's, and {backup.name} is taken; move one of them away")
    say(out, _diff(path, None if moved else old, wanted))
    if moved:
        say(out, f"(your {path.name} is moved aside to {backup.name}; uninstall puts it back)")
    if dry_run:
        say(out, "(dry run: nothing was written)")
        return 0
    created = [str(d) for d in missing_dirs(path)]
    manifest = _load_manifest(folder)
    folder.mkdir(parents=True, exist_ok=True)
    record = {"v": 1, "created": list(manifest.get("created", [])) + created,
              "backup": manifest.get("backup") or (backup.name if moved else None)}
    atomic_write(folder / MANIFEST, (json.dumps(record, indent=1) + "\n").encode(), 0o644)
    if moved:
        os.replace(path, backup)
    atomic_write(path, wanted, 0o644)
    say(out, f"{'updated' if old is not None and not moved else 'created'} {path}")
    say(out, "OpenCode loads it when it starts (it answers OpenCode's read tool); check with: tldrs doctor")
    return 0


def uninstall(global_: bool = False, dry_run: bool = False, root: Path | None = None, out=None) -> int:
    out = out or sys.stdout
    path = plugin_path(global_, root)
    folder = path.parent
    old = _read(path)
    manifest = _load_manifest(folder)
    if not _is_ours(old) and not (folder / MANIFEST).exists():
        say(out, f"symbolpack is not installed for OpenCode in {path}; nothing changed.")
        return 0
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    restored = _read(backup) if manifest.get("backup") == backup.name else None
    if _is_ours(old):
        say(out, _diff(path, old, restored))
    if restored is not None:
        say(out, f"(your {path.name} comes back from {backup.name})")
    if dry_run:
        say(out, "(dry run: nothing was written)")
        return 0
    if _is_ours(old):
        path.unlink()
    if restored is not None and not path.exists():
        os.replace(backup, path)
    try:
        (folder / MANIFEST).unlink()
    except FileNotFoundError:
        pass
    created = manifest.get("created", [])
    remove_empty_dirs(out, created)
    for d in sorted(map(Path, created), key=lambda p: len(str(p))):
        if d.is_dir():
            theirs = sorted(p.name for p in d.iterdir() if p.name in OPENCODE_OWN)
            if theirs:
                say(out, f"kept {d}: OpenCode wrote {', '.join(theirs)} there (delete it by hand if you no "
                         f"longer want it)")
            break
    say(out, f"removed symbolpack from OpenCode ({path})")
    return 0


# --------------------------------------------------------------------------- doctor

def probe(argv: list[str], timeout: float = 30.0) -> tuple[bool, str]:
    """The calls the plugin makes, in a scratch project: a first read kept under an answer
    id; a re-read with it present must be [UNCHANGED] leaning on it; the model's own edit
    kept with `session edit`; a read with both present shows that edit."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="symbolpack-doctor-") as tmp:
        target = Path(tmp) / "probe.py"
        target.write_text("".join(f"def f{i}():\n    return {i}\n\n" for i in range(40)))
        env = {**os.environ, "SYMBOLPACK_DIR": str(Path(tmp) / "state")}
        base = [*argv, "read", str(target), "--format", "json", "--session-id", "opencode-doctor",
                "--front", "opencode"]

        def run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
            return subprocess.run(args, input=stdin, capture_output=True, text=True, env=env, cwd=tmp,
                                  timeout=timeout)

        try:
            first = run([*base, "--answer-id", "probe-1", "--present", ""])
            second = run([*base, "--answer-id", "probe-2", "--present", "probe-1"])
            target.write_text(target.read_text().replace("return 7\n", "return 70\n"))  # the model's edit
            edit = run([*argv, "session", "edit", str(target), "--answer-id", "probe-3", "--present", "probe-1",
                        "--edits"], json.dumps([{"old": "return 7\n", "new": "return 70\n"}]))
            third = run([*base, "--answer-id", "probe-4", "--present", "probe-1,probe-3"])
        except (OSError, subprocess.SubprocessError) as exc:
            return False, f"could not run {shlex.join(argv)}: {exc}"
        try:
            one, two, four = json.loads(first.stdout), json.loads(second.stdout), json.loads(third.stdout)
        except ValueError:
            err = (first.stderr or second.stderr or third.stderr).strip().splitlines()
            return False, f"{shlex.join(argv)} gave no answer" + (f": {err[-1]}" if err else "")
        if not (one.get("answer_id") == "probe-1" and two.get("mode") == "unchanged"
                and two.get("leans_on") == ["probe-1"]):
            return False, f"unexpected answers ({one.get('mode')}, then {two.get('mode')})"
        if edit.returncode != 0:
            err = edit.stderr.strip().splitlines()
            return False, "session edit failed" + (f": {err[-1]}" if err else "")
        if "return 70" not in str(four.get("text")):
            return False, f"a read after a kept edit did not show it ({four.get('mode')})"
        return True, "a re-read answered [UNCHANGED]; an own edit was kept and shown by the next read"


def doctor_report(root: Path | None = None) -> dict:
    """Both places OpenCode loads the plugin from: installed? the shipped file? does its command answer?"""
    from ..installers.install import tldrs_command

    report: dict = {"targets": [], "checks": []}
    probed: set[tuple[str, ...]] = set()
    for global_ in (False, True):
        scope = "global" if global_ else "project"
        try:
            wanted: bytes | None = render(tldrs_command(), global_)
        except SymbolpackError as exc:
            wanted, report["error"] = None, str(exc)
        try:
            path = plugin_path(global_, root)
            data = _read(path)
        except SymbolpackError as exc:
            report["targets"].append({"scope": scope, "error": str(exc)})
            continue
        entry = {"scope": scope, "path": str(path), "installed": _is_ours(data),
                 "current": data is not None and data == wanted}
        report["targets"].append(entry)
        if data is not None and not entry["installed"]:
            entry["foreign"] = True  # a symbolpack.ts of someone else's: OpenCode loads it, not ours
        if not entry["installed"]:
            continue
        if not global_ and os.environ.get("OPENCODE_DISABLE_PROJECT_CONFIG"):
            report["checks"].append({"check": f"{scope} loaded", "ok": False,
                                     "detail": "OPENCODE_DISABLE_PROJECT_CONFIG is set: OpenCode does not load "
                                               "the project's .opencode folder (install with --global)"})
        assert data is not None
        argv = command_of(data)
        if argv is None:
            report["checks"].append({"check": f"{scope} command", "ok": False,
                                     "detail": "the installed file has no TLDRS line; reinstall: tldrs install "
                                               "opencode" + (" --global" if global_ else "")})
            continue
        if not entry["current"]:
            report["checks"].append({"check": f"{scope} file", "ok": False,
                                     "detail": "not the plugin this symbolpack ships (reinstall: tldrs install "
                                               "opencode" + (" --global)" if global_ else ")")})
        if tuple(argv) not in probed:
            probed.add(tuple(argv))
            ok, detail = probe(argv)
            report["checks"].append({"check": f"{scope} probe", "ok": ok, "detail": detail})
    return report


def doctor_lines(report: dict) -> list[str]:
    lines = []
    for t in report["targets"]:
        if "error" in t:
            lines.append(f"{HOST:<9}{t['scope']:<9}{'error: ' + t['error']}")
            continue
        state = ("installed" if t["current"] else "installed (stale)") if t["installed"] else \
            ("someone else's file" if t.get("foreign") else "not installed")
        lines.append(f"{HOST:<9}{t['scope']:<9}{state:<18}{t['path']}")
    for c in report["checks"]:
        lines.append(f"{'':18}{c['check']}: {'ok' if c['ok'] else 'FAILED'} ({c['detail']})")
    return lines
