"""Context packs: the symbols an agent needs for one entry point or one change.

Two front doors share one packer:

* `context_pack(ws, ENTRY)`: the entry symbol and a breadth-first walk of its
  callees (and callers, on request) through `callgraph`;
* `diff_context(ws, base, head)`: the symbols a change touches, each changed
  line mapped to the innermost symbol whose real span holds it, plus one hop
  of callers and callees and the tests that exercise them.

The packer spends a token budget in a fixed order (changed code, then
signatures of related symbols, then their code) and applies the session
delta: a symbol whose *code* this session was already given, with the same
ETag, is sent as a signature stub marked `[UNCHANGED]`. Only code is ever
recorded as given; a signature or a budget-cut slice is not.

The invariants this module defends (PROTOCOL.md, diff-context): every changed
line is visible, in a slice with code, in an `[UNCHANGED]` slice the session's
copy holds, or in a unified diff in `diffs` -- or its file is *summarized* by
name; and the budget is a hard cap on the text. Whatever a slice cannot show --
a file no parser handles, lines outside any symbol, a deleted symbol or file,
a changed symbol the budget could not hold -- goes to `diffs` while it fits;
what does not fit (a deleted 9,000-line file, a rewritten lockfile, a body too
long even for its own diff) becomes one summary line: path, +added/-removed
lines, the symbols it changes or removes, and the command that shows it. Files
symbolpack must never show -- sensitive names (`sources.is_sensitive`: never
read, parsed or cached) and content that is not UTF-8 (never decoded with
substitutions) -- are always summaries, and never written into the agent's copy.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from .callgraph import (
    CallGraph,
    Edge,
    GitTreeSnapshot,
    graph_cache,
    Snapshot,
    WorkTreeSnapshot,
    cat_blobs,
    run_git,
)
from .index import looks_binary
from .sources import is_sensitive
from .symbols import CLASS_LIKE, SymbolSlice, split_lines
from .tokens import count_tokens
from .workspace import SymbolpackError, find_repo_root, state_dir

DEFAULT_BUDGET = 8000
DEFAULT_DEPTH = 2
MAX_RELATED = 200
CONTEXT_LINES = 3
# section headers and the summary line: spent before any slice is placed
FRAME_TOKENS = 80
HEADER_TOKENS = 15  # the "== signatures ==", "== code ==", "== diffs ==" lines
RELEVANCE_ORDER = {"entry": 0, "contains_diff": 0, "caller": 1, "callee": 2, "test": 3}
_NULL_SHA = "0" * 40
_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec|testing)/|(^|/)test_[^/]*$|_test\.[^/]+$|\.(test|spec)\.[^/]+$|"
    r"(^|/)[^/]*Tests?\.(java|kt|cs|scala)$|(^|/)conftest\.py$")


def is_test_path(path: str) -> bool:
    return bool(_TEST_PATH.search(path))


# --------------------------------------------------------------------------- values

@dataclass
class PackSlice:
    """A symbol in a pack and how it is shown: code, signature, or `[UNCHANGED]` stub."""

    sym: SymbolSlice
    relevance: str
    lines: Sequence[str]  # the file's lines, decoded
    depth: int = 0
    mode: str = "signature"  # code | signature | unchanged
    cut: bool = False  # wanted code, the budget said no
    code_ok: bool = True  # False for a class reached by a call: its constructor carries the code
    upgraded: bool = False  # code chosen over a cheaper mandatory form (signature + diff)
    _code_cost: int | None = field(default=None, repr=False)
    _sig_cost: dict = field(default_factory=dict, repr=False)

    def code_cost(self) -> int:
        if self._code_cost is None:
            self._code_cost = _cost(_code_block(self))
        return self._code_cost

    def signature_cost(self) -> int:
        key = (self.mode == "unchanged", self.cut)
        if key not in self._sig_cost:
            self._sig_cost[key] = _cost(_signature_block(self))
        return self._sig_cost[key]

    @property
    def code(self) -> str:
        a, b = self.sym.lines
        return "\n".join(self.lines[a - 1:b])

    def to_json(self) -> dict:
        s = self.sym
        return {"id": s.id, "path": s.path, "kind": s.kind, "signature": s.signature,
                "lines": list(s.lines), "code": self.code if self.mode == "code" else None,
                "etag": s.etag, "relevance": self.relevance}


@dataclass
class FileChange:
    """One path of the change and its analysis."""

    status: str  # A M D R T (git's letters)
    old_path: str | None
    new_path: str | None
    old: bytes | None
    new: bytes | None
    old_mode: str = ""
    new_mode: str = ""
    old_blob: str | None = None  # git object names, when git knows them
    new_blob: str | None = None
    note: str | None = None  # binary, submodule, mode change: said instead of a diff
    withheld: str | None = None  # why no line of it is ever shown: "not UTF-8 text", "sensitive"
    untracked: bool = False  # not in git's index: `git diff` does not show it
    old_lines: list[str] = field(default_factory=list)
    new_lines: list[str] = field(default_factory=list)
    opcodes: list[tuple] = field(default_factory=list)
    parsed: bool = False
    git_hunks: list[tuple] | None = None  # git's own (old, new) line ranges, when it gave any
    new_owner: dict[int, str] = field(default_factory=dict)  # new line -> changed symbol id
    old_owner: dict[int, str] = field(default_factory=dict)  # removed old line -> surviving symbol id

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def _decode_lines(data: bytes | None) -> list[str]:
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


def check_budget(budget: int) -> None:
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        raise SymbolpackError(f"--budget must be a positive number of tokens (got {budget})")


def _session_id(session_id: str | None, root: Path) -> str | None:
    """The session (see session_id.py); None: no session, so no delta."""
    from .session_id import resolve_session_id

    return resolve_session_id(session_id)


def _graph(ws, root: Path, snapshot: Snapshot) -> CallGraph:
    from .index import Index

    index = ws.index if ws.index.root == root.resolve() else Index(root)
    return CallGraph(index, snapshot, graph_cache(state_dir(root) / "graph"))


# --------------------------------------------------------------------------- git

def _git_root(ws) -> Path:
    root = find_repo_root(ws.root)
    if root is None:
        raise SymbolpackError(f"not a git repository: {ws.root} (diff-context compares git revisions; "
                              "run it inside a repository)")
    return root


def _rev(root: Path, rev: str, what: str) -> str:
    out = run_git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
    sha = out.decode().strip()
    if not sha:
        hint = "" if _has_commits(root) else " (the repository has no commits yet)"
        raise SymbolpackError(f"unknown {what} revision {rev!r}{hint}")
    return sha


def _has_commits(root: Path) -> bool:
    return bool(run_git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip())


def _empty_tree(root: Path) -> str:
    """git's empty tree (in this repository's hash): what an unborn HEAD is compared as."""
    return run_git(root, "hash-object", "-t", "tree", "/dev/null").decode().strip()


NO_COMMITS = "no commits yet: against the empty tree"


def _rename_line(c: FileChange) -> str | None:
    """"renamed OLD -> NEW" for a file git saw renamed (said with or without edits)."""
    if c.old_path and c.new_path and c.old_path != c.new_path:
        return f"renamed {c.old_path} -> {c.new_path}"
    return None


def changed_files(root: Path, base: str, head: str | None) -> list[FileChange]:
    """Every path that differs between *base* and *head* (or the working tree, untracked included)."""
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
    _load_contents(root, changes, head)
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


def _load_contents(root: Path, changes: list[FileChange], head: str | None) -> None:
    """Fill old/new bytes: old from git objects; new from git objects (*head*) or the working tree."""
    for c in changes:  # a sensitive file is never read: nothing of it can reach a pack or a cache
        if any(p and is_sensitive(p) for p in (c.old_path, c.new_path)):
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

def _local_id(sym: SymbolSlice, path: str, lang: str) -> str:
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
        junk = len(old_lines) + len(new_lines) > 20000
        matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=junk)
        change.opcodes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if not (is_utf8(change.old) and is_utf8(change.new)):
        if change.opcodes or change.old is None or change.new is None:
            change.withheld = "not UTF-8 text"
            return
    else:
        change.old_lines, change.new_lines = _decode_lines(change.old), _decode_lines(change.new)
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
    new_facts = graph.facts_for_path(change.new_path, change.new)
    if not new_facts.parsed:
        return
    change.parsed = True
    old_facts = graph.facts_for_bytes(change.old_path, change.old) if change.old is not None else None
    lang = new_facts.language or ""
    new_by_local = {_local_id(s, new_facts.path, lang): s for s in new_facts.symbols}
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
            survivor = new_by_local.get(_local_id(old_sym, old_facts.path, old_facts.language or ""))
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


# --------------------------------------------------------------------------- packing

def _signature_block(s: PackSlice) -> str:
    sym = s.sym
    tag = f" [{s.relevance}]"
    if s.mode == "unchanged":
        head = f"-- [UNCHANGED] {sym.path}:{sym.lines[0]}-{sym.lines[1]} {sym.kind} {sym.qualname}{tag}: " \
               "code as given earlier in this session"
    else:
        cut = ""
        if s.cut:
            a, b = sym.lines
            see = f"; see: tldrs read {shlex.quote(sym.path)} --offset {a} --limit {b - a + 1}" \
                if s.relevance == "entry" else ""
            cut = f" (signature only: over the token budget{see})"
        head = f"-- {sym.path}:{sym.lines[0]}-{sym.lines[1]} {sym.kind} {sym.qualname}{tag}{cut}"
    sig = "\n".join("   " + line for line in (sym.signature or sym.name).split("\n"))
    return f"{head}\n{sig}"


def _code_block(s: PackSlice) -> str:
    sym = s.sym
    a, b = sym.lines
    body = "\n".join(f"{n:>6}\t{s.lines[n - 1]}" for n in range(a, b + 1))
    return f"-- {sym.path}:{a}-{b} {sym.kind} {sym.qualname} [{s.relevance}]\n{body}"


def _diff_block(d: dict) -> str:
    if d["diff"] is None:
        return f"-- not shown: {d['summary']}"
    return f"-- diff {d['path']}\n{d['diff']}"


def _cost(block: str) -> int:
    return count_tokens(block + "\n")


def allocate(slices: list[PackSlice], budget: int, held: Callable[[PackSlice], bool], fixed_cost: int,
             code_first: Iterable[PackSlice], code_later: Iterable[PackSlice],
             fallback_cost: Callable[[PackSlice], int] | None = None) -> int:
    """Decide each slice's mode under *budget*; returns the tokens spent on slices.

    *code_first* slices are always kept (changed symbols, the entry). Each starts
    in its cheapest form -- code, or what showing it otherwise costs
    (*fallback_cost*: its signature plus its diff; default: its signature) --
    and is upgraded to code, smallest extra cost first, while the budget allows.
    Other slices then get signatures in order while they fit, and *code_later*
    ones are upgraded to code with what is left.
    """
    remaining = budget - fixed_cost
    for s in slices:
        if held(s):
            s.mode = "unchanged"
    first = list(code_first)
    upgrades = []
    for s in first:
        if s.mode == "unchanged":
            remaining -= s.signature_cost()
            continue
        code = s.code_cost()
        if fallback_cost is not None:
            other = fallback_cost(s)
        else:
            s.cut = True  # priced as it would be drawn
            other = s.signature_cost()
            s.cut = False
        if code <= other:
            s.mode, remaining = "code", remaining - code
        else:
            s.mode, s.cut, remaining = "signature", True, remaining - other
            upgrades.append((code - other, s))
    for extra, s in sorted(upgrades, key=lambda x: x[0]):
        if extra <= remaining:
            s.mode, s.cut, s.upgraded, remaining = "code", False, True, remaining - extra
    placed = {id(s) for s in first}
    kept: list[PackSlice] = []
    for s in slices:
        if id(s) in placed:
            kept.append(s)
            continue
        cost = s.signature_cost()
        if cost <= remaining:
            remaining -= cost
            kept.append(s)
    kept_ids = {id(s) for s in kept}
    for s in code_later:
        if id(s) not in kept_ids or s.mode != "signature" or not s.code_ok:
            continue
        extra = s.code_cost() - s.signature_cost()
        if extra <= remaining:
            s.mode, remaining = "code", remaining - extra
        else:
            s.cut = True
    slices[:] = kept
    return budget - fixed_cost - remaining


def fit(work: list[PackSlice], budget: int, draw: Callable[[], str],
        degrade: Callable[[], bool] | None = None) -> str:
    """Draw the pack; while it is over *budget*, take code, then whole slices, from the
    least relevant optional slice; then take back code that was upgraded from a cheaper
    mandatory form; then let *degrade* make one more step smaller (summarize a diff,
    cut a changed symbol to its signature...; False when it has nothing left).

    The budget is a hard cap (PROTOCOL.md): when nothing is left to degrade, every slice
    goes and what remains is cut at the budget with a marker saying so."""
    text = draw()
    while count_tokens(text) > budget:
        optional = [s for s in work if s.relevance not in ("contains_diff", "entry")]
        if not optional:
            upgraded = [s for s in work if s.upgraded and s.mode == "code"]
            if upgraded:
                victim = max(upgraded, key=lambda s: (s.sym.lines[1] - s.sym.lines[0], s.sym.id))
                victim.mode, victim.cut, victim.upgraded = "signature", True, False
            elif degrade is None or not degrade():
                if work:
                    work.clear()  # nothing shown is then recorded as given
                    text = draw()
                    continue
                return _clip(text, budget)
            text = draw()
            continue
        victim = max(optional, key=lambda s: (s.mode == "code", RELEVANCE_ORDER.get(s.relevance, 9), s.depth,
                                              s.sym.path, s.sym.lines[0]))
        if victim.mode == "code":
            victim.mode, victim.cut = "signature", True
        else:
            work.remove(victim)
        text = draw()
    return text


def _clip(text: str, budget: int) -> str:
    """The last resort of `fit`: the first lines of *text* that fit, and a marker."""
    marker = "[pack cut at the token budget: raise --budget]"
    kept: list[str] = []
    used = count_tokens(marker)
    for line in text.split("\n"):
        cost = count_tokens(line + "\n")
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    out = "\n".join(kept + [marker])
    while out and count_tokens(out) > budget:
        out = out[:-max(1, len(out) // 8)]
    return out


def render(slices: list[PackSlice], diffs: list[dict], footer: str) -> str:
    """Stable first: signatures and stubs, then related code, then changing code and diffs."""
    def key(s: PackSlice):
        return (s.sym.path, s.sym.lines[0], s.sym.id)

    sigs = sorted((s for s in slices if s.mode != "code"), key=key)
    related = sorted((s for s in slices if s.mode == "code" and s.relevance not in ("contains_diff", "entry")), key=key)
    changing = sorted((s for s in slices if s.mode == "code" and s.relevance in ("contains_diff", "entry")), key=key)
    parts = []
    if sigs:
        parts.append("== signatures ==")
        parts += [_signature_block(s) for s in sigs]
    if related or changing:
        parts.append("== code ==")
        parts += [_code_block(s) for s in related + changing]
    if diffs:
        parts.append("== diffs ==")
        seen: set[str] = set()  # files summarized together share one line
        for d in diffs:
            block = _diff_block(d)
            if block not in seen:
                seen.add(block)
                parts.append(block)
    parts.append(footer)
    return "\n".join(parts)


def _cache_stats(slices: Sequence[PackSlice]) -> dict:
    hits = sum(1 for s in slices if s.mode == "unchanged")
    misses = sum(1 for s in slices if s.mode == "code")
    return {"hits": hits, "misses": misses, "hit_rate": round(hits / (hits + misses), 4) if hits + misses else 0.0}


def _order(slices: list[PackSlice]) -> list[PackSlice]:
    return sorted(slices, key=lambda s: (RELEVANCE_ORDER.get(s.relevance, 9), s.depth, s.sym.path, s.sym.lines[0]))


class PackResult(dict):
    """A pack (the protocol object) that also knows how to confirm its delivery:
    front ends that print it call `commit()` after the write (see `Store.commit`)."""

    def __init__(self, data: dict, commit: Callable[[], None] | None = None):
        super().__init__(data)
        self._commit = commit

    def commit(self) -> None:
        if self._commit is not None:
            self._commit()
            self._commit = None


def _with_session(ws, session_id: str | None, delta: bool, fn: Callable[[Callable[[PackSlice], bool]], list[PackSlice]],
                  data_of: Callable[[str], bytes | None], drop: Sequence[str] = ()):
    """Run *fn(held)* inside the session lock, where *held(slice)* says whether the
    agent's copy holds that symbol's whole code exactly as it is now; then write
    what the pack shows into the copy. Returns (slices, commit or None).
    *drop*: paths whose copy the session forgets first (the old names of renamed
    files: a file later made under that name is read plainly, never against the
    record of the file that moved away). Forgetting needs no delivery."""
    store = ws.store_or_none() if delta and session_id is not None else None
    if store is None:
        return fn(lambda s: False), None
    from .sources import split_text_lines
    from .workspace import sha256_hex

    def load(sha: str):
        raw = store.get_object(sha)
        return None if raw is None else split_text_lines(raw.decode("utf-8", "surrogateescape"))

    with store.session(session_id) as session:
        for path in drop:
            session.drop_file(path)
        versions: dict[str, tuple[bytes, str] | None] = {}

        def version(path: str):
            if path not in versions:
                raw = data_of(path)
                versions[path] = None if raw is None else (raw, sha256_hex(raw))
            return versions[path]

        def held(s: PackSlice) -> bool:
            v = version(s.sym.path)
            if v is None:
                return False
            a, b = s.sym.lines
            return session.copy(s.sym.path).holds(a, b, v[1], s.lines, load)

        slices = fn(held)
        from .operations import record_pack_display

        intent = session.new_intent(shared=True)
        shown: dict[str, list[tuple[int, int]]] = {}  # code, verbatim and numbered
        confirmed: dict[str, list[tuple[int, int]]] = {}  # [UNCHANGED] stubs: the copy is right there
        headers: dict[str, list[tuple[int, int]]] = {}  # signatures: shown, but not as numbered lines
        for s in slices:
            a, b = s.sym.lines
            if s.mode == "code":
                shown.setdefault(s.sym.path, []).append((a, b))
            elif s.mode == "unchanged":
                confirmed.setdefault(s.sym.path, []).append((a, b))
            else:
                body = s.sym.body
                headers.setdefault(s.sym.path, []).append((a, body[0] - 1 if body and body[0] > a else a))
        for path in set(shown) | set(confirmed) | set(headers):
            v = version(path)
            if v is None:
                continue
            record_pack_display(store, session, path, v[0], v[1], shown.get(path, []), intent,
                                confirmed=confirmed.get(path, []), headers=headers.get(path, []))
        return slices, ((lambda: store.commit(intent)) if shown else None)


# --------------------------------------------------------------------------- related symbols

def _symbol(graph: CallGraph, symbol_id: str) -> SymbolSlice | None:
    path = symbol_id.split(":", 1)[0]
    facts = graph.facts(path)
    if facts is None or symbol_id not in facts.by_id:  # a path holding ':'
        for p in graph.snap.paths():
            if symbol_id.startswith(p + ":"):
                facts = graph.facts(p)
                break
    return facts.by_id.get(symbol_id) if facts else None


def _data_of(graph: CallGraph, path: str) -> bytes | None:
    facts = graph.facts(path)
    return facts.data if facts else None


def _lines_of(graph: CallGraph, path: str) -> list[str]:
    facts = graph.facts(path)
    return _decode_lines(facts.data) if facts else []


def constructors(graph: CallGraph, cls: SymbolSlice) -> list[SymbolSlice]:
    """What a call of class *cls* runs: `__init__`, `constructor`, a Java/C# constructor."""
    facts = graph.facts(cls.path)
    if facts is None or cls.kind not in CLASS_LIKE:
        return []
    return [s for s in facts.symbols if s.parent == cls.id
            and (s.kind == "constructor" or s.name in ("__init__", "constructor", "initialize"))]


