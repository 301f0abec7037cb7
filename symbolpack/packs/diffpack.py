"""The diff-context pack: a change's symbols, and the diffs and summaries of what no slice shows.

`DiffPack` decides one pack of one change under its budget. Every changed line
is visible -- in a slice with code, in an `[UNCHANGED]` slice the session's copy
holds, or in a unified diff in `diffs` -- or its file is *summarized* by name:
whatever a slice cannot show (a file no parser handles, lines outside any
symbol, a deleted symbol or file, a changed symbol the budget could not hold)
goes to `diffs` while it fits; what does not fit becomes one summary line (path,
+added/-removed lines, the symbols it changes or removes, the command that shows
it), then several files share one line. Files symbolpack must never show
(sensitive, not UTF-8) are always summaries.
"""

from __future__ import annotations

from .callgraph import CallGraph
from .changes import FileChange, local_id, rename_line, render_diff
from .packing import HEADER_TOKENS, Pack, PackSlice, allocate, block_cost, diff_block, window_around
from ..base.tokens import count_tokens
from ..reads.hints import CLI, Hints

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Callable, Collection, Sequence

# What a pack spends on symbols around the change (callers, callees, tests), against
# what the change itself costs as a unified diff: the budget is a cap, not a target.
RELATED_SHARE = 0.15
RELATED_FLOOR = 40  # tokens: a signature or two even around a one-line change
RELATED_CAP = 300  # tokens: however big the change
# A changed symbol's code (or window) is shown instead of its signature and diff when it
# costs at most this much more: the agent then holds those lines, numbered.
UPGRADE_SHARE = 0.25
UPGRADE_FLOOR = 25


