"""Context packs: the symbols an agent needs for one entry point or one change.

Two front doors share one packer:

* `context_pack(ws, ENTRY)`: the entry symbol and a breadth-first walk of its
  callees (and callers, on request) through `callgraph`;
* `diff_context(ws, base, head)`: the symbols a change touches, each changed
  line mapped to the innermost symbol whose real span holds it, plus one hop
  of callers and callees and the tests that exercise them.

The packer spends a token budget in a fixed order (changed code, then
signatures of related symbols, then their code) and applies the session
delta: a symbol whose whole code the agent's copy holds as it is now is sent
as a one-line stub marked `[UNCHANGED]`. Only code is ever recorded as given;
a signature or a budget-cut slice is not.

A diff-context pack is sized by its change, not by its budget (a cap): a long
changed symbol is sent as a *window* (its signature, the lines around the
change, markers naming the hidden lines and the request that shows
them), or as its signature and diff when one window would hold far more; no
line is sent twice (a changed symbol inside another one's code is merged into
it); the symbols around the change get at most a share of what the change
costs as a diff, signatures first, and a test related only by its name never
gets code. A window is all the copy records of its symbol, so the symbol is
not a stub later unless the copy came to hold all of it.

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

This module is the front door; the parts live in `changes` (git's changes and
the symbol owning each changed line), `related` (callers, callees, tests, the
entry walk), `packing` (forms, budget, rendering, the session's copy) and
`diffpack` (the diff-context pack: its diffs and summaries).
"""

from __future__ import annotations

from pathlib import Path

from ..packs.callgraph import CallGraph, GitTreeSnapshot, Snapshot, WorkTreeSnapshot
from ..packs.changes import (
    NO_COMMITS,
    FileChange,
    analyze,
    changed_files,
    empty_tree,
    git_root,
    has_commits,
    rename_line,
    render_diff,
    resolve_rev,
)
from ..packs.diffpack import DiffPack
from ..packs.packing import HEADER_TOKENS, Pack, PackResult, PackSlice, allocate, cache_stats, order, with_session
from ..packs.related import RELEVANCE_ORDER, call_walk, data_of, is_test_path, lines_of, related_symbols, resolve_entry
from ..engine.symbols import CLASS_LIKE, SymbolSlice
from ..base.tokens import count_tokens
from ..base.errors import UsageError
from ..reads.answers import new_answer_id
from ..reads.hints import CLI, Hints, hints_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Set as AbstractSet
    from typing import Sequence

    from .operations import Workspace

__all__ = ["DEFAULT_BUDGET", "DEFAULT_DEPTH", "FileChange", "PackResult", "PackSlice", "changed_files",
           "check_budget", "context_pack", "diff_context", "is_test_path", "render_diff"]

DEFAULT_BUDGET = 8000
DEFAULT_DEPTH = 2


def check_budget(budget: int, hints: Hints = CLI) -> None:
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        raise UsageError(f"{hints.option('budget')} must be a positive number of tokens (got {budget})")


def _session_id(ws, session_id: str | None) -> str | None:
    """The session (see session_id.py); None: no session, so no delta."""
    from ..state.session_id import resolve_session_id

    return resolve_session_id(session_id, ws.settings)


def _graph(ws, root: Path, snapshot: Snapshot) -> CallGraph:
    return ws.call_graph(root, snapshot)  # warm in a resident engine (resident.py)


# --------------------------------------------------------------------------- diff-context

def _version(answer: dict | None) -> dict:
    """A pack kept as an answer is protocol v2: it names its id (and what it leans on)."""
    return {"v": 1} if answer is None else {"v": 2, **answer}