def _targets_of(graph: CallGraph, edges: list[Edge]) -> list[SymbolSlice]:
    """The symbols resolved (or guessed) edges lead to, a class followed by its constructor."""
    out: list[SymbolSlice] = []
    for e in _followable(graph, edges):
        for t in e.targets:
            sym = _symbol(graph, t)
            if sym is not None:
                out.append(sym)
                out.extend(constructors(graph, sym))
    return out


def _followable(graph: CallGraph, edges: list[Edge]) -> list[Edge]:
    names = {e.name for e in edges if e.status == "unresolved" and e.via == "unknown-receiver"}
    if names:
        graph.definitions_named(names)
    out = []
    for e in edges:
        e = graph.guess(e)
        if e.status in ("resolved", "guessed"):
            out.append(e)
    return out


def related_symbols(graph: CallGraph, changed: Sequence[SymbolSlice]) -> list[tuple[SymbolSlice, str]]:
    """One hop of callers and callees of *changed*, and the tests that reach or name them."""
    changed_ids = {s.id for s in changed}
    found: dict[str, tuple[SymbolSlice, str]] = {}

    def add(sym: SymbolSlice | None, relevance: str) -> None:
        if sym is None or sym.id in changed_ids:
            return
        if is_test_path(sym.path):
            relevance = "test"
        old = found.get(sym.id)
        if old is None or RELEVANCE_ORDER[relevance] < RELEVANCE_ORDER[old[1]]:
            found[sym.id] = (sym, relevance)

    for e in graph.callers(changed):
        if e.caller:
            add(_symbol(graph, e.caller), "caller")
    callee_edges = []
    for s in changed:
        callee_edges += graph.callees(s)
    for t in _targets_of(graph, callee_edges):
        add(t, "callee")
    names = {s.name for s in changed if len(s.name) >= 4 and s.kind in ("function", "method", "class", "struct")}
    for path in graph.grep(names) if names else ():
        if not is_test_path(path):
            continue
        facts = graph.facts(path)
        for t in facts.symbols if facts else ():
            low = t.name.lower()
            if low.startswith("test") and any(n.lower() in low for n in names):
                add(t, "test")
    return list(found.values())[:MAX_RELATED]


