"""Judging context packs (`context`, `diff-context`) from the responses alone.

`PackJudge` is the pack half of the oracle: like `oracle.ReadOracle` it uses nothing
of the engine: slice code against file lines, `[UNCHANGED]` claims against code this
session was given (or provably holds from reads), and visibility of every changed
line (`ChangedLines`, from git). The engine functions are looked up with
`load_pack_function`, so the eval runs (and says "not available") before
`symbolpack.api.context` exists.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .oracle import ReadOracle, split_lines


def load_pack_function(name: str, *args: Any, **kwargs: Any) -> tuple[Callable | None, str]:
    """`symbolpack.api.context.<name>` if it exists and accepts (*args, **kwargs); else (None, why not)."""
    try:
        from ..api import context as module
    except ImportError:
        return None, "symbolpack.api.context is not there (yet)"
    fn = getattr(module, name, None)
    if not callable(fn):
        return None, f"symbolpack.api.context has no {name}()"
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as exc:
        return None, f"symbolpack.api.context.{name}() does not take the arguments the eval passes ({exc})"
    except ValueError:
        pass  # no introspectable signature: try the call
    return fn, ""


@dataclass
class ChangedLines:
    """What a change did to one file, from git, in the file's new line numbers."""

    lines: set[int] = field(default_factory=set)  # added or modified lines
    deletion_points: set[int] = field(default_factory=set)  # lines removed before these
    deleted_file: bool = False
    renamed_from: str | None = None  # git saw this file as a rename (or copy) of another
    renamed_to: str | None = None  # for a deleted file: where git saw it go


