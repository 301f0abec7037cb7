"""One script a host loads from a folder (pi's extension, OpenCode's plugin), installed
and uninstalled so that the tree comes back byte for byte.

The file is the copy this package ships with two lines changed: `const TLDRS` (the
command that runs this installation's `tldrs`) and `const SCOPE` (project or global).
A host that fails to load a broken file breaks, so it is written atomically (the old
bytes or the new, never half) and only after the rendered text was checked to have
exactly those two lines. Every change is printed (a file written or removed whole is
one line: its every line told nobody anything); `--dry-run` writes nothing; a second
install changes nothing; a file of that name that is not ours is moved aside to
`NAME.symbolpack.bak` and put back by uninstall; the folders install created are
recorded in `.symbolpack-install.json` beside the file and removed by uninstall when
empty again.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

from ...base.errors import SymbolpackError
from .install import missing_dirs, remove_empty_dirs, say, unified_diff_text

MANIFEST = ".symbolpack-install.json"
BACKUP_SUFFIX = ".symbolpack.bak"
_COMMAND_LINE = re.compile(r'^const TLDRS: string\[\] = (\[.*\]);$', re.M)
_SCOPE_LINE = re.compile(r'^const SCOPE: string = "(project|global)";$', re.M)


def command_of(data: bytes) -> list[str] | None:
    """The command an installed file runs, from its TLDRS line."""
    match = _COMMAND_LINE.search(data.decode("utf-8", "replace"))
    if match is None:
        return None
    try:
        argv = json.loads(match.group(1))
    except ValueError:
        return None
    return argv if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv) else None


class ExtensionFile:
    """The shipped file *shipped* as host *host* loads it; *mark* (in its first
    *mark_within* bytes) says a file is ours; *loaded* is what install says last."""

    def __init__(self, host: str, what: str, shipped: Path, mark: bytes, loaded: str, mark_within: int = 2000):
        self.host = host  # "pi", "OpenCode": in messages
        self.what = what  # "extension", "plugin"
        self.shipped = shipped
        self.mark = mark
        self.loaded = loaded
        self.mark_within = mark_within

    def shipped_text(self) -> str:
        return self.shipped.read_text(encoding="utf-8")

    def render(self, tldrs: str, global_: bool = False) -> bytes:
        """The shipped file with *tldrs* (a shell command prefix) as its command and its scope."""
        argv = shlex.split(tldrs)
        if not argv:
            raise SymbolpackError("the tldrs command to install is empty")
        line = f"const TLDRS: string[] = {json.dumps(argv)};"
        out, count = _COMMAND_LINE.subn(lambda _m: line, self.shipped_text())
        scope = f'const SCOPE: string = "{"global" if global_ else "project"}";'
        out, scopes = _SCOPE_LINE.subn(lambda _m: scope, out)
        if count != 1 or scopes != 1:
            raise SymbolpackError(f"the shipped {self.host} {self.what} has {count} TLDRS and {scopes} SCOPE lines "
                                  f"(expected 1 each); reinstall symbolpack")
        return out.encode("utf-8")

    def is_ours(self, data: bytes | None) -> bool:
        return data is not None and self.mark in data[:self.mark_within]

    @staticmethod
    def read(path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise SymbolpackError(f"{path} is a directory; move it away first") from None
        except NotADirectoryError:
            raise SymbolpackError(f"{path.parent} is not a folder; move it away first") from None

    @staticmethod
    def diff(path: Path, old: bytes | None, new: bytes | None) -> str:
        if (old is None) != (new is None):
            whole = new if new is not None else old
            assert whole is not None
            lines = len(whole.decode("utf-8", "replace").splitlines())
            return f"{'new' if old is None else 'removed'} file {path} ({lines} lines)\n"
        return unified_diff_text(path, None if old is None else old.decode("utf-8", "replace"),
                                 None if new is None else new.decode("utf-8", "replace"))

    @staticmethod
    def manifest(folder: Path) -> dict:
        try:
            data = json.loads((folder / MANIFEST).read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def install(self, path: Path, wanted: bytes, dry_run: bool, out) -> int:
        from ...base.workspace import atomic_write

        folder = path.parent
        old = self.read(path)
        if old == wanted:
            say(out, f"symbolpack is already installed for {self.host} in {path}; nothing changed.")
            return 0
        if folder.exists() and not folder.is_dir():
            raise SymbolpackError(f"{folder} is not a folder; move it away first")
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        moved = old is not None and not self.is_ours(old)
        if moved and (backup.exists() or backup.is_symlink()):
            raise SymbolpackError(f"{path} is not symbolpack's, and {backup.name} is taken; move one of them away")
        say(out, self.diff(path, None if moved else old, wanted))
        if moved:
            say(out, f"(your {path.name} is moved aside to {backup.name}; uninstall puts it back)")
        if dry_run:
            say(out, "(dry run: nothing was written)")
            return 0
        created = [str(d) for d in missing_dirs(path)]
        manifest = self.manifest(folder)
        folder.mkdir(parents=True, exist_ok=True)
        record = {"v": 1, "created": list(manifest.get("created", [])) + created,
                  "backup": manifest.get("backup") or (backup.name if moved else None)}
        atomic_write(folder / MANIFEST, (json.dumps(record, indent=1) + "\n").encode(), 0o644)
        if moved:
            os.replace(path, backup)
        atomic_write(path, wanted, 0o644)
        say(out, f"{'updated' if old is not None and not moved else 'created'} {path}")
        say(out, self.loaded)
        return 0

    def uninstall(self, path: Path, dry_run: bool, out) -> list[str] | None:
        """Take the file out (its user's file back, if install moved one aside); the
        folders install created, removed where empty. None: nothing was installed, or a
        dry run; else the folders install had created."""
        folder = path.parent
        old = self.read(path)
        manifest = self.manifest(folder)
        if not self.is_ours(old) and not (folder / MANIFEST).exists():
            say(out, f"symbolpack is not installed for {self.host} in {path}; nothing changed.")
            return None
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        restored = self.read(backup) if manifest.get("backup") == backup.name else None
        if self.is_ours(old):
            say(out, self.diff(path, old, restored))
        if restored is not None:
            say(out, f"(your {path.name} comes back from {backup.name})")
        if dry_run:
            say(out, "(dry run: nothing was written)")
            return None
        if self.is_ours(old):
            path.unlink()
        if restored is not None and not path.exists():
            os.replace(backup, path)
        try:
            (folder / MANIFEST).unlink()
        except FileNotFoundError:
            pass
        created = list(manifest.get("created", []))
        remove_empty_dirs(out, created)
        return created
