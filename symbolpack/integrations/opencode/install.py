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
import shlex
import sys
from pathlib import Path

from ...base.errors import SymbolpackError
from ..installers.extension_file import ExtensionFile, command_of  # noqa: F401 (command_of: doctor, tests)
from ..installers.install import say

FILE_NAME = "symbolpack.ts"
MARK = b"Written by `tldrs install opencode`"
HOST = "opencode"
# what OpenCode writes into a config folder it loads, never symbolpack's to remove
OPENCODE_OWN = ("package.json", "package-lock.json", "bun.lock", "node_modules", ".gitignore")


FILE = ExtensionFile("OpenCode", "plugin", Path(__file__).parent / FILE_NAME, MARK,
                     "OpenCode loads it when it starts (it answers OpenCode's read tool); check with: tldrs doctor", mark_within=2000)


def shipped() -> str:
    """The plugin as this package ships it (command: `tldrs` on PATH)."""
    return FILE.shipped_text()


def render(tldrs: str, global_: bool = False) -> bytes:
    """The shipped plugin with *tldrs* (a shell command prefix) as its command and its scope."""
    return FILE.render(tldrs, global_)


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
    return FILE.is_ours(data)


def _read(path: Path) -> bytes | None:
    return FILE.read(path)


def install(global_: bool = False, dry_run: bool = False, root: Path | None = None, tldrs: str | None = None,
            out=None) -> int:
    from ..installers.install import tldrs_command

    out = out or sys.stdout
    return FILE.install(plugin_path(global_, root), render(tldrs or tldrs_command(), global_), dry_run, out)


def uninstall(global_: bool = False, dry_run: bool = False, root: Path | None = None, out=None) -> int:
    out = out or sys.stdout
    path = plugin_path(global_, root)
    created = FILE.uninstall(path, dry_run, out)
    if created is None:
        return 0
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