# --------------------------------------------------------------------------- diff-context

def diff_context(ws, base: str = "HEAD", head: str | None = None, session_id: str | None = None,
                 delta: bool = True, budget: int = DEFAULT_BUDGET, confirm: bool = True) -> PackResult:
    """The diff-context pack (PROTOCOL.md) of the working tree, or of *head*, against *base*.
    *confirm*: as for `operations.read_file` (False: call `.commit()` after delivery).

    `budget` is a hard cap on `text`. A file whose changes cannot be shown -- not UTF-8,
    sensitive, or too big for the budget (a deleted file, a rewritten lockfile) -- is
    summarized instead of diffed: its `diffs` entry is
    `{"path": ..., "diff": null, "summary": "<the line the text shows>"}`, the summary naming
    the path, its +added/-removed line counts, the symbols it changes or removes, and the
    command that shows it (`git diff BASE -- 'path'`). When even the one-line summaries do
    not fit, several files share one line ("N more changed files: a, b, c; see: ...") and
    each of their entries carries that line as its summary.
    """
    check_budget(budget)
    root = _git_root(ws)
    unborn = base == "HEAD" and not _has_commits(root)  # no commits yet: everything is added
    base_sha = _empty_tree(root) if unborn else _rev(root, base, "base")
    head_sha = _rev(root, head, "head") if head else None
    sid = _session_id(session_id, root) if delta else None
    changes = changed_files(root, base_sha, head_sha)
    snapshot: Snapshot = GitTreeSnapshot(root, head_sha) if head_sha else WorkTreeSnapshot(root)
    graph = _graph(ws, root, snapshot)
    try:
        for c in changes:
            if c.new_path and c.new is not None:
                snapshot.seed(c.new_path, c.new)
            analyze(graph, c)
        changes = [c for c in changes if c.note is not None or c.opcodes or c.withheld]
        label = (f"{base}..{head}" if head else base) + (f" ({NO_COMMITS})" if unborn else "")
        if not changes:
            text = f"no changes against {label}" if not head else f"no changes between {base} and {head}"
            return PackResult({"v": 1, "base": base, "session_id": sid, "budget_used": count_tokens(text), "slices": [],
                               "unchanged": [], "diffs": [], "cache_stats": _cache_stats([]), "text": text})
        changed_ids: dict[str, SymbolSlice] = {}
        for c in changes:
            if c.parsed:
                facts = graph.facts_for_path(c.new_path, c.new)
                for sid_ in list(c.new_owner.values()) + list(c.old_owner.values()):
                    changed_ids[sid_] = facts.by_id[sid_]
        changed = sorted(changed_ids.values(), key=lambda s: (s.path, s.lines[0]))
        related = related_symbols(graph, changed) if changed else []
        lines_cache: dict[str, list[str]] = {c.new_path: c.new_lines for c in changes if c.new_path}

        def lines(path: str) -> list[str]:
            if path not in lines_cache:
                lines_cache[path] = _lines_of(graph, path)
            return lines_cache[path]

        slices = [PackSlice(s, "contains_diff", lines(s.path)) for s in changed]
        slices += [PackSlice(s, rel, lines(s.path), depth=1, code_ok=s.kind not in CLASS_LIKE)
                   for s, rel in related]
        slices = _order(slices)
        pack_diffs: list[dict] = []

        change_at = {c.new_path: c for c in changes if c.parsed}
        by_path = {c.path: c for c in changes}
        everything = set(changed_ids)
        revs = [r if not r.startswith("-") and not (unborn and r == base) else sha
                for r, sha in ((base, base_sha), (head, head_sha)) if r]
        summarized: set[str] = set()  # files whose changes are one summary line instead of a diff
        grouped: list[str] = []  # files named only in the shared "N more changed files" line
        group_names = [len(changes)]  # how many of those the shared line names
        summaries: dict[str, str] = {}
        compact: list[bool] = []  # [True]: the footer says only what is needed

        def summary_of(c: FileChange) -> str:
            if c.path not in summaries:
                if c.withheld == "sensitive":
                    why, see = "sensitive, not shown", None
                elif c.withheld:
                    why, see = f"{c.withheld}, not shown", _see_command(c, revs)
                else:
                    why, see = "over the token budget", _see_command(c, revs)
                summaries[c.path] = _file_summary(c, why, _symbol_names(graph, c), see)
            return summaries[c.path]

        def group_line() -> str:
            in_order = [f"{c.old_path} -> {c.new_path}" if _rename_line(c) else c.path
                        for c in changes if c.path in grouped]
            named = in_order[:group_names[0]]
            more = len(grouped) - len(named)
            listed = ", ".join(named) + (f" and {more} more" if more else "")
            see = "git diff --stat " + " ".join(shlex.quote(r) for r in revs)
            if any(by_path[p].untracked for p in grouped):
                see += "; git status --short"
            files = f"{len(grouped)} changed file{'s' if len(grouped) > 1 else ''}"
            return f"{files}{': ' + listed if named else ''}; over the token budget; see: {see}"

        def diffs_for(visible: set[str]) -> list[dict]:
            return _diffs(changes, visible, summary_of, summarized, set(grouped), group_line() if grouped else "")

        base_diff_cost: dict[str, int] = {}
        fallback_memo: dict[str, int] = {}

        def fallback_cost(s: PackSlice) -> int:
            """Tokens to show a changed symbol as signature + diff instead of code (signature
            alone when its file is summarized: the summary names it)."""
            s.cut = True  # priced as it would be drawn
            sig = s.signature_cost()
            s.cut = False
            if s.sym.path in summarized:
                return sig
            if s.sym.id not in fallback_memo:
                c = change_at[s.sym.path]
                others = everything - {s.sym.id}
                without = render_diff(c, lambda n: c.new_owner.get(n) in others,
                                      lambda o: c.old_owner.get(o) in others)
                if c.path not in base_diff_cost:
                    with_ = render_diff(c, lambda n: c.new_owner.get(n) in everything,
                                        lambda o: c.old_owner.get(o) in everything)
                    base_diff_cost[c.path] = count_tokens(with_ or "")
                fallback_memo[s.sym.id] = count_tokens(without or "") - base_diff_cost[c.path]
            return sig + fallback_memo[s.sym.id]

        def summarize_to_fit(work: list[PackSlice], mandatory: list[dict]) -> int:
            """Summarize the files that cost most until the changed symbols' cheapest forms,
            the diffs no slice can show and the frame fit; returns the fixed cost left."""
            diff_cost = {d["path"]: _cost(_diff_block(d)) for d in mandatory}
            mine: dict[str, list[PackSlice]] = {}
            for s in work:
                if s.relevance == "contains_diff":
                    mine.setdefault(s.sym.path, []).append(s)

            def slices_cost(path: str) -> int:
                return sum(s.signature_cost() if s.mode == "unchanged" else min(s.code_cost(), fallback_cost(s))
                           for s in mine.get(path, ()))

            def line_cost(path: str) -> int:
                return _cost(_diff_block({"diff": None, "summary": summary_of(by_path[path])}))

            frame = count_tokens(footer(work)) + HEADER_TOKENS
            paths = [p for p in dict.fromkeys([*diff_cost, *mine]) if not by_path[p].withheld]
            fixed = frame + sum(diff_cost[p] for p in diff_cost if by_path[p].withheld)
            shown = {p: diff_cost.get(p, 0) + slices_cost(p) for p in paths}
            total = fixed + sum(shown.values())
            if total > budget:
                gains = {}
                for p in paths:  # what summarizing each file saves (it depends on that file only)
                    summarized.add(p)
                    gains[p] = shown[p] - line_cost(p) - slices_cost(p)
                    summarized.discard(p)
                for p in sorted(paths, key=lambda p: (-gains[p], p)):
                    if total <= budget or gains[p] <= 0:
                        break
                    summarized.add(p)
                    total -= gains[p]
            return fixed + sum(line_cost(p) if p in summarized else diff_cost.get(p, 0) for p in paths)

        def degrade(work: list[PackSlice]) -> bool:
            """One more step down when the pack is still over the budget (see `fit`)."""
            full = [d for d in pack_diffs if d["diff"] is not None and d["path"] not in summarized
                    and by_path[d["path"]].note is None]
            if full:
                summarized.add(max(full, key=lambda d: (len(d["diff"]), d["path"]))["path"])
                return True
            code = [s for s in work if s.relevance == "contains_diff" and s.mode == "code"]
            if code:  # a changed symbol too big even for its own diff: signature + summary
                victim = max(code, key=lambda s: (s.code_cost(), s.sym.id))
                victim.mode, victim.cut = "signature", True
                summarized.add(victim.sym.path)
                return True
            stubs = [s for s in work if s.relevance == "contains_diff"]
            if stubs:  # its file's summary names it
                victim = max(stubs, key=lambda s: (s.signature_cost(), s.sym.id))
                summarized.add(victim.sym.path)
                work.remove(victim)
                return True
            single = [d for d in pack_diffs if d["path"] not in grouped]
            if single:  # sensitive and non-UTF-8 files keep their own line longest
                victim = max(single, key=lambda d: (not by_path[d["path"]].withheld,
                                                    len(d["summary"] or d["diff"] or ""), d["path"]))
                grouped.append(victim["path"])
                return True
            if not compact:
                compact.append(True)  # the short footer
                return True
            if group_names[0] > 0:
                group_names[0] = min(group_names[0], len(grouped)) // 2
                return True
            return False

        def decide(held: Callable[[PackSlice], bool]) -> list[PackSlice]:
            work = list(slices)
            memo: dict[str, bool] = {}

            def held_once(s: PackSlice) -> bool:
                if s.sym.id not in memo:
                    memo[s.sym.id] = held(s)
                return memo[s.sym.id]

            for s in work:
                if s.relevance == "contains_diff" and held_once(s):
                    s.mode = "unchanged"
            fixed = summarize_to_fit(work, _diffs(changes, everything, summary_of))  # what no slice can show
            allocate(work, budget, held_once, fixed, [s for s in work if s.relevance == "contains_diff"],
                     [s for s in work if s.relevance != "contains_diff"], fallback_cost)

            def draw() -> str:
                visible = {s.sym.id for s in work if s.relevance == "contains_diff" and s.mode in ("code", "unchanged")}
                pack_diffs[:] = diffs_for(visible)
                return render(work, pack_diffs, footer(work))

            texts[:] = [fit(work, budget, draw, lambda: degrade(work))]
            return work

        def footer(work: list[PackSlice]) -> str:
            counts: dict[str, int] = {}
            for s in work:
                counts[s.relevance] = counts.get(s.relevance, 0) + 1
            summary = ", ".join(f"{n} {rel}" for rel, n in sorted(counts.items(), key=lambda kv: RELEVANCE_ORDER[kv[0]]))
            if compact:
                return f"== diff-context against {label}: budget {budget} =="
            stubs = sum(1 for s in work if s.mode == "unchanged")
            not_shown = sum(1 for d in pack_diffs if d["diff"] is None)
            return (f"== diff-context against {label}: {len(changes)} changed files; {summary or 'no symbols'}; "
                    f"{len(pack_diffs) - not_shown} diffs; " + (f"{not_shown} not shown; " if not_shown else "")
                    + f"{stubs} [UNCHANGED]; budget {budget} ==")

        texts: list[str] = []
        gone = [c.old_path for c in changes if _rename_line(c)]  # the old name's copy is not this file's
        final, commit = _with_session(ws, sid, delta, decide, lambda path: _data_of(graph, path), drop=gone)
        if confirm and commit is not None:
            commit()
        text = texts[0]
        unchanged = [s.sym.id for s in final if s.mode == "unchanged"]
        return PackResult({"v": 1, "base": base, "session_id": sid, "budget_used": count_tokens(text),
                           "slices": [s.to_json() for s in final], "unchanged": unchanged, "diffs": pack_diffs,
                           "cache_stats": _cache_stats(final), "text": text}, None if confirm else commit)
    finally:
        if graph.cache:
            graph.cache.close()