def diff_context(ws: Workspace, base: str = "HEAD", head: str | None = None, session_id: str | None = None,
                 delta: bool = True, budget: int = DEFAULT_BUDGET, confirm: bool = True,
                 front: str | None = None, answer_id: str | None = None,
                 present: Sequence[str] | AbstractSet[str] | None = None) -> PackResult:
    """The diff-context pack (PROTOCOL.md) of the working tree, or of *head*, against *base*.
    *confirm*, *front*, *answer_id*, *present*: as for `operations.read_file` (False: call
    `.commit()` after delivery; the answers in the model's context: stubs only for code
    they hold; then the pack is kept as an answer, v2).

    `budget` is a hard cap on `text`. A file whose changes cannot be shown -- not UTF-8,
    sensitive, or too big for the budget (a deleted file, a rewritten lockfile) -- is
    summarized instead of diffed: its `diffs` entry is
    `{"path": ..., "diff": null, "summary": "<the line the text shows>"}`, the summary naming
    the path, its +added/-removed line counts, the symbols it changes or removes, and the
    command that shows it (`git diff BASE -- 'path'`). When even the one-line summaries do
    not fit, several files share one line ("N more changed files: a, b, c; see: ...") and
    each of their entries carries that line as its summary.
    """
    hints = hints_for(front)
    check_budget(budget, hints)
    root = git_root(ws)
    unborn = base == "HEAD" and not has_commits(root)  # no commits yet: everything is added
    base_sha = empty_tree(root) if unborn else resolve_rev(root, base, "base")
    head_sha = resolve_rev(root, head, "head") if head else None
    sid = _session_id(ws, session_id) if delta else None
    changes = changed_files(root, base_sha, head_sha, ws.settings.sensitive)
    snapshot: Snapshot = GitTreeSnapshot(root, head_sha) if head_sha else WorkTreeSnapshot(root)
    graph = _graph(ws, root, snapshot)
    try:
        for c in changes:
            if c.new_path and c.new is not None:
                graph.snap.seed(c.new_path, c.new)
            analyze(graph, c)
        changes = [c for c in changes if c.note is not None or c.opcodes or c.withheld]
        label = (f"{base}..{head}" if head else base) + (f" ({NO_COMMITS})" if unborn else "")
        if not changes:
            text = f"no changes against {label}" if not head else f"no changes between {base} and {head}"
            told = None if sid is None or (present is None and answer_id is None) else \
                {"answer_id": answer_id or new_answer_id(), **({} if present is None else {"leans_on": []})}
            return PackResult({**_version(told), "base": base, "session_id": sid, "budget_used": count_tokens(text),
                               "slices": [],
                               "unchanged": [], "diffs": [], "cache_stats": cache_stats([]), "text": text})
        changed_ids: dict[str, SymbolSlice] = {}
        for c in changes:
            if c.parsed and c.new is not None:  # parsed: its new side exists
                facts = graph.facts_for_path(c.path, c.new)
                for sid_ in list(c.new_owner.values()) + list(c.old_owner.values()):
                    changed_ids[sid_] = facts.by_id[sid_]
        changed = sorted(changed_ids.values(), key=lambda s: (s.path, s.lines[0]))
        related = related_symbols(graph, changed) if changed else []
        lines_cache: dict[str, list[str]] = {c.new_path: c.new_lines for c in changes if c.new_path}

        def lines(path: str) -> list[str]:
            if path not in lines_cache:
                lines_cache[path] = lines_of(graph, path)
            return lines_cache[path]

        slices = [PackSlice(s, "contains_diff", lines(s.path)) for s in changed]
        slices += [PackSlice(s, rel, lines(s.path), depth=d, code_ok=d == 1 and s.kind not in CLASS_LIKE)
                   for s, rel, d in related]  # a test found by its name only: a signature
        revs = [r if not r.startswith("-") and not (unborn and r == base) else sha
                for r, sha in ((base, base_sha), (head, head_sha)) if r and sha]
        pack = DiffPack(order(slices), budget, graph, changes, set(changed_ids), revs, label, hints)
        gone = [c.old_path for c in changes if rename_line(c) and c.old_path]  # the old name's copy is not this file's
        final, commit, answer = with_session(ws, sid, delta, pack.decide, lambda path: data_of(graph, path),
                                             drop=gone, present=present, answer_id=answer_id)
        if confirm and commit is not None:
            commit()
        text = pack.text
        unchanged = [s.sym.id for s in final if s.mode == "unchanged"]
        return PackResult({**_version(answer), "base": base, "session_id": sid, "budget_used": count_tokens(text),
                           "slices": [s.to_json() for s in final], "unchanged": unchanged, "diffs": pack.pack_diffs,
                           "cache_stats": cache_stats(final), "text": text}, None if confirm else commit)
    finally:
        ws.release_graph(graph)


# --------------------------------------------------------------------------- context

class EntryPack(Pack):
    """One `context` pack: the entry with code first, then its depth-1 neighbours' code."""

    def __init__(self, slices: list[PackSlice], budget: int, start: SymbolSlice, hints: Hints = CLI):
        super().__init__(slices, budget, hints)
        self.start = start

    def footer(self) -> str:
        # lean on purpose: the slices carry paths and lines; the JSON keeps the
        # unresolved calls and the budget for whoever wants them
        stubs = sum(1 for s in self.work if s.mode == "unchanged")
        held = f", {stubs} [UNCHANGED]" if stubs else ""
        return f"== context of {self.start.qualname or self.start.name}: {len(self.work)} symbols{held} =="

    def degrade(self) -> bool:  # the entry's code does not fit: its signature and how to read it
        code = [s for s in self.work if s.relevance == "entry" and s.mode == "code"]
        for s in code:
            s.mode, s.cut = "signature", True
        return bool(code)

    def decide(self, held) -> list[PackSlice]:
        work = self.work = list(self.slices)
        allocate(work, self.budget, held, count_tokens(self.footer()) + HEADER_TOKENS,
                 [s for s in work if s.relevance == "entry"], [s for s in work if s.depth == 1])
        self.fit()
        return work


def context_pack(ws: Workspace, entry: str, depth: int = DEFAULT_DEPTH, budget: int = DEFAULT_BUDGET, callers: bool = False,
                 session_id: str | None = None, delta: bool = True, confirm: bool = True,
                 front: str | None = None, answer_id: str | None = None,
                 present: Sequence[str] | AbstractSet[str] | None = None) -> PackResult:
    """The entry symbol with code, its callees (and callers) breadth-first to *depth*, under *budget*.
    *confirm*, *front*, *answer_id*, *present*: as for `diff_context`."""
    hints = hints_for(front)
    check_budget(budget, hints)
    if depth < 0:
        raise UsageError(f"{hints.option('depth')} must be 0 or more (got {depth})")
    root = ws.root
    sid = _session_id(ws, session_id) if delta else None
    graph = _graph(ws, root, WorkTreeSnapshot(root))
    try:
        start = resolve_entry(ws, graph, entry)
        found, unresolved = call_walk(graph, start, depth, callers)
        slices = [PackSlice(s, rel, lines_of(graph, s.path), depth=dd,
                            code_ok=rel == "entry" or s.kind not in CLASS_LIKE) for s, rel, dd in found.values()]
        slices = sorted(slices, key=lambda s: (s.depth, RELEVANCE_ORDER[s.relevance], s.sym.path, s.sym.lines[0]))
        pack = EntryPack(slices, budget, start, hints)
        final, commit, answer = with_session(ws, sid, delta, pack.decide, lambda path: data_of(graph, path),
                                             present=present, answer_id=answer_id)
        if confirm and commit is not None:
            commit()
        text = pack.text
        unchanged = [s.sym.id for s in final if s.mode == "unchanged"]
        return PackResult({**_version(answer), "entry": start.id, "depth": depth, "session_id": sid, "budget_used": count_tokens(text),
                "slices": [s.to_json() for s in final], "unchanged": unchanged, "unresolved": unresolved,
                "cache_stats": cache_stats(final), "text": text}, None if confirm else commit)
    finally:
        ws.release_graph(graph)
