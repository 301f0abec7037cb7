"""`tldrs install pi [--global]` / `tldrs uninstall pi` and pi's part of `tldrs doctor`.

pi has no settings entry for a tool: an extension is a TypeScript file it loads
from a directory at start-up (through jiti, no build step; its imports of
`@mariozechner/pi-coding-agent` and `typebox` resolve to pi's own). So install
writes one file, the extension this package ships (`pi/symbolpack.ts`) with the
command that runs this installation's `tldrs` on its `TLDRS` line and where it is
installed on its `SCOPE` line:

| scope              | file                                                                   |
|--------------------|------------------------------------------------------------------------|
| project (default)  | `.pi/extensions/symbolpack.ts`                                         |
| `--global`         | `$PI_CODING_AGENT_DIR/extensions/symbolpack.ts` (default `~/.pi/agent`) |

pi refuses to start when two extensions register the same tool, and it loads the
project's extensions and the global ones: a global copy stands aside (registers
nothing) in a project that has its own copy.

Why so careful: pi exits at start-up when an extension fails to load, so a broken
file there breaks pi. The file is written atomically (the old bytes or the new,
never half; the temporary name does not end in `.ts`, so pi never loads it), and
only after the rendered text was checked to be the shipped one with exactly one
line changed.

Rules, as for the other installers: every change is printed as a unified diff;
`--dry-run` writes nothing; a second install changes nothing; a file of that name
that is not ours is moved aside to `symbolpack.ts.symbolpack.bak` (pi loads only
`*.ts`) and put back by uninstall; the directories install created are recorded in
`.symbolpack-install.json` beside the file and removed by uninstall when empty
again. Install then uninstall leaves the tree byte for byte as it was.
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
MARK = b"Written by `tldrs install pi`"


FILE = ExtensionFile("pi", "extension", Path(__file__).parent / FILE_NAME, MARK,
                     "pi loads it in new sessions (it replaces pi's read tool); check with: tldrs doctor", mark_within=1000)


def shipped() -> str:
    """The extension as this package ships it (command: `tldrs` on PATH)."""
    return FILE.shipped_text()


def render(tldrs: str, global_: bool = False) -> bytes:
    """The shipped extension with *tldrs* (a shell command prefix) as its command and its scope."""
    return FILE.render(tldrs, global_)


def agent_dir() -> Path:
    """pi's agent directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent` (pi's own rule)."""
    configured = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(os.path.expanduser(configured)) if configured else Path.home() / ".pi" / "agent"


def extension_path(global_: bool, root: Path | None = None) -> Path:
    if global_:
        return agent_dir() / "extensions" / FILE_NAME
    from ...base.workspace import project_root

    return (root or project_root()) / ".pi" / "extensions" / FILE_NAME


def _is_ours(data: bytes | None) -> bool:
    return FILE.is_ours(data)


def _read(path: Path) -> bytes | None:
    return FILE.read(path)


def install(global_: bool = False, dry_run: bool = False, root: Path | None = None, tldrs: str | None = None,
            out=None) -> int:
    from ..installers.install import tldrs_command

    out = out or sys.stdout
    return FILE.install(extension_path(global_, root), render(tldrs or tldrs_command(), global_), dry_run, out)


def uninstall(global_: bool = False, dry_run: bool = False, root: Path | None = None, out=None) -> int:
    out = out or sys.stdout
    path = extension_path(global_, root)
    created = FILE.uninstall(path, dry_run, out)
    if created is None:
        return 0
    say(out, f"removed symbolpack from pi ({path})")
    return 0


# --------------------------------------------------------------------------- doctor

def probe(argv: list[str], timeout: float = 30.0) -> tuple[bool, str]:
    """The calls the extension makes, in a scratch project: a first read kept under an
    answer id, then a re-read with that answer present must be [UNCHANGED] leaning on it."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="symbolpack-doctor-") as tmp:
        target = Path(tmp) / "probe.py"
        target.write_text("".join(f"def f{i}():\n    return {i}\n\n" for i in range(40)))
        env = {**os.environ, "SYMBOLPACK_DIR": str(Path(tmp) / "state")}
        base = [*argv, "read", str(target), "--format", "json", "--session-id", "pi-doctor", "--front", "pi"]
        try:
            first = subprocess.run([*base, "--answer-id", "probe-1", "--present", ""], capture_output=True,
                                   text=True, env=env, cwd=tmp, timeout=timeout)
            second = subprocess.run([*base, "--answer-id", "probe-2", "--present", "probe-1"], capture_output=True,
                                    text=True, env=env, cwd=tmp, timeout=timeout)
        except (OSError, subprocess.SubprocessError) as exc:
            return False, f"could not run {shlex.join(argv)}: {exc}"
        try:
            one, two = json.loads(first.stdout), json.loads(second.stdout)
        except ValueError:
            err = (first.stderr or second.stderr).strip().splitlines()
            return False, f"{shlex.join(argv)} gave no answer" + (f": {err[-1]}" if err else "")
        if one.get("answer_id") == "probe-1" and two.get("mode") == "unchanged" and two.get("leans_on") == ["probe-1"]:
            return True, "a re-read with its first read present answered [UNCHANGED]"
        return False, f"unexpected answers ({one.get('mode')}, then {two.get('mode')})"


def doctor_report(root: Path | None = None) -> dict:
    """Both places pi loads the extension from: installed? the shipped file? does its command answer?"""
    from ..installers.install import tldrs_command

    report: dict = {"targets": [], "checks": []}
    probed: set[tuple[str, ...]] = set()
    for global_ in (False, True):
        try:
            wanted: bytes | None = render(tldrs_command(), global_)
        except SymbolpackError as exc:
            wanted, report["error"] = None, str(exc)
        try:
            path = extension_path(global_, root)
            data = _read(path)
        except SymbolpackError as exc:
            report["targets"].append({"scope": "global" if global_ else "project", "error": str(exc)})
            continue
        entry = {"scope": "global" if global_ else "project", "path": str(path), "installed": _is_ours(data),
                 "current": data is not None and data == wanted}
        report["targets"].append(entry)
        if not entry["installed"]:
            continue
        assert data is not None
        argv = command_of(data)
        if argv is None:
            report["checks"].append({"check": f"{entry['scope']} command", "ok": False,
                                     "detail": "the installed file has no TLDRS line; reinstall: tldrs install pi"})
            continue
        if not entry["current"]:
            report["checks"].append({"check": f"{entry['scope']} file", "ok": False,
                                     "detail": "not the extension this symbolpack ships (reinstall: tldrs install pi"
                                               + (" --global)" if global_ else ")")})
        if tuple(argv) not in probed:
            probed.add(tuple(argv))
            ok, detail = probe(argv)
            report["checks"].append({"check": f"{entry['scope']} probe", "ok": ok, "detail": detail})
    return report


def doctor_lines(report: dict) -> list[str]:
    lines = []
    for t in report["targets"]:
        if "error" in t:
            lines.append(f"{'pi':<7}{t['scope']:<9}{'error: ' + t['error']}")
            continue
        state = ("installed" if t["current"] else "installed (stale)") if t["installed"] else "not installed"
        lines.append(f"{'pi':<7}{t['scope']:<9}{state:<18}{t['path']}")
    for c in report["checks"]:
        lines.append(f"{'':18}{c['check']}: {'ok' if c['ok'] else 'FAILED'} ({c['detail']})")
    return lines