def _diffs(changes: Sequence[FileChange], visible: set[str], summary_of: Callable[[FileChange], str],
           summarized: set[str] = frozenset(), grouped: set[str] = frozenset(), group_line: str = "") -> list[dict]:
    """The `diffs` entries: for each file, the changed lines no slice in *visible* shows, as
    a unified diff, or as a summary line when the file is withheld or *summarized*."""
    out = []
    for c in changes:
        if c.withheld or c.path in summarized or c.path in grouped:
            if c.withheld or c.note is not None or _hidden(c, visible):
                out.append({"path": c.path, "diff": None,
                            "summary": group_line if c.path in grouped else summary_of(c)})
            elif _rename_line(c) and c.path not in grouped:  # the group line names it "old -> new"
                out.append({"path": c.path, "diff": _rename_line(c)})
            continue
        if c.parsed:
            diff = render_diff(c, lambda n, c=c: c.new_owner.get(n) in visible,
                               lambda o, c=c: c.old_owner.get(o) in visible)
        else:
            diff = render_diff(c)
        renamed = _rename_line(c) if c.note is None else None  # a note says the rename itself
        if renamed:
            diff = renamed if diff is None else f"{renamed}\n{diff}"
        if diff is not None:
            out.append({"path": c.path, "diff": diff})
    return out


