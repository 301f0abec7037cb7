"""The change a diff-context pack describes: which files differ, how, and which symbol owns each line.

`changed_files` lists every path that differs between two revisions (or a
revision and the working tree, untracked files included) with its bytes;
`analyze` aligns each file's lines -- by git's own hunks, so "the lines that
changed" are the ones `git diff` shows -- and maps each changed line to the
innermost symbol whose real span holds it; `render_diff` writes the changed
lines no slice shows as a unified diff. A file that is not UTF-8 is *withheld*
(counted, never decoded for display); a sensitive one is never read at all.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .callgraph import CallGraph, cat_blobs, run_git
from ..base.errors import GitError, NotFound
from ..engine.index import looks_binary
from ..base.linediff import opcodes
from ..engine.sources import is_sensitive
from ..engine.symbols import SymbolSlice, split_lines
from ..base.workspace import find_repo_root

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Callable, Sequence

CONTEXT_LINES = 3
_NULL_SHA = "0" * 40


# A plain class, not a dataclass: this module is on the start-up path of every
# `diff-context` process, where the `dataclasses` import and dataclass creation
# cost ~12 ms.
class FileChange:
    """One path of the change and its analysis."""

    __slots__ = ("status", "old_path", "new_path", "old", "new", "old_mode", "new_mode", "old_blob", "new_blob",
                 "note", "withheld", "untracked", "old_lines", "new_lines", "opcodes", "parsed", "git_hunks",
                 "new_owner", "old_owner")

    def __init__(self, status: str, old_path: str | None, new_path: str | None, old: bytes | None,
                 new: bytes | None, old_mode: str = "", new_mode: str = "", old_blob: str | None = None,
                 new_blob: str | None = None, note: str | None = None, withheld: str | None = None,
                 untracked: bool = False, old_lines: list[str] | None = None, new_lines: list[str] | None = None,
                 opcodes: list[tuple] | None = None, parsed: bool = False, git_hunks: list[tuple] | None = None,
                 new_owner: dict[int, str] | None = None, old_owner: dict[int, str] | None = None) -> None:
        self.status = status  # A M D R T (git's letters)
        self.old_path = old_path
        self.new_path = new_path
        self.old = old
        self.new = new
        self.old_mode = old_mode
        self.new_mode = new_mode
        self.old_blob = old_blob  # git object names, when git knows them
        self.new_blob = new_blob
        self.note = note  # binary, submodule, mode change: said instead of a diff
        self.withheld = withheld  # why no line of it is ever shown: "not UTF-8 text", "sensitive"
        self.untracked = untracked  # not in git's index: `git diff` does not show it
        self.old_lines: list[str] = [] if old_lines is None else old_lines
        self.new_lines: list[str] = [] if new_lines is None else new_lines
        self.opcodes: list[tuple] = [] if opcodes is None else opcodes
        self.parsed = parsed
        self.git_hunks = git_hunks  # git's own (old, new) line ranges, when it gave any
        self.new_owner: dict[int, str] = {} if new_owner is None else new_owner  # new line -> changed symbol id
        # removed old line -> surviving symbol id
        self.old_owner: dict[int, str] = {} if old_owner is None else old_owner

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def decode_lines(data: bytes | None) -> list[str]:
    """Lines of UTF-8 *data*. Strict: a file that is not UTF-8 is never shown (PROTOCOL.md:
    no substitutions passed off as verbatim); callers check `is_utf8` first."""
    return [line.decode("utf-8") for line in split_lines(data or b"")]


def is_utf8(data: bytes | None) -> bool:
    if data is None:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# --------------------------------------------------------------------------- git

def git_root(ws) -> Path:
    root = find_repo_root(ws.root)
    if root is None:
        raise GitError(f"not a git repository: {ws.root} (diff-context compares git revisions; "
                       "run it inside a repository)")
    return root


def resolve_rev(root: Path, rev: str, what: str) -> str:
    out = run_git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
    sha = out.decode().strip()
    if not sha:
        hint = "" if has_commits(root) else " (the repository has no commits yet)"
        raise NotFound(f"unknown {what} revision {rev!r}{hint}")
    return sha


def has_commits(root: Path) -> bool:
    return bool(run_git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip())


def empty_tree(root: Path) -> str:
    """git's empty tree (in this repository's hash): what an unborn HEAD is compared as."""
    return run_git(root, "hash-object", "-t", "tree", "/dev/null").decode().strip()


NO_COMMITS = "no commits yet: against the empty tree"


def rename_line(c: FileChange) -> str | None:
    """"renamed OLD -> NEW" for a file git saw renamed (said with or without edits)."""
    if c.old_path and c.new_path and c.old_path != c.new_path:
        return f"renamed {c.old_path} -> {c.new_path}"
    return None


def changed_files(root: Path, base: str, head: str | None, sensitive: tuple[str, ...] = ()) -> list[FileChange]:
    """Every path that differs between *base* and *head* (or the working tree, untracked
    included); files named by *sensitive* (`Settings.sensitive`) are never read."""
    args = ["diff", "--raw", "-z", "-M", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", base]
    if head:
        args.append(head)
    out = run_git(root, *args, "--")
    parts = out.split(b"\0")
    changes: list[FileChange] = []
    i = 0
    while i < len(parts):
        meta = parts[i]
        if not meta.startswith(b":"):
            i += 1
            continue
        old_mode, new_mode, old_sha, new_sha, status = meta[1:].decode().split()[:5]
        letter = status[0]
        if letter in "RC":
            old_path, new_path = parts[i + 1], parts[i + 2]
            i += 3
        else:
            old_path = new_path = parts[i + 1]
            i += 2
        old_p = old_path.decode("utf-8", "surrogateescape")
        new_p = new_path.decode("utf-8", "surrogateescape")
        changes.append(FileChange(
            letter, None if letter == "A" else old_p, None if letter == "D" else new_p, None, None,
            old_mode, new_mode,
            old_blob=old_sha if letter != "A" and old_sha != _NULL_SHA else None,
            new_blob=new_sha if letter != "D" and new_sha != _NULL_SHA else None))
    hunks = _git_hunks(root, base, head)
    for c in changes:
        c.git_hunks = hunks.get(c.new_path or c.old_path or "")
    if not head:
        others = run_git(root, "ls-files", "-z", "--others", "--exclude-standard")
        for p in others.split(b"\0"):
            if p and not p.endswith(b"/"):
                changes.append(FileChange("A", None, p.decode("utf-8", "surrogateescape"), None, None,
                                          "000000", "100644", untracked=True))
    _load_contents(root, changes, head, sensitive)
    return changes


_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _git_hunks(root: Path, base: str, head: str | None) -> dict[str, list[tuple]]:
    """Per path, git's hunks of the change as difflib-style opcodes (tag, i1, i2, j1, j2).

    Used instead of our own line diff so that "the lines that changed" are the
    ones `git diff` shows; the same rename detection as `changed_files`.
    """
    args = ["-c", "core.quotepath=off", "diff", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv",
            "--src-prefix=a/", "--dst-prefix=b/", base] + ([head] if head else []) + ["--"]
    out = run_git(root, *args)
    result: dict[str, list[tuple]] = {}
    old = new = None
    ops: list[tuple] | None = None
    in_header = False
    for line in out.split(b"\n"):
        if line.startswith(b"diff --git "):
            old = new = ops = None
            in_header = True
        elif in_header and line.startswith(b"--- "):
            old = _patch_path(line[4:], b"a/")
        elif in_header and line.startswith(b"+++ "):
            new = _patch_path(line[4:], b"b/")
            ops = result.setdefault(new or old or "", [])
        elif line.startswith(b"@@ ") and ops is not None:
            in_header = False
            m = _HUNK.match(line)
            if not m:
                continue
            a, b = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            c, d = int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1)
            i1 = a - 1 if b else a
            j1 = c - 1 if d else c
            tag = "replace" if b and d else ("delete" if b else "insert")
            ops.append((tag, i1, i1 + b, j1, j1 + d))
    return result


def _patch_path(raw: bytes, prefix: bytes) -> str | None:
    raw = raw.rstrip(b"\t")
    if raw == b"/dev/null":
        return None
    if raw.startswith(b'"') and raw.endswith(b'"'):
        raw = _unquote_c(raw[1:-1])
    if raw.startswith(prefix):
        raw = raw[len(prefix):]
    return raw.decode("utf-8", "surrogateescape")


def _unquote_c(raw: bytes) -> bytes:
    """Undo git's C-style path quoting (\\t, \\n, \\\", \\\\, octal bytes)."""
    simple = {b"t": b"\t", b"n": b"\n", b'"': b'"', b"\\": b"\\", b"a": b"\a", b"b": b"\b", b"f": b"\f",
              b"r": b"\r", b"v": b"\v"}
    out = bytearray()
    i = 0
    while i < len(raw):
        ch = raw[i:i + 1]
        if ch == b"\\" and i + 1 < len(raw):
            nxt = raw[i + 1:i + 2]
            if nxt in simple:
                out += simple[nxt]
                i += 2
                continue
            if raw[i + 1:i + 4].isdigit():
                out.append(int(raw[i + 1:i + 4], 8))
                i += 4
                continue
        out += ch
        i += 1
    return bytes(out)