class PackJudge:
    """Judges context packs from the responses alone (the pack half of the oracle).

    *delta* says whether this stream of packs may use the session (`[UNCHANGED]`
    stubs); a `--no-delta` pack claiming anything unchanged is wrong by the protocol.

    A file the budget (or its content: not UTF-8, sensitive) keeps out of a pack may be
    *summarized*: a `diffs` entry `{"path", "diff": null, "summary"}` whose summary line
    is in the text. Its changed lines are then not required to be visible; it is counted
    in `summarized` (paths of the last pack) and `summarized_total`, not as a failure.
    A changed file that is neither visible nor summarized is still a failure.
    """

    def __init__(self, delta: bool, read_oracle: ReadOracle | None = None):
        self.delta = delta
        self.read_oracle = read_oracle
        self.given: dict[str, tuple[str, list[str]]] = {}  # id -> (path, code lines) this session got
        self.summarized: list[str] = []  # changed files the last pack summarized instead of showing
        self.summarized_total = 0

    def apply(self, pack: Any, file_lines: Callable[[str], list[str] | None],
              changed: Mapping[str, ChangedLines] | None = None) -> list[str]:
        if not isinstance(pack, Mapping):
            return [f"pack is not a JSON object: {type(pack).__name__}"]
        problems: list[str] = []
        if pack.get("v") != 1:
            problems.append(f"protocol version {pack.get('v')!r}, expected 1")
        slices = pack.get("slices")
        if not isinstance(slices, list):
            return problems + ["slices missing or not a list"]
        unchanged = pack.get("unchanged") or []
        if not isinstance(unchanged, list):
            return problems + ["unchanged is not a list"]
        coverage: dict[str, list[tuple[int, int]]] = {}
        by_id: dict[str, tuple[str, int, int]] = {}
        received: list[tuple[str, str, list[str]]] = []
        for i, s in enumerate(slices):
            if not isinstance(s, Mapping) or not isinstance(s.get("id"), str) or not isinstance(s.get("path"), str):
                problems.append(f"slice {i} is malformed: {s!r:.200}")
                continue
            sid, path, span = s["id"], s["path"], s.get("lines")
            if not (isinstance(span, list) and len(span) == 2 and all(type(x) is int for x in span)
                    and 1 <= span[0] <= span[1]):
                problems.append(f"slice {sid}: bad lines {span!r}")
                continue
            a, b = span
            by_id[sid] = (path, a, b)
            code = s.get("code")
            if code is None:
                continue
            if not isinstance(code, str):
                problems.append(f"slice {sid}: code is not a string or null")
                continue
            lines = file_lines(path)
            if lines is None:
                problems.append(f"slice {sid}: {path} cannot be read")
                continue
            want = "\n".join(lines[a - 1:b])
            if b > len(lines) or code not in (want, want + "\n"):  # verbatim, a final newline allowed
                problems.append(f"slice {sid}: code differs from {path} lines {a}-{b}")
                continue
            coverage.setdefault(path, []).append((a, b))
            received.append((sid, path, lines[a - 1:b]))
        for sid in unchanged:
            if not isinstance(sid, str):
                problems.append(f"unchanged entry {sid!r} is not an id")
                continue
            if not self.delta:
                problems.append(f"{sid}: a --no-delta pack claims [UNCHANGED]")
                continue
            where = by_id.get(sid)
            if not self._holds(sid, where, file_lines):
                problems.append(f"{sid}: claimed [UNCHANGED], but this session was never given that code as it is now")
                continue
            if where is not None:
                coverage.setdefault(where[0], []).append((where[1], where[2]))
        summarized: set[str] = set()
        problems += self._diff_entries(pack.get("diffs"), file_lines, coverage, summarized, pack.get("text"))
        self.summarized = []
        for path, change in (changed or {}).items():
            if path in summarized:
                self.summarized.append(path)
                continue
            mentioned = path in coverage or path in str(pack.get("text", ""))
            if change.deleted_file:
                if not mentioned:
                    problems.append(f"{path}: {'renamed' if change.renamed_to else 'deleted'}, "
                                    f"and the pack does not say so")
                continue
            if change.renamed_from and not mentioned:
                problems.append(f"{path}: renamed from {change.renamed_from}, and the pack does not say so")
            spans = coverage.get(path, [])
            hidden = [n for n in sorted(change.lines) if not any(a <= n <= b for a, b in spans)]
            if hidden:
                problems.append(f"{path}: changed lines not visible: {_ranges(hidden)}")
            elif change.deletion_points and not mentioned:
                problems.append(f"{path}: lines were deleted, and the pack does not show where")
        self.summarized_total += len(self.summarized)
        if self.delta:
            for sid, path, got in received:
                self.given[sid] = (path, got)
                if self.read_oracle is not None:  # reads may rely on what packs showed
                    self.read_oracle.learn(path, by_id[sid][1], got)
        return problems

    def _holds(self, sid: str, where: tuple[str, int, int] | None, file_lines) -> bool:
        """Does this session provably hold that symbol's current code?"""
        if where is not None:
            path, a, b = where
            lines = file_lines(path)
            if lines is None or b > len(lines):
                return False
            now = lines[a - 1:b]
            if self.read_oracle is not None:
                # The agent's copy decides, line by line: it holds what packs showed (learned
                # below) and what reads showed since, so a later display of other text voids
                # what an earlier pack gave, even if the file has come back to it.
                known = self.read_oracle.reconstruct(path)
                return all(known.get(n) == now[n - a] for n in range(a, b + 1))
            given = self.given.get(sid)
            return given is not None and given[1] == now
        given = self.given.get(sid)
        if given is None:
            return False
        lines = file_lines(given[0]) or []
        code = given[1]
        return any(lines[i:i + len(code)] == code for i in range(0, len(lines) - len(code) + 1))

    @staticmethod
    def _diff_entries(diffs: Any, file_lines, coverage: dict[str, list[tuple[int, int]]],
                      summarized: set[str] | None = None, text: Any = None) -> list[str]:
        """Check each `diffs` entry's new side against the file; count its + lines as visible.
        An entry with `"diff": null` adds its path to *summarized* when its `summary` is
        in *text* (the pack's text); a summary the agent is not shown is a failure."""
        import re

        if diffs is None:
            return []
        if not isinstance(diffs, list):
            return ["diffs is not a list"]
        problems = []
        hunk = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
        for entry in diffs:
            if isinstance(entry, Mapping) and isinstance(entry.get("path"), str) and entry.get("diff") is None:
                summary = entry.get("summary")
                if not isinstance(summary, str) or not summary.strip():
                    problems.append(f"{entry['path']}: diffs entry has neither a diff nor a summary")
                elif not isinstance(text, str) or summary not in text:
                    problems.append(f"{entry['path']}: summarized, but the summary is not in the text")
                elif summarized is not None:
                    summarized.add(entry["path"])
                continue
            if not isinstance(entry, Mapping) or not isinstance(entry.get("path"), str) \
                    or not isinstance(entry.get("diff"), str):
                problems.append(f"diffs entry is malformed: {entry!r:.200}")
                continue
            path = entry["path"]
            lines = file_lines(path)
            coverage.setdefault(path, [])
            new_line = None
            for raw in split_lines(entry["diff"]):
                m = hunk.match(raw)
                if m:
                    count = int(m.group(2)) if m.group(2) is not None else 1
                    new_line = int(m.group(1)) if count else int(m.group(1)) + 1
                    continue
                tag = raw[:1]
                if new_line is None or tag in ("-", "\\"):
                    continue  # file headers before the first hunk, removed lines, "\ No newline"
                if tag not in (" ", "+", ""):
                    new_line = None  # not a hunk line: wait for the next header
                    continue
                if lines is not None and (new_line > len(lines) or lines[new_line - 1] != raw[1:]):
                    problems.append(f"{path}: diffs entry line {new_line} differs from the file")
                    lines = None  # one message per entry
                if tag == "+":
                    coverage[path].append((new_line, new_line))
                new_line += 1
        return problems


def _ranges(numbers: Sequence[int]) -> str:
    out: list[str] = []
    for n in numbers:
        if out and out[-1].split("-")[-1] == str(n - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out[:8]) + (" ..." if len(out) > 8 else "")