def _hidden(c: FileChange, visible: set[str]) -> bool:
    """Does *c* change a line that no slice in *visible* shows?"""
    if not c.parsed:
        return bool(c.opcodes)
    for _, i1, i2, j1, j2 in c.opcodes:
        if any(c.new_owner.get(n) not in visible for n in range(j1 + 1, j2 + 1)) or \
                any(c.old_owner.get(o) not in visible for o in range(i1 + 1, i2 + 1)):
            return True
    return False


def _see_command(c: FileChange, revs: Sequence[str]) -> str:
    """The shell command that shows *c* in full."""
    if c.untracked:
        return f"git diff --no-index -- /dev/null {shlex.quote(c.path)}"
    paths = " ".join(shlex.quote(p) for p in dict.fromkeys(p for p in (c.old_path, c.new_path) if p))
    return f"git diff {' '.join(shlex.quote(r) for r in revs)} -- {paths}"


def _file_summary(c: FileChange, why: str, names: str, see: str | None) -> str:
    verb = {"A": "added", "D": "deleted"}.get(c.status, "changed")
    if c.old_path and c.new_path and c.old_path != c.new_path:
        verb = f"renamed {c.old_path} -> {c.new_path}"
    added = sum(j2 - j1 for _, _, _, j1, j2 in c.opcodes)
    removed = sum(i2 - i1 for _, i1, i2, _, _ in c.opcodes)
    parts = [f"{c.path}: {verb}" + (f", +{added} -{removed} lines" if c.opcodes else "")]
    if names:
        parts.append(names)
    parts.append(why)
    if see:
        parts.append(f"see: {see}")
    return "; ".join(parts)


SUMMARY_NAMES = 6  # symbols a summary names before "+N more"


def _symbol_names(graph: CallGraph, c: FileChange) -> str:
    """"changed: a, b; removed: c" for a summary (nothing for withheld or unparsed files)."""
    if c.withheld or c.note is not None:
        return ""
    new_facts = graph.facts_for_path(c.new_path, c.new) if c.new_path and c.new is not None else None
    old_facts = graph.facts_for_bytes(c.old_path, c.old) if c.old_path and c.old is not None else None
    changed = []
    if c.parsed and new_facts is not None:
        ids = dict.fromkeys([*c.new_owner.values(), *c.old_owner.values()])
        changed = [new_facts.by_id[i].qualname for i in ids if i in new_facts.by_id]
    removed = []
    if old_facts is not None and old_facts.parsed:
        kept = set()
        if new_facts is not None and new_facts.parsed:
            kept = {_local_id(s, new_facts.path, new_facts.language or "") for s in new_facts.symbols}
        removed = [s.qualname for s in old_facts.symbols
                   if _local_id(s, old_facts.path, old_facts.language or "") not in kept]

    def listed(what: str, names: list[str]) -> str:
        more = len(names) - SUMMARY_NAMES
        return f"{what}: {', '.join(names[:SUMMARY_NAMES])}" + (f" (+{more} more)" if more > 0 else "")

    return "; ".join(listed(w, n) for w, n in (("changed", changed), ("removed", removed)) if n)


# --------------------------------------------------------------------------- context

def resolve_entry(ws, graph: CallGraph, entry: str) -> SymbolSlice:
    """ENTRY as a symbol: an id, `file.py:func`, or a (fuzzy) qualname anywhere."""
    from .index import walk
    from .lookup import resolve

    root = graph.snap.root if hasattr(graph.snap, "root") else ws.root
    if ":" in entry:
        path_part, _, rest = entry.partition(":")
        rel = _relative(root, path_part)
        if rel is not None and graph.snap.exists(rel):
            if is_sensitive(rel):
                raise SymbolpackError(f"{rel} is a sensitive file: symbolpack neither shows nor stores it")
            facts = graph.facts(rel)
            if facts is None or not facts.parsed:
                raise SymbolpackError(f"no symbols in {rel} (no parser handles it)")
            lang, _, local = rest.partition(":")
            if lang == facts.language and local:
                rest = local
            if not rest:
                _whole_file_error(rel)
            return resolve(rest, list(facts.symbols), where=rel)
    files = ws.index.files(walk(root, root).files)
    symbols = [s for f in files for s in f.symbols]
    if not symbols:
        raise SymbolpackError(f"no symbols found under {root}")
    return resolve(entry, symbols)


def _whole_file_error(rel: str):
    raise SymbolpackError(f"name a symbol after the file: {rel}:NAME")