def _consistent(hunks: Sequence[tuple], old_len: int, new_len: int) -> bool:
    """git's hunks fit the bytes we read: same unchanged stretches on both sides."""
    pi = pj = 0
    for _, i1, i2, j1, j2 in hunks:
        if i1 < pi or j1 < pj or i1 - pi != j1 - pj or i2 > old_len or j2 > new_len:
            return False
        pi, pj = i2, j2
    return old_len - pi == new_len - pj


def _load_contents(root: Path, changes: list[FileChange], head: str | None, sensitive: tuple[str, ...]) -> None:
    """Fill old/new bytes: old from git objects; new from git objects (*head*) or the working tree."""
    for c in changes:  # a sensitive file is never read: nothing of it can reach a pack or a cache
        if any(p and is_sensitive(p, sensitive) for p in (c.old_path, c.new_path)):
            c.withheld = "sensitive"
            c.opcodes = list(c.git_hunks or [])  # for its line counts only
    wanted = [w for c in changes if not c.withheld
              for w in (c.old_blob if c.old_mode != "160000" else None,
                        c.new_blob if head and c.new_mode != "160000" else None) if w]
    blobs = cat_blobs(root, wanted)
    for c in changes:
        if c.withheld:
            continue
        if c.old_mode == "160000" or c.new_mode == "160000":
            c.note = f"submodule {c.path}: {(c.old_blob or 'none')[:12]} -> {(c.new_blob or 'working tree')[:12]}"
            continue
        c.old = blobs.get(c.old_blob) if c.old_blob else None
        if c.status == "D":
            c.new = None
        elif head:
            c.new = blobs.get(c.new_blob) if c.new_blob else None
        else:
            c.new = _read_worktree(root / c.new_path) if c.new_path else None
            if c.new is None and c.new_path and c.old is not None:  # gone since git listed it
                c.status, c.new_path = "D", None