class DiffPack(Pack):
    """One diff-context pack: *changes* (analyzed), the *slices* of their symbols and the
    related ones, *everything* (the changed symbols' ids), *revs* (the revisions a "see:"
    command names) and the *label* of the comparison."""

    def __init__(self, slices: list[PackSlice], budget: int, graph: CallGraph, changes: list[FileChange],
                 everything: set[str], revs: list[str], label: str, hints: Hints = CLI):
        super().__init__(slices, budget, hints)
        self.graph = graph
        self.changes = changes
        self.everything = everything
        self.revs = revs
        self.label = label
        self.change_at = {c.new_path: c for c in changes if c.parsed}
        self.by_path = {c.path: c for c in changes}
        self.pack_diffs: list[dict] = []
        self.summarized: set[str] = set()  # files whose changes are one summary line instead of a diff
        self.grouped: list[str] = []  # files named only in the shared "N more changed files" line
        self.group_names = len(changes)  # how many of those the shared line names
        self.summaries: dict[str, str] = {}
        self.compact = False  # the footer says only what is needed
        self._base_diff_cost: dict[str, int] = {}
        self._fallback_memo: dict[str, int] = {}
        self.covered_by: dict[str, str] = {}  # changed symbol id -> the changed symbol whose code shows it
        self.related_total = sum(1 for s in slices if s.relevance != "contains_diff")
        self.positions = change_positions(changes)
        for s in slices:
            s.brief = s.relevance != "contains_diff"

    # -- summaries

    def summary_of(self, c: FileChange) -> str:
        if c.path not in self.summaries:
            if c.withheld == "sensitive":
                why, see = "sensitive, not shown", None
            elif c.withheld:
                why, see = f"{c.withheld}, not shown", self.see(c)
            else:
                why, see = "over the token budget", self.see(c)
            self.summaries[c.path] = file_summary(c, why, symbol_names(self.graph, c), see)
        return self.summaries[c.path]

    def see(self, c: FileChange) -> str:
        """What shows *c* in full, in the front end's words."""
        return self.hints.see_change(c.new_path or c.path, c.old_path if c.old_path != c.new_path else None,
                                     tuple(self.revs), c.untracked)

    def group_line(self) -> str:
        in_order = [f"{c.old_path} -> {c.new_path}" if rename_line(c) else c.path
                    for c in self.changes if c.path in self.grouped]
        named = in_order[:self.group_names]
        more = len(self.grouped) - len(named)
        listed = ", ".join(named) + (f" and {more} more" if more else "")
        see = self.hints.see_changes(tuple(self.revs), any(self.by_path[p].untracked for p in self.grouped))
        files = f"{len(self.grouped)} changed file{'s' if len(self.grouped) > 1 else ''}"
        return f"{files}{': ' + listed if named else ''}; over the token budget; see: {see}"

    def diffs_for(self, visible: set[str]) -> list[dict]:
        return diff_entries(self.changes, visible, self.summary_of, self.summarized, set(self.grouped),
                            self.group_line() if self.grouped else "")

    # -- costs

    def fallback_cost(self, s: PackSlice) -> int:
        """Tokens to show a changed symbol as signature + diff instead of code (signature
        alone when its file is summarized: the summary names it)."""
        s.diffed = True  # priced as it would be drawn
        sig = s.signature_cost()
        s.diffed = False
        if s.sym.path in self.summarized:
            return sig
        if s.sym.id not in self._fallback_memo:
            c = self.change_at[s.sym.path]
            everything = self.everything
            others = everything - {s.sym.id} - {i for i, outer in self.covered_by.items() if outer == s.sym.id}
            without = render_diff(c, lambda n: c.new_owner.get(n) in others,
                                  lambda o: c.old_owner.get(o) in others)
            if c.path not in self._base_diff_cost:
                with_ = render_diff(c, lambda n: c.new_owner.get(n) in everything,
                                    lambda o: c.old_owner.get(o) in everything)
                self._base_diff_cost[c.path] = count_tokens(with_ or "")
            self._fallback_memo[s.sym.id] = count_tokens(without or "") - self._base_diff_cost[c.path]
        return sig + self._fallback_memo[s.sym.id]

    def summarize_to_fit(self, mandatory: list[dict]) -> int:
        """Summarize the files that cost most until the changed symbols' cheapest forms,
        the diffs no slice can show and the frame fit; returns the fixed cost left."""
        budget, by_path, summarized = self.budget, self.by_path, self.summarized
        diff_cost = {d["path"]: block_cost(diff_block(d)) for d in mandatory}
        mine: dict[str, list[PackSlice]] = {}
        for s in self.work:
            if s.relevance == "contains_diff":
                mine.setdefault(s.sym.path, []).append(s)

        def slices_cost(path: str) -> int:
            return sum(s.signature_cost() if s.mode == "unchanged" else min(s.code_cost(), self.fallback_cost(s))
                       for s in mine.get(path, ()))

        def line_cost(path: str) -> int:
            return block_cost(diff_block({"diff": None, "summary": self.summary_of(by_path[path])}))

        frame = count_tokens(self.footer()) + HEADER_TOKENS
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

    # -- the pack

    def degrade(self) -> bool:
        """One more step down when the pack is still over the budget (see `fit`)."""
        work, pack_diffs, by_path, summarized, grouped = \
            self.work, self.pack_diffs, self.by_path, self.summarized, self.grouped
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
            entry = max(single, key=lambda d: (not by_path[d["path"]].withheld,
                                                len(d["summary"] or d["diff"] or ""), d["path"]))
            grouped.append(entry["path"])
            return True
        if not self.compact:
            self.compact = True  # the short footer
            return True
        if self.group_names > 0:
            self.group_names = min(self.group_names, len(grouped)) // 2
            return True
        return False

    def decide(self, held: Callable[[PackSlice], bool]) -> list[PackSlice]:
        work = self.work = list(self.slices)
        memo: dict[str, bool] = {}

        def held_once(s: PackSlice) -> bool:
            if s.sym.id not in memo:
                memo[s.sym.id] = held(s)
            return memo[s.sym.id]

        for s in work:
            if s.relevance == "contains_diff":
                if held_once(s):
                    s.mode = "unchanged"
                else:  # a long symbol: the lines around its change, not all of it
                    s.prefer_window(window_around(s.sym, self.positions.get(s.sym.id, ())))
        self.nest(work)
        fixed = self.summarize_to_fit(diff_entries(self.changes, self.everything, self.summary_of))
        allowance = min(RELATED_CAP, max(RELATED_FLOOR, round(RELATED_SHARE * self.change_cost())))
        allocate(work, self.budget, held_once, fixed, [s for s in work if s.relevance == "contains_diff"],
                 [s for s in work if s.relevance != "contains_diff" and s.depth == 1], self.fallback_cost,
                 allowance=allowance, upgrade_limit=lambda cheapest: UPGRADE_FLOOR + UPGRADE_SHARE * cheapest)
        self.fit()
        return work

    def nest(self, work: list[PackSlice]) -> None:
        """No changed line twice: a changed symbol inside another one whose code (or stub)
        covers it leaves the pack, and one that a window reaches is merged into it."""
        changed = sorted((s for s in work if s.relevance == "contains_diff"),
                         key=lambda s: (s.sym.path, s.sym.lines[0], -s.sym.lines[1]))
        for outer in changed:
            while outer in work and self._merge_one(work, outer, changed):
                pass

    def _merge_one(self, work: list[PackSlice], outer: PackSlice, changed: list[PackSlice]) -> bool:
        a, b = outer.sym.lines
        for s in changed:
            if s is outer or s not in work or s.sym.path != outer.sym.path \
                    or not (a <= s.sym.lines[0] and s.sym.lines[1] <= b):
                continue
            shown = s.sym.lines if s.mode == "unchanged" else s.span
            if outer.window is not None:
                wa, wb = outer.window
                if shown[1] < wa or shown[0] > wb:
                    continue  # apart from the window: shown on its own
                outer.prefer_window((min(wa, shown[0]), max(wb, shown[1])))
            work.remove(s)
            self.covered_by[s.sym.id] = outer.sym.id
            for k, v in self.covered_by.items():
                if v == s.sym.id:
                    self.covered_by[k] = outer.sym.id
            return True
        return False

    def change_cost(self) -> int:
        """Tokens of the whole change as unified diffs (what `git diff` would show)."""
        return sum(block_cost(diff_block(d)) for d in diff_entries(self.changes, set(), self.summary_of))

    def draw(self) -> str:
        for s in self.work:  # a summarized file shows no diff: say why the symbol has no code
            if s.diffed and s.sym.path in self.summarized:
                s.diffed, s.cut = False, True
        return super().draw()

    def diffs(self) -> list[dict]:
        visible = {s.sym.id for s in self.work
                   if s.relevance == "contains_diff" and s.mode in ("code", "unchanged")}
        visible |= {i for i, outer in self.covered_by.items() if outer in visible}
        self.pack_diffs[:] = self.diffs_for(visible)
        return self.pack_diffs

    def footer(self) -> str:
        if self.compact:
            return f"== diff-context against {self.label}: budget {self.budget} =="
        work, pack_diffs = self.work, self.pack_diffs
        related = sum(1 for s in work if s.relevance != "contains_diff")
        changed = len(self.everything)
        not_shown = sum(1 for d in pack_diffs if d["diff"] is None)
        parts = [_count(len(self.changes), "changed file")] + ([_count(changed, "changed symbol")] if changed else [])
        if self.related_total:
            parts.append(f"{related} of {self.related_total} related")
        if not_shown:
            parts.append(f"{not_shown} not shown")
        return f"== diff-context against {self.label}: {'; '.join(parts)} =="


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def change_positions(changes: Sequence[FileChange]) -> dict[str, set[int]]:
    """Per changed symbol id, the new lines where it changed: its changed lines, and
    where lines it lost were removed (the lines on both sides of the removal)."""
    out: dict[str, set[int]] = {}
    for c in changes:
        if not c.parsed:
            continue
        for n, owner in c.new_owner.items():
            out.setdefault(owner, set()).add(n)
        for _, i1, i2, j1, j2 in c.opcodes:
            owners = {c.old_owner[o] for o in range(i1 + 1, i2 + 1) if o in c.old_owner}
            where = range(j1 + 1, j2 + 1) if j2 > j1 else (j1, j1 + 1)
            for owner in owners:
                out.setdefault(owner, set()).update(where)
    return out


def diff_entries(changes: Sequence[FileChange], visible: set[str], summary_of: Callable[[FileChange], str],
           summarized: Collection[str] = frozenset(), grouped: Collection[str] = frozenset(),
           group_line: str = "") -> list[dict]:
    """The `diffs` entries: for each file, the changed lines no slice in *visible* shows, as
    a unified diff, or as a summary line when the file is withheld or *summarized*."""
    out = []
    for c in changes:
        if c.withheld or c.path in summarized or c.path in grouped:
            if c.withheld or c.note is not None or _hidden(c, visible):
                out.append({"path": c.path, "diff": None,
                            "summary": group_line if c.path in grouped else summary_of(c)})
            elif rename_line(c) and c.path not in grouped:  # the group line names it "old -> new"
                out.append({"path": c.path, "diff": rename_line(c)})
            continue
        if c.parsed:
            diff = render_diff(c, _owned_by(c.new_owner, visible), _owned_by(c.old_owner, visible))
        else:
            diff = render_diff(c)
        renamed = rename_line(c) if c.note is None else None  # a note says the rename itself
        if renamed:
            diff = renamed if diff is None else f"{renamed}\n{diff}"
        if diff is not None:
            out.append({"path": c.path, "diff": diff})
    return out


def _owned_by(owners: dict[int, str], visible: set[str]) -> Callable[[int], bool]:
    """Is line n owned by a symbol a slice shows?"""
    return lambda n: owners.get(n) in visible


def _hidden(c: FileChange, visible: set[str]) -> bool:
    """Does *c* change a line that no slice in *visible* shows?"""
    if not c.parsed:
        return bool(c.opcodes)
    for _, i1, i2, j1, j2 in c.opcodes:
        if any(c.new_owner.get(n) not in visible for n in range(j1 + 1, j2 + 1)) or \
                any(c.old_owner.get(o) not in visible for o in range(i1 + 1, i2 + 1)):
            return True
    return False


def file_summary(c: FileChange, why: str, names: str, see: str | None) -> str:
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


def symbol_names(graph: CallGraph, c: FileChange) -> str:
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
            kept = {local_id(s, new_facts.path, new_facts.language or "") for s in new_facts.symbols}
        removed = [s.qualname for s in old_facts.symbols
                   if local_id(s, old_facts.path, old_facts.language or "") not in kept]

    def listed(what: str, names: list[str]) -> str:
        more = len(names) - SUMMARY_NAMES
        return f"{what}: {', '.join(names[:SUMMARY_NAMES])}" + (f" (+{more} more)" if more > 0 else "")

    return "; ".join(listed(w, n) for w, n in (("changed", changed), ("removed", removed)) if n)