def _relative(root: Path, path_part: str) -> str | None:
    p = Path(path_part)
    if not p.is_absolute():
        cwd_rel = (Path.cwd() / p).resolve()
        try:
            return cwd_rel.relative_to(root).as_posix() if cwd_rel.exists() else p.as_posix()
        except ValueError:
            return p.as_posix()
    try:
        return p.resolve().relative_to(root).as_posix()
    except ValueError:
        return None


def context_pack(ws, entry: str, depth: int = DEFAULT_DEPTH, budget: int = DEFAULT_BUDGET, callers: bool = False,
                 session_id: str | None = None, delta: bool = True, confirm: bool = True) -> PackResult:
    """The entry symbol with code, its callees (and callers) breadth-first to *depth*, under *budget*.
    *confirm*: as for `operations.read_file` (False: call `.commit()` after delivery)."""
    check_budget(budget)
    if depth < 0:
        raise SymbolpackError(f"--depth must be 0 or more (got {depth})")
    root = ws.root
    sid = _session_id(session_id, root) if delta else None
    graph = _graph(ws, root, WorkTreeSnapshot(root))
    try:
        start = resolve_entry(ws, graph, entry)
        found: dict[str, tuple[SymbolSlice, str, int]] = {start.id: (start, "entry", 0)}
        unresolved: list[dict] = []
        down, up = [start], ([start] if callers else [])  # callees of callees, callers of callers
        for d in range(1, depth + 1):
            edges: list[Edge] = []
            for sym in down:
                own = graph.callees(sym, include_nested=sym.kind in CLASS_LIKE)
                if d == 1:
                    unresolved += [{"caller": e.caller, "line": e.line, "name": e.name, "receiver": e.receiver,
                                    "status": e.status, "candidates": list(e.targets)}
                                   for e in (graph.guess(x) for x in own) if e.status in ("unresolved", "ambiguous")]
                edges += own
            callee_syms = _targets_of(graph, edges)
            caller_syms = [_symbol(graph, e.caller) for e in graph.callers(up) if e.caller] if up else []
            down, up = [], []
            for syms, rel, bucket in ((callee_syms, "callee", down), (caller_syms, "caller", up)):
                for sym in syms:
                    if sym is None or sym.id in found or len(found) > MAX_RELATED:
                        continue
                    found[sym.id] = (sym, rel, d)
                    if sym.kind not in CLASS_LIKE:  # a called class: its constructor was added
                        bucket.append(sym)
            if not down and not up:
                break
        slices = [PackSlice(s, rel, _lines_of(graph, s.path), depth=dd,
                            code_ok=rel == "entry" or s.kind not in CLASS_LIKE) for s, rel, dd in found.values()]
        slices = sorted(slices, key=lambda s: (s.depth, RELEVANCE_ORDER[s.relevance], s.sym.path, s.sym.lines[0]))

        shown_unresolved = sorted({f"{(u['receiver'] + '.') if u['receiver'] else ''}{u['name']}" for u in unresolved})
        extra = f"; unresolved calls: {', '.join(shown_unresolved[:20])}" if shown_unresolved else ""

        def footer(work: list[PackSlice]) -> str:
            stubs = sum(1 for s in work if s.mode == "unchanged")
            return (f"== context of {start.id}: depth {depth}, {len(work)} symbols, {stubs} [UNCHANGED]; "
                    f"budget {budget}{extra} ==")

        texts: list[str] = []

        def decide(held: Callable[[PackSlice], bool]) -> list[PackSlice]:
            work = list(slices)
            allocate(work, budget, held, count_tokens(footer(work)) + HEADER_TOKENS,
                     [s for s in work if s.relevance == "entry"], [s for s in work if s.depth == 1])
            def degrade() -> bool:  # the entry's code does not fit: its signature and how to read it
                code = [s for s in work if s.relevance == "entry" and s.mode == "code"]
                for s in code:
                    s.mode, s.cut = "signature", True
                return bool(code)

            texts[:] = [fit(work, budget, lambda: render(work, [], footer(work)), degrade)]
            return work

        final, commit = _with_session(ws, sid, delta, decide, lambda path: _data_of(graph, path))
        if confirm and commit is not None:
            commit()
        text = texts[0]
        unchanged = [s.sym.id for s in final if s.mode == "unchanged"]
        return PackResult({"v": 1, "entry": start.id, "depth": depth, "session_id": sid, "budget_used": count_tokens(text),
                "slices": [s.to_json() for s in final], "unchanged": unchanged, "unresolved": unresolved,
                "cache_stats": _cache_stats(final), "text": text}, None if confirm else commit)
    finally:
        if graph.cache:
            graph.cache.close()