def _read_worktree(path: Path) -> bytes | None:
    try:
        if path.is_symlink():
            return os.readlink(path).encode("utf-8", "surrogateescape")
        return path.read_bytes()
    except OSError:
        return None


# --------------------------------------------------------------------------- change analysis

def local_id(sym: SymbolSlice, path: str, lang: str) -> str:
    return sym.id[len(path) + len(lang) + 2:]


def analyze(graph: CallGraph, change: FileChange) -> None:
    """Line diff of one file and, when a parser handles it, the symbol owning each changed line.
    A file that is not UTF-8 is *withheld*: counted, summarized, never decoded for display."""
    if change.note is not None or change.withheld:
        return
    if (change.old is not None and looks_binary(change.old)) or (change.new is not None and looks_binary(change.new)):
        verb = {"A": "added", "D": "deleted"}.get(change.status, "changed")
        change.note = f"binary file {change.path} {verb}" + (
            f" (renamed {change.old_path} -> {change.path})" if change.old_path and change.old_path != change.path
            else "")
        return
    old_lines, new_lines = split_lines(change.old or b""), split_lines(change.new or b"")
    if change.git_hunks and change.old != change.new and \
            _consistent(change.git_hunks, len(old_lines), len(new_lines)):
        change.opcodes = list(change.git_hunks)
    else:  # untracked files, or bytes git normalises differently (eol filters)
        change.opcodes = [op for op in opcodes(old_lines, new_lines) if op[0] != "equal"]
    if not (is_utf8(change.old) and is_utf8(change.new)):
        if change.opcodes or change.old is None or change.new is None:
            change.withheld = "not UTF-8 text"
            return
    else:
        change.old_lines, change.new_lines = decode_lines(change.old), decode_lines(change.new)
    if change.old == change.new or (not change.opcodes and change.old is not None and change.new is not None):
        if change.old_path and change.new_path and change.old_path != change.new_path:
            change.note = f"renamed {change.old_path} -> {change.new_path} (content unchanged)"
        elif change.old_mode != change.new_mode and change.old_mode and change.new_mode:
            change.note = f"mode of {change.path} changed {change.old_mode} -> {change.new_mode}"
        return
    if not change.opcodes:  # an empty file added or deleted
        change.note = f"empty file {change.path} {'added' if change.new is not None else 'deleted'}"
        return
    if change.new is None:
        return  # deleted: all of it goes to diffs
    new_facts = graph.facts_for_path(change.path, change.new)  # new bytes: new_path is the path
    if not new_facts.parsed:
        return
    change.parsed = True
    old_facts = graph.facts_for_bytes(change.old_path, change.old) \
        if change.old is not None and change.old_path is not None else None
    lang = new_facts.language or ""
    new_by_local = {local_id(s, new_facts.path, lang): s for s in new_facts.symbols}
    for _, i1, i2, j1, j2 in change.opcodes:
        for n in range(j1 + 1, j2 + 1):
            sym = new_facts.innermost(n)
            if sym is not None:
                change.new_owner[n] = sym.id
        if old_facts is None or not old_facts.parsed:
            continue
        for o in range(i1 + 1, i2 + 1):
            old_sym = old_facts.innermost(o)
            if old_sym is None:
                continue
            survivor = new_by_local.get(local_id(old_sym, old_facts.path, old_facts.language or ""))
            if survivor is not None:
                change.old_owner[o] = survivor.id


# --------------------------------------------------------------------------- diffs

def render_diff(change: FileChange, new_ok: Callable[[int], bool] = lambda n: False,
                old_ok: Callable[[int], bool] = lambda o: False) -> str | None:
    """Unified diff of the changed lines of *change* that are not otherwise visible, or None."""
    if change.note is not None:
        return change.note
    units = []
    ops = change.opcodes
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        bad_new = [n for n in range(j1 + 1, j2 + 1) if not new_ok(n)]
        bad_old = [o for o in range(i1 + 1, i2 + 1) if not old_ok(o)]
        if not bad_new and not bad_old:
            continue
        if tag == "insert":
            units += [(i1, i1, a - 1, b, (i1, j1), (i2, j2)) for a, b in _runs(bad_new)]
        elif tag == "delete":
            units += [(a - 1, b, j1, j1, (i1, j1), (i2, j2)) for a, b in _runs(bad_old)]
        else:
            units.append((i1, i2, j1, j2, (i1, j1), (i2, j2)))
    if not units:
        return None
    old, new = change.old_lines, change.new_lines
    equal_before = {}
    prev_i = 0
    for tag, i1, i2, j1, j2 in ops:
        equal_before[(i1, j1)] = i1 - prev_i  # length of the equal run before this opcode
        prev_i = i2
    equal_after = {}
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        nxt = ops[k + 1][1] if k + 1 < len(ops) else len(old)
        equal_after[(i2, j2)] = nxt - i2
    out = [f"--- {'a/' + change.old_path if change.old_path and change.old is not None else '/dev/null'}",
           f"+++ {'b/' + change.new_path if change.new_path and change.new is not None else '/dev/null'}"]
    last_old = 0
    for a1, a2, b1, b2, op_start, op_end in units:
        lead = min(CONTEXT_LINES, equal_before.get(op_start, 0)) if (a1, b1) == op_start else 0
        lead = max(0, min(lead, a1 - last_old))
        trail = min(CONTEXT_LINES, equal_after.get(op_end, 0)) if (a2, b2) == op_end else 0
        os_, ol = a1 - lead, lead + (a2 - a1) + trail
        ns, nl = b1 - lead, lead + (b2 - b1) + trail
        out.append(f"@@ -{_hunk_start(os_, ol)},{ol} +{_hunk_start(ns, nl)},{nl} @@")
        out.extend(" " + line for line in old[a1 - lead:a1])
        out.extend("-" + line for line in old[a1:a2])
        out.extend("+" + line for line in new[b1:b2])
        out.extend(" " + line for line in old[a2:a2 + trail])
        last_old = a2 + trail
    return "\n".join(out)


def _hunk_start(start0: int, length: int) -> int:
    return start0 + 1 if length else start0


def _runs(numbers: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs
